// bench/two_four/mma_peak.cu: the instruction-level ceiling of the warp-level tensor-core instructions the 2:4 GEMM
// can use (two_four/warp_mma.cuh), measured on the GPU at hand: mma.sp m16n8k32 (2:4 A, FP16 and BF16, FP32
// accumulation) beside dense mma.sync m16n8k16 (FP16). Operands stay in registers (no memory traffic): each warp runs
// eight independent accumulator chains, enough to cover the instruction's latency, and blocks fill every SM several
// times over. The rate is reported in dense-equivalent TFLOPS (2 M N K per instruction, K the logical depth), the unit
// cuBLAS's dense rate and the 2:4 GEMM's are given in, so it bounds what any mma.sync-based kernel can reach; a kernel
// above it needs the warpgroup instructions (wgmma.sp). A second table gives mma.sp's rate by warps per SM and
// independent chains per warp: how much parallelism a kernel must hold to approach the ceiling.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdint>

#include "two_four/warp_mma.cuh"

namespace {

constexpr int kIters = 4096;

template <int Kind, int kChains>   // Kind 0: mma.sp f16, 1: mma.sp bf16, 2: mma.sync f16 dense
__global__ void __launch_bounds__(1024) peak(float* sink, std::uint32_t seed) {
  float acc[kChains][4] = {};
  const std::uint32_t a0 = seed ^ threadIdx.x;
  const std::uint32_t a[4] = {a0, a0 * 3u, a0 * 5u, a0 * 7u}, b[4] = {a0 + 1u, a0 + 2u, a0 + 3u, a0 + 4u};
  const std::uint32_t e = 0x44444444u;
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      if constexpr (Kind == 0) {
        snk::cuda::mma_sp<snk::cuda::TwoFourType::FP16>(acc[c], a, b, e);
      } else if constexpr (Kind == 1) {
        snk::cuda::mma_sp<snk::cuda::TwoFourType::BF16>(acc[c], a, b, e);
      } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      }
    }
  }
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 1234.5f) sink[threadIdx.x] = s;   // keeps the chains alive
}

template <int Kind, int kChains = 8>
double tflops(int blocks, float* sink, int threads = 256) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  peak<Kind, kChains><<<blocks, threads>>>(sink, 1);   // warm-up
  cudaEventRecord(a);
  peak<Kind, kChains><<<blocks, threads>>>(sink, 2);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  const double k = Kind == 2 ? 16 : 32;
  const double flops = 2.0 * 16 * 8 * k * kChains * kIters * (blocks * threads / 32.0);
  return flops / ms * 1e-9;
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::fprintf(stderr, "mma_peak: no CUDA device\n");
    return 1;
  }
  float* sink = nullptr;
  cudaMalloc(&sink, 256 * sizeof(float));
  const int blocks = prop.multiProcessorCount * 8;
  std::printf("# warp-level tensor-core ceilings: device=%s SMs=%d\n", prop.name, prop.multiProcessorCount);
  std::printf("instruction                                  dense-equivalent TFLOPS\n");
  std::printf("mma.sp m16n8k32 f16 (2:4 A), f32 acc          %8.1f\n", tflops<0>(blocks, sink));
  std::printf("mma.sp m16n8k32 bf16 (2:4 A), f32 acc         %8.1f\n", tflops<1>(blocks, sink));
  std::printf("mma.sync m16n8k16 f16 (dense), f32 acc        %8.1f\n", tflops<2>(blocks, sink));
  // One block per SM (a persistent grid) of 1 to 8 warps per scheduler.
  std::printf("\nmma.sp f16 by warps per SM (one block per SM) and chains per warp, dense-equivalent TFLOPS\n");
  std::printf("warps/SM   1 chain  2 chains  4 chains  8 chains\n");
  for (int warps : {4, 8, 16, 32}) {
    const int n = prop.multiProcessorCount, t = warps * 32;
    std::printf("%8d  %8.1f  %8.1f  %8.1f  %8.1f\n", warps, tflops<0, 1>(n, sink, t), tflops<0, 2>(n, sink, t),
                tflops<0, 4>(n, sink, t), tflops<0, 8>(n, sink, t));
  }
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "mma_peak: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
