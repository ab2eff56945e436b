// tests/core/crossbackend/test_kronecker.cpp: GrB_kronecker on the backend under test against reference.
//
// Every predefined binary operator of every type (the monoid and semiring forms of the spec resolve to one)
// on empty, 1 x 1, rectangular and full operands; transposed inputs; the mask x accumulator x replace
// product on one operator; operands with a hypersparse result (10^3 x 10^3 with 10^3 x 10^3 gives
// 10^6 x 10^6); and outputs aliasing an input. (The kokkos backend declines kronecker: these cases check the
// front-end and the mask step around reference's kernel.)
#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

class Kronecker : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(Kronecker);

TEST_P(Kronecker, EveryOperator) {
  struct Shape {
    Index am, an, bm, bn;
    double density;
    const char* what;
  };
  const std::vector<Shape> shapes{{0, 0, 3, 2, 0.5, "0x0 (x) 3x2"}, {1, 1, 1, 1, 1.0, "1x1 (x) 1x1"},
                                  {3, 4, 5, 2, 0.5, "3x4 (x) 5x2"}, {3, 3, 2, 2, 1.0, "full 3x3 (x) full 2x2"}};
  const ValueRange values = this->is_float() ? with_specials(0.05) : ValueRange{};
  for (const BinaryOp* op : all_builtin_binary_ops()) {
    if (op->xtype != this->type()) continue;
    for (const Shape& sh : shapes) {
      Matrix A = random_matrix(this->type(), sh.am, sh.an, sh.density, this->rng_, values);
      Matrix B = random_matrix(this->type(), sh.bm, sh.bn, sh.density, this->rng_, values);
      cross_check(op->name + " " + sh.what, Matrix(op->ztype, sh.am * sh.bm, sh.an * sh.bn),
                  [&](Matrix& C) { kronecker(C, nullptr, nullptr, *op, A, B); });
    }
    Matrix A = random_matrix(this->type(), 4, 3, 0.5, this->rng_, values);
    Matrix B = random_matrix(this->type(), 2, 3, 0.5, this->rng_, values);
    Matrix M = random_mask(6, 9, 0.5, this->rng_);
    Descriptor d = with_mask({}, MaskKind::Valued);
    d.transpose_first = d.transpose_second = true;
    cross_check(op->name + " C<M> += A' (x) B'", random_matrix(op->ztype, 6, 9, 0.4, this->rng_), [&](Matrix& C) {
      kronecker(C, &M, builtin_binary_op(BinaryOpcode::Plus, op->ztype->code), *op, A, B, d);
    });
  }
}

class KroneckerFixed : public CrossBackend {};

TEST_F(KroneckerFixed, MaskAccumReplaceProduct) {
  const BinaryOp* times = builtin_binary_op(BinaryOpcode::Times, TypeCode::Int64);
  Matrix A = random_matrix(&types::Int64, 3, 4, 0.6, rng_);
  Matrix B = random_matrix(&types::Int64, 4, 3, 0.6, rng_);
  Matrix C0 = random_matrix(&types::Int64, 12, 12, 0.3, rng_);
  Matrix M = random_mask(12, 12, 0.5, rng_);
  for (MaskKind mk : all_mask_kinds())
    for (AccumKind ak : all_accum_kinds())
      for (bool replace : {false, true}) {
        Descriptor d = with_mask({}, mk);
        d.replace = replace;
        cross_check("TIMES_INT64: " + describe(mk, ak, replace), C0, [&](Matrix& C) {
          kronecker(C, mk == MaskKind::None ? nullptr : &M, accum_of(ak, TypeCode::Int64), *times, A, B, d);
        });
      }
}

TEST_F(KroneckerFixed, HypersparseResultAndAliasing) {
  const BinaryOp* plus = builtin_binary_op(BinaryOpcode::Plus, TypeCode::FP64);
  Matrix A = sparse_matrix_with(&types::FP64, 1000, 1000, 10, rng_);
  Matrix B = sparse_matrix_with(&types::FP64, 1000, 1000, 10, rng_);
  cross_check("(10^3 x 10^3, 10 entries) (x) (10^3 x 10^3, 10 entries)", Matrix(&types::FP64, 1000000, 1000000),
              [&](Matrix& C) { kronecker(C, nullptr, nullptr, *plus, A, B); });
  Matrix C0 = random_matrix(&types::FP64, 4, 4, 0.5, rng_);
  Matrix S = random_matrix(&types::FP64, 2, 2, 0.7, rng_);
  Matrix One = random_matrix(&types::FP64, 1, 1, 1.0, rng_);
  cross_check("C = C (x) 1x1", C0, [&](Matrix& C) { kronecker(C, nullptr, nullptr, *plus, C, One); });
  cross_check("C<C> -= 1x1 (x) C'", C0, [&](Matrix& C) {
    Descriptor d;
    d.transpose_second = true;
    kronecker(C, &C, builtin_binary_op(BinaryOpcode::Minus, TypeCode::FP64), *plus, One, C, d);
  });
  Matrix D0 = random_matrix(&types::FP64, 4, 4, 0.5, rng_);
  cross_check("C = S (x) S with C 4x4", D0, [&](Matrix& C) { kronecker(C, nullptr, nullptr, *plus, S, S); });
}

}  // namespace
}  // namespace xb
