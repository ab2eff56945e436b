// graphchallenge/engine/tiled_kernels.cuh: the tiled SpDNN engine's table-driven layer kernels (tiled_gpu.hpp says what
// a layer computes): the sparse kernel, its forms for uniform tiles (each alone, and chained by the blocks they share)
// and the tensor kernel, with the tables they read.
// They are apart from tiled_gpu.cu, which launches them, so that a host emulation of the CUDA built-ins
// (tests/graphchallenge/cuda_emulation.hpp: one thread per CUDA thread, barriers for __syncthreads and for the warp's
// mma) compiles the same source on a machine without a GPU and checks it against the float64 host computation. Include
// it from CUDA code, or after that emulation (which then provides mma_f64).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/activate.cuh"
#include "engine/tiled_gpu.hpp"   // TiledGpuEngine::kMaxClassColumns
#include "plan/block_chains.hpp"  // BlockChains
#include "plan/tile_modes.hpp"    // TileBlock

namespace snk::gc::tiled {

constexpr int kRows = 128;   // live rows per thread block (one per thread)
constexpr int kStagedInputs = 64;   // a sparse tile's inputs held in shared memory at once
constexpr int kPrefetch = 8;        // activations a thread loads ahead of their multiply-adds
constexpr int kUniformStaged = 256;  // uniform tiles' input runs held in shared memory at once

// The tiles of one layer, on the device (pointers into LayerOnDevice's arrays).
struct TilesRef {
  const int32_t* gather;   // input position -> row of Y^T in
  const int32_t* start;    // tile -> its first output position
  const int32_t* width;
  const int32_t* pitch;
  const int32_t* block_ptr;
  const TileBlock* blocks;
  const float* values;
};

// A uniform tile's inputs (tiled_layer_uniform) as runs: consecutive inputs that read the same row of Y^T in with the
// same weight (bitwise) are one run, whose multiply-add the kernel does `count` times after one load of the activation.
// In a network whose equal outputs are merged (tile_modes.hpp's MergedNetwork) a merged output of the layer before is
// read once for each output it stands for, one after another, so a tile's inputs are a few runs.
struct UniformRun {
  int32_t row;     // the row of Y^T in (the input position's gather)
  int32_t count;   // inputs in the run, >= 1
  float weight;
};
// The runs of the tiles of a list: list entry i's are runs[run_ptr[i] .. run_ptr[i + 1]).
struct UniformRunsRef {
  const int32_t* run_ptr;
  const UniformRun* runs;
};
struct UniformRuns {
  std::vector<int32_t> run_ptr;
  std::vector<UniformRun> runs;
};
// Appends tile t's runs to `runs` (input position p reads row gather[p]; values: the layer's weights): its inputs in
// its order (its blocks in order, rows within a block in order), the weight its first output's.
inline void append_tile_runs(const LayerTiles& tiles, const std::vector<int32_t>& gather,
                             const std::vector<float>& values, int32_t t, std::vector<UniformRun>& runs) {
  const size_t first = runs.size();
  for (int32_t b = tiles.block_ptr[static_cast<size_t>(t)]; b < tiles.block_ptr[static_cast<size_t>(t) + 1]; ++b) {
    const TileBlock& k = tiles.blocks[static_cast<size_t>(b)];
    for (int32_t a = 0; a < k.nr; ++a) {
      const int32_t row = gather[static_cast<size_t>(k.r0 + a)];
      const int64_t pitch = tiles.pitch[static_cast<size_t>(t)];
      const float w = values[static_cast<size_t>(k.voff + static_cast<int64_t>(a) * pitch)];
      if (runs.size() > first && runs.back().row == row && std::memcmp(&runs.back().weight, &w, sizeof w) == 0)
        ++runs.back().count;
      else
        runs.push_back(UniformRun{row, 1, w});
    }
  }
}
// The runs of tiles `list` of a layer.
inline UniformRuns uniform_runs(const LayerTiles& tiles, const std::vector<int32_t>& gather,
                                const std::vector<float>& values, const std::vector<int32_t>& list) {
  UniformRuns u;
  u.run_ptr.push_back(0);
  for (const int32_t t : list) {
    append_tile_runs(tiles, gather, values, t, u.runs);
    u.run_ptr.push_back(static_cast<int32_t>(u.runs.size()));
  }
  return u;
}
// The number of runs of each tile of a layer (the sparse mode's loads a row where the tile is uniform: tile_modes.hpp's
// TileShape::loads).
inline std::vector<int32_t> uniform_run_counts(const LayerTiles& tiles, const std::vector<int32_t>& gather,
                                               const std::vector<float>& values) {
  std::vector<int32_t> counts(static_cast<size_t>(tiles.tiles()));
  std::vector<UniformRun> scratch;
  for (int32_t t = 0; t < static_cast<int32_t>(counts.size()); ++t) {
    scratch.clear();
    append_tile_runs(tiles, gather, values, t, scratch);
    counts[static_cast<size_t>(t)] = static_cast<int32_t>(scratch.size());
  }
  return counts;
}

// Chained uniform tiles (plan/block_chains.hpp) as tiled_layer_chained reads them. A segment of tiles T_0 .. T_{g-1}
// (T_j's second block T_{j+1}'s first) is g + 1 groups of inputs: group 0 is T_0's first block, group j (0 < j < g)
// the block T_{j-1} and T_j share, group g T_{g-1}'s second block; a lone tile (g = 1, any blocks) is all its inputs
// then an empty group. Each group's inputs are runs (consecutive inputs of one row and, bitwise, the same two
// weights) with the weights of the tile that ends there (`before`; 0 in group 0) and of the tile that starts there
// (`after`; 0 in group g); at the end of group j >= 1 tile T_{j-1}'s sum is complete (group_tile), at the end of group
// 0 none (-1). Each tile's inputs come in its own order, so its sum is tiled_layer's, bit for bit.
struct ChainRun {
  int32_t row;     // the row of Y^T in
  int32_t count;   // inputs in the run, >= 1
  float before, after;
};
struct ChainTables {
  int64_t segments() const { return static_cast<int64_t>(seg_ptr.size()) - 1; }
  std::vector<int32_t> seg_ptr{0};     // segment s: groups [seg_ptr[s], seg_ptr[s + 1])
  std::vector<int32_t> group_ptr{0};   // group g: runs [group_ptr[g], group_ptr[g + 1])
  std::vector<int32_t> group_tile;     // the tile whose sum is complete at group g's end, -1 for none
  std::vector<ChainRun> runs;
};
struct ChainRef {
  const int32_t* seg_ptr;
  const int32_t* group_ptr;
  const int32_t* group_tile;
  const ChainRun* runs;
};
// The tables of `chains` (tiles of a layer; input position p reads row gather[p]; values: the layer's weights, each
// uniform tile's those of its first output).
inline ChainTables chain_tables(const LayerTiles& tiles, const std::vector<int32_t>& gather,
                                const std::vector<float>& values, const BlockChains& chains) {
  ChainTables c;
  const auto weight = [&](int32_t t, const TileBlock& k, int32_t a) {
    return values[static_cast<size_t>(k.voff + static_cast<int64_t>(a) * tiles.pitch[static_cast<size_t>(t)])];
  };
  // A block's inputs into the group being built, with the weights of tile `ending` (its block e) and of tile
  // `starting` (its block s): the same positions, each tile's own weights; -1: no tile, weights 0.
  const auto add_inputs = [&](int32_t ending, const TileBlock& e, int32_t starting, const TileBlock& s) {
    const TileBlock& k = ending >= 0 ? e : s;
    for (int32_t a = 0; a < k.nr; ++a) {
      const int32_t row = gather[static_cast<size_t>(k.r0 + a)];
      const float before = ending >= 0 ? weight(ending, e, a) : 0.0f;
      const float after = starting >= 0 ? weight(starting, s, a) : 0.0f;
      ChainRun* last = static_cast<int32_t>(c.runs.size()) > c.group_ptr.back() ? &c.runs.back() : nullptr;
      if (last != nullptr && last->row == row && std::memcmp(&last->before, &before, sizeof before) == 0 &&
          std::memcmp(&last->after, &after, sizeof after) == 0)
        ++last->count;
      else
        c.runs.push_back(ChainRun{row, 1, before, after});
    }
  };
  const auto close_group = [&](int32_t complete) {
    c.group_ptr.push_back(static_cast<int32_t>(c.runs.size()));
    c.group_tile.push_back(complete);
  };
  const auto block = [&](int32_t tile, int i) -> const TileBlock& {
    return tiles.blocks[static_cast<size_t>(tiles.block_ptr[static_cast<size_t>(tile)] + i)];
  };
  for (int64_t s = 0; s < chains.segments(); ++s) {
    const int32_t* t = chains.tiles.data() + chains.seg_ptr[static_cast<size_t>(s)];
    const int32_t g = chains.seg_ptr[static_cast<size_t>(s) + 1] - chains.seg_ptr[static_cast<size_t>(s)];
    if (g == 1) {   // a lone tile: its blocks in order, then an empty group that completes it
      for (int32_t b = tiles.block_ptr[static_cast<size_t>(t[0])]; b < tiles.block_ptr[static_cast<size_t>(t[0]) + 1]; ++b)
        add_inputs(-1, tiles.blocks[static_cast<size_t>(b)], t[0], tiles.blocks[static_cast<size_t>(b)]);
      close_group(-1);
      close_group(t[0]);
    } else {
      add_inputs(-1, block(t[0], 0), t[0], block(t[0], 0));
      close_group(-1);
      for (int32_t j = 1; j < g; ++j) {
        const TileBlock &a = block(t[j - 1], 1), &b = block(t[j], 0);
        if (a.r0 != b.r0 || a.nr != b.nr)
          throw std::logic_error("chain_tables: tile " + std::to_string(t[j]) + " does not start where tile " +
                                 std::to_string(t[j - 1]) + " ends");
        add_inputs(t[j - 1], a, t[j], b);
        close_group(t[j - 1]);
      }
      add_inputs(t[g - 1], block(t[g - 1], 1), -1, block(t[g - 1], 1));
      close_group(t[g - 1]);
    }
    c.seg_ptr.push_back(static_cast<int32_t>(c.group_tile.size()));
  }
  return c;
}

// The width a specialised sparse kernel (tiled_layer<WIDTH>) may serve tiles `list` of a layer with: 16 or 32 where
// every one of them is a whole class of that width (pitch == width: the kernel reads a tile's weights WIDTH apart, so
// not a slice of a wider class); 0 (the kernel for any tile) otherwise.
inline int whole_class_width(const LayerTiles& tiles, const std::vector<int32_t>& list) {
  int width = -1;
  for (const int32_t t : list) {
    const int w = tiles.width[static_cast<size_t>(t)];
    const bool whole = tiles.pitch[static_cast<size_t>(t)] == w;
    width = whole && (width == -1 || width == w) ? w : 0;
  }
  return width == 16 || width == 32 ? width : 0;
}

// Row r of Y^T in at a thread's column: y = that column of row 0 (yin + the thread's row, as bytes), ld_bytes = ld *
// sizeof(Acc), below 2^32 (the engine's bound on the rows held): the address is one 32 x 32 -> 64-bit multiply-add.
template <class Acc>
__device__ __forceinline__ Acc activation_at(const char* y, int32_t r, uint32_t ld_bytes) {
  return __ldg(reinterpret_cast<const Acc*>(y + static_cast<uint64_t>(static_cast<uint32_t>(r)) * ld_bytes));
}
template <class Acc>
__device__ __forceinline__ const char* column_of(const Acc* yin, int32_t row) {
  return reinterpret_cast<const char*>(yin + row);
}
template <class Acc>
__device__ __forceinline__ uint32_t row_bytes(int64_t ld) {
  return static_cast<uint32_t>(ld) * static_cast<uint32_t>(sizeof(Acc));
}

// Tile t's inputs in order (its blocks in order, rows within a block in order), kStagedInputs at a time: for each
// stage, the block writes input a's weights for outputs q < COLS at weights[a * PITCH + q] (in Acc; 0 from q = width
// on) and its row of Y^T in at rows[a], then calls consume(count) between two barriers. Every thread of the block calls
// it (the walk is the same in all).
template <int COLS, int PITCH, class Acc, class Consume>
__device__ __forceinline__ void for_each_stage(const TilesRef& L, int t, int width, int64_t pitch, Acc* weights,
                                               int32_t* rows, Consume&& consume) {
  int fill = 0;
  for (int32_t b = L.block_ptr[t]; b < L.block_ptr[t + 1]; ++b) {
    const TileBlock k = L.blocks[b];
    for (int32_t a0 = 0; a0 < k.nr;) {
      const int n = min(k.nr - a0, kStagedInputs - fill);
      const float* w = L.values + k.voff + a0 * pitch;
      for (int e = threadIdx.x; e < n * COLS; e += blockDim.x) {
        const int a = e / COLS, q = e % COLS;
        weights[(fill + a) * PITCH + q] = q < width ? Acc(__ldg(w + a * pitch + q)) : Acc(0);
      }
      for (int e = threadIdx.x; e < n; e += blockDim.x) rows[fill + e] = __ldg(L.gather + k.r0 + a0 + e);
      fill += n;
      a0 += n;
      if (fill == kStagedInputs) {
        __syncthreads();
        consume(fill);
        __syncthreads();   // before the next stage overwrites these inputs
        fill = 0;
      }
    }
  }
  if (fill > 0) {
    __syncthreads();
    consume(fill);
  }
}

// Sparse mode: Y^T out (this layer's output order) from Y^T in (the previous layer's output order, or neuron order for
// the first layer), for the rows [0, *held) of stride ld (the grid's rows beyond are not computed), over the tiles
// list[0 .. gridDim.x). A thread block computes one tile (at most kMaxClassColumns outputs) for 128 rows, one row per
// thread. The tile's inputs are staged (for_each_stage: their weights converted to Acc once a block, not once a row);
// each thread loads its activations kPrefetch inputs ahead of their multiply-adds, so that many loads are in flight.
// WIDTH > 0: every tile of the list is a whole class of WIDTH columns; WIDTH == 0: any tile. Acc: the type the sums
// and the activations are held in (float or double). For each output the multiply-adds run in the tile's input order,
// as in the host reference and the embedded code.
template <int WIDTH, class Acc>
__global__ void __launch_bounds__(kRows) tiled_layer(const Acc* __restrict__ yin, Acc* __restrict__ yout, int64_t ld,
                                                     const int32_t* __restrict__ held, const int32_t* __restrict__ list, TilesRef L,
                                                     float bias, int32_t* __restrict__ alive) {
  constexpr int kAcc = WIDTH > 0 ? WIDTH : TiledGpuEngine::kMaxClassColumns;
  __shared__ __align__(16) Acc weights[kStagedInputs * kAcc];   // input a's weight for output q at a * kAcc + q
  __shared__ int32_t rows[kStagedInputs];                         // input a's row of Y^T in
  const int t = list[blockIdx.x];
  const int32_t row = blockIdx.y * kRows + threadIdx.x;
  const bool active = row < *held;   // the others only help stage
  const char* y = column_of(yin, row);
  const uint32_t ld_bytes = row_bytes<Acc>(ld);
  const int width = WIDTH > 0 ? WIDTH : L.width[t];
  const int pitch = WIDTH > 0 ? WIDTH : L.pitch[t];
  Acc acc[kAcc];
#pragma unroll
  for (int q = 0; q < kAcc; ++q) acc[q] = 0;
  // The staged inputs' multiply-adds, in order.
  const auto accumulate = [&](int count) {
    const auto multiply_add = [&](Acc x, const Acc* w) {
#pragma unroll
      for (int q = 0; q < kAcc; ++q)
        if (WIDTH > 0 || q < width) acc[q] = fma(x, w[q], acc[q]);
    };
    int a = 0;
    for (; a + kPrefetch <= count; a += kPrefetch) {
      Acc x[kPrefetch];
#pragma unroll
      for (int u = 0; u < kPrefetch; ++u) x[u] = active ? activation_at<Acc>(y, rows[a + u], ld_bytes) : Acc(0);
#pragma unroll
      for (int u = 0; u < kPrefetch; ++u) multiply_add(x[u], weights + (a + u) * kAcc);
    }
    for (; a < count; ++a) multiply_add(active ? activation_at<Acc>(y, rows[a], ld_bytes) : Acc(0), weights + a * kAcc);
  };
  for_each_stage<kAcc, kAcc>(L, t, width, pitch, weights, rows, accumulate);
  if (!active) return;
  const int32_t c0 = L.start[t];
  bool any = false;
#pragma unroll
  for (int q = 0; q < kAcc; ++q)
    if (WIDTH > 0 || q < width) {
      const Acc v = activate(acc[q], bias);
      yout[static_cast<int64_t>(c0 + q) * ld + row] = v;
      any = any || v > Acc(0);
    }
  if (any) alive[row] = 1;
}

// A uniform tile's one value `v` (its sum, activated) written to each of its outputs at `row`; whether it is non-zero.
template <class Acc>
__device__ __forceinline__ bool write_uniform_tile(Acc* yout, int64_t ld, int32_t row, const TilesRef& L, int tile, Acc v) {
  const int32_t c0 = L.start[tile], width = L.width[tile];
  for (int q = 0; q < width; ++q) yout[static_cast<int64_t>(c0 + q) * ld + row] = v;
  return v > Acc(0);
}

// The staged runs [a, stop) of a uniform kernel (each with its row of Y^T in `row`), a advanced to stop: each run's
// activation (0 in a thread past the rows held) loaded kPrefetch runs ahead of multiply_adds(x, run).
template <class Acc, class Input, class MultiplyAdds>
__device__ __forceinline__ void walk_staged(const Input* staged, int& a, int stop, bool active, const char* y,
                                            uint32_t ld_bytes, const MultiplyAdds& multiply_adds) {
  for (; a + kPrefetch <= stop; a += kPrefetch) {
    Acc x[kPrefetch];
#pragma unroll
    for (int u = 0; u < kPrefetch; ++u) x[u] = active ? activation_at<Acc>(y, staged[a + u].row, ld_bytes) : Acc(0);
#pragma unroll
    for (int u = 0; u < kPrefetch; ++u) multiply_adds(x[u], staged[a + u]);
  }
  for (; a < stop; ++a) multiply_adds(active ? activation_at<Acc>(y, staged[a].row, ld_bytes) : Acc(0), staged[a]);
}

// Sparse mode on uniform tiles (every output's weights equal to the first's, bitwise: LayerTiles::distinct == 1;
// merged tiles, of width 1, among them): the one sum tiled_layer computes for each output, computed once (the same
// multiply-adds in the same order, so the same bits) and written to every output of the tile. Such a tile is little
// work for a thread block, so each block takes the list's entries blockIdx.x, blockIdx.x + gridDim.x, ... Their inputs,
// as runs (uniform_runs: one load of an activation for a run's multiply-adds), are staged in shared memory
// kUniformStaged runs at a time, tile after tile (each run's row of Y^T in, its weight in the sums' type and its count,
// with where each tile's runs end), and each thread walks them with its activations loaded kPrefetch runs ahead,
// finishing each tile where its runs end.
template <class Acc>
__global__ void __launch_bounds__(kRows) tiled_layer_uniform(const Acc* __restrict__ yin, Acc* __restrict__ yout,
                                                             int64_t ld, const int32_t* __restrict__ held, const int32_t* __restrict__ list,
                                                             int32_t count, TilesRef L, UniformRunsRef R, float bias,
                                                             int32_t* __restrict__ alive) {
  struct __align__(16) Input { int32_t row, count; Acc weight; };   // row of Y^T in, inputs in the run, their weight
  struct TileEnd { int32_t at, tile; };                            // tile's runs end before staged run `at`
  __shared__ Input staged[kUniformStaged];
  __shared__ TileEnd ends[kUniformStaged];
  const int32_t row = blockIdx.y * kRows + threadIdx.x;
  const bool active = row < *held;   // the others only help stage
  const char* y = column_of(yin, row);
  const uint32_t ld_bytes = row_bytes<Acc>(ld);
  bool any = false;
  // Where the staging stands (the same in every thread): list entry i, and its next run r to stage.
  int32_t i = blockIdx.x;
  int32_t r = i < count ? R.run_ptr[i] : 0;
  Acc acc = 0;
  while (i < count) {
    int fill = 0, tiles_ended = 0;
    while (i < count && fill < kUniformStaged && tiles_ended < kUniformStaged) {
      const int32_t end = R.run_ptr[i + 1];
      if (r == end) {   // entry i's runs are all staged
        if (threadIdx.x == 0) ends[tiles_ended] = TileEnd{fill, list[i]};
        ++tiles_ended;
        i += gridDim.x;
        if (i < count) r = R.run_ptr[i];
        continue;
      }
      const int n = min(end - r, kUniformStaged - fill);
      for (int e = threadIdx.x; e < n; e += kRows) {
        const UniformRun u = R.runs[r + e];
        staged[fill + e] = Input{u.row, u.count, Acc(u.weight)};
      }
      fill += n;
      r += n;
    }
    __syncthreads();
    const auto multiply_adds = [&](Acc x, const Input& in) {   // count >= 1; past the first, rare outside runs
      acc = fma(x, in.weight, acc);
      for (int c = 1; c < in.count; ++c) acc = fma(x, in.weight, acc);
    };
    int a = 0;
    for (int j = 0; j <= tiles_ended; ++j) {
      const int stop = j < tiles_ended ? ends[j].at : fill;
      walk_staged<Acc>(staged, a, stop, active, y, ld_bytes, multiply_adds);
      if (j < tiles_ended) {
        if (active) any = write_uniform_tile(yout, ld, row, L, ends[j].tile, activate(acc, bias)) || any;
        acc = 0;
      }
    }
    __syncthreads();   // before the next stage overwrites these runs
  }
  if (any) alive[row] = 1;
}

// Sparse mode on chained uniform tiles (ChainTables): as tiled_layer_uniform, but each block takes the segments
// blockIdx.x, blockIdx.x + gridDim.x, ... and sweeps each segment's groups in order with two sums, that of the tile
// ending in the group (`done`) and that of the tile starting there (`open`): one load of an activation serves both
// tiles' multiply-adds, so a block shared by two tiles is read once. At a group's end the tile completed there is
// written, then `open` becomes `done`. The runs are staged in shared memory kUniformStaged at a time and loaded
// kPrefetch ahead, as in tiled_layer_uniform.
template <class Acc>
__global__ void __launch_bounds__(kRows) tiled_layer_chained(const Acc* __restrict__ yin, Acc* __restrict__ yout,
                                                             int64_t ld, const int32_t* __restrict__ held, int32_t segments,
                                                             TilesRef L, ChainRef C, float bias, int32_t* __restrict__ alive) {
  struct __align__(16) Input { int32_t row, count; Acc before, after; };   // row of Y^T in, inputs in the run, weights
  struct GroupEnd { int32_t at, tile; };                                  // the group's runs end before staged run `at`
  __shared__ Input staged[kUniformStaged];
  __shared__ GroupEnd ends[kUniformStaged];
  const int32_t row = blockIdx.y * kRows + threadIdx.x;
  const bool active = row < *held;   // the others only help stage
  const char* y = column_of(yin, row);
  const uint32_t ld_bytes = row_bytes<Acc>(ld);
  bool any = false;
  // Where the staging stands (the same in every thread): segment s, its group g (groups end at g_end), g's next run r.
  int32_t s = blockIdx.x;
  int32_t g = s < segments ? C.seg_ptr[s] : 0, g_end = s < segments ? C.seg_ptr[s + 1] : 0;
  int32_t r = s < segments ? C.group_ptr[g] : 0;
  Acc done = 0, open = 0;
  while (s < segments) {
    int fill = 0, groups_ended = 0;
    while (s < segments && fill < kUniformStaged && groups_ended < kUniformStaged) {
      const int32_t end = C.group_ptr[g + 1];
      if (r == end) {   // group g's runs are all staged
        if (threadIdx.x == 0) ends[groups_ended] = GroupEnd{fill, C.group_tile[g]};
        ++groups_ended;
        if (++g == g_end) {
          s += gridDim.x;
          if (s < segments) {
            g = C.seg_ptr[s];
            g_end = C.seg_ptr[s + 1];
          }
        }
        if (s < segments) r = C.group_ptr[g];
        continue;
      }
      const int n = min(end - r, kUniformStaged - fill);
      for (int e = threadIdx.x; e < n; e += kRows) {
        const ChainRun u = C.runs[r + e];
        staged[fill + e] = Input{u.row, u.count, Acc(u.before), Acc(u.after)};
      }
      fill += n;
      r += n;
    }
    __syncthreads();
    const auto multiply_adds = [&](Acc x, const Input& in) {   // count >= 1; past the first, rare outside runs
      done = fma(x, in.before, done);
      open = fma(x, in.after, open);
      for (int c = 1; c < in.count; ++c) {
        done = fma(x, in.before, done);
        open = fma(x, in.after, open);
      }
    };
    int a = 0;
    for (int j = 0; j <= groups_ended; ++j) {
      const int stop = j < groups_ended ? ends[j].at : fill;
      walk_staged<Acc>(staged, a, stop, active, y, ld_bytes, multiply_adds);
      if (j < groups_ended) {
        if (active && ends[j].tile >= 0)
          any = write_uniform_tile(yout, ld, row, L, ends[j].tile, activate(done, bias)) || any;
        done = open;
        open = 0;
      }
    }
    __syncthreads();   // before the next stage overwrites these runs
  }
  if (any) alive[row] = 1;
}

#if defined(__CUDACC__)
// D (8 x 8) += A (8 x 4) B (4 x 8) on the FP64 tensor cores. Lane l holds A(l / 4, l % 4), B(l % 4, l / 4) and
// D(l / 4, 2 (l % 4) + i), i = 0, 1.
__device__ __forceinline__ void mma_f64(double (&d)[2], double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
#else
  __trap();   // the tensor mode is offered on compute capability 8.0 and later only (tensor_mode_supported)
#endif
}
#endif

// Tensor mode (FP64 sums): the same tiles, products and activation as tiled_layer, each warp computing 32 of the
// block's 128 rows as four 8-row slabs against the tile's columns in 8-column slabs (at most kMaxClassColumns). The
// tile's inputs are staged as in tiled_layer (the weights as doubles, rows kTensorPitch apart so that a warp reads its
// B fragment without bank conflicts) and multiplied four at a time (a stage's last group padded with zeros), the
// activations of two groups loaded before their products.
__global__ void __launch_bounds__(kRows) tiled_layer_tensor(const double* __restrict__ yin, double* __restrict__ yout,
                                                            int64_t ld, const int32_t* __restrict__ held, const int32_t* __restrict__ list,
                                                            TilesRef L, float bias, int32_t* __restrict__ alive) {
  constexpr int kSlabs = TiledGpuEngine::kMaxClassColumns / 8;
  // Lane (g, k4) reads word a * kTensorPitch + 8 n + g with a = a0 + k4: a pitch of 4 mod 16 words spreads a half
  // warp's 16 words over all 32 banks.
  constexpr int kTensorPitch = TiledGpuEngine::kMaxClassColumns + 4;
  constexpr int kGroups = 2;   // groups of four inputs whose activations are loaded ahead
  __shared__ __align__(16) double weights[kStagedInputs * kTensorPitch];
  __shared__ int32_t rows[kStagedInputs];
  const int t = list[blockIdx.x];
  const int lane = threadIdx.x & 31, g = lane >> 2, k4 = lane & 3;
  const uint32_t ld_bytes = row_bytes<double>(ld);
  const int32_t live = *held;
  const int32_t row0 = blockIdx.y * kRows + (threadIdx.x >> 5) * 32;
  const bool active = row0 < live;   // the whole warp; the others only help stage
  const int width = L.width[t], pitch = L.pitch[t];
  const int slabs = (width + 7) / 8;
  double acc[4][kSlabs][2];
#pragma unroll
  for (int m = 0; m < 4; ++m)
#pragma unroll
    for (int n = 0; n < kSlabs; ++n) acc[m][n][0] = acc[m][n][1] = 0.0;
  // The staged inputs' products, four at a time.
  const auto accumulate = [&](int count) {
    for (int a0 = 0; a0 < count; a0 += 4 * kGroups) {
      double x[kGroups][4];
#pragma unroll
      for (int i = 0; i < kGroups; ++i) {
        const int a = a0 + 4 * i + k4;
        const int32_t src = a < count ? rows[a] : -1;
#pragma unroll
        for (int m = 0; m < 4; ++m) {
          const int32_t row = row0 + m * 8 + g;
          x[i][m] = src >= 0 && row < live ? activation_at<double>(column_of(yin, row), src, ld_bytes) : 0.0;
        }
      }
#pragma unroll
      for (int i = 0; i < kGroups; ++i) {
        const int a = a0 + 4 * i + k4;
        if (a0 + 4 * i >= count) break;   // the same in the whole warp
#pragma unroll
        for (int n = 0; n < kSlabs; ++n)
          if (n < slabs) {
            const double wv = a < count ? weights[a * kTensorPitch + n * 8 + g] : 0.0;
#pragma unroll
            for (int m = 0; m < 4; ++m) mma_f64(acc[m][n], x[i][m], wv);
          }
      }
    }
  };
  for_each_stage<TiledGpuEngine::kMaxClassColumns, kTensorPitch>(L, t, width, pitch, weights, rows,
                                                                  [&](int count) {
                                                                    if (active) accumulate(count);
                                                                  });
  if (!active) return;
  const int32_t c0 = L.start[t];
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    const int32_t row = row0 + m * 8 + g;
    bool any = false;
#pragma unroll
    for (int n = 0; n < kSlabs; ++n)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int q = n * 8 + 2 * k4 + i;
        if (n < slabs && q < width && row < live) {
          const double v = activate(acc[m][n][i], bias);
          yout[static_cast<int64_t>(c0 + q) * ld + row] = v;
          any = any || v > 0.0;
        }
      }
    if (any) alive[row] = 1;
  }
}

}  // namespace snk::gc::tiled
