// layers/optim.hpp: the optimizers of the sparse layers, whose state lives per non-zero, and gradient clipping.
//
// An optimizer instance serves one SparseLinear. Its state (velocity, or Adam's two moments) has the layer's pattern,
// so it costs nnz values per state, never a dense matrix; step() updates W and b from the gradients the layer's last
// backward() left, by GraphBLAS calls on the thread's backend, and W keeps its non-zero count. After a rewiring (dst.hpp)
// rewire() keeps the state of the connections that stay and starts new connections at zero. state() exposes the
// state for checkpoints and memory accounting.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sparse_linear.hpp"

namespace snk::layers {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update of `layer` from its last gradients. The layer must be the one this optimizer was first stepped
  // with (its shape and type; DimensionMismatch / DomainMismatch otherwise).
  virtual void step(SparseLinear& layer) = 0;
  // After a rewiring: the state is kept at `keep`'s positions and starts at zero at `grown`'s.
  virtual void rewire(const Matrix& keep, const Matrix& grown) = 0;
  // The state, named, for checkpoints (a loaded state must have the same names, shapes and types).
  virtual std::vector<std::pair<std::string, Matrix*>> state() = 0;
  // Updates made so far (Adam's bias correction depends on it).
  Index steps() const { return steps_; }
  void set_steps(Index n) { steps_ = n; }
  float lr() const { return lr_; }
  void set_lr(float lr) { lr_ = lr; }
  // Bytes of the state's stored values and indices.
  std::size_t state_bytes();

 protected:
  explicit Optimizer(float lr) : lr_(lr) {}
  float lr_;
  Index steps_ = 0;
};

// SGD with momentum and weight decay, per non-zero: v = momentum * v + (dW + weight_decay * W), W -= lr * v (and the
// same for the bias, without decay).
class SgdMomentum : public Optimizer {
 public:
  explicit SgdMomentum(float lr, float momentum = 0.9f, float weight_decay = 0.0f)
      : Optimizer(lr), momentum_(momentum), weight_decay_(weight_decay) {}
  void step(SparseLinear& layer) override;
  void rewire(const Matrix& keep, const Matrix& grown) override;
  std::vector<std::pair<std::string, Matrix*>> state() override;

 private:
  float momentum_, weight_decay_;
  Matrix vw_{&types::FP32, 0, 0};
  Vector vb_{&types::FP32, 0};
};

// Adam (Kingma and Ba, 2015) per non-zero, with bias correction:
//   m = beta1 m + (1 - beta1) g,  v = beta2 v + (1 - beta2) g^2,
//   W -= lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps).
// Weight decay is L2 (g = dW + weight_decay * W), or with `decoupled` AdamW's (Loshchilov and Hutter, 2019):
// W -= lr * weight_decay * W before the update. The bias gets the same update, without decay. InvalidValue for
// betas outside [0, 1), eps <= 0 or lr < 0.
class Adam : public Optimizer {
 public:
  explicit Adam(float lr = 1e-3f, float beta1 = 0.9f, float beta2 = 0.999f, float eps = 1e-8f,
                float weight_decay = 0.0f, bool decoupled = false);
  void step(SparseLinear& layer) override;
  void rewire(const Matrix& keep, const Matrix& grown) override;
  std::vector<std::pair<std::string, Matrix*>> state() override;

 private:
  float beta1_, beta2_, eps_, weight_decay_;
  bool decoupled_;
  Matrix mw_{&types::FP32, 0, 0}, vw_{&types::FP32, 0, 0};
  Vector mb_{&types::FP32, 0}, vb_{&types::FP32, 0};
};

// AdamW: Adam with decoupled weight decay (0.01 by default, as torch.optim.AdamW).
inline Adam adamw(float lr = 1e-3f, float weight_decay = 0.01f) {
  return Adam(lr, 0.9f, 0.999f, 1e-8f, weight_decay, true);
}

// Gradient clipping by the global norm (torch.nn.utils.clip_grad_norm_): the 2-norm of every layer's dW and db
// together, computed by GraphBLAS reductions; where it exceeds max_norm, every gradient is scaled by
// max_norm / (norm + 1e-6). Returns the norm before clipping. InvalidValue unless max_norm > 0.
double clip_grad_norm(const std::vector<SparseLinear*>& layers, double max_norm);

}  // namespace snk::layers
