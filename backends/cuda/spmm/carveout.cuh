// spmm/carveout.cuh: each kernel of the family states how its SM's unified L1 / shared memory is to be split.
//
// An SM's split is set at launch from the kernel's preferred carve-out; a kernel that states none runs in the split
// the SM already holds. After cuBLAS' GEMMs or Kokkos' reductions (which prefer shared memory) that is the largest
// shared memory and the smallest L1, so a kernel that gathers X through L1 would lose most of its hits and run
// L2-bound. state_carveout asks for the smallest shared memory that keeps as many blocks resident per SM as the
// kernel's resources allow, which leaves the rest to L1. It is set once per kernel, block size and shared size.
#pragma once

#include <cstddef>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

#include <cuda_runtime.h>

namespace snk::cuda {

// Sets `kernel`'s preferred carve-out for blocks of `threads` threads and `dynamic_smem` bytes of dynamic shared
// memory (the caller has already raised the kernel's dynamic shared memory limit where it needs more than 48 KB).
// A failure leaves the kernel without a preference (it still runs correctly) and clears the error.
template <class... Params>
void state_carveout(void (*kernel)(Params...), int threads, std::size_t dynamic_smem) {
  static std::mutex mutex;
  static std::set<std::tuple<const void*, int, int, std::size_t>> done;   // (kernel, device, threads, smem)
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) { (void)cudaGetLastError(); return; }
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), device, threads, dynamic_smem);
  if (!done.insert(key).second) return;
  cudaFuncAttributes attributes{};
  int blocks = 0, per_sm = 0, reserved = 0;
  if (cudaFuncGetAttributes(&attributes, kernel) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device) != cudaSuccess || per_sm <= 0) {
    (void)cudaGetLastError();
    return;
  }
  const std::size_t per_block = attributes.sharedSizeBytes + dynamic_smem;
  const std::size_t needed = per_block == 0 ? 0 : std::size_t(blocks) * (per_block + std::size_t(reserved));
  int percent = static_cast<int>((needed * 100 + std::size_t(per_sm) - 1) / std::size_t(per_sm));
  if (percent > 100) percent = 100;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent) != cudaSuccess)
    (void)cudaGetLastError();
}

// kernel<<<grid, block, smem, s>>>(args...), with the kernel's carve-out stated first.
template <class... Params, class... Args>
void launch_with_carveout(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t s,
                          Args&&... args) {
  state_carveout(kernel, static_cast<int>(block.x * block.y * block.z), smem);
  kernel<<<grid, block, smem, s>>>(std::forward<Args>(args)...);
}

}  // namespace snk::cuda
