// spmm/transpose_runs.cpp: the pieces and runs that move W's values into W^T's order (transpose_runs.hpp says how
// the kernel uses them).
#include "spmm/transpose_runs.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace snk::cuda {

namespace {

// Expected non-zeros of one tile: below the piece cap, so that a tile of a uniform pattern is one piece. A tile
// side of sqrt(kTransposeTile / density) rows and columns makes W's row segments and W^T's row segments in it
// about equally long (sqrt(kTransposeTile * density) non-zeros: 25 at 10% density).
constexpr double kTransposeTile = 6144;

}  // namespace

TransposeRuns transpose_runs(std::int32_t rows, std::int32_t cols, const std::vector<std::int32_t>& row_ptr,
                             const std::vector<std::int32_t>& col, const std::vector<std::int32_t>& t_pos) {
  TransposeRuns o;
  const std::int64_t nnz = static_cast<std::int64_t>(col.size());
  if (nnz == 0 || rows <= 0 || cols <= 0) return o;
  const double density = double(nnz) / (double(rows) * double(cols));
  const double side = std::sqrt(kTransposeTile / density);
  const std::int64_t block_cols = std::clamp<std::int64_t>(std::llround(side), 1, cols);
  const std::int64_t block_rows = std::clamp<std::int64_t>(std::llround(side), 1, rows);
  o.dperm.reserve(static_cast<std::size_t>(nnz));

  std::vector<std::int32_t> cursor(row_ptr.begin(), row_ptr.end() - 1);   // each row's next non-zero
  // The piece's non-zeros, in W's order: CSR positions in W and in W^T, columns within the block.
  std::vector<std::int32_t> pos, tpos, local;
  pos.reserve(kTransposePieceCap);
  tpos.reserve(kTransposePieceCap);
  local.reserve(kTransposePieceCap);
  std::vector<std::int32_t> count(static_cast<std::size_t>(block_cols) + 1), order(kTransposePieceCap);

  // Closes the piece held in pos / local (columns c0 .. c0 + width - 1).
  const auto close_piece = [&](std::int64_t width) {
    const int n = static_cast<int>(pos.size());
    if (n == 0) return;
    for (int i = 0, start = 0; i < n; ++i)   // src runs: consecutive positions of W, at most kTransposeRunCap
      if (i == 0 || pos[i] != pos[i - 1] + 1 || i - start == kTransposeRunCap) {
        o.src_run_pos.push_back(pos[i]);
        o.src_run_off.push_back(static_cast<std::uint16_t>(i));
        start = i;
      }
    // W^T's order within the piece: by column, rows ascending (the piece was taken row by row), so a stable sort
    // by column; counting where the block is not much wider than the piece.
    if (width <= 4 * std::int64_t(n)) {
      std::fill(count.begin(), count.begin() + width + 1, 0);
      for (int i = 0; i < n; ++i) ++count[static_cast<std::size_t>(local[i]) + 1];
      for (std::int64_t c = 0; c < width; ++c) count[c + 1] += count[c];
      for (int i = 0; i < n; ++i) order[count[local[i]]++] = i;
    } else {
      std::iota(order.begin(), order.begin() + n, 0);
      std::stable_sort(order.begin(), order.begin() + n, [&](int a, int b) { return local[a] < local[b]; });
    }
    for (int k = 0, start = 0; k < n; ++k) {   // dst runs: consecutive positions of W^T, at most kTransposeRunCap
      const std::int32_t tp = tpos[order[k]];
      if (k == 0 || tp != tpos[order[k - 1]] + 1 || k - start == kTransposeRunCap) {
        o.dst_run_pos.push_back(tp);
        o.dst_run_off.push_back(static_cast<std::uint16_t>(k));
        start = k;
      }
      o.dperm.push_back(static_cast<std::uint16_t>(order[k]));
    }
    o.entry.push_back(o.entry.back() + n);
    o.max_piece = std::max(o.max_piece, n);
    o.src_run.push_back(static_cast<std::int64_t>(o.src_run_pos.size()));
    o.dst_run.push_back(static_cast<std::int64_t>(o.dst_run_pos.size()));
    pos.clear();
    tpos.clear();
    local.clear();
  };

  for (std::int64_t c0 = 0; c0 < cols; c0 += block_cols) {
    const std::int64_t c1 = std::min<std::int64_t>(cols, c0 + block_cols);
    for (std::int64_t r0 = 0; r0 < rows; r0 += block_rows) {
      const std::int64_t r1 = std::min<std::int64_t>(rows, r0 + block_rows);
      for (std::int64_t r = r0; r < r1; ++r) {
        std::int32_t e = cursor[static_cast<std::size_t>(r)];
        for (const std::int32_t end = row_ptr[static_cast<std::size_t>(r) + 1]; e < end && col[e] < c1; ++e) {
          if (static_cast<int>(pos.size()) == kTransposePieceCap) close_piece(c1 - c0);
          pos.push_back(e);
          tpos.push_back(t_pos[static_cast<std::size_t>(e)]);
          local.push_back(static_cast<std::int32_t>(col[e] - c0));
        }
        cursor[static_cast<std::size_t>(r)] = e;
      }
      close_piece(c1 - c0);   // a tile ends its piece
    }
  }
  return o;
}

}  // namespace snk::cuda
