// snack/algebra.hpp: operators, monoids and semirings (the algebra of GraphBLAS).
//
// Every predefined unary, binary and index-unary operator, monoid and semiring of the C API spec 2.0
// exists as a singleton object reached through the lookup functions below (by opcode and type), and
// user code can create its own from C function pointers. Each object carries an opcode (what it
// computes, so that backends can turn a builtin operator into an inlined template functor) and a
// function pointer (so that generic code can run any operator, builtin or user-defined, one value at a
// time). The function pointer signatures are those of the C API (GxB_unary_function, ...).
//
// Domains: an operator's inputs and output each have a Type. For the comparison operators (EQ ... LE) the
// output is BOOL and the inputs are the named type; for the logical operators LOR/LAND/LXOR/LXNOR everything
// is BOOL. Positional index-unary operators (ROWINDEX ... ROWGT) ignore the value of x; their xtype is
// nullptr ("any type"), their thunk type is INT64, except ROWINDEX/COLINDEX/DIAGINDEX, which come in INT32
// and INT64 variants whose thunk has the output's type (as in SuiteSparse).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "snack/types.hpp"

namespace snk {

using UnaryFunction = void (*)(void* z, const void* x);
using BinaryFunction = void (*)(void* z, const void* x, const void* y);
using IndexUnaryFunction = void (*)(void* z, const void* x, Index i, Index j, const void* thunk);

// Identity ... BNot are the spec's; Sqrt, Exp, Log and Tanh (FP32 and FP64 only) are the library's extensions
// (SNK_SQRT_FP32 ... in the C API), the math the sparse layers' optimizers and losses need.
enum class UnaryOpcode : std::uint8_t { Identity, AInv, MInv, LNot, Abs, BNot, Sqrt, Exp, Log, Tanh, User };

enum class BinaryOpcode : std::uint8_t {
  First, Second, Oneb, Min, Max, Plus, Minus, Times, Div,
  Eq, Ne, Gt, Lt, Ge, Le,          // comparisons: z is BOOL
  LOr, LAnd, LXor, LXnor,          // logical: BOOL only
  BOr, BAnd, BXor, BXnor,          // bitwise: integer types only
  User
};

enum class IndexUnaryOpcode : std::uint8_t {
  RowIndex, ColIndex, DiagIndex,   // z = i + y, j + y, j - (i + y) (z INT32 or INT64; SuiteSparse's DIAGINDEX)
  Tril, Triu, Diag, Offdiag,       // z = j <= i + y, j >= i + y, j == i + y, j != i + y
  ColLe, ColGt, RowLe, RowGt,      // z = j <= y, j > y, i <= y, i > y
  ValueEq, ValueNe, ValueLt, ValueLe, ValueGt, ValueGe,   // z = x OP y
  User
};

struct UnaryOp {
  UnaryOpcode opcode;
  const Type* ztype;
  const Type* xtype;
  UnaryFunction fn;
  std::string name;   // e.g. "GrB_AINV_FP64"
};

struct BinaryOp {
  BinaryOpcode opcode;
  const Type* ztype;
  const Type* xtype;
  const Type* ytype;
  BinaryFunction fn;
  std::string name;
};

struct IndexUnaryOp {
  IndexUnaryOpcode opcode;
  const Type* ztype;
  const Type* xtype;   // nullptr for positional operators (value ignored)
  const Type* ytype;   // thunk type
  IndexUnaryFunction fn;
  std::string name;
  bool positional() const { return opcode <= IndexUnaryOpcode::RowGt; }
};

struct Monoid {
  const BinaryOp* op;                  // ztype == xtype == ytype
  std::vector<unsigned char> identity; // one value of op->ztype
  bool has_terminal = false;
  std::vector<unsigned char> terminal; // valid when has_terminal
  std::string name;
  const Type* type() const { return op->ztype; }
};

struct Semiring {
  const Monoid* add;
  const BinaryOp* multiply;            // multiply->ztype == add->type()
  std::string name;
};

// ---- predefined objects --------------------------------------------------------------------------------
// Each returns the spec's predefined object, or nullptr when the spec defines no such combination
// (e.g. LNOT on FP64, BOR on FP32, a MIN monoid on BOOL).
const UnaryOp* builtin_unary_op(UnaryOpcode op, TypeCode type);
const BinaryOp* builtin_binary_op(BinaryOpcode op, TypeCode type);   // type = the input type
// For RowIndex/ColIndex/DiagIndex: `type` is the output type (INT32 or INT64); for the other
// positional operators `type` is INT64; for Value* operators `type` is the value type.
const IndexUnaryOp* builtin_index_unary_op(IndexUnaryOpcode op, TypeCode type);
// Monoids: PLUS, TIMES, MIN, MAX on the 10 numeric types; LOR, LAND, LXOR, LXNOR (EQ) on BOOL.
const Monoid* builtin_monoid(BinaryOpcode op, TypeCode type);
// Semirings of the spec (PLUS_TIMES, PLUS_MIN, MIN_PLUS, MIN_TIMES, MIN_FIRST, MIN_SECOND, MIN_MAX,
// MAX_PLUS, MAX_TIMES, MAX_FIRST, MAX_SECOND, MAX_MIN on numeric types; LOR_LAND, LAND_LOR, LXOR_LAND,
// LXNOR_LOR on BOOL). `add` names the monoid's operator, `multiply` the multiplier; type = input type.
const Semiring* builtin_semiring(BinaryOpcode add, BinaryOpcode multiply, TypeCode type);

// Every predefined object, for tests and for the C API's tables.
const std::vector<const UnaryOp*>& all_builtin_unary_ops();
const std::vector<const BinaryOp*>& all_builtin_binary_ops();
const std::vector<const IndexUnaryOp*>& all_builtin_index_unary_ops();
const std::vector<const Monoid*>& all_builtin_monoids();
const std::vector<const Semiring*>& all_builtin_semirings();

// The builtin monoid whose operator is `op` (for reduce with a binary operator), or nullptr.
const Monoid* monoid_of(const BinaryOp& op);

// ---- user-defined objects (owned by the caller) -----------------------------------------------------------
// Each checks its arguments (null function, null types) and throws snk::Error on bad input.
std::unique_ptr<UnaryOp> new_unary_op(UnaryFunction fn, const Type* ztype, const Type* xtype,
                                      const std::string& name = "user_unary_op");
std::unique_ptr<BinaryOp> new_binary_op(BinaryFunction fn, const Type* ztype, const Type* xtype,
                                        const Type* ytype, const std::string& name = "user_binary_op");
std::unique_ptr<IndexUnaryOp> new_index_unary_op(IndexUnaryFunction fn, const Type* ztype,
                                                 const Type* xtype, const Type* ytype,
                                                 const std::string& name = "user_index_unary_op");
// op must have ztype == xtype == ytype (else DomainMismatch); identity/terminal point to one value.
std::unique_ptr<Monoid> new_monoid(const BinaryOp* op, const void* identity, const void* terminal = nullptr,
                                   const std::string& name = "user_monoid");
// multiply->ztype must equal add->type() (else DomainMismatch).
std::unique_ptr<Semiring> new_semiring(const Monoid* add, const BinaryOp* multiply,
                                       const std::string& name = "user_semiring");

}  // namespace snk
