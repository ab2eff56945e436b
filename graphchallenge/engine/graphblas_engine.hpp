// graphchallenge/engine/graphblas_engine.hpp: the plain GraphBLAS formulation of the SpDNN challenge.
//
// Every layer is four standard C API calls on the current backend (the one chosen through SNK_Backend_set
// or $SNACK_BACKEND): Y = Y * W (mxm, PLUS_TIMES over FP32), Y = Y + bias (apply with the bias bound as
// the second operand: only stored entries change, which is exact since a missing entry plus a negative
// bias is cut by the ReLU anyway), Y = select(Y > 0) (the ReLU, dropping the zeros), Y = min(Y, 32)
// (apply). The categories are the rows of the last Y with any entry. This engine runs on every backend
// and, on `reference`, gives the truth for generated networks.
//
// What is timed follows the challenge's reference code, which starts its clock with the weights and the inputs Y0
// already made as matrices: GraphBlasEngine makes the weight matrices once (setup_s) and keeps them for every
// inference (a GPU backend keeps their device copies with them); each inference makes Y0 from the inputs and
// page-locks its host arrays (SNK_PAGE_LOCKED; input_s), and then times the layers and the read-out of the categories
// (infer_s), including the upload of Y0 where the backend runs on a device.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/types.hpp"

namespace snk::gc {

struct GraphBlasTimings {
  double setup_s = 0;    // building the weight matrices (not inference time; GraphBlasEngine's constructor)
  double input_s = 0;    // the inputs made the GrB_Matrix Y0 (not inference time)
  double infer_s = 0;    // Y0 -> categories (inference time)
  std::vector<int64_t> live_rows_per_layer;  // filled when track_live_rows
  // Parts of infer_s: each step of a layer, summed over the layers (the product, the bias, the ReLU as a select, the
  // cap at 32). On a GPU backend a step's time includes waiting for work it queued.
  double mxm_s = 0, bias_s = 0, relu_s = 0, cap_s = 0;
};

struct GraphBlasOptions {
  std::string backend;           // "" = the library's current backend
  bool track_live_rows = false;  // count live rows after every layer (costs one reduce per layer)
  // Called after each layer with (layer, layers) for progress reports; may be empty.
  std::function<void(int64_t, int64_t)> progress;
};

// The network as GrB_Matrix weights on the options' backend, ready for any number of inferences. Every call throws
// std::runtime_error with the GrB_Info and GrB_error text when a GraphBLAS call fails.
class GraphBlasEngine {
 public:
  GraphBlasEngine(const Network& net, const GraphBlasOptions& options);
  ~GraphBlasEngine();
  GraphBlasEngine(const GraphBlasEngine&) = delete;
  GraphBlasEngine& operator=(const GraphBlasEngine&) = delete;

  // The sorted 0-based categories of `inputs` (one column per neuron). timings->setup_s is the constructor's.
  std::vector<int64_t> infer(const CsrMatrix& inputs, GraphBlasTimings* timings = nullptr);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// One inference on a new engine (the weights made for it alone).
std::vector<int64_t> graphblas_infer(const Network& net, const CsrMatrix& inputs, const GraphBlasOptions& options,
                                     GraphBlasTimings* timings = nullptr);

}  // namespace snk::gc
