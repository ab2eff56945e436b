/* examples/pagerank.c: PageRank with damping 0.85, 50 iterations, dangling vertices' rank spread uniformly.
 * Prints "vertex rank" per vertex (%.15e). Standard GraphBLAS C API only. Usage: see graph_common.h. */
#include "graph_common.h"

int main(int argc, char **argv) {
  TRY(GrB_init(GrB_NONBLOCKING));
  GrB_Matrix A = load_graph(argc, argv, 0);
  GrB_Index n;
  TRY(GrB_Matrix_nrows(&n, A));
  const double damping = 0.85;
  GrB_Vector outdeg, rank, t;
  TRY(GrB_Vector_new(&outdeg, GrB_FP64, n));
  TRY(GrB_Vector_new(&rank, GrB_FP64, n));
  TRY(GrB_Vector_new(&t, GrB_FP64, n));
  TRY(GrB_Matrix_reduce_Monoid(outdeg, NULL, NULL, GrB_PLUS_MONOID_FP64, A, NULL));
  TRY(GrB_Vector_assign_FP64(rank, NULL, NULL, 1.0 / (double)n, GrB_ALL, n, NULL));
  for (int iter = 0; iter < 50; ++iter) {
    /* t = rank ./ outdeg on vertices with out-edges; dangling = rank mass of the others */
    double total = 0, linked = 0;
    TRY(GrB_Vector_reduce_FP64(&total, NULL, GrB_PLUS_MONOID_FP64, rank, NULL));
    TRY(GrB_Vector_eWiseMult_BinaryOp(t, NULL, NULL, GrB_DIV_FP64, rank, outdeg, NULL));
    TRY(GrB_Vector_eWiseMult_BinaryOp(rank, NULL, NULL, GrB_FIRST_FP64, rank, outdeg, NULL));
    TRY(GrB_Vector_reduce_FP64(&linked, NULL, GrB_PLUS_MONOID_FP64, rank, NULL));
    const double teleport = (1 - damping) / (double)n + damping * (total - linked) / (double)n;
    /* rank = teleport + damping * A' t */
    TRY(GrB_Vector_assign_FP64(rank, NULL, NULL, teleport, GrB_ALL, n, NULL));
    TRY(GrB_Vector_apply_BinaryOp2nd_FP64(t, NULL, NULL, GrB_TIMES_FP64, t, damping, NULL));
    TRY(GrB_mxv(rank, NULL, GrB_PLUS_FP64, GrB_PLUS_TIMES_SEMIRING_FP64, A, t, GrB_DESC_T0));
  }
  for (GrB_Index v = 0; v < n; ++v) {
    double r = 0;
    TRY(GrB_Vector_extractElement_FP64(&r, rank, v));
    printf("%llu %.15e\n", (unsigned long long)v, r);
  }
  GrB_Matrix_free(&A);
  GrB_Vector_free(&outdeg);
  GrB_Vector_free(&rank);
  GrB_Vector_free(&t);
  GrB_finalize();
  return 0;
}
