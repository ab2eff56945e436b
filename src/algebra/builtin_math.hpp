// src/algebra/builtin_math.hpp: the value semantics of every builtin typecast and operator, one template
// per operation over the 11 builtin C++ types.
//
// These are the single definition of what a builtin operator computes, bit for bit as SuiteSparse:GraphBLAS
// 7.4 computes it (the reference backend), written so that every backend can inline them: the algebra's
// function pointers wrap them, and a kokkos or cuda kernel can call them directly (SNK_HD marks them host
// and device functions under nvcc). Where C leaves a result undefined, the rules are SuiteSparse's:
//   - casts: anything to bool is (x != 0); float to integer: NaN -> 0, out of range saturates (negative ->
//     0 for unsigned); integer to integer is the two's complement wrap;
//   - integer arithmetic wraps (computed in unsigned arithmetic, so there is no undefined behaviour);
//   - integer x / 0 is 0 when x == 0, else the type's max (x > 0) or min (x < 0); MINV(x) = 1 / x;
//   - MIN / MAX on floats are C's fmin / fmax: a quiet NaN operand is ignored (a signaling one gives NaN),
//     and which of -0 / +0 comes back is the C library's choice (glibc: y when x == y);
//   - BOOL arithmetic is renamed: PLUS = MAX = LOR, TIMES = MIN = LAND, MINUS = LXOR, DIV = FIRST,
//     AINV = ABS = IDENTITY, MINV = true;
//   - positional index-unary operators compute in int64: DIAGINDEX is j - (i + y).
// SuiteSparse evaluates a commutative operator (MIN, MAX, PLUS, TIMES, ...) as op(x, y) or op(y, x)
// depending on its code path (eWiseAdd, apply with a bound first operand, ...). The two differ only in the
// sign of a zero from float MIN/MAX and in which of two NaNs comes back, so tests comparing a backend with
// the reference should treat -0 == +0 and any NaN == any NaN for those operators.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define SNK_HD __host__ __device__ inline
#else
#define SNK_HD inline
#endif

namespace snk::math {

template <class T> constexpr bool is_bool_v = std::is_same_v<T, bool>;
template <class T> constexpr bool is_float_v = std::is_floating_point_v<T>;
template <class T> constexpr bool is_signed_int_v = std::is_integral_v<T> && std::is_signed_v<T>;
template <class T> constexpr bool is_unsigned_int_v = std::is_integral_v<T> && std::is_unsigned_v<T> && !is_bool_v<T>;
template <class T> constexpr bool is_int_v = is_signed_int_v<T> || is_unsigned_int_v<T>;

// An unsigned type at least as wide as int that holds T's bits (wrapping arithmetic without promotion to
// a signed int, whose overflow would be undefined).
template <class T>
using wrap_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// ---- typecasting ------------------------------------------------------------------------------------------
template <class To, class From>
SNK_HD To cast(From x) {
  if constexpr (is_bool_v<To>) {
    return x != From(0);
  } else if constexpr (is_float_v<From> && std::is_integral_v<To>) {
    if (x != x) return To(0);
    if constexpr (std::is_unsigned_v<To>) {
      if (x <= From(0)) return To(0);
    } else {
      if (x <= From(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    }
    if (x >= From(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return To(x);
  } else {
    return To(x);
  }
}

// ---- unary ------------------------------------------------------------------------------------------------
template <class T> SNK_HD T ainv(T x) {
  if constexpr (is_bool_v<T>) return x;
  else if constexpr (is_float_v<T>) return -x;
  else return T(wrap_t<T>(0) - wrap_t<T>(x));
}

template <class T> SNK_HD T abs(T x) {
  if constexpr (is_bool_v<T> || is_unsigned_int_v<T>) return x;
  else if constexpr (std::is_same_v<T, float>) return ::fabsf(x);
  else if constexpr (std::is_same_v<T, double>) return ::fabs(x);
  else return x < 0 ? ainv(x) : x;
}

// The library's float-only extensions (SNK_SQRT / EXP / LOG / TANH): C's functions, as SuiteSparse's GxB_SQRT,
// GxB_EXP, GxB_LOG and GxB_TANH compute them (a GPU's results may differ from the host's in the last bits).
template <class T> SNK_HD T sqrt_of(T x) {
  if constexpr (std::is_same_v<T, float>) return ::sqrtf(x);
  else return ::sqrt(x);
}
template <class T> SNK_HD T exp_of(T x) {
  if constexpr (std::is_same_v<T, float>) return ::expf(x);
  else return ::exp(x);
}
template <class T> SNK_HD T log_of(T x) {
  if constexpr (std::is_same_v<T, float>) return ::logf(x);
  else return ::log(x);
}
template <class T> SNK_HD T tanh_of(T x) {
  if constexpr (std::is_same_v<T, float>) return ::tanhf(x);
  else return ::tanh(x);
}

template <class T> SNK_HD T div(T x, T y) {
  if constexpr (is_bool_v<T>) {
    (void)y;
    return x;
  } else if constexpr (is_float_v<T>) {
    return x / y;
  } else if constexpr (is_unsigned_int_v<T>) {
    if (y == 0) return x == 0 ? T(0) : std::numeric_limits<T>::max();
    return T(x / y);
  } else {
    if (y == T(-1)) return ainv(x);
    if (y == 0) return x == 0 ? T(0) : (x < 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max());
    return T(x / y);
  }
}

template <class T> SNK_HD T minv(T x) {
  if constexpr (is_bool_v<T>) {
    (void)x;
    return true;
  } else {
    return div(T(1), x);
  }
}

template <class T> SNK_HD T bnot(T x) { return T(~x); }

// ---- binary -----------------------------------------------------------------------------------------------
template <class T> SNK_HD T min(T x, T y) {
  if constexpr (is_bool_v<T>) return x && y;
  else if constexpr (std::is_same_v<T, float>) return ::fminf(x, y);
  else if constexpr (std::is_same_v<T, double>) return ::fmin(x, y);
  else return y < x ? y : x;
}

template <class T> SNK_HD T max(T x, T y) {
  if constexpr (is_bool_v<T>) return x || y;
  else if constexpr (std::is_same_v<T, float>) return ::fmaxf(x, y);
  else if constexpr (std::is_same_v<T, double>) return ::fmax(x, y);
  else return y > x ? y : x;
}

template <class T> SNK_HD T plus(T x, T y) {
  if constexpr (is_bool_v<T>) return x || y;
  else if constexpr (is_float_v<T>) return x + y;
  else return T(wrap_t<T>(x) + wrap_t<T>(y));
}

template <class T> SNK_HD T minus(T x, T y) {
  if constexpr (is_bool_v<T>) return x != y;
  else if constexpr (is_float_v<T>) return x - y;
  else return T(wrap_t<T>(x) - wrap_t<T>(y));
}

template <class T> SNK_HD T times(T x, T y) {
  if constexpr (is_bool_v<T>) return x && y;
  else if constexpr (is_float_v<T>) return x * y;
  else return T(wrap_t<T>(x) * wrap_t<T>(y));
}

template <class T> SNK_HD T bor(T x, T y) { return T(x | y); }
template <class T> SNK_HD T band(T x, T y) { return T(x & y); }
template <class T> SNK_HD T bxor(T x, T y) { return T(x ^ y); }
template <class T> SNK_HD T bxnor(T x, T y) { return T(~(x ^ y)); }

// ---- positional index-unary (i, j are the entry's row and column; int64 arithmetic wraps) --------------------
SNK_HD std::int64_t index_plus(std::uint64_t a, std::int64_t y) {
  return std::int64_t(a + std::uint64_t(y));
}
SNK_HD std::int64_t diag_index(std::uint64_t i, std::uint64_t j, std::int64_t y) {
  return std::int64_t(j - (i + std::uint64_t(y)));
}

}  // namespace snk::math
