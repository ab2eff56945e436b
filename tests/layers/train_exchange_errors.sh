#!/bin/sh
# tests/layers/train_exchange_errors.sh SNACK_TRAIN [MPIEXEC SNACK_TRAIN_MPI]: --exchange is refused with a clear
# message where it cannot run: an unknown value, nccl in the one-process trainer, and nccl without the cuda backend
# in snack-train-mpi (one rank), and nccl on a machine without a GPU. Each must exit non-zero before any data is read.
one=$1; mpiexec=$2; mpi=$3
fail=0
expect() {   # expect WHAT MESSAGE command...: the command fails and its stderr holds MESSAGE
  what=$1; msg=$2; shift 2
  if out=$("$@" 2>&1 >/dev/null); then echo "FAILED: $what ran"; fail=1; return; fi
  case "$out" in
    *"$msg"*) echo "ok: $what: $(echo "$out" | grep -F -e "$msg" | head -1)" ;;
    *) echo "FAILED: $what: no \"$msg\" in: $out"; fail=1 ;;
  esac
}
expect "an unknown exchange" "--exchange is host or nccl" "$one" --exchange ring
expect "nccl in snack-train" "snack-train-mpi's" "$one" --exchange nccl --backend cuda
if [ -n "$mpi" ]; then
  expect "nccl without --backend cuda" "add --backend cuda" "$mpiexec" -n 1 "$mpi" --exchange nccl
  # Without a GPU (or without NCCL in the build) every rank refuses the device exchange with DataParallel's message.
  if ! nvidia-smi -L >/dev/null 2>&1; then
    expect "nccl without a GPU" "DataParallel: " "$mpiexec" -n 1 "$mpi" --exchange nccl --backend cuda
  fi
fi
exit $fail
