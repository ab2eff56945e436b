#!/usr/bin/env bash
# scripts/conformance.sh: snack's C API against SuiteSparse:GraphBLAS, program by program.
#
# Each example of examples/ is built twice (example_<name> against snack, example_<name>_suitesparse
# against SuiteSparse's own GraphBLAS.h and libgraphblas). This runs both on the same inputs: R-MAT graphs
# generated in memory from a seed, and the MatrixMarket files those runs write (so the file reader path is
# covered too), plus SpDNN networks from a seed; then compares the outputs: exactly for every example but
# PageRank, which must agree to a relative 1e-9 per vertex (its sums are floating-point and their order is
# an implementation's choice). Prints one line per comparison and a summary; exits 1 on any difference.
# Usage: scripts/conformance.sh EXAMPLES_BUILD_DIR [backend ...]   (backends for snack via SNACK_BACKEND;
# default: the library's default choice)
set -uo pipefail
bin="$(cd "${1:?usage: $0 EXAMPLES_BUILD_DIR [backend ...]}" && pwd)"
shift
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=("")
# Kokkos' OpenMP start-up prints a warning on standard output unless OMP_PROC_BIND is set.
export OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pass=0
fail=0

compare() {   # compare NAME SUITESPARSE_OUT SNACK_OUT
  local name="$1" a="$2" b="$3"
  if [ "$name" = pagerank ]; then
    /usr/bin/python3 - "$a" "$b" <<'PY'
import sys
a = [l.split() for l in open(sys.argv[1])]
b = [l.split() for l in open(sys.argv[2])]
if len(a) != len(b) or not a:
    sys.exit(1)
worst = 0.0
for x, y in zip(a, b):
    if x[0] != y[0]:
        sys.exit(1)
    rx, ry = float(x[1]), float(y[1])
    worst = max(worst, abs(rx - ry) / max(abs(rx), 1e-300))
print(f"max relative difference {worst:.2e}", end="")
sys.exit(0 if worst <= 1e-9 else 1)
PY
  else
    cmp -s "$a" "$b" && printf "identical"
  fi
}

run_case() {   # run_case NAME LABEL ARGS...
  local name="$1" label="$2"
  shift 2
  local ss="$work/$name.$label.suitesparse" sn="$work/$name.$label.snack"
  if ! "$bin/example_${name}_suitesparse" "$@" > "$ss" 2>"$ss.err"; then
    echo "FAIL $name $label: SuiteSparse run failed: $(head -c 300 "$ss.err")"; fail=$((fail + 1)); return
  fi
  for backend in "${backends[@]}"; do
    local tag="${backend:-default}"
    if ! SNACK_BACKEND="$backend" "$bin/example_${name}" "$@" > "$sn.$tag" 2>"$sn.$tag.err"; then
      echo "FAIL $name $label [$tag]: snack run failed: $(head -c 300 "$sn.$tag.err")"; fail=$((fail + 1)); continue
    fi
    local verdict
    if verdict=$(compare "$name" "$ss" "$sn.$tag"); then
      echo "ok   $name $label [$tag]: $verdict ($(wc -l < "$ss") lines; $(head -1 "$ss" | cut -c1-40))"
      pass=$((pass + 1))
    else
      echo "FAIL $name $label [$tag]: outputs differ $verdict"
      diff "$ss" "$sn.$tag" | head -5
      fail=$((fail + 1))
    fi
  done
}

[ -n "${backends[0]}" ] && echo "snack backends: ${backends[*]}"
for spec in "8 8 1" "10 16 2" "12 16 3" "13 8 4"; do
  set -- $spec
  label="rmat-s$1-e$2-seed$3"
  mtx="$work/$label.mtx"
  "$bin/example_bfs_suitesparse" --rmat "$1" "$2" "$3" --write-mtx "$mtx" > /dev/null
  for name in bfs pagerank triangle_count connected_components; do
    run_case "$name" "$label" --rmat "$1" "$2" "$3"
    run_case "$name" "$label.mtx" "$mtx"
  done
done
for spec in "256 6 8 64 1" "1024 12 16 256 2" "4096 8 32 128 3"; do
  set -- $spec
  run_case spdnn "n$1-l$2-c$3-b$4-seed$5" "$@"
done
echo "conformance: $pass identical to SuiteSparse, $fail different"
[ "$fail" -eq 0 ]
