#!/usr/bin/env bash
# scripts/racecheck-by-kernel.sh: compute-sanitizer racecheck over a GPU test program, one kernel family at a time.
#
# racecheck instruments every shared-memory access of every kernel it checks; over a whole test program whose host
# references are large (spmm_gpu_test, spdnn_fused_gpu_test) it does not finish in the GPU machine's time. Here each
# family (a substring of the kernels' mangled names) is checked in a process of its own, the program's other kernels
# running uninstrumented (--kernel-name kns=FAMILY), for at most LAUNCHES launches of the family (default 200), the
# processes JOBS at a time (default 8), each stopped after TIMEOUT seconds (default 300). A family whose name is in
# neither the program nor a library of $SNACK_PLUGINS is reported as matching no kernel, so a misspelt family cannot
# pass unseen (a kernel that exists but that the tests never launch is not detected).
# Usage: scripts/racecheck-by-kernel.sh PROGRAM LOG_DIR FAMILY... (environment: LAUNCHES, JOBS, TIMEOUT,
# COMPUTE_SANITIZER, PROGRAM_ARGS: arguments for the program, such as a --gtest_filter)
# Prints one line per family: the program's test summary, racecheck's summary line, its status and the races it
# listed; exits 1 where a family reported an error, was stopped or matched no kernel.
set -uo pipefail
prog=$1 logs=$2
shift 2
SAN=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
LAUNCHES=${LAUNCHES:-200} JOBS=${JOBS:-8} TIMEOUT=${TIMEOUT:-300}
mkdir -p "$logs"
name=$(basename "$prog")
one() {
  local fam=$1 log="$logs/$name.$1.racecheck.log"
  timeout "$TIMEOUT" "$SAN" --tool racecheck --error-exitcode 99 --print-limit 20 --kernel-name "kns=$fam" \
    --launch-count "$LAUNCHES" "$prog" ${PROGRAM_ARGS:-} >"$log" 2>&1
  echo "rc=$?" >>"$log"
}
# The binaries a family's kernels can live in: the program and the plugins it loads.
binaries=("$prog")
[ -n "${SNACK_PLUGINS:-}" ] && binaries+=("$SNACK_PLUGINS"/*.so)
known() { grep -qaF -- "$1" "${binaries[@]}" 2>/dev/null; }
for fam in "$@"; do
  known "$fam" || continue
  while (($(jobs -rp | wc -l) >= JOBS)); do sleep 1; done
  one "$fam" &
done
wait
status=0
for fam in "$@"; do
  if ! known "$fam"; then
    printf '%-26s matches no kernel of %s\n' "$fam" "${binaries[*]}"
    status=1
    continue
  fi
  log="$logs/$name.$fam.racecheck.log"
  tests=$(grep -E '^\[  (PASSED|FAILED) *\]' "$log" | tr '\n' ' ')
  summary=$(grep -E 'RACECHECK SUMMARY' "$log" | sed 's/=* *//')
  rc=$(grep -E '^rc=' "$log" | tail -1)
  case $rc in rc=124) tests="stopped at ${TIMEOUT}s" ;; esac
  [[ $rc == rc=0 ]] || status=1
  printf '%-26s %-22s %s %s %s\n' "$fam" "$tests" "${summary:-no summary}" "$rc" \
    "$(grep -cE 'Race reported' "$log") races listed"
done
exit $status
