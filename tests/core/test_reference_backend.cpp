// tests/core/test_reference_backend.cpp: every kernel of the reference (SuiteSparse) backend against a
// small independent oracle.
//
// The oracle holds a matrix as a map (i, j) -> value bytes and computes each kernel's result T from the
// contract in src/core/kernels.hpp by calling the operators' own C function pointers, one value at a time,
// so it shares nothing with SuiteSparse. Values are small integers, so floating-point sums are exact and
// results are compared byte for byte. Covered: the (hyper)CSR round trip, mxm with the four transpose
// combinations, flip (PLUS_MINUS, and a user multiplier), mask hints (valued, structural, complemented),
// element-wise add and mult (with a comparison operator and the cast of one-sided entries), apply (unary,
// bound first/second, index-unary on matrices and on vectors), select (matrices and vectors), reduce to
// rows and to a scalar (an empty input gives the identity), transpose, extract (lists with repeats),
// assign (with and without accumulator, repeated indices: last one wins), kronecker, a hypersparse
// 10^6 x 10^6 matrix with 100 entries, and a user-defined type with user operators, monoid and semiring.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "core/internal.hpp"
#include "core/kernels.hpp"
#include "snack/snack.hpp"

namespace {

using snk::BinaryOpcode;
using snk::Index;
using snk::IndexUnaryOpcode;
using snk::Matrix;
using snk::Scalar;
using snk::Type;
using snk::TypeCode;
using snk::core::IndexList;
using snk::core::MaskHint;
using Bytes = std::vector<unsigned char>;

// ---- the oracle -------------------------------------------------------------------------------------------
struct Sparse {
  const Type* type = nullptr;
  Index nrows = 0, ncols = 0;
  std::map<std::pair<Index, Index>, Bytes> e;
};

Sparse read(const Matrix& M) {
  Sparse s{M.type(), M.nrows(), M.ncols(), {}};
  Index n = M.nvals();
  std::vector<Index> I(n), J(n);
  Bytes x(n * M.type()->size);
  M.extract_tuples(I.data(), J.data(), x.data(), M.type());
  const std::size_t size = M.type()->size;
  for (Index k = 0; k < n; ++k) s.e[{I[k], J[k]}] = Bytes(x.begin() + k * size, x.begin() + (k + 1) * size);
  return s;
}

void fill(Matrix& M, const Sparse& s) {
  std::vector<Index> I, J;
  Bytes x;
  for (const auto& [ij, v] : s.e) {
    I.push_back(ij.first);
    J.push_back(ij.second);
    x.insert(x.end(), v.begin(), v.end());
  }
  M.build(I.data(), J.data(), x.data(), s.type, static_cast<Index>(I.size()), nullptr);
}

Matrix make(const Sparse& s) {
  Matrix M(s.type, s.nrows, s.ncols);
  fill(M, s);
  return M;
}

snk::Vector make_vector(const Sparse& s) {   // s is 1 x n
  snk::Vector v(s.type, s.ncols);
  fill(v.as_matrix(), s);
  return v;
}

Bytes value_of(const Type* type, double d) {
  Bytes b(type->size);
  snk::cast_array(type, b.data(), &snk::types::FP64, &d, 1);
  return b;
}

double as_double(const Type* type, const Bytes& b) {
  double d = 0;
  snk::cast_array(&snk::types::FP64, &d, type, b.data(), 1);
  return d;
}

// Random pattern with density `density`, values small integers (0 or 1 for BOOL, non-negative for
// unsigned types).
Sparse random_sparse(const Type* type, Index nrows, Index ncols, double density, std::mt19937& rng) {
  Sparse s{type, nrows, ncols, {}};
  std::uniform_real_distribution<double> coin(0, 1);
  const bool is_unsigned = type->code == TypeCode::Bool ||
                           (type->code >= TypeCode::UInt8 && type->code <= TypeCode::UInt64);
  std::uniform_int_distribution<int> small(is_unsigned ? 0 : -4, type->code == TypeCode::Bool ? 1 : 5);
  for (Index i = 0; i < nrows; ++i)
    for (Index j = 0; j < ncols; ++j)
      if (coin(rng) < density) s.e[{i, j}] = value_of(type, small(rng));
  return s;
}

Sparse transposed(const Sparse& a) {
  Sparse t{a.type, a.ncols, a.nrows, {}};
  for (const auto& [ij, v] : a.e) t.e[{ij.second, ij.first}] = v;
  return t;
}

Bytes call(const snk::BinaryOp& op, const Bytes& x, const Bytes& y) {
  Bytes z(op.ztype->size);
  op.fn(z.data(), x.data(), y.data());
  return z;
}

Bytes cast_to(const Type* to, const Type* from, const Bytes& v) {
  if (to == from) return v;
  Bytes z(to->size);
  snk::cast_array(to, z.data(), from, v.data(), 1);
  return z;
}

Sparse oracle_mxm(const snk::Semiring& s, const Sparse& A0, bool ta, const Sparse& B0, bool tb, bool flip) {
  const Sparse A = ta ? transposed(A0) : A0;
  const Sparse B = tb ? transposed(B0) : B0;
  Sparse T{s.add->type(), A.nrows, B.ncols, {}};
  std::map<Index, std::vector<std::pair<Index, const Bytes*>>> brows;
  for (const auto& [kj, v] : B.e) brows[kj.first].push_back({kj.second, &v});
  for (const auto& [ik, a] : A.e) {
    auto it = brows.find(ik.second);
    if (it == brows.end()) continue;
    for (const auto& [j, b] : it->second) {
      Bytes z = flip ? call(*s.multiply, *b, a) : call(*s.multiply, a, *b);
      auto found = T.e.find({ik.first, j});
      if (found == T.e.end()) T.e[{ik.first, j}] = z;
      else found->second = call(*s.add->op, found->second, z);
    }
  }
  return T;
}

bool mask_allows(const Sparse* M, bool structural, bool complement, Index i, Index j) {
  bool v = false;
  auto it = M->e.find({i, j});
  if (it != M->e.end()) v = structural || as_double(M->type, it->second) != 0;
  return complement ? !v : v;
}

Sparse restrict_to(const Sparse& T, const Sparse& M, bool structural, bool complement) {
  Sparse r{T.type, T.nrows, T.ncols, {}};
  for (const auto& [ij, v] : T.e)
    if (mask_allows(&M, structural, complement, ij.first, ij.second)) r.e[ij] = v;
  return r;
}

void expect_same(const Sparse& expected, const Matrix& actual, const char* what) {
  ASSERT_EQ(actual.type(), expected.type) << what;
  ASSERT_EQ(actual.nrows(), expected.nrows) << what;
  ASSERT_EQ(actual.ncols(), expected.ncols) << what;
  Sparse got = read(actual);
  ASSERT_EQ(got.e.size(), expected.e.size()) << what;
  for (const auto& [ij, v] : expected.e) {
    auto it = got.e.find(ij);
    ASSERT_TRUE(it != got.e.end()) << what << ": missing (" << ij.first << ", " << ij.second << ")";
    if (expected.type->code == TypeCode::FP32 || expected.type->code == TypeCode::FP64) {
      // By value: SuiteSparse starts some sums from the identity, so an exact -0 may come back as +0.
      EXPECT_EQ(as_double(expected.type, it->second), as_double(expected.type, v))
          << what << ": value at (" << ij.first << ", " << ij.second << ")";
    } else {
      EXPECT_EQ(it->second, v) << what << ": value at (" << ij.first << ", " << ij.second << ")";
    }
  }
}

const Type* type_of_code(TypeCode c) { return snk::builtin_type(c); }

class ReferenceBackendTest : public ::testing::Test {
 protected:
  snk::core::Backend* backend = &snk::core::reference_backend();  // loaded from its plugin
  std::mt19937 rng{12345};
};

// ---- tests ------------------------------------------------------------------------------------------------
TEST_F(ReferenceBackendTest, NameAndRoundTripThroughIdentity) {
  EXPECT_EQ(backend->name(), "reference");
  for (int c = 0; c < snk::kBuiltinTypeCount; ++c) {
    const Type* t = type_of_code(static_cast<TypeCode>(c));
    Sparse a = random_sparse(t, 7, 5, 0.4, rng);
    Matrix A = make(a);
    Matrix T(t, 7, 5);
    ASSERT_EQ(backend->apply_unary(T, *snk::builtin_unary_op(snk::UnaryOpcode::Identity, t->code), A),
              snk::core::KernelStatus::Done);
    expect_same(a, T, t->name.c_str());
  }
  // Empty and 0-dimension matrices.
  for (auto dims : {std::pair<Index, Index>{0, 0}, {0, 4}, {4, 0}, {3, 3}}) {
    Matrix A(&snk::types::FP64, dims.first, dims.second);
    Matrix T(&snk::types::FP64, dims.second, dims.first);
    backend->transpose(T, A);
    EXPECT_EQ(T.nvals(), 0u);
  }
}

TEST_F(ReferenceBackendTest, MxmAllTransposesAndFlip) {
  for (TypeCode c : {TypeCode::FP64, TypeCode::Int32, TypeCode::UInt8, TypeCode::FP32}) {
    const Type* t = type_of_code(c);
    for (auto [add, mul] : {std::pair{BinaryOpcode::Plus, BinaryOpcode::Times},
                            std::pair{BinaryOpcode::Min, BinaryOpcode::Plus},
                            std::pair{BinaryOpcode::Max, BinaryOpcode::Minus},
                            std::pair{BinaryOpcode::Plus, BinaryOpcode::First}}) {
      const snk::Semiring* s = snk::builtin_semiring(add, mul, c);
      if (s == nullptr) {
        // Not a spec semiring: build it from the builtin monoid and multiplier.
        static std::vector<std::unique_ptr<snk::Semiring>> made;
        made.push_back(snk::new_semiring(snk::builtin_monoid(add, c), snk::builtin_binary_op(mul, c)));
        s = made.back().get();
      }
      for (int combo = 0; combo < 8; ++combo) {
        bool ta = combo & 1, tb = combo & 2, flip = combo & 4;
        // A' is 6 x 4, B' is 4 x 5.
        Sparse a = random_sparse(t, ta ? 4 : 6, ta ? 6 : 4, 0.5, rng);
        Sparse b = random_sparse(t, tb ? 5 : 4, tb ? 4 : 5, 0.5, rng);
        Matrix A = make(a), B = make(b);
        Matrix T(s->add->type(), 6, 5);
        backend->mxm(T, MaskHint{}, *s, A, ta, B, tb, flip);
        std::string what = s->name + " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
                           " flip=" + std::to_string(flip);
        expect_same(oracle_mxm(*s, a, ta, b, tb, flip), T, what.c_str());
      }
    }
  }
}

TEST_F(ReferenceBackendTest, MxmFlipWithMinusIsExact) {
  // T = A f B with f(a, b) = b - a.
  const Type* t = &snk::types::FP64;
  auto s = snk::new_semiring(snk::builtin_monoid(BinaryOpcode::Plus, TypeCode::FP64),
                             snk::builtin_binary_op(BinaryOpcode::Minus, TypeCode::FP64));
  Sparse a{t, 1, 2, {}}, b{t, 2, 1, {}};
  a.e[{0, 0}] = value_of(t, 1);
  a.e[{0, 1}] = value_of(t, 2);
  b.e[{0, 0}] = value_of(t, 10);
  b.e[{1, 0}] = value_of(t, 20);
  Matrix A = make(a), B = make(b);
  Matrix T(t, 1, 1);
  backend->mxm(T, MaskHint{}, *s, A, false, B, false, true);
  double v = 0;
  ASSERT_TRUE(T.extract_element(0, 0, &v, t));
  EXPECT_EQ(v, (10 - 1) + (20 - 2));
  Matrix U(t, 1, 1);
  backend->mxm(U, MaskHint{}, *s, A, false, B, false, false);
  ASSERT_TRUE(U.extract_element(0, 0, &v, t));
  EXPECT_EQ(v, (1 - 10) + (2 - 20));
}

TEST_F(ReferenceBackendTest, MxmWithMaskHints) {
  const Type* t = &snk::types::Int64;
  const snk::Semiring* s = snk::builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::Int64);
  for (int combo = 0; combo < 16; ++combo) {
    bool structural = combo & 1, complement = combo & 2, flip = combo & 4, ta = combo & 8;
    Sparse a = random_sparse(t, ta ? 6 : 8, ta ? 8 : 6, 0.5, rng);
    Sparse b = random_sparse(t, 6, 7, 0.5, rng);
    Sparse m = random_sparse(&snk::types::FP32, 8, 7, 0.5, rng);   // valued: some entries are 0
    Matrix A = make(a), B = make(b), M = make(m);
    Matrix T(t, 8, 7);
    backend->mxm(T, MaskHint{&M, structural, complement}, *s, A, ta, B, false, flip);
    Sparse full = oracle_mxm(*s, a, ta, b, false, flip);
    // SuiteSparse computes T restricted to the mask exactly.
    std::string what = "mask combo " + std::to_string(combo);
    expect_same(restrict_to(full, m, structural, complement), T, what.c_str());
  }
}

TEST_F(ReferenceBackendTest, EwiseAddAndMult) {
  const Type* t = &snk::types::FP64;
  for (BinaryOpcode op : {BinaryOpcode::Plus, BinaryOpcode::Minus, BinaryOpcode::Gt, BinaryOpcode::Div,
                          BinaryOpcode::First, BinaryOpcode::Second}) {
    const snk::BinaryOp* f = snk::builtin_binary_op(op, TypeCode::FP64);
    for (int masked = 0; masked < 2; ++masked) {
      Sparse a = random_sparse(t, 9, 6, 0.5, rng), b = random_sparse(t, 9, 6, 0.5, rng);
      Sparse m = random_sparse(&snk::types::Bool, 9, 6, 0.6, rng);
      Matrix A = make(a), B = make(b), M = make(m);
      MaskHint hint = masked ? MaskHint{&M, false, false} : MaskHint{};
      Sparse add{f->ztype, 9, 6, {}}, mult{f->ztype, 9, 6, {}};
      for (const auto& [ij, va] : a.e) {
        auto it = b.e.find(ij);
        if (it != b.e.end()) {
          add.e[ij] = mult.e[ij] = call(*f, va, it->second);
        } else {
          add.e[ij] = cast_to(f->ztype, t, va);
        }
      }
      for (const auto& [ij, vb] : b.e)
        if (!a.e.count(ij)) add.e[ij] = cast_to(f->ztype, t, vb);
      if (masked) {
        add = restrict_to(add, m, false, false);
        mult = restrict_to(mult, m, false, false);
      }
      Matrix TA(f->ztype, 9, 6), TM(f->ztype, 9, 6);
      backend->ewise_add(TA, hint, *f, A, B);
      backend->ewise_mult(TM, hint, *f, A, B);
      std::string what = f->name + (masked ? " masked" : "");
      expect_same(add, TA, ("ewise_add " + what).c_str());
      expect_same(mult, TM, ("ewise_mult " + what).c_str());
    }
  }
}

TEST_F(ReferenceBackendTest, ApplyUnaryAndBound) {
  const Type* t = &snk::types::Int32;
  Sparse a = random_sparse(t, 5, 8, 0.5, rng);
  Matrix A = make(a);
  const snk::UnaryOp* ainv = snk::builtin_unary_op(snk::UnaryOpcode::AInv, TypeCode::Int32);
  Sparse expected{t, 5, 8, {}};
  for (const auto& [ij, v] : a.e) {
    Bytes z(4);
    ainv->fn(z.data(), v.data());
    expected.e[ij] = z;
  }
  Matrix T(t, 5, 8);
  backend->apply_unary(T, *ainv, A);
  expect_same(expected, T, "AINV");

  const snk::BinaryOp* minus = snk::builtin_binary_op(BinaryOpcode::Minus, TypeCode::Int32);
  Scalar s(t);
  int32_t seven = 7;
  s.set(&seven, t);
  for (bool first : {true, false}) {
    Sparse e{t, 5, 8, {}};
    for (const auto& [ij, v] : a.e) e.e[ij] = first ? call(*minus, value_of(t, 7), v) : call(*minus, v, value_of(t, 7));
    Matrix U(t, 5, 8);
    backend->apply_bound(U, *minus, s, first, A);
    expect_same(e, U, first ? "bind first" : "bind second");
  }
}

TEST_F(ReferenceBackendTest, IndexOperatorsOnMatricesAndVectors) {
  const Type* t = &snk::types::FP64;
  Scalar thunk(&snk::types::Int64);
  int64_t one = 1;
  thunk.set(&one, &snk::types::Int64);
  for (bool vector : {false, true}) {
    Sparse a = random_sparse(t, vector ? 1 : 7, 9, 0.6, rng);
    snk::Vector av = vector ? make_vector(a) : snk::Vector(t, 9);
    Matrix A = vector ? Matrix(t, 1, 1) : make(a);
    const Matrix& In = vector ? av.as_matrix() : A;
    // Positions as the operator must see them: (k, 0) for a vector entry k.
    auto pos = [&](std::pair<Index, Index> ij) {
      return vector ? std::pair<Index, Index>{ij.second, 0} : ij;
    };
    for (IndexUnaryOpcode code : {IndexUnaryOpcode::RowIndex, IndexUnaryOpcode::ColIndex,
                                  IndexUnaryOpcode::DiagIndex}) {
      const snk::IndexUnaryOp* op = snk::builtin_index_unary_op(code, TypeCode::Int64);
      Sparse e{op->ztype, a.nrows, a.ncols, {}};
      for (const auto& [ij, v] : a.e) {
        Bytes z(op->ztype->size);
        auto [i, j] = pos(ij);
        op->fn(z.data(), v.data(), i, j, &one);
        e.e[ij] = z;
      }
      snk::Vector tv(op->ztype, 9);
      Matrix tm(op->ztype, a.nrows, a.ncols);
      Matrix& T = vector ? tv.as_matrix() : tm;
      backend->apply_index(T, *op, In, thunk);
      expect_same(e, T, (op->name + (vector ? " vector" : " matrix")).c_str());
    }
    for (IndexUnaryOpcode code : {IndexUnaryOpcode::Tril, IndexUnaryOpcode::Triu, IndexUnaryOpcode::RowLe,
                                  IndexUnaryOpcode::ColGt, IndexUnaryOpcode::Offdiag}) {
      const snk::IndexUnaryOp* op = snk::builtin_index_unary_op(code, TypeCode::Int64);
      Sparse e{t, a.nrows, a.ncols, {}};
      for (const auto& [ij, v] : a.e) {
        bool keep = false;
        auto [i, j] = pos(ij);
        op->fn(&keep, v.data(), i, j, &one);
        if (keep) e.e[ij] = v;
      }
      snk::Vector tv(t, 9);
      Matrix tm(t, a.nrows, a.ncols);
      Matrix& T = vector ? tv.as_matrix() : tm;
      backend->select(T, *op, In, thunk);
      expect_same(e, T, (op->name + (vector ? " select vector" : " select matrix")).c_str());
    }
    // A value operator with a floating-point thunk.
    const snk::IndexUnaryOp* gt = snk::builtin_index_unary_op(IndexUnaryOpcode::ValueGt, TypeCode::FP64);
    Scalar y(t);
    double zero = 0;
    y.set(&zero, t);
    Sparse e{t, a.nrows, a.ncols, {}};
    for (const auto& [ij, v] : a.e)
      if (as_double(t, v) > 0) e.e[ij] = v;
    snk::Vector tv(t, 9);
    Matrix tm(t, a.nrows, a.ncols);
    Matrix& T = vector ? tv.as_matrix() : tm;
    backend->select(T, *gt, In, y);
    expect_same(e, T, vector ? "VALUEGT vector" : "VALUEGT matrix");
  }
}

TEST_F(ReferenceBackendTest, ReduceRowsAndScalar) {
  for (TypeCode c : {TypeCode::Int16, TypeCode::FP64, TypeCode::Bool}) {
    const Type* t = type_of_code(c);
    BinaryOpcode op = c == TypeCode::Bool ? BinaryOpcode::LOr : BinaryOpcode::Plus;
    const snk::Monoid* m = snk::builtin_monoid(op, c);
    ASSERT_NE(m, nullptr);
    Sparse a = random_sparse(t, 8, 5, 0.3, rng);
    Matrix A = make(a);
    Sparse rows{t, 1, 8, {}};
    Bytes total;
    for (const auto& [ij, v] : a.e) {
      auto it = rows.e.find({0, ij.first});
      if (it == rows.e.end()) rows.e[{0, ij.first}] = v;
      else it->second = call(*m->op, it->second, v);
      total = total.empty() ? v : call(*m->op, total, v);
    }
    snk::Vector w(t, 8);
    backend->reduce_rows(w.as_matrix(), *m, A);
    expect_same(rows, w.as_matrix(), ("reduce_rows " + m->name).c_str());
    Scalar s(t);
    backend->reduce_scalar(s, *m, A);
    ASSERT_TRUE(s.has_value());
    if (total.empty()) total = m->identity;
    EXPECT_EQ(0, std::memcmp(s.data(), total.data(), t->size)) << m->name;
  }
  // Empty input: the identity.
  const snk::Monoid* mn = snk::builtin_monoid(BinaryOpcode::Min, TypeCode::FP32);
  Matrix E(&snk::types::FP32, 4, 4);
  Scalar s(&snk::types::FP32);
  backend->reduce_scalar(s, *mn, E);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(0, std::memcmp(s.data(), mn->identity.data(), 4));
}

TEST_F(ReferenceBackendTest, TransposeExtractKronecker) {
  const Type* t = &snk::types::UInt16;
  Sparse a = random_sparse(t, 6, 4, 0.5, rng);
  Matrix A = make(a);
  Matrix T(t, 4, 6);
  backend->transpose(T, A);
  expect_same(transposed(a), T, "transpose");

  std::vector<Index> I{5, 0, 0, 3}, J{2, 1, 2};
  Sparse e{t, 4, 3, {}};
  for (Index p = 0; p < I.size(); ++p)
    for (Index q = 0; q < J.size(); ++q) {
      auto it = a.e.find({I[p], J[q]});
      if (it != a.e.end()) e.e[{p, q}] = it->second;
    }
  Matrix X(t, 4, 3);
  backend->extract(X, A, IndexList{I.data(), 4, false}, IndexList{J.data(), 3, false});
  expect_same(e, X, "extract lists");
  Matrix Y(t, 6, 3);
  backend->extract(Y, A, IndexList{nullptr, 6, true}, IndexList{J.data(), 3, false});
  Sparse ey{t, 6, 3, {}};
  for (Index i = 0; i < 6; ++i)
    for (Index q = 0; q < J.size(); ++q) {
      auto it = a.e.find({i, J[q]});
      if (it != a.e.end()) ey.e[{i, q}] = it->second;
    }
  expect_same(ey, Y, "extract all rows");

  const snk::BinaryOp* times = snk::builtin_binary_op(BinaryOpcode::Times, TypeCode::UInt16);
  Sparse b = random_sparse(t, 2, 3, 0.6, rng);
  Matrix B = make(b);
  Sparse k{t, 12, 12, {}};
  for (const auto& [ij, va] : a.e)
    for (const auto& [pq, vb] : b.e) k.e[{ij.first * 2 + pq.first, ij.second * 3 + pq.second}] = call(*times, va, vb);
  Matrix K(t, 12, 12);
  backend->kronecker(K, *times, A, B);
  expect_same(k, K, "kronecker");
}

TEST_F(ReferenceBackendTest, AssignWithAndWithoutAccumulator) {
  const Type* t = &snk::types::FP64;
  const snk::BinaryOp* plus = snk::builtin_binary_op(BinaryOpcode::Plus, TypeCode::FP64);
  for (int with_accum = 0; with_accum < 2; ++with_accum) {
    for (int repeats = 0; repeats < 2; ++repeats) {
      Sparse c = random_sparse(t, 6, 7, 0.6, rng);
      std::vector<Index> I = repeats ? std::vector<Index>{4, 1, 4} : std::vector<Index>{4, 1, 2};
      std::vector<Index> J = repeats ? std::vector<Index>{0, 6, 3, 6} : std::vector<Index>{0, 6, 3, 5};
      Sparse a = random_sparse(t, 3, 4, 0.5, rng);
      Matrix C = make(c), A = make(a);
      // Oracle: for each target (I[p], J[q]) the last p and q that name it.
      std::map<Index, Index> last_i, last_j;
      for (Index p = 0; p < I.size(); ++p) last_i[I[p]] = p;
      for (Index q = 0; q < J.size(); ++q) last_j[J[q]] = q;
      Sparse z = c;
      for (auto [i, p] : last_i)
        for (auto [j, q] : last_j) {
          auto ita = a.e.find({p, q});
          auto itc = c.e.find({i, j});
          if (ita == a.e.end()) {
            if (!with_accum) z.e.erase({i, j});
          } else if (with_accum && itc != c.e.end()) {
            z.e[{i, j}] = call(*plus, itc->second, ita->second);
          } else {
            z.e[{i, j}] = ita->second;
          }
        }
      Matrix Z(t, 6, 7);
      backend->assign(Z, C, with_accum ? plus : nullptr, A, IndexList{I.data(), I.size(), false},
                      IndexList{J.data(), J.size(), false});
      std::string what = std::string("assign accum=") + std::to_string(with_accum) + " repeats=" +
                         std::to_string(repeats);
      expect_same(z, Z, what.c_str());
    }
  }
  // All rows and columns: Z = A without accumulator.
  Sparse c = random_sparse(t, 3, 3, 0.6, rng), a = random_sparse(t, 3, 3, 0.4, rng);
  Matrix C = make(c), A = make(a), Z(t, 3, 3);
  backend->assign(Z, C, nullptr, A, IndexList{nullptr, 3, true}, IndexList{nullptr, 3, true});
  expect_same(a, Z, "assign all");
}

TEST_F(ReferenceBackendTest, HypersparseMillionByMillion) {
  const Type* t = &snk::types::FP64;
  const Index n = 1000000;
  Sparse a{t, n, n, {}};
  std::uniform_int_distribution<Index> any(0, n - 1);
  std::uniform_int_distribution<int> small(1, 9);
  while (a.e.size() < 100) a.e[{any(rng), any(rng)}] = value_of(t, small(rng));
  // Make some products exist: a few entries share an inner index.
  a.e[{5, 77}] = value_of(t, 2);
  a.e[{77, 999999}] = value_of(t, 3);
  Matrix A = make(a);
  ASSERT_TRUE(A.csr().hyper);

  Matrix T(t, n, n);
  backend->transpose(T, A);
  expect_same(transposed(a), T, "hyper transpose");

  const snk::Semiring* s = snk::builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64);
  Matrix P(t, n, n);
  backend->mxm(P, MaskHint{}, *s, A, false, A, false, false);
  expect_same(oracle_mxm(*s, a, false, a, false, false), P, "hyper A*A");
  Matrix Q(t, n, n);
  backend->mxm(Q, MaskHint{}, *s, A, false, A, true, true);
  expect_same(oracle_mxm(*s, a, false, a, true, true), Q, "hyper A*A' flipped");

  snk::Vector w(t, n);
  backend->reduce_rows(w.as_matrix(), *snk::builtin_monoid(BinaryOpcode::Plus, TypeCode::FP64), A);
  std::map<Index, int> nonempty_rows;
  for (auto& kv : a.e) nonempty_rows[kv.first.first] = 1;
  EXPECT_EQ(w.nvals(), nonempty_rows.size());

  Matrix U(t, n, n);
  backend->ewise_add(U, MaskHint{}, *snk::builtin_binary_op(BinaryOpcode::Plus, TypeCode::FP64), A, T);
  EXPECT_GE(U.nvals(), 100u);
  Scalar thunk(&snk::types::Int64);
  int64_t zero = 0;
  thunk.set(&zero, &snk::types::Int64);
  Matrix L(t, n, n);
  backend->select(L, *snk::builtin_index_unary_op(IndexUnaryOpcode::Tril, TypeCode::Int64), A, thunk);
  Sparse lower{t, n, n, {}};
  for (auto& [ij, v] : a.e)
    if (ij.second <= ij.first) lower.e[ij] = v;
  expect_same(lower, L, "hyper tril");
}

// ---- a user-defined type with user operators ---------------------------------------------------------------
struct Pair {
  double sum;
  int64_t count;
};

void pair_add(void* z, const void* x, const void* y) {
  Pair a, b;
  std::memcpy(&a, x, sizeof a);
  std::memcpy(&b, y, sizeof b);
  Pair r{a.sum + b.sum, a.count + b.count};
  std::memcpy(z, &r, sizeof r);
}

// Not commutative: (x.sum * 2 + y.sum, x.count)
void pair_mul(void* z, const void* x, const void* y) {
  Pair a, b;
  std::memcpy(&a, x, sizeof a);
  std::memcpy(&b, y, sizeof b);
  Pair r{a.sum * 2 + b.sum, a.count};
  std::memcpy(z, &r, sizeof r);
}

void pair_row_plus(void* z, const void* x, Index i, Index, const void* thunk) {
  Pair a;
  std::memcpy(&a, x, sizeof a);
  int64_t y;
  std::memcpy(&y, thunk, sizeof y);
  Pair r{a.sum, static_cast<int64_t>(i) + y};
  std::memcpy(z, &r, sizeof r);
}

TEST_F(ReferenceBackendTest, UserDefinedTypeAndOperators) {
  std::unique_ptr<Type> udt(snk::new_user_type(sizeof(Pair), "Pair"));
  const Type* t = udt.get();
  auto add = snk::new_binary_op(pair_add, t, t, t, "pair_add");
  auto mul = snk::new_binary_op(pair_mul, t, t, t, "pair_mul");
  Pair zero{0, 0};
  auto monoid = snk::new_monoid(add.get(), &zero);
  auto semiring = snk::new_semiring(monoid.get(), mul.get());
  auto pair_of = [&](double s, int64_t c) {
    Bytes b(sizeof(Pair));
    Pair p{s, c};
    std::memcpy(b.data(), &p, sizeof p);
    return b;
  };
  std::uniform_int_distribution<int> small(1, 5);
  auto random_pairs = [&](Index m, Index n) {
    Sparse s{t, m, n, {}};
    std::uniform_real_distribution<double> coin(0, 1);
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j)
        if (coin(rng) < 0.5) s.e[{i, j}] = pair_of(small(rng), small(rng));
    return s;
  };
  Sparse a = random_pairs(5, 4), b = random_pairs(4, 6);
  Matrix A = make(a), B = make(b);
  for (bool flip : {false, true}) {
    Matrix T(t, 5, 6);
    backend->mxm(T, MaskHint{}, *semiring, A, false, B, false, flip);
    expect_same(oracle_mxm(*semiring, a, false, b, false, flip), T, flip ? "udt mxm flip" : "udt mxm");
  }
  // ewise_add, reduce_rows, reduce_scalar, transpose.
  Sparse c = random_pairs(5, 4);
  Matrix C = make(c);
  Sparse e = a;
  for (auto& [ij, v] : c.e) e.e[ij] = a.e.count(ij) ? call(*add, a.e[ij], v) : v;
  Matrix U(t, 5, 4);
  backend->ewise_add(U, MaskHint{}, *add, A, C);
  expect_same(e, U, "udt ewise_add");
  snk::Vector w(t, 5);
  backend->reduce_rows(w.as_matrix(), *monoid, A);
  Sparse rows{t, 1, 5, {}};
  for (auto& [ij, v] : a.e) {
    auto it = rows.e.find({0, ij.first});
    if (it == rows.e.end()) rows.e[{0, ij.first}] = v;
    else it->second = call(*add, it->second, v);
  }
  expect_same(rows, w.as_matrix(), "udt reduce_rows");
  Scalar s(t);
  backend->reduce_scalar(s, *monoid, A);
  Bytes total = pair_of(0, 0);
  for (auto& kv : a.e) total = call(*add, total, kv.second);
  EXPECT_EQ(0, std::memcmp(s.data(), total.data(), sizeof(Pair)));
  // A user index-unary operator on a UDT vector sees (k, 0).
  auto rowplus = snk::new_index_unary_op(pair_row_plus, t, t, &snk::types::Int64);
  Sparse v = random_pairs(1, 9);
  snk::Vector V = make_vector(v);
  Scalar thunk(&snk::types::Int64);
  int64_t ten = 10;
  thunk.set(&ten, &snk::types::Int64);
  snk::Vector R(t, 9);
  backend->apply_index(R.as_matrix(), *rowplus, V.as_matrix(), thunk);
  Sparse ev{t, 1, 9, {}};
  for (auto& [ij, x] : v.e) {
    Pair p;
    std::memcpy(&p, x.data(), sizeof p);
    ev.e[ij] = pair_of(p.sum, static_cast<int64_t>(ij.second) + 10);
  }
  expect_same(ev, R.as_matrix(), "udt vector index op");
}

// An index-unary operator with a non-boolean result selects where the result cast to bool is true.
void keep_odd_columns(void* z, const void*, Index, Index j, const void*) {
  int32_t r = static_cast<int32_t>(j % 2);
  std::memcpy(z, &r, sizeof r);
}

TEST_F(ReferenceBackendTest, SelectWithIntegerValuedUserOperator) {
  const Type* t = &snk::types::FP64;
  auto op = snk::new_index_unary_op(keep_odd_columns, &snk::types::Int32, t, &snk::types::Int64);
  Sparse a = random_sparse(t, 6, 9, 0.6, rng);
  Matrix A = make(a), T(t, 6, 9);
  Scalar thunk(&snk::types::Int64);
  int64_t zero = 0;
  thunk.set(&zero, &snk::types::Int64);
  backend->select(T, *op, A, thunk);
  Sparse e{t, 6, 9, {}};
  for (auto& [ij, v] : a.e)
    if (ij.second % 2) e.e[ij] = v;
  expect_same(e, T, "select with INT32-valued operator");
}

TEST_F(ReferenceBackendTest, EmptyDimensions) {
  const Type* t = &snk::types::Int16;
  const snk::Semiring* s = snk::builtin_semiring(BinaryOpcode::Max, BinaryOpcode::Plus, TypeCode::Int16);
  Matrix A(t, 3, 0), B(t, 0, 4), T(t, 3, 4);
  backend->mxm(T, MaskHint{}, *s, A, false, B, false, false);
  EXPECT_EQ(T.nvals(), 0u);
  Matrix U(t, 3, 4);
  backend->mxm(U, MaskHint{}, *s, A, false, B, false, true);
  EXPECT_EQ(U.nvals(), 0u);
  snk::Vector w(t, 0);
  backend->reduce_rows(w.as_matrix(), *s->add, Matrix(t, 0, 5));
  EXPECT_EQ(w.nvals(), 0u);
  Sparse a = random_sparse(t, 4, 4, 0.8, rng);
  Matrix X(t, 0, 4);
  backend->extract(X, make(a), IndexList{nullptr, 0, false}, IndexList{nullptr, 4, true});
  EXPECT_EQ(X.nvals(), 0u);
}

TEST_F(ReferenceBackendTest, ConcurrentCallsFromSeveralThreads) {
  const Type* t = &snk::types::Int64;
  const snk::Semiring* s = snk::builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::Int64);
  std::vector<Sparse> as, bs;
  for (int k = 0; k < 4; ++k) {
    as.push_back(random_sparse(t, 30, 20, 0.3, rng));
    bs.push_back(random_sparse(t, 20, 25, 0.3, rng));
  }
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      // Each thread makes its own user operator (same function): the caches are shared.
      auto mul = snk::new_binary_op(snk::builtin_binary_op(BinaryOpcode::Times, TypeCode::Int64)->fn, t, t, t,
                                    "times_again");
      auto ring = snk::new_semiring(s->add, mul.get());
      Matrix A = make(as[k]), B = make(bs[k]);
      int good = 1;
      for (int rep = 0; rep < 20; ++rep) {
        Matrix T(t, 30, 25);
        backend->mxm(T, MaskHint{}, rep % 2 ? *ring : *s, A, false, B, false, rep % 3 == 0);
        Sparse got = read(T), want = oracle_mxm(*s, as[k], false, bs[k], false, false);
        if (got.e != want.e) good = 0;
      }
      ok[k] = good;
    });
  }
  for (auto& th : threads) th.join();
  for (int k = 0; k < 4; ++k) EXPECT_EQ(ok[k], 1) << "thread " << k;
}

}  // namespace
