// spmm/semiring.cuh: the semiring functors the SpMM kernels are templated on, and value conversions.
//
// A semiring functor gives acc_t (the accumulator type), identity(), add(a, b) (the monoid) and
// muladd(acc, w, x) = add(acc, mul(w, x)). Two kinds exist, to keep the number of instantiations small:
//   - PlusTimes: the fast path, a compile-time fused multiply-add in fp32 for fp32/fp16/bf16 values;
//   - RuntimeSemiring<T>: any builtin monoid and multiply of the value type T, chosen by run-time opcodes
//     (a warp-uniform switch per operation; every builtin GraphBLAS semiring over T goes through it). Its
//     arithmetic and identities are src/algebra/builtin_ops.hpp's, what the algebra and the kokkos kernels compute.
// Conversions between storage types (half, bfloat16) and accumulators live here too.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "algebra/builtin_ops.hpp"
#include "spmm/dispatch.hpp"

namespace snk::cuda {

// ---- conversions between a storage type and its accumulator ----------------------------------------------
template <class T> struct AccumulatorOf { using type = T; };
template <> struct AccumulatorOf<__half> { using type = float; };
template <> struct AccumulatorOf<__nv_bfloat16> { using type = float; };

template <class A, class V> __device__ __forceinline__ A to_acc(V v) { return static_cast<A>(v); }
template <> __device__ __forceinline__ float to_acc<float, __half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_acc<float, __nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <class V, class A> __device__ __forceinline__ V from_acc(A a) { return static_cast<V>(a); }
template <> __device__ __forceinline__ __half from_acc<__half, float>(float a) { return __float2half_rn(a); }
template <> __device__ __forceinline__ __nv_bfloat16 from_acc<__nv_bfloat16, float>(float a) {
  return __float2bfloat16_rn(a);
}

// ---- plus_times: the fast path ------------------------------------------------------------------------------
struct PlusTimes {
  using acc_t = float;
  __device__ __forceinline__ float identity() const { return 0.0f; }
  __device__ __forceinline__ float add(float a, float b) const { return a + b; }
  __device__ __forceinline__ float mul(float w, float x) const { return w * x; }
  __device__ __forceinline__ float muladd(float acc, float w, float x) const { return fmaf(w, x, acc); }
};

// ---- any builtin semiring over T, ops chosen at run time ------------------------------------------------
// The operators are algebra/builtin_ops.hpp's (ops::binary_apply, ops::monoid_identity): each case of the switches
// below only names the opcode whose definition it calls.
template <class T>
struct RuntimeSemiring {
  using acc_t = T;
  BinaryOpcode add_op;
  BinaryOpcode mul_op;
  bool swap;   // mul(x, w) instead of mul(w, x)

  __device__ __forceinline__ T identity() const {
    using B = BinaryOpcode;
    switch (add_op) {
      case B::Times: return identity_of<B::Times>();
      case B::Min: return identity_of<B::Min>();
      case B::Max: return identity_of<B::Max>();
      case B::LOr: return identity_of<B::LOr>();
      case B::LAnd: return identity_of<B::LAnd>();
      case B::LXor: return identity_of<B::LXor>();
      case B::LXnor: return identity_of<B::LXnor>();
      default: return identity_of<B::Plus>();
    }
  }
  __device__ __forceinline__ T add(T a, T b) const {
    using B = BinaryOpcode;
    switch (add_op) {
      case B::Times: return op<B::Times>(a, b);
      case B::Min: return op<B::Min>(a, b);
      case B::Max: return op<B::Max>(a, b);
      case B::LOr: return op<B::LOr>(a, b);
      case B::LAnd: return op<B::LAnd>(a, b);
      case B::LXor: return op<B::LXor>(a, b);
      case B::LXnor: return op<B::LXnor>(a, b);
      default: return op<B::Plus>(a, b);
    }
  }
  __device__ __forceinline__ T mul(T w, T x) const {
    using B = BinaryOpcode;
    const T a = swap ? x : w, b = swap ? w : x;
    switch (mul_op) {
      case B::First: return a;
      case B::Second: return b;
      case B::Oneb: return T(1);
      case B::Min: return op<B::Min>(a, b);
      case B::Max: return op<B::Max>(a, b);
      case B::Plus: return op<B::Plus>(a, b);
      case B::Minus: return op<B::Minus>(a, b);
      case B::Div: return op<B::Div>(a, b);
      case B::Eq: return op<B::Eq>(a, b);
      case B::Ne: return op<B::Ne>(a, b);
      case B::Gt: return op<B::Gt>(a, b);
      case B::Lt: return op<B::Lt>(a, b);
      case B::Ge: return op<B::Ge>(a, b);
      case B::Le: return op<B::Le>(a, b);
      case B::LOr: return op<B::LOr>(a, b);
      case B::LAnd: return op<B::LAnd>(a, b);
      case B::LXor: return op<B::LXor>(a, b);
      case B::LXnor: return op<B::LXnor>(a, b);
      default: return op<B::Times>(a, b);
    }
  }
  __device__ __forceinline__ T muladd(T acc, T w, T x) const { return add(acc, mul(w, x)); }

 private:
  // The builtin operator Op on T, its result (bool for comparisons and the logical operators) in T: 1 or 0.
  template <BinaryOpcode Op>
  __device__ static __forceinline__ T op(T a, T b) {
    return static_cast<T>(ops::binary_apply<Op, T>(a, b));
  }
  // The monoid's identity on T (spmm() refuses a monoid that is not a builtin one on the call's type, so the other
  // branch is never taken).
  template <BinaryOpcode Op>
  __device__ static __forceinline__ T identity_of() {
    if constexpr (ops::monoid_defined<Op, T>()) return ops::monoid_identity<Op, T>();
    else return T(0);
  }
};

}  // namespace snk::cuda
