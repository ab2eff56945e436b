// bench/spmm/stream_floor.cu: how fast W's bytes can be streamed at all, measured: the floor under the batch-1 rows
// of bench/results/spmm-h200.md, beside the limit the table prints (W's bytes, X and Y at the copy bandwidth).
//
// The SpMM kernels read W as fp32 values and 16-bit packed columns (6 bytes a non-zero), each warp a contiguous range
// of it, in chunks of four non-zeros per lane (a 16-byte and an 8-byte load, ld.global.nc.L1::no_allocate). This
// program runs synthetic kernels that do only that, on a W of M x M with M (1 - sparsity) non-zeros a row (columns
// random, sorted within a row), with nothing else to wait for: "stream" reads the values and columns and folds them
// into one number per thread; "stream + gathers" also reads X at each column through L1 (the batch-1 SpMM's only
// other work). Each runs at 2, 4 and 8 chunks per lane in flight and at 4 and 8 blocks of 256 threads per SM; the
// table gives the fastest of each. Timing, copy bandwidth and the stream limit are spmm_bench's (bench_common.cuh):
// medians of 20 CUDA-event timings (here after 5 warm-ups), L2 flushed before each by a 256 MB memset; cudaMemcpy
// device to device of 1 GiB, read and written bytes counted. Output: a markdown table with the device, date and
// commit.
// Usage: stream_floor [--sizes 16384,4096] [--sparsities 0.90,0.95]. One run takes a few seconds.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "bench_common.cuh"   // Timer, copy_bandwidth_gbs, stream_bytes, parse_list, CK
#include "spmm/loads.cuh"      // ld_stream: W's values and columns read as the SpMM kernels read them

#include "bench_commit.h"   // SNACK_GIT_COMMIT (bench/commit.cmake)

namespace {

using snk::cuda::ld_stream;

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
      if (!snk::bench::parse_list(argv[i + 1], a == "--sizes" ? sizes : sparsities)) {
        std::fprintf(stderr, "stream_floor: %s takes a comma-separated list of numbers, not '%s'\n", a.c_str(),
                     argv[i + 1]);
        return 2;
      }
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
  CK(cudaGetDeviceProperties(&prop, 0));
  snk::bench::Timer timer;
  timer.warmup = 5;
  const double copy_gbs = snk::bench::copy_bandwidth_gbs();
  if (copy_gbs <= 0) {
    std::fprintf(stderr, "%s: could not measure the copy bandwidth\n", argv[0]);
    return 2;
  }

  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("Device: %s, %d SMs. Date: %s. Commit: %s. Copy bandwidth (device to device, read and written bytes): "
              "%.0f GB/s.\n\n",
              prop.name, prop.multiProcessorCount, date, SNACK_GIT_COMMIT, copy_gbs);
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
      CK(cudaMalloc(&dv, nnz * sizeof(float)));
      CK(cudaMalloc(&dc, (nnz + 8) * sizeof(std::uint16_t)));
      CK(cudaMalloc(&dx, m * sizeof(float)));
      CK(cudaMalloc(&sink, std::size_t(1) << 22));
      CK(cudaMemcpy(dv, hv.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
      CK(cudaMemcpy(dc, hc.data(), (nnz + 8) * sizeof(std::uint16_t), cudaMemcpyHostToDevice));
      CK(cudaMemcpy(dx, hx.data(), m * sizeof(float), cudaMemcpyHostToDevice));
      const double bytes = snk::bench::stream_bytes(double(nnz), m, m, 1);
      const double limit_ms = snk::bench::stream_ms(bytes, copy_gbs);
      std::string cell[2];
      double best[2] = {1e30, 1e30};
      for (int gather = 0; gather < 2; ++gather) {
        for (int depth : {2, 4, 8}) {
          for (int per_sm : {4, 8}) {
            const int blocks = prop.multiProcessorCount * per_sm;
            const double ms = timer.median([&] {
              if (gather) launch<true>(depth, blocks, dv, dc, dx, nnz, sink);
              else launch<false>(depth, blocks, dv, dc, dx, nnz, sink);
              return cudaGetLastError() == cudaSuccess;
            });
            if (ms < 0) {
              std::fprintf(stderr, "stream_floor: a timed launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
              return 1;
            }
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
      CK(cudaFree(dv));
      CK(cudaFree(dc));
      CK(cudaFree(dx));
      CK(cudaFree(sink));
    }
  }
  return 0;
}
