#!/usr/bin/env bash
# bench/spdnn/cpu-compare.sh: the SpDNN challenge on the CPU: snack's kokkos and reference backends against
# SuiteSparse:GraphBLAS called directly. All three run the same runner and the same four GraphBLAS calls
# per layer (snack-spdnn, and snack-spdnn-suitesparse: the same sources compiled against SuiteSparse's
# GraphBLAS.h and library) on the same data, one after another in one run, each checked against the truth.
# Prints a markdown table (machine, date, commit, load average, best and worst of RUNS separate runs, rate of
# the best, ratio to SuiteSparse) and writes it to OUT. The contenders alternate run by run, so that a change in
# the machine's load falls on all of them. BUSY_CORES=N keeps N other processes spinning for the whole
# measurement (the machine shared with another job: the case where an OpenMP pool that waits for all its
# threads suffers most).
# Usage: [BUSY_CORES=N] bench/spdnn/cpu-compare.sh BUILD_DIR [OUT.md] [RUNS] [runner args...]
#   (default runner args: --data official, i.e. 1024 x 120, the 1,200 official images repeated 50 times)
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [OUT.md] [RUNS] [runner args...]}
out=${2:-/dev/null}
runs=${3:-3}
shift $(($# < 3 ? $# : 3))
args=("$@")
((${#args[@]})) || args=(--data official)
bin="$build/graphchallenge"
for b in snack-spdnn snack-spdnn-suitesparse; do
  [ -x "$bin/$b" ] || { echo "cpu-compare: $bin/$b not built (cmake --build $build --target $b)" >&2; exit 1; }
done
export OMP_PROC_BIND=${OMP_PROC_BIND:-false}   # silences Kokkos' start-up warning; libgomp's default binding
commit=$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$(dirname "$0")" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
busy=${BUSY_CORES:-0}
busy_pids=()
stop_busy() { ((${#busy_pids[@]})) && kill "${busy_pids[@]}" 2>/dev/null; busy_pids=(); }
trap stop_busy EXIT
for ((k = 0; k < busy; ++k)); do
  sh -c 'while :; do :; done' &
  busy_pids+=($!)
done
declare -A best worst rate verdict
names=(kokkos reference suitesparse)
for ((r = 1; r <= runs; ++r)); do
  for name in "${names[@]}"; do
    case $name in
      kokkos) cmd=("$bin/snack-spdnn" --engine graphblas --backend kokkos) ;;
      reference) cmd=("$bin/snack-spdnn" --engine graphblas --backend reference) ;;
      suitesparse) cmd=("$bin/snack-spdnn-suitesparse" --engine graphblas) ;;
    esac
    echo "cpu-compare: run $r/$runs, $name: ${cmd[*]} ${args[*]}" >&2
    log=$("${cmd[@]}" "${args[@]}" --runs 1 2>/dev/null)
    echo "$log" >&2
    t=$(sed -n 's/.*inference time \([0-9.]*\) s.*/\1/p' <<<"$log")
    v=$(grep -E '^(PASS|FAIL)$' <<<"$log" || echo "no verdict")
    [ "${verdict[$name]:-PASS}" = PASS ] && verdict[$name]=$v
    [ -n "$t" ] || continue
    if [ -z "${best[$name]:-}" ] || awk -v a="$t" -v b="${best[$name]}" 'BEGIN { exit !(a < b) }'; then
      best[$name]=$t
      rate[$name]=$(sed -n 's/.*rate \([0-9.]*\) TeraEdges.*/\1/p' <<<"$log")
    fi
    if [ -z "${worst[$name]:-}" ] || awk -v a="$t" -v b="${worst[$name]}" 'BEGIN { exit !(a > b) }'; then
      worst[$name]=$t
    fi
  done
done
stop_busy
load1=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "# SpDNN on the CPU: snack (kokkos, reference) vs SuiteSparse:GraphBLAS"
  echo
  echo "Produced by \`bench/spdnn/cpu-compare.sh\`: the same runner and GraphBLAS calls (mxm PLUS_TIMES, bias, select > 0, min 32 per layer); \`snack-spdnn-suitesparse\` is that code compiled against SuiteSparse's own library. Inference time only (file reading and building the weights excluded), best and worst of $runs separate runs, the contenders alternating; categories checked against the truth."
  echo
  echo "- Machine: $cpu, $(nproc) cores online; OMP_NUM_THREADS=${OMP_NUM_THREADS:-(unset)}"
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit ($dirty modified tracked files)"
  echo "- Runner arguments: ${args[*]}"
  echo "- Other processes spinning during the runs (BUSY_CORES): $busy"
  echo "- Load average (1, 5, 15 min) at start: $load0; at end: $load1"
  echo
  echo "| contender | busy cores | best s | worst s | TeraEdges/s (best) | best / SuiteSparse's best | worst / SuiteSparse's worst | categories |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|"
  for name in "${names[@]}"; do
    ratio=$(awk -v a="${best[$name]:-0}" -v b="${best[suitesparse]:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
    wratio=$(awk -v a="${worst[$name]:-0}" -v b="${worst[suitesparse]:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
    echo "| $name | $busy | ${best[$name]:--} | ${worst[$name]:--} | ${rate[$name]:--} | $ratio | $wratio | ${verdict[$name]:-no verdict} |"
  done
} | tee "$out"
