// src/algebra/builtin_ops.hpp: the builtin unary and binary operators by opcode: on which builtin types each is
// defined and what it computes, over builtin_math.hpp's value rules.
//
// One definition serves every place that turns an opcode into arithmetic: the algebra's function pointers
// (binary_ops.cpp, unary_ops.cpp, what the reference oracles and a fallback call), the kokkos kernels on both
// spaces (backends/kokkos/functors.hpp, portable/op_eval.hpp) and the SpMM family's run-time semiring
// (backends/cuda/spmm/semiring.cuh). The compute functions are host and device functions under nvcc (SNK_HD). A
// comparison gives bool; every other operator gives its input type.
#pragma once

#include "algebra/builtin_math.hpp"
#include "snack/algebra.hpp"

namespace snk::ops {

constexpr bool is_comparison(BinaryOpcode op) { return op >= BinaryOpcode::Eq && op <= BinaryOpcode::Le; }
constexpr bool is_logical(BinaryOpcode op) { return op >= BinaryOpcode::LOr && op <= BinaryOpcode::LXnor; }
constexpr bool is_bitwise(BinaryOpcode op) { return op >= BinaryOpcode::BOr && op <= BinaryOpcode::BXnor; }
// SQRT, EXP, LOG and TANH: this library's extensions (SNK_), on floating types only.
constexpr bool is_extension(UnaryOpcode op) {
  return op == UnaryOpcode::Sqrt || op == UnaryOpcode::Exp || op == UnaryOpcode::Log || op == UnaryOpcode::Tanh;
}

// Whether the builtin unary operator Op is defined on T (User never is).
template <UnaryOpcode Op, class T>
constexpr bool unary_defined() {
  if constexpr (Op == UnaryOpcode::User) return false;
  else if constexpr (Op == UnaryOpcode::LNot) return math::is_bool_v<T>;
  else if constexpr (Op == UnaryOpcode::BNot) return math::is_int_v<T>;
  else if constexpr (is_extension(Op)) return math::is_float_v<T>;
  else return true;
}

template <UnaryOpcode Op, class T>
SNK_HD T unary_apply(T x) {
  if constexpr (Op == UnaryOpcode::Identity) return x;
  else if constexpr (Op == UnaryOpcode::AInv) return math::ainv(x);
  else if constexpr (Op == UnaryOpcode::MInv) return math::minv(x);
  else if constexpr (Op == UnaryOpcode::LNot) return !x;
  else if constexpr (Op == UnaryOpcode::Abs) return math::abs(x);
  else if constexpr (Op == UnaryOpcode::Sqrt) return math::sqrt_of(x);
  else if constexpr (Op == UnaryOpcode::Exp) return math::exp_of(x);
  else if constexpr (Op == UnaryOpcode::Log) return math::log_of(x);
  else if constexpr (Op == UnaryOpcode::Tanh) return math::tanh_of(x);
  else return math::bnot(x);
}

// Whether the builtin binary operator Op is defined on T (User never is).
template <BinaryOpcode Op, class T>
constexpr bool binary_defined() {
  if constexpr (Op == BinaryOpcode::User) return false;
  else if constexpr (is_logical(Op)) return math::is_bool_v<T>;
  else if constexpr (is_bitwise(Op)) return math::is_int_v<T>;
  else return true;
}

template <BinaryOpcode Op, class T>
SNK_HD auto binary_apply(T x, T y) {
  using B = BinaryOpcode;
  if constexpr (Op == B::First) { (void)y; return x; }
  else if constexpr (Op == B::Second) { (void)x; return y; }
  else if constexpr (Op == B::Oneb) { (void)x; (void)y; return T(1); }
  else if constexpr (Op == B::Min) return math::min(x, y);
  else if constexpr (Op == B::Max) return math::max(x, y);
  else if constexpr (Op == B::Plus) return math::plus(x, y);
  else if constexpr (Op == B::Minus) return math::minus(x, y);
  else if constexpr (Op == B::Times) return math::times(x, y);
  else if constexpr (Op == B::Div) return math::div(x, y);
  else if constexpr (Op == B::Eq) return bool(x == y);
  else if constexpr (Op == B::Ne) return bool(x != y);
  else if constexpr (Op == B::Gt) return bool(x > y);
  else if constexpr (Op == B::Lt) return bool(x < y);
  else if constexpr (Op == B::Ge) return bool(x >= y);
  else if constexpr (Op == B::Le) return bool(x <= y);
  else if constexpr (Op == B::LOr) return bool(x || y);
  else if constexpr (Op == B::LAnd) return bool(x && y);
  else if constexpr (Op == B::LXor) return bool(x != y);
  else if constexpr (Op == B::LXnor) return bool(x == y);
  else if constexpr (Op == B::BOr) return math::bor(x, y);
  else if constexpr (Op == B::BAnd) return math::band(x, y);
  else if constexpr (Op == B::BXor) return math::bxor(x, y);
  else return math::bxnor(x, y);
}

template <BinaryOpcode Op, class T>
using binary_result_t = decltype(binary_apply<Op, T>(T(), T()));

// The GraphBLAS name of an opcode ("PLUS", "LXNOR", ...; "USER" for a user-defined operator).
constexpr const char* opcode_name(BinaryOpcode op) {
  constexpr const char* names[] = {"FIRST", "SECOND", "ONEB", "MIN",  "MAX",  "PLUS", "MINUS", "TIMES",
                                   "DIV",   "EQ",     "NE",   "GT",   "LT",   "GE",   "LE",    "LOR",
                                   "LAND",  "LXOR",   "LXNOR", "BOR", "BAND", "BXOR", "BXNOR", "USER"};
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(BinaryOpcode::User) + 1,
                "one name an opcode");
  return names[static_cast<int>(op)];
}

// ---- the builtin monoids ------------------------------------------------------------------------------------------
// PLUS, TIMES, MIN and MAX on the numeric types, LOR, LAND, LXOR and LXNOR on BOOL (BOOL's EQ monoid is LXNOR's).
// Identities: 0, 1, the type's highest (+inf on floats) and lowest (-inf); false, true, false, true. Terminals
// (absorbing values, where a reduction may stop) are SuiteSparse's: on integers TIMES 0, MIN the lowest, MAX the
// highest; LOR true, LAND false; none for PLUS, LXOR, LXNOR or any monoid on floats.
constexpr bool is_monoid(BinaryOpcode op, bool on_bool) {
  using B = BinaryOpcode;
  return on_bool ? op == B::LOr || op == B::LAnd || op == B::LXor || op == B::LXnor
                 : op == B::Plus || op == B::Times || op == B::Min || op == B::Max;
}
template <BinaryOpcode Op, class T>
constexpr bool monoid_defined() { return is_monoid(Op, math::is_bool_v<T>); }

template <BinaryOpcode Op, class T>
SNK_HD constexpr T monoid_identity() {
  static_assert(monoid_defined<Op, T>(), "not a builtin monoid");
  using B = BinaryOpcode;
  using L = std::numeric_limits<T>;
  if constexpr (Op == B::Plus || Op == B::LOr || Op == B::LXor) return T(0);
  else if constexpr (Op == B::Times || Op == B::LAnd || Op == B::LXnor) return T(1);
  else if constexpr (Op == B::Min) return math::is_float_v<T> ? L::infinity() : L::max();
  else return math::is_float_v<T> ? -L::infinity() : L::lowest();
}

template <BinaryOpcode Op, class T>
constexpr bool monoid_has_terminal() {
  using B = BinaryOpcode;
  if constexpr (!monoid_defined<Op, T>()) return false;
  else if constexpr (math::is_bool_v<T>) return Op == B::LOr || Op == B::LAnd;
  else return !math::is_float_v<T> && (Op == B::Times || Op == B::Min || Op == B::Max);
}

// The terminal of a monoid that has one (monoid_has_terminal).
template <BinaryOpcode Op, class T>
SNK_HD constexpr T monoid_terminal() {
  static_assert(monoid_has_terminal<Op, T>(), "this monoid has no terminal");
  using B = BinaryOpcode;
  using L = std::numeric_limits<T>;
  if constexpr (Op == B::LOr) return T(1);
  else if constexpr (Op == B::LAnd || Op == B::Times) return T(0);
  else if constexpr (Op == B::Min) return L::lowest();
  else return L::max();
}

}  // namespace snk::ops
