#!/usr/bin/env bash
# scripts/fuzz.sh: builds and runs the C API's libFuzzer targets (fuzz/fuzz_*.c), one after another.
#
# Builds libsnack with clang, AddressSanitizer and libFuzzer's coverage instrumentation into build-fuzz/
# (reference backend only, with its plugin libsnack_reference.so beside libsnack; Kokkos and CUDA are not
# needed to reach the readers), links each target with
# -fsanitize=fuzzer,address, and runs it for the given time on the committed seed corpus
# (fuzz/corpus/<target>/, read only). New inputs go to build-fuzz/corpus/<target>/ and crashes to
# build-fuzz/artifacts/, never into the repository.
# Usage: scripts/fuzz.sh [seconds per target, default 600] [target ...]   (targets: deserialize read_mtx)
# Needs clang and libclang-rt (Debian: clang libclang-rt-14-dev; scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(deserialize read_mtx)
build="${SNACK_FUZZ_BUILD_DIR:-build-fuzz}"
jobs="${SNACK_JOBS:-$(nproc)}"
flags="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer -g -O1"
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address" \
  -DSNACK_ENABLE_KOKKOS=OFF -DSNACK_ENABLE_CUDA=OFF -DSNACK_BUILD_TESTS=OFF -DSNACK_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target snack snack_reference
for t in "${targets[@]}"; do
  clang -std=c11 -g -O1 -fsanitize=fuzzer,address -DSNACK_C_API -Iinclude "fuzz/fuzz_$t.c" \
    -L"$build/src" -lsnack -Wl,-rpath,"$PWD/$build/src" -o "$build/fuzz_$t"
done
status=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
  echo "== fuzz_$t for $seconds s"
  if ! "$build/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 \
      -artifact_prefix="$build/artifacts/$t/" "$build/corpus/$t" "fuzz/corpus/$t"; then
    echo "fuzz_$t FAILED: see $build/artifacts/$t/"
    status=1
  fi
done
exit $status
