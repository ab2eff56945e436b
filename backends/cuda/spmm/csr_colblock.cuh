// spmm/csr_colblock.cuh: the column-block SpMM kernels (plus_times, fp32/fp16/bf16; deterministic).
//
// With a batch of 8 or more, a row-segment kernel gathers a whole row of X (BT values) from L2 for every
// non-zero, and those gathers, not the stream of W, bound it. Here X is cut into blocks of block_cols
// columns; a thread block owns rows_per_cta rows of W and a range of column blocks, stages each block of
// X (block_cols x BT values of the batch tile) in shared memory with cp.async, double-buffered (the next
// block loads while this one is used; or, in the wide kernel where X' rows are one tile apart, by bulk
// copies into two or three stages with no thread-block barrier per block, see colblock_wide_kernel), and
// walks the segment of each of its rows that falls in the block
// (offsets precomputed by the plan), so every gather of an X row is a shared-memory read. At the end the
// block writes its rows of Y, or, when several blocks share a row range over disjoint column ranges, a
// partial tile that a fold kernel sums in range order; either way the result is bitwise identical run to
// run. Two kernels, by batch tile:
//   - colblock_kernel (batch tile 8): lanes across non-zeros, each lane all eight batch values, the sparse
//     stream two steps ahead across the warp's rows, row sums in shared memory (each row belongs to one
//     warp: no atomics), X double-buffered over a thread block's range of column blocks;
//   - colblock_held_kernel (batch tile 8, one column block per thread block, staged once and held for the
//     whole call; what the dispatcher runs at batch 2-8 where rows' pieces are long, the blocks as wide as
//     shared memory allows, the columns split over them): the same walk, each row's folded sums written
//     straight from the lanes;
//   - colblock_wide_kernel (batch tiles 32 and 128): row sums in registers, each warp's rows' non-zeros
//     staged as (value, offset) pairs in shared memory and read as broadcasts (see below); its rows in plain
//     order or in the plan's balanced order (row_balance.hpp: equal work per thread block and per warp).
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
  bool bound_layout = false;     // col16 / values are the plan's bound copy (colblock_held_kernel only): columns
                                 // relative to their block's first, both arrays padded past nnz
  float* partial = nullptr;      // [splits][rows][partial_ld] when the column blocks are split (else null)
  std::int64_t partial_ld = 0;
  int stages = 2;                // X stages (the launcher sets it): 1 (held kernel), 2, or 2-3 (bulk copies)
  std::size_t shared_limit = 0;  // the device's opt-in shared memory per thread block (Plan::Impl)
  // colblock_wide_kernel (batch tiles 32, 128): the plan's balanced row order (row_balance.hpp; colblock_row_map,
  // dispatch.cu): thread block x of column range y holds the slots [x * rows_per_cta, (x + 1) * rows_per_cta),
  // slot s being row row_map[y * map_slots + s] (-1: none). Null: slot s is row s (the last block's slots end at
  // rows).
  const int* row_map = nullptr;
  std::int64_t map_slots = 0;
};

// The row of slot s in the row map (-1: an empty slot).
__device__ __forceinline__ int colblock_row(const ColBlockParams& p, int s) {
  return p.row_map[static_cast<std::int64_t>(blockIdx.y) * p.map_slots + s];
}

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

// Starts column block c (the it-th of this thread block's range, in buffer it & 1): begins the copy of block
// c + 1 into the other buffer, waits for block c's, and synchronizes the thread block. Each block's work ends
// with __syncthreads, so the other buffer is free when the next call refills it.
template <class VT, int BT>
__device__ __forceinline__ void colblock_begin(const ColBlockParams& p, VT* tiles, int c, int it, int c_end, int b0) {
  if (c + 1 < c_end) {
    colblock_stage<VT, BT>(p, tiles + ((it + 1) & 1) * p.block_cols * BT, c + 1, b0);
    cp_async_commit();
    cp_async_wait<1>();
  } else {
    cp_async_wait<0>();
  }
  __syncthreads();
}

// Row r's segment [S, E) of W in column block c (the plan's offsets at fine-block granularity).
__device__ __forceinline__ void colblock_segment(const ColBlockParams& p, int c, int r, int& S, int& E) {
  const int f0 = c * p.ratio, f1 = min((c + 1) * p.ratio, p.n_fine);
  S = p.bounds[static_cast<std::int64_t>(f0) * p.rows + r];
  E = p.bounds[static_cast<std::int64_t>(f1) * p.rows + r];
}

// The four staged X values at src, as floats.
template <class VT>
__device__ __forceinline__ void colblock_load_x(const VT* src, float (&x)[4]) {
  Four<VT> xv;
  if constexpr (sizeof(VT) == 4) {
    const float4 f = *reinterpret_cast<const float4*>(src);
    memcpy(&xv, &f, 16);
  } else {
    const uint2 h = *reinterpret_cast<const uint2*>(src);
    memcpy(&xv, &h, 8);
  }
#pragma unroll
  for (int t = 0; t < 4; ++t) x[t] = to_acc<float>(xv.v[t]);
}

// The four staged X values at shared-memory address addr (32-bit, as shared_address gives), as floats.
template <class VT>
__device__ __forceinline__ void colblock_load_x_at(unsigned addr, float (&x)[4]) {
  Four<VT> xv;
  if constexpr (sizeof(VT) == 4) {
    uint4 f;
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(f.x), "=r"(f.y), "=r"(f.z), "=r"(f.w) : "r"(addr));
    memcpy(&xv, &f, 16);
  } else {
    uint2 h;
    asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(h.x), "=r"(h.y) : "r"(addr));
    memcpy(&xv, &h, 8);
  }
#pragma unroll
  for (int t = 0; t < 4; ++t) x[t] = to_acc<float>(xv.v[t]);
}

// Row r, batch column b of this thread block's result: straight into Y, or, when the column blocks are
// split over several thread blocks, into this range's partial tile (folded in range order by
// fold_column_ranges_kernel, column_ranges.cuh).
template <class VT>
__device__ __forceinline__ void colblock_store(const ColBlockParams& p, int r, int b, float v) {
  if (p.partial) {
    p.partial[(static_cast<std::int64_t>(blockIdx.y) * p.rows + r) * p.partial_ld + b] = v;
  } else {
    *(static_cast<VT*>(p.y) + static_cast<std::int64_t>(r) * p.ys_row + static_cast<std::int64_t>(b) * p.ys_col) =
        from_acc<VT>(v);
  }
}

// Batch tile 8 (colblock_kernel): lanes across non-zeros, each lane all eight batch values of its
// non-zeros. A warp takes the rows rl = warp, warp + 32, ... of the block's range; in each column block it
// walks their segments ("pieces") one after another as one stream of steps: in a step each lane loads
// one chunk of four non-zeros of the piece (a warp step covers 128 consecutive non-zeros, one coalesced
// 16-byte value load and 8-byte column load per lane), and the chunks of the next kColBlockAhead steps are
// in flight while this one is used (also across pieces: a piece's bounds are fetched a piece ahead). For each
// non-zero the lane reads its X row (8 values, two 16-byte shared loads; lanes of odd index read the halves
// in the other order, so that half of a quarter-warp reads each half and a load's lanes spread over more
// banks) and does eight FMAs. At the end of a piece the 32 lanes' eight sums are folded by a transposing
// butterfly (9 shuffles), and the four lanes that hold one batch column each add it to the row's shared
// sum (a row belongs to one warp: no atomics, a fixed order). Lanes across non-zeros, not across the batch with
// non-zeros handed round by shuffles: the choice is measured, as is the share of the time that shared-memory bank
// conflicts of the random X rows take (bench/results/spmm-dispatch-rules.md).
constexpr int kColBlockAhead = 2;

// The fold at the end of a row piece (batch tile 8, lanes across non-zeros): a lane's eight sums a[] (odd lanes
// hold the X row's halves in the other order) summed over the warp by a transposing butterfly of 9 shuffles.
// Returns the total of batch column col for the lanes with lane % 4 == 0 (col = 4 b4 + 2 b3 + b2 from the
// lane's bits 4, 3, 2); the order of the additions is fixed, so the result is bitwise repeatable.
__device__ __forceinline__ float colblock_fold8(const float (&a)[8], int lane, int& col) {
  constexpr unsigned kAll = 0xffffffffu;
  const int h0 = lane & 1;
  float b[8];
#pragma unroll
  for (int v = 0; v < 4; ++v) {   // undo the odd lanes' half order: b[v] is batch column v
    b[v] = h0 ? a[v + 4] : a[v];
    b[v + 4] = h0 ? a[v] : a[v + 4];
  }
  const int b4 = (lane >> 4) & 1, b3 = (lane >> 3) & 1, b2 = (lane >> 2) & 1;
  float f4[4], f2[2];
#pragma unroll
  for (int v = 0; v < 4; ++v)   // lanes keep batch columns 4 * b4 + v
    f4[v] = (b4 ? b[v + 4] : b[v]) + __shfl_xor_sync(kAll, b4 ? b[v] : b[v + 4], 16);
#pragma unroll
  for (int v = 0; v < 2; ++v)   // 4 * b4 + 2 * b3 + v
    f2[v] = (b3 ? f4[v + 2] : f4[v]) + __shfl_xor_sync(kAll, b3 ? f4[v] : f4[v + 2], 8);
  float f = (b2 ? f2[1] : f2[0]) + __shfl_xor_sync(kAll, b2 ? f2[0] : f2[1], 4);   // 4 b4 + 2 b3 + b2
  f += __shfl_xor_sync(kAll, f, 2);
  f += __shfl_xor_sync(kAll, f, 1);
  col = 4 * b4 + 2 * b3 + b2;
  return f;
}

// One step of a batch-tile-8 walk as a lane holds it: its chunk of four non-zeros of W (values w, 16-bit columns
// cc), which of the four lie in the step's segment (mask, set when the step is issued, so the summing needs no
// bounds: two registers fewer per step than bounds), and the step's tag (the piece or the row it belongs to).
template <class VT>
struct ColBlockStep {
  Four<VT> w;
  Four<std::uint16_t> cc;
  int tag;
  unsigned mask;   // bit j: non-zero j of the chunk lies in the step's segment
};

// A warp's walk over its rows row, row + stride, ... (< end) in column block c as a stream of steps: each issue()
// fills one step (tag: the row) with the lane's chunk of the next 32 chunks of the current row's segment, moving
// to the next row when the segment is done; the next row's segment bounds are fetched a row ahead. Shared by
// colblock_kernel and colblock_held_kernel.
template <class VT, bool kPadded = false>
struct ColBlockWalk {
  int c, stride, end;
  int row, S, E, q;   // the step to issue next: row, its segment [S, E), from chunk q
  int arow, aS, aE;   // the row after it and its segment

  __device__ __forceinline__ ColBlockWalk(const ColBlockParams& p, int c_, int first, int stride_, int end_)
      : c(c_), stride(stride_), end(end_), row(first), S(0), E(0), arow(first + stride_), aS(0), aE(0) {
    if (row < end) colblock_segment(p, c, row, S, E);
    q = S >> 2;
    if (arow < end) colblock_segment(p, c, arow, aS, aE);
  }

  __device__ __forceinline__ void issue(const ColBlockParams& p, const VT* vals, int lane, ColBlockStep<VT>& st) {
    st.tag = row;
    st.mask = 0;
    if (row >= end) return;
    const int k = q + lane;
    if (4 * k < E) {
      if constexpr (kPadded) {   // no chunk reads past the padded arrays
        st.cc = load_four_stream(p.col16 + 4 * k);
        st.w = load_four_stream(vals + 4 * k);
      } else {
        load_chunk(vals, p.col16, p.nnz, std::int64_t(k) * 4, st.w, st.cc);
      }
      // 4k >= 4q >= S - 3 and 4k < E: the chunk's non-zeros from max(S - 4k, 0) to min(E - 4k, 4)
      st.mask = ((1u << min(E - 4 * k, 4)) - 1u) & ~((1u << max(S - 4 * k, 0)) - 1u);
    }
    if (4 * (q + 32) < E) {
      q += 32;
    } else {   // the next row; fetch the bounds of the one after it
      row = arow;
      S = aS;
      E = aE;
      q = S >> 2;
      arow = row + stride;
      if (arow < end) colblock_segment(p, c, arow, aS, aE);
    }
  }
};

// The non-zeros of the lane's chunk that lie in the step's segment (st.mask), each adding
// its value times its X row to a[] (the row's two halves as load_halves(column, first, second) reads them, in the
// lane's order). Shared by colblock_kernel and colblock_held_kernel, which address the staged X' differently.
template <class VT, class LoadHalves>
__device__ __forceinline__ void colblock_chunk8(float (&a)[8], const ColBlockStep<VT>& st, LoadHalves&& load_halves) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if (st.mask & (1u << j)) {
      const float wj = to_acc<float>(st.w.v[j]);
      float xa[4], xb[4];
      load_halves(st.cc.v[j], xa, xb);
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        a[v] = fmaf(wj, xa[v], a[v]);
        a[v + 4] = fmaf(wj, xb[v], a[v + 4]);
      }
    }
  }
}

// Two X stages, double-buffered over the thread block's column blocks (one block per thread block:
// colblock_held_kernel).
template <class VT, int BT>
__global__ void __launch_bounds__(1024, 1) colblock_kernel(ColBlockParams p) {
  static_assert(BT == 8, "batch tile 8 (32 and 128: colblock_wide_kernel)");
  constexpr int D = kColBlockAhead;
  extern __shared__ uint4 colblock_smem[];
  VT* tiles = reinterpret_cast<VT*>(colblock_smem);
  constexpr int stages = 2;
  float* acc_s = reinterpret_cast<float*>(tiles + stages * p.block_cols * BT);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n_warps = blockDim.x >> 5;
  const int h0 = lane & 1;   // which half of an X row this lane reads first
  const int r0 = blockIdx.x * p.rows_per_cta;
  const int nr = min(p.rows_per_cta, p.rows - r0);
  const int c_begin = blockIdx.y * p.blocks_per_cta;
  const int c_end = min(p.n_blocks, c_begin + p.blocks_per_cta);
  const int b0 = blockIdx.z * BT;
  const VT* vals = static_cast<const VT*>(p.values);

  for (int t = threadIdx.x; t < nr * BT; t += blockDim.x) acc_s[t] = 0.0f;
  if (c_begin < c_end) colblock_stage<VT, BT>(p, tiles, c_begin, b0);
  cp_async_commit();

  for (int c = c_begin, it = 0; c < c_end; ++c, ++it) {
    colblock_begin<VT, BT>(p, tiles, c, it, c_end, b0);
    const VT* tile = tiles + (it & 1) * p.block_cols * BT;
    const int first = 4 * h0, second = 4 * (1 - h0);   // values of X' row offsets of the halves, lane's order
    const unsigned cbase = static_cast<unsigned>(c * p.block_cols) & 0xffffu;

    // The step stream: st[i] is the i-th step ahead (tag: its row).
    ColBlockStep<VT> st[D + 1];
    ColBlockWalk<VT> walk(p, c, r0 + warp, n_warps, r0 + nr);
#pragma unroll
    for (int i = 0; i < D; ++i) walk.issue(p, vals, lane, st[i]);
    float a[BT];
#pragma unroll
    for (int v = 0; v < BT; ++v) a[v] = 0.0f;
    while (st[0].tag < r0 + nr) {
      walk.issue(p, vals, lane, st[D]);
      colblock_chunk8(a, st[0], [&](std::uint16_t col, float (&xa)[4], float (&xb)[4]) {
        const VT* xr = tile + ((static_cast<unsigned>(col) - cbase) & 0xffffu) * BT;
        colblock_load_x(xr + first, xa);
        colblock_load_x(xr + second, xb);
      });
      if (st[1].tag != st[0].tag) {   // the piece ends: fold the lanes' sums into the row's
        int col;
        const float f = colblock_fold8(a, lane, col);
        if ((lane & 3) == 0) acc_s[(st[0].tag - r0) * BT + col] += f;
#pragma unroll
        for (int v = 0; v < BT; ++v) a[v] = 0.0f;
      }
#pragma unroll
      for (int i = 0; i < D; ++i) st[i] = st[i + 1];
    }
    __syncthreads();
  }

  for (int t = threadIdx.x; t < nr * BT; t += blockDim.x)
    if (b0 + t % BT < p.batch) colblock_store<VT>(p, r0 + t / BT, b0 + t % BT, acc_s[t]);
}

// colblock_held_kernel (batch tile 8, one column block per thread block, held for the whole call): the same
// lanes-across-non-zeros walk as colblock_kernel, laid out for that case: a row has exactly one piece per thread
// block, so each piece's folded sums go straight to Y (or to the block's partial tile) from the lanes that hold
// them, with no shared row sums (the same walk over the warp's rows, ColBlockWalk, and the same summation
// order); faster than colblock_kernel's one-stage walk. At the 64-register bound of 1024 threads the compiler
// rebuilt the shared base, the block's first column and the lane's half offset for every non-zero (SASS); they are
// held in registers it cannot rebuild (below). kBound: it reads the plan's bound copy
// (ColBlockParams::bound_layout), whose columns are relative to the block's first, so a staged X' row's address is
// one multiply-add from the column, and whose arrays are padded, so the chunk loads need no bounds test. The
// measurements behind each of these: bench/results/spmm-dispatch-rules.md.
template <class VT, bool kBound>
__global__ void __launch_bounds__(1024, 1) colblock_held_kernel(ColBlockParams p) {
  constexpr int BT = 8, D = kColBlockAhead;
  constexpr unsigned kRowBytes = BT * sizeof(VT), kHalfBytes = kRowBytes / 2;
  extern __shared__ uint4 colblock_smem[];
  VT* tile = reinterpret_cast<VT*>(colblock_smem);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n_warps = blockDim.x >> 5;
  const int r0 = blockIdx.x * p.rows_per_cta;
  const int r1 = min(p.rows, r0 + p.rows_per_cta);
  const int c = blockIdx.y;   // p.blocks_per_cta == 1
  const int b0 = blockIdx.z * BT;
  if (c < p.n_blocks) colblock_stage<VT, BT>(p, tile, c, b0);
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();
  const int row = r0 + warp;
  if (c >= p.n_blocks || row >= r1) return;

  const VT* vals = static_cast<const VT*>(p.values);
  const unsigned cbase = static_cast<unsigned>(c * p.block_cols) & 0xffffu;
  const int h0 = lane & 1;   // which half of an X row this lane reads first
  // The shared addresses of the halves of X row 0 in the order this lane reads them, and the block's first
  // column, held in registers (opaque to the compiler, which otherwise rebuilt them for every non-zero at the
  // register bound).
  unsigned xfirst = shared_address(tile) + kHalfBytes * h0, xsecond = shared_address(tile) + kHalfBytes * (1 - h0);
  unsigned cfirst = cbase;
  asm volatile("" : "+r"(xfirst), "+r"(xsecond), "+r"(cfirst));

  // The step stream: st[i] is the i-th step ahead (tag: its row).
  ColBlockStep<VT> st[D + 1];
  ColBlockWalk<VT, kBound> walk(p, c, row, n_warps, r1);
#pragma unroll
  for (int i = 0; i < D; ++i) walk.issue(p, vals, lane, st[i]);
  float a[BT];
#pragma unroll
  for (int v = 0; v < BT; ++v) a[v] = 0.0f;
  while (st[0].tag < r1) {
    walk.issue(p, vals, lane, st[D]);
    colblock_chunk8(a, st[0], [&](std::uint16_t col, float (&xa)[4], float (&xb)[4]) {
      const unsigned off =
          (kBound ? static_cast<unsigned>(col) : ((static_cast<unsigned>(col) - cfirst) & 0xffffu)) * kRowBytes;
      colblock_load_x_at<VT>(xfirst + off, xa);
      colblock_load_x_at<VT>(xsecond + off, xb);
    });
    if (st[1].tag != st[0].tag) {   // the row ends: fold the lanes' sums, as in colblock_kernel
      int col;
      const float f = colblock_fold8(a, lane, col);
      const int bc = b0 + col;
      if ((lane & 3) == 0 && bc < p.batch) colblock_store<VT>(p, st[0].tag, bc, f);
#pragma unroll
      for (int v = 0; v < BT; ++v) a[v] = 0.0f;
    }
#pragma unroll
    for (int i = 0; i < D; ++i) st[i] = st[i + 1];
  }
}

// Batch tiles 32 and 128 (colblock_wide_kernel): a warp owns up to kColBlockRowsPerWarp rows of the thread block's
// rows_per_cta <= 32 x kColBlockRowsPerWarp (row warp + 32 i) and keeps their sums in registers across all of its
// column blocks: no shared row sums, no read-modify-write per block. Its lanes form G = 128 / BT groups of BT / 4
// lanes (four batch values per lane), each group working on one of the rows at a time (batch 128: one group, the
// four rows in turn; batch 32: four groups, one row each). In each column block the warp's rows' segments are taken
// as one concatenated run of non-zeros: the lanes load it at once (up to colblock_pairs_per_lane non-zeros each,
// coalesced), turn each column into the byte offset of its row in the staged tile, and leave the (value, offset)
// pairs in the warp's slice of shared memory; each group then reads its row's pairs as broadcasts, two pairs per
// 16-byte load, and its four values of each X row: one and a half shared loads and four FMAs per non-zero per lane.
// The run of the next column block is loaded into registers while this one is computed (its segment bounds are
// fetched a block earlier still), so the sparse stream's latency hides behind the shared-memory work.
// (Not colblock_kernel's hand-round by shuffles: that is issue-bound at batch 128, measured in
// bench/results/spmm-dispatch-rules.md.)
// Each row's sum runs in column order: results are bitwise identical run to run.
constexpr int kColBlockRowsPerWarp = 4;
// Non-zeros each lane loads of a warp's run per column block (ColumnBlockConfig::pairs_per_lane; the run
// holds up to 32 x that at once): 4, or 8 at batch tile 32 when a run would not fit in 128 (its four rows
// run in parallel, and a run cut in parts leaves some of them idle; more costs registers and shared
// memory, so 8 only where needed).
inline int colblock_pairs_per_lane(int bt, int requested) { return bt == 32 && requested == 8 ? 8 : 4; }

// Dynamic shared memory of a column-block launch: the X stages (two; one for colblock_held_kernel;
// `stages` for the bulk-copy variant), then the row sums (colblock_kernel; colblock_held_kernel has none) or
// each warp's (value, offset) pairs (colblock_wide_kernel, batch tiles 32 and 128), then (bulk copies) one
// mbarrier and one counter per stage.
inline bool colblock_wide(int bt) { return bt == 32 || bt == 128; }
// Whether a launch runs colblock_held_kernel: batch tile 8 with one column block per thread block, staged
// once into one stage (else colblock_kernel, two stages, double-buffered; the bulk-copy variant sets its own).
inline bool colblock_one_block(int bt, int blocks_per_cta) { return bt == 8 && blocks_per_cta == 1; }
inline int colblock_stages(int bt, int blocks_per_cta) { return colblock_one_block(bt, blocks_per_cta) ? 1 : 2; }
inline std::size_t colblock_shared_bytes(int bt, int block_cols, int rows_per_cta, int pairs_per_lane,
                                         std::size_t value_size, int stages = 2, bool bulk = false) {
  const std::size_t x = std::size_t(stages) * block_cols * bt * value_size;
  const std::size_t sums = stages == 1 ? 0 : std::size_t(rows_per_cta) * bt * 4;   // bt 8, one stage: held kernel
  return x + (colblock_wide(bt) ? std::size_t(kColBlockThreads) * colblock_pairs_per_lane(bt, pairs_per_lane) * 8
                                : sums) +
         (bulk ? std::size_t(stages) * 16 : 0);
}

// The warp's run in one column block: row i's segment is the run's [o[i], o[i + 1]) (o[0] = 0), found in W
// at d[i] + (position in the run).
template <int R>
struct ColBlockRun {
  int d[R];
  int o[R + 1];
};

// colblock_wide_kernel<..., kBulk> (X' rows of the tile contiguous: ldx == BT, one batch tile): the stages, p.stages
// of them, are filled by bulk copies (one per block of X, completing on the stage's mbarrier) instead of cp.async by
// every thread, and there is no thread-block barrier per block: each warp waits for its block's stage, and the last
// warp done with a stage (a counter per stage) starts the copy of the block p.stages later into it. Warps thus run
// up to p.stages - 1 blocks apart, so a block's slowest warp (its rows' segments in the block are longest) no longer
// holds the others at every block.
//
// kMap: the rows in the plan's balanced order (p.row_map); else slot s is row s (a template argument, not a test
// of p.row_map: the run-time test's few extra instructions cost time with no map;
// bench/results/spmm-dispatch-rules.md).
template <class VT, int BT, int K, bool kBulk, bool kMap>
__global__ void __launch_bounds__(1024, 1) colblock_wide_kernel(ColBlockParams p) {
  static_assert(BT == 32 || BT == 128, "batch tile 32 or 128");
  static_assert(K == 4 || K == 8, "4 or 8 non-zeros per lane");
  constexpr int R = kColBlockRowsPerWarp, kCap = 32 * K;
  constexpr int L = BT / 4, G = 32 / L, RG = R / G;   // lanes per row, rows at a time, rows per group
  static_assert(R % G == 0, "the warp's rows split evenly over its groups");
  constexpr unsigned kAll = 0xffffffffu;
  extern __shared__ uint4 colblock_smem[];
  VT* tiles = reinterpret_cast<VT*>(colblock_smem);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n_warps = blockDim.x >> 5;
  const int grp = lane / L, l4 = lane % L;
  const int stages = kBulk ? p.stages : 2;
  int2* pairs = reinterpret_cast<int2*>(tiles + stages * p.block_cols * BT) + warp * kCap;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(reinterpret_cast<int2*>(tiles + stages * p.block_cols * BT) +
                                                         n_warps * kCap);   // kBulk: [stages]
  int* done = reinterpret_cast<int*>(full + stages);                          // kBulk: [stages]
  const int r0 = blockIdx.x * p.rows_per_cta;
  const int nr = kMap ? p.rows_per_cta : min(p.rows_per_cta, p.rows - r0);
  const int c_begin = blockIdx.y * p.blocks_per_cta;
  const int c_end = min(p.n_blocks, c_begin + p.blocks_per_cta);
  const int b0 = blockIdx.z * BT;
  const VT* vals = static_cast<const VT*>(p.values);

  // Lane i < R: the segment [S, E) of the row in slot warp + 32 i (kMap: my_row, -1 for none) in column block c
  // (empty past the range).
  int my_row = -1;
  if (kMap && lane < R && warp + n_warps * lane < nr) my_row = colblock_row(p, r0 + warp + n_warps * lane);
  auto bounds_of = [&](int c, int& S, int& E) {
    S = E = 0;
    if constexpr (kMap) {
      if (c < c_end && my_row >= 0) colblock_segment(p, c, my_row, S, E);
    } else if (c < c_end && lane < R && warp + n_warps * lane < nr) {
      colblock_segment(p, c, r0 + warp + n_warps * lane, S, E);
    }
  };
  auto run_of = [&](int S, int E) {
    ColBlockRun<R> run;
    run.o[0] = 0;
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int si = __shfl_sync(kAll, S, i);
      run.d[i] = si - run.o[i];
      run.o[i + 1] = run.o[i] + (__shfl_sync(kAll, E, i) - si);
    }
    return run;
  };
  // Registers: non-zeros g0 + 32 u + lane of block c's run (value, byte offset of the X row in the tile).
  float wr[K];
  int kr[K];
  auto load_run = [&](int c, const ColBlockRun<R>& run, int g0) {
    const unsigned cbase = static_cast<unsigned>(c * p.block_cols) & 0xffffu;
#pragma unroll
    for (int u = 0; u < K; ++u) {
      const int g = g0 + 32 * u + lane;
      if (g < run.o[R]) {
        int d = run.d[0];
#pragma unroll
        for (int i = 1; i < R; ++i)
          if (g >= run.o[i]) d = run.d[i];
        const int q = d + g;
        wr[u] = to_acc<float>(vals[q]);
        kr[u] = static_cast<int>(((static_cast<unsigned>(p.col16[q]) - cbase) & 0xffffu) * (BT * sizeof(VT)));
      }
    }
  };

  float acc[RG][4];   // the group's rows r * G + grp
#pragma unroll
  for (int r = 0; r < RG; ++r) acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = 0.0f;

  // kBulk: block c of X into stage buf (the tile's rows are contiguous in X').
  auto issue = [&](int c, int buf) {
    const int k0 = c * p.block_cols;
    const unsigned bytes = static_cast<unsigned>(min(p.block_cols, p.cols - k0)) * BT * sizeof(VT);
    bulk_copy_to_shared(tiles + buf * p.block_cols * BT, static_cast<const VT*>(p.x) + std::int64_t(k0) * BT, bytes,
                        &full[buf]);
  };
  if constexpr (kBulk) {
    if (threadIdx.x == 0) {
      for (int i = 0; i < stages; ++i) {
        mbarrier_init(&full[i], 1);
        done[i] = 0;
      }
      mbarrier_init_fence();
    }
    __syncthreads();
    if (threadIdx.x == 0)
      for (int i = 0; i < stages && c_begin + i < c_end; ++i) issue(c_begin + i, i);
  }

  int S, E;
  bounds_of(c_begin, S, E);
  ColBlockRun<R> cur = run_of(S, E);
  bounds_of(c_begin + 1, S, E);   // S, E: always the bounds of the block after the current one
  if (c_begin < c_end) {
    load_run(c_begin, cur, 0);
    if constexpr (!kBulk) colblock_stage<VT, BT>(p, tiles, c_begin, b0);
  }
  if constexpr (!kBulk) cp_async_commit();

  for (int c = c_begin, it = 0; c < c_end; ++c, ++it) {
    const int buf = kBulk ? it % stages : it & 1;
    if constexpr (kBulk) mbarrier_wait(&full[buf], static_cast<unsigned>(it / stages) & 1u);
    else colblock_begin<VT, BT>(p, tiles, c, it, c_end, b0);
    ColBlockRun<R> next;   // block c + 1's run, made when its loads are issued
    const char* tile = reinterpret_cast<const char*>(tiles + buf * p.block_cols * BT + l4 * 4);
    const int total = cur.o[R];
    for (int g0 = 0; g0 < total; g0 += kCap) {
#pragma unroll
      for (int u = 0; u < K; ++u)
        if (g0 + 32 * u + lane < total) pairs[32 * u + lane] = make_int2(__float_as_int(wr[u]), kr[u]);
      __syncwarp();
      if (g0 + kCap < total) {
        load_run(c, cur, g0 + kCap);   // a longer run: its next part
      } else if (c + 1 < c_end) {      // the next block's run, loading while this one computes
        next = run_of(S, E);
        bounds_of(c + 2, S, E);
        load_run(c + 1, next, 0);
      }
#pragma unroll
      for (int r = 0; r < RG; ++r) {
        int lo = cur.o[r * G], hi = cur.o[r * G + 1];   // this group's row in the run
#pragma unroll
        for (int gg = 1; gg < G; ++gg)
          if (grp == gg) lo = cur.o[r * G + gg], hi = cur.o[r * G + gg + 1];
        const int t1 = min(hi, g0 + kCap) - g0;
        int t = max(lo, g0) - g0;
        auto use = [&](int w_bits, int offset) {
          float x[4];
          colblock_load_x(reinterpret_cast<const VT*>(tile + offset), x);
          const float w = __int_as_float(w_bits);
#pragma unroll
          for (int v = 0; v < 4; ++v) acc[r][v] = fmaf(w, x[v], acc[r][v]);
        };
        if ((t & 1) && t < t1) {   // to an even pair: then two pairs per 16-byte shared load
          const int2 q = pairs[t];
          use(q.x, q.y);
          ++t;
        }
#pragma unroll 2
        for (; t + 1 < t1; t += 2) {
          const int4 q = reinterpret_cast<const int4*>(pairs)[t >> 1];
          use(q.x, q.y);
          use(q.z, q.w);
        }
        if (t < t1) {
          const int2 q = pairs[t];
          use(q.x, q.y);
        }
      }
      __syncwarp();
    }
    if (total == 0) {
      next = run_of(S, E);
      bounds_of(c + 2, S, E);
      if (c + 1 < c_end) load_run(c + 1, next, 0);
    }
    cur = next;
    if constexpr (kBulk) {
      __syncwarp();
      if (lane == 0) {   // the last warp done with this stage refills it
        __threadfence_block();   // release: this warp's reads of the stage (ordered before by __syncwarp)
        if (atomicAdd(&done[buf], 1) == n_warps - 1) {
          __threadfence_block();   // acquire: every other warp's release
          done[buf] = 0;
          if (c + stages < c_end) {
            async_proxy_fence();
            issue(c + stages, buf);
          }
        }
      }
    } else {
      __syncthreads();
    }
  }

#pragma unroll
  for (int r = 0; r < RG; ++r) {
    const int rl = warp + n_warps * (r * G + grp);
    if (rl >= nr) continue;
    const int row = kMap ? colblock_row(p, r0 + rl) : r0 + rl;
    if (kMap && row < 0) continue;
#pragma unroll
    for (int v = 0; v < 4; ++v)
      if (b0 + l4 * 4 + v < p.batch) colblock_store<VT>(p, row, b0 + l4 * 4 + v, acc[r][v]);
  }
}

}  // namespace snk::cuda
