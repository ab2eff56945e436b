// two_four/two_four_gemm.hpp: the public host API of the 2:4 GEMM on the sparse tensor cores, Y = W X with W in the
// 2:4 compressed form of layers/two_four.hpp (two 16-bit values and two 2-bit positions per group of four) and X, Y
// dense, FP16 or BF16, accumulated in FP32: on Hopper (compute capability 9.0) by the warpgroup instruction
// wgmma.mma_async.sp, elsewhere by the warp-level mma.sp m16n8k32.
//
// Usable from plain C++ (the only CUDA type is cudaStream_t). Every array is on the device. X is cols x batch and Y
// rows x batch, both column-major (a batch of activations stored row after row, as a layer holds them). The kernels
// form an ordered table; the first whose can-run rule accepts the problem runs, unless the caller names one (tests
// and the benchmark do). A kernel splits the K range over several thread blocks when its tiles alone would leave
// the GPU idle, and sums the parts in FP32 before rounding once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace snk::cuda {

enum class TwoFourType : std::uint8_t { FP16, BF16 };

// W in layers/two_four.hpp's layout, on the device: values rows x padded_cols()/2, meta rows x padded_cols()/32.
struct TwoFourView {
  const std::uint16_t* values = nullptr;
  const std::uint32_t* meta = nullptr;
  std::int64_t rows = 0, cols = 0;   // the logical shape
  TwoFourType type = TwoFourType::FP16;
  std::int64_t padded_cols() const { return (cols + 31) / 32 * 32; }
};

// Y = W X. x: cols x batch of W's type (X(k, b) at x[b * ldx + k], ldx >= cols). Y: rows x batch, either y (W's type,
// rounded once from the FP32 sums) or y_fp32 (the sums as they are), exactly one of the two; column-major
// (Y(i, b) at b * ldy + i, ldy >= rows) or, with y_row_major, row-major (Y(i, b) at i * ldy + b, ldy >= batch).
// Entries of Y outside the rows x batch block are not touched.
struct TwoFourProblem {
  TwoFourView w;
  const std::uint16_t* x = nullptr;
  std::int64_t ldx = 0;
  std::int64_t batch = 0;
  std::uint16_t* y = nullptr;
  float* y_fp32 = nullptr;
  std::int64_t ldy = 0;
  bool y_row_major = false;
};

struct TwoFourKernel {
  const char* name;                         // <instruction><rows of W>x<columns of X>: what one thread block computes
  bool (*can_run)(const TwoFourProblem&);    // the rule under which the dispatcher picks it (implies supports)
  bool (*supports)(const TwoFourProblem&);   // whether this build and the current GPU can run it on the problem
};

// The candidates, in the order the dispatcher tries them.
const std::vector<TwoFourKernel>& two_four_kernels();

struct TwoFourLaunch {
  std::string kernel;         // the kernel that ran
  int splits = 1;             // the parts the K range was split into
  bool cluster_sum = false;   // the parts were summed in the shared memory of a cluster of their blocks
  int clusters_at_once = 0;   // split on a kernel with cluster sums: the clusters of `splits` blocks the GPU runs
                              // at once, whichever sum ran (0: none can, or none asked)
};

// How split parts are summed: Auto (in a cluster's shared memory where the kernel can, the parts are at most 8 and
// the clusters take no more waves than the blocks would alone; else Parts), Cluster (forced; cudaErrorNotSupported
// where it cannot), or Parts (each part written to global memory and summed by a second kernel).
enum class TwoFourSum : std::uint8_t { Auto, Cluster, Parts };

// Computes Y = W X on `stream`. kernel: a name from two_four_kernels() to force one (empty: the dispatcher's choice);
// splits: the K-range parts to force (0: the kernel's rule); sum: how they are summed. Returns cudaErrorInvalidValue
// for a shape or leading dimension that does not fit or an unknown kernel name, cudaErrorNotSupported for a named
// kernel that does not support the problem or a forced sum it cannot do (nothing is launched in either case), else
// the launch's error. `launch`, if given, says what ran.
cudaError_t two_four_gemm(const TwoFourProblem& p, cudaStream_t stream, const std::string& kernel = {},
                          int splits = 0, TwoFourLaunch* launch = nullptr, TwoFourSum sum = TwoFourSum::Auto);

// The conversions a caller with FP32 data needs before the product (each one pass on `stream`):
// W's 2:4 form from a CSR matrix on the device: row r of W (r < nrows) is CSR row rows[r] (offsets p, increasing
// columns j, FP32 values x), with `cols` columns; values and meta are sized as TwoFourView's for those rows. *refused
// (a device int the call zeroes first) becomes 1 where a group of four columns holds more than two entries; W is
// then incomplete.
cudaError_t two_four_from_csr(const std::uint64_t* rows, std::int64_t nrows, std::int64_t cols, const std::uint64_t* p,
                              const std::uint64_t* j, const float* x, TwoFourType type, std::uint16_t* values,
                              std::uint32_t* meta, int* refused, cudaStream_t stream);
// dst, k x n column-major (dst[c * k + r]), = src(r, c) = src[r * sr + c * sc] rounded to `type` (nearest even).
cudaError_t round_to_half(const float* src, std::int64_t k, std::int64_t n, std::int64_t sr, std::int64_t sc,
                          TwoFourType type, std::uint16_t* dst, cudaStream_t stream);
// dst[e] = src[e] widened to FP32 (exact), e < n.
cudaError_t widen_half(const std::uint16_t* src, std::int64_t n, TwoFourType type, float* dst, cudaStream_t stream);

}  // namespace snk::cuda
