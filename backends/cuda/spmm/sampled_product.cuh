// spmm/sampled_product.cuh: the sampled dense-dense product (SDDMM) on a plan's pattern: z(e) = sum over k of
// A'(r, k) B'(k, c) for every non-zero e = (r, c) of W, fp32 (a layer's weight gradient dW<W> = dY^T X, K the batch).
//
// A thread block owns one column block of W (the plan's column-boundary table gives each row's segment in it) and
// one range of rows, and walks K in slices of up to kSampledSliceK values (one per lane of a warp). For each slice it
// first stages B' for its columns in shared memory, one zero-padded row of row_floats values per column
// (blocked_rows.cuh: sampled_row_floats), so that each non-zero then reads its K values of B' from shared memory, as
// float4 where K > 1, instead of gathering them from global memory. Its warps take the rows: each lane holds its share
// of the row's K values of A' in registers, groups of L lanes take the row's non-zeros in the block (coalesced column
// and value traffic), each lane sums its V products in k order and the group adds its lanes' sums in a fixed tree;
// the slice's sum is written to z, or added to it after the first slice, by the same lane in every slice.
// Deterministic.
#pragma once

#include <cstdint>

#include "spmm/blocked_rows.cuh"
#include "spmm/dispatch.hpp"

namespace snk::cuda {

// V values of K on each of L lanes per non-zero (sampled_values, sampled_lanes); grid (row ranges, column blocks);
// dynamic shared memory block_cols x row_floats floats.
template <int V, int L>
__global__ void __launch_bounds__(512) sampled_product_kernel(SampledParams p) {
  extern __shared__ float4 bs4[];
  float* bs = reinterpret_cast<float*>(bs4);   // [block_cols][row_floats]
  const BlockedRows& g = p.grid;
  const ColumnBlock cb = this_column_block(g);
  const int rf = p.row_floats;
  const int lane = threadIdx.x & 31, sub = lane % L, slot = lane / L;
  constexpr int kSlots = 32 / L, kUnroll = 4;
  const std::uint16_t* __restrict__ col16 = g.col16;
  for (int k0 = 0; k0 < p.k; k0 += kSampledSliceK) {
    const int ks = min(kSampledSliceK, p.k - k0);
    const float* a = p.a + k0 * p.a_k;
    const float* b = p.b + k0 * p.b_k;
    if (k0 > 0) __syncthreads();   // every warp is done with the previous slice's B'
    for (int i = threadIdx.x; i < cb.width * rf; i += blockDim.x) {
      const int kk = i / cb.width, c = i - kk * cb.width;   // consecutive threads: consecutive columns of one B' row
      bs[c * rf + kk] = kk < ks ? b[kk * p.b_k + static_cast<std::int64_t>(cb.c0 + c) * p.b_col] : 0.0f;
    }
    __syncthreads();
    for_each_row_segment(g, cb, [&](std::int32_t r, int S, int E) {
      const float ar = lane < ks ? a[static_cast<std::int64_t>(r) * p.a_row + lane * p.a_k] : 0.0f;
      float av[V];
#pragma unroll
      for (int i = 0; i < V; ++i) av[i] = __shfl_sync(0xffffffffu, ar, sub * V + i);
      for (int base = S; base < E; base += kUnroll * kSlots) {   // warp-uniform: the group's shuffles see every lane
        int c[kUnroll];
        float before[kUnroll];   // the sums of the slices before (none in the first)
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {   // the columns and sums of kUnroll non-zeros in flight at once
          const int e = base + u * kSlots + slot;
          c[u] = e < E ? static_cast<int>(__ldg(col16 + e)) - cb.c0 : 0;
          before[u] = k0 > 0 && e < E && sub == 0 ? p.z[e] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int e = base + u * kSlots + slot;
          const float* row = bs + c[u] * rf + sub * V;
          float sum = 0.0f;
          if constexpr (V == 1) {
            sum = av[0] * row[0];
          } else {
#pragma unroll
            for (int q = 0; q < V / 4; ++q) {
              const float4 b4 = reinterpret_cast<const float4*>(row)[q];
              sum += av[4 * q] * b4.x;
              sum += av[4 * q + 1] * b4.y;
              sum += av[4 * q + 2] * b4.z;
              sum += av[4 * q + 3] * b4.w;
            }
          }
#pragma unroll
          for (int w = 1; w < L; w <<= 1) sum += __shfl_xor_sync(0xffffffffu, sum, w);
          if (e < E && sub == 0) p.z[e] = before[u] + sum;
        }
      }
    });
  }
}

}  // namespace snk::cuda
