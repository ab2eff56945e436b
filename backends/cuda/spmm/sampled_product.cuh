// spmm/sampled_product.cuh: the sampled dense-dense product (SDDMM) on a plan's pattern: z(e) = sum over k of
// A'(r, k) B'(k, c) for every non-zero e = (r, c) of W, fp32, K up to 32 (a layer's weight gradient dW<W> = dY^T X at
// batches up to 32).
//
// A thread block owns one column block of W (the plan's column-boundary table gives each row's segment in it) and
// one range of rows. It first stages B' for its columns in shared memory, as one row of K values per column, so that
// each non-zero then reads its K values of B' from shared memory instead of gathering them from global memory. Its
// warps take the rows: the row's K values of A' go to every lane's registers, lanes take the row's non-zeros in the
// block (coalesced column and value traffic), and each lane sums its K products in k order. Deterministic.
#pragma once

#include <cstdint>

#include "spmm/blocked_rows.cuh"

namespace snk::cuda {

// grid (row ranges, column blocks); dynamic shared memory block_cols x k floats.
static __global__ void __launch_bounds__(512) sampled_product_kernel(SampledParams p) {
  extern __shared__ float bs[];   // [block_cols][k]
  const BlockedRows& g = p.grid;
  const ColumnBlock cb = this_column_block(g);
  for (int i = threadIdx.x; i < cb.width * p.k; i += blockDim.x) {
    const int kk = i / cb.width, c = i - kk * cb.width;   // consecutive threads: consecutive columns of one B' row
    bs[c * p.k + kk] = p.b[kk * p.b_k + static_cast<std::int64_t>(cb.c0 + c) * p.b_col];
  }
  __syncthreads();
  const int lane = threadIdx.x & 31;
  for_each_row_segment(g, cb, [&](std::int32_t r, int S, int E) {
    const float ar = lane < p.k ? p.a[static_cast<std::int64_t>(r) * p.a_row + lane * p.a_k] : 0.0f;
    float av[32];
#pragma unroll
    for (int kk = 0; kk < 32; ++kk) av[kk] = __shfl_sync(0xffffffffu, ar, kk);
    for (int e = S + lane; e < E; e += 32) {
      const float* row = bs + (static_cast<int>(g.col16[e]) - cb.c0) * p.k;
      float sum = 0.0f;
#pragma unroll
      for (int kk = 0; kk < 32; ++kk)
        if (kk < p.k) sum += av[kk] * row[kk];
      p.z[e] = sum;
    }
  });
}

}  // namespace snk::cuda
