// src/algebra/type_list.hpp: compile-time iteration over the 11 builtin C++ value types, for the
// algebra's sources that build one table entry per type (casts, operators, monoids).
//
// for_each_builtin_type(f) calls f(TypeTag<T>{}) for T = bool, int8_t, ..., double, in TypeCode order, so a
// generic lambda can recover T as `typename decltype(tag)::type`.
#pragma once

#include <cstdint>

#include "snack/types.hpp"

namespace snk::algebra {

template <class T> struct TypeTag { using type = T; };

template <class F>
void for_each_builtin_type(F&& f) {
  f(TypeTag<bool>{});
  f(TypeTag<std::int8_t>{});
  f(TypeTag<std::int16_t>{});
  f(TypeTag<std::int32_t>{});
  f(TypeTag<std::int64_t>{});
  f(TypeTag<std::uint8_t>{});
  f(TypeTag<std::uint16_t>{});
  f(TypeTag<std::uint32_t>{});
  f(TypeTag<std::uint64_t>{});
  f(TypeTag<float>{});
  f(TypeTag<double>{});
}

// Index of a builtin type code in tables of kBuiltinTypeCount entries.
constexpr int type_index(TypeCode code) { return static_cast<int>(code); }

}  // namespace snk::algebra
