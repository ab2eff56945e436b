// tests/core/test_bad_input.cpp: bad arguments to every operation of include/snack/operations.hpp and to the
// container methods of include/snack/containers.hpp.
//
// Each case makes one call that the C API spec 2.0 says must fail: a dimension mismatch (inputs, output,
// mask), a domain mismatch (a user-defined type where a builtin one is needed, a valued mask of a UDT, a
// reduction operator with unequal domains), an index out of range (extract, assign, setElement,
// extractElement, removeElement, build), duplicates in build without a dup operator, build into a
// non-empty output, an empty GrB_Scalar where a value is needed (bound scalar, thunk). The call must throw
// snk::Error with the spec's GrB_Info code and a non-empty message, and leave every argument exactly as it
// was (type, dimensions, entries and their bytes, compared before and after). Null pointers and
// uninitialized objects are C API matters and are tested with the C API. Every case runs on each backend
// compiled in (the checks belong to the front-ends, so the answer must not depend on the backend).
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "snack/snack.hpp"

namespace {

using namespace snk;

// The complete state of an argument as a byte string: type, dimensions, and every entry with its bytes.
std::string state_of(const Matrix& A) {
  const Index n = A.nvals();
  std::vector<Index> I(n), J(n);
  std::vector<unsigned char> x(n * A.type()->size + 1);
  A.extract_tuples(I.data(), J.data(), x.data(), A.type());
  std::string s = A.type()->name + " " + std::to_string(A.nrows()) + "x" + std::to_string(A.ncols()) + " nvals " +
                  std::to_string(n) + ":";
  s.append(reinterpret_cast<const char*>(I.data()), n * sizeof(Index));
  s.append(reinterpret_cast<const char*>(J.data()), n * sizeof(Index));
  s.append(reinterpret_cast<const char*>(x.data()), n * A.type()->size);
  return s;
}
std::string state_of(const Vector& v) { return "vector " + state_of(v.as_matrix()); }
std::string state_of(const Scalar& s) {
  std::string out = s.type()->name + (s.has_value() ? " value:" : " empty");
  if (s.has_value()) out.append(static_cast<const char*>(s.data()), s.type()->size);
  return out;
}

// An argument whose state is compared before and after a failing call.
struct Arg {
  std::function<std::string()> state;
  Arg(const Matrix& m) : state([&m] { return state_of(m); }) {}  // NOLINT: implicit by design
  Arg(const Vector& v) : state([&v] { return state_of(v); }) {}  // NOLINT
  Arg(const Scalar& s) : state([&s] { return state_of(s); }) {}  // NOLINT
};

// `call` must throw snk::Error(expected) with a message, and leave every argument in `args` unchanged.
void expect_rejected(Info expected, const std::string& what, const std::vector<Arg>& args,
                     const std::function<void()>& call) {
  SCOPED_TRACE(what);
  std::vector<std::string> before;
  for (const Arg& a : args) before.push_back(a.state());
  try {
    call();
    ADD_FAILURE() << "no error; expected " << info_name(expected);
  } catch (const Error& e) {
    EXPECT_EQ(info_name(e.info()), std::string(info_name(expected))) << "message: " << e.what();
    EXPECT_GT(std::strlen(e.what()), 0u) << "an empty message";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a non-snk::Error exception: " << e.what();
  }
  for (std::size_t k = 0; k < args.size(); ++k)
    EXPECT_EQ(args[k].state(), before[k]) << "argument " << k << " changed by the failing call";
}

const Type* FP64 = &types::FP64;
const Type* INT32 = &types::Int32;

Matrix filled(const Type* type, Index m, Index n, std::uint64_t seed = 1) {
  Matrix A(type, m, n);
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j)
      if ((i * 7 + j * 3 + seed) % 3 != 0) {
        const double v = double((i + 2 * j + seed) % 5) - 1;
        A.set_element(i, j, &v, FP64);
      }
  A.wait();
  return A;
}

Vector filled_vector(const Type* type, Index n, std::uint64_t seed = 1) {
  Vector v(type, n);
  for (Index i = 0; i < n; ++i)
    if ((i + seed) % 3 != 0) {
      const double x = double((i + seed) % 4);
      v.set_element(i, &x, FP64);
    }
  v.wait();
  return v;
}

Scalar scalar(double v, const Type* type = FP64) {
  Scalar s(type);
  s.set(&v, FP64);
  return s;
}

// A 16-byte user-defined type, and matrices / vectors / scalars of it with entries.
struct Udt {
  std::unique_ptr<Type> type{new_user_type(16, "pair16")};
  Matrix matrix(Index m, Index n) {
    Matrix A(type.get(), m, n);
    unsigned char v[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j)
        if ((i + j) % 2 == 0) {
          v[0] = static_cast<unsigned char>(i * 16 + j);
          A.set_element(i, j, v, type.get());
        }
    A.wait();
    return A;
  }
  Vector vector(Index n) {
    Vector w(type.get(), n);
    unsigned char v[16] = {9};
    for (Index i = 0; i < n; i += 2) w.set_element(i, v, type.get());
    w.wait();
    return w;
  }
  Scalar scalar() {
    Scalar s(type.get());
    unsigned char v[16] = {7};
    s.set(v, type.get());
    return s;
  }
};

class BadInput : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { scope_ = std::make_unique<BackendScope>(GetParam()); }
  void TearDown() override { scope_.reset(); }
  std::unique_ptr<BackendScope> scope_;
  Udt udt;
  const Semiring& plus_times = *builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64);
  const BinaryOp& plus = *builtin_binary_op(BinaryOpcode::Plus, TypeCode::FP64);
  const Monoid& plus_monoid = *builtin_monoid(BinaryOpcode::Plus, TypeCode::FP64);
  const UnaryOp& ainv = *builtin_unary_op(UnaryOpcode::AInv, TypeCode::FP64);
  const IndexUnaryOp& tril = *builtin_index_unary_op(IndexUnaryOpcode::Tril, TypeCode::Int64);
  const IndexUnaryOp& value_gt = *builtin_index_unary_op(IndexUnaryOpcode::ValueGt, TypeCode::FP64);
  const Descriptor none{};
};

// ---- containers ------------------------------------------------------------------------------------------
TEST_P(BadInput, MatrixBuild) {
  const Index I[] = {0, 1, 2}, J[] = {0, 1, 2}, Ibad[] = {0, 3, 1}, Jbad[] = {0, 1, 9}, Idup[] = {0, 1, 0},
              Jdup[] = {2, 1, 2};
  const double x[] = {1, 2, 3};
  Matrix C(FP64, 3, 3);
  expect_rejected(Info::IndexOutOfBounds, "build: row index out of range", {C},
                  [&] { C.build(Ibad, J, x, FP64, 3, nullptr); });
  expect_rejected(Info::IndexOutOfBounds, "build: column index out of range", {C},
                  [&] { C.build(I, Jbad, x, FP64, 3, &plus); });
  expect_rejected(Info::InvalidValue, "build: duplicates without dup", {C},
                  [&] { C.build(Idup, Jdup, x, FP64, 3, nullptr); });
  unsigned char u[3 * 16] = {};
  expect_rejected(Info::DomainMismatch, "build: UDT values into FP64", {C},
                  [&] { C.build(I, J, u, udt.type.get(), 3, nullptr); });
  Matrix U(udt.type.get(), 3, 3);
  expect_rejected(Info::DomainMismatch, "build: FP64 dup operator on a UDT matrix", {U},
                  [&] { U.build(I, J, u, udt.type.get(), 3, &plus); });
  Matrix D = filled(FP64, 3, 3);
  expect_rejected(Info::OutputNotEmpty, "build: output not empty", {D}, [&] { D.build(I, J, x, FP64, 3, nullptr); });
}

TEST_P(BadInput, VectorBuild) {
  const Index I[] = {0, 1, 2}, Ibad[] = {0, 5, 1}, Idup[] = {2, 1, 2};
  const double x[] = {1, 2, 3};
  Vector v(FP64, 5);
  expect_rejected(Info::IndexOutOfBounds, "vector build: index out of range", {v},
                  [&] { v.build(Ibad, x, FP64, 3, nullptr); });
  expect_rejected(Info::InvalidValue, "vector build: duplicates without dup", {v},
                  [&] { v.build(Idup, x, FP64, 3, nullptr); });
  unsigned char u[3 * 16] = {};
  expect_rejected(Info::DomainMismatch, "vector build: UDT values into FP64", {v},
                  [&] { v.build(I, u, udt.type.get(), 3, nullptr); });
  Vector w = filled_vector(FP64, 5);
  expect_rejected(Info::OutputNotEmpty, "vector build: output not empty", {w}, [&] { w.build(I, x, FP64, 3, nullptr); });
}

TEST_P(BadInput, ElementAccess) {
  Matrix A = filled(FP64, 3, 4);
  Vector v = filled_vector(FP64, 5);
  const double x = 5;
  unsigned char u[16] = {1};
  expect_rejected(Info::InvalidIndex, "setElement: row out of range", {A}, [&] { A.set_element(3, 0, &x, FP64); });
  expect_rejected(Info::InvalidIndex, "setElement: column out of range", {A}, [&] { A.set_element(0, 4, &x, FP64); });
  expect_rejected(Info::DomainMismatch, "setElement: UDT value into FP64", {A},
                  [&] { A.set_element(0, 0, u, udt.type.get()); });
  expect_rejected(Info::InvalidIndex, "vector setElement out of range", {v}, [&] { v.set_element(5, &x, FP64); });
  expect_rejected(Info::InvalidIndex, "removeElement out of range", {A}, [&] { A.remove_element(0, 9); });
  expect_rejected(Info::InvalidIndex, "vector removeElement out of range", {v}, [&] { v.remove_element(7); });
  double out = 42;
  expect_rejected(Info::InvalidIndex, "extractElement out of range", {A}, [&] { A.extract_element(5, 0, &out, FP64); });
  EXPECT_EQ(out, 42);
  expect_rejected(Info::DomainMismatch, "extractElement into a UDT", {A},
                  [&] { A.extract_element(0, 0, u, udt.type.get()); });
  expect_rejected(Info::InvalidIndex, "vector extractElement out of range", {v}, [&] { v.extract_element(5, &out, FP64); });
  Matrix U = udt.matrix(2, 2);
  expect_rejected(Info::DomainMismatch, "extractTuples of a UDT matrix as FP64", {U}, [&] {
    std::vector<Index> I(U.nvals()), J(U.nvals());
    std::vector<double> X(U.nvals());
    U.extract_tuples(I.data(), J.data(), X.data(), FP64);
  });
  Scalar s = scalar(3);
  expect_rejected(Info::DomainMismatch, "Scalar set from a UDT", {s}, [&] { s.set(u, udt.type.get()); });
  expect_rejected(Info::DomainMismatch, "Scalar get as a UDT", {s}, [&] { s.get(u, udt.type.get()); });
}

// ---- multiplication ----------------------------------------------------------------------------------------
TEST_P(BadInput, Mxm) {
  Matrix C = filled(FP64, 3, 2), A = filled(FP64, 3, 4), B = filled(FP64, 4, 2), Bbad = filled(FP64, 5, 2);
  Matrix M = filled(&types::Bool, 3, 2), Mbad = filled(&types::Bool, 2, 3), Cbad = filled(FP64, 2, 2);
  Matrix Au = udt.matrix(3, 4), Cu = udt.matrix(3, 2), Mu = udt.matrix(3, 2);
  expect_rejected(Info::DimensionMismatch, "mxm: inner dimensions", {C, A, Bbad},
                  [&] { mxm(C, nullptr, nullptr, plus_times, A, Bbad); });
  expect_rejected(Info::DimensionMismatch, "mxm: output size", {Cbad, A, B},
                  [&] { mxm(Cbad, nullptr, nullptr, plus_times, A, B); });
  expect_rejected(Info::DimensionMismatch, "mxm: mask size", {C, Mbad, A, B},
                  [&] { mxm(C, &Mbad, nullptr, plus_times, A, B); });
  Descriptor ta;
  ta.transpose_first = true;
  expect_rejected(Info::DimensionMismatch, "mxm: A' has the wrong shape", {C, A, B},
                  [&] { mxm(C, nullptr, nullptr, plus_times, A, B, ta); });
  expect_rejected(Info::DomainMismatch, "mxm: UDT input", {C, Au, B}, [&] { mxm(C, nullptr, nullptr, plus_times, Au, B); });
  expect_rejected(Info::DomainMismatch, "mxm: UDT output", {Cu, A, B}, [&] { mxm(Cu, nullptr, nullptr, plus_times, A, B); });
  expect_rejected(Info::DomainMismatch, "mxm: valued UDT mask", {C, Mu, A, B}, [&] { mxm(C, &Mu, nullptr, plus_times, A, B); });
  expect_rejected(Info::DomainMismatch, "mxm: accum on a UDT output", {Cu, M, A, B},
                  [&] { mxm(Cu, &M, &plus, plus_times, A, B); });
}

TEST_P(BadInput, MxvVxm) {
  Matrix A = filled(FP64, 3, 4);
  Vector w3 = filled_vector(FP64, 3), w4 = filled_vector(FP64, 4), u4 = filled_vector(FP64, 4),
         u3 = filled_vector(FP64, 3), m5 = filled_vector(&types::Bool, 5);
  Vector uu = udt.vector(4);
  expect_rejected(Info::DimensionMismatch, "mxv: size(u) != ncols(A)", {w3, A, u3},
                  [&] { mxv(w3, nullptr, nullptr, plus_times, A, u3); });
  expect_rejected(Info::DimensionMismatch, "mxv: size(w) != nrows(A)", {w4, A, u4},
                  [&] { mxv(w4, nullptr, nullptr, plus_times, A, u4); });
  expect_rejected(Info::DimensionMismatch, "mxv: mask size", {w3, m5, A, u4},
                  [&] { mxv(w3, &m5, nullptr, plus_times, A, u4); });
  expect_rejected(Info::DomainMismatch, "mxv: UDT vector", {w3, A, uu}, [&] { mxv(w3, nullptr, nullptr, plus_times, A, uu); });
  expect_rejected(Info::DimensionMismatch, "vxm: size(u) != nrows(A)", {w4, u4, A},
                  [&] { vxm(w4, nullptr, nullptr, plus_times, u4, A); });
  expect_rejected(Info::DimensionMismatch, "vxm: size(w) != ncols(A)", {w3, u3, A},
                  [&] { vxm(w3, nullptr, nullptr, plus_times, u3, A); });
  expect_rejected(Info::DomainMismatch, "vxm: UDT vector", {w3, uu, A}, [&] {
    Descriptor t;
    t.transpose_second = true;
    vxm(w3, nullptr, nullptr, plus_times, uu, A, t);
  });
}

// ---- element-wise ------------------------------------------------------------------------------------------
TEST_P(BadInput, Ewise) {
  Matrix C = filled(FP64, 3, 4), A = filled(FP64, 3, 4), B = filled(FP64, 4, 3), M = filled(&types::Bool, 4, 3);
  Matrix Au = udt.matrix(3, 4);
  Vector w = filled_vector(FP64, 5), u = filled_vector(FP64, 5), v = filled_vector(FP64, 6), uu = udt.vector(5);
  for (int add = 0; add < 2; ++add) {
    const std::string n = add ? "eWiseAdd" : "eWiseMult";
    auto mat = [&](Matrix& c, const Matrix* m, const Matrix& a, const Matrix& b, const Descriptor& d) {
      add ? ewise_add(c, m, nullptr, plus, a, b, d) : ewise_mult(c, m, nullptr, plus, a, b, d);
    };
    auto vec = [&](Vector& c, const Vector& a, const Vector& b) {
      add ? ewise_add(c, nullptr, nullptr, plus, a, b) : ewise_mult(c, nullptr, nullptr, plus, a, b);
    };
    expect_rejected(Info::DimensionMismatch, n + ": A and B differ", {C, A, B}, [&] { mat(C, nullptr, A, B, none); });
    expect_rejected(Info::DimensionMismatch, n + ": mask size", {C, M, A}, [&] { mat(C, &M, A, A, none); });
    Descriptor tb;
    tb.transpose_second = true;
    expect_rejected(Info::DimensionMismatch, n + ": A' vs B", {C, A, B}, [&] {
      Descriptor d;
      d.transpose_first = true;
      mat(C, nullptr, A, B, d);
    });
    expect_rejected(Info::DomainMismatch, n + ": UDT input", {C, Au, B}, [&] { mat(C, nullptr, Au, B, tb); });
    expect_rejected(Info::DimensionMismatch, n + ": vector sizes", {w, u, v}, [&] { vec(w, u, v); });
    expect_rejected(Info::DomainMismatch, n + ": UDT vector", {w, u, uu}, [&] { vec(w, u, uu); });
  }
}

// ---- apply and select ----------------------------------------------------------------------------------------
TEST_P(BadInput, Apply) {
  Matrix C = filled(FP64, 3, 4), A = filled(FP64, 4, 3), Ok = filled(FP64, 3, 4), Au = udt.matrix(3, 4);
  Vector w = filled_vector(FP64, 5), u = filled_vector(FP64, 6);
  Scalar empty(FP64), two = scalar(2), su = udt.scalar();
  const BinaryOp& minus = *builtin_binary_op(BinaryOpcode::Minus, TypeCode::FP64);
  expect_rejected(Info::DimensionMismatch, "apply: shapes", {C, A}, [&] { apply(C, nullptr, nullptr, ainv, A); });
  expect_rejected(Info::DimensionMismatch, "apply: vector sizes", {w, u}, [&] { apply(w, nullptr, nullptr, ainv, u); });
  expect_rejected(Info::DomainMismatch, "apply: UDT input", {C, Au}, [&] { apply(C, nullptr, nullptr, ainv, Au); });
  expect_rejected(Info::EmptyObject, "apply bind first: empty scalar", {C, empty, Ok},
                  [&] { apply_bind_first(C, nullptr, nullptr, minus, empty, Ok); });
  expect_rejected(Info::EmptyObject, "apply bind second: empty scalar", {C, Ok, empty},
                  [&] { apply_bind_second(C, nullptr, nullptr, minus, Ok, empty); });
  expect_rejected(Info::EmptyObject, "apply bind second (vector): empty scalar", {w, empty},
                  [&] { apply_bind_second(w, nullptr, nullptr, minus, w, empty); });
  expect_rejected(Info::DomainMismatch, "apply bind first: UDT scalar", {C, su, Ok},
                  [&] { apply_bind_first(C, nullptr, nullptr, minus, su, Ok); });
  expect_rejected(Info::DimensionMismatch, "apply bind second: shapes", {C, A, two},
                  [&] { apply_bind_second(C, nullptr, nullptr, minus, A, two); });
  expect_rejected(Info::EmptyObject, "apply index-unary: empty thunk", {C, Ok, empty},
                  [&] { apply(C, nullptr, nullptr, value_gt, Ok, empty); });
  expect_rejected(Info::DomainMismatch, "apply index-unary: UDT input to VALUEGT_FP64", {C, Au, two},
                  [&] { apply(C, nullptr, nullptr, value_gt, Au, two); });
  expect_rejected(Info::DimensionMismatch, "apply index-unary: shapes", {C, A, two},
                  [&] { apply(C, nullptr, nullptr, tril, A, two); });
}

TEST_P(BadInput, Select) {
  Matrix C = filled(FP64, 3, 4), A = filled(FP64, 4, 3), Ok = filled(FP64, 3, 4), Au = udt.matrix(3, 4);
  Matrix Mbad = filled(&types::Bool, 4, 4);
  Vector w = filled_vector(FP64, 5), u = filled_vector(FP64, 4);
  Scalar empty(&types::Int64), zero = scalar(0, &types::Int64), su = udt.scalar();
  expect_rejected(Info::DimensionMismatch, "select: shapes", {C, A, zero}, [&] { select(C, nullptr, nullptr, tril, A, zero); });
  expect_rejected(Info::DimensionMismatch, "select: mask size", {C, Mbad, Ok, zero},
                  [&] { select(C, &Mbad, nullptr, tril, Ok, zero); });
  expect_rejected(Info::DimensionMismatch, "select: vector sizes", {w, u, zero}, [&] { select(w, nullptr, nullptr, tril, u, zero); });
  expect_rejected(Info::EmptyObject, "select: empty thunk", {C, Ok, empty}, [&] { select(C, nullptr, nullptr, tril, Ok, empty); });
  expect_rejected(Info::DomainMismatch, "select: UDT input to a value operator", {C, Au, zero},
                  [&] { select(C, nullptr, nullptr, value_gt, Au, zero); });
  expect_rejected(Info::DomainMismatch, "select: UDT thunk", {C, Ok, su}, [&] { select(C, nullptr, nullptr, tril, Ok, su); });
}

// ---- reduce --------------------------------------------------------------------------------------------------
TEST_P(BadInput, Reduce) {
  Matrix A = filled(FP64, 3, 4), Au = udt.matrix(3, 4);
  Vector w3 = filled_vector(FP64, 3), w4 = filled_vector(FP64, 4), m4 = filled_vector(&types::Bool, 4);
  Vector u = filled_vector(FP64, 6), uu = udt.vector(6);
  Scalar s = scalar(1), su = udt.scalar();
  const BinaryOp& lt = *builtin_binary_op(BinaryOpcode::Lt, TypeCode::FP64);
  expect_rejected(Info::DimensionMismatch, "reduce: size(w) != nrows(A)", {w4, A}, [&] { reduce(w4, nullptr, nullptr, plus_monoid, A); });
  expect_rejected(Info::DimensionMismatch, "reduce columns: size(w) != ncols(A)", {w3, A}, [&] {
    Descriptor d;
    d.transpose_first = true;
    reduce(w3, nullptr, nullptr, plus_monoid, A, d);
  });
  expect_rejected(Info::DimensionMismatch, "reduce: mask size", {w3, m4, A}, [&] { reduce(w3, &m4, nullptr, plus_monoid, A); });
  expect_rejected(Info::DomainMismatch, "reduce: UDT input", {w3, Au}, [&] { reduce(w3, nullptr, nullptr, plus_monoid, Au); });
  expect_rejected(Info::DomainMismatch, "reduce: operator with unequal domains (LT)", {w3, A},
                  [&] { reduce(w3, nullptr, nullptr, lt, A); });
  expect_rejected(Info::DomainMismatch, "reduce to scalar: UDT scalar", {su, A}, [&] { reduce(su, nullptr, plus_monoid, A); });
  expect_rejected(Info::DomainMismatch, "reduce to scalar: UDT vector", {s, uu}, [&] { reduce(s, nullptr, plus_monoid, uu); });
  expect_rejected(Info::DomainMismatch, "reduce to scalar: operator with unequal domains", {s, u}, [&] { reduce(s, nullptr, lt, u); });
}

// ---- transpose, extract, assign, kronecker ---------------------------------------------------------------
TEST_P(BadInput, Transpose) {
  Matrix C = filled(FP64, 3, 4), A = filled(FP64, 3, 4), Au = udt.matrix(4, 3), M = filled(&types::Bool, 4, 3);
  expect_rejected(Info::DimensionMismatch, "transpose: C must be ncols(A) x nrows(A)", {C, A},
                  [&] { transpose(C, nullptr, nullptr, A); });
  expect_rejected(Info::DimensionMismatch, "transpose: mask size", {C, M, A}, [&] {
    Descriptor d;
    d.transpose_first = true;
    transpose(C, &M, nullptr, A, d);
  });
  expect_rejected(Info::DomainMismatch, "transpose: UDT input into FP64", {C, Au}, [&] { transpose(C, nullptr, nullptr, Au); });
}

TEST_P(BadInput, Extract) {
  Matrix A = filled(FP64, 5, 6), C = filled(FP64, 2, 3), Au = udt.matrix(5, 6);
  Vector w = filled_vector(FP64, 2), u = filled_vector(FP64, 6);
  const Index I[] = {0, 4}, Ibad[] = {0, 5}, J[] = {1, 2, 5}, Jbad[] = {1, 6, 2};
  expect_rejected(Info::IndexOutOfBounds, "extract: row index out of range", {C, A},
                  [&] { extract(C, nullptr, nullptr, A, Ibad, 2, J, 3); });
  expect_rejected(Info::IndexOutOfBounds, "extract: column index out of range", {C, A},
                  [&] { extract(C, nullptr, nullptr, A, I, 2, Jbad, 3); });
  expect_rejected(Info::DimensionMismatch, "extract: C is not |I| x |J|", {C, A},
                  [&] { extract(C, nullptr, nullptr, A, J, 3, I, 2); });
  expect_rejected(Info::DomainMismatch, "extract: UDT input into FP64", {C, Au},
                  [&] { extract(C, nullptr, nullptr, Au, I, 2, J, 3); });
  expect_rejected(Info::IndexOutOfBounds, "vector extract: index out of range", {w, u},
                  [&] { extract(w, nullptr, nullptr, u, Jbad, 2); });
  expect_rejected(Info::DimensionMismatch, "vector extract: size(w) != |I|", {w, u}, [&] { extract(w, nullptr, nullptr, u, J, 3); });
  expect_rejected(Info::InvalidIndex, "column extract: j out of range", {w, A},
                  [&] { extract_column(w, nullptr, nullptr, A, I, 2, 6); });
  expect_rejected(Info::IndexOutOfBounds, "column extract: I out of range", {w, A},
                  [&] { extract_column(w, nullptr, nullptr, A, Ibad, 2, 1); });
}

TEST_P(BadInput, Assign) {
  Matrix C = filled(FP64, 5, 6), A = filled(FP64, 2, 3), M = filled(&types::Bool, 2, 3), Au = udt.matrix(2, 3);
  Vector w = filled_vector(FP64, 6), u = filled_vector(FP64, 3), u6 = filled_vector(FP64, 6), u5 = filled_vector(FP64, 5);
  Scalar s = scalar(2), su = udt.scalar();
  const Index I[] = {0, 4}, Ibad[] = {0, 5}, J[] = {1, 2, 5}, Jbad[] = {1, 6, 2};
  expect_rejected(Info::IndexOutOfBounds, "assign: row index out of range", {C, A},
                  [&] { assign(C, nullptr, nullptr, A, Ibad, 2, J, 3); });
  expect_rejected(Info::IndexOutOfBounds, "assign: column index out of range", {C, A},
                  [&] { assign(C, nullptr, nullptr, A, I, 2, Jbad, 3); });
  expect_rejected(Info::DimensionMismatch, "assign: A is not |I| x |J|", {C, A}, [&] { assign(C, nullptr, nullptr, A, J, 3, I, 2); });
  expect_rejected(Info::DimensionMismatch, "assign: mask must have C's size", {C, M, A},
                  [&] { assign(C, &M, nullptr, A, I, 2, J, 3); });
  expect_rejected(Info::DomainMismatch, "assign: UDT input into FP64", {C, Au}, [&] { assign(C, nullptr, nullptr, Au, I, 2, J, 3); });
  expect_rejected(Info::IndexOutOfBounds, "assign scalar: index out of range", {C, s},
                  [&] { assign_scalar(C, nullptr, nullptr, s, Ibad, 2, J, 3); });
  expect_rejected(Info::DomainMismatch, "assign scalar: UDT scalar into FP64", {C, su},
                  [&] { assign_scalar(C, nullptr, nullptr, su, I, 2, J, 3); });
  expect_rejected(Info::IndexOutOfBounds, "vector assign: index out of range", {w, u},
                  [&] { assign(w, nullptr, nullptr, u, Jbad, 3); });
  expect_rejected(Info::DimensionMismatch, "vector assign: size(u) != |I|", {w, u}, [&] { assign(w, nullptr, nullptr, u, I, 2); });
  expect_rejected(Info::IndexOutOfBounds, "vector assign scalar: index out of range", {w, s},
                  [&] { assign_scalar(w, nullptr, nullptr, s, Jbad, 3); });
  // Row and column assign with the row / column index out of range: the spec's GrB_INVALID_INDEX
  // (SuiteSparse 7.4 answers GrB_INDEX_OUT_OF_BOUNDS, a known departure: ../shared/FACTS.md).
  expect_rejected(Info::InvalidIndex, "row assign: i out of range", {C, u6}, [&] { assign_row(C, nullptr, nullptr, u6, 5, nullptr, 6); });
  expect_rejected(Info::InvalidIndex, "column assign: j out of range", {C, u5},
                  [&] { assign_column(C, nullptr, nullptr, u5, nullptr, 5, 6); });
  expect_rejected(Info::IndexOutOfBounds, "row assign: J out of range", {C, u}, [&] { assign_row(C, nullptr, nullptr, u, 1, Jbad, 3); });
  expect_rejected(Info::DimensionMismatch, "row assign: size(u) != |J|", {C, u6}, [&] { assign_row(C, nullptr, nullptr, u6, 1, J, 3); });
  expect_rejected(Info::DimensionMismatch, "column assign: size(u) != |I|", {C, u6},
                  [&] { assign_column(C, nullptr, nullptr, u6, I, 2, 1); });
}

TEST_P(BadInput, Kronecker) {
  Matrix A = filled(FP64, 2, 3), B = filled(FP64, 3, 2), C = filled(FP64, 6, 5), Au = udt.matrix(2, 3);
  Matrix Ok = filled(FP64, 6, 6), M = filled(&types::Bool, 5, 6);
  expect_rejected(Info::DimensionMismatch, "kronecker: C is not (2*3) x (3*2)", {C, A, B},
                  [&] { kronecker(C, nullptr, nullptr, plus, A, B); });
  expect_rejected(Info::DimensionMismatch, "kronecker: mask size", {Ok, M, A, B},
                  [&] { kronecker(Ok, &M, nullptr, plus, A, B); });
  expect_rejected(Info::DomainMismatch, "kronecker: UDT input", {Ok, Au, B}, [&] { kronecker(Ok, nullptr, nullptr, plus, Au, B); });
}

// The device memory exchange: null pointers and a pattern of other dimensions on every backend; a backend without
// device memory refuses every call (the pointer given is host memory, which such a backend must not read).
TEST_P(BadInput, DeviceExchange) {
  Matrix A = filled(FP64, 4, 5), P = filled(FP64, 5, 4);
  std::vector<double> host(20, 1.0);
  expect_rejected(Info::NullPointer, "import_device_full: null values", {A}, [&] { import_device_full(A, nullptr, nullptr); });
  expect_rejected(Info::NullPointer, "borrow_device_full: null values", {A},
                  [&] { borrow_device_full(A, nullptr, nullptr); });
  expect_rejected(Info::NullPointer, "borrow_device_output: null values", {A},
                  [&] { borrow_device_output(A, nullptr, nullptr); });
  expect_rejected(Info::NullPointer, "import_device_values: null values", {A},
                  [&] { import_device_values(A, A, nullptr, nullptr); });
  expect_rejected(Info::DimensionMismatch, "import_device_values: pattern 5 x 4 for a 4 x 5 matrix", {A, P},
                  [&] { import_device_values(A, P, host.data(), nullptr); });
  expect_rejected(Info::NullPointer, "export_device_dense: null output", {A}, [&] { export_device_dense(A, nullptr, nullptr); });
  expect_rejected(Info::NullPointer, "export_device_values: null output", {A},
                  [&] { export_device_values(A, nullptr, nullptr); });
  if (GetParam() == "cuda") return;
  expect_rejected(Info::NotImplemented, "import_device_full on a host backend", {A},
                  [&] { import_device_full(A, host.data(), nullptr); });
  expect_rejected(Info::NotImplemented, "borrow_device_full on a host backend", {A},
                  [&] { borrow_device_full(A, host.data(), nullptr); });
  expect_rejected(Info::NotImplemented, "borrow_device_output on a host backend", {A},
                  [&] { borrow_device_output(A, host.data(), nullptr); });
  expect_rejected(Info::NotImplemented, "import_device_values on a host backend", {A},
                  [&] { import_device_values(A, A, host.data(), nullptr); });
  expect_rejected(Info::NotImplemented, "export_device_dense on a host backend", {A},
                  [&] { export_device_dense(A, host.data(), nullptr); });
  expect_rejected(Info::NotImplemented, "export_device_values on a host backend", {A},
                  [&] { export_device_values(A, host.data(), nullptr); });
  EXPECT_EQ(host, std::vector<double>(20, 1.0)) << "an export wrote to memory it was refused";
}

// The products on device memory check their arguments before the backend sees them (here host arrays stand for device
// ones: nothing reaches a kernel), and a backend without device memory declines them, writing nothing.
TEST_P(BadInput, DeviceProducts) {
  Matrix A = filled(FP64, 4, 5), I = filled(INT32, 4, 5);
  std::vector<double> values(A.nvals(), 1.0), x(5 * 3, 1.0), y(4 * 3, 7.0), z(A.nvals(), 7.0), sums(4, 7.0);
  const DeviceDense X{x.data(), 5, 3, 3, 1}, Y{y.data(), 4, 3, 3, 1};
  auto product = [&](const DeviceDense& out, const Matrix& S, const void* v, const DeviceDense& in) {
    (void)device_sparse_times_dense(out, S, v, false, in, nullptr);
  };
  expect_rejected(Info::NullPointer, "product: null Y", {A}, [&] { product({nullptr, 4, 3, 3, 1}, A, values.data(), X); });
  expect_rejected(Info::NullPointer, "product: null X", {A}, [&] { product(Y, A, values.data(), {nullptr, 5, 3, 3, 1}); });
  expect_rejected(Info::NullPointer, "product: null values", {A}, [&] { product(Y, A, nullptr, X); });
  expect_rejected(Info::DimensionMismatch, "product: X of 4 rows for A of 5 columns", {A},
                  [&] { product(Y, A, values.data(), {x.data(), 4, 3, 3, 1}); });
  expect_rejected(Info::DimensionMismatch, "product: Y of 2 columns for X of 3", {A},
                  [&] { product({y.data(), 4, 2, 2, 1}, A, values.data(), X); });
  expect_rejected(Info::DimensionMismatch, "product: A^T X with X of A's column count", {A},
                  [&] { (void)device_sparse_times_dense(Y, A, values.data(), true, X, nullptr); });
  expect_rejected(Info::InvalidValue, "product: X with no unit stride", {A},
                  [&] { product(Y, A, values.data(), {x.data(), 5, 3, 3, 3}); });
  expect_rejected(Info::InvalidValue, "product: Y's rows overlapping", {A},
                  [&] { product({y.data(), 4, 3, 2, 1}, A, values.data(), X); });
  expect_rejected(Info::DomainMismatch, "product: an INT32 A", {I}, [&] { product(Y, I, values.data(), X); });
  expect_rejected(Info::NullPointer, "sampled: null z", {A},
                  [&] { (void)device_sampled_product(nullptr, A, {y.data(), 4, 3, 3, 1}, {x.data(), 3, 5, 5, 1}, nullptr); });
  expect_rejected(Info::DimensionMismatch, "sampled: X of 5 rows for A of 4", {A},
                  [&] { (void)device_sampled_product(z.data(), A, X, {x.data(), 3, 5, 5, 1}, nullptr); });
  expect_rejected(Info::DimensionMismatch, "sampled: Y of 4 columns for A of 5", {A},
                  [&] { (void)device_sampled_product(z.data(), A, Y, {x.data(), 3, 4, 4, 1}, nullptr); });
  expect_rejected(Info::DomainMismatch, "row sums in INT32", {A},
                  [&] { (void)device_row_sums(sums.data(), INT32, Y, nullptr); });
  expect_rejected(Info::NullPointer, "row sums: null z", {A}, [&] { (void)device_row_sums(nullptr, FP64, Y, nullptr); });
  EXPECT_EQ(y, std::vector<double>(12, 7.0)) << "a refused product wrote its result";
  EXPECT_EQ(z, std::vector<double>(A.nvals(), 7.0)) << "a refused sampled product wrote its result";
  EXPECT_EQ(sums, std::vector<double>(4, 7.0)) << "refused row sums were written";
  if (GetParam() == "cuda") return;
  EXPECT_FALSE(device_sparse_times_dense(Y, A, values.data(), false, X, nullptr)) << "a host backend's product";
  EXPECT_FALSE(device_sampled_product(z.data(), A, Y, {x.data(), 3, 5, 5, 1}, nullptr)) << "a host backend's sampled";
  EXPECT_FALSE(device_row_sums(sums.data(), FP64, Y, nullptr)) << "a host backend's row sums";
  EXPECT_EQ(y, std::vector<double>(12, 7.0)) << "a declined product wrote its result";
  EXPECT_EQ(z, std::vector<double>(A.nvals(), 7.0)) << "a declined sampled product wrote its result";
  EXPECT_EQ(sums, std::vector<double>(4, 7.0)) << "declined row sums were written";
}

INSTANTIATE_TEST_SUITE_P(Backends, BadInput, ::testing::ValuesIn(available_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
