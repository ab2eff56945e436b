// tests/core/test_spmm_transpose_runs.cpp: the pieces and runs that move W's values into W^T's order
// (backends/cuda/spmm/transpose_runs.hpp), on the host: it runs where no GPU is (the GPU tests check the kernel
// through every W^T X product against a float64 reference).
//
// Fresh random patterns (uniform, very sparse, dense, with empty rows and short rows, a crowded corner that passes
// the piece cap, one row, one column). Each is moved as the kernel moves it (slots filled along the src runs, then
// written along the dst runs from dperm's slots) from distinct values, and the result must be W^T's CSR values
// exactly, every position written once. Checked as well: the limits the kernel relies on (pieces within the cap,
// runs of at most 32 consecutive positions, every slot filled once per piece), and the index traffic the layout
// exists for (two bytes a non-zero and six a run, about 2.5 bytes a non-zero at 10% density, against the eight of
// a list of both positions).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "spmm/transpose_runs.hpp"
#include "spmm_host_pattern.hpp"

namespace snk::cuda {
namespace {

std::mt19937& rng() {
  static std::mt19937 g(std::random_device{}());
  return g;
}

// W^T's position of each of W's non-zeros (plan.cu's count of columns).
std::vector<std::int32_t> t_positions(const HostPattern& p) {
  std::vector<std::int32_t> next(static_cast<std::size_t>(p.cols) + 1, 0), t(p.col.size());
  for (std::int32_t c : p.col) ++next[static_cast<std::size_t>(c) + 1];
  for (int c = 0; c < p.cols; ++c) next[c + 1] += next[c];
  for (std::size_t j = 0; j < p.col.size(); ++j) t[j] = next[static_cast<std::size_t>(p.col[j])]++;
  return t;
}

// The kernel's move on the host; fails the test on any slot or position written twice or never.
std::vector<std::int64_t> move(const TransposeRuns& o, const std::vector<std::int64_t>& src) {
  std::vector<std::int64_t> dst(src.size(), -1);
  for (std::int64_t p = 0; p < o.pieces(); ++p) {
    const int n = static_cast<int>(o.entry[p + 1] - o.entry[p]);
    std::vector<std::int64_t> slots(static_cast<std::size_t>(n), -1);
    for (std::int64_t j = o.src_run[p]; j < o.src_run[p + 1]; ++j) {
      const int off = o.src_run_off[j], end = j + 1 < o.src_run[p + 1] ? o.src_run_off[j + 1] : n;
      EXPECT_LT(off, end) << "an empty src run";
      EXPECT_LE(end - off, kTransposeRunCap);
      for (int l = 0; l < end - off; ++l) {
        EXPECT_EQ(slots[off + l], -1) << "slot filled twice";
        slots[off + l] = src[static_cast<std::size_t>(o.src_run_pos[j] + l)];
      }
    }
    for (std::int64_t j = o.dst_run[p]; j < o.dst_run[p + 1]; ++j) {
      const int off = o.dst_run_off[j], end = j + 1 < o.dst_run[p + 1] ? o.dst_run_off[j + 1] : n;
      EXPECT_LT(off, end) << "an empty dst run";
      EXPECT_LE(end - off, kTransposeRunCap);
      for (int l = 0; l < end - off; ++l) {
        const std::int64_t at = o.dst_run_pos[j] + l;
        const int slot = o.dperm[static_cast<std::size_t>(o.entry[p] + off + l)];
        EXPECT_LT(slot, n);
        EXPECT_NE(slots[slot], -1) << "slot never filled";
        EXPECT_EQ(dst[static_cast<std::size_t>(at)], -1) << "position written twice";
        dst[static_cast<std::size_t>(at)] = slots[slot];
      }
    }
  }
  return dst;
}

// W's values are their own CSR positions; W^T's CSR values, in its order, are then W's positions column by column.
void expect_transposes(const HostPattern& p, const char* what) {
  SCOPED_TRACE(what);
  const std::vector<std::int32_t> t = t_positions(p);
  const TransposeRuns o = transpose_runs(p.rows, p.cols, p.row_ptr, p.col, t);
  ASSERT_EQ(o.entry.back(), p.nnz());
  ASSERT_EQ(static_cast<std::int64_t>(o.dperm.size()), p.nnz());
  for (std::int64_t q = 0; q < o.pieces(); ++q) {
    EXPECT_GT(o.entry[q + 1], o.entry[q]) << "an empty piece";
    EXPECT_LE(o.entry[q + 1] - o.entry[q], kTransposePieceCap);
  }
  std::vector<std::int64_t> src(p.col.size()), want(p.col.size());
  for (std::size_t j = 0; j < src.size(); ++j) {
    src[j] = static_cast<std::int64_t>(j);
    want[static_cast<std::size_t>(t[j])] = static_cast<std::int64_t>(j);
  }
  EXPECT_EQ(move(o, src), want);
}

TEST(SpmmTransposeRuns, MovesEveryValueToItsTransposedPosition) {
  expect_transposes(make_host_pattern(rng(), 700, 900, 0.1), "uniform 10%");
  expect_transposes(make_host_pattern(rng(), 3000, 2000, 0.002), "very sparse");
  expect_transposes(make_host_pattern(rng(), 300, 257, 0.9), "nearly dense");
  expect_transposes(make_host_pattern(rng(), 1000, 1500, 0.05, 7, 5), "empty and short rows");
  expect_transposes(make_host_pattern(rng(), 1, 5000, 0.3), "one row");
  expect_transposes(make_host_pattern(rng(), 5000, 1, 0.3), "one column");
  expect_transposes(make_host_pattern(rng(), 50, 60, 0.0), "no non-zero");
}

// A dense 300 x 300 corner in a pattern of 0.1% density: its tile holds about 90,000 non-zeros against the cap of
// 8192, so it is cut into pieces (one row may end in one piece and go on in the next).
TEST(SpmmTransposeRuns, CrowdedTileIsCutAtTheCap) {
  const HostPattern p = with_dense_corner(make_host_pattern(rng(), 4000, 4000, 0.001), 300);
  expect_transposes(p, "crowded corner");
  const TransposeRuns o = transpose_runs(p.rows, p.cols, p.row_ptr, p.col, t_positions(p));
  std::int64_t full = 0;
  for (std::int64_t q = 0; q < o.pieces(); ++q) full += o.entry[q + 1] - o.entry[q] == kTransposePieceCap;
  EXPECT_GE(full, 10) << "the corner's 90,000 non-zeros fill pieces to the cap";
}

// Index traffic at 10% density: dperm's two bytes a non-zero plus six bytes a run on each side stay near 2.5 bytes
// a non-zero (runs of about 25), against the eight of two positions a non-zero.
TEST(SpmmTransposeRuns, IndexBytesPerNonZeroAtTenPercent) {
  const HostPattern p = make_host_pattern(rng(), 4096, 4096, 0.1);
  const TransposeRuns o = transpose_runs(p.rows, p.cols, p.row_ptr, p.col, t_positions(p));
  const double runs = double(o.src_run_pos.size() + o.dst_run_pos.size());
  const double bytes = 2.0 * double(p.nnz()) + 6.0 * runs + 24.0 * double(o.pieces());
  EXPECT_LT(bytes / double(p.nnz()), 3.0) << runs << " runs, " << o.pieces() << " pieces, " << p.nnz() << " non-zeros";
}

}  // namespace
}  // namespace snk::cuda
