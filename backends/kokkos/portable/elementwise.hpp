// backends/kokkos/portable/elementwise.hpp: apply (unary, bound binary, index-unary), select, eWiseMult and
// eWiseAdd as portable kernels on any Kokkos space (core/kernels.hpp states each operation's contract), the values of
// a region that holds one scalar everywhere (a constant assign's), and values cast to another type.
//
// On a device every pass runs in parallel over entries, never over rows, so a vector (one row) spreads over the whole
// device; an entry finds its row by a binary search of the row pointers (slot_of). On the host a thread takes a run of
// rows instead: eWiseAdd and eWiseMult merge them (ewise_by_rows), positional tests walk them (for_positions). apply
// keeps A's pattern (unary and bound apply return the values alone, which the caller puts on A's pattern); select and
// the device's eWiseMult flag the entries of A they keep and compact them (parts.hpp: compact), so the result has A's
// slots; the device's eWiseAdd places A's entries and B's entries that A lacks by counting, for each entry, the other
// side's entries before it in its row (binary searches), which needs no merge and no atomics: results are
// deterministic. For operands of one pattern (same_pattern: an optimizer's state and a gradient on a layer's weights)
// ewise_values computes the values alone, which the caller puts on the operands' pattern. Value types: T is the
// operator's input type, Z its output type (T, or bool for comparisons); the operator is an opcode (op_eval.hpp).
// Preconditions the host side checks: builtin operators defined on T; for eWiseAdd, neither input hypersparse (their
// slots are then their rows).
#pragma once

#include <cstdint>
#include <cstring>

#include "portable/op_eval.hpp"
#include "portable/parts.hpp"

namespace snk::kokkos::portable {

// The values-only kernels below (apply, and eWise on one pattern) give their values in A's entry order, for A's
// pattern: into a new buffer, or (the _into forms) into z, which the caller provides (A's own values for an apply in
// place, or the result's storage on the host).

// z = op(a) for every entry.
template <class T, class Ctx>
void apply_unary_into(Ctx& ctx, const CsrRef& A, UnaryOpcode op, T* z) {
  const T* a = A.values<T>();
  for_n_stream(ctx, "snack::portable::apply_unary", A.nvals, KOKKOS_LAMBDA(Index e) { z[e] = unary_eval<T>(op, a[e]); });
}
template <class T, class Ctx>
BytesOf<Ctx> apply_unary_values(Ctx& ctx, const CsrRef& A, UnaryOpcode op) {
  auto x = ctx.alloc(A.nvals * sizeof(T));
  apply_unary_into<T>(ctx, A, op, as<T>(x));
  return x;
}
// z = bind_first ? op(s, a) : op(a, s) for every entry.
template <class T, class Z, class Ctx>
void apply_bound_into(Ctx& ctx, const CsrRef& A, BinaryOpcode op, T s, bool bind_first, Z* z) {
  const T* a = A.values<T>();
  for_n_stream(ctx, "snack::portable::apply_bound", A.nvals, KOKKOS_LAMBDA(Index e) {
    z[e] = bind_first ? binary_eval<T, Z>(op, s, a[e]) : binary_eval<T, Z>(op, a[e], s);
  });
}
template <class T, class Z, class Ctx>
BytesOf<Ctx> apply_bound_values(Ctx& ctx, const CsrRef& A, BinaryOpcode op, T s, bool bind_first) {
  auto x = ctx.alloc(A.nvals * sizeof(Z));
  apply_bound_into<T, Z>(ctx, A, op, s, bind_first, as<Z>(x));
  return x;
}
// n values, each the `size` bytes at `value` (1, 2, 4 or 8: a builtin scalar). The bytes are copied as one word of
// that width, not interpreted, so one kernel serves every type.
template <class Ctx>
BytesOf<Ctx> filled_values(Ctx& ctx, Index n, const void* value, std::size_t size) {
  auto x = ctx.alloc(n * size);
  std::uint64_t w = 0;
  std::memcpy(&w, value, size);   // little-endian: the low `size` bytes are the value
  void* z = x.get();
  for_n_stream(ctx, "snack::portable::filled_values", n, KOKKOS_LAMBDA(Index e) {
    switch (size) {
      case 1: static_cast<std::uint8_t*>(z)[e] = static_cast<std::uint8_t>(w); break;
      case 2: static_cast<std::uint16_t*>(z)[e] = static_cast<std::uint16_t>(w); break;
      case 4: static_cast<std::uint32_t*>(z)[e] = static_cast<std::uint32_t>(w); break;
      default: static_cast<std::uint64_t*>(z)[e] = w; break;
    }
  });
  return x;
}

// The value of builtin type `from` at p[e], cast to To by the algebra's rule (math::cast).
template <class To>
KOKKOS_INLINE_FUNCTION To cast_entry(TypeCode from, const void* p, Index e) {
  switch (from) {
    case TypeCode::Bool: return math::cast<To>(static_cast<const bool*>(p)[e]);
    case TypeCode::Int8: return math::cast<To>(static_cast<const std::int8_t*>(p)[e]);
    case TypeCode::Int16: return math::cast<To>(static_cast<const std::int16_t*>(p)[e]);
    case TypeCode::Int32: return math::cast<To>(static_cast<const std::int32_t*>(p)[e]);
    case TypeCode::Int64: return math::cast<To>(static_cast<const std::int64_t*>(p)[e]);
    case TypeCode::UInt8: return math::cast<To>(static_cast<const std::uint8_t*>(p)[e]);
    case TypeCode::UInt16: return math::cast<To>(static_cast<const std::uint16_t*>(p)[e]);
    case TypeCode::UInt32: return math::cast<To>(static_cast<const std::uint32_t*>(p)[e]);
    case TypeCode::UInt64: return math::cast<To>(static_cast<const std::uint64_t*>(p)[e]);
    case TypeCode::FP32: return math::cast<To>(static_cast<const float*>(p)[e]);
    default: return math::cast<To>(static_cast<const double*>(p)[e]);
  }
}

// A's values cast from the builtin type `from` to `to` (of to_size bytes), in A's entry order. One kernel serves every
// pair of types: the pair is read at run time.
template <class Ctx>
BytesOf<Ctx> cast_values(Ctx& ctx, const CsrRef& A, TypeCode from, TypeCode to, std::size_t to_size) {
  auto x = ctx.alloc(A.nvals * to_size);
  void* z = x.get();
  const void* a = A.x;
  for_n_stream(ctx, "snack::portable::cast_values", A.nvals, KOKKOS_LAMBDA(Index e) {
    switch (to) {
      case TypeCode::Bool: static_cast<bool*>(z)[e] = cast_entry<bool>(from, a, e); break;
      case TypeCode::Int8: static_cast<std::int8_t*>(z)[e] = cast_entry<std::int8_t>(from, a, e); break;
      case TypeCode::Int16: static_cast<std::int16_t*>(z)[e] = cast_entry<std::int16_t>(from, a, e); break;
      case TypeCode::Int32: static_cast<std::int32_t*>(z)[e] = cast_entry<std::int32_t>(from, a, e); break;
      case TypeCode::Int64: static_cast<std::int64_t*>(z)[e] = cast_entry<std::int64_t>(from, a, e); break;
      case TypeCode::UInt8: static_cast<std::uint8_t*>(z)[e] = cast_entry<std::uint8_t>(from, a, e); break;
      case TypeCode::UInt16: static_cast<std::uint16_t*>(z)[e] = cast_entry<std::uint16_t>(from, a, e); break;
      case TypeCode::UInt32: static_cast<std::uint32_t*>(z)[e] = cast_entry<std::uint32_t>(from, a, e); break;
      case TypeCode::UInt64: static_cast<std::uint64_t*>(z)[e] = cast_entry<std::uint64_t>(from, a, e); break;
      case TypeCode::FP32: static_cast<float*>(z)[e] = cast_entry<float>(from, a, e); break;
      default: static_cast<double*>(z)[e] = cast_entry<double>(from, a, e); break;
    }
  });
  return x;
}

// f(e, i, j) for every entry e of A at its position as the operator sees it, (i, j), or (j, 0) for a vector's entry: a
// vector's entries (one row) and a device's entries one thread each, a matrix's on the host by rows (no search for an
// entry's row).
template <class Ctx, class F>
void for_positions(Ctx& ctx, const char* label, const CsrRef& A, bool vector, const F& f) {
  const CsrRef a = A;
  if (vector) {
    for_n_stream(ctx, label, A.nvals, KOKKOS_LAMBDA(Index e) { f(e, a.j[e], Index(0)); });
  } else if constexpr (host_space<Ctx>()) {
    for_entries_by_slot(ctx, label, A, KOKKOS_LAMBDA(Index s, Index e) { f(e, a.row_of(s), a.j[e]); });
  } else {
    for_n(ctx, label, A.nvals, KOKKOS_LAMBDA(Index e) { f(e, a.row_of(slot_of(a, e)), a.j[e]); });
  }
}

// z = ROWINDEX / COLINDEX / DIAGINDEX (i, j, y) for every entry; Z is int32 or int64.
template <class Z, class Ctx>
CsrParts<BytesOf<Ctx>> apply_position(Ctx& ctx, const CsrRef& A, bool vector, IU op, std::int64_t y) {
  auto out = copy_pattern(ctx, A, sizeof(Z));
  Z* z = as<Z>(out.x);
  for_positions(ctx, "snack::portable::apply_position", A, vector, KOKKOS_LAMBDA(Index e, Index i, Index j) {
    z[e] = static_cast<Z>(position_value(op, i, j, y));
  });
  return out;
}

// z = (bool) op(i, j, y) for every entry: a position test.
template <class Ctx>
CsrParts<BytesOf<Ctx>> apply_position_test(Ctx& ctx, const CsrRef& A, bool vector, IU op, std::int64_t y) {
  auto out = copy_pattern(ctx, A, sizeof(bool));
  bool* z = as<bool>(out.x);
  for_positions(ctx, "snack::portable::apply_position_test", A, vector,
                KOKKOS_LAMBDA(Index e, Index i, Index j) { z[e] = position_test(op, i, j, y); });
  return out;
}

// z = (bool) op(a, y) for every entry: a value test of a (of type T) against y.
template <class T, class Ctx>
CsrParts<BytesOf<Ctx>> apply_value_test(Ctx& ctx, const CsrRef& A, IU op, T y) {
  auto out = copy_pattern(ctx, A, sizeof(bool));
  bool* z = as<bool>(out.x);
  const T* v = A.values<T>();
  for_n_stream(ctx, "snack::portable::apply_value_test", A.nvals,
               KOKKOS_LAMBDA(Index e) { z[e] = value_test<T>(op, v[e], y); });
  return out;
}

// select: the entries of A whose flag a test sets, with A's values (elem_size bytes). The test writes flags, and the
// compaction over flags (one instantiation for every select) keeps them: the compaction instantiated per test would
// repeat its three loops in every type's and operator's select. Positional tests are compiled once, not per value
// type.

// The entries of A where a position test holds, or where a position value is nonzero in the operator's output type Z.
template <class Z = std::int64_t, class Ctx>
CsrParts<BytesOf<Ctx>> select_by_position(Ctx& ctx, const CsrRef& A, bool vector, IU op, std::int64_t y,
                                          std::size_t elem_size) {
  auto flag_buf = ctx.alloc(A.nvals);
  std::uint8_t* keep = as<std::uint8_t>(flag_buf);
  if (is_position_test(op))
    for_positions(ctx, "snack::portable::select_position_test", A, vector,
                  KOKKOS_LAMBDA(Index e, Index i, Index j) { keep[e] = position_test(op, i, j, y); });
  else
    for_positions(ctx, "snack::portable::select_position_value", A, vector, KOKKOS_LAMBDA(Index e, Index i, Index j) {
      keep[e] = static_cast<Z>(position_value(op, i, j, y)) != Z(0);
    });
  return compact(ctx, A, keep, A.x, elem_size);
}

// The entries of A whose value (of type T) passes a value test against y.
template <class T, class Ctx>
CsrParts<BytesOf<Ctx>> select_by_value(Ctx& ctx, const CsrRef& A, IU op, T y, std::size_t elem_size) {
  auto flag_buf = ctx.alloc(A.nvals);
  std::uint8_t* keep = as<std::uint8_t>(flag_buf);
  const T* v = A.values<T>();
  for_n_stream(ctx, "snack::portable::select_value_test", A.nvals,
               KOKKOS_LAMBDA(Index e) { keep[e] = value_test<T>(op, v[e], y); });
  return compact(ctx, A, keep, A.x, elem_size);
}

// The position in B of A's entry e's (row, column), or kNoIndex.
KOKKOS_INLINE_FUNCTION Index find_in(const CsrRef& B, Index row, Index col) {
  Index b, e;
  B.row_range(row, b, e);
  const Index at = lower_bound_col(B.j, b, e, col);
  return at < e && B.j[at] == col ? at : kNoIndex;
}

// Whether A and B (plain CSR of one shape) hold the same positions: yes where they share their arrays or both hold
// every entry, else one pass over both patterns, a flag read back.
template <class Ctx>
bool same_pattern(Ctx& ctx, const CsrRef& A, const CsrRef& B) {
  if (A.hyper || B.hyper || A.nslots != B.nslots || A.nvals != B.nvals) return false;
  if (A.p == B.p && A.j == B.j) return true;
  if (A.nrows == B.nrows && A.ncols == B.ncols && A.nvals == A.nrows * A.ncols) return true;   // both full
  auto flag_buf = ctx.alloc(sizeof(Index));
  Index* differ = as<Index>(flag_buf);
  const CsrRef a = A, b = B;
  for_n(ctx, "snack::portable::same_pattern_clear", 1, KOKKOS_LAMBDA(Index) { differ[0] = 0; });
  for_n_stream(ctx, "snack::portable::same_pattern_p", A.nslots + 1, KOKKOS_LAMBDA(Index k) {
    if (a.p[k] != b.p[k]) differ[0] = 1;
  });
  for_n_stream(ctx, "snack::portable::same_pattern_j", A.nvals, KOKKOS_LAMBDA(Index e) {
    if (a.j[e] != b.j[e]) differ[0] = 1;
  });
  return read_back(ctx, differ) == 0;
}

// z = op(a, b) for operands of one pattern (same_pattern), either eWise operation.
template <class T, class Z, class Ctx>
void ewise_values_into(Ctx& ctx, const CsrRef& A, const CsrRef& B, BinaryOpcode op, Z* z) {
  const T *a = A.values<T>(), *b = B.values<T>();
  for_n_stream(ctx, "snack::portable::ewise_values", A.nvals, KOKKOS_LAMBDA(Index e) { z[e] = binary_eval<T, Z>(op, a[e], b[e]); });
}
template <class T, class Z, class Ctx>
BytesOf<Ctx> ewise_values(Ctx& ctx, const CsrRef& A, const CsrRef& B, BinaryOpcode op) {
  auto x = ctx.alloc(A.nvals * sizeof(Z));
  ewise_values_into<T, Z>(ctx, A, B, op, as<Z>(x));
  return x;
}

// The host's form of eWiseAdd and eWiseMult (host_space): one thread merges each row of a run of rows with the same
// row of B, once to count the result's entries and once to write them. The result has A's slots. For the union A and
// B have the same slots (plain CSR, one shape); for the intersection B may be in any form (its row found by
// row_range).
struct EwiseRows {
  CsrRef a, b;
  bool aligned;   // B's slot k is A's
  KOKKOS_INLINE_FUNCTION Index operator()(Index k) const { return k + a.p[k] + (aligned ? b.p[k] : 0); }   // weight
  KOKKOS_INLINE_FUNCTION void range_b(Index k, Index& pb, Index& eb) const {
    if (aligned) {
      pb = b.p[k];
      eb = b.p[k + 1];
    } else {
      b.row_range(a.row_of(k), pb, eb);
    }
  }
  // The entry count of the merge of row k (the union's, or the intersection's).
  template <bool Union>
  KOKKOS_INLINE_FUNCTION Index count(Index k) const {
    Index pa = a.p[k], ea = a.p[k + 1], pb, eb, n = 0;
    range_b(k, pb, eb);
    if (Union && (pa == ea || pb == eb)) return (ea - pa) + (eb - pb);
    while (pa < ea && pb < eb) {
      const Index ja = a.j[pa], jb = b.j[pb];
      n += Union || ja == jb;
      pa += ja <= jb;
      pb += jb <= ja;
    }
    return Union ? n + (ea - pa) + (eb - pb) : n;
  }
  // Writes the merge of row k from position t on.
  template <bool Union, class T, class Z>
  KOKKOS_INLINE_FUNCTION void fill(Index k, Index t, Index* j, Z* z, BinaryOpcode op) const {
    Index pa = a.p[k], ea = a.p[k + 1], pb, eb;
    range_b(k, pb, eb);
    const T *ax = a.values<T>(), *bx = b.values<T>();
    while (pa < ea && pb < eb) {
      const Index ja = a.j[pa], jb = b.j[pb];
      if (ja == jb) {
        j[t] = ja;
        z[t++] = binary_eval<T, Z>(op, ax[pa++], bx[pb++]);
      } else if (!Union) {
        pa += ja < jb;
        pb += jb < ja;
      } else if (ja < jb) {
        j[t] = ja;
        z[t++] = static_cast<Z>(ax[pa++]);
      } else {
        j[t] = jb;
        z[t++] = static_cast<Z>(bx[pb++]);
      }
    }
    if (!Union) return;
    for (; pa < ea; ++pa, ++t) {
      j[t] = a.j[pa];
      z[t] = static_cast<Z>(ax[pa]);
    }
    for (; pb < eb; ++pb, ++t) {
      j[t] = b.j[pb];
      z[t] = static_cast<Z>(bx[pb]);
    }
  }
};

// The result's slots and row pointers, with room for its entries (elem_size bytes each): one instantiation for every
// value type.
template <bool Union, class Ctx>
CsrParts<BytesOf<Ctx>> ewise_rows_placed(Ctx& ctx, const EwiseRows& rows, std::size_t elem_size) {
  CsrParts<BytesOf<Ctx>> out = with_slots_of(ctx, rows.a);
  Index* p = as<Index>(out.p);
  for_slot_runs(ctx, "snack::portable::ewise_rows_count", rows.a.nslots, rows, KOKKOS_LAMBDA(Index k0, Index k1) {
    for (Index k = k0; k < k1; ++k) p[k] = rows.count<Union>(k);
  });
  place_rows(ctx, out, rows.a.nslots, elem_size);
  return out;
}

template <bool Union, class T, class Z, class Ctx>
CsrParts<BytesOf<Ctx>> ewise_by_rows(Ctx& ctx, const CsrRef& A, const CsrRef& B, BinaryOpcode op) {
  const EwiseRows rows{A, B, !A.hyper && !B.hyper};
  CsrParts<BytesOf<Ctx>> out = ewise_rows_placed<Union>(ctx, rows, sizeof(Z));
  const Index* p = as<Index>(out.p);
  Index* j = as<Index>(out.j);
  Z* z = as<Z>(out.x);
  for_slot_runs(ctx, "snack::portable::ewise_rows_fill", A.nslots, rows, KOKKOS_LAMBDA(Index k0, Index k1) {
    for (Index k = k0; k < k1; ++k) rows.fill<Union, T, Z>(k, p[k], j, z, op);
  });
  return out;
}

// The device's form of eWiseMult: each of A's entries looks for its match in B's row.
template <class T, class Z, class Ctx>
CsrParts<BytesOf<Ctx>> ewise_mult_by_entries(Ctx& ctx, const CsrRef& A, const CsrRef& B, BinaryOpcode op) {
  auto match_buf = ctx.alloc(A.nvals * sizeof(Index));
  auto flag_buf = ctx.alloc(A.nvals);
  auto z_buf = ctx.alloc(A.nvals * sizeof(Z));
  Index* match = as<Index>(match_buf);
  std::uint8_t* keep = as<std::uint8_t>(flag_buf);
  Z* zall = as<Z>(z_buf);
  const CsrRef a = A, b = B;
  for_n(ctx, "snack::portable::ewise_mult", A.nvals, KOKKOS_LAMBDA(Index e) {
    const Index f = find_in(b, a.row_of(slot_of(a, e)), a.j[e]);
    match[e] = f;
    keep[e] = f != kNoIndex;
    if (f != kNoIndex) zall[e] = binary_eval<T, Z>(op, a.values<T>()[e], b.values<T>()[f]);
  });
  return compact(ctx, A, keep, zall, sizeof(Z));
}

// The device's form of eWiseAdd: each entry of either side finds its place by counting the other side's entries before
// it in its row.
template <class T, class Z, class Ctx>
CsrParts<BytesOf<Ctx>> ewise_add_by_entries(Ctx& ctx, const CsrRef& A, const CsrRef& B, BinaryOpcode op) {
  const Index nrows = A.nslots;
  // B's entries that A lacks, and their running count (posb[f]: such entries before f).
  auto only_buf = ctx.alloc(B.nvals);
  auto posb_buf = ctx.alloc((B.nvals + 1) * sizeof(Index));
  std::uint8_t* b_only = as<std::uint8_t>(only_buf);
  Index* posb = as<Index>(posb_buf);
  const CsrRef a = A, b = B;
  for_n(ctx, "snack::portable::ewise_add_b_only", B.nvals, KOKKOS_LAMBDA(Index f) {
    b_only[f] = find_in(a, slot_of(b, f), b.j[f]) == kNoIndex;
  });
  const Index n_only = exclusive_scan_flags(ctx, b_only, posb, B.nvals);
  CsrParts<BytesOf<Ctx>> out;
  out.nslots = nrows;
  out.nvals = A.nvals + n_only;
  out.p = ctx.alloc((nrows + 1) * sizeof(Index));
  out.j = ctx.alloc(out.nvals * sizeof(Index));
  out.x = alloc_values(ctx, out.nvals * sizeof(Z));
  Index* p = as<Index>(out.p);
  Index* j = as<Index>(out.j);
  Z* z = as<Z>(out.x);
  for_n(ctx, "snack::portable::ewise_add_p", nrows + 1, KOKKOS_LAMBDA(Index k) { p[k] = a.p[k] + posb[b.p[k]]; });
  // A's entries: after the row's A entries before them and the row's B-only entries of smaller column.
  for_n(ctx, "snack::portable::ewise_add_a", A.nvals, KOKKOS_LAMBDA(Index e) {
    const Index k = slot_of(a, e), c = a.j[e];
    const Index lb = lower_bound_col(b.j, b.p[k], b.p[k + 1], c);
    const Index o = a.p[k] + posb[b.p[k]] + (e - a.p[k]) + (posb[lb] - posb[b.p[k]]);
    j[o] = c;
    const T x = a.values<T>()[e];
    z[o] = lb < b.p[k + 1] && b.j[lb] == c ? binary_eval<T, Z>(op, x, b.values<T>()[lb]) : static_cast<Z>(x);
  });
  // B's entries that A lacks: after the row's A entries of smaller column and the row's B-only entries before them.
  for_n(ctx, "snack::portable::ewise_add_b", B.nvals, KOKKOS_LAMBDA(Index f) {
    if (!b_only[f]) return;
    const Index k = slot_of(b, f), c = b.j[f];
    const Index la = lower_bound_col(a.j, a.p[k], a.p[k + 1], c);
    const Index o = a.p[k] + posb[b.p[k]] + (la - a.p[k]) + (posb[f] - posb[b.p[k]]);
    j[o] = c;
    z[o] = static_cast<Z>(b.values<T>()[f]);
  });
  return out;
}

// Intersection: z = op(a, b) where both have an entry; the result has A's slots.
template <class T, class Z, class Ctx>
CsrParts<BytesOf<Ctx>> ewise_mult(Ctx& ctx, const CsrRef& A, const CsrRef& B, BinaryOpcode op) {
  if constexpr (host_space<Ctx>()) return ewise_by_rows<false, T, Z>(ctx, A, B, op);
  else return ewise_mult_by_entries<T, Z>(ctx, A, B, op);
}

// Union: z = op(a, b) where both have an entry, else the one present cast to Z. Neither input is hypersparse.
template <class T, class Z, class Ctx>
CsrParts<BytesOf<Ctx>> ewise_add(Ctx& ctx, const CsrRef& A, const CsrRef& B, BinaryOpcode op) {
  if constexpr (host_space<Ctx>()) return ewise_by_rows<true, T, Z>(ctx, A, B, op);
  else return ewise_add_by_entries<T, Z>(ctx, A, B, op);
}

}  // namespace snk::kokkos::portable
