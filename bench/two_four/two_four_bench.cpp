// bench/two_four/two_four_bench.cpp: the 2:4 GEMM (backends/cuda/two_four) against dense cuBLAS at the same
// precision, side by side in one run, on the square shapes M = K = batch and on layer shapes (M = K, batch 16 up).
//
// Y = W X with W M x K holding two non-zeros in every group of four (random values in [-1, 1], random positions), X
// K x batch, FP16 or BF16 inputs and output, FP32 accumulation. The project's kernel gets W in its compressed form
// (layers/two_four.hpp); cuBLAS gets the same W dense (its zeros stored) and runs cublasGemmEx with FP32 compute in
// all eight layouts that compute the product (W, X and Y each row- or column-major; the table names the fastest).
// Each kernel of the 2:4 table is also forced, so the dispatcher's choice can be judged. Times are medians of
// `reps` CUDA-event timings after a warm-up, each after a 256 MB memset that flushes the L2. Every point checks the
// 2:4 result against cuBLAS's (max |difference| over max |Y|). Prints a table with ratios, the device, date and
// commit; --csv writes every measurement for bench/two_four/report.py.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_commit.h"   // SNACK_GIT_COMMIT (bench/commit.cmake)
#include "two_four.hpp"
#include "two_four/two_four_gemm.hpp"

namespace {

using snk::cuda::TwoFourType;

#define CHECK_CUDA(x)                                                                                   \
  do {                                                                                                  \
    cudaError_t e_ = (x);                                                                               \
    if (e_ != cudaSuccess) {                                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));          \
      std::exit(1);                                                                                     \
    }                                                                                                   \
  } while (0)
#define CHECK_CUBLAS(x)                                                                                 \
  do {                                                                                                  \
    cublasStatus_t s_ = (x);                                                                            \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, int(s_));          \
      std::exit(1);                                                                                     \
    }                                                                                                   \
  } while (0)

// A batch of one size: a layer's (the list given) or the square's (batch = M = K).
struct Batch {
  long long n;
  bool square;
};

std::uint64_t g_state = 0x9e3779b97f4a7c15ull;
std::uint64_t next_random() {   // xorshift64*
  g_state ^= g_state >> 12;
  g_state ^= g_state << 25;
  g_state ^= g_state >> 27;
  return g_state * 0x2545f4914f6cdd1dull;
}

// Times `call` reps times (median, ms), each after flushing the L2.
struct Timer {
  void* flush = nullptr;
  size_t flush_bytes = 256u << 20;
  cudaEvent_t a, b;
  Timer() {
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
  }
  ~Timer() { cudaFree(flush); }
  template <class F>
  double median_ms(int reps, const F& call) {
    call();
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      CHECK_CUDA(cudaMemsetAsync(flush, r & 0xff, flush_bytes));
      CHECK_CUDA(cudaEventRecord(a));
      call();
      CHECK_CUDA(cudaEventRecord(b));
      CHECK_CUDA(cudaEventSynchronize(b));
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

struct Layout {
  bool w_row, x_row, y_row;   // row-major storage of W (M x K), X (K x batch), Y (M x batch)
  std::string name() const {
    return std::string("W ") + (w_row ? "row" : "col") + "; X " + (x_row ? "row" : "col") + "; Y " +
           (y_row ? "row" : "col");
  }
};

// One dense GEMM computing Y = W X in `l` through cublasGemmEx (column-major API). Y column-major: Y = op(W) op(X);
// Y row-major: Y^T = op(X)^T op(W)^T.
void dense_gemm(cublasHandle_t h, const Layout& l, cudaDataType_t t, const void* w, const void* x, void* y, int m,
                int k, int n) {
  const float one = 1.0f, zero = 0.0f;
  if (!l.y_row) {
    // W as stored: row-major M x K is column-major K x M (op T); X row-major K x n is column-major n x K (op T).
    CHECK_CUBLAS(cublasGemmEx(h, l.w_row ? CUBLAS_OP_T : CUBLAS_OP_N, l.x_row ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k,
                              &one, w, t, l.w_row ? k : m, x, t, l.x_row ? n : k, &zero, y, t, m, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
  } else {
    // Y^T (n x m column-major) = X^T W^T.
    CHECK_CUBLAS(cublasGemmEx(h, l.x_row ? CUBLAS_OP_N : CUBLAS_OP_T, l.w_row ? CUBLAS_OP_N : CUBLAS_OP_T, n, m, k,
                              &one, x, t, l.x_row ? n : k, w, t, l.w_row ? k : m, &zero, y, t, n, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long long> sizes = {4096, 8192, 16384}, batches = {16, 32, 64, 128, 256, 1024};
  std::vector<TwoFourType> types = {TwoFourType::FP16, TwoFourType::BF16};
  int reps = 10;
  std::string csv_path, only, commit = SNACK_GIT_COMMIT;
  auto list = [](const std::string& s) {
    std::vector<long long> v;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) v.push_back(std::stoll(item));
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--sizes") sizes = list(next());
    else if (a == "--batches") batches = list(next());
    else if (a == "--reps") reps = std::stoi(next());
    else if (a == "--csv") csv_path = next();
    else if (a == "--only") only = next();   // time this 2:4 kernel alone (for a profiler), nothing else
    else if (a == "--types") {
      const std::string t = next();
      types.clear();
      if (t.find("fp16") != std::string::npos) types.push_back(TwoFourType::FP16);
      if (t.find("bf16") != std::string::npos) types.push_back(TwoFourType::BF16);
    } else {
      std::fprintf(stderr,
                   "usage: two_four_bench [--sizes 4096,8192,16384] [--batches 16,32,...] [--types fp16,bf16] "
                   "[--reps N] [--csv FILE] [--only KERNEL]\n");
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "two_four_bench: no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const std::string date = now_utc();
  std::printf("# 2:4 GEMM vs dense cuBLAS: device=%s date=%s commit=%s reps=%d\n", prop.name, date.c_str(),
              commit.c_str(), reps);

  cublasHandle_t h;
  CHECK_CUBLAS(cublasCreate(&h));
  CHECK_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  Timer timer;
  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path);
    csv << "device,date,commit,type,shape,m,k,batch,method,config,ms,tflops,max_rel_diff\n";
  }
  std::printf("%-5s %-6s %6s %6s %6s | %9s %-18s %9s %-20s | %7s %7s | %9s\n", "type", "shape", "M", "K", "batch",
              "2:4 ms", "2:4 kernel", "cuBLAS ms", "cuBLAS layout", "vs cuBL", "TFLOPS", "max diff");
  for (TwoFourType type : types) {
    const snk::layers::HalfType ht =
        type == TwoFourType::FP16 ? snk::layers::HalfType::FP16 : snk::layers::HalfType::BF16;
    const cudaDataType_t dt = type == TwoFourType::FP16 ? CUDA_R_16F : CUDA_R_16BF;
    const char* tname = type == TwoFourType::FP16 ? "fp16" : "bf16";
    // 64 values in [-1, 1] in the type, to draw from.
    std::uint16_t pool[64];
    for (int i = 0; i < 64; ++i) pool[i] = snk::layers::to_half(-1.0f + 2.0f * (i + 0.5f) / 64.0f, ht);
    static const std::uint32_t codes[6] = {0x4, 0x8, 0xc, 0x9, 0xd, 0xe};   // (first, second): 01 02 03 12 13 23
    for (long long size : sizes) {
      const long long m = size, k = size;
      // W compressed (K is a multiple of 32 here), and dense for cuBLAS in both storage orders.
      std::vector<std::uint16_t> values(m * k / 2), wdense_row(m * k, 0);
      std::vector<std::uint32_t> meta(m * k / 32, 0);
      for (long long i = 0; i < m; ++i)
        for (long long g = 0; g < k / 4; ++g) {
          const std::uint32_t code = codes[next_random() % 6];
          const std::uint16_t v0 = pool[next_random() & 63], v1 = pool[next_random() & 63];
          values[i * (k / 2) + 2 * g] = v0;
          values[i * (k / 2) + 2 * g + 1] = v1;
          meta[i * (k / 32) + g / 8] |= code << ((g % 8) * 4);
          wdense_row[i * k + 4 * g + (code & 3)] = v0;
          wdense_row[i * k + 4 * g + (code >> 2)] = v1;
        }
      std::uint16_t *d_values, *d_wrow, *d_wcol;
      std::uint32_t* d_meta;
      CHECK_CUDA(cudaMalloc(&d_values, values.size() * 2));
      CHECK_CUDA(cudaMalloc(&d_meta, meta.size() * 4));
      CHECK_CUDA(cudaMalloc(&d_wrow, m * k * 2));
      CHECK_CUDA(cudaMalloc(&d_wcol, m * k * 2));
      CHECK_CUDA(cudaMemcpy(d_values, values.data(), values.size() * 2, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(d_meta, meta.data(), meta.size() * 4, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(d_wrow, wdense_row.data(), m * k * 2, cudaMemcpyHostToDevice));
      {
        std::vector<std::uint16_t> t(m * k);
        for (long long i = 0; i < m; ++i)
          for (long long j = 0; j < k; ++j) t[j * m + i] = wdense_row[i * k + j];
        CHECK_CUDA(cudaMemcpy(d_wcol, t.data(), m * k * 2, cudaMemcpyHostToDevice));
      }
      std::vector<Batch> runs;
      for (long long b : batches) runs.push_back({b, false});
      runs.push_back({m, true});
      for (const Batch& s : runs) {
        const long long n = s.n;
        const double flops = 2.0 * m * k * n;
        // One CSV row: the run's columns, then the method's (diff: none for cuBLAS, the reference).
        auto csv_row = [&](const char* method, const std::string& config, double ms, const double* diff) {
          if (!csv.is_open()) return;
          csv << prop.name << "," << date << "," << commit << "," << tname << "," << (s.square ? "square" : "layer")
              << "," << m << "," << k << "," << n << "," << method << "," << config << "," << ms << ","
              << flops / ms * 1e-9 << ",";
          if (diff) csv << *diff;
          csv << "\n";
        };
        std::vector<std::uint16_t> xh(k * n);
        for (auto& v : xh) v = pool[next_random() & 63];
        std::uint16_t *d_x, *d_xrow, *d_y, *d_yref;
        CHECK_CUDA(cudaMalloc(&d_x, k * n * 2));
        CHECK_CUDA(cudaMalloc(&d_xrow, k * n * 2));
        CHECK_CUDA(cudaMalloc(&d_y, m * n * 2));
        CHECK_CUDA(cudaMalloc(&d_yref, m * n * 2));
        CHECK_CUDA(cudaMemcpy(d_x, xh.data(), k * n * 2, cudaMemcpyHostToDevice));
        {
          std::vector<std::uint16_t> u(k * n);
          for (long long b = 0; b < n; ++b)
            for (long long j = 0; j < k; ++j) u[j * n + b] = xh[b * k + j];
          CHECK_CUDA(cudaMemcpy(d_xrow, u.data(), k * n * 2, cudaMemcpyHostToDevice));
        }

        // Dense cuBLAS, every layout; Y column-major layouts give the reference result.
        double best_dense = 1e30;
        std::string best_layout;
        for (int code = 0; code < 8 && only.empty(); ++code) {
          const Layout l{(code & 1) != 0, (code & 2) != 0, (code & 4) != 0};
          const void* w = l.w_row ? d_wrow : d_wcol;
          const void* x = l.x_row ? d_xrow : d_x;
          const double ms = timer.median_ms(reps, [&] { dense_gemm(h, l, dt, w, x, d_yref, m, k, n); });
          csv_row("cublas", l.name(), ms, nullptr);
          if (ms < best_dense) {
            best_dense = ms;
            best_layout = l.name();
          }
        }
        dense_gemm(h, Layout{true, false, false}, dt, d_wrow, d_x, d_yref, m, k, n);   // reference: Y column-major

        snk::cuda::TwoFourProblem p;
        p.w = {d_values, d_meta, m, k, type};
        p.x = d_x;
        p.ldx = k;
        p.batch = n;
        p.y = d_y;
        p.ldy = m;
        auto run = [&](const std::string& kernel, snk::cuda::TwoFourLaunch* out,
                       snk::cuda::TwoFourSum sum = snk::cuda::TwoFourSum::Auto) {
          CHECK_CUDA(snk::cuda::two_four_gemm(p, nullptr, kernel, 0, out, sum));
        };
        // The max difference between the 2:4 result and cuBLAS's, over max |Y|.
        auto difference = [&]() {
          std::vector<std::uint16_t> a(m * n), b(m * n);
          CHECK_CUDA(cudaMemcpy(a.data(), d_y, m * n * 2, cudaMemcpyDeviceToHost));
          CHECK_CUDA(cudaMemcpy(b.data(), d_yref, m * n * 2, cudaMemcpyDeviceToHost));
          double diff = 0, big = 0;
          for (long long i = 0; i < m * n; ++i) {
            const double u = snk::layers::from_half(a[i], ht), v = snk::layers::from_half(b[i], ht);
            diff = std::max(diff, std::isnan(u) ? INFINITY : std::fabs(u - v));
            big = std::max(big, std::fabs(v));
          }
          return big > 0 ? diff / big : diff;
        };
        for (const snk::cuda::TwoFourKernel& kern : snk::cuda::two_four_kernels()) {
          if ((!only.empty() && only != kern.name) || !kern.supports(p)) continue;
          snk::cuda::TwoFourLaunch ran;
          const double ms = timer.median_ms(reps, [&] { run(kern.name, &ran); });
          CHECK_CUDA(cudaMemset(d_y, 0xff, m * n * 2));
          run(kern.name, nullptr);
          const double diff = difference();
          csv_row("two_four_forced", std::string(kern.name) + " splits=" + std::to_string(ran.splits), ms,
                  &diff);
        }
        if (!only.empty()) {
          for (void* ptr : {(void*)d_x, (void*)d_xrow, (void*)d_y, (void*)d_yref}) CHECK_CUDA(cudaFree(ptr));
          continue;
        }
        snk::cuda::TwoFourLaunch chosen;
        const double ms = timer.median_ms(reps, [&] { run("", &chosen); });
        CHECK_CUDA(cudaMemset(d_y, 0xff, m * n * 2));
        run("", nullptr);
        const double diff = difference();
        const std::string config =
            chosen.kernel + " splits=" + std::to_string(chosen.splits) + (chosen.cluster_sum ? " cluster" : "");
        csv_row("two_four", config, ms, &diff);
        std::printf("%-5s %-6s %6lld %6lld %6lld | %9.4f %-18s %9.4f %-20s | %6.2fx %7.1f | %9.2e\n", tname,
                    s.square ? "square" : "layer", m, k, n, ms, config.c_str(), best_dense, best_layout.c_str(),
                    best_dense / ms, flops / ms * 1e-9, diff);
        if (chosen.splits > 1) {   // the same split summed the other way, where both can run
          const bool cluster = !chosen.cluster_sum;
          const snk::cuda::TwoFourSum other = cluster ? snk::cuda::TwoFourSum::Cluster : snk::cuda::TwoFourSum::Parts;
          if (snk::cuda::two_four_gemm(p, nullptr, chosen.kernel, chosen.splits, nullptr, other) == cudaSuccess) {
            const double other_ms = timer.median_ms(reps, [&] { run(chosen.kernel, nullptr, other); });
            csv_row(cluster ? "two_four_cluster" : "two_four_parts",
                    chosen.kernel + " splits=" + std::to_string(chosen.splits), other_ms, nullptr);
            std::printf("      (the same split summed %s: %.4f ms; clusters of %d at once: %d)\n",
                        cluster ? "in a cluster" : "in global memory by a second kernel", other_ms, chosen.splits,
                        chosen.clusters_at_once);
          }
        }
        std::fflush(stdout);
        for (void* ptr : {(void*)d_x, (void*)d_xrow, (void*)d_y, (void*)d_yref}) CHECK_CUDA(cudaFree(ptr));
      }
      for (void* ptr : {(void*)d_values, (void*)d_meta, (void*)d_wrow, (void*)d_wcol}) CHECK_CUDA(cudaFree(ptr));
    }
  }
  cublasDestroy(h);
  return 0;
}
