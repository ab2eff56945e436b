// graphchallenge/engine/fused_gpu.hpp: the fused GPU engine for the SpDNN GraphChallenge.
//
// One kernel per layer computes, for every live input row r and every neuron j,
//   Y'(r, j) = min(max(sum_k Y(r, k) W(k, j) + bias, 0), 32)
// in one pass (the sparse-times-dense product, bias, ReLU and clamp fused), and appends r to the next
// layer's live list when the row still has a non-zero. Rows that died are never touched again (with a
// negative bias a zero row stays zero), which is where most of the challenge's work disappears: on the
// official 1024-neuron data only 1.6% of the rows are alive after 10 layers, and those are dense. So the
// engine stores Y densely (rows x neurons, fp32) and W column-major in ELL form (for each output neuron
// its K (= 32) input neurons and weights, padded with zero weights), with 16-bit neuron ids when the
// network has at most 65536 neurons. A block takes R live rows, stages them in shared memory when they
// fit, and each thread produces whole output columns for those R rows: every W entry is read once per R
// rows, every Y value from shared memory. Blocks are persistent (a grid the size of the GPU striding over
// the live rows), so late layers with few live rows cost almost nothing; the live count never returns to
// the host, and the whole layer sequence is replayed as one CUDA graph. Results are deterministic: each
// output is a sum in a fixed order, no atomics touch values. Between layers (often early, then every few
// layers) live rows that have become bitwise identical are merged and computed once: in the challenge
// networks the survivors converge to one saturated row within a few dozen layers, so the deep networks
// cost little more than their first layers. The inputs go up in batches, each batch's first layer
// overlapping the next batch's copy; and once at most a few rows are left (read back at checkpoints after
// layers 32, 64, 128, ...), one cooperative kernel runs all the remaining layers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/types.hpp"

namespace snk::gc {

struct FusedGpuOptions {
  int device = 0;
  bool use_cuda_graph = true;
  bool profile_layers = false;  // time each layer with events (no CUDA graph); fills FusedGpuTimings::layer_ms
  int rows_per_group = 0;       // live rows per work item: 1, 2, 4, 8 or 16 (0: chosen from the size)
  int layout = -1;              // staging of those rows: 0 global, 1 row-major, 2 transposed (-1: chosen)
  // Group output neurons with identical input lists into bundles: -1 where it pays (see fused_gpu.cu),
  // 1 whenever bundles average two or more columns, 0 never (column-ELL only).
  int bundle_columns = -1;
  // Compute identical live rows once (see fused_gpu.cu: dedup_hash / dedup_merge). Exact: the categories do
  // not change. Turn off to measure the engine on inputs that repeat (the official 1,200 images repeated
  // 50 times would otherwise be computed 1,200 times, not 60,000).
  bool deduplicate_rows = true;
  // Upload the inputs in this many batches, each batch's first layer overlapping the next batch's copy
  // (0: about 8 MB per batch, at most 8; 1: the whole upload first, then the layers; at most 64).
  int upload_batches = 0;
  // At checkpoints (after layers 32, 64, 128, ...) read the live count back; when at most 8 rows are left,
  // one cooperative kernel runs all the remaining layers instead of a launch per layer. Off: every layer
  // is its own launch (as when profiling).
  bool tail_kernel = true;
};

struct FusedGpuTimings {
  double upload_inputs_s = 0;   // host CSR inputs -> device (part of inference; overlaps the first layer
                                // when uploaded in batches)
  double layers_s = 0;          // the layers on the device, less what overlapped the upload
  double download_s = 0;        // live rows -> host categories
  double total_s = 0;           // inference time: sum of the three
  std::vector<int64_t> live_rows_per_layer;      // inputs still alive after each layer
  std::vector<int64_t> computed_rows_per_layer;  // rows each layer computed that are still alive after it
  std::vector<int64_t> distinct_rows_per_layer;  // rows left after the deduplication after it (-1: none)
  int64_t tail_from = -1;                        // first layer the tail kernel ran (-1: it did not run)
  std::vector<float> layer_ms;               // per layer, when profiling
};

class FusedGpuEngine {
 public:
  // Uploads the network to the GPU (not part of the inference time). Throws std::runtime_error with the
  // CUDA error text on failure (no GPU, out of memory).
  FusedGpuEngine(const Network& network, const FusedGpuOptions& options = {});
  // The same from a layer source: layer_source(l) returns W_{l+1} (neurons x neurons); it is called from
  // several host threads at once (one per core), so that a generated network is made, converted and
  // uploaded layer by layer in parallel and never held in host memory whole.
  FusedGpuEngine(int64_t neurons, float bias, int64_t layers,
                 const std::function<CsrMatrix(int64_t)>& layer_source, const FusedGpuOptions& options = {});
  ~FusedGpuEngine();
  FusedGpuEngine(const FusedGpuEngine&) = delete;
  FusedGpuEngine& operator=(const FusedGpuEngine&) = delete;

  // Runs the whole network on `inputs` (rows = images, neurons columns) and returns the categories
  // (0-based ids of the rows with any non-zero after the last layer, sorted). Timings are filled in.
  std::vector<int64_t> infer(const CsrMatrix& inputs, FusedGpuTimings* timings = nullptr);

  // Page-locks the host arrays of `inputs` (part of loading the data, not of inference) so that infer()
  // uploads them at full bus speed. They stay registered until the engine is destroyed; `inputs` must
  // outlive the engine and not be resized meanwhile.
  void pin_host_inputs(const CsrMatrix& inputs);

  // The number of upload batches for later infer() calls (FusedGpuOptions::upload_batches).
  void set_upload_batches(int batches);
  // Turns row deduplication on or off for later infer() calls (FusedGpuOptions::deduplicate_rows).
  void set_deduplicate_rows(bool on);

  std::string device_name() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The row deduplication a run asks for (FusedGpuOptions::deduplicate_rows): `mode` "on" or "off", or "auto":
// on unless the inputs are repeated copies of the same rows, which it would compute once each (a rate would
// then measure the repetition, not the engine). Throws std::invalid_argument for any other mode.
bool deduplicate_rows_for(const std::string& mode, bool repeated_inputs);

// True when a CUDA device is usable (the engine's constructor would succeed on device 0).
bool fused_gpu_available();

}  // namespace snk::gc
