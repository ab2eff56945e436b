// graphchallenge/engine/tiled_gpu.cu: the tiled SpDNN engine (tiled_gpu.hpp says what it computes and how).
//
// Per layer on the device: gather (int32 per input position: the row of Y^T it reads), the column classes' first
// output positions, and the blocks by column class (the row class each reads, its size, the offset of its weights:
// rows x class width, row-major, as tile_layer lays them out). A layer whose column classes all have one width of 16
// or 32 (and 16-byte aligned weights) runs the kernel specialised for it, which reads the weights four at a time;
// other layers run the general kernel (any width up to kMaxClassColumns).
#include "engine/tiled_gpu.hpp"
#include "engine/gpu_common.cuh"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

namespace snk::gc {
namespace {

constexpr int kRows = 128;   // live rows per thread block (one per thread)
constexpr double kCompactBelow = 0.9;   // compact once the live rows are at most this share of the rows held

void check(cudaError_t e, const char* what) { throw_on_cuda(e, "tiled GPU engine", what); }

struct BlockRef {
  int32_t r0, nr;   // the row class: input positions [r0, r0 + nr)
  int64_t voff;     // its weights: values[voff + a * width + q]
};

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

// One layer: Y^T out (this layer's output order) from Y^T in (the previous layer's output order, or neuron order for
// the first layer), for the rows [0, live) of stride ld. A thread block computes one slice of a column class (at most
// kMaxClassColumns of its outputs; a wider class is cut into slices, each reading the blocks' weights at its columns,
// rows `pitch` apart). WIDTH > 0: every slice is a whole class of WIDTH columns with 16-byte aligned weights;
// WIDTH == 0: any slice. Acc: the type the sums and the activations are held in (float or double).
template <int WIDTH, class Acc>
__global__ void __launch_bounds__(kRows) tiled_layer(const Acc* __restrict__ yin, Acc* __restrict__ yout, int64_t ld,
                                                     int32_t live, const int32_t* __restrict__ gather,
                                                     const int32_t* __restrict__ class_start,
                                                     const int32_t* __restrict__ class_pitch,
                                                     const int32_t* __restrict__ class_blocks,
                                                     const BlockRef* __restrict__ blocks,
                                                     const float* __restrict__ values, float bias,
                                                     int32_t* __restrict__ alive) {
  constexpr int kAcc = WIDTH > 0 ? WIDTH : TiledGpuEngine::kMaxClassColumns;
  const int c = blockIdx.x;
  const int32_t row = blockIdx.y * kRows + threadIdx.x;
  if (row >= live) return;
  const int32_t c0 = class_start[c];
  const int width = WIDTH > 0 ? WIDTH : class_start[c + 1] - c0;
  const int pitch = WIDTH > 0 ? WIDTH : class_pitch[c];
  Acc acc[kAcc];
#pragma unroll
  for (int q = 0; q < kAcc; ++q) acc[q] = 0;
  for (int32_t b = class_blocks[c]; b < class_blocks[c + 1]; ++b) {
    const BlockRef k = blocks[b];
    const float* w = values + k.voff;
    for (int32_t a = 0; a < k.nr; ++a) {
      const Acc x = yin[static_cast<int64_t>(gather[k.r0 + a]) * ld + row];
      if constexpr (WIDTH > 0) {
        const float4* w4 = reinterpret_cast<const float4*>(w + a * WIDTH);
#pragma unroll
        for (int q = 0; q < WIDTH / 4; ++q) {
          const float4 v = __ldg(w4 + q);
          acc[4 * q] = fma(x, Acc(v.x), acc[4 * q]);
          acc[4 * q + 1] = fma(x, Acc(v.y), acc[4 * q + 1]);
          acc[4 * q + 2] = fma(x, Acc(v.z), acc[4 * q + 2]);
          acc[4 * q + 3] = fma(x, Acc(v.w), acc[4 * q + 3]);
        }
      } else {
#pragma unroll
        for (int q = 0; q < kAcc; ++q)
          if (q < width) acc[q] = fma(x, Acc(__ldg(w + a * pitch + q)), acc[q]);
      }
    }
  }
  bool any = false;
#pragma unroll
  for (int q = 0; q < kAcc; ++q)
    if (q < width) {
      const Acc v = activate(acc[q], bias);
      yout[static_cast<int64_t>(c0 + q) * ld + row] = v;
      any = any || v > Acc(0);
    }
  if (any) alive[row] = 1;
}

// Y^T of the inputs in neuron order: Y^T(j, r) = inputs(r, j).
template <class Acc>
__global__ void scatter_inputs(const int64_t* __restrict__ row_ptr, const int32_t* __restrict__ col,
                               const float* __restrict__ val, int64_t rows, int64_t ld, Acc* __restrict__ y) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) y[static_cast<int64_t>(col[k]) * ld + r] = val[k];
}

// The live columns of Y^T (pos: their new places, from the scan of alive) and their row ids, moved to the front.
template <class Acc>
__global__ void compact_rows(const Acc* __restrict__ y, Acc* __restrict__ out, int64_t ld, int32_t live,
                             int64_t neurons, const int32_t* __restrict__ alive, const int32_t* __restrict__ pos,
                             const int64_t* __restrict__ ids, int64_t* __restrict__ ids_out) {
  const int32_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= live || !alive[row]) return;
  const int32_t to = pos[row];
  if (blockIdx.y == 0) ids_out[to] = ids[row];
  for (int64_t j = blockIdx.y; j < neurons; j += gridDim.y) out[j * ld + to] = y[j * ld + row];
}

// alive[0, count) = 1.
__global__ void mark_alive(int32_t* __restrict__ alive, int32_t count) {
  const int32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < count) alive[r] = 1;
}

struct LayerOnDevice {
  DeviceArray<int32_t> gather, class_start, class_pitch, class_blocks;
  DeviceArray<BlockRef> blocks;
  DeviceArray<float> values;
  int32_t classes = 0;   // slices of column classes (tiled_layer)
  int width = 0;   // the one width of every slice where the specialised kernel runs (16 or 32), else 0
};

}  // namespace

struct TiledGpuEngine::State {
  int device = 0;
  TiledAccumulation accumulation = TiledAccumulation::FP64;
  int64_t neurons = 0;
  float bias = 0;
  std::vector<LayerOnDevice> layers;
  cudaStream_t stream = nullptr;
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

TiledGpuEngine::TiledGpuEngine(const TiledNetwork& net, int device, TiledAccumulation accumulation) : state_(new State) {
  std::string why;
  if (!can_run(net, &why)) throw std::invalid_argument("tiled GPU engine: " + why);
  State& s = *state_;
  s.device = device;
  s.accumulation = accumulation;
  s.neurons = net.neurons;
  s.bias = net.bias;
  check(cudaSetDevice(device), "select the device");
  check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "stream creation");
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const TiledLayer& t = net.layers[l];
    // The blocks by column class, each class's in row-class order.
    std::vector<std::vector<BlockRef>> by_class(static_cast<size_t>(t.col_classes()));
    for (int64_t c = 0; c < t.row_classes(); ++c)
      for (int64_t b = t.block_ptr[c]; b < t.block_ptr[c + 1]; ++b)
        by_class[t.block_col[b]].push_back(
            BlockRef{static_cast<int32_t>(t.row_class[c]), static_cast<int32_t>(t.row_class[c + 1] - t.row_class[c]),
                     t.block_offset[b]});
    std::vector<int32_t> class_start, class_pitch, class_blocks{0};
    std::vector<BlockRef> blocks;
    int width = -1;
    for (int64_t c = 0; c < t.col_classes(); ++c) {
      const int pitch = static_cast<int>(t.col_class[c + 1] - t.col_class[c]);
      for (int first = 0; first < pitch; first += kMaxClassColumns) {   // slices of at most kMaxClassColumns
        const int w = std::min(kMaxClassColumns, pitch - first);
        width = width == -1 ? w : (width == w ? w : 0);
        if (w != pitch) width = 0;
        class_start.push_back(static_cast<int32_t>(t.col_class[c] + first));
        class_pitch.push_back(pitch);
        for (BlockRef k : by_class[c]) {
          k.voff += first;
          if (k.voff % 4 != 0) width = 0;
          blocks.push_back(k);
        }
        class_blocks.push_back(static_cast<int32_t>(blocks.size()));
      }
    }
    class_start.push_back(static_cast<int32_t>(t.ncols));
    LayerOnDevice d;
    d.gather = DeviceArray<int32_t>(net.gather[l]);
    d.class_start = DeviceArray<int32_t>(class_start);
    d.class_pitch = DeviceArray<int32_t>(class_pitch);
    d.class_blocks = DeviceArray<int32_t>(class_blocks);
    d.blocks = DeviceArray<BlockRef>(blocks);
    d.values = DeviceArray<float>(t.values);
    d.classes = static_cast<int32_t>(class_pitch.size());
    d.width = width == 16 || width == 32 ? width : 0;
    s.layers.push_back(std::move(d));
  }
}

TiledGpuEngine::~TiledGpuEngine() {
  if (state_ && state_->stream) cudaStreamDestroy(state_->stream);
}

std::string TiledGpuEngine::device_name() const { return gpu_device_name(state_->device); }

std::vector<int64_t> TiledGpuEngine::infer(const CsrMatrix& inputs, TiledGpuTimings* timings) {
  State& s = *state_;
  if (inputs.ncols != s.neurons)
    throw std::invalid_argument("tiled GPU engine: the inputs have " + std::to_string(inputs.ncols) +
                                " columns, the network " + std::to_string(s.neurons) + " neurons");
  if (inputs.nrows > static_cast<int64_t>(65535) * kRows)
    throw std::invalid_argument("tiled GPU engine: at most " + std::to_string(65535 * kRows) + " inputs at once");
  check(cudaSetDevice(s.device), "select the device");
  TiledGpuTimings t;
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const int64_t ld = std::max<int64_t>(1, inputs.nrows), n = s.neurons;
  int32_t live = static_cast<int32_t>(inputs.nrows);

  // The whole inference in the accumulation type Acc (the sums and the activations held in it).
  const auto run = [&](auto zero) {
    using Acc = decltype(zero);
    const auto t0 = clock::now();
    DeviceArray<Acc> cur(static_cast<size_t>(n * ld)), next(static_cast<size_t>(n * ld));
    DeviceArray<int32_t> alive(static_cast<size_t>(ld) + 1), pos(static_cast<size_t>(ld) + 1);
    DeviceArray<int64_t> ids(static_cast<size_t>(ld)), ids_next(static_cast<size_t>(ld));
    {
      std::vector<int64_t> iota(static_cast<size_t>(ld));
      for (int64_t r = 0; r < ld; ++r) iota[r] = r;
      check(cudaMemcpyAsync(ids.p, iota.data(), iota.size() * sizeof(int64_t), cudaMemcpyHostToDevice, s.stream), "upload");
      DeviceArray<int64_t> rp(inputs.row_ptr);
      DeviceArray<int32_t> col(inputs.col);
      DeviceArray<float> val(inputs.val);
      check(cudaMemsetAsync(cur.p, 0, cur.n * sizeof(Acc), s.stream), "clear Y");
      if (inputs.nrows > 0)
        scatter_inputs<Acc><<<static_cast<unsigned>((inputs.nrows + 255) / 256), 256, 0, s.stream>>>(rp.p, col.p, val.p,
                                                                                                inputs.nrows, ld, cur.p);
      check(cudaStreamSynchronize(s.stream), "inputs to Y^T");
    }
    const auto t1 = clock::now();

    // CUB's scan workspace, sized once for the most rows.
    size_t scan_bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, alive.p, pos.p, static_cast<int>(ld) + 1, s.stream),
          "scan size");
    DeviceArray<unsigned char> scan_space(std::max<size_t>(1, scan_bytes));
    bool any_layer = false;
    for (LayerOnDevice& L : s.layers) {
      t.computed_rows_per_layer.push_back(live);
      if (live == 0) {
        t.live_rows_per_layer.push_back(0);
        continue;
      }
      any_layer = true;
      check(cudaMemsetAsync(alive.p, 0, (static_cast<size_t>(live) + 1) * sizeof(int32_t), s.stream), "clear flags");
      const dim3 grid(static_cast<unsigned>(L.classes), static_cast<unsigned>((live + kRows - 1) / kRows));
      const auto launch = [&](auto kernel) {
        kernel<<<grid, kRows, 0, s.stream>>>(cur.p, next.p, ld, live, L.gather.p, L.class_start.p, L.class_pitch.p,
                                             L.class_blocks.p, L.blocks.p, L.values.p, s.bias, alive.p);
      };
      if (L.width == 16) launch(tiled_layer<16, Acc>);
      else if (L.width == 32) launch(tiled_layer<32, Acc>);
      else launch(tiled_layer<0, Acc>);
      check(cudaGetLastError(), "layer launch");
      std::swap(cur, next);
      // Count the live rows (the scan over live + 1 flags, the last one 0, ends at the count).
      check(cub::DeviceScan::ExclusiveSum(scan_space.p, scan_bytes, alive.p, pos.p, live + 1, s.stream), "scan");
      int32_t count = 0;
      check(cudaMemcpyAsync(&count, pos.p + live, sizeof(int32_t), cudaMemcpyDeviceToHost, s.stream), "live count");
      check(cudaStreamSynchronize(s.stream), "layer");
      if (count < live && static_cast<double>(count) <= kCompactBelow * live) {
        const dim3 g(static_cast<unsigned>((live + 255) / 256), static_cast<unsigned>(std::min<int64_t>(n, 64)));
        compact_rows<Acc><<<g, 256, 0, s.stream>>>(cur.p, next.p, ld, live, n, alive.p, pos.p, ids.p, ids_next.p);
        check(cudaGetLastError(), "compaction launch");
        std::swap(cur, next);
        std::swap(ids, ids_next);
        // After the compaction every row held is alive: the flags of the first `count` rows are set again.
        if (count > 0) mark_alive<<<static_cast<unsigned>((count + 255) / 256), 256, 0, s.stream>>>(alive.p, count);
        check(cudaGetLastError(), "flags");
        check(cudaStreamSynchronize(s.stream), "compaction");
        live = count;
        ++t.compactions;
      }
      t.live_rows_per_layer.push_back(count);
    }
    const auto t2 = clock::now();

    // The categories: the ids of the rows alive after the last layer (all rows with a non-zero input if no layer ran).
    std::vector<int64_t> out;
    std::vector<int32_t> flags(static_cast<size_t>(live));
    std::vector<int64_t> row_ids(static_cast<size_t>(live));
    if (live > 0) {
      check(cudaMemcpy(row_ids.data(), ids.p, row_ids.size() * sizeof(int64_t), cudaMemcpyDeviceToHost), "ids");
      if (any_layer)
        check(cudaMemcpy(flags.data(), alive.p, flags.size() * sizeof(int32_t), cudaMemcpyDeviceToHost), "flags");
      for (int32_t r = 0; r < live; ++r) {
        const bool on = any_layer ? flags[r] != 0 : inputs.row_ptr[row_ids[r] + 1] > inputs.row_ptr[row_ids[r]];
        if (on) out.push_back(row_ids[r]);
      }
    }
    std::sort(out.begin(), out.end());
    const auto t3 = clock::now();
    t.upload_inputs_s = seconds(t0, t1);
    t.layers_s = seconds(t1, t2);
    t.download_s = seconds(t2, t3);
    t.total_s = seconds(t0, t3);
    return out;
  };
  std::vector<int64_t> out = s.accumulation == TiledAccumulation::FP64 ? run(0.0) : run(0.0f);
  if (timings) *timings = std::move(t);
  return out;
}

}  // namespace snk::gc
