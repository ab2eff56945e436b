// src/core/kernels.hpp: the kernel interface every backend implements (reference, kokkos, cuda).
//
// One virtual function per operation; each computes the operation's result T and nothing else: mask,
// accumulator and replace are applied afterwards by the core (src/mask/), once for all backends, or, where T
// lives on a device, by that device copy's own mask step where it offers one (DeviceCopy::mask_accum). The core
// has already checked every argument and cast every input to the operator's domains, so a kernel sees:
//   - inputs whose Type is exactly the operator's input type (A->type() == op.xtype, ...), except where
//     noted; for a user-defined type the objects are the same Type pointer;
//   - an output T that is empty, with its type and dimensions set by the core; the kernel fills it
//     (typically by building a CsrStorage and calling T.adopt(...), or by attaching a device copy);
//   - transposition only where a parameter says so; a kernel that cannot handle a transposed input
//     returns Declined and the core retries with a transposed copy made by transpose(), then, if that is
//     declined too, runs the call on reference (counted as a fallback).
// A kernel returns KernelStatus::Declined, without touching T, for anything it does not handle (a UDT, an
// operator it has no functor for); the dispatcher then runs reference's kernel and counts a fallback.
// Kernels may throw snk::Error(Info::OutOfMemory / Panic ...) for real failures.
//
// Vectors are 1 x n matrices (is_vector() set). Index-unary operators see a vector entry at position k
// as (i = k, j = 0), as the spec defines for GrB_Vector; kernels must swap the coordinates when
// A.is_vector().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "snack/algebra.hpp"
#include "snack/containers.hpp"
#include "snack/operations.hpp"

namespace snk::core {

enum class KernelStatus { Done, Declined };

// A mask given to a kernel as a hint: the kernel MAY compute only the entries of T where the mask can be
// true (structure of M, or its complement), since the core applies the mask afterwards anyway; it may
// also ignore it. `M` has T's dimensions and any type; when `structural` is false a stored entry counts
// only if its value is nonzero.
struct MaskHint {
  const Matrix* M = nullptr;
  bool structural = false;
  bool complement = false;
};

// An index list: all == true means 0 .. n-1 (GrB_ALL); otherwise list[0 .. n-1] (may repeat).
struct IndexList {
  const Index* list = nullptr;
  Index n = 0;
  bool all = true;
  Index operator[](Index k) const { return all ? k : list[k]; }
  // Whether the list is exactly 0 .. n-1 in order: GrB_ALL, or the single index 0 of a one-row (vector) dimension.
  bool covers(Index dim) const { return all || (dim == 1 && n == 1 && list[0] == 0); }
};

// A backend overrides the operations it implements; every other one declines (the base's default), so a new
// backend starts from nothing and grows one operation at a time, each counted as a fallback until it exists.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  // T = A' (+).(x) B' where A' = ta ? A^T : A, B' = tb ? B^T : B, with the semiring s, and the multiply
  // applied as f(a, b) = flip ? s.multiply(b, a) : s.multiply(a, b) (flip lets the core compute
  // w = A u as u^T A^T with vectors stored as rows). Types: A is s.multiply->xtype (ytype if flip), B is
  // s.multiply->ytype (xtype if flip), T is s.add->type(). T has no entry where no product term exists.
  virtual KernelStatus mxm(Matrix& T, const MaskHint& mask, const Semiring& s, const Matrix& A, bool ta,
                           const Matrix& B, bool tb, bool flip);

  // Union: T(i,j) = op(A(i,j), B(i,j)) where both exist; A(i,j) or B(i,j) where only one does, cast to
  // op.ztype. A is op.xtype, B is op.ytype (same dimensions).
  virtual KernelStatus ewise_add(Matrix& T, const MaskHint& mask, const BinaryOp& op, const Matrix& A,
                                 const Matrix& B);
  // Intersection: T(i,j) = op(A(i,j), B(i,j)) where both exist.
  virtual KernelStatus ewise_mult(Matrix& T, const MaskHint& mask, const BinaryOp& op, const Matrix& A,
                                  const Matrix& B);
  // T(i,j) = op(A(i,j)); A is op.xtype.
  virtual KernelStatus apply_unary(Matrix& T, const UnaryOp& op, const Matrix& A);
  // T(i,j) = bind_first ? op(s, A(i,j)) : op(A(i,j), s); s has a value and is of the bound input's type.
  virtual KernelStatus apply_bound(Matrix& T, const BinaryOp& op, const Scalar& s, bool bind_first,
                                   const Matrix& A);
  // T(i,j) = op(A(i,j), i, j, thunk); A is op.xtype (any type when op.positional()), thunk is op.ytype.
  virtual KernelStatus apply_index(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk);
  // T keeps A(i,j) (same type as A) where op(A(i,j), i, j, thunk) cast to bool is true.
  virtual KernelStatus select(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk);
  // T (a 1 x nrows(A) vector) holds the monoid reduction of each non-empty row of A. A is m.type().
  virtual KernelStatus reduce_rows(Matrix& T, const Monoid& m, const Matrix& A);
  // s = monoid reduction of all entries of A (identity when A is empty). A and s are m.type().
  virtual KernelStatus reduce_scalar(Scalar& s, const Monoid& m, const Matrix& A);
  // T = A^T (same type).
  virtual KernelStatus transpose(Matrix& T, const Matrix& A);
  // T = A(I, J) (same type), T is |I| x |J|.
  virtual KernelStatus extract(Matrix& T, const Matrix& A, const IndexList& I, const IndexList& J);
  // Z = C with the region (I, J) replaced: Z(I,J) = accum ? C(I,J) (+) A : A, where (+) is the union of
  // eWiseAdd (C entries of the region that A lacks are kept with accum and deleted without it). A is
  // |I| x |J|, of C's type when accum is null, else of accum->ytype; C is C's type and accum->xtype ==
  // C's type and accum->ztype == C's type (the core casts otherwise). With duplicate indices in I or J the
  // last one wins. Z has C's type and dimensions.
  virtual KernelStatus assign(Matrix& Z, const Matrix& C, const BinaryOp* accum, const Matrix& A,
                              const IndexList& I, const IndexList& J);
  // T = kron(A, B) with op; A is op.xtype, B is op.ytype.
  virtual KernelStatus kronecker(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B);

  // In-place forms of apply, offered by the core for C = op(C) (the output is the input, with no mask,
  // accumulator or transposition): A's values become the result, so no copy of its pattern and no new
  // output is made.
  // Offered only when no cast is needed: A is the operator's input type and the result's type is A's.
  // Optional: the default declines and the core then runs the ordinary form (not counted as a fallback).
  // A backend that does them must leave A valid, through A.csr_mutable() or its own device copy.
  // A(i,j) = bind_first ? op(s, A(i,j)) : op(A(i,j), s); op.ztype is A's type.
  virtual KernelStatus apply_bound_in_place(Matrix& A, const BinaryOp& op, const Scalar& s, bool bind_first) {
    (void)A, (void)op, (void)s, (void)bind_first;
    return KernelStatus::Declined;
  }
  // A(i,j) = op(A(i,j)); op.ztype is A's type.
  virtual KernelStatus apply_unary_in_place(Matrix& A, const UnaryOp& op) {
    (void)A, (void)op;
    return KernelStatus::Declined;
  }

  // One optimizer step (snk::optimizer_step's rule) on P, S1, S2 (null for SgdMomentum) and G, in place: P, S1 and S2
  // get the step's values. Offered only where all are of one type (the core checked dimensions and types and that
  // no two are the same object). Optional: the default declines (where the patterns differ, say) and the core then
  // runs the step as GraphBLAS calls (not counted as a fallback).
  virtual KernelStatus optimizer_step(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& step) {
    (void)P, (void)S1, (void)S2, (void)G, (void)step;
    return KernelStatus::Declined;
  }

  // The same with G = op(A) op(B) at P's positions (snk::optimizer_step_sampled; ta, tb: op is the transpose),
  // computed as the entries are updated, G never stored. Offered after the core's checks of dimensions and types.
  // Optional: the default declines and the core then runs mxm and optimizer_step.
  virtual KernelStatus optimizer_step_sampled(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& A, bool ta,
                                              const Matrix& B, bool tb, const OptimizerStep& step) {
    (void)P, (void)S1, (void)S2, (void)A, (void)ta, (void)B, (void)tb, (void)step;
    return KernelStatus::Declined;
  }

  // T (a 1 x ncols(A) vector) holds the monoid reduction of each non-empty column of A (A is m.type()): a reduction
  // with GrB_INP0 transposed, without A^T. Optional: the default declines and the core then transposes A and reduces
  // its rows (not counted as a fallback).
  virtual KernelStatus reduce_columns(Matrix& T, const Monoid& m, const Matrix& A) {
    (void)T, (void)m, (void)A;
    return KernelStatus::Declined;
  }

  // T = s at every entry of `pattern` (any type, T's dimensions), or at every position of T when pattern is null;
  // T is s's type and s has a value. The region of a constant assign, made where the operands live. Optional: the
  // default declines and the core builds the region on the host (not counted as a fallback).
  virtual KernelStatus fill(Matrix& T, const Scalar& s, const Matrix* pattern) {
    (void)T, (void)s, (void)pattern;
    return KernelStatus::Declined;
  }

  // Page-locks the host memory [p, p + bytes) so that uploads from it run at the bus's speed (SNK_PAGE_LOCKED): a
  // handle that unlocks it when its last copy is released, or null where the backend has no device memory or the
  // range could not be locked (the memory then stays as it was). The memory must outlive the handle. Optional: the
  // default returns null.
  virtual std::shared_ptr<void> lock_host_pages(void* p, std::size_t bytes) {
    (void)p, (void)bytes;
    return nullptr;
  }

  // Device memory exchange (snk::import_device_full / borrow_device_full / borrow_device_output /
  // import_device_values / export_device_dense / export_device_values): T takes device_values as its values, on the
  // pattern of `pattern` (copied), or on every position when pattern is null (copied, or read where they lie as
  // `mode` says: snk::borrow_device_full's and borrow_device_output's contracts); M is written to device_out as a dense
  // row-major array (dense) or as its values in entry order, where it does not lie there already. `stream` is the
  // caller's cudaStream_t (operations.hpp states the ordering). The core has checked the arguments. Only a backend
  // with device memory does these; the default declines, and the core reports it.
  enum class ImportMode : std::uint8_t { Copy, Borrow, BorrowForResults };
  virtual KernelStatus import_device(Matrix& T, const Matrix* pattern, const void* device_values, void* stream,
                                     ImportMode mode) {
    (void)T, (void)pattern, (void)device_values, (void)stream, (void)mode;
    return KernelStatus::Declined;
  }
  virtual KernelStatus export_device(const Matrix& M, bool dense, void* device_out, void* stream) {
    (void)M, (void)dense, (void)device_out, (void)stream;
    return KernelStatus::Declined;
  }
  // Products on the caller's device memory (snk::device_sparse_times_dense, device_sampled_product, device_row_sums:
  // operations.hpp states what each computes and when a backend may decline). The core has checked the arguments;
  // a backend declines before writing anything. The default declines.
  virtual KernelStatus device_product(const DeviceDense& Y, const Matrix& A, const void* a_values, bool transpose,
                                      const DeviceDense& X, void* stream) {
    (void)Y, (void)A, (void)a_values, (void)transpose, (void)X, (void)stream;
    return KernelStatus::Declined;
  }
  virtual KernelStatus device_sampled(void* z, const Matrix& A, const DeviceDense& X, const DeviceDense& Y,
                                      void* stream) {
    (void)z, (void)A, (void)X, (void)Y, (void)stream;
    return KernelStatus::Declined;
  }
  virtual KernelStatus device_row_sums(void* z, const Type* type, const DeviceDense& X, void* stream) {
    (void)z, (void)type, (void)X, (void)stream;
    return KernelStatus::Declined;
  }
};

// ---- host <-> device traffic (src/containers/transfers.cpp; read through snk::transfers()) ---------------------
// A backend counts each copy of container data it makes from host to device memory; the core counts each
// download of a device copy (Matrix's host reads). Thread-safe.
void count_upload(std::uint64_t bytes);
void count_download(std::uint64_t bytes);

// ---- the registry of backends (src/core/registry.cpp) --------------------------------------------------------
// A backend registers itself: one built into libsnack calls register_backend() from a static initializer of its
// own folder (SNACK_REGISTER_BACKEND below); a plugin (a shared library libsnack_<name>.so beside libsnack,
// loaded with RTLD_LOCAL on first use of the registry, or the files listed in $SNACK_PLUGINS) exports
// `extern "C" void snk_plugin_register()`, which calls register_backend(). The core knows no backend by name
// except "reference", the oracle every fallback runs on.
struct BackendEntry {
  std::string name;
  // The default backend is the highest-ranked available one with `complete` set (every operation for every
  // builtin type and operator, so that choosing it never sends the builtin calls to reference).
  int rank = 0;
  bool complete = false;
  // Makes the backend (called once, on first use). Returns null, or throws, when the backend cannot run in
  // this process (no GPU, say); `why_unavailable` is then the reason readable through
  // snk::unavailable_backends(). An entry may also be registered as unavailable from the start.
  std::function<std::unique_ptr<Backend>()> make;
  std::string why_unavailable;
};
void register_backend(BackendEntry entry);

// Registers a backend built into libsnack at load time: SNACK_REGISTER_BACKEND(kokkos, {...entry...}).
#define SNACK_REGISTER_BACKEND(tag, ...)                                      \
  namespace {                                                                 \
  const bool snack_registered_##tag = (::snk::core::register_backend(__VA_ARGS__), true); \
  }

// The reference backend (null when its plugin could not be loaded; reference_backend() then throws
// Error(NotImplemented) saying why).
Backend* reference_backend_or_null();
Backend& reference_backend();
Backend& backend_by_name(const std::string& name);   // throws Error(InvalidValue) if unknown or unavailable
Backend& current_backend_object();                   // this thread's current backend

// Runs `call(backend)` on the current backend; if it declines, on reference, counting a fallback under
// `op_name`. Reference never declines (it throws if SuiteSparse fails).
template <class Call>
void dispatch(const char* op_name, Call&& call);

void count_fallback(const std::string& backend, const char* op_name);

// $SNACK_TRACE (set and not "0"): every kernel call prints one line on stderr when it ends: the operation, the
// backend that ran it (a fallback names both), its wall time, and the host <-> device copies made meanwhile. A
// CallTrace does nothing (not even read the clock) when tracing is off.
bool trace_on();
class CallTrace {
 public:
  explicit CallTrace(const char* op);   // records the start when trace_on()
  ~CallTrace();                         // prints the line when trace_on()
  void ran_on(Backend& b) {
    if (on_) who_ = b.name();
  }
  void ran_on(const char* where) {
    if (on_) who_ = where;
  }
  void fell_back_from(Backend& b) {
    if (on_) declined_ = b.name();
  }
  CallTrace(const CallTrace&) = delete;
  CallTrace& operator=(const CallTrace&) = delete;

 private:
  const char* op_;
  bool on_;
  std::string who_, declined_;
  double start_ = 0;
  std::uint64_t uploads_ = 0, downloads_ = 0;
};

template <class Call>
void dispatch(const char* op_name, Call&& call) {
  Backend& b = current_backend_object();
  CallTrace trace(op_name);
  trace.ran_on(b);
  if (call(b) == KernelStatus::Done) return;
  if (&b != reference_backend_or_null()) {
    count_fallback(b.name(), op_name);
    trace.fell_back_from(b);
    trace.ran_on(reference_backend());
    if (call(reference_backend()) == KernelStatus::Done) return;
  }
  throw Error(Info::NotImplemented, std::string("no backend implements ") + op_name + " for these arguments");
}

}  // namespace snk::core
