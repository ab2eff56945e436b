// graphchallenge/engine/gpu_common.cuh: what the GPU SpDNN engines (fused_gpu.cu, tiled_gpu.cu) share: the
// challenge's activation of one output, the device's name, and a CUDA error turned into an exception that names the
// engine.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "io/types.hpp"

namespace snk::gc {

// The layer's activation of one output: bias, ReLU, clamp at the challenge's ceiling (kChallengeClamp).
__device__ __forceinline__ float activate(float sum, float bias) {
  return fminf(fmaxf(sum + bias, 0.0f), static_cast<float>(kChallengeClamp));
}

// The same in FP64: the bias added, the ReLU's threshold and the clamp taken in FP64, nothing rounded.
__device__ __forceinline__ double activate(double sum, float bias) {
  return fmin(fmax(sum + static_cast<double>(bias), 0.0), kChallengeClamp);
}

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
