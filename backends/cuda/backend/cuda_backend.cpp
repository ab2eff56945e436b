// backends/cuda/backend/cuda_backend.cpp: the cuda backend object (snk::cuda::make_backend) and the test for
// a usable GPU (snk::cuda::device_available), declared in src/core/internal.hpp.
//
// Supported in this stage (everything else returns Declined, so the dispatcher runs it on reference and
// counts the fallback under the operation's name, readable through snk::fallback_counts("cuda")):
//   - mxm (and so mxv / vxm) with A sparse and B' = B or B^T having every entry present (a full matrix,
//     or a full vector for vxm/mxv), A not transposed by the descriptor (a transposed A is retried by the
//     core with a transposed copy, whose transpose is itself a counted fallback), on the value types BOOL,
//     INT32, INT64, UINT32, UINT64, FP32, FP64, for every predefined semiring of those types and every
//     semiring made of a predefined monoid and a predefined multiplier of one type other than the bitwise
//     ones (semiring_map.hpp), with the operand flip; PLUS_TIMES on FP32 runs the fastest SpMM kernels.
//   - declined: mxm with a sparse B, the types INT8, INT16, UINT8, UINT16 and user-defined types,
//     user-defined operators, and every other operation (element-wise, apply, select, reduce, transpose,
//     extract, assign, kronecker).
// The GPU is the device current on the thread that first uses the backend; every call runs there (the
// caller's current device is restored afterwards) on one stream of the backend's own. Calls are
// serialized by a mutex: one GPU, and the cached Plans hold per-call workspaces.
//
// device_available() must be safe where the CUDA driver is absent (CI builds with nvcc but has no GPU
// and no driver): the runtime is linked statically and loads the driver only when first called, and
// cudaGetDeviceCount then just reports an error, which means "no GPU" here. Nothing is printed.
#include <memory>
#include <mutex>
#include <string>

#include <cuda_runtime_api.h>

#include "core/internal.hpp"
#include "device_copy.hpp"
#include "sparse_times_full.hpp"

namespace snk::cuda {

bool device_available() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

namespace {

using core::IndexList;
using core::KernelStatus;
using core::MaskHint;

// Makes `device` current for the scope and restores the caller's device afterwards.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    throw_on_cuda_error(cudaGetDevice(&previous_), "current device");
    if (previous_ != device) throw_on_cuda_error(cudaSetDevice(device), "select the backend's device");
  }
  ~DeviceScope() { (void)cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

class CudaBackend final : public core::Backend {
 public:
  CudaBackend() {
    throw_on_cuda_error(cudaGetDevice(&device_), "current device");
    throw_on_cuda_error(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream creation");
  }
  ~CudaBackend() override {
    // Destroyed at process exit, possibly after the runtime itself: errors are of no consequence then.
    (void)cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda"; }

  // The mask hint is ignored: the core applies the mask to T.
  KernelStatus mxm(Matrix& T, const MaskHint&, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                   bool tb, bool flip) override {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceScope on(device_);
    return mxm_sparse_times_full(T, s, A, ta, B, tb, flip, stream_);
  }

  KernelStatus ewise_add(Matrix&, const MaskHint&, const BinaryOp&, const Matrix&, const Matrix&) override {
    return KernelStatus::Declined;
  }
  KernelStatus ewise_mult(Matrix&, const MaskHint&, const BinaryOp&, const Matrix&, const Matrix&) override {
    return KernelStatus::Declined;
  }
  KernelStatus apply_unary(Matrix&, const UnaryOp&, const Matrix&) override { return KernelStatus::Declined; }
  KernelStatus apply_bound(Matrix&, const BinaryOp&, const Scalar&, bool, const Matrix&) override {
    return KernelStatus::Declined;
  }
  KernelStatus apply_index(Matrix&, const IndexUnaryOp&, const Matrix&, const Scalar&) override {
    return KernelStatus::Declined;
  }
  KernelStatus select(Matrix&, const IndexUnaryOp&, const Matrix&, const Scalar&) override {
    return KernelStatus::Declined;
  }
  KernelStatus reduce_rows(Matrix&, const Monoid&, const Matrix&) override { return KernelStatus::Declined; }
  KernelStatus reduce_scalar(Scalar&, const Monoid&, const Matrix&) override { return KernelStatus::Declined; }
  KernelStatus transpose(Matrix&, const Matrix&) override { return KernelStatus::Declined; }
  KernelStatus extract(Matrix&, const Matrix&, const IndexList&, const IndexList&) override {
    return KernelStatus::Declined;
  }
  KernelStatus assign(Matrix&, const Matrix&, const BinaryOp*, const Matrix&, const IndexList&,
                      const IndexList&) override {
    return KernelStatus::Declined;
  }
  KernelStatus kronecker(Matrix&, const BinaryOp&, const Matrix&, const Matrix&) override {
    return KernelStatus::Declined;
  }

 private:
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<core::Backend> make_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace snk::cuda
