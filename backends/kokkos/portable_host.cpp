// backends/kokkos/portable_host.cpp: the portable kernels (portable/) instantiated for the host, for the kokkos
// backend's operations that use them (entry_points.hpp says which).
//
// The same sources run in Kokkos' CUDA space in the cuda backend. Here the context allocates with new[] and runs on
// the default host space (OpenMP) when this thread may use the pool (parallel.hpp: use_pool), else on Kokkos::Serial
// (another user thread, or the pool held back): Kokkos 3.4 refuses a parallel scan outside the pool's own thread.
// The context and the copy of results into the container are host_context.hpp's.
#include "entry_points.hpp"
#include "functors.hpp"
#include "host_context.hpp"
#include "parallel.hpp"
#include "portable/kronecker.hpp"

namespace snk::kokkos {
namespace {

namespace P = portable;

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
        adopt_result(T, P::kronecker<V, Z>(ctx, a, b, op.opcode));
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
