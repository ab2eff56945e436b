// spmm/blocked_rows.cuh: the work layout of the kernels that walk W's own rows one column block at a time, the column
// scatter (W^T X, column_scatter.cuh) and the sampled product (SDDMM, sampled_product.cuh), and their parameters.
//
// A thread block owns one column block of W (block_fine fine blocks of the plan's column-boundary table, each column
// holding a row of fp32 values in shared memory) and one range of W's rows; its warps take the rows, and the table
// gives each row's segment of non-zeros in the block. The dispatcher (dispatch.cu: blocked_rows) picks the blocks as
// wide as the shared memory allows, the launcher (colblock_coo.cu: launch_blocked) the ranges so that ranges x blocks
// fill the SMs once at the kernel's resident thread blocks an SM.
#pragma once

#include <cstdint>

#include "spmm/dispatch.hpp"

namespace snk::cuda {

struct BlockedRows {
  std::int32_t rows = 0, cols = 0;        // W's
  const std::uint16_t* col16 = nullptr;   // W's columns (the plan has at most 65536)
  const int* bounds = nullptr;            // [n_fine + 1][rows]: first non-zero of row r at column f * fine_cols
  int fine_cols = 64, n_fine = 0;
  int block_fine = 0, block_cols = 0;     // a thread block's column block, in fine blocks and columns
  std::int32_t rows_per_cta = 0;
  int ranges = 0, blocks = 0;             // the grid: (row ranges, column blocks); ranges set at launch
  int sm_count = 1;                       // the device's (the plan's)
};

// The column scatter: Y'(c, b) += W(r, c) X'(r, b), W's values in its CSR order, Y' zeroed before the launch.
struct ColumnScatterParams {
  BlockedRows grid;
  const float* values = nullptr;
  const float* x = nullptr;   // X'(r, b) = x[r * xs_row + b * xs_col], r < rows
  std::int64_t xs_row = 0, xs_col = 1;
  float* y = nullptr;         // Y'(c, b) = y[c * ys_row + b * ys_col], c < cols
  std::int64_t ys_row = 0, ys_col = 1;
  int batch = 1;              // 1 .. 32
};

// The sampled product: z(e) = sum over k of A'(r, k) B'(k, c) for every non-zero e = (r, c) of W.
struct SampledParams {
  BlockedRows grid;
  const float* a = nullptr;   // A'(r, k) = a[r * a_row + k * a_k]
  std::int64_t a_row = 0, a_k = 1;
  const float* b = nullptr;   // B'(k, c) = b[k * b_k + c * b_col]
  std::int64_t b_k = 0, b_col = 1;
  int k = 1;                  // K, walked in slices of up to 32 values (sampled_product.cuh)
  int row_floats = 1;         // floats a staged column of B' takes in shared memory (sampled_row_floats of a slice)
  float* z = nullptr;         // one value per non-zero, in W's CSR order
  bool update = false;        // the values go to up's optimizer rule instead of z (k <= kSampledUpdateMaxK)
  SampledUpdate up;
};

// Lanes that share one non-zero of the sampled product, and the values of K each of them takes: K = 1 one lane and
// one value; K up to 8 one lane and K rounded up to 4 values (float4 reads); beyond, 8 values a lane on 2 or 4 lanes.
inline int sampled_lanes(int k) { return k <= 8 ? 1 : k <= 16 ? 2 : 4; }
inline int sampled_values(int k) { return k == 1 ? 1 : k <= 4 ? 4 : 8; }
// Shared-memory floats of one staged column of B': the lanes' values, unpadded (sampled_product.cuh: SampledLanes).
inline int sampled_row_floats(int k) { return sampled_values(k) * sampled_lanes(k); }

#if defined(__CUDACC__)
// This thread block's column block: its fine blocks [f0, f1) and columns [c0, c0 + width).
struct ColumnBlock {
  int f0, f1, c0, width;
};
__device__ inline ColumnBlock this_column_block(const BlockedRows& g) {
  ColumnBlock cb;
  cb.f0 = static_cast<int>(blockIdx.y) * g.block_fine;
  cb.f1 = min(cb.f0 + g.block_fine, g.n_fine);
  cb.c0 = cb.f0 * g.fine_cols;
  cb.width = min(cb.f1 * g.fine_cols, g.cols) - cb.c0;
  return cb;
}

// f(r, S, E) for each row r of this thread block's range whose segment [S, E) in the column block holds non-zeros,
// one warp per row (every lane of the warp calls it, with the same arguments).
template <class F>
__device__ inline void for_each_row_segment(const BlockedRows& g, const ColumnBlock& cb, F&& f) {
  const int warps = blockDim.x >> 5;
  const std::int32_t r0 = static_cast<std::int32_t>(blockIdx.x) * g.rows_per_cta;
  const std::int32_t r1 = min(r0 + g.rows_per_cta, g.rows);
  for (std::int32_t r = r0 + static_cast<std::int32_t>(threadIdx.x >> 5); r < r1; r += warps) {
    const int S = g.bounds[static_cast<std::int64_t>(cb.f0) * g.rows + r];
    const int E = g.bounds[static_cast<std::int64_t>(cb.f1) * g.rows + r];
    if (S != E) f(r, S, E);
  }
}
#endif

}  // namespace snk::cuda
