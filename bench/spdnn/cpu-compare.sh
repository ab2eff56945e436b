#!/usr/bin/env bash
# bench/spdnn/cpu-compare.sh: the SpDNN challenge on the CPU: snack's kokkos and reference backends against
# SuiteSparse:GraphBLAS called directly. All three run the same runner and the same four GraphBLAS calls
# per layer (snack-spdnn, and snack-spdnn-suitesparse: the same sources compiled against SuiteSparse's
# GraphBLAS.h and library) on the same data, one after another in one run, each checked against the truth.
# Prints a markdown table (machine, date, commit, load average, best of RUNS inference times, rate, ratio to
# SuiteSparse) and writes it to OUT.
# Usage: bench/spdnn/cpu-compare.sh BUILD_DIR [OUT.md] [RUNS] [runner args...]
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
declare -A secs rate verdict
names=(kokkos reference suitesparse)
for name in "${names[@]}"; do
  case $name in
    kokkos) cmd=("$bin/snack-spdnn" --engine graphblas --backend kokkos) ;;
    reference) cmd=("$bin/snack-spdnn" --engine graphblas --backend reference) ;;
    suitesparse) cmd=("$bin/snack-spdnn-suitesparse" --engine graphblas) ;;
  esac
  echo "cpu-compare: $name: ${cmd[*]} ${args[*]} --runs $runs" >&2
  log=$("${cmd[@]}" "${args[@]}" --runs "$runs" 2>/dev/null)
  echo "$log" >&2
  secs[$name]=$(sed -n 's/.*inference time \([0-9.]*\) s.*/\1/p' <<<"$log")
  rate[$name]=$(sed -n 's/.*rate \([0-9.]*\) TeraEdges.*/\1/p' <<<"$log")
  verdict[$name]=$(grep -E '^(PASS|FAIL)$' <<<"$log" || echo "no verdict")
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "# SpDNN on the CPU: snack (kokkos, reference) vs SuiteSparse:GraphBLAS"
  echo
  echo "Produced by \`bench/spdnn/cpu-compare.sh\`: the same runner and GraphBLAS calls (mxm PLUS_TIMES, bias, select > 0, min 32 per layer); \`snack-spdnn-suitesparse\` is that code compiled against SuiteSparse's own library. Inference time only (file reading and building the weights excluded), best of $runs runs; categories checked against the truth."
  echo
  echo "- Machine: $cpu, $(nproc) cores online; OMP_NUM_THREADS=${OMP_NUM_THREADS:-(unset)}"
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit ($dirty modified tracked files)"
  echo "- Runner arguments: ${args[*]}"
  echo "- Load average (1, 5, 15 min) at start: $load0; at end: $load1"
  echo
  echo "| contender | inference s | TeraEdges/s | time / SuiteSparse | categories |"
  echo "|---|---:|---:|---:|---|"
  for name in "${names[@]}"; do
    ratio=$(awk -v a="${secs[$name]}" -v b="${secs[suitesparse]}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
    echo "| $name | ${secs[$name]:--} | ${rate[$name]:--} | $ratio | ${verdict[$name]} |"
  done
} | tee "$out"
