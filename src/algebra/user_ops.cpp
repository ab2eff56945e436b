// src/algebra/user_ops.cpp: constructors of user-defined operators, monoids and semirings.
//
// Each checks its arguments before creating anything, as the C API's *_new methods do: a null function,
// operator, monoid, type or identity is NullPointer; a monoid whose operator does not have one domain for
// x, y and z, or a semiring whose multiplier does not produce the monoid's type, is DomainMismatch. The
// objects carry the User opcode (backends run them through the function pointer) and are owned by the
// caller.
#include <cstring>

#include "snack/algebra.hpp"
#include "snack/error.hpp"

namespace snk {

std::unique_ptr<UnaryOp> new_unary_op(UnaryFunction fn, const Type* ztype, const Type* xtype,
                                      const std::string& name) {
  SNK_CHECK(fn != nullptr, Info::NullPointer, "new_unary_op: the function is null");
  SNK_CHECK(ztype != nullptr, Info::NullPointer, "new_unary_op: the output type (ztype) is null");
  SNK_CHECK(xtype != nullptr, Info::NullPointer, "new_unary_op: the input type (xtype) is null");
  return std::make_unique<UnaryOp>(UnaryOp{UnaryOpcode::User, ztype, xtype, fn, name});
}

std::unique_ptr<BinaryOp> new_binary_op(BinaryFunction fn, const Type* ztype, const Type* xtype,
                                        const Type* ytype, const std::string& name) {
  SNK_CHECK(fn != nullptr, Info::NullPointer, "new_binary_op: the function is null");
  SNK_CHECK(ztype != nullptr, Info::NullPointer, "new_binary_op: the output type (ztype) is null");
  SNK_CHECK(xtype != nullptr, Info::NullPointer, "new_binary_op: the first input type (xtype) is null");
  SNK_CHECK(ytype != nullptr, Info::NullPointer, "new_binary_op: the second input type (ytype) is null");
  return std::make_unique<BinaryOp>(BinaryOp{BinaryOpcode::User, ztype, xtype, ytype, fn, name});
}

std::unique_ptr<IndexUnaryOp> new_index_unary_op(IndexUnaryFunction fn, const Type* ztype,
                                                 const Type* xtype, const Type* ytype,
                                                 const std::string& name) {
  SNK_CHECK(fn != nullptr, Info::NullPointer, "new_index_unary_op: the function is null");
  SNK_CHECK(ztype != nullptr, Info::NullPointer, "new_index_unary_op: the output type (ztype) is null");
  SNK_CHECK(xtype != nullptr, Info::NullPointer, "new_index_unary_op: the value type (xtype) is null");
  SNK_CHECK(ytype != nullptr, Info::NullPointer, "new_index_unary_op: the thunk type (ytype) is null");
  return std::make_unique<IndexUnaryOp>(IndexUnaryOp{IndexUnaryOpcode::User, ztype, xtype, ytype, fn, name});
}

std::unique_ptr<Monoid> new_monoid(const BinaryOp* op, const void* identity, const void* terminal,
                                   const std::string& name) {
  SNK_CHECK(op != nullptr, Info::NullPointer, "new_monoid: the operator is null");
  SNK_CHECK(identity != nullptr, Info::NullPointer, "new_monoid: the identity value is null");
  SNK_CHECK(op->ztype != nullptr && op->xtype != nullptr && op->ytype != nullptr, Info::NullPointer,
            "new_monoid: the operator '" + op->name + "' has a null domain");
  SNK_CHECK(op->ztype == op->xtype && op->ztype == op->ytype, Info::DomainMismatch,
            "new_monoid: the operator '" + op->name + "' must have one domain for x, y and z (it has " +
                op->xtype->name + " x " + op->ytype->name + " -> " + op->ztype->name + ")");
  const std::size_t size = op->ztype->size;
  auto m = std::make_unique<Monoid>();
  m->op = op;
  m->identity.resize(size);
  std::memcpy(m->identity.data(), identity, size);
  if (terminal != nullptr) {
    m->has_terminal = true;
    m->terminal.resize(size);
    std::memcpy(m->terminal.data(), terminal, size);
  }
  m->name = name;
  return m;
}

std::unique_ptr<Semiring> new_semiring(const Monoid* add, const BinaryOp* multiply, const std::string& name) {
  SNK_CHECK(add != nullptr, Info::NullPointer, "new_semiring: the additive monoid is null");
  SNK_CHECK(multiply != nullptr, Info::NullPointer, "new_semiring: the multiplicative operator is null");
  SNK_CHECK(add->op != nullptr, Info::NullPointer, "new_semiring: the monoid '" + add->name + "' has no operator");
  SNK_CHECK(multiply->ztype == add->type(), Info::DomainMismatch,
            "new_semiring: the multiplier '" + multiply->name + "' produces " +
                (multiply->ztype ? multiply->ztype->name : std::string("(null)")) + " but the monoid '" +
                add->name + "' is over " + add->type()->name);
  return std::make_unique<Semiring>(Semiring{add, multiply, name});
}

}  // namespace snk
