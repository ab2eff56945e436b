#!/usr/bin/env bash
# tests/scripts/test_run_gpu_tests.sh: checks the summary that scripts/run-gpu-tests.sh prints, without a GPU, by
# running it over folders of fake test programs (shell scripts that print GoogleTest's totals) and a fake
# compute-sanitizer: the per-program counts, the RESULT line and the exit status for programs that pass, fail, skip
# everything, or fail only under the sanitizer; no "memcheck clean" where no sanitizer ran or only racecheck was asked
# for; the default official-data cache (build/gc/official-1024-120.bin) handed to the programs as SNACK_GC_CACHE
# unless the caller set one, and the build's embedded-mode compiler likewise as SNACK_EMBEDDED_COMPILER; the tiled
# engine tests' cache folder (SNACK_TILED_TEST_CACHE) under the logs unless the caller set one; with
# SANITIZER_JOBS, one sanitizer process per test (typed suites' names included), their summaries summed, the slots
# shared by every program's processes, and a process stopped by SANITIZER_TIMEOUT failing the run; the conformance
# harness on cuda where the examples' two forms are built (fake examples), skipped with a reason where not; racecheck
# one kernel family per process for the programs SANITIZER_BY_KERNEL names, and per test with RACECHECK_LAUNCHES'
# cap; the sanitizer passes alone (PLAIN_RUN=0). Usage:
# test_run_gpu_tests.sh path/to/run-gpu-tests.sh
set -uo pipefail
RUNNER=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
check() {   # check NAME CONDITION-STATUS: report one expectation
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}

# fake PROGRAM-PATH PASSED SKIPPED FAILED: a program printing GoogleTest's totals (exit 1 where a test failed).
# It also prints the SNACK_GC_CACHE and SNACK_EMBEDDED_COMPILER it was given and, asked for its list of tests, two: one of a typed suite.
fake() {
  cat >"$1" <<PROG
#!/usr/bin/env bash
if [ "\${1:-}" = --gtest_list_tests ]; then printf 'Suite.\n  Case\nTyped/0.  # TypeParam = int\n  Other\n'; exit 0; fi
echo "cache=\${SNACK_GC_CACHE:-none}"
echo "compiler=\${SNACK_EMBEDDED_COMPILER:-none}"
echo "tiled-cache=\${SNACK_TILED_TEST_CACHE:-none}"
if [ $3 -gt 0 ] && [ $2 -eq 0 ]; then echo "/src/t.cpp:10: Skipped"; echo "no CUDA device here"; fi
echo "[  PASSED  ] $2 test$([ $2 -eq 1 ] || echo s)."
[ $3 -gt 0 ] && echo "[  SKIPPED ] $3 test$([ $3 -eq 1 ] || echo s), listed below:"
[ $4 -gt 0 ] && { echo "[  FAILED  ] $4 test$([ $4 -eq 1 ] || echo s), listed below:"; exit 1; }
exit 0
PROG
  chmod +x "$1"
}
# A fake sanitizer: prints its arguments, sleeps SAN_SLEEP seconds, runs the program, then prints the summary line;
# with SAN_ERRORS > 0 it reports that many errors and exits 99 as --error-exitcode 99 asks.
SAN="$WORK/compute-sanitizer"
cat >"$SAN" <<'SANEOF'
#!/usr/bin/env bash
echo "ran: $*"
sleep "${SAN_SLEEP:-0}"
while [ "${1:0:2}" = -- ]; do shift 2; done   # --tool memcheck --leak-check full --error-exitcode 99
prog=$1; shift
"$prog" "$@" >/dev/null; rc=$?
echo "========= ERROR SUMMARY: ${SAN_ERRORS:-0} errors"
[ "${SAN_ERRORS:-0}" -gt 0 ] && exit 99
exit $rc
SANEOF
chmod +x "$SAN"

programs() {   # programs CASE NAME:PASSED:SKIPPED:FAILED...: a build folder $WORK/CASE of fake programs
  local c=$1; shift
  mkdir -p "$WORK/$c/gpu-tests"
  for spec in "$@"; do IFS=: read -r n a b f <<<"$spec"; fake "$WORK/$c/gpu-tests/$n" "$a" "$b" "$f"; done
}
run() {   # run CASE [env...]: the runner over $WORK/CASE, output in $WORK/CASE.out, status in $WORK/CASE.rc
  local c=$1; shift
  env "$@" BUILD_DIR="$WORK/$c" bash "$RUNNER" >"$WORK/$c.out" 2>&1
  echo $? >"$WORK/$c.rc"
}
has() { grep -qF -- "$2" "$WORK/$1.out"; }

# 1. Two programs pass (one with a skipped test), under the sanitizer.
programs pass a_test:3:0:0 b_test:1:1:0
run pass COMPUTE_SANITIZER="$SAN"
check "passing programs: status 0" "$(cat "$WORK/pass.rc")"
has pass "test      a_test: rc=0, 3 passed, 0 skipped, 0 failed"; check "passing programs: a_test's counts" $?
has pass "test      b_test: rc=0, 1 passed, 1 skipped, 0 failed"; check "passing programs: b_test's counts" $?
has pass "RESULT: all GPU test programs passed (4 tests), memcheck clean"; check "passing programs: RESULT line" $?
has pass "racecheck a_test: rc=0"; check "passing programs: racecheck ran too" $?
has pass "racecheck without errors"; check "passing programs: RESULT line names racecheck" $?

# 2. The same without a sanitizer: passed, and memcheck not claimed.
run pass COMPUTE_SANITIZER="$WORK/no-such-sanitizer"
check "no sanitizer: status 0" "$(cat "$WORK/pass.rc")"
has pass "memcheck not run"; check "no sanitizer: says memcheck did not run" $?
! has pass "memcheck clean"; check "no sanitizer: does not claim memcheck clean" $?

# 2b. racecheck alone: memcheck named as not requested, not as missing or clean.
run pass COMPUTE_SANITIZER="$SAN" SANITIZER_TOOLS=racecheck
check "racecheck alone: status 0" "$(cat "$WORK/pass.rc")"
has pass "memcheck not requested (SANITIZER_TOOLS), racecheck without errors"; check "racecheck alone: RESULT line" $?
! has pass "memcheck clean"; check "racecheck alone: does not claim memcheck clean" $?

# 2c. The conformance harness on cuda: skipped (said so) without the examples' SuiteSparse forms; with fake examples
# whose snack form prints what SuiteSparse's does, run and passed; with one that differs, the run fails.
has pass "conformance cuda: skipped, no example_*_suitesparse"; check "no examples: conformance skipped, said so" $?
examples() {   # examples CASE SNACK-OUTPUT: fake example programs in $WORK/CASE/examples, SuiteSparse's printing "1 0.5"
  mkdir -p "$WORK/$1/examples"
  for n in bfs pagerank triangle_count connected_components spdnn; do
    printf '#!/usr/bin/env bash\necho "1 0.5"\n' >"$WORK/$1/examples/example_${n}_suitesparse"
    printf '#!/usr/bin/env bash\necho "%s"\n' "$2" >"$WORK/$1/examples/example_${n}"
    chmod +x "$WORK/$1/examples/example_${n}_suitesparse" "$WORK/$1/examples/example_${n}"
  done
}
programs conf a_test:1:0:0
examples conf "1 0.5"
run conf COMPUTE_SANITIZER="$WORK/no-such-sanitizer"
check "conformance equal: status 0" "$(cat "$WORK/conf.rc")"
has conf "conformance cuda: rc=0, conformance: 35 identical to SuiteSparse, 0 different"; check "conformance equal: counts" $?
programs confdiff a_test:1:0:0
examples confdiff "2 0.5"
run confdiff COMPUTE_SANITIZER="$WORK/no-such-sanitizer"
check "conformance different: status 1" "$([ "$(cat "$WORK/confdiff.rc")" = 1 ]; echo $?)"
has confdiff "conformance cuda: rc=1, conformance: 0 identical to SuiteSparse, 35 different"; check "conformance different: counts" $?

# 3. A failing test: status 1, RESULT: FAILED.
programs fail a_test:3:0:0 c_test:2:0:1
run fail COMPUTE_SANITIZER="$SAN"
[ "$(cat "$WORK/fail.rc")" -eq 1 ]; check "failing test: status 1" $?
has fail "test      c_test: rc=1, 2 passed, 0 skipped, 1 failed"; check "failing test: c_test's counts" $?
has fail "RESULT: FAILED"; check "failing test: RESULT line" $?

# 4. Errors found by the sanitizer only: status 1.
run pass COMPUTE_SANITIZER="$SAN" SAN_ERRORS=2
[ "$(cat "$WORK/pass.rc")" -eq 1 ]; check "sanitizer errors: status 1" $?
has pass "ERROR SUMMARY: 2 errors"; check "sanitizer errors: summary line" $?
has pass "RESULT: FAILED"; check "sanitizer errors: RESULT line" $?

# 5. Every test skipped (no GPU): not reported as passed; the skip's reason shown.
programs skip a_test:0:4:0 b_test:0:2:0
run skip COMPUTE_SANITIZER="$WORK/no-such-sanitizer"
check "all skipped: status 0" "$(cat "$WORK/skip.rc")"
has skip "RESULT: no GPU test ran, every test skipped (no CUDA device here)"; check "all skipped: RESULT line" $?
! has skip "passed ("; check "all skipped: not reported as passed" $?

# 6. The official-data cache: the build folder's by default, the caller's where set, none where neither exists.
mkdir -p "$WORK/pass/gc" && : >"$WORK/pass/gc/official-1024-120.bin"
run pass COMPUTE_SANITIZER="$WORK/no-such-sanitizer" SNACK_GC_CACHE=
grep -qF "cache=$WORK/pass/gc/official-1024-120.bin" "$WORK/pass/gpu-test-logs/a_test.log"; check "cache: default from the build folder" $?
run pass COMPUTE_SANITIZER="$WORK/no-such-sanitizer" SNACK_GC_CACHE=/elsewhere/cache.bin
grep -qF "cache=/elsewhere/cache.bin" "$WORK/pass/gpu-test-logs/a_test.log"; check "cache: the caller's kept" $?
run skip COMPUTE_SANITIZER="$WORK/no-such-sanitizer" SNACK_GC_CACHE=
grep -qF "cache=none" "$WORK/skip/gpu-test-logs/a_test.log"; check "cache: none where the build folder has none" $?
# The embedded mode's compiler: the build folder's by default, the caller's where set, none where neither exists.
mkdir -p "$WORK/pass/graphchallenge" && printf '#!/bin/sh\n' >"$WORK/pass/graphchallenge/snack-embedded-compile" &&
  chmod +x "$WORK/pass/graphchallenge/snack-embedded-compile"
run pass COMPUTE_SANITIZER="$WORK/no-such-sanitizer" SNACK_EMBEDDED_COMPILER=
grep -qF "compiler=$WORK/pass/graphchallenge/snack-embedded-compile" "$WORK/pass/gpu-test-logs/a_test.log"
check "compiler: default from the build folder" $?
run pass COMPUTE_SANITIZER="$WORK/no-such-sanitizer" SNACK_EMBEDDED_COMPILER=/elsewhere/compile
grep -qF "compiler=/elsewhere/compile" "$WORK/pass/gpu-test-logs/a_test.log"; check "compiler: the caller's kept" $?
run skip COMPUTE_SANITIZER="$WORK/no-such-sanitizer" SNACK_EMBEDDED_COMPILER=
grep -qF "compiler=none" "$WORK/skip/gpu-test-logs/a_test.log"; check "compiler: none where the build folder has none" $?
# The tiled engine tests' cache: one folder under the logs by default, the caller's where set.
run pass COMPUTE_SANITIZER="$WORK/no-such-sanitizer" SNACK_TILED_TEST_CACHE=
grep -qF "tiled-cache=$WORK/pass/gpu-test-logs/tiled-test-cache" "$WORK/pass/gpu-test-logs/a_test.log"
check "tiled cache: default under the logs" $?
run pass COMPUTE_SANITIZER="$WORK/no-such-sanitizer" SNACK_TILED_TEST_CACHE=/elsewhere/tiled
grep -qF "tiled-cache=/elsewhere/tiled" "$WORK/pass/gpu-test-logs/a_test.log"; check "tiled cache: the caller's kept" $?

# 7. The cross-backend programs run on cuda, with --xb-backend=cuda; racecheck warnings (no error) do not fail.
programs xb a_test:1:0:0
mkdir -p "$WORK/xb/tests/core/crossbackend"
cat >"$WORK/xb/tests/core/crossbackend/xb_apply" <<'XBEOF'
#!/usr/bin/env bash
echo "args: $*"
echo "[  PASSED  ] 2 tests."
XBEOF
chmod +x "$WORK/xb/tests/core/crossbackend/xb_apply"
# racecheck_sanitizer PATH SUMMARY [STATUS]: a fake sanitizer whose racecheck prints "RACECHECK SUMMARY: SUMMARY" and
# exits STATUS (default 99, as --error-exitcode does for a hazard, warnings included; "program": the program's own),
# and whose memcheck finds nothing and exits the program's status.
racecheck_sanitizer() {
  local status=${3:-99}
  [ "$status" = program ] && status='$rc'
  cat >"$1" <<SANEOF
#!/usr/bin/env bash
tool=\$2
while [ "\${1:0:2}" = -- ]; do shift 2; done
"\$@" >/dev/null; rc=\$?
if [ "\$tool" = racecheck ]; then echo "========= RACECHECK SUMMARY: $2"; exit $status; fi
echo "========= ERROR SUMMARY: 0 errors"
exit \$rc
SANEOF
  chmod +x "$1"
}
RACE="$WORK/racecheck-warnings"
racecheck_sanitizer "$RACE" "3 hazards displayed (0 errors, 3 warnings)"
run xb COMPUTE_SANITIZER="$RACE"
check "cross-backend: status 0" "$(cat "$WORK/xb.rc")"
has xb "test      xb_apply: rc=0, 2 passed, 0 skipped, 0 failed"; check "cross-backend: xb_apply counted" $?
grep -qF "args: --xb-backend=cuda" "$WORK/xb/gpu-test-logs/xb_apply.log"; check "cross-backend: run on cuda" $?
has xb "RESULT: all GPU test programs passed (3 tests), memcheck clean, racecheck without errors"
check "cross-backend: racecheck warnings do not fail" $?

# 8. One sanitizer process per test: each test named by its filter, the summaries summed per program.
run pass COMPUTE_SANITIZER="$SAN" SANITIZER_JOBS=2
check "split: status 0" "$(cat "$WORK/pass.rc")"
has pass "memcheck  a_test: rc=0 ERROR SUMMARY: 0 errors (2 processes, one per test)"; check "split: memcheck line" $?
has pass "racecheck a_test: rc=0"; check "split: racecheck line" $?
grep -qF -- "--gtest_filter=Typed/0.Other" "$WORK/pass/gpu-test-logs/a_test.memcheck/Typed_0.Other.log"
check "split: a typed suite's test run alone" $?
grep -qF -- "--gtest_filter=Suite.Case" "$WORK/pass/gpu-test-logs/b_test.racecheck/Suite.Case.log"
check "split: racecheck per test too" $?
run pass COMPUTE_SANITIZER="$SAN" SANITIZER_JOBS=2 SAN_ERRORS=2
[ "$(cat "$WORK/pass.rc")" -eq 1 ]; check "split with errors: status 1" $?
has pass "ERROR SUMMARY: 4 errors (2 processes, one per test)"; check "split with errors: errors summed" $?
run pass COMPUTE_SANITIZER="$SAN" SANITIZER_JOBS=2 SANITIZER_TIMEOUT=1 SAN_SLEEP=3
[ "$(cat "$WORK/pass.rc")" -eq 1 ]; check "split, stopped: status 1" $?
has pass "2 stopped at 1s"; check "split, stopped: said so" $?

# 9. The sanitizer processes of all programs share the SANITIZER_JOBS slots: b_test's start while a_test's still run
# (four processes of 2 s each in four slots take about 2 s, where waiting for each program's would take 4 s); the
# summary keeps each program's lines together, in order.
t0=$(date +%s%N)
run pass COMPUTE_SANITIZER="$SAN" SANITIZER_JOBS=4 SANITIZER_TOOLS=memcheck SAN_SLEEP=2
elapsed_ms=$((($(date +%s%N) - t0) / 1000000))
check "shared slots: status 0" "$(cat "$WORK/pass.rc")"
has pass "memcheck  b_test: rc=0 ERROR SUMMARY: 0 errors (2 processes, one per test)"; check "shared slots: b_test's line" $?
check "shared slots: the programs' processes at once (${elapsed_ms} ms)" "$([ "$elapsed_ms" -lt 3500 ]; echo $?)"
order=$(grep -nE "^(test|memcheck) +[ab]_test:" "$WORK/pass.out" | cut -d: -f2 | tr -s ' ' | cut -d' ' -f1,2 | tr '\n' ,)
check "shared slots: lines in program order ($order)" "$([ "$order" = "test a_test,memcheck a_test,test b_test,memcheck b_test," ]; echo $?)"

# 10. racecheck by kernel family (SANITIZER_BY_KERNEL): one process per __global__ function the program's host stubs
# name (plain and namespaced mangled names), each instrumented alone for its first RACECHECK_LAUNCHES launches; a
# program without such symbols fails rather than passing unchecked; programs not named still run one process per test.
programs fam a_test:2:0:0 b_test:1:0:0
printf '# __device_stub__Z20colblock_wide_kernelILi8EEvPKfPf\n# __device_stub__ZN3snk4spmm13rowseg_kernelIfEEvv\n' \
  >>"$WORK/fam/gpu-tests/a_test"
run fam COMPUTE_SANITIZER="$SAN" SANITIZER_JOBS=2 SANITIZER_TOOLS=racecheck SANITIZER_BY_KERNEL=a_test RACECHECK_LAUNCHES=50
check "by kernel: status 0" "$(cat "$WORK/fam.rc")"
has fam "(2 processes, one per kernel family, its first 50 launches)"; check "by kernel: a_test's line counts families" $?
grep -qF -- "--kernel-name kns=colblock_wide_kernel --launch-count 50" "$WORK/fam/gpu-test-logs/a_test.racecheck/colblock_wide_kernel.log"
check "by kernel: a plain name's family instrumented alone" $?
grep -qF -- "--kernel-name kns=rowseg_kernel" "$WORK/fam/gpu-test-logs/a_test.racecheck/rowseg_kernel.log"
check "by kernel: a namespaced name's family" $?
has fam "racecheck b_test: rc=0 RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings) (2 processes, one per test, its first 50 launches)"
check "by kernel: other programs per test" $?
run fam COMPUTE_SANITIZER="$SAN" SANITIZER_JOBS=2 SANITIZER_TOOLS=racecheck SANITIZER_BY_KERNEL=b_test
[ "$(cat "$WORK/fam.rc")" -eq 1 ]; check "by kernel, no symbols: status 1" $?
has fam "no kernel family found"; check "by kernel, no symbols: said so" $?

# 11. RACECHECK_LAUNCHES on racecheck per test: each process instruments its first N launches, and says so; memcheck
# is not capped.
run pass COMPUTE_SANITIZER="$SAN" SANITIZER_JOBS=2 RACECHECK_LAUNCHES=30
check "capped: status 0" "$(cat "$WORK/pass.rc")"
grep -qF -- "--launch-count 30" "$WORK/pass/gpu-test-logs/a_test.racecheck/Suite.Case.log"; check "capped: racecheck given the cap" $?
! grep -qF -- "--launch-count" "$WORK/pass/gpu-test-logs/a_test.memcheck/Suite.Case.log"; check "capped: memcheck not" $?
has pass "(2 processes, one per test, its first 30 launches)"; check "capped: said so" $?
run pass COMPUTE_SANITIZER="$SAN" RACECHECK_LAUNCHES=30
grep -qF -- "--launch-count 30" "$WORK/pass/gpu-test-logs/a_test.racecheck.log"; check "capped, whole program: given the cap" $?
has pass "ERROR SUMMARY: 0 errors (its first 30 launches)"; check "capped, whole program: said so" $?

# 12. racecheck's singular summary ("1 hazard displayed (1 error, 1 warning)") counts in the sums, and its error fails.
ONE="$WORK/racecheck-one"
racecheck_sanitizer "$ONE" "2 hazards displayed (1 error, 1 warning)"
run pass COMPUTE_SANITIZER="$ONE" SANITIZER_JOBS=2 SANITIZER_TOOLS=racecheck
[ "$(cat "$WORK/pass.rc")" -eq 1 ]; check "singular forms: status 1" $?
has pass "racecheck a_test: rc=99 RACECHECK SUMMARY: 4 hazards displayed (2 errors, 2 warnings)"; check "singular forms: summed" $?

# 13. A build folder holding cross-backend programs only runs them; one holding no program at all fails, saying so.
mkdir -p "$WORK/xbonly/tests/core/crossbackend"
cp "$WORK/xb/tests/core/crossbackend/xb_apply" "$WORK/xbonly/tests/core/crossbackend/"
run xbonly COMPUTE_SANITIZER="$WORK/no-such-sanitizer"
check "cross-backend only: status 0" "$(cat "$WORK/xbonly.rc")"
has xbonly "test      xb_apply: rc=0, 2 passed, 0 skipped, 0 failed"; check "cross-backend only: xb_apply ran" $?
mkdir -p "$WORK/empty"
run empty COMPUTE_SANITIZER="$WORK/no-such-sanitizer"
[ "$(cat "$WORK/empty.rc")" -eq 1 ]; check "no program: status 1" $?
has empty "run-gpu-tests: no test programs"; check "no program: said so" $?

# 14. PLAIN_RUN=0: no program runs on its own, each runs under the sanitizers only, and its line says so; a test that
# fails under racecheck with no race fails the run (status 99 with no error is warnings alone, any other status is not).
PASSTHRU="$WORK/racecheck-passthrough"
racecheck_sanitizer "$PASSTHRU" "0 hazards displayed (0 errors, 0 warnings)" program
rm -f "$WORK"/pass/gpu-test-logs/*.log
run pass COMPUTE_SANITIZER="$PASSTHRU" PLAIN_RUN=0
check "sanitizers only: status 0" "$(cat "$WORK/pass.rc")"
has pass "test      a_test: not run on its own (PLAIN_RUN=0)"; check "sanitizers only: said so" $?
[ ! -f "$WORK/pass/gpu-test-logs/a_test.log" ]; check "sanitizers only: no plain run" $?
has pass "RESULT: the sanitizer passes only (PLAIN_RUN=0), every process's tests passed: memcheck clean, racecheck without errors"
check "sanitizers only: RESULT line" $?
run fail COMPUTE_SANITIZER="$PASSTHRU" PLAIN_RUN=0 SANITIZER_TOOLS=racecheck
[ "$(cat "$WORK/fail.rc")" -eq 1 ]; check "sanitizers only, a test fails under racecheck: status 1" $?
has fail "racecheck c_test: rc=1"; check "sanitizers only, a test fails under racecheck: its line" $?
run fail COMPUTE_SANITIZER="$PASSTHRU" PLAIN_RUN=0 SANITIZER_TOOLS=racecheck SANITIZER_JOBS=2
[ "$(cat "$WORK/fail.rc")" -eq 1 ]; check "sanitizers only, per test, a test fails under racecheck: status 1" $?

if ((failures)); then
  echo "test_run_gpu_tests: $failures expectation(s) failed; the runner's output:"
  for c in pass fail skip xb fam; do [ -f "$WORK/$c.out" ] && { echo "--- $c"; cat "$WORK/$c.out"; }; done
  exit 1
fi
echo "test_run_gpu_tests: all expectations met"
