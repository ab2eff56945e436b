// spmm/sampled_product.cuh: the sampled dense-dense product (SDDMM) on a plan's pattern: z(e) = sum over k of
// A'(r, k) B'(k, c) for every non-zero e = (r, c) of W, fp32 (a layer's weight gradient dW<W> = dY^T X, K the batch).
//
// A thread block owns one column block of W (the plan's column-boundary table gives each row's segment in it) and
// one range of rows, and walks K in slices of up to kSampledSliceK values (one per lane of a warp). For each slice it
// first stages B' for its columns in shared memory, one row of row_floats values per column, zero past the slice
// (blocked_rows.cuh: sampled_row_floats), so that each non-zero then reads its K values of B' from shared memory, as
// float4 where K > 1, instead of gathering them from global memory. Its warps take the rows: each lane holds its share
// of the row's K values of A' in registers, groups of L lanes (a slot) take the row's non-zeros in the block
// (coalesced column and value traffic), each lane sums its V products and the group adds its lanes' sums in a fixed
// tree; the slice's sum is written to z, or added to it after the first slice, by the same lane in every slice.
// Deterministic: every non-zero's sum is taken in one order, fixed by K.
//
// Bank groups (SampledLanes): a staged column is an unpadded row of 16-byte units, and lanes whose units sit at the
// same offset of their rows read them in the other order, so that the lanes of a phase of a load fall in more
// distinct bank groups; the columns are those of the pattern, random, so some conflicts stay.
#pragma once

#include <cstdint>

#include "spmm/blocked_rows.cuh"
#include "spmm/dispatch.hpp"

namespace snk::cuda {

// The lanes of a warp for V values of K on each of L lanes a non-zero: kSlots non-zeros at once, a staged column of
// B' kRowFloats floats (kUnits 16-byte units where V >= 4; V = 1 reads single floats). A 16-byte shared load is
// served to 8 lanes (a phase) at a time, and unit u falls in bank group u mod 8. With two units a lane (V = 8),
// odd slots read theirs in the other order: the two slots of a phase that read the same column offset then differ in
// the group's lowest bit. At K = 32 (one column = 8 units, 2 slots a phase) this makes every phase conflict-free.
template <int V, int L>
struct SampledLanes {
  static constexpr int kSlots = 32 / L;
  static constexpr int kUnits = V * L / 4;
  static constexpr bool kSwap = V == 8;
  static constexpr int kRowFloats = V == 1 ? 1 : V * L;
};

// V values of K on each of L lanes per non-zero (sampled_values, sampled_lanes); grid (row ranges, column blocks);
// dynamic shared memory block_cols x row_floats floats; 512 threads. Update: p.update is set (K <= 8, one lane a
// non-zero), and each non-zero's sum goes to p.up's rule with its parameter and states instead of to z.
template <int V, int L, bool Update>
__global__ void __launch_bounds__(512) sampled_product_kernel(SampledParams p) {
  using Lanes = SampledLanes<V, L>;
  constexpr int kSlots = Lanes::kSlots, kRF = Lanes::kRowFloats, kUnroll = 4;
  extern __shared__ float4 bs4[];
  float* bs = reinterpret_cast<float*>(bs4);   // [block_cols][kRF]
  const BlockedRows& g = p.grid;
  const ColumnBlock cb = this_column_block(g);
  const int lane = threadIdx.x & 31, sub = lane % L, slot = lane / L;
  const int flip = Lanes::kSwap ? (slot & 1) : 0;   // the unit of its row this lane reads first
  const std::uint16_t* __restrict__ col16 = g.col16;
  for (int k0 = 0; k0 < p.k; k0 += kSampledSliceK) {
    const int ks = min(kSampledSliceK, p.k - k0);
    const float* a = p.a + k0 * p.a_k;
    const float* b = p.b + k0 * p.b_k;
    if (k0 > 0) __syncthreads();   // every warp is done with the previous slice's B'
    if constexpr (V == 1) {
      for (int i = threadIdx.x; i < cb.width; i += blockDim.x) bs[i] = b[static_cast<std::int64_t>(cb.c0 + i) * p.b_col];
    } else {
      for (int i = threadIdx.x; i < cb.width * Lanes::kUnits; i += blockDim.x) {   // one 16-byte unit a thread
        const int c = i / Lanes::kUnits, k = 4 * (i - c * Lanes::kUnits);
        const float* col = b + static_cast<std::int64_t>(cb.c0 + c) * p.b_col;
        float4 v;
        v.x = k < ks ? col[k * p.b_k] : 0.0f;
        v.y = k + 1 < ks ? col[(k + 1) * p.b_k] : 0.0f;
        v.z = k + 2 < ks ? col[(k + 2) * p.b_k] : 0.0f;
        v.w = k + 3 < ks ? col[(k + 3) * p.b_k] : 0.0f;
        bs4[i] = v;
      }
    }
    __syncthreads();
    for_each_row_segment(g, cb, [&](std::int32_t r, int S, int E) {
      const float ar = lane < ks ? a[static_cast<std::int64_t>(r) * p.a_row + lane * p.a_k] : 0.0f;
      float av[V];   // this lane's V values of A': those of the unit it reads first, then the other's
#pragma unroll
      for (int i = 0; i < V; ++i) av[i] = __shfl_sync(0xffffffffu, ar, sub * V + (i ^ (4 * flip)));
      for (int base = S; base < E; base += kUnroll * kSlots) {   // warp-uniform: the group's shuffles see every lane
        int c[kUnroll];   // the staged column of each non-zero this lane takes (0 past the segment)
        bool in[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int e = base + u * kSlots + slot;
          in[u] = e < E;
          c[u] = in[u] ? static_cast<int>(__ldg(col16 + e)) - cb.c0 : 0;
        }
        float before[kUnroll];   // the sums of the slices before (none in the first)
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) before[u] = k0 > 0 && in[u] && sub == 0 ? p.z[base + u * kSlots + slot] : 0.0f;
        // Update (one lane a non-zero): the parameters and states of the lane's non-zeros, loaded before the sums so
        // that the loads overlap them.
        static_assert(!Update || L == 1, "an update takes one lane a non-zero (kSampledUpdateMaxK)");
        [[maybe_unused]] float total[kUnroll], pv[kUnroll], s1v[kUnroll], s2v[kUnroll];
        if constexpr (Update) {
#pragma unroll
          for (int u = 0; u < kUnroll; ++u) {
            const int e = in[u] ? base + u * kSlots + slot : 0;
            pv[u] = p.up.p[e];
            s1v[u] = p.up.s1[e];
            s2v[u] = p.up.s2 ? p.up.s2[e] : 0.0f;
          }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const float* row = bs + c[u] * kRF + sub * V;
          float sum = 0.0f;
          if constexpr (V == 1) {
            sum = av[0] * row[0];
          } else if constexpr (V == 4) {
            const float4 b4 = reinterpret_cast<const float4*>(row)[0];
            sum = av[0] * b4.x;
            sum += av[1] * b4.y;
            sum += av[2] * b4.z;
            sum += av[3] * b4.w;
          } else {   // the two units' sums, added in either order: the same value
            const float4 f = reinterpret_cast<const float4*>(row)[flip];
            const float4 s = reinterpret_cast<const float4*>(row)[flip ^ 1];
            float sf = av[0] * f.x, ss = av[4] * s.x;
            sf += av[1] * f.y;
            ss += av[5] * s.y;
            sf += av[2] * f.z;
            ss += av[6] * s.z;
            sf += av[3] * f.w;
            ss += av[7] * s.w;
            sum = sf + ss;
          }
#pragma unroll
          for (int w = 1; w < L; w <<= 1) sum += __shfl_xor_sync(0xffffffffu, sum, w);
          if constexpr (Update) total[u] = sum;
          else if (in[u] && sub == 0) p.z[base + u * kSlots + slot] = before[u] + sum;
        }
        if constexpr (Update) {
#pragma unroll
          for (int u = 0; u < kUnroll; ++u) {
            if (!in[u]) continue;
            const int e = base + u * kSlots + slot;
            p.up.rule(pv[u], s1v[u], s2v[u], total[u]);
            p.up.p_out[e] = pv[u];
            p.up.s1_out[e] = s1v[u];
            if (p.up.s2_out) p.up.s2_out[e] = s2v[u];
          }
        }
      }
    });
  }
}

}  // namespace snk::cuda
