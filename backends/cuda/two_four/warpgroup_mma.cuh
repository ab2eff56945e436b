// two_four/warpgroup_mma.cuh: the warpgroup-level instructions of the Hopper 2:4 kernels (two_four_gemm.cu):
// wgmma.mma_async.sp m64nNk32 with the compressed A in registers and B read from shared memory through a matrix
// descriptor, FP16 or BF16 inputs and FP32 accumulators, and the fences around them. They exist on sm_90a only:
// every use sits under SNK_HAVE_WGMMA, and the host side asks warpgroup_supports() (two_four_gemm.cu) before launching a kernel
// built from them.
//
// Fragments (PTX ISA, wgmma.mma_async.sp with 16-bit inputs): warp q of the warpgroup (q = warp % 4) owns rows
// 16 q .. 16 q + 15 of the m64 tile. Its A fragment and metadata word are those of mma.sp m16n8k32 for its 16 rows
// (warp_mma.cuh; sparsity selector 0). Accumulator d[4 j + r] of lane l holds row 16 q + l / 4 (+ 8 for r >= 2),
// column 8 j + 2 (l % 4) (+ 1 for odd r): the m16n8 layout repeated N / 8 times.
#pragma once

#include <cstdint>

#include "two_four/two_four_gemm.hpp"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SNK_HAVE_WGMMA 1
#else
#define SNK_HAVE_WGMMA 0
#endif

namespace snk::cuda {

// The descriptor of a B operand stored K-major with the 128-byte swizzle: rows (columns of B) of 128 bytes, the
// 16-byte chunk c of row n at chunk c ^ (n % 8), groups of 8 rows 1024 bytes apart, the group's base 1024-byte
// aligned. `addr` is the shared-space address of row 0 at the K offset wanted (a multiple of 32 bytes).
__device__ __forceinline__ std::uint64_t swizzle128_descriptor(std::uint32_t addr) {
  return static_cast<std::uint64_t>((addr & 0x3ffff) >> 4)   // start address, 16-byte units
         | (1ull << 16)                                       // leading-dimension offset: unused by this layout
         | (64ull << 32)                                      // stride between 8-row groups: 1024 bytes
         | (1ull << 62);                                      // 128-byte swizzle
}

#if SNK_HAVE_WGMMA

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}
// Keeps the compiler from moving accumulator reads or writes across an in-flight wgmma.
template <int R>
__device__ __forceinline__ void fence_accumulators(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

#define SNK_WGMMA_SP_D256 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"
#define SNK_WGMMA_SP_D128 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define SNK_WGMMA_SP_D64 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define SNK_F8(o) "+f"(d[o]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3]), "+f"(d[o + 4]), "+f"(d[o + 5]), \
                  "+f"(d[o + 6]), "+f"(d[o + 7])
#define SNK_F32(o) SNK_F8(o), SNK_F8(o + 8), SNK_F8(o + 16), SNK_F8(o + 24)
#define SNK_WGMMA_SP(n, type, rest, ...)                                                                  \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                                                       \
               "wgmma.mma_async.sp.sync.aligned.m64n" #n "k32.f32." type "." type " " SNK_WGMMA_SP_D##n ", " rest \
               ";\n}\n"                                                                                         \
               : __VA_ARGS__                                                                                    \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(e))

// d += A B: A the warpgroup's 64 x 32 block kept 2:4 (a: this warp's compressed 16 x 16 fragment, e: its metadata
// word), B 32 x N from shared memory (b_desc), FP32 d of N / 2 registers.
template <TwoFourType T, int N>
__device__ __forceinline__ void wgmma_sp(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t b_desc,
                                         std::uint32_t e) {
  static_assert(N == 256 || N == 128 || N == 64, "the shapes instantiated");
  if constexpr (N == 256) {
    if constexpr (T == TwoFourType::FP16)
      SNK_WGMMA_SP(256, "f16", "{%128, %129, %130, %131}, %132, %133, 0, p, 1, 1, 0",
                   SNK_F32(0), SNK_F32(32), SNK_F32(64), SNK_F32(96));
    else
      SNK_WGMMA_SP(256, "bf16", "{%128, %129, %130, %131}, %132, %133, 0, p, 1, 1, 0",
                   SNK_F32(0), SNK_F32(32), SNK_F32(64), SNK_F32(96));
  } else if constexpr (N == 128) {
    if constexpr (T == TwoFourType::FP16)
      SNK_WGMMA_SP(128, "f16", "{%64, %65, %66, %67}, %68, %69, 0, p, 1, 1, 0", SNK_F32(0), SNK_F32(32));
    else
      SNK_WGMMA_SP(128, "bf16", "{%64, %65, %66, %67}, %68, %69, 0, p, 1, 1, 0", SNK_F32(0), SNK_F32(32));
  } else {
    if constexpr (T == TwoFourType::FP16)
      SNK_WGMMA_SP(64, "f16", "{%32, %33, %34, %35}, %36, %37, 0, p, 1, 1, 0", SNK_F32(0));
    else
      SNK_WGMMA_SP(64, "bf16", "{%32, %33, %34, %35}, %36, %37, 0, p, 1, 1, 0", SNK_F32(0));
  }
}

#undef SNK_WGMMA_SP
#undef SNK_F32
#undef SNK_F8

#endif  // SNK_HAVE_WGMMA

}  // namespace snk::cuda
