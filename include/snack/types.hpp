// snack/types.hpp: the GraphBLAS value types and typecasting between them.
//
// The 11 builtin types of the C API spec 2.0 plus user-defined types (UDTs: an opaque block of bytes of a
// fixed size, CPU backends only). A Type is identified by its address: builtin types are singletons
// (snk::types::FP64 ...), UDTs are created by user code and live as long as it keeps them. Typecasting
// between builtin types follows the spec (C conversions) with the rules SuiteSparse:GraphBLAS uses where
// C leaves the result undefined: float to integer saturates at the integer's range and NaN becomes 0;
// anything to bool is (x != 0). A UDT casts only to itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace snk {

using Index = std::uint64_t;
// Largest valid dimension and index + 1 (the spec's GrB_INDEX_MAX is kIndexMax - 1 as in SuiteSparse).
constexpr Index kIndexMax = Index(1) << 60;

enum class TypeCode : std::uint8_t {
  Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, FP32, FP64, UDT
};
constexpr int kBuiltinTypeCount = 11;

struct Type {
  TypeCode code;
  std::size_t size;   // bytes per value
  std::string name;   // "BOOL", "INT8", ..., "FP64" for builtins; the user's name for a UDT
  bool builtin() const { return code != TypeCode::UDT; }
};

namespace types {
extern const Type Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, FP32, FP64;
}  // namespace types

// The builtin type of a code (nullptr for TypeCode::UDT).
const Type* builtin_type(TypeCode code);
// All builtin types, in TypeCode order.
const Type* const* builtin_types();

template <class T> const Type* type_of();
template <> inline const Type* type_of<bool>() { return &types::Bool; }
template <> inline const Type* type_of<std::int8_t>() { return &types::Int8; }
template <> inline const Type* type_of<std::int16_t>() { return &types::Int16; }
template <> inline const Type* type_of<std::int32_t>() { return &types::Int32; }
template <> inline const Type* type_of<std::int64_t>() { return &types::Int64; }
template <> inline const Type* type_of<std::uint8_t>() { return &types::UInt8; }
template <> inline const Type* type_of<std::uint16_t>() { return &types::UInt16; }
template <> inline const Type* type_of<std::uint32_t>() { return &types::UInt32; }
template <> inline const Type* type_of<std::uint64_t>() { return &types::UInt64; }
template <> inline const Type* type_of<float>() { return &types::FP32; }
template <> inline const Type* type_of<double>() { return &types::FP64; }

// Creates a user-defined type of `size` bytes (size > 0). The caller owns it.
Type* new_user_type(std::size_t size, const std::string& name);

// True when values of `from` can be cast to `to` (both builtin, or the same UDT).
bool castable(const Type* to, const Type* from);

// One value / n contiguous values cast from `from` to `to`. Both must be castable (checked by callers).
using CastFunction = void (*)(void* dst, const void* src);
// cast_function: nullptr if not castable, and for a UDT (whose copy needs its size: use cast_array, which
// copies when to == from); a plain copy for the same builtin type.
CastFunction cast_function(const Type* to, const Type* from);
void cast_array(const Type* to, void* dst, const Type* from, const void* src, std::size_t n);

// Calls f.template operator()<T>() with T the C++ type of a builtin code (Bool -> bool, ...).
// Backends use it to turn a run-time type into a template argument once per kernel call.
template <class F>
decltype(auto) dispatch_type(TypeCode code, F&& f) {
  switch (code) {
    case TypeCode::Bool: return f.template operator()<bool>();
    case TypeCode::Int8: return f.template operator()<std::int8_t>();
    case TypeCode::Int16: return f.template operator()<std::int16_t>();
    case TypeCode::Int32: return f.template operator()<std::int32_t>();
    case TypeCode::Int64: return f.template operator()<std::int64_t>();
    case TypeCode::UInt8: return f.template operator()<std::uint8_t>();
    case TypeCode::UInt16: return f.template operator()<std::uint16_t>();
    case TypeCode::UInt32: return f.template operator()<std::uint32_t>();
    case TypeCode::UInt64: return f.template operator()<std::uint64_t>();
    case TypeCode::FP32: return f.template operator()<float>();
    case TypeCode::FP64: default: return f.template operator()<double>();
  }
}

}  // namespace snk
