// layers/functions.cpp: activations, dropout and softmax cross-entropy (functions.hpp) as GraphBLAS calls. Row-wise
// steps use the classic GraphBLAS idioms: a row reduction to a vector, then a diagonal matrix of that vector times
// the batch (PLUS_TIMES scales rows; MIN_PLUS adds a value to each row, the diagonal having one entry per row).
#include "functions.hpp"

#include <cmath>
#include <random>
#include <string>

#include "calls.hpp"

namespace snk::layers {
namespace {

using calls::op;
using calls::scalar;
using calls::sum_of;
using calls::unary;

const Type* float_type(const Matrix& X, const char* who) {
  if (X.type() != &types::FP32 && X.type() != &types::FP64)
    throw Error(Info::DomainMismatch, std::string(who) + ": the batch must be FP32 or FP64, not " + X.type()->name);
  return X.type();
}

void same_shape(const Matrix& A, const Matrix& B, const char* who) {
  if (A.nrows() != B.nrows() || A.ncols() != B.ncols())
    throw Error(Info::DimensionMismatch, std::string(who) + ": the gradient is " + std::to_string(B.nrows()) + " x " +
                                             std::to_string(B.ncols()) + " but the forward pass's batch is " +
                                             std::to_string(A.nrows()) + " x " + std::to_string(A.ncols()));
  if (A.type() != B.type())
    throw Error(Info::DomainMismatch, std::string(who) + ": the gradient's type differs from the batch's");
}

// C = A * s (a new matrix of A's pattern).
Matrix scaled(const Matrix& A, double s) {
  Matrix C(A.type(), A.nrows(), A.ncols());
  apply_bind_second(C, nullptr, nullptr, op(BinaryOpcode::Times, A.type()), A, scalar(A.type(), s));
  return C;
}

// tanh(sqrt(2 / pi) (x + 0.044715 x^3)) at X's entries, and x^2.
struct GeluParts {
  Matrix t, x2;
};
constexpr double kGeluA = 0.044715;
const double kGeluK = std::sqrt(2.0 / 3.14159265358979323846);

GeluParts gelu_parts(const Matrix& X) {
  const Type* t = X.type();
  const BinaryOp& times = op(BinaryOpcode::Times, t);
  Matrix x2(t, X.nrows(), X.ncols()), x3(t, X.nrows(), X.ncols());
  ewise_mult(x2, nullptr, nullptr, times, X, X);
  ewise_mult(x3, nullptr, nullptr, times, x2, X);
  Matrix inner = X;   // x + a x^3, then times k
  apply_bind_second(inner, nullptr, &op(BinaryOpcode::Plus, t), times, x3, scalar(t, kGeluA));
  apply_bind_second(inner, nullptr, nullptr, times, inner, scalar(t, kGeluK));
  apply(inner, nullptr, nullptr, unary(UnaryOpcode::Tanh, t), inner);
  return GeluParts{std::move(inner), std::move(x2)};
}

}  // namespace

Matrix relu(const Matrix& X) {
  const Type* t = float_type(X, "relu");
  Matrix Y(t, X.nrows(), X.ncols());
  apply_bind_second(Y, nullptr, nullptr, op(BinaryOpcode::Max, t), X, scalar(t, 0.0));
  return Y;
}

Matrix relu_backward(const Matrix& Y, const Matrix& dY) {
  const Type* t = float_type(Y, "relu_backward");
  same_shape(Y, dY, "relu_backward");
  Matrix dX(t, Y.nrows(), Y.ncols());   // dX<Y != 0> = dY: Y = relu(X) is non-zero exactly where X > 0
  apply(dX, &Y, nullptr, unary(UnaryOpcode::Identity, t), dY);
  return dX;
}

Matrix gelu(const Matrix& X) {
  const Type* t = float_type(X, "gelu");
  GeluParts p = gelu_parts(X);
  apply_bind_second(p.t, nullptr, nullptr, op(BinaryOpcode::Plus, t), p.t, scalar(t, 1.0));   // 1 + tanh
  Matrix Y(t, X.nrows(), X.ncols());
  ewise_mult(Y, nullptr, nullptr, op(BinaryOpcode::Times, t), X, p.t);
  return scaled(Y, 0.5);
}

Matrix gelu_backward(const Matrix& X, const Matrix& dY) {
  const Type* t = float_type(X, "gelu_backward");
  same_shape(X, dY, "gelu_backward");
  const BinaryOp &times = op(BinaryOpcode::Times, t), &plus = op(BinaryOpcode::Plus, t);
  // gelu'(x) = 0.5 + 0.5 tanh + 0.5 k x (1 - tanh^2)(1 + 3 a x^2). An absent x is 0, where gelu' is 0.5, so
  // dX = 0.5 dY everywhere dY is, plus dY * (gelu'(x) - 0.5) where X is present.
  GeluParts p = gelu_parts(X);
  Matrix sech2(t, X.nrows(), X.ncols());   // 1 - tanh^2
  ewise_mult(sech2, nullptr, nullptr, times, p.t, p.t);
  apply_bind_second(sech2, nullptr, nullptr, times, sech2, scalar(t, -1.0));
  apply_bind_second(sech2, nullptr, nullptr, plus, sech2, scalar(t, 1.0));
  Matrix q = scaled(p.x2, 3.0 * kGeluA);   // 1 + 3 a x^2
  apply_bind_second(q, nullptr, nullptr, plus, q, scalar(t, 1.0));
  Matrix rest(t, X.nrows(), X.ncols());   // 0.5 k x (1 - tanh^2)(1 + 3 a x^2)
  ewise_mult(rest, nullptr, nullptr, times, X, sech2);
  ewise_mult(rest, nullptr, nullptr, times, rest, q);
  apply_bind_second(rest, nullptr, nullptr, times, rest, scalar(t, 0.5 * kGeluK));
  apply_bind_second(rest, nullptr, &plus, times, p.t, scalar(t, 0.5));   // + 0.5 tanh
  Matrix dX = scaled(dY, 0.5);
  Matrix extra(t, X.nrows(), X.ncols());
  ewise_mult(extra, nullptr, nullptr, times, dY, rest);
  ewise_add(dX, nullptr, nullptr, plus, dX, extra);
  return dX;
}

Dropout dropout(const Matrix& X, double p, std::uint64_t seed) {
  const Type* t = float_type(X, "dropout");
  if (!(p >= 0.0 && p < 1.0))
    throw Error(Info::InvalidValue, "dropout: p must lie in [0, 1), not " + std::to_string(p));
  const Index nr = X.nrows(), nc = X.ncols();
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution keep(1.0 - p);
  std::vector<Index> I, J;
  for (Index i = 0; i < nr; ++i)
    for (Index j = 0; j < nc; ++j)
      if (keep(rng)) {
        I.push_back(i);
        J.push_back(j);
      }
  const std::vector<double> v(I.size(), 1.0 / (1.0 - p));
  Dropout d{Matrix(t, nr, nc), Matrix(t, nr, nc)};
  d.mask.build(I.data(), J.data(), v.data(), &types::FP64, I.size(), nullptr);
  ewise_mult(d.output, nullptr, nullptr, op(BinaryOpcode::Times, t), X, d.mask);
  return d;
}

Matrix dropout_backward(const Matrix& mask, const Matrix& dY) {
  float_type(mask, "dropout_backward");
  same_shape(mask, dY, "dropout_backward");
  Matrix dX(dY.type(), dY.nrows(), dY.ncols());
  ewise_mult(dX, nullptr, nullptr, op(BinaryOpcode::Times, dY.type()), dY, mask);
  return dX;
}

SoftmaxCrossEntropy softmax_cross_entropy(const Matrix& Z, const std::vector<std::uint8_t>& labels) {
  const Type* t = float_type(Z, "softmax_cross_entropy");
  const Index batch = Z.nrows(), classes = Z.ncols();
  if (static_cast<Index>(labels.size()) != batch)
    throw Error(Info::DimensionMismatch, "softmax_cross_entropy: " + std::to_string(labels.size()) +
                                             " labels for a batch of " + std::to_string(batch));
  if (batch == 0 || classes == 0)
    throw Error(Info::InvalidValue, "softmax_cross_entropy: the logits are empty (" + std::to_string(batch) + " x " +
                                        std::to_string(classes) + ")");
  for (Index i = 0; i < batch; ++i)
    if (labels[i] >= classes)
      throw Error(Info::InvalidValue, "softmax_cross_entropy: label " + std::to_string(labels[i]) + " of row " +
                                          std::to_string(i) + " is not below the " + std::to_string(classes) +
                                          " classes");
  if (Z.nvals() != batch * classes)
    throw Error(Info::InvalidValue, "softmax_cross_entropy: the logits must hold every entry (" +
                                        std::to_string(Z.nvals()) + " of " + std::to_string(batch * classes) + ")");
  // S = Z - rowmax(Z) (MIN_PLUS with diag(-max) adds -max(i) to row i).
  Vector m(t, batch);
  reduce(m, nullptr, nullptr, *builtin_monoid(BinaryOpcode::Max, t->code), Z);
  apply(m, nullptr, nullptr, unary(UnaryOpcode::AInv, t), m);
  Matrix S(t, batch, classes);
  mxm(S, nullptr, nullptr, *builtin_semiring(BinaryOpcode::Min, BinaryOpcode::Plus, t->code), Matrix::diag(m, 0), Z);
  // E = exp(S), s = row sums, P = diag(1 / s) E.
  Matrix E(t, batch, classes);
  apply(E, nullptr, nullptr, unary(UnaryOpcode::Exp, t), S);
  Vector s(t, batch);
  reduce(s, nullptr, nullptr, *builtin_monoid(BinaryOpcode::Plus, t->code), E);
  Vector inv(t, batch);
  apply(inv, nullptr, nullptr, unary(UnaryOpcode::MInv, t), s);
  Matrix P(t, batch, classes);
  mxm(P, nullptr, nullptr, calls::plus_times(t), Matrix::diag(inv, 0), E);
  // The labels' entries of S: loss = mean(log s - S[label]); a row is right where S[label] = 0 (its maximum).
  std::vector<Index> I(batch), J(batch);
  for (Index i = 0; i < batch; ++i) {
    I[i] = i;
    J[i] = labels[i];
  }
  const std::vector<double> ones(batch, 1.0);
  Matrix onehot(t, batch, classes);
  onehot.build(I.data(), J.data(), ones.data(), &types::FP64, batch, nullptr);
  Matrix picked(t, batch, classes);
  Descriptor structural;
  structural.mask_structure = true;
  apply(picked, &onehot, nullptr, unary(UnaryOpcode::Identity, t), S, structural);
  Vector logs(t, batch);
  apply(logs, nullptr, nullptr, unary(UnaryOpcode::Log, t), s);
  SoftmaxCrossEntropy out;
  out.loss = (sum_of(logs.as_matrix()) - sum_of(picked)) / static_cast<double>(batch);
  Matrix right(t, batch, classes);
  select(right, nullptr, nullptr, *builtin_index_unary_op(IndexUnaryOpcode::ValueEq, t->code), picked, scalar(t, 0.0));
  out.correct = right.nvals();
  // grad = (P - onehot) / batch
  Matrix G(t, batch, classes);
  ewise_add(G, nullptr, nullptr, op(BinaryOpcode::Minus, t), P, onehot);
  out.grad = scaled(G, 1.0 / static_cast<double>(batch));
  return out;
}

}  // namespace snk::layers
