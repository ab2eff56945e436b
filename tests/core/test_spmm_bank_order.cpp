// tests/core/test_spmm_bank_order.cpp: the bank-aware order of the batch-8 column-block kernel's non-zeros
// (backends/cuda/spmm/bank_order.hpp), on the host: it runs where no GPU is (the GPU tests check the kernel
// with values bound in that order against a float64 reference).
//
// Fresh random patterns (uniform rows, empty rows, rows shorter than a chunk, one block or several) with the
// plan's column-boundary table built as plan.cu builds it (64-column grain). Checked: the order is a permutation
// that keeps every non-zero in its own (row, column block) segment, so each row's sum is the same sum; the
// kernel's wavefronts per X' load phase drop from the CSR order's (about 2.3 at 10% density for fp32) to near
// one; a table that does not tile the non-zeros is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "spmm/bank_order.hpp"
#include "spmm_host_pattern.hpp"

namespace snk::cuda {
namespace {

std::mt19937& rng() {
  static std::mt19937 g(std::random_device{}());
  return g;
}

using Pattern = HostPattern;

Pattern make(int rows, int cols, double density, int empty_every = 0, int short_every = 0) {
  return make_host_pattern(rng(), rows, cols, density, empty_every, short_every);
}

// The order is a permutation, and each position's non-zero comes from the same (row, block) segment.
void expect_within_segments(const Pattern& p, const HeldSegments& s, const std::vector<std::int32_t>& perm) {
  ASSERT_EQ(p.col.size(), perm.size());
  std::vector<char> seen(perm.size(), 0);
  std::int64_t outside = 0;
  for (int r = 0; r < p.rows; ++r)
    for (int c = 0; c < s.n_blocks(); ++c)
      for (std::int64_t q = s.begin(c, r); q < s.end(c, r); ++q) {
        const std::int32_t src = perm[static_cast<std::size_t>(q)];
        ASSERT_GE(src, 0);
        ASSERT_LT(static_cast<std::size_t>(src), perm.size());
        outside += src < s.begin(c, r) || src >= s.end(c, r);
        seen[static_cast<std::size_t>(src)]++;
      }
  EXPECT_EQ(0, outside) << "non-zeros moved out of their segment";
  EXPECT_EQ(perm.size(), static_cast<std::size_t>(std::count(seen.begin(), seen.end(), 1))) << "not a permutation";
}

std::vector<std::uint16_t> reordered(const Pattern& p, const std::vector<std::int32_t>& perm) {
  std::vector<std::uint16_t> c(perm.size());
  for (std::size_t q = 0; q < perm.size(); ++q) c[q] = p.col16[static_cast<std::size_t>(perm[q])];
  return c;
}

// Orders p's segments of block_cols columns for `residues` (checking that the order stays within the
// segments) and gives the kernel's wavefronts per load phase in CSR order and in the bank order.
void order_and_count(const Pattern& p, int block_cols, int residues, double& before, double& after) {
  const HeldSegments s = segments(p, block_cols);
  const std::int64_t nnz = static_cast<std::int64_t>(p.col.size());
  std::vector<std::int32_t> perm;
  ASSERT_TRUE(held_bank_order(p.col16.data(), nnz, s, residues, perm));
  expect_within_segments(p, s, perm);
  before = held_bank_wavefronts(p.col16.data(), nnz, s, residues);
  after = held_bank_wavefronts(reordered(p, perm).data(), nnz, s, residues);
}

TEST(SpmmBankOrder, UniformRowsNearlyConflictFree) {
  // 16384 columns in three blocks of 5504 (the fp32 layout of the benchmark's 16384 x 16384 at 90%), 10%.
  double before = 0, after = 0;
  ASSERT_NO_FATAL_FAILURE(order_and_count(make(600, 16384, 0.10), 5504, held_bank_residues(4), before, after));
  std::printf("fp32, 10%%: wavefronts per load phase %.3f in CSR order, %.3f in bank order\n", before, after);
  EXPECT_GT(before, 2.0);
  EXPECT_LT(after, 1.2);
  EXPECT_GE(after, 1.0);

  // fp16 / bf16: 16-byte X' rows, eight residues, 16 lanes per phase; two blocks of 10048 (5%).
  ASSERT_EQ(8, held_bank_residues(2));
  double hb = 0, ha = 0;
  ASSERT_NO_FATAL_FAILURE(order_and_count(make(400, 16384, 0.05), 10048, 8, hb, ha));
  std::printf("fp16, 5%%: wavefronts per load phase %.3f in CSR order, %.3f in bank order\n", hb, ha);
  EXPECT_GT(hb, 2.0);
  EXPECT_LT(ha, 1.35);
}

TEST(SpmmBankOrder, EmptyShortAndSingleBlockRows) {
  // One block holding all 4096 columns; empty rows and rows of one to three non-zeros among 5% rows.
  const Pattern p = make(500, 4096, 0.05, 7, 5);
  for (int block_cols : {4096, 1024, 64}) {
    SCOPED_TRACE(block_cols);
    double before = 0, after = 0;
    ASSERT_NO_FATAL_FAILURE(order_and_count(p, block_cols, 4, before, after));
    EXPECT_LE(after, before);
  }
  // No non-zeros at all.
  const Pattern e = make(20, 300, 0.0, 1);
  std::vector<std::int32_t> perm{1, 2, 3};
  EXPECT_TRUE(held_bank_order(e.col16.data(), 0, segments(e, 128), 4, perm));
  EXPECT_TRUE(perm.empty());
}

TEST(SpmmBankOrder, SameOrderOnAnyNumberOfThreads) {
  // Rows are dealt out to host threads in chunks of 256 (host_threads.hpp); the order must not depend on how
  // many: 3000 rows make 12 chunks.
  const Pattern p = make(3000, 4096, 0.05, 7, 3);
  const std::int64_t nnz = static_cast<std::int64_t>(p.col.size());
  for (int residues : {4, 8}) {
    std::vector<std::int32_t> one;
    ASSERT_TRUE(held_bank_order(p.col16.data(), nnz, segments(p, 1024), residues, one, 1));
    expect_within_segments(p, segments(p, 1024), one);
    for (int threads : {2, 5, 16}) {
      std::vector<std::int32_t> many;
      ASSERT_TRUE(held_bank_order(p.col16.data(), nnz, segments(p, 1024), residues, many, threads));
      EXPECT_EQ(one, many) << residues << " residues, " << threads << " threads";
    }
  }
}

TEST(SpmmBankOrder, RefusesTablesThatDoNotTileTheNonZeros) {
  Pattern p = make(50, 1000, 0.1);
  const std::int64_t nnz = static_cast<std::int64_t>(p.col.size());
  std::vector<std::int32_t> perm;
  EXPECT_FALSE(held_bank_order(p.col16.data(), nnz + 1, segments(p, 256), 4, perm));   // nnz past the table
  EXPECT_TRUE(perm.empty());
  EXPECT_FALSE(held_bank_order(p.col16.data(), nnz, segments(p, 256), 3, perm));       // no such kernel layout
  EXPECT_EQ(0, held_bank_residues(8));                                                  // fp64: not this kernel
  Pattern gap = p;   // row 9 ends one non-zero before row 10 begins
  gap.bounds[static_cast<std::size_t>(gap.n_fine) * gap.rows + 9] -= 1;
  EXPECT_FALSE(held_bank_order(gap.col16.data(), nnz, segments(gap, 256), 4, perm));
  EXPECT_EQ(0.0, held_bank_wavefronts(gap.col16.data(), nnz, segments(gap, 256), 4));
  Pattern inverted = p;   // row 10's first block ends after its second
  const std::size_t rows = static_cast<std::size_t>(inverted.rows);
  inverted.bounds[4 * rows + 10] = inverted.bounds[8 * rows + 10] + 1;
  EXPECT_FALSE(held_bank_order(inverted.col16.data(), nnz, segments(inverted, 256), 4, perm));
}

}  // namespace
}  // namespace snk::cuda
