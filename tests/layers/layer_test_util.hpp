// tests/layers/layer_test_util.hpp: what the layer tests share: the random source, random full FP32 batches, and a
// matrix's entries as a map from position to value.
#pragma once

#include <chrono>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "snack/snack.hpp"

namespace layer_test {

using snk::Index;
using snk::Matrix;
using Dense = std::vector<std::vector<double>>;

inline std::mt19937_64& rng() {
  static std::mt19937_64 g(static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  return g;
}

// A full batch (FP32 unless said) of values in [-1, 1], and the same values as doubles.
inline Matrix random_batch(Index rows, Index cols, Dense& values, const snk::Type* type = &snk::types::FP32) {
  std::uniform_real_distribution<float> v(-1.0f, 1.0f);
  values.assign(rows, std::vector<double>(cols));
  std::vector<Index> I, J;
  std::vector<float> X;
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) {
      const float x = v(rng());
      values[i][j] = x;
      I.push_back(i);
      J.push_back(j);
      X.push_back(x);
    }
  Matrix M(type, rows, cols);
  M.build(I.data(), J.data(), X.data(), &snk::types::FP32, I.size(), nullptr);
  return M;
}

inline Matrix random_batch(Index rows, Index cols, const snk::Type* type = &snk::types::FP32) {
  Dense unused;
  return random_batch(rows, cols, unused, type);
}

inline std::map<std::pair<Index, Index>, double> entries(const Matrix& M) {
  const Index n = M.nvals();
  std::vector<Index> I(n), J(n);
  std::vector<double> X(n);
  M.extract_tuples(I.data(), J.data(), X.data(), &snk::types::FP64);
  std::map<std::pair<Index, Index>, double> out;
  for (Index k = 0; k < n; ++k) out[{I[k], J[k]}] = X[k];
  return out;
}

}  // namespace layer_test
