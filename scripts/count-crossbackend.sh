#!/usr/bin/env bash
# scripts/count-crossbackend.sh: runs the cross-backend suite (ctest label "crossbackend") of a build folder
# and prints ctest's summary line together with the total number of cross-backend cases, which each test
# process prints as "cross-backend cases: N" (tests/core/crossbackend/crossbackend.cpp).
#   scripts/count-crossbackend.sh [build-dir] [extra ctest arguments...]   (default build-dir: build)
#   ctest -V ... | scripts/count-crossbackend.sh -                         (sum a log read from stdin)
set -euo pipefail

sum_cases() {
  grep -o 'cross-backend cases: [0-9]*' | awk '{ n += $3; t += 1 } END { printf "cross-backend cases: %d (in %d test processes)\n", n, t }'
}

if [[ "${1:-}" == "-" ]]; then
  tee /dev/stderr | sum_cases
  exit 0
fi

build_dir="${1:-build}"
shift || true
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
ctest --test-dir "$build_dir" -L crossbackend -V "$@" > "$log" 2>&1 || status=$?
grep -E '^[0-9]+% tests passed|tests failed out of|^Total Test time' "$log" || true
grep -E '^\s+[0-9]+ - .*\((Failed|SEGFAULT|Timeout|Subprocess aborted|Exception)' "$log" || true
sum_cases < "$log"
exit "$status"
