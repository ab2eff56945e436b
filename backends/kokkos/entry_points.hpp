// backends/kokkos/entry_points.hpp: the kernels of the kokkos backend, one free function per operation
// of core::Backend (same arguments and meaning as in src/core/kernels.hpp); backend.cpp forwards the
// virtual calls to them. Each returns KernelStatus::Declined, without touching its output, for what it
// does not compile a kernel for (user-defined types and operators).
#pragma once

#include "core/kernels.hpp"

namespace snk::kokkos {

using core::KernelStatus;
using core::MaskHint;

KernelStatus mxm(Matrix& T, const MaskHint& mask, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                 bool tb, bool flip);
// Through the portable kernels (portable/), instantiated for the host in portable_host.cpp.
KernelStatus reduce_rows(Matrix& T, const Monoid& m, const Matrix& A);
KernelStatus reduce_scalar(Scalar& s, const Monoid& m, const Matrix& A);
KernelStatus transpose(Matrix& T, const Matrix& A);
KernelStatus ewise_add(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B);
KernelStatus ewise_mult(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B);
// apply: T may be A itself (the in-place forms of core/kernels.hpp): A's values are then replaced (declined when
// the operator's output type is not A's).
KernelStatus apply_unary(Matrix& T, const UnaryOp& op, const Matrix& A);
KernelStatus apply_bound(Matrix& T, const BinaryOp& op, const Scalar& s, bool bind_first, const Matrix& A);
// snk::optimizer_step in place where W, S1, S2 and G hold one pattern and a floating type; Declined otherwise.
KernelStatus optimizer_step(Matrix& W, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& step);
KernelStatus apply_index(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk);
KernelStatus select(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk);
KernelStatus kronecker(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B);
KernelStatus extract(Matrix& T, const Matrix& A, const core::IndexList& I, const core::IndexList& J);
KernelStatus assign(Matrix& Z, const Matrix& C, const BinaryOp* accum, const Matrix& A, const core::IndexList& I,
                    const core::IndexList& J);

// Starts Kokkos (once per process) if nobody has; finalized at exit.
void ensure_initialized();

}  // namespace snk::kokkos
