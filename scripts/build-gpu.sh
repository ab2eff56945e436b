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

# Where ../shared/data holds the official GraphChallenge subset, a binary cache of it goes beside the tests
# ($BUILD/gc/official-1024-120.bin, written by the challenge runner): scripts/run-gpu-tests.sh hands it to the
# fused engine's official-data test, so a GPU machine without the data still runs that test.
OFFICIAL=../shared/data/graphchallenge
if [ -d "$OFFICIAL/neuron1024" ]; then
  if cmake --build "$BUILD" --target snack-spdnn -j "${JOBS:-2}" >"$BUILD/gc-cache.log" 2>&1 &&
     "$BUILD/graphchallenge/snack-spdnn" --data official --repeat 1 --official-dir "$OFFICIAL" \
       --cache-dir "$BUILD/gc" >>"$BUILD/gc-cache.log" 2>&1 && [ -f "$BUILD/gc/official-1024-120.bin" ]; then
    echo "build-gpu: official-data cache in $BUILD/gc/official-1024-120.bin"
  else
    echo "build-gpu: could not write the official-data cache (see $BUILD/gc-cache.log); its GPU test will skip"
  fi
else
  echo "build-gpu: no official data in $OFFICIAL; the fused engine's official-data GPU test will skip"
fi
