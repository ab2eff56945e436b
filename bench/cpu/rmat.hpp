// bench/cpu/rmat.hpp: the in-memory R-MAT (Kronecker) graph generator of the CPU graph benchmark.
//
// It follows Graph500's generator: 16 * 2^scale edges, each placed by `scale` recursive quadrant choices
// with the initiator probabilities a = .57, b = .19, c = .19, d = .05 (no per-level noise), then every
// vertex label is scrambled by one random permutation so that the high-degree vertices are not all at
// small indices. Graph500's kernels treat the graph as undirected, so each edge {u, v} is stored both as
// (u, v) and (v, u); self-loops are dropped and duplicate edges are merged (the build's dup operator sees
// equal values). Each edge's value is FP64 in (0, 1], drawn from a hash of the unordered pair and the
// seed, so A is exactly symmetric in pattern and values. Every random number comes from a counter-based
// hash of (seed, stream, index), so the graph depends only on (scale, edge factor, seed), not on the
// thread count or the order of work.
#pragma once

#include <cstdint>
#include <vector>

namespace bench {

struct RmatParameters {
  int scale = 16;
  int edge_factor = 16;
  double a = 0.57, b = 0.19, c = 0.19;  // d = 1 - a - b - c = 0.05
  std::uint64_t seed = 20260;
};

// The symmetrized edge list before the matrix build: both directions of every non-loop edge
// (duplicates still present; the build merges them).
struct EdgeList {
  std::uint64_t n = 0;              // 2^scale vertices
  std::uint64_t generated = 0;      // edges drawn (edge_factor * n)
  std::uint64_t self_loops = 0;     // of those, dropped as self-loops
  std::vector<std::uint64_t> rows, cols;
  std::vector<double> values;
};

EdgeList generate_rmat(const RmatParameters& p);

// A counter-based 64-bit hash (SplitMix64's finalizer over a combined key): the generator's only source
// of randomness, also used by the benchmark for its input vector.
std::uint64_t mix64(std::uint64_t x);
inline std::uint64_t hash3(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return mix64(mix64(seed ^ (stream * 0x9E3779B97F4A7C15ull)) + index);
}
// A double in (0, 1] from 53 random bits.
inline double unit_interval_open_closed(std::uint64_t bits) {
  return static_cast<double>((bits >> 11) + 1) * (1.0 / 9007199254740992.0);
}

}  // namespace bench
