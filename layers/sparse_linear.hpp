// layers/sparse_linear.hpp: SparseLinear, a linear layer that stores and computes only its non-zeros, built from
// the library's GraphBLAS operations (so it runs on whichever backend the thread uses), SGD with momentum whose
// state lives per non-zero, and gradient clipping.
//
// Shapes follow torch.nn.Linear: the weights W are out x in (a sparse FP32 Matrix: row j holds neuron j's inputs),
// a batch X is batch x in, the output Y = X W^T + b is batch x out. The passes are:
//   forward   Y = X W^T (+ b broadcast over the batch, as a rank-one product with a column of ones);
//   backward  dX = dY W;  dW<W> = dY^T X, only at W's stored positions (SDDMM: a masked product);
//             db = the column sums of dY.
// Absent entries of X, Y and the gradients are zeros. W's pattern never changes here (rewiring is DST's job).
#pragma once

#include <cstdint>
#include <vector>

#include "snack/snack.hpp"

namespace snk::layers {

class SparseLinear {
 public:
  // Each neuron (row of W) gets max(1, round(density * in)) distinct inputs drawn at random; its weights and bias
  // are drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in its own number of inputs (torch.nn.Linear's
  // scale, from the real fan-in). Throws Error(InvalidValue) for zero features or a density outside (0, 1].
  SparseLinear(Index in_features, Index out_features, double density, std::uint64_t seed, bool bias = true);

  Index in_features() const { return W_.ncols(); }
  Index out_features() const { return W_.nrows(); }
  bool has_bias() const { return has_bias_; }

  // Y = X W^T + b for X of batch x in (FP32); DimensionMismatch otherwise.
  Matrix forward(const Matrix& X) const;
  // Given the input X of the forward pass and dY = dLoss/dY (batch x out), computes dW (at W's positions) and db,
  // kept until the next call, and returns dX = dY W (batch x in).
  Matrix backward(const Matrix& X, const Matrix& dY);

  Matrix& weight() { return W_; }
  const Matrix& weight() const { return W_; }
  Matrix& weight_grad() { return dW_; }
  const Matrix& weight_grad() const { return dW_; }
  Vector& bias() { return b_; }
  const Vector& bias() const { return b_; }
  Vector& bias_grad() { return db_; }
  const Vector& bias_grad() const { return db_; }

 private:
  Matrix W_, dW_;
  Vector b_, db_;
  bool has_bias_;
};

// Gradient clipping by the global norm (torch.nn.utils.clip_grad_norm_): the 2-norm of every layer's dW and db
// together, computed by GraphBLAS reductions; where it exceeds max_norm, every gradient is scaled by
// max_norm / (norm + 1e-6). Returns the norm before clipping. InvalidValue unless max_norm > 0.
double clip_grad_norm(const std::vector<SparseLinear*>& layers, double max_norm);

// SGD with momentum and weight decay, per non-zero: v = momentum * v + (dW + weight_decay * W), W -= lr * v (and the
// same for the bias, without decay). The velocity has W's pattern; W keeps its non-zero count.
class SgdMomentum {
 public:
  SgdMomentum(float lr, float momentum = 0.9f, float weight_decay = 0.0f)
      : lr_(lr), momentum_(momentum), weight_decay_(weight_decay) {}
  // One step from the gradients the layer's last backward() left.
  void step(SparseLinear& layer);
  float lr() const { return lr_; }
  void set_lr(float lr) { lr_ = lr; }
  // After a rewiring of the layer's weights (dst.hpp): the velocity is kept at `keep`'s positions and starts at zero
  // at `grown`'s (defined in dst.cpp).
  void rewire(const Matrix& keep, const Matrix& grown);

 private:
  float lr_, momentum_, weight_decay_;
  Matrix vw_{&types::FP32, 0, 0};
  Vector vb_{&types::FP32, 0};
  bool started_ = false;
};

}  // namespace snk::layers
