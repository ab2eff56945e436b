// src/capi/predefined.cpp: the predefined objects of the spec (types, unary / binary / index-unary
// operators, monoids, semirings, descriptors) and GrB_ALL, as global handles.
//
// Each handle is the address of a static struct, so it is a constant from program start (usable right
// after GrB_init, and before). A type handle points to the C++ builtin type singleton; an operator, monoid
// or semiring handle records the opcode(s) and type of its C++ singleton, which it looks up on first use
// (SNK_*_opaque::resolve in context.cpp), so that nothing depends on the order in which the library's
// static objects are constructed. Predefined handles are never freed or modified.
#include "capi/capi.hpp"

using snk::BinaryOpcode;
using snk::IndexUnaryOpcode;
using snk::TypeCode;
using snk::UnaryOpcode;

namespace {
const GrB_Index kAllIndicesSentinel[1] = {0};
}
extern "C" {
const GrB_Index* const GrB_ALL = kAllIndicesSentinel;

// The type codes of the typed suffixes.
#define SNK_TC_BOOL TypeCode::Bool
#define SNK_TC_INT8 TypeCode::Int8
#define SNK_TC_UINT8 TypeCode::UInt8
#define SNK_TC_INT16 TypeCode::Int16
#define SNK_TC_UINT16 TypeCode::UInt16
#define SNK_TC_INT32 TypeCode::Int32
#define SNK_TC_UINT32 TypeCode::UInt32
#define SNK_TC_INT64 TypeCode::Int64
#define SNK_TC_UINT64 TypeCode::UInt64
#define SNK_TC_FP32 TypeCode::FP32
#define SNK_TC_FP64 TypeCode::FP64

// ---- types -------------------------------------------------------------------------------------------------
#define SNK_DEFINE_TYPE(T, cpp)                                    \
  static SNK_Type_opaque snk_type_##T(&snk::types::cpp, true);     \
  GrB_Type GrB_##T = &snk_type_##T;
SNK_DEFINE_TYPE(BOOL, Bool)
SNK_DEFINE_TYPE(INT8, Int8)
SNK_DEFINE_TYPE(UINT8, UInt8)
SNK_DEFINE_TYPE(INT16, Int16)
SNK_DEFINE_TYPE(UINT16, UInt16)
SNK_DEFINE_TYPE(INT32, Int32)
SNK_DEFINE_TYPE(UINT32, UInt32)
SNK_DEFINE_TYPE(INT64, Int64)
SNK_DEFINE_TYPE(UINT64, UInt64)
SNK_DEFINE_TYPE(FP32, FP32)
SNK_DEFINE_TYPE(FP64, FP64)

// ---- operators ---------------------------------------------------------------------------------------------
// SNK_DEFINE(kind, C name, constructor arguments...)
#define SNK_DEFINE(Kind, name, ...)                                  \
  static SNK_##Kind##_opaque snk_##name(__VA_ARGS__, "GrB_" #name);  \
  GrB_##Kind GrB_##name = &snk_##name;

#define SNK_FOR_ALL_TYPES(X, ...)                                                                        \
  X(BOOL, __VA_ARGS__) X(INT8, __VA_ARGS__) X(UINT8, __VA_ARGS__) X(INT16, __VA_ARGS__)                  \
  X(UINT16, __VA_ARGS__) X(INT32, __VA_ARGS__) X(UINT32, __VA_ARGS__) X(INT64, __VA_ARGS__)              \
  X(UINT64, __VA_ARGS__) X(FP32, __VA_ARGS__) X(FP64, __VA_ARGS__)
#define SNK_FOR_INT_TYPES(X, ...)                                                                        \
  X(INT8, __VA_ARGS__) X(UINT8, __VA_ARGS__) X(INT16, __VA_ARGS__) X(UINT16, __VA_ARGS__)                \
  X(INT32, __VA_ARGS__) X(UINT32, __VA_ARGS__) X(INT64, __VA_ARGS__) X(UINT64, __VA_ARGS__)
#define SNK_FOR_NUMERIC_TYPES(X, ...) SNK_FOR_INT_TYPES(X, __VA_ARGS__) X(FP32, __VA_ARGS__) X(FP64, __VA_ARGS__)

#define SNK_UNARY(T, NAME, opc) SNK_DEFINE(UnaryOp, NAME##_##T, UnaryOpcode::opc, SNK_TC_##T)
SNK_FOR_ALL_TYPES(SNK_UNARY, IDENTITY, Identity)
SNK_FOR_ALL_TYPES(SNK_UNARY, AINV, AInv)
SNK_FOR_ALL_TYPES(SNK_UNARY, MINV, MInv)
SNK_FOR_ALL_TYPES(SNK_UNARY, ABS, Abs)
SNK_FOR_INT_TYPES(SNK_UNARY, BNOT, BNot)
SNK_DEFINE(UnaryOp, LNOT, UnaryOpcode::LNot, TypeCode::Bool)
// The library's extensions (SNK_ names).
#define SNK_DEFINE_EXTENSION(T, NAME, opc)                                                                 \
  static SNK_UnaryOp_opaque snk_ext_##NAME##_##T(UnaryOpcode::opc, SNK_TC_##T, "SNK_" #NAME "_" #T);       \
  GrB_UnaryOp SNK_##NAME##_##T = &snk_ext_##NAME##_##T;
#define SNK_DEFINE_UNARY_FLOAT(T)                                                                          \
  SNK_DEFINE_EXTENSION(T, SQRT, Sqrt) SNK_DEFINE_EXTENSION(T, EXP, Exp) SNK_DEFINE_EXTENSION(T, LOG, Log)   \
  SNK_DEFINE_EXTENSION(T, TANH, Tanh)
SNK_DEFINE_UNARY_FLOAT(FP32)
SNK_DEFINE_UNARY_FLOAT(FP64)

#define SNK_BINARY(T, NAME, opc) SNK_DEFINE(BinaryOp, NAME##_##T, BinaryOpcode::opc, SNK_TC_##T)
SNK_FOR_ALL_TYPES(SNK_BINARY, FIRST, First)
SNK_FOR_ALL_TYPES(SNK_BINARY, SECOND, Second)
SNK_FOR_ALL_TYPES(SNK_BINARY, ONEB, Oneb)
SNK_FOR_ALL_TYPES(SNK_BINARY, MIN, Min)
SNK_FOR_ALL_TYPES(SNK_BINARY, MAX, Max)
SNK_FOR_ALL_TYPES(SNK_BINARY, PLUS, Plus)
SNK_FOR_ALL_TYPES(SNK_BINARY, MINUS, Minus)
SNK_FOR_ALL_TYPES(SNK_BINARY, TIMES, Times)
SNK_FOR_ALL_TYPES(SNK_BINARY, DIV, Div)
SNK_FOR_ALL_TYPES(SNK_BINARY, EQ, Eq)
SNK_FOR_ALL_TYPES(SNK_BINARY, NE, Ne)
SNK_FOR_ALL_TYPES(SNK_BINARY, GT, Gt)
SNK_FOR_ALL_TYPES(SNK_BINARY, LT, Lt)
SNK_FOR_ALL_TYPES(SNK_BINARY, GE, Ge)
SNK_FOR_ALL_TYPES(SNK_BINARY, LE, Le)
SNK_FOR_INT_TYPES(SNK_BINARY, BOR, BOr)
SNK_FOR_INT_TYPES(SNK_BINARY, BAND, BAnd)
SNK_FOR_INT_TYPES(SNK_BINARY, BXOR, BXor)
SNK_FOR_INT_TYPES(SNK_BINARY, BXNOR, BXnor)
SNK_DEFINE(BinaryOp, LOR, BinaryOpcode::LOr, TypeCode::Bool)
SNK_DEFINE(BinaryOp, LAND, BinaryOpcode::LAnd, TypeCode::Bool)
SNK_DEFINE(BinaryOp, LXOR, BinaryOpcode::LXor, TypeCode::Bool)
SNK_DEFINE(BinaryOp, LXNOR, BinaryOpcode::LXnor, TypeCode::Bool)

// Index-unary: positional ones take INT64 (ROWINDEX/COLINDEX/DIAGINDEX: their output type).
SNK_DEFINE(IndexUnaryOp, ROWINDEX_INT32, IndexUnaryOpcode::RowIndex, TypeCode::Int32)
SNK_DEFINE(IndexUnaryOp, ROWINDEX_INT64, IndexUnaryOpcode::RowIndex, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, COLINDEX_INT32, IndexUnaryOpcode::ColIndex, TypeCode::Int32)
SNK_DEFINE(IndexUnaryOp, COLINDEX_INT64, IndexUnaryOpcode::ColIndex, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, DIAGINDEX_INT32, IndexUnaryOpcode::DiagIndex, TypeCode::Int32)
SNK_DEFINE(IndexUnaryOp, DIAGINDEX_INT64, IndexUnaryOpcode::DiagIndex, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, TRIL, IndexUnaryOpcode::Tril, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, TRIU, IndexUnaryOpcode::Triu, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, DIAG, IndexUnaryOpcode::Diag, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, OFFDIAG, IndexUnaryOpcode::Offdiag, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, COLLE, IndexUnaryOpcode::ColLe, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, COLGT, IndexUnaryOpcode::ColGt, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, ROWLE, IndexUnaryOpcode::RowLe, TypeCode::Int64)
SNK_DEFINE(IndexUnaryOp, ROWGT, IndexUnaryOpcode::RowGt, TypeCode::Int64)
#define SNK_INDEXOP(T, NAME, opc) SNK_DEFINE(IndexUnaryOp, NAME##_##T, IndexUnaryOpcode::opc, SNK_TC_##T)
SNK_FOR_ALL_TYPES(SNK_INDEXOP, VALUEEQ, ValueEq)
SNK_FOR_ALL_TYPES(SNK_INDEXOP, VALUENE, ValueNe)
SNK_FOR_ALL_TYPES(SNK_INDEXOP, VALUELT, ValueLt)
SNK_FOR_ALL_TYPES(SNK_INDEXOP, VALUELE, ValueLe)
SNK_FOR_ALL_TYPES(SNK_INDEXOP, VALUEGT, ValueGt)
SNK_FOR_ALL_TYPES(SNK_INDEXOP, VALUEGE, ValueGe)

// ---- monoids and semirings ---------------------------------------------------------------------------------
#define SNK_MONOID(T, NAME, opc) SNK_DEFINE(Monoid, NAME##_MONOID_##T, BinaryOpcode::opc, SNK_TC_##T)
SNK_FOR_NUMERIC_TYPES(SNK_MONOID, PLUS, Plus)
SNK_FOR_NUMERIC_TYPES(SNK_MONOID, TIMES, Times)
SNK_FOR_NUMERIC_TYPES(SNK_MONOID, MIN, Min)
SNK_FOR_NUMERIC_TYPES(SNK_MONOID, MAX, Max)
SNK_MONOID(BOOL, LOR, LOr)
SNK_MONOID(BOOL, LAND, LAnd)
SNK_MONOID(BOOL, LXOR, LXor)
SNK_MONOID(BOOL, LXNOR, LXnor)

#define SNK_SEMIRING(T, ADD, MUL, add, mul) \
  SNK_DEFINE(Semiring, ADD##_##MUL##_SEMIRING_##T, BinaryOpcode::add, BinaryOpcode::mul, SNK_TC_##T)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, PLUS, TIMES, Plus, Times)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, PLUS, MIN, Plus, Min)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MIN, PLUS, Min, Plus)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MIN, TIMES, Min, Times)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MIN, FIRST, Min, First)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MIN, SECOND, Min, Second)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MIN, MAX, Min, Max)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MAX, PLUS, Max, Plus)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MAX, TIMES, Max, Times)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MAX, FIRST, Max, First)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MAX, SECOND, Max, Second)
SNK_FOR_NUMERIC_TYPES(SNK_SEMIRING, MAX, MIN, Max, Min)
SNK_SEMIRING(BOOL, LOR, LAND, LOr, LAnd)
SNK_SEMIRING(BOOL, LAND, LOR, LAnd, LOr)
SNK_SEMIRING(BOOL, LXOR, LAND, LXor, LAnd)
SNK_SEMIRING(BOOL, LXNOR, LOR, LXnor, LOr)

// ---- descriptors -------------------------------------------------------------------------------------------
// Letters: R = replace, S = structural mask, C = complemented mask, T0 / T1 = transposed input 0 / 1.
namespace {
constexpr snk::Descriptor desc(bool r, bool s, bool c, bool t0, bool t1) {
  snk::Descriptor d;
  d.replace = r;
  d.mask_structure = s;
  d.mask_complement = c;
  d.transpose_first = t0;
  d.transpose_second = t1;
  return d;
}
}  // namespace
#define SNK_DESC(name, r, s, c, t0, t1)                                                \
  static SNK_Descriptor_opaque snk_desc_##name(desc(r, s, c, t0, t1), true);           \
  GrB_Descriptor GrB_DESC_##name = &snk_desc_##name;
#define SNK_DESC4(prefix, r, s, c)              \
  SNK_DESC(prefix##T1, r, s, c, false, true)    \
  SNK_DESC(prefix##T0, r, s, c, true, false)    \
  SNK_DESC(prefix##T0T1, r, s, c, true, true)
SNK_DESC4(, false, false, false)
SNK_DESC(C, false, false, true, false, false)
SNK_DESC4(C, false, false, true)
SNK_DESC(S, false, true, false, false, false)
SNK_DESC4(S, false, true, false)
SNK_DESC(SC, false, true, true, false, false)
SNK_DESC4(SC, false, true, true)
SNK_DESC(R, true, false, false, false, false)
SNK_DESC4(R, true, false, false)
SNK_DESC(RC, true, false, true, false, false)
SNK_DESC4(RC, true, false, true)
SNK_DESC(RS, true, true, false, false, false)
SNK_DESC4(RS, true, true, false)
SNK_DESC(RSC, true, true, true, false, false)
SNK_DESC4(RSC, true, true, true)

}  // extern "C"
