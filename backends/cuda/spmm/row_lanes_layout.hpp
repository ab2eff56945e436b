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
// at 16384 x 16384, 90%), and the groups come longest first, which the kernel's warps take in that order (the
// longest-first rule balances the warps). Summation within a row is order-free, so the values only follow
// the order: Plan::bind_values gathers them once. Pure C++: tests/core/test_spmm_row_lanes_layout.cpp checks it
// where no GPU exists.
#pragma once

#include <cstdint>
#include <vector>

#include "spmm/bank_order.hpp"   // HeldSegments

namespace snk::cuda {

constexpr int kRowLanesBatch = 32;                         // the kernel's batch tile: 32 sums per lane
constexpr std::int64_t kRowLanesTileBytes = 176 * 1024;    // X' bytes of its held column block, at most

struct RowLanesLayout {
  int n_blocks = 0;                  // column blocks (seg.n_blocks())
  std::int32_t rows = 0;
  std::int32_t rows_per_range = 0;   // rows of one thread block (a multiple of 32)
  std::int32_t n_groups = 0;         // ceil(rows / 32) groups per block; group g holds the slots [32 g, 32 g + 32),
                                     // which lie in one row range
  std::vector<std::int64_t> group_start;   // [n_blocks][n_groups]: position of the group's first chunk
  std::vector<std::int32_t> group_chunks;  // [n_blocks][n_groups]: chunks of the group's longest lane
  std::vector<std::int32_t> slot_row;      // [n_blocks][n_groups * 32]: the row of slot s (-1: none)
  std::vector<std::int32_t> slot_len;      // [n_blocks][n_groups * 32]: the length of its segment in the block
  std::vector<std::int32_t> perm;          // [positions]: the CSR position of the non-zero there, -1 for a pad
};

// Builds the layout of the segments seg (rows seg.rows, blocks seg.n_blocks()) for thread blocks of
// rows_per_range rows (> 0, a multiple of 32). Within a range the slots hold its rows sorted by segment length in
// the block, longest first (ties by row). Returns false (out empty) where the segments do not cover 0 .. nnz - 1
// exactly once, in order, or the positions would pass 2^31.
bool build_row_lanes_layout(const HeldSegments& seg, std::int64_t nnz, std::int32_t rows_per_range,
                            RowLanesLayout& out);

}  // namespace snk::cuda
