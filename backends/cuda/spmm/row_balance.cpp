// spmm/row_balance.cpp: longest-processing-time row orders for the column-block kernels (row_balance.hpp).
#include "spmm/row_balance.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

namespace snk::cuda {

namespace {

// Rows to bins, heaviest row first, each to the lightest bin that has room (ties: the lower bin). bins[i] has
// capacity cap(i); returns each bin's rows in the order assigned.
template <class Cap>
std::vector<std::vector<std::int32_t>> lpt(const std::vector<std::int32_t>& rows_desc,
                                           const std::vector<std::int64_t>& weight, int n_bins, Cap cap) {
  using Entry = std::pair<std::int64_t, int>;   // (load, bin)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
  for (int b = 0; b < n_bins; ++b)
    if (cap(b) > 0) open.push({0, b});
  std::vector<std::vector<std::int32_t>> bins(static_cast<std::size_t>(n_bins));
  for (const std::int32_t r : rows_desc) {
    const Entry e = open.top();   // the caller checked that the rows fit
    open.pop();
    auto& b = bins[static_cast<std::size_t>(e.second)];
    b.push_back(r);
    if (static_cast<int>(b.size()) < cap(e.second))
      open.push({e.first + weight[static_cast<std::size_t>(r)], e.second});
  }
  return bins;
}

}  // namespace

bool balanced_row_slots(const std::vector<std::int64_t>& weight, int rows_per_cta, int grid_x,
                        std::vector<std::int32_t>& map) {
  if (rows_per_cta < 1 || grid_x < 1) return false;
  const std::int64_t slots = std::int64_t(rows_per_cta) * grid_x;
  const std::int64_t rows = static_cast<std::int64_t>(weight.size());
  if (rows > slots) return false;
  std::int64_t total = 0;
  for (const std::int64_t w : weight) {
    if (w < 0) return false;
    total += w;
  }
  std::vector<std::int32_t> out(static_cast<std::size_t>(slots), -1);
  std::int64_t r = 0, done = 0;   // the next row, the weight of the rows before it
  for (int b = 0; b < grid_x; ++b) {
    // Block b's rows [r, e): as many as bring the blocks so far closest to b + 1 shares of the total, within
    // the block's slots and leaving no more rows than the later blocks hold.
    const std::int64_t later = std::int64_t(grid_x - 1 - b) * rows_per_cta;
    const std::int64_t lo = std::max<std::int64_t>(r, rows - later);
    const std::int64_t hi = std::min<std::int64_t>(rows, r + rows_per_cta);
    const double goal = double(total) * (b + 1) / grid_x;
    std::int64_t e = r, acc = done;
    while (e < hi && (e < lo || double(acc) + 0.5 * double(weight[static_cast<std::size_t>(e)]) <= goal))
      acc += weight[static_cast<std::size_t>(e++)];
    // The block's rows to its warps, heaviest first, each to the lightest warp with a slot left; warp w holds
    // the block's slots w, w + 32, ... below rows_per_cta.
    std::vector<std::int32_t> desc(static_cast<std::size_t>(e - r));
    std::iota(desc.begin(), desc.end(), static_cast<std::int32_t>(r));
    std::stable_sort(desc.begin(), desc.end(), [&](std::int32_t x, std::int32_t y) {
      return weight[static_cast<std::size_t>(x)] > weight[static_cast<std::size_t>(y)];
    });
    const auto warps = lpt(desc, weight, kRowBalanceWarps, [&](int w) {
      return w < rows_per_cta ? (rows_per_cta - w + kRowBalanceWarps - 1) / kRowBalanceWarps : 0;
    });
    for (int w = 0; w < kRowBalanceWarps; ++w) {
      const auto& held = warps[static_cast<std::size_t>(w)];
      for (std::size_t j = 0; j < held.size(); ++j)
        out[static_cast<std::size_t>(std::int64_t(b) * rows_per_cta + w + kRowBalanceWarps * std::int64_t(j))] =
            held[j];
    }
    r = e;
    done = acc;
  }
  map.swap(out);
  return true;
}

std::int64_t row_segment_weight(std::int64_t S, std::int64_t E) { return (E - S) + 8; }

}  // namespace snk::cuda
