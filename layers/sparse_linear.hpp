// layers/sparse_linear.hpp: SparseLinear, a linear layer that stores and computes only its non-zeros, built from
// the library's GraphBLAS operations (so it runs on whichever backend the thread uses). Its optimizers are in
// optim.hpp, its rewiring in dst.hpp.
//
// Shapes follow torch.nn.Linear: the weights W are out x in (a sparse FP32 Matrix: row j holds neuron j's inputs),
// a batch X is batch x in, the output Y = X W^T + b is batch x out. The passes are:
//   forward   Y = X W^T (+ b broadcast over the batch, as a rank-one product with a column of ones);
//   backward  dX = dY W;  dW<W> = dY^T X, only at W's stored positions (SDDMM: a masked product), made when asked
//             or within an optimizer's step (snk::optimizer_step_sampled: a backend may then never store it);
//             db = the column sums of dY.
// Absent entries of X, Y and the gradients are zeros. W's pattern never changes here (rewiring is DST's job). The
// values are FP32, or FP64 (for gradient checks): the batches a layer takes must be of its type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "snack/snack.hpp"

namespace snk::layers {

class SparseLinear {
 public:
  // Each neuron (row of W) gets max(1, round(density * in)) distinct inputs drawn at random; its weights and bias
  // are drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in its own number of inputs (torch.nn.Linear's
  // scale, from the real fan-in). Throws Error(InvalidValue) for zero features or a density outside (0, 1], and
  // DomainMismatch for a value type other than FP32 and FP64.
  SparseLinear(Index in_features, Index out_features, double density, std::uint64_t seed, bool bias = true,
               const Type* type = &types::FP32);

  Index in_features() const { return W_.ncols(); }
  Index out_features() const { return W_.nrows(); }
  bool has_bias() const { return has_bias_; }
  const Type* type() const { return W_.type(); }
  double density() const {
    return static_cast<double>(W_.nvals()) / (static_cast<double>(W_.nrows()) * static_cast<double>(W_.ncols()));
  }

  // Y = X W^T + b for X of batch x in, of the layer's type (DomainMismatch otherwise); DimensionMismatch for
  // another width. Keeps the column of ones of the last batch size for the bias (so its device copy and product
  // plan are made once): one layer's forward must not run on two threads at once.
  Matrix forward(const Matrix& X) const;
  // Given the input X of the forward pass and dY = dLoss/dY (batch x out), computes db and returns dX = dY W
  // (batch x in). dW (at W's positions) is made from duplicates of X and dY kept until the next call: by
  // weight_grad(), or within an optimizer's step that takes it (weight_grad_inputs), which never stores it.
  Matrix backward(const Matrix& X, const Matrix& dY);
  // The same, keeping X and dY themselves for dW (no duplicates): for a caller that has no use for them after.
  Matrix backward(Matrix&& X, Matrix&& dY);

  Matrix& weight() { return W_; }
  const Matrix& weight() const { return W_; }
  // dW of the last backward; made at its first request after that backward, at W's positions then (one layer's
  // weight_grad must not run on two threads at once).
  Matrix& weight_grad();
  const Matrix& weight_grad() const;
  // X and dY of the last backward while its dW is not made yet (weight_grad makes it), null pointers otherwise: an
  // optimizer takes dW<W> = dY^T X from them within its step (snk::optimizer_step_sampled).
  std::pair<const Matrix*, const Matrix*> weight_grad_inputs() const;
  Vector& bias() { return b_; }
  const Vector& bias() const { return b_; }
  Vector& bias_grad() { return db_; }
  const Vector& bias_grad() const { return db_; }

 private:
  Matrix W_;
  mutable Matrix dW_;
  mutable bool dW_pending_ = false;   // dW_ is not made yet from grad_x_ and grad_dy_
  mutable Matrix grad_x_, grad_dy_;   // the last backward's X and dY while dW_ is pending (emptied once it is made)
  Vector b_, db_;
  bool has_bias_;
  void check_backward(const Matrix& X, const Matrix& dY) const;   // types and shapes of a backward's operands
  Matrix backward_checked(Matrix&& X, Matrix&& dY);                // backward on operands already checked
  mutable Matrix ones_;   // batch x 1, every entry 1: the bias's broadcast (forward)
};

// A matrix's bytes held in compressed rows (a value and a column index per entry, a row pointer per row): how the
// layers count the memory of weights, gradients and optimizer state.
std::size_t csr_bytes(const Matrix& M);

}  // namespace snk::layers
