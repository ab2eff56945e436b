// backends/cuda/backend/semiring_map.cpp: the translation from snk::Semiring to the SpMM library's
// semiring ids and value types (see semiring_map.hpp for what is accepted).
//
// A monoid or multiplier counts as builtin only when it is the predefined object itself (pointer equality
// with builtin_binary_op), so a user operator that merely reuses an opcode's name is never mistaken for one;
// a monoid built by the user on a builtin operator is accepted when its identity is the builtin one (the
// library computes with the builtin identities). Operand order: the library computes mul(w, x) with w from the
// sparse operand; the core's flip asks for mul(x, w), which SemiringId::flip says.
#include "semiring_map.hpp"

#include "algebra/builtin_ops.hpp"   // ops::is_bitwise

namespace snk::cuda {
namespace {

using Op = BinaryOpcode;

bool is_predefined(const BinaryOp& op) {
  return op.xtype != nullptr && op.xtype->builtin() && builtin_binary_op(op.opcode, op.xtype->code) == &op;
}

// The monoid's opcode where the library computes it: a predefined operator whose monoid (a builtin one: PLUS, TIMES,
// MIN, MAX, or LOR, LAND, LXOR, LXNOR, EQ on BOOL) has the builtin identity.
std::optional<BinaryOpcode> add_op_of(const Monoid& m) {
  const BinaryOp& op = *m.op;
  if (!is_predefined(op)) return std::nullopt;
  const Monoid* predefined = builtin_monoid(op.opcode, op.ztype->code);
  if (predefined == nullptr || predefined->identity != m.identity) return std::nullopt;
  return op.opcode == Op::Eq ? Op::LXnor : op.opcode;   // EQ on BOOL is LXNOR (the only EQ monoid)
}

// The multiply's opcode where the library computes it: a predefined operator but the bitwise ones. Comparisons
// reach here only on BOOL (elsewhere their output type differs from their inputs').
std::optional<BinaryOpcode> mul_op_of(const BinaryOp& op) {
  if (!is_predefined(op) || ops::is_bitwise(op.opcode)) return std::nullopt;
  return op.opcode;
}

}  // namespace

std::optional<ValueType> spmm_value_type(TypeCode code) {
  switch (code) {
    case TypeCode::Bool: return ValueType::Bool;
    case TypeCode::Int32: return ValueType::Int32;
    case TypeCode::Int64: return ValueType::Int64;
    case TypeCode::UInt32: return ValueType::UInt32;
    case TypeCode::UInt64: return ValueType::UInt64;
    case TypeCode::FP32: return ValueType::FP32;
    case TypeCode::FP64: return ValueType::FP64;
    default: return std::nullopt;
  }
}

std::optional<SpmmSemiring> spmm_semiring_of(const Semiring& s, bool flip) {
  const BinaryOp& mul = *s.multiply;
  const Type* t = s.add->type();
  if (mul.xtype != t || mul.ytype != t || mul.ztype != t) return std::nullopt;
  const std::optional<ValueType> vt = spmm_value_type(t->code);
  const std::optional<BinaryOpcode> add = add_op_of(*s.add);
  const std::optional<BinaryOpcode> f = mul_op_of(mul);
  if (!vt || !add || !f) return std::nullopt;
  return SpmmSemiring{SemiringId{*add, *f, flip}, *vt};
}

}  // namespace snk::cuda
