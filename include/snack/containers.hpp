// snack/containers.hpp: Matrix, Vector and Scalar, the GraphBLAS containers, and their storage.
//
// A Matrix is stored by rows. Its canonical host form is CSR with sorted column indices and no duplicate
// entries; when the matrix has far more rows than entries (nrows > 4 * nvals + 64, e.g. 10^6 x 10^6 with
// 100 entries) it is hypersparse: only the non-empty rows are listed (the `h` array), so memory stays
// O(nvals) for any dimension up to 2^60. Other forms are derived on demand and cached until the matrix
// changes: the sorted-COO row index array, and a bitmap/full form for mostly-dense data. A Vector of size
// n is a 1 x n Matrix (one row), so every matrix kernel also serves vectors. A Scalar holds zero or one
// value.
//
// Device copies: a backend that keeps data in its own memory (cuda) attaches a DeviceCopy. The two copies
// carry validity flags (as Kokkos' DualView does): a GPU operation may leave only the device copy valid,
// and the first host read brings the data back once (counted: snk::transfers() in backend.hpp). Reading the
// entry count, duplicating the matrix where the backend can, and moving a result into its output
// (Matrix::take) do not bring it back.
//
// Pending work (the spec's non-blocking mode): setElement appends to a list of pending tuples, which are
// merged into the CSR form by wait() or by the first read that needs it. Reads through the accessors below
// always see a finished matrix.
//
// Every method checks its arguments and throws snk::Error (see error.hpp) without changing the object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "snack/algebra.hpp"
#include "snack/error.hpp"
#include "snack/types.hpp"

namespace snk {

// Host storage in (hyper)sparse CSR form. Values are packed, `type->size` bytes each, in entry order.
struct CsrStorage {
  bool hyper = false;
  std::vector<Index> h;   // hyper only: the non-empty rows, increasing
  std::vector<Index> p;   // row pointers: nrows + 1 entries, or h.size() + 1 when hyper
  std::vector<Index> j;   // column index of each entry, increasing within a row
  std::vector<unsigned char> x;  // values: nvals * type->size bytes (8-byte aligned by the allocator)
  Index nvals() const { return static_cast<Index>(j.size()); }
  // Number of row slots in p (nrows, or h.size() when hyper); row slot k holds row (hyper ? h[k] : k).
  Index nslots() const { return p.empty() ? 0 : static_cast<Index>(p.size() - 1); }
};

// Dense form: b[i*ncols + j] != 0 where an entry exists; x holds ncols*nrows values (row-major),
// meaningful where b is set. `full` is true when every position has an entry.
struct BitmapStorage {
  bool full = false;
  std::vector<std::uint8_t> b;
  std::vector<unsigned char> x;
};

class Matrix;

// Device memory a caller lent for a matrix's values (snk::borrow_device_output): `bytes` bytes at `data`, null when none.
struct LentMemory {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// A backend's copy of the matrix in its own memory. The backend derives from it.
class DeviceCopy {
 public:
  virtual ~DeviceCopy() = default;
  // Writes the device data into `host` (called when only the device copy is valid). The core counts the
  // download (snk::transfers()).
  virtual void download(CsrStorage& host) = 0;
  // The number of entries, without a download.
  virtual Index nvals() const = 0;
  // A copy of this device copy for a duplicate of the matrix (GrB_Matrix_dup), made on the device; null where the
  // backend makes none (the duplicate then copies the host form, downloading it first if needed).
  virtual std::unique_ptr<DeviceCopy> clone() const { return nullptr; }
  // The final step of an operation whose result T holds this copy as its only valid one: C<M, replace> = C (.) T
  // (src/core/internal.hpp: apply_mask_accum states it), computed where T lives, leaving C's new content on the
  // device. The core has checked the arguments. Returns false, changing nothing, for anything the backend does not
  // do there (the core then runs the step on the host). On an exception C is unchanged. T is the step's own: its
  // device values may be taken for C's (T's copy is then left without them).
  virtual bool mask_accum(Matrix& C, const Matrix* M, bool structural, bool complement, const BinaryOp* accum,
                          Matrix& T, bool replace) {
    (void)C, (void)M, (void)structural, (void)complement, (void)accum, (void)T, (void)replace;
    return false;
  }
  // The caller's memory this copy's values lie in where the caller lent it for results (snk::borrow_device_output),
  // else none: an operation that replaces the matrix whole may have its result written there (Matrix::lend_memory).
  virtual LentMemory lendable_memory() const { return {}; }
  virtual const char* backend() const = 0;
  // One line saying what the copy holds (for logs and tests); by default the backend's name.
  virtual std::string describe() const { return backend(); }
};

class Matrix {
 public:
  // A new empty matrix (the spec's GrB_Matrix_new). nrows, ncols <= kIndexMax; type non-null.
  Matrix(const Type* type, Index nrows, Index ncols);
  Matrix(const Matrix& other);             // deep copy (GrB_Matrix_dup); device copies are not shared
  Matrix& operator=(const Matrix& other);
  Matrix(Matrix&&) noexcept;
  Matrix& operator=(Matrix&&) noexcept;
  ~Matrix();

  const Type* type() const { return type_; }
  Index nrows() const { return nrows_; }
  Index ncols() const { return ncols_; }
  Index nvals() const;                     // finishes pending work
  bool is_vector() const { return is_vector_; }  // set for the 1 x n matrix inside a Vector

  void clear();                            // removes all entries, keeps type and dimensions
  void resize(Index nrows, Index ncols);   // drops entries outside the new bounds

  // build from tuples (spec GrB_Matrix_build): the matrix must have no entries (else OutputNotEmpty).
  // dup == nullptr: a duplicate (i,j) is an error (InvalidValue); else duplicates are combined with dup
  // in the order given. Values are of type `vtype` and are cast to the matrix type (DomainMismatch if
  // not castable). Indices out of range: IndexOutOfBounds.
  void build(const Index* I, const Index* J, const void* values, const Type* vtype, Index n,
             const BinaryOp* dup);
  // A(i,j) = value (cast from vtype). Out of range: InvalidIndex.
  void set_element(Index i, Index j, const void* value, const Type* vtype);
  // Removes A(i,j) if present. Out of range: InvalidIndex.
  void remove_element(Index i, Index j);
  // Writes A(i,j) cast to `vtype` into *value and returns true; returns false (spec: GrB_NO_VALUE) if
  // absent. Out of range: InvalidIndex.
  bool extract_element(Index i, Index j, void* value, const Type* vtype) const;
  // Copies out all entries in row-major order; any pointer may be null to skip that array. Arrays must
  // hold nvals() entries. Values are cast to `vtype`.
  void extract_tuples(Index* I, Index* J, void* values, const Type* vtype) const;
  // The spec's GrB_Matrix_diag: a square matrix with v on diagonal k (size n + |k|).
  static Matrix diag(const class Vector& v, std::int64_t k);

  // Finishes pending work (GrB_wait).
  void wait() const;

  // ---- storage access for the core and the backends ----------------------------------------------------
  // Host CSR form (finished, host-valid: downloads from the device copy if needed).
  const CsrStorage& csr() const;
  // Mutable host CSR form: invalidates derived forms and the device copy. Callers must leave it valid
  // (sorted, no duplicates, hyper/h/p consistent, x sized).
  CsrStorage& csr_mutable();
  // Replaces the content by `s` (same type and dimensions); chooses hyper or not by the rule above.
  void adopt(CsrStorage&& s);
  // Derived forms (cached until the matrix changes).
  const std::vector<Index>& coo_rows() const;   // row index of each entry (sorted COO with csr().j)
  const BitmapStorage& bitmap() const;          // InvalidValue if nrows*ncols exceeds 2^31
  // Range of row i in csr(): entries [begin, end). O(1), or O(log) when hypersparse.
  void row_range(Index i, Index& begin, Index& end) const;
  // Copies of this matrix cast to another type, kept with the derived forms (until the content changes), so that an
  // operand cast on every call (an FP64 graph under an INT64 semiring, in a loop) is cast, and uploaded, once.
  // The core fills the cache under its own lock (src/ops/common.cpp).
  const Matrix* cached_cast(const Type* type) const;
  const Matrix& keep_cast(std::unique_ptr<Matrix> cast) const;

  // Device copy management. `device_copy()` is null when none exists.
  DeviceCopy* device_copy() const { return device_.get(); }
  bool host_valid() const { return host_valid_; }
  bool device_valid() const { return device_valid_; }
  // Attaches a device copy that holds the current content; if host_is_stale, the host form is marked
  // invalid and will be downloaded by the next host read.
  void attach_device_copy(std::unique_ptr<DeviceCopy> copy, bool host_is_stale);
  void invalidate_device_copy();
  // Replaces the content by t's (same type and dimensions, else InvalidValue), where it is: a result that lives
  // only on the device stays there. t is left empty.
  void take(Matrix&& t);

  // Memory lent for this matrix's next content. The core lends an operation's fresh result T the memory of its output
  // C where the operation replaces C whole (no mask, no accumulator, T of C's type) and C lies in memory its caller
  // lent for results (DeviceCopy::lendable_memory): a kernel whose result is full, row-major and of exactly that size
  // may write its values there (where the caller will read them) instead of into new memory, provided none of its
  // inputs lies in that memory. The core withdraws it once the kernels have run. Copies and moves do not carry it.
  void lend_memory(LentMemory m) { lent_ = m; }
  const LentMemory& lent_memory() const { return lent_; }

  // The 2:4 hint (SNK_TWO_FOUR_HINT in the C API): products with this matrix as the A operand may run on the sparse
  // tensor cores in the 2:4 form, its values and the other operand's rounded to FP16 or BF16 and summed in FP32.
  // Backends that cannot, and products it does not fit, ignore it. It belongs to the object, not to its content:
  // a copy (dup) takes it, and assignments and take() keep the destination's.
  enum class TwoFourHint : std::uint8_t { Off, FP16, BF16 };
  void set_two_four_hint(TwoFourHint h) { two_four_hint_ = h; }
  TwoFourHint two_four_hint() const { return two_four_hint_; }

  // The precision hint (SNK_PRECISION_HINT in the C API): products of this matrix, as the sparse operand, with a full
  // one under PLUS_TIMES on FP32 may round its values and the full operand's to FP16 or BF16 and sum the products in
  // FP32, halving the bytes they read. Backends that cannot, and products it does not fit, ignore it; the 2:4 hint,
  // where it applies, comes first. It belongs to the object, as the 2:4 hint does.
  enum class PrecisionHint : std::uint8_t { FP32, FP16, BF16 };
  void set_precision_hint(PrecisionHint h) { precision_hint_ = h; }
  PrecisionHint precision_hint() const { return precision_hint_; }

  // Converts a hyper CSR to plain CSR and back as the size rule says (after in-place edits).
  void normalize_format();

  // Page-locked host arrays (SNK_PAGE_LOCKED in the C API): handles from a backend (Backend::lock_host_pages), each
  // keeping one of the host CSR arrays locked for fast uploads and unlocking it when released. The matrix releases
  // them before its host arrays are rebuilt or freed, so a lock never outlives the memory it covers (a value
  // overwritten in place keeps them); a copy (dup) does not take them; a move does, with the arrays. keep_host_locks
  // takes locks of the arrays of csr() as they are (read after csr(), with nothing changed since).
  void keep_host_locks(std::vector<std::shared_ptr<void>> locks);
  bool host_pages_locked() const { return !host_locks_.empty(); }
  void release_host_locks() { host_locks_.clear(); }

 private:
  friend class Vector;
  void assemble_pending() const;
  void invalidate_derived();

  const Type* type_;
  Index nrows_, ncols_;
  bool is_vector_ = false;
  mutable CsrStorage csr_;
  // Declared after csr_, so that the locks are released before the arrays they cover are freed.
  mutable std::vector<std::shared_ptr<void>> host_locks_;
  // pending tuples from set_element (merged by assemble_pending; later ones win)
  mutable std::vector<Index> pending_i_, pending_j_;
  mutable std::vector<unsigned char> pending_x_;
  mutable std::unique_ptr<std::vector<Index>> coo_rows_;
  mutable std::unique_ptr<BitmapStorage> bitmap_;
  mutable std::vector<std::unique_ptr<Matrix>> casts_;
  mutable std::unique_ptr<DeviceCopy> device_;
  mutable bool host_valid_ = true;
  mutable bool device_valid_ = false;
  TwoFourHint two_four_hint_ = TwoFourHint::Off;
  PrecisionHint precision_hint_ = PrecisionHint::FP32;
  LentMemory lent_;
};

// A sparse vector of size n: internally a 1 x n Matrix (row 0 holds the entries).
class Vector {
 public:
  Vector(const Type* type, Index n);
  const Type* type() const { return m_.type(); }
  Index size() const { return m_.ncols(); }
  Index nvals() const { return m_.nvals(); }
  void clear() { m_.clear(); }
  void resize(Index n) { m_.resize(1, n); }
  void build(const Index* I, const void* values, const Type* vtype, Index n, const BinaryOp* dup);
  void set_element(Index i, const void* value, const Type* vtype) { m_.set_element(0, i, value, vtype); }
  void remove_element(Index i) { m_.remove_element(0, i); }
  bool extract_element(Index i, void* value, const Type* vtype) const {
    return m_.extract_element(0, i, value, vtype);
  }
  void extract_tuples(Index* I, void* values, const Type* vtype) const {
    m_.extract_tuples(nullptr, I, values, vtype);
  }
  void wait() const { m_.wait(); }
  // The 1 x n matrix holding the entries (for the core and backends).
  Matrix& as_matrix() { return m_; }
  const Matrix& as_matrix() const { return m_; }

 private:
  Matrix m_;
};

// Zero or one value of a type (GrB_Scalar).
class Scalar {
 public:
  explicit Scalar(const Type* type);
  const Type* type() const { return type_; }
  bool has_value() const { return has_value_; }
  Index nvals() const { return has_value_ ? 1 : 0; }
  void clear() { has_value_ = false; }
  void set(const void* value, const Type* vtype);    // cast from vtype
  bool get(void* value, const Type* vtype) const;    // false if empty
  const void* data() const { return value_.data(); } // the value in this->type(), valid if has_value()

 private:
  const Type* type_;
  bool has_value_ = false;
  std::vector<unsigned char> value_;
};

}  // namespace snk
