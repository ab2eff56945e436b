// backends/kokkos/portable_host.cpp: the portable kernels (portable/) instantiated for the host, for the kokkos
// backend's operations other than mxm (mxm.cpp): eWiseAdd, eWiseMult, apply (unary, bound and index-unary), select,
// reduce (rows and scalar), transpose, snk::optimizer_step (in place), kronecker, extract, and assign to part of C
// (A scattered to its place, then eWiseAdd with C: with the accumulator, or FIRST over C less the region).
//
// The same sources run in Kokkos' CUDA space in the cuda backend. Here they run with the host context
// (host_context.hpp: on_host picks the pool's space or Serial, and results move into the container).
#include "entry_points.hpp"
#include "functors.hpp"
#include "host_context.hpp"
#include "parallel.hpp"
#include "portable/elementwise.hpp"
#include "portable/index_ops.hpp"
#include "portable/index_unary_calls.hpp"
#include "portable/optimizer.hpp"
#include "portable/products.hpp"
#include "portable/reduce.hpp"
#include "portable/kronecker.hpp"

#include <type_traits>
#include <utility>

namespace snk::kokkos {
namespace {

namespace P = portable;

// The values of T, on A's pattern, for a kernel to write in A's entry order: A's own when T is A (an operation in
// place), else those of a copy of A's pattern that T takes (commit()).
class ValuesOnPattern {
 public:
  ValuesOnPattern(Matrix& T, const Matrix& A) : T_(T), in_place_(&T == &A) {
    if (!in_place_) s_ = copy_pattern(A, T.type()->size);
  }
  template <class Z>
  Z* values() {
    return reinterpret_cast<Z*>(in_place_ ? T_.csr_mutable().x.data() : s_.x.data());
  }
  void commit() {
    if (!in_place_) T_.adopt(std::move(s_));
  }

 private:
  Matrix& T_;
  bool in_place_;
  CsrStorage s_;
};

// For a builtin binary operator the kernels serve on A and B (portable::with_value_types): runs
// kernel(ctx, TypeTag<V>, TypeTag<Z>, a, b) on the host, a and b the operands' views; Declined otherwise.
template <class Kernel>
KernelStatus binary_on_host(const BinaryOp& op, const Matrix& A, const Matrix& B, Kernel&& kernel) {
  bool done = false;
  P::with_value_types(op, A.type(), B.type(), [&](auto vt, auto zt) {
    const CsrRef a = csr_ref(A), b = csr_ref(B);
    done = on_host([&](auto& ctx) {
      kernel(ctx, vt, zt, a, b);
      return true;
    });
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

template <bool Union>
KernelStatus ewise(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) {
  return binary_on_host(op, A, B, [&](auto& ctx, auto vt, auto zt, const CsrRef& a, const CsrRef& b) {
    using V = typename decltype(vt)::type;
    using Z = typename decltype(zt)::type;
    if (P::same_pattern(ctx, a, b)) {
      ValuesOnPattern out(T, A);
      P::ewise_values_into<V, Z>(ctx, a, b, op.opcode, out.values<Z>());
      out.commit();
    } else if constexpr (Union) {
      adopt_result(T, P::ewise_union<V, Z>(ctx, a, b, op.opcode));
    } else {
      adopt_result(T, P::ewise_mult<V, Z>(ctx, a, b, op.opcode));
    }
  });
}
}  // namespace

KernelStatus ewise_add(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) {
  return ewise<true>(T, op, A, B);
}

KernelStatus ewise_mult(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) {
  return ewise<false>(T, op, A, B);
}

KernelStatus apply_unary(Matrix& T, const UnaryOp& op, const Matrix& A) {
  if (op.opcode == UnaryOpcode::User || !is_builtin(op.xtype) || op.ztype != op.xtype || A.type() != op.xtype)
    return KernelStatus::Declined;
  bool done = false;
  with_type(op.xtype->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    if (!P::defined_unary<V>(op.opcode)) return false;
    const CsrRef a = csr_ref(A);
    return done = on_host([&](auto& ctx) {
      ValuesOnPattern out(T, A);
      P::apply_unary_into<V>(ctx, a, op.opcode, out.values<V>());
      out.commit();
      return true;
    });
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus apply_bound(Matrix& T, const BinaryOp& op, const Scalar& scalar, bool bind_first, const Matrix& A) {
  if (scalar.type() != op.xtype) return KernelStatus::Declined;
  bool done = false;
  P::with_value_types(op, A.type(), A.type(), [&](auto vt, auto zt) {
    using V = typename decltype(vt)::type;
    using Z = typename decltype(zt)::type;
    if (&T == &A && !std::is_same_v<V, Z>) return;   // in place keeps A's type
    const CsrRef a = csr_ref(A);
    const V bound = load_value<V>(scalar.data());
    done = on_host([&](auto& ctx) {
      ValuesOnPattern out(T, A);
      P::apply_bound_into<V, Z>(ctx, a, op.opcode, bound, bind_first, out.values<Z>());
      out.commit();
      return true;
    });
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus apply_index(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk) {
  KernelStatus status = KernelStatus::Declined;
  on_host([&](auto& ctx) {
    status = P::apply_index_call(ctx, op, A, [&] { return csr_ref(A); }, thunk,
                                 [&](auto&& r) { adopt_result(T, std::move(r)); });
    return true;
  });
  return status;
}

KernelStatus select(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk) {
  KernelStatus status = KernelStatus::Declined;
  on_host([&](auto& ctx) {
    status = P::select_call(ctx, T, op, A, [&] { return csr_ref(A); }, thunk,
                            [&](auto&& r) { adopt_result(T, std::move(r)); });
    return true;
  });
  return status;
}

KernelStatus reduce_rows(Matrix& T, const Monoid& m, const Matrix& A) {
  bool done = false;
  P::with_monoid_fn(m, A.type(), [&](auto fn) {
    using V = decltype(fn.identity);
    const CsrRef a = csr_ref(A);
    done = on_host([&](auto& ctx) {
      adopt_result(T, P::reduce_rows<V>(ctx, a, fn));
      return true;
    });
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus reduce_scalar(Scalar& result, const Monoid& m, const Matrix& A) {
  bool done = false;
  P::with_monoid_fn(m, A.type(), [&](auto fn) {
    using V = decltype(fn.identity);
    const CsrRef a = csr_ref(A);
    V v{};
    done = on_host([&](auto& ctx) {
      v = P::reduce_scalar<V>(ctx, a, fn);
      return true;
    });
    if (done) result.set(&v, A.type());
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus transpose(Matrix& T, const Matrix& A) {
  if (!is_builtin(A.type())) return KernelStatus::Declined;
  const bool done = on_host([&](auto& ctx) {
    T.adopt(storage_of(P::transpose(ctx, csr_ref(A), A.type()->size), A.type()->size));
    return true;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

namespace {
bool same_pattern(const CsrStorage& a, const CsrStorage& b) {
  return &a == &b || (a.hyper == b.hyper && a.p == b.p && a.j == b.j && a.h == b.h);
}
}  // namespace

KernelStatus optimizer_step(Matrix& W, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& step) {
  const TypeCode code = W.type()->code;
  if (code != TypeCode::FP32 && code != TypeCode::FP64) return KernelStatus::Declined;
  const CsrStorage& w = W.csr();
  if (!same_pattern(w, S1.csr()) || (S2 && !same_pattern(w, S2->csr())) || !same_pattern(w, G.csr()))
    return KernelStatus::Declined;
  const auto run = [&](auto zero) {
    using V = decltype(zero);
    V* pv = reinterpret_cast<V*>(W.csr_mutable().x.data());
    V* s1 = reinterpret_cast<V*>(S1.csr_mutable().x.data());
    V* s2 = S2 ? reinterpret_cast<V*>(S2->csr_mutable().x.data()) : nullptr;
    const V* g = reinterpret_cast<const V*>(G.csr().x.data());
    return on_host([&](auto& ctx) {
      P::optimizer_values<V>(ctx, W.nvals(), OptimizerRule<V>(step), pv, s1, s2, g, pv, s1, s2);
      return true;
    });
  };
  const bool done = code == TypeCode::FP32 ? run(0.0f) : run(0.0);
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus kronecker(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) {
  return binary_on_host(op, A, B, [&](auto& ctx, auto vt, auto zt, const CsrRef& a, const CsrRef& b) {
    adopt_result(T, P::kronecker<typename decltype(vt)::type, typename decltype(zt)::type>(ctx, a, b, op.opcode));
  });
}

namespace {
bool strictly_increasing(const core::IndexList& L) {
  for (Index k = 1; k < L.n; ++k)
    if (L.list[k] <= L.list[k - 1]) return false;
  return true;
}

// An assign index list resolved on the host (duplicates: the last one wins), kept alive with the view the kernels take.
struct HostPlacedList {
  P::ResolvedList resolved;
  P::PlacedList list;
};
HostPlacedList place(const core::IndexList& L, Index dim) {
  HostPlacedList h;
  if (L.covers(dim)) return h;
  h.resolved = P::resolve_last_wins(L.list, L.n);
  h.list = P::PlacedList{false, h.resolved.target.data(), h.resolved.source.data(), h.resolved.size(),
                         h.resolved.keeps_order};
  return h;
}
}  // namespace

KernelStatus extract(Matrix& T, const Matrix& A, const core::IndexList& I, const core::IndexList& J) {
  if (!is_builtin(A.type()) || T.type() != A.type()) return KernelStatus::Declined;
  const bool all_rows = I.covers(A.nrows()), all_cols = J.covers(A.ncols());
  const CsrRef a = csr_ref(A);
  const bool done = on_host([&](auto& ctx) {
    adopt_result(T, P::extract(ctx, a, all_rows ? nullptr : I.list, T.nrows(), all_rows, all_cols ? nullptr : J.list,
                               T.ncols(), all_cols, all_cols || strictly_increasing(J), A.type()->size));
    return true;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

KernelStatus assign(Matrix& Z, const Matrix& C, const BinaryOp* accum, const Matrix& A, const core::IndexList& I,
                    const core::IndexList& J) {
  const Type* v = C.type();
  if (!is_builtin(v) || A.type() != v || Z.type() != v) return KernelStatus::Declined;
  if (accum != nullptr &&
      (accum->opcode == BinaryOpcode::User || accum->xtype != v || accum->ytype != v || accum->ztype != v))
    return KernelStatus::Declined;
  const HostPlacedList rows = place(I, C.nrows()), cols = place(J, C.ncols());
  const CsrRef a = csr_ref(A), c = csr_ref(C);
  Matrix S(v, C.nrows(), C.ncols()), kept(v, C.nrows(), C.ncols());
  const bool done = on_host([&](auto& ctx) {
    adopt_result(S, P::scatter(ctx, a, C.ncols(), rows.list, cols.list, v->size));
    // Without an accumulator the region is A's alone: C without the region, united with S (disjoint).
    if (accum == nullptr)
      adopt_result(kept, P::drop_region(ctx, c, rows.list.target, rows.list.n, rows.list.all, cols.list.target,
                                        cols.list.n, cols.list.all, v->size));
    return true;
  });
  if (!done) return KernelStatus::Declined;
  if (accum != nullptr) return ewise_add(Z, *accum, C, S);
  return ewise_add(Z, *builtin_binary_op(BinaryOpcode::First, v->code), kept, S);
}

}  // namespace snk::kokkos
