// src/ops/extract.cpp: the front-ends of GrB_extract (C API spec 2.0, 4.3.6): sub-matrix, sub-vector and
// column (GrB_Col_extract).
//
// GrB_ALL stands for every index of A's dimension; the count passed with it is not read (core::index_list).
// Error codes as the spec gives them: the output's dimensions must equal the index list lengths
// (GrB_DIMENSION_MISMATCH); an index list entry past the input's dimension is GrB_INDEX_OUT_OF_BOUNDS (an
// execution error in the spec, checked here before anything changes); the column index of GrB_Col_extract
// past ncols is GrB_INVALID_INDEX (an API error; SuiteSparse 7.4 agrees). A transposed input is never
// transposed whole: A^T(I, J) = (A(J, I))^T, so only the extracted part is transposed.
#include "ops/common.hpp"

namespace snk {

using core::Backend;
using core::IndexList;

namespace {

// T = A(I, J) (|I| x |J|, A's type) through the extract kernel.
void extract_into(Matrix& T, const Matrix& A, const IndexList& I, const IndexList& J) {
  core::dispatch("extract", [&](Backend& b) { return b.extract(T, A, I, J); });
}

IndexList single(const Index* j) {
  IndexList l;
  l.list = j;
  l.n = 1;
  l.all = false;
  return l;
}

}  // namespace

void extract(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Matrix& A, const Index* I, Index ni,
             const Index* J, Index nj, const Descriptor& d) {
  const char* op = "extract";
  core::check_output_domains(op, C.type(), accum, A.type());
  core::check_mask(op, mask, C.nrows(), C.ncols(), d);
  const bool t = d.transpose_first;
  const IndexList il = core::index_list(I, ni, t ? A.ncols() : A.nrows()),
                  jl = core::index_list(J, nj, t ? A.nrows() : A.ncols());
  ni = il.n;
  nj = jl.n;
  core::check_dim(op, ni, "the number of row indices", C.nrows(), "nrows(C)");
  core::check_dim(op, nj, "the number of column indices", C.ncols(), "ncols(C)");
  core::check_index_list(op, il, t ? A.ncols() : A.nrows(), t ? "row (of A transposed)" : "row");
  core::check_index_list(op, jl, t ? A.nrows() : A.ncols(), t ? "column (of A transposed)" : "column");
  if (core::finish_if_all_masked_out(C, mask, accum, A.type(), d)) return;
  if (!t) {
    Matrix T(A.type(), ni, nj);
    extract_into(T, A, il, jl);
    core::finish(C, mask, accum, std::move(T), d);
  } else {
    Matrix E(A.type(), nj, ni);
    extract_into(E, A, jl, il);
    core::finish(C, mask, accum, core::transposed(E), d);
  }
}

void extract(Vector& w, const Vector* mask, const BinaryOp* accum, const Vector& u, const Index* I, Index ni,
             const Descriptor& d) {
  const char* op = "extract";
  const Matrix* m = core::mask_matrix(mask);
  core::check_output_domains(op, w.type(), accum, u.type());
  core::check_mask(op, m, 1, w.size(), d);
  const IndexList il = core::index_list(I, ni, u.size());
  ni = il.n;
  core::check_dim(op, ni, "the number of indices", w.size(), "size(w)");
  core::check_index_list(op, il, u.size(), "vector");
  if (core::finish_if_all_masked_out(w.as_matrix(), m, accum, u.type(), d)) return;
  core::Result T(u.type(), 1, ni, true);
  const Index zero = 0;
  extract_into(T.get(), u.as_matrix(), single(&zero), il);
  core::finish(w.as_matrix(), m, accum, T.take(), d);
}

void extract_column(Vector& w, const Vector* mask, const BinaryOp* accum, const Matrix& A, const Index* I,
                    Index ni, Index j, const Descriptor& d) {
  const char* op = "extract_column";
  const Matrix* m = core::mask_matrix(mask);
  core::check_output_domains(op, w.type(), accum, A.type());
  core::check_mask(op, m, 1, w.size(), d);
  const bool t = d.transpose_first;
  const Index nrows = t ? A.ncols() : A.nrows(), ncols = t ? A.nrows() : A.ncols();
  const IndexList il = core::index_list(I, ni, nrows);
  ni = il.n;
  core::check_dim(op, ni, "the number of row indices", w.size(), "size(w)");
  if (j >= ncols)
    throw Error(Info::InvalidIndex, std::string(op) + ": column index " + std::to_string(j) +
                                        " is out of range for " + std::to_string(ncols) + " columns" +
                                        (t ? " (of A transposed)" : ""));
  core::check_index_list(op, il, nrows, t ? "row (of A transposed)" : "row");
  if (core::finish_if_all_masked_out(w.as_matrix(), m, accum, A.type(), d)) return;
  if (t) {
    // A^T(I, j) = A(j, I): a 1 x |I| row, already the vector's shape.
    core::Result T(A.type(), 1, ni, true);
    extract_into(T.get(), A, single(&j), il);
    core::finish(w.as_matrix(), m, accum, T.take(), d);
  } else {
    Matrix E(A.type(), ni, 1);
    extract_into(E, A, il, single(&j));
    core::finish(w.as_matrix(), m, accum, core::transposed(E), d);
  }
}

}  // namespace snk
