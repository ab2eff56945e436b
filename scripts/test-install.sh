#!/usr/bin/env bash
# scripts/test-install.sh: installs a built snack into a temporary prefix and builds examples against it,
# as a user would: with CMake (find_package(snack), target snack::snack; examples/install-test/) and with
# pkg-config (snack.pc). Runs the programs and checks that the installed header is snack's, that no program
# needs libgraphblas (ldd), and that a GxB_ function snack lacks fails to link.
# Usage: scripts/test-install.sh BUILD_DIR   (SNACK_INSTALL_TEST_FLAGS: extra compile and link flags for
# the user programs, e.g. the sanitizer flags when the library itself was built with them)
set -euo pipefail
flags=${SNACK_INSTALL_TEST_FLAGS:-}
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
echo "installed: $(cd "$tmp/prefix" && find . -type f | grep -v 'include/snack/' | sort | tr '\n' ' ')"
grep -q "SNACK_C_API_INSTALLED" "$tmp/prefix/include/GraphBLAS.h"
cmake -S "$root/examples/install-test" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$tmp/build" >/dev/null
"$tmp/build/bfs" --rmat 6 8 1 | head -3
"$tmp/build/triangle_count" --rmat 6 8 1
# the reference backend's plugin loads from the installed prefix and agrees
a=$("$tmp/build/triangle_count" --rmat 6 8 1)
b=$(SNACK_BACKEND=reference "$tmp/build/triangle_count" --rmat 6 8 1 2>&1)
[ "$a" = "$b" ] || { echo "FAIL: reference backend from the installed plugin: '$b' against '$a'" >&2; exit 1; }
# The executables must use snack's symbols, not SuiteSparse's, and SuiteSparse (private to the reference
# backend's plugin, libsnack_reference.so) must not be among a program's libraries.
nm -D "$tmp/build/bfs" | grep -q " U snk_GrB_vxm"
test -f "$tmp/prefix/lib/libsnack_reference.so" || test -f "$tmp/prefix/lib64/libsnack_reference.so"
echo "ldd bfs:"
ldd "$tmp/build/bfs" | sed 's/^/  /'
if ldd "$tmp/build/bfs" | grep -q libgraphblas; then echo "FAIL: bfs needs libgraphblas" >&2; exit 1; fi
# A GxB_ function snack does not provide must fail to link (it once bound to SuiteSparse at run time).
cat >"$tmp/stray.c" <<'EOF2'
#include <GraphBLAS.h>
GrB_Info GxB_Matrix_subassign(GrB_Matrix, GrB_Matrix, GrB_BinaryOp, GrB_Matrix, const GrB_Index *, GrB_Index,
                              const GrB_Index *, GrB_Index, GrB_Descriptor);
int main(void) { return (int)GxB_Matrix_subassign(NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL); }
EOF2
libdir=$(dirname "$(find "$tmp/prefix" -name 'libsnack.so' | head -1)")
if cc -std=c11 $flags -I"$tmp/prefix/include" "$tmp/stray.c" -L"$libdir" -lsnack -o "$tmp/stray" 2>"$tmp/stray.err"; then
  echo "FAIL: a program calling GxB_Matrix_subassign linked against libsnack" >&2
  exit 1
fi
grep -q "undefined reference to .GxB_Matrix_subassign" "$tmp/stray.err"
echo "stray GxB_ call: link fails ($(grep -o "undefined reference to .GxB_Matrix_subassign." "$tmp/stray.err" | head -1))"
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib64/pkgconfig"
  cc -std=c11 $flags -I"$root/examples" "$root/examples/connected_components.c" $(pkg-config --cflags --libs snack) \
    -Wl,-rpath,"$tmp/prefix/lib" -lm -o "$tmp/cc"
  "$tmp/cc" --rmat 6 8 1 | head -1
  echo "pkg-config: $(pkg-config --modversion snack)"
else
  echo "pkg-config not found: snack.pc not checked"
fi
echo "installed package OK"
