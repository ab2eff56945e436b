// backends/cuda/backend/dense_tile_sampled.hpp: the sampled product (SDDMM) by dense tiles, for long K: a tile of rows
// of A' B' made whole by cuBLAS' SGEMM, then read at the mask's positions. Where K is long and the mask not too sparse,
// the GEMM's rate over every position beats the SpMM library's sampled kernel over the mask's positions only
// (bench/results/spmm-dispatch-rules.md). cuBLAS is loaded on first use (the plugin itself links no CUDA library but
// the static runtime, so that it loads where only a driver is installed); where it cannot be loaded, the path
// declines and the sampled kernel runs.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "snack/types.hpp"

namespace snk::cuda {

// The operands of a sampled product, as the SpMM library's SampledArgs address them: A'(r, k) = a[r * a_row + k * a_k],
// B'(k, c) = b[k * b_k + c * b_col] (one of each pair of strides is 1), K values of k; the mask's CSR form (p, j) in
// device memory, rows x cols; z: one value per mask entry, in its CSR order.
struct DenseTileSampled {
  const float* a = nullptr;
  std::int64_t a_row = 0, a_k = 1;
  const float* b = nullptr;
  std::int64_t b_k = 0, b_col = 1;
  Index rows = 0, cols = 0, k = 0;
  const Index* p = nullptr;
  const Index* j = nullptr;
  float* z = nullptr;
};

// Whether dense tiles pay for this product: K at least kDenseTileMinK and the mask holding at least one position in
// kDenseTileAdvantage (the dense work is rows x cols x K; the sampled kernel's, nnz x K, at a lower rate).
constexpr Index kDenseTileMinK = 512;
constexpr Index kDenseTileAdvantage = 32;
bool dense_tiles_pay(Index rows, Index cols, Index k, Index nnz);

// Runs the product on `stream` (queued); false, with nothing queued, where cuBLAS is not available. Throws
// snk::Error(OutOfMemory) where the tile cannot be allocated.
bool dense_tile_sampled(const DenseTileSampled& d, cudaStream_t stream);

}  // namespace snk::cuda
