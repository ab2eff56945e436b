// backends/kokkos/host_context.hpp: the context the portable kernels (portable/parts.hpp) run with on the host, and
// how a result becomes a Matrix, for the kokkos backend (portable_host.cpp) and the kernels' host test.
//
// Space is a Kokkos host execution space (the OpenMP pool, or Serial from threads outside it). Buffers are new[]
// arrays; the sort is std::stable_sort on the keys' low bits. A result is copied into the container's host form,
// whose adopt() drops the empty slots a kernel may leave in a hypersparse result.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "portable/parts.hpp"
#include "snack/containers.hpp"

namespace snk::kokkos {

struct HostBytes {
  std::unique_ptr<unsigned char[]> data;
  void* get() const { return data.get(); }
};

template <class Space>
struct HostContext {
  Space exec() const { return Space(); }
  HostBytes alloc(std::size_t bytes) { return HostBytes{std::unique_ptr<unsigned char[]>(new unsigned char[bytes + 1]())}; }
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

// T takes the kernel's result (the arrays copied into its host form).
inline void adopt_result(Matrix& T, const portable::CsrParts<HostBytes>& r) {
  CsrStorage s;
  s.hyper = r.hyper;
  const auto* h = static_cast<const Index*>(r.h.get());
  const auto* p = static_cast<const Index*>(r.p.get());
  const auto* j = static_cast<const Index*>(r.j.get());
  const auto* x = static_cast<const unsigned char*>(r.x.get());
  if (r.hyper) s.h.assign(h, h + r.nslots);
  s.p.assign(p, p + r.nslots + 1);
  s.j.assign(j, j + r.nvals);
  s.x.assign(x, x + r.nvals * T.type()->size);
  T.adopt(std::move(s));
}

}  // namespace snk::kokkos
