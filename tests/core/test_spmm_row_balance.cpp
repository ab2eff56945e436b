// tests/core/test_spmm_row_balance.cpp: the balanced row order of the column-block kernels
// (backends/cuda/spmm/row_balance.hpp), on the host: it runs where no GPU is (the GPU tests run the kernels
// with the order against a float64 reference).
//
// Fresh random row weights as a uniform random pattern gives them (binomial non-zeros per row), in the layout
// the dispatcher launches at 16384 rows (132 blocks of 125 slots), small and ragged ones, and one row holding
// most of the work. Checked: every row has exactly one slot and the rest are empty, each block's rows are a
// contiguous range; the heaviest thread block and the heaviest warp carry less than with the rows in plain
// order, the block within a row's weight of the mean, the warp within 2.5% of as many mean rows as it has slots;
// the heavy row's warp takes no other row while its block's other warps have room; bad arguments are refused
// and leave the map as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "spmm/row_balance.hpp"

namespace snk::cuda {
namespace {

std::mt19937& rng() {
  static std::mt19937 g{std::random_device{}()};
  return g;
}

// Non-zeros per row of a rows x cols uniform random pattern of the given density.
std::vector<std::int64_t> binomial_rows(int rows, int cols, double density) {
  std::binomial_distribution<int> d(cols, density);
  std::vector<std::int64_t> n(static_cast<std::size_t>(rows));
  for (auto& v : n) v = d(rng());
  return n;
}

struct Loads {
  std::int64_t max_block = 0, max_warp = 0;
  double mean_block = 0, mean_warp = 0;   // over the blocks / warps that hold a row
};

// The loads of a map's blocks and warps (warp w of a block: its slots w, w + 32, ...).
Loads loads_of(const std::vector<std::int32_t>& map, const std::vector<std::int64_t>& w, int rows_per_cta) {
  Loads l;
  const int grid = static_cast<int>(map.size()) / rows_per_cta;
  std::int64_t total = 0;
  int blocks = 0, warps = 0;
  for (int b = 0; b < grid; ++b) {
    std::int64_t bl = 0;
    for (int k = 0; k < kRowBalanceWarps; ++k) {
      std::int64_t wl = 0;
      bool any = false;
      for (int s = k; s < rows_per_cta; s += kRowBalanceWarps) {
        const std::int32_t r = map[static_cast<std::size_t>(b * rows_per_cta + s)];
        if (r >= 0) wl += w[static_cast<std::size_t>(r)], any = true;
      }
      l.max_warp = std::max(l.max_warp, wl);
      warps += any;
      bl += wl;
    }
    l.max_block = std::max(l.max_block, bl);
    blocks += bl > 0;
    total += bl;
  }
  l.mean_block = double(total) / std::max(1, blocks);
  l.mean_warp = double(total) / std::max(1, warps);
  return l;
}

// Slot s holds row s: the order without a map.
std::vector<std::int32_t> plain_map(int rows, int rows_per_cta, int grid) {
  std::vector<std::int32_t> m(static_cast<std::size_t>(rows_per_cta) * grid, -1);
  for (int r = 0; r < rows; ++r) m[static_cast<std::size_t>(r)] = r;
  return m;
}

void expect_each_row_once(const std::vector<std::int32_t>& map, int rows) {
  std::vector<int> seen(static_cast<std::size_t>(rows), 0);
  int empty = 0;
  for (const std::int32_t r : map) {
    if (r < 0) {
      ++empty;
      continue;
    }
    ASSERT_LT(r, rows);
    ++seen[static_cast<std::size_t>(r)];
  }
  for (int r = 0; r < rows; ++r) ASSERT_EQ(seen[static_cast<std::size_t>(r)], 1) << "row " << r;
  EXPECT_EQ(empty, static_cast<int>(map.size()) - rows);
}

// Each block's rows are one contiguous range, the blocks' ranges in block order.
void expect_blocks_contiguous(const std::vector<std::int32_t>& map, int rows_per_cta) {
  std::int32_t next = 0;
  for (std::size_t b = 0; b < map.size() / rows_per_cta; ++b) {
    std::vector<std::int32_t> rows;
    for (int s = 0; s < rows_per_cta; ++s)
      if (map[b * rows_per_cta + s] >= 0) rows.push_back(map[b * rows_per_cta + s]);
    std::sort(rows.begin(), rows.end());
    for (const std::int32_t r : rows) ASSERT_EQ(r, next++) << "block " << b;
  }
}

// Balances w over grid blocks of rows_per_cta slots; checks the map and returns (plain, balanced) loads.
void balance_and_check(const std::vector<std::int64_t>& w, int rows_per_cta, int grid, Loads& plain, Loads& bal) {
  std::vector<std::int32_t> map;
  ASSERT_TRUE(balanced_row_slots(w, rows_per_cta, grid, map));
  ASSERT_EQ(map.size(), static_cast<std::size_t>(rows_per_cta) * grid);
  ASSERT_NO_FATAL_FAILURE(expect_each_row_once(map, static_cast<int>(w.size())));
  ASSERT_NO_FATAL_FAILURE(expect_blocks_contiguous(map, rows_per_cta));
  plain = loads_of(plain_map(static_cast<int>(w.size()), rows_per_cta, grid), w, rows_per_cta);
  bal = loads_of(map, w, rows_per_cta);
}

TEST(SpmmRowBalance, WideKernelLayout) {
  // 16384 x 16384 at 10% and 5%: the wide kernel's 132 blocks of 125 slots (four per warp), non-zeros as weights.
  for (const double density : {0.10, 0.05}) {
    const auto w = binomial_rows(16384, 16384, density);
    Loads plain, bal;
    ASSERT_NO_FATAL_FAILURE(balance_and_check(w, 125, 132, plain, bal));
    const std::int64_t heaviest = *std::max_element(w.begin(), w.end());
    std::printf("density %.2f: heaviest block / mean %.4f plain, %.4f balanced; heaviest warp / mean %.4f plain, "
                "%.4f balanced\n",
                density, plain.max_block / plain.mean_block, bal.max_block / bal.mean_block,
                plain.max_warp / plain.mean_warp, bal.max_warp / bal.mean_warp);
    EXPECT_LT(bal.max_block, plain.max_block);
    EXPECT_LT(bal.max_warp, plain.max_warp);
    EXPECT_LE(bal.max_block, bal.mean_block + heaviest);   // the cut: within one row of the mean
    // A warp holds up to 4 of a block's rows (125 = 3 x 32 + 29): the heaviest within 2.5% of 4 mean rows (plain
    // order: 3.4-9%; balanced, up to 1.6% in 600 draws).
    double mean_row = 0;
    for (const auto v : w) mean_row += double(v) / w.size();
    std::printf("density %.2f: heaviest warp / 4 mean rows %.4f plain, %.4f balanced\n", density,
                plain.max_warp / (4 * mean_row), bal.max_warp / (4 * mean_row));
    EXPECT_LT(bal.max_warp / (4 * mean_row), 1.025);
  }
}

TEST(SpmmRowBalance, SmallRaggedAndSkewed) {
  // Fewer rows than slots, blocks of fewer than 32 slots, a last block short of rows, one row holding most
  // of the weight, empty rows.
  for (const int rows : {1, 7, 31, 100, 1000}) {
    for (const int rpc : {1, 5, 32, 33, 125}) {
      const int grid = (rows + rpc - 1) / rpc;
      auto w = binomial_rows(rows, 512, 0.1);
      w[static_cast<std::size_t>(rows / 2)] = 100000;
      if (rows > 3) w[1] = 0, w[2] = 0;
      std::vector<std::int32_t> map;
      ASSERT_TRUE(balanced_row_slots(w, rpc, grid, map)) << rows << " rows, " << rpc;
      ASSERT_EQ(map.size(), static_cast<std::size_t>(rpc) * grid);
      ASSERT_NO_FATAL_FAILURE(expect_each_row_once(map, rows));
      ASSERT_NO_FATAL_FAILURE(expect_blocks_contiguous(map, rpc));
      // The heavy row goes first, so its warp takes no other row while the block's other warps have room.
      const int hs = static_cast<int>(std::find(map.begin(), map.end(), rows / 2) - map.begin());
      const int b = hs / rpc, k = hs % rpc % kRowBalanceWarps;
      int in_block = 0, in_warp = 0;
      for (int s = 0; s < rpc; ++s) {
        const bool used = map[static_cast<std::size_t>(b * rpc + s)] >= 0;
        in_block += used;
        in_warp += used && s % kRowBalanceWarps == k;
      }
      const int warp_cap = (rpc - k + kRowBalanceWarps - 1) / kRowBalanceWarps;
      if (in_block - 1 <= rpc - warp_cap) EXPECT_EQ(in_warp, 1) << rows << " rows, " << rpc << " per block";
    }
  }
}

TEST(SpmmRowBalance, BadArgumentsRefused) {
  const std::vector<std::int32_t> before{7, 8, 9};
  std::vector<std::int32_t> map = before;
  EXPECT_FALSE(balanced_row_slots(std::vector<std::int64_t>(11, 1), 5, 2, map));   // 11 rows, 10 slots
  EXPECT_FALSE(balanced_row_slots(std::vector<std::int64_t>{1, -1}, 5, 2, map));   // negative weight
  EXPECT_FALSE(balanced_row_slots(std::vector<std::int64_t>{1}, 0, 2, map));
  EXPECT_FALSE(balanced_row_slots(std::vector<std::int64_t>{1}, 5, 0, map));
  EXPECT_EQ(map, before);
  EXPECT_TRUE(balanced_row_slots(std::vector<std::int64_t>{}, 5, 1, map));   // no rows: all slots empty
  EXPECT_EQ(map, std::vector<std::int32_t>(5, -1));
}

TEST(SpmmRowBalance, SegmentWeights) {
  // Non-zeros plus a fixed cost per row.
  EXPECT_EQ(row_segment_weight(10, 10), row_segment_weight(0, 0));
  EXPECT_GT(row_segment_weight(0, 0), 0);
  EXPECT_EQ(row_segment_weight(5, 105) - row_segment_weight(0, 0), 100);
}

}  // namespace
}  // namespace snk::cuda
