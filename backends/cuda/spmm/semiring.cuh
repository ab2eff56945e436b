// spmm/semiring.cuh: the semiring functors the SpMM kernels are templated on, and value conversions.
//
// A semiring functor gives acc_t (the accumulator type), identity(), add(a, b) (the monoid) and
// muladd(acc, w, x) = add(acc, mul(w, x)). Two kinds exist, to keep the number of instantiations small:
//   - PlusTimes: the fast path, a compile-time fused multiply-add in fp32 for fp32/fp16/bf16 values;
//   - RuntimeSemiring<T>: any builtin monoid and multiply of the value type T, chosen by run-time op codes
//     (a warp-uniform switch per operation; every builtin GraphBLAS semiring over T goes through it). Its
//     arithmetic is src/algebra/builtin_ops.hpp's, the operators the algebra and the kokkos kernels compute.
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
template <class T>
struct RuntimeSemiring {
  using acc_t = T;
  AddOp add_op;
  MulOp mul_op;
  bool swap;   // f(x, w) instead of f(w, x) (Y = X W^T)

  __device__ __forceinline__ T identity() const {
    switch (add_op) {
      case AddOp::Times: return T(1);
      case AddOp::Min: return max_value();
      case AddOp::Max: return min_value();
      case AddOp::LAnd: return T(1);
      case AddOp::LXnor: return T(1);
      default: return T(0);   // Plus, LOr, LXor
    }
  }
  __device__ __forceinline__ T add(T a, T b) const {
    using B = BinaryOpcode;
    switch (add_op) {
      case AddOp::Plus: return op<B::Plus>(a, b);
      case AddOp::Times: return op<B::Times>(a, b);
      case AddOp::Min: return op<B::Min>(a, b);
      case AddOp::Max: return op<B::Max>(a, b);
      case AddOp::LOr: return op<B::LOr>(a, b);
      case AddOp::LAnd: return op<B::LAnd>(a, b);
      case AddOp::LXor: return op<B::LXor>(a, b);
      case AddOp::LXnor: return op<B::LXnor>(a, b);
    }
    return a;
  }
  __device__ __forceinline__ T mul(T w, T x) const {
    using B = BinaryOpcode;
    const T a = swap ? x : w, b = swap ? w : x;
    switch (mul_op) {
      case MulOp::Times: return op<B::Times>(a, b);
      case MulOp::Plus: return op<B::Plus>(a, b);
      case MulOp::Minus: return op<B::Minus>(a, b);
      case MulOp::RMinus: return op<B::Minus>(b, a);
      case MulOp::Div: return op<B::Div>(a, b);
      case MulOp::RDiv: return op<B::Div>(b, a);
      case MulOp::First: return a;
      case MulOp::Second: return b;
      case MulOp::Min: return op<B::Min>(a, b);
      case MulOp::Max: return op<B::Max>(a, b);
      case MulOp::Pair: return T(1);
      case MulOp::LOr: return op<B::LOr>(a, b);
      case MulOp::LAnd: return op<B::LAnd>(a, b);
      case MulOp::LXor: return op<B::LXor>(a, b);
      case MulOp::Eq: return op<B::Eq>(a, b);
      case MulOp::Ne: return op<B::Ne>(a, b);
      case MulOp::Gt: return op<B::Gt>(a, b);
      case MulOp::Lt: return op<B::Lt>(a, b);
      case MulOp::Ge: return op<B::Ge>(a, b);
      case MulOp::Le: return op<B::Le>(a, b);
    }
    return a;
  }
  __device__ __forceinline__ T muladd(T acc, T w, T x) const { return add(acc, mul(w, x)); }

 private:
  // The builtin operator Op on T, its result (bool for comparisons and the logical operators) in T: 1 or 0.
  template <BinaryOpcode Op>
  __device__ static __forceinline__ T op(T a, T b) {
    return static_cast<T>(ops::binary_apply<Op, T>(a, b));
  }
  __device__ static __forceinline__ T max_value() {
    if constexpr (std::is_same_v<T, float>) return __int_as_float(0x7f800000);
    else if constexpr (std::is_same_v<T, double>) return __longlong_as_double(0x7ff0000000000000LL);
    else if constexpr (std::is_same_v<T, bool>) return true;
    else return T(~T(0)) > T(0) ? T(~T(0)) : T(T(~T(0)) ^ (T(1) << (sizeof(T) * 8 - 1)));
  }
  __device__ static __forceinline__ T min_value() {
    if constexpr (std::is_same_v<T, float>) return __int_as_float(0xff800000);
    else if constexpr (std::is_same_v<T, double>) return __longlong_as_double(0xfff0000000000000LL);
    else if constexpr (std::is_same_v<T, bool>) return false;
    else return T(~T(0)) > T(0) ? T(0) : T(T(1) << (sizeof(T) * 8 - 1));
  }
};

}  // namespace snk::cuda
