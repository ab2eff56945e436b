// backends/kokkos/portable/optimizer.hpp: snk::optimizer_step's pass over the values of parameters that share one
// pattern, for any Kokkos space (the kokkos backend on the host, the cuda backend on the device); the rule for one
// entry is ops/optimizer_rule.hpp's.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

#include "ops/optimizer_rule.hpp"
#include "portable/parts.hpp"
#include "snack/operations.hpp"

namespace snk::kokkos::portable {

// The step over n entries: p, s1, s2 (null for SGD) and g are the parameters' value arrays in one entry order; the
// new values go to p_out, s1_out and s2_out (which may be the inputs themselves). Where every array is 16-byte
// aligned, each thread reads and writes 16-byte pieces (fewer, wider memory operations), the last n mod 16 / sizeof(V)
// entries one by one.
template <class V, class Ctx>
void optimizer_values(Ctx& ctx, Index n, const OptimizerRule<V>& c, const V* p, const V* s1, const V* s2,
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
