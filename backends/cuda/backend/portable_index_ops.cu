// backends/cuda/backend/portable_index_ops.cu: extract, assign to part of C and kronecker on the GPU, made of the
// portable kernels (backends/kokkos/portable/index_ops.hpp, kronecker.hpp) in Kokkos' CUDA space.
//
// Extract and assign move values as bytes, so they are instantiated once for every type. Their index lists arrive
// in host memory and are uploaded (they are arguments, not container data: the transfer counters do not count
// them); assign's duplicate indices are resolved on the host (the last one wins). Assign's union with C is the typed
// eWiseAdd (with the accumulator, or FIRST over disjoint operands without one). Kronecker is instantiated per builtin type and for comparisons' bool output.
#include <utility>

#include "device_context.hpp"
#include "portable/index_ops.hpp"
#include "portable/kronecker.hpp"
#include "portable_ops.hpp"

namespace snk::cuda {

SNACK_SOURCE_CONTEXT
namespace {

namespace P = snk::kokkos::portable;
using core::IndexList;
using core::KernelStatus;
using kokkos::CsrRef;
using Parts = P::CsrParts<DeviceBuffer>;

DeviceBuffer upload(const Index* v, Index n, cudaStream_t s) {
  DeviceBuffer d(n * sizeof(Index));
  if (n > 0) d.upload(v, n * sizeof(Index), s);
  return d;
}

const Index* at(const DeviceBuffer& b) { return static_cast<const Index*>(b.get()); }

bool strictly_increasing(const IndexList& L) {
  for (Index k = 1; k < L.n; ++k)
    if (L.list[k] <= L.list[k - 1]) return false;
  return true;
}

// An assign index list resolved on the host and uploaded (kept alive with the view the kernels take).
struct DevicePlacedList {
  DeviceBuffer target, source;
  P::PlacedList list;
};

DevicePlacedList place(const IndexList& L, Index dim, cudaStream_t s) {
  DevicePlacedList d;
  if (L.covers(dim)) return d;
  const P::ResolvedList r = P::resolve_last_wins(L.list, L.n);
  d.target = upload(r.target.data(), r.size(), s);
  d.source = upload(r.source.data(), r.size(), s);
  d.list = P::PlacedList{false, at(d.target), at(d.source), r.size(), r.keeps_order};
  return d;
}

// A matrix whose only copy is the device result `parts`.
Matrix device_matrix(const Type* type, Index nrows, Index ncols, Parts&& parts, cudaStream_t s) {
  Matrix M(type, nrows, ncols);
  attach(M, std::move(parts), s);
  return M;
}

}  // namespace

KernelStatus portable_extract(Matrix& T, const Matrix& A, const IndexList& I, const IndexList& J, cudaStream_t s) {
  if (!builtin(A.type()) || T.type() != A.type()) return KernelStatus::Declined;
  SourceContext ctx = source_context(s);
  const bool all_rows = I.covers(A.nrows()), all_cols = J.covers(A.ncols());
  const DeviceBuffer rows = all_rows ? DeviceBuffer() : upload(I.list, I.n, s);
  const DeviceBuffer cols = all_cols ? DeviceBuffer() : upload(J.list, J.n, s);
  attach(T,
         P::extract(ctx, ref_of(A, s), at(rows), T.nrows(), all_rows, at(cols), T.ncols(), all_cols,
                    all_cols || strictly_increasing(J), A.type()->size),
         s);
  return KernelStatus::Done;
}

KernelStatus portable_assign(Matrix& Z, const Matrix& C, const BinaryOp* accum, const Matrix& A, const IndexList& I,
                             const IndexList& J, cudaStream_t s) {
  const Type* v = C.type();
  if (!builtin(v) || A.type() != v || Z.type() != v) return KernelStatus::Declined;
  if (accum != nullptr &&
      (accum->opcode == BinaryOpcode::User || accum->xtype != v || accum->ytype != v || accum->ztype != v))
    return KernelStatus::Declined;
  SourceContext ctx = source_context(s);
  const std::size_t elem = v->size;
  const DevicePlacedList rows = place(I, C.nrows(), s), cols = place(J, C.ncols(), s);
  const Matrix S = device_matrix(
      v, C.nrows(), C.ncols(), P::scatter(ctx, ref_of(A, s), C.ncols(), rows.list, cols.list, elem), s);
  if (accum != nullptr) return portable_ewise_add(Z, *accum, C, S, s);
  // Without an accumulator the region is A's alone: C without the region, united with S (disjoint).
  const Matrix kept = device_matrix(v, C.nrows(), C.ncols(),
                                    P::drop_region(ctx, ref_of(C, s), rows.list.target, rows.list.n, rows.list.all,
                                                   cols.list.target, cols.list.n, cols.list.all, elem),
                                    s);
  return portable_ewise_add(Z, *builtin_binary_op(BinaryOpcode::First, v->code), kept, S, s);
}

KernelStatus portable_kronecker(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B, cudaStream_t s) {
  SourceContext ctx = source_context(s);
  const bool done = P::with_value_types(op, A.type(), B.type(), [&](auto vt, auto zt) {
    using V = typename decltype(vt)::type;
    using Z = typename decltype(zt)::type;
    attach(T, P::kronecker<V, Z>(ctx, ref_of(A, s), ref_of(B, s), op.opcode), s);
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

}  // namespace snk::cuda
