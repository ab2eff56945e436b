// backends/kokkos/host_context.hpp: the context the portable kernels (portable/parts.hpp) run with on the host, which
// space runs them (on_host), and how a result becomes a Matrix, for the kokkos backend (mxm.cpp, portable_host.cpp) and
// the kernels' host test.
//
// Space is a Kokkos host execution space (the OpenMP pool, or Serial from threads outside it). Buffers are vectors that
// a result's arrays move into the container's host form from (whose adopt() drops the empty slots a kernel may leave in
// a hypersparse result), zeroed as they are made; the sort is std::stable_sort on the keys' low bits.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "parallel.hpp"
#include "portable/parts.hpp"
#include "snack/containers.hpp"

namespace snk::kokkos {

// A buffer of the host context: 8-byte words, or bytes for a result's values (alloc_values), so that a result's arrays
// move into the container's vectors (std::vector<Index> for h, p and j, bytes for x) instead of being copied.
struct HostBytes {
  std::vector<Index> words;
  std::vector<unsigned char> bytes;
  bool holds_bytes = false;
  void* get() const {
    return holds_bytes ? static_cast<void*>(const_cast<unsigned char*>(bytes.data()))
                       : static_cast<void*>(const_cast<Index*>(words.data()));
  }
};

template <class Space>
struct HostContext {
  Space exec() const { return Space(); }
  // Zeroed (the host's Gustavson rows count on it for their marks), with one spare word or byte, so that an empty
  // buffer still has an address.
  HostBytes alloc(std::size_t bytes) {
    HostBytes b;
    b.words.resize(bytes / sizeof(Index) + 1);
    return b;
  }
  HostBytes alloc_values(std::size_t bytes) {
    HostBytes b;
    b.bytes.resize(bytes + 1);
    b.holds_bytes = true;
    return b;
  }
  // Sorts the n pairs (keys[q], idx[q]) by the low `bits` bits of the key, stably, in place.
  void sort_pairs(std::uint64_t* keys, std::uint64_t* idx, Index n, int bits) {
    const std::uint64_t mask = bits >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> v(n);
    for (Index q = 0; q < n; ++q) v[q] = {keys[q] & mask, idx[q]};
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (Index q = 0; q < n; ++q) {
      keys[q] = v[q].first;
      idx[q] = v[q].second;
    }
  }
};

// The kernel's result as a container's host form, its values value_size bytes each: its arrays move there (values
// allocated otherwise than by alloc_values are copied).
inline CsrStorage storage_of(portable::CsrParts<HostBytes>&& r, std::size_t value_size) {
  const auto words = [](HostBytes& b, Index n) {
    std::vector<Index> v = std::move(b.words);
    v.resize(n);
    return v;
  };
  CsrStorage s;
  s.hyper = r.hyper;
  if (r.hyper) s.h = words(r.h, r.nslots);
  s.p = words(r.p, r.nslots + 1);
  s.j = words(r.j, r.nvals);
  const std::size_t value_bytes = static_cast<std::size_t>(r.nvals) * value_size;
  if (r.x.holds_bytes) {
    s.x = std::move(r.x.bytes);
    s.x.resize(value_bytes);
  } else {
    const auto* x = static_cast<const unsigned char*>(r.x.get());
    s.x.assign(x, x + value_bytes);
  }
  return s;
}

// T takes the kernel's result (storage_of).
inline void adopt_result(Matrix& T, portable::CsrParts<HostBytes>&& r) {
  T.adopt(storage_of(std::move(r), T.type()->size));
}

// Kokkos 3.4's Serial space keeps one process-wide scratch (the reduction and scan buffers, team scratch) and no
// lock: two user threads running Serial kernels at once overwrite each other's partial sums. Serial kernels
// therefore run one at a time; recursive, so that a kernel may call another.
inline std::recursive_mutex& serial_space_mutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

// Runs f(context) on the pool's space where this thread may use it (parallel.hpp: use_pool), else on Serial (one
// caller at a time; Kokkos 3.4 refuses a parallel scan outside the pool's own thread); returns f's result, or false
// where neither space is there.
template <class F>
bool on_host(F&& f) {
  if (use_pool()) {
    HostContext<Kokkos::DefaultHostExecutionSpace> ctx;
    return f(ctx);
  }
#if defined(KOKKOS_ENABLE_SERIAL)
  std::lock_guard<std::recursive_mutex> lock(serial_space_mutex());
  HostContext<Kokkos::Serial> ctx;
  return f(ctx);
#else
  return false;
#endif
}

}  // namespace snk::kokkos
