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

#include "spmm/loads.cuh"
#include "two_four/warp_mma.cuh"
#include "two_four/warpgroup_mma.cuh"

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

// wgmma.mma_async.sp m64nNk32 (BF16): two warpgroups per block, one block per SM, A and the metadata in registers,
// B a 32 x N slice of shared memory that every instruction reads again; `Depth` instructions per commit group, one
// group kept in flight while the next is issued.
template <int N, int Depth>
__global__ void __launch_bounds__(256, 1) warpgroup_peak(float* sink, std::uint32_t seed) {
#if SNK_HAVE_WGMMA
  extern __shared__ __align__(1024) unsigned char b_raw[];
  unsigned char* b = b_raw + ((1024 - (snk::cuda::shared_address(b_raw) & 1023)) & 1023);
  for (int i = threadIdx.x; i < N * 128 / 4; i += blockDim.x)
    reinterpret_cast<std::uint32_t*>(b)[i] = (seed + i) * 0x3c003c00u & 0x3f803f80u;   // small bf16 pairs
  snk::cuda::async_proxy_fence();   // the stores, visible to wgmma's reads
  __syncthreads();
  float acc[N / 2] = {};
  const std::uint32_t a0 = (seed ^ threadIdx.x) & 0x3f803f80u;
  const std::uint32_t a[4] = {a0, a0 >> 1, a0, a0 >> 1}, e = 0x44444444u;
  const std::uint64_t desc = snk::cuda::swizzle128_descriptor(snk::cuda::shared_address(b));
  for (int it = 0; it < kIters / Depth; ++it) {
    snk::cuda::fence_accumulators(acc);
    snk::cuda::wgmma_fence();
#pragma unroll
    for (int d = 0; d < Depth; ++d)
      snk::cuda::wgmma_sp<snk::cuda::TwoFourType::BF16, N>(acc, a, desc + (d & 1) * 4, e);
    snk::cuda::wgmma_commit();
    snk::cuda::wgmma_wait<1>();
    snk::cuda::fence_accumulators(acc);
  }
  snk::cuda::wgmma_wait<0>();
  snk::cuda::fence_accumulators(acc);
  float s = 0;
  for (int i = 0; i < N / 2; ++i) s += acc[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
#else
  if (seed == 0) sink[0] = 0;   // not built for this architecture: nothing to measure
#endif
}

template <int N, int Depth>
double warpgroup_tflops(int blocks, float* sink) {
  const int smem = N * 128 + 1024;
  cudaFuncSetAttribute(warpgroup_peak<N, Depth>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  warpgroup_peak<N, Depth><<<blocks, 256, smem>>>(sink, 1);
  cudaEventRecord(a);
  warpgroup_peak<N, Depth><<<blocks, 256, smem>>>(sink, 2);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  if (cudaGetLastError() != cudaSuccess) return 0;
  const double flops = 2.0 * 64 * N * 32 * (kIters / Depth * Depth) * (blocks * 2.0);
  return flops / ms * 1e-9;
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
  if (prop.major == 9 && prop.minor == 0) {
    std::printf("\nwgmma.mma_async.sp m64nNk32 bf16 (2:4 A in registers, B from shared memory), one block of two "
                "warpgroups per SM, dense-equivalent TFLOPS\n");
    std::printf("N      4 per group  8 per group\n");
    const int n = prop.multiProcessorCount;
    std::printf("256  %11.1f  %11.1f\n", warpgroup_tflops<256, 4>(n, sink), warpgroup_tflops<256, 8>(n, sink));
    std::printf("128  %11.1f  %11.1f\n", warpgroup_tflops<128, 4>(n, sink), warpgroup_tflops<128, 8>(n, sink));
    std::printf(" 64  %11.1f  %11.1f\n", warpgroup_tflops<64, 4>(n, sink), warpgroup_tflops<64, 8>(n, sink));
  }
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "mma_peak: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
