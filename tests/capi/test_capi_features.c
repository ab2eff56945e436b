/* tests/capi/test_capi_features.c: the C API's features, as a C11 program (so that the _Generic polymorphic
 * names are compiled as users compile them): every polymorphic name, import/export in the three formats,
 * serialize/deserialize, the MatrixMarket reader, user-defined types and operators, GrB_Scalar semantics of
 * spec 2.0 (an empty scalar deletes), GrB_Matrix_diag / resize / removeElement, descriptors, and the SNK_
 * extensions. Runs in non-blocking mode, or in blocking mode with the argument "blocking". Prints one line
 * per failed check and exits non-zero if there was any. */
#include <GraphBLAS.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0, checks = 0;
#define CHECK(cond)                                                              \
  do {                                                                           \
    ++checks;                                                                    \
    if (!(cond)) {                                                               \
      const char *m_ = "";                                                       \
      SNK_last_error(&m_);                                                       \
      printf("%s:%d: FAILED: %s (last error: %s)\n", __FILE__, __LINE__, #cond, m_); \
      ++failures;                                                                \
    }                                                                            \
  } while (0)
#define OK(call) CHECK((call) == GrB_SUCCESS)

/* A 4x4 FP64 matrix: a directed 4-cycle with weights 1..4 plus A(0,0) = 10. */
static GrB_Matrix cycle(void) {
  GrB_Matrix A = NULL;
  const GrB_Index I[] = {0, 1, 2, 3, 0}, J[] = {1, 2, 3, 0, 0};
  const double X[] = {1, 2, 3, 4, 10};
  OK(GrB_Matrix_new(&A, GrB_FP64, 4, 4));
  OK(GrB_Matrix_build(A, I, J, X, 5, NULL));
  return A;
}

static double get(GrB_Matrix A, GrB_Index i, GrB_Index j) {
  double x = NAN;
  GrB_Matrix_extractElement(&x, A, i, j);
  return x;
}

static GrB_Index nvals(GrB_Matrix A) {
  GrB_Index n = 0;
  OK(GrB_Matrix_nvals(&n, A));
  return n;
}

typedef struct {
  double re, im;
} complex_t;
static void complex_add(void *z, const void *x, const void *y) {
  const complex_t *a = x, *b = y;
  complex_t r = {a->re + b->re, a->im + b->im};
  *(complex_t *)z = r;
}
static void complex_mul(void *z, const void *x, const void *y) {
  const complex_t *a = x, *b = y;
  complex_t r = {a->re * b->re - a->im * b->im, a->re * b->im + a->im * b->re};
  *(complex_t *)z = r;
}
static void square(void *z, const void *x) { *(double *)z = *(const double *)x * *(const double *)x; }
static void above_thunk(void *z, const void *x, GrB_Index i, GrB_Index j, const void *y) {
  (void)i;
  (void)j;
  *(bool *)z = *(const double *)x > *(const double *)y;
}

static void test_polymorphic_names(void) {
  GrB_Matrix A = cycle(), C = NULL;
  GrB_Vector u = NULL, w = NULL;
  GrB_Scalar s = NULL;
  OK(GrB_Matrix_new(&C, GrB_FP64, 4, 4));
  OK(GrB_Vector_new(&u, GrB_FP64, 4));
  OK(GrB_Vector_new(&w, GrB_FP64, 4));
  OK(GrB_Scalar_new(&s, GrB_FP64));

  /* setElement / extractElement on all three containers, value and GrB_Scalar forms. */
  OK(GrB_Scalar_setElement(s, 2.5));
  double x = 0;
  OK(GrB_Scalar_extractElement(&x, s));
  CHECK(x == 2.5);
  OK(GrB_Vector_setElement(u, 1.0, 0));
  OK(GrB_Vector_setElement(u, (int32_t)2, 1));
  OK(GrB_Vector_setElement(u, s, 3));
  OK(GrB_Vector_extractElement(&x, u, 3));
  CHECK(x == 2.5);
  int64_t k = 0;
  OK(GrB_Vector_extractElement(&k, u, 1));
  CHECK(k == 2);
  CHECK(GrB_Vector_extractElement(&x, u, 2) == GrB_NO_VALUE);
  OK(GrB_Matrix_setElement(C, (float)1.5, 1, 1));
  OK(GrB_Matrix_extractElement(s, C, 1, 1));
  OK(GrB_Scalar_extractElement(&x, s));
  CHECK(x == 1.5);
  OK(GrB_Matrix_extractElement(s, C, 2, 2)); /* absent: the scalar becomes empty */
  GrB_Index n = 9;
  OK(GrB_Scalar_nvals(&n, s));
  CHECK(n == 0);
  OK(GrB_Matrix_setElement(C, s, 1, 1)); /* an empty scalar deletes the entry */
  CHECK(nvals(C) == 0);

  /* mxm / mxv / vxm, eWiseAdd / eWiseMult in their three forms, kronecker. */
  OK(GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, NULL));
  CHECK(get(C, 0, 2) == 2 && get(C, 0, 0) == 100 && get(C, 3, 1) == 4 && get(C, 3, 0) == 40);
  OK(GrB_mxv(w, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, u, NULL));
  OK(GrB_Vector_extractElement(&x, w, 0));
  CHECK(x == 10 * 1 + 1 * 2);
  OK(GrB_vxm(w, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, u, A, NULL));
  OK(GrB_Vector_extractElement(&x, w, 1));
  CHECK(x == 1);
  OK(GrB_eWiseAdd(C, NULL, NULL, GrB_PLUS_FP64, A, A, NULL));
  CHECK(get(C, 0, 0) == 20);
  OK(GrB_eWiseAdd(C, NULL, NULL, GrB_MAX_MONOID_FP64, A, A, NULL));
  CHECK(get(C, 0, 0) == 10);
  OK(GrB_eWiseAdd(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, NULL)); /* the additive monoid */
  CHECK(get(C, 0, 0) == 20);
  OK(GrB_eWiseMult(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, NULL)); /* the multiplier */
  CHECK(get(C, 0, 0) == 100);
  OK(GrB_eWiseMult(C, NULL, NULL, GrB_PLUS_MONOID_FP64, A, A, NULL));
  CHECK(get(C, 0, 0) == 20);
  OK(GrB_eWiseMult(w, NULL, NULL, GrB_TIMES_FP64, u, u, NULL));
  OK(GrB_Vector_extractElement(&x, w, 3));
  CHECK(x == 6.25);
  GrB_Matrix K = NULL;
  OK(GrB_Matrix_new(&K, GrB_FP64, 16, 16));
  OK(GrB_kronecker(K, NULL, NULL, GrB_TIMES_FP64, A, A, NULL));
  CHECK(nvals(K) == 25 && get(K, 0, 0) == 100);
  OK(GrB_kronecker(K, NULL, NULL, GrB_PLUS_MONOID_FP64, A, A, NULL));
  CHECK(get(K, 0, 0) == 20);
  OK(GrB_kronecker(K, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, NULL));
  CHECK(get(K, 0, 0) == 100);

  /* apply: unary, bound first / second (value and GrB_Scalar), index-unary. */
  OK(GrB_apply(C, NULL, NULL, GrB_AINV_FP64, A, NULL));
  CHECK(get(C, 0, 1) == -1);
  OK(GrB_apply(C, NULL, NULL, GrB_MINUS_FP64, 100.0, A, NULL));
  CHECK(get(C, 0, 0) == 90);
  OK(GrB_apply(C, NULL, NULL, GrB_MINUS_FP64, A, 1.0, NULL));
  CHECK(get(C, 0, 0) == 9);
  OK(GrB_Scalar_setElement(s, 3.0));
  OK(GrB_apply(C, NULL, NULL, GrB_TIMES_FP64, s, A, NULL));
  CHECK(get(C, 1, 2) == 6);
  OK(GrB_apply(C, NULL, NULL, GrB_DIV_FP64, A, s, NULL));
  CHECK(get(C, 3, 0) == 4.0 / 3.0);
  GrB_Matrix R = NULL;
  OK(GrB_Matrix_new(&R, GrB_INT64, 4, 4));
  OK(GrB_apply(R, NULL, NULL, GrB_ROWINDEX_INT64, A, (int64_t)100, NULL));
  int64_t r = 0;
  OK(GrB_Matrix_extractElement(&r, R, 3, 0));
  CHECK(r == 103);
  OK(GrB_apply(w, NULL, NULL, GrB_AINV_FP64, u, NULL));
  OK(GrB_apply(w, NULL, NULL, GrB_PLUS_FP64, u, 1.0, NULL));
  OK(GrB_Vector_extractElement(&x, w, 0));
  CHECK(x == 2);
  OK(GrB_apply(w, NULL, NULL, GrB_PLUS_FP64, 1.0, u, NULL));

  /* select, value and scalar thunks. */
  OK(GrB_select(C, NULL, NULL, GrB_TRIL, A, (int64_t)0, NULL));
  CHECK(nvals(C) == 2);
  OK(GrB_select(C, NULL, NULL, GrB_VALUEGT_FP64, A, 2.0, NULL));
  CHECK(nvals(C) == 3);
  OK(GrB_select(C, NULL, NULL, GrB_VALUEGT_FP64, A, s, NULL));
  CHECK(nvals(C) == 2);
  OK(GrB_select(w, NULL, NULL, GrB_VALUEGE_FP64, u, 2.0, NULL));
  OK(GrB_Vector_nvals(&n, w));
  CHECK(n == 2);

  /* reduce to a vector (monoid, binary op), to a GrB_Scalar, to a C value with an accumulator. */
  OK(GrB_reduce(w, NULL, NULL, GrB_PLUS_MONOID_FP64, A, NULL));
  OK(GrB_Vector_extractElement(&x, w, 0));
  CHECK(x == 11);
  OK(GrB_reduce(w, NULL, NULL, GrB_MAX_FP64, A, NULL));
  OK(GrB_Vector_extractElement(&x, w, 0));
  CHECK(x == 10);
  OK(GrB_reduce(s, NULL, GrB_PLUS_MONOID_FP64, A, NULL));
  OK(GrB_Scalar_extractElement(&x, s));
  CHECK(x == 20);
  OK(GrB_reduce(s, NULL, GrB_MAX_FP64, u, NULL));
  OK(GrB_Scalar_extractElement(&x, s));
  CHECK(x == 2.5);
  double total = 1000;
  OK(GrB_reduce(&total, GrB_PLUS_FP64, GrB_PLUS_MONOID_FP64, A, NULL));
  CHECK(total == 1020);
  int32_t itotal = 0;
  OK(GrB_reduce(&itotal, NULL, GrB_PLUS_MONOID_FP64, u, NULL));
  CHECK(itotal == 5); /* 5.5 cast to INT32 */

  /* transpose, extract (matrix, vector, column), assign (all forms). */
  OK(GrB_transpose(C, NULL, NULL, A, NULL));
  CHECK(get(C, 1, 0) == 1);
  GrB_Matrix S = NULL;
  const GrB_Index rows[] = {0, 3}, cols[] = {0, 1};
  OK(GrB_Matrix_new(&S, GrB_FP64, 2, 2));
  OK(GrB_extract(S, NULL, NULL, A, rows, 2, cols, 2, NULL));
  CHECK(nvals(S) == 3 && get(S, 1, 0) == 4);
  GrB_Vector v2 = NULL;
  OK(GrB_Vector_new(&v2, GrB_FP64, 2));
  OK(GrB_extract(v2, NULL, NULL, u, rows, 2, NULL));
  OK(GrB_Vector_extractElement(&x, v2, 1));
  CHECK(x == 2.5);
  OK(GrB_extract(w, NULL, NULL, A, GrB_ALL, 4, 0, NULL)); /* column 0 */
  OK(GrB_Vector_nvals(&n, w));
  CHECK(n == 2);
  OK(GrB_extract(w, NULL, NULL, A, GrB_ALL, 4, 0, GrB_DESC_T0)); /* row 0 */
  OK(GrB_Vector_extractElement(&x, w, 1));
  CHECK(x == 1);
  GrB_free(&R); /* dup makes a new matrix; the INT64 one above would leak */
  OK(GrB_Matrix_dup(&R, A));
  OK(GrB_assign(R, NULL, NULL, S, rows, 2, cols, 2, NULL));
  OK(GrB_assign(R, NULL, NULL, 7.0, rows, 2, cols, 2, NULL));
  CHECK(get(R, 3, 1) == 7);
  OK(GrB_assign(R, NULL, NULL, u, GrB_ALL, 4, (GrB_Index)2, NULL)); /* column 2 */
  CHECK(get(R, 3, 2) == 2.5);
  OK(GrB_assign(R, NULL, NULL, u, (GrB_Index)1, GrB_ALL, 4, NULL)); /* row 1 */
  CHECK(get(R, 1, 0) == 1);
  OK(GrB_Scalar_clear(s));
  OK(GrB_assign(R, NULL, NULL, s, GrB_ALL, 4, GrB_ALL, 4, NULL)); /* an empty scalar deletes */
  CHECK(nvals(R) == 0);
  OK(GrB_assign(w, NULL, NULL, u, GrB_ALL, 4, NULL));
  OK(GrB_assign(w, NULL, NULL, (int8_t)-1, GrB_ALL, 4, NULL));
  OK(GrB_Vector_extractElement(&x, w, 2));
  CHECK(x == -1);
  OK(GrB_assign(w, u, NULL, 5.0, GrB_ALL, 4, GrB_DESC_RSC)); /* complement of u's structure, replace */
  OK(GrB_Vector_nvals(&n, w));
  CHECK(n == 1);

  /* build, extractTuples, wait, error, free through the polymorphic names. */
  GrB_Index I[8], J[8];
  double X[8];
  n = 8;
  OK(GrB_Matrix_extractTuples(I, J, X, &n, A));
  CHECK(n == 5 && I[0] == 0 && J[0] == 0 && X[0] == 10);
  n = 8;
  OK(GrB_Vector_extractTuples(I, X, &n, u));
  CHECK(n == 3 && I[2] == 3 && X[2] == 2.5);
  GrB_Vector b = NULL;
  OK(GrB_Vector_new(&b, GrB_INT32, 5));
  const int32_t bx[] = {1, 2, 3};
  const GrB_Index bi[] = {4, 4, 0};
  OK(GrB_Vector_build(b, bi, bx, 3, GrB_PLUS_INT32));
  int32_t bv = 0;
  OK(GrB_Vector_extractElement(&bv, b, 4));
  CHECK(bv == 3);
  OK(GrB_wait(A, GrB_MATERIALIZE));
  OK(GrB_wait(GrB_PLUS_FP64, GrB_COMPLETE));
  const char *err = NULL;
  CHECK(GrB_Matrix_new(&K, GrB_FP64, GrB_INDEX_MAX + 2, 1) == GrB_INVALID_VALUE);
  CHECK(GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, K, NULL) == GrB_DIMENSION_MISMATCH);
  OK(GrB_error(&err, C));
  CHECK(err != NULL && strlen(err) > 0);
  OK(GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, NULL));
  OK(GrB_error(&err, C));
  CHECK(err != NULL && strlen(err) == 0); /* cleared by the successful call */
  GrB_free(&A);
  CHECK(A == NULL);
  GrB_free(&C);
  GrB_free(&K);
  GrB_free(&R);
  GrB_free(&S);
  GrB_free(&u);
  GrB_free(&v2);
  GrB_free(&w);
  GrB_free(&b);
  GrB_free(&s);
}

static void test_import_export_serialize(void) {
  GrB_Matrix A = cycle();
  GrB_Index np, ni, nx;
  const GrB_Format formats[] = {GrB_CSR_FORMAT, GrB_CSC_FORMAT, GrB_COO_FORMAT};
  GrB_Format hint;
  OK(GrB_Matrix_exportHint(&hint, A));
  CHECK(hint == GrB_CSR_FORMAT);
  for (int f = 0; f < 3; ++f) {
    OK(GrB_Matrix_exportSize(&np, &ni, &nx, formats[f], A));
    CHECK(ni == 5 && nx == 5 && np == (formats[f] == GrB_COO_FORMAT ? 5 : 5));
    GrB_Index P[8], Ix[8];
    double X[8];
    np = 8, ni = 8, nx = 8;
    OK(GrB_Matrix_export(P, Ix, X, &np, &ni, &nx, formats[f], A));
    if (formats[f] == GrB_CSC_FORMAT) CHECK(P[1] == 2 && Ix[0] == 0 && Ix[1] == 3 && X[1] == 4);
    GrB_Matrix B = NULL;
    OK(GrB_Matrix_import(&B, GrB_FP64, 4, 4, P, Ix, X, np, ni, nx, formats[f]));
    GrB_Matrix D = NULL;
    OK(GrB_Matrix_new(&D, GrB_FP64, 4, 4));
    OK(GrB_eWiseAdd(D, NULL, NULL, GrB_MINUS_FP64, A, B, NULL));
    double diff = 1;
    OK(GrB_reduce(&diff, NULL, GrB_MAX_MONOID_FP64, D, NULL));
    CHECK(diff == 0 && nvals(B) == 5);
    GrB_free(&B);
    GrB_free(&D);
  }
  /* serialize: a hypersparse UINT16 matrix of dimension 2^40 round-trips exactly. */
  GrB_Matrix H = NULL, H2 = NULL;
  OK(GrB_Matrix_new(&H, GrB_UINT16, (GrB_Index)1 << 40, (GrB_Index)1 << 40));
  OK(GrB_Matrix_setElement(H, (uint16_t)7, (GrB_Index)1 << 39, 3));
  OK(GrB_Matrix_setElement(H, (uint16_t)9, 5, ((GrB_Index)1 << 40) - 1));
  GrB_Index size = 0;
  OK(GrB_Matrix_serializeSize(&size, H));
  unsigned char blob[512];
  CHECK(size <= sizeof blob);
  OK(GrB_Matrix_serialize(blob, &size, H));
  OK(GrB_Matrix_deserialize(&H2, NULL, blob, size));
  uint16_t v = 0;
  OK(GrB_Matrix_extractElement(&v, H2, (GrB_Index)1 << 39, 3));
  CHECK(v == 7 && nvals(H2) == 2);
  GrB_free(&H2);
  OK(GrB_Matrix_deserialize(&H2, GrB_UINT16, blob, size));
  GrB_free(&H2);
  blob[size / 2] ^= 0x10;
  CHECK(GrB_Matrix_deserialize(&H2, NULL, blob, size) == GrB_INVALID_OBJECT);
  CHECK(GrB_Matrix_deserialize(&H2, NULL, blob, 10) == GrB_INVALID_OBJECT);
  GrB_free(&H);
  GrB_free(&A);

  /* MatrixMarket: a symmetric pattern matrix expands to both triangles. */
  const char mtx[] = "%%MatrixMarket matrix coordinate pattern symmetric\n% comment\n3 3 2\n2 1\n3 3\n";
  GrB_Matrix M = NULL;
  OK(SNK_Matrix_read_mtx(&M, GrB_INT32, mtx, sizeof mtx - 1));
  CHECK(nvals(M) == 3);
  int32_t e = 0;
  OK(GrB_Matrix_extractElement(&e, M, 0, 1));
  CHECK(e == 1);
  GrB_free(&M);
}

static void test_user_defined(void) {
  GrB_Type Complex = NULL;
  GrB_BinaryOp cadd = NULL, cmul = NULL;
  GrB_Monoid cplus = NULL;
  GrB_Semiring cring = NULL;
  OK(GrB_Type_new(&Complex, sizeof(complex_t)));
  OK(GrB_BinaryOp_new(&cadd, complex_add, Complex, Complex, Complex));
  OK(GrB_BinaryOp_new(&cmul, complex_mul, Complex, Complex, Complex));
  const complex_t zero = {0, 0};
  OK(GrB_Monoid_new(&cplus, cadd, (const void *)&zero));
  OK(GrB_Semiring_new(&cring, cplus, cmul));
  GrB_Matrix Z = NULL, Z2 = NULL;
  OK(GrB_Matrix_new(&Z, Complex, 2, 2));
  const complex_t i1 = {0, 1}, two = {2, 0};
  OK(GrB_Matrix_setElement(Z, (const void *)&i1, 0, 0));
  OK(GrB_Matrix_setElement(Z, (const void *)&two, 0, 1));
  OK(GrB_Matrix_setElement(Z, (const void *)&two, 1, 1));
  OK(GrB_Matrix_new(&Z2, Complex, 2, 2));
  OK(GrB_mxm(Z2, NULL, NULL, cring, Z, Z, NULL));
  complex_t c = {9, 9};
  OK(GrB_Matrix_extractElement((void *)&c, Z2, 0, 0));
  CHECK(c.re == -1 && c.im == 0);
  OK(GrB_Matrix_extractElement((void *)&c, Z2, 0, 1));
  CHECK(c.re == 4 && c.im == 2);
  complex_t sum = {0, 0};
  OK(GrB_reduce((void *)&sum, NULL, cplus, Z2, NULL));
  CHECK(sum.re == 7 && sum.im == 2);
  /* serialize a UDT matrix: deserialize needs its type. */
  GrB_Index size;
  OK(GrB_Matrix_serializeSize(&size, Z2));
  unsigned char blob[1024];
  OK(GrB_Matrix_serialize(blob, &size, Z2));
  GrB_Matrix Z3 = NULL;
  CHECK(GrB_Matrix_deserialize(&Z3, NULL, blob, size) == GrB_DOMAIN_MISMATCH);
  OK(GrB_Matrix_deserialize(&Z3, Complex, blob, size));
  CHECK(nvals(Z3) == 3);

  /* user unary and index-unary operators on a builtin type. */
  GrB_UnaryOp sq = NULL;
  GrB_IndexUnaryOp above = NULL;
  OK(GrB_UnaryOp_new(&sq, square, GrB_FP64, GrB_FP64));
  OK(GrB_IndexUnaryOp_new(&above, above_thunk, GrB_BOOL, GrB_FP64, GrB_FP64));
  GrB_Matrix A = cycle(), C = NULL;
  OK(GrB_Matrix_new(&C, GrB_FP64, 4, 4));
  OK(GrB_apply(C, NULL, NULL, sq, A, NULL));
  CHECK(get(C, 3, 0) == 16);
  OK(GrB_select(C, NULL, NULL, above, A, 2.5, NULL));
  CHECK(nvals(C) == 3);
  GrB_Monoid m = NULL;
  OK(GrB_Monoid_new(&m, GrB_MAX_FP64, (double)-INFINITY));
  double mx = 0;
  OK(GrB_reduce(&mx, NULL, m, A, NULL));
  CHECK(mx == 10);
  GrB_free(&m);
  GrB_free(&sq);
  GrB_free(&above);
  GrB_free(&A);
  GrB_free(&C);
  GrB_free(&Z);
  GrB_free(&Z2);
  GrB_free(&Z3);
  GrB_free(&cring);
  GrB_free(&cplus);
  GrB_free(&cadd);
  GrB_free(&cmul);
  GrB_free(&Complex);
}

static void test_containers_and_descriptors(void) {
  GrB_Vector v = NULL;
  OK(GrB_Vector_new(&v, GrB_INT16, 3));
  OK(GrB_Vector_setElement(v, (int16_t)4, 2));
  GrB_Matrix D = NULL;
  OK(GrB_Matrix_diag(&D, v, 1));
  GrB_Index nr = 0, nc = 0;
  OK(GrB_Matrix_nrows(&nr, D));
  OK(GrB_Matrix_ncols(&nc, D));
  CHECK(nr == 4 && nc == 4);
  int16_t d = 0;
  OK(GrB_Matrix_extractElement(&d, D, 2, 3));
  CHECK(d == 4);
  OK(GrB_Matrix_resize(D, 3, 3));
  CHECK(nvals(D) == 0);
  OK(GrB_Matrix_setElement(D, (int16_t)1, 2, 2));
  OK(GrB_Matrix_removeElement(D, 2, 2));
  CHECK(nvals(D) == 0);
  OK(GrB_Matrix_clear(D));
  OK(GrB_Vector_resize(v, 2));
  GrB_Index n = 9;
  OK(GrB_Vector_nvals(&n, v));
  CHECK(n == 0);
  GrB_Descriptor desc = NULL;
  OK(GrB_Descriptor_new(&desc));
  OK(GrB_Descriptor_set(desc, GrB_INP0, GrB_TRAN));
  OK(GrB_Descriptor_set(desc, GrB_MASK, GrB_COMP));
  OK(GrB_Descriptor_set(desc, GrB_MASK, GrB_STRUCTURE));
  OK(GrB_Descriptor_set(desc, GrB_OUTP, GrB_REPLACE));
  GrB_Matrix A = cycle(), C = NULL;
  OK(GrB_Matrix_new(&C, GrB_FP64, 4, 4));
  OK(GrB_Matrix_assign(C, NULL, NULL, A, GrB_ALL, 4, GrB_ALL, 4, NULL));
  /* C<!struct(A), replace> = A' : only positions outside A's pattern survive. */
  OK(GrB_transpose(C, A, NULL, A, GrB_DESC_RSC));
  CHECK(nvals(C) == 4 && get(C, 1, 0) == 1);
  OK(GrB_mxm(C, A, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A, A, desc));   /* C<!A,r> = A'A */
  GrB_Index cn = nvals(C);
  CHECK(cn > 0);
  GrB_free(&desc);
  GrB_free(&A);
  GrB_free(&C);
  GrB_free(&D);
  GrB_free(&v);
}

static void test_extensions(void) {
  char name[64], list[128];
  OK(SNK_Backend_get(name, sizeof name));
  OK(SNK_Backend_list(list, sizeof list));
  CHECK(strstr(list, "reference") != NULL);
  CHECK(strstr(list, name) != NULL);
  OK(SNK_Backend_set("reference"));
  OK(SNK_Backend_get(name, sizeof name));
  CHECK(strcmp(name, "reference") == 0);
  OK(SNK_Fallback_reset());
  uint64_t count = 99;
  OK(SNK_Fallback_total("reference", &count));
  CHECK(count == 0);
  OK(SNK_Fallback_count("reference", "mxm", &count));
  CHECK(count == 0);
  bool det = false;
  OK(SNK_Deterministic_set(true));
  OK(SNK_Deterministic_get(&det));
  CHECK(det);
  OK(SNK_Deterministic_set(false));
  SNK_Bind policy = SNK_BIND_AUTO;
  OK(SNK_Bind_set(SNK_BIND_NEVER));
  OK(SNK_Bind_get(&policy));
  CHECK(policy == SNK_BIND_NEVER);
  OK(SNK_Bind_set(SNK_BIND_AUTO));
  OK(SNK_Bind_get(&policy));
  CHECK(policy == SNK_BIND_AUTO);
}

int main(int argc, char **argv) {
  const GrB_Mode mode = (argc > 1 && strcmp(argv[1], "blocking") == 0) ? GrB_BLOCKING : GrB_NONBLOCKING;
  GrB_Matrix early = NULL;
  CHECK(GrB_Matrix_new(&early, GrB_FP64, 1, 1) == GrB_PANIC); /* before GrB_init */
  OK(GrB_init(mode));
  CHECK(GrB_init(mode) == GrB_INVALID_VALUE);
  test_polymorphic_names();
  test_import_export_serialize();
  test_user_defined();
  test_containers_and_descriptors();
  test_extensions();
  OK(GrB_finalize());
  printf("test_capi_features (%s): %d checks, %d failed\n", mode == GrB_BLOCKING ? "blocking" : "non-blocking",
         checks, failures);
  return failures ? 1 : 0;
}
