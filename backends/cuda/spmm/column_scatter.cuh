// spmm/column_scatter.cuh: W^T X read from W's own rows (the column-scatter kernel), for products whose W changes
// between calls (a layer's weights, updated every training step).
//
// The other kernels run W^T X on the transposed pattern, whose values must first be gathered from W's into W^T's
// order, a random read of every value on every call. This kernel reads W's CSR as it is stored: Y'(c, b) = sum over
// the rows r of W(r, c) X'(r, b). A thread block owns one column block of Y' (as many columns as batch x columns of
// fp32 sums fit its shared memory) and one range of W's rows; its warps take the rows, lanes the row's non-zeros
// within the block (the plan's column-boundary table gives each row's segment), and each non-zero adds its batch of
// products into the block's sums with shared-memory atomics. The sums are then added into Y' (zeroed first) with
// global atomics, one per column and batch column per thread block. fp32 plus_times; the order of the additions
// varies run to run, so deterministic calls do not take it.
#pragma once

#include <cstdint>

namespace snk::cuda {

struct ColumnScatterParams {
  std::int32_t rows = 0, cols = 0;     // W's
  const std::uint16_t* col16 = nullptr;   // W's columns (the plan has at most 65536)
  const float* values = nullptr;          // W's values, in its CSR order
  const int* bounds = nullptr;            // [n_fine + 1][rows]: first non-zero of row r at column f * fine_cols
  int fine_cols = 64, n_fine = 0;
  int block_fine = 0;                     // fine column blocks per thread block's column block
  int block_cols = 0;                     // block_fine * fine_cols: the shared sums' row length
  std::int32_t rows_per_cta = 0;
  const float* x = nullptr;   // X'(r, b) = x[r * xs_row + b * xs_col], r < rows
  std::int64_t xs_row = 0, xs_col = 1;
  float* y = nullptr;         // Y'(c, b) = y[c * ys_row + b * ys_col], c < cols; zeroed before the launch
  std::int64_t ys_row = 0, ys_col = 1;
  int batch = 1;              // 1 .. 32
};

// grid (row ranges, column blocks); dynamic shared memory batch x block_cols floats.
static __global__ void __launch_bounds__(512) column_scatter_kernel(ColumnScatterParams p) {
  extern __shared__ float sums[];   // [batch][block_cols]
  const int f0 = static_cast<int>(blockIdx.y) * p.block_fine;
  const int f1 = min(f0 + p.block_fine, p.n_fine);
  const int c0 = f0 * p.fine_cols, width = min(f1 * p.fine_cols, p.cols) - c0;
  const int n_sums = p.batch * p.block_cols;
  for (int i = threadIdx.x; i < n_sums; i += blockDim.x) sums[i] = 0.0f;
  __syncthreads();
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  const std::int32_t r0 = static_cast<std::int32_t>(blockIdx.x) * p.rows_per_cta;
  const std::int32_t r1 = min(r0 + p.rows_per_cta, p.rows);
  for (std::int32_t r = r0 + static_cast<std::int32_t>(threadIdx.x >> 5); r < r1; r += warps) {
    const int S = p.bounds[static_cast<std::int64_t>(f0) * p.rows + r];
    const int E = p.bounds[static_cast<std::int64_t>(f1) * p.rows + r];
    if (S == E) continue;
    const float xr = lane < p.batch ? p.x[static_cast<std::int64_t>(r) * p.xs_row + lane * p.xs_col] : 0.0f;
    for (int base = S; base < E; base += 32) {
      const int e = base + lane;
      const bool live = e < E;
      const int c = live ? static_cast<int>(p.col16[e]) - c0 : 0;
      const float v = live ? p.values[e] : 0.0f;
      for (int b = 0; b < p.batch; ++b) {
        const float xb = __shfl_sync(0xffffffffu, xr, b);
        if (live) atomicAdd(&sums[b * p.block_cols + c], v * xb);
      }
    }
  }
  __syncthreads();
  const int n_out = p.batch * width;
  for (int i = threadIdx.x; i < n_out; i += blockDim.x) {
    const int b = i / width, c = i - b * width;
    const float s = sums[b * p.block_cols + c];
    if (s != 0.0f) atomicAdd(p.y + static_cast<std::int64_t>(c0 + c) * p.ys_row + b * p.ys_col, s);
  }
}

}  // namespace snk::cuda
