#!/usr/bin/env bash
# scripts/build-gpu.sh: configures build-gpu/ with CUDA on and builds every GPU-side target (the aggregate
# target `snack_gpu`: CUDA backend libraries, GPU tests, GPU benchmarks). Runs on a machine with nvcc; no
# GPU needed. The binaries then travel to a GPU machine, where scripts/run-gpu-tests.sh runs them.
# Usage: scripts/build-gpu.sh [extra cmake args...]   (JOBS=n sets the parallelism, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build-gpu}
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DSNACK_ENABLE_CUDA=ON -DSNACK_ENABLE_KOKKOS=OFF "$@" >/dev/null
cmake --build "$BUILD" --target snack_gpu -j "${JOBS:-2}"
echo "build-gpu: built target snack_gpu in $BUILD (commit $COMMIT)"
