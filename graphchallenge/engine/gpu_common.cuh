// graphchallenge/engine/gpu_common.cuh: what the GPU SpDNN engines (fused_gpu.cu, tiled_gpu.cu) share: the
// challenge's activation of one output (activate.cuh), the device's name, a CUDA error turned into an exception that
// names the engine, and the page-locking of the inputs' host arrays.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/activate.cuh"
#include "io/types.hpp"   // CsrMatrix

namespace snk::gc {

// The name of CUDA device `device` ("unknown GPU" where the runtime cannot say).
inline std::string gpu_device_name(int device) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "unknown GPU";
  return prop.name;
}

// Throws std::runtime_error "<engine>: <what>: <CUDA's message>" for a failed CUDA call, clearing CUDA's last error.
inline void throw_on_cuda(cudaError_t e, const char* engine, const char* what) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();
  throw std::runtime_error(std::string(engine) + ": " + what + ": " + cudaGetErrorString(e));
}

// Page-locks the host arrays of `inputs` (row pointers, columns, values; empty ones skipped) so that uploads from them
// run at the bus's speed, and appends each array it locked to `registered` (the caller unlocks them with
// cudaHostUnregister). An array page-locked already by another owner is left to it where `leave_locked`, else an error.
// Errors throw as throw_on_cuda does, naming `engine`.
inline void page_lock_inputs(const CsrMatrix& inputs, std::vector<void*>& registered, const char* engine,
                             bool leave_locked) {
  const auto lock = [&](const void* p, size_t bytes) {
    if (bytes == 0) return;
    void* q = const_cast<void*>(p);
    const cudaError_t e = cudaHostRegister(q, bytes, cudaHostRegisterDefault);
    if (e == cudaErrorHostMemoryAlreadyRegistered && leave_locked) {
      (void)cudaGetLastError();
      return;
    }
    throw_on_cuda(e, engine, "page-lock the inputs");
    registered.push_back(q);
  };
  lock(inputs.row_ptr.data(), inputs.row_ptr.size() * sizeof(int64_t));
  lock(inputs.col.data(), inputs.col.size() * sizeof(int32_t));
  lock(inputs.val.data(), inputs.val.size() * sizeof(float));
}

}  // namespace snk::gc
