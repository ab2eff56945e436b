// bench/copy_bandwidth.hpp: the device-to-device copy bandwidth every GPU benchmark measures its limits against
// (the SpMM benchmark's stream limit, the SpDNN benchmark's activation floor), defined once so that they agree.
// Host code only (CUDA runtime calls), so that .cpp and .cu benchmarks both include it.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace snk::bench {

// The current device's copy bandwidth in GB/s, bytes read plus written: the median of `reps` device-to-device copies
// of 1 GiB, after one untimed copy. 0 where it cannot be measured (the buffers cannot be had, a call fails); the
// CUDA error state is cleared either way.
inline double copy_bandwidth_gbs(int reps = 10) {
  const std::size_t bytes = std::size_t(1) << 30;
  void* a = nullptr;
  void* b = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  std::vector<float> ms;
  bool ok = cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess &&
            cudaMemset(a, 1, bytes) == cudaSuccess && cudaEventCreate(&e0) == cudaSuccess &&
            cudaEventCreate(&e1) == cudaSuccess;
  for (int r = 0; ok && r <= reps; ++r) {
    float t = 0;
    ok = cudaEventRecord(e0) == cudaSuccess && cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess &&
         cudaEventRecord(e1) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess &&
         cudaEventElapsedTime(&t, e0, e1) == cudaSuccess;
    if (ok && r > 0) ms.push_back(t);
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  (void)cudaGetLastError();
  if (!ok || ms.empty()) return 0.0;
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  const double median_ms = ms[ms.size() / 2];
  return median_ms > 0 ? 2.0 * static_cast<double>(bytes) / (median_ms * 1e-3) / 1e9 : 0.0;
}

}  // namespace snk::bench
