// layers/dst.hpp: dynamic sparse training, the rewiring steps that change a SparseLinear's pattern while its non-zero
// count stays constant, new weights start at zero, and the optimizer's per-non-zero state follows its connection.
//
// SET (Mocanu et al., 2018): prune the fraction zeta of the weights with the smallest |w| and regrow as many at random
// positions that held no weight; SNACK's rule prunes the smallest signed values instead; RigL grows where the dense
// gradient is largest. ERK sets each layer's density from its shape. The choice of positions is made on the host from
// the weights' values (an order statistic with ties broken by position, and rejection sampling of free positions); the
// new pattern is then applied to the weights and to the optimizer state by masked GraphBLAS calls on the layer's
// backend.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "optim.hpp"
#include "sparse_linear.hpp"

namespace snk::layers {

// What a rewiring did: the counts, and for each non-zero after it (in the new pattern's order) its index before it, or
// -1 for a grown one (empty when nothing changed), so that a caller holding values or state per non-zero can move
// them.
struct Rewiring {
  Index pruned = 0, grown = 0;
  std::vector<std::int64_t> old_index;
};

// Which weights a rewiring prunes: SET's rule (the smallest |w|) or SNACK's (the smallest signed values, so the most
// negative weights go first).
enum class PruneRule { SmallestMagnitude, SmallestValue };

// How many weights a rewiring with fraction zeta in [0, 1] of a layer of nvals weights prunes: round(zeta * nvals)
// (the rewiring steps refuse other fractions). A rewiring of count 0 changes nothing.
Index rewiring_count(double zeta, Index nvals);

// One prune-and-regrow step on `layer` (and on `optimizer`'s state for it, if given). zeta in [0, 1] (InvalidValue
// otherwise); round(zeta * nvals) weights are pruned by `rule` (ties broken by position); as many are grown at random
// where the layer held no weight before this step (fewer only when there are not that many free positions).
// Deterministic for a given seed and layer. SET is PruneRule::SmallestMagnitude.
Rewiring prune_and_regrow(SparseLinear& layer, double zeta, PruneRule rule, std::uint64_t seed,
                          Optimizer* optimizer = nullptr);

// One RigL step (Evci et al., 2020): prune as SET does (the smallest |w|), and grow where the dense gradient
// G = dY^T X has its largest |g| among the positions that held no weight (ties broken by position), from a batch's
// input X (batch x in) and output gradient dY (batch x out). G is made block_rows rows at a time, and only at free
// positions, so neither a dense W nor a dense G is ever held. Fewer are grown only where G has fewer free entries.
// `combine`, if given, receives each block of G (block_rows rows of W, at the free positions the batch reached) with
// the same rows of W (`taken`: the positions that are not free) before the block is ranked, and may change its values
// and add entries at other free positions of those rows: data-parallel training sums the ranks' blocks there, so that
// every rank ranks the whole batch's gradient (DataParallel::rigl_rewire; a free position no rank reached then takes
// part with the value 0).
using GradientBlocks = std::function<void(Matrix& block, const Matrix& taken)>;
Rewiring rigl_rewire(SparseLinear& layer, double zeta, const Matrix& X, const Matrix& dY, Index block_rows,
                     Optimizer* optimizer = nullptr, const GradientBlocks& combine = {});

// RigL's schedule: the fraction to rewire at `step` of `total_steps`, zeta0 * (1 + cos(pi * step / end)) / 2 with
// end = stop_fraction * total_steps, and 0 from `end` on; rewire_due says whether `step` is an update step (every
// `interval` steps, before `end`).
double cosine_fraction(double zeta0, Index step, Index total_steps, double stop_fraction);
bool rewire_due(Index step, Index interval, Index total_steps, double stop_fraction);

// ERK (Erdos-Renyi-Kernel) densities for layers of the given (in_features, out_features): each layer's density is
// proportional to (in + out) / (in * out), scaled so that the layers together keep `density` of their weights; a
// layer whose share would exceed 1 is dense and the rest are scaled again. InvalidValue for a density outside (0, 1]
// or an empty shape.
std::vector<double> erk_densities(const std::vector<std::pair<Index, Index>>& shapes, double density);

}  // namespace snk::layers
