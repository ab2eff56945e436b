// spmm/plan_impl.hpp: what a Plan holds (private to the spmm sources), and the kernel launchers.
//
// The plan owns device copies of the preprocessed pattern: packed 16-bit columns, the bounded row segments ("items")
// and the split-row table for the fix-up, the [column boundary][row] offset table of the column-block, row-range and
// row-lanes kernels, and optionally the COO arrays (SNACK-COO) and the transposed pattern with the pieces and runs that
// move W's values into it; on request (Plan::bind_values) a bank-aware order of the non-zeros with the values gathered
// into it, and the interleaved row-group orders of the lanes-across-rows kernel with their own copies of the values;
// and, built on first use, the balanced row orders of the wide column-block kernel. It also owns grow-only workspaces
// (partial rows, a repacked X, permuted values), so a plan serves one stream at a time. The launchers are plain
// functions, one per kernel family, each defined in its own .cu so the instantiations compile in parallel.
#pragma once

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spmm/dispatch.hpp"
#include "spmm/row_lanes_layout.hpp"   // lanes_block_first

namespace snk::cuda {

// An entry point's refusal: `st`, with its reason `why` left in *message where the caller asked for one.
inline Status failed(Status st, const std::string& why, std::string* message) {
  if (message) *message = why;
  return st;
}

// Warp ranges per SM the plan cuts for the stream kernels (csr_rowseg.cuh): one per resident warp of their
// plus_times instantiations, whose launch bounds ask for kStreamWarpsPerSm / 8 blocks of 256 (at most 64
// registers).
constexpr int kStreamWarpsPerSm = 32;

struct RowSegParams;
struct RowRangeParams;
struct ColBlockParams;
struct SnackCooParams;
struct RowLanesParams;

// The grain of the lanes kernel's column blocks: a multiple of 8, so that a column's residue class (column mod 128 /
// the X' row's bytes, at most 8: the residue orders' bank groups) is the same relative to its block's first column.
constexpr int kLanesGrainCols = 8;

// The lanes-across-rows kernel's layout of a plan at one batch tile (lanes_geometry, below): its column blocks, and
// how its rows are dealt out to thread blocks (tile 32: row ranges of about equal work; tiles 8 and 16: every n-th
// work item); pays: where Auto takes the kernel. The blocks share the columns to within one grain of kLanesGrainCols
// columns (fine_cols): the first n_wide are block_cols wide, the others block_cols - fine_cols (the last one ends
// at the last column).
struct LanesGeometry {
  int block_cols = 0, n_blocks = 0, n_wide = 0, fine_cols = 0;
  int n_ranges = 0;                  // tile 32: row ranges per column block, a thread block each (of about equal
                                     // work: row_lanes_layout.hpp); tiles 8 and 16: thread blocks per column
                                     // block (the layout holds one range)
  std::int32_t rows_per_range = 0;   // the rows one thread block would hold in ranges (Auto's rule, `pays`)
  double segment = 0;   // non-zeros of a row's segment in a block, on average
  int threads = 0;      // threads of a thread block: the tile's kThreads, or at tile 32 its kLongThreads where
                        // segment >= kRowLanesLongSegment
  bool pays = false;
  std::int64_t first_col(int c) const { return lanes_block_first(c, block_cols, n_wide, fine_cols); }
};

// A device array that frees itself.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  ~DeviceArray() { reset(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void reset() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    n_ = 0;
  }
  // Grows to at least n elements (contents lost on growth). Returns the CUDA error, if any.
  cudaError_t reserve(std::size_t n) {
    if (n <= n_ && ptr_) return cudaSuccess;
    reset();
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&ptr_), (n ? n : 1) * sizeof(T));
    if (e == cudaSuccess) n_ = n;
    else ptr_ = nullptr;
    return e;
  }
  cudaError_t upload(const std::vector<T>& h, std::size_t padded = 0, cudaStream_t s = nullptr) {
    cudaError_t e = reserve(std::max(h.size(), padded));
    if (e != cudaSuccess) return e;
    if (padded > h.size()) {
      e = cudaMemsetAsync(ptr_, 0, padded * sizeof(T), s);
      if (e != cudaSuccess) return e;
    }
    if (h.empty()) return cudaSuccess;
    return cudaMemcpyAsync(ptr_, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s);
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

struct Plan::Impl {
  std::int32_t rows = 0, cols = 0;
  std::int64_t nnz = 0;
  std::int32_t max_row_nnz = 0;
  double avg_row_nnz = 0;
  int sm_count = 132;
  int shared_optin_bytes = 0;         // the most dynamic shared memory one thread block may take

  DeviceArray<std::uint16_t> col16;   // nnz + 8 (padding for chunk loads)
  DeviceArray<int4> items;            // {row, begin, end, slot}
  std::int64_t n_items = 0;
  DeviceArray<int> item_colbase;      // only when cols > 65536
  DeviceArray<int4> splits;           // {row, first slot, count, 0}
  int n_splits = 0;
  int n_slots = 0;
  DeviceArray<int4> item_ranges;      // the stream kernels, 2 per warp range: {first item, end item, row,
                                      // slot}, {begin, end, end of the second item, column base} (csr_rowseg.cuh)
  int n_item_ranges = 0;
  DeviceArray<int2> range_spans;      // the window kernel, per warp range: {first non-zero, end} of its items

  DeviceArray<int> tile_bounds;       // [n_tile_fine + 1][rows] (column-block, row-range and row-lanes kernels);
                                      // empty when too large
  int tile_fine_cols = 64;
  int tile_n_fine = 0;

  DeviceArray<int> coo_row, coo_col;  // SNACK-COO
  bool has_coo = false;

  std::unique_ptr<Plan> transposed;   // pattern of W^T
  const Impl* transpose_of = nullptr; // in a transposed pattern's plan: W's (the column-scatter kernel reads W itself)
  // W's values into W^T's order (launch_transpose_values): pieces of W moved through shared memory, read along W's
  // rows and written along W^T's (transpose_runs.hpp; the arrays are TransposeRuns' of the same names).
  DeviceArray<std::int64_t> transpose_entry, transpose_src_run, transpose_dst_run;
  DeviceArray<std::int32_t> transpose_src_run_pos, transpose_dst_run_pos;
  DeviceArray<std::uint16_t> transpose_src_run_off, transpose_dst_run_off, transpose_dperm;
  std::int64_t n_transpose_pieces = 0;
  int transpose_max_piece = 0;   // non-zeros of the largest piece (its shared memory)

  // Values bound to the plan (Plan::bind_values): the non-zeros in colblock_held_kernel's bank order
  // (bank_order.hpp) for column blocks of bound_block_cols columns and X' rows of bound_type: their columns,
  // each relative to its block's first column, and the values gathered into that order (bound_perm[p] = the CSR
  // position of the p-th). Both padded, so the kernel's chunk loads need no bounds.
  DeviceArray<std::uint16_t> bound_col16;   // nnz + 8
  DeviceArray<std::int32_t> bound_perm;
  DeviceArray<unsigned char> bound_values;
  int bound_block_cols = 0;                 // 0: no order built
  int bound_residues = 0;
  ValueType bound_type = ValueType::FP32;
  bool has_bound_values = false;
  // The lanes-across-rows kernel's orders (row_lanes_layout.hpp), one per batch tile (8, 16, 24 of fp32 only, 32) and
  // X' value size (lanes_of(bt, 4) of fp32, lanes_of(bt, 2) of fp16 / bf16: 16-bit X' rows take the same blocks, their
  // own residue order). Built on
  // the first call that runs the kernel at that tile and size (ensure_lanes_values); every bind_values drops the
  // values' copies, which the next such call gathers again.
  struct LanesOrder {
    LanesGeometry geo;                             // geo.block_cols 0: not built
    DeviceArray<std::uint16_t> col16;              // columns relative to their block's first (pads 0)
    DeviceArray<std::int32_t> perm;                // CSR position of each position, -1 for a pad
    DeviceArray<unsigned char> values;             // the bound values gathered into the order
    DeviceArray<std::int64_t> group_start;         // [n_blocks][n_groups]
    DeviceArray<std::int32_t> group_chunks, slot_row, slot_len;
    std::int32_t groups_per_range = 0, n_groups = 0;   // the layout's (row_lanes_layout.hpp)
    bool has_values = false;   // values hold the values last bound
    bool failed = false;       // building the order or its copy failed (device memory): the kernel is not used
    std::size_t bytes() const {
      return col16.bytes() + perm.bytes() + values.bytes() + group_start.bytes() + group_chunks.bytes() +
             slot_row.bytes() + slot_len.bytes();
    }
  };
  LanesOrder lanes[7];   // tiles 8, 16, 32 of fp32, the same of 16-bit values, tile 24 of fp32
  static int lanes_index(int bt, std::size_t value_bytes) {
    return bt == 24 ? 6 : (bt == 8 ? 0 : bt == 16 ? 1 : 2) + (value_bytes == 2 ? 3 : 0);
  }
  LanesOrder& lanes_of(int bt, std::size_t value_bytes) { return lanes[lanes_index(bt, value_bytes)]; }
  const LanesOrder& lanes_of(int bt, std::size_t value_bytes) const { return lanes[lanes_index(bt, value_bytes)]; }

  // Balanced row orders of the column-block launches (row_balance.hpp; ColBlockParams::row_map), one per
  // layout (rows per thread block, block width in fine blocks, blocks per thread block), built on first use;
  // the oldest goes when a new one would pass kMaxRowMaps.
  struct RowMap {
    int rows_per_cta = 0, ratio = 0, blocks_per_cta = 0;
    DeviceArray<std::int32_t> map;   // [column ranges][thread blocks x rows_per_cta]
  };
  static constexpr std::size_t kMaxRowMaps = 8;
  std::vector<std::unique_ptr<RowMap>> row_maps;

  // Workspaces.
  DeviceArray<unsigned char> ws_partial, ws_x, ws_values;

  std::size_t device_bytes() const;

  // Column blocks of `ratio` fine blocks each over the plan's columns (at least one).
  int column_blocks(int ratio) const { return std::max(1, (tile_n_fine + ratio - 1) / ratio); }

  // The fine boundaries of column blocks `step` fine blocks wide: min(i * step, n_fine), i = 0 .. column_blocks(step).
  std::vector<int> even_fine_edges(int step) const;
  // The rows of tile_bounds at every step-th fine boundary, the last one at n_fine: edges[i * rows + r] =
  // tile_bounds[min(i * step, n_fine)][r] for i = 0 .. max(1, ceil(n_fine / step)), i.e. the segments of
  // column ranges step fine blocks wide (a bound order's column blocks; a row map's column ranges). Copies them
  // to the host on `stream` and synchronizes it.
  cudaError_t column_edges(int step, cudaStream_t stream, std::vector<std::int32_t>& edges) const;
  // The same at the fine boundaries fine_at (increasing, the last at most n_fine): edges[i * rows + r] =
  // tile_bounds[fine_at[i]][r].
  cudaError_t column_edges_at(const std::vector<int>& fine_at, cudaStream_t stream,
                              std::vector<std::int32_t>& edges) const;
};

// The column width of the blocks colblock_held_kernel holds at batch tile 8 for values of type t when the
// dispatcher picks the width (dispatch.cu); 0 where this plan has no such layout (no column-boundary table, or
// blocks too wide for shared memory).
int held_block_cols(const Plan::Impl& a, ValueType t);

// The geometry of the lanes-across-rows kernel at batch tile bt (8, 16 or 32) on this plan: the fewest column blocks
// whose fp32 X' fits the tile's RowLanesTile<bt>::kTileBytes (16-bit X' takes the same blocks in half the bytes, so
// that the thread blocks' work and the SMs' fill are fp32's), sharing the columns to within one grain of kLanesGrainCols (rather than the column-boundary table's 64-column grain, whose wider blocks'
// thread blocks would have more work than the others), and thread blocks per column block so that they about fill
// the SMs once (at the tile's thread blocks per SM): at tile 32 each holds one of n_ranges row ranges of about equal
// work (row_lanes_layout.hpp); at tiles 8 and 16 the column block's work items over all its rows are dealt out to them
// in turn, long and short alike. Returns false where the plan has no column-boundary table or more than 65536 columns.
// `pays`: where Auto takes the kernel: at least one group of 32 rows per warp of a thread block and rows' segments
// in a block averaging at least kRowLanesMinSegment non-zeros. The measurements behind these rules and the
// constants below: bench/results/spmm-dispatch-rules.md.
constexpr double kRowLanesMinSegment = 48;
// Where the tile-8 and tile-16 kernels add their blocks' sums with atomics, Auto cuts each group's walk into two work
// items (two runs of its chunk steps, each adding its own sums) where rows' segments in a block average at least
// kRowLanesRunSegment non-zeros: the warps' work then evens out (at 16384 x 16384 a thread block's 16 warps have about
// 16 groups) at the cost of twice the atomics.
constexpr double kRowLanesRunSegment = 100;
// At batch tile 32 the kernel runs thread blocks of RowLanesTile<32>::kLongThreads (768: 80 registers a thread, 24
// warps) instead of kThreads (1024: 64 registers, 32 warps) where rows' segments in a block average at least
// kRowLanesLongSegment non-zeros: long walks gain more from the registers than from the warps, short ones the
// other way round. The threshold is measured: bench/results/spmm-dispatch-rules.md.
constexpr double kRowLanesLongSegment = 96;
bool lanes_geometry(const Plan::Impl& im, int bt, LanesGeometry& g);
// The plan's lanes-across-rows order at batch tile bt for values of type t (fp32, fp16, bf16) and its copy of the
// bound values (values: the values last bound, of type t, in CSR order), built on the first call that runs the
// kernel at that tile and size after a bind (the order once per plan: the pattern comes back to the host, the stream
// is synchronized). On failure the order is marked unavailable (LanesOrder::failed).
cudaError_t ensure_lanes_values(Plan::Impl& im, int bt, ValueType t, const void* values, cudaStream_t stream);

// Launch-time layout tests shared by the lanes-across-the-batch launchers. X' packed to a batch tile of bt:
// rows exactly bt values apart and the batch filling the one tile to its last four values, so every lane's
// four values are in the batch (the kernels' constant-stride instantiations).
inline bool x_packed_to_tile(std::int64_t ldx, int batch, int bt) { return ldx == bt && batch <= bt && batch > bt - 4; }
// Y' rows that take each lane's four fp32 sums as one 16-byte store: contiguous, 16-byte aligned, and a batch
// that is a multiple of 4.
inline bool y_takes_vector_stores(const void* y, std::int64_t ys_row, std::int64_t ys_col, int batch) {
  return ys_col == 1 && ys_row % 4 == 0 && batch % 4 == 0 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
}

// Launchers (each returns the launch's error).
cudaError_t launch_rowseg_plus_times(ValueType vt, int bt, int g, const RowSegParams& p, int sm_count,
                                     const int4* splits, int n_splits, cudaStream_t s);
cudaError_t launch_rowseg_batch_lanes(ValueType vt, int bt, const RowSegParams& p, int sm_count,
                                      const int4* splits, int n_splits, cudaStream_t s);
// The row-range kernel (csr_rowrange.cuh; bt 8, 32 or 128).
cudaError_t launch_rowrange(ValueType vt, int bt, const RowRangeParams& p, cudaStream_t s);
cudaError_t launch_rowseg_generic(ValueType vt, SemiringId sr, bool swap, int bt, const RowSegParams& p,
                                  int sm_count, const int4* splits, int n_splits, cudaStream_t s);
cudaError_t launch_colblock(ValueType vt, int bt, const ColBlockParams& p, int pairs_per_lane, cudaStream_t s);
// The lanes-across-rows kernel (csr_rowlanes.cuh; fp32, fp16 or bf16 values vt, bound, batch tile bt = 8 or 32) in
// thread blocks of `threads` (RowLanesTile<bt>::kThreads, or at tile 32 its kLongThreads; another count:
// cudaErrorInvalidValue) over n_ranges row ranges (tile 32) or with up to n_ranges thread blocks per column block
// (tile 8), and its fold or Y's zeroing (in at most sm_count thread blocks, column_ranges.cuh).
cudaError_t launch_rowlanes(ValueType vt, int bt, int threads, const RowLanesParams& p, int n_ranges, int sm_count,
                            cudaStream_t s);
cudaError_t launch_snack_coo(const SnackCooParams& p, int batch, cudaStream_t s);
struct SampledParams;
struct ColumnScatterParams;
// The sampled product and the column scatter (Y' zeroed by the caller) on their params' grid (blocked_rows.cuh).
cudaError_t launch_sampled_product(const SampledParams& p, cudaStream_t s);
cudaError_t launch_column_scatter(const ColumnScatterParams& p, cudaStream_t s);
// Helpers: dst(i, j) = src(i, j) for an r x c matrix of elem_size-byte values with general strides.
cudaError_t launch_strided_copy(void* dst, std::int64_t d_row, std::int64_t d_col, const void* src,
                                std::int64_t s_row, std::int64_t s_col, std::int64_t r, std::int64_t c,
                                int elem_size, cudaStream_t s);
// dst (W^T's order) = src (W's order), elem_size-byte values, by the plan's pieces and runs (Plan::Impl::transpose_*,
// w is W's plan).
cudaError_t launch_transpose_values(void* dst, const void* src, const Plan::Impl& w, int elem_size, cudaStream_t s);
// dst[j] = src[perm[j]] (0 where perm[j] < 0).
cudaError_t launch_gather(void* dst, const void* src, const int* perm, std::int64_t n, int elem_size,
                          cudaStream_t s);
// COO rows from CSR row pointers.
cudaError_t launch_expand_rows(int* row, const int* row_ptr, int rows, cudaStream_t s);

}  // namespace snk::cuda
