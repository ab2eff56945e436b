// src/capi/capi.hpp: the C API shim's internals: what a GraphBLAS handle is, how a C call is checked and
// how C++ errors become GrB_Info codes.
//
// Each handle (GrB_Matrix, GrB_Monoid, ...) points to a struct SNK_<Object>_opaque that starts with an
// ObjectHeader: a magic number naming the kind of object (a freed or never-created object has another
// value, so it is reported as GrB_UNINITIALIZED_OBJECT; a null handle as GrB_NULL_POINTER), whether it is a
// predefined object (never freed, never modified), and the message of the last error of a call on it
// (GrB_error reads it). The struct holds, or points to, the C++ object of the core. Every C entry point
// runs its body through call(): the body checks its handles with the accessors below (which throw
// snk::Error, so that the first bad argument decides the code, before anything is modified), calls the
// C++ API, and call() turns any exception into the GrB_Info and the message; nothing crosses the C
// boundary. Predefined operators, monoids and semirings resolve their C++ singleton on first use.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>

#include "GraphBLAS.h"
#include "core/kernels.hpp"
#include "snack/snack.hpp"

namespace snk::capi {

enum class Kind : std::uint32_t {
  Type = 1, UnaryOp, BinaryOp, IndexUnaryOp, Monoid, Semiring, Scalar, Vector, Matrix, Descriptor
};
const char* kind_name(Kind k);   // "GrB_Matrix", ...

constexpr std::uint64_t kMagicBase = 0x534e4b0000000000ull;   // "SNK" then the kind
constexpr std::uint64_t kFreedMagic = 0x534e4b4652454544ull;  // "SNKFREED"
constexpr std::uint64_t magic_of(Kind k) { return kMagicBase | static_cast<std::uint64_t>(k); }

struct ObjectHeader;
// Frees the name h holds in the registry of unique names (get_set.cpp).
void release_name(const ObjectHeader* h) noexcept;

struct ObjectHeader {
  explicit ObjectHeader(Kind k, bool is_predefined = false)
      : magic(magic_of(k)), predefined(is_predefined) {}
  ~ObjectHeader() {
    if (name_registered) release_name(this);
    magic = kFreedMagic;
  }
  ObjectHeader(const ObjectHeader&) = delete;
  ObjectHeader& operator=(const ObjectHeader&) = delete;
  std::uint64_t magic;   // first member: read through any handle to classify it
  bool predefined;
  std::string error;     // last error message of a call that had this object as its first argument
  std::string name;      // GrB_NAME of a user object, as GrB_set wrote it ("" until then)
  bool name_registered = false;   // a user type's or algebra object's name, held unique until destruction
};

// d with one field set as GrB_Descriptor_set sets it (GrB_OUTP, GrB_MASK, GrB_INP0, GrB_INP1; the GrB_set and
// GxB_Desc_set forms map their own field numbers to these); `field_name` names the field in the message of the
// InvalidValue that another value gives.
snk::Descriptor with_descriptor_field(snk::Descriptor d, GrB_Desc_Field field, std::int64_t value,
                                      const std::string& field_name);

// ---- the calling context ------------------------------------------------------------------------------
// True between GrB_init and GrB_finalize.
bool initialized();
GrB_Mode mode();
// Remembers `message` as this thread's last error (SNK_last_error).
void set_last_error(const std::string& message);

// The object whose error string a failing call sets: the call's first object argument, when it is a
// valid object.
ObjectHeader* error_target(const void* handle);

// Runs body() and returns its GrB_Info (GrB_SUCCESS for a void body). snk::Error -> its code and message;
// std::bad_alloc -> GrB_OUT_OF_MEMORY; anything else -> GrB_PANIC. `target` is the first object argument
// (its error string is cleared first and receives the message). `where` names the C function.
template <class Body>
GrB_Info call(const char* where, const void* target, Body&& body) noexcept;

GrB_Info fail(const char* where, const void* target, GrB_Info info, const std::string& message) noexcept;

// ---- checking handles ------------------------------------------------------------------------------------
// Throws NullPointer when h is null, UninitializedObject when it does not point to a live object of
// kind k. `what` names the argument in the message.
void check_handle(const void* h, Kind k, const char* what);
// Throws NullPointer when p is null.
inline void check_pointer(const void* p, const char* what) {
  if (p == nullptr) throw Error(Info::NullPointer, std::string(what) + " is NULL");
}
// True when h is null (an optional argument left out); else checks it like check_handle.
bool optional_handle(const void* h, Kind k, const char* what);

// Accessors: the C++ object behind a handle, after check_handle (the *_or_null forms accept NULL).
const Type* type_of(GrB_Type t, const char* what);
const UnaryOp* unary_of(GrB_UnaryOp op, const char* what);
const BinaryOp* binary_of(GrB_BinaryOp op, const char* what);
const BinaryOp* binary_or_null(GrB_BinaryOp op, const char* what);
const IndexUnaryOp* index_unary_of(GrB_IndexUnaryOp op, const char* what);
const Monoid* monoid_of(GrB_Monoid m, const char* what);
const Semiring* semiring_of(GrB_Semiring s, const char* what);
Scalar& scalar_of(GrB_Scalar s, const char* what);
Vector& vector_of(GrB_Vector v, const char* what);
const Vector* vector_or_null(GrB_Vector v, const char* what);
Matrix& matrix_of(GrB_Matrix A, const char* what);
const Matrix* matrix_or_null(GrB_Matrix A, const char* what);
Descriptor descriptor_of(GrB_Descriptor d);   // NULL -> the default descriptor

// An index list argument: GrB_ALL -> nullptr (the C++ API's "all"); NULL -> NullPointer.
const Index* index_list(const GrB_Index* I, const char* what);

// In blocking mode, finishes pending work of a container after a method that may leave some.
void finish_if_blocking(const Matrix& m);

// ---- names (get_set.cpp; the printers in print.cpp use them) -----------------------------------------------
// User types by their snk::Type, so that a container's type leads back to its GrB_Type handle.
void register_user_type(GrB_Type t) noexcept;
void unregister_user_type(GrB_Type t) noexcept;
// The handle of type t (the predefined one for a builtin type); nullptr when t's GrB_Type has been freed.
GrB_Type type_handle(const Type* t);
// GrB_NAME of a live object of kind k at h ("" for an unnamed user object).
std::string name_of(const void* h, Kind k);
// The type string of t: the C type of a builtin type ("double"), a user type's GrB_NAME.
std::string type_string(const Type* t);

}  // namespace snk::capi

// ---- the opaque structs behind the handles (global namespace: the header names them) -------------------

struct SNK_Type_opaque : snk::capi::ObjectHeader {
  explicit SNK_Type_opaque(const snk::Type* t, bool predefined = false)
      : ObjectHeader(snk::capi::Kind::Type, predefined), type(t) {
    if (!predefined) snk::capi::register_user_type(this);
  }
  ~SNK_Type_opaque() {
    if (!predefined) snk::capi::unregister_user_type(this);
  }
  const snk::Type* type;
  std::unique_ptr<snk::Type> owned;   // user-defined types
};

// Operators, monoids and semirings: `object` is the C++ object; a predefined one is looked up by its
// opcode(s) and type on first use (resolve()), user-defined ones own it.
struct SNK_UnaryOp_opaque : snk::capi::ObjectHeader {
  SNK_UnaryOp_opaque(snk::UnaryOpcode op, snk::TypeCode t, const char* n)
      : ObjectHeader(snk::capi::Kind::UnaryOp, true), opcode(op), type(t), name(n) {}
  explicit SNK_UnaryOp_opaque(std::unique_ptr<snk::UnaryOp> op)
      : ObjectHeader(snk::capi::Kind::UnaryOp), object(op.get()), owned(std::move(op)) {}
  const snk::UnaryOp* resolve();
  std::atomic<const snk::UnaryOp*> object{nullptr};
  std::unique_ptr<snk::UnaryOp> owned;
  snk::UnaryOpcode opcode{};
  snk::TypeCode type{};
  const char* name = nullptr;
};

struct SNK_BinaryOp_opaque : snk::capi::ObjectHeader {
  SNK_BinaryOp_opaque(snk::BinaryOpcode op, snk::TypeCode t, const char* n)
      : ObjectHeader(snk::capi::Kind::BinaryOp, true), opcode(op), type(t), name(n) {}
  explicit SNK_BinaryOp_opaque(std::unique_ptr<snk::BinaryOp> op)
      : ObjectHeader(snk::capi::Kind::BinaryOp), object(op.get()), owned(std::move(op)) {}
  const snk::BinaryOp* resolve();
  std::atomic<const snk::BinaryOp*> object{nullptr};
  std::unique_ptr<snk::BinaryOp> owned;
  snk::BinaryOpcode opcode{};
  snk::TypeCode type{};
  const char* name = nullptr;
};

struct SNK_IndexUnaryOp_opaque : snk::capi::ObjectHeader {
  SNK_IndexUnaryOp_opaque(snk::IndexUnaryOpcode op, snk::TypeCode t, const char* n)
      : ObjectHeader(snk::capi::Kind::IndexUnaryOp, true), opcode(op), type(t), name(n) {}
  explicit SNK_IndexUnaryOp_opaque(std::unique_ptr<snk::IndexUnaryOp> op)
      : ObjectHeader(snk::capi::Kind::IndexUnaryOp), object(op.get()), owned(std::move(op)) {}
  const snk::IndexUnaryOp* resolve();
  std::atomic<const snk::IndexUnaryOp*> object{nullptr};
  std::unique_ptr<snk::IndexUnaryOp> owned;
  snk::IndexUnaryOpcode opcode{};
  snk::TypeCode type{};
  const char* name = nullptr;
};

struct SNK_Monoid_opaque : snk::capi::ObjectHeader {
  SNK_Monoid_opaque(snk::BinaryOpcode op, snk::TypeCode t, const char* n)
      : ObjectHeader(snk::capi::Kind::Monoid, true), opcode(op), type(t), name(n) {}
  explicit SNK_Monoid_opaque(std::unique_ptr<snk::Monoid> m)
      : ObjectHeader(snk::capi::Kind::Monoid), object(m.get()), owned(std::move(m)) {}
  const snk::Monoid* resolve();
  std::atomic<const snk::Monoid*> object{nullptr};
  std::unique_ptr<snk::Monoid> owned;
  snk::BinaryOpcode opcode{};
  snk::TypeCode type{};
  const char* name = nullptr;
};

struct SNK_Semiring_opaque : snk::capi::ObjectHeader {
  SNK_Semiring_opaque(snk::BinaryOpcode add, snk::BinaryOpcode mul, snk::TypeCode t, const char* n)
      : ObjectHeader(snk::capi::Kind::Semiring, true), add_opcode(add), multiply_opcode(mul), type(t), name(n) {}
  explicit SNK_Semiring_opaque(std::unique_ptr<snk::Semiring> s)
      : ObjectHeader(snk::capi::Kind::Semiring), object(s.get()), owned(std::move(s)) {}
  const snk::Semiring* resolve();
  std::atomic<const snk::Semiring*> object{nullptr};
  std::unique_ptr<snk::Semiring> owned;
  snk::BinaryOpcode add_opcode{}, multiply_opcode{};
  snk::TypeCode type{};
  const char* name = nullptr;
};

struct SNK_Scalar_opaque : snk::capi::ObjectHeader {
  explicit SNK_Scalar_opaque(std::unique_ptr<snk::Scalar> s)
      : ObjectHeader(snk::capi::Kind::Scalar), scalar(std::move(s)) {}
  std::unique_ptr<snk::Scalar> scalar;
};

struct SNK_Vector_opaque : snk::capi::ObjectHeader {
  explicit SNK_Vector_opaque(std::unique_ptr<snk::Vector> v)
      : ObjectHeader(snk::capi::Kind::Vector), vector(std::move(v)) {}
  std::unique_ptr<snk::Vector> vector;
};

struct SNK_Matrix_opaque : snk::capi::ObjectHeader {
  explicit SNK_Matrix_opaque(std::unique_ptr<snk::Matrix> m)
      : ObjectHeader(snk::capi::Kind::Matrix), matrix(std::move(m)) {}
  std::unique_ptr<snk::Matrix> matrix;
};

struct SNK_Descriptor_opaque : snk::capi::ObjectHeader {
  explicit SNK_Descriptor_opaque(snk::Descriptor d = {}, bool predefined = false)
      : ObjectHeader(snk::capi::Kind::Descriptor, predefined), desc(d) {}
  snk::Descriptor desc;
};

// ---- call() ----------------------------------------------------------------------------------------------
namespace snk::capi {

GrB_Info info_of(Info info);
void record_error(const char* where, const void* target, const std::string& message) noexcept;
void clear_error(const void* target) noexcept;

template <class Body>
GrB_Info call(const char* where, const void* target, Body&& body) noexcept {
  try {
    if (!initialized()) {
      return fail(where, target, GrB_PANIC, "GrB_init has not been called (or GrB_finalize was)");
    }
    clear_error(target);
    // With $SNACK_TRACE, the whole call is traced too (its kernel calls print their own lines first).
    core::CallTrace trace(where);
    trace.ran_on("C API");
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      return GrB_SUCCESS;
    } else {
      return body();
    }
  } catch (const Error& e) {
    return fail(where, target, info_of(e.info()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(where, target, GrB_OUT_OF_MEMORY, "out of memory");
  } catch (const std::length_error& e) {
    return fail(where, target, GrB_OUT_OF_MEMORY, std::string("out of memory: ") + e.what());
  } catch (const std::exception& e) {
    return fail(where, target, GrB_PANIC, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(where, target, GrB_PANIC, "internal error: unknown exception");
  }
}

}  // namespace snk::capi
