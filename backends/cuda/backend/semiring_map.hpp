// backends/cuda/backend/semiring_map.hpp: which GraphBLAS semirings and value types the GPU SpMM library
// (spmm/dispatch.hpp) can compute, and their ids there.
//
// The core describes a semiring by objects (snk::Semiring: a Monoid and a BinaryOp, each with an opcode and
// types); the SpMM library by the two opcodes (SemiringId) and one ValueType shared by W, X and Y. This
// header is the one place that translates between them, so that the mxm kernel can decline, before it
// touches anything, every semiring the library has no functor for: a user-defined operator or type, a
// monoid whose identity is not the builtin one, the bitwise operators, operators whose inputs and output
// differ in type (the comparisons on non-boolean values), and the types INT8, INT16, UINT8, UINT16.
#pragma once

#include <optional>

#include "snack/algebra.hpp"
#include "spmm/dispatch.hpp"

namespace snk::cuda {

// A semiring as the SpMM library runs it.
struct SpmmSemiring {
  SemiringId id;
  ValueType type;
};

// The SpMM library's value type for a builtin type code, or nothing when it has no kernels for it.
std::optional<ValueType> spmm_value_type(TypeCode code);

// The SpMM id of `s` with its multiply applied as f(a, b) = flip ? s.multiply(b, a) : s.multiply(a, b), or
// nothing when the library cannot compute it. Every operand (multiply's inputs and output, the monoid's
// type) must be the same builtin type.
std::optional<SpmmSemiring> spmm_semiring_of(const Semiring& s, bool flip);

}  // namespace snk::cuda
