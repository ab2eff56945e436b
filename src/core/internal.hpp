// src/core/internal.hpp: core functions shared by the operation front-ends, the backends and the tests.
//
// The mask/accumulator/replace step (written once, here, for every backend) and casting whole containers.
#pragma once

#include <memory>

#include "core/kernels.hpp"

namespace snk::core {

// The final step of every operation: C<M, replace> = C (.) T, as the C API spec 2.0 defines it.
//   Z = accum ? (C (+) T with accum where both exist, C or T cast to C's type where one exists)
//             : T cast to C's type;
//   for each position: mask true  -> C gets Z's entry (or none if Z has none);
//                      mask false -> C keeps its entry, or loses it when replace is set.
// The mask value at (i,j) is: no mask -> true; else (M has (i,j) and (structural or M(i,j) != 0)),
// negated when complement. (No mask with complement: every position false.) accum's inputs are cast
// from C's type (x) and T's type (y); its output is cast to C's type. T is consumed. Strong guarantee:
// C changes only when the step succeeds.
void apply_mask_accum(Matrix& C, const Matrix* M, bool structural, bool complement, const BinaryOp* accum,
                      Matrix&& T, bool replace);

// A copy of A with values cast to `type` (A itself when the type is already `type`: returns nullptr then,
// and the caller uses A). Throws DomainMismatch when not castable.
std::unique_ptr<Matrix> cast_matrix(const Matrix& A, const Type* type);

// The value of mask entry k (structural: always true) for any mask type.
bool mask_value_true(const Matrix& M, Index k);

}  // namespace snk::core
