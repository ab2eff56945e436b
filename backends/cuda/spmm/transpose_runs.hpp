// spmm/transpose_runs.hpp: the order in which W's values move into W^T's order (host code only), for a plan that
// runs W^T X on the transposed pattern (Plan::Impl::transpose_*, launch_transpose_values).
//
// W's non-zeros are cut into pieces of at most kTransposePieceCap: tiles of W (a range of rows by a block of
// columns, square in expected non-zeros), each taken row by row, cut where it passes the cap. A thread block moves
// one piece through shared memory: it reads the piece's values along W's rows (src runs: consecutive CSR positions
// of W) into the piece's slots, then writes them along W^T's rows (dst runs: consecutive CSR positions of W^T), each
// slot named by its 16-bit index (dperm). Both sides are runs of whole 32-lane loads and stores (a run holds at
// most 32 non-zeros), so the move reads and writes each value once, coalesced, and its index traffic is two bytes a
// non-zero plus six a run, where a list of both positions would take eight a non-zero and scatter its reads. Pure
// C++: the CPU tests check it (tests/core/test_spmm_transpose_runs.cpp), where no GPU exists.
#pragma once

#include <cstdint>
#include <vector>

namespace snk::cuda {

// Non-zeros of one piece at most (its slots fill shared memory: 32 KB of fp32 values, 64 KB of fp64).
constexpr int kTransposePieceCap = 8192;
// Non-zeros of one run at most (one lane each).
constexpr int kTransposeRunCap = 32;

// Piece p holds non-zeros [entry[p], entry[p + 1]) of the piece order, its src runs [src_run[p], src_run[p + 1])
// and its dst runs [dst_run[p], dst_run[p + 1]). Run j of a piece starts at CSR position *_run_pos[j] (of W for
// src runs, of W^T for dst runs) and at the piece's slot (src) or dst-order index (dst) *_run_off[j]; it ends where
// the piece's next run starts, or at the piece's size. dperm[entry[p] + k]: the slot of the piece's k-th non-zero in
// W^T's order.
struct TransposeRuns {
  std::vector<std::int64_t> entry{0}, src_run{0}, dst_run{0};
  std::vector<std::int32_t> src_run_pos, dst_run_pos;
  std::vector<std::uint16_t> src_run_off, dst_run_off, dperm;
  int max_piece = 0;   // non-zeros of the largest piece
  std::int64_t pieces() const { return static_cast<std::int64_t>(entry.size()) - 1; }
};

// W: rows x cols, CSR (row_ptr, col; columns sorted within a row); t_pos[e]: W^T's CSR position of W's e-th
// non-zero.
TransposeRuns transpose_runs(std::int32_t rows, std::int32_t cols, const std::vector<std::int32_t>& row_ptr,
                             const std::vector<std::int32_t>& col, const std::vector<std::int32_t>& t_pos);

}  // namespace snk::cuda
