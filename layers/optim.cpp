// layers/optim.cpp: SgdMomentum, Adam / AdamW and gradient clipping (optim.hpp), each a few GraphBLAS calls per
// parameter on the thread's backend. A bias vector is a 1 x n matrix (Vector::as_matrix), so weights and bias go
// through the same per-parameter routine.
#include "optim.hpp"

#include <cmath>
#include <string>

#include "calls.hpp"

namespace snk::layers {
namespace {

using calls::op;
using calls::scalar;
using calls::unary;

// A matrix with P's pattern and zero values (the state of a parameter before its first step).
Matrix zeros_like(const Matrix& P) {
  Matrix Z(P.type(), P.nrows(), P.ncols());
  apply_bind_second(Z, nullptr, nullptr, op(BinaryOpcode::Times, P.type()), P, scalar(P.type(), 0.0));
  return Z;
}

// The state matrix S for parameter P: zeros of P's pattern on first use; DimensionMismatch / DomainMismatch when the
// optimizer meets another layer than the one it started with.
void ensure_state(Matrix& S, const Matrix& P, bool started, const char* who) {
  if (!started) {
    S = zeros_like(P);
    return;
  }
  if (S.type() != P.type())
    throw Error(Info::DomainMismatch, std::string(who) + ": the layer's type changed since the first step");
  if (S.nrows() != P.nrows() || S.ncols() != P.ncols())
    throw Error(Info::DimensionMismatch, std::string(who) + ": the layer's shape changed since the first step");
}

// The rewired form of a state matrix (calls::keep_and_grow; `grown` holds zeros of the layer's type, the state's);
// a state not started yet (0 x 0) stays as it is.
void rewire_state(Matrix& X, const Matrix& keep, const Matrix& grown) {
  if (X.nrows() != keep.nrows() || X.ncols() != keep.ncols()) return;
  calls::keep_and_grow(X, keep, grown);
}

// The sum of the squares of a gradient's values.
double sum_of_squares(const Matrix& g) {
  Matrix sq(g.type(), g.nrows(), g.ncols());
  ewise_mult(sq, nullptr, nullptr, op(BinaryOpcode::Times, g.type()), g, g);
  return calls::sum_of(sq);
}

}  // namespace

std::size_t Optimizer::state_bytes() {
  std::size_t total = 0;
  for (auto& [name, M] : state()) total += csr_bytes(*M);
  return total;
}

// ---- SGD with momentum -------------------------------------------------------------------------------------------
void SgdMomentum::step(SparseLinear& layer) {
  const Type* t = layer.type();
  Matrix& W = layer.weight();
  ensure_state(vw_, W, steps_ > 0, "SgdMomentum::step");
  if (layer.has_bias()) ensure_state(vb_.as_matrix(), layer.bias().as_matrix(), steps_ > 0, "SgdMomentum::step");
  // g = dW + weight_decay * W (on W's pattern: dW's lies inside it).
  Matrix g = layer.weight_grad();
  if (weight_decay_ != 0.0f)
    apply_bind_second(g, nullptr, &op(BinaryOpcode::Plus, t), op(BinaryOpcode::Times, t), W,
                      scalar(t, weight_decay_));
  // v = momentum * v + g; W -= lr * v (the accumulator subtracts; v's pattern is W's, so W keeps its count).
  const auto update = [&](Matrix& v, Matrix& P, const Matrix& grad) {
    apply_bind_second(v, nullptr, nullptr, op(BinaryOpcode::Times, t), v, scalar(t, momentum_));
    ewise_add(v, nullptr, nullptr, op(BinaryOpcode::Plus, t), v, grad);
    apply_bind_second(P, nullptr, &op(BinaryOpcode::Minus, t), op(BinaryOpcode::Times, t), v, scalar(t, lr_));
  };
  update(vw_, W, g);
  if (layer.has_bias()) update(vb_.as_matrix(), layer.bias().as_matrix(), layer.bias_grad().as_matrix());
  ++steps_;
}

void SgdMomentum::rewire(const Matrix& keep, const Matrix& grown) { rewire_state(vw_, keep, grown); }

std::vector<std::pair<std::string, Matrix*>> SgdMomentum::state() {
  return {{"velocity_w", &vw_}, {"velocity_b", &vb_.as_matrix()}};
}

// ---- Adam / AdamW -----------------------------------------------------------------------------------------------
Adam::Adam(float lr, float beta1, float beta2, float eps, float weight_decay, bool decoupled)
    : Optimizer(lr), beta1_(beta1), beta2_(beta2), eps_(eps), weight_decay_(weight_decay), decoupled_(decoupled) {
  if (!(beta1 >= 0.0f && beta1 < 1.0f) || !(beta2 >= 0.0f && beta2 < 1.0f))
    throw Error(Info::InvalidValue, "Adam: beta1 and beta2 must lie in [0, 1), not " + std::to_string(beta1) + " and " +
                                        std::to_string(beta2));
  if (!(eps > 0.0f)) throw Error(Info::InvalidValue, "Adam: eps must be positive, not " + std::to_string(eps));
  if (!(lr >= 0.0f)) throw Error(Info::InvalidValue, "Adam: lr must not be negative, not " + std::to_string(lr));
  if (!(weight_decay >= 0.0f))
    throw Error(Info::InvalidValue, "Adam: weight_decay must not be negative, not " + std::to_string(weight_decay));
}

void Adam::step(SparseLinear& layer) {
  const Type* t = layer.type();
  Matrix& W = layer.weight();
  ensure_state(mw_, W, steps_ > 0, "Adam::step");
  ensure_state(vw_, W, steps_ > 0, "Adam::step");
  if (layer.has_bias()) {
    ensure_state(mb_.as_matrix(), layer.bias().as_matrix(), steps_ > 0, "Adam::step");
    ensure_state(vb_.as_matrix(), layer.bias().as_matrix(), steps_ > 0, "Adam::step");
  }
  const double step = static_cast<double>(steps_ + 1);
  const double c1 = 1.0 - std::pow(static_cast<double>(beta1_), step);
  const double c2 = 1.0 - std::pow(static_cast<double>(beta2_), step);
  const BinaryOp &times = op(BinaryOpcode::Times, t), &plus = op(BinaryOpcode::Plus, t);
  Matrix g = layer.weight_grad();
  if (weight_decay_ != 0.0f) {
    if (decoupled_)   // W *= 1 - lr * weight_decay
      apply_bind_second(W, nullptr, nullptr, times, W, scalar(t, 1.0 - double(lr_) * double(weight_decay_)));
    else   // g = dW + weight_decay * W
      apply_bind_second(g, nullptr, &plus, times, W, scalar(t, weight_decay_));
  }
  const auto update = [&](Matrix& m, Matrix& v, Matrix& P, const Matrix& grad) {
    const Index nr = P.nrows(), nc = P.ncols();
    // m = beta1 m + (1 - beta1) g
    apply_bind_second(m, nullptr, nullptr, times, m, scalar(t, beta1_));
    apply_bind_second(m, nullptr, &plus, times, grad, scalar(t, 1.0 - double(beta1_)));
    // v = beta2 v + (1 - beta2) g^2
    Matrix g2(t, nr, nc);
    ewise_mult(g2, nullptr, nullptr, times, grad, grad);
    apply_bind_second(v, nullptr, nullptr, times, v, scalar(t, beta2_));
    apply_bind_second(v, nullptr, &plus, times, g2, scalar(t, 1.0 - double(beta2_)));
    // d = sqrt(v / c2) + eps; P -= (lr / c1) * m / d
    Matrix d(t, nr, nc);
    apply_bind_second(d, nullptr, nullptr, times, v, scalar(t, 1.0 / c2));
    apply(d, nullptr, nullptr, unary(UnaryOpcode::Sqrt, t), d);
    apply_bind_second(d, nullptr, nullptr, plus, d, scalar(t, eps_));
    Matrix u(t, nr, nc);
    ewise_mult(u, nullptr, nullptr, op(BinaryOpcode::Div, t), m, d);
    apply_bind_second(P, nullptr, &op(BinaryOpcode::Minus, t), times, u, scalar(t, double(lr_) / c1));
  };
  update(mw_, vw_, W, g);
  if (layer.has_bias())
    update(mb_.as_matrix(), vb_.as_matrix(), layer.bias().as_matrix(), layer.bias_grad().as_matrix());
  ++steps_;
}

void Adam::rewire(const Matrix& keep, const Matrix& grown) {
  rewire_state(mw_, keep, grown);
  rewire_state(vw_, keep, grown);
}

std::vector<std::pair<std::string, Matrix*>> Adam::state() {
  return {{"m_w", &mw_}, {"v_w", &vw_}, {"m_b", &mb_.as_matrix()}, {"v_b", &vb_.as_matrix()}};
}

// ---- clipping ---------------------------------------------------------------------------------------------------
double clip_grad_norm(const std::vector<SparseLinear*>& layers, double max_norm) {
  if (!(max_norm > 0.0))
    throw Error(Info::InvalidValue, "clip_grad_norm: max_norm must be positive, not " + std::to_string(max_norm));
  double total = 0;
  for (const SparseLinear* l : layers) {
    total += sum_of_squares(l->weight_grad());
    if (l->has_bias()) total += sum_of_squares(l->bias_grad().as_matrix());
  }
  const double norm = std::sqrt(total);
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0) {
    for (SparseLinear* l : layers) {
      const Type* t = l->type();
      const Scalar c = scalar(t, coef);
      apply_bind_second(l->weight_grad(), nullptr, nullptr, op(BinaryOpcode::Times, t), l->weight_grad(), c);
      if (l->has_bias())
        apply_bind_second(l->bias_grad(), nullptr, nullptr, op(BinaryOpcode::Times, t), l->bias_grad(), c);
    }
  }
  return norm;
}

}  // namespace snk::layers
