// src/containers/build.cpp: Matrix::build and Vector::build (the spec's GrB_Matrix_build/GrB_Vector_build).
//
// One implementation serves both (a vector's tuples all lie in row 0). Steps, all before the matrix is
// touched: check the arguments, check every index, sort the tuples stably by (i, j) (sort_tuples), then
// walk the sorted order once to find duplicates (an error without a dup operator; combined in input order
// with it) and once more to write the CSR form directly, which the matrix adopts. Values are cast to the
// matrix type; with the same type they are copied with a fixed-size loop. With a dup operator a run of
// duplicates v1, v2, v3 becomes dup(dup(v1, v2), v3): each value is cast to dup's input types, each partial
// result from dup's output type to its first input type, and the final result to the matrix type. dup's three
// domains must be equal (spec: GrB_DOMAIN_MISMATCH otherwise, so GrB_LT_FP64 is refused).
#include <cstring>
#include <string>

#include "containers/csr_form.hpp"
#include "snack/containers.hpp"

namespace snk {

namespace {

// Copies n values of `size` bytes: dst[e] = src[t[e].pos].
void gather_values(unsigned char* dst, const unsigned char* src, const core::SortedTuple* t, Index n,
                   std::size_t size) {
  switch (size) {
    case 1:
      for (Index e = 0; e < n; ++e) dst[e] = src[t[e].pos];
      return;
    case 2:
      for (Index e = 0; e < n; ++e) std::memcpy(dst + 2 * e, src + 2 * t[e].pos, 2);
      return;
    case 4:
      for (Index e = 0; e < n; ++e) std::memcpy(dst + 4 * e, src + 4 * t[e].pos, 4);
      return;
    case 8:
      for (Index e = 0; e < n; ++e) std::memcpy(dst + 8 * e, src + 8 * t[e].pos, 8);
      return;
    default:
      for (Index e = 0; e < n; ++e) std::memcpy(dst + size * e, src + size * t[e].pos, size);
  }
}

// vec: a vector (I is null, every tuple lies in row 0; J holds the vector indices).
void build_tuples(Matrix& m, bool vec, const Index* I, const Index* J, const void* values, const Type* vtype,
                  Index n, const BinaryOp* dup) {
  const char* who = vec ? "Vector::build" : "Matrix::build";
  const Type* type = m.type();
  SNK_CHECK(vtype != nullptr, Info::NullPointer, std::string(who) + ": the values' type is null");
  if (n > 0) {
    SNK_CHECK(J != nullptr, Info::NullPointer, std::string(who) + (vec ? ": I is null" : ": J is null"));
    SNK_CHECK(values != nullptr, Info::NullPointer, std::string(who) + ": values is null");
  }
  SNK_CHECK(castable(type, vtype), Info::DomainMismatch,
            std::string(who) + ": values of type " + vtype->name + " cannot be cast to the type " + type->name);
  if (dup != nullptr) {
    SNK_CHECK(dup->fn != nullptr, Info::UninitializedObject, std::string(who) + ": the dup operator has no function");
    // Spec: dup's three domains must be the same, and castable to and from the values' and the output's.
    SNK_CHECK(dup->xtype != nullptr && dup->xtype == dup->ytype && dup->xtype == dup->ztype, Info::DomainMismatch,
              std::string(who) + ": the dup operator " + dup->name + " must have three equal domains");
    SNK_CHECK(castable(dup->xtype, vtype) && castable(type, dup->ztype), Info::DomainMismatch,
              std::string(who) + ": the dup operator " + dup->name + " does not fit values of type " + vtype->name +
                  " and a result of type " + type->name);
  }
  SNK_CHECK(m.nvals() == 0, Info::OutputNotEmpty,
            std::string(who) + ": the output already has " + std::to_string(m.nvals()) + " entries");
  const Index nrows = m.nrows(), ncols = m.ncols();
  for (Index k = 0; k < n; ++k) {
    if (!vec && I[k] >= nrows) {
      throw Error(Info::IndexOutOfBounds, std::string(who) + ": row index I[" + std::to_string(k) + "] = " +
                                              std::to_string(I[k]) + " is out of range (nrows = " +
                                              std::to_string(nrows) + ")");
    }
    if (J[k] >= ncols) {
      throw Error(Info::IndexOutOfBounds,
                  std::string(who) + (vec ? ": index I[" : ": column index J[") + std::to_string(k) + "] = " +
                      std::to_string(J[k]) + " is out of range (" + (vec ? "size = " : "ncols = ") +
                      std::to_string(ncols) + ")");
    }
  }

  const std::unique_ptr<core::SortedTuple[]> sorted = core::sort_tuples(vec ? nullptr : I, ~Index(0), J, n, nrows);
  core::SortedTuple* t = sorted.get();
  auto same = [&](Index a, Index b) { return t[a].row == t[b].row && t[a].col == t[b].col; };

  // Duplicates, and the number of distinct entries.
  Index nunique = n == 0 ? 0 : 1;
  for (Index r = 1; r < n; ++r) {
    if (!same(r - 1, r)) {
      ++nunique;
    } else if (dup == nullptr) {
      throw Error(Info::InvalidValue,
                  std::string(who) + ": duplicate entry " +
                      (vec ? "(" + std::to_string(t[r].col) + ")"
                           : "(" + std::to_string(t[r].row) + "," + std::to_string(t[r].col) + ")") +
                      " and no dup operator given");
    }
  }

  // The CSR form, written directly.
  const std::size_t es = type->size;
  CsrStorage s;
  s.j.resize(nunique);
  s.x.resize(nunique * es);
  const auto* src = static_cast<const unsigned char*>(values);
  const std::size_t vs = vtype->size;
  if (nunique == n) {
    for (Index e = 0; e < n; ++e) s.j[e] = t[e].col;
    if (type == vtype) {
      gather_values(s.x.data(), src, t, n, es);
    } else {
      const CastFunction cast = cast_function(type, vtype);
      for (Index e = 0; e < n; ++e) cast(&s.x[e * es], src + t[e].pos * vs);
    }
  } else {
    const core::ValueCopier to_type(type, vtype), to_x(dup->xtype, vtype), to_y(dup->ytype, vtype),
        z_to_x(dup->xtype, dup->ztype), z_to_type(type, dup->ztype);
    std::vector<unsigned char> xbuf(dup->xtype->size), ybuf(dup->ytype->size), zbuf(dup->ztype->size);
    Index e = 0;
    for (Index r = 0; r < n;) {
      Index r_end = r + 1;
      while (r_end < n && same(r, r_end)) ++r_end;
      if (r_end == r + 1) {
        to_type(&s.x[e * es], src + t[r].pos * vs);
      } else {
        to_x(xbuf.data(), src + t[r].pos * vs);
        for (Index q = r + 1; q < r_end; ++q) {
          to_y(ybuf.data(), src + t[q].pos * vs);
          dup->fn(zbuf.data(), xbuf.data(), ybuf.data());
          if (q + 1 < r_end) z_to_x(xbuf.data(), zbuf.data());
        }
        z_to_type(&s.x[e * es], zbuf.data());
      }
      s.j[e] = t[r].col;
      t[e].row = t[r].row;   // compacts the rows of the distinct entries to the front (e <= r)
      ++e;
      r = r_end;
    }
  }
  core::set_row_pointers(s, nrows, nunique, [&](Index e) { return t[e].row; });
  m.adopt(std::move(s));
}

}  // namespace

void Matrix::build(const Index* I, const Index* J, const void* values, const Type* vtype, Index n,
                   const BinaryOp* dup) {
  SNK_CHECK(n == 0 || I != nullptr, Info::NullPointer, "Matrix::build: I is null");
  build_tuples(*this, false, I, J, values, vtype, n, dup);
}

void Vector::build(const Index* I, const void* values, const Type* vtype, Index n, const BinaryOp* dup) {
  build_tuples(m_, true, nullptr, I, values, vtype, n, dup);
}

}  // namespace snk
