// spmm/csr_rowseg.cuh: the row-segment SpMM kernel (deterministic; any semiring; batch 1 is SpMV).
//
// The plan cuts every row of W into segments of at most L non-zeros (and at 65536-column boundaries, so a
// 16-bit column offset plus a per-segment base addresses X). A group of G lanes (G = 8 or 32, by the
// average row length) owns one segment at a time: each lane streams chunks of four consecutive non-zeros
// (one 16-byte load of fp32 values, one 8-byte load of four 16-bit columns), gathers the rows of X they
// select (BT values of the batch per row, 4 at a time, through L1) and keeps BT accumulators in
// registers (the batch register tile; grid.y walks the batch in tiles of BT). The group then reduces its
// lanes with shuffles in a fixed order and writes the row of Y, or, for a row cut into several segments,
// a partial row that the fix-up kernel folds in segment order. No atomics anywhere, so the result is
// bitwise identical run to run and any monoid works. Long rows being cut into bounded segments is what
// balances skewed patterns (one row holding most of the non-zeros runs on many groups).
// Batch 1 with 32 lanes runs rowseg_stream_kernel instead: the same segments, lanes and order of additions,
// but each warp owns a contiguous range of segments (balanced by non-zeros when the plan is built) and
// issues the loads of its next segment before it finishes the current one, so the stream of W never
// stalls on a segment's start (row descriptor, then first chunks: two memory latencies per row). Where rows
// are long (Choice::windows) rowseg_window_kernel walks the same ranges in full windows of 256 non-zeros that
// run across segment boundaries instead of stopping at each segment's end.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>

#include <cuda_runtime.h>

#include "spmm/carveout.cuh"
#include "spmm/loads.cuh"
#include "spmm/plan_impl.hpp"
#include "spmm/semiring.cuh"

namespace snk::cuda {

struct RowSegParams {
  const int4* items = nullptr;          // {row, begin, end, slot}; slot < 0: the segment is the whole row
  std::int64_t n_items = 0;
  const int* item_colbase = nullptr;    // per-item column base (only when cols > 65536)
  const std::uint16_t* col16 = nullptr; // packed columns (col & 0xffff), padded by 8 entries
  const void* values = nullptr;         // nnz values of W
  std::int64_t nnz = 0;
  const void* x = nullptr;              // X'(k, b) = x[k * ldx + b]
  std::int64_t ldx = 0;
  void* y = nullptr;                    // Y'(m, b) = y[m * ys_row + b * ys_col]
  std::int64_t ys_row = 0, ys_col = 1;
  void* partial = nullptr;              // acc_t[n_slots][batch]
  int batch = 1;
  const int4* ranges = nullptr;         // batch 1: warp ranges of items, two records each (Plan::Impl::item_ranges)
  int n_ranges = 0;
  const int2* range_spans = nullptr;    // batch 1: {first non-zero, end} of each warp range (Plan::Impl::range_spans)
  bool windows = false;                 // batch 1, 32 lanes: rowseg_window_kernel (Choice::windows: set only where
                                        // no item carries a column base), else rowseg_stream_kernel
};

template <class SR, class VT, int BT, int G>
__global__ void __launch_bounds__(256) rowseg_kernel(RowSegParams p, SR sr) {
  using A = typename SR::acc_t;
  static_assert(BT == 1 || BT % 4 == 0, "batch tile is 1 or a multiple of 4");
  constexpr int kGroupsPerWarp = 32 / G;
  const int lane = threadIdx.x & (G - 1);
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::int64_t n_warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
  const int group_in_warp = (threadIdx.x & 31) / G;
  const int b0 = blockIdx.y * BT;
  const VT* vals = static_cast<const VT*>(p.values);
  const VT* x = static_cast<const VT*>(p.x) + b0;

  for (std::int64_t first = warp * kGroupsPerWarp; first < p.n_items; first += n_warps * kGroupsPerWarp) {
    const std::int64_t it = first + group_in_warp;
    const bool valid = it < p.n_items;
    int4 item = valid ? p.items[it] : make_int4(0, 0, 0, -1);
    const int colbase = (valid && p.item_colbase) ? p.item_colbase[it] : 0;

    A acc[BT];
#pragma unroll
    for (int b = 0; b < BT; ++b) acc[b] = sr.identity();

    const int begin = item.y, end = item.z;
    const int q_end = (end + 3) >> 2;
    // Software pipeline: the chunks of the next step load while this step's are used (kDepth chunks
    // per lane per step, so up to 2 x kDepth chunk loads in flight per lane).
    constexpr int kDepth = 2;   // the depth is measured at batch 1: bench/results/spmm-dispatch-rules.md
    int q = (begin >> 2) + lane;
    Four<VT> w[kDepth];
    Four<std::uint16_t> c[kDepth];
#pragma unroll
    for (int u = 0; u < kDepth; ++u)
      if (q + u * G < q_end) load_chunk(vals, p.col16, p.nnz, std::int64_t(q + u * G) * 4, w[u], c[u]);
    while (q < q_end) {
      const int qn = q + kDepth * G;
      Four<VT> wn[kDepth];
      Four<std::uint16_t> cn[kDepth];
#pragma unroll
      for (int u = 0; u < kDepth; ++u)
        if (qn + u * G < q_end) load_chunk(vals, p.col16, p.nnz, std::int64_t(qn + u * G) * 4, wn[u], cn[u]);
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int idx = (q + u * G) * 4 + i;
          if (idx >= begin && idx < end) {
            const A wi = to_acc<A>(w[u].v[i]);
            const VT* xr = x + static_cast<std::int64_t>(colbase + c[u].v[i]) * p.ldx;
            if constexpr (BT == 1) {
              acc[0] = sr.muladd(acc[0], wi, to_acc<A>(load_one_cached(xr)));
            } else {
#pragma unroll
              for (int j = 0; j < BT / 4; ++j) {
                if (BT > 4 && b0 + 4 * j >= p.batch) break;   // past the batch: X's row may end here
                const Four<VT> xv = load_four_cached(xr + 4 * j);
#pragma unroll
                for (int t = 0; t < 4; ++t) acc[4 * j + t] = sr.muladd(acc[4 * j + t], wi, to_acc<A>(xv.v[t]));
              }
            }
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        w[u] = wn[u];
        c[u] = cn[u];
      }
      q = qn;
    }

    // Fixed-order butterfly over the group's lanes: every lane ends with the same totals.
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) {
#pragma unroll
      for (int b = 0; b < BT; ++b) acc[b] = sr.add(acc[b], shfl_xor_any(acc[b], off, G));
    }
    if (valid) {
#pragma unroll
      for (int b = 0; b < BT; ++b) {
        if (b % G == lane && b0 + b < p.batch) {
          if (item.w < 0) {
            static_cast<VT*>(p.y)[item.x * p.ys_row + (b0 + b) * p.ys_col] = from_acc<VT>(acc[b]);
          } else {
            static_cast<A*>(p.partial)[static_cast<std::int64_t>(item.w) * p.batch + b0 + b] = acc[b];
          }
        }
      }
    }
  }
}

// A warp's walk over the items of one plan range, the schedule both stream kernels share. Items are
// contiguous (item i + 1 begins where item i ends), so the end of the next item is all the next step's loads
// need; the next item's row, slot and column base are fetched as the current one finishes (fetch) and take
// effect when the walk moves on (advance). The range's record carries its first item, so streaming starts
// after one dependent load.
struct ItemWalk {
  int it = 0, it_end = 0, row = 0, slot = -1, begin = 0, end = 0, next_end = 0, base = 0;
  struct Next {
    int row = 0, slot = -1, base = 0, next_end = 0;
  };
  // Starts range r; false when it holds no item.
  __device__ __forceinline__ bool open(const RowSegParams& p, int r) {
    const int4 head = p.ranges[2 * r], first = p.ranges[2 * r + 1];
    it = head.x;
    it_end = head.y;
    row = head.z;
    slot = head.w;
    begin = first.x;
    end = first.y;
    next_end = first.z;
    base = first.w;
    return it < it_end;
  }
  // Whether a step of `step` chunks from chunk q0 finishes the current item.
  __device__ __forceinline__ bool finishes(int q0, int step) const { return q0 + step >= ((end + 3) >> 2); }
  // Whether another step follows one that finishes (done) or does not finish the current item.
  __device__ __forceinline__ bool more(bool done) const { return !done || it + 1 < it_end; }
  // First chunk and item end of the step after one from q0 of `step` chunks.
  __device__ __forceinline__ int next_q0(bool done, int q0, int step) const { return done ? (end >> 2) : q0 + step; }
  __device__ __forceinline__ int next_end_of_step(bool done) const { return done ? next_end : end; }
  // The next item's descriptor, when the current one is done and another follows.
  __device__ __forceinline__ Next fetch(const RowSegParams& p, bool done, bool more) const {
    Next n;
    n.next_end = next_end;
    if (done && more) {
      const int4 item = p.items[it + 1];
      n.row = item.x;
      n.slot = item.w;
      n.base = p.item_colbase ? p.item_colbase[it + 1] : 0;
      if (it + 2 < it_end) n.next_end = p.items[it + 2].z;
    }
    return n;
  }
  __device__ __forceinline__ void advance(const Next& n) {
    ++it;
    begin = end;
    end = next_end;
    row = n.row;
    slot = n.slot;
    base = n.base;
    next_end = n.next_end;
  }
};

// One step's chunk loads of a lane (or lane slot) of the streaming kernels: chunks q0 + first + u * stride for
// u < D, those before chunk q_end (the step's non-zeros end within chunk q_end - 1).
template <int D, class VT>
__device__ __forceinline__ void load_step_chunks(const RowSegParams& p, const VT* vals, int q0, int first, int stride,
                                                 int q_end, Four<VT>* w, Four<std::uint16_t>* c) {
#pragma unroll
  for (int u = 0; u < D; ++u)
    if (q0 + first + u * stride < q_end)
      load_chunk(vals, p.col16, p.nnz, std::int64_t(q0 + first + u * stride) * 4, w[u], c[u]);
}

// Batch 1, G = 32: warp r % n_warps streams the items of range r (p.ranges) as one pipeline. A step is up to
// kDepth chunks per lane of one item; the loads of the following step (the rest of this item or the start of
// the next) are issued before this step is used (ItemWalk). Each item is summed in the order rowseg_kernel uses with 32
// lanes (same chunks per lane, same butterfly), so the results equal that kernel's bitwise. The plan cuts
// kStreamWarpsPerSm ranges per SM, one per warp when kMinBlocks blocks of 256 are resident (the plus_times
// instantiations); where fewer are resident (the run-time semirings over 8-byte types) warps take several
// ranges in turn. X' is one contiguous vector (p.ldx = 1: the dispatcher repacks a strided one).
template <class SR, class VT, int kMinBlocks>
__global__ void __launch_bounds__(256, kMinBlocks) rowseg_stream_kernel(RowSegParams p, SR sr) {
  using A = typename SR::acc_t;
  constexpr int kDepth = 2, kStep = 32 * kDepth;
  const int lane = threadIdx.x & 31;
  const int warp = static_cast<int>((static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5);
  const int n_warps = static_cast<int>((static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5);
  const VT* vals = static_cast<const VT*>(p.values);
  const VT* x = static_cast<const VT*>(p.x);
  auto load_step = [&](int q0, int item_end, Four<VT>* w, Four<std::uint16_t>* c) {
    load_step_chunks<kDepth>(p, vals, q0, lane, 32, (item_end + 3) >> 2, w, c);
  };
  for (int r = warp; r < p.n_ranges; r += n_warps) {
    ItemWalk walk;
    if (!walk.open(p, r)) continue;
    int q0 = walk.begin >> 2;
    Four<VT> w[kDepth];
    Four<std::uint16_t> c[kDepth];
    load_step(q0, walk.end, w, c);
    A acc = sr.identity();
    for (;;) {
      const bool item_done = walk.finishes(q0, kStep);
      const bool more = walk.more(item_done);
      const int q_next = walk.next_q0(item_done, q0, kStep);
      Four<VT> wn[kDepth];
      Four<std::uint16_t> cn[kDepth];
      if (more) load_step(q_next, walk.next_end_of_step(item_done), wn, cn);
      const ItemWalk::Next next = walk.fetch(p, item_done, more);
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int idx = (q0 + lane + u * 32) * 4 + i;
          if (idx >= walk.begin && idx < walk.end) {
            acc = sr.muladd(acc, to_acc<A>(w[u].v[i]), to_acc<A>(load_one_cached(x + (walk.base + c[u].v[i]))));
          }
        }
      }
      if (item_done) {
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) acc = sr.add(acc, shfl_xor_any(acc, off, 32));
        if (lane == 0) {
          if (walk.slot < 0) static_cast<VT*>(p.y)[walk.row * p.ys_row] = from_acc<VT>(acc);
          else static_cast<A*>(p.partial)[walk.slot] = acc;
        }
        if (!more) break;
        acc = sr.identity();
        walk.advance(next);
      }
      q0 = q_next;
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        w[u] = wn[u];
        c[u] = cn[u];
      }
    }
  }
}

// Batch 1, G = 32, plans of at most 65536 columns (no per-item column base): each warp streams the non-zeros of
// its plan range in windows of 256 (two chunks of four per lane) that run across item boundaries, so every
// window but the range's first and last is full, where rowseg_stream_kernel's steps stop at each item's end (a
// row of 819 non-zeros at 16384 x 16384, 5%: four steps, the last a fifth full). The next window's loads are
// issued before this window is used. The range's item descriptors are held one per lane (32 at a time) and read
// by shuffles. A window in which no item ends is summed into the lane's accumulator directly; one in which items
// end forms each non-zero's product once, then per ending item sums the lanes' products that fall in it, reduces
// the warp (the same butterfly as rowseg_kernel) and writes the row of Y, or the partial row of a split row.
// Deterministic: each item's sum has a fixed order (by window, then lane, then position in the chunk), though
// not rowseg_kernel's (its lanes' chunks start at the item's first non-zero, here at the window's).
template <class SR, class VT, int kMinBlocks>
__global__ void __launch_bounds__(256, kMinBlocks) rowseg_window_kernel(RowSegParams p, SR sr) {
  using A = typename SR::acc_t;
  constexpr int kDepth = 2, kWindow = 32 * kDepth;   // chunks per window
  const int lane = threadIdx.x & 31;
  const int warp = static_cast<int>((static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5);
  const int n_warps = static_cast<int>((static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5);
  const VT* vals = static_cast<const VT*>(p.values);
  const VT* x = static_cast<const VT*>(p.x);
  auto load_window = [&](int q, int q_end, Four<VT>* w, Four<std::uint16_t>* c) {
    load_step_chunks<kDepth>(p, vals, q, lane, 32, q_end, w, c);
  };
  for (int r = warp; r < p.n_ranges; r += n_warps) {
    const int2 span = p.range_spans[r];
    const int4 head = p.ranges[2 * r];
    if (head.x >= head.y) continue;   // no items (a range with items but no non-zeros still writes them)
    const int it_end = head.y;
    int ib = head.x;   // first item of the descriptors the lanes hold
    int my_dest = 0, my_end = INT_MAX;   // item ib + lane's end and destination: its row, or ~slot for a piece
    auto hold_descriptors = [&]() {      // items ib .. ib + 31, one per lane
      my_end = INT_MAX;
      if (ib + lane < it_end) {
        const int4 item = p.items[ib + lane];
        my_dest = item.w < 0 ? item.x : ~item.w;
        my_end = item.z;
      }
    };
    hold_descriptors();
    int q = span.x >> 2;
    const int q_end = (span.y + 3) >> 2;
    Four<VT> w[kDepth];
    Four<std::uint16_t> c[kDepth];
    load_window(q, q_end, w, c);
    int cur = ib;                             // the item being summed
    int e = __shfl_sync(0xffffffffu, my_end, 0);   // its end
    int s = span.x;                           // its first non-zero not yet summed
    A acc = sr.identity();
    for (;;) {
      const int qn = q + kWindow;
      const bool more = qn < q_end;
      Four<VT> wn[kDepth];
      Four<std::uint16_t> cn[kDepth];
      if (more) load_window(qn, q_end, wn, cn);
      const int w_end = qn * 4;
      if (e > w_end) {   // no item ends in this window: all of it (from s) belongs to item cur, every chunk loaded
        VT xv[kDepth][4];
#pragma unroll
        for (int u = 0; u < kDepth; ++u) {
#pragma unroll
          for (int i = 0; i < 4; ++i) xv[u][i] = load_one_cached(x + c[u].v[i]);
        }
#pragma unroll
        for (int u = 0; u < kDepth; ++u) {
#pragma unroll
          for (int i = 0; i < 4; ++i)
            if ((q + lane + u * 32) * 4 + i >= s) acc = sr.muladd(acc, to_acc<A>(w[u].v[i]), to_acc<A>(xv[u][i]));
        }
      } else {
        A prod[kDepth][4];
#pragma unroll
        for (int u = 0; u < kDepth; ++u) {
#pragma unroll
          for (int i = 0; i < 4; ++i)
            prod[u][i] = (q + lane + u * 32) * 4 + i < span.y
                             ? sr.mul(to_acc<A>(w[u].v[i]), to_acc<A>(load_one_cached(x + c[u].v[i])))
                             : sr.identity();
        }
        while (e <= w_end) {   // item cur ends here: its products in [s, e), then the butterfly
          A part = acc;
#pragma unroll
          for (int u = 0; u < kDepth; ++u) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
              const int idx = (q + lane + u * 32) * 4 + i;
              if (idx >= s && idx < e) part = sr.add(part, prod[u][i]);
            }
          }
#pragma unroll
          for (int off = 16; off > 0; off >>= 1) part = sr.add(part, shfl_xor_any(part, off, 32));
          const int dest = __shfl_sync(0xffffffffu, my_dest, cur - ib);
          if (lane == 0) {
            if (dest >= 0) static_cast<VT*>(p.y)[static_cast<std::int64_t>(dest) * p.ys_row] = from_acc<VT>(part);
            else static_cast<A*>(p.partial)[~dest] = part;
          }
          acc = sr.identity();
          s = e;
          if (++cur == it_end) break;
          if (cur - ib == 32) {   // the next 32 descriptors
            ib = cur;
            hold_descriptors();
          }
          e = __shfl_sync(0xffffffffu, my_end, cur - ib);
        }
        if (cur == it_end) break;
#pragma unroll
        for (int u = 0; u < kDepth; ++u) {
#pragma unroll
          for (int i = 0; i < 4; ++i)
            if ((q + lane + u * 32) * 4 + i >= s) acc = sr.add(acc, prod[u][i]);
        }
      }
      if (!more) break;
      q = qn;
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        w[u] = wn[u];
        c[u] = cn[u];
      }
    }
  }
}

// The same row segments with the warp's lanes laid across the batch instead (plus_times, BT = 8, 32 or
// 128): BT/4 consecutive lanes read one row of X as BT contiguous values (whole 32-byte sectors, one
// coalesced access), and the 32 / (BT/4) lane slots of the warp take different chunks of the segment. Each
// lane keeps 4 accumulators, so registers stay few; the slots are folded with shuffles in a fixed order at
// the end of the segment (deterministic). Scheduled like rowseg_stream_kernel: each warp streams the items
// of its plan range, the next step's loads issued before the current step is used; grid.y walks the batch
// in tiles of BT (every tile streams W again). X' offsets are 32-bit (the dispatcher checks cols x ldx < 2^31).
// kVectorStore writes each lane's four sums with one 16-byte store (fp32 with aligned rows of Y' and a batch
// that is a multiple of 4), which beat the element-wise store in the loop (bench/results/spmm-dispatch-rules.md).
// kPackedX: X' rows are exactly BT values apart and the batch fills the one tile to its last four values
// (ldx == BT, BT - 4 < batch <= BT), so the row stride is a constant and every lane is in the batch (as in
// rowrange_kernel, csr_rowrange.cuh; bench/results/spmm-dispatch-rules.md).
template <class VT, int BT, bool kVectorStore, bool kPackedX>
__global__ void __launch_bounds__(256, kStreamWarpsPerSm / 8) rowseg_batch_kernel(RowSegParams p) {
  static_assert(BT == 8 || BT == 32 || BT == 128, "batch tile 8, 32 or 128");
  constexpr int kLanesPerRow = BT / 4, kSlots = 32 / kLanesPerRow;
  constexpr int kDepth = 1, kStep = kSlots * kDepth;   // 2 spilled at 64 registers (also at BT = 128: 64+ bytes)
  const int lane = threadIdx.x & 31, slot = lane / kLanesPerRow, lb = lane % kLanesPerRow;
  const int warp = static_cast<int>((static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5);
  const int n_warps = static_cast<int>((static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5);
  const int b0 = (kPackedX ? 0 : blockIdx.y * BT) + 4 * lb;
  const bool in_batch = kPackedX || b0 < p.batch;
  const int ldx = kPackedX ? BT : static_cast<int>(p.ldx);
  const VT* vals = static_cast<const VT*>(p.values);
  const VT* x = static_cast<const VT*>(p.x) + b0;
  auto load_step = [&](int q0, int item_end, Four<VT>* w, Four<std::uint16_t>* c) {
    load_step_chunks<kDepth>(p, vals, q0, slot, kSlots, (item_end + 3) >> 2, w, c);
  };

  for (int r = warp; r < p.n_ranges; r += n_warps) {
    ItemWalk walk;
    if (!walk.open(p, r)) continue;
    int q0 = walk.begin >> 2;
    Four<VT> w[kDepth];
    Four<std::uint16_t> c[kDepth];
    load_step(q0, walk.end, w, c);
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    for (;;) {
      const bool item_done = walk.finishes(q0, kStep);
      const bool more = walk.more(item_done);
      const int q_next = walk.next_q0(item_done, q0, kStep);
      Four<VT> wn[kDepth];
      Four<std::uint16_t> cn[kDepth];
      if (more) load_step(q_next, walk.next_end_of_step(item_done), wn, cn);
      const ItemWalk::Next next = walk.fetch(p, item_done, more);
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int idx = (q0 + slot + u * kSlots) * 4 + i;
          if (idx >= walk.begin && idx < walk.end && in_batch) {
            const float wi = to_acc<float>(w[u].v[i]);
            const Four<VT> xv = load_four_cached(x + (walk.base + c[u].v[i]) * ldx);
            a0 = fmaf(wi, to_acc<float>(xv.v[0]), a0);
            a1 = fmaf(wi, to_acc<float>(xv.v[1]), a1);
            a2 = fmaf(wi, to_acc<float>(xv.v[2]), a2);
            a3 = fmaf(wi, to_acc<float>(xv.v[3]), a3);
          }
        }
      }
      if (item_done) {
#pragma unroll
        for (int off = kLanesPerRow; off < 32; off <<= 1) {
          a0 += __shfl_xor_sync(0xffffffffu, a0, off);
          a1 += __shfl_xor_sync(0xffffffffu, a1, off);
          a2 += __shfl_xor_sync(0xffffffffu, a2, off);
          a3 += __shfl_xor_sync(0xffffffffu, a3, off);
        }
        if constexpr (kVectorStore) {   // fp32, Y' rows contiguous and 16-byte aligned, batch a multiple of 4
          if (slot == 0 && in_batch) {
            float* out = walk.slot < 0
                             ? static_cast<float*>(p.y) + walk.row * p.ys_row + b0
                             : static_cast<float*>(p.partial) + static_cast<std::int64_t>(walk.slot) * p.batch + b0;
            *reinterpret_cast<float4*>(out) = make_float4(a0, a1, a2, a3);
          }
        } else if (slot == 0) {
          const float a[4] = {a0, a1, a2, a3};
#pragma unroll
          for (int t = 0; t < 4; ++t) {
            if (b0 + t >= p.batch) break;
            if (walk.slot < 0)
              static_cast<VT*>(p.y)[walk.row * p.ys_row + (b0 + t) * p.ys_col] = from_acc<VT>(a[t]);
            else
              static_cast<float*>(p.partial)[static_cast<std::int64_t>(walk.slot) * p.batch + b0 + t] = a[t];
          }
        }
        if (!more) break;
        a0 = a1 = a2 = a3 = 0.f;
        walk.advance(next);
      }
      q0 = q_next;
#pragma unroll
      for (int u = 0; u < kDepth; ++u) {
        w[u] = wn[u];
        c[u] = cn[u];
      }
    }
  }
}

// Folds the partial rows of split rows in segment order: split = {row, first slot, slot count, -}.
template <class SR, class VT>
__global__ void rowseg_fixup_kernel(const int4* splits, int n_splits, const void* partial, int batch,
                                    void* y, std::int64_t ys_row, std::int64_t ys_col, SR sr) {
  using A = typename SR::acc_t;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<std::int64_t>(n_splits) * batch) return;
  const int s = static_cast<int>(i / batch), b = static_cast<int>(i % batch);
  const int4 sp = splits[s];
  const A* part = static_cast<const A*>(partial);
  A acc = sr.identity();
  for (int t = 0; t < sp.z; ++t) acc = sr.add(acc, part[static_cast<std::int64_t>(sp.y + t) * batch + b]);
  static_cast<VT*>(y)[sp.x * ys_row + b * ys_col] = from_acc<VT>(acc);
}

// After a row-segment kernel: checks its launch, then folds the split rows (if any) into Y'.
template <class SR, class VT>
cudaError_t finish_rowseg_launch(const RowSegParams& p, SR sr, const int4* splits, int n_splits, cudaStream_t s) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || n_splits == 0) return e;
  const std::int64_t n = std::int64_t(n_splits) * p.batch;
  launch_with_carveout(rowseg_fixup_kernel<SR, VT>, static_cast<unsigned>((n + 255) / 256), 256, 0, s, splits, n_splits,
                       p.partial, p.batch, p.y, p.ys_row, p.ys_col, sr);
  return cudaGetLastError();
}

// Resident blocks of 256 threads per SM of `kernel` (at least 1), asked once per kernel by the caller.
template <class Kernel>
int resident_blocks(Kernel kernel) {
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, 256, 0) != cudaSuccess) {
    (void)cudaGetLastError();
    n = 1;
  }
  return std::max(n, 1);
}

// Batch 1 with 32 lanes: the stream kernel (or its window walk, p.windows) over the plan's warp ranges, as many
// blocks as are resident at once (any grid is correct: warps stride over the ranges).
template <class SR, class VT, int kMinBlocks>
cudaError_t launch_rowseg_stream(const RowSegParams& p, SR sr, int sm_count, const int4* splits, int n_splits,
                                 cudaStream_t s) {
  constexpr int kThreads = 256;
  static const int per_sm_items = resident_blocks(rowseg_stream_kernel<SR, VT, kMinBlocks>);
  static const int per_sm_windows = resident_blocks(rowseg_window_kernel<SR, VT, kMinBlocks>);
  const int per_sm = p.windows ? per_sm_windows : per_sm_items;
  const std::int64_t blocks = std::max<std::int64_t>(
      1, std::min<std::int64_t>((p.n_ranges + kThreads / 32 - 1) / (kThreads / 32), std::int64_t(per_sm) * sm_count));
  const dim3 grid(static_cast<unsigned>(blocks));
  if (p.windows)
    launch_with_carveout(rowseg_window_kernel<SR, VT, kMinBlocks>, grid, kThreads, 0, s, p, sr);
  else
    launch_with_carveout(rowseg_stream_kernel<SR, VT, kMinBlocks>, grid, kThreads, 0, s, p, sr);
  return finish_rowseg_launch<SR, VT>(p, sr, splits, n_splits, s);
}

}  // namespace snk::cuda
