// tests/core/crossbackend/test_select.cpp: GrB_select on the backend under test against reference.
//
// Every predefined index-unary operator (positional ones on every input type, value comparisons on their own
// type and, through a typecast, on another type) on empty, 1 x 1, rectangular, full, vector and hypersparse
// inputs with thunks that keep some, all or none of the entries; the mask x accumulator x replace product;
// the descriptor's transpose; and outputs aliasing the input (C = select(C), C<C> = ...).
#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

struct SelectShape {
  Index m, n;
  double density;
  const char* what;
};

Scalar thunk_for(const IndexUnaryOp& op, Rng& rng) {
  return random_scalar(op.ytype, rng, op.positional() ? ValueRange{-4, 4, 0} : ValueRange{-3, 3, 0});
}

class Select : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(Select);

TEST_P(Select, EveryIndexUnaryOperator) {
  const std::vector<SelectShape> shapes{
      {0, 0, 0.5, "0x0"}, {0, 5, 0.5, "0x5"}, {1, 1, 1.0, "1x1"}, {7, 13, 0.5, "7x13"}, {9, 9, 1.0, "full 9x9"}};
  const ValueRange values = this->is_float() ? with_specials(0.1) : ValueRange{};
  for (const IndexUnaryOp* op : all_builtin_index_unary_ops()) {
    if (!op->positional() && op->xtype != this->type()) continue;
    for (const SelectShape& sh : shapes) {
      Matrix A = random_matrix(this->type(), sh.m, sh.n, sh.density, this->rng_, values);
      const Scalar y = thunk_for(*op, this->rng_);
      cross_check(op->name + " on " + this->type()->name + " " + sh.what, Matrix(this->type(), sh.m, sh.n),
                  [&](Matrix& C) { select(C, nullptr, nullptr, *op, A, y); });
    }
    Vector u = random_vector(this->type(), 19, 0.6, this->rng_, values);
    for (int k = 0; k < 3; ++k) {
      const Scalar y = thunk_for(*op, this->rng_);
      cross_check(op->name + " vector, thunk " + std::to_string(k), Vector(this->type(), 19),
                  [&](Vector& w) { select(w, nullptr, nullptr, *op, u, y); });
    }
    Matrix A = random_matrix(this->type(), 8, 6, 0.5, this->rng_, values);
    Matrix M = random_mask(6, 8, 0.6, this->rng_);
    const Scalar y = thunk_for(*op, this->rng_);
    Descriptor d = with_mask({}, MaskKind::Structural);
    d.transpose_first = true;
    cross_check(op->name + " C<M,struct> = select(A')", random_matrix(this->type(), 6, 8, 0.4, this->rng_),
                [&](Matrix& C) { select(C, &M, nullptr, *op, A, y, d); });
  }
}

// Value operators of another type than the input's: the input is cast for the test, but C keeps A's values.
TEST_P(Select, ValueOperatorsThroughACast) {
  Matrix A = random_matrix(this->type(), 10, 10, 0.6, this->rng_, ValueRange{-5, 5, 0});
  for (IndexUnaryOpcode opc : {IndexUnaryOpcode::ValueGt, IndexUnaryOpcode::ValueEq, IndexUnaryOpcode::ValueLe}) {
    for (TypeCode other : {TypeCode::FP64, TypeCode::Int8, TypeCode::Bool}) {
      const IndexUnaryOp* op = builtin_index_unary_op(opc, other);
      if (op == nullptr) continue;
      const Scalar y = scalar_of(op->ytype, other == TypeCode::Bool ? 1 : 0.5);
      cross_check(op->name + " on " + this->type()->name, Matrix(this->type(), 10, 10),
                  [&](Matrix& C) { select(C, nullptr, nullptr, *op, A, y); });
    }
  }
}

class SelectFixed : public CrossBackend {};

TEST_F(SelectFixed, MaskAccumReplaceProduct) {
  const IndexUnaryOp* tril = builtin_index_unary_op(IndexUnaryOpcode::Tril, TypeCode::Int64);
  const IndexUnaryOp* gt = builtin_index_unary_op(IndexUnaryOpcode::ValueGt, TypeCode::FP32);
  Matrix A = random_matrix(&types::FP32, 10, 9, 0.5, rng_);
  Matrix C0 = random_matrix(&types::FP32, 10, 9, 0.4, rng_);
  Matrix M = random_mask(10, 9, 0.5, rng_);
  Vector u = random_vector(&types::FP32, 14, 0.6, rng_), w0 = random_vector(&types::FP32, 14, 0.5, rng_);
  Vector m = random_mask_vector(14, 0.6, rng_);
  for (MaskKind mk : all_mask_kinds())
    for (AccumKind ak : all_accum_kinds())
      for (bool replace : {false, true}) {
        Descriptor d = with_mask({}, mk);
        d.replace = replace;
        const bool masked = mk != MaskKind::None;
        const BinaryOp* accum = accum_of(ak, TypeCode::FP32);
        const std::string what = describe(mk, ak, replace);
        cross_check("TRIL 0: " + what, C0,
                    [&](Matrix& C) { select(C, masked ? &M : nullptr, accum, *tril, A, scalar_of(&types::Int64, 0), d); });
        cross_check("VALUEGT 0.5: " + what, C0,
                    [&](Matrix& C) { select(C, masked ? &M : nullptr, accum, *gt, A, scalar_of(&types::FP32, 0.5), d); });
        cross_check("VALUEGT 0 (vectors): " + what, w0,
                    [&](Vector& w) { select(w, masked ? &m : nullptr, accum, *gt, u, scalar_of(&types::FP32, 0), d); });
      }
}

TEST_F(SelectFixed, AliasedOutputs) {
  Matrix C0 = random_matrix(&types::Int32, 12, 12, 0.5, rng_);
  Vector w0 = random_vector(&types::UInt16, 20, 0.6, rng_);
  const IndexUnaryOp* triu = builtin_index_unary_op(IndexUnaryOpcode::Triu, TypeCode::Int64);
  const IndexUnaryOp* ne = builtin_index_unary_op(IndexUnaryOpcode::ValueNe, TypeCode::Int32);
  const IndexUnaryOp* rowle = builtin_index_unary_op(IndexUnaryOpcode::RowLe, TypeCode::Int64);
  cross_check("C = triu(C, 1)", C0, [&](Matrix& C) { select(C, nullptr, nullptr, *triu, C, scalar_of(&types::Int64, 1)); });
  cross_check("C<C> -= (C' != 0)", C0, [&](Matrix& C) {
    Descriptor d;
    d.transpose_first = true;
    select(C, &C, builtin_binary_op(BinaryOpcode::Minus, TypeCode::Int32), *ne, C, scalar_of(&types::Int32, 0), d);
  });
  cross_check("w<!w,replace> = w(i <= 9)", w0, [&](Vector& w) {
    Descriptor d = with_mask({}, MaskKind::ValuedComplement);
    d.replace = true;
    select(w, &w, nullptr, *rowle, w, scalar_of(&types::Int64, 9), d);
  });
  cross_check("w = w(i <= 9)", w0, [&](Vector& w) { select(w, nullptr, nullptr, *rowle, w, scalar_of(&types::Int64, 9)); });
}

TEST_F(SelectFixed, Hypersparse) {
  const Index n = 1000000;
  for (TypeCode code : {TypeCode::FP64, TypeCode::Int64, TypeCode::Bool}) {
    const Type* t = builtin_type(code);
    Matrix A = sparse_matrix_with(t, n, n, 100, rng_);
    Matrix M = sparse_matrix_with(&types::Bool, n, n, 100, rng_);
    Matrix C0 = sparse_matrix_with(t, n, n, 40, rng_);
    const std::string tn = t->name + " hypersparse";
    for (IndexUnaryOpcode opc : {IndexUnaryOpcode::Tril, IndexUnaryOpcode::Offdiag, IndexUnaryOpcode::ColGt,
                                 IndexUnaryOpcode::RowLe}) {
      const IndexUnaryOp* op = builtin_index_unary_op(opc, TypeCode::Int64);
      cross_check(tn + " " + op->name, Matrix(t, n, n),
                  [&](Matrix& C) { select(C, nullptr, nullptr, *op, A, scalar_of(&types::Int64, 500000)); });
    }
    const IndexUnaryOp* ne = builtin_index_unary_op(IndexUnaryOpcode::ValueNe, code);
    cross_check(tn + " C<M> += (A != 0)", C0, [&](Matrix& C) {
      select(C, &M, builtin_binary_op(BinaryOpcode::Plus, code), *ne, A, scalar_of(t, 0));
    });
    Descriptor d = with_mask({}, MaskKind::StructuralComplement);
    d.transpose_first = true;
    cross_check(tn + " C<!M,struct> = tril(A', 0)", C0, [&](Matrix& C) {
      select(C, &M, nullptr, *builtin_index_unary_op(IndexUnaryOpcode::Tril, TypeCode::Int64), A,
             scalar_of(&types::Int64, 0), d);
    });
    Vector u = sparse_vector_with(t, n, 100, rng_);
    cross_check(tn + " vector of 10^6, ROWGT 500000", Vector(t, n), [&](Vector& w) {
      select(w, nullptr, nullptr, *builtin_index_unary_op(IndexUnaryOpcode::RowGt, TypeCode::Int64), u,
             scalar_of(&types::Int64, 500000));
    });
  }
}

// The large size class (kLargeRows rows), so that the kokkos kernels run on several threads.
TEST_F(SelectFixed, LargeParallel) {
  for (TypeCode code : {TypeCode::FP64, TypeCode::UInt16, TypeCode::Bool}) {
    const Type* t = builtin_type(code);
    Matrix A = random_matrix(t, kLargeRows, 40, 0.2, rng_, with_specials());
    Vector u = random_vector(t, 50000, 0.3, rng_, with_specials());
    for (IndexUnaryOpcode opc : {IndexUnaryOpcode::Tril, IndexUnaryOpcode::ColGt, IndexUnaryOpcode::RowLe}) {
      const IndexUnaryOp* op = builtin_index_unary_op(opc, TypeCode::Int64);
      cross_check(t->name + " large " + op->name, Matrix(t, kLargeRows, 40),
                  [&](Matrix& C) { select(C, nullptr, nullptr, *op, A, scalar_of(&types::Int64, 20)); });
    }
    const IndexUnaryOp* gt = builtin_index_unary_op(IndexUnaryOpcode::ValueGt, code);
    cross_check(t->name + " large VALUEGT 0", Matrix(t, kLargeRows, 40),
                [&](Matrix& C) { select(C, nullptr, nullptr, *gt, A, scalar_of(t, 0)); });
    cross_check(t->name + " large vector VALUEGT 0", Vector(t, 50000),
                [&](Vector& w) { select(w, nullptr, nullptr, *gt, u, scalar_of(t, 0)); });
    Matrix M = random_mask(kLargeRows, 40, 0.3, rng_);
    cross_check(t->name + " large C<M> = A(VALUEGT 0)", Matrix(t, kLargeRows, 40),
                [&](Matrix& C) { select(C, &M, nullptr, *gt, A, scalar_of(t, 0)); });
  }
}

}  // namespace
}  // namespace xb
