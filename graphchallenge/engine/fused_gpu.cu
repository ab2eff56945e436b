// graphchallenge/engine/fused_gpu.cu: the fused GPU engine for the SpDNN GraphChallenge (see
// fused_gpu.hpp for the algorithm and the data layout).
//
// Layout reminders: Y is dense, row-major, rows x N fp32, two buffers (layer l reads Y[l % 2] and writes
// Y[(l + 1) % 2]). W of each layer is column-ELL: idx[e * N + j] / val[e * N + j] is the e-th input neuron
// of output neuron j (e < width), zero weight for padding; idx is uint16 when N <= 65536, else int32.
// The live-row list a layer reads is one of live[0] / live[1] and the layer writes the other; a
// deduplication compacts it back into the first, so where the list is after each part of the work is
// tracked on the host (State::cursor) when the launches are enqueued.
#include "engine/fused_gpu.hpp"
#include "engine/gpu_common.cuh"
#include "host/threads.hpp"
#include "io/rows.hpp"
#include "plan/tiles.hpp"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <cstring>
#include <stdexcept>
#include <string>

namespace snk::gc {
namespace {

void check(cudaError_t e, const char* what) { throw_on_cuda(e, "fused GPU engine", what); }
constexpr int kMaxUploadBatches = 64;
constexpr int kThreads = 256;

// Scatter the CSR inputs of rows [r0, r1) into the (zeroed) dense Y and list those that have any input;
// every row starts standing for itself (weight 1, no parent). One launch per upload batch.
__global__ void scatter_inputs(const int64_t* __restrict__ row_ptr, const int32_t* __restrict__ col,
                               const float* __restrict__ val, int64_t r0, int64_t r1, int64_t n, float* __restrict__ y,
                               int32_t* __restrict__ live, int32_t* __restrict__ live_count,
                               int32_t* __restrict__ inputs_alive, int32_t* __restrict__ weight,
                               int32_t* __restrict__ parent) {
  for (int64_t r = r0 + blockIdx.x; r < r1; r += gridDim.x) {
    const int64_t b = row_ptr[r], e = row_ptr[r + 1];
    for (int64_t p = b + threadIdx.x; p < e; p += blockDim.x) y[r * n + col[p]] = val[p];
    if (threadIdx.x == 0) {
      weight[r] = 1;
      parent[r] = -1;
      if (e > b) {
        live[atomicAdd(live_count, 1)] = static_cast<int32_t>(r);
        atomicAdd(inputs_alive, 1);
      }
    }
  }
}

// R consecutive floats of the staged tile (tile[k * R + r], r = 0 .. R-1) into registers, with the widest
// shared-memory loads R allows.
template <int R>
__device__ __forceinline__ void load_tile_row(const float* __restrict__ tile, int k, float (&v)[R]) {
  if constexpr (R % 4 == 0) {
    const float4* p = reinterpret_cast<const float4*>(tile + static_cast<int64_t>(k) * R);
#pragma unroll
    for (int q = 0; q < R / 4; ++q) {
      const float4 f = p[q];
      v[4 * q] = f.x; v[4 * q + 1] = f.y; v[4 * q + 2] = f.z; v[4 * q + 3] = f.w;
    }
  } else if constexpr (R == 2) {
    const float2 f = reinterpret_cast<const float2*>(tile)[k];
    v[0] = f.x; v[1] = f.y;
  } else {
#pragma unroll
    for (int r = 0; r < R; ++r) v[r] = tile[static_cast<int64_t>(k) * R + r];
  }
}

// One layer for all live rows. A work item is (group of R live rows, chunk of output columns): R rows share
// every W read, and when few rows are alive (late layers) each group is split into column chunks to keep
// the GPU busy. The group's rows are staged in shared memory transposed (tile[k * R + r]) so that one
// thread fetches the R values it needs for input neuron k with R/4 vector loads. A row is appended to the
// next live list once, by the first chunk that finds a non-zero in it (stamp[row] records the last layer
// that appended it, so no reset is needed between layers).
// Staging layouts of the R live rows in shared memory.
constexpr int kGlobal = 0;      // no staging: gather from global memory (rows too long for shared memory)
constexpr int kRowMajor = 1;    // tile[r * n + k]: plain copy in, one scalar load per (r, k)
constexpr int kTransposed = 2;  // tile[k * R + r]: one vector load brings all R values of input neuron k


// Stages the R live rows of a work item in shared memory in the given layout (nothing for kGlobal).
template <int R, int kLayout>
__device__ __forceinline__ void stage_rows(float* __restrict__ tile, const float* __restrict__ y_in,
                                           const int (&rows)[R], int n) {
  if constexpr (kLayout == kTransposed) {
    __syncthreads();  // the previous item is done reading the tile
    // Each thread stages whole tile rows k: R coalesced global reads, then contiguous vector stores.
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
      float v[R];
#pragma unroll
      for (int r = 0; r < R; ++r) v[r] = rows[r] >= 0 ? y_in[static_cast<int64_t>(rows[r]) * n + k] : 0.0f;
      if constexpr (R % 4 == 0) {
        float4* d = reinterpret_cast<float4*>(tile + static_cast<int64_t>(k) * R);
#pragma unroll
        for (int q = 0; q < R / 4; ++q) d[q] = make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]);
      } else {
#pragma unroll
        for (int r = 0; r < R; ++r) tile[static_cast<int64_t>(k) * R + r] = v[r];
      }
    }
    __syncthreads();
  } else if constexpr (kLayout == kRowMajor) {
    __syncthreads();
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (rows[r] < 0) continue;
      const float4* s4 = reinterpret_cast<const float4*>(y_in + static_cast<int64_t>(rows[r]) * n);
      float4* d4 = reinterpret_cast<float4*>(tile + static_cast<int64_t>(r) * n);
      for (int q = threadIdx.x; q < n / 4; q += blockDim.x) d4[q] = s4[q];
    }
    __syncthreads();
  }
}

// The R values of input neuron k for the item's rows.
template <int R, int kLayout>
__device__ __forceinline__ void gather_rows(const float* __restrict__ tile, const float* __restrict__ y_in,
                                            const int (&rows)[R], int n, int k, float (&v)[R]) {
  if constexpr (kLayout == kTransposed) {
    load_tile_row<R>(tile, k, v);
  } else if constexpr (kLayout == kRowMajor) {
#pragma unroll
    for (int r = 0; r < R; ++r) v[r] = tile[static_cast<int64_t>(r) * n + k];
  } else {
#pragma unroll
    for (int r = 0; r < R; ++r) v[r] = rows[r] >= 0 ? y_in[static_cast<int64_t>(rows[r]) * n + k] : 0.0f;
  }
}

// The live-row lists one layer reads and writes, and the per-row bookkeeping: stamp[row] is the last layer
// that listed the row alive (so a row split into column chunks is appended once, with no reset between
// layers); weight[row] is how many inputs the row stands for (1, or more once identical rows were merged
// into it, see dedup_merge); inputs_out counts the inputs alive after the layer (the sum of the weights).
struct LiveLists {
  const int32_t* live_in;
  const int32_t* count_in;
  int32_t* live_out;
  int32_t* count_out;
  int32_t* stamp;
  const int32_t* weight;
  int32_t* inputs_out;
};

// Appends the item's rows that still have a non-zero to the next live list, once per row and layer.
template <int R>
__device__ __forceinline__ void mark_live(const bool (&any)[R], const int (&rows)[R], int layer, const LiveLists& ll) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int alive = __syncthreads_or(any[r] ? 1 : 0);
    if (alive && threadIdx.x == 0 && rows[r] >= 0 && atomicExch(&ll.stamp[rows[r]], layer + 1) != layer + 1) {
      ll.live_out[atomicAdd(ll.count_out, 1)] = rows[r];
      atomicAdd(ll.inputs_out, ll.weight[rows[r]]);
    }
  }
}

// Column chunks per row group. Staged rows: only as many as it takes to give every block of the grid two
// work items (each chunk restages the rows, so no more), one when the groups alone do. Rows read from
// global memory: always the most (a chunk of kThreads columns or bundle threads), so that the blocks
// running at one time share a few rows, which then stay in L2 while they are gathered from, and so that a
// single live row (the late layers of a deduplicated network) still spreads over the GPU.
template <int kLayout>
__device__ __forceinline__ int item_chunks(int groups, int max_chunks) {
  if constexpr (kLayout == kGlobal) {
    return max_chunks;
  } else {
    const int wanted = (2 * static_cast<int>(gridDim.x) + groups - 1) / max(groups, 1);
    return max(1, min(max_chunks, wanted));
  }
}

template <class IdxT, int R, int kLayout>
__global__ void __launch_bounds__(kThreads) layer_kernel(
    const IdxT* __restrict__ idx, const float* __restrict__ w, int width, int n, int max_chunks, float bias,
    int layer, const float* __restrict__ y_in, float* __restrict__ y_out, const LiveLists ll) {
  extern __shared__ float tile[];  // R x n floats unless kLayout == kGlobal
  const int count = *ll.count_in;
  const int groups = (count + R - 1) / R;
  const int chunks = item_chunks<kLayout>(groups, max_chunks);
  const int chunk_cols = (n + chunks - 1) / chunks;
  for (int g = blockIdx.x; g < groups * chunks; g += gridDim.x) {
    const int group = g / chunks, chunk = g % chunks;
    int rows[R];
#pragma unroll
    for (int r = 0; r < R; ++r) rows[r] = (group * R + r < count) ? ll.live_in[group * R + r] : -1;
    stage_rows<R, kLayout>(tile, y_in, rows, n);
    bool any[R];
#pragma unroll
    for (int r = 0; r < R; ++r) any[r] = false;
    const int j_end = min(n, (chunk + 1) * chunk_cols);
    for (int j = chunk * chunk_cols + threadIdx.x; j < j_end; j += blockDim.x) {
      float acc[R];
#pragma unroll
      for (int r = 0; r < R; ++r) acc[r] = 0.0f;
#pragma unroll 4
      for (int e = 0; e < width; ++e) {
        const int k = static_cast<int>(idx[static_cast<int64_t>(e) * n + j]);
        const float wv = w[static_cast<int64_t>(e) * n + j];
        float v[R];
        gather_rows<R, kLayout>(tile, y_in, rows, n, k, v);
#pragma unroll
        for (int r = 0; r < R; ++r) acc[r] = fmaf(v[r], wv, acc[r]);
      }
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (rows[r] < 0) continue;
        const float v = activate(acc[r], bias);
        y_out[static_cast<int64_t>(rows[r]) * n + j] = v;
        any[r] = any[r] || (v > 0.0f);
      }
    }
    mark_live<R>(any, rows, layer, ll);
  }
}


// Column bundles: output neurons whose input neurons are the same list (the RadiX-Net layers are a radix
// pattern Kronecker a 16 x 16 block of ones, so every output shares its 32 inputs with 15 others; found by
// comparing the lists, not assumed). A bundle holds up to kBundle such columns; four threads share it, each
// producing kBundle / 4 columns for the R rows, so one shared-memory load of the R values of input k feeds
// 4 * R multiply-adds instead of R, and one index load serves all the bundle's columns. Layouts:
// bidx[e * nb + b] is the e-th input of bundle b; bval[(e * nb + b) * kBundle + c] its weight for the
// bundle's column c; bcol[b * kBundle + c] that column's output neuron (-1 for padding, weight 0).
constexpr int kBundle = 16;
constexpr int kColsPerThread = 4;
constexpr int kThreadsPerBundle = kBundle / kColsPerThread;

template <class IdxT, int R, int kLayout>
__global__ void __launch_bounds__(kThreads) bundle_kernel(
    const IdxT* __restrict__ bidx, const float* __restrict__ bval, const int32_t* __restrict__ bcol, int nb,
    int width, int n, int max_chunks, float bias, int layer, const float* __restrict__ y_in,
    float* __restrict__ y_out, const LiveLists ll) {
  extern __shared__ float tile[];
  const int count = *ll.count_in;
  const int groups = (count + R - 1) / R;
  const int chunks = item_chunks<kLayout>(groups, max_chunks);
  const int chunk_bundles = (nb + chunks - 1) / chunks;
  for (int g = blockIdx.x; g < groups * chunks; g += gridDim.x) {
    const int group = g / chunks, chunk = g % chunks;
    int rows[R];
#pragma unroll
    for (int r = 0; r < R; ++r) rows[r] = (group * R + r < count) ? ll.live_in[group * R + r] : -1;
    stage_rows<R, kLayout>(tile, y_in, rows, n);
    bool any[R];
#pragma unroll
    for (int r = 0; r < R; ++r) any[r] = false;
    const int b_begin = chunk * chunk_bundles, b_end = min(nb, b_begin + chunk_bundles);
    for (int t = b_begin * kThreadsPerBundle + threadIdx.x; t < b_end * kThreadsPerBundle; t += blockDim.x) {
      const int b = t / kThreadsPerBundle, quarter = t % kThreadsPerBundle;
      float acc[kColsPerThread][R];
#pragma unroll
      for (int c = 0; c < kColsPerThread; ++c)
#pragma unroll
        for (int r = 0; r < R; ++r) acc[c][r] = 0.0f;
#pragma unroll 4
      for (int e = 0; e < width; ++e) {
        const int k = static_cast<int>(bidx[static_cast<int64_t>(e) * nb + b]);
        const float4 wv = *reinterpret_cast<const float4*>(
            bval + (static_cast<int64_t>(e) * nb + b) * kBundle + quarter * kColsPerThread);
        float v[R];
        gather_rows<R, kLayout>(tile, y_in, rows, n, k, v);
#pragma unroll
        for (int r = 0; r < R; ++r) {
          acc[0][r] = fmaf(v[r], wv.x, acc[0][r]);
          acc[1][r] = fmaf(v[r], wv.y, acc[1][r]);
          acc[2][r] = fmaf(v[r], wv.z, acc[2][r]);
          acc[3][r] = fmaf(v[r], wv.w, acc[3][r]);
        }
      }
      const int4 cols = *reinterpret_cast<const int4*>(bcol + static_cast<int64_t>(b) * kBundle + quarter * kColsPerThread);
      const int col[kColsPerThread] = {cols.x, cols.y, cols.z, cols.w};
#pragma unroll
      for (int c = 0; c < kColsPerThread; ++c) {
        if (col[c] < 0) continue;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          if (rows[r] < 0) continue;
          const float v = activate(acc[c][r], bias);
          y_out[static_cast<int64_t>(rows[r]) * n + col[c]] = v;
          any[r] = any[r] || (v > 0.0f);
        }
      }
    }
    mark_live<R>(any, rows, layer, ll);
  }
}

// Row deduplication. In the challenge networks the surviving rows converge: after a few dozen layers
// many live rows are bitwise identical (in the generated networks all of them end at the all-32 row, a
// fixed point of every later layer). Identical rows give identical outputs (every output is the same sum
// in the same order), so each class of identical live rows needs computing only once. Every few layers
// (see State::dedup_after) two kernels:
//   dedup_hash: a 64-bit hash of each live row (a sum of a mix of (position, bit pattern) over its
//     elements, so threads may add in any order) goes into an open-addressing table keyed by the hash;
//     the slot keeps the smallest row id with that hash (the class's representative).
//   dedup_merge: a row whose slot names another row is compared with it bit for bit; if equal, it leaves
//     the live list, parent[row] = representative, and the representative's weight grows by the row's.
//     A row that only collides on the hash stays live (nothing is merged on a hash alone).
// Categories follow the parent links at the end: an input is a category when the row it was merged into
// (transitively) is alive after the last layer.
__device__ __forceinline__ uint64_t mix_element(uint32_t position, uint32_t bits) {
  uint64_t x = (static_cast<uint64_t>(bits) << 32 | position) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 32);
}

// Sum of v over the block (blockDim.x a multiple of 32, at most 1024); the result is valid in thread 0.
__device__ __forceinline__ uint64_t block_sum(uint64_t v, uint64_t* scratch) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  uint64_t total = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) total += scratch[w];
  return total;
}

__global__ void __launch_bounds__(kThreads) dedup_hash(const float* __restrict__ y, int n,
                                                      const int32_t* __restrict__ live, const int32_t* __restrict__ count,
                                                      unsigned long long* __restrict__ keys, int32_t* __restrict__ reps,
                                                      int32_t* __restrict__ slot_of, uint32_t table_mask) {
  __shared__ uint64_t scratch[kThreads / 32];
  const int rows = *count;
  if (rows < 2) return;  // nothing to merge
  for (int i = blockIdx.x; i < rows; i += gridDim.x) {
    const int row = live[i];
    const uint4* p = reinterpret_cast<const uint4*>(y + static_cast<int64_t>(row) * n);
    uint64_t h = 0;
    for (int q = threadIdx.x; q < n / 4; q += blockDim.x) {
      const uint4 b = p[q];
      h += mix_element(4 * q, b.x) + mix_element(4 * q + 1, b.y) + mix_element(4 * q + 2, b.z) + mix_element(4 * q + 3, b.w);
    }
    h = block_sum(h, scratch);
    if (threadIdx.x == 0) {
      const unsigned long long key = h | 1ull;  // 0 marks an empty slot
      uint32_t slot = static_cast<uint32_t>(key ^ (key >> 32)) & table_mask;
      for (;;) {
        const unsigned long long seen = atomicCAS(&keys[slot], 0ull, key);
        if (seen == 0ull || seen == key) break;
        slot = (slot + 1) & table_mask;
      }
      atomicMin(&reps[slot], row);
      slot_of[row] = static_cast<int32_t>(slot);
    }
  }
}

__global__ void __launch_bounds__(kThreads) dedup_merge(const float* __restrict__ y, int n,
                                                       const int32_t* __restrict__ live_in, const int32_t* __restrict__ count_in,
                                                       const int32_t* __restrict__ reps, const int32_t* __restrict__ slot_of,
                                                       int32_t* __restrict__ parent, int32_t* __restrict__ weight,
                                                       int32_t* __restrict__ live_out, int32_t* __restrict__ count_out) {
  const int rows = *count_in;
  if (rows < 2) {  // nothing was hashed: pass the list through
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x) live_out[i] = live_in[i];
    if (blockIdx.x == 0 && threadIdx.x == 0) *count_out = rows;
    return;
  }
  for (int i = blockIdx.x; i < rows; i += gridDim.x) {
    const int row = live_in[i];
    const int rep = reps[slot_of[row]];
    bool same = false;
    if (rep != row) {
      const uint4* a = reinterpret_cast<const uint4*>(y + static_cast<int64_t>(row) * n);
      const uint4* b = reinterpret_cast<const uint4*>(y + static_cast<int64_t>(rep) * n);
      int differ = 0;
      for (int q = threadIdx.x; q < n / 4; q += blockDim.x) {
        const uint4 u = a[q], v = b[q];
        differ |= (u.x != v.x) | (u.y != v.y) | (u.z != v.z) | (u.w != v.w);
      }
      same = !__syncthreads_or(differ);
    }
    if (threadIdx.x == 0) {
      if (same) {
        parent[row] = rep;
        atomicAdd(&weight[rep], weight[row]);
      } else {
        live_out[atomicAdd(count_out, 1)] = row;
      }
    }
  }
}

struct Layer {
  void* idx = nullptr;   // ELL: neuron ids; bundled: bidx
  float* val = nullptr;  // ELL: weights; bundled: bval
  int32_t* bcol = nullptr;  // bundled only: output neuron of each bundle column
  int width = 0;
  int bundles = 0;       // 0: ELL layout; > 0: number of column bundles
};

// The tail: once deduplication has left at most kTailRows live rows (in the generated networks, one), a
// layer is a few thousand to a few million multiply-adds, and launching a grid per layer costs more than
// the work. One cooperative kernel then runs all the remaining layers: its blocks split each layer's output
// columns (ELL columns or bundles, as the layer kernels do, with the same summation order), and a grid-wide
// barrier separates the layers. A row that comes out all zero is flagged dead by no block (flags[l % 3][r]
// is set by any block that wrote a non-zero), and after the barrier every block drops it from its own copy
// of the list, so the list needs no further synchronisation. Per layer, block 0 records the rows still
// alive and the inputs they stand for, as the layer kernels do.
constexpr int kTailRows = 8;

template <class IdxT>
__global__ void __launch_bounds__(kThreads) tail_kernel(
    const Layer* __restrict__ layers, int first, int last, int n, float bias, float* __restrict__ y0,
    float* __restrict__ y1, const int32_t* __restrict__ live_in, const int32_t* __restrict__ count_in,
    int32_t* __restrict__ flags, const int32_t* __restrict__ weight, int32_t* __restrict__ rows_alive,
    int32_t* __restrict__ inputs_alive, int32_t* __restrict__ live_out, int32_t* __restrict__ count_out,
    int stage_floats) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  extern __shared__ float stage[];  // the live rows of the layer's input, when they fit in stage_floats
  int rows[kTailRows];
  int c = min(*count_in, kTailRows);
  for (int r = 0; r < kTailRows; ++r) rows[r] = r < c ? live_in[r] : -1;
  const int64_t thread = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t threads = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int l = first; l < last && c > 0; ++l) {
    const float* yi = (l % 2) ? y1 : y0;
    float* yo = (l % 2) ? y0 : y1;
    const Layer L = layers[l];
    const IdxT* idx = static_cast<const IdxT*>(L.idx);
    volatile int32_t* f = flags + (l % 3) * kTailRows;
    if (blockIdx.x == 0 && threadIdx.x < kTailRows) flags[((l + 1) % 3) * kTailRows + threadIdx.x] = 0;
    const bool staged = static_cast<int64_t>(c) * n <= stage_floats;
    if (staged) {
      for (int r = 0; r < c; ++r)
        for (int k = threadIdx.x; k < n; k += blockDim.x) stage[r * n + k] = yi[static_cast<int64_t>(rows[r]) * n + k];
      __syncthreads();
    }
    // Live row r of the layer's input (staged or in global memory).
    const float* src[kTailRows];
#pragma unroll
    for (int r = 0; r < kTailRows; ++r)
      src[r] = staged ? stage + r * n : yi + static_cast<int64_t>(rows[r < c ? r : 0]) * n;
    bool any[kTailRows];
#pragma unroll
    for (int r = 0; r < kTailRows; ++r) any[r] = false;
    // Weights come in runs of kRun entries, all loaded before any is used, so that a layer costs one memory
    // latency per run rather than one per entry; the sums still add the entries in order. The bundle and
    // column-ELL paths are written out apart, each in the form whose machine code the committed rates were
    // measured with (a shared helper compiles to different code).
    constexpr int kRun = 16;
    if (L.bundles > 0) {
      const int nb = L.bundles;
      for (int64_t t = thread; t < static_cast<int64_t>(nb) * kThreadsPerBundle; t += threads) {
        const int b = static_cast<int>(t / kThreadsPerBundle), quarter = static_cast<int>(t % kThreadsPerBundle);
        float acc[kTailRows][kColsPerThread];
#pragma unroll
        for (int r = 0; r < kTailRows; ++r)
#pragma unroll
          for (int q = 0; q < kColsPerThread; ++q) acc[r][q] = 0.0f;
        for (int e0 = 0; e0 < L.width; e0 += kRun) {
          int ks[kRun];
          float4 ws[kRun];
#pragma unroll
          for (int u = 0; u < kRun; ++u) {
            const int64_t at = static_cast<int64_t>(e0 + u) * nb + b;
            const bool in = e0 + u < L.width;
            ks[u] = in ? static_cast<int>(idx[at]) : 0;
            ws[u] = in ? *reinterpret_cast<const float4*>(L.val + at * kBundle + quarter * kColsPerThread)
                       : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          }
#pragma unroll
          for (int r = 0; r < kTailRows; ++r) {
            if (r >= c) break;
#pragma unroll
            for (int u = 0; u < kRun; ++u) {
              if (e0 + u >= L.width) break;
              const float v = src[r][ks[u]];
              acc[r][0] = fmaf(v, ws[u].x, acc[r][0]);
              acc[r][1] = fmaf(v, ws[u].y, acc[r][1]);
              acc[r][2] = fmaf(v, ws[u].z, acc[r][2]);
              acc[r][3] = fmaf(v, ws[u].w, acc[r][3]);
            }
          }
        }
        const int4 cols = *reinterpret_cast<const int4*>(L.bcol + static_cast<int64_t>(b) * kBundle + quarter * kColsPerThread);
        const int col[kColsPerThread] = {cols.x, cols.y, cols.z, cols.w};
#pragma unroll
        for (int r = 0; r < kTailRows; ++r) {
          if (r >= c) break;
          float* out = yo + static_cast<int64_t>(rows[r]) * n;
#pragma unroll
          for (int q = 0; q < kColsPerThread; ++q) {
            if (col[q] < 0) continue;
            const float v = activate(acc[r][q], bias);
            out[col[q]] = v;
            any[r] = any[r] || v > 0.0f;
          }
        }
      }
    } else {
      for (int64_t j = thread; j < n; j += threads) {
        float acc[kTailRows];
#pragma unroll
        for (int r = 0; r < kTailRows; ++r) acc[r] = 0.0f;
        for (int e0 = 0; e0 < L.width; e0 += kRun) {
          int ks[kRun];
          float ws[kRun];
#pragma unroll
          for (int u = 0; u < kRun; ++u) {
            const int64_t at = static_cast<int64_t>(e0 + u) * n + j;
            const bool in = e0 + u < L.width;
            ks[u] = in ? static_cast<int>(idx[at]) : 0;
            ws[u] = in ? L.val[at] : 0.0f;
          }
#pragma unroll
          for (int r = 0; r < kTailRows; ++r) {
            if (r >= c) break;
#pragma unroll
            for (int u = 0; u < kRun; ++u) {
              if (e0 + u >= L.width) break;
              acc[r] = fmaf(src[r][ks[u]], ws[u], acc[r]);
            }
          }
        }
#pragma unroll
        for (int r = 0; r < kTailRows; ++r) {
          if (r >= c) break;
          const float v = activate(acc[r], bias);
          yo[static_cast<int64_t>(rows[r]) * n + j] = v;
          any[r] = any[r] || v > 0.0f;
        }
      }
    }
    for (int r = 0; r < c; ++r)
      if (__syncthreads_or(any[r] ? 1 : 0) && threadIdx.x == 0) f[r] = 1;
    grid.sync();
    int kept = 0;
    for (int r = 0; r < c; ++r)
      if (f[r]) rows[kept++] = rows[r];
    c = kept;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      int32_t inputs = 0;
      for (int r = 0; r < c; ++r) inputs += weight[rows[r]];
      rows_alive[l] = c;
      inputs_alive[l] = inputs;
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int r = 0; r < c; ++r) live_out[r] = rows[r];
    *count_out = c;
  }
}

template <class T>
T* device_alloc(size_t count, const char* what) {
  void* p = nullptr;
  check(cudaMalloc(&p, std::max<size_t>(count, 1) * sizeof(T)), what);
  return static_cast<T*>(p);
}

}  // namespace

struct FusedGpuEngine::State {
  int device = 0;
  int sms = 1;  // multiprocessors of the device
  int n = 0;
  float bias = 0;
  bool small_index = true;  // uint16 neuron ids
  bool use_graph = true;
  std::vector<Layer> layers;
  cudaStream_t stream = nullptr;
  // per-inference buffers (reallocated when the input shape grows)
  int64_t cap_rows = 0, cap_nnz = 0;
  float* y[2] = {nullptr, nullptr};
  int32_t* live[2] = {nullptr, nullptr};
  // counts[l + 1]: rows the layer l computed that are still alive (counts[0] is not used: the rows with
  // any input are counted per upload batch, below);
  // counts[layers + 1 + l]: live rows left after the deduplication following layer l (when there was one);
  // counts[2 * (layers + 1) + l]: inputs alive after layer l (each row counted with its weight);
  // counts[3 * (layers + 1) + b]: rows with any input in upload batch b. The offsets of these parts:
  size_t dedup_counts_at() const { return layers.size() + 1; }
  size_t inputs_alive_at() const { return 2 * (layers.size() + 1); }
  size_t batch_counts_at() const { return 3 * (layers.size() + 1); }
  int32_t* counts = nullptr;
  int32_t* stamp = nullptr;   // per input row: last layer that listed it alive
  int32_t* weight = nullptr;  // per input row: the inputs it stands for
  int32_t* parent = nullptr;  // per input row: the row it was merged into, -1 if none
  int32_t* slot_of = nullptr; // per input row: its slot in the dedup table
  unsigned long long* keys = nullptr;  // dedup table: row hashes (0: empty)
  int32_t* reps = nullptr;             // dedup table: smallest row id with that hash
  uint32_t table_size = 0;             // a power of two, at least twice the rows
  bool dedup = true;
  // Where the live list and its count are after the last layer (they move between the two lists when a
  // deduplication compacts one into the other); set when the launches are enqueued.
  int32_t* final_live = nullptr;
  int32_t* final_count = nullptr;
  // Input upload in batches: rows [batch_bounds[b], batch_bounds[b + 1]) travel on copy_stream while the
  // first layer runs on the batch before (see infer).
  int upload_batches = 0;  // 0: chosen from the input size
  std::vector<int64_t> batch_bounds;
  cudaStream_t copy_stream = nullptr;
  cudaEvent_t upload_start = nullptr, upload_done = nullptr;  // timing the copy
  std::vector<cudaEvent_t> batch_copied;
  int64_t* in_ptr = nullptr;
  int32_t* in_col = nullptr;
  float* in_val = nullptr;
  int64_t graph_rows = -1, graph_nnz = -1;  // the shape the segment graphs were captured for
  // Tail (see tail_kernel): the layers on the device, flags, and a page-locked word for the live count read
  // back at each checkpoint; tail_from is the first layer the tail ran in the last inference (or the number
  // of layers).
  bool tail = true;
  Layer* device_layers = nullptr;
  int32_t* tail_flags = nullptr;
  int32_t* host_count = nullptr;
  size_t tail_from = 0;
  int rows_per_group = 1;
  int layout = kRowMajor;
  bool profile = false;
  std::vector<cudaEvent_t> events;  // profile: one before each layer and one after the last

  std::vector<void*> registered;  // host memory pinned by pin_host_inputs

  ~State() {
    cudaSetDevice(device);
    for (void* p : registered) cudaHostUnregister(p);
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    for (cudaEvent_t e : batch_copied) cudaEventDestroy(e);
    if (upload_start) cudaEventDestroy(upload_start);
    if (upload_done) cudaEventDestroy(upload_done);
    if (copy_stream) cudaStreamDestroy(copy_stream);
    drop_graphs();
    cudaFree(device_layers);
    cudaFree(tail_flags);
    if (host_count) cudaFreeHost(host_count);
    for (auto& l : layers) { cudaFree(l.idx); cudaFree(l.val); cudaFree(l.bcol); }
    free_buffers();
    if (stream) cudaStreamDestroy(stream);
  }
  void free_buffers() {
    for (int b = 0; b < 2; ++b) { cudaFree(y[b]); cudaFree(live[b]); y[b] = nullptr; live[b] = nullptr; }
    for (void* p : {static_cast<void*>(counts), static_cast<void*>(stamp), static_cast<void*>(weight),
                    static_cast<void*>(parent), static_cast<void*>(slot_of), static_cast<void*>(keys),
                    static_cast<void*>(reps), static_cast<void*>(in_ptr), static_cast<void*>(in_col),
                    static_cast<void*>(in_val)})
      cudaFree(p);
    counts = stamp = weight = parent = slot_of = reps = in_col = nullptr;
    keys = nullptr;
    in_ptr = nullptr;
    in_val = nullptr;
  }

  // Grid for a kernel: as many blocks as fit on the GPU at once, no more than there are work items.
  template <class Kernel>
  int grid_for(Kernel kernel, size_t smem, int64_t items) {
    if (smem > 48 * 1024) check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)), "smem attribute");
    int per_sm = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, smem), "occupancy");
    return static_cast<int>(std::min<int64_t>(int64_t(std::max(1, per_sm)) * sms, std::max<int64_t>(items, 1)));
  }

  // Launch geometry for the chosen kernels and a number of input rows.
  struct Geometry {
    size_t smem = 0;
    int chunks = 1, bundle_chunks = 1;  // the most column chunks per row group (see item_chunks)
    int ell_grid = 1, bundle_grid = 1;
  };
  template <class IdxT, int R, int kLayout>
  Geometry geometry(int64_t rows) {
    Geometry g;
    g.smem = kLayout != kGlobal ? static_cast<size_t>(R) * n * sizeof(float) : 0;
    g.chunks = std::max(1, n / kThreads);  // each chunk still gives every thread of a block work
    int max_bundles = 0;
    for (const Layer& L : layers) max_bundles = std::max(max_bundles, L.bundles);
    g.bundle_chunks = std::max(1, max_bundles * kThreadsPerBundle / kThreads);
    g.ell_grid = grid_for(layer_kernel<IdxT, R, kLayout>, g.smem, (rows + R - 1) / R * g.chunks);
    g.bundle_grid = grid_for(bundle_kernel<IdxT, R, kLayout>, g.smem, (rows + R - 1) / R * g.bundle_chunks);
    return g;
  }

  template <class IdxT, int R, int kLayout>
  void launch_layer(const Geometry& g, size_t l, const LiveLists& ll) {
    const int b = static_cast<int>(l % 2);
    const Layer& L = layers[l];
    if (L.bundles > 0)
      bundle_kernel<IdxT, R, kLayout><<<g.bundle_grid, kThreads, g.smem, stream>>>(
          static_cast<const IdxT*>(L.idx), L.val, L.bcol, L.bundles, L.width, n, g.bundle_chunks, bias,
          static_cast<int>(l), y[b], y[1 - b], ll);
    else
      layer_kernel<IdxT, R, kLayout><<<g.ell_grid, kThreads, g.smem, stream>>>(
          static_cast<const IdxT*>(L.idx), L.val, L.width, n, g.chunks, bias, static_cast<int>(l), y[b], y[1 - b], ll);
  }

  // The inference is enqueued in parts (see infer): the prologue (clearing); per upload batch the scatter
  // of its rows and the first layer on them (so that the next batch's copy overlaps this batch's first
  // layer); then segments of the later layers with their deduplications, each replayed as a CUDA graph;
  // and, when a checkpoint between segments finds few live rows left, the tail kernel for the rest.
  enum class Part { kPrologue, kBatch, kSegment, kTail };
  struct ListState {
    int list = 1;              // the live list the next layer reads
    int32_t* count = nullptr;  // and its count
  };
  ListState cursor;  // where the live list is between the parts being enqueued
  std::vector<cudaGraphExec_t> graphs;  // one per segment, captured on first use
  std::vector<ListState> graph_end;     // the cursor after each captured segment
  void drop_graphs() {
    for (cudaGraphExec_t g : graphs)
      if (g) cudaGraphExecDestroy(g);
    graphs.clear();
    graph_end.clear();
  }

  template <class IdxT, int R, int kLayout>
  void launch(Part part, int64_t rows, int64_t a, int64_t b_end) {
    const size_t nl = layers.size();
    int32_t* const inputs_alive = counts + inputs_alive_at();
    int32_t* const batch_counts = counts + batch_counts_at();
    if (part == Part::kPrologue) {
      cudaMemsetAsync(stamp, 0, static_cast<size_t>(std::max<int64_t>(rows, 1)) * sizeof(int32_t), stream);
      cudaMemsetAsync(counts, 0, (batch_counts_at() + batch_bounds.size() - 1) * sizeof(int32_t), stream);
      cudaMemsetAsync(y[0], 0, static_cast<size_t>(rows) * n * sizeof(float), stream);
      if (profile) cudaEventRecord(events[0], stream);
      cursor = ListState{1, counts + 1};
      // With no layers the categories are the rows with any input: one batch, listed from live[0].
      final_live = live[0];
      final_count = batch_counts;
      return;
    }
    if (part == Part::kBatch) {
      const int batch = static_cast<int>(a);
      const int64_t r0 = batch_bounds[batch], r1 = batch_bounds[batch + 1];
      scatter_inputs<<<static_cast<int>(std::min<int64_t>(std::max<int64_t>(r1 - r0, 1), 65535)), 128, 0, stream>>>(
          in_ptr, in_col, in_val, r0, r1, n, y[0], live[0] + r0, batch_counts + batch, inputs_alive, weight, parent);
      if (nl > 0) {
        const Geometry g = geometry<IdxT, R, kLayout>(r1 - r0);
        launch_layer<IdxT, R, kLayout>(g, 0, LiveLists{live[0] + r0, batch_counts + batch, live[1], counts + 1, stamp,
                                                       weight, inputs_alive + 1});
      }
      return;
    }
    if (part == Part::kTail) {
      const int first = static_cast<int>(a);
      auto kernel = tail_kernel<IdxT>;
      // Stage the live rows in shared memory when they fit in 48 KB (1024-neuron rows: all 8; 4096: 3).
      int stage_floats = std::min(kTailRows * n, 12 * 1024);
      if (stage_floats < n) stage_floats = 0;
      const size_t smem = static_cast<size_t>(stage_floats) * sizeof(float);
      // Enough threads for the widest layer's columns or bundle threads, at most one wave of the GPU.
      const int blocks = grid_for(kernel, smem, (static_cast<int64_t>(n) + kThreads - 1) / kThreads);
      cudaMemsetAsync(tail_flags, 0, 3 * kTailRows * sizeof(int32_t), stream);
      const Layer* dl = device_layers;
      int last = static_cast<int>(nl);
      float* y0 = y[0];
      float* y1 = y[1];
      const int32_t* live_in = live[cursor.list];
      const int32_t* count_in = cursor.count;
      int32_t* flags = tail_flags;
      const int32_t* w = weight;
      int32_t* rows_alive = counts + 1;
      int32_t* alive_inputs = inputs_alive + 1;
      int32_t* live_out = live[1 - cursor.list];
      int32_t* count_out = counts + nl;
      int nn = n;
      float bb = bias;
      void* args[] = {&dl, const_cast<int*>(&first), &last, &nn, &bb, &y0, &y1, &live_in, &count_in, &flags, &w,
                      &rows_alive, &alive_inputs, &live_out, &count_out, &stage_floats};
      check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), blocks, kThreads, args, smem, stream), "tail kernel");
      final_live = live_out;
      final_count = count_out;
      return;
    }
    // A segment: layers [a, b_end) after the first, with the deduplications that follow them.
    const size_t first = static_cast<size_t>(a), last = static_cast<size_t>(b_end);
    const Geometry g = geometry<IdxT, R, kLayout>(rows);
    const int dedup_grid = static_cast<int>(std::min<int64_t>(std::max<int64_t>(rows, 1), 8192));
    int list = cursor.list;
    int32_t* list_count = cursor.count;
    for (size_t l = first; l < last; ++l) {
      if (l > 0) {
        if (profile) cudaEventRecord(events[l], stream);
        launch_layer<IdxT, R, kLayout>(g, l, LiveLists{live[list], list_count, live[1 - list], counts + l + 1, stamp,
                                                       weight, inputs_alive + l + 1});
        list = 1 - list;
        list_count = counts + l + 1;
      }
      if (dedup && l + 1 < nl && dedup_after(static_cast<int64_t>(l))) {
        const int b = static_cast<int>(l % 2);
        cudaMemsetAsync(keys, 0, table_size * sizeof(unsigned long long), stream);
        cudaMemsetAsync(reps, 0x7f, table_size * sizeof(int32_t), stream);  // 0x7f7f7f7f: above any row id
        dedup_hash<<<dedup_grid, kThreads, 0, stream>>>(y[1 - b], n, live[list], list_count, keys, reps, slot_of,
                                                        table_size - 1);
        int32_t* const merged_count = counts + dedup_counts_at() + l;
        dedup_merge<<<dedup_grid, kThreads, 0, stream>>>(y[1 - b], n, live[list], list_count, reps, slot_of, parent,
                                                         weight, live[1 - list], merged_count);
        list = 1 - list;
        list_count = merged_count;
      }
    }
    cursor = ListState{list, list_count};
    if (nl > 0) {
      final_live = live[list];
      final_count = list_count;
    }
    if (profile && last == nl) cudaEventRecord(events[nl], stream);
  }

  // Segment ends: checkpoints after layers 32, 64, 128, ... where the live count is read back and the tail
  // kernel may take over; only where at least 16 layers would remain, and none when profiling (which times
  // every layer) or when the tail is turned off. The last end is the number of layers.
  std::vector<size_t> segment_ends() const {
    const size_t nl = layers.size();
    std::vector<size_t> ends;
    if (tail && !profile)
      for (size_t c = 32; c + 16 <= nl; c *= 2) ends.push_back(c);
    ends.push_back(nl);
    return ends;
  }

  // Deduplicate after layer l (0-based)? After each of the first 16 layers, then every 2 layers up to depth
  // 32, every 4 up to 64, ... every 64 from depth 512 on: rows that became identical wait at most 1/8 of
  // the depth reached before they merge, and a 1920-layer network runs 77 deduplications.
  static bool dedup_after(int64_t l) {
    const int64_t depth = l + 1;
    int64_t every = 1;
    while (every < 64 && depth > 16 * every) every *= 2;
    return depth % every == 0;
  }

  void enqueue(Part part, int64_t rows, int64_t a = 0, int64_t b = 0) {
    if (small_index) dispatch<uint16_t>(part, rows, a, b); else dispatch<int32_t>(part, rows, a, b);
  }
  template <class IdxT, int R>
  void dispatch_layout(Part part, int64_t rows, int64_t a, int64_t b) {
    if (layout == kTransposed) launch<IdxT, R, kTransposed>(part, rows, a, b);
    else if (layout == kRowMajor) launch<IdxT, R, kRowMajor>(part, rows, a, b);
    else launch<IdxT, R, kGlobal>(part, rows, a, b);
  }
  template <class IdxT>
  void dispatch(Part part, int64_t rows, int64_t a, int64_t b) {
    switch (rows_per_group) {
      case 1: dispatch_layout<IdxT, 1>(part, rows, a, b); break;
      case 2: dispatch_layout<IdxT, 2>(part, rows, a, b); break;
      case 4: dispatch_layout<IdxT, 4>(part, rows, a, b); break;
      case 8: dispatch_layout<IdxT, 8>(part, rows, a, b); break;
      default: dispatch_layout<IdxT, 16>(part, rows, a, b); break;
    }
  }
  // Rows per group and staging: four rows per group, the best of the counts measured; more rows share W reads
  // but leave too few work items once most rows have died. Past 4096 neurons four rows are gathered from global
  // memory rather than staged: a staged row leaves one or two thread blocks per SM there, too few to hide the
  // gathers' latency. The measurements: bench/results/spdnn-h200.md.
  void choose_shape(int requested_rows, int requested_layout) {
    rows_per_group = 4;
    layout = n > 4096 ? kGlobal : kTransposed;
    if (requested_rows > 0) rows_per_group = requested_rows;
    if (requested_layout >= 0) layout = requested_layout;
    const size_t smem = static_cast<size_t>(rows_per_group) * n * sizeof(float);
    if (layout != kGlobal && smem > 200 * 1024) layout = kGlobal;
  }
};

bool deduplicate_rows_for(const std::string& mode, bool repeated_inputs) {
  if (mode == "on") return true;
  if (mode == "off") return false;
  if (mode == "auto") return !repeated_inputs;
  throw std::invalid_argument("row deduplication must be auto, on or off, not '" + mode + "'");
}

bool fused_gpu_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

FusedGpuEngine::FusedGpuEngine(const Network& network, const FusedGpuOptions& options)
    : FusedGpuEngine(network.neurons, network.bias, static_cast<int64_t>(network.layers.size()),
                     [&network](int64_t l) { return network.layers[l]; }, options) {}

FusedGpuEngine::FusedGpuEngine(int64_t neurons, float bias, int64_t layers,
                               const std::function<CsrMatrix(int64_t)>& layer_source,
                               const FusedGpuOptions& options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.device = options.device;
  s.use_graph = options.use_cuda_graph && !options.profile_layers;
  s.profile = options.profile_layers;
  s.dedup = options.deduplicate_rows;
  s.tail = options.tail_kernel;
  if (neurons <= 0 || neurons % 4 != 0 || neurons > INT32_MAX)
    throw std::runtime_error("fused GPU engine: the number of neurons must be a positive multiple of 4");
  s.n = static_cast<int>(neurons);
  s.bias = bias;
  s.small_index = neurons <= 65536;
  check(cudaSetDevice(s.device), "cudaSetDevice");
  check(cudaDeviceGetAttribute(&s.sms, cudaDevAttrMultiProcessorCount, s.device), "SM count");
  check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&s.copy_stream, cudaStreamNonBlocking), "stream");
  check(cudaEventCreate(&s.upload_start), "event");
  check(cudaEventCreate(&s.upload_done), "event");
  s.upload_batches = options.upload_batches;
  s.choose_shape(options.rows_per_group, options.layout);
  if (s.profile) {
    s.events.resize(layers + 1);
    for (cudaEvent_t& e : s.events) check(cudaEventCreate(&e), "event");
  }
  s.layers.resize(layers);
  // Layers are made (by the source), converted to column-ELL and uploaded on the usable cores (host/threads.hpp), so a
  // generated network of billions of entries never sits in host memory whole. Every failure surfaces as the engine's
  // std::runtime_error, with its message.
  const int n = s.n;
  try {
    host::for_each_index(static_cast<size_t>(layers), [&](size_t item) {
      const int64_t l = static_cast<int64_t>(item);
      check(cudaSetDevice(s.device), "cudaSetDevice");
      const CsrMatrix w = layer_source(l);
      if (w.nrows != n || w.ncols != n)
        throw std::runtime_error("fused GPU engine: layer " + std::to_string(l + 1) + " is not neurons x neurons");
      // Columns as sorted lists of (input neuron, weight): the fixed summation order of every output.
      const CsrMatrix wt = transposed(w);
      const std::vector<int64_t>& cptr = wt.row_ptr;
      const std::vector<int32_t>& crow = wt.col;
      const std::vector<float>& cval = wt.val;
      int width = 0;
      for (int c = 0; c < n; ++c) width = std::max<int>(width, static_cast<int>(cptr[c + 1] - cptr[c]));
      // Bundles: columns with identical input lists (plan/tiles.hpp's column classes), up to kBundle per bundle.
      int32_t classes = 0;
      const std::vector<int32_t> class_of = equal_list_classes(n, cptr, crow, classes);
      std::vector<std::vector<int32_t>> same(static_cast<size_t>(classes));
      for (int c = 0; c < n; ++c) same[class_of[c]].push_back(c);
      std::vector<std::vector<int32_t>> bundles;
      for (const std::vector<int32_t>& cols : same)
        for (size_t i = 0; i < cols.size(); i += kBundle)
          bundles.emplace_back(cols.begin() + i, cols.begin() + std::min(cols.size(), i + kBundle));
      std::sort(bundles.begin(), bundles.end());  // deterministic order (by first column)
      Layer& layer = s.layers[l];
      layer.width = width;
      // Bundles pay when they average >= 2 columns and still give a block two passes of work per row group;
      // with fewer, the late layers lack parallel work (bench/results/spdnn-h200.md has the measurements).
      const bool enough_columns = static_cast<int64_t>(bundles.size()) * 2 <= n;
      const bool enough_work = static_cast<int64_t>(bundles.size()) * kThreadsPerBundle >= 2 * kThreads;
      const bool bundle = options.bundle_columns > 0 ? enough_columns
                          : options.bundle_columns < 0 ? enough_columns && enough_work : false;
      auto upload = [&](auto const& host, auto*& dev, const char* what) {
        using T = typename std::decay_t<decltype(host)>::value_type;
        T* p = device_alloc<T>(host.size(), what);
        check(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), what);
        dev = p;
      };
      auto upload_index = [&](const std::vector<int32_t>& ids) {
        if (s.small_index) {
          std::vector<uint16_t> small(ids.begin(), ids.end());
          uint16_t* p = nullptr;
          upload(small, p, "weights");
          layer.idx = p;
        } else {
          int32_t* p = nullptr;
          upload(ids, p, "weights");
          layer.idx = p;
        }
      };
      if (bundle) {
        const int nb = static_cast<int>(bundles.size());
        std::vector<int32_t> bidx(static_cast<size_t>(width) * nb, 0);
        std::vector<float> bval(static_cast<size_t>(width) * nb * kBundle, 0.0f);
        std::vector<int32_t> bcol(static_cast<size_t>(nb) * kBundle, -1);
        for (int b = 0; b < nb; ++b) {
          const auto& cols = bundles[b];
          const int64_t len = cptr[cols[0] + 1] - cptr[cols[0]];
          for (int64_t e = 0; e < len; ++e) bidx[static_cast<size_t>(e) * nb + b] = crow[cptr[cols[0]] + e];
          for (size_t c = 0; c < cols.size(); ++c) {
            bcol[static_cast<size_t>(b) * kBundle + c] = cols[c];
            for (int64_t e = 0; e < len; ++e)
              bval[(static_cast<size_t>(e) * nb + b) * kBundle + c] = cval[cptr[cols[c]] + e];
          }
        }
        layer.bundles = nb;
        upload_index(bidx);
        upload(bval, layer.val, "weights");
        upload(bcol, layer.bcol, "weights");
      } else {
        std::vector<int32_t> idx(static_cast<size_t>(width) * n, 0);
        std::vector<float> val(static_cast<size_t>(width) * n, 0.0f);
        for (int c = 0; c < n; ++c)
          for (int64_t p = cptr[c]; p < cptr[c + 1]; ++p) {
            const size_t slot = static_cast<size_t>(p - cptr[c]) * n + c;
            idx[slot] = crow[p];
            val[slot] = cval[p];
          }
        upload_index(idx);
        upload(val, layer.val, "weights");
      }
    });
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what());
  }
  s.device_layers = device_alloc<Layer>(s.layers.size(), "layers");
  if (!s.layers.empty())
    check(cudaMemcpy(s.device_layers, s.layers.data(), s.layers.size() * sizeof(Layer), cudaMemcpyHostToDevice), "layers");
  s.tail_flags = device_alloc<int32_t>(3 * kTailRows, "tail flags");
  check(cudaMallocHost(&s.host_count, sizeof(int32_t)), "page-locked count");
}

FusedGpuEngine::~FusedGpuEngine() = default;

void FusedGpuEngine::pin_host_inputs(const CsrMatrix& inputs) {
  State& s = *state_;
  check(cudaSetDevice(s.device), "cudaSetDevice");
  page_lock_inputs(inputs, s.registered, "fused GPU engine", false);
}

void FusedGpuEngine::set_upload_batches(int batches) { state_->upload_batches = std::max(0, batches); }

void FusedGpuEngine::set_deduplicate_rows(bool on) {
  State& s = *state_;
  if (s.dedup == on) return;
  s.dedup = on;
  s.drop_graphs();  // the captured launches include (or omit) the deduplication steps
}

std::string FusedGpuEngine::device_name() const { return gpu_device_name(state_->device); }

std::vector<int64_t> FusedGpuEngine::infer(const CsrMatrix& inputs, FusedGpuTimings* timings) {
  State& s = *state_;
  if (inputs.ncols != s.n) throw std::runtime_error("fused GPU engine: inputs must have as many columns as neurons");
  if (inputs.nrows > INT32_MAX) throw std::runtime_error("fused GPU engine: at most 2^31 - 1 input rows");
  check(cudaSetDevice(s.device), "cudaSetDevice");
  const int64_t rows = inputs.nrows, nnz = inputs.nnz();
  if (rows > s.cap_rows || nnz > s.cap_nnz) {
    s.drop_graphs();
    s.free_buffers();
    s.cap_rows = rows;
    s.cap_nnz = nnz;
    for (int b = 0; b < 2; ++b) {
      s.y[b] = device_alloc<float>(static_cast<size_t>(rows) * s.n, "activations");
      s.live[b] = device_alloc<int32_t>(rows, "live rows");
    }
    s.counts = device_alloc<int32_t>(s.batch_counts_at() + kMaxUploadBatches, "counts");
    s.stamp = device_alloc<int32_t>(rows, "row stamps");
    s.weight = device_alloc<int32_t>(rows, "row weights");
    s.parent = device_alloc<int32_t>(rows, "row parents");
    s.slot_of = device_alloc<int32_t>(rows, "dedup slots");
    s.table_size = 1024;
    while (s.table_size < 2 * static_cast<uint64_t>(rows)) s.table_size *= 2;
    s.keys = device_alloc<unsigned long long>(s.table_size, "dedup table");
    s.reps = device_alloc<int32_t>(s.table_size, "dedup table");
    s.in_ptr = device_alloc<int64_t>(rows + 1, "inputs");
    s.in_col = device_alloc<int32_t>(nnz, "inputs");
    s.in_val = device_alloc<float>(nnz, "inputs");
  }
  // Upload batches: about 8 MB of inputs each, at most 8 (one for a small input set, or when asked).
  const int64_t bytes = nnz * static_cast<int64_t>(sizeof(int32_t) + sizeof(float));
  int batches = s.upload_batches > 0 ? std::min(s.upload_batches, kMaxUploadBatches)
                                     : static_cast<int>(std::min<int64_t>(8, (bytes >> 23) + 1));
  batches = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(batches, rows)));
  if (s.layers.empty()) batches = 1;
  s.batch_bounds.assign(batches + 1, 0);
  for (int b = 0; b <= batches; ++b) s.batch_bounds[b] = rows * b / batches;
  while (static_cast<int>(s.batch_copied.size()) < batches) {
    cudaEvent_t e;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event");
    s.batch_copied.push_back(e);
  }
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  // Inputs go up batch by batch on the copy stream; the compute stream clears the buffers meanwhile, then
  // scatters each batch and runs the first layer on it as soon as it has arrived, while the next batch is
  // on its way. The later layers follow in segments (CUDA graphs), and possibly the tail kernel.
  check(cudaEventRecord(s.upload_start, s.copy_stream), "upload inputs");
  check(cudaMemcpyAsync(s.in_ptr, inputs.row_ptr.data(), (rows + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, s.copy_stream), "upload inputs");
  for (int b = 0; b < batches; ++b) {
    const int64_t p0 = inputs.row_ptr[s.batch_bounds[b]], p1 = inputs.row_ptr[s.batch_bounds[b + 1]];
    if (p1 > p0) {
      check(cudaMemcpyAsync(s.in_col + p0, inputs.col.data() + p0, (p1 - p0) * sizeof(int32_t), cudaMemcpyHostToDevice, s.copy_stream), "upload inputs");
      check(cudaMemcpyAsync(s.in_val + p0, inputs.val.data() + p0, (p1 - p0) * sizeof(float), cudaMemcpyHostToDevice, s.copy_stream), "upload inputs");
    }
    check(cudaEventRecord(s.batch_copied[b], s.copy_stream), "upload inputs");
  }
  check(cudaEventRecord(s.upload_done, s.copy_stream), "upload inputs");
  if (batches == 1) {  // nothing to overlap: the upload completes before the layers start, timed alone
    check(cudaStreamSynchronize(s.copy_stream), "upload inputs");
  }
  const auto t1 = clock::now();
  s.enqueue(State::Part::kPrologue, rows);
  for (int b = 0; b < batches; ++b) {
    check(cudaStreamWaitEvent(s.stream, s.batch_copied[b], 0), "upload inputs");
    s.enqueue(State::Part::kBatch, rows, b);
  }
  // The later layers, segment by segment; at each checkpoint, if few rows are left, the tail kernel runs
  // the rest.
  const std::vector<size_t> ends = s.segment_ends();
  if (s.use_graph && (s.graph_rows != rows || s.graph_nnz != nnz || s.graphs.size() != ends.size())) {
    s.drop_graphs();
    s.graphs.assign(ends.size(), nullptr);
    s.graph_end.resize(ends.size());
    s.graph_rows = rows;
    s.graph_nnz = nnz;
  }
  s.tail_from = s.layers.size();
  size_t first = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    if (s.use_graph) {
      if (!s.graphs[i]) {
        cudaGraph_t g;
        check(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal), "graph capture");
        s.enqueue(State::Part::kSegment, rows, static_cast<int64_t>(first), static_cast<int64_t>(ends[i]));
        check(cudaStreamEndCapture(s.stream, &g), "graph capture");
        check(cudaGraphInstantiate(&s.graphs[i], g, 0), "graph instantiate");
        cudaGraphDestroy(g);
        s.graph_end[i] = s.cursor;
      }
      check(cudaGraphLaunch(s.graphs[i], s.stream), "graph launch");
      s.cursor = s.graph_end[i];
      if (!s.layers.empty()) {
        s.final_live = s.live[s.cursor.list];
        s.final_count = s.cursor.count;
      }
    } else {
      s.enqueue(State::Part::kSegment, rows, static_cast<int64_t>(first), static_cast<int64_t>(ends[i]));
    }
    first = ends[i];
    if (i + 1 < ends.size()) {
      check(cudaMemcpyAsync(s.host_count, s.cursor.count, sizeof(int32_t), cudaMemcpyDeviceToHost, s.stream), "live count");
      check(cudaStreamSynchronize(s.stream), "layer kernels");
      if (*s.host_count <= kTailRows) {
        s.enqueue(State::Part::kTail, rows, static_cast<int64_t>(first));
        s.tail_from = first;
        break;
      }
    }
  }
  check(cudaGetLastError(), "layer kernels");
  check(cudaStreamSynchronize(s.stream), "layer kernels");
  const auto t2 = clock::now();
  float upload_ms = 0;
  check(cudaEventElapsedTime(&upload_ms, s.upload_start, s.upload_done), "upload inputs");
  const size_t nl = s.layers.size();
  std::vector<int32_t> counts(s.batch_counts_at() + batches, 0);  // as State::counts
  check(cudaMemcpy(counts.data(), s.counts, counts.size() * sizeof(int32_t), cudaMemcpyDeviceToHost), "download");
  const int32_t final_count = counts[s.final_count - s.counts];
  std::vector<int32_t> live(final_count);
  check(cudaMemcpy(live.data(), s.final_live, final_count * sizeof(int32_t), cudaMemcpyDeviceToHost), "download");
  std::vector<int64_t> categories;
  if (s.dedup) {
    // An input is a category when the row it was merged into, followed to the end of the chain, is alive.
    std::vector<int32_t> parent(rows);
    check(cudaMemcpy(parent.data(), s.parent, rows * sizeof(int32_t), cudaMemcpyDeviceToHost), "download");
    std::vector<char> alive(rows, 0);
    for (int32_t r : live) alive[r] = 1;
    for (int64_t r = 0; r < rows; ++r) {
      int64_t root = r;
      while (parent[root] >= 0) root = parent[root];
      if (alive[root]) categories.push_back(r);
    }
  } else {
    categories.assign(live.begin(), live.end());
    std::sort(categories.begin(), categories.end());
  }
  const auto t3 = clock::now();
  if (timings) {
    auto sec = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    if (batches == 1) {
      timings->upload_inputs_s = sec(t0, t1);
      timings->layers_s = sec(t1, t2);
    } else {
      timings->upload_inputs_s = upload_ms * 1e-3;
      timings->layers_s = std::max(0.0, sec(t0, t2) - timings->upload_inputs_s);
    }
    timings->download_s = sec(t2, t3);
    timings->total_s = sec(t0, t3);
    timings->live_rows_per_layer.assign(counts.begin() + s.inputs_alive_at() + 1, counts.begin() + s.batch_counts_at());
    timings->computed_rows_per_layer.assign(counts.begin() + 1, counts.begin() + nl + 1);
    timings->distinct_rows_per_layer.clear();
    timings->tail_from = s.tail_from < nl ? static_cast<int64_t>(s.tail_from) : -1;
    for (size_t l = 0; l < nl; ++l)
      timings->distinct_rows_per_layer.push_back(
          s.dedup && l + 1 < nl && l < s.tail_from && State::dedup_after(static_cast<int64_t>(l)) ? counts[s.dedup_counts_at() + l] : -1);
    timings->layer_ms.clear();
    if (s.profile)
      for (size_t l = 0; l < nl; ++l) {
        float ms = 0;
        cudaEventElapsedTime(&ms, s.events[l], s.events[l + 1]);
        timings->layer_ms.push_back(ms);
      }
  }
  return categories;
}

}  // namespace snk::gc
