/* examples/triangle_count.c: the number of triangles of the undirected graph (Sandia's method: L the
 * strictly lower triangle, C<L> = L * L', triangles = sum(C)). Prints "triangles N". Standard GraphBLAS C API
 * only. Usage: see graph_common.h (the graph is symmetrized). */
#include "graph_common.h"

int main(int argc, char **argv) {
  TRY(GrB_init(GrB_NONBLOCKING));
  GrB_Matrix A = load_graph(argc, argv, 1);
  GrB_Index n;
  TRY(GrB_Matrix_nrows(&n, A));
  GrB_Matrix L, C;
  TRY(GrB_Matrix_new(&L, GrB_INT64, n, n));
  TRY(GrB_Matrix_new(&C, GrB_INT64, n, n));
  TRY(GrB_Matrix_select_INT64(L, NULL, NULL, GrB_TRIL, A, -1, NULL));
  TRY(GrB_mxm(C, L, NULL, GrB_PLUS_TIMES_SEMIRING_INT64, L, L, GrB_DESC_ST1));
  int64_t triangles = 0;
  TRY(GrB_Matrix_reduce_INT64(&triangles, NULL, GrB_PLUS_MONOID_INT64, C, NULL));
  printf("triangles %lld\n", (long long)triangles);
  GrB_Matrix_free(&A);
  GrB_Matrix_free(&L);
  GrB_Matrix_free(&C);
  GrB_finalize();
  return 0;
}
