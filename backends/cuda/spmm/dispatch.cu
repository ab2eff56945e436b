// spmm/dispatch.cu: the dispatcher: argument checks, orientation and layout mapping, kernel choice,
// workspaces, launches.
//
// Every call is reduced to Y' = A X' with A = W or W^T (the plan's cached transposed pattern), X' K' x batch
// and Y' M' x batch addressed through (row, column) strides: Y = X W^T is Y^T = W X^T, so it only swaps
// strides (and the multiply's operand order). The row-segment and column-block kernels read X' as rows
// of 4 aligned values; when X' is not laid out so (column-major X' with batch > 1, an odd leading
// dimension, a misaligned pointer, or a batch that is not a multiple of those 4 values, which would read past
// the end of X's last row) it is first copied into a row-major workspace (K' x batch values, far less than the
// matrix). Y' is written through its strides directly.
//
// The kernel choice (choose()) walks kCandidates, an ordered table with one entry per kernel: whether the kernel can
// run a call at all (can_run: types, semiring, plan structure, 32-bit offsets, batch range), whether Auto prefers it
// for the call (prefers), and its configuration (configure). Auto takes the first entry whose can_run and prefers
// both hold; the last entry, row_segment (generic: any semiring, type and plan), always holds. A call that asks for a
// kernel takes that entry where it can run, else what the entry says (another kernel, or Auto). An Auto call may then
// be cut into passes over its batch (pass_width()). spmm() checks the call, takes the choice and runs the entry's
// launch, which prepares what its kernel reads (A's values in A's order, X' copied where its layout does not suit the
// kernel) and launches it. Each entry's comment gives its rule; the measurements behind the rules are in
// bench/results/spmm-dispatch-rules.md.
#include <cstring>
#include <sstream>

#include "algebra/builtin_ops.hpp"   // ops::is_monoid, ops::is_bitwise, ops::opcode_name
#include "spmm/bank_order.hpp"
#include "spmm/column_ranges.cuh"   // rows_start_aligned
#include "spmm/blocked_rows.cuh"
#include "spmm/csr_colblock.cuh"
#include "spmm/csr_rowlanes.cuh"
#include "spmm/csr_rowrange.cuh"
#include "spmm/csr_rowseg.cuh"
#include "spmm/plan_impl.hpp"
#include "spmm/row_balance.hpp"
#include "spmm/snack_coo.cuh"

namespace snk::cuda {

std::size_t value_size(ValueType t) {
  switch (t) {
    case ValueType::Bool: return 1;
    case ValueType::Int32: case ValueType::UInt32: case ValueType::FP32: return 4;
    case ValueType::Int64: case ValueType::UInt64: case ValueType::FP64: return 8;
    case ValueType::FP16: case ValueType::BF16: return 2;
  }
  return 4;
}

const char* value_type_name(ValueType t) {
  static const char* n[] = {"bool", "int32", "int64", "uint32", "uint64", "fp32", "fp64", "fp16", "bf16"};
  return n[static_cast<int>(t)];
}
namespace {
// Whether the library computes the semiring on values of type t: its monoid a builtin one on t (PLUS, TIMES, MIN,
// MAX on the numeric types; LOR, LAND, LXOR, LXNOR on Bool; fp16 and bf16 run PLUS_TIMES only, as Float32 sums)
// and its multiply any builtin operator but the bitwise ones.
bool semiring_supported(const SemiringId& s, ValueType t) {
  if (t == ValueType::FP16 || t == ValueType::BF16) return s.is_plus_times();
  return ops::is_monoid(s.add, t == ValueType::Bool) && !ops::is_bitwise(s.mul) && s.mul != BinaryOpcode::User;
}
}  // namespace

const char* status_name(Status s) {
  static const char* n[] = {"success", "invalid_argument", "unsupported", "cuda_error", "out_of_memory"};
  return n[static_cast<int>(s)];
}

namespace {
// Whether a choice runs rowseg_stream_kernel (the launchers take it for batch tile 1 with 32 lanes).
bool runs_stream_kernel(const Choice& c) {
  return c.kernel == Kernel::RowSegment && c.batch_tile == 1 && c.group_lanes == 32;
}
}  // namespace

std::string Choice::describe() const {
  std::ostringstream o;
  o << kernel_name(kernel);
  if (kernel == Kernel::RowSegment)
    o << "(bt=" << batch_tile << ",g=" << group_lanes
      << (runs_stream_kernel(*this) ? (windows ? ",stream,windows" : ",stream") : "") << ")";
  if (kernel == Kernel::RowSegmentBatchLanes) o << "(bt=" << batch_tile << ")";
  if (kernel == Kernel::RowRange) o << "(bt=" << batch_tile << ",slabs=" << slabs << (one_row ? ",one_row" : "") << ")";
  if (kernel == Kernel::RowLanes) {
    o << "(bt=" << batch_tile << ",cols=" << lanes_block_cols;
    if (lanes_wide_blocks < lanes_blocks)   // e.g. cols=1408x4+1344x8
      o << "x" << lanes_wide_blocks << "+" << lanes_narrow_cols << "x" << lanes_blocks - lanes_wide_blocks;
    o << ",blocks=" << lanes_blocks << (atomic_sums ? ",atomic" : "");
    if (lanes_runs > 1) o << ",runs=" << lanes_runs;
    o << ",threads=" << lanes_threads << ",bound)";
  }
  if (kernel == Kernel::ColumnBlock) {
    o << "(bt=" << column_block.batch_tile << ",cols=" << column_block.block_cols << ",rows="
      << column_block.rows_per_cta << ",splits=" << column_block.splits;
    if (column_block.pairs_per_lane) o << ",pairs=" << column_block.pairs_per_lane;
    if (column_block.row_order == RowOrder::Balanced) o << ",balanced";
    if (bound_order) o << ",bound";
    o << ")";
  }
  if (batch_passes > 1) o << " x" << batch_passes << " passes";
  return o.str();
}

namespace {

bool fast_type(ValueType t) { return t == ValueType::FP32 || t == ValueType::FP16 || t == ValueType::BF16; }

const Plan::Impl& operand(const Plan& plan, Orientation o) {
  return (o == Orientation::WtX && plan.impl().transposed) ? plan.impl().transposed->impl() : plan.impl();
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }

// The shared memory of one thread block of the column-scatter and sampled-product kernels: at least two an SM.
constexpr std::int64_t kBlockSharedBytes = 96 * 1024;

// Whether W's plan has the blocked-rows layout (blocked_rows.cuh) for per_col fp32 values a column: the column-boundary
// table, at most 65536 columns, and one fine block's values within kBlockSharedBytes.
bool blocked_rows_fit(const Plan::Impl& w, int per_col) {
  return w.tile_bounds.size() > 0 && w.cols <= 65536 && w.tile_fine_cols > 0 &&
         std::int64_t(per_col) * w.tile_fine_cols * 4 <= kBlockSharedBytes;
}

// The layout on W's plan (blocked_rows_fit): column blocks as wide as kBlockSharedBytes of per_col fp32 values a column
// allows, all of one width (the launcher adds the row ranges).
BlockedRows blocked_rows(const Plan::Impl& w, int per_col) {
  BlockedRows g;
  g.rows = w.rows;
  g.cols = w.cols;
  g.col16 = w.col16.get();
  g.bounds = w.tile_bounds.get();
  g.fine_cols = w.tile_fine_cols;
  g.n_fine = w.tile_n_fine;
  const std::int64_t fine_bytes = std::int64_t(per_col) * w.tile_fine_cols * 4;
  const int widest = static_cast<int>(
      std::max<std::int64_t>(1, std::min<std::int64_t>(w.tile_n_fine, kBlockSharedBytes / fine_bytes)));
  g.blocks = (w.tile_n_fine + widest - 1) / widest;
  g.block_fine = (w.tile_n_fine + g.blocks - 1) / g.blocks;
  g.block_cols = g.block_fine * w.tile_fine_cols;
  g.sm_count = w.sm_count;
  return g;   // the launcher cuts the rows into ranges (launch_blocked)
}

// X' bytes of one column block that colblock_held_kernel (batch tile 8) holds for the whole call (it keeps no
// row sums in shared memory; 16384 fp32 columns take three blocks up to 200 KB as well as up to 176 KB).
constexpr std::int64_t kResidentTileBytes = 176 * 1024;

// Batch tile 8 without a block width given: one column block per thread block, staged once and held for the
// call (colblock_held_kernel), the columns cut into the fewest blocks whose tile fits
// kResidentTileBytes (16384 fp32 columns: 3 blocks of 5504), the rows into ranges so that ranges x blocks x
// batch tiles fill the SMs once; the partial tiles of the blocks are folded in block order.
ColumnBlockConfig resident_column_blocks(const Plan::Impl& a, const SpmmArgs& args, ColumnBlockConfig c) {
  const std::int64_t row_bytes = std::int64_t(8) * static_cast<std::int64_t>(value_size(args.type));
  const std::int64_t cols = std::max<std::int64_t>(1, a.cols);
  const std::int64_t parts = (cols * row_bytes + kResidentTileBytes - 1) / kResidentTileBytes;
  c.block_cols = round_up(static_cast<int>((cols + parts - 1) / parts), a.tile_fine_cols);
  const int ratio = c.block_cols / a.tile_fine_cols;
  const int n_blocks = a.column_blocks(ratio);
  c.splits = n_blocks;
  c.pairs_per_lane = 0;
  c.row_order = RowOrder::Plain;
  const std::int64_t bz = (args.batch + 7) / 8;
  if (c.rows_per_cta <= 0) {
    const std::int64_t ranges = std::max<std::int64_t>(1, a.sm_count / (n_blocks * bz));
    c.rows_per_cta = static_cast<int>(std::max<std::int64_t>(1, (a.rows + ranges - 1) / ranges));
  }
  return c;
}

// X' bytes of one of those blocks (batch tile 8); the configuration applies where it is <= kResidentTileBytes
// (a coarse plan table can round the blocks wider).
std::int64_t resident_tile_bytes(const ColumnBlockConfig& c, const SpmmArgs& args) {
  return std::int64_t(c.block_cols) * 8 * static_cast<std::int64_t>(value_size(args.type));
}

// Whether a column-block launch with configuration c runs colblock_held_kernel in W's orientation (W^T X
// gathers its values per call) with the block width that a bound order is built for (held_block_cols):
// batch tile 8, one block per thread block.
bool held_layout(const Plan::Impl& w, const SpmmArgs& args, const ColumnBlockConfig& c) {
  if (args.orientation == Orientation::WtX || c.batch_tile != 8 || c.splits <= 0 || w.tile_fine_cols <= 0) return false;
  if (held_bank_residues(static_cast<int>(value_size(args.type))) == 0) return false;
  const int ratio = c.block_cols / w.tile_fine_cols;
  const int n_blocks = w.column_blocks(ratio);
  return colblock_one_block(c.batch_tile, (n_blocks + c.splits - 1) / c.splits);
}

// Whether that launch reads the values bound to the plan w: the call says they are its values, of its type,
// and the order was built for this block width.
bool reads_bound_order(const Plan::Impl& w, const SpmmArgs& args, const ColumnBlockConfig& c) {
  return args.values_bound && w.has_bound_values && w.bound_type == args.type && c.block_cols == w.bound_block_cols &&
         held_layout(w, args, c);
}

// The balanced row order of a wide column-block launch (row_balance.hpp) for p's layout, from the plan's cache
// or built now: the boundary table's rows at the edges of the column ranges come back to the host (one
// synchronization of the stream, on the first launch of each layout only), the map goes up. Sets p.row_map and
// p.map_slots.
static_assert(kRowBalanceWarps == kColBlockThreads / 32, "the row map's warps are the column-block kernel's");
cudaError_t colblock_row_map(Plan::Impl& a, ColBlockParams& p, cudaStream_t s) {
  const int grid_x = (p.rows + p.rows_per_cta - 1) / p.rows_per_cta;
  const int splits = (p.n_blocks + p.blocks_per_cta - 1) / p.blocks_per_cta;
  p.map_slots = std::int64_t(grid_x) * p.rows_per_cta;
  for (const auto& m : a.row_maps)
    if (m->rows_per_cta == p.rows_per_cta && m->ratio == p.ratio && m->blocks_per_cta == p.blocks_per_cta) {
      p.row_map = m->map.get();
      return cudaSuccess;
    }
  const std::size_t rows = static_cast<std::size_t>(p.rows);
  std::vector<std::int32_t> edges;   // [splits + 1][rows]: the column ranges' edges
  cudaError_t e = a.column_edges(p.blocks_per_cta * p.ratio, s, edges);
  if (e != cudaSuccess) return e;
  std::vector<std::int32_t> map(static_cast<std::size_t>(splits) * static_cast<std::size_t>(p.map_slots)), one;
  std::vector<std::int64_t> weight(rows);
  for (int i = 0; i < splits; ++i) {
    for (std::size_t r = 0; r < rows; ++r)
      weight[r] = row_segment_weight(edges[i * rows + r], edges[(i + 1) * rows + r]);
    if (!balanced_row_slots(weight, p.rows_per_cta, grid_x, one)) return cudaErrorInvalidValue;
    std::copy(one.begin(), one.end(), map.begin() + static_cast<std::ptrdiff_t>(i * p.map_slots));
  }
  auto m = std::make_unique<Plan::Impl::RowMap>();
  m->rows_per_cta = p.rows_per_cta;
  m->ratio = p.ratio;
  m->blocks_per_cta = p.blocks_per_cta;
  if ((e = m->map.upload(map, 0, s)) != cudaSuccess || (e = cudaStreamSynchronize(s)) != cudaSuccess) return e;
  if (a.row_maps.size() >= Plan::Impl::kMaxRowMaps) a.row_maps.erase(a.row_maps.begin());
  p.row_map = m->map.get();
  a.row_maps.push_back(std::move(m));
  return cudaSuccess;
}

ColumnBlockConfig resolve_column_block(const Plan::Impl& a, const SpmmArgs& args) {
  ColumnBlockConfig c = args.column_block;
  const int vs = static_cast<int>(value_size(args.type));
  if (c.batch_tile != 8 && c.batch_tile != 32 && c.batch_tile != 128)
    c.batch_tile = args.batch <= 8 ? 8 : args.batch <= 32 ? 32 : 128;
  const int bt = c.batch_tile;
  if (bt == 8 && c.block_cols <= 0) {
    const ColumnBlockConfig r = resident_column_blocks(a, args, c);
    if (resident_tile_bytes(r, args) <= kResidentTileBytes) return r;   // else (coarse plan table) below
  }
  // Two stages of X take up to 128 KB (fp32), the row sums (batch tile 8) up to 64 KB. The wide kernel
  // (batch tiles 32 and 128) takes the widest block whose warps' runs (four rows) fit its pairs at once
  // on average (its four groups at batch 32 wait for the longest of their rows).
  if (c.block_cols <= 0) {
    c.block_cols = 65536 / (bt * vs);
    if (colblock_wide(bt) && a.avg_row_nnz > 0) {
      const double per_row = 32.0 * colblock_pairs_per_lane(bt, 8) / kColBlockRowsPerWarp;
      c.block_cols = std::max(a.tile_fine_cols, std::min<int>(c.block_cols, static_cast<int>(per_row * a.cols / a.avg_row_nnz)));
    }
  }
  // A power of two, at least the plan's fine granularity, at most 65536 (the 16-bit column window); the
  // wide kernel's automatic width rounds down (its cap is a limit), an explicit width rounds up.
  int bc = a.tile_fine_cols;
  while (bc < c.block_cols && bc < 65536) bc *= 2;
  if (colblock_wide(bt) && args.column_block.block_cols <= 0 && bc > c.block_cols && bc > a.tile_fine_cols) bc /= 2;
  c.block_cols = bc;
  if (colblock_wide(bt) && c.pairs_per_lane != 4 && c.pairs_per_lane != 8) {
    // 8 per lane only where a warp's run (four rows) would not fit in 128: more costs registers and shared memory
    // (colblock_pairs_per_lane); the rule is measured: bench/results/spmm-dispatch-rules.md.
    const double run = kColBlockRowsPerWarp * a.avg_row_nnz * c.block_cols / std::max<double>(1, a.cols);
    c.pairs_per_lane = run > 112 ? 8 : 4;
  }
  c.pairs_per_lane = colblock_wide(bt) ? colblock_pairs_per_lane(bt, c.pairs_per_lane) : 0;
  const int ratio = c.block_cols / a.tile_fine_cols;
  const int n_blocks = a.column_blocks(ratio);
  const std::int64_t bz = (args.batch + bt - 1) / bt;
  const std::int64_t stage_bytes = std::int64_t(2) * c.block_cols * bt * vs;
  const int rows_cap = static_cast<int>(std::max<std::int64_t>(32, (kColBlockSharedBytes - stage_bytes) / (bt * 4)));
  if (colblock_wide(bt)) {
    // colblock_wide_kernel keeps the sums in registers: at most 32 x kColBlockRowsPerWarp rows per block. Where
    // full blocks would fill at least half of the SMs without splits, the rows are spread evenly over whole
    // waves of blocks instead (16384 rows: 132 blocks of 125 rather than 128 of 128, four SMs idle); with
    // fewer rows, where the column blocks are split s ways (below), over as many row ranges as s-way splits
    // fill a wave, as long as blocks keep at least half of the full rows (4096 rows: 33 ranges of 125 x 4
    // splits rather than 32 of 128 x 4).
    const int full = 32 * kColBlockRowsPerWarp;
    c.rows_per_cta = args.column_block.rows_per_cta > 0 ? std::min(args.column_block.rows_per_cta, full) : full;
    const std::int64_t per_wave = std::max<std::int64_t>(1, a.sm_count / bz);
    const std::int64_t ranges = (a.rows + full - 1) / full;
    if (args.column_block.rows_per_cta <= 0 && ranges > 0) {
      const bool unsplit = 2 * ranges >= per_wave;
      const std::int64_t s = c.splits > 0 ? c.splits : std::min<std::int64_t>(n_blocks, per_wave / ranges);
      // Row ranges to aim for: whole waves without splits, else the ranges that s-way splits fill a wave with.
      const std::int64_t target =
          std::max<std::int64_t>(1, unsplit ? (ranges + per_wave - 1) / per_wave * per_wave : per_wave / s);
      const std::int64_t r = (a.rows + target - 1) / target;
      if (unsplit || (target > ranges && 2 * r >= full)) c.rows_per_cta = static_cast<int>(r);
    }
  }
  if (c.rows_per_cta <= 0) {
    // The most rows per block (X is staged once per row range) that still gives about one block per SM
    // once the column blocks are split across blocks.
    int r = 1;
    while (r * 2 <= std::min(rows_cap, 2048)) r *= 2;
    for (; r > 32; r /= 2) {
      const std::int64_t ranges = std::max<std::int64_t>(1, (a.rows + r - 1) / r);   // a plan of no rows: one
      const std::int64_t splits = std::min<std::int64_t>(n_blocks, std::max<std::int64_t>(1, a.sm_count / (ranges * bz)));
      if (ranges * splits * bz >= a.sm_count * 9 / 10) break;
    }
    c.rows_per_cta = r;
  }
  if (!colblock_wide(bt)) c.rows_per_cta = std::max(1, std::min(c.rows_per_cta, rows_cap));
  if (c.splits <= 0) {
    const std::int64_t ranges = std::max<std::int64_t>(1, (a.rows + c.rows_per_cta - 1) / c.rows_per_cta);
    c.splits = static_cast<int>(std::max<std::int64_t>(1, a.sm_count / (ranges * bz)));
  }
  c.splits = std::max(1, std::min(c.splits, n_blocks));
  const int per = (n_blocks + c.splits - 1) / c.splits;
  c.splits = (n_blocks + per - 1) / per;
  // The rows' order (RowOrder, dispatch.hpp): balanced at batch tiles 32 and 128 (Auto: without split column
  // ranges).
  if (!colblock_wide(bt)) c.row_order = RowOrder::Plain;
  else if (c.row_order != RowOrder::Plain && c.row_order != RowOrder::Balanced)
    c.row_order = c.splits == 1 ? RowOrder::Balanced : RowOrder::Plain;
  return c;
}

bool skewed(const Plan::Impl& a) { return a.max_row_nnz > 8.0 * a.avg_row_nnz + 256; }

// Where the column-block kernels beat the lanes-across-the-batch kernels, with X' packed to the column-block tile so
// that its stages are bulk-copied (spmm() repacks X' to that end): never on skewed plans or plans without the
// column-boundary table; at batch 2-8 as below; at larger batches where rows average >= 300 non-zeros if the
// row-range kernel takes the call (row_range), else >= 200 (the batch-lane kernel)
// (bench/results/spmm-dispatch-rules.md).
bool column_block_wins(const Plan::Impl& a, const SpmmArgs& args, bool row_range) {
  if (!a.tile_bounds.size() || skewed(a)) return false;
  if (args.batch <= 8) {
    // Batch 2-8 (colblock_held_kernel, column blocks held for the call): where a row's piece in a block averages
    // at least one warp step (128 non-zeros), and either one block holds all the columns or each thread block
    // streams at least twice the bytes of W that it stages of X'.
    const double vs = static_cast<double>(value_size(args.type));
    const double w_per_block = static_cast<double>(a.nnz) * (vs + 2) / std::max(1, a.sm_count);
    const ColumnBlockConfig r = resident_column_blocks(a, args, ColumnBlockConfig{});
    const std::int64_t tile = resident_tile_bytes(r, args);
    const double piece = a.avg_row_nnz * r.block_cols / std::max<double>(1, a.cols);
    return tile <= kResidentTileBytes && piece >= 128 &&
           (r.splits == 1 || w_per_block >= 2.0 * static_cast<double>(tile));
  }
  return a.avg_row_nnz >= (row_range ? 300 : 200);
}

// Whether the row-range kernel runs this plan: whole rows (no split rows), no skew (its ranges hold equal row
// counts), 16-bit columns without a base, and the column-boundary table for the slabs.
bool row_range_fits(const Plan::Impl& a) {
  return a.n_splits == 0 && !skewed(a) && a.cols <= 65536 && a.tile_bounds.size();
}

// Whether batch tile 32 runs one row per 8-lane group (rowrange_row_kernel): where the plan has rows for at
// least 24 warps per SM (four rows each) (bench/results/spmm-dispatch-rules.md).
bool row_range_one_row(const Plan::Impl& a) { return a.rows >= std::int64_t(96) * a.sm_count; }

// Column boundaries of the plan's table per slab, for `slabs` slabs (the last slab may hold fewer).
int boundaries_per_slab(const Plan::Impl& a, int slabs) {
  const int most = std::max(1, a.tile_n_fine);
  return (most + slabs - 1) / slabs;
}

// Column slabs for the row-range kernel: at batch tile 8, slabs of about 128 KB of X (4096 fp32 columns) where
// each row still has >= 128 non-zeros per slab on average; at batch tile 32 (128 KB is 1024 columns, a few
// non-zeros per row) plain rows (bench/results/spmm-dispatch-rules.md).
int row_range_slabs(const Plan::Impl& a, const SpmmArgs& args, int bt) {
  if (bt == 128) return 1;   // one row per warp, no slabs (rowrange_row_kernel)
  const int most = std::max(1, a.tile_n_fine);
  int slabs = args.slabs;
  if (slabs <= 0) {
    slabs = 1;
    if (bt == 8) {
      const std::int64_t slab_cols = std::max<std::int64_t>(a.tile_fine_cols, 16384 / static_cast<std::int64_t>(value_size(args.type)));
      const std::int64_t n = (a.cols + slab_cols - 1) / slab_cols;
      if (n > 1 && a.avg_row_nnz / static_cast<double>(n) >= 128) slabs = static_cast<int>(n);
    }
  }
  // Whole boundaries per slab.
  const int ratio = boundaries_per_slab(a, std::max(1, std::min(slabs, most)));
  return (most + ratio - 1) / ratio;
}

// The batch tile of the lanes-across-rows kernel for a batch: 8 for batch 2-8, 16 for batch 9-16, 24 for batch 17-24
// (fp32; 16-bit values take 32), 32 for batch 25-kRowLanesMaxBatch (one tile per grid z above 32, each streaming W),
// else 0 (batch 1: the stream kernel). The kernel streams W once per tile whatever the batch, and its shared-memory
// work per non-zero grows with the tile, so the smallest tile that holds the batch wins; at batch 17-24 two tiles of 16
// stream W twice, which costs what one tile of 32 does (bench/results/spmm-dispatch-rules.md). A call that asks for a
// batch tile of 8, 16, 32 or (fp32) 24 (SpmmArgs::batch_tile) at batch 2-kRowLanesMaxBatch gets it.
constexpr std::int64_t kRowLanesMaxBatch = 128;
int lanes_tile(const SpmmArgs& args) {
  const std::int64_t batch = args.batch;
  if (batch < 2 || batch > kRowLanesMaxBatch) return 0;
  const int value_bytes = static_cast<int>(value_size(args.type));
  if (rowlanes_tile(args.batch_tile, value_bytes)) return args.batch_tile;
  return batch <= 8 ? 8 : batch <= 16 ? 16 : batch <= 24 && rowlanes_tile(24, value_bytes) ? 24 : 32;
}

// Whether every row of Y' (my x batch) holds its values contiguously in 16-byte aligned groups of four (the batch a
// multiple of 4): where Auto lets the lanes-across-rows kernel's blocks add their sums into Y with atomics (16-byte
// ones then). Elsewhere Auto folds rather than add with one-value atomics (measured:
// bench/results/spmm-dispatch-rules.md); RowLanes asked for adds with whichever atomics fit Y.
// The launchers' rows_start_aligned (column_ranges.cuh) on Y' as spmm() will address it (rows ld apart where
// they are contiguous), decided here before the strides exist.
bool y_rows_in_fours(const SpmmArgs& args) {
  const bool rows_contiguous = (args.orientation == Orientation::XWt) == (args.y.layout == Layout::ColMajor);
  return rows_contiguous && rows_start_aligned(args.y.data, args.y.ld, 1) && args.batch % 4 == 0;
}

// Whether the lanes-across-rows kernel can run this call: plus_times fp32, fp16 or bf16, W X or X W^T, batch 2-128,
// the values bound (of the call's type; once_bound: as if they were) to a plan the kernel fits at the batch's tile
// (lanes_geometry, which fills geo); not where building its order failed before.
bool lanes_fit(const Plan::Impl& w, const SpmmArgs& args, bool once_bound, LanesGeometry& geo) {
  const int bt = lanes_tile(args);
  const std::size_t vs = value_size(args.type);
  const bool bound = once_bound || (args.values_bound && w.has_bound_values && w.bound_type == args.type);
  return bound && bt > 0 && fast_type(args.type) && !w.lanes_of(bt, vs).failed &&
         args.orientation != Orientation::WtX && args.semiring.is_plus_times() && lanes_geometry(w, bt, geo);
}

// Passes for an Auto call (fp32 plus_times, W X and X W^T: W^T X would gather the values into W^T's order again
// for each pass), the width of each but the last; 0 where the call runs whole. Two cases
// (bench/results/spmm-dispatch-rules.md):
//   - batch 33-64 where the rules would run batch tile 128, on plans of at least 2^19 non-zeros (smaller ones are
//     launch-bound): passes of 32 batch columns (kBatchPassWidth). Those kernels do a whole tile's work whatever
//     the batch, while each pass of the tile-32 kernels costs about what batch 32 does. Past batch 64 (three or
//     more passes) there is nothing to gain.
//   - the lanes-across-rows kernel (values bound) at a batch past 32 whose last tile of 32 would hold 1-16
//     columns: the whole tiles in one pass, the rest in a second (batch tile 8 or 16, or at 1 the stream kernel),
//     instead of a tile of 32 streaming all of W for those few columns. A last tile of 17 or more columns costs a
//     second pass about as much as the tile of 32 does.
constexpr std::int32_t kBatchPassWidth = 32;
constexpr std::int64_t kBatchPassMinNnz = std::int64_t(1) << 19;
int pass_width(const Plan::Impl& a, const SpmmArgs& args, const Choice& whole) {
  const bool asked = args.kernel != Kernel::Auto || args.batch_tile != 0 || args.column_block.batch_tile != 0;
  if (asked || args.type != ValueType::FP32 || !args.semiring.is_plus_times() || args.orientation == Orientation::WtX ||
      args.batch <= kBatchPassWidth)
    return 0;
  if (whole.kernel == Kernel::RowLanes) {
    const int rest = args.batch % kBatchPassWidth;
    return rest >= 1 && rest <= 16 ? args.batch - rest : 0;
  }
  return args.batch <= 2 * kBatchPassWidth && whole.batch_tile == 128 && a.nnz >= kBatchPassMinNnz ? kBatchPassWidth
                                                                                                  : 0;
}

// ---- The candidate table --------------------------------------------------------------------------------------------
// One entry per kernel, in the order Auto tries them; the measurements behind each entry's rule:
// bench/results/spmm-dispatch-rules.md. `a` is the plan of the call's operand A (W's, or for W^T X the transposed
// pattern's); the values bound to a plan are W's and serve W X and X W^T only, where `a` is W's plan.

struct Launch;

// One kernel the dispatcher can choose.
struct Candidate {
  Kernel kernel;
  const char* name;                                             // kernel_name()
  bool (*can_run)(const Plan::Impl& a, const SpmmArgs& args);   // whether it can run this call at all
  bool (*prefers)(const Plan::Impl& a, const SpmmArgs& args);   // whether Auto takes it (asked where can_run holds)
  void (*configure)(const Plan::Impl& a, const SpmmArgs& args, Choice& ch);   // the Choice's fields but `kernel`
  Kernel unfit;   // a call that asks for this kernel where can_run fails runs as this one instead (Auto: as Auto
                  // would; the kernel itself: the choice stands and spmm() refuses the call)
  Status (*launch)(Launch& call);   // runs the call as configured: its operands' preparation and the kernel
};

bool fast_plus_times(const SpmmArgs& args) { return args.semiring.is_plus_times() && fast_type(args.type); }

// ---- The launches ---------------------------------------------------------------------------------------------------
// A call after its checks and its choice: X' and Y' addressed through (row, column) strides (X' kx x batch, Y' my x
// batch), A's values as the call gave them. Each candidate's launch prepares what its kernel reads (prepare_values,
// prepare_x) and launches it; a failure returns the Status with its message.
struct Launch {
  Plan& plan;
  Plan::Impl& w;   // W's plan
  Plan::Impl& a;   // the operand's plan: W's, or for W^T X the transposed pattern's
  const SpmmArgs& args;
  const Choice& ch;
  std::string* message;
  std::int64_t batch, kx, my;
  std::int64_t xs_row, xs_col, ys_row, ys_col;
  std::size_t vs;              // bytes a value
  const void* values;          // A's values as the kernel reads them (prepare_values)
  const void* x;               // X' as the kernel reads it, rows ldx apart (prepare_x)
  std::int64_t ldx;

  Status fail(Status st, const std::string& why) const { return failed(st, why, message); }
  Status cuda_fail(cudaError_t e, const char* what) const {
    return fail(Status::CudaError, std::string(what) + ": " + cudaGetErrorString(e));
  }
  cudaError_t zero_y() const {
    if (ys_col == 1) return cudaMemset2DAsync(args.y.data, ys_row * vs, 0, batch * vs, my, args.stream);
    return cudaMemset2DAsync(args.y.data, ys_col * vs, 0, my * vs, batch, args.stream);
  }
  // The partial tiles of split column ranges (column-block and row-lanes kernels): [splits][rows][ld] floats, ld the
  // batch rounded up to the batch tile; folded in range order (column_ranges.cuh).
  cudaError_t range_partials(int splits, int batch_tile, float*& partial, std::int64_t& ld) const {
    ld = (batch + batch_tile - 1) / batch_tile * batch_tile;
    const cudaError_t r = w.ws_partial.reserve(std::size_t(splits) * a.rows * ld * 4 + 64);
    partial = reinterpret_cast<float*>(w.ws_partial.get());
    return r;
  }
};

// A's values for a kernel that reads them in A's order: W's, copied where misaligned (unless the call reads the
// plan's bound copy instead), or for W^T X gathered into W^T's order.
cudaError_t prepare_values(Launch& c) {
  cudaError_t e = cudaSuccess;
  if (c.a.nnz == 0) return e;
  if (c.args.orientation == Orientation::WtX) {
    if ((e = c.w.ws_values.reserve(c.a.nnz * c.vs + 64)) != cudaSuccess) return e;
    if ((e = launch_transpose_values(c.w.ws_values.get(), c.args.values, c.w, static_cast<int>(c.vs), c.args.stream)) !=
        cudaSuccess)
      return e;
    c.values = c.w.ws_values.get();
  } else if (!c.ch.bound_order && reinterpret_cast<std::uintptr_t>(c.values) % (4 * c.vs) != 0) {
    if ((e = c.w.ws_values.reserve(c.a.nnz * c.vs + 64)) != cudaSuccess) return e;
    if ((e = cudaMemcpyAsync(c.w.ws_values.get(), c.values, c.a.nnz * c.vs, cudaMemcpyDeviceToDevice, c.args.stream)) !=
        cudaSuccess)
      return e;
    c.values = c.w.ws_values.get();
  }
  return e;
}

// How a kernel reads X': as rows of `align` values (16-byte groups for the column-block and row-lanes kernels, else
// 4) with the batch a multiple of `align` (the kernels read whole groups, which past the batch would leave X's last
// row: its allocation may end at the batch); within 32-bit offsets where `offsets32`; rows exactly `exact_ld` apart
// holding a batch of exactly that many where exact_ld > 0 (the wide column-block kernel bulk-copies whole tile rows);
// a batch that fills its rows of `filled_ld` where filled_ld > 0 (row_lanes stages whole tiles). X' that does not
// read so is copied into a workspace of rows `ld` apart (exact_ld or filled_ld where set, else the batch rounded up
// to 8). `rows` says whether the kernel reads rows at all at batch 1; otherwise the stream kernel reads X' as one
// contiguous vector.
struct XNeeds {
  bool rows = true;
  int align = 4;
  bool offsets32 = false;
  std::int64_t exact_ld = 0, filled_ld = 0;
};
cudaError_t prepare_x(Launch& c, const XNeeds& n) {
  if (c.kx == 0) return cudaSuccess;
  std::int64_t ld = 0;   // X' copied into rows ld apart; 0: read where it is
  if (c.batch > 1 || n.rows) {
    const bool ok = c.xs_col == 1 && c.xs_row % n.align == 0 && c.batch % n.align == 0 &&
                    reinterpret_cast<std::uintptr_t>(c.x) % (n.align * c.vs) == 0 &&
                    (!n.offsets32 || c.kx * c.xs_row < (std::int64_t(1) << 31)) &&
                    (n.exact_ld == 0 || (c.xs_row == n.exact_ld && c.batch == n.exact_ld)) &&
                    (n.filled_ld == 0 || c.batch == n.filled_ld);
    if (!ok) ld = n.filled_ld ? n.filled_ld : n.exact_ld ? n.exact_ld : round_up(static_cast<int>(c.batch), 8);
  } else if (runs_stream_kernel(c.ch) && c.xs_row != 1) {
    ld = 1;   // batch 1: the vector contiguous
  }
  if (ld == 0) return cudaSuccess;
  cudaError_t e;
  if ((e = c.w.ws_x.reserve(c.kx * ld * c.vs + 64)) != cudaSuccess) return e;
  if ((e = launch_strided_copy(c.w.ws_x.get(), ld, 1, c.x, c.xs_row, c.xs_col, c.kx, c.batch, static_cast<int>(c.vs),
                               c.args.stream)) != cudaSuccess)
    return e;
  c.x = c.w.ws_x.get();
  c.ldx = ld;
  return cudaSuccess;
}

// The X', Y' and batch fields every row kernel's parameters share (X' as prepare_x left it).
template <class Params>
void put_operands(const Launch& c, Params& p) {
  p.x = c.x;
  p.ldx = static_cast<decltype(p.ldx)>(c.ldx);
  p.y = c.args.y.data;
  p.ys_row = c.ys_row;
  p.ys_col = c.ys_col;
  p.batch = static_cast<int>(c.batch);
}

// X and Y as the call gave them, through their strides (the fp32 kernels that read them so).
template <class Params>
void put_strided_operands(const Launch& c, Params& p) {
  p.x = static_cast<const float*>(c.args.x.data);
  p.xs_row = c.xs_row;
  p.xs_col = c.xs_col;
  p.y = static_cast<float*>(c.args.y.data);
  p.ys_row = c.ys_row;
  p.ys_col = c.ys_col;
}

// column_scatter: reads W's values where they are and X and Y through their strides; adds into a zeroed Y.
Status scatter_launch(Launch& c) {
  cudaError_t e;
  if (c.my * c.batch > 0 && (e = c.zero_y()) != cudaSuccess) return c.cuda_fail(e, "zero Y");
  if (c.w.nnz == 0) return Status::Success;
  ColumnScatterParams p;
  p.grid = blocked_rows(c.w, static_cast<int>(c.batch));
  p.values = static_cast<const float*>(c.args.values);
  put_strided_operands(c, p);
  p.batch = static_cast<int>(c.batch);
  if ((e = launch_column_scatter(p, c.args.stream)) != cudaSuccess) return c.cuda_fail(e, "column_scatter");
  return Status::Success;
}

// snack_coo: one thread a non-zero, reading X and Y through their strides; adds into a zeroed Y.
Status coo_launch(Launch& c) {
  if (!c.a.has_coo) return c.fail(Status::InvalidArgument, "SNACK-COO needs a plan built with PlanOptions::coo");
  if (c.args.type != ValueType::FP32 || !c.args.semiring.is_plus_times())
    return c.fail(Status::Unsupported, "SNACK-COO runs fp32 plus_times only");
  cudaError_t e;
  if ((e = prepare_values(c)) != cudaSuccess) return c.cuda_fail(e, "values");
  if (c.my * c.batch > 0 && (e = c.zero_y()) != cudaSuccess) return c.cuda_fail(e, "zero Y");
  SnackCooParams p;
  p.row = c.a.coo_row.get();
  p.col = c.a.coo_col.get();
  p.values = static_cast<const float*>(c.values);
  p.nnz = c.a.nnz;
  put_strided_operands(c, p);
  if ((e = launch_snack_coo(p, static_cast<int>(c.batch), c.args.stream)) != cudaSuccess)
    return c.cuda_fail(e, "snack_coo");
  return Status::Success;
}

// row_lanes: choose() takes it only with values of the call's type bound to a plan it fits (a == w); the plan's
// order for the batch tile is made on its first use. X' in rows of the batch rounded up to the tile.
Status lanes_launch(Launch& c) {
  if (c.my == 0) return Status::Success;
  cudaError_t e;
  const int bt = c.ch.batch_tile;
  XNeeds need;
  need.align = static_cast<int>(16 / c.vs);
  need.filled_ld = round_up(static_cast<int>(c.batch), bt);
  if ((e = prepare_x(c, need)) != cudaSuccess) return c.cuda_fail(e, "repack X");
  if ((e = ensure_lanes_values(c.w, bt, c.args.type, c.args.values, c.args.stream)) != cudaSuccess) {
    (void)cudaGetLastError();   // the plan no longer offers the kernel at this tile: the call runs as Auto would
    SpmmArgs again = c.args;
    if (again.kernel == Kernel::RowLanes) again.kernel = Kernel::Auto;
    return spmm(c.plan, again, c.message);
  }
  const Plan::Impl::LanesOrder& o = c.w.lanes_of(bt, c.vs);
  RowLanesParams p;
  p.col16 = o.col16.get();
  p.values = o.values.get();
  p.group_start = o.group_start.get();
  p.group_chunks = o.group_chunks.get();
  p.slot_row = o.slot_row.get();
  p.slot_len = o.slot_len.get();
  p.rows = c.w.rows;
  p.cols = c.w.cols;
  p.n_blocks = o.geo.n_blocks;
  p.block_cols = o.geo.block_cols;
  p.n_wide = o.geo.n_wide;
  p.fine_cols = o.geo.fine_cols;
  p.slots_per_range = 32 * o.groups_per_range;
  p.n_groups = o.n_groups;
  put_operands(c, p);
  p.accumulate = c.ch.atomic_sums;
  p.runs = c.ch.lanes_runs;
  if (p.n_blocks > 1 && !p.accumulate && (e = c.range_partials(p.n_blocks, bt, p.partial, p.partial_ld)) != cudaSuccess)
    return c.cuda_fail(e, "workspace");
  if ((e = launch_rowlanes(c.args.type, bt, c.ch.lanes_threads, p, o.geo.n_ranges, c.w.sm_count, c.args.stream)) !=
      cudaSuccess)
    return c.cuda_fail(e, "row_lanes");
  return Status::Success;
}

// column_block: X' in 16-byte groups; the wide kernel with one batch tile bulk-copies its stages where X' rows are
// exactly one tile apart (csr_colblock.cuh), and a copy of X' to that layout costs far less than the gain
// (bench/results/spmm-dispatch-rules.md); a batch short of the tile is copied too (the bulk copies read whole tile
// rows). Reads the plan's bank-ordered copy of the values where the choice says so (a == w: not W^T X).
Status colblock_launch(Launch& c) {
  if (c.my == 0) return Status::Success;
  if (!fast_plus_times(c.args)) return c.fail(Status::Unsupported, "the column-block kernel runs plus_times fp32/fp16/bf16");
  if (!c.a.tile_bounds.size()) return c.fail(Status::Unsupported, "this plan has no column-block offsets (too large)");
  const ColumnBlockConfig& cfg = c.ch.column_block;
  cudaError_t e;
  if ((e = prepare_values(c)) != cudaSuccess) return c.cuda_fail(e, "values");
  XNeeds need;
  need.align = static_cast<int>(16 / c.vs);
  need.exact_ld = colblock_wide(cfg.batch_tile) && c.batch <= cfg.batch_tile ? cfg.batch_tile : 0;
  if ((e = prepare_x(c, need)) != cudaSuccess) return c.cuda_fail(e, "repack X");
  ColBlockParams p;
  p.col16 = c.a.col16.get();
  p.values = c.values;
  p.nnz = c.a.nnz;
  p.bounds = c.a.tile_bounds.get();
  p.n_fine = c.a.tile_n_fine;
  p.ratio = cfg.block_cols / c.a.tile_fine_cols;
  p.rows = c.a.rows;
  p.cols = c.a.cols;
  put_operands(c, p);
  p.block_cols = cfg.block_cols;
  p.n_blocks = c.a.column_blocks(p.ratio);
  p.rows_per_cta = cfg.rows_per_cta;
  p.blocks_per_cta = (p.n_blocks + cfg.splits - 1) / cfg.splits;
  p.shared_limit = static_cast<std::size_t>(c.a.shared_optin_bytes);
  if (c.ch.bound_order) {
    p.col16 = c.w.bound_col16.get();
    p.values = c.w.bound_values.get();
    p.bound_layout = true;
  }
  const std::size_t smem = colblock_shared_bytes(cfg.batch_tile, p.block_cols, p.rows_per_cta, cfg.pairs_per_lane, c.vs,
                                                 colblock_stages(cfg.batch_tile, p.blocks_per_cta));
  if (smem > kColBlockSharedBytes)
    return c.fail(Status::InvalidArgument, "column-block configuration exceeds shared memory");
  if (cfg.row_order == RowOrder::Balanced && (e = colblock_row_map(c.a, p, c.args.stream)) != cudaSuccess)
    return c.cuda_fail(e, "column-block row order");
  if (p.blocks_per_cta < p.n_blocks &&
      (e = c.range_partials(cfg.splits, cfg.batch_tile, p.partial, p.partial_ld)) != cudaSuccess)
    return c.cuda_fail(e, "workspace");
  if ((e = launch_colblock(c.args.type, cfg.batch_tile, p, cfg.pairs_per_lane, c.args.stream)) != cudaSuccess)
    return c.cuda_fail(e, "column_block");
  return Status::Success;
}

// row_range: X' in groups of 4 within 32-bit offsets.
Status range_launch(Launch& c) {
  if (c.my == 0) return Status::Success;
  cudaError_t e;
  if ((e = prepare_values(c)) != cudaSuccess) return c.cuda_fail(e, "values");
  XNeeds need;
  need.offsets32 = true;
  if ((e = prepare_x(c, need)) != cudaSuccess) return c.cuda_fail(e, "repack X");
  RowRangeParams p;
  p.n_ranges = static_cast<int>(std::max<std::int64_t>(std::int64_t(kStreamWarpsPerSm) * c.a.sm_count,
                                                       (std::int64_t(c.a.rows) + kRowRangeRows - 1) / kRowRangeRows));
  p.bounds = c.a.tile_bounds.get();
  p.rows = c.a.rows;
  p.n_fine = c.a.tile_n_fine;
  p.slab_ratio = boundaries_per_slab(c.a, c.ch.slabs);
  p.n_slabs = c.ch.slabs;
  p.one_row = c.ch.one_row;
  p.col16 = c.a.col16.get();
  p.values = c.values;
  p.nnz = c.a.nnz;
  put_operands(c, p);
  if ((e = launch_rowrange(c.args.type, c.ch.batch_tile, p, c.args.stream)) != cudaSuccess)
    return c.cuda_fail(e, "row_range");
  return Status::Success;
}

// The row-segment kernels' operands: X' in groups of 4 (within 32-bit offsets for the batch-lanes form; at batch 1
// the segment kernels read X' through its row stride, the stream kernel as one vector), the segments' partial sums.
cudaError_t row_segment_params(Launch& c, bool offsets32, RowSegParams& p) {
  cudaError_t e;
  if ((e = prepare_values(c)) != cudaSuccess) return e;
  XNeeds need;
  need.rows = offsets32;
  need.offsets32 = offsets32;
  if ((e = prepare_x(c, need)) != cudaSuccess) return e;
  p.items = c.a.items.get();
  p.n_items = c.a.n_items;
  p.item_colbase = c.a.item_colbase.size() ? c.a.item_colbase.get() : nullptr;
  p.col16 = c.a.col16.get();
  p.values = c.values;
  p.nnz = c.a.nnz;
  put_operands(c, p);
  p.ranges = c.a.item_ranges.get();
  p.n_ranges = c.a.n_item_ranges;
  p.range_spans = c.a.range_spans.get();
  p.windows = c.ch.windows;
  if (c.a.n_slots > 0) {
    if ((e = c.w.ws_partial.reserve(std::size_t(c.a.n_slots) * c.batch * 8 + 64)) != cudaSuccess) return e;
    p.partial = c.w.ws_partial.get();
  }
  return cudaSuccess;
}

// row_segment_batch_lanes.
Status batch_lanes_launch(Launch& c) {
  if (c.my == 0) return Status::Success;
  RowSegParams p;
  cudaError_t e;
  if ((e = row_segment_params(c, true, p)) != cudaSuccess) return c.cuda_fail(e, "row_segment operands");
  if ((e = launch_rowseg_batch_lanes(c.args.type, c.ch.batch_tile, p, c.a.sm_count, c.a.splits.get(), c.a.n_splits,
                                     c.args.stream)) != cudaSuccess)
    return c.cuda_fail(e, "row_segment");
  return Status::Success;
}

// row_segment: the plus_times kernels for fp32, fp16 and bf16, the generic ones for any other semiring and type.
Status rowseg_launch(Launch& c) {
  if (c.my == 0) return Status::Success;
  RowSegParams p;
  cudaError_t e;
  if ((e = row_segment_params(c, false, p)) != cudaSuccess) return c.cuda_fail(e, "row_segment operands");
  const bool xwt = c.args.orientation == Orientation::XWt;
  e = fast_plus_times(c.args) ? launch_rowseg_plus_times(c.args.type, c.ch.batch_tile, c.ch.group_lanes, p, c.a.sm_count,
                                              c.a.splits.get(), c.a.n_splits, c.args.stream)
                   : launch_rowseg_generic(c.args.type, c.args.semiring, xwt, c.ch.batch_tile, p, c.a.sm_count,
                                           c.a.splits.get(), c.a.n_splits, c.args.stream);
  if (e != cudaSuccess) return c.cuda_fail(e, "row_segment");
  return Status::Success;
}


// Whether X' (a.cols rows of the batch rounded up to 8 values) lies within 32-bit offsets, as the
// lanes-across-the-batch kernels address it (spmm() repacks a wider X' to batch-wide rows).
bool x_offsets_fit(const Plan::Impl& a, const SpmmArgs& args) {
  return std::int64_t(a.cols) * round_up(args.batch, 8) < (std::int64_t(1) << 31);
}

// The batch tile of the lanes-across-the-batch kernels (RowRange, RowSegmentBatchLanes): SpmmArgs::batch_tile where
// it is 8, 32 or 128, else 8 up to batch 8, 32 up to batch 32, else 128.
int batch_lanes_tile(const SpmmArgs& args) {
  return (args.batch_tile == 8 || args.batch_tile == 32 || args.batch_tile == 128) ? args.batch_tile
         : args.batch <= 8                                                        ? 8
         : args.batch <= 32                                                       ? 32
                                                                                  : 128;
}

bool always(const Plan::Impl&, const SpmmArgs&) { return true; }
bool never(const Plan::Impl&, const SpmmArgs&) { return false; }
bool batch_five_up(const Plan::Impl&, const SpmmArgs& args) { return args.batch >= 5; }

// row_lanes (csr_rowlanes.cuh). Needs: plus_times fp32, fp16 or bf16, W X or X W^T, batch 2-128, values of the
// call's type bound to the plan and read by the call (SpmmArgs::values_bound), a plan the kernel fits at the batch's
// tile (lanes_fit). Preferred where lanes_geometry() says it pays (a group of 32 rows per warp of each thread block,
// rows' segments per held column block of >= kRowLanesMinSegment non-zeros): then ahead of every other kernel. Asked
// for where it cannot run, the call runs as Auto would.
bool lanes_can_run(const Plan::Impl& a, const SpmmArgs& args) {
  LanesGeometry geo;
  return lanes_fit(a, args, false, geo);
}
bool lanes_prefers(const Plan::Impl& a, const SpmmArgs& args) {
  LanesGeometry geo;
  return lanes_geometry(a, lanes_tile(args), geo) && geo.pays;
}
// Batch tile lanes_tile(). The column blocks' sums are added into an fp32 Y with atomics where the call is not
// deterministic and either asks for the kernel or Y's rows hold aligned groups of four (y_rows_in_fours()), else (and
// for 16-bit Y) partial tiles are folded in block order; at tiles 8 and 16 with atomics, two work items per group
// where segments average >= kRowLanesRunSegment; at tile 32, thread blocks of kLongThreads
// where segments average >= kRowLanesLongSegment (lanes_geometry; plan_impl.hpp).
void lanes_configure(const Plan::Impl& a, const SpmmArgs& args, Choice& ch) {
  LanesGeometry geo;
  ch.batch_tile = lanes_tile(args);
  lanes_geometry(a, ch.batch_tile, geo);
  ch.bound_order = true;
  ch.lanes_block_cols = geo.block_cols;
  ch.lanes_blocks = geo.n_blocks;
  ch.lanes_wide_blocks = geo.n_wide;
  ch.lanes_narrow_cols = geo.block_cols - geo.fine_cols;
  ch.atomic_sums = args.type == ValueType::FP32 && !args.deterministic && geo.n_blocks > 1 &&
                   (args.kernel == Kernel::RowLanes || y_rows_in_fours(args));
  ch.lanes_threads = ch.batch_tile == 32 && args.lanes_threads > 0 ? args.lanes_threads : geo.threads;
  if (ch.atomic_sums && rowlanes_dealt(ch.batch_tile))   // tile 32 walks whole groups (csr_rowlanes.cuh)
    ch.lanes_runs = args.lanes_runs > 0 ? std::min(args.lanes_runs, 16) : geo.segment >= kRowLanesRunSegment ? 2 : 1;
}

// column_block (csr_colblock.cuh). Needs: plus_times fp32/fp16/bf16, a plan with the column-boundary table. Preferred
// at batch >= 2 where column_block_wins(). Asked for where it cannot run, the choice stands and spmm() refuses the
// call.
bool colblock_can_run(const Plan::Impl& a, const SpmmArgs& args) {
  return fast_plus_times(args) && a.tile_bounds.size() > 0;
}
bool colblock_prefers(const Plan::Impl& a, const SpmmArgs& args) {
  return args.batch >= 2 && column_block_wins(a, args, row_range_fits(a));
}
void colblock_configure(const Plan::Impl& a, const SpmmArgs& args, Choice& ch) {
  ch.column_block = resolve_column_block(a, args);
  ch.batch_tile = ch.column_block.batch_tile;
  ch.bound_order = reads_bound_order(a, args, ch.column_block);
}

// row_range (csr_rowrange.cuh). Needs: plus_times fp32/fp16/bf16, a plan of whole, unskewed rows with at most 65536
// columns (row_range_fits), X' within 32-bit offsets. Preferred at batch >= 5 (where column_block is not). Asked for
// where it cannot run, the call runs as row_segment_batch_lanes.
bool range_can_run(const Plan::Impl& a, const SpmmArgs& args) {
  return fast_plus_times(args) && row_range_fits(a) && x_offsets_fit(a, args);
}
// Batch tile batch_lanes_tile(); column slabs by row_range_slabs(); one row per lane group at tile 128, and at
// tile 32 without slabs on plans with many rows (row_range_one_row()).
void range_configure(const Plan::Impl& a, const SpmmArgs& args, Choice& ch) {
  ch.batch_tile = batch_lanes_tile(args);
  ch.slabs = row_range_slabs(a, args, ch.batch_tile);
  ch.one_row = ch.batch_tile == 128 || (ch.batch_tile == 32 && ch.slabs == 1 && row_range_one_row(a));
}

// row_segment_batch_lanes (csr_rowseg.cuh). Needs: plus_times fp32/fp16/bf16, X' within 32-bit offsets; any plan.
// Preferred at batch >= 5 (where neither column_block nor row_range is). Asked for where it cannot run, the call runs
// as row_segment. Batch tile batch_lanes_tile().
bool batch_lanes_can_run(const Plan::Impl& a, const SpmmArgs& args) {
  return fast_plus_times(args) && x_offsets_fit(a, args);
}
void batch_lanes_configure(const Plan::Impl&, const SpmmArgs& args, Choice& ch) {
  ch.batch_tile = batch_lanes_tile(args);
  ch.group_lanes = 32;
}

// snack_coo (snack_coo.cuh). Needs: fp32 plus_times, a plan built with the COO arrays. Never preferred: it is the
// published baseline, run only when asked for. Asked for where it cannot run, the choice stands and spmm() refuses
// the call.
bool coo_can_run(const Plan::Impl& a, const SpmmArgs& args) {
  return a.has_coo && args.type == ValueType::FP32 && args.semiring.is_plus_times();
}
void coo_configure(const Plan::Impl&, const SpmmArgs&, Choice& ch) { ch.batch_tile = 1; }

// row_segment (csr_rowseg.cuh). Needs nothing: any semiring, type and plan. Last in the table: Auto takes it where
// no entry above is preferred (other semirings and types, batch 1, batch 2-4 where column_block does not win, and
// the calls the others cannot run).
// Batch tile: other semirings and types 1 at batch 1, else 4; plus_times fp32/fp16/bf16 1, 4, 8 or 32 (batch 1,
// 2-4, 5-8, more). Lanes per segment, plus_times: 32 where rows average >= 32 non-zeros at batch 1 (the stream
// kernel) or >= 48 at wider tiles, else 8 (bench/results/spmm-dispatch-rules.md). The stream kernel's walk of its
// warp ranges: StreamWalk (Auto: windows where items average >= 512 non-zeros), on plans without column bases.
void rowseg_configure(const Plan::Impl& a, const SpmmArgs& args, Choice& ch) {
  if (!fast_plus_times(args)) {
    ch.batch_tile = args.batch == 1 ? 1 : 4;
    ch.group_lanes = 32;
  } else {
    ch.batch_tile = args.batch == 1 ? 1 : args.batch <= 4 ? 4 : args.batch <= 8 ? 8 : 32;
    ch.group_lanes = a.avg_row_nnz >= (args.batch == 1 ? 32 : 48) ? 32 : 8;
  }
  if (runs_stream_kernel(ch) && a.item_colbase.size() == 0) {   // the walk of the warp ranges (StreamWalk)
    const bool long_items = a.n_items > 0 && double(a.nnz) / double(a.n_items) >= 512.0;
    ch.windows = args.stream_walk == StreamWalk::Windows || (args.stream_walk == StreamWalk::Auto && long_items);
  }
}

// column_scatter (column_scatter.cuh). Needs: W^T X (a is the transposed pattern's plan, made from W's), fp32
// plus_times, batch 1-32, a call that need not be deterministic, and W's plan with its column-boundary table (one of
// its fine column blocks' sums within kBlockSharedBytes) and at most 65536 columns. Preferred at batch 1-4: it reads
// W's values where they are, where every other kernel first gathers them into W^T's order (a random read of each
// value, which costs more than the product at small batches), but its shared-memory atomics grow with the batch
// (bench/results/spmm-dispatch-rules.md).
constexpr int kScatterPreferredBatch = 4;
bool scatter_prefers(const Plan::Impl&, const SpmmArgs& args) { return args.batch <= kScatterPreferredBatch; }
bool scatter_can_run(const Plan::Impl& a, const SpmmArgs& args) {
  const Plan::Impl* w = a.transpose_of;
  return args.orientation == Orientation::WtX && w != nullptr && args.type == ValueType::FP32 &&
         args.semiring.is_plus_times() && !args.deterministic && args.batch >= 1 && args.batch <= 32 &&
         blocked_rows_fit(*w, args.batch);
}
void scatter_configure(const Plan::Impl&, const SpmmArgs&, Choice& ch) { ch.batch_tile = 1; }

constexpr Candidate kCandidates[] = {
    {Kernel::ColumnScatter, "column_scatter", scatter_can_run, scatter_prefers, scatter_configure, Kernel::Auto,
     scatter_launch},
    {Kernel::RowLanes, "row_lanes", lanes_can_run, lanes_prefers, lanes_configure, Kernel::Auto, lanes_launch},
    {Kernel::ColumnBlock, "column_block", colblock_can_run, colblock_prefers, colblock_configure, Kernel::ColumnBlock,
     colblock_launch},
    {Kernel::RowRange, "row_range", range_can_run, batch_five_up, range_configure, Kernel::RowSegmentBatchLanes,
     range_launch},
    {Kernel::RowSegmentBatchLanes, "row_segment_batch_lanes", batch_lanes_can_run, batch_five_up,
     batch_lanes_configure, Kernel::RowSegment, batch_lanes_launch},
    {Kernel::SnackCoo, "snack_coo", coo_can_run, never, coo_configure, Kernel::SnackCoo, coo_launch},
    {Kernel::RowSegment, "row_segment", always, always, rowseg_configure, Kernel::RowSegment, rowseg_launch},
};
constexpr std::size_t kNumCandidates = sizeof(kCandidates) / sizeof(kCandidates[0]);
static_assert(kCandidates[kNumCandidates - 1].kernel == Kernel::RowSegment, "the generic fallback comes last");
constexpr bool one_entry_per_kernel() {
  for (std::size_t k = 1; k <= kNumCandidates; ++k) {   // the Kernel values after Auto (0)
    int n = 0;
    for (const Candidate& c : kCandidates) n += static_cast<std::size_t>(c.kernel) == k ? 1 : 0;
    if (n != 1) return false;
  }
  return true;
}
static_assert(one_entry_per_kernel(), "one entry per kernel of the enum but Auto");

const Candidate& candidate(Kernel k) {
  for (const Candidate& c : kCandidates)
    if (c.kernel == k) return c;
  return kCandidates[kNumCandidates - 1];
}

// The choice for the call as one pass over its whole batch: a kernel asked for takes its entry where it can run the
// call, else what the entry's `unfit` says; Auto takes the first entry that can run the call and prefers it (the
// last one, row_segment, always does).
Choice choose_whole(const Plan& plan, const SpmmArgs& args) {
  const Plan::Impl& a = operand(plan, args.orientation);
  const Candidate* take = nullptr;
  for (Kernel k = args.kernel; k != Kernel::Auto && !take;) {
    const Candidate& c = candidate(k);
    if (c.can_run(a, args) || c.unfit == k) take = &c;
    else k = c.unfit;
  }
  for (std::size_t i = 0; !take; ++i) {
    const Candidate& c = kCandidates[i];
    if (i + 1 == kNumCandidates || (c.can_run(a, args) && c.prefers(a, args))) take = &c;
  }
  Choice ch;
  ch.kernel = take->kernel;
  take->configure(a, args, ch);
  return ch;
}

}  // namespace

const char* kernel_name(Kernel k) {
  if (k == Kernel::Auto) return "auto";
  for (const Candidate& c : kCandidates)
    if (c.kernel == k) return c.name;
  return "unknown";
}

int held_block_cols(const Plan::Impl& a, ValueType t) {
  if (!a.tile_bounds.size() || value_size(t) > 4) return 0;
  SpmmArgs args;
  args.type = t;
  args.batch = 8;
  const ColumnBlockConfig r = resident_column_blocks(a, args, ColumnBlockConfig{});
  return resident_tile_bytes(r, args) <= kResidentTileBytes ? r.block_cols : 0;
}

bool bound_values_would_serve(const Plan& plan, const SpmmArgs& args) {
  // The lanes-across-rows kernel, once bound (bind_values needs the batch-8 order's layout), where Auto would take
  // it or it is asked for.
  LanesGeometry geo;
  if ((args.kernel == Kernel::Auto || args.kernel == Kernel::RowLanes) && held_block_cols(plan.impl(), args.type) > 0 &&
      lanes_fit(plan.impl(), args, true, geo) && (geo.pays || args.kernel == Kernel::RowLanes))
    return true;
  SpmmArgs a = args;
  a.values_bound = false;
  const Choice ch = choose(plan, a);
  return ch.kernel == Kernel::ColumnBlock && held_layout(plan.impl(), args, ch.column_block) &&
         ch.column_block.block_cols == held_block_cols(plan.impl(), args.type);
}

Choice choose(const Plan& plan, const SpmmArgs& args) {
  const Choice whole = choose_whole(plan, args);
  const int width = pass_width(operand(plan, args.orientation), args, whole);
  if (width == 0) return whole;
  SpmmArgs first = args;
  first.batch = width;
  Choice ch = choose_whole(plan, first);
  ch.pass_width = width;
  ch.batch_passes = (args.batch + width - 1) / width;
  return ch;
}

Status spmm(Plan& plan, const SpmmArgs& args, std::string* message) {
  const auto fail = [message](Status s, const std::string& why) { return failed(s, why, message); };
  Plan::Impl& w = plan.impl();
  if (args.orientation == Orientation::WtX && !w.transposed)
    return fail(Status::InvalidArgument, "W^T X needs a plan built with PlanOptions::transposed");
  Plan::Impl& a = args.orientation == Orientation::WtX ? w.transposed->impl() : w;
  const std::int64_t batch = args.batch;
  if (batch < 1 || batch > 65535) return fail(Status::InvalidArgument, "batch must be in 1..65535");
  if (!args.x.data || !args.y.data) return fail(Status::InvalidArgument, "null X or Y");
  if (!semiring_supported(args.semiring, args.type))
    return fail(Status::Unsupported, std::string("no kernel computes the ") + ops::opcode_name(args.semiring.add) +
                                         "_" + ops::opcode_name(args.semiring.mul) + " semiring on " +
                                         value_type_name(args.type));
  if (args.lanes_threads != 0 && args.lanes_threads != RowLanesTile<32>::kThreads &&
      args.lanes_threads != RowLanesTile<32>::kLongThreads)
    return fail(Status::InvalidArgument, "lanes_threads must be 0 (the dispatcher's choice), " +
                                             std::to_string(RowLanesTile<32>::kLongThreads) + " or " +
                                             std::to_string(RowLanesTile<32>::kThreads));
  if (a.nnz > 0 && !args.values) return fail(Status::InvalidArgument, "null values");
  if (args.values_bound && !w.has_bound_values)
    return fail(Status::InvalidArgument, "values_bound: no values are bound to this plan (Plan::bind_values)");
  if (args.values_bound && w.bound_type != args.type)
    return fail(Status::InvalidArgument, std::string("values_bound: the plan's bound values are ") +
                                             value_type_name(w.bound_type) + ", the call's " + value_type_name(args.type));
  const std::int64_t kx = a.cols, my = a.rows;   // X' is kx x batch, Y' is my x batch
  const bool xwt = args.orientation == Orientation::XWt;
  // The user's shapes: X is kx x batch (or batch x kx for XWt), Y likewise.
  auto strides = [&](const Dense& d, std::int64_t inner, std::int64_t& s_row, std::int64_t& s_col) -> bool {
    const std::int64_t ur = xwt ? batch : inner, uc = xwt ? inner : batch;   // user rows, cols
    if (d.layout == Layout::RowMajor) {
      if (d.ld < std::max<std::int64_t>(1, uc)) return false;
      s_row = xwt ? 1 : d.ld;
      s_col = xwt ? d.ld : 1;
    } else {
      if (d.ld < std::max<std::int64_t>(1, ur)) return false;
      s_row = xwt ? d.ld : 1;
      s_col = xwt ? 1 : d.ld;
    }
    return true;
  };
  std::int64_t xs_row, xs_col, ys_row, ys_col;
  if (!strides(args.x, kx, xs_row, xs_col)) return fail(Status::InvalidArgument, "X leading dimension too small");
  if (!strides(args.y, my, ys_row, ys_col)) return fail(Status::InvalidArgument, "Y leading dimension too small");
  // Y must not share memory with X: kernels read X while Y is written (and Y is zeroed first where the column
  // blocks add into it). The test is on the spans from each one's first element to its last (X' is kx x batch,
  // Y' my x batch, through the strides above).
  {
    const std::int64_t vsz = static_cast<std::int64_t>(value_size(args.type));
    auto span_bytes = [&](std::int64_t r, std::int64_t s_row, std::int64_t s_col) {
      return r == 0 ? std::int64_t(0) : ((r - 1) * s_row + (batch - 1) * s_col + 1) * vsz;
    };
    const auto x0 = reinterpret_cast<std::uintptr_t>(args.x.data), y0 = reinterpret_cast<std::uintptr_t>(args.y.data);
    const std::uintptr_t x1 = x0 + static_cast<std::uintptr_t>(span_bytes(kx, xs_row, xs_col));
    const std::uintptr_t y1 = y0 + static_cast<std::uintptr_t>(span_bytes(my, ys_row, ys_col));
    if (x0 < x1 && y0 < y1 && x0 < y1 && y0 < x1) return fail(Status::InvalidArgument, "X and Y overlap");
  }

  const Choice ch = choose(plan, args);
  const std::size_t vs = value_size(args.type);
  if (ch.batch_passes > 1) {   // pass_width(): each pass a call of its own on the next batch columns of X and Y
    for (std::int64_t b0 = 0; b0 < batch; b0 += ch.pass_width) {
      SpmmArgs pass = args;
      pass.batch = static_cast<std::int32_t>(std::min<std::int64_t>(ch.pass_width, batch - b0));
      pass.x.data = static_cast<char*>(args.x.data) + b0 * xs_col * static_cast<std::int64_t>(vs);
      pass.y.data = static_cast<char*>(args.y.data) + b0 * ys_col * static_cast<std::int64_t>(vs);
      const Status st = spmm(plan, pass, message);
      if (st != Status::Success) return st;
    }
    return Status::Success;
  }
  Launch call{plan, w, a, args, ch, message, batch, kx, my, xs_row, xs_col, ys_row, ys_col, vs, args.values,
              args.x.data, xs_row};
  return candidate(ch.kernel).launch(call);
}

Status sampled_product(Plan& plan, const SampledArgs& args, std::string* message) {
  Plan::Impl& w = plan.impl();
  const auto fail = [message](Status s, const std::string& why) { return failed(s, why, message); };
  if (args.k < 1 || args.k > kSampledMaxK)
    return fail(Status::Unsupported, "K must be 1.." + std::to_string(kSampledMaxK));
  if (args.update && args.k > kSampledUpdateMaxK)
    return fail(Status::Unsupported, "an update takes K up to " + std::to_string(kSampledUpdateMaxK));
  const int row_floats = sampled_row_floats(std::min(args.k, kSampledSliceK));
  if (!blocked_rows_fit(w, row_floats))
    return fail(Status::Unsupported, "the plan has no column-boundary table, more than 65536 columns, or column "
                                     "blocks too wide for K");
  if (w.nnz == 0) return Status::Success;
  const SampledUpdate* up = args.update;
  if (!args.a || !args.b || (!up && !args.z)) return fail(Status::InvalidArgument, "null A, B or z");
  if (up && (!up->p || !up->s1 || !up->p_out || !up->s1_out || (!up->s2) != (!up->s2_out)))
    return fail(Status::InvalidArgument, "an update needs p, s1 and their outputs, and s2 with s2_out or neither");
  const float* a = args.a;
  std::int64_t a_row = args.a_row, a_k = args.a_k;
  cudaError_t e = cudaSuccess;
  if (a_k != 1 && args.k > 1) {   // each row's K values in one run, so that a warp reads them in few sectors
    if ((e = w.ws_x.reserve(std::size_t(w.rows) * args.k * sizeof(float))) != cudaSuccess)
      return fail(e == cudaErrorMemoryAllocation ? Status::OutOfMemory : Status::CudaError,
                  std::string("sampled product workspace: ") + cudaGetErrorString(e));
    if ((e = launch_strided_copy(w.ws_x.get(), args.k, 1, a, a_row, a_k, w.rows, args.k, sizeof(float),
                                 args.stream)) != cudaSuccess)
      return fail(Status::CudaError, std::string("sampled product: ") + cudaGetErrorString(e));
    a = reinterpret_cast<const float*>(w.ws_x.get());
    a_row = args.k;
    a_k = 1;
  }
  SampledParams p;
  p.grid = blocked_rows(w, row_floats);
  p.row_floats = row_floats;
  p.a_row = a_row;
  p.a_k = a_k;
  p.b_k = args.b_k;
  p.b_col = args.b_col;
  p.z = args.z;
  if (up) {
    p.update = true;
    p.up = *up;
  }
  p.a = a;
  p.b = args.b;
  p.k = args.k;
  if ((e = launch_sampled_product(p, args.stream)) != cudaSuccess)
    return fail(Status::CudaError, std::string("sampled product: ") + cudaGetErrorString(e));
  return Status::Success;
}

}  // namespace snk::cuda
