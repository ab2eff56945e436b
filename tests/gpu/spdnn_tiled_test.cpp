// tests/gpu/spdnn_tiled_test.cpp: the tiled GPU SpDNN engine (graphchallenge/engine/tiled_gpu.hpp) against the truth.
//
// On the official 1024 x 120 network and the 1,200 official images the engine must give exactly the 19 official
// categories, twice on one engine. On generated RadiX-Net networks (1024 and 4096 neurons: 16 x 16 and 32 x 32 blocks,
// the specialised kernels) and on irregular random networks (one-member classes: the general kernel) it must give the
// float64 reference's categories, excusing only rows within 1e-3 of the ReLU's threshold there; inputs with empty rows,
// a network where every row dies, no layers at all, and a column class wider than a thread block's slice are covered
// too, with the sums in FP64 (the default) and, on the generated and irregular networks, in FP32; three inputs whose
// reference trajectory passes within FP32's rounding of the threshold must keep their category with FP64 sums. Each
// tile mode (sparse, tensor, embedded) forced on every tile meets the same reference, sparse and embedded bitwise
// alike; on the official data the tensor mode, a part-embedded network and the cost model's choice give the official
// categories; the cost model calibrates and caches; inputs taken in several passes, and uniform tiles chained by the
// blocks they share, give the categories of one pass and of tiles on their own. Skips with a printed reason where no
// GPU is present.
#include <gtest/gtest.h>

#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/tiled_gpu.hpp"
#include "gc_test_util.hpp"   // tests/graphchallenge: case_seed
#include "io/generator.hpp"
#include "io/reference.hpp"
#include "io/rows.hpp"
#include "plan/tiles.hpp"
#include "spdnn_test_util.hpp"

namespace snk::gc {
namespace {

#define REQUIRE_GPU() REQUIRE_GPU_FOR("tiled GPU engine")

// A new empty folder (empty string where none could be made).
std::string fresh_folder() {
  char templ[] = "/tmp/snack-tiled-test-XXXXXX";
  const char* d = ::mkdtemp(templ);
  return std::string(d ? d : "");
}

// The tests' cache folder (the cost model and embedded kernels): $SNACK_TILED_TEST_CACHE where set, so that a run
// under a sanitizer reads the calibration a plain run left there instead of repeating it (scripts/run-gpu-tests.sh
// sets it); else a scratch folder for this process. Either way the tests neither read nor fill the user's cache.
const std::string& tests_cache() {
  static const std::string dir = [] {
    const char* given = std::getenv("SNACK_TILED_TEST_CACHE");
    return given && *given ? std::string(given) : fresh_folder();
  }();
  return dir;
}

TiledOptions options(TiledAccumulation sums, ModePolicy modes, double compile_budget_s = 600) {
  TiledOptions o;
  o.accumulation = sums;
  o.modes = modes;
  o.cache_dir = tests_cache();
  o.compile_budget_s = compile_budget_s;
  return o;
}

// The engine's default options, but with the scratch cache: every engine of these tests calibrates (or reads) its cost
// model there, so the one calibration of each kind of sums in this process is the one that fills the scratch cache.
TiledOptions defaults() {
  TiledOptions o;
  o.cache_dir = tests_cache();
  return o;
}

// 64 neurons whose first 48 inputs all reach every output (one 48 x 64 block: a column class wider than a thread
// block's slice) and the last 16 none, `layers` times the same layer, bias -0.1.
Network wide_class_network(int64_t layers, std::mt19937_64& rng) {
  Network net;
  net.neurons = 64;
  net.bias = -0.1f;
  CsrMatrix w;
  w.nrows = w.ncols = 64;
  std::uniform_real_distribution<float> v(-0.05f, 0.1f);
  for (int64_t i = 0; i < 64; ++i) {
    for (int32_t j = 0; j < 64 && i < 48; ++j) {
      w.col.push_back(j);
      w.val.push_back(v(rng));
    }
    w.row_ptr.push_back(static_cast<int64_t>(w.col.size()));
  }
  net.layers.assign(static_cast<size_t>(layers), w);
  return net;
}

// The tiles the engine plans by default: each layer's, with the equal outputs of uniform tiles merged.
MergedNetwork merged_tiles(const TiledNetwork& tn) {
  std::vector<LayerTiles> lt;
  for (const TiledLayer& layer : tn.layers) lt.push_back(layer_tiles(layer, TiledGpuEngine::kMaxClassColumns));
  return merge_equal_outputs(tn, lt);
}
int64_t tile_count(const MergedNetwork& m) {
  int64_t n = 0;
  for (const LayerTiles& t : m.tiles) n += t.tiles();
  return n;
}

int64_t total_tiles(const ModePlan& p) {
  const auto n = p.count();
  return n[0] + n[1] + n[2];
}

TEST(TiledGpuEngine, OfficialSubset) {
  REQUIRE_GPU();
  Dataset d;
  std::string why;
  if (!load_official_subset(d, why)) GTEST_SKIP() << "official data unavailable: " << why;
  ASSERT_EQ(d.categories.size(), 19u);
  TiledGpuEngine engine(tile_network(d.network), 0, defaults());
  TiledGpuTimings t;
  EXPECT_EQ(engine.infer(d.inputs, &t), d.categories);
  ASSERT_EQ(t.live_rows_per_layer.size(), 120u);
  EXPECT_EQ(t.live_rows_per_layer.back(), 19);
  EXPECT_GT(t.compactions, 0);
  // The rows each layer computed: all at first, never more than the layer before, never fewer than were alive after
  // it (the compactions lag a layer behind the counts, and drop only dead rows).
  ASSERT_EQ(t.computed_rows_per_layer.size(), 120u);
  EXPECT_EQ(t.computed_rows_per_layer.front(), d.inputs.nrows);
  for (size_t l = 1; l < 120; ++l) {
    EXPECT_LE(t.computed_rows_per_layer[l], t.computed_rows_per_layer[l - 1]) << "layer " << l + 1;
    EXPECT_GE(t.computed_rows_per_layer[l], t.live_rows_per_layer[l - 1]) << "layer " << l + 1;
  }
  EXPECT_LT(t.computed_rows_per_layer.back(), d.inputs.nrows);
  EXPECT_EQ(engine.infer(d.inputs), d.categories);
  // The binary images as their pattern (no values uploaded): the same categories.
  const std::optional<CsrMatrix> pattern = binary_pattern(d.inputs);
  ASSERT_TRUE(pattern.has_value()) << "the official images are binary";
  EXPECT_EQ(engine.infer(*pattern), d.categories);
  std::printf("[tiled] official subset: %zu categories, %lld compactions, layers %.3f ms\n", d.categories.size(),
              static_cast<long long>(t.compactions), t.layers_s * 1e3);
}

TEST(TiledGpuEngine, GeneratedAndIrregularNetworksMatchTheHostReference) {
  REQUIRE_GPU();
  const uint64_t seed = test::case_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (SNACK_GC_SEED replays it)");
  struct Case { int64_t neurons, layers, rows; bool radix; };
  for (const Case c : {Case{1024, 40, 300, true}, Case{4096, 24, 200, true}, Case{3000, 6, 150, false}}) {
    std::mt19937_64 rng(seed);
    Network net = c.radix ? generate_network(c.neurons, c.layers, seed) : irregular_network(c.neurons, c.layers, -0.1f, rng);
    net.bias = -0.1f;
    CsrMatrix in = random_inputs(c.rows, c.neurons, 0.4, seed + 7);
    std::vector<double> margins;
    const auto want = reference_with_margins(net, in, margins);
    const std::string what = std::to_string(c.neurons) + " x " + std::to_string(c.layers) +
                             (c.radix ? " RadiX-Net" : " irregular");
    const TiledNetwork tn = tile_network(net);
    ASSERT_TRUE(TiledGpuEngine::can_run(tn)) << what;
    TiledGpuEngine engine(tn, 0, defaults());
    expect_categories(engine.infer(in), want, margins, what);
    expect_categories(TiledGpuEngine(tn, 0, options(TiledAccumulation::FP32, ModePolicy::Sparse)).infer(in), want, margins, what + ", FP32 sums");
    EXPECT_FALSE(want.empty()) << what;
    EXPECT_LT(static_cast<int64_t>(want.size()), c.rows) << what;
  }
}

// Uniform tiles chained by the blocks they share (TiledOptions::chain_shared_blocks): 16384 neurons, so that a layer's
// 128 segments and 3000 live rows give the chained kernel its grid. The same categories and live rows per layer as
// each tile on its own, FP64 and FP32, and the float64 reference's categories on the first 150 inputs.
TEST(TiledGpuEngine, ChainedTilesMatchTilesOnTheirOwn) {
  REQUIRE_GPU();
  const uint64_t seed = test::case_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (SNACK_GC_SEED replays it)");
  Network net = generate_network(16384, 12, seed);
  net.bias = -0.1f;
  const CsrMatrix in = random_inputs(3000, 16384, 0.2, seed + 3);
  std::vector<int64_t> first_rows(150);
  std::iota(first_rows.begin(), first_rows.end(), 0);
  const CsrMatrix head = rows_at(in, first_rows);
  std::vector<double> margins;
  const std::vector<int64_t> want = reference_with_margins(net, head, margins);
  const TiledNetwork tn = tile_network(net);
  for (const TiledAccumulation sums : {TiledAccumulation::FP64, TiledAccumulation::FP32}) {
    const std::string what = sums == TiledAccumulation::FP64 ? "FP64" : "FP32";
    TiledOptions o = options(sums, ModePolicy::Sparse);
    TiledGpuTimings alone, chained;
    o.chain_shared_blocks = false;
    const std::vector<int64_t> a = TiledGpuEngine(tn, 0, o).infer(in, &alone);
    o.chain_shared_blocks = true;
    const std::vector<int64_t> c = TiledGpuEngine(tn, 0, o).infer(in, &chained);
    EXPECT_EQ(alone.chained_launches, 0) << what;
    EXPECT_GT(chained.chained_launches, 0) << what << ": the chained kernel never ran";
    EXPECT_EQ(c, a) << what;
    EXPECT_EQ(chained.live_rows_per_layer, alone.live_rows_per_layer) << what;
    std::vector<int64_t> first;
    for (const int64_t r : c)
      if (r < 150) first.push_back(r);
    expect_categories(first, want, margins, what + ", first 150 inputs");
  }
}

// Three MNIST-made inputs of the benchmark's 1024-neuron network (seed 2019) that die at layer 27 in the float64
// reference, a neuron of theirs landing within FP32's rounding of the ReLU's threshold on the way: with its sums in
// FP64 (the default) the engine agrees with the reference at every depth; with FP32 sums it is only reported.
TEST(TiledGpuEngine, Fp64SumsKeepRowsNearTheThresholdExact) {
  REQUIRE_GPU();
  SNK_REQUIRE_MNIST();
  const CsrMatrix all = generate_inputs(load_mnist_digits(test::mnist_dir()), 1024);
  ASSERT_GT(all.nrows, 24521);
  const CsrMatrix in = rows_at(all, {2091, 4951, 24521});
  const Network net = generate_network(1024, 40, 2019);
  for (const int64_t depth : {int64_t{20}, int64_t{26}, int64_t{27}, int64_t{40}}) {
    Network prefix = net;
    prefix.layers.resize(static_cast<size_t>(depth));
    ReferenceOptions ro;
    const std::vector<int64_t> want = reference_infer(prefix, in, ro);
    const TiledNetwork tn = tile_network(prefix);
    // The default engine (its modes the cost model's, embedded layers compiled within its budget) at the full depth;
    // the shorter prefixes in the sparse mode, whose sums are the embedded mode's bit for bit and cost no compile.
    const TiledOptions o = depth == 40 ? defaults() : options(TiledAccumulation::FP64, ModePolicy::Sparse);
    const std::vector<int64_t> fp64 = TiledGpuEngine(tn, 0, o).infer(in);
    EXPECT_EQ(fp64, want) << depth << " layers";
    std::printf("[tiled] %lld layers: reference %zu of 3 alive, FP64 sums %zu, FP32 sums %zu\n",
                static_cast<long long>(depth), want.size(), fp64.size(),
                TiledGpuEngine(tn, 0, options(TiledAccumulation::FP32, ModePolicy::Sparse)).infer(in).size());
  }
}

TEST(TiledGpuEngine, EmptyRowsNoSurvivorsAndNoLayers) {
  REQUIRE_GPU();
  Network net = generate_network(1024, 12, 3);
  CsrMatrix in = random_inputs(90, 1024, 0.3, 5);
  // Every third row emptied.
  CsrMatrix holes;
  holes.nrows = in.nrows;
  holes.ncols = in.ncols;
  for (int64_t r = 0; r < in.nrows; ++r) {
    if (r % 3 != 0)
      for (int64_t k = in.row_ptr[r]; k < in.row_ptr[r + 1]; ++k) {
        holes.col.push_back(in.col[k]);
        holes.val.push_back(in.val[k]);
      }
    holes.row_ptr.push_back(static_cast<int64_t>(holes.col.size()));
  }
  std::vector<double> margins;
  const auto want = reference_with_margins(net, holes, margins);
  expect_categories(TiledGpuEngine(tile_network(net), 0, defaults()).infer(holes), want, margins, "every third row empty");
  Network dead = net;
  dead.bias = -100.0f;   // every neuron cut at the first layer
  EXPECT_TRUE(TiledGpuEngine(tile_network(dead), 0, defaults()).infer(holes).empty());
  Network none = net;
  none.layers.clear();
  std::vector<int64_t> non_empty;
  for (int64_t r = 0; r < holes.nrows; ++r)
    if (holes.row_ptr[r + 1] > holes.row_ptr[r]) non_empty.push_back(r);
  EXPECT_EQ(TiledGpuEngine(tile_network(none), 0, defaults()).infer(holes), non_empty);
}

// Inputs in passes (TiledOptions::rows_per_pass; 300 of 1000 rows: the last pass short) give the categories of one pass
// and its live rows per layer, in FP64 and FP32; so do no layers; a negative size is refused.
TEST(TiledGpuEngine, InputsInPassesMatchOnePass) {
  REQUIRE_GPU();
  const uint64_t seed = test::case_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (SNACK_GC_SEED replays it)");
  const Network net = generate_network(1024, 30, seed);
  const CsrMatrix in = random_inputs(1000, 1024, 0.3, seed + 1);
  const TiledNetwork tn = tile_network(net);
  std::vector<double> margins;
  const std::vector<int64_t> want = reference_with_margins(net, in, margins);
  for (const TiledAccumulation sums : {TiledAccumulation::FP64, TiledAccumulation::FP32}) {
    const std::string what = sums == TiledAccumulation::FP64 ? "FP64" : "FP32";
    TiledOptions o = options(sums, ModePolicy::Sparse);
    TiledGpuTimings one, four;
    const std::vector<int64_t> whole = TiledGpuEngine(tn, 0, o).infer(in, &one);
    o.rows_per_pass = 300;
    const std::vector<int64_t> parts = TiledGpuEngine(tn, 0, o).infer(in, &four);
    EXPECT_EQ(one.passes, 1) << what;
    EXPECT_EQ(four.passes, 4) << what;
    EXPECT_EQ(parts, whole) << what;
    EXPECT_EQ(four.live_rows_per_layer, one.live_rows_per_layer) << what;
    expect_categories(parts, want, margins, what + ", 4 passes");
  }
  EXPECT_FALSE(want.empty());
  Network none = net;
  none.layers.clear();
  std::vector<int64_t> non_empty;
  for (int64_t r = 0; r < in.nrows; ++r)
    if (in.row_ptr[r + 1] > in.row_ptr[r]) non_empty.push_back(r);
  TiledOptions o = defaults();
  o.rows_per_pass = 64;
  EXPECT_EQ(TiledGpuEngine(tile_network(none), 0, o).infer(in), non_empty);
  o.rows_per_pass = -1;
  EXPECT_THROW(TiledGpuEngine(tn, 0, o), std::invalid_argument);
}

// A column class wider than a thread block's slice (64 columns with equal rows: one block of 48 x 64 beside empty
// rows) and a positive bias, which can_run refuses; inputs of the wrong width are an error.
TEST(TiledGpuEngine, WideClassesPositiveBiasAndBadInputs) {
  std::mt19937_64 rng(4);
  const Network net = wide_class_network(3, rng);
  const TiledNetwork tn = tile_network(net);
  EXPECT_EQ(tile_stats(tn.layers[0]).max_cols, 64);
  Network positive = net;
  positive.bias = 0.5f;
  std::string why;
  EXPECT_FALSE(TiledGpuEngine::can_run(tile_network(positive), &why));
  EXPECT_NE(why.find("positive bias"), std::string::npos) << why;
  EXPECT_THROW(TiledGpuEngine{tile_network(positive)}, std::invalid_argument);
  REQUIRE_GPU();
  const CsrMatrix in = random_inputs(70, 64, 0.6, 9);
  std::vector<double> margins;
  const auto want = reference_with_margins(net, in, margins);
  TiledGpuEngine engine(tn, 0, defaults());
  expect_categories(engine.infer(in), want, margins, "a 64-column class");
  CsrMatrix wrong;
  wrong.nrows = 1;
  wrong.ncols = 32;
  wrong.row_ptr = {0, 0};
  EXPECT_THROW(engine.infer(wrong), std::invalid_argument);
  CsrMatrix values_short = in;   // one value fewer than stored entries: neither values nor a pattern
  ASSERT_FALSE(values_short.val.empty());
  values_short.val.pop_back();
  EXPECT_THROW(engine.infer(values_short), std::invalid_argument);
  CsrMatrix bad_pointers = in;   // row pointers that end past the entries stored
  bad_pointers.row_ptr.back() += 1;
  EXPECT_THROW(engine.infer(bad_pointers), std::invalid_argument);
  bad_pointers.row_ptr.pop_back();   // one pointer short of the rows
  EXPECT_THROW(engine.infer(bad_pointers), std::invalid_argument);
}

// Each tile mode forced on every tile, against the float64 reference: sparse and embedded (the same arithmetic) with
// FP64 and FP32 sums, tensor (FP64 tensor cores) with FP64 sums, on RadiX-Net networks (16 x 16 and 32 x 32 blocks), an
// irregular one (one-member classes: tiles of one column) and one with a 64-column class (two 32-column slices).
// Sparse and embedded must agree bitwise: the same categories and the same live rows after every layer. The RadiX-Net
// tiles are uniform (all weights alike: the sparse mode's one-sum kernel, their outputs merged into one value), the
// others not; with the merge off (every output stored) the results are the same bits. The 4096-neuron layers are too
// large for one embedded kernel and must fall back to sparse whole.
TEST(TiledGpuEngine, EveryModeMatchesTheHostReference) {
  REQUIRE_GPU();
  const uint64_t seed = test::case_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (SNACK_GC_SEED replays it)");
  struct Case { int64_t neurons, layers, rows; int kind; };   // kind 0 RadiX, 1 irregular, 2 a 64-column class
  for (const Case c : {Case{1024, 6, 300, 0}, Case{4096, 3, 200, 0}, Case{600, 3, 150, 1}, Case{64, 3, 70, 2}}) {
    std::mt19937_64 rng(seed);
    Network net;
    if (c.kind == 0) {
      net = generate_network(c.neurons, c.layers, seed);
    } else if (c.kind == 1) {
      net = irregular_network(c.neurons, c.layers, -0.1f, rng);
    } else {
      net = wide_class_network(c.layers, rng);
    }
    net.bias = -0.1f;
    const CsrMatrix in = random_inputs(c.rows, c.neurons, 0.4, seed + 7);
    std::vector<double> margins;
    const auto want = reference_with_margins(net, in, margins);
    const TiledNetwork tn = tile_network(net);
    const std::string what = std::to_string(c.neurons) + " x " + std::to_string(c.layers) +
                             (c.kind == 0 ? " RadiX-Net" : c.kind == 1 ? " irregular" : " 64-column class");
    for (const TiledAccumulation sums : {TiledAccumulation::FP64, TiledAccumulation::FP32}) {
      const std::string w = what + (sums == TiledAccumulation::FP64 ? ", FP64 sums" : ", FP32 sums");
      TiledGpuEngine sparse(tn, 0, options(sums, ModePolicy::Sparse));
      TiledGpuEngine embedded(tn, 0, options(sums, ModePolicy::Embedded));
      ASSERT_EQ(sparse.plan().count()[0], total_tiles(sparse.plan())) << w;
      // A layer of more multiply-adds than one embedded kernel may hold (the 4096-neuron layers) falls back whole.
      // (The engine merges equal outputs first: a layer's merged tiles are what its code holds.)
      const MergedNetwork merged = merged_tiles(tn);
      const LayerTiles& first = merged.tiles.front();
      int64_t first_nnz = 0;
      for (int64_t t = 0; t < first.tiles(); ++t) first_nnz += first.nnz(t);
      const bool fits = first_nnz <= 65536;
      EXPECT_EQ(embedded.plan().count()[2], fits ? total_tiles(embedded.plan()) : 0) << w << ": " << embedded.plan().summary();
      EXPECT_EQ(embedded.plan().embedded_fallbacks, fits ? 0 : total_tiles(embedded.plan())) << w;
      TiledGpuTimings ts, te;
      const auto got = sparse.infer(in, &ts);
      expect_categories(got, want, margins, w + ", sparse");
      EXPECT_EQ(embedded.infer(in, &te), got) << w << ": embedded against sparse";
      EXPECT_EQ(te.live_rows_per_layer, ts.live_rows_per_layer) << w;
      TiledOptions every = options(sums, ModePolicy::Sparse);   // every output computed and stored: the same bits
      every.merge_equal_outputs = false;
      TiledGpuTimings tw;
      EXPECT_EQ(TiledGpuEngine(tn, 0, every).infer(in, &tw), got) << w << ": every output against merged";
      EXPECT_EQ(tw.live_rows_per_layer, ts.live_rows_per_layer) << w;
      // The activations moved: fewer where the RadiX-Net's equal outputs are held once, never more.
      EXPECT_GT(ts.activation_bytes, 0) << w;
      EXPECT_LE(ts.activation_bytes, tw.activation_bytes) << w;
      if (c.kind == 0) EXPECT_LT(ts.activation_bytes, tw.activation_bytes) << w;
      if (sums == TiledAccumulation::FP64) {
        TiledGpuEngine tensor(tn, 0, options(sums, ModePolicy::Tensor));
        ASSERT_EQ(tensor.plan().count()[1], total_tiles(tensor.plan())) << w;
        expect_categories(tensor.infer(in), want, margins, w + ", tensor");
      } else {
        EXPECT_THROW(TiledGpuEngine(tn, 0, options(sums, ModePolicy::Tensor)), std::invalid_argument) << w;
      }
    }
  }
}

// The precision test of the tensor mode on the official data: the FP64 tensor cores give exactly the 19 official
// categories, as does a network whose layers are part embedded (a compile budget too small for all 120: the rest fall
// back to the sparse kernel), and the cost model's own choice.
TEST(TiledGpuEngine, OfficialSubsetInEveryMode) {
  REQUIRE_GPU();
  Dataset d;
  std::string why;
  if (!load_official_subset(d, why)) GTEST_SKIP() << "official data unavailable: " << why;
  const TiledNetwork tn = tile_network(d.network);
  TiledGpuEngine tensor(tn, 0, options(TiledAccumulation::FP64, ModePolicy::Tensor));
  EXPECT_EQ(tensor.infer(d.inputs), d.categories);
  TiledGpuEngine part(tn, 0, options(TiledAccumulation::FP64, ModePolicy::Embedded, 5.0));
  const auto n = part.plan().count();
  std::printf("[tiled] official subset, embedded within 5 s of compiles: %s\n", part.plan().summary().c_str());
  EXPECT_GT(n[2], 0) << part.plan().summary();
  const int64_t tiles = tile_count(merged_tiles(tn));   // as the engine plans them
  EXPECT_EQ(n[0] + n[2], tiles);
  EXPECT_EQ(part.plan().embedded_fallbacks, n[0]);
  EXPECT_EQ(part.infer(d.inputs), d.categories);
  TiledGpuEngine chosen(tn, 0, options(TiledAccumulation::FP64, ModePolicy::Auto, 5.0));
  std::printf("[tiled] official subset, the cost model's choice: %s\n", chosen.plan().summary().c_str());
  EXPECT_EQ(total_tiles(chosen.plan()), tiles);
  EXPECT_EQ(chosen.infer(d.inputs), d.categories);
}

// The cost model: calibrated on this device (sparse measured always, tensor with FP64 sums, embedded where NVRTC
// compiles), written to the cache as text that parses back to the same model.
TEST(TiledCostModel, CalibratesAndCaches) {
  REQUIRE_GPU();
  // A folder of its own (it counts the files), and fewer rows than the default: a model of its own key, so it is
  // calibrated here whatever this process calibrated before, and soon enough under a sanitizer.
  const std::string cache = fresh_folder();
  ASSERT_FALSE(cache.empty());
  for (const TiledAccumulation sums : {TiledAccumulation::FP64, TiledAccumulation::FP32}) {
    TiledOptions o = options(sums, ModePolicy::Auto);
    o.cache_dir = cache;
    o.calibration_rows = 1024;
    const CostModel m = tile_cost_model(0, sums, o);
    std::printf("[tiled] cost model %s:\n%s", m.key.c_str(), m.serialize().c_str());
    EXPECT_TRUE(m.mode[0].measured);
    EXPECT_EQ(m.mode[1].measured, sums == TiledAccumulation::FP64);
    EXPECT_TRUE(m.mode[2].measured);
    EXPECT_GT(m.compile_ns_per_nnz, 0);
    EXPECT_NE(m.key.find(sums == TiledAccumulation::FP64 ? "fp64" : "fp32"), std::string::npos);
    EXPECT_NE(m.key.find("rows-1024"), std::string::npos) << "a calibration over other rows has a key of its own";
    // The cache holds one model file per kind of sums calibrated so far; this one's parses back to the same model.
    const std::string dir = cache + "/tile-cost";
    int files = 0, same = 0;
    if (DIR* d = ::opendir(dir.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.') continue;
        ++files;
        std::ifstream f(dir + "/" + e->d_name);
        std::stringstream text;
        text << f.rdbuf();
        CostModel back;
        std::string why;
        if (CostModel::parse(text.str(), back, why) && back.key == m.key && back.serialize() == m.serialize()) ++same;
      }
      ::closedir(d);
    }
    EXPECT_EQ(files, sums == TiledAccumulation::FP64 ? 1 : 2);
    EXPECT_EQ(same, 1);
    EXPECT_EQ(tile_cost_model(0, sums, o).serialize(), m.serialize()) << "the second call must reuse the first";
  }
  for (const int64_t rows : {int64_t{0}, int64_t{100}, int64_t{-128}, TiledOptions::kMostCalibrationRows + 128}) {
    TiledOptions o = options(TiledAccumulation::FP64, ModePolicy::Auto);
    o.cache_dir = cache;
    o.calibration_rows = rows;
    EXPECT_THROW(tile_cost_model(0, TiledAccumulation::FP64, o), std::invalid_argument) << rows << " rows";
  }
}

}  // namespace
}  // namespace snk::gc
