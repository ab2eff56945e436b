// backends/kokkos/portable/index_unary_calls.hpp: apply with an index-unary operator, and select, as both backends call
// the portable kernels for them: which operators and types the kernels serve (KernelStatus::Declined otherwise, with
// nothing written), the thunk read as the operator reads it, and the kernel for each kind of operator (a position
// value, a position test, a value test). The backend gives its context, `view` (A's CsrRef, asked for only once the
// call is served: on a device it may upload A), and `take`, which makes a kernel's result (CsrParts) the output's.
#pragma once

#include <cstdint>

#include "core/kernels.hpp"
#include "portable/elementwise.hpp"
#include "snack/containers.hpp"

namespace snk::kokkos::portable {

// The thunk as int64: positional operators read it so (SuiteSparse casts it the same way).
inline std::int64_t thunk_as_int64(const Scalar& y) {
  std::int64_t v = 0;
  cast_array(&types::Int64, &v, y.type(), y.data(), 1);
  return v;
}

// T = op(A, y) on A's pattern (T's type is the operator's output type).
template <class Ctx, class View, class Take>
core::KernelStatus apply_index_call(Ctx& ctx, const IndexUnaryOp& op, const Matrix& A, const View& view,
                                    const Scalar& y, Take&& take) {
  using core::KernelStatus;
  if (op.opcode == IndexUnaryOpcode::User || !is_builtin(op.ztype) || !is_builtin(op.ytype) || !is_builtin(A.type()))
    return KernelStatus::Declined;
  const bool vector = A.is_vector();
  if (is_position_value(op.opcode)) {
    if (op.ytype != op.ztype) return KernelStatus::Declined;
    if (op.ztype->code == TypeCode::Int32)
      take(apply_position<std::int32_t>(ctx, view(), vector, op.opcode, thunk_as_int64(y)));
    else if (op.ztype->code == TypeCode::Int64)
      take(apply_position<std::int64_t>(ctx, view(), vector, op.opcode, thunk_as_int64(y)));
    else
      return KernelStatus::Declined;
    return KernelStatus::Done;
  }
  if (op.ztype->code != TypeCode::Bool) return KernelStatus::Declined;
  if (is_position_test(op.opcode)) {
    take(apply_position_test(ctx, view(), vector, op.opcode, thunk_as_int64(y)));
    return KernelStatus::Done;
  }
  if (op.xtype != A.type() || op.ytype != op.xtype || y.type() != op.ytype) return KernelStatus::Declined;
  const bool done = with_type(A.type()->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    take(apply_value_test<V>(ctx, view(), op.opcode, load_value<V>(y.data())));
    return true;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

// T = the entries of A where op(A, y) holds, with A's values (T is A's type).
template <class Ctx, class View, class Take>
core::KernelStatus select_call(Ctx& ctx, const Matrix& T, const IndexUnaryOp& op, const Matrix& A, const View& view,
                               const Scalar& y, Take&& take) {
  using core::KernelStatus;
  if (op.opcode == IndexUnaryOpcode::User || !is_builtin(op.ytype) || !is_builtin(A.type()) || T.type() != A.type())
    return KernelStatus::Declined;
  const bool vector = A.is_vector();
  const std::size_t elem = A.type()->size;
  if (is_position_test(op.opcode)) {
    take(select_by_position(ctx, view(), vector, op.opcode, thunk_as_int64(y), elem));
    return KernelStatus::Done;
  }
  if (is_position_value(op.opcode)) {   // kept where i + y (...) is nonzero in the operator's INT32 / INT64
    if (op.ztype->code == TypeCode::Int32)
      take(select_by_position<std::int32_t>(ctx, view(), vector, op.opcode, thunk_as_int64(y), elem));
    else if (op.ztype->code == TypeCode::Int64)
      take(select_by_position<std::int64_t>(ctx, view(), vector, op.opcode, thunk_as_int64(y), elem));
    else
      return KernelStatus::Declined;
    return KernelStatus::Done;
  }
  if (!is_value_test(op.opcode) || op.xtype != A.type() || op.ytype != op.xtype || y.type() != op.ytype)
    return KernelStatus::Declined;
  const bool done = with_type(A.type()->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    take(select_by_value<V>(ctx, view(), op.opcode, load_value<V>(y.data()), elem));
    return true;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

}  // namespace snk::kokkos::portable
