/* examples/spdnn.c: sparse deep neural network inference in the style of the SpDNN GraphChallenge:
 * Y(l+1) = min(ReLU(Y(l) W(l) + b), 32) over LAYERS layers, then the categories (the inputs with any
 * non-zero output). The network is generated from a seed: NEURONS neurons, CONNECTIONS non-zeros per
 * column of each W with values in {-1/4, 1/4, 1/2, 3/4}, bias -1/4, and BATCH sparse binary inputs. Every
 * value is a multiple of a power of two small enough that FP64 sums are exact in any order, so any correct
 * GraphBLAS gives identical output. Prints "categories N", the category rows, and "row sum" per category.
 * Usage: spdnn [NEURONS LAYERS CONNECTIONS BATCH SEED] (default 1024 12 16 256 1). Standard GraphBLAS only. */
#include "graph_common.h"

int main(int argc, char **argv) {
  const GrB_Index neurons = argc > 1 ? strtoull(argv[1], NULL, 10) : 1024;
  const int layers = argc > 2 ? atoi(argv[2]) : 12;
  const GrB_Index connections = argc > 3 ? strtoull(argv[3], NULL, 10) : 16;
  const GrB_Index batch = argc > 4 ? strtoull(argv[4], NULL, 10) : 256;
  xorshift_state = (argc > 5 ? strtoull(argv[5], NULL, 10) : 1) * 0x9E3779B97F4A7C15ull + 7;
  TRY(GrB_init(GrB_NONBLOCKING));

  const GrB_Index nw = neurons * connections;
  GrB_Index *I = malloc(nw * sizeof(GrB_Index)), *J = malloc(nw * sizeof(GrB_Index));
  double *X = malloc(nw * sizeof(double));
  const double values[4] = {-0.25, 0.25, 0.5, 0.75};
  GrB_Matrix *W = malloc((size_t)layers * sizeof(GrB_Matrix));
  for (int l = 0; l < layers; ++l) {
    for (GrB_Index j = 0, e = 0; j < neurons; ++j) {
      for (GrB_Index c = 0; c < connections; ++c, ++e) {
        I[e] = xorshift64() % neurons;
        J[e] = j;
        X[e] = values[xorshift64() % 4];
      }
    }
    TRY(GrB_Matrix_new(&W[l], GrB_FP64, neurons, neurons));
    TRY(GrB_Matrix_build_FP64(W[l], I, J, X, nw, GrB_SECOND_FP64));
  }
  /* inputs: each row has neurons/8 random ones */
  const GrB_Index ny = batch * (neurons / 8);
  GrB_Index *YI = malloc(ny * sizeof(GrB_Index)), *YJ = malloc(ny * sizeof(GrB_Index));
  double *YX = malloc(ny * sizeof(double));
  for (GrB_Index e = 0; e < ny; ++e) {
    YI[e] = e / (neurons / 8);
    YJ[e] = xorshift64() % neurons;
    YX[e] = 1;
  }
  GrB_Matrix Y, Z;
  TRY(GrB_Matrix_new(&Y, GrB_FP64, batch, neurons));
  TRY(GrB_Matrix_new(&Z, GrB_FP64, batch, neurons));
  TRY(GrB_Matrix_build_FP64(Y, YI, YJ, YX, ny, GrB_SECOND_FP64));
  for (int l = 0; l < layers; ++l) {
    TRY(GrB_mxm(Z, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, Y, W[l], NULL));
    TRY(GrB_Matrix_apply_BinaryOp2nd_FP64(Z, NULL, NULL, GrB_PLUS_FP64, Z, -0.25, NULL));
    TRY(GrB_Matrix_select_FP64(Y, NULL, NULL, GrB_VALUEGT_FP64, Z, 0.0, NULL));
    TRY(GrB_Matrix_apply_BinaryOp2nd_FP64(Y, NULL, NULL, GrB_MIN_FP64, Y, 32.0, NULL));
  }
  GrB_Vector rowsum;
  TRY(GrB_Vector_new(&rowsum, GrB_FP64, batch));
  TRY(GrB_Matrix_reduce_Monoid(rowsum, NULL, NULL, GrB_PLUS_MONOID_FP64, Y, NULL));
  GrB_Index ncat = batch;
  GrB_Index *cat = malloc((batch + 1) * sizeof(GrB_Index));
  double *sums = malloc((batch + 1) * sizeof(double));
  TRY(GrB_Vector_extractTuples_FP64(cat, sums, &ncat, rowsum));
  printf("categories %llu\n", (unsigned long long)ncat);
  for (GrB_Index k = 0; k < ncat; ++k) printf("%llu %.17g\n", (unsigned long long)cat[k], sums[k]);
  for (int l = 0; l < layers; ++l) GrB_Matrix_free(&W[l]);
  GrB_Matrix_free(&Y);
  GrB_Matrix_free(&Z);
  GrB_Vector_free(&rowsum);
  free(W), free(I), free(J), free(X), free(YI), free(YJ), free(YX), free(cat), free(sums);
  GrB_finalize();
  return 0;
}
