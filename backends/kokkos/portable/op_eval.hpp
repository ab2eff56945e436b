// backends/kokkos/portable/op_eval.hpp: the builtin operators evaluated by an opcode known at run time, inside a
// kernel, on any Kokkos space.
//
// The arithmetic is src/algebra/builtin_ops.hpp's (unary_apply, binary_apply, through functors.hpp): one
// definition of every builtin operator for the reference oracle, the host kernels and the device kernels. The
// portable kernels are templated on the value type only and switch on the opcode per entry (a uniform branch on a
// GPU): the element-wise passes are memory-bound, so a compile-time opcode would buy nothing there and would
// multiply the kernels nvcc compiles by the number of operators. Each evaluator returns false for an (opcode,
// type) the spec does not define, which the host side has already refused (defined_*() below, checked before a
// launch).
#pragma once

#include <cstdint>
#include <cstring>

#include "functors.hpp"

namespace snk::kokkos::portable {

using IU = IndexUnaryOpcode;

// ---- unary: z = op(x), z and x of type T --------------------------------------------------------------------
// The float-only extensions (SQRT, EXP, LOG, TANH): x itself on the types they are not defined on.
template <UnaryOpcode Op, class T>
KOKKOS_INLINE_FUNCTION T unary_float(T x) {
  if constexpr (unary_defined<Op, T>()) return unary_apply<Op, T>(x);
  else return x;
}

template <class T>
KOKKOS_INLINE_FUNCTION T unary_eval(UnaryOpcode op, T x) {
  switch (op) {
    case UnaryOpcode::Identity: return x;
    case UnaryOpcode::AInv: return unary_apply<UnaryOpcode::AInv, T>(x);
    case UnaryOpcode::MInv: return unary_apply<UnaryOpcode::MInv, T>(x);
    case UnaryOpcode::Abs: return unary_apply<UnaryOpcode::Abs, T>(x);
    case UnaryOpcode::LNot:
      if constexpr (unary_defined<UnaryOpcode::LNot, T>()) return unary_apply<UnaryOpcode::LNot, T>(x);
      else return x;
    case UnaryOpcode::BNot:
      if constexpr (unary_defined<UnaryOpcode::BNot, T>()) return unary_apply<UnaryOpcode::BNot, T>(x);
      else return x;
    case UnaryOpcode::Sqrt: return unary_float<UnaryOpcode::Sqrt>(x);
    case UnaryOpcode::Exp: return unary_float<UnaryOpcode::Exp>(x);
    case UnaryOpcode::Log: return unary_float<UnaryOpcode::Log>(x);
    case UnaryOpcode::Tanh: return unary_float<UnaryOpcode::Tanh>(x);
    default: return x;
  }
}

template <class T>
bool defined_unary(UnaryOpcode op) {
  switch (op) {
    case UnaryOpcode::Identity: case UnaryOpcode::AInv: case UnaryOpcode::MInv: case UnaryOpcode::Abs: return true;
    case UnaryOpcode::LNot: return unary_defined<UnaryOpcode::LNot, T>();
    case UnaryOpcode::BNot: return unary_defined<UnaryOpcode::BNot, T>();
    case UnaryOpcode::Sqrt: case UnaryOpcode::Exp: case UnaryOpcode::Log: case UnaryOpcode::Tanh:
      return unary_defined<UnaryOpcode::Sqrt, T>();
    default: return false;
  }
}

// ---- binary: z = op(x, y), x and y of type T, z of type T or bool (comparisons) --------------------------------
template <BinaryOpcode Op, class T, class Z>
KOKKOS_INLINE_FUNCTION Z binary_case(T x, T y) {
  if constexpr (binary_defined<Op, T>()) {
    if constexpr (std::is_same_v<binary_result_t<Op, T>, Z>) return binary_apply<Op, T>(x, y);
  }
  (void)x;
  (void)y;
  return Z();
}

template <class T, class Z>
KOKKOS_INLINE_FUNCTION Z binary_eval(BinaryOpcode op, T x, T y) {
  using B = BinaryOpcode;
  switch (op) {
    case B::First: return binary_case<B::First, T, Z>(x, y);
    case B::Second: return binary_case<B::Second, T, Z>(x, y);
    case B::Oneb: return binary_case<B::Oneb, T, Z>(x, y);
    case B::Min: return binary_case<B::Min, T, Z>(x, y);
    case B::Max: return binary_case<B::Max, T, Z>(x, y);
    case B::Plus: return binary_case<B::Plus, T, Z>(x, y);
    case B::Minus: return binary_case<B::Minus, T, Z>(x, y);
    case B::Times: return binary_case<B::Times, T, Z>(x, y);
    case B::Div: return binary_case<B::Div, T, Z>(x, y);
    case B::Eq: return binary_case<B::Eq, T, Z>(x, y);
    case B::Ne: return binary_case<B::Ne, T, Z>(x, y);
    case B::Gt: return binary_case<B::Gt, T, Z>(x, y);
    case B::Lt: return binary_case<B::Lt, T, Z>(x, y);
    case B::Ge: return binary_case<B::Ge, T, Z>(x, y);
    case B::Le: return binary_case<B::Le, T, Z>(x, y);
    case B::LOr: return binary_case<B::LOr, T, Z>(x, y);
    case B::LAnd: return binary_case<B::LAnd, T, Z>(x, y);
    case B::LXor: return binary_case<B::LXor, T, Z>(x, y);
    case B::LXnor: return binary_case<B::LXnor, T, Z>(x, y);
    case B::BOr: return binary_case<B::BOr, T, Z>(x, y);
    case B::BAnd: return binary_case<B::BAnd, T, Z>(x, y);
    case B::BXor: return binary_case<B::BXor, T, Z>(x, y);
    case B::BXnor: return binary_case<B::BXnor, T, Z>(x, y);
    default: return Z();
  }
}

// Whether the builtin `op` on T gives Z (bool for comparisons, else T) and is defined on T.
template <class T, class Z>
bool defined_binary(BinaryOpcode op) {
  using B = BinaryOpcode;
  if (op >= B::User) return false;
  if (is_logical(op) && !math::is_bool_v<T>) return false;
  if (is_bitwise(op) && !math::is_int_v<T>) return false;
  return is_comparison(op) ? std::is_same_v<Z, bool> : std::is_same_v<Z, T>;
}

// For a builtin binary operator on operands of types a and b, both its input type V: calls f(TypeTag<V>{},
// TypeTag<Z>{}) with Z = V, or Z = bool for an operator that gives bool (comparisons), where the kernels define it,
// and returns true; returns false (f not called) otherwise. Both backends' eWise and apply calls dispatch through it.
template <class F>
bool with_value_types(const BinaryOp& op, const Type* a, const Type* b, F&& f) {
  if (op.opcode == BinaryOpcode::User || !is_builtin(op.xtype) || op.ytype != op.xtype || a != op.xtype ||
      b != op.xtype)
    return false;
  bool done = false;
  with_type(op.xtype->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    if (op.ztype == op.xtype && defined_binary<V, V>(op.opcode)) {
      f(tt, TypeTag<V>{});
      done = true;
    } else if (op.ztype->code == TypeCode::Bool && defined_binary<V, bool>(op.opcode)) {
      f(tt, TypeTag<bool>{});
      done = true;
    }
    return done;
  });
  return done;
}

// ---- index-unary: z = op(x, i, j, y) ------------------------------------------------------------------------
// Positional operators: z = i + y, j + y, j - (i + y) (int64 arithmetic, then the output type), or a test of
// the position against y. Value operators: a comparison of x with y (both T).
KOKKOS_INLINE_FUNCTION std::int64_t position_value(IU op, Index i, Index j, std::int64_t y) {
  if (op == IU::RowIndex) return math::index_plus(i, y);
  if (op == IU::ColIndex) return math::index_plus(j, y);
  return math::diag_index(i, j, y);
}

KOKKOS_INLINE_FUNCTION bool position_test(IU op, Index i, Index j, std::int64_t y) {
  const auto si = static_cast<std::int64_t>(i), sj = static_cast<std::int64_t>(j);
  switch (op) {
    case IU::Tril: return sj <= math::index_plus(i, y);
    case IU::Triu: return sj >= math::index_plus(i, y);
    case IU::Diag: return sj == math::index_plus(i, y);
    case IU::Offdiag: return sj != math::index_plus(i, y);
    case IU::ColLe: return sj <= y;
    case IU::ColGt: return sj > y;
    case IU::RowLe: return si <= y;
    default: return si > y;
  }
}

template <class T>
KOKKOS_INLINE_FUNCTION bool value_test(IU op, T x, T y) {
  switch (op) {
    case IU::ValueEq: return x == y;
    case IU::ValueNe: return x != y;
    case IU::ValueLt: return x < y;
    case IU::ValueLe: return x <= y;
    case IU::ValueGt: return x > y;
    default: return x >= y;
  }
}

inline bool is_position_value(IU op) { return op == IU::RowIndex || op == IU::ColIndex || op == IU::DiagIndex; }
inline bool is_position_test(IU op) { return op >= IU::Tril && op <= IU::RowGt; }
inline bool is_value_test(IU op) { return op >= IU::ValueEq && op <= IU::ValueGe; }

// ---- monoids: the reduction operator, its identity ----------------------------------------------------------
// The monoid opcodes reduced here: PLUS, TIMES, MIN, MAX on every type, and LOR, LAND, LXOR, LXNOR on BOOL (BOOL's EQ
// monoid arrives as LXNOR).
template <class T>
struct MonoidFn {
  BinaryOpcode op;
  T identity;
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return binary_eval<T, T>(op, x, y); }
};

// The multiply of a product as a functor: f(a, b) = flip ? mul(b, a) : mul(a, b), a from A and b from B, the opcode
// read per call.
template <class V>
struct MulFn {
  BinaryOpcode op;
  bool flip;
  KOKKOS_INLINE_FUNCTION V operator()(V a, V b) const {
    return flip ? binary_eval<V, V>(op, b, a) : binary_eval<V, V>(op, a, b);
  }
};

// A builtin operator on V fixed at compile time, for the host's long loops over products (one case inlined where the
// run-time functors switch per value); commutative where it stands for a multiply that may be flipped.
template <BinaryOpcode Op, class V>
struct FixedFn {
  KOKKOS_INLINE_FUNCTION V operator()(V x, V y) const { return binary_case<Op, V, V>(x, y); }
};

// The fold of v[b .. e-1] (b < e) in order with a monoid of MonoidFn's opcodes, the opcode's case chosen once for the
// run rather than per value: for a thread that folds a long run (the host's reductions).
template <BinaryOpcode Op, class T>
KOKKOS_INLINE_FUNCTION T fold_case(const T* v, Index b, Index e) {
  T acc = v[b];
  for (Index k = b + 1; k < e; ++k) acc = binary_case<Op, T, T>(acc, v[k]);
  return acc;
}
template <class T>
KOKKOS_INLINE_FUNCTION T fold_run(const MonoidFn<T>& m, const T* v, Index b, Index e) {
  using B = BinaryOpcode;
  switch (m.op) {
    case B::Plus: return fold_case<B::Plus, T>(v, b, e);
    case B::Times: return fold_case<B::Times, T>(v, b, e);
    case B::Min: return fold_case<B::Min, T>(v, b, e);
    case B::Max: return fold_case<B::Max, T>(v, b, e);
    case B::LOr: return fold_case<B::LOr, T>(v, b, e);
    case B::LAnd: return fold_case<B::LAnd, T>(v, b, e);
    case B::LXor: return fold_case<B::LXor, T>(v, b, e);
    default: return fold_case<B::LXnor, T>(v, b, e);
  }
}

// The monoid as a run-time functor on V, when the portable kernels reduce with it (the opcodes above; BOOL's EQ
// monoid as LXNOR).
template <class V>
bool monoid_of(const Monoid& m, MonoidFn<V>& out) {
  const BinaryOp& op = *m.op;
  if (op.opcode == BinaryOpcode::User || op.xtype != op.ztype || op.ytype != op.ztype) return false;
  BinaryOpcode code = op.opcode;
  if (code == BinaryOpcode::Eq && op.xtype->code == TypeCode::Bool) code = BinaryOpcode::LXnor;
  const bool ok = code == BinaryOpcode::Plus || code == BinaryOpcode::Times || code == BinaryOpcode::Min ||
                  code == BinaryOpcode::Max ||
                  (math::is_bool_v<V> && (code == BinaryOpcode::LOr || code == BinaryOpcode::LAnd ||
                                          code == BinaryOpcode::LXor || code == BinaryOpcode::LXnor));
  if (!ok) return false;
  out.op = code;
  std::memcpy(&out.identity, m.identity.data(), sizeof(V));
  return true;
}

// For a monoid on the builtin type of the operand (`type`) that the kernels reduce with: calls f(MonoidFn<V>) and
// returns true; false (f not called) otherwise. Both backends' reductions dispatch through it.
template <class F>
bool with_monoid_fn(const Monoid& m, const Type* type, F&& f) {
  if (!is_builtin(type) || type != m.type()) return false;
  bool done = false;
  with_type(type->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    MonoidFn<V> fn{};
    if (!monoid_of(m, fn)) return false;
    f(fn);
    return done = true;
  });
  return done;
}

}  // namespace snk::kokkos::portable
