// spmm/csr_rowtile.cuh: the row-tile SpMM kernel (plus_times, fp32; the batch >= 17 path; deterministic).
//
// From batch 32 up the cost of a row-segment kernel is the gather of a whole row of X (batch x 4 bytes)
// from L2 for every non-zero. Here a thread block owns a tile of rows (a few hundred) and walks X in column
// blocks: each block of X (block_cols rows x BT values of the batch tile) is staged once per thread block
// into shared memory with cp.async, double-buffered, and serves every non-zero of the tile's rows that
// falls in it, so X is read from L2 once per tile instead of once per non-zero. A slot of BT/4 lanes owns
// RG rows of the tile for the whole call, each lane four batch columns of each row, so the RG x 4
// accumulators live in registers (no shared-memory sums, no atomics). Per column block a slot reads where
// each of its rows' segments ends (the plan's [boundary][row] table, coalesced across rows) and walks its
// RG row segments interleaved, one chunk of four non-zeros per row per step, so RG independent chunk
// loads are in flight per lane. grid.y cuts the column blocks into `splits` ranges when the row tiles
// alone would not fill the GPU; each range then writes a partial tile that a fix-up kernel folds in range
// order, so the result stays bitwise identical run to run. Measured (H200, fp32, bench/results/spmm-h200.md):
// slower than the batch-lane kernel at every batch-32/128 point (16384/90%/128: 2.48 vs 1.62 ms; 16384/99%/128:
// 1.07 vs 0.20 ms). With 128 registers per thread only 64 (bt 128) to 256 (bt 32) rows share a staged
// block, so X is re-read from L2 M/64 times (2.1 GB at M = 16384, bt 128) through a two-stage cp.async
// pipeline that waits on every block: the staging, not the shared-memory gathers, bounds it. So the
// dispatcher does not pick it; it stays as a forced, tested kernel.
#pragma once

#include <cstdint>

#include "spmm/loads.cuh"

namespace snk::cuda {

struct RowTileParams {
  const std::uint16_t* col16 = nullptr;  // packed columns (col & 0xffff), padded by 8 entries
  const float* values = nullptr;
  std::int64_t nnz = 0;
  const int* bounds = nullptr;           // [n_fine + 1][rows]: first non-zero of row r at column f * fine_cols
  int n_fine = 0;
  int ratio = 1;                         // fine blocks per column block
  int rows = 0, cols = 0;
  const float* x = nullptr;              // X'(k, b) = x[k * ldx + b]; ldx a multiple of 4, x 16-byte aligned
  std::int64_t ldx = 0;
  float* y = nullptr;                    // Y'(m, b) = y[m * ys_row + b * ys_col]
  std::int64_t ys_row = 0, ys_col = 1;
  float* partial = nullptr;              // [splits][rows][partial_ld] when splits > 1
  std::int64_t partial_ld = 0;
  int batch = 1;
  int block_cols = 0;
  int n_blocks = 0;
  int blocks_per_split = 0;
  int splits = 1;
};

template <int BT>
__device__ __forceinline__ void rowtile_stage(const RowTileParams& p, float* tile, int c, int b0) {
  constexpr int kChunksPerRow = BT / 4;
  const int k0 = c * p.block_cols;
  const int n = p.block_cols * kChunksPerRow;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int kl = i / kChunksPerRow, j = i % kChunksPerRow;
    const int k = k0 + kl, b = b0 + 4 * j;
    const int left = p.batch - b;
    const int bytes = (k < p.cols && left > 0) ? (left >= 4 ? 16 : 4 * left) : 0;
    const float* src = bytes ? p.x + static_cast<std::int64_t>(k) * p.ldx + b : p.x;
    cp_async16(tile + kl * BT + 4 * j, src, bytes);
  }
}

template <int BT, int RG>
__global__ void __launch_bounds__(256, 2) rowtile_kernel(RowTileParams p) {
  static_assert(BT == 32 || BT == 64 || BT == 128, "batch tile 32, 64 or 128");
  constexpr int kLanes = BT / 4;
  extern __shared__ uint4 rowtile_smem[];
  float* tiles = reinterpret_cast<float*>(rowtile_smem);
  const int tile_floats = p.block_cols * BT;

  const int slot = threadIdx.x / kLanes, lb = threadIdx.x % kLanes;
  const int n_slots = blockDim.x / kLanes;
  const int row0 = (blockIdx.x * n_slots + slot) * RG;
  const int c_begin = blockIdx.y * p.blocks_per_split;
  const int c_end = min(p.n_blocks, c_begin + p.blocks_per_split);
  const int b0 = blockIdx.z * BT;

  float acc[RG][4];
  int cur[RG];
#pragma unroll
  for (int i = 0; i < RG; ++i) {
    acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
    const int r = row0 + i;
    cur[i] = r < p.rows ? p.bounds[static_cast<std::int64_t>(min(c_begin * p.ratio, p.n_fine)) * p.rows + r] : 0;
  }

  if (c_begin < c_end) rowtile_stage<BT>(p, tiles, c_begin, b0);
  cp_async_commit();

  for (int c = c_begin, it = 0; c < c_end; ++c, ++it) {
    if (c + 1 < c_end) {
      rowtile_stage<BT>(p, tiles + ((it + 1) & 1) * tile_floats, c + 1, b0);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const float* tile = tiles + (it & 1) * tile_floats + lb * 4;
    const unsigned cbase = static_cast<unsigned>(c * p.block_cols) & 0xffffu;
    const std::int64_t fb = min((c + 1) * p.ratio, p.n_fine);
    int end[RG], q[RG];
#pragma unroll
    for (int i = 0; i < RG; ++i) {
      const int r = row0 + i;
      end[i] = r < p.rows ? p.bounds[fb * p.rows + r] : 0;
      q[i] = cur[i] >> 2;
    }
    bool any = true;
    while (any) {
      Four<float> w[RG];
      Four<std::uint16_t> cc[RG];
#pragma unroll
      for (int i = 0; i < RG; ++i)
        if (4 * q[i] < end[i]) load_chunk(p.values, p.col16, p.nnz, std::int64_t(q[i]) * 4, w[i], cc[i]);
      any = false;
#pragma unroll
      for (int i = 0; i < RG; ++i) {
        if (4 * q[i] < end[i]) {
#pragma unroll
          for (int t = 0; t < 4; ++t) {
            const int idx = 4 * q[i] + t;
            if (idx >= cur[i] && idx < end[i]) {
              const unsigned kl = (static_cast<unsigned>(cc[i].v[t]) - cbase) & 0xffffu;
              const float4 xv = *reinterpret_cast<const float4*>(tile + kl * BT);
              const float wi = w[i].v[t];
              acc[i][0] = fmaf(wi, xv.x, acc[i][0]);
              acc[i][1] = fmaf(wi, xv.y, acc[i][1]);
              acc[i][2] = fmaf(wi, xv.z, acc[i][2]);
              acc[i][3] = fmaf(wi, xv.w, acc[i][3]);
            }
          }
          ++q[i];
          any |= 4 * q[i] < end[i];
        }
      }
    }
#pragma unroll
    for (int i = 0; i < RG; ++i) cur[i] = end[i];
    __syncthreads();   // the buffer just read is the one the next iteration stages into
  }

  const int b = b0 + 4 * lb;
  if (b >= p.batch) return;
#pragma unroll
  for (int i = 0; i < RG; ++i) {
    const int r = row0 + i;
    if (r >= p.rows) break;
    if (p.splits > 1) {
      float* dst = p.partial + (static_cast<std::int64_t>(blockIdx.y) * p.rows + r) * p.partial_ld + b;
      *reinterpret_cast<float4*>(dst) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    } else {
#pragma unroll
      for (int t = 0; t < 4; ++t)
        if (b + t < p.batch) p.y[r * p.ys_row + (b + t) * p.ys_col] = acc[i][t];
    }
  }
}

}  // namespace snk::cuda
