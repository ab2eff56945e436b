// tests/core/crossbackend/test_reduce.cpp: GrB_reduce on the backend under test against reference.
//
// Every predefined monoid of every type, to a vector (rows, and columns through the descriptor's transpose)
// and to a GrB_Scalar (from a matrix and from a vector), on empty, 0 x n, n x 0, 1 x 1, rectangular, full
// and hypersparse inputs; the binary-operator forms (the operator of each monoid, and an operator that is no
// monoid's); masks, accumulators and replace; an output scalar with and without a value before the call;
// and w aliased as mask. TIMES monoids get values in {-1, 0, 1} so that long products cannot overflow.
#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

struct ReduceShape {
  Index m, n;
  double density;
  const char* what;
};

ValueRange values_for(const Monoid& m) {
  const bool fp = m.type()->code == TypeCode::FP32 || m.type()->code == TypeCode::FP64;
  if (m.op->opcode == BinaryOpcode::Times) return unit_values();
  return fp ? with_specials(0.05) : ValueRange{};
}

class Reduce : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(Reduce);

TEST_P(Reduce, EveryMonoidEveryShape) {
  const std::vector<ReduceShape> shapes{{0, 0, 0.5, "0x0"},   {0, 5, 0.5, "0x5"},   {5, 0, 0.5, "5x0"},
                                        {1, 1, 1.0, "1x1"},   {7, 13, 0.4, "7x13"}, {8, 8, 1.0, "full 8x8"},
                                        {40, 3, 0.5, "40x3"}};
  int count = 0;
  for (const Monoid* mon : all_builtin_monoids()) {
    if (mon->type() != this->type()) continue;
    ++count;
    const ValueRange values = values_for(*mon);
    for (const ReduceShape& sh : shapes) {
      Matrix A = random_matrix(this->type(), sh.m, sh.n, sh.density, this->rng_, values);
      Descriptor cols;
      cols.transpose_first = true;
      cross_check(mon->name + " rows of " + sh.what, Vector(this->type(), sh.m),
                  [&](Vector& w) { reduce(w, nullptr, nullptr, *mon, A); }, {100});
      cross_check(mon->name + " columns of " + sh.what, Vector(this->type(), sh.n),
                  [&](Vector& w) { reduce(w, nullptr, nullptr, *mon, A, cols); }, {100});
      cross_check(mon->name + " all of " + sh.what, Scalar(this->type()),
                  [&](Scalar& s) { reduce(s, nullptr, *mon, A); }, {300});
      cross_check(mon->name + " all of " + sh.what + " into a scalar with a value, accum", random_scalar(this->type(), this->rng_),
                  [&](Scalar& s) { reduce(s, mon->op, *mon, A); }, {300});
    }
    for (Index n : {0, 1, 30}) {
      Vector u = random_vector(this->type(), n, 0.7, this->rng_, values);
      cross_check(mon->name + " vector of " + std::to_string(n), random_scalar(this->type(), this->rng_),
                  [&](Scalar& s) { reduce(s, nullptr, *mon, u); }, {100});
      cross_check(mon->name + " binary-op form, vector of " + std::to_string(n), Scalar(this->type()),
                  [&](Scalar& s) { reduce(s, nullptr, *mon->op, u); }, {100});
    }
    // masked, accumulated, binary-operator form
    Matrix A = random_matrix(this->type(), 12, 9, 0.5, this->rng_, values);
    Vector w0 = random_vector(this->type(), 12, 0.5, this->rng_, values);
    Vector m = random_mask_vector(12, 0.6, this->rng_);
    cross_check(mon->name + " w<m> op= rows (binary-op form)", w0,
                [&](Vector& w) { reduce(w, &m, mon->op, *mon->op, A); }, {100});
    Descriptor d = with_mask({}, MaskKind::ValuedComplement);
    d.replace = true;
    cross_check(mon->name + " w<!m,replace> = rows", w0, [&](Vector& w) { reduce(w, &m, nullptr, *mon, A, d); }, {100});
  }
  EXPECT_GT(count, 0);
}

class ReduceFixed : public CrossBackend {};

TEST_F(ReduceFixed, MaskAccumReplaceProduct) {
  for (const Monoid* mon : {builtin_monoid(BinaryOpcode::Plus, TypeCode::FP64), builtin_monoid(BinaryOpcode::Max, TypeCode::Int8),
                            builtin_monoid(BinaryOpcode::LXor, TypeCode::Bool)}) {
    const Type* t = mon->type();
    Matrix A = random_matrix(t, 10, 14, 0.4, rng_);
    Vector w0 = random_vector(t, 10, 0.5, rng_), w1 = random_vector(t, 14, 0.5, rng_);
    Vector m = random_mask_vector(10, 0.6, rng_), m1 = random_mask_vector(14, 0.6, rng_, &types::UInt8);
    for (MaskKind mk : all_mask_kinds())
      for (AccumKind ak : all_accum_kinds())
        for (bool replace : {false, true}) {
          Descriptor d = with_mask({}, mk);
          d.replace = replace;
          const bool masked = mk != MaskKind::None;
          const BinaryOp* accum = accum_of(ak, t->code);
          const std::string what = mon->name + ": " + describe(mk, ak, replace);
          cross_check(what + " (rows)", w0, [&](Vector& w) { reduce(w, masked ? &m : nullptr, accum, *mon, A, d); });
          Descriptor dt = d;
          dt.transpose_first = true;
          cross_check(what + " (columns)", w1, [&](Vector& w) { reduce(w, masked ? &m1 : nullptr, accum, *mon, A, dt); });
        }
    for (AccumKind ak : all_accum_kinds()) {
      cross_check(mon->name + " to a scalar, " + name_of(ak), random_scalar(t, rng_),
                  [&](Scalar& s) { reduce(s, accum_of(ak, t->code), *mon, A); });
      cross_check(mon->name + " to an empty scalar, " + name_of(ak), Scalar(t),
                  [&](Scalar& s) { reduce(s, accum_of(ak, t->code), *mon, A); });
      cross_check(mon->name + " of an empty matrix to a scalar with a value, " + name_of(ak), random_scalar(t, rng_),
                  [&](Scalar& s) { reduce(s, accum_of(ak, t->code), *mon, Matrix(t, 4, 5)); });
    }
  }
}

// An operator that is no monoid's (FIRST, MINUS): the front-end folds it; the result must still agree.
TEST_F(ReduceFixed, BinaryOperatorsWithoutMonoid) {
  for (BinaryOpcode opc : {BinaryOpcode::First, BinaryOpcode::Second, BinaryOpcode::Minus}) {
    const BinaryOp* op = builtin_binary_op(opc, TypeCode::Int32);
    Matrix A = random_matrix(&types::Int32, 9, 7, 0.5, rng_);
    cross_check(op->name + " rows", Vector(&types::Int32, 9), [&](Vector& w) { reduce(w, nullptr, nullptr, *op, A); });
    cross_check(op->name + " to a scalar", Scalar(&types::Int32), [&](Scalar& s) { reduce(s, nullptr, *op, A); });
  }
}

TEST_F(ReduceFixed, AliasedMaskAndTypecasts) {
  const Monoid* plus = builtin_monoid(BinaryOpcode::Plus, TypeCode::FP32);
  Matrix A = random_matrix(&types::Int16, 11, 11, 0.5, rng_);
  Vector w0 = random_vector(&types::FP32, 11, 0.5, rng_);
  cross_check("w<w> += rows (INT16 input, FP32 monoid)", w0,
              [&](Vector& w) { reduce(w, &w, plus->op, *plus, A); });
  cross_check("INT32 scalar = PLUS_FP32 of an INT16 matrix", Scalar(&types::Int32),
              [&](Scalar& s) { reduce(s, nullptr, *plus, A); });
}

TEST_F(ReduceFixed, Hypersparse) {
  const Index n = 1000000;
  for (const Monoid* mon : {builtin_monoid(BinaryOpcode::Plus, TypeCode::FP64), builtin_monoid(BinaryOpcode::Min, TypeCode::UInt64),
                            builtin_monoid(BinaryOpcode::LOr, TypeCode::Bool)}) {
    const Type* t = mon->type();
    const std::vector<Index> idx = random_indices(n, 20, rng_);
    Matrix A = sparse_matrix_on(t, n, n, idx, idx, 100, rng_);
    Vector m(&types::Bool, n);
    for (std::size_t k = 0; k < idx.size(); k += 2) {
      const bool b = true;
      m.set_element(idx[k], &b, &types::Bool);
    }
    Descriptor cols;
    cols.transpose_first = true;
    cross_check(mon->name + " rows of a hypersparse matrix", Vector(t, n), [&](Vector& w) { reduce(w, nullptr, nullptr, *mon, A); });
    cross_check(mon->name + " columns of a hypersparse matrix", Vector(t, n),
                [&](Vector& w) { reduce(w, nullptr, nullptr, *mon, A, cols); });
    cross_check(mon->name + " w<m> rows of a hypersparse matrix", sparse_vector_with(t, n, 30, rng_),
                [&](Vector& w) { reduce(w, &m, mon->op, *mon, A); });
    cross_check(mon->name + " hypersparse to a scalar", Scalar(t), [&](Scalar& s) { reduce(s, nullptr, *mon, A); });
  }
}

// The large size class (kLargeRows rows), so that the kokkos kernels run on several threads.
TEST_F(ReduceFixed, LargeParallel) {
  for (const Monoid* mon : {builtin_monoid(BinaryOpcode::Plus, TypeCode::FP64), builtin_monoid(BinaryOpcode::Plus, TypeCode::FP32),
                            builtin_monoid(BinaryOpcode::Max, TypeCode::Int32), builtin_monoid(BinaryOpcode::Times, TypeCode::Int64),
                            builtin_monoid(BinaryOpcode::LAnd, TypeCode::Bool)}) {
    const Type* t = mon->type();
    Matrix A = random_matrix(t, kLargeRows, 40, 0.2, rng_, values_for(*mon));
    Vector u = random_vector(t, 50000, 0.3, rng_, values_for(*mon));
    Descriptor cols;
    cols.transpose_first = true;
    // sums of up to 72000 terms of magnitude <= 3: the scale of the tolerance
    cross_check(mon->name + " large rows", Vector(t, kLargeRows), [&](Vector& w) { reduce(w, nullptr, nullptr, *mon, A); }, {200});
    cross_check(mon->name + " large columns", Vector(t, 40), [&](Vector& w) { reduce(w, nullptr, nullptr, *mon, A, cols); }, {6000});
    cross_check(mon->name + " large to a scalar", Scalar(t), [&](Scalar& s) { reduce(s, nullptr, *mon, A); }, {220000});
    cross_check(mon->name + " large vector to a scalar", Scalar(t), [&](Scalar& s) { reduce(s, nullptr, *mon, u); }, {50000});
  }
}

}  // namespace
}  // namespace xb
