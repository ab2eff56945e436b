// tests/layers/test_dst.cpp: SET rewiring (layers/dst.hpp) on every usable backend: the non-zero count stays, exactly
// round(zeta * nnz) weights are pruned and they are the smallest |w| (ties included), the grown weights are zero at
// positions that held none, no position repeats, the optimizer's velocity follows its connections, and bad zeta is
// rejected without a change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "dst.hpp"
#include "layer_test_util.hpp"

namespace {

using snk::Index;
using snk::layers::SgdMomentum;
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
      const auto result = snk::layers::set_rewire(layer, zeta, rng()(), &sgd);
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
  const auto r = snk::layers::set_rewire(layer, 0.0, 1);
  EXPECT_EQ(r.pruned, 0u);
  EXPECT_EQ(entries(layer.weight()), before);
  for (double zeta : {-0.1, 1.5}) {
    try {
      snk::layers::set_rewire(layer, zeta, 1);
      FAIL() << "zeta " << zeta << " must be rejected";
    } catch (const snk::Error& e) {
      EXPECT_EQ(e.info(), snk::Info::InvalidValue);
    }
    EXPECT_EQ(entries(layer.weight()), before);
  }
}

}  // namespace
