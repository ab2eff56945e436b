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
// A batch may also be held features by batch (BatchLayout::Features: X^T, Y^T, dY^T, dX^T), each pass then computing
// the same products of the operands as they lie. Absent entries of X, Y and the gradients are zeros. W's pattern
// never changes here (rewiring is DST's job). The values are FP32, or FP64 (for gradient checks): the batches a layer
// takes must be of its type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "snack/snack.hpp"

namespace snk::layers {

// How a batch of n inputs of f features each is held: Rows, n x f (torch.nn.Linear's layout); Features, f x n (its
// transpose: each feature's n values in one row). On a GPU the products walk the batch along rows, so they read and
// write Features in place where Rows costs a transposed copy of the operand; a chain of layers passing Features keeps
// its activations and gradients in that layout.
enum class BatchLayout { Rows, Features };

// An empty batch of n rows of `features` values of `type`, held as `layout`: n x features (Rows) or features x n.
inline Matrix empty_batch(const Type* type, Index n, Index features, BatchLayout layout) {
  return layout == BatchLayout::Rows ? Matrix(type, n, features) : Matrix(type, features, n);
}

// The operands of a weight gradient dW<W> = op(dy) op(x) (op: the descriptor's transposes), while it is not made.
struct WeightGradInputs {
  const Matrix* dy = nullptr;
  const Matrix* x = nullptr;
  Descriptor descriptor;
};

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
  Matrix forward(const Matrix& X) const { return forward(X, BatchLayout::Rows, BatchLayout::Rows); }
  // The same for X held as x_layout, Y made as y_layout: one product of the operands as they lie (Y = X' W^T, or
  // Y^T = W X'^T, with X' = X or the transpose of X held by features). with_bias false: Y = X W^T alone, for a caller
  // that adds the bias itself in place (PyTorch's add_), so that no array of Y's size is made for the bias's term.
  Matrix forward(const Matrix& X, BatchLayout x_layout, BatchLayout y_layout, bool with_bias = true) const;
  // The same into Y, of the shape y_layout gives (DimensionMismatch otherwise) and the layer's type, whose content it
  // replaces: where Y lies in memory lent for results (snk::borrow_device_output), the product is written there.
  void forward(const Matrix& X, BatchLayout x_layout, Matrix& Y, BatchLayout y_layout, bool with_bias = true) const;
  // Given the input X of the forward pass and dY = dLoss/dY (batch x out), computes db and returns dX = dY W
  // (batch x in). dW (at W's positions) is made from duplicates of X and dY kept until the next call: by
  // weight_grad(), or within an optimizer's step that takes it (weight_grad_inputs), which never stores it.
  Matrix backward(const Matrix& X, const Matrix& dY);
  // The same, keeping X and dY themselves for dW (no duplicates): for a caller that has no use for them after.
  Matrix backward(Matrix&& X, Matrix&& dY) {
    return backward(std::move(X), BatchLayout::Rows, std::move(dY), BatchLayout::Rows, BatchLayout::Rows);
  }
  // The same for X and dY held as x_layout and dy_layout, dX made as dx_layout.
  Matrix backward(Matrix&& X, BatchLayout x_layout, Matrix&& dY, BatchLayout dy_layout, BatchLayout dx_layout);
  // The same into dX, as forward's Y (every argument checked before anything changes).
  void backward(Matrix&& X, BatchLayout x_layout, Matrix&& dY, BatchLayout dy_layout, Matrix& dX,
                BatchLayout dx_layout);

  Matrix& weight() { return W_; }
  const Matrix& weight() const { return W_; }
  // dW of the last backward; made at its first request after that backward, at W's positions then (one layer's
  // weight_grad must not run on two threads at once).
  Matrix& weight_grad();
  const Matrix& weight_grad() const;
  // X and dY of the last backward, with the transposes that make dW<W> = dY^T X of them, while its dW is not made yet
  // (weight_grad makes it), null pointers otherwise: an optimizer takes dW from them within its step
  // (snk::optimizer_step_sampled).
  WeightGradInputs weight_grad_inputs() const;
  // Drops dW and the backward's operands kept to make it, as before the first backward (weight_grad() then holds no
  // entry): for a caller done with them (the C interface hands dW out within the backward call), so that neither the
  // gradient nor the batch it came from stays in memory, nor a batch borrowed for the call past its end.
  void release_weight_grad() noexcept;
  Vector& bias() { return b_; }
  const Vector& bias() const { return b_; }
  Vector& bias_grad() { return db_; }
  const Vector& bias_grad() const { return db_; }

 private:
  Matrix W_;
  mutable Matrix dW_;
  mutable bool dW_pending_ = false;   // dW_ is not made yet from grad_x_ and grad_dy_
  mutable Matrix grad_x_, grad_dy_;   // the last backward's X and dY while dW_ is pending (emptied once it is made)
  void drop_grad_operands() const;    // empties grad_x_ and grad_dy_
  Descriptor grad_descriptor_;        // dW<W> = op(grad_dy_) op(grad_x_), as they are held
  Vector b_, db_;
  bool has_bias_;
  // Types and shapes of a backward's operands.
  void check_backward(const Matrix& X, BatchLayout x_layout, const Matrix& dY, BatchLayout dy_layout) const;
  mutable Matrix ones_;   // batch x 1, every entry 1: the bias's broadcast (forward, either layout)
};

// A matrix's bytes held in compressed rows (a value and a column index per entry, a row pointer per row): how the
// layers count the memory of weights, gradients and optimizer state.
std::size_t csr_bytes(const Matrix& M);

}  // namespace snk::layers
