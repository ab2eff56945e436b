// backends/kokkos/portable/optimizer.hpp: snk::optimizer_step's rule (snack/operations.hpp) for one entry, and its
// pass over the values of parameters that share one pattern, for any Kokkos space (the kokkos backend on the host,
// the cuda backend on the device). The coefficients are cast to the value type once, as the GraphBLAS calls that
// define the step bind them, and each line of the rule is evaluated in the order those calls do.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

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
// new values go to p_out, s1_out and s2_out (which may be the inputs themselves). Where every array is 16-byte
// aligned, each thread reads and writes 16-byte pieces (fewer, wider memory operations), the last n mod 16 / sizeof(V)
// entries one by one.
template <class V, class Ctx>
void optimizer_values(Ctx& ctx, Index n, const OptimizerCoefficients<V>& c, const V* p, const V* s1, const V* s2,
                      const V* g, V* p_out, V* s1_out, V* s2_out) {
  constexpr int L = 16 / sizeof(V);
  using Piece = Piece16<V, L>;
  const auto aligned = [](const void* x) { return reinterpret_cast<std::uintptr_t>(x) % 16 == 0; };
  const bool pieces = aligned(p) && aligned(s1) && aligned(s2) && aligned(g) && aligned(p_out) && aligned(s1_out) &&
                      aligned(s2_out);
  const Index whole = pieces ? n / L : 0;
  for_n_stream(ctx, "snack::portable::optimizer_step_pieces", whole, KOKKOS_LAMBDA(Index q) {
    Piece pp = reinterpret_cast<const Piece*>(p)[q], mm = reinterpret_cast<const Piece*>(s1)[q];
    const Piece gg = reinterpret_cast<const Piece*>(g)[q];
    Piece vv{};
    if (s2) vv = reinterpret_cast<const Piece*>(s2)[q];
    for (int l = 0; l < L; ++l) c(pp.v[l], mm.v[l], vv.v[l], gg.v[l]);
    reinterpret_cast<Piece*>(p_out)[q] = pp;
    reinterpret_cast<Piece*>(s1_out)[q] = mm;
    if (s2_out) reinterpret_cast<Piece*>(s2_out)[q] = vv;
  });
  const Index first = whole * L;
  for_n_stream(ctx, "snack::portable::optimizer_step", n - first, KOKKOS_LAMBDA(Index i) {
    const Index e = first + i;
    V pe = p[e], m = s1[e], v = s2 ? s2[e] : V();
    c(pe, m, v, g[e]);
    p_out[e] = pe;
    s1_out[e] = m;
    if (s2_out) s2_out[e] = v;
  });
}

}  // namespace snk::kokkos::portable
