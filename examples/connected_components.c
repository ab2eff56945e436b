/* examples/connected_components.c: connected components of the undirected graph by label propagation:
 * every vertex starts with its own number and takes the minimum over its neighbours until nothing changes,
 * so each component ends labelled by its smallest vertex. Prints "components N" then "vertex label" per
 * vertex. Standard GraphBLAS C API only. Usage: see graph_common.h (the graph is symmetrized). */
#include "graph_common.h"

int main(int argc, char **argv) {
  TRY(GrB_init(GrB_NONBLOCKING));
  GrB_Matrix A = load_graph(argc, argv, 1);
  GrB_Index n;
  TRY(GrB_Matrix_nrows(&n, A));
  GrB_Vector label, next, changed;
  TRY(GrB_Vector_new(&label, GrB_INT64, n));
  TRY(GrB_Vector_new(&next, GrB_INT64, n));
  TRY(GrB_Vector_new(&changed, GrB_BOOL, n));
  TRY(GrB_Vector_assign_INT64(label, NULL, NULL, 0, GrB_ALL, n, NULL));
  TRY(GrB_Vector_apply_IndexOp_INT64(label, NULL, NULL, GrB_ROWINDEX_INT64, label, 0, NULL));
  bool any = true;
  while (any) {
    /* next = min(label, min over neighbours of label) */
    TRY(GrB_Vector_assign(next, NULL, NULL, label, GrB_ALL, n, NULL));
    TRY(GrB_mxv(next, NULL, GrB_MIN_INT64, GrB_MIN_SECOND_SEMIRING_INT64, A, label, NULL));
    TRY(GrB_Vector_eWiseMult_BinaryOp(changed, NULL, NULL, GrB_NE_INT64, next, label, NULL));
    any = false;
    TRY(GrB_Vector_reduce_BOOL(&any, NULL, GrB_LOR_MONOID_BOOL, changed, NULL));
    TRY(GrB_Vector_assign(label, NULL, NULL, next, GrB_ALL, n, NULL));
  }
  /* components = number of vertices that are their own label */
  GrB_Index ncomponents = 0;
  for (GrB_Index v = 0; v < n; ++v) {
    int64_t l;
    TRY(GrB_Vector_extractElement_INT64(&l, label, v));
    ncomponents += (GrB_Index)l == v;
  }
  printf("components %llu\n", (unsigned long long)ncomponents);
  for (GrB_Index v = 0; v < n; ++v) {
    int64_t l;
    TRY(GrB_Vector_extractElement_INT64(&l, label, v));
    printf("%llu %lld\n", (unsigned long long)v, (long long)l);
  }
  GrB_Matrix_free(&A);
  GrB_Vector_free(&label);
  GrB_Vector_free(&next);
  GrB_Vector_free(&changed);
  GrB_finalize();
  return 0;
}
