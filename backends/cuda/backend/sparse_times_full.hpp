// backends/cuda/backend/sparse_times_full.hpp: the cuda backend's mxm kernel for a sparse A times a B that
// has every entry present, on the GPU SpMM library (declaration; sparse_times_full.cpp has the semantics).
#pragma once

#include <cuda_runtime_api.h>

#include "core/kernels.hpp"

namespace snk::cuda {

// T = A' (+).(x) B' (A' = ta ? A^T : A, B' = tb ? B^T : B) as core::Backend::mxm defines it, when B has all nrows x
// ncols entries and the semiring and type are ones the SpMM library runs; A^T through the library's W^T X orientation
// where A has no empty row or column (T is then full). KernelStatus::Declined (T untouched) otherwise. Runs on
// `stream`; T is left on the device.
core::KernelStatus mxm_sparse_times_full(Matrix& T, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                                         bool tb, bool flip, cudaStream_t stream);

// T = A' (+).(x) B' for a full A' = ta ? A^T : A (batch x K, read where it is: A's rows or its columns) and a sparse
// B: B' = B^T (tb) through the SpMM family's X W^T orientation with W = B, or B' = B through its W^T X orientation (the
// plan's transposed pattern, built once per pattern) with A' read as X^T. The layers' forward (X W^T) and
// input-gradient (dY W) products. Declined (T untouched) for an A with a missing entry, a B with an empty row (either
// form) or an empty column (B' = B), where T would not be full, and semirings and types the library does not run. T is
// left on the device.
core::KernelStatus mxm_full_times_sparse(Matrix& T, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                                         bool tb, bool flip, cudaStream_t stream);

// T = u (+).(x) B^T for a full row u (1 x K, the A operand) and a sparse B (M x K, given with tb): mxv's form
// (w = B u, computed as u^T B^T), through the SpMM family's X W^T orientation at batch 1 with W = B. T (1 x M) has an
// entry at each non-empty row of B. Declined (T untouched) where u is not full, B is not transposed, or the
// semiring and type are not the SpMM library's. T is left on the device.
core::KernelStatus mxm_full_row_times_sparse_t(Matrix& T, const Semiring& s, const Matrix& u, bool ta, const Matrix& B,
                                               bool tb, bool flip, cudaStream_t stream);

// T<M> = A' (+).(x) B' at M's positions only (the mask hint: a layer's weight gradient dW<W> = dY^T X), for A' = ta ?
// A^T : A and B' = tb ? B^T : B both full, K (their inner dimension) 1 .. kSampledMaxK, PLUS_TIMES on FP32, and a
// mask M (not complemented) whose device copy already holds its product plan with every row non-empty (W, used as an
// SpMM operand before): dense tiles through cuBLAS where they pay (dense_tile_sampled.hpp), else the SpMM library's
// sampled product on that plan, each reading A and B where they are (no transposed copy). T gets M's pattern, shared
// with M's device copy, and a value at each of its positions (the core applies the mask's values after). Declined (T
// untouched) otherwise.
core::KernelStatus mxm_sampled(Matrix& T, const core::MaskHint& mask, const Semiring& s, const Matrix& A, bool ta,
                               const Matrix& B, bool tb, cudaStream_t stream);

// snk::optimizer_step_sampled on P's plan: the sampled product of mxm_sampled at P's positions (the same conditions,
// P FP32 as its mask, K at most kSampledUpdateMaxK), each non-zero's sum taken by the optimizer rule as it is made
// (portable_sampled_step); the gradient is never stored. Declined, changing nothing, otherwise.
core::KernelStatus optimizer_step_sampled(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& A, bool ta, const Matrix& B,
                                          bool tb, const OptimizerStep& step, cudaStream_t stream);

// snk::device_sparse_times_dense and device_sampled_product on the caller's device memory (operations.hpp): the SpMM
// family's W X / W^T X on A's plans, and the sampled product as mxm_sampled runs it, with A's values, X, Y and z where
// the caller keeps them. They run on `stream` (the backend's), ordered after the work queued on `caller` and before
// its later work. Declined (nothing written) for an A with a hint, an empty row (or column for A^T), no entries, or a
// type or K the kernels do not take.
core::KernelStatus device_product(const DeviceDense& Y, const Matrix& A, const void* a_values, bool transpose,
                                  const DeviceDense& X, cudaStream_t caller, cudaStream_t stream);
core::KernelStatus device_sampled(void* z, const Matrix& A, const DeviceDense& X, const DeviceDense& Y,
                                  cudaStream_t caller, cudaStream_t stream);

}  // namespace snk::cuda
