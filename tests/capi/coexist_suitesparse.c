/* tests/capi/coexist_suitesparse.c: the half of the coexistence test that uses SuiteSparse:GraphBLAS's own
 * GraphBLAS.h and libgraphblas (this file is compiled without SNACK_C_API, so <GraphBLAS.h> is SuiteSparse's).
 * Same computation as coexist_snack.c but on doubled values, plus SuiteSparse's GxB_ version, which snack
 * does not have. */
#include <GraphBLAS.h>

int suitesparse_side(double *sum, int *major) {
  GrB_Matrix A = NULL, C = NULL;
  const GrB_Index I[] = {0, 1, 2, 3}, J[] = {1, 2, 3, 0};
  const double X[] = {2, 4, 6, 8};
  GrB_Info info = GrB_init(GrB_NONBLOCKING);
  if (info != GrB_SUCCESS && info != GrB_INVALID_VALUE) return 1;   /* snack's reference backend may have been first */
  if (GxB_Global_Option_get(GxB_LIBRARY_VERSION, (int[3]){0}) != GrB_SUCCESS) return 2;
  int v[3];
  GxB_Global_Option_get(GxB_LIBRARY_VERSION, v);
  *major = v[0];
  if (GrB_Matrix_new(&A, GrB_FP64, 4, 4) != GrB_SUCCESS) return 3;
  if (GrB_Matrix_build_FP64(A, I, J, X, 4, GrB_PLUS_FP64) != GrB_SUCCESS) return 4;
  if (GrB_Matrix_new(&C, GrB_FP64, 4, 4) != GrB_SUCCESS) return 5;
  if (GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, NULL) != GrB_SUCCESS) return 6;
  *sum = 0;
  if (GrB_Matrix_reduce_FP64(sum, NULL, GrB_PLUS_MONOID_FP64, C, NULL) != GrB_SUCCESS) return 7;
  GrB_Matrix_free(&A);
  GrB_Matrix_free(&C);
  return 0;
}
