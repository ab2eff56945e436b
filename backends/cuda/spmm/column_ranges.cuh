// spmm/column_ranges.cuh: the in-order fold of split column ranges, shared by the column-block and row-tile
// kernels. When those kernels cut the column blocks of a row range over several thread blocks, each block
// writes its sums to partial[range][row][b]; this kernel adds the ranges in range order into Y, so the
// result stays bitwise identical run to run (no atomics).
#pragma once

#include <algorithm>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "spmm/semiring.cuh"

namespace snk::cuda {

// Y'(r, b) = sum over k < splits, in order, of partial[(k * rows + r) * partial_ld + b].
template <class VT>
__global__ void fold_column_ranges_kernel(const float* partial, std::int64_t partial_ld, int splits, int rows,
                                          int batch, void* y, std::int64_t ys_row, std::int64_t ys_col) {
  const std::int64_t n = static_cast<std::int64_t>(rows) * batch;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = t / batch;
    const int b = static_cast<int>(t % batch);
    float s = 0.f;
    for (int k = 0; k < splits; ++k) s += partial[(static_cast<std::int64_t>(k) * rows + r) * partial_ld + b];
    static_cast<VT*>(y)[r * ys_row + b * ys_col] = from_acc<VT>(s);
  }
}

template <class VT>
cudaError_t launch_fold_column_ranges(const float* partial, std::int64_t partial_ld, int splits, int rows, int batch,
                                      void* y, std::int64_t ys_row, std::int64_t ys_col, cudaStream_t s) {
  const std::int64_t n = static_cast<std::int64_t>(rows) * batch;
  const unsigned grid = static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>((n + 255) / 256, 65535)));
  fold_column_ranges_kernel<VT><<<grid, 256, 0, s>>>(partial, partial_ld, splits, rows, batch, y, ys_row, ys_col);
  return cudaGetLastError();
}

}  // namespace snk::cuda
