// tests/graphchallenge/cuda_emulation.hpp: just enough of CUDA's device built-ins, on host threads, for the tiled
// engine's kernels (graphchallenge/engine/tiled_kernels.cuh) to compile with a host compiler and run a grid: one OS
// thread per CUDA thread of a block (128 of them, kept for the whole run), blocks one after another, __shared__
// variables as function statics (one block runs at a time), __syncthreads as a barrier of the block, and the FP64
// tensor-core product (mma m8n8k4) as a barrier of the warp around an exchange of the lanes' fragments. Include it
// before tiled_kernels.cuh, in a test only: it defines the CUDA keywords as macros.
#pragma once

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

namespace snk::gc::emulation {
inline thread_local dim3 thread_index, block_index;
inline dim3 grid_size, block_size;
inline std::barrier<>* block_barrier = nullptr;
inline std::deque<std::barrier<>>* warp_barriers = nullptr;   // one per warp of the block
inline std::vector<double> mma_a, mma_b;           // per warp, each lane's A and B element
}  // namespace snk::gc::emulation

#define threadIdx (snk::gc::emulation::thread_index)
#define blockIdx (snk::gc::emulation::block_index)
#define gridDim (snk::gc::emulation::grid_size)
#define blockDim (snk::gc::emulation::block_size)
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __shared__ alignas(16) static
#define __align__(n)

template <class T>
T __ldg(const T* p) {
  return *p;
}
inline void __syncthreads() { snk::gc::emulation::block_barrier->arrive_and_wait(); }
using std::fma;
using std::min;

namespace snk::gc::tiled {
// D (8 x 8) += A (8 x 4) B (4 x 8) as the warp's lanes hold them (lane l: A(l / 4, l % 4), B(l % 4, l / 4),
// D(l / 4, 2 (l % 4) + i)); each element of D sums its four products in k order with fma.
inline void mma_f64(double (&d)[2], double a, double b) {
  using namespace snk::gc::emulation;
  const unsigned lane = thread_index.x & 31, warp = thread_index.x >> 5;
  const unsigned g = lane >> 2, k4 = lane & 3;
  mma_a[warp * 32 + lane] = a;
  mma_b[warp * 32 + lane] = b;
  (*warp_barriers)[warp].arrive_and_wait();
  double r[2];
  for (unsigned i = 0; i < 2; ++i) {
    const unsigned col = 2 * k4 + i;
    r[i] = d[i];
    for (unsigned k = 0; k < 4; ++k) r[i] = std::fma(mma_a[warp * 32 + g * 4 + k], mma_b[warp * 32 + col * 4 + k], r[i]);
  }
  (*warp_barriers)[warp].arrive_and_wait();   // every lane has read the fragments before any writes the next
  d[0] = r[0];
  d[1] = r[1];
}
}  // namespace snk::gc::tiled

namespace snk::gc::emulation {

// Runs `kernel` (a callable taking no arguments, reading the built-ins) on a grid of grid.x x grid.y blocks of `threads`
// threads (a multiple of 32), block after block.
inline void launch(dim3 grid, unsigned threads, const std::function<void()>& kernel) {
  grid_size = grid;
  block_size = dim3{threads, 1, 1};
  std::barrier<> block(static_cast<std::ptrdiff_t>(threads));
  std::deque<std::barrier<>> warps;   // not movable: built in place
  for (unsigned w = 0; w < threads / 32; ++w) warps.emplace_back(32);
  block_barrier = &block;
  warp_barriers = &warps;
  mma_a.assign(threads, 0.0);
  mma_b.assign(threads, 0.0);
  // The block's threads, kept for the whole grid: each waits at `start` for the next block (or the end), runs the
  // kernel on it and arrives at `done`; this thread sets the block between the two.
  std::barrier<> start(static_cast<std::ptrdiff_t>(threads) + 1), done(static_cast<std::ptrdiff_t>(threads) + 1);
  dim3 current;
  bool stop = false;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      thread_index = dim3{t, 0, 0};
      for (;;) {
        start.arrive_and_wait();
        if (stop) return;
        block_index = current;
        kernel();
        done.arrive_and_wait();
      }
    });
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      current = dim3{bx, by, 0};
      start.arrive_and_wait();
      done.arrive_and_wait();
    }
  stop = true;
  start.arrive_and_wait();
  for (std::thread& t : pool) t.join();
}

}  // namespace snk::gc::emulation
