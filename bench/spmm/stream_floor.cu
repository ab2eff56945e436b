// bench/spmm/stream_floor.cu: how fast W's bytes can be streamed at all, measured: the floor under the batch-1 rows
// of bench/results/spmm-h200.md, beside the limit the table prints (W's bytes, X and Y at the copy bandwidth).
//
// The SpMM kernels read W as fp32 values and 16-bit packed columns (6 bytes a non-zero), each warp a contiguous range
// of it, in chunks of four non-zeros per lane (a 16-byte and an 8-byte load, ld.global.nc.L1::no_allocate). This
// program runs synthetic kernels that do only that, on a W of M x M with M (1 - sparsity) non-zeros a row (columns
// random, sorted within a row), with nothing else to wait for: "stream" reads the values and columns and folds them
// into one number per thread; "stream + gathers" also reads X at each column through L1 (the batch-1 SpMM's only
// other work). Each runs at 2, 4 and 8 chunks per lane in flight and at 4 and 8 blocks of 256 threads per SM; the
// table gives the fastest of each. Times are medians of 20 CUDA-event timings after 5 warm-ups, L2 flushed before
// each (a 256 MB memset), as spmm_bench times; the copy bandwidth is cudaMemcpy device to device of 1 GiB, read
// and written bytes counted, as spmm_bench measures it. Output: a markdown table with the device, date and commit.
// Usage: stream_floor [--sizes 16384,4096] [--sparsities 0.90,0.95]. One run takes a few seconds.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "spmm/loads.cuh"   // ld_stream: W's values and columns read as the SpMM kernels read them

#include "bench_commit.h"   // SNACK_GIT_COMMIT (bench/commit.cmake)

namespace {

using snk::cuda::ld_stream;

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "stream_floor: %s: %s\n", #x, cudaGetErrorString(e_));                  \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// Warp w streams chunks [w * per, (w + 1) * per) of four non-zeros, D chunks per lane per step (all loads of a step
// issued before any is used). kGather: each value times X at its column (through L1), else times the column itself.
template <bool kGather, int D>
__global__ void __launch_bounds__(256) stream_kernel(const float* vals, const std::uint16_t* cols, const float* x,
                                                     std::int64_t nnz, float* sink) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::int64_t n_warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
  const std::int64_t chunks = nnz / 4, per = (chunks + n_warps - 1) / n_warps;
  const std::int64_t c0 = warp * per, c1 = c0 + per < chunks ? c0 + per : chunks;
  float acc = 0;
  for (std::int64_t q = c0 + lane; q < c1; q += 32 * D) {
    uint4 v[D];
    uint2 c[D];
#pragma unroll
    for (int u = 0; u < D; ++u) {
      if (q + 32 * u < c1) {
        v[u] = ld_stream(reinterpret_cast<const uint4*>(vals) + q + 32 * u);
        c[u] = ld_stream(reinterpret_cast<const uint2*>(cols) + q + 32 * u);
      } else {
        v[u] = make_uint4(0, 0, 0, 0);
        c[u] = make_uint2(0, 0);
      }
    }
#pragma unroll
    for (int u = 0; u < D; ++u) {
      const float w[4] = {__uint_as_float(v[u].x), __uint_as_float(v[u].y), __uint_as_float(v[u].z),
                          __uint_as_float(v[u].w)};
      const unsigned col[4] = {c[u].x & 0xffffu, c[u].x >> 16, c[u].y & 0xffffu, c[u].y >> 16};
#pragma unroll
      for (int i = 0; i < 4; ++i) acc += kGather ? w[i] * __ldg(x + col[i]) : w[i] * static_cast<float>(col[i]);
    }
  }
  if (acc == 1234.5f) sink[warp] = acc;   // never true for the inputs drawn; keeps the loads
}

template <bool kGather>
void launch(int depth, int blocks, const float* v, const std::uint16_t* c, const float* x, std::int64_t nnz,
            float* sink) {
  if (depth == 2) stream_kernel<kGather, 2><<<blocks, 256>>>(v, c, x, nnz, sink);
  else if (depth == 4) stream_kernel<kGather, 4><<<blocks, 256>>>(v, c, x, nnz, sink);
  else stream_kernel<kGather, 8><<<blocks, 256>>>(v, c, x, nnz, sink);
}

std::vector<double> parse_list(const char* flag, const char* s) {
  std::vector<double> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0') {
      std::fprintf(stderr, "stream_floor: %s takes a comma-separated list of numbers, not '%s'\n", flag, s);
      std::exit(2);
    }
    out.push_back(v);
  }
  return out;
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> sizes{16384, 4096}, sparsities{0.90, 0.95};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("usage: stream_floor [--sizes M,...] [--sparsities S,...]   (defaults 16384,4096 and 0.90,0.95)\n");
      return 0;
    }
    if ((a == "--sizes" || a == "--sparsities") && i + 1 < argc) {
      (a == "--sizes" ? sizes : sparsities) = parse_list(argv[i], argv[i + 1]);
      ++i;
      continue;
    }
    std::fprintf(stderr, "stream_floor: unknown option or missing value: %s (see --help)\n", a.c_str());
    return 2;
  }
  for (double m : sizes)
    if (m < 64 || m > 65536 || m != static_cast<int>(m)) {
      std::fprintf(stderr, "stream_floor: sizes must be whole numbers in [64, 65536] (16-bit columns)\n");
      return 2;
    }
  for (double s : sparsities)
    if (!(s >= 0 && s < 1)) {
      std::fprintf(stderr, "stream_floor: sparsities must be in [0, 1)\n");
      return 2;
    }

  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t flush_bytes = std::size_t(256) << 20, copy_bytes = std::size_t(1) << 30;
  void *flush = nullptr, *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  auto timed = [&](int reps, auto&& work) {
    std::vector<float> t;
    for (int r = 0; r < reps + 5; ++r) {
      CHECK(cudaMemset(flush, r & 0xff, flush_bytes));
      CHECK(cudaEventRecord(e0));
      work();
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 5) t.push_back(ms);
    }
    return median(t);
  };
  CHECK(cudaMalloc(&a, copy_bytes));
  CHECK(cudaMalloc(&b, copy_bytes));
  CHECK(cudaMemset(a, 1, copy_bytes));
  const float copy_ms = timed(10, [&] { CHECK(cudaMemcpyAsync(b, a, copy_bytes, cudaMemcpyDeviceToDevice)); });
  const double copy_bw = 2.0 * copy_bytes / (copy_ms * 1e-3);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));

  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("Device: %s, %d SMs. Date: %s. Commit: %s. Copy bandwidth (device to device, read and written bytes): "
              "%.0f GB/s.\n\n",
              prop.name, prop.multiProcessorCount, date, SNACK_GIT_COMMIT, copy_bw / 1e9);
  std::printf("| M | sparsity | bytes (W 6 B/nnz, row pointers, X, Y) | stream limit ms | stream ms (config) | x limit "
              "| stream + gathers ms (config) | x limit |\n|---|---|---|---|---|---|---|---|\n");
  std::mt19937 gen(20261204);
  for (double md : sizes) {
    const int m = static_cast<int>(md);
    for (double sparsity : sparsities) {
      const std::int64_t per_row = std::max<std::int64_t>(4, static_cast<std::int64_t>(m * (1 - sparsity)));
      const std::int64_t nnz = per_row * m;
      std::vector<float> hv(nnz), hx(m);
      std::vector<std::uint16_t> hc(nnz + 8, 0);
      std::uniform_real_distribution<float> value(-1.0f, 1.0f);
      std::uniform_int_distribution<int> column(0, m - 1);
      for (float& v : hv) v = value(gen);
      for (float& v : hx) v = value(gen);
      for (std::int64_t r = 0; r < m; ++r) {
        for (std::int64_t k = 0; k < per_row; ++k) hc[r * per_row + k] = static_cast<std::uint16_t>(column(gen));
        std::sort(hc.begin() + r * per_row, hc.begin() + (r + 1) * per_row);
      }
      float *dv = nullptr, *dx = nullptr, *sink = nullptr;
      std::uint16_t* dc = nullptr;
      CHECK(cudaMalloc(&dv, nnz * sizeof(float)));
      CHECK(cudaMalloc(&dc, (nnz + 8) * sizeof(std::uint16_t)));
      CHECK(cudaMalloc(&dx, m * sizeof(float)));
      CHECK(cudaMalloc(&sink, std::size_t(1) << 22));
      CHECK(cudaMemcpy(dv, hv.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dc, hc.data(), (nnz + 8) * sizeof(std::uint16_t), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dx, hx.data(), m * sizeof(float), cudaMemcpyHostToDevice));
      const double bytes = nnz * 6.0 + (m + 1) * 4.0 + 2.0 * m * 4.0;
      const double limit_ms = bytes / copy_bw * 1e3;
      std::string cell[2];
      double best[2] = {1e30, 1e30};
      for (int gather = 0; gather < 2; ++gather) {
        for (int depth : {2, 4, 8}) {
          for (int per_sm : {4, 8}) {
            const int blocks = prop.multiProcessorCount * per_sm;
            const float ms = timed(20, [&] {
              if (gather) launch<true>(depth, blocks, dv, dc, dx, nnz, sink);
              else launch<false>(depth, blocks, dv, dc, dx, nnz, sink);
            });
            CHECK(cudaGetLastError());
            if (ms < best[gather]) {
              best[gather] = ms;
              char buf[96];
              std::snprintf(buf, sizeof buf, "%.4f (%d chunks a lane, %d blocks an SM)", ms, depth, per_sm);
              cell[gather] = buf;
            }
          }
        }
      }
      std::printf("| %d | %.0f%% | %.1f MB | %.4f | %s | %.2fx | %s | %.2fx |\n", m, sparsity * 100, bytes / 1e6,
                  limit_ms, cell[0].c_str(), best[0] / limit_ms, cell[1].c_str(), best[1] / limit_ms);
      CHECK(cudaFree(dv));
      CHECK(cudaFree(dc));
      CHECK(cudaFree(dx));
      CHECK(cudaFree(sink));
    }
  }
  return 0;
}
