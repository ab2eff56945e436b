// backends/cuda/backend/cuda_backend.cpp: the cuda backend object, the test for a usable GPU, and the plugin's
// registration hook (the backend is the plugin libsnack_cuda.so, which libsnack loads when it is present).
//
// Supported in this stage (everything else returns Declined, so the dispatcher runs it on reference and
// counts the fallback under the operation's name, readable through snk::fallback_counts("cuda")):
//   - where the plugin is built with the CUDA build of Kokkos: eWiseAdd, eWiseMult, apply (unary, bound binary,
//     index-unary), select, reduce (rows, scalar), extract, assign (to part of C), a constant assign's region (fill)
//     and kronecker through the portable kernels, for every builtin type and operator (portable_ops.hpp), on data
//     that stays on the device;
//   - mxm with A sparse and B' = B or B^T having every entry present (a full matrix), A not transposed by the
//     descriptor (a transposed A is retried by the core with a transposed copy), on the value types BOOL, INT32,
//     INT64, UINT32, UINT64, FP32, FP64, for every predefined semiring of those types and every semiring made of a
//     predefined monoid and a predefined multiplier of one type other than the bitwise ones (semiring_map.hpp), with
//     the operand flip: the SpMM family (PLUS_TIMES on FP32 runs its fastest kernels); likewise A full and B' sparse
//     where the result is full (X W^T and X W: the family's transposed orientations);
//   - with the portable kernels: mxv and vxm (a row-wise SpMV, or a push from the vector's entries into a dense
//     accumulator or by expand-sort-compress), mxm with both operands sparse (the masked dot product, A's dense enough
//     rows as a dense block through the SpMM family, the dense row accumulator, or expand-sort-compress;
//     portable_products.cu's table), and transpose (assign over the whole of
//     C is an eWiseAdd or a copy, which the core makes);
//   - the exchange with a caller's device memory (snk::import_device_full and its kin: PyTorch's CUDA tensors), on
//     the device;
//   - declined: user-defined types and operators (and an accumulator of assign whose inputs are not C's type).
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
#include "portable_ops.hpp"
#include "sparse_times_full.hpp"

namespace snk::cuda {

namespace {

// Whether a usable GPU is present.
bool device_available() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

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

// One mxm call as the candidates below see it.
struct MxmCall {
  Matrix& T;
  const MaskHint& mask;
  const Semiring& s;
  const Matrix& A;
  bool ta;
  const Matrix& B;
  bool tb, flip;
  cudaStream_t stream;
};

// The cuda backend's products, in order of preference. A candidate runs where its rule admits the call; its kernel
// then declines what it does not cover (each states its conditions), and the next candidate is tried.
struct MxmCandidate {
  bool (*admits)(const MxmCall&);
  KernelStatus (*run)(const MxmCall&);
};
bool always(const MxmCall&) { return true; }
constexpr MxmCandidate kMxmCandidates[] = {
    // A layer's weight gradient (a sampled product of two full operands on a mask that has its product plan): the
    // SpMM library's sampled product.
    {always,
     [](const MxmCall& c) { return mxm_sampled(c.T, c.mask, c.s, c.A, c.ta, c.B, c.tb, c.stream); }},
#if defined(SNACK_CUDA_PORTABLE)
    // A mask that leaves fewer than a quarter of the positions (SDDMM, the sparse layers' weight gradient): the
    // masked dot product computes only those, where the SpMM family would compute every one.
    {[](const MxmCall& c) {
       return c.mask.M != nullptr && !c.mask.complement &&
              4.0 * static_cast<double>(c.mask.M->nvals()) <
                  static_cast<double>(c.T.nrows()) * static_cast<double>(c.T.ncols());
     },
     [](const MxmCall& c) {
       return portable_mxm(c.T, c.mask, c.s, c.A, c.ta, c.B, c.tb, c.flip, c.stream, /*only_masked_dot=*/true);
     }},
#endif
    // The SpMM family: A sparse and B' full (sparse_times_full.cpp).
    {always,
     [](const MxmCall& c) { return mxm_sparse_times_full(c.T, c.s, c.A, c.ta, c.B, c.tb, c.flip, c.stream); }},
    // The SpMM family's transposed orientations: A full and B' sparse (a batch of rows times a layer's weights, a
    // batch of one included), but not mxv / vxm, whose SpMV needs no plan.
    {[](const MxmCall& c) { return c.A.nrows() > 1 || !c.T.is_vector(); },
     [](const MxmCall& c) { return mxm_full_times_sparse(c.T, c.s, c.A, c.ta, c.B, c.tb, c.flip, c.stream); }},
#if defined(SNACK_CUDA_PORTABLE)
    // The portable products (portable_products.cu's table: vector products, the masked dot product, dense row
    // blocks through the SpMM family, the dense row accumulator, expand-sort-compress), which use the mask hint.
    {always,
     [](const MxmCall& c) { return portable_mxm(c.T, c.mask, c.s, c.A, c.ta, c.B, c.tb, c.flip, c.stream); }},
#else
    // Without the Kokkos CUDA build: a full row A times B^T (mxv) through the SpMM family.
    {always,
     [](const MxmCall& c) { return mxm_full_row_times_sparse_t(c.T, c.s, c.A, c.ta, c.B, c.tb, c.flip, c.stream); }},
#endif
};

class CudaBackend final : public core::Backend {
 public:
  CudaBackend() {
    throw_on_cuda_error(cudaGetDevice(&device_), "current device");
    throw_on_cuda_error(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream creation");
    set_allocation_stream(stream_);
#if defined(SNACK_CUDA_PORTABLE)
    start_kokkos(device_);
#endif
  }
  ~CudaBackend() override {
    // Destroyed at process exit, possibly after the runtime itself: errors are of no consequence then.
    (void)cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda"; }

  // mxm: the first of kMxmCandidates (below) whose rule admits the call and whose kernel takes it.
  KernelStatus mxm(Matrix& T, const MaskHint& mask, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                   bool tb, bool flip) override {
    return run([&] {
      const MxmCall call{T, mask, s, A, ta, B, tb, flip, stream_};
      for (const MxmCandidate& c : kMxmCandidates) {
        if (!c.admits(call)) continue;
        if (const KernelStatus st = c.run(call); st != KernelStatus::Declined) return st;
      }
      return KernelStatus::Declined;
    });
  }
#if defined(SNACK_CUDA_PORTABLE)
  // The element-wise operations, apply, select and reduce: the portable kernels (portable_ops.hpp). The mask hint
  // is not used (the core applies the mask).
  KernelStatus ewise_add(Matrix& T, const MaskHint&, const BinaryOp& op, const Matrix& A, const Matrix& B) override {
    return run([&] { return portable_ewise_add(T, op, A, B, stream_); });
  }
  KernelStatus ewise_mult(Matrix& T, const MaskHint&, const BinaryOp& op, const Matrix& A, const Matrix& B) override {
    return run([&] { return portable_ewise_mult(T, op, A, B, stream_); });
  }
  KernelStatus apply_unary(Matrix& T, const UnaryOp& op, const Matrix& A) override {
    return run([&] { return portable_apply_unary(T, op, A, stream_); });
  }
  KernelStatus apply_bound(Matrix& T, const BinaryOp& op, const Scalar& x, bool bind_first, const Matrix& A) override {
    return run([&] { return portable_apply_bound(T, op, x, bind_first, A, stream_); });
  }
  KernelStatus apply_index(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& y) override {
    return run([&] { return portable_apply_index(T, op, A, y, stream_); });
  }
  KernelStatus select(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& y) override {
    return run([&] { return portable_select(T, op, A, y, stream_); });
  }
  KernelStatus reduce_rows(Matrix& T, const Monoid& m, const Matrix& A) override {
    return run([&] { return portable_reduce_rows(T, m, A, stream_); });
  }
  KernelStatus reduce_columns(Matrix& T, const Monoid& m, const Matrix& A) override {
    return run([&] { return portable_reduce_columns(T, m, A, stream_); });
  }
  KernelStatus reduce_scalar(Scalar& out, const Monoid& m, const Matrix& A) override {
    return run([&] { return portable_reduce_scalar(out, m, A, stream_); });
  }
  KernelStatus transpose(Matrix& T, const Matrix& A) override {
    return run([&] { return portable_transpose(T, A, stream_); });
  }
  KernelStatus extract(Matrix& T, const Matrix& A, const core::IndexList& I, const core::IndexList& J) override {
    return run([&] { return portable_extract(T, A, I, J, stream_); });
  }
  KernelStatus assign(Matrix& Z, const Matrix& C, const BinaryOp* accum, const Matrix& A, const core::IndexList& I,
                      const core::IndexList& J) override {
    return run([&] { return portable_assign(Z, C, accum, A, I, J, stream_); });
  }
  KernelStatus kronecker(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) override {
    return run([&] { return portable_kronecker(T, op, A, B, stream_); });
  }
  KernelStatus optimizer_step(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& step) override {
    return run([&] { return portable_optimizer_step(P, S1, S2, G, step, stream_); });
  }
  KernelStatus optimizer_step_sampled(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& A, bool ta, const Matrix& B,
                                      bool tb, const OptimizerStep& step) override {
    return run([&] { return cuda::optimizer_step_sampled(P, S1, S2, A, ta, B, tb, step, stream_); });
  }
  KernelStatus fill(Matrix& T, const Scalar& x, const Matrix* pattern) override {
    return run([&] { return portable_fill(T, x, pattern, stream_); });
  }
  KernelStatus import_device(Matrix& T, const Matrix* pattern, const void* device_values, void* stream,
                             ImportMode mode) override {
    return run([&] {
      return portable_import_device(T, pattern, device_values, static_cast<cudaStream_t>(stream), stream_, mode);
    });
  }
  KernelStatus export_device(const Matrix& M, bool dense, void* device_out, void* stream) override {
    return run([&] { return portable_export_device(M, dense, device_out, static_cast<cudaStream_t>(stream), stream_); });
  }
  KernelStatus device_product(const DeviceDense& Y, const Matrix& A, const void* a_values, bool transpose,
                              const DeviceDense& X, void* stream) override {
    return run([&] {
      return cuda::device_product(Y, A, a_values, transpose, X, static_cast<cudaStream_t>(stream), stream_);
    });
  }
  KernelStatus device_sampled(void* z, const Matrix& A, const DeviceDense& X, const DeviceDense& Y,
                              void* stream) override {
    return run([&] { return cuda::device_sampled(z, A, X, Y, static_cast<cudaStream_t>(stream), stream_); });
  }
  KernelStatus device_row_sums(void* z, const Type* type, const DeviceDense& X, void* stream) override {
    return run([&] { return portable_device_row_sums(z, type, X, static_cast<cudaStream_t>(stream), stream_); });
  }
#endif
  std::shared_ptr<void> lock_host_pages(void* p, std::size_t bytes) override {
    DeviceScope on(device_);
    return snk::cuda::lock_host_pages(p, bytes);
  }

 private:
  // Runs one call on the backend's device, serialized with the others.
  template <class F>
  KernelStatus run(F&& f) {
    std::lock_guard<std::mutex> lock(backend_mutex());
    DeviceScope on(device_);
    return f();
  }

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

}  // namespace snk::cuda

// The plugin's one exported symbol (backends/cuda/plugin.map), called by libsnack's registry after it loads this
// library (src/core/registry.cpp). The backend covers part of the operations, so it is used only when named; where
// no GPU is usable, making it throws and the registry keeps the reason.
extern "C" __attribute__((visibility("default"))) void snk_plugin_register() {
  snk::core::BackendEntry entry;
  entry.name = "cuda";
  entry.rank = 30;
  entry.complete = false;
  entry.make = []() -> std::unique_ptr<snk::core::Backend> {
    if (!snk::cuda::device_available())
      throw snk::Error(snk::Info::NotImplemented, "no usable CUDA device (no GPU or no driver)");
    return std::make_unique<snk::cuda::CudaBackend>();
  };
  snk::core::register_backend(std::move(entry));
}
