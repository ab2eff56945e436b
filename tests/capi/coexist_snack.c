/* tests/capi/coexist_snack.c: the half of the coexistence test that uses snack's GraphBLAS.h (compiled with
 * SNACK_C_API, linked to libsnack's snk_ symbols). Computes the triangle-free path count sum(A*A) of a small
 * graph and reports snack's version, so that the test can tell the two libraries' results apart. */
#include <GraphBLAS.h>

int snack_side(double *sum, unsigned *version) {
  GrB_Matrix A = NULL, C = NULL;
  const GrB_Index I[] = {0, 1, 2, 3}, J[] = {1, 2, 3, 0};
  const double X[] = {1, 2, 3, 4};
  unsigned sub;
  if (GrB_init(GrB_NONBLOCKING) != GrB_SUCCESS) return 1;
  if (GrB_getVersion(version, &sub) != GrB_SUCCESS) return 2;
  if (GrB_Matrix_new(&A, GrB_FP64, 4, 4) != GrB_SUCCESS) return 3;
  if (GrB_Matrix_build(A, I, J, X, 4, GrB_PLUS_FP64) != GrB_SUCCESS) return 4;
  if (GrB_Matrix_new(&C, GrB_FP64, 4, 4) != GrB_SUCCESS) return 5;
  if (GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, NULL) != GrB_SUCCESS) return 6;
  *sum = 0;
  if (GrB_reduce(sum, NULL, GrB_PLUS_MONOID_FP64, C, NULL) != GrB_SUCCESS) return 7;
  GrB_free(&A);
  GrB_free(&C);
  return 0;
}
