#!/usr/bin/env bash
# scripts/run-gpu-tests.sh: runs on a GPU machine, after scripts/build-gpu.sh built the binaries (here or
# elsewhere). Runs every GPU test program in <build>/gpu-tests/ (each GoogleTest binary that any part of
# the project registers with the `gpu` CTest label lands there), then runs each again under
# compute-sanitizer memcheck, and prints a summary: one line per program, the totals last.
# Environment: BUILD_DIR (default build-gpu), LOG_DIR (default <build>/gpu-test-logs),
# SANITIZER_FILTER (a --gtest_filter for the memcheck pass; default: every test; a program none of whose tests
# match it is listed as skipped).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build-gpu}
DIR="$BUILD/gpu-tests"
LOGS=${LOG_DIR:-$BUILD/gpu-test-logs}
mkdir -p "$LOGS"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
shopt -s nullglob
progs=("$DIR"/*)
if ((${#progs[@]} == 0)); then echo "run-gpu-tests: no test programs in $DIR (run scripts/build-gpu.sh first)"; exit 1; fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
summary=()
fail=0
for p in "${progs[@]}"; do
  [ -x "$p" ] || continue
  name=$(basename "$p")
  "$p" >"$LOGS/$name.log" 2>&1
  rc=$?
  line=$(grep -E '^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \]' "$LOGS/$name.log" | tr '\n' ' ')
  summary+=("test      $name: rc=$rc $line")
  ((rc == 0)) || fail=1
  if [ -x "$SAN" ]; then
    filter=()
    [ -n "${SANITIZER_FILTER:-}" ] && filter=(--gtest_filter="$SANITIZER_FILTER")
    # A filter aimed at other programs' tests matches none here: say so instead of running an empty program
    # under the sanitizer (which exits non-zero before any CUDA call).
    if ((${#filter[@]})) && ! "$p" --gtest_list_tests "${filter[@]}" 2>/dev/null | grep -q '^  '; then
      summary+=("memcheck  $name: skipped, no test matches ${filter[*]}")
      continue
    fi
    "$SAN" --tool memcheck --leak-check full --error-exitcode 99 "$p" "${filter[@]}" >"$LOGS/$name.memcheck.log" 2>&1
    src=$?
    sline=$(grep -E 'ERROR SUMMARY' "$LOGS/$name.memcheck.log" | tail -1)
    summary+=("memcheck  $name: rc=$src ${sline:-no summary line} ${filter[*]}")
    ((src == 0)) || fail=1
  else
    summary+=("memcheck  $name: compute-sanitizer not found")
  fi
done
echo "==== GPU test summary ===="
printf '%s\n' "${summary[@]}"
if ((fail)); then echo "RESULT: FAILED"; exit 1; fi
echo "RESULT: all GPU test programs passed, memcheck clean"
