// layers/dst.hpp: dynamic sparse training, the rewiring steps that change a SparseLinear's pattern while its non-zero
// count stays constant, new weights start at zero, and the optimizer's per-non-zero state follows its connection.
//
// SET (Mocanu et al., 2018): prune the fraction zeta of the weights with the smallest |w| and regrow as many at random
// positions that held no weight. The choice of positions is made on the host from the weights' values (an order
// statistic with ties broken by position, and rejection sampling of free positions); the new pattern is then applied
// to the weights and to the optimizer state by masked GraphBLAS calls on the layer's backend.
#pragma once

#include <cstdint>

#include "sparse_linear.hpp"

namespace snk::layers {

struct Rewiring {
  Index pruned = 0, grown = 0;
};

// One SET step on `layer` (and on `optimizer`'s state for it, if given). zeta in [0, 1] (InvalidValue otherwise);
// round(zeta * nvals) weights are pruned; as many are grown where the layer held no weight before this step (fewer
// only when there are not that many free positions). Deterministic for a given seed and layer.
Rewiring set_rewire(SparseLinear& layer, double zeta, std::uint64_t seed, SgdMomentum* optimizer = nullptr);

}  // namespace snk::layers
