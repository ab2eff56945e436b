// spmm/snack_coo.cuh: SNACK-COO as published, kept as the named baseline the other kernels must beat.
//
// The non-zeros of W are stored as COO (row, column, value arrays, 32-bit indices). The grid maps the
// batch to grid.y (one batch column per grid row, so different batch columns land on different
// multiprocessors) and the non-zeros to grid.x = ceil(nnz / threads); each thread takes one non-zero
// (i, k, w) and adds w * X(k, b) into Y(i, b) with an atomic add. Y is zeroed first. Nothing is reordered,
// tiled or vectorized: that is the point of a faithful baseline. fp32 plus_times only (the atomics are
// fp32 adds); results vary in the last bits run to run (atomic order).
#pragma once

#include <cstdint>

namespace snk::cuda {

struct SnackCooParams {
  const int* row = nullptr;
  const int* col = nullptr;
  const float* values = nullptr;
  std::int64_t nnz = 0;
  const float* x = nullptr;   // X'(k, b) = x[k * xs_row + b * xs_col]
  std::int64_t xs_row = 0, xs_col = 1;
  float* y = nullptr;         // Y'(m, b) = y[m * ys_row + b * ys_col]
  std::int64_t ys_row = 0, ys_col = 1;
};

// static: the header is included by more than one translation unit.
static __global__ void __launch_bounds__(256) snack_coo_kernel(SnackCooParams p) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t b = blockIdx.y;
  if (j >= p.nnz) return;
  const float v = p.values[j] * p.x[p.col[j] * p.xs_row + b * p.xs_col];
  atomicAdd(p.y + p.row[j] * p.ys_row + b * p.ys_col, v);
}

}  // namespace snk::cuda
