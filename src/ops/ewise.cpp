// src/ops/ewise.cpp: the element-wise front-ends GrB_eWiseAdd and GrB_eWiseMult, matrix and vector
// (C API spec 2.0, 4.3.4-5), with a binary operator (the monoid and semiring forms are resolved to it by
// the caller: monoid->op or semiring->add->op for eWiseAdd, semiring->multiply for eWiseMult).
//
// Domains as the spec lists them: A to op's first input, B to its second, T = op's output to C; for
// eWiseAdd also A's and B's types to op's output, since an entry present in only one input is copied to T
// (cast to op's output type). Descriptor transposes are applied to the inputs first (matrix forms). The
// mask goes to the kernel as a hint.
#include "ops/common.hpp"

namespace snk {
namespace {

using core::Backend;
using core::Operand;

enum class Kind { Add, Mult };

void ewise(Kind kind, Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op, const Matrix& A,
           bool ta, const Matrix& B, bool tb, const Descriptor& d, bool vector) {
  const char* name = kind == Kind::Add ? "ewise_add" : "ewise_mult";
  std::string o(name);
  const char* a_name = vector ? "u" : "A";
  const char* b_name = vector ? "v" : "B";
  core::check_castable(op.xtype, A.type(), o + ": " + a_name + " to the operator's first input");
  core::check_castable(op.ytype, B.type(), o + ": " + b_name + " to the operator's second input");
  if (kind == Kind::Add) {
    core::check_castable(op.ztype, A.type(), o + ": " + a_name + " to the operator's output (eWiseAdd copies "
                                                 "entries present in one input only)");
    core::check_castable(op.ztype, B.type(), o + ": " + b_name + " to the operator's output (eWiseAdd copies "
                                                 "entries present in one input only)");
  }
  core::check_output_domains(name, C.type(), accum, op.ztype);
  core::check_mask(name, mask, C.nrows(), C.ncols(), d);
  const Index ar = ta ? A.ncols() : A.nrows(), ac = ta ? A.nrows() : A.ncols();
  const Index br = tb ? B.ncols() : B.nrows(), bc = tb ? B.nrows() : B.ncols();
  if (vector) {
    core::check_dim(name, ac, "size(u)", C.ncols(), "size(w)");
    core::check_dim(name, bc, "size(v)", C.ncols(), "size(w)");
  } else if (ar != C.nrows() || ac != C.ncols() || br != C.nrows() || bc != C.ncols()) {
    throw Error(Info::DimensionMismatch,
                o + ": C is " + core::dims_string(C.nrows(), C.ncols()) + ", A is " + core::dims_string(ar, ac) +
                    " and B is " + core::dims_string(br, bc) +
                    " (after the descriptor's transposes); all three must be equal");
  }

  if (core::finish_if_all_masked_out(C, mask, accum, op.ztype, d)) return;
  Operand a(A), b(B);
  if (ta) a.transpose();
  if (tb) b.transpose();
  core::MaskHint hint{mask, d.mask_structure, d.mask_complement};
  core::Result T(op.ztype, C.nrows(), C.ncols(), C.is_vector());
  Matrix& t = T.get();
  // eWiseAdd copies an entry present in one input only to T cast straight from the input's type to op's
  // output (spec: t = u(i)). The kernel receives inputs already cast to op's input types, so when a
  // cast A -> xtype -> ztype could differ from A -> ztype (both casts happen and x != z), T is formed in
  // three steps instead: U = union of the inputs cast to ztype (values of no importance where both
  // exist), X = intersection through op, T = U overlaid with X.
  const bool two_casts = kind == Kind::Add && ((a.type() != op.xtype && op.xtype != op.ztype) ||
                                               (b.type() != op.ytype && op.ytype != op.ztype));
  if (two_casts) {
    const BinaryOp* second = builtin_binary_op(BinaryOpcode::Second, op.ztype->code);
    Operand az(a.get()), bz(b.get());
    az.cast_to(op.ztype);
    bz.cast_to(op.ztype);
    core::Result U(op.ztype, C.nrows(), C.ncols(), C.is_vector());
    Matrix& u = U.get();
    core::dispatch("ewise_add", [&](Backend& be) { return be.ewise_add(u, hint, *second, az.get(), bz.get()); });
    a.cast_to(op.xtype);
    b.cast_to(op.ytype);
    core::Result X(op.ztype, C.nrows(), C.ncols(), C.is_vector());
    Matrix& x = X.get();
    core::dispatch("ewise_mult", [&](Backend& be) { return be.ewise_mult(x, hint, op, a.get(), b.get()); });
    core::dispatch("ewise_add", [&](Backend& be) { return be.ewise_add(t, hint, *second, u, x); });
  } else {
    a.cast_to(op.xtype);
    b.cast_to(op.ytype);
    if (kind == Kind::Add)
      core::dispatch("ewise_add", [&](Backend& be) { return be.ewise_add(t, hint, op, a.get(), b.get()); });
    else
      core::dispatch("ewise_mult", [&](Backend& be) { return be.ewise_mult(t, hint, op, a.get(), b.get()); });
  }
  core::finish(C, mask, accum, T.take(), d);
}

}  // namespace

void ewise_add(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op, const Matrix& A,
               const Matrix& B, const Descriptor& d) {
  ewise(Kind::Add, C, mask, accum, op, A, d.transpose_first, B, d.transpose_second, d, false);
}

void ewise_add(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op, const Vector& u,
               const Vector& v, const Descriptor& d) {
  ewise(Kind::Add, w.as_matrix(), core::mask_matrix(mask), accum, op, u.as_matrix(), false, v.as_matrix(),
        false, d, true);
}

void ewise_mult(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op, const Matrix& A,
                const Matrix& B, const Descriptor& d) {
  ewise(Kind::Mult, C, mask, accum, op, A, d.transpose_first, B, d.transpose_second, d, false);
}

void ewise_mult(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op, const Vector& u,
                const Vector& v, const Descriptor& d) {
  ewise(Kind::Mult, w.as_matrix(), core::mask_matrix(mask), accum, op, u.as_matrix(), false, v.as_matrix(),
        false, d, true);
}

}  // namespace snk
