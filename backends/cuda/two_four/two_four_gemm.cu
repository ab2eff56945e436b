// two_four/two_four_gemm.cu: the 2:4 GEMM kernels (see two_four_gemm.hpp), their dispatcher, and the conversions
// between FP32 data and the kernels' forms.
//
// Two kernel templates: the warp-level one (mma.sp, any GPU from sm_80) and the warpgroup one (wgmma.mma_async.sp,
// sm_90a; described at its template). In the warp-level one a thread block of 8 warps computes a BM x BN block of Y
// over a K range, in steps of 64 columns of W: a stage holds W's 64-column slice in compressed form (BM rows x 32
// values, 64 bytes a row) with its metadata (two words a row) and X's matching 64 x BN slice stored batch column after
// batch column (128 bytes each). Stages are filled by cp.async, 3 or 4 deep; each thread works out its chunks once per
// block.
// Each warp owns a (BM / WM) x (BN / WN) block of Y and, per 32 columns of W, loads its A fragments (compressed
// 16 x 16) and B fragments (32 x 8) with ldmatrix, builds each m16 tile's metadata word from the two rows its thread
// pair reads, and issues mma.sp m16n8k32 with FP32 accumulators. Shared-memory rows are XOR-swizzled by 16-byte
// chunk, so every ldmatrix phase touches 8 distinct chunks of one 128-byte line.
//
// Metadata fragment (PTX ISA, sparse mma m16n8k32 with 16-bit inputs, sparsity selector 0): in each quad of lanes,
// thread 0 holds rows g and g + 8 (g = lane / 4) for columns 0-15 of the 32 (row g in the low 16 bits), thread 1 the
// same rows for columns 16-31. The stored word of a row and 32 columns has columns 0-15 in its low 16 bits, so each
// fragment is two half-words of two stored words.
//
// Edges: rows past W's, batch columns past X's and columns past K are filled with zeros in shared memory (metadata
// of absent rows with a valid code), and stores are guarded; X is read with 16-byte copies where its leading
// dimension and address allow and 8 columns lie inside K, element by element otherwise.
#include "two_four/two_four_gemm.hpp"

#include "spmm/loads.cuh"
#include "two_four/warp_mma.cuh"
#include "two_four/warpgroup_mma.cuh"

#include <cooperative_groups.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <type_traits>

namespace snk::cuda {
namespace {

constexpr int kThreads = 256;      // 8 warps
constexpr int kTileK = 64;         // logical columns of W per stage
constexpr std::uint32_t kIdleMeta = 0x44444444u;   // positions 0 and 1 in every group: a valid code for zero rows
constexpr int kMaxClusterParts = 8;                 // the largest portable cluster

// cp.async of 4 bytes (a metadata word) into shared memory; the 16-byte form and the group calls are spmm/loads.cuh's.
__device__ __forceinline__ void cp_async4(void* smem, const void* gmem) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(shared_address(smem)), "l"(gmem));
}

template <TwoFourType T>
__device__ __forceinline__ std::uint16_t round_to(float v) {
  if constexpr (T == TwoFourType::FP16) return __half_as_ushort(__float2half_rn(v));
  else return __bfloat16_as_ushort(__float2bfloat16_rn(v));
}

struct Args {
  const std::uint16_t* values;
  const std::uint32_t* meta;
  const std::uint16_t* x;
  std::uint16_t* y;            // rounded output, or
  float* y_fp32;               // FP32 output (TwoFourProblem::y_fp32)
  float* partial;              // splits > 1: splits x batch x rows FP32 parts (column-major, ld = rows)
  int rows, cols, padded, batch;
  long long ldx, y_rs, y_cs;   // Y(i, b) at i * y_rs + b * y_cs
  int tiles_k, tiles_per_split;
  bool cluster_sum;            // splits > 1: the parts are one cluster's blocks, summed in their shared memory
  bool x_vector;               // X may be read in 16-byte copies (ldx % 8 == 0 and x 16-byte aligned)
};

template <TwoFourType T>
__device__ __forceinline__ void store(const Args& a, long long row, long long col, float v) {
  const long long at = row * a.y_rs + col * a.y_cs;
  if (a.y_fp32) a.y_fp32[at] = v;
  else a.y[at] = round_to<T>(v);
}

// A sum of Y, (row, col), from block part blockIdx.y: stored (rounded or not) where the K range is whole, else kept
// in the split parts for sum_parts; outside Y it is dropped.
template <TwoFourType T>
__device__ __forceinline__ void store_result(const Args& a, int row, int col, float v) {
  if (row >= a.rows || col >= a.batch) return;
  if (gridDim.y == 1) store<T>(a, row, col, v);
  else a.partial[(static_cast<long long>(blockIdx.y) * a.batch + col) * a.rows + row] = v;
}

// The block's tile of Y (first row m0, first batch column n0) and its K steps [kt_begin, kt_begin + steps). Tiles go
// in groups of 8 along the rows, so that blocks running together share X's slices in L2.
struct BlockTile {
  int m0, n0, kt_begin, steps;
};
__device__ __forceinline__ BlockTile block_tile(const Args& a, int bm, int bn) {
  const int tiles_m = (a.rows + bm - 1) / bm, tiles_n = (a.batch + bn - 1) / bn;
  const int per_group = 8 * tiles_n, group = blockIdx.x / per_group, first = group * 8;
  const int group_rows = min(tiles_m - first, 8), in_group = blockIdx.x % per_group;
  const int kt_begin = blockIdx.y * a.tiles_per_split;
  return {(first + in_group % group_rows) * bm, (in_group / group_rows) * bn, kt_begin,
          min(a.tiles_k, kt_begin + a.tiles_per_split) - kt_begin};
}

template <int BM, int BN, int WM, int WN, int Stages>
struct Shape {
  static_assert(WM * WN * 32 == kThreads, "8 warps");
  static constexpr int kWarpRows = BM / WM, kWarpCols = BN / WN;
  static constexpr int kMt = kWarpRows / 16, kNt = kWarpCols / 8;
  static constexpr int kABytes = BM * 64, kMetaBytes = BM * 8, kBBytes = BN * 128;
  static constexpr int kStageBytes = kABytes + kMetaBytes + kBBytes;
  static constexpr int kSmem = kStageBytes * Stages;
  static constexpr int kMinBlocks = kMt * kNt > 16 ? 1 : 2;   // large warp tiles need the registers of one block
};

// Fills stages: W's columns [64 kt, 64 kt + 64) of rows [m0, m0 + BM) and X's matching rows of batch columns
// [n0, n0 + BN). Each thread's chunks (their rows, shared-memory offsets and first addresses) are fixed for the block,
// so they are worked out once and each stage only adds the step's offset.
template <int BM, int BN>
struct StageLoader {
  static constexpr int kA = BM * 4 / kThreads, kMeta = (BM * 2 + kThreads - 1) / kThreads, kB = BN * 8 / kThreads;
  static_assert(kA >= 1 && BN * 8 % kThreads == 0, "whole chunks per thread");
  const std::uint16_t* a_src[kA];
  std::uint32_t a_dst[kA];
  int a_col[kA];          // the chunk's first compressed column at step 0, or past the end for an absent row
  const std::uint32_t* m_src[kMeta];
  int m_word[kMeta];      // the word at step 0, or past the end for an absent row
  const std::uint16_t* b_src[kB];
  std::uint32_t b_dst[kB];
  int b_k[kB];            // the chunk's first row of X at step 0
  bool b_col[kB];         // the batch column exists

  __device__ StageLoader(const Args& a, int m0, int n0) {
    const int half_cols = a.padded / 2, words = a.padded / 32;
#pragma unroll
    for (int q = 0; q < kA; ++q) {
      const int i = threadIdx.x + q * kThreads, r = i >> 2, c = i & 3, row = m0 + r;
      a_dst[q] = r * 64 + ((c ^ ((r >> 1) & 3)) << 4);
      a_col[q] = row < a.rows ? c * 8 : half_cols;
      a_src[q] = a.values + (row < a.rows ? static_cast<long long>(row) * half_cols + c * 8 : 0);
    }
#pragma unroll
    for (int q = 0; q < kMeta; ++q) {
      const int i = threadIdx.x + q * kThreads, r = i >> 1, row = m0 + r;
      const bool live = i < BM * 2 && row < a.rows;
      m_word[q] = i < BM * 2 ? (live ? (i & 1) : words) : -1;   // -1: no chunk for this thread
      m_src[q] = a.meta + (live ? static_cast<long long>(row) * words + (i & 1) : 0);
    }
#pragma unroll
    for (int q = 0; q < kB; ++q) {
      const int i = threadIdx.x + q * kThreads, n = i >> 3, c = i & 7, col = n0 + n;
      b_dst[q] = BM * 72 + n * 128 + ((c ^ (n & 7)) << 4);
      b_k[q] = c * 8;
      b_col[q] = col < a.batch;
      b_src[q] = a.x + (b_col[q] ? static_cast<long long>(col) * a.ldx + c * 8 : 0);
    }
  }

  __device__ __forceinline__ void load(const Args& a, unsigned char* stage, int kt) const {
    const int half_cols = a.padded / 2, words = a.padded / 32;
#pragma unroll
    for (int q = 0; q < kA; ++q) {
      const bool valid = a_col[q] + kt * 32 < half_cols;
      cp_async16(stage + a_dst[q], valid ? a_src[q] + kt * 32 : a.values, valid ? 16 : 0);
    }
#pragma unroll
    for (int q = 0; q < kMeta; ++q) {
      if (m_word[q] < 0) continue;
      const int i = threadIdx.x + q * kThreads;
      if (m_word[q] + kt * 2 < words) cp_async4(stage + BM * 64 + i * 4, m_src[q] + kt * 2);
      else reinterpret_cast<std::uint32_t*>(stage + BM * 64)[i] = kIdleMeta;
    }
    if (a.x_vector && (kt + 1) * kTileK <= a.cols) {   // the step's rows of X all inside K: 16-byte copies only
#pragma unroll
      for (int q = 0; q < kB; ++q) cp_async16(stage + b_dst[q], b_src[q] + kt * kTileK, b_col[q] ? 16 : 0);
      return;
    }
#pragma unroll
    for (int q = 0; q < kB; ++q) {
      const int k = b_k[q] + kt * kTileK;
      const std::uint16_t* src = b_src[q] + kt * kTileK;
      if (b_col[q] && k + 8 <= a.cols && a.x_vector) {
        cp_async16(stage + b_dst[q], src, 16);
      } else {
        std::uint16_t v[8];
        for (int e = 0; e < 8; ++e) v[e] = (b_col[q] && k + e < a.cols) ? src[e] : 0;
        std::memcpy(stage + b_dst[q], v, 16);
      }
    }
  }
};

template <TwoFourType T, int BM, int BN, int WM, int WN, int Stages>
__global__ void __launch_bounds__(kThreads, (Shape<BM, BN, WM, WN, Stages>::kMinBlocks)) two_four_kernel(Args a) {
  using S = Shape<BM, BN, WM, WN, Stages>;
  constexpr int kStages = Stages;
  extern __shared__ __align__(128) unsigned char smem[];
  const auto [m0, n0, kt_begin, ntiles] = block_tile(a, BM, BN);

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int wrow = (warp / WN) * S::kWarpRows, wcol = (warp % WN) * S::kWarpCols;
  const int g = lane >> 2, t = lane & 3;

  float acc[S::kMt][S::kNt][4];
#pragma unroll
  for (int i = 0; i < S::kMt; ++i)
#pragma unroll
    for (int j = 0; j < S::kNt; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.0f;

  const StageLoader<BM, BN> loader(a, m0, n0);
  // Fragment addresses within a stage. A 16-row step down W or 8-column step across X keeps the swizzle (it acts on
  // address bits the step leaves alone), and the second 32 columns of a stage flip one chunk bit: so one base each.
  const int ra = wrow + (lane & 7) + ((lane >> 3) & 1) * 8, rb = wcol + (lane & 7);
  const std::uint32_t a_off = ra * 64 + (((lane >> 4) ^ ((ra >> 1) & 3)) << 4);
  const std::uint32_t b_off = BM * 72 + rb * 128 + (((lane >> 3) ^ (rb & 7)) << 4);
  const int meta_row = wrow + g;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ntiles) loader.load(a, smem + s * S::kStageBytes, kt_begin + s);
    cp_async_commit();
  }
  for (int it = 0; it < ntiles; ++it) {
    cp_async_wait<kStages - 2>();
    __syncthreads();
    const int next = it + kStages - 1;
    if (next < ntiles) loader.load(a, smem + (next % kStages) * S::kStageBytes, kt_begin + next);
    cp_async_commit();

    const unsigned char* stage = smem + (it % kStages) * S::kStageBytes;
    const std::uint32_t base = shared_address(stage);
    const std::uint32_t* sMeta = reinterpret_cast<const std::uint32_t*>(stage + BM * 64) + meta_row * 2;
    // Both steps' metadata words of rows r and r + 8, one 8-byte load each.
    uint2 meta_lo[S::kMt], meta_hi[S::kMt];
#pragma unroll
    for (int i = 0; i < S::kMt; ++i) {
      meta_lo[i] = *reinterpret_cast<const uint2*>(sMeta + i * 32);
      meta_hi[i] = *reinterpret_cast<const uint2*>(sMeta + i * 32 + 16);
    }
    const std::uint32_t perm = (t & 1) ? 0x7632 : 0x5410;
#pragma unroll
    for (int step = 0; step < 2; ++step) {   // 32 logical columns each
      std::uint32_t af[S::kMt][4], ef[S::kMt];
#pragma unroll
      for (int i = 0; i < S::kMt; ++i) {
        ldmatrix_x4(af[i], base + ((a_off + i * 1024) ^ (step * 32)));
        ef[i] = step == 0 ? __byte_perm(meta_lo[i].x, meta_hi[i].x, perm)
                          : __byte_perm(meta_lo[i].y, meta_hi[i].y, perm);
      }
#pragma unroll
      for (int j = 0; j < S::kNt; ++j) {
        std::uint32_t bf[4];
        ldmatrix_x4(bf, base + ((b_off + j * 1024) ^ (step * 64)));
#pragma unroll
        for (int i = 0; i < S::kMt; ++i) mma_sp<T>(acc[i][j], af[i], bf, ef[i]);
      }
    }
  }
  cp_async_wait<0>();

  // acc[i][j]: rows wrow + 16 i + g (+ 8 for the last two), batch columns wcol + 8 j + 2 t (+ 1 for the odd ones).
#pragma unroll
  for (int i = 0; i < S::kMt; ++i)
#pragma unroll
    for (int j = 0; j < S::kNt; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q)
        store_result<T>(a, m0 + wrow + i * 16 + g + (q >> 1) * 8, n0 + wcol + j * 8 + 2 * t + (q & 1), acc[i][j][q]);
}

// The warpgroup form (sm_90a). A stage holds the same three pieces as above, each on a 1024-byte boundary: W's
// compressed slice (BM rows of 64 bytes, 16-byte chunk c of row r at chunk c ^ ((r / 2) % 4): the tensor-memory
// accelerator's 64-byte swizzle), X's slice (BN columns of 128 bytes in its 128-byte swizzle, which wgmma reads
// through a descriptor) and the metadata (two words a row). W's and X's slices come by TMA (cp.async.bulk.tensor, whose
// out-of-bounds elements read as zeros: rows past W, columns past K, batch columns past X); the metadata words by
// cp.async from warp 0 (a row or word past W's reads a valid idle code). Both complete on the stage's `full` barrier.
//
// Each of the two warpgroups owns MW m64 slabs of the block's rows and all BN columns. Per 32 columns of W a warp
// loads its slab's A fragments with ldmatrix and the warpgroup issues one wgmma.mma_async.sp m64nBNk32 per slab. One
// step's products stay in flight while the next step's are issued (the A fragments alternate between two register
// buffers); once a step's products are done, every thread arrives on that stage's `empty` barrier (a thread's own
// arrival is what orders its reads of the stage before the refill), and warp 0 refills a stage only after all have.
// Warp 0 keeps Stages - 2 steps in flight ahead of the one computing.
template <int MW, int BN, int Stages>
struct WarpgroupShape {
  static constexpr int kBM = 128 * MW;
  static constexpr int kABytes = kBM * 64, kBBytes = BN * 128, kMetaBytes = kBM * 8;
  static constexpr int kStageBytes = kABytes + kBBytes + kMetaBytes;
  static_assert(kABytes % 1024 == 0 && kBBytes % 1024 == 0 && kStageBytes % 1024 == 0, "1024-byte boundaries");
  static_assert(Stages >= 3, "a step computing, one in flight, one filling");
  static constexpr int kBarriers = kStageBytes * Stages;   // full[Stages], then empty[Stages]
  static constexpr int kSmem = kBarriers + 16 * Stages + 1024;   // + the slack to align the first stage
};

// The kernel's parameters: the tensor maps of W's values and of X (made on the host per call), and the rest.
struct WarpgroupArgs {
  CUtensorMap w_map;
  CUtensorMap x_map;
  Args a;
};

#if SNK_HAVE_WGMMA
__device__ const std::uint32_t kIdleMetaWord = kIdleMeta;   // the source of metadata words past W

__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int inner, int outer,
                                            std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      ::"r"(shared_address(dst)), "l"(reinterpret_cast<std::uint64_t>(map)), "r"(inner), "r"(outer),
      "r"(shared_address(bar))
      : "memory");
}
#endif

template <TwoFourType T, int MW, int BN, int Stages>
__global__ void __launch_bounds__(kThreads, 1) two_four_warpgroup_kernel(const __grid_constant__ WarpgroupArgs args) {
#if SNK_HAVE_WGMMA
  using S = WarpgroupShape<MW, BN, Stages>;
  constexpr int BM = S::kBM;
  const Args& a = args.a;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + S::kBarriers);
  std::uint64_t* empty = full + Stages;
  const BlockTile tile = block_tile(a, BM, BN);   // named, not unpacked: the lambdas below capture its fields
  const int m0 = tile.m0, n0 = tile.n0, kt_begin = tile.kt_begin, ntiles = tile.steps;

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int wrow = (warp >> 2) * MW * 64 + (warp & 3) * 16;   // this warp's first row in its warpgroup's first slab
  const int g = lane >> 2, t = lane & 3;
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      mbarrier_init(full + s, 1 + 32);   // the expect-tx arrival and warp 0's 32 metadata arrivals
      mbarrier_init(empty + s, kThreads);   // one arrival per thread
    }
    mbarrier_init_fence();
  }
  __syncthreads();

  // Warp 0 fills the stage of step j (relative to kt_begin) once the step that last used it is done.
  const int words = a.padded / 32;
  auto fill = [&](int j) {
    if (j >= ntiles) return;
    const int s = j % Stages;
    if (j >= Stages) mbarrier_wait(empty + s, ((j / Stages) + 1) & 1);
    unsigned char* stage = smem + s * S::kStageBytes;
    const int kt = kt_begin + j;
    if (lane == 0) {
      mbarrier_expect_tx(full + s, S::kABytes + S::kBBytes);
      tma_load_2d(stage, &args.w_map, kt * 32, m0, full + s);
      tma_load_2d(stage + S::kABytes, &args.x_map, kt * kTileK, n0, full + s);
    }
    std::uint32_t* meta = reinterpret_cast<std::uint32_t*>(stage + S::kABytes + S::kBBytes);
#pragma unroll
    for (int q = 0; q < BM * 2 / 32; ++q) {
      const int i = lane + q * 32, row = m0 + (i >> 1), word = kt * 2 + (i & 1);
      const std::uint32_t* src =
          row < a.rows && word < words ? a.meta + static_cast<long long>(row) * words + word : &kIdleMetaWord;
      cp_async4(meta + i, src);
    }
    cp_async_arrive(full + s);
  };

  float acc[MW][BN / 2];
#pragma unroll
  for (int i = 0; i < MW; ++i)
#pragma unroll
    for (int q = 0; q < BN / 2; ++q) acc[i][q] = 0.0f;

  const int ra = wrow + (lane & 7) + ((lane >> 3) & 1) * 8;
  const std::uint32_t a_off = ra * 64 + (((lane >> 4) ^ ((ra >> 1) & 3)) << 4);
  const std::uint32_t perm = (t & 1) ? 0x7632 : 0x5410;
  if (warp == 0)
    for (int j = 0; j < Stages - 2; ++j) fill(j);
  std::uint32_t af[2][MW][2][4];
  auto step_at = [&](int it, auto buffer) {
    constexpr int B = decltype(buffer)::value;
    if (warp == 0) fill(it + Stages - 2);
    const int s = it % Stages;
    mbarrier_wait(full + s, (it / Stages) & 1);
    const unsigned char* stage = smem + s * S::kStageBytes;
    const std::uint32_t base = shared_address(stage);
    const std::uint32_t* sMeta =
        reinterpret_cast<const std::uint32_t*>(stage + S::kABytes + S::kBBytes) + (wrow + g) * 2;
    std::uint32_t ef[MW][2];
#pragma unroll
    for (int i = 0; i < MW; ++i) {
      const uint2 lo = *reinterpret_cast<const uint2*>(sMeta + i * 128);
      const uint2 hi = *reinterpret_cast<const uint2*>(sMeta + i * 128 + 16);
      ef[i][0] = __byte_perm(lo.x, hi.x, perm);
      ef[i][1] = __byte_perm(lo.y, hi.y, perm);
#pragma unroll
      for (int k = 0; k < 2; ++k) ldmatrix_x4(af[B][i][k], base + ((a_off + i * 4096) ^ (k * 32)));
    }
    const std::uint64_t b_desc = swizzle128_descriptor(base + S::kABytes);
#pragma unroll
    for (int i = 0; i < MW; ++i) fence_accumulators(acc[i]);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < 2; ++k)
#pragma unroll
      for (int i = 0; i < MW; ++i) wgmma_sp<T, BN>(acc[i], af[B][i][k], b_desc + k * 4, ef[i][k]);   // + 64 bytes
    wgmma_commit();
    wgmma_wait<1>();
#pragma unroll
    for (int i = 0; i < MW; ++i) fence_accumulators(acc[i]);
    if (it > 0) mbarrier_arrive(empty + (it - 1) % Stages);
  };
  int it = 0;
  for (; it + 1 < ntiles; it += 2) {
    step_at(it, std::integral_constant<int, 0>());
    step_at(it + 1, std::integral_constant<int, 1>());
  }
  if (it < ntiles) step_at(it, std::integral_constant<int, 0>());
  wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < MW; ++i) fence_accumulators(acc[i]);

  // acc[i][4 j + r] (warpgroup_mma.cuh's accumulator layout) is the tile's row wrow + 64 i + g + 8 (r >> 1) and
  // column 8 j + 2 t + (r & 1).
  auto row_of = [&](int i, int q) { return wrow + i * 64 + g + ((q & 3) >> 1) * 8; };
  auto col_of = [&](int q) { return (q >> 2) * 8 + 2 * t + (q & 1); };
  if (!a.cluster_sum) {
#pragma unroll
    for (int i = 0; i < MW; ++i)
#pragma unroll
      for (int q = 0; q < BN / 2; ++q) store_result<T>(a, m0 + row_of(i, q), n0 + col_of(q), acc[i][q]);
    return;
  }
  // The K parts of this tile are the blocks of one cluster. Each writes its sums over the stages it no longer needs,
  // column-major with BM + 4 floats a column (a warp's stores then hit 32 banks); block r of the cluster adds the
  // r-th slice of the tile over every block's copy, in the order of the parts, and stores it.
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  constexpr int kLd = BM + 4;
  static_assert(kLd * BN * 4 <= S::kBarriers, "the sums fit in the stages");
  float* part = reinterpret_cast<float*>(smem);
  __syncthreads();   // both warpgroups are done reading the stages
#pragma unroll
  for (int i = 0; i < MW; ++i)
#pragma unroll
    for (int q = 0; q < BN / 2; ++q) part[col_of(q) * kLd + row_of(i, q)] = acc[i][q];
  cluster.sync();
  const int parts = static_cast<int>(cluster.num_blocks()), rank = static_cast<int>(cluster.block_rank());
  const float* copy[kMaxClusterParts];   // each block's sums, as this block addresses them
#pragma unroll
  for (int p = 0; p < kMaxClusterParts; ++p) copy[p] = cluster.map_shared_rank(part, p < parts ? p : 0);
  constexpr int kQuads = BM / 4 * BN;   // four rows of one column each
  const int per = (kQuads + parts - 1) / parts, end = min(kQuads, (rank + 1) * per);
  for (int e = rank * per + static_cast<int>(threadIdx.x); e < end; e += kThreads) {
    const int col = e / (BM / 4), row = e % (BM / 4) * 4;
    float4 v[kMaxClusterParts];   // every load issued before the first add
#pragma unroll
    for (int p = 0; p < kMaxClusterParts; ++p)
      if (p < parts) v[p] = *reinterpret_cast<const float4*>(copy[p] + col * kLd + row);
    float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int p = 0; p < kMaxClusterParts; ++p)
      if (p < parts) {
        s.x += v[p].x;
        s.y += v[p].y;
        s.z += v[p].z;
        s.w += v[p].w;
      }
    if (n0 + col >= a.batch) continue;
    const float sums[4] = {s.x, s.y, s.z, s.w};
#pragma unroll
    for (int r = 0; r < 4; ++r)
      if (m0 + row + r < a.rows) store<T>(a, m0 + row + r, n0 + col, sums[r]);
  }
  cluster.sync();   // no block leaves while another still reads its shared memory
#else
  __trap();   // never launched: warpgroup_supports() is false where this body is not built
#endif
}

// Y = the sum of the split parts, rounded once.
template <TwoFourType T>
__global__ void sum_parts(Args a, int splits) {
  const long long total = static_cast<long long>(a.rows) * a.batch;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    float s = 0.0f;
    for (int p = 0; p < splits; ++p) s += a.partial[p * total + e];
    const long long col = e / a.rows, row = e % a.rows;
    store<T>(a, row, col, s);
  }
}

int sm_count() {
  static const int n = [] {
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      return 132;
    return v;
  }();
  return n;
}

// The K-range parts for `tiles` tiles of `steps` 64-column steps on a GPU that runs `slots` blocks at once: none
// while the tiles fill the GPU; else the fewest parts that fill at least 90% of one wave with the last wave at least
// 85% full, each part keeping 4 steps or more (at most 32 parts).
int split_rule(long long tiles, int steps, long long slots) {
  if (tiles >= slots) return 1;
  const int most = std::max(1, std::min(32, steps / 4));
  for (int s = 1; s <= most; ++s) {
    const long long blocks = tiles * s, waves = (blocks + slots - 1) / slots;
    if (blocks * 10 >= slots * 9 && blocks * 100 >= waves * slots * 85) return s;
  }
  return most;
}

// Launches Kernel (tiles of bm x bn, `smem` bytes of dynamic shared memory, at least `min_blocks` per SM) over the
// problem, splitting K by split_rule unless `splits` says otherwise, and sums the parts: through the shared memory of
// a cluster of the parts' blocks where the kernel can (kClusterSum), the parts are at most 8 (a portable cluster) and
// the clusters run in as few waves as the blocks would alone; else in global memory, by a second kernel. `sum`
// forces one of the two.
Args& args_of(Args& a) { return a; }
Args& args_of(WarpgroupArgs& p) { return p.a; }

template <TwoFourType T, auto Kernel, bool kClusterSum, class Params>
cudaError_t launch(int bm, int bn, int smem, int min_blocks, Params params, int splits, TwoFourSum sum,
                   cudaStream_t stream, TwoFourLaunch* out) {
  Args& a = args_of(params);
  static const cudaError_t attr = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (attr != cudaSuccess) return attr;
  static const int per_sm = [&] {
    int n = 0;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, Kernel, kThreads, smem) == cudaSuccess && n > 0
               ? n : min_blocks;
  }();
  const long long tiles = static_cast<long long>((a.rows + bm - 1) / bm) * ((a.batch + bn - 1) / bn);
  const long long slots = static_cast<long long>(per_sm) * sm_count();
  if (splits <= 0) splits = split_rule(tiles, a.tiles_k, slots);
  splits = std::min(splits, a.tiles_k);
  a.tiles_per_split = (a.tiles_k + splits - 1) / splits;
  splits = (a.tiles_k + a.tiles_per_split - 1) / a.tiles_per_split;
  if (tiles > 0x7fffffffLL) return cudaErrorInvalidValue;

  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(tiles), splits);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = splits;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t clustered = config;   // the same launch, the parts of each tile one cluster
  clustered.attrs = &cluster;
  clustered.numAttrs = 1;
  // How many clusters of n blocks this GPU runs at once, per n (plus one; 0: not yet asked). Clusters fill the SMs of
  // a GPC in whole clusters, so they can take fewer blocks at once than the blocks alone would.
  static std::array<std::atomic<int>, kMaxClusterParts + 1> at_once{};
  int clusters = 0;
  if (kClusterSum && splits >= 2 && splits <= kMaxClusterParts) {
    if (at_once[splits] == 0) {
      int n = 0;
      at_once[splits] = (cudaOccupancyMaxActiveClusters(&n, Kernel, &clustered) == cudaSuccess ? n : 0) + 1;
    }
    clusters = at_once[splits] - 1;
  }
  // Auto sums in a cluster unless clusters would take more waves than the blocks alone.
  a.cluster_sum = clusters > 0 && sum != TwoFourSum::Parts &&
                  (sum == TwoFourSum::Cluster ||
                   (tiles + clusters - 1) / clusters <= (tiles * splits + slots - 1) / slots);
  if (splits > 1 && sum == TwoFourSum::Cluster && !a.cluster_sum) return cudaErrorNotSupported;
  if (a.cluster_sum) {
    config = clustered;
  } else if (splits > 1) {
    const size_t bytes = sizeof(float) * splits * static_cast<size_t>(a.rows) * a.batch;
    void* p = nullptr;
    if (cudaError_t e = cudaMallocAsync(&p, bytes, stream); e != cudaSuccess) return e;
    a.partial = static_cast<float*>(p);
  }
  cudaError_t err = cudaLaunchKernelEx(&config, Kernel, params);
  if (err == cudaSuccess) err = cudaGetLastError();
  if (splits > 1 && !a.cluster_sum) {
    if (err == cudaSuccess) {
      const long long total = static_cast<long long>(a.rows) * a.batch;
      const int blocks = static_cast<int>(std::min<long long>((total + 255) / 256, 8LL * sm_count()));
      sum_parts<T><<<blocks, 256, 0, stream>>>(a, splits);
      err = cudaGetLastError();
    }
    cudaFreeAsync(a.partial, stream);
  }
  if (out) {
    out->splits = splits;
    out->cluster_sum = a.cluster_sum;
    out->clusters_at_once = clusters;
  }
  return err;
}

template <int BM, int BN, int WM, int WN, int Stages>
cudaError_t run_tile(const Args& a, TwoFourType type, int splits, TwoFourSum sum, cudaStream_t stream,
                     TwoFourLaunch* out) {
  using S = Shape<BM, BN, WM, WN, Stages>;
  return type == TwoFourType::FP16
             ? launch<TwoFourType::FP16, two_four_kernel<TwoFourType::FP16, BM, BN, WM, WN, Stages>, false>(
                   BM, BN, S::kSmem, S::kMinBlocks, a, splits, sum, stream, out)
             : launch<TwoFourType::BF16, two_four_kernel<TwoFourType::BF16, BM, BN, WM, WN, Stages>, false>(
                   BM, BN, S::kSmem, S::kMinBlocks, a, splits, sum, stream, out);
}

// cuTensorMapEncodeTiled, from the driver the runtime loaded (null where it has none).
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encode;
}

// A 2-D map of 16-bit elements, `inner` x `outer` with rows `stride` bytes apart, read in boxes of box_inner x
// box_outer with the given swizzle; elements outside read as zeros.
bool encode_map(CUtensorMap* map, const void* base, long long inner, long long outer, long long stride, int box_inner,
                int box_outer, CUtensorMapSwizzle swizzle) {
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(stride)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_inner), static_cast<cuuint32_t>(box_outer)};
  const cuuint32_t steps[2] = {1, 1};
  return tensor_map_encoder()(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, const_cast<void*>(base), dims, strides, box,
                              steps, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

template <int MW, int BN, int Stages>
cudaError_t run_warpgroup_tile(const Args& a, TwoFourType type, int splits, TwoFourSum sum, cudaStream_t stream,
                               TwoFourLaunch* out) {
  using S = WarpgroupShape<MW, BN, Stages>;
  WarpgroupArgs p{};
  p.a = a;
  if (!encode_map(&p.w_map, a.values, a.padded / 2, a.rows, a.padded, 32, S::kBM, CU_TENSOR_MAP_SWIZZLE_64B) ||
      !encode_map(&p.x_map, a.x, a.cols, a.batch, a.ldx * 2, kTileK, BN, CU_TENSOR_MAP_SWIZZLE_128B))
    return cudaErrorInvalidValue;
  return type == TwoFourType::FP16
             ? launch<TwoFourType::FP16, two_four_warpgroup_kernel<TwoFourType::FP16, MW, BN, Stages>, true>(
                   S::kBM, BN, S::kSmem, 1, p, splits, sum, stream, out)
             : launch<TwoFourType::BF16, two_four_warpgroup_kernel<TwoFourType::BF16, MW, BN, Stages>, true>(
                   S::kBM, BN, S::kSmem, 1, p, splits, sum, stream, out);
}

// Whether the warpgroup kernels can run this problem: this build made their sm_90a code (SNACK_TWO_FOUR_SM90A), the
// current GPU is compute capability 9.0 (the only one that runs it) and its driver encodes tensor maps, and the
// arrays meet the tensor-memory accelerator's rules (16-byte aligned, X's columns 16-byte multiples apart, K > 0).
bool warpgroup_supports(const TwoFourProblem& p) {
#ifdef SNACK_TWO_FOUR_SM90A
  static const bool gpu = [] {
    int dev = 0, major = 0, minor = 0;
    return cudaGetDevice(&dev) == cudaSuccess &&
           cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
           cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess && major == 9 &&
           minor == 0 && tensor_map_encoder() != nullptr;
  }();
  return gpu && p.w.cols > 0 && p.ldx % 8 == 0 && reinterpret_cast<std::uintptr_t>(p.x) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(p.w.values) % 16 == 0;
#else
  (void)p;
  return false;
#endif
}
bool any_problem(const TwoFourProblem&) { return true; }

struct Entry {
  TwoFourKernel kernel;
  cudaError_t (*run)(const Args&, TwoFourType, int, TwoFourSum, cudaStream_t, TwoFourLaunch*);
};

// Wide batches take the widest tile (the most reuse of each stage); narrow ones the tile that wastes the least of the
// mma's columns and leaves the most thread blocks. The warpgroup tiles come first where this GPU runs them; at
// batches of 32 and below they take only a W of 2^26 entries or more, where streaming W dominates. The measurements
// behind the thresholds: bench/results/two-four-h200.md.
const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
      {{"wgmma128x256", [](const TwoFourProblem& p) { return p.batch > 128 && warpgroup_supports(p); },
        warpgroup_supports},
       run_warpgroup_tile<1, 256, 4>},
      {{"wgmma256x128", [](const TwoFourProblem& p) { return p.batch > 64 && warpgroup_supports(p); },
        warpgroup_supports},
       run_warpgroup_tile<2, 128, 5>},
      {{"wgmma128x64",
        [](const TwoFourProblem& p) {
          return (p.batch > 32 || p.w.rows * p.w.cols >= (1LL << 26)) && warpgroup_supports(p);
        },
        warpgroup_supports},
       run_warpgroup_tile<1, 64, 8>},
      {{"tile128x256", [](const TwoFourProblem& p) { return p.batch > 128; }, any_problem},
       run_tile<128, 256, 2, 4, 3>},
      {{"tile128x64", [](const TwoFourProblem& p) { return p.batch > 32; }, any_problem},
       run_tile<128, 64, 4, 2, 4>},
      {{"tile128x32", [](const TwoFourProblem&) { return true; }, any_problem}, run_tile<128, 32, 8, 1, 4>},
  };
  return table;
}

// One thread per row and 32 columns (a metadata word): the row's entries in those columns, found by binary search,
// kept two to a group in column order; a group with fewer keeps zeros at its first unused positions.
template <TwoFourType T>
__global__ void from_csr_kernel(const std::uint64_t* rows, long long nrows, long long cols, const std::uint64_t* p,
                                const std::uint64_t* j, const float* x, std::uint16_t* values, std::uint32_t* meta,
                                int* refused) {
  const long long words = (cols + 31) / 32;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < nrows * words;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = e / words, w = e % words, row = rows[r];
    std::uint64_t lo = p[row], hi = p[row + 1];
    const std::uint64_t first = static_cast<std::uint64_t>(w) * 32;
    while (lo < hi) {   // the first entry at or past column 32 w
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (j[mid] < first) lo = mid + 1;
      else hi = mid;
    }
    std::uint64_t q = lo;
    const std::uint64_t end = p[row + 1];
    std::uint32_t word = 0;
    for (int g = 0; g < 8; ++g) {
      const std::uint64_t group = first + 4 * g;
      int pos[2];
      float val[2] = {0.0f, 0.0f};
      int n = 0;
      for (; q < end && j[q] < group + 4; ++q) {
        if (n < 2) {
          pos[n] = static_cast<int>(j[q] - group);
          val[n] = x[q];
        }
        ++n;
      }
      if (n > 2) atomicExch(refused, 1);
      if (n == 0) {
        pos[0] = 0;
        pos[1] = 1;
      } else if (n == 1) {   // the unused position: the lowest other than the kept one, in order
        if (pos[0] == 0) {
          pos[1] = 1;
          val[1] = 0.0f;
        } else {
          pos[1] = pos[0];
          val[1] = val[0];
          pos[0] = 0;
          val[0] = 0.0f;
        }
      }
      const long long v = r * (words * 16) + w * 16 + 2 * g;
      values[v] = round_to<T>(val[0]);
      values[v + 1] = round_to<T>(val[1]);
      word |= static_cast<std::uint32_t>(pos[0] | (pos[1] << 2)) << (4 * g);
    }
    meta[r * words + w] = word;
  }
}

template <TwoFourType T>
__global__ void round_kernel(const float* src, long long k, long long n, long long sr, long long sc,
                             std::uint16_t* dst) {
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < k * n;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long c = e / k, r = e % k;
    dst[e] = round_to<T>(src[r * sr + c * sc]);
  }
}

template <TwoFourType T>
__global__ void widen_kernel(const std::uint16_t* src, long long n, float* dst) {
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const std::uint16_t h = src[e];
    dst[e] = T == TwoFourType::BF16 ? __uint_as_float(static_cast<std::uint32_t>(h) << 16)
                                    : __half2float(__ushort_as_half(h));
  }
}

int grid_for(long long n) { return static_cast<int>(std::max(1LL, std::min((n + 255) / 256, 16LL * sm_count()))); }

}  // namespace

cudaError_t two_four_from_csr(const std::uint64_t* rows, std::int64_t nrows, std::int64_t cols, const std::uint64_t* p,
                              const std::uint64_t* j, const float* x, TwoFourType type, std::uint16_t* values,
                              std::uint32_t* meta, int* refused, cudaStream_t stream) {
  if (cudaError_t e = cudaMemsetAsync(refused, 0, sizeof(int), stream); e != cudaSuccess) return e;
  const long long work = nrows * ((cols + 31) / 32);
  if (work == 0) return cudaSuccess;
  auto kernel = type == TwoFourType::FP16 ? from_csr_kernel<TwoFourType::FP16> : from_csr_kernel<TwoFourType::BF16>;
  kernel<<<grid_for(work), 256, 0, stream>>>(rows, nrows, cols, p, j, x, values, meta, refused);
  return cudaGetLastError();
}

cudaError_t round_to_half(const float* src, std::int64_t k, std::int64_t n, std::int64_t sr, std::int64_t sc,
                          TwoFourType type, std::uint16_t* dst, cudaStream_t stream) {
  if (k * n == 0) return cudaSuccess;
  auto kernel = type == TwoFourType::FP16 ? round_kernel<TwoFourType::FP16> : round_kernel<TwoFourType::BF16>;
  kernel<<<grid_for(k * n), 256, 0, stream>>>(src, k, n, sr, sc, dst);
  return cudaGetLastError();
}

cudaError_t widen_half(const std::uint16_t* src, std::int64_t n, TwoFourType type, float* dst, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  auto kernel = type == TwoFourType::FP16 ? widen_kernel<TwoFourType::FP16> : widen_kernel<TwoFourType::BF16>;
  kernel<<<grid_for(n), 256, 0, stream>>>(src, n, dst);
  return cudaGetLastError();
}

const std::vector<TwoFourKernel>& two_four_kernels() {
  static const std::vector<TwoFourKernel> list = [] {
    std::vector<TwoFourKernel> l;
    for (const Entry& e : entries()) l.push_back(e.kernel);
    return l;
  }();
  return list;
}

cudaError_t two_four_gemm(const TwoFourProblem& p, cudaStream_t stream, const std::string& kernel, int splits,
                          TwoFourLaunch* launch_out, TwoFourSum sum) {
  const TwoFourView& w = p.w;
  if (w.rows < 0 || w.cols < 0 || p.batch < 0 || p.ldx < w.cols || p.ldy < (p.y_row_major ? p.batch : w.rows) ||
      w.rows > 0x7fffffff ||
      w.cols > 0x7fffffff || p.batch > 0x7fffffff)
    return cudaErrorInvalidValue;
  if (w.rows == 0 || p.batch == 0) return cudaSuccess;
  if (!w.values || !w.meta || (p.y == nullptr) == (p.y_fp32 == nullptr) || (w.cols > 0 && !p.x))
    return cudaErrorInvalidValue;
  Args a{};
  a.values = w.values;
  a.meta = w.meta;
  a.x = p.x;
  a.y = p.y;
  a.rows = static_cast<int>(w.rows);
  a.cols = static_cast<int>(w.cols);
  a.padded = static_cast<int>(w.padded_cols());
  a.batch = static_cast<int>(p.batch);
  a.ldx = p.ldx;
  a.y_fp32 = p.y_fp32;
  a.y_rs = p.y_row_major ? p.ldy : 1;
  a.y_cs = p.y_row_major ? 1 : p.ldy;
  a.tiles_k = std::max(1, (a.padded + kTileK - 1) / kTileK);   // K = 0 still runs one step of zeros
  a.x_vector = p.ldx % 8 == 0 && reinterpret_cast<std::uintptr_t>(p.x) % 16 == 0;
  for (const Entry& e : entries()) {
    if (kernel.empty() ? !e.kernel.can_run(p) : kernel != e.kernel.name) continue;
    if (!e.kernel.supports(p)) return cudaErrorNotSupported;
    if (launch_out) launch_out->kernel = e.kernel.name;
    return e.run(a, w.type, splits, sum, stream, launch_out);
  }
  return cudaErrorInvalidValue;   // no kernel of that name
}

}  // namespace snk::cuda
