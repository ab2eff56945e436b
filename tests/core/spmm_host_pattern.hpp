// tests/core/spmm_host_pattern.hpp: random sparsity patterns with the GPU plan's column-boundary table, built on
// the host, for the host tests of the cuda backend's orders (test_spmm_bank_order, test_spmm_row_lanes_layout,
// test_spmm_transpose_runs) and, for its dense corner, the GPU SpMM tests.
//
// The table is laid out as backends/cuda/spmm/plan.cu lays it out: bounds[f * rows + r] = the first non-zero of
// row r at a column >= 64 f, for the fine blocks f = 0 .. n_fine - 1, and bounds[n_fine * rows + r] = the row's
// end; segments() cuts it into column blocks of block_cols columns (a multiple of 64) as the kernels walk them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "spmm/bank_order.hpp"   // HeldSegments

namespace snk::cuda {

struct HostPattern {
  int rows = 0, cols = 0;
  std::vector<std::int32_t> row_ptr, col;
  std::vector<std::uint16_t> col16;    // the plan's packed columns (col & 0xffff)
  std::vector<std::int32_t> bounds;    // [n_fine + 1][rows]
  int n_fine = 0;
  std::int64_t nnz() const { return static_cast<std::int64_t>(col.size()); }
};

// A rows x cols pattern whose rows draw each column with probability `density` (none at density 0); every
// `empty_every`-th row is empty and every `short_every`-th row holds one to three non-zeros.
inline HostPattern make_host_pattern(std::mt19937& g, int rows, int cols, double density, int empty_every = 0,
                                     int short_every = 0) {
  HostPattern p;
  p.rows = rows;
  p.cols = cols;
  p.row_ptr.push_back(0);
  std::uniform_int_distribution<int> any(0, std::max(0, cols - 1)), few(1, 3);
  for (int r = 0; r < rows; ++r) {
    if (empty_every && r % empty_every == 0) {
    } else if (short_every && r % short_every == 0) {
      std::vector<std::int32_t> c;
      for (int i = few(g); i > 0; --i) c.push_back(any(g));
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      p.col.insert(p.col.end(), c.begin(), c.end());
    } else if (density > 0) {
      std::geometric_distribution<int> skip(std::min(density, 1.0));
      for (long c = skip(g); c < cols; c += 1 + skip(g)) p.col.push_back(static_cast<std::int32_t>(c));
    }
    p.row_ptr.push_back(static_cast<std::int32_t>(p.col.size()));
  }
  for (std::int32_t c : p.col) p.col16.push_back(static_cast<std::uint16_t>(c & 0xffff));
  const int fine = 64;
  p.n_fine = (cols + fine - 1) / fine;
  p.bounds.assign((static_cast<std::size_t>(p.n_fine) + 1) * static_cast<std::size_t>(rows), 0);
  for (int r = 0; r < rows; ++r) {
    std::int32_t j = p.row_ptr[static_cast<std::size_t>(r)];
    const std::int32_t end = p.row_ptr[static_cast<std::size_t>(r) + 1];
    for (int f = 0; f < p.n_fine; ++f) {
      while (j < end && p.col[static_cast<std::size_t>(j)] < f * fine) ++j;
      p.bounds[static_cast<std::size_t>(f) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(r)] = j;
    }
    p.bounds[static_cast<std::size_t>(p.n_fine) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(r)] = end;
  }
  return p;
}

// p with every position of its first `side` rows and columns present (a dense corner: a tile of the transposed
// order far above its expected count), its other non-zeros kept; row pointers and columns only. P: any pattern with
// rows, cols, row_ptr and col (HostPattern, or the GPU tests' Pattern).
template <class P>
P with_dense_corner(const P& p, int side) {
  using I = typename decltype(P::row_ptr)::value_type;
  P q;
  q.rows = p.rows;
  q.cols = p.cols;
  q.row_ptr.push_back(0);
  for (int r = 0; r < p.rows; ++r) {
    for (int c = 0; c < (r < side ? std::min(side, p.cols) : 0); ++c) q.col.push_back(c);
    for (I j = p.row_ptr[static_cast<std::size_t>(r)]; j < p.row_ptr[static_cast<std::size_t>(r) + 1]; ++j)
      if (r >= side || p.col[static_cast<std::size_t>(j)] >= side) q.col.push_back(p.col[static_cast<std::size_t>(j)]);
    q.row_ptr.push_back(static_cast<I>(q.col.size()));
  }
  return q;
}

// The segments of column blocks block_cols wide (a multiple of 64) over p's table.
inline HeldSegments segments(const HostPattern& p, int block_cols) {
  HeldSegments s;
  s.bounds = p.bounds.data();
  s.rows = p.rows;
  s.n_fine = p.n_fine;
  s.ratio = block_cols / 64;
  return s;
}

}  // namespace snk::cuda
