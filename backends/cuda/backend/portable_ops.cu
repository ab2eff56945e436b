// backends/cuda/backend/portable_ops.cu: the portable Kokkos kernels (backends/kokkos/portable/) instantiated for
// Kokkos' CUDA space, and the glue between them and the backend's device copies (portable_ops.hpp).
//
// Compiled by nvcc against the CUDA build of Kokkos (scripts/setup.sh builds it; its symbols stay inside this
// plugin). Kernels run on one Kokkos::Cuda instance made on the backend's stream, and allocate through
// DeviceBuffer, so every result is a DeviceBuffer that the result's MatrixOnDevice owns, outside Kokkos' tracking
// (Kokkos is finalized at process exit, when such buffers may still be alive). Instantiation: each kernel once per builtin value type (11), times
// the output type where an operator can give bool (comparisons); the operator is a run-time opcode
// (op_eval.hpp says why).
#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "device_context.hpp"
#include "portable/elementwise.hpp"
#include "portable/index_ops.hpp"
#include "portable/index_unary_calls.hpp"
#include "portable/mask_accum.hpp"
#include "portable/optimizer.hpp"
#include "portable/reduce.hpp"
#include "portable_ops.hpp"

namespace snk::cuda {

SNACK_SOURCE_CONTEXT
namespace {

namespace P = snk::kokkos::portable;
using core::KernelStatus;
using kokkos::CsrRef;
using kokkos::with_type;

// The Kokkos::Cuda instance on the backend's stream (one per stream: making one allocates Kokkos' scratch), made on
// first use; Kokkos is finalized at process exit, after the instance is released (otherwise Kokkos' own static
// destructors report that finalize() was never called).
std::mutex instance_mutex;
cudaStream_t instance_stream = nullptr;
Kokkos::Cuda* instance = nullptr;

void finalize_kokkos() {
  std::lock_guard<std::mutex> lock(instance_mutex);
  delete instance;
  instance = nullptr;
  if (Kokkos::is_initialized()) Kokkos::finalize();
}
}  // namespace

void start_kokkos(int device) {
  static std::once_flag once;
  std::call_once(once, [device] {
    if (!Kokkos::is_initialized()) {   // a program that started Kokkos itself finalizes it too
      Kokkos::InitArguments args;
      args.device_id = device;
      args.disable_warnings = true;
      Kokkos::initialize(args);
      std::atexit(finalize_kokkos);
    }
    // Kokkos' CUDA initialization sets the device's cache preference to shared memory, which leaves every other
    // kernel of the process (the SpMM family's, cuBLAS', the program's own) the smallest L1; Kokkos' kernels set
    // their own preference at launch, so the device's default (no preference) is restored.
    int previous = 0;
    if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(device) == cudaSuccess) {
      (void)cudaDeviceSetCacheConfig(cudaFuncCachePreferNone);
      (void)cudaSetDevice(previous);
    }
    (void)cudaGetLastError();
  });
}

DeviceContext context(cudaStream_t s) {
  std::lock_guard<std::mutex> lock(instance_mutex);
  if (instance == nullptr || instance_stream != s) {
    delete instance;
    instance = new Kokkos::Cuda(s);
    instance_stream = s;
  }
  return DeviceContext{*instance, s};
}

CsrRef ref_of(const Matrix& A, cudaStream_t s) {
  MatrixOnDevice& copy = MatrixOnDevice::of(A, s);
  const MatrixOnDevice::Csr c = copy.csr(A, s);
  CsrRef r;
  r.h = c.h;
  r.p = c.p;
  r.j = c.j;
  r.x = static_cast<const unsigned char*>(c.x);
  r.nslots = c.nslots;
  r.nrows = A.nrows();
  r.ncols = A.ncols();
  r.nvals = c.nvals;
  r.hyper = c.hyper;
  return r;
}

bool is_full(const Matrix& A) { return A.nrows() > 0 && A.ncols() > 0 && A.nvals() == A.nrows() * A.ncols(); }

CsrRef full_values_ref(const Matrix& A, cudaStream_t s) {
  if (!is_full(A)) throw Error(Info::Panic, "cuda backend: a values-only view of a matrix that is not full");
  CsrRef r;
  r.x = static_cast<const unsigned char*>(MatrixOnDevice::of(A, s).values());
  r.nslots = r.nrows = A.nrows();
  r.ncols = A.ncols();
  r.nvals = A.nvals();
  return r;
}

void attach(Matrix& T, P::CsrParts<DeviceBuffer>&& parts, cudaStream_t s) {
  check_queued("portable kernel");
  int device = 0;
  throw_on_cuda_error(cudaGetDevice(&device), "current device");
  T.attach_device_copy(MatrixOnDevice::from_csr(device, parts.hyper, parts.nslots, parts.nvals, std::move(parts.h),
                                                std::move(parts.p), std::move(parts.j), std::move(parts.x),
                                                T.type()->size, s),
                       /*host_is_stale=*/true);
}

bool builtin(const Type* t) { return t != nullptr && t->builtin(); }

namespace {
// The pattern A's copy has built (null when none), and its hand-over to a result T of exactly that pattern
// (CompactedPattern: the plans of a matrix whose values change are then built once).
std::shared_ptr<CompactedPattern> pattern_of(const Matrix& A) {
  auto* copy = dynamic_cast<MatrixOnDevice*>(A.device_copy());
  return copy != nullptr ? copy->shared_pattern() : nullptr;
}
void inherit(Matrix& T, std::shared_ptr<CompactedPattern> p) {
  if (!p) return;
  if (auto* copy = dynamic_cast<MatrixOnDevice*>(T.device_copy())) copy->inherit_pattern(std::move(p));
}
}  // namespace

void attach_values(Matrix& T, const Matrix& A, DeviceBuffer x, cudaStream_t s) {
  check_queued("portable kernel");
  T.attach_device_copy(MatrixOnDevice::with_pattern_of(A, std::move(x), T.type()->size, s), /*host_is_stale=*/true);
}

void attach_full(Matrix& T, DeviceBuffer values, cudaStream_t s) {
  // A result of every column of every row: its CSR form is plain and lists no rows.
  int device = 0;
  throw_on_cuda_error(cudaGetDevice(&device), "current device");
  T.attach_device_copy(MatrixOnDevice::every_row(device, std::move(values), T.nrows(), T.ncols(), T.type()->size, s),
                       /*host_is_stale=*/true);
}

void fill_dense_pattern(Index* p, Index* j, Index rows, Index ncols, cudaStream_t s) {
  SourceContext ctx = source_context(s);
  P::for_n_stream(ctx, "snack::cuda::dense_pattern_p", rows + 1, KOKKOS_LAMBDA(Index r) { p[r] = r * ncols; });
  P::for_n_stream(ctx, "snack::cuda::dense_pattern_j", rows * ncols, KOKKOS_LAMBDA(Index e) { j[e] = e % ncols; });
}

KernelStatus portable_fill(Matrix& T, const Scalar& x, const Matrix* pattern, cudaStream_t s) {
  const std::size_t size = x.type() != nullptr ? x.type()->size : 0;
  if (!builtin(x.type()) || T.type() != x.type() || !x.has_value() || size > 8) return KernelStatus::Declined;
  SourceContext ctx = source_context(s);
  if (pattern != nullptr) {
    const CsrRef a = ref_of(*pattern, s);
    attach_values(T, *pattern, P::filled_values(ctx, a.nvals, x.data(), size), s);
    return KernelStatus::Done;
  }
  const Index rows = T.nrows(), n = rows * T.ncols();
  P::CsrParts<DeviceBuffer> parts;
  parts.nslots = rows;
  parts.nvals = n;
  parts.p = ctx.alloc((rows + 1) * sizeof(Index));
  parts.j = ctx.alloc(n * sizeof(Index));
  fill_dense_pattern(P::as<Index>(parts.p), P::as<Index>(parts.j), rows, T.ncols(), s);
  parts.x = P::filled_values(ctx, n, x.data(), size);
  attach(T, std::move(parts), s);
  return KernelStatus::Done;
}

namespace {
// X's new device values on its own pattern, keeping the pattern (and the plans built on it).
void renew_values(Matrix& X, DeviceBuffer x, cudaStream_t s) {
  std::shared_ptr<CompactedPattern> pattern = pattern_of(X);
  attach_values(X, X, std::move(x), s);
  inherit(X, std::move(pattern));
}

// The new values of an optimizer step on P, S1 and S2 (S2 null for SGD), n of `size` bytes each; give() hands them
// to the matrices, each keeping its pattern.
struct StepValues {
  DeviceBuffer p, s1, s2;
  StepValues(SourceContext& ctx, Index n, std::size_t size, bool with_s2)
      : p(ctx.alloc(n * size)), s1(ctx.alloc(n * size)), s2(with_s2 ? ctx.alloc(n * size) : DeviceBuffer()) {}
  void give(Matrix& P, Matrix& S1, Matrix* S2, cudaStream_t s) {
    renew_values(P, std::move(p), s);
    renew_values(S1, std::move(s1), s);
    if (S2) renew_values(*S2, std::move(s2), s);
  }
};
}  // namespace

KernelStatus portable_optimizer_step(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& step,
                                     cudaStream_t s) {
  const CsrRef p = ref_of(P, s), s1 = ref_of(S1, s), g = ref_of(G, s);
  const CsrRef s2 = S2 ? ref_of(*S2, s) : p;
  SourceContext ctx = source_context(s);
  if (!P::same_pattern(ctx, p, s1) || !P::same_pattern(ctx, p, s2) || !P::same_pattern(ctx, p, g))
    return KernelStatus::Declined;
  bool done = false;
  with_type(P.type()->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    if constexpr (std::is_floating_point_v<V>) {
      StepValues out(ctx, p.nvals, sizeof(V), S2 != nullptr);
      P::optimizer_values<V>(ctx, p.nvals, OptimizerRule<V>(step), p.values<V>(), s1.values<V>(),
                             S2 ? s2.values<V>() : nullptr, g.values<V>(), P::as<V>(out.p), P::as<V>(out.s1),
                             S2 ? P::as<V>(out.s2) : nullptr);
      out.give(P, S1, S2, s);
      done = true;
    }
    return done;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus portable_sampled_step(Matrix& P, Matrix& S1, Matrix* S2, Plan& plan, SampledArgs args,
                                   const OptimizerStep& step, cudaStream_t s) {
  if (P.type() != &types::FP32) return KernelStatus::Declined;   // S1 and S2 are P's type (the core checked)
  const CsrRef p = ref_of(P, s), s1 = ref_of(S1, s);
  const CsrRef s2 = S2 ? ref_of(*S2, s) : p;
  SourceContext ctx = source_context(s);
  if (!P::same_pattern(ctx, p, s1) || !P::same_pattern(ctx, p, s2)) return KernelStatus::Declined;
  StepValues out(ctx, p.nvals, sizeof(float), S2 != nullptr);
  SampledUpdate up;
  up.rule = OptimizerRule<float>(step);
  up.p = p.values<float>();
  up.s1 = s1.values<float>();
  up.s2 = S2 ? s2.values<float>() : nullptr;
  up.p_out = P::as<float>(out.p);
  up.s1_out = P::as<float>(out.s1);
  up.s2_out = S2 ? P::as<float>(out.s2) : nullptr;
  args.update = &up;
  std::string why;
  const Status st = sampled_product(plan, args, &why);
  if (st == Status::Unsupported) return KernelStatus::Declined;
  if (st != Status::Success)
    throw Error(st == Status::OutOfMemory ? Info::OutOfMemory : Info::Panic,
                "cuda backend: optimizer step on a sampled product: " + why);
  out.give(P, S1, S2, s);
  return KernelStatus::Done;
}

KernelStatus portable_apply_unary(Matrix& T, const UnaryOp& op, const Matrix& A, cudaStream_t s) {
  if (op.opcode == UnaryOpcode::User || !builtin(op.xtype) || op.ztype != op.xtype || A.type() != op.xtype)
    return KernelStatus::Declined;
  SourceContext ctx = source_context(s);
  bool done = false;
  with_type(op.xtype->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    if (!P::defined_unary<V>(op.opcode)) return false;
    attach_values(T, A, P::apply_unary_values<V>(ctx, ref_of(A, s), op.opcode), s);
    return done = true;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus portable_apply_bound(Matrix& T, const BinaryOp& op, const Scalar& x, bool bind_first, const Matrix& A,
                                  cudaStream_t s) {
  if (x.type() != op.xtype) return KernelStatus::Declined;
  SourceContext ctx = source_context(s);
  const bool done = P::with_value_types(op, A.type(), A.type(), [&](auto vt, auto zt) {
    using V = typename decltype(vt)::type;
    using Z = typename decltype(zt)::type;
    attach_values(T, A, P::apply_bound_values<V, Z>(ctx, ref_of(A, s), op.opcode, kokkos::load_value<V>(x.data()),
                                                    bind_first),
                  s);
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus portable_apply_index(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& y, cudaStream_t s) {
  SourceContext ctx = source_context(s);
  return P::apply_index_call(ctx, op, A, [&] { return ref_of(A, s); }, y,
                              [&](auto&& r) { attach(T, std::move(r), s); });
}

KernelStatus portable_select(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& y, cudaStream_t s) {
  SourceContext ctx = source_context(s);
  return P::select_call(ctx, T, op, A, [&] { return ref_of(A, s); }, y,
                         [&](auto&& r) { attach(T, std::move(r), s); });
}

namespace {
template <bool Union>
KernelStatus ewise(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B, cudaStream_t s) {
  SourceContext ctx = source_context(s);
  const bool done = P::with_value_types(op, A.type(), B.type(), [&](auto vt, auto zt) {
    using V = typename decltype(vt)::type;
    using Z = typename decltype(zt)::type;
    const CsrRef a = ref_of(A, s), b = ref_of(B, s);
    if (P::same_pattern(ctx, a, b)) attach_values(T, A, P::ewise_values<V, Z>(ctx, a, b, op.opcode), s);
    else if constexpr (Union) attach(T, P::ewise_union<V, Z>(ctx, a, b, op.opcode), s);
    else attach(T, P::ewise_mult<V, Z>(ctx, a, b, op.opcode), s);
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

}  // namespace

KernelStatus portable_ewise_add(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B, cudaStream_t s) {
  return ewise<true>(T, op, A, B, s);
}

KernelStatus portable_ewise_mult(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B, cudaStream_t s) {
  return ewise<false>(T, op, A, B, s);
}

namespace {
// Calls f(monoid functor) with the value type of A, which must be the monoid's builtin type with a monoid the
// portable kernels reduce with; Declined otherwise.
template <class F>
KernelStatus with_monoid(const Monoid& m, const Matrix& A, F&& f) {
  return P::with_monoid_fn(m, A.type(), f) ? KernelStatus::Done : KernelStatus::Declined;
}
}  // namespace

KernelStatus portable_reduce_rows(Matrix& T, const Monoid& m, const Matrix& A, cudaStream_t s) {
  SourceContext ctx = source_context(s);
  return with_monoid(m, A, [&](auto fn) {
    using V = decltype(fn.identity);
    P::BytesOf<SourceContext> sums;   // a full A's rows read where they lie, without its CSR arrays: a full result
    if (is_full(A) && P::reduce_full_rows<V>(ctx, full_values_ref(A, s), fn, sums))
      attach_full(T, std::move(sums), s);
    else
      attach(T, P::reduce_rows<V>(ctx, ref_of(A, s), fn), s);
  });
}

KernelStatus portable_reduce_columns(Matrix& T, const Monoid& m, const Matrix& A, cudaStream_t s) {
  if (!is_full(A)) return KernelStatus::Declined;
  SourceContext ctx = source_context(s);
  bool made = false;
  const KernelStatus st = with_monoid(m, A, [&](auto fn) {
    using V = decltype(fn.identity);
    P::BytesOf<SourceContext> sums;
    made = P::reduce_full_columns<V>(ctx, full_values_ref(A, s), fn, sums);
    if (made) attach_full(T, std::move(sums), s);
  });
  return st == KernelStatus::Done && made ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus portable_reduce_scalar(Scalar& out, const Monoid& m, const Matrix& A, cudaStream_t s) {
  if (out.type() != m.type()) return KernelStatus::Declined;
  SourceContext ctx = source_context(s);
  return with_monoid(m, A, [&](auto fn) {
    using V = decltype(fn.identity);
    const V v = P::reduce_scalar<V>(ctx, ref_of(A, s), fn);
    out.set(&v, A.type());
  });
}

namespace {
// A hypersparse operand of the mask step read as plain CSR over all its rows: its row pointers made on the device
// (held by `keep`), its columns and values as they are. False where the rows are too many for that to pay against
// the step's own work, `entries` (the operands' entries: a new, empty C beside a large T pays; the step then
// declines otherwise, and the host runs it).
bool as_plain(SourceContext& ctx, CsrRef& a, DeviceBuffer& keep, Index entries) {
  if (!a.hyper) return true;
  constexpr Index kAlwaysRows = Index(1) << 20;
  if (a.nrows > kAlwaysRows && a.nrows / 8 > entries + a.nslots) return false;
  keep = P::reslot(ctx, a, nullptr, a.nrows);
  a.hyper = false;
  a.h = nullptr;
  a.p = static_cast<const Index*>(keep.get());
  a.nslots = a.nrows;
  return true;
}
}  // namespace

bool portable_mask_accum(Matrix& C, const Matrix* M, bool structural, bool complement, const BinaryOp* accum,
                         Matrix& T, bool replace, cudaStream_t s) {
  const Type* v = C.type();
  if (!builtin(v) || !builtin(T.type()) || (M != nullptr && !structural && !builtin(M->type()))) return false;
  if (accum != nullptr && (accum->opcode == BinaryOpcode::User || accum->xtype != v || accum->ytype != v ||
                           accum->ztype != v))
    return false;
  SourceContext ctx = source_context(s);
  if (T.type() != v) {   // T's values cast to C's type first (a select of a graph into an integer L)
    Matrix cast(v, T.nrows(), T.ncols());
    attach_values(cast, T, P::cast_values(ctx, ref_of(T, s), T.type()->code, v->code, v->size), s);
    return portable_mask_accum(C, M, structural, complement, accum, cast, replace, s);
  }
  // An empty C without an accumulator under a structural mask that T fills exactly (a sampled product, as a layer's
  // weight gradient dW<W> = dY^T X): the result is T itself, which C takes where it lives (T is the step's own). C
  // is not brought to the device for it.
  if (C.nvals() == 0 && accum == nullptr && M != nullptr && structural && !complement &&
      P::same_pattern(ctx, ref_of(*M, s), ref_of(T, s))) {
    C.take(std::move(T));
    return true;
  }
  const bool has_accum = accum != nullptr;
  const BinaryOpcode accum_op = has_accum ? accum->opcode : BinaryOpcode::First;
  // C and T full, no mask (a layer's output plus its broadcast bias): read through values-only views, so that C
  // stays a full matrix without CSR arrays; else their CSR views, as plain CSR (a new, empty C is hypersparse, and
  // so is a sampled product).
  const bool full = M == nullptr && !complement && is_full(C) && is_full(T);
  CsrRef c, t, m;
  DeviceBuffer c_rows, t_rows, m_rows;
  if (full) {
    c = full_values_ref(C, s);
    t = full_values_ref(T, s);
  } else {
    c = ref_of(C, s);
    t = ref_of(T, s);
    if (M != nullptr) m = ref_of(*M, s);
    const Index entries = c.nvals + t.nvals + (M != nullptr ? m.nvals : 0);
    if (!as_plain(ctx, c, c_rows, entries) || !as_plain(ctx, t, t_rows, entries) ||
        (M != nullptr && !as_plain(ctx, m, m_rows, entries)))
      return false;
  }
  bool done = false;
  with_type(v->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    if (has_accum && !P::defined_binary<V, V>(accum_op)) return false;
    // Without a mask, where T has C's positions (both full, or an update of a layer's weights or optimizer state):
    // every position takes T's value or the accumulation, so the values alone are computed, over T's own array where
    // T's copy owns the array read (T is the step's own, consumed by it): the step then holds two arrays of C's size,
    // not three (C, T and a result).
    if (full || (M == nullptr && !complement && P::same_pattern(ctx, c, t))) {
      MatrixOnDevice& td = MatrixOnDevice::of(T, s);
      DeviceBuffer x = td.values() == static_cast<const void*>(t.x) ? td.release_values() : DeviceBuffer();
      if (x.get() != nullptr) P::accum_values_over<V>(ctx, c, static_cast<V*>(x.get()), has_accum, accum_op);
      else x = P::accum_values<V>(ctx, c, t, has_accum, accum_op);
      if (full) attach_full(C, std::move(x), s);
      else attach_values(C, C, std::move(x), s);
      return done = true;
    }
    const DeviceBuffer flags = M != nullptr ? mask_true_flags(ctx, *M, m, structural, s) : DeviceBuffer();
    P::CsrParts<DeviceBuffer> parts =
        P::mask_accum<V>(ctx, c, t, M != nullptr, m, static_cast<const std::uint8_t*>(flags.get()), complement,
                         has_accum, accum_op, replace);
    // Without a mask the result is C's pattern united with T's (accumulated) or T's (replaced): with as many entries
    // as C, the union is C's pattern exactly.
    std::shared_ptr<CompactedPattern> pattern;
    if (M == nullptr) pattern = !has_accum ? pattern_of(T) : (parts.nvals == c.nvals ? pattern_of(C) : nullptr);
    attach(C, std::move(parts), s);
    inherit(C, std::move(pattern));
    return done = true;
  });
  return done;
}

}  // namespace snk::cuda

// ---- device memory exchange (Backend::import_device / export_device) -----------------------------------------------
namespace snk::cuda {

KernelStatus portable_import_device(Matrix& T, const Matrix* pattern, const void* device_values, cudaStream_t caller,
                                    cudaStream_t s, core::Backend::ImportMode mode) {
  const std::size_t elem = T.type()->size;
  if (elem == 0) return KernelStatus::Declined;
  const char* what = "import of device values";
  stream_waits(s, caller, what);
  if (mode != core::Backend::ImportMode::Copy && pattern == nullptr) {
    // Read (and where lent for results, written) where it lies: the caller orders its later accesses
    // (borrow_device_full, borrow_device_output).
    attach_full(T, DeviceBuffer::borrowed(const_cast<void*>(device_values), T.nrows() * T.ncols() * elem,
                                          mode == core::Backend::ImportMode::BorrowForResults),
                s);
    return KernelStatus::Done;
  }
  DeviceBuffer x((pattern != nullptr ? pattern->nvals() : T.nrows() * T.ncols()) * elem);
  throw_on_cuda_error(cudaMemcpyAsync(x.get(), device_values, x.bytes(), cudaMemcpyDeviceToDevice, s), what);
  stream_waits(caller, s, what);   // the caller's later work (reuse of device_values) comes after the copy
  if (pattern == nullptr) {
    attach_full(T, std::move(x), s);
    return KernelStatus::Done;
  }
  std::shared_ptr<CompactedPattern> kept = pattern_of(*pattern);
  attach_values(T, *pattern, std::move(x), s);
  inherit(T, std::move(kept));
  return KernelStatus::Done;
}

KernelStatus portable_export_device(const Matrix& M, bool dense, void* device_out, cudaStream_t caller, cudaStream_t s) {
  const std::size_t elem = M.type()->size;
  if (elem == 0) return KernelStatus::Declined;
  const char* what = "export to device memory";
  MatrixOnDevice& copy = MatrixOnDevice::of(M, s);
  const Index nvals = M.nvals();
  const bool full = nvals == M.nrows() * M.ncols();
  // Where the values lie at device_out already (a result written where it was lent: its import ordered the product
  // after the caller's earlier work) the caller only waits for them; else the copy comes after the caller's earlier
  // work on device_out.
  const bool in_place = (!dense || full) && copy.values() == device_out;
  if (!in_place) stream_waits(s, caller, what);
  if (!dense || full) {   // the values in entry order, which for a full matrix is the row-major array
    if (!in_place)
      throw_on_cuda_error(cudaMemcpyAsync(device_out, copy.values(), nvals * elem, cudaMemcpyDeviceToDevice, s), what);
  } else {
    throw_on_cuda_error(cudaMemsetAsync(device_out, 0, M.nrows() * M.ncols() * elem, s), what);
    const CsrRef a = ref_of(M, s);
    unsigned char* out = static_cast<unsigned char*>(device_out);
    const Index ncols = M.ncols();
    SourceContext ctx = source_context(s);
    P::for_n(ctx, "snack::cuda::export_dense", a.nslots, KOKKOS_LAMBDA(Index slot) {
      const Index row = a.row_of(slot);
      for (Index e = a.p[slot]; e < a.p[slot + 1]; ++e) {
        unsigned char* to = out + (row * ncols + a.j[e]) * elem;
        const unsigned char* from = a.x + e * elem;
        for (std::size_t b = 0; b < elem; ++b) to[b] = from[b];
      }
    });
  }
  check_queued(what);
  stream_waits(caller, s, what);
  return KernelStatus::Done;
}

namespace {
template <class T>
void row_sums_of(SourceContext& ctx, T* z, const void* data, Index rows, Index cols, bool row_major) {
  // The full-matrix reductions read X as one row-major array, its rows (row-major X) or the columns of X^T, and write
  // the sums into z.
  CsrRef r;
  r.x = static_cast<const unsigned char*>(data);
  r.nslots = r.nrows = row_major ? rows : cols;
  r.ncols = row_major ? cols : rows;
  r.nvals = rows * cols;
  const P::MonoidFn<T> plus{BinaryOpcode::Plus, T(0)};
  const bool made =
      row_major ? P::reduce_full_rows_into<T>(ctx, r, plus, z) : P::reduce_full_columns_into<T>(ctx, r, plus, z);
  if (!made) throw Error(Info::Panic, "cuda backend: device row sums of a matrix that is not full");
}
}  // namespace

KernelStatus portable_device_row_sums(void* z, const Type* type, const DeviceDense& X, cudaStream_t caller,
                                      cudaStream_t s) {
  if ((type != &types::FP32 && type != &types::FP64) || !X.packed()) return KernelStatus::Declined;
  // Read by rows where X is packed row-major (or one column, the same array either way), else as X^T's columns.
  const bool by_rows = X.cols == 1 || (X.row_major() && X.row_stride == static_cast<std::int64_t>(X.cols));
  if (X.rows == 0) return KernelStatus::Done;
  const char* what = "device row sums";
  stream_waits(s, caller, what);
  if (X.cols == 0) {
    throw_on_cuda_error(cudaMemsetAsync(z, 0, X.rows * type->size, s), what);
  } else {
    SourceContext ctx = source_context(s);
    if (type == &types::FP32)
      row_sums_of<float>(ctx, static_cast<float*>(z), X.data, X.rows, X.cols, by_rows);
    else
      row_sums_of<double>(ctx, static_cast<double*>(z), X.data, X.rows, X.cols, by_rows);
  }
  check_queued(what);
  stream_waits(caller, s, what);
  return KernelStatus::Done;
}

}  // namespace snk::cuda
