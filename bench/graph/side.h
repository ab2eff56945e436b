/* bench/graph/side.h: the library-neutral face of one "side" of the graph benchmark (snack through its C API,
 * or SuiteSparse:GraphBLAS called directly). algorithms.c is compiled once per side with GRAPH_SIDE set to
 * snack or suitesparse, and every function it exports carries that prefix (snack_run, suitesparse_run);
 * this header declares both sets with plain C types only, so that the driver, which must not see either
 * GraphBLAS.h, can call both in one process. A side keeps its matrix A and the last algorithm's result
 * inside; *_fetch copies that result into malloc'd arrays that graph_result_free releases. */
#ifndef BENCH_GRAPH_SIDE_H
#define BENCH_GRAPH_SIDE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GRAPH_BFS_LEVELS = 0,
  GRAPH_BFS_PARENTS,
  GRAPH_PAGERANK,
  GRAPH_TRIANGLES,
  GRAPH_COMPONENTS,
  GRAPH_SPGEMM,
  GRAPH_ALGORITHM_COUNT
} graph_algorithm;

/* An algorithm's result in plain arrays. Vector results are dense over the n vertices: ivec (levels,
 * parents, component labels; -1 where the vertex has no entry) or dvec (PageRank; NaN where none). The
 * triangle count is `count`; SpGEMM gives count = nvals(C) and its tuples (ci, cj, cx) in the library's
 * order. */
typedef struct {
  int64_t *ivec;
  double *dvec;
  uint64_t count;
  uint64_t *ci, *cj;
  double *cx;
} graph_result;

void graph_result_free(graph_result *r);

/* Each returns 0 on success, else the GrB_Info of the first call that failed. */
#define GRAPH_SIDE_DECLARE(side)                                                                       \
  int side##_init(void);                                                                               \
  /* A = the n x n FP64 matrix with 1.0 at each (rows[k], cols[k]); the pairs hold no duplicates. */   \
  int side##_load(uint64_t n, uint64_t nedges, const uint64_t *rows, const uint64_t *cols);          \
  /* Runs one algorithm to completion (its result object is waited on) and keeps the result. */        \
  int side##_run(graph_algorithm algorithm, uint64_t source);                                          \
  int side##_fetch(graph_algorithm algorithm, graph_result *out);                                      \
  void side##_release(void);
GRAPH_SIDE_DECLARE(snack)
GRAPH_SIDE_DECLARE(suitesparse)

/* snack only (defined in the snack side's build of algorithms.c): choose the backend (NULL keeps
 * $SNACK_BACKEND's), its name, and the number of calls that it declined since the last reset, with the
 * operations that fell back written to detail ("apply 2, assign 1"). */
int snack_backend_select(const char *name, char *chosen, int chosen_size);
void snack_fallbacks_reset(void);
uint64_t snack_fallbacks(const char *backend, char *detail, int detail_size);

#ifdef __cplusplus
}
#endif
#endif
