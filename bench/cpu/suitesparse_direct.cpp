// bench/cpu/suitesparse_direct.cpp: SuiteSparse:GraphBLAS on its own matrices, for the CPU graph
// benchmark (see suitesparse_direct.hpp for why). Inputs are copied in once with the spec's
// GrB_Matrix_import (not timed); each timed call is one GrB operation on a fresh output plus GrB_wait.
// GrB_init may already have been called by snack's reference backend: GrB_INVALID_VALUE then just means
// "ready".
extern "C" {
#include <GraphBLAS.h>
}

#include "suitesparse_direct.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace bench {
namespace {

void check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
    throw std::runtime_error(std::string("SuiteSparse ") + what + " failed (GrB_Info " + std::to_string(info) + ")");
}

void ensure_initialized() {
  static bool done = false;
  if (done) return;
  GrB_Info info = GrB_init(GrB_NONBLOCKING);
  if (info != GrB_SUCCESS && info != GrB_INVALID_VALUE) check(info, "GrB_init");
  done = true;
}

// Copies a snack matrix into SuiteSparse (plain CSR arrays; a hypersparse snack matrix is expanded).
GrB_Matrix import_matrix(const snk::Matrix& A) {
  const snk::CsrStorage& s = A.csr();
  std::vector<GrB_Index> p(A.nrows() + 1, 0);
  if (s.hyper) {
    for (std::size_t k = 0; k < s.h.size(); ++k) p[s.h[k] + 1] = s.p[k + 1] - s.p[k];
    for (GrB_Index i = 0; i < A.nrows(); ++i) p[i + 1] += p[i];
  } else {
    p.assign(s.p.begin(), s.p.end());
  }
  GrB_Matrix m = nullptr;
  check(GrB_Matrix_import_FP64(&m, GrB_FP64, A.nrows(), A.ncols(), p.data(), s.j.data(),
                               reinterpret_cast<const double*>(s.x.data()), p.size(), s.j.size(), s.j.size(),
                               GrB_CSR_FORMAT),
        "GrB_Matrix_import_FP64");
  check(GrB_Matrix_wait(m, GrB_MATERIALIZE), "GrB_Matrix_wait");
  return m;
}

}  // namespace

struct SuiteSparseDirect::State {
  GrB_Matrix A = nullptr;
  GrB_Vector u = nullptr;
  GrB_Matrix C = nullptr;          // kept matrix result
  GrB_Vector w = nullptr;          // kept vector result
  GrB_Descriptor masked_tran = nullptr, tran = nullptr;
  GrB_Index n = 0;
};

SuiteSparseDirect::SuiteSparseDirect(const snk::Matrix& A, const snk::Vector& u) : s_(new State) {
  ensure_initialized();
  s_->n = A.nrows();
  s_->A = import_matrix(A);
  check(GrB_Vector_new(&s_->u, GrB_FP64, u.size()), "GrB_Vector_new");
  std::vector<GrB_Index> I(u.nvals());
  std::vector<double> X(u.nvals());
  u.extract_tuples(I.data(), X.data(), &snk::types::FP64);
  check(GrB_Vector_build_FP64(s_->u, I.data(), X.data(), I.size(), GrB_FIRST_FP64), "GrB_Vector_build_FP64");
  check(GrB_Vector_wait(s_->u, GrB_MATERIALIZE), "GrB_Vector_wait");
  check(GrB_Descriptor_new(&s_->masked_tran), "GrB_Descriptor_new");
  check(GrB_Descriptor_set(s_->masked_tran, GrB_MASK, GrB_STRUCTURE), "GrB_Descriptor_set");
  check(GrB_Descriptor_set(s_->masked_tran, GrB_INP1, GrB_TRAN), "GrB_Descriptor_set");
  check(GrB_Descriptor_new(&s_->tran), "GrB_Descriptor_new");
  check(GrB_Descriptor_set(s_->tran, GrB_INP1, GrB_TRAN), "GrB_Descriptor_set");
}

SuiteSparseDirect::~SuiteSparseDirect() {
  release();
  GrB_Matrix_free(&s_->A);
  GrB_Vector_free(&s_->u);
  GrB_Descriptor_free(&s_->masked_tran);
  GrB_Descriptor_free(&s_->tran);
}

void SuiteSparseDirect::release() {
  if (s_->C) GrB_Matrix_free(&s_->C);
  if (s_->w) GrB_Vector_free(&s_->w);
}

void SuiteSparseDirect::mxv() {
  release();
  check(GrB_Vector_new(&s_->w, GrB_FP64, s_->n), "GrB_Vector_new");
  check(GrB_mxv(s_->w, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, s_->A, s_->u, nullptr), "GrB_mxv");
  check(GrB_Vector_wait(s_->w, GrB_MATERIALIZE), "GrB_Vector_wait");
}

void SuiteSparseDirect::mxm() {
  release();
  check(GrB_Matrix_new(&s_->C, GrB_FP64, s_->n, s_->n), "GrB_Matrix_new");
  check(GrB_mxm(s_->C, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, s_->A, s_->A, nullptr), "GrB_mxm");
  check(GrB_Matrix_wait(s_->C, GrB_MATERIALIZE), "GrB_Matrix_wait");
}

void SuiteSparseDirect::mxm_masked() {
  release();
  check(GrB_Matrix_new(&s_->C, GrB_FP64, s_->n, s_->n), "GrB_Matrix_new");
  check(GrB_mxm(s_->C, s_->A, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, s_->A, s_->A, s_->masked_tran), "GrB_mxm");
  check(GrB_Matrix_wait(s_->C, GrB_MATERIALIZE), "GrB_Matrix_wait");
}

void SuiteSparseDirect::ewise_add() {
  release();
  check(GrB_Matrix_new(&s_->C, GrB_FP64, s_->n, s_->n), "GrB_Matrix_new");
  check(GrB_Matrix_eWiseAdd_BinaryOp(s_->C, nullptr, nullptr, GrB_PLUS_FP64, s_->A, s_->A, s_->tran),
        "GrB_Matrix_eWiseAdd_BinaryOp");
  check(GrB_Matrix_wait(s_->C, GrB_MATERIALIZE), "GrB_Matrix_wait");
}

std::uint64_t SuiteSparseDirect::result_nvals() const {
  GrB_Index nv = 0;
  if (s_->C) check(GrB_Matrix_nvals(&nv, s_->C), "GrB_Matrix_nvals");
  else if (s_->w) check(GrB_Vector_nvals(&nv, s_->w), "GrB_Vector_nvals");
  return nv;
}

double SuiteSparseDirect::result_sum() const {
  double sum = 0;
  if (s_->C) check(GrB_Matrix_reduce_FP64(&sum, nullptr, GrB_PLUS_MONOID_FP64, s_->C, nullptr), "GrB_reduce");
  else if (s_->w) check(GrB_Vector_reduce_FP64(&sum, nullptr, GrB_PLUS_MONOID_FP64, s_->w, nullptr), "GrB_reduce");
  return sum;
}

int SuiteSparseDirect::threads() {
  ensure_initialized();
  int nthreads = 0;
  check(GxB_Global_Option_get(GxB_GLOBAL_NTHREADS, &nthreads), "GxB_Global_Option_get");
  return nthreads;
}

}  // namespace bench
