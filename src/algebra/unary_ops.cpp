// src/algebra/unary_ops.cpp: the predefined unary operators of the C API spec 2.0.
//
// IDENTITY, AINV, MINV and ABS on all 11 builtin types, LNOT on BOOL, BNOT on the 8 integer types: the spec's 53;
// and the library's extensions SQRT, EXP, LOG and TANH on FP32 and FP64 (named SNK_<OP>_<T>): 61 objects, each a
// singleton built once, on first use. The function of each is one instantiation of unary_fn<Op, T>, which applies
// builtin_ops.hpp's operator.
#include <array>
#include <cstring>
#include <memory>

#include "algebra/builtin_ops.hpp"
#include "algebra/type_list.hpp"
#include "snack/algebra.hpp"

namespace snk {
namespace {

constexpr int kUnaryOpcodeCount = static_cast<int>(UnaryOpcode::User);

using ops::is_extension;
using ops::unary_defined;

template <UnaryOpcode Op, class T>
void unary_fn(void* z, const void* x) {
  T a;
  std::memcpy(&a, x, sizeof(T));
  const T r = ops::unary_apply<Op, T>(a);
  std::memcpy(z, &r, sizeof(T));
}

const char* unary_name(UnaryOpcode op) {
  switch (op) {
    case UnaryOpcode::Identity: return "IDENTITY";
    case UnaryOpcode::AInv: return "AINV";
    case UnaryOpcode::MInv: return "MINV";
    case UnaryOpcode::LNot: return "LNOT";
    case UnaryOpcode::Abs: return "ABS";
    case UnaryOpcode::BNot: return "BNOT";
    case UnaryOpcode::Sqrt: return "SQRT";
    case UnaryOpcode::Exp: return "EXP";
    case UnaryOpcode::Log: return "LOG";
    case UnaryOpcode::Tanh: return "TANH";
    default: return "USER";
  }
}

struct UnaryTable {
  std::vector<std::unique_ptr<UnaryOp>> owned;
  std::vector<const UnaryOp*> all;
  std::array<std::array<const UnaryOp*, kBuiltinTypeCount>, kUnaryOpcodeCount> at{};

  void put(UnaryOpcode op, const Type* t, UnaryFunction fn) {
    // LNOT exists only on BOOL and carries no type suffix (GrB_LNOT).
    std::string name = std::string(is_extension(op) ? "SNK_" : "GrB_") + unary_name(op);
    if (op != UnaryOpcode::LNot) name += "_" + t->name;
    owned.push_back(std::make_unique<UnaryOp>(UnaryOp{op, t, t, fn, name}));
    at[static_cast<int>(op)][algebra::type_index(t->code)] = owned.back().get();
    all.push_back(owned.back().get());
  }

  template <UnaryOpcode Op>
  void add() {
    algebra::for_each_builtin_type([&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (unary_defined<Op, T>()) put(Op, type_of<T>(), &unary_fn<Op, T>);
    });
  }

  UnaryTable() {
    add<UnaryOpcode::Identity>();
    add<UnaryOpcode::AInv>();
    add<UnaryOpcode::MInv>();
    add<UnaryOpcode::LNot>();
    add<UnaryOpcode::Abs>();
    add<UnaryOpcode::BNot>();
    add<UnaryOpcode::Sqrt>();
    add<UnaryOpcode::Exp>();
    add<UnaryOpcode::Log>();
    add<UnaryOpcode::Tanh>();
  }
};

const UnaryTable& unary_table() {
  static const UnaryTable table;
  return table;
}

}  // namespace

const UnaryOp* builtin_unary_op(UnaryOpcode op, TypeCode type) {
  const int o = static_cast<int>(op), t = algebra::type_index(type);
  if (o < 0 || o >= kUnaryOpcodeCount || t < 0 || t >= kBuiltinTypeCount) return nullptr;
  return unary_table().at[o][t];
}

const std::vector<const UnaryOp*>& all_builtin_unary_ops() { return unary_table().all; }

}  // namespace snk
