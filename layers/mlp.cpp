// layers/mlp.cpp: the Mlp's construction, forward pass (kept for backward), loss and backward pass (mlp.hpp).
#include "mlp.hpp"

#include <string>
#include <utility>

namespace snk::layers {

Mlp::Mlp(const MlpSpec& spec, std::uint64_t seed) : spec_(spec) {
  if (spec.sizes.size() < 2) throw Error(Info::InvalidValue, "Mlp: give at least an input size and a class count");
  if (spec.densities.size() != spec.sizes.size() - 1)
    throw Error(Info::InvalidValue, "Mlp: " + std::to_string(spec.densities.size()) + " densities for " +
                                        std::to_string(spec.sizes.size() - 1) + " layers");
  if (!(spec.dropout >= 0.0 && spec.dropout < 1.0))
    throw Error(Info::InvalidValue, "Mlp: dropout must lie in [0, 1), not " + std::to_string(spec.dropout));
  for (std::size_t l = 0; l + 1 < spec.sizes.size(); ++l)
    layers_.emplace_back(spec.sizes[l], spec.sizes[l + 1], spec.densities[l], seed + 0x9e3779b97f4a7c15ull * (l + 1),
                         spec.bias, spec.type);
}

// The logits of X. With `kept`, the pass keeps what backward needs: for each layer l its input (kept[2l]) and the
// activation's output before dropout (kept[2l + 1], hidden layers only) and the dropout mask (kept[2l + 2]).
Matrix Mlp::logits(const Matrix& X, bool train, std::uint64_t seed, std::vector<Matrix>* kept) const {
  Matrix h = X;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    if (kept) kept->push_back(h);
    Matrix a = layers_[l].forward(h);
    if (l + 1 == layers_.size()) return a;
    if (spec_.activation == Activation::Relu) {
      h = relu(a);
      if (kept) kept->push_back(h);   // relu_backward reads the output
    } else {
      if (kept) kept->push_back(a);   // gelu_backward reads the input
      h = gelu(a);
    }
    if (train && spec_.dropout > 0.0) {
      Dropout d = dropout(h, spec_.dropout, seed + l);
      h = std::move(d.output);
      if (kept) kept->push_back(std::move(d.mask));
    } else if (kept) {
      kept->push_back(Matrix(h.type(), 0, 0));
    }
  }
  return h;   // not reached: the last layer returns above
}

Mlp::Result Mlp::train_batch(const Matrix& X, const std::vector<std::uint8_t>& labels, std::uint64_t dropout_seed,
                              bool keep_for_rewiring) {
  std::vector<Matrix> kept;
  const Matrix z = logits(X, true, dropout_seed, &kept);
  SoftmaxCrossEntropy ce = softmax_cross_entropy(z, labels);
  const std::size_t L = layers_.size();
  inputs_.assign(L, Matrix(spec_.type, 0, 0));
  output_grads_.assign(L, Matrix(spec_.type, 0, 0));
  Matrix g = std::move(ce.grad);
  for (std::size_t l = L; l-- > 0;) {
    if (keep_for_rewiring) {   // copies for rigl_rewire; the layer takes the originals for dW
      inputs_[l] = kept[3 * l];
      output_grads_[l] = g;
    }
    g = layers_[l].backward(std::move(kept[3 * l]), std::move(g));
    if (l == 0) break;
    // Back through layer l - 1's dropout and activation.
    const Matrix& mask = kept[3 * (l - 1) + 2];
    if (mask.nrows() > 0) g = dropout_backward(mask, g);
    const Matrix& act = kept[3 * (l - 1) + 1];
    g = spec_.activation == Activation::Relu ? relu_backward(act, g) : gelu_backward(act, g);
  }
  return Result{ce.loss, ce.correct};
}

Mlp::Result Mlp::evaluate(const Matrix& X, const std::vector<std::uint8_t>& labels) const {
  const SoftmaxCrossEntropy ce = softmax_cross_entropy(logits(X, false, 0, nullptr), labels);
  return Result{ce.loss, ce.correct};
}

Index Mlp::weights() const {
  Index n = 0;
  for (const SparseLinear& l : layers_) n += l.weight().nvals();
  return n;
}

Index Mlp::dense_weights() const {
  Index n = 0;
  for (const SparseLinear& l : layers_) n += l.in_features() * l.out_features();
  return n;
}

std::size_t Mlp::parameter_bytes() const {
  std::size_t bytes = 0;
  for (const SparseLinear& l : layers_) {
    // W and dW in compressed rows (dW has W's pattern); b and db: a value per output.
    bytes += 2 * csr_bytes(l.weight());
    if (l.has_bias()) bytes += 2 * static_cast<std::size_t>(l.out_features()) * l.type()->size;
  }
  return bytes;
}

}  // namespace snk::layers
