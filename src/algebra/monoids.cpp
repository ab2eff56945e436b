// src/algebra/monoids.cpp: the predefined monoids and semirings of the C API spec 2.0.
//
// Monoids: PLUS, TIMES, MIN and MAX on the 10 numeric types, and LOR, LAND, LXOR, LXNOR on BOOL: 44 objects, their
// identities and terminals as algebra/builtin_ops.hpp defines them (monoid_identity, monoid_terminal).
// Semirings: PLUS_TIMES, PLUS_MIN, MIN_PLUS, MIN_TIMES, MIN_FIRST, MIN_SECOND, MIN_MAX, MAX_PLUS,
// MAX_TIMES, MAX_FIRST, MAX_SECOND, MAX_MIN on the 10 numeric types, and LOR_LAND, LAND_LOR, LXOR_LAND,
// LXNOR_LOR on BOOL: 124 objects. All are singletons built on first use from the predefined operators.
#include <array>
#include <cstring>
#include <memory>

#include "algebra/builtin_math.hpp"
#include "algebra/builtin_ops.hpp"
#include "algebra/type_list.hpp"
#include "snack/algebra.hpp"

namespace snk {
namespace {

using B = BinaryOpcode;
constexpr int kOps = static_cast<int>(B::User);

template <class T>
std::vector<unsigned char> bytes_of(T v) {
  std::vector<unsigned char> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

// The LXNOR monoid and semiring are also reachable as EQ on BOOL (the same function).
BinaryOpcode canonical_bool_add(BinaryOpcode op) { return op == B::Eq ? B::LXnor : op; }

struct MonoidTable {
  std::vector<std::unique_ptr<Monoid>> owned;
  std::vector<const Monoid*> all;
  std::array<std::array<const Monoid*, kBuiltinTypeCount>, kOps> at{};

  void put(BinaryOpcode opcode, TypeCode type, std::vector<unsigned char> identity, bool has_terminal,
           std::vector<unsigned char> terminal, const char* opname) {
    const BinaryOp* op = builtin_binary_op(opcode, type);
    const std::string name = std::string("GrB_") + opname + "_MONOID_" + op->xtype->name;
    owned.push_back(std::make_unique<Monoid>(
        Monoid{op, std::move(identity), has_terminal, std::move(terminal), name}));
    at[static_cast<int>(opcode)][algebra::type_index(type)] = owned.back().get();
    all.push_back(owned.back().get());
  }

  // The builtin monoid Op on T, its identity and terminal from ops' definitions.
  template <BinaryOpcode Op, class T>
  void put_builtin(const char* opname) {
    std::vector<unsigned char> terminal;
    if constexpr (ops::monoid_has_terminal<Op, T>()) terminal = bytes_of(ops::monoid_terminal<Op, T>());
    put(Op, type_of<T>()->code, bytes_of(ops::monoid_identity<Op, T>()), ops::monoid_has_terminal<Op, T>(),
        std::move(terminal), opname);
  }

  MonoidTable() {
    algebra::for_each_builtin_type([&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!math::is_bool_v<T>) {
        put_builtin<B::Plus, T>("PLUS");
        put_builtin<B::Times, T>("TIMES");
        put_builtin<B::Min, T>("MIN");
        put_builtin<B::Max, T>("MAX");
      }
    });
    put_builtin<B::LOr, bool>("LOR");
    put_builtin<B::LAnd, bool>("LAND");
    put_builtin<B::LXor, bool>("LXOR");
    put_builtin<B::LXnor, bool>("LXNOR");
  }
};

const MonoidTable& monoid_table() {
  static const MonoidTable table;
  return table;
}

struct SemiringTable {
  std::vector<std::unique_ptr<Semiring>> owned;
  std::vector<const Semiring*> all;
  std::array<const Semiring*, kOps * kOps * kBuiltinTypeCount> at{};

  static int key(BinaryOpcode add, BinaryOpcode mul, TypeCode type) {
    return (static_cast<int>(add) * kOps + static_cast<int>(mul)) * kBuiltinTypeCount + algebra::type_index(type);
  }

  void put(BinaryOpcode add, BinaryOpcode mul, TypeCode type, const char* addname, const char* mulname) {
    const Monoid* m = builtin_monoid(add, type);
    const BinaryOp* op = builtin_binary_op(mul, type);
    const std::string name = std::string("GrB_") + addname + "_" + mulname + "_SEMIRING_" + op->xtype->name;
    owned.push_back(std::make_unique<Semiring>(Semiring{m, op, name}));
    at[key(add, mul, type)] = owned.back().get();
    all.push_back(owned.back().get());
  }

  SemiringTable() {
    struct Pair { BinaryOpcode add, mul; const char *addname, *mulname; };
    static const Pair numeric[] = {
        {B::Plus, B::Times, "PLUS", "TIMES"}, {B::Plus, B::Min, "PLUS", "MIN"},
        {B::Min, B::Plus, "MIN", "PLUS"},     {B::Min, B::Times, "MIN", "TIMES"},
        {B::Min, B::First, "MIN", "FIRST"},   {B::Min, B::Second, "MIN", "SECOND"},
        {B::Min, B::Max, "MIN", "MAX"},       {B::Max, B::Plus, "MAX", "PLUS"},
        {B::Max, B::Times, "MAX", "TIMES"},   {B::Max, B::First, "MAX", "FIRST"},
        {B::Max, B::Second, "MAX", "SECOND"}, {B::Max, B::Min, "MAX", "MIN"}};
    for (const Pair& p : numeric)
      for (int t = 1; t < kBuiltinTypeCount; ++t) put(p.add, p.mul, static_cast<TypeCode>(t), p.addname, p.mulname);
    put(B::LOr, B::LAnd, TypeCode::Bool, "LOR", "LAND");
    put(B::LAnd, B::LOr, TypeCode::Bool, "LAND", "LOR");
    put(B::LXor, B::LAnd, TypeCode::Bool, "LXOR", "LAND");
    put(B::LXnor, B::LOr, TypeCode::Bool, "LXNOR", "LOR");
  }
};

const SemiringTable& semiring_table() {
  static const SemiringTable table;
  return table;
}

}  // namespace

const Monoid* builtin_monoid(BinaryOpcode op, TypeCode type) {
  if (type == TypeCode::Bool) op = canonical_bool_add(op);
  const int o = static_cast<int>(op), t = algebra::type_index(type);
  if (o < 0 || o >= kOps || t < 0 || t >= kBuiltinTypeCount) return nullptr;
  return monoid_table().at[o][t];
}

const Semiring* builtin_semiring(BinaryOpcode add, BinaryOpcode multiply, TypeCode type) {
  if (type == TypeCode::Bool) add = canonical_bool_add(add);
  const int a = static_cast<int>(add), m = static_cast<int>(multiply), t = algebra::type_index(type);
  if (a < 0 || a >= kOps || m < 0 || m >= kOps || t < 0 || t >= kBuiltinTypeCount) return nullptr;
  return semiring_table().at[SemiringTable::key(add, multiply, type)];
}

const std::vector<const Monoid*>& all_builtin_monoids() { return monoid_table().all; }
const std::vector<const Semiring*>& all_builtin_semirings() { return semiring_table().all; }

// A builtin operator that is a monoid's operator, possibly under another name: on BOOL, SuiteSparse (and
// so the reference backend) treats PLUS and MAX as LOR, TIMES and MIN as LAND, MINUS and NE as LXOR, EQ as
// LXNOR; a reduction with any of those is the reduction with that monoid.
const Monoid* monoid_of(const BinaryOp& op) {
  if (op.opcode == B::User || op.xtype == nullptr || !op.xtype->builtin()) return nullptr;
  if (op.ztype != op.xtype || op.ytype != op.xtype) return nullptr;
  BinaryOpcode code = op.opcode;
  if (op.xtype->code == TypeCode::Bool) {
    switch (code) {
      case B::Plus: case B::Max: case B::LOr: code = B::LOr; break;
      case B::Times: case B::Min: case B::LAnd: code = B::LAnd; break;
      case B::Minus: case B::Ne: case B::LXor: code = B::LXor; break;
      case B::Eq: case B::LXnor: code = B::LXnor; break;
      default: return nullptr;
    }
  }
  return builtin_monoid(code, op.xtype->code);
}

}  // namespace snk
