// tests/core/test_pool_governor.cpp: the rule by which the kokkos backend stops using its host pool while other
// processes hold the machine's cores (backends/kokkos/pool_governor.hpp), on explicit times.
#include <gtest/gtest.h>

#include "pool_governor.hpp"

namespace {

using snk::kokkos::PoolGovernor;
constexpr std::int64_t kMs = 1'000'000;

TEST(PoolGovernor, QuietRegionsKeepThePool) {
  PoolGovernor g;
  std::int64_t t = 0;
  for (int k = 0; k < 100; ++k) {
    t += 2 * kMs;
    g.record(t, kMs, 2 * kMs);  // two threads: half the work's time
    EXPECT_TRUE(g.pool_allowed(t));
  }
  EXPECT_EQ(g.holds(), 0u);
}

TEST(PoolGovernor, SmallRegionsAreNoEvidence) {
  PoolGovernor g;
  g.record(kMs, PoolGovernor::kEvidenceNs, PoolGovernor::kEvidenceNs - 1);  // slower than serial, but tiny
  EXPECT_TRUE(g.pool_allowed(kMs));
  EXPECT_EQ(g.holds(), 0u);
}

TEST(PoolGovernor, ASlowRegionHoldsThePoolBackThenProbesWithGrowingHolds) {
  PoolGovernor g;
  std::int64_t t = 10 * kMs;
  g.record(t, 3 * kMs, kMs);  // took 3x its work: the pool costs more than it gives
  EXPECT_FALSE(g.pool_allowed(t));
  EXPECT_FALSE(g.pool_allowed(t + PoolGovernor::kMinHoldNs - 1));
  EXPECT_TRUE(g.pool_allowed(t + PoolGovernor::kMinHoldNs));
  // the probe fails again: the next hold is twice as long
  t += PoolGovernor::kMinHoldNs;
  g.record(t, 3 * kMs, kMs);
  EXPECT_FALSE(g.pool_allowed(t + 2 * PoolGovernor::kMinHoldNs - 1));
  EXPECT_TRUE(g.pool_allowed(t + 2 * PoolGovernor::kMinHoldNs));
  // holds stop growing at kMaxHoldNs
  for (int k = 0; k < 20; ++k) {
    t += PoolGovernor::kMaxHoldNs;
    g.record(t, 3 * kMs, kMs);
  }
  EXPECT_FALSE(g.pool_allowed(t + PoolGovernor::kMaxHoldNs - 1));
  EXPECT_TRUE(g.pool_allowed(t + PoolGovernor::kMaxHoldNs));
  // a good probe brings the hold back to the minimum
  t += PoolGovernor::kMaxHoldNs;
  g.record(t, kMs / 2, kMs);
  t += kMs;
  g.record(t, 3 * kMs, kMs);
  EXPECT_TRUE(g.pool_allowed(t + PoolGovernor::kMinHoldNs));
  EXPECT_EQ(g.holds(), 23u);
}

}  // namespace
