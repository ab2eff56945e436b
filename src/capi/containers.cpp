// src/capi/containers.cpp: the methods of GrB_Scalar, GrB_Vector and GrB_Matrix in the C API: new, dup,
// clear, dimensions, nvals, resize, build, setElement, removeElement, extractElement, extractTuples and
// GrB_Matrix_diag, including every typed variant (_BOOL ... _FP64, _UDT, _Scalar).
//
// Typed variants pass their C value with the builtin type of their suffix; the core casts it to the
// container's type (GrB_DOMAIN_MISMATCH where the spec forbids the cast, e.g. a UDT). _UDT variants pass
// bytes of the container's own type. extractTuples checks the caller's capacity (*nvals) first
// (GrB_INSUFFICIENT_SPACE) and writes nothing then. A _Scalar setElement with an empty scalar removes the
// element, and a _Scalar extractElement of a missing element empties the scalar (spec 2.0). In blocking
// mode, setElement and removeElement finish the container's pending work before returning.
#include <vector>

#include "capi/capi.hpp"

using namespace snk::capi;
using snk::Error;
using snk::Info;

namespace {

void check_castable(const snk::Type* to, const snk::Type* from, const char* what) {
  if (!snk::castable(to, from)) {
    throw Error(Info::DomainMismatch,
                std::string(what) + ": cannot cast " + from->name + " to " + to->name);
  }
}

std::string count_message(GrB_Index have, GrB_Index need) {
  return "the output arrays hold " + std::to_string(have) + " entries; " + std::to_string(need) + " are needed";
}

// ---- GrB_Scalar ----
void scalar_set(GrB_Scalar s, const void* x, const snk::Type* xtype) {
  snk::Scalar& scalar = scalar_of(s, "s");
  check_pointer(x, "x");
  if (xtype == nullptr) xtype = scalar.type();
  check_castable(scalar.type(), xtype, "x");
  scalar.set(x, xtype);
}

GrB_Info scalar_get(void* x, GrB_Scalar s, const snk::Type* xtype) {
  const snk::Scalar& scalar = scalar_of(s, "s");
  check_pointer(x, "x");
  if (xtype == nullptr) xtype = scalar.type();
  check_castable(xtype, scalar.type(), "x");
  return scalar.get(x, xtype) ? GrB_SUCCESS : GrB_NO_VALUE;
}

// ---- GrB_Vector ----
void vector_build(GrB_Vector w, const GrB_Index* I, const void* X, GrB_Index n, GrB_BinaryOp dup,
                  const snk::Type* xtype) {
  snk::Vector& v = vector_of(w, "w");
  check_pointer(I, "I");
  check_pointer(X, "X");
  const snk::BinaryOp* d = binary_or_null(dup, "dup");
  if (xtype == nullptr) xtype = v.type();
  check_castable(v.type(), xtype, "X");
  v.build(I, X, xtype, n, d);
}

void vector_set(GrB_Vector w, const void* x, const snk::Type* xtype, GrB_Index i) {
  snk::Vector& v = vector_of(w, "w");
  check_pointer(x, "x");
  if (xtype == nullptr) xtype = v.type();
  check_castable(v.type(), xtype, "x");
  v.set_element(i, x, xtype);
  finish_if_blocking(v.as_matrix());
}

GrB_Info vector_get(void* x, const snk::Type* xtype, GrB_Vector vh, GrB_Index i) {
  const snk::Vector& v = vector_of(vh, "v");
  check_pointer(x, "x");
  if (xtype == nullptr) xtype = v.type();
  check_castable(xtype, v.type(), "x");
  return v.extract_element(i, x, xtype) ? GrB_SUCCESS : GrB_NO_VALUE;
}

void vector_tuples(GrB_Index* I, void* X, GrB_Index* nvals, GrB_Vector vh, const snk::Type* xtype) {
  const snk::Vector& v = vector_of(vh, "v");
  check_pointer(nvals, "nvals");
  if (xtype == nullptr) xtype = v.type();
  check_castable(xtype, v.type(), "X");
  const GrB_Index n = v.nvals();
  if (*nvals < n) throw Error(Info::InsufficientSpace, count_message(*nvals, n));
  v.extract_tuples(I, X, xtype);
  *nvals = n;
}

// ---- GrB_Matrix ----
void matrix_build(GrB_Matrix C, const GrB_Index* I, const GrB_Index* J, const void* X, GrB_Index n,
                  GrB_BinaryOp dup, const snk::Type* xtype) {
  snk::Matrix& m = matrix_of(C, "C");
  check_pointer(I, "I");
  check_pointer(J, "J");
  check_pointer(X, "X");
  const snk::BinaryOp* d = binary_or_null(dup, "dup");
  if (xtype == nullptr) xtype = m.type();
  check_castable(m.type(), xtype, "X");
  m.build(I, J, X, xtype, n, d);
}

void matrix_set(GrB_Matrix C, const void* x, const snk::Type* xtype, GrB_Index i, GrB_Index j) {
  snk::Matrix& m = matrix_of(C, "C");
  check_pointer(x, "x");
  if (xtype == nullptr) xtype = m.type();
  check_castable(m.type(), xtype, "x");
  m.set_element(i, j, x, xtype);
  finish_if_blocking(m);
}

GrB_Info matrix_get(void* x, const snk::Type* xtype, GrB_Matrix A, GrB_Index i, GrB_Index j) {
  const snk::Matrix& m = matrix_of(A, "A");
  check_pointer(x, "x");
  if (xtype == nullptr) xtype = m.type();
  check_castable(xtype, m.type(), "x");
  return m.extract_element(i, j, x, xtype) ? GrB_SUCCESS : GrB_NO_VALUE;
}

void matrix_tuples(GrB_Index* I, GrB_Index* J, void* X, GrB_Index* nvals, GrB_Matrix A, const snk::Type* xtype) {
  const snk::Matrix& m = matrix_of(A, "A");
  check_pointer(nvals, "nvals");
  if (xtype == nullptr) xtype = m.type();
  check_castable(xtype, m.type(), "X");
  const GrB_Index n = m.nvals();
  if (*nvals < n) throw Error(Info::InsufficientSpace, count_message(*nvals, n));
  m.extract_tuples(I, J, X, xtype);
  *nvals = n;
}

}  // namespace

extern "C" {

// ==== GrB_Scalar ==========================================================================================
GrB_Info GrB_Scalar_new(GrB_Scalar* s, GrB_Type type) {
  return call("GrB_Scalar_new", nullptr, [&] {
    check_pointer(s, "s");
    const snk::Type* t = type_of(type, "type");
    *s = new SNK_Scalar_opaque(std::make_unique<snk::Scalar>(t));
  });
}

GrB_Info GrB_Scalar_dup(GrB_Scalar* s, const GrB_Scalar t) {
  return call("GrB_Scalar_dup", t, [&] {
    check_pointer(s, "s");
    const snk::Scalar& src = scalar_of(t, "t");
    *s = new SNK_Scalar_opaque(std::make_unique<snk::Scalar>(src));
  });
}

GrB_Info GrB_Scalar_clear(GrB_Scalar s) {
  return call("GrB_Scalar_clear", s, [&] { scalar_of(s, "s").clear(); });
}

GrB_Info GrB_Scalar_nvals(GrB_Index* nvals, const GrB_Scalar s) {
  return call("GrB_Scalar_nvals", s, [&] {
    const snk::Scalar& scalar = scalar_of(s, "s");
    check_pointer(nvals, "nvals");
    *nvals = scalar.nvals();
  });
}

#define SNK_SCALAR_TYPED(T, value, in, out)                                                             \
  GrB_Info GrB_Scalar_setElement_##T(GrB_Scalar s, value x) {                                           \
    return call("GrB_Scalar_setElement_" #T, s, [&] { scalar_set(s, &x, snk::type_of<value>()); });    \
  }                                                                                                     \
  GrB_Info GrB_Scalar_extractElement_##T(out x, const GrB_Scalar s) {                                   \
    return call("GrB_Scalar_extractElement_" #T, s, [&] { return scalar_get(x, s, snk::type_of<value>()); }); \
  }
SNK_FOR_EACH_BUILTIN_TYPE(SNK_SCALAR_TYPED)

GrB_Info GrB_Scalar_setElement_UDT(GrB_Scalar s, const void* x) {
  return call("GrB_Scalar_setElement_UDT", s, [&] { scalar_set(s, x, nullptr); });
}
GrB_Info GrB_Scalar_extractElement_UDT(void* x, const GrB_Scalar s) {
  return call("GrB_Scalar_extractElement_UDT", s, [&] { return scalar_get(x, s, nullptr); });
}

// ==== GrB_Vector ==========================================================================================
GrB_Info GrB_Vector_new(GrB_Vector* v, GrB_Type type, GrB_Index n) {
  return call("GrB_Vector_new", nullptr, [&] {
    check_pointer(v, "v");
    const snk::Type* t = type_of(type, "type");
    *v = new SNK_Vector_opaque(std::make_unique<snk::Vector>(t, n));
  });
}

GrB_Info GrB_Vector_dup(GrB_Vector* w, const GrB_Vector u) {
  return call("GrB_Vector_dup", u, [&] {
    check_pointer(w, "w");
    const snk::Vector& src = vector_of(u, "u");
    *w = new SNK_Vector_opaque(std::make_unique<snk::Vector>(src));
  });
}

GrB_Info GrB_Vector_clear(GrB_Vector v) {
  return call("GrB_Vector_clear", v, [&] { vector_of(v, "v").clear(); });
}

GrB_Info GrB_Vector_size(GrB_Index* n, const GrB_Vector v) {
  return call("GrB_Vector_size", v, [&] {
    const snk::Vector& vec = vector_of(v, "v");
    check_pointer(n, "n");
    *n = vec.size();
  });
}

GrB_Info GrB_Vector_nvals(GrB_Index* nvals, const GrB_Vector v) {
  return call("GrB_Vector_nvals", v, [&] {
    const snk::Vector& vec = vector_of(v, "v");
    check_pointer(nvals, "nvals");
    *nvals = vec.nvals();
  });
}

GrB_Info GrB_Vector_resize(GrB_Vector w, GrB_Index n) {
  return call("GrB_Vector_resize", w, [&] { vector_of(w, "w").resize(n); });
}

GrB_Info GrB_Vector_removeElement(GrB_Vector v, GrB_Index i) {
  return call("GrB_Vector_removeElement", v, [&] {
    snk::Vector& vec = vector_of(v, "v");
    vec.remove_element(i);
    finish_if_blocking(vec.as_matrix());
  });
}

GrB_Info GrB_Vector_setElement_Scalar(GrB_Vector w, GrB_Scalar x, GrB_Index i) {
  return call("GrB_Vector_setElement_Scalar", w, [&] {
    snk::Vector& v = vector_of(w, "w");
    const snk::Scalar& s = scalar_of(x, "x");
    check_castable(v.type(), s.type(), "x");
    if (s.has_value()) {
      v.set_element(i, s.data(), s.type());
    } else {
      v.remove_element(i);
    }
    finish_if_blocking(v.as_matrix());
  });
}

GrB_Info GrB_Vector_extractElement_Scalar(GrB_Scalar x, const GrB_Vector v, GrB_Index i) {
  return call("GrB_Vector_extractElement_Scalar", x, [&] {
    snk::Scalar& s = scalar_of(x, "x");
    const snk::Vector& vec = vector_of(v, "v");
    check_castable(s.type(), vec.type(), "x");
    std::vector<unsigned char> value(vec.type()->size);
    if (vec.extract_element(i, value.data(), vec.type())) {
      s.set(value.data(), vec.type());
    } else {
      s.clear();
    }
  });
}

#define SNK_VECTOR_TYPED(T, value, in, out)                                                             \
  GrB_Info GrB_Vector_build_##T(GrB_Vector w, const GrB_Index* I, in X, GrB_Index nvals,                \
                                const GrB_BinaryOp dup) {                                               \
    return call("GrB_Vector_build_" #T, w,                                                              \
                [&] { vector_build(w, I, X, nvals, dup, snk::type_of<value>()); });                     \
  }                                                                                                     \
  GrB_Info GrB_Vector_setElement_##T(GrB_Vector w, value x, GrB_Index i) {                              \
    return call("GrB_Vector_setElement_" #T, w, [&] { vector_set(w, &x, snk::type_of<value>(), i); });  \
  }                                                                                                     \
  GrB_Info GrB_Vector_extractElement_##T(out x, const GrB_Vector v, GrB_Index i) {                      \
    return call("GrB_Vector_extractElement_" #T, v,                                                     \
                [&] { return vector_get(x, snk::type_of<value>(), v, i); });                            \
  }                                                                                                     \
  GrB_Info GrB_Vector_extractTuples_##T(GrB_Index* I, out X, GrB_Index* nvals, const GrB_Vector v) {    \
    return call("GrB_Vector_extractTuples_" #T, v,                                                      \
                [&] { vector_tuples(I, X, nvals, v, snk::type_of<value>()); });                         \
  }
SNK_FOR_EACH_BUILTIN_TYPE(SNK_VECTOR_TYPED)

GrB_Info GrB_Vector_build_UDT(GrB_Vector w, const GrB_Index* I, const void* X, GrB_Index nvals,
                              const GrB_BinaryOp dup) {
  return call("GrB_Vector_build_UDT", w, [&] { vector_build(w, I, X, nvals, dup, nullptr); });
}
GrB_Info GrB_Vector_setElement_UDT(GrB_Vector w, const void* x, GrB_Index i) {
  return call("GrB_Vector_setElement_UDT", w, [&] { vector_set(w, x, nullptr, i); });
}
GrB_Info GrB_Vector_extractElement_UDT(void* x, const GrB_Vector v, GrB_Index i) {
  return call("GrB_Vector_extractElement_UDT", v, [&] { return vector_get(x, nullptr, v, i); });
}
GrB_Info GrB_Vector_extractTuples_UDT(GrB_Index* I, void* X, GrB_Index* nvals, const GrB_Vector v) {
  return call("GrB_Vector_extractTuples_UDT", v, [&] { vector_tuples(I, X, nvals, v, nullptr); });
}

// ==== GrB_Matrix ==========================================================================================
GrB_Info GrB_Matrix_new(GrB_Matrix* A, GrB_Type type, GrB_Index nrows, GrB_Index ncols) {
  return call("GrB_Matrix_new", nullptr, [&] {
    check_pointer(A, "A");
    const snk::Type* t = type_of(type, "type");
    *A = new SNK_Matrix_opaque(std::make_unique<snk::Matrix>(t, nrows, ncols));
  });
}

GrB_Info GrB_Matrix_dup(GrB_Matrix* C, const GrB_Matrix A) {
  return call("GrB_Matrix_dup", A, [&] {
    check_pointer(C, "C");
    const snk::Matrix& src = matrix_of(A, "A");
    *C = new SNK_Matrix_opaque(std::make_unique<snk::Matrix>(src));
  });
}

GrB_Info GrB_Matrix_clear(GrB_Matrix A) {
  return call("GrB_Matrix_clear", A, [&] { matrix_of(A, "A").clear(); });
}

GrB_Info GrB_Matrix_nrows(GrB_Index* nrows, const GrB_Matrix A) {
  return call("GrB_Matrix_nrows", A, [&] {
    const snk::Matrix& m = matrix_of(A, "A");
    check_pointer(nrows, "nrows");
    *nrows = m.nrows();
  });
}

GrB_Info GrB_Matrix_ncols(GrB_Index* ncols, const GrB_Matrix A) {
  return call("GrB_Matrix_ncols", A, [&] {
    const snk::Matrix& m = matrix_of(A, "A");
    check_pointer(ncols, "ncols");
    *ncols = m.ncols();
  });
}

GrB_Info GrB_Matrix_nvals(GrB_Index* nvals, const GrB_Matrix A) {
  return call("GrB_Matrix_nvals", A, [&] {
    const snk::Matrix& m = matrix_of(A, "A");
    check_pointer(nvals, "nvals");
    *nvals = m.nvals();
  });
}

GrB_Info GrB_Matrix_resize(GrB_Matrix C, GrB_Index nrows, GrB_Index ncols) {
  return call("GrB_Matrix_resize", C, [&] { matrix_of(C, "C").resize(nrows, ncols); });
}

GrB_Info GrB_Matrix_removeElement(GrB_Matrix C, GrB_Index i, GrB_Index j) {
  return call("GrB_Matrix_removeElement", C, [&] {
    snk::Matrix& m = matrix_of(C, "C");
    m.remove_element(i, j);
    finish_if_blocking(m);
  });
}

GrB_Info GrB_Matrix_setElement_Scalar(GrB_Matrix C, GrB_Scalar x, GrB_Index i, GrB_Index j) {
  return call("GrB_Matrix_setElement_Scalar", C, [&] {
    snk::Matrix& m = matrix_of(C, "C");
    const snk::Scalar& s = scalar_of(x, "x");
    check_castable(m.type(), s.type(), "x");
    if (s.has_value()) {
      m.set_element(i, j, s.data(), s.type());
    } else {
      m.remove_element(i, j);
    }
    finish_if_blocking(m);
  });
}

GrB_Info GrB_Matrix_extractElement_Scalar(GrB_Scalar x, const GrB_Matrix A, GrB_Index i, GrB_Index j) {
  return call("GrB_Matrix_extractElement_Scalar", x, [&] {
    snk::Scalar& s = scalar_of(x, "x");
    const snk::Matrix& m = matrix_of(A, "A");
    check_castable(s.type(), m.type(), "x");
    std::vector<unsigned char> value(m.type()->size);
    if (m.extract_element(i, j, value.data(), m.type())) {
      s.set(value.data(), m.type());
    } else {
      s.clear();
    }
  });
}

GrB_Info GrB_Matrix_diag(GrB_Matrix* C, const GrB_Vector v, int64_t k) {
  return call("GrB_Matrix_diag", v, [&] {
    check_pointer(C, "C");
    const snk::Vector& vec = vector_of(v, "v");
    auto m = std::make_unique<snk::Matrix>(snk::Matrix::diag(vec, k));
    *C = new SNK_Matrix_opaque(std::move(m));
  });
}

#define SNK_MATRIX_TYPED(T, value, in, out)                                                             \
  GrB_Info GrB_Matrix_build_##T(GrB_Matrix C, const GrB_Index* I, const GrB_Index* J, in X,             \
                                GrB_Index nvals, const GrB_BinaryOp dup) {                              \
    return call("GrB_Matrix_build_" #T, C,                                                              \
                [&] { matrix_build(C, I, J, X, nvals, dup, snk::type_of<value>()); });                  \
  }                                                                                                     \
  GrB_Info GrB_Matrix_setElement_##T(GrB_Matrix C, value x, GrB_Index i, GrB_Index j) {                 \
    return call("GrB_Matrix_setElement_" #T, C, [&] { matrix_set(C, &x, snk::type_of<value>(), i, j); }); \
  }                                                                                                     \
  GrB_Info GrB_Matrix_extractElement_##T(out x, const GrB_Matrix A, GrB_Index i, GrB_Index j) {         \
    return call("GrB_Matrix_extractElement_" #T, A,                                                     \
                [&] { return matrix_get(x, snk::type_of<value>(), A, i, j); });                         \
  }                                                                                                     \
  GrB_Info GrB_Matrix_extractTuples_##T(GrB_Index* I, GrB_Index* J, out X, GrB_Index* nvals,            \
                                        const GrB_Matrix A) {                                           \
    return call("GrB_Matrix_extractTuples_" #T, A,                                                      \
                [&] { matrix_tuples(I, J, X, nvals, A, snk::type_of<value>()); });                      \
  }
SNK_FOR_EACH_BUILTIN_TYPE(SNK_MATRIX_TYPED)

GrB_Info GrB_Matrix_build_UDT(GrB_Matrix C, const GrB_Index* I, const GrB_Index* J, const void* X,
                              GrB_Index nvals, const GrB_BinaryOp dup) {
  return call("GrB_Matrix_build_UDT", C, [&] { matrix_build(C, I, J, X, nvals, dup, nullptr); });
}
GrB_Info GrB_Matrix_setElement_UDT(GrB_Matrix C, const void* x, GrB_Index i, GrB_Index j) {
  return call("GrB_Matrix_setElement_UDT", C, [&] { matrix_set(C, x, nullptr, i, j); });
}
GrB_Info GrB_Matrix_extractElement_UDT(void* x, const GrB_Matrix A, GrB_Index i, GrB_Index j) {
  return call("GrB_Matrix_extractElement_UDT", A, [&] { return matrix_get(x, nullptr, A, i, j); });
}
GrB_Info GrB_Matrix_extractTuples_UDT(GrB_Index* I, GrB_Index* J, void* X, GrB_Index* nvals, const GrB_Matrix A) {
  return call("GrB_Matrix_extractTuples_UDT", A, [&] { matrix_tuples(I, J, X, nvals, A, nullptr); });
}

}  // extern "C"
