// src/algebra/binary_ops.cpp: the predefined binary operators of the C API spec 2.0.
//
// FIRST, SECOND, ONEB, MIN, MAX, PLUS, MINUS, TIMES, DIV and the comparisons EQ, NE, GT, LT, GE, LE on all
// 11 builtin types (comparisons give BOOL); LOR, LAND, LXOR, LXNOR on BOOL (named without a type suffix,
// GrB_LOR ...); BOR, BAND, BXOR, BXNOR on the 8 integer types: 201 objects, singletons built on first
// use. Each function is one instantiation of binary_fn<Op, T> over the rules of builtin_math.hpp.
#include <array>
#include <cstring>
#include <memory>
#include <utility>

#include "algebra/builtin_math.hpp"
#include "algebra/type_list.hpp"
#include "snack/algebra.hpp"

namespace snk {
namespace {

constexpr int kBinaryOpcodeCount = static_cast<int>(BinaryOpcode::User);

constexpr bool is_comparison(BinaryOpcode op) { return op >= BinaryOpcode::Eq && op <= BinaryOpcode::Le; }
constexpr bool is_logical(BinaryOpcode op) { return op >= BinaryOpcode::LOr && op <= BinaryOpcode::LXnor; }
constexpr bool is_bitwise(BinaryOpcode op) { return op >= BinaryOpcode::BOr && op <= BinaryOpcode::BXnor; }

template <BinaryOpcode Op, class T>
constexpr bool binary_defined() {
  if constexpr (is_logical(Op)) return math::is_bool_v<T>;
  else if constexpr (is_bitwise(Op)) return math::is_int_v<T>;
  else return true;
}

template <BinaryOpcode Op, class T>
auto binary_compute(T x, T y) {
  using B = BinaryOpcode;
  if constexpr (Op == B::First) return x;
  else if constexpr (Op == B::Second) return y;
  else if constexpr (Op == B::Oneb) return T(1);
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
void binary_fn(void* z, const void* x, const void* y) {
  T a, b;
  std::memcpy(&a, x, sizeof(T));
  std::memcpy(&b, y, sizeof(T));
  const auto r = binary_compute<Op, T>(a, b);
  std::memcpy(z, &r, sizeof(r));
}

const char* binary_name(BinaryOpcode op) {
  switch (op) {
    case BinaryOpcode::First: return "FIRST";
    case BinaryOpcode::Second: return "SECOND";
    case BinaryOpcode::Oneb: return "ONEB";
    case BinaryOpcode::Min: return "MIN";
    case BinaryOpcode::Max: return "MAX";
    case BinaryOpcode::Plus: return "PLUS";
    case BinaryOpcode::Minus: return "MINUS";
    case BinaryOpcode::Times: return "TIMES";
    case BinaryOpcode::Div: return "DIV";
    case BinaryOpcode::Eq: return "EQ";
    case BinaryOpcode::Ne: return "NE";
    case BinaryOpcode::Gt: return "GT";
    case BinaryOpcode::Lt: return "LT";
    case BinaryOpcode::Ge: return "GE";
    case BinaryOpcode::Le: return "LE";
    case BinaryOpcode::LOr: return "LOR";
    case BinaryOpcode::LAnd: return "LAND";
    case BinaryOpcode::LXor: return "LXOR";
    case BinaryOpcode::LXnor: return "LXNOR";
    case BinaryOpcode::BOr: return "BOR";
    case BinaryOpcode::BAnd: return "BAND";
    case BinaryOpcode::BXor: return "BXOR";
    case BinaryOpcode::BXnor: return "BXNOR";
    default: return "USER";
  }
}

struct BinaryTable {
  std::vector<std::unique_ptr<BinaryOp>> owned;
  std::vector<const BinaryOp*> all;
  std::array<std::array<const BinaryOp*, kBuiltinTypeCount>, kBinaryOpcodeCount> at{};

  void put(BinaryOpcode op, const Type* t, BinaryFunction fn) {
    const Type* z = is_comparison(op) ? &types::Bool : t;
    std::string name = std::string("GrB_") + binary_name(op);
    if (!is_logical(op)) name += "_" + t->name;
    owned.push_back(std::make_unique<BinaryOp>(BinaryOp{op, z, t, t, fn, name}));
    at[static_cast<int>(op)][algebra::type_index(t->code)] = owned.back().get();
    all.push_back(owned.back().get());
  }

  template <BinaryOpcode Op>
  void add() {
    algebra::for_each_builtin_type([&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (binary_defined<Op, T>()) put(Op, type_of<T>(), &binary_fn<Op, T>);
    });
  }

  template <std::size_t... K>
  void add_all(std::index_sequence<K...>) {
    (add<static_cast<BinaryOpcode>(K)>(), ...);
  }

  BinaryTable() { add_all(std::make_index_sequence<kBinaryOpcodeCount>()); }
};

const BinaryTable& binary_table() {
  static const BinaryTable table;
  return table;
}

}  // namespace

const BinaryOp* builtin_binary_op(BinaryOpcode op, TypeCode type) {
  const int o = static_cast<int>(op), t = algebra::type_index(type);
  if (o < 0 || o >= kBinaryOpcodeCount || t < 0 || t >= kBuiltinTypeCount) return nullptr;
  return binary_table().at[o][t];
}

const std::vector<const BinaryOp*>& all_builtin_binary_ops() { return binary_table().all; }

}  // namespace snk
