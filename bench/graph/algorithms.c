/* bench/graph/algorithms.c: the six graph algorithms of the benchmark, written once in standard GraphBLAS C
 * calls (specification 2.0 only: no GxB_, no SNK_ inside an algorithm), and the side interface of side.h
 * around them. The file is compiled twice: with GRAPH_SIDE=snack against snack's GraphBLAS.h (SNACK_C_API,
 * symbols snk_GrB_...) and with GRAPH_SIDE=suitesparse against SuiteSparse's own header and libgraphblas,
 * so both libraries run the very same source in one process; ALG(name) gives each exported name its side's
 * prefix. Rules every algorithm keeps: A is the symmetric n x n adjacency matrix with FP64 1.0 per edge and
 * no self-loops; other domains (BOOL frontier, INT64 labels and counts) are reached by the libraries' own
 * typecasts; a result is waited on (GrB_*_nvals or a reduce to a C scalar) before the function returns,
 * so that a library with deferred or device work has finished it inside the timed call. */
#include <GraphBLAS.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "side.h"

#ifndef GRAPH_SIDE
#error "compile with GRAPH_SIDE=snack or GRAPH_SIDE=suitesparse"
#endif
#define ALG_CAT2(a, b) a##_##b
#define ALG_CAT(a, b) ALG_CAT2(a, b)
#define ALG(name) ALG_CAT(GRAPH_SIDE, name)

/* On error, return the GrB_Info (the objects made so far are not freed: the driver stops on an error). */
#define TRY(call)                                   \
  do {                                              \
    GrB_Info info_ = (call);                        \
    if (info_ != GrB_SUCCESS) return (int)info_;    \
  } while (0)

/* A BFS step pulls (mxv: a dot product per unvisited vertex; A = A' makes A q the same as q A) once the
 * frontier holds more than 1/BFS_PULL_SHARE of the unvisited vertices, and pushes (vxm from the frontier's
 * rows) otherwise. */
#define BFS_PULL_SHARE 8

/* level(v) = number of edges on a shortest path from source to v; no entry where v is unreachable.
 * Frontier q is BOOL; next q<!struct(level), replace> = q LOR.LAND A. */
int ALG(bfs_levels)(GrB_Vector *level_out, GrB_Matrix A, GrB_Index source) {
  GrB_Index n, nq = 1, visited = 0;
  GrB_Vector level = NULL, q = NULL;
  TRY(GrB_Matrix_nrows(&n, A));
  TRY(GrB_Vector_new(&level, GrB_INT64, n));
  TRY(GrB_Vector_new(&q, GrB_BOOL, n));
  TRY(GrB_Vector_setElement_BOOL(q, true, source));
  for (int64_t depth = 0; nq > 0; ++depth) {
    TRY(GrB_Vector_assign_INT64(level, q, NULL, depth, GrB_ALL, n, GrB_DESC_S));
    visited += nq;
    if (nq * BFS_PULL_SHARE > n - visited)
      TRY(GrB_mxv(q, level, NULL, GrB_LOR_LAND_SEMIRING_BOOL, A, q, GrB_DESC_RSC));
    else
      TRY(GrB_vxm(q, level, NULL, GrB_LOR_LAND_SEMIRING_BOOL, q, A, GrB_DESC_RSC));
    TRY(GrB_Vector_nvals(&nq, q));
  }
  TRY(GrB_Vector_free(&q));
  *level_out = level;
  return 0;
}

/* parent(v) = the smallest-numbered vertex of the previous BFS level adjacent to v (parent(source) =
 * source); no entry where v is unreachable. Each step gives the frontier its own indices (GrB_ROWINDEX),
 * then q<!struct(parent), replace> = q MIN.FIRST A (push) or A MIN.SECOND q (pull), and parent<q> = q. */
int ALG(bfs_parents)(GrB_Vector *parent_out, GrB_Matrix A, GrB_Index source) {
  GrB_Index n, nq = 1, visited = 0;
  GrB_Vector parent = NULL, q = NULL;
  TRY(GrB_Matrix_nrows(&n, A));
  TRY(GrB_Vector_new(&parent, GrB_INT64, n));
  TRY(GrB_Vector_new(&q, GrB_INT64, n));
  TRY(GrB_Vector_setElement_INT64(q, (int64_t)source, source));
  TRY(GrB_Vector_setElement_INT64(parent, (int64_t)source, source));
  while (nq > 0) {
    visited += nq;
    TRY(GrB_Vector_apply_IndexOp_INT64(q, NULL, NULL, GrB_ROWINDEX_INT64, q, 0, NULL));
    if (nq * BFS_PULL_SHARE > n - visited)
      TRY(GrB_mxv(q, parent, NULL, GrB_MIN_SECOND_SEMIRING_INT64, A, q, GrB_DESC_RSC));
    else
      TRY(GrB_vxm(q, parent, NULL, GrB_MIN_FIRST_SEMIRING_INT64, q, A, GrB_DESC_RSC));
    TRY(GrB_Vector_assign(parent, q, NULL, q, GrB_ALL, n, GrB_DESC_S));
    TRY(GrB_Vector_nvals(&nq, q));
  }
  TRY(GrB_Vector_free(&q));
  TRY(GrB_Vector_nvals(&nq, parent));
  *parent_out = parent;
  return 0;
}

/* PageRank by power iteration, exactly `iterations` steps from r = 1/n:
 *   r' = (1 - damping) / n + damping * (dangling / n + sum over edges (i,j) of r(i) / outdegree(i)),
 * where dangling is the rank held by vertices without out-edges (spread over all vertices, so sum r = 1). */
int ALG(pagerank)(GrB_Vector *rank_out, GrB_Matrix A, int iterations, double damping) {
  GrB_Index n, nv;
  GrB_Vector outdeg = NULL, inv = NULL, dangling = NULL, r = NULL, w = NULL, t = NULL;
  TRY(GrB_Matrix_nrows(&n, A));
  GrB_Vector *vectors[] = {&outdeg, &inv, &dangling, &r, &w, &t};
  for (int k = 0; k < 6; ++k) TRY(GrB_Vector_new(vectors[k], GrB_FP64, n));
  TRY(GrB_Matrix_reduce_Monoid(outdeg, NULL, NULL, GrB_PLUS_MONOID_FP64, A, NULL)); /* A's values are 1 */
  TRY(GrB_Vector_apply(inv, NULL, NULL, GrB_MINV_FP64, outdeg, NULL));
  TRY(GrB_Vector_assign_FP64(dangling, outdeg, NULL, 1.0, GrB_ALL, n, GrB_DESC_SC));
  TRY(GrB_Vector_assign_FP64(r, NULL, NULL, 1.0 / (double)n, GrB_ALL, n, NULL));
  for (int it = 0; it < iterations; ++it) {
    double dangling_rank = 0;
    TRY(GrB_Vector_eWiseMult_BinaryOp(t, NULL, NULL, GrB_TIMES_FP64, r, dangling, NULL));
    TRY(GrB_Vector_reduce_FP64(&dangling_rank, NULL, GrB_PLUS_MONOID_FP64, t, NULL));
    TRY(GrB_Vector_eWiseMult_BinaryOp(w, NULL, NULL, GrB_TIMES_FP64, r, inv, NULL));
    TRY(GrB_vxm(t, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, w, A, NULL));
    double base = (1.0 - damping) / (double)n + damping * dangling_rank / (double)n;
    TRY(GrB_Vector_assign_FP64(r, NULL, NULL, base, GrB_ALL, n, NULL));
    TRY(GrB_Vector_apply_BinaryOp1st_FP64(r, NULL, GrB_PLUS_FP64, GrB_TIMES_FP64, damping, t, NULL));
  }
  for (int k = 0; k < 6; ++k)
    if (vectors[k] != &r) TRY(GrB_Vector_free(vectors[k]));
  TRY(GrB_Vector_nvals(&nv, r));
  *rank_out = r;
  return 0;
}

/* Number of triangles: L = tril(A, -1) as INT64 ones; C<L, struct> = L L' (PLUS_TIMES, the dot-product
 * form: each triangle i > j > k is counted once, at C(i, j)); the count is the PLUS reduction of C. */
int ALG(triangles)(uint64_t *count, GrB_Matrix A) {
  GrB_Index n;
  GrB_Matrix L = NULL, C = NULL;
  int64_t total = 0;
  TRY(GrB_Matrix_nrows(&n, A));
  TRY(GrB_Matrix_new(&L, GrB_INT64, n, n));
  TRY(GrB_Matrix_new(&C, GrB_INT64, n, n));
  TRY(GrB_Matrix_select_INT64(L, NULL, NULL, GrB_TRIL, A, -1, NULL));
  TRY(GrB_mxm(C, L, NULL, GrB_PLUS_TIMES_SEMIRING_INT64, L, L, GrB_DESC_ST1));
  TRY(GrB_Matrix_reduce_INT64(&total, NULL, GrB_PLUS_MONOID_INT64, C, NULL));
  TRY(GrB_Matrix_free(&L));
  TRY(GrB_Matrix_free(&C));
  *count = (uint64_t)total;
  return 0;
}

/* Connected components by label propagation: label(v) starts as v, then label = min(label, A MIN.SECOND
 * label) until no label changes; each label ends as the smallest vertex of its component. Labels only
 * decrease, so "no change" is "the sum of the labels did not drop". */
int ALG(components)(GrB_Vector *label_out, GrB_Matrix A) {
  GrB_Index n, nv;
  GrB_Vector label = NULL;
  TRY(GrB_Matrix_nrows(&n, A));
  TRY(GrB_Vector_new(&label, GrB_INT64, n));
  TRY(GrB_Vector_assign_INT64(label, NULL, NULL, 0, GrB_ALL, n, NULL));
  TRY(GrB_Vector_apply_IndexOp_INT64(label, NULL, NULL, GrB_ROWINDEX_INT64, label, 0, NULL));
  int64_t sum = 0, previous = 0;
  TRY(GrB_Vector_reduce_INT64(&previous, NULL, GrB_PLUS_MONOID_INT64, label, NULL));
  for (;;) {
    TRY(GrB_mxv(label, NULL, GrB_MIN_INT64, GrB_MIN_SECOND_SEMIRING_INT64, A, label, NULL));
    TRY(GrB_Vector_reduce_INT64(&sum, NULL, GrB_PLUS_MONOID_INT64, label, NULL));
    if (sum == previous) break;
    previous = sum;
  }
  TRY(GrB_Vector_nvals(&nv, label));
  *label_out = label;
  return 0;
}

/* C = A A with PLUS_TIMES over FP64 (C(i, j) = number of 2-step walks from i to j). */
int ALG(spgemm)(GrB_Matrix *C_out, GrB_Matrix A) {
  GrB_Index n, nv;
  GrB_Matrix C = NULL;
  TRY(GrB_Matrix_nrows(&n, A));
  TRY(GrB_Matrix_new(&C, GrB_FP64, n, n));
  TRY(GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, NULL));
  TRY(GrB_Matrix_nvals(&nv, C));
  *C_out = C;
  return 0;
}

/* ---- the side interface (side.h) ------------------------------------------------------------------- */

static GrB_Matrix graph, matrix_result;
static GrB_Vector vector_result;
static uint64_t scalar_result;

static void free_results(void) {
  if (vector_result) GrB_Vector_free(&vector_result);
  if (matrix_result) GrB_Matrix_free(&matrix_result);
}

int ALG(init)(void) {
  GrB_Info info = GrB_init(GrB_NONBLOCKING);
  /* GrB_INVALID_VALUE: already initialized (snack's reference backend runs on the same libgraphblas). */
  return info == GrB_SUCCESS || info == GrB_INVALID_VALUE ? 0 : (int)info;
}

int ALG(load)(uint64_t n, uint64_t nedges, const uint64_t *rows, const uint64_t *cols) {
  GrB_Index nv;
  double *ones = malloc((nedges ? nedges : 1) * sizeof(double));
  if (!ones) return (int)GrB_OUT_OF_MEMORY;
  for (uint64_t k = 0; k < nedges; ++k) ones[k] = 1.0;
  ALG(release)();
  TRY(GrB_Matrix_new(&graph, GrB_FP64, n, n));
  GrB_Info info = GrB_Matrix_build_FP64(graph, rows, cols, ones, nedges, GrB_PLUS_FP64);
  free(ones);
  TRY(info);
  TRY(GrB_Matrix_wait(graph, GrB_MATERIALIZE));
  TRY(GrB_Matrix_nvals(&nv, graph));
  return nv == nedges ? 0 : (int)GrB_INVALID_VALUE;
}

int ALG(run)(graph_algorithm algorithm, uint64_t source) {
  free_results();
  switch (algorithm) {
    case GRAPH_BFS_LEVELS: return ALG(bfs_levels)(&vector_result, graph, source);
    case GRAPH_BFS_PARENTS: return ALG(bfs_parents)(&vector_result, graph, source);
    case GRAPH_PAGERANK: return ALG(pagerank)(&vector_result, graph, 20, 0.85);
    case GRAPH_TRIANGLES: return ALG(triangles)(&scalar_result, graph);
    case GRAPH_COMPONENTS: return ALG(components)(&vector_result, graph);
    case GRAPH_SPGEMM: return ALG(spgemm)(&matrix_result, graph);
    default: return (int)GrB_INVALID_VALUE;
  }
}

int ALG(fetch)(graph_algorithm algorithm, graph_result *out) {
  GrB_Index n, nv;
  *out = (graph_result){0};
  TRY(GrB_Matrix_nrows(&n, graph));
  if (algorithm == GRAPH_TRIANGLES) {
    out->count = scalar_result;
  } else if (algorithm == GRAPH_SPGEMM) {
    TRY(GrB_Matrix_nvals(&nv, matrix_result));
    out->count = nv;
    out->ci = malloc((nv + 1) * sizeof(uint64_t));
    out->cj = malloc((nv + 1) * sizeof(uint64_t));
    out->cx = malloc((nv + 1) * sizeof(double));
    if (!out->ci || !out->cj || !out->cx) return (int)GrB_OUT_OF_MEMORY;
    TRY(GrB_Matrix_extractTuples_FP64(out->ci, out->cj, out->cx, &nv, matrix_result));
  } else {
    TRY(GrB_Vector_nvals(&nv, vector_result));
    GrB_Index *I = malloc((nv + 1) * sizeof(GrB_Index));
    if (algorithm == GRAPH_PAGERANK) {
      double *X = malloc((nv + 1) * sizeof(double));
      out->dvec = malloc(n * sizeof(double));
      if (!I || !X || !out->dvec) return (int)GrB_OUT_OF_MEMORY;
      TRY(GrB_Vector_extractTuples_FP64(I, X, &nv, vector_result));
      for (GrB_Index v = 0; v < n; ++v) out->dvec[v] = NAN;
      for (GrB_Index k = 0; k < nv; ++k) out->dvec[I[k]] = X[k];
      free(X);
    } else {
      int64_t *X = malloc((nv + 1) * sizeof(int64_t));
      out->ivec = malloc(n * sizeof(int64_t));
      if (!I || !X || !out->ivec) return (int)GrB_OUT_OF_MEMORY;
      TRY(GrB_Vector_extractTuples_INT64(I, X, &nv, vector_result));
      for (GrB_Index v = 0; v < n; ++v) out->ivec[v] = -1;
      for (GrB_Index k = 0; k < nv; ++k) out->ivec[I[k]] = X[k];
      free(X);
    }
    free(I);
  }
  return 0;
}

void ALG(release)(void) {
  free_results();
  if (graph) GrB_Matrix_free(&graph);
}

#ifdef SNACK_C_API
/* snack's own extensions, for the driver's header and fallback column (not used by the algorithms). */
int snack_backend_select(const char *name, char *chosen, int chosen_size) {
  if (name && SNK_Backend_set(name) != GrB_SUCCESS) return (int)GrB_INVALID_VALUE;
  return (int)SNK_Backend_get(chosen, (size_t)chosen_size);
}
void snack_fallbacks_reset(void) { SNK_Fallback_reset(); }
uint64_t snack_fallbacks(const char *backend, char *detail, int detail_size) {
  static const char *const ops[] = {"mxm",    "ewise_add", "ewise_mult", "apply",     "assign", "select",
                                    "reduce", "extract",   "transpose",  "kronecker", "build"};
  uint64_t total = 0, count;
  int used = 0;
  SNK_Fallback_total(backend, &total);
  detail[0] = '\0';
  for (size_t k = 0; k < sizeof ops / sizeof ops[0] && used < detail_size; ++k)
    if (SNK_Fallback_count(backend, ops[k], &count) == GrB_SUCCESS && count > 0)
      used += snprintf(detail + used, (size_t)(detail_size - used), "%s%s %llu", used ? ", " : "", ops[k],
                       (unsigned long long)count);
  return total;
}
#endif
