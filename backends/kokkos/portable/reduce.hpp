// backends/kokkos/portable/reduce.hpp: reduce to a scalar and reduce each row to a vector, as portable kernels
// with a monoid chosen at run time (op_eval.hpp: MonoidFn).
//
// reduce_scalar is, on a device, Kokkos' parallel_reduce with the monoid as the join, over entries, starting from no
// value (the identity only for an input without entries); on the host a fold of fixed blocks.
// reduce_rows reduces each non-empty slot in its own order (one thread per row: a deterministic order; a matrix
// with a few very long rows gets little parallelism there) and places the sums as the entries of a 1 x nrows
// vector at the rows' indices, through a scan of the non-empty slots (a full matrix needs none). reduce_full_columns
// reduces the columns of a full matrix where they lie (a reduction over GrB_INP0 transposed, without the transpose);
// reduce_full_rows its rows, many work items a row (one thread per long row reads it serially); both give only the
// values of their full result (the caller attaches them as a full vector: no pattern arrays are made), into an array
// of theirs or, through the _into forms, the caller's.
#pragma once

#include <algorithm>
#include <cstdint>

#include "portable/op_eval.hpp"
#include "portable/parts.hpp"

namespace snk::kokkos::portable {

// A partial reduction: the monoid's result over the entries seen, and whether there were any. Reductions start from
// "none" rather than from the monoid's identity: for the floating MIN and MAX monoids the identity (+Inf, -Inf) is
// not neutral for NaN (fmin(+Inf, NaN) = +Inf), so an identity start would turn a lone NaN into an infinity. The
// flag is a 4-byte word, so the value is never smaller than 4 bytes (Kokkos' warp shuffles on CUDA move whole 4-byte
// words and reduce smaller values wrongly).
template <class T>
struct Partial {
  T v;
  std::uint32_t any;
};

template <class T>
struct MonoidReduce {
  using value_type = Partial<T>;
  const T* v;
  MonoidFn<T> m;
  KOKKOS_INLINE_FUNCTION static void combine(const MonoidFn<T>& m, value_type& dst, const value_type& src) {
    if (!src.any) return;
    dst.v = dst.any ? m(dst.v, src.v) : src.v;
    dst.any = 1;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t e, value_type& acc) const {
    acc.v = acc.any ? m(acc.v, v[e]) : v[e];
    acc.any = 1;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const { combine(m, dst, src); }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dst, const volatile value_type& src) const {
    value_type d = const_cast<const value_type&>(dst), s = const_cast<const value_type&>(src);
    combine(m, d, s);
    const_cast<value_type&>(dst) = d;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& acc) const {
    acc.v = m.identity;
    acc.any = 0;
  }
};

// Entries a host thread folds in order as one block of reduce_scalar.
constexpr Index kScalarBlock = 16384;

// The monoid's reduction of every entry of A (its identity when A is empty). On the host, blocks of kScalarBlock
// entries are folded in order in parallel, then the blocks in order: the result does not depend on the thread count.
template <class T, class Ctx>
T reduce_scalar(Ctx& ctx, const CsrRef& A, MonoidFn<T> m) {
  if (A.nvals == 0) return m.identity;
  if constexpr (host_space<Ctx>()) {
    const Index n = A.nvals, blocks = (n + kScalarBlock - 1) / kScalarBlock;
    auto part_buf = ctx.alloc(blocks * sizeof(T));
    T* part = as<T>(part_buf);
    const T* v = A.values<T>();
    for_n(ctx, "snack::portable::reduce_scalar_blocks", blocks, KOKKOS_LAMBDA(Index b) {
      const Index e0 = b * kScalarBlock, e1 = e0 + kScalarBlock < n ? e0 + kScalarBlock : n;
      part[b] = fold_run(m, v, e0, e1);
    });
    T total = part[0];
    for (Index b = 1; b < blocks; ++b) total = m(total, part[b]);
    return total;
  }
  using Policy = Kokkos::RangePolicy<ExecOf<Ctx>, Kokkos::IndexType<std::int64_t>>;
  // The result goes to device memory and comes back through read_back (parts.hpp says why).
  using Mem = typename ExecOf<Ctx>::memory_space;
  auto result_buf = ctx.alloc(sizeof(Partial<T>));
  Kokkos::View<Partial<T>, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(as<Partial<T>>(result_buf));
  Kokkos::parallel_reduce("snack::portable::reduce_scalar", Policy(ctx.exec(), 0, static_cast<std::int64_t>(A.nvals)),
                          MonoidReduce<T>{A.values<T>(), m}, result);
  const Partial<T> host = read_back(ctx, as<Partial<T>>(result_buf));
  return host.any ? host.v : m.identity;
}

// The 1 x n vector with an entry at every position, its values x (n of them, the result's type).
template <class Ctx>
CsrParts<BytesOf<Ctx>> full_vector(Ctx& ctx, Index n, BytesOf<Ctx> x) {
  CsrParts<BytesOf<Ctx>> out;
  out.nslots = 1;
  out.nvals = n;
  out.p = ctx.alloc(2 * sizeof(Index));
  out.j = ctx.alloc(n * sizeof(Index));
  Index* p = as<Index>(out.p);
  Index* j = as<Index>(out.j);
  for_n(ctx, "snack::portable::full_vector_p", 2, KOKKOS_LAMBDA(Index k) { p[k] = k == 0 ? 0 : n; });
  for_n_stream(ctx, "snack::portable::full_vector_j", n, KOKKOS_LAMBDA(Index r) { j[r] = r; });
  out.x = std::move(x);
  return out;
}

// Slot k's row of A folded in entry order into sum[k], and whether it has entries; `Hoisted`: the opcode's case
// chosen once per row (fold_run: the host's), else per value (a device thread's short rows).
template <class T, bool Hoisted>
struct RowFold {
  CsrRef a;
  MonoidFn<T> m;
  std::uint8_t* nonempty;
  T* sum;
  KOKKOS_INLINE_FUNCTION void operator()(Index k) const {
    nonempty[k] = a.p[k + 1] > a.p[k];
    if (!nonempty[k]) return;
    const T* v = a.values<T>();
    if constexpr (Hoisted) {
      sum[k] = fold_run(m, v, a.p[k], a.p[k + 1]);
    } else {
      T acc = v[a.p[k]];
      for (Index e = a.p[k] + 1; e < a.p[k + 1]; ++e) acc = m(acc, v[e]);
      sum[k] = acc;
    }
  }
};

// T(0, i) = the monoid's reduction of row i of A, for each row with an entry (a 1 x nrows vector). On the host a
// thread folds a run of rows (runs split by entries).
template <class T, class Ctx>
CsrParts<BytesOf<Ctx>> reduce_rows(Ctx& ctx, const CsrRef& A, MonoidFn<T> m) {
  auto flag_buf = ctx.alloc(A.nslots);
  auto sum_buf = ctx.alloc(A.nslots * sizeof(T));
  std::uint8_t* nonempty = as<std::uint8_t>(flag_buf);
  T* sum = as<T>(sum_buf);
  const RowFold<T, host_space<Ctx>()> fold{A, m, nonempty, sum};
  if constexpr (host_space<Ctx>())
    for_slot_runs(ctx, "snack::portable::reduce_rows", A.nslots, SlotEntries{A.p}, KOKKOS_LAMBDA(Index k0, Index k1) {
      for (Index k = k0; k < k1; ++k) fold(k);
    });
  else
    for_n(ctx, "snack::portable::reduce_rows", A.nslots, fold);
  // A full A (a dense gradient reduced over its batch) has an entry in every row: the vector is full, its values the
  // sums as they stand, with no count to bring back to the host first.
  if (A.full()) return full_vector(ctx, A.nrows, std::move(sum_buf));
  return slots_as_vector(ctx, A, nonempty, sum, sizeof(T));
}

// T(0, j) = the monoid's reduction of column j of a full A (every entry present: a batch of gradients reduced over the
// batch, a layer's db), read in place. The rows are cut into chunks and each (chunk, column) pair is one work item:
// consecutive items are consecutive columns of a row, so a GPU warp reads whole lines, and each item folds its chunk's
// rows in row order with four loads in flight. The chunks are as many as give about twice the items the space runs at
// once, with at least kReduceChunkRows rows each and their partial results within kReducePartialBytes; with more
// than one chunk a second pass folds each column's chunks in chunk order. The order is fixed for a given chunk count:
// deterministic on a given space. The ncols results go to z (the caller's array; reduce_full_columns allocates one).
// False (nothing written) where A is not full.
constexpr Index kReduceChunkRows = 16;
constexpr Index kReducePartialBytes = Index(1) << 20;

template <class T, class Ctx>
bool reduce_full_columns_into(Ctx& ctx, const CsrRef& A, MonoidFn<T> m, T* z) {
  if (!A.full()) return false;
  const Index rows = A.nrows, cols = A.ncols;
  const Index items = 2 * std::max<Index>(1, static_cast<Index>(ctx.exec().concurrency()));
  const Index wanted = std::max<Index>(
      1, std::min({(items + cols - 1) / cols, rows / kReduceChunkRows,
                   kReducePartialBytes / (cols * static_cast<Index>(sizeof(T)))}));
  const Index chunk_rows = (rows + wanted - 1) / wanted;
  const Index chunks = (rows + chunk_rows - 1) / chunk_rows;   // every chunk holds at least one row
  // With one chunk the items write the result; else each chunk's, [chunk][column], folded below.
  BytesOf<Ctx> partial_buf;
  if (chunks > 1) partial_buf = ctx.alloc(static_cast<std::size_t>(chunks * cols) * sizeof(T));
  T* const dst = chunks > 1 ? as<T>(partial_buf) : z;
  const T* v = A.values<T>();
  for_n(ctx, "snack::portable::reduce_full_columns", chunks * cols, KOKKOS_LAMBDA(Index i) {
    const Index k = i / cols, r0 = k * chunk_rows, r1 = r0 + chunk_rows < rows ? r0 + chunk_rows : rows;
    const T* col = v + (i - k * cols);
    T acc = col[r0 * cols];
    Index r = r0 + 1;
    for (; r + 4 <= r1; r += 4) {
      const T a = col[r * cols], b = col[(r + 1) * cols], c = col[(r + 2) * cols], d = col[(r + 3) * cols];
      acc = m(m(m(m(acc, a), b), c), d);
    }
    for (; r < r1; ++r) acc = m(acc, col[r * cols]);
    dst[i] = acc;
  });
  if (chunks > 1)
    for_n(ctx, "snack::portable::reduce_column_chunks", cols, KOKKOS_LAMBDA(Index c) {
      T acc = dst[c];
      for (Index k = 1; k < chunks; ++k) acc = m(acc, dst[k * cols + c]);
      z[c] = acc;
    });
  return true;
}

template <class T, class Ctx>
bool reduce_full_columns(Ctx& ctx, const CsrRef& A, MonoidFn<T> m, BytesOf<Ctx>& values) {
  if (!A.full()) return false;
  values = ctx.alloc(A.ncols * sizeof(T));
  return reduce_full_columns_into(ctx, A, m, as<T>(values));
}

// T(0, i) = the monoid's reduction of row i of a full A (a layer's db from gradients held features by batch), read in
// place. Each row is kReduceRowLanes work items, item l folding columns l, l + lanes, ... in order, so that consecutive
// items read consecutive values (a GPU warp reads whole lines); a second pass folds each row's items in order. The
// order is fixed: deterministic. The nrows results go to z (the caller's array; reduce_full_rows allocates one). False
// (nothing written) where A is not full or has no columns.
constexpr Index kReduceRowLanes = 32;

template <class T, class Ctx>
bool reduce_full_rows_into(Ctx& ctx, const CsrRef& A, MonoidFn<T> m, T* z) {
  if (!A.full() || A.ncols == 0) return false;
  const Index rows = A.nrows, cols = A.ncols, lanes = std::min(kReduceRowLanes, cols);
  auto partial_buf = ctx.alloc(static_cast<std::size_t>(rows * lanes) * sizeof(T));
  T* part = as<T>(partial_buf);
  const T* v = A.values<T>();
  for_n(ctx, "snack::portable::reduce_full_rows", rows * lanes, KOKKOS_LAMBDA(Index i) {
    const Index r = i / lanes, l = i - r * lanes;
    const T* row = v + r * cols;
    T acc = row[l];
    for (Index c = l + lanes; c < cols; c += lanes) acc = m(acc, row[c]);
    part[i] = acc;
  });
  for_n(ctx, "snack::portable::reduce_row_lanes", rows, KOKKOS_LAMBDA(Index r) {
    T acc = part[r * lanes];
    for (Index l = 1; l < lanes; ++l) acc = m(acc, part[r * lanes + l]);
    z[r] = acc;
  });
  return true;
}

template <class T, class Ctx>
bool reduce_full_rows(Ctx& ctx, const CsrRef& A, MonoidFn<T> m, BytesOf<Ctx>& values) {
  if (!A.full() || A.ncols == 0) return false;
  values = ctx.alloc(A.nrows * sizeof(T));
  return reduce_full_rows_into(ctx, A, m, as<T>(values));
}

}  // namespace snk::kokkos::portable
