// tests/core/test_ops_smoke.cpp: end-to-end smoke tests of every operation front-end (src/ops/) and of the
// dispatcher's user-facing controls (include/snack/backend.hpp).
//
// Each case is small and hand-checked: a few calls per operation with the descriptor's transposes, masks
// (valued, structural, complemented), accumulators and replace; outputs that alias inputs (C = C*C,
// w = A*w, C<C> = ...); and bad arguments, which must throw the spec's code and leave the output as it was.
// The settled semantics documented in the front-ends have a case each (eWiseAdd's one-sided cast, select
// keeping A's values, reduce to an empty GrB_Scalar, a binary operator without a monoid, assign of an
// empty scalar, row/column assign leaving other rows/columns alone, C<M> = s on a 10^6 x 10^6 mask).
// Every case runs on each backend compiled in; the cross-backend comparison on random inputs lives in other
// suites.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "snack/snack.hpp"

namespace {

using namespace snk;
using Entries = std::map<std::pair<Index, Index>, double>;

const Type* FP64 = &types::FP64;

Matrix mat(Index m, Index n, const Entries& e, const Type* type = FP64) {
  Matrix A(type, m, n);
  for (const auto& [ij, v] : e) A.set_element(ij.first, ij.second, &v, FP64);
  return A;
}

Entries read(const Matrix& A) {
  Index n = A.nvals();
  std::vector<Index> I(n), J(n);
  std::vector<double> x(n);
  A.extract_tuples(I.data(), J.data(), x.data(), FP64);
  Entries e;
  for (Index k = 0; k < n; ++k) e[{I[k], J[k]}] = x[k];
  return e;
}

Vector vec(Index n, const std::map<Index, double>& e, const Type* type = FP64) {
  Vector v(type, n);
  for (const auto& [i, x] : e) v.set_element(i, &x, FP64);
  return v;
}

std::map<Index, double> read(const Vector& v) {
  Entries e = read(v.as_matrix());
  std::map<Index, double> out;
  for (const auto& [ij, x] : e) out[ij.second] = x;
  return out;
}

const Semiring& plus_times() { return *builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64); }
const BinaryOp* plus() { return builtin_binary_op(BinaryOpcode::Plus, TypeCode::FP64); }
const Monoid& plus_monoid() { return *builtin_monoid(BinaryOpcode::Plus, TypeCode::FP64); }

Scalar scalar(double v, const Type* type = FP64) {
  Scalar s(type);
  s.set(&v, FP64);
  return s;
}

template <class F>
void expect_error(Info info, F&& f) {
  try {
    f();
    ADD_FAILURE() << "expected an error " << info_name(info);
  } catch (const Error& e) {
    EXPECT_EQ(e.info(), info) << e.what();
    EXPECT_STRNE(e.what(), "");
  }
}

// Every case runs on each backend compiled in (the expectations are hand-checked, so they hold for all).
class OpsSmoke : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { scope_ = std::make_unique<BackendScope>(GetParam()); }
  void TearDown() override {
    scope_.reset();
    if (GetParam() != "reference")
      std::printf("[ info     ] fallbacks of %s so far: %llu\n", GetParam().c_str(),
                  static_cast<unsigned long long>(fallback_total(GetParam())));
  }
  std::unique_ptr<BackendScope> scope_;
  // A = [1 2 0; 0 3 4] (2 x 3), B = [1 0; 0 1; 1 1] (3 x 2)
  Matrix A = mat(2, 3, {{{0, 0}, 1}, {{0, 1}, 2}, {{1, 1}, 3}, {{1, 2}, 4}});
  Matrix B = mat(3, 2, {{{0, 0}, 1}, {{1, 1}, 1}, {{2, 0}, 1}, {{2, 1}, 1}});
};

// ---- multiplication ------------------------------------------------------------------------------------
TEST_P(OpsSmoke, MxmPlain) {
  Matrix C(FP64, 2, 2);
  mxm(C, nullptr, nullptr, plus_times(), A, B);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{0, 1}, 2}, {{1, 0}, 4}, {{1, 1}, 7}}));
}

TEST_P(OpsSmoke, MxmTransposes) {
  // (B^T)(A^T) = (A B)^T
  Matrix C(FP64, 2, 2);
  Descriptor d;
  d.transpose_first = d.transpose_second = true;
  mxm(C, nullptr, nullptr, plus_times(), B, A, d);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{1, 0}, 2}, {{0, 1}, 4}, {{1, 1}, 7}}));
  // A A^T (2 x 2)
  Matrix D(FP64, 2, 2);
  Descriptor d2;
  d2.transpose_second = true;
  mxm(D, nullptr, nullptr, plus_times(), A, A, d2);
  EXPECT_EQ(read(D), (Entries{{{0, 0}, 5}, {{0, 1}, 6}, {{1, 0}, 6}, {{1, 1}, 25}}));
}

TEST_P(OpsSmoke, MxmMaskAccumReplace) {
  // C = [10 . ; . 20], M = [1 0; 0 1] valued (M(0,1) = 0 stored), accum plus, replace.
  Matrix C = mat(2, 2, {{{0, 0}, 10}, {{1, 1}, 20}, {{1, 0}, 5}});
  Matrix M = mat(2, 2, {{{0, 0}, 1}, {{0, 1}, 0}, {{1, 1}, 1}}, &types::Bool);
  Descriptor d;
  d.replace = true;
  mxm(C, &M, plus(), plus_times(), A, B, d);
  // T = [1 2; 4 7]; mask true at (0,0), (1,1): 11, 27; (1,0) deleted by replace; (0,1) masked out.
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 11}, {{1, 1}, 27}}));
  // structural + complement: only (0,1) and (1,0) are written (M has stored (0,1) = 0: structurally present)
  Matrix C2 = mat(2, 2, {{{0, 0}, 10}});
  Descriptor d2;
  d2.mask_structure = true;
  d2.mask_complement = true;
  mxm(C2, &M, nullptr, plus_times(), A, B, d2);
  EXPECT_EQ(read(C2), (Entries{{{0, 0}, 10}, {{1, 0}, 4}}));
}

TEST_P(OpsSmoke, MxmAliased) {
  // C = C * C and C<C> = C * C
  Matrix C = mat(2, 2, {{{0, 0}, 1}, {{0, 1}, 2}, {{1, 1}, 3}});
  mxm(C, nullptr, nullptr, plus_times(), C, C);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{0, 1}, 8}, {{1, 1}, 9}}));
  mxm(C, &C, nullptr, plus_times(), C, C);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{0, 1}, 80}, {{1, 1}, 81}}));
  // C<!NULL> = ...: nothing is written
  Descriptor comp;
  comp.mask_complement = true;
  mxm(C, nullptr, nullptr, plus_times(), C, C, comp);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{0, 1}, 80}, {{1, 1}, 81}}));
}

TEST_P(OpsSmoke, MxvVxm) {
  Vector u = vec(3, {{0, 1}, {1, 1}, {2, 2}});
  Vector w(FP64, 2);
  mxv(w, nullptr, nullptr, plus_times(), A, u);  // [1+2, 3+8]
  EXPECT_EQ(read(w), (std::map<Index, double>{{0, 3}, {1, 11}}));
  Vector z = vec(2, {{0, 1}, {1, 2}});
  Vector y(FP64, 3);
  vxm(y, nullptr, nullptr, plus_times(), z, A);  // z^T A = [1, 2+6, 8]
  EXPECT_EQ(read(y), (std::map<Index, double>{{0, 1}, {1, 8}, {2, 8}}));
  Vector y2(FP64, 3);
  Descriptor t0;
  t0.transpose_first = true;
  mxv(y2, nullptr, nullptr, plus_times(), A, z, t0);  // A^T z = z^T A
  EXPECT_EQ(read(y2), read(y));
  Vector w2(FP64, 2);
  Descriptor t1;
  t1.transpose_second = true;
  vxm(w2, nullptr, nullptr, plus_times(), u, A, t1);  // u^T A^T = A u
  EXPECT_EQ(read(w2), read(w));
  // A non-commutative multiplier: mxv multiplies A(i,k) first: MINUS gives A - u.
  const Semiring* plus_minus = builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Minus, TypeCode::FP64);
  if (plus_minus == nullptr) {
    static auto s = new_semiring(&plus_monoid(), builtin_binary_op(BinaryOpcode::Minus, TypeCode::FP64));
    plus_minus = s.get();
  }
  Vector w3(FP64, 2);
  mxv(w3, nullptr, nullptr, *plus_minus, A, u);  // row0: (1-1)+(2-1) = 1; row1: (3-1)+(4-2) = 4
  EXPECT_EQ(read(w3), (std::map<Index, double>{{0, 1}, {1, 4}}));
}

TEST_P(OpsSmoke, MxvAliased) {
  // w = A w with a square A
  Matrix S = mat(2, 2, {{{0, 0}, 2}, {{0, 1}, 1}, {{1, 1}, 3}});
  Vector w = vec(2, {{0, 1}, {1, 1}});
  mxv(w, &w, nullptr, plus_times(), S, w);
  EXPECT_EQ(read(w), (std::map<Index, double>{{0, 3}, {1, 3}}));
}

// ---- element-wise --------------------------------------------------------------------------------------
TEST_P(OpsSmoke, Ewise) {
  Matrix X = mat(2, 2, {{{0, 0}, 1}, {{0, 1}, 2}});
  Matrix Y = mat(2, 2, {{{0, 1}, 10}, {{1, 1}, 20}});
  Matrix C(FP64, 2, 2);
  ewise_add(C, nullptr, nullptr, *plus(), X, Y);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{0, 1}, 12}, {{1, 1}, 20}}));
  Matrix D(FP64, 2, 2);
  ewise_mult(D, nullptr, nullptr, *builtin_binary_op(BinaryOpcode::Times, TypeCode::FP64), X, Y);
  EXPECT_EQ(read(D), (Entries{{{0, 1}, 20}}));
  // transpose of the first input: X^T + Y
  Matrix E(FP64, 2, 2);
  Descriptor t0;
  t0.transpose_first = true;
  ewise_add(E, nullptr, nullptr, *plus(), X, Y, t0);
  EXPECT_EQ(read(E), (Entries{{{0, 0}, 1}, {{1, 0}, 2}, {{0, 1}, 10}, {{1, 1}, 20}}));
  // vectors, aliased: u = u + u
  Vector u = vec(3, {{0, 1}, {2, 5}});
  ewise_add(u, nullptr, nullptr, *plus(), u, u);
  EXPECT_EQ(read(u), (std::map<Index, double>{{0, 2}, {2, 10}}));
}

TEST_P(OpsSmoke, EwiseAddCastsOneSidedEntriesStraightToTheOutputType) {
  // EQ_INT32 on FP64 inputs: an entry only in A (0.5) goes to T as (bool) 0.5 = true, not (bool)(int) 0.5.
  Matrix X = mat(1, 2, {{{0, 0}, 0.5}, {{0, 1}, 2.0}});
  Matrix Y = mat(1, 2, {{{0, 1}, 2.7}});
  Matrix C(FP64, 1, 2);
  ewise_add(C, nullptr, nullptr, *builtin_binary_op(BinaryOpcode::Eq, TypeCode::Int32), X, Y);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{0, 1}, 1}}));  // (0,1): (int)2.0 == (int)2.7
}

// ---- apply and select ----------------------------------------------------------------------------------
TEST_P(OpsSmoke, Apply) {
  Matrix C(FP64, 3, 2);
  Descriptor t0;
  t0.transpose_first = true;
  apply(C, nullptr, nullptr, *builtin_unary_op(UnaryOpcode::AInv, TypeCode::FP64), A, t0);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, -1}, {{1, 0}, -2}, {{1, 1}, -3}, {{2, 1}, -4}}));
  Matrix D(FP64, 2, 3);
  const BinaryOp& minus = *builtin_binary_op(BinaryOpcode::Minus, TypeCode::FP64);
  apply_bind_first(D, nullptr, nullptr, minus, scalar(10), A);
  EXPECT_EQ(read(D), (Entries{{{0, 0}, 9}, {{0, 1}, 8}, {{1, 1}, 7}, {{1, 2}, 6}}));
  apply_bind_second(D, nullptr, nullptr, minus, A, scalar(10));
  EXPECT_EQ(read(D), (Entries{{{0, 0}, -9}, {{0, 1}, -8}, {{1, 1}, -7}, {{1, 2}, -6}}));
  // GrB_INP1 transposes A for bind-first
  Matrix E(FP64, 3, 2);
  Descriptor t1;
  t1.transpose_second = true;
  apply_bind_first(E, nullptr, nullptr, minus, scalar(10), A, t1);
  EXPECT_EQ(read(E), (Entries{{{0, 0}, 9}, {{1, 0}, 8}, {{1, 1}, 7}, {{2, 1}, 6}}));
  // index-unary: ROWINDEX + 1 on a matrix and on a vector (a vector entry k is at row k)
  const IndexUnaryOp& rowindex = *builtin_index_unary_op(IndexUnaryOpcode::RowIndex, TypeCode::Int64);
  Matrix F(&types::Int64, 2, 3);
  apply(F, nullptr, nullptr, rowindex, A, scalar(1, &types::Int64));
  EXPECT_EQ(read(F), (Entries{{{0, 0}, 1}, {{0, 1}, 1}, {{1, 1}, 2}, {{1, 2}, 2}}));
  Vector u = vec(4, {{1, 7}, {3, 7}});
  Vector w(&types::Int64, 4);
  apply(w, nullptr, nullptr, rowindex, u, scalar(0, &types::Int64));
  EXPECT_EQ(read(w), (std::map<Index, double>{{1, 1}, {3, 3}}));
  // empty bound scalar / thunk: EmptyObject, D unchanged
  Scalar empty(FP64);
  Entries before = read(D);
  expect_error(Info::EmptyObject, [&] { apply_bind_second(D, nullptr, nullptr, minus, A, empty); });
  expect_error(Info::EmptyObject, [&] { apply(F, nullptr, nullptr, rowindex, A, empty); });
  EXPECT_EQ(read(D), before);
}

TEST_P(OpsSmoke, Select) {
  Matrix S = mat(3, 3, {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 0}, 3}, {{2, 1}, 1.5}, {{2, 2}, 5}});
  Matrix C(FP64, 3, 3);
  select(C, nullptr, nullptr, *builtin_index_unary_op(IndexUnaryOpcode::Tril, TypeCode::Int64), S,
         scalar(0, &types::Int64));
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{1, 0}, 3}, {{2, 1}, 1.5}, {{2, 2}, 5}}));
  // VALUEGT_INT32 compares (int) values but keeps A's own FP64 values: 1.5 -> 1 > 0 kept as 1.5
  Matrix D(FP64, 3, 3);
  select(D, nullptr, nullptr, *builtin_index_unary_op(IndexUnaryOpcode::ValueGt, TypeCode::Int32), S,
         scalar(1));
  EXPECT_EQ(read(D), (Entries{{{0, 2}, 2}, {{1, 0}, 3}, {{2, 2}, 5}}));
  select(D, nullptr, nullptr, *builtin_index_unary_op(IndexUnaryOpcode::ValueGt, TypeCode::Int32), S,
         scalar(0));
  EXPECT_EQ(read(D), read(S));
  // aliased, vector
  Vector u = vec(4, {{0, 1}, {1, -1}, {3, 2}});
  select(u, nullptr, nullptr, *builtin_index_unary_op(IndexUnaryOpcode::ValueGt, TypeCode::FP64), u, scalar(0));
  EXPECT_EQ(read(u), (std::map<Index, double>{{0, 1}, {3, 2}}));
}

// ---- reduce --------------------------------------------------------------------------------------------
TEST_P(OpsSmoke, ReduceToVector) {
  Vector w(FP64, 2);
  reduce(w, nullptr, nullptr, plus_monoid(), A);
  EXPECT_EQ(read(w), (std::map<Index, double>{{0, 3}, {1, 7}}));
  Vector c(FP64, 3);
  Descriptor t0;
  t0.transpose_first = true;
  reduce(c, nullptr, nullptr, plus_monoid(), A, t0);  // column sums
  EXPECT_EQ(read(c), (std::map<Index, double>{{0, 1}, {1, 5}, {2, 4}}));
  // binary operator with a monoid (PLUS) and without one (FIRST: a left fold in storage order)
  reduce(w, nullptr, nullptr, *plus(), A);
  EXPECT_EQ(read(w), (std::map<Index, double>{{0, 3}, {1, 7}}));
  reduce(w, nullptr, nullptr, *builtin_binary_op(BinaryOpcode::First, TypeCode::FP64), A);
  EXPECT_EQ(read(w), (std::map<Index, double>{{0, 1}, {1, 3}}));
  // unequal domains: DomainMismatch, w unchanged
  expect_error(Info::DomainMismatch,
               [&] { reduce(w, nullptr, nullptr, *builtin_binary_op(BinaryOpcode::Lt, TypeCode::FP64), A); });
  EXPECT_EQ(read(w), (std::map<Index, double>{{0, 1}, {1, 3}}));
  // accumulate into w, masked
  Vector m = vec(2, {{1, 1}}, &types::Bool);
  reduce(w, &m, plus(), plus_monoid(), A);
  EXPECT_EQ(read(w), (std::map<Index, double>{{0, 1}, {1, 10}}));
}

TEST_P(OpsSmoke, ReduceToScalar) {
  Scalar s(FP64);
  reduce(s, nullptr, plus_monoid(), A);
  double v = 0;
  ASSERT_TRUE(s.get(&v, FP64));
  EXPECT_EQ(v, 10);
  reduce(s, plus(), plus_monoid(), A);  // 10 + 10
  ASSERT_TRUE(s.get(&v, FP64));
  EXPECT_EQ(v, 20);
  Scalar i32(&types::Int32);
  reduce(i32, nullptr, *builtin_binary_op(BinaryOpcode::Max, TypeCode::FP64), A);
  ASSERT_TRUE(i32.get(&v, FP64));
  EXPECT_EQ(v, 4);
  // an input without entries: cleared without accum, unchanged with it (spec 2.0 / SuiteSparse 7.4)
  Matrix E(FP64, 3, 3);
  reduce(s, plus(), plus_monoid(), E);
  ASSERT_TRUE(s.get(&v, FP64));
  EXPECT_EQ(v, 20);
  reduce(s, nullptr, plus_monoid(), E);
  EXPECT_FALSE(s.has_value());
  // a vector
  Vector u = vec(5, {{1, 2}, {4, 3}});
  reduce(s, nullptr, *builtin_monoid(BinaryOpcode::Times, TypeCode::FP64), u);
  ASSERT_TRUE(s.get(&v, FP64));
  EXPECT_EQ(v, 6);
}

// ---- transpose, extract, kronecker -----------------------------------------------------------------------
TEST_P(OpsSmoke, Transpose) {
  Matrix C(FP64, 3, 2);
  transpose(C, nullptr, nullptr, A);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{1, 0}, 2}, {{1, 1}, 3}, {{2, 1}, 4}}));
  Matrix D(FP64, 2, 3);
  Descriptor t0;
  t0.transpose_first = true;
  transpose(D, nullptr, nullptr, A, t0);  // transposed twice: D = A
  EXPECT_EQ(read(D), read(A));
  // aliased square: S = S^T
  Matrix S = mat(2, 2, {{{0, 1}, 5}});
  transpose(S, nullptr, nullptr, S);
  EXPECT_EQ(read(S), (Entries{{{1, 0}, 5}}));
  expect_error(Info::DimensionMismatch, [&] { transpose(D, nullptr, nullptr, A); });
  EXPECT_EQ(read(D), read(A));
}

TEST_P(OpsSmoke, Extract) {
  Index I[] = {1, 0, 1};
  Index J[] = {2, 1};
  Matrix C(FP64, 3, 2);
  extract(C, nullptr, nullptr, A, I, 3, J, 2);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 4}, {{0, 1}, 3}, {{1, 1}, 2}, {{2, 0}, 4}, {{2, 1}, 3}}));
  // transposed input: A^T(J, [1, 0]) with J = {2, 1}
  Index K[] = {1, 0};
  Matrix D(FP64, 2, 2);
  Descriptor t0;
  t0.transpose_first = true;
  extract(D, nullptr, nullptr, A, J, 2, K, 2, t0);  // rows 2,1 of A^T; cols 1,0 of A^T
  EXPECT_EQ(read(D), (Entries{{{0, 0}, 4}, {{1, 0}, 3}, {{1, 1}, 2}}));
  // GrB_ALL
  Matrix F(FP64, 2, 3);
  extract(F, nullptr, nullptr, A, nullptr, 2, nullptr, 3);
  EXPECT_EQ(read(F), read(A));
  // vector and column
  Vector u = vec(5, {{0, 1}, {3, 4}});
  Index L[] = {3, 3, 2};
  Vector w(FP64, 3);
  extract(w, nullptr, nullptr, u, L, 3);
  EXPECT_EQ(read(w), (std::map<Index, double>{{0, 4}, {1, 4}}));
  Vector col(FP64, 2);
  extract_column(col, nullptr, nullptr, A, nullptr, 2, 1);
  EXPECT_EQ(read(col), (std::map<Index, double>{{0, 2}, {1, 3}}));
  Vector row(FP64, 3);
  extract_column(row, nullptr, nullptr, A, nullptr, 3, 1, t0);  // A^T(:, 1) = row 1 of A
  EXPECT_EQ(read(row), (std::map<Index, double>{{1, 3}, {2, 4}}));
  // errors: index out of bounds (IndexOutOfBounds), column index (InvalidIndex), length (DimensionMismatch)
  Index bad[] = {0, 7, 1};
  Entries before = read(C);
  expect_error(Info::IndexOutOfBounds, [&] { extract(C, nullptr, nullptr, A, bad, 3, J, 2); });
  expect_error(Info::DimensionMismatch, [&] { extract(C, nullptr, nullptr, A, I, 2, J, 2); });
  expect_error(Info::InvalidIndex, [&] { extract_column(col, nullptr, nullptr, A, nullptr, 2, 3); });
  EXPECT_EQ(read(C), before);
}

TEST_P(OpsSmoke, Kronecker) {
  Matrix X = mat(1, 2, {{{0, 0}, 1}, {{0, 1}, 2}});
  Matrix Y = mat(2, 1, {{{0, 0}, 3}, {{1, 0}, 4}});
  Matrix C(FP64, 2, 2);
  kronecker(C, nullptr, nullptr, *builtin_binary_op(BinaryOpcode::Times, TypeCode::FP64), X, Y);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 3}, {{1, 0}, 4}, {{0, 1}, 6}, {{1, 1}, 8}}));
  Matrix D(FP64, 4, 1);
  Descriptor t0;
  t0.transpose_first = true;
  kronecker(D, nullptr, nullptr, *builtin_binary_op(BinaryOpcode::Times, TypeCode::FP64), X, Y, t0);
  EXPECT_EQ(read(D), (Entries{{{0, 0}, 3}, {{1, 0}, 4}, {{2, 0}, 6}, {{3, 0}, 8}}));
  expect_error(Info::DimensionMismatch,
               [&] { kronecker(D, nullptr, nullptr, *builtin_binary_op(BinaryOpcode::Times, TypeCode::FP64), X, Y); });
}

// ---- assign --------------------------------------------------------------------------------------------
TEST_P(OpsSmoke, AssignMatrixAndVector) {
  Matrix C = mat(3, 3, {{{0, 0}, 1}, {{1, 1}, 2}, {{2, 2}, 3}});
  Matrix R = mat(2, 2, {{{0, 0}, 10}, {{1, 0}, 20}});
  Index I[] = {2, 0};
  Index J[] = {0, 2};
  assign(C, nullptr, nullptr, R, I, 2, J, 2);  // C(2,0)=10, C(0,0)=20; C(2,2), C(0,2) deleted (none at (0,2))
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 20}, {{1, 1}, 2}, {{2, 0}, 10}}));
  assign(C, nullptr, plus(), R, I, 2, J, 2);  // accumulate: region entries R lacks are kept
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 40}, {{1, 1}, 2}, {{2, 0}, 20}}));
  // an accumulator of other domains than C's (MINUS on INT32 over an FP64 C): values cast per the spec
  // C(0,0) = (int)40 - (int)2.5 = 38
  assign(C, nullptr, builtin_binary_op(BinaryOpcode::Minus, TypeCode::Int32), mat(2, 2, {{{1, 0}, 2.5}}), I, 2,
         J, 2);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 38}, {{1, 1}, 2}, {{2, 0}, 20}}));
  // a mask over the whole of C with replace: positions outside the region are cleared where M is false
  Matrix M = mat(3, 3, {{{0, 0}, 1}, {{2, 0}, 1}}, &types::Bool);
  Descriptor rep;
  rep.replace = true;
  assign(C, &M, nullptr, R, I, 2, J, 2, rep);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 20}, {{2, 0}, 10}}));
  // vector, aliased: u(I) = u
  Vector u = vec(4, {{0, 1}, {1, 2}});
  Vector small = vec(2, {{0, 5}});
  Index K[] = {3, 1};
  assign(u, nullptr, nullptr, small, K, 2);
  EXPECT_EQ(read(u), (std::map<Index, double>{{0, 1}, {3, 5}}));
  // errors leave C unchanged
  Entries before = read(C);
  Index bad[] = {0, 3};
  expect_error(Info::IndexOutOfBounds, [&] { assign(C, nullptr, nullptr, R, bad, 2, J, 2); });
  expect_error(Info::DimensionMismatch, [&] { assign(C, nullptr, nullptr, R, I, 2, J, 1); });
  Index four_past[] = {0, 1, 2, 3};  // more indices than nrows(C): the one past the end decides
  expect_error(Info::IndexOutOfBounds,
               [&] { assign(C, nullptr, nullptr, Matrix(FP64, 4, 2), four_past, 4, J, 2); });
  EXPECT_EQ(read(C), before);
  // more indices than nrows(C), all in range: duplicates, the last occurrence wins (no error)
  Index four[] = {0, 1, 2, 0};
  Matrix R4 = mat(4, 2, {{{0, 0}, 1}, {{3, 0}, 4}});
  assign(C, nullptr, nullptr, R4, four, 4, J, 2);
  const Entries after = read(C);
  EXPECT_EQ(after.count({0, J[0]}), 1u);
  if (after.count({0, J[0]})) EXPECT_EQ(after.at({0, J[0]}), 4);
}

TEST_P(OpsSmoke, AssignScalar) {
  Matrix C = mat(3, 3, {{{0, 0}, 1}, {{1, 1}, 2}, {{2, 2}, 3}});
  Index I[] = {0, 1};
  assign_scalar(C, nullptr, nullptr, scalar(7), I, 2, nullptr, 3);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 7}, {{0, 1}, 7}, {{0, 2}, 7}, {{1, 0}, 7}, {{1, 1}, 7}, {{1, 2}, 7},
                              {{2, 2}, 3}}));
  // an empty scalar: with accum nothing changes, without it the region's entries are deleted
  Scalar empty(FP64);
  assign_scalar(C, nullptr, plus(), empty, I, 2, nullptr, 3);
  EXPECT_EQ(read(C).size(), 7u);
  assign_scalar(C, nullptr, nullptr, empty, I, 2, nullptr, 3);
  EXPECT_EQ(read(C), (Entries{{{2, 2}, 3}}));
  // masked, whole matrix, complemented
  Matrix M = mat(3, 3, {{{0, 0}, 1}, {{2, 2}, 1}}, &types::Bool);
  Descriptor comp;
  comp.mask_complement = true;
  comp.mask_structure = true;
  Matrix D(FP64, 3, 3);
  assign_scalar(D, &M, nullptr, scalar(1), nullptr, 3, nullptr, 3, comp);
  EXPECT_EQ(read(D).size(), 7u);
  // vector: w<m> = 4 with accum
  Vector w = vec(3, {{0, 1}, {2, 1}});
  Vector m = vec(3, {{0, 1}, {1, 1}}, &types::Bool);
  assign_scalar(w, &m, plus(), scalar(4), nullptr, 3);
  EXPECT_EQ(read(w), (std::map<Index, double>{{0, 5}, {1, 4}, {2, 1}}));
}

TEST_P(OpsSmoke, AssignScalarOnHypersparseMaskIsCheap) {
  const Index n = 1000000;
  Matrix M(&types::Bool, n, n);
  Matrix C(FP64, n, n);
  const bool t = true;
  for (Index k = 0; k < 100; ++k) M.set_element(k * 9973, (k * 7919) % n, &t, &types::Bool);
  double one = 1;
  C.set_element(5, 5, &one, FP64);
  auto start = std::chrono::steady_clock::now();
  assign_scalar(C, &M, nullptr, scalar(3), nullptr, n, nullptr, n);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0);
  Entries e = read(C);
  EXPECT_EQ(e.size(), 101u);
  EXPECT_EQ((e[{5, 5}]), 1);
  EXPECT_EQ((e[{9973, 7919}]), 3);
  // without a mask the dense region is refused with OutOfMemory, C unchanged
  expect_error(Info::OutOfMemory, [&] { assign_scalar(C, nullptr, nullptr, scalar(3), nullptr, n, nullptr, n); });
  EXPECT_EQ(read(C).size(), 101u);
  // no mask, complemented: every position is masked out, so nothing is built; replace clears C
  Descriptor comp;
  comp.mask_complement = true;
  assign_scalar(C, nullptr, nullptr, scalar(3), nullptr, n, nullptr, n, comp);
  EXPECT_EQ(read(C).size(), 101u);
  comp.replace = true;
  assign_scalar(C, nullptr, nullptr, scalar(3), nullptr, n, nullptr, n, comp);
  EXPECT_EQ(C.nvals(), 0u);
}

TEST_P(OpsSmoke, AssignRowAndColumn) {
  Matrix C = mat(3, 3, {{{0, 0}, 1}, {{1, 0}, 2}, {{1, 2}, 3}, {{2, 1}, 4}});
  Vector u = vec(2, {{0, 9}});
  Index J[] = {2, 0};
  // Row 1 with J = {2, 0}: u(0) = 9 goes to column 2, where the mask is false (and replace deletes the old
  // C(1,2)); u(1) has no entry, so column 0 (mask true) loses C(1,0). Rows 0 and 2 are never touched.
  Vector m = vec(3, {{0, 1}, {1, 1}}, &types::Bool);
  Descriptor rep;
  rep.replace = true;
  assign_row(C, &m, nullptr, u, 1, J, 2, rep);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{2, 1}, 4}}));  // other rows untouched even with replace
  // column 1 without mask, accumulate
  Vector v = vec(3, {{0, 5}, {2, 6}});
  assign_column(C, nullptr, plus(), v, nullptr, 3, 1);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{0, 1}, 5}, {{2, 1}, 10}}));
  // column with a mask and replace: only column 2 changes
  Vector mc = vec(3, {{2, 1}}, &types::Bool);
  Index I2[] = {2};
  assign_column(C, &mc, nullptr, vec(1, {{0, 8}}), I2, 1, 2, rep);
  EXPECT_EQ(read(C), (Entries{{{0, 0}, 1}, {{0, 1}, 5}, {{2, 1}, 10}, {{2, 2}, 8}}));
  // errors: row index out of range is InvalidIndex (spec), C unchanged
  Entries before = read(C);
  expect_error(Info::InvalidIndex, [&] { assign_row(C, nullptr, nullptr, u, 3, J, 2); });
  expect_error(Info::InvalidIndex, [&] { assign_column(C, nullptr, nullptr, v, nullptr, 3, 5); });
  Vector short_mask(&types::Bool, 2);
  expect_error(Info::DimensionMismatch, [&] { assign_row(C, &short_mask, nullptr, u, 0, J, 2); });
  expect_error(Info::DimensionMismatch, [&] { assign_row(C, nullptr, nullptr, u, 0, J, 1); });
  Index Jbad[] = {0, 3};
  expect_error(Info::IndexOutOfBounds, [&] { assign_row(C, nullptr, nullptr, u, 0, Jbad, 2); });
  EXPECT_EQ(read(C), before);
}

// ---- argument errors -----------------------------------------------------------------------------------
TEST_P(OpsSmoke, ArgumentErrorsLeaveTheOutputUnchanged) {
  Matrix C = mat(2, 2, {{{0, 0}, 42}});
  Entries before = read(C);
  // inner dimension
  expect_error(Info::DimensionMismatch, [&] { mxm(C, nullptr, nullptr, plus_times(), A, A); });
  // mask of the wrong size
  Matrix M(&types::Bool, 3, 3);
  expect_error(Info::DimensionMismatch, [&] { mxm(C, &M, nullptr, plus_times(), A, B); });
  // a valued mask of a user-defined type is a domain mismatch; a structural one is fine
  Type* udt = new_user_type(16, "pair");
  Matrix MU(udt, 2, 2);
  expect_error(Info::DomainMismatch, [&] { mxm(C, &MU, nullptr, plus_times(), A, B); });
  EXPECT_EQ(read(C), before);
  // a user-defined type against a builtin operator
  Matrix AU(udt, 2, 3);
  expect_error(Info::DomainMismatch, [&] { mxm(C, nullptr, nullptr, plus_times(), AU, B); });
  Matrix CU(udt, 2, 2);
  expect_error(Info::DomainMismatch, [&] { mxm(CU, nullptr, nullptr, plus_times(), A, B); });
  expect_error(Info::DomainMismatch, [&] { ewise_add(C, nullptr, nullptr, *plus(), CU, CU); });
  EXPECT_EQ(read(C), before);
  Descriptor s;
  s.mask_structure = true;
  mxm(C, &MU, nullptr, plus_times(), A, B, s);  // MU has no entries: nothing written
  EXPECT_EQ(read(C), before);
  delete udt;
}

INSTANTIATE_TEST_SUITE_P(Backends, OpsSmoke, ::testing::ValuesIn(available_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// ---- the backend controls ------------------------------------------------------------------------------
TEST(Backend, Controls) {
  auto names = available_backends();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "reference");
  set_backend("reference");
  EXPECT_EQ(current_backend(), "reference");
  expect_error(Info::InvalidValue, [] { set_backend("no-such-backend"); });
  expect_error(Info::InvalidValue, [] { BackendScope scope("no-such-backend"); });
  EXPECT_EQ(current_backend(), "reference");
  for (const auto& n : names) {
    BackendScope scope(n);
    EXPECT_EQ(current_backend(), n);
    {
      BackendScope inner("reference");
      EXPECT_EQ(current_backend(), "reference");
    }
    EXPECT_EQ(current_backend(), n);
  }
  EXPECT_EQ(current_backend(), "reference");
  reset_fallback_counts();
  EXPECT_EQ(fallback_total("reference"), 0u);
  EXPECT_TRUE(fallback_counts("kokkos").empty());
  bool was = deterministic();
  set_deterministic(true);
  EXPECT_TRUE(deterministic());
  set_deterministic(was);
  const BindPolicy policy = bind_policy();
  for (BindPolicy p : {BindPolicy::Eager, BindPolicy::Never, BindPolicy::Auto}) {
    set_bind_policy(p);
    EXPECT_EQ(bind_policy(), p);
  }
  try {   // not a policy: refused, the setting kept
    set_bind_policy(static_cast<BindPolicy>(7));
    ADD_FAILURE() << "an invalid bind policy was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.info(), Info::InvalidValue);
  }
  EXPECT_EQ(bind_policy(), BindPolicy::Auto);
  set_bind_policy(policy);
}

}  // namespace
