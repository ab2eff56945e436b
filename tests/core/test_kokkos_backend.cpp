// tests/core/test_kokkos_backend.cpp: the kokkos backend's kernels checked one by one against the
// reference backend (SuiteSparse:GraphBLAS), at the kernel interface of src/core/kernels.hpp.
//
// Each case builds random inputs, calls the same kernel on "kokkos" and on "reference" and compares the
// two results T: patterns exactly, values exactly for integers and bool and to a relative 1e-9 (FP64) /
// 1e-4 (FP32) for floating sums whose order may differ. Masked mxm kernels may compute T only where the
// mask can be true, so there both results are compared on the mask's structure only. The cases cover
// every predefined semiring (all mxm methods: Gustavson, masked Gustavson, masked dot products, dot
// products against a dense row for mxv with and without the operand flip, sparse x full B), every
// predefined binary operator (eWiseAdd, eWiseMult, apply with either operand bound), unary operator,
// index-unary operator (apply, select, on matrices and vectors) and monoid (reduce to rows and to a
// scalar), and transpose, on shapes from empty and 1x1 to rectangular, hypersparse (10^6 x 10^6) and
// mixed hyper / plain operands, plus inputs large enough to run on several threads. Each kernel must
// return Done (no fallback) on all of these; the last tests run whole operations through the public API
// on the kokkos backend and check that the fallback count stays zero.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/internal.hpp"
#include "core/kernels.hpp"
#include "snack/snack.hpp"

namespace {

using snk::Index;
using snk::Matrix;
using snk::Scalar;
using snk::Type;
using snk::TypeCode;
using snk::core::Backend;
using snk::core::KernelStatus;
using snk::core::MaskHint;

bool have_kokkos() {
  for (const std::string& b : snk::available_backends())
    if (b == "kokkos") return true;
  return false;
}

#define REQUIRE_KOKKOS()                                                    \
  do {                                                                      \
    if (!have_kokkos()) GTEST_SKIP() << "the kokkos backend is not built";  \
  } while (0)

Backend& kokkos() { return snk::core::backend_by_name("kokkos"); }
Backend& reference() { return snk::core::reference_backend(); }

std::mt19937_64& rng() {
  static std::mt19937_64 g(12345);
  return g;
}

// Values: multiples of 1/4 in [-3, 3] (so floating sums of a few terms are exact), cast by build.
double draw(TypeCode code) {
  std::uniform_int_distribution<int> d(-12, 12);
  double v = d(rng()) / 4.0;
  if (code != TypeCode::FP32 && code != TypeCode::FP64) v = std::round(v);
  return v;
}

// A random nrows x ncols matrix with about nvals distinct entries.
Matrix random_matrix(const Type* type, Index nrows, Index ncols, Index nvals) {
  Matrix A(type, nrows, ncols);
  if (nrows == 0 || ncols == 0) return A;
  std::set<std::pair<Index, Index>> at;
  std::uniform_int_distribution<Index> ri(0, nrows - 1), rj(0, ncols - 1);
  nvals = std::min<Index>(nvals, nrows * ncols);
  for (Index k = 0; k < nvals * 4 && at.size() < nvals; ++k) at.insert({ri(rng()), rj(rng())});
  std::vector<Index> I, J;
  std::vector<double> X;
  for (const auto& e : at) {
    I.push_back(e.first);
    J.push_back(e.second);
    X.push_back(draw(type->code));
  }
  A.build(I.data(), J.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return A;
}

Matrix full_matrix(const Type* type, Index nrows, Index ncols) {
  Matrix A(type, nrows, ncols);
  std::vector<Index> I, J;
  std::vector<double> X;
  for (Index i = 0; i < nrows; ++i)
    for (Index j = 0; j < ncols; ++j) {
      I.push_back(i);
      J.push_back(j);
      X.push_back(draw(type->code));
    }
  A.build(I.data(), J.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return A;
}

struct Entries {
  std::vector<Index> I, J;
  std::vector<double> X;
};

Entries entries_of(const Matrix& A) {
  Entries e;
  const Index n = A.nvals();
  e.I.resize(n);
  e.J.resize(n);
  e.X.resize(n);
  A.extract_tuples(e.I.data(), e.J.data(), e.X.data(), &snk::types::FP64);
  return e;
}

bool close(double a, double b, TypeCode code) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (code != TypeCode::FP32 && code != TypeCode::FP64) return a == b;
  if (a == b) return true;
  const double tol = code == TypeCode::FP32 ? 1e-4 : 1e-9;
  return std::fabs(a - b) <= tol * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// Compares two results; with `only`, on the structure of `only` (a mask) alone.
::testing::AssertionResult same(const Matrix& expected, const Matrix& got, const Matrix* only = nullptr) {
  if (expected.type() != got.type())
    return ::testing::AssertionFailure() << "types differ: " << expected.type()->name << " vs " << got.type()->name;
  if (expected.nrows() != got.nrows() || expected.ncols() != got.ncols())
    return ::testing::AssertionFailure() << "dimensions differ";
  Entries e = entries_of(expected), g = entries_of(got);
  if (only) {
    std::set<std::pair<Index, Index>> keep;
    Entries m = entries_of(*only);
    for (std::size_t k = 0; k < m.I.size(); ++k) keep.insert({m.I[k], m.J[k]});
    auto filter = [&](Entries& x) {
      Entries y;
      for (std::size_t k = 0; k < x.I.size(); ++k)
        if (keep.count({x.I[k], x.J[k]})) {
          y.I.push_back(x.I[k]);
          y.J.push_back(x.J[k]);
          y.X.push_back(x.X[k]);
        }
      x = std::move(y);
    };
    filter(e);
    filter(g);
  }
  if (e.I.size() != g.I.size())
    return ::testing::AssertionFailure() << "nvals differ: expected " << e.I.size() << ", got " << g.I.size();
  for (std::size_t k = 0; k < e.I.size(); ++k) {
    if (e.I[k] != g.I[k] || e.J[k] != g.J[k])
      return ::testing::AssertionFailure() << "pattern differs at entry " << k << ": expected (" << e.I[k] << ","
                                           << e.J[k] << "), got (" << g.I[k] << "," << g.J[k] << ")";
    if (!close(e.X[k], g.X[k], expected.type()->code))
      return ::testing::AssertionFailure() << "value differs at (" << e.I[k] << "," << e.J[k] << "): expected "
                                           << e.X[k] << ", got " << g.X[k];
  }
  return ::testing::AssertionSuccess();
}

// ---- mxm ---------------------------------------------------------------------------------------------------

struct MxmCase {
  Index m, k, n, nnz_a, nnz_b, nnz_m;
  bool tb, flip, masked, full_b;
  const char* what;
};

void check_mxm(const snk::Semiring& s, const MxmCase& c) {
  const Type* t = s.add->type();
  Matrix A = random_matrix(t, c.m, c.k, c.nnz_a);
  Matrix B = c.full_b ? full_matrix(t, c.k, c.n)
                      : (c.tb ? random_matrix(t, c.n, c.k, c.nnz_b) : random_matrix(t, c.k, c.n, c.nnz_b));
  Matrix M = random_matrix(&snk::types::Bool, c.m, c.n, c.nnz_m);
  MaskHint hint;
  if (c.masked) {
    hint.M = &M;
    hint.structural = true;
  }
  Matrix Tk(t, c.m, c.n), Tr(t, c.m, c.n);
  const KernelStatus st = kokkos().mxm(Tk, hint, s, A, false, B, c.tb, c.flip);
  ASSERT_EQ(st, KernelStatus::Done) << s.name << " " << c.what;
  ASSERT_EQ(reference().mxm(Tr, MaskHint{}, s, A, false, B, c.tb, c.flip), KernelStatus::Done);
  EXPECT_TRUE(same(Tr, Tk, c.masked ? &M : nullptr)) << s.name << " " << c.what;
}

const MxmCase kMxmCases[] = {
    {0, 0, 0, 0, 0, 0, false, false, false, false, "empty 0x0"},
    {1, 1, 1, 1, 1, 1, false, false, false, false, "1x1"},
    {17, 19, 23, 60, 80, 0, false, false, false, false, "Gustavson 17x19 * 19x23"},
    {17, 19, 23, 60, 80, 0, false, true, false, false, "Gustavson, flipped"},
    {17, 19, 23, 60, 80, 120, false, false, true, false, "masked Gustavson"},
    {17, 19, 23, 60, 80, 120, true, false, true, false, "masked dot A*B'"},
    {17, 19, 23, 60, 80, 120, true, true, true, false, "masked dot A*B', flipped"},
    {1, 40, 30, 25, 300, 0, true, true, false, false, "mxv: u * A' flipped (dense u scatter)"},
    {1, 40, 30, 40, 300, 0, true, true, false, false, "mxv: full u"},
    {3, 40, 30, 25, 300, 0, true, false, false, false, "few rows * B'"},
    {1, 40, 30, 12, 300, 0, false, false, false, false, "vxm: u * A"},
    {13, 9, 7, 40, 0, 0, false, false, false, true, "sparse x full B"},
    {1000000, 1000000, 1000000, 60, 60, 0, false, false, false, false, "hypersparse 10^6 x 10^6"},
    {1000000, 1000000, 1000000, 60, 60, 40, true, false, true, false, "hypersparse masked dot"},
    {1000000, 1000000, 1000000, 60, 60, 40, false, false, true, false, "hypersparse masked Gustavson"},
};

TEST(KokkosBackend, MxmEverySemiring) {
  REQUIRE_KOKKOS();
  for (const snk::Semiring* s : snk::all_builtin_semirings())
    for (const MxmCase& c : kMxmCases) check_mxm(*s, c);
}

TEST(KokkosBackend, MxmLargerOnSeveralThreads) {
  REQUIRE_KOKKOS();
  const MxmCase cases[] = {
      {800, 600, 700, 8000, 8000, 0, false, false, false, false, "Gustavson 800x600 * 600x700"},
      {800, 600, 700, 8000, 8000, 15000, false, false, true, false, "masked Gustavson"},
      {800, 600, 700, 8000, 8000, 15000, true, false, true, false, "masked dot"},
      {1, 5000, 8000, 4000, 50000, 0, true, true, false, false, "mxv"},
      {1, 5000, 8000, 5000, 50000, 0, true, true, false, false, "mxv, full u"},
      {600, 300, 64, 6000, 0, 0, false, false, false, true, "sparse x full"},
  };
  for (auto [add, mul, code] : {std::tuple{snk::BinaryOpcode::Plus, snk::BinaryOpcode::Times, TypeCode::FP64},
                                std::tuple{snk::BinaryOpcode::Plus, snk::BinaryOpcode::Times, TypeCode::Int32},
                                std::tuple{snk::BinaryOpcode::Min, snk::BinaryOpcode::Plus, TypeCode::FP32},
                                std::tuple{snk::BinaryOpcode::Max, snk::BinaryOpcode::First, TypeCode::UInt16},
                                std::tuple{snk::BinaryOpcode::LOr, snk::BinaryOpcode::LAnd, TypeCode::Bool}})
    for (const MxmCase& c : cases) check_mxm(*snk::builtin_semiring(add, mul, code), c);
}

// A product of a few rows times B' runs row by row through B's rows; a mask hint, which differs from row to row, must
// not restrict one row by another's mask (a complemented mask most of all): the whole call, mask step included, equals
// reference's.
TEST(KokkosBackend, FewRowsTimesBTransposedUnderAComplementedMask) {
  REQUIRE_KOKKOS();
  const Type* t = &snk::types::FP64;
  const snk::Semiring& s = *snk::builtin_semiring(snk::BinaryOpcode::Plus, snk::BinaryOpcode::Times, TypeCode::FP64);
  for (Index rows : {Index(1), Index(3), Index(8)}) {
    const Matrix A = random_matrix(t, rows, 40, rows * 20), B = random_matrix(t, 30, 40, 600);
    const Matrix M = random_matrix(&snk::types::Bool, rows, 30, rows * 12);
    for (bool complement : {false, true}) {
      snk::Descriptor d;
      d.transpose_second = true;
      d.mask_structure = true;
      d.mask_complement = complement;
      Matrix got(t, rows, 30), want(t, rows, 30);
      {
        snk::BackendScope scope("kokkos");
        snk::mxm(got, &M, nullptr, s, A, B, d);
      }
      {
        snk::BackendScope scope("reference");
        snk::mxm(want, &M, nullptr, s, A, B, d);
      }
      ASSERT_GT(want.nvals(), 0u);
      EXPECT_TRUE(same(want, got, nullptr)) << rows << " rows, complement " << complement;
    }
  }
}

TEST(KokkosBackend, MxmDeclinesWhatItLeavesToTheCore) {
  REQUIRE_KOKKOS();
  const snk::Semiring& s = *snk::builtin_semiring(snk::BinaryOpcode::Plus, snk::BinaryOpcode::Times, TypeCode::FP64);
  Matrix A = random_matrix(&snk::types::FP64, 20, 20, 50), T(&snk::types::FP64, 20, 20);
  EXPECT_EQ(kokkos().mxm(T, MaskHint{}, s, A, true, A, false, false), KernelStatus::Declined);  // A' : core transposes
  EXPECT_EQ(kokkos().mxm(T, MaskHint{}, s, A, false, A, true, false), KernelStatus::Declined);  // many rows * B'
  EXPECT_EQ(T.nvals(), 0u);
  // a user-defined multiply is declined
  auto udf = snk::new_binary_op([](void* z, const void* x, const void*) { *(double*)z = *(const double*)x; },
                                &snk::types::FP64, &snk::types::FP64, &snk::types::FP64);
  auto user = snk::new_semiring(s.add, udf.get());
  EXPECT_EQ(kokkos().mxm(T, MaskHint{}, *user, A, false, A, false, false), KernelStatus::Declined);
}

// ---- element-wise and apply ------------------------------------------------------------------------------

struct Shape {
  Index m, n, nnz_a, nnz_b;
  const char* what;
};
const Shape kShapes[] = {
    {0, 0, 0, 0, "0x0"},
    {1, 1, 1, 1, "1x1"},
    {1, 1, 1, 0, "1x1 with one side empty"},
    {13, 17, 60, 70, "13x17"},
    {1000, 1000, 100, 2000, "mixed hypersparse and plain"},
    {1000000, 1000000, 80, 90, "hypersparse 10^6 x 10^6"},
    {300, 400, 6000, 7000, "300x400, several threads"},
};

TEST(KokkosBackend, EwiseAddAndMultEveryBinaryOp) {
  REQUIRE_KOKKOS();
  for (const snk::BinaryOp* op : snk::all_builtin_binary_ops())
    for (const Shape& sh : kShapes) {
      Matrix A = random_matrix(op->xtype, sh.m, sh.n, sh.nnz_a), B = random_matrix(op->ytype, sh.m, sh.n, sh.nnz_b);
      for (bool add : {true, false}) {
        Matrix Tk(op->ztype, sh.m, sh.n), Tr(op->ztype, sh.m, sh.n);
        Backend& k = kokkos();
        const KernelStatus st = add ? k.ewise_add(Tk, MaskHint{}, *op, A, B) : k.ewise_mult(Tk, MaskHint{}, *op, A, B);
        ASSERT_EQ(st, KernelStatus::Done) << op->name << " " << sh.what;
        if (add) reference().ewise_add(Tr, MaskHint{}, *op, A, B);
        else reference().ewise_mult(Tr, MaskHint{}, *op, A, B);
        EXPECT_TRUE(same(Tr, Tk)) << (add ? "eWiseAdd " : "eWiseMult ") << op->name << " " << sh.what;
      }
    }
}

TEST(KokkosBackend, ApplyBoundEveryBinaryOp) {
  REQUIRE_KOKKOS();
  for (const snk::BinaryOp* op : snk::all_builtin_binary_ops())
    for (const Shape& sh : kShapes) {
      Matrix A = random_matrix(op->xtype, sh.m, sh.n, sh.nnz_a);
      for (bool first : {true, false}) {
        Scalar s(op->xtype);
        const double v = draw(op->xtype->code);
        s.set(&v, &snk::types::FP64);
        Matrix Tk(op->ztype, sh.m, sh.n), Tr(op->ztype, sh.m, sh.n);
        ASSERT_EQ(kokkos().apply_bound(Tk, *op, s, first, A), KernelStatus::Done) << op->name;
        reference().apply_bound(Tr, *op, s, first, A);
        EXPECT_TRUE(same(Tr, Tk)) << "apply " << op->name << (first ? " bind first " : " bind second ") << sh.what;
      }
    }
}

// The in-place forms (C = op(C)): the values change where they are (the same arrays, the same pattern)
// and equal the ordinary kernel's result; an operator whose result type is not A's is declined.
TEST(KokkosBackend, ApplyInPlace) {
  REQUIRE_KOKKOS();
  for (const snk::BinaryOp* op : snk::all_builtin_binary_ops())
    for (const Shape& sh : kShapes) {
      if (op->ztype != op->xtype) continue;
      Matrix A = random_matrix(op->xtype, sh.m, sh.n, sh.nnz_a);
      for (bool first : {true, false}) {
        Scalar s(op->xtype);
        const double v = draw(op->xtype->code);
        s.set(&v, &snk::types::FP64);
        Matrix T(op->ztype, sh.m, sh.n), C = A;
        ASSERT_EQ(kokkos().apply_bound(T, *op, s, first, A), KernelStatus::Done) << op->name;
        const Index* j_before = C.csr().j.data();
        const unsigned char* x_before = C.csr().x.data();
        ASSERT_EQ(kokkos().apply_bound_in_place(C, *op, s, first), KernelStatus::Done) << op->name;
        EXPECT_EQ(C.csr().j.data(), j_before) << op->name;
        EXPECT_EQ(C.csr().x.data(), x_before) << op->name;
        EXPECT_TRUE(same(T, C)) << "in-place apply " << op->name << (first ? " bind first " : " bind second ") << sh.what;
      }
    }
  for (const snk::UnaryOp* op : snk::all_builtin_unary_ops()) {
    if (op->ztype != op->xtype) continue;
    Matrix A = random_matrix(op->xtype, 40, 30, 300);
    Matrix T(op->ztype, 40, 30), C = A;
    ASSERT_EQ(kokkos().apply_unary(T, *op, A), KernelStatus::Done) << op->name;
    ASSERT_EQ(kokkos().apply_unary_in_place(C, *op), KernelStatus::Done) << op->name;
    EXPECT_TRUE(same(T, C)) << "in-place apply " << op->name;
  }
  const snk::BinaryOp* gt = snk::builtin_binary_op(snk::BinaryOpcode::Gt, TypeCode::FP32);
  Matrix A = random_matrix(&snk::types::FP32, 10, 10, 30);
  const Matrix before = A;
  Scalar zero(&snk::types::FP32);
  const float z = 0;
  zero.set(&z, &snk::types::FP32);
  EXPECT_EQ(kokkos().apply_bound_in_place(A, *gt, zero, false), KernelStatus::Declined);
  EXPECT_TRUE(same(before, A));
}

TEST(KokkosBackend, ApplyEveryUnaryOp) {
  REQUIRE_KOKKOS();
  for (const snk::UnaryOp* op : snk::all_builtin_unary_ops())
    for (const Shape& sh : kShapes) {
      Matrix A = random_matrix(op->xtype, sh.m, sh.n, sh.nnz_a);
      Matrix Tk(op->ztype, sh.m, sh.n), Tr(op->ztype, sh.m, sh.n);
      ASSERT_EQ(kokkos().apply_unary(Tk, *op, A), KernelStatus::Done) << op->name;
      reference().apply_unary(Tr, *op, A);
      EXPECT_TRUE(same(Tr, Tk)) << "apply " << op->name << " " << sh.what;
    }
}

TEST(KokkosBackend, ApplyIndexAndSelectEveryIndexUnaryOp) {
  REQUIRE_KOKKOS();
  for (const snk::IndexUnaryOp* op : snk::all_builtin_index_unary_ops())
    for (const Shape& sh : kShapes)
      for (bool as_vector : {false, true}) {
        const Type* xt = op->xtype ? op->xtype : snk::builtin_types()[int(rng()() % 11)];
        Matrix A = random_matrix(xt, sh.m, sh.n, sh.nnz_a);
        snk::Vector v(xt, sh.n);
        if (as_vector) {
          Matrix row = random_matrix(xt, 1, sh.n, std::min<Index>(sh.nnz_a, sh.n));
          Entries e = entries_of(row);
          v.build(e.J.data(), e.X.data(), &snk::types::FP64, e.J.size(), nullptr);
        }
        const Matrix& In = as_vector ? v.as_matrix() : A;
        Scalar thunk(op->ytype);
        std::uniform_int_distribution<int> d(-3, 3);
        const double y = op->xtype ? draw(op->ytype->code) : double(d(rng()));
        thunk.set(&y, &snk::types::FP64);
        Matrix Tk(op->ztype, In.nrows(), In.ncols()), Tr(op->ztype, In.nrows(), In.ncols());
        ASSERT_EQ(kokkos().apply_index(Tk, *op, In, thunk), KernelStatus::Done) << op->name;
        reference().apply_index(Tr, *op, In, thunk);
        EXPECT_TRUE(same(Tr, Tk)) << "apply " << op->name << " " << sh.what << (as_vector ? " vector" : "");
        Matrix Sk(xt, In.nrows(), In.ncols()), Sr(xt, In.nrows(), In.ncols());
        ASSERT_EQ(kokkos().select(Sk, *op, In, thunk), KernelStatus::Done) << op->name;
        reference().select(Sr, *op, In, thunk);
        EXPECT_TRUE(same(Sr, Sk)) << "select " << op->name << " " << sh.what << (as_vector ? " vector" : "");
      }
}

// ---- reduce and transpose --------------------------------------------------------------------------------

TEST(KokkosBackend, ReduceEveryMonoid) {
  REQUIRE_KOKKOS();
  for (const snk::Monoid* m : snk::all_builtin_monoids())
    for (const Shape& sh : kShapes) {
      const Type* t = m->type();
      Matrix A = random_matrix(t, sh.m, sh.n, sh.nnz_a);
      Matrix Tk(t, 1, sh.m), Tr(t, 1, sh.m);
      ASSERT_EQ(kokkos().reduce_rows(Tk, *m, A), KernelStatus::Done) << m->name;
      reference().reduce_rows(Tr, *m, A);
      EXPECT_TRUE(same(Tr, Tk)) << "reduce rows " << m->name << " " << sh.what;
      Scalar sk(t), sr(t);
      ASSERT_EQ(kokkos().reduce_scalar(sk, *m, A), KernelStatus::Done) << m->name;
      reference().reduce_scalar(sr, *m, A);
      double vk = 0, vr = 0;
      ASSERT_TRUE(sk.get(&vk, &snk::types::FP64));
      ASSERT_TRUE(sr.get(&vr, &snk::types::FP64));
      EXPECT_TRUE(close(vr, vk, t->code)) << "reduce " << m->name << " " << sh.what << ": " << vr << " vs " << vk;
    }
}

TEST(KokkosBackend, TransposeEveryType) {
  REQUIRE_KOKKOS();
  const Shape shapes[] = {{0, 0, 0, 0, "0x0"},           {1, 1, 1, 0, "1x1"},
                          {13, 17, 60, 0, "13x17"},      {1, 5000, 3000, 0, "a long row"},
                          {1000000, 7, 50, 0, "tall hypersparse"}, {7, 1000000, 50, 0, "wide"},
                          {1000000, 1000000, 80, 0, "hypersparse 10^6 x 10^6"},
                          {500, 400, 8000, 0, "several threads"}};
  for (int c = 0; c < snk::kBuiltinTypeCount; ++c)
    for (const Shape& sh : shapes) {
      const Type* t = snk::builtin_types()[c];
      Matrix A = random_matrix(t, sh.m, sh.n, sh.nnz_a);
      Matrix Tk(t, sh.n, sh.m), Tr(t, sh.n, sh.m);
      ASSERT_EQ(kokkos().transpose(Tk, A), KernelStatus::Done);
      reference().transpose(Tr, A);
      EXPECT_TRUE(same(Tr, Tk)) << "transpose " << t->name << " " << sh.what;
    }
}

// ---- whole operations: no fallback --------------------------------------------------------------------------

TEST(KokkosBackend, OperationsRunWithoutFallback) {
  REQUIRE_KOKKOS();
  snk::reset_fallback_counts();
  {
    snk::BackendScope scope("kokkos");
    for (const snk::Semiring* s : snk::all_builtin_semirings()) {
      const Type* t = s->add->type();
      Matrix A = random_matrix(t, 30, 30, 120), B = random_matrix(t, 30, 30, 120);
      Matrix M = random_matrix(&snk::types::Bool, 30, 30, 200);
      Matrix C(t, 30, 30);
      snk::mxm(C, nullptr, nullptr, *s, A, B);
      snk::Descriptor tran;
      tran.transpose_second = true;
      snk::mxm(C, &M, nullptr, *s, A, B, tran);            // masked A*B'
      snk::mxm(C, nullptr, nullptr, *s, A, B, tran);       // A*B' (B transposed by the core)
      tran.transpose_first = true;
      snk::mxm(C, nullptr, nullptr, *s, A, B, tran);       // A'*B'
      snk::Vector u(t, 30), w(t, 30);
      const double one = 1;
      for (Index i = 0; i < 30; i += 3) u.set_element(i, &one, &snk::types::FP64);
      snk::mxv(w, nullptr, nullptr, *s, A, u);
      snk::vxm(w, nullptr, nullptr, *s, u, A);
      snk::ewise_add(C, nullptr, nullptr, *s->add->op, A, B);
      snk::ewise_mult(C, nullptr, nullptr, *s->multiply, A, B);
      snk::reduce(w, nullptr, nullptr, *s->add, A);
      Scalar r(t);
      snk::reduce(r, nullptr, *s->add, A);
      snk::transpose(C, nullptr, nullptr, A);
    }
  }
  EXPECT_EQ(snk::fallback_total("kokkos"), 0u);
  for (const auto& [op, n] : snk::fallback_counts("kokkos")) ADD_FAILURE() << op << " fell back " << n << " times";
}

}  // namespace
