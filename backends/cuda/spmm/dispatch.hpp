// spmm/dispatch.hpp: the public host API of the GPU sparse x dense product (SpMM) kernel family.
//
// Usable from plain C++ (the only CUDA type is cudaStream_t). A caller describes the sparsity pattern of
// W (CSR, 32-bit indices, on the device) once and gets a Plan: the plan preprocesses the pattern
// (16-bit packed column indices, bounded row segments for skewed rows, column-block offsets, optionally
// the transposed pattern and the COO row array) so that the per-step call does no pattern work. Each
// call then gives the values of W (device, in the CSR order of the pattern), the dense operand X and the
// output Y, and computes one of
//     Y = W X        (W M x K, X K x batch, Y M x batch)
//     Y = X W^T      (X batch x K, Y batch x M; the DNN forward pass with activations as rows)
//     Y = W^T X      (X M x batch, Y K x batch; the input gradient, through the cached transposed
//                     pattern: no transpose of W is materialized per call, only its values are gathered)
// over a semiring (plus_times is the fast path; every builtin GraphBLAS semiring of the types below runs
// through the generic row-segment kernel with the operators chosen at run time). Output rows with no
// stored entry in W receive the additive identity; the caller, who owns the pattern, decides whether
// that is an entry. The dispatcher picks a kernel from (batch, rows, nnz per row, skew) by walking an ordered
// table of candidates (dispatch.cu); a caller can force one (tests and the benchmark do). The measurements behind
// the rules: bench/results/spmm-dispatch-rules.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "ops/optimizer_rule.hpp"
#include "snack/algebra.hpp"   // BinaryOpcode

namespace snk::cuda {

// Value types of W, X and Y (all three share one type; FP16/BF16 accumulate in fp32).
enum class ValueType : std::uint8_t { Bool, Int32, Int64, UInt32, UInt64, FP32, FP64, FP16, BF16 };
std::size_t value_size(ValueType t);
const char* value_type_name(ValueType t);

// A semiring, named by the algebra's opcodes (snack/algebra.hpp; algebra/builtin_ops.hpp defines what each computes,
// the one definition every backend uses): the monoid `add` (PLUS, TIMES, MIN, MAX; LOR, LAND, LXOR, LXNOR on Bool),
// the multiply `mul` applied as mul(w, x), w from W and x from X, or as mul(x, w) where `flip`. Y = X W^T applies it
// as mul(x, w) on its own, as GraphBLAS's mxm(X, W^T) does, and `flip` swaps that again. The comparisons give 1 or 0
// in the value type (on Bool: EQ, NE, ...). GraphBLAS's ANY monoid is not offered: a caller maps it to MIN or MAX,
// which are valid ANY results.
struct SemiringId {
  BinaryOpcode add = BinaryOpcode::Plus;
  BinaryOpcode mul = BinaryOpcode::Times;
  bool flip = false;
  bool is_plus_times() const { return add == BinaryOpcode::Plus && mul == BinaryOpcode::Times; }
};

enum class Orientation : std::uint8_t { WX, XWt, WtX };
enum class Layout : std::uint8_t { RowMajor, ColMajor };

// The kernels (each header says what its kernel does; dispatch.cu's candidate table says what each needs to run a
// call and when Auto takes it; every kernel but Auto has one entry there).
enum class Kernel : std::uint8_t {
  Auto,          // the dispatcher's choice
  SnackCoo,      // snack_coo.cuh: published SNACK-COO (COO, one non-zero per thread, atomics); fp32 plus_times
  RowSegment,    // csr_rowseg.cuh: bounded row segments, G lanes per segment, batch tile in registers;
                 // deterministic (no atomics); any semiring and type; batch 1 = the SpMV path
  ColumnBlock,   // csr_colblock.cuh: X column blocks staged in shared memory, row segments per block, the
                 // sparse stream loaded cooperatively per warp; deterministic; plus_times fp32/fp16/bf16
  RowSegmentBatchLanes,  // csr_rowseg.cuh: the row segments with lanes across the batch (coalesced rows
                         // of X); deterministic; plus_times fp32/fp16/bf16; the batch >= 5 path
  RowRange,      // csr_rowrange.cuh: whole rows per warp with lanes across the batch, optionally walked in
                 // column slabs, the row sums in shared memory; deterministic; plus_times fp32/fp16/bf16,
                 // batch tiles 8 and 32, and 128 with one row per warp and no slabs; for plans without split
                 // or skewed rows and with at most 65536 columns
                 // (elsewhere it runs as RowSegmentBatchLanes)
  ColumnScatter,  // column_scatter.cuh: W^T X from W's own rows (no gather of the values into W^T's order), column
                  // blocks of sums in shared memory added with atomics; fp32 plus_times, batch 1-32; not
                  // deterministic
  RowLanes,      // csr_rowlanes.cuh: lanes across rows (each lane one row, its batch-tile sums in registers), one
                 // column block of X held per thread block; deterministic; plus_times fp32/fp16/bf16, batch
                 // 2-128 (tiles 8, 16 and 32, several tiles past 32), with values bound to the plan only (it
                 // reads the plan's interleaved order; elsewhere the call runs as Auto would)
};
const char* kernel_name(Kernel k);

enum class Status : std::uint8_t { Success, InvalidArgument, Unsupported, CudaError, OutOfMemory };
const char* status_name(Status s);

// The most non-zeros a plan takes (32-bit indices, with room for the kernels' chunk arithmetic past nnz).
constexpr std::int64_t kMaxPlanNnz = 0x7fffe000;

// The pattern of W: CSR with 32-bit indices in device memory, column indices sorted within each row
// and unique. The plan copies what it needs; these arrays may be freed after Plan::create.
struct CsrPattern {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::int64_t nnz = 0;
  const std::int32_t* row_ptr = nullptr;   // rows + 1 entries
  const std::int32_t* col_idx = nullptr;   // nnz entries
};

struct PlanOptions {
  bool transposed = false;   // also build the transposed pattern (needed for Orientation::WtX)
  bool coo = false;          // also build the COO row/column arrays (needed for Kernel::SnackCoo)
};

// A dense operand: element (i, j) of an r x c matrix is data[i * ld + j] (RowMajor, ld >= c) or
// data[i + j * ld] (ColMajor, ld >= r).
struct Dense {
  void* data = nullptr;
  std::int64_t ld = 0;
  Layout layout = Layout::RowMajor;
};

// Rows of the column-block kernel at batch tiles 32 and 128. Plain: thread block x holds rows [x * rows_per_cta,
// ...) and its warp w every 32nd of them from w. Balanced: the plan's row order (row_balance.hpp: contiguous
// ranges of equal non-zeros per thread block, the rows of each spread over its warps longest first), built on the
// first call of each layout, which synchronizes the stream once (capture calls into a CUDA graph after a first
// call, or ask for Plain). Auto: Balanced where the column ranges are not split, else Plain (split ranges gain
// nothing from it). Batch tile 8 always runs Plain (its walk with and without a map measured:
// bench/results/spmm-dispatch-rules.md).
enum class RowOrder { Auto, Plain, Balanced };

// How a warp of the batch-1 row-segment kernel (32 lanes) walks its plan range of items (rows, or pieces of
// split rows; csr_rowseg.cuh). Items: steps of 256 non-zeros from each item's first, so an item's last step is
// partly empty (rowseg_stream_kernel). Windows: windows of 256 consecutive non-zeros of the range that run
// across item boundaries, every window but the range's first and last full (rowseg_window_kernel; only on
// plans of at most 65536 columns, where no item carries a column base: elsewhere Items runs). Auto: Windows
// where items average at least 512 non-zeros (bench/results/spmm-dispatch-rules.md).
enum class StreamWalk { Auto, Items, Windows };

// Column-block configuration for Kernel::ColumnBlock (0 = the dispatcher's choice for each field).
struct ColumnBlockConfig {
  int batch_tile = 0;      // 8, 32 or 128 values of the batch per pass
  int block_cols = 0;      // columns of X staged per block (a power of two >= 256; at batch tile 8 left 0: blocks
                           // as wide as shared memory holds, one per thread block, staged once)
  int rows_per_cta = 0;    // rows owned by one thread block (batch tiles 32 / 128: at most 128)
  int splits = 0;          // column-block ranges per row range (>1: partial tiles folded in range order)
  int pairs_per_lane = 0;  // batch tiles 32 / 128: non-zeros each lane stages per block, 4 or 8 (8: batch 32 only)
  RowOrder row_order = RowOrder::Auto;   // which rows a thread block and its warps hold (below)
};

struct SpmmArgs {
  Orientation orientation = Orientation::WX;
  SemiringId semiring{};
  ValueType type = ValueType::FP32;
  const void* values = nullptr;   // nnz values of W in the pattern's CSR order
  Dense x{};
  Dense y{};
  std::int32_t batch = 1;
  bool deterministic = false;     // bitwise identical results run to run (no atomics)
  bool values_bound = false;      // `values` are the values last bound to the plan (Plan::bind_values, unchanged
                                  // since): kernels that have a plan order read the bound copy (the results are
                                  // the same sums in another order); an InvalidArgument where none of `type` is bound
  Kernel kernel = Kernel::Auto;
  int batch_tile = 0;             // RowSegmentBatchLanes and RowRange: 8, 32 or 128; RowLanes: 8, 16, 32 or (fp32)
                                  // 24 (0 = the dispatcher's choice)
  int slabs = 0;                  // RowRange: column slabs (1 = plain rows; 0 = the dispatcher's choice; batch
                                  // tile 128 always walks plain rows)
  ColumnBlockConfig column_block{};
  int lanes_runs = 0;             // RowLanes at batch tiles 8, 16 with atomic sums: work items per group of 32 rows
                                  // (runs of its chunk steps, at most 16; 0 = the dispatcher's choice)
  int lanes_threads = 0;          // RowLanes at batch tile 32: threads per thread block, 768 or 1024 (0 = the
                                  // dispatcher's choice: 768 where rows' segments in a column block are long; another
                                  // value: InvalidArgument); tiles 8 and 16 always run 512
  StreamWalk stream_walk = StreamWalk::Auto;   // RowSegment at batch 1 with 32 lanes (see StreamWalk)
  cudaStream_t stream = nullptr;
};

// What the dispatcher would run for a call (for tests, the benchmark and logs).
struct Choice {
  Kernel kernel = Kernel::RowSegment;
  int batch_tile = 1;
  int group_lanes = 32;             // RowSegment: lanes per segment
  int slabs = 0;                    // RowRange: column slabs walked in order (1 = plain rows)
  bool one_row = false;             // RowRange: one row per lane group (always at batch tile 128; at 32 on
                                    // plans with many rows)
  bool windows = false;             // RowSegment at batch tile 1 with 32 lanes: the warp ranges walked in windows
                                    // across items (StreamWalk::Windows), else item by item
  bool bound_order = false;         // ColumnBlock at batch tile 8, RowLanes: reads the values bound to the plan in
                                    // its order (SpmmArgs::values_bound)
  int lanes_block_cols = 0;         // RowLanes: columns of the widest held blocks
  int lanes_blocks = 0;             // RowLanes: column blocks (> 1: partial tiles folded in block order)
  int lanes_wide_blocks = 0;        // RowLanes: blocks lanes_block_cols wide (the first ones; the others
  int lanes_narrow_cols = 0;        // lanes_narrow_cols wide)
  bool atomic_sums = false;         // RowLanes with lanes_blocks > 1: the blocks add their sums into Y with atomics
                                    // (SpmmArgs::deterministic false) instead of partial tiles folded in order
  int lanes_runs = 1;               // RowLanes at batch tiles 8, 16 with atomic_sums: work items per group
  int lanes_threads = 0;            // RowLanes: threads per thread block
  ColumnBlockConfig column_block{}; // ColumnBlock: the resolved configuration
  int batch_passes = 1;             // > 1: the call runs as that many calls of pass_width batch columns each (the
  int pass_width = 0;               // last one the rest); the fields above: the first pass's choice (pass_width()
                                    // in dispatch.cu)
  std::string describe() const;
};

class Plan {
 public:
  // Preprocesses the pattern (synchronizes `stream`; the pattern's index arrays are read once).
  static std::unique_ptr<Plan> create(const CsrPattern& pattern, const PlanOptions& options = {},
                                      cudaStream_t stream = nullptr);
  // The same from the pattern's arrays in host memory (row_ptr: rows + 1 entries, col_idx: row_ptr[rows]), for a
  // caller that holds them there (the cuda backend): the plan is built on the host anyway, so this spares copying
  // the pattern to the device and back. Throws std::invalid_argument as create().
  static std::unique_ptr<Plan> create(std::int32_t rows, std::int32_t cols, const std::vector<std::int32_t>& row_ptr,
                                      const std::vector<std::int32_t>& col_idx, const PlanOptions& options = {},
                                      cudaStream_t stream = nullptr);
  // Adds the transposed form (PlanOptions::transposed) to a plan made without it, from the pattern's arrays in host
  // memory as create() takes them (they must be the plan's own: only their sizes are checked; std::invalid_argument
  // otherwise): for a caller whose plan serves W X first and W^T X later, so that W's part is not built twice.
  // Synchronizes `stream`; nothing changes where the plan has the form already, or where building it fails.
  void add_transposed(const std::vector<std::int32_t>& row_ptr, const std::vector<std::int32_t>& col_idx,
                      cudaStream_t stream = nullptr);
  ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  std::int32_t rows() const;
  std::int32_t cols() const;
  std::int64_t nnz() const;
  std::int32_t max_row_nnz() const;
  bool has_transposed() const;
  bool has_coo() const;
  // Device bytes the plan holds (pattern structures and workspace).
  std::size_t device_bytes() const;

  // Binds W's values (device, nnz values of `type` in the pattern's CSR order) to the plan: the plan keeps them
  // in its own order, in which the batch-2-8 column-block kernel (colblock_held_kernel) reads the staged rows of X
  // without shared-memory bank conflicts (spmm/bank_order.hpp; at 16384 x 16384, 90%, batch 8:
  // bench/results/spmm-h200.md). A call with SpmmArgs::values_bound then reads them from there; calls at
  // batch 2-128 that the lanes-across-rows kernel takes (Kernel::RowLanes; spmm/row_lanes_layout.hpp) read a second
  // copy in its own order, per batch tile (8, 16, 24, 32), which the first such call after each bind gathers (the first
  // ever also builds the order on the host, synchronizing the stream; about 10 bytes of device memory per
  // non-zero each; where that memory cannot be had, those calls run the other kernels). The first bind
  // for a value width builds the order on the host (linear in nnz; the pattern comes back from the device once);
  // each later bind gathers the values only (12 bytes per non-zero of traffic): bind again whenever the values
  // change. Types: FP32, FP16, BF16 (the kernel's); others return Unsupported. The transposed orientation (W^T X)
  // gathers its values per call as before. Synchronizes `stream` when it builds the order; on failure the plan
  // holds no bound values.
  Status bind_values(const void* values, ValueType type, cudaStream_t stream = nullptr, std::string* message = nullptr);
  bool has_bound_values() const;

  struct Impl;
  Impl& impl() { return *impl_; }
  const Impl& impl() const { return *impl_; }

 private:
  Plan();
  static std::unique_ptr<Plan> from_host(std::int32_t rows, std::int32_t cols,
                                         const std::vector<std::int32_t>& row_ptr,
                                         const std::vector<std::int32_t>& col_idx, const PlanOptions& options,
                                         cudaStream_t stream);
  std::unique_ptr<Impl> impl_;
};

// The dispatcher's choice for a call (no work is done).
Choice choose(const Plan& plan, const SpmmArgs& args);

// Whether binding W's values to the plan (Plan::bind_values) would change how this call runs: its kernel (the
// dispatcher's, or the one asked for) is the batch-2-8 column-block kernel with the block width a bound order
// is built for, or the call would run the lanes-across-rows kernel with the values bound (batch 2-128). For
// callers that bind on demand (the cuda backend binds a matrix's values once such calls have run long enough to
// pay for the binding: backend/sparse_times_full.cpp).
bool bound_values_would_serve(const Plan& plan, const SpmmArgs& args);

// Y = op(W) (+).(x) X on args.stream. Asynchronous; returns InvalidArgument / Unsupported without
// launching anything, CudaError when a launch failed. `message`, when given, receives the reason. X and Y must not
// share memory (InvalidArgument where the spans from their first to their last element overlap). Calls on one plan
// are ordered on one stream: the plan's workspaces serve one call at a time. With deterministic false a kernel may
// add partial sums into Y with atomics, so results may differ in their last bits run to run.
Status spmm(Plan& plan, const SpmmArgs& args, std::string* message = nullptr);

// The sampled product on W's pattern (SDDMM): z(e) = sum over k < K of A'(r, k) B'(k, c) for every non-zero e = (r, c)
// of the plan's W, in W's CSR order, fp32 (deterministic: each slice of kSampledSliceK values of k is summed in a
// fixed order, and the slices in k order). A' is W.rows x K, B' K x W.cols, both dense, addressed through strides
// (A' is first copied to rows of K values where its k stride is not 1, into the plan's workspace: W.rows x K floats).
// One launch: each thread block walks the slices. K is 1 .. kSampledMaxK; Unsupported where the plan has no
// column-boundary table or more than 65536 columns, or K is out of range (nothing launched); OutOfMemory where the
// workspace cannot be had. Asynchronous on `stream`; calls on one plan are ordered on one stream.
constexpr int kSampledSliceK = 32;
constexpr int kSampledMaxK = 1 << 16;
// The sampled product's values taken by an optimizer step instead of stored (snk::optimizer_step_sampled): for every
// non-zero e, rule(p[e], s1[e], s2[e], z(e)), the results in p_out[e], s1_out[e] and s2_out[e] (s2 and s2_out null
// for SGD; outputs may be the inputs), the arrays in W's CSR order. Only K up to kSampledUpdateMaxK, where one lane
// takes a whole non-zero: with 2 or 4 lanes a non-zero the update's memory traffic meets the kernel's shared-memory
// traffic in L1 and the one pass took longer than the product and a separate pass over the values
// (bench/results/layers-h200.md); Unsupported beyond.
constexpr int kSampledUpdateMaxK = 8;
struct SampledUpdate {
  OptimizerRule<float> rule;
  const float *p = nullptr, *s1 = nullptr, *s2 = nullptr;
  float *p_out = nullptr, *s1_out = nullptr, *s2_out = nullptr;
};
struct SampledArgs {
  const float* a = nullptr;   // A'(r, k) = a[r * a_row + k * a_k]
  std::int64_t a_row = 0, a_k = 1;
  const float* b = nullptr;   // B'(k, c) = b[k * b_k + c * b_col]
  std::int64_t b_k = 0, b_col = 1;
  int k = 1;
  float* z = nullptr;         // nnz values (unused with update)
  const SampledUpdate* update = nullptr;
  cudaStream_t stream = nullptr;
};
Status sampled_product(Plan& plan, const SampledArgs& args, std::string* message = nullptr);

}  // namespace snk::cuda
