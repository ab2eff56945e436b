// src/algebra/binary_ops.cpp: the predefined binary operators of the C API spec 2.0.
//
// FIRST, SECOND, ONEB, MIN, MAX, PLUS, MINUS, TIMES, DIV and the comparisons EQ, NE, GT, LT, GE, LE on all
// 11 builtin types (comparisons give BOOL); LOR, LAND, LXOR, LXNOR on BOOL (named without a type suffix,
// GrB_LOR ...); BOR, BAND, BXOR, BXNOR on the 8 integer types: 201 objects, singletons built on first
// use. Each function is one instantiation of binary_fn<Op, T> over builtin_ops.hpp's operators.
#include <array>
#include <cstring>
#include <memory>
#include <utility>

#include "algebra/builtin_ops.hpp"
#include "algebra/type_list.hpp"
#include "snack/algebra.hpp"

namespace snk {
namespace {

constexpr int kBinaryOpcodeCount = static_cast<int>(BinaryOpcode::User);

using ops::binary_defined;
using ops::is_comparison;
using ops::is_logical;

template <BinaryOpcode Op, class T>
void binary_fn(void* z, const void* x, const void* y) {
  T a, b;
  std::memcpy(&a, x, sizeof(T));
  std::memcpy(&b, y, sizeof(T));
  const auto r = ops::binary_apply<Op, T>(a, b);
  std::memcpy(z, &r, sizeof(r));
}

struct BinaryTable {
  std::vector<std::unique_ptr<BinaryOp>> owned;
  std::vector<const BinaryOp*> all;
  std::array<std::array<const BinaryOp*, kBuiltinTypeCount>, kBinaryOpcodeCount> at{};

  void put(BinaryOpcode op, const Type* t, BinaryFunction fn) {
    const Type* z = is_comparison(op) ? &types::Bool : t;
    std::string name = std::string("GrB_") + ops::opcode_name(op);
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
