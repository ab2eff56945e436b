// layers/dst.cpp: prune-and-regrow rewiring and ERK densities (dst.hpp).
#include "dst.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace snk::layers {
namespace {

// A matrix of `type` with an entry (value zero, or true) at each position (i, j) listed (increasing, no repeats).
Matrix at_positions(const Type* type, Index nrows, Index ncols, const std::vector<Index>& I,
                    const std::vector<Index>& J) {
  Matrix M(type, nrows, ncols);
  const std::vector<double> zero(I.size(), type == &types::Bool ? 1.0 : 0.0);
  M.build(I.data(), J.data(), zero.data(), &types::FP64, I.size(), nullptr);
  return M;
}

// X<keep, structure, replace> united with zeros at `grown`: the rewired form of a matrix on the old pattern.
void rewire(Matrix& X, const Matrix& keep, const Matrix& grown) {
  Matrix kept(X.type(), X.nrows(), X.ncols());
  Descriptor d;
  d.mask_structure = true;
  d.replace = true;
  apply(kept, &keep, nullptr, *builtin_unary_op(UnaryOpcode::Identity, X.type()->code), X, d);
  Matrix out(X.type(), X.nrows(), X.ncols());
  ewise_add(out, nullptr, nullptr, *builtin_binary_op(BinaryOpcode::First, X.type()->code), kept, grown);
  X = std::move(out);
}

}  // namespace

Rewiring prune_and_regrow(SparseLinear& layer, double zeta, PruneRule rule, std::uint64_t seed,
                          SgdMomentum* optimizer) {
  if (!(zeta >= 0.0 && zeta <= 1.0))
    throw Error(Info::InvalidValue, "prune_and_regrow: zeta must lie in [0, 1], not " + std::to_string(zeta));
  Matrix& W = layer.weight();
  const Index n = W.nvals(), nrows = W.nrows(), ncols = W.ncols();
  const Index k = std::min<Index>(n, static_cast<Index>(std::llround(zeta * static_cast<double>(n))));
  Rewiring result;
  if (k == 0) return result;
  std::vector<Index> I(n), J(n);
  std::vector<float> X(n);
  W.extract_tuples(I.data(), J.data(), X.data(), &types::FP32);
  // Prune the k smallest by the rule, ties broken by position (row-major order).
  const auto key = [&](Index e) { return rule == PruneRule::SmallestMagnitude ? std::fabs(X[e]) : X[e]; };
  std::vector<Index> order(n);
  std::iota(order.begin(), order.end(), Index(0));
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return key(a) < key(b); });
  std::vector<char> pruned(n, 0);
  for (Index q = 0; q < k; ++q) pruned[order[q]] = 1;
  std::vector<Index> KI, KJ;
  for (Index e = 0; e < n; ++e)
    if (!pruned[e]) {
      KI.push_back(I[e]);
      KJ.push_back(J[e]);
    }
  // Regrow k positions that held no weight, uniformly at random.
  const Index capacity = nrows * ncols - n;   // free positions (W fits host memory, so this does not overflow)
  const Index want = std::min(k, capacity);
  std::unordered_set<Index> taken;
  taken.reserve(2 * (n + want));
  for (Index e = 0; e < n; ++e) taken.insert(I[e] * ncols + J[e]);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<Index> any(0, nrows * ncols - 1);
  std::vector<Index> grown;
  if (2 * want <= capacity) {
    while (static_cast<Index>(grown.size()) < want) {
      const Index p = any(rng);
      if (taken.insert(p).second) grown.push_back(p);
    }
  } else {   // a nearly full layer: draw from the list of free positions
    std::vector<Index> free;
    for (Index p = 0; p < nrows * ncols; ++p)
      if (!taken.count(p)) free.push_back(p);
    std::shuffle(free.begin(), free.end(), rng);
    grown.assign(free.begin(), free.begin() + want);
  }
  std::sort(grown.begin(), grown.end());
  std::vector<Index> GI(grown.size()), GJ(grown.size());
  for (std::size_t q = 0; q < grown.size(); ++q) {
    GI[q] = grown[q] / ncols;
    GJ[q] = grown[q] % ncols;
  }
  const Matrix keep = at_positions(&types::Bool, nrows, ncols, KI, KJ);
  const Matrix fresh = at_positions(&types::FP32, nrows, ncols, GI, GJ);
  rewire(W, keep, fresh);
  if (optimizer != nullptr) optimizer->rewire(keep, fresh);
  result.pruned = k;
  result.grown = want;
  return result;
}

std::vector<double> erk_densities(const std::vector<std::pair<Index, Index>>& shapes, double density) {
  if (!(density > 0.0 && density <= 1.0))
    throw Error(Info::InvalidValue, "erk_densities: the density must lie in (0, 1], not " + std::to_string(density));
  double total = 0;
  for (const auto& [in, out] : shapes) {
    if (in == 0 || out == 0) throw Error(Info::InvalidValue, "erk_densities: a layer has no inputs or no outputs");
    total += static_cast<double>(in) * static_cast<double>(out);
  }
  std::vector<double> out(shapes.size(), 0.0);
  std::vector<char> dense(shapes.size(), 0);
  for (;;) {   // each pass makes at least one more layer dense, or ends
    double kept = density * total, weighted = 0;
    for (std::size_t l = 0; l < shapes.size(); ++l) {
      const double in = static_cast<double>(shapes[l].first), o = static_cast<double>(shapes[l].second);
      if (dense[l]) kept -= in * o;
      else weighted += (in + o);   // raw share (in + o) / (in * o) times the layer's size in * o
    }
    const double scale = weighted > 0 ? kept / weighted : 0.0;
    bool changed = false;
    for (std::size_t l = 0; l < shapes.size(); ++l) {
      const double in = static_cast<double>(shapes[l].first), o = static_cast<double>(shapes[l].second);
      out[l] = dense[l] ? 1.0 : scale * (in + o) / (in * o);
      if (!dense[l] && out[l] > 1.0) {
        dense[l] = 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return out;
}

// The velocity follows its connections: kept where the weight is kept, zero where a weight is new.
void SgdMomentum::rewire(const Matrix& keep, const Matrix& grown) {
  if (!started_) return;
  layers::rewire(vw_, keep, grown);
}

}  // namespace snk::layers
