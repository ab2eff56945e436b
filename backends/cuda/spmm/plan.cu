// spmm/plan.cu: building a Plan from a CSR pattern (once per pattern, on the host).
//
// The pattern comes back to the host once; there it is checked (row pointers monotone, columns in range
// and strictly increasing within a row) and turned into the structures the kernels stream: 16-bit packed
// columns (col & 0xffff; rows are cut at 65536-column boundaries so a per-segment base restores the
// column), bounded row segments of at most L non-zeros with L = max(1024, 8 x the average row length)
// (rows cut into several segments get partial-row slots and a fix-up entry; the segments are also cut into
// contiguous warp ranges of about equal non-zeros for the stream kernels), the offset where each row
// crosses every 64-column boundary (coarser when the table would pass 2^26 entries), laid out
// boundary-major, for the column-block, row-range and row-lanes kernels (a column block of c columns takes
// every (c/64)-th boundary), and on request the COO arrays for SNACK-COO and the transposed pattern (CSR of
// W^T plus the pieces and runs that move W's values into it, transpose_runs.hpp).
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

#include "spmm/bank_order.hpp"
#include "spmm/host_threads.hpp"
#include "spmm/plan_impl.hpp"
#include "spmm/transpose_runs.hpp"
#include "spmm/row_lanes_layout.hpp"

namespace snk::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("snk::cuda::Plan: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

Plan::Plan() : impl_(std::make_unique<Impl>()) {}
Plan::~Plan() = default;

std::int32_t Plan::rows() const { return impl_->rows; }
std::int32_t Plan::cols() const { return impl_->cols; }
std::int64_t Plan::nnz() const { return impl_->nnz; }
std::int32_t Plan::max_row_nnz() const { return impl_->max_row_nnz; }
bool Plan::has_transposed() const { return impl_->transposed != nullptr; }
bool Plan::has_coo() const { return impl_->has_coo; }
bool Plan::has_bound_values() const { return impl_->has_bound_values; }
std::size_t Plan::device_bytes() const { return impl_->device_bytes(); }

std::size_t Plan::Impl::device_bytes() const {
  std::size_t b = col16.bytes() + items.bytes() + item_colbase.bytes() + splits.bytes() + item_ranges.bytes() +
                  range_spans.bytes() + tile_bounds.bytes() +
                  coo_row.bytes() + coo_col.bytes() + transpose_entry.bytes() + transpose_src_run.bytes() +
                  transpose_dst_run.bytes() + transpose_src_run_pos.bytes() + transpose_dst_run_pos.bytes() +
                  transpose_src_run_off.bytes() + transpose_dst_run_off.bytes() + transpose_dperm.bytes() +
                  bound_col16.bytes() + bound_perm.bytes() +
                  bound_values.bytes() + ws_partial.bytes() + ws_x.bytes() + ws_values.bytes();
  for (const auto& o : lanes) b += o.bytes();
  for (const auto& m : row_maps) b += m->map.bytes();
  if (transposed) b += transposed->device_bytes();
  return b;
}

std::vector<int> Plan::Impl::even_fine_edges(int step) const {
  std::vector<int> fine_at(static_cast<std::size_t>(column_blocks(step)) + 1);
  for (std::size_t i = 0; i < fine_at.size(); ++i) fine_at[i] = std::min(static_cast<int>(i) * step, tile_n_fine);
  return fine_at;
}

cudaError_t Plan::Impl::column_edges(int step, cudaStream_t stream, std::vector<std::int32_t>& edges) const {
  return column_edges_at(even_fine_edges(step), stream, edges);
}

cudaError_t Plan::Impl::column_edges_at(const std::vector<int>& fine_at, cudaStream_t stream,
                                        std::vector<std::int32_t>& edges) const {
  const std::size_t r = static_cast<std::size_t>(rows);
  edges.assign(fine_at.size() * r, 0);
  cudaError_t e = cudaSuccess;
  for (std::size_t i = 0; i < fine_at.size() && e == cudaSuccess && r > 0; ++i)
    e = cudaMemcpyAsync(edges.data() + i * r, tile_bounds.get() + std::int64_t(fine_at[i]) * rows, r * 4,
                        cudaMemcpyDeviceToHost, stream);
  return e != cudaSuccess ? e : cudaStreamSynchronize(stream);
}

std::unique_ptr<Plan> Plan::create(const CsrPattern& pat, const PlanOptions& options, cudaStream_t stream) {
  if (pat.rows < 0 || pat.cols < 0 || pat.nnz < 0 || pat.nnz > kMaxPlanNnz)
    throw std::invalid_argument("snk::cuda::Plan: dimensions out of range (32-bit indices)");
  if (!pat.row_ptr || (pat.nnz > 0 && !pat.col_idx))
    throw std::invalid_argument("snk::cuda::Plan: null pattern array");
  std::vector<std::int32_t> row_ptr(std::size_t(pat.rows) + 1), col(static_cast<std::size_t>(pat.nnz));
  check(cudaMemcpyAsync(row_ptr.data(), pat.row_ptr, row_ptr.size() * 4, cudaMemcpyDeviceToHost, stream), "copy row_ptr");
  if (pat.nnz)
    check(cudaMemcpyAsync(col.data(), pat.col_idx, col.size() * 4, cudaMemcpyDeviceToHost, stream), "copy col_idx");
  check(cudaStreamSynchronize(stream), "synchronize");
  return create(pat.rows, pat.cols, row_ptr, col, options, stream);
}

std::unique_ptr<Plan> Plan::create(std::int32_t rows, std::int32_t cols, const std::vector<std::int32_t>& row_ptr,
                                   const std::vector<std::int32_t>& col_idx, const PlanOptions& options,
                                   cudaStream_t stream) {
  const std::int64_t nnz = static_cast<std::int64_t>(col_idx.size());
  if (rows < 0 || cols < 0 || nnz > kMaxPlanNnz)
    throw std::invalid_argument("snk::cuda::Plan: dimensions out of range (32-bit indices)");
  if (row_ptr.size() != std::size_t(rows) + 1)
    throw std::invalid_argument("snk::cuda::Plan: row_ptr does not hold rows + 1 entries");
  if (row_ptr.back() != nnz) throw std::invalid_argument("snk::cuda::Plan: row_ptr[rows] != nnz");
  return from_host(rows, cols, row_ptr, col_idx, options, stream);
}

std::unique_ptr<Plan> Plan::from_host(std::int32_t rows, std::int32_t cols, const std::vector<std::int32_t>& rp,
                                      const std::vector<std::int32_t>& col, const PlanOptions& options,
                                      cudaStream_t stream) {
  std::unique_ptr<Plan> plan(new Plan());
  Impl& im = *plan->impl_;
  im.rows = rows;
  im.cols = cols;
  im.nnz = static_cast<std::int64_t>(col.size());
  int dev = 0;
  check(cudaGetDevice(&dev), "get device");
  check(cudaDeviceGetAttribute(&im.sm_count, cudaDevAttrMultiProcessorCount, dev), "device attribute");
  check(cudaDeviceGetAttribute(&im.shared_optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
        "device attribute");

  // Checks, reporting the first defect in row order: the row pointers first (the first row whose end falls
  // below its start or past the non-zeros), then the columns of the rows before it, on the host threads
  // (host_threads.hpp; the first bad row wins, whichever thread finds it).
  if (rp[0] != 0) throw std::invalid_argument("snk::cuda::Plan: row_ptr[0] != 0");
  std::int32_t bad_pointer = rows;
  for (std::int32_t r = 0; r < rows; ++r) {
    if (rp[r + 1] < rp[r] || rp[r + 1] > im.nnz) {
      bad_pointer = r;
      break;
    }
    im.max_row_nnz = std::max(im.max_row_nnz, rp[r + 1] - rp[r]);
  }
  auto column_defect = [&](std::int32_t r) -> const char* {
    for (std::int32_t j = rp[r]; j < rp[r + 1]; ++j) {
      if (col[j] < 0 || col[j] >= cols) return "snk::cuda::Plan: column out of range";
      if (j > rp[r] && col[j] <= col[j - 1]) return "snk::cuda::Plan: columns not strictly increasing within a row";
    }
    return nullptr;
  };
  std::atomic<std::int32_t> bad_columns{bad_pointer};
  for_each_range(bad_pointer, 1024, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1 && r < bad_columns.load(); ++r)
      if (column_defect(static_cast<std::int32_t>(r))) {
        std::int32_t seen = bad_columns.load();
        while (r < seen && !bad_columns.compare_exchange_weak(seen, static_cast<std::int32_t>(r))) {
        }
        return;
      }
  });
  if (bad_columns.load() < bad_pointer) throw std::invalid_argument(column_defect(bad_columns.load()));
  if (bad_pointer < rows) throw std::invalid_argument("snk::cuda::Plan: row_ptr not monotone");
  im.avg_row_nnz = rows ? double(im.nnz) / rows : 0.0;

  // Packed columns.
  {
    std::vector<std::uint16_t> c16(col.size());
    for_each_range(static_cast<std::int64_t>(col.size()), std::int64_t(1) << 20, [&](std::int64_t j0, std::int64_t j1) {
      for (std::int64_t j = j0; j < j1; ++j)
        c16[static_cast<std::size_t>(j)] = static_cast<std::uint16_t>(col[static_cast<std::size_t>(j)] & 0xffff);
    });
    check(im.col16.upload(c16, c16.size() + 8, stream), "upload col16");
    check(cudaStreamSynchronize(stream), "synchronize");
  }

  // Bounded row segments.
  {
    const std::int64_t limit = std::max<std::int64_t>(1024, 8 * static_cast<std::int64_t>(std::ceil(im.avg_row_nnz)));
    const bool wide = cols > 65536;
    std::vector<int4> items, splits;
    std::vector<int> colbase;
    items.reserve(rows);
    std::vector<std::array<int, 3>> pieces;
    int slot = 0;
    for (std::int32_t r = 0; r < rows; ++r) {
      pieces.clear();
      int j = rp[r];
      const int e = rp[r + 1];
      while (j < e) {
        int stop = e;
        const int base = wide ? (col[j] & ~0xffff) : 0;
        if (wide) {
          stop = j;
          while (stop < e && (col[stop] & ~0xffff) == base) ++stop;
        }
        for (int a = j; a < stop; a = static_cast<int>(std::min<std::int64_t>(stop, a + limit)))
          pieces.push_back({a, static_cast<int>(std::min<std::int64_t>(stop, a + limit)), base});
        j = stop;
      }
      if (pieces.size() <= 1) {
        items.push_back(make_int4(r, rp[r], e, -1));
        colbase.push_back(pieces.empty() ? 0 : pieces[0][2]);
      } else {
        splits.push_back(make_int4(r, slot, static_cast<int>(pieces.size()), 0));
        for (auto& pc : pieces) {
          items.push_back(make_int4(r, pc[0], pc[1], slot++));
          colbase.push_back(pc[2]);
        }
      }
    }
    // Every row has an item (an empty one too) and a row's pieces are consecutive, so item i + 1 begins where
    // item i ends: the stream kernels rely on it.
    im.n_items = static_cast<std::int64_t>(items.size());
    // Warp ranges for the stream kernels (batch 1 and batch lanes): contiguous runs of items of about equal cost (non-zeros plus
    // 32 for an item's own start and reduction), one per resident warp of the kernel. Each range is stored
    // with its first item's descriptor, so a warp starts streaming after one dependent load, not three.
    {
      const std::int64_t n_ranges =
          std::max<std::int64_t>(1, std::min<std::int64_t>(im.n_items, std::int64_t(kStreamWarpsPerSm) * im.sm_count));
      auto cost_of = [](const int4& it) { return std::int64_t(it.z - it.y) + 32; };
      std::int64_t total = 0;
      for (const int4& it : items) total += cost_of(it);
      std::vector<int> bounds(static_cast<std::size_t>(n_ranges) + 1, static_cast<int>(items.size()));
      bounds[0] = 0;
      std::int64_t cost = 0, k = 1;
      for (std::size_t i = 0; i < items.size() && k < n_ranges; ++i) {
        // item i opens range k once the cost before it reaches k/n of the total
        while (k < n_ranges && cost >= (total * k + n_ranges - 1) / n_ranges)
          bounds[static_cast<std::size_t>(k++)] = static_cast<int>(i);
        cost += cost_of(items[i]);
      }
      std::vector<int4> ranges(2 * static_cast<std::size_t>(n_ranges));
      std::vector<int2> spans(static_cast<std::size_t>(n_ranges));
      for (std::int64_t r = 0; r < n_ranges; ++r) {
        const int b = bounds[static_cast<std::size_t>(r)], e = bounds[static_cast<std::size_t>(r) + 1];
        if (b >= e) {
          ranges[2 * r] = make_int4(e, e, 0, -1);
          ranges[2 * r + 1] = make_int4(0, 0, 0, 0);
          spans[static_cast<std::size_t>(r)] = make_int2(0, 0);
          continue;
        }
        const int4& f = items[static_cast<std::size_t>(b)];
        spans[static_cast<std::size_t>(r)] = make_int2(f.y, items[static_cast<std::size_t>(e) - 1].z);
        ranges[2 * r] = make_int4(b, e, f.x, f.w);
        ranges[2 * r + 1] = make_int4(f.y, f.z, b + 1 < e ? items[static_cast<std::size_t>(b) + 1].z : 0,
                                      wide ? colbase[static_cast<std::size_t>(b)] : 0);
      }
      im.n_item_ranges = static_cast<int>(n_ranges);
      check(im.item_ranges.upload(ranges, 0, stream), "upload item ranges");
      check(im.range_spans.upload(spans, 0, stream), "upload range spans");
      check(cudaStreamSynchronize(stream), "synchronize");   // `ranges` is freed at the end of this block
    }
    im.n_splits = static_cast<int>(splits.size());
    im.n_slots = slot;
    check(im.items.upload(items, 0, stream), "upload items");
    if (!splits.empty()) check(im.splits.upload(splits, 0, stream), "upload splits");
    if (wide) check(im.item_colbase.upload(colbase, 0, stream), "upload colbase");
    check(cudaStreamSynchronize(stream), "synchronize");
  }

  // Column-boundary offsets (column-block, row-range and row-lanes kernels), laid out [column boundary][row] so
  // that consecutive rows read consecutive words:
  // bounds[f][r] = first non-zero of row r at column >= f * tile_fine_cols (64, or coarser so the table
  // stays under 2^26 entries).
  {
    int fine = 64;
    auto n_of = [&](int f) { return static_cast<int>((static_cast<std::int64_t>(cols) + f - 1) / f); };
    while (fine < 65536 && (static_cast<std::int64_t>(n_of(fine)) + 1) * rows > (std::int64_t(1) << 26)) fine *= 2;
    const int nf = n_of(fine);
    if ((static_cast<std::int64_t>(nf) + 1) * rows <= (std::int64_t(1) << 26)) {
      im.tile_fine_cols = fine;
      im.tile_n_fine = nf;
      std::vector<int> bounds((static_cast<std::size_t>(nf) + 1) * rows);
      for_each_range(rows, 256, [&](std::int64_t r0, std::int64_t r1) {
        for (std::int32_t r = static_cast<std::int32_t>(r0); r < r1; ++r) {
          int j = rp[r];
          for (int f = 0; f < nf; ++f) {
            const std::int64_t c0 = static_cast<std::int64_t>(f) * fine;
            while (j < rp[r + 1] && col[j] < c0) ++j;
            bounds[static_cast<std::size_t>(f) * rows + r] = j;
          }
          bounds[static_cast<std::size_t>(nf) * rows + r] = rp[r + 1];
        }
      });
      check(im.tile_bounds.upload(bounds, 0, stream), "upload column-boundary offsets");
      check(cudaStreamSynchronize(stream), "synchronize");
    }
  }

  if (options.coo) {
    std::vector<int> rows_of(col.size());
    for (std::int32_t r = 0; r < rows; ++r)
      for (int j = rp[r]; j < rp[r + 1]; ++j) rows_of[j] = r;
    check(im.coo_row.upload(rows_of, 0, stream), "upload coo rows");
    check(im.coo_col.upload(col, 0, stream), "upload coo cols");
    check(cudaStreamSynchronize(stream), "synchronize");
    im.has_coo = true;
  }

  if (options.transposed) plan->add_transposed(rp, col, stream);
  return plan;
}

bool lanes_geometry(const Plan::Impl& im, int bt, LanesGeometry& g) {
  g = LanesGeometry{};
  std::int64_t tile_bytes = 0;
  int threads = 0, per_sm = 0;
  auto take = [&](auto tile) {
    using T = decltype(tile);
    tile_bytes = T::kTileBytes;
    threads = T::kThreads;
    per_sm = T::kBlocksPerSm;
  };
  switch (bt) {
    case 8: take(RowLanesTile<8>{}); break;
    case 16: take(RowLanesTile<16>{}); break;
    case 24: take(RowLanesTile<24>{}); break;
    case 32: take(RowLanesTile<32>{}); break;
    default: return false;
  }
  if (!im.tile_bounds.size() || im.cols > 65536 || im.cols <= 0 || im.rows <= 0 || im.tile_fine_cols <= 0) return false;
  const std::int64_t most = tile_bytes / (std::int64_t(bt) * 4);   // columns of one block, at most
  const std::int64_t most_grains = most / kLanesGrainCols;          // grains in one block, at most
  const std::int64_t grains = (std::int64_t(im.cols) + kLanesGrainCols - 1) / kLanesGrainCols;
  if (most_grains < 1) return false;
  // The fewest blocks that fit, the grains dealt out evenly: the first n_wide take one more.
  const std::int64_t blocks = (grains + most_grains - 1) / most_grains;
  const std::int64_t per = grains / blocks, extra = grains % blocks;
  g.fine_cols = kLanesGrainCols;
  g.block_cols = static_cast<int>((per + (extra ? 1 : 0)) * kLanesGrainCols);
  g.n_blocks = static_cast<int>(blocks);
  g.n_wide = static_cast<int>(extra ? extra : blocks);
  const int ranges = std::max(1, im.sm_count * per_sm / g.n_blocks);
  g.rows_per_range = static_cast<std::int32_t>(((std::int64_t(im.rows) + ranges - 1) / ranges + 31) / 32 * 32);
  g.n_ranges = rowlanes_dealt(bt) ? ranges : static_cast<int>(std::min<std::int64_t>(ranges, (std::int64_t(im.rows) + 31) / 32));
  g.segment = im.avg_row_nnz * g.block_cols / static_cast<double>(im.cols);
  g.threads = bt == 32 && g.segment >= kRowLanesLongSegment ? RowLanesTile<32>::kLongThreads : threads;
  // A group of 32 rows per warp of kThreads (the rule as measured, whichever count runs).
  g.pays = g.rows_per_range >= threads && g.segment >= kRowLanesMinSegment;
  return true;
}

namespace {

// The plan's packed columns (c16), copied to the host (the stream is synchronized), and the row segments of the
// column blocks whose edges are the columns `at` (ascending, the first 0 and the last the plan's columns): edges[i][r]
// = the first non-zero of row r at column >= at[i], taken from the column-boundary table's row at at[i]'s grain and,
// where at[i] falls inside a grain, advanced over the row's columns below it (rows' columns ascend); seg points
// into edges. What the bound orders are built from.
cudaError_t host_segments(const Plan::Impl& im, const std::vector<std::int64_t>& at, cudaStream_t stream,
                          std::vector<std::uint16_t>& c16, std::vector<std::int32_t>& edges, HeldSegments& seg) {
  c16.resize(static_cast<std::size_t>(im.nnz));
  cudaError_t e = c16.empty() ? cudaSuccess
                              : cudaMemcpyAsync(c16.data(), im.col16.get(), c16.size() * 2, cudaMemcpyDeviceToHost, stream);
  const std::int64_t fine = im.tile_fine_cols;
  // The table's rows that are needed: each edge's grain, and the next one where the edge falls inside it.
  std::vector<int> fine_at;
  for (const std::int64_t c : at) {
    const int f = c >= im.cols ? im.tile_n_fine : static_cast<int>(c / fine);
    fine_at.push_back(f);
    if (c < im.cols && c % fine != 0) fine_at.push_back(f + 1);
  }
  std::vector<std::int32_t> table;
  if (e == cudaSuccess) e = im.column_edges_at(fine_at, stream, table);
  if (e != cudaSuccess) return e;
  const std::size_t rows = static_cast<std::size_t>(im.rows);
  edges.assign(at.size() * rows, 0);
  std::size_t t = 0;   // at[i]'s first row of the table
  for (std::size_t i = 0; i < at.size(); ++i) {
    const std::int64_t c = at[i];
    const bool inside = c < im.cols && c % fine != 0;
    const std::int32_t* lo = table.data() + t * rows;
    std::int32_t* out = edges.data() + i * rows;
    if (!inside) {
      std::copy(lo, lo + rows, out);
    } else {
      const std::int32_t* hi = lo + rows;
      const std::uint16_t below = static_cast<std::uint16_t>(c);   // c < 65536: packed columns are the columns
      for (std::size_t r = 0; r < rows; ++r) {
        std::int32_t j = lo[r];
        while (j < hi[r] && c16[static_cast<std::size_t>(j)] < below) ++j;
        out[r] = j;
      }
    }
    t += inside ? 2 : 1;
  }
  seg.bounds = edges.data();   // block c's segment of row r: [edges[c][r], edges[c + 1][r])
  seg.rows = im.rows;
  seg.n_fine = static_cast<int>(at.size()) - 1;
  seg.ratio = 1;
  return cudaSuccess;
}

// The columns of the non-zeros an order puts at positions [p0, p1) of one column block (perm[p]: the CSR
// position there, -1 for a pad, which keeps column 0), relative to the block's first column `first` (the plan's
// packed columns wrap at 65536, and so does the difference): the bound copies' columns, from which a kernel
// addresses its staged X' row with one multiply-add.
void relative_columns(const std::vector<std::uint16_t>& c16, const std::vector<std::int32_t>& perm, std::int64_t p0,
                      std::int64_t p1, std::int64_t first, std::vector<std::uint16_t>& rel) {
  const std::uint16_t f = static_cast<std::uint16_t>(first & 0xffff);
  for (std::int64_t q = p0; q < p1; ++q) {
    const std::int32_t src = perm[static_cast<std::size_t>(q)];
    if (src >= 0) rel[static_cast<std::size_t>(q)] = static_cast<std::uint16_t>(c16[static_cast<std::size_t>(src)] - f);
  }
}

// Builds the plan's lanes-across-rows order at batch tile bt for X' values of value_bytes (row_lanes_layout.hpp; where
// an X' row is shorter than a 128-byte bank line, in the residue order of its rows: 32-, 64- and 96-byte rows at fp32
// tiles 8, 16 and 24, 16 and 64 bytes at 16-bit tiles 8 and 32). cudaErrorInvalidValue where lanes_geometry() says the
// kernel does not fit (or the boundary table does not tile the non-zeros), else the first CUDA error; the order stays
// unbuilt on failure.
cudaError_t build_lanes_order(Plan::Impl& im, int bt, std::size_t value_bytes, cudaStream_t stream) {
  LanesGeometry geo;
  if (!lanes_geometry(im, bt, geo)) return cudaErrorInvalidValue;
  Plan::Impl::LanesOrder& o = im.lanes_of(bt, value_bytes);
  const int row_bytes = bt * static_cast<int>(value_bytes);
  const int residues = rowlanes_residues(row_bytes), first_pieces = rowlanes_first_pieces(row_bytes / 16);
  std::vector<std::uint16_t> c16;
  std::vector<std::int32_t> edges;
  HeldSegments seg;
  std::vector<std::int64_t> at(static_cast<std::size_t>(geo.n_blocks) + 1);
  for (int c = 0; c <= geo.n_blocks; ++c)
    at[static_cast<std::size_t>(c)] = c == geo.n_blocks ? im.cols : geo.first_col(c);
  cudaError_t e = host_segments(im, at, stream, c16, edges, seg);
  if (e != cudaSuccess) return e;
  // Tiles 8 and 16: one row range (each block's rows sorted by segment length over all rows), its work items dealt
  // out to the thread blocks in turn (csr_rowlanes.cuh); tile 32: a range per thread block.
  RowLanesLayout L;
  if (!build_row_lanes_layout(seg, im.nnz, rowlanes_dealt(bt) ? 1 : std::max(1, geo.n_ranges), L, c16.data(), residues,
                              first_pieces))
    return cudaErrorInvalidValue;
  std::vector<std::uint16_t> rel(L.perm.size() + 16, 0);
  for_each_range(static_cast<std::int64_t>(L.group_start.size()), 256, [&](std::int64_t g0, std::int64_t g1) {
    for (std::size_t gi = static_cast<std::size_t>(g0); gi < static_cast<std::size_t>(g1); ++gi)
      relative_columns(c16, L.perm, L.group_start[gi], L.group_start[gi] + std::int64_t(L.group_chunks[gi]) * 128,
                       geo.first_col(static_cast<int>(gi / static_cast<std::size_t>(L.n_groups))), rel);
  });
  if ((e = o.perm.upload(L.perm, 0, stream)) != cudaSuccess || (e = o.col16.upload(rel, 0, stream)) != cudaSuccess ||
      (e = o.group_start.upload(L.group_start, 0, stream)) != cudaSuccess ||
      (e = o.group_chunks.upload(L.group_chunks, 0, stream)) != cudaSuccess ||
      (e = o.slot_row.upload(L.slot_row, 0, stream)) != cudaSuccess ||
      (e = o.slot_len.upload(L.slot_len, 0, stream)) != cudaSuccess ||
      (e = cudaStreamSynchronize(stream)) != cudaSuccess)
    return e;
  o.groups_per_range = L.groups_per_range;
  o.n_groups = L.n_groups;
  o.geo = geo;
  return cudaSuccess;
}

}  // namespace

cudaError_t ensure_lanes_values(Plan::Impl& im, int bt, ValueType t, const void* values, cudaStream_t stream) {
  const std::size_t vs = value_size(t);
  Plan::Impl::LanesOrder& o = im.lanes_of(bt, vs);
  if (o.has_values) return cudaSuccess;
  cudaError_t e = o.geo.block_cols == 0 ? build_lanes_order(im, bt, vs, stream) : cudaSuccess;
  if (e == cudaSuccess) e = o.values.reserve((o.perm.size() + 16) * vs);
  if (e == cudaSuccess)
    e = launch_gather(o.values.get(), values, o.perm.get(), static_cast<std::int64_t>(o.perm.size()),
                      static_cast<int>(vs), stream);
  if (e != cudaSuccess) {
    o.failed = true;
    return e;
  }
  o.has_values = true;
  return cudaSuccess;
}

void Plan::add_transposed(const std::vector<std::int32_t>& rp, const std::vector<std::int32_t>& col,
                        cudaStream_t stream) {
  Impl& im = *impl_;
  if (im.transposed) return;
  const std::int32_t rows = im.rows, cols = im.cols;
  if (rp.size() != static_cast<std::size_t>(rows) + 1 || static_cast<std::int64_t>(col.size()) != im.nnz)
    throw std::invalid_argument("snk::cuda::Plan::add_transposed: the arrays are not of the plan's shape");
  // W^T's CSR (cp, rt), and t_pos[j]: W^T's position of W's j-th non-zero.
  std::vector<std::int32_t> cp(std::size_t(cols) + 1, 0), rt(col.size()), t_pos(col.size());
  for (std::size_t j = 0; j < col.size(); ++j) ++cp[col[j] + 1];
  for (std::int32_t c = 0; c < cols; ++c) cp[c + 1] += cp[c];
  std::vector<std::int32_t> next(cp.begin(), cp.end() - 1);
  for (std::int32_t r = 0; r < rows; ++r)
    for (int j = rp[r]; j < rp[r + 1]; ++j) {
      const int pos = next[col[j]]++;
      rt[pos] = r;
      t_pos[j] = pos;
    }
  PlanOptions sub;
  sub.coo = im.has_coo;
  std::unique_ptr<Plan> transposed = from_host(cols, rows, cp, rt, sub, stream);
  transposed->impl().transpose_of = &im;
  const TransposeRuns runs = transpose_runs(rows, cols, rp, col, t_pos);
  check(im.transpose_entry.upload(runs.entry, 0, stream), "upload transpose pieces");
  check(im.transpose_src_run.upload(runs.src_run, 0, stream), "upload transpose pieces");
  check(im.transpose_dst_run.upload(runs.dst_run, 0, stream), "upload transpose pieces");
  check(im.transpose_src_run_pos.upload(runs.src_run_pos, 0, stream), "upload transpose runs");
  check(im.transpose_dst_run_pos.upload(runs.dst_run_pos, 0, stream), "upload transpose runs");
  check(im.transpose_src_run_off.upload(runs.src_run_off, 0, stream), "upload transpose runs");
  check(im.transpose_dst_run_off.upload(runs.dst_run_off, 0, stream), "upload transpose runs");
  check(im.transpose_dperm.upload(runs.dperm, 0, stream), "upload transpose runs");
  im.n_transpose_pieces = runs.pieces();
  im.transpose_max_piece = runs.max_piece;
  check(cudaStreamSynchronize(stream), "synchronize");
  im.transposed = std::move(transposed);   // last: a plan whose transposed form failed has none
}

Status Plan::bind_values(const void* values, ValueType type, cudaStream_t stream, std::string* message) {
  Impl& im = *impl_;
  const auto fail = [message](Status st, const std::string& why) { return failed(st, why, message); };
  // Checks first: a refused call leaves the plan's bound values as they were.
  if (type != ValueType::FP32 && type != ValueType::FP16 && type != ValueType::BF16)
    return fail(Status::Unsupported, std::string("bind_values: the bound order serves the batch-8 column-block kernel "
                                                 "(fp32, fp16, bf16), not ") + value_type_name(type));
  if (im.nnz > 0 && !values) return fail(Status::InvalidArgument, "bind_values: null values");
  const int block_cols = held_block_cols(im, type);
  const int residues = held_bank_residues(static_cast<int>(value_size(type)));
  if (block_cols <= 0 || residues == 0)
    return fail(Status::Unsupported,
                "bind_values: this plan has no column-block layout at batch tile 8 (no column-boundary table, or "
                "blocks wider than shared memory)");
  const std::size_t vs = value_size(type);
  cudaError_t e = cudaSuccess;
  auto cuda_fail = [&](const char* what) {
    im.has_bound_values = false;
    return fail(Status::CudaError, std::string("bind_values: ") + what + ": " + cudaGetErrorString(e));
  };
  if (im.bound_block_cols != block_cols || im.bound_residues != residues) {
    // The order for this block width and row size: the packed columns and the boundary table's rows at the
    // blocks' edges come back once.
    im.has_bound_values = false;
    im.bound_block_cols = 0;
    const std::size_t nnz = static_cast<std::size_t>(im.nnz);
    std::vector<std::uint16_t> c16;
    std::vector<std::int32_t> edges;
    HeldSegments seg;
    std::vector<std::int64_t> at;
    for (const int f : im.even_fine_edges(block_cols / im.tile_fine_cols))
      at.push_back(std::min<std::int64_t>(std::int64_t(f) * im.tile_fine_cols, im.cols));
    if ((e = host_segments(im, at, stream, c16, edges, seg)) != cudaSuccess)
      return cuda_fail("copy columns and column-boundary table");
    std::vector<std::int32_t> perm;
    if (!held_bank_order(c16.data(), im.nnz, seg, residues, perm))
      return fail(Status::Unsupported, "bind_values: the plan's column-boundary table does not cover its non-zeros");
    // The columns in that order, each relative to its column block's first (the held kernel then addresses its
    // staged X' row with one multiply-add), padded by 8 for the chunk loads.
    std::vector<std::uint16_t> rel(nnz + 8, 0);
    for_each_range(im.rows, 1024, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int32_t r = static_cast<std::int32_t>(r0); r < r1; ++r)
        for (int c = 0; c < seg.n_blocks(); ++c)
          relative_columns(c16, perm, seg.begin(c, r), seg.end(c, r), static_cast<std::int64_t>(c) * block_cols, rel);
    });
    if ((e = im.bound_perm.upload(perm, 0, stream)) != cudaSuccess) return cuda_fail("upload order");
    if ((e = im.bound_col16.upload(rel, 0, stream)) != cudaSuccess) return cuda_fail("upload ordered columns");
    if ((e = cudaStreamSynchronize(stream)) != cudaSuccess) return cuda_fail("synchronize");   // host arrays go
    im.bound_block_cols = block_cols;
    im.bound_residues = residues;
  }
  if ((e = im.bound_values.reserve(static_cast<std::size_t>(im.nnz) * vs + 64)) != cudaSuccess)
    return cuda_fail("allocate");
  if (im.nnz > 0 &&
      (e = launch_gather(im.bound_values.get(), values, im.bound_perm.get(), im.nnz, static_cast<int>(vs), stream)) !=
          cudaSuccess)
    return cuda_fail("gather values");
  im.bound_type = type;
  im.has_bound_values = true;
  for (auto& o : im.lanes) o.has_values = false;   // the lanes orders' copies are gathered again by their next calls
  return Status::Success;
}

}  // namespace snk::cuda
