// graphchallenge/engine/gpu_common.cuh: what the GPU SpDNN engines (fused_gpu.cu, tiled_gpu.cu) share: the
// challenge's activation of one output (activate.cuh), the device's name, and a CUDA error turned into an exception
// that names the engine.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "engine/activate.cuh"

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

}  // namespace snk::gc
