// layers/optim.cpp: SgdMomentum, Adam / AdamW and gradient clipping (optim.hpp) on the thread's backend: a step is one
// snk::optimizer_step per parameter (one pass over the values where the backend has it; the weights' takes dW within
// it where nothing asked for dW since the backward: snk::optimizer_step_sampled), clipping a few GraphBLAS calls.
// A bias vector is a 1 x n matrix (Vector::as_matrix), so weights and bias go through the same routine.
#include "optim.hpp"

#include <cmath>
#include <string>

#include "calls.hpp"

namespace snk::layers {
namespace {

using calls::op;
using calls::scalar;
using calls::zeros_like;

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

// The weights' step: on dW where it is made, else within the step from the backward's X and dY (the backend may
// then never store dW: snk::optimizer_step_sampled).
void step_weights(SparseLinear& layer, Matrix& S1, Matrix* S2, const OptimizerStep& s) {
  const WeightGradInputs g = layer.weight_grad_inputs();
  if (g.x == nullptr) {
    optimizer_step(layer.weight(), S1, S2, layer.weight_grad(), s);
    return;
  }
  optimizer_step_sampled(layer.weight(), S1, S2, *g.dy, *g.x, g.descriptor, s);
}

}  // namespace

std::size_t Optimizer::state_bytes() {
  std::size_t total = 0;
  for (auto& [name, M] : state()) total += csr_bytes(*M);
  return total;
}

// ---- SGD with momentum -------------------------------------------------------------------------------------------
void SgdMomentum::step(SparseLinear& layer) {
  Matrix& W = layer.weight();
  ensure_state(vw_, W, steps_ > 0, "SgdMomentum::step");
  if (layer.has_bias()) ensure_state(vb_.as_matrix(), layer.bias().as_matrix(), steps_ > 0, "SgdMomentum::step");
  OptimizerStep s;
  s.rule = OptimizerStep::Rule::SgdMomentum;
  s.lr = lr_;
  s.momentum = momentum_;
  s.weight_decay = weight_decay_;
  s.t = steps_ + 1;
  step_weights(layer, vw_, nullptr, s);
  s.weight_decay = 0;   // weights only
  if (layer.has_bias())
    optimizer_step(layer.bias().as_matrix(), vb_.as_matrix(), nullptr, layer.bias_grad().as_matrix(), s);
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
  Matrix& W = layer.weight();
  ensure_state(mw_, W, steps_ > 0, "Adam::step");
  ensure_state(vw_, W, steps_ > 0, "Adam::step");
  if (layer.has_bias()) {
    ensure_state(mb_.as_matrix(), layer.bias().as_matrix(), steps_ > 0, "Adam::step");
    ensure_state(vb_.as_matrix(), layer.bias().as_matrix(), steps_ > 0, "Adam::step");
  }
  OptimizerStep s;
  s.rule = OptimizerStep::Rule::Adam;
  s.lr = lr_;
  s.beta1 = beta1_;
  s.beta2 = beta2_;
  s.eps = eps_;
  s.weight_decay = weight_decay_;
  s.decoupled = decoupled_;
  s.t = steps_ + 1;
  step_weights(layer, mw_, &vw_, s);
  s.weight_decay = 0;   // weights only
  if (layer.has_bias())
    optimizer_step(layer.bias().as_matrix(), mb_.as_matrix(), &vb_.as_matrix(), layer.bias_grad().as_matrix(), s);
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
