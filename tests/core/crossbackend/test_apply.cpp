// tests/core/crossbackend/test_apply.cpp: GrB_apply on the backend under test against reference, in its three
// forms: a unary operator; a binary operator with a bound first or second scalar; an index-unary operator.
//
// Every predefined unary, binary and index-unary operator of every type (positional index-unary operators
// on every input type) on empty, 1 x 1, rectangular, full, vector and hypersparse inputs, with IEEE special
// values in floating inputs and bound scalars (including zero, for the integer division rules); the mask x
// accumulator x replace product on one operator of each form; the descriptor's transpose; and outputs
// aliasing the input (C = op(C) runs the backend's in-place form where it has one).
#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

struct ApplyShape {
  Index m, n;
  double density;
  const char* what;
};

const std::vector<ApplyShape>& apply_shapes() {
  static const std::vector<ApplyShape> shapes{
      {0, 0, 0.5, "0x0"}, {4, 0, 0.5, "4x0"}, {1, 1, 1.0, "1x1"}, {7, 13, 0.4, "7x13"}, {6, 6, 1.0, "full 6x6"}};
  return shapes;
}

// A thunk for an index-unary operator: small offsets for the positional ones, a value of the input's range
// for the value comparisons.
Scalar thunk_for(const IndexUnaryOp& op, Rng& rng) {
  return random_scalar(op.ytype, rng, op.positional() ? ValueRange{-4, 4, 0} : ValueRange{-3, 3, 0});
}

class Apply : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(Apply);

TEST_P(Apply, EveryUnaryOperator) {
  const ValueRange values = this->is_float() ? with_specials(0.1) : ValueRange{};
  int count = 0;
  for (const UnaryOp* op : all_builtin_unary_ops()) {
    if (op->xtype != this->type()) continue;
    ++count;
    for (const ApplyShape& sh : apply_shapes()) {
      Matrix A = random_matrix(this->type(), sh.m, sh.n, sh.density, this->rng_, values);
      cross_check(op->name + " " + sh.what, Matrix(op->ztype, sh.m, sh.n),
                  [&](Matrix& C) { apply(C, nullptr, nullptr, *op, A); });
    }
    Vector u = random_vector(this->type(), 17, 0.5, this->rng_, values);
    cross_check(op->name + " vector", Vector(op->ztype, 17), [&](Vector& w) { apply(w, nullptr, nullptr, *op, u); });
    // C = op(C): in place on a backend that has the in-place form (when op keeps the type)
    cross_check(op->name + " C = op(C)", random_matrix(this->type(), 9, 12, 0.4, this->rng_, values),
                [&](Matrix& C) { apply(C, nullptr, nullptr, *op, C); });
    cross_check(op->name + " w = op(w)", u, [&](Vector& w) { apply(w, nullptr, nullptr, *op, w); });
    Matrix A = random_matrix(this->type(), 5, 8, 0.5, this->rng_, values);
    Matrix M = random_mask(8, 5, 0.5, this->rng_);
    Descriptor d = with_mask({}, MaskKind::Valued);
    d.transpose_first = true;
    cross_check(op->name + " C<M> += A'", random_matrix(op->ztype, 8, 5, 0.5, this->rng_),
                [&](Matrix& C) { apply(C, &M, builtin_binary_op(BinaryOpcode::Plus, op->ztype->code), *op, A, d); });
  }
  EXPECT_GT(count, 0);
}

TEST_P(Apply, EveryBinaryOperatorBound) {
  const ValueRange values = this->is_float() ? with_specials(0.1) : ValueRange{};
  for (const BinaryOp* op : all_builtin_binary_ops()) {
    if (op->xtype != this->type()) continue;
    Matrix A = random_matrix(this->type(), 7, 13, 0.4, this->rng_, values);
    Vector u = random_vector(this->type(), 17, 0.5, this->rng_, values);
    for (int trial = 0; trial < 2; ++trial) {
      // the first trial binds zero (integer division by zero, 0 * Inf, ...), the second a random value
      const Scalar s = trial == 0 ? scalar_of(this->type(), 0) : random_scalar(this->type(), this->rng_, values);
      const std::string n = op->name + (trial == 0 ? " with 0" : " with a random scalar");
      cross_check(n + " bound first", Matrix(op->ztype, 7, 13),
                  [&](Matrix& C) { apply_bind_first(C, nullptr, nullptr, *op, s, A); });
      cross_check(n + " bound second", Matrix(op->ztype, 7, 13),
                  [&](Matrix& C) { apply_bind_second(C, nullptr, nullptr, *op, A, s); });
      cross_check(n + " bound first, vector", Vector(op->ztype, 17),
                  [&](Vector& w) { apply_bind_first(w, nullptr, nullptr, *op, s, u); });
      cross_check(n + " bound second, vector", Vector(op->ztype, 17),
                  [&](Vector& w) { apply_bind_second(w, nullptr, nullptr, *op, u, s); });
      // C = op(s, C) and C = op(C, s): in place on a backend that has the in-place form
      cross_check(n + " C = op(s, C)", A, [&](Matrix& C) { apply_bind_first(C, nullptr, nullptr, *op, s, C); });
      cross_check(n + " C = op(C, s)", A, [&](Matrix& C) { apply_bind_second(C, nullptr, nullptr, *op, C, s); });
      cross_check(n + " w = op(w, s)", u, [&](Vector& w) { apply_bind_second(w, nullptr, nullptr, *op, w, s); });
    }
    // a bound scalar of another type (cast to the operator's input), and the transposed input: for
    // bind-first the input is the operator's second one, so GrB_INP1 transposes it
    const Scalar s64 = scalar_of(&types::FP64, 2.5);
    Matrix At = random_matrix(this->type(), 13, 7, 0.4, this->rng_, values);
    Descriptor d1, d0;
    d1.transpose_second = true;
    d0.transpose_first = true;
    cross_check(op->name + " FP64 scalar bound first, A'", Matrix(op->ztype, 7, 13),
                [&](Matrix& C) { apply_bind_first(C, nullptr, nullptr, *op, s64, At, d1); });
    cross_check(op->name + " FP64 scalar bound second, A'", Matrix(op->ztype, 7, 13),
                [&](Matrix& C) { apply_bind_second(C, nullptr, nullptr, *op, At, s64, d0); });
  }
}

TEST_P(Apply, EveryIndexUnaryOperator) {
  const ValueRange values = this->is_float() ? with_specials(0.1) : ValueRange{};
  for (const IndexUnaryOp* op : all_builtin_index_unary_ops()) {
    if (!op->positional() && op->xtype != this->type()) continue;
    for (const ApplyShape& sh : apply_shapes()) {
      Matrix A = random_matrix(this->type(), sh.m, sh.n, sh.density, this->rng_, values);
      const Scalar y = thunk_for(*op, this->rng_);
      cross_check(op->name + " on " + this->type()->name + " " + sh.what, Matrix(op->ztype, sh.m, sh.n),
                  [&](Matrix& C) { apply(C, nullptr, nullptr, *op, A, y); });
    }
    Vector u = random_vector(this->type(), 17, 0.5, this->rng_, values);
    const Scalar y = thunk_for(*op, this->rng_);
    cross_check(op->name + " on " + this->type()->name + " vector", Vector(op->ztype, 17),
                [&](Vector& w) { apply(w, nullptr, nullptr, *op, u, y); });
    Matrix A = random_matrix(this->type(), 9, 6, 0.5, this->rng_, values);
    Descriptor d;
    d.transpose_first = true;
    cross_check(op->name + " on " + this->type()->name + " A'", Matrix(op->ztype, 6, 9),
                [&](Matrix& C) { apply(C, nullptr, nullptr, *op, A, y, d); });
  }
}

class ApplyFixed : public CrossBackend {};

TEST_F(ApplyFixed, MaskAccumReplaceProduct) {
  const UnaryOp* ainv = builtin_unary_op(UnaryOpcode::AInv, TypeCode::FP64);
  const BinaryOp* minus = builtin_binary_op(BinaryOpcode::Minus, TypeCode::Int32);
  const IndexUnaryOp* rowindex = builtin_index_unary_op(IndexUnaryOpcode::RowIndex, TypeCode::Int64);
  Matrix A = random_matrix(&types::FP64, 9, 10, 0.5, rng_);
  Matrix Ai = random_matrix(&types::Int32, 9, 10, 0.5, rng_);
  Matrix C0 = random_matrix(&types::FP64, 9, 10, 0.4, rng_);
  Matrix Ci = random_matrix(&types::Int32, 9, 10, 0.4, rng_);
  Matrix M = random_mask(9, 10, 0.5, rng_);
  const Scalar three = scalar_of(&types::Int32, 3), one = scalar_of(&types::Int64, 1);
  for (MaskKind mk : all_mask_kinds())
    for (AccumKind ak : all_accum_kinds())
      for (bool replace : {false, true}) {
        Descriptor d = with_mask({}, mk);
        d.replace = replace;
        const Matrix* mask = mk == MaskKind::None ? nullptr : &M;
        const std::string what = describe(mk, ak, replace);
        cross_check("AINV_FP64: " + what, C0, [&](Matrix& C) { apply(C, mask, accum_of(ak, TypeCode::FP64), *ainv, A, d); });
        cross_check("MINUS_INT32(A, 3): " + what, Ci,
                    [&](Matrix& C) { apply_bind_second(C, mask, accum_of(ak, TypeCode::Int32), *minus, Ai, three, d); });
        cross_check("ROWINDEX_INT64(A, 1): " + what, Ci,
                    [&](Matrix& C) { apply(C, mask, accum_of(ak, TypeCode::Int32), *rowindex, A, one, d); });
      }
}

TEST_F(ApplyFixed, AliasedOutputs) {
  Matrix C0 = random_matrix(&types::Int16, 11, 11, 0.5, rng_);
  Vector w0 = random_vector(&types::FP32, 20, 0.5, rng_);
  const UnaryOp* abs16 = builtin_unary_op(UnaryOpcode::Abs, TypeCode::Int16);
  const BinaryOp* div16 = builtin_binary_op(BinaryOpcode::Div, TypeCode::Int16);
  const BinaryOp* minus16 = builtin_binary_op(BinaryOpcode::Minus, TypeCode::Int16);
  const IndexUnaryOp* diag = builtin_index_unary_op(IndexUnaryOpcode::DiagIndex, TypeCode::Int32);
  cross_check("C = abs(C)", C0, [&](Matrix& C) { apply(C, nullptr, nullptr, *abs16, C); });
  cross_check("C<C> -= abs(C')", C0, [&](Matrix& C) {
    Descriptor d;
    d.transpose_first = true;
    apply(C, &C, minus16, *abs16, C, d);
  });
  cross_check("C = 7 / C", C0, [&](Matrix& C) { apply_bind_first(C, nullptr, nullptr, *div16, scalar_of(&types::Int16, 7), C); });
  cross_check("C<!C,struct,replace> = DIAGINDEX(C, 2)", C0, [&](Matrix& C) {
    Descriptor d = with_mask({}, MaskKind::StructuralComplement);
    d.replace = true;
    apply(C, &C, nullptr, *diag, C, scalar_of(&types::Int32, 2), d);
  });
  const BinaryOp* times32 = builtin_binary_op(BinaryOpcode::Times, TypeCode::FP32);
  cross_check("w = w * 1.5", w0, [&](Vector& w) { apply_bind_second(w, nullptr, nullptr, *times32, w, scalar_of(&types::FP32, 1.5)); });
  cross_check("w<w> += minv(w)", w0, [&](Vector& w) {
    apply(w, &w, times32, *builtin_unary_op(UnaryOpcode::MInv, TypeCode::FP32), w);
  });
}

TEST_F(ApplyFixed, Hypersparse) {
  const Index n = 1000000;
  for (TypeCode code : {TypeCode::FP64, TypeCode::UInt32, TypeCode::Int8}) {
    const Type* t = builtin_type(code);
    Matrix A = sparse_matrix_with(t, n, n, 100, rng_);
    Matrix M = sparse_matrix_with(&types::Bool, n, n, 100, rng_);
    Matrix C0 = sparse_matrix_with(t, n, n, 50, rng_);
    Descriptor tr;
    tr.transpose_first = true;
    const std::string tn = t->name + " hypersparse";
    cross_check(tn + " AINV", Matrix(t, n, n), [&](Matrix& C) { apply(C, nullptr, nullptr, *builtin_unary_op(UnaryOpcode::AInv, code), A); });
    cross_check(tn + " AINV of A'", Matrix(t, n, n), [&](Matrix& C) { apply(C, nullptr, nullptr, *builtin_unary_op(UnaryOpcode::AInv, code), A, tr); });
    cross_check(tn + " C<!M> += 2*A", C0, [&](Matrix& C) {
      apply_bind_first(C, &M, builtin_binary_op(BinaryOpcode::Plus, code), *builtin_binary_op(BinaryOpcode::Times, code),
                       scalar_of(t, 2), A, with_mask({}, MaskKind::ValuedComplement));
    });
    cross_check(tn + " COLINDEX_INT64", Matrix(&types::Int64, n, n), [&](Matrix& C) {
      apply(C, nullptr, nullptr, *builtin_index_unary_op(IndexUnaryOpcode::ColIndex, TypeCode::Int64), A,
            scalar_of(&types::Int64, -5));
    });
    Vector u = sparse_vector_with(t, n, 100, rng_);
    cross_check(tn + " ROWINDEX on a vector of 10^6", Vector(&types::Int64, n), [&](Vector& w) {
      apply(w, nullptr, nullptr, *builtin_index_unary_op(IndexUnaryOpcode::RowIndex, TypeCode::Int64), u,
            scalar_of(&types::Int64, 3));
    });
  }
}

// The large size class (kLargeRows rows), so that the kokkos kernels run on several threads.
TEST_F(ApplyFixed, LargeParallel) {
  for (TypeCode code : {TypeCode::FP32, TypeCode::Int64, TypeCode::Bool}) {
    const Type* t = builtin_type(code);
    Matrix A = random_matrix(t, kLargeRows, 40, 0.2, rng_, with_specials());
    Vector u = random_vector(t, 50000, 0.3, rng_, with_specials());
    const UnaryOp* unary = builtin_unary_op(code == TypeCode::Bool ? UnaryOpcode::LNot : UnaryOpcode::AInv, code);
    const BinaryOp* binary = builtin_binary_op(code == TypeCode::Bool ? BinaryOpcode::LOr : BinaryOpcode::Minus, code);
    const IndexUnaryOp* index = builtin_index_unary_op(IndexUnaryOpcode::DiagIndex, TypeCode::Int64);
    const std::string n = t->name + " large ";
    cross_check(n + unary->name, Matrix(t, kLargeRows, 40), [&](Matrix& C) { apply(C, nullptr, nullptr, *unary, A); });
    cross_check(n + unary->name + " of A'", Matrix(t, 40, kLargeRows), [&](Matrix& C) {
      Descriptor d;
      d.transpose_first = true;
      apply(C, nullptr, nullptr, *unary, A, d);
    });
    cross_check(n + binary->name + "(1, A)", Matrix(t, kLargeRows, 40),
                [&](Matrix& C) { apply_bind_first(C, nullptr, nullptr, *binary, scalar_of(t, 1), A); });
    cross_check(n + binary->name + "(u, 1)", Vector(t, 50000),
                [&](Vector& w) { apply_bind_second(w, nullptr, nullptr, *binary, u, scalar_of(t, 1)); });
    cross_check(n + index->name, Matrix(&types::Int64, kLargeRows, 40),
                [&](Matrix& C) { apply(C, nullptr, nullptr, *index, A, scalar_of(&types::Int64, -3)); });
  }
}

}  // namespace
}  // namespace xb
