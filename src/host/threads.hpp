// src/host/threads.hpp: the project's host-side parallelism, header only: how many cores this process may use
// (usable_cores: its CPU affinity, capped by the CPU quota of its cgroup, as a container or a batch scheduler sets
// them), and three loops that deal independent work out to that many std::threads (for_each_index: items one at a time
// in increasing order; for_each_range: chunks of a grain; for_each_slice: near-equal contiguous slices, one call each).
// std::thread::hardware_concurrency() counts every CPU the machine has online, also those a CPU set or a quota keeps
// from the process: threads beyond the usable cores only contend (for NVRTC's compiles, each holding hundreds of MB,
// they also crowd the memory).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#ifdef __linux__
#include <sched.h>
#endif

namespace snk::host {

// The cores a cgroup v2 `cpu.max` file's text allows ("QUOTA PERIOD", microseconds: QUOTA / PERIOD rounded up, at least
// 1); 0 where it sets no limit ("max ...") or cannot be read as one.
inline int cpu_max_cores(const std::string& text) {
  std::istringstream in(text);
  std::string quota;
  long long period = 0;
  if (!(in >> quota >> period) || period <= 0 || quota == "max") return 0;
  char* end = nullptr;
  const long long q = std::strtoll(quota.c_str(), &end, 10);
  if (*end != '\0' || q <= 0) return 0;
  return static_cast<int>(std::max<long long>(1, (q + period - 1) / period));
}

// The cores a cgroup v1 CFS quota allows (quota_us / period_us rounded up, at least 1); 0 for no limit (quota -1).
inline int cfs_quota_cores(long long quota_us, long long period_us) {
  if (quota_us <= 0 || period_us <= 0) return 0;
  return static_cast<int>(std::max<long long>(1, (quota_us + period_us - 1) / period_us));
}

namespace detail {

inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return f ? s.str() : std::string();
}

// The least quota on the process's cgroup and its ancestors (v2), else on its cpu controller's group (v1); 0: none.
inline int cgroup_quota_cores() {
#ifdef __linux__
  int least = 0;
  const auto take = [&least](int cores) {
    if (cores > 0 && (least == 0 || cores < least)) least = cores;
  };
  std::istringstream groups(read_text("/proc/self/cgroup"));
  for (std::string line; std::getline(groups, line);) {
    // "ID:CONTROLLERS:PATH": v2's line is "0::PATH"; v1's cpu line names "cpu" among its controllers.
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty()) {
      // Inside a container the path is often the host's while /sys/fs/cgroup is the container's own root: the walk
      // up to the root reads that root too.
      for (std::string p = path == "/" ? std::string() : path;;) {
        take(cpu_max_cores(read_text("/sys/fs/cgroup" + p + "/cpu.max")));
        if (p.empty()) break;
        const size_t up = p.rfind('/');
        p = up == std::string::npos ? std::string() : p.substr(0, up);
      }
    } else if (("," + controllers + ",").find(",cpu,") != std::string::npos) {
      for (const std::string& dir : {"/sys/fs/cgroup/" + controllers + path, "/sys/fs/cgroup/" + controllers,
                                     std::string("/sys/fs/cgroup/cpu")}) {
        const std::string quota = read_text(dir + "/cpu.cfs_quota_us"), period = read_text(dir + "/cpu.cfs_period_us");
        if (!quota.empty() && !period.empty()) {
          take(cfs_quota_cores(std::atoll(quota.c_str()), std::atoll(period.c_str())));
          break;
        }
      }
    }
  }
  return least;
#else
  return 0;
#endif
}

}  // namespace detail

// The cores the calling thread may run on: the CPUs of its affinity mask (the hardware threads the system reports
// where the mask cannot be read), at most the cgroup's CPU quota rounded up; at least 1. Read anew on every call (a
// few system calls and small file reads): call it once per parallel region, not per item.
inline int usable_cores() {
  int cores = static_cast<int>(std::thread::hardware_concurrency());
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
#endif
  const int quota = detail::cgroup_quota_cores();
  if (quota > 0) cores = std::min(cores, quota);
  return std::max(1, cores);
}

// Calls f(i) for every i in [0, n) on up to `threads` threads (0: usable_cores()), the calling thread among them, each
// taking the next item in increasing order; returns once all are done. The first exception f throws stops new items
// from starting and is rethrown here once every thread has joined. Where no further thread can be started, those
// running take every item.
template <class F>
void for_each_index(std::size_t n, F&& f, int threads = 0) {
  if (n == 0) return;
  const std::size_t workers = std::min(n, static_cast<std::size_t>(threads > 0 ? threads : usable_cores()));
  std::atomic<std::size_t> next{0};
  std::mutex failed_m;
  std::exception_ptr failed;
  const auto work = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) f(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failed_m);
      if (!failed) failed = std::current_exception();
      next = n;
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers > 0 ? workers - 1 : 0);
  for (std::size_t w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  if (failed) std::rethrow_exception(failed);
}

// Calls f(begin, end) on consecutive chunks of [0, n) of `grain` units each (the last may be shorter; grain < 1 counts
// as 1), on up to `threads` threads (0: usable_cores()), as for_each_index calls its items: f must only write what
// its units own. One chunk, or one thread: f runs on the calling thread alone.
template <class F>
void for_each_range(std::int64_t n, std::int64_t grain, F&& f, int threads = 0) {
  if (n <= 0) return;
  grain = std::max<std::int64_t>(1, grain);
  const std::int64_t chunks = (n + grain - 1) / grain;
  for_each_index(
      static_cast<std::size_t>(chunks),
      [&](std::size_t c) {
        const std::int64_t begin = static_cast<std::int64_t>(c) * grain;
        f(begin, std::min(n, begin + grain));
      },
      threads);
}

// Calls f(begin, end) once for each of `slices` contiguous slices of [0, n) of near-equal size ([n t / slices,
// n (t + 1) / slices); slices < 1 counts as 1), on up to `slices` threads, as for_each_index calls its items: for work
// whose set-up per call (a scratch buffer, say) should be paid once a thread's worth of work, not once a chunk.
template <class F>
void for_each_slice(std::int64_t n, int slices, F&& f) {
  if (n <= 0) return;
  const std::int64_t s = std::max(1, slices);
  for_each_index(
      static_cast<std::size_t>(s),
      [&](std::size_t t) {
        const std::int64_t i = static_cast<std::int64_t>(t);
        f(n * i / s, n * (i + 1) / s);
      },
      static_cast<int>(s));
}

}  // namespace snk::host
