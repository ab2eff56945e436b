#!/bin/sh
# tests/layers/train_mpi_matches.sh MPIEXEC SNACK_TRAIN SNACK_TRAIN_MPI [DST]: one epoch of a small sparse MLP with
# DST rewiring (set, the default, or rigl), trained by one process and by snack-train-mpi on two ranks (each taking half of every batch), must end
# with the same losses, accuracies and rewiring (within 0.002 in loss and 0.5 points in accuracy: the gradients are
# summed in another order). Exits 77 (skip) where Fashion-MNIST is absent.
mpiexec=$1; one=$2; mpi=$3; dst=${4:-set}
d=${SNACK_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
[ -f "$d/train-images-idx3-ubyte.gz" ] || { echo "no Fashion-MNIST in $d (scripts/setup.sh installs it)"; exit 77; }
args="--hidden 128,128 --sparsity 0.9 --epochs 1 --train-limit 4000 --batch 100 --dst $dst --dst-every 10 --quiet"
a=$("$one" $args | grep '^epoch 1/1') || { echo "snack-train failed"; exit 1; }
b=$("$mpiexec" -n 2 --oversubscribe "$mpi" $args | grep '^epoch 1/1') || { echo "snack-train-mpi failed"; exit 1; }
echo "one process: $a"
echo "two ranks:   $b"
# Fields: train loss, train acc, test loss, test acc, rewired.
fields() { echo "$1" | sed -E 's/.*train loss ([0-9.]+) acc ([0-9.]+)%  test loss ([0-9.]+) acc ([0-9.]+)%.*rewired ([0-9]+).*/\1 \2 \3 \4 \5/'; }
echo "$(fields "$a") $(fields "$b")" | awk '{
  ok = (($1 - $6) ^ 2 < 0.002 ^ 2) && (($2 - $7) ^ 2 < 0.25) && (($3 - $8) ^ 2 < 0.002 ^ 2) && (($4 - $9) ^ 2 < 0.25) &&
       ($5 > 0) && ($5 == $10);
  print ok ? "match" : "MISMATCH"; exit ok ? 0 : 1 }'
