// backends/kokkos/portable_host.cpp: the portable kernels (portable/) instantiated for the host, for the kokkos
// backend's operations that use them (entry_points.hpp says which).
//
// The same sources run in Kokkos' CUDA space in the cuda backend. Here the context allocates with new[] and runs on
// the default host space (OpenMP) when this thread may use the pool (parallel.hpp: use_pool), else on Kokkos::Serial
// (another user thread, or the pool held back): Kokkos 3.4 refuses a parallel scan outside the pool's own thread.
// Results are copied into the container's host form.
#include <memory>

#include "entry_points.hpp"
#include "functors.hpp"
#include "parallel.hpp"
#include "portable/kronecker.hpp"

namespace snk::kokkos {
namespace {

namespace P = portable;

struct HostBytes {
  std::unique_ptr<unsigned char[]> data;
  void* get() const { return data.get(); }
};

template <class Space>
struct HostContext {
  Space exec() const { return Space(); }
  HostBytes alloc(std::size_t bytes) { return HostBytes{std::unique_ptr<unsigned char[]>(new unsigned char[bytes + 1])}; }
};

// T adopts the kernel's result (arrays copied into its host form; the container normalizes it).
void adopt(Matrix& T, const P::CsrParts<HostBytes>& r) {
  CsrStorage s;
  s.hyper = r.hyper;
  const auto* h = static_cast<const Index*>(r.h.get());
  const auto* p = static_cast<const Index*>(r.p.get());
  const auto* j = static_cast<const Index*>(r.j.get());
  const auto* x = static_cast<const unsigned char*>(r.x.get());
  if (r.hyper) s.h.assign(h, h + r.nslots);
  s.p.assign(p, p + r.nslots + 1);
  s.j.assign(j, j + r.nvals);
  s.x.assign(x, x + r.nvals * T.type()->size);
  if (s.hyper) {   // drop empty slots, as the container's hypersparse form asks
    std::size_t k = 0;
    for (std::size_t s0 = 0; s0 < s.h.size(); ++s0)
      if (s.p[s0 + 1] > s.p[s0]) {
        s.h[k] = s.h[s0];
        s.p[k + 1] = s.p[s0 + 1];
        ++k;
      }
    s.h.resize(k);
    s.p.resize(k + 1);
  }
  T.adopt(std::move(s));
}

// Runs f(context) on the pool's space where this thread may use it, else on Serial.
template <class F>
bool on_host(F&& f) {
  if (use_pool()) {
    HostContext<Kokkos::DefaultHostExecutionSpace> ctx;
    return f(ctx);
  }
#if defined(KOKKOS_ENABLE_SERIAL)
  HostContext<Kokkos::Serial> ctx;
  return f(ctx);
#else
  return false;
#endif
}

}  // namespace

KernelStatus kronecker(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) {
  if (op.opcode == BinaryOpcode::User || !is_builtin(op.xtype) || op.ytype != op.xtype || A.type() != op.xtype ||
      B.type() != op.xtype)
    return KernelStatus::Declined;
  const CsrRef a = csr_ref(A), b = csr_ref(B);
  bool done = false;
  with_type(op.xtype->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    auto run = [&](auto zt) {
      using Z = typename decltype(zt)::type;
      done = on_host([&](auto& ctx) {
        adopt(T, P::kronecker<V, Z>(ctx, a, b, op.opcode));
        return true;
      });
    };
    if (op.ztype == op.xtype && P::defined_binary<V, V>(op.opcode)) run(TypeTag<V>{});
    else if (op.ztype->code == TypeCode::Bool && P::defined_binary<V, bool>(op.opcode)) run(TypeTag<bool>{});
    return done;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

}  // namespace snk::kokkos
