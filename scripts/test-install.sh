#!/usr/bin/env bash
# scripts/test-install.sh: installs a built snack into a temporary prefix and builds examples against it,
# as a user would: with CMake (find_package(snack), target snack::snack; examples/install-test/) and with
# pkg-config (snack.pc). Runs the programs and checks that the installed header is snack's.
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
# The executables must use snack's symbols, not SuiteSparse's.
nm -D "$tmp/build/bfs" | grep -q " U snk_GrB_vxm"
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
