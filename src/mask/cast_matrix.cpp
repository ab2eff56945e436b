// src/mask/cast_matrix.cpp: core::cast_matrix, a copy of a matrix (or a vector's matrix) with its values cast
// to another type. The front-ends use it to bring inputs to an operator's domains before a kernel runs;
// the structure arrays are copied as they are and only the values go through the algebra's cast_array.
#include <string>

#include "core/internal.hpp"

namespace snk::core {

std::unique_ptr<Matrix> cast_matrix(const Matrix& A, const Type* type) {
  SNK_CHECK(type != nullptr, Info::NullPointer, "cast_matrix: the target type is null");
  if (A.type() == type) return nullptr;
  SNK_CHECK(castable(type, A.type()), Info::DomainMismatch,
            "cast_matrix: values of type " + A.type()->name + " cannot be cast to " + type->name);
  const CsrStorage& s = A.csr();
  CsrStorage out;
  out.hyper = s.hyper;
  out.h = s.h;
  out.p = s.p;
  out.j = s.j;
  out.x.resize(s.nvals() * type->size);
  cast_array(type, out.x.data(), A.type(), s.x.data(), s.nvals());
  std::unique_ptr<Matrix> result;
  if (A.is_vector()) {
    Vector v(type, A.ncols());   // the only way to make a matrix flagged is_vector
    result = std::make_unique<Matrix>(std::move(v.as_matrix()));
  } else {
    result = std::make_unique<Matrix>(type, A.nrows(), A.ncols());
  }
  result->adopt(std::move(out));
  return result;
}

}  // namespace snk::core
