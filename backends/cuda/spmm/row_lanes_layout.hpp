// spmm/row_lanes_layout.hpp: the plan's order of the non-zeros for the lanes-across-rows kernel (host code only).
//
// rowlanes_kernel (csr_rowlanes.cuh) holds one column block of X' in shared memory per thread block and gives
// each lane of a warp one row of W: the lane keeps all 32 batch sums of its row in registers and walks the row's
// segment of the block chunk by chunk (four non-zeros per chunk), so no sum is ever folded across lanes. For the
// warp's loads to be coalesced, the plan lays the non-zeros of 32 rows ("a group") out interleaved: the k-th
// chunk of lane l's row at the group's start + (32 k + l) * 4, one 512-byte read per chunk step. A warp runs
// until its longest lane is done, so the rows of each (column block, row range) are sorted by the length of
// their segment in that block, longest first, before they are cut into groups: the lanes of a group then have
// nearly equal work, the few pad positions (value 0, never read by the kernel) stay under a few percent (1.7%
// at 16384 x 16384, 90%; each range's last group may also be partial, its empty lanes' positions held but never
// read), and the groups come longest first, which the kernel's warps take in that order (the
// longest-first rule balances the warps). At batch tile 8 an X' row is 32 bytes, four rows to a bank line, and
// the eight lanes of a load phase read random rows' halves. Lane l reads half l & 1 of its row first, so the four
// lanes 8 q + 2 j + h (j = 0 .. 3) of phase q, a "half-phase", read bank group 2 (column mod 4) + h: they should
// take columns of distinct residue classes mod 4 at every step. With `residues` = 4 the layout first exchanges
// rows between the half-phases of each group so that each half-phase's rows hold the four classes as evenly as
// possible, then orders each half-phase's non-zeros step by step, each lane taking a class no other lane of its
// half-phase takes at that step (row_lanes_layout.cpp). Mean wavefronts of a load phase, uniform 10% pattern:
// 2.38 in CSR order, 1.22 with a fixed rotation of the classes per lane (lane l's i-th from class (l >> 1) + i),
// 1.08 in this order. 16384 x 16384, batch 8, bound: 0.0863 ms in CSR order (harness), 0.0609-0.0615 with the
// rotation, 0.0588-0.0595 in this order at 90%; 0.0516, 0.0387-0.0390, 0.0373-0.0379 at 95%. Summation within a
// row is order-free, so the values only follow the order: the first call after Plan::bind_values gathers them.
// Pure C++: tests/core/test_spmm_row_lanes_layout.cpp checks it where no GPU exists.
#pragma once

#include <cstdint>
#include <vector>

#include "spmm/bank_order.hpp"   // HeldSegments

namespace snk::cuda {

// The kernel's two batch tiles (sums per lane): 32 (batch 9-128, a tile per grid z: one 1024-thread block per SM
// holding up to 176 KB of X') and 8 (batch 5-8: three 512-thread blocks per SM, each holding up to 44 KB, so that
// more warps, and more of W's loads, are in flight). Stand-alone harness at 16384 x 16384, batch 8, 90% / 95%:
// three 512-thread blocks, one chunk ahead (40 registers), 0.0636 / 0.0417 ms; three of 384 threads, two chunks
// ahead (52 registers), 0.0676 / 0.0434; four of 256, 0.0680 / 0.0443; two of 512 with 88 KB, 0.0683 / 0.0444;
// one of 512 with 176 KB, 0.0977 / 0.0617. The thread blocks should fill the SMs' slots once and their warps
// with work (16384 rows in 32 ranges of 512, 16 groups for 16 warps; with 384-thread blocks over 43 ranges of 384
// rows, 1.3 waves of blocks: 0.0859 / 0.0559; since, the groups are dealt out to 33 thread blocks per column
// block: plan_impl.hpp, lanes_geometry). Through the library, bound, 16384 x 16384 at 90%: 0.0588 ms as laid out here,
// 0.0599 with blocks of 960 columns (18 blocks, 22 ranges), 0.0625 with 704 (24 blocks), 0.0668 with 16 ranges of
// 1024 rows (32 groups for 16 warps, but 192 thread blocks for 396 slots). Batch tile 32 at 512 threads (up to
// 128 registers: no spills) instead of 1024 (64 registers), one GPU run alternating twice, bound, medians of 41 (ms;
// 90% / 95%): batch 32 0.1267 / 0.0713-0.0715 with one chunk ahead, 0.1276-0.1278 / 0.0724-0.0726 with two, against
// 0.1257 / 0.0697-0.0698; batch 128 0.4887-0.4889 / 0.2690-0.2696 and 0.4919-0.4929 / 0.2718-0.2723 against
// 0.4852-0.4853 / 0.2621-0.2627. Half the rows in flight cost more than the registers gained. 768 threads (80
// registers) ran 0.4-0.7% faster at 90% and 0.3-0.5% slower at 95%, batch 32 / 64 / 128 (bench/results/spmm-h200.md),
// so tile 32 runs kLongThreads where rows' segments in a block are long (kRowLanesLongSegment, plan_impl.hpp); 896
// and 640 threads were slower at both. Held blocks of 192 KB (11 column blocks instead of 12, 12 row ranges) were
// slower at both with the bulk sums: one GPU run alternating twice, medians of 41, 1024 / 768 threads, batch 32 90%
// 0.1271 / 0.1266-0.1269 ms against 0.1256-0.1257 / 0.1249-0.1251 at 176 KB, 95% 0.0702-0.0706 / 0.0705-0.0707
// against 0.0698 / 0.0702.
template <int BT> struct RowLanesTile;
template <> struct RowLanesTile<32> {
  static constexpr int kThreads = 1024, kBlocksPerSm = 1;
  static constexpr int kLongThreads = 768;   // 80 registers a thread instead of 64
  static constexpr std::int64_t kTileBytes = 176 * 1024;
};
template <> struct RowLanesTile<8> {
  static constexpr int kThreads = 512, kBlocksPerSm = 3;
  static constexpr std::int64_t kTileBytes = 44 * 1024;
};

// The kernel's column blocks share the columns to within one grain (fine_cols: kLanesGrainCols, plan_impl.hpp) of
// each other: the first n_wide are block_cols wide, the others block_cols - fine_cols. Block c's first column and
// its width (the last block ends at the last column: clip the width there). Plain constexpr: the kernel calls them
// too (--expt-relaxed-constexpr).
constexpr std::int64_t lanes_block_first(int c, int block_cols, int n_wide, int fine_cols) {
  return std::int64_t(c) * block_cols - std::int64_t(c > n_wide ? c - n_wide : 0) * fine_cols;
}
constexpr int lanes_block_width(int c, int block_cols, int n_wide, int fine_cols) {
  return c < n_wide ? block_cols : block_cols - fine_cols;
}

struct RowLanesLayout {
  int n_blocks = 0;                  // column blocks (seg.n_blocks())
  std::int32_t rows = 0;
  std::int32_t n_ranges = 0;         // row ranges per block (a thread block each at tile 32)
  std::vector<std::int32_t> range_first;   // [n_blocks][n_ranges + 1]: block c's range u holds rows
                                           // [range_first[c][u], range_first[c][u + 1])
  std::int32_t groups_per_range = 0; // groups of each range: ceil(its most rows / 32) over all (block, range)s
  std::int32_t n_groups = 0;         // n_ranges x groups_per_range per block; group g holds the slots
                                     // [32 g, 32 g + 32), range u the groups [u groups_per_range, (u + 1) ...)
  std::vector<std::int64_t> group_start;   // [n_blocks][n_groups]: position of the group's first chunk
  std::vector<std::int32_t> group_chunks;  // [n_blocks][n_groups]: chunks of the group's longest lane
  std::vector<std::int32_t> slot_row;      // [n_blocks][n_groups * 32]: the row of slot s (-1: none)
  std::vector<std::int32_t> slot_len;      // [n_blocks][n_groups * 32]: the length of its segment in the block
  std::vector<std::int32_t> perm;          // [positions]: the CSR position of the non-zero there, -1 for a pad
};

// Builds the layout of the segments seg (rows seg.rows, blocks seg.n_blocks()) for n_ranges (> 0) row ranges per
// block. Each block's rows are cut into n_ranges contiguous ranges of about equal weight, a row weighing its
// segment's length in the block plus one (its sums' stores): range u starts at the first row at which the rows
// before it weigh at least floor(total u / n_ranges), so a block's thread blocks get equal work
// however the rows' lengths run (at tile 32 each range is one thread block's; 16384 x 16384 at 90%: 11 ranges of
// 1489-1490 rows, where ranges of a multiple of 32 rows had left one of 1344 beside ten of 1504). Each range has
// groups_per_range groups, its rows first, sorted by segment length in the block, longest first (ties by row),
// then empty slots (row -1, length 0) and empty groups; in the residue order the 32 slots of each group hold the
// same rows in the order that balances its half-phases. Returns false (out empty) where the segments do not cover
// 0 .. nnz - 1 exactly once, in order, or the positions would pass 2^31.
// residues > 0 (with col16, the plan's packed columns; may be null where nnz = 0): each segment's non-zeros in
// the residue order above (a column's residue is col16 % residues; the blocks start at multiples of 8 columns;
// each class's non-zeros keep their CSR order); else in CSR order. The (column block, row range) units and the
// groups are built on `threads` host threads (0: host_order_threads(), host_threads.hpp); the layout is the same
// for any count. The residue order takes about 0.6 s of host time on one thread at 26.8 M non-zeros (0.08 s in
// CSR order), once per plan.
bool build_row_lanes_layout(const HeldSegments& seg, std::int64_t nnz, std::int32_t n_ranges,
                            RowLanesLayout& out, const std::uint16_t* col16 = nullptr, int residues = 0,
                            int threads = 0);

}  // namespace snk::cuda
