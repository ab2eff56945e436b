// tests/capi/test_capi_errors.cpp: the C API's error model, function by function.
//
// For every function of the spec 2.0 (every typed variant included, through the X-macros of GraphBLAS.h)
// this checks the API errors the spec defines: a NULL handle or output pointer (GrB_NULL_POINTER), an
// uninitialized object (a handle to memory that holds no live object, or to an object of another kind:
// GrB_UNINITIALIZED_OBJECT), mismatched domains (GrB_DOMAIN_MISMATCH), mismatched sizes
// (GrB_DIMENSION_MISMATCH), indices out of range (GrB_INVALID_INDEX / GrB_INDEX_OUT_OF_BOUNDS), build
// into a non-empty output (GrB_OUTPUT_NOT_EMPTY), too-small output arrays (GrB_INSUFFICIENT_SPACE). Each
// case checks the code, that GrB_error on the output object then returns a message (or SNK_last_error
// when the output itself is the bad argument), and that the output's content is unchanged.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "GraphBLAS.h"
#include "capi_test_util.hpp"

namespace {

using snk_test::uninitialized;

std::vector<unsigned char> fingerprint(GrB_Matrix A) {
  GrB_Index n = 0;
  if (GrB_Matrix_serializeSize(&n, A) != GrB_SUCCESS) return {};
  std::vector<unsigned char> blob(n);
  if (GrB_Matrix_serialize(blob.data(), &n, A) != GrB_SUCCESS) return {};
  return blob;
}

std::vector<unsigned char> fingerprint(GrB_Vector v) {
  GrB_Index n = 0, size = 0;
  GrB_Vector_nvals(&n, v);
  GrB_Vector_size(&size, v);
  std::vector<GrB_Index> I(n + 1);
  std::vector<unsigned char> X((n + 1) * 16);
  GrB_Vector_extractTuples_UDT(I.data(), X.data(), &n, v);
  std::vector<unsigned char> out(reinterpret_cast<unsigned char*>(I.data()),
                                 reinterpret_cast<unsigned char*>(I.data() + n));
  out.insert(out.end(), X.begin(), X.end());
  out.push_back(static_cast<unsigned char>(size));
  return out;
}

std::vector<unsigned char> fingerprint(GrB_Scalar s) {
  GrB_Index n = 0;
  GrB_Scalar_nvals(&n, s);
  std::vector<unsigned char> x(17, 0);
  x[16] = static_cast<unsigned char>(n);
  if (n) GrB_Scalar_extractElement_UDT(x.data(), s);
  return x;
}

std::vector<unsigned char> fingerprint(std::nullptr_t) { return {}; }

std::string error_of(GrB_Matrix A) { const char* e = nullptr; GrB_Matrix_error(&e, A); return e ? e : ""; }
std::string error_of(GrB_Vector v) { const char* e = nullptr; GrB_Vector_error(&e, v); return e ? e : ""; }
std::string error_of(GrB_Scalar s) { const char* e = nullptr; GrB_Scalar_error(&e, s); return e ? e : ""; }
std::string error_of(std::nullptr_t) { const char* e = nullptr; SNK_last_error(&e); return e ? e : ""; }

int g_cases = 0;

// One case: the call (already made) returned `got`; it must be `expected`, with a message on `watched` and in
// SNK_last_error, and `watched` must still hold `before`. A function rather than a macro body, so that the
// several hundred cases compile to calls and not to several hundred copies of these checks.
template <class W>
void check_api_error(GrB_Info expected, GrB_Info got, W watched, const std::vector<unsigned char>& before,
                     const char* call, const char* file, int line) {
  const ::testing::ScopedTrace trace(file, line, call);
  ++g_cases;
  EXPECT_EQ(got, expected);
  EXPECT_FALSE(error_of(watched).empty()) << "no message";
  const char* last = nullptr;
  SNK_last_error(&last);
  EXPECT_TRUE(last != nullptr && *last != '\0') << "no SNK_last_error message";
  EXPECT_EQ(fingerprint(watched), before) << "output changed";
}

// Runs `call` and checks its code, a message, and that `watched` kept its content.
#define EXPECT_API_ERROR(expected, watched, call)                                          \
  do {                                                                                     \
    const std::vector<unsigned char> before_ = fingerprint(watched);                       \
    check_api_error(expected, (call), watched, before_, #call, __FILE__, __LINE__);        \
  } while (0)

class CapiErrors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const GrB_Info info = GrB_init(GrB_NONBLOCKING);
    ASSERT_TRUE(info == GrB_SUCCESS || info == GrB_INVALID_VALUE);
  }
  void SetUp() override {
    ASSERT_EQ(GrB_Type_new(&udt, 24), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_new(&A, GrB_FP64, 4, 4), GrB_SUCCESS);
    const GrB_Index I[] = {0, 1, 2, 3}, J[] = {1, 2, 3, 0};
    const double X[] = {1, 2, 3, 4};
    ASSERT_EQ(GrB_Matrix_build_FP64(A, I, J, X, 4, nullptr), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_dup(&C, A), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_new(&A35, GrB_FP64, 3, 5), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_new(&U, udt, 4, 4), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_new(&u, GrB_FP64, 4), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_setElement_FP64(u, 1.5, 2), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_dup(&w, u), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_new(&v5, GrB_FP64, 5), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_new(&vu, udt, 4), GrB_SUCCESS);
    ASSERT_EQ(GrB_Scalar_new(&s, GrB_FP64), GrB_SUCCESS);
    ASSERT_EQ(GrB_Scalar_setElement_FP64(s, 2.5), GrB_SUCCESS);
    ASSERT_EQ(GrB_Scalar_new(&su, udt), GrB_SUCCESS);
    ASSERT_EQ(GrB_Descriptor_new(&desc), GrB_SUCCESS);
  }
  void TearDown() override {
    GrB_Matrix_free(&A);
    GrB_Matrix_free(&C);
    GrB_Matrix_free(&A35);
    GrB_Matrix_free(&U);
    GrB_Vector_free(&u);
    GrB_Vector_free(&w);
    GrB_Vector_free(&v5);
    GrB_Vector_free(&vu);
    GrB_Scalar_free(&s);
    GrB_Scalar_free(&su);
    GrB_Descriptor_free(&desc);
    GrB_Type_free(&udt);
  }
  GrB_Type udt = nullptr;
  GrB_Matrix A = nullptr, C = nullptr, A35 = nullptr, U = nullptr;
  GrB_Vector u = nullptr, w = nullptr, v5 = nullptr, vu = nullptr;
  GrB_Scalar s = nullptr, su = nullptr;
  GrB_Descriptor desc = nullptr;
  const GrB_Matrix badM = uninitialized<GrB_Matrix>();
  const GrB_Vector badV = uninitialized<GrB_Vector>();
};

// ---- context and the generic object methods -----------------------------------------------------------------
TEST_F(CapiErrors, Context) {
  EXPECT_EQ(GrB_init(GrB_NONBLOCKING), GrB_INVALID_VALUE);   // already initialized
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_getVersion(nullptr, nullptr));
  unsigned v = 0, sv = 9;
  EXPECT_EQ(GrB_getVersion(&v, &sv), GrB_SUCCESS);
  EXPECT_EQ(v, 2u);
  EXPECT_EQ(sv, 1u);  // spec 2.1
}

#define SNK_FOR_EACH_OBJECT(X) \
  X(Type) X(UnaryOp) X(BinaryOp) X(IndexUnaryOp) X(Monoid) X(Semiring) X(Scalar) X(Vector) X(Matrix) X(Descriptor)

TEST_F(CapiErrors, WaitErrorFreeOfEveryObject) {
#define SNK_CHECK_OBJECT(Object)                                                                       \
  {                                                                                                    \
    GrB_##Object bad = uninitialized<GrB_##Object>();                                                  \
    EXPECT_EQ(GrB_##Object##_wait(nullptr, GrB_COMPLETE), GrB_NULL_POINTER);                           \
    EXPECT_EQ(GrB_##Object##_wait(bad, GrB_MATERIALIZE), GrB_UNINITIALIZED_OBJECT);                    \
    const char* e = nullptr;                                                                           \
    EXPECT_EQ(GrB_##Object##_error(nullptr, bad), GrB_NULL_POINTER);                                   \
    EXPECT_EQ(GrB_##Object##_error(&e, nullptr), GrB_NULL_POINTER);                                    \
    EXPECT_EQ(GrB_##Object##_error(&e, bad), GrB_UNINITIALIZED_OBJECT);                                \
    EXPECT_EQ(GrB_##Object##_free(nullptr), GrB_NULL_POINTER);                                         \
    EXPECT_EQ(GrB_##Object##_free(&bad), GrB_UNINITIALIZED_OBJECT);                                    \
    GrB_##Object none = nullptr;                                                                       \
    EXPECT_EQ(GrB_##Object##_free(&none), GrB_SUCCESS);                                                \
    g_cases += 8;                                                                                      \
  }
  SNK_FOR_EACH_OBJECT(SNK_CHECK_OBJECT)
  // Wrong kind: a vector where a matrix is expected.
  GrB_Index n;
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_nvals(&n, reinterpret_cast<GrB_Matrix>(u)));
  EXPECT_EQ(GrB_Matrix_wait(A, static_cast<GrB_WaitMode>(7)), GrB_INVALID_VALUE);
  // Predefined objects cannot be freed (the handle stays valid) or modified.
  GrB_BinaryOp plus = GrB_PLUS_FP64;
  EXPECT_EQ(GrB_BinaryOp_free(&plus), GrB_SUCCESS);
  EXPECT_EQ(plus, GrB_PLUS_FP64);
  EXPECT_EQ(GrB_Descriptor_set(GrB_DESC_T0, GrB_OUTP, GrB_REPLACE), GrB_INVALID_VALUE);
}

// ---- algebra constructors ---------------------------------------------------------------------------------
void user_unary(void* z, const void* x) { std::memcpy(z, x, 8); }
void user_binary(void* z, const void* x, const void*) { std::memcpy(z, x, 8); }
void user_index(void* z, const void*, GrB_Index, GrB_Index, const void*) { *static_cast<bool*>(z) = true; }

TEST_F(CapiErrors, AlgebraConstructors) {
  GrB_Type t = nullptr;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Type_new(nullptr, 8));
  EXPECT_API_ERROR(GrB_INVALID_VALUE, nullptr, GrB_Type_new(&t, 0));
  EXPECT_EQ(t, nullptr);
  const GrB_Type badT = uninitialized<GrB_Type>();
  GrB_UnaryOp uop = nullptr;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_UnaryOp_new(nullptr, user_unary, GrB_FP64, GrB_FP64));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_UnaryOp_new(&uop, nullptr, GrB_FP64, GrB_FP64));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_UnaryOp_new(&uop, user_unary, nullptr, GrB_FP64));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_UnaryOp_new(&uop, user_unary, GrB_FP64, badT));
  GrB_BinaryOp bop = nullptr;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_BinaryOp_new(nullptr, user_binary, GrB_FP64, GrB_FP64, GrB_FP64));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_BinaryOp_new(&bop, nullptr, GrB_FP64, GrB_FP64, GrB_FP64));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_BinaryOp_new(&bop, user_binary, GrB_FP64, badT, GrB_FP64));
  GrB_IndexUnaryOp iop = nullptr;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_IndexUnaryOp_new(nullptr, user_index, GrB_BOOL, GrB_FP64, GrB_INT64));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_IndexUnaryOp_new(&iop, nullptr, GrB_BOOL, GrB_FP64, GrB_INT64));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_IndexUnaryOp_new(&iop, user_index, GrB_BOOL, badT, GrB_INT64));
  EXPECT_EQ(uop, nullptr);
  EXPECT_EQ(bop, nullptr);
  EXPECT_EQ(iop, nullptr);

  // GrB_Monoid_new_<T>: NULL output, uninitialized op, and an identity of another type than the op's.
  GrB_Monoid mon = nullptr;
  const GrB_BinaryOp badOp = uninitialized<GrB_BinaryOp>();
#define SNK_CHECK_MONOID_NEW(T, value, in, out)                                                        \
  {                                                                                                    \
    value id{};                                                                                        \
    EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Monoid_new_##T(nullptr, GrB_PLUS_INT8, id));       \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Monoid_new_##T(&mon, badOp, id));          \
    GrB_BinaryOp other = std::strcmp(#T, "BOOL") == 0 ? GrB_PLUS_INT8 : GrB_LOR;                       \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, nullptr, GrB_Monoid_new_##T(&mon, other, id));               \
  }
  SNK_FOR_EACH_BUILTIN_TYPE(SNK_CHECK_MONOID_NEW)
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Monoid_new_UDT(&mon, GrB_PLUS_FP64, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Monoid_new_UDT(nullptr, GrB_PLUS_FP64, &mon));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Monoid_new_UDT(&mon, badOp, &mon));
  EXPECT_EQ(mon, nullptr);
  // Monoid from an operator whose domains differ (EQ_FP64: FP64 x FP64 -> BOOL).
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, nullptr, GrB_Monoid_new_UDT(&mon, GrB_EQ_FP64, &mon));

  GrB_Semiring sr = nullptr;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Semiring_new(nullptr, GrB_PLUS_MONOID_FP64, GrB_TIMES_FP64));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Semiring_new(&sr, nullptr, GrB_TIMES_FP64));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Semiring_new(&sr, GrB_PLUS_MONOID_FP64, badOp));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, nullptr, GrB_Semiring_new(&sr, GrB_PLUS_MONOID_FP64, GrB_TIMES_INT32));
  EXPECT_EQ(sr, nullptr);

  GrB_Descriptor d = nullptr;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Descriptor_new(nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Descriptor_set(nullptr, GrB_OUTP, GrB_REPLACE));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr,
                   GrB_Descriptor_set(uninitialized<GrB_Descriptor>(), GrB_OUTP, GrB_REPLACE));
  EXPECT_EQ(GrB_Descriptor_set(desc, GrB_OUTP, GrB_TRAN), GrB_INVALID_VALUE);
  EXPECT_EQ(GrB_Descriptor_set(desc, GrB_INP0, GrB_COMP), GrB_INVALID_VALUE);
  EXPECT_EQ(GrB_Descriptor_set(desc, static_cast<GrB_Desc_Field>(42), GrB_DEFAULT), GrB_INVALID_VALUE);
  EXPECT_EQ(d, nullptr);
}

// ---- GrB_Scalar --------------------------------------------------------------------------------------------
TEST_F(CapiErrors, Scalar) {
  GrB_Scalar t = nullptr;
  const GrB_Scalar badS = uninitialized<GrB_Scalar>();
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Scalar_new(nullptr, GrB_FP64));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Scalar_new(&t, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Scalar_new(&t, uninitialized<GrB_Type>()));
  EXPECT_API_ERROR(GrB_NULL_POINTER, s, GrB_Scalar_dup(nullptr, s));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Scalar_dup(&t, badS));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Scalar_clear(nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Scalar_clear(badS));
  EXPECT_API_ERROR(GrB_NULL_POINTER, s, GrB_Scalar_nvals(nullptr, s));
  GrB_Index n;
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Scalar_nvals(&n, badS));
  EXPECT_EQ(t, nullptr);
#define SNK_CHECK_SCALAR(T, value, in, out)                                                             \
  {                                                                                                     \
    value x{};                                                                                          \
    EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Scalar_setElement_##T(nullptr, x));                 \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Scalar_setElement_##T(badS, x));            \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, su, GrB_Scalar_setElement_##T(su, x));                        \
    EXPECT_API_ERROR(GrB_NULL_POINTER, s, GrB_Scalar_extractElement_##T(nullptr, s));                   \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Scalar_extractElement_##T(&x, badS));       \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, su, GrB_Scalar_extractElement_##T(&x, su));                   \
  }
  SNK_FOR_EACH_BUILTIN_TYPE(SNK_CHECK_SCALAR)
  unsigned char bytes[24] = {};
  EXPECT_API_ERROR(GrB_NULL_POINTER, su, GrB_Scalar_setElement_UDT(su, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Scalar_setElement_UDT(badS, bytes));
  EXPECT_API_ERROR(GrB_NULL_POINTER, su, GrB_Scalar_extractElement_UDT(nullptr, su));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Scalar_extractElement_UDT(bytes, badS));
  EXPECT_EQ(GrB_Scalar_extractElement_UDT(bytes, su), GrB_NO_VALUE);
}

// ---- GrB_Vector --------------------------------------------------------------------------------------------
TEST_F(CapiErrors, Vector) {
  GrB_Vector t = nullptr;
  GrB_Index n = 0;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_new(nullptr, GrB_FP64, 3));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_new(&t, nullptr, 3));
  EXPECT_API_ERROR(GrB_INVALID_VALUE, nullptr, GrB_Vector_new(&t, GrB_FP64, GrB_INDEX_MAX + 2));
  EXPECT_API_ERROR(GrB_NULL_POINTER, u, GrB_Vector_dup(nullptr, u));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_dup(&t, badV));
  EXPECT_EQ(t, nullptr);
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_clear(nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_clear(badV));
  EXPECT_API_ERROR(GrB_NULL_POINTER, u, GrB_Vector_size(nullptr, u));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_size(&n, badV));
  EXPECT_API_ERROR(GrB_NULL_POINTER, u, GrB_Vector_nvals(nullptr, u));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_nvals(&n, badV));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_resize(badV, 3));
  EXPECT_API_ERROR(GrB_INVALID_VALUE, u, GrB_Vector_resize(u, GrB_INDEX_MAX + 2));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_removeElement(badV, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, u, GrB_Vector_removeElement(u, 4));
  EXPECT_API_ERROR(GrB_NULL_POINTER, u, GrB_Vector_setElement_Scalar(u, nullptr, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, u, GrB_Vector_setElement_Scalar(u, s, 4));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, vu, GrB_Vector_setElement_Scalar(vu, s, 0));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, s, GrB_Vector_extractElement_Scalar(s, badV, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, s, GrB_Vector_extractElement_Scalar(s, u, 9));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, s, GrB_Vector_extractElement_Scalar(s, vu, 0));
  // Typed families.
  const GrB_Index I[] = {0, 1}, Ibad[] = {0, 7}, Idup[] = {1, 1};
#define SNK_CHECK_VECTOR(T, value, in, out)                                                             \
  {                                                                                                     \
    value X[2] = {};                                                                                    \
    GrB_Vector e = nullptr;                                                                             \
    ASSERT_EQ(GrB_Vector_new(&e, GrB_FP64, 4), GrB_SUCCESS);                                            \
    EXPECT_API_ERROR(GrB_NULL_POINTER, e, GrB_Vector_build_##T(e, nullptr, X, 2, nullptr));             \
    EXPECT_API_ERROR(GrB_NULL_POINTER, e, GrB_Vector_build_##T(e, I, nullptr, 2, nullptr));             \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_build_##T(badV, I, X, 2, nullptr));  \
    EXPECT_API_ERROR(GrB_OUTPUT_NOT_EMPTY, u, GrB_Vector_build_##T(u, I, X, 2, nullptr));               \
    EXPECT_API_ERROR(GrB_INDEX_OUT_OF_BOUNDS, e, GrB_Vector_build_##T(e, Ibad, X, 2, nullptr));         \
    EXPECT_API_ERROR(GrB_INVALID_VALUE, e, GrB_Vector_build_##T(e, Idup, X, 2, nullptr));               \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, vu, GrB_Vector_build_##T(vu, I, X, 2, nullptr));              \
    EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_setElement_##T(nullptr, X[0], 0));           \
    EXPECT_API_ERROR(GrB_INVALID_INDEX, u, GrB_Vector_setElement_##T(u, X[0], 4));                      \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, vu, GrB_Vector_setElement_##T(vu, X[0], 0));                  \
    EXPECT_API_ERROR(GrB_NULL_POINTER, u, GrB_Vector_extractElement_##T(nullptr, u, 0));                \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_extractElement_##T(X, badV, 0));     \
    EXPECT_API_ERROR(GrB_INVALID_INDEX, u, GrB_Vector_extractElement_##T(X, u, 4));                     \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, vu, GrB_Vector_extractElement_##T(X, vu, 0));                 \
    GrB_Index I2[2], cap = 0;                                                                           \
    EXPECT_API_ERROR(GrB_NULL_POINTER, u, GrB_Vector_extractTuples_##T(I2, X, nullptr, u));             \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_extractTuples_##T(I2, X, &cap, badV)); \
    EXPECT_API_ERROR(GrB_INSUFFICIENT_SPACE, u, GrB_Vector_extractTuples_##T(I2, X, &cap, u));          \
    EXPECT_EQ(cap, 0u);                                                                                 \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, vu, GrB_Vector_extractTuples_##T(I2, X, &cap, vu));           \
    GrB_Vector_free(&e);                                                                                \
  }
  SNK_FOR_EACH_BUILTIN_TYPE(SNK_CHECK_VECTOR)
  unsigned char ux[48] = {};
  EXPECT_API_ERROR(GrB_NULL_POINTER, vu, GrB_Vector_build_UDT(vu, I, nullptr, 2, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_build_UDT(badV, I, ux, 2, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, vu, GrB_Vector_setElement_UDT(vu, nullptr, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, vu, GrB_Vector_setElement_UDT(vu, ux, 4));
  EXPECT_API_ERROR(GrB_NULL_POINTER, vu, GrB_Vector_extractElement_UDT(nullptr, vu, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, vu, GrB_Vector_extractElement_UDT(ux, vu, 4));
  EXPECT_API_ERROR(GrB_NULL_POINTER, vu, GrB_Vector_extractTuples_UDT(nullptr, ux, nullptr, vu));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_extractTuples_UDT(nullptr, ux, &n, badV));
}

// ---- GrB_Matrix --------------------------------------------------------------------------------------------
TEST_F(CapiErrors, Matrix) {
  GrB_Matrix t = nullptr;
  GrB_Index n = 0;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_new(nullptr, GrB_FP64, 3, 3));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_new(&t, nullptr, 3, 3));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_new(&t, uninitialized<GrB_Type>(), 3, 3));
  EXPECT_API_ERROR(GrB_INVALID_VALUE, nullptr, GrB_Matrix_new(&t, GrB_FP64, 3, GrB_INDEX_MAX + 2));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_dup(nullptr, A));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_dup(&t, badM));
  EXPECT_API_ERROR(GrB_NULL_POINTER, u, GrB_Matrix_diag(nullptr, u, 0));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_diag(&t, badV, 0));
  EXPECT_EQ(t, nullptr);
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_clear(badM));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_clear(nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_nrows(nullptr, A));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_nrows(&n, badM));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_ncols(nullptr, A));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_ncols(&n, badM));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_nvals(nullptr, A));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_nvals(&n, badM));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_resize(badM, 2, 2));
  EXPECT_API_ERROR(GrB_INVALID_VALUE, A, GrB_Matrix_resize(A, GrB_INDEX_MAX + 2, 2));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, A, GrB_Matrix_removeElement(A, 4, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, A, GrB_Matrix_removeElement(A, 0, 4));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_removeElement(badM, 0, 0));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_setElement_Scalar(A, nullptr, 0, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, A, GrB_Matrix_setElement_Scalar(A, s, 0, 4));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, U, GrB_Matrix_setElement_Scalar(U, s, 0, 0));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, s, GrB_Matrix_extractElement_Scalar(s, badM, 0, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, s, GrB_Matrix_extractElement_Scalar(s, A, 4, 0));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, s, GrB_Matrix_extractElement_Scalar(s, U, 0, 0));
  const GrB_Index I[] = {0, 1}, J[] = {1, 2}, Jbad[] = {1, 9}, Idup[] = {1, 1}, Jdup[] = {2, 2};
#define SNK_CHECK_MATRIX(T, value, in, out)                                                             \
  {                                                                                                     \
    value X[4] = {};                                                                                    \
    GrB_Matrix e = nullptr;                                                                             \
    ASSERT_EQ(GrB_Matrix_new(&e, GrB_FP64, 4, 4), GrB_SUCCESS);                                         \
    EXPECT_API_ERROR(GrB_NULL_POINTER, e, GrB_Matrix_build_##T(e, nullptr, J, X, 2, nullptr));          \
    EXPECT_API_ERROR(GrB_NULL_POINTER, e, GrB_Matrix_build_##T(e, I, nullptr, X, 2, nullptr));          \
    EXPECT_API_ERROR(GrB_NULL_POINTER, e, GrB_Matrix_build_##T(e, I, J, nullptr, 2, nullptr));          \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_build_##T(badM, I, J, X, 2, nullptr)); \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, e,                                                       \
                     GrB_Matrix_build_##T(e, I, J, X, 2, uninitialized<GrB_BinaryOp>()));               \
    EXPECT_API_ERROR(GrB_OUTPUT_NOT_EMPTY, A, GrB_Matrix_build_##T(A, I, J, X, 2, nullptr));            \
    EXPECT_API_ERROR(GrB_INDEX_OUT_OF_BOUNDS, e, GrB_Matrix_build_##T(e, I, Jbad, X, 2, nullptr));      \
    EXPECT_API_ERROR(GrB_INVALID_VALUE, e, GrB_Matrix_build_##T(e, Idup, Jdup, X, 2, nullptr));         \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, U, GrB_Matrix_build_##T(U, I, J, X, 2, nullptr));             \
    EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_setElement_##T(nullptr, X[0], 0, 0));        \
    EXPECT_API_ERROR(GrB_INVALID_INDEX, A, GrB_Matrix_setElement_##T(A, X[0], 4, 0));                   \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, U, GrB_Matrix_setElement_##T(U, X[0], 0, 0));                 \
    EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_extractElement_##T(nullptr, A, 0, 1));             \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_extractElement_##T(X, badM, 0, 0));  \
    EXPECT_API_ERROR(GrB_INVALID_INDEX, A, GrB_Matrix_extractElement_##T(X, A, 0, 4));                  \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, U, GrB_Matrix_extractElement_##T(X, U, 0, 0));                \
    GrB_Index I4[4], J4[4], cap = 3;                                                                    \
    EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_extractTuples_##T(I4, J4, X, nullptr, A));         \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_extractTuples_##T(I4, J4, X, &cap, badM)); \
    EXPECT_API_ERROR(GrB_INSUFFICIENT_SPACE, A, GrB_Matrix_extractTuples_##T(I4, J4, X, &cap, A));      \
    EXPECT_EQ(cap, 3u);                                                                                 \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, U, GrB_Matrix_extractTuples_##T(I4, J4, X, &cap, U));         \
    /* import / export: the type must be exactly T */                                                   \
    const GrB_Index p[] = {0, 1, 2, 2, 2}, idx[] = {1, 2}, pbad[] = {0, 2, 1, 2, 2}, idxbad[] = {1, 4}; \
    GrB_Matrix im = nullptr;                                                                            \
    GrB_Type other = std::strcmp(#T, "FP64") == 0 ? GrB_INT32 : GrB_FP64;                               \
    EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr,                                                         \
                     GrB_Matrix_import_##T(nullptr, GrB_##T, 4, 4, p, idx, X, 5, 2, 2, GrB_CSR_FORMAT)); \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, nullptr,                                                      \
                     GrB_Matrix_import_##T(&im, other, 4, 4, p, idx, X, 5, 2, 2, GrB_CSR_FORMAT));      \
    EXPECT_API_ERROR(GrB_INVALID_VALUE, nullptr,                                                        \
                     GrB_Matrix_import_##T(&im, GrB_##T, 4, 4, pbad, idx, X, 5, 2, 2, GrB_CSR_FORMAT)); \
    EXPECT_API_ERROR(GrB_INVALID_VALUE, nullptr,                                                        \
                     GrB_Matrix_import_##T(&im, GrB_##T, 4, 4, p, idx, X, 3, 2, 2, GrB_CSR_FORMAT));    \
    EXPECT_API_ERROR(GrB_INDEX_OUT_OF_BOUNDS, nullptr,                                                  \
                     GrB_Matrix_import_##T(&im, GrB_##T, 4, 4, p, idxbad, X, 5, 2, 2, GrB_CSC_FORMAT)); \
    EXPECT_API_ERROR(GrB_INVALID_VALUE, nullptr,                                                        \
                     GrB_Matrix_import_##T(&im, GrB_##T, 4, 4, p, idx, X, 5, 2, 2, static_cast<GrB_Format>(9))); \
    EXPECT_EQ(im, nullptr);                                                                             \
    GrB_Index np = 5, ni = 4, nx = 4, small = 1;                                                        \
    GrB_Index P5[5];                                                                                    \
    GrB_Matrix wrong = std::strcmp(#T, "FP64") == 0 ? U : e; /* a matrix whose type is not T */        \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, wrong,                                                        \
                     GrB_Matrix_export_##T(P5, I4, X, &np, &ni, &nx, GrB_CSR_FORMAT, wrong));           \
    EXPECT_API_ERROR(GrB_NULL_POINTER, e, GrB_Matrix_export_##T(P5, I4, X, nullptr, &ni, &nx, GrB_CSR_FORMAT, e)); \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr,                                                 \
                     GrB_Matrix_export_##T(P5, I4, X, &np, &ni, &nx, GrB_CSR_FORMAT, badM));            \
    if (std::strcmp(#T, "FP64") == 0) {                                                                 \
      EXPECT_API_ERROR(GrB_INSUFFICIENT_SPACE, A,                                                       \
                       GrB_Matrix_export_##T(P5, I4, X, &np, &small, &nx, GrB_CSR_FORMAT, A));          \
      EXPECT_EQ(small, 1u);                                                                             \
    }                                                                                                   \
    GrB_Matrix_free(&e);                                                                                \
  }
  SNK_FOR_EACH_BUILTIN_TYPE(SNK_CHECK_MATRIX)
  unsigned char ux[96] = {};
  GrB_Index I4[4], J4[4], P5[5], np = 5, ni = 4, nx = 4;
  EXPECT_API_ERROR(GrB_NULL_POINTER, U, GrB_Matrix_build_UDT(U, I, J, nullptr, 2, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_build_UDT(badM, I, J, ux, 2, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, U, GrB_Matrix_setElement_UDT(U, nullptr, 0, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, U, GrB_Matrix_setElement_UDT(U, ux, 0, 4));
  EXPECT_API_ERROR(GrB_NULL_POINTER, U, GrB_Matrix_extractElement_UDT(nullptr, U, 0, 0));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, U, GrB_Matrix_extractElement_UDT(ux, U, 4, 0));
  EXPECT_API_ERROR(GrB_NULL_POINTER, U, GrB_Matrix_extractTuples_UDT(I4, J4, ux, nullptr, U));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_extractTuples_UDT(I4, J4, ux, &n, badM));
  GrB_Matrix im = nullptr;
  const GrB_Index p[] = {0, 1, 2, 2, 2}, idx[] = {1, 2};
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_import_UDT(&im, nullptr, 4, 4, p, idx, ux, 5, 2, 2, GrB_CSR_FORMAT));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_import_UDT(&im, udt, 4, 4, nullptr, idx, ux, 5, 2, 2, GrB_CSR_FORMAT));
  EXPECT_EQ(im, nullptr);
  EXPECT_API_ERROR(GrB_NULL_POINTER, U, GrB_Matrix_export_UDT(P5, I4, ux, &np, nullptr, &nx, GrB_CSR_FORMAT, U));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_export_UDT(P5, I4, ux, &np, &ni, &nx, GrB_COO_FORMAT, badM));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_exportSize(nullptr, &ni, &nx, GrB_CSR_FORMAT, A));
  EXPECT_API_ERROR(GrB_INVALID_VALUE, A, GrB_Matrix_exportSize(&np, &ni, &nx, static_cast<GrB_Format>(5), A));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_exportSize(&np, &ni, &nx, GrB_CSR_FORMAT, badM));
  GrB_Format f;
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_exportHint(nullptr, A));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_exportHint(&f, badM));
}

// ---- serialize / deserialize ------------------------------------------------------------------------------
TEST_F(CapiErrors, Serialization) {
  GrB_Index size = 0;
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_serializeSize(nullptr, A));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_serializeSize(&size, badM));
  ASSERT_EQ(GrB_Matrix_serializeSize(&size, A), GrB_SUCCESS);
  std::vector<unsigned char> blob(size);
  GrB_Index small = size - 1;
  EXPECT_API_ERROR(GrB_INSUFFICIENT_SPACE, A, GrB_Matrix_serialize(blob.data(), &small, A));
  EXPECT_EQ(small, size - 1);
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_serialize(nullptr, &size, A));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_serialize(blob.data(), nullptr, A));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_serialize(blob.data(), &size, badM));
  ASSERT_EQ(GrB_Matrix_serialize(blob.data(), &size, A), GrB_SUCCESS);
  GrB_Matrix D = nullptr;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_deserialize(nullptr, nullptr, blob.data(), size));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_deserialize(&D, nullptr, nullptr, size));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, nullptr, GrB_Matrix_deserialize(&D, GrB_INT32, blob.data(), size));
  // Every truncation and every single-bit corruption is GrB_INVALID_OBJECT.
  for (GrB_Index n = 0; n < size; ++n) {
    EXPECT_EQ(GrB_Matrix_deserialize(&D, nullptr, blob.data(), n), GrB_INVALID_OBJECT) << "truncated to " << n;
  }
  for (GrB_Index k = 0; k < size; ++k) {
    for (int bit = 0; bit < 8; bit += 3) {
      std::vector<unsigned char> bad = blob;
      bad[k] ^= static_cast<unsigned char>(1u << bit);
      EXPECT_EQ(GrB_Matrix_deserialize(&D, nullptr, bad.data(), size), GrB_INVALID_OBJECT) << "byte " << k;
    }
  }
  EXPECT_EQ(D, nullptr);
  g_cases += static_cast<int>(size * 4);
  ASSERT_EQ(GrB_Matrix_deserialize(&D, nullptr, blob.data(), size), GrB_SUCCESS);
  EXPECT_EQ(fingerprint(D), blob);
  GrB_Matrix_free(&D);
}

// ---- operations --------------------------------------------------------------------------------------------
TEST_F(CapiErrors, Multiplication) {
  const GrB_Semiring sr = GrB_PLUS_TIMES_SEMIRING_FP64;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_mxm(nullptr, nullptr, nullptr, sr, A, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_mxm(badM, nullptr, nullptr, sr, A, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_mxm(C, badM, nullptr, sr, A, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_mxm(C, nullptr, uninitialized<GrB_BinaryOp>(), sr, A, A, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, C, GrB_mxm(C, nullptr, nullptr, nullptr, A, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_mxm(C, nullptr, nullptr, uninitialized<GrB_Semiring>(), A, A, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, C, GrB_mxm(C, nullptr, nullptr, sr, nullptr, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_mxm(C, nullptr, nullptr, sr, A, badM, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_mxm(C, nullptr, nullptr, sr, A, A, uninitialized<GrB_Descriptor>()));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_mxm(C, nullptr, nullptr, sr, A, A35, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_mxm(C, A35, nullptr, sr, A, A, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, C, GrB_mxm(C, nullptr, nullptr, sr, A, U, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, C, GrB_mxm(C, nullptr, GrB_LOR, GrB_PLUS_TIMES_SEMIRING_FP64, A, U, nullptr));
  for (int vxm = 0; vxm < 2; ++vxm) {
    auto f = [&](GrB_Vector out, GrB_Vector mask, GrB_Semiring op, GrB_Matrix M, GrB_Vector in) {
      return vxm ? GrB_vxm(out, mask, nullptr, op, in, M, nullptr) : GrB_mxv(out, mask, nullptr, op, M, in, nullptr);
    };
    EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, f(nullptr, nullptr, sr, A, u));
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, f(badV, nullptr, sr, A, u));
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, f(w, badV, sr, A, u));
    EXPECT_API_ERROR(GrB_NULL_POINTER, w, f(w, nullptr, nullptr, A, u));
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, f(w, nullptr, sr, badM, u));
    EXPECT_API_ERROR(GrB_NULL_POINTER, w, f(w, nullptr, sr, A, nullptr));
    EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, f(w, nullptr, sr, A, v5));
    EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, f(w, v5, sr, A, u));
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, w, f(w, nullptr, sr, A, vu));
  }
}

TEST_F(CapiErrors, ElementWise) {
#define SNK_CHECK_EWISE(Kind, Op, op)                                                                   \
  {                                                                                                     \
    EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_##Kind##_##Op(nullptr, nullptr, nullptr, op, A, A, nullptr)); \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_##Kind##_##Op(C, badM, nullptr, op, A, A, nullptr)); \
    EXPECT_API_ERROR(GrB_NULL_POINTER, C, GrB_Matrix_##Kind##_##Op(C, nullptr, nullptr, nullptr, A, A, nullptr)); \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_##Kind##_##Op(C, nullptr, nullptr, op, A, badM, nullptr)); \
    EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Matrix_##Kind##_##Op(C, nullptr, nullptr, op, A, A35, nullptr)); \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, C, GrB_Matrix_##Kind##_##Op(C, nullptr, nullptr, op, A, U, nullptr)); \
    EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_##Kind##_##Op(nullptr, nullptr, nullptr, op, u, u, nullptr)); \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Vector_##Kind##_##Op(w, badV, nullptr, op, u, u, nullptr)); \
    EXPECT_API_ERROR(GrB_NULL_POINTER, w, GrB_Vector_##Kind##_##Op(w, nullptr, nullptr, op, nullptr, u, nullptr)); \
    EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, GrB_Vector_##Kind##_##Op(w, nullptr, nullptr, op, u, v5, nullptr)); \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, w, GrB_Vector_##Kind##_##Op(w, nullptr, nullptr, op, u, vu, nullptr)); \
  }
  SNK_CHECK_EWISE(eWiseAdd, Semiring, GrB_PLUS_TIMES_SEMIRING_FP64)
  SNK_CHECK_EWISE(eWiseAdd, Monoid, GrB_PLUS_MONOID_FP64)
  SNK_CHECK_EWISE(eWiseAdd, BinaryOp, GrB_PLUS_FP64)
  SNK_CHECK_EWISE(eWiseMult, Semiring, GrB_PLUS_TIMES_SEMIRING_FP64)
  SNK_CHECK_EWISE(eWiseMult, Monoid, GrB_PLUS_MONOID_FP64)
  SNK_CHECK_EWISE(eWiseMult, BinaryOp, GrB_PLUS_FP64)
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C,
                   GrB_Matrix_eWiseAdd_Monoid(C, nullptr, nullptr, uninitialized<GrB_Monoid>(), A, A, nullptr));
}

TEST_F(CapiErrors, KroneckerTransposeExtractAssign) {
#define SNK_CHECK_KRON(Op, op)                                                                          \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_kronecker_##Op(nullptr, nullptr, nullptr, op, A, A, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_kronecker_##Op(C, nullptr, nullptr, op, badM, A, nullptr)); \
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Matrix_kronecker_##Op(C, nullptr, nullptr, op, A, A, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, C, GrB_Matrix_kronecker_##Op(C, nullptr, nullptr, nullptr, A, A, nullptr));
  SNK_CHECK_KRON(BinaryOp, GrB_TIMES_FP64)
  SNK_CHECK_KRON(Monoid, GrB_TIMES_MONOID_FP64)
  SNK_CHECK_KRON(Semiring, GrB_PLUS_TIMES_SEMIRING_FP64)

  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_transpose(nullptr, nullptr, nullptr, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_transpose(C, nullptr, nullptr, badM, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_transpose(C, nullptr, nullptr, A35, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, C, GrB_transpose(C, nullptr, nullptr, U, nullptr));

  const GrB_Index I2[] = {0, 1};
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_extract(nullptr, nullptr, nullptr, A, GrB_ALL, 4, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, C, GrB_Matrix_extract(C, nullptr, nullptr, A, nullptr, 4, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_extract(C, nullptr, nullptr, badM, GrB_ALL, 4, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Matrix_extract(C, nullptr, nullptr, A, I2, 2, GrB_ALL, 4, nullptr));
  const GrB_Index Jbad4[] = {0, 1, 2, 4};
  EXPECT_API_ERROR(GrB_INDEX_OUT_OF_BOUNDS, C, GrB_Matrix_extract(C, nullptr, nullptr, A, GrB_ALL, 4, Jbad4, 4, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_extract(nullptr, nullptr, nullptr, u, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Vector_extract(w, nullptr, nullptr, badV, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, GrB_Vector_extract(w, nullptr, nullptr, u, I2, 2, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, w, GrB_Vector_extract(w, nullptr, nullptr, vu, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Col_extract(nullptr, nullptr, nullptr, A, GrB_ALL, 4, 0, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Col_extract(w, nullptr, nullptr, badM, GrB_ALL, 4, 0, nullptr));
  EXPECT_API_ERROR(GrB_INVALID_INDEX, w, GrB_Col_extract(w, nullptr, nullptr, A, GrB_ALL, 4, 4, nullptr));

  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_assign(nullptr, nullptr, nullptr, A, GrB_ALL, 4, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_assign(C, nullptr, nullptr, badM, GrB_ALL, 4, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Matrix_assign(C, nullptr, nullptr, A35, GrB_ALL, 4, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, C, GrB_Matrix_assign(C, nullptr, nullptr, U, GrB_ALL, 4, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_assign(nullptr, nullptr, nullptr, u, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, GrB_Vector_assign(w, nullptr, nullptr, v5, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, w, GrB_Vector_assign(w, nullptr, nullptr, vu, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Col_assign(nullptr, nullptr, nullptr, u, GrB_ALL, 4, 0, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Col_assign(C, nullptr, nullptr, badV, GrB_ALL, 4, 0, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Col_assign(C, nullptr, nullptr, v5, GrB_ALL, 4, 0, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Row_assign(nullptr, nullptr, nullptr, u, 0, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Row_assign(C, badV, nullptr, u, 0, GrB_ALL, 4, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Row_assign(C, nullptr, nullptr, v5, 0, GrB_ALL, 4, nullptr));
}

TEST_F(CapiErrors, ScalarArgumentFamilies) {
  const GrB_IndexUnaryOp badIdx = uninitialized<GrB_IndexUnaryOp>();
  const GrB_BinaryOp badOp = uninitialized<GrB_BinaryOp>();
  const GrB_Scalar badS = uninitialized<GrB_Scalar>();
#define SNK_CHECK_SCALAR_ARGS(T, value, x)                                                              \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_assign_##T(nullptr, nullptr, nullptr, x, GrB_ALL, 4, GrB_ALL, 4, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_assign_##T(C, badM, nullptr, x, GrB_ALL, 4, GrB_ALL, 4, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, C, GrB_Matrix_assign_##T(C, nullptr, nullptr, x, nullptr, 4, GrB_ALL, 4, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_assign_##T(nullptr, nullptr, nullptr, x, GrB_ALL, 4, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Vector_assign_##T(w, badV, nullptr, x, GrB_ALL, 4, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_apply_BinaryOp1st_##T(nullptr, nullptr, nullptr, GrB_PLUS_FP64, x, A, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_apply_BinaryOp1st_##T(C, nullptr, nullptr, badOp, x, A, nullptr)); \
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Matrix_apply_BinaryOp1st_##T(C, nullptr, nullptr, GrB_PLUS_FP64, x, A35, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_apply_BinaryOp2nd_##T(nullptr, nullptr, nullptr, GrB_PLUS_FP64, A, x, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_apply_BinaryOp2nd_##T(C, nullptr, nullptr, GrB_PLUS_FP64, badM, x, nullptr)); \
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Matrix_apply_BinaryOp2nd_##T(C, nullptr, nullptr, GrB_PLUS_FP64, A35, x, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_apply_BinaryOp1st_##T(nullptr, nullptr, nullptr, GrB_PLUS_FP64, x, u, nullptr)); \
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, GrB_Vector_apply_BinaryOp1st_##T(w, nullptr, nullptr, GrB_PLUS_FP64, x, v5, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_apply_BinaryOp2nd_##T(nullptr, nullptr, nullptr, GrB_PLUS_FP64, u, x, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Vector_apply_BinaryOp2nd_##T(w, nullptr, nullptr, GrB_PLUS_FP64, badV, x, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_apply_IndexOp_##T(nullptr, nullptr, nullptr, GrB_ROWINDEX_INT64, A, x, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_apply_IndexOp_##T(C, nullptr, nullptr, badIdx, A, x, nullptr)); \
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Matrix_apply_IndexOp_##T(C, nullptr, nullptr, GrB_ROWINDEX_INT64, A35, x, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_apply_IndexOp_##T(nullptr, nullptr, nullptr, GrB_ROWINDEX_INT64, u, x, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Vector_apply_IndexOp_##T(w, nullptr, nullptr, badIdx, u, x, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_select_##T(nullptr, nullptr, nullptr, GrB_TRIL, A, x, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_select_##T(C, nullptr, nullptr, GrB_TRIL, badM, x, nullptr)); \
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Matrix_select_##T(C, nullptr, nullptr, GrB_TRIL, A35, x, nullptr)); \
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_select_##T(nullptr, nullptr, nullptr, GrB_ROWLE, u, x, nullptr)); \
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Vector_select_##T(w, nullptr, nullptr, badIdx, u, x, nullptr)); \
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, GrB_Vector_select_##T(w, nullptr, nullptr, GrB_ROWLE, v5, x, nullptr));
#define SNK_CHECK_SCALAR_ARGS_BUILTIN(T, value, in, out) \
  {                                                      \
    value x{};                                           \
    SNK_CHECK_SCALAR_ARGS(T, value, x)                   \
  }
  SNK_FOR_EACH_BUILTIN_TYPE(SNK_CHECK_SCALAR_ARGS_BUILTIN)
  {
    double bytes = 1;
    const void* x = &bytes;
    SNK_CHECK_SCALAR_ARGS(UDT, const void*, x)
    // A NULL value pointer.
    EXPECT_API_ERROR(GrB_NULL_POINTER, C, GrB_Matrix_assign_UDT(C, nullptr, nullptr, nullptr, GrB_ALL, 4, GrB_ALL, 4, nullptr));
    EXPECT_API_ERROR(GrB_NULL_POINTER, C, GrB_Matrix_select_UDT(C, nullptr, nullptr, GrB_TRIL, A, nullptr, nullptr));
  }
  {
    SNK_CHECK_SCALAR_ARGS(Scalar, GrB_Scalar, s)
    EXPECT_API_ERROR(GrB_NULL_POINTER, C, GrB_Matrix_assign_Scalar(C, nullptr, nullptr, nullptr, GrB_ALL, 4, GrB_ALL, 4, nullptr));
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_apply_BinaryOp1st_Scalar(C, nullptr, nullptr, GrB_PLUS_FP64, badS, A, nullptr));
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Vector_select_Scalar(w, nullptr, nullptr, GrB_ROWLE, u, badS, nullptr));
  }
  // Domains: a UDT container with a builtin operator.
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, C, GrB_Matrix_apply_BinaryOp2nd_FP64(C, nullptr, nullptr, GrB_PLUS_FP64, U, 1.0, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, U, GrB_Matrix_assign_FP64(U, nullptr, nullptr, 1.0, GrB_ALL, 4, GrB_ALL, 4, nullptr));
  // Unary apply.
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_apply(nullptr, nullptr, nullptr, GrB_AINV_FP64, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, C, GrB_Matrix_apply(C, nullptr, nullptr, uninitialized<GrB_UnaryOp>(), A, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, C, GrB_Matrix_apply(C, nullptr, nullptr, GrB_AINV_FP64, A35, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, C, GrB_Matrix_apply(C, nullptr, nullptr, GrB_AINV_FP64, U, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_apply(nullptr, nullptr, nullptr, GrB_AINV_FP64, u, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, w, GrB_Vector_apply(w, nullptr, nullptr, nullptr, u, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, GrB_Vector_apply(w, nullptr, nullptr, GrB_AINV_FP64, v5, nullptr));
}

TEST_F(CapiErrors, Reduce) {
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_reduce_Monoid(nullptr, nullptr, nullptr, GrB_PLUS_MONOID_FP64, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Matrix_reduce_Monoid(w, nullptr, nullptr, uninitialized<GrB_Monoid>(), A, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, GrB_Matrix_reduce_Monoid(w, nullptr, nullptr, GrB_PLUS_MONOID_FP64, A35, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, w, GrB_Matrix_reduce_Monoid(w, nullptr, nullptr, GrB_PLUS_MONOID_FP64, U, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_reduce_BinaryOp(nullptr, nullptr, nullptr, GrB_PLUS_FP64, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, w, GrB_Matrix_reduce_BinaryOp(w, nullptr, nullptr, GrB_PLUS_FP64, badM, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, w, GrB_Matrix_reduce_BinaryOp(w, nullptr, nullptr, GrB_PLUS_FP64, A35, nullptr));
#define SNK_CHECK_REDUCE(T, value, in, out)                                                             \
  {                                                                                                     \
    value c{};                                                                                          \
    EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_reduce_##T(nullptr, nullptr, GrB_PLUS_MONOID_FP64, A, nullptr)); \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_reduce_##T(&c, nullptr, GrB_PLUS_MONOID_FP64, badM, nullptr)); \
    EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_reduce_##T(&c, nullptr, nullptr, A, nullptr));     \
    EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, U, GrB_Matrix_reduce_##T(&c, nullptr, GrB_PLUS_MONOID_FP64, U, nullptr)); \
    EXPECT_API_ERROR(GrB_NULL_POINTER, u, GrB_Vector_reduce_##T(nullptr, nullptr, GrB_PLUS_MONOID_FP64, u, nullptr)); \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_reduce_##T(&c, nullptr, GrB_PLUS_MONOID_FP64, badV, nullptr)); \
    EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, u, GrB_Vector_reduce_##T(&c, nullptr, uninitialized<GrB_Monoid>(), u, nullptr)); \
  }
  SNK_FOR_EACH_BUILTIN_TYPE(SNK_CHECK_REDUCE)
  unsigned char c[24];
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, GrB_Matrix_reduce_UDT(nullptr, nullptr, GrB_PLUS_MONOID_FP64, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Matrix_reduce_UDT(c, nullptr, GrB_PLUS_MONOID_FP64, badM, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, u, GrB_Vector_reduce_UDT(nullptr, nullptr, GrB_PLUS_MONOID_FP64, u, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, GrB_Vector_reduce_UDT(c, nullptr, GrB_PLUS_MONOID_FP64, badV, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_reduce_Monoid_Scalar(nullptr, nullptr, GrB_PLUS_MONOID_FP64, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, s, GrB_Matrix_reduce_Monoid_Scalar(s, nullptr, GrB_PLUS_MONOID_FP64, badM, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, su, GrB_Matrix_reduce_Monoid_Scalar(su, nullptr, GrB_PLUS_MONOID_FP64, A, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Matrix_reduce_BinaryOp_Scalar(nullptr, nullptr, GrB_PLUS_FP64, A, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, s, GrB_Matrix_reduce_BinaryOp_Scalar(s, nullptr, uninitialized<GrB_BinaryOp>(), A, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_reduce_Monoid_Scalar(nullptr, nullptr, GrB_PLUS_MONOID_FP64, u, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, s, GrB_Vector_reduce_Monoid_Scalar(s, nullptr, GrB_PLUS_MONOID_FP64, badV, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, GrB_Vector_reduce_BinaryOp_Scalar(nullptr, nullptr, GrB_PLUS_FP64, u, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, s, GrB_Vector_reduce_BinaryOp_Scalar(s, nullptr, GrB_PLUS_FP64, badV, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, s, GrB_Vector_reduce_BinaryOp_Scalar(s, nullptr, GrB_MINUS_FP64, u, nullptr));
}

TEST_F(CapiErrors, Extensions) {
  char name[64];
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_Backend_set(nullptr));
  EXPECT_API_ERROR(GrB_INVALID_VALUE, nullptr, SNK_Backend_set("no-such-backend"));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_Backend_get(nullptr, 8));
  EXPECT_API_ERROR(GrB_INSUFFICIENT_SPACE, nullptr, SNK_Backend_get(name, 2));
  uint64_t count;
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_Fallback_count("kokkos", "mxm", nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_Fallback_total(nullptr, &count));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_Deterministic_get(nullptr));
  SNK_Bind policy = SNK_BIND_NEVER;
  EXPECT_EQ(GrB_SUCCESS, SNK_Bind_get(&policy));
  EXPECT_API_ERROR(GrB_INVALID_VALUE, nullptr, SNK_Bind_set(static_cast<SNK_Bind>(5)));
  SNK_Bind after = SNK_BIND_NEVER;
  EXPECT_EQ(GrB_SUCCESS, SNK_Bind_get(&after));
  EXPECT_EQ(policy, after) << "a refused policy changed the setting";
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_Bind_get(nullptr));
  GrB_Matrix M = nullptr;
  const char bad[] = "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n";
  EXPECT_API_ERROR(GrB_INVALID_VALUE, nullptr, SNK_Matrix_read_mtx(&M, GrB_FP64, bad, sizeof bad - 1));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_Matrix_read_mtx(&M, GrB_FP64, nullptr, 4));
  const char good[] = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n";
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, nullptr, SNK_Matrix_read_mtx(&M, udt, good, sizeof good - 1));
  EXPECT_EQ(M, nullptr);
}

// The device memory exchange: NULL and uninitialized handles, a NULL device pointer, a pattern of other dimensions,
// and on a host backend (reference, kokkos) GrB_NOT_IMPLEMENTED for every call, A unchanged each time.
TEST_F(CapiErrors, DeviceExchange) {
  double host[16] = {0};
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_Matrix_import_device_full(nullptr, host, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, SNK_Matrix_import_device_full(badM, host, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, SNK_Matrix_import_device_full(A, nullptr, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, SNK_Matrix_import_device_values(A, nullptr, host, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, A, SNK_Matrix_import_device_values(A, A35, host, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, SNK_Matrix_export_device_dense(nullptr, A, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, A, SNK_Matrix_export_device_values(nullptr, A, nullptr));
  for (const char* backend : {"reference", "kokkos"}) {
    if (SNK_Thread_backend_set(backend) != GrB_SUCCESS) continue;   // not built
    SCOPED_TRACE(backend);
    EXPECT_API_ERROR(GrB_NOT_IMPLEMENTED, A, SNK_Matrix_import_device_full(A, host, nullptr));
    EXPECT_API_ERROR(GrB_NOT_IMPLEMENTED, A, SNK_Matrix_import_device_values(A, C, host, nullptr));
    EXPECT_API_ERROR(GrB_NOT_IMPLEMENTED, A, SNK_Matrix_export_device_dense(host, A, nullptr));
    EXPECT_API_ERROR(GrB_NOT_IMPLEMENTED, A, SNK_Matrix_export_device_values(host, A, nullptr));
    for (double x : host) EXPECT_EQ(x, 0.0) << "a refused export wrote";
  }
  ASSERT_EQ(SNK_Thread_backend_set(nullptr), GrB_SUCCESS);
}

// The products on device memory: NULL and uninitialized handles, NULL pointers, extents that do not match A, strides
// without a unit one, a type other than FP32 / FP64 (host arrays stand for device ones: nothing reaches a kernel); on a
// host backend GrB_NOT_IMPLEMENTED for each, nothing written.
TEST_F(CapiErrors, DeviceProducts) {
  GrB_Matrix F = nullptr, I = nullptr;   // 4 x 5, FP64 and INT32, with entries
  ASSERT_EQ(GrB_Matrix_new(&F, GrB_FP64, 4, 5), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_new(&I, GrB_INT32, 4, 5), GrB_SUCCESS);
  for (GrB_Index k = 0; k < 4; ++k) {
    ASSERT_EQ(GrB_Matrix_setElement_FP64(F, 1.0, k, k), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_setElement_INT32(I, 1, k, k), GrB_SUCCESS);
  }
  double values[4] = {1, 1, 1, 1}, x[15], y[12], z[4], sums[4];
  for (double& v : x) v = 1;
  for (double* out : {y, z, sums})
    for (int k = 0; k < (out == y ? 12 : 4); ++k) out[k] = 7;
  const SNK_DeviceDense X{x, 5, 3, 3, 1}, Y{y, 4, 3, 3, 1}, Yt{x, 3, 5, 5, 1};
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_mxm_device(Y, nullptr, values, false, X, nullptr));
  EXPECT_API_ERROR(GrB_UNINITIALIZED_OBJECT, nullptr, SNK_mxm_device(Y, badM, values, false, X, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, F, SNK_mxm_device({nullptr, 4, 3, 3, 1}, F, values, false, X, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, F, SNK_mxm_device(Y, F, nullptr, false, X, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, F, SNK_mxm_device(Y, F, values, true, X, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, F, SNK_mxm_device({y, 4, 2, 2, 1}, F, values, false, X, nullptr));
  EXPECT_API_ERROR(GrB_INVALID_VALUE, F, SNK_mxm_device(Y, F, values, false, {x, 5, 3, 3, 3}, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, I, SNK_mxm_device(Y, I, values, false, X, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, F, SNK_mxm_device_sampled(nullptr, F, Y, Yt, nullptr));
  EXPECT_API_ERROR(GrB_DIMENSION_MISMATCH, F, SNK_mxm_device_sampled(z, F, X, Yt, nullptr));
  EXPECT_API_ERROR(GrB_NULL_POINTER, nullptr, SNK_reduce_device_rows(nullptr, GrB_FP64, Y, nullptr));
  EXPECT_API_ERROR(GrB_DOMAIN_MISMATCH, nullptr, SNK_reduce_device_rows(sums, GrB_INT32, Y, nullptr));
  for (const char* backend : {"reference", "kokkos"}) {
    if (SNK_Thread_backend_set(backend) != GrB_SUCCESS) continue;   // not built
    SCOPED_TRACE(backend);
    EXPECT_API_ERROR(GrB_NOT_IMPLEMENTED, F, SNK_mxm_device(Y, F, values, false, X, nullptr));
    EXPECT_API_ERROR(GrB_NOT_IMPLEMENTED, F, SNK_mxm_device_sampled(z, F, Y, Yt, nullptr));
    EXPECT_API_ERROR(GrB_NOT_IMPLEMENTED, nullptr, SNK_reduce_device_rows(sums, GrB_FP64, Y, nullptr));
  }
  ASSERT_EQ(SNK_Thread_backend_set(nullptr), GrB_SUCCESS);
  for (double v : y) EXPECT_EQ(v, 7.0) << "a refused product wrote";
  for (double v : z) EXPECT_EQ(v, 7.0) << "a refused sampled product wrote";
  for (double v : sums) EXPECT_EQ(v, 7.0) << "refused row sums were written";
  GrB_Matrix_free(&F);
  GrB_Matrix_free(&I);
}

// How many API-error cases the tests of this run checked: a report printed at the end of the run, not a test
// (each case is an expectation of the tests above).
class CaseCountReport : public ::testing::Environment {
 public:
  void TearDown() override { std::printf("[capi] API-error cases checked: %d\n", g_cases); }
};
const ::testing::Environment* const kCaseCountReport = ::testing::AddGlobalTestEnvironment(new CaseCountReport);

}  // namespace
