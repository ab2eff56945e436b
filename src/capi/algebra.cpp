// src/capi/algebra.cpp: the C API's constructors of user-defined algebra objects (GrB_Type_new, the
// operator constructors, GrB_Monoid_new_<T>, GrB_Semiring_new) and descriptors (GrB_Descriptor_new / set).
//
// A typed GrB_Monoid_new_<T> requires the operator's domain to be exactly T (GrB_DOMAIN_MISMATCH
// otherwise), since the identity is given as a C value of T; _UDT takes the identity as bytes of the
// operator's own type. The C++ constructors check the rest (null functions, mismatched domains). Output
// handles are written only on success.
#include "capi/capi.hpp"

using namespace snk::capi;
using snk::Error;
using snk::Info;

namespace {

template <class Handle, class Object>
void publish(Handle** out, std::unique_ptr<Object> object) {
  *out = new Handle(std::move(object));
}

void make_monoid(GrB_Monoid* monoid, GrB_BinaryOp op, const void* identity, const snk::Type* identity_type) {
  check_pointer(monoid, "monoid");
  const snk::BinaryOp* binop = binary_of(op, "op");
  check_pointer(identity, "identity");
  if (identity_type != nullptr && binop->ztype != identity_type) {
    throw Error(Info::DomainMismatch, "the identity is " + identity_type->name + " but the operator " + binop->name +
                                          " is on " + (binop->ztype ? binop->ztype->name : std::string("?")));
  }
  publish(monoid, snk::new_monoid(binop, identity, nullptr, "user_monoid"));
}

}  // namespace

namespace snk::capi {

snk::Descriptor with_descriptor_field(snk::Descriptor d, GrB_Desc_Field field, std::int64_t value,
                                      const std::string& field_name) {
  const auto bad = [&](const char* allowed) {
    return Error(Info::InvalidValue, "value " + std::to_string(value) + " is not valid for " + field_name +
                                         " (allowed: " + allowed + ")");
  };
  switch (field) {
    case GrB_OUTP:
      if (value != GrB_DEFAULT && value != GrB_REPLACE) throw bad("GrB_DEFAULT, GrB_REPLACE");
      d.replace = value == GrB_REPLACE;
      return d;
    case GrB_MASK:   // GrB_COMP and GrB_STRUCTURE add to what is set; GrB_DEFAULT clears both
      if (value == GrB_DEFAULT) {
        d.mask_complement = d.mask_structure = false;
      } else if (value == GrB_COMP) {
        d.mask_complement = true;
      } else if (value == GrB_STRUCTURE) {
        d.mask_structure = true;
      } else if (value == GrB_COMP_STRUCTURE) {
        d.mask_complement = d.mask_structure = true;
      } else {
        throw bad("GrB_DEFAULT, GrB_COMP, GrB_STRUCTURE, GrB_COMP_STRUCTURE");
      }
      return d;
    case GrB_INP0:
    case GrB_INP1:
      if (value != GrB_DEFAULT && value != GrB_TRAN) throw bad("GrB_DEFAULT, GrB_TRAN");
      (field == GrB_INP0 ? d.transpose_first : d.transpose_second) = value == GrB_TRAN;
      return d;
  }
  throw Error(Info::InvalidValue, "unknown descriptor field " + std::to_string(static_cast<int>(field)));
}

}  // namespace snk::capi

extern "C" {

GrB_Info GrB_Type_new(GrB_Type* type, size_t sizeof_ctype) {
  return call("GrB_Type_new", nullptr, [&] {
    check_pointer(type, "type");
    if (sizeof_ctype == 0) throw Error(Info::InvalidValue, "a type must have a size of at least one byte");
    snk::Type* t = snk::new_user_type(sizeof_ctype, "UDT");
    auto handle = std::make_unique<SNK_Type_opaque>(t);
    handle->owned.reset(t);
    *type = handle.release();
  });
}

GrB_Info GrB_UnaryOp_new(GrB_UnaryOp* op, SNK_unary_function fn, GrB_Type d_out, GrB_Type d_in) {
  return call("GrB_UnaryOp_new", nullptr, [&] {
    check_pointer(op, "op");
    check_pointer(reinterpret_cast<const void*>(fn), "function");
    const snk::Type* z = type_of(d_out, "d_out");
    const snk::Type* x = type_of(d_in, "d_in");
    publish(op, snk::new_unary_op(fn, z, x));
  });
}

GrB_Info GrB_BinaryOp_new(GrB_BinaryOp* op, SNK_binary_function fn, GrB_Type d_out, GrB_Type d_in1,
                          GrB_Type d_in2) {
  return call("GrB_BinaryOp_new", nullptr, [&] {
    check_pointer(op, "op");
    check_pointer(reinterpret_cast<const void*>(fn), "function");
    const snk::Type* z = type_of(d_out, "d_out");
    const snk::Type* x = type_of(d_in1, "d_in1");
    const snk::Type* y = type_of(d_in2, "d_in2");
    publish(op, snk::new_binary_op(fn, z, x, y));
  });
}

GrB_Info GrB_IndexUnaryOp_new(GrB_IndexUnaryOp* op, SNK_index_unary_function fn, GrB_Type d_out,
                              GrB_Type d_in1, GrB_Type d_in2) {
  return call("GrB_IndexUnaryOp_new", nullptr, [&] {
    check_pointer(op, "op");
    check_pointer(reinterpret_cast<const void*>(fn), "function");
    const snk::Type* z = type_of(d_out, "d_out");
    const snk::Type* x = type_of(d_in1, "d_in1");
    const snk::Type* y = type_of(d_in2, "d_in2");
    publish(op, snk::new_index_unary_op(fn, z, x, y));
  });
}

#define SNK_MONOID_NEW(T, value, in, out)                                                               \
  GrB_Info GrB_Monoid_new_##T(GrB_Monoid* monoid, GrB_BinaryOp op, value identity) {                     \
    return call("GrB_Monoid_new_" #T, nullptr,                                                          \
                [&] { make_monoid(monoid, op, &identity, snk::type_of<value>()); });                    \
  }
SNK_FOR_EACH_BUILTIN_TYPE(SNK_MONOID_NEW)

GrB_Info GrB_Monoid_new_UDT(GrB_Monoid* monoid, GrB_BinaryOp op, const void* identity) {
  return call("GrB_Monoid_new_UDT", nullptr, [&] { make_monoid(monoid, op, identity, nullptr); });
}

GrB_Info GrB_Semiring_new(GrB_Semiring* semiring, GrB_Monoid add_monoid, GrB_BinaryOp multiply) {
  return call("GrB_Semiring_new", nullptr, [&] {
    check_pointer(semiring, "semiring");
    const snk::Monoid* add = monoid_of(add_monoid, "add_monoid");
    const snk::BinaryOp* mul = binary_of(multiply, "multiply");
    publish(semiring, snk::new_semiring(add, mul));
  });
}

GrB_Info GrB_Descriptor_new(GrB_Descriptor* desc) {
  return call("GrB_Descriptor_new", nullptr, [&] {
    check_pointer(desc, "desc");
    *desc = new SNK_Descriptor_opaque();
  });
}

GrB_Info GrB_Descriptor_set(GrB_Descriptor desc, GrB_Desc_Field field, GrB_Desc_Value value) {
  return call("GrB_Descriptor_set", desc, [&] {
    check_handle(desc, Kind::Descriptor, "desc");
    if (desc->predefined) throw Error(Info::InvalidValue, "a predefined descriptor cannot be modified");
    static const char* const names[] = {"GrB_OUTP", "GrB_MASK", "GrB_INP0", "GrB_INP1"};
    const int f = static_cast<int>(field);
    if (f < 0 || f > 3) throw Error(Info::InvalidValue, "unknown descriptor field " + std::to_string(f));
    desc->desc = with_descriptor_field(desc->desc, field, value, names[f]);
  });
}

}  // extern "C"
