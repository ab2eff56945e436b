// backends/kokkos/elementwise.cpp: eWiseAdd (union), eWiseMult (intersection), apply with a unary
// operator and apply with a bound binary operator, on the kokkos backend.
//
// eWiseAdd / eWiseMult do their structural work once, whatever the types: the list of output rows (all
// rows, or the merged row lists of hypersparse inputs), each output row's slot in A and in B, and the
// entry count of each output row (a merge of the two sorted column lists); a scan gives the row
// pointers. Only the pass that writes columns and values is templated, on (operator opcode, value type):
// it merges the two rows again, applying the operator where both have an entry and, for the union,
// casting a one-sided entry to the operator's output type (comparisons give BOOL). Rows are split into
// chunks of about equal entry counts. apply keeps A's pattern and maps values with the operator, in
// parallel over entries, into a new result or, for C = op(C), into A's own values. optimizer_step updates the
// values of parameters of one pattern in place, one pass (portable/optimizer.hpp's rule).
#include <algorithm>

#include "entry_points.hpp"
#include "functors.hpp"
#include "parallel.hpp"
#include "portable/optimizer.hpp"

namespace snk::kokkos {
namespace {

// The structure of an element-wise result: output row slots, their slots in A and B (kNoIndex where the
// input has no entry in that row), the entry count of each output row, and balanced chunks.
struct EwisePlan {
  bool hyper = false;
  std::vector<Index> rows;        // hyper only: row of each output slot
  std::vector<Index> slot_a, slot_b;
  std::vector<Index> counts;
  std::vector<Index> chunks;
  Index nslots = 0;
};

// The non-empty rows of a matrix (its slots when hypersparse).
std::vector<Index> nonempty_rows(const CsrRef& X) {
  std::vector<Index> rows;
  for (Index s = 0; s < X.nslots; ++s)
    if (X.p[s + 1] > X.p[s]) rows.push_back(X.row_of(s));
  return rows;
}

EwisePlan plan_ewise(const CsrRef& A, const CsrRef& B, bool is_union) {
  EwisePlan plan;
  if (!A.hyper && !B.hyper) {
    plan.nslots = A.nrows;
    plan.slot_a.resize(plan.nslots);
    plan.slot_b.resize(plan.nslots);
    Index* SA = plan.slot_a.data();
    Index* SB = plan.slot_b.data();
    host_parallel_for("snack::kokkos::ewise_slots", plan.nslots, [=](std::int64_t s) {
      SA[s] = s;
      SB[s] = s;
    });
    Kokkos::fence();
  } else {
    plan.hyper = true;
    const std::vector<Index> ra = nonempty_rows(A), rb = nonempty_rows(B);
    if (is_union) std::set_union(ra.begin(), ra.end(), rb.begin(), rb.end(), std::back_inserter(plan.rows));
    else std::set_intersection(ra.begin(), ra.end(), rb.begin(), rb.end(), std::back_inserter(plan.rows));
    plan.nslots = plan.rows.size();
    plan.slot_a.resize(plan.nslots);
    plan.slot_b.resize(plan.nslots);
    // slots of each row in A and B by a merge over the sorted lists
    auto fill_slots = [&](const CsrRef& X, std::vector<Index>& out) {
      Index s = 0;
      for (Index k = 0; k < plan.nslots; ++k) {
        const Index r = plan.rows[k];
        while (s < X.nslots && X.row_of(s) < r) ++s;
        out[k] = (s < X.nslots && X.row_of(s) == r) ? s : kNoIndex;
      }
    };
    fill_slots(A, plan.slot_a);
    fill_slots(B, plan.slot_b);
  }
  // entry counts by a merge of the column lists
  plan.counts.resize(plan.nslots);
  std::vector<Index> work(plan.nslots), prefix(plan.nslots + 1);
  Index* C = plan.counts.data();
  Index* W = work.data();
  const Index* SA = plan.slot_a.data();
  const Index* SB = plan.slot_b.data();
  host_parallel_for("snack::kokkos::ewise_count", plan.nslots, [=](std::int64_t k) {
    Index pa = 0, ea = 0, pb = 0, eb = 0;
    if (SA[k] != kNoIndex) { pa = A.p[SA[k]]; ea = A.p[SA[k] + 1]; }
    if (SB[k] != kNoIndex) { pb = B.p[SB[k]]; eb = B.p[SB[k] + 1]; }
    W[k] = 1 + (ea - pa) + (eb - pb);
    Index n = 0;
    if (is_union) {
      if (pa == ea || pb == eb) {
        n = (ea - pa) + (eb - pb);
      } else {
        while (pa < ea && pb < eb) {
          const Index ja = A.j[pa], jb = B.j[pb];
          pa += ja <= jb;
          pb += jb <= ja;
          ++n;
        }
        n += (ea - pa) + (eb - pb);
      }
    } else {
      while (pa < ea && pb < eb) {
        const Index ja = A.j[pa], jb = B.j[pb];
        n += ja == jb;
        pa += ja <= jb;
        pb += jb <= ja;
      }
    }
    C[k] = n;
  });
  Kokkos::fence();
  exclusive_scan(work.data(), prefix.data(), plan.nslots);
  plan.chunks = balanced_chunks(prefix.data(), plan.nslots, Index(16) * concurrency());
  return plan;
}

template <BinaryOpcode Op, class X>
void ewise_fill(Matrix& T, const EwisePlan& plan, const CsrRef& A, const CsrRef& B, bool is_union) {
  using Z = binary_result_t<Op, X>;
  OutputCsr out;
  out.begin(plan.hyper, plan.rows.data(), plan.counts.data(), plan.nslots, sizeof(Z));
  Index* Tj = out.j();
  Z* Tx = reinterpret_cast<Z*>(out.x());
  const Index* Tp = out.p();
  const X* Ax = A.values<X>();
  const X* Bx = B.values<X>();
  const Index* SA = plan.slot_a.data();
  const Index* SB = plan.slot_b.data();
  for_chunks("snack::kokkos::ewise_fill", plan.chunks, [=](Index k0, Index k1, int) {
    for (Index k = k0; k < k1; ++k) {
      Index pa = 0, ea = 0, pb = 0, eb = 0;
      if (SA[k] != kNoIndex) { pa = A.p[SA[k]]; ea = A.p[SA[k] + 1]; }
      if (SB[k] != kNoIndex) { pb = B.p[SB[k]]; eb = B.p[SB[k] + 1]; }
      Index t = Tp[k];
      if (is_union) {
        while (pa < ea && pb < eb) {
          const Index ja = A.j[pa], jb = B.j[pb];
          if (ja < jb) {
            Tj[t] = ja;
            Tx[t++] = math::cast<Z>(Ax[pa++]);
          } else if (jb < ja) {
            Tj[t] = jb;
            Tx[t++] = math::cast<Z>(Bx[pb++]);
          } else {
            Tj[t] = ja;
            Tx[t++] = binary_apply<Op, X>(Ax[pa++], Bx[pb++]);
          }
        }
        for (; pa < ea; ++pa, ++t) {
          Tj[t] = A.j[pa];
          Tx[t] = math::cast<Z>(Ax[pa]);
        }
        for (; pb < eb; ++pb, ++t) {
          Tj[t] = B.j[pb];
          Tx[t] = math::cast<Z>(Bx[pb]);
        }
      } else {
        while (pa < ea && pb < eb) {
          const Index ja = A.j[pa], jb = B.j[pb];
          if (ja < jb) {
            ++pa;
          } else if (jb < ja) {
            ++pb;
          } else {
            Tj[t] = ja;
            Tx[t++] = binary_apply<Op, X>(Ax[pa++], Bx[pb++]);
          }
        }
      }
    }
  });
  out.finish(T);
}

KernelStatus ewise(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B, bool is_union) {
  if (!with_binary_op(op, [](auto, auto) {})) return KernelStatus::Declined;
  const CsrRef a = csr_ref(A), b = csr_ref(B);
  const EwisePlan plan = plan_ewise(a, b, is_union);
  with_binary_op(op, [&](auto optag, auto ttag) {
    ewise_fill<decltype(optag)::value, typename decltype(ttag)::type>(T, plan, a, b, is_union);
  });
  return KernelStatus::Done;
}

}  // namespace

KernelStatus ewise_add(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) {
  return ewise(T, op, A, B, true);
}

KernelStatus ewise_mult(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) {
  return ewise(T, op, A, B, false);
}

// The values of apply's result: A's pattern with new values of `value_size` bytes each, or, when T is A
// itself (an in-place apply), A's own storage. fill(Ax, Tx) maps the values; in place, Tx == Ax.
template <class Fill>
void apply_values(Matrix& T, const Matrix& A, std::size_t value_size, const Fill& fill) {
  if (&T == &A) {
    CsrStorage& s = T.csr_mutable();
    fill(static_cast<const unsigned char*>(s.x.data()), s.x.data(), s.j.size());
    return;
  }
  CsrStorage s = copy_pattern(A, value_size);
  fill(A.csr().x.data(), s.x.data(), s.j.size());
  T.adopt(std::move(s));
}

KernelStatus apply_unary(Matrix& T, const UnaryOp& op, const Matrix& A) {
  return with_unary_op(op, [&](auto optag, auto ttag) {
           using X = typename decltype(ttag)::type;
           constexpr UnaryOpcode Op = decltype(optag)::value;
           apply_values(T, A, sizeof(X), [](const unsigned char* ax, unsigned char* tx, Index n) {
             const X* Ax = reinterpret_cast<const X*>(ax);
             X* Tx = reinterpret_cast<X*>(tx);
             for_items("snack::kokkos::apply_unary", n, [=](Index e) { Tx[e] = unary_apply<Op, X>(Ax[e]); });
           });
         })
             ? KernelStatus::Done
             : KernelStatus::Declined;
}

KernelStatus apply_bound(Matrix& T, const BinaryOp& op, const Scalar& scalar, bool bind_first, const Matrix& A) {
  bool done = false;
  with_binary_op(op, [&](auto optag, auto ttag) {
    using X = typename decltype(ttag)::type;
    constexpr BinaryOpcode Op = decltype(optag)::value;
    using Z = binary_result_t<Op, X>;
    if constexpr (!std::is_same_v<Z, X>) {
      if (&T == &A) return;   // in place needs the result in A's type
    }
    const X bound = load_value<X>(scalar.data());
    apply_values(T, A, sizeof(Z), [=](const unsigned char* ax, unsigned char* tx, Index n) {
      const X* Ax = reinterpret_cast<const X*>(ax);
      Z* Tx = reinterpret_cast<Z*>(tx);
      if (bind_first)
        for_items("snack::kokkos::apply_bind_first", n, [=](Index e) { Tx[e] = binary_apply<Op, X>(bound, Ax[e]); });
      else
        for_items("snack::kokkos::apply_bind_second", n, [=](Index e) { Tx[e] = binary_apply<Op, X>(Ax[e], bound); });
    });
    done = true;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

namespace {
bool same_pattern(const CsrStorage& a, const CsrStorage& b) {
  return &a == &b || (a.hyper == b.hyper && a.p == b.p && a.j == b.j && a.h == b.h);
}
}  // namespace

KernelStatus optimizer_step(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& step) {
  const TypeCode code = P.type()->code;
  if (code != TypeCode::FP32 && code != TypeCode::FP64) return KernelStatus::Declined;
  const CsrStorage& p = P.csr();
  if (!same_pattern(p, S1.csr()) || (S2 && !same_pattern(p, S2->csr())) || !same_pattern(p, G.csr()))
    return KernelStatus::Declined;
  const auto run = [&](auto zero) {
    using V = decltype(zero);
    const OptimizerRule<V> c(step);
    V* pv = reinterpret_cast<V*>(P.csr_mutable().x.data());
    V* s1 = reinterpret_cast<V*>(S1.csr_mutable().x.data());
    V* s2 = S2 ? reinterpret_cast<V*>(S2->csr_mutable().x.data()) : nullptr;
    const V* g = reinterpret_cast<const V*>(G.csr().x.data());
    for_items("snack::kokkos::optimizer_step", P.nvals(), [=](Index e) {
      V unused{};
      c(pv[e], s1[e], s2 ? s2[e] : unused, g[e]);
    });
  };
  if (code == TypeCode::FP32) run(0.0f);
  else run(0.0);
  return KernelStatus::Done;
}

}  // namespace snk::kokkos
