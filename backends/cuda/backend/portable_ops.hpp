// backends/cuda/backend/portable_ops.hpp: the cuda backend's operations that run the portable Kokkos kernels
// (backends/kokkos/portable/) in Kokkos' CUDA space, on the backend's stream, on device-resident data.
//
// Plain C++ (the Kokkos CUDA instantiation lives in portable_ops.cu, compiled by nvcc against the CUDA build of
// Kokkos), so the backend object includes it without Kokkos. Each function has core::Backend's contract for its
// operation (src/core/kernels.hpp): inputs are read from their device copies (uploaded once, counted), the result
// is attached to T as a device-only copy, and a call outside what the kernels cover (a user-defined type or
// operator) returns Declined without touching T.
#pragma once

#include <cuda_runtime_api.h>

#include "core/kernels.hpp"
#include "spmm/dispatch.hpp"

namespace snk::cuda {

// Starts Kokkos' CUDA backend on `device` (once per process); throws Error(Panic) when it cannot.
void start_kokkos(int device);

core::KernelStatus portable_apply_unary(Matrix& T, const UnaryOp& op, const Matrix& A, cudaStream_t s);
core::KernelStatus portable_apply_bound(Matrix& T, const BinaryOp& op, const Scalar& x, bool bind_first,
                                        const Matrix& A, cudaStream_t s);
core::KernelStatus portable_apply_index(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& y,
                                        cudaStream_t s);
core::KernelStatus portable_select(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& y, cudaStream_t s);
core::KernelStatus portable_ewise_add(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B, cudaStream_t s);
core::KernelStatus portable_ewise_mult(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B, cudaStream_t s);
core::KernelStatus portable_reduce_rows(Matrix& T, const Monoid& m, const Matrix& A, cudaStream_t s);
// The columns of a full A reduced where they lie (portable/reduce.hpp: reduce_full_columns); declined otherwise.
core::KernelStatus portable_reduce_columns(Matrix& T, const Monoid& m, const Matrix& A, cudaStream_t s);
core::KernelStatus portable_reduce_scalar(Scalar& out, const Monoid& m, const Matrix& A, cudaStream_t s);
// One optimizer step in place (Backend::optimizer_step): where P, S1, S2 and G hold one pattern (P::same_pattern)
// and a floating type, one pass over their values; P, S1 and S2 get new device values on the same
// pattern arrays and keep their SpMM plans. Declined otherwise, changing nothing.
core::KernelStatus portable_optimizer_step(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& G,
                                           const OptimizerStep& step, cudaStream_t s);
// The same with G's values made by the SpMM library's sampled product on P's plan as the rule takes them: `args`
// holds the product's operands (sparse_times_full.cpp: optimizer_step_sampled); P, S1 and S2 FP32 on one pattern.
// Declined otherwise, changing nothing.
core::KernelStatus portable_sampled_step(Matrix& P, Matrix& S1, Matrix* S2, Plan& plan, SampledArgs args,
                                         const OptimizerStep& step, cudaStream_t s);
// T = x at every entry of `pattern` (its device copy's pattern arrays are shared), or at every position of T when
// pattern is null; T is x's type, a builtin one (Backend::fill).
core::KernelStatus portable_fill(Matrix& T, const Scalar& x, const Matrix* pattern, cudaStream_t s);
// snk::device_row_sums on the caller's device memory: X's rows reduced in place as a full matrix's (row-major X) or
// its transpose's columns (column-major X), into z, on s after the work queued on `caller` and before its later work.
// Declined for an X with padding between its rows or columns, or a type other than FP32 and FP64.
core::KernelStatus portable_device_row_sums(void* z, const Type* type, const DeviceDense& X, cudaStream_t caller,
                                           cudaStream_t s);
// T = A^T (portable/products.hpp).
core::KernelStatus portable_transpose(Matrix& T, const Matrix& A, cudaStream_t s);
// mxm with both operands sparse (portable/products.hpp): a 1 x n A (mxv, vxm) by a row-wise SpMV over B (B^T given)
// or over B^T, skipping the rows the mask hint rules out, unless pushing A's few entries through expand-sort-compress
// costs less; else the masked dot product where a mask (not complemented) is given and the merges cost less than the
// expansion; else expand-sort-compress. B^T, where needed, is made once and kept with B's device copy. A transposed
// A is declined (the core retries with a transposed copy, made by portable_transpose), except by the masked dot product
// of two full operands tile by tile, which reads A^T in place (a layer's dW<W> = dY^T X). With only_masked_dot, every
// other case is declined (the backend asks that first where a sparse mask would make the SpMM family's full product
// wasteful).
core::KernelStatus portable_mxm(Matrix& T, const core::MaskHint& mask, const Semiring& s, const Matrix& A, bool ta,
                                const Matrix& B, bool tb, bool flip, cudaStream_t stream,
                                bool only_masked_dot = false);
// T = A(I, J), Z = C with the region (I, J) assigned from A (with the accumulator, if any), and T = kron(A, B), with
// core::Backend's contracts (portable_index_ops.cu); a user-defined type or operator, or an accumulator whose inputs
// are not all C's type, is declined.
core::KernelStatus portable_extract(Matrix& T, const Matrix& A, const core::IndexList& I, const core::IndexList& J,
                                    cudaStream_t s);
core::KernelStatus portable_assign(Matrix& Z, const Matrix& C, const BinaryOp* accum, const Matrix& A,
                                   const core::IndexList& I, const core::IndexList& J, cudaStream_t s);
core::KernelStatus portable_kronecker(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B, cudaStream_t s);
// The exchange with a caller's device memory (Backend::import_device / export_device), on stream s after the work
// queued on the caller's stream, which then waits for the import's reads or the export's writes: T takes
// device_values on the pattern of `pattern` (its device copy's pattern arrays and plans shared) or on every position
// (a device-only copy of every row; where `mode` borrows, over device_values itself, and the caller is not made to
// wait: snk::borrow_device_full, borrow_device_output); M is written as its values in entry order, or as a dense
// row-major array (zeros, then its entries scattered), unless its values lie at device_out already.
core::KernelStatus portable_import_device(Matrix& T, const Matrix* pattern, const void* device_values,
                                          cudaStream_t caller, cudaStream_t s, core::Backend::ImportMode mode);
core::KernelStatus portable_export_device(const Matrix& M, bool dense, void* device_out, cudaStream_t caller,
                                          cudaStream_t s);
// C<M, replace> = C (.) T on the device (snk::DeviceCopy::mask_accum's contract): where C and T are of builtin types
// (T's values cast to C's first), the accumulator (if any) a builtin operator of C's type, the mask of a builtin
// type (or structural), and C, T and M not hypersparse beyond what as_plain takes; false otherwise, changing nothing.
bool portable_mask_accum(Matrix& C, const Matrix* M, bool structural, bool complement, const BinaryOp* accum,
                         Matrix& T, bool replace, cudaStream_t s);

}  // namespace snk::cuda
