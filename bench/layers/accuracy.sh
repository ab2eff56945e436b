#!/usr/bin/env bash
# bench/layers/accuracy.sh SNACK_TRAIN OUT_DIR: Fashion-MNIST test accuracy against sparsity (0, 90, 95, 99%) and
# dynamic-sparse-training method (none, SET, RigL, SNACK's rule; at 99% also with ERK densities) for the classic
# 784-300-100-10 MLP (ReLU, Adam at lr 3e-3, batch 128, 8 epochs, rewiring every 200 steps with zeta 0.3 decaying
# by cosine to 75% of training), on the library's default backend. Writes each run's log and curves to OUT_DIR and
# a summary line per run to OUT_DIR/summary.txt; accuracy_report.py turns that into the committed table and chart.
set -u
T=${1:?usage: accuracy.sh SNACK_TRAIN OUT_DIR}
OUT=${2:?usage: accuracy.sh SNACK_TRAIN OUT_DIR}
mkdir -p "$OUT"
: > "$OUT/summary.txt"
run() {   # name, then snack-train's arguments
  name=$1
  shift
  "$T" --hidden 300,100 --epochs 8 --lr 0.003 --quiet --curves "$OUT/$name.png" "$@" > "$OUT/$name.log" 2>&1
  echo "$name $(grep '^epoch 8/8' "$OUT/$name.log")" | tee -a "$OUT/summary.txt"
}
run dense --sparsity 0
for s in 0.9 0.95 0.99; do
  for d in none set rigl snack; do run "s${s}_$d" --sparsity "$s" --dst "$d" --dst-every 200; done
done
for d in none set rigl snack; do run "e0.99_$d" --sparsity 0.99 --erk --dst "$d" --dst-every 200; done
