#!/usr/bin/env bash
# scripts/check-capi-coverage.sh: checks the C API against the GraphBLAS C API spec 2.1.
#
# Reads the spec 2.0 functions (scripts/capi-spec-2.0-functions.txt) and predefined objects
# (scripts/capi-spec-2.0-objects.txt), adds what spec 2.1 added (GrB_<Object>_get_* / _set_* of the 11
# objects, GrB_GLOBAL) and the GxB_ functions snack provides (listed below), then checks that each one is
# (1) declared in include/GraphBLAS.h with the asm label that links it to snk_<name> (found by
# preprocessing the header as C11), and (2) exported by the built library (nm -D). Then compiles a C11
# program against the header and the library and runs it: the polymorphic GrB_get / GrB_set / GxB_fprint
# must select the right function for every object and value kind, GxB_get / GxB_set for every first
# argument SuiteSparse's select on, and all of them work end to end (the option calls as LAGraph makes
# them). Prints the counts and every name missing; exits 1 if anything is.
# Usage: scripts/check-capi-coverage.sh [path/to/libsnack.so]   (default: the newest build*/src/libsnack.so)
set -euo pipefail
cd "$(dirname "$0")/.."
lib="${1:-$(ls -t build*/src/libsnack.so 2>/dev/null | head -1 || true)}"
cc="${CC:-cc}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pre="$work/GraphBLAS.i"
"$cc" -std=c11 -E -P -DSNACK_C_API -Iinclude include/GraphBLAS.h > "$pre"
status=0
/usr/bin/python3 - "$pre" "$lib" <<'PY' || status=1
import re, subprocess, sys
pre, lib = sys.argv[1], sys.argv[2]
text = open(pre).read()
# Declarations whose asm label matches their name: "NAME ( ... ) __asm__("snk_" "NAME")" or "NAME __asm__(...)".
labelled = set()
for m in re.finditer(r'\b((?:GrB|GxB|SNK)_\w+)\s*(\([^;]*?\))?\s*__asm__\("snk_" "(\w+)"\)', text):
    if m.group(1) == m.group(3):
        labelled.add(m.group(1))
def spec_list(path):
    return [l.strip() for l in open(path) if l.strip() and not l.startswith('#')]
functions = spec_list('scripts/capi-spec-2.0-functions.txt')
objects = spec_list('scripts/capi-spec-2.0-objects.txt')
# Spec 2.1: get and set of every object, by value kind, and the global context.
kinds = ['Global', 'Type', 'UnaryOp', 'BinaryOp', 'IndexUnaryOp', 'Monoid', 'Semiring', 'Scalar', 'Vector',
         'Matrix', 'Descriptor']
functions += [f'GrB_{k}_{m}_{v}' for k in kinds for m, vs in (('get', ('Scalar', 'String', 'INT32', 'SIZE', 'VOID')),
                                                             ('set', ('Scalar', 'String', 'INT32', 'VOID')))
              for v in vs]
objects += ['GrB_GLOBAL']
# The GxB_ functions snack provides (SuiteSparse's names).
gxb = ['GxB_Type_name', 'GxB_Matrix_type_name', 'GxB_Vector_type_name', 'GxB_Scalar_type_name',
       'GxB_Matrix_type', 'GxB_Vector_type', 'GxB_Scalar_type'] + [f'GxB_{k}_fprint' for k in kinds[1:]]
# SuiteSparse 7.4's option functions, with their typed forms, and its option constants.
gxb += [f'GxB_Global_Option_{m}' for m in ('set', 'set_INT32', 'set_FP64', 'set_FP64_ARRAY', 'set_INT64_ARRAY',
                                           'set_FUNCTION', 'get', 'get_INT32', 'get_FP64', 'get_INT64',
                                           'get_CHAR', 'get_FUNCTION')]
gxb += [f'GxB_{k}_Option_{m}' for k in ('Matrix', 'Vector')
        for m in ('set', 'set_INT32', 'set_FP64', 'get', 'get_INT32', 'get_FP64')]
gxb += [f'GxB_Desc_{m}' for m in ('set', 'set_INT32', 'set_FP64', 'get', 'get_INT32', 'get_FP64')]
gxb += ['GxB_Descriptor_get', 'GxB_FORMAT_DEFAULT', 'GxB_HYPER_DEFAULT', 'GxB_ALWAYS_HYPER', 'GxB_NEVER_HYPER']
exported = None
if lib:
    out = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True, check=True).stdout
    exported = {s[4:] for s in (l.split()[-1] for l in out.splitlines() if l.strip()) if s.startswith('snk_')}
    unprefixed = sorted(s for s in (l.split()[-1] for l in out.splitlines() if l.strip())
                        if s.startswith(('GrB_', 'GxB_', 'GB_')))
missing = 0
for kind, names in (('spec 2.1 functions', functions), ('spec 2.1 predefined objects', objects),
                    ('GxB_ functions and constants', gxb)):
    not_declared = [n for n in names if n not in labelled]
    print(f'{kind}: {len(names)}; declared in include/GraphBLAS.h: {len(names) - len(not_declared)}')
    for n in not_declared: print(f'  missing from the header: {n}')
    missing += len(not_declared)
    if exported is not None:
        not_exported = [n for n in names if n not in exported]
        print(f'{kind}: exported by {lib} as snk_<name>: {len(names) - len(not_exported)}')
        for n in not_exported: print(f'  not exported: {n}')
        missing += len(not_exported)
if exported is None:
    print('no library given or found: the exported symbols were not checked')
    missing += 1
else:
    extensions = sorted(n for n in exported if n.startswith('SNK_'))
    print(f'SNK_ extensions exported: {len(extensions)} ({", ".join(extensions)})')
    print(f'unprefixed GrB_/GxB_/GB_ symbols defined by the library (must be none): {len(unprefixed)}')
    for s in unprefixed[:20]: print(f'  {s}')
    missing += len(unprefixed)
print('missing: nothing' if missing == 0 else f'missing: {missing}')
sys.exit(1 if missing else 0)
PY

# The C11 polymorphic names of spec 2.1, GxB_fprint and GxB_get / GxB_set: which function each selects, and
# uses of each.
if [ -n "$lib" ]; then
  cat > "$work/generic.c" <<'C'
#include <stdio.h>
#include <string.h>

#include <GraphBLAS.h>

static int failures = 0;
#define EXPECT(cond) ((cond) ? (void)0 : (void)(++failures, printf("  C11 check failed: %s\n", #cond)))

#define CHECK_KIND(obj, Object)                                                                         \
  EXPECT(SNK_GET_FUNCTION(obj, sc) == GrB_##Object##_get_Scalar);                                       \
  EXPECT(SNK_GET_FUNCTION(obj, str) == GrB_##Object##_get_String);                                      \
  EXPECT(SNK_GET_FUNCTION(obj, &i32) == GrB_##Object##_get_INT32);                                      \
  EXPECT(SNK_GET_FUNCTION(obj, &sz) == GrB_##Object##_get_SIZE);                                        \
  EXPECT(SNK_GET_FUNCTION(obj, vp) == GrB_##Object##_get_VOID);                                         \
  EXPECT(SNK_SET_FUNCTION(obj, sc) == GrB_##Object##_set_Scalar);                                       \
  EXPECT(SNK_SET_FUNCTION(obj, str) == GrB_##Object##_set_String);                                      \
  EXPECT(SNK_SET_FUNCTION(obj, cstr) == GrB_##Object##_set_String);                                     \
  EXPECT(SNK_SET_FUNCTION(obj, "literal") == GrB_##Object##_set_String);                                \
  EXPECT(SNK_SET_FUNCTION(obj, i32) == GrB_##Object##_set_INT32);                                       \
  EXPECT(SNK_SET_FUNCTION(obj, GrB_COLMAJOR) == GrB_##Object##_set_INT32);                              \
  EXPECT(SNK_SET_FUNCTION(obj, true) == GrB_##Object##_set_INT32);                                      \
  EXPECT(SNK_SET_FUNCTION(obj, vp) == GrB_##Object##_set_VOID);
#define CHECK_PRINT(obj, Object) EXPECT(SNK_FPRINT_FUNCTION(obj) == GxB_##Object##_fprint);
#define CHECK_OPTION(arg1, get, set)                                                                    \
  EXPECT(SNK_GXB_GET_FUNCTION(arg1) == get);                                                            \
  EXPECT(SNK_GXB_SET_FUNCTION(arg1) == set);

int main(void) {
  GrB_Scalar sc = NULL;
  char str[256];
  const char *cstr = "name";
  int32_t i32 = 0;
  size_t sz = 0;
  void *vp = NULL;
  GrB_Type type = NULL;
  GrB_UnaryOp unary = NULL;
  GrB_BinaryOp binary = NULL;
  GrB_IndexUnaryOp index_unary = NULL;
  GrB_Monoid monoid = NULL;
  GrB_Semiring semiring = NULL;
  GrB_Vector vector = NULL;
  GrB_Matrix matrix = NULL;
  GrB_Descriptor descriptor = NULL;
  const GrB_Matrix const_matrix = NULL;
  CHECK_KIND(GrB_GLOBAL, Global)
  CHECK_KIND(type, Type)
  CHECK_KIND(unary, UnaryOp)
  CHECK_KIND(binary, BinaryOp)
  CHECK_KIND(index_unary, IndexUnaryOp)
  CHECK_KIND(monoid, Monoid)
  CHECK_KIND(semiring, Semiring)
  CHECK_KIND(sc, Scalar)
  CHECK_KIND(vector, Vector)
  CHECK_KIND(matrix, Matrix)
  CHECK_KIND(const_matrix, Matrix)
  CHECK_KIND(descriptor, Descriptor)
  CHECK_PRINT(type, Type)
  CHECK_PRINT(unary, UnaryOp)
  CHECK_PRINT(binary, BinaryOp)
  CHECK_PRINT(index_unary, IndexUnaryOp)
  CHECK_PRINT(monoid, Monoid)
  CHECK_PRINT(semiring, Semiring)
  CHECK_PRINT(sc, Scalar)
  CHECK_PRINT(vector, Vector)
  CHECK_PRINT(matrix, Matrix)
  CHECK_PRINT(descriptor, Descriptor)
  GxB_Option_Field option = GxB_FORMAT;
  const GxB_Option_Field const_option = GxB_MODE;
  const GrB_Vector const_vector = NULL;
  const GrB_Descriptor const_descriptor = NULL;
  CHECK_OPTION(GxB_FORMAT, GxB_Global_Option_get, GxB_Global_Option_set)     /* an enumerator: int */
  CHECK_OPTION(GxB_NTHREADS, GxB_Global_Option_get, GxB_Global_Option_set)   /* a #define: int */
  CHECK_OPTION(option, GxB_Global_Option_get, GxB_Global_Option_set)
  CHECK_OPTION(const_option, GxB_Global_Option_get, GxB_Global_Option_set)
  CHECK_OPTION(matrix, GxB_Matrix_Option_get, GxB_Matrix_Option_set)
  CHECK_OPTION(const_matrix, GxB_Matrix_Option_get, GxB_Matrix_Option_set)
  CHECK_OPTION(vector, GxB_Vector_Option_get, GxB_Vector_Option_set)
  CHECK_OPTION(const_vector, GxB_Vector_Option_get, GxB_Vector_Option_set)
  CHECK_OPTION(descriptor, GxB_Desc_get, GxB_Desc_set)
  CHECK_OPTION(const_descriptor, GxB_Desc_get, GxB_Desc_set)

  /* End to end, as LAGraph calls them. */
  int32_t ver[3] = {0, 0, 0};
  EXPECT(GrB_init(GrB_NONBLOCKING) == GrB_SUCCESS);
  EXPECT(GrB_get(GrB_GLOBAL, str, GrB_NAME) == GrB_SUCCESS && strcmp(str, "snack") == 0);
  EXPECT(GrB_get(GrB_GLOBAL, &(ver[0]), GrB_API_VER_MAJOR) == GrB_SUCCESS && ver[0] == 2);
  EXPECT(GrB_get(GrB_GLOBAL, &(ver[1]), GrB_API_VER_MINOR) == GrB_SUCCESS && ver[1] == 1);
  EXPECT(GrB_Matrix_new(&matrix, GrB_FP64, 3, 3) == GrB_SUCCESS);
  EXPECT(GrB_set(matrix, "graph", GrB_NAME) == GrB_SUCCESS);
  EXPECT(GrB_set(matrix, GrB_COLMAJOR, GrB_STORAGE_ORIENTATION_HINT) == GrB_SUCCESS);
  EXPECT(GrB_get(matrix, &i32, GrB_STORAGE_ORIENTATION_HINT) == GrB_SUCCESS && i32 == GrB_ROWMAJOR);
  EXPECT(GrB_get(matrix, &sz, GrB_NAME) == GrB_SUCCESS && sz == 6);
  EXPECT(GrB_get(matrix, &i32, GrB_EL_TYPE_CODE) == GrB_SUCCESS && i32 == GrB_FP64_CODE);
  EXPECT(GrB_Scalar_new(&sc, GrB_INT32) == GrB_SUCCESS);
  EXPECT(GrB_get(GrB_PLUS_FP32, sc, GrB_OUTP_TYPE_CODE) == GrB_SUCCESS);
  EXPECT(GrB_Scalar_extractElement(&i32, sc) == GrB_SUCCESS && i32 == GrB_FP32_CODE);
  EXPECT(GrB_set(GrB_GLOBAL, vp, GrB_NAME, 0) == GrB_NULL_POINTER);
  FILE *f = tmpfile();
  EXPECT(f != NULL);
  if (f != NULL) {
    EXPECT(GxB_fprint(matrix, GxB_SUMMARY, f) == GrB_SUCCESS);
    rewind(f);
    EXPECT(fgets(str, sizeof str, f) != NULL && strncmp(str, "matrix: GrB_Matrix 3 x 3", 24) == 0);
    fclose(f);
  }
  EXPECT(GxB_print(sc, 3) == GrB_SUCCESS);

  /* GxB_get / GxB_set as LAGraph 1.1.4 calls them: LAGraph_cdlp.c, test_MMRead.c, test_CheckGraph.c. */
  GxB_Format_Value A_format = -1, global_format = -1;
  EXPECT(GxB_get(matrix, GxB_FORMAT, &A_format) == GrB_SUCCESS && A_format == GxB_BY_ROW);
  EXPECT(GxB_get(GxB_FORMAT, &global_format) == GrB_SUCCESS && global_format == GxB_BY_ROW);
  char *name = NULL, *date = NULL;
  int version[3] = {-1, -1, -1};
  EXPECT(GxB_get(GxB_LIBRARY_NAME, &name) == GrB_SUCCESS && name != NULL && strcmp(name, "snack") == 0);
  EXPECT(GxB_get(GxB_LIBRARY_DATE, &date) == GrB_SUCCESS && date != NULL && date[0] != '\0');
  EXPECT(GxB_get(GxB_LIBRARY_VERSION, version) == GrB_SUCCESS && version[0] == SNK_VERSION_MAJOR &&
         version[1] == SNK_VERSION_MINOR && version[2] == SNK_VERSION_PATCH);
  EXPECT(GxB_get(GxB_API_VERSION, version) == GrB_SUCCESS && version[0] == 2 && version[1] == 1);
  GrB_Mode mode = GrB_BLOCKING;
  EXPECT(GxB_get(GxB_MODE, &mode) == GrB_SUCCESS && mode == GrB_NONBLOCKING);
  EXPECT(GxB_set(matrix, GxB_FORMAT, GxB_BY_COL) == GrB_INVALID_VALUE);
  EXPECT(GxB_set(matrix, GxB_FORMAT, GxB_BY_ROW) == GrB_SUCCESS);
  EXPECT(GxB_set(GxB_FORMAT, GxB_BY_ROW) == GrB_SUCCESS);
  EXPECT(GxB_set(GxB_BURBLE, false) == GrB_SUCCESS);
  EXPECT(GxB_set(GxB_BURBLE, true) == GrB_INVALID_VALUE);
  EXPECT(GxB_set(GxB_NTHREADS, 4) == GrB_INVALID_VALUE);
  bool burble = true;
  EXPECT(GxB_get(GxB_BURBLE, &burble) == GrB_SUCCESS && !burble);
  int sparsity = -1;
  EXPECT(GxB_get(matrix, GxB_SPARSITY_STATUS, &sparsity) == GrB_SUCCESS && sparsity == GxB_SPARSE);
  EXPECT(GxB_get(matrix, GxB_SPARSITY_CONTROL, &sparsity) == GrB_SUCCESS &&
         sparsity == GxB_HYPERSPARSE + GxB_SPARSE);
  EXPECT(GxB_set(matrix, GxB_SPARSITY_CONTROL, GxB_AUTO_SPARSITY) == GrB_SUCCESS);
  EXPECT(GxB_set(matrix, GxB_SPARSITY_CONTROL, GxB_BITMAP) == GrB_INVALID_VALUE);
  double hyper = 0;
  EXPECT(GxB_set(matrix, GxB_HYPER_SWITCH, GxB_ALWAYS_HYPER) == GrB_INVALID_VALUE);
  EXPECT(GxB_get(matrix, GxB_HYPER_SWITCH, &hyper) == GrB_INVALID_VALUE && hyper == 0);
  EXPECT(GrB_Vector_new(&vector, GrB_INT32, 5) == GrB_SUCCESS);
  EXPECT(GxB_set(vector, GxB_SPARSITY_CONTROL, GxB_SPARSE) == GrB_SUCCESS);
  EXPECT(GxB_get(vector, GxB_FORMAT, &A_format) == GrB_SUCCESS && A_format == GxB_BY_ROW);
  GrB_Desc_Value desc_value = GrB_REPLACE;
  EXPECT(GrB_Descriptor_new(&descriptor) == GrB_SUCCESS);
  EXPECT(GxB_set(descriptor, GrB_INP0, GrB_TRAN) == GrB_SUCCESS);
  EXPECT(GxB_get(descriptor, GrB_INP0, &desc_value) == GrB_SUCCESS && desc_value == GrB_TRAN);
  EXPECT(GxB_get(descriptor, GrB_OUTP, &desc_value) == GrB_SUCCESS && desc_value == GxB_DEFAULT);
  EXPECT(GxB_set(descriptor, GxB_SORT, 1) == GrB_INVALID_VALUE);
  GrB_free(&vector);
  GrB_free(&descriptor);
  GrB_free(&sc);
  GrB_free(&matrix);
  GrB_finalize();
  printf("C11 GrB_get / GrB_set / GxB_fprint / GxB_get / GxB_set: %s\n",
         failures == 0 ? "all selections and uses right" : "FAILED");
  return failures == 0 ? 0 : 1;
}
C
  if "$cc" -std=c11 -Wall -Wextra -Werror -pedantic -DSNACK_C_API -Iinclude "$work/generic.c" "$lib" \
       -Wl,-rpath,"$(dirname "$lib")" -o "$work/generic"; then
    "$work/generic" || status=1
  else
    echo "C11 GrB_get / GrB_set / GxB_fprint / GxB_get / GxB_set: the check program does not compile"
    status=1
  fi
fi
exit "$status"
