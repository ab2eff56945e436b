// tests/core/crossbackend/ewise_cases.hpp: the cases shared by GrB_eWiseAdd (test_ewise_add.cpp) and
// GrB_eWiseMult (test_ewise_mult.cpp), which differ only in the operation called.
//
// The including source defines `Ewise`, a struct with static matrix(...) and vector(...) calling the
// operation and a static `name`, then includes this file once. Cases: every predefined binary operator of
// every type (including the comparison operators with a BOOL output, and the operators of every monoid and
// semiring, which the spec's monoid and semiring forms of the operation resolve to) on empty, 1 x 1,
// rectangular, full and vector shapes with IEEE special values in floating inputs; transposed inputs; the
// mask x accumulator x replace product on a few operators; outputs aliasing inputs; hypersparse
// 10^6 x 10^6 operands; and inputs of other types than the operator's (the one-sided cast rule of eWiseAdd).
#pragma once

#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

std::vector<const BinaryOp*> binary_ops_of(TypeCode code) {
  std::vector<const BinaryOp*> out;
  for (const BinaryOp* op : all_builtin_binary_ops())
    if (op->xtype->code == code) out.push_back(op);
  return out;
}

struct EwiseShape {
  Index m, n;
  double density;
  const char* what;
};

class EwiseTyped : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(EwiseTyped);

TEST_P(EwiseTyped, EveryOperatorEveryShape) {
  const std::vector<EwiseShape> shapes{
      {0, 0, 0.5, "0x0"}, {0, 7, 0.5, "0x7"}, {1, 1, 1.0, "1x1"}, {7, 13, 0.4, "7x13"}, {8, 8, 1.0, "full 8x8"}};
  const ValueRange values = this->is_float() ? with_specials(0.05) : ValueRange{};
  const auto ops = binary_ops_of(this->code());
  ASSERT_FALSE(ops.empty());
  for (const BinaryOp* op : ops) {
    for (const EwiseShape& sh : shapes) {
      Matrix A = random_matrix(this->type(), sh.m, sh.n, sh.density, this->rng_, values);
      Matrix B = random_matrix(this->type(), sh.m, sh.n, sh.density, this->rng_, values);
      cross_check(std::string(Ewise::name) + " " + op->name + " " + sh.what, Matrix(op->ztype, sh.m, sh.n),
                  [&](Matrix& C) { Ewise::matrix(C, nullptr, nullptr, *op, A, B, {}); });
    }
    Vector u = random_vector(this->type(), 20, 0.5, this->rng_, values);
    Vector v = random_vector(this->type(), 20, 0.5, this->rng_, values);
    cross_check(std::string(Ewise::name) + " " + op->name + " vectors of 20", Vector(op->ztype, 20),
                [&](Vector& w) { Ewise::vector(w, nullptr, nullptr, *op, u, v, {}); });
    // transposed inputs and a complemented structural mask, accumulating into a non-empty output
    Matrix At = random_matrix(this->type(), 6, 5, 0.5, this->rng_, values);
    Matrix Bt = random_matrix(this->type(), 6, 5, 0.5, this->rng_, values);
    Matrix M = random_mask(5, 6, 0.5, this->rng_);
    Descriptor d = with_mask({}, MaskKind::StructuralComplement);
    d.transpose_first = d.transpose_second = true;
    const BinaryOp* accum = builtin_binary_op(BinaryOpcode::Plus, op->ztype->code);
    cross_check(std::string(Ewise::name) + " " + op->name + " C<!M,struct> += A'.B'",
                random_matrix(op->ztype, 5, 6, 0.5, this->rng_),
                [&](Matrix& C) { Ewise::matrix(C, &M, accum, *op, At, Bt, d); });
  }
}

// The monoid and semiring forms of the spec resolve to a binary operator: eWiseAdd takes the monoid's
// operator (or the semiring's add), eWiseMult the semiring's multiplier. Each predefined one once.
TEST_P(EwiseTyped, EveryMonoidAndSemiringForm) {
  Matrix A = random_matrix(this->type(), 9, 7, 0.5, this->rng_);
  Matrix B = random_matrix(this->type(), 9, 7, 0.5, this->rng_);
  for (const Monoid* m : all_builtin_monoids()) {
    if (m->type() != this->type()) continue;
    cross_check(std::string(Ewise::name) + " monoid " + m->name, Matrix(m->type(), 9, 7),
                [&](Matrix& C) { Ewise::matrix(C, nullptr, nullptr, *m->op, A, B, {}); });
  }
  for (const Semiring* s : all_builtin_semirings()) {
    if (s->multiply->xtype != this->type()) continue;
    const BinaryOp* op = Ewise::semiring_op(*s);
    cross_check(std::string(Ewise::name) + " semiring " + s->name, Matrix(op->ztype, 9, 7),
                [&](Matrix& C) { Ewise::matrix(C, nullptr, nullptr, *op, A, B, {}); });
  }
}

class EwiseFixed : public CrossBackend {};

TEST_F(EwiseFixed, MaskAccumReplaceProduct) {
  for (const BinaryOp* op : {builtin_binary_op(BinaryOpcode::Plus, TypeCode::FP64),
                             builtin_binary_op(BinaryOpcode::Minus, TypeCode::Int16),
                             builtin_binary_op(BinaryOpcode::LOr, TypeCode::Bool),
                             builtin_binary_op(BinaryOpcode::Lt, TypeCode::FP32)}) {
    const Type* t = op->xtype;
    Matrix A = random_matrix(t, 9, 10, 0.45, rng_);
    Matrix B = random_matrix(t, 9, 10, 0.45, rng_);
    Matrix C0 = random_matrix(op->ztype, 9, 10, 0.4, rng_);
    Matrix M = random_mask(9, 10, 0.5, rng_);
    Vector u = random_vector(t, 12, 0.5, rng_), v = random_vector(t, 12, 0.5, rng_);
    Vector w0 = random_vector(op->ztype, 12, 0.5, rng_), m = random_mask_vector(12, 0.6, rng_);
    for (MaskKind mk : all_mask_kinds())
      for (AccumKind ak : all_accum_kinds())
        for (bool replace : {false, true}) {
          Descriptor d = with_mask({}, mk);
          d.replace = replace;
          const bool masked = mk != MaskKind::None;
          const BinaryOp* accum = accum_of(ak, op->ztype->code);
          const std::string what = std::string(Ewise::name) + " " + op->name + ": " + describe(mk, ak, replace);
          cross_check(what, C0, [&](Matrix& C) { Ewise::matrix(C, masked ? &M : nullptr, accum, *op, A, B, d); });
          cross_check(what + " (vectors)", w0,
                      [&](Vector& w) { Ewise::vector(w, masked ? &m : nullptr, accum, *op, u, v, d); });
        }
  }
}

TEST_F(EwiseFixed, AliasedOutputs) {
  for (const BinaryOp* op : {builtin_binary_op(BinaryOpcode::Minus, TypeCode::FP64),
                             builtin_binary_op(BinaryOpcode::Div, TypeCode::Int32),
                             builtin_binary_op(BinaryOpcode::First, TypeCode::UInt8)}) {
    const Type* t = op->xtype;
    Matrix A = random_matrix(t, 10, 10, 0.4, rng_);
    Matrix C0 = random_matrix(t, 10, 10, 0.4, rng_);
    Vector u = random_vector(t, 15, 0.5, rng_), w0 = random_vector(t, 15, 0.5, rng_);
    const std::string n = std::string(Ewise::name) + " " + op->name;
    Descriptor tr;
    tr.transpose_second = true;
    cross_check(n + " C = C.A", C0, [&](Matrix& C) { Ewise::matrix(C, nullptr, nullptr, *op, C, A, {}); });
    cross_check(n + " C = A.C", C0, [&](Matrix& C) { Ewise::matrix(C, nullptr, nullptr, *op, A, C, {}); });
    cross_check(n + " C = C.C'", C0, [&](Matrix& C) { Ewise::matrix(C, nullptr, nullptr, *op, C, C, tr); });
    cross_check(n + " C<C> -= A.C", C0, [&](Matrix& C) { Ewise::matrix(C, &C, op, *op, A, C, {}); });
    cross_check(n + " w<!w,replace> = u.w", w0, [&](Vector& w) {
      Descriptor d = with_mask({}, MaskKind::ValuedComplement);
      d.replace = true;
      Ewise::vector(w, &w, nullptr, *op, u, w, d);
    });
  }
}

// 10^6 x 10^6 operands with 100 entries each on shared indices, and vectors of size 10^6.
TEST_F(EwiseFixed, Hypersparse) {
  const Index n = 1000000;
  for (TypeCode code : {TypeCode::FP32, TypeCode::Int64, TypeCode::Bool}) {
    const Type* t = builtin_type(code);
    const BinaryOp* op = builtin_binary_op(code == TypeCode::Bool ? BinaryOpcode::LXor : BinaryOpcode::Times, code);
    const std::vector<Index> idx = random_indices(n, 12, rng_);
    Matrix A = sparse_matrix_on(t, n, n, idx, idx, 100, rng_);
    Matrix B = sparse_matrix_on(t, n, n, idx, idx, 100, rng_);
    Matrix M = sparse_matrix_on(&types::Bool, n, n, idx, idx, 80, rng_, ValueRange{0, 1, 0});
    Matrix C0 = sparse_matrix_on(t, n, n, idx, idx, 60, rng_);
    const std::string nm = std::string(Ewise::name) + " " + op->name + " hypersparse";
    cross_check(nm, Matrix(t, n, n), [&](Matrix& C) { Ewise::matrix(C, nullptr, nullptr, *op, A, B, {}); });
    cross_check(nm + " C<M> += A.B'", C0, [&](Matrix& C) {
      Descriptor d;
      d.transpose_second = true;
      Ewise::matrix(C, &M, builtin_binary_op(BinaryOpcode::Plus, code), *op, A, B, d);
    });
    cross_check(nm + " C<!M,replace> = A.B", C0, [&](Matrix& C) {
      Descriptor d = with_mask({}, MaskKind::ValuedComplement);
      d.replace = true;
      Ewise::matrix(C, &M, nullptr, *op, A, B, d);
    });
    Vector u(t, n), v(t, n);
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const double x = draw_value(code, {}, rng_), y = draw_value(code, {}, rng_);
      if (k % 3 != 0) u.set_element(idx[k], &x, &types::FP64);
      if (k % 3 != 1) v.set_element(idx[k], &y, &types::FP64);
    }
    cross_check(nm + " vectors of 10^6", Vector(t, n), [&](Vector& w) { Ewise::vector(w, nullptr, nullptr, *op, u, v, {}); });
  }
}

// Inputs of other types than the operator's: eWiseAdd casts a one-sided entry straight to the output type.
TEST_F(EwiseFixed, TypecastInputs) {
  Matrix A = random_matrix(&types::FP64, 8, 9, 0.5, rng_, ValueRange{-300, 300, 0});
  Matrix B = random_matrix(&types::Int8, 8, 9, 0.5, rng_);
  for (const BinaryOp* op : {builtin_binary_op(BinaryOpcode::Plus, TypeCode::Int16),
                             builtin_binary_op(BinaryOpcode::Max, TypeCode::UInt8),
                             builtin_binary_op(BinaryOpcode::Gt, TypeCode::FP32),
                             builtin_binary_op(BinaryOpcode::LAnd, TypeCode::Bool)}) {
    cross_check(std::string(Ewise::name) + " FP64 . INT8 with " + op->name + " into FP32", Matrix(&types::FP32, 8, 9),
                [&](Matrix& C) { Ewise::matrix(C, nullptr, nullptr, *op, A, B, {}); });
  }
}

// The large size class (kLargeRows rows), so that the kokkos kernels run on several threads.
TEST_F(EwiseFixed, LargeParallel) {
  for (const BinaryOp* op : {builtin_binary_op(BinaryOpcode::Plus, TypeCode::FP64),
                             builtin_binary_op(BinaryOpcode::Minus, TypeCode::Int32),
                             builtin_binary_op(BinaryOpcode::Ge, TypeCode::UInt8),
                             builtin_binary_op(BinaryOpcode::LXor, TypeCode::Bool)}) {
    const Type* t = op->xtype;
    Matrix A = random_matrix(t, kLargeRows, 40, 0.2, rng_, with_specials());
    Matrix B = random_matrix(t, kLargeRows, 40, 0.2, rng_, with_specials());
    Matrix M = random_mask(kLargeRows, 40, 0.3, rng_);
    const std::string n = std::string(Ewise::name) + " " + op->name + " large";
    cross_check(n, Matrix(op->ztype, kLargeRows, 40), [&](Matrix& C) { Ewise::matrix(C, nullptr, nullptr, *op, A, B, {}); });
    cross_check(n + " C<M> += A.B", random_matrix(op->ztype, kLargeRows, 40, 0.1, rng_), [&](Matrix& C) {
      Ewise::matrix(C, &M, builtin_binary_op(BinaryOpcode::Plus, op->ztype->code), *op, A, B, {});
    });
    Vector u = random_vector(t, 50000, 0.3, rng_), v = random_vector(t, 50000, 0.3, rng_);
    cross_check(n + " vectors of 50000", Vector(op->ztype, 50000), [&](Vector& w) { Ewise::vector(w, nullptr, nullptr, *op, u, v, {}); });
  }
}

}  // namespace
}  // namespace xb
