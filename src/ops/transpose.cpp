// src/ops/transpose.cpp: the front-ends of GrB_transpose (C API spec 2.0, 4.3.11) and GrB_kronecker (4.3.12).
//
// GrB_transpose computes C<M> = C (.) A^T; with GrB_INP0 = GrB_TRAN the input is transposed twice, so
// T = A (a copy; no kernel runs). GrB_kronecker computes C<M> = C (.) kron(A', B') with op, where A' and B'
// are the inputs transposed by GrB_INP0 / GrB_INP1 (applied first, through the transpose kernel); the
// output's dimensions must be the products (a product past the largest dimension is a dimension mismatch).
#include "ops/common.hpp"

namespace snk {

using core::Backend;
using core::Operand;

void transpose(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Matrix& A, const Descriptor& d) {
  const char* op = "transpose";
  core::check_output_domains(op, C.type(), accum, A.type());
  core::check_mask(op, mask, C.nrows(), C.ncols(), d);
  const Index tr = d.transpose_first ? A.nrows() : A.ncols();
  const Index tc = d.transpose_first ? A.ncols() : A.nrows();
  if (C.nrows() != tr || C.ncols() != tc)
    throw Error(Info::DimensionMismatch, std::string(op) + ": C is " + core::dims_string(C.nrows(), C.ncols()) +
                                             " but the result is " + core::dims_string(tr, tc) + " (A is " +
                                             core::dims_string(A.nrows(), A.ncols()) +
                                             (d.transpose_first ? ", transposed twice by GrB_INP0)" : ")"));
  if (core::finish_if_all_masked_out(C, mask, accum, A.type(), d)) return;
  if (d.transpose_first) {
    core::finish(C, mask, accum, Matrix(A), d);
    return;
  }
  core::finish(C, mask, accum, core::transposed(A), d);
}

void kronecker(Matrix& C, const Matrix* mask, const BinaryOp* accum, const BinaryOp& op, const Matrix& A,
               const Matrix& B, const Descriptor& d) {
  const char* name = "kronecker";
  std::string o(name);
  core::check_castable(op.xtype, A.type(), o + ": A to the operator's first input");
  core::check_castable(op.ytype, B.type(), o + ": B to the operator's second input");
  core::check_output_domains(name, C.type(), accum, op.ztype);
  core::check_mask(name, mask, C.nrows(), C.ncols(), d);
  const Index ar = d.transpose_first ? A.ncols() : A.nrows(), ac = d.transpose_first ? A.nrows() : A.ncols();
  const Index br = d.transpose_second ? B.ncols() : B.nrows(), bc = d.transpose_second ? B.nrows() : B.ncols();
  auto product_fits = [](Index x, Index y, Index want) {
    // x * y == want, without overflow (every dimension is <= kIndexMax = 2^60)
    if (x == 0 || y == 0) return want == 0;
    return want % x == 0 && want / x == y;
  };
  if (!product_fits(ar, br, C.nrows()) || !product_fits(ac, bc, C.ncols()))
    throw Error(Info::DimensionMismatch,
                o + ": C is " + core::dims_string(C.nrows(), C.ncols()) + " but kron(A, B) of A " +
                    core::dims_string(ar, ac) + " and B " + core::dims_string(br, bc) +
                    " (after the descriptor's transposes) has the products of their dimensions");
  if (core::finish_if_all_masked_out(C, mask, accum, op.ztype, d)) return;
  Operand a(A), b(B);
  if (d.transpose_first) a.transpose();
  if (d.transpose_second) b.transpose();
  a.cast_to(op.xtype);
  b.cast_to(op.ytype);
  Matrix T(op.ztype, C.nrows(), C.ncols());
  core::dispatch("kronecker", [&](Backend& be) { return be.kronecker(T, op, a.get(), b.get()); });
  core::finish(C, mask, accum, std::move(T), d);
}

}  // namespace snk
