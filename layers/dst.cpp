// layers/dst.cpp: prune-and-regrow rewiring and ERK densities (dst.hpp).
#include "dst.hpp"

#include <algorithm>
#include <cstddef>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "calls.hpp"

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

}  // namespace

namespace {

// The weights' tuples, and which k of them a rule prunes (ties broken by position, row-major order).
struct Pruning {
  std::vector<Index> I, J;   // every weight's position
  std::vector<char> pruned;
};

Pruning choose_pruned(const Matrix& W, Index k, PruneRule rule) {
  const Index n = W.nvals();
  Pruning p;
  p.I.resize(n);
  p.J.resize(n);
  std::vector<float> X(n);
  W.extract_tuples(p.I.data(), p.J.data(), X.data(), &types::FP32);
  if (rule == PruneRule::SmallestMagnitude)
    for (float& x : X) x = std::fabs(x);
  // The k first in the order (key, position): a selection, not a sort (the pruned set is all that is asked).
  std::vector<Index> order(n);
  std::iota(order.begin(), order.end(), Index(0));
  const auto before = [&](Index a, Index b) { return X[a] < X[b] || (X[a] == X[b] && a < b); };
  if (k < n) std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), before);
  p.pruned.assign(n, 0);
  for (Index q = 0; q < k; ++q) p.pruned[order[q]] = 1;
  return p;
}

// A set of row-major positions (i * ncols + j) with room for `capacity` of them: open addressing, linear probing, a
// table of at least twice the capacity, so a rewiring's membership tests cost a probe or two and no allocation each.
class PositionSet {
 public:
  explicit PositionSet(Index capacity) {
    std::size_t size = 16;
    while (size < 2 * static_cast<std::size_t>(capacity)) size *= 2;
    slots_.assign(size, kEmpty);
    mask_ = size - 1;
  }
  // Adds q; false where it was there already.
  bool insert(Index q) {
    Index& s = slots_[slot_of(q)];
    if (s == q) return false;
    s = q;
    return true;
  }
  bool contains(Index q) const { return slots_[slot_of(q)] == q; }

 private:
  static constexpr Index kEmpty = ~Index(0);   // no position: a layer has fewer than 2^64 - 1 of them
  // The slot holding q, else the empty one where it would go (Fibonacci hashing, then linear probing).
  std::size_t slot_of(Index q) const {
    std::size_t h = static_cast<std::size_t>((q * 0x9E3779B97F4A7C15ull) >> 20) & mask_;
    while (slots_[h] != q && slots_[h] != kEmpty) h = (h + 1) & mask_;
    return h;
  }
  std::vector<Index> slots_;
  std::size_t mask_ = 0;
};

// Applies a rewiring: the weights not pruned are kept, zeros are grown at `grown` (row-major positions i * ncols + j,
// increasing), on the layer and on the optimizer's state.
Rewiring apply_rewiring(SparseLinear& layer, const Pruning& p, const std::vector<Index>& grown,
                        Optimizer* optimizer) {
  Matrix& W = layer.weight();
  const Index nrows = W.nrows(), ncols = W.ncols();
  std::vector<Index> KI, KJ;
  Index pruned = 0;
  for (std::size_t e = 0; e < p.I.size(); ++e) {
    if (p.pruned[e]) {
      ++pruned;
      continue;
    }
    KI.push_back(p.I[e]);
    KJ.push_back(p.J[e]);
  }
  std::vector<Index> GI(grown.size()), GJ(grown.size());
  for (std::size_t q = 0; q < grown.size(); ++q) {
    GI[q] = grown[q] / ncols;
    GJ[q] = grown[q] % ncols;
  }
  const Matrix keep = at_positions(&types::Bool, nrows, ncols, KI, KJ);
  const Matrix fresh = at_positions(W.type(), nrows, ncols, GI, GJ);
  calls::keep_and_grow(W, keep, fresh);
  if (optimizer != nullptr) optimizer->rewire(keep, fresh);
  return Rewiring{pruned, static_cast<Index>(grown.size())};
}

Index count_of(double zeta, Index n, const char* who) {
  if (!(zeta >= 0.0 && zeta <= 1.0))
    throw Error(Info::InvalidValue, std::string(who) + ": zeta must lie in [0, 1], not " + std::to_string(zeta));
  return std::min<Index>(n, static_cast<Index>(std::llround(zeta * static_cast<double>(n))));
}

}  // namespace

Rewiring prune_and_regrow(SparseLinear& layer, double zeta, PruneRule rule, std::uint64_t seed,
                          Optimizer* optimizer) {
  Matrix& W = layer.weight();
  const Index n = W.nvals(), nrows = W.nrows(), ncols = W.ncols();
  const Index k = count_of(zeta, n, "prune_and_regrow");
  if (k == 0) return Rewiring{};
  const Pruning p = choose_pruned(W, k, rule);
  // Regrow k positions that held no weight, uniformly at random.
  const Index capacity = nrows * ncols - n;   // free positions (W fits host memory, so this does not overflow)
  const Index want = std::min(k, capacity);
  PositionSet taken(n + want);
  for (Index e = 0; e < n; ++e) taken.insert(p.I[e] * ncols + p.J[e]);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<Index> any(0, nrows * ncols - 1);
  std::vector<Index> grown;
  if (2 * want <= capacity) {
    while (static_cast<Index>(grown.size()) < want) {
      const Index q = any(rng);
      if (taken.insert(q)) grown.push_back(q);
    }
  } else {   // a nearly full layer: draw from the list of free positions
    std::vector<Index> free;
    for (Index q = 0; q < nrows * ncols; ++q)
      if (!taken.contains(q)) free.push_back(q);
    std::shuffle(free.begin(), free.end(), rng);
    grown.assign(free.begin(), free.begin() + want);
  }
  std::sort(grown.begin(), grown.end());
  return apply_rewiring(layer, p, grown, optimizer);
}

Rewiring rigl_rewire(SparseLinear& layer, double zeta, const Matrix& X, const Matrix& dY, Index block_rows,
                     Optimizer* optimizer, const GradientBlocks& combine) {
  Matrix& W = layer.weight();
  const Index n = W.nvals(), nrows = W.nrows(), ncols = W.ncols();
  const Index k = count_of(zeta, n, "rigl_rewire");
  if (X.ncols() != ncols || dY.ncols() != nrows || X.nrows() != dY.nrows())
    throw Error(Info::DimensionMismatch, "rigl_rewire: X must be batch x in_features and dY batch x out_features");
  if (block_rows == 0) throw Error(Info::InvalidValue, "rigl_rewire: block_rows must be positive");
  if (k == 0) return Rewiring{};
  const Pruning p = choose_pruned(W, k, PruneRule::SmallestMagnitude);
  // The k largest |G| over positions that hold no weight, G = dY^T X made block_rows rows at a time (only the free
  // positions of each block: a complemented structural mask of W's rows); ties broken by position.
  using Candidate = std::pair<float, Index>;   // (|g|, position)
  const auto better = [](const Candidate& a, const Candidate& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  std::vector<Candidate> best;   // a heap whose top is the worst candidate kept
  const Type* t = W.type();
  const Semiring& pt = calls::plus_times(t);
  std::vector<Index> all_rows(X.nrows());
  std::iota(all_rows.begin(), all_rows.end(), Index(0));
  for (Index r0 = 0; r0 < nrows; r0 += block_rows) {
    const Index nb = std::min(block_rows, nrows - r0);
    std::vector<Index> rows(nb);
    std::iota(rows.begin(), rows.end(), r0);
    Matrix dYb(t, dY.nrows(), nb), Wb(t, nb, ncols), Gb(t, nb, ncols);
    extract(dYb, nullptr, nullptr, dY, nullptr, dY.nrows(), rows.data(), nb);
    extract(Wb, nullptr, nullptr, W, rows.data(), nb, nullptr, ncols);
    Descriptor d;
    d.transpose_first = true;
    d.mask_structure = true;
    d.mask_complement = true;
    mxm(Gb, &Wb, nullptr, pt, dYb, X, d);
    if (combine) combine(Gb, Wb);
    const Index m = Gb.nvals();
    std::vector<Index> GI(m), GJ(m);
    std::vector<float> GX(m);
    Gb.extract_tuples(GI.data(), GJ.data(), GX.data(), &types::FP32);
    for (Index e = 0; e < m; ++e) {
      const Candidate c{std::fabs(GX[e]), (r0 + GI[e]) * ncols + GJ[e]};
      if (static_cast<Index>(best.size()) < k) {
        best.push_back(c);
        std::push_heap(best.begin(), best.end(), better);
      } else if (better(c, best.front())) {
        std::pop_heap(best.begin(), best.end(), better);
        best.back() = c;
        std::push_heap(best.begin(), best.end(), better);
      }
    }
  }
  std::vector<Index> grown;
  for (const Candidate& c : best) grown.push_back(c.second);
  std::sort(grown.begin(), grown.end());
  return apply_rewiring(layer, p, grown, optimizer);
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

double cosine_fraction(double zeta0, Index step, Index total_steps, double stop_fraction) {
  const double end = stop_fraction * static_cast<double>(total_steps);
  if (static_cast<double>(step) >= end) return 0.0;
  return zeta0 * 0.5 * (1.0 + std::cos(3.14159265358979323846 * static_cast<double>(step) / end));
}

bool rewire_due(Index step, Index interval, Index total_steps, double stop_fraction) {
  return interval > 0 && step > 0 && step % interval == 0 &&
         static_cast<double>(step) < stop_fraction * static_cast<double>(total_steps);
}

}  // namespace snk::layers
