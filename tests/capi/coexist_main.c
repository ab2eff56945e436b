/* tests/capi/coexist_main.c: one program linked to libsnack and to SuiteSparse's libgraphblas, each used
 * through its own GraphBLAS.h (coexist_snack.c, coexist_suitesparse.c), in both orders of initialization.
 * Each must get its own result: sum(A*A) = 1*2 + 2*3 + 3*4 + 4*1 = 24 for snack's values, 96 for the doubled
 * ones given to SuiteSparse; snack reports spec version 2, SuiteSparse library version 7. */
#include <stdio.h>

int snack_side(double *sum, unsigned *version);
int suitesparse_side(double *sum, int *major);

int main(int argc, char **argv) {
  const int suitesparse_first = argc > 1;
  double snack_sum = -1, ss_sum = -1;
  unsigned snack_version = 0;
  int ss_major = 0, rc;
  if (suitesparse_first && (rc = suitesparse_side(&ss_sum, &ss_major)) != 0) { printf("SuiteSparse side failed: %d\n", rc); return 1; }
  if ((rc = snack_side(&snack_sum, &snack_version)) != 0) { printf("snack side failed: %d\n", rc); return 1; }
  if (!suitesparse_first && (rc = suitesparse_side(&ss_sum, &ss_major)) != 0) { printf("SuiteSparse side failed: %d\n", rc); return 1; }
  printf("snack: sum %g (spec %u); SuiteSparse: sum %g (library %d); SuiteSparse initialized %s\n", snack_sum,
         snack_version, ss_sum, ss_major, suitesparse_first ? "first" : "second");
  return (snack_sum == 24 && ss_sum == 96 && snack_version == 2 && ss_major == 7) ? 0 : 1;
}
