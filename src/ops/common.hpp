// src/ops/common.hpp: what every operation front-end shares: argument checks with the spec's error codes
// and clear messages, operands prepared for a kernel (transposed and/or cast copies, made only when
// needed), fresh result matrices of the right shape, index lists, and the final mask/accumulator step.
//
// The front-ends follow one pattern (C API spec 2.0, "Setup / Compute / Output"): check every argument
// (domains, then dimensions, then the rest) before anything is modified; prepare the operands; compute T
// into a fresh matrix through core::dispatch; then C<M, replace> = C (.) T once, in
// core::apply_mask_accum. T is never the output object, so an output may alias any input.
#pragma once

#include <memory>
#include <string>

#include "core/internal.hpp"
#include "snack/operations.hpp"

namespace snk::core {

// "3 x 4" (for messages).
std::string dims_string(Index nrows, Index ncols);

// DomainMismatch unless values of `from` can be cast to `to`; `what` names the two sides in the message.
void check_castable(const Type* to, const Type* from, const std::string& what);

// The mask checks of every operation: dimensions equal to the output's (DimensionMismatch), and a valued
// mask must have a builtin type (DomainMismatch; a structural mask may have any type).
void check_mask(const char* op, const Matrix* mask, Index nrows, Index ncols, const Descriptor& d);

// The output-side domain checks of C<M> = C (.) T: T's type must cast to C's type; with an accumulator,
// C's type must cast to accum's first input and from its output, and T's type to its second input.
void check_output_domains(const char* op, const Type* c_type, const BinaryOp* accum, const Type* t_type);

// DimensionMismatch "<op>: <what_a> is <a> but <what_b> is <b>" unless a == b.
void check_dim(const char* op, Index a, const char* what_a, Index b, const char* what_b);

// An index list of the API as the kernels take it: `list` with n entries, or GrB_ALL (a null list), which stands
// for every index of the dimension `dim` it indexes, 0 .. dim-1 in order; the count passed with GrB_ALL is not
// read (SuiteSparse reads it the same way, and programs written for GraphBLAS, LAGraph among them, pass counts
// other than the dimension with GrB_ALL, 0 included). The result's n is the list's length either way: every
// front-end takes its counts from here before any check.
IndexList index_list(const Index* list, Index n, Index dim);

// Every entry of `list` (when not ALL) must be < bound: IndexOutOfBounds otherwise (the spec's execution
// error for index arrays of extract and assign). With ALL, n must be <= bound.
void check_index_list(const char* op, const IndexList& list, Index bound, const char* what);

// The mask as a matrix (a vector's inner 1 x n matrix), or null.
inline const Matrix* mask_matrix(const Vector* m) { return m ? &m->as_matrix() : nullptr; }
inline const Matrix* mask_matrix(const Matrix* m) { return m; }

// A fresh empty result of `type`, nrows x ncols; when `vector` is set it is the inner matrix of a Vector
// (nrows must be 1) so that kernels see is_vector().
class Result {
 public:
  Result(const Type* type, Index nrows, Index ncols, bool vector);
  Matrix& get() { return vector_ ? vector_->as_matrix() : *matrix_; }
  Matrix&& take() { return std::move(get()); }

 private:
  std::unique_ptr<Matrix> matrix_;
  std::unique_ptr<Vector> vector_;
};

// An input as a kernel will see it: the caller's object, or a transposed and/or cast copy owned here.
// The caller's object is never modified or moved from.
class Operand {
 public:
  explicit Operand(const Matrix& m) : ptr_(&m) {}
  Operand(Operand&&) = default;
  const Matrix& get() const { return *ptr_; }
  Index nrows() const { return ptr_->nrows(); }
  Index ncols() const { return ptr_->ncols(); }
  const Type* type() const { return ptr_->type(); }
  // Replaces the operand by its transpose (computed through dispatch("transpose")).
  void transpose();
  // Casts the operand to `type` (no-op when it already has it). Keeps is_vector().
  void cast_to(const Type* type);
  // A matrix the caller may consume (moved out when owned here, else a copy of the caller's object).
  Matrix take();

 private:
  void own(std::unique_ptr<Matrix> m);
  std::unique_ptr<Matrix> owned_;
  std::unique_ptr<Vector> owned_vector_;
  const Matrix* ptr_;
};

// A^T computed through the dispatcher (same type as A).
Matrix transposed(const Matrix& A);

// True when the mask is "none, complemented": every position is masked out, so T need not be computed (the
// final step still runs: it clears C under GrB_REPLACE).
inline bool all_masked_out(const Matrix* mask, const Descriptor& d) { return mask == nullptr && d.mask_complement; }

// The final step with the descriptor's mask flags and replace.
inline void finish(Matrix& C, const Matrix* mask, const BinaryOp* accum, Matrix&& T, const Descriptor& d) {
  apply_mask_accum(C, mask, d.mask_structure, d.mask_complement, accum, std::move(T), d.replace);
}

// When every position is masked out, runs the final step with an empty T (of t_type) and returns true;
// front-ends call it after their checks and return at once when it does.
inline bool finish_if_all_masked_out(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Type* t_type,
                                     const Descriptor& d) {
  if (!all_masked_out(mask, d)) return false;
  finish(C, mask, accum, Matrix(t_type, C.nrows(), C.ncols()), d);
  return true;
}

// The assign step shared by every assign variant: Z = C with the region (I, J) taken from A (|I| x |J|,
// any type castable as checked) and accumulated with accum, then C<M, replace> = Z. Arguments are checked.
void assign_region(Matrix& C, const Matrix* mask, const BinaryOp* accum, Operand A, const IndexList& I,
                   const IndexList& J, const Descriptor& d);

}  // namespace snk::core
