// src/containers/vector_scalar.cpp: the Vector (a 1 x n Matrix flagged is_vector, so every matrix kernel
// serves vectors; Vector::build is in build.cpp with Matrix::build) and the Scalar (zero or one value,
// stored in its own type, cast on the way in and out).
#include <string>

#include "containers/csr_form.hpp"
#include "snack/containers.hpp"

namespace snk {

Vector::Vector(const Type* type, Index n) : m_(type, 1, n) { m_.is_vector_ = true; }

Scalar::Scalar(const Type* type) : type_(type) {
  SNK_CHECK(type != nullptr, Info::NullPointer, "Scalar: the type is null");
  value_.assign(type->size, 0);
}

void Scalar::set(const void* value, const Type* vtype) {
  SNK_CHECK(value != nullptr, Info::NullPointer, "Scalar::set: value is null");
  SNK_CHECK(vtype != nullptr, Info::NullPointer, "Scalar::set: the value's type is null");
  SNK_CHECK(castable(type_, vtype), Info::DomainMismatch,
            "Scalar::set: a value of type " + vtype->name + " cannot be cast to the scalar type " + type_->name);
  core::ValueCopier(type_, vtype)(value_.data(), value);
  has_value_ = true;
}

bool Scalar::get(void* value, const Type* vtype) const {
  SNK_CHECK(value != nullptr, Info::NullPointer, "Scalar::get: value is null");
  SNK_CHECK(vtype != nullptr, Info::NullPointer, "Scalar::get: the value's type is null");
  SNK_CHECK(castable(vtype, type_), Info::DomainMismatch,
            "Scalar::get: the scalar type " + type_->name + " cannot be cast to " + vtype->name);
  if (!has_value_) return false;
  core::ValueCopier(vtype, type_)(value, value_.data());
  return true;
}

}  // namespace snk
