// spmm/bank_order.hpp: the bank-aware order of a plan's non-zeros for colblock_held_kernel (host code only).
//
// colblock_held_kernel (csr_colblock.cuh) walks each row's segment [S, E) of a column block in steps of 32
// chunks of four non-zeros: position p goes to lane ((p >> 2) - (S >> 2)) & 31 as its (p & 3)-th non-zero,
// and the lane reads that non-zero's staged X' row (8 values: 32 bytes for fp32, 16 for fp16/bf16) in two
// halves, odd lanes the second half first. The shared-memory banks serve one 128-byte line per wavefront;
// the lanes of one phase of a load (8 lanes for 16-byte loads, 16 for 8-byte loads) conflict when their
// halves fall in the same 16- (8-) byte group, and the group of a row is fixed by its column modulo R =
// 128 / row bytes (4 for fp32, 8 for fp16/bf16). With the columns in CSR order a phase takes ~2.3
// wavefronts at 10% density instead of one (bench/results/spmm-h200.md). Summation within a row is order-
// free, so a plan may reorder each segment's non-zeros: this order gives position p a column whose residue
// is ((lane >> 1) + (p & 3)) mod R, so that the even lanes of a phase, and the odd ones, read distinct
// groups; where a segment runs out of one residue, a residue not yet used in that phase is taken. The
// values then have to follow the order (Plan::bind_values gathers them once). Pure C++: the CPU tests
// check it (tests/core/test_spmm_bank_order.cpp), where no GPU exists.
#pragma once

#include <cstdint>
#include <vector>

namespace snk::cuda {

// The segments colblock_held_kernel walks: for block c (of n_blocks) and row r, [S, E) with
// S = bounds[(c * ratio) * rows + r], E = bounds[min((c + 1) * ratio, n_fine) * rows + r] (the plan's
// [n_fine + 1][rows] offset table).
struct HeldSegments {
  const std::int32_t* bounds = nullptr;
  std::int32_t rows = 0;
  int n_fine = 0;
  int ratio = 1;
  int n_blocks() const { return n_fine > 0 ? (n_fine + ratio - 1) / ratio : 0; }
  std::int64_t begin(int c, std::int32_t r) const { return bounds[std::int64_t(c) * ratio * rows + r]; }
  std::int64_t end(int c, std::int32_t r) const {
    const int f = (c + 1) * ratio < n_fine ? (c + 1) * ratio : n_fine;
    return bounds[std::int64_t(f) * rows + r];
  }
  // Whether the segments tile 0 .. nnz - 1 in position order (row by row, the blocks in order), as the column-block
  // segments of the plan's CSR pattern do; the orders built on them (bank_order.hpp, row_lanes_layout.hpp) refuse
  // a table that does not.
  bool tiles(std::int64_t nnz) const {
    std::int64_t at = 0;
    const int nb = n_blocks();
    for (std::int32_t r = 0; r < rows; ++r)
      for (int c = 0; c < nb; ++c) {
        const std::int64_t S = begin(c, r), E = end(c, r);
        if (S != at || E < S || E > nnz) return false;
        at = E;
      }
    return at == nnz;
  }
};

// Residues of the kernel's bank groups for X' rows of 8 values of value_bytes each (4 for fp32, 8 for 2-byte
// values); 0 where the kernel's rows are not 16 or 32 bytes.
int held_bank_residues(int value_bytes);

// perm[p] = the position (in the plan's CSR order) of the non-zero that the bank order puts at p; each segment's
// positions are permuted among themselves. col16 holds the plan's packed columns (nnz entries; a column's
// residue is col16 % residues, the blocks being multiples of 64 columns wide). Returns false (perm empty)
// where the segments do not cover 0 .. nnz - 1 exactly once, in order. The rows' segments are ordered on `threads`
// host threads (0: host_order_threads(), host_threads.hpp); the order is the same for any count.
bool held_bank_order(const std::uint16_t* col16, std::int64_t nnz, const HeldSegments& seg, int residues,
                     std::vector<std::int32_t>& perm, int threads = 0);

// Mean wavefronts per phase of the kernel's X' row loads for the columns col16 (in the order the kernel walks
// them): for every step, phase, non-zero slot and half, the most lanes that read one bank group. 1.0 is
// conflict-free; 0 where the segments do not tile 0 .. nnz - 1. For the tests (test_spmm_bank_order.cpp).
double held_bank_wavefronts(const std::uint16_t* col16, std::int64_t nnz, const HeldSegments& seg, int residues);

}  // namespace snk::cuda
