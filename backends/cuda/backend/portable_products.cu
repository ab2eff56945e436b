// backends/cuda/backend/portable_products.cu: the portable sparse x sparse products and transpose
// (backends/kokkos/portable/products.hpp) instantiated for Kokkos' CUDA space, and the CUDA context's radix sort and
// scan.
//
// mxm's kernels form an ordered table (product_kernels): each states when it can run and is preferred, and a call
// takes the first that can. A separate source from portable_ops.cu so that the two compile in parallel. Instantiation: the products once per
// builtin value type (11; the semiring's operators are run-time opcodes; the dense row accumulator for FP32 and FP64
// only, the dense push for the boolean and 32/64-bit integer types), the mask's value test once per mask type, transpose once (values moved as bytes), the sort once (64-bit keys
// with 64-bit positions; the values follow through the positions).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>

#include <type_traits>
#include <vector>

#include "device_context.hpp"
#include "portable/products.hpp"
#include "portable_ops.hpp"
#include "row_block_product.hpp"
#include "sparse_times_full.hpp"

namespace snk::cuda {

SNACK_SOURCE_CONTEXT

void DeviceContext::sort_pairs(std::uint64_t* keys, std::uint64_t* idx, Index n, int bits) {
  if (n <= 1) return;
  DeviceBuffer keys_out(n * sizeof(std::uint64_t)), idx_out(n * sizeof(std::uint64_t));
  cub::DoubleBuffer<std::uint64_t> k(keys, static_cast<std::uint64_t*>(keys_out.get()));
  cub::DoubleBuffer<std::uint64_t> v(idx, static_cast<std::uint64_t*>(idx_out.get()));
  std::size_t temp_bytes = 0;
  throw_on_cuda_error(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, static_cast<std::int64_t>(n), 0, bits,
                                                      stream),
                      "radix sort (size)");
  DeviceBuffer temp(temp_bytes);
  throw_on_cuda_error(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, k, v, static_cast<std::int64_t>(n), 0,
                                                      bits, stream),
                      "radix sort");
  if (k.Current() != keys)
    throw_on_cuda_error(cudaMemcpyAsync(keys, k.Current(), n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, stream),
                        "radix sort");
  if (v.Current() != idx)
    throw_on_cuda_error(cudaMemcpyAsync(idx, v.Current(), n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, stream),
                        "radix sort");
}   // the buffers above are released in stream order, after the work that reads them (parts.hpp)

void DeviceContext::exclusive_sum(Index* v, Index n) {
  if (n == 0) return;
  std::size_t temp_bytes = 0;
  throw_on_cuda_error(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, v, v, static_cast<std::int64_t>(n), stream),
                      "scan (size)");
  DeviceBuffer temp(temp_bytes);   // released in stream order, after the scan
  throw_on_cuda_error(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, v, v, static_cast<std::int64_t>(n), stream),
                      "scan");
}

namespace {
// A page-locked block of the calling thread's for read-backs, made on its first one (null where page-locked memory is
// refused: then the copy goes to pageable memory). Freed when the thread ends, before the runtime's teardown.
struct ReadBackBlock {
  static constexpr std::size_t kBytes = 256;
  void* host = nullptr;
  bool tried = false;
  ~ReadBackBlock() {
    if (host != nullptr) (void)cudaFreeHost(host);
  }
  void* get() {
    if (!tried) {
      tried = true;
      if (cudaHostAlloc(&host, kBytes, cudaHostAllocDefault) != cudaSuccess) {
        (void)cudaGetLastError();
        host = nullptr;
      }
    }
    return host;
  }
};
}  // namespace

void DeviceContext::read_back_bytes(void* host, const void* device, std::size_t bytes) {
  thread_local ReadBackBlock block;
  void* staged = bytes <= ReadBackBlock::kBytes ? block.get() : nullptr;
  void* to = staged != nullptr ? staged : host;
  throw_on_cuda_error(cudaMemcpyAsync(to, device, bytes, cudaMemcpyDeviceToHost, stream), "read back");
  throw_on_cuda_error(cudaStreamSynchronize(stream), "read back");
  if (staged != nullptr) std::memcpy(host, staged, bytes);
}

namespace {
namespace P = snk::kokkos::portable;
using core::KernelStatus;
using kokkos::CsrRef;
using kokkos::with_type;

// Whether keys row * ncols + col of an nrows x ncols matrix fit 64 bits.
bool keys_fit(Index nrows, Index ncols) { return P::bits_for(nrows) + P::bits_for(ncols) <= 64; }
}  // namespace

KernelStatus portable_transpose(Matrix& T, const Matrix& A, cudaStream_t s) {
  if (A.type() != T.type() || !builtin(A.type())) return KernelStatus::Declined;
  SourceContext ctx = source_context(s);
  attach(T, P::transpose(ctx, ref_of(A, s), A.type()->size), s);
  return KernelStatus::Done;
}

namespace {

// B^T, made on the device once and kept with B's device copy until B changes.
const Matrix& transpose_of(const Matrix& B, cudaStream_t s) {
  MatrixOnDevice& copy = MatrixOnDevice::of(B, s);
  if (copy.transpose() == nullptr) {
    auto t = std::make_unique<Matrix>(B.type(), B.ncols(), B.nrows());
    SourceContext ctx = source_context(s);
    attach(*t, P::transpose(ctx, ref_of(B, s), B.type()->size), s);
    copy.keep_transpose(std::move(t));
  }
  return *copy.transpose();
}

// Whether a vector times B (vxm) is cheaper pushed from the vector's entries than pulled (a row-wise SpMV over B^T):
// the push's products, estimated from B's mean row length, each costing `product_cost` streamed entries, against the
// pull's reading of B^T once. A product costs 16 entries through expand-sort-compress (the sort's passes), 4 through
// the dense accumulator (a search for its entry and a combine at a random position).
constexpr double kSortedProduct = 16.0, kAtomicProduct = 4.0;
// A push's products, estimated from B's mean row length.
double push_products(const Matrix& x, const Matrix& B) {
  const double mean_row = B.nrows() > 0 ? static_cast<double>(B.nvals()) / static_cast<double>(B.nrows()) : 0.0;
  return static_cast<double>(x.nvals()) * mean_row;
}
bool push_is_cheaper(const Matrix& x, const Matrix& B, double product_cost) {
  return product_cost * push_products(x, B) < static_cast<double>(B.nvals());
}

// Whether a push's products pay for the dense accumulator's passes over all ncols positions (clearing, the mask
// hint's allowed positions, the compaction): a product through the sort costs about as much as 16 positions of those
// passes. A frontier of a few entries is sorted instead.
bool dense_push_pays(const Matrix& x, const Matrix& B) {
  return kSortedProduct * push_products(x, B) >= static_cast<double>(B.ncols());
}

// The types push_dense is instantiated for: the boolean and index types of graph frontiers (BFS levels and parents).
// Other types push through expand-sort-compress.
template <class V>
constexpr bool kPushesDense = std::is_same_v<V, bool> || std::is_same_v<V, std::int32_t> ||
                              std::is_same_v<V, std::int64_t> || std::is_same_v<V, std::uint32_t> ||
                              std::is_same_v<V, std::uint64_t>;

// Whether the masked dot product costs less than expanding every product (products.hpp's rule), for A' = A or A^T
// and B' = B or B^T.
bool dot_is_cheaper(const Matrix& M, const Matrix& A, bool ta, const Matrix& B, bool tb) {
  return P::dot_is_cheaper(M.nvals(), A.nvals(), ta ? A.ncols() : A.nrows(), B.nvals(), tb ? B.ncols() : B.nrows(),
                           tb ? B.nrows() : B.ncols());
}

// Whether A * B' (B' given by its rows) runs on the dense row accumulator rather than by expand-sort-compress: a row
// of the result fits on chip, and A's rows hold enough products that clearing and scanning the ncols positions of a
// row (a few passes of a warp over ncols flags) costs less than sorting the products (several passes over memory of
// about 16 bytes each): at least ncols / 64 products per row of A, from mean lengths.
template <class V>
bool dense_rows_pay(const CsrRef& A, const CsrRef& Bt) {
  if (!P::dense_rows_fit<V, SourceContext>(Bt.ncols) || A.nvals == 0 || A.nslots == 0 || Bt.nslots == 0) return false;
  const double mean_b = static_cast<double>(Bt.nvals) / static_cast<double>(Bt.nslots);
  const double products_per_row = static_cast<double>(A.nvals) * mean_b / static_cast<double>(A.nslots);
  return 64.0 * products_per_row >= static_cast<double>(Bt.ncols);
}

// B's pattern with every value one, made on the device once and kept with B's device copy until B changes; its
// device copy shares B's pattern, and with it the plans.
const Matrix& ones_of(const Matrix& B, cudaStream_t s) {
  MatrixOnDevice& copy = MatrixOnDevice::of(B, s);
  if (copy.ones() == nullptr) {
    auto o = std::make_unique<Matrix>(B.type(), B.nrows(), B.ncols());
    Scalar one(B.type());
    const double v1 = 1.0;
    one.set(&v1, &types::FP64);
    if (portable_fill(*o, one, &B, s) != KernelStatus::Done) throw Error(Info::Panic, "cuda backend: ones of a pattern");
    copy.keep_ones(std::move(o));
  }
  return *copy.ones();
}

// The mask hint of a vector product as allowed positions (null when there is no mask).
DeviceBuffer allowed(SourceContext& ctx, const core::MaskHint& mask, Index n, cudaStream_t s) {
  if (mask.M == nullptr) return DeviceBuffer();
  const CsrRef m = ref_of(*mask.M, s);
  const DeviceBuffer flags = mask_true_flags(ctx, *mask.M, m, mask.structural, s);
  DeviceBuffer allow(n);
  P::allowed_positions(ctx, m, static_cast<const std::uint8_t*>(flags.get()), mask.complement, n,
                       static_cast<std::uint8_t*>(allow.get()));
  return allow;
}

}  // namespace

namespace {

// One sparse x sparse product as its kernels see it: portable_mxm's operands, the semiring as run-time functors on V,
// and A's device form.
template <class V>
struct Product {
  SourceContext& ctx;
  cudaStream_t stream;
  Matrix& T;
  const core::MaskHint& mask;
  const Semiring& semiring;
  const Matrix& A;
  const Matrix& B;
  bool ta, tb, flip;   // ta: only kernels that read A transposed see it (ProductKernel::transposed_a)
  BinaryOpcode add_op;   // the monoid's operator as the semiring names it (PLUS for SDDMM)
  P::MonoidFn<V> add;
  BinaryOpcode mul;
  // A's device CSR, made on first use (a full A read through its values alone never needs its column indices).
  mutable std::optional<CsrRef> a_csr;
  const CsrRef& a() const {
    if (!a_csr) a_csr = ref_of(A, stream);
    return *a_csr;
  }
  // A's non-empty slots (P::nonempty_rank), counted on first use.
  mutable DeviceBuffer rank;
  mutable Index nonempty = 0;
  mutable bool counted = false;

  Index nonempty_rows() const {
    if (!counted) {
      rank = DeviceBuffer((a().nslots + 1) * sizeof(Index));
      nonempty = P::nonempty_rank(ctx, a(), static_cast<Index*>(rank.get()));
      counted = true;
    }
    return nonempty;
  }

  // The inner dimension: the columns of A' (A, or A^T where ta).
  Index inner() const { return ta ? A.nrows() : A.ncols(); }
  // A 1 x n row A: mxv and vxm as the core hands them over.
  bool vector() const { return A.nrows() == 1 && T.nrows() == 1; }
  // The rows of B' (B, or B^T made once and kept) and of B'^T (B^T kept, or B itself).
  CsrRef rows_of_b() const { return ref_of(tb ? transpose_of(B, stream) : B, stream); }
  const Matrix& bt_matrix() const { return tb ? B : transpose_of(B, stream); }
  CsrRef rows_of_bt() const { return ref_of(bt_matrix(), stream); }
  // A matrix product under a mask that is not complemented, where merging costs less than expanding.
  bool dot_pays() const {
    return !vector() && mask.M != nullptr && !mask.complement && dot_is_cheaper(*mask.M, A, ta, B, tb);
  }
  void attach(P::CsrParts<DeviceBuffer>&& parts) const { cuda::attach(T, std::move(parts), stream); }
};

// A kernel of the family: whether it can run this product (and is preferred to the kernels after it), and the run,
// which returns false, T untouched, where a condition it checks only as it goes fails (the next kernel then runs).
template <class V>
struct ProductKernel {
  const char* name;
  bool masked_dot;   // a masked dot product (the only kernels tried when the caller asks for those alone)
  bool transposed_a;   // it also runs A^T * B', reading A in place (the others are asked only without ta)
  bool (*can_run)(const Product<V>&);
  bool (*run)(const Product<V>&);
};

// Whether every value of B is finite (checked once and kept with B's device copy until B changes): the kernels that
// stage A's absent entries as zeros need it (0 * inf is not 0).
template <class V>
bool b_all_finite(const Product<V>& p) {
  MatrixOnDevice& b_copy = MatrixOnDevice::of(p.B, p.stream);
  if (!b_copy.all_finite()) {
    const CsrRef b = ref_of(p.B, p.stream);
    b_copy.all_finite() = P::all_finite<V>(p.ctx, b.values<V>(), b.nvals);
  }
  return *b_copy.all_finite();
}

// A matrix product of a floating type under PLUS_TIMES, A holding entries: what the dense-row kernels below compute.
template <class V>
bool floating_plus_times(const Product<V>& p) {
  return std::is_floating_point_v<V> && !p.vector() && p.add_op == BinaryOpcode::Plus &&
         p.mul == BinaryOpcode::Times && p.A.nvals() > 0;
}

// Whether A * B' runs as row blocks of A pulled through the columns of B' (row_block_product.hpp): PLUS_TIMES on a
// floating type, a matrix product, A's slots holding at least a sixteenth of their positions on average (the pull
// computes every term of every position of a slot, the pushes only A's entries' terms, but a pulled term costs a
// fraction of a pushed one: no atomic, and each read of B serves a block of rows), the staged rows fitting on chip,
// and B'^T in plain CSR.
template <class V>
bool row_blocks_pay(const Product<V>& p) {
  if (!floating_plus_times(p)) return false;
  const CsrRef& a = p.a();
  return 16.0 * static_cast<double>(a.nvals) >= static_cast<double>(a.nslots) * static_cast<double>(a.ncols) &&
         row_block_product_fits<V>(a.nslots, a.ncols, p.T.ncols(), p.B.nvals()) && !p.rows_of_bt().hyper;
}

// run(), or false where it runs out of device memory (the next kernel of the family is then tried).
template <class Run>
bool unless_out_of_memory(Run&& run) {
  try {
    return run();
  } catch (const Error& e) {
    if (e.info() != Info::OutOfMemory) throw;
    return false;
  }
}

// The run: false (nothing attached) where B holds a value that is not finite, B'^T's rows are too uneven for the sliced
// form, or the device memory is not there.
template <class V>
bool product_by_row_blocks(const Product<V>& p) {
  if constexpr (!std::is_floating_point_v<V>) {   // instantiated for the floating types only
    (void)p;
    return false;
  } else {
    if (!b_all_finite(p)) return false;
    return unless_out_of_memory([&] {
      P::CsrParts<DeviceBuffer> parts;
      if (!row_block_product<V>(p.a(), p.rows_of_bt(), MatrixOnDevice::of(p.bt_matrix(), p.stream), p.stream, parts))
        return false;
      p.attach(std::move(parts));
      return true;
    });
  }
}

// Whether A * B' runs over A's non-empty rows made dense, through the SpMM family (products.hpp says how): PLUS_TIMES
// on a floating type, a matrix product, and A's non-empty rows holding at least an eighth of their positions on
// average (a dense row costs its ncols values; the dense row accumulator costs per entry).
template <class V>
bool dense_rows_of_a_pay(const Product<V>& p) {
  if (!floating_plus_times(p)) return false;
  return 8.0 * static_cast<double>(p.A.nvals()) >= static_cast<double>(p.nonempty_rows()) * static_cast<double>(p.A.ncols());
}

// The run: X (A's k non-empty rows, dense) times B' through mxm_full_times_sparse, and where a row of A is not full, the
// same product of A's and B''s patterns as ones to count each position's terms; then the positions with terms. False
// (nothing attached) where B' holds a value that is not finite (0 * inf is not 0), the SpMM family declines B' (an
// empty row or column), or the device memory for the dense rows is not there.
template <class V>
bool product_over_dense_rows(const Product<V>& p) {
  if constexpr (!std::is_floating_point_v<V>) {   // instantiated for the floating types only
    (void)p;
    return false;
  } else {
    const Index k = p.nonempty_rows(), K = p.A.ncols(), N = p.T.ncols();
    if (!b_all_finite(p)) return false;
    const bool every_row_full = p.A.nvals() == k * K;
    return unless_out_of_memory([&] {
      DeviceBuffer x(k * K * sizeof(V)), ones(every_row_full ? 0 : k * K * sizeof(V)), rows(k * sizeof(Index));
      P::dense_nonempty_rows<V>(p.ctx, p.a(), static_cast<const Index*>(p.rank.get()), k, static_cast<V*>(x.get()),
                                every_row_full ? nullptr : static_cast<V*>(ones.get()), static_cast<Index*>(rows.get()));
      const Type* t = p.T.type();
      Matrix X(t, k, K), Z(t, k, N);
      attach_full(X, std::move(x), p.stream);
      if (mxm_full_times_sparse(Z, p.semiring, X, false, p.B, p.tb, p.flip, p.stream) != KernelStatus::Done) return false;
      Matrix C(t, k, N);
      if (!every_row_full) {
        Matrix Ones(t, k, K);
        attach_full(Ones, std::move(ones), p.stream);
        if (mxm_full_times_sparse(C, p.semiring, Ones, false, ones_of(p.B, p.stream), p.tb, p.flip, p.stream) !=
            KernelStatus::Done)
          return false;
      }
      const V* z = static_cast<const V*>(MatrixOnDevice::of(Z, p.stream).values());
      const V* count = every_row_full ? nullptr : static_cast<const V*>(MatrixOnDevice::of(C, p.stream).values());
      p.attach(P::compact_dense_product<V>(p.ctx, static_cast<const Index*>(rows.get()), k, N, z, count));
      return true;
    });
  }
}

bool is_full(const Matrix& M) { return M.nvals() == M.nrows() * M.ncols(); }

// A masked product of two full floating operands under PLUS (SDDMM: each entry of the mask the dot product of two dense
// rows), where the masked dot product pays.
template <class V>
bool full_dot(const Product<V>& p) {
  return std::is_floating_point_v<V> && p.dot_pays() && p.add_op == BinaryOpcode::Plus && is_full(p.A) &&
         is_full(p.B) && p.inner() == (p.tb ? p.B.ncols() : p.B.nrows());
}

// The full operands of a masked dot product as masked_dot_full_tiled reads them in place: the rows of A' (A, or A^T
// read across A) and of B'^T (B^T read across B, or B's rows where tb).
template <class V>
std::pair<P::DenseOperand<V>, P::DenseOperand<V>> dense_operands(const Product<V>& p) {
  const std::int64_t ar = static_cast<std::int64_t>(p.A.ncols()), br = static_cast<std::int64_t>(p.B.ncols());
  // A full matrix's device values in entry order are its row-major array, whatever its device form.
  const V* a = static_cast<const V*>(MatrixOnDevice::of(p.A, p.stream).values());
  const V* b = static_cast<const V*>(MatrixOnDevice::of(p.B, p.stream).values());
  return {p.ta ? P::DenseOperand<V>{a, 1, ar} : P::DenseOperand<V>{a, ar, 1},
          p.tb ? P::DenseOperand<V>{b, br, 1} : P::DenseOperand<V>{b, 1, br}};
}

// The family in order of preference. A vector pulls through the rows of B'^T unless pushing its entries costs less:
// into a dense accumulator where the monoid allows atomics in any order, else by expand-sort-compress. A matrix under
// a mask that is not complemented takes the masked dot product where it costs less than the expansion (two full
// floating operands under PLUS, SDDMM, as dense rows: tile by tile where the mask is dense enough for the tiles to
// share their staged rows, masked_dot_tiles_pay, else entry by entry). A floating PLUS_TIMES product whose A has dense
// enough rows pulls them, block by block, through the columns of B' where a block fits on chip, else runs them as a
// dense block through the SpMM family (SpDNN's activations times a layer). Everything else
// runs on the dense row accumulator where a row of the result fits on chip (the floating types), or expands, sorts and
// compresses.
template <class V>
const std::vector<ProductKernel<V>>& product_kernels() {
  static const std::vector<ProductKernel<V>> kernels = {
      {"push into a dense accumulator", false, false,
       [](const Product<V>& p) {
         return kPushesDense<V> && p.vector() && !p.tb && P::order_free<V>(p.add.op) &&
                push_is_cheaper(p.A, p.B, kAtomicProduct) && dense_push_pays(p.A, p.B);
       },
       [](const Product<V>& p) {
         if constexpr (kPushesDense<V>) {
           const DeviceBuffer allow = allowed(p.ctx, p.mask, p.T.ncols(), p.stream);
           p.attach(P::push_dense<V>(p.ctx, p.a(), ref_of(p.B, p.stream), static_cast<const std::uint8_t*>(allow.get()),
                                     p.add, p.mul, p.flip));
         }
         return true;
       }},
      {"pull through rows", false, false,
       [](const Product<V>& p) { return p.vector() && (p.tb || !push_is_cheaper(p.A, p.B, kSortedProduct)); },
       [](const Product<V>& p) {
         const CsrRef rows = p.rows_of_bt();
         DeviceBuffer xv(p.A.ncols() * sizeof(V)), xf(p.A.ncols());
         P::densify_vector<V>(p.ctx, p.a(), p.A.ncols(), static_cast<V*>(xv.get()),
                              static_cast<std::uint8_t*>(xf.get()));
         const DeviceBuffer allow = allowed(p.ctx, p.mask, p.T.ncols(), p.stream);
         p.attach(P::spmv_rows<V>(p.ctx, rows, static_cast<const V*>(xv.get()),
                                  static_cast<const std::uint8_t*>(xf.get()),
                                  static_cast<const std::uint8_t*>(allow.get()), p.add, p.mul, p.flip));
         return true;
       }},
      {"masked dot product of full operands, tile by tile", true, true,
       [](const Product<V>& p) {
         return full_dot(p) && P::masked_dot_tiles_fit<V, SourceContext>() &&
                P::masked_dot_tiles_pay(p.mask.M->nvals(), p.T.nrows(), p.T.ncols(), p.inner());
       },
       [](const Product<V>& p) {
         if constexpr (std::is_floating_point_v<V>) {
           const auto [a, bt] = dense_operands(p);
           attach_values(p.T, *p.mask.M,
                         P::masked_dot_full_tiled<V>(p.ctx, ref_of(*p.mask.M, p.stream), a, bt, p.inner(), p.mul,
                                                     p.flip),
                         p.stream);
         }
         return true;
       }},
      {"masked dot product of full operands", true, false, full_dot<V>,
       [](const Product<V>& p) {
         if constexpr (std::is_floating_point_v<V>) {
           attach_values(p.T, *p.mask.M,
                         P::masked_dot_full<V>(p.ctx, ref_of(*p.mask.M, p.stream), p.a(), p.rows_of_bt(), p.a().ncols,
                                               p.mul, p.flip),
                         p.stream);
         }
         return true;
       }},
      {"masked dot product", true, false, [](const Product<V>& p) { return p.dot_pays(); },
       [](const Product<V>& p) {
         p.attach(P::masked_dot<V>(p.ctx, ref_of(*p.mask.M, p.stream), p.a(), p.rows_of_bt(), p.add, p.mul, p.flip));
         return true;
       }},
      {"row blocks of A pulled through the columns of B'", false, false, row_blocks_pay<V>, product_by_row_blocks<V>},
      {"dense rows of A through the SpMM family", false, false, dense_rows_of_a_pay<V>, product_over_dense_rows<V>},
      // Instantiated for the floating types only (the sparse layers' and SpDNN's products; each type costs the build
      // two kernels).
      {"dense row accumulator", false, false,
       [](const Product<V>& p) {
         return std::is_floating_point_v<V> && !p.vector() && dense_rows_pay<V>(p.a(), p.rows_of_b());
       },
       [](const Product<V>& p) {
         if constexpr (std::is_floating_point_v<V>)
           p.attach(P::dense_rows_spgemm<V>(p.ctx, p.a(), p.rows_of_b(), p.add, p.mul, p.flip));
         return true;
       }},
      {"expand, sort and compress", false, false,
       [](const Product<V>& p) { return keys_fit(p.A.nrows(), p.tb ? p.B.nrows() : p.B.ncols()); },
       [](const Product<V>& p) {
         p.attach(P::spgemm<V>(p.ctx, p.a(), p.rows_of_b(), p.add, p.mul, p.flip));
         return true;
       }},
  };
  return kernels;
}

}  // namespace

KernelStatus portable_mxm(Matrix& T, const core::MaskHint& mask, const Semiring& s, const Matrix& A, bool ta,
                          const Matrix& B, bool tb, bool flip, cudaStream_t stream, bool only_masked_dot) {
  const Type* v = s.add->type();
  const BinaryOp& mul = *s.multiply;
  if (!builtin(v) || mul.opcode == BinaryOpcode::User || mul.xtype != v || mul.ytype != v || mul.ztype != v ||
      A.type() != v || B.type() != v || T.type() != v)
    return KernelStatus::Declined;
  SourceContext ctx = source_context(stream);
  bool done = false;
  with_type(v->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    P::MonoidFn<V> add{};
    if (!P::monoid_of(*s.add, add) || !P::defined_binary<V, V>(mul.opcode)) return false;
    const Product<V> p{ctx, stream, T, mask, s, A, B, ta, tb, flip, s.add->op->opcode, add, mul.opcode, {}};
    for (const ProductKernel<V>& k : product_kernels<V>()) {
      if ((only_masked_dot && !k.masked_dot) || (ta && !k.transposed_a) || !k.can_run(p)) continue;
      if (k.run(p)) return done = true;
    }
    return false;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

}  // namespace snk::cuda
