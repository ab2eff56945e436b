// spmm/loads.cuh: the memory access helpers the SpMM kernels share.
//
// The sparse matrix is streamed once per call, so its values and packed column indices are read in
// chunks of four consecutive non-zeros with the widest load that fits (16 bytes for fp32 values, 8 for the
// four 16-bit columns), through the non-coherent path without allocating in L1 (L1 is left to the rows
// of X, which are reused). Chunks that would read past the end of an array are read element by element.
// X rows are read 4 values at a time (the caller guarantees 4-value alignment of X's rows).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace snk::cuda {

template <class T> struct Four { T v[4]; };

// Bytes of four values of T as one aligned load type.
template <int Bytes> struct LoadWord;
template <> struct LoadWord<4> { using type = unsigned int; };
template <> struct LoadWord<8> { using type = uint2; };
template <> struct LoadWord<16> { using type = uint4; };

__device__ __forceinline__ uint4 ld_stream(const uint4* p) {
  uint4 r;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  return r;
}
__device__ __forceinline__ uint2 ld_stream(const uint2* p) {
  uint2 r;
  asm("ld.global.nc.L1::no_allocate.v2.u32 {%0,%1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
  return r;
}
__device__ __forceinline__ unsigned int ld_stream(const unsigned int* p) {
  unsigned int r;
  asm("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(r) : "l"(p));
  return r;
}

// Four consecutive values starting at p (p aligned to 4 * sizeof(T)), streamed.
template <class T>
__device__ __forceinline__ Four<T> load_four_stream(const T* p) {
  Four<T> out;
  if constexpr (sizeof(T) * 4 <= 16) {
    using W = typename LoadWord<sizeof(T) * 4>::type;
    W w = ld_stream(reinterpret_cast<const W*>(p));
    memcpy(&out, &w, sizeof(out));
  } else {   // 8-byte types: two 16-byte loads
    uint4 a = ld_stream(reinterpret_cast<const uint4*>(p));
    uint4 b = ld_stream(reinterpret_cast<const uint4*>(p) + 1);
    memcpy(&out.v[0], &a, 16);
    memcpy(&out.v[2], &b, 16);
  }
  return out;
}

// One chunk of four non-zeros at `base` (a multiple of 4): values (read one by one past nnz) and packed
// columns (the plan pads them, so always in bounds).
template <class VT>
__device__ __forceinline__ void load_chunk(const VT* vals, const std::uint16_t* col16, std::int64_t nnz,
                                           std::int64_t base, Four<VT>& w, Four<std::uint16_t>& c) {
  c = load_four_stream(col16 + base);   // col16 is padded: always in bounds
  if (base + 4 <= nnz) {
    w = load_four_stream(vals + base);
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) w.v[i] = base + i < nnz ? vals[base + i] : VT{};
  }
}

// Four consecutive values through the read-only cache (L1-allocating): rows of X.
template <class T>
__device__ __forceinline__ Four<T> load_four_cached(const T* p) {
  Four<T> out;
  if constexpr (sizeof(T) == 4) {
    uint4 w = __ldg(reinterpret_cast<const uint4*>(p));
    memcpy(&out, &w, 16);
  } else if constexpr (sizeof(T) == 2) {
    uint2 w = __ldg(reinterpret_cast<const uint2*>(p));
    memcpy(&out, &w, 8);
  } else if constexpr (sizeof(T) == 1) {
    unsigned int w = __ldg(reinterpret_cast<const unsigned int*>(p));
    memcpy(&out, &w, 4);
  } else {
    uint4 a = __ldg(reinterpret_cast<const uint4*>(p));
    uint4 b = __ldg(reinterpret_cast<const uint4*>(p) + 1);
    memcpy(&out.v[0], &a, 16);
    memcpy(&out.v[2], &b, 16);
  }
  return out;
}

template <class T>
__device__ __forceinline__ T load_one_cached(const T* p) {
  if constexpr (std::is_same_v<T, bool>) {
    return __ldg(reinterpret_cast<const unsigned char*>(p)) != 0;
  } else if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
    unsigned short s = __ldg(reinterpret_cast<const unsigned short*>(p));
    T r;
    memcpy(&r, &s, 2);
    return r;
  } else {
    return __ldg(p);
  }
}

// Warp shuffle of any value type up to 8 bytes.
template <class T>
__device__ __forceinline__ T shfl_xor_any(T v, int lane_mask, int width) {
  if constexpr (sizeof(T) == 8) {
    long long b;
    memcpy(&b, &v, 8);
    b = __shfl_xor_sync(0xffffffffu, b, lane_mask, width);
    memcpy(&v, &b, 8);
    return v;
  } else if constexpr (sizeof(T) == 4) {
    int b;
    memcpy(&b, &v, 4);
    b = __shfl_xor_sync(0xffffffffu, b, lane_mask, width);
    memcpy(&v, &b, 4);
    return v;
  } else {
    int b = static_cast<int>(v);
    b = __shfl_xor_sync(0xffffffffu, b, lane_mask, width);
    return static_cast<T>(b);
  }
}

// cp.async of 16 bytes into shared memory; src_bytes = 0 zero-fills.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }

// Bulk (TMA) copies into shared memory that complete on an mbarrier (sm_90): the barrier's phase flips
// once the expected bytes have landed.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
}
// Makes initialized barriers visible to the bulk-copy unit.
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Orders this thread's earlier shared-memory accesses before its later bulk operations on shared memory (copies
// into it, reductions out of it).
__device__ __forceinline__ void async_proxy_fence() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}
// One arrival on bar, announcing `bytes` that bulk copies will bring (the phase completes when they have landed).
__device__ __forceinline__ void mbarrier_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
// One arrival on bar.
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}
// One arrival on bar once this thread's earlier cp.async copies have landed (counted in bar's expected arrivals).
__device__ __forceinline__ void cp_async_arrive(std::uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(shared_address(bar)) : "memory");
}
// bytes (a multiple of 16, both addresses 16-byte aligned) from global src to shared dst, completing on bar.
__device__ __forceinline__ void bulk_copy_to_shared(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
  mbarrier_expect_tx(bar, bytes);
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}

}  // namespace snk::cuda
