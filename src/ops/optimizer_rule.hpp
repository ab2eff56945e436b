// src/ops/optimizer_rule.hpp: snk::optimizer_step's rule (snack/operations.hpp) for one entry, host and device code
// (SNK_HD), with no library besides the C++ one: the kokkos backend's pass over the values (kokkos/portable/
// optimizer.hpp, on the host and in Kokkos' CUDA space) and the SpMM library's sampled product that updates a layer's
// weights as it computes their gradient (cuda/spmm/sampled_product.cuh) apply this one definition. The coefficients
// are cast to the value type once, as the GraphBLAS calls that define the step bind them, and each line of the rule
// is evaluated in the order those calls do.
#pragma once

#include <cmath>

#include "algebra/builtin_math.hpp"
#include "snack/operations.hpp"

namespace snk {

template <class V>
struct OptimizerRule {
  bool adam = true, decay = false, decoupled = false;
  V lr{}, momentum{}, beta1{}, one_minus_beta1{}, beta2{}, one_minus_beta2{}, inv_c2{}, eps{}, lr_over_c1{};
  V weight_decay{}, keep{};   // keep = 1 - lr weight_decay (AdamW)

  OptimizerRule() = default;
  explicit OptimizerRule(const OptimizerStep& s)
      : adam(s.rule == OptimizerStep::Rule::Adam), decay(s.weight_decay != 0), decoupled(s.decoupled) {
    const double t = static_cast<double>(s.t);
    lr = static_cast<V>(s.lr);
    momentum = static_cast<V>(s.momentum);
    beta1 = static_cast<V>(s.beta1);
    one_minus_beta1 = static_cast<V>(1.0 - s.beta1);
    beta2 = static_cast<V>(s.beta2);
    one_minus_beta2 = static_cast<V>(1.0 - s.beta2);
    inv_c2 = static_cast<V>(1.0 / (1.0 - std::pow(s.beta2, t)));
    eps = static_cast<V>(s.eps);
    lr_over_c1 = static_cast<V>(s.lr / (1.0 - std::pow(s.beta1, t)));
    weight_decay = static_cast<V>(s.weight_decay);
    keep = static_cast<V>(1.0 - s.lr * s.weight_decay);
  }

  // One entry: parameter p, states s1 and s2 (s2 unused by SGD), gradient g.
  SNK_HD void operator()(V& p, V& s1, V& s2, V g) const {
    if (!adam) {
      if (decay) g = g + p * weight_decay;
      s1 = s1 * momentum + g;
      p = p - s1 * lr;
      return;
    }
    if (decay) {
      if (decoupled) p = p * keep;
      else g = g + p * weight_decay;
    }
    s1 = s1 * beta1 + g * one_minus_beta1;
    s2 = s2 * beta2 + (g * g) * one_minus_beta2;
    const V d = math::sqrt_of(s2 * inv_c2) + eps;
    p = p - (s1 / d) * lr_over_c1;
  }
};

}  // namespace snk
