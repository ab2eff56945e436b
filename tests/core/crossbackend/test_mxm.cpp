// tests/core/crossbackend/test_mxm.cpp: GrB_mxm on the backend under test against reference.
//
// Every predefined semiring of every type on a set of shapes (empty, 0 x n, zero inner dimension, 1 x 1,
// rectangular, full, and a masked accumulating product); the whole mask x accumulator x replace product on
// a few semirings; the four transpose combinations of the descriptor; outputs aliasing inputs (C = A*C,
// C = C*C, C<C> = A*B); hypersparse 10^6 x 10^6 operands; sparse x dense (the SpMM path); full rows times a
// sparse matrix (dot products with B^T on kokkos); and inputs that need typecasts. Each case is one cross_check() (crossbackend.hpp).
#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

struct ProductShape {
  Index m, k, n;
  double density;
  const char* what;
};

const std::vector<ProductShape>& product_shapes() {
  static const std::vector<ProductShape> shapes{
      {0, 0, 0, 0.5, "0x0 * 0x0"},        {0, 5, 4, 0.5, "0x5 * 5x4"},   {3, 0, 4, 0.5, "3x0 * 0x4 (inner 0)"},
      {1, 1, 1, 1.0, "1x1 * 1x1"},        {7, 13, 5, 0.3, "7x13 * 13x5"}, {8, 8, 8, 1.0, "full 8x8 * 8x8"},
      {64, 33, 20, 0.1, "64x33 * 33x20"},
  };
  return shapes;
}

class Mxm : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(Mxm);

// Every predefined semiring whose multiplier takes this type, on every shape, then once masked with the
// semiring's own add operator as accumulator.
TEST_P(Mxm, EverySemiringEveryShape) {
  const auto semirings = semirings_of(this->code());
  ASSERT_FALSE(semirings.empty());
  for (const Semiring* s : semirings) {
    const Type* ct = s->add->type();
    const ValueRange values = special_values_for(*s);
    for (const ProductShape& sh : product_shapes()) {
      Matrix A = random_matrix(this->type(), sh.m, sh.k, sh.density, this->rng_, values);
      Matrix B = random_matrix(this->type(), sh.k, sh.n, sh.density, this->rng_, values);
      cross_check(s->name + " " + sh.what, Matrix(ct, sh.m, sh.n),
                  [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, A, B); }, {double(sh.k) * 9});
    }
    Matrix A = random_matrix(this->type(), 9, 11, 0.4, this->rng_);
    Matrix B = random_matrix(this->type(), 11, 6, 0.4, this->rng_);
    Matrix C0 = random_matrix(ct, 9, 6, 0.4, this->rng_);
    Matrix M = random_mask(9, 6, 0.6, this->rng_);
    cross_check(s->name + " C<M> += A*B (accum = the add operator)", C0,
                [&](Matrix& C) { mxm(C, &M, s->add->op, *s, A, B); }, {100});
  }
}

// Transposed inputs through the descriptor, every combination, on one semiring of each type.
TEST_P(Mxm, TransposedInputs) {
  const Semiring& s = this->code() == TypeCode::Bool ? semiring(BinaryOpcode::LOr, BinaryOpcode::LAnd, TypeCode::Bool)
                                                      : semiring(BinaryOpcode::Plus, BinaryOpcode::Times, this->code());
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      Matrix A = ta ? random_matrix(this->type(), 12, 10, 0.3, this->rng_) : random_matrix(this->type(), 10, 12, 0.3, this->rng_);
      Matrix B = tb ? random_matrix(this->type(), 7, 12, 0.3, this->rng_) : random_matrix(this->type(), 12, 7, 0.3, this->rng_);
      Descriptor d;
      d.transpose_first = ta;
      d.transpose_second = tb;
      Matrix M = random_mask(10, 7, 0.5, this->rng_);
      cross_check(s.name + " transposes " + std::to_string(ta) + std::to_string(tb), Matrix(s.add->type(), 10, 7),
                  [&](Matrix& C) { mxm(C, nullptr, nullptr, s, A, B, d); }, {120});
      cross_check(s.name + " masked, transposes " + std::to_string(ta) + std::to_string(tb),
                  random_matrix(s.add->type(), 10, 7, 0.3, this->rng_),
                  [&](Matrix& C) { mxm(C, &M, nullptr, s, A, B, with_mask(d, MaskKind::ValuedComplement)); }, {120});
    }
}

class MxmFixed : public CrossBackend {};

// The whole mask x accumulator x replace product on a few semirings and types.
TEST_F(MxmFixed, MaskAccumReplaceProduct) {
  const std::vector<const Semiring*> semirings{
      &semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64),
      &semiring(BinaryOpcode::Min, BinaryOpcode::Plus, TypeCode::Int32),
      &semiring(BinaryOpcode::LOr, BinaryOpcode::LAnd, TypeCode::Bool),
      &semiring(BinaryOpcode::Max, BinaryOpcode::Times, TypeCode::UInt16)};
  for (const Semiring* s : semirings) {
    const Type* t = s->multiply->xtype;
    Matrix A = random_matrix(t, 9, 12, 0.35, rng_);
    Matrix B = random_matrix(t, 12, 10, 0.35, rng_);
    Matrix C0 = random_matrix(s->add->type(), 9, 10, 0.4, rng_);
    // half the masks BOOL, half INT32 (a valued mask of another type: nonzero is true)
    Matrix Mb = random_mask(9, 10, 0.5, rng_);
    Matrix Mi = random_mask(9, 10, 0.5, rng_, &types::Int32);
    for (MaskKind mk : all_mask_kinds())
      for (AccumKind ak : all_accum_kinds())
        for (bool replace : {false, true}) {
          Descriptor d = with_mask({}, mk);
          d.replace = replace;
          const Matrix* M = mk == MaskKind::None ? nullptr : (replace ? &Mi : &Mb);
          const BinaryOp* accum = accum_of(ak, s->add->type()->code);
          cross_check(s->name + ": " + describe(mk, ak, replace), C0,
                      [&](Matrix& C) { mxm(C, M, accum, *s, A, B, d); }, {150});
        }
  }
}

// Outputs that alias inputs; reference runs the same aliased call.
TEST_F(MxmFixed, AliasedOutputs) {
  for (const Semiring* s : {&semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64),
                            &semiring(BinaryOpcode::Min, BinaryOpcode::Plus, TypeCode::Int64),
                            &semiring(BinaryOpcode::LXor, BinaryOpcode::LAnd, TypeCode::Bool)}) {
    const Type* t = s->add->type();
    Matrix A = random_matrix(t, 12, 12, 0.3, rng_);
    Matrix B = random_matrix(t, 12, 12, 0.3, rng_);
    Matrix C0 = random_matrix(t, 12, 12, 0.3, rng_);
    const BinaryOp* minus = builtin_binary_op(BinaryOpcode::Minus, t->code);
    Descriptor tr;
    tr.transpose_second = true;
    Descriptor rs = with_mask({}, MaskKind::Structural);
    rs.replace = true;
    cross_check(s->name + " C = A*C", C0, [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, A, C); }, {150});
    cross_check(s->name + " C = C*A", C0, [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, C, A); }, {150});
    cross_check(s->name + " C -= C*C'", C0, [&](Matrix& C) { mxm(C, nullptr, minus, *s, C, C, tr); }, {150});
    cross_check(s->name + " C<C> = A*B", C0, [&](Matrix& C) { mxm(C, &C, nullptr, *s, A, B); }, {150});
    cross_check(s->name + " C<C, struct, replace> -= C*C", C0, [&](Matrix& C) { mxm(C, &C, minus, *s, C, C, rs); },
                {150});
  }
}

// Hypersparse operands: 10^6 x 10^6 with 100 entries whose indices come from a few hundred shared rows and
// columns (so that the products are not empty), with and without a hypersparse mask and transposes.
TEST_F(MxmFixed, Hypersparse) {
  const Index n = 1000000;
  for (TypeCode code : {TypeCode::FP64, TypeCode::Int32, TypeCode::Bool}) {
    const Type* t = builtin_type(code);
    const Semiring& s = code == TypeCode::Bool ? semiring(BinaryOpcode::LOr, BinaryOpcode::LAnd, code)
                                               : semiring(BinaryOpcode::Plus, BinaryOpcode::Times, code);
    const std::vector<Index> idx = random_indices(n, 40, rng_);
    Matrix A = sparse_matrix_on(t, n, n, idx, idx, 100, rng_);
    Matrix B = sparse_matrix_on(t, n, n, idx, idx, 100, rng_);
    Matrix M = sparse_matrix_on(&types::Bool, n, n, idx, idx, 300, rng_, ValueRange{0, 1, 0});
    Matrix C0 = sparse_matrix_on(t, n, n, idx, idx, 100, rng_);
    Descriptor tb;
    tb.transpose_second = true;
    cross_check(s.name + " hypersparse A*B", Matrix(t, n, n), [&](Matrix& C) { mxm(C, nullptr, nullptr, s, A, B); },
                {100});
    cross_check(s.name + " hypersparse A*A'", Matrix(t, n, n), [&](Matrix& C) { mxm(C, nullptr, nullptr, s, A, A, tb); },
                {100});
    cross_check(s.name + " hypersparse C<M> += A*B", C0, [&](Matrix& C) { mxm(C, &M, s.add->op, s, A, B); }, {100});
    cross_check(s.name + " hypersparse C<!M, replace> = A*B", C0,
                [&](Matrix& C) {
                  Descriptor d = with_mask({}, MaskKind::StructuralComplement);
                  d.replace = true;
                  mxm(C, &M, nullptr, s, A, B, d);
                },
                {100});
    // 10^6 x 10^6 times a short 10^6 x 5 (column block of the product)
    Matrix R = sparse_matrix_on(t, n, 5, idx, {0, 1, 2, 3, 4}, 60, rng_);
    cross_check(s.name + " hypersparse A*R (n x 5)", Matrix(t, n, 5), [&](Matrix& C) { mxm(C, nullptr, nullptr, s, A, R); },
                {100});
  }
}

// Sparse times full (the SpMM path of the kokkos backend), with and without a mask.
TEST_F(MxmFixed, SparseTimesDense) {
  for (const Semiring* s : {&semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP32),
                            &semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64),
                            &semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::Int32),
                            &semiring(BinaryOpcode::Max, BinaryOpcode::Plus, TypeCode::FP64),
                            &semiring(BinaryOpcode::Min, BinaryOpcode::Second, TypeCode::UInt64)}) {
    const Type* t = s->multiply->xtype;
    Matrix A = random_matrix(t, 64, 33, 0.1, rng_);
    Matrix X = random_matrix(t, 33, 16, 1.0, rng_);
    Matrix M = random_mask(64, 16, 0.3, rng_);
    cross_check(s->name + " sparse 64x33 * full 33x16", Matrix(t, 64, 16),
                [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, A, X); }, {300});
    cross_check(s->name + " full 16x33 * sparse 33x64", Matrix(t, 16, 64),
                [&](Matrix& C) {
                  Descriptor d;
                  d.transpose_first = d.transpose_second = true;
                  mxm(C, nullptr, nullptr, *s, X, A, d);
                },
                {300});
    cross_check(s->name + " C<M> = sparse * full", Matrix(t, 64, 16), [&](Matrix& C) { mxm(C, &M, nullptr, *s, A, X); },
                {300});
    // masked product with a dense mask (the masked SpGEMM path)
    Matrix Md = random_mask(64, 16, 1.0, rng_);
    cross_check(s->name + " C<full valued mask> = A * full", Matrix(t, 64, 16),
                [&](Matrix& C) { mxm(C, &Md, nullptr, *s, A, X); }, {300});
  }
}

// A with a full row for every fifth row and sparse rows between, times a sparse B with empty columns: the
// kokkos backend computes the full rows as dot products with B^T's rows. Plain, hypersparse A, a wide B
// (the sorting workspace and its symbolic pass), and an aliased C = C*B, on semirings of every kind of
// monoid.
// A copy of A with the given rows made full (every column holds a value drawn from `values`).
Matrix with_full_rows(Matrix A, const std::vector<Index>& full_rows, Rng& rng, const ValueRange& values) {
  const Type* t = A.type();
  const Index ncols = A.ncols();
  const TypeCode code = t->code;
  for (Index i : full_rows)
    for (Index j = 0; j < ncols; ++j) {
      const Scalar v = scalar_of(t, draw_value(code, values, rng));
      A.set_element(i, j, v.data(), t);
    }
  A.wait();
  return A;
}

TEST_F(MxmFixed, FullRowsTimesSparse) {
  for (const Semiring* s : {&semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP32),
                            &semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64),
                            &semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::Int32),
                            &semiring(BinaryOpcode::Min, BinaryOpcode::Plus, TypeCode::Int64),
                            &semiring(BinaryOpcode::Max, BinaryOpcode::Times, TypeCode::FP64),
                            &semiring(BinaryOpcode::Plus, BinaryOpcode::Min, TypeCode::UInt16),
                            &semiring(BinaryOpcode::LOr, BinaryOpcode::LAnd, TypeCode::Bool)}) {
    const Type* t = s->multiply->xtype;
    const ValueRange values = s->add->op->opcode == BinaryOpcode::Plus && (t->code == TypeCode::FP32 || t->code == TypeCode::FP64)
                                  ? with_specials(0.02)
                                  : ValueRange{};
    std::vector<Index> full;
    for (Index i = 0; i < 400; i += 5) full.push_back(i);
    // 100 columns at density 0.05 over 50 rows: about 8 columns of B are empty
    const Matrix A = with_full_rows(random_matrix(t, 400, 50, 0.1, rng_, values), full, rng_, values);
    const Matrix B = random_matrix(t, 50, 100, 0.05, rng_, values);
    cross_check(s->name + " (400x50, every 5th row full) * sparse 50x100", Matrix(s->add->type(), 400, 100),
                [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, A, B); }, {100});
    const Matrix Sq = random_matrix(t, 50, 50, 0.1, rng_, values);
    cross_check(s->name + " C = C*B with full rows in C", A,
                [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, C, Sq); }, {100});
    const Matrix H =
        with_full_rows(sparse_matrix_with(t, 1000000, 50, 300, rng_, values), {7, 99999, 500000, 999999}, rng_, values);
    cross_check(s->name + " hypersparse 10^6 x 50 with 4 full rows * sparse 50x100",
                Matrix(s->add->type(), 1000000, 100), [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, H, B); }, {100});
    const Matrix W = sparse_matrix_with(t, 50, 1000000, 300, rng_, values);
    cross_check(s->name + " (400x50, every 5th row full) * (50 x 10^6)", Matrix(s->add->type(), 400, 1000000),
                [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, A, W); }, {100});
  }
}

// Inputs of other types than the semiring's (the front-end casts them first), and an output of a third.
TEST_F(MxmFixed, TypecastInputs) {
  const Semiring& s = semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64);
  Matrix A = random_matrix(&types::Int8, 10, 9, 0.4, rng_);
  Matrix B = random_matrix(&types::FP32, 9, 8, 0.4, rng_);
  Matrix C0 = random_matrix(&types::Int32, 10, 8, 0.4, rng_);
  Matrix M = random_mask(10, 8, 0.5, rng_, &types::FP64);
  cross_check("INT8 * FP32 on PLUS_TIMES_FP64 into INT32", C0,
              [&](Matrix& C) { mxm(C, nullptr, nullptr, s, A, B); });
  cross_check("INT32 C<FP64 mask> += INT8 * FP32 (accum PLUS_INT32)", C0,
              [&](Matrix& C) { mxm(C, &M, builtin_binary_op(BinaryOpcode::Plus, TypeCode::Int32), s, A, B); });
  const Semiring& b = semiring(BinaryOpcode::LOr, BinaryOpcode::LAnd, TypeCode::Bool);
  cross_check("INT8 * FP32 on LOR_LAND_BOOL into INT32", C0, [&](Matrix& C) { mxm(C, nullptr, nullptr, b, A, B); });
}

// The large size class (kLargeRows rows): every method of the kokkos mxm (Gustavson with a dense and a
// sorting workspace, masked Gustavson, masked dot products, pull dot products for a few rows, sparse x
// full) with enough work to run on several threads.
TEST_F(MxmFixed, LargeParallel) {
  for (const Semiring* s : {&semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64),
                            &semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP32),
                            &semiring(BinaryOpcode::Min, BinaryOpcode::Plus, TypeCode::Int32),
                            &semiring(BinaryOpcode::LOr, BinaryOpcode::LAnd, TypeCode::Bool)}) {
    const Type* t = s->multiply->xtype;
    Matrix A = random_matrix(t, kLargeRows, 60, 0.02, rng_);
    Matrix B = random_matrix(t, 60, 100, 0.1, rng_);
    Matrix Bt = random_matrix(t, 100, 60, 0.1, rng_);
    Matrix M = random_mask(kLargeRows, 100, 0.05, rng_);
    Matrix X = random_matrix(t, 60, 8, 1.0, rng_);
    Matrix Few = random_matrix(t, 6, 60, 0.5, rng_);
    const Matrix C0(s->add->type(), kLargeRows, 100);
    Descriptor tb;
    tb.transpose_second = true;
    cross_check(s->name + " large A*B", C0, [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, A, B); }, {100});
    cross_check(s->name + " large C<M> = A*B", C0, [&](Matrix& C) { mxm(C, &M, nullptr, *s, A, B); }, {100});
    cross_check(s->name + " large C<M,struct> = A*B'", C0,
                [&](Matrix& C) { mxm(C, &M, nullptr, *s, A, Bt, with_mask(tb, MaskKind::Structural)); }, {100});
    cross_check(s->name + " large C<!M> = A*B", C0,
                [&](Matrix& C) { mxm(C, &M, nullptr, *s, A, B, with_mask({}, MaskKind::ValuedComplement)); }, {100});
    cross_check(s->name + " large A*full", Matrix(s->add->type(), kLargeRows, 8),
                [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, A, X); }, {100});
    cross_check(s->name + " (6 rows)*A' (pull dot products)", Matrix(s->add->type(), 6, kLargeRows),
                [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, Few, A, tb); }, {100});
    // a wide output with little work per column (the sorting workspace): 10^6 columns
    Matrix W = sparse_matrix_with(t, 60, 1000000, 500, rng_);
    cross_check(s->name + " large A*(60 x 10^6)", Matrix(s->add->type(), kLargeRows, 1000000),
                [&](Matrix& C) { mxm(C, nullptr, nullptr, *s, A, W); }, {100});
  }
}

}  // namespace
}  // namespace xb
