// tests/capi/test_capi_semantics.cpp: spec semantics that random differential testing against SuiteSparse
// found wrong, kept as regression tests on every backend and, where values matter, every builtin type.
//
//   A  reduce to a C value of an input with no entries: val = identity, or val = val (accum) identity
//   B  GrB_Vector_assign with an index past size(w), also with more indices than size(w):
//      GrB_INDEX_OUT_OF_BOUNDS (dimension mismatch is only for the mask and for size(u) != ni), w unchanged
//   C  GrB_ALL is every index of the dimension it indexes, whatever count comes with it (assign, scalar
//      assign, extract; vector and matrix forms), as SuiteSparse reads it and LAGraph relies on
//   D  build with a dup operator whose three domains differ (GrB_LT_FP64): GrB_DOMAIN_MISMATCH, unchanged
//   E  CSR import: rows in increasing order (adopted as they are) and jumbled rows (sorted) give the same matrix;
//      a duplicate is GrB_INVALID_VALUE and an index past the dimension GrB_INDEX_OUT_OF_BOUNDS, nothing created
// Each case runs on every backend built (SNK_Thread_backend_set).
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "GraphBLAS.h"
#include "capi_test_util.hpp"

namespace {

std::vector<std::string> backends() {
  std::vector<std::string> names = snk_test::backend_list();
  EXPECT_FALSE(names.empty()) << "SNK_Backend_list gave no backend";
  return names;
}

class Semantics : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(GrB_init(GrB_NONBLOCKING), GrB_SUCCESS); }
  static void TearDownTestSuite() { GrB_finalize(); }
  void SetUp() override { ASSERT_EQ(SNK_Thread_backend_set(GetParam().c_str()), GrB_SUCCESS); }
  void TearDown() override { SNK_Thread_backend_set(nullptr); }
};

// ---- A: reduce of an empty input to a C value, every builtin type ---------------------------------------
// c = 10 (true for bool); monoid TIMES (LAND for bool; identity 1 / true); accum PLUS (LOR for bool).
#define SNK_REDUCE_EMPTY_CASE(T, ctype, accum, monoid, start, with_accum, without_accum)                    \
  {                                                                                                       \
    GrB_Matrix A = nullptr;                                                                               \
    GrB_Vector v = nullptr;                                                                               \
    ASSERT_EQ(GrB_Matrix_new(&A, GrB_##T, 2, 2), GrB_SUCCESS);                                           \
    ASSERT_EQ(GrB_Vector_new(&v, GrB_##T, 3), GrB_SUCCESS);                                              \
    ctype c = start;                                                                                      \
    EXPECT_EQ(GrB_Matrix_reduce_##T(&c, accum, monoid, A, nullptr), GrB_SUCCESS);                        \
    EXPECT_EQ(c, (ctype)(with_accum)) << #T " matrix, with accum";                                        \
    c = start;                                                                                            \
    EXPECT_EQ(GrB_Vector_reduce_##T(&c, accum, monoid, v, nullptr), GrB_SUCCESS);                        \
    EXPECT_EQ(c, (ctype)(with_accum)) << #T " vector, with accum";                                        \
    c = start;                                                                                            \
    EXPECT_EQ(GrB_Matrix_reduce_##T(&c, nullptr, monoid, A, nullptr), GrB_SUCCESS);                      \
    EXPECT_EQ(c, (ctype)(without_accum)) << #T " matrix, no accum";                                       \
    c = start;                                                                                            \
    EXPECT_EQ(GrB_Vector_reduce_##T(&c, nullptr, monoid, v, nullptr), GrB_SUCCESS);                      \
    EXPECT_EQ(c, (ctype)(without_accum)) << #T " vector, no accum";                                       \
    GrB_Matrix_free(&A);                                                                                  \
    GrB_Vector_free(&v);                                                                                  \
  }

#define SNK_REDUCE_EMPTY_NUMERIC(T, ctype) \
  SNK_REDUCE_EMPTY_CASE(T, ctype, GrB_PLUS_##T, GrB_TIMES_MONOID_##T, 10, 11, 1)

TEST_P(Semantics, A_ReduceEmptyToValueAccumulatesTheIdentity) {
  SNK_REDUCE_EMPTY_CASE(BOOL, bool, GrB_LOR, GrB_LAND_MONOID_BOOL, false, true, true)
  SNK_REDUCE_EMPTY_NUMERIC(INT8, int8_t)
  SNK_REDUCE_EMPTY_NUMERIC(UINT8, uint8_t)
  SNK_REDUCE_EMPTY_NUMERIC(INT16, int16_t)
  SNK_REDUCE_EMPTY_NUMERIC(UINT16, uint16_t)
  SNK_REDUCE_EMPTY_NUMERIC(INT32, int32_t)
  SNK_REDUCE_EMPTY_NUMERIC(UINT32, uint32_t)
  SNK_REDUCE_EMPTY_NUMERIC(INT64, int64_t)
  SNK_REDUCE_EMPTY_NUMERIC(UINT64, uint64_t)
  SNK_REDUCE_EMPTY_NUMERIC(FP32, float)
  SNK_REDUCE_EMPTY_NUMERIC(FP64, double)
  // a typecast on the way: an INT32 monoid into a double through MAX_FP64
  GrB_Matrix A = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&A, GrB_INT32, 4, 4), GrB_SUCCESS);
  double d = -2.5;
  EXPECT_EQ(GrB_Matrix_reduce_FP64(&d, GrB_MAX_FP64, GrB_MIN_MONOID_INT32, A, nullptr), GrB_SUCCESS);
  EXPECT_EQ(d, 2147483647.0);  // max(-2.5, INT32_MAX)
  GrB_Matrix_free(&A);
}

// ---- B: vector assign index errors -------------------------------------------------------------------------
TEST_P(Semantics, B_VectorAssignIndexPastSizeIsOutOfBounds) {
  GrB_Vector w = nullptr, u = nullptr, u1 = nullptr;
  ASSERT_EQ(GrB_Vector_new(&w, GrB_FP64, 4), GrB_SUCCESS);
  ASSERT_EQ(GrB_Vector_setElement_FP64(w, 7.0, 2), GrB_SUCCESS);
  ASSERT_EQ(GrB_Vector_new(&u, GrB_FP64, 5), GrB_SUCCESS);
  ASSERT_EQ(GrB_Vector_new(&u1, GrB_FP64, 1), GrB_SUCCESS);
  for (GrB_Index k = 0; k < 5; ++k) ASSERT_EQ(GrB_Vector_setElement_FP64(u, 1.0 + k, k), GrB_SUCCESS);
  ASSERT_EQ(GrB_Vector_setElement_FP64(u1, 3.0, 0), GrB_SUCCESS);
  const GrB_Index five[5] = {0, 1, 2, 3, 7};  // more indices than size(w), one past it
  const GrB_Index one[1] = {4};
  EXPECT_EQ(GrB_Vector_assign(w, nullptr, nullptr, u, five, 5, nullptr), GrB_INDEX_OUT_OF_BOUNDS);
  EXPECT_EQ(GrB_Vector_assign(w, nullptr, nullptr, u1, one, 1, nullptr), GrB_INDEX_OUT_OF_BOUNDS);
  EXPECT_EQ(GrB_Vector_assign_FP64(w, nullptr, nullptr, 1.0, five, 5, nullptr), GrB_INDEX_OUT_OF_BOUNDS);
  const char* message = nullptr;
  ASSERT_EQ(GrB_Vector_error(&message, w), GrB_SUCCESS);
  EXPECT_NE(std::string(message).find("out of bounds"), std::string::npos) << message;
  // a count that differs from size(u) is the dimension mismatch
  EXPECT_EQ(GrB_Vector_assign(w, nullptr, nullptr, u, five, 4, nullptr), GrB_DIMENSION_MISMATCH);
  GrB_Index nv = 0;
  double x = 0;
  ASSERT_EQ(GrB_Vector_nvals(&nv, w), GrB_SUCCESS);
  EXPECT_EQ(nv, 1u);
  ASSERT_EQ(GrB_Vector_extractElement_FP64(&x, w, 2), GrB_SUCCESS);
  EXPECT_EQ(x, 7.0);
  // matrix assign: the row index past nrows(C)
  GrB_Matrix C = nullptr, A = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&C, GrB_FP64, 3, 3), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_new(&A, GrB_FP64, 4, 1), GrB_SUCCESS);
  const GrB_Index rows[4] = {0, 1, 2, 3}, col[1] = {0};
  EXPECT_EQ(GrB_Matrix_assign(C, nullptr, nullptr, A, rows, 4, col, 1, nullptr), GrB_INDEX_OUT_OF_BOUNDS);
  GrB_Vector_free(&w);
  GrB_Vector_free(&u);
  GrB_Vector_free(&u1);
  GrB_Matrix_free(&C);
  GrB_Matrix_free(&A);
}

// ---- C: GrB_ALL whatever the count, every builtin type ------------------------------------
// The tuples of A as "i,j " pairs (values are checked separately).
std::string pattern_of(GrB_Matrix A) {
  GrB_Index nv = 0;
  EXPECT_EQ(GrB_Matrix_nvals(&nv, A), GrB_SUCCESS);
  std::vector<GrB_Index> I(nv), J(nv);
  std::vector<double> X(nv);
  EXPECT_EQ(GrB_Matrix_extractTuples_FP64(I.data(), J.data(), X.data(), &nv, A), GrB_SUCCESS);
  std::string s;
  for (GrB_Index k = 0; k < nv; ++k) s += std::to_string(I[k]) + "," + std::to_string(J[k]) + " ";
  return s;
}

std::string block(GrB_Index ni, GrB_Index nj) {
  std::string s;
  for (GrB_Index i = 0; i < ni; ++i)
    for (GrB_Index j = 0; j < nj; ++j) s += std::to_string(i) + "," + std::to_string(j) + " ";
  return s;
}

// C 4 x 34 and w of size 10; counts below, at and above the dimension (LAGraph 1.1.4 passes nrows for the
// columns of a wider matrix, and 0 for a whole vector).
#define SNK_ALL_CASE(T, ctype)                                                                              \
  {                                                                                                         \
    GrB_Matrix C = nullptr, A = nullptr, E = nullptr;                                                       \
    GrB_Vector w = nullptr, u = nullptr;                                                                    \
    ASSERT_EQ(GrB_Matrix_new(&C, GrB_##T, 4, 34), GrB_SUCCESS);                                            \
    EXPECT_EQ(GrB_Matrix_assign_##T(C, nullptr, nullptr, (ctype)1, GrB_ALL, 4, GrB_ALL, 4, nullptr),       \
              GrB_SUCCESS) << #T;                                                                           \
    EXPECT_EQ(pattern_of(C), block(4, 34)) << #T " scalar assign";                                          \
    ASSERT_EQ(GrB_Matrix_new(&A, GrB_##T, 4, 34), GrB_SUCCESS);                                            \
    EXPECT_EQ(GrB_Matrix_assign_##T(A, nullptr, nullptr, (ctype)1, GrB_ALL, 0, GrB_ALL, 99, nullptr),      \
              GrB_SUCCESS);                                                                                 \
    EXPECT_EQ(pattern_of(A), block(4, 34)) << #T " scalar assign, counts 0 and 99";                         \
    ASSERT_EQ(GrB_Matrix_clear(C), GrB_SUCCESS);                                                            \
    EXPECT_EQ(GrB_Matrix_assign(C, nullptr, nullptr, A, GrB_ALL, 2, GrB_ALL, 3, nullptr), GrB_SUCCESS)      \
        << #T;                                                                                              \
    EXPECT_EQ(pattern_of(C), block(4, 34)) << #T " matrix assign";                                          \
    ASSERT_EQ(GrB_Matrix_new(&E, GrB_##T, 4, 34), GrB_SUCCESS);                                            \
    EXPECT_EQ(GrB_Matrix_extract(E, nullptr, nullptr, C, GrB_ALL, 1, GrB_ALL, 2, nullptr), GrB_SUCCESS)     \
        << #T;                                                                                              \
    EXPECT_EQ(pattern_of(E), block(4, 34)) << #T " extract";                                                \
    ASSERT_EQ(GrB_Vector_new(&w, GrB_##T, 10), GrB_SUCCESS);                                               \
    ASSERT_EQ(GrB_Vector_new(&u, GrB_##T, 10), GrB_SUCCESS);                                               \
    EXPECT_EQ(GrB_Vector_assign_##T(u, nullptr, nullptr, (ctype)1, GrB_ALL, 3, nullptr), GrB_SUCCESS);      \
    EXPECT_EQ(GrB_Vector_assign(w, nullptr, nullptr, u, GrB_ALL, 0, nullptr), GrB_SUCCESS) << #T;           \
    GrB_Index nv = 0;                                                                                       \
    EXPECT_EQ(GrB_Vector_nvals(&nv, w), GrB_SUCCESS);                                                       \
    EXPECT_EQ(nv, 10u) << #T " vector assign";                                                              \
    GrB_Matrix_free(&C);                                                                                    \
    GrB_Matrix_free(&A);                                                                                    \
    GrB_Matrix_free(&E);                                                                                    \
    GrB_Vector_free(&w);                                                                                    \
    GrB_Vector_free(&u);                                                                                    \
  }

TEST_P(Semantics, C_AllIsTheWholeDimensionWhateverTheCount) {
  SNK_ALL_CASE(BOOL, bool)
  SNK_ALL_CASE(INT8, int8_t)
  SNK_ALL_CASE(UINT8, uint8_t)
  SNK_ALL_CASE(INT16, int16_t)
  SNK_ALL_CASE(UINT16, uint16_t)
  SNK_ALL_CASE(INT32, int32_t)
  SNK_ALL_CASE(UINT32, uint32_t)
  SNK_ALL_CASE(INT64, int64_t)
  SNK_ALL_CASE(UINT64, uint64_t)
  SNK_ALL_CASE(FP32, float)
  SNK_ALL_CASE(FP64, double)
}

TEST_P(Semantics, C_AllWithAShapeThatDoesNotFitIsADimensionMismatch) {
  // GrB_ALL covers C's 4 rows, so A must have 4 rows whatever count comes with GrB_ALL
  GrB_Matrix C = nullptr, A = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&C, GrB_FP64, 4, 34), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_new(&A, GrB_FP64, 2, 34), GrB_SUCCESS);
  EXPECT_EQ(GrB_Matrix_assign(C, nullptr, nullptr, A, GrB_ALL, 2, GrB_ALL, 34, nullptr), GrB_DIMENSION_MISMATCH);
  GrB_Index nv = 1;
  EXPECT_EQ(GrB_Matrix_nvals(&nv, C), GrB_SUCCESS);
  EXPECT_EQ(nv, 0u);
  GrB_Matrix_free(&C);
  GrB_Matrix_free(&A);
}

// ---- D: dup operators must have three equal domains ----------------------------------------------------------
TEST_P(Semantics, D_BuildWithMixedDomainDupIsDomainMismatch) {
  GrB_Matrix A = nullptr;
  GrB_Vector v = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&A, GrB_FP64, 3, 3), GrB_SUCCESS);
  ASSERT_EQ(GrB_Vector_new(&v, GrB_FP64, 3), GrB_SUCCESS);
  const GrB_Index I[3] = {0, 0, 1}, J[3] = {1, 1, 2};
  const double X[3] = {1.0, 2.0, 3.0};
  EXPECT_EQ(GrB_Matrix_build_FP64(A, I, J, X, 3, GrB_LT_FP64), GrB_DOMAIN_MISMATCH);
  EXPECT_EQ(GrB_Vector_build_FP64(v, I, X, 3, GrB_LT_FP64), GrB_DOMAIN_MISMATCH);
  const char* message = nullptr;
  ASSERT_EQ(GrB_Matrix_error(&message, A), GrB_SUCCESS);
  EXPECT_NE(std::string(message).find("GrB_LT_FP64"), std::string::npos) << message;
  GrB_Index nv = 1;
  EXPECT_EQ(GrB_Matrix_nvals(&nv, A), GrB_SUCCESS);
  EXPECT_EQ(nv, 0u);
  // the same build with a dup of equal domains works, and a castable one (PLUS_INT32 on FP64 values) too
  EXPECT_EQ(GrB_Matrix_build_FP64(A, I, J, X, 3, GrB_PLUS_FP64), GrB_SUCCESS);
  double x = 0;
  EXPECT_EQ(GrB_Matrix_extractElement_FP64(&x, A, 0, 1), GrB_SUCCESS);
  EXPECT_EQ(x, 3.0);
  EXPECT_EQ(GrB_Vector_build_FP64(v, I, X, 3, GrB_PLUS_INT32), GrB_SUCCESS);
  GrB_Matrix_free(&A);
  GrB_Vector_free(&v);
}

// ---- E: CSR import with rows in order, out of order, and with a duplicate -----------------------------
TEST_P(Semantics, E_CsrImportTakesRowsInAnyOrderAndRefusesDuplicates) {
  const GrB_Index P[4] = {0, 3, 3, 5};
  const GrB_Index sorted[5] = {0, 2, 3, 1, 4}, jumbled[5] = {3, 0, 2, 4, 1}, twice[5] = {0, 2, 2, 1, 4};
  const double Xs[5] = {1, 2, 3, 4, 5}, Xj[5] = {3, 1, 2, 5, 4};
  GrB_Matrix A = nullptr, B = nullptr, C = nullptr;
  ASSERT_EQ(GrB_Matrix_import_FP64(&A, GrB_FP64, 3, 5, P, sorted, Xs, 4, 5, 5, GrB_CSR_FORMAT), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_import_FP64(&B, GrB_FP64, 3, 5, P, jumbled, Xj, 4, 5, 5, GrB_CSR_FORMAT), GrB_SUCCESS);
  for (GrB_Matrix M : {A, B}) {
    GrB_Index I[5], J[5], n = 5;
    double X[5];
    ASSERT_EQ(GrB_Matrix_extractTuples_FP64(I, J, X, &n, M), GrB_SUCCESS);
    ASSERT_EQ(n, 5u);
    const GrB_Index wi[5] = {0, 0, 0, 2, 2};
    for (int e = 0; e < 5; ++e) {
      EXPECT_EQ(I[e], wi[e]);
      EXPECT_EQ(J[e], sorted[e]);
      EXPECT_EQ(X[e], Xs[e]);
    }
  }
  EXPECT_EQ(GrB_Matrix_import_FP64(&C, GrB_FP64, 3, 5, P, twice, Xs, 4, 5, 5, GrB_CSR_FORMAT), GrB_INVALID_VALUE);
  EXPECT_EQ(C, nullptr);
  const GrB_Index past[5] = {0, 2, 5, 1, 4};
  EXPECT_EQ(GrB_Matrix_import_FP64(&C, GrB_FP64, 3, 5, P, past, Xs, 4, 5, 5, GrB_CSR_FORMAT), GrB_INDEX_OUT_OF_BOUNDS);
  EXPECT_EQ(C, nullptr);
  GrB_Matrix_free(&A);
  GrB_Matrix_free(&B);
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Semantics, ::testing::ValuesIn([] {
                           // the library must be initialised to list its backends
                           const bool init = GrB_init(GrB_NONBLOCKING) == GrB_SUCCESS;
                           std::vector<std::string> names = backends();
                           if (init) GrB_finalize();
                           return names;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
