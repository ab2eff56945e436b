// backends/cuda/backend/device_context.hpp: what the CUDA instantiations of the portable kernels share (nvcc only):
// the context they run with, and the glue between device copies and the kernels' CSR views and results.
//
// DeviceContext is portable/parts.hpp's context for Kokkos' CUDA space: the Kokkos::Cuda instance on the backend's
// stream, DeviceBuffer allocations (so results belong to MatrixOnDevice, outside Kokkos' tracking), a stable radix
// sort of (key, index) pairs, exclusive scans (a short one in one thread block, a long one through CUB's in
// portable_products.cu) and read-backs through page-locked memory.
#pragma once

#include <Kokkos_Core.hpp>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "device_copy.hpp"
#include "portable/mask_accum.hpp"
#include "portable/op_eval.hpp"
#include "portable/parts.hpp"

namespace snk::cuda {

// Exclusive scans short enough for one thread block: one launch, no scratch, where a device-wide scan costs the host
// two launches and an occupancy query. Thread t scans kItems consecutive counts of each tile, and a tile's total
// carries into the next.
namespace scan_detail {
constexpr int kThreads = 256, kItems = 4;   // a thread's counts stay in registers (16-byte counts included)
constexpr Index kOneBlock = Index(2) * kThreads * kItems;   // counts at most; past it the device-wide scan is faster

// The running total of the tiles before, given to each tile's scan (called by its first warp).
template <class T, class Op>
struct Carry {
  T total;
  Op op;
  __device__ T operator()(T tile_total) {
    const T before = total;
    total = op(total, tile_total);
    return before;
  }
};

template <class T, class Count, class Op>
__global__ void __launch_bounds__(kThreads) one_block(Count count, T* out, Index n, Op op, T zero) {
  using Scan = cub::BlockScan<T, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  Carry<T, Op> carry{zero, op};
  for (Index base = 0; base <= n; base += Index(kThreads) * kItems) {
    const Index first = base + Index(threadIdx.x) * kItems;
    T item[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) item[i] = first + i < n ? count(first + i) : zero;
    Scan(temp).ExclusiveScan(item, item, op, carry);
#pragma unroll
    for (int i = 0; i < kItems; ++i)
      if (first + i <= n) out[first + i] = item[i];
    __syncthreads();   // temp is reused by the next tile
  }
}

template <class Count>
__global__ void fill(Count count, Index* out, Index n) {
  for (Index k = Index(blockIdx.x) * blockDim.x + threadIdx.x; k <= n; k += Index(gridDim.x) * blockDim.x)
    out[k] = k < n ? count(k) : 0;
}

struct Plus {
  __device__ Index operator()(Index a, Index b) const { return a + b; }
};
}  // namespace scan_detail

// out[k] = zero op count(0) op ... op count(k-1) for k = 0 .. n (n + 1 values), for n + 1 <= scan_detail::kOneBlock,
// queued on s. count(k) is read before out[k] is written, so out may be the array count reads.
template <class T, class Count, class Op>
void one_block_scan(const Count& count, T* out, Index n, Op op, T zero, cudaStream_t s) {
  scan_detail::one_block<T, Count, Op><<<1, scan_detail::kThreads, 0, s>>>(count, out, n, op, zero);
  check_queued("scan");
}

struct DeviceContext {
  Kokkos::Cuda space;
  cudaStream_t stream;
  Kokkos::Cuda exec() const { return space; }
  DeviceBuffer alloc(std::size_t bytes) { return DeviceBuffer(bytes); }
  // Sorts the n pairs (keys[q], idx[q]) by the low `bits` bits of the key, stably, in place.
  void sort_pairs(std::uint64_t* keys, std::uint64_t* idx, Index n, int bits);
  // v[k] = v[0] + ... + v[k-1] for k = 0 .. n-1, in place, queued on the stream (CUB's scan).
  void exclusive_sum(Index* v, Index n);
  // out[k] = count(0) + ... + count(k-1) for k = 0 .. n, queued on the stream (parts.hpp: scans_itself).
  template <class Count>
  void exclusive_scan(const Count& count, Index* out, Index n) {
    if (n + 1 <= scan_detail::kOneBlock) {
      one_block_scan(count, out, n, scan_detail::Plus{}, Index(0), stream);
      return;
    }
    const Index blocks = std::min<Index>((n + 256) / 256, Index(1) << 12);
    scan_detail::fill<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(count, out, n);
    check_queued("scan");
    exclusive_sum(out, n + 1);
  }
  // Copies `bytes` bytes from device memory to the host after the work queued on the stream, through a page-locked
  // block of the calling thread's (parts.hpp: reads_back_itself).
  void read_back_bytes(void* host, const void* device, std::size_t bytes);
};

// The context on stream s (one Kokkos::Cuda instance per stream: making one allocates Kokkos' scratch).
DeviceContext context(cudaStream_t s);

// Each CUDA source runs the portable kernels with a context type of its own, with internal linkage
// (SNACK_SOURCE_CONTEXT): nvcc's wrappers of extended __host__ __device__ lambdas keep state per translation unit, so
// one instantiation of a kernel template in two sources of the plugin, merged by the linker, would call through a
// pointer that the other source never set. A type with internal linkage keeps every instantiation in its source.
#define SNACK_SOURCE_CONTEXT                                                        \
  namespace {                                                                       \
  struct SourceContext : DeviceContext {};                                          \
  inline SourceContext source_context(cudaStream_t s) { return SourceContext{context(s)}; } \
  }

// The device CSR view of A (its device copy made, and its CSR form uploaded, on first use; counted).
kokkos::CsrRef ref_of(const Matrix& A, cudaStream_t s);

// Whether every position of A holds an entry (then its values, in any form of its copies, lie row-major).
bool is_full(const Matrix& A);
// The view of a full A for kernels that read its values alone (reduce_full_columns, accum_values): dimensions and
// values, no row pointers or columns. Its device copy is made, but not its CSR arrays: a full matrix made on the device
// has none, and making them writes 8 bytes of column index per entry.
kokkos::CsrRef full_values_ref(const Matrix& A, cudaStream_t s);

// Attaches a kernel's result to T as its only (device) copy; a launch error surfaces as an error of this call, a fault
// inside a kernel at the next wait (device_copy.hpp).
void attach(Matrix& T, kokkos::portable::CsrParts<DeviceBuffer>&& parts, cudaStream_t s);
// Attaches to T the values x (T's type) on the pattern of A, whose device copy (its CSR form made, as ref_of makes it)
// shares its arrays and its plans with the result (MatrixOnDevice::with_values). T may be A.
void attach_values(Matrix& T, const Matrix& A, DeviceBuffer x, cudaStream_t s);

bool builtin(const Type* t);

// Which entries of the mask M (viewed as m on the device) count as true, one flag per entry: all of them for a
// structural mask (or one of a type with no value test), else those of nonzero value.
template <class Ctx>
DeviceBuffer mask_true_flags(Ctx& ctx, const Matrix& M, const kokkos::CsrRef& m, bool structural, cudaStream_t s) {
  DeviceBuffer flags(m.nvals);
  auto* mask_true = static_cast<std::uint8_t*>(flags.get());
  if (structural || !builtin(M.type())) {
    if (m.nvals > 0) throw_on_cuda_error(cudaMemsetAsync(mask_true, 1, m.nvals, s), "structural mask");
  } else {
    kokkos::with_type(M.type()->code, [&](auto mt) {
      kokkos::portable::mask_values<typename decltype(mt)::type>(ctx, m, mask_true);
      return true;
    });
  }
  return flags;
}

}  // namespace snk::cuda
