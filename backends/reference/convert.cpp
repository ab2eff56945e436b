// backends/reference/convert.cpp: moving matrices, vectors and scalars between snack and SuiteSparse.
//
// Import: SuiteSparse's GxB_Matrix_import_* take ownership of malloc'd arrays and free them with free(),
// while snack's CsrStorage owns std::vectors, so each import is exactly one copy of the (hyper)CSR arrays
// into fresh malloc'd buffers (no validation pass: the data is already canonical, sorted and without
// duplicates). A matrix imported "transposed" uses the same arrays as CSC of the swapped dimensions, which
// is A^T at no extra cost. Export: the result is finished (GrB_Matrix_wait), then unpacked in the
// orientation it is held in (hypersparse or not, as SuiteSparse chose; bitmap and full forms are converted
// by the unpack), with sorted rows requested (jumbled = NULL); an iso result is expanded while copying the
// values; empty rows listed in a hypersparse result are dropped. One copy into snack's vectors, then the
// buffers are freed. Scalars and the per-type calls that SuiteSparse spells once per C type live here too.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "suitesparse.hpp"

namespace snk::reference {
namespace {

// A malloc'd buffer, freed unless SuiteSparse took it (import sets the pointer to NULL on success).
struct Buffer {
  void* data = nullptr;
  std::size_t bytes = 0;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { std::free(data); }
};

// A malloc'd copy of `bytes` bytes (at least 8 bytes are allocated, so that empty arrays are not NULL).
void copy_into(Buffer& buffer, const void* source, std::size_t bytes) {
  buffer.bytes = bytes < 8 ? 8 : bytes;
  buffer.data = std::malloc(buffer.bytes);
  if (buffer.data == nullptr) throw Error(Info::OutOfMemory, "reference backend: out of memory importing a matrix");
  if (bytes > 0) std::memcpy(buffer.data, source, bytes);
}

template <class T>
void copy_vector_into(Buffer& buffer, const std::vector<T>& v) {
  copy_into(buffer, v.data(), v.size() * sizeof(T));
}

// Values of an unpacked result into `x`: nvals values, or one value repeated when the result is iso.
void values_from(std::vector<unsigned char>& x, const void* source, Index nvals, std::size_t size, bool iso) {
  x.resize(static_cast<std::size_t>(nvals) * size);
  if (nvals == 0) return;
  if (!iso) {
    std::memcpy(x.data(), source, x.size());
    return;
  }
  for (Index k = 0; k < nvals; ++k) std::memcpy(x.data() + k * size, source, size);
}

}  // namespace

MatrixHandle new_matrix(const Type* type, Index nrows, Index ncols, bool by_column) {
  GrB_Type t = grb_type(type);
  GrB_Matrix m = nullptr;
  check(GrB_Matrix_new(&m, t, nrows, ncols), "GrB_Matrix_new");
  MatrixHandle handle(m);
  check(GxB_Matrix_Option_set_INT32(m, GxB_FORMAT, by_column ? GxB_BY_COL : GxB_BY_ROW),
        "GxB_Matrix_Option_set", m);
  return handle;
}

MatrixHandle import_matrix(const Matrix& A, bool transposed, bool structure_only) {
  const CsrStorage& s = A.csr();
  const Index nrows = transposed ? A.ncols() : A.nrows();
  const Index ncols = transposed ? A.nrows() : A.ncols();
  const Index nvals = s.nvals();
  if (nvals == 0 || s.nslots() == 0) return new_matrix(A.type(), nrows, ncols, transposed);

  GrB_Type type = grb_type(A.type());
  Buffer p, h, j, x;
  copy_vector_into(p, s.p);
  copy_vector_into(j, s.j);
  // A structure-only import is iso: one value stands for all (SuiteSparse never reads it for a structural mask).
  const bool iso = structure_only;
  copy_into(x, s.x.data(), static_cast<std::size_t>(iso ? 1 : nvals) * A.type()->size);
  auto P = reinterpret_cast<GrB_Index**>(&p.data);
  auto H = reinterpret_cast<GrB_Index**>(&h.data);
  auto J = reinterpret_cast<GrB_Index**>(&j.data);
  GrB_Matrix m = nullptr;
  GrB_Info info;
  if (s.hyper) {
    copy_vector_into(h, s.h);
    const Index nvec = static_cast<Index>(s.h.size());
    info = transposed ? GxB_Matrix_import_HyperCSC(&m, type, nrows, ncols, P, H, J, &x.data, p.bytes, h.bytes,
                                                   j.bytes, x.bytes, iso, nvec, false, nullptr)
                      : GxB_Matrix_import_HyperCSR(&m, type, nrows, ncols, P, H, J, &x.data, p.bytes, h.bytes,
                                                   j.bytes, x.bytes, iso, nvec, false, nullptr);
  } else {
    info = transposed ? GxB_Matrix_import_CSC(&m, type, nrows, ncols, P, J, &x.data, p.bytes, j.bytes, x.bytes,
                                              iso, false, nullptr)
                      : GxB_Matrix_import_CSR(&m, type, nrows, ncols, P, J, &x.data, p.bytes, j.bytes, x.bytes,
                                              iso, false, nullptr);
  }
  check(info, transposed ? "GxB_Matrix_import_CSC" : "GxB_Matrix_import_CSR");
  return MatrixHandle(m);
}

void export_matrix(GrB_Matrix M, bool transposed, Matrix& T) {
  check(GrB_Matrix_wait(M, GrB_MATERIALIZE), "GrB_Matrix_wait", M);
  int32_t status = 0;
  check(GxB_Matrix_Option_get_INT32(M, GxB_SPARSITY_STATUS, &status), "GxB_Matrix_Option_get", M);
  Buffer p, h, j, x;
  auto P = reinterpret_cast<GrB_Index**>(&p.data);
  auto H = reinterpret_cast<GrB_Index**>(&h.data);
  auto J = reinterpret_cast<GrB_Index**>(&j.data);
  GrB_Index p_size = 0, h_size = 0, j_size = 0, x_size = 0, nvec = 0;
  bool iso = false;
  const bool hyper = status == GxB_HYPERSPARSE;
  GrB_Info info;
  if (hyper) {
    info = transposed ? GxB_Matrix_unpack_HyperCSC(M, P, H, J, &x.data, &p_size, &h_size, &j_size, &x_size, &iso,
                                                   &nvec, nullptr, nullptr)
                      : GxB_Matrix_unpack_HyperCSR(M, P, H, J, &x.data, &p_size, &h_size, &j_size, &x_size, &iso,
                                                   &nvec, nullptr, nullptr);
  } else {
    check(transposed ? GrB_Matrix_ncols(&nvec, M) : GrB_Matrix_nrows(&nvec, M), "GrB_Matrix_nrows", M);
    info = transposed ? GxB_Matrix_unpack_CSC(M, P, J, &x.data, &p_size, &j_size, &x_size, &iso, nullptr, nullptr)
                      : GxB_Matrix_unpack_CSR(M, P, J, &x.data, &p_size, &j_size, &x_size, &iso, nullptr, nullptr);
  }
  check(info, transposed ? "GxB_Matrix_unpack_CSC" : "GxB_Matrix_unpack_CSR", M);

  const Index* ap = *P;
  const Index* ah = *H;
  const Index* aj = *J;
  const Index nvals = ap != nullptr ? ap[nvec] : 0;
  CsrStorage s;
  s.hyper = hyper;
  if (ap == nullptr) {
    s.p.assign(hyper ? 1 : nvec + 1, 0);
  } else if (hyper) {
    // Keep only the rows that hold entries (SuiteSparse may list empty ones).
    s.h.reserve(nvec);
    s.p.reserve(nvec + 1);
    s.p.push_back(0);
    for (Index k = 0; k < nvec; ++k) {
      if (ap[k + 1] == ap[k]) continue;
      s.h.push_back(ah[k]);
      s.p.push_back(ap[k + 1]);
    }
  } else {
    s.p.assign(ap, ap + nvec + 1);
  }
  s.j.assign(aj, aj + nvals);
  values_from(s.x, x.data, nvals, T.type()->size, iso);
  T.adopt(std::move(s));
}

void export_vector_as_row(GrB_Vector v, Matrix& T) {
  check(GrB_Vector_wait(v, GrB_MATERIALIZE), "GrB_Vector_wait");
  Buffer i, x;
  GrB_Index i_size = 0, x_size = 0, nvals = 0;
  bool iso = false;
  check(GxB_Vector_unpack_CSC(v, reinterpret_cast<GrB_Index**>(&i.data), &x.data, &i_size, &x_size, &iso, &nvals,
                              nullptr, nullptr),
        "GxB_Vector_unpack_CSC");
  const Index* vi = static_cast<const Index*>(i.data);
  CsrStorage s;
  s.hyper = false;
  s.p = {0, nvals};
  s.j.assign(vi, vi + nvals);
  values_from(s.x, x.data, nvals, T.type()->size, iso);
  T.adopt(std::move(s));
}

// ---- per-type calls -------------------------------------------------------------------------------------------
#define SNK_REF_FOR_EACH_BUILTIN(X)                                                                     \
  X(Bool, BOOL, bool) X(Int8, INT8, int8_t) X(Int16, INT16, int16_t) X(Int32, INT32, int32_t)         \
  X(Int64, INT64, int64_t) X(UInt8, UINT8, uint8_t) X(UInt16, UINT16, uint16_t)                        \
  X(UInt32, UINT32, uint32_t) X(UInt64, UINT64, uint64_t) X(FP32, FP32, float) X(FP64, FP64, double)

template <class T>
T value_at(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

ScalarHandle import_scalar(const Scalar& s) {
  GrB_Scalar made = nullptr;
  check(GrB_Scalar_new(&made, grb_type(s.type())), "GrB_Scalar_new");
  ScalarHandle handle(made);
  if (!s.has_value()) return handle;
  GrB_Info info = GrB_SUCCESS;
  switch (s.type()->code) {
#define SNK_REF_SET(code, NAME, ctype) \
  case TypeCode::code: info = GrB_Scalar_setElement_##NAME(made, value_at<ctype>(s.data())); break;
    SNK_REF_FOR_EACH_BUILTIN(SNK_REF_SET)
#undef SNK_REF_SET
    case TypeCode::UDT: info = GrB_Scalar_setElement_UDT(made, const_cast<void*>(s.data())); break;
  }
  check(info, "GrB_Scalar_setElement");
  return handle;
}

GrB_Info new_monoid(GrB_Monoid* monoid, GrB_BinaryOp op, const Type* type, const void* identity,
                    const void* terminal) {
  switch (type->code) {
#define SNK_REF_MONOID(code, NAME, ctype)                                                                   \
  case TypeCode::code:                                                                                     \
    return terminal != nullptr                                                                             \
               ? GxB_Monoid_terminal_new_##NAME(monoid, op, value_at<ctype>(identity), value_at<ctype>(terminal)) \
               : GrB_Monoid_new_##NAME(monoid, op, value_at<ctype>(identity));
    SNK_REF_FOR_EACH_BUILTIN(SNK_REF_MONOID)
#undef SNK_REF_MONOID
    case TypeCode::UDT:
      return terminal != nullptr
                 ? GxB_Monoid_terminal_new_UDT(monoid, op, const_cast<void*>(identity), const_cast<void*>(terminal))
                 : GrB_Monoid_new_UDT(monoid, op, const_cast<void*>(identity));
  }
  return GrB_INVALID_VALUE;
}

GrB_Info reduce_to_value(void* value, const Type* type, GrB_Monoid monoid, GrB_Matrix A) {
  switch (type->code) {
#define SNK_REF_REDUCE(code, NAME, ctype)                                            \
  case TypeCode::code: {                                                            \
    ctype v{};                                                                      \
    GrB_Info info = GrB_Matrix_reduce_##NAME(&v, nullptr, monoid, A, nullptr);      \
    std::memcpy(value, &v, sizeof(ctype));                                          \
    return info;                                                                    \
  }
    SNK_REF_FOR_EACH_BUILTIN(SNK_REF_REDUCE)
#undef SNK_REF_REDUCE
    case TypeCode::UDT: return GrB_Matrix_reduce_UDT(value, nullptr, monoid, A, nullptr);
  }
  return GrB_INVALID_VALUE;
}

}  // namespace snk::reference
