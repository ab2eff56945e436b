// tests/gpu/spdnn_test_util.hpp: what the GPU SpDNN engines' tests share: the skip where no GPU is present, the
// official subset (from $SNACK_GC_CACHE or the official folder), irregular random networks, and the comparison of a
// float32 engine's categories with the float64 reference's, which excuses only rows that came within kEdge of the
// ReLU's threshold.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/cache.hpp"
#include "io/reference.hpp"
#include "gc_test_util.hpp"   // tests/graphchallenge: random_inputs
#include "io/types.hpp"

namespace snk::gc {

inline bool gpu_present() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  (void)cudaGetLastError();
  return ok;
}

// Skips the test, naming the engine, where no CUDA device is present.
#define REQUIRE_GPU_FOR(engine) \
  do { if (!::snk::gc::gpu_present()) GTEST_SKIP() << "no CUDA device: the " engine " cannot run here"; } while (0)

inline bool load_official_subset(Dataset& d, std::string& why) {
  const char* cache = std::getenv("SNACK_GC_CACHE");
  try {
    if (cache && *cache) { d = read_cache(cache); return true; }
    const std::string dir = std::string(SNACK_SHARED_DATA) + "/graphchallenge";
    OfficialSources s;
    s.weights_dir = dir + "/neuron1024";
    s.inputs = dir + "/sparse-images-1024_subset.mtx";
    s.truth = dir + "/neuron1024-l120-categories_subset.mtx";
    d = load_official(s, "").data;
    return true;
  } catch (const std::exception& e) {
    why = e.what();
    return false;
  }
}

using test::random_inputs;

// A random square layer with an irregular number of entries per column (0 to 2 * avg) and random
// positive and negative weights.
inline CsrMatrix random_layer(int64_t n, int avg, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> pick(0, n - 1);
  std::uniform_real_distribution<float> value(-0.05f, 0.15f);
  std::vector<std::vector<std::pair<int32_t, float>>> rows(n);
  std::uniform_int_distribution<int> count(0, 2 * avg);
  for (int64_t c = 0; c < n; ++c) {
    const int k = count(rng);
    std::vector<int64_t> used;
    for (int e = 0; e < k; ++e) {
      const int64_t r = pick(rng);
      if (std::find(used.begin(), used.end(), r) != used.end()) continue;
      used.push_back(r);
      rows[r].push_back({static_cast<int32_t>(c), value(rng)});
    }
  }
  CsrMatrix m;
  m.nrows = m.ncols = n;
  for (auto& row : rows) {
    std::sort(row.begin(), row.end());
    for (auto& [c, v] : row) { m.col.push_back(c); m.val.push_back(v); }
    m.row_ptr.push_back(static_cast<int64_t>(m.col.size()));
  }
  return m;
}

// A network of random_layer()s (not a challenge size: irregular columns, the ELL padding and, past 4096
// neurons, the global-memory path).
inline Network irregular_network(int64_t neurons, int64_t layers, float bias, std::mt19937_64& rng) {
  Network net;
  net.neurons = neurons;
  net.bias = bias;
  for (int64_t l = 0; l < layers; ++l) net.layers.push_back(random_layer(neurons, 24, rng));
  return net;
}

// The float64 reference's categories of `in`, and each row's margin (how near the ReLU's threshold it came).
inline std::vector<int64_t> reference_with_margins(const Network& net, const CsrMatrix& in, std::vector<double>& margins) {
  ReferenceOptions o;
  o.margins = &margins;
  return reference_infer(net, in, o);
}

// A float32 engine's categories against the reference's: only rows that came within kEdge of the threshold in
// the reference may come out otherwise, and at most max(16, 5%) of them (seed 3144846425: six rows of the 1024 x 64
// deduplication case, copies of inputs that came 1.5e-8 from it, which all three engines decided against the
// reference); every other row must agree.
constexpr double kEdge = 1e-3;
inline void expect_categories(const std::vector<int64_t>& got, const std::vector<int64_t>& want,
                       const std::vector<double>& margins, const std::string& what) {
  std::vector<int64_t> differ;
  std::set_symmetric_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(differ));
  int64_t excused = 0;
  for (const int64_t r : differ) {
    const double m = r >= 0 && r < static_cast<int64_t>(margins.size()) ? margins[static_cast<size_t>(r)]
                                                                        : std::numeric_limits<double>::infinity();
    if (m < kEdge) {
      ++excused;
      std::printf("%s: row %lld, %g from the threshold in the reference, decided otherwise\n", what.c_str(),
                  static_cast<long long>(r), m);
      continue;
    }
    ADD_FAILURE() << what << ": row " << r
                  << (std::binary_search(want.begin(), want.end(), r) ? " alive in the reference, dead here"
                                                                       : " dead in the reference, alive here")
                  << " (margin " << m << ")";
  }
  EXPECT_LE(excused, std::max<int64_t>(16, static_cast<int64_t>(margins.size()) / 20)) << what;
}

}  // namespace snk::gc
