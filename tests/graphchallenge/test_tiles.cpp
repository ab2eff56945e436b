// tests/graphchallenge/test_tiles.cpp: the tiled form of SpDNN layers (graphchallenge/plan/tiles.hpp) from the matrix
// alone: on the official 1024-neuron layers and on generated 4096 / 16384 / 65536-neuron layers (later RadiX blocks
// included, whose rows and columns are randomly permuted) every layer falls into 16 x 16 dense blocks, two per row
// class (32 x 32, one per class, at each RadiX block's last stage); a random sparse matrix gets one-member classes; every layer goes back to itself
// (untile), with rows whose entries differ only in value split into no new class; and inference on the tiled network
// gives reference_infer's categories (official subset, generated networks).
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "gc_test_util.hpp"
#include "io/generator.hpp"
#include "io/readers.hpp"
#include "io/reference.hpp"
#include "plan/tiles.hpp"

namespace snk::gc {
namespace {

// A RadiX-Net layer: 16 x 16 dense blocks, two per class, except the stride-M/2 stage of each RadiX block (rows i and
// i + M/2 of the base pattern share their two columns), which is 32 x 32 blocks, one per class. Either way every row
// meets 32 columns and every entry lies in a block of 16 x 16 or more.
void expect_radix_tiles(const CsrMatrix& w, const std::string& what) {
  const TiledLayer t = tile_layer(w);
  const TileStats s = tile_stats(t, 16);
  const int64_t n = w.nrows;
  const int64_t side = s.max_rows;
  EXPECT_TRUE(side == 16 || side == 32) << what << ": blocks of " << s.max_rows << " rows";
  EXPECT_EQ(s.min_rows, side) << what;
  EXPECT_EQ(s.min_cols, side) << what;
  EXPECT_EQ(s.max_cols, side) << what;
  EXPECT_EQ(s.row_classes, n / side) << what;
  EXPECT_EQ(s.col_classes, n / side) << what;
  EXPECT_EQ(s.blocks, (32 / side) * n / side) << what;
  EXPECT_DOUBLE_EQ(s.share_in_large_blocks, 1.0) << what;
  for (int64_t c = 0; c < t.row_classes(); ++c) EXPECT_EQ(t.block_ptr[c + 1] - t.block_ptr[c], 32 / side) << what;
  EXPECT_TRUE(untile(t) == w) << what << ": untile does not give the layer back";
}

TEST(Tiles, OfficialLayersAreDenseBlocks) {
  SNK_REQUIRE_OFFICIAL();
  const Network& net = test::official_network();
  for (size_t l = 0; l < net.layers.size(); l += 7) expect_radix_tiles(net.layers[l], "official layer " + std::to_string(l + 1));
}

TEST(Tiles, GeneratedLayersOfEverySizeAreDenseBlocks) {
  for (int64_t n : {int64_t{4096}, int64_t{16384}, int64_t{65536}}) {
    const int64_t d = radix_block_layers(n);
    for (int64_t layer : {int64_t{0}, d - 1, d + 1, 5 * d + 3, 6 * d - 1})   // the first RadiX block, permuted later ones
      expect_radix_tiles(generate_radix_layer(n, layer, 11), std::to_string(n) + " layer " + std::to_string(layer + 1));
  }
}

TEST(Tiles, RandomMatrixGetsOneMemberClassesAndComesBack) {
  std::mt19937_64 rng(std::random_device{}());
  CsrMatrix w;
  w.nrows = 300;
  w.ncols = 200;
  std::uniform_real_distribution<float> v(-1.0f, 1.0f);
  std::bernoulli_distribution on(0.05);
  for (int64_t i = 0; i < w.nrows; ++i) {
    for (int32_t j = 0; j < w.ncols; ++j)
      if (i % 10 != 9 && on(rng)) {
        w.col.push_back(j);
        w.val.push_back(v(rng));
      }
    w.row_ptr.push_back(static_cast<int64_t>(w.col.size()));
  }
  const TiledLayer t = tile_layer(w);
  EXPECT_TRUE(untile(t) == w);
  EXPECT_EQ(t.nnz(), w.nnz());
  // Every non-empty row its own class here (equal random rows of 10 entries in 200 columns are not drawn), the empty
  // rows one class.
  std::set<std::vector<int32_t>> distinct;
  for (int64_t i = 0; i < w.nrows; ++i)
    distinct.insert(std::vector<int32_t>(w.col.begin() + w.row_ptr[i], w.col.begin() + w.row_ptr[i + 1]));
  EXPECT_EQ(t.row_classes(), static_cast<int64_t>(distinct.size()));
  // Rows with equal columns and different values share a class: the blocks are patterns, the values free.
  CsrMatrix twin;
  twin.nrows = 4;
  twin.ncols = 6;
  twin.row_ptr = {0, 3, 6, 9, 9};
  twin.col = {0, 2, 5, 0, 2, 5, 1, 3, 4};
  twin.val = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const TiledLayer tt = tile_layer(twin);
  EXPECT_EQ(tt.row_classes(), 3);   // {0, 1}, {2}, {3} (empty)
  EXPECT_EQ(tt.col_classes(), 2);   // {0, 2, 5}, {1, 3, 4}
  EXPECT_EQ(tt.blocks(), 2);
  EXPECT_TRUE(untile(tt) == twin);
  CsrMatrix bad = twin;
  bad.col[1] = 9;
  EXPECT_THROW(tile_layer(bad), std::invalid_argument);
}

TEST(Tiles, TiledInferenceGivesTheReferenceCategories) {
  SNK_REQUIRE_OFFICIAL();
  const TiledNetwork tn = tile_network(test::official_network());
  const CsrMatrix y = read_inputs(test::official_dir() + "/sparse-images-1024_subset.mtx", 1024);
  EXPECT_EQ(tiled_infer(tn, y), test::official_subset_categories());
}

TEST(Tiles, TiledInferenceOnGeneratedNetworks) {
  SNK_REQUIRE_MNIST();
  const MnistDigits digits = load_mnist_digits(test::mnist_dir());
  for (int64_t n : {int64_t{1024}, int64_t{4096}}) {
    const Network net = generate_network(n, 48, 5);
    InputOptions io;
    io.count = 300;
    const CsrMatrix y = generate_inputs(digits, n, io);
    std::vector<double> margins;
    ReferenceOptions ro;
    ro.margins = &margins;
    const std::vector<int64_t> want = reference_infer(net, y, ro), got = tiled_infer(tile_network(net), y);
    // A row whose margin is within double rounding of the threshold may go either way; none is expected here.
    std::set<int64_t> a(want.begin(), want.end()), b(got.begin(), got.end());
    for (int64_t r = 0; r < y.nrows; ++r)
      if (a.count(r) != b.count(r)) EXPECT_LT(margins[r], 1e-9) << n << " neurons, row " << r << " differs";
    EXPECT_FALSE(want.empty()) << n << ": no row survives, the comparison says little";
    std::printf("[tiles] %lld neurons x 48 layers, 300 inputs: %zu categories, tiled %zu\n", static_cast<long long>(n),
                want.size(), got.size());
  }
}

}  // namespace
}  // namespace snk::gc
