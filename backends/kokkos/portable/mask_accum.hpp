// backends/kokkos/portable/mask_accum.hpp: the mask / accumulator / replace step, C<M, replace> = C (.) T, as a
// portable kernel, so that a result computed on a device is merged into its output there (src/mask/mask_accum.cpp
// states the step; this is the same rule, position by position).
//
// The positions that can hold a result are the union of C's and T's entries; it is laid out per row as eWiseAdd
// lays out its union (elementwise.hpp), each position remembering its C entry and its T entry. Then each position
// decides, from the mask value found by a binary search of M's row, whether it keeps C's value, T's value, the
// accumulation of both, or nothing, and the kept positions are compacted. Without a mask, where C and T hold the same
// positions, accum_values computes the values alone (accum_values_over: over T's own). Preconditions the host side
// checks: C and T of one builtin type V (no cast), the accumulator (if any) a builtin operator on V giving V, no input
// hypersparse, and `mask_true` one flag per entry of M (its value test, or 1 when structural).
#pragma once

#include "portable/elementwise.hpp"

namespace snk::kokkos::portable {

// flags[e] = (M's value e, of type MV, is nonzero): the valued mask's test.
template <class MV, class Ctx>
void mask_values(Ctx& ctx, const CsrRef& M, std::uint8_t* flags) {
  const MV* v = M.values<MV>();
  for_n_stream(ctx, "snack::portable::mask_values", M.nvals, KOKKOS_LAMBDA(Index e) { flags[e] = v[e] != MV(0); });
}

// The step without a mask where T has C's positions (same_pattern: an update of a layer's weights or optimizer state):
// every position takes T's value or the accumulation, so the values alone are computed, in C's order.
template <class V, class Ctx>
BytesOf<Ctx> accum_values(Ctx& ctx, const CsrRef& C, const CsrRef& T, bool has_accum, BinaryOpcode accum) {
  auto x = ctx.alloc(C.nvals * sizeof(V));
  V* z = as<V>(x);
  const V *cv = C.values<V>(), *tv = T.values<V>();
  for_n_stream(ctx, "snack::portable::accum_values", C.nvals, KOKKOS_LAMBDA(Index e) {
    z[e] = has_accum ? binary_eval<V, V>(accum, cv[e], tv[e]) : tv[e];
  });
  return x;
}

// The same, written over T's values (the caller owns them and hands them over: the step consumes T), so that the step
// makes no third array of C's size; nothing to do without an accumulator (T's values are the result).
template <class V, class Ctx>
void accum_values_over(Ctx& ctx, const CsrRef& C, V* t_values, bool has_accum, BinaryOpcode accum) {
  if (!has_accum) return;
  const V* cv = C.values<V>();
  V* tv = t_values;
  for_n_stream(ctx, "snack::portable::accum_values_over", C.nvals, KOKKOS_LAMBDA(Index e) {
    tv[e] = binary_eval<V, V>(accum, cv[e], tv[e]);
  });
}

template <class V, class Ctx>
CsrParts<BytesOf<Ctx>> mask_accum(Ctx& ctx, const CsrRef& C, const CsrRef& T, bool has_mask, const CsrRef& M,
                                  const std::uint8_t* mask_true, bool complement, bool has_accum, BinaryOpcode accum,
                                  bool replace) {
  const Index nrows = C.nslots;
  // T's entries that C lacks, and their running count.
  auto only_buf = ctx.alloc(T.nvals);
  auto post_buf = ctx.alloc((T.nvals + 1) * sizeof(Index));
  std::uint8_t* t_only = as<std::uint8_t>(only_buf);
  Index* post = as<Index>(post_buf);
  const CsrRef c = C, t = T, m = M;
  for_n(ctx, "snack::portable::mask_accum_t_only", T.nvals, KOKKOS_LAMBDA(Index f) {
    t_only[f] = find_in(c, slot_of(t, f), t.j[f]) == kNoIndex;
  });
  const Index n_only = exclusive_scan_flags(ctx, t_only, post, T.nvals);
  // The union: per position its column, its C entry and its T entry (kNoIndex where absent).
  const Index nu = C.nvals + n_only;
  auto up_buf = ctx.alloc((nrows + 1) * sizeof(Index));
  auto uj_buf = ctx.alloc(nu * sizeof(Index));
  auto uc_buf = ctx.alloc(nu * sizeof(Index));
  auto ut_buf = ctx.alloc(nu * sizeof(Index));
  Index* up = as<Index>(up_buf);
  Index* uj = as<Index>(uj_buf);
  Index* uc = as<Index>(uc_buf);
  Index* ut = as<Index>(ut_buf);
  for_n(ctx, "snack::portable::mask_accum_p", nrows + 1, KOKKOS_LAMBDA(Index k) { up[k] = c.p[k] + post[t.p[k]]; });
  for_n(ctx, "snack::portable::mask_accum_c", C.nvals, KOKKOS_LAMBDA(Index e) {
    const Index k = slot_of(c, e), col = c.j[e];
    const Index lb = lower_bound_col(t.j, t.p[k], t.p[k + 1], col);
    const Index o = up[k] + (e - c.p[k]) + (post[lb] - post[t.p[k]]);
    uj[o] = col;
    uc[o] = e;
    ut[o] = lb < t.p[k + 1] && t.j[lb] == col ? lb : kNoIndex;
  });
  for_n(ctx, "snack::portable::mask_accum_t", T.nvals, KOKKOS_LAMBDA(Index f) {
    if (!t_only[f]) return;
    const Index k = slot_of(t, f), col = t.j[f];
    const Index la = lower_bound_col(c.j, c.p[k], c.p[k + 1], col);
    const Index o = up[k] + (la - c.p[k]) + (post[f] - post[t.p[k]]);
    uj[o] = col;
    uc[o] = kNoIndex;
    ut[o] = f;
  });
  // Each position's decision and value.
  auto keep_buf = ctx.alloc(nu);
  auto val_buf = ctx.alloc(nu * sizeof(V));
  std::uint8_t* keep = as<std::uint8_t>(keep_buf);
  V* val = as<V>(val_buf);
  CsrRef u;
  u.p = up;
  u.j = uj;
  u.x = static_cast<const unsigned char*>(val_buf.get());
  u.nslots = nrows;
  u.nrows = C.nrows;
  u.ncols = C.ncols;
  u.nvals = nu;
  const CsrRef ur = u;
  for_n(ctx, "snack::portable::mask_accum_decide", nu, KOKKOS_LAMBDA(Index q) {
    bool mt = !complement;
    if (has_mask) {
      const Index f = find_in(m, slot_of(ur, q), uj[q]);
      mt = (f != kNoIndex && mask_true[f]) != complement;
    }
    const bool has_c = uc[q] != kNoIndex, has_t = ut[q] != kNoIndex;
    const V cv = has_c ? c.values<V>()[uc[q]] : V(), tv = has_t ? t.values<V>()[ut[q]] : V();
    bool k = false;
    V z = V();
    if (mt) {
      if (has_accum && has_c && has_t) { k = true; z = binary_eval<V, V>(accum, cv, tv); }
      else if (has_t) { k = true; z = tv; }
      else if (has_accum && has_c) { k = true; z = cv; }
    } else if (has_c && !replace) {
      k = true;
      z = cv;
    }
    keep[q] = k;
    val[q] = z;
  });
  return compact(ctx, u, keep, val, sizeof(V));
}

}  // namespace snk::kokkos::portable
