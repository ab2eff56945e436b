#!/usr/bin/env bash
# scripts/spdnn.sh: the project's main job (the README's first command).
#
# Installs what is missing (scripts/setup.sh), builds, and runs `snack-spdnn` with its defaults: the SpDNN
# GraphChallenge at 1024 neurons x 120 layers on 60,000 inputs, on the best available engine (the fused GPU
# engine where a GPU is present, else the GraphBLAS formulation on the best CPU backend), with data the
# project generates itself (RadiX-Net network, MNIST-based inputs, truth from the reference backend). It
# prints the inference time, the rate in TeraEdges/s and PASS/FAIL. Arguments go to snack-spdnn
# (e.g. scripts/spdnn.sh --data official --backend reference; see snack-spdnn --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD="${SNACK_BUILD_DIR:-build}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release ${SNACK_CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD" -j "${SNACK_JOBS:-$(nproc)}" --target snack-spdnn
exec "$BUILD/graphchallenge/snack-spdnn" "$@"
