// layers/calls.hpp: the GraphBLAS idioms the layers' sources share (internal to layers/): the builtin operators and
// the PLUS_TIMES semiring of a value type, a scalar of a type, a matrix's sum taken in FP64, zeros on a matrix's
// pattern and a gradient put on its parameter's positions, a full matrix from a row-major array (a batch), and the rewired form of a matrix on its old pattern
// (rewiring moves weights and optimizer state alike).
#pragma once

#include <cstring>
#include <string>
#include <utility>

#include "snack/snack.hpp"

namespace snk::layers::calls {

inline const BinaryOp& op(BinaryOpcode code, const Type* t) { return *builtin_binary_op(code, t->code); }
inline const UnaryOp& unary(UnaryOpcode code, const Type* t) { return *builtin_unary_op(code, t->code); }
inline const Semiring& plus_times(const Type* t) {
  return *builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Times, t->code);
}

// A scalar of type t holding v.
inline Scalar scalar(const Type* t, double v) {
  Scalar s(t);
  s.set(&v, &types::FP64);
  return s;
}

// The sum of A's values, taken in FP64.
inline double sum_of(const Matrix& A) {
  Scalar s(&types::FP64);
  reduce(s, nullptr, *builtin_monoid(BinaryOpcode::Plus, TypeCode::FP64), A);
  double v = 0;
  s.get(&v, &types::FP64);
  return v;
}

// A matrix with P's pattern and zero values (an optimizer's state before its first step, a gradient's missing
// positions).
inline Matrix zeros_like(const Matrix& P) {
  Matrix Z(P.type(), P.nrows(), P.ncols());
  apply_bind_second(Z, nullptr, nullptr, op(BinaryOpcode::Times, P.type()), P, scalar(P.type(), 0.0));
  return Z;
}

// G (P's type and shape) on exactly P's positions: G's values where it holds them, zeros at P's other positions (a
// gradient that reached only part of its parameter). InvalidValue, naming `who`, where G holds an entry outside P.
inline Matrix on_positions_of(const Matrix& P, const Matrix& G, const char* who) {
  Matrix on(P.type(), P.nrows(), P.ncols());
  ewise_add(on, nullptr, nullptr, op(BinaryOpcode::Plus, P.type()), zeros_like(P), G);
  if (on.nvals() != P.nvals())
    throw Error(Info::InvalidValue, std::string(who) + ": a gradient holds entries outside its parameter's pattern");
  return on;
}

// A rows x cols matrix of `type` holding every entry, its values the row-major array `data` of that type.
inline Matrix full_matrix(const Type* type, Index rows, Index cols, const void* data) {
  CsrStorage s;
  s.p.resize(rows + 1);
  s.j.resize(rows * cols);
  for (Index r = 0; r <= rows; ++r) s.p[r] = r * cols;
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c) s.j[r * cols + c] = c;
  s.x.resize(rows * cols * type->size);
  if (!s.x.empty()) std::memcpy(s.x.data(), data, s.x.size());
  Matrix M(type, rows, cols);
  M.adopt(std::move(s));
  return M;
}

// X<keep, structure, replace> united with `grown` (zeros of X's type at positions X held no entry): the rewired form
// of a matrix on the old pattern.
inline void keep_and_grow(Matrix& X, const Matrix& keep, const Matrix& grown) {
  Matrix kept(X.type(), X.nrows(), X.ncols());
  Descriptor d;
  d.mask_structure = true;
  d.replace = true;
  apply(kept, &keep, nullptr, unary(UnaryOpcode::Identity, X.type()), X, d);
  Matrix out(X.type(), X.nrows(), X.ncols());
  ewise_add(out, nullptr, nullptr, op(BinaryOpcode::First, X.type()), kept, grown);
  X = std::move(out);
}

}  // namespace snk::layers::calls
