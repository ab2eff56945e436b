// tests/capi/test_get_set.cpp: GrB_get / GrB_set (C API spec 2.1) and the GxB_ functions of GraphBLAS.h.
//
// Every object kind's fields: what each reads (names of builtin objects, the type codes and type strings
// of the 11 builtin types and of a user-defined type, sizes, versions, descriptor settings), what can be
// set and reads back, and every error (a missing object or value, an uninitialized one, a field the
// object lacks, a read-only field, a value kind or value the field does not take, a name set twice or
// taken, an empty or mistyped GrB_Scalar), each checked for its code, a message, and an object left as it
// was. Then GxB_<Object>_type_name / GxB_<Object>_type, and GxB_fprint's text, written to a temporary file
// and read back at every print level. The C11 polymorphic names are checked by scripts/check-capi-coverage.sh.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "GraphBLAS.h"
#include "capi_test_util.hpp"

namespace {

using snk_test::uninitialized;

// A string field through the spec's two calls: its size, then its text.
template <class H>
std::string get_string(H obj, GrB_Field field) {
  size_t n = 0;
  EXPECT_EQ(GrB_get(obj, &n, field), GrB_SUCCESS);
  std::vector<char> buf(n + 8, 'x');
  EXPECT_EQ(GrB_get(obj, buf.data(), field), GrB_SUCCESS);
  EXPECT_EQ(std::strlen(buf.data()) + 1, n);
  return buf.data();
}

template <class H>
int32_t get_int(H obj, GrB_Field field) {
  int32_t v = -12345;
  EXPECT_EQ(GrB_get(obj, &v, field), GrB_SUCCESS);
  return v;
}

// Everything GrB_get reads from an object, to check that a failing call changed nothing.
template <class H>
std::string snapshot(H obj, std::initializer_list<GrB_Field> fields) {
  std::string s;
  for (GrB_Field f : fields) {
    int32_t i = 0;
    size_t n = 0;
    if (GrB_get(obj, &i, f) == GrB_SUCCESS) s += std::to_string(i) + ";";
    if (GrB_get(obj, &n, f) == GrB_SUCCESS) {
      std::vector<char> buf(n + 1);
      if (GrB_get(obj, buf.data(), f) == GrB_SUCCESS) s += std::string(buf.data()) + ";";
    }
  }
  return s;
}
std::string snapshot(GrB_Matrix A) {
  GrB_Index n = 0;
  std::string s = snapshot(A, {GrB_NAME, GrB_EL_TYPE_CODE, GrB_STORAGE_ORIENTATION_HINT});
  if (GrB_Matrix_serializeSize(&n, A) != GrB_SUCCESS) return s;
  std::vector<char> blob(n);
  if (GrB_Matrix_serialize(blob.data(), &n, A) == GrB_SUCCESS) s.append(blob.data(), n);
  return s;
}
std::string snapshot(GrB_Vector v) {
  GrB_Index n = 0;
  GrB_Vector_nvals(&n, v);
  return snapshot(v, {GrB_NAME, GrB_EL_TYPE_CODE}) + std::to_string(n);
}
std::string snapshot(GrB_Scalar s) {
  GrB_Index n = 0;
  GrB_Scalar_nvals(&n, s);
  std::string out = snapshot(s, {GrB_NAME, GrB_EL_TYPE_CODE}) + std::to_string(n);
  double x = 0;
  if (n == 1 && GrB_Scalar_extractElement_FP64(&x, s) == GrB_SUCCESS) out += ";" + std::to_string(x);
  return out;
}
std::string snapshot(GrB_Descriptor d) {
  return snapshot(d, {GrB_NAME, GrB_OUTP_FIELD, GrB_MASK_FIELD, GrB_INP0_FIELD, GrB_INP1_FIELD});
}
std::string snapshot(GrB_Type t) { return snapshot(t, {GrB_NAME, GrB_EL_TYPE_CODE, GrB_SIZE}); }
template <class H>
std::string snapshot_algebra(H op) {
  return snapshot(op, {GrB_NAME, GrB_INP0_TYPE_CODE, GrB_INP1_TYPE_CODE, GrB_OUTP_TYPE_CODE});
}
std::string snapshot(GrB_UnaryOp op) { return snapshot_algebra(op); }
std::string snapshot(GrB_BinaryOp op) { return snapshot_algebra(op); }
std::string snapshot(GrB_IndexUnaryOp op) { return snapshot_algebra(op); }
std::string snapshot(GrB_Monoid op) { return snapshot_algebra(op); }
std::string snapshot(GrB_Semiring op) { return snapshot_algebra(op); }
std::string snapshot(GrB_Global g) { return snapshot(g, {GrB_NAME, GrB_BLOCKING_MODE, GrB_API_VER_MINOR}); }

// The message a failing call left: on the object, or (global context, bad objects) the thread's last one.
template <class H>
std::string message_of(H obj) {
  const char* e = nullptr;
  if (GrB_error(&e, obj) == GrB_SUCCESS && e != nullptr && *e != '\0') return e;
  SNK_last_error(&e);
  return e ? e : "";
}
std::string message_of(GrB_Global) {
  const char* e = nullptr;
  SNK_last_error(&e);
  return e ? e : "";
}

std::string last_error() {
  const char* e = nullptr;
  SNK_last_error(&e);
  return e ? e : "";
}

// Runs `call`: its code must be `expected`, it must leave a message, and `watched` must be unchanged.
#define EXPECT_FIELD_ERROR(expected, watched, call)                                                     \
  do {                                                                                                  \
    const std::string before_ = snapshot(watched);                                                      \
    const GrB_Info info_ = (call);                                                                      \
    EXPECT_EQ(info_, expected) << #call;                                                                \
    EXPECT_FALSE(message_of(watched).empty()) << "no message for " << #call;                           \
    EXPECT_FALSE(last_error().empty()) << #call;                                                        \
    EXPECT_EQ(snapshot(watched), before_) << "changed by " << #call;                                    \
  } while (0)

// The text GxB_<Object>_fprint writes, through a temporary file.
template <class Print>
std::string printed(GrB_Info expected, Print&& print) {
  FILE* f = std::tmpfile();
  if (f == nullptr) {
    ADD_FAILURE() << "tmpfile failed";
    return "";
  }
  EXPECT_EQ(print(f), expected);
  std::rewind(f);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

size_t count_lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

struct Builtin {
  GrB_Type type;
  const char* name;
  const char* c_name;
  int32_t code;
  size_t size;
};
const Builtin kBuiltins[] = {
    {GrB_BOOL, "GrB_BOOL", "bool", GrB_BOOL_CODE, sizeof(bool)},
    {GrB_INT8, "GrB_INT8", "int8_t", GrB_INT8_CODE, 1},
    {GrB_UINT8, "GrB_UINT8", "uint8_t", GrB_UINT8_CODE, 1},
    {GrB_INT16, "GrB_INT16", "int16_t", GrB_INT16_CODE, 2},
    {GrB_UINT16, "GrB_UINT16", "uint16_t", GrB_UINT16_CODE, 2},
    {GrB_INT32, "GrB_INT32", "int32_t", GrB_INT32_CODE, 4},
    {GrB_UINT32, "GrB_UINT32", "uint32_t", GrB_UINT32_CODE, 4},
    {GrB_INT64, "GrB_INT64", "int64_t", GrB_INT64_CODE, 8},
    {GrB_UINT64, "GrB_UINT64", "uint64_t", GrB_UINT64_CODE, 8},
    {GrB_FP32, "GrB_FP32", "float", GrB_FP32_CODE, 4},
    {GrB_FP64, "GrB_FP64", "double", GrB_FP64_CODE, 8},
};

struct Wide {
  double a, b, c;
};
void wide_add(void* z, const void* x, const void* y) {
  const Wide* a = static_cast<const Wide*>(x);
  const Wide* b = static_cast<const Wide*>(y);
  *static_cast<Wide*>(z) = Wide{a->a + b->a, a->b + b->b, a->c + b->c};
}
void wide_first(void* z, const void* x) { *static_cast<double*>(z) = static_cast<const Wide*>(x)->a; }
void wide_select(void* z, const void*, GrB_Index i, GrB_Index, const void*) { *static_cast<bool*>(z) = i > 0; }

class GetSet : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const GrB_Info info = GrB_init(GrB_NONBLOCKING);
    ASSERT_TRUE(info == GrB_SUCCESS || info == GrB_INVALID_VALUE);
  }
  void SetUp() override {
    ASSERT_EQ(GrB_Type_new(&wide, sizeof(Wide)), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_new(&A, GrB_FP64, 4, 5), GrB_SUCCESS);
    const GrB_Index I[] = {0, 1, 2, 3}, J[] = {1, 2, 3, 4};
    const double X[] = {1, 2.5, -3, 0.1};
    ASSERT_EQ(GrB_Matrix_build_FP64(A, I, J, X, 4, nullptr), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_new(&v, GrB_INT32, 6), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_setElement_INT32(v, 7, 1), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_setElement_INT32(v, -2, 4), GrB_SUCCESS);
    ASSERT_EQ(GrB_Scalar_new(&s, GrB_FP64), GrB_SUCCESS);
    ASSERT_EQ(GrB_Scalar_setElement_FP64(s, 2.5), GrB_SUCCESS);
    ASSERT_EQ(GrB_Scalar_new(&empty, GrB_INT32), GrB_SUCCESS);
    ASSERT_EQ(GrB_Scalar_new(&s_wide, wide), GrB_SUCCESS);
    ASSERT_EQ(GrB_Descriptor_new(&desc), GrB_SUCCESS);
  }
  void TearDown() override {
    GrB_free(&A);
    GrB_free(&v);
    GrB_free(&s);
    GrB_free(&empty);
    GrB_free(&s_wide);
    GrB_free(&desc);
    GrB_free(&wide);
  }
  GrB_Type wide = nullptr;
  GrB_Matrix A = nullptr;
  GrB_Vector v = nullptr;
  GrB_Scalar s = nullptr, empty = nullptr, s_wide = nullptr;
  GrB_Descriptor desc = nullptr;
};

// ---- the global context ---------------------------------------------------------------------------------
TEST_F(GetSet, GlobalFields) {
  EXPECT_EQ(get_string(GrB_GLOBAL, GrB_NAME), "snack");
  EXPECT_EQ(get_int(GrB_GLOBAL, GrB_LIBRARY_VER_MAJOR), SNK_VERSION_MAJOR);
  EXPECT_EQ(get_int(GrB_GLOBAL, GrB_LIBRARY_VER_MINOR), SNK_VERSION_MINOR);
  EXPECT_EQ(get_int(GrB_GLOBAL, GrB_LIBRARY_VER_PATCH), SNK_VERSION_PATCH);
  EXPECT_EQ(get_int(GrB_GLOBAL, GrB_API_VER_MAJOR), 2);
  EXPECT_EQ(get_int(GrB_GLOBAL, GrB_API_VER_MINOR), 1);
  EXPECT_EQ(get_int(GrB_GLOBAL, GrB_API_VER_PATCH), 0);
  EXPECT_EQ(get_int(GrB_GLOBAL, GrB_BLOCKING_MODE), GrB_NONBLOCKING);
  EXPECT_EQ(get_int(GrB_GLOBAL, GrB_STORAGE_ORIENTATION_HINT), GrB_ROWMAJOR);
  unsigned version = 0, subversion = 0;
  EXPECT_EQ(GrB_getVersion(&version, &subversion), GrB_SUCCESS);
  EXPECT_EQ(version, 2u);
  EXPECT_EQ(subversion, 1u);
  EXPECT_EQ(GRB_VERSION, 2);
  EXPECT_EQ(GRB_SUBVERSION, 1);

  // An INT32 field into a GrB_Scalar, cast to its type.
  EXPECT_EQ(GrB_Global_get_Scalar(GrB_GLOBAL, s, GrB_API_VER_MINOR), GrB_SUCCESS);
  double x = 0;
  EXPECT_EQ(GrB_Scalar_extractElement_FP64(&x, s), GrB_SUCCESS);
  EXPECT_EQ(x, 1.0);

  // The orientation hint is accepted (any GrB_Orientation) and ignored: snack stores by rows.
  for (int32_t o : {GrB_COLMAJOR, GrB_BOTH, GrB_UNKNOWN, GrB_ROWMAJOR}) {
    EXPECT_EQ(GrB_set(GrB_GLOBAL, o, GrB_STORAGE_ORIENTATION_HINT), GrB_SUCCESS);
    EXPECT_EQ(get_int(GrB_GLOBAL, GrB_STORAGE_ORIENTATION_HINT), GrB_ROWMAJOR);
  }
  EXPECT_EQ(GrB_Scalar_setElement_FP64(s, 1.0), GrB_SUCCESS);
  EXPECT_EQ(GrB_set(GrB_GLOBAL, s, GrB_STORAGE_ORIENTATION_HINT), GrB_SUCCESS);
}

TEST_F(GetSet, GlobalErrors) {
  const GrB_Global g = GrB_GLOBAL;
  int32_t i = 0;
  size_t n = 0;
  char buf[64];
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_set(g, 4, GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_set(g, -1, GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_set(g, "other", GrB_NAME));   // read only
  for (GrB_Field f : {GrB_LIBRARY_VER_MAJOR, GrB_LIBRARY_VER_MINOR, GrB_LIBRARY_VER_PATCH, GrB_API_VER_MAJOR,
                      GrB_API_VER_MINOR, GrB_API_VER_PATCH, GrB_BLOCKING_MODE}) {
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_set(g, 3, f));
  }
  for (GrB_Field f : {GrB_SIZE, GrB_EL_TYPE_CODE, GrB_OUTP_FIELD, GrB_INP0_TYPE_STRING, (GrB_Field)12345}) {
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_get(g, &i, f));   // no such field
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_set(g, 0, f));
  }
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_get(g, &i, GrB_NAME));          // a string, not an int32_t
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_get(g, buf, GrB_API_VER_MAJOR));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_get(g, &n, GrB_API_VER_MAJOR));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_get(g, s, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_get(g, (void*)buf, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_set(g, (void*)buf, GrB_STORAGE_ORIENTATION_HINT, 4));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, g, GrB_set(g, "x", GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_EMPTY_OBJECT, g, GrB_set(g, empty, GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_DOMAIN_MISMATCH, g, GrB_set(g, s_wide, GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_DOMAIN_MISMATCH, s_wide, GrB_get(g, s_wide, GrB_API_VER_MAJOR));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, g, GrB_get(g, (int32_t*)nullptr, GrB_API_VER_MAJOR));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, g, GrB_get(g, (char*)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, g, GrB_get(g, (size_t*)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, g, GrB_get(g, (void*)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, g, GrB_get(g, (GrB_Scalar)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, g, GrB_set(g, (const char*)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, g, GrB_set(g, (void*)nullptr, GrB_NAME, 0));
  EXPECT_FIELD_ERROR(GrB_UNINITIALIZED_OBJECT, g, GrB_get(g, uninitialized<GrB_Scalar>(), GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_UNINITIALIZED_OBJECT, g, GrB_set(g, uninitialized<GrB_Scalar>(), GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, g, GrB_get((GrB_Global) nullptr, &i, GrB_API_VER_MAJOR));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, g, GrB_set((GrB_Global) nullptr, 0, GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_UNINITIALIZED_OBJECT, g, GrB_get(uninitialized<GrB_Global>(), &i, GrB_API_VER_MAJOR));
  EXPECT_EQ(i, 0);   // no failing call wrote it
}

// ---- types ------------------------------------------------------------------------------------------------
TEST_F(GetSet, BuiltinTypes) {
  for (const Builtin& b : kBuiltins) {
    SCOPED_TRACE(b.name);
    EXPECT_EQ(get_string(b.type, GrB_NAME), b.name);
    EXPECT_EQ(get_string(b.type, GrB_EL_TYPE_STRING), b.c_name);
    EXPECT_EQ(get_int(b.type, GrB_EL_TYPE_CODE), b.code);
    size_t size = 0;
    EXPECT_EQ(GrB_get(b.type, &size, GrB_SIZE), GrB_SUCCESS);
    EXPECT_EQ(size, b.size);
    EXPECT_EQ(GrB_Type_get_Scalar(b.type, s, GrB_SIZE), GrB_SUCCESS);
    double x = 0;
    EXPECT_EQ(GrB_Scalar_extractElement_FP64(&x, s), GrB_SUCCESS);
    EXPECT_EQ(x, static_cast<double>(b.size));
    char name[GxB_MAX_NAME_LEN];
    EXPECT_EQ(GxB_Type_name(name, b.type), GrB_SUCCESS);
    EXPECT_STREQ(name, b.c_name);
    // Builtin names cannot change; nothing else of a type can be written.
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, b.type, GrB_set(b.type, "renamed", GrB_NAME));
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, b.type, GrB_set(b.type, 3, GrB_EL_TYPE_CODE));
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, b.type, GrB_set(b.type, 3, GrB_SIZE));
  }
}

TEST_F(GetSet, UserType) {
  EXPECT_EQ(get_string(wide, GrB_NAME), "");
  EXPECT_EQ(get_string(wide, GrB_EL_TYPE_STRING), "");
  EXPECT_EQ(get_int(wide, GrB_EL_TYPE_CODE), GrB_UDT_CODE);
  size_t size = 0;
  EXPECT_EQ(GrB_Type_get_SIZE(wide, &size, GrB_SIZE), GrB_SUCCESS);
  EXPECT_EQ(size, sizeof(Wide));

  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, "", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, std::string(GxB_MAX_NAME_LEN, 'n').c_str(), GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, "GrB_FP64", GrB_NAME));        // a builtin's name
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, "GrB_PLUS_FP64", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, 7, GrB_NAME));                  // not a string
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, s, GrB_NAME));
  EXPECT_EQ(GrB_Type_set_String(wide, "wide_t", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(get_string(wide, GrB_NAME), "wide_t");
  EXPECT_EQ(get_string(wide, GrB_EL_TYPE_STRING), "wide_t");
  char name[GxB_MAX_NAME_LEN];
  EXPECT_EQ(GxB_Type_name(name, wide), GrB_SUCCESS);
  EXPECT_STREQ(name, "wide_t");
  // Set once; unique while its owner lives.
  EXPECT_FIELD_ERROR(GrB_ALREADY_SET, wide, GrB_set(wide, "wide2_t", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_ALREADY_SET, wide, GrB_set(wide, "wide_t", GrB_NAME));
  GrB_Type other = nullptr;
  ASSERT_EQ(GrB_Type_new(&other, 3), GrB_SUCCESS);
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, other, GrB_set(other, "wide_t", GrB_NAME));
  EXPECT_EQ(GrB_set(other, "other_t", GrB_NAME), GrB_SUCCESS);
  GrB_free(&other);
  ASSERT_EQ(GrB_Type_new(&other, 3), GrB_SUCCESS);
  EXPECT_EQ(GrB_set(other, "other_t", GrB_NAME), GrB_SUCCESS);   // the freed type's name is free again
  GrB_free(&other);

  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, GrB_UDT_CODE, GrB_EL_TYPE_CODE));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, "x", GrB_EL_TYPE_STRING));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, 4, GrB_SIZE));
  int32_t i = 0;
  for (GrB_Field f : {GrB_OUTP_FIELD, GrB_INP0_TYPE_CODE, GrB_STORAGE_ORIENTATION_HINT, GrB_API_VER_MAJOR}) {
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_get(wide, &i, f));
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_set(wide, 0, f));
  }
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_get(wide, &i, GrB_SIZE));   // a size_t, not an int32_t
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, wide, GrB_get(wide, (void*)name, GrB_SIZE));
}

// ---- operators, monoids, semirings ------------------------------------------------------------------------
template <class H>
void expect_domains(H op, const char* name, int32_t x, int32_t y, int32_t z, const char* xs, const char* ys,
                    const char* zs) {
  SCOPED_TRACE(name);
  EXPECT_EQ(get_string(op, GrB_NAME), name);
  const std::pair<GrB_Field, GrB_Field> fields[] = {{GrB_INP0_TYPE_CODE, GrB_INP0_TYPE_STRING},
                                                    {GrB_INP1_TYPE_CODE, GrB_INP1_TYPE_STRING},
                                                    {GrB_OUTP_TYPE_CODE, GrB_OUTP_TYPE_STRING}};
  const int32_t codes[] = {x, y, z};
  const char* strings[] = {xs, ys, zs};
  for (int k = 0; k < 3; ++k) {
    int32_t code = -1;
    char buf[64] = "unchanged";
    size_t n = 0;
    if (strings[k] == nullptr) {   // no such input
      EXPECT_EQ(GrB_get(op, &code, fields[k].first), GrB_NO_VALUE);
      EXPECT_EQ(GrB_get(op, buf, fields[k].second), GrB_NO_VALUE);
      EXPECT_EQ(GrB_get(op, &n, fields[k].second), GrB_NO_VALUE);
      EXPECT_EQ(code, -1);
      EXPECT_STREQ(buf, "unchanged");
    } else {
      EXPECT_EQ(get_int(op, fields[k].first), codes[k]);
      EXPECT_EQ(get_string(op, fields[k].second), strings[k]);
    }
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, op, GrB_set(op, 1, fields[k].first));    // read only
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, op, GrB_set(op, "x", fields[k].second));
  }
  int32_t i = 0;
  for (GrB_Field f : {GrB_EL_TYPE_CODE, GrB_SIZE, GrB_OUTP_FIELD, GrB_STORAGE_ORIENTATION_HINT}) {
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, op, GrB_get(op, &i, f));
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, op, GrB_set(op, 0, f));
  }
}

TEST_F(GetSet, BuiltinAlgebra) {
  expect_domains(GrB_PLUS_FP64, "GrB_PLUS_FP64", GrB_FP64_CODE, GrB_FP64_CODE, GrB_FP64_CODE, "double", "double",
                 "double");
  expect_domains(GrB_LT_UINT16, "GrB_LT_UINT16", GrB_UINT16_CODE, GrB_UINT16_CODE, GrB_BOOL_CODE, "uint16_t",
                 "uint16_t", "bool");
  expect_domains(GrB_LOR, "GrB_LOR", GrB_BOOL_CODE, GrB_BOOL_CODE, GrB_BOOL_CODE, "bool", "bool", "bool");
  expect_domains(GrB_AINV_INT8, "GrB_AINV_INT8", GrB_INT8_CODE, 0, GrB_INT8_CODE, "int8_t", nullptr, "int8_t");
  expect_domains(GrB_LNOT, "GrB_LNOT", GrB_BOOL_CODE, 0, GrB_BOOL_CODE, "bool", nullptr, "bool");
  expect_domains(GrB_TRIL, "GrB_TRIL", 0, GrB_INT64_CODE, GrB_BOOL_CODE, nullptr, "int64_t", "bool");
  expect_domains(GrB_ROWINDEX_INT32, "GrB_ROWINDEX_INT32", 0, GrB_INT32_CODE, GrB_INT32_CODE, nullptr, "int32_t",
                 "int32_t");
  expect_domains(GrB_VALUEGT_FP32, "GrB_VALUEGT_FP32", GrB_FP32_CODE, GrB_FP32_CODE, GrB_BOOL_CODE, "float", "float",
                 "bool");
  expect_domains(GrB_MAX_MONOID_INT64, "GrB_MAX_MONOID_INT64", GrB_INT64_CODE, GrB_INT64_CODE, GrB_INT64_CODE,
                 "int64_t", "int64_t", "int64_t");
  expect_domains(GrB_LXOR_MONOID_BOOL, "GrB_LXOR_MONOID_BOOL", GrB_BOOL_CODE, GrB_BOOL_CODE, GrB_BOOL_CODE, "bool",
                 "bool", "bool");
  expect_domains(GrB_PLUS_TIMES_SEMIRING_UINT32, "GrB_PLUS_TIMES_SEMIRING_UINT32", GrB_UINT32_CODE, GrB_UINT32_CODE,
                 GrB_UINT32_CODE, "uint32_t", "uint32_t", "uint32_t");
  expect_domains(GrB_LOR_LAND_SEMIRING_BOOL, "GrB_LOR_LAND_SEMIRING_BOOL", GrB_BOOL_CODE, GrB_BOOL_CODE,
                 GrB_BOOL_CODE, "bool", "bool", "bool");
  // Builtin names are read only.
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, GrB_PLUS_FP64, GrB_set(GrB_PLUS_FP64, "mine", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, GrB_AINV_INT8, GrB_set(GrB_AINV_INT8, "mine", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, GrB_TRIL, GrB_set(GrB_TRIL, "mine", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, GrB_MIN_MONOID_FP32, GrB_set(GrB_MIN_MONOID_FP32, "mine", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, GrB_MIN_PLUS_SEMIRING_FP64,
                     GrB_set(GrB_MIN_PLUS_SEMIRING_FP64, "mine", GrB_NAME));
}

TEST_F(GetSet, UserAlgebra) {
  GrB_BinaryOp add = nullptr;
  GrB_UnaryOp first = nullptr;
  GrB_IndexUnaryOp sel = nullptr;
  GrB_Monoid monoid = nullptr;
  GrB_Semiring semiring = nullptr;
  ASSERT_EQ(GrB_BinaryOp_new(&add, wide_add, wide, wide, wide), GrB_SUCCESS);
  ASSERT_EQ(GrB_UnaryOp_new(&first, wide_first, GrB_FP64, wide), GrB_SUCCESS);
  ASSERT_EQ(GrB_IndexUnaryOp_new(&sel, wide_select, GrB_BOOL, wide, GrB_INT64), GrB_SUCCESS);
  const Wide zero{0, 0, 0};
  ASSERT_EQ(GrB_Monoid_new_UDT(&monoid, add, &zero), GrB_SUCCESS);
  ASSERT_EQ(GrB_Semiring_new(&semiring, GrB_PLUS_MONOID_FP64, GrB_TIMES_FP64), GrB_SUCCESS);
  ASSERT_EQ(GrB_set(wide, "wide_t", GrB_NAME), GrB_SUCCESS);

  // Unnamed: "" and the user type's string.
  expect_domains(add, "", GrB_UDT_CODE, GrB_UDT_CODE, GrB_UDT_CODE, "wide_t", "wide_t", "wide_t");
  expect_domains(first, "", GrB_UDT_CODE, 0, GrB_FP64_CODE, "wide_t", nullptr, "double");
  expect_domains(sel, "", GrB_UDT_CODE, GrB_INT64_CODE, GrB_BOOL_CODE, "wide_t", "int64_t", "bool");
  expect_domains(monoid, "", GrB_UDT_CODE, GrB_UDT_CODE, GrB_UDT_CODE, "wide_t", "wide_t", "wide_t");
  expect_domains(semiring, "", GrB_FP64_CODE, GrB_FP64_CODE, GrB_FP64_CODE, "double", "double", "double");

  // Names: once each, unique across types and algebra objects.
  EXPECT_EQ(GrB_BinaryOp_set_String(add, "wide_add", GrB_NAME), GrB_SUCCESS);
  EXPECT_FIELD_ERROR(GrB_ALREADY_SET, add, GrB_set(add, "wide_plus", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, first, GrB_set(first, "wide_add", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, monoid, GrB_set(monoid, "wide_t", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, sel, GrB_set(sel, "GrB_TRIL", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, semiring, GrB_set(semiring, "GrB_PLUS_TIMES_SEMIRING_FP64", GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, semiring, GrB_set(semiring, 3, GrB_NAME));
  EXPECT_EQ(GrB_set(first, "wide_first", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(GrB_set(sel, "wide_rows", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(GrB_set(monoid, "wide_monoid", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(GrB_Semiring_set_String(semiring, "plus_times", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(get_string(add, GrB_NAME), "wide_add");
  EXPECT_EQ(get_string(first, GrB_NAME), "wide_first");
  EXPECT_EQ(get_string(sel, GrB_NAME), "wide_rows");
  EXPECT_EQ(get_string(monoid, GrB_NAME), "wide_monoid");
  EXPECT_EQ(get_string(semiring, GrB_NAME), "plus_times");
  EXPECT_FIELD_ERROR(GrB_ALREADY_SET, semiring, GrB_set(semiring, "plus_times", GrB_NAME));

  GrB_free(&semiring);
  GrB_free(&monoid);
  GrB_free(&sel);
  GrB_free(&first);
  GrB_free(&add);
  // Their names are free again.
  ASSERT_EQ(GrB_BinaryOp_new(&add, wide_add, wide, wide, wide), GrB_SUCCESS);
  EXPECT_EQ(GrB_set(add, "plus_times", GrB_NAME), GrB_SUCCESS);
  GrB_free(&add);
}

// ---- matrices, vectors, scalars -------------------------------------------------------------------------
template <class H>
void expect_collection(H c, int32_t code, const char* type_string) {
  EXPECT_EQ(get_string(c, GrB_NAME), "");
  EXPECT_EQ(get_int(c, GrB_EL_TYPE_CODE), code);
  EXPECT_EQ(get_string(c, GrB_EL_TYPE_STRING), type_string);
  EXPECT_EQ(get_int(c, GrB_STORAGE_ORIENTATION_HINT), GrB_ROWMAJOR);

  // The name: any string, at any time.
  EXPECT_EQ(GrB_set(c, "first name", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(get_string(c, GrB_NAME), "first name");
  EXPECT_EQ(GrB_set(c, "", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(get_string(c, GrB_NAME), "");
  const std::string long_name(1000, 'L');
  EXPECT_EQ(GrB_set(c, long_name.c_str(), GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(get_string(c, GrB_NAME), long_name);
  EXPECT_EQ(GrB_set(c, "graph", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(get_string(c, GrB_NAME), "graph");

  // The orientation: a hint, accepted and ignored.
  for (int32_t o : {GrB_COLMAJOR, GrB_BOTH, GrB_UNKNOWN, GrB_ROWMAJOR}) {
    EXPECT_EQ(GrB_set(c, o, GrB_STORAGE_ORIENTATION_HINT), GrB_SUCCESS);
    EXPECT_EQ(get_int(c, GrB_STORAGE_ORIENTATION_HINT), GrB_ROWMAJOR);
  }
  GrB_Scalar one = nullptr;
  ASSERT_EQ(GrB_Scalar_new(&one, GrB_FP32), GrB_SUCCESS);
  ASSERT_EQ(GrB_Scalar_setElement_FP32(one, 1.0f), GrB_SUCCESS);
  EXPECT_EQ(GrB_set(c, one, GrB_STORAGE_ORIENTATION_HINT), GrB_SUCCESS);
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_set(c, one, GrB_NAME));
  EXPECT_EQ(GrB_get(c, one, GrB_EL_TYPE_CODE), GrB_SUCCESS);
  float x = 0;
  EXPECT_EQ(GrB_Scalar_extractElement_FP32(&x, one), GrB_SUCCESS);
  EXPECT_EQ(x, static_cast<float>(code));
  GrB_free(&one);

  int32_t i = 0;
  size_t n = 0;
  char buf[16];
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_set(c, 4, GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_set(c, "by column", GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_set(c, 5, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_set(c, GrB_BOOL_CODE, GrB_EL_TYPE_CODE));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_set(c, "bool", GrB_EL_TYPE_STRING));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_get(c, &i, GrB_EL_TYPE_STRING));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_get(c, buf, GrB_EL_TYPE_CODE));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_get(c, &n, GrB_EL_TYPE_CODE));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_get(c, (void*)buf, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_set(c, (void*)buf, GrB_NAME, sizeof buf));
  for (GrB_Field f : {GrB_SIZE, GrB_OUTP_FIELD, GrB_INP0_TYPE_CODE, GrB_BLOCKING_MODE, (GrB_Field)-1}) {
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_get(c, &i, f));
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, c, GrB_set(c, 0, f));
  }
  EXPECT_EQ(get_string(c, GrB_NAME), "graph");
}

TEST_F(GetSet, Collections) {
  {
    SCOPED_TRACE("matrix");
    expect_collection(A, GrB_FP64_CODE, "double");
  }
  {
    SCOPED_TRACE("vector");
    expect_collection(v, GrB_INT32_CODE, "int32_t");
  }
  {
    SCOPED_TRACE("scalar");
    expect_collection(s, GrB_FP64_CODE, "double");
  }
  // Naming changes no content.
  GrB_Index n = 0;
  EXPECT_EQ(GrB_Matrix_nvals(&n, A), GrB_SUCCESS);
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(GrB_Vector_nvals(&n, v), GrB_SUCCESS);
  EXPECT_EQ(n, 2u);
  double x = 0;
  EXPECT_EQ(GrB_Scalar_extractElement_FP64(&x, s), GrB_SUCCESS);
  EXPECT_EQ(x, 2.5);

  // Each builtin type and a user type, in every kind of collection.
  for (const Builtin& b : kBuiltins) {
    SCOPED_TRACE(b.name);
    GrB_Matrix M = nullptr;
    GrB_Vector u = nullptr;
    GrB_Scalar t = nullptr;
    ASSERT_EQ(GrB_Matrix_new(&M, b.type, 2, 3), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_new(&u, b.type, 2), GrB_SUCCESS);
    ASSERT_EQ(GrB_Scalar_new(&t, b.type), GrB_SUCCESS);
    EXPECT_EQ(get_int(M, GrB_EL_TYPE_CODE), b.code);
    EXPECT_EQ(get_int(u, GrB_EL_TYPE_CODE), b.code);
    EXPECT_EQ(get_int(t, GrB_EL_TYPE_CODE), b.code);
    EXPECT_EQ(get_string(M, GrB_EL_TYPE_STRING), b.c_name);
    EXPECT_EQ(get_string(u, GrB_EL_TYPE_STRING), b.c_name);
    EXPECT_EQ(get_string(t, GrB_EL_TYPE_STRING), b.c_name);
    GrB_free(&M);
    GrB_free(&u);
    GrB_free(&t);
  }
  GrB_Matrix W = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&W, wide, 3, 3), GrB_SUCCESS);
  EXPECT_EQ(get_int(W, GrB_EL_TYPE_CODE), GrB_UDT_CODE);
  EXPECT_EQ(get_string(W, GrB_EL_TYPE_STRING), "");
  ASSERT_EQ(GrB_set(wide, "wide_t", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(get_string(W, GrB_EL_TYPE_STRING), "wide_t");
  EXPECT_EQ(get_string(s_wide, GrB_EL_TYPE_STRING), "wide_t");
  GrB_free(&W);
}

// A matrix hint field: `off` by default, each value reads back, a dup takes it, a value outside 0-2 is refused with a
// message naming the field and leaves the hint as it was, and vectors have no such field. Leaves the hint at `off`.
void expect_matrix_hint_field(GrB_Matrix A, GrB_Field field, const char* name, int32_t off, int32_t fp16,
                              int32_t bf16) {
  SCOPED_TRACE(name);
  EXPECT_EQ(get_int(A, field), off);
  for (int32_t v : {fp16, bf16, off, bf16}) {
    ASSERT_EQ(GrB_set(A, v, field), GrB_SUCCESS);
    EXPECT_EQ(get_int(A, field), v);
  }
  GrB_Matrix D = nullptr;
  ASSERT_EQ(GrB_Matrix_dup(&D, A), GrB_SUCCESS);
  EXPECT_EQ(get_int(D, field), bf16);
  GrB_free(&D);
  EXPECT_EQ(GrB_set(A, 3, field), GrB_INVALID_VALUE);
  EXPECT_EQ(GrB_set(A, -1, field), GrB_INVALID_VALUE);
  const char* msg = nullptr;
  ASSERT_EQ(GrB_error(&msg, A), GrB_SUCCESS);
  EXPECT_NE(std::string(msg).find(name), std::string::npos) << msg;
  EXPECT_EQ(get_int(A, field), bf16);
  GrB_Vector u = nullptr;
  ASSERT_EQ(GrB_Vector_new(&u, GrB_FP32, 4), GrB_SUCCESS);
  int32_t v = 0;
  EXPECT_EQ(GrB_get(u, &v, field), GrB_INVALID_VALUE);
  EXPECT_EQ(GrB_set(u, bf16, field), GrB_INVALID_VALUE);
  GrB_free(&u);
  ASSERT_EQ(GrB_set(A, off, field), GrB_SUCCESS);
}

TEST_F(GetSet, TwoFourHintOfAMatrix) {
  expect_matrix_hint_field(A, SNK_TWO_FOUR_HINT, "SNK_TWO_FOUR_HINT", SNK_TWO_FOUR_OFF, SNK_TWO_FOUR_FP16,
                           SNK_TWO_FOUR_BF16);
}

TEST_F(GetSet, PrecisionHintOfAMatrix) {
  ASSERT_EQ(GrB_set(A, SNK_TWO_FOUR_BF16, SNK_TWO_FOUR_HINT), GrB_SUCCESS);   // the two hints are separate
  expect_matrix_hint_field(A, SNK_PRECISION_HINT, "SNK_PRECISION_HINT", SNK_PRECISION_FP32, SNK_PRECISION_FP16,
                           SNK_PRECISION_BF16);
  EXPECT_EQ(get_int(A, SNK_TWO_FOUR_HINT), SNK_TWO_FOUR_BF16) << "the two hints are separate";
  ASSERT_EQ(GrB_set(A, SNK_TWO_FOUR_OFF, SNK_TWO_FOUR_HINT), GrB_SUCCESS);
}

// SNK_PAGE_LOCKED on a backend without device memory (the CPU backends): accepted, nothing locked (GrB_get reads 0);
// values other than 0 and 1 refused with a message naming the field; a vector has no such field.
TEST_F(GetSet, PageLockedWithoutADevice) {
  EXPECT_EQ(get_int(A, SNK_PAGE_LOCKED), 0);
  ASSERT_EQ(GrB_set(A, 1, SNK_PAGE_LOCKED), GrB_SUCCESS);
  EXPECT_EQ(get_int(A, SNK_PAGE_LOCKED), 0) << "no backend here locks host memory";
  ASSERT_EQ(GrB_set(A, 0, SNK_PAGE_LOCKED), GrB_SUCCESS);
  EXPECT_EQ(GrB_set(A, 2, SNK_PAGE_LOCKED), GrB_INVALID_VALUE);
  const char* msg = nullptr;
  ASSERT_EQ(GrB_error(&msg, A), GrB_SUCCESS);
  EXPECT_NE(std::string(msg).find("SNK_PAGE_LOCKED"), std::string::npos) << msg;
  GrB_Vector u = nullptr;
  ASSERT_EQ(GrB_Vector_new(&u, GrB_FP32, 4), GrB_SUCCESS);
  int32_t v = 0;
  EXPECT_EQ(GrB_get(u, &v, SNK_PAGE_LOCKED), GrB_INVALID_VALUE);
  GrB_free(&u);
}

TEST_F(GetSet, CollectionScalarValues) {
  // A GrB_Scalar value: empty (EMPTY_OBJECT), of a type that does not take an int32_t (DOMAIN_MISMATCH).
  EXPECT_FIELD_ERROR(GrB_EMPTY_OBJECT, A, GrB_set(A, empty, GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_DOMAIN_MISMATCH, A, GrB_set(A, s_wide, GrB_STORAGE_ORIENTATION_HINT));
  EXPECT_FIELD_ERROR(GrB_DOMAIN_MISMATCH, s_wide, GrB_get(A, s_wide, GrB_EL_TYPE_CODE));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, s, GrB_get(A, s, GrB_NAME));   // a string into a GrB_Scalar
  EXPECT_FIELD_ERROR(GrB_UNINITIALIZED_OBJECT, A, GrB_get(A, uninitialized<GrB_Scalar>(), GrB_EL_TYPE_CODE));
  EXPECT_FIELD_ERROR(GrB_UNINITIALIZED_OBJECT, A, GrB_set(A, uninitialized<GrB_Scalar>(), GrB_NAME));
  // A value out of int32_t's range saturates, and is then not a GrB_Orientation.
  ASSERT_EQ(GrB_Scalar_setElement_FP64(s, 1e12), GrB_SUCCESS);
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, A, GrB_set(A, s, GrB_STORAGE_ORIENTATION_HINT));
  ASSERT_EQ(GrB_Scalar_setElement_FP64(s, 2.0), GrB_SUCCESS);
  EXPECT_EQ(GrB_Matrix_set_Scalar(A, s, GrB_STORAGE_ORIENTATION_HINT), GrB_SUCCESS);
  // A bool scalar takes a type code only as true / false: the cast the spec defines.
  GrB_Scalar flag = nullptr;
  ASSERT_EQ(GrB_Scalar_new(&flag, GrB_BOOL), GrB_SUCCESS);
  EXPECT_EQ(GrB_Matrix_get_Scalar(A, flag, GrB_EL_TYPE_CODE), GrB_SUCCESS);
  bool b = false;
  EXPECT_EQ(GrB_Scalar_extractElement_BOOL(&b, flag), GrB_SUCCESS);
  EXPECT_TRUE(b);
  GrB_free(&flag);
}

// ---- descriptors ---------------------------------------------------------------------------------------------
TEST_F(GetSet, Descriptor) {
  EXPECT_EQ(get_string(desc, GrB_NAME), "");
  for (GrB_Field f : {GrB_OUTP_FIELD, GrB_MASK_FIELD, GrB_INP0_FIELD, GrB_INP1_FIELD}) {
    EXPECT_EQ(get_int(desc, f), GrB_DEFAULT);
  }
  EXPECT_EQ(GrB_set(desc, GrB_REPLACE, GrB_OUTP_FIELD), GrB_SUCCESS);
  EXPECT_EQ(get_int(desc, GrB_OUTP_FIELD), GrB_REPLACE);
  EXPECT_EQ(GrB_Descriptor_set_INT32(desc, GrB_COMP, GrB_MASK_FIELD), GrB_SUCCESS);
  EXPECT_EQ(get_int(desc, GrB_MASK_FIELD), GrB_COMP);
  EXPECT_EQ(GrB_set(desc, GrB_STRUCTURE, GrB_MASK_FIELD), GrB_SUCCESS);   // adds, as GrB_Descriptor_set
  EXPECT_EQ(get_int(desc, GrB_MASK_FIELD), GrB_COMP_STRUCTURE);
  EXPECT_EQ(GrB_set(desc, GrB_DEFAULT, GrB_MASK_FIELD), GrB_SUCCESS);
  EXPECT_EQ(get_int(desc, GrB_MASK_FIELD), GrB_DEFAULT);
  EXPECT_EQ(GrB_set(desc, GrB_STRUCTURE, GrB_MASK_FIELD), GrB_SUCCESS);
  EXPECT_EQ(get_int(desc, GrB_MASK_FIELD), GrB_STRUCTURE);
  EXPECT_EQ(GrB_set(desc, GrB_COMP_STRUCTURE, GrB_MASK_FIELD), GrB_SUCCESS);
  EXPECT_EQ(get_int(desc, GrB_MASK_FIELD), GrB_COMP_STRUCTURE);
  EXPECT_EQ(GrB_set(desc, GrB_TRAN, GrB_INP1_FIELD), GrB_SUCCESS);
  EXPECT_EQ(get_int(desc, GrB_INP1_FIELD), GrB_TRAN);
  EXPECT_EQ(get_int(desc, GrB_INP0_FIELD), GrB_DEFAULT);
  EXPECT_EQ(GrB_set(desc, GrB_DEFAULT, GrB_OUTP_FIELD), GrB_SUCCESS);
  EXPECT_EQ(get_int(desc, GrB_OUTP_FIELD), GrB_DEFAULT);
  EXPECT_EQ(GrB_set(desc, "my descriptor", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(get_string(desc, GrB_NAME), "my descriptor");
  EXPECT_EQ(GrB_set(desc, "renamed", GrB_NAME), GrB_SUCCESS);   // any time
  EXPECT_EQ(get_string(desc, GrB_NAME), "renamed");
  // A GrB_Scalar value.
  GrB_Scalar t = nullptr;
  ASSERT_EQ(GrB_Scalar_new(&t, GrB_INT32), GrB_SUCCESS);
  ASSERT_EQ(GrB_Scalar_setElement_INT32(t, GrB_TRAN), GrB_SUCCESS);
  EXPECT_EQ(GrB_set(desc, t, GrB_INP0_FIELD), GrB_SUCCESS);
  EXPECT_EQ(get_int(desc, GrB_INP0_FIELD), GrB_TRAN);
  EXPECT_EQ(GrB_get(desc, t, GrB_MASK_FIELD), GrB_SUCCESS);
  int32_t m = 0;
  EXPECT_EQ(GrB_Scalar_extractElement_INT32(&m, t), GrB_SUCCESS);
  EXPECT_EQ(m, GrB_COMP_STRUCTURE);
  GrB_free(&t);

  // What the fields say is what operations do: C = A' through INP0 = GrB_TRAN.
  GrB_Descriptor d0 = nullptr;
  ASSERT_EQ(GrB_Descriptor_new(&d0), GrB_SUCCESS);
  ASSERT_EQ(GrB_set(d0, GrB_TRAN, GrB_INP0_FIELD), GrB_SUCCESS);
  GrB_Matrix C = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&C, GrB_FP64, 4, 5), GrB_SUCCESS);
  EXPECT_EQ(GrB_transpose(C, nullptr, nullptr, A, d0), GrB_SUCCESS);   // (A')' = A
  double x = 0;
  EXPECT_EQ(GrB_Matrix_extractElement_FP64(&x, C, 1, 2), GrB_SUCCESS);
  EXPECT_EQ(x, 2.5);
  GrB_free(&C);
  GrB_free(&d0);

  // Errors: values a field does not take, fields a descriptor does not have, kinds of values.
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, desc, GrB_set(desc, GrB_TRAN, GrB_OUTP_FIELD));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, desc, GrB_set(desc, GrB_REPLACE, GrB_MASK_FIELD));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, desc, GrB_set(desc, GrB_COMP, GrB_INP0_FIELD));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, desc, GrB_set(desc, 99, GrB_INP1_FIELD));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, desc, GrB_set(desc, "GrB_TRAN", GrB_INP1_FIELD));
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, desc, GrB_set(desc, 1, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_EMPTY_OBJECT, desc, GrB_set(desc, empty, GrB_INP0_FIELD));
  EXPECT_FIELD_ERROR(GrB_DOMAIN_MISMATCH, desc, GrB_set(desc, s_wide, GrB_INP0_FIELD));
  int32_t i = 0;
  for (GrB_Field f : {GrB_EL_TYPE_CODE, GrB_SIZE, GrB_STORAGE_ORIENTATION_HINT, GrB_INP0_TYPE_CODE}) {
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, desc, GrB_get(desc, &i, f));
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, desc, GrB_set(desc, 0, f));
  }
  EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, desc, GrB_get(desc, &i, GrB_NAME));
}

TEST_F(GetSet, PredefinedDescriptors) {
  struct Predefined {
    GrB_Descriptor d;
    const char* name;
    int32_t outp, mask, inp0, inp1;
  };
  const int32_t D = GrB_DEFAULT, R = GrB_REPLACE, C = GrB_COMP, S = GrB_STRUCTURE, SC = GrB_COMP_STRUCTURE,
                T = GrB_TRAN;
  const Predefined all[] = {
      {GrB_DESC_T1, "GrB_DESC_T1", D, D, D, T},          {GrB_DESC_T0, "GrB_DESC_T0", D, D, T, D},
      {GrB_DESC_T0T1, "GrB_DESC_T0T1", D, D, T, T},      {GrB_DESC_C, "GrB_DESC_C", D, C, D, D},
      {GrB_DESC_CT1, "GrB_DESC_CT1", D, C, D, T},        {GrB_DESC_CT0, "GrB_DESC_CT0", D, C, T, D},
      {GrB_DESC_CT0T1, "GrB_DESC_CT0T1", D, C, T, T},    {GrB_DESC_S, "GrB_DESC_S", D, S, D, D},
      {GrB_DESC_ST1, "GrB_DESC_ST1", D, S, D, T},        {GrB_DESC_ST0, "GrB_DESC_ST0", D, S, T, D},
      {GrB_DESC_ST0T1, "GrB_DESC_ST0T1", D, S, T, T},    {GrB_DESC_SC, "GrB_DESC_SC", D, SC, D, D},
      {GrB_DESC_SCT1, "GrB_DESC_SCT1", D, SC, D, T},     {GrB_DESC_SCT0, "GrB_DESC_SCT0", D, SC, T, D},
      {GrB_DESC_SCT0T1, "GrB_DESC_SCT0T1", D, SC, T, T}, {GrB_DESC_R, "GrB_DESC_R", R, D, D, D},
      {GrB_DESC_RT1, "GrB_DESC_RT1", R, D, D, T},        {GrB_DESC_RT0, "GrB_DESC_RT0", R, D, T, D},
      {GrB_DESC_RT0T1, "GrB_DESC_RT0T1", R, D, T, T},    {GrB_DESC_RC, "GrB_DESC_RC", R, C, D, D},
      {GrB_DESC_RCT1, "GrB_DESC_RCT1", R, C, D, T},      {GrB_DESC_RCT0, "GrB_DESC_RCT0", R, C, T, D},
      {GrB_DESC_RCT0T1, "GrB_DESC_RCT0T1", R, C, T, T},  {GrB_DESC_RS, "GrB_DESC_RS", R, S, D, D},
      {GrB_DESC_RST1, "GrB_DESC_RST1", R, S, D, T},      {GrB_DESC_RST0, "GrB_DESC_RST0", R, S, T, D},
      {GrB_DESC_RST0T1, "GrB_DESC_RST0T1", R, S, T, T},  {GrB_DESC_RSC, "GrB_DESC_RSC", R, SC, D, D},
      {GrB_DESC_RSCT1, "GrB_DESC_RSCT1", R, SC, D, T},   {GrB_DESC_RSCT0, "GrB_DESC_RSCT0", R, SC, T, D},
      {GrB_DESC_RSCT0T1, "GrB_DESC_RSCT0T1", R, SC, T, T},
  };
  for (const Predefined& p : all) {
    SCOPED_TRACE(p.name);
    EXPECT_EQ(get_string(p.d, GrB_NAME), p.name);
    EXPECT_EQ(get_int(p.d, GrB_OUTP_FIELD), p.outp);
    EXPECT_EQ(get_int(p.d, GrB_MASK_FIELD), p.mask);
    EXPECT_EQ(get_int(p.d, GrB_INP0_FIELD), p.inp0);
    EXPECT_EQ(get_int(p.d, GrB_INP1_FIELD), p.inp1);
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, p.d, GrB_set(p.d, GrB_DEFAULT, GrB_OUTP_FIELD));
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, p.d, GrB_set(p.d, GrB_TRAN, GrB_INP0_FIELD));
    EXPECT_FIELD_ERROR(GrB_INVALID_VALUE, p.d, GrB_set(p.d, "mine", GrB_NAME));
  }
}

// ---- bad objects, for every kind -------------------------------------------------------------------------
template <class H>
void expect_bad_objects(H live) {
  int32_t i = 7;
  size_t n = 7;
  char buf[8] = "keep";
  const H null_object = nullptr;
  const H garbage = uninitialized<H>();
  for (H bad : {null_object, garbage}) {
    const GrB_Info code = bad == nullptr ? GrB_NULL_POINTER : GrB_UNINITIALIZED_OBJECT;
    EXPECT_FIELD_ERROR(code, live, GrB_get(bad, &i, GrB_NAME));
    EXPECT_FIELD_ERROR(code, live, GrB_get(bad, &n, GrB_NAME));
    EXPECT_FIELD_ERROR(code, live, GrB_get(bad, buf, GrB_NAME));
    EXPECT_FIELD_ERROR(code, live, GrB_get(bad, (void*)buf, GrB_NAME));
    EXPECT_FIELD_ERROR(code, live, GrB_set(bad, "name", GrB_NAME));
    EXPECT_FIELD_ERROR(code, live, GrB_set(bad, 1, GrB_NAME));
    EXPECT_FIELD_ERROR(code, live, GrB_set(bad, (void*)buf, GrB_NAME, 1));
  }
  // The value: NULL, or a GrB_Scalar that is not one.
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, live, GrB_get(live, (int32_t*)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, live, GrB_get(live, (size_t*)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, live, GrB_get(live, (char*)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, live, GrB_get(live, (void*)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, live, GrB_get(live, (GrB_Scalar) nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, live, GrB_set(live, (const char*)nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, live, GrB_set(live, (GrB_Scalar) nullptr, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, live, GrB_set(live, (void*)nullptr, GrB_NAME, 1));
  EXPECT_FIELD_ERROR(GrB_UNINITIALIZED_OBJECT, live, GrB_get(live, uninitialized<GrB_Scalar>(), GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_UNINITIALIZED_OBJECT, live, GrB_set(live, uninitialized<GrB_Scalar>(), GrB_NAME));
  // An object of another kind.
  const H other = std::is_same<H, GrB_Descriptor>::value ? reinterpret_cast<H>(GrB_LOR)
                                                         : reinterpret_cast<H>(GrB_DESC_T1);
  EXPECT_FIELD_ERROR(GrB_UNINITIALIZED_OBJECT, live, GrB_get(other, &i, GrB_NAME));
  EXPECT_FIELD_ERROR(GrB_UNINITIALIZED_OBJECT, live, GrB_set(other, "name", GrB_NAME));
  EXPECT_EQ(i, 7);
  EXPECT_EQ(n, 7u);
  EXPECT_STREQ(buf, "keep");
}

TEST_F(GetSet, BadObjects) {
  GrB_BinaryOp op = nullptr;
  ASSERT_EQ(GrB_BinaryOp_new(&op, wide_add, wide, wide, wide), GrB_SUCCESS);
  expect_bad_objects(wide);
  expect_bad_objects(GrB_AINV_FP64);
  expect_bad_objects(op);
  expect_bad_objects(GrB_TRIL);
  expect_bad_objects(GrB_PLUS_MONOID_FP64);
  expect_bad_objects(GrB_MIN_PLUS_SEMIRING_FP64);
  expect_bad_objects(s);
  expect_bad_objects(v);
  expect_bad_objects(A);
  expect_bad_objects(desc);
  GrB_free(&op);
}

// ---- GxB_ type queries ----------------------------------------------------------------------------------
TEST_F(GetSet, GxbTypeQueries) {
  for (const Builtin& b : kBuiltins) {
    SCOPED_TRACE(b.name);
    GrB_Matrix M = nullptr;
    GrB_Vector u = nullptr;
    GrB_Scalar t = nullptr;
    ASSERT_EQ(GrB_Matrix_new(&M, b.type, 2, 3), GrB_SUCCESS);
    ASSERT_EQ(GrB_Vector_new(&u, b.type, 2), GrB_SUCCESS);
    ASSERT_EQ(GrB_Scalar_new(&t, b.type), GrB_SUCCESS);
    char name[GxB_MAX_NAME_LEN];
    EXPECT_EQ(GxB_Matrix_type_name(name, M), GrB_SUCCESS);
    EXPECT_STREQ(name, b.c_name);
    EXPECT_EQ(GxB_Vector_type_name(name, u), GrB_SUCCESS);
    EXPECT_STREQ(name, b.c_name);
    EXPECT_EQ(GxB_Scalar_type_name(name, t), GrB_SUCCESS);
    EXPECT_STREQ(name, b.c_name);
    GrB_Type type = nullptr;
    EXPECT_EQ(GxB_Matrix_type(&type, M), GrB_SUCCESS);
    EXPECT_EQ(type, b.type);
    type = nullptr;
    EXPECT_EQ(GxB_Vector_type(&type, u), GrB_SUCCESS);
    EXPECT_EQ(type, b.type);
    type = nullptr;
    EXPECT_EQ(GxB_Scalar_type(&type, t), GrB_SUCCESS);
    EXPECT_EQ(type, b.type);
    GrB_free(&M);
    GrB_free(&u);
    GrB_free(&t);
  }
  // A user type: its handle, and its name once it has one.
  GrB_Vector w = nullptr;
  ASSERT_EQ(GrB_Vector_new(&w, wide, 3), GrB_SUCCESS);
  char name[GxB_MAX_NAME_LEN] = "x";
  EXPECT_EQ(GxB_Vector_type_name(name, w), GrB_SUCCESS);
  EXPECT_STREQ(name, "");
  ASSERT_EQ(GrB_set(wide, "wide_t", GrB_NAME), GrB_SUCCESS);
  EXPECT_EQ(GxB_Vector_type_name(name, w), GrB_SUCCESS);
  EXPECT_STREQ(name, "wide_t");
  EXPECT_EQ(GxB_Scalar_type_name(name, s_wide), GrB_SUCCESS);
  EXPECT_STREQ(name, "wide_t");
  GrB_Type type = nullptr;
  EXPECT_EQ(GxB_Vector_type(&type, w), GrB_SUCCESS);
  EXPECT_EQ(type, wide);
  EXPECT_EQ(GxB_Scalar_type(&type, s_wide), GrB_SUCCESS);
  EXPECT_EQ(type, wide);
  GrB_free(&w);

  // Errors.
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, A, GxB_Matrix_type_name(nullptr, A));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, A, GxB_Matrix_type(nullptr, A));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, v, GxB_Vector_type_name(nullptr, v));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, v, GxB_Vector_type(nullptr, v));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, s, GxB_Scalar_type_name(nullptr, s));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, s, GxB_Scalar_type(nullptr, s));
  EXPECT_FIELD_ERROR(GrB_NULL_POINTER, wide, GxB_Type_name(nullptr, wide));
  std::strcpy(name, "keep");
  EXPECT_EQ(GxB_Matrix_type_name(name, nullptr), GrB_NULL_POINTER);
  EXPECT_EQ(GxB_Vector_type_name(name, uninitialized<GrB_Vector>()), GrB_UNINITIALIZED_OBJECT);
  EXPECT_EQ(GxB_Scalar_type_name(name, reinterpret_cast<GrB_Scalar>(A)), GrB_UNINITIALIZED_OBJECT);
  EXPECT_EQ(GxB_Type_name(name, nullptr), GrB_NULL_POINTER);
  EXPECT_STREQ(name, "keep");
  type = GrB_BOOL;
  EXPECT_EQ(GxB_Matrix_type(&type, nullptr), GrB_NULL_POINTER);
  EXPECT_EQ(GxB_Vector_type(&type, uninitialized<GrB_Vector>()), GrB_UNINITIALIZED_OBJECT);
  EXPECT_EQ(GxB_Scalar_type(&type, nullptr), GrB_NULL_POINTER);
  EXPECT_EQ(type, GrB_BOOL);
}

// ---- GxB_print / GxB_fprint -------------------------------------------------------------------------------
TEST_F(GetSet, PrintMatrix) {
  std::string text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_Matrix_fprint(A, "A", GxB_COMPLETE, f); });
  EXPECT_EQ(text,
            "A: GrB_Matrix 4 x 5, type double, 4 entries, stored by row\n"
            "  (0,1)   1\n"
            "  (1,2)   2.5\n"
            "  (2,3)   -3\n"
            "  (3,4)   0.1\n");
  // The polymorphic name passes the expression as the name; SUMMARY is the first line only.
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(A, GxB_SUMMARY, f); });
  EXPECT_EQ(text, "A: GrB_Matrix 4 x 5, type double, 4 entries, stored by row\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(A, GxB_SILENT, f); });
  EXPECT_EQ(text, "");
  text = printed(GrB_SUCCESS,
                 [&](FILE* f) { return GxB_Matrix_fprint(A, "A", static_cast<GxB_Print_Level>(-3), f); });
  EXPECT_EQ(text, "");
  // VERBOSE: every digit; above the last level: COMPLETE.
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_Matrix_fprint(A, nullptr, GxB_COMPLETE_VERBOSE, f); });
  EXPECT_NE(text.find("  (3,4)   0.10000000000000001\n"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("GrB_Matrix 4 x 5", 0), 0u) << text;   // no name: no title
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_Matrix_fprint(A, "", static_cast<GxB_Print_Level>(42), f); });
  EXPECT_NE(text.find("  (3,4)   0.1\n"), std::string::npos) << text;
  // The name the user set, after the description.
  ASSERT_EQ(GrB_set(A, "graph", GrB_NAME), GrB_SUCCESS);
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(A, GxB_SUMMARY, f); });
  EXPECT_EQ(text, "A: GrB_Matrix 4 x 5, type double, 4 entries, stored by row, GrB_NAME \"graph\"\n");

  // SHORT: the first 30 entries, in row order, then how many more; COMPLETE: all.
  GrB_Matrix B = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&B, GrB_INT16, 10, 10), GrB_SUCCESS);
  for (int k = 0; k < 45; ++k) ASSERT_EQ(GrB_Matrix_setElement_INT16(B, -k, k / 5, k % 10), GrB_SUCCESS);
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(B, GxB_SHORT, f); });
  EXPECT_EQ(count_lines(text), 1u + 30 + 1) << text;
  EXPECT_NE(text.find("B: GrB_Matrix 10 x 10, type int16_t, 45 entries"), std::string::npos) << text;
  EXPECT_NE(text.find("  ... 15 entries more\n"), std::string::npos) << text;
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(B, GxB_COMPLETE, f); });
  EXPECT_EQ(count_lines(text), 1u + 45) << text;
  EXPECT_NE(text.find("  (8,4)   -44\n"), std::string::npos) << text;
  GrB_free(&B);

  // A hypersparse matrix lists its rows.
  GrB_Matrix H = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&H, GrB_BOOL, GrB_Index(1) << 40, GrB_Index(1) << 40), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_setElement_BOOL(H, true, GrB_Index(1) << 39, 3), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_setElement_BOOL(H, false, 5, 7), GrB_SUCCESS);
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(H, GxB_COMPLETE, f); });
  EXPECT_EQ(text,
            "H: GrB_Matrix 1099511627776 x 1099511627776, type bool, 2 entries, stored by row\n"
            "  (5,7)   false\n"
            "  (549755813888,3)   true\n");
  GrB_free(&H);
}

TEST_F(GetSet, PrintOtherObjects) {
  std::string text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(v, GxB_COMPLETE, f); });
  EXPECT_EQ(text, "v: GrB_Vector of size 6, type int32_t, 2 entries\n  (1)   7\n  (4)   -2\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(s, GxB_SHORT, f); });
  EXPECT_EQ(text, "s: GrB_Scalar, type double, 1 entry\n  value: 2.5\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(empty, GxB_COMPLETE, f); });
  EXPECT_EQ(text, "empty: GrB_Scalar, type int32_t, 0 entries\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(GrB_FP32, GxB_SHORT, f); });
  EXPECT_EQ(text, "GrB_FP32: GrB_Type GrB_FP32: C type float, 4 bytes\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(wide, GxB_SHORT, f); });
  EXPECT_EQ(text, "wide: GrB_Type (user-defined): 24 bytes\n");
  ASSERT_EQ(GrB_set(wide, "wide_t", GrB_NAME), GrB_SUCCESS);
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(wide, GxB_SHORT, f); });
  EXPECT_EQ(text, "wide: GrB_Type \"wide_t\" (user-defined): 24 bytes\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(GrB_AINV_FP64, GxB_SHORT, f); });
  EXPECT_EQ(text, "GrB_AINV_FP64: GrB_UnaryOp GrB_AINV_FP64: z = f(x), z double, x double\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(GrB_GT_UINT8, GxB_SHORT, f); });
  EXPECT_EQ(text, "GrB_GT_UINT8: GrB_BinaryOp GrB_GT_UINT8: z = f(x, y), z bool, x uint8_t, y uint8_t\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(GrB_TRIL, GxB_SHORT, f); });
  EXPECT_EQ(text, "GrB_TRIL: GrB_IndexUnaryOp GrB_TRIL: z = f(x, i, j, y), z bool, x any type, y int64_t\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(GrB_MIN_MONOID_INT32, GxB_SHORT, f); });
  EXPECT_EQ(text, "GrB_MIN_MONOID_INT32: GrB_Monoid GrB_MIN_MONOID_INT32: type int32_t, operator GrB_MIN_INT32, "
                  "identity 2147483647, terminal -2147483648\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(GrB_PLUS_TIMES_SEMIRING_FP64, GxB_SHORT, f); });
  EXPECT_EQ(text, "GrB_PLUS_TIMES_SEMIRING_FP64: GrB_Semiring GrB_PLUS_TIMES_SEMIRING_FP64: add monoid "
                  "GrB_PLUS_MONOID_FP64 (operator GrB_PLUS_FP64, identity 0), multiply GrB_TIMES_FP64, "
                  "z = f(x, y), z double, x double, y double\n");
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(GrB_DESC_RSCT1, GxB_SHORT, f); });
  EXPECT_EQ(text, "GrB_DESC_RSCT1: GrB_Descriptor GrB_DESC_RSCT1: outp GrB_REPLACE, mask GrB_COMP_STRUCTURE, "
                  "inp0 GrB_DEFAULT, inp1 GrB_TRAN\n");
  ASSERT_EQ(GrB_set(desc, GrB_TRAN, GrB_INP0_FIELD), GrB_SUCCESS);
  ASSERT_EQ(GrB_set(desc, "mine", GrB_NAME), GrB_SUCCESS);
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(desc, GxB_SHORT, f); });
  EXPECT_EQ(text, "desc: GrB_Descriptor: outp GrB_DEFAULT, mask GrB_DEFAULT, inp0 GrB_TRAN, inp1 GrB_DEFAULT, "
                  "GrB_NAME \"mine\"\n");

  // User-defined algebra and values of a user type (their bytes).
  GrB_BinaryOp add = nullptr;
  GrB_Monoid monoid = nullptr;
  ASSERT_EQ(GrB_BinaryOp_new(&add, wide_add, wide, wide, wide), GrB_SUCCESS);
  const Wide zero{0, 0, 0};
  ASSERT_EQ(GrB_Monoid_new_UDT(&monoid, add, &zero), GrB_SUCCESS);
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(add, GxB_SHORT, f); });
  EXPECT_EQ(text, "add: GrB_BinaryOp (user-defined): z = f(x, y), z \"wide_t\" (user-defined, 24 bytes), "
                  "x \"wide_t\" (user-defined, 24 bytes), y \"wide_t\" (user-defined, 24 bytes)\n");
  ASSERT_EQ(GrB_set(monoid, "wide_plus", GrB_NAME), GrB_SUCCESS);
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(monoid, GxB_SHORT, f); });
  EXPECT_EQ(text, "monoid: GrB_Monoid \"wide_plus\" (user-defined): type \"wide_t\" (user-defined, 24 bytes), "
                  "operator (user-defined), identity <00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 ...>\n");
  const Wide one{1, 0, 0};
  ASSERT_EQ(GrB_Scalar_setElement_UDT(s_wide, &one), GrB_SUCCESS);
  text = printed(GrB_SUCCESS, [&](FILE* f) { return GxB_fprint(s_wide, GxB_SHORT, f); });
  EXPECT_EQ(text, "s_wide: GrB_Scalar, type \"wide_t\" (user-defined, 24 bytes), 1 entry\n"
                  "  value: <00 00 00 00 00 00 f0 3f 00 00 00 00 00 00 00 00 ...>\n");
  GrB_free(&monoid);
  GrB_free(&add);

  // GxB_print writes on stdout.
  testing::internal::CaptureStdout();
  EXPECT_EQ(GxB_print(v, GxB_SUMMARY), GrB_SUCCESS);
  EXPECT_EQ(GxB_print(s, 3), GrB_SUCCESS);   // a level as a plain int, as LAGraph's tests pass it
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "v: GrB_Vector of size 6, type int32_t, 2 entries\ns: GrB_Scalar, type double, 1 entry\n  value: 2.5\n");
}

TEST_F(GetSet, PrintErrors) {
  const auto nothing = [](GrB_Info expected, auto&& print) {
    EXPECT_EQ(printed(expected, print), "");
    EXPECT_FALSE(last_error().empty());
  };
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_Matrix_fprint(nullptr, "A", GxB_COMPLETE, f); });
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_Vector_fprint(nullptr, "v", GxB_COMPLETE, f); });
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_Scalar_fprint(nullptr, "s", GxB_COMPLETE, f); });
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_Type_fprint(nullptr, "t", GxB_COMPLETE, f); });
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_UnaryOp_fprint(nullptr, "op", GxB_COMPLETE, f); });
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_BinaryOp_fprint(nullptr, "op", GxB_COMPLETE, f); });
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_IndexUnaryOp_fprint(nullptr, "op", GxB_COMPLETE, f); });
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_Monoid_fprint(nullptr, "m", GxB_COMPLETE, f); });
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_Semiring_fprint(nullptr, "s", GxB_COMPLETE, f); });
  nothing(GrB_NULL_POINTER, [](FILE* f) { return GxB_Descriptor_fprint(nullptr, "d", GxB_COMPLETE, f); });
  nothing(GrB_UNINITIALIZED_OBJECT,
          [](FILE* f) { return GxB_Matrix_fprint(uninitialized<GrB_Matrix>(), "A", GxB_COMPLETE, f); });
  nothing(GrB_UNINITIALIZED_OBJECT,
          [&](FILE* f) { return GxB_Vector_fprint(reinterpret_cast<GrB_Vector>(A), "v", GxB_COMPLETE, f); });
  nothing(GrB_UNINITIALIZED_OBJECT,
          [](FILE* f) {
            return GxB_Semiring_fprint(reinterpret_cast<GrB_Semiring>(GrB_PLUS_FP64), "s", GxB_SILENT, f);
          });
  // A file that cannot be written.
  FILE* ro = std::fopen("/dev/null", "r");
  ASSERT_NE(ro, nullptr);
  EXPECT_EQ(GxB_Matrix_fprint(A, "A", GxB_COMPLETE, ro), GrB_INVALID_VALUE);
  EXPECT_FALSE(message_of(A).empty());
  std::fclose(ro);
}

}  // namespace
