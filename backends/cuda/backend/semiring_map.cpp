// backends/cuda/backend/semiring_map.cpp: the translation from snk::Semiring to the SpMM library's
// semiring ids and value types (see semiring_map.hpp for what is accepted).
//
// A monoid or multiplier counts as builtin only when it is the predefined object itself (pointer equality
// with builtin_binary_op), so a user operator that merely reuses an opcode's name is never mistaken for one;
// a monoid built by the user on a builtin operator is accepted when its identity is the builtin one (the
// library hard-codes the identities). Operand order: the library computes mul(w, x) with w from the sparse
// operand; the core's flip asks for mul(x, w), which is the mirrored operator (FIRST <-> SECOND, MINUS <->
// RMINUS, DIV <-> RDIV, GT <-> LT, GE <-> LE; the others are symmetric), so flip costs nothing here.
#include "semiring_map.hpp"

namespace snk::cuda {
namespace {

using Op = BinaryOpcode;

bool is_predefined(const BinaryOp& op) {
  return op.xtype != nullptr && op.xtype->builtin() && builtin_binary_op(op.opcode, op.xtype->code) == &op;
}

std::optional<AddOp> add_op_of(const Monoid& m) {
  const BinaryOp& op = *m.op;
  if (!is_predefined(op)) return std::nullopt;
  const Monoid* predefined = builtin_monoid(op.opcode, op.ztype->code);
  if (predefined == nullptr || predefined->identity != m.identity) return std::nullopt;
  switch (op.opcode) {
    case Op::Plus: return AddOp::Plus;
    case Op::Times: return AddOp::Times;
    case Op::Min: return AddOp::Min;
    case Op::Max: return AddOp::Max;
    case Op::LOr: return AddOp::LOr;
    case Op::LAnd: return AddOp::LAnd;
    case Op::LXor: return AddOp::LXor;
    case Op::LXnor: case Op::Eq: return AddOp::LXnor;   // EQ on BOOL is LXNOR (the only EQ monoid)
    default: return std::nullopt;
  }
}

std::optional<MulOp> mul_op_of(const BinaryOp& op) {
  if (!is_predefined(op)) return std::nullopt;
  switch (op.opcode) {
    case Op::First: return MulOp::First;
    case Op::Second: return MulOp::Second;
    case Op::Oneb: return MulOp::Pair;
    case Op::Min: return MulOp::Min;
    case Op::Max: return MulOp::Max;
    case Op::Plus: return MulOp::Plus;
    case Op::Minus: return MulOp::Minus;
    case Op::Times: return MulOp::Times;
    case Op::Div: return MulOp::Div;
    // Comparisons reach here only on BOOL (elsewhere their output type differs from their inputs').
    case Op::Eq: case Op::LXnor: return MulOp::Eq;
    case Op::Ne: return MulOp::Ne;
    case Op::Gt: return MulOp::Gt;
    case Op::Lt: return MulOp::Lt;
    case Op::Ge: return MulOp::Ge;
    case Op::Le: return MulOp::Le;
    case Op::LOr: return MulOp::LOr;
    case Op::LAnd: return MulOp::LAnd;
    case Op::LXor: return MulOp::LXor;
    default: return std::nullopt;   // bitwise operators: no functor in the library
  }
}

// The operator g with g(x, w) = f(w, x).
MulOp mirrored(MulOp f) {
  switch (f) {
    case MulOp::First: return MulOp::Second;
    case MulOp::Second: return MulOp::First;
    case MulOp::Minus: return MulOp::RMinus;
    case MulOp::RMinus: return MulOp::Minus;
    case MulOp::Div: return MulOp::RDiv;
    case MulOp::RDiv: return MulOp::Div;
    case MulOp::Gt: return MulOp::Lt;
    case MulOp::Lt: return MulOp::Gt;
    case MulOp::Ge: return MulOp::Le;
    case MulOp::Le: return MulOp::Ge;
    default: return f;
  }
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
  const std::optional<AddOp> add = add_op_of(*s.add);
  const std::optional<MulOp> f = mul_op_of(mul);
  if (!vt || !add || !f) return std::nullopt;
  return SpmmSemiring{SemiringId{*add, flip ? mirrored(*f) : *f}, *vt};
}

}  // namespace snk::cuda
