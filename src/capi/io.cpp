// src/capi/io.cpp: moving whole matrices in and out through the C API: GrB_Matrix_import / export (CSR,
// CSC, COO) with exportSize and exportHint, GrB_Matrix_serialize / serializeSize / deserialize (snack's
// blob, formats.hpp), and the SNK_Matrix_read_mtx extension (MatrixMarket text).
//
// Imports and deserialization validate everything first and go through Matrix::build (a CSR import whose rows are
// already strictly increasing is adopted as it is), so a matrix is only created from well-formed input: bad CSR/CSC
// offsets are GrB_INVALID_VALUE, indices out of range GrB_INDEX_OUT_OF_BOUNDS, duplicates GrB_INVALID_VALUE; a corrupt
// or truncated blob is GrB_INVALID_OBJECT. The typed import/export variants require the matrix type to be exactly their
// suffix's type (GrB_DOMAIN_MISMATCH), as the spec says; _UDT takes bytes of the given type. Export writes nothing
// unless every array is large enough (GrB_INSUFFICIENT_SPACE); CSC output is sorted by row within each column.
#include <algorithm>
#include <cstring>
#include <vector>

#include "capi/capi.hpp"
#include "capi/formats.hpp"

using namespace snk::capi;
using snk::Error;
using snk::Index;
using snk::Info;

namespace {

const char* format_name(GrB_Format f) {
  switch (f) {
    case GrB_CSR_FORMAT: return "CSR";
    case GrB_CSC_FORMAT: return "CSC";
    case GrB_COO_FORMAT: return "COO";
  }
  return "?";
}

void check_format(GrB_Format f) {
  if (f != GrB_CSR_FORMAT && f != GrB_CSC_FORMAT && f != GrB_COO_FORMAT) {
    throw Error(Info::InvalidValue, "format must be GrB_CSR_FORMAT, GrB_CSC_FORMAT or GrB_COO_FORMAT");
  }
}

void check_exact_type(const snk::Type* matrix_type, const snk::Type* value_type) {
  if (value_type != nullptr && matrix_type != value_type) {
    throw Error(Info::DomainMismatch,
                "the matrix type is " + matrix_type->name + " but the values are " + value_type->name);
  }
}

void import_matrix(GrB_Matrix* A, GrB_Type type, GrB_Index nrows, GrB_Index ncols, const GrB_Index* indptr,
                   const GrB_Index* indices, const void* values, GrB_Index indptr_len, GrB_Index indices_len,
                   GrB_Index values_len, GrB_Format format, const snk::Type* value_type) {
  check_pointer(A, "A");
  const snk::Type* t = type_of(type, "type");
  check_exact_type(t, value_type);
  check_format(format);
  auto m = std::make_unique<snk::Matrix>(t, nrows, ncols);   // checks the dimensions
  std::vector<Index> rows, cols;
  GrB_Index nvals = 0;
  bool adopted = false;   // a CSR import in the container's own form (below): nothing to build
  if (format == GrB_COO_FORMAT) {
    nvals = values_len;
    if (indptr_len < nvals || indices_len < nvals) {
      throw Error(Info::InvalidValue, "COO import: the row and column arrays are shorter than the values");
    }
    if (nvals > 0) {
      check_pointer(indptr, "row indices");
      check_pointer(indices, "column indices");
      check_pointer(values, "values");
      rows.assign(indptr, indptr + nvals);
      cols.assign(indices, indices + nvals);
    }
  } else {
    const bool csr = format == GrB_CSR_FORMAT;
    const GrB_Index nvec = csr ? nrows : ncols, vlen = csr ? ncols : nrows;
    check_pointer(indptr, "indptr");
    if (indptr_len < nvec + 1) {
      throw Error(Info::InvalidValue, std::string(format_name(format)) + " import: indptr holds " +
                                          std::to_string(indptr_len) + " entries, " + std::to_string(nvec + 1) +
                                          " are needed");
    }
    if (indptr[0] != 0) throw Error(Info::InvalidValue, "indptr[0] must be 0");
    for (GrB_Index k = 0; k < nvec; ++k) {
      if (indptr[k + 1] < indptr[k]) throw Error(Info::InvalidValue, "indptr must be non-decreasing");
    }
    nvals = indptr[nvec];
    if (nvals > indices_len || nvals > values_len) {
      throw Error(Info::InvalidValue, "indptr describes " + std::to_string(nvals) +
                                          " entries, more than the indices or values hold");
    }
    if (nvals > 0) {
      check_pointer(indices, "indices");
      check_pointer(values, "values");
    }
    // Every index in range; and whether each vector's indices strictly increase, which makes a CSR import the
    // container's own form, adopted with no sort. Anything else goes through build, which sorts and refuses
    // duplicates.
    bool in_order = true;
    for (GrB_Index k = 0; k < nvec; ++k) {
      for (GrB_Index e = indptr[k]; e < indptr[k + 1]; ++e) {
        if (indices[e] >= vlen) {
          throw Error(Info::IndexOutOfBounds, "index " + std::to_string(indices[e]) + " out of range (0 .. " +
                                                  std::to_string(vlen) + ")");
        }
        in_order = in_order && (e == indptr[k] || indices[e] > indices[e - 1]);
      }
    }
    if (csr && in_order) {
      snk::CsrStorage form;
      form.p.assign(indptr, indptr + nvec + 1);
      form.j.assign(indices, indices + nvals);
      form.x.resize(static_cast<std::size_t>(nvals) * t->size);
      if (nvals > 0) std::memcpy(form.x.data(), values, form.x.size());
      m->adopt(std::move(form));
      adopted = true;
    } else {
      rows.resize(nvals);
      cols.resize(nvals);
      for (GrB_Index k = 0; k < nvec; ++k) {
        for (GrB_Index e = indptr[k]; e < indptr[k + 1]; ++e) {
          (csr ? rows : cols)[e] = k;
          (csr ? cols : rows)[e] = indices[e];
        }
      }
    }
  }
  if (!adopted && nvals > 0) m->build(rows.data(), cols.data(), values, t, nvals, nullptr);
  *A = new SNK_Matrix_opaque(std::move(m));
}

void export_sizes(const snk::Matrix& m, GrB_Format format, GrB_Index& np, GrB_Index& ni, GrB_Index& nx) {
  const GrB_Index nvals = m.nvals();
  np = format == GrB_CSR_FORMAT ? m.nrows() + 1 : format == GrB_CSC_FORMAT ? m.ncols() + 1 : nvals;
  ni = nx = nvals;
}

void export_matrix(GrB_Index* indptr, GrB_Index* indices, void* values, GrB_Index* indptr_len,
                   GrB_Index* indices_len, GrB_Index* values_len, GrB_Format format, GrB_Matrix A,
                   const snk::Type* value_type) {
  const snk::Matrix& m = matrix_of(A, "A");
  check_pointer(indptr_len, "indptr_len");
  check_pointer(indices_len, "indices_len");
  check_pointer(values_len, "values_len");
  check_format(format);
  check_exact_type(m.type(), value_type);
  GrB_Index np, ni, nx;
  export_sizes(m, format, np, ni, nx);
  if (*indptr_len < np || *indices_len < ni || *values_len < nx) {
    throw Error(Info::InsufficientSpace, std::string(format_name(format)) + " export needs arrays of " +
                                             std::to_string(np) + ", " + std::to_string(ni) + " and " +
                                             std::to_string(nx) + " entries");
  }
  if (np > 0) check_pointer(indptr, "indptr");
  if (ni > 0) check_pointer(indices, "indices");
  if (nx > 0) check_pointer(values, "values");
  const std::size_t size = m.type()->size;
  std::vector<Index> rows(ni), cols(ni);
  std::vector<unsigned char> x(nx * size);
  m.extract_tuples(rows.data(), cols.data(), x.data(), m.type());   // row-major order
  if (format == GrB_COO_FORMAT || format == GrB_CSR_FORMAT) {
    if (format == GrB_COO_FORMAT) {
      std::copy(rows.begin(), rows.end(), indptr);
    } else {
      std::fill(indptr, indptr + np, GrB_Index(0));
      for (Index r : rows) ++indptr[r + 1];
      for (GrB_Index k = 0; k + 1 < np; ++k) indptr[k + 1] += indptr[k];
    }
    std::copy(cols.begin(), cols.end(), indices);
    if (nx > 0) std::memcpy(values, x.data(), x.size());
  } else {
    // CSC: a stable counting sort by column keeps rows increasing within each column.
    std::fill(indptr, indptr + np, GrB_Index(0));
    for (Index c : cols) ++indptr[c + 1];
    for (GrB_Index k = 0; k + 1 < np; ++k) indptr[k + 1] += indptr[k];
    std::vector<GrB_Index> next(indptr, indptr + np);
    auto* out = static_cast<unsigned char*>(values);
    for (GrB_Index e = 0; e < ni; ++e) {
      const GrB_Index dst = next[cols[e]]++;
      indices[dst] = rows[e];
      std::memcpy(out + dst * size, x.data() + e * size, size);
    }
  }
  *indptr_len = np;
  *indices_len = ni;
  *values_len = nx;
}

// The blob form of a matrix (values copied into `values`, which must outlive the result).
BlobMatrix blob_of(const snk::Matrix& m, std::vector<unsigned char>& values) {
  BlobMatrix b;
  b.type_code = static_cast<std::uint32_t>(m.type()->code);
  b.type_size = m.type()->size;
  if (!m.type()->builtin()) b.type_name = m.type()->name;
  b.nrows = m.nrows();
  b.ncols = m.ncols();
  const snk::CsrStorage& s = m.csr();
  for (Index k = 0; k < s.nslots(); ++k) {
    if (s.p[k + 1] == s.p[k]) continue;
    b.h.push_back(s.hyper ? s.h[k] : k);
    if (b.p.empty()) b.p.push_back(0);
    b.j.insert(b.j.end(), s.j.begin() + static_cast<std::ptrdiff_t>(s.p[k]),
               s.j.begin() + static_cast<std::ptrdiff_t>(s.p[k + 1]));
    b.p.push_back(b.j.size());
  }
  if (b.p.empty()) b.p.push_back(0);
  values.assign(s.x.begin(), s.x.begin() + static_cast<std::ptrdiff_t>(b.j.size() * b.type_size));
  b.values = values.data();
  return b;
}

}  // namespace

extern "C" {

#define SNK_IMPORT_EXPORT(T, value, in, out, VALUE_TYPE)                                                \
  GrB_Info GrB_Matrix_import_##T(GrB_Matrix* A, GrB_Type type, GrB_Index nrows, GrB_Index ncols,       \
                                 const GrB_Index* indptr, const GrB_Index* indices, in values,         \
                                 GrB_Index indptr_len, GrB_Index indices_len, GrB_Index values_len,    \
                                 GrB_Format format) {                                                  \
    return call("GrB_Matrix_import_" #T, nullptr, [&] {                                                \
      import_matrix(A, type, nrows, ncols, indptr, indices, values, indptr_len, indices_len, values_len, \
                    format, VALUE_TYPE);                                                               \
    });                                                                                                \
  }                                                                                                    \
  GrB_Info GrB_Matrix_export_##T(GrB_Index* indptr, GrB_Index* indices, out values, GrB_Index* indptr_len, \
                                 GrB_Index* indices_len, GrB_Index* values_len, GrB_Format format,     \
                                 GrB_Matrix A) {                                                       \
    return call("GrB_Matrix_export_" #T, A, [&] {                                                      \
      export_matrix(indptr, indices, values, indptr_len, indices_len, values_len, format, A, VALUE_TYPE); \
    });                                                                                                \
  }
#define SNK_IMPORT_EXPORT_BUILTIN(T, value, in, out) SNK_IMPORT_EXPORT(T, value, in, out, snk::type_of<value>())
SNK_FOR_EACH_BUILTIN_TYPE(SNK_IMPORT_EXPORT_BUILTIN)
SNK_IMPORT_EXPORT(UDT, const void*, const void*, void*, nullptr)

GrB_Info GrB_Matrix_exportSize(GrB_Index* indptr_len, GrB_Index* indices_len, GrB_Index* values_len,
                               GrB_Format format, GrB_Matrix A) {
  return call("GrB_Matrix_exportSize", A, [&] {
    const snk::Matrix& m = matrix_of(A, "A");
    check_pointer(indptr_len, "indptr_len");
    check_pointer(indices_len, "indices_len");
    check_pointer(values_len, "values_len");
    check_format(format);
    export_sizes(m, format, *indptr_len, *indices_len, *values_len);
  });
}

GrB_Info GrB_Matrix_exportHint(GrB_Format* format, GrB_Matrix A) {
  return call("GrB_Matrix_exportHint", A, [&] {
    matrix_of(A, "A");
    check_pointer(format, "format");
    *format = GrB_CSR_FORMAT;   // matrices are stored by rows
  });
}

GrB_Info GrB_Matrix_serializeSize(GrB_Index* size, GrB_Matrix A) {
  return call("GrB_Matrix_serializeSize", A, [&] {
    const snk::Matrix& m = matrix_of(A, "A");
    check_pointer(size, "blob_size");
    std::vector<unsigned char> values;
    *size = blob_size(blob_of(m, values));
  });
}

GrB_Info GrB_Matrix_serialize(void* blob, GrB_Index* size, GrB_Matrix A) {
  return call("GrB_Matrix_serialize", A, [&] {
    const snk::Matrix& m = matrix_of(A, "A");
    check_pointer(blob, "blob");
    check_pointer(size, "blob_size");
    std::vector<unsigned char> values;
    const BlobMatrix b = blob_of(m, values);
    const GrB_Index need = blob_size(b);
    if (*size < need) {
      throw Error(Info::InsufficientSpace, "the blob holds " + std::to_string(*size) + " bytes; " +
                                               std::to_string(need) + " are needed (GrB_Matrix_serializeSize)");
    }
    write_blob(b, static_cast<unsigned char*>(blob));
    *size = need;
  });
}

GrB_Info GrB_Matrix_deserialize(GrB_Matrix* A, GrB_Type type, const void* blob, GrB_Index size) {
  return call("GrB_Matrix_deserialize", nullptr, [&] {
    check_pointer(A, "A");
    check_pointer(blob, "blob");
    const snk::Type* t = nullptr;
    if (type != nullptr) t = type_of(type, "type");
    const BlobMatrix b = parse_blob(static_cast<const unsigned char*>(blob), static_cast<std::size_t>(size),
                                    snk::kIndexMax);
    const auto code = static_cast<snk::TypeCode>(b.type_code);
    if (t == nullptr) {
      t = snk::builtin_type(code);
      if (t == nullptr) throw Error(Info::DomainMismatch, "the blob holds a user-defined type: pass its GrB_Type");
    } else if (t->code != code || t->size != b.type_size) {
      throw Error(Info::DomainMismatch, "the blob's type does not match the given type " + t->name);
    }
    if (t->size != b.type_size) throw Error(Info::InvalidObject, "invalid serialized matrix: wrong value size");
    auto m = std::make_unique<snk::Matrix>(t, b.nrows, b.ncols);
    if (b.nvals() > 0) {
      std::vector<Index> rows(b.nvals());
      for (std::size_t k = 0; k < b.h.size(); ++k) {
        std::fill(rows.begin() + static_cast<std::ptrdiff_t>(b.p[k]), rows.begin() + static_cast<std::ptrdiff_t>(b.p[k + 1]), b.h[k]);
      }
      m->build(rows.data(), b.j.data(), b.values, t, b.nvals(), nullptr);
    }
    *A = new SNK_Matrix_opaque(std::move(m));
  });
}

GrB_Info SNK_Matrix_read_mtx(GrB_Matrix* A, GrB_Type type, const char* text, size_t size) {
  return call("SNK_Matrix_read_mtx", nullptr, [&] {
    check_pointer(A, "A");
    const snk::Type* t = type_of(type, "type");
    check_pointer(text, "text");
    // Entries are limited by the text's size (each needs at least 4 bytes, twice for symmetry).
    const MtxMatrix mtx = parse_mtx(text, size, snk::kIndexMax, size / 2 + 1);
    auto m = std::make_unique<snk::Matrix>(t, mtx.nrows, mtx.ncols);
    const Index n = mtx.rows.size();
    if (n > 0) {
      switch (mtx.field) {
        case MtxMatrix::Field::Real:
          m->build(mtx.rows.data(), mtx.cols.data(), mtx.real_values.data(), &snk::types::FP64, n, nullptr);
          break;
        case MtxMatrix::Field::Integer:
          m->build(mtx.rows.data(), mtx.cols.data(), mtx.integer_values.data(), &snk::types::Int64, n, nullptr);
          break;
        case MtxMatrix::Field::Pattern: {
          const std::vector<std::uint8_t> ones(n, 1);
          m->build(mtx.rows.data(), mtx.cols.data(), ones.data(), &snk::types::UInt8, n, nullptr);
          break;
        }
      }
    }
    *A = new SNK_Matrix_opaque(std::move(m));
  });
}

}  // extern "C"
