// graphchallenge/engine/graphblas_engine.hpp: the plain GraphBLAS formulation of the SpDNN challenge.
//
// Every layer is four standard C API calls on the current backend (the one chosen through SNK_Backend_set
// or $SNACK_BACKEND): Y = Y * W (mxm, PLUS_TIMES over FP32), Y = Y + bias (apply with the bias bound as
// the second operand: only stored entries change, which is exact since a missing entry plus a negative
// bias is cut by the ReLU anyway), Y = select(Y > 0) (the ReLU, dropping the zeros), Y = min(Y, 32)
// (apply). The categories are the rows of the last Y with any entry. This engine runs on every backend
// and, on `reference`, gives the truth for generated networks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/types.hpp"

namespace snk::gc {

struct GraphBlasTimings {
  double setup_s = 0;    // building the weight matrices (not inference time)
  double infer_s = 0;    // inputs -> categories (inference time)
  std::vector<int64_t> live_rows_per_layer;  // filled when track_live_rows
  // Parts of infer_s: the inputs made a GrB_Matrix; each step of a layer, summed over the layers (the product, the
  // bias, the ReLU as a select, the cap at 32). On a GPU backend a step's time includes waiting for work it queued.
  double input_s = 0, mxm_s = 0, bias_s = 0, relu_s = 0, cap_s = 0;
};

struct GraphBlasOptions {
  std::string backend;           // "" = the library's current backend
  bool track_live_rows = false;  // count live rows after every layer (costs one reduce per layer)
  // Called after each layer with (layer, layers) for progress reports; may be empty.
  std::function<void(int64_t, int64_t)> progress;
};

// Runs the network on the inputs through the GraphBLAS C API and returns the sorted 0-based categories.
// Throws std::runtime_error with the GrB_Info and GrB_error text when a call fails.
std::vector<int64_t> graphblas_infer(const Network& net, const CsrMatrix& inputs, const GraphBlasOptions& options,
                                     GraphBlasTimings* timings = nullptr);

}  // namespace snk::gc
