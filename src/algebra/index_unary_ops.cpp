// src/algebra/index_unary_ops.cpp: the predefined index-unary operators of the C API spec 2.0.
//
// Positional: ROWINDEX, COLINDEX, DIAGINDEX with INT32 and INT64 results (the thunk y has the result's
// type); TRIL, TRIU, DIAG, OFFDIAG, COLLE, COLGT, ROWLE, ROWGT (BOOL result, INT64 thunk). These ignore
// the value x, so their xtype is nullptr (any type). Value operators: VALUEEQ, VALUENE, VALUELT, VALUELE,
// VALUEGT, VALUEGE on all 11 builtin types (BOOL result, thunk of the value's type). 80 objects.
// Index arithmetic is int64 as in SuiteSparse 7.4, which defines DIAGINDEX as j - (i + y) (the spec
// writes j - i + y; the reference backend, and so every backend, follows SuiteSparse).
#include <array>
#include <cstring>
#include <memory>

#include "algebra/builtin_math.hpp"
#include "algebra/type_list.hpp"
#include "snack/algebra.hpp"

namespace snk {
namespace {

using I = IndexUnaryOpcode;
constexpr int kIndexUnaryOpcodeCount = static_cast<int>(I::User);

// ROWINDEX, COLINDEX, DIAGINDEX: z and y of type Z (int32_t or int64_t).
template <IndexUnaryOpcode Op, class Z>
void index_value_fn(void* z, const void*, Index i, Index j, const void* thunk) {
  Z y;
  std::memcpy(&y, thunk, sizeof(Z));
  std::int64_t r;
  if constexpr (Op == I::RowIndex) r = math::index_plus(i, y);
  else if constexpr (Op == I::ColIndex) r = math::index_plus(j, y);
  else r = math::diag_index(i, j, y);
  const Z out = static_cast<Z>(r);
  std::memcpy(z, &out, sizeof(Z));
}

// TRIL ... ROWGT: z bool, y int64.
template <IndexUnaryOpcode Op>
void index_test_fn(void* z, const void*, Index i, Index j, const void* thunk) {
  std::int64_t y;
  std::memcpy(&y, thunk, sizeof(y));
  const auto si = static_cast<std::int64_t>(i), sj = static_cast<std::int64_t>(j);
  bool r;
  if constexpr (Op == I::Tril) r = sj <= math::index_plus(i, y);
  else if constexpr (Op == I::Triu) r = sj >= math::index_plus(i, y);
  else if constexpr (Op == I::Diag) r = sj == math::index_plus(i, y);
  else if constexpr (Op == I::Offdiag) r = sj != math::index_plus(i, y);
  else if constexpr (Op == I::ColLe) r = sj <= y;
  else if constexpr (Op == I::ColGt) r = sj > y;
  else if constexpr (Op == I::RowLe) r = si <= y;
  else r = si > y;
  std::memcpy(z, &r, sizeof(r));
}

// VALUEEQ ... VALUEGE: z bool, x and y of type T.
template <IndexUnaryOpcode Op, class T>
void value_fn(void* z, const void* x, Index, Index, const void* thunk) {
  T a, y;
  std::memcpy(&a, x, sizeof(T));
  std::memcpy(&y, thunk, sizeof(T));
  bool r;
  if constexpr (Op == I::ValueEq) r = a == y;
  else if constexpr (Op == I::ValueNe) r = a != y;
  else if constexpr (Op == I::ValueLt) r = a < y;
  else if constexpr (Op == I::ValueLe) r = a <= y;
  else if constexpr (Op == I::ValueGt) r = a > y;
  else r = a >= y;
  std::memcpy(z, &r, sizeof(r));
}

const char* index_unary_name(IndexUnaryOpcode op) {
  switch (op) {
    case I::RowIndex: return "ROWINDEX";
    case I::ColIndex: return "COLINDEX";
    case I::DiagIndex: return "DIAGINDEX";
    case I::Tril: return "TRIL";
    case I::Triu: return "TRIU";
    case I::Diag: return "DIAG";
    case I::Offdiag: return "OFFDIAG";
    case I::ColLe: return "COLLE";
    case I::ColGt: return "COLGT";
    case I::RowLe: return "ROWLE";
    case I::RowGt: return "ROWGT";
    case I::ValueEq: return "VALUEEQ";
    case I::ValueNe: return "VALUENE";
    case I::ValueLt: return "VALUELT";
    case I::ValueLe: return "VALUELE";
    case I::ValueGt: return "VALUEGT";
    case I::ValueGe: return "VALUEGE";
    default: return "USER";
  }
}

struct IndexUnaryTable {
  std::vector<std::unique_ptr<IndexUnaryOp>> owned;
  std::vector<const IndexUnaryOp*> all;
  std::array<std::array<const IndexUnaryOp*, kBuiltinTypeCount>, kIndexUnaryOpcodeCount> at{};

  // `key` is the type the lookup uses (builtin_index_unary_op's `type`); `suffix` adds "_TYPE" to the name.
  void put(IndexUnaryOpcode op, const Type* key, const Type* z, const Type* x, const Type* y,
           IndexUnaryFunction fn, bool suffix) {
    std::string name = std::string("GrB_") + index_unary_name(op);
    if (suffix) name += "_" + key->name;
    owned.push_back(std::make_unique<IndexUnaryOp>(IndexUnaryOp{op, z, x, y, fn, name}));
    at[static_cast<int>(op)][algebra::type_index(key->code)] = owned.back().get();
    all.push_back(owned.back().get());
  }

  template <IndexUnaryOpcode Op>
  void add_index_value() {
    put(Op, &types::Int32, &types::Int32, nullptr, &types::Int32, &index_value_fn<Op, std::int32_t>, true);
    put(Op, &types::Int64, &types::Int64, nullptr, &types::Int64, &index_value_fn<Op, std::int64_t>, true);
  }

  template <IndexUnaryOpcode Op>
  void add_index_test() {
    put(Op, &types::Int64, &types::Bool, nullptr, &types::Int64, &index_test_fn<Op>, false);
  }

  template <IndexUnaryOpcode Op>
  void add_value() {
    algebra::for_each_builtin_type([&](auto tag) {
      using T = typename decltype(tag)::type;
      const Type* t = type_of<T>();
      put(Op, t, &types::Bool, t, t, &value_fn<Op, T>, true);
    });
  }

  IndexUnaryTable() {
    add_index_value<I::RowIndex>();
    add_index_value<I::ColIndex>();
    add_index_value<I::DiagIndex>();
    add_index_test<I::Tril>();
    add_index_test<I::Triu>();
    add_index_test<I::Diag>();
    add_index_test<I::Offdiag>();
    add_index_test<I::ColLe>();
    add_index_test<I::ColGt>();
    add_index_test<I::RowLe>();
    add_index_test<I::RowGt>();
    add_value<I::ValueEq>();
    add_value<I::ValueNe>();
    add_value<I::ValueLt>();
    add_value<I::ValueLe>();
    add_value<I::ValueGt>();
    add_value<I::ValueGe>();
  }
};

const IndexUnaryTable& index_unary_table() {
  static const IndexUnaryTable table;
  return table;
}

}  // namespace

const IndexUnaryOp* builtin_index_unary_op(IndexUnaryOpcode op, TypeCode type) {
  const int o = static_cast<int>(op), t = algebra::type_index(type);
  if (o < 0 || o >= kIndexUnaryOpcodeCount || t < 0 || t >= kBuiltinTypeCount) return nullptr;
  return index_unary_table().at[o][t];
}

const std::vector<const IndexUnaryOp*>& all_builtin_index_unary_ops() { return index_unary_table().all; }

}  // namespace snk
