// tests/core/test_host_threads.cpp: src/host/threads.hpp. The cgroup quota texts as the kernel writes them (v2's
// cpu.max, v1's CFS quota and period), the usable cores against the calling thread's affinity (narrowed to one CPU and
// to two, where there are two), and the two loops: every item exactly once for any count of threads, the items of a
// thread in increasing order, the chunks of a range tiling it, each near-equal slice called once, and the first
// exception rethrown after every thread has joined, with no item started after it.
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "host/threads.hpp"

namespace {

using snk::host::cfs_quota_cores;
using snk::host::cpu_max_cores;
using snk::host::for_each_index;
using snk::host::for_each_range;
using snk::host::for_each_slice;
using snk::host::usable_cores;

TEST(HostThreads, CgroupQuotas) {
  EXPECT_EQ(cpu_max_cores("max 100000\n"), 0);
  EXPECT_EQ(cpu_max_cores("200000 100000\n"), 2);
  EXPECT_EQ(cpu_max_cores("150000 100000"), 2);   // 1.5 cores: two threads, each busy part of the time
  EXPECT_EQ(cpu_max_cores("50000 100000"), 1);
  EXPECT_EQ(cpu_max_cores("1600000 100000"), 16);
  EXPECT_EQ(cpu_max_cores(""), 0);
  EXPECT_EQ(cpu_max_cores("12x 100000"), 0);
  EXPECT_EQ(cpu_max_cores("100000 0"), 0);
  EXPECT_EQ(cpu_max_cores("-1 100000"), 0);
  EXPECT_EQ(cfs_quota_cores(-1, 100000), 0);
  EXPECT_EQ(cfs_quota_cores(400000, 100000), 4);
  EXPECT_EQ(cfs_quota_cores(250000, 100000), 3);
  EXPECT_EQ(cfs_quota_cores(1000, 100000), 1);
  EXPECT_EQ(cfs_quota_cores(100000, 0), 0);
}

// Runs f on a new thread whose affinity is the first `count` CPUs of this process's mask; false where the mask holds
// fewer.
template <class F>
bool on_cpus(int count, F f) {
  cpu_set_t all;
  CPU_ZERO(&all);
  if (sched_getaffinity(0, sizeof all, &all) != 0 || CPU_COUNT(&all) < count) return false;
  bool ran = false;
  std::thread t([&] {
    cpu_set_t some;
    CPU_ZERO(&some);
    int taken = 0;
    for (int c = 0; c < CPU_SETSIZE && taken < count; ++c)
      if (CPU_ISSET(c, &all)) {
        CPU_SET(c, &some);
        ++taken;
      }
    if (sched_setaffinity(0, sizeof some, &some) != 0) return;
    f();
    ran = true;
  });
  t.join();
  return ran;
}

TEST(HostThreads, UsableCoresFollowTheAffinity) {
  const int here = usable_cores();
  EXPECT_GE(here, 1);
  EXPECT_LE(static_cast<unsigned>(here), std::max(1u, std::thread::hardware_concurrency()));
  int got = 0;
  ASSERT_TRUE(on_cpus(1, [&] { got = usable_cores(); }));
  EXPECT_EQ(got, 1);
  if (on_cpus(2, [&] { got = usable_cores(); }))
    EXPECT_EQ(got, std::min(2, here));   // a quota may hold it below the two CPUs
}

TEST(HostThreads, ForEachIndexRunsEveryItemOnce) {
  for (const size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}})
    for (const int threads : {0, 1, 3, 64}) {
      std::vector<std::atomic<int>> seen(n);
      std::mutex m;
      std::vector<std::pair<std::thread::id, size_t>> order;
      for_each_index(
          n,
          [&](size_t i) {
            seen[i].fetch_add(1);
            std::lock_guard<std::mutex> lock(m);
            order.emplace_back(std::this_thread::get_id(), i);
          },
          threads);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "item " << i << " of " << n << ", " << threads;
      // Each thread's items in increasing order.
      for (size_t a = 0; a < order.size(); ++a)
        for (size_t b = a + 1; b < order.size(); ++b)
          if (order[a].first == order[b].first) {
            ASSERT_LT(order[a].second, order[b].second);
            break;
          }
    }
}

TEST(HostThreads, ForEachRangeTilesTheRange) {
  for (const int64_t n : {int64_t{0}, int64_t{1}, int64_t{10}, int64_t{1001}})
    for (const int64_t grain : {int64_t{-2}, int64_t{1}, int64_t{3}, int64_t{64}, int64_t{5000}})
      for (const int threads : {0, 1, 4}) {
        std::vector<int> hits(static_cast<size_t>(n), 0);
        std::mutex m;
        std::vector<std::pair<int64_t, int64_t>> chunks;
        for_each_range(
            n, grain,
            [&](int64_t b, int64_t e) {
              std::lock_guard<std::mutex> lock(m);
              chunks.emplace_back(b, e);
              for (int64_t i = b; i < e; ++i) ++hits[static_cast<size_t>(i)];
            },
            threads);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)], 1);
        const int64_t g = std::max<int64_t>(1, grain);
        for (const auto& [b, e] : chunks) {
          EXPECT_EQ(b % g, 0);
          EXPECT_EQ(e, std::min(n, b + g));
        }
      }
}

TEST(HostThreads, ForEachSliceCallsEachNearEqualSliceOnce) {
  for (const int64_t n : {int64_t{0}, int64_t{1}, int64_t{10}, int64_t{1001}})
    for (const int slices : {0, 1, 3, 16}) {
      std::mutex m;
      std::vector<std::pair<int64_t, int64_t>> got;
      std::vector<std::thread::id> by;
      for_each_slice(n, slices, [&](int64_t b, int64_t e) {
        std::lock_guard<std::mutex> lock(m);
        got.emplace_back(b, e);
        by.push_back(std::this_thread::get_id());
      });
      if (n == 0) {
        EXPECT_TRUE(got.empty());
        continue;
      }
      const int64_t s = std::max(1, slices);
      ASSERT_EQ(got.size(), static_cast<size_t>(s));
      std::sort(got.begin(), got.end());
      for (int64_t t = 0; t < s; ++t) {
        EXPECT_EQ(got[static_cast<size_t>(t)].first, n * t / s);
        EXPECT_EQ(got[static_cast<size_t>(t)].second, n * (t + 1) / s);
      }
      std::sort(by.begin(), by.end());
      EXPECT_LE(std::unique(by.begin(), by.end()) - by.begin(), s) << "at most one thread a slice";
    }
}

TEST(HostThreads, FirstExceptionStopsTheLoop) {
  for (const int threads : {1, 4}) {
    std::atomic<size_t> started{0};
    std::atomic<bool> thrown{false};
    std::atomic<size_t> after{0};   // items started once the throw was seen
    try {
      for_each_index(
          100000,
          [&](size_t i) {
            if (thrown.load()) after.fetch_add(1);
            started.fetch_add(1);
            if (i == 10) {
              thrown = true;
              throw std::runtime_error("item 10");
            }
            std::this_thread::sleep_for(std::chrono::microseconds(200));
          },
          threads);
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 10");
    }
    // Threads may be inside an item when the throw happens (one each), and may take one more in the moment before the
    // loop has seen it (an item lasts far longer than that moment); then none.
    EXPECT_LE(after.load(), 2 * static_cast<size_t>(threads));
    EXPECT_LT(started.load(), size_t{100000});
  }
  EXPECT_THROW(for_each_range(100, 1, [](int64_t b, int64_t) { if (b == 50) throw std::logic_error("50"); }, 3),
               std::logic_error);
}

}  // namespace
