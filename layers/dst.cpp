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

// Positions (i, j), row-major sorted, as two arrays.
struct Positions {
  std::vector<Index> I, J;
  std::size_t size() const { return I.size(); }
  bool before(std::size_t a, Index i, Index j) const { return I[a] < i || (I[a] == i && J[a] < j); }
};

// Where each of nrows rows starts among positions whose rows are I, once they are in row order (nrows + 1 entries: the
// row pointers of compressed rows).
std::vector<Index> row_starts(const std::vector<Index>& I, Index nrows) {
  std::vector<Index> start(static_cast<std::size_t>(nrows) + 1, 0);
  for (Index i : I) ++start[static_cast<std::size_t>(i) + 1];
  for (Index i = 0; i < nrows; ++i) start[i + 1] += start[i];
  return start;
}

// A matrix of `type` (Bool, or a floating type) with an entry at each position of `at` (row-major sorted, no
// repeats), of value true for Bool and zero otherwise: made in compressed rows directly, as the positions are sorted.
Matrix at_positions(const Type* type, Index nrows, Index ncols, const Positions& at) {
  CsrStorage s;
  s.p = row_starts(at.I, nrows);
  s.j = at.J;
  s.x.assign(at.size() * type->size, type == &types::Bool ? 1 : 0);   // true, or the floating zero (all bits 0)
  Matrix M(type, nrows, ncols);
  M.adopt(std::move(s));
  return M;
}

// Which k of W's entries a rule prunes (ties broken by position, row-major order): a flag per entry, in W's order.
std::vector<char> choose_pruned(const Matrix& W, Index k, PruneRule rule) {
  const Index n = W.nvals();
  std::vector<float> X(n);
  W.extract_tuples(nullptr, nullptr, X.data(), &types::FP32);
  // The k first in the order (key, position): a selection, not a sort (the pruned set is all that is asked), of
  // (key, entry) pairs held together so that the comparisons read no other array.
  struct Keyed {
    float key;
    Index entry;
  };
  std::vector<Keyed> order(n);
  for (Index e = 0; e < n; ++e) order[e] = {rule == PruneRule::SmallestMagnitude ? std::fabs(X[e]) : X[e], e};
  const auto before = [](const Keyed& a, const Keyed& b) {
    return a.key < b.key || (a.key == b.key && a.entry < b.entry);
  };
  if (k < n) std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), before);
  std::vector<char> pruned(n, 0);
  for (Index q = 0; q < k; ++q) pruned[order[q].entry] = 1;
  return pruned;
}

// The positions a random regrowth may not take: W's before the step, and those it took. A bit per position of the
// matrix where that costs no more than the entries' own column indices (density at least 1/64); otherwise a binary
// search of W's row and an open-addressing set of the positions taken (linear probing, a table of at least twice their
// count), so that a draw costs a probe or a search and no allocation.
class Taken {
 public:
  Taken(const Matrix& W, Index capacity) : W_(W), bitmap_(W.nrows() * W.ncols() <= 64 * W.nvals()) {
    if (bitmap_) {
      const Index ncols = W.ncols();
      bits_.assign(static_cast<std::size_t>((W.nrows() * ncols + 63) / 64), 0);
      const std::vector<Index>& rows = W.coo_rows();
      const std::vector<Index>& cols = W.csr().j;
      for (std::size_t e = 0; e < rows.size(); ++e) {
        const Index q = rows[e] * ncols + cols[e];
        bits_[static_cast<std::size_t>(q >> 6)] |= std::uint64_t(1) << (q & 63);
      }
      return;
    }
    std::size_t size = 16;
    while (size < 2 * static_cast<std::size_t>(capacity)) size *= 2;
    slots_.assign(size, kEmpty);
    mask_ = size - 1;
  }
  // Takes position (i, j); false where it was taken already.
  bool take(Index i, Index j) {
    const Index q = i * W_.ncols() + j;
    if (bitmap_) {
      const std::uint64_t bit = std::uint64_t(1) << (q & 63);
      std::uint64_t& word = bits_[static_cast<std::size_t>(q >> 6)];
      if (word & bit) return false;
      word |= bit;
      return true;
    }
    if (held(i, j)) return false;
    std::size_t h = static_cast<std::size_t>((q * 0x9E3779B97F4A7C15ull) >> 20) & mask_;
    while (slots_[h] != q && slots_[h] != kEmpty) h = (h + 1) & mask_;
    if (slots_[h] == q) return false;
    slots_[h] = q;
    return true;
  }

 private:
  static constexpr Index kEmpty = ~Index(0);   // no position: a layer has fewer than 2^64 - 1 of them
  bool held(Index i, Index j) const {
    Index b = 0, e = 0;
    W_.row_range(i, b, e);
    const std::vector<Index>& cols = W_.csr().j;
    return std::binary_search(cols.begin() + static_cast<std::ptrdiff_t>(b), cols.begin() + static_cast<std::ptrdiff_t>(e),
                              j);
  }
  const Matrix& W_;
  bool bitmap_;
  std::vector<std::uint64_t> bits_;
  std::vector<Index> slots_;
  std::size_t mask_ = 0;
};

// Sorts positions row-major: by row (a counting sort), then by column within each row.
Positions sorted(const Positions& at, Index nrows) {
  const std::vector<Index> start = row_starts(at.I, nrows);
  Positions out;
  out.I.resize(at.size());
  out.J.resize(at.size());
  std::vector<Index> next(start.begin(), start.end() - 1);
  for (std::size_t e = 0; e < at.size(); ++e) {
    const Index to = next[at.I[e]]++;
    out.I[to] = at.I[e];
    out.J[to] = at.J[e];
  }
  for (Index i = 0; i < nrows; ++i)
    std::sort(out.J.begin() + static_cast<std::ptrdiff_t>(start[i]), out.J.begin() + static_cast<std::ptrdiff_t>(start[i + 1]));
  return out;
}

// Applies a rewiring: the weights not pruned are kept, zeros are grown at `grown` (row-major sorted, none held
// before), on the layer and on the optimizer's state. The new entries' old indices come from a merge of the kept
// positions with the grown ones, which is the new pattern's order.
Rewiring apply_rewiring(SparseLinear& layer, const std::vector<char>& pruned, const Positions& grown,
                        Optimizer* optimizer) {
  Matrix& W = layer.weight();
  const Index nrows = W.nrows(), ncols = W.ncols(), n = W.nvals();
  const std::vector<Index>& I = W.coo_rows();
  const std::vector<Index>& J = W.csr().j;
  Positions kept;
  kept.I.reserve(static_cast<std::size_t>(n));
  kept.J.reserve(static_cast<std::size_t>(n));
  Rewiring r;
  r.grown = static_cast<Index>(grown.size());
  r.old_index.reserve(static_cast<std::size_t>(n) + grown.size());
  std::size_t g = 0;
  for (Index e = 0; e < n; ++e) {
    if (pruned[e]) continue;
    for (; g < grown.size() && grown.before(g, I[e], J[e]); ++g) r.old_index.push_back(-1);
    r.old_index.push_back(e);
    kept.I.push_back(I[e]);
    kept.J.push_back(J[e]);
  }
  for (; g < grown.size(); ++g) r.old_index.push_back(-1);
  r.pruned = n - static_cast<Index>(kept.size());
  const Matrix keep = at_positions(&types::Bool, nrows, ncols, kept);
  const Matrix fresh = at_positions(W.type(), nrows, ncols, grown);
  calls::keep_and_grow(W, keep, fresh);
  if (optimizer != nullptr) optimizer->rewire(keep, fresh);
  return r;
}

Index count_of(double zeta, Index n, const char* who) {
  if (!(zeta >= 0.0 && zeta <= 1.0))
    throw Error(Info::InvalidValue, std::string(who) + ": zeta must lie in [0, 1], not " + std::to_string(zeta));
  return rewiring_count(zeta, n);
}

}  // namespace

Index rewiring_count(double zeta, Index nvals) {
  return std::min<Index>(nvals, static_cast<Index>(std::llround(zeta * static_cast<double>(nvals))));
}

Rewiring prune_and_regrow(SparseLinear& layer, double zeta, PruneRule rule, std::uint64_t seed,
                          Optimizer* optimizer) {
  Matrix& W = layer.weight();
  const Index n = W.nvals(), nrows = W.nrows(), ncols = W.ncols();
  const Index k = count_of(zeta, n, "prune_and_regrow");
  if (k == 0) return Rewiring{};
  const std::vector<char> pruned = choose_pruned(W, k, rule);
  // Regrow k positions that held no weight, uniformly at random: each draw is kept unless W held it before this step
  // or an earlier draw took it.
  const Index capacity = nrows * ncols - n;   // free positions (W fits host memory, so this does not overflow)
  const Index want = std::min(k, capacity);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<Index> any(0, nrows * ncols - 1);
  Positions grown;
  grown.I.reserve(static_cast<std::size_t>(want));
  grown.J.reserve(static_cast<std::size_t>(want));
  Taken taken(W, want);
  if (2 * want <= capacity) {
    while (static_cast<Index>(grown.size()) < want) {
      const Index q = any(rng), i = q / ncols, j = q - i * ncols;
      if (!taken.take(i, j)) continue;
      grown.I.push_back(i);
      grown.J.push_back(j);
    }
  } else {   // a nearly full layer (density above 1/3, so Taken holds a bitmap): draw from the list of free positions
    std::vector<Index> free;
    for (Index q = 0; q < nrows * ncols; ++q)
      if (taken.take(q / ncols, q % ncols)) free.push_back(q);
    std::shuffle(free.begin(), free.end(), rng);
    for (Index t = 0; t < want; ++t) {
      grown.I.push_back(free[t] / ncols);
      grown.J.push_back(free[t] % ncols);
    }
  }
  return apply_rewiring(layer, pruned, sorted(grown, nrows), optimizer);
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
  const std::vector<char> pruned = choose_pruned(W, k, PruneRule::SmallestMagnitude);
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
  Positions grown;
  for (const Candidate& c : best) {
    grown.I.push_back(c.second / ncols);
    grown.J.push_back(c.second % ncols);
  }
  return apply_rewiring(layer, pruned, sorted(grown, nrows), optimizer);
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
