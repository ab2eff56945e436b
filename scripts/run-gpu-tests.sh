#!/usr/bin/env bash
# scripts/run-gpu-tests.sh: runs on a GPU machine, after scripts/build-gpu.sh built the binaries (here or
# elsewhere). Runs every GPU test program in <build>/gpu-tests/ (each GoogleTest binary that any part of
# the project registers with the `gpu` CTest label lands there) and every cross-backend program of
# <build>/tests/core/crossbackend/ on the cuda backend (--xb-backend=cuda), then runs each again under
# compute-sanitizer memcheck and racecheck, then the C API examples on cuda against SuiteSparse:GraphBLAS
# (scripts/conformance.sh; where the build has their SuiteSparse forms, else said skipped), and prints a summary: one
# line per program and tool, the totals last.
# Environment: BUILD_DIR (default build-gpu), LOG_DIR (default <build>/gpu-test-logs), SNACK_EMBEDDED_COMPILER (default
# <build>/graphchallenge/snack-embedded-compile where that exists), SNACK_GC_CACHE (the
# official-data cache for the fused engine's test; default <build>/gc/official-1024-120.bin where that exists),
# SNACK_TILED_TEST_CACHE (the tiled engine tests' cache folder; default <logs>/tiled-test-cache),
# SANITIZER_FILTER (a --gtest_filter for the sanitizer passes; default: every test; a program none of whose tests
# match it is listed as skipped), SANITIZER_TOOLS (default "memcheck racecheck"; racecheck passes where it reports
# no error: its warnings, such as those of Kokkos' warp-synchronous reductions, are listed, not failed),
# COMPUTE_SANITIZER (the sanitizer's path; default: the one on PATH, else CUDA's), SANITIZER_JOBS (default 1: each
# program runs under the sanitizer as one process; N > 1: each of its tests in a process of its own, N at a time over
# all programs (the next program's start while the last one's still run), for programs whose whole run under racecheck
# takes hours; the program's line then sums its processes' summaries),
# PLAIN_RUN (default 1; 0: the programs are not run on their own first, only under the sanitizers, whose processes
# then start at once: for a sanitizer-only pass after a plain one; each program's "test" line says it was not run),
# SANITIZER_TIMEOUT (seconds a sanitizer process may run, default unlimited; one stopped fails the run),
# SANITIZER_BY_KERNEL (names of programs whose racecheck runs one kernel family per process instead, with SANITIZER_JOBS
# > 1: each __global__ function the program holds, found by its host stub's symbol, instrumented alone for its first
# RACECHECK_LAUNCHES launches (default 200) while the program's other kernels run uninstrumented; for programs whose
# float64 host references outlast the machine's time under whole-program racecheck; the line then counts families),
# RACECHECK_LAUNCHES (where set: each racecheck process, of a program or of a test, instruments only its first that
# many kernel launches, the rest running uninstrumented; the line says so). memcheck
# reports memory errors and leaks, not failed API calls (--report-api-errors no): the tests force some on purpose
# (device memory exhaustion must give GrB_OUT_OF_MEMORY), and the library checks every call's status, so an
# unexpected one fails its test. Under
# memcheck the cuda backend's small-block cache is off (SNACK_DEVICE_BLOCK_CACHE=0), so that each buffer is checked
# against its own size rather than its size class.
# tests/scripts/test_run_gpu_tests.sh checks the summary against fake programs.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build-gpu}
DIR="$BUILD/gpu-tests"
LOGS=${LOG_DIR:-$BUILD/gpu-test-logs}
mkdir -p "$LOGS"
# absolute PATH: PATH from the root, for programs that run elsewhere (relative PATHs are the repository root's).
absolute() { if [[ "$1" == /* ]]; then echo "$1"; else echo "$PWD/$1"; fi; }
# The official-data cache scripts/build-gpu.sh wrote, unless the caller names one.
if [ -z "${SNACK_GC_CACHE:-}" ] && [ -f "$BUILD/gc/official-1024-120.bin" ]; then
  export SNACK_GC_CACHE="$BUILD/gc/official-1024-120.bin"
fi
# One cache folder for the tiled engine's tests over the whole run (SNACK_TILED_TEST_CACHE, unless the caller names one):
# the plain run calibrates the cost model there once and the sanitizer runs read it, where calibrating again in every
# process under racecheck outlasts a machine's time (with PLAIN_RUN=0, name a folder a plain run filled).
if [ -z "${SNACK_TILED_TEST_CACHE:-}" ]; then
  export SNACK_TILED_TEST_CACHE
  SNACK_TILED_TEST_CACHE=$(absolute "$LOGS/tiled-test-cache")
fi
# The embedded mode's compiler program of this build, which the tests do not find beside themselves, and where the build
# was made only if it has not moved since (SNACK_EMBEDDED_COMPILER, unless the caller names one).
if [ -z "${SNACK_EMBEDDED_COMPILER:-}" ] && [ -x "$BUILD/graphchallenge/snack-embedded-compile" ]; then
  export SNACK_EMBEDDED_COMPILER
  SNACK_EMBEDDED_COMPILER=$(absolute "$BUILD/graphchallenge/snack-embedded-compile")
fi
SAN=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
shopt -s nullglob
progs=("$DIR"/*)
xb_progs=("$BUILD"/tests/core/crossbackend/xb_*)
# A build folder with cross-backend programs only (a run over some of them) is a run; one with neither is not.
if ((${#progs[@]} + ${#xb_progs[@]} == 0)); then
  echo "run-gpu-tests: no test programs in $DIR or $BUILD/tests/core/crossbackend (run scripts/build-gpu.sh first)"
  exit 1
fi
TOOLS=${SANITIZER_TOOLS:-memcheck racecheck}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
# count WORD LOG: N from GoogleTest's total line "[  WORD  ] N tests." / "... N tests, listed below:" (empty: none).
count() { grep -E "^\[  $1 *\] [0-9]+ tests?[.,]" "$2" | tail -1 | sed -E 's/^[^]]*\] ([0-9]+).*/\1/'; }
summary=()
fail=0
ran=0          # tests that ran (passed or failed) over all programs
memchecked=0   # programs run under the sanitizer
skip_reason=""
# The programs with their arguments: the GPU programs as they are, the cross-backend ones on cuda.
runs=()
for p in "${progs[@]}"; do runs+=("$p|"); done
for p in "${xb_progs[@]}"; do [[ "$(basename "$p")" == *.* ]] || runs+=("$p|--xb-backend=cuda"); done
racechecked=0
JOBS=${SANITIZER_JOBS:-1}
# sanitize TOOL LOG PROGRAM ARGS...: one process under the sanitizer; its status (124 where SANITIZER_TIMEOUT stopped
# it). The program alone is checked (--target-processes application-only): the only processes the test programs start
# are snack-embedded-compile's (NVRTC, no kernels), and a sanitizer that followed them would wait, after the program
# ended, for the compiles it left running to fill the cache (the tiled engine's past their deadline).
sanitize() {
  local tool=$1 log=$2
  shift 2
  local limit=()
  [ -n "${SANITIZER_TIMEOUT:-}" ] && limit=(timeout "$SANITIZER_TIMEOUT")
  case $tool in
    memcheck) SNACK_DEVICE_BLOCK_CACHE=0 "${limit[@]}" "$SAN" --tool memcheck --target-processes application-only \
                --leak-check full --report-api-errors no --error-exitcode 99 "$@" >"$log" 2>&1 ;;
    racecheck) "${limit[@]}" "$SAN" --tool racecheck --target-processes application-only --error-exitcode 99 "$@" \
                 >"$log" 2>&1 ;;
  esac
}
# launch_cap TOOL: sets cap to racecheck's --launch-count RACECHECK_LAUNCHES where TOOL is racecheck and that is set,
# else to nothing.
launch_cap() {
  cap=()
  [ "$1" = racecheck ] && [ -n "${RACECHECK_LAUNCHES:-}" ] && cap=(--launch-count "$RACECHECK_LAUNCHES")
  return 0
}
# kernel_families PROGRAM: the names of the __global__ functions PROGRAM holds, one per line, read from its host stubs'
# mangled symbols (__device_stub__Z[N]<len><name>...: the last length-prefixed name), without binutils.
kernel_families() {
  local sym s n name
  while IFS= read -r sym; do
    s=${sym#__device_stub__Z}
    s=${s#N}
    name=""
    while [[ $s =~ ^([0-9]+)(.*)$ ]]; do
      n=${BASH_REMATCH[1]}
      s=${BASH_REMATCH[2]}
      name=${s:0:n}
      s=${s:n}
    done
    [ -n "$name" ] && echo "$name"
  done < <(grep -aoE '__device_stub__Z[A-Za-z0-9_]+' "$1") | sort -u
}
# sanitize_families PROGRAM NAME: racecheck of each kernel family of PROGRAM in a process of its own, in the background
# in the JOBS slots as sanitize_launch's, logs in LOGS/NAME.racecheck/, the families in its tests.list.
sanitize_families() {
  local prog=$1 pname=$2 fam log
  local dir="$LOGS/$pname.racecheck"
  mkdir -p "$dir"
  kernel_families "$prog" >"$dir/tests.list"
  while IFS= read -r fam; do
    while (($(jobs -rp | wc -l) >= JOBS)); do sleep 1; done
    log="$dir/$fam.log"
    (sanitize racecheck "$log" --kernel-name "kns=$fam" --launch-count "${RACECHECK_LAUNCHES:-200}" "$prog" "${args[@]}" \
       "${filter[@]}"
     echo "rc=$?" >>"$log") &
  done <"$dir/tests.list"
}
# sanitize_launch TOOL PROGRAM NAME [FILTER]: starts each test the program lists (under FILTER) in a process of its
# own, in the background, JOBS at a time over every program (a program's processes start while the last one's still
# run), logs in LOGS/NAME.TOOL/, the tests' names in its tests.list.
sanitize_launch() {
  local tool=$1 prog=$2 pname=$3
  shift 3
  local dir="$LOGS/$pname.$tool" t suite="" line log
  local tests=()
  mkdir -p "$dir"
  while IFS= read -r line; do
    line=${line%%#*}
    line=${line%"${line##*[![:space:]]}"}   # GoogleTest's "# TypeParam = ..." comments and the spaces before them
    if [[ $line == "  "* ]]; then tests+=("$suite${line//[[:space:]]/}"); elif [[ $line == *. ]]; then suite=$line; fi
  done < <("$prog" "${args[@]}" --gtest_list_tests "$@" 2>/dev/null)
  local cap
  launch_cap "$tool"
  for t in "${tests[@]}"; do
    while (($(jobs -rp | wc -l) >= JOBS)); do sleep 1; done
    log="$dir/${t//\//_}.log"
    (sanitize "$tool" "$log" "${cap[@]}" "$prog" "${args[@]}" --gtest_filter="$t"; echo "rc=$?" >>"$log") &
  done
  printf '%s\n' "${tests[@]}" >"$dir/tests.list"
}
# sanitize_collect TOOL NAME [UNIT]: once sanitize_launch's (or sanitize_families') processes have ended, sets src (the
# worst status: 0 only where every process ended 0, or, for racecheck, reported no error) and sline (the processes'
# summaries summed); UNIT names what each process checked (default "test").
sanitize_collect() {
  local tool=$1 pname=$2 unit=${3:-test}
  local dir="$LOGS/$pname.$tool" t log
  local tests=()
  mapfile -t tests < <(grep -v '^$' "$dir/tests.list")
  local n=0 worst=0 stopped=0 errors=0 warnings=0 hazards=0 rcv sum
  for t in "${tests[@]}"; do
    log="$dir/${t//\//_}.log"
    n=$((n + 1))
    rcv=$(grep -E '^rc=' "$log" | tail -1 | cut -d= -f2)
    sum=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)
    ((rcv == 124)) && stopped=$((stopped + 1))
    if [ "$tool" = memcheck ]; then
      errors=$((errors + $(sed -nE 's/.*ERROR SUMMARY: ([0-9]+) error.*/\1/p' <<<"$sum" | head -1 || true) + 0))
      ((rcv == 0)) || worst=$rcv
    else
      # "1 hazard displayed (1 error, 1 warning)": the singular forms count too.
      hazards=$((hazards + $(sed -nE 's/.*: ([0-9]+) hazards? .*/\1/p' <<<"$sum" | head -1) + 0))
      errors=$((errors + $(sed -nE 's/.*\(([0-9]+) errors?[,)].*/\1/p' <<<"$sum" | head -1) + 0))
      warnings=$((warnings + $(sed -nE 's/.*, ([0-9]+) warnings?\).*/\1/p' <<<"$sum" | head -1) + 0))
      # Status 99 with no error is warnings alone (--error-exitcode counts them); any other status is a failure (a
      # failed test, a stopped process).
      if ((rcv != 0)) && ! { ((rcv == 99)) && [[ "$sum" == *"(0 errors"* ]]; }; then worst=$rcv; fi
    fi
  done
  # A program whose kernels were not found (a stripped binary) would pass unchecked: it fails instead.
  ((n == 0)) && [ "$unit" = "kernel family" ] && worst=1 && errors=-1
  src=$worst
  local where="$n processes, one per $unit"
  if [ "$unit" = "kernel family" ]; then where="$where, its first ${RACECHECK_LAUNCHES:-200} launches"
  elif [ "$tool" = racecheck ] && [ -n "${RACECHECK_LAUNCHES:-}" ]; then where="$where, its first $RACECHECK_LAUNCHES launches"
  fi
  ((stopped)) && where="$where, $stopped stopped at ${SANITIZER_TIMEOUT}s"
  if ((errors < 0)); then
    sline="no kernel family found in the program (no __device_stub__ symbol: stripped?)"
  elif [ "$tool" = memcheck ]; then
    sline="ERROR SUMMARY: $errors errors ($where)"
  else
    sline="RACECHECK SUMMARY: $hazards hazards displayed ($errors errors, $warnings warnings) ($where)"
  fi
}
# record TOOL NAME FILTER [AT]: the sanitizer's line for one program from src and sline (at summary[AT], else appended),
# counted, and failing the run where the sanitizer found errors.
record() {
  local line
  line="$(printf '%-9s' "$1") $2: rc=$src ${sline:-no summary line} $3"
  if [ -n "${4:-}" ]; then summary[$4]=$line; else summary+=("$line"); fi
  if [ "$1" = memcheck ]; then
    memchecked=$((memchecked + 1))
    ((src == 0)) || fail=1
  else
    racechecked=$((racechecked + 1))
    ((src == 0)) || { ((src == 99)) && [[ "$sline" == *"(0 errors"* ]]; } || fail=1
  fi
}
pending=()   # sanitizer passes started in the background (JOBS > 1): "summary index|tool|program|filter|unit"
for entry in "${runs[@]}"; do
  p=${entry%%|*}
  args=()
  [ -n "${entry#*|}" ] && args=("${entry#*|}")
  [ -x "$p" ] || continue
  name=$(basename "$p")
  if [ "${PLAIN_RUN:-1}" = 0 ]; then
    summary+=("test      $name: not run on its own (PLAIN_RUN=0)")
  else
    "$p" "${args[@]}" >"$LOGS/$name.log" 2>&1
    rc=$?
    n_pass=$(count PASSED "$LOGS/$name.log"); n_skip=$(count SKIPPED "$LOGS/$name.log"); n_fail=$(count FAILED "$LOGS/$name.log")
    ran=$((ran + ${n_pass:-0} + ${n_fail:-0}))
    if [ -z "$skip_reason" ] && [ "${n_pass:-0}" = 0 ] && [ -n "$n_skip" ]; then
      skip_reason=$(grep -A1 -E ': Skipped$' "$LOGS/$name.log" | grep -vE ': Skipped$|^--$' | head -1)
    fi
    summary+=("test      $name: rc=$rc, ${n_pass:-0} passed, ${n_skip:-0} skipped, ${n_fail:-0} failed")
    ((rc == 0)) || fail=1
  fi
  if [ -x "$SAN" ]; then
    filter=()
    [ -n "${SANITIZER_FILTER:-}" ] && filter=(--gtest_filter="$SANITIZER_FILTER")
    # A filter aimed at other programs' tests matches none here: say so instead of running an empty program
    # under the sanitizer (which exits non-zero before any CUDA call).
    if ((${#filter[@]})) && ! "$p" --gtest_list_tests "${filter[@]}" 2>/dev/null | grep -q '^  '; then
      summary+=("memcheck  $name: skipped, no test matches ${filter[*]}")
      continue
    fi
    for tool in $TOOLS; do
      case $tool in
        memcheck | racecheck) ;;
        *) summary+=("$tool  $name: unknown tool (memcheck or racecheck)"); fail=1; continue ;;
      esac
      if ((JOBS > 1)) && [ "$tool" = racecheck ] && [[ " ${SANITIZER_BY_KERNEL:-} " == *" $name "* ]]; then
        sanitize_families "$p" "$name"
        pending+=("${#summary[@]}|$tool|$name|${filter[*]}|kernel family")
        summary+=("")
      elif ((JOBS > 1)); then
        sanitize_launch "$tool" "$p" "$name" "${filter[@]}"
        pending+=("${#summary[@]}|$tool|$name|${filter[*]}|test")
        summary+=("")   # filled in once every program's processes have ended
      else
        launch_cap "$tool"
        sanitize "$tool" "$LOGS/$name.$tool.log" "${cap[@]}" "$p" "${args[@]}" "${filter[@]}"
        src=$?
        sline=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOGS/$name.$tool.log" | tail -1)
        ((${#cap[@]})) && sline="$sline (its first $RACECHECK_LAUNCHES launches)"
        record "$tool" "$name" "${filter[*]}"
      fi
    done
  else
    summary+=("memcheck  $name: compute-sanitizer not found")
  fi
done
wait
for entry in "${pending[@]}"; do
  IFS='|' read -r at tool name filtered unit <<<"$entry"
  sanitize_collect "$tool" "$name" "$unit"
  record "$tool" "$name" "$filtered" "$at"
done
# The C API examples on cuda against SuiteSparse:GraphBLAS (scripts/conformance.sh), where the build has both forms.
if compgen -G "$BUILD/examples/example_*_suitesparse" >/dev/null; then
  scripts/conformance.sh "$BUILD/examples" cuda >"$LOGS/conformance.log" 2>&1
  crc=$?
  summary+=("conformance cuda: rc=$crc, $(grep -E '^conformance:' "$LOGS/conformance.log" | tail -1)")
  ((crc == 0)) || fail=1
else
  summary+=("conformance cuda: skipped, no example_*_suitesparse in $BUILD/examples (SuiteSparse not found at build time)")
fi
echo "==== GPU test summary ===="
printf '%s\n' "${summary[@]}"
if ((fail)); then echo "RESULT: FAILED (logs in $LOGS)"; exit 1; fi
if [ "${PLAIN_RUN:-1}" = 0 ]; then
  if ((memchecked + racechecked == 0)); then echo "RESULT: nothing ran (PLAIN_RUN=0 and no sanitizer pass)"; exit 1; fi
  passes=""
  ((memchecked > 0)) && passes="memcheck clean"
  ((racechecked > 0)) && passes="${passes:+$passes, }racecheck without errors"
  echo "RESULT: the sanitizer passes only (PLAIN_RUN=0), every process's tests passed: $passes"
  exit 0
fi
if ((ran == 0)); then echo "RESULT: no GPU test ran, every test skipped (${skip_reason:-no reason printed})"; exit 0; fi
# The RESULT line names each sanitizer pass that ran, and says why one did not.
if ((memchecked > 0)); then mline="memcheck clean"
elif [[ " $TOOLS " == *" memcheck "* ]]; then mline="memcheck not run (compute-sanitizer not found or no test matched)"
else mline="memcheck not requested (SANITIZER_TOOLS)"
fi
((racechecked > 0)) && mline+=", racecheck without errors"
echo "RESULT: all GPU test programs passed ($ran tests), $mline"
