// scripts/racecheck_patterns.cu: which ways of ordering shared-memory reads before a rewrite compute-sanitizer's
// racecheck recognises. Each pattern is correct under the PTX memory model; the ones racecheck does not recognise
// are reported as hazards, which is how a racecheck error in a project kernel that uses one is told from a race.
//
// One block of 256 threads: every thread reads a shared buffer, then thread 0 (or the last warp done) rewrites it by
// a plain store, by cp.async, or by a bulk copy (cp.async.bulk), after one of these orderings:
//   0 __syncthreads;
//   1 an mbarrier on which every thread arrives, the writer waiting on it;
//   2 __syncwarp, then lane 0 of each warp arrives on the mbarrier (count 8);
//   3 lane 0 of each warp arrives on the mbarrier, no __syncwarp;
//   4 __syncwarp, lane 0 fences and adds to a shared counter; the warp that counts last fences and writes.
// Build and run on a GPU of compute capability 9.0:
//   nvcc -O2 -arch=sm_90a -lineinfo -o racecheck_patterns scripts/racecheck_patterns.cu
//   compute-sanitizer --tool racecheck ./racecheck_patterns
// bench/results/gpu-tests-h200.md has what CUDA 13's racecheck reported.
#include <cstdint>
#include <cstdio>

namespace {

__device__ unsigned smem_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ void bar_init(std::uint64_t* b, int n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(b)), "r"(n));
}
__device__ void bar_arrive(std::uint64_t* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_address(b)) : "memory");
}
__device__ void bar_wait(std::uint64_t* b, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT;\n}" ::"r"(
          smem_address(b)),
      "r"(parity)
      : "memory");
}

enum Write { kStore, kCpAsync, kBulk };

template <int Pattern, Write W>
__global__ void pattern_kernel(const float* g, float* out) {
  __shared__ float buf[256];
  __shared__ std::uint64_t done_reading, copied;
  __shared__ int count;
  const int t = threadIdx.x, lane = t & 31;
  buf[t] = g[t];
  if (t == 0) {
    bar_init(&done_reading, Pattern == 1 ? 256 : 8);
    bar_init(&copied, 1);
    count = 0;
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const float v = buf[(t * 7) % 256];   // every thread reads
  bool writer = t == 0;
  if (Pattern == 0) __syncthreads();
  if (Pattern == 1) bar_arrive(&done_reading);
  if (Pattern == 2) {
    __syncwarp();
    if (lane == 0) bar_arrive(&done_reading);
  }
  if (Pattern == 3 && lane == 0) bar_arrive(&done_reading);
  if (Pattern == 4) {
    __syncwarp();
    writer = false;
    if (lane == 0) {
      __threadfence_block();
      writer = atomicAdd(&count, 1) == 7;
      if (writer) __threadfence_block();
    }
  }
  if (writer) {
    if (Pattern >= 1 && Pattern <= 3) bar_wait(&done_reading, 0);
    if (W == kBulk) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(smem_address(&copied)) : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(
                       smem_address(buf)),
                   "l"(g + 256), "r"(smem_address(&copied))
                   : "memory");
      bar_wait(&copied, 0);
    } else {
      for (int i = 0; i < 256; ++i) {
        if (W == kCpAsync)
          asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_address(buf + i)), "l"(g + 256 + i));
        else
          buf[i] = g[256 + i];
      }
      if (W == kCpAsync) asm volatile("cp.async.wait_all;" ::: "memory");
    }
  }
  out[t] = v;
}

template <int Pattern, Write W>
void run(const float* g, float* out) {
  static const char* writes[] = {"store", "cp.async", "bulk copy"};
  pattern_kernel<Pattern, W><<<1, 256>>>(g, out);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("pattern %d, %s: %s\n", Pattern, writes[W], cudaGetErrorString(e));
  std::fflush(stdout);   // between racecheck's reports, which it prints as each kernel ends
}

template <int Pattern>
void run_all(const float* g, float* out) {
  run<Pattern, kStore>(g, out);
  run<Pattern, kCpAsync>(g, out);
  run<Pattern, kBulk>(g, out);
}

}  // namespace

int main() {
  float *g = nullptr, *out = nullptr;
  if (cudaMalloc(&g, 512 * sizeof(float)) != cudaSuccess || cudaMalloc(&out, 256 * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "racecheck_patterns: no GPU memory\n");
    return 1;
  }
  cudaMemset(g, 0, 512 * sizeof(float));
  run_all<0>(g, out);
  run_all<1>(g, out);
  run_all<2>(g, out);
  run_all<3>(g, out);
  run_all<4>(g, out);
  return 0;
}
