// graphchallenge/engine/tiled_gpu.cu: the tiled SpDNN engine (tiled_gpu.hpp says what it computes and how): the
// launches of its tile kernels (tiled_kernels.cuh), the inference loop with its compactions, the calibration of the cost
// model that chooses among the modes, and the embedded layers' compiles and loading.
//
// Per layer on the device: gather (int32 per input position: the row of Y^T it reads), the tiles (first output, width,
// the pitch of their weight rows, their blocks: the input positions each reads and the offset of its weights, as
// tile_layer lays them out) and one list of tile ids per mode; each mode's kernel runs over its list. Where every
// sparse tile of a layer has width 16, or every one 32, the sparse kernel specialised for that width serves them.
#include "engine/tiled_gpu.hpp"
#include "engine/embedded.hpp"
#include "engine/gpu_common.cuh"
#include "engine/tiled_kernels.cuh"
#include "host/threads.hpp"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

namespace snk::gc {
namespace {

using namespace tiled;

constexpr double kCompactBelow = 0.9;   // compact once the live rows are at most this share of the rows held
constexpr int64_t kInputBatches = 8;    // the inputs go up in about this many batches of rows, the first layer on each
constexpr size_t kPassReserveBytes = size_t(256) << 20;   // device memory a pass leaves free (at least 1% of it)
constexpr int64_t kMostEmbeddedNnz = 65536;   // the most multiply-adds one layer's embedded code may hold
constexpr int kUniformBlocksPerSm = 64;       // the uniform kernel's grid: about this many blocks an SM
constexpr int kChainedTiles = 8;              // chained uniform tiles: the most tiles in a segment
constexpr int kChainedBlocksPerSm = 8;        // ... run chained where their grid gives at least this many blocks an SM
constexpr size_t kLayersReported = 16;        // embedded layers reported one by one (progress); more: a summary
constexpr size_t kTableWindow = 64;           // layers whose mode tables are made at once on the host

void check(cudaError_t e, const char* what) { throw_on_cuda(e, "tiled GPU engine", what); }

template <class T>
struct DeviceArray {
  T* p = nullptr;
  size_t n = 0;
  DeviceArray() = default;
  explicit DeviceArray(size_t count) : n(count) {
    if (count > 0) check(cudaMalloc(&p, count * sizeof(T)), "device allocation");
  }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    if (n > 0) check(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  ~DeviceArray() { if (p) cudaFree(p); }
  DeviceArray(DeviceArray&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr; o.n = 0; }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p, o.p);
    std::swap(n, o.n);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

// Page-locked host memory (device-to-host copies into it are asynchronous).
template <class T>
struct PinnedArray {
  T* p = nullptr;
  explicit PinnedArray(size_t count) {
    check(cudaMallocHost(reinterpret_cast<void**>(&p), std::max<size_t>(1, count) * sizeof(T)), "pinned allocation");
  }
  ~PinnedArray() { if (p) cudaFreeHost(p); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
};

// An event without timing, destroyed with its owner.
struct Event {
  cudaEvent_t e = nullptr;
  Event() { check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event"); }
  ~Event() { if (e) cudaEventDestroy(e); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// Y^T of the inputs in neuron order: Y^T(j, r) = inputs(r, j); every stored entry 1 where val is null (a pattern).
template <class Acc>
__global__ void scatter_inputs(const int64_t* __restrict__ row_ptr, int64_t base, const int32_t* __restrict__ col,
                               const float* __restrict__ val, int64_t rows, int64_t ld, Acc* __restrict__ y) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  for (int64_t k = row_ptr[r] - base; k < row_ptr[r + 1] - base; ++k)
    y[static_cast<int64_t>(col[k]) * ld + r] = val ? Acc(val[k]) : Acc(1);
}

// ids[r] = r for r < n: each column of Y^T starts as the input row it holds.
__global__ void number_rows(int64_t* __restrict__ ids, int64_t n) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r < n) ids[r] = r;
}

// The live columns of Y^T among the first `bound` (pos: their new places, from the scan of alive; the flags beyond the
// rows held are 0) and their row ids, moved to the front.
template <class Acc>
__global__ void compact_rows(const Acc* __restrict__ y, Acc* __restrict__ out, int64_t ld, int32_t bound,
                             int64_t neurons, const int32_t* __restrict__ alive, const int32_t* __restrict__ pos,
                             const int64_t* __restrict__ ids, int64_t* __restrict__ ids_out) {
  const int32_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= bound || !alive[row]) return;
  const int32_t to = pos[row];
  if (blockIdx.y == 0) ids_out[to] = ids[row];
  for (int64_t j = blockIdx.y; j < neurons; j += gridDim.y) out[j * ld + to] = y[j * ld + row];
}

// After a compaction: the rows held are the pos[bound] moved to the front, each alive (alive[r] = r < pos[bound] for
// r < bound).
__global__ void hold_compacted(int32_t* __restrict__ alive, const int32_t* __restrict__ pos, int32_t bound,
                               int32_t* __restrict__ held) {
  const int32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  const int32_t count = pos[bound];
  if (r == 0) *held = count;
  if (r < bound) alive[r] = r < count ? 1 : 0;
}

// A loaded embedded kernel (cudaLibrary), unloaded with its owner.
struct EmbeddedKernel {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  EmbeddedKernel() = default;
  ~EmbeddedKernel() { if (library) cudaLibraryUnload(library); }
  EmbeddedKernel(EmbeddedKernel&& o) noexcept : library(o.library), kernel(o.kernel) { o.library = nullptr; }
  EmbeddedKernel& operator=(EmbeddedKernel&& o) noexcept {
    std::swap(library, o.library);
    std::swap(kernel, o.kernel);
    return *this;
  }
};

// Memory an inference takes over from the one before (grown where it needs more): allocating and freeing the
// activations' gigabytes on every call would cost more than all the layers of the smaller networks.
struct Workspace {
  DeviceArray<unsigned char> y[2], ids[2], alive, pos, held, batch_held, scan, in_ptr, in_col, in_val;
  std::unique_ptr<PinnedArray<int32_t>> counts;
  size_t counts_n = 0;

  // `count` values of T in `a` (its old contents not kept where it grows).
  template <class T>
  static T* take(DeviceArray<unsigned char>& a, size_t count) {
    const size_t bytes = std::max<size_t>(1, count * sizeof(T));
    if (a.n < bytes) {
      a = DeviceArray<unsigned char>();   // the old block freed before the new one is taken
      a = DeviceArray<unsigned char>(bytes);
    }
    return reinterpret_cast<T*>(a.p);
  }
  size_t bytes() const {   // the device memory held
    size_t b = 0;
    for (const DeviceArray<unsigned char>* a : {&y[0], &y[1], &ids[0], &ids[1], &alive, &pos, &held, &batch_held, &scan,
                                                &in_ptr, &in_col, &in_val})
      b += a->n;
    return b;
  }
  int32_t* host_counts(size_t count) {
    if (!counts || counts_n < count) {
      counts.reset();
      counts = std::make_unique<PinnedArray<int32_t>>(count);
      counts_n = count;
    }
    return counts->p;
  }
};

struct LayerOnDevice {
  DeviceArray<int32_t> gather, start, width, pitch, block_ptr;
  DeviceArray<TileBlock> blocks;
  DeviceArray<float> values;
  std::array<DeviceArray<int32_t>, kTileModes> list;   // tile ids per mode; the sparse list without its uniform tiles
  DeviceArray<int32_t> uniform;   // the sparse tiles of one distinct column (tiled_layer_uniform)
  DeviceArray<int32_t> uniform_run_ptr;   // their inputs as runs (uniform_runs)
  DeviceArray<UniformRun> uniform_runs;
  // The uniform tiles again, chained (tiled_kernels.cuh's ChainTables; no segment: not chained).
  DeviceArray<int32_t> chain_seg_ptr, chain_group_ptr, chain_group_tile;
  DeviceArray<ChainRun> chain_runs;
  int32_t out_rows = 0;           // the rows of Y^T the layer writes (its outputs, or their slots where merged)
  int32_t in_rows = 0;            // the rows of Y^T its tiles read
  // The one width (16 or 32) of every other sparse tile, each a whole class, where the specialised kernel serves them.
  int sparse_width = 0;
  EmbeddedKernel embedded;

  TilesRef ref() const { return TilesRef{gather.p, start.p, width.p, pitch.p, block_ptr.p, blocks.p, values.p}; }
  UniformRunsRef runs() const { return UniformRunsRef{uniform_run_ptr.p, uniform_runs.p}; }
  ChainRef chains() const { return ChainRef{chain_seg_ptr.p, chain_group_ptr.p, chain_group_tile.p, chain_runs.p}; }
  int32_t chain_segments() const { return chain_seg_ptr.n > 0 ? static_cast<int32_t>(chain_seg_ptr.n) - 1 : 0; }
  int32_t count(TileMode m) const { return static_cast<int32_t>(list[static_cast<size_t>(m)].n); }
};

// The tiles' tables of one layer on the device, without the mode lists.
LayerOnDevice upload_tiles(const LayerTiles& tiles, const std::vector<int32_t>& gather, const std::vector<float>& values) {
  LayerOnDevice d;
  d.gather = DeviceArray<int32_t>(gather);
  d.start = DeviceArray<int32_t>(tiles.start);
  d.width = DeviceArray<int32_t>(tiles.width);
  d.pitch = DeviceArray<int32_t>(tiles.pitch);
  d.block_ptr = DeviceArray<int32_t>(tiles.block_ptr);
  d.blocks = DeviceArray<TileBlock>(tiles.blocks);
  d.values = DeviceArray<float>(values);
  return d;
}

// A layer's sparse-mode tiles as its kernels take them: those of one distinct column (merged ones, of width 1, among
// them) apart where `share_equal_sums` (tiled_layer_uniform); the others for tiled_layer.
struct SparseLists {
  std::vector<int32_t> sparse, uniform;
};
SparseLists sparse_lists(const LayerTiles& tiles, const LayerModes& modes, bool share_equal_sums) {
  SparseLists s;
  for (int32_t t : modes.tiles[static_cast<size_t>(TileMode::Sparse)])
    (share_equal_sums && tiles.distinct[static_cast<size_t>(t)] == 1 ? s.uniform : s.sparse).push_back(t);
  return s;
}

// A layer's mode tables on the host: its sparse tiles (sparse_lists), the uniform tiles' inputs as runs, the width
// the other sparse tiles share as whole classes (16 or 32, else 0), and the uniform tiles as chains (no segment where
// none chains, or chains are not asked for).
struct ModeTables {
  SparseLists lists;
  UniformRuns runs;
  int sparse_width = 0;
  ChainTables chain;
};
ModeTables mode_tables(const LayerTiles& tiles, const std::vector<int32_t>& gather, const std::vector<float>& values,
                       const LayerModes& modes, bool share_equal_sums, bool chain) {
  ModeTables t;
  t.lists = sparse_lists(tiles, modes, share_equal_sums);
  t.runs = uniform_runs(tiles, gather, values, t.lists.uniform);
  t.sparse_width = whole_class_width(tiles, t.lists.sparse);
  if (chain) {
    const BlockChains c = block_chains(tiles, t.lists.uniform, kChainedTiles);
    if (c.segments() > 0 && c.segments() < static_cast<int64_t>(t.lists.uniform.size()))
      t.chain = chain_tables(tiles, gather, values, c);
  }
  return t;
}

// Uploads a layer's mode lists (`modes`: the plan's, whose sparse list `t` splits) and tables.
void upload_modes(LayerOnDevice& d, const LayerModes& modes, const ModeTables& t) {
  for (int m = 0; m < kTileModes; ++m)
    d.list[static_cast<size_t>(m)] = DeviceArray<int32_t>(m == 0 ? t.lists.sparse : modes.tiles[static_cast<size_t>(m)]);
  d.uniform = DeviceArray<int32_t>(t.lists.uniform);
  d.uniform_run_ptr = DeviceArray<int32_t>(t.runs.run_ptr);
  d.uniform_runs = DeviceArray<UniformRun>(t.runs.runs);
  d.sparse_width = t.sparse_width;
  if (t.chain.segments() > 0) {
    d.chain_seg_ptr = DeviceArray<int32_t>(t.chain.seg_ptr);
    d.chain_group_ptr = DeviceArray<int32_t>(t.chain.group_ptr);
    d.chain_group_tile = DeviceArray<int32_t>(t.chain.group_tile);
    d.chain_runs = DeviceArray<ChainRun>(t.chain.runs);
  }
}

bool tensor_mode_supported(int device) {
  cudaDeviceProp prop{};
  return cudaGetDeviceProperties(&prop, device) == cudaSuccess && prop.major >= 8;
}

int multiprocessors(int device) {
  int n = 0;
  check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device), "device attribute");
  return std::max(1, n);
}

std::string device_arch(int device) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "device properties");
  return "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
}

// The sparse kernels, most specialised first: the first whose width is the layer's (0: any) serves it.
template <class Acc>
using SparseKernel = void (*)(const Acc*, Acc*, int64_t, const int32_t*, const int32_t*, TilesRef, float, int32_t*);
template <class Acc>
SparseKernel<Acc> sparse_kernel(int width) {
  struct Candidate {
    int width;
    SparseKernel<Acc> kernel;
  };
  static constexpr Candidate kCandidates[] = {{16, tiled_layer<16, Acc>}, {32, tiled_layer<32, Acc>}, {0, tiled_layer<0, Acc>}};
  for (const Candidate& c : kCandidates)
    if (c.width == 0 || c.width == width) return c.kernel;
  return nullptr;   // not reached: the last candidate serves any width
}

// Launches the layer's kernels, one per mode with tiles, over the rows [0, *held) of Y^T, on a grid of the rows
// [0, bound) (bound >= *held: the rows held need not be known on the host). Returns whether uniform tiles ran chained.
template <class Acc>
bool launch_layer(const LayerOnDevice& L, const Acc* yin, Acc* yout, int64_t ld, int32_t bound, const int32_t* held,
                  float bias, int32_t* alive, int sms, cudaStream_t stream) {
  const unsigned chunks = static_cast<unsigned>((bound + kRows - 1) / kRows);
  const TilesRef ref = L.ref();
  bool ran_chained = false;
  if (const int32_t n = L.count(TileMode::Sparse)) {
    const dim3 grid(static_cast<unsigned>(n), chunks);
    const int32_t* list = L.list[static_cast<size_t>(TileMode::Sparse)].p;
    const auto kernel = sparse_kernel<Acc>(L.sparse_width);
    kernel<<<grid, kRows, 0, stream>>>(yin, yout, ld, held, list, ref, bias, alive);
    check(cudaGetLastError(), "sparse tiles' launch");
  }
  if (L.uniform.n > 0) {
    // About kUniformBlocksPerSm blocks an SM over the whole grid, at least one tile (or segment) each; chained where
    // the segments give at least kChainedBlocksPerSm blocks an SM, else each tile on its own.
    const int64_t across = std::max<int64_t>(1, static_cast<int64_t>(sms) * kUniformBlocksPerSm / chunks);
    const int64_t chained = std::min<int64_t>(L.chain_segments(), across);
    if (chained * chunks >= static_cast<int64_t>(sms) * kChainedBlocksPerSm) {
      tiled_layer_chained<Acc><<<dim3(static_cast<unsigned>(chained), chunks), kRows, 0, stream>>>(
          yin, yout, ld, held, L.chain_segments(), ref, L.chains(), bias, alive);
      check(cudaGetLastError(), "chained uniform tiles' launch");
      ran_chained = true;
    } else {
      const dim3 grid(static_cast<unsigned>(std::min<int64_t>(static_cast<int64_t>(L.uniform.n), across)), chunks);
      tiled_layer_uniform<Acc><<<grid, kRows, 0, stream>>>(yin, yout, ld, held, L.uniform.p,
                                                           static_cast<int32_t>(L.uniform.n), ref, L.runs(), bias, alive);
      check(cudaGetLastError(), "uniform sparse tiles' launch");
    }
  }
  if (const int32_t n = L.count(TileMode::Tensor)) {
    if constexpr (std::is_same_v<Acc, double>) {
      const dim3 grid(static_cast<unsigned>(n), chunks);
      tiled_layer_tensor<<<grid, kRows, 0, stream>>>(yin, yout, ld, held, L.list[static_cast<size_t>(TileMode::Tensor)].p,
                                                     ref, bias, alive);
      check(cudaGetLastError(), "tensor tiles' launch");
    } else {
      throw std::logic_error("tiled GPU engine: tensor tiles with FP32 sums");
    }
  }
  if (const int32_t n = L.count(TileMode::Embedded)) {
    long long ld_arg = ld;
    const int* held_arg = held;
    const Acc* in = yin;
    Acc* out = yout;
    int* flags = alive;
    void* args[] = {&in, &out, &ld_arg, &held_arg, &bias, &flags};
    check(cudaLaunchKernel(reinterpret_cast<const void*>(L.embedded.kernel), dim3(static_cast<unsigned>(n), chunks),
                           dim3(kRows), args, 0, stream),
          "embedded tiles' launch");
  }
  return ran_chained;
}

// The embedded kernel of `cubin` (its extern "C" function `name`), loaded.
EmbeddedKernel load_embedded(const std::vector<char>& cubin, const std::string& name) {
  EmbeddedKernel k;
  check(cudaLibraryLoadData(&k.library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), "load embedded code");
  check(cudaLibraryGetKernel(&k.kernel, k.library, name.c_str()), "find the embedded kernel");
  return k;
}

// The synthetic tiles the calibration times: `count` tiles of `inputs` inputs (in blocks of at most 16, each over
// consecutive positions drawn at random) and `width` outputs each, over `neurons` positions, random weights (the same
// for every output of an input where `uniform`). run > 1: as in a merged network, each aligned group of `run` positions
// reads one row and a tile's inputs share one weight, so a uniform tile's inputs come in runs (uniform_runs).
struct SyntheticLayer {
  TiledLayer layer;
  LayerTiles tiles;
  std::vector<int32_t> gather;
};
SyntheticLayer synthetic_layer(int64_t neurons, int count, int inputs, int width, bool uniform, int run,
                               std::mt19937_64& rng) {
  SyntheticLayer s;
  s.layer.nrows = s.layer.ncols = neurons;
  s.gather.resize(static_cast<size_t>(neurons));
  std::iota(s.gather.begin(), s.gather.end(), 0);
  std::shuffle(s.gather.begin(), s.gather.end(), rng);
  if (run > 1)
    for (size_t p = 0; p < s.gather.size(); ++p) s.gather[p] = s.gather[p - p % static_cast<size_t>(run)];
  std::uniform_real_distribution<float> value(-0.2f, 0.2f);
  for (int t = 0; t < count; ++t) {
    const float tile_weight = value(rng);
    s.tiles.start.push_back(t * width);
    s.tiles.width.push_back(width);
    s.tiles.pitch.push_back(width);
    s.tiles.distinct.push_back(uniform ? 1 : width);
    for (int done = 0; done < inputs;) {
      const int nr = std::min(16, inputs - done);
      std::uniform_int_distribution<int64_t> at(0, neurons - nr);
      s.tiles.blocks.push_back(TileBlock{static_cast<int32_t>(at(rng)), nr, static_cast<int64_t>(s.layer.values.size())});
      for (int a = 0; a < nr; ++a) {
        const float first = run > 1 ? tile_weight : value(rng);
        for (int q = 0; q < width; ++q) s.layer.values.push_back(uniform || q == 0 ? first : value(rng));
      }
      done += nr;
    }
    s.tiles.block_ptr.push_back(static_cast<int32_t>(s.tiles.blocks.size()));
  }
  return s;
}

// The calibration: each mode timed on synthetic tiles of several shapes (inputs x width, drawn or uniform weights),
// over `rows` rows (TiledOptions::calibration_rows).
template <class Acc>
CostModel calibrate(int device, const std::string& key, int64_t rows, bool progress) {
  constexpr int64_t kNeurons = 2048;
  constexpr int kTilesPerShape = 32, kMostCalibratedTileNnz = 512;
  struct Shape { int inputs, width; bool uniform; int run; };
  // Width 1: merged tiles; run 16: a merged network's inputs, in runs (the uniform kernel's loads).
  const Shape shapes[] = {{8, 8, false, 1},  {16, 16, false, 1}, {32, 16, false, 1}, {32, 32, false, 1},
                          {64, 32, false, 1}, {32, 16, true, 1},  {64, 32, true, 1},  {32, 1, false, 1},
                          {64, 1, false, 1},  {64, 1, true, 16}};
  const bool fp64 = std::is_same_v<Acc, double>;
  const bool tensor = fp64 && tensor_mode_supported(device);
  const int sms = multiprocessors(device);
  const std::string arch = device_arch(device);
  if (progress) std::fprintf(stderr, "[tiled] calibrating the tile modes on %s (%s sums)\n", gpu_device_name(device).c_str(), fp64 ? "FP64" : "FP32");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream creation");
  struct StreamGuard { cudaStream_t s; ~StreamGuard() { cudaStreamDestroy(s); } } guard{stream};
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  struct EventGuard { cudaEvent_t a, b; ~EventGuard() { cudaEventDestroy(a); cudaEventDestroy(b); } } events{e0, e1};
  std::mt19937_64 rng(2019);
  std::vector<Acc> y(static_cast<size_t>(kNeurons * rows));
  std::uniform_real_distribution<double> act(0.0, 1.0);
  for (Acc& v : y) v = static_cast<Acc>(act(rng));
  DeviceArray<Acc> yin(y), yout(y.size());
  DeviceArray<int32_t> alive(static_cast<size_t>(rows));
  const DeviceArray<int32_t> held(std::vector<int32_t>{static_cast<int32_t>(rows)});
  std::vector<TileTiming> timings;
  double compile_s = 0;
  int64_t compiled_nnz = 0;
  for (const auto& [inputs, width, uniform, run] : shapes) {
    const SyntheticLayer syn = synthetic_layer(kNeurons, kTilesPerShape, inputs, width, uniform, run, rng);
    LayerOnDevice d = upload_tiles(syn.tiles, syn.gather, syn.layer.values);
    std::vector<int32_t> all(kTilesPerShape);
    std::iota(all.begin(), all.end(), 0);
    // The uniform kernel's loads a tile (its runs, on average); the other kernels load every input.
    const std::vector<int32_t> runs = uniform_run_counts(syn.tiles, syn.gather, syn.layer.values);
    const int64_t loads = uniform ? (std::accumulate(runs.begin(), runs.end(), int64_t{0}) + kTilesPerShape / 2) / kTilesPerShape : 0;
    for (int m = 0; m < kTileModes; ++m) {
      const TileMode mode = static_cast<TileMode>(m);
      if (mode == TileMode::Tensor && !tensor) continue;
      if (run > 1 && mode != TileMode::Sparse) continue;   // runs change only the uniform kernel's loads
      LayerModes modes;
      modes.tiles[static_cast<size_t>(m)] = all;
      upload_modes(d, modes, mode_tables(syn.tiles, syn.gather, syn.layer.values, modes, true, false));
      if (mode == TileMode::Embedded) {
        if (inputs * width > kMostCalibratedTileNnz) continue;   // the compile would take longer than the rest together
        const std::string name = "snk_calibration";
        EmbeddedOptions eo;
        eo.arch = arch;
        eo.deadline_s = 120;   // no cache: the compile time itself is measured
        const EmbeddedBinary bin = compile_embedded(embedded_source(syn.layer, syn.gather, syn.tiles, all, fp64, name), name, eo);
        if (bin.status != EmbeddedStatus::Compiled) {
          if (progress) std::fprintf(stderr, "[tiled] the embedded mode is not calibrated: %s %s\n", embedded_status_name(bin.status), bin.message.c_str());
          continue;
        }
        try {
          d.embedded = load_embedded(bin.cubin, name);
        } catch (const std::runtime_error& e) {
          if (progress) std::fprintf(stderr, "[tiled] the embedded mode is not calibrated: %s\n", e.what());
          continue;
        }
        compile_s += bin.seconds;
        compiled_nnz += static_cast<int64_t>(kTilesPerShape) * inputs * width;
      }
      std::vector<float> ms;
      for (int rep = 0; rep < 6; ++rep) {
        check(cudaEventRecord(e0, stream), "event");
        launch_layer<Acc>(d, yin.p, yout.p, rows, static_cast<int32_t>(rows), held.p, -0.3f, alive.p, sms, stream);
        check(cudaEventRecord(e1, stream), "event");
        check(cudaEventSynchronize(e1), "calibration");
        float t = 0;
        check(cudaEventElapsedTime(&t, e0, e1), "event time");
        if (rep > 0) ms.push_back(t);   // the first run warms up
      }
      std::sort(ms.begin(), ms.end());
      TileTiming tt;
      tt.mode = mode;
      tt.shape = TileShape{inputs, width, static_cast<int64_t>(inputs) * width,
                           static_cast<int64_t>(inputs) * (uniform ? 1 : width), loads < inputs ? loads : 0};
      tt.tiles = kTilesPerShape;
      tt.rows = rows;
      tt.ns = static_cast<double>(ms[ms.size() / 2]) * 1e6;
      timings.push_back(tt);
    }
  }
  const CostModel model = CostModel::fit(key, timings, compiled_nnz > 0 ? compile_s * 1e9 / static_cast<double>(compiled_nnz) : 0);
  if (progress)
    for (const TileTiming& t : timings)
      std::fprintf(stderr, "[tiled]   %-8s %2lld inputs x %2lld outputs%s%s: %.1f ns a tile per 128 rows\n",
                   tile_mode_name(t.mode), static_cast<long long>(t.shape.inputs), static_cast<long long>(t.shape.width),
                   t.shape.distinct_nnz < t.shape.nnz ? " (uniform)" : "",
                   mode_inputs(t.mode, t.shape) < t.shape.inputs
                       ? (" in " + std::to_string(mode_inputs(t.mode, t.shape)) + " runs").c_str() : "",
                   t.ns / (static_cast<double>(t.tiles) * static_cast<double>(t.rows / 128)));
  return model;
}

}  // namespace

CostModel tile_cost_model(int device, TiledAccumulation accumulation, const TiledOptions& options) {
  const bool fp64 = accumulation == TiledAccumulation::FP64;
  const int64_t rows = options.calibration_rows;
  if (rows < 128 || rows % 128 != 0 || rows > TiledOptions::kMostCalibrationRows)
    throw std::invalid_argument("tiled GPU engine: calibration_rows is " + std::to_string(rows) +
                                " (a multiple of 128 from 128 to " +
                                std::to_string(TiledOptions::kMostCalibrationRows) + ")");
  const std::string key = gpu_device_name(device) + "|" + device_arch(device) + "|" + (fp64 ? "fp64" : "fp32") +
                          "|tile-modes-2" +
                          (rows == TiledOptions::kDefaultCalibrationRows ? "" : "|rows-" + std::to_string(rows));
  static std::mutex lock;
  static std::map<std::string, CostModel> measured;
  std::lock_guard<std::mutex> hold(lock);
  if (auto it = measured.find(key); it != measured.end()) return it->second;
  // The file is named by the key, each character outside [A-Za-z0-9.-] written as '_'.
  std::string name = key;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  const std::string file = options.cache_dir.empty() ? "" : options.cache_dir + "/tile-cost/" + name + ".txt";
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    CostModel m;
    std::string why;
    if (in && CostModel::parse(text.str(), m, why) && m.key == key) {
      measured[key] = m;
      return m;
    }
  }
  check(cudaSetDevice(device), "select the device");
  CostModel m = fp64 ? calibrate<double>(device, key, rows, options.progress)
                     : calibrate<float>(device, key, rows, options.progress);
  measured[key] = m;
  if (!file.empty()) {
    const std::string why = write_atomically(file, m.serialize());
    if (!why.empty() && options.progress)
      std::fprintf(stderr, "[tiled] the cost model was not cached: %s\n", why.c_str());
  }
  return m;
}

struct TiledGpuEngine::State {
  int device = 0;
  int sms = 1;   // the device's multiprocessors
  TiledAccumulation accumulation = TiledAccumulation::FP64;
  int64_t neurons = 0;
  float bias = 0;
  int64_t rows_per_pass = 0;   // TiledOptions::rows_per_pass
  std::vector<LayerOnDevice> layers;
  ModePlan plan;
  CostModel model;
  cudaStream_t stream = nullptr;
  cudaStream_t copies = nullptr;   // the inputs' upload, batch by batch, beside the first layer on `stream`
  Workspace work;
  std::vector<void*> registered;   // host memory pinned by pin_host_inputs
};

bool TiledGpuEngine::can_run(const TiledNetwork& net, std::string* why) {
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const TiledLayer& t = net.layers[l];
    if (t.nrows != net.neurons || t.ncols != net.neurons) {
      if (why) *why = "layer " + std::to_string(l + 1) + " is not neurons x neurons";
      return false;
    }
  }
  if (net.bias > 0) {
    if (why) *why = "a positive bias (the challenge's is negative)";
    return false;
  }
  return true;
}

TiledGpuEngine::TiledGpuEngine(const TiledNetwork& net, int device, const TiledOptions& options) : state_(new State) {
  std::string why;
  if (!can_run(net, &why)) throw std::invalid_argument("tiled GPU engine: " + why);
  State& s = *state_;
  s.device = device;
  s.accumulation = options.accumulation;
  s.neurons = net.neurons;
  s.bias = net.bias;
  if (options.rows_per_pass < 0)
    throw std::invalid_argument("tiled GPU engine: rows_per_pass is " + std::to_string(options.rows_per_pass) +
                                " (0: as many as fit the device)");
  s.rows_per_pass = options.rows_per_pass;
  check(cudaSetDevice(device), "select the device");
  s.sms = multiprocessors(device);
  const bool fp64 = options.accumulation == TiledAccumulation::FP64;
  PlanOptions po;
  po.policy = options.modes;
  po.tensor_allowed = fp64 && tensor_mode_supported(device);
  po.share_equal_sums = options.merge_equal_outputs;
  if (options.modes == ModePolicy::Tensor && !po.tensor_allowed)
    throw std::invalid_argument(fp64 ? "tiled GPU engine: the tensor tile mode needs compute capability 8.0 or later"
                                     : "tiled GPU engine: the tensor tile mode computes FP64 sums; these are FP32");
  if (options.modes == ModePolicy::Auto) s.model = tile_cost_model(device, options.accumulation, options);
  std::vector<LayerTiles> tiles;
  tiles.reserve(net.layers.size());
  for (const TiledLayer& t : net.layers) tiles.push_back(layer_tiles(t, kMaxClassColumns));
  // Tiles that share blocks in chain order (the order every mode sums them in), chained or not.
  host::for_each_index(tiles.size(), [&](size_t l) { orient_block_chains(tiles[l]); });
  // Equal outputs merged (tile_modes.hpp's MergedNetwork), or every output its own row of Y^T.
  std::vector<std::vector<int32_t>> gathers = net.gather;
  std::vector<int32_t> out_rows(net.layers.size(), static_cast<int32_t>(net.neurons));
  if (options.merge_equal_outputs) {
    MergedNetwork m = merge_equal_outputs(net, tiles);
    tiles = std::move(m.tiles);
    gathers = std::move(m.gather);
    out_rows = std::move(m.slots);
  }
  // The uniform kernels' loads per tile, by layer: its runs, priced as a share of its segment's where chained.
  std::vector<std::vector<int32_t>> loads(tiles.size());
  host::for_each_index(tiles.size(), [&](size_t l) {
    loads[l] = uniform_run_counts(tiles[l], gathers[l], net.layers[l].values);
    if (options.chain_shared_blocks && options.merge_equal_outputs)
      loads[l] = chained_loads(tiles[l], std::move(loads[l]), kChainedTiles);
  });
  s.plan = plan_tile_modes(tiles, s.model, po, &loads);
  check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "stream creation");
  check(cudaStreamCreateWithFlags(&s.copies, cudaStreamNonBlocking), "stream creation");
  for (size_t l = 0; l < net.layers.size(); ++l) {
    s.layers.push_back(upload_tiles(tiles[l], gathers[l], net.layers[l].values));
    s.layers.back().out_rows = out_rows[l];
    std::vector<char> read(static_cast<size_t>(net.neurons), 0);
    for (const TileBlock& k : tiles[l].blocks)
      for (int32_t a = 0; a < k.nr; ++a) read[static_cast<size_t>(gathers[l][static_cast<size_t>(k.r0 + a)])] = 1;
    s.layers.back().in_rows = static_cast<int32_t>(std::count(read.begin(), read.end(), 1));
  }

  // The embedded layers, most predicted gain first: each one's code from the cache, else compiled, on up to one host
  // thread per core at once, while the compile budget's wall time lasts. A layer is not compiled where its code would
  // exceed kMostEmbeddedNnz multiply-adds (NVRTC's time grows faster than the code) or where the model predicts its
  // compile to outlast the budget left; those layers, and any not compiled in time, fall back.
  std::vector<size_t> order;
  for (size_t l = 0; l < s.plan.layers.size(); ++l)
    if (!s.plan.layers[l].tiles[static_cast<size_t>(TileMode::Embedded)].empty()) order.push_back(l);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return s.plan.layers[a].embedded_gain_ns > s.plan.layers[b].embedded_gain_ns;
  });
  EmbeddedOptions eo;
  eo.arch = device_arch(device);
  eo.cache_dir = options.cache_dir.empty() ? "" : options.cache_dir + "/embedded";
  std::vector<EmbeddedBinary> bins(order.size());
  std::array<int64_t, 4> outcome{};   // layers by EmbeddedStatus
  // One name for every layer's kernel (each is a library of its own), so that the cache's key is the layer's code.
  const std::string name = "snk_tiled_layer";
  using clock = std::chrono::steady_clock;
  const auto end = clock::now() + std::chrono::duration_cast<clock::duration>(
                                      std::chrono::duration<double>(std::max(0.0, options.compile_budget_s)));
  host::for_each_index(order.size(), [&](size_t i) {
    try {
      const size_t l = order[i];
      const std::vector<int32_t>& ids = s.plan.layers[l].tiles[static_cast<size_t>(TileMode::Embedded)];
      int64_t nnz = 0;
      for (int32_t t : ids) nnz += tiles[l].nnz(t);
      EmbeddedBinary& bin = bins[i];
      bin.status = EmbeddedStatus::TimedOut;   // not compiled (the message says why), not a failure
      bin.message = "over " + std::to_string(kMostEmbeddedNnz) + " multiply-adds";
      if (nnz > kMostEmbeddedNnz) return;
      const std::string source = embedded_source(net.layers[l], gathers[l], tiles[l], ids, fp64, name);
      bin = lookup_embedded(source, name, eo);
      if (bin.status == EmbeddedStatus::Cached) return;
      const double left = std::chrono::duration<double>(end - clock::now()).count();
      if (left <= 0) {
        bin.message = "not cached, and the compile budget is spent";
        return;
      }
      if (s.model.compile_ns_per_nnz * 1e-9 * static_cast<double>(nnz) > left) {
        bin.message = "not cached, and its compile is predicted to outlast the budget left";
        return;
      }
      EmbeddedOptions o = eo;
      o.deadline_s = left;
      bin = compile_embedded(source, name, o);
    } catch (const std::exception& e) {   // on a worker thread: kept for the report below, never thrown from here
      bins[i].status = EmbeddedStatus::Failed;
      bins[i].message = e.what();
    }
  });
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t l = order[i];
    LayerModes& modes = s.plan.layers[l];
    const EmbeddedBinary& bin = bins[i];
    const bool have = bin.status == EmbeddedStatus::Cached || bin.status == EmbeddedStatus::Compiled;
    ++outcome[static_cast<size_t>(bin.status)];
    if (bin.status == EmbeddedStatus::Failed)   // a fault of the generator: said, and the layer still runs
      std::fprintf(stderr, "[tiled] warning: the embedded code of layer %zu does not compile; its tiles fall back: %s\n",
                   l + 1, bin.message.c_str());
    else if (options.progress && order.size() <= kLayersReported)
      std::fprintf(stderr, "[tiled] layer %zu: %zu embedded tiles %s (%.2f s)%s%s\n", l + 1,
                   modes.tiles[static_cast<size_t>(TileMode::Embedded)].size(),
                   have ? embedded_status_name(bin.status) : "fall back", bin.seconds, bin.message.empty() ? "" : ": ",
                   bin.message.c_str());
    bool loaded = false;
    if (have) {
      try {
        s.layers[l].embedded = load_embedded(bin.cubin, name);
        loaded = true;
      } catch (const std::runtime_error& e) {   // said, and the layer still runs
        std::fprintf(stderr, "[tiled] warning: layer %zu's embedded code does not load; its tiles fall back: %s\n",
                     l + 1, e.what());
      }
    }
    if (!loaded) {
      s.plan.embedded_fallbacks += static_cast<int64_t>(modes.tiles[static_cast<size_t>(TileMode::Embedded)].size());
      modes.drop_embedded();
    }
  }
  if (options.progress && !order.empty())
    std::fprintf(stderr, "[tiled] embedded layers: %lld cached, %lld compiled, %lld fell back (not compiled in the "
                 "budget of %.0f s, or over %lld multiply-adds), %lld failed\n",
                 static_cast<long long>(outcome[static_cast<size_t>(EmbeddedStatus::Cached)]),
                 static_cast<long long>(outcome[static_cast<size_t>(EmbeddedStatus::Compiled)]),
                 static_cast<long long>(outcome[static_cast<size_t>(EmbeddedStatus::TimedOut)]), options.compile_budget_s,
                 static_cast<long long>(kMostEmbeddedNnz),
                 static_cast<long long>(outcome[static_cast<size_t>(EmbeddedStatus::Failed)]));
  // The layers' mode tables, made on host threads a window of layers at a time, each window's host form freed once
  // uploaded.
  std::vector<ModeTables> made;
  for (size_t l0 = 0; l0 < net.layers.size(); l0 += kTableWindow) {
    made.assign(std::min(kTableWindow, net.layers.size() - l0), ModeTables());
    host::for_each_index(made.size(), [&](size_t i) {
      const size_t l = l0 + i;
      made[i] = mode_tables(tiles[l], gathers[l], net.layers[l].values, s.plan.layers[l], options.merge_equal_outputs,
                            options.chain_shared_blocks);
    });
    for (size_t i = 0; i < made.size(); ++i) upload_modes(s.layers[l0 + i], s.plan.layers[l0 + i], made[i]);
  }
}

const ModePlan& TiledGpuEngine::plan() const { return state_->plan; }
const CostModel& TiledGpuEngine::cost_model() const { return state_->model; }

TiledGpuEngine::~TiledGpuEngine() {
  if (!state_) return;
  cudaSetDevice(state_->device);
  for (void* p : state_->registered) cudaHostUnregister(p);
  if (state_->stream) cudaStreamDestroy(state_->stream);
  if (state_->copies) cudaStreamDestroy(state_->copies);
}

void TiledGpuEngine::pin_host_inputs(const CsrMatrix& inputs) {
  State& s = *state_;
  check(cudaSetDevice(s.device), "select the device");
  page_lock_inputs(inputs, s.registered, "tiled GPU engine", true);   // arrays a fused engine locked: left to it
}

std::string TiledGpuEngine::device_name() const { return gpu_device_name(state_->device); }

std::vector<int64_t> TiledGpuEngine::infer(const CsrMatrix& inputs, TiledGpuTimings* timings) {
  State& s = *state_;
  if (inputs.ncols != s.neurons)
    throw std::invalid_argument("tiled GPU engine: the inputs have " + std::to_string(inputs.ncols) +
                                " columns, the network " + std::to_string(s.neurons) + " neurons");
  if (!inputs.val.empty() && inputs.val.size() != inputs.col.size())
    throw std::invalid_argument("tiled GPU engine: the inputs have " + std::to_string(inputs.val.size()) + " values for " +
                                std::to_string(inputs.col.size()) + " stored entries (a binary pattern has none)");
  if (inputs.nrows < 0 || inputs.row_ptr.size() != static_cast<size_t>(inputs.nrows) + 1 || inputs.row_ptr.front() != 0 ||
      inputs.row_ptr.back() != static_cast<int64_t>(inputs.col.size()))
    throw std::invalid_argument("tiled GPU engine: the inputs' row pointers are not those of " +
                                std::to_string(inputs.nrows) + " rows holding " + std::to_string(inputs.col.size()) +
                                " entries");
  check(cudaSetDevice(s.device), "select the device");
  const bool fp64 = s.accumulation == TiledAccumulation::FP64;
  const size_t acc_bytes = fp64 ? sizeof(double) : sizeof(float);
  const int64_t n = s.neurons;
  const size_t layers = s.layers.size();
  Workspace& w = s.work;

  // The passes: as many inputs at once as the device's free memory, with what the workspace holds already, takes.
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "free memory");
  const size_t held_bytes = w.bytes();
  const size_t reserve = std::max(kPassReserveBytes, total_bytes / 100);
  const size_t available = free_bytes + held_bytes > reserve ? free_bytes + held_bytes - reserve : 0;
  PassFootprint footprint;
  footprint.bytes_per_row = 2 * static_cast<size_t>(n) * acc_bytes + 2 * sizeof(int64_t) + 2 * sizeof(int32_t) +
                            sizeof(int64_t);   // Y^T twice, row ids twice, alive and positions, a row pointer
  footprint.bytes_per_entry = sizeof(int32_t) + (inputs.val.empty() ? 0 : sizeof(float));
  footprint.fixed_bytes = 4096;
  InputPasses passes;
  try {
    // The grid's 65535 chunks of rows bound a pass; that also keeps ld * sizeof(Acc) below 2^32, as embedded kernels
    // need.
    passes = plan_input_passes(inputs.row_ptr, footprint, available, kRows, static_cast<int64_t>(65535) * kRows,
                               s.rows_per_pass);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("tiled GPU engine: ") + e.what() + " (the device's free memory, less " +
                             std::to_string(reserve >> 20) + " MiB kept free)");
  }
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const int64_t ld = passes.rows_per_pass;
  TiledGpuTimings t;
  t.passes = passes.passes;
  t.live_rows_per_layer.assign(layers, 0);
  t.computed_rows_per_layer.assign(layers, 0);
  std::vector<int64_t> out;

  // One pass in the accumulation type Acc (the sums and the activations held in it): inputs [row0, row0 + rows), held
  // in the first rows columns of Y^T; its categories appended to out, its timings added to t.
  const auto run = [&](auto zero, int64_t row0, int64_t rows) {
    using Acc = decltype(zero);
    const auto t0 = clock::now();
    int32_t live = static_cast<int32_t>(rows);
    const size_t cells = static_cast<size_t>(n * ld);
    Acc* cur = Workspace::take<Acc>(w.y[0], cells);
    Acc* next = Workspace::take<Acc>(w.y[1], cells);
    int32_t* alive = Workspace::take<int32_t>(w.alive, static_cast<size_t>(ld) + 1);
    int32_t* pos = Workspace::take<int32_t>(w.pos, static_cast<size_t>(ld) + 1);
    int64_t* ids = Workspace::take<int64_t>(w.ids[0], static_cast<size_t>(ld));
    int64_t* ids_next = Workspace::take<int64_t>(w.ids[1], static_cast<size_t>(ld));
    int32_t* held = Workspace::take<int32_t>(w.held, 1);
    const int64_t* row_ptr = inputs.row_ptr.data() + row0;   // the pass's row pointers (into the whole input arrays)
    const int64_t base = row_ptr[0];                          // its first entry: the device arrays hold from it on
    {
      number_rows<<<static_cast<unsigned>((ld + 255) / 256), 256, 0, s.stream>>>(ids, ld);
      check(cudaGetLastError(), "row ids' launch");
      check(cudaMemcpyAsync(held, &live, sizeof(int32_t), cudaMemcpyHostToDevice, s.stream), "upload");
      // The inputs go up in batches of rows (multiples of kRows) on the copy stream; as each arrives, its rows of Y^T
      // are cleared and filled and the first layer runs on them (the kernels take row-offset pointers and the batch's
      // row count as the rows held), so that the upload of one batch overlaps the first layer on the one before.
      const int64_t batch = std::max<int64_t>(kRows, (rows + kInputBatches * kRows - 1) / (kInputBatches * kRows) * kRows);
      const int64_t batches = (rows + batch - 1) / batch;
      std::vector<int32_t> batch_rows(static_cast<size_t>(std::max<int64_t>(1, batches)));
      for (int64_t k = 0; k < batches; ++k) batch_rows[k] = static_cast<int32_t>(std::min(batch, rows - k * batch));
      int32_t* batch_held = Workspace::take<int32_t>(w.batch_held, batch_rows.size());
      check(cudaMemcpyAsync(batch_held, batch_rows.data(), batch_rows.size() * sizeof(int32_t), cudaMemcpyHostToDevice,
                            s.stream), "upload");
      const int64_t entries = row_ptr[rows] - base;
      int64_t* rp = Workspace::take<int64_t>(w.in_ptr, static_cast<size_t>(rows) + 1);
      int32_t* col = Workspace::take<int32_t>(w.in_col, static_cast<size_t>(entries));
      const bool pattern = inputs.val.empty();   // binary inputs: no values to upload
      float* val = pattern ? nullptr : Workspace::take<float>(w.in_val, static_cast<size_t>(entries));
      // The copy stream starts after the work queued on `stream` so far (the workspace may have served a call before).
      Event ready;
      check(cudaEventRecord(ready.e, s.stream), "event");
      check(cudaStreamWaitEvent(s.copies, ready.e, 0), "wait");
      check(cudaMemcpyAsync(rp, row_ptr, (static_cast<size_t>(rows) + 1) * sizeof(int64_t), cudaMemcpyHostToDevice,
                            s.copies), "upload inputs");
      if (layers > 0) check(cudaMemsetAsync(alive, 0, (static_cast<size_t>(live) + 1) * sizeof(int32_t), s.stream), "clear flags");
      std::vector<Event> arrived(static_cast<size_t>(batches));
      for (int64_t k = 0; k < batches; ++k) {
        const int64_t a = row_ptr[k * batch] - base, b = row_ptr[k * batch + batch_rows[k]] - base;
        if (b > a) {
          check(cudaMemcpyAsync(col + a, inputs.col.data() + base + a, static_cast<size_t>(b - a) * sizeof(int32_t),
                                cudaMemcpyHostToDevice, s.copies), "upload inputs");
          if (!pattern)
            check(cudaMemcpyAsync(val + a, inputs.val.data() + base + a, static_cast<size_t>(b - a) * sizeof(float),
                                  cudaMemcpyHostToDevice, s.copies), "upload inputs");
        }
        check(cudaEventRecord(arrived[static_cast<size_t>(k)].e, s.copies), "event");
      }
      for (int64_t k = 0; k < batches; ++k) {
        const int64_t r0 = k * batch;
        const int32_t nr = batch_rows[k];
        check(cudaStreamWaitEvent(s.stream, arrived[static_cast<size_t>(k)].e, 0), "wait");
        check(cudaMemset2DAsync(cur + r0, static_cast<size_t>(ld) * sizeof(Acc), 0, static_cast<size_t>(nr) * sizeof(Acc),
                                static_cast<size_t>(n), s.stream), "clear Y");
        scatter_inputs<Acc><<<static_cast<unsigned>((nr + 255) / 256), 256, 0, s.stream>>>(rp + r0, base, col, val, nr,
                                                                                          ld, cur + r0);
        check(cudaGetLastError(), "inputs' launch");
        if (layers > 0)
          t.chained_launches +=
              launch_layer<Acc>(s.layers[0], cur + r0, next + r0, ld, nr, batch_held + k, s.bias, alive + r0, s.sms, s.stream);
      }
      check(cudaStreamSynchronize(s.stream), "inputs and the first layer");   // the host arrays above may go
    }
    const auto t1 = clock::now();

    // CUB's scan workspace, sized once for the most rows.
    size_t scan_bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, alive, pos, static_cast<int>(ld) + 1, s.stream),
          "scan size");
    unsigned char* scan_space = Workspace::take<unsigned char>(w.scan, scan_bytes);
    // The rows held (the first columns of Y^T) are counted on the device (held); the host keeps `bound` >= them for
    // the grids. Each layer's live count and the rows it held go to pinned host memory without a wait; the host reads
    // layer l - 1's while layer l runs, and compacts after layer l where layer l - 1 left at most kCompactBelow of the
    // rows held alive (rows only die: the bias is at most 0). So the GPU does not wait for the host between layers.
    int32_t* counts = w.host_counts(layers);   // [l]: live after layer l
    Event counted[2];
    int32_t bound = live;   // equal to the rows held whenever the host has read the last layer's count
    std::vector<char> compacted_after(layers, 0);
    size_t ran = 0;   // layers launched
    for (size_t l = 0; l < layers && bound > 0; ++l, ++ran) {
      LayerOnDevice& L = s.layers[l];
      if (l > 0) {   // the first layer ran on each batch of inputs as it arrived (above)
        check(cudaMemsetAsync(alive, 0, (static_cast<size_t>(bound) + 1) * sizeof(int32_t), s.stream), "clear flags");
        t.chained_launches += launch_layer<Acc>(L, cur, next, ld, bound, held, s.bias, alive, s.sms, s.stream);
      }
      std::swap(cur, next);
      // Count the live rows (the scan over bound + 1 flags, those from the rows held on 0, ends at the count).
      check(cub::DeviceScan::ExclusiveSum(scan_space, scan_bytes, alive, pos, bound + 1, s.stream), "scan");
      check(cudaMemcpyAsync(counts + l, pos + bound, sizeof(int32_t), cudaMemcpyDeviceToHost, s.stream), "live count");
      check(cudaEventRecord(counted[l % 2].e, s.stream), "event");
      if (l == 0) continue;
      check(cudaEventSynchronize(counted[(l - 1) % 2].e), "layer");
      const int32_t before = counts[l - 1];
      if (compacted_after[l - 1]) bound = before;   // the rows held since that compaction: exactly those
      if (before < bound && static_cast<double>(before) <= kCompactBelow * bound) {
        const int64_t rows = L.out_rows;   // the rows of Y^T this layer wrote
        const dim3 g(static_cast<unsigned>((bound + 255) / 256), static_cast<unsigned>(std::min<int64_t>(rows, 64)));
        compact_rows<Acc><<<g, 256, 0, s.stream>>>(cur, next, ld, bound, rows, alive, pos, ids, ids_next);
        check(cudaGetLastError(), "compaction launch");
        std::swap(cur, next);
        std::swap(ids, ids_next);
        hold_compacted<<<static_cast<unsigned>((bound + 255) / 256), 256, 0, s.stream>>>(alive, pos, bound, held);
        check(cudaGetLastError(), "flags");
        compacted_after[l] = 1;
        bound = before;   // at least the rows it holds now
        ++t.compactions;
      }
    }
    check(cudaStreamSynchronize(s.stream), "layers");
    for (size_t l = 0, rows_held = static_cast<size_t>(rows); l < layers; ++l) {
      if (l > 0 && compacted_after[l - 1]) rows_held = static_cast<size_t>(counts[l - 1]);
      const int64_t computed = l < ran ? static_cast<int64_t>(rows_held) : 0;
      t.computed_rows_per_layer[l] += computed;
      t.activation_bytes += computed * (s.layers[l].in_rows + s.layers[l].out_rows) * static_cast<int64_t>(sizeof(Acc));
      t.live_rows_per_layer[l] += l < ran ? counts[l] : 0;
    }
    const auto t2 = clock::now();

    // The categories: the ids of the rows alive after the last layer (all rows with a non-zero input if no layer ran).
    check(cudaMemcpy(&live, held, sizeof(int32_t), cudaMemcpyDeviceToHost), "rows held");
    const bool any_layer = ran > 0;
    const size_t first = out.size();
    std::vector<int32_t> flags(static_cast<size_t>(live));
    std::vector<int64_t> row_ids(static_cast<size_t>(live));
    if (live > 0) {
      check(cudaMemcpy(row_ids.data(), ids, row_ids.size() * sizeof(int64_t), cudaMemcpyDeviceToHost), "ids");
      if (any_layer)
        check(cudaMemcpy(flags.data(), alive, flags.size() * sizeof(int32_t), cudaMemcpyDeviceToHost), "flags");
      for (int32_t r = 0; r < live; ++r) {
        const bool on = any_layer ? flags[r] != 0 : row_ptr[row_ids[r] + 1] > row_ptr[row_ids[r]];
        if (on) out.push_back(row0 + row_ids[r]);
      }
    }
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    const auto t3 = clock::now();
    t.upload_inputs_s += seconds(t0, t1);
    t.layers_s += seconds(t1, t2);
    t.download_s += seconds(t2, t3);
    t.total_s += seconds(t0, t3);
  };
  // Each pass's categories are ids above the last pass's: out stays sorted.
  for (int64_t row0 = 0, k = 0; k < passes.passes; ++k, row0 += ld) {
    const int64_t rows = std::min(ld, inputs.nrows - row0);
    fp64 ? run(0.0, row0, rows) : run(0.0f, row0, rows);
  }
  if (timings) *timings = std::move(t);
  return out;
}

}  // namespace snk::gc
