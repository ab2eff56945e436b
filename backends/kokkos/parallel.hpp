// backends/kokkos/parallel.hpp: the kokkos backend's host execution space, whether a call may use its thread pool,
// and the type-independent views of a Matrix that the host side of its kernels takes (compiled once, parallel.cpp).
//
// The kernels are the portable ones (portable/), run on the host through host_context.hpp. Every kernel is
// deterministic: each output entry is produced by one thread in a fixed order, and no floating-point atomics are used
// anywhere, so results are bitwise identical run to run whatever snk::deterministic() says.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portable/csr_ref.hpp"
#include "snack/containers.hpp"

namespace snk::kokkos {

using Exec = Kokkos::DefaultHostExecutionSpace;

// A read-only view of A's host CSR form.
CsrRef csr_ref(const Matrix& A);

// Kokkos' host pool serves one user thread: the one that initialized Kokkos (GrB_init's thread, normally),
// outside a parallel region of its own. Every other user thread runs the same kernels on itself, serially (on
// Kokkos::Serial: host_context.hpp's on_host), so several user threads may call the backend at once, each on its own
// objects (the kernels keep no state between calls).
inline bool on_pool() { return !Exec::in_parallel(); }

// Whether a kernel called now runs on the pool: this thread owns it (on_pool) and the pool governor
// (pool_governor.hpp) is not holding the pool back because other processes hold the machine's cores.
bool use_pool();

// A copy of A's pattern (h, p, j) with room for values of value_size bytes.
CsrStorage copy_pattern(const Matrix& A, std::size_t value_size);

}  // namespace snk::kokkos
