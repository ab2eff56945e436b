// graphchallenge/engine/tiled_gpu.hpp: the SpDNN engine on the tiled layers (plan/tiles.hpp), for exact work: every
// live row of every layer is computed, no row is computed once for several.
//
// The activations are kept neuron-major, Y^T (neurons x live rows, fp32): a warp reads one neuron of 32 consecutive
// rows in one 128-byte line, so the permutations between layers (gather, the order a layer reads its inputs in) cost
// nothing in coalescing. One kernel per layer: a thread block takes one column class of the layer (its outputs; a class
// wider than kMaxClassColumns in slices of that many) and 128 live rows; each thread keeps one accumulator per output of the class for its
// row, walks the class's dense blocks (for each input of a block, one load and a multiply-add per output; the block's
// weights are the same for every thread), then adds the bias, applies the ReLU and the clamp at 32, writes its outputs
// and marks its row alive where any is non-zero. The grid runs the column classes fastest, so the 128 rows' inputs of
// one row chunk are read from memory once and then from L2 by the other classes that read them. After each layer the
// live rows are counted; once a tenth or more have died they are compacted out (a copy of the live columns of Y^T and
// of their row ids). Sums run in a fixed order (blocks in the layer's order, inputs within a block in order): results
// are deterministic. The sums and the activations are held in FP64 by default (TiledAccumulation), as the float64
// reference holds them: an FP32 sum, or an activation rounded to FP32, differs from the reference's in its last bits,
// and in a deep network a neuron whose sum lies that near the ReLU's threshold decides its row's category
// (bench/results/spdnn-exact-work-h200.md shows such rows); FP32 is faster and may change those rows. The network
// must fit the device: Y^T twice (neurons x inputs x 8 bytes each in FP64, 4 in FP32).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/types.hpp"
#include "plan/tiles.hpp"

namespace snk::gc {

struct TiledGpuTimings {
  double upload_inputs_s = 0;   // host CSR inputs -> Y^T on the device
  double layers_s = 0;          // the layers, with the live-row counts and compactions
  double download_s = 0;        // the live rows' ids -> host categories
  double total_s = 0;           // inference time: the sum of the three
  std::vector<int64_t> live_rows_per_layer;       // inputs alive after each layer
  std::vector<int64_t> computed_rows_per_layer;   // rows each layer computed (the live ones, and dead ones not yet dropped)
  int64_t compactions = 0;
};

// The type a layer's sums and the activations between layers are held in.
enum class TiledAccumulation { FP64, FP32 };

class TiledGpuEngine {
 public:
  // The most outputs a thread block computes (each thread keeps one accumulator per output in registers); wider column
  // classes are cut into slices of this many.
  static constexpr int kMaxClassColumns = 32;

  // Whether the engine runs `net` (square layers, a bias of at most 0); `why` says what stops it.
  static bool can_run(const TiledNetwork& net, std::string* why = nullptr);

  // Uploads the tiled network to `device` (not part of the inference time). Throws std::invalid_argument where
  // can_run says no, std::runtime_error with the CUDA error text on a CUDA failure.
  explicit TiledGpuEngine(const TiledNetwork& net, int device = 0,
                          TiledAccumulation accumulation = TiledAccumulation::FP64);
  ~TiledGpuEngine();
  TiledGpuEngine(const TiledGpuEngine&) = delete;
  TiledGpuEngine& operator=(const TiledGpuEngine&) = delete;

  // The categories of `inputs` (rows = images, one column per neuron): 0-based ids of the rows with any non-zero
  // after the last layer, sorted. Timings are filled in where given.
  std::vector<int64_t> infer(const CsrMatrix& inputs, TiledGpuTimings* timings = nullptr);

  std::string device_name() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace snk::gc
