// spmm/column_ranges.cuh: what kernels that cut the columns of a row range over several thread blocks do with
// the blocks' sums (column-block and row-lanes kernels). Deterministic calls: each block writes its
// sums to partial[range][row][b] and fold_column_ranges_kernel adds the ranges in range order into Y, so the
// result stays bitwise identical run to run (no atomics). Calls that allow otherwise (SpmmArgs::deterministic
// false) may add the sums into Y with atomics instead, after zero_rows_kernel has zeroed it: no partial tiles and
// no fold, at the price of sums whose order, and so whose last bits, change run to run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include <cuda_runtime_api.h>

#include "spmm/carveout.cuh"
#include "spmm/semiring.cuh"

namespace snk::cuda {

// Y'(r, b) = sum over k < splits, in order and starting from +0, of partial[(k * rows + r) * partial_ld + b] (the
// same additions as the earlier one-value-per-thread form, so the same bits). A thread folds four consecutive
// batch values of one row: one 16-byte load per range (partial_ld a multiple of 4 and the partials 16-byte
// aligned, as the callers' workspace, rows a whole batch tile apart, always is: the launcher refuses anything
// else), the loads of up to kLoads ranges issued before any is added (faster than one value per thread with its
// loads in a loop: bench/results/spmm-dispatch-rules.md).
template <class VT>
__global__ void fold_column_ranges_kernel(const float* partial, std::int64_t partial_ld, int splits, int rows,
                                          int batch, void* y, std::int64_t ys_row, std::int64_t ys_col) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Launched as a programmatic dependent of the kernel that wrote the partials (launch_fold_column_ranges): wait
  // for that grid to complete and its writes to be visible (returns at once after an ordinary launch).
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  constexpr int kLoads = 4;
  const int groups = (batch + 3) / 4;   // threads per row
  const std::int64_t n = static_cast<std::int64_t>(rows) * groups;
  const std::int64_t stride = static_cast<std::int64_t>(rows) * partial_ld / 4;   // one range, in float4
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = t / groups;
    const int b0 = 4 * static_cast<int>(t % groups);
    const float4* src = reinterpret_cast<const float4*>(partial + r * partial_ld + b0);
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int k0 = 0; k0 < splits; k0 += kLoads) {
      float4 v[kLoads];
#pragma unroll
      for (int j = 0; j < kLoads; ++j)
        if (k0 + j < splits) v[j] = src[(k0 + j) * stride];
#pragma unroll
      for (int j = 0; j < kLoads; ++j)
        if (k0 + j < splits) {
          acc.x += v[j].x;
          acc.y += v[j].y;
          acc.z += v[j].z;
          acc.w += v[j].w;
        }
    }
    const float out[4] = {acc.x, acc.y, acc.z, acc.w};
    VT* yr = static_cast<VT*>(y) + r * ys_row;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (b0 + j < batch) yr[(b0 + j) * ys_col] = from_acc<VT>(out[j]);
  }
}

// Y'(m, b) = +0 for m < rows, b < batch (fp32, Y'(m, b) = y[m * ys_row + b * ys_col]), ahead of a kernel that adds
// its blocks' sums into Y with atomics. The dependent is launched as a programmatic dependent of this grid, which
// lets it start at once (griddepcontrol.launch_dependents): it stages its X' block meanwhile and waits for this
// grid (griddepcontrol.wait) before its first atomic. Y is zeroed here rather than by the row-lanes grid itself,
// which would save this launch: measured, bench/results/spmm-dispatch-rules.md.
template <class T>   // a template, so that each translation unit that includes this header may instantiate it
__global__ void zero_rows_kernel(T* y, int rows, int batch, std::int64_t ys_row, std::int64_t ys_col, bool fours) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (fours) {   // rows of contiguous, 16-byte aligned groups of four: one 16-byte store per group
    const int groups = batch / 4;
    for (std::int64_t t = first; t < static_cast<std::int64_t>(rows) * groups; t += stride)
      *reinterpret_cast<uint4*>(y + (t / groups) * ys_row + 4 * (t % groups)) = make_uint4(0, 0, 0, 0);
    return;
  }
  for (std::int64_t t = first; t < static_cast<std::int64_t>(rows) * batch; t += stride)
    y[(t / batch) * ys_row + (t % batch) * ys_col] = T(0);
}

// Whether Y' (Y'(m, b) = y[m * ys_row + b * ys_col]) holds each row's values contiguous, every row starting on a
// 16-byte boundary: each row's aligned groups of four can then go in one 16-byte store or reduction.
inline bool rows_start_aligned(const void* y, std::int64_t ys_row, std::int64_t ys_col) {
  return ys_col == 1 && ys_row % 4 == 0 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
}

// At most `max_blocks` blocks of 256 threads (the caller passes the SM count), each striding over Y: the dependent
// launches only once every block of this grid has started, so a grid that is resident at once lets it start
// soonest (bench/results/spmm-dispatch-rules.md).
inline cudaError_t launch_zero_rows(float* y, int rows, int batch, std::int64_t ys_row, std::int64_t ys_col,
                                    int max_blocks, cudaStream_t s) {
  const bool fours = rows_start_aligned(y, ys_row, ys_col) && batch % 4 == 0;
  const std::int64_t n = static_cast<std::int64_t>(rows) * (fours ? batch / 4 : batch);
  if (n == 0) return cudaSuccess;
  const unsigned grid = static_cast<unsigned>(
      std::max<std::int64_t>(1, std::min<std::int64_t>((n + 255) / 256, std::max(1, max_blocks))));
  launch_with_carveout(zero_rows_kernel<float>, grid, 256, 0, s, y, rows, batch, ys_row, ys_col, fours);
  return cudaGetLastError();
}

// Launches `kernel` as a programmatic dependent of the work before it in `s` (compute capability 9.0; an ordinary
// launch where the attribute is refused). The kernel must execute griddepcontrol.wait before it reads or writes
// what that work writes.
template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t s,
                             Args&&... args) {
  state_carveout(kernel, static_cast<int>(block.x * block.y * block.z), smem);
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = s;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  if (cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...) == cudaSuccess) return cudaSuccess;
  (void)cudaGetLastError();
  kernel<<<grid, block, smem, s>>>(std::forward<Args>(args)...);
  return cudaGetLastError();
}

template <class VT>
cudaError_t launch_fold_column_ranges(const float* partial, std::int64_t partial_ld, int splits, int rows, int batch,
                                      void* y, std::int64_t ys_row, std::int64_t ys_col, cudaStream_t s) {
  if (partial_ld % 4 != 0 || reinterpret_cast<std::uintptr_t>(partial) % 16 != 0) return cudaErrorInvalidValue;
  const std::int64_t n = static_cast<std::int64_t>(rows) * ((batch + 3) / 4);
  const unsigned grid =
      static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>((n + 255) / 256, 65535)));
  // A programmatic dependent launch (compute capability 9.0): the launch is processed while the kernel that writes
  // the partials finishes, and the fold waits for it in griddepcontrol.wait; the writing kernel does not trigger
  // its dependents early (griddepcontrol.launch_dependents; measured: bench/results/spmm-dispatch-rules.md).
  // Where the attribute is refused, an ordinary launch.
  return launch_dependent(fold_column_ranges_kernel<VT>, dim3(grid), dim3(256), 0, s, partial, partial_ld, splits,
                          rows, batch, y, ys_row, ys_col);
}

}  // namespace snk::cuda
