// tests/core/test_mask_spec.cpp: the executable specification of the mask / accumulator / replace step,
// core::apply_mask_accum (C<M, replace> = C (.) T, C API spec 2.0).
//
// Part 1 is a set of hand-checked cases on 2 x 2 matrices whose expected results are written out in the
// test, each with a comment deriving it from the spec's definition, so that a reader can verify the rule
// itself: no mask, valued mask (with stored false entries), structural mask, complemented masks, replace on
// and off, a non-commutative accumulator (MINUS: the order is C (.) T), typecasts of T and of the
// accumulator's inputs and output, and "no mask + complement".
// Part 2 is a brute-force oracle: a dense, position-by-position implementation of the same definition,
// written here independently of src/mask, compared byte for byte with apply_mask_accum on many random
// small matrices (random patterns, types, shapes including hypersparse ones) for every combination of mask
// kind, complement, replace and accumulator. The operators are defined in this file (not taken from the
// algebra), so the test checks the step and nothing else.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/internal.hpp"
#include "snack/containers.hpp"

namespace {

using snk::BinaryOp;
using snk::BinaryOpcode;
using snk::Index;
using snk::Matrix;
using snk::Type;
namespace types = snk::types;

// ---- operators defined by the test --------------------------------------------------------------------

template <class Z, class X, class Y>
void minus_fn(void* z, const void* x, const void* y) {
  X a;
  Y b;
  std::memcpy(&a, x, sizeof(X));
  std::memcpy(&b, y, sizeof(Y));
  const Z r = static_cast<Z>(static_cast<double>(a) - static_cast<double>(b));
  std::memcpy(z, &r, sizeof(Z));
}

template <class X, class Y>
void lt_fn(void* z, const void* x, const void* y) {
  X a;
  Y b;
  std::memcpy(&a, x, sizeof(X));
  std::memcpy(&b, y, sizeof(Y));
  const bool r = static_cast<double>(a) < static_cast<double>(b);
  std::memcpy(z, &r, 1);
}

const BinaryOp kMinusFP64{BinaryOpcode::User, &types::FP64, &types::FP64, &types::FP64,
                          &minus_fn<double, double, double>, "test_minus_fp64"};
const BinaryOp kMinusInt32{BinaryOpcode::User, &types::Int32, &types::Int32, &types::Int32,
                           &minus_fn<std::int32_t, std::int32_t, std::int32_t>, "test_minus_int32"};
const BinaryOp kLtFP64{BinaryOpcode::User, &types::Bool, &types::FP64, &types::FP64, &lt_fn<double, double>,
                       "test_lt_fp64"};
// Mixed domains: z FP32 = x INT16 - y FP64.
const BinaryOp kMinusMixed{BinaryOpcode::User, &types::FP32, &types::Int16, &types::FP64,
                           &minus_fn<float, std::int16_t, double>, "test_minus_mixed"};

// ---- small matrices written as grids -----------------------------------------------------------------

// A grid lists the positions row by row: "." is no entry, anything else a number (strtod).
Matrix grid(const Type* type, Index nrows, Index ncols, std::vector<const char*> cells) {
  EXPECT_EQ(cells.size(), nrows * ncols);
  std::vector<Index> I, J;
  std::vector<double> X;
  for (Index k = 0; k < cells.size(); ++k) {
    if (std::string(cells[k]) == ".") continue;
    I.push_back(k / ncols);
    J.push_back(k % ncols);
    X.push_back(std::strtod(cells[k], nullptr));
  }
  Matrix A(type, nrows, ncols);
  A.build(I.data(), J.data(), X.data(), &types::FP64, I.size(), nullptr);
  return A;
}

// The content of A as a grid of strings (values read as FP64, printed with %.17g).
std::vector<std::string> as_grid(const Matrix& A) {
  std::vector<std::string> out(A.nrows() * A.ncols(), ".");
  const Index n = A.nvals();
  std::vector<Index> I(n), J(n);
  std::vector<double> X(n);
  A.extract_tuples(I.data(), J.data(), X.data(), &types::FP64);
  for (Index k = 0; k < n; ++k) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", X[k]);
    out[I[k] * A.ncols() + J[k]] = buf;
  }
  return out;
}

std::vector<std::string> strings(std::vector<const char*> cells) { return {cells.begin(), cells.end()}; }

enum class MaskKind { None, Valued, Structural };

// Runs the step on copies of C and T and returns the new C as a grid.
std::vector<std::string> step(const Matrix& C0, MaskKind kind, bool complement, const BinaryOp* accum,
                              const Matrix& T0, bool replace, const Matrix* M) {
  Matrix C(C0);
  Matrix T(T0);
  snk::core::apply_mask_accum(C, kind == MaskKind::None ? nullptr : M, kind == MaskKind::Structural, complement,
                              accum, std::move(T), replace);
  return as_grid(C);
}

// The shared inputs of the hand-checked cases (2 x 2, positions (0,0) (0,1) / (1,0) (1,1)):
//   C = [1  2 ]     T = [10  . ]     M = [1  . ]   (INT32; M(1,0) is a stored 0 = false when valued)
//       [.  4 ]         [30  40]         [0  1 ]
// So the valued mask is true at (0,0) and (1,1) only; the structural mask is true at (0,0), (1,0), (1,1).
class MaskSpec : public ::testing::Test {
 protected:
  Matrix C = grid(&types::Int32, 2, 2, {"1", "2", ".", "4"});
  Matrix T = grid(&types::Int32, 2, 2, {"10", ".", "30", "40"});
  Matrix M = grid(&types::Int32, 2, 2, {"1", ".", "0", "1"});
};

TEST_F(MaskSpec, NoMaskNoAccumIsAssignment) {
  // Mask true everywhere, Z = T: C becomes T (C's own (0,1) disappears since T has none there).
  EXPECT_EQ(step(C, MaskKind::None, false, nullptr, T, false, &M), strings({"10", ".", "30", "40"}));
  // Replace changes nothing without a mask.
  EXPECT_EQ(step(C, MaskKind::None, false, nullptr, T, true, &M), strings({"10", ".", "30", "40"}));
}

TEST_F(MaskSpec, NoMaskAccumIsUnionInOrderCThenT) {
  // Z = C (.) T with MINUS: (0,0) 1-10 = -9; (0,1) only C: 2; (1,0) only T: 30; (1,1) 4-40 = -36.
  // (T - C would give 9 and 36: the sign checks the operand order.)
  EXPECT_EQ(step(C, MaskKind::None, false, &kMinusInt32, T, false, &M), strings({"-9", "2", "30", "-36"}));
}

TEST_F(MaskSpec, ValuedMask) {
  // Mask true at (0,0), (1,1): they take Z = T (10, 40). Elsewhere C keeps its entries: (0,1) = 2, and
  // (1,0) stays empty although T has 30 there, because M(1,0) is a stored 0 (false).
  EXPECT_EQ(step(C, MaskKind::Valued, false, nullptr, T, false, &M), strings({"10", "2", ".", "40"}));
  // With replace, positions where the mask is false lose their entries: (0,1) goes.
  EXPECT_EQ(step(C, MaskKind::Valued, false, nullptr, T, true, &M), strings({"10", ".", ".", "40"}));
}

TEST_F(MaskSpec, StructuralMask) {
  // Structure of M: (0,0), (1,0), (1,1) are true (the stored 0 counts). (1,0) takes T's 30.
  EXPECT_EQ(step(C, MaskKind::Structural, false, nullptr, T, false, &M), strings({"10", "2", "30", "40"}));
  // Replace drops (0,1), the only false position holding an entry.
  EXPECT_EQ(step(C, MaskKind::Structural, false, nullptr, T, true, &M), strings({"10", ".", "30", "40"}));
}

TEST_F(MaskSpec, ComplementedValuedMask) {
  // !valued M is true at (0,1), (1,0). (0,1): Z = T has no entry there, so C(0,1) is deleted; (1,0) = 30.
  // False at (0,0), (1,1): C keeps 1 and 4.
  EXPECT_EQ(step(C, MaskKind::Valued, true, nullptr, T, false, &M), strings({"1", ".", "30", "4"}));
  // Replace: (0,0) and (1,1) are false and lose their entries.
  EXPECT_EQ(step(C, MaskKind::Valued, true, nullptr, T, true, &M), strings({".", ".", "30", "."}));
}

TEST_F(MaskSpec, ComplementedStructuralMask) {
  // !structure(M) is true only at (0,1), where Z has no entry: C(0,1) is deleted; the rest is kept.
  EXPECT_EQ(step(C, MaskKind::Structural, true, nullptr, T, false, &M), strings({"1", ".", ".", "4"}));
  // Replace: everything false is cleared too, so C ends empty.
  EXPECT_EQ(step(C, MaskKind::Structural, true, nullptr, T, true, &M), strings({".", ".", ".", "."}));
}

TEST_F(MaskSpec, MaskWithAccumulator) {
  // Valued mask, MINUS: Z = [-9 2; 30 -36]; true at (0,0), (1,1) -> -9, -36; false elsewhere keeps C
  // ((0,1) = 2, (1,0) empty).
  EXPECT_EQ(step(C, MaskKind::Valued, false, &kMinusInt32, T, false, &M), strings({"-9", "2", ".", "-36"}));
  // Structural mask, MINUS, replace: true at (0,0), (1,0), (1,1) -> -9, 30, -36; (0,1) false -> deleted.
  EXPECT_EQ(step(C, MaskKind::Structural, false, &kMinusInt32, T, true, &M), strings({"-9", ".", "30", "-36"}));
  // Complemented valued mask, MINUS: true at (0,1) -> Z = C only = 2; (1,0) -> Z = T only = 30;
  // false at (0,0), (1,1) keeps 1 and 4.
  EXPECT_EQ(step(C, MaskKind::Valued, true, &kMinusInt32, T, false, &M), strings({"1", "2", "30", "4"}));
}

TEST_F(MaskSpec, NoMaskComplemented) {
  // No mask with complement: the mask is false everywhere. Without replace C is unchanged (with or without
  // an accumulator); with replace C is cleared.
  Matrix Cc(C);
  snk::core::apply_mask_accum(Cc, nullptr, false, true, nullptr, Matrix(T), false);
  EXPECT_EQ(as_grid(Cc), strings({"1", "2", ".", "4"}));
  snk::core::apply_mask_accum(Cc, nullptr, false, true, &kMinusInt32, Matrix(T), false);
  EXPECT_EQ(as_grid(Cc), strings({"1", "2", ".", "4"}));
  snk::core::apply_mask_accum(Cc, nullptr, false, true, nullptr, Matrix(T), true);
  EXPECT_EQ(as_grid(Cc), strings({".", ".", ".", "."}));
}

TEST(MaskSpecCasts, TFP64IntoCInt32) {
  // T's values are cast to C's type INT32 (truncation toward zero; saturation at the range):
  // 2.7 -> 2, -3.9 -> -3, 1e10 -> 2147483647. No mask, no accumulator: C = T.
  Matrix C = grid(&types::Int32, 2, 2, {"1", "2", ".", "4"});
  Matrix T = grid(&types::FP64, 2, 2, {"2.7", ".", "-3.9", "1e10"});
  snk::core::apply_mask_accum(C, nullptr, false, false, nullptr, std::move(T), false);
  EXPECT_EQ(C.type(), &types::Int32);
  EXPECT_EQ(as_grid(C), strings({"2", ".", "-3", "2147483647"}));
}

TEST(MaskSpecCasts, AccumulatorCastsItsInputsAndOutput) {
  Matrix C = grid(&types::Int32, 2, 2, {"1", "2", ".", "4"});
  Matrix T = grid(&types::FP64, 2, 2, {"0.5", ".", "30.25", "40.75"});
  // accum MINUS on FP64: x = (double)C, y = T, z cast to INT32:
  //   (0,0) 1 - 0.5 = 0.5 -> 0; (0,1) C only: 2; (1,0) T only, cast: 30; (1,1) 4 - 40.75 = -36.75 -> -36.
  {
    Matrix Cc(C);
    snk::core::apply_mask_accum(Cc, nullptr, false, false, &kMinusFP64, Matrix(T), false);
    EXPECT_EQ(as_grid(Cc), strings({"0", "2", "30", "-36"}));
  }
  // accum MINUS on INT32: y = (int32)T first: (0,0) 1 - 0 = 1; (1,1) 4 - 40 = -36.
  {
    Matrix Cc(C);
    snk::core::apply_mask_accum(Cc, nullptr, false, false, &kMinusInt32, Matrix(T), false);
    EXPECT_EQ(as_grid(Cc), strings({"1", "2", "30", "-36"}));
  }
  // accum LT on FP64 (z is BOOL) into C FP64: (0,0) 1 < 10 = true -> 1; (1,1) 4 < 40 -> 1; (0,1) C only 2;
  // (1,0) T only 30.
  {
    Matrix Cf = grid(&types::FP64, 2, 2, {"1", "2", ".", "4"});
    Matrix Tf = grid(&types::FP64, 2, 2, {"10", ".", "30", "40"});
    snk::core::apply_mask_accum(Cf, nullptr, false, false, &kLtFP64, std::move(Tf), false);
    EXPECT_EQ(as_grid(Cf), strings({"1", "2", "30", "1"}));
  }
}

TEST(MaskSpecCasts, MaskValuesAreCastToBool) {
  // A FP64 mask [-0.0  NaN  0.25  .]: -0.0 is false, NaN and 0.25 are true, the missing entry is false.
  // C = [1 2 3 4], T = [10 20 30 40]: C becomes [1 20 30 4].
  Matrix C = grid(&types::Int32, 1, 4, {"1", "2", "3", "4"});
  Matrix T = grid(&types::Int32, 1, 4, {"10", "20", "30", "40"});
  Matrix M(&types::FP64, 1, 4);
  const Index I[] = {0, 0, 0}, J[] = {0, 1, 2};
  const double X[] = {-0.0, std::numeric_limits<double>::quiet_NaN(), 0.25};
  M.build(I, J, X, &types::FP64, 3, nullptr);
  EXPECT_FALSE(snk::core::mask_value_true(M, 0));
  EXPECT_TRUE(snk::core::mask_value_true(M, 1));
  EXPECT_TRUE(snk::core::mask_value_true(M, 2));
  snk::core::apply_mask_accum(C, &M, false, false, nullptr, std::move(T), false);
  EXPECT_EQ(as_grid(C), strings({"1", "20", "30", "4"}));
}

TEST(MaskSpecCasts, VectorStaysVectorAndErrorsLeaveCUnchanged) {
  snk::Vector w(&types::FP64, 3);
  const double one = 1;
  w.set_element(1, &one, &types::FP64);
  snk::Vector t(&types::FP64, 3);
  const double five = 5;
  t.set_element(2, &five, &types::FP64);
  snk::core::apply_mask_accum(w.as_matrix(), nullptr, false, false, &kMinusFP64, std::move(t.as_matrix()), false);
  EXPECT_TRUE(w.as_matrix().is_vector());
  EXPECT_EQ(as_grid(w.as_matrix()), strings({".", "1", "5"}));
  // Wrong dimensions of T or M: DimensionMismatch, C unchanged.
  Matrix bad(&types::FP64, 1, 4);
  try {
    snk::core::apply_mask_accum(w.as_matrix(), nullptr, false, false, nullptr, Matrix(bad), false);
    FAIL() << "expected DimensionMismatch";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), snk::Info::DimensionMismatch);
  }
  Matrix t2(&types::FP64, 1, 3);
  try {
    snk::core::apply_mask_accum(w.as_matrix(), &bad, false, false, nullptr, std::move(t2), true);
    FAIL() << "expected DimensionMismatch";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), snk::Info::DimensionMismatch);
  }
  EXPECT_EQ(as_grid(w.as_matrix()), strings({".", "1", "5"}));
}

TEST_F(MaskSpec, AliasedArguments) {
  // C<C> = C (.) C with MINUS, valued mask C = [1 2; . 4] (all true where stored): every entry becomes
  // x - x = 0, and nothing is added.
  Matrix Cc(C);
  snk::core::apply_mask_accum(Cc, &Cc, false, false, &kMinusInt32, std::move(Cc), false);
  EXPECT_EQ(as_grid(Cc), strings({"0", "0", ".", "0"}));
  // T handed over as the mask too: C<T> = T, structural: C becomes T where T is stored, keeps (0,1) = 2.
  Matrix Cd(C), Td(T);
  snk::core::apply_mask_accum(Cd, &Td, true, false, nullptr, std::move(Td), false);
  EXPECT_EQ(as_grid(Cd), strings({"10", "2", "30", "40"}));
}

// ---- the brute-force oracle --------------------------------------------------------------------------

using Cell = std::optional<std::vector<unsigned char>>;   // a position: no entry, or a value's bytes

std::vector<Cell> dense_of(const Matrix& A) {
  std::vector<Cell> d(A.nrows() * A.ncols());
  const Index n = A.nvals();
  const std::size_t es = A.type()->size;
  std::vector<Index> I(n), J(n);
  std::vector<unsigned char> X(n * es);
  A.extract_tuples(I.data(), J.data(), X.data(), A.type());
  for (Index k = 0; k < n; ++k)
    d[I[k] * A.ncols() + J[k]] = std::vector<unsigned char>(X.begin() + k * es, X.begin() + (k + 1) * es);
  return d;
}

std::vector<unsigned char> cast_bytes(const Type* to, const Type* from, const std::vector<unsigned char>& v) {
  std::vector<unsigned char> r(to->size);
  if (to == from) return v;
  snk::cast_function(to, from)(r.data(), v.data());
  return r;
}

// (value != 0) of one value of a builtin type, through the cast to BOOL (the spec: a mask value is cast to bool).
bool truthy(const Type* t, const std::vector<unsigned char>& v) {
  std::vector<unsigned char> b = cast_bytes(&types::Bool, t, v);
  return b[0] != 0;
}

// The spec's definition, position by position.
std::vector<Cell> oracle(const Matrix& C, const Matrix* M, bool structural, bool complement, const BinaryOp* accum,
                         const Matrix& T, bool replace) {
  const std::vector<Cell> c = dense_of(C), t = dense_of(T);
  std::vector<Cell> m;
  if (M) m = dense_of(*M);
  std::vector<Cell> out(c.size());
  for (std::size_t q = 0; q < c.size(); ++q) {
    // Z(q)
    Cell z;
    if (accum) {
      if (c[q] && t[q]) {
        auto x = cast_bytes(accum->xtype, C.type(), *c[q]);
        auto y = cast_bytes(accum->ytype, T.type(), *t[q]);
        std::vector<unsigned char> r(accum->ztype->size);
        accum->fn(r.data(), x.data(), y.data());
        z = cast_bytes(C.type(), accum->ztype, r);
      } else if (c[q]) {
        z = c[q];
      } else if (t[q]) {
        z = cast_bytes(C.type(), T.type(), *t[q]);
      }
    } else if (t[q]) {
      z = cast_bytes(C.type(), T.type(), *t[q]);
    }
    // mask(q)
    bool mv;
    if (!M) {
      mv = !complement;
    } else {
      mv = m[q].has_value() && (structural || truthy(M->type(), *m[q]));
      if (complement) mv = !mv;
    }
    if (mv) out[q] = z;
    else if (!replace) out[q] = c[q];
  }
  return out;
}

const Type* const kTypes[] = {&types::Bool,  &types::Int8,   &types::Int16, &types::Int32,
                              &types::Int64, &types::UInt8,  &types::UInt16, &types::UInt32,
                              &types::UInt64, &types::FP32, &types::FP64};

// A random matrix: each position present with probability density, values small integers or halves
// (never all zero: at least one nonzero value is forced), some exact zeros when zeros is set.
Matrix random_matrix(std::mt19937_64& rng, const Type* type, Index nrows, Index ncols, double density, bool zeros) {
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> v(-40, 40);
  std::vector<Index> I, J;
  std::vector<double> X;
  for (Index i = 0; i < nrows; ++i) {
    for (Index j = 0; j < ncols; ++j) {
      if (u(rng) >= density) continue;
      I.push_back(i);
      J.push_back(j);
      double x = v(rng) * (type == &types::FP32 || type == &types::FP64 ? 0.5 : 1.0);
      if (!zeros && x == 0) x = 3;
      X.push_back(x);
    }
  }
  if (!X.empty()) X[0] = X[0] == 0 ? 7 : X[0];
  Matrix A(type, nrows, ncols);
  A.build(I.data(), J.data(), X.data(), &types::FP64, I.size(), nullptr);
  return A;
}

TEST(MaskSpecOracle, RandomCasesAgainstDenseDefinition) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const BinaryOp* accums[] = {nullptr, &kMinusFP64, &kMinusInt32, &kLtFP64, &kMinusMixed};
  std::uniform_int_distribution<int> pick_type(0, 10), small(1, 5);
  std::uniform_real_distribution<double> u(0, 1);
  int cases = 0;
  for (int round = 0; round < 300; ++round) {
    Index nrows = small(rng), ncols = small(rng);
    double dens = 0.2 + 0.6 * u(rng);
    if (round % 10 == 9) {   // tall and sparse: hypersparse forms
      nrows = 300 + small(rng) * 20;
      ncols = small(rng);
      dens = 0.01;
    }
    const Type* ct = kTypes[pick_type(rng)];
    const Type* tt = kTypes[pick_type(rng)];
    const Type* mt = kTypes[pick_type(rng)];
    const Matrix C0 = random_matrix(rng, ct, nrows, ncols, dens, false);
    const Matrix T0 = random_matrix(rng, tt, nrows, ncols, dens, false);
    const Matrix M0 = random_matrix(rng, mt, nrows, ncols, dens, true);
    for (int kind = 0; kind < 4; ++kind) {   // none, valued, structural, C itself as a valued mask
      for (int comp = 0; comp < 2; ++comp) {
        for (int repl = 0; repl < 2; ++repl) {
          for (const BinaryOp* accum : accums) {
            SCOPED_TRACE("round " + std::to_string(round) + " kind " + std::to_string(kind) + " comp " +
                         std::to_string(comp) + " replace " + std::to_string(repl) + " accum " +
                         (accum ? accum->name : "none") + " types C " + ct->name + " T " + tt->name + " M " +
                         mt->name + " dims " + std::to_string(nrows) + "x" + std::to_string(ncols));
            Matrix C(C0);
            const Matrix* M = kind == 0 ? nullptr : kind == 3 ? &C : &M0;
            const bool structural = kind == 2;
            const std::vector<Cell> expected = oracle(C0, kind == 3 ? &C0 : M, structural, comp, accum, T0, repl);
            snk::core::apply_mask_accum(C, M, structural, comp, accum, Matrix(T0), repl);
            ASSERT_EQ(C.type(), ct);
            ASSERT_EQ(dense_of(C), expected);
            // the result is a valid canonical form
            ASSERT_EQ(C.csr().hyper, C.nrows() > 4 * C.nvals() + 64);
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 300 * 4 * 2 * 2 * 5);
}

}  // namespace
