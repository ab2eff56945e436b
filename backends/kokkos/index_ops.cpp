// backends/kokkos/index_ops.cpp: apply with an index-unary operator and select, on the kokkos backend.
//
// Positional operators (ROWINDEX ... ROWGT) depend only on the entry's position and the thunk, so their
// kernels are templated on the opcode (and the INT32 / INT64 output of ROWINDEX, COLINDEX, DIAGINDEX)
// but not on A's type; value operators (VALUEEQ ... VALUEGE) are templated on (opcode, type). The
// arithmetic is int64 as src/algebra defines it (DIAGINDEX is j - (i + y), as in SuiteSparse). A vector's
// entry k is seen at (i = k, j = 0). select evaluates the operator once per entry into a keep flag, in
// parallel over chunks of entries, then compacts by a scan over entries (compact_entries), which is
// type-independent.
#include "entry_points.hpp"
#include "functors.hpp"
#include "parallel.hpp"

namespace snk::kokkos {
namespace {

using IU = IndexUnaryOpcode;

template <IU Op>
KOKKOS_INLINE_FUNCTION std::int64_t position_value(Index i, Index j, std::int64_t y) {
  if constexpr (Op == IU::RowIndex) return math::index_plus(i, y);
  else if constexpr (Op == IU::ColIndex) return math::index_plus(j, y);
  else return math::diag_index(i, j, y);
}

template <IU Op>
KOKKOS_INLINE_FUNCTION bool position_test(Index i, Index j, std::int64_t y) {
  const auto si = static_cast<std::int64_t>(i), sj = static_cast<std::int64_t>(j);
  if constexpr (Op == IU::Tril) return sj <= math::index_plus(i, y);
  else if constexpr (Op == IU::Triu) return sj >= math::index_plus(i, y);
  else if constexpr (Op == IU::Diag) return sj == math::index_plus(i, y);
  else if constexpr (Op == IU::Offdiag) return sj != math::index_plus(i, y);
  else if constexpr (Op == IU::ColLe) return sj <= y;
  else if constexpr (Op == IU::ColGt) return sj > y;
  else if constexpr (Op == IU::RowLe) return si <= y;
  else return si > y;
}

template <IU Op, class T>
KOKKOS_INLINE_FUNCTION bool value_test(T x, T y) {
  if constexpr (Op == IU::ValueEq) return x == y;
  else if constexpr (Op == IU::ValueNe) return x != y;
  else if constexpr (Op == IU::ValueLt) return x < y;
  else if constexpr (Op == IU::ValueLe) return x <= y;
  else if constexpr (Op == IU::ValueGt) return x > y;
  else return x >= y;
}

enum class IndexKind { PositionValue, PositionTest, ValueTest };

// Calls f(ValueTag<Op>{}, ValueTag<kind>{}, TypeTag<T>{}) where T is the output type of a position value
// operator (int32_t / int64_t), unused (bool) for a position test, the value type for a value test.
template <class F>
bool with_index_op(const IndexUnaryOp& op, F&& f) {
  if (op.opcode == IU::User || !is_builtin(op.ztype) || !is_builtin(op.ytype)) return false;
  auto position_value_op = [&](auto optag) {
    if (op.ytype != op.ztype) return false;
    if (op.ztype->code == TypeCode::Int32) f(optag, ValueTag<IndexKind::PositionValue>{}, TypeTag<std::int32_t>{});
    else if (op.ztype->code == TypeCode::Int64) f(optag, ValueTag<IndexKind::PositionValue>{}, TypeTag<std::int64_t>{});
    else return false;
    return true;
  };
  auto position_test_op = [&](auto optag) {
    if (op.ztype->code != TypeCode::Bool || op.ytype->code != TypeCode::Int64) return false;
    f(optag, ValueTag<IndexKind::PositionTest>{}, TypeTag<bool>{});
    return true;
  };
  auto value_test_op = [&](auto optag) {
    if (op.ztype->code != TypeCode::Bool || !is_builtin(op.xtype) || op.ytype != op.xtype) return false;
    return with_type(op.xtype->code, [&](auto tt) {
      f(optag, ValueTag<IndexKind::ValueTest>{}, tt);
      return true;
    });
  };
  switch (op.opcode) {
    case IU::RowIndex: return position_value_op(ValueTag<IU::RowIndex>{});
    case IU::ColIndex: return position_value_op(ValueTag<IU::ColIndex>{});
    case IU::DiagIndex: return position_value_op(ValueTag<IU::DiagIndex>{});
    case IU::Tril: return position_test_op(ValueTag<IU::Tril>{});
    case IU::Triu: return position_test_op(ValueTag<IU::Triu>{});
    case IU::Diag: return position_test_op(ValueTag<IU::Diag>{});
    case IU::Offdiag: return position_test_op(ValueTag<IU::Offdiag>{});
    case IU::ColLe: return position_test_op(ValueTag<IU::ColLe>{});
    case IU::ColGt: return position_test_op(ValueTag<IU::ColGt>{});
    case IU::RowLe: return position_test_op(ValueTag<IU::RowLe>{});
    case IU::RowGt: return position_test_op(ValueTag<IU::RowGt>{});
    case IU::ValueEq: return value_test_op(ValueTag<IU::ValueEq>{});
    case IU::ValueNe: return value_test_op(ValueTag<IU::ValueNe>{});
    case IU::ValueLt: return value_test_op(ValueTag<IU::ValueLt>{});
    case IU::ValueLe: return value_test_op(ValueTag<IU::ValueLe>{});
    case IU::ValueGt: return value_test_op(ValueTag<IU::ValueGt>{});
    case IU::ValueGe: return value_test_op(ValueTag<IU::ValueGe>{});
    default: return false;
  }
}

// The thunk as int64 (position operators) from its builtin type.
std::int64_t thunk_as_int64(const Scalar& thunk) {
  if (thunk.type()->code == TypeCode::Int32) return load_value<std::int32_t>(thunk.data());
  return load_value<std::int64_t>(thunk.data());
}

// Evaluates the operator on every entry of A: z[e] (of type Z) via store(e, value).
template <IU Op, IndexKind Kind, class T, class Store>
void evaluate(const char* label, const Matrix& A, const Scalar& thunk, Store store) {
  const CsrRef a = csr_ref(A);
  const bool vec = A.is_vector();
  if constexpr (Kind == IndexKind::ValueTest) {
    const T y = load_value<T>(thunk.data());
    const T* Ax = a.values<T>();
    for_entries(label, a, [=](Index e, Index) { store(e, value_test<Op, T>(Ax[e], y)); });
  } else {
    const std::int64_t y = thunk_as_int64(thunk);
    for_entries(label, a, [=](Index e, Index row) {
      const Index i = vec ? a.j[e] : row, j = vec ? 0 : a.j[e];
      if constexpr (Kind == IndexKind::PositionValue) store(e, static_cast<T>(position_value<Op>(i, j, y)));
      else store(e, position_test<Op>(i, j, y));
    });
  }
}

}  // namespace

KernelStatus apply_index(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk) {
  return with_index_op(op, [&](auto optag, auto kindtag, auto ttag) {
           constexpr IU Op = decltype(optag)::value;
           constexpr IndexKind Kind = decltype(kindtag)::value;
           using X = typename decltype(ttag)::type;
           using Z = std::conditional_t<Kind == IndexKind::PositionValue, X, bool>;
           CsrStorage s = copy_pattern(A, sizeof(Z));
           Z* Tx = reinterpret_cast<Z*>(s.x.data());
           evaluate<Op, Kind, X>("snack::kokkos::apply_index", A, thunk,
                                 [=](Index e, auto z) { Tx[e] = static_cast<Z>(z); });
           T.adopt(std::move(s));
         })
             ? KernelStatus::Done
             : KernelStatus::Declined;
}

KernelStatus select(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk) {
  if (!is_builtin(A.type())) return KernelStatus::Declined;
  return with_index_op(op, [&](auto optag, auto kindtag, auto ttag) {
           constexpr IU Op = decltype(optag)::value;
           constexpr IndexKind Kind = decltype(kindtag)::value;
           using X = typename decltype(ttag)::type;
           const CsrRef a = csr_ref(A);
           Buffer<std::uint8_t> keep(a.nvals);
           std::uint8_t* K = keep.data();
           evaluate<Op, Kind, X>("snack::kokkos::select", A, thunk,
                                 [=](Index e, auto z) { K[e] = static_cast<std::uint8_t>(z != 0); });
           compact_entries(T, a, K, a.x, A.type()->size);
         })
             ? KernelStatus::Done
             : KernelStatus::Declined;
}

}  // namespace snk::kokkos
