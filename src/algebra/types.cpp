// src/algebra/types.cpp: the builtin type singletons, user-defined types, and typecasting.
//
// Casting is table driven: one tiny function per (to, from) pair of builtin types, generated from the
// single cast rule in builtin_math.hpp, for a single value (cast_function) and for an array (cast_array's
// loop, so that a bulk cast makes one indirect call, not one per value). A UDT casts only to itself, which
// is a byte copy.
#include <cstring>

#include "algebra/builtin_math.hpp"
#include "algebra/type_list.hpp"
#include "snack/error.hpp"
#include "snack/types.hpp"

namespace snk {

namespace types {
const Type Bool{TypeCode::Bool, sizeof(bool), "BOOL"};
const Type Int8{TypeCode::Int8, sizeof(std::int8_t), "INT8"};
const Type Int16{TypeCode::Int16, sizeof(std::int16_t), "INT16"};
const Type Int32{TypeCode::Int32, sizeof(std::int32_t), "INT32"};
const Type Int64{TypeCode::Int64, sizeof(std::int64_t), "INT64"};
const Type UInt8{TypeCode::UInt8, sizeof(std::uint8_t), "UINT8"};
const Type UInt16{TypeCode::UInt16, sizeof(std::uint16_t), "UINT16"};
const Type UInt32{TypeCode::UInt32, sizeof(std::uint32_t), "UINT32"};
const Type UInt64{TypeCode::UInt64, sizeof(std::uint64_t), "UINT64"};
const Type FP32{TypeCode::FP32, sizeof(float), "FP32"};
const Type FP64{TypeCode::FP64, sizeof(double), "FP64"};
}  // namespace types

namespace {

const Type* const kBuiltinTypes[kBuiltinTypeCount] = {
    &types::Bool,   &types::Int8,   &types::Int16,  &types::Int32, &types::Int64, &types::UInt8,
    &types::UInt16, &types::UInt32, &types::UInt64, &types::FP32,  &types::FP64};

using CastArrayFunction = void (*)(void* dst, const void* src, std::size_t n);

template <class To, class From>
void cast_one(void* dst, const void* src) {
  From x;
  std::memcpy(&x, src, sizeof(From));
  const To z = math::cast<To>(x);
  std::memcpy(dst, &z, sizeof(To));
}

template <class To, class From>
void cast_many(void* dst, const void* src, std::size_t n) {
  if constexpr (std::is_same_v<To, From>) {
    if (n) std::memcpy(dst, src, n * sizeof(To));
  } else {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (std::size_t k = 0; k < n; ++k) cast_one<To, From>(d + k * sizeof(To), s + k * sizeof(From));
  }
}

struct CastTables {
  CastFunction one[kBuiltinTypeCount][kBuiltinTypeCount] = {};
  CastArrayFunction many[kBuiltinTypeCount][kBuiltinTypeCount] = {};
  CastTables() {
    int t = 0;
    algebra::for_each_builtin_type([&](auto to) {
      using To = typename decltype(to)::type;
      int f = 0;
      algebra::for_each_builtin_type([&](auto from) {
        using From = typename decltype(from)::type;
        one[t][f] = &cast_one<To, From>;
        many[t][f] = &cast_many<To, From>;
        ++f;
      });
      ++t;
    });
  }
};

const CastTables& cast_tables() {
  static const CastTables tables;
  return tables;
}

}  // namespace

const Type* builtin_type(TypeCode code) {
  if (code == TypeCode::UDT) return nullptr;
  const int k = algebra::type_index(code);
  return (k >= 0 && k < kBuiltinTypeCount) ? kBuiltinTypes[k] : nullptr;
}

const Type* const* builtin_types() { return kBuiltinTypes; }

Type* new_user_type(std::size_t size, const std::string& name) {
  SNK_CHECK(size > 0, Info::InvalidValue, "new_user_type: the size of a user-defined type must be > 0");
  return new Type{TypeCode::UDT, size, name};
}

bool castable(const Type* to, const Type* from) {
  if (to == nullptr || from == nullptr) return false;
  if (to == from) return true;
  return to->builtin() && from->builtin();
}

CastFunction cast_function(const Type* to, const Type* from) {
  if (!castable(to, from) || !to->builtin()) return nullptr;
  return cast_tables().one[algebra::type_index(to->code)][algebra::type_index(from->code)];
}

void cast_array(const Type* to, void* dst, const Type* from, const void* src, std::size_t n) {
  SNK_CHECK(castable(to, from), Info::DomainMismatch,
            std::string("cannot cast values of type ") + (from ? from->name : "(null)") + " to " +
                (to ? to->name : "(null)"));
  if (n == 0) return;
  if (to == from) {
    std::memcpy(dst, src, n * to->size);
    return;
  }
  cast_tables().many[algebra::type_index(to->code)][algebra::type_index(from->code)](dst, src, n);
}

}  // namespace snk
