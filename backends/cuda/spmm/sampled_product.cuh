// spmm/sampled_product.cuh: the sampled dense-dense product (SDDMM) on a plan's pattern: z(e) = sum over k of
// A'(r, k) B'(k, c) for every non-zero e = (r, c) of W, fp32, K up to 32 (a layer's weight gradient dW<W> = dY^T X at
// batches up to 32).
//
// A thread block owns one column block of W (the plan's column-boundary table gives each row's segment in it) and
// one range of rows. It first stages B' for its columns in shared memory, as one row of K values per column, so that
// each non-zero then reads its K values of B' from shared memory instead of gathering them from global memory. Its
// warps take the rows: the row's K values of A' go to every lane's registers, lanes take the row's non-zeros in the
// block (coalesced column and value traffic), and each lane sums its K products in k order. Deterministic.
#pragma once

#include <cstdint>

namespace snk::cuda {

struct SampledParams {
  std::int32_t rows = 0, cols = 0;        // W's
  const std::uint16_t* col16 = nullptr;   // W's columns (at most 65536)
  const int* bounds = nullptr;            // [n_fine + 1][rows]: first non-zero of row r at column f * fine_cols
  int fine_cols = 64, n_fine = 0;
  int block_fine = 0, block_cols = 0;     // a thread block's column block, in fine blocks and columns
  std::int32_t rows_per_cta = 0;
  const float* a = nullptr;   // A'(r, k) = a[r * a_row + k * a_k]
  std::int64_t a_row = 0, a_k = 1;
  const float* b = nullptr;   // B'(k, c) = b[k * b_k + c * b_col]
  std::int64_t b_k = 0, b_col = 1;
  int k = 1;                  // 1 .. 32
  float* z = nullptr;         // one value per non-zero, in W's CSR order
};

// grid (row ranges, column blocks); dynamic shared memory block_cols x k floats.
static __global__ void __launch_bounds__(512) sampled_product_kernel(SampledParams p) {
  extern __shared__ float bs[];   // [block_cols][k]
  const int f0 = static_cast<int>(blockIdx.y) * p.block_fine;
  const int f1 = min(f0 + p.block_fine, p.n_fine);
  const int c0 = f0 * p.fine_cols, width = min(f1 * p.fine_cols, p.cols) - c0;
  for (int i = threadIdx.x; i < width * p.k; i += blockDim.x) {
    const int kk = i / width, c = i - kk * width;   // consecutive threads: consecutive columns of one B' row
    bs[c * p.k + kk] = p.b[kk * p.b_k + static_cast<std::int64_t>(c0 + c) * p.b_col];
  }
  __syncthreads();
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  const std::int32_t r0 = static_cast<std::int32_t>(blockIdx.x) * p.rows_per_cta;
  const std::int32_t r1 = min(r0 + p.rows_per_cta, p.rows);
  for (std::int32_t r = r0 + static_cast<std::int32_t>(threadIdx.x >> 5); r < r1; r += warps) {
    const int S = p.bounds[static_cast<std::int64_t>(f0) * p.rows + r];
    const int E = p.bounds[static_cast<std::int64_t>(f1) * p.rows + r];
    if (S == E) continue;
    const float ar = lane < p.k ? p.a[static_cast<std::int64_t>(r) * p.a_row + lane * p.a_k] : 0.0f;
    float av[32];
#pragma unroll
    for (int kk = 0; kk < 32; ++kk) av[kk] = __shfl_sync(0xffffffffu, ar, kk);
    for (int e = S + lane; e < E; e += 32) {
      const float* row = bs + (static_cast<int>(p.col16[e]) - c0) * p.k;
      float sum = 0.0f;
#pragma unroll
      for (int kk = 0; kk < 32; ++kk)
        if (kk < p.k) sum += av[kk] * row[kk];
      p.z[e] = sum;
    }
  }
}

}  // namespace snk::cuda
