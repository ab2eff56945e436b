// spmm/csr_rowrange.cuh: the row-range SpMM kernel (plus_times, lanes across the batch, deterministic), for
// patterns whose rows the plan did not cut (no split rows, no skew, at most 65536 columns).
//
// Warp r owns rows [rows * r / n, rows * (r + 1) / n) (n ranges, at most kRowRangeRows rows each) and sums
// them in shared memory, so it may walk a row's non-zeros in pieces: with S column slabs it walks piece
// (slab 0, every row of its range), then (slab 1, every row), ... All warps progress at about the same rate,
// so the warps of an SM gather X rows from about the same slab at once, and the slab (~128 KB of X) stays in
// L1 instead of streaming from L2. The pieces' bounds come from the plan's column-boundary table (every
// ratio-th boundary), so slabs need no extra plan data; S = 1 walks plain rows. Lanes are laid out as in
// rowseg_batch_kernel (BT / 4 lanes read one row of X as BT contiguous values; the 32 / (BT / 4) lane slots
// take consecutive 4-non-zero chunks), and the next step's chunk loads are issued before the current step is
// used, also across pieces (the next piece's bounds are fetched one piece ahead). A piece's lanes are folded
// with shuffles in a fixed order and added to the row's sum in slab order: bitwise repeatable. The warp
// writes its rows' sums to Y' when its range is done.
// Batch tile 128, and batch tile 32 on plans with many rows, run rowrange_row_kernel instead: one row per lane
// group (32 lanes at 128, 8 at 32), so there is nothing to fold or to keep in shared memory and no slabs.
// Ranges of equal row counts beat the plan's non-zero-balanced ranges on uniform patterns, and the slabs' sums are
// kept in shared memory rather than added into Y' (bench/results/spmm-dispatch-rules.md).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "spmm/csr_rowseg.cuh"
#include "spmm/loads.cuh"
#include "spmm/plan_impl.hpp"

namespace snk::cuda {

// Rows one warp range may hold (its sums take kRowRangeRows x BT fp32 of shared memory).
constexpr int kRowRangeRows = 8;
// Threads per block of rowrange_row_kernel.
constexpr int kRowWarpThreads = 256;

struct RowRangeParams {
  int n_ranges = 0;                     // >= rows / kRowRangeRows
  const int* bounds = nullptr;          // column-boundary table: bounds[f * rows + r] (Plan::Impl::tile_bounds)
  int rows = 0;
  int n_fine = 0;                       // boundaries per row - 1 (bounds[n_fine * rows + r] = end of row r)
  int slab_ratio = 0;                   // boundaries per slab
  int n_slabs = 1;
  const std::uint16_t* col16 = nullptr; // columns (all < 65536), padded by 8 entries
  const void* values = nullptr;
  std::int64_t nnz = 0;
  const void* x = nullptr;              // X'(k, b) = x[k * ldx + b], 32-bit offsets
  int ldx = 0;
  void* y = nullptr;                    // Y'(m, b) = y[m * ys_row + b * ys_col]
  bool one_row = false;                 // rowrange_row_kernel (batch tile 32 or 128; always at 128)
  std::int64_t ys_row = 0, ys_col = 1;
  int batch = 1;
};

// Y'(row, b .. b + 3) = v, as far as the batch goes.
template <class VT, bool kVectorStore>
__device__ __forceinline__ void store_four(const RowRangeParams& p, std::int64_t row, int b, float a0, float a1,
                                           float a2, float a3) {
  if constexpr (kVectorStore) {   // fp32, Y' rows contiguous and 16-byte aligned, batch a multiple of 4
    *reinterpret_cast<float4*>(static_cast<float*>(p.y) + row * p.ys_row + b) = make_float4(a0, a1, a2, a3);
  } else {
    const float a[4] = {a0, a1, a2, a3};
    for (int t = 0; t < 4 && b + t < p.batch; ++t)
      static_cast<VT*>(p.y)[row * p.ys_row + (b + t) * p.ys_col] = from_acc<VT>(a[t]);
  }
}

// kPackedX: X' rows are exactly BT values apart and the batch fills one tile to its last four values
// (ldx == BT, BT - 4 < batch <= BT), so the row stride is a constant and every lane is in the batch; the compiler
// then schedules the gathers better (bench/results/spmm-dispatch-rules.md).
template <class VT, int BT, bool kVectorStore, bool kPackedX>
__global__ void __launch_bounds__(256, kStreamWarpsPerSm / 8) rowrange_kernel(RowRangeParams p) {
  static_assert(BT == 8 || BT == 32, "batch tile 8 or 32");
  constexpr int kLanesPerRow = BT / 4, kSlots = 32 / kLanesPerRow;
  __shared__ float4 sums[8][kRowRangeRows][kLanesPerRow];
  const int lane = threadIdx.x & 31, slot = lane / kLanesPerRow, lb = lane % kLanesPerRow, wib = threadIdx.x >> 5;
  const int warp = static_cast<int>((static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5);
  const int n_warps = static_cast<int>((static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5);
  const int tile0 = kPackedX ? 0 : blockIdx.y * BT, b0 = tile0 + 4 * lb;
  const bool in_batch = kPackedX || b0 < p.batch;
  const int ldx = kPackedX ? BT : p.ldx;
  const VT* __restrict__ vals = static_cast<const VT*>(p.values);
  const VT* __restrict__ x = static_cast<const VT*>(p.x) + b0;
  const std::uint16_t* __restrict__ col16 = p.col16;
  const int* __restrict__ bounds = p.bounds;
  auto load_step = [&](int q0, int piece_end, Four<VT>& w, Four<std::uint16_t>& c) {
    if (q0 + slot < ((piece_end + 3) >> 2)) load_chunk(vals, col16, p.nnz, std::int64_t(q0 + slot) * 4, w, c);
  };

  for (int r = warp; r < p.n_ranges; r += n_warps) {
    const int r_begin = static_cast<int>(static_cast<std::int64_t>(p.rows) * r / p.n_ranges);
    const int nr = static_cast<int>(static_cast<std::int64_t>(p.rows) * (r + 1) / p.n_ranges) - r_begin;
    const int n_pieces = nr * p.n_slabs;
    if (nr <= 0) continue;
    // Piece i: slab i / nr of row r_begin + i % nr.
    auto bounds_of = [&](int i, int& begin, int& end) {
      const int s = i / nr, row = r_begin + i % nr;
      const int f1 = min((s + 1) * p.slab_ratio, p.n_fine);
      begin = bounds[static_cast<std::int64_t>(s) * p.slab_ratio * p.rows + row];
      end = bounds[static_cast<std::int64_t>(f1) * p.rows + row];
    };
    int piece = 0, begin, end, next_begin = 0, next_end = 0;
    bounds_of(0, begin, end);
    if (n_pieces > 1) bounds_of(1, next_begin, next_end);
    int q0 = begin >> 2;
    Four<VT> w;
    Four<std::uint16_t> c;
    load_step(q0, end, w, c);
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    for (;;) {
      const bool done = q0 + kSlots >= ((end + 3) >> 2);
      const bool more = !done || piece + 1 < n_pieces;
      const int q_next = done ? (next_begin >> 2) : q0 + kSlots;
      Four<VT> wn;
      Four<std::uint16_t> cn;
      if (more) load_step(q_next, done ? next_end : end, wn, cn);
      int after_begin = next_begin, after_end = next_end;
      if (done && piece + 2 < n_pieces) bounds_of(piece + 2, after_begin, after_end);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int idx = (q0 + slot) * 4 + i;
        if (idx >= begin && idx < end && in_batch) {
          const float wi = to_acc<float>(w.v[i]);
          const Four<VT> xv = load_four_cached(x + static_cast<int>(c.v[i]) * ldx);
          a0 = fmaf(wi, to_acc<float>(xv.v[0]), a0);
          a1 = fmaf(wi, to_acc<float>(xv.v[1]), a1);
          a2 = fmaf(wi, to_acc<float>(xv.v[2]), a2);
          a3 = fmaf(wi, to_acc<float>(xv.v[3]), a3);
        }
      }
      if (done) {
#pragma unroll
        for (int off = kLanesPerRow; off < 32; off <<= 1) {
          a0 += __shfl_xor_sync(0xffffffffu, a0, off);
          a1 += __shfl_xor_sync(0xffffffffu, a1, off);
          a2 += __shfl_xor_sync(0xffffffffu, a2, off);
          a3 += __shfl_xor_sync(0xffffffffu, a3, off);
        }
        if (slot == 0) {
          const int rr = piece % nr;
          float4 v = make_float4(a0, a1, a2, a3);
          if (piece >= nr) {   // a later slab of the row
            const float4 o = sums[wib][rr][lb];
            v = make_float4(o.x + v.x, o.y + v.y, o.z + v.z, o.w + v.w);
          }
          sums[wib][rr][lb] = v;
        }
        if (!more) break;
        a0 = a1 = a2 = a3 = 0.f;
        ++piece;
        begin = next_begin;
        end = next_end;
        next_begin = after_begin;
        next_end = after_end;
      }
      q0 = q_next;
      w = wn;
      c = cn;
    }
    __syncwarp();
    // The range's rows, from shared memory to Y'.
    for (int i = lane; i < nr * kLanesPerRow; i += 32) {
      const int rr = i / kLanesPerRow, l = i % kLanesPerRow, b = tile0 + 4 * l;
      if (b >= p.batch) continue;
      const float4 v = sums[wib][rr][l];
      store_four<VT, kVectorStore>(p, r_begin + rr, b, v.x, v.y, v.z, v.w);
    }
    __syncwarp();
  }
}

// One row per lane group (the launcher's choice where p.one_row is set): batch tile 128, warp w of the grid owns
// row w, lane l sums batch values 4l .. 4l + 3 of the tile; batch tile 32, warp w owns rows 4w .. 4w + 3, one
// per 8-lane group. Each step takes one 4-non-zero chunk of the group's row (the next one's loads issued first)
// and gathers its four X' rows before using any, so four gathers per lane are in flight; nothing is folded
// across lanes (no shuffles: lanes may leave early). Rows the plan did not cut; n_slabs is ignored.
// Both streams go through L1 here, not past it: a chunk's line serves the next steps (16 chunks of columns, 8 of fp32
// values), and X' rows are reused from L1 now and then. The chunk loader below keeps each chunk's columns packed until
// its gathers are issued and issues the next chunk's loads after them (where the compiler unpacked the next columns
// as they were loaded, each step waited for that load before its gathers). Blocks of 256 threads (five resident per
// SM at ~49 registers), not 512. At batch 32 it beats rowrange_kernel only on plans with many rows: hence the
// dispatcher's row-count floor (row_range_one_row(), dispatch.cu). The measurements behind these choices:
// bench/results/spmm-dispatch-rules.md.
template <class VT, int BT, bool kVectorStore, bool kPackedX>
__global__ void __launch_bounds__(kRowWarpThreads, kStreamWarpsPerSm * 32 / kRowWarpThreads)
    rowrange_row_kernel(RowRangeParams p) {
  static_assert(BT == 32 || BT == 128, "batch tile 32 or 128");
  constexpr int kLanesPerRow = BT / 4, kRowsPerWarp = 32 / kLanesPerRow;
  const int lane = threadIdx.x & 31, lb = lane % kLanesPerRow;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::int64_t row64 = warp * kRowsPerWarp + lane / kLanesPerRow;
  if (row64 >= p.rows) return;
  const int row = static_cast<int>(row64);
  const int b0 = (kPackedX ? 0 : blockIdx.y * BT) + 4 * lb;
  const bool in_batch = kPackedX || b0 < p.batch;
  const unsigned ldx = kPackedX ? BT : static_cast<unsigned>(p.ldx);
  const VT* __restrict__ vals = static_cast<const VT*>(p.values);
  const VT* __restrict__ x = static_cast<const VT*>(p.x) + (in_batch ? b0 : 0);
  const std::uint16_t* __restrict__ col16 = p.col16;
  const int begin = p.bounds[row], end = p.bounds[static_cast<std::int64_t>(p.n_fine) * p.rows + row];
  const int q_end = (end + 3) >> 2, q_whole = static_cast<int>(p.nnz >> 2);   // chunks wholly in the values
  // A chunk's four 16-bit columns stay packed in a uint2 until its gathers are issued: unpacking them where
  // they are loaded made the compiler wait for the load (behind the tail test of the values) before the
  // current chunk's gathers went out.
  auto load = [&](int q, Four<VT>& w, uint2& c) {
    c = __ldg(reinterpret_cast<const uint2*>(col16) + q);   // padded by the plan: in bounds
    const std::int64_t base = std::int64_t(q) * 4;
    if (q < q_whole) {
      w = load_four_cached(vals + base);
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) w.v[i] = base + i < p.nnz ? vals[base + i] : VT{};
    }
  };
  float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
  int q = begin >> 2;
  Four<VT> w;
  uint2 c = make_uint2(0u, 0u);
  if (q < q_end) load(q, w, c);
  for (; q < q_end; ++q) {
    const unsigned cols[4] = {c.x & 0xffffu, c.x >> 16, c.y & 0xffffu, c.y >> 16};
    Four<VT> xv[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {   // this chunk's gathers first
      const bool ok = q * 4 + i >= begin && q * 4 + i < end && in_batch;
      xv[i] = ok ? load_four_cached(x + cols[i] * ldx) : Four<VT>{};
    }
    Four<VT> wn;
    uint2 cn = make_uint2(0u, 0u);
    if (q + 1 < q_end) load(q + 1, wn, cn);   // then the next chunk's loads
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if (q * 4 + i >= begin && q * 4 + i < end) {
        const float wi = to_acc<float>(w.v[i]);
        a0 = fmaf(wi, to_acc<float>(xv[i].v[0]), a0);
        a1 = fmaf(wi, to_acc<float>(xv[i].v[1]), a1);
        a2 = fmaf(wi, to_acc<float>(xv[i].v[2]), a2);
        a3 = fmaf(wi, to_acc<float>(xv[i].v[3]), a3);
      }
    }
    w = wn;
    c = cn;
  }
  if (in_batch) store_four<VT, kVectorStore>(p, row, b0, a0, a1, a2, a3);
}

}  // namespace snk::cuda
