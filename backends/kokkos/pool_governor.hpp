// backends/kokkos/pool_governor.hpp: when the kokkos backend's host pool stops paying, its regions run on the
// calling thread for a while.
//
// On a machine whose cores are taken by other processes, a thread of the OpenMP pool is often descheduled, and
// every parallel region waits for it; meanwhile the pool's idle threads spin (libgomp's default wait policy)
// and take CPU from the thread doing the work, so a region can take several times what its work takes on one
// thread (bench/results/spdnn-cpu-contention.md). The governor watches parallel regions:
// one with at least kEvidenceNs of work that takes longer than that work would on one thread sends every
// parallel helper to the calling thread for a hold-off period (kMinHoldNs, doubled after each failed probe up
// to kMaxHoldNs, back to kMinHoldNs after a good one); the first region after the period is the probe. On a
// quiet machine no region qualifies, so nothing changes there. Plain data and explicit times (nanoseconds of
// a steady clock), so that the rule is testable without Kokkos.
#pragma once

#include <atomic>
#include <cstdint>

namespace snk::kokkos {

class PoolGovernor {
 public:
  // Regions with less work than kEvidenceNs say nothing; holds last kMinHoldNs to kMaxHoldNs.
  static constexpr std::int64_t kEvidenceNs = 200'000;
  static constexpr std::int64_t kMinHoldNs = 50'000'000;
  static constexpr std::int64_t kMaxHoldNs = 1'000'000'000;

  // Whether a region starting at `now` may use the pool.
  bool pool_allowed(std::int64_t now) const { return now >= serial_until_.load(std::memory_order_relaxed); }

  // A parallel region that took `wall` ns and whose chunks together took `work` ns, ending at `now`.
  void record(std::int64_t now, std::int64_t wall, std::int64_t work) {
    if (work < kEvidenceNs) return;
    if (wall > work) {
      const std::int64_t hold = hold_.load(std::memory_order_relaxed);
      serial_until_.store(now + hold, std::memory_order_relaxed);
      hold_.store(hold * 2 > kMaxHoldNs ? kMaxHoldNs : hold * 2, std::memory_order_relaxed);
      holds_.fetch_add(1, std::memory_order_relaxed);
    } else {
      hold_.store(kMinHoldNs, std::memory_order_relaxed);
    }
  }

  // How many hold-off periods have started (for tests and diagnostics).
  std::uint64_t holds() const { return holds_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> serial_until_{0};
  std::atomic<std::int64_t> hold_{kMinHoldNs};
  std::atomic<std::uint64_t> holds_{0};
};

}  // namespace snk::kokkos
