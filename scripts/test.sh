#!/usr/bin/env bash
# scripts/test.sh: the project's test command (the README's second command, and what CI runs).
#
# Installs what is missing (scripts/setup.sh: Debian packages, Kokkos with OpenMP, MNIST digits), builds
# everything (CUDA sources too when nvcc exists, even without a GPU), and runs the whole CTest suite. GPU
# tests skip with a printed reason where no GPU is present. Extra arguments go to ctest
# (e.g. scripts/test.sh -R mask). SNACK_BUILD_DIR picks the build folder (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD="${SNACK_BUILD_DIR:-build}"
JOBS="${SNACK_JOBS:-$(nproc)}"
start=$(date +%s)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release ${SNACK_CMAKE_ARGS:-}
cmake --build "$BUILD" -j "$JOBS"
echo "[test] build took $(( $(date +%s) - start )) s"
cd "$BUILD"
ctest --output-on-failure -j "$JOBS" "$@"
