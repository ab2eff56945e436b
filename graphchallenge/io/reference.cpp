// Row-at-a-time double-precision SpDNN inference (see reference.hpp). Each input row is carried through all
// layers as a sparse vector: a dense accumulator of `neurons` doubles plus the list of touched positions, so
// the work per layer is proportional to the row's nonzeros times 32, and a row that dies stops early.
#include "io/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "host/threads.hpp"

namespace snk::gc {

std::vector<int64_t> reference_infer(const Network& net, const CsrMatrix& inputs, const ReferenceOptions& options) {
  const int64_t n = net.neurons;
  const int64_t layers = options.layers < 0 ? static_cast<int64_t>(net.layers.size())
                                            : std::min<int64_t>(options.layers, static_cast<int64_t>(net.layers.size()));
  if (inputs.ncols != n) throw std::invalid_argument("reference_infer: inputs have " + std::to_string(inputs.ncols) + " columns, network has " + std::to_string(n) + " neurons");
  for (int64_t k = 0; k < layers; ++k) {
    const auto& w = net.layers[k];
    if (w.nrows != n || w.ncols != n) throw std::invalid_argument("reference_infer: layer " + std::to_string(k + 1) + " is not neurons x neurons");
  }
  const double bias = net.bias;
  // Every challenge bias is negative; a positive one would make every neuron live and the rule dense.
  if (bias > 0) throw std::invalid_argument("reference_infer: a positive bias is not supported (the challenge's is negative)");
  const int64_t rows = inputs.nrows;
  std::vector<char> alive(static_cast<size_t>(rows), 0);
  if (options.margins) options.margins->assign(static_cast<size_t>(rows), std::numeric_limits<double>::infinity());

  auto run = [&](int64_t rb, int64_t re) {
    std::vector<double> acc(static_cast<size_t>(n), 0.0);
    std::vector<char> touched_flag(static_cast<size_t>(n), 0);
    std::vector<int32_t> idx, next_idx;
    std::vector<double> y, next_y;
    for (int64_t r = rb; r < re; ++r) {
      double margin = std::numeric_limits<double>::infinity();
      idx.clear();
      y.clear();
      for (int64_t k = inputs.row_ptr[r]; k < inputs.row_ptr[r + 1]; ++k) {
        idx.push_back(inputs.col[k]);
        y.push_back(inputs.val[k]);
      }
      for (int64_t l = 0; l < layers && !idx.empty(); ++l) {
        const auto& w = net.layers[l];
        next_idx.clear();
        for (size_t a = 0; a < idx.size(); ++a) {
          const double ya = y[a];
          const int32_t i = idx[a];
          for (int64_t k = w.row_ptr[i]; k < w.row_ptr[i + 1]; ++k) {
            const int32_t j = w.col[k];
            if (!touched_flag[j]) { touched_flag[j] = 1; next_idx.push_back(j); }
            acc[j] += ya * static_cast<double>(w.val[k]);
          }
        }
        // Only positions reached by Y W get the bias: an untouched neuron is 0 + b <= 0, cut by the ReLU.
        std::sort(next_idx.begin(), next_idx.end());
        idx.clear();
        y.clear();
        for (int32_t j : next_idx) {
          double v = acc[j] + bias;
          if (options.margins) margin = std::min(margin, std::fabs(v));
          acc[j] = 0.0;
          touched_flag[j] = 0;
          if (v > 0.0) {
            idx.push_back(j);
            y.push_back(std::min(v, kChallengeClamp));
          }
        }
      }
      alive[r] = !idx.empty();
      if (options.margins) (*options.margins)[static_cast<size_t>(r)] = margin;
    }
  };

  const int threads = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(options.threads > 0 ? options.threads : host::usable_cores(),
                                             rows / 64 + 1)));
  host::for_each_slice(rows, threads, run);   // one accumulator a slice

  std::vector<int64_t> out;
  for (int64_t r = 0; r < rows; ++r) if (alive[r]) out.push_back(r);
  return out;
}

}  // namespace snk::gc
