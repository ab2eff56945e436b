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

#include "spmm/blocked_rows.cuh"

namespace snk::cuda {

// grid (row ranges, column blocks); dynamic shared memory batch x block_cols floats.
static __global__ void __launch_bounds__(512) column_scatter_kernel(ColumnScatterParams p) {
  extern __shared__ float sums[];   // [batch][block_cols]
  const BlockedRows& g = p.grid;
  const ColumnBlock cb = this_column_block(g);
  const int n_sums = p.batch * g.block_cols;
  for (int i = threadIdx.x; i < n_sums; i += blockDim.x) sums[i] = 0.0f;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  constexpr int kUnroll = 4;
  for_each_row_segment(g, cb, [&](std::int32_t r, int S, int E) {
    const float xr = lane < p.batch ? p.x[static_cast<std::int64_t>(r) * p.xs_row + lane * p.xs_col] : 0.0f;
    for (int base = S; base < E; base += kUnroll * 32) {   // warp-uniform: the shuffles see every lane
      int c[kUnroll];
      float v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {   // kUnroll non-zeros' loads in flight at once
        const int e = base + u * 32 + lane;
        c[u] = e < E ? static_cast<int>(__ldg(g.col16 + e)) - cb.c0 : 0;
        v[u] = e < E ? __ldg(p.values + e) : 0.0f;
      }
      for (int b = 0; b < p.batch; ++b) {
        const float xb = __shfl_sync(0xffffffffu, xr, b);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          if (base + u * 32 + lane < E) atomicAdd(&sums[b * g.block_cols + c[u]], v[u] * xb);
      }
    }
  });
  __syncthreads();
  const int n_out = p.batch * cb.width;
  for (int i = threadIdx.x; i < n_out; i += blockDim.x) {
    const int b = i / cb.width, c = i - b * cb.width;
    const float s = sums[b * g.block_cols + c];
    if (s != 0.0f) atomicAdd(p.y + static_cast<std::int64_t>(cb.c0 + c) * p.ys_row + b * p.ys_col, s);
  }
}

}  // namespace snk::cuda
