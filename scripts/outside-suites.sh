#!/usr/bin/env bash
# scripts/outside-suites.sh: runs LAGraph's own test suite (its ctest) against an installed snack, once per
# backend, and prints a summary table (LAGraph version, backend, passed/total, failing tests).
#
# It fetches nothing: pass one or more LAGraph source folders (LAGraph 1.1.x, the `stable` branch, or 1.2).
# snack is built from this repository and installed with `cmake --install` into a temporary prefix (or into
# --prefix DIR, which is kept), or an existing install is reused with SNACK_PREFIX=DIR. Each LAGraph is built
# in VANILLA mode (-DLAGRAPH_VANILLA=1, no GxB extensions expected) against snack's installed GraphBLAS.h
# and libsnack.so, then its ctest runs with SNACK_BACKEND=reference, =kokkos, and =cuda where
# `nvidia-smi -L` lists a GPU (a backend the installed library lacks is reported, not run). Progress lines
# are printed while it builds (minutes). The exit status is 1 when any backend fails any test (or a LAGraph
# does not configure), 2 on a usage error or a broken snack install.
#
# Usage: scripts/outside-suites.sh [--prefix DIR] [--work DIR] [--backends "reference kokkos cuda"]
#                                  [-j N] LAGRAPH_SRC [LAGRAPH_SRC ...]
#        scripts/outside-suites.sh --self-check   (checks the script's own log parsing; builds nothing)
#   --prefix DIR   install the snack built here into DIR (kept) instead of a temporary prefix
#   --work DIR     where the LAGraph build trees and logs go (default: a new folder from mktemp, kept and
#                  printed): lagraph-<version>/ holds configure.log, build.log, errors.txt (the distinct
#                  compile and link errors in build order) and ctest-<backend>.log (the failing tests'
#                  output)
#   --backends L   the backends to try (default: reference kokkos cuda)
#   -j N           parallel build jobs and ctest jobs (default: nproc)
# Environment: SNACK_PREFIX=DIR reuses an installed snack (nothing is built); SNACK_BUILD_DIR (default
# build-outside in this repository) and SNACK_CMAKE_ARGS (extra arguments for snack's cmake, after the
# script's own -DCMAKE_BUILD_TYPE=Release -DSNACK_BUILD_TESTS=OFF -DSNACK_BUILD_BENCH=OFF, and
# -DSNACK_ENABLE_CUDA=OFF where nvidia-smi finds no GPU, the cuda backend then not being run) for the
# build; OUTSIDE_TEST_TIMEOUT (seconds per LAGraph test, default 600).
#
# How LAGraph finds snack (LAGraph's cmake_modules/FindGraphBLAS.cmake, the same in 1.1.4 and 1.2): it first
# looks for a GraphBLASConfig.cmake (snack installs none; a SuiteSparse >= 8.2 install would be found here,
# which is why the script checks afterwards that LAGraph's cache names snack's library), then takes
# GRAPHBLAS_INCLUDE_DIR and GRAPHBLAS_LIBRARY, which this script sets in the cache so that find_path and
# find_library search nothing: <prefix>/include (snack's installed GraphBLAS.h, which defines
# SNACK_C_API_INSTALLED) and <prefix>/lib/libsnack.so. The GraphBLAS version comes from the library file's
# name after `get_filename_component(... REALPATH)`: a symlink such as libgraphblas.so.7.4.0 -> libsnack.so
# would be resolved back to libsnack's own file, so none is made. libsnack.so resolves to libsnack.so.X.Y.Z,
# whose X.Y.Z becomes GRAPHBLAS_VERSION; LAGraph uses that number only for messages and its installed
# LAGraphConfig.cmake, and VANILLA mode checks GRB_VERSION >= 2 in LAGraph.h instead. (Were the real file
# name without a version, FindGraphBLAS would read GxB_IMPLEMENTATION_* from GraphBLAS.h, which snack does
# not define, and stop with a CMake error; the script refuses such a library up front.) The test programs
# get an RPATH to <prefix>/lib from CMake, and libsnack loads its reference plugin from beside itself.
#
# LAGraph's sources are built as they are (never modified, no definitions added). LAGraph 1.1.4's VANILLA
# code uses SuiteSparse names outside its `#if LAGRAPH_SUITESPARSE` guards (bugs that 1.2 fixed), which
# snack's GraphBLAS.h provides: experimental/algorithm/LAGraph_cdlp.c tests `#ifdef LAGRAPH_SUITESPARSE`
# (defined, as 0, in VANILLA mode) and then calls GxB_get(A, GxB_FORMAT, &fmt) and GxB_get(GxB_FORMAT, &fmt)
# to require by-row storage (snack's option functions answer GxB_BY_ROW), and
# experimental/utility/LAGraph_SSaveSet.c sizes a buffer with GxB_MAX_NAME_LEN. An install of snack older
# than those, reused with SNACK_PREFIX, fails to build LAGraph_cdlp.c. Other gaps show as build errors or
# failing tests: LAGraph 1.2's experimental library (LAGraphX, which every 1.2 test program links) uses
# SuiteSparse's own operators and semirings (GxB_POW_FP32, GxB_ANY_EQ_FP64, GxB_MIN_SECONDI_INT64, ...)
# outside `#if LAGRAPH_SUITESPARSE`, which snack does not have, and the VANILLA branch of its
# experimental/utility/LAGraph_Random.c lacks a closing parenthesis (line 245), which no GraphBLAS can
# help. The build keeps going past errors, so a test whose program did not build counts as failed (ctest's
# "Not Run", listed as "not built").
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
usage() { sed -n '/^# Usage:/,/^#$/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { echo "outside-suites: $*" >&2; exit 2; }

# ---- log parsing (also exercised by --self-check) ---------------------------------------------------------
# LAGraph's version from its CMakeLists.txt: "1.1.4".
lagraph_version() {   # lagraph_version CMAKELISTS
  sed -nE 's/^ *set *\( *LAGraph_VERSION_(MAJOR|MINOR|SUB) +([0-9]+).*/\2/p' "$1" | head -3 | paste -sd.
}
# "FAILED TOTAL" from ctest's closing line ("95% tests passed, 3 tests failed out of 56"; CMake 4's ctest says
# "100% tests passed out of 56" when none failed); nothing if absent.
ctest_counts() {   # ctest_counts CTEST_LOG
  sed -nE -e 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/p' \
          -e 's/^100% tests passed out of ([0-9]+).*/0 \1/p' "$1" | tail -1
}
# One "name|reason" line per test of ctest's closing "The following tests FAILED:" list (reason: Failed,
# Not Run, Timeout, SEGFAULT, Subprocess aborted, ...).
ctest_failures() {   # ctest_failures CTEST_LOG
  sed -n '/^The following tests FAILED:/,$p' "$1" \
    | sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+) \(([^()]*)\).*/\1|\2/p'
}
# The summary's last column from ctest_failures' lines: the failing tests (with the reason where it is not
# a plain failure), then the tests whose programs were not built (named when they are few).
failure_column() {   # failure_column < name|reason lines
  local name reason ran=() notbuilt=()
  while IFS='|' read -r name reason; do
    [ -n "$name" ] || continue
    case "$reason" in
      Failed) ran+=("$name") ;;
      "Not Run") notbuilt+=("$name") ;;
      *) ran+=("$name($reason)") ;;
    esac
  done
  local out="${ran[*]:-}"
  if [ ${#notbuilt[@]} -gt 0 ]; then
    local nb="not built: ${#notbuilt[@]}"
    [ ${#notbuilt[@]} -gt 6 ] || nb="not built: ${notbuilt[*]}"
    out="${out:+$out; }$nb"
  fi
  echo "${out:--}"
}
# The distinct compile and link errors of a build log, in the order they first appear, paths shortened.
build_errors() {   # build_errors BUILD_LOG
  { grep -E 'error:|undefined reference' "$1" || true; } | sed -E 's#^.*/(src|experimental|include)/#\1/#' \
    | awk '!seen[$0]++'
}
# The sources (or programs) whose build step failed, from ninja's "FAILED:" or make's "*** [...]" lines.
failed_steps() {   # failed_steps BUILD_LOG
  { sed -nE 's/^FAILED: ([^ ]+).*/\1/p' "$1"; sed -nE 's/^make.*\*\*\* \[[^]]*: ([^]]+)\] Error.*/\1/p' "$1"; } \
    | sed -E 's#CMakeFiles/[^/]+\.dir/##; s#\.(c|cpp)\.o$#.\1#' | sort -u
}

self_check() {
  local t fails=0
  t="$(mktemp -d)"
  printf 'set ( LAGraph_DATE "x" )\nset ( LAGraph_VERSION_MAJOR 1 CACHE STRING "" FORCE )\nset ( LAGraph_VERSION_MINOR 2 CACHE STRING "" FORCE )\nset ( LAGraph_VERSION_SUB   0 CACHE STRING "" FORCE )\n' >"$t/CMakeLists.txt"
  cat >"$t/ctest.log" <<'LOG'
 1/5 Test  #1: LAGraph_Betweenness .................***Failed    0.09 sec
20% tests passed, 4 tests failed out of 5

Total Test time (real) =  50.20 sec

The following tests FAILED:
	  1 - LAGraph_Betweenness (Failed)
	  8 - LAGraph_ConnectedComponents (Timeout)
	 17 - LAGraphX_cdlp (Not Run)
	 18 - LAGraphX_dnn (Not Run)
Errors while running CTest
LOG
  cat >"$t/build.log" <<'LOG'
[1/3] Building C object experimental/CMakeFiles/LAGraphX.dir/utility/LAGraph_Random.c.o
FAILED: experimental/CMakeFiles/LAGraphX.dir/utility/LAGraph_Random.c.o
/tmp/x/experimental/utility/LAGraph_Random.c:245:13: error: 'GRB_TRY' undeclared
FAILED: experimental/CMakeFiles/LAGraphX_static.dir/utility/LAGraph_Random.c.o
/tmp/x/experimental/utility/LAGraph_Random.c:245:13: error: 'GRB_TRY' undeclared
make[2]: *** [src/test/CMakeFiles/test_BF.dir/build.make:76: src/test/test_BF] Error 1
LOG
  check() {
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAILED: $1: got [$2], want [$3]"; fails=$((fails + 1)); fi
  }
  check "version" "$(lagraph_version "$t/CMakeLists.txt")" "1.2.0"
  check "counts" "$(ctest_counts "$t/ctest.log")" "4 5"
  printf '56/56 Test  #2: LAGraph_BreadthFirstSearch ..........   Passed   50.36 sec\n\n100%% tests passed out of 56\n' \
    >"$t/ctest4.log"
  check "counts, CMake 4 with no failure" "$(ctest_counts "$t/ctest4.log")" "0 56"
  printf '100%% tests passed, 0 tests failed out of 56\n' >"$t/ctest3.log"
  check "counts, CMake 3 with no failure" "$(ctest_counts "$t/ctest3.log")" "0 56"
  check "failure column" "$(ctest_failures "$t/ctest.log" | failure_column)" \
    "LAGraph_Betweenness LAGraph_ConnectedComponents(Timeout); not built: LAGraphX_cdlp LAGraphX_dnn"
  check "no failures" "$(printf '' | failure_column)" "-"
  check "build errors" "$(build_errors "$t/build.log")" \
    "experimental/utility/LAGraph_Random.c:245:13: error: 'GRB_TRY' undeclared"
  check "failed steps" "$(failed_steps "$t/build.log" | paste -sd' ')" \
    "experimental/utility/LAGraph_Random.c src/test/test_BF"
  rm -rf "$t"
  if [ "$fails" -eq 0 ]; then echo "self-check passed"; else echo "self-check: $fails failed"; return 1; fi
}

# ---- arguments --------------------------------------------------------------------------------------------
prefix_arg="" work="" backends="reference kokkos cuda" jobs="$(nproc 2>/dev/null || echo 2)"
sources=()
while [ $# -gt 0 ]; do
  case "$1" in
    --self-check) self_check; exit $? ;;
    --prefix) prefix_arg="${2:?--prefix needs a folder}"; shift 2 ;;
    --work) work="${2:?--work needs a folder}"; shift 2 ;;
    --backends) backends="${2:?--backends needs a list}"; shift 2 ;;
    -j) jobs="${2:?-j needs a number}"; shift 2 ;;
    -j*) jobs="${1#-j}"; shift ;;
    -h|--help) usage ;;
    -*) echo "unknown option: $1" >&2; usage ;;
    *) sources+=("$1"); shift ;;
  esac
done
[ ${#sources[@]} -gt 0 ] || usage
timeout_s="${OUTSIDE_TEST_TIMEOUT:-600}"

for s in "${sources[@]}"; do
  if ! [ -f "$s/CMakeLists.txt" ] || ! [ -f "$s/include/LAGraph.h" ]; then die "$s is not a LAGraph source folder"; fi
done
if [ -z "$work" ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/outside-suites.XXXXXX")"
fi
mkdir -p "$work"
work="$(cd "$work" && pwd)"
say "work folder (builds and logs): $work"

generator=()
keep_going=(-k)
if command -v ninja >/dev/null; then generator=(-G Ninja); keep_going=(-k 0); fi
gpu=""
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then gpu=yes; fi

# Runs "$@" with its output in LOG, printing a progress line every 30 s (the last [n/N] or [ n%] build step,
# or the last n/N test).
run_logged() {   # run_logged LOG LABEL COMMAND...
  local log="$1" label="$2"; shift 2
  "$@" >"$log" 2>&1 &
  local pid=$! rc=0 waited=0 step
  while kill -0 "$pid" 2>/dev/null; do
    sleep 2; waited=$((waited + 2))
    if [ $((waited % 30)) -eq 0 ]; then
      step="$(grep -oE '^\[ *[0-9]+(/[0-9]+|%)\]|^ *[0-9]+/[0-9]+ Test' "$log" | tail -1 | sed 's/ Test$/ tests/' || true)"
      say "  $label: ${step:-running} (${waited} s)"
    fi
  done
  wait "$pid" || rc=$?
  return "$rc"
}

# ---- snack ------------------------------------------------------------------------------------------------
if [ -n "${SNACK_PREFIX:-}" ]; then
  prefix="$(cd "$SNACK_PREFIX" && pwd)"
  say "snack: reusing the install at $prefix"
else
  prefix="${prefix_arg:-$work/snack-prefix}"
  mkdir -p "$prefix"
  prefix="$(cd "$prefix" && pwd)"
  build="${SNACK_BUILD_DIR:-$root/build-outside}"
  args=(-DCMAKE_BUILD_TYPE=Release -DSNACK_BUILD_TESTS=OFF -DSNACK_BUILD_BENCH=OFF)
  [ -n "$gpu" ] || args+=(-DSNACK_ENABLE_CUDA=OFF)
  # shellcheck disable=SC2206  # SNACK_CMAKE_ARGS is a list of words on purpose
  [ -z "${SNACK_CMAKE_ARGS:-}" ] || args+=(${SNACK_CMAKE_ARGS})
  [ -f "$build/CMakeCache.txt" ] || args=("${generator[@]}" "${args[@]}")
  say "snack: configuring $build (${args[*]})"
  cmake -S "$root" -B "$build" "${args[@]}" >"$work/snack-configure.log" 2>&1 \
    || { tail -30 "$work/snack-configure.log"; die "snack's configure failed (log: $work/snack-configure.log)"; }
  # The library and the backend plugins built here (reference, cuda): what `cmake --install` installs.
  targets=(snack)
  for plugin in snack_reference snack_cuda; do
    if cmake --build "$build" --target help 2>/dev/null | grep -qE "(^|[ .])$plugin(:|\$)"; then
      targets+=("$plugin")
    fi
  done
  say "snack: building ${targets[*]} (log: $work/snack-build.log)"
  run_logged "$work/snack-build.log" "snack build" cmake --build "$build" --parallel "$jobs" --target "${targets[@]}" \
    || { tail -30 "$work/snack-build.log"; die "snack's build failed (log: $work/snack-build.log)"; }
  cmake --install "$build" --prefix "$prefix" >"$work/snack-install.log" 2>&1 \
    || { tail -30 "$work/snack-install.log"; die "cmake --install failed (log: $work/snack-install.log)"; }
  say "snack: installed into $prefix"
fi
header="$prefix/include/GraphBLAS.h"
grep -q SNACK_C_API_INSTALLED "$header" 2>/dev/null || die "$header is not snack's installed GraphBLAS.h"
lib="$(find "$prefix" -maxdepth 3 -name libsnack.so | head -1)"
[ -n "$lib" ] || die "no libsnack.so under $prefix"
real="$(basename "$(readlink -f "$lib")")"
[[ "$real" =~ [0-9]+\.[0-9]+\.[0-9]+ ]] || die "$lib resolves to $real, a name without a version, which LAGraph's FindGraphBLAS cannot use"

# A probe built against the install: the backends compiled in, and which one SNACK_BACKEND=x really gives.
probe="$work/snack-probe"
cat >"$work/snack-probe.c" <<'PROBE'
#include <GraphBLAS.h>
int main(void) {
  char list[256] = "", current[64] = "";
  if (GrB_init(GrB_NONBLOCKING) != GrB_SUCCESS) return 1;
  SNK_Backend_list(list, sizeof list);
  SNK_Backend_get(current, sizeof current);
  printf("%s|%s\n", list, current);
  GrB_finalize();
  return 0;
}
PROBE
cc -std=c11 -I"$prefix/include" "$work/snack-probe.c" "$lib" -Wl,-rpath,"$(dirname "$lib")" -o "$probe" \
  || die "cannot build a program against $prefix"
compiled="$("$probe" | cut -d'|' -f1 | tr -d ' ')"
say "snack: library $lib ($real), backends compiled in: $compiled"

# ---- LAGraph ----------------------------------------------------------------------------------------------
export OMP_PROC_BIND="${OMP_PROC_BIND:-false}"   # Kokkos' OpenMP start-up warns on stdout without it
rows=()        # "version|backend|passed/total|failing tests"
notes=()
status=0

for src in "${sources[@]}"; do
  src="$(cd "$src" && pwd)"
  version="$(lagraph_version "$src/CMakeLists.txt")"
  version="${version:-unknown}"
  tree="$work/lagraph-$version"
  n=1; while [ -e "$tree/.used" ]; do n=$((n + 1)); tree="$work/lagraph-$version-$n"; done
  [ "$n" -eq 1 ] || version="$version-$n"
  mkdir -p "$tree"; : >"$tree/.used"
  say "LAGraph $version ($src): build tree $tree"

  say "LAGraph $version: configuring (VANILLA, against $lib)"
  if ! cmake -S "$src" -B "$tree/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DLAGRAPH_VANILLA=1 \
        -DGRAPHBLAS_INCLUDE_DIR="$prefix/include" -DGRAPHBLAS_LIBRARY="$lib" >"$tree/configure.log" 2>&1; then
    tail -20 "$tree/configure.log"
    rows+=("$version|all|-|configure failed: $tree/configure.log"); status=1; continue
  fi
  found="$(sed -n 's/^GRAPHBLAS_LIBRARY:[A-Z]*=//p' "$tree/build/CMakeCache.txt")"
  if [ "$(readlink -f "$found")" != "$(readlink -f "$lib")" ] || grep -q '^GraphBLAS_DIR:PATH=/' "$tree/build/CMakeCache.txt"; then
    rows+=("$version|all|-|configure found another GraphBLAS: ${found:-a GraphBLASConfig.cmake}"); status=1; continue
  fi
  say "LAGraph $version: building (log: $tree/build.log)"
  build_ok=yes
  run_logged "$tree/build.log" "LAGraph $version build" \
    cmake --build "$tree/build" --parallel "$jobs" -- "${keep_going[@]}" || build_ok=no
  build_errors "$tree/build.log" >"$tree/errors.txt"
  if [ "$build_ok" = no ]; then
    mapfile -t steps < <(failed_steps "$tree/build.log")
    say "LAGraph $version: the build had errors (it kept going past them); failed: ${steps[*]:-?}"
    say "LAGraph $version: first errors (all $(wc -l <"$tree/errors.txt") distinct ones in $tree/errors.txt):"
    head -12 "$tree/errors.txt" | sed 's/^/    /'
    notes+=("LAGraph $version: build failed for ${#steps[@]} file(s): ${steps[*]:-?}; first error: $(head -1 "$tree/errors.txt")")
  fi
  # Every test program must run on snack, never on another GraphBLAS.
  for exe in "$tree"/build/src/test/test_* "$tree"/build/experimental/test/test_*; do
    [ -x "$exe" ] || continue
    if readelf -d "$exe" | grep -q 'libgraphblas'; then
      die "$exe needs libgraphblas: LAGraph did not build against snack"
    fi
    break
  done

  for backend in $backends; do
    if [ "$backend" = cuda ] && [ -z "$gpu" ]; then
      rows+=("$version|cuda|skipped|nvidia-smi -L finds no GPU"); continue
    fi
    if ! [[ ",$compiled," == *",$backend,"* ]]; then
      rows+=("$version|$backend|skipped|not compiled into $real"); continue
    fi
    got="$(SNACK_BACKEND="$backend" "$probe" 2>/dev/null | cut -d'|' -f2)"
    if [ "$got" != "$backend" ]; then
      rows+=("$version|$backend|skipped|SNACK_BACKEND=$backend gives '$got'"); status=1; continue
    fi
    log="$tree/ctest-$backend.log"
    say "LAGraph $version: ctest with SNACK_BACKEND=$backend (log: $log)"
    SNACK_BACKEND="$backend" run_logged "$log" "LAGraph $version ctest $backend" \
      ctest --test-dir "$tree/build" --output-on-failure --timeout "$timeout_s" -j "$jobs" || true
    counts="$(ctest_counts "$log")"
    if [ -z "$counts" ]; then
      rows+=("$version|$backend|-|ctest did not finish: $log"); status=1; continue
    fi
    read -r nfailed total <<<"$counts"
    say "LAGraph $version, $backend: $((total - nfailed))/$total passed"
    if [ "$nfailed" -ne 0 ] || [ "$total" -eq 0 ]; then status=1; fi
    rows+=("$version|$backend|$((total - nfailed))/$total|$(ctest_failures "$log" | failure_column)")
  done
done

# ---- summary ----------------------------------------------------------------------------------------------
echo
echo "== LAGraph's test suites against snack ($real in $prefix) =="
printf '%-8s %-10s %-9s %s\n' LAGraph backend passed "failing tests"
for r in "${rows[@]}"; do
  IFS='|' read -r v b p f <<<"$r"
  printf '%-8s %-10s %-9s %s\n' "$v" "$b" "$p" "${f:--}"
done
for note in "${notes[@]}"; do echo "note: $note"; done
echo "logs: $work (lagraph-<version>/: build.log, errors.txt, ctest-<backend>.log)"
exit "$status"
