// backends/cuda/backend/row_block_product.cu: the pull form of a floating PLUS_TIMES sparse x sparse product, block by
// block of R rows of A (row_block_product.hpp says when it applies and what it returns). Instantiated for float
// (R = 16, 8, 4) and double (R = 8, 4, 2): R values of a staged column are one to four 16-byte shared-memory loads,
// and R bits of a column's mask fit a 32-bit word. R shrinks where a larger one would leave the device's SMs idle.
// B'^T is read in sliced ELLPACK form (MatrixOnDevice::SlicedForm): a warp's 32 threads walk 32 columns of the result
// in step, so each step of theirs reads B'^T in one or two cache lines, and 16-bit columns keep it small in cache.
#include "row_block_product.hpp"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "device_context.hpp"

namespace snk::cuda {
namespace {

using kokkos::CsrRef;
constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr std::size_t kMaxShared = 160 * 1024;                 // a block's staged rows (the H100/H200 allow 227 KB)
constexpr std::size_t kMaxMaskBytes = std::size_t(1) << 30;   // the column masks of every block
constexpr Index kMaxInner = Index(1) << 16;                  // 16-bit columns of B'^T

// B'^T as the kernels read it (MatrixOnDevice::SlicedForm): entry i of row j at slice[j / 32] + 32 i + j % 32.
struct Sliced {
  const Index* slice;
  const std::uint32_t* length;
  const std::uint16_t* k;
  const void* x;
  Index n;
};

// A slot's entry count and whether it has any, scanned together into its entries' offset and its place among the
// result's rows.
struct Counts {
  Index entries, rows;
};
struct AddCounts {
  __host__ __device__ Counts operator()(const Counts& a, const Counts& b) const {
    return Counts{a.entries + b.entries, a.rows + b.rows};
  }
};

// The staged form of a block: column k's R values at k * stride, stride (in values) an odd number of 16-byte pieces
// (R values, padded), so that the 16-byte loads of a quarter warp at different columns fall in different banks.
constexpr Index stage_stride(int R, std::size_t value_bytes) {
  return static_cast<Index>(((R * value_bytes / 16) | 1) * (16 / value_bytes));
}

template <class V, int R>
struct alignas(16) Staged {
  V v[R];
};

// The product of two values rounded to V, then added: the semiring's two operators, never contracted to one
// fused multiply-add, so a sum equals the one its terms give in order.
__device__ inline float times(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double times(double a, double b) { return __dmul_rn(a, b); }

// Pass 1: for the block's R slots of A, each column j's mask (bit r: some k holds A(r, k) and B'(k, j)), each slot's
// count of positions with terms, and whether it has any.
template <int R>
__global__ void __launch_bounds__(kThreads)
    pattern_kernel(CsrRef A, Sliced bt, std::uint32_t* masks, Counts* counts) {
  extern __shared__ std::uint32_t present[];   // A.ncols words: bit r where the block's row r holds column k
  __shared__ unsigned row_count[R];
  const Index s0 = Index(blockIdx.x) * R, N = bt.n;
  const int rows = static_cast<int>(A.nslots - s0 < Index(R) ? A.nslots - s0 : Index(R));
  for (Index k = threadIdx.x; k < A.ncols; k += kThreads) present[k] = 0;
  if (threadIdx.x < R) row_count[threadIdx.x] = 0;
  __syncthreads();
  for (int r = 0; r < rows; ++r)
    for (Index e = A.p[s0 + r] + threadIdx.x; e < A.p[s0 + r + 1]; e += kThreads) atomicOr(&present[A.j[e]], 1u << r);
  __syncthreads();
  unsigned c[R] = {};
  std::uint32_t* mask = masks + Index(blockIdx.x) * N;
  for (Index j = threadIdx.x; j < N; j += kThreads) {
    std::uint32_t m = 0;
    const std::uint16_t* k = bt.k + bt.slice[j / 32] + j % 32;
    const std::uint32_t len = bt.length[j];
#pragma unroll 4
    for (std::uint32_t i = 0; i < len; ++i) m |= present[k[32 * Index(i)]];
    mask[j] = m;
#pragma unroll
    for (int r = 0; r < R; ++r) c[r] += (m >> r) & 1u;
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    unsigned v = c[r];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0 && v != 0) atomicAdd(&row_count[r], v);
  }
  __syncthreads();
  if (threadIdx.x < rows) counts[s0 + threadIdx.x] = Counts{row_count[threadIdx.x], row_count[threadIdx.x] > 0 ? 1u : 0u};
}

// The result's slots: slot s of A, where its count is not zero, gives the row and the offset of the result's slot
// offsets[s].rows; s == A.nslots gives the end of the last.
__device__ inline void place_slot(const CsrRef& A, const Counts* offsets, Index s, Index* h, Index* p) {
  if (s < A.nslots && offsets[s + 1].rows > offsets[s].rows) {
    h[offsets[s].rows] = A.row_of(s);
    p[offsets[s].rows] = offsets[s].entries;
  }
  if (s == A.nslots) p[offsets[s].rows] = offsets[s].entries;
}

// Pass 2: the block's R rows of A staged densely (zeros where absent), then each column j with a mask computed for
// all R rows and written at its place: the slot's offset, plus the positions of the row before j (the earlier
// chunks, warps and lanes of this block). The block's slots (and the last block's end) are placed too.
template <class V, int R>
__global__ void __launch_bounds__(kThreads)
    values_kernel(CsrRef A, Sliced bt, const std::uint32_t* masks, const Counts* offsets, Index* out_h, Index* out_p,
                  Index* out_j, V* out_x) {
  constexpr Index stride = stage_stride(R, sizeof(V));
  extern __shared__ __align__(16) unsigned char staged_bytes[];
  V* flat = reinterpret_cast<V*>(staged_bytes);   // A.ncols columns, `stride` values apart
  __shared__ unsigned warp_count[kWarps][R];
  __shared__ Index base[R];
  const Index s0 = Index(blockIdx.x) * R, N = bt.n;
  const int rows = static_cast<int>(A.nslots - s0 < Index(R) ? A.nslots - s0 : Index(R));
  for (Index q = threadIdx.x; q < A.ncols * stride; q += kThreads) flat[q] = V(0);
  if (threadIdx.x < R) base[threadIdx.x] = threadIdx.x < rows ? offsets[s0 + threadIdx.x].entries : 0;
  if (threadIdx.x < rows || s0 + threadIdx.x == A.nslots) place_slot(A, offsets, s0 + threadIdx.x, out_h, out_p);
  __syncthreads();
  const V* ax = A.values<V>();
  for (int r = 0; r < rows; ++r)
    for (Index e = A.p[s0 + r] + threadIdx.x; e < A.p[s0 + r + 1]; e += kThreads) flat[A.j[e] * stride + r] = ax[e];
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned before = (1u << lane) - 1u;
  const std::uint32_t* mask = masks + Index(blockIdx.x) * N;
  for (Index j0 = 0; j0 < N; j0 += kThreads) {
    const Index j = j0 + threadIdx.x;
    const std::uint32_t m = j < N ? mask[j] : 0u;
    V acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = V(0);
    if (m != 0) {
      const Index first = bt.slice[j / 32] + j % 32;
      const std::uint16_t* k = bt.k + first;
      const V* x = static_cast<const V*>(bt.x) + first;
      const std::uint32_t len = bt.length[j];
#pragma unroll 4
      for (std::uint32_t i = 0; i < len; ++i) {
        const Staged<V, R> a = *reinterpret_cast<const Staged<V, R>*>(flat + Index(k[32 * Index(i)]) * stride);
        const V w = x[32 * Index(i)];
#pragma unroll
        for (int r = 0; r < R; ++r) acc[r] = acc[r] + times(a.v[r], w);
      }
    }
    unsigned ballot[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      ballot[r] = __ballot_sync(0xffffffffu, (m >> r) & 1u);
      if (lane == 0) warp_count[warp][r] = __popc(ballot[r]);
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if ((m >> r) & 1u) {
        Index pos = base[r] + __popc(ballot[r] & before);
        for (int w = 0; w < warp; ++w) pos += warp_count[w][r];
        out_j[pos] = j;
        out_x[pos] = acc[r];
      }
    }
    __syncthreads();
    if (threadIdx.x < R) {
      unsigned chunk = 0;
      for (int w = 0; w < kWarps; ++w) chunk += warp_count[w][threadIdx.x];
      base[threadIdx.x] += chunk;
    }
    __syncthreads();
  }
}

// The sliced form of bt (Sliced's arrays) from its CSR view: each row's length, each slice's padded entry count (32
// times its longest row), then, once the slices are placed, each row's entries.
__global__ void row_lengths_kernel(CsrRef bt, std::uint32_t* length) {
  const Index r = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r < bt.nslots) length[r] = static_cast<std::uint32_t>(bt.p[r + 1] - bt.p[r]);
}
__global__ void slice_sizes_kernel(Index rows, const std::uint32_t* length, Index* slice) {
  const Index g = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g * 32 >= rows) return;
  std::uint32_t longest = 0;
  for (Index r = g * 32; r < rows && r < g * 32 + 32; ++r) longest = longest > length[r] ? longest : length[r];
  slice[g] = 32 * Index(longest);
}
template <class V>
__global__ void slice_entries_kernel(CsrRef bt, const Index* slice, std::uint16_t* k, V* x) {
  const Index r = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= bt.nslots) return;
  const Index to = slice[r / 32] + r % 32;
  const V* from = bt.values<V>();
  for (Index e = bt.p[r], i = 0; e < bt.p[r + 1]; ++e, ++i) {
    k[to + 32 * i] = static_cast<std::uint16_t>(bt.j[e]);
    x[to + 32 * i] = from[e];
  }
}

// The result's slots alone, for a product without entries.
__global__ void slots_kernel(CsrRef A, const Counts* offsets, Index* h, Index* p) {
  const Index s = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s <= A.nslots) place_slot(A, offsets, s, h, p);
}

unsigned grid_for(Index n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

int multiprocessors() {
  static int count = [] {
    int device = 0, n = 0;
    throw_on_cuda_error(cudaGetDevice(&device), "current device");
    throw_on_cuda_error(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device), "SM count");
    return n;
  }();
  return count;
}

template <class V>
constexpr int kRows[3] = {16, 8, 4};
template <>
constexpr int kRows<double>[3] = {8, 4, 2};

// The shared memory a block of R rows stages for an inner dimension `inner`.
template <class V>
std::size_t staged_bytes(int R, Index inner) {
  return inner * stage_stride(R, sizeof(V)) * sizeof(V);
}

// The block's row count: the largest whose staged rows fit, halved (down to the smallest) while the blocks would not
// give every SM two; 0 when not even the smallest fits.
template <class V>
int rows_per_block(Index slots, Index inner) {
  int pick = 0;
  for (int r : kRows<V>)
    if (pick == 0 && staged_bytes<V>(r, inner) <= kMaxShared) pick = r;
  if (pick == 0 || inner > kMaxInner) return 0;
  while (pick > kRows<V>[2] && (slots + pick - 1) / pick < Index(2 * multiprocessors())) pick /= 2;
  return pick;
}

// Pass 1 (values_pass false) or pass 2 of R rows a block.
template <class V, int R>
void run(const CsrRef& A, const Sliced& bt, std::uint32_t* masks, Counts* counts, Index* out_h, Index* out_p,
         Index* out_j, V* out_x, bool values_pass, cudaStream_t s) {
  const unsigned blocks = static_cast<unsigned>((A.nslots + R - 1) / R);
  static std::once_flag once;
  std::call_once(once, [] {
    throw_on_cuda_error(cudaFuncSetAttribute(pattern_kernel<R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(kMaxShared)),
                        "row block product (shared memory)");
    throw_on_cuda_error(cudaFuncSetAttribute(values_kernel<V, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(kMaxShared)),
                        "row block product (shared memory)");
  });
  if (!values_pass)
    pattern_kernel<R><<<blocks, kThreads, A.ncols * sizeof(std::uint32_t), s>>>(A, bt, masks, counts);
  else
    values_kernel<V, R><<<blocks, kThreads, staged_bytes<V>(R, A.ncols), s>>>(A, bt, masks, counts, out_h, out_p,
                                                                               out_j, out_x);
  check_queued("row block product");
}

template <class V>
void run_with(int R, const CsrRef& A, const Sliced& bt, std::uint32_t* masks, Counts* counts, Index* out_h,
              Index* out_p, Index* out_j, V* out_x,
              bool values_pass, cudaStream_t s) {
  if (R == kRows<V>[0])
    run<V, kRows<V>[0]>(A, bt, masks, counts, out_h, out_p, out_j, out_x, values_pass, s);
  else if (R == kRows<V>[1])
    run<V, kRows<V>[1]>(A, bt, masks, counts, out_h, out_p, out_j, out_x, values_pass, s);
  else
    run<V, kRows<V>[2]>(A, bt, masks, counts, out_h, out_p, out_j, out_x, values_pass, s);
}

// The counts of slots, as the scan reads them.
struct SlotCounts {
  const Counts* c;
  __device__ Counts operator()(Index k) const { return c[k]; }
};

// counts[0 .. n-1] replaced by their exclusive sums and counts[n] set to the totals, on stream s: in one thread block
// where that is short enough, else by CUB's scan over n + 1 counts, the last made zero.
void scan_counts(Counts* counts, Index n, cudaStream_t s) {
  if (n + 1 <= scan_detail::kOneBlock) {
    one_block_scan(SlotCounts{counts}, counts, n, AddCounts{}, Counts{0, 0}, s);
    return;
  }
  throw_on_cuda_error(cudaMemsetAsync(counts + n, 0, sizeof(Counts), s), "row block product");
  std::size_t temp_bytes = 0;
  const auto items = static_cast<std::int64_t>(n + 1);
  throw_on_cuda_error(cub::DeviceScan::ExclusiveScan(nullptr, temp_bytes, counts, counts, AddCounts{}, Counts{0, 0},
                                                     items, s),
                      "row block product (scan size)");
  DeviceBuffer temp(temp_bytes);   // released in stream order, after the scan
  throw_on_cuda_error(cub::DeviceScan::ExclusiveScan(temp.get(), temp_bytes, counts, counts, AddCounts{}, Counts{0, 0},
                                                     items, s),
                      "row block product (scan)");
}

// bt's sliced form, made on its copy's first use; false where it is refused.
template <class V>
bool sliced_of(const CsrRef& bt, MatrixOnDevice& copy, cudaStream_t s, Sliced& out) {
  MatrixOnDevice::SlicedForm& f = copy.sliced_form();
  if (f.refused) return false;
  if (f.slice.get() == nullptr) {
    const Index groups = (bt.nslots + 31) / 32;
    DeviceBuffer slice((groups + 1) * sizeof(Index)), length(std::max<Index>(bt.nslots, 1) * sizeof(std::uint32_t));
    auto* len = static_cast<std::uint32_t*>(length.get());
    auto* sl = static_cast<Index*>(slice.get());
    row_lengths_kernel<<<grid_for(bt.nslots), kThreads, 0, s>>>(bt, len);
    slice_sizes_kernel<<<grid_for(groups), kThreads, 0, s>>>(bt.nslots, len, sl);
    check_queued("row block product (slices)");
    DeviceContext ctx = context(s);
    const Index total = kokkos::portable::exclusive_scan_in_place(ctx, sl, groups);
    if (total > 2 * bt.nvals + 1024) {
      f.refused = true;
      return false;
    }
    DeviceBuffer k(std::max<Index>(total, 1) * sizeof(std::uint16_t)), x(std::max<Index>(total, 1) * sizeof(V));
    slice_entries_kernel<V><<<grid_for(bt.nslots), kThreads, 0, s>>>(bt, sl, static_cast<std::uint16_t*>(k.get()),
                                                                      static_cast<V*>(x.get()));
    check_queued("row block product (slices)");
    f.slice = std::move(slice);
    f.length = std::move(length);
    f.j = std::move(k);
    f.x = std::move(x);
  }
  out = Sliced{static_cast<const Index*>(f.slice.get()), static_cast<const std::uint32_t*>(f.length.get()),
               static_cast<const std::uint16_t*>(f.j.get()), f.x.get(), bt.nslots};
  return true;
}

}  // namespace

template <class V>
bool row_block_product_fits(Index slots, Index inner, Index ncols, Index nvals) {
  const int R = rows_per_block<V>(slots, inner);
  if (R == 0 || slots == 0 || ncols == 0 || nvals == 0) return false;
  const double mask_bytes = double((slots + R - 1) / R) * double(ncols) * sizeof(std::uint32_t);
  return mask_bytes <= double(kMaxMaskBytes);
}

template <class V>
bool row_block_product(const CsrRef& A, const CsrRef& bt, MatrixOnDevice& bt_copy, cudaStream_t s,
                       kokkos::portable::CsrParts<DeviceBuffer>& out) {
  Sliced cols{};
  if (!sliced_of<V>(bt, bt_copy, s, cols)) return false;
  const int R = rows_per_block<V>(A.nslots, A.ncols);
  const Index slots = A.nslots, N = bt.nslots, blocks = (slots + R - 1) / R;
  DeviceBuffer masks(blocks * N * sizeof(std::uint32_t)), counts_buf((slots + 1) * sizeof(Counts));
  auto* counts = static_cast<Counts*>(counts_buf.get());
  auto* m = static_cast<std::uint32_t*>(masks.get());
  run_with<V>(R, A, cols, m, counts, nullptr, nullptr, nullptr, nullptr, false, s);
  scan_counts(counts, slots, s);
  DeviceContext ctx = context(s);
  const Counts totals = kokkos::portable::read_back(ctx, counts + slots);
  out = kokkos::portable::CsrParts<DeviceBuffer>{};
  out.hyper = true;
  out.nvals = totals.entries;
  out.nslots = totals.rows;
  out.h = DeviceBuffer(std::max<Index>(out.nslots, 1) * sizeof(Index));
  out.p = DeviceBuffer((out.nslots + 1) * sizeof(Index));
  out.j = DeviceBuffer(out.nvals * sizeof(Index));
  out.x = DeviceBuffer(out.nvals * sizeof(V));
  auto* h = static_cast<Index*>(out.h.get());
  auto* p = static_cast<Index*>(out.p.get());
  if (out.nvals > 0) {
    run_with<V>(R, A, cols, m, counts, h, p, static_cast<Index*>(out.j.get()), static_cast<V*>(out.x.get()), true, s);
  } else {
    slots_kernel<<<grid_for(slots + 1), kThreads, 0, s>>>(A, counts, h, p);
    check_queued("row block product (slots)");
  }
  return true;
}

template bool row_block_product_fits<float>(Index, Index, Index, Index);
template bool row_block_product_fits<double>(Index, Index, Index, Index);
template bool row_block_product<float>(const CsrRef&, const CsrRef&, MatrixOnDevice&, cudaStream_t,
                                       kokkos::portable::CsrParts<DeviceBuffer>&);
template bool row_block_product<double>(const CsrRef&, const CsrRef&, MatrixOnDevice&, cudaStream_t,
                                        kokkos::portable::CsrParts<DeviceBuffer>&);

}  // namespace snk::cuda
