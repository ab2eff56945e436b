// backends/kokkos/portable/index_ops.hpp: the pieces that extract, assign and the union of hypersparse operands are
// made of, as portable kernels that move values as bytes (so each is instantiated once, for every type).
//
// - rows_from: a matrix made of chosen rows of A (extract's A(I, :), or assign's rows scattered to their targets);
// - rename_columns: keeps the entries whose column is in an increasing list and renames each to its partner in a
//   second increasing list (an increasing column list of extract, or an assign whose column map keeps the order);
//   any other column map is made as rows of the transpose (the backend composes it with transpose());
// - drop_region: deletes the entries inside a region (rows in one list, columns in another), for assign without an
//   accumulator;
// - union_rows and reslot: the rows present in A or B, and A's row pointers over a superset of its rows, so that
//   eWiseAdd's kernel, written for operands with the same slots, serves hypersparse operands too (ewise_union);
// - extract and scatter, the two operations made of them (assign is C without the region, or C itself with an
//   accumulator, united with the scatter of A: the backend does that union with its typed eWiseAdd).
// Index lists given to a kernel live in the space's memory; every list here is increasing unless it says otherwise.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "portable/products.hpp"

namespace snk::kokkos::portable {

// A view of a kernel's result, to feed it to another kernel; nrows x ncols are the result's dimensions.
template <class Bytes>
CsrRef view_of(const CsrParts<Bytes>& r, Index nrows, Index ncols) {
  CsrRef v;
  v.h = r.hyper ? as<Index>(r.h) : nullptr;
  v.p = as<Index>(r.p);
  v.j = as<Index>(r.j);
  v.x = as<unsigned char>(r.x);
  v.nslots = r.nslots;
  v.nrows = nrows;
  v.ncols = ncols;
  v.nvals = r.nvals;
  v.hyper = r.hyper;
  return v;
}

// The first position in the increasing list v[0 .. n-1] whose value is >= x (n when none).
KOKKOS_INLINE_FUNCTION Index lower_bound_in(const Index* v, Index n, Index x) { return lower_bound_col(v, 0, n, x); }

// Whether x is in the increasing list v[0 .. n-1]; every x is when `all`.
KOKKOS_INLINE_FUNCTION bool listed(const Index* v, Index n, bool all, Index x) {
  if (all) return true;
  const Index k = lower_bound_in(v, n, x);
  return k < n && v[k] == x;
}

// T's slot s holds A's row source[s] (any order, repeats allowed, each < A.nrows), for s < n. Without `to_targets`,
// T is plain CSR with n rows (row s is slot s); with it, T is hypersparse and slot s is row target[s] (increasing).
template <class Ctx>
CsrParts<BytesOf<Ctx>> rows_from(Ctx& ctx, const CsrRef& A, const Index* source, Index n, bool to_targets,
                                 const Index* target, std::size_t elem_size) {
  CsrParts<BytesOf<Ctx>> out;
  out.hyper = to_targets;
  out.nslots = n;
  out.p = ctx.alloc((n + 1) * sizeof(Index));
  Index* p = as<Index>(out.p);
  if (out.hyper) {
    out.h = ctx.alloc(n * sizeof(Index));
    copy_bytes(ctx, out.h.get(), target, n * sizeof(Index));
  }
  const CsrRef a = A;
  for_n(ctx, "snack::portable::rows_from_counts", n, KOKKOS_LAMBDA(Index s) { p[s] = a.row_length(source[s]); });
  const Index nvals = place_rows(ctx, out, n, elem_size);
  Index* j = as<Index>(out.j);
  unsigned char* x = as<unsigned char>(out.x);
  CsrRef t;   // T's row pointers, to find each entry's slot
  t.p = p;
  t.nslots = n;
  const CsrRef tr = t;
  for_n(ctx, "snack::portable::rows_from_entries", nvals, KOKKOS_LAMBDA(Index e) {
    const Index s = slot_of(tr, e);
    Index b, end;
    a.row_range(source[s], b, end);
    const Index f = b + (e - p[s]);
    j[e] = a.j[f];
    copy_value(x, e, a.x, f, elem_size);
  });
  return out;
}

// Keeps A's entries whose column is from[k] for some k < n, with column to[k] instead (to[k] = k when to is null).
template <class Ctx>
CsrParts<BytesOf<Ctx>> rename_columns(Ctx& ctx, const CsrRef& A, const Index* from, const Index* to, Index n,
                                      std::size_t elem_size) {
  auto flag_buf = ctx.alloc(A.nvals);
  auto col_buf = ctx.alloc(A.nvals * sizeof(Index));
  std::uint8_t* keep = as<std::uint8_t>(flag_buf);
  Index* col = as<Index>(col_buf);
  const CsrRef a = A;
  for_n(ctx, "snack::portable::rename_columns", A.nvals, KOKKOS_LAMBDA(Index e) {
    const Index k = lower_bound_in(from, n, a.j[e]);
    keep[e] = k < n && from[k] == a.j[e];
    col[e] = keep[e] ? (to != nullptr ? to[k] : k) : 0;
  });
  return compact(ctx, A, keep, A.x, elem_size, col);
}

// A without its entries at (i, j) with i in rows[0 .. nr-1] and j in cols[0 .. nc-1] (each list standing for every
// index when its `all` flag is set).
template <class Ctx>
CsrParts<BytesOf<Ctx>> drop_region(Ctx& ctx, const CsrRef& A, const Index* rows, Index nr, bool all_rows,
                                   const Index* cols, Index nc, bool all_cols, std::size_t elem_size) {
  auto flag_buf = ctx.alloc(A.nvals);
  std::uint8_t* keep = as<std::uint8_t>(flag_buf);
  const CsrRef a = A;
  for_n(ctx, "snack::portable::drop_region", A.nvals, KOKKOS_LAMBDA(Index e) {
    keep[e] = !(listed(rows, nr, all_rows, a.row_of(slot_of(a, e))) && listed(cols, nc, all_cols, a.j[e]));
  });
  return compact(ctx, A, keep, A.x, elem_size);
}

// The rows that hold a slot in A or in B, increasing and without repeats (A and B hypersparse, of equal dimensions):
// the buffer and the count.
template <class Ctx>
std::pair<BytesOf<Ctx>, Index> union_rows(Ctx& ctx, const CsrRef& A, const CsrRef& B) {
  const Index n = A.nslots + B.nslots;
  auto key_buf = ctx.alloc(n * sizeof(std::uint64_t));
  auto idx_buf = ctx.alloc(n * sizeof(std::uint64_t));
  std::uint64_t* key = as<std::uint64_t>(key_buf);
  std::uint64_t* idx = as<std::uint64_t>(idx_buf);
  const CsrRef a = A, b = B;
  const Index na = A.nslots;
  for_n(ctx, "snack::portable::union_rows_keys", n, KOKKOS_LAMBDA(Index q) {
    key[q] = q < na ? a.row_of(q) : b.row_of(q - na);
    idx[q] = q;
  });
  ctx.sort_pairs(key, idx, n, bits_for(A.nrows));
  const Runs<Ctx> runs = runs_of(ctx, key, n);
  const std::uint8_t* head = runs.head;
  const Index* pos = runs.pos;
  auto rows_buf = ctx.alloc(runs.count * sizeof(Index));
  Index* rows = as<Index>(rows_buf);
  for_n(ctx, "snack::portable::union_rows", n, KOKKOS_LAMBDA(Index q) {
    if (head[q]) rows[pos[q]] = key[q];
  });
  return {std::move(rows_buf), runs.count};
}

// A's row pointers over the rows rows[0 .. n-1] (increasing, a superset of A's rows; 0 .. n-1 when rows is null):
// with them and A's own columns and values, A reads as a plain CSR matrix of n slots.
template <class Ctx>
BytesOf<Ctx> reslot(Ctx& ctx, const CsrRef& A, const Index* rows, Index n) {
  auto p_buf = ctx.alloc((n + 1) * sizeof(Index));
  Index* p = as<Index>(p_buf);
  const CsrRef a = A;
  for_n(ctx, "snack::portable::reslot", n + 1, KOKKOS_LAMBDA(Index u) {
    if (u == n) {
      p[u] = a.nvals;
      return;
    }
    const Index r = rows != nullptr ? rows[u] : u;
    const Index s = a.hyper ? lower_bound_in(a.h, a.nslots, r) : (r < a.nslots ? r : a.nslots);
    p[u] = a.p[s];
  });
  return p_buf;   // in stream order on a device: its readers queue behind it
}

// Union: T = eWiseAdd(A, B, op) (elementwise.hpp's kernel) for operands of any form: a hypersparse operand is read
// over the rows of the other (every row), or, when both are hypersparse, both over the union of their rows, which
// the result keeps as its slots.
template <class T, class Z, class Ctx>
CsrParts<BytesOf<Ctx>> ewise_union(Ctx& ctx, const CsrRef& A, const CsrRef& B, BinaryOpcode op) {
  if (!A.hyper && !B.hyper) return ewise_add<T, Z>(ctx, A, B, op);
  const bool both = A.hyper && B.hyper;
  BytesOf<Ctx> rows, pa, pb;
  Index n = A.nrows;
  if (both) {
    auto u = union_rows(ctx, A, B);
    rows = std::move(u.first);
    n = u.second;
  }
  const Index* r = both ? as<Index>(rows) : nullptr;
  CsrRef a = A, b = B;
  auto over = [&](CsrRef& x, BytesOf<Ctx>& p) {
    p = reslot(ctx, x, r, n);
    x.p = as<Index>(p);
    x.h = nullptr;
    x.hyper = false;
    x.nslots = n;
  };
  if (a.hyper) over(a, pa);
  if (b.hyper) over(b, pb);
  CsrParts<BytesOf<Ctx>> out = ewise_add<T, Z>(ctx, a, b, op);
  if (both) {
    out.hyper = true;
    out.h = std::move(rows);
  }
  return out;
}

// T = A(I, J) (T is ni x nj): I holds ni rows of A, or stands for every row in order when all_rows (ni = A.nrows);
// J holds nj columns, or every column when all_cols (nj = A.ncols); `j_increasing` says J is strictly increasing.
// Lists may repeat.
template <class Ctx>
CsrParts<BytesOf<Ctx>> extract(Ctx& ctx, const CsrRef& A, const Index* I, Index ni, bool all_rows, const Index* J,
                               Index nj, bool all_cols, bool j_increasing, std::size_t elem_size) {
  CsrParts<BytesOf<Ctx>> rows;
  CsrRef r = A;
  if (!all_rows) {
    rows = rows_from(ctx, A, I, ni, false, nullptr, elem_size);
    r = view_of(rows, ni, A.ncols);
  }
  if (all_cols) return all_rows ? copy_of(ctx, A, elem_size) : std::move(rows);
  if (j_increasing) return rename_columns(ctx, r, J, nullptr, nj, elem_size);
  // (A(I, :)^T)(J, :)^T
  const CsrParts<BytesOf<Ctx>> t = transpose(ctx, r, elem_size);
  const CsrParts<BytesOf<Ctx>> g = rows_from(ctx, view_of(t, r.ncols, ni), J, nj, false, nullptr, elem_size);
  return transpose(ctx, view_of(g, nj, ni), elem_size);
}

// An index list of assign resolved on the host: duplicates resolved as the spec says (the last occurrence wins),
// giving the targets in increasing order, each with the position in the list it takes its row (or column) from.
struct ResolvedList {
  std::vector<Index> target, source;
  bool keeps_order = true;   // source increasing too: the map keeps a row's column order
  Index size() const { return static_cast<Index>(target.size()); }
};

inline ResolvedList resolve_last_wins(const Index* list, Index n) {
  std::vector<std::pair<Index, Index>> pairs(n);
  for (Index k = 0; k < n; ++k) pairs[k] = {list[k], k};
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  ResolvedList out;
  for (Index q = 0; q < n; ++q) {
    if (q + 1 < n && pairs[q + 1].first == pairs[q].first) continue;   // a later position has this target
    if (!out.source.empty() && pairs[q].second < out.source.back()) out.keeps_order = false;
    out.target.push_back(pairs[q].first);
    out.source.push_back(pairs[q].second);
  }
  return out;
}

// One resolved list in the space's memory, or every index in order (all: nothing moves).
struct PlacedList {
  bool all = true;
  const Index* target = nullptr;
  const Index* source = nullptr;
  Index n = 0;
  bool keeps_order = true;
};

// S = A (ni x nj) placed into a matrix of ncols columns (and the targets' rows): S(rows.target[a], cols.target[b]) =
// A(rows.source[a], cols.source[b]).
template <class Ctx>
CsrParts<BytesOf<Ctx>> scatter(Ctx& ctx, const CsrRef& A, Index ncols, const PlacedList& rows,
                               const PlacedList& cols, std::size_t elem_size) {
  const Index ni = A.nrows;
  CsrParts<BytesOf<Ctx>> moved;
  CsrRef r = A;
  if (!cols.all) {
    if (cols.keeps_order) {
      moved = rename_columns(ctx, A, cols.source, cols.target, cols.n, elem_size);
    } else {   // (A^T scattered by rows)^T
      const CsrParts<BytesOf<Ctx>> t = transpose(ctx, A, elem_size);
      const CsrParts<BytesOf<Ctx>> g = rows_from(ctx, view_of(t, A.ncols, ni), cols.source, cols.n, true, cols.target,
                                                         elem_size);
      moved = transpose(ctx, view_of(g, ncols, ni), elem_size);
    }
    r = view_of(moved, ni, ncols);
  }
  if (!rows.all) return rows_from(ctx, r, rows.source, rows.n, true, rows.target, elem_size);
  if (!cols.all) return moved;
  return copy_of(ctx, A, elem_size);
}

}  // namespace snk::kokkos::portable
