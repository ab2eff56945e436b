// The independent host reference for SpDNN inference: a deliberately plain, row-at-a-time implementation of
// the challenge rule Y_{k+1} = min(max(Y_k W_k + b, 0), 32) in double precision, sharing no code with any
// engine or backend. Engines and the runner are tested against it; it is the project's definition of the
// right categories for generated networks. Double precision is used so that the reference is at least as
// exact as any engine (float32 engines must agree with it on the categories; the official 1024 x 120 network
// on the official images gives the official categories).
#pragma once

#include <cstdint>
#include <vector>

#include "io/types.hpp"

namespace snk::gc {

struct ReferenceOptions {
  int64_t layers = -1;  // how many layers to apply (-1: all)
  int threads = 0;  // 0: the usable cores (host/threads.hpp); rows are independent, the result does not depend on it
  // If set: for each input row, the least |Y W + b| over every neuron its rows reached in every layer, i.e. how
  // near the ReLU's threshold the row came (infinity where it reached none). A float32 engine may decide a row
  // whose margin is within its rounding the other way; the tests excuse those rows and no others.
  std::vector<double>* margins = nullptr;
};

// The categories: 0-based ids of the input rows that have any nonzero after the last layer, ascending.
// Throws std::invalid_argument when the inputs or a layer do not match the network's size.
std::vector<int64_t> reference_infer(const Network& net, const CsrMatrix& inputs, const ReferenceOptions& options = {});

}  // namespace snk::gc
