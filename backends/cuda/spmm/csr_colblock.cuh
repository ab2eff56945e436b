// spmm/csr_colblock.cuh: the column-block SpMM kernel (plus_times; the batch 8..128 regime).
//
// With a batch of 8 or more, a row-segment kernel gathers a whole row of X (BT values) from L2 for every
// non-zero, and those gathers, not the stream of W, bound it. Here X is cut into blocks of block_cols
// columns; a thread block owns rows_per_cta rows of W and a range of column blocks, stages each block of
// X (block_cols x BT values of the batch tile) in shared memory with cp.async, double-buffered (the next
// block loads while this one is used), and walks the segment of each of its rows that falls in the block
// (offsets precomputed by the plan). A group of BT/4 lanes owns one row segment at a time; each lane
// holds four batch columns, so the gather of one X row is one shared-memory row read by the group, and
// the four non-zeros of a streamed chunk are shared by the group's lanes. Row sums collect in shared
// memory (each row belongs to one group: no atomics); at the end the block writes its rows of Y. With
// splits > 1 several blocks share a row range over disjoint column ranges and add their sums into Y with
// atomics (Y zeroed first): fewer rows per block re-read X less often, at the price of determinism.
#pragma once

#include <cstdint>

#include "spmm/loads.cuh"
#include "spmm/semiring.cuh"

namespace snk::cuda {

struct ColBlockParams {
  const std::uint16_t* col16 = nullptr;
  const void* values = nullptr;
  std::int64_t nnz = 0;
  const int* segoff = nullptr;   // [rows][n_fine + 1]: first non-zero of the row at column f * fine_cols
  int n_fine = 0;
  int ratio = 1;                 // fine blocks per column block
  int rows = 0, cols = 0;
  const void* x = nullptr;       // X'(k, b) = x[k * ldx + b]; ldx a multiple of 16 bytes' worth of values
  std::int64_t ldx = 0;
  void* y = nullptr;             // Y'(m, b) = y[m * ys_row + b * ys_col]
  std::int64_t ys_row = 0, ys_col = 1;
  int batch = 1;
  int block_cols = 0;
  int n_blocks = 0;
  int rows_per_cta = 0;
  int blocks_per_cta = 0;
  bool atomic = false;
};

template <class VT, int BT>
__device__ __forceinline__ void colblock_stage(const ColBlockParams& p, VT* tile, int c, int b0) {
  constexpr int kValsPer16 = 16 / sizeof(VT);
  constexpr int kChunksPerRow = BT / kValsPer16;
  const int k0 = c * p.block_cols;
  const int n = p.block_cols * kChunksPerRow;
  const VT* x = static_cast<const VT*>(p.x);
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int kl = i / kChunksPerRow, j = i % kChunksPerRow;
    const int k = k0 + kl;
    const int b = b0 + j * kValsPer16;
    const bool ok = k < p.cols && b < p.batch;
    const VT* src = ok ? x + static_cast<std::int64_t>(k) * p.ldx + b : x;
    cp_async16(tile + kl * BT + j * kValsPer16, src, ok ? 16 : 0);
  }
}

template <class VT, int BT>
__global__ void __launch_bounds__(512) colblock_kernel(ColBlockParams p) {
  static_assert(BT % 8 == 0, "batch tile is a multiple of 8");
  constexpr int kLanesPerGroup = BT / 4;
  extern __shared__ uint4 colblock_smem[];
  VT* tiles = reinterpret_cast<VT*>(colblock_smem);
  float* acc_s = reinterpret_cast<float*>(tiles + 2 * p.block_cols * BT);

  const int g = threadIdx.x / kLanesPerGroup, l4 = threadIdx.x % kLanesPerGroup;
  const int n_groups = blockDim.x / kLanesPerGroup;
  const int r0 = blockIdx.x * p.rows_per_cta;
  const int nr = min(p.rows_per_cta, p.rows - r0);
  const int c_begin = blockIdx.y * p.blocks_per_cta;
  const int c_end = min(p.n_blocks, c_begin + p.blocks_per_cta);
  const int b0 = blockIdx.z * BT;
  const VT* vals = static_cast<const VT*>(p.values);
  const int seg_stride = p.n_fine + 1;

  for (int t = threadIdx.x; t < nr * BT; t += blockDim.x) acc_s[t] = 0.0f;
  if (c_begin < c_end) colblock_stage<VT, BT>(p, tiles, c_begin, b0);
  cp_async_commit();

  for (int c = c_begin, it = 0; c < c_end; ++c, ++it) {
    if (c + 1 < c_end) {
      colblock_stage<VT, BT>(p, tiles + ((it + 1) & 1) * p.block_cols * BT, c + 1, b0);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const VT* tile = tiles + (it & 1) * p.block_cols * BT + l4 * 4;
    const unsigned cbase = static_cast<unsigned>(c * p.block_cols) & 0xffffu;
    const int f0 = c * p.ratio, f1 = min((c + 1) * p.ratio, p.n_fine);

    for (int rl = g; rl < nr; rl += n_groups) {
      const int* so = p.segoff + static_cast<std::int64_t>(r0 + rl) * seg_stride;
      const int s = so[f0], e = so[f1];
      float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
      const int q_end = (e + 3) >> 2;
      // Software pipeline over consecutive chunks: kDepth chunks per step, the next step loading while
      // this one is used.
      constexpr int kDepth = 4;
      int q = s >> 2;
      Four<VT> w[kDepth];
      Four<std::uint16_t> cc[kDepth];
#pragma unroll
      for (int u = 0; u < kDepth; ++u)
        if (q + u < q_end) load_chunk(vals, p.col16, p.nnz, std::int64_t(q + u) * 4, w[u], cc[u]);
      while (q < q_end) {
        const int qn = q + kDepth;
        Four<VT> wn[kDepth];
        Four<std::uint16_t> cn[kDepth];
#pragma unroll
        for (int u = 0; u < kDepth; ++u)
          if (qn + u < q_end) load_chunk(vals, p.col16, p.nnz, std::int64_t(qn + u) * 4, wn[u], cn[u]);
#pragma unroll
        for (int u = 0; u < kDepth; ++u) {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int idx = (q + u) * 4 + i;
            if (idx >= s && idx < e) {
              const float wi = to_acc<float>(w[u].v[i]);
              const unsigned kl = (static_cast<unsigned>(cc[u].v[i]) - cbase) & 0xffffu;
              Four<VT> xv;
              if constexpr (sizeof(VT) == 4) {
                const float4 f = *reinterpret_cast<const float4*>(tile + kl * BT);
                memcpy(&xv, &f, 16);
              } else {
                const uint2 h = *reinterpret_cast<const uint2*>(tile + kl * BT);
                memcpy(&xv, &h, 8);
              }
              a0 = fmaf(wi, to_acc<float>(xv.v[0]), a0);
              a1 = fmaf(wi, to_acc<float>(xv.v[1]), a1);
              a2 = fmaf(wi, to_acc<float>(xv.v[2]), a2);
              a3 = fmaf(wi, to_acc<float>(xv.v[3]), a3);
            }
          }
        }
#pragma unroll
        for (int u = 0; u < kDepth; ++u) {
          w[u] = wn[u];
          cc[u] = cn[u];
        }
        q = qn;
      }
      float4* dst = reinterpret_cast<float4*>(acc_s + rl * BT + l4 * 4);
      float4 old = *dst;
      old.x += a0;
      old.y += a1;
      old.z += a2;
      old.w += a3;
      *dst = old;
    }
    __syncthreads();
  }

  VT* y = static_cast<VT*>(p.y);
  for (int t = threadIdx.x; t < nr * BT; t += blockDim.x) {
    const int rl = t / BT, b = t % BT;
    if (b0 + b >= p.batch) continue;
    VT* dst = y + static_cast<std::int64_t>(r0 + rl) * p.ys_row + static_cast<std::int64_t>(b0 + b) * p.ys_col;
    if constexpr (sizeof(VT) == 4) {
      if (p.atomic) {
        atomicAdd(reinterpret_cast<float*>(dst), acc_s[t]);
        continue;
      }
    }
    *dst = from_acc<VT>(acc_s[t]);
  }
}

}  // namespace snk::cuda
