// backends/kokkos/portable/optimizer.hpp: snk::optimizer_step's rule (snack/operations.hpp) for one entry, and its
// pass over the values of parameters that share one pattern, for any Kokkos space (the kokkos backend on the host,
// the cuda backend on the device). The coefficients are cast to the value type once, as the GraphBLAS calls that
// define the step bind them, and each line of the rule is evaluated in the order those calls do.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>

#include "algebra/builtin_math.hpp"
#include "portable/parts.hpp"
#include "snack/operations.hpp"

namespace snk::kokkos::portable {

template <class V>
struct OptimizerCoefficients {
  bool adam = true, decay = false, decoupled = false;
  V lr{}, momentum{}, beta1{}, one_minus_beta1{}, beta2{}, one_minus_beta2{}, inv_c2{}, eps{}, lr_over_c1{};
  V weight_decay{}, keep{};   // keep = 1 - lr weight_decay (AdamW)

  explicit OptimizerCoefficients(const OptimizerStep& s)
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
  KOKKOS_INLINE_FUNCTION void operator()(V& p, V& s1, V& s2, V g) const {
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

// The step over n entries: p, s1, s2 (null for SGD) and g are the parameters' value arrays in one entry order; the
// new values go to p_out, s1_out and s2_out (which may be the inputs themselves).
template <class V, class Ctx>
void optimizer_values(Ctx& ctx, Index n, const OptimizerCoefficients<V>& c, const V* p, const V* s1, const V* s2,
                      const V* g, V* p_out, V* s1_out, V* s2_out) {
  for_n_stream(ctx, "snack::portable::optimizer_step", n, KOKKOS_LAMBDA(Index e) {
    V pe = p[e], m = s1[e], v = s2 ? s2[e] : V();
    c(pe, m, v, g[e]);
    p_out[e] = pe;
    s1_out[e] = m;
    if (s2_out) s2_out[e] = v;
  });
}

}  // namespace snk::kokkos::portable
