// tests/common/fractional_matrix.hpp: a random FP32 matrix whose values are drawn uniformly from (-1, 1), so that
// sums of its products show the order in which they were reduced. Shared by the host test of the portable kernels
// and the GPU test of the cuda backend (both check the dense row accumulator's order of reduction).
#pragma once

#include <random>
#include <vector>

#include "snack/snack.hpp"

namespace snk_test {

// An r x c FP32 matrix with about density * r * c entries; with empty_every > 0, every empty_every-th row (rows
// empty_every - 1, 2 * empty_every - 1, ...) is left empty.
inline snk::Matrix fractional_fp32(snk::Index r, snk::Index c, double density, std::mt19937_64& g,
                                   snk::Index empty_every = 0) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::bernoulli_distribution on(density);
  std::vector<snk::Index> I, J;
  std::vector<double> X;
  for (snk::Index i = 0; i < r; ++i) {
    if (empty_every > 0 && i % empty_every == empty_every - 1) continue;
    for (snk::Index j = 0; j < c; ++j)
      if (on(g)) {
        I.push_back(i);
        J.push_back(j);
        X.push_back(u(g));
      }
  }
  snk::Matrix M(&snk::types::FP32, r, c);
  M.build(I.data(), J.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return M;
}

}  // namespace snk_test
