// tests/layers/test_dst.cpp: prune-and-regrow (layers/dst.hpp) on every usable backend, SET's rule: the non-zero count stays, exactly
// round(zeta * nnz) weights are pruned and they are the smallest |w| (ties included), the grown weights are zero at
// positions that held none, no position repeats, the optimizer's velocity follows its connections, and bad zeta is
// rejected without a change; SNACK's rule prunes the smallest signed values; RigL grows where the dense gradient
// (made in blocks) is largest among free positions; its cosine schedule; ERK densities keep the global density.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "dst.hpp"
#include "layer_test_util.hpp"

namespace {

using snk::Index;
using snk::layers::SgdMomentum;
using snk::layers::PruneRule;
using snk::layers::SparseLinear;
using layer_test::entries;
using layer_test::random_batch;
using layer_test::rng;

TEST(SetRewiring, PrunesTheSmallestAndGrowsZerosElsewhere) {
  for (const std::string& backend : snk::available_backends()) {
    snk::BackendScope scope(backend);
    SparseLinear layer(40, 30, 0.2, rng()());
    SgdMomentum sgd(0.05f, 0.9f);
    layer.backward(random_batch(6, 40), random_batch(6, 30));
    sgd.step(layer);   // the velocity now has W's pattern and non-zero values
    // Two rounds: the second, right after the first, meets the zeros the first grew (more ties at |w| = 0 than it
    // prunes: they are broken by position).
    for (int round = 0; round < 2; ++round) {
      const double zeta = round == 0 ? 0.3 : 0.2;
      const Index n = layer.weight().nvals(), k = static_cast<Index>(std::llround(zeta * static_cast<double>(n)));
      const auto weights = entries(layer.weight());
      const auto result = snk::layers::prune_and_regrow(layer, zeta, PruneRule::SmallestMagnitude, rng()(), &sgd);
      const auto after = entries(layer.weight());
      const std::string at = backend + ", round " + std::to_string(round);
      EXPECT_EQ(result.pruned, k) << at;
      EXPECT_EQ(result.grown, k) << at;
      ASSERT_EQ(after.size(), n) << at << ": the non-zero count must stay";
      double largest_pruned = 0, smallest_kept = 1e300;
      Index kept = 0, grown = 0;
      for (const auto& [pos, w] : weights) {
        if (after.count(pos)) {
          EXPECT_EQ(after.at(pos), w) << at << ": a kept weight changed";
          smallest_kept = std::min(smallest_kept, std::fabs(w));
          ++kept;
        } else {
          largest_pruned = std::max(largest_pruned, std::fabs(w));
        }
      }
      for (const auto& [pos, w] : after)
        if (!weights.count(pos)) {
          EXPECT_EQ(w, 0.0) << at << ": a grown weight must start at zero";
          ++grown;
        }
      EXPECT_EQ(kept, n - k) << at;
      EXPECT_EQ(grown, k) << at << ": grown where no weight was";
      EXPECT_LE(largest_pruned, smallest_kept) << at << ": a pruned |w| exceeds a kept one";
      if (round == 1) {
        // The velocity follows: one more step moves a grown weight by its gradient alone (its velocity restarts at
        // zero).
        layer.backward(random_batch(6, 40), random_batch(6, 30));
        const auto grad = entries(layer.weight_grad());
        const auto w0 = entries(layer.weight());
        sgd.step(layer);
        const auto w1 = entries(layer.weight());
        for (const auto& [pos, w] : w0)
          if (!weights.count(pos)) {
            const double g = grad.count(pos) ? grad.at(pos) : 0.0;
            EXPECT_NEAR(w1.at(pos), w - 0.05 * g, 1e-6) << at << ": a grown weight's velocity must start at zero";
          }
      }
    }
  }
}

TEST(SetRewiring, ZetaZeroChangesNothingAndBadZetaIsRejected) {
  SparseLinear layer(12, 9, 0.5, rng()());
  const auto before = entries(layer.weight());
  const auto r = snk::layers::prune_and_regrow(layer, 0.0, PruneRule::SmallestMagnitude, 1);
  EXPECT_EQ(r.pruned, 0u);
  EXPECT_EQ(entries(layer.weight()), before);
  for (double zeta : {-0.1, 1.5}) {
    try {
      snk::layers::prune_and_regrow(layer, zeta, PruneRule::SmallestMagnitude, 1);
      FAIL() << "zeta " << zeta << " must be rejected";
    } catch (const snk::Error& e) {
      EXPECT_EQ(e.info(), snk::Info::InvalidValue);
    }
    EXPECT_EQ(entries(layer.weight()), before);
  }
}

TEST(SnackRule, PrunesTheSmallestSignedValues) {
  for (const std::string& backend : snk::available_backends()) {
    snk::BackendScope scope(backend);
    SparseLinear layer(30, 20, 0.3, rng()());
    const auto weights = entries(layer.weight());
    const auto r = snk::layers::prune_and_regrow(layer, 0.25, PruneRule::SmallestValue, rng()());
    const auto after = entries(layer.weight());
    ASSERT_EQ(after.size(), weights.size()) << backend;
    double largest_pruned = -1e300, smallest_kept = 1e300;
    Index pruned = 0;
    for (const auto& [pos, w] : weights) {
      if (after.count(pos)) smallest_kept = std::min(smallest_kept, w);
      else {
        largest_pruned = std::max(largest_pruned, w);
        ++pruned;
      }
    }
    EXPECT_EQ(pruned, r.pruned) << backend;
    EXPECT_LE(largest_pruned, smallest_kept) << backend << ": a pruned value exceeds a kept one";
    EXPECT_LT(largest_pruned, 0.0) << backend << ": with a quarter pruned from symmetric weights, all are negative";
  }
}

TEST(Erk, DensitiesKeepTheGlobalDensityAndFavourSmallLayers) {
  const std::vector<std::pair<Index, Index>> shapes{{784, 1024}, {1024, 1024}, {1024, 10}};
  const std::vector<double> d = snk::layers::erk_densities(shapes, 0.1);
  double kept = 0, total = 0;
  for (std::size_t l = 0; l < shapes.size(); ++l) {
    const double size = static_cast<double>(shapes[l].first) * static_cast<double>(shapes[l].second);
    kept += d[l] * size;
    total += size;
    EXPECT_GT(d[l], 0.0);
    EXPECT_LE(d[l], 1.0);
  }
  EXPECT_NEAR(kept / total, 0.1, 1e-12);
  EXPECT_EQ(d[2], 1.0) << "the 1024 x 10 output layer's share exceeds 1: it is dense";
  EXPECT_GT(d[0], d[1]) << "the smaller hidden layer is denser";
  EXPECT_NEAR(d[0] / d[1], ((784.0 + 1024) / (784.0 * 1024)) / (2048.0 / (1024.0 * 1024)), 1e-12);
  EXPECT_THROW(snk::layers::erk_densities(shapes, 0.0), snk::Error);
  EXPECT_THROW(snk::layers::erk_densities({{0, 5}}, 0.5), snk::Error);
}

TEST(Rigl, GrowsWhereTheDenseGradientIsLargest) {
  const Index in = 30, out = 20, batch = 8;
  for (const std::string& backend : snk::available_backends()) {
    snk::BackendScope scope(backend);
    for (Index block_rows : {Index(1), Index(7), Index(20)}) {
      SparseLinear layer(in, out, 0.2, rng()());
      layer_test::Dense x, dy;
      const snk::Matrix X = random_batch(batch, in, x), dY = random_batch(batch, out, dy);
      const auto weights = entries(layer.weight());
      const Index n = weights.size(), k = static_cast<Index>(std::llround(0.25 * static_cast<double>(n)));
      const auto r = snk::layers::rigl_rewire(layer, 0.25, X, dY, block_rows);
      const auto after = entries(layer.weight());
      const std::string at = backend + ", blocks of " + std::to_string(block_rows);
      EXPECT_EQ(r.pruned, k) << at;
      EXPECT_EQ(r.grown, k) << at;
      ASSERT_EQ(after.size(), n) << at;
      // |G| of every grown position >= |G| of every free position not grown (fp32 rounding aside).
      auto g = [&](Index i, Index j) {
        double s = 0;
        for (Index b = 0; b < batch; ++b) s += dy[b][i] * x[b][j];
        return std::fabs(s);
      };
      double smallest_grown = 1e300, largest_left = 0;
      for (Index i = 0; i < out; ++i)
        for (Index j = 0; j < in; ++j) {
          if (weights.count({i, j})) continue;
          if (after.count({i, j})) {
            EXPECT_EQ(after.at({i, j}), 0.0) << at;
            smallest_grown = std::min(smallest_grown, g(i, j));
          } else {
            largest_left = std::max(largest_left, g(i, j));
          }
        }
      EXPECT_GE(smallest_grown, largest_left - 1e-5) << at << ": a free position with a larger |G| was left";
    }
  }
}

TEST(Rigl, CosineScheduleAndUpdateSteps) {
  EXPECT_DOUBLE_EQ(snk::layers::cosine_fraction(0.3, 0, 1000, 0.75), 0.3);
  EXPECT_NEAR(snk::layers::cosine_fraction(0.3, 375, 1000, 0.75), 0.15, 1e-12);
  EXPECT_EQ(snk::layers::cosine_fraction(0.3, 750, 1000, 0.75), 0.0);
  EXPECT_EQ(snk::layers::cosine_fraction(0.3, 900, 1000, 0.75), 0.0);
  EXPECT_TRUE(snk::layers::rewire_due(100, 100, 1000, 0.75));
  EXPECT_TRUE(snk::layers::rewire_due(700, 100, 1000, 0.75));
  EXPECT_FALSE(snk::layers::rewire_due(800, 100, 1000, 0.75)) << "after the stop fraction";
  EXPECT_FALSE(snk::layers::rewire_due(150, 100, 1000, 0.75));
  EXPECT_FALSE(snk::layers::rewire_due(0, 100, 1000, 0.75));
}

}  // namespace
