// src/ops/assign.cpp: the front-ends of GrB_assign (C API spec 2.0, 4.3.7): matrix, vector, row, column, and
// the constant (scalar) variants.
//
// Every variant ends in core::assign_region: Z = C with the region (I, J) taken from A and accumulated,
// then C<M, replace> = Z with M applying to the whole of C (GrB_assign, not SuiteSparse's GxB_subassign).
// Settled semantics and error codes:
// - A must be |I| x |J| (after GrB_INP0), and u's size the count of indices: GrB_DIMENSION_MISMATCH; list
//   entries past the dimension: GrB_INDEX_OUT_OF_BOUNDS (spec; checked before anything changes). A list
//   longer than the dimension is no error by itself (the spec names none); it holds duplicates, whose
//   result the spec leaves undefined (here: the last occurrence wins, as for shorter lists).
// - GrB_ALL stands for every index of C's dimension; the count passed with it is not read (core::index_list).
// - GrB_Row_assign / GrB_Col_assign: the row or column index past the dimension is GrB_INVALID_INDEX (spec;
//   SuiteSparse 7.4 returns GrB_INDEX_OUT_OF_BOUNDS). Their mask is a vector that applies to that row or
//   column only: entries of other rows/columns never change, even with GrB_REPLACE. They are computed as a
//   vector assign on the extracted row/column (mask, accumulator and replace at vector level) whose
//   result then replaces the row/column of C.
// - Constant assign: the region holds the scalar at every position (duplicate indices are harmless). An
//   empty GrB_Scalar gives an empty region: without an accumulator the region's entries are deleted, with
//   one they are kept (spec 2.0: t is empty). With a non-complemented mask and a region of the whole of C
//   (GrB_ALL x GrB_ALL), the region holds the scalar only on the mask's pattern: positions outside it are
//   masked out anyway, so C<M> = s costs O(nvals(M)) on a hypersparse C. Otherwise the dense region is built
//   (GrB_OUT_OF_MEMORY past 2^34 positions). The region is made by the backend where it keeps its data when it
//   offers Backend::fill (cuda: on the device), else here.
#include "ops/common.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

namespace snk {

using core::Backend;
using core::IndexList;
using core::Operand;

namespace {

IndexList single(const Index* i) {
  IndexList l;
  l.list = i;
  l.n = 1;
  l.all = false;
  return l;
}

// Checks shared by the matrix and constant forms (the region's shape is checked by the caller).
void check_common(const char* op, const Matrix& C, const Matrix* mask, const BinaryOp* accum, const Type* a_type,
                  const Descriptor& d) {
  core::check_output_domains(op, C.type(), accum, a_type);
  core::check_mask(op, mask, C.nrows(), C.ncols(), d);
}

void check_indices(const char* op, const Matrix& C, const IndexList& I, const IndexList& J, bool vector) {
  if (!vector) core::check_index_list(op, I, C.nrows(), "row");
  core::check_index_list(op, J, C.ncols(), vector ? "vector" : "column");
}

// n copies of the `size` bytes at `value`, by doubling copies.
void fill_values(std::vector<unsigned char>& x, Index n, const void* value, std::size_t size) {
  x.resize(n * size);
  if (n == 0) return;
  std::memcpy(x.data(), value, size);
  for (Index done = 1; done < n;) {
    const Index k = std::min(done, n - done);
    std::memcpy(x.data() + done * size, x.data(), k * size);
    done += k;
  }
}

// The region of a constant assign (|I| x |J| of s's type), see the file comment. The current backend makes it
// where it keeps its data (Backend::fill); otherwise it is built here.
Matrix constant_region(const Scalar& s, Index ni, Index nj, const Matrix* mask, const Descriptor& d,
                       const Matrix& C, bool region_is_all) {
  Matrix A(s.type(), ni, nj);
  if (!s.has_value() || ni == 0 || nj == 0 || core::all_masked_out(mask, d)) return A;
  const bool on_mask = mask != nullptr && !d.mask_complement && region_is_all && ni == C.nrows() &&
                       nj == C.ncols();
  constexpr Index kMaxDense = Index(1) << 34;
  if (!on_mask && ni > kMaxDense / nj)
    throw Error(Info::OutOfMemory, "assign: a constant over a region of " + std::to_string(ni) + " x " +
                                       std::to_string(nj) + " positions is too large to build (more than 2^34 "
                                       "entries); use a mask with GrB_ALL x GrB_ALL, or a smaller region");
  if (core::current_backend_object().fill(A, s, on_mask ? mask : nullptr) == core::KernelStatus::Done) return A;
  const std::size_t sz = s.type()->size;
  try {
    CsrStorage t;
    if (on_mask) {
      const CsrStorage& m = mask->csr();
      t.hyper = m.hyper;
      t.h = m.h;
      t.p = m.p;
      t.j = m.j;
      fill_values(t.x, m.nvals(), s.data(), sz);
    } else {
      t.hyper = false;
      t.p.resize(ni + 1);
      for (Index i = 0; i <= ni; ++i) t.p[i] = i * nj;
      t.j.resize(ni * nj);
      Index* j = t.j.data();
      for (Index i = 0; i < ni; ++i)
        for (Index c = 0; c < nj; ++c) *j++ = c;
      fill_values(t.x, ni * nj, s.data(), sz);
    }
    A.adopt(std::move(t));
  } catch (const std::bad_alloc&) {
    throw Error(Info::OutOfMemory, "assign: out of memory building a constant region of " + std::to_string(ni) +
                                       " x " + std::to_string(nj) + " positions");
  }
  return A;
}

}  // namespace

void assign(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Matrix& A, const Index* I, Index ni,
            const Index* J, Index nj, const Descriptor& d) {
  const char* op = "assign";
  const IndexList il = core::index_list(I, ni, C.nrows()), jl = core::index_list(J, nj, C.ncols());
  ni = il.n;
  nj = jl.n;
  check_common(op, C, mask, accum, A.type(), d);
  const bool t = d.transpose_first;
  const Index ar = t ? A.ncols() : A.nrows(), ac = t ? A.nrows() : A.ncols();
  if (ar != ni || ac != nj)
    throw Error(Info::DimensionMismatch, std::string(op) + ": A is " + core::dims_string(ar, ac) +
                                             (t ? " (transposed by GrB_INP0)" : "") + " but the region is " +
                                             core::dims_string(ni, nj));
  check_indices(op, C, il, jl, false);
  Operand a(A);
  if (t) a.transpose();
  core::assign_region(C, mask, accum, std::move(a), il, jl, d);
}

void assign(Vector& w, const Vector* mask, const BinaryOp* accum, const Vector& u, const Index* I, Index ni,
            const Descriptor& d) {
  const char* op = "assign";
  Matrix& C = w.as_matrix();
  const Matrix* m = core::mask_matrix(mask);
  const IndexList il = core::index_list(I, ni, w.size());
  const Index zero = 0;
  const IndexList row = single(&zero);
  check_common(op, C, m, accum, u.type(), d);
  core::check_dim(op, u.size(), "size(u)", il.n, "the number of indices");
  check_indices(op, C, row, il, true);
  core::assign_region(C, m, accum, Operand(u.as_matrix()), row, il, d);
}

void assign_scalar(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Scalar& s, const Index* I,
                   Index ni, const Index* J, Index nj, const Descriptor& d) {
  const char* op = "assign_scalar";
  const IndexList il = core::index_list(I, ni, C.nrows()), jl = core::index_list(J, nj, C.ncols());
  check_common(op, C, mask, accum, s.type(), d);
  check_indices(op, C, il, jl, false);
  Matrix A = constant_region(s, il.n, jl.n, mask, d, C, il.all && jl.all);
  core::assign_region(C, mask, accum, Operand(A), il, jl, d);
}

void assign_scalar(Vector& w, const Vector* mask, const BinaryOp* accum, const Scalar& s, const Index* I, Index ni,
                   const Descriptor& d) {
  const char* op = "assign_scalar";
  Matrix& C = w.as_matrix();
  const Matrix* m = core::mask_matrix(mask);
  const IndexList il = core::index_list(I, ni, w.size());
  const Index zero = 0;
  const IndexList row = single(&zero);
  check_common(op, C, m, accum, s.type(), d);
  check_indices(op, C, row, il, true);
  Matrix A = constant_region(s, 1, il.n, m, d, C, il.all);
  core::assign_region(C, m, accum, Operand(A), row, il, d);
}

void assign_row(Matrix& C, const Vector* mask, const BinaryOp* accum, const Vector& u, Index i, const Index* J,
                Index nj, const Descriptor& d) {
  const char* op = "assign_row";
  core::check_output_domains(op, C.type(), accum, u.type());
  const Matrix* m = core::mask_matrix(mask);
  core::check_mask(op, m, 1, C.ncols(), d);
  if (i >= C.nrows())
    throw Error(Info::InvalidIndex, std::string(op) + ": row index " + std::to_string(i) + " is out of range for " +
                                        std::to_string(C.nrows()) + " rows");
  const IndexList jl = core::index_list(J, nj, C.ncols());
  core::check_dim(op, u.size(), "size(u)", jl.n, "the number of column indices");
  core::check_index_list(op, jl, C.ncols(), "column");

  // r = C(i, :); r<mask, replace>(J) = r(J) (.) u at vector level; then row i of C = r.
  Vector r(C.type(), C.ncols());
  Descriptor row_of_c;
  row_of_c.transpose_first = true;  // C^T(:, i) = C(i, :)
  extract_column(r, nullptr, nullptr, C, nullptr, C.ncols(), i, row_of_c);
  assign(r, mask, accum, u, J, nj, d);
  Matrix Z(C.type(), C.nrows(), C.ncols());
  const IndexList all_cols = core::index_list(nullptr, 0, C.ncols());
  const Matrix& rm = r.as_matrix();
  core::dispatch("assign", [&](Backend& b) { return b.assign(Z, C, nullptr, rm, single(&i), all_cols); });
  C = std::move(Z);
}

void assign_column(Matrix& C, const Vector* mask, const BinaryOp* accum, const Vector& u, const Index* I, Index ni,
                   Index j, const Descriptor& d) {
  const char* op = "assign_column";
  core::check_output_domains(op, C.type(), accum, u.type());
  const Matrix* m = core::mask_matrix(mask);
  core::check_mask(op, m, 1, C.nrows(), d);
  if (j >= C.ncols())
    throw Error(Info::InvalidIndex, std::string(op) + ": column index " + std::to_string(j) +
                                        " is out of range for " + std::to_string(C.ncols()) + " columns");
  const IndexList il = core::index_list(I, ni, C.nrows());
  core::check_dim(op, u.size(), "size(u)", il.n, "the number of row indices");
  core::check_index_list(op, il, C.nrows(), "row");

  // c = C(:, j); c<mask, replace>(I) = c(I) (.) u at vector level; then column j of C = c.
  Vector c(C.type(), C.nrows());
  extract_column(c, nullptr, nullptr, C, nullptr, C.nrows(), j, Descriptor{});
  assign(c, mask, accum, u, I, ni, d);
  const Matrix column = core::transposed(c.as_matrix());  // nrows x 1
  Matrix Z(C.type(), C.nrows(), C.ncols());
  const IndexList all_rows = core::index_list(nullptr, 0, C.nrows());
  core::dispatch("assign", [&](Backend& b) { return b.assign(Z, C, nullptr, column, all_rows, single(&j)); });
  C = std::move(Z);
}

}  // namespace snk
