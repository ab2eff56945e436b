// backends/kokkos/mxm.cpp: mxm (and through it mxv and vxm) on the kokkos backend, T = A (+).(x) B' with B' = B or
// B^T, through the portable product kernels (portable/products.hpp) in their host shapes, as an ordered table of
// candidates: the first whose can-run rule holds runs.
//
// A transposed A is declined (the core transposes it with the backend's transpose and calls again), as is a transposed
// B for a matrix product with no mask to restrict it (the core transposes B). The kernels serve every builtin type
// and every predefined monoid with a multiply defined on that type; a user-defined type or operator is declined (the
// dispatcher runs it on reference, counted). The mask hint is used where it cuts work (a vector's allowed positions,
// the masked dot product); the core's mask step applies the mask to what is returned either way.
#include <cstdint>

#include "entry_points.hpp"
#include "host_context.hpp"
#include "parallel.hpp"
#include "portable/mask_accum.hpp"
#include "portable/products.hpp"

namespace snk::kokkos {
namespace {

namespace P = portable;

// One product as the candidates see it.
template <class V, class Ctx>
struct HostProduct {
  Ctx& ctx;
  Matrix& T;
  const MaskHint& mask;
  const Matrix& A;
  const Matrix& B;
  bool tb, flip;
  P::MonoidFn<V> add;
  BinaryOpcode mul;
  CsrRef a, b;

  // A 1 x n row A: mxv and vxm as the core hands them over.
  bool vector() const { return A.nrows() == 1 && T.nrows() == 1; }
  bool masked() const { return mask.M != nullptr && !mask.complement; }
  void attach(P::CsrParts<HostBytes>&& parts) const { adopt_result(T, std::move(parts)); }
};

// The positions the mask hint of a vector product allows (one flag a column of T), or an empty buffer (allow null:
// every position) without a mask or for a product of several rows, whose rows' masks differ.
template <class V, class Ctx>
HostBytes allowed(const HostProduct<V, Ctx>& p, const std::uint8_t*& allow) {
  allow = nullptr;
  if (p.mask.M == nullptr || !p.vector()) return HostBytes();
  const Matrix& M = *p.mask.M;
  const CsrRef m = csr_ref(M);
  HostBytes flags = p.ctx.alloc(m.nvals), out = p.ctx.alloc(p.T.ncols());
  auto* mask_true = P::as<std::uint8_t>(flags);
  const bool structural = p.mask.structural || !with_type(M.type()->code, [&](auto mt) {
    P::mask_values<typename decltype(mt)::type>(p.ctx, m, mask_true);
    return true;
  });
  if (structural) std::fill(mask_true, mask_true + m.nvals, std::uint8_t(1));
  P::allowed_positions(p.ctx, m, mask_true, p.mask.complement, p.T.ncols(), P::as<std::uint8_t>(out));
  allow = P::as<std::uint8_t>(out);
  return out;
}

// A' * B^T is pulled through B's rows, row by row of A, where A has at most this many rows (mxv has one).
constexpr Index kPullRowsLimit = 8;

// T = A * B^T by rows of A: each row of A made dense, and each row of B a dot product with it (portable spmv_rows),
// skipping, for a vector, the columns of T the mask hint rules out.
template <class V, class Ctx>
void pull_rows(const HostProduct<V, Ctx>& p) {
  const Index n = p.A.ncols();
  const CsrRef& a = p.a;
  const bool full_rows_only = [&] {
    for (Index s = 0; s < a.nslots; ++s)
      if (a.p[s + 1] - a.p[s] != n) return false;
    return true;
  }();
  HostBytes xv = p.ctx.alloc(full_rows_only ? 0 : n * sizeof(V)), xf = p.ctx.alloc(full_rows_only ? 0 : n);
  const std::uint8_t* allow = nullptr;
  const HostBytes allow_buf = allowed(p, allow);
  CsrStorage t;
  t.hyper = a.hyper;
  if (a.hyper) t.h.assign(a.h, a.h + a.nslots);
  t.p.assign(1, 0);
  for (Index s = 0; s < a.nslots; ++s) {
    const Index row_p[2] = {0, a.p[s + 1] - a.p[s]};
    CsrRef row;   // row s of A as a 1 x n vector
    row.p = row_p;
    row.j = a.j + a.p[s];
    row.x = a.x + a.p[s] * sizeof(V);
    row.nslots = row.nrows = 1;
    row.ncols = n;
    row.nvals = row_p[1];
    // A full row is its own dense form.
    const bool full = row.nvals == n;
    if (!full) P::densify_vector<V>(p.ctx, row, n, P::as<V>(xv), P::as<std::uint8_t>(xf));
    const V* x = full ? row.values<V>() : P::as<V>(xv);
    const std::uint8_t* present = full ? nullptr : P::as<std::uint8_t>(xf);
    const CsrStorage r =
        storage_of(P::spmv_rows<V>(p.ctx, p.b, x, present, allow, p.add, p.mul, p.flip), sizeof(V));
    t.j.insert(t.j.end(), r.j.begin(), r.j.end());
    t.x.insert(t.x.end(), r.x.begin(), r.x.end());
    t.p.push_back(Index(t.j.size()));
  }
  p.T.adopt(std::move(t));
}

template <class V, class Ctx>
struct Candidate {
  const char* name;
  bool (*can_run)(const HostProduct<V, Ctx>&);
  void (*run)(const HostProduct<V, Ctx>&);
};

// The family in order of preference. A vector times B^T (mxv) is a row-wise SpMV over B's rows, skipping the rows
// the mask rules out. A masked product takes the masked dot product where B^T's rows are at hand and merging costs
// less than expanding (C<M> = A * B^T: triangle counting). A full B gives full rows (sparse times dense). Everything
// else not transposed is Gustavson's rows.
template <class V, class Ctx>
const Candidate<V, Ctx>* candidates() {
  using Product = HostProduct<V, Ctx>;
  static const Candidate<V, Ctx> table[] = {
      {"pull through rows", [](const Product& p) { return p.tb && (p.vector() || p.a.nslots <= kPullRowsLimit); },
       pull_rows<V, Ctx>},
      {"masked dot product",
       [](const Product& p) {
         return p.masked() && p.tb &&
                P::dot_is_cheaper(p.mask.M->nvals(), p.A.nvals(), p.A.nrows(), p.B.nvals(), p.B.ncols(), p.B.nrows());
       },
       [](const Product& p) { p.attach(P::masked_dot<V>(p.ctx, csr_ref(*p.mask.M), p.a, p.b, p.add, p.mul, p.flip)); }},
      {"rows times a full B", [](const Product& p) { return !p.tb && p.b.full(); },
       [](const Product& p) { p.attach(P::rows_times_full<V>(p.ctx, p.a, p.b, p.add, p.mul, p.flip)); }},
      {"Gustavson's rows", [](const Product& p) { return !p.tb; },
       [](const Product& p) { p.attach(P::spgemm<V>(p.ctx, p.a, p.b, p.add, p.mul, p.flip)); }},
      {nullptr, nullptr, nullptr},
  };
  return table;
}

}  // namespace

KernelStatus mxm(Matrix& T, const MaskHint& mask, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                 bool tb, bool flip) {
  const Type* v = s.add->type();
  const BinaryOp& mul = *s.multiply;
  if (ta || !is_builtin(v) || mul.opcode == BinaryOpcode::User || mul.xtype != v || mul.ytype != v ||
      mul.ztype != v || A.type() != v || B.type() != v || T.type() != v)
    return KernelStatus::Declined;
  bool done = false;
  with_type(v->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    P::MonoidFn<V> add{};
    if (!P::monoid_of(*s.add, add) || !P::defined_binary<V, V>(mul.opcode)) return false;
    return done = on_host([&](auto& ctx) {
      using Ctx = std::decay_t<decltype(ctx)>;
      const HostProduct<V, Ctx> p{ctx, T, mask, A, B, tb, flip, add, mul.opcode, csr_ref(A), csr_ref(B)};
      for (const Candidate<V, Ctx>* k = candidates<V, Ctx>(); k->name != nullptr; ++k) {
        if (!k->can_run(p)) continue;
        k->run(p);
        return true;
      }
      return false;
    });
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

}  // namespace snk::kokkos
