// backends/kokkos/portable/kronecker.hpp: the Kronecker product T = kron(A, B) with a binary operator, as a
// portable kernel (core/kernels.hpp states the contract).
//
// T(ia * mb + ib, ja * nb + jb) = op(A(ia, ja), B(ib, jb)). Each pair of slots (a row of A, a row of B) is one slot of
// T, in increasing row order (A's row major, B's minor), and its entries come out in increasing column order (A's
// column major, B's minor), so no sort is needed: a scan of the pairs' entry counts places them, and each entry of T
// finds its pair and its two source entries by binary searches. The result is hypersparse over the pairs (the
// container drops empty slots and chooses its form). Values: op's inputs of type V, output Z (V, or bool for
// comparisons), an opcode at run time (op_eval.hpp).
#pragma once

#include "portable/elementwise.hpp"

namespace snk::kokkos::portable {

template <class V, class Z, class Ctx>
CsrParts<BytesOf<Ctx>> kronecker(Ctx& ctx, const CsrRef& A, const CsrRef& B, BinaryOpcode op) {
  const Index pairs = A.nslots * B.nslots, mb = B.nrows, nb = B.ncols;
  CsrParts<BytesOf<Ctx>> out;
  out.hyper = true;
  out.nslots = pairs;
  out.h = ctx.alloc(pairs * sizeof(Index));
  out.p = ctx.alloc((pairs + 1) * sizeof(Index));
  Index* h = as<Index>(out.h);
  Index* p = as<Index>(out.p);
  const CsrRef a = A, b = B;
  const Index bs = B.nslots;
  // Entry counts of the pairs, then their offsets.
  for_n(ctx, "snack::portable::kronecker_counts", pairs, KOKKOS_LAMBDA(Index s) {
    const Index sa = s / bs, sb = s % bs;
    h[s] = a.row_of(sa) * mb + b.row_of(sb);
    p[s] = (a.p[sa + 1] - a.p[sa]) * (b.p[sb + 1] - b.p[sb]);
  });
  const Index n = place_rows(ctx, out, pairs, sizeof(Z));
  Index* j = as<Index>(out.j);
  Z* z = as<Z>(out.x);
  CsrRef t;   // T's row pointers, to find each entry's pair
  t.p = p;
  t.nslots = pairs;
  const CsrRef tr = t;
  for_n(ctx, "snack::portable::kronecker_entries", n, KOKKOS_LAMBDA(Index e) {
    const Index s = slot_of(tr, e), sa = s / bs, sb = s % bs;
    const Index lb = b.p[sb + 1] - b.p[sb], k = e - p[s];
    const Index ea = a.p[sa] + k / lb, eb = b.p[sb] + k % lb;
    j[e] = a.j[ea] * nb + b.j[eb];
    z[e] = binary_eval<V, Z>(op, a.values<V>()[ea], b.values<V>()[eb]);
  });
  return out;
}

}  // namespace snk::kokkos::portable
