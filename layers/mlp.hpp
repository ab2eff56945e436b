// layers/mlp.hpp: a multilayer perceptron of SparseLinear layers for classification, the network snack-train trains:
// linear layers with an activation (and optional dropout) between them and softmax cross-entropy on the last one's
// output. One training step is forward, loss, backward (every layer's gradients left in the layer), then the
// caller's optimizers and rewiring; the inputs and output gradients of the last step stay available for RigL.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "functions.hpp"
#include "optim.hpp"
#include "sparse_linear.hpp"

namespace snk::layers {

enum class Activation { Relu, Gelu };

struct MlpSpec {
  std::vector<Index> sizes;        // in, hidden..., classes (at least two)
  std::vector<double> densities;   // one per layer (sizes.size() - 1), each in (0, 1]
  Activation activation = Activation::Relu;
  double dropout = 0.0;            // after each hidden activation, in [0, 1)
  bool bias = true;
  const Type* type = &types::FP32;
};

class Mlp {
 public:
  // InvalidValue for fewer than two sizes, a zero size, or a density count other than the layer count.
  Mlp(const MlpSpec& spec, std::uint64_t seed);

  struct Result {
    double loss = 0;   // mean over the batch
    Index correct = 0;
  };
  // Forward and backward on one batch X (batch x sizes[0], the network's type) with its labels; leaves every layer's
  // gradients, and where keep_for_rewiring, keeps what rigl_rewire needs (each layer's input and output gradient;
  // without it the layers take them for their weight gradients, and nothing is copied). dropout_seed draws the
  // dropout masks.
  Result train_batch(const Matrix& X, const std::vector<std::uint8_t>& labels, std::uint64_t dropout_seed,
                     bool keep_for_rewiring = true);
  // Forward only, without dropout.
  Result evaluate(const Matrix& X, const std::vector<std::uint8_t>& labels) const;

  std::vector<SparseLinear>& layers() { return layers_; }
  const std::vector<SparseLinear>& layers() const { return layers_; }
  // Layer l's input and output gradient from the last train_batch that kept them (empty matrices otherwise).
  const Matrix& last_input(std::size_t l) const { return inputs_.at(l); }
  const Matrix& last_output_grad(std::size_t l) const { return output_grads_.at(l); }

  Index weights() const;              // stored weights over all layers
  Index dense_weights() const;        // what the same shapes hold dense
  std::size_t parameter_bytes() const;   // weights and biases, values and indices, and their gradients

 private:
  Matrix logits(const Matrix& X, bool train, std::uint64_t seed, std::vector<Matrix>* kept) const;

  MlpSpec spec_;
  std::vector<SparseLinear> layers_;
  std::vector<Matrix> inputs_, output_grads_;
};

}  // namespace snk::layers
