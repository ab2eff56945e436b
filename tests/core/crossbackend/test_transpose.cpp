// tests/core/crossbackend/test_transpose.cpp: GrB_transpose on the backend under test against reference.
//
// Every type on empty, 0 x n, 1 x 1, rectangular, full and hypersparse (10^6 x 10^6 and 10^6 x 3) inputs;
// the mask x accumulator x replace product; the descriptor's transpose of the input (which makes the call a
// copy, C = A); and C = C' with the output aliasing the input. It also holds the check of the fixture's
// comparison rule (CrossBackendFixture.ComparisonRule).
#include <cmath>

#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

class Transpose : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(Transpose);

TEST_P(Transpose, EveryShape) {
  struct Shape {
    Index m, n;
    double density;
    const char* what;
  };
  const ValueRange values = this->is_float() ? with_specials(0.1) : ValueRange{};
  for (const Shape& sh : std::vector<Shape>{{0, 0, 0.5, "0x0"},    {0, 9, 0.5, "0x9"},       {1, 1, 1.0, "1x1"},
                                            {7, 13, 0.4, "7x13"},  {64, 33, 0.2, "64x33"},  {10, 10, 1.0, "full 10x10"},
                                            {1, 40, 0.5, "1x40"},  {40, 1, 0.5, "40x1"}}) {
    Matrix A = random_matrix(this->type(), sh.m, sh.n, sh.density, this->rng_, values);
    cross_check(std::string("A' of ") + sh.what, Matrix(this->type(), sh.n, sh.m),
                [&](Matrix& C) { transpose(C, nullptr, nullptr, A); });
    Descriptor d;
    d.transpose_first = true;
    cross_check(std::string("(A')' of ") + sh.what, Matrix(this->type(), sh.m, sh.n),
                [&](Matrix& C) { transpose(C, nullptr, nullptr, A, d); });
  }
  const Index n = 1000000;
  Matrix H = sparse_matrix_with(this->type(), n, n, 100, this->rng_, values);
  Matrix R = sparse_matrix_with(this->type(), n, 3, 100, this->rng_, values);
  cross_check("A' of 10^6 x 10^6 with 100 entries", Matrix(this->type(), n, n),
              [&](Matrix& C) { transpose(C, nullptr, nullptr, H); });
  cross_check("A' of 10^6 x 3 with 100 entries", Matrix(this->type(), 3, n),
              [&](Matrix& C) { transpose(C, nullptr, nullptr, R); });
  Matrix M = sparse_matrix_with(&types::Bool, n, n, 100, this->rng_);
  cross_check("C<M> += A' of 10^6 x 10^6", sparse_matrix_with(this->type(), n, n, 50, this->rng_, values),
              [&](Matrix& C) { transpose(C, &M, builtin_binary_op(BinaryOpcode::Plus, this->code()), H); });
  // with a cast into another output type
  Matrix A = random_matrix(this->type(), 6, 9, 0.5, this->rng_, values);
  cross_check("INT16 C = A'", Matrix(&types::Int16, 9, 6), [&](Matrix& C) { transpose(C, nullptr, nullptr, A); });
}

class TransposeFixed : public CrossBackend {};

TEST_F(TransposeFixed, MaskAccumReplaceProduct) {
  for (const Type* t : {&types::FP64, &types::UInt8, &types::Bool}) {
    Matrix A = random_matrix(t, 12, 9, 0.4, rng_);
    Matrix C0 = random_matrix(t, 9, 12, 0.4, rng_);
    Matrix M = random_mask(9, 12, 0.5, rng_);
    for (MaskKind mk : all_mask_kinds())
      for (AccumKind ak : all_accum_kinds())
        for (bool replace : {false, true}) {
          Descriptor d = with_mask({}, mk);
          d.replace = replace;
          cross_check(t->name + " C = A': " + describe(mk, ak, replace), C0, [&](Matrix& C) {
            transpose(C, mk == MaskKind::None ? nullptr : &M, accum_of(ak, t->code), A, d);
          });
        }
  }
}

TEST_F(TransposeFixed, AliasedOutputs) {
  for (const Type* t : {&types::FP32, &types::Int64}) {
    Matrix C0 = random_matrix(t, 13, 13, 0.4, rng_);
    const BinaryOp* minus = builtin_binary_op(BinaryOpcode::Minus, t->code);
    cross_check(t->name + " C = C'", C0, [&](Matrix& C) { transpose(C, nullptr, nullptr, C); });
    cross_check(t->name + " C -= C'", C0, [&](Matrix& C) { transpose(C, nullptr, minus, C); });
    cross_check(t->name + " C<C,replace> = C'", C0, [&](Matrix& C) {
      Descriptor d;
      d.replace = true;
      transpose(C, &C, nullptr, C, d);
    });
    cross_check(t->name + " C<!C,struct> = (C')'", C0, [&](Matrix& C) {
      Descriptor d = with_mask({}, MaskKind::StructuralComplement);
      d.transpose_first = true;
      transpose(C, &C, nullptr, C, d);
    });
  }
}

// The large size class (kLargeRows rows), so that the kokkos kernels run on several threads.
TEST_F(TransposeFixed, LargeParallel) {
  for (const Type* t : {&types::FP64, &types::Int8, &types::Bool}) {
    Matrix A = random_matrix(t, kLargeRows, 300, 0.01, rng_);
    Matrix B = random_matrix(t, 300, kLargeRows, 0.01, rng_);
    cross_check(t->name + " large A'", Matrix(t, 300, kLargeRows), [&](Matrix& C) { transpose(C, nullptr, nullptr, A); });
    cross_check(t->name + " large B'", Matrix(t, kLargeRows, 300), [&](Matrix& C) { transpose(C, nullptr, nullptr, B); });
    Matrix H = sparse_matrix_with(t, kLargeRows, 1000000, 20000, rng_);
    cross_check(t->name + " large A' of " + dims(H), Matrix(t, 1000000, kLargeRows),
                [&](Matrix& C) { transpose(C, nullptr, nullptr, H); });
  }
}

// The comparison rule of the fixture itself (so that an agreeing suite means agreeing outputs): it must see a
// changed value, a missing or extra entry, a type change; and accept NaN == NaN, -0 == +0 and FP rounding.
TEST(CrossBackendFixture, ComparisonRule) {
  Rng rng(7);
  Matrix A = random_matrix(&types::Int32, 6, 6, 0.5, rng);
  Matrix B = A;
  EXPECT_TRUE(same_matrix(A, B));
  const Index n = A.nvals();
  std::vector<Index> I(n), J(n);
  A.extract_tuples(I.data(), J.data(), nullptr, &types::Int32);
  const std::int32_t big = 1000;
  B.set_element(I[0], J[0], &big, &types::Int32);
  EXPECT_FALSE(same_matrix(A, B));
  B = A;
  B.remove_element(I[n - 1], J[n - 1]);
  EXPECT_FALSE(same_matrix(A, B));
  EXPECT_FALSE(same_matrix(B, A));
  Matrix F(&types::FP64, 1, 3), G(&types::FP64, 1, 3);
  const double f[] = {std::nan(""), -0.0, 1.0}, g[] = {-std::nan("1"), 0.0, 1.0 + 1e-14};
  const Index rows[] = {0, 0, 0}, cols[] = {0, 1, 2};
  F.build(rows, cols, f, &types::FP64, 3, nullptr);
  G.build(rows, cols, g, &types::FP64, 3, nullptr);
  EXPECT_TRUE(same_matrix(F, G));
  const double h = 1.0 + 1e-9;
  G.set_element(0, 2, &h, &types::FP64);
  EXPECT_FALSE(same_matrix(F, G));
  EXPECT_FALSE(same_matrix(F, Matrix(&types::FP32, 1, 3)));
}

}  // namespace
}  // namespace xb
