// spmm/host_threads.hpp: the host threads that build a plan's bound orders (bank_order.cpp, row_lanes_layout.cpp,
// plan.cu). Those orders are host work linear in the non-zeros, done once per plan but large next to the products
// they serve (bench/results/spmm-dispatch-rules.md). Their units (segments, groups of 32 rows, column blocks) are
// independent and write disjoint parts of the output, so for_each_range() deals them out in chunks (the project's
// loop, src/host/threads.hpp); the result is the same for any number of threads (the CPU tests compare one thread
// against several). How many: host_order_threads() ($SNACK_HOST_THREADS, else the usable cores, up to 16). Header
// only, no CUDA.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "host/threads.hpp"

namespace snk::cuda {

// The default count of threads for host order builds: the cores this process may use, at most 16 (the builds stop
// gaining there: they stream the plan's columns from memory).
inline int default_host_order_threads() { return std::min(host::usable_cores(), 16); }

// Threads for host order builds: $SNACK_HOST_THREADS where set (a count from 1 to 1024: where several processes
// share a node, say; another value prints one message on stderr and the default is used), else
// default_host_order_threads(). Read once (usable_cores reads the system each time, and the cuda backend's binding
// rule asks on every product).
inline int host_order_threads() {
  static const int n = [] {
    const int fallback = default_host_order_threads();
    const char* env = std::getenv("SNACK_HOST_THREADS");
    if (env == nullptr || *env == '\0') return fallback;
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (*end != '\0' || v < 1 || v > 1024) {
      std::fprintf(stderr, "snack: SNACK_HOST_THREADS=%s is not a count of threads from 1 to 1024; using %d\n", env,
                   fallback);
      return fallback;
    }
    return static_cast<int>(v);
  }();
  return n;
}

// Calls f(begin, end) on consecutive chunks of [0, n) of about `grain` units each (the last may be shorter), from up
// to `threads` threads (0: host_order_threads()); returns once every chunk is done. f must only write what its
// units own. With one thread, or n <= grain, it runs on the calling thread. An exception thrown by f stops the
// other threads taking chunks and is rethrown here (the first one thrown).
template <class F>
void for_each_range(std::int64_t n, std::int64_t grain, F&& f, int threads = 0) {
  host::for_each_range(n, grain, std::forward<F>(f), threads > 0 ? threads : host_order_threads());
}

}  // namespace snk::cuda
