// graphchallenge/engine/activate.cuh: the challenge's activation of one output on the device, in FP32 and FP64: bias,
// ReLU, clamp at kChallengeClamp. Apart from gpu_common.cuh (which needs the CUDA runtime) so that the tiled kernels'
// host emulation (tiled_kernels.cuh) compiles it too.
#pragma once

#include <cmath>

#include "io/types.hpp"   // kChallengeClamp

namespace snk::gc {

// The layer's activation of one output: bias, ReLU, clamp at the challenge's ceiling (kChallengeClamp).
__device__ __forceinline__ float activate(float sum, float bias) {
  return fminf(fmaxf(sum + bias, 0.0f), static_cast<float>(kChallengeClamp));
}

// The same in FP64: the bias added, the ReLU's threshold and the clamp taken in FP64, nothing rounded.
__device__ __forceinline__ double activate(double sum, float bias) {
  return fmin(fmax(sum + static_cast<double>(bias), 0.0), kChallengeClamp);
}

}  // namespace snk::gc
