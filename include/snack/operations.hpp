// snack/operations.hpp: the GraphBLAS operations of the C++ API.
//
// Each operation computes C<M, replace> = C (.) T, where T is the operation's result (a product, an
// element-wise combination, ...), M an optional mask, (.) an optional accumulator, following the C API
// spec 2.0 exactly. The front-end (src/ops/) checks every argument first (nothing is modified on error),
// casts inputs to the operator's domains, handles transposition requested by the descriptor, asks the
// current backend for T (a backend that declines sends the call to `reference`, and the fallback is
// counted), then applies mask, accumulator and replace once, in the core (src/mask/). Outputs may alias
// inputs. `mask` and `accum` may be null. Index lists: a null pointer means "all" (GrB_ALL) with the count
// giving the length.
#pragma once

#include <cstdint>

#include "snack/algebra.hpp"
#include "snack/containers.hpp"

namespace snk {

struct Descriptor {
  bool replace = false;           // GrB_OUTP = GrB_REPLACE
  bool mask_complement = false;   // GrB_MASK has GrB_COMP
  bool mask_structure = false;    // GrB_MASK has GrB_STRUCTURE
  bool transpose_first = false;   // GrB_INP0 = GrB_TRAN
  bool transpose_second = false;  // GrB_INP1 = GrB_TRAN
};

// ---- multiplication -----------------------------------------------------------------------------------
void mxm(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& d = {});
void mxv(Vector& w, const Vector* mask, const BinaryOp* accum, const Semiring& s, const Matrix& A,
         const Vector& u, const Descriptor& d = {});
void vxm(Vector& w, const Vector* mask, const BinaryOp* accum, const Semiring& s, const Vector& u,
         const Matrix& A, const Descriptor& d = {});

// ---- element-wise (the monoid and semiring forms of the spec use monoid->op / semiring->add->op for
// eWiseAdd and semiring->multiply for eWiseMult; the C API shim resolves them) ------------------------------
void ewise_add(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op, const Matrix& A,
               const Matrix& B, const Descriptor& d = {});
void ewise_add(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op, const Vector& u,
               const Vector& v, const Descriptor& d = {});
void ewise_mult(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op, const Matrix& A,
                const Matrix& B, const Descriptor& d = {});
void ewise_mult(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op, const Vector& u,
                const Vector& v, const Descriptor& d = {});

// ---- apply and select -----------------------------------------------------------------------------------
void apply(Matrix& C, const Matrix* mask, const BinaryOp* accum, const UnaryOp& op, const Matrix& A,
           const Descriptor& d = {});
void apply(Vector& w, const Vector* mask, const BinaryOp* accum, const UnaryOp& op, const Vector& u,
           const Descriptor& d = {});
// z = op(x, A(i,j)) (bind_first) or op(A(i,j), y); the scalar must have a value (else EmptyObject).
void apply_bind_first(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op,
                      const Scalar& x, const Matrix& A, const Descriptor& d = {});
void apply_bind_second(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op,
                       const Matrix& A, const Scalar& y, const Descriptor& d = {});
void apply_bind_first(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op,
                      const Scalar& x, const Vector& u, const Descriptor& d = {});
void apply_bind_second(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op,
                       const Vector& u, const Scalar& y, const Descriptor& d = {});
void apply(Matrix& C, const Matrix* mask, const BinaryOp* accum, const IndexUnaryOp& op, const Matrix& A,
           const Scalar& thunk, const Descriptor& d = {});
void apply(Vector& w, const Vector* mask, const BinaryOp* accum, const IndexUnaryOp& op, const Vector& u,
           const Scalar& thunk, const Descriptor& d = {});
void select(Matrix& C, const Matrix* mask, const BinaryOp* accum, const IndexUnaryOp& op, const Matrix& A,
            const Scalar& thunk, const Descriptor& d = {});
void select(Vector& w, const Vector* mask, const BinaryOp* accum, const IndexUnaryOp& op, const Vector& u,
            const Scalar& thunk, const Descriptor& d = {});

// ---- reduce ---------------------------------------------------------------------------------------------
// w(i) = reduction of row i of A (of column i with transpose_first).
void reduce(Vector& w, const Vector* mask, const BinaryOp* accum, const Monoid& monoid, const Matrix& A,
            const Descriptor& d = {});
// Spec 2.0 reduce with a BinaryOp: op's three domains must be equal (else DomainMismatch). The operator of a
// builtin monoid runs as that monoid; any other operator (FIRST, a user-defined one) is folded left to right
// in storage order (the spec leaves non-associative operators undefined; SuiteSparse 7.4 rejects them).
void reduce(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op, const Matrix& A,
            const Descriptor& d = {});
// s = s (.) reduction of all entries. An A without entries clears s (no accum) or leaves it unchanged (with
// accum), as spec 2.0 defines for a GrB_Scalar output and SuiteSparse 7.4 does; the C API's non-opaque
// <type> val form, which gets the monoid's identity then, is built on this by the C shim.
void reduce(Scalar& s, const BinaryOp* accum, const Monoid& monoid, const Matrix& A, const Descriptor& d = {});
void reduce(Scalar& s, const BinaryOp* accum, const Monoid& monoid, const Vector& u, const Descriptor& d = {});
// The same with a binary operator (spec 2.0 GrB_Matrix_reduce_BinaryOp_Scalar): op's three domains must be
// equal (else DomainMismatch); any such operator is accepted (see reduce to vector).
void reduce(Scalar& s, const BinaryOp* accum, const BinaryOp& op, const Matrix& A, const Descriptor& d = {});
void reduce(Scalar& s, const BinaryOp* accum, const BinaryOp& op, const Vector& u, const Descriptor& d = {});

// ---- transpose, extract, assign, kronecker --------------------------------------------------------------
void transpose(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Matrix& A, const Descriptor& d = {});
// C = A(I, J)
void extract(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Matrix& A, const Index* I, Index ni,
             const Index* J, Index nj, const Descriptor& d = {});
// w = u(I)
void extract(Vector& w, const Vector* mask, const BinaryOp* accum, const Vector& u, const Index* I, Index ni,
             const Descriptor& d = {});
// w = A(I, j) (GrB_Col_extract; with transpose_first: A(j, I)^T)
void extract_column(Vector& w, const Vector* mask, const BinaryOp* accum, const Matrix& A, const Index* I,
                    Index ni, Index j, const Descriptor& d = {});
// C<M>(I, J) = C(I, J) (.) A   (GrB_Matrix_assign; M has the size of C)
void assign(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Matrix& A, const Index* I, Index ni,
            const Index* J, Index nj, const Descriptor& d = {});
void assign(Vector& w, const Vector* mask, const BinaryOp* accum, const Vector& u, const Index* I, Index ni,
            const Descriptor& d = {});
// C<M>(I, J) = C(I, J) (.) s for every position of the region (GrB_Matrix_assign_TYPE / _Scalar);
// an empty Scalar deletes the entries of the region (spec 2.0 GrB_Scalar semantics).
void assign_scalar(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Scalar& s, const Index* I,
                   Index ni, const Index* J, Index nj, const Descriptor& d = {});
void assign_scalar(Vector& w, const Vector* mask, const BinaryOp* accum, const Scalar& s, const Index* I,
                   Index ni, const Descriptor& d = {});
// C<m'>(i, J) = C(i, J) (.) u'   (GrB_Row_assign: mask is a vector of size ncols(C))
void assign_row(Matrix& C, const Vector* mask, const BinaryOp* accum, const Vector& u, Index i, const Index* J,
                Index nj, const Descriptor& d = {});
// C<m>(I, j) = C(I, j) (.) u     (GrB_Col_assign: mask is a vector of size nrows(C))
void assign_column(Matrix& C, const Vector* mask, const BinaryOp* accum, const Vector& u, const Index* I,
                   Index ni, Index j, const Descriptor& d = {});
// C = kron(A, B) with op (the spec's GrB_kronecker with a BinaryOp; monoid/semiring forms resolve to it)
void kronecker(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op, const Matrix& A,
               const Matrix& B, const Descriptor& d = {});

// ---- optimizer steps (an SNK_ extension: the sparse layers' optimizers, layers/optim.hpp) ----------------------
// The update rule and coefficients of one step of an optimizer. `t` is the step's number (1 for the first), for
// Adam's bias corrections.
struct OptimizerStep {
  enum class Rule { SgdMomentum, Adam };
  Rule rule = Rule::Adam;
  double lr = 1e-3;
  double momentum = 0.9;                           // SgdMomentum
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;   // Adam
  double weight_decay = 0;
  bool decoupled = false;                          // Adam: AdamW's decay of P instead of a term of the gradient
  std::int64_t t = 1;
};

// One step on a parameter P with gradient G and state S1 (SGD's velocity, Adam's first moment) and S2 (Adam's second
// moment; null for SgdMomentum), all of P's dimensions and type, every value updated entry by entry:
//   SgdMomentum: g = G + weight_decay P;  S1 = momentum S1 + g;  P = P - lr S1
//   Adam:        g = G + weight_decay P (decoupled: g = G, and P = (1 - lr weight_decay) P first);
//                S1 = beta1 S1 + (1 - beta1) g;  S2 = beta2 S2 + (1 - beta2) g^2;
//                P = P - lr / (1 - beta1^t) S1 / (sqrt(S2 / (1 - beta2^t)) + eps)
// (the weight-decay terms only where weight_decay is not 0). Its result is, up to rounding, that of the GrB_apply and
// GrB_eWiseAdd / eWiseMult calls that spell out each line in P's type, with the coefficients cast to it (where G holds
// entries outside P's pattern, what those calls give: eWiseAdd and the accumulator copy a one-sided entry, so P gains
// +lr S1 there). Where P, S1, S2 and G hold one pattern and a
// floating type, the backend may update them in one pass over the values (the kokkos and cuda backends do); otherwise
// the step runs as those calls. Errors: DimensionMismatch, DomainMismatch (types differ), InvalidValue (the same
// object twice, an Adam step without S2, t < 1); nothing is changed then.
void optimizer_step(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& step);

// The same step with G the sampled product of A and B at P's stored positions: G<P, structure> = op(A) op(B) under
// PLUS_TIMES of P's type, op as d's transpose_first and transpose_second ask (d's mask and output fields must be
// unset). A layer's weights take their gradient dW<W> = dY^T X so. Where the backend can compute G's values as it
// updates the entries (the cuda backend: P holds the SpMM plan of an earlier product, A and B full FP32, K at most 8),
// G is never stored; otherwise the step is the mxm call and optimizer_step. Errors: optimizer_step's (with G's
// dimensions those of op(A) op(B)), InvalidValue for a mask field set in d; nothing is changed then.
void optimizer_step_sampled(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& A, const Matrix& B, const Descriptor& d,
                            const OptimizerStep& step);

// ---- device memory exchange (an SNK_ extension: callers that hold their data on the GPU, PyTorch's CUDA tensors) ---
// The thread's backend copies between the caller's device memory and its own copies of matrices, on the device: the
// cuda backend does; the others hold no device memory and refuse with NotImplemented, changing nothing. `stream` is
// the caller's CUDA stream (a cudaStream_t; null for the default stream): an import reads the caller's memory after
// the work queued there so far, and work the caller queues there afterwards runs after the import's reads (so the
// caller may overwrite or free that memory in the stream's order) or after the export's writes.
// Pointers must be device memory of the backend's GPU, of the sizes stated; a null pointer is NullPointer.
//
// T (its type and dimensions kept, every position an entry) takes T.nrows() x T.ncols() values of its type, row-major,
// from device_values. T's previous content goes.
void import_device_full(Matrix& T, const void* device_values, void* stream);
// The same without a copy: T reads its values at device_values itself, which the library never writes. That memory
// must stay valid and unchanged while T holds it (until T changes, is cleared or is destroyed), and the caller orders
// any later write or free of it on `stream` after the last work that reads T, which an export from a matrix computed
// from T does (the layers' device calls: a batch read for one call).
void borrow_device_full(Matrix& T, const void* device_values, void* stream);
// The same over memory the caller lends for T's results, T.nrows() x T.ncols() values of its type, row-major: T reads
// its values there (what the memory holds now), and an operation that replaces T whole (mxm without a mask or an
// accumulator) may write its result there instead of into new memory, where none of its inputs lies in it, T then
// lying there still. An export of T to device_values then copies nothing (the layers' device calls make their outputs
// so). The memory must stay valid while T holds it, and the caller must not touch it while an operation may write it.
void borrow_device_output(Matrix& T, void* device_values, void* stream);
// T takes the pattern of `pattern` (of T's dimensions) with pattern.nvals() values of T's type from device_values, in
// the order of pattern's entries (row by row, columns increasing). T may be `pattern` (new values on its pattern).
void import_device_values(Matrix& T, const Matrix& pattern, const void* device_values, void* stream);
// M as a row-major dense array of M.nrows() x M.ncols() values of its type (zero where M holds no entry); nothing is
// copied where M's values lie there already (borrow_device_output).
void export_device_dense(const Matrix& M, void* device_out, void* stream);
// M's M.nvals() values in the order of its entries (row by row, columns increasing).
void export_device_values(const Matrix& M, void* device_out, void* stream);

// ---- products on the caller's device memory (an SNK_ extension: a sparse layer's forward and backward) -------------
// For callers that repeat products on one sparse pattern with new values each time: the dense operands and results
// stay in the caller's memory (no matrix is made for them), the sparse operand's values are given per call, and the
// pattern's device plans, made by its first product, serve every later one. A (FP32 or FP64) gives only its pattern;
// its values are a_values, A.nvals() of A's type in the order of A's entries (row by row, columns increasing). The
// ordering against `stream` is the exchange's above. Each returns false, writing nothing, where the thread's backend
// has no device path for the call (a backend without device memory; on the cuda backend an A with an empty row, or
// column where A^T is asked, or with a 2:4 or half-precision hint, whose matrix products take those into account):
// the caller then runs the matrix operations (import, mxm, export) instead. Arguments that are wrong in themselves
// throw as usual (NullPointer, DimensionMismatch, InvalidValue, DomainMismatch), changing nothing.
//
// A dense operand or result in device memory: rows x cols values, element (r, c) at data[r * row_stride + c *
// col_stride]; one stride is 1 (row-major: col_stride 1, row_stride >= cols; column-major the other way round).
struct DeviceDense {
  const void* data = nullptr;
  Index rows = 0, cols = 0;
  std::int64_t row_stride = 0, col_stride = 0;
  bool row_major() const { return col_stride == 1 && row_stride >= static_cast<std::int64_t>(cols); }
  bool column_major() const { return row_stride == 1 && col_stride >= static_cast<std::int64_t>(rows); }
  // Its values one array with no gap between rows (row-major) or columns (column-major).
  bool packed() const {
    return (row_major() && row_stride == static_cast<std::int64_t>(cols)) ||
           (column_major() && col_stride == static_cast<std::int64_t>(rows));
  }
};
// Y = A X, or A^T X where `transpose`, over PLUS_TIMES in A's type (X and Y of A's type). Y must not overlap X or
// a_values; every element of Y is written.
bool device_sparse_times_dense(const DeviceDense& Y, const Matrix& A, const void* a_values, bool transpose,
                               const DeviceDense& X, void* stream);
// z[e] = sum_k X(i, k) Y(k, j) for A's e-th entry (i, j): the product X Y at A's positions only (a layer's weight
// gradient), over PLUS_TIMES in A's type, into A.nvals() values at z.
bool device_sampled_product(void* z, const Matrix& A, const DeviceDense& X, const DeviceDense& Y, void* stream);
// z[i] = X(i, 0) + ... + X(i, cols - 1) for each row i of X (a layer's bias gradient), in `type` (FP32 or FP64).
bool device_row_sums(void* z, const Type* type, const DeviceDense& X, void* stream);

}  // namespace snk
