// src/algebra/unary_ops.cpp: the predefined unary operators of the C API spec 2.0.
//
// IDENTITY, AINV, MINV and ABS on all 11 builtin types, LNOT on BOOL, BNOT on the 8 integer types: the spec's 53;
// and the library's extensions SQRT, EXP, LOG and TANH on FP32 and FP64 (named SNK_<OP>_<T>): 61 objects, each a
// singleton built once, on first use. The function of each is one instantiation of unary_fn<Op, T>, which applies
// the rule of builtin_math.hpp.
#include <array>
#include <cstring>
#include <memory>

#include "algebra/builtin_math.hpp"
#include "algebra/type_list.hpp"
#include "snack/algebra.hpp"

namespace snk {
namespace {

constexpr int kUnaryOpcodeCount = static_cast<int>(UnaryOpcode::User);

constexpr bool is_extension(UnaryOpcode op) {
  return op == UnaryOpcode::Sqrt || op == UnaryOpcode::Exp || op == UnaryOpcode::Log || op == UnaryOpcode::Tanh;
}

template <UnaryOpcode Op, class T>
constexpr bool unary_defined() {
  if constexpr (Op == UnaryOpcode::LNot) return math::is_bool_v<T>;
  else if constexpr (Op == UnaryOpcode::BNot) return math::is_int_v<T>;
  else if constexpr (is_extension(Op)) return math::is_float_v<T>;
  else return true;
}

template <UnaryOpcode Op, class T>
T unary_compute(T x) {
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

template <UnaryOpcode Op, class T>
void unary_fn(void* z, const void* x) {
  T a;
  std::memcpy(&a, x, sizeof(T));
  const T r = unary_compute<Op, T>(a);
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
