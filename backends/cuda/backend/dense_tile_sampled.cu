// backends/cuda/backend/dense_tile_sampled.cu: the sampled product by dense tiles (dense_tile_sampled.hpp): cuBLAS
// loaded on first use, a tile of rows of A' B' by SGEMM (FP32), and a kernel that reads the tile at the mask's
// positions into z, one warp per row.
#include "dense_tile_sampled.hpp"

#include <cublas_v2.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>

#include "device_copy.hpp"
#include "snack/error.hpp"

namespace snk::cuda {

namespace {

// cuBLAS' entry points, from the library found at run time (none where it is absent), and one handle on the device
// current at first use, destroyed at process exit.
struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  cublasHandle_t handle = nullptr;
  int device = -1;
};

Cublas* cublas_state = nullptr;

// Registered after the runtime's start and after cuBLAS was loaded: runs before both tear down. The small-block cache is
// closed first: its own exit handler, registered before cuBLAS was loaded, would run after cuBLAS' teardown, when its
// frees no longer reach the device.
void destroy_cublas_at_exit() {
  close_block_cache_at_exit();
  if (cublas_state != nullptr && cublas_state->handle != nullptr) (void)cublas_state->destroy(cublas_state->handle);
}

// The loaded library with its handle, or null where it cannot be had.
Cublas* cublas() {
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string versioned = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    void* lib = dlopen(versioned.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return;
    auto* c = new Cublas;
    c->create = reinterpret_cast<decltype(c->create)>(dlsym(lib, "cublasCreate_v2"));
    c->set_stream = reinterpret_cast<decltype(c->set_stream)>(dlsym(lib, "cublasSetStream_v2"));
    c->sgemm = reinterpret_cast<decltype(c->sgemm)>(dlsym(lib, "cublasSgemm_v2"));
    c->destroy = reinterpret_cast<decltype(c->destroy)>(dlsym(lib, "cublasDestroy_v2"));
    if (c->create == nullptr || c->set_stream == nullptr || c->sgemm == nullptr || c->destroy == nullptr ||
        cudaGetDevice(&c->device) != cudaSuccess || c->create(&c->handle) != CUBLAS_STATUS_SUCCESS) {
      (void)cudaGetLastError();
      delete c;
      return;
    }
    cublas_state = c;
    std::atexit(destroy_cublas_at_exit);
  });
  return cublas_state;
}

// z(e) = t[(r - r0) * cols + j[e]] for the entries e of rows r0 .. r1 - 1; one warp per row.
__global__ void read_tile_at_mask(const float* __restrict__ t, Index cols, Index r0, Index r1,
                                  const Index* __restrict__ p, const Index* __restrict__ j, float* __restrict__ z) {
  const Index r = r0 + (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r >= r1) return;
  const float* row = t + (r - r0) * cols;
  for (Index e = p[r] + threadIdx.x % 32; e < p[r + 1]; e += 32) z[e] = row[j[e]];
}

// The same from a tile held column-major (t[(r - r0) + c * rt]).
__global__ void read_column_tile_at_mask(const float* __restrict__ t, Index rt, Index r0, Index r1,
                                         const Index* __restrict__ p, const Index* __restrict__ j,
                                         float* __restrict__ z) {
  const Index r = r0 + (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r >= r1) return;
  const float* row = t + (r - r0);
  for (Index e = p[r] + threadIdx.x % 32; e < p[r + 1]; e += 32) z[e] = row[j[e] * rt];
}

constexpr Index kTileFloats = Index(1) << 24;   // a tile's values at most (64 MB)

bool fits_int(Index v) { return v <= static_cast<Index>(std::numeric_limits<int>::max()); }

}  // namespace

bool dense_tiles_pay(Index rows, Index cols, Index k, Index nnz) {
  return k >= kDenseTileMinK && nnz * kDenseTileAdvantage >= rows * cols;
}

bool dense_tile_sampled(const DenseTileSampled& d, cudaStream_t stream) {
  Cublas* c = cublas();
  int device = -1;
  if (c == nullptr || cudaGetDevice(&device) != cudaSuccess || device != c->device) return false;
  // B' stored by rows of k (column-major cols x K), else by columns (K x cols); A' by rows of r (K x rt), else by
  // columns of k (rt x K); each leading dimension at least its matrix's rows, as cuBLAS requires.
  const bool b_rows = d.b_col == 1 && d.b_k >= static_cast<std::int64_t>(d.cols);
  const bool a_rows = d.a_k == 1 && d.a_row >= static_cast<std::int64_t>(d.k);
  const Index ldb = static_cast<Index>(b_rows ? d.b_k : d.b_col), lda = static_cast<Index>(a_rows ? d.a_row : d.a_k);
  if (!b_rows && (d.b_k != 1 || ldb < d.k)) return false;
  if (!a_rows && (d.a_row != 1 || lda < d.rows)) return false;
  if (!fits_int(d.cols) || !fits_int(d.k) || !fits_int(d.rows) || !fits_int(ldb) || !fits_int(lda)) return false;
  if (c->set_stream(c->handle, stream) != CUBLAS_STATUS_SUCCESS) return false;
  const Index tile_rows = std::clamp<Index>(kTileFloats / std::max<Index>(d.cols, 1), 1, d.rows);
  DeviceBuffer tile(static_cast<std::size_t>(tile_rows * d.cols * sizeof(float)));
  float* t = static_cast<float*>(tile.get());
  const float one = 1.0f, zero = 0.0f;
  // The tile is made row-major as T' = B'^T A'^T (column-major cols x rt), whose operands cuBLAS reads transposed
  // (OP_T) where B' is stored by columns of k or A' by columns of r. Where both are, it is made column-major as A' B'
  // instead, reading both as stored (OP_N): the faster form for a layer's weight gradient from X held features by batch
  // and dY by rows (bench/results/gpt-h200.md).
  const bool column_tile = !b_rows && !a_rows;
  for (Index r0 = 0; r0 < d.rows; r0 += tile_rows) {
    const Index rt = std::min(tile_rows, d.rows - r0);
    const float* a = d.a + static_cast<std::int64_t>(r0) * d.a_row;
    const cublasStatus_t st =
        column_tile
            ? c->sgemm(c->handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(rt), static_cast<int>(d.cols),
                       static_cast<int>(d.k), &one, a, static_cast<int>(lda), d.b, static_cast<int>(ldb), &zero, t,
                       static_cast<int>(rt))
            : c->sgemm(c->handle, b_rows ? CUBLAS_OP_N : CUBLAS_OP_T, a_rows ? CUBLAS_OP_N : CUBLAS_OP_T,
                       static_cast<int>(d.cols), static_cast<int>(rt), static_cast<int>(d.k), &one, d.b,
                       static_cast<int>(ldb), a, static_cast<int>(lda), &zero, t, static_cast<int>(d.cols));
    if (st != CUBLAS_STATUS_SUCCESS)
      throw Error(st == CUBLAS_STATUS_ALLOC_FAILED ? Info::OutOfMemory : Info::Panic,
                  "cuda backend: the sampled product's dense tile (cuBLAS status " + std::to_string(int(st)) + ")");
    const Index warps_per_block = 8;
    const Index blocks = (rt + warps_per_block - 1) / warps_per_block;
    if (column_tile)
      read_column_tile_at_mask<<<static_cast<unsigned>(blocks), 32 * warps_per_block, 0, stream>>>(t, rt, r0, r0 + rt,
                                                                                                  d.p, d.j, d.z);
    else
      read_tile_at_mask<<<static_cast<unsigned>(blocks), 32 * warps_per_block, 0, stream>>>(t, d.cols, r0, r0 + rt,
                                                                                             d.p, d.j, d.z);
    check_queued("the sampled product's dense tile");
  }
  return true;
}

}  // namespace snk::cuda
