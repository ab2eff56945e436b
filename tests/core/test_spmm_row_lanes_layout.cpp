// tests/core/test_spmm_row_lanes_layout.cpp: the interleaved, length-sorted order of the lanes-across-rows
// kernel's non-zeros (backends/cuda/spmm/row_lanes_layout.hpp), on the host: it runs where no GPU is (the GPU
// tests run the kernel with values bound in that order against a float64 reference).
//
// Fresh random patterns (rows not a multiple of 32 and fewer than 32, empty rows, rows of one to three non-zeros, no
// non-zeros at all) with the plan's column-boundary table built as plan.cu builds it (64-column grain), cut into one
// column block or several, in one row range per block and in several (more than the rows' groups too). Checked: the
// header's sizes; each block's ranges cover its rows in order, each within one row's weight of an equal share (a row
// weighing its segment's length + 1); each (block, row range) holds its rows once each in its groups' first slots,
// longest segment first (ties by row), and the slots past them are empty; each group's chunks are its longest lane's,
// and the groups lie one after another, 128-aligned, in (block, group) order; the order is a permutation of the CSR
// positions plus pads, with lane l's i-th non-zero of its segment at start + ((i / 4) * 32 + l) * 4 + i % 4; on a
// uniform 10% pattern the pads stay a few percent, a fraction of what the rows in plain order would take; bad arguments
// and tables that do not tile the non-zeros are refused and leave the layout empty.
// With residues (4, and 1, 3, 8 on one pattern) and the packed columns, the same properties hold except that each
// group holds its rows in any slot order and each lane holds a permutation of its segment in the residue order:
// each class's non-zeros in CSR order, and two lanes of a half-phase (lanes 8 q + 2 j + h, j = 0 .. 3) take one
// class at one step only where one of them had no class left that no other lane of the half-phase took then; on
// a uniform 10% pattern at batch tile 8 (blocks of 1408 columns) that brings the mean wavefronts of a load phase
// of eight lanes from about 2.4 (CSR order) to under 1.12 (about 1.08; 1.22 with a fixed rotation of the classes
// per lane); residues without the columns, or past 8, and pieces other than 1, 2, 4, 8 are refused. The same for
// 16-bit X' rows: one piece with 8 classes (the phase's eight lanes) and four pieces with 2 (each piece-phase's two
// lanes). These are every order the kernel reads: fp32 X' rows at batch tiles 8, 16, 24 and 32 take (pieces,
// classes) (2, 4), (4, 2), (2, 4) and (8, none), 16-bit rows (1, 8), (2, 4) and (4, 2). At tile 24 (96-byte rows, six
// pieces) the kernel walks each row's pieces from lane mod 2 on, wrapping at 6: over all six steps that order keeps a
// phase's eight lanes in about as few wavefronts as tile 8's first load.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "spmm/row_lanes_layout.hpp"
#include "spmm_host_pattern.hpp"

namespace snk::cuda {
namespace {

const unsigned kSeed = std::random_device{}();

std::mt19937& rng() {
  static std::mt19937 g{kSeed};
  return g;
}

using Pattern = HostPattern;

Pattern make(int rows, int cols, double density, int empty_every = 0, int short_every = 0) {
  return make_host_pattern(rng(), rows, cols, density, empty_every, short_every);
}

// Counts the failures of one kind and keeps the first one's description, so a broken layout reports one line
// per property instead of one per slot.
struct Misses {
  std::int64_t n = 0;
  std::string first;
  template <class F>
  void check(bool ok, F describe) {
    if (ok) return;
    if (n++ == 0) {
      std::ostringstream s;
      describe(s);
      first = s.str();
    }
  }
};

#define EXPECT_NO_MISSES(m, what) EXPECT_EQ(0, (m).n) << what << "; first: " << (m).first

// Builds the layout of p's segments of block_cols columns in n_ranges row ranges per block (in the residue order
// of `residues` classes with p's packed columns where residues > 0, else in CSR order through the default
// arguments) and checks every property the header documents.
void build_and_check(const Pattern& p, int block_cols, std::int32_t n_ranges, RowLanesLayout* kept = nullptr,
                     int residues = 0, int pieces = 2) {
  SCOPED_TRACE(::testing::Message() << "seed " << kSeed << ", " << p.rows << " x " << p.cols << ", nnz " << p.nnz()
                                    << ", blocks of " << block_cols << " columns, " << n_ranges << " ranges"
                                    << ", residues " << residues << ", pieces " << pieces);
  const HeldSegments seg = segments(p, block_cols);
  const std::int64_t nnz = p.nnz();
  const std::vector<std::uint16_t>& col16 = p.col16;
  RowLanesLayout L;
  if (residues == 0) ASSERT_TRUE(build_row_lanes_layout(seg, nnz, n_ranges, L));
  else ASSERT_TRUE(build_row_lanes_layout(seg, nnz, n_ranges, L, col16.data(), residues, pieces));

  // 1. The header's sizes, and each block's ranges: contiguous, covering the rows, each within one row's weight
  // (segment length + 1) of an equal share of the block's weight, and groups_per_range the groups of the widest.
  const int nb = seg.n_blocks();
  const std::int32_t rows = p.rows;
  ASSERT_EQ(nb, L.n_blocks);
  ASSERT_EQ(rows, L.rows);
  ASSERT_EQ(n_ranges, L.n_ranges);
  ASSERT_EQ(static_cast<std::size_t>(nb) * (static_cast<std::size_t>(n_ranges) + 1), L.range_first.size());
  auto first = [&](int c, std::int32_t u) {
    return L.range_first[static_cast<std::size_t>(c) * (static_cast<std::size_t>(n_ranges) + 1) + static_cast<std::size_t>(u)];
  };
  std::int32_t widest = 0;
  for (int c = 0; c < nb; ++c) {
    auto weight = [&](std::int32_t r) { return seg.end(c, r) - seg.begin(c, r) + 1; };
    std::int64_t total = 0, heaviest = 0;
    for (std::int32_t r = 0; r < rows; ++r) {
      total += weight(r);
      heaviest = std::max(heaviest, weight(r));
    }
    ASSERT_EQ(0, first(c, 0)) << "block " << c;
    ASSERT_EQ(rows, first(c, n_ranges)) << "block " << c;
    for (std::int32_t u = 0; u < n_ranges; ++u) {
      ASSERT_LE(first(c, u), first(c, u + 1)) << "block " << c << " range " << u;
      std::int64_t w = 0;
      for (std::int32_t r = first(c, u); r < first(c, u + 1); ++r) w += weight(r);
      EXPECT_LE(w, (total + n_ranges - 1) / n_ranges + heaviest)
          << "block " << c << " range " << u << " rows " << first(c, u) << " .. " << first(c, u + 1);
      widest = std::max(widest, first(c, u + 1) - first(c, u));
    }
  }
  ASSERT_EQ((widest + 31) / 32, L.groups_per_range);
  const std::int32_t n_groups = L.groups_per_range * n_ranges;
  ASSERT_EQ(n_groups, L.n_groups);
  const std::size_t groups = static_cast<std::size_t>(nb) * static_cast<std::size_t>(n_groups);
  ASSERT_EQ(groups, L.group_start.size());
  ASSERT_EQ(groups, L.group_chunks.size());
  ASSERT_EQ(groups * 32, L.slot_row.size());
  ASSERT_EQ(groups * 32, L.slot_len.size());

  // 2. Each (block, row range): its rows once each in the first slots of its groups, longest segment first, ties
  // by row; the slots past them empty.
  Misses order, lengths, empty;
  for (int c = 0; c < nb; ++c) {
    auto len = [&](std::int32_t r) { return seg.end(c, r) - seg.begin(c, r); };
    for (std::int32_t u = 0; u < n_ranges; ++u) {
      const std::size_t base = (static_cast<std::size_t>(c) * static_cast<std::size_t>(n_groups) +
                                static_cast<std::size_t>(u) * static_cast<std::size_t>(L.groups_per_range)) * 32;
      const std::int32_t r0 = first(c, u), r1 = first(c, u + 1), n = r1 - r0;
      std::vector<std::int32_t> want;
      for (std::int32_t r = r0; r < r1; ++r) want.push_back(r);
      std::sort(want.begin(), want.end(), [&](std::int32_t a, std::int32_t b) {
        return len(a) != len(b) ? len(a) > len(b) : a < b;
      });
      // In the residue order the slots of a group may hold its rows in any order (balance_phases): compare the
      // group's rows as sorted sets there.
      std::vector<std::int32_t> got_rows(L.slot_row.begin() + static_cast<std::ptrdiff_t>(base),
                                         L.slot_row.begin() + static_cast<std::ptrdiff_t>(base + n));
      if (residues > 0)
        for (std::size_t g0 = 0; g0 < got_rows.size(); g0 += 32) {
          const std::size_t g1 = std::min(got_rows.size(), g0 + 32);
          std::sort(got_rows.begin() + static_cast<std::ptrdiff_t>(g0), got_rows.begin() + static_cast<std::ptrdiff_t>(g1));
          std::sort(want.begin() + static_cast<std::ptrdiff_t>(g0), want.begin() + static_cast<std::ptrdiff_t>(g1));
        }
      for (std::int32_t s = 0; s < n; ++s) {
        const std::int32_t got = L.slot_row[base + static_cast<std::size_t>(s)];
        const std::int32_t got_sorted = got_rows[static_cast<std::size_t>(s)];
        const std::int32_t want_row = want[static_cast<std::size_t>(s)];
        order.check(got_sorted == want_row, [&](std::ostream& o) {
          o << "block " << c << " range " << u << " slot " << s << " holds row " << got_sorted
            << " (in its group's sorted rows), want row " << want_row;
        });
        if (got < r0 || got >= r1) continue;
        const std::int32_t got_len = L.slot_len[base + static_cast<std::size_t>(s)];
        lengths.check(got_len == len(got), [&](std::ostream& o) {
          o << "block " << c << " range " << u << " slot " << s << " (row " << got << ") length " << got_len
            << ", want " << len(got);
        });
      }
      for (std::int32_t s = n; s < L.groups_per_range * 32; ++s) {
        const std::int32_t r = L.slot_row[base + static_cast<std::size_t>(s)];
        const std::int32_t m = L.slot_len[base + static_cast<std::size_t>(s)];
        empty.check(r == -1 && m == 0, [&](std::ostream& o) {
          o << "block " << c << " range " << u << " slot " << s << " past its rows holds row " << r << " of length " << m;
        });
      }
    }
  }
  EXPECT_NO_MISSES(order, "slots out of length order");
  EXPECT_NO_MISSES(lengths, "slot lengths that are not the segments'");
  EXPECT_NO_MISSES(empty, "slots past a range's rows not empty");

  // 3. Each group's chunks cover its longest lane; the groups lie one after another, 128-aligned.
  Misses chunks, starts;
  std::int64_t next = 0;
  for (std::size_t gi = 0; gi < groups; ++gi) {
    std::int32_t most = 0;
    for (std::size_t l = 0; l < 32; ++l) most = std::max(most, L.slot_len[gi * 32 + l]);
    chunks.check(L.group_chunks[gi] == (most + 3) / 4, [&](std::ostream& o) {
      o << "group " << gi << " has " << L.group_chunks[gi] << " chunks for a longest lane of " << most;
    });
    starts.check(L.group_start[gi] == next && L.group_start[gi] % 128 == 0, [&](std::ostream& o) {
      o << "group " << gi << " starts at " << L.group_start[gi] << ", want " << next;
    });
    next = L.group_start[gi] + std::int64_t(L.group_chunks[gi]) * 128;
  }
  EXPECT_NO_MISSES(chunks, "groups with the wrong chunk count");
  EXPECT_NO_MISSES(starts, "groups not laid out consecutively");
  ASSERT_EQ(next, static_cast<std::int64_t>(L.perm.size()));

  // 4. The order: each CSR position once, pads elsewhere. In CSR order (residues 0) lane l's i-th non-zero of its
  // segment at its interleaved position start + ((i / 4) * 32 + l) * 4 + i % 4; in the residue order the lane's
  // first `length` positions hold a permutation of its segment, taken by the residue rule, and the rest pads.
  std::vector<int> seen(static_cast<std::size_t>(nnz), 0);
  std::int64_t pads = 0, out_of_range = 0;
  for (std::int32_t q : L.perm) {
    if (q == -1) ++pads;
    else if (q < 0 || q >= nnz) ++out_of_range;
    else ++seen[static_cast<std::size_t>(q)];
  }
  EXPECT_EQ(0, out_of_range) << "perm entries outside 0 .. nnz - 1 and not -1";
  EXPECT_EQ(nnz, std::count(seen.begin(), seen.end(), 1)) << "not every CSR position exactly once";
  EXPECT_EQ(static_cast<std::int64_t>(L.perm.size()) - nnz, pads);
  Misses placed, permuted, rule, class_order;
  auto cls = [&](std::int64_t q) { return static_cast<int>(col16[static_cast<std::size_t>(q)] % residues); };
  for (std::size_t gi = 0; gi < groups; ++gi) {
    const int c = static_cast<int>(gi / static_cast<std::size_t>(n_groups));
    std::vector<std::int64_t> lane_held[32];   // residue order: each lane's non-zeros, in layout order
    for (std::int64_t l = 0; l < 32; ++l) {
      const std::int32_t r = L.slot_row[gi * 32 + static_cast<std::size_t>(l)];
      const std::int64_t n = r < 0 ? 0 : seg.end(c, r) - seg.begin(c, r);
      const std::int64_t S = r < 0 ? 0 : seg.begin(c, r);
      std::vector<std::int64_t> held;   // residue order: the lane's first n entries, in layout order
      for (std::int64_t i = 0; i < std::int64_t(L.group_chunks[gi]) * 4; ++i) {
        const std::int64_t at = L.group_start[gi] + ((i / 4) * 32 + l) * 4 + i % 4;
        if (at < 0 || at >= static_cast<std::int64_t>(L.perm.size())) {
          placed.check(false, [&](std::ostream& o) { o << "group " << gi << " lane " << l << " runs past perm"; });
          continue;
        }
        const std::int32_t got = L.perm[static_cast<std::size_t>(at)];
        if (residues > 0 && i < n) {
          held.push_back(got);
          continue;
        }
        const std::int64_t want = i < n ? S + i : -1;
        placed.check(got == want, [&](std::ostream& o) {
          o << "block " << c << " group " << gi << " lane " << l << " (row " << r << ", length " << n << ") item "
            << i << " at " << at << " holds " << got << ", want " << want;
        });
      }
      if (residues == 0 || n == 0) continue;
      // The lane's non-zeros: exactly its segment [S, S + n), each once.
      std::vector<std::int64_t> sorted = held;
      std::sort(sorted.begin(), sorted.end());
      bool is_segment = static_cast<std::int64_t>(sorted.size()) == n;
      for (std::size_t j = 0; is_segment && j < sorted.size(); ++j) is_segment = sorted[j] == S + std::int64_t(j);
      permuted.check(is_segment, [&](std::ostream& o) {
        o << "block " << c << " group " << gi << " lane " << l << " (row " << r << ") holds";
        for (std::int64_t q : held) o << ' ' << q;
        o << ", not a permutation of [" << S << ", " << S + n << ")";
      });
      if (!is_segment) continue;
      // Each class's non-zeros in CSR order within the lane.
      std::int64_t last[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t q = held[static_cast<std::size_t>(i)];
        const int got = cls(q);
        class_order.check(q > last[got], [&](std::ostream& o) {
          o << "block " << c << " group " << gi << " lane " << l << " (row " << r << ") item " << i << ": CSR " << q
            << " of class " << got << " after CSR " << last[got] << " of the same class";
        });
        last[got] = q;
      }
      lane_held[l] = std::move(held);
    }
    if (residues == 0) continue;
    // The residue rule, replayed step by step on each piece-phase (lanes 8 q + pieces j + h, j = 0 .. 8 / pieces
    // - 1): two of its lanes take one class at one step only where one of them had no class left that no other lane
    // took then.
    const int n_lanes = 8 / pieces;
    for (int phase = 0; phase < 4 * pieces; ++phase) {
      int lanes[8] = {};
      std::int64_t left[8][8] = {};
      for (int j = 0; j < n_lanes; ++j) {
        lanes[j] = 8 * (phase / pieces) + pieces * j + phase % pieces;
        for (std::int64_t q : lane_held[lanes[j]]) ++left[j][cls(q)];
      }
      for (std::size_t i = 0;; ++i) {
        int taken[8] = {}, got[8] = {-1, -1, -1, -1, -1, -1, -1, -1}, active = 0;
        for (int j = 0; j < n_lanes; ++j)
          if (i < lane_held[lanes[j]].size()) {
            got[j] = cls(lane_held[lanes[j]][i]);
            ++taken[got[j]];
            ++active;
          }
        if (active == 0) break;
        for (int k = 0; k < residues; ++k) {
          if (taken[k] < 2) continue;
          bool forced = false;   // some lane of the clash had every class it had left taken by another lane
          for (int j = 0; j < n_lanes && !forced; ++j) {
            if (got[j] != k) continue;
            forced = true;
            for (int m = 0; m < residues; ++m)
              if (left[j][m] > 0 && taken[m] - (m == k ? 1 : 0) == 0) forced = false;
          }
          rule.check(forced, [&](std::ostream& o) {
            o << "block " << c << " group " << gi << " piece-phase " << phase << " step " << i << ": " << taken[k]
              << " lanes take class " << k << " where each had a free class";
          });
        }
        for (int j = 0; j < n_lanes; ++j)
          if (got[j] >= 0) --left[j][got[j]];
      }
    }
  }
  EXPECT_NO_MISSES(placed, (residues == 0 ? "non-zeros not at their interleaved positions" : "lanes' pads not -1"));
  EXPECT_NO_MISSES(permuted, "lanes not holding a permutation of their segment");
  EXPECT_NO_MISSES(rule, "non-zeros not in the residue order");
  EXPECT_NO_MISSES(class_order, "a class's non-zeros out of CSR order");
  if (kept) *kept = std::move(L);
}

TEST(SpmmRowLanesLayout, RaggedRowsOneBlockAndSeveral) {
  // 1000 rows (not a multiple of 32) over 1000 columns at 10%, every 7th row empty and every 5th of 1-3.
  const Pattern p = make(1000, 1000, 0.10, 7, 5);
  for (int block_cols : {64, 128, 1024}) {
    EXPECT_EQ(block_cols == 1024, segments(p, block_cols).n_blocks() == 1);
    for (std::int32_t ranges : {1, 3, 16, 40}) ASSERT_NO_FATAL_FAILURE(build_and_check(p, block_cols, ranges));
  }
  // 300 columns: five fine blocks, in blocks of 64 (5), 128 (3, the last one short) and 320 (1).
  const Pattern q = make(333, 300, 0.20, 11, 3);
  for (int block_cols : {64, 128, 320}) {
    EXPECT_EQ(block_cols == 320, segments(q, block_cols).n_blocks() == 1);
    for (std::int32_t ranges : {1, 5, 11}) ASSERT_NO_FATAL_FAILURE(build_and_check(q, block_cols, ranges));
  }
}

TEST(SpmmRowLanesLayout, FewRowsShortRowsAndNoNonZeros) {
  // Fewer rows than a warp's lanes: one group, most of its slots empty.
  const Pattern few = make(20, 700, 0.15, 4, 3);
  for (int block_cols : {64, 128, 704})
    for (std::int32_t ranges : {1, 2, 7}) ASSERT_NO_FATAL_FAILURE(build_and_check(few, block_cols, ranges));
  // Every row one to three non-zeros: groups of a single chunk.
  const Pattern tiny = make(97, 500, 0.0, 0, 1);
  for (int block_cols : {64, 128, 512})
    for (std::int32_t ranges : {1, 3, 4}) ASSERT_NO_FATAL_FAILURE(build_and_check(tiny, block_cols, ranges));
  // No non-zeros: every group has no chunks and the order is empty.
  const Pattern none = make(45, 300, 0.0);
  ASSERT_EQ(0, none.nnz());
  for (int block_cols : {64, 128, 320})
    for (std::int32_t ranges : {1, 2}) {
      RowLanesLayout L;
      ASSERT_NO_FATAL_FAILURE(build_and_check(none, block_cols, ranges, &L));
      EXPECT_TRUE(L.perm.empty());
      EXPECT_EQ(std::vector<std::int32_t>(L.group_chunks.size(), 0), L.group_chunks);
    }
  // No rows at all: nothing to lay out.
  const Pattern no_rows = make(0, 300, 0.1);
  RowLanesLayout L;
  ASSERT_NO_FATAL_FAILURE(build_and_check(no_rows, 128, 32, &L));
  EXPECT_EQ(0, L.n_groups);
  EXPECT_TRUE(L.perm.empty());
}

TEST(SpmmRowLanesLayout, ResidueOrderOnRaggedShortAndEmptyRows) {
  // The shapes of the two tests above, in the residue order of four classes.
  const Pattern p = make(1000, 1000, 0.10, 7, 5);
  for (int block_cols : {64, 128, 1024})
    for (std::int32_t ranges : {1, 3, 16, 40}) ASSERT_NO_FATAL_FAILURE(build_and_check(p, block_cols, ranges, nullptr, 4));
  const Pattern q = make(333, 300, 0.20, 11, 3);
  for (int block_cols : {64, 128, 320})
    for (std::int32_t ranges : {1, 5, 11}) ASSERT_NO_FATAL_FAILURE(build_and_check(q, block_cols, ranges, nullptr, 4));
  const Pattern few = make(20, 700, 0.15, 4, 3);
  for (int block_cols : {64, 128, 704})
    for (std::int32_t ranges : {1, 2, 7}) ASSERT_NO_FATAL_FAILURE(build_and_check(few, block_cols, ranges, nullptr, 4));
  const Pattern tiny = make(97, 500, 0.0, 0, 1);
  for (int block_cols : {64, 128, 512})
    for (std::int32_t ranges : {1, 3, 4})
      ASSERT_NO_FATAL_FAILURE(build_and_check(tiny, block_cols, ranges, nullptr, 4));
  const Pattern none = make(45, 300, 0.0);
  for (int block_cols : {64, 128, 320})
    for (std::int32_t ranges : {1, 2}) {
      RowLanesLayout L;
      ASSERT_NO_FATAL_FAILURE(build_and_check(none, block_cols, ranges, &L, 4));
      EXPECT_TRUE(L.perm.empty());
    }
  RowLanesLayout L;
  ASSERT_NO_FATAL_FAILURE(build_and_check(make(0, 300, 0.1), 128, 32, &L, 4));
  EXPECT_EQ(0, L.n_groups);
  EXPECT_TRUE(L.perm.empty());
  // Other class counts (1: CSR order again; 3: not a divisor of the 64-column grain; 8: the most allowed).
  for (int residues : {1, 3, 8})
    for (int block_cols : {64, 1024})
      for (std::int32_t ranges : {1, 32})
        ASSERT_NO_FATAL_FAILURE(build_and_check(p, block_cols, ranges, nullptr, residues));
}

TEST(SpmmRowLanesLayout, SameLayoutOnAnyNumberOfThreads) {
  // The units (column block, row range) and the groups are dealt out to host threads (host_threads.hpp); the
  // layout must not depend on how many. Several chunks per thread: 4000 rows in 63 ranges (63 ranges x 4
  // blocks in pass 1, 500 groups in pass 2).
  const Pattern p = make(4000, 1024, 0.08, 9, 4);
  for (int residues : {0, 4}) {
    RowLanesLayout one;
    ASSERT_TRUE(build_row_lanes_layout(segments(p, 256), p.nnz(), 63, one, p.col16.data(), residues, 2, 1));
    for (int threads : {2, 3, 8}) {
      RowLanesLayout many;
      ASSERT_TRUE(build_row_lanes_layout(segments(p, 256), p.nnz(), 63, many, p.col16.data(), residues, 2, threads));
      EXPECT_EQ(one.perm, many.perm) << residues << " residues, " << threads << " threads";
      EXPECT_EQ(one.slot_row, many.slot_row) << residues << " residues, " << threads << " threads";
      EXPECT_EQ(one.slot_len, many.slot_len) << residues << " residues, " << threads << " threads";
      EXPECT_EQ(one.group_start, many.group_start) << residues << " residues, " << threads << " threads";
      EXPECT_EQ(one.group_chunks, many.group_chunks) << residues << " residues, " << threads << " threads";
    }
  }
  // And the tests above, on the default count, check the properties of what it builds.
}

// The mean wavefronts of the kernel's first shared-memory load of X' per non-zero over p's layout (blocks of
// block_cols columns, n_ranges ranges, the given residues) for X' rows of `pieces` 16-byte pieces (8 / pieces rows
// to a bank line): the piece (lane mod pieces) of column j a lane reads lies in bank group
// (pieces * (j % (8 / pieces)) + lane % pieces) % 8, and a load phase of eight lanes (8q .. 8q + 7) takes as many
// wavefronts as the most lanes in one group. Averaged over every group, chunk step, slot and phase with a real
// non-zero (pads read nothing); prints and records it.
void mean_wavefronts(const Pattern& p, int block_cols, std::int32_t n_ranges, int residues, double& mean,
                     int pieces = 2) {
  RowLanesLayout L;
  ASSERT_NO_FATAL_FAILURE(build_and_check(p, block_cols, n_ranges, &L, residues, pieces));
  double sum = 0;
  std::int64_t phases = 0;
  for (std::size_t gi = 0; gi < L.group_start.size(); ++gi)
    for (std::int64_t k = 0; k < L.group_chunks[gi]; ++k)
      for (std::int64_t t = 0; t < 4; ++t)
        for (std::int64_t q = 0; q < 4; ++q) {
          int lanes[8] = {}, real = 0;
          for (std::int64_t l = 8 * q; l < 8 * q + 8; ++l) {
            const std::int32_t v = L.perm[static_cast<std::size_t>(L.group_start[gi] + (k * 32 + l) * 4 + t)];
            if (v < 0) continue;
            ++real;
            ++lanes[(pieces * (p.col[static_cast<std::size_t>(v)] % (8 / pieces)) + l % pieces) % 8];
          }
          if (real == 0) continue;
          sum += *std::max_element(lanes, lanes + 8);
          ++phases;
        }
  ASSERT_GT(phases, 0);
  mean = sum / static_cast<double>(phases);
  std::cout << p.rows << " x " << p.cols << ", " << segments(p, block_cols).n_blocks() << " blocks of " << block_cols
            << " columns, " << n_ranges << " ranges, residues " << residues << ", pieces " << pieces << ": " << phases
            << " load phases, mean wavefronts " << mean << "\n";
  ::testing::Test::RecordProperty("mean_wavefronts_residues_" + std::to_string(residues) + "_pieces_" +
                                      std::to_string(pieces),
                                  std::to_string(mean));
}

TEST(SpmmRowLanesLayout, ResidueOrderSpreadsTheLoadPhasesOverTheBanks) {
  // 2048 x 4096 at 10%, blocks of 1408 columns (a 44 KB tile of 32-byte rows: 22 fine blocks, the last block 20),
  // four ranges (512 rows each). In CSR order the eight lanes of a phase fall into the four even and four odd bank
  // groups at random (about 2.38 wavefronts); in the residue order each half-phase's lanes take distinct classes until
  // its rows' tails, where the half-phase's most frequent class outlasts the others: about 1.08 in all (the
  // half-phases' class totals bound it below by about 1.03).
  const Pattern p = make(2048, 4096, 0.10);
  ASSERT_EQ(3, segments(p, 1408).n_blocks());
  double csr = 0, residue = 0;
  ASSERT_NO_FATAL_FAILURE(mean_wavefronts(p, 1408, 4, 0, csr));
  ASSERT_NO_FATAL_FAILURE(mean_wavefronts(p, 1408, 4, 4, residue));
  EXPECT_GT(csr, 1.8);
  EXPECT_LT(residue, 1.12);
}

// Tile 24: X' rows of 96 bytes (six 16-byte pieces), lane l reading piece (kk + l mod 2) mod 6 of its row at step kk
// (rowlanes_piece), so piece j of column c lies in bank group (6 (c mod 4) + j) mod 8. The mean wavefronts of a load
// phase of eight lanes over all six steps, in the order the plan builds for it (rowlanes_residues(96) classes,
// rowlanes_first_pieces(6) first pieces), and in CSR order.
double tile24_wavefronts(const Pattern& p, const RowLanesLayout& L) {
  double sum = 0;
  std::int64_t phases = 0;
  for (std::size_t gi = 0; gi < L.group_start.size(); ++gi)
    for (std::int64_t k = 0; k < L.group_chunks[gi]; ++k)
      for (std::int64_t t = 0; t < 4; ++t)
        for (std::int64_t q = 0; q < 4; ++q)
          for (int kk = 0; kk < 6; ++kk) {
            int lanes[8] = {}, real = 0;
            for (std::int64_t l = 8 * q; l < 8 * q + 8; ++l) {
              const std::int32_t v = L.perm[static_cast<std::size_t>(L.group_start[gi] + (k * 32 + l) * 4 + t)];
              if (v < 0) continue;
              ++real;
              const int piece = rowlanes_piece(6, kk, static_cast<int>(l % rowlanes_first_pieces(6)));
              ++lanes[(6 * (p.col[static_cast<std::size_t>(v)] % 4) + piece) % 8];
            }
            if (real == 0) continue;
            sum += *std::max_element(lanes, lanes + 8);
            ++phases;
          }
  return phases ? sum / static_cast<double>(phases) : 0;
}

TEST(SpmmRowLanesLayout, TileTwentyFourStepsStayOffEachOthersBanks) {
  const Pattern p = make(2048, 4096, 0.10);
  RowLanesLayout csr, residue;
  ASSERT_NO_FATAL_FAILURE(build_and_check(p, 1408, 4, &csr, 0, rowlanes_first_pieces(6)));
  ASSERT_NO_FATAL_FAILURE(build_and_check(p, 1408, 4, &residue, rowlanes_residues(96), rowlanes_first_pieces(6)));
  const double in_csr = tile24_wavefronts(p, csr), in_residue = tile24_wavefronts(p, residue);
  std::cout << "tile 24, 2048 x 4096 at 10%, blocks of 1408: mean wavefronts " << in_csr << " in CSR order, "
            << in_residue << " in the residue order\n";
  EXPECT_GT(in_csr, 1.8);
  EXPECT_LT(in_residue, 1.12);
}

TEST(SpmmRowLanesLayout, ResidueOrderOfSixteenBitRows) {
  // 16-bit X' rows: at batch tile 8 a row is 16 bytes (one piece, eight rows to a bank line: the eight lanes of a
  // phase should take eight distinct classes mod 8), at tile 32 64 bytes (four pieces, two rows to a line: the two
  // lanes of each piece-phase should take distinct parities). 2048 x 4096 at 10% in blocks of 1408 columns (the
  // kernel takes fp32's blocks for 16-bit X' too). In CSR order a phase of eight lanes takes about 2.6
  // (8 classes) or 1.9 (2 classes) wavefronts; in the residue order about 1.17 and 1.03.
  const Pattern p = make(2048, 4096, 0.10);
  for (int pieces : {1, 4}) {
    SCOPED_TRACE(pieces);
    const int residues = 8 / pieces;
    double csr = 0, residue = 0;
    ASSERT_NO_FATAL_FAILURE(mean_wavefronts(p, 1408, 4, 0, csr, pieces));
    ASSERT_NO_FATAL_FAILURE(mean_wavefronts(p, 1408, 4, residues, residue, pieces));
    EXPECT_GT(csr, 1.6);
    EXPECT_LT(residue, pieces == 1 ? 1.2 : 1.06);
  }
  // The layout's properties on the ragged shapes, in both 16-bit orders.
  const Pattern q = make(333, 300, 0.20, 11, 3);
  for (int block_cols : {64, 128, 320})
    for (std::int32_t ranges : {1, 5, 11}) {
      ASSERT_NO_FATAL_FAILURE(build_and_check(q, block_cols, ranges, nullptr, 8, 1));
      ASSERT_NO_FATAL_FAILURE(build_and_check(q, block_cols, ranges, nullptr, 2, 4));
    }
}

// The pads of p's layout for blocks of block_cols columns in n_ranges row ranges, as fractions of the non-zeros:
// `walked`, the positions that lanes holding a row step over past its end (each lane rounded up to its group's
// chunks: what the warps walk without work); `held`, all positions past the non-zeros (also the empty lanes of a
// range's last, partial group: memory the kernel never reads); and `plain`, those the same groups would hold with
// the rows in plain order (no sort) and no ranges. Prints and records them.
void pads_of(const Pattern& p, int block_cols, std::int32_t n_ranges, double& walked, double& held, double& plain) {
  const HeldSegments seg = segments(p, block_cols);
  RowLanesLayout L;
  ASSERT_NO_FATAL_FAILURE(build_and_check(p, block_cols, n_ranges, &L));
  std::int64_t plain_positions = 0;
  for (int c = 0; c < seg.n_blocks(); ++c)
    for (std::int32_t r0 = 0; r0 < p.rows; r0 += 32) {
      std::int64_t most = 0;
      for (std::int32_t r = r0; r < std::min(p.rows, r0 + 32); ++r)
        most = std::max(most, seg.end(c, r) - seg.begin(c, r));
      plain_positions += (most + 3) / 4 * 128;
    }
  std::int64_t walked_positions = 0;
  for (std::size_t gi = 0; gi < L.group_chunks.size(); ++gi)
    for (std::size_t l = 0; l < 32; ++l)
      if (L.slot_row[gi * 32 + l] >= 0) walked_positions += std::int64_t(L.group_chunks[gi]) * 4 - L.slot_len[gi * 32 + l];
  const double nnz = static_cast<double>(p.nnz());
  walked = static_cast<double>(walked_positions) / nnz;
  held = (static_cast<double>(L.perm.size()) - nnz) / nnz;
  plain = (static_cast<double>(plain_positions) - nnz) / nnz;
  std::cout << p.rows << " x " << p.cols << ", " << seg.n_blocks() << " blocks of " << block_cols
            << " columns, " << n_ranges << " ranges: " << L.perm.size() << " positions for "
            << p.nnz() << " non-zeros, pads walked " << 100.0 * walked << "%, held " << 100.0 * held << "% ("
            << 100.0 * plain << "% with the rows in plain order)\n";
  const std::string key = "pad_percent_" + std::to_string(seg.n_blocks()) + "_blocks";
  ::testing::Test::RecordProperty(key, std::to_string(100.0 * walked));
  ::testing::Test::RecordProperty(key + "_held", std::to_string(100.0 * held));
  ::testing::Test::RecordProperty(key + "_plain_order", std::to_string(100.0 * plain));
}

TEST(SpmmRowLanesLayout, FewPadsOnAUniformPattern) {
  // 2048 x 2048 at 10%, four row ranges (about 512 rows each). With four blocks of 512 columns a segment holds
  // about 51 non-zeros, and rounding each lane up to whole chunks of four alone costs about 1.5 / 51 = 2.9%: the
  // walked pads come to about 5.5% (the rows in plain order: about 31%), all held positions to about 7.4% (the
  // ranges' last groups are partial: about 510 rows to a range). With two blocks of 1024 columns (about 102 per
  // segment): about 3.3% and 4.5% (plain order: about 21%).
  const Pattern p = make(2048, 2048, 0.10);
  ASSERT_EQ(4, segments(p, 512).n_blocks());
  ASSERT_EQ(2, segments(p, 1024).n_blocks());
  double walked = 0, held = 0, plain = 0;
  ASSERT_NO_FATAL_FAILURE(pads_of(p, 512, 4, walked, held, plain));
  EXPECT_LT(walked, 0.07);
  EXPECT_LT(held, 0.10);
  EXPECT_LT(held, plain / 3);
  ASSERT_NO_FATAL_FAILURE(pads_of(p, 1024, 4, walked, held, plain));
  EXPECT_LT(walked, 0.05);
  EXPECT_LT(held, 0.07);
  EXPECT_LT(held, plain / 3);
}

TEST(SpmmRowLanesLayout, RefusesBadArgumentsAndTablesThatDoNotTile) {
  Pattern p = make(50, 1000, 0.1);
  const std::int64_t nnz = p.nnz();
  ASSERT_GT(nnz, 0);
  RowLanesLayout good;
  ASSERT_TRUE(build_row_lanes_layout(segments(p, 256), nnz, 2, good));
  const std::vector<std::uint16_t>& col16 = p.col16;
  RowLanesLayout good4;
  ASSERT_TRUE(build_row_lanes_layout(segments(p, 256), nnz, 2, good4, col16.data(), 4));
  ASSERT_TRUE(build_row_lanes_layout(segments(p, 256), nnz, 2, good4, col16.data(), 8));
  auto expect_refused = [&](const Pattern& q, std::int64_t n, std::int32_t ranges, const char* why,
                            const std::uint16_t* c16 = nullptr, int residues = 0, int pieces = 2) {
    SCOPED_TRACE(why);
    RowLanesLayout out = good;   // a layout from an earlier call, to be cleared
    EXPECT_FALSE(build_row_lanes_layout(segments(q, 256), n, ranges, out, c16, residues, pieces));
    EXPECT_EQ(0, out.n_blocks);
    EXPECT_EQ(0, out.n_groups);
    EXPECT_TRUE(out.perm.empty());
    EXPECT_TRUE(out.group_start.empty());
    EXPECT_TRUE(out.group_chunks.empty());
    EXPECT_TRUE(out.slot_row.empty());
    EXPECT_TRUE(out.slot_len.empty());
  };
  expect_refused(p, nnz, 0, "no ranges");
  expect_refused(p, nnz, -3, "negative ranges");
  expect_refused(p, nnz + 1, 2, "nnz past the table");
  expect_refused(p, nnz - 1, 2, "nnz short of the table");
  expect_refused(p, -1, 2, "negative nnz");
  Pattern gap = p;   // row 9 ends one non-zero before row 10 begins
  gap.bounds[static_cast<std::size_t>(gap.n_fine) * gap.rows + 9] -= 1;
  expect_refused(gap, nnz, 2, "a gap between rows");
  Pattern inverted = p;   // row 10's first block (fine blocks 0-3) ends after its second (4-7)
  const std::size_t rows = static_cast<std::size_t>(inverted.rows);
  inverted.bounds[4 * rows + 10] = inverted.bounds[8 * rows + 10] + 1;
  expect_refused(inverted, nnz, 2, "a block that ends after the next");
  expect_refused(p, nnz, 2, "residues without the packed columns", nullptr, 4);
  expect_refused(p, nnz, 2, "residues past 8", col16.data(), 9);
  expect_refused(p, nnz, 2, "negative residues", col16.data(), -1);
  expect_refused(p, nnz, 2, "pieces not 1, 2, 4 or 8", col16.data(), 4, 3);
  expect_refused(p, nnz, 2, "no pieces", col16.data(), 4, 0);
}

}  // namespace
}  // namespace snk::cuda
