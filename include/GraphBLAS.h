/* GraphBLAS.h: snack's C API, the GraphBLAS C API specification 2.1, written from the specification.
 *
 * Every object, method, operation, predefined type/operator/monoid/semiring/descriptor and GrB_Info code
 * of the specification 2.1 is declared here (2.1 added GrB_get / GrB_set with their fields, type codes
 * and the global context GrB_GLOBAL), with the C11 _Generic polymorphic names (GrB_assign, GrB_apply,
 * GrB_reduce, GrB_get, ...), plus the GxB_ functions that GraphBLAS programs commonly call (type names,
 * GxB_print, the option functions GxB_get / GxB_set; SuiteSparse's names, numbers and signatures) and
 * snack's extensions under the SNK_ prefix (backend choice per process or per thread, fallback counters,
 * determinism, a MatrixMarket reader). User code writes the standard names (GrB_mxm,
 * ...); each declaration carries an asm label that makes the linker use a prefixed symbol (snk_GrB_mxm,
 * ...), so this library and SuiteSparse:GraphBLAS (or any other GraphBLAS) can live in one process without
 * their symbols colliding. Compiles as C11 and as C++ (the functions have C linkage; the _Generic names are
 * C only, C++ gets overloads for the object methods, GrB_get / GrB_set, GxB_get / GxB_set and GxB_print). Functions are
 * grouped by object as in the specification; the typed families (the 11 builtin types and UDT) are
 * declared through SNK_FOR_EACH_TYPE, whose expansion gives e.g.
 * GrB_Matrix_setElement_FP64(GrB_Matrix C, double x, GrB_Index i, GrB_Index j).
 *
 * Inside snack's own source tree, <GraphBLAS.h> must also reach SuiteSparse's header (the reference
 * backend and the tests that compare against SuiteSparse include it): there, a translation unit that does
 * not define SNACK_C_API gets the next GraphBLAS.h on the include path (SuiteSparse's) instead of this
 * one. The installed copy of this file defines SNACK_C_API itself, so installed users always get snack's
 * API. */
#if !defined(SNACK_C_API) && !defined(SNACK_C_API_INSTALLED)
#include_next <GraphBLAS.h>
#else

#ifndef SNACK_GRAPHBLAS_H
#define SNACK_GRAPHBLAS_H

/* The standard headers that SuiteSparse:GraphBLAS's header brings, and that programs written for GraphBLAS
 * (LAGraph among them) rely on: FILE, PRIu64, INFINITY, INT_MAX, errno, va_list. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The symbol every declaration below links to: "snk_" + the standard name. */
#define SNK_SYMBOL(name) __asm__("snk_" #name)

/* ==== versions ========================================================================================= */
#define GRB_VERSION 2
#define GRB_SUBVERSION 1
#define SNK_VERSION_MAJOR 0
#define SNK_VERSION_MINOR 1
#define SNK_VERSION_PATCH 0

/* ==== basic types and constants ======================================================================== */
/* The enumerations are int-sized in C; C++ gets the same layout with a fixed underlying type, so that a
 * value outside the enumerators (which a C caller can pass) is a valid value there too and the library can
 * reject it with GrB_INVALID_VALUE instead of reading an out-of-range enum (undefined behaviour in C++). */
#ifdef __cplusplus
#define SNK_ENUM_INT : int
#else
#define SNK_ENUM_INT
#endif
typedef uint64_t GrB_Index;
#define GrB_INDEX_MAX ((GrB_Index)(1ULL << 60) - 1)
#define GrB_NULL NULL
#define GrB_INVALID_HANDLE NULL

typedef enum SNK_ENUM_INT {
  GrB_SUCCESS = 0,
  GrB_NO_VALUE = 1,
  GrB_UNINITIALIZED_OBJECT = -1,
  GrB_NULL_POINTER = -2,
  GrB_INVALID_VALUE = -3,
  GrB_INVALID_INDEX = -4,
  GrB_DOMAIN_MISMATCH = -5,
  GrB_DIMENSION_MISMATCH = -6,
  GrB_OUTPUT_NOT_EMPTY = -7,
  GrB_NOT_IMPLEMENTED = -8,
  GrB_ALREADY_SET = -9,   /* spec 2.1: a field that may be set once was set again */
  GrB_PANIC = -101,
  GrB_OUT_OF_MEMORY = -102,
  GrB_INSUFFICIENT_SPACE = -103,
  GrB_INVALID_OBJECT = -104,
  GrB_INDEX_OUT_OF_BOUNDS = -105,
  GrB_EMPTY_OBJECT = -106
} GrB_Info;

typedef enum SNK_ENUM_INT { GrB_NONBLOCKING = 0, GrB_BLOCKING = 1 } GrB_Mode;
typedef enum SNK_ENUM_INT { GrB_COMPLETE = 0, GrB_MATERIALIZE = 1 } GrB_WaitMode;
typedef enum SNK_ENUM_INT { GrB_OUTP = 0, GrB_MASK = 1, GrB_INP0 = 2, GrB_INP1 = 3 } GrB_Desc_Field;
typedef enum SNK_ENUM_INT {
  GrB_DEFAULT = 0,
  GrB_REPLACE = 1,
  GrB_COMP = 2,
  GrB_TRAN = 3,
  GrB_STRUCTURE = 4,
  GrB_COMP_STRUCTURE = 6
} GrB_Desc_Value;
typedef enum SNK_ENUM_INT { GrB_CSR_FORMAT = 0, GrB_CSC_FORMAT = 1, GrB_COO_FORMAT = 2 } GrB_Format;

/* Opaque objects. */
typedef struct SNK_Type_opaque *GrB_Type;
typedef struct SNK_UnaryOp_opaque *GrB_UnaryOp;
typedef struct SNK_BinaryOp_opaque *GrB_BinaryOp;
typedef struct SNK_IndexUnaryOp_opaque *GrB_IndexUnaryOp;
typedef struct SNK_Monoid_opaque *GrB_Monoid;
typedef struct SNK_Semiring_opaque *GrB_Semiring;
typedef struct SNK_Scalar_opaque *GrB_Scalar;
typedef struct SNK_Vector_opaque *GrB_Vector;
typedef struct SNK_Matrix_opaque *GrB_Matrix;
typedef struct SNK_Descriptor_opaque *GrB_Descriptor;

/* User function signatures (spec 2.0 writes them out in full; these names are for convenience, and the
 * GxB_ spellings keep code written for other implementations compiling). */
typedef void (*SNK_unary_function)(void *z, const void *x);
typedef void (*SNK_binary_function)(void *z, const void *x, const void *y);
typedef void (*SNK_index_unary_function)(void *z, const void *x, GrB_Index i, GrB_Index j, const void *y);
typedef SNK_unary_function GxB_unary_function;
typedef SNK_binary_function GxB_binary_function;
typedef SNK_index_unary_function GxB_index_unary_function;

/* GrB_ALL: pass as an index list to mean every index 0 .. n-1. */
extern const GrB_Index *const GrB_ALL SNK_SYMBOL(GrB_ALL);

/* The typed families: X(suffix, value type, input array type, output pointer type). */
#define SNK_FOR_EACH_BUILTIN_TYPE(X)                       \
  X(BOOL, bool, const bool *, bool *)                      \
  X(INT8, int8_t, const int8_t *, int8_t *)                \
  X(UINT8, uint8_t, const uint8_t *, uint8_t *)            \
  X(INT16, int16_t, const int16_t *, int16_t *)            \
  X(UINT16, uint16_t, const uint16_t *, uint16_t *)        \
  X(INT32, int32_t, const int32_t *, int32_t *)            \
  X(UINT32, uint32_t, const uint32_t *, uint32_t *)        \
  X(INT64, int64_t, const int64_t *, int64_t *)            \
  X(UINT64, uint64_t, const uint64_t *, uint64_t *)        \
  X(FP32, float, const float *, float *)                   \
  X(FP64, double, const double *, double *)
#define SNK_FOR_EACH_TYPE(X) SNK_FOR_EACH_BUILTIN_TYPE(X) X(UDT, const void *, const void *, void *)

/* ==== fields of GrB_get / GrB_set (spec 2.1) ============================================================ */
/* The global context: the object GrB_get / GrB_set take for the library's own fields. */
typedef struct SNK_Global_opaque *GrB_Global;
extern const GrB_Global GrB_GLOBAL SNK_SYMBOL(GrB_GLOBAL);

/* The fields and the value kind of each (INT32: int32_t, String: char *, SIZE: size_t). R = read only. */
typedef enum SNK_ENUM_INT {
  GrB_OUTP_FIELD = 0,                 /* GrB_Descriptor: INT32 (GrB_DEFAULT or GrB_REPLACE) */
  GrB_MASK_FIELD = 1,                 /* GrB_Descriptor: INT32 (GrB_DEFAULT, GrB_COMP, GrB_STRUCTURE or both) */
  GrB_INP0_FIELD = 2,                 /* GrB_Descriptor: INT32 (GrB_DEFAULT or GrB_TRAN) */
  GrB_INP1_FIELD = 3,                 /* GrB_Descriptor: INT32 (GrB_DEFAULT or GrB_TRAN) */
  GrB_NAME = 10,                      /* every object: String (see GrB_set below for who may set it) */
  GrB_LIBRARY_VER_MAJOR = 11,         /* GrB_GLOBAL, R: INT32 (snack's version) */
  GrB_LIBRARY_VER_MINOR = 12,
  GrB_LIBRARY_VER_PATCH = 13,
  GrB_API_VER_MAJOR = 14,             /* GrB_GLOBAL, R: INT32 (2.1.0) */
  GrB_API_VER_MINOR = 15,
  GrB_API_VER_PATCH = 16,
  GrB_BLOCKING_MODE = 17,             /* GrB_GLOBAL, R: INT32 (GrB_Mode given to GrB_init) */
  GrB_STORAGE_ORIENTATION_HINT = 100, /* GrB_GLOBAL, Matrix, Vector, Scalar: INT32 (GrB_Orientation), a hint */
  GrB_EL_TYPE_CODE = 102,             /* Matrix, Vector, Scalar, Type, R: INT32 (GrB_Type_Code) */
  GrB_INP0_TYPE_CODE = 103,           /* operators, monoids, semirings, R: INT32 (GrB_Type_Code) */
  GrB_INP1_TYPE_CODE = 104,
  GrB_OUTP_TYPE_CODE = 105,
  GrB_EL_TYPE_STRING = 106,           /* Matrix, Vector, Scalar, Type, R: String (the type string) */
  GrB_INP0_TYPE_STRING = 107,         /* operators, monoids, semirings, R: String (the type string) */
  GrB_INP1_TYPE_STRING = 108,
  GrB_OUTP_TYPE_STRING = 109,
  GrB_SIZE = 110,                     /* GrB_Type, R: SIZE (sizeof the C type) */
  SNK_TWO_FOUR_HINT = 7001,           /* Matrix: INT32 (SNK_TwoFour), a hint; see below */
  SNK_PRECISION_HINT = 7002,          /* Matrix: INT32 (SNK_Precision), a hint; see below */
  SNK_PAGE_LOCKED = 7003              /* Matrix: INT32 (0 or 1), a request; see below */
} GrB_Field;

/* SNK_TWO_FOUR_HINT values. With FP16 or BF16 set on a matrix A, GrB_mxm(C, ..., semiring, A, B, desc) may compute
 * A B on the sparse tensor cores in the 2:4 form: A's values and B's rounded to that type, the products summed in
 * FP32. The cuda backend does so for a PLUS_TIMES semiring on FP32 with A, B and C FP32, A not transposed, B with
 * every entry present, and A holding at most two entries in every group of four columns (0-3, 4-7, ...) of each
 * row; any other product, and every other backend, computes as without the hint. Default SNK_TWO_FOUR_OFF; GrB_get
 * reads it back; GrB_Matrix_dup copies it. */
typedef enum SNK_ENUM_INT { SNK_TWO_FOUR_OFF = 0, SNK_TWO_FOUR_FP16 = 1, SNK_TWO_FOUR_BF16 = 2 } SNK_TwoFour;

/* SNK_PRECISION_HINT values. With FP16 or BF16 set on a sparse matrix W, a product of W with a full matrix X under a
 * PLUS_TIMES semiring on FP32 (W, X and C FP32) may round W's values and X's to that type, sum the products in FP32
 * and round each sum to that type (16-bit activations); C is FP32, holding those values. The cuda backend does so for
 * GrB_mxm's W X, X W' and W' X (W sparse, X with every entry present) where its SpMM kernels run them; any other
 * product, and every other backend, computes in FP32. The 2:4 hint, where it applies, comes first. Default SNK_PRECISION_FP32; GrB_get reads it back; GrB_Matrix_dup copies it. */
typedef enum SNK_ENUM_INT { SNK_PRECISION_FP32 = 0, SNK_PRECISION_FP16 = 1, SNK_PRECISION_BF16 = 2 } SNK_Precision;

/* SNK_PAGE_LOCKED. GrB_set(A, 1, SNK_PAGE_LOCKED) asks the current backend to page-lock A's host arrays as they are
 * now, so that a GPU backend's uploads of A run at the bus's full speed rather than through its staging buffers: for
 * an input that is made on the host and then read by GPU calls (the cuda backend locks arrays of 8 MB or more).
 * Locking takes time of its own (the operating system pins every page), so it pays for an upload that is on the
 * critical path, made ahead of it. The lock lasts while A's arrays stay where they are (a value overwritten in place
 * keeps it); it ends when a change rebuilds them (entries added or removed, a result written into A), when A is
 * freed, or with GrB_set(A, 0, SNK_PAGE_LOCKED); GrB_Matrix_dup does not copy it. GrB_get reads 1 while any array of
 * A is locked, else 0 (a backend without device memory, or arrays too small to gain, leave it 0). Values other than
 * 0 and 1 are GrB_INVALID_VALUE. */

/* GrB_STORAGE_ORIENTATION_HINT values. snack stores every matrix by rows: GrB_get gives GrB_ROWMAJOR, and
 * GrB_set accepts any of the four and ignores it (a hint, as the spec allows). */
typedef enum SNK_ENUM_INT { GrB_ROWMAJOR = 0, GrB_COLMAJOR = 1, GrB_BOTH = 2, GrB_UNKNOWN = 3 } GrB_Orientation;

/* GrB_*_TYPE_CODE values: the 11 builtin types; every user-defined type is GrB_UDT_CODE. */
typedef enum SNK_ENUM_INT {
  GrB_UDT_CODE = 0,
  GrB_BOOL_CODE = 1,
  GrB_INT8_CODE = 2,
  GrB_UINT8_CODE = 3,
  GrB_INT16_CODE = 4,
  GrB_UINT16_CODE = 5,
  GrB_INT32_CODE = 6,
  GrB_UINT32_CODE = 7,
  GrB_INT64_CODE = 8,
  GrB_UINT64_CODE = 9,
  GrB_FP32_CODE = 10,
  GrB_FP64_CODE = 11
} GrB_Type_Code;

/* GxB_print / GxB_fprint detail (SuiteSparse's values): SILENT checks the object and prints nothing,
 * SUMMARY one line, SHORT also the first 30 entries, COMPLETE all entries; the _VERBOSE forms print
 * floating-point values with all their digits. Below 0: SILENT; above 5: COMPLETE. */
typedef enum SNK_ENUM_INT {
  GxB_SILENT = 0,
  GxB_SUMMARY = 1,
  GxB_SHORT = 2,
  GxB_COMPLETE = 3,
  GxB_SHORT_VERBOSE = 4,
  GxB_COMPLETE_VERBOSE = 5
} GxB_Print_Level;
/* The size of a buffer that holds any type name GxB_*_type_name writes, with its terminator. */
#define GxB_MAX_NAME_LEN 128

/* ==== context ========================================================================================== */
GrB_Info GrB_init(GrB_Mode mode) SNK_SYMBOL(GrB_init);
GrB_Info GrB_finalize(void) SNK_SYMBOL(GrB_finalize);
GrB_Info GrB_getVersion(unsigned int *version, unsigned int *subversion) SNK_SYMBOL(GrB_getVersion);

/* ==== per-object wait, error, free (polymorphic GrB_wait / GrB_error / GrB_free below) ================= */
#define SNK_DECLARE_OBJECT_METHODS(Object)                                                              \
  GrB_Info GrB_##Object##_wait(GrB_##Object obj, GrB_WaitMode mode) SNK_SYMBOL(GrB_##Object##_wait);     \
  GrB_Info GrB_##Object##_error(const char **error, const GrB_##Object obj)                            \
      SNK_SYMBOL(GrB_##Object##_error);                                                                \
  GrB_Info GrB_##Object##_free(GrB_##Object *obj) SNK_SYMBOL(GrB_##Object##_free);
SNK_DECLARE_OBJECT_METHODS(Type)
SNK_DECLARE_OBJECT_METHODS(UnaryOp)
SNK_DECLARE_OBJECT_METHODS(BinaryOp)
SNK_DECLARE_OBJECT_METHODS(IndexUnaryOp)
SNK_DECLARE_OBJECT_METHODS(Monoid)
SNK_DECLARE_OBJECT_METHODS(Semiring)
SNK_DECLARE_OBJECT_METHODS(Scalar)
SNK_DECLARE_OBJECT_METHODS(Vector)
SNK_DECLARE_OBJECT_METHODS(Matrix)
SNK_DECLARE_OBJECT_METHODS(Descriptor)

/* ==== get and set of fields (spec 2.1; polymorphic GrB_get / GrB_set below) ============================= */
/* GrB_get(obj, value, field) reads a field (the GrB_Field list above says which object has which field and
 * of which kind) as: _INT32 an INT32 field; _String a String field, written with its terminator into a
 * buffer the caller sized (_SIZE first gives the bytes needed); _SIZE a SIZE field, or the buffer size of
 * a String field; _Scalar an INT32 or SIZE field into a GrB_Scalar (cast to its type); _VOID no standard
 * field (always GrB_INVALID_VALUE). GrB_set(obj, value, field) writes a writable field: _INT32 and
 * _Scalar (not empty: else GrB_EMPTY_OBJECT) an INT32 field, _String a String field, _VOID none.
 * GrB_NAME: builtin objects are named by their C names ("GrB_FP64", "GrB_PLUS_FP64", "GrB_DESC_RSC") and
 * cannot be renamed; the global context's is "snack"; user objects start as "". A matrix, vector, scalar
 * or user descriptor may be renamed at any time; a user type, operator, monoid or semiring once
 * (GrB_ALREADY_SET after), to a name (1 .. GxB_MAX_NAME_LEN - 1 characters) no other such object or
 * builtin object holds. Type strings: a builtin type's is its C type ("bool", "int8_t", ..., "double"), a
 * user type's its GrB_NAME. An operator input that does not exist (input 1 of a unary operator, input 0
 * of a positional index-unary operator) gives GrB_NO_VALUE. Errors: a NULL object or value
 * GrB_NULL_POINTER; an object (or value GrB_Scalar) not initialized GrB_UNINITIALIZED_OBJECT; a field the
 * object does not have, a value kind the field does not take, a read-only field or a value the field does
 * not accept GrB_INVALID_VALUE; a GrB_Scalar of a type the value cannot be cast to GrB_DOMAIN_MISMATCH. On
 * any error nothing changes, and the message is in GrB_error(obj) (SNK_last_error for GrB_GLOBAL). */
#define SNK_DECLARE_GET_SET(Object)                                                                      \
  GrB_Info GrB_##Object##_get_Scalar(GrB_##Object obj, GrB_Scalar value, GrB_Field field)               \
      SNK_SYMBOL(GrB_##Object##_get_Scalar);                                                            \
  GrB_Info GrB_##Object##_get_String(GrB_##Object obj, char *value, GrB_Field field)                    \
      SNK_SYMBOL(GrB_##Object##_get_String);                                                            \
  GrB_Info GrB_##Object##_get_INT32(GrB_##Object obj, int32_t *value, GrB_Field field)                  \
      SNK_SYMBOL(GrB_##Object##_get_INT32);                                                             \
  GrB_Info GrB_##Object##_get_SIZE(GrB_##Object obj, size_t *value, GrB_Field field)                    \
      SNK_SYMBOL(GrB_##Object##_get_SIZE);                                                              \
  GrB_Info GrB_##Object##_get_VOID(GrB_##Object obj, void *value, GrB_Field field)                      \
      SNK_SYMBOL(GrB_##Object##_get_VOID);                                                              \
  GrB_Info GrB_##Object##_set_Scalar(GrB_##Object obj, GrB_Scalar value, GrB_Field field)               \
      SNK_SYMBOL(GrB_##Object##_set_Scalar);                                                            \
  GrB_Info GrB_##Object##_set_String(GrB_##Object obj, const char *value, GrB_Field field)              \
      SNK_SYMBOL(GrB_##Object##_set_String);                                                            \
  GrB_Info GrB_##Object##_set_INT32(GrB_##Object obj, int32_t value, GrB_Field field)                   \
      SNK_SYMBOL(GrB_##Object##_set_INT32);                                                             \
  GrB_Info GrB_##Object##_set_VOID(GrB_##Object obj, void *value, GrB_Field field, size_t size)         \
      SNK_SYMBOL(GrB_##Object##_set_VOID);
SNK_DECLARE_GET_SET(Global)
SNK_DECLARE_GET_SET(Type)
SNK_DECLARE_GET_SET(UnaryOp)
SNK_DECLARE_GET_SET(BinaryOp)
SNK_DECLARE_GET_SET(IndexUnaryOp)
SNK_DECLARE_GET_SET(Monoid)
SNK_DECLARE_GET_SET(Semiring)
SNK_DECLARE_GET_SET(Scalar)
SNK_DECLARE_GET_SET(Vector)
SNK_DECLARE_GET_SET(Matrix)
SNK_DECLARE_GET_SET(Descriptor)

/* ==== algebra: types, operators, monoids, semirings ==================================================== */
GrB_Info GrB_Type_new(GrB_Type *type, size_t sizeof_ctype) SNK_SYMBOL(GrB_Type_new);
GrB_Info GrB_UnaryOp_new(GrB_UnaryOp *op, SNK_unary_function fn, GrB_Type d_out, GrB_Type d_in)
    SNK_SYMBOL(GrB_UnaryOp_new);
GrB_Info GrB_BinaryOp_new(GrB_BinaryOp *op, SNK_binary_function fn, GrB_Type d_out, GrB_Type d_in1,
                          GrB_Type d_in2) SNK_SYMBOL(GrB_BinaryOp_new);
GrB_Info GrB_IndexUnaryOp_new(GrB_IndexUnaryOp *op, SNK_index_unary_function fn, GrB_Type d_out,
                              GrB_Type d_in1, GrB_Type d_in2) SNK_SYMBOL(GrB_IndexUnaryOp_new);
#define SNK_DECLARE_MONOID_NEW(T, value, in, out) \
  GrB_Info GrB_Monoid_new_##T(GrB_Monoid *monoid, GrB_BinaryOp op, value identity) SNK_SYMBOL(GrB_Monoid_new_##T);
SNK_FOR_EACH_TYPE(SNK_DECLARE_MONOID_NEW)
GrB_Info GrB_Semiring_new(GrB_Semiring *semiring, GrB_Monoid add_monoid, GrB_BinaryOp multiply)
    SNK_SYMBOL(GrB_Semiring_new);

/* ==== GrB_Scalar ======================================================================================= */
GrB_Info GrB_Scalar_new(GrB_Scalar *s, GrB_Type type) SNK_SYMBOL(GrB_Scalar_new);
GrB_Info GrB_Scalar_dup(GrB_Scalar *s, const GrB_Scalar t) SNK_SYMBOL(GrB_Scalar_dup);
GrB_Info GrB_Scalar_clear(GrB_Scalar s) SNK_SYMBOL(GrB_Scalar_clear);
GrB_Info GrB_Scalar_nvals(GrB_Index *nvals, const GrB_Scalar s) SNK_SYMBOL(GrB_Scalar_nvals);
#define SNK_DECLARE_SCALAR_TYPED(T, value, in, out)                                                      \
  GrB_Info GrB_Scalar_setElement_##T(GrB_Scalar s, value x) SNK_SYMBOL(GrB_Scalar_setElement_##T);       \
  GrB_Info GrB_Scalar_extractElement_##T(out x, const GrB_Scalar s) SNK_SYMBOL(GrB_Scalar_extractElement_##T);
SNK_FOR_EACH_TYPE(SNK_DECLARE_SCALAR_TYPED)

/* ==== GrB_Vector ======================================================================================= */
GrB_Info GrB_Vector_new(GrB_Vector *v, GrB_Type type, GrB_Index n) SNK_SYMBOL(GrB_Vector_new);
GrB_Info GrB_Vector_dup(GrB_Vector *w, const GrB_Vector u) SNK_SYMBOL(GrB_Vector_dup);
GrB_Info GrB_Vector_clear(GrB_Vector v) SNK_SYMBOL(GrB_Vector_clear);
GrB_Info GrB_Vector_size(GrB_Index *n, const GrB_Vector v) SNK_SYMBOL(GrB_Vector_size);
GrB_Info GrB_Vector_nvals(GrB_Index *nvals, const GrB_Vector v) SNK_SYMBOL(GrB_Vector_nvals);
GrB_Info GrB_Vector_resize(GrB_Vector w, GrB_Index n) SNK_SYMBOL(GrB_Vector_resize);
GrB_Info GrB_Vector_removeElement(GrB_Vector v, GrB_Index i) SNK_SYMBOL(GrB_Vector_removeElement);
GrB_Info GrB_Vector_setElement_Scalar(GrB_Vector w, GrB_Scalar x, GrB_Index i)
    SNK_SYMBOL(GrB_Vector_setElement_Scalar);
GrB_Info GrB_Vector_extractElement_Scalar(GrB_Scalar x, const GrB_Vector v, GrB_Index i)
    SNK_SYMBOL(GrB_Vector_extractElement_Scalar);
#define SNK_DECLARE_VECTOR_TYPED(T, value, in, out)                                                      \
  GrB_Info GrB_Vector_build_##T(GrB_Vector w, const GrB_Index *I, in X, GrB_Index nvals,                \
                                const GrB_BinaryOp dup) SNK_SYMBOL(GrB_Vector_build_##T);              \
  GrB_Info GrB_Vector_setElement_##T(GrB_Vector w, value x, GrB_Index i)                               \
      SNK_SYMBOL(GrB_Vector_setElement_##T);                                                           \
  GrB_Info GrB_Vector_extractElement_##T(out x, const GrB_Vector v, GrB_Index i)                       \
      SNK_SYMBOL(GrB_Vector_extractElement_##T);                                                       \
  GrB_Info GrB_Vector_extractTuples_##T(GrB_Index *I, out X, GrB_Index *nvals, const GrB_Vector v)     \
      SNK_SYMBOL(GrB_Vector_extractTuples_##T);
SNK_FOR_EACH_TYPE(SNK_DECLARE_VECTOR_TYPED)

/* ==== GrB_Matrix ======================================================================================= */
GrB_Info GrB_Matrix_new(GrB_Matrix *A, GrB_Type type, GrB_Index nrows, GrB_Index ncols)
    SNK_SYMBOL(GrB_Matrix_new);
GrB_Info GrB_Matrix_dup(GrB_Matrix *C, const GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_dup);
GrB_Info GrB_Matrix_clear(GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_clear);
GrB_Info GrB_Matrix_nrows(GrB_Index *nrows, const GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_nrows);
GrB_Info GrB_Matrix_ncols(GrB_Index *ncols, const GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_ncols);
GrB_Info GrB_Matrix_nvals(GrB_Index *nvals, const GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_nvals);
GrB_Info GrB_Matrix_resize(GrB_Matrix C, GrB_Index nrows, GrB_Index ncols) SNK_SYMBOL(GrB_Matrix_resize);
GrB_Info GrB_Matrix_removeElement(GrB_Matrix C, GrB_Index i, GrB_Index j) SNK_SYMBOL(GrB_Matrix_removeElement);
GrB_Info GrB_Matrix_setElement_Scalar(GrB_Matrix C, GrB_Scalar x, GrB_Index i, GrB_Index j)
    SNK_SYMBOL(GrB_Matrix_setElement_Scalar);
GrB_Info GrB_Matrix_extractElement_Scalar(GrB_Scalar x, const GrB_Matrix A, GrB_Index i, GrB_Index j)
    SNK_SYMBOL(GrB_Matrix_extractElement_Scalar);
/* C = a square matrix with v on diagonal k (k > 0 above the main diagonal). */
GrB_Info GrB_Matrix_diag(GrB_Matrix *C, const GrB_Vector v, int64_t k) SNK_SYMBOL(GrB_Matrix_diag);
#define SNK_DECLARE_MATRIX_TYPED(T, value, in, out)                                                      \
  GrB_Info GrB_Matrix_build_##T(GrB_Matrix C, const GrB_Index *I, const GrB_Index *J, in X,             \
                                GrB_Index nvals, const GrB_BinaryOp dup) SNK_SYMBOL(GrB_Matrix_build_##T); \
  GrB_Info GrB_Matrix_setElement_##T(GrB_Matrix C, value x, GrB_Index i, GrB_Index j)                  \
      SNK_SYMBOL(GrB_Matrix_setElement_##T);                                                           \
  GrB_Info GrB_Matrix_extractElement_##T(out x, const GrB_Matrix A, GrB_Index i, GrB_Index j)          \
      SNK_SYMBOL(GrB_Matrix_extractElement_##T);                                                       \
  GrB_Info GrB_Matrix_extractTuples_##T(GrB_Index *I, GrB_Index *J, out X, GrB_Index *nvals,           \
                                        const GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_extractTuples_##T);  \
  GrB_Info GrB_Matrix_import_##T(GrB_Matrix *A, GrB_Type type, GrB_Index nrows, GrB_Index ncols,       \
                                 const GrB_Index *indptr, const GrB_Index *indices, in values,         \
                                 GrB_Index indptr_len, GrB_Index indices_len, GrB_Index values_len,    \
                                 GrB_Format format) SNK_SYMBOL(GrB_Matrix_import_##T);                 \
  GrB_Info GrB_Matrix_export_##T(GrB_Index *indptr, GrB_Index *indices, out values,                    \
                                 GrB_Index *indptr_len, GrB_Index *indices_len, GrB_Index *values_len, \
                                 GrB_Format format, GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_export_##T);
SNK_FOR_EACH_TYPE(SNK_DECLARE_MATRIX_TYPED)
GrB_Info GrB_Matrix_exportSize(GrB_Index *indptr_len, GrB_Index *indices_len, GrB_Index *values_len,
                               GrB_Format format, GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_exportSize);
GrB_Info GrB_Matrix_exportHint(GrB_Format *format, GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_exportHint);
/* Serialization: snack's own versioned, checksummed format. A corrupt or truncated blob gives
 * GrB_INVALID_OBJECT. serializeSize gives the exact size serialize needs. */
GrB_Info GrB_Matrix_serializeSize(GrB_Index *blob_size, GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_serializeSize);
GrB_Info GrB_Matrix_serialize(void *blob, GrB_Index *blob_size, GrB_Matrix A) SNK_SYMBOL(GrB_Matrix_serialize);
GrB_Info GrB_Matrix_deserialize(GrB_Matrix *A, GrB_Type type, const void *blob, GrB_Index blob_size)
    SNK_SYMBOL(GrB_Matrix_deserialize);

/* ==== GrB_Descriptor =================================================================================== */
GrB_Info GrB_Descriptor_new(GrB_Descriptor *desc) SNK_SYMBOL(GrB_Descriptor_new);
GrB_Info GrB_Descriptor_set(GrB_Descriptor desc, GrB_Desc_Field field, GrB_Desc_Value value)
    SNK_SYMBOL(GrB_Descriptor_set);

/* ==== operations ======================================================================================= */
GrB_Info GrB_mxm(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_Semiring op,
                 const GrB_Matrix A, const GrB_Matrix B, const GrB_Descriptor desc) SNK_SYMBOL(GrB_mxm);
GrB_Info GrB_vxm(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Semiring op,
                 const GrB_Vector u, const GrB_Matrix A, const GrB_Descriptor desc) SNK_SYMBOL(GrB_vxm);
GrB_Info GrB_mxv(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Semiring op,
                 const GrB_Matrix A, const GrB_Vector u, const GrB_Descriptor desc) SNK_SYMBOL(GrB_mxv);

#define SNK_DECLARE_EWISE(Kind, Op)                                                                      \
  GrB_Info GrB_Vector_##Kind##_##Op(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,       \
                                    const GrB_##Op op, const GrB_Vector u, const GrB_Vector v,           \
                                    const GrB_Descriptor desc) SNK_SYMBOL(GrB_Vector_##Kind##_##Op);     \
  GrB_Info GrB_Matrix_##Kind##_##Op(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,       \
                                    const GrB_##Op op, const GrB_Matrix A, const GrB_Matrix B,           \
                                    const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_##Kind##_##Op);
SNK_DECLARE_EWISE(eWiseAdd, Semiring)
SNK_DECLARE_EWISE(eWiseAdd, Monoid)
SNK_DECLARE_EWISE(eWiseAdd, BinaryOp)
SNK_DECLARE_EWISE(eWiseMult, Semiring)
SNK_DECLARE_EWISE(eWiseMult, Monoid)
SNK_DECLARE_EWISE(eWiseMult, BinaryOp)

GrB_Info GrB_Vector_extract(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Vector u,
                            const GrB_Index *I, GrB_Index ni, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Vector_extract);
GrB_Info GrB_Matrix_extract(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_Matrix A,
                            const GrB_Index *I, GrB_Index ni, const GrB_Index *J, GrB_Index nj,
                            const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_extract);
GrB_Info GrB_Col_extract(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Matrix A,
                         const GrB_Index *I, GrB_Index ni, GrB_Index j, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Col_extract);

GrB_Info GrB_Vector_assign(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Vector u,
                           const GrB_Index *I, GrB_Index ni, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Vector_assign);
GrB_Info GrB_Matrix_assign(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_Matrix A,
                           const GrB_Index *I, GrB_Index ni, const GrB_Index *J, GrB_Index nj,
                           const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_assign);
GrB_Info GrB_Col_assign(GrB_Matrix C, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Vector u,
                        const GrB_Index *I, GrB_Index ni, GrB_Index j, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Col_assign);
GrB_Info GrB_Row_assign(GrB_Matrix C, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Vector u,
                        GrB_Index i, const GrB_Index *J, GrB_Index nj, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Row_assign);
GrB_Info GrB_Vector_assign_Scalar(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, GrB_Scalar x,
                                  const GrB_Index *I, GrB_Index ni, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Vector_assign_Scalar);
GrB_Info GrB_Matrix_assign_Scalar(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, GrB_Scalar x,
                                  const GrB_Index *I, GrB_Index ni, const GrB_Index *J, GrB_Index nj,
                                  const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_assign_Scalar);

GrB_Info GrB_Vector_apply(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_UnaryOp op,
                          const GrB_Vector u, const GrB_Descriptor desc) SNK_SYMBOL(GrB_Vector_apply);
GrB_Info GrB_Matrix_apply(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_UnaryOp op,
                          const GrB_Matrix A, const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_apply);
#define SNK_DECLARE_SCALAR_ARG_OPS(T, Scalar_t)                                                          \
  GrB_Info GrB_Vector_assign_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,          \
                                 Scalar_t x, const GrB_Index *I, GrB_Index ni, const GrB_Descriptor desc) \
      SNK_SYMBOL(GrB_Vector_assign_##T);                                                                 \
  GrB_Info GrB_Matrix_assign_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,          \
                                 Scalar_t x, const GrB_Index *I, GrB_Index ni, const GrB_Index *J,       \
                                 GrB_Index nj, const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_assign_##T); \
  GrB_Info GrB_Vector_apply_BinaryOp1st_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, \
                                            const GrB_BinaryOp op, Scalar_t x, const GrB_Vector u,       \
                                            const GrB_Descriptor desc)                                   \
      SNK_SYMBOL(GrB_Vector_apply_BinaryOp1st_##T);                                                      \
  GrB_Info GrB_Vector_apply_BinaryOp2nd_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, \
                                            const GrB_BinaryOp op, const GrB_Vector u, Scalar_t y,       \
                                            const GrB_Descriptor desc)                                   \
      SNK_SYMBOL(GrB_Vector_apply_BinaryOp2nd_##T);                                                      \
  GrB_Info GrB_Matrix_apply_BinaryOp1st_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, \
                                            const GrB_BinaryOp op, Scalar_t x, const GrB_Matrix A,       \
                                            const GrB_Descriptor desc)                                   \
      SNK_SYMBOL(GrB_Matrix_apply_BinaryOp1st_##T);                                                      \
  GrB_Info GrB_Matrix_apply_BinaryOp2nd_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, \
                                            const GrB_BinaryOp op, const GrB_Matrix A, Scalar_t y,       \
                                            const GrB_Descriptor desc)                                   \
      SNK_SYMBOL(GrB_Matrix_apply_BinaryOp2nd_##T);                                                      \
  GrB_Info GrB_Vector_apply_IndexOp_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,    \
                                        const GrB_IndexUnaryOp op, const GrB_Vector u, Scalar_t y,        \
                                        const GrB_Descriptor desc) SNK_SYMBOL(GrB_Vector_apply_IndexOp_##T); \
  GrB_Info GrB_Matrix_apply_IndexOp_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,    \
                                        const GrB_IndexUnaryOp op, const GrB_Matrix A, Scalar_t y,        \
                                        const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_apply_IndexOp_##T); \
  GrB_Info GrB_Vector_select_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,           \
                                 const GrB_IndexUnaryOp op, const GrB_Vector u, Scalar_t y,               \
                                 const GrB_Descriptor desc) SNK_SYMBOL(GrB_Vector_select_##T);            \
  GrB_Info GrB_Matrix_select_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,           \
                                 const GrB_IndexUnaryOp op, const GrB_Matrix A, Scalar_t y,               \
                                 const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_select_##T);
#define SNK_DECLARE_SCALAR_ARG_OPS_T(T, value, in, out) SNK_DECLARE_SCALAR_ARG_OPS(T, value)
SNK_FOR_EACH_TYPE(SNK_DECLARE_SCALAR_ARG_OPS_T)
SNK_DECLARE_SCALAR_ARG_OPS(Scalar, const GrB_Scalar)

GrB_Info GrB_Matrix_reduce_Monoid(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,
                                  const GrB_Monoid monoid, const GrB_Matrix A, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Matrix_reduce_Monoid);
GrB_Info GrB_Matrix_reduce_BinaryOp(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,
                                    const GrB_BinaryOp op, const GrB_Matrix A, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Matrix_reduce_BinaryOp);
#define SNK_DECLARE_REDUCE_TYPED(T, value, in, out)                                                      \
  GrB_Info GrB_Vector_reduce_##T(out c, const GrB_BinaryOp accum, const GrB_Monoid monoid,               \
                                 const GrB_Vector u, const GrB_Descriptor desc) SNK_SYMBOL(GrB_Vector_reduce_##T); \
  GrB_Info GrB_Matrix_reduce_##T(out c, const GrB_BinaryOp accum, const GrB_Monoid monoid,               \
                                 const GrB_Matrix A, const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_reduce_##T);
SNK_FOR_EACH_TYPE(SNK_DECLARE_REDUCE_TYPED)
GrB_Info GrB_Vector_reduce_Monoid_Scalar(GrB_Scalar s, const GrB_BinaryOp accum, const GrB_Monoid monoid,
                                         const GrB_Vector u, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Vector_reduce_Monoid_Scalar);
GrB_Info GrB_Vector_reduce_BinaryOp_Scalar(GrB_Scalar s, const GrB_BinaryOp accum, const GrB_BinaryOp op,
                                           const GrB_Vector u, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Vector_reduce_BinaryOp_Scalar);
GrB_Info GrB_Matrix_reduce_Monoid_Scalar(GrB_Scalar s, const GrB_BinaryOp accum, const GrB_Monoid monoid,
                                         const GrB_Matrix A, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Matrix_reduce_Monoid_Scalar);
GrB_Info GrB_Matrix_reduce_BinaryOp_Scalar(GrB_Scalar s, const GrB_BinaryOp accum, const GrB_BinaryOp op,
                                           const GrB_Matrix A, const GrB_Descriptor desc)
    SNK_SYMBOL(GrB_Matrix_reduce_BinaryOp_Scalar);

GrB_Info GrB_transpose(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_Matrix A,
                       const GrB_Descriptor desc) SNK_SYMBOL(GrB_transpose);
GrB_Info GrB_Matrix_kronecker_BinaryOp(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,
                                       const GrB_BinaryOp op, const GrB_Matrix A, const GrB_Matrix B,
                                       const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_kronecker_BinaryOp);
GrB_Info GrB_Matrix_kronecker_Monoid(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,
                                     const GrB_Monoid op, const GrB_Matrix A, const GrB_Matrix B,
                                     const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_kronecker_Monoid);
GrB_Info GrB_Matrix_kronecker_Semiring(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,
                                       const GrB_Semiring op, const GrB_Matrix A, const GrB_Matrix B,
                                       const GrB_Descriptor desc) SNK_SYMBOL(GrB_Matrix_kronecker_Semiring);

/* ==== predefined objects =============================================================================== */
#define SNK_PREDEFINED(Kind, name) extern Kind name SNK_SYMBOL(name);

/* Types. */
#define SNK_DECLARE_BUILTIN_TYPE(T, value, in, out) SNK_PREDEFINED(GrB_Type, GrB_##T)
SNK_FOR_EACH_BUILTIN_TYPE(SNK_DECLARE_BUILTIN_TYPE)

/* Unary operators: IDENTITY, AINV, MINV, ABS on all 11 types; BNOT on the 8 integer types; LNOT on BOOL. */
#define SNK_DECLARE_UNARY_ALL(T, value, in, out)   \
  SNK_PREDEFINED(GrB_UnaryOp, GrB_IDENTITY_##T)    \
  SNK_PREDEFINED(GrB_UnaryOp, GrB_AINV_##T)        \
  SNK_PREDEFINED(GrB_UnaryOp, GrB_MINV_##T)        \
  SNK_PREDEFINED(GrB_UnaryOp, GrB_ABS_##T)
SNK_FOR_EACH_BUILTIN_TYPE(SNK_DECLARE_UNARY_ALL)
SNK_PREDEFINED(GrB_UnaryOp, GrB_LNOT)
/* The library's extensions: SQRT, EXP, LOG and TANH on FP32 and FP64 (SuiteSparse's GxB_SQRT_FP32 ... compute the
   same functions of C's math library). */
#define SNK_DECLARE_UNARY_FLOAT(T)                                                                       \
  SNK_PREDEFINED(GrB_UnaryOp, SNK_SQRT_##T) SNK_PREDEFINED(GrB_UnaryOp, SNK_EXP_##T)                     \
  SNK_PREDEFINED(GrB_UnaryOp, SNK_LOG_##T) SNK_PREDEFINED(GrB_UnaryOp, SNK_TANH_##T)
SNK_DECLARE_UNARY_FLOAT(FP32)
SNK_DECLARE_UNARY_FLOAT(FP64)

/* The 8 integer types (bitwise operators and the integer-only families). */
#define SNK_FOR_EACH_INTEGER_TYPE(X) X(INT8) X(UINT8) X(INT16) X(UINT16) X(INT32) X(UINT32) X(INT64) X(UINT64)
/* The 10 numeric types (monoids and semirings other than the boolean ones). */
#define SNK_FOR_EACH_NUMERIC_TYPE(X) SNK_FOR_EACH_INTEGER_TYPE(X) X(FP32) X(FP64)

#define SNK_DECLARE_UNARY_INT(T) SNK_PREDEFINED(GrB_UnaryOp, GrB_BNOT_##T)
SNK_FOR_EACH_INTEGER_TYPE(SNK_DECLARE_UNARY_INT)

/* Binary operators on all 11 types. */
#define SNK_DECLARE_BINARY_ALL(T, value, in, out)                                                        \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_FIRST_##T) SNK_PREDEFINED(GrB_BinaryOp, GrB_SECOND_##T)               \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_ONEB_##T) SNK_PREDEFINED(GrB_BinaryOp, GrB_MIN_##T)                   \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_MAX_##T) SNK_PREDEFINED(GrB_BinaryOp, GrB_PLUS_##T)                   \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_MINUS_##T) SNK_PREDEFINED(GrB_BinaryOp, GrB_TIMES_##T)                \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_DIV_##T) SNK_PREDEFINED(GrB_BinaryOp, GrB_EQ_##T)                     \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_NE_##T) SNK_PREDEFINED(GrB_BinaryOp, GrB_GT_##T)                      \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_LT_##T) SNK_PREDEFINED(GrB_BinaryOp, GrB_GE_##T)                      \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_LE_##T)
SNK_FOR_EACH_BUILTIN_TYPE(SNK_DECLARE_BINARY_ALL)
/* Logical operators (BOOL). */
SNK_PREDEFINED(GrB_BinaryOp, GrB_LOR)
SNK_PREDEFINED(GrB_BinaryOp, GrB_LAND)
SNK_PREDEFINED(GrB_BinaryOp, GrB_LXOR)
SNK_PREDEFINED(GrB_BinaryOp, GrB_LXNOR)
/* Bitwise operators (integer types). */
#define SNK_DECLARE_BINARY_INT(T)                                                                        \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_BOR_##T) SNK_PREDEFINED(GrB_BinaryOp, GrB_BAND_##T)                   \
  SNK_PREDEFINED(GrB_BinaryOp, GrB_BXOR_##T) SNK_PREDEFINED(GrB_BinaryOp, GrB_BXNOR_##T)
SNK_FOR_EACH_INTEGER_TYPE(SNK_DECLARE_BINARY_INT)

/* Index-unary operators. */
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_ROWINDEX_INT32)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_ROWINDEX_INT64)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_COLINDEX_INT32)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_COLINDEX_INT64)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_DIAGINDEX_INT32)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_DIAGINDEX_INT64)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_TRIL)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_TRIU)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_DIAG)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_OFFDIAG)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_COLLE)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_COLGT)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_ROWLE)
SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_ROWGT)
#define SNK_DECLARE_INDEXOP_VALUE(T, value, in, out)                                                     \
  SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_VALUEEQ_##T) SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_VALUENE_##T)    \
  SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_VALUELT_##T) SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_VALUELE_##T)    \
  SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_VALUEGT_##T) SNK_PREDEFINED(GrB_IndexUnaryOp, GrB_VALUEGE_##T)
SNK_FOR_EACH_BUILTIN_TYPE(SNK_DECLARE_INDEXOP_VALUE)

/* Monoids. */
#define SNK_DECLARE_MONOID_NUMERIC(T)                                                                    \
  SNK_PREDEFINED(GrB_Monoid, GrB_PLUS_MONOID_##T) SNK_PREDEFINED(GrB_Monoid, GrB_TIMES_MONOID_##T)       \
  SNK_PREDEFINED(GrB_Monoid, GrB_MIN_MONOID_##T) SNK_PREDEFINED(GrB_Monoid, GrB_MAX_MONOID_##T)
SNK_FOR_EACH_NUMERIC_TYPE(SNK_DECLARE_MONOID_NUMERIC)
SNK_PREDEFINED(GrB_Monoid, GrB_LOR_MONOID_BOOL)
SNK_PREDEFINED(GrB_Monoid, GrB_LAND_MONOID_BOOL)
SNK_PREDEFINED(GrB_Monoid, GrB_LXOR_MONOID_BOOL)
SNK_PREDEFINED(GrB_Monoid, GrB_LXNOR_MONOID_BOOL)

/* Semirings. */
#define SNK_DECLARE_SEMIRING_NUMERIC(T)                                                                  \
  SNK_PREDEFINED(GrB_Semiring, GrB_PLUS_TIMES_SEMIRING_##T)                                              \
  SNK_PREDEFINED(GrB_Semiring, GrB_PLUS_MIN_SEMIRING_##T)                                                \
  SNK_PREDEFINED(GrB_Semiring, GrB_MIN_PLUS_SEMIRING_##T)                                                \
  SNK_PREDEFINED(GrB_Semiring, GrB_MIN_TIMES_SEMIRING_##T)                                               \
  SNK_PREDEFINED(GrB_Semiring, GrB_MIN_FIRST_SEMIRING_##T)                                               \
  SNK_PREDEFINED(GrB_Semiring, GrB_MIN_SECOND_SEMIRING_##T)                                              \
  SNK_PREDEFINED(GrB_Semiring, GrB_MIN_MAX_SEMIRING_##T)                                                 \
  SNK_PREDEFINED(GrB_Semiring, GrB_MAX_PLUS_SEMIRING_##T)                                                \
  SNK_PREDEFINED(GrB_Semiring, GrB_MAX_TIMES_SEMIRING_##T)                                               \
  SNK_PREDEFINED(GrB_Semiring, GrB_MAX_FIRST_SEMIRING_##T)                                               \
  SNK_PREDEFINED(GrB_Semiring, GrB_MAX_SECOND_SEMIRING_##T)                                              \
  SNK_PREDEFINED(GrB_Semiring, GrB_MAX_MIN_SEMIRING_##T)
SNK_FOR_EACH_NUMERIC_TYPE(SNK_DECLARE_SEMIRING_NUMERIC)
SNK_PREDEFINED(GrB_Semiring, GrB_LOR_LAND_SEMIRING_BOOL)
SNK_PREDEFINED(GrB_Semiring, GrB_LAND_LOR_SEMIRING_BOOL)
SNK_PREDEFINED(GrB_Semiring, GrB_LXOR_LAND_SEMIRING_BOOL)
SNK_PREDEFINED(GrB_Semiring, GrB_LXNOR_LOR_SEMIRING_BOOL)

/* Descriptors: R = replace, S = structural mask, C = complemented mask, T0/T1 = transpose input 0/1. */
#define SNK_DECLARE_DESC_T(prefix)                                                                       \
  SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_##prefix##T1) SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_##prefix##T0) \
  SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_##prefix##T0T1)
SNK_DECLARE_DESC_T()
SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_C)  SNK_DECLARE_DESC_T(C)
SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_S)  SNK_DECLARE_DESC_T(S)
SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_SC) SNK_DECLARE_DESC_T(SC)
SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_R)  SNK_DECLARE_DESC_T(R)
SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_RC) SNK_DECLARE_DESC_T(RC)
SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_RS) SNK_DECLARE_DESC_T(RS)
SNK_PREDEFINED(GrB_Descriptor, GrB_DESC_RSC) SNK_DECLARE_DESC_T(RSC)

/* ==== GxB_ functions (SuiteSparse:GraphBLAS's names and signatures) ===================================== */
/* The type string (as GrB_EL_TYPE_STRING: "double", ..., a user type's GrB_NAME) of a type or of a
 * container's type, into type_name, which must hold GxB_MAX_NAME_LEN bytes. */
GrB_Info GxB_Type_name(char *type_name, const GrB_Type type) SNK_SYMBOL(GxB_Type_name);
GrB_Info GxB_Matrix_type_name(char *type_name, const GrB_Matrix A) SNK_SYMBOL(GxB_Matrix_type_name);
GrB_Info GxB_Vector_type_name(char *type_name, const GrB_Vector v) SNK_SYMBOL(GxB_Vector_type_name);
GrB_Info GxB_Scalar_type_name(char *type_name, const GrB_Scalar s) SNK_SYMBOL(GxB_Scalar_type_name);
/* The GrB_Type handle of a container's type (GrB_FP64, ..., or the user's GrB_Type; GrB_INVALID_OBJECT
 * when that GrB_Type has been freed). */
GrB_Info GxB_Matrix_type(GrB_Type *type, const GrB_Matrix A) SNK_SYMBOL(GxB_Matrix_type);
GrB_Info GxB_Vector_type(GrB_Type *type, const GrB_Vector v) SNK_SYMBOL(GxB_Vector_type);
GrB_Info GxB_Scalar_type(GrB_Type *type, const GrB_Scalar s) SNK_SYMBOL(GxB_Scalar_type);
/* A readable description of an object on f (stdout when f is NULL), headed by `name` (NULL: none), at the
 * detail of `pr` (GxB_Print_Level): kind, name, type, dimensions, entries. The polymorphic GxB_fprint(obj,
 * pr, f) and GxB_print(obj, pr) (on stdout) pass the object's expression as the name. Checks the object as
 * every call does (GrB_NULL_POINTER, GrB_UNINITIALIZED_OBJECT); GrB_INVALID_VALUE if writing to f fails. */
#define SNK_DECLARE_FPRINT(Object)                                                                       \
  GrB_Info GxB_##Object##_fprint(GrB_##Object object, const char *name, GxB_Print_Level pr, FILE *f)    \
      SNK_SYMBOL(GxB_##Object##_fprint);
SNK_DECLARE_FPRINT(Type)
SNK_DECLARE_FPRINT(UnaryOp)
SNK_DECLARE_FPRINT(BinaryOp)
SNK_DECLARE_FPRINT(IndexUnaryOp)
SNK_DECLARE_FPRINT(Monoid)
SNK_DECLARE_FPRINT(Semiring)
SNK_DECLARE_FPRINT(Scalar)
SNK_DECLARE_FPRINT(Vector)
SNK_DECLARE_FPRINT(Matrix)
SNK_DECLARE_FPRINT(Descriptor)

/* Options: SuiteSparse's GxB_Global_Option_get / _set, GxB_Matrix_Option_get / _set, GxB_Vector_Option_get /
 * _set, GxB_Desc_get / _set (with their typed forms), GxB_Descriptor_get, and the polymorphic GxB_get /
 * GxB_set below. The names and numbers are SuiteSparse:GraphBLAS 7.4's, all of them, so that programs
 * written for it compile; snack answers the fields it can answer truthfully for a storage that is always by
 * rows, in sparse or hypersparse CSR form (the value each variadic form reads or writes is in parentheses):
 *   global, read only: GxB_MODE (GrB_Mode *: GrB_init's mode), GxB_LIBRARY_NAME ("snack"),
 *     GxB_LIBRARY_VERSION (int[3]: SNK_VERSION_*), GxB_LIBRARY_DATE (the build date, as "Dec 2, 2025"),
 *     GxB_LIBRARY_ABOUT, GxB_LIBRARY_COMPILE_DATE and _TIME (__DATE__ and __TIME__ of the build),
 *     GxB_API_VERSION (int[3]: 2, 1, 0), GxB_API_DATE ("Dec 22, 2023"), GxB_API_ABOUT, GxB_API_URL,
 *     GxB_COMPILER_NAME and GxB_COMPILER_VERSION (int[3]) of the compiler that built snack; strings as char **.
 *   global: GxB_FORMAT (GxB_Format_Value *: GxB_BY_ROW; set: GxB_BY_ROW, while GxB_BY_COL is
 *     GrB_INVALID_VALUE, as snack stores matrices by rows only) and GxB_BURBLE (bool *: false; set: false,
 *     while true is GrB_INVALID_VALUE, as snack has no diagnostic output).
 *   matrix and vector: GxB_FORMAT (as global), GxB_SPARSITY_STATUS (int *, read only: GxB_HYPERSPARSE or
 *     GxB_SPARSE, the form held now), GxB_IS_HYPER (bool *, read only), GxB_SPARSITY_CONTROL (int *: the
 *     forms snack chooses from by its size rule, GxB_HYPERSPARSE + GxB_SPARSE for a matrix, GxB_SPARSE for
 *     a vector, whose one row is never hypersparse; set: a control that allows those forms is accepted and
 *     changes nothing, any other is GrB_INVALID_VALUE; only its 4 low bits count, and 0 means
 *     GxB_AUTO_SPARSITY, as in SuiteSparse).
 *   descriptor: GrB_OUTP, GrB_MASK, GrB_INP0, GrB_INP1 (GrB_Desc_Value *), set as GrB_Descriptor_set sets
 *     them; get on a NULL descriptor reads the defaults.
 * Every other field (GxB_HYPER_SWITCH, GxB_BITMAP_SWITCH, GxB_NTHREADS, GxB_CHUNK, GxB_PRINTF, ..., the
 * descriptor's GxB_ fields), a field of another object, setting a read-only field and a value the field
 * does not accept are GrB_INVALID_VALUE, with a message that names the field. The typed forms take the
 * kind their name says: _INT32 an int32_t field (int32_t[3] for the versions, 0 or 1 for the bool ones),
 * _CHAR a string field; a kind the field does not hold (every _FP64, _INT64, _FUNCTION and _ARRAY use, as
 * no field snack answers holds one) is GrB_INVALID_VALUE. A NULL value pointer is GrB_NULL_POINTER, and
 * objects are checked as by every call. On any error nothing is written or changed, and the message is in
 * GrB_error(obj) (SNK_last_error for the global options). */
#define GxB_HYPER 0     /* historical spelling of GxB_HYPER_SWITCH */
#define GxB_NTHREADS 5
#define GxB_CHUNK 7
#define GxB_GPU_CONTROL 21
#define GxB_GPU_CHUNK 22
typedef enum SNK_ENUM_INT {
  GxB_HYPER_SWITCH = 0,
  GxB_BITMAP_SWITCH = 34,
  GxB_FORMAT = 1,
  GxB_MODE = 2,
  GxB_LIBRARY_NAME = 8,
  GxB_LIBRARY_VERSION = 9,
  GxB_LIBRARY_DATE = 10,
  GxB_LIBRARY_ABOUT = 11,
  GxB_LIBRARY_URL = 12,
  GxB_LIBRARY_LICENSE = 13,
  GxB_LIBRARY_COMPILE_DATE = 14,
  GxB_LIBRARY_COMPILE_TIME = 15,
  GxB_API_VERSION = 16,
  GxB_API_DATE = 17,
  GxB_API_ABOUT = 18,
  GxB_API_URL = 19,
  GxB_COMPILER_VERSION = 23,
  GxB_COMPILER_NAME = 24,
  GxB_LIBRARY_OPENMP = 25,
  GxB_GLOBAL_NTHREADS = GxB_NTHREADS,
  GxB_GLOBAL_CHUNK = GxB_CHUNK,
  GxB_BURBLE = 99,
  GxB_PRINTF = 101,
  GxB_FLUSH = 102,
  GxB_MEMORY_POOL = 103,
  GxB_PRINT_1BASED = 104,
  GxB_SPARSITY_STATUS = 33,
  GxB_IS_HYPER = 6,
  GxB_SPARSITY_CONTROL = 32,
  GxB_GLOBAL_GPU_CONTROL = GxB_GPU_CONTROL,
  GxB_GLOBAL_GPU_CHUNK = GxB_GPU_CHUNK
} GxB_Option_Field;
typedef enum SNK_ENUM_INT { GxB_BY_ROW = 0, GxB_BY_COL = 1, GxB_NO_FORMAT = -1 } GxB_Format_Value;
/* GxB_SPARSITY_CONTROL / GxB_SPARSITY_STATUS values (a control is a sum of them). */
#define GxB_HYPERSPARSE 1
#define GxB_SPARSE 2
#define GxB_BITMAP 4
#define GxB_FULL 8
#define GxB_ANY_SPARSITY (GxB_HYPERSPARSE + GxB_SPARSE + GxB_BITMAP + GxB_FULL)
#define GxB_AUTO_SPARSITY GxB_ANY_SPARSITY
#define GxB_NBITMAP_SWITCH 8
/* SuiteSparse's constants: the default format (GxB_BY_ROW, the only one), and the hyper switch values,
 * which snack's GxB_HYPER_SWITCH does not take (SuiteSparse's values: 0.0625, 1, -1). */
extern const GxB_Format_Value GxB_FORMAT_DEFAULT SNK_SYMBOL(GxB_FORMAT_DEFAULT);
extern const double GxB_HYPER_DEFAULT SNK_SYMBOL(GxB_HYPER_DEFAULT);
extern const double GxB_ALWAYS_HYPER SNK_SYMBOL(GxB_ALWAYS_HYPER);
extern const double GxB_NEVER_HYPER SNK_SYMBOL(GxB_NEVER_HYPER);
/* SuiteSparse's descriptor fields and values beyond the spec's (GrB_Desc_Field, GrB_Desc_Value): none is
 * supported; GxB_DEFAULT is GrB_DEFAULT. */
#define GxB_DEFAULT GrB_DEFAULT
#define GxB_DESCRIPTOR_NTHREADS ((GrB_Desc_Field)GxB_NTHREADS)
#define GxB_DESCRIPTOR_CHUNK ((GrB_Desc_Field)GxB_CHUNK)
#define GxB_DESCRIPTOR_GPU_CONTROL ((GrB_Desc_Field)GxB_GPU_CONTROL)
#define GxB_DESCRIPTOR_GPU_CHUNK ((GrB_Desc_Field)GxB_GPU_CHUNK)
#define GxB_AxB_METHOD ((GrB_Desc_Field)1000)
#define GxB_SORT ((GrB_Desc_Field)35)
#define GxB_COMPRESSION ((GrB_Desc_Field)36)
#define GxB_IMPORT ((GrB_Desc_Field)37)
#define GxB_GPU_ALWAYS ((GrB_Desc_Value)2001)
#define GxB_GPU_NEVER ((GrB_Desc_Value)2002)
#define GxB_AxB_GUSTAVSON ((GrB_Desc_Value)1001)
#define GxB_AxB_DOT ((GrB_Desc_Value)1003)
#define GxB_AxB_HASH ((GrB_Desc_Value)1004)
#define GxB_AxB_SAXPY ((GrB_Desc_Value)1005)
#define GxB_SECURE_IMPORT ((GrB_Desc_Value)502)
#define GxB_FAST_IMPORT GxB_DEFAULT

/* The field of the variadic forms is an int in C++ (an enumeration there is promoted when passed, and
 * va_start may not take a parameter that is), the enumeration in C; both are passed alike. */
#ifdef __cplusplus
#define SNK_VA_FIELD(Field) int
#else
#define SNK_VA_FIELD(Field) Field
#endif
GrB_Info GxB_Global_Option_set(SNK_VA_FIELD(GxB_Option_Field) field, ...) SNK_SYMBOL(GxB_Global_Option_set);
GrB_Info GxB_Global_Option_set_INT32(GxB_Option_Field field, int32_t value) SNK_SYMBOL(GxB_Global_Option_set_INT32);
GrB_Info GxB_Global_Option_set_FP64(GxB_Option_Field field, double value) SNK_SYMBOL(GxB_Global_Option_set_FP64);
GrB_Info GxB_Global_Option_set_FP64_ARRAY(GxB_Option_Field field, double *value)
    SNK_SYMBOL(GxB_Global_Option_set_FP64_ARRAY);
GrB_Info GxB_Global_Option_set_INT64_ARRAY(GxB_Option_Field field, int64_t *value)
    SNK_SYMBOL(GxB_Global_Option_set_INT64_ARRAY);
GrB_Info GxB_Global_Option_set_FUNCTION(GxB_Option_Field field, void *value)
    SNK_SYMBOL(GxB_Global_Option_set_FUNCTION);
GrB_Info GxB_Global_Option_get(SNK_VA_FIELD(GxB_Option_Field) field, ...) SNK_SYMBOL(GxB_Global_Option_get);
GrB_Info GxB_Global_Option_get_INT32(GxB_Option_Field field, int32_t *value) SNK_SYMBOL(GxB_Global_Option_get_INT32);
GrB_Info GxB_Global_Option_get_FP64(GxB_Option_Field field, double *value) SNK_SYMBOL(GxB_Global_Option_get_FP64);
GrB_Info GxB_Global_Option_get_INT64(GxB_Option_Field field, int64_t *value) SNK_SYMBOL(GxB_Global_Option_get_INT64);
GrB_Info GxB_Global_Option_get_CHAR(GxB_Option_Field field, char **value) SNK_SYMBOL(GxB_Global_Option_get_CHAR);
GrB_Info GxB_Global_Option_get_FUNCTION(GxB_Option_Field field, void **value)
    SNK_SYMBOL(GxB_Global_Option_get_FUNCTION);
#define SNK_DECLARE_OPTION(Object)                                                                       \
  GrB_Info GxB_##Object##_Option_set(GrB_##Object obj, SNK_VA_FIELD(GxB_Option_Field) field, ...)        \
      SNK_SYMBOL(GxB_##Object##_Option_set);                                                            \
  GrB_Info GxB_##Object##_Option_set_INT32(GrB_##Object obj, GxB_Option_Field field, int32_t value)      \
      SNK_SYMBOL(GxB_##Object##_Option_set_INT32);                                                      \
  GrB_Info GxB_##Object##_Option_set_FP64(GrB_##Object obj, GxB_Option_Field field, double value)        \
      SNK_SYMBOL(GxB_##Object##_Option_set_FP64);                                                       \
  GrB_Info GxB_##Object##_Option_get(GrB_##Object obj, SNK_VA_FIELD(GxB_Option_Field) field, ...)        \
      SNK_SYMBOL(GxB_##Object##_Option_get);                                                            \
  GrB_Info GxB_##Object##_Option_get_INT32(GrB_##Object obj, GxB_Option_Field field, int32_t *value)     \
      SNK_SYMBOL(GxB_##Object##_Option_get_INT32);                                                      \
  GrB_Info GxB_##Object##_Option_get_FP64(GrB_##Object obj, GxB_Option_Field field, double *value)       \
      SNK_SYMBOL(GxB_##Object##_Option_get_FP64);
SNK_DECLARE_OPTION(Matrix)
SNK_DECLARE_OPTION(Vector)
GrB_Info GxB_Desc_set(GrB_Descriptor desc, SNK_VA_FIELD(GrB_Desc_Field) field, ...) SNK_SYMBOL(GxB_Desc_set);
GrB_Info GxB_Desc_set_INT32(GrB_Descriptor desc, GrB_Desc_Field field, int32_t value) SNK_SYMBOL(GxB_Desc_set_INT32);
GrB_Info GxB_Desc_set_FP64(GrB_Descriptor desc, GrB_Desc_Field field, double value) SNK_SYMBOL(GxB_Desc_set_FP64);
GrB_Info GxB_Desc_get(GrB_Descriptor desc, SNK_VA_FIELD(GrB_Desc_Field) field, ...) SNK_SYMBOL(GxB_Desc_get);
GrB_Info GxB_Desc_get_INT32(GrB_Descriptor desc, GrB_Desc_Field field, int32_t *value) SNK_SYMBOL(GxB_Desc_get_INT32);
GrB_Info GxB_Desc_get_FP64(GrB_Descriptor desc, GrB_Desc_Field field, double *value) SNK_SYMBOL(GxB_Desc_get_FP64);
GrB_Info GxB_Descriptor_get(GrB_Desc_Value *value, GrB_Descriptor desc, GrB_Desc_Field field)
    SNK_SYMBOL(GxB_Descriptor_get);

/* ==== snack extensions (SNK_) ========================================================================== */
/* Backend for the calls that follow ("reference", "kokkos", "cuda", as built); the environment variable
 * SNACK_BACKEND sets the initial choice. Unknown name: GrB_INVALID_VALUE. */
GrB_Info SNK_Backend_set(const char *name) SNK_SYMBOL(SNK_Backend_set);
/* The backend of the calling thread only, overriding SNK_Backend_set's choice there; NULL goes back to the
 * process-wide choice. Unknown name: GrB_INVALID_VALUE, and nothing changes. Several threads may call
 * GraphBLAS at once, each on its own objects, each on its own backend (README: "Threads"). */
GrB_Info SNK_Thread_backend_set(const char *name) SNK_SYMBOL(SNK_Thread_backend_set);
/* The current backend's name into out (GrB_INSUFFICIENT_SPACE if it does not fit with its terminator). */
GrB_Info SNK_Backend_get(char *out, size_t out_size) SNK_SYMBOL(SNK_Backend_get);
/* The backends compiled in, comma-separated. */
GrB_Info SNK_Backend_list(char *out, size_t out_size) SNK_SYMBOL(SNK_Backend_list);
/* Calls of operation `op` ("mxm", "ewise_add", ...) that `backend` declined and that ran on reference. */
GrB_Info SNK_Fallback_count(const char *backend, const char *op, uint64_t *count) SNK_SYMBOL(SNK_Fallback_count);
GrB_Info SNK_Fallback_total(const char *backend, uint64_t *count) SNK_SYMBOL(SNK_Fallback_total);
GrB_Info SNK_Fallback_reset(void) SNK_SYMBOL(SNK_Fallback_reset);
/* Host <-> device traffic of the GPU backends since the start or the last SNK_Transfers_reset: copies of container
 * data to device memory (uploads) and back (downloads: the host reading a matrix whose only valid copy is on the
 * device), with their bytes. A chain of GPU operations on data that lives there adds none. Any pointer may be NULL
 * to skip that count. */
GrB_Info SNK_Transfers_get(uint64_t *uploads, uint64_t *downloads, uint64_t *upload_bytes, uint64_t *download_bytes)
    SNK_SYMBOL(SNK_Transfers_get);
GrB_Info SNK_Transfers_reset(void) SNK_SYMBOL(SNK_Transfers_reset);
/* Device memory exchange, for callers that hold their data on the GPU (a CUDA array library, PyTorch's CUDA tensors).
 * The thread's backend copies between the caller's device memory and its own device copy of A, on the device: the cuda
 * backend does; a backend without device memory returns GrB_NOT_IMPLEMENTED and changes nothing. Pointers are device
 * memory of the backend's GPU, holding values of A's type; `stream` is the caller's cudaStream_t (NULL: the default
 * stream): an import reads after the work queued there so far, and work queued there afterwards runs after its reads
 * (the caller may then overwrite or free the memory in stream order); work queued there after an export sees its
 * writes.
 *   SNK_Matrix_import_device_full:   A (type and dimensions kept) holds every position, nrows x ncols values row-major.
 *   SNK_Matrix_import_device_values: A takes the pattern of `pattern` (A's dimensions), with nvals(pattern) values in
 *                                    the order of its entries (row by row, columns increasing); A may be `pattern`.
 *   SNK_Matrix_export_device_dense:  A as nrows x ncols values row-major, zero where A holds no entry.
 *   SNK_Matrix_export_device_values: A's nvals values in the order of its entries. */
GrB_Info SNK_Matrix_import_device_full(GrB_Matrix A, const void *device_values, void *stream)
    SNK_SYMBOL(SNK_Matrix_import_device_full);
GrB_Info SNK_Matrix_import_device_values(GrB_Matrix A, const GrB_Matrix pattern, const void *device_values,
                                         void *stream) SNK_SYMBOL(SNK_Matrix_import_device_values);
GrB_Info SNK_Matrix_export_device_dense(void *device_out, const GrB_Matrix A, void *stream)
    SNK_SYMBOL(SNK_Matrix_export_device_dense);
GrB_Info SNK_Matrix_export_device_values(void *device_out, const GrB_Matrix A, void *stream)
    SNK_SYMBOL(SNK_Matrix_export_device_values);
/* Products on the caller's device memory (snk::device_sparse_times_dense and its kin, snack/operations.hpp), for
 * callers that repeat them on one sparse pattern with new values each time (a sparse layer's forward and backward): the
 * dense operands and results stay in the caller's device memory, no matrix is made for them, and A gives only its
 * pattern, its values being a_values (nvals(A) of A's type, GrB_FP32 or GrB_FP64, in the order of its entries); A's
 * device plans, made by its first product, serve the later ones. A dense operand is nrows x ncols values with element
 * (r, c) at data[r * row_stride + c * col_stride], one of the strides 1 (GrB_INVALID_VALUE otherwise). Ordering
 * against `stream` as above. GrB_NOT_IMPLEMENTED, nothing written, where the backend has no device path for the call (a
 * backend without device memory; on the cuda backend an A with an empty row, or column for A^T, or with a 2:4 or
 * precision hint): the caller then runs the import, GrB_mxm and export calls.
 *   SNK_mxm_device:         Y = A X, or A^T X where `transpose`, over PLUS_TIMES in A's type.
 *   SNK_mxm_device_sampled: z[e] = sum_k X(i, k) Y(k, j) for A's e-th entry (i, j), nvals(A) values.
 *   SNK_reduce_device_rows: z[i] = X(i, 0) + ... + X(i, ncols - 1), in `type` (GrB_FP32 or GrB_FP64). */
typedef struct {
  const void *data;
  GrB_Index nrows, ncols;
  int64_t row_stride, col_stride;
} SNK_DeviceDense;
GrB_Info SNK_mxm_device(SNK_DeviceDense Y, const GrB_Matrix A, const void *a_values, bool transpose, SNK_DeviceDense X,
                        void *stream) SNK_SYMBOL(SNK_mxm_device);
GrB_Info SNK_mxm_device_sampled(void *z, const GrB_Matrix A, SNK_DeviceDense X, SNK_DeviceDense Y, void *stream)
    SNK_SYMBOL(SNK_mxm_device_sampled);
GrB_Info SNK_reduce_device_rows(void *z, GrB_Type type, SNK_DeviceDense X, void *stream)
    SNK_SYMBOL(SNK_reduce_device_rows);
/* Bitwise-reproducible results run to run (no floating-point atomics); $SNACK_DETERMINISTIC=1 also (0 leaves
 * them off; another value prints a message on stderr and leaves them off). */
GrB_Info SNK_Deterministic_set(bool on) SNK_SYMBOL(SNK_Deterministic_set);
GrB_Info SNK_Deterministic_get(bool *on) SNK_SYMBOL(SNK_Deterministic_get);
/* When the cuda backend binds a sparse matrix's values to its SpMM plan (products with a full matrix at batch
 * 5-128 then read them in the plan's own orders; the binding is host work linear in the entries, redone after the
 * matrix changes): SNK_BIND_AUTO (default) once the matrix's products have taken as long as the binding is
 * estimated to take, SNK_BIND_EAGER at the first product it would serve, SNK_BIND_NEVER not at all.
 * $SNACK_BIND=auto|eager|never sets the initial policy (another value prints a message on stderr: auto).
 * SNK_Bind_set with a value not in SNK_Bind: GrB_INVALID_VALUE. */
typedef enum { SNK_BIND_AUTO = 0, SNK_BIND_EAGER = 1, SNK_BIND_NEVER = 2 } SNK_Bind;
GrB_Info SNK_Bind_set(SNK_Bind policy) SNK_SYMBOL(SNK_Bind_set);
GrB_Info SNK_Bind_get(SNK_Bind *policy) SNK_SYMBOL(SNK_Bind_get);
/* Reads a MatrixMarket "matrix coordinate" text (real, integer or pattern; general, symmetric or
 * skew-symmetric) of `size` bytes into a new matrix of `type` (pattern entries become 1). Malformed text:
 * GrB_INVALID_VALUE with the line number in GrB_error's message... and nothing created. */
GrB_Info SNK_Matrix_read_mtx(GrB_Matrix *A, GrB_Type type, const char *text, size_t size)
    SNK_SYMBOL(SNK_Matrix_read_mtx);
/* The message of the last failing call on this thread (whatever its objects), or "". */
GrB_Info SNK_last_error(const char **message) SNK_SYMBOL(SNK_last_error);

#ifdef __cplusplus
}  /* extern "C" */
#endif

/* ==== C11 polymorphic names ============================================================================ */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* Value x of a builtin type, a UDT pointer, or (where the family has one) a GrB_Scalar. */
#define SNK_GENERIC_VALUE(x, prefix)                                                                     \
  _Generic((x), bool: prefix##_BOOL, int8_t: prefix##_INT8, uint8_t: prefix##_UINT8,                     \
           int16_t: prefix##_INT16, uint16_t: prefix##_UINT16, int32_t: prefix##_INT32,                  \
           uint32_t: prefix##_UINT32, int64_t: prefix##_INT64, uint64_t: prefix##_UINT64,                \
           float: prefix##_FP32, double: prefix##_FP64, default: prefix##_UDT)
#define SNK_GENERIC_VALUE_OR_SCALAR(x, prefix)                                                           \
  _Generic((x), bool: prefix##_BOOL, int8_t: prefix##_INT8, uint8_t: prefix##_UINT8,                     \
           int16_t: prefix##_INT16, uint16_t: prefix##_UINT16, int32_t: prefix##_INT32,                  \
           uint32_t: prefix##_UINT32, int64_t: prefix##_INT64, uint64_t: prefix##_UINT64,                \
           float: prefix##_FP32, double: prefix##_FP64, GrB_Scalar: prefix##_Scalar, default: prefix##_UDT)
/* Pointer to values of a builtin type (const or not); any other pointer is a UDT array. */
#define SNK_GENERIC_POINTER(p, prefix)                                                                   \
  _Generic((p), bool *: prefix##_BOOL, const bool *: prefix##_BOOL, int8_t *: prefix##_INT8,             \
           const int8_t *: prefix##_INT8, uint8_t *: prefix##_UINT8, const uint8_t *: prefix##_UINT8,    \
           int16_t *: prefix##_INT16, const int16_t *: prefix##_INT16, uint16_t *: prefix##_UINT16,      \
           const uint16_t *: prefix##_UINT16, int32_t *: prefix##_INT32, const int32_t *: prefix##_INT32, \
           uint32_t *: prefix##_UINT32, const uint32_t *: prefix##_UINT32, int64_t *: prefix##_INT64,    \
           const int64_t *: prefix##_INT64, uint64_t *: prefix##_UINT64, const uint64_t *: prefix##_UINT64, \
           float *: prefix##_FP32, const float *: prefix##_FP32, double *: prefix##_FP64,                \
           const double *: prefix##_FP64, default: prefix##_UDT)
#define SNK_GENERIC_POINTER_OR_SCALAR(p, prefix)                                                         \
  _Generic((p), GrB_Scalar: prefix##_Scalar, default: SNK_GENERIC_POINTER(p, prefix))
#define SNK_FIRST_ARG(a, ...) a
#define SNK_SECOND_ARG(a, b, ...) b

#define GrB_Scalar_setElement(s, x) SNK_GENERIC_VALUE(x, GrB_Scalar_setElement)(s, x)
#define GrB_Scalar_extractElement(x, s) SNK_GENERIC_POINTER(x, GrB_Scalar_extractElement)(x, s)
#define GrB_Vector_build(w, I, X, n, dup) SNK_GENERIC_POINTER(X, GrB_Vector_build)(w, I, X, n, dup)
#define GrB_Vector_setElement(w, x, i) SNK_GENERIC_VALUE_OR_SCALAR(x, GrB_Vector_setElement)(w, x, i)
#define GrB_Vector_extractElement(x, v, i) SNK_GENERIC_POINTER_OR_SCALAR(x, GrB_Vector_extractElement)(x, v, i)
#define GrB_Vector_extractTuples(I, X, n, v) SNK_GENERIC_POINTER(X, GrB_Vector_extractTuples)(I, X, n, v)
#define GrB_Matrix_build(C, I, J, X, n, dup) SNK_GENERIC_POINTER(X, GrB_Matrix_build)(C, I, J, X, n, dup)
#define GrB_Matrix_setElement(C, x, i, j) SNK_GENERIC_VALUE_OR_SCALAR(x, GrB_Matrix_setElement)(C, x, i, j)
#define GrB_Matrix_extractElement(x, A, i, j)                                                            \
  SNK_GENERIC_POINTER_OR_SCALAR(x, GrB_Matrix_extractElement)(x, A, i, j)
#define GrB_Matrix_extractTuples(I, J, X, n, A) SNK_GENERIC_POINTER(X, GrB_Matrix_extractTuples)(I, J, X, n, A)
#define GrB_Matrix_import(A, type, nr, nc, Ap, Ai, Ax, ...)                                              \
  SNK_GENERIC_POINTER(Ax, GrB_Matrix_import)(A, type, nr, nc, Ap, Ai, Ax, __VA_ARGS__)
#define GrB_Matrix_export(Ap, Ai, Ax, ...) SNK_GENERIC_POINTER(Ax, GrB_Matrix_export)(Ap, Ai, Ax, __VA_ARGS__)
#define GrB_Monoid_new(monoid, op, identity) SNK_GENERIC_VALUE(identity, GrB_Monoid_new)(monoid, op, identity)

#define GrB_free(object)                                                                                 \
  _Generic((object), GrB_Type *: GrB_Type_free, GrB_UnaryOp *: GrB_UnaryOp_free,                         \
           GrB_BinaryOp *: GrB_BinaryOp_free, GrB_IndexUnaryOp *: GrB_IndexUnaryOp_free,                 \
           GrB_Monoid *: GrB_Monoid_free, GrB_Semiring *: GrB_Semiring_free, GrB_Scalar *: GrB_Scalar_free, \
           GrB_Vector *: GrB_Vector_free, GrB_Matrix *: GrB_Matrix_free,                                 \
           GrB_Descriptor *: GrB_Descriptor_free)(object)
#define SNK_GENERIC_OBJECT(object, method)                                                               \
  _Generic((object), GrB_Type: GrB_Type_##method, GrB_UnaryOp: GrB_UnaryOp_##method,                     \
           GrB_BinaryOp: GrB_BinaryOp_##method, GrB_IndexUnaryOp: GrB_IndexUnaryOp_##method,             \
           GrB_Monoid: GrB_Monoid_##method, GrB_Semiring: GrB_Semiring_##method,                         \
           GrB_Scalar: GrB_Scalar_##method, GrB_Vector: GrB_Vector_##method,                             \
           GrB_Matrix: GrB_Matrix_##method, GrB_Descriptor: GrB_Descriptor_##method)
#define GrB_wait(object, mode) SNK_GENERIC_OBJECT(object, wait)(object, mode)
#define GrB_error(message, object) SNK_GENERIC_OBJECT(object, error)(message, object)

/* GrB_get(obj, value, field) / GrB_set(obj, value, field [, size]) on every object and GrB_GLOBAL: by the
 * value, get takes GrB_Scalar, char *, int32_t *, size_t *, void *; set takes GrB_Scalar, (const) char *,
 * void * (with the size), and any integer or enumerator (int32_t). SNK_GET_FUNCTION / SNK_SET_FUNCTION
 * name the function a call selects. */
#define SNK_GENERIC_GET_SET(object, value, select, method)                                               \
  _Generic((object), GrB_Global: select(value, GrB_Global_##method), GrB_Type: select(value, GrB_Type_##method), \
           GrB_UnaryOp: select(value, GrB_UnaryOp_##method), GrB_BinaryOp: select(value, GrB_BinaryOp_##method), \
           GrB_IndexUnaryOp: select(value, GrB_IndexUnaryOp_##method),                                  \
           GrB_Monoid: select(value, GrB_Monoid_##method), GrB_Semiring: select(value, GrB_Semiring_##method), \
           GrB_Scalar: select(value, GrB_Scalar_##method), GrB_Vector: select(value, GrB_Vector_##method), \
           GrB_Matrix: select(value, GrB_Matrix_##method),                                              \
           GrB_Descriptor: select(value, GrB_Descriptor_##method))
#define SNK_GET_BY_VALUE(value, prefix)                                                                  \
  _Generic((value), GrB_Scalar: prefix##_Scalar, char *: prefix##_String, int32_t *: prefix##_INT32,      \
           size_t *: prefix##_SIZE, void *: prefix##_VOID)
#define SNK_SET_BY_VALUE(value, prefix)                                                                  \
  _Generic((value), GrB_Scalar: prefix##_Scalar, char *: prefix##_String, const char *: prefix##_String,  \
           void *: prefix##_VOID, default: prefix##_INT32)
#define SNK_GET_FUNCTION(object, value) SNK_GENERIC_GET_SET(object, value, SNK_GET_BY_VALUE, get)
#define SNK_SET_FUNCTION(object, value) SNK_GENERIC_GET_SET(object, value, SNK_SET_BY_VALUE, set)
#define GrB_get(object, value, field) SNK_GET_FUNCTION(object, value)(object, value, field)
#define GrB_set(object, value, ...) SNK_SET_FUNCTION(object, value)(object, value, __VA_ARGS__)

/* GxB_fprint(obj, pr, f) / GxB_print(obj, pr): GxB_<Object>_fprint with the object's expression as name. */
#define SNK_FPRINT_FUNCTION(object)                                                                      \
  _Generic((object), GrB_Type: GxB_Type_fprint, GrB_UnaryOp: GxB_UnaryOp_fprint,                         \
           GrB_BinaryOp: GxB_BinaryOp_fprint, GrB_IndexUnaryOp: GxB_IndexUnaryOp_fprint,                 \
           GrB_Monoid: GxB_Monoid_fprint, GrB_Semiring: GxB_Semiring_fprint, GrB_Scalar: GxB_Scalar_fprint, \
           GrB_Vector: GxB_Vector_fprint, GrB_Matrix: GxB_Matrix_fprint,                                 \
           GrB_Descriptor: GxB_Descriptor_fprint)
#define GxB_fprint(object, pr, f) SNK_FPRINT_FUNCTION(object)(object, #object, pr, f)
#define GxB_print(object, pr) SNK_FPRINT_FUNCTION(object)(object, #object, pr, NULL)

/* GxB_get(field, &value) / GxB_set(field, value): a global option (the field an int, as an enumerator is in
 * C, or a GxB_Option_Field); GxB_get(obj, field, &value) / GxB_set(obj, field, value): an option of a
 * GrB_Matrix, GrB_Vector or GrB_Descriptor. Selected by the first argument, as SuiteSparse selects;
 * SNK_GXB_GET_FUNCTION / SNK_GXB_SET_FUNCTION name the function a call selects. */
#define SNK_GXB_GET_FUNCTION(arg1)                                                                       \
  _Generic((arg1), const int: GxB_Global_Option_get, int: GxB_Global_Option_get,                         \
           const GxB_Option_Field: GxB_Global_Option_get, GxB_Option_Field: GxB_Global_Option_get,       \
           const GrB_Vector: GxB_Vector_Option_get, GrB_Vector: GxB_Vector_Option_get,                   \
           const GrB_Matrix: GxB_Matrix_Option_get, GrB_Matrix: GxB_Matrix_Option_get,                   \
           const GrB_Descriptor: GxB_Desc_get, GrB_Descriptor: GxB_Desc_get)
#define SNK_GXB_SET_FUNCTION(arg1)                                                                       \
  _Generic((arg1), int: GxB_Global_Option_set, GxB_Option_Field: GxB_Global_Option_set,                  \
           GrB_Vector: GxB_Vector_Option_set, GrB_Matrix: GxB_Matrix_Option_set,                         \
           GrB_Descriptor: GxB_Desc_set)
#define GxB_get(arg1, ...) SNK_GXB_GET_FUNCTION(arg1)(arg1, __VA_ARGS__)
#define GxB_set(arg1, ...) SNK_GXB_SET_FUNCTION(arg1)(arg1, __VA_ARGS__)

#define GrB_eWiseAdd(C, Mask, accum, op, A, B, desc)                                                     \
  _Generic((C),                                                                                          \
      GrB_Matrix: _Generic((op), GrB_Semiring: GrB_Matrix_eWiseAdd_Semiring, GrB_Monoid: GrB_Matrix_eWiseAdd_Monoid, \
                           GrB_BinaryOp: GrB_Matrix_eWiseAdd_BinaryOp),                                  \
      GrB_Vector: _Generic((op), GrB_Semiring: GrB_Vector_eWiseAdd_Semiring, GrB_Monoid: GrB_Vector_eWiseAdd_Monoid, \
                           GrB_BinaryOp: GrB_Vector_eWiseAdd_BinaryOp))(C, Mask, accum, op, A, B, desc)
#define GrB_eWiseMult(C, Mask, accum, op, A, B, desc)                                                    \
  _Generic((C),                                                                                          \
      GrB_Matrix: _Generic((op), GrB_Semiring: GrB_Matrix_eWiseMult_Semiring, GrB_Monoid: GrB_Matrix_eWiseMult_Monoid, \
                           GrB_BinaryOp: GrB_Matrix_eWiseMult_BinaryOp),                                 \
      GrB_Vector: _Generic((op), GrB_Semiring: GrB_Vector_eWiseMult_Semiring, GrB_Monoid: GrB_Vector_eWiseMult_Monoid, \
                           GrB_BinaryOp: GrB_Vector_eWiseMult_BinaryOp))(C, Mask, accum, op, A, B, desc)
#define GrB_kronecker(C, Mask, accum, op, A, B, desc)                                                    \
  _Generic((op), GrB_Semiring: GrB_Matrix_kronecker_Semiring, GrB_Monoid: GrB_Matrix_kronecker_Monoid,   \
           GrB_BinaryOp: GrB_Matrix_kronecker_BinaryOp)(C, Mask, accum, op, A, B, desc)

/* GrB_extract(C, M, accum, A, I, ni, J, nj, desc) / (w, m, accum, u, I, ni, desc) / (w, m, accum, A, I, ni, j, desc) */
#define GrB_extract(C, Mask, accum, A, ...)                                                              \
  _Generic((C), GrB_Matrix: GrB_Matrix_extract,                                                          \
           GrB_Vector: _Generic((A), GrB_Vector: GrB_Vector_extract, default: GrB_Col_extract))(      \
      C, Mask, accum, A, __VA_ARGS__)

/* GrB_assign: on the output, the input (container or scalar), and for a vector into a matrix, whether the
 * fifth argument is a row index (GrB_Row_assign) or an index list (GrB_Col_assign). */
#define SNK_ROW_OR_COL_ASSIGN(first)                                                                     \
  _Generic((first), GrB_Index *: GrB_Col_assign, const GrB_Index *: GrB_Col_assign, default: GrB_Row_assign)
#define GrB_assign(C, Mask, accum, u, ...)                                                               \
  _Generic((C),                                                                                          \
      GrB_Vector: _Generic((u), GrB_Vector: GrB_Vector_assign,                                           \
                           default: SNK_GENERIC_VALUE_OR_SCALAR(u, GrB_Vector_assign)),                  \
      GrB_Matrix: _Generic((u), GrB_Matrix: GrB_Matrix_assign,                                           \
                           GrB_Vector: SNK_ROW_OR_COL_ASSIGN(SNK_FIRST_ARG(__VA_ARGS__, 0)),             \
                           default: SNK_GENERIC_VALUE_OR_SCALAR(u, GrB_Matrix_assign)))(                 \
      C, Mask, accum, u, __VA_ARGS__)

/* GrB_apply(C, M, accum, op, A, desc) with a UnaryOp; (C, M, accum, op, x, A, desc) / (C, M, accum, op, A,
 * y, desc) with a BinaryOp bound to a scalar; (C, M, accum, op, A, y, desc) with an IndexUnaryOp. */
#define SNK_APPLY_BINARY(C, x, y, Kind)                                                                  \
  _Generic((x), GrB_##Kind: SNK_GENERIC_VALUE_OR_SCALAR(y, GrB_##Kind##_apply_BinaryOp2nd),              \
           default: SNK_GENERIC_VALUE_OR_SCALAR(x, GrB_##Kind##_apply_BinaryOp1st))
#define GrB_apply(C, Mask, accum, op, ...)                                                               \
  _Generic((C),                                                                                          \
      GrB_Matrix: _Generic((op), GrB_UnaryOp: GrB_Matrix_apply,                                          \
                           GrB_BinaryOp: SNK_APPLY_BINARY(C, SNK_FIRST_ARG(__VA_ARGS__, 0),              \
                                                          SNK_SECOND_ARG(__VA_ARGS__, 0, 0), Matrix),    \
                           GrB_IndexUnaryOp: SNK_GENERIC_VALUE_OR_SCALAR(SNK_SECOND_ARG(__VA_ARGS__, 0, 0), \
                                                                         GrB_Matrix_apply_IndexOp)),     \
      GrB_Vector: _Generic((op), GrB_UnaryOp: GrB_Vector_apply,                                          \
                           GrB_BinaryOp: SNK_APPLY_BINARY(C, SNK_FIRST_ARG(__VA_ARGS__, 0),              \
                                                          SNK_SECOND_ARG(__VA_ARGS__, 0, 0), Vector),    \
                           GrB_IndexUnaryOp: SNK_GENERIC_VALUE_OR_SCALAR(SNK_SECOND_ARG(__VA_ARGS__, 0, 0), \
                                                                         GrB_Vector_apply_IndexOp)))(    \
      C, Mask, accum, op, __VA_ARGS__)

#define GrB_select(C, Mask, accum, op, A, y, desc)                                                       \
  _Generic((C), GrB_Matrix: SNK_GENERIC_VALUE_OR_SCALAR(y, GrB_Matrix_select),                           \
           GrB_Vector: SNK_GENERIC_VALUE_OR_SCALAR(y, GrB_Vector_select))(C, Mask, accum, op, A, y, desc)

/* GrB_reduce(w, mask, accum, op, A, desc) to a vector; (s, accum, op, A, desc) to a GrB_Scalar; (&c, accum,
 * monoid, A, desc) to a C value. */
#define SNK_REDUCE_TO_VALUE(c, A)                                                                        \
  _Generic((A), GrB_Matrix: SNK_GENERIC_POINTER(c, GrB_Matrix_reduce),                                   \
           default: SNK_GENERIC_POINTER(c, GrB_Vector_reduce))
#define SNK_REDUCE_TO_SCALAR(op, A)                                                                      \
  _Generic((A),                                                                                          \
      GrB_Matrix: _Generic((op), GrB_Monoid: GrB_Matrix_reduce_Monoid_Scalar,                            \
                           default: GrB_Matrix_reduce_BinaryOp_Scalar),                             \
      default: _Generic((op), GrB_Monoid: GrB_Vector_reduce_Monoid_Scalar,                               \
                        default: GrB_Vector_reduce_BinaryOp_Scalar))
#define GrB_reduce(c, accum, op, A, ...)                                                                 \
  _Generic((c),                                                                                          \
      GrB_Vector: _Generic((A), GrB_Monoid: GrB_Matrix_reduce_Monoid, GrB_BinaryOp: GrB_Matrix_reduce_BinaryOp, \
                           default: GrB_Matrix_reduce_Monoid),                                           \
      GrB_Scalar: SNK_REDUCE_TO_SCALAR(op, A),                                                           \
      default: SNK_REDUCE_TO_VALUE(c, A))(c, accum, op, A, __VA_ARGS__)

#endif /* C11 */

#ifdef __cplusplus
/* C++: the polymorphic object methods as overloads (the typed families keep their explicit names). */
#define SNK_CXX_OBJECT_METHODS(Object)                                                                   \
  inline GrB_Info GrB_free(GrB_##Object *object) { return GrB_##Object##_free(object); }                 \
  inline GrB_Info GrB_wait(GrB_##Object object, GrB_WaitMode mode) { return GrB_##Object##_wait(object, mode); } \
  inline GrB_Info GrB_error(const char **message, const GrB_##Object object) {                           \
    return GrB_##Object##_error(message, object);                                                        \
  }
SNK_CXX_OBJECT_METHODS(Type)
SNK_CXX_OBJECT_METHODS(UnaryOp)
SNK_CXX_OBJECT_METHODS(BinaryOp)
SNK_CXX_OBJECT_METHODS(IndexUnaryOp)
SNK_CXX_OBJECT_METHODS(Monoid)
SNK_CXX_OBJECT_METHODS(Semiring)
SNK_CXX_OBJECT_METHODS(Scalar)
SNK_CXX_OBJECT_METHODS(Vector)
SNK_CXX_OBJECT_METHODS(Matrix)
SNK_CXX_OBJECT_METHODS(Descriptor)
#undef SNK_CXX_OBJECT_METHODS

/* C++: GrB_get / GrB_set as overloads over the object and the value (as the C11 names), and GxB_print /
 * GxB_fprint as macros over overloads of snk_cxx_fprint (the level as int or GxB_Print_Level). */
#define SNK_CXX_GET_SET(Object)                                                                          \
  inline GrB_Info GrB_get(GrB_##Object o, GrB_Scalar v, GrB_Field f) { return GrB_##Object##_get_Scalar(o, v, f); } \
  inline GrB_Info GrB_get(GrB_##Object o, char *v, GrB_Field f) { return GrB_##Object##_get_String(o, v, f); } \
  inline GrB_Info GrB_get(GrB_##Object o, int32_t *v, GrB_Field f) { return GrB_##Object##_get_INT32(o, v, f); } \
  inline GrB_Info GrB_get(GrB_##Object o, size_t *v, GrB_Field f) { return GrB_##Object##_get_SIZE(o, v, f); } \
  inline GrB_Info GrB_get(GrB_##Object o, void *v, GrB_Field f) { return GrB_##Object##_get_VOID(o, v, f); } \
  inline GrB_Info GrB_set(GrB_##Object o, GrB_Scalar v, GrB_Field f) { return GrB_##Object##_set_Scalar(o, v, f); } \
  inline GrB_Info GrB_set(GrB_##Object o, const char *v, GrB_Field f) { return GrB_##Object##_set_String(o, v, f); } \
  inline GrB_Info GrB_set(GrB_##Object o, int32_t v, GrB_Field f) { return GrB_##Object##_set_INT32(o, v, f); } \
  inline GrB_Info GrB_set(GrB_##Object o, void *v, GrB_Field f, size_t n) {                               \
    return GrB_##Object##_set_VOID(o, v, f, n);                                                          \
  }
SNK_CXX_GET_SET(Global)
SNK_CXX_GET_SET(Type)
SNK_CXX_GET_SET(UnaryOp)
SNK_CXX_GET_SET(BinaryOp)
SNK_CXX_GET_SET(IndexUnaryOp)
SNK_CXX_GET_SET(Monoid)
SNK_CXX_GET_SET(Semiring)
SNK_CXX_GET_SET(Scalar)
SNK_CXX_GET_SET(Vector)
SNK_CXX_GET_SET(Matrix)
SNK_CXX_GET_SET(Descriptor)
#undef SNK_CXX_GET_SET
#define SNK_CXX_FPRINT(Object)                                                                           \
  inline GrB_Info snk_cxx_fprint(GrB_##Object o, const char *name, int pr, FILE *f) {                     \
    return GxB_##Object##_fprint(o, name, static_cast<GxB_Print_Level>(pr), f);                          \
  }
SNK_CXX_FPRINT(Type)
SNK_CXX_FPRINT(UnaryOp)
SNK_CXX_FPRINT(BinaryOp)
SNK_CXX_FPRINT(IndexUnaryOp)
SNK_CXX_FPRINT(Monoid)
SNK_CXX_FPRINT(Semiring)
SNK_CXX_FPRINT(Scalar)
SNK_CXX_FPRINT(Vector)
SNK_CXX_FPRINT(Matrix)
SNK_CXX_FPRINT(Descriptor)
#undef SNK_CXX_FPRINT
#define GxB_fprint(object, pr, f) snk_cxx_fprint(object, #object, pr, f)
#define GxB_print(object, pr) snk_cxx_fprint(object, #object, pr, NULL)
/* C++: GxB_get / GxB_set as overloads over the first argument (as the C11 names select); the field is an int,
 * as the functions take it in C++, and the value is passed on through their `...`. */
template <class... V>
inline GrB_Info GxB_get(int field, V... value) {
  return GxB_Global_Option_get(field, value...);
}
template <class... V>
inline GrB_Info GxB_set(int field, V... value) {
  return GxB_Global_Option_set(field, value...);
}
#define SNK_CXX_GXB_GET_SET(Object, get, set)                                                            \
  template <class... V>                                                                                  \
  inline GrB_Info GxB_get(Object obj, int field, V... value) {                                           \
    return get(obj, field, value...);                                                                    \
  }                                                                                                      \
  template <class... V>                                                                                  \
  inline GrB_Info GxB_set(Object obj, int field, V... value) {                                           \
    return set(obj, field, value...);                                                                    \
  }
SNK_CXX_GXB_GET_SET(GrB_Matrix, GxB_Matrix_Option_get, GxB_Matrix_Option_set)
SNK_CXX_GXB_GET_SET(GrB_Vector, GxB_Vector_Option_get, GxB_Vector_Option_set)
SNK_CXX_GXB_GET_SET(GrB_Descriptor, GxB_Desc_get, GxB_Desc_set)
#undef SNK_CXX_GXB_GET_SET
#endif

#endif /* SNACK_GRAPHBLAS_H */
#endif /* SNACK_C_API */
