// backends/cuda/backend/device_copy.hpp: device memory of the cuda backend and its copy of a Matrix.
//
// DeviceBuffer owns one cudaMalloc block. MatrixOnDevice is the backend's snk::DeviceCopy. A product's result is
// made as one (dense_rows()): it lives on the device only, and a later product reads it there, until the host
// reads it (download() then makes the host form once). Otherwise it is attached to a Matrix the first time a GPU
// kernel reads it, it holds the matrix's values in device memory, in the order
// of the host CSR form (for a matrix with every entry present that is the dense row-major array), and, on
// first use as the sparse operand of a product, the SpMM library's Plan of its pattern. The container
// releases the copy whenever the matrix changes (containers.hpp: every write drops the device copy), so a
// copy that is present is current: the Plan and the uploaded values are reused across calls for as long as
// the matrix is unchanged, which is what makes a loop of products with one sparse matrix (a layer's
// weights) upload it once. For the same reason the products may bind the uploaded values to the Plan
// (Plan::bind_values: the bound orders of the batch-2-128 kernels), once they have run long enough to pay for it
// (sparse_times_full.cpp); the bound values belong to the copy that bound them (CompactedPattern::bound_owner). The
// backend attaches copies only beside a valid host form (host_is_stale = false), so download() is never
// needed; it throws Panic if that invariant is ever broken.
//
// The Plan is built on the matrix's non-empty rows only ("compacted"): row r of the plan is row
// rows[r] of the matrix. A product's result has entries exactly in those rows, so the compacted output is
// already the result's CSR value array, and a hypersparse matrix of any height (up to 2^60 rows) runs as
// long as its non-empty rows, columns and entries fit the library's 32-bit indices.
//
// Results are complete in stream order: every kernel, copy and stream-ordered allocation of the backend runs on its
// one stream, so a call that makes a result of known size returns once its work is queued (launch errors are
// reported then), and the host waits only where it reads device data (download, the counts that size a result) or
// times a product. A fault inside a kernel surfaces at the next wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <cuda_runtime_api.h>

#include "snack/containers.hpp"
#include "spmm/dispatch.hpp"

namespace snk::cuda {

// The lock that serializes the backend's work: its calls and the final steps its results run (one GPU, and the
// cached plans hold per-call workspaces).
std::mutex& backend_mutex();

// Throws snk::Error for a failed CUDA call: OutOfMemory for an allocation failure, Panic otherwise; `what`
// names the step. Clears CUDA's sticky last error first so that the next call starts clean.
void throw_on_cuda_error(cudaError_t e, const char* what);
// The end of a call whose result is complete in stream order (this file's opening comment): launch errors are
// reported now, the host does not wait.
inline void check_queued(const char* what) { throw_on_cuda_error(cudaPeekAtLastError(), what); }

// Device memory, stream-ordered on the backend's stream once set_allocation_stream() has named it (device_copy.cpp
// says why, and how small buffers are kept for reuse), else plain cudaMalloc.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);   // throws Error(OutOfMemory) when the device is full
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  // A buffer over memory the caller owns (snk::borrow_device_full): never freed here. `for_results`: the caller lent
  // it for results too (snk::borrow_device_output), so that a result replacing the matrix may be written there.
  static DeviceBuffer borrowed(void* data, std::size_t bytes, bool for_results = false);

  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  bool is_borrowed() const { return borrowed_; }
  bool lent_for_results() const { return for_results_; }
  // Copies `bytes` bytes from host memory to the start of the buffer on `stream` (the host memory may change once it
  // returns): from page-locked memory by one copy; else large ones through the backend's page-locked slots
  // (device_copy.cpp).
  void upload(const void* host, std::size_t bytes, cudaStream_t stream);

 private:
  void release() noexcept;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;   // the stream it was allocated on (null: cudaMalloc)
  int size_class_ = -1;             // its size class where it returns to the small-block cache (device_copy.cpp)
  bool borrowed_ = false;           // the caller's memory: released without a free
  bool for_results_ = false;        // borrowed, and lent for results
};

// The values of a result of `bytes` bytes, row-major: the memory lent to T for them (Matrix::lend_memory) where it has
// exactly that size (T's full size, so a result of fewer rows never takes it) and none of `inputs` (the device values
// the kernel reads, with their sizes) overlaps it, else new device memory.
struct DeviceRange {
  const void* data;
  std::size_t bytes;
};
DeviceBuffer result_values(const Matrix& T, std::size_t bytes, std::initializer_list<DeviceRange> inputs);

// Page-locks the host memory [p, p + bytes) (cudaHostRegister): a handle that unlocks it when released, or null where
// the range is below the size whose uploads go through the staging slots (nothing to gain), or cannot be locked
// (part of it is locked already, or the system refuses). Uploads from locked memory skip the staging slots
// (DeviceBuffer::upload).
std::shared_ptr<void> lock_host_pages(void* p, std::size_t bytes);

// `waiting` runs its later work after the work queued on `queued` so far (an event between the two streams; nothing
// where they are one).
void stream_waits(cudaStream_t waiting, cudaStream_t queued, const char* what);

// Makes every later DeviceBuffer a stream-ordered allocation on `stream` (the backend's one stream, on which all its
// work runs), from the current device's default pool, which then keeps freed memory for reuse.
void set_allocation_stream(cudaStream_t stream);

// Returns the small-block cache's blocks to the pool and closes it (later frees go to the pool), at process exit: a
// library that tears down its own CUDA state at exit (cuBLAS, loaded later) calls this first from its own exit handler,
// since handlers run in reverse order of registration and the cache's own one would come after that teardown.
void close_block_cache_at_exit();
// Frees the page-locked slots that large uploads pass through (DeviceBuffer::upload); registered to run at process
// exit. A later large upload makes them again.
void release_upload_slots();

// The sparse operand of an SpMM: the Plan of the compacted pattern and the matrix row of each plan row. A pattern
// is shared by the copies of matrices that hold it: an operation whose result keeps an operand's pattern (apply, and
// the mask step of C += T where T adds no entry: an optimizer's update of a layer's weights) hands it on
// (MatrixOnDevice::inherit_pattern), so the plans of a matrix whose values change every step are built once.
struct CompactedPattern {
  std::unique_ptr<Plan> plan;
  std::vector<Index> rows;   // increasing; rows.size() == plan->rows()
  DeviceBuffer device_rows;  // the same rows in device memory (a product's result takes a copy: dense_rows())
  // Whether `plan` was given its transposed form (Plan::add_transposed), for W^T X: on the first such product
  // (MatrixOnDevice::transposed_plan) where every column holds an entry; tried once.
  bool transposed_tried = false;
  // Which copy's values are bound to `plan` (MatrixOnDevice::id; 0: none): the copies sharing a pattern hold
  // different values, and only the owner's products may read the bound ones.
  std::uint64_t bound_owner = 0;
  ValueType bound_type = ValueType::FP32;   // the bound values' type: FP32, or the 16-bit type of a precision hint
  // The products' record for binding the values to the plan (sparse_times_full.cpp: BindingRule): the GPU seconds
  // the products of one copy's values in one type (unbound_owner: MatrixOnDevice::id; unbound_type) have spent
  // unbound where binding would have changed their kernel, so that a copy with new values on this pattern (an
  // optimizer's step, apply), or the same values in the other type, starts from zero; the events around the last
  // such product's calls, read by a later product once they have passed (no wait); and whether a bind failed (it is
  // not tried again while this copy lives).
  double unbound_seconds = 0;
  std::uint64_t unbound_owner = 0;
  ValueType unbound_type = ValueType::FP32;
  cudaEvent_t unbound_start = nullptr, unbound_stop = nullptr;
  bool unbound_timed = false;   // the events hold a product's calls not counted yet
  bool bind_failed = false;
  CompactedPattern() = default;
  CompactedPattern(const CompactedPattern&) = delete;
  CompactedPattern& operator=(const CompactedPattern&) = delete;
  ~CompactedPattern() {
    if (unbound_start) cudaEventDestroy(unbound_start);
    if (unbound_stop) cudaEventDestroy(unbound_stop);
  }
};

// p[r] = r * ncols (r = 0 .. rows) and j[r * ncols + c] = c: the pattern of every column of `rows` rows, written on
// `stream` (portable_ops.cu).
void fill_dense_pattern(Index* p, Index* j, Index rows, Index ncols, cudaStream_t stream);
// Attaches to T (every position an entry) its values, row-major in device memory, as T's only copy (a device-only
// copy of rows 0 .. nrows-1: MatrixOnDevice::dense_rows; portable_ops.cu).
void attach_full(Matrix& T, DeviceBuffer values, cudaStream_t stream);

class MatrixOnDevice final : public DeviceCopy {
 public:
  // The copy attached to m, made (values uploaded on `stream`, completed before return) and attached when
  // m has none, has another backend's, or has one on another device. m is logically unchanged (only its
  // cache of a device copy is filled), hence the const reference. Not thread-safe: the caller serializes.
  static MatrixOnDevice& of(const Matrix& m, cudaStream_t stream);

  const void* values() const { return values_.get(); }
  // Moves the values out where this copy owns them (not a caller's memory lent by borrow_device_full), leaving the
  // copy without values: for a result that the step reading it consumes (the mask step writes C's new values over T's
  // and gives them to C). An empty buffer where it does not own them.
  DeviceBuffer release_values() { return values_.is_borrowed() ? DeviceBuffer() : std::move(values_); }
  int device() const { return device_; }
  // The values' memory where the caller lent it for results (DeviceBuffer::lent_for_results).
  LentMemory lendable_memory() const override {
    return values_.lent_for_results() ? LentMemory{values_.get(), values_.bytes()} : LentMemory{};
  }
  // The values' device range (for result_values' overlap test).
  DeviceRange values_range() const { return {values_.get(), values_.bytes()}; }
  // A product's result that lives on the device only: every column of the listed rows (increasing), values
  // row-major in `values` (rows.size() x ncols of elem_size bytes). The host form is made on download.
  // `device_rows` holds the rows in device memory (copied, so that the result needs no upload to become a CSR form);
  // null where the rows are every row of the matrix (its CSR form then lists none).
  static std::unique_ptr<MatrixOnDevice> dense_rows(int device, DeviceBuffer values, std::vector<Index> rows,
                                                    const DeviceBuffer* device_rows, Index ncols, std::size_t elem_size,
                                                    cudaStream_t stream);
  // The same for every row 0 .. nrows-1 (a full matrix), listing none on the host either.
  static std::unique_ptr<MatrixOnDevice> every_row(int device, DeviceBuffer values, Index nrows, Index ncols,
                                                   std::size_t elem_size, cudaStream_t stream);

  // A result of the portable kernels that lives on the device only: its (hyper)sparse CSR arrays (h only when
  // hyper; slots may be empty). The host form is made on download.
  static std::unique_ptr<MatrixOnDevice> from_csr(int device, bool hyper, Index nslots, Index nvals, DeviceBuffer h,
                                                  DeviceBuffer p, DeviceBuffer j, DeviceBuffer x, std::size_t elem_size,
                                                  cudaStream_t stream);

  // A result with the pattern of `source` (a copy whose CSR form is made) and the values x: the pattern's arrays are
  // shared with the source, not copied (device-only, like from_csr()). apply, and the element-wise operations and the
  // mask step of operands of one pattern, make their results so.
  static std::unique_ptr<MatrixOnDevice> with_values(const MatrixOnDevice& source, DeviceBuffer x, std::size_t elem_size,
                                                     cudaStream_t stream);
  // The same with A's pattern: A's copy (made if A has none) first makes its CSR arrays (an input's copy holds only
  // values and plans until then).
  static std::unique_ptr<MatrixOnDevice> with_pattern_of(const Matrix& A, DeviceBuffer x, std::size_t elem_size,
                                                         cudaStream_t stream);

  // The device CSR form of `m` (the matrix this copy is attached to): raw device pointers for the portable kernels.
  // Made on first use: uploaded from m's host form (counted), or for a dense_rows() copy built on the device.
  struct Csr {
    bool hyper = false;
    Index nslots = 0, nvals = 0;
    const Index *h = nullptr, *p = nullptr, *j = nullptr;
    const void* x = nullptr;
  };
  Csr csr(const Matrix& m, cudaStream_t stream);

  // The compacted pattern of `m` (the matrix this copy is attached to), built on first use. Returns null
  // when the pattern does not fit 32-bit indices (more than 2^31 - 1 columns or about 2^31 entries).
  CompactedPattern* pattern(const Matrix& m, cudaStream_t stream);
  // The pattern's plan, given its transposed form (Plan::add_transposed) on first use; null as pattern(),
  // and where a column of the matrix holds no entry (a W^T X product's result would then not be full).
  Plan* transposed_plan(const Matrix& m, cudaStream_t stream);
  // The pattern as built so far (null when none was), to hand to a result of the same pattern.
  std::shared_ptr<CompactedPattern> shared_pattern() const { return pattern_; }
  // Takes `p` as this copy's pattern. The caller guarantees that the matrix has exactly p's pattern.
  void inherit_pattern(std::shared_ptr<CompactedPattern> p) {
    if (!p) return;
    pattern_ = std::move(p);
    pattern_tried_ = true;
  }
  // The matrix's 2:4 form for the sparse tensor cores (sparse_times_full.cpp: products whose sparse operand carries
  // the 2:4 hint), over the rows of its compacted pattern, made at the first such product and kept while this copy
  // lives; `hint` is the type it was made in (Off while none is made); `refused` once the matrix proved not to be 2:4
  // (it is not tried again while this copy lives).
  struct TwoFourForm {
    DeviceBuffer values, meta;
    Matrix::TwoFourHint hint = Matrix::TwoFourHint::Off;
    bool refused = false;
  };
  TwoFourForm& two_four_form() { return two_four_; }
  // The matrix's values rounded to 16 bits (products whose sparse operand carries the precision hint), in the order of
  // its values, made at the first such product and kept while this copy lives; `hint` is the type they were made in
  // (FP32 while none is made).
  struct HalfValues {
    DeviceBuffer values;
    Matrix::PrecisionHint hint = Matrix::PrecisionHint::FP32;
  };
  HalfValues& half_values() { return half_; }

  // A number no other copy in the process carries (the owner of a plan's bound values).
  std::uint64_t id() const { return id_; }

  // The transpose of the matrix this copy is attached to, as a device-only Matrix, once a kernel has made it
  // (portable_products.cu): kept while this copy lives, so a change of the matrix, which drops the copy, drops it too.
  const Matrix* transpose() const { return transpose_.get(); }
  void keep_transpose(std::unique_ptr<Matrix> t) { transpose_ = std::move(t); }
  // The same for the matrix's pattern with every value one (the dense-rows product counts its terms with it).
  const Matrix* ones() const { return ones_.get(); }
  void keep_ones(std::unique_ptr<Matrix> o) { ones_ = std::move(o); }
  // Whether every value of the matrix is finite, once a kernel has checked (kept while this copy lives).
  std::optional<bool>& all_finite() { return all_finite_; }
  // Its rows in sliced ELLPACK form, for a kernel whose threads walk a warp's 32 rows in step (row_block_product.cu):
  // entry i of row r at slice[r / 32] + 32 i + r % 32, with 16-bit columns and the values in that order; made at the
  // kernel's first use (`refused` where padding the slices would more than double the entries), kept while this copy
  // lives.
  struct SlicedForm {
    DeviceBuffer slice, length, j, x;
    bool refused = false;
  };
  SlicedForm& sliced_form() { return sliced_; }

  // Only for copies made by dense_rows() and from_csr() (the others are attached beside a valid host form).
  void download(CsrStorage& host) override;
  Index nvals() const override;
  std::unique_ptr<DeviceCopy> clone() const override;
  // The final step on the device (portable_ops.hpp: portable_mask_accum), where the plugin has the portable kernels.
  bool mask_accum(Matrix& C, const Matrix* M, bool structural, bool complement, const BinaryOp* accum, Matrix& T,
                  bool replace) override;
  const char* backend() const override { return "cuda"; }
  // "cuda: <n> value bytes", then how many other copies share its pattern arrays (with_values), the plan's rows and
  // non-zeros once built, and "values bound" once the products have bound the values to it (sparse_times_full.cpp).
  std::string describe() const override;

 private:
  MatrixOnDevice(int device, DeviceBuffer values, std::size_t elem_size)
      : device_(device), values_(std::move(values)), elem_size_(elem_size) {}

  int device_;
  DeviceBuffer values_;
  std::size_t elem_size_;
  Index nvals_ = 0;
  // The device CSR form (csr()); `owns_host_form_` for from_csr() copies, whose host form exists only on download.
  bool has_csr_ = false;
  bool owns_host_form_ = false;
  bool hyper_ = false;
  Index nslots_ = 0;
  // The CSR arrays, shared by the copies of one pattern (with_values); never written once made.
  struct CsrArrays {
    DeviceBuffer h, p, j;
  };
  std::shared_ptr<CsrArrays> arrays_;
  // dense_rows() / every_row() copies: the rows held (rows_ lists them, empty for every_row()), the column count, and
  // the stream their values were written on.
  bool dense_rows_ = false;
  std::vector<Index> rows_;
  Index held_rows_ = 0;
  bool every_row_ = false;
  std::vector<Index> held_row_ids() const;
  DeviceBuffer device_rows_;
  Index ncols_ = 0;
  cudaStream_t stream_ = nullptr;
  bool pattern_tried_ = false;
  std::shared_ptr<CompactedPattern> pattern_;
  std::uint64_t id_ = next_id();
  static std::uint64_t next_id();
  std::unique_ptr<Matrix> transpose_, ones_;
  std::optional<bool> all_finite_;
  SlicedForm sliced_;
  TwoFourForm two_four_;
  HalfValues half_;
};

}  // namespace snk::cuda
