// tests/graphchallenge/test_tile_modes.cpp: the tiles of a tiled layer and the cost model that gives each tile a mode
// (graphchallenge/plan/tile_modes.hpp). Tiles cover every non-zero of the layer once, with its weight, on RadiX-Net
// layers (16 x 16 blocks, cut into narrower slices too) and on a random matrix (one-member classes), with their
// distinct weight columns counted (one in the challenge's uniform layers, all with drawn weights); the fit recovers
// known coefficients from synthetic timings and refuses to call a mode measured from one shape; the text form round
// trips and rejects damaged text; the planner takes each tile's cheapest measured mode (the embedded mode priced on
// its distinct columns, or on every column where no sum may be shared), obeys forced policies and what is allowed, and
// drops embedded tiles back to their fallback.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "gc_test_util.hpp"
#include "io/generator.hpp"
#include "io/reference.hpp"
#include "plan/tile_modes.hpp"
#include "plan/tiles.hpp"

namespace snk::gc {
namespace {

// Every tile entry of layer `w` (tiled as `t`, cut at `max_columns`): it must be a non-zero of w with that weight,
// and together they must be w's non-zeros, each once.
void expect_tiles_cover(const CsrMatrix& w, int max_columns, const std::string& what) {
  const TiledLayer t = tile_layer(w);
  const LayerTiles tiles = layer_tiles(t, max_columns);
  std::map<std::pair<int32_t, int32_t>, float> want;
  for (int64_t r = 0; r < w.nrows; ++r)
    for (int64_t k = w.row_ptr[r]; k < w.row_ptr[r + 1]; ++k) want[{static_cast<int32_t>(r), w.col[k]}] = w.val[k];
  std::map<std::pair<int32_t, int32_t>, int> seen;
  int64_t entries = 0;
  for (int64_t i = 0; i < tiles.tiles(); ++i) {
    const TileShape s = tile_shape(tiles, i);
    ASSERT_GE(s.width, 1) << what;
    ASSERT_LE(s.width, max_columns) << what;
    EXPECT_EQ(s.nnz, s.inputs * s.width) << what;
    for (int32_t b = tiles.block_ptr[i]; b < tiles.block_ptr[i + 1]; ++b) {
      const TileBlock& k = tiles.blocks[b];
      for (int32_t a = 0; a < k.nr; ++a)
        for (int32_t q = 0; q < tiles.width[i]; ++q) {
          const int32_t row = t.row_neuron[k.r0 + a], col = t.col_neuron[tiles.start[i] + q];
          const auto it = want.find({row, col});
          ASSERT_NE(it, want.end()) << what << ": tile " << i << " holds (" << row << ", " << col << "), not in W";
          EXPECT_EQ(t.values[k.voff + static_cast<int64_t>(a) * tiles.pitch[i] + q], it->second) << what;
          ++seen[{row, col}];
          ++entries;
        }
    }
  }
  EXPECT_EQ(entries, w.nnz()) << what;
  EXPECT_EQ(seen.size(), want.size()) << what;
}

TEST(LayerTiles, CoverRadixLayersAndRandomMatrices) {
  const uint64_t seed = test::case_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (SNACK_GC_SEED replays it)");
  const Network net = generate_network(1024, 2, seed);
  for (int cols : {32, 16, 5}) expect_tiles_cover(net.layers[0], cols, "RadiX 1024, slices of " + std::to_string(cols));
  // A RadiX layer's tiles at 32 columns: its 16-wide classes whole, 32 inputs each, every weight the same, so one
  // distinct column; the same blocks with drawn weights have 16.
  const LayerTiles tiles = layer_tiles(tile_layer(net.layers[0]), 32);
  ASSERT_EQ(tiles.tiles(), 64);
  for (int64_t i = 0; i < tiles.tiles(); ++i) {
    EXPECT_EQ(tile_shape(tiles, i).nnz, 512);
    EXPECT_EQ(tiles.distinct[i], 1);
    EXPECT_EQ(tile_shape(tiles, i).distinct_nnz, 32);
  }
  TiledLayer drawn = tile_layer(net.layers[0]);
  std::mt19937_64 draw(seed + 1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& x : drawn.values) x = u(draw);
  const LayerTiles drawn_tiles = layer_tiles(drawn, 32);
  for (int64_t i = 0; i < drawn_tiles.tiles(); ++i) EXPECT_EQ(drawn_tiles.distinct[i], 16);
  // Two columns equal in all but one input are distinct; equal at every input, one.
  TiledLayer two = drawn;
  const int64_t pitch = tiles.pitch[0];
  for (int32_t b = drawn_tiles.block_ptr[0]; b < drawn_tiles.block_ptr[1]; ++b)
    for (int32_t a = 0; a < drawn_tiles.blocks[b].nr; ++a)
      for (int64_t q = 1; q < pitch; ++q)
        two.values[drawn_tiles.blocks[b].voff + a * pitch + q] = two.values[drawn_tiles.blocks[b].voff + a * pitch];
  EXPECT_EQ(layer_tiles(two, 32).distinct[0], 1);
  two.values[drawn_tiles.blocks[drawn_tiles.block_ptr[1] - 1].voff + pitch + 3] += 0.5f;
  EXPECT_EQ(layer_tiles(two, 32).distinct[0], 2);

  std::mt19937_64 rng(seed);
  CsrMatrix r;
  r.nrows = r.ncols = 300;
  std::bernoulli_distribution on(0.03);
  std::uniform_real_distribution<float> v(-1.0f, 1.0f);
  for (int64_t i = 0; i < r.nrows; ++i) {
    for (int32_t j = 0; j < r.ncols; ++j)
      if (on(rng)) {
        r.col.push_back(j);
        r.val.push_back(v(rng));
      }
    r.row_ptr.push_back(static_cast<int64_t>(r.col.size()));
  }
  expect_tiles_cover(r, 32, "random 300 x 300");
  EXPECT_THROW(layer_tiles(tile_layer(r), 0), std::invalid_argument);
}

// The merged form (equal outputs held once) numbers its slots consistently: on RadiX-Net networks (every tile
// uniform: one slot per column class, 64 or 32 in a layer of 1024), a RadiX network with drawn weights (nothing merged) and an irregular one, and a
// mix (some layers' weights drawn), its double-precision inference gives the same categories as the unmerged form's
// (the same arithmetic, so exactly), and that form gives the float64 reference's.
TEST(MergedNetwork, SlotsAndCategoriesMatchTheUnmergedForm) {
  const uint64_t seed = test::case_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (SNACK_GC_SEED replays it)");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-0.3f, 0.6f);
  Network radix = generate_network(1024, 8, seed);
  radix.bias = -0.1f;
  Network mixed = radix;
  for (size_t l : {size_t{2}, size_t{5}})
    for (float& v : mixed.layers[l].val) v = u(rng) / 8;
  const CsrMatrix in = test::random_inputs(120, 1024, 0.4, seed + 3);
  for (const auto& [net, what] : {std::pair<const Network&, std::string>{radix, "RadiX"}, {mixed, "RadiX, 2 layers drawn"}}) {
    const TiledNetwork tn = tile_network(net);
    std::vector<LayerTiles> tiles, whole;
    for (const TiledLayer& t : tn.layers) {
      tiles.push_back(layer_tiles(t, 32));
      whole.push_back(tiles.back());
      whole.back().distinct = whole.back().width;   // nothing uniform: nothing merged
    }
    const MergedNetwork merged = merge_equal_outputs(tn, tiles), unmerged = merge_equal_outputs(tn, whole);
    ASSERT_EQ(merged.slots.size(), tn.layers.size());
    for (size_t l = 0; l < tn.layers.size(); ++l) {
      const bool drawn = what != "RadiX" && (l == 2 || l == 5);
      EXPECT_EQ(merged.slots[l], drawn ? 1024 : tn.layers[l].col_classes()) << what << ", layer " << l;
      EXPECT_EQ(unmerged.slots[l], 1024) << what;
      for (int32_t g : merged.gather[l]) EXPECT_LT(g, l == 0 ? 1024 : merged.slots[l - 1]) << what;
    }
    EXPECT_EQ(unmerged.gather, tn.gather) << what << ": the unmerged form reads what the tiled network reads";
    const std::vector<int64_t> want = reference_infer(net, in, ReferenceOptions{});
    EXPECT_EQ(merged_infer(tn, unmerged, in), want) << what;
    EXPECT_EQ(merged_infer(tn, merged, in), want) << what;
    EXPECT_FALSE(want.empty()) << what;
  }
  // An irregular matrix: one-member classes, tiles of width 1, nothing to merge.
  Network odd;
  odd.neurons = 300;
  odd.bias = -0.05f;
  for (int l = 0; l < 3; ++l) {
    CsrMatrix w;
    w.nrows = w.ncols = 300;
    std::bernoulli_distribution on(0.05);
    for (int64_t i = 0; i < 300; ++i) {
      for (int32_t j = 0; j < 300; ++j)
        if (on(rng)) {
          w.col.push_back(j);
          w.val.push_back(u(rng));
        }
      w.row_ptr.push_back(static_cast<int64_t>(w.col.size()));
    }
    odd.layers.push_back(w);
  }
  const TiledNetwork tn = tile_network(odd);
  std::vector<LayerTiles> tiles;
  for (const TiledLayer& t : tn.layers) tiles.push_back(layer_tiles(t, 32));
  const MergedNetwork m = merge_equal_outputs(tn, tiles);
  const CsrMatrix oin = test::random_inputs(60, 300, 0.3, seed + 4);
  EXPECT_EQ(merged_infer(tn, m, oin), reference_infer(odd, oin, ReferenceOptions{}));
  tiles.pop_back();
  EXPECT_THROW(merge_equal_outputs(tn, tiles), std::invalid_argument);
}

TileTiming timing(TileMode m, int64_t inputs, int64_t width, int64_t tiles, int64_t rows, const ModeCost& truth) {
  TileTiming t;
  t.mode = m;
  t.shape = TileShape{inputs, width, inputs * width, inputs * width};   // distinct weights: every column its own
  t.tiles = tiles;
  t.rows = rows;
  t.ns = truth.predict_ns(inputs, inputs * width) * static_cast<double>(tiles) * static_cast<double>((rows + 127) / 128);
  return t;
}

TEST(TileCostModel, FitRecoversCoefficientsAndNeedsTwoShapes) {
  const ModeCost sparse{true, 300, 2, 0.5}, tensor{true, 900, 0, 0.1};
  std::vector<TileTiming> ts;
  for (auto [k, w] : {std::pair<int64_t, int64_t>{16, 16}, {32, 16}, {32, 32}, {64, 8}, {8, 4}}) {
    ts.push_back(timing(TileMode::Sparse, k, w, 100, 4096, sparse));
    ts.push_back(timing(TileMode::Tensor, k, w, 50, 1000, tensor));
  }
  ts.push_back(timing(TileMode::Embedded, 32, 16, 64, 4096, ModeCost{true, 100, 0, 0.2}));
  const CostModel m = CostModel::fit("test", ts, 1e5);
  ASSERT_TRUE(m.mode[0].measured);
  EXPECT_NEAR(m.mode[0].base_ns, 300, 1e-6);
  EXPECT_NEAR(m.mode[0].per_input_ns, 2, 1e-9);
  EXPECT_NEAR(m.mode[0].per_nnz_ns, 0.5, 1e-9);
  ASSERT_TRUE(m.mode[1].measured);
  EXPECT_NEAR(m.mode[1].base_ns, 900, 1e-6);
  EXPECT_NEAR(m.mode[1].per_nnz_ns, 0.1, 1e-9);
  EXPECT_FALSE(m.mode[2].measured) << "one shape cannot separate the terms";
  EXPECT_EQ(m.compile_ns_per_nnz, 1e5);

  // Times that fall with size: no coefficient below zero.
  std::vector<TileTiming> odd{timing(TileMode::Sparse, 8, 8, 1, 128, ModeCost{true, 1000, 0, 0}),
                              timing(TileMode::Sparse, 64, 8, 1, 128, ModeCost{true, 500, 0, 0})};
  const CostModel o = CostModel::fit("odd", odd, 0);
  ASSERT_TRUE(o.mode[0].measured);
  EXPECT_GE(o.mode[0].base_ns, 0);
  EXPECT_GE(o.mode[0].per_input_ns, 0);
  EXPECT_GE(o.mode[0].per_nnz_ns, 0);
}

TEST(TileCostModel, TextRoundTripsAndDamageIsRefused) {
  CostModel m;
  m.key = "NVIDIA H200 sm_90 fp64";
  m.mode[0] = ModeCost{true, 312.25, 1.5, 0.125};
  m.mode[1] = ModeCost{true, 0.1 + 0.2, 0, 1.0 / 3};
  m.compile_ns_per_nnz = 12345.678;
  CostModel back;
  std::string why;
  ASSERT_TRUE(CostModel::parse(m.serialize(), back, why)) << why;
  EXPECT_EQ(back.key, m.key);
  for (int i = 0; i < kTileModes; ++i) {
    EXPECT_EQ(back.mode[i].measured, m.mode[i].measured);
    EXPECT_EQ(back.mode[i].base_ns, m.mode[i].base_ns);
    EXPECT_EQ(back.mode[i].per_input_ns, m.mode[i].per_input_ns);
    EXPECT_EQ(back.mode[i].per_nnz_ns, m.mode[i].per_nnz_ns);
  }
  EXPECT_EQ(back.compile_ns_per_nnz, m.compile_ns_per_nnz);

  const std::string good = m.serialize();
  const std::vector<std::string> bad{
      "", "snack-tile-cost-model 1\n" + good.substr(good.find('\n') + 1), good.substr(0, good.size() / 2),
      good.substr(0, good.rfind("end")), [&] {
        std::string s = good;
        s.replace(s.find("312.25"), 6, "-1");
        return s;
      }(),
      [&] {
        std::string s = good;
        s.replace(s.find("tensor"), 6, "dense!");
        return s;
      }()};
  for (const std::string& text : bad) {
    CostModel out = m;
    out.key = "untouched";
    why.clear();
    EXPECT_FALSE(CostModel::parse(text, out, why)) << text;
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(out.key, "untouched") << "a refused text must leave the model alone";
  }
}

TEST(TileModePlan, CheapestModeForcedPoliciesAndFallback) {
  // Two tile shapes: small (8 inputs x 4) and large (64 x 32). Sparse wins small, tensor large; embedded wins small
  // against sparse.
  LayerTiles l;
  const auto add = [&](int32_t inputs, int32_t width) {
    l.start.push_back(l.start.empty() ? 0 : l.start.back() + l.width.back());
    l.width.push_back(width);
    l.pitch.push_back(width);
    l.blocks.push_back(TileBlock{0, inputs, 0});
    l.block_ptr.push_back(static_cast<int32_t>(l.blocks.size()));
  };
  add(8, 4);
  add(64, 32);
  add(8, 4);
  l.distinct = {4, 32, 4};
  CostModel m;
  m.mode[0] = ModeCost{true, 100, 0, 1.0};   // small 132, large 2148
  m.mode[1] = ModeCost{true, 1000, 0, 0.1};  // small 1003.2, large 1204.8
  m.mode[2] = ModeCost{true, 50, 0, 1.5};    // small 98, large 3122
  const std::vector<LayerTiles> net{l, l};

  PlanOptions o;
  ModePlan p = plan_tile_modes(net, m, o);
  ASSERT_EQ(p.layers.size(), 2u);
  EXPECT_EQ(p.layers[0].tiles[0], std::vector<int32_t>{});
  EXPECT_EQ(p.layers[0].tiles[1], std::vector<int32_t>{1});
  EXPECT_EQ(p.layers[0].tiles[2], (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(p.layers[0].fallback, (std::vector<TileMode>{TileMode::Sparse, TileMode::Sparse}));
  EXPECT_NEAR(p.layers[0].embedded_gain_ns, 2 * (132 - 98), 1e-9);
  EXPECT_EQ(p.count(), (std::array<int64_t, kTileModes>{0, 2, 4}));
  EXPECT_EQ(p.summary(), "sparse 0, tensor 2, embedded 4");
  p.layers[1].drop_embedded();
  p.embedded_fallbacks = 2;
  EXPECT_EQ(p.layers[1].tiles[0], (std::vector<int32_t>{0, 2}));
  EXPECT_TRUE(p.layers[1].tiles[2].empty());
  EXPECT_EQ(p.summary(), "sparse 2, tensor 2, embedded 2 (2 planned embedded fell back: compile budget or deadline)");

  o.embedded_allowed = false;
  EXPECT_EQ(plan_tile_modes(net, m, o).count(), (std::array<int64_t, kTileModes>{4, 2, 0}));
  o.tensor_allowed = false;
  EXPECT_EQ(plan_tile_modes(net, m, o).count(), (std::array<int64_t, kTileModes>{6, 0, 0}));
  o.policy = ModePolicy::Tensor;
  EXPECT_THROW(plan_tile_modes(net, m, o), std::invalid_argument);
  o = PlanOptions{};
  o.policy = ModePolicy::Tensor;
  EXPECT_EQ(plan_tile_modes(net, m, o).count(), (std::array<int64_t, kTileModes>{0, 6, 0}));
  o.policy = ModePolicy::Embedded;
  const ModePlan e = plan_tile_modes(net, m, o);
  EXPECT_EQ(e.count(), (std::array<int64_t, kTileModes>{0, 0, 6}));
  EXPECT_EQ(e.layers[0].fallback, (std::vector<TileMode>{TileMode::Sparse, TileMode::Tensor, TileMode::Sparse}));
  o.policy = ModePolicy::Sparse;
  EXPECT_EQ(plan_tile_modes(net, m, o).count(), (std::array<int64_t, kTileModes>{6, 0, 0}));

  // A large tile whose 32 columns are one (uniform): embedded and sparse both compute 64 multiply-adds (146 and 164
  // against 1204.8 for tensor), embedded wins, sparse is its fallback.
  LayerTiles one = l;
  one.distinct = {4, 1, 4};
  const ModePlan q = plan_tile_modes({one}, m, PlanOptions{});
  EXPECT_EQ(q.layers[0].tiles[2], (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(q.layers[0].fallback, (std::vector<TileMode>{TileMode::Sparse, TileMode::Sparse, TileMode::Sparse}));
  EXPECT_EQ(mode_nnz(TileMode::Sparse, tile_shape(one, 1)), 64);
  EXPECT_EQ(mode_nnz(TileMode::Tensor, tile_shape(one, 1)), 2048);
  EXPECT_EQ(mode_nnz(TileMode::Sparse, tile_shape(one, 0)), 32);
  // No sums shared: the uniform tile costs its 2048 multiply-adds (sparse 2148, tensor 1204.8) and is never embedded,
  // forced or not; the others, without equal columns, still are.
  PlanOptions apart;
  apart.share_equal_sums = false;
  const ModePlan r = plan_tile_modes({one}, m, apart);
  EXPECT_EQ(r.layers[0].tiles[1], std::vector<int32_t>{1});
  EXPECT_EQ(r.layers[0].tiles[2], (std::vector<int32_t>{0, 2}));
  apart.policy = ModePolicy::Embedded;
  EXPECT_EQ(plan_tile_modes({one}, m, apart).count(), (std::array<int64_t, kTileModes>{0, 1, 2}));

  // Nothing measured: every tile sparse.
  EXPECT_EQ(plan_tile_modes(net, CostModel{}, PlanOptions{}).count(), (std::array<int64_t, kTileModes>{6, 0, 0}));
  EXPECT_EQ(parse_mode_policy("tensor"), ModePolicy::Tensor);
  EXPECT_THROW(parse_mode_policy("dense"), std::invalid_argument);
}

// The uniform kernel loads one activation a run of inputs (TileShape::loads): the fit prices the sparse mode on its
// loads, and the planner, given a layer's runs, prices a uniform tile that way (only where its sums are shared).
TEST(TileModePlan, UniformTilesPricedOnTheirLoads) {
  const ModeCost sparse{true, 100, 10, 0.5};
  std::vector<TileTiming> ts;
  for (auto [k, loads] : {std::pair<int64_t, int64_t>{32, 32}, {32, 2}, {64, 4}, {16, 16}}) {
    TileTiming t;
    t.mode = TileMode::Sparse;
    t.shape = TileShape{k, 1, k, k, loads == k ? 0 : loads};
    t.tiles = 10;
    t.rows = 128;
    t.ns = 10 * sparse.predict_ns(loads, k);
    ts.push_back(t);
  }
  const CostModel fitted = CostModel::fit("test", ts, 0);
  ASSERT_TRUE(fitted.mode[0].measured);
  EXPECT_NEAR(fitted.mode[0].base_ns, 100, 1e-6);
  EXPECT_NEAR(fitted.mode[0].per_input_ns, 10, 1e-9);
  EXPECT_NEAR(fitted.mode[0].per_nnz_ns, 0.5, 1e-9);

  LayerTiles l;   // one merged tile: 32 inputs, 1 output
  l.start = {0};
  l.width = {1};
  l.pitch = {1};
  l.blocks = {TileBlock{0, 32, 0}};
  l.block_ptr = {0, 1};
  l.distinct = {1};
  CostModel m;
  m.mode[0] = sparse;                            // 436 loading all 32 inputs, 136 loading 2 runs
  m.mode[2] = ModeCost{true, 150, 0, 2.0};       // 214
  const std::vector<std::vector<int32_t>> runs{{2}};
  EXPECT_EQ(plan_tile_modes({l}, m, PlanOptions{}).count(), (std::array<int64_t, kTileModes>{0, 0, 1}));
  EXPECT_EQ(plan_tile_modes({l}, m, PlanOptions{}, &runs).count(), (std::array<int64_t, kTileModes>{1, 0, 0}));
  PlanOptions apart;   // no sums shared: the table-driven kernel loads every input
  apart.share_equal_sums = false;
  EXPECT_EQ(plan_tile_modes({l}, m, apart, &runs).count(), (std::array<int64_t, kTileModes>{0, 0, 1}));
  const std::vector<std::vector<int32_t>> misshaped{{2, 2}};
  EXPECT_THROW(plan_tile_modes({l}, m, PlanOptions{}, &misshaped), std::invalid_argument);
}

}  // namespace
}  // namespace snk::gc
