// spmm/row_lanes_layout.hpp: the plan's order of the non-zeros for the lanes-across-rows kernel (host code only).
//
// rowlanes_kernel (csr_rowlanes.cuh) holds one column block of X' in shared memory per thread block and gives each lane
// of a warp one row of W: the lane keeps all the batch tile's sums of its row in registers and walks the row's segment
// of the block chunk by chunk (four non-zeros per chunk), so no sum is ever folded across lanes. For the warp's loads
// to be coalesced, the plan lays the non-zeros of 32 rows ("a group") out interleaved: the k-th chunk of lane l's row
// at the group's start + (32 k + l) * 4, one 512-byte read per chunk step. A warp runs until its longest lane is done,
// so the rows of each (column block, row range) are sorted by the length of their segment in that block, longest first,
// before they are cut into groups: the lanes of a group then have nearly equal work, the few pad positions (value 0,
// never read by the kernel) stay under a few percent (1.7% at 16384 x 16384, 90%; each range's last group may also be
// partial, its empty lanes' positions held but never read), and the groups come longest first, which the kernel's warps
// take in that order (the longest-first rule balances the warps). An X' row of R bytes (the batch tile's values: 32
// fp32 or 16-bit values, 128 or 64 bytes; 16, 64 or 32 bytes; 8, 32 or 16 bytes) holds pieces = R / 16 pieces of 16
// bytes, and 128 / R rows share a bank line. Lane l reads piece l mod pieces of its row first, so the 8 / pieces lanes
// 8 q + pieces j + h of load phase q (j = 0 .. 8 / pieces - 1), a "piece-phase", read bank group pieces x (column mod
// 128 / R) + h: where rows are shorter than a bank line, they should take columns of distinct residue classes mod 128 /
// R at every step. With `residues` classes the layout first exchanges rows between the piece-phases of each group so
// that each one's rows hold the classes as evenly as possible, then orders each piece-phase's non-zeros step by step,
// each lane taking a class no other lane of its piece-phase takes at that step (row_lanes_layout.cpp): fewer wavefronts
// per load phase, and faster, than CSR order or a fixed rotation of the classes per lane
// (bench/results/spmm-dispatch-rules.md). Summation within a row is order-free, so the values only follow the order:
// the first call after Plan::bind_values gathers them. Pure C++: tests/core/test_spmm_row_lanes_layout.cpp checks it
// where no GPU exists.
#pragma once

#include <cstdint>
#include <vector>

#include "spmm/bank_order.hpp"   // HeldSegments

namespace snk::cuda {

// The kernel's batch tiles (sums per lane): 32 (batch 25-128, a tile per grid z, and 17-24 for 16-bit values: one
// 1024-thread block per SM holding up to 176 KB of X'), 24 (fp32 at batch 17-24: the same shape holding up to 132 KB;
// its shape not yet measured against others), 16 (batch 9-16: two 512-thread blocks per SM, 64 registers, each holding
// up to 88 KB) and 8 (batch 2-8: three 512-thread blocks per SM, each holding up to 44 KB, so that more warps, and more
// of W's loads, are in flight). Every tile holds the same columns per block (1408 fp32 columns of 16384), so the
// smaller tiles read W once with half or a quarter of tile 32's shared-memory work per non-zero. The thread blocks
// should fill the SMs' slots once and their warps with work (tiles 8 and 16 deal the groups out to the thread blocks of
// each column block; tiles 24 and 32 give each a row range: plan_impl.hpp, lanes_geometry). At tile 32, 1024 threads
// (64 registers) rather than 512 (no spills, but half the rows in flight), and kLongThreads (768, 80 registers) where
// rows' segments in a block are long (kRowLanesLongSegment, plan_impl.hpp). Each shape is the best of those measured
// (other block shapes, thread counts and held-block sizes): bench/results/spmm-dispatch-rules.md.
template <int BT> struct RowLanesTile;
// Whether bt is one of the kernel's batch tiles for X' values of value_bytes (a RowLanesTile<bt> exists; tile 24 holds
// fp32 rows only). Plain constexpr: the kernel calls it too.
constexpr bool rowlanes_tile(int bt, int value_bytes) {
  return bt == 8 || bt == 16 || bt == 32 || (bt == 24 && value_bytes == 4);
}
// Whether batch tile bt deals each column block's work items over all its rows out to the thread blocks in turn (tiles
// 8 and 16: the layout holds one row range), rather than giving each thread block a row range of its own (tiles 24
// and 32). Plain constexpr: the kernel calls it too.
constexpr bool rowlanes_dealt(int bt) { return bt < 24; }
// The lanes' order over the `pieces` 16-byte pieces of an X' row (the kernel reads it; the layout's residue order is
// built for it). Where pieces is a power of two, lane l starts at piece lp = l mod pieces and reads piece kk ^ lp at
// step kk: the lanes that share lp read one piece at each step and the others each another. At fp32 tile 24 (six
// pieces, 96-byte rows) lp = l mod 2 and lane l reads piece (kk + lp) mod 6: the two halves of a load phase read pieces
// of opposite parity at every step, which with four column classes (a row's bank group is 6 x its class + the piece,
// mod 8) puts the eight lanes in eight groups. rowlanes_first_pieces: how many first pieces the lanes start at (the
// layout's `pieces`); rowlanes_residues: the layout's column classes for X' rows of row_bytes (128 / row_bytes below a
// bank line, four at 96 bytes, none at 128: CSR order). Plain constexpr: the kernel calls them too.
constexpr int rowlanes_first_pieces(int pieces) { return pieces == 6 ? 2 : pieces; }
constexpr int rowlanes_piece(int pieces, int kk, int lp) {
  return pieces == 6 ? (kk + lp < 6 ? kk + lp : kk + lp - 6) : kk ^ lp;
}
constexpr int rowlanes_residues(int row_bytes) {
  return row_bytes == 96 ? 4 : row_bytes < 128 ? 128 / row_bytes : 0;
}
template <> struct RowLanesTile<32> {
  static constexpr int kThreads = 1024, kBlocksPerSm = 1;
  static constexpr int kLongThreads = 768;   // 80 registers a thread instead of 64
  static constexpr std::int64_t kTileBytes = 176 * 1024;
};
// Tile 24 (fp32 only, batch 17-24): tile 32's shape on 96-byte X' rows (six pieces; csr_rowlanes.cuh reads them in
// the order of rowlanes_piece, and the layout orders the rows by four column classes, as fp32 tile 8's), so that batch
// 17-24 does three quarters of tile 32's shared-memory work.
template <> struct RowLanesTile<24> {
  static constexpr int kThreads = 1024, kBlocksPerSm = 1;
  static constexpr std::int64_t kTileBytes = 132 * 1024;
};
template <> struct RowLanesTile<16> {
  static constexpr int kThreads = 512, kBlocksPerSm = 2;
  static constexpr std::int64_t kTileBytes = 88 * 1024;
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
// same rows in the order that balances its piece-phases. Returns false (out empty) where the segments do not cover
// 0 .. nnz - 1 exactly once, in order, or the positions would pass 2^31.
// residues > 0 (at most 8, with col16, the plan's packed columns; may be null where nnz = 0): each segment's
// non-zeros in the residue order above for X' rows of `pieces` 16-byte pieces (1, 2, 4 or 8; a column's residue is
// col16 % residues; the blocks start at multiples of 8 columns; each class's non-zeros keep their CSR order); else
// in CSR order. The (column block, row range) units and the
// groups are built on `threads` host threads (0: host_order_threads(), host_threads.hpp); the layout is the same
// for any count. The residue order costs several times the host time of CSR order, once per plan
// (bench/results/spmm-dispatch-rules.md).
bool build_row_lanes_layout(const HeldSegments& seg, std::int64_t nnz, std::int32_t n_ranges,
                            RowLanesLayout& out, const std::uint16_t* col16 = nullptr, int residues = 0,
                            int pieces = 2, int threads = 0);

}  // namespace snk::cuda
