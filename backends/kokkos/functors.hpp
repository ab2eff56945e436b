// backends/kokkos/functors.hpp: the run-time -> compile-time dispatch that turns an operator object into template
// arguments once per call, over the builtin operators as inlined compile-time functions.
//
// The operators are src/algebra/builtin_ops.hpp's (over builtin_math.hpp, the single definition of what each builtin
// operator and typecast computes, bit for bit as SuiteSparse:GraphBLAS, which the reference backend runs), the same
// the algebra's function pointers call, so this backend and the algebra cannot drift apart. The dispatchers below check
// that an operator object really is the builtin (opcode, type) they instantiate for (a user-defined
// operator, or a builtin opcode on unexpected domains, is declined) and then call a generic lambda with
// tags carrying the opcode and the C++ value type.
//
// Instantiation policy (what is templated, and on what): semiring kernels on (add opcode, multiply
// opcode, type) for the 124 predefined semirings only. eWise, apply, select and reduce run the portable kernels,
// templated on the type alone (portable/op_eval.hpp reads the opcode or the monoid per entry).
// Structural work that does not depend on values is compiled once (parallel.cpp and the type-free passes of each
// kernel file).
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
template <auto V> struct ValueTag { static constexpr auto value = V; };

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
using ops::monoid_has_terminal;
using ops::monoid_terminal;

// ---- semirings ---------------------------------------------------------------------------------------------
// The (add, multiply, type) triples with a compiled kernel: the 12 numeric semirings of the spec on the
// 10 numeric types and the 4 boolean ones (124 in all). FIRST and SECOND both appear for MIN and MAX, so
// swapping the multiply's operands (mxm's `flip`) stays inside the set.
template <BinaryOpcode Add, BinaryOpcode Mul, class T>
constexpr bool semiring_instantiated() {
  using B = BinaryOpcode;
  if constexpr (math::is_bool_v<T>) {
    return (Add == B::LOr && Mul == B::LAnd) || (Add == B::LAnd && Mul == B::LOr) ||
           (Add == B::LXor && Mul == B::LAnd) || (Add == B::LXnor && Mul == B::LOr);
  } else {
    return (Add == B::Plus && (Mul == B::Times || Mul == B::Min)) ||
           ((Add == B::Min || Add == B::Max) &&
            (Mul == B::Plus || Mul == B::Times || Mul == B::First || Mul == B::Second)) ||
           (Add == B::Min && Mul == B::Max) || (Add == B::Max && Mul == B::Min);
  }
}

// Swapping the operands of a multiply: FIRST <-> SECOND; the other multiplies of the set commute.
constexpr BinaryOpcode flipped(BinaryOpcode op) {
  return op == BinaryOpcode::First ? BinaryOpcode::Second
         : op == BinaryOpcode::Second ? BinaryOpcode::First : op;
}

// A semiring as a compile-time functor: add (the monoid) and mul (with operands (a from A, b from B)).
template <BinaryOpcode AddOp, BinaryOpcode MulOp, class T>
struct SemiringFn {
  using value_type = T;
  static constexpr BinaryOpcode add_op = AddOp;
  static constexpr BinaryOpcode mul_op = MulOp;
  KOKKOS_INLINE_FUNCTION static T add(T x, T y) { return binary_apply<AddOp, T>(x, y); }
  KOKKOS_INLINE_FUNCTION static T mul(T a, T b) { return binary_apply<MulOp, T>(a, b); }
  // The add monoid's terminal (absorbing) value, where a dot product may stop early (ops::monoid_terminal).
  static constexpr bool has_terminal = monoid_has_terminal<AddOp, T>();
  KOKKOS_INLINE_FUNCTION static bool is_terminal(T x) {
    if constexpr (has_terminal) return x == monoid_terminal<AddOp, T>();
    else { (void)x; return false; }
  }
};

// Calls f(SemiringFn<Add, Mul, T>{}) for a semiring whose operators are builtin and whose compiled set
// contains (add, multiply as seen with `flip`, type). All domains must be T.
template <class F>
bool with_semiring(const Semiring& s, bool flip, F&& f) {
  const BinaryOp& add = *s.add->op;
  const BinaryOp& mul = *s.multiply;
  if (add.opcode == BinaryOpcode::User || mul.opcode == BinaryOpcode::User) return false;
  const Type* t = add.ztype;
  if (!is_builtin(t) || add.xtype != t || add.ytype != t || mul.ztype != t || mul.xtype != t || mul.ytype != t)
    return false;
  BinaryOpcode a = add.opcode;
  if (a == BinaryOpcode::Eq && t->code == TypeCode::Bool) a = BinaryOpcode::LXnor;
  const BinaryOpcode m = flip ? flipped(mul.opcode) : mul.opcode;
  using B = BinaryOpcode;
  auto with_mul = [&](auto addtag) {
    constexpr B Add = decltype(addtag)::value;
    auto one = [&](auto multag) {
      constexpr B Mul = decltype(multag)::value;
      return with_type(t->code, [&](auto tt) {
        using T = typename decltype(tt)::type;
        if constexpr (semiring_instantiated<Add, Mul, T>()) {
          f(SemiringFn<Add, Mul, T>{});
          return true;
        } else {
          return false;
        }
      });
    };
    switch (m) {
      case B::Times: return one(ValueTag<B::Times>{});
      case B::Min: return one(ValueTag<B::Min>{});
      case B::Max: return one(ValueTag<B::Max>{});
      case B::Plus: return one(ValueTag<B::Plus>{});
      case B::First: return one(ValueTag<B::First>{});
      case B::Second: return one(ValueTag<B::Second>{});
      case B::LAnd: return one(ValueTag<B::LAnd>{});
      case B::LOr: return one(ValueTag<B::LOr>{});
      default: return false;
    }
  };
  switch (a) {
    case B::Plus: return with_mul(ValueTag<B::Plus>{});
    case B::Min: return with_mul(ValueTag<B::Min>{});
    case B::Max: return with_mul(ValueTag<B::Max>{});
    case B::LOr: return with_mul(ValueTag<B::LOr>{});
    case B::LAnd: return with_mul(ValueTag<B::LAnd>{});
    case B::LXor: return with_mul(ValueTag<B::LXor>{});
    case B::LXnor: return with_mul(ValueTag<B::LXnor>{});
    default: return false;
  }
}

// Reads one value of type T from an unaligned byte pointer (scalars, identities).
template <class T>
T load_value(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace snk::kokkos
