// tests/core/test_containers.cpp: Matrix, Vector and Scalar (include/snack/containers.hpp) on their own.
//
// Covers build (with and without a dup operator, duplicate / out-of-range / non-empty-output errors),
// random sequences of setElement / removeElement / extractElement / extractTuples checked against a
// std::map oracle, hypersparse storage (10^6 x 10^6 with 100 entries stays O(entries)) and the size rule,
// resize, diag, copies and moves (and the 2:4 hint, which belongs to the object), the derived forms (bitmap,
// sorted-COO rows, row_range), adopt, the device-copy protocol (with a fake device copy), core::cast_matrix, Vector
// and Scalar, and that every failing call leaves the object as it was. Inputs are fresh random data; the seed is
// printed on failure.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/internal.hpp"
#include "snack/backend.hpp"
#include "snack/containers.hpp"

namespace {

using snk::BinaryOp;
using snk::BinaryOpcode;
using snk::CsrStorage;
using snk::Index;
using snk::Info;
using snk::Matrix;
using snk::Scalar;
using snk::Vector;
namespace types = snk::types;

using Oracle = std::map<std::pair<Index, Index>, double>;

std::uint64_t fresh_seed() { return std::random_device{}(); }

void plus_fp64(void* z, const void* x, const void* y) {
  double a, b;
  std::memcpy(&a, x, 8);
  std::memcpy(&b, y, 8);
  const double r = a + b;
  std::memcpy(z, &r, 8);
}
// z = 2x - y: not commutative, not associative; shows the order in which duplicates are combined.
void twice_minus_fp64(void* z, const void* x, const void* y) {
  double a, b;
  std::memcpy(&a, x, 8);
  std::memcpy(&b, y, 8);
  const double r = 2 * a - b;
  std::memcpy(z, &r, 8);
}
const BinaryOp kPlus{BinaryOpcode::User, &types::FP64, &types::FP64, &types::FP64, &plus_fp64, "test_plus"};
const BinaryOp kTwiceMinus{BinaryOpcode::User, &types::FP64, &types::FP64, &types::FP64, &twice_minus_fp64,
                           "test_twice_minus"};

// The entries of A (values as FP64) through extract_tuples; also checks row-major order.
Oracle content(const Matrix& A) {
  const Index n = A.nvals();
  std::vector<Index> I(n), J(n);
  std::vector<double> X(n);
  A.extract_tuples(I.data(), J.data(), X.data(), &types::FP64);
  Oracle o;
  for (Index k = 0; k < n; ++k) {
    if (k > 0) {
      EXPECT_TRUE(I[k - 1] < I[k] || (I[k - 1] == I[k] && J[k - 1] < J[k])) << "not row-major at " << k;
    }
    o[{I[k], J[k]}] = X[k];
  }
  return o;
}

// Structural checks of the canonical CSR form.
void expect_canonical(const Matrix& A) {
  const CsrStorage& s = A.csr();
  const Index nv = s.nvals();
  EXPECT_EQ(s.hyper, A.nrows() > 4 * nv + 64);
  EXPECT_EQ(s.x.size(), nv * A.type()->size);
  if (s.hyper) {
    ASSERT_EQ(s.p.size(), s.h.size() + 1);
    for (std::size_t k = 0; k < s.h.size(); ++k) {
      EXPECT_LT(s.p[k], s.p[k + 1]) << "empty hyper slot";
      if (k > 0) {
        EXPECT_LT(s.h[k - 1], s.h[k]);
      }
      EXPECT_LT(s.h[k], A.nrows());
    }
  } else {
    ASSERT_EQ(s.p.size(), A.nrows() + 1);
  }
  EXPECT_EQ(s.p.front(), 0u);
  EXPECT_EQ(s.p.back(), nv);
  for (Index k = 0; k < s.nslots(); ++k)
    for (Index e = s.p[k] + 1; e < s.p[k + 1]; ++e) EXPECT_LT(s.j[e - 1], s.j[e]);
}

template <class F>
Info error_of(F&& f) {
  try {
    f();
  } catch (const snk::Error& e) {
    return e.info();
  }
  return Info::Success;
}

// ---- build ------------------------------------------------------------------------------------------------

TEST(ContainersBuild, WithoutDupMatchesTuples) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20; ++round) {
    const Index nrows = 1 + rng() % 50, ncols = 1 + rng() % 50;
    Oracle o;
    std::vector<Index> I, J;
    std::vector<double> X;
    const int n = static_cast<int>(rng() % 300);
    for (int k = 0; k < n; ++k) {
      const Index i = rng() % nrows, j = rng() % ncols;
      if (o.count({i, j})) continue;
      const double x = static_cast<double>(rng() % 1000) + 0.5;
      o[{i, j}] = x;
      I.push_back(i);
      J.push_back(j);
      X.push_back(x);
    }
    Matrix A(&types::FP64, nrows, ncols);
    A.build(I.data(), J.data(), X.data(), &types::FP64, I.size(), nullptr);
    EXPECT_EQ(A.nvals(), o.size());
    EXPECT_EQ(content(A), o);
    expect_canonical(A);
    // Cast on the way in: INT32 matrix from FP64 values (x.5 truncates).
    Matrix B(&types::Int32, nrows, ncols);
    B.build(I.data(), J.data(), X.data(), &types::FP64, I.size(), nullptr);
    for (auto& [ij, x] : o) {
      std::int32_t v = 0;
      ASSERT_TRUE(B.extract_element(ij.first, ij.second, &v, &types::Int32));
      EXPECT_EQ(v, static_cast<std::int32_t>(x));
    }
  }
}

TEST(ContainersBuild, DupCombinesInInputOrder) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const Index nrows = 7, ncols = 5;
  std::vector<Index> I, J;
  std::vector<double> X;
  Oracle plus, twice_minus;
  for (int k = 0; k < 400; ++k) {
    const Index i = rng() % nrows, j = rng() % ncols;
    const double x = static_cast<double>(rng() % 9) + 1;
    I.push_back(i);
    J.push_back(j);
    X.push_back(x);
    auto it = plus.find({i, j});
    if (it == plus.end()) {
      plus[{i, j}] = x;
      twice_minus[{i, j}] = x;
    } else {
      it->second += x;
      twice_minus[{i, j}] = 2 * twice_minus[{i, j}] - x;   // dup(earlier, later)
    }
  }
  Matrix A(&types::FP64, nrows, ncols);
  A.build(I.data(), J.data(), X.data(), &types::FP64, I.size(), &kPlus);
  EXPECT_EQ(content(A), plus);
  Matrix B(&types::FP64, nrows, ncols);
  B.build(I.data(), J.data(), X.data(), &types::FP64, I.size(), &kTwiceMinus);
  EXPECT_EQ(content(B), twice_minus);
  expect_canonical(B);
}

TEST(ContainersBuild, DuplicateWithoutDupIsAnErrorAndChangesNothing) {
  Matrix A(&types::FP64, 4, 4);
  const Index I[] = {0, 2, 1, 2}, J[] = {1, 3, 1, 3};
  const double X[] = {1, 2, 3, 4};
  try {
    A.build(I, J, X, &types::FP64, 4, nullptr);
    FAIL() << "expected InvalidValue";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), Info::InvalidValue);
    EXPECT_NE(std::string(e.what()).find("duplicate entry (2,3)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(A.nvals(), 0u);
  // The same matrix can then be built.
  A.build(I, J, X, &types::FP64, 3, nullptr);
  EXPECT_EQ(A.nvals(), 3u);
}

TEST(ContainersBuild, OutOfRangeAndNotEmpty) {
  Matrix A(&types::Int32, 3, 4);
  const Index I[] = {0, 3}, J[] = {0, 0};
  const std::int32_t X[] = {5, 6};
  EXPECT_EQ(error_of([&] { A.build(I, J, X, &types::Int32, 2, nullptr); }), Info::IndexOutOfBounds);
  const Index I2[] = {0, 2}, J2[] = {4, 0};
  EXPECT_EQ(error_of([&] { A.build(I2, J2, X, &types::Int32, 2, nullptr); }), Info::IndexOutOfBounds);
  EXPECT_EQ(A.nvals(), 0u);
  const Index I3[] = {0, 2}, J3[] = {1, 3};
  A.build(I3, J3, X, &types::Int32, 2, nullptr);
  const Oracle before = content(A);
  EXPECT_EQ(error_of([&] { A.build(I3, J3, X, &types::Int32, 2, nullptr); }), Info::OutputNotEmpty);
  EXPECT_EQ(content(A), before);
  // A pending setElement also makes the output non-empty.
  Matrix B(&types::Int32, 3, 4);
  const std::int32_t one = 1;
  B.set_element(1, 1, &one, &types::Int32);
  EXPECT_EQ(error_of([&] { B.build(I3, J3, X, &types::Int32, 2, nullptr); }), Info::OutputNotEmpty);
  EXPECT_EQ(B.nvals(), 1u);
  // Null pointers, a user-defined type that does not cast.
  EXPECT_EQ(error_of([&] { B.build(nullptr, J3, X, &types::Int32, 2, nullptr); }), Info::NullPointer);
  std::unique_ptr<snk::Type> udt(snk::new_user_type(3, "three_bytes"));
  Matrix C(&types::Int32, 3, 4);
  EXPECT_EQ(error_of([&] { C.build(I3, J3, X, udt.get(), 2, nullptr); }), Info::DomainMismatch);
  EXPECT_EQ(C.nvals(), 0u);
}

TEST(ContainersBuild, LargeBuildIsFast) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const Index n = 2000000, dim = 1000000;
  std::vector<Index> I(n), J(n);
  std::vector<double> X(n);
  for (Index k = 0; k < n; ++k) {
    I[k] = rng() % dim;
    J[k] = rng() % dim;
    X[k] = 1.0 + static_cast<double>(k % 7);
  }
  Matrix A(&types::FP64, dim, dim);
  const auto t0 = std::chrono::steady_clock::now();
  A.build(I.data(), J.data(), X.data(), &types::FP64, n, &kPlus);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("build of %llu random tuples: %.3f s\n", static_cast<unsigned long long>(n), s);
  EXPECT_LT(s, 30.0);   // catches a quadratic slip, not a slow machine (or a sanitizer build)
  expect_canonical(A);
  double total = 0;
  for (double x : X) total += x;
  std::vector<double> V(A.nvals());
  A.extract_tuples(nullptr, nullptr, V.data(), &types::FP64);
  double sum = 0;
  for (double v : V) sum += v;
  EXPECT_EQ(sum, total);
}

// ---- elements against a map oracle -------------------------------------------------------------------------

TEST(ContainersElements, RandomOpsAgainstMapOracle) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 12; ++round) {
    // Small dense-ish shapes and tall hypersparse ones.
    const Index nrows = round % 3 == 2 ? 100000 : 1 + rng() % 20;
    const Index ncols = 1 + rng() % 20;
    Matrix A(round % 2 ? &types::Int64 : &types::FP64, nrows, ncols);
    Oracle o;
    for (int step = 0; step < 3000; ++step) {
      const Index i = round % 3 == 2 ? rng() % 40 * 2477 : rng() % nrows, j = rng() % ncols;
      const int op = static_cast<int>(rng() % 10);
      if (op < 5) {
        const double x = static_cast<double>(rng() % 100000) - 50000;
        A.set_element(i, j, &x, &types::FP64);
        o[{i, j}] = x;
      } else if (op < 8) {
        A.remove_element(i, j);
        o.erase({i, j});
      } else if (op == 8) {
        double x = -1;
        const bool has = A.extract_element(i, j, &x, &types::FP64);
        auto it = o.find({i, j});
        ASSERT_EQ(has, it != o.end());
        if (has) {
          ASSERT_EQ(x, it->second);
        }
      } else if (rng() % 20 == 0) {
        ASSERT_EQ(A.nvals(), o.size());
        ASSERT_EQ(content(A), o);
        expect_canonical(A);
      }
    }
    A.wait();
    EXPECT_EQ(content(A), o);
    expect_canonical(A);
  }
}

TEST(ContainersElements, LaterSetWinsAndRemoveAfterSet) {
  Matrix A(&types::Int32, 3, 3);
  const std::int32_t a = 1, b = 2, c = 3;
  A.set_element(1, 1, &a, &types::Int32);
  A.set_element(1, 1, &b, &types::Int32);   // pending, later wins
  A.set_element(0, 2, &c, &types::Int32);
  A.remove_element(0, 2);                   // removes a pending entry
  A.set_element(2, 0, &c, &types::Int32);
  EXPECT_EQ(content(A), (Oracle{{{1, 1}, 2}, {{2, 0}, 3}}));
  A.set_element(1, 1, &c, &types::Int32);   // existing entry, nothing pending: in place
  A.remove_element(0, 0);                   // absent: nothing happens
  EXPECT_EQ(content(A), (Oracle{{{1, 1}, 3}, {{2, 0}, 3}}));
  A.remove_element(1, 1);
  A.set_element(1, 1, &a, &types::Int32);   // removed then set again: present
  EXPECT_EQ(content(A), (Oracle{{{1, 1}, 1}, {{2, 0}, 3}}));
}

TEST(ContainersElements, ErrorsLeaveTheMatrixUnchanged) {
  Matrix A(&types::FP64, 3, 4);
  const double x = 2.5;
  A.set_element(2, 3, &x, &types::FP64);
  A.set_element(0, 0, &x, &types::FP64);   // pending
  std::unique_ptr<snk::Type> udt(snk::new_user_type(8, "eight_bytes"));
  double y = 0;
  EXPECT_EQ(error_of([&] { A.set_element(3, 0, &x, &types::FP64); }), Info::InvalidIndex);
  EXPECT_EQ(error_of([&] { A.set_element(0, 4, &x, &types::FP64); }), Info::InvalidIndex);
  EXPECT_EQ(error_of([&] { A.set_element(0, 1, &x, udt.get()); }), Info::DomainMismatch);
  EXPECT_EQ(error_of([&] { A.set_element(0, 1, nullptr, &types::FP64); }), Info::NullPointer);
  EXPECT_EQ(error_of([&] { A.remove_element(5, 0); }), Info::InvalidIndex);
  EXPECT_EQ(error_of([&] { A.extract_element(0, 9, &y, &types::FP64); }), Info::InvalidIndex);
  EXPECT_EQ(error_of([&] { A.extract_element(0, 0, &y, udt.get()); }), Info::DomainMismatch);
  EXPECT_EQ(error_of([&] { A.resize(snk::kIndexMax + 1, 2); }), Info::InvalidValue);
  EXPECT_EQ(A.nrows(), 3u);
  EXPECT_EQ(content(A), (Oracle{{{0, 0}, 2.5}, {{2, 3}, 2.5}}));
  EXPECT_EQ(error_of([&] { Matrix B(&types::FP64, snk::kIndexMax + 1, 1); }), Info::InvalidValue);
  EXPECT_EQ(error_of([&] { Matrix B(nullptr, 1, 1); }), Info::NullPointer);
  EXPECT_EQ(error_of([&] { Matrix B(&types::FP64, snk::kIndexMax, snk::kIndexMax); }), Info::Success);
}

// ---- hypersparse and the size rule --------------------------------------------------------------------

TEST(ContainersHyper, MillionByMillionWithHundredEntries) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const Index dim = 1000000;
  Matrix A(&types::FP64, dim, dim);
  EXPECT_TRUE(A.csr().hyper);
  EXPECT_EQ(A.csr().p.size(), 1u);
  Oracle o;
  std::vector<Index> I, J;
  std::vector<double> X;
  while (o.size() < 100) {
    const Index i = rng() % dim, j = rng() % dim;
    if (o.count({i, j})) continue;
    o[{i, j}] = static_cast<double>(o.size() + 1);
    I.push_back(i);
    J.push_back(j);
    X.push_back(static_cast<double>(o.size()));
  }
  A.build(I.data(), J.data(), X.data(), &types::FP64, 100, nullptr);
  EXPECT_TRUE(A.csr().hyper);
  EXPECT_LE(A.csr().p.size(), 101u);
  EXPECT_LE(A.csr().h.size(), 100u);
  EXPECT_EQ(content(A), o);
  expect_canonical(A);
  // Elements, row_range, coo_rows, copy, resize all stay O(entries).
  for (auto& [ij, x] : o) {
    double v = 0;
    ASSERT_TRUE(A.extract_element(ij.first, ij.second, &v, &types::FP64));
    EXPECT_EQ(v, x);
    Index b, e;
    A.row_range(ij.first, b, e);
    EXPECT_LT(b, e);
  }
  const double z = 42;
  A.set_element(dim - 1, dim - 1, &z, &types::FP64);
  o[{dim - 1, dim - 1}] = z;
  A.remove_element(I[0], J[0]);
  o.erase({I[0], J[0]});
  EXPECT_EQ(content(A), o);
  EXPECT_LE(A.csr().p.size(), 101u);
  Matrix B(A);
  EXPECT_TRUE(B.csr().hyper);
  EXPECT_EQ(content(B), o);
  EXPECT_EQ(A.coo_rows().size(), o.size());
  A.resize(2 * dim, dim / 2);
  EXPECT_TRUE(A.csr().hyper);
  EXPECT_LE(A.csr().p.size(), 101u);
  Oracle kept;
  for (auto& [ij, x] : o)
    if (ij.second < dim / 2) kept[ij] = x;
  EXPECT_EQ(content(A), kept);
}

TEST(ContainersHyper, SizeRuleIsAppliedBothWays) {
  // 100 rows: hyper while 100 > 4 * nvals + 64, i.e. nvals <= 8.
  Matrix A(&types::Int32, 100, 3);
  const std::int32_t one = 1;
  for (Index i = 0; i < 20; ++i) {
    A.set_element(i * 5, i % 3, &one, &types::Int32);
    A.wait();
    EXPECT_EQ(A.csr().hyper, i + 1 <= 8) << "nvals " << i + 1;
    expect_canonical(A);
  }
  for (Index i = 0; i < 20; ++i) {
    A.remove_element(i * 5, i % 3);
    A.wait();
    EXPECT_EQ(A.csr().hyper, 20 - (i + 1) <= 8);
    expect_canonical(A);
  }
  // normalize_format after in-place edits through csr_mutable: empty the last row of a hyper form.
  Matrix H(&types::Int32, 1000, 10);
  const Index I[] = {3, 500}, J[] = {1, 2};
  const std::int32_t X[] = {7, 8};
  H.build(I, J, X, &types::Int32, 2, nullptr);
  CsrStorage& s = H.csr_mutable();
  ASSERT_TRUE(s.hyper);
  s.j.pop_back();
  s.x.resize(4);
  s.p.back() = 1;
  H.normalize_format();
  EXPECT_EQ(H.csr().h.size(), 1u);
  EXPECT_EQ(content(H), (Oracle{{{3, 1}, 7}}));
}

// ---- whole-matrix methods -----------------------------------------------------------------------------------

TEST(ContainersMethods, ResizeDropsOutOfRange) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Matrix A(&types::FP64, 10, 10);
  Oracle o;
  for (int k = 0; k < 60; ++k) {
    const Index i = rng() % 10, j = rng() % 10;
    const double x = static_cast<double>(k + 1);
    A.set_element(i, j, &x, &types::FP64);
    o[{i, j}] = x;
  }
  A.resize(6, 4);
  Oracle kept;
  for (auto& [ij, x] : o)
    if (ij.first < 6 && ij.second < 4) kept[ij] = x;
  EXPECT_EQ(A.nrows(), 6u);
  EXPECT_EQ(A.ncols(), 4u);
  EXPECT_EQ(content(A), kept);
  A.resize(20, 30);
  EXPECT_EQ(content(A), kept);
  expect_canonical(A);
  const double x = 9;
  A.set_element(19, 29, &x, &types::FP64);
  kept[{19, 29}] = 9;
  EXPECT_EQ(content(A), kept);
  A.resize(0, 0);
  EXPECT_EQ(A.nvals(), 0u);
  A.clear();
  EXPECT_EQ(A.nvals(), 0u);
}

TEST(ContainersMethods, ClearKeepsTypeAndDimensions) {
  Matrix A(&types::UInt8, 5, 7);
  const std::uint8_t v = 200;
  A.set_element(4, 6, &v, &types::UInt8);
  A.clear();
  EXPECT_EQ(A.nvals(), 0u);
  EXPECT_EQ(A.nrows(), 5u);
  EXPECT_EQ(A.ncols(), 7u);
  EXPECT_EQ(A.type(), &types::UInt8);
  expect_canonical(A);
}

TEST(ContainersMethods, Diag) {
  Vector v(&types::Int32, 3);
  const std::int32_t a = 4, b = 6;
  v.set_element(0, &a, &types::Int32);
  v.set_element(2, &b, &types::Int32);
  Matrix D0 = Matrix::diag(v, 0);   // 3 x 3, (0,0)=4, (2,2)=6
  EXPECT_EQ(D0.nrows(), 3u);
  EXPECT_EQ(content(D0), (Oracle{{{0, 0}, 4}, {{2, 2}, 6}}));
  Matrix D2 = Matrix::diag(v, 2);   // 5 x 5, (0,2)=4, (2,4)=6
  EXPECT_EQ(D2.nrows(), 5u);
  EXPECT_EQ(D2.ncols(), 5u);
  EXPECT_EQ(content(D2), (Oracle{{{0, 2}, 4}, {{2, 4}, 6}}));
  Matrix Dm = Matrix::diag(v, -1);  // 4 x 4, (1,0)=4, (3,2)=6
  EXPECT_EQ(Dm.nrows(), 4u);
  EXPECT_EQ(content(Dm), (Oracle{{{1, 0}, 4}, {{3, 2}, 6}}));
  EXPECT_EQ(Dm.type(), &types::Int32);
  EXPECT_FALSE(Dm.is_vector());
  expect_canonical(Dm);
  EXPECT_EQ(error_of([&] { Matrix::diag(v, std::int64_t(1) << 62); }), Info::InvalidValue);
}

TEST(ContainersMethods, CopiesAreIndependentAndMovesWork) {
  Matrix A(&types::FP64, 4, 4);
  const double x = 1.5, y = -2;
  A.set_element(1, 2, &x, &types::FP64);
  Matrix B(A);
  B.set_element(3, 3, &y, &types::FP64);
  B.remove_element(1, 2);
  EXPECT_EQ(content(A), (Oracle{{{1, 2}, 1.5}}));
  EXPECT_EQ(content(B), (Oracle{{{3, 3}, -2}}));
  Matrix C(&types::Int8, 1, 1);
  C = A;
  EXPECT_EQ(C.type(), &types::FP64);
  EXPECT_EQ(C.nrows(), 4u);
  A.set_element(0, 0, &y, &types::FP64);
  EXPECT_EQ(content(C), (Oracle{{{1, 2}, 1.5}}));
  Matrix D(std::move(C));
  EXPECT_EQ(content(D), (Oracle{{{1, 2}, 1.5}}));
  Matrix E(&types::Bool, 2, 2);
  E = std::move(D);
  EXPECT_EQ(content(E), (Oracle{{{1, 2}, 1.5}}));
  D = B;   // a moved-from matrix can be assigned to
  EXPECT_EQ(content(D), (Oracle{{{3, 3}, -2}}));
}

// A hint of a matrix (read by get, set by set) belongs to the object: a copy takes it, a move carries it;
// assignments and take() replace the content and keep the destination's. `off` is the default.
template <class Hint, class Get, class Set>
void expect_hint_belongs_to_the_object(Get get, Set set, Hint off, Hint fp16, Hint bf16) {
  Matrix A(&types::FP32, 4, 8);
  EXPECT_EQ(get(A), off);
  set(A, bf16);
  const float x = 1.5f;
  A.set_element(1, 2, &x, &types::FP32);
  Matrix B(A);
  EXPECT_EQ(get(B), bf16);
  Matrix C(&types::FP32, 4, 8);
  set(C, fp16);
  C = A;
  EXPECT_EQ(get(C), fp16);
  EXPECT_EQ(content(C), (Oracle{{{1, 2}, 1.5}}));
  Matrix plain(&types::FP32, 4, 8);
  C = std::move(plain);
  EXPECT_EQ(get(C), fp16);
  Matrix D(std::move(B));
  EXPECT_EQ(get(D), bf16);
  Matrix T(&types::FP32, 4, 8);
  T.set_element(0, 0, &x, &types::FP32);
  D.take(std::move(T));
  EXPECT_EQ(get(D), bf16);
  EXPECT_EQ(content(D), (Oracle{{{0, 0}, 1.5}}));
}

TEST(ContainersMethods, TheTwoFourHintBelongsToTheObject) {
  using Hint = Matrix::TwoFourHint;
  expect_hint_belongs_to_the_object([](const Matrix& M) { return M.two_four_hint(); },
                                    [](Matrix& M, Hint h) { M.set_two_four_hint(h); }, Hint::Off, Hint::FP16,
                                    Hint::BF16);
}

TEST(ContainersMethods, ThePrecisionHintBelongsToTheObject) {
  using Hint = Matrix::PrecisionHint;
  expect_hint_belongs_to_the_object([](const Matrix& M) { return M.precision_hint(); },
                                    [](Matrix& M, Hint h) { M.set_precision_hint(h); }, Hint::FP32, Hint::FP16,
                                    Hint::BF16);
  Matrix A(&types::FP32, 4, 8);
  A.set_precision_hint(Hint::BF16);
  EXPECT_EQ(A.two_four_hint(), Matrix::TwoFourHint::Off) << "the two hints are separate";
}

TEST(ContainersMethods, BitmapCooRowsRowRange) {
  Matrix A(&types::Int16, 3, 4);
  const Index I[] = {0, 0, 2, 2}, J[] = {1, 3, 0, 2};
  const std::int16_t X[] = {11, 13, 20, 22};
  A.build(I, J, X, &types::Int16, 4, nullptr);
  const snk::BitmapStorage& bm = A.bitmap();
  ASSERT_EQ(bm.b.size(), 12u);
  ASSERT_EQ(bm.x.size(), 24u);
  EXPECT_FALSE(bm.full);
  for (Index p = 0; p < 12; ++p) {
    const Index i = p / 4, j = p % 4;
    bool expected = false;
    std::int16_t want = 0;
    for (int k = 0; k < 4; ++k)
      if (I[k] == i && J[k] == j) expected = true, want = X[k];
    EXPECT_EQ(bm.b[p] != 0, expected) << p;
    if (expected) {
      std::int16_t got;
      std::memcpy(&got, &bm.x[p * 2], 2);
      EXPECT_EQ(got, want);
    }
  }
  EXPECT_EQ(A.coo_rows(), (std::vector<Index>{0, 0, 2, 2}));
  Index b, e;
  A.row_range(1, b, e);
  EXPECT_EQ(b, e);
  A.row_range(2, b, e);
  EXPECT_EQ(b, 2u);
  EXPECT_EQ(e, 4u);
  // A change drops the cached forms.
  const std::int16_t v = 5;
  A.set_element(1, 1, &v, &types::Int16);
  EXPECT_EQ(A.coo_rows(), (std::vector<Index>{0, 0, 1, 2, 2}));
  EXPECT_EQ(A.bitmap().b[5], 1);
  // Full.
  Matrix F(&types::Bool, 2, 2);
  const bool t = true;
  for (Index i = 0; i < 2; ++i)
    for (Index j = 0; j < 2; ++j) F.set_element(i, j, &t, &types::Bool);
  EXPECT_TRUE(F.bitmap().full);
  Matrix big(&types::Bool, Index(1) << 20, Index(1) << 20);
  EXPECT_EQ(error_of([&] { big.bitmap(); }), Info::InvalidValue);
}

TEST(ContainersMethods, AdoptChecksItsInput) {
  Matrix A(&types::FP64, 3, 3);
  const double x = 1;
  A.set_element(0, 0, &x, &types::FP64);
  CsrStorage bad;
  bad.p = {0, 1};   // wrong length for 3 rows
  bad.j = {0};
  bad.x.resize(8);
  EXPECT_EQ(error_of([&] { A.adopt(std::move(bad)); }), Info::InvalidValue);
  EXPECT_EQ(content(A), (Oracle{{{0, 0}, 1}}));
  CsrStorage good;
  good.p = {0, 0, 2, 2};
  good.j = {0, 2};
  good.x.resize(16);
  const double v[] = {3, 4};
  std::memcpy(good.x.data(), v, 16);
  A.adopt(std::move(good));
  EXPECT_EQ(content(A), (Oracle{{{1, 0}, 3}, {{1, 2}, 4}}));
}

// ---- device copies ----------------------------------------------------------------------------------------

// A device copy whose "device" is a CsrStorage; counts its downloads, and duplicates itself on the "device" when
// made with clones = true.
class FakeDeviceCopy : public snk::DeviceCopy {
 public:
  FakeDeviceCopy(CsrStorage content, int* downloads, bool clones = false)
      : content_(std::move(content)), downloads_(downloads), clones_(clones) {}
  void download(CsrStorage& host) override {
    ++*downloads_;
    host = content_;
  }
  snk::Index nvals() const override { return content_.nvals(); }
  std::unique_ptr<snk::DeviceCopy> clone() const override {
    return clones_ ? std::make_unique<FakeDeviceCopy>(content_, downloads_, true) : nullptr;
  }
  const char* backend() const override { return "fake"; }

 private:
  CsrStorage content_;
  int* downloads_;
  bool clones_;
};

TEST(ContainersDevice, HostReadDownloadsOnceAndHostWriteDropsTheDeviceCopy) {
  Matrix A(&types::FP64, 2, 3);
  CsrStorage dev;
  dev.p = {0, 1, 2};
  dev.j = {2, 0};
  dev.x.resize(16);
  const double v[] = {7, 8};
  std::memcpy(dev.x.data(), v, 16);
  int downloads = 0;
  A.attach_device_copy(std::make_unique<FakeDeviceCopy>(dev, &downloads), true);
  EXPECT_FALSE(A.host_valid());
  EXPECT_TRUE(A.device_valid());
  EXPECT_EQ(downloads, 0);
  EXPECT_EQ(A.nvals(), 2u);   // from the device copy
  EXPECT_EQ(downloads, 0);
  const snk::Transfers before = snk::transfers();
  EXPECT_EQ(content(A), (Oracle{{{0, 2}, 7}, {{1, 0}, 8}}));
  EXPECT_EQ(snk::transfers().downloads, before.downloads + 1);   // the core counts the download
  EXPECT_EQ(downloads, 1);
  EXPECT_TRUE(A.host_valid());
  EXPECT_TRUE(A.device_valid());   // both copies valid after a read
  ASSERT_NE(A.device_copy(), nullptr);
  EXPECT_STREQ(A.device_copy()->backend(), "fake");
  const double w = 9;
  A.set_element(0, 0, &w, &types::FP64);
  EXPECT_FALSE(A.device_valid());
  EXPECT_EQ(A.device_copy(), nullptr);
  EXPECT_EQ(content(A), (Oracle{{{0, 0}, 9}, {{0, 2}, 7}, {{1, 0}, 8}}));

  // A write while only the device copy is valid downloads first.
  Matrix B(&types::FP64, 2, 3);
  int downloads_b = 0;
  B.attach_device_copy(std::make_unique<FakeDeviceCopy>(dev, &downloads_b), true);
  B.remove_element(1, 0);
  EXPECT_EQ(downloads_b, 1);
  EXPECT_EQ(content(B), (Oracle{{{0, 2}, 7}}));
  // Copies of a device-only matrix read through the device copy.
  Matrix C(&types::FP64, 2, 3);
  int downloads_c = 0;
  C.attach_device_copy(std::make_unique<FakeDeviceCopy>(dev, &downloads_c), true);
  Matrix D(C);
  EXPECT_EQ(downloads_c, 1);
  EXPECT_EQ(D.device_copy(), nullptr);
  EXPECT_EQ(content(D), (Oracle{{{0, 2}, 7}, {{1, 0}, 8}}));
  // invalidate_device_copy on a device-only matrix keeps the content.
  Matrix E(&types::FP64, 2, 3);
  int downloads_e = 0;
  E.attach_device_copy(std::make_unique<FakeDeviceCopy>(dev, &downloads_e), true);
  E.invalidate_device_copy();
  EXPECT_EQ(downloads_e, 1);
  EXPECT_EQ(content(E), (Oracle{{{0, 2}, 7}, {{1, 0}, 8}}));
  // Attaching a copy of current content keeps the host valid.
  int downloads_f = 0;
  E.attach_device_copy(std::make_unique<FakeDeviceCopy>(dev, &downloads_f), false);
  EXPECT_TRUE(E.host_valid());
  EXPECT_EQ(content(E), (Oracle{{{0, 2}, 7}, {{1, 0}, 8}}));
  EXPECT_EQ(downloads_f, 0);
}

TEST(ContainersDevice, DuplicatesAndResultsStayOnTheDevice) {
  CsrStorage dev;
  dev.p = {0, 1, 2};
  dev.j = {2, 0};
  dev.x.resize(2 * sizeof(double));
  const double vals[2] = {7, 8};
  std::memcpy(dev.x.data(), vals, sizeof vals);
  // A duplicate of a device-only matrix is made on the device where the backend can.
  Matrix A(&types::FP64, 2, 3);
  int downloads = 0;
  A.attach_device_copy(std::make_unique<FakeDeviceCopy>(dev, &downloads, true), true);
  Matrix D(A);
  EXPECT_EQ(downloads, 0);
  EXPECT_FALSE(D.host_valid());
  EXPECT_EQ(D.nvals(), 2u);
  EXPECT_EQ(content(D), (Oracle{{{0, 2}, 7}, {{1, 0}, 8}}));
  EXPECT_EQ(downloads, 1);
  // take(): the output takes a device-only result where it is; the result is left empty.
  Matrix C(&types::FP64, 2, 3);
  const double w = 1;
  C.set_element(1, 1, &w, &types::FP64);
  C.take(std::move(A));
  EXPECT_EQ(downloads, 1);
  EXPECT_FALSE(C.host_valid());
  EXPECT_EQ(C.nvals(), 2u);
  EXPECT_EQ(content(C), (Oracle{{{0, 2}, 7}, {{1, 0}, 8}}));
  // Another type or shape is refused, and changes nothing.
  Matrix other(&types::FP32, 2, 3);
  try {
    C.take(std::move(other));
    FAIL() << "take of a matrix of another type must throw";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), snk::Info::InvalidValue);
  }
  EXPECT_EQ(content(C), (Oracle{{{0, 2}, 7}, {{1, 0}, 8}}));
  // The mask step without mask or accumulator moves a same-typed result into C without bringing it back.
  Matrix T(&types::FP64, 2, 3);
  int downloads_t = 0;
  T.attach_device_copy(std::make_unique<FakeDeviceCopy>(dev, &downloads_t), true);
  Matrix out(&types::FP64, 2, 3);
  snk::core::apply_mask_accum(out, nullptr, false, false, nullptr, std::move(T), false);
  EXPECT_EQ(downloads_t, 0);
  EXPECT_FALSE(out.host_valid());
  EXPECT_EQ(content(out), (Oracle{{{0, 2}, 7}, {{1, 0}, 8}}));
}

// Page locks (SNK_PAGE_LOCKED): the matrix releases them before its host arrays change or are freed, keeps them while
// it is only read, hands them on with a move and not with a copy. Each fake lock records its release and whether the
// array it covers still held the address it was taken on at that moment (a lock must never outlive its memory).
TEST(ContainersPageLocks, ReleasedBeforeTheArraysChange) {
  struct Probe {
    int released = 0;
    bool stale_at_release = false;
  };
  // check_owner: the matrix is not moved while the lock lives, so its arrays can be looked at when it is released.
  auto lock_of = [](Probe& probe, const Matrix& m, bool check_owner = true) {
    const CsrStorage& a = m.csr();
    const void* at = a.j.data();
    const CsrStorage* arrays = check_owner ? &a : nullptr;
    std::vector<std::shared_ptr<void>> locks;
    locks.push_back(std::shared_ptr<void>(const_cast<void*>(at), [&probe, at, arrays](void*) {
      ++probe.released;
      if (arrays != nullptr && arrays->j.data() != at) probe.stale_at_release = true;
    }));
    return locks;
  };
  auto filled = [] {
    Matrix m(&types::FP64, 50, 50);
    for (Index i = 0; i < 50; ++i) {
      const double v = double(i);
      m.set_element(i, (i * 7) % 50, &v, &types::FP64);
    }
    m.wait();
    return m;
  };
  const double one = 1;
  {   // reads keep the lock; a new entry (merged by wait) releases it before the arrays are rebuilt
    Probe probe;
    Matrix m = filled();
    m.keep_host_locks(lock_of(probe, m));
    EXPECT_TRUE(m.host_pages_locked());
    EXPECT_EQ(m.nvals(), 50u);
    double got = 0;
    EXPECT_TRUE(m.extract_element(3, 21, &got, &types::FP64));
    EXPECT_TRUE(m.host_pages_locked()) << "reading changes nothing";
    m.set_element(0, 1, &one, &types::FP64);
    m.wait();
    EXPECT_EQ(probe.released, 1);
    EXPECT_FALSE(probe.stale_at_release);
    EXPECT_FALSE(m.host_pages_locked());
  }
  {   // csr_mutable(), adopt(), clear(): released first
    Probe p1, p2, p3;
    Matrix m = filled();
    m.keep_host_locks(lock_of(p1, m));
    m.csr_mutable().j.shrink_to_fit();
    EXPECT_EQ(p1.released, 1);
    EXPECT_FALSE(p1.stale_at_release);
    m.keep_host_locks(lock_of(p2, m));
    m.clear();
    EXPECT_EQ(p2.released, 1);
    EXPECT_FALSE(p2.stale_at_release);
    Matrix n = filled();
    n.keep_host_locks(lock_of(p3, n));
    n.release_host_locks();
    EXPECT_EQ(p3.released, 1);
    EXPECT_FALSE(n.host_pages_locked());
  }
  {   // a copy does not take the locks; a move does; destruction and move-assignment release them first
    Probe p1, p2;
    auto m = std::make_unique<Matrix>(filled());
    m->keep_host_locks(lock_of(p1, *m, false));
    Matrix copy(*m);
    EXPECT_FALSE(copy.host_pages_locked());
    Matrix moved(std::move(*m));
    EXPECT_TRUE(moved.host_pages_locked());
    EXPECT_EQ(p1.released, 0);
    m.reset();
    EXPECT_EQ(p1.released, 0) << "the moved-from matrix holds no lock";
    Matrix target = filled();
    target.keep_host_locks(lock_of(p2, target));
    target = std::move(moved);
    EXPECT_EQ(p2.released, 1);
    EXPECT_FALSE(p2.stale_at_release);
    EXPECT_TRUE(target.host_pages_locked());
    {
      Matrix gone(std::move(target));
      EXPECT_EQ(p1.released, 0);
    }
    EXPECT_EQ(p1.released, 1);
  }
}

// ---- cast_matrix ------------------------------------------------------------------------------------------

TEST(ContainersCast, CastMatrix) {
  Matrix A(&types::FP64, 2, 2);
  const double x = -3.75;
  A.set_element(1, 0, &x, &types::FP64);
  EXPECT_EQ(snk::core::cast_matrix(A, &types::FP64), nullptr);
  auto B = snk::core::cast_matrix(A, &types::Int8);
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->type(), &types::Int8);
  EXPECT_EQ(content(*B), (Oracle{{{1, 0}, -3}}));
  Vector v(&types::Int32, 5);
  const std::int32_t k = 300;
  v.set_element(4, &k, &types::Int32);
  auto w = snk::core::cast_matrix(v.as_matrix(), &types::UInt8);
  EXPECT_TRUE(w->is_vector());
  EXPECT_EQ(content(*w), (Oracle{{{0, 4}, 44}}));   // integer to integer: C conversion, 300 mod 256
  std::unique_ptr<snk::Type> udt(snk::new_user_type(4, "four_bytes"));
  EXPECT_EQ(error_of([&] { snk::core::cast_matrix(A, udt.get()); }), Info::DomainMismatch);
}

// ---- Vector and Scalar --------------------------------------------------------------------------------------

TEST(ContainersVector, BuildSetExtract) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Vector v(&types::FP32, 1000);
  EXPECT_TRUE(v.as_matrix().is_vector());
  EXPECT_EQ(v.as_matrix().nrows(), 1u);
  EXPECT_EQ(v.size(), 1000u);
  std::map<Index, double> o;
  std::vector<Index> I;
  std::vector<double> X;
  for (int k = 0; k < 200; ++k) {
    const Index i = rng() % 1000;
    const double x = static_cast<double>(rng() % 64) + 0.25;
    I.push_back(i);
    X.push_back(x);
    o[i] += x;
  }
  v.build(I.data(), X.data(), &types::FP64, I.size(), &kPlus);
  EXPECT_EQ(v.nvals(), o.size());
  std::vector<Index> J(v.nvals());
  std::vector<double> V(v.nvals());
  v.extract_tuples(J.data(), V.data(), &types::FP64);
  Index k = 0;
  for (auto& [i, x] : o) {
    EXPECT_EQ(J[k], i);
    EXPECT_EQ(V[k], x);
    ++k;
  }
  Vector u(&types::FP32, 10);
  const Index dupI[] = {3, 3};
  const double dupX[] = {1, 2};
  try {
    u.build(dupI, dupX, &types::FP64, 2, nullptr);
    FAIL() << "expected InvalidValue";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), Info::InvalidValue);
    EXPECT_NE(std::string(e.what()).find("duplicate entry (3)"), std::string::npos) << e.what();
  }
  const Index bad[] = {10};
  EXPECT_EQ(error_of([&] { u.build(bad, dupX, &types::FP64, 1, nullptr); }), Info::IndexOutOfBounds);
  EXPECT_EQ(u.nvals(), 0u);
  const float f = 1.5f;
  u.set_element(9, &f, &types::FP32);
  float g = 0;
  EXPECT_TRUE(u.extract_element(9, &g, &types::FP32));
  EXPECT_EQ(g, 1.5f);
  EXPECT_FALSE(u.extract_element(8, &g, &types::FP32));
  EXPECT_EQ(error_of([&] { u.set_element(10, &f, &types::FP32); }), Info::InvalidIndex);
  Vector copy(u);
  EXPECT_TRUE(copy.as_matrix().is_vector());
  Matrix m(u.as_matrix());
  EXPECT_TRUE(m.is_vector());
  u.remove_element(9);
  EXPECT_EQ(u.nvals(), 0u);
  EXPECT_EQ(copy.nvals(), 1u);
  copy.resize(5);
  EXPECT_EQ(copy.size(), 5u);
  EXPECT_EQ(copy.nvals(), 0u);
  EXPECT_EQ(error_of([&] { copy.as_matrix().resize(2, 5); }), Info::InvalidValue);
}

TEST(ContainersScalar, SetGetCastClear) {
  Scalar s(&types::Int16);
  EXPECT_FALSE(s.has_value());
  EXPECT_EQ(s.nvals(), 0u);
  double d = 0;
  EXPECT_FALSE(s.get(&d, &types::FP64));
  const double in = -123.9;
  s.set(&in, &types::FP64);
  EXPECT_TRUE(s.has_value());
  EXPECT_EQ(s.nvals(), 1u);
  ASSERT_TRUE(s.get(&d, &types::FP64));
  EXPECT_EQ(d, -123);
  std::int16_t raw;
  std::memcpy(&raw, s.data(), 2);
  EXPECT_EQ(raw, -123);
  bool b = false;
  ASSERT_TRUE(s.get(&b, &types::Bool));
  EXPECT_TRUE(b);
  std::unique_ptr<snk::Type> udt(snk::new_user_type(2, "two_bytes"));
  EXPECT_EQ(error_of([&] { s.set(&in, udt.get()); }), Info::DomainMismatch);
  EXPECT_EQ(error_of([&] { s.set(nullptr, &types::FP64); }), Info::NullPointer);
  ASSERT_TRUE(s.get(&d, &types::FP64));
  EXPECT_EQ(d, -123);   // unchanged by the failed calls
  s.clear();
  EXPECT_FALSE(s.has_value());
  // A user-defined type is copied as bytes.
  Scalar u(udt.get());
  const unsigned char bytes[2] = {0xab, 0xcd};
  u.set(bytes, udt.get());
  unsigned char out[2] = {0, 0};
  ASSERT_TRUE(u.get(out, udt.get()));
  EXPECT_EQ(out[0], 0xab);
  EXPECT_EQ(out[1], 0xcd);
  EXPECT_EQ(error_of([&] { Scalar z(nullptr); }), Info::NullPointer);
}

TEST(ContainersUdt, MatrixOfUserDefinedType) {
  std::unique_ptr<snk::Type> udt(snk::new_user_type(3, "rgb"));
  Matrix A(udt.get(), 3, 3);
  const unsigned char X[] = {1, 2, 3, 4, 5, 6};
  const Index I[] = {2, 0}, J[] = {1, 2};
  A.build(I, J, X, udt.get(), 2, nullptr);
  unsigned char out[3];
  ASSERT_TRUE(A.extract_element(0, 2, out, udt.get()));
  EXPECT_EQ(out[0], 4);
  EXPECT_EQ(out[2], 6);
  const unsigned char y[3] = {9, 9, 9};
  A.set_element(1, 1, y, udt.get());
  unsigned char all[9];
  A.extract_tuples(nullptr, nullptr, all, udt.get());
  const unsigned char want[9] = {4, 5, 6, 9, 9, 9, 1, 2, 3};
  EXPECT_EQ(std::memcmp(all, want, 9), 0);
  double d;
  EXPECT_EQ(error_of([&] { A.extract_element(0, 2, &d, &types::FP64); }), Info::DomainMismatch);
}

}  // namespace
