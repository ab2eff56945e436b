// backends/cuda/backend/sparse_times_full.hpp: the cuda backend's mxm kernel for a sparse A times a B that
// has every entry present, on the GPU SpMM library (declaration; sparse_times_full.cpp has the semantics).
#pragma once

#include <cuda_runtime_api.h>

#include "core/kernels.hpp"

namespace snk::cuda {

// T = A (+).(x) B' (B' = tb ? B^T : B) as core::Backend::mxm defines it, when B has all nrows x ncols
// entries and the semiring and type are ones the SpMM library runs; KernelStatus::Declined (T untouched)
// otherwise, and for ta. Runs on `stream` and returns with T filled on the host.
core::KernelStatus mxm_sparse_times_full(Matrix& T, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                                         bool tb, bool flip, cudaStream_t stream);

}  // namespace snk::cuda
