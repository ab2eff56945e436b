// tests/gpu/two_four_test.cpp: the 2:4 GEMM on the sparse tensor cores (backends/cuda/two_four) against the float64
// host reference of layers/two_four.hpp.
//
// Every case draws fresh random weights (normal, a share of them zero), prunes them to 2:4 in FP16 or BF16, draws X
// in the same type, poisons all of Y's array (0xffff: NaN in both types) and runs one kernel of the table, forced,
// with the dispatcher's split and with a forced split of the K range. Within the rows x batch block every entry must
// be within 2^-10 (FP16) or 2^-7 (BF16) of sum |w x| of the reference, which bounds the output's rounding plus FP32
// accumulation; outside it (ldy > rows) the poison must remain. Shapes: K a multiple of the 64-column step, K ending
// in half a step, K not a multiple of 8 (X read element by element at the end), a leading dimension of X that is not
// a multiple of 8, rows and batch that are not multiples of any tile, a batch of 1, a row count below one tile, and a
// K long enough for the dispatcher to split it; and the FP32 row-major output the GraphBLAS path uses. Without a GPU
// every test skips with the reason.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "two_four.hpp"
#include "two_four/two_four_gemm.hpp"

namespace {

using snk::Index;
using snk::layers::HalfType;
using snk::layers::TwoFourMatrix;

bool have_sparse_tensor_cores(std::string* why) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    *why = "no CUDA device: the 2:4 kernels cannot run here";
    return false;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major < 8) {
    *why = "the GPU has no sparse tensor cores (compute capability " + std::to_string(prop.major) + "." +
           std::to_string(prop.minor) + ", 8.0 needed)";
    return false;
  }
  return true;
}

#define REQUIRE_GPU()                                  \
  do {                                                 \
    std::string why_;                                  \
    if (!have_sparse_tensor_cores(&why_)) GTEST_SKIP() << why_; \
  } while (0)

std::mt19937_64& rng() {
  static std::mt19937_64 g(static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  return g;
}

template <class T>
struct DeviceArray {
  T* p = nullptr;
  explicit DeviceArray(size_t n) { EXPECT_EQ(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)), cudaSuccess); }
  ~DeviceArray() { cudaFree(p); }
  void upload(const std::vector<T>& h) {
    ASSERT_EQ(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<T> download(size_t n) const {
    std::vector<T> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

struct Case {
  Index rows, cols, batch, ldx_extra, ldy_extra;
};

snk::cuda::TwoFourType device_type(HalfType t) {
  return t == HalfType::FP16 ? snk::cuda::TwoFourType::FP16 : snk::cuda::TwoFourType::BF16;
}

// How the kernel is asked to write Y: rounded to W's type, column-major (ldy = rows + ldy_extra); or the FP32 sums,
// row-major (ldy = batch + ldy_extra), the form the GraphBLAS path asks for.
enum class Output { Rounded, Fp32RowMajor };

// Runs `kernel` (empty: the dispatcher's choice; splits: 0 = its rule; sum: how split parts are summed) on a fresh
// problem of shape c and checks Y; returns the splits that ran.
int check_case(const Case& c, HalfType type, const std::string& kernel, int splits, Output out = Output::Rounded,
               snk::cuda::TwoFourSum sum = snk::cuda::TwoFourSum::Auto) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::bernoulli_distribution zero(0.2);
  std::vector<float> dense(c.rows * c.cols);
  for (float& v : dense) v = zero(rng()) ? 0.0f : normal(rng());
  const TwoFourMatrix W = snk::layers::prune_two_four(dense.data(), c.rows, c.cols, c.cols, type);

  const Index ldx = c.cols + c.ldx_extra;
  std::vector<std::uint16_t> xh(ldx * c.batch, 0x7e00);   // padding of X: NaN in FP16, never read
  std::vector<float> xf(ldx * c.batch, 0.0f);
  for (Index b = 0; b < c.batch; ++b)
    for (Index k = 0; k < c.cols; ++k) {
      xh[b * ldx + k] = snk::layers::to_half(uniform(rng()), type);
      xf[b * ldx + k] = snk::layers::from_half(xh[b * ldx + k], type);
    }
  // The reference and sum |w x| per output (the reference of |W| times |X|), column-major with ld = rows.
  std::vector<double> ref(c.rows * c.batch, 0.0), bound(c.rows * c.batch, 0.0);
  snk::layers::two_four_reference(W, xf.data(), c.batch, ldx, ref.data(), c.rows);
  TwoFourMatrix A = W;
  for (std::uint16_t& v : A.values) v = snk::layers::to_half(std::fabs(snk::layers::from_half(v, type)), type);
  std::vector<float> xa(xf.size());
  for (size_t i = 0; i < xf.size(); ++i) xa[i] = std::fabs(xf[i]);
  snk::layers::two_four_reference(A, xa.data(), c.batch, ldx, bound.data(), c.rows);

  // Y as lines of ldy entries: batch columns (column-major) or rows (row-major).
  const bool fp32 = out == Output::Fp32RowMajor;
  const Index ldy = fp32 ? c.batch + c.ldy_extra : c.rows + c.ldy_extra, lines = fp32 ? c.rows : c.batch;
  DeviceArray<std::uint16_t> values(W.values.size()), x(xh.size()), y16(fp32 ? 0 : ldy * lines);
  DeviceArray<std::uint32_t> meta(W.meta.size());
  DeviceArray<float> y32(fp32 ? ldy * lines : 0);
  values.upload(W.values);
  meta.upload(W.meta);
  x.upload(xh);
  EXPECT_EQ(fp32 ? cudaMemset(y32.p, 0xff, ldy * lines * sizeof(float))
                 : cudaMemset(y16.p, 0xff, ldy * lines * sizeof(std::uint16_t)),
            cudaSuccess);

  snk::cuda::TwoFourProblem p;
  p.w = {values.p, meta.p, static_cast<std::int64_t>(c.rows), static_cast<std::int64_t>(c.cols), device_type(type)};
  p.x = x.p;
  p.ldx = ldx;
  p.batch = c.batch;
  if (fp32) p.y_fp32 = y32.p;
  else p.y = y16.p;
  p.ldy = ldy;
  p.y_row_major = fp32;
  for (const snk::cuda::TwoFourKernel& k : snk::cuda::two_four_kernels())
    if (kernel == k.name && !k.supports(p)) {   // a warpgroup kernel off sm_90, or X the TMA cannot read: refused
      EXPECT_EQ(snk::cuda::two_four_gemm(p, nullptr, kernel, splits, nullptr, sum), cudaErrorNotSupported);
      return 0;
    }
  snk::cuda::TwoFourLaunch ran;
  EXPECT_EQ(snk::cuda::two_four_gemm(p, nullptr, kernel, splits, &ran, sum), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<std::uint16_t> out16 = fp32 ? std::vector<std::uint16_t>() : y16.download(ldy * lines);
  const std::vector<float> out32 = fp32 ? y32.download(ldy * lines) : std::vector<float>();

  const double tol = fp32 ? std::ldexp(1.0, -20) : type == HalfType::FP16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
  int bad = 0;
  for (Index l = 0; l < lines; ++l)
    for (Index q = 0; q < ldy; ++q) {
      const Index i = fp32 ? l : q, b = fp32 ? q : l, at = l * ldy + q;
      if (fp32 ? b >= c.batch : i >= c.rows) {
        std::uint32_t bits = 0xffffffffu;
        if (fp32) std::memcpy(&bits, &out32[at], 4);
        if ((fp32 ? bits != 0xffffffffu : out16[at] != 0xffff) && bad++ < 5)
          ADD_FAILURE() << "entry " << q << " of line " << l << ", outside Y, was written";
        continue;
      }
      const double v = fp32 ? out32[at] : snk::layers::from_half(out16[at], type), want = ref[b * c.rows + i];
      const double allowed = tol * bound[b * c.rows + i] + 1e-30;
      if (!(std::fabs(v - want) <= allowed) && bad++ < 5)
        ADD_FAILURE() << kernel << " " << (type == HalfType::FP16 ? "FP16" : "BF16") << (fp32 ? " FP32 out" : "")
                      << " rows " << c.rows << " cols " << c.cols << " batch " << c.batch << " splits " << ran.splits
                      << ": Y(" << i << ", " << b << ") = " << v << ", reference " << want << " (allowed error "
                      << allowed << ")";
    }
  EXPECT_EQ(bad, 0);
  if (!kernel.empty()) EXPECT_EQ(ran.kernel, kernel);
  if (sum == snk::cuda::TwoFourSum::Parts || ran.splits == 1) EXPECT_FALSE(ran.cluster_sum);
  if (sum == snk::cuda::TwoFourSum::Cluster && ran.splits > 1) EXPECT_TRUE(ran.cluster_sum);
  return ran.splits;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {128, 256, 128, 0, 0},    // whole tiles
      {200, 96, 70, 0, 3},      // K ends in half a step; rows and batch past a tile; ldy > rows
      {130, 100, 37, 4, 0},     // K not a multiple of 8; ldx not a multiple of 8
      {64, 512, 1, 0, 1},       // a batch of 1, fewer rows than a tile
      {33, 4096, 16, 8, 0},     // long K: the dispatcher splits it
      {300, 1000, 129, 0, 0},   // K padded to 1024; batch one past a wide tile
  };
  return all;
}

TEST(TwoFourGemm, EveryKernelMatchesTheReference) {
  REQUIRE_GPU();
  for (HalfType type : {HalfType::FP16, HalfType::BF16})
    for (const snk::cuda::TwoFourKernel& k : snk::cuda::two_four_kernels())
      for (const Case& c : cases()) {
        check_case(c, type, k.name, 0);
        check_case(c, type, k.name, 3);   // a forced split, whatever the rule says, summed as the kernel prefers
        check_case(c, type, k.name, 3, Output::Rounded, snk::cuda::TwoFourSum::Parts);
      }
}

TEST(TwoFourGemm, ClusterSumsEqualTheReference) {
  // The warpgroup kernels sum up to 8 parts in the shared memory of a cluster of the parts' blocks: every part count
  // from 2 to 8, on edge shapes, in both outputs (check_case also checks that the cluster sum ran).
  REQUIRE_GPU();
  using snk::cuda::TwoFourSum;
  snk::cuda::TwoFourProblem probe;   // aligned, as every case's arrays are
  probe.w.cols = probe.ldx = 64;
  for (const snk::cuda::TwoFourKernel& k : snk::cuda::two_four_kernels()) {
    if (std::string(k.name).rfind("wgmma", 0) != 0 || !k.supports(probe)) continue;   // off Hopper: none
    for (int splits = 2; splits <= 8; ++splits) {
      const Case c = splits % 2 ? Case{300, 4000, 129, 0, 3} : Case{200, 2048, 70, 8, 0};
      EXPECT_EQ(check_case(c, HalfType::BF16, k.name, splits, Output::Rounded, TwoFourSum::Cluster), splits);
      EXPECT_EQ(check_case(c, HalfType::FP16, k.name, splits, Output::Fp32RowMajor, TwoFourSum::Cluster), splits);
    }
  }
}

TEST(TwoFourGemm, AClusterSumThatCannotRunIsRefused) {
  // The warp-level kernels have no cluster sum, and a cluster holds at most 8 parts (16 asked here): a forced cluster
  // sum there returns cudaErrorNotSupported and leaves Y as it was.
  REQUIRE_GPU();
  const Index rows = 64, cols = 1024, batch = 16;
  std::vector<float> dense(rows * cols, 1.0f);
  const TwoFourMatrix W = snk::layers::prune_two_four(dense.data(), rows, cols, cols, HalfType::FP16);
  DeviceArray<std::uint16_t> values(W.values.size()), x(cols * batch), y(rows * batch);
  DeviceArray<std::uint32_t> meta(W.meta.size());
  values.upload(W.values);
  meta.upload(W.meta);
  x.upload(std::vector<std::uint16_t>(cols * batch, 0x3c00));   // 1.0 in FP16
  EXPECT_EQ(cudaMemset(y.p, 0xff, rows * batch * sizeof(std::uint16_t)), cudaSuccess);
  snk::cuda::TwoFourProblem p;
  p.w = {values.p, meta.p, rows, cols, snk::cuda::TwoFourType::FP16};
  p.x = x.p;
  p.ldx = cols;
  p.batch = batch;
  p.y = y.p;
  p.ldy = rows;
  using snk::cuda::TwoFourSum;
  EXPECT_EQ(snk::cuda::two_four_gemm(p, nullptr, "tile128x32", 4, nullptr, TwoFourSum::Cluster),
            cudaErrorNotSupported);
  if (snk::cuda::two_four_kernels()[2].supports(p))
    EXPECT_EQ(snk::cuda::two_four_gemm(p, nullptr, "wgmma128x64", 16, nullptr, TwoFourSum::Cluster),
              cudaErrorNotSupported);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (std::uint16_t v : y.download(rows * batch)) ASSERT_EQ(v, 0xffff);
  // The same calls summed as each kernel can: every entry is 512 (half of 1024 ones kept, times ones).
  EXPECT_EQ(snk::cuda::two_four_gemm(p, nullptr, "tile128x32", 4), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (std::uint16_t v : y.download(rows * batch)) ASSERT_EQ(snk::layers::from_half(v, HalfType::FP16), 512.0);
}

TEST(TwoFourGemm, TheDispatcherSplitsALongKAndSumsTheParts) {
  REQUIRE_GPU();
  EXPECT_GT(check_case({256, 8192, 16, 0, 0}, HalfType::BF16, "tile128x32", 0), 1);
  EXPECT_EQ(check_case({1024, 256, 256, 0, 0}, HalfType::FP16, "tile128x256", 0), 1);
}

TEST(TwoFourGemm, TheDispatcherPicksTheTileByBatch) {
  REQUIRE_GPU();
  auto chosen = [](Index batch) {
    snk::cuda::TwoFourProblem p;
    p.w.rows = 64;
    p.w.cols = 64;
    p.batch = batch;
    for (const snk::cuda::TwoFourKernel& k : snk::cuda::two_four_kernels())
      if (k.can_run(p)) return std::string(k.name);
    return std::string();
  };
  snk::cuda::TwoFourProblem p;
  p.w.rows = 64;
  p.w.cols = 64;
  const bool warpgroup = snk::cuda::two_four_kernels().front().supports(p);   // sm_90a and a Hopper GPU
  EXPECT_EQ(chosen(1), "tile128x32");
  EXPECT_EQ(chosen(32), "tile128x32");
  EXPECT_EQ(chosen(64), warpgroup ? "wgmma128x64" : "tile128x64");
  EXPECT_EQ(chosen(128), warpgroup ? "wgmma256x128" : "tile128x64");
  EXPECT_EQ(chosen(129), warpgroup ? "wgmma128x256" : "tile128x256");
  EXPECT_EQ(chosen(4096), warpgroup ? "wgmma128x256" : "tile128x256");
  p.w.rows = p.w.cols = 8192;   // a W this large: narrow batches too on the warpgroup kernel
  p.batch = 16;
  EXPECT_EQ(snk::cuda::two_four_kernels()[2].can_run(p), warpgroup);
  EXPECT_STREQ(snk::cuda::two_four_kernels()[2].name, "wgmma128x64");
}

TEST(TwoFourGemm, Fp32OutputRowMajor) {
  // The sums as they are (y_fp32), Y row-major with ldy past the batch: within 2^-20 of sum |w x| (FP32 accumulation
  // only), the padding untouched; with a forced split too.
  REQUIRE_GPU();
  for (HalfType type : {HalfType::FP16, HalfType::BF16})
    for (int splits : {0, 4}) {
      const int ran = check_case({200, 1000, 70, 0, 5}, type, "", splits, Output::Fp32RowMajor);
      if (splits) EXPECT_GT(ran, 1);
    }
}

TEST(TwoFourGemm, BadArgumentsLaunchNothing) {
  REQUIRE_GPU();
  DeviceArray<std::uint16_t> y(64);
  EXPECT_EQ(cudaMemset(y.p, 0xff, 64 * sizeof(std::uint16_t)), cudaSuccess);
  snk::cuda::TwoFourProblem p;
  p.w = {nullptr, nullptr, 8, 8, snk::cuda::TwoFourType::FP16};
  p.batch = 8;
  p.y = y.p;
  p.ldx = 8;
  p.ldy = 4;   // below the row count
  EXPECT_EQ(snk::cuda::two_four_gemm(p, nullptr), cudaErrorInvalidValue);
  p.ldy = 8;   // arrays missing
  EXPECT_EQ(snk::cuda::two_four_gemm(p, nullptr), cudaErrorInvalidValue);
  DeviceArray<std::uint16_t> values(8 * 16), x(64);
  DeviceArray<std::uint32_t> meta(8);
  p.w.values = values.p;
  p.w.meta = meta.p;
  p.x = x.p;
  EXPECT_EQ(snk::cuda::two_four_gemm(p, nullptr, "no_such_kernel"), cudaErrorInvalidValue);
  const std::vector<std::uint16_t> out = y.download(64);
  for (std::uint16_t v : out) EXPECT_EQ(v, 0xffff);
}

}  // namespace
