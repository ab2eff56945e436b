// bench/cpu/rmat.cpp: the R-MAT generator declared in rmat.hpp (Graph500 initiator, scrambled labels,
// symmetrized, self-loops dropped, values hashed from the unordered vertex pair).
//
// Edges are drawn in parallel (OpenMP over edge indices); each edge's quadrant choices use the random
// stream of its own index, so the output is the same for any thread count. The vertex permutation is a
// Fisher-Yates shuffle driven by the same hash, done once, serially (O(n)).
#include "rmat.hpp"

#include <algorithm>
#include <utility>

namespace bench {

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

namespace {

constexpr std::uint64_t kStreamQuadrant = 1, kStreamPermutation = 2, kStreamValue = 3;

}  // namespace

EdgeList generate_rmat(const RmatParameters& p) {
  EdgeList out;
  const std::uint64_t n = std::uint64_t{1} << p.scale;
  const std::uint64_t m = static_cast<std::uint64_t>(p.edge_factor) * n;
  out.n = n;
  out.generated = m;

  // The label scramble: perm[v] is the final label of generated vertex v.
  std::vector<std::uint64_t> perm(n);
  for (std::uint64_t v = 0; v < n; ++v) perm[v] = v;
  for (std::uint64_t v = n - 1; v > 0; --v) {
    std::uint64_t r = hash3(p.seed, kStreamPermutation, v) % (v + 1);
    std::swap(perm[v], perm[r]);
  }

  // Quadrant thresholds on a 53-bit uniform: [0, a) -> (0,0), [a, a+b) -> (0,1), [a+b, a+b+c) -> (1,0),
  // rest -> (1,1).
  const double ab = p.a + p.b, abc = p.a + p.b + p.c;
  std::vector<std::uint64_t> src(m), dst(m);
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < static_cast<std::int64_t>(m); ++e) {
    std::uint64_t u = 0, v = 0;
    for (int level = 0; level < p.scale; ++level) {
      double r = unit_interval_open_closed(
          hash3(p.seed, kStreamQuadrant, static_cast<std::uint64_t>(e) * 64 + static_cast<std::uint64_t>(level)));
      std::uint64_t row_bit = 0, col_bit = 0;
      if (r <= p.a) {
      } else if (r <= ab) {
        col_bit = 1;
      } else if (r <= abc) {
        row_bit = 1;
      } else {
        row_bit = col_bit = 1;
      }
      u = (u << 1) | row_bit;
      v = (v << 1) | col_bit;
    }
    src[e] = perm[u];
    dst[e] = perm[v];
  }

  std::uint64_t loops = 0;
  for (std::uint64_t e = 0; e < m; ++e) loops += (src[e] == dst[e]);
  out.self_loops = loops;
  const std::uint64_t kept = m - loops;
  out.rows.resize(2 * kept);
  out.cols.resize(2 * kept);
  out.values.resize(2 * kept);
  std::uint64_t k = 0;
  for (std::uint64_t e = 0; e < m; ++e) {
    std::uint64_t u = src[e], v = dst[e];
    if (u == v) continue;
    std::uint64_t lo = std::min(u, v), hi = std::max(u, v);
    double value = unit_interval_open_closed(hash3(p.seed, kStreamValue, lo * n + hi));
    out.rows[k] = u;
    out.cols[k] = v;
    out.values[k] = value;
    out.rows[k + 1] = v;
    out.cols[k + 1] = u;
    out.values[k + 1] = value;
    k += 2;
  }
  return out;
}

}  // namespace bench
