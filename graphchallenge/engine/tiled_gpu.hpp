// graphchallenge/engine/tiled_gpu.hpp: the SpDNN engine on the tiled layers (plan/tiles.hpp), for exact work: every
// live row of every layer is computed, no row is computed once for several.
//
// The activations are kept neuron-major, Y^T (neurons x live rows): a warp reads one neuron of 32 consecutive rows in
// one line, so the permutations between layers (gather, the order a layer reads its inputs in) cost nothing in
// coalescing. Each layer is cut into tiles (plan/tile_modes.hpp: a column class, or a slice of at most
// kMaxClassColumns of it, with the dense blocks that feed it); a thread block computes a tile (uniform ones: several)
// for 128 live rows, in the tile's mode:
//   - sparse: each thread keeps one accumulator per output of the tile for its row and walks the tile's blocks (per
//     input, one load and a multiply-add per output; the weights, the same for every thread, staged in shared memory
//     in the sums' type); a uniform tile (every output's weights alike, as in the challenge's layers) keeps one
//     accumulator, and its outputs are held as one value (TiledOptions::merge_equal_outputs; off, every output is
//     computed as in any other tile); uniform tiles that share an input block run in chains, one load of the
//     block's activations serving both tiles (TiledOptions::chain_shared_blocks, plan/block_chains.hpp);
//   - tensor (FP64 sums only): each warp computes 32 rows of the tile as a dense product on the FP64 tensor cores
//     (mma m8n8k4), inputs four at a time;
//   - embedded: code generated for the layer's embedded tiles (engine/embedded.hpp), gather positions and weights
//     compiled in, the same arithmetic as sparse.
// Every mode then adds the bias, applies the ReLU and the clamp at 32, writes the outputs and marks the row alive where
// any is non-zero. The cost model (plan/tile_modes.hpp), calibrated once per device and kind of sums by timing each
// mode on synthetic tiles and cached on disk, picks each tile's mode (TiledOptions::modes: auto) or a mode is forced.
// The grid runs the tiles fastest, so the 128 rows' inputs of one row chunk are read from memory once and then from L2
// by the other tiles that read them. After each layer the live rows are counted on the device; the host reads each
// count while the next layer runs, and once a tenth or more of the rows held have died they are compacted out after
// that next layer (a copy of the live columns of Y^T and of their row ids), so the GPU does not wait between layers. Sums run in a fixed order: results are
// deterministic (sparse and embedded bitwise alike; tensor in the tensor cores' order). The sums and the activations
// are held in FP64 by default (TiledAccumulation), as the float64 reference holds them: an FP32 sum, or an activation
// rounded to FP32, differs from the reference's in its last bits, and in a deep network a neuron whose sum lies that
// near the ReLU's threshold decides its row's category (bench/results/spdnn-exact-work-h200.md shows such rows); FP32
// is faster and may change those rows. The network must fit the device; the activations, Y^T twice (neurons x inputs x 8
// bytes each in FP64, 4 in FP32), are held for as many inputs at once as fit the rest of its memory (more inputs run
// in several passes, TiledOptions::rows_per_pass).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/embedded.hpp"   // default_cache_root
#include "io/types.hpp"
#include "plan/input_passes.hpp"
#include "plan/tile_modes.hpp"
#include "plan/tiles.hpp"

namespace snk::gc {

struct TiledGpuTimings {
  double upload_inputs_s = 0;   // host CSR inputs -> Y^T on the device, with the first layer, which runs on each batch
                                // of inputs as it arrives (overlapping the upload of the next)
  double layers_s = 0;          // the other layers, with the live-row counts and compactions
  double download_s = 0;        // the live rows' ids -> host categories
  double total_s = 0;           // inference time: the sum of the three
  std::vector<int64_t> live_rows_per_layer;       // inputs alive after each layer
  std::vector<int64_t> computed_rows_per_layer;   // rows each layer computed (the live ones, and dead ones not yet dropped)
  int64_t compactions = 0;
  int64_t passes = 0;   // passes over the inputs (TiledOptions::rows_per_pass), each through every layer
  int64_t chained_launches = 0;   // layer launches (the first layer's: one a batch of inputs) whose uniform tiles ran
                                  // chained (TiledOptions::chain_shared_blocks)
  // The activation bytes the layers must move at least: per layer, its computed rows times the rows of Y^T it reads and
  // writes, in the sums' type (compactions not counted). Over the device's copy bandwidth, a floor on layers_s where
  // Y^T does not fit in L2.
  int64_t activation_bytes = 0;
};

// The type a layer's sums and the activations between layers are held in.
enum class TiledAccumulation { FP64, FP32 };

struct TiledOptions {
  TiledAccumulation accumulation = TiledAccumulation::FP64;
  ModePolicy modes = ModePolicy::Auto;   // auto: the cost model's choice per tile; or one mode forced
  // Where the cost model's calibration and the embedded kernels are cached ("" : nowhere).
  std::string cache_dir = default_cache_root();
  double compile_budget_s = 60;   // wall time the embedded layers' compiles may take at construction, all together
  // The equal outputs of a uniform tile computed and held once (tile_modes.hpp's MergedNetwork): one sum and one value
  // a row instead of one per output, read by the next layer through its gather. Off: every output's sum computed and
  // stored (the work an engine without this reuse does: no sum is shared, PlanOptions::share_equal_sums); the
  // categories are the same bit for bit.
  bool merge_equal_outputs = true;
  // Inputs a pass of infer() takes at most, each pass through every layer (plan/input_passes.hpp). 0: all inputs in one
  // pass where their activations fit the device's free memory, else the fewest passes that fit. The same categories.
  int64_t rows_per_pass = 0;
  // Where equal outputs are merged, uniform tiles that share whole input blocks run chained (plan/block_chains.hpp):
  // one load of a shared block's activations serves both tiles. The same bits (the tiles' blocks are put in chain
  // order either way); off: each uniform tile on its own.
  bool chain_shared_blocks = true;
  bool progress = false;          // report calibration and compiles on stderr
  // Rows of the synthetic layers over which the calibration times each mode: a multiple of 128 from 128 to
  // kMostCalibrationRows (its activations take 2048 x rows sums on the device and the host). Fewer calibrate sooner
  // and less evenly (a test under a sanitizer); a model calibrated over other than the default is cached and reused
  // under its own key, never in place of the default's.
  int64_t calibration_rows = kDefaultCalibrationRows;
  static constexpr int64_t kDefaultCalibrationRows = 16384, kMostCalibrationRows = 262144;
};

// The cost model of `device` for sums of type `accumulation`: read from the cache (options.cache_dir) when it holds
// one for this device, else measured (each mode timed on synthetic tiles of several shapes; the embedded mode also
// compiled, which gives its compile time) and written there. Once measured in a process it is reused. Throws
// std::runtime_error on a CUDA failure, std::invalid_argument where options.calibration_rows is out of its range.
CostModel tile_cost_model(int device, TiledAccumulation accumulation, const TiledOptions& options);

class TiledGpuEngine {
 public:
  // The most outputs a thread block computes (each thread keeps one accumulator per output in registers); wider column
  // classes are cut into slices of this many.
  static constexpr int kMaxClassColumns = 32;

  // Whether the engine runs `net` (square layers, a bias of at most 0); `why` says what stops it.
  static bool can_run(const TiledNetwork& net, std::string* why = nullptr);

  // Uploads the tiled network to `device` (not part of the inference time), plans each tile's mode and compiles the
  // embedded layers (within options.compile_budget_s; what does not fit falls back). Throws std::invalid_argument
  // where can_run says no or a forced mode is not available, std::runtime_error with the CUDA error text on a CUDA
  // failure.
  explicit TiledGpuEngine(const TiledNetwork& net, int device = 0, const TiledOptions& options = TiledOptions{});
  ~TiledGpuEngine();
  TiledGpuEngine(const TiledGpuEngine&) = delete;
  TiledGpuEngine& operator=(const TiledGpuEngine&) = delete;

  // The categories of `inputs` (rows = images, one column per neuron): 0-based ids of the rows with any non-zero
  // after the last layer, sorted. Timings are filled in where given. The engine keeps its device memory from one call
  // to the next (grown where a call needs more), so calls on one engine must not overlap. Binary inputs may come as
  // their pattern (io/rows.hpp's binary_pattern: `val` empty, every stored entry read as 1), which uploads half the
  // bytes. Inputs whose activations do not fit the device's free memory at once run in passes (TiledOptions::
  // rows_per_pass). Throws std::invalid_argument for inputs whose columns are not the network's neurons, or whose values
  // are neither one per stored entry nor none; std::runtime_error where not even 128 inputs' activations fit, or on a
  // CUDA failure.
  std::vector<int64_t> infer(const CsrMatrix& inputs, TiledGpuTimings* timings = nullptr);

  // Page-locks the host arrays of `inputs` (part of loading the data, not of inference) so that infer() uploads them at
  // full bus speed; arrays another owner has page-locked already are left to it. They stay registered until the engine
  // is destroyed; `inputs` must outlive the engine and not be resized meanwhile.
  void pin_host_inputs(const CsrMatrix& inputs);

  std::string device_name() const;
  const ModePlan& plan() const;          // each tile's mode, as run
  const CostModel& cost_model() const;   // the model the plan came from (unmeasured where a mode was forced)

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace snk::gc
