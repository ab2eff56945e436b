// bench/spmm/bench_common.cuh: what the SpMM benchmarks (spmm_bench, stream_floor) measure the same way: CUDA error
// checks, the timer (L2 flushed before each timing, the median of CUDA-event times), the bytes an SpMM in the plan's
// format must move and their time at the copy bandwidth (../copy_bandwidth.hpp: the table's stream limit), and the
// parsing of comma-separated option values. One definition, so that stream_floor's floor and spmm_bench's limit are
// measured and computed alike.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "../copy_bandwidth.hpp"   // copy_bandwidth_gbs

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)

namespace snk::bench {

__global__ void read_flush_kernel(const uint4* p, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;   // never true for the zero-filled buffer; keeps the loads
}

// Times calls with the L2 flushed before each: a 256 MB memset (the default, as nvbench does; it leaves L2 holding
// dirty lines, whose write-back to DRAM then falls inside the timed call), or, with read_flush, a kernel that reads a
// 256 MB buffer (L2 left holding clean lines: the timed call pays no write-back of the flush's data).
struct Timer {
  cudaEvent_t a, b;
  void* flush = nullptr;
  unsigned* sink = nullptr;
  std::size_t flush_bytes = 256u << 20;
  int warmup = 3, reps = 20;
  bool read_flush = false;
  Timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaMalloc(&flush, flush_bytes));
    CK(cudaMalloc(&sink, sizeof(unsigned)));
    CK(cudaMemset(flush, 0, flush_bytes));
  }
  void flush_l2(int i) {
    if (read_flush)
      read_flush_kernel<<<1024, 256>>>(static_cast<const uint4*>(flush), flush_bytes / 16, sink);
    else
      cudaMemsetAsync(flush, i & 0xff, flush_bytes);
  }
  // Median ms of fn(); returns < 0 if fn reported failure or an error occurred.
  double median(const std::function<bool()>& fn) {
    for (int i = 0; i < warmup; ++i)
      if (!fn()) return -1;
    if (cudaDeviceSynchronize() != cudaSuccess) return -1;
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
      flush_l2(i);
      cudaEventRecord(a);
      if (!fn()) return -1;
      cudaEventRecord(b);
      if (cudaEventSynchronize(b) != cudaSuccess) return -1;
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

// Bytes any kernel reading W in the plan's format moves for Y = W X (W rows x cols with nnz non-zeros): each
// non-zero's packed 16-bit column and fp32 value (spmm/dispatch.hpp; bound values are the same 6 bytes in the plan's
// order), the row boundaries as rows + 1 offsets, X read once and Y written once. A kernel's own extras (pads of a
// bound order, per-segment tables, partial sums) are not counted: the limit is what the format asks, so they show in
// the ratio to it.
constexpr double kPlanColumnBytes = 2, kValueBytes = 4;
inline double stream_bytes(double nnz, double rows, double cols, int batch) {
  return nnz * (kPlanColumnBytes + kValueBytes) + (rows + 1) * 4 + (cols + rows) * batch * kValueBytes;
}
// The stream time (ms) of `bytes` at the copy bandwidth (GB/s, bytes read + written).
inline double stream_ms(double bytes, double copy_gbs) { return bytes / (copy_gbs * 1e9) * 1e3; }

// A comma-separated list of numbers, each the whole of its piece; false for an empty list or a piece that is not one.
template <class T>
bool parse_list(const std::string& s, std::vector<T>& out) {
  std::vector<T> v;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ',')) {
    char* end = nullptr;
    const double x = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || (std::is_integral_v<T> && x != double(T(x)))) return false;
    v.push_back(T(x));
  }
  if (v.empty()) return false;
  out = std::move(v);
  return true;
}

}  // namespace snk::bench
