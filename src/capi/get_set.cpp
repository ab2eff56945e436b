// src/capi/get_set.cpp: GrB_get / GrB_set of the C API spec 2.1 on every object kind and on the global
// context GrB_GLOBAL, the names behind GrB_NAME, and the GxB_ type queries (GxB_Type_name,
// GxB_<Object>_type_name, GxB_<Object>_type).
//
// Each object kind has one reader (a field -> its value: an INT32, a string or a size; or GrB_NO_VALUE)
// and one writer (a field and an Input that converts itself to what the field takes); the nine C
// functions of a kind (get and set, by value kind) only adapt the caller's value to them, so that every
// kind answers every value kind alike. A user object's GrB_NAME lives in its ObjectHeader; the names of
// user types and algebra objects are also held in a registry that keeps them unique among those objects
// and the builtin ones until the object is destroyed (~ObjectHeader calls release_name). User types are
// registered by their snk::Type (SNK_Type_opaque's constructor), so that a container's type leads back
// to its GrB_Type handle: its type string and GxB_Matrix_type. Every check runs before anything changes.
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "capi/capi.hpp"

using namespace snk::capi;
using snk::Error;
using snk::Info;
using snk::TypeCode;

// The global context: one object, GrB_GLOBAL.
struct SNK_Global_opaque {
  std::uint64_t magic;
};

namespace {
SNK_Global_opaque g_global{0x534e4b474c4f4241ull};   // "SNKGLOBA"
}

extern "C" {
const GrB_Global GrB_GLOBAL = &g_global;
}

// ---- names and types -------------------------------------------------------------------------------------
namespace snk::capi {

namespace {

// The registry: user types by their snk::Type, and the names taken by user types and algebra objects.
// Allocated once and never destroyed, so that objects destroyed during exit still find it.
struct Registry {
  std::mutex mutex;
  std::unordered_map<const Type*, GrB_Type> types;
  std::unordered_map<std::string, const ObjectHeader*> names;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// Names of every builtin type, operator, monoid and semiring.
const std::unordered_set<std::string>& builtin_names() {
  static const auto* names = [] {
    auto* s = new std::unordered_set<std::string>;
    for (int c = 0; c < kBuiltinTypeCount; ++c) s->insert("GrB_" + builtin_types()[c]->name);
    for (const UnaryOp* op : all_builtin_unary_ops()) s->insert(op->name);
    for (const BinaryOp* op : all_builtin_binary_ops()) s->insert(op->name);
    for (const IndexUnaryOp* op : all_builtin_index_unary_ops()) s->insert(op->name);
    for (const Monoid* m : all_builtin_monoids()) s->insert(m->name);
    for (const Semiring* sr : all_builtin_semirings()) s->insert(sr->name);
    return s;
  }();
  return *names;
}

const char* c_type_name(TypeCode code) {
  switch (code) {
    case TypeCode::Bool: return "bool";
    case TypeCode::Int8: return "int8_t";
    case TypeCode::Int16: return "int16_t";
    case TypeCode::Int32: return "int32_t";
    case TypeCode::Int64: return "int64_t";
    case TypeCode::UInt8: return "uint8_t";
    case TypeCode::UInt16: return "uint16_t";
    case TypeCode::UInt32: return "uint32_t";
    case TypeCode::UInt64: return "uint64_t";
    case TypeCode::FP32: return "float";
    case TypeCode::FP64: return "double";
    case TypeCode::UDT: break;
  }
  return "";
}

// The name of a predefined descriptor, from its settings (they tell the predefined ones apart).
std::string descriptor_name(const Descriptor& d) {
  std::string s = "GrB_DESC_";
  if (d.replace) s += "R";
  if (d.mask_structure) s += "S";
  if (d.mask_complement) s += "C";
  if (d.transpose_first) s += "T0";
  if (d.transpose_second) s += "T1";
  return s;
}

}  // namespace

void register_user_type(GrB_Type t) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  try {
    r.types[t->type] = t;
  } catch (...) {   // out of memory: the type still works; only GxB_*_type cannot find its handle
  }
}

void unregister_user_type(GrB_Type t) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.types.find(t->type);
  if (it != r.types.end() && it->second == t) r.types.erase(it);
}

void release_name(const ObjectHeader* h) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.names.find(h->name);
  if (it != r.names.end() && it->second == h) r.names.erase(it);
}

GrB_Type type_handle(const Type* t) {
  // By address only: t may be a freed user type, which then is in neither list.
  const GrB_Type builtin[] = {GrB_BOOL, GrB_INT8, GrB_INT16, GrB_INT32, GrB_INT64, GrB_UINT8,
                              GrB_UINT16, GrB_UINT32, GrB_UINT64, GrB_FP32, GrB_FP64};
  for (const GrB_Type h : builtin) {
    if (h->type == t) return h;
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.types.find(t);
  return it == r.types.end() ? nullptr : it->second;
}

std::string type_string(const Type* t) {
  if (t->builtin()) return c_type_name(t->code);
  const GrB_Type handle = type_handle(t);
  return handle == nullptr ? std::string() : handle->name;
}

std::string name_of(const void* h, Kind k) {
  const auto* header = static_cast<const ObjectHeader*>(h);
  if (!header->predefined) return header->name;
  switch (k) {
    case Kind::Type: return "GrB_" + static_cast<const SNK_Type_opaque*>(h)->type->name;
    case Kind::UnaryOp: return static_cast<const SNK_UnaryOp_opaque*>(h)->name;
    case Kind::BinaryOp: return static_cast<const SNK_BinaryOp_opaque*>(h)->name;
    case Kind::IndexUnaryOp: return static_cast<const SNK_IndexUnaryOp_opaque*>(h)->name;
    case Kind::Monoid: return static_cast<const SNK_Monoid_opaque*>(h)->name;
    case Kind::Semiring: return static_cast<const SNK_Semiring_opaque*>(h)->name;
    case Kind::Descriptor: return descriptor_name(static_cast<const SNK_Descriptor_opaque*>(h)->desc);
    case Kind::Scalar: case Kind::Vector: case Kind::Matrix: break;
  }
  return header->name;
}

}  // namespace snk::capi

// ---- fields ----------------------------------------------------------------------------------------------
namespace {

const Info kAlreadySet = static_cast<Info>(GrB_ALREADY_SET);

std::string field_name(GrB_Field f) {
  switch (static_cast<int>(f)) {
    case GrB_OUTP_FIELD: return "GrB_OUTP_FIELD";
    case GrB_MASK_FIELD: return "GrB_MASK_FIELD";
    case GrB_INP0_FIELD: return "GrB_INP0_FIELD";
    case GrB_INP1_FIELD: return "GrB_INP1_FIELD";
    case GrB_NAME: return "GrB_NAME";
    case GrB_LIBRARY_VER_MAJOR: return "GrB_LIBRARY_VER_MAJOR";
    case GrB_LIBRARY_VER_MINOR: return "GrB_LIBRARY_VER_MINOR";
    case GrB_LIBRARY_VER_PATCH: return "GrB_LIBRARY_VER_PATCH";
    case GrB_API_VER_MAJOR: return "GrB_API_VER_MAJOR";
    case GrB_API_VER_MINOR: return "GrB_API_VER_MINOR";
    case GrB_API_VER_PATCH: return "GrB_API_VER_PATCH";
    case GrB_BLOCKING_MODE: return "GrB_BLOCKING_MODE";
    case GrB_STORAGE_ORIENTATION_HINT: return "GrB_STORAGE_ORIENTATION_HINT";
    case GrB_EL_TYPE_CODE: return "GrB_EL_TYPE_CODE";
    case GrB_INP0_TYPE_CODE: return "GrB_INP0_TYPE_CODE";
    case GrB_INP1_TYPE_CODE: return "GrB_INP1_TYPE_CODE";
    case GrB_OUTP_TYPE_CODE: return "GrB_OUTP_TYPE_CODE";
    case GrB_EL_TYPE_STRING: return "GrB_EL_TYPE_STRING";
    case GrB_INP0_TYPE_STRING: return "GrB_INP0_TYPE_STRING";
    case GrB_INP1_TYPE_STRING: return "GrB_INP1_TYPE_STRING";
    case GrB_OUTP_TYPE_STRING: return "GrB_OUTP_TYPE_STRING";
    case GrB_SIZE: return "GrB_SIZE";
    case SNK_TWO_FOUR_HINT: return "SNK_TWO_FOUR_HINT";
    case SNK_PRECISION_HINT: return "SNK_PRECISION_HINT";
    case SNK_PAGE_LOCKED: return "SNK_PAGE_LOCKED";
  }
  return "field " + std::to_string(static_cast<int>(f));
}

// A field's value as a reader gives it.
struct FieldValue {
  enum class Kind { Int32, String, Size } kind = Kind::Int32;
  std::int32_t i = 0;
  std::string s;
  std::size_t size = 0;
};
FieldValue int32_value(std::int32_t i) {
  FieldValue v;
  v.kind = FieldValue::Kind::Int32;
  v.i = i;
  return v;
}
FieldValue string_value(std::string s) {
  FieldValue v;
  v.kind = FieldValue::Kind::String;
  v.s = std::move(s);
  return v;
}
FieldValue size_value(std::size_t n) {
  FieldValue v;
  v.kind = FieldValue::Kind::Size;
  v.size = n;
  return v;
}

std::string kind_text(FieldValue::Kind k) {
  switch (k) {
    case FieldValue::Kind::Int32: return "an int32_t (read it with int32_t * or a GrB_Scalar)";
    case FieldValue::Kind::String: return "a string (read it with char *, its buffer size with size_t *)";
    case FieldValue::Kind::Size: return "a size_t (read it with size_t * or a GrB_Scalar)";
  }
  return "";
}

[[noreturn]] void no_field(Kind k, GrB_Field f) {
  throw Error(Info::InvalidValue, std::string("a ") + kind_name(k) + " has no field " + field_name(f));
}
[[noreturn]] void read_only(Kind k, GrB_Field f) {
  throw Error(Info::InvalidValue, field_name(f) + " of a " + kind_name(k) + " is read only");
}
[[noreturn]] void no_field_global(GrB_Field f) {
  throw Error(Info::InvalidValue, "GrB_GLOBAL has no field " + field_name(f));
}

// Where GrB_get puts a value: the caller's pointer, by value kind.
struct Output {
  enum class As { Scalar, String, Int32, Size, Void } as;
  void* p;

  void check() const {
    if (as == As::Scalar) {
      check_handle(p, Kind::Scalar, "value");
    } else {
      check_pointer(p, "value");
    }
  }

  void put(const FieldValue& v, GrB_Field f) const {
    const auto wrong = [&](const char* asked) {
      return Error(Info::InvalidValue, field_name(f) + " holds " + kind_text(v.kind) + ", not " + asked);
    };
    switch (as) {
      case As::Int32:
        if (v.kind != FieldValue::Kind::Int32) throw wrong("an int32_t");
        *static_cast<std::int32_t*>(p) = v.i;
        return;
      case As::String:
        if (v.kind != FieldValue::Kind::String) throw wrong("a string");
        std::memcpy(p, v.s.c_str(), v.s.size() + 1);
        return;
      case As::Size:
        if (v.kind == FieldValue::Kind::Int32) throw wrong("a size_t");
        *static_cast<std::size_t*>(p) = v.kind == FieldValue::Kind::String ? v.s.size() + 1 : v.size;
        return;
      case As::Scalar: {
        if (v.kind == FieldValue::Kind::String) throw wrong("a GrB_Scalar value");
        snk::Scalar& s = *static_cast<GrB_Scalar>(p)->scalar;
        const std::uint64_t u = v.size;
        const snk::Type* from = v.kind == FieldValue::Kind::Int32 ? &snk::types::Int32 : &snk::types::UInt64;
        if (!snk::castable(s.type(), from)) {
          throw Error(Info::DomainMismatch, field_name(f) + " (" + from->name +
                                                ") cannot be cast to the GrB_Scalar's type " + s.type()->name);
        }
        s.set(v.kind == FieldValue::Kind::Int32 ? static_cast<const void*>(&v.i) : &u, from);
        return;
      }
      case As::Void:
        throw wrong("a void * value (no field of the spec holds one)");
    }
  }
};

// What GrB_set writes: the caller's value, converted on demand to the field's kind.
struct Input {
  enum class As { Scalar, String, Int32, Void } as;
  std::int32_t i = 0;
  const void* p = nullptr;   // the GrB_Scalar, the string, or the void * value

  void check() const {
    if (as == As::Scalar) {
      check_handle(p, Kind::Scalar, "value");
    } else if (as != As::Int32) {
      check_pointer(p, "value");
    }
  }

  std::int32_t int32(GrB_Field f) const {
    if (as == As::Int32) return i;
    if (as != As::Scalar) {
      throw Error(Info::InvalidValue, field_name(f) + " takes an int32_t (set it with int32_t or a GrB_Scalar)");
    }
    const snk::Scalar& s = *static_cast<GrB_Scalar>(const_cast<void*>(p))->scalar;
    if (!snk::castable(&snk::types::Int32, s.type())) {   // an API error: before the execution error below
      throw Error(Info::DomainMismatch, "a GrB_Scalar of type " + s.type()->name + " cannot give the int32_t " +
                                            field_name(f) + " takes");
    }
    if (!s.has_value()) throw Error(Info::EmptyObject, "the GrB_Scalar value holds no value");
    std::int32_t x = 0;
    s.get(&x, &snk::types::Int32);
    return x;
  }

  std::string string(GrB_Field f) const {
    if (as != As::String) throw Error(Info::InvalidValue, field_name(f) + " takes a string (set it with char *)");
    return static_cast<const char*>(p);
  }
};

// ---- readers and writers, by kind ----
std::int32_t type_code(const snk::Type* t) {
  switch (t->code) {
    case TypeCode::Bool: return GrB_BOOL_CODE;
    case TypeCode::Int8: return GrB_INT8_CODE;
    case TypeCode::Int16: return GrB_INT16_CODE;
    case TypeCode::Int32: return GrB_INT32_CODE;
    case TypeCode::Int64: return GrB_INT64_CODE;
    case TypeCode::UInt8: return GrB_UINT8_CODE;
    case TypeCode::UInt16: return GrB_UINT16_CODE;
    case TypeCode::UInt32: return GrB_UINT32_CODE;
    case TypeCode::UInt64: return GrB_UINT64_CODE;
    case TypeCode::FP32: return GrB_FP32_CODE;
    case TypeCode::FP64: return GrB_FP64_CODE;
    case TypeCode::UDT: break;
  }
  return GrB_UDT_CODE;
}

// A type field (the code or the string of t); GrB_NO_VALUE when the object has no such input (t null).
GrB_Info type_field(const snk::Type* t, bool code, FieldValue& v) {
  if (t == nullptr) return GrB_NO_VALUE;
  v = code ? int32_value(type_code(t)) : string_value(type_string(t));
  return GrB_SUCCESS;
}

bool is_orientation(std::int32_t o) { return o >= GrB_ROWMAJOR && o <= GrB_UNKNOWN; }

// GrB_NAME of a user type or algebra object: set once, to a name no other such object or builtin holds.
void set_unique_name(ObjectHeader* h, Kind k, const Input& in) {
  if (h->predefined) throw Error(Info::InvalidValue, std::string("the name of a builtin ") + kind_name(k) +
                                                         " cannot be changed");
  std::string name = in.string(GrB_NAME);
  if (h->name_registered) {
    throw Error(kAlreadySet, std::string("this ") + kind_name(k) + " is already named \"" + h->name +
                                 "\" (its GrB_NAME may be set once)");
  }
  if (name.empty() || name.size() >= GxB_MAX_NAME_LEN) {
    throw Error(Info::InvalidValue, "a name must have 1 to " + std::to_string(GxB_MAX_NAME_LEN - 1) +
                                        " characters (got " + std::to_string(name.size()) + ")");
  }
  if (builtin_names().count(name) != 0) {
    throw Error(Info::InvalidValue, "\"" + name + "\" is the name of a builtin object");
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.names.emplace(name, h).second) {
    throw Error(Info::InvalidValue, "\"" + name + "\" already names another user-defined type or algebra object");
  }
  h->name.swap(name);
  h->name_registered = true;
}

// Types.
GrB_Info read(GrB_Type t, GrB_Field f, FieldValue& v) {
  switch (static_cast<int>(f)) {
    case GrB_NAME: v = string_value(name_of(t, Kind::Type)); return GrB_SUCCESS;
    case GrB_EL_TYPE_CODE: return type_field(t->type, true, v);
    case GrB_EL_TYPE_STRING: return type_field(t->type, false, v);
    case GrB_SIZE: v = size_value(t->type->size); return GrB_SUCCESS;
  }
  no_field(Kind::Type, f);
}
void write(GrB_Type t, GrB_Field f, const Input& in) {
  switch (static_cast<int>(f)) {
    case GrB_NAME: set_unique_name(t, Kind::Type, in); return;
    case GrB_EL_TYPE_CODE: case GrB_EL_TYPE_STRING: case GrB_SIZE: read_only(Kind::Type, f);
  }
  no_field(Kind::Type, f);
}

// Operators, monoids, semirings: the types of input 0, input 1 (null: none) and the output.
struct Domains {
  const snk::Type* x;
  const snk::Type* y;
  const snk::Type* z;
};
Domains domains_of(GrB_UnaryOp op) { const snk::UnaryOp* o = op->resolve(); return {o->xtype, nullptr, o->ztype}; }
Domains domains_of(GrB_BinaryOp op) { const snk::BinaryOp* o = op->resolve(); return {o->xtype, o->ytype, o->ztype}; }
Domains domains_of(GrB_IndexUnaryOp op) {
  const snk::IndexUnaryOp* o = op->resolve();
  return {o->positional() ? nullptr : o->xtype, o->ytype, o->ztype};
}
Domains domains_of(GrB_Monoid m) { const snk::Type* t = m->resolve()->type(); return {t, t, t}; }
Domains domains_of(GrB_Semiring s) {
  const snk::Semiring* sr = s->resolve();
  return {sr->multiply->xtype, sr->multiply->ytype, sr->add->type()};
}

template <class H>
GrB_Info read_algebra(H h, Kind k, GrB_Field f, FieldValue& v) {
  switch (static_cast<int>(f)) {
    case GrB_NAME: v = string_value(name_of(h, k)); return GrB_SUCCESS;
    case GrB_INP0_TYPE_CODE: return type_field(domains_of(h).x, true, v);
    case GrB_INP1_TYPE_CODE: return type_field(domains_of(h).y, true, v);
    case GrB_OUTP_TYPE_CODE: return type_field(domains_of(h).z, true, v);
    case GrB_INP0_TYPE_STRING: return type_field(domains_of(h).x, false, v);
    case GrB_INP1_TYPE_STRING: return type_field(domains_of(h).y, false, v);
    case GrB_OUTP_TYPE_STRING: return type_field(domains_of(h).z, false, v);
  }
  no_field(k, f);
}
template <class H>
void write_algebra(H h, Kind k, GrB_Field f, const Input& in) {
  switch (static_cast<int>(f)) {
    case GrB_NAME: set_unique_name(h, k, in); return;
    case GrB_INP0_TYPE_CODE: case GrB_INP1_TYPE_CODE: case GrB_OUTP_TYPE_CODE:
    case GrB_INP0_TYPE_STRING: case GrB_INP1_TYPE_STRING: case GrB_OUTP_TYPE_STRING: read_only(k, f);
  }
  no_field(k, f);
}
GrB_Info read(GrB_UnaryOp h, GrB_Field f, FieldValue& v) { return read_algebra(h, Kind::UnaryOp, f, v); }
GrB_Info read(GrB_BinaryOp h, GrB_Field f, FieldValue& v) { return read_algebra(h, Kind::BinaryOp, f, v); }
GrB_Info read(GrB_IndexUnaryOp h, GrB_Field f, FieldValue& v) { return read_algebra(h, Kind::IndexUnaryOp, f, v); }
GrB_Info read(GrB_Monoid h, GrB_Field f, FieldValue& v) { return read_algebra(h, Kind::Monoid, f, v); }
GrB_Info read(GrB_Semiring h, GrB_Field f, FieldValue& v) { return read_algebra(h, Kind::Semiring, f, v); }
void write(GrB_UnaryOp h, GrB_Field f, const Input& in) { write_algebra(h, Kind::UnaryOp, f, in); }
void write(GrB_BinaryOp h, GrB_Field f, const Input& in) { write_algebra(h, Kind::BinaryOp, f, in); }
void write(GrB_IndexUnaryOp h, GrB_Field f, const Input& in) { write_algebra(h, Kind::IndexUnaryOp, f, in); }
void write(GrB_Monoid h, GrB_Field f, const Input& in) { write_algebra(h, Kind::Monoid, f, in); }
void write(GrB_Semiring h, GrB_Field f, const Input& in) { write_algebra(h, Kind::Semiring, f, in); }

// Matrices, vectors, scalars.
const snk::Type* element_type(GrB_Matrix A) { return A->matrix->type(); }
const snk::Type* element_type(GrB_Vector v) { return v->vector->type(); }
const snk::Type* element_type(GrB_Scalar s) { return s->scalar->type(); }

template <class H>
GrB_Info read_collection(H h, Kind k, GrB_Field f, FieldValue& v) {
  switch (static_cast<int>(f)) {
    case GrB_NAME: v = string_value(h->name); return GrB_SUCCESS;
    case GrB_EL_TYPE_CODE: return type_field(element_type(h), true, v);
    case GrB_EL_TYPE_STRING: return type_field(element_type(h), false, v);
    case GrB_STORAGE_ORIENTATION_HINT: v = int32_value(GrB_ROWMAJOR); return GrB_SUCCESS;
  }
  no_field(k, f);
}
template <class H>
void write_collection(H h, Kind k, GrB_Field f, const Input& in) {
  switch (static_cast<int>(f)) {
    case GrB_NAME: h->name = in.string(f); return;
    case GrB_STORAGE_ORIENTATION_HINT: {
      const std::int32_t o = in.int32(f);
      if (!is_orientation(o)) {
        throw Error(Info::InvalidValue, "GrB_STORAGE_ORIENTATION_HINT must be a GrB_Orientation (0 to 3), not " +
                                            std::to_string(o));
      }
      return;   // a hint; snack stores by rows
    }
    case GrB_EL_TYPE_CODE: case GrB_EL_TYPE_STRING: read_only(k, f);
  }
  no_field(k, f);
}
// SNK_TWO_FOUR_HINT, SNK_PRECISION_HINT and SNK_PAGE_LOCKED, a matrix's own fields.
GrB_Info read(GrB_Matrix h, GrB_Field f, FieldValue& v) {
  if (f == SNK_PAGE_LOCKED) {
    v = int32_value(h->matrix->host_pages_locked() ? 1 : 0);
    return GrB_SUCCESS;
  }
  if (f == SNK_TWO_FOUR_HINT) {
    v = int32_value(static_cast<std::int32_t>(h->matrix->two_four_hint()));
    return GrB_SUCCESS;
  }
  if (f == SNK_PRECISION_HINT) {
    v = int32_value(static_cast<std::int32_t>(h->matrix->precision_hint()));
    return GrB_SUCCESS;
  }
  return read_collection(h, Kind::Matrix, f, v);
}
GrB_Info read(GrB_Vector h, GrB_Field f, FieldValue& v) { return read_collection(h, Kind::Vector, f, v); }
GrB_Info read(GrB_Scalar h, GrB_Field f, FieldValue& v) { return read_collection(h, Kind::Scalar, f, v); }
// SNK_PAGE_LOCKED: locks each of the matrix's host arrays through the current backend (its pending work finished
// first), or releases the locks.
void lock_host_pages(snk::Matrix& m, bool lock) {
  if (!lock) {
    m.release_host_locks();
    return;
  }
  if (m.host_pages_locked()) return;
  if (!m.host_valid()) return;   // a result that lives on the device: nothing on the host to upload
  snk::CsrStorage& a = const_cast<snk::CsrStorage&>(m.csr());   // locking leaves the content as it is
  snk::core::Backend& backend = snk::core::current_backend_object();
  std::vector<std::shared_ptr<void>> locks;
  auto add = [&](void* p, std::size_t bytes) {
    if (std::shared_ptr<void> l = backend.lock_host_pages(p, bytes)) locks.push_back(std::move(l));
  };
  add(a.h.data(), a.h.size() * sizeof(snk::Index));
  add(a.p.data(), a.p.size() * sizeof(snk::Index));
  add(a.j.data(), a.j.size() * sizeof(snk::Index));
  add(a.x.data(), a.x.size());
  m.keep_host_locks(std::move(locks));
}
// A matrix hint's value: one of three (0 to 2, named by `values`), else InvalidValue naming the field.
std::int32_t hint_value(GrB_Field f, const Input& in, const char* values) {
  const std::int32_t t = in.int32(f);
  if (t < 0 || t > 2)
    throw Error(Info::InvalidValue, field_name(f) + " must be " + values + " (0 to 2), not " + std::to_string(t));
  return t;
}
void write(GrB_Matrix h, GrB_Field f, const Input& in) {
  if (f == SNK_TWO_FOUR_HINT) {
    const auto t = hint_value(f, in, "SNK_TWO_FOUR_OFF, SNK_TWO_FOUR_FP16 or SNK_TWO_FOUR_BF16");
    h->matrix->set_two_four_hint(static_cast<snk::Matrix::TwoFourHint>(t));
  } else if (f == SNK_PRECISION_HINT) {
    const auto t = hint_value(f, in, "SNK_PRECISION_FP32, SNK_PRECISION_FP16 or SNK_PRECISION_BF16");
    h->matrix->set_precision_hint(static_cast<snk::Matrix::PrecisionHint>(t));
  } else if (f == SNK_PAGE_LOCKED) {
    const std::int32_t t = in.int32(f);
    if (t != 0 && t != 1) throw Error(Info::InvalidValue, "SNK_PAGE_LOCKED must be 0 or 1, not " + std::to_string(t));
    lock_host_pages(*h->matrix, t == 1);
  } else {
    write_collection(h, Kind::Matrix, f, in);
  }
}
void write(GrB_Vector h, GrB_Field f, const Input& in) { write_collection(h, Kind::Vector, f, in); }
void write(GrB_Scalar h, GrB_Field f, const Input& in) { write_collection(h, Kind::Scalar, f, in); }

// Descriptors.
GrB_Info read(GrB_Descriptor d, GrB_Field f, FieldValue& v) {
  const snk::Descriptor& s = d->desc;
  switch (static_cast<int>(f)) {
    case GrB_NAME: v = string_value(name_of(d, Kind::Descriptor)); return GrB_SUCCESS;
    case GrB_OUTP_FIELD: v = int32_value(s.replace ? GrB_REPLACE : GrB_DEFAULT); return GrB_SUCCESS;
    case GrB_MASK_FIELD:
      v = int32_value(s.mask_complement && s.mask_structure ? GrB_COMP_STRUCTURE
                      : s.mask_complement                   ? GrB_COMP
                      : s.mask_structure                    ? GrB_STRUCTURE
                                                            : GrB_DEFAULT);
      return GrB_SUCCESS;
    case GrB_INP0_FIELD: v = int32_value(s.transpose_first ? GrB_TRAN : GrB_DEFAULT); return GrB_SUCCESS;
    case GrB_INP1_FIELD: v = int32_value(s.transpose_second ? GrB_TRAN : GrB_DEFAULT); return GrB_SUCCESS;
  }
  no_field(Kind::Descriptor, f);
}
// The descriptor fields take what GrB_Descriptor_set takes, with its meaning: on GrB_MASK_FIELD, GrB_COMP
// and GrB_STRUCTURE add to what is set and GrB_DEFAULT clears both.
void write(GrB_Descriptor d, GrB_Field f, const Input& in) {
  const int field = static_cast<int>(f);
  const bool desc_field = field == GrB_OUTP_FIELD || field == GrB_MASK_FIELD || field == GrB_INP0_FIELD ||
                          field == GrB_INP1_FIELD;
  if (!desc_field && field != GrB_NAME) no_field(Kind::Descriptor, f);
  if (d->predefined) throw Error(Info::InvalidValue, "a predefined descriptor cannot be modified");
  if (field == GrB_NAME) {
    d->name = in.string(f);
    return;
  }
  const std::int32_t value = in.int32(f);
  const GrB_Desc_Field which = field == GrB_OUTP_FIELD ? GrB_OUTP
                               : field == GrB_MASK_FIELD ? GrB_MASK
                               : field == GrB_INP0_FIELD ? GrB_INP0
                                                         : GrB_INP1;
  d->desc = with_descriptor_field(d->desc, which, value, field_name(f));
}

// The global context.
GrB_Info read(GrB_Global, GrB_Field f, FieldValue& v) {
  switch (static_cast<int>(f)) {
    case GrB_NAME: v = string_value("snack"); return GrB_SUCCESS;
    case GrB_LIBRARY_VER_MAJOR: v = int32_value(SNK_VERSION_MAJOR); return GrB_SUCCESS;
    case GrB_LIBRARY_VER_MINOR: v = int32_value(SNK_VERSION_MINOR); return GrB_SUCCESS;
    case GrB_LIBRARY_VER_PATCH: v = int32_value(SNK_VERSION_PATCH); return GrB_SUCCESS;
    case GrB_API_VER_MAJOR: v = int32_value(GRB_VERSION); return GrB_SUCCESS;
    case GrB_API_VER_MINOR: v = int32_value(GRB_SUBVERSION); return GrB_SUCCESS;
    case GrB_API_VER_PATCH: v = int32_value(0); return GrB_SUCCESS;
    case GrB_BLOCKING_MODE: v = int32_value(mode()); return GrB_SUCCESS;
    case GrB_STORAGE_ORIENTATION_HINT: v = int32_value(GrB_ROWMAJOR); return GrB_SUCCESS;
  }
  no_field_global(f);
}
void write(GrB_Global, GrB_Field f, const Input& in) {
  switch (static_cast<int>(f)) {
    case GrB_STORAGE_ORIENTATION_HINT: {
      const std::int32_t o = in.int32(f);
      if (!is_orientation(o)) {
        throw Error(Info::InvalidValue, "GrB_STORAGE_ORIENTATION_HINT must be a GrB_Orientation (0 to 3), not " +
                                            std::to_string(o));
      }
      return;   // a hint; snack stores by rows
    }
    case GrB_NAME: case GrB_LIBRARY_VER_MAJOR: case GrB_LIBRARY_VER_MINOR: case GrB_LIBRARY_VER_PATCH:
    case GrB_API_VER_MAJOR: case GrB_API_VER_MINOR: case GrB_API_VER_PATCH: case GrB_BLOCKING_MODE:
      throw Error(Info::InvalidValue, field_name(f) + " of GrB_GLOBAL is read only");
  }
  no_field_global(f);
}

// ---- checking the object, then reading or writing ----
void check_object(GrB_Global g) {
  if (g == nullptr) throw Error(Info::NullPointer, "obj is NULL (the global context is GrB_GLOBAL)");
  if (g != GrB_GLOBAL) throw Error(Info::UninitializedObject, "obj is not GrB_GLOBAL");
}
void check_object(GrB_Type h) { check_handle(h, Kind::Type, "obj"); }
void check_object(GrB_UnaryOp h) { check_handle(h, Kind::UnaryOp, "obj"); }
void check_object(GrB_BinaryOp h) { check_handle(h, Kind::BinaryOp, "obj"); }
void check_object(GrB_IndexUnaryOp h) { check_handle(h, Kind::IndexUnaryOp, "obj"); }
void check_object(GrB_Monoid h) { check_handle(h, Kind::Monoid, "obj"); }
void check_object(GrB_Semiring h) { check_handle(h, Kind::Semiring, "obj"); }
void check_object(GrB_Scalar h) { check_handle(h, Kind::Scalar, "obj"); }
void check_object(GrB_Vector h) { check_handle(h, Kind::Vector, "obj"); }
void check_object(GrB_Matrix h) { check_handle(h, Kind::Matrix, "obj"); }
void check_object(GrB_Descriptor h) { check_handle(h, Kind::Descriptor, "obj"); }

template <class H>
GrB_Info get_field(const char* where, H obj, GrB_Field field, Output out) {
  return call(where, obj, [&] {
    check_object(obj);
    out.check();
    FieldValue v;
    const GrB_Info info = read(obj, field, v);
    if (info == GrB_SUCCESS) out.put(v, field);
    return info;
  });
}

template <class H>
GrB_Info set_field(const char* where, H obj, GrB_Field field, Input in) {
  return call(where, obj, [&] {
    check_object(obj);
    in.check();
    write(obj, field, in);
  });
}

// A type string into a GxB_*_type_name buffer (GxB_MAX_NAME_LEN bytes; type names are shorter).
void copy_type_name(char* out, const std::string& s) {
  const std::size_t n = s.size() < GxB_MAX_NAME_LEN ? s.size() : GxB_MAX_NAME_LEN - 1;
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
}

GrB_Type handle_of(const snk::Type* t) {
  const GrB_Type h = type_handle(t);
  if (h == nullptr) throw Error(Info::InvalidObject, "the object's user-defined GrB_Type has been freed");
  return h;
}

}  // namespace

// ---- the C functions -------------------------------------------------------------------------------------
extern "C" {

#define SNK_GET_SET(Object)                                                                              \
  GrB_Info GrB_##Object##_get_Scalar(GrB_##Object obj, GrB_Scalar value, GrB_Field field) {             \
    return get_field("GrB_" #Object "_get_Scalar", obj, field, Output{Output::As::Scalar, value});       \
  }                                                                                                      \
  GrB_Info GrB_##Object##_get_String(GrB_##Object obj, char* value, GrB_Field field) {                  \
    return get_field("GrB_" #Object "_get_String", obj, field, Output{Output::As::String, value});       \
  }                                                                                                      \
  GrB_Info GrB_##Object##_get_INT32(GrB_##Object obj, int32_t* value, GrB_Field field) {                \
    return get_field("GrB_" #Object "_get_INT32", obj, field, Output{Output::As::Int32, value});         \
  }                                                                                                      \
  GrB_Info GrB_##Object##_get_SIZE(GrB_##Object obj, size_t* value, GrB_Field field) {                  \
    return get_field("GrB_" #Object "_get_SIZE", obj, field, Output{Output::As::Size, value});           \
  }                                                                                                      \
  GrB_Info GrB_##Object##_get_VOID(GrB_##Object obj, void* value, GrB_Field field) {                    \
    return get_field("GrB_" #Object "_get_VOID", obj, field, Output{Output::As::Void, value});           \
  }                                                                                                      \
  GrB_Info GrB_##Object##_set_Scalar(GrB_##Object obj, GrB_Scalar value, GrB_Field field) {             \
    return set_field("GrB_" #Object "_set_Scalar", obj, field, Input{Input::As::Scalar, 0, value});      \
  }                                                                                                      \
  GrB_Info GrB_##Object##_set_String(GrB_##Object obj, const char* value, GrB_Field field) {            \
    return set_field("GrB_" #Object "_set_String", obj, field, Input{Input::As::String, 0, value});      \
  }                                                                                                      \
  GrB_Info GrB_##Object##_set_INT32(GrB_##Object obj, int32_t value, GrB_Field field) {                 \
    return set_field("GrB_" #Object "_set_INT32", obj, field, Input{Input::As::Int32, value, nullptr});  \
  }                                                                                                      \
  GrB_Info GrB_##Object##_set_VOID(GrB_##Object obj, void* value, GrB_Field field, size_t) {            \
    return set_field("GrB_" #Object "_set_VOID", obj, field, Input{Input::As::Void, 0, value});          \
  }

SNK_GET_SET(Global)
SNK_GET_SET(Type)
SNK_GET_SET(UnaryOp)
SNK_GET_SET(BinaryOp)
SNK_GET_SET(IndexUnaryOp)
SNK_GET_SET(Monoid)
SNK_GET_SET(Semiring)
SNK_GET_SET(Scalar)
SNK_GET_SET(Vector)
SNK_GET_SET(Matrix)
SNK_GET_SET(Descriptor)

GrB_Info GxB_Type_name(char* type_name, const GrB_Type type) {
  return call("GxB_Type_name", type, [&] {
    check_pointer(type_name, "type_name");
    copy_type_name(type_name, type_string(type_of(type, "type")));
  });
}

GrB_Info GxB_Matrix_type_name(char* type_name, const GrB_Matrix A) {
  return call("GxB_Matrix_type_name", A, [&] {
    check_pointer(type_name, "type_name");
    copy_type_name(type_name, type_string(matrix_of(A, "A").type()));
  });
}

GrB_Info GxB_Vector_type_name(char* type_name, const GrB_Vector v) {
  return call("GxB_Vector_type_name", v, [&] {
    check_pointer(type_name, "type_name");
    copy_type_name(type_name, type_string(vector_of(v, "v").type()));
  });
}

GrB_Info GxB_Scalar_type_name(char* type_name, const GrB_Scalar s) {
  return call("GxB_Scalar_type_name", s, [&] {
    check_pointer(type_name, "type_name");
    copy_type_name(type_name, type_string(scalar_of(s, "s").type()));
  });
}

GrB_Info GxB_Matrix_type(GrB_Type* type, const GrB_Matrix A) {
  return call("GxB_Matrix_type", A, [&] {
    check_pointer(type, "type");
    *type = handle_of(matrix_of(A, "A").type());
  });
}

GrB_Info GxB_Vector_type(GrB_Type* type, const GrB_Vector v) {
  return call("GxB_Vector_type", v, [&] {
    check_pointer(type, "type");
    *type = handle_of(vector_of(v, "v").type());
  });
}

GrB_Info GxB_Scalar_type(GrB_Type* type, const GrB_Scalar s) {
  return call("GxB_Scalar_type", s, [&] {
    check_pointer(type, "type");
    *type = handle_of(scalar_of(s, "s").type());
  });
}

}  // extern "C"
