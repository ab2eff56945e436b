/* examples/graph_common.h: what the example programs share: a deterministic R-MAT graph generator, a small
 * MatrixMarket reader and writer, and the command line every example accepts. Written with standard
 * GraphBLAS C API calls only (no extensions), so that the examples build against any spec 2.0 GraphBLAS:
 *   <example> --rmat SCALE EDGEFACTOR SEED [--write-mtx FILE]   an R-MAT graph made in memory
 *   <example> FILE.mtx                                          a MatrixMarket graph
 * R-MAT uses the Graph500 parameters (a=.57, b=.19, c=.19) and a xorshift generator seeded by SEED, so the
 * same arguments give the same graph everywhere. Graphs are loaded as FP64 adjacency matrices with every
 * value 1; `symmetric` adds the transpose and drops self-loops (undirected algorithms). */
#ifndef SNACK_EXAMPLES_GRAPH_COMMON_H
#define SNACK_EXAMPLES_GRAPH_COMMON_H

#include <GraphBLAS.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call)                                                                   \
  do {                                                                              \
    GrB_Info info_ = (call);                                                        \
    if (info_ != GrB_SUCCESS && info_ != GrB_NO_VALUE) {                            \
      fprintf(stderr, "%s:%d: %s failed with GrB_Info %d\n", __FILE__, __LINE__, #call, (int)info_); \
      exit(2);                                                                      \
    }                                                                               \
  } while (0)

static uint64_t xorshift_state;
static inline uint64_t xorshift64(void) {
  uint64_t x = xorshift_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return xorshift_state = x;
}
static inline double uniform01(void) { return (double)(xorshift64() >> 11) / 9007199254740992.0; }

/* n = 2^scale vertices, edgefactor * n directed edges (duplicates merged). */
static inline GrB_Matrix rmat_graph(int scale, int edgefactor, uint64_t seed) {
  const GrB_Index n = (GrB_Index)1 << scale, m = (GrB_Index)edgefactor * n;
  GrB_Index *I = malloc(m * sizeof(GrB_Index)), *J = malloc(m * sizeof(GrB_Index));
  double *X = malloc(m * sizeof(double));
  xorshift_state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (GrB_Index e = 0; e < m; ++e) {
    GrB_Index i = 0, j = 0;
    for (int level = 0; level < scale; ++level) {
      const double r = uniform01();
      const int quadrant = r < 0.57 ? 0 : r < 0.76 ? 1 : r < 0.95 ? 2 : 3;
      i = 2 * i + (quadrant >= 2);
      j = 2 * j + (quadrant & 1);
    }
    I[e] = i;
    J[e] = j;
    X[e] = 1;
  }
  GrB_Matrix A;
  TRY(GrB_Matrix_new(&A, GrB_FP64, n, n));
  TRY(GrB_Matrix_build_FP64(A, I, J, X, m, GrB_SECOND_FP64));
  free(I);
  free(J);
  free(X);
  return A;
}

static inline void write_mtx(GrB_Matrix A, const char *path) {
  GrB_Index n, nvals;
  TRY(GrB_Matrix_nrows(&n, A));
  TRY(GrB_Matrix_nvals(&nvals, A));
  GrB_Index *I = malloc((nvals + 1) * sizeof(GrB_Index)), *J = malloc((nvals + 1) * sizeof(GrB_Index));
  TRY(GrB_Matrix_extractTuples_FP64(I, J, NULL, &nvals, A));
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(2);
  }
  fprintf(f, "%%%%MatrixMarket matrix coordinate pattern general\n%llu %llu %llu\n", (unsigned long long)n,
          (unsigned long long)n, (unsigned long long)nvals);
  for (GrB_Index k = 0; k < nvals; ++k) fprintf(f, "%llu %llu\n", (unsigned long long)I[k] + 1, (unsigned long long)J[k] + 1);
  fclose(f);
  free(I);
  free(J);
}

/* Reads a "matrix coordinate" MatrixMarket file (pattern, integer or real; general or symmetric); every
 * entry becomes 1. */
static inline GrB_Matrix read_mtx(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    perror(path);
    exit(2);
  }
  char line[1024], format[64] = "", field[64] = "", symmetry[64] = "";
  if (!fgets(line, sizeof line, f) || sscanf(line, "%%%%MatrixMarket matrix %63s %63s %63s", format, field, symmetry) != 3 ||
      strcmp(format, "coordinate") != 0) {
    fprintf(stderr, "%s: not a MatrixMarket coordinate matrix\n", path);
    exit(2);
  }
  const int symmetric = strcmp(symmetry, "symmetric") == 0;
  unsigned long long nr = 0, nc = 0, nz = 0;
  while (fgets(line, sizeof line, f) && line[0] == '%') {
  }
  if (sscanf(line, "%llu %llu %llu", &nr, &nc, &nz) != 3 || nr != nc) {
    fprintf(stderr, "%s: bad size line (the matrix must be square)\n", path);
    exit(2);
  }
  GrB_Index *I = malloc((2 * nz + 1) * sizeof(GrB_Index)), *J = malloc((2 * nz + 1) * sizeof(GrB_Index));
  double *X = malloc((2 * nz + 1) * sizeof(double));
  GrB_Index m = 0;
  for (unsigned long long k = 0; k < nz; ++k) {
    unsigned long long i, j;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%llu %llu", &i, &j) != 2 || i < 1 || j < 1 || i > nr || j > nc) {
      fprintf(stderr, "%s: bad entry %llu\n", path, k + 1);
      exit(2);
    }
    I[m] = i - 1, J[m] = j - 1, X[m++] = 1;
    if (symmetric && i != j) I[m] = j - 1, J[m] = i - 1, X[m++] = 1;
  }
  fclose(f);
  GrB_Matrix A;
  TRY(GrB_Matrix_new(&A, GrB_FP64, nr, nc));
  TRY(GrB_Matrix_build_FP64(A, I, J, X, m, GrB_SECOND_FP64));
  free(I);
  free(J);
  free(X);
  return A;
}

/* The graph named by the command line (see the top of this file). */
static inline GrB_Matrix load_graph(int argc, char **argv, int symmetric) {
  GrB_Matrix A = NULL;
  if (argc >= 5 && strcmp(argv[1], "--rmat") == 0) {
    A = rmat_graph(atoi(argv[2]), atoi(argv[3]), strtoull(argv[4], NULL, 10));
    if (argc >= 7 && strcmp(argv[5], "--write-mtx") == 0) write_mtx(A, argv[6]);
  } else if (argc >= 2) {
    A = read_mtx(argv[1]);
  } else {
    fprintf(stderr, "usage: %s --rmat SCALE EDGEFACTOR SEED [--write-mtx FILE] | FILE.mtx\n", argv[0]);
    exit(2);
  }
  if (symmetric) {
    GrB_Index n;
    TRY(GrB_Matrix_nrows(&n, A));
    GrB_Matrix S;
    TRY(GrB_Matrix_new(&S, GrB_FP64, n, n));
    TRY(GrB_Matrix_eWiseAdd_BinaryOp(S, NULL, NULL, GrB_SECOND_FP64, A, A, GrB_DESC_T1));
    TRY(GrB_Matrix_select_INT64(S, NULL, NULL, GrB_OFFDIAG, S, 0, NULL));
    GrB_Matrix_free(&A);
    A = S;
  }
  return A;
}

#endif
