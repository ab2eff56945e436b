// backends/kokkos/functors.hpp: the builtin operators as the portable kernels evaluate them, and the dispatch from a
// run-time type code to a C++ value type (with_type).
//
// The operators are src/algebra/builtin_ops.hpp's (over builtin_math.hpp, the single definition of what each builtin
// operator and typecast computes, bit for bit as SuiteSparse:GraphBLAS, which the reference backend runs), the same
// the algebra's function pointers call, so this backend and the algebra cannot drift apart.
//
// Instantiation policy: the portable kernels are templated on the value type alone and read the opcode or the monoid
// per value (portable/op_eval.hpp), except where a host loop over products fixes FP32 and FP64 PLUS_TIMES at compile
// time (products.hpp: with_semiring_fns). Structural work that does not depend on values is compiled once.
#pragma once

#include <Kokkos_Macros.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "algebra/builtin_math.hpp"
#include "algebra/builtin_ops.hpp"
#include "snack/algebra.hpp"
#include "snack/types.hpp"

namespace snk::kokkos {

template <class T> struct TypeTag { using type = T; };

// Calls f(TypeTag<T>{}) for the C++ type of a builtin code and returns its result (a bool); false for a
// UDT.
template <class F>
bool with_type(TypeCode code, F&& f) {
  switch (code) {
    case TypeCode::Bool: return f(TypeTag<bool>{});
    case TypeCode::Int8: return f(TypeTag<std::int8_t>{});
    case TypeCode::Int16: return f(TypeTag<std::int16_t>{});
    case TypeCode::Int32: return f(TypeTag<std::int32_t>{});
    case TypeCode::Int64: return f(TypeTag<std::int64_t>{});
    case TypeCode::UInt8: return f(TypeTag<std::uint8_t>{});
    case TypeCode::UInt16: return f(TypeTag<std::uint16_t>{});
    case TypeCode::UInt32: return f(TypeTag<std::uint32_t>{});
    case TypeCode::UInt64: return f(TypeTag<std::uint64_t>{});
    case TypeCode::FP32: return f(TypeTag<float>{});
    case TypeCode::FP64: return f(TypeTag<double>{});
    default: return false;
  }
}

inline bool is_builtin(const Type* t) { return t != nullptr && t->builtin(); }

// ---- unary operators ---------------------------------------------------------------------------------------
// Which (opcode, type) pairs exist and what they compute: src/algebra/builtin_ops.hpp, shared with the algebra.
using ops::unary_apply;
using ops::unary_defined;

// ---- binary operators --------------------------------------------------------------------------------------
using ops::binary_apply;
using ops::binary_defined;
using ops::binary_result_t;
using ops::is_bitwise;
using ops::is_comparison;
using ops::is_logical;

// Reads one value of type T from an unaligned byte pointer (scalars, identities).
template <class T>
T load_value(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace snk::kokkos
