// bench/layers/layer_bench.cu: a linear layer's training step (forward, backward, Adam update) and inference, FP32, at
// in = out = M, for the project's SparseLinear on the cuda backend (FP32, and with W's BF16 precision hint:
// `snack_bf16`) against what a user would otherwise run on the same GPU: a dense layer on cuBLAS and Dense+Mask (the
// dense layer with its weights and weight gradient multiplied by a 0/1 mask every step). PyTorch's nn.Linear runs
// beside it in torch_linear.py; report.py joins the two.
//
// Shapes follow torch.nn.Linear: X is batch x M, W is M x M (out x in), Y = X W^T + b. The dense calls are
// cublasSgemm in pedantic FP32 (no TF32); each GEMM of a step is timed in both argument orders that compute it (W
// read as stored, or transposed by the call) and the faster is used. A step's time is the median over the
// repetitions of the wall time of the whole step on a synchronized device; the Adam update is a fused elementwise
// kernel over every weight for the dense forms and snk::optimizer_step (one pass) for SparseLinear, whose backward
// takes the step's X and dY (a training loop's, as Mlp's: no duplicates of them for dW). Memory: the
// bytes of weights, weight gradient and Adam state (per layer form), and the peak device memory of the step (for the
// library: the used device memory after the steps, the stream-ordered pool trimmed before them, over what was in use
// before the layer existed; for cuBLAS: what the step allocates). Prints a CSV line per (M, sparsity, batch, method)
// on stdout, and a summary table on stderr. `--infer-only` times SparseLinear's inference alone (FP32 and BF16), with
// no training step and no dense baselines, for a profiler's trace of the forward.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include "optim.hpp"
#include "snack/backend.hpp"
#include "sparse_linear.hpp"

#include "bench_commit.h"   // SNACK_GIT_COMMIT (bench/commit.cmake)

namespace {

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));   \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
#define CB(call)                                                                    \
  do {                                                                              \
    cublasStatus_t s_ = (call);                                                     \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                              \
      std::fprintf(stderr, "%s:%d %s: cublas status %d\n", __FILE__, __LINE__, #call, int(s_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median wall time (ms) of `reps` runs of f on a synchronized device, after `warmups` runs; prepare (untimed)
// runs before each.
template <class F, class P = void (*)()>
double median_ms(F&& f, int warmups, int reps, P&& prepare = [] {}) {
  for (int w = 0; w < warmups; ++w) {
    prepare();
    f();
  }
  CK(cudaDeviceSynchronize());
  std::vector<double> ts;
  for (int r = 0; r < reps; ++r) {
    prepare();
    CK(cudaDeviceSynchronize());
    const auto t0 = Clock::now();
    f();
    CK(cudaDeviceSynchronize());
    ts.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return median(ts);
}

__global__ void adam_kernel(float* w, const float* g, float* m, float* v, std::int64_t n, float lr_c1, float b1,
                            float b2, float inv_c2, float eps) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const float gi = g[i];
    const float mi = b1 * m[i] + (1 - b1) * gi, vi = b2 * v[i] + (1 - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    w[i] -= lr_c1 * mi / (sqrtf(vi * inv_c2) + eps);
  }
}

__global__ void mask_kernel(float* out, const float* a, const float* mask, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = a[i] * mask[i];
}

__global__ void bias_kernel(float* y, const float* b, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < rows * cols;
       i += std::int64_t(gridDim.x) * blockDim.x)
    y[i] += b[i % cols];
}

__device__ std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// d[i] uniform in [-scale, scale] (keep < 1: a 0/1 mask of density keep instead), from a hash of (seed, i).
__global__ void fill_kernel(float* d, std::int64_t n, std::uint64_t seed, float scale, float keep) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const double u = double(mix(seed * 0x100000001b3ull + std::uint64_t(i)) >> 11) * 0x1.0p-53;
    d[i] = keep < 1 ? (u < keep ? 1.0f : 0.0f) : float((2 * u - 1) * scale);
  }
}

void fill_random(float* d, std::int64_t n, std::uint64_t seed, float scale) {
  fill_kernel<<<132 * 8, 256>>>(d, n, seed, scale, 2.0f);
  CK(cudaGetLastError());
}

struct Result {
  double step_ms = 0, infer_ms = 0, state_bytes = 0, peak_bytes = 0;
  double device_state_bytes = 0;   // as held on the device (snack: four value arrays on one shared pattern)
  std::string note;
};

// Dense layer (masked: Dense+Mask) on cuBLAS. Row-major X (batch x M) is column-major X^T; W row-major (M x M, out x
// in) is column-major W^T. Y^T = W X^T: gemm(T, N) on the stored W; dX^T = W^T dY^T: gemm(N, N); dW^T = X^T dY:
// gemm(N, T). The "other order" of each computes the transposed product from transposed operands.
Result dense(cublasHandle_t h, int M, int batch, double density, int reps, bool masked) {
  const std::int64_t nw = std::int64_t(M) * M, nx = std::int64_t(batch) * M;
  float *W, *Wm, *dW, *m, *v, *mask, *X, *Y, *dY, *dX, *b, *db, *ones;
  std::size_t bytes = 0;
  auto alloc = [&](float** p, std::int64_t n) {
    CK(cudaMalloc(p, n * sizeof(float)));
    bytes += n * sizeof(float);
  };
  alloc(&W, nw), alloc(&dW, nw), alloc(&m, nw), alloc(&v, nw);
  if (masked) alloc(&Wm, nw), alloc(&mask, nw);
  alloc(&X, nx), alloc(&Y, nx), alloc(&dY, nx), alloc(&dX, nx), alloc(&b, M), alloc(&db, M), alloc(&ones, batch);
  fill_random(W, nw, 1, 1.0f / std::sqrt(float(M)));
  fill_random(X, nx, 2, 1.0f);
  fill_random(dY, nx, 3, 1.0f);
  fill_random(b, M, 4, 0.01f);
  CK(cudaMemset(m, 0, nw * sizeof(float)));
  CK(cudaMemset(v, 0, nw * sizeof(float)));
  {
    std::vector<float> o(batch, 1.0f);
    CK(cudaMemcpy(ones, o.data(), batch * sizeof(float), cudaMemcpyHostToDevice));
  }
  if (masked) {
    fill_kernel<<<132 * 8, 256>>>(mask, nw, 5, 0.0f, float(density));
    CK(cudaGetLastError());
  }
  const float one = 1, zero = 0;
  const int threads = 256, blocks = 132 * 8;
  // The faster of the two argument orders of each GEMM, chosen once by timing.
  auto best_of = [&](auto a, auto b2) { return median_ms(a, 1, 5) <= median_ms(b2, 1, 5) ? 0 : 1; };
  const float* Wf = masked ? Wm : W;
  // Order 0 of each GEMM writes the layout the next step reads (Y and dX row-major, dW as W); order 1 computes the
  // same product with the operands' roles swapped, into the transposed layout (timed for the choice: a user could
  // keep either).
  auto fwd0 = [&] { CB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, M, batch, M, &one, Wf, M, X, M, &zero, Y, M)); };
  auto fwd1 = [&] { CB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_T, batch, M, M, &one, X, M, Wf, M, &zero, dX, batch)); };
  auto bwd_x0 = [&] { CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, batch, M, &one, Wf, M, dY, M, &zero, dX, M)); };
  auto bwd_x1 = [&] { CB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_T, batch, M, M, &one, dY, M, Wf, M, &zero, Y, batch)); };
  auto bwd_w0 = [&] { CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, M, M, batch, &one, X, M, dY, M, &zero, dW, M)); };
  auto bwd_w1 = [&] { CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, M, M, batch, &one, dY, M, X, M, &zero, dW, M)); };
  const int of = best_of(fwd0, fwd1), ox = best_of(bwd_x0, bwd_x1), ow = best_of(bwd_w0, bwd_w1);
  auto forward = [&] {
    if (masked) mask_kernel<<<blocks, threads>>>(Wm, W, mask, nw);
    of == 0 ? fwd0() : fwd1();
    bias_kernel<<<blocks, threads>>>(Y, b, batch, M);
  };
  int t = 0;
  auto step = [&] {
    forward();
    ox == 0 ? bwd_x0() : bwd_x1();
    ow == 0 ? bwd_w0() : bwd_w1();
    if (masked) mask_kernel<<<blocks, threads>>>(dW, dW, mask, nw);
    CB(cublasSgemv(h, CUBLAS_OP_N, M, batch, &one, dY, M, ones, 1, &zero, db, 1));
    ++t;
    const float b1 = 0.9f, b2 = 0.999f;
    const float c1 = 1 - std::pow(b1, float(t)), c2 = 1 - std::pow(b2, float(t));
    adam_kernel<<<blocks, threads>>>(W, dW, m, v, nw, 1e-3f / c1, b1, b2, 1 / c2, 1e-8f);
    if (masked) mask_kernel<<<blocks, threads>>>(W, W, mask, nw);
  };
  Result r;
  r.infer_ms = median_ms(forward, 1, reps);
  r.step_ms = median_ms(step, 1, reps);
  r.state_bytes = double(4 * nw * sizeof(float));   // W, dW, m, v
  r.device_state_bytes = r.state_bytes;
  r.peak_bytes = double(bytes);
  r.note = std::string("gemm orders ") + char('0' + of) + char('0' + ox) + char('0' + ow);
  for (float* p : {W, dW, m, v, X, Y, dY, dX, b, db, ones}) CK(cudaFree(p));
  if (masked) {
    CK(cudaFree(Wm));
    CK(cudaFree(mask));
  }
  return r;
}

snk::Matrix full(int rows, int cols, std::uint64_t seed) {
  std::vector<snk::Index> I(std::size_t(rows) * cols), J(I.size());
  std::vector<float> x(I.size());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (std::size_t k = 0; k < I.size(); ++k) {
    I[k] = k / cols;
    J[k] = k % cols;
    x[k] = u(rng);
  }
  snk::Matrix A(&snk::types::FP32, rows, cols);
  A.build(I.data(), J.data(), x.data(), &snk::types::FP32, I.size(), nullptr);
  return A;
}

double used_device_bytes() {
  std::size_t free = 0, total = 0;
  CK(cudaMemGetInfo(&free, &total));
  return double(total - free);
}

void trim_pool() {
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaMemPool_t pool;
  CK(cudaDeviceGetDefaultMemPool(&pool, dev));
  CK(cudaDeviceSynchronize());
  CK(cudaMemPoolTrimTo(pool, 0));
}

// The layer of the last (M, density) asked for: made once for the batches of a point (building a layer of hundreds
// of millions of weights on the host is not what is measured).
// `base`: the device memory in use before the layer was made, so that a point's peak counts the layer's device copy
// and plans too.
snk::layers::SparseLinear& layer_for(int M, double density, double& base) {
  static std::unique_ptr<snk::layers::SparseLinear> layer;
  static std::pair<int, double> key{0, 0.0};
  static double base_before = 0;
  if (!layer || key != std::make_pair(M, density)) {
    layer.reset();
    trim_pool();
    base_before = used_device_bytes();
    layer = std::make_unique<snk::layers::SparseLinear>(M, M, density, 7);
    key = {M, density};
  }
  base = base_before;
  return *layer;
}

// `precision`: W's precision hint for the run (BF16: the forward and dX products on BF16 values summed in FP32; the
// weights, gradients and Adam state stay FP32), set back to FP32 after it.
Result sparse(int M, int batch, double density, int reps,
              snk::Matrix::PrecisionHint precision = snk::Matrix::PrecisionHint::FP32, bool infer_only = false) {
  snk::set_backend("cuda");
  double base = 0;
  snk::layers::SparseLinear& layer = layer_for(M, density, base);
  layer.weight().set_precision_hint(precision);
  struct Restore {
    snk::layers::SparseLinear& layer;
    ~Restore() { layer.weight().set_precision_hint(snk::Matrix::PrecisionHint::FP32); }
  } restore{layer};
  trim_pool();
  snk::layers::Adam adam(1e-3f);
  const snk::Matrix X = full(batch, M, 8), dY = full(batch, M, 9);
  auto forward = [&] {
    snk::Matrix Y = layer.forward(X);
    Y.wait();
  };
  // A training loop's step: the step's own X and dY are handed to backward, which keeps them for dW (as Mlp does);
  // their copies for each repetition are made before its timing starts.
  snk::Matrix x_step(X.type(), 0, 0), dy_step(dY.type(), 0, 0);
  auto fresh = [&] {
    x_step = X;
    dy_step = dY;
  };
  auto step = [&] {
    snk::Matrix Y = layer.forward(x_step);
    snk::Matrix dX = layer.backward(std::move(x_step), std::move(dy_step));
    adam.step(layer);
    dX.wait();
  };
  Result r;
  if (!infer_only) r.step_ms = median_ms(step, 2, reps, fresh);
  r.infer_ms = median_ms(forward, 2, reps);
  r.peak_bytes = used_device_bytes() - base;
  const double nnz = double(layer.weight().nvals());
  r.state_bytes = double(adam.state_bytes() + 2 * snk::layers::csr_bytes(layer.weight()));   // m, v; W and dW
  // On the device W, dW, m and v hold their values on one pattern (the cuda backend's results that keep an operand's
  // pattern share its arrays), and the biases' four vectors are dense.
  r.device_state_bytes = nnz * 4 * 4 + nnz * 8 + (M + 1) * 8.0 + 4 * M * 4.0;
  const std::uint64_t fb = snk::fallback_total("cuda");
  r.note = "nnz " + std::to_string(std::int64_t(nnz)) + (fb ? ", fallbacks " + std::to_string(fb) : "");
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes{4096, 16384}, batches{1, 8, 32, 128};
  std::vector<double> sparsities{0.90, 0.95, 0.99};
  int reps = 10;
  bool infer_only = false;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--quick") sizes = {4096}, batches = {8, 128}, sparsities = {0.9}, reps = 3;
    else if (a == "--point" && k + 3 < argc) {   // one point: M sparsity batch
      sizes = {std::atoi(argv[k + 1])};
      sparsities = {std::atof(argv[k + 2])};
      batches = {std::atoi(argv[k + 3])};
      k += 3;
    }
    else if (a == "--size" && k + 1 < argc) sizes = {std::atoi(argv[++k])};   // every point of one M
    else if (a == "--reps" && k + 1 < argc) reps = std::atoi(argv[++k]);
    else if (a == "--infer-only") infer_only = true;
    else {
      std::fprintf(stderr,
                   "usage: layer_bench [--quick | --point M SPARSITY BATCH | --size M] [--reps N] [--infer-only]\n");
      return 1;
    }
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::fprintf(stderr, "layer_bench: %s, %s, commit %s, %d repetitions per point\n", prop.name, date, SNACK_GIT_COMMIT,
               reps);
  std::printf("# device=%s date=%s commit=%s\n", prop.name, date, SNACK_GIT_COMMIT);
  std::printf("M,sparsity,batch,method,step_ms,infer_ms,state_bytes,device_state_bytes,peak_bytes,note\n");
  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
  for (int M : sizes)
    for (double sp : sparsities)
      for (int batch : batches) {
        const double density = 1 - sp;
        const auto row = [&](const char* name, const Result& r) {
          std::printf("%d,%.2f,%d,%s,%.4f,%.4f,%.0f,%.0f,%.0f,%s\n", M, sp, batch, name, r.step_ms, r.infer_ms,
                      r.state_bytes, r.device_state_bytes, r.peak_bytes, r.note.c_str());
          std::fflush(stdout);
        };
        const Result s = sparse(M, batch, density, reps, snk::Matrix::PrecisionHint::FP32, infer_only);
        const Result s16 = sparse(M, batch, density, reps, snk::Matrix::PrecisionHint::BF16, infer_only);
        row("snack", s);   // step_ms 0 with --infer-only: not measured
        row("snack_bf16", s16);
        if (infer_only) continue;
        const Result d = dense(h, M, batch, density, reps, false);
        const Result dm = dense(h, M, batch, density, reps, true);
        row("cublas", d);
        row("dense_mask", dm);
        std::fprintf(stderr, "M=%5d %2.0f%% batch %3d  step: snack %.3f ms, cuBLAS %.3f (%.2fx), D+M %.3f (%.2fx)  "
                             "inference: snack %.3f, cuBLAS %.3f (%.2fx)  state %.0f%% of dense  %s\n",
                     M, 100 * sp, batch, s.step_ms, d.step_ms, d.step_ms / s.step_ms, dm.step_ms, dm.step_ms / s.step_ms,
                     s.infer_ms, d.infer_ms, d.infer_ms / s.infer_ms, 100 * s.state_bytes / d.state_bytes,
                     s.note.c_str());
      }
  CB(cublasDestroy(h));
  return 0;
}
