// backends/cuda/backend/sparse_times_full.cpp: mxm on the GPU for A sparse and B with every entry present,
// over any semiring and type the SpMM library runs (semiring_map.hpp), PLUS_TIMES on FP32 through its
// fastest kernels (the library's dispatcher picks them from the shape).
//
// Semantics (core::Backend::mxm): T(i,j) exists only where some k has A(i,k) and B'(k,j); with B' full that
// is every j of every row i that holds an entry of A, so T has the pattern (non-empty rows of A) x (all N
// columns) and T(i,j) = (+)_{k in row i} f(A(i,k), B'(k,j)). The SpMM runs on A's compacted pattern (only
// its non-empty rows, device_copy.hpp), so its dense output, row-major with N columns, is T's CSR value
// array as it stands; T's host form, when the host asks for it, is that array in hypersparse form (row list = A's
// non-empty rows), which the container turns into plain CSR when its size rule says so.
//
// Data movement: A's values and Plan, and B's values, live in the MatrixOnDevice attached to each and are
// reused while the matrix is unchanged (and where products would run faster with A's values bound to the Plan, in
// the orders of its batch-2-128 kernels, they are bound once the products have paid for it: the rule below). B's
// host CSR form of a full matrix is already its dense row-major array, so it is uploaded as is (tb: read as
// column-major, the transpose costs nothing). Per call only T is allocated on the device, unless T is full and memory
// was lent for it (its output's, borrowed for results: result_values), where it is written instead; it stays there
// (MatrixOnDevice::dense_rows) until the host reads it, so a chain of products makes no round trip. N above
// the library's batch limit (65535) runs in column chunks. The mask hint is ignored (the core applies the mask).
//
// A^T B' (ta) runs the library's W^T X orientation on A's transposed plan (built once per pattern) where the result is
// full (A has no empty row or column).
//
// Declined: ta where A has an empty row or column (the core retries with a transposed copy), a B with missing entries,
// types and semirings the library has no kernels for, and a pattern whose columns or entries exceed 32-bit indices.
//
// A sparse operand with the precision hint (SNK_PRECISION_HINT: FP16 or BF16) under PLUS_TIMES on FP32 runs the same
// products on 16-bit values: its values rounded once per device copy (half_values_of), the full operand rounded per
// call, the SpMM summing in FP32 and writing 16-bit sums, which are widened into T (HalfOperands). Their rounded values
// bind to the plan under the same rule as FP32 values (below); one type's values are bound at a time.
//
// A sparse operand with the 2:4 hint (SNK_TWO_FOUR_HINT) under PLUS_TIMES on FP32 runs on the sparse tensor cores
// instead where it is 2:4 (two_four_form_of, two_four_run below): W B' here, X W^T in mxm_full_times_sparse (W^T X is
// not 2:4 along its rows, so it stays on the SpMM family); otherwise as above.
#include "sparse_times_full.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "dense_tile_sampled.hpp"
#include "portable_ops.hpp"
#include "device_copy.hpp"
#include "semiring_map.hpp"
#include "spmm/host_threads.hpp"
#include "snack/backend.hpp"
#include "two_four/two_four_gemm.hpp"

namespace snk::cuda {
namespace {

using core::KernelStatus;

// Columns of B' per SpMM call: within the library's batch limit (65535) and a multiple of 4, so that each
// chunk's first column keeps the row alignment the vector loads want.
constexpr Index kColumnsPerCall = 32768;

// Binding A's values to its Plan (Plan::bind_values, and the lanes orders that its first bound calls build) is
// host work and transfers linear in the non-zeros, part of it spread over host_order_threads() threads
// (spmm/host_threads.hpp). The constants below estimate it per non-zero: a part that no thread count shortens
// (copies, transfers) and a part shared by the threads, both measured (bench/results/spmm-dispatch-rules.md).
// Binding saves part of each product, so a one-off product should not pay it and a loop of products should. The
// rule is the ski-rental one: a copy of A binds once its products that ran unbound, where binding would have changed
// their kernel, have taken as long on the GPU as binding is estimated to take (BindingRule: events, read without
// waiting for the stream). Binding then costs about what those products already spent. The user may bind at the
// first such product instead, or never (snk::set_bind_policy, SNK_Bind_set, $SNACK_BIND). The same holds for X W^T,
// which reads W's own plan (a layer's forward; mxm_full_times_sparse); a layer in training renews W every step, so
// Auto never binds there.
constexpr double kBindSerialSecondsPerNonZero = 11e-9;
constexpr double kBindSharedSecondsPerNonZero = 26e-9;

double binding_seconds(std::int64_t nnz) {
  const double per_non_zero = kBindSerialSecondsPerNonZero + kBindSharedSecondsPerNonZero / host_order_threads();
  return static_cast<double>(nnz) * per_non_zero;
}

// The binding rule for the SpMM calls of one product on W's own plan (the values of the device copy `owner`, in the
// call's type): before each call, binds where the policy and the record say so and marks the call bound; after the
// calls, the product's GPU time joins the record where some call ran unbound that bound values would have served
// (events read by a later product: the stream is not waited for).
class BindingRule {
 public:
  BindingRule(CompactedPattern& pattern, std::uint64_t owner, ValueType type, cudaStream_t stream)
      : p_(pattern), owner_(owner), type_(type), stream_(stream), policy_(snk::bind_policy()) {
    const bool same = p_.unbound_owner == owner && p_.unbound_type == type;
    if (p_.unbound_timed && cudaEventQuery(p_.unbound_stop) == cudaSuccess) {   // the last timed product has run
      float ms = 0;
      if (same && cudaEventElapsedTime(&ms, p_.unbound_start, p_.unbound_stop) == cudaSuccess)
        p_.unbound_seconds += ms * 1e-3;
      p_.unbound_timed = false;
    }
    (void)cudaGetLastError();   // a query of events still pending reports cudaErrorNotReady
    if (!same) {   // one set of values in one type
      p_.unbound_owner = owner;
      p_.unbound_type = type;
      p_.unbound_seconds = 0;
      p_.unbound_timed = false;
    }
  }
  void before_call(Plan& plan, SpmmArgs& args) {
    if (!bound(plan) && policy_ != BindPolicy::Never && bound_values_would_serve(plan, args)) {
      if (!p_.bind_failed &&
          (policy_ == BindPolicy::Eager || p_.unbound_seconds >= binding_seconds(plan.nnz()))) {
        if (plan.bind_values(args.values, args.type, stream_) == Status::Success) {
          p_.bound_owner = owner_;
          p_.bound_type = type_;
        } else {
          (void)cudaGetLastError();
          p_.bind_failed = true;
        }
      }
      if (!bound(plan) && !timing_ && !p_.unbound_timed && events())
        timing_ = cudaEventRecord(p_.unbound_start, stream_) == cudaSuccess;
    }
    args.values_bound = bound(plan);
  }
  void after_calls() {
    if (timing_) p_.unbound_timed = cudaEventRecord(p_.unbound_stop, stream_) == cudaSuccess;
  }

 private:
  bool bound(const Plan& plan) const {
    return plan.has_bound_values() && p_.bound_owner == owner_ && p_.bound_type == type_;
  }
  bool events() {
    if (!p_.unbound_start && cudaEventCreate(&p_.unbound_start) != cudaSuccess) p_.unbound_start = nullptr;
    if (!p_.unbound_stop && cudaEventCreate(&p_.unbound_stop) != cudaSuccess) p_.unbound_stop = nullptr;
    (void)cudaGetLastError();
    return p_.unbound_start && p_.unbound_stop;
  }
  CompactedPattern& p_;
  std::uint64_t owner_;
  ValueType type_;
  cudaStream_t stream_;
  BindPolicy policy_;
  bool timing_ = false;   // this product's first timed call has its start event recorded
};

// The arguments every product here passes: W's values, the semiring, determinism, the stream.
SpmmArgs product_args(Orientation orientation, const SpmmSemiring& semiring, const void* values, cudaStream_t stream) {
  SpmmArgs args;
  args.orientation = orientation;
  args.semiring = semiring.id;
  args.type = semiring.type;
  args.values = values;
  args.deterministic = snk::deterministic();
  args.stream = stream;
  return args;
}

bool has_every_entry(const Matrix& B) {
  const Index n = B.nvals();
  if (B.nrows() == 0 || B.ncols() == 0) return n == 0;
  return n % B.nrows() == 0 && n / B.nrows() == B.ncols();
}

// Runs the SpMM of `args` on `plan` over n columns of X' and Y' in chunks of kColumnsPerCall: chunk c0 reads X' from
// x + c0 * x_step and writes Y' from y + c0 * y_step (bytes), each call bound or not by `binding` (where given).
// Declined where the library has no kernel for the call, which its first chunk finds before anything is written;
// throws for a failed call.
KernelStatus spmm_in_chunks(Plan& plan, SpmmArgs& args, Index n, const unsigned char* x, std::size_t x_step,
                            unsigned char* y, std::size_t y_step, BindingRule* binding) {
  for (Index c0 = 0; c0 < n; c0 += kColumnsPerCall) {
    args.batch = static_cast<std::int32_t>(std::min(kColumnsPerCall, n - c0));
    args.x.data = const_cast<unsigned char*>(x + c0 * x_step);
    args.y.data = y + c0 * y_step;
    if (binding != nullptr) binding->before_call(plan, args);
    std::string why;
    const Status st = spmm(plan, args, &why);
    if (st == Status::Unsupported) return KernelStatus::Declined;
    if (st != Status::Success)
      throw Error(Info::Panic, std::string("cuda backend: SpMM failed (") + status_name(st) + "): " + why);
  }
  if (binding != nullptr) binding->after_calls();
  return KernelStatus::Done;
}

// The kernels' type for a hint other than Off.
TwoFourType two_four_type(Matrix::TwoFourHint hint) {
  return hint == Matrix::TwoFourHint::FP16 ? TwoFourType::FP16 : TwoFourType::BF16;
}

// W's 2:4 form (two_four/two_four_gemm.hpp) for a W whose 2:4 hint is set (Matrix::TwoFourHint), over the rows of
// its compacted pattern, K columns: made on the device from its CSR at the first product that asks, kept in its
// device copy. Null where W is hypersparse or holds more than two entries in a group of four columns; remembered, so
// the check is not repeated while W is unchanged.
const MatrixOnDevice::TwoFourForm* two_four_form_of(const Matrix& W, MatrixOnDevice& w, const CompactedPattern& pattern,
                                                    Index K, cudaStream_t stream) {
  const Matrix::TwoFourHint hint = W.two_four_hint();
  MatrixOnDevice::TwoFourForm& form = w.two_four_form();
  if (form.refused) return nullptr;
  if (form.hint == hint) return &form;
  const MatrixOnDevice::Csr c = w.csr(W, stream);
  if (c.hyper) {
    form.refused = true;
    return nullptr;
  }
  const TwoFourType type = two_four_type(hint);
  const Index rows = pattern.rows.size(), padded = (K + 31) / 32 * 32;
  DeviceBuffer values(static_cast<std::size_t>(rows * padded / 2 * sizeof(std::uint16_t)));
  DeviceBuffer meta(static_cast<std::size_t>(rows * padded / 32 * sizeof(std::uint32_t)));
  DeviceBuffer flag(sizeof(int));
  throw_on_cuda_error(two_four_from_csr(static_cast<const std::uint64_t*>(pattern.device_rows.get()),
                                        static_cast<std::int64_t>(rows), static_cast<std::int64_t>(K), c.p, c.j,
                                        static_cast<const float*>(c.x), type, static_cast<std::uint16_t*>(values.get()),
                                        static_cast<std::uint32_t*>(meta.get()), static_cast<int*>(flag.get()), stream),
                      "2:4 form");
  int refused = 0;
  throw_on_cuda_error(cudaMemcpyAsync(&refused, flag.get(), sizeof(int), cudaMemcpyDeviceToHost, stream), "2:4 form");
  throw_on_cuda_error(cudaStreamSynchronize(stream), "2:4 form");
  if (refused) {
    form.refused = true;
    return nullptr;
  }
  form.values = std::move(values);
  form.meta = std::move(meta);
  form.hint = hint;
  return &form;
}

// Y = W X' on the sparse tensor cores, W given by its 2:4 form (rows x K): X'(k, n) = x[k * sr + n * sc] (FP32,
// rounded to the form's type on the way), Y in FP32 (the sums as they are) at y, row-major (ld N) or column-major
// (ld rows). Throws on a CUDA error; completes before return.
void two_four_run(const MatrixOnDevice::TwoFourForm& form, Index rows, Index K, Index N, const float* x, Index sr,
                  Index sc, float* y, bool y_row_major, cudaStream_t stream) {
  const TwoFourType type = two_four_type(form.hint);
  DeviceBuffer xh(static_cast<std::size_t>(K * N * sizeof(std::uint16_t)));
  throw_on_cuda_error(round_to_half(x, static_cast<std::int64_t>(K), static_cast<std::int64_t>(N),
                                    static_cast<std::int64_t>(sr), static_cast<std::int64_t>(sc), type,
                                    static_cast<std::uint16_t*>(xh.get()), stream),
                      "2:4 product");
  TwoFourProblem p;
  p.w = {static_cast<const std::uint16_t*>(form.values.get()), static_cast<const std::uint32_t*>(form.meta.get()),
         static_cast<std::int64_t>(rows), static_cast<std::int64_t>(K), type};
  p.x = static_cast<const std::uint16_t*>(xh.get());
  p.ldx = static_cast<std::int64_t>(K);
  p.batch = static_cast<std::int64_t>(N);
  p.y_fp32 = y;
  p.ldy = static_cast<std::int64_t>(y_row_major ? N : rows);
  p.y_row_major = y_row_major;
  throw_on_cuda_error(two_four_gemm(p, stream), "2:4 product");
  throw_on_cuda_error(cudaStreamSynchronize(stream), "2:4 product");
}

// A product on 16-bit values is asked for: W's precision hint is set and the semiring is PLUS_TIMES on FP32.
bool half_asked(const Matrix& W, const SpmmSemiring& semiring) {
  return W.precision_hint() != Matrix::PrecisionHint::FP32 && semiring.id.is_plus_times() &&
         semiring.type == ValueType::FP32;
}

TwoFourType half_rounding(Matrix::PrecisionHint hint) {
  return hint == Matrix::PrecisionHint::FP16 ? TwoFourType::FP16 : TwoFourType::BF16;
}

// W's values rounded to its precision hint's type, in the order of its device values: made at the first product that
// asks and kept with W's device copy (a change of W drops the copy, and them with it).
const void* half_values_of(const Matrix& W, MatrixOnDevice& w, cudaStream_t stream) {
  MatrixOnDevice::HalfValues& h = w.half_values();
  const Matrix::PrecisionHint hint = W.precision_hint();
  if (h.hint != hint) {
    const Index n = W.nvals();
    DeviceBuffer values(static_cast<std::size_t>(std::max<Index>(n, 1) * sizeof(std::uint16_t)));
    throw_on_cuda_error(round_to_half(static_cast<const float*>(w.values()), static_cast<std::int64_t>(n), 1, 1,
                                      static_cast<std::int64_t>(n), half_rounding(hint),
                                      static_cast<std::uint16_t*>(values.get()), stream),
                        "values rounded to 16 bits");
    h.values = std::move(values);
    h.hint = hint;
  }
  return h.values.get();
}

// The dense operand and the result of one product on 16-bit values: X's `x_count` values rounded, and room for the
// result's `y_count` 16-bit sums, which finish() widens into the FP32 result `y`.
struct HalfOperands {
  TwoFourType type;
  DeviceBuffer x, y;
  HalfOperands(Matrix::PrecisionHint hint, const void* x_fp32, Index x_count, Index y_count, cudaStream_t stream)
      : type(half_rounding(hint)),
        x(static_cast<std::size_t>(x_count * sizeof(std::uint16_t))),
        y(static_cast<std::size_t>(y_count * sizeof(std::uint16_t))) {
    throw_on_cuda_error(round_to_half(static_cast<const float*>(x_fp32), static_cast<std::int64_t>(x_count), 1, 1,
                                      static_cast<std::int64_t>(x_count), type, static_cast<std::uint16_t*>(x.get()),
                                      stream),
                        "operand rounded to 16 bits");
  }
  void finish(void* y_fp32, Index y_count, cudaStream_t stream) const {
    throw_on_cuda_error(widen_half(static_cast<const std::uint16_t*>(y.get()), static_cast<std::int64_t>(y_count), type,
                                   static_cast<float*>(y_fp32), stream),
                        "16-bit sums widened");
  }
};

// The product's operands on 16-bit values where W's precision hint asks for them (none otherwise): args then reads
// W's rounded values in that type, and the caller points X' and Y' at the returned buffers.
std::optional<HalfOperands> half_operands(const Matrix& W, MatrixOnDevice& w, const SpmmSemiring& semiring,
                                          const void* x_fp32, Index x_count, Index y_count, SpmmArgs& args,
                                          cudaStream_t stream) {
  if (!half_asked(W, semiring)) return std::nullopt;
  const Matrix::PrecisionHint hint = W.precision_hint();
  std::optional<HalfOperands> half(std::in_place, hint, x_fp32, x_count, y_count, stream);
  args.type = hint == Matrix::PrecisionHint::FP16 ? ValueType::FP16 : ValueType::BF16;
  args.values = half_values_of(W, w, stream);
  return half;
}

// The device row list of a product's result T over `pattern`'s rows (MatrixOnDevice::dense_rows): none where they are
// every row of T.
const DeviceBuffer* device_rows_of(const CompactedPattern& pattern, const Matrix& T) {
  return static_cast<Index>(pattern.rows.size()) == T.nrows() ? nullptr : &pattern.device_rows;
}

// A product on the sparse tensor cores is asked for: W's hint is set and the semiring is PLUS_TIMES on FP32.
bool two_four_asked(const Matrix& W, const SpmmSemiring& semiring) {
  return W.two_four_hint() != Matrix::TwoFourHint::Off && semiring.id.is_plus_times() &&
         semiring.type == ValueType::FP32;
}

}  // namespace

namespace {

// T = A^T B' (mxm_sparse_times_full with ta): the SpMM family's W^T X orientation on A's transposed plan, with X' = B'
// (K x N, B's rows, or tb its columns) and Y' = T (M x N, row-major). T is full: declined where A has an empty row or
// column, or where the library runs no kernel for the semiring.
KernelStatus sparse_t_times_full(Matrix& T, const SpmmSemiring& semiring, const Matrix& A, const Matrix& B, bool tb,
                                 cudaStream_t stream) {
  const Index K = tb ? B.ncols() : B.nrows(), N = tb ? B.nrows() : B.ncols(), M = A.ncols();
  if (A.nrows() != K || T.nrows() != M || T.ncols() != N) return KernelStatus::Declined;
  if (A.nvals() == 0 || N == 0) return KernelStatus::Declined;
  MatrixOnDevice& a = MatrixOnDevice::of(A, stream);
  CompactedPattern* pattern = a.pattern(A, stream);
  if (pattern == nullptr || static_cast<Index>(pattern->rows.size()) != K) return KernelStatus::Declined;
  Plan* plan = a.transposed_plan(A, stream);
  if (plan == nullptr) return KernelStatus::Declined;
  MatrixOnDevice& b = MatrixOnDevice::of(B, stream);
  const std::size_t value_bytes = T.type()->size;
  if (N > std::numeric_limits<std::size_t>::max() / value_bytes / std::max(M, K))
    throw Error(Info::OutOfMemory, "cuda backend: mxm result too large to hold (" + std::to_string(M) + " rows x " +
                                       std::to_string(N) + " columns)");
  DeviceBuffer t_values =
      result_values(T, static_cast<std::size_t>(M * N * value_bytes), {a.values_range(), b.values_range()});
  SpmmArgs args = product_args(Orientation::WtX, semiring, a.values(), stream);
  args.x.layout = tb ? Layout::ColMajor : Layout::RowMajor;
  args.x.ld = static_cast<std::int64_t>(tb ? K : N);
  args.y.layout = Layout::RowMajor;
  args.y.ld = static_cast<std::int64_t>(N);
  const auto* b_values = static_cast<const unsigned char*>(b.values());
  auto* y_values = static_cast<unsigned char*>(t_values.get());
  const std::optional<HalfOperands> half = half_operands(A, a, semiring, b.values(), K * N, M * N, args, stream);
  if (half) {
    b_values = static_cast<const unsigned char*>(half->x.get());
    y_values = static_cast<unsigned char*>(half->y.get());
  }
  const std::size_t elem = half ? sizeof(std::uint16_t) : value_bytes;
  // The transposed plan gathers A's values into its order per call (they are not bound to it).
  if (spmm_in_chunks(*plan, args, N, b_values, (tb ? K : 1) * elem, y_values, elem, nullptr) ==
      KernelStatus::Declined)
    return KernelStatus::Declined;   // T not touched yet
  if (half) half->finish(t_values.get(), M * N, stream);
  attach_full(T, std::move(t_values), stream);
  return KernelStatus::Done;
}

}  // namespace

KernelStatus mxm_sparse_times_full(Matrix& T, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                                   bool tb, bool flip, cudaStream_t stream) {
  const std::optional<SpmmSemiring> semiring = spmm_semiring_of(s, flip);
  if (!semiring) return KernelStatus::Declined;
  const Type* type = s.add->type();
  if (A.type() != type || B.type() != type || T.type() != type) return KernelStatus::Declined;
  if (!has_every_entry(B)) return KernelStatus::Declined;
  if (ta) return sparse_t_times_full(T, *semiring, A, B, tb, stream);
  const Index K = tb ? B.ncols() : B.nrows();
  const Index N = tb ? B.nrows() : B.ncols();
  if (A.ncols() != K || T.nrows() != A.nrows() || T.ncols() != N) return KernelStatus::Declined;
  if (A.nvals() == 0 || N == 0) return KernelStatus::Done;   // no product term: T stays empty

  MatrixOnDevice& a = MatrixOnDevice::of(A, stream);
  CompactedPattern* pattern = a.pattern(A, stream);
  if (pattern == nullptr) return KernelStatus::Declined;
  MatrixOnDevice& b = MatrixOnDevice::of(B, stream);
  if (two_four_asked(A, *semiring) && !pattern->rows.empty()) {
    // T = A B' with B'(k, n) = B(k, n) (row-major, K x N) or B(n, k) (tb: B row-major, N x K); T's dense rows
    // row-major.
    if (const MatrixOnDevice::TwoFourForm* form = two_four_form_of(A, a, *pattern, K, stream)) {
      const Index rows = pattern->rows.size();
      if (N > std::numeric_limits<std::size_t>::max() / sizeof(float) / std::max(rows, K))
        throw Error(Info::OutOfMemory, "cuda backend: mxm operands too large to hold (" + std::to_string(rows) +
                                           " rows x " + std::to_string(N) + " columns)");
      DeviceBuffer t_values = result_values(T, static_cast<std::size_t>(rows * N * sizeof(float)), {b.values_range()});
      two_four_run(*form, rows, K, N, static_cast<const float*>(b.values()), tb ? 1 : N, tb ? K : 1,
                   static_cast<float*>(t_values.get()), /*y_row_major=*/true, stream);
      T.attach_device_copy(MatrixOnDevice::dense_rows(a.device(), std::move(t_values), pattern->rows,
                                                       device_rows_of(*pattern, T), N, sizeof(float), stream),
                           /*host_is_stale=*/true);
      return KernelStatus::Done;
    }
  }

  const std::size_t value_bytes = type->size;
  const Index rows = pattern->rows.size();
  if (N > std::numeric_limits<std::size_t>::max() / value_bytes / rows)
    throw Error(Info::OutOfMemory, "cuda backend: mxm result too large to hold (" + std::to_string(rows) +
                                       " rows x " + std::to_string(N) + " columns)");
  const std::size_t t_bytes = static_cast<std::size_t>(rows * N * value_bytes);
  // Written where it was lent where T is full (every row of A holds an entry: then t_bytes is the lent size).
  DeviceBuffer t_values = result_values(T, t_bytes, {a.values_range(), b.values_range()});

  SpmmArgs args = product_args(Orientation::WX, *semiring, a.values(), stream);
  args.x.layout = tb ? Layout::ColMajor : Layout::RowMajor;
  args.x.ld = static_cast<std::int64_t>(tb ? K : N);
  args.y.layout = Layout::RowMajor;
  args.y.ld = static_cast<std::int64_t>(N);
  auto* b_values = static_cast<unsigned char*>(const_cast<void*>(b.values()));
  auto* y_values = static_cast<unsigned char*>(t_values.get());
  const std::optional<HalfOperands> half = half_operands(A, a, *semiring, b.values(), K * N, rows * N, args, stream);
  if (half) {
    b_values = static_cast<unsigned char*>(half->x.get());
    y_values = static_cast<unsigned char*>(half->y.get());
  }
  const std::size_t elem = half ? sizeof(std::uint16_t) : value_bytes;   // of the operands the SpMM reads and writes
  // A's values serve every product until A changes (the copy goes with them), so where a call's kernel would read a
  // bound order they are bound to the plan once the products have paid for it (the rule above); a bind that fails
  // (device memory) leaves this call and the later ones on the per-call path. The plan may hold another copy's values
  // (copies of one pattern share it): only the owner reads them. Column c of B' starts at B(0, c) (row-major, ld N) or
  // B(c, 0) (tb: column-major, ld K).
  BindingRule binding(*pattern, a.id(), args.type, stream);
  if (spmm_in_chunks(*pattern->plan, args, N, b_values, (tb ? K : 1) * elem, y_values, elem, &binding) ==
      KernelStatus::Declined)
    return KernelStatus::Declined;   // T not touched yet
  if (half) half->finish(t_values.get(), rows * N, stream);

  // T stays on the device: the next product reads it there, and the host form is made when the host reads it
  // (complete in stream order: device_copy.hpp).
  check_queued("mxm");
  T.attach_device_copy(MatrixOnDevice::dense_rows(a.device(), std::move(t_values), pattern->rows,
                                                   device_rows_of(*pattern, T), N, value_bytes, stream),
                       /*host_is_stale=*/true);
  return KernelStatus::Done;
}

KernelStatus mxm_full_times_sparse(Matrix& T, const Semiring& s, const Matrix& A, bool ta, const Matrix& B, bool tb,
                                   bool flip, cudaStream_t stream) {
  // X W^T applies the multiply as f(x, w) (x from A, w from B: mxm's own order); W^T X as f(w, x), the flipped one.
  const std::optional<SpmmSemiring> semiring = spmm_semiring_of(s, tb ? flip : !flip);
  if (!semiring) return KernelStatus::Declined;
  const Type* type = s.add->type();
  if (A.type() != type || B.type() != type || T.type() != type) return KernelStatus::Declined;
  // A' = ta ? A^T : A is batch x K.
  const Index batch = ta ? A.ncols() : A.nrows(), K = ta ? A.nrows() : A.ncols(), M = tb ? B.nrows() : B.ncols();
  if ((tb ? B.ncols() : B.nrows()) != K || T.nrows() != batch || T.ncols() != M) return KernelStatus::Declined;
  if (!has_every_entry(A) || B.nvals() == 0 || batch == 0) return KernelStatus::Declined;

  MatrixOnDevice& w = MatrixOnDevice::of(B, stream);
  CompactedPattern* pattern = w.pattern(B, stream);
  // The result is full where every row of B (X W^T) or every column (W^T X: transposed_plan is null otherwise) holds
  // an entry, and B's rows are then the plan's rows as they stand; otherwise the portable products run it.
  if (pattern == nullptr || static_cast<Index>(pattern->rows.size()) != B.nrows()) return KernelStatus::Declined;
  Plan* plan = tb ? pattern->plan.get() : w.transposed_plan(B, stream);
  if (plan == nullptr) return KernelStatus::Declined;
  MatrixOnDevice& x = MatrixOnDevice::of(A, stream);

  const std::size_t value_bytes = type->size;
  if (M > std::numeric_limits<std::size_t>::max() / value_bytes / std::max(batch, K))
    throw Error(Info::OutOfMemory, "cuda backend: mxm result too large to hold (" + std::to_string(batch) + " rows x " +
                                       std::to_string(M) + " columns)");
  DeviceBuffer t_values =
      result_values(T, static_cast<std::size_t>(batch * M * value_bytes), {x.values_range(), w.values_range()});
  // X W^T with W's 2:4 hint: T^T = W X^T on the sparse tensor cores, X^T(k, b) = A'(b, k) read from A and T^T
  // written column-major into T's rows (the same layouts as the SpMM call below).
  const MatrixOnDevice::TwoFourForm* form =
      tb && two_four_asked(B, *semiring) ? two_four_form_of(B, w, *pattern, K, stream) : nullptr;
  if (form) two_four_run(*form, M, K, batch, static_cast<const float*>(x.values()), ta ? batch : 1, ta ? 1 : K,
                         static_cast<float*>(t_values.get()), /*y_row_major=*/false, stream);
  // X W^T: X = A' (batch x K), A's rows or (ta) its columns; Y = T row-major (batch x M). W^T X: X' = A'^T (K x batch),
  // A's columns or (ta) its rows; Y' = T^T, M x batch, written column-major into T's rows. Both walk the batch in
  // chunks of A' rows.
  SpmmArgs args = product_args(tb ? Orientation::XWt : Orientation::WtX, *semiring, w.values(), stream);
  args.x.layout = tb != ta ? Layout::RowMajor : Layout::ColMajor;
  args.x.ld = static_cast<std::int64_t>(ta ? batch : K);
  args.y.layout = tb ? Layout::RowMajor : Layout::ColMajor;
  args.y.ld = static_cast<std::int64_t>(M);
  const auto* a_values = static_cast<const unsigned char*>(x.values());
  auto* y_values = static_cast<unsigned char*>(t_values.get());
  const std::optional<HalfOperands> half =
      form ? std::nullopt : half_operands(B, w, *semiring, x.values(), batch * K, batch * M, args, stream);
  if (half) {
    a_values = static_cast<const unsigned char*>(half->x.get());
    y_values = static_cast<unsigned char*>(half->y.get());
  }
  const std::size_t elem = half ? sizeof(std::uint16_t) : value_bytes;   // of the operands the SpMM reads and writes
  // X W^T reads W's own plan: its values bind to it under the rule of mxm_sparse_times_full (W^T X gathers them into
  // the transposed plan's order per call).
  std::optional<BindingRule> binding;
  if (tb && !form) binding.emplace(*pattern, w.id(), args.type, stream);
  if (!form && spmm_in_chunks(*plan, args, batch, a_values, (ta ? 1 : K) * elem, y_values, M * elem,
                              binding ? &*binding : nullptr) == KernelStatus::Declined)
    return KernelStatus::Declined;   // T not touched yet
  if (half) half->finish(t_values.get(), batch * M, stream);
  attach_full(T, std::move(t_values), stream);
  return KernelStatus::Done;
}

KernelStatus mxm_full_row_times_sparse_t(Matrix& T, const Semiring& s, const Matrix& u, bool ta, const Matrix& B,
                                         bool tb, bool flip, cudaStream_t stream) {
  if (ta || !tb || u.nrows() != 1) return KernelStatus::Declined;
  // X W^T applies the multiply as f(x, w) with x from u and w from B: the operand order of mxm(u, B^T), which is
  // the mapping of an ordinary call (the library's multiply of (a, b) with a from the A operand).
  const std::optional<SpmmSemiring> semiring = spmm_semiring_of(s, flip);
  if (!semiring) return KernelStatus::Declined;
  const Type* type = s.add->type();
  if (u.type() != type || B.type() != type || T.type() != type) return KernelStatus::Declined;
  if (!has_every_entry(u) || u.ncols() != B.ncols() || T.ncols() != B.nrows()) return KernelStatus::Declined;
  if (B.nvals() == 0) return KernelStatus::Done;   // no product term: T stays empty

  MatrixOnDevice& w = MatrixOnDevice::of(B, stream);
  CompactedPattern* pattern = w.pattern(B, stream);
  if (pattern == nullptr) return KernelStatus::Declined;
  MatrixOnDevice& x = MatrixOnDevice::of(u, stream);
  const std::size_t value_bytes = type->size;
  const Index rows = pattern->rows.size();
  DeviceBuffer y(rows * value_bytes);

  SpmmArgs args = product_args(Orientation::XWt, *semiring, w.values(), stream);
  args.batch = 1;
  args.x.data = const_cast<void*>(x.values());
  args.x.layout = Layout::RowMajor;
  args.x.ld = static_cast<std::int64_t>(u.ncols());
  args.y.data = y.get();
  args.y.layout = Layout::RowMajor;
  args.y.ld = static_cast<std::int64_t>(rows);
  std::string why;
  const Status st = spmm(*pattern->plan, args, &why);
  if (st == Status::Unsupported) return KernelStatus::Declined;
  if (st != Status::Success)
    throw Error(Info::Panic, std::string("cuda backend: SpMM failed (") + status_name(st) + "): " + why);
  // T's one row holds B's non-empty rows, in order: the pattern's device row list is its column array.
  DeviceBuffer p(2 * sizeof(Index)), j(rows * sizeof(Index));
  const Index p_host[2] = {0, rows};
  p.upload(p_host, sizeof p_host, stream);
  if (rows > 0)
    throw_on_cuda_error(cudaMemcpyAsync(j.get(), pattern->device_rows.get(), rows * sizeof(Index),
                                        cudaMemcpyDeviceToDevice, stream),
                        "mxv result columns");
  check_queued("mxv");
  T.attach_device_copy(MatrixOnDevice::from_csr(w.device(), false, 1, rows, DeviceBuffer(), std::move(p), std::move(j),
                                                std::move(y), value_bytes, stream),
                       /*host_is_stale=*/true);
  return KernelStatus::Done;
}

namespace {
// The sampled product's arguments for op(A) op(B) at M's positions (A, B full FP32, M with the plan of an earlier
// product, K up to kSampledMaxK), everything but z; null where it does not apply.
CompactedPattern* sampled_args(const Matrix& M, const Matrix& A, bool ta, const Matrix& B, bool tb, SampledArgs& args,
                               cudaStream_t stream) {
  if (A.type() != &types::FP32 || B.type() != &types::FP32 || M.nvals() == 0) return nullptr;
  if (!has_every_entry(A) || !has_every_entry(B)) return nullptr;
  const Index rows = ta ? A.ncols() : A.nrows(), K = ta ? A.nrows() : A.ncols();
  const Index cols = tb ? B.nrows() : B.ncols();
  if ((tb ? B.ncols() : B.nrows()) != K || K < 1 || K > kSampledMaxK || M.nrows() != rows || M.ncols() != cols)
    return nullptr;
  auto* m_copy = dynamic_cast<MatrixOnDevice*>(M.device_copy());
  if (m_copy == nullptr || m_copy->shared_pattern() == nullptr) return nullptr;   // no plan made yet
  MatrixOnDevice& m = MatrixOnDevice::of(M, stream);
  CompactedPattern* pattern = m.pattern(M, stream);
  if (pattern == nullptr || static_cast<Index>(pattern->rows.size()) != rows) return nullptr;
  MatrixOnDevice& a = MatrixOnDevice::of(A, stream);
  MatrixOnDevice& b = MatrixOnDevice::of(B, stream);
  args.a = static_cast<const float*>(a.values());   // A row-major: A'(r, k) = A(k, r) (ta) or A(r, k)
  args.a_row = ta ? 1 : static_cast<std::int64_t>(K);
  args.a_k = ta ? static_cast<std::int64_t>(rows) : 1;
  args.b = static_cast<const float*>(b.values());   // B row-major: B'(k, c) = B(c, k) (tb) or B(k, c)
  args.b_k = tb ? 1 : static_cast<std::int64_t>(cols);
  args.b_col = tb ? static_cast<std::int64_t>(K) : 1;
  args.k = static_cast<int>(K);
  args.stream = stream;
  return pattern;
}

// args.z = op(A) op(B) at M's positions (`args` from sampled_args, z set), M's device copy holding `pattern`: dense
// tiles through cuBLAS where they pay and M's CSR form is plain, else the SpMM library's sampled product on M's plan.
// Declined (nothing written) where the library has no kernel for the call.
KernelStatus sampled_at(const Matrix& M, CompactedPattern& pattern, const SampledArgs& args, cudaStream_t stream) {
  if (dense_tiles_pay(M.nrows(), M.ncols(), args.k, M.nvals())) {
    const MatrixOnDevice::Csr mc = MatrixOnDevice::of(M, stream).csr(M, stream);   // made once per pattern
    DenseTileSampled dt;
    dt.a = args.a, dt.a_row = args.a_row, dt.a_k = args.a_k;
    dt.b = args.b, dt.b_k = args.b_k, dt.b_col = args.b_col;
    dt.rows = M.nrows(), dt.cols = M.ncols(), dt.k = args.k;
    dt.p = mc.p, dt.j = mc.j, dt.z = args.z;
    if (!mc.hyper && dense_tile_sampled(dt, stream)) return KernelStatus::Done;
  }
  std::string why;
  const Status st = sampled_product(*pattern.plan, args, &why);
  if (st == Status::Unsupported) return KernelStatus::Declined;
  if (st != Status::Success)
    throw Error(st == Status::OutOfMemory ? Info::OutOfMemory : Info::Panic, "cuda backend: sampled product: " + why);
  check_queued("sampled product");
  return KernelStatus::Done;
}
}  // namespace

KernelStatus mxm_sampled(Matrix& T, const core::MaskHint& mask, const Semiring& s, const Matrix& A, bool ta,
                         const Matrix& B, bool tb, cudaStream_t stream) {
  const Matrix* M = mask.M;
  if (M == nullptr || mask.complement || M->nvals() == 0) return KernelStatus::Declined;
  const std::optional<SpmmSemiring> semiring = spmm_semiring_of(s, false);
  if (!semiring || !semiring->id.is_plus_times() || semiring->type != ValueType::FP32) return KernelStatus::Declined;
  if (T.type() != &types::FP32 || T.nrows() != M->nrows() || T.ncols() != M->ncols()) return KernelStatus::Declined;
  SampledArgs args;
  CompactedPattern* pattern = sampled_args(*M, A, ta, B, tb, args, stream);
  if (pattern == nullptr) return KernelStatus::Declined;
  DeviceBuffer z(static_cast<std::size_t>(M->nvals()) * sizeof(float));
  args.z = static_cast<float*>(z.get());
  if (sampled_at(*M, *pattern, args, stream) == KernelStatus::Declined) return KernelStatus::Declined;
  T.attach_device_copy(MatrixOnDevice::with_pattern_of(*M, std::move(z), sizeof(float), stream),
                       /*host_is_stale=*/true);
  return KernelStatus::Done;
}

KernelStatus optimizer_step_sampled(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& A, bool ta, const Matrix& B,
                                    bool tb, const OptimizerStep& step, cudaStream_t stream) {
  SampledArgs args;   // A and B FP32 (sampled_args), and so P (the core checked that they are of P's type)
  CompactedPattern* pattern = sampled_args(P, A, ta, B, tb, args, stream);
  if (pattern == nullptr || args.k > kSampledUpdateMaxK) return KernelStatus::Declined;
  return portable_sampled_step(P, S1, S2, *pattern->plan, args, step, stream);
}

// ---- products on the caller's device memory (snk::device_sparse_times_dense, device_sampled_product) -------------
namespace {
// A dense operand as the SpMM library reads it: row-major where its column stride is 1 (the front end checked that
// one stride is 1 and the other covers the extent).
Dense dense_of(const DeviceDense& D) {
  Dense d;
  d.data = const_cast<void*>(D.data);
  d.layout = D.row_major() ? Layout::RowMajor : Layout::ColMajor;
  d.ld = D.row_major() ? D.row_stride : D.col_stride;
  return d;
}
}  // namespace

KernelStatus device_product(const DeviceDense& Y, const Matrix& A, const void* a_values, bool transpose,
                            const DeviceDense& X, cudaStream_t caller, cudaStream_t stream) {
  const std::optional<ValueType> type = spmm_value_type(A.type()->code);
  if (!type || A.nvals() == 0) return KernelStatus::Declined;
  // A's matrix products honour its 2:4 and precision hints where they apply; these do not, so they leave A to them.
  const SpmmSemiring plus_times{SemiringId{}, *type};
  if (two_four_asked(A, plus_times) || half_asked(A, plus_times)) return KernelStatus::Declined;
  const Index n = X.cols;
  if (n == 0) return KernelStatus::Done;
  MatrixOnDevice& a = MatrixOnDevice::of(A, stream);
  CompactedPattern* pattern = a.pattern(A, stream);
  // Every row of Y is one of the plan's rows where every row of A holds an entry (A X), and every column too (A^T X:
  // the transposed plan is made only then).
  if (pattern == nullptr || static_cast<Index>(pattern->rows.size()) != A.nrows()) return KernelStatus::Declined;
  Plan* plan = transpose ? a.transposed_plan(A, stream) : pattern->plan.get();
  if (plan == nullptr) return KernelStatus::Declined;
  SpmmArgs args = product_args(transpose ? Orientation::WtX : Orientation::WX, plus_times, a_values, stream);
  args.x = dense_of(X);
  args.y = dense_of(Y);
  const std::size_t elem = A.type()->size;
  const char* what = "device product";
  stream_waits(stream, caller, what);   // after the caller's work on X, Y and the values
  // Values per call: never bound to the plan (the caller's array may hold new ones each time).
  const KernelStatus st = spmm_in_chunks(*plan, args, n, static_cast<const unsigned char*>(X.data),
                                         static_cast<std::size_t>(X.col_stride) * elem,
                                         static_cast<unsigned char*>(const_cast<void*>(Y.data)),
                                         static_cast<std::size_t>(Y.col_stride) * elem, nullptr);
  if (st == KernelStatus::Declined) return st;   // its first chunk found no kernel: nothing written
  check_queued(what);
  stream_waits(caller, stream, what);
  return KernelStatus::Done;
}

KernelStatus device_sampled(void* z, const Matrix& A, const DeviceDense& X, const DeviceDense& Y, cudaStream_t caller,
                            cudaStream_t stream) {
  const Index K = X.cols;
  if (A.type() != &types::FP32 || A.nvals() == 0 || K < 1 || K > kSampledMaxK) return KernelStatus::Declined;
  CompactedPattern* pattern = MatrixOnDevice::of(A, stream).pattern(A, stream);
  if (pattern == nullptr || static_cast<Index>(pattern->rows.size()) != A.nrows()) return KernelStatus::Declined;
  SampledArgs args;
  args.a = static_cast<const float*>(X.data);   // A'(r, k) = X(r, k)
  args.a_row = X.row_stride;
  args.a_k = X.col_stride;
  args.b = static_cast<const float*>(Y.data);   // B'(k, c) = Y(k, c)
  args.b_k = Y.row_stride;
  args.b_col = Y.col_stride;
  args.k = static_cast<int>(K);
  args.z = static_cast<float*>(z);
  args.stream = stream;
  const char* what = "device sampled product";
  stream_waits(stream, caller, what);
  if (sampled_at(A, *pattern, args, stream) == KernelStatus::Declined) return KernelStatus::Declined;
  stream_waits(caller, stream, what);
  return KernelStatus::Done;
}

}  // namespace snk::cuda
