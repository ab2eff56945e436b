// graphchallenge/plan/tile_modes.cpp: the tiles of a tiled layer, the cost model's fit and text form, and the planner
// that gives each tile a mode (tile_modes.hpp says what the modes are).
#include "plan/tile_modes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace snk::gc {
namespace {

constexpr const char* kFormat = "snack-tile-cost-model 2";

// Least squares of y on the columns of x picked by `use` (bit j: column j), by the normal equations; false where
// they are singular. coef receives 0 for the columns not used.
bool least_squares(const std::vector<std::array<double, 3>>& x, const std::vector<double>& y, unsigned use,
                   std::array<double, 3>& coef, double& sse) {
  int cols[3], n = 0;
  for (int j = 0; j < 3; ++j)
    if (use & (1u << j)) cols[n++] = j;
  double a[3][4] = {};
  for (size_t i = 0; i < y.size(); ++i)
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) a[r][c] += x[i][cols[r]] * x[i][cols[c]];
      a[r][n] += x[i][cols[r]] * y[i];
    }
  double scale = 0;
  for (int r = 0; r < n; ++r) scale = std::max(scale, std::fabs(a[r][r]));
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    if (std::fabs(a[p][c]) <= 1e-12 * scale || a[p][c] == 0) return false;
    for (int k = 0; k <= n; ++k) std::swap(a[c][k], a[p][k]);
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (int k = c; k <= n; ++k) a[r][k] -= f * a[c][k];
    }
  }
  coef = {0, 0, 0};
  for (int r = 0; r < n; ++r) coef[cols[r]] = a[r][n] / a[r][r];
  sse = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double e = coef[0] * x[i][0] + coef[1] * x[i][1] + coef[2] * x[i][2] - y[i];
    sse += e * e;
  }
  return true;
}

}  // namespace

int64_t LayerTiles::inputs(int64_t t) const {
  int64_t k = 0;
  for (int32_t b = block_ptr[static_cast<size_t>(t)]; b < block_ptr[static_cast<size_t>(t) + 1]; ++b)
    k += blocks[static_cast<size_t>(b)].nr;
  return k;
}

LayerTiles layer_tiles(const TiledLayer& t, int max_columns) {
  if (max_columns < 1) throw std::invalid_argument("layer_tiles: max_columns must be at least 1");
  // The blocks by column class, each class's in row-class order.
  std::vector<std::vector<TileBlock>> by_class(static_cast<size_t>(t.col_classes()));
  for (int64_t c = 0; c < t.row_classes(); ++c)
    for (int64_t b = t.block_ptr[c]; b < t.block_ptr[c + 1]; ++b)
      by_class[static_cast<size_t>(t.block_col[b])].push_back(
          TileBlock{static_cast<int32_t>(t.row_class[c]), static_cast<int32_t>(t.row_class[c + 1] - t.row_class[c]),
                    t.block_offset[b]});
  LayerTiles out;
  for (int64_t c = 0; c < t.col_classes(); ++c) {
    const int pitch = static_cast<int>(t.col_class[c + 1] - t.col_class[c]);
    for (int first = 0; first < pitch; first += max_columns) {
      out.start.push_back(static_cast<int32_t>(t.col_class[c] + first));
      out.width.push_back(std::min(max_columns, pitch - first));
      out.pitch.push_back(pitch);
      const size_t b0 = out.blocks.size();
      for (TileBlock k : by_class[static_cast<size_t>(c)]) {
        k.voff += first;
        out.blocks.push_back(k);
      }
      out.block_ptr.push_back(static_cast<int32_t>(out.blocks.size()));
      // Column q equals column p < q where their weights agree at every input (bitwise: -0 and 0 differ).
      const int width = out.width.back();
      const auto same = [&](int p, int q) {
        for (size_t b = b0; b < out.blocks.size(); ++b)
          for (int32_t a = 0; a < out.blocks[b].nr; ++a) {
            const float* w = t.values.data() + out.blocks[b].voff + static_cast<int64_t>(a) * pitch;
            if (std::memcmp(w + p, w + q, sizeof(float)) != 0) return false;
          }
        return true;
      };
      int32_t distinct = 0;
      for (int q = 0; q < width; ++q) {
        bool repeat = false;
        for (int p = 0; p < q && !repeat; ++p) repeat = same(p, q);
        distinct += repeat ? 0 : 1;
      }
      out.distinct.push_back(distinct);
    }
  }
  return out;
}

MergedNetwork merge_equal_outputs(const TiledNetwork& net, const std::vector<LayerTiles>& tiles) {
  if (tiles.size() != net.layers.size())
    throw std::invalid_argument("merge_equal_outputs: " + std::to_string(tiles.size()) + " layers of tiles for a network of " +
                                std::to_string(net.layers.size()));
  MergedNetwork m;
  std::vector<int32_t> slot_of;   // the previous layer's output position -> its slot
  for (size_t l = 0; l < tiles.size(); ++l) {
    const LayerTiles& in = tiles[l];
    LayerTiles out = in;
    std::vector<int32_t> next(static_cast<size_t>(net.layers[l].ncols), -1);
    int32_t slots = 0;
    for (int64_t t = 0; t < in.tiles(); ++t) {
      const size_t i = static_cast<size_t>(t);
      const bool merge = in.distinct[i] == 1 && in.width[i] > 1;
      out.start[i] = slots;
      out.width[i] = merge ? 1 : in.width[i];
      for (int32_t q = 0; q < in.width[i]; ++q) next[static_cast<size_t>(in.start[i] + q)] = slots + (merge ? 0 : q);
      slots += out.width[i];
    }
    std::vector<int32_t> gather = net.gather[l];
    if (l > 0)
      for (int32_t& g : gather) {
        if (g < 0 || g >= static_cast<int32_t>(slot_of.size()) || slot_of[static_cast<size_t>(g)] < 0)
          throw std::invalid_argument("merge_equal_outputs: layer " + std::to_string(l + 1) + " reads output " +
                                      std::to_string(g) + ", which no tile of the layer before writes");
        g = slot_of[static_cast<size_t>(g)];
      }
    m.tiles.push_back(std::move(out));
    m.gather.push_back(std::move(gather));
    m.slots.push_back(slots);
    slot_of = std::move(next);
  }
  return m;
}

std::vector<int64_t> merged_infer(const TiledNetwork& net, const MergedNetwork& merged, const CsrMatrix& inputs) {
  const int64_t n = net.neurons;
  if (inputs.ncols != n) throw std::invalid_argument("merged_infer: the inputs' width is not the network's");
  std::vector<int64_t> alive;
  std::vector<double> y, out;
  for (int64_t r = 0; r < inputs.nrows; ++r) {
    y.assign(static_cast<size_t>(n), 0.0);   // neuron order for layer 0, then the last layer's slots
    bool any = false;
    for (int64_t k = inputs.row_ptr[r]; k < inputs.row_ptr[r + 1]; ++k) {
      y[static_cast<size_t>(inputs.col[k])] = inputs.val[k];
      any = any || inputs.val[k] != 0.0f;
    }
    for (size_t l = 0; l < merged.tiles.size() && any; ++l) {
      const LayerTiles& t = merged.tiles[l];
      const std::vector<float>& values = net.layers[l].values;
      out.assign(static_cast<size_t>(merged.slots[l]), 0.0);
      any = false;
      for (int64_t i = 0; i < t.tiles(); ++i)
        for (int32_t q = 0; q < t.width[static_cast<size_t>(i)]; ++q) {
          double sum = 0;
          for (int32_t b = t.block_ptr[static_cast<size_t>(i)]; b < t.block_ptr[static_cast<size_t>(i) + 1]; ++b) {
            const TileBlock& k = t.blocks[static_cast<size_t>(b)];
            for (int32_t a = 0; a < k.nr; ++a)
              sum = std::fma(y[static_cast<size_t>(merged.gather[l][static_cast<size_t>(k.r0 + a)])],
                             static_cast<double>(values[static_cast<size_t>(k.voff + static_cast<int64_t>(a) *
                                                                                     t.pitch[static_cast<size_t>(i)] + q)]),
                             sum);
          }
          const double v = std::min(std::max(sum + static_cast<double>(net.bias), 0.0), kChallengeClamp);
          out[static_cast<size_t>(t.start[static_cast<size_t>(i)] + q)] = v;
          any = any || v > 0.0;
        }
      y.swap(out);
    }
    if (any) alive.push_back(r);
  }
  return alive;
}

const char* tile_mode_name(TileMode m) {
  switch (m) {
    case TileMode::Sparse: return "sparse";
    case TileMode::Tensor: return "tensor";
    case TileMode::Embedded: return "embedded";
  }
  return "?";
}

TileShape tile_shape(const LayerTiles& tiles, int64_t t) {
  TileShape s;
  s.inputs = tiles.inputs(t);
  s.width = tiles.width[static_cast<size_t>(t)];
  s.nnz = s.inputs * s.width;
  s.distinct_nnz = tiles.distinct.empty() ? s.nnz : s.inputs * tiles.distinct[static_cast<size_t>(t)];
  return s;
}

CostModel CostModel::fit(const std::string& key, const std::vector<TileTiming>& timings, double compile_ns_per_nnz) {
  CostModel m;
  m.key = key;
  m.compile_ns_per_nnz = compile_ns_per_nnz;
  for (int mode = 0; mode < kTileModes; ++mode) {
    std::vector<std::array<double, 3>> x;
    std::vector<double> y;
    std::vector<std::pair<int64_t, int64_t>> shapes;
    for (const TileTiming& t : timings) {
      if (static_cast<int>(t.mode) != mode || t.tiles <= 0 || t.rows <= 0 || !(t.ns > 0)) continue;
      const double chunks = static_cast<double>((t.rows + 127) / 128);
      const int64_t nnz = mode_nnz(t.mode, t.shape), loads = mode_inputs(t.mode, t.shape);
      x.push_back({1.0, static_cast<double>(loads), static_cast<double>(nnz)});
      y.push_back(t.ns / (static_cast<double>(t.tiles) * chunks));
      shapes.emplace_back(loads, nnz);
    }
    std::sort(shapes.begin(), shapes.end());
    if (std::unique(shapes.begin(), shapes.end()) - shapes.begin() < 2) continue;
    // Every subset of the three terms; the best fit whose coefficients are all >= 0.
    double best = std::numeric_limits<double>::infinity();
    for (unsigned use = 1; use < 8; ++use) {
      std::array<double, 3> coef{};
      double sse = 0;
      if (!least_squares(x, y, use, coef, sse)) continue;
      if (coef[0] < 0 || coef[1] < 0 || coef[2] < 0) continue;
      if (sse < best * (1 - 1e-9)) {
        best = sse;
        m.mode[static_cast<size_t>(mode)] = ModeCost{true, coef[0], coef[1], coef[2]};
      }
    }
  }
  return m;
}

std::string CostModel::serialize() const {
  std::ostringstream o;
  o.precision(17);
  o << kFormat << "\nkey " << key << "\n";
  for (int i = 0; i < kTileModes; ++i) {
    const ModeCost& c = mode[static_cast<size_t>(i)];
    o << tile_mode_name(static_cast<TileMode>(i)) << " " << (c.measured ? 1 : 0) << " " << c.base_ns << " "
      << c.per_input_ns << " " << c.per_nnz_ns << "\n";
  }
  o << "compile_ns_per_nnz " << compile_ns_per_nnz << "\nend\n";
  return o.str();
}

bool CostModel::parse(const std::string& text, CostModel& out, std::string& why) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kFormat) {
    why = "not a tile cost model of this format (first line '" + line + "')";
    return false;
  }
  CostModel m;
  if (!std::getline(in, line) || line.rfind("key ", 0) != 0) {
    why = "no key line";
    return false;
  }
  m.key = line.substr(4);
  for (int i = 0; i < kTileModes; ++i) {
    std::string name;
    int measured = -1;
    ModeCost c;
    if (!std::getline(in, line)) {
      why = "truncated before the " + std::string(tile_mode_name(static_cast<TileMode>(i))) + " line";
      return false;
    }
    std::istringstream l(line);
    if (!(l >> name >> measured >> c.base_ns >> c.per_input_ns >> c.per_nnz_ns) ||
        name != tile_mode_name(static_cast<TileMode>(i)) || (measured != 0 && measured != 1) ||
        !(c.base_ns >= 0 && c.per_input_ns >= 0 && c.per_nnz_ns >= 0) || !std::isfinite(c.base_ns) ||
        !std::isfinite(c.per_input_ns) || !std::isfinite(c.per_nnz_ns)) {
      why = "bad mode line '" + line + "'";
      return false;
    }
    c.measured = measured == 1;
    m.mode[static_cast<size_t>(i)] = c;
  }
  std::string name;
  if (!std::getline(in, line) || !(std::istringstream(line) >> name >> m.compile_ns_per_nnz) ||
      name != "compile_ns_per_nnz" || !(m.compile_ns_per_nnz >= 0) || !std::isfinite(m.compile_ns_per_nnz)) {
    why = "bad or missing compile_ns_per_nnz line";
    return false;
  }
  if (!std::getline(in, line) || line != "end") {
    why = "truncated (no end line)";
    return false;
  }
  out = m;
  return true;
}

ModePolicy parse_mode_policy(const std::string& s) {
  if (s == "auto") return ModePolicy::Auto;
  if (s == "sparse") return ModePolicy::Sparse;
  if (s == "tensor") return ModePolicy::Tensor;
  if (s == "embedded") return ModePolicy::Embedded;
  throw std::invalid_argument("tile modes must be auto, sparse, tensor or embedded, not '" + s + "'");
}

void LayerModes::drop_embedded() {
  std::vector<int32_t>& emb = tiles[static_cast<size_t>(TileMode::Embedded)];
  for (size_t i = 0; i < emb.size(); ++i) tiles[static_cast<size_t>(fallback[i])].push_back(emb[i]);
  for (int m = 0; m < kTileModes; ++m) std::sort(tiles[static_cast<size_t>(m)].begin(), tiles[static_cast<size_t>(m)].end());
  emb.clear();
  fallback.clear();
  embedded_gain_ns = 0;
}

std::array<int64_t, kTileModes> ModePlan::count() const {
  std::array<int64_t, kTileModes> n{};
  for (const LayerModes& l : layers)
    for (int m = 0; m < kTileModes; ++m) n[static_cast<size_t>(m)] += static_cast<int64_t>(l.tiles[static_cast<size_t>(m)].size());
  return n;
}

std::string ModePlan::summary() const {
  const auto n = count();
  std::string s;
  for (int m = 0; m < kTileModes; ++m)
    s += std::string(m ? ", " : "") + tile_mode_name(static_cast<TileMode>(m)) + " " + std::to_string(n[static_cast<size_t>(m)]);
  if (embedded_fallbacks > 0)
    s += " (" + std::to_string(embedded_fallbacks) + " planned embedded fell back: compile budget or deadline)";
  return s;
}

ModePlan plan_tile_modes(const std::vector<LayerTiles>& tiles, const CostModel& model, const PlanOptions& options,
                         const std::vector<std::vector<int32_t>>* uniform_loads) {
  const bool allowed[kTileModes] = {true, options.tensor_allowed, options.embedded_allowed};
  if (uniform_loads) {
    bool shaped = uniform_loads->size() == tiles.size();
    for (size_t l = 0; shaped && l < tiles.size(); ++l)
      shaped = static_cast<int64_t>((*uniform_loads)[l].size()) == tiles[l].tiles();
    if (!shaped) throw std::invalid_argument("plan_tile_modes: uniform_loads must hold one count per tile of each layer");
  }
  if (options.policy == ModePolicy::Tensor && !options.tensor_allowed)
    throw std::invalid_argument("the tensor tile mode is not available here (it needs FP64 sums)");
  if (options.policy == ModePolicy::Embedded && !options.embedded_allowed)
    throw std::invalid_argument("the embedded tile mode is not available here (no run-time compiler)");
  ModePlan plan;
  plan.layers.resize(tiles.size());
  for (size_t l = 0; l < tiles.size(); ++l) {
    LayerModes& out = plan.layers[l];
    for (int64_t t = 0; t < tiles[l].tiles(); ++t) {
      TileShape s = tile_shape(tiles[l], t);
      const bool equal_columns = s.distinct_nnz < s.nnz;
      if (!options.share_equal_sums) s.distinct_nnz = s.nnz;
      if (uniform_loads && options.share_equal_sums && s.distinct_nnz == s.inputs)
        s.loads = (*uniform_loads)[l][static_cast<size_t>(t)];
      const bool embeddable = allowed[2] && (options.share_equal_sums || !equal_columns);
      // The cheapest measured mode among sparse and tensor: where an embedded tile falls back to.
      TileMode fallback = TileMode::Sparse;
      if (allowed[1] && model.mode[1].measured &&
          (!model.mode[0].measured || model.predict_ns(TileMode::Tensor, s) < model.predict_ns(TileMode::Sparse, s)))
        fallback = TileMode::Tensor;
      TileMode mode = fallback;
      switch (options.policy) {
        case ModePolicy::Auto:
          if (embeddable && model.mode[2].measured && model.mode[static_cast<size_t>(fallback)].measured &&
              model.predict_ns(TileMode::Embedded, s) < model.predict_ns(fallback, s))
            mode = TileMode::Embedded;
          break;
        case ModePolicy::Sparse: mode = fallback = TileMode::Sparse; break;
        case ModePolicy::Tensor: mode = fallback = TileMode::Tensor; break;
        case ModePolicy::Embedded:
          if (embeddable) mode = TileMode::Embedded;
          break;
      }
      out.tiles[static_cast<size_t>(mode)].push_back(static_cast<int32_t>(t));
      if (mode == TileMode::Embedded) {
        out.fallback.push_back(fallback);
        if (model.mode[2].measured && model.mode[static_cast<size_t>(fallback)].measured)
          out.embedded_gain_ns += model.predict_ns(fallback, s) - model.predict_ns(TileMode::Embedded, s);
      }
    }
  }
  return plan;
}

}  // namespace snk::gc
