#!/usr/bin/env bash
# scripts/tsan.sh: runs the concurrency test (tests/capi/test_threads.cpp: 8 user threads, every operation,
# each thread on its own backend, against one thread's results) under ThreadSanitizer.
#
# Builds libsnack, the reference backend's plugin and test_threads with -fsanitize=thread into build-tsan/
# (CUDA off: the sanitizer does not see into the GPU), then runs the test. Kokkos' OpenMP pool and
# SuiteSparse's OpenMP are run with one thread (OMP_NUM_THREADS=1): libgomp is not instrumented, so the
# sanitizer cannot see its barriers and would report the pool's own hand-offs; what is checked is what the
# library promises, that user threads calling it at once on their own objects do not race. Prints the test's
# summary and the sanitizer's verdict; exits non-zero on a failed test or any sanitizer report.
# Usage: scripts/tsan.sh   (SNACK_TSAN_BUILD_DIR picks the build folder; SNACK_JOBS the build's jobs)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${SNACK_TSAN_BUILD_DIR:-build-tsan}"
jobs="${SNACK_JOBS:-$(nproc)}"
flags="-fsanitize=thread -g -O1"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=thread" \
  -DSNACK_ENABLE_CUDA=OFF -DSNACK_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target snack snack_reference test_threads
log="$build/tsan.log"
set +e
OMP_NUM_THREADS=1 TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 history_size=4" \
  "$build/tests/capi/test_threads" >"$log" 2>&1
rc=$?
set -e
reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
grep -E "^\[threads\]|^\[  (PASSED|FAILED) |tests ran" "$log" || true
echo "[tsan] test exit status $rc, ThreadSanitizer reports: $reports (full log: $log)"
[ "$rc" -eq 0 ] && [ "$reports" -eq 0 ]
