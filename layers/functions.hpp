// layers/functions.hpp: the pieces of a network between its linear layers (activations, dropout, softmax
// cross-entropy), each a few GraphBLAS calls on the thread's backend, so that a network's whole step stays where its
// layers' data lives.
//
// Batches are batch x features matrices of FP32 or FP64 (absent entries are zeros). Each forward function has a
// backward partner that takes what the forward pass kept and the gradient of its output, and returns the gradient of
// its input.
#pragma once

#include <cstdint>
#include <vector>

#include "snack/snack.hpp"

namespace snk::layers {

// ReLU: max(x, 0), entry-wise (present entries stay present). relu_backward(Y, dY) = dY where Y > 0, else absent.
Matrix relu(const Matrix& X);
Matrix relu_backward(const Matrix& Y, const Matrix& dY);

// GELU in the tanh form (Hendrycks and Gimpel; torch's approximate="tanh"):
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). gelu_backward(X, dY) = dY * gelu'(X), X being gelu's input.
Matrix gelu(const Matrix& X);
Matrix gelu_backward(const Matrix& X, const Matrix& dY);

// Inverted dropout: each entry of X is kept with probability 1 - p and scaled by 1 / (1 - p), else dropped; the
// returned mask (the kept positions, scaled values 1 / (1 - p)) serves dropout_backward: dX = dY * mask. p in [0, 1)
// (InvalidValue otherwise); p = 0 keeps everything. Deterministic for a seed.
struct Dropout {
  Matrix output, mask;
};
Dropout dropout(const Matrix& X, double p, std::uint64_t seed);
Matrix dropout_backward(const Matrix& mask, const Matrix& dY);

// Softmax cross-entropy over the rows of the logits Z (batch x classes) against integer labels (one per row, each
// < classes; InvalidValue otherwise, DimensionMismatch for a count other than batch):
//   loss = mean over rows of -log softmax(Z)[label],  grad = dloss/dZ = (softmax(Z) - onehot(labels)) / batch,
//   correct = rows whose largest logit is the label's (ties count as correct).
// Z must hold every entry (a full matrix; InvalidValue otherwise). The row maximum is subtracted before exp.
struct SoftmaxCrossEntropy {
  double loss = 0;
  Index correct = 0;
  Matrix grad{&types::FP32, 0, 0};
};
SoftmaxCrossEntropy softmax_cross_entropy(const Matrix& Z, const std::vector<std::uint8_t>& labels);

}  // namespace snk::layers
