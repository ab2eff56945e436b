// src/ops/apply.cpp: the front-ends of GrB_apply (unary operator; binary operator with a bound first or
// second scalar; index-unary operator) and GrB_select, matrix and vector (C API spec 2.0, 4.3.8-9).
//
// The input is transposed first when GrB_INP0 asks (matrix forms), cast to the operator's input type, and
// the bound scalar or thunk is cast to the operator's matching input type; an empty GrB_Scalar there is
// GrB_EMPTY_OBJECT (spec 2.0; SuiteSparse 7.4 agrees). Positional index-unary operators take any input
// type and ignore the values, so the input is not cast for them.
//
// select keeps A's own values (spec: T holds A(i,j) in A's domain), while a value-based operator must see
// A's values cast to its input type. When that cast is needed, the kernel selects on the cast copy and the
// kept pattern is then filled with A's original values by an intersection with FIRST (only builtin types
// can need a cast: a user-defined type casts only to itself).
//
// C = op(C) with a unary or bound binary operator (same object, no mask, accumulator, transposition or
// cast) is offered first to the current backend's in-place form (core/kernels.hpp), which rewrites C's
// values where they are, without a copy of the pattern or a new output; a backend without one (or one
// that declines) runs the ordinary form.
#include "ops/common.hpp"

namespace snk {
namespace {

using core::Backend;
using core::Operand;

// Checks shared by every apply/select form (after the operator's own domain checks).
void check_args(const char* op, Matrix& C, const Matrix* mask, const BinaryOp* accum, const Type* t_type,
                const Matrix& A, bool ta, const Descriptor& d, bool vector) {
  core::check_output_domains(op, C.type(), accum, t_type);
  core::check_mask(op, mask, C.nrows(), C.ncols(), d);
  const Index ar = ta ? A.ncols() : A.nrows(), ac = ta ? A.nrows() : A.ncols();
  if (vector) {
    core::check_dim(op, ac, "size(u)", C.ncols(), "size(w)");
  } else if (ar != C.nrows() || ac != C.ncols()) {
    throw Error(Info::DimensionMismatch, std::string(op) + ": C is " + core::dims_string(C.nrows(), C.ncols()) +
                                             " but A is " + core::dims_string(ar, ac) +
                                             " (after the descriptor's transpose)");
  }
}

// Whether C = op(C) can be offered to the backend's in-place form: the output is the input itself, with no
// mask, accumulator or transposition (then C is just replaced by the result; replace changes nothing), and
// no cast (A is the operator's input type `in`, its result type `out` is C's).
bool in_place(const Matrix& C, const Matrix* mask, const BinaryOp* accum, const Matrix& A, bool ta, const Type* in,
              const Type* out) {
  return &C == &A && mask == nullptr && accum == nullptr && !ta && A.type() == in && out == C.type();
}

// The input as the kernel sees it (transposed when the descriptor asks), not yet cast.
Operand input(const Matrix& A, bool ta) {
  Operand a(A);
  if (ta) a.transpose();
  return a;
}

// A copy of s cast to `type` (or s itself); EmptyObject when s has no value.
struct BoundScalar {
  const Scalar* ptr;
  std::unique_ptr<Scalar> owned;
};
void check_scalar_value(const char* op, const Scalar& s, const char* what) {
  if (!s.has_value())
    throw Error(Info::EmptyObject, std::string(op) + ": the " + what + " GrB_Scalar is empty (it must hold a value)");
}
BoundScalar scalar_as(const Scalar& s, const Type* type) {
  BoundScalar b{&s, nullptr};
  if (s.type() != type) {
    b.owned = std::make_unique<Scalar>(type);
    b.owned->set(s.data(), s.type());
    b.ptr = b.owned.get();
  }
  return b;
}

void apply_unary(Matrix& C, const Matrix* mask, const BinaryOp* accum, const UnaryOp& op, const Matrix& A,
                 bool ta, const Descriptor& d, bool vector) {
  const char* name = "apply";
  core::check_castable(op.xtype, A.type(), std::string(name) + ": the input to the operator's input");
  check_args(name, C, mask, accum, op.ztype, A, ta, d, vector);
  if (core::finish_if_all_masked_out(C, mask, accum, op.ztype, d)) return;
  if (in_place(C, mask, accum, A, ta, op.xtype, op.ztype) &&
      core::current_backend_object().apply_unary_in_place(C, op) == core::KernelStatus::Done)
    return;
  Operand a = input(A, ta);
  a.cast_to(op.xtype);
  core::Result T(op.ztype, C.nrows(), C.ncols(), C.is_vector());
  Matrix& t = T.get();
  core::dispatch("apply", [&](Backend& b) { return b.apply_unary(t, op, a.get()); });
  core::finish(C, mask, accum, T.take(), d);
}

void apply_bound(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op, const Scalar& s,
                 bool bind_first, const Matrix& A, bool ta, const Descriptor& d, bool vector) {
  const char* name = bind_first ? "apply_bind_first" : "apply_bind_second";
  std::string o(name);
  const Type* s_in = bind_first ? op.xtype : op.ytype;
  const Type* a_in = bind_first ? op.ytype : op.xtype;
  core::check_castable(s_in, s.type(), o + ": the bound scalar to the operator's " +
                                           (bind_first ? "first" : "second") + " input");
  core::check_castable(a_in, A.type(), o + ": the input to the operator's " +
                                           (bind_first ? "second" : "first") + " input");
  check_args(name, C, mask, accum, op.ztype, A, ta, d, vector);
  check_scalar_value(name, s, "bound");
  if (core::finish_if_all_masked_out(C, mask, accum, op.ztype, d)) return;
  BoundScalar bound = scalar_as(s, s_in);
  if (in_place(C, mask, accum, A, ta, a_in, op.ztype) &&
      core::current_backend_object().apply_bound_in_place(C, op, *bound.ptr, bind_first) == core::KernelStatus::Done)
    return;
  Operand a = input(A, ta);
  a.cast_to(a_in);
  core::Result T(op.ztype, C.nrows(), C.ncols(), C.is_vector());
  Matrix& t = T.get();
  core::dispatch("apply", [&](Backend& b) { return b.apply_bound(t, op, *bound.ptr, bind_first, a.get()); });
  core::finish(C, mask, accum, T.take(), d);
}

void check_index_op_domains(const char* name, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk) {
  std::string o(name);
  if (!op.positional() && op.xtype != nullptr)
    core::check_castable(op.xtype, A.type(), o + ": the input to the operator's input");
  core::check_castable(op.ytype, thunk.type(), o + ": the thunk to the operator's thunk input");
}

void apply_index(Matrix& C, const Matrix* mask, const BinaryOp* accum, const IndexUnaryOp& op, const Matrix& A,
                 const Scalar& thunk, bool ta, const Descriptor& d, bool vector) {
  const char* name = "apply";
  check_index_op_domains(name, op, A, thunk);
  check_args(name, C, mask, accum, op.ztype, A, ta, d, vector);
  check_scalar_value(name, thunk, "thunk");
  if (core::finish_if_all_masked_out(C, mask, accum, op.ztype, d)) return;
  Operand a = input(A, ta);
  BoundScalar y = scalar_as(thunk, op.ytype);
  if (!op.positional() && op.xtype != nullptr) a.cast_to(op.xtype);
  core::Result T(op.ztype, C.nrows(), C.ncols(), C.is_vector());
  Matrix& t = T.get();
  core::dispatch("apply", [&](Backend& b) { return b.apply_index(t, op, a.get(), *y.ptr); });
  core::finish(C, mask, accum, T.take(), d);
}

void select_entries(Matrix& C, const Matrix* mask, const BinaryOp* accum, const IndexUnaryOp& op,
                    const Matrix& A, const Scalar& thunk, bool ta, const Descriptor& d, bool vector) {
  const char* name = "select";
  check_index_op_domains(name, op, A, thunk);
  core::check_castable(&types::Bool, op.ztype, "select: the operator's output to bool");
  check_args(name, C, mask, accum, A.type(), A, ta, d, vector);
  check_scalar_value(name, thunk, "thunk");
  if (core::finish_if_all_masked_out(C, mask, accum, A.type(), d)) return;
  Operand a = input(A, ta);
  BoundScalar y = scalar_as(thunk, op.ytype);
  core::Result T(A.type(), C.nrows(), C.ncols(), C.is_vector());
  Matrix& t = T.get();
  const bool cast_needed = !op.positional() && op.xtype != nullptr && a.type() != op.xtype;
  if (!cast_needed) {
    core::dispatch("select", [&](Backend& b) { return b.select(t, op, a.get(), *y.ptr); });
  } else {
    Operand ax(a.get());
    ax.cast_to(op.xtype);
    core::Result S(op.xtype, C.nrows(), C.ncols(), C.is_vector());
    Matrix& s = S.get();
    core::dispatch("select", [&](Backend& b) { return b.select(s, op, ax.get(), *y.ptr); });
    // T = FIRST(A, S) on the intersection: A's own values at the kept positions.
    const BinaryOp* first = builtin_binary_op(BinaryOpcode::First, a.type()->code);
    Operand kept(s);
    kept.cast_to(a.type());
    core::MaskHint none;
    core::dispatch("ewise_mult", [&](Backend& b) { return b.ewise_mult(t, none, *first, a.get(), kept.get()); });
  }
  core::finish(C, mask, accum, T.take(), d);
}

}  // namespace

void apply(Matrix& C, const Matrix* mask, const BinaryOp* accum, const UnaryOp& op, const Matrix& A,
           const Descriptor& d) {
  apply_unary(C, mask, accum, op, A, d.transpose_first, d, false);
}
void apply(Vector& w, const Vector* mask, const BinaryOp* accum, const UnaryOp& op, const Vector& u,
           const Descriptor& d) {
  apply_unary(w.as_matrix(), core::mask_matrix(mask), accum, op, u.as_matrix(), false, d, true);
}

void apply_bind_first(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op, const Scalar& x,
                      const Matrix& A, const Descriptor& d) {
  // A is the operator's second input here, so GrB_INP1 transposes it (spec 2.0; SuiteSparse 7.4 agrees and
  // ignores GrB_INP0 for this form).
  apply_bound(C, mask, accum, op, x, true, A, d.transpose_second, d, false);
}
void apply_bind_second(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op,
                       const Matrix& A, const Scalar& y, const Descriptor& d) {
  apply_bound(C, mask, accum, op, y, false, A, d.transpose_first, d, false);
}
void apply_bind_first(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op, const Scalar& x,
                      const Vector& u, const Descriptor& d) {
  apply_bound(w.as_matrix(), core::mask_matrix(mask), accum, op, x, true, u.as_matrix(), false, d, true);
}
void apply_bind_second(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op,
                       const Vector& u, const Scalar& y, const Descriptor& d) {
  apply_bound(w.as_matrix(), core::mask_matrix(mask), accum, op, y, false, u.as_matrix(), false, d, true);
}

void apply(Matrix& C, const Matrix* mask, const BinaryOp* accum, const IndexUnaryOp& op, const Matrix& A,
           const Scalar& thunk, const Descriptor& d) {
  apply_index(C, mask, accum, op, A, thunk, d.transpose_first, d, false);
}
void apply(Vector& w, const Vector* mask, const BinaryOp* accum, const IndexUnaryOp& op, const Vector& u,
           const Scalar& thunk, const Descriptor& d) {
  apply_index(w.as_matrix(), core::mask_matrix(mask), accum, op, u.as_matrix(), thunk, false, d, true);
}

void select(Matrix& C, const Matrix* mask, const BinaryOp* accum, const IndexUnaryOp& op, const Matrix& A,
            const Scalar& thunk, const Descriptor& d) {
  select_entries(C, mask, accum, op, A, thunk, d.transpose_first, d, false);
}
void select(Vector& w, const Vector* mask, const BinaryOp* accum, const IndexUnaryOp& op, const Vector& u,
            const Scalar& thunk, const Descriptor& d) {
  select_entries(w.as_matrix(), core::mask_matrix(mask), accum, op, u.as_matrix(), thunk, false, d, true);
}

}  // namespace snk
