// spmm/row_balance.hpp: balanced row orders for the column-block kernels (host code only).
//
// The wide column-block kernel (colblock_wide_kernel, csr_colblock.cuh, batch tiles 32 and 128) gives each
// thread block rows_per_cta slots and each warp the slots warp, warp + 32, ... of its block; with rows in plain
// order a slot s holds row s, so a block's work is the non-zeros of whatever rows fall in its range and a warp's
// that of every 32nd of them, so even a uniform random pattern leaves the heaviest block, and more so the heaviest
// warp, above its share (the figures: bench/results/spmm-dispatch-rules.md). A row map lets the plan hand the rows
// out by weight instead: each thread block a contiguous range of rows cut where the running weight is closest to
// its share (ranges stay contiguous: rows scattered over all blocks would spread each block's reads of W and of the
// boundary table over the whole matrix), then within each block longest-processing-time first, rows by descending
// weight, each to the lightest warp that has a slot left. The map is per column range (the kernels' blockIdx.y),
// since a row's weight in one range is not its weight in another. Pure C++: the CPU tests check it
// (tests/core/test_spmm_row_balance.cpp), where no GPU exists.
#pragma once

#include <cstdint>
#include <vector>

namespace snk::cuda {

// Warps of a column-block thread block (kColBlockThreads / 32; dispatch.cu checks it).
constexpr int kRowBalanceWarps = 32;

// The slots of one column range: map[s] = the row in slot s (-1: empty), for grid_x thread blocks of
// rows_per_cta slots each (warp w of a block holding its slots w, w + 32, ...). weight[r] >= 0 is row r's work
// in the range. Every row gets exactly one slot; the rows of a block are a contiguous range. Returns false (map
// untouched) when the rows do not fit (weight.size() > grid_x * rows_per_cta) or an argument is out of range.
bool balanced_row_slots(const std::vector<std::int64_t>& weight, int rows_per_cta, int grid_x,
                        std::vector<std::int32_t>& map);

// The weight of the row segment [S, E) of W for colblock_wide_kernel, whose groups read every non-zero in
// turn: its non-zeros plus a fixed cost per row (bounds, run bookkeeping, the store).
std::int64_t row_segment_weight(std::int64_t S, std::int64_t E);

}  // namespace snk::cuda
