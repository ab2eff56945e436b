// spmm/csr_colblock.cuh: the column-block SpMM kernel (plus_times, fp32/fp16/bf16; deterministic).
//
// With a batch of 8 or more, a row-segment kernel gathers a whole row of X (BT values) from L2 for every
// non-zero, and those gathers, not the stream of W, bound it. Here X is cut into blocks of block_cols
// columns; a thread block owns rows_per_cta rows of W and a range of column blocks, stages each block of
// X (block_cols x BT values of the batch tile) in shared memory with cp.async, double-buffered (the next
// block loads while this one is used), and walks the segment of each of its rows that falls in the block
// (offsets precomputed by the plan), so every gather of an X row is a shared-memory read. The stream of W
// is loaded cooperatively: the lanes of a group load different chunks of its row and hand the non-zeros
// around by shuffles, and a warp's groups work on different rows, so that many rows' loads are in flight
// at once (a design where every lane of a group loaded the same chunks, one row per warp at a time, was
// latency-bound: too few loads in flight per SM). Row sums
// collect in shared memory (each row belongs to one warp per block: no atomics); at the end the block
// writes its rows of Y, or, when several blocks share a row range over disjoint column ranges, a partial
// tile that a fold kernel sums in range order. Either way the result is bitwise identical run to run.
#pragma once

#include <cstdint>

#include "spmm/loads.cuh"
#include "spmm/semiring.cuh"

namespace snk::cuda {

constexpr int kColBlockThreads = 1024;             // threads per block (one block per SM)
constexpr int kColBlockSharedBytes = 200 * 1024;   // X stages + row sums, at most

struct ColBlockParams {
  const std::uint16_t* col16 = nullptr;
  const void* values = nullptr;
  std::int64_t nnz = 0;
  const int* bounds = nullptr;   // [n_fine + 1][rows]: first non-zero of row r at column f * fine_cols
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
  float* partial = nullptr;      // [splits][rows][partial_ld] when the column blocks are split (else null)
  std::int64_t partial_ld = 0;
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

// One thread block: 1024 threads (32 warps). A warp takes the rows rl = warp, warp + 32, ... of the block's
// range, 32 at a time (a "window": lane i reads where row i's segment of this column block starts and
// ends, so the offsets of 32 rows arrive in one round of loads). The warp's G = 32 / L groups of
// L = BT/4 lanes then take G rows of the window at once, one row per group: in each round every lane
// loads U chunks of four non-zeros of its group's row (so a warp has G rows' worth of the sparse stream in
// flight, not one), the group hands each non-zero's value and column to its lanes by shuffles, and each
// lane multiplies it into its four batch columns of the X row read from shared memory. Rounds are
// warp-uniform (as many as the longest of the G rows needs). At the end of its row a group adds its sums
// into the row's shared accumulator: every row belongs to one group, so no atomics and a fixed order.
template <class VT, int BT>
__global__ void __launch_bounds__(1024, 1) colblock_kernel(ColBlockParams p) {
  static_assert(BT == 8 || BT == 32 || BT == 128, "batch tile 8, 32 or 128");
  constexpr int L = BT / 4;                           // lanes that share one X row (four values each)
  constexpr int G = 32 / L;                           // groups (rows in progress) per warp
  constexpr int U = BT == 8 ? 4 : BT == 32 ? 2 : 1;   // chunks per lane per round
  constexpr int kRound = 4 * L * U;                   // non-zeros of a row per round
  extern __shared__ uint4 colblock_smem[];
  VT* tiles = reinterpret_cast<VT*>(colblock_smem);
  float* acc_s = reinterpret_cast<float*>(tiles + 2 * p.block_cols * BT);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n_warps = blockDim.x >> 5;
  const int grp = lane / L, l4 = lane % L;
  const int r0 = blockIdx.x * p.rows_per_cta;
  const int nr = min(p.rows_per_cta, p.rows - r0);
  const int c_begin = blockIdx.y * p.blocks_per_cta;
  const int c_end = min(p.n_blocks, c_begin + p.blocks_per_cta);
  const int b0 = blockIdx.z * BT;
  const VT* vals = static_cast<const VT*>(p.values);
  const int warp_rows = nr > warp ? (nr - warp + n_warps - 1) / n_warps : 0;

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

    for (int w0 = 0; w0 < warp_rows; w0 += 32) {
      const int n_in = min(32, warp_rows - w0);
      int S = 0, E = 0;
      if (lane < n_in) {
        const int r = r0 + warp + n_warps * (w0 + lane);
        S = p.bounds[static_cast<std::int64_t>(f0) * p.rows + r];
        E = p.bounds[static_cast<std::int64_t>(f1) * p.rows + r];
      }
      for (int k0 = 0; k0 < n_in; k0 += G) {
        const int k = k0 + grp;   // this group's row in the window
        int s = __shfl_sync(0xffffffffu, S, k & 31), e = __shfl_sync(0xffffffffu, E, k & 31);
        if (k >= n_in) s = e = 0;
        const int q_first = s >> 2;
        const int rounds = __reduce_max_sync(0xffffffffu, (e - 4 * q_first + kRound - 1) / kRound);
        float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
        for (int rd = 0; rd < rounds; ++rd) {
          const int qb = q_first + rd * L * U;   // the group's first chunk of this round
          Four<VT> w[U];
          Four<std::uint16_t> cc[U];
#pragma unroll
          for (int u = 0; u < U; ++u) {
            const int q = qb + u * L + l4;
            if (4 * q < e) load_chunk(vals, p.col16, p.nnz, std::int64_t(q) * 4, w[u], cc[u]);
          }
#pragma unroll
          for (int u = 0; u < U; ++u) {
#pragma unroll
            for (int jj = 0; jj < L; ++jj) {
              const int src = grp * L + jj;
              const int qj = qb + u * L + jj;
#pragma unroll
              for (int i = 0; i < 4; ++i) {
                const float wi = __shfl_sync(0xffffffffu, to_acc<float>(w[u].v[i]), src);
                const unsigned col = __shfl_sync(0xffffffffu, static_cast<unsigned>(cc[u].v[i]), src);
                const int idx = 4 * qj + i;
                if (idx >= s && idx < e) {
                  const unsigned kl = (col - cbase) & 0xffffu;
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
          }
        }
        if (k < n_in) {
          const int rl = warp + n_warps * (w0 + k);
          float4* dst = reinterpret_cast<float4*>(acc_s + rl * BT + l4 * 4);
          float4 old = *dst;
          old.x += a0;
          old.y += a1;
          old.z += a2;
          old.w += a3;
          *dst = old;
        }
      }
    }
    __syncthreads();
  }

  // The block's rows: straight into Y, or, when the column blocks are split over several thread blocks,
  // into this range's partial tile (folded in range order by fold_column_ranges_kernel, column_ranges.cuh).
  for (int t = threadIdx.x; t < nr * BT; t += blockDim.x) {
    const int rl = t / BT, b = t % BT;
    if (b0 + b >= p.batch) continue;
    if (p.partial) {
      p.partial[(static_cast<std::int64_t>(blockIdx.y) * p.rows + r0 + rl) * p.partial_ld + b0 + b] = acc_s[t];
    } else {
      VT* dst = static_cast<VT*>(p.y) + static_cast<std::int64_t>(r0 + rl) * p.ys_row +
                static_cast<std::int64_t>(b0 + b) * p.ys_col;
      *dst = from_acc<VT>(acc_s[t]);
    }
  }
}

}  // namespace snk::cuda
