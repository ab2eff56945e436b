// tests/capi/test_gxb_options.cpp: SuiteSparse's option functions in GraphBLAS.h (GxB_Global_Option_get /
// _set, GxB_Matrix_Option_get / _set, GxB_Vector_Option_get / _set, GxB_Desc_get / _set, GxB_Descriptor_get,
// their typed forms, and the C++ overloads of GxB_get / GxB_set).
//
// Every field snack answers, through the variadic form and the typed one: its value (the library's and the
// API's names, versions and dates, GrB_init's mode, the by-row format, the sparsity of a sparse and of a
// hypersparse matrix, the descriptor's four fields), what can be set and reads back. Then every error:
// GxB_BY_COL, a burble turned on, a narrower sparsity control, a read-only field, every field snack does
// not support, a field of another object, a value kind the field does not hold, a NULL value, a NULL or
// uninitialized object, a predefined descriptor; each checked for its code, a message naming the field, an
// output left unwritten and an object left as it was. The C11 GxB_get / GxB_set are checked by
// scripts/check-capi-coverage.sh.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "GraphBLAS.h"
#include "capi_test_util.hpp"

namespace {

using snk_test::uninitialized;

std::string last_error() {
  const char* e = nullptr;
  SNK_last_error(&e);
  return e ? e : "";
}

template <class H>
std::string error_of(H obj) {
  const char* e = nullptr;
  if (GrB_error(&e, obj) != GrB_SUCCESS || e == nullptr) return "";
  return e;
}

// A matrix's entries and dimensions, to check that a failing call changed nothing.
std::string snapshot(GrB_Matrix A) {
  GrB_Index n = 0;
  if (GrB_Matrix_serializeSize(&n, A) != GrB_SUCCESS) return "?";
  std::vector<char> blob(n);
  if (GrB_Matrix_serialize(blob.data(), &n, A) != GrB_SUCCESS) return "?";
  return std::string(blob.data(), n);
}
std::string snapshot(GrB_Vector v) {
  GrB_Index n = 0, size = 0;
  GrB_Vector_nvals(&n, v);
  GrB_Vector_size(&size, v);
  std::string s = std::to_string(size) + ":" + std::to_string(n);
  std::vector<GrB_Index> I(n);
  std::vector<int32_t> X(n);
  if (n > 0 && GrB_Vector_extractTuples_INT32(I.data(), X.data(), &n, v) == GrB_SUCCESS) {
    for (GrB_Index k = 0; k < n; ++k) s += ";" + std::to_string(I[k]) + "=" + std::to_string(X[k]);
  }
  return s;
}
std::string snapshot(GrB_Descriptor d) {
  std::string s;
  for (GrB_Desc_Field f : {GrB_OUTP, GrB_MASK, GrB_INP0, GrB_INP1}) {
    GrB_Desc_Value v = static_cast<GrB_Desc_Value>(-1);
    s += std::to_string(GxB_Descriptor_get(&v, d, f)) + "/" + std::to_string(static_cast<int>(v)) + ";";
  }
  return s;
}

// Runs `call` (a failing option call): its code must be `expected`, its message (GrB_error of `obj`, or the
// thread's last one) must contain `needle`, and `obj` must be as before.
#define EXPECT_OPTION_ERROR(expected, needle, obj, call)                                                \
  do {                                                                                                  \
    const std::string before_ = snapshot(obj);                                                          \
    const GrB_Info info_ = (call);                                                                      \
    EXPECT_EQ(info_, expected) << #call;                                                                \
    EXPECT_NE(last_error().find(needle), std::string::npos) << #call << ": " << last_error();           \
    EXPECT_NE(error_of(obj).find(needle), std::string::npos) << #call << ": " << error_of(obj);         \
    EXPECT_EQ(snapshot(obj), before_) << "changed by " << #call;                                        \
  } while (0)
// The same for the global options (the message is the thread's last one).
#define EXPECT_GLOBAL_ERROR(expected, needle, call)                                                     \
  do {                                                                                                  \
    const GrB_Info info_ = (call);                                                                      \
    EXPECT_EQ(info_, expected) << #call;                                                                \
    EXPECT_NE(last_error().find(needle), std::string::npos) << #call << ": " << last_error();           \
  } while (0)

// The SuiteSparse option fields snack does not support: every get and set form gives GrB_INVALID_VALUE.
const GxB_Option_Field kUnsupportedGlobal[] = {
    GxB_HYPER_SWITCH, GxB_BITMAP_SWITCH, GxB_LIBRARY_URL,  GxB_LIBRARY_LICENSE,   GxB_LIBRARY_OPENMP,
    GxB_GLOBAL_NTHREADS, GxB_GLOBAL_CHUNK, GxB_PRINTF,     GxB_FLUSH,             GxB_MEMORY_POOL,
    GxB_PRINT_1BASED, GxB_GLOBAL_GPU_CONTROL, GxB_GLOBAL_GPU_CHUNK};
const char* const kUnsupportedGlobalNames[] = {
    "GxB_HYPER_SWITCH", "GxB_BITMAP_SWITCH", "GxB_LIBRARY_URL", "GxB_LIBRARY_LICENSE", "GxB_LIBRARY_OPENMP",
    "GxB_NTHREADS",     "GxB_CHUNK",         "GxB_PRINTF",      "GxB_FLUSH",           "GxB_MEMORY_POOL",
    "GxB_PRINT_1BASED", "GxB_GPU_CONTROL",   "GxB_GPU_CHUNK"};
const GxB_Option_Field kReadOnlyGlobal[] = {
    GxB_MODE,     GxB_LIBRARY_NAME, GxB_LIBRARY_VERSION, GxB_LIBRARY_DATE,   GxB_LIBRARY_ABOUT,
    GxB_LIBRARY_COMPILE_DATE, GxB_LIBRARY_COMPILE_TIME, GxB_API_VERSION, GxB_API_DATE, GxB_API_ABOUT,
    GxB_API_URL, GxB_COMPILER_NAME, GxB_COMPILER_VERSION};

class GxbOptions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const GrB_Info info = GrB_init(GrB_NONBLOCKING);
    ASSERT_TRUE(info == GrB_SUCCESS || info == GrB_INVALID_VALUE);
  }
  void SetUp() override {
    ASSERT_EQ(GrB_Matrix_new(&A, GrB_FP64, 4, 5), GrB_SUCCESS);
    const GrB_Index I[] = {0, 1, 3}, J[] = {1, 2, 4};
    const double X[] = {1, 2.5, -3};
    ASSERT_EQ(GrB_Matrix_build_FP64(A, I, J, X, 3, nullptr), GrB_SUCCESS);
    // 10^6 rows and 3 entries: hypersparse by snack's size rule.
    ASSERT_EQ(GrB_Matrix_new(&H, GrB_INT32, 1000000, 1000000), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_setElement_INT32(H, 1, 7, 7), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_setElement_INT32(H, 2, 500000, 3), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_setElement_INT32(H, 3, 999999, 999999), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_new(&v, GrB_INT32, 1000000), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_setElement_INT32(v, 7, 12), GrB_SUCCESS);
    ASSERT_EQ(GrB_Descriptor_new(&d), GrB_SUCCESS);
  }
  void TearDown() override {
    GrB_free(&A);
    GrB_free(&H);
    GrB_free(&v);
    GrB_free(&d);
  }
  GrB_Matrix A = nullptr, H = nullptr;
  GrB_Vector v = nullptr;
  GrB_Descriptor d = nullptr;
};

// ---- global options --------------------------------------------------------------------------------------

TEST_F(GxbOptions, GlobalFormatModeAndBurble) {
  GxB_Format_Value format = GxB_NO_FORMAT;
  ASSERT_EQ(GxB_Global_Option_get(GxB_FORMAT, &format), GrB_SUCCESS);
  EXPECT_EQ(format, GxB_BY_ROW);
  int32_t i = -7;
  ASSERT_EQ(GxB_Global_Option_get_INT32(GxB_FORMAT, &i), GrB_SUCCESS);
  EXPECT_EQ(i, GxB_BY_ROW);
  EXPECT_EQ(GxB_FORMAT_DEFAULT, GxB_BY_ROW);

  GrB_Mode mode = static_cast<GrB_Mode>(-1);
  ASSERT_EQ(GxB_Global_Option_get(GxB_MODE, &mode), GrB_SUCCESS);
  EXPECT_EQ(mode, GrB_NONBLOCKING);
  int32_t blocking = -1;
  ASSERT_EQ(GrB_Global_get_INT32(GrB_GLOBAL, &blocking, GrB_BLOCKING_MODE), GrB_SUCCESS);
  ASSERT_EQ(GxB_Global_Option_get_INT32(GxB_MODE, &i), GrB_SUCCESS);
  EXPECT_EQ(i, blocking);

  bool burble = true;
  ASSERT_EQ(GxB_Global_Option_get(GxB_BURBLE, &burble), GrB_SUCCESS);
  EXPECT_FALSE(burble);
  ASSERT_EQ(GxB_Global_Option_get_INT32(GxB_BURBLE, &i), GrB_SUCCESS);
  EXPECT_EQ(i, 0);

  // The values snack holds can be set (nothing changes).
  EXPECT_EQ(GxB_Global_Option_set(GxB_FORMAT, GxB_BY_ROW), GrB_SUCCESS);
  EXPECT_EQ(GxB_Global_Option_set_INT32(GxB_FORMAT, GxB_BY_ROW), GrB_SUCCESS);
  EXPECT_EQ(GxB_Global_Option_set(GxB_BURBLE, false), GrB_SUCCESS);
  EXPECT_EQ(GxB_Global_Option_set_INT32(GxB_BURBLE, 0), GrB_SUCCESS);
  ASSERT_EQ(GxB_Global_Option_get(GxB_FORMAT, &format), GrB_SUCCESS);
  EXPECT_EQ(format, GxB_BY_ROW);
}

TEST_F(GxbOptions, GlobalLibraryAndApi) {
  char* name = nullptr;
  ASSERT_EQ(GxB_Global_Option_get(GxB_LIBRARY_NAME, &name), GrB_SUCCESS);
  ASSERT_NE(name, nullptr);
  EXPECT_STREQ(name, "snack");
  char* same = nullptr;
  ASSERT_EQ(GxB_Global_Option_get_CHAR(GxB_LIBRARY_NAME, &same), GrB_SUCCESS);
  EXPECT_STREQ(same, "snack");

  int ver[3] = {-1, -1, -1};
  ASSERT_EQ(GxB_Global_Option_get(GxB_LIBRARY_VERSION, ver), GrB_SUCCESS);
  EXPECT_EQ(ver[0], SNK_VERSION_MAJOR);
  EXPECT_EQ(ver[1], SNK_VERSION_MINOR);
  EXPECT_EQ(ver[2], SNK_VERSION_PATCH);
  int32_t ver32[3] = {-1, -1, -1};
  ASSERT_EQ(GxB_Global_Option_get_INT32(GxB_LIBRARY_VERSION, ver32), GrB_SUCCESS);
  EXPECT_EQ(ver32[0], SNK_VERSION_MAJOR);
  EXPECT_EQ(ver32[1], SNK_VERSION_MINOR);
  EXPECT_EQ(ver32[2], SNK_VERSION_PATCH);

  int api[3] = {-1, -1, -1};
  ASSERT_EQ(GxB_Global_Option_get(GxB_API_VERSION, api), GrB_SUCCESS);
  EXPECT_EQ(api[0], 2);
  EXPECT_EQ(api[1], 1);
  EXPECT_EQ(api[2], 0);

  // The build date as "Mmm d, yyyy", and the compile date and time as the compiler gives them.
  char* date = nullptr;
  ASSERT_EQ(GxB_Global_Option_get(GxB_LIBRARY_DATE, &date), GrB_SUCCESS);
  char* compile_date = nullptr;
  ASSERT_EQ(GxB_Global_Option_get(GxB_LIBRARY_COMPILE_DATE, &compile_date), GrB_SUCCESS);
  ASSERT_EQ(std::strlen(compile_date), 11u);   // "Dec  2 2025"
  const std::string cd = compile_date;
  const std::string day = cd[4] == ' ' ? cd.substr(5, 1) : cd.substr(4, 2);
  EXPECT_EQ(std::string(date), cd.substr(0, 4) + day + ", " + cd.substr(7));
  char* compile_time = nullptr;
  ASSERT_EQ(GxB_Global_Option_get_CHAR(GxB_LIBRARY_COMPILE_TIME, &compile_time), GrB_SUCCESS);
  EXPECT_EQ(std::strlen(compile_time), 8u);   // "hh:mm:ss"

  char* text = nullptr;
  ASSERT_EQ(GxB_Global_Option_get(GxB_API_DATE, &text), GrB_SUCCESS);
  EXPECT_STREQ(text, "Dec 22, 2023");
  ASSERT_EQ(GxB_Global_Option_get(GxB_API_URL, &text), GrB_SUCCESS);
  EXPECT_STREQ(text, "https://graphblas.org");
  ASSERT_EQ(GxB_Global_Option_get(GxB_API_ABOUT, &text), GrB_SUCCESS);
  EXPECT_NE(std::string(text).find("2.1"), std::string::npos);
  ASSERT_EQ(GxB_Global_Option_get(GxB_LIBRARY_ABOUT, &text), GrB_SUCCESS);
  EXPECT_NE(std::string(text).find("snack"), std::string::npos);

  ASSERT_EQ(GxB_Global_Option_get(GxB_COMPILER_NAME, &text), GrB_SUCCESS);
  EXPECT_FALSE(std::string(text).empty());
  int compiler[3] = {-1, -1, -1};
  ASSERT_EQ(GxB_Global_Option_get(GxB_COMPILER_VERSION, compiler), GrB_SUCCESS);
  EXPECT_GT(compiler[0], 0);
  EXPECT_GE(compiler[1], 0);
  EXPECT_GE(compiler[2], 0);
}

TEST_F(GxbOptions, GlobalErrors) {
  // GxB_BY_COL, another format, a burble turned on: refused, and the format still reads GxB_BY_ROW.
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "by rows only", GxB_Global_Option_set(GxB_FORMAT, GxB_BY_COL));
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "GxB_FORMAT", GxB_Global_Option_set_INT32(GxB_FORMAT, GxB_BY_COL));
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "GxB_FORMAT", GxB_Global_Option_set(GxB_FORMAT, GxB_NO_FORMAT));
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "GxB_FORMAT", GxB_Global_Option_set(GxB_FORMAT, 7));
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "GxB_BURBLE", GxB_Global_Option_set(GxB_BURBLE, true));
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "GxB_BURBLE", GxB_Global_Option_set_INT32(GxB_BURBLE, 1));
  GxB_Format_Value format = GxB_NO_FORMAT;
  ASSERT_EQ(GxB_Global_Option_get(GxB_FORMAT, &format), GrB_SUCCESS);
  EXPECT_EQ(format, GxB_BY_ROW);
  bool burble = true;
  ASSERT_EQ(GxB_Global_Option_get(GxB_BURBLE, &burble), GrB_SUCCESS);
  EXPECT_FALSE(burble);

  // Read-only fields.
  for (GxB_Option_Field f : kReadOnlyGlobal) {
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "read only", GxB_Global_Option_set(f, 0));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "read only", GxB_Global_Option_set_INT32(f, 0));
  }

  // Fields snack does not support: every form, nothing written.
  for (size_t k = 0; k < sizeof kUnsupportedGlobal / sizeof kUnsupportedGlobal[0]; ++k) {
    const GxB_Option_Field f = kUnsupportedGlobal[k];
    const std::string name = kUnsupportedGlobalNames[k];
    SCOPED_TRACE(name);
    int32_t i = 12345;
    double x = 12.5;
    int64_t i64 = 12345;
    char* s = nullptr;
    void* fn = nullptr;
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name + " is not supported", GxB_Global_Option_get(f, &i));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_get_INT32(f, &i));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_get_FP64(f, &x));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_get_INT64(f, &i64));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_get_CHAR(f, &s));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_get_FUNCTION(f, &fn));
    EXPECT_EQ(i, 12345);
    EXPECT_EQ(x, 12.5);
    EXPECT_EQ(i64, 12345);
    EXPECT_EQ(s, nullptr);
    EXPECT_EQ(fn, nullptr);
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name + " is not supported", GxB_Global_Option_set(f, 1));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_set_INT32(f, 1));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_set_FP64(f, 0.5));
    double b[GxB_NBITMAP_SWITCH] = {0};
    int64_t pool[64] = {0};
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_set_FP64_ARRAY(f, b));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_set_INT64_ARRAY(f, pool));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, name, GxB_Global_Option_set_FUNCTION(f, nullptr));
  }
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "option field 12345",
                      GxB_Global_Option_get_INT32(static_cast<GxB_Option_Field>(12345), nullptr));
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "option field -4",
                      GxB_Global_Option_set(static_cast<GxB_Option_Field>(-4), 0));

  // Matrix options are not global ones.
  for (GxB_Option_Field f : {GxB_SPARSITY_STATUS, GxB_IS_HYPER, GxB_SPARSITY_CONTROL}) {
    int32_t i = 12345;
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "not a global one", GxB_Global_Option_get(f, &i));
    EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "not a global one", GxB_Global_Option_set(f, GxB_AUTO_SPARSITY));
    EXPECT_EQ(i, 12345);
  }

  // A value kind the field does not hold, and no value at all.
  double x = 12.5;
  int32_t i = 12345;
  char* s = nullptr;
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "GxB_FORMAT holds an int32_t", GxB_Global_Option_get_FP64(GxB_FORMAT, &x));
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "not a string", GxB_Global_Option_get_CHAR(GxB_MODE, &s));
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "not an int32_t", GxB_Global_Option_get_INT32(GxB_LIBRARY_NAME, &i));
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "takes an int32_t", GxB_Global_Option_set_FP64(GxB_FORMAT, 0.0));
  EXPECT_EQ(x, 12.5);
  EXPECT_EQ(i, 12345);
  EXPECT_EQ(s, nullptr);
  EXPECT_GLOBAL_ERROR(GrB_NULL_POINTER, "value", GxB_Global_Option_get(GxB_FORMAT, static_cast<int*>(nullptr)));
  EXPECT_GLOBAL_ERROR(GrB_NULL_POINTER, "value", GxB_Global_Option_get_INT32(GxB_MODE, nullptr));
  EXPECT_GLOBAL_ERROR(GrB_NULL_POINTER, "value", GxB_Global_Option_get_CHAR(GxB_LIBRARY_NAME, nullptr));
}

// ---- matrices and vectors --------------------------------------------------------------------------------

TEST_F(GxbOptions, MatrixFields) {
  GxB_Format_Value format = GxB_NO_FORMAT;
  ASSERT_EQ(GxB_Matrix_Option_get(A, GxB_FORMAT, &format), GrB_SUCCESS);
  EXPECT_EQ(format, GxB_BY_ROW);
  int32_t i = -1;
  ASSERT_EQ(GxB_Matrix_Option_get_INT32(A, GxB_FORMAT, &i), GrB_SUCCESS);
  EXPECT_EQ(i, GxB_BY_ROW);

  int status = -1;
  ASSERT_EQ(GxB_Matrix_Option_get(A, GxB_SPARSITY_STATUS, &status), GrB_SUCCESS);
  EXPECT_EQ(status, GxB_SPARSE);
  ASSERT_EQ(GxB_Matrix_Option_get(H, GxB_SPARSITY_STATUS, &status), GrB_SUCCESS);   // finishes pending work
  EXPECT_EQ(status, GxB_HYPERSPARSE);
  ASSERT_EQ(GxB_Matrix_Option_get_INT32(H, GxB_SPARSITY_STATUS, &i), GrB_SUCCESS);
  EXPECT_EQ(i, GxB_HYPERSPARSE);
  bool hyper = true;
  ASSERT_EQ(GxB_Matrix_Option_get(A, GxB_IS_HYPER, &hyper), GrB_SUCCESS);
  EXPECT_FALSE(hyper);
  ASSERT_EQ(GxB_Matrix_Option_get(H, GxB_IS_HYPER, &hyper), GrB_SUCCESS);
  EXPECT_TRUE(hyper);
  int32_t value = 0;
  ASSERT_EQ(GrB_Matrix_extractElement_INT32(&value, H, 500000, 3), GrB_SUCCESS);
  EXPECT_EQ(value, 2);

  int control = -1;
  ASSERT_EQ(GxB_Matrix_Option_get(A, GxB_SPARSITY_CONTROL, &control), GrB_SUCCESS);
  EXPECT_EQ(control, GxB_HYPERSPARSE + GxB_SPARSE);

  // What snack does can be set: by rows; a control that allows both forms (only 4 bits count; 0 is auto).
  const std::string before = snapshot(A);
  EXPECT_EQ(GxB_Matrix_Option_set(A, GxB_FORMAT, GxB_BY_ROW), GrB_SUCCESS);
  EXPECT_EQ(GxB_Matrix_Option_set_INT32(A, GxB_FORMAT, GxB_BY_ROW), GrB_SUCCESS);
  for (int c : {GxB_AUTO_SPARSITY, GxB_HYPERSPARSE + GxB_SPARSE, GxB_HYPERSPARSE + GxB_SPARSE + GxB_BITMAP,
                int{GxB_DEFAULT}, ~GxB_FULL, 16 + GxB_ANY_SPARSITY, 16}) {
    EXPECT_EQ(GxB_Matrix_Option_set(A, GxB_SPARSITY_CONTROL, c), GrB_SUCCESS) << c;
    EXPECT_EQ(GxB_Matrix_Option_set_INT32(A, GxB_SPARSITY_CONTROL, c), GrB_SUCCESS) << c;
  }
  EXPECT_EQ(snapshot(A), before);
  ASSERT_EQ(GxB_Matrix_Option_get(A, GxB_SPARSITY_CONTROL, &control), GrB_SUCCESS);
  EXPECT_EQ(control, GxB_HYPERSPARSE + GxB_SPARSE);
}

TEST_F(GxbOptions, MatrixErrors) {
  // GxB_BY_COL (LAGraph's tests set it on G->AT): refused, the matrix unchanged and still by rows.
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "snack stores matrices by rows only", A,
                      GxB_Matrix_Option_set(A, GxB_FORMAT, GxB_BY_COL));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "by rows only", A, GxB_Matrix_Option_set_INT32(A, GxB_FORMAT, GxB_BY_COL));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_FORMAT", A, GxB_Matrix_Option_set(A, GxB_FORMAT, 3));
  GxB_Format_Value format = GxB_NO_FORMAT;
  ASSERT_EQ(GxB_Matrix_Option_get(A, GxB_FORMAT, &format), GrB_SUCCESS);
  EXPECT_EQ(format, GxB_BY_ROW);

  // A control that leaves out a form snack may use.
  for (int c : {GxB_SPARSE, GxB_HYPERSPARSE, GxB_BITMAP, GxB_FULL, GxB_BITMAP + GxB_FULL, GxB_SPARSE + GxB_FULL,
                ~GxB_SPARSE}) {
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_SPARSITY_CONTROL", A,
                        GxB_Matrix_Option_set(A, GxB_SPARSITY_CONTROL, c));
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_HYPERSPARSE + GxB_SPARSE", A,
                        GxB_Matrix_Option_set_INT32(A, GxB_SPARSITY_CONTROL, c));
  }

  // Read-only and unsupported fields, global fields, unknown numbers.
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_SPARSITY_STATUS is read only", A,
                      GxB_Matrix_Option_set(A, GxB_SPARSITY_STATUS, GxB_SPARSE));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_IS_HYPER is read only", A, GxB_Matrix_Option_set(A, GxB_IS_HYPER, 0));
  double x = 12.5;
  int32_t i = 12345;
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_HYPER_SWITCH is not supported", A,
                      GxB_Matrix_Option_get(A, GxB_HYPER_SWITCH, &x));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_HYPER_SWITCH", A, GxB_Matrix_Option_get_FP64(A, GxB_HYPER_SWITCH, &x));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_HYPER_SWITCH", A,
                      GxB_Matrix_Option_set(A, GxB_HYPER_SWITCH, GxB_ALWAYS_HYPER));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_HYPER_SWITCH", A,
                      GxB_Matrix_Option_set_FP64(A, GxB_HYPER_SWITCH, GxB_HYPER_DEFAULT));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_BITMAP_SWITCH is not supported", A,
                      GxB_Matrix_Option_get(A, GxB_BITMAP_SWITCH, &x));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_BITMAP_SWITCH", A, GxB_Matrix_Option_set_FP64(A, GxB_BITMAP_SWITCH, 0.5));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_MODE is not an option of a GrB_Matrix", A,
                      GxB_Matrix_Option_get(A, GxB_MODE, &i));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_LIBRARY_NAME is not an option of a GrB_Matrix", A,
                      GxB_Matrix_Option_set(A, GxB_LIBRARY_NAME, 0));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "option field 777", A,
                      GxB_Matrix_Option_get_INT32(A, static_cast<GxB_Option_Field>(777), &i));
  EXPECT_EQ(x, 12.5);
  EXPECT_EQ(i, 12345);

  // A value kind the field does not hold; no value; no matrix.
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "not a double", A, GxB_Matrix_Option_get_FP64(A, GxB_FORMAT, &x));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "not a double", A, GxB_Matrix_Option_set_FP64(A, GxB_FORMAT, 0.0));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "not a double", A,
                      GxB_Matrix_Option_set_FP64(A, GxB_SPARSITY_CONTROL, GxB_AUTO_SPARSITY));
  EXPECT_EQ(x, 12.5);
  EXPECT_OPTION_ERROR(GrB_NULL_POINTER, "value", A, GxB_Matrix_Option_get(A, GxB_FORMAT, static_cast<int*>(nullptr)));
  EXPECT_OPTION_ERROR(GrB_NULL_POINTER, "value", A, GxB_Matrix_Option_get_INT32(A, GxB_SPARSITY_STATUS, nullptr));
  int32_t out = 12345;
  EXPECT_GLOBAL_ERROR(GrB_NULL_POINTER, "obj is NULL", GxB_Matrix_Option_get_INT32(nullptr, GxB_FORMAT, &out));
  EXPECT_GLOBAL_ERROR(GrB_NULL_POINTER, "obj is NULL", GxB_Matrix_Option_set(nullptr, GxB_FORMAT, GxB_BY_ROW));
  EXPECT_GLOBAL_ERROR(GrB_UNINITIALIZED_OBJECT, "obj",
                      GxB_Matrix_Option_get(uninitialized<GrB_Matrix>(), GxB_FORMAT, &out));
  EXPECT_GLOBAL_ERROR(GrB_UNINITIALIZED_OBJECT, "not a GrB_Matrix",
                      GxB_Matrix_Option_get(reinterpret_cast<GrB_Matrix>(v), GxB_FORMAT, &out));
  EXPECT_EQ(out, 12345);
}

TEST_F(GxbOptions, VectorFieldsAndErrors) {
  GxB_Format_Value format = GxB_NO_FORMAT;
  ASSERT_EQ(GxB_Vector_Option_get(v, GxB_FORMAT, &format), GrB_SUCCESS);
  EXPECT_EQ(format, GxB_BY_ROW);
  int status = -1;
  ASSERT_EQ(GxB_Vector_Option_get(v, GxB_SPARSITY_STATUS, &status), GrB_SUCCESS);   // 1 entry in 10^6: one row
  EXPECT_EQ(status, GxB_SPARSE);
  bool hyper = true;
  ASSERT_EQ(GxB_Vector_Option_get(v, GxB_IS_HYPER, &hyper), GrB_SUCCESS);
  EXPECT_FALSE(hyper);
  int32_t control = -1;
  ASSERT_EQ(GxB_Vector_Option_get_INT32(v, GxB_SPARSITY_CONTROL, &control), GrB_SUCCESS);
  EXPECT_EQ(control, GxB_SPARSE);

  // A vector's one form is GxB_SPARSE: every control that allows it is accepted (LAGraph 1.2 sets GxB_SPARSE).
  for (int c : {GxB_SPARSE, GxB_SPARSE + GxB_HYPERSPARSE, GxB_AUTO_SPARSITY, int{GxB_DEFAULT}, GxB_SPARSE + GxB_BITMAP}) {
    EXPECT_EQ(GxB_Vector_Option_set(v, GxB_SPARSITY_CONTROL, c), GrB_SUCCESS) << c;
    EXPECT_EQ(GxB_Vector_Option_set_INT32(v, GxB_SPARSITY_CONTROL, c), GrB_SUCCESS) << c;
  }
  EXPECT_EQ(GxB_Vector_Option_set(v, GxB_FORMAT, GxB_BY_ROW), GrB_SUCCESS);
  for (int c : {GxB_BITMAP, GxB_FULL, GxB_HYPERSPARSE, GxB_BITMAP + GxB_FULL}) {
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_SPARSE, the form snack gives every vector", v,
                        GxB_Vector_Option_set(v, GxB_SPARSITY_CONTROL, c));
  }
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "by rows only", v, GxB_Vector_Option_set(v, GxB_FORMAT, GxB_BY_COL));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "by rows only", v, GxB_Vector_Option_set_INT32(v, GxB_FORMAT, GxB_BY_COL));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "read only", v, GxB_Vector_Option_set(v, GxB_SPARSITY_STATUS, GxB_SPARSE));
  double x = 12.5;
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_BITMAP_SWITCH is not supported", v,
                      GxB_Vector_Option_get(v, GxB_BITMAP_SWITCH, &x));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_BITMAP_SWITCH", v, GxB_Vector_Option_set_FP64(v, GxB_BITMAP_SWITCH, 0.5));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "not a double", v, GxB_Vector_Option_get_FP64(v, GxB_FORMAT, &x));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "not an option of a GrB_Vector", v,
                      GxB_Vector_Option_get(v, GxB_API_VERSION, &x));
  EXPECT_EQ(x, 12.5);
  EXPECT_OPTION_ERROR(GrB_NULL_POINTER, "value", v, GxB_Vector_Option_get_INT32(v, GxB_FORMAT, nullptr));
  int32_t out = 12345;
  EXPECT_GLOBAL_ERROR(GrB_NULL_POINTER, "obj is NULL", GxB_Vector_Option_get_INT32(nullptr, GxB_FORMAT, &out));
  EXPECT_GLOBAL_ERROR(GrB_UNINITIALIZED_OBJECT, "not a GrB_Vector",
                      GxB_Vector_Option_set(reinterpret_cast<GrB_Vector>(A), GxB_FORMAT, GxB_BY_ROW));
  EXPECT_EQ(out, 12345);
}

// ---- descriptors -----------------------------------------------------------------------------------------

TEST_F(GxbOptions, DescriptorFields) {
  GrB_Desc_Value value = static_cast<GrB_Desc_Value>(-1);
  for (GrB_Desc_Field f : {GrB_OUTP, GrB_MASK, GrB_INP0, GrB_INP1}) {
    ASSERT_EQ(GxB_Desc_get(d, f, &value), GrB_SUCCESS);
    EXPECT_EQ(value, GxB_DEFAULT);
    ASSERT_EQ(GxB_Desc_get(nullptr, f, &value), GrB_SUCCESS);   // NULL: the defaults
    EXPECT_EQ(value, GxB_DEFAULT);
  }
  EXPECT_EQ(GxB_Desc_set(d, GrB_OUTP, GrB_REPLACE), GrB_SUCCESS);
  EXPECT_EQ(GxB_Desc_set(d, GrB_MASK, GrB_COMP), GrB_SUCCESS);
  EXPECT_EQ(GxB_Desc_set_INT32(d, GrB_MASK, GrB_STRUCTURE), GrB_SUCCESS);   // adds to GrB_COMP
  EXPECT_EQ(GxB_Desc_set(d, GrB_INP1, GrB_TRAN), GrB_SUCCESS);
  ASSERT_EQ(GxB_Desc_get(d, GrB_OUTP, &value), GrB_SUCCESS);
  EXPECT_EQ(value, GrB_REPLACE);
  int32_t i = -1;
  ASSERT_EQ(GxB_Desc_get_INT32(d, GrB_MASK, &i), GrB_SUCCESS);
  EXPECT_EQ(i, GrB_COMP + GrB_STRUCTURE);
  ASSERT_EQ(GxB_Descriptor_get(&value, d, GrB_INP0), GrB_SUCCESS);
  EXPECT_EQ(value, GxB_DEFAULT);
  ASSERT_EQ(GxB_Descriptor_get(&value, d, GrB_INP1), GrB_SUCCESS);
  EXPECT_EQ(value, GrB_TRAN);
  // The same settings as GrB_get reads them.
  ASSERT_EQ(GrB_Descriptor_get_INT32(d, &i, GrB_MASK_FIELD), GrB_SUCCESS);
  EXPECT_EQ(i, GrB_COMP_STRUCTURE);
  EXPECT_EQ(GxB_Desc_set(d, GrB_MASK, GxB_DEFAULT), GrB_SUCCESS);   // clears both
  ASSERT_EQ(GxB_Desc_get(d, GrB_MASK, &value), GrB_SUCCESS);
  EXPECT_EQ(value, GxB_DEFAULT);
  // A predefined descriptor reads its settings.
  ASSERT_EQ(GxB_Desc_get(GrB_DESC_RSC, GrB_MASK, &value), GrB_SUCCESS);
  EXPECT_EQ(value, GrB_COMP_STRUCTURE);
}

TEST_F(GxbOptions, DescriptorErrors) {
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GrB_OUTP", d, GxB_Desc_set(d, GrB_OUTP, GrB_TRAN));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GrB_MASK", d, GxB_Desc_set(d, GrB_MASK, GrB_REPLACE));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GrB_INP0", d, GxB_Desc_set_INT32(d, GrB_INP0, GrB_COMP));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "takes an int32_t, not a double", d, GxB_Desc_set_FP64(d, GrB_OUTP, 1.0));
  for (GrB_Desc_Field f : {GxB_DESCRIPTOR_NTHREADS, GxB_DESCRIPTOR_CHUNK, GxB_DESCRIPTOR_GPU_CONTROL,
                           GxB_DESCRIPTOR_GPU_CHUNK, GxB_AxB_METHOD, GxB_SORT, GxB_COMPRESSION, GxB_IMPORT}) {
    int32_t i = 12345;
    double x = 12.5;
    GrB_Desc_Value value = static_cast<GrB_Desc_Value>(12345);
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "is not supported by snack", d, GxB_Desc_set(d, f, GxB_DEFAULT));
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "is not supported by snack", d, GxB_Desc_set_INT32(d, f, 1));
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "is not supported by snack", d, GxB_Desc_set_FP64(d, f, 1.0));
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "is not supported by snack", d, GxB_Desc_get(d, f, &i));
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "is not supported by snack", d, GxB_Desc_get_INT32(d, f, &i));
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "is not supported by snack", d, GxB_Desc_get_FP64(d, f, &x));
    EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "is not supported by snack", d, GxB_Descriptor_get(&value, d, f));
    EXPECT_EQ(i, 12345);
    EXPECT_EQ(x, 12.5);
    EXPECT_EQ(static_cast<int>(value), 12345);
  }
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GxB_AxB_METHOD", d, GxB_Desc_set(d, GxB_AxB_METHOD, GxB_AxB_DOT));
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "field 99 is not a descriptor field", d,
                      GxB_Desc_set(d, static_cast<GrB_Desc_Field>(99), GxB_DEFAULT));
  double x = 12.5;
  EXPECT_OPTION_ERROR(GrB_INVALID_VALUE, "GrB_OUTP holds an int32_t", d, GxB_Desc_get_FP64(d, GrB_OUTP, &x));
  EXPECT_EQ(x, 12.5);
  EXPECT_OPTION_ERROR(GrB_NULL_POINTER, "value", d, GxB_Desc_get_INT32(d, GrB_OUTP, nullptr));
  EXPECT_OPTION_ERROR(GrB_NULL_POINTER, "value", d, GxB_Descriptor_get(nullptr, d, GrB_OUTP));
  EXPECT_GLOBAL_ERROR(GrB_NULL_POINTER, "desc is NULL", GxB_Desc_set(nullptr, GrB_OUTP, GrB_REPLACE));
  EXPECT_GLOBAL_ERROR(GrB_UNINITIALIZED_OBJECT, "desc", GxB_Desc_get_INT32(uninitialized<GrB_Descriptor>(), GrB_OUTP,
                                                                            reinterpret_cast<int32_t*>(&x)));
  EXPECT_EQ(x, 12.5);
  // A predefined descriptor cannot be modified.
  const std::string before = snapshot(GrB_DESC_T0);
  EXPECT_GLOBAL_ERROR(GrB_INVALID_VALUE, "predefined descriptor", GxB_Desc_set(GrB_DESC_T0, GrB_OUTP, GrB_REPLACE));
  EXPECT_EQ(snapshot(GrB_DESC_T0), before);
}

// ---- the C++ overloads of GxB_get / GxB_set, as LAGraph calls them -----------------------------------------

TEST_F(GxbOptions, PolymorphicCxx) {
  // LAGraph_cdlp.c: the matrix's and the global format must be by rows.
  GxB_Format_Value A_format = GxB_NO_FORMAT, global_format = GxB_NO_FORMAT;
  ASSERT_EQ(GxB_get(A, GxB_FORMAT, &A_format), GrB_SUCCESS);
  ASSERT_EQ(GxB_get(GxB_FORMAT, &global_format), GrB_SUCCESS);
  EXPECT_EQ(A_format, GxB_BY_ROW);
  EXPECT_EQ(global_format, GxB_BY_ROW);
  // test_MMRead.c: the library's name, date and version.
  char* name = nullptr;
  char* date = nullptr;
  int ver[3] = {-1, -1, -1};
  ASSERT_EQ(GxB_get(GxB_LIBRARY_NAME, &name), GrB_SUCCESS);
  ASSERT_EQ(GxB_get(GxB_LIBRARY_DATE, &date), GrB_SUCCESS);
  ASSERT_EQ(GxB_get(GxB_LIBRARY_VERSION, ver), GrB_SUCCESS);
  EXPECT_STREQ(name, "snack");
  EXPECT_NE(date, nullptr);
  EXPECT_EQ(ver[0], SNK_VERSION_MAJOR);
  // test_CheckGraph.c / test_DisplayGraph.c: G->AT by columns is refused; benchmarks turn the burble off.
  EXPECT_EQ(GxB_set(A, GxB_FORMAT, GxB_BY_COL), GrB_INVALID_VALUE);
  EXPECT_EQ(GxB_set(A, GxB_FORMAT, GxB_BY_ROW), GrB_SUCCESS);
  EXPECT_EQ(GxB_set(GxB_BURBLE, false), GrB_SUCCESS);
  EXPECT_EQ(GxB_set(GxB_NTHREADS, 4), GrB_INVALID_VALUE);
  int sparsity = -1;
  ASSERT_EQ(GxB_get(H, GxB_SPARSITY_STATUS, &sparsity), GrB_SUCCESS);
  EXPECT_EQ(sparsity, GxB_HYPERSPARSE);
  EXPECT_EQ(GxB_set(v, GxB_SPARSITY_CONTROL, GxB_SPARSE), GrB_SUCCESS);
  EXPECT_EQ(GxB_set(v, GxB_SPARSITY_CONTROL, GxB_BITMAP), GrB_INVALID_VALUE);
  GrB_Desc_Value value = static_cast<GrB_Desc_Value>(-1);
  EXPECT_EQ(GxB_set(d, GrB_INP0, GrB_TRAN), GrB_SUCCESS);
  ASSERT_EQ(GxB_get(d, GrB_INP0, &value), GrB_SUCCESS);
  EXPECT_EQ(value, GrB_TRAN);
}

}  // namespace
