// backends/cuda/backend/row_block_product.hpp: the cuda backend's native kernel for a floating PLUS_TIMES product of
// two sparse matrices whose left operand has dense-ish rows and whose inner dimension fits on chip: SpDNN's
// activations times a layer, and a sparse layer's input times its weights. It pulls: a block stages R rows of A
// densely in shared memory, and each thread computes whole output positions j from column j of B (B^T's row j),
// so every entry of B read serves R rows and no position needs an atomic. Two passes: the pattern (a bit per
// row for each column k of the staged rows, OR-ed along B^T's row j; the positions with terms are the result's) with
// each row's count, then, after a scan of the counts, the values written straight into their compacted positions.
// The sum of a position runs over the terms in B^T's row order, the staged zeros of A's absent entries included,
// so B must hold only finite values (0 * inf is not 0; the caller checks) and an exact -0 sum may come out +0.
#pragma once

#include <cuda_runtime_api.h>

#include "device_copy.hpp"
#include "portable/csr_ref.hpp"
#include "portable/parts.hpp"

namespace snk::cuda {

// Whether row_block_product runs A * B' for A of `slots` row slots and `inner` columns, and B' of `ncols` columns with
// `nvals` entries: the staged rows of a block fit in shared memory, the per-block column masks fit a bounded scratch,
// and B'^T's columns fit 16 bits (inner <= 65536).
template <class V>
bool row_block_product_fits(Index slots, Index inner, Index ncols, Index nvals);

// T = A * B' (A: CsrRef of a floating type V, plain or hypersparse; bt: B'^T, plain CSR with one row per column of
// the result, and bt_copy the device copy it is viewed through, which keeps its sliced form), as hypersparse CSR
// parts in `out` over the rows of A that hold an entry of the result. Queued on stream s; the host waits once, for
// the result's entry and row counts. False, out untouched, where bt's rows are too uneven for the sliced form.
template <class V>
bool row_block_product(const kokkos::CsrRef& A, const kokkos::CsrRef& bt, MatrixOnDevice& bt_copy, cudaStream_t s,
                       kokkos::portable::CsrParts<DeviceBuffer>& out);

}  // namespace snk::cuda
