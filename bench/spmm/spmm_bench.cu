// bench/spmm/spmm_bench.cu: the SpMM benchmark: the project's kernels against cuSPARSE, dense cuBLAS and
// Dense+Mask, side by side in one run, on one GPU.
//
// W is M x K (M = K) with a uniform random pattern (each entry present with probability 1 - sparsity,
// drawn by a hash of (row, column), so every process regenerates the same matrix), values uniform in
// [-1, 1); X is K x batch, Y = W X, fp32. Methods:
//   snack_coo       the published SNACK-COO (X and Y batch-major, as published)
//   row_segment     csr_rowseg.cuh, forced;   column_block  csr_colblock.cuh, forced (deterministic); at batch 1
//                   also with each walk of the warp ranges forced (rs_items, rs_windows in the CSV: the
//                   measurements behind the StreamWalk rule)
//   row_batch_lanes csr_rowseg.cuh's batch-lane variant, forced (and with a 32-wide tile past batch 32)
//   row_range       csr_rowrange.cuh, forced (dispatcher's slab count), and at batch 2-32 with 1, 2, 4 and 8
//                   column slabs (rr_s<slabs> in the CSV: the measurements behind the slab rule)
//   dispatched      what snk::cuda::spmm picks (Kernel::Auto, deterministic = false)
//   dispatched_bound  the same with W's values bound to the plan (Plan::bind_values, timed once per matrix:
//                   the first bind builds the bank-aware order, a re-bind gathers the values), where the choice
//                   reads that order (the batch-8 column-block kernel; at batch 2-128 the lanes-across-rows
//                   kernel, whose order and value copy the first timed call builds, in the warm-up); where that is
//                   the lanes-across-rows kernel at batch tile 32, also with 768 and 1024 threads per block forced
//                   (rl_t768, rl_t1024: the measurements behind SpmmArgs::lanes_threads' default), and up to
//                   batch 48 at each of its batch tiles forced (rl_bt8, rl_bt16, rl_bt24, rl_bt32: the lanes_tile
//                   rule's)
//   cusparse        every cusparseSpMM algorithm (CSR and COO) in both dense orders, plus cusparseSpMV
//                   at batch 1; run in a child process per matrix, so an algorithm that fails with a
//                   sticky error (CSR_ALG1 has raised an illegal address at 16384 / 95% / 128) loses
//                   nothing else: the parent restarts the child without it; the best is reported
//   cublas:<call>   every dense fp32 call computing Y = W X, in pedantic math (no TF32): cublasSgemm in each layout
//                   (W, X and Y each row- or column-major), cublasSgemv at batch 1, and cublasLtMatmul in each layout
//                   with each of its heuristic's top kLtAlgos algorithms; a call that fails is skipped and named; the
//                   table's cuBLAS is the fastest correct one, named
//   dense_mask      each call: Wm = W .* mask (fp32 mask, in that call's W layout), then that fastest dense call
// SNACK-COO is timed with 3 repetitions (1 warm-up) where one call takes over 20 ms (it is 100x to 500x
// slower there; the median of 3 ranks it as well as 20 would).
// Timing: warm-up, then `reps` runs each between CUDA events with L2 flushed (a 256 MB memset outside
// the events; --flush read: a 256 MB read instead, see Timer) before each; the median is reported. Every
// method's output is checked against the first dense call that runs (relative error). --row-order
// plain|balanced runs the column-block kernel with its rows in that order in every call (default auto, the
// dispatcher's rule, as in the tables).
// Bytes: the minimum traffic, nnz x 8 (value + 32-bit column) + (M + 1) x 4 + X + Y, against the
// device-to-device copy bandwidth measured in the same run (bytes read + written).
// The project's kernels move 6 bytes per non-zero (16-bit columns), so their "effective" bandwidth on
// this count can exceed the copy bandwidth; the table says so. The on-chip floor: nnz x batch x 4 bytes (the
// rows of X that a kernel gathering on chip reads once per non-zero) over the shared-memory read bandwidth
// measured in the same run (conflict-free 16-byte loads on every SM). The limit: the larger of that floor and
// the stream time, stream_bytes (W in the plan's format, 6 bytes per non-zero, + row offsets + X + Y) over the
// copy bandwidth; each row gives the dispatched call (values bound where that runs) over it. The targets section
// lists the project's SpMM targets at 16384 x 16384 (speedups over cuBLAS, Dense+Mask and cuSPARSE, fractions of
// the copy bandwidth, within 1.25x of the limit at 90% and 95%) as the time each asks of the dispatched kernel,
// beside that floor. Output: a markdown table on stdout and in <out>/spmm-<gpu>.md (<gpu>: the device's model, as
// h100 or h200; device_tag), every measurement in
// <out>/spmm.csv (for plot.py; `limit` rows hold each point's limit).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_common.cuh"
#include "spmm/dispatch.hpp"

#include "../device_tag.hpp"   // device_tag: the output's name
#include "bench_commit.h"   // SNACK_GIT_COMMIT (bench/commit.cmake)

namespace {

using snk::bench::kValueBytes;
using snk::bench::parse_list;
using snk::bench::stream_ms;
using snk::bench::Timer;
using snk::cuda::ColumnBlockConfig;
using snk::cuda::Kernel;
using snk::cuda::Layout;

// ---- deterministic generation on the device -------------------------------------------------------------------
__host__ __device__ inline unsigned hash3(unsigned seed, unsigned a, unsigned b) {
  unsigned h = seed * 0x9E3779B1u ^ (a * 0x85EBCA77u) ^ (b * 0xC2B2AE3Du + 0x27d4eb2fu);
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return h;
}
__device__ inline float unit(unsigned h) { return (h >> 8) * (2.0f / 16777216.0f) - 1.0f; }

__global__ void count_kernel(int rows, int cols, unsigned seed, unsigned threshold, int* counts) {
  const int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
  if (r >= rows) return;
  int n = 0;
  for (int c0 = 0; c0 < cols; c0 += 32) {
    const int c = c0 + lane;
    n += __popc(__ballot_sync(0xffffffffu, c < cols && hash3(seed, r, c) < threshold));
  }
  if (lane == 0) counts[r] = n;
}
__global__ void fill_kernel(int rows, int cols, unsigned seed, unsigned threshold, const int* row_ptr, int* col,
                            float* val, int* coo_row) {
  const int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
  if (r >= rows) return;
  int pos = row_ptr[r];
  for (int c0 = 0; c0 < cols; c0 += 32) {
    const int c = c0 + lane;
    const bool on = c < cols && hash3(seed, r, c) < threshold;
    const unsigned m = __ballot_sync(0xffffffffu, on);
    if (on) {
      const int p = pos + __popc(m & ((1u << lane) - 1));
      col[p] = c;
      val[p] = unit(hash3(seed ^ 0x5bd1e995u, r, c));
      coo_row[p] = r;
    }
    pos += __popc(m);
  }
}
// W and its fp32 mask as dense matrices (zero-filled beforehand), row-major and column-major.
__global__ void scatter_dense_kernel(int rows, int cols, const int* row_ptr, const int* col, const float* val,
                                     float* dense_row, float* mask_row, float* dense_col, float* mask_col) {
  const int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
  if (r >= rows) return;
  for (int j = row_ptr[r] + lane; j < row_ptr[r + 1]; j += 32) {
    const std::size_t at_row = std::size_t(r) * cols + col[j], at_col = std::size_t(col[j]) * rows + r;
    dense_row[at_row] = dense_col[at_col] = val[j];
    mask_row[at_row] = mask_col[at_col] = 1.0f;
  }
}
__global__ void fill_x_kernel(int k_rows, int batch, unsigned seed, float* x_row_major, float* x_batch_major) {
  const std::size_t n = std::size_t(k_rows) * batch;
  for (std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += std::size_t(gridDim.x) * blockDim.x) {
    const int k = static_cast<int>(t / batch), b = static_cast<int>(t % batch);
    const float v = unit(hash3(seed, k, b));
    x_row_major[t] = v;
    if (x_batch_major) x_batch_major[std::size_t(b) * k_rows + k] = v;
  }
}
// On-chip read bandwidth: one 1024-thread block per SM, each thread reading 16-byte words of a 64 KB shared
// buffer, a warp's 32 words contiguous (no bank conflicts), the warp's offset moving every load, by volatile
// loads (neither compiler can hoist or reuse one). A kernel that brings each non-zero's row of X (batch x 4
// bytes) into registers from shared memory or L1 (the same data pipe) needs at least nnz x batch x 4 bytes
// over this bandwidth: the table's on-chip floor.
__global__ void __launch_bounds__(1024, 1) shared_read_kernel(int iters, float* out) {
  extern __shared__ float4 shared_words[];   // 4096 words, 64 KB
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) shared_words[i] = make_float4(float(i), 1.0f, 2.0f, 3.0f);
  __syncthreads();
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(shared_words));
  float s0 = 0.0f, s1 = 0.0f;
  for (int it = 0; it < iters; it += 4) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const unsigned a = base + ((threadIdx.x + (static_cast<unsigned>(it + u) * 33u & 127u) * 32u) & 4095u) * 16u;
      float4 v;
      asm volatile("ld.volatile.shared.v4.f32 {%0,%1,%2,%3}, [%4];"
                   : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                   : "r"(a));
      s0 += v.x;
      s1 += v.w;
    }
  }
  out[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s0 + s1;
}
__global__ void mask_multiply_kernel(float4* out, const float4* w, const float4* mask, std::size_t n4) {
  for (std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < n4; t += std::size_t(gridDim.x) * blockDim.x) {
    const float4 a = w[t], m = mask[t];
    out[t] = make_float4(a.x * m.x, a.y * m.y, a.z * m.z, a.w * m.w);
  }
}

struct Matrix {
  int rows = 0, cols = 0;
  std::int64_t nnz = 0;
  int *row_ptr = nullptr, *col = nullptr, *coo_row = nullptr;
  float* val = nullptr;
  ~Matrix() {
    cudaFree(row_ptr);
    cudaFree(col);
    cudaFree(coo_row);
    cudaFree(val);
  }
};

unsigned pattern_seed(int m, double sparsity) { return 1234567u + unsigned(m) * 31u + unsigned(sparsity * 1000); }

void generate(Matrix& a, int m, double sparsity) {
  a.rows = a.cols = m;
  const unsigned seed = pattern_seed(m, sparsity);
  const unsigned threshold = static_cast<unsigned>((1.0 - sparsity) * 4294967296.0);
  int* counts;
  CK(cudaMalloc(&counts, sizeof(int) * m));
  count_kernel<<<(m + 7) / 8, 256>>>(m, m, seed, threshold, counts);
  CK(cudaGetLastError());
  std::vector<int> h(m), rp(m + 1, 0);
  CK(cudaMemcpy(h.data(), counts, sizeof(int) * m, cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i) rp[i + 1] = rp[i] + h[i];
  a.nnz = rp[m];
  CK(cudaMalloc(&a.row_ptr, sizeof(int) * (m + 1)));
  CK(cudaMalloc(&a.col, sizeof(int) * std::max<std::int64_t>(1, a.nnz)));
  CK(cudaMalloc(&a.coo_row, sizeof(int) * std::max<std::int64_t>(1, a.nnz)));
  CK(cudaMalloc(&a.val, sizeof(float) * std::max<std::int64_t>(1, a.nnz)));
  CK(cudaMemcpy(a.row_ptr, rp.data(), sizeof(int) * (m + 1), cudaMemcpyHostToDevice));
  fill_kernel<<<(m + 7) / 8, 256>>>(m, m, seed, threshold, a.row_ptr, a.col, a.val, a.coo_row);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  cudaFree(counts);
}

// ---- timing ----------------------------------------------------------------------------------------------------------
// --flush read: the timers flush L2 by reading a 256 MB buffer instead of a memset (Timer::read_flush,
// bench_common.cuh). The tables are made with the default; --flush read measures what the memset's write-back costs.
bool g_read_flush = false;
// --row-order: the column-block kernel's row order (ColumnBlockConfig::row_order) in every call of ours; the
// tables are made with the default, Auto (the dispatcher's rule); plain and balanced measure that rule.
snk::cuda::RowOrder g_row_order = snk::cuda::RowOrder::Auto;
std::string g_row_order_name = "auto";   // as given, for the table's header

double rel_error(const std::vector<float>& got, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = double(got[i]) - ref[i];
    if (std::isnan(got[i])) return INFINITY;
    num += d * d;
    den += double(ref[i]) * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

std::vector<float> fetch(const float* d, std::size_t n) {
  std::vector<float> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}
// Batch-major (M x batch column-major) to row-major.
std::vector<float> from_batch_major(const std::vector<float>& v, int m, int batch) {
  std::vector<float> out(v.size());
  for (int b = 0; b < batch; ++b)
    for (int i = 0; i < m; ++i) out[std::size_t(i) * batch + b] = v[std::size_t(b) * m + i];
  return out;
}

// ---- cuSPARSE (child process) ------------------------------------------------------------------------------------------
struct SparseAlg {
  const char* name;
  bool spmv;
  bool coo;
  int alg;
};
// CSR_ALG1 last: it is the one seen to fail with a sticky error.
const SparseAlg kSparseAlgs[] = {
    {"SPMM_ALG_DEFAULT", false, false, CUSPARSE_SPMM_ALG_DEFAULT},
    {"SPMM_CSR_ALG2", false, false, CUSPARSE_SPMM_CSR_ALG2},
    {"SPMM_CSR_ALG3", false, false, CUSPARSE_SPMM_CSR_ALG3},
    {"SPMM_COO_ALG1", false, true, CUSPARSE_SPMM_COO_ALG1},
    {"SPMM_COO_ALG2", false, true, CUSPARSE_SPMM_COO_ALG2},
    {"SPMM_COO_ALG3", false, true, CUSPARSE_SPMM_COO_ALG3},
    {"SPMM_COO_ALG4", false, true, CUSPARSE_SPMM_COO_ALG4},
    {"SPMV_CSR_ALG1", true, false, CUSPARSE_SPMV_CSR_ALG1},
    {"SPMV_CSR_ALG2", true, false, CUSPARSE_SPMV_CSR_ALG2},
    {"SPMV_COO_ALG1", true, true, CUSPARSE_SPMV_COO_ALG1},
    {"SPMV_COO_ALG2", true, true, CUSPARSE_SPMV_COO_ALG2},
    {"SPMM_CSR_ALG1", false, false, CUSPARSE_SPMM_CSR_ALG1},
};

int cusparse_child(int m, double sparsity, const std::vector<int>& batches, const std::set<std::string>& skip, int reps) {
  Matrix a;
  generate(a, m, sparsity);
  Timer timer;
  timer.reps = reps;
  timer.read_flush = g_read_flush;
  cusparseHandle_t h;
  if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS) return 3;
  auto plan = snk::cuda::Plan::create({a.rows, a.cols, a.nnz, a.row_ptr, a.col});
  for (int batch : batches) {
    float *x, *xb, *y, *yref;
    CK(cudaMalloc(&x, sizeof(float) * std::size_t(m) * batch));
    CK(cudaMalloc(&xb, sizeof(float) * std::size_t(m) * batch));
    CK(cudaMalloc(&y, sizeof(float) * std::size_t(m) * batch));
    CK(cudaMalloc(&yref, sizeof(float) * std::size_t(m) * batch));
    fill_x_kernel<<<1024, 256>>>(m, batch, 777u + batch, x, xb);
    snk::cuda::SpmmArgs sa;
    sa.values = a.val;
    sa.x = {x, batch, Layout::RowMajor};
    sa.y = {yref, batch, Layout::RowMajor};
    sa.batch = batch;
    sa.kernel = Kernel::RowSegment;
    if (snk::cuda::spmm(*plan, sa) != snk::cuda::Status::Success) return 3;
    CK(cudaDeviceSynchronize());
    const std::vector<float> ref = fetch(yref, std::size_t(m) * batch);
    for (const SparseAlg& alg : kSparseAlgs) {
      if (alg.spmv && batch != 1) continue;
      for (int order = 0; order < (alg.spmv ? 1 : 2); ++order) {   // 0: column-major dense, 1: row-major
        const std::string key = std::to_string(batch) + ":" + alg.name + ":" + std::to_string(order);
        if (skip.count(key)) continue;
        std::printf("START %s\n", key.c_str());
        std::fflush(stdout);
        cusparseSpMatDescr_t A = nullptr;
        cusparseStatus_t st =
            alg.coo ? cusparseCreateCoo(&A, m, m, a.nnz, a.coo_row, a.col, a.val, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F)
                    : cusparseCreateCsr(&A, m, m, a.nnz, a.row_ptr, a.col, a.val, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
        const float one = 1.0f, zero = 0.0f;
        void* buf = nullptr;
        std::size_t bytes = 0;
        double ms = -1;
        std::string why;
        const bool row_major = order == 1;
        if (alg.spmv) {
          cusparseDnVecDescr_t vx, vy;
          cusparseCreateDnVec(&vx, m, x, CUDA_R_32F);
          cusparseCreateDnVec(&vy, m, y, CUDA_R_32F);
          const auto salg = static_cast<cusparseSpMVAlg_t>(alg.alg);
          st = cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F, salg, &bytes);
          if (st == CUSPARSE_STATUS_SUCCESS && cudaMalloc(&buf, bytes + 16) == cudaSuccess) {
            st = cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F, salg, buf);
            if (st == CUSPARSE_STATUS_SUCCESS)
              ms = timer.median([&] {
                return cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F, salg, buf) ==
                       CUSPARSE_STATUS_SUCCESS;
              });
          }
          cusparseDestroyDnVec(vx);
          cusparseDestroyDnVec(vy);
        } else {
          cusparseDnMatDescr_t B, C;
          cusparseCreateDnMat(&B, m, batch, row_major ? batch : m, row_major ? x : xb, CUDA_R_32F,
                              row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL);
          cusparseCreateDnMat(&C, m, batch, row_major ? batch : m, y, CUDA_R_32F,
                              row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL);
          const auto malg = static_cast<cusparseSpMMAlg_t>(alg.alg);
          const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
          if (st == CUSPARSE_STATUS_SUCCESS)
            st = cusparseSpMM_bufferSize(h, op, op, &one, A, B, &zero, C, CUDA_R_32F, malg, &bytes);
          if (st == CUSPARSE_STATUS_SUCCESS && cudaMalloc(&buf, bytes + 16) == cudaSuccess) {
            st = cusparseSpMM_preprocess(h, op, op, &one, A, B, &zero, C, CUDA_R_32F, malg, buf);
            if (st == CUSPARSE_STATUS_SUCCESS)
              ms = timer.median([&] {
                return cusparseSpMM(h, op, op, &one, A, B, &zero, C, CUDA_R_32F, malg, buf) == CUSPARSE_STATUS_SUCCESS;
              });
          }
          cusparseDestroyDnMat(B);
          cusparseDestroyDnMat(C);
        }
        if (st != CUSPARSE_STATUS_SUCCESS) why = cusparseGetErrorString(st);
        const cudaError_t ce = cudaDeviceSynchronize();
        if (ce != cudaSuccess) {
          std::printf("FAIL %s cuda:%s\n", key.c_str(), cudaGetErrorString(ce));
          std::fflush(stdout);
          std::_Exit(4);   // the context is gone: the parent restarts without this one
        }
        if (A) cusparseDestroySpMat(A);
        cudaFree(buf);
        if (ms < 0) {
          std::printf("FAIL %s %s\n", key.c_str(), why.empty() ? "error" : why.c_str());
        } else {
          std::vector<float> got = fetch(y, std::size_t(m) * batch);
          if (!row_major && !alg.spmv) got = from_batch_major(got, m, batch);
          std::printf("RESULT %s %.6f %.3e\n", key.c_str(), ms, rel_error(got, ref));
        }
        std::fflush(stdout);
      }
    }
    cudaFree(x);
    cudaFree(xb);
    cudaFree(y);
    cudaFree(yref);
  }
  cusparseDestroy(h);
  return 0;
}

struct SparseResult {
  double ms = -1, err = 0;
  std::string alg;
  std::vector<std::string> failures;
};

// Runs the child until every algorithm has a result or a failure; returns the per-batch best.
std::map<int, SparseResult> run_cusparse(const std::string& self, int m, double sparsity, const std::vector<int>& batches,
                                         int reps, FILE* csv, std::string& log) {
  std::map<int, SparseResult> best;
  std::set<std::string> done;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::ostringstream cmd;
    cmd << self << " --cusparse-child " << m << " " << sparsity << " --reps " << reps << " --batches ";
    for (std::size_t i = 0; i < batches.size(); ++i) cmd << (i ? "," : "") << batches[i];
    if (!done.empty()) {
      cmd << " --skip ";
      bool first = true;
      for (auto& k : done) { cmd << (first ? "" : ",") << k; first = false; }
    }
    if (g_read_flush) cmd << " --flush read";
    cmd << " 2>&1";
    FILE* p = popen(cmd.str().c_str(), "r");
    if (!p) break;
    char line[4096];
    std::string started;
    while (std::fgets(line, sizeof line, p)) {
      char key[512], rest[1024];
      double ms, err;
      if (std::sscanf(line, "START %511s", key) == 1) {
        started = key;
      } else if (std::sscanf(line, "RESULT %511s %lf %lf", key, &ms, &err) == 3) {
        done.insert(key);
        started.clear();
        std::string k(key);
        const int b = std::atoi(k.substr(0, k.find(':')).c_str());
        const std::string name = k.substr(k.find(':') + 1);
        std::fprintf(csv, "%d,%.2f,%d,cusparse:%s,%.6f,%.3e\n", m, sparsity, b, name.c_str(), ms, err);
        if (err < 1e-4 && (best[b].ms < 0 || ms < best[b].ms)) {
          best[b].ms = ms;
          best[b].err = err;
          best[b].alg = name;
        }
      } else if (std::sscanf(line, "FAIL %511s %1023[^\n]", key, rest) >= 1) {
        done.insert(key);
        started.clear();
        std::string k(key);
        const int b = std::atoi(k.substr(0, k.find(':')).c_str());
        best[b].failures.push_back(k.substr(k.find(':') + 1) + " (" + rest + ")");
        log += "cusparse " + std::to_string(m) + "/" + std::to_string(sparsity) + " " + k + ": " + rest + "\n";
      }
    }
    const int rc = pclose(p);
    if (rc == 0) break;
    if (!started.empty()) {   // died inside an algorithm without a FAIL line (a crash)
      done.insert(started);
      const int b = std::atoi(started.substr(0, started.find(':')).c_str());
      best[b].failures.push_back(started.substr(started.find(':') + 1) + " (crashed)");
      log += "cusparse " + std::to_string(m) + " " + started + ": child crashed\n";
    }
  }
  return best;
}

// ---- dense cuBLAS ------------------------------------------------------------------------------------------------------
// Where the dense operands of Y = W X lie: W (M x K), X (K x batch) and Y (M x batch), each row-major ("row") or
// column-major ("col"). cuBLAS works in column-major terms, in which a row-major matrix is its transpose: Y
// column-major is computed as Y = op(W) op(X), Y row-major as Y^T = op(X^T) op(W^T), each op N or T by how that
// operand lies. Every operand's leading dimension follows from its own storage alone (W: K row, M col; X: batch
// row, K col; Y: batch row, M col).
struct DenseLayout {
  bool w_row, x_row, y_row;
  std::string name() const {
    return std::string("W ") + (w_row ? "row" : "col") + "; X " + (x_row ? "row" : "col") + "; Y " + (y_row ? "row" : "col");
  }
};
// Every layout of Y = W X. The first is the one the project's kernels take (X and Y row-major, W as CSR rows),
// and serves as the reference of the error checks where it runs.
const DenseLayout kDenseLayouts[] = {
    {true, true, true},  {false, true, true},  {true, false, true},  {false, false, true},
    {true, true, false}, {false, true, false}, {true, false, false}, {false, false, false},
};

// One column-major GEMM: c (rows x cols, ldc) = op_a(a) op_b(b), over `inner`.
struct GemmOperands {
  cublasOperation_t op_a, op_b;
  int rows, cols, inner;
  const float* a;
  int lda;
  const float* b;
  int ldb;
  float* c;
  int ldc;
};
GemmOperands gemm_operands(const DenseLayout& l, int m, int k, int batch, const float* w, const float* x, float* y) {
  const cublasOperation_t N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  const int ldw = l.w_row ? k : m, ldx = l.x_row ? batch : k;
  if (!l.y_row) return {l.w_row ? T : N, l.x_row ? T : N, m, batch, k, w, ldw, x, ldx, y, m};   // Y = W X
  return {l.x_row ? N : T, l.w_row ? N : T, batch, m, k, x, ldx, w, ldw, y, batch};            // Y^T = X^T W^T
}

// The cublasLt descriptors of one GEMM shape in pedantic fp32 (CUBLAS_COMPUTE_32F_PEDANTIC: no TF32), freed with it.
struct LtMatmul {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  LtMatmul() = default;
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;
  ~LtMatmul() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    for (cublasLtMatrixLayout_t d : {a, b, c})
      if (d) cublasLtMatrixLayoutDestroy(d);
    if (op) cublasLtMatmulDescDestroy(op);
  }
  // Describes g's shape (its pointers are not read); the first failing status, if any.
  cublasStatus_t create(const GemmOperands& g, std::size_t workspace_bytes) {
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    auto ok = [&](cublasStatus_t s) {
      if (st == CUBLAS_STATUS_SUCCESS) st = s;
      return st == CUBLAS_STATUS_SUCCESS;
    };
    const bool ta = g.op_a == CUBLAS_OP_T, tb = g.op_b == CUBLAS_OP_T;
    const std::uint64_t ws = workspace_bytes;
    (void)(ok(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F_PEDANTIC, CUDA_R_32F)) &&
        ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &g.op_a, sizeof g.op_a)) &&
        ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &g.op_b, sizeof g.op_b)) &&
        ok(cublasLtMatrixLayoutCreate(&a, CUDA_R_32F, ta ? g.inner : g.rows, ta ? g.rows : g.inner, g.lda)) &&
        ok(cublasLtMatrixLayoutCreate(&b, CUDA_R_32F, tb ? g.cols : g.inner, tb ? g.inner : g.cols, g.ldb)) &&
        ok(cublasLtMatrixLayoutCreate(&c, CUDA_R_32F, g.rows, g.cols, g.ldc)) && ok(cublasLtMatmulPreferenceCreate(&pref)) &&
        ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws)));
    return st;
  }
};

struct DenseLibs {
  cublasHandle_t blas = nullptr;   // in CUBLAS_PEDANTIC_MATH
  cublasLtHandle_t lt = nullptr;
  void* lt_workspace = nullptr;
  std::size_t lt_workspace_bytes = 0;
};
// Algorithms asked of cublasLtMatmulAlgoGetHeuristic per layout (each that it returns is timed).
constexpr int kLtAlgos = 8;

// One dense call computing Y = W X for one batch: `run` takes W lying as layout.w_row says and writes Y as
// layout.y_row says (X is bound at construction in its layout). `api`: sgemm, sgemv (batch 1) or lt.
struct DenseCall {
  std::string api, name;
  DenseLayout layout;
  std::function<cublasStatus_t(const float* w, float* y)> run;
};

// Every dense call of Y = W X at this batch (W M x M): cublasSgemm in each layout, cublasSgemv at batch 1 (W row or
// col; X and Y are vectors), and cublasLtMatmul in each layout with each algorithm its heuristic returns for the
// workspace. A layout whose descriptors or heuristic fail adds a line to `failures` and no call.
std::vector<DenseCall> dense_calls(const DenseLibs& libs, int m, int batch, const float* x_row, const float* x_col,
                                   std::vector<std::string>& failures) {
  static const float kOne = 1.0f, kZero = 0.0f;
  std::vector<DenseCall> calls;
  for (const DenseLayout& l : kDenseLayouts) {
    const float* x = l.x_row ? x_row : x_col;
    calls.push_back({"sgemm", "sgemm(" + l.name() + ")", l, [=](const float* w, float* y) {
                       const GemmOperands g = gemm_operands(l, m, m, batch, w, x, y);
                       return cublasSgemm(libs.blas, g.op_a, g.op_b, g.rows, g.cols, g.inner, &kOne, g.a, g.lda, g.b,
                                          g.ldb, &kZero, g.c, g.ldc);
                     }});
  }
  if (batch == 1)
    for (bool w_row : {true, false}) {
      const DenseLayout l{w_row, true, true};
      calls.push_back({"sgemv", std::string("sgemv(W ") + (w_row ? "row" : "col") + ")", l, [=](const float* w, float* y) {
                         return cublasSgemv(libs.blas, w_row ? CUBLAS_OP_T : CUBLAS_OP_N, m, m, &kOne, w, m, x_row, 1,
                                            &kZero, y, 1);
                       }});
    }
  for (const DenseLayout& l : kDenseLayouts) {
    const float* x = l.x_row ? x_row : x_col;
    auto lt = std::make_shared<LtMatmul>();
    cublasStatus_t st = lt->create(gemm_operands(l, m, m, batch, nullptr, nullptr, nullptr), libs.lt_workspace_bytes);
    cublasLtMatmulHeuristicResult_t found[kLtAlgos] = {};
    int n_found = 0;
    if (st == CUBLAS_STATUS_SUCCESS)
      st = cublasLtMatmulAlgoGetHeuristic(libs.lt, lt->op, lt->a, lt->b, lt->c, lt->c, lt->pref, kLtAlgos, found, &n_found);
    if (st != CUBLAS_STATUS_SUCCESS || n_found == 0) {
      failures.push_back("lt(" + l.name() + ") (" +
                         (st != CUBLAS_STATUS_SUCCESS ? cublasGetStatusString(st) : "no algorithm") + ")");
      continue;
    }
    for (int i = 0; i < n_found; ++i) {
      // The algorithm named by the heuristic's rank (unique within the layout) and its configuration: id, tile,
      // stages and split-k (each a 32-bit attribute; -1 where it cannot be read).
      auto config = [&](cublasLtMatmulAlgoConfigAttributes_t what) {
        std::int32_t v = -1;
        std::size_t written = 0;
        return cublasLtMatmulAlgoConfigGetAttribute(&found[i].algo, what, &v, sizeof v, &written) == CUBLAS_STATUS_SUCCESS
                   ? v
                   : -1;
      };
      char name[192];
      std::snprintf(name, sizeof name, "lt(%s; #%d algo %d tile %d stages %d split-k %d)", l.name().c_str(), i,
                    config(CUBLASLT_ALGO_CONFIG_ID), config(CUBLASLT_ALGO_CONFIG_TILE_ID),
                    config(CUBLASLT_ALGO_CONFIG_STAGES_ID), config(CUBLASLT_ALGO_CONFIG_SPLITK_NUM));
      if (found[i].state != CUBLAS_STATUS_SUCCESS || found[i].workspaceSize > libs.lt_workspace_bytes) {
        failures.push_back(std::string(name) + " (" +
                           (found[i].state != CUBLAS_STATUS_SUCCESS ? cublasGetStatusString(found[i].state)
                                                                    : "needs more workspace") + ")");
        continue;
      }
      const cublasLtMatmulAlgo_t algo = found[i].algo;
      calls.push_back({"lt", name, l, [=](const float* w, float* y) {
                         const GemmOperands g = gemm_operands(l, m, m, batch, w, x, y);
                         return cublasLtMatmul(libs.lt, lt->op, &kOne, g.a, lt->a, g.b, lt->b, &kZero, g.c, lt->c, g.c,
                                               lt->c, &algo, libs.lt_workspace, libs.lt_workspace_bytes, nullptr);
                       }});
    }
  }
  return calls;
}

// ---- the limit ------------------------------------------------------------------------------------------------------
// The stream limit's bytes for a plan (bench_common.cuh's stream_bytes).
double stream_bytes(const snk::cuda::Plan& plan, int batch) {
  return snk::bench::stream_bytes(double(plan.nnz()), double(plan.rows()), double(plan.cols()), batch);
}
// The on-chip floor (ms): each non-zero's row of X (batch x 4 bytes) read once from shared memory or L1, at the
// shared-memory read bandwidth (GB/s; <= 0: not measured, -1).
double onchip_floor_ms(double nnz, int batch, double shared_gbs) {
  return shared_gbs > 0 ? nnz * batch * kValueBytes / (shared_gbs * 1e9) * 1e3 : -1.0;
}

void usage() {
  std::printf(
      "usage: spmm_bench [options]   (Y = W X, W M x M uniform random, against cuSPARSE, cuBLAS and Dense+Mask)\n"
      "  --sizes M,...          (default 4096,16384)\n"
      "  --batches B,...        (default 1,8,32,128)\n"
      "  --sparsities S,...     each in [0, 1) (default 0.90,0.95,0.99)\n"
      "  --reps N               timings per point, the median reported (default 20)\n"
      "  --out DIR              where the CSV and markdown go (default .)\n"
      "  --commit C             the commit the table names (default: the build's)\n"
      "  --sweep                also time every kernel's parameter candidates\n"
      "  --flush memset|read    how L2 is flushed before each timing (default memset)\n"
      "  --row-order auto|plain|balanced   the plans' row order (default auto)\n"
      "  --skip NAME,...        methods not to run\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes{4096, 16384}, batches{1, 8, 32, 128};
  std::vector<double> sparsities{0.90, 0.95, 0.99};
  std::string out_dir = ".", commit = SNACK_GIT_COMMIT;
  int reps = 20;
  bool sweep = false, child = false;
  int child_m = 0;
  double child_s = 0;
  std::set<std::string> skip;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "spmm_bench: missing value after %s (see --help)\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    auto list = [&](auto& out, const char* what) {
      const std::string v = next();
      if (!parse_list(v, out)) {
        std::fprintf(stderr, "spmm_bench: %s needs %s, not '%s'\n", a.c_str(), what, v.c_str());
        std::exit(2);
      }
    };
    if (a == "-h" || a == "--help") { usage(); return 0; }
    else if (a == "--sizes") list(sizes, "comma-separated whole numbers");
    else if (a == "--batches") list(batches, "comma-separated whole numbers");
    else if (a == "--sparsities") list(sparsities, "comma-separated numbers");
    else if (a == "--out") out_dir = next();
    else if (a == "--commit") commit = next();
    else if (a == "--reps") {
      std::vector<int> r;
      list(r, "a whole number");
      reps = r[0];
    }
    else if (a == "--sweep") sweep = true;
    else if (a == "--flush") {
      const std::string how = next();
      if (how != "read" && how != "memset") { std::fprintf(stderr, "--flush takes memset or read\n"); return 1; }
      g_read_flush = how == "read";
    }
    else if (a == "--row-order") {
      const std::string how = next();
      if (how != "auto" && how != "plain" && how != "balanced") {
        std::fprintf(stderr, "--row-order takes auto, plain or balanced\n");
        return 1;
      }
      g_row_order = how == "plain" ? snk::cuda::RowOrder::Plain
                    : how == "balanced" ? snk::cuda::RowOrder::Balanced : snk::cuda::RowOrder::Auto;
      g_row_order_name = how;
    }
    else if (a == "--skip") { std::stringstream ss(next()); std::string t; while (std::getline(ss, t, ',')) skip.insert(t); }
    else if (a == "--cusparse-child") { child = true; child_m = std::atoi(next().c_str()); child_s = std::atof(next().c_str()); }
    else { std::fprintf(stderr, "spmm_bench: unknown option %s (see --help)\n", a.c_str()); return 2; }
  }
  for (int m : sizes)
    if (m < 1) { std::fprintf(stderr, "spmm_bench: sizes must be positive\n"); return 2; }
  for (int b : batches)
    if (b < 1) { std::fprintf(stderr, "spmm_bench: batches must be positive\n"); return 2; }
  for (double sp : sparsities)
    if (!(sp >= 0 && sp < 1)) { std::fprintf(stderr, "spmm_bench: sparsities must lie in [0, 1)\n"); return 2; }
  if (reps < 1) { std::fprintf(stderr, "spmm_bench: --reps must be at least 1\n"); return 2; }
  if (child) return cusparse_child(child_m, child_s, batches, skip, reps);

  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 1;
  self[n] = 0;

  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  Timer timer;
  timer.reps = reps;
  timer.read_flush = g_read_flush;

  const double copy_gbs = snk::bench::copy_bandwidth_gbs();   // bytes read + written
  if (copy_gbs <= 0) {
    std::fprintf(stderr, "%s: could not measure the copy bandwidth\n", argv[0]);
    return 2;
  }

  // Shared-memory read bandwidth (all SMs, conflict-free 16-byte loads).
  double smem_gbs;
  {
    const int iters = 2048;
    float* out;
    CK(cudaMalloc(&out, sizeof(float) * 1024 * prop.multiProcessorCount));
    CK(cudaFuncSetAttribute(shared_read_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
    const double ms = timer.median([&] {
      shared_read_kernel<<<prop.multiProcessorCount, 1024, 65536>>>(iters, out);
      return cudaGetLastError() == cudaSuccess;
    });
    smem_gbs = ms > 0 ? 16.0 * 1024 * iters * prop.multiProcessorCount / (ms * 1e-3) / 1e9 : 0.0;
    cudaFree(out);
  }

  const std::string csv_path = out_dir + "/spmm.csv";
  FILE* csv = std::fopen(csv_path.c_str(), "w");
  if (!csv) { std::fprintf(stderr, "cannot write %s\n", csv_path.c_str()); return 1; }
  std::fprintf(csv, "m,sparsity,batch,method,ms,rel_err\n");
  std::fprintf(csv, "0,0,0,copy_gbs,%.1f,0\n", copy_gbs);
  std::fprintf(csv, "0,0,0,shared_gbs,%.1f,0\n", smem_gbs);

  DenseLibs dense;
  if (cublasCreate(&dense.blas) != CUBLAS_STATUS_SUCCESS ||
      cublasSetMathMode(dense.blas, CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cuBLAS: no handle in pedantic math\n");
    return 1;
  }
  if (cublasLtCreate(&dense.lt) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasLt: no handle\n");
    return 1;
  }
  dense.lt_workspace_bytes = std::size_t(32) << 20;
  CK(cudaMalloc(&dense.lt_workspace, dense.lt_workspace_bytes));

  struct Row {
    int m, batch;
    double sparsity, min_bytes, nnz;
    double stream_ms = -1, floor_ms = -1, limit_ms = -1;   // ms: stream_bytes streamed, the on-chip floor, the larger
    std::map<std::string, double> ms, err;
    std::string dispatched, cusparse_alg, cusparse_fail, best_cb;
    std::string cublas_call, cublas_fail;                   // the fastest dense call (ms["cublas"]); failed ones
    std::map<std::string, std::pair<std::string, double>> cublas_api_best;   // api -> its fastest call, ms
    double bound_ms() const {   // the dispatched call with values bound to the plan, where that reads its order
      auto it = ms.find("dispatched_bound");
      return it == ms.end() ? -1.0 : it->second;
    }
    // The call measured against the limit: the dispatched one with values bound where that runs, else unbound.
    double limit_subject_ms() const {
      const double b = bound_ms();
      if (b > 0) return b;
      auto it = ms.find("dispatched");
      return it == ms.end() ? -1.0 : it->second;
    }
  };
  std::vector<Row> rows;
  std::string log;

  for (int m : sizes)
    for (double sp : sparsities) {
      Matrix a;
      generate(a, m, sp);
      snk::cuda::PlanOptions po;
      po.coo = true;
      auto t0 = std::chrono::steady_clock::now();
      auto plan = snk::cuda::Plan::create({a.rows, a.cols, a.nnz, a.row_ptr, a.col}, po);
      const double plan_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      // W's values bound to the plan (its bank-aware order for the batch-8 column-block kernel): the first bind
      // builds the order, a second one only gathers the values (what a caller pays when they change).
      double bind_s = -1, rebind_ms = -1;
      {
        std::string why;
        auto b0 = std::chrono::steady_clock::now();
        if (plan->bind_values(a.val, snk::cuda::ValueType::FP32, nullptr, &why) == snk::cuda::Status::Success &&
            cudaDeviceSynchronize() == cudaSuccess) {
          bind_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
          rebind_ms = timer.median([&] {
            return plan->bind_values(a.val, snk::cuda::ValueType::FP32) == snk::cuda::Status::Success;
          });
        } else {
          std::fprintf(stderr, "[%d %.2f] bind_values: %s\n", m, sp, why.c_str());
        }
      }
      std::fprintf(stderr, "[%d %.2f] nnz %lld, plan %.2f s, bind %.2f s (again: %.4f ms)\n", m, sp, (long long)a.nnz,
                   plan_s, bind_s, rebind_ms);
      std::fprintf(csv, "%d,%.2f,0,bind_s,%.6f,0\n%d,%.2f,0,rebind_ms,%.6f,0\n", m, sp, bind_s, m, sp, rebind_ms);
      // Dense W and its mask in both storage orders (the dense calls take either), and Dense+Mask's masked W.
      float *w_row, *w_col, *mask_row, *mask_col, *wm;
      const std::size_t mm = std::size_t(m) * m;
      for (float** p : {&w_row, &w_col, &mask_row, &mask_col}) {
        CK(cudaMalloc(p, mm * 4));
        CK(cudaMemset(*p, 0, mm * 4));
      }
      CK(cudaMalloc(&wm, mm * 4));
      scatter_dense_kernel<<<(m + 7) / 8, 256>>>(m, m, a.row_ptr, a.col, a.val, w_row, mask_row, w_col, mask_col);
      CK(cudaGetLastError());
      auto dense_w = [&](const DenseLayout& l) { return l.w_row ? w_row : w_col; };
      auto dense_mask = [&](const DenseLayout& l) { return l.w_row ? mask_row : mask_col; };
      auto sparse = run_cusparse(self, m, sp, batches, reps, csv, log);
      for (int batch : batches) {
        Row row;
        row.m = m;
        row.batch = batch;
        row.sparsity = sp;
        row.min_bytes = double(a.nnz) * 8 + double(m + 1) * 4 + 2.0 * m * batch * 4;
        row.nnz = double(a.nnz);
        row.stream_ms = stream_ms(stream_bytes(*plan, batch), copy_gbs);
        row.floor_ms = onchip_floor_ms(row.nnz, batch, smem_gbs);
        row.limit_ms = std::max(row.stream_ms, row.floor_ms);
        std::fprintf(csv, "%d,%.2f,%d,limit,%.6f,0\n", m, sp, batch, row.limit_ms);
        float *x, *xb, *y, *yref;
        const std::size_t nb = std::size_t(m) * batch;
        CK(cudaMalloc(&x, nb * 4));
        CK(cudaMalloc(&xb, nb * 4));
        CK(cudaMalloc(&y, nb * 4));
        CK(cudaMalloc(&yref, nb * 4));
        fill_x_kernel<<<1024, 256>>>(m, batch, 777u + batch, x, xb);
        CK(cudaGetLastError());
        std::vector<std::string> dense_failures;
        const std::vector<DenseCall> calls = dense_calls(dense, m, batch, x, xb, dense_failures);
        // The reference of every error check: the first dense call that runs (kDenseLayouts' first where it does),
        // else the project's deterministic row-segment kernel.
        std::vector<float> ref;
        for (const DenseCall& c : calls) {
          if (c.run(dense_w(c.layout), yref) != CUBLAS_STATUS_SUCCESS || cudaDeviceSynchronize() != cudaSuccess) {
            cudaGetLastError();
            continue;
          }
          ref = fetch(yref, nb);
          if (!c.layout.y_row) ref = from_batch_major(ref, m, batch);
          break;
        }
        if (ref.empty()) {
          snk::cuda::SpmmArgs s;
          s.values = a.val;
          s.x = {x, batch, Layout::RowMajor};
          s.y = {yref, batch, Layout::RowMajor};
          s.batch = batch;
          s.kernel = Kernel::RowSegment;
          s.deterministic = true;
          if (snk::cuda::spmm(*plan, s) != snk::cuda::Status::Success) {
            std::fprintf(stderr, "[%d %.2f b%d] no reference: neither a dense call nor row_segment ran\n", m, sp, batch);
            return 2;
          }
          CK(cudaDeviceSynchronize());
          ref = fetch(yref, nb);
          log += "M=" + std::to_string(m) + " " + std::to_string(sp) + " batch " + std::to_string(batch) +
                 ": no dense call ran; errors checked against row_segment\n";
        }
        auto record = [&](const std::string& name, double ms, bool batch_major_out = false) {
          double err = INFINITY;
          if (ms >= 0) {
            std::vector<float> got = fetch(y, nb);
            if (batch_major_out) got = from_batch_major(got, m, batch);
            err = rel_error(got, ref);
          }
          row.ms[name] = ms;
          row.err[name] = err;
          std::fprintf(csv, "%d,%.2f,%d,%s,%.6f,%.3e\n", m, sp, batch, name.c_str(), ms, err);
          std::fflush(csv);
          return err;
        };
        // Every dense call, each recorded as cublas:<call>; the fastest with a correct result is the point's cuBLAS
        // (ms["cublas"]), and Dense+Mask is that call on W .* mask, the mask applied in the call's W layout.
        const DenseCall* best = nullptr;
        for (const DenseCall& c : calls) {
          CK(cudaMemset(y, 0xff, nb * 4));
          cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
          const double ms = timer.median([&] { return (st = c.run(dense_w(c.layout), y)) == CUBLAS_STATUS_SUCCESS; });
          const double err = record("cublas:" + c.name, ms, !c.layout.y_row);
          if (ms < 0) {
            const cudaError_t ce = cudaGetLastError();
            dense_failures.push_back(
                c.name + " (" + (st != CUBLAS_STATUS_SUCCESS ? cublasGetStatusString(st) : cudaGetErrorString(ce)) + ")");
            continue;
          }
          if (err >= 1e-4) {
            char e[48];
            std::snprintf(e, sizeof e, " (relative error %.1e)", err);
            dense_failures.push_back(c.name + e);
            continue;
          }
          if (!best || ms < row.ms["cublas"]) {
            best = &c;
            row.ms["cublas"] = ms;
            row.err["cublas"] = err;
          }
          auto& api_best = row.cublas_api_best[c.api];
          if (api_best.first.empty() || ms < api_best.second) api_best = {c.name, ms};
        }
        for (const std::string& f : dense_failures) {
          row.cublas_fail += (row.cublas_fail.empty() ? "" : "; ") + f;
          log += "cublas " + std::to_string(m) + "/" + std::to_string(sp) + " batch " + std::to_string(batch) + " " + f +
                 "\n";
        }
        const int n4 = static_cast<int>(std::min<std::size_t>(65535, (mm / 4 + 255) / 256));
        if (best) {
          row.cublas_call = best->name;
          CK(cudaMemset(y, 0xff, nb * 4));
          record("dense_mask",
                 timer.median([&] {
                   mask_multiply_kernel<<<n4, 256>>>(reinterpret_cast<float4*>(wm),
                                                     reinterpret_cast<const float4*>(dense_w(best->layout)),
                                                     reinterpret_cast<const float4*>(dense_mask(best->layout)), mm / 4);
                   return best->run(wm, y) == CUBLAS_STATUS_SUCCESS;
                 }),
                 !best->layout.y_row);
        } else {
          row.ms["cublas"] = row.ms["dense_mask"] = -1;
          row.cublas_call = "none ran";
        }
        auto ours = [&](Kernel k, const ColumnBlockConfig& cb, bool batch_major, bool det) {
          snk::cuda::SpmmArgs s;
          s.values = a.val;
          s.x = batch_major ? snk::cuda::Dense{xb, m, Layout::ColMajor} : snk::cuda::Dense{x, batch, Layout::RowMajor};
          s.y = batch_major ? snk::cuda::Dense{y, m, Layout::ColMajor} : snk::cuda::Dense{y, batch, Layout::RowMajor};
          s.batch = batch;
          s.kernel = k;
          s.column_block = cb;
          if (s.column_block.row_order == snk::cuda::RowOrder::Auto) s.column_block.row_order = g_row_order;
          s.deterministic = det;
          return s;
        };
        auto time_ours = [&](const snk::cuda::SpmmArgs& s) {
          CK(cudaMemset(y, 0xff, nb * 4));
          return timer.median([&] { return snk::cuda::spmm(*plan, s) == snk::cuda::Status::Success; });
        };
        {
          const auto s = ours(Kernel::SnackCoo, {}, true, false);
          cudaEvent_t e0, e1;
          CK(cudaEventCreate(&e0));
          CK(cudaEventCreate(&e1));
          CK(cudaEventRecord(e0));
          const bool ok = snk::cuda::spmm(*plan, s) == snk::cuda::Status::Success;
          CK(cudaEventRecord(e1));
          CK(cudaEventSynchronize(e1));
          float probe = 0;
          CK(cudaEventElapsedTime(&probe, e0, e1));
          cudaEventDestroy(e0);
          cudaEventDestroy(e1);
          const int saved_reps = timer.reps, saved_warmup = timer.warmup;
          if (ok && probe > 20.0f) {
            timer.reps = 3;
            timer.warmup = 1;
          }
          record("snack_coo", time_ours(s), true);
          timer.reps = saved_reps;
          timer.warmup = saved_warmup;
        }
        record("row_segment", time_ours(ours(Kernel::RowSegment, {}, false, true)));
        if (batch == 1)   // the batch-1 walks of the warp ranges, each forced (StreamWalk)
          for (auto [walk, name] : {std::pair{snk::cuda::StreamWalk::Items, "rs_items"},
                                    std::pair{snk::cuda::StreamWalk::Windows, "rs_windows"}}) {
            auto s = ours(Kernel::RowSegment, {}, false, true);
            s.stream_walk = walk;
            record(name, time_ours(s));
          }
        record("column_block", time_ours(ours(Kernel::ColumnBlock, {}, false, true)));
        record("row_batch_lanes", time_ours(ours(Kernel::RowSegmentBatchLanes, {}, false, true)));
        record("row_range", time_ours(ours(Kernel::RowRange, {}, false, true)));
        if (batch > 1 && batch <= 32)
          for (int slabs : {1, 2, 4, 8}) {
            auto s = ours(Kernel::RowRange, {}, false, true);
            s.slabs = slabs;
            record("rr_s" + std::to_string(slabs), time_ours(s));
          }
        if (batch > 32) {
          auto s = ours(Kernel::RowSegmentBatchLanes, {}, false, true);
          s.batch_tile = 32;
          record("row_batch_lanes_bt32", time_ours(s));
        }
        {
          auto s = ours(Kernel::Auto, {}, false, false);
          row.dispatched = snk::cuda::choose(*plan, s).describe();
          record("dispatched", time_ours(s));
        }
        if (plan->has_bound_values()) {   // the same call with the values bound: where the choice reads the bound order
          auto s = ours(Kernel::Auto, {}, false, false);
          s.values_bound = true;
          const snk::cuda::Choice bound = snk::cuda::choose(*plan, s);
          if (bound.bound_order) record("dispatched_bound", time_ours(s));
          // The same call at batch tile 32 in thread blocks of each count (the lanes_threads rule's measurements),
          // and at each batch tile up to batch 48 (the lanes_tile rule's).
          if (bound.kernel == Kernel::RowLanes && bound.batch_tile == 32)
            for (int threads : {768, 1024}) {
              s.lanes_threads = threads;
              record("rl_t" + std::to_string(threads), time_ours(s));
            }
          s.lanes_threads = 0;
          if (bound.kernel == Kernel::RowLanes && batch <= 48)
            for (int bt : {8, 16, 24, 32}) {
              s.batch_tile = bt;
              record("rl_bt" + std::to_string(bt), time_ours(s));
            }
        }
        if (sweep && batch > 1) {
          double best = -1;
          const int saved_reps = timer.reps;
          timer.reps = std::max(5, reps / 2);   // the sweep only ranks configurations
          const int bt = batch <= 8 ? 8 : batch <= 32 ? 32 : 128;
          // Batch tiles 32 and 128 keep their rows' sums in registers (rows per block fixed at 128, and
          // 32 KB of (value, offset) pairs); batch tile 8 keeps them in shared memory.
          const bool wide = bt != 8;
          for (int cols : {64, 128, 256, 512, 1024, 2048, 4096})
            for (int rpc : {128, 256, 512, 1024, 2048})
              for (int splits : {0, 1, 2, 4, 8}) {
                  if (wide ? rpc != 128 : cols < 1024) continue;
                  ColumnBlockConfig c{bt, cols, rpc, splits};
                  const std::size_t smem = std::size_t(2) * cols * bt * 4 + (wide ? 32 * 1024 : std::size_t(rpc) * bt * 4);
                  if (smem > 200 * 1024) continue;
                  const double ms = time_ours(ours(Kernel::ColumnBlock, c, false, true));
                  char name[96];
                  std::snprintf(name, sizeof name, "cb_bt%d_c%d_r%d_s%d", bt, cols, rpc, splits);
                  const double err = record(name, ms);
                  if (ms > 0 && err < 1e-4 && (best < 0 || ms < best)) {
                    best = ms;
                    row.best_cb = name;
                  }
                }
          timer.reps = saved_reps;
        }
        const SparseResult& sr = sparse[batch];
        row.ms["cusparse"] = sr.ms;
        row.err["cusparse"] = sr.err;
        row.cusparse_alg = sr.alg;
        for (auto& f : sr.failures) row.cusparse_fail += (row.cusparse_fail.empty() ? "" : "; ") + f;
        rows.push_back(row);
        std::fprintf(stderr, "[%d %.2f b%d] disp %.4f (%s) rr %.4f (s1 %.4f s4 %.4f) bl %.4f cb %.4f rs %.4f coo %.4f | cusparse %.4f (%s) cublas %.4f (%s) dm %.4f %s | limit %.4f\n", m,
                     sp, batch, row.ms["dispatched"], row.dispatched.c_str(), row.ms["row_range"], row.ms.count("rr_s1") ? row.ms["rr_s1"] : -1.0,
                     row.ms.count("rr_s4") ? row.ms["rr_s4"] : -1.0, row.ms["row_batch_lanes"],
                     row.ms["column_block"], row.ms["row_segment"],
                     row.ms["snack_coo"], row.ms["cusparse"], row.cusparse_alg.c_str(), row.ms["cublas"], row.cublas_call.c_str(),
                     row.ms["dense_mask"], row.best_cb.c_str(), row.limit_ms);
        cudaFree(x);
        cudaFree(xb);
        cudaFree(y);
        cudaFree(yref);
      }
      for (float* p : {w_row, w_col, mask_row, mask_col, wm}) cudaFree(p);
    }
  std::fclose(csv);

  // Markdown.
  std::ostringstream md;
  md << "# SpMM on " << prop.name << ": snack kernels vs cuSPARSE, cuBLAS and Dense+Mask\n\n";
  md << "Date " << date << ", commit `" << commit << "`, CUDA runtime " << CUDART_VERSION << ", " << prop.multiProcessorCount
     << " SMs. Device-to-device copy bandwidth measured in this run: **" << static_cast<int>(copy_gbs)
     << " GB/s**; shared-memory read bandwidth (all SMs, conflict-free 16-byte loads): **" << static_cast<int>(smem_gbs)
     << " GB/s**.\n\n";
  md << "Y = W X, fp32, W M x M with a uniform random pattern, X M x batch. Times are medians of " << reps
     << " CUDA-event timings after warm-up, L2 flushed before each (" << (g_read_flush ? "by reading a 256 MB buffer" : "by a 256 MB memset")
     << ")"
     << (g_row_order == snk::cuda::RowOrder::Auto
             ? std::string()
             : "; column-block rows in " + g_row_order_name + " order (--row-order " + g_row_order_name + ")")
     << ". `disp` = the dispatcher's choice "
        "(Kernel::Auto); `eff BW` = (nnz x 8 + (M+1) x 4 + X + Y bytes) / time of `disp`, as a % of the copy "
        "bandwidth (the snack kernels move 6 bytes per non-zero, so this can pass 100%). Ratios are the other "
        "method's time over `disp` (> 1: disp is faster). `on-chip floor` = nnz x batch x 4 bytes over the "
        "shared-memory read bandwidth: the least time in which any kernel that brings each non-zero's row of X into "
        "registers from shared memory or L1 (one data pipe) can run. `disp, bound values` = the same call with W's "
        "values bound to the plan beforehand (Plan::bind_values: batch 2-128 runs the lanes-across-rows kernel, "
        "row_lanes, on the plan's interleaved row-group order where the dispatcher's rule takes it, else batch 2-8 "
        "the column-block kernel on its bank-aware order; `-` where neither runs). `limit` = the larger of the "
        "stream time ((nnz x 6 bytes, W's 16-bit packed column and fp32 value per non-zero, + (M+1) x 4 + X + Y "
        "bytes) over the copy bandwidth) and the on-chip floor; the word after it says which; `x limit` = `disp, "
        "bound values` where that runs, else `disp`, over the limit. `best cuBLAS` = the fastest correct dense fp32 "
        "call in pedantic math (no TF32) among cublasSgemm in every layout, cublasSgemv at batch 1 and "
        "cublasLtMatmul (CUBLAS_COMPUTE_32F_PEDANTIC, " << (dense.lt_workspace_bytes >> 20)
     << " MiB workspace) in every layout with each of its heuristic's top " << kLtAlgos
     << " algorithms; a layout names how W (M x K), X (K x batch) and Y (M x batch) lie (row = row-major, col = "
        "column-major; the snack kernels take X and Y row-major); `Dense+Mask` = W .* mask (fp32 mask, in the same W "
        "layout) then that same call. Every output was checked against the first dense call that ran (sgemm(W row; "
        "X row; Y row) where it runs; max relative error in the last column).\n\n";
  md << "| M | sparsity | batch | SNACK-COO ms | row_segment ms | column_block ms | row_batch_lanes ms | row_range ms | disp ms (kernel) | eff BW | disp, bound values ms (eff BW) | on-chip floor ms | limit ms | x limit | best cuSPARSE ms (alg) | "
        "best cuBLAS ms (call) | Dense+Mask ms | vs SNACK-COO | vs cuSPARSE | vs cuBLAS | vs D+M | max rel err |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  auto floor_ms = [](const Row& r) { return r.floor_ms; };
  auto f = [](double v) {
    char b[32];
    if (v < 0) return std::string("failed");
    std::snprintf(b, sizeof b, v < 0.1 ? "%.4f" : "%.3f", v);
    return std::string(b);
  };
  auto r2 = [](double a, double b) {
    char s[32];
    if (a <= 0 || b <= 0) return std::string("-");
    std::snprintf(s, sizeof s, "%.2fx", a / b);
    return std::string(s);
  };
  auto eff_bw = [&](const Row& r, double ms) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%%", ms > 0 ? 100.0 * (r.min_bytes / (ms * 1e-3) / 1e9) / copy_gbs : 0.0);
    return std::string(b);
  };
  auto bound_cell = [&](const Row& r) {
    const double b = r.bound_ms();
    return b > 0 ? f(b) + " (" + eff_bw(r, b) + ")" : std::string("-");
  };
  auto limit_cell = [&](const Row& r) {
    return r.limit_ms > 0 ? f(r.limit_ms) + (r.stream_ms >= r.floor_ms ? " stream" : " on-chip") : std::string("-");
  };
  for (auto& r : rows) {
    const double d = r.ms["dispatched"];
    double maxerr = 0;
    for (auto& [k, v] : r.err)
      if (k == "snack_coo" || k == "row_segment" || k == "column_block" || k == "row_batch_lanes" || k == "row_range" ||
          k == "dispatched" || k == "dispatched_bound" ||
          k == "cublas" || k == "dense_mask" || k == "cusparse")
        if (r.ms[k] >= 0) maxerr = std::max(maxerr, v);
    md << "| " << r.m << " | " << static_cast<int>(std::lround(r.sparsity * 100)) << "% | " << r.batch << " | " << f(r.ms["snack_coo"])
       << " | " << f(r.ms["row_segment"]) << " | " << f(r.ms["column_block"]) << " | " << f(r.ms["row_batch_lanes"]) << " | "
       << f(r.ms["row_range"]) << " | " << f(d) << " (" << r.dispatched << ") | "
       << eff_bw(r, d) << " | " << bound_cell(r) << " | " << f(floor_ms(r)) << " | " << limit_cell(r) << " | "
       << r2(r.limit_subject_ms(), r.limit_ms) << " | " << f(r.ms["cusparse"]) << " (" << r.cusparse_alg << ") | "
       << f(r.ms["cublas"]) << " (" << r.cublas_call << ") | "
       << f(r.ms["dense_mask"]) << " | " << r2(r.ms["snack_coo"], d) << " | " << r2(r.ms["cusparse"], d) << " | "
       << r2(r.ms["cublas"], d) << " | " << r2(r.ms["dense_mask"], d) << " | ";
    char e[32];
    std::snprintf(e, sizeof e, "%.1e", maxerr);
    md << e << " |\n";
  }
  // The SpMM targets (M = K = 16384; 90% unless said), each as the time it asks of `disp`.
  {
    std::ostringstream tg;
    auto find = [&](int m, double sp, int batch) -> Row* {
      for (auto& r : rows)
        if (r.m == m && std::fabs(r.sparsity - sp) < 1e-9 && r.batch == batch) return &r;
      return nullptr;
    };
    auto target_line = [&](const std::string& what, Row* r, double needed, const std::string& status) {
      const double b = r->bound_ms();
      tg << "| " << what << " | " << f(needed) << " | " << f(r->ms["dispatched"]) << " | "
         << (b > 0 ? f(b) : std::string("-")) << " | " << f(floor_ms(*r)) << " | " << status << " |\n";
    };
    // A target on `disp`, met by the call as dispatched or with the values bound.
    auto target = [&](const std::string& what, Row* r, double needed) {
      if (!r || needed <= 0) return;
      const double d = r->ms["dispatched"], fl = floor_ms(*r), b = r->bound_ms();
      const char* status = d > 0 && d <= needed   ? "met"
                           : b > 0 && b <= needed ? "met with bound values"
                           : fl > 0 && needed < fl ? "missed; below the on-chip floor"
                                                   : "missed";
      target_line(what, r, needed, status);
    };
    const struct { int batch; double cublas, dm, cusparse, bw; } goals[] = {
        {1, 4, 10, 1.2, 0.8}, {8, 5, 10, 5, 0.6}, {32, 5, 10, 5, 0.4}, {128, 2, 0, 0, 0}};
    for (auto& g : goals) {
      Row* r = find(16384, 0.9, g.batch);
      if (!r) continue;
      const std::string b = "batch " + std::to_string(g.batch);
      char x[96];
      std::snprintf(x, sizeof x, "%gx faster than the best cuBLAS, %s", g.cublas, b.c_str());
      target(x, r, r->ms["cublas"] / g.cublas);
      if (g.dm > 0) {
        std::snprintf(x, sizeof x, "%gx faster than Dense+Mask, %s", g.dm, b.c_str());
        target(x, r, r->ms["dense_mask"] / g.dm);
      }
      if (g.cusparse > 0) {
        std::snprintf(x, sizeof x, "%gx faster than the best cuSPARSE, %s", g.cusparse, b.c_str());
        target(x, r, r->ms["cusparse"] / g.cusparse);
      }
      if (g.bw > 0)
        for (double sp : {0.9, 0.95}) {
          Row* q = find(16384, sp, g.batch);
          if (!q) continue;
          std::snprintf(x, sizeof x, "%.0f%% of the copy bandwidth, %s, %.0f%%", 100 * g.bw, b.c_str(), 100 * sp);
          target(x, q, q->min_bytes / (g.bw * copy_gbs * 1e9) * 1e3);
        }
    }
    // Within kLimitFactor of the limit at every measured batch, 90% and 95%: the call of `x limit` (values bound
    // where the call allows).
    constexpr double kLimitFactor = 1.25;
    int limit_points = 0, limit_met = 0;
    const Row* limit_worst = nullptr;
    auto limit_ratio = [](const Row& r) { return r.limit_subject_ms() / r.limit_ms; };
    for (double sp : {0.9, 0.95})
      for (int batch : batches) {
        Row* r = find(16384, sp, batch);
        if (!r || r->limit_ms <= 0) continue;
        const double t = r->limit_subject_ms(), needed = kLimitFactor * r->limit_ms;
        const bool met = t > 0 && t <= needed;
        ++limit_points;
        limit_met += met;
        if (t > 0 && (!limit_worst || limit_ratio(*r) > limit_ratio(*limit_worst))) limit_worst = r;
        char x[128];
        std::snprintf(x, sizeof x, "within %gx of the limit (%s), batch %d, %.0f%%", kLimitFactor,
                      r->stream_ms >= r->floor_ms ? "stream" : "on-chip", batch, 100 * sp);
        target_line(x, r, needed, std::string(met ? "met" : "not met") + " (" + r2(t, r->limit_ms) + " the limit" +
                                      (r->bound_ms() > 0 ? ", values bound" : "") + ")");
      }
    if (!tg.str().empty())
      md << "\nTargets at M = K = 16384 (90% unless said), as the time each asks of `disp`:\n\n"
            "| target | needed ms | disp ms | disp, bound values ms | on-chip floor ms | |\n|---|---|---|---|---|---|\n"
         << tg.str();
    if (limit_points) {
      md << "\nWithin " << kLimitFactor << "x of the limit at M = K = 16384, 90% and 95% (`disp`, values bound where the "
            "call allows), at the batches measured (";
      for (std::size_t i = 0; i < batches.size(); ++i) md << (i ? ", " : "") << batches[i];
      md << "): " << (limit_met == limit_points ? "met" : "not met") << ", " << limit_met << " of " << limit_points
         << " points";
      if (limit_worst)
        md << "; the largest ratio " << r2(limit_worst->limit_subject_ms(), limit_worst->limit_ms) << " ("
           << static_cast<int>(std::lround(limit_worst->sparsity * 100)) << "%, batch " << limit_worst->batch << ")";
      md << ".\n";
    }
    int points = 0, slower = 0;
    double worst = 1e30;
    for (auto& r : rows) {
      const double d = r.ms["dispatched"];
      if (d <= 0) continue;
      ++points;
      bool s = false;
      for (const char* k : {"snack_coo", "cusparse", "cublas"}) {
        const double o = r.ms[k];
        if (o <= 0) continue;
        worst = std::min(worst, o / d);
        s = s || o < d;
      }
      slower += s;
    }
    if (points && worst < 1e29)   // (no comparison where those methods were skipped)
      md << "\nNever slower than SNACK-COO, the best cuSPARSE or cuBLAS: " << (points - slower) << " of " << points
         << " points (smallest ratio " << r2(worst, 1.0) << ").\n";
  }
  {
    const std::string kernels_layout = "sgemm(" + kDenseLayouts[0].name() + ")";
    md << "\nFastest dense call per API and point (every call's time in the CSV as cublas:<call>), and " << kernels_layout
       << ", the layout the snack kernels take:\n\n";
    for (auto& r : rows) {
      md << "- M=" << r.m << ", " << static_cast<int>(std::lround(r.sparsity * 100)) << "%, batch " << r.batch << ":";
      for (auto& [api, best] : r.cublas_api_best) md << " " << api << " " << f(best.second) << " " << best.first << ";";
      auto it = r.ms.find("cublas:" + kernels_layout);
      md << " " << kernels_layout << " " << (it == r.ms.end() ? std::string("-") : f(it->second)) << "\n";
    }
    bool any = false;
    for (auto& r : rows)
      if (!r.cublas_fail.empty()) {
        if (!any) md << "\nDense calls that failed or erred (guarded; not counted in the best):\n\n";
        any = true;
        md << "- M=" << r.m << ", " << static_cast<int>(std::lround(r.sparsity * 100)) << "%, batch " << r.batch << ": "
           << r.cublas_fail << "\n";
      }
  }
  bool any_fail = false;
  for (auto& r : rows)
    if (!r.cusparse_fail.empty()) {
      if (!any_fail) md << "\ncuSPARSE algorithms that failed (guarded; not counted in the best):\n\n";
      any_fail = true;
      md << "- M=" << r.m << ", " << static_cast<int>(std::lround(r.sparsity * 100)) << "%, batch " << r.batch << ": " << r.cusparse_fail << "\n";
    }
  {
    bool any = false;
    for (auto& r : rows)
      if (r.ms.count("rl_t768") && r.ms.count("rl_t1024")) {
        if (!any)
          md << "\nrow_lanes at batch tile 32 in thread blocks of 768 and 1024 threads (values bound, each count "
                "forced; `disp, bound values` runs the dispatcher's count, the `threads=` of its kernel):\n\n";
        any = true;
        md << "- M=" << r.m << ", " << static_cast<int>(std::lround(r.sparsity * 100)) << "%, batch " << r.batch
           << ": 768 " << f(r.ms["rl_t768"]) << " ms, 1024 " << f(r.ms["rl_t1024"]) << " ms\n";
      }
  }
  {
    bool any = false;
    for (auto& r : rows)
      if (r.ms.count("rl_bt8") && r.ms.count("rl_bt16") && r.ms.count("rl_bt24") && r.ms.count("rl_bt32")) {
        if (!any)
          md << "\nrow_lanes at each batch tile (values bound, the tile forced; a batch wider than the tile runs a tile "
                "per grid z, each streaming W; `disp, bound values` runs the dispatcher's tile):\n\n";
        any = true;
        md << "- M=" << r.m << ", " << static_cast<int>(std::lround(r.sparsity * 100)) << "%, batch " << r.batch
           << ": tile 8 " << f(r.ms["rl_bt8"]) << " ms, tile 16 " << f(r.ms["rl_bt16"]) << " ms, tile 24 "
           << f(r.ms["rl_bt24"]) << " ms, tile 32 " << f(r.ms["rl_bt32"]) << " ms\n";
      }
  }
  if (sweep) {
    md << "\nBest column_block configuration per point (sweep):\n\n";
    for (auto& r : rows)
      if (!r.best_cb.empty())
        md << "- M=" << r.m << ", " << static_cast<int>(std::lround(r.sparsity * 100)) << "%, batch " << r.batch << ": " << r.best_cb
           << " " << f(r.ms[r.best_cb]) << " ms\n";
  }
  const std::string text = md.str();
  std::fputs(text.c_str(), stdout);
  if (!log.empty()) std::fprintf(stderr, "%s", log.c_str());
  FILE* mdf = std::fopen((out_dir + "/spmm-" + snk::bench::device_tag(prop.name) + ".md").c_str(), "w");
  if (mdf) {
    std::fputs(text.c_str(), mdf);
    std::fclose(mdf);
  }
  cudaFree(dense.lt_workspace);
  cublasLtDestroy(dense.lt);
  cublasDestroy(dense.blas);
  return 0;
}
