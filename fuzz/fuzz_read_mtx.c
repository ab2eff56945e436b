/* fuzz/fuzz_read_mtx.c: libFuzzer target for SNK_Matrix_read_mtx (MatrixMarket text).
 *
 * Any text must give GrB_SUCCESS (and a readable matrix) or one of the reader's error codes, never a
 * crash, a leak or an out-of-bounds read: the input is passed without a terminating NUL on purpose. */
#include <GraphBLAS.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int initialized = 0;
  if (!initialized) {
    if (GrB_init(GrB_NONBLOCKING) != GrB_SUCCESS) abort();
    initialized = 1;
  }
  GrB_Matrix A = NULL;
  GrB_Info info = SNK_Matrix_read_mtx(&A, GrB_FP64, (const char *)data, size);
  if (info == GrB_SUCCESS) {
    GrB_Index nvals, nrows, ncols;
    if (GrB_Matrix_nvals(&nvals, A) != GrB_SUCCESS || GrB_Matrix_nrows(&nrows, A) != GrB_SUCCESS ||
        GrB_Matrix_ncols(&ncols, A) != GrB_SUCCESS)
      abort();
    double sum = 0;
    if (GrB_Matrix_reduce_FP64(&sum, NULL, GrB_PLUS_MONOID_FP64, A, NULL) != GrB_SUCCESS) abort();
    GrB_Matrix_free(&A);
  } else if (info != GrB_INVALID_VALUE && info != GrB_NOT_IMPLEMENTED && info != GrB_OUT_OF_MEMORY &&
             info != GrB_INDEX_OUT_OF_BOUNDS) {
    abort();
  }
  return 0;
}
