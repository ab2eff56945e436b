/* examples/bfs.c: breadth-first search from vertex 0: the level of every vertex and its parent (the smallest
 * numbered vertex of the previous level with an edge to it, so the answer is unique). Prints "vertex level
 * parent" per vertex (-1 where unreached). Standard GraphBLAS C API only. Usage: see graph_common.h. */
#include "graph_common.h"

int main(int argc, char **argv) {
  TRY(GrB_init(GrB_NONBLOCKING));
  GrB_Matrix A = load_graph(argc, argv, 0);
  GrB_Index n;
  TRY(GrB_Matrix_nrows(&n, A));
  const GrB_Index source = 0;
  GrB_Vector level, parent, frontier;
  TRY(GrB_Vector_new(&level, GrB_INT64, n));
  TRY(GrB_Vector_new(&parent, GrB_INT64, n));
  TRY(GrB_Vector_new(&frontier, GrB_INT64, n));
  TRY(GrB_Vector_setElement_INT64(frontier, (int64_t)source, source));
  TRY(GrB_Vector_setElement_INT64(parent, (int64_t)source, source));
  GrB_Index nfrontier = 1;
  for (int64_t depth = 0; nfrontier > 0; ++depth) {
    /* level<frontier> = depth */
    TRY(GrB_Vector_assign_INT64(level, frontier, NULL, depth, GrB_ALL, n, GrB_DESC_S));
    /* frontier(i) = its own index, then next(j) = min over frontier i with A(i,j) of i, for unvisited j */
    TRY(GrB_Vector_apply_IndexOp_INT64(frontier, NULL, NULL, GrB_ROWINDEX_INT64, frontier, 0, NULL));
    TRY(GrB_vxm(frontier, parent, NULL, GrB_MIN_FIRST_SEMIRING_INT64, frontier, A, GrB_DESC_RSC));
    /* parent<frontier> = frontier */
    TRY(GrB_Vector_assign(parent, frontier, NULL, frontier, GrB_ALL, n, GrB_DESC_S));
    TRY(GrB_Vector_nvals(&nfrontier, frontier));
  }
  for (GrB_Index v = 0; v < n; ++v) {
    int64_t l = -1, p = -1;
    if (GrB_Vector_extractElement_INT64(&l, level, v) == GrB_NO_VALUE) l = -1;
    if (GrB_Vector_extractElement_INT64(&p, parent, v) == GrB_NO_VALUE) p = -1;
    printf("%llu %lld %lld\n", (unsigned long long)v, (long long)l, (long long)p);
  }
  GrB_Matrix_free(&A);
  GrB_Vector_free(&level);
  GrB_Vector_free(&parent);
  GrB_Vector_free(&frontier);
  GrB_finalize();
  return 0;
}
