// two_four/warp_mma.cuh: the warp-level instructions the 2:4 kernels are built from, shared by two_four_gemm.cu and
// the benchmark that measures their ceiling (bench/two_four/mma_peak.cu): mma.sp m16n8k32 with a 2:4 A in FP16 or
// BF16 and FP32 accumulators, and ldmatrix of four 8 x 8 tiles of 16-bit values.
#pragma once

#include <cstdint>

#include "two_four/two_four_gemm.hpp"

namespace snk::cuda {

// Four 8 x 8 tiles from shared memory (`addr`, a shared-space address): lanes 8 q .. 8 q + 7 give the row addresses
// of tile q; register q of lane l holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of tile q.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// d += A B for a 16 x 32 A kept 2:4 (a: its compressed 16 x 16 fragment; e: the metadata fragment, sparsity selector
// 0) and a 32 x 8 B (b), in T, with FP32 d.
template <TwoFourType T>
__device__ __forceinline__ void mma_sp(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[4],
                                       std::uint32_t e) {
  if constexpr (T == TwoFourType::FP16) {
    asm volatile(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, 0x0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e));
  } else {
    asm volatile(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, 0x0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e));
  }
}

}  // namespace snk::cuda
