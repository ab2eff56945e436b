// backends/kokkos/portable/products.hpp: sparse x sparse products (mxm with both operands sparse, so also mxv and
// vxm with a sparse vector) and transpose, as portable kernels.
//
// Products of a vector and a matrix (mxv, vxm): a row-wise SpMV, one thread per row of the matrix that holds the
// vector's partner in each row (B for mxv, B^T for vxm), with the vector made dense and the rows the mask hint rules
// out skipped (BFS's pull step); or pushed from the vector's entries, into a dense accumulator by atomics where the
// monoid's result does not depend on order (push_dense), else by expand-sort-compress.
//
// Products: Gustavson's rows by expand, sort and compress (ESC), or, where B's columns are few enough for a row of the
// result to fit on chip, by a dense accumulator per row (dense_rows_spgemm, the same results). Each entry A(i,k)
// expands into its products with the entries of row k of B, keyed by i * ncols + j; the keys are sorted with their
// positions (stable, by the context's radix sort: ctx.sort_pairs), and each run of equal keys is reduced by the add
// monoid in expansion order, so the result is deterministic. The masked dot product serves C<M> = A * B^T where a mask
// is given (the triangle-counting form): one thread per entry of M intersects row i of A with row j of B, so only
// masked positions are computed. Transpose is a stable sort of the entries by column (they are already in row order).
// Keys need nrows * ncols < 2^64 (the host side checks). The semiring is run-time: add (a MonoidFn) and multiply
// (an opcode, with its operands swapped when `flip`). For a product whose dense part runs elsewhere (the cuda backend's
// SpMM family), A's non-empty rows are laid out densely and the dense result is compacted back (dense_nonempty_rows,
// compact_dense_product).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "portable/elementwise.hpp"
#include "portable/reduce.hpp"

namespace snk::kokkos::portable {

// Bits needed for values below n (at least 1).
inline int bits_for(Index n) {
  int b = 1;
  while (b < 64 && (Index(1) << b) < n) ++b;
  return b;
}

// The runs of equal values in a sorted array of n keys: head[q] says whether q starts one, pos[q] counts the runs
// that start before q, and count is their number. The buffers live as long as the object.
template <class Ctx>
struct Runs {
  BytesOf<Ctx> head_buf, pos_buf;
  const std::uint8_t* head;
  const Index* pos;
  Index count;
};

template <class K, class Ctx>
Runs<Ctx> runs_of(Ctx& ctx, const K* keys, Index n) {
  Runs<Ctx> r{ctx.alloc(n), ctx.alloc((n + 1) * sizeof(Index)), nullptr, nullptr, 0};
  std::uint8_t* head = as<std::uint8_t>(r.head_buf);
  for_n(ctx, "snack::portable::run_heads", n, KOKKOS_LAMBDA(Index q) { head[q] = q == 0 || keys[q] != keys[q - 1]; });
  r.count = exclusive_scan_flags(ctx, head, as<Index>(r.pos_buf), n);
  r.head = head;
  r.pos = as<Index>(r.pos_buf);
  return r;
}

// The CSR arrays of a result whose entries are sorted by (row, column), given each entry's row: plain CSR, or
// hypersparse (only the rows that hold entries) where the container's size rule would make it so.
template <class Ctx>
void rows_to_csr(Ctx& ctx, CsrParts<BytesOf<Ctx>>& out, const Index* row, Index nrows) {
  const Index n = out.nvals;
  out.hyper = nrows > 4 * n + 64;
  if (!out.hyper) {
    out.nslots = nrows;
    out.p = ctx.alloc((nrows + 1) * sizeof(Index));
    Index* p = as<Index>(out.p);
    for_n(ctx, "snack::portable::csr_rows", nrows + 1, KOKKOS_LAMBDA(Index r) {
      Index lo = 0, hi = n;   // first entry whose row is >= r
      while (lo < hi) {
        const Index mid = lo + (hi - lo) / 2;
        if (row[mid] < r) lo = mid + 1; else hi = mid;
      }
      p[r] = lo;
    });
    return;
  }
  const Runs<Ctx> rows = runs_of(ctx, row, n);   // one slot per run of a row
  const std::uint8_t* head = rows.head;
  const Index* pos = rows.pos;
  const Index slots = rows.count;
  out.nslots = slots;
  out.h = ctx.alloc(slots * sizeof(Index));
  out.p = ctx.alloc((slots + 1) * sizeof(Index));
  Index* h = as<Index>(out.h);
  Index* p = as<Index>(out.p);
  for_n(ctx, "snack::portable::csr_slots", n + 1, KOKKOS_LAMBDA(Index e) {
    if (e == n) {
      p[slots] = n;
    } else if (head[e]) {
      h[pos[e]] = row[e];
      p[pos[e]] = e;
    }
  });
}

// x = ax^T for dense row-major arrays of values of type T (ax rows x cols): a team per tile of kTransposeTile x
// kTransposeTile values, read along the tile's rows into scratch (one row padded against bank conflicts) and written
// along its columns, so both sides move whole lines.
constexpr int kTransposeTile = 32;

template <class T, class Ctx>
void transpose_dense_values(Ctx& ctx, const T* ax, T* x, Index rows, Index cols) {
  using Exec = ExecOf<Ctx>;
  using Policy = Kokkos::TeamPolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  using Member = typename Policy::member_type;
  constexpr bool host = host_space<Ctx>();
  constexpr int W = kTransposeTile;
  constexpr std::size_t bytes = static_cast<std::size_t>(W) * (W + 1) * sizeof(T);
  const std::int64_t row_tiles = static_cast<std::int64_t>((rows + W - 1) / W),
                     col_tiles = static_cast<std::int64_t>((cols + W - 1) / W);
  if (row_tiles * col_tiles == 0) return;
  Policy policy = host ? Policy(ctx.exec(), row_tiles * col_tiles, 1) : Policy(ctx.exec(), row_tiles * col_tiles, 256);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("snack::portable::transpose_dense", policy, KOKKOS_LAMBDA(const Member& t) {
    const std::int64_t rt = t.league_rank() / col_tiles, ct = t.league_rank() - rt * col_tiles;
    const Index r0 = static_cast<Index>(rt) * W, c0 = static_cast<Index>(ct) * W;
    T* tile = static_cast<T*>(t.team_shmem().get_shmem(bytes));   // [W][W + 1]: tile[rr][cc] = ax(r0 + rr, c0 + cc)
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, W * W), [&](const int i) {
      const int rr = i / W, cc = i - rr * W;
      if (r0 + rr < rows && c0 + cc < cols) tile[rr * (W + 1) + cc] = ax[(r0 + rr) * cols + c0 + cc];
    });
    t.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, W * W), [&](const int i) {
      const int cc = i / W, rr = i - cc * W;
      if (r0 + rr < rows && c0 + cc < cols) x[(c0 + cc) * rows + r0 + rr] = tile[rr * (W + 1) + cc];
    });
  });
}

// The widest matrix the host transposes by per-run column counts (runs x columns counters).
constexpr Index kCountedTransposeColumns = Index(1) << 26;

// The host's A^T by counts, with no sort: each of a few runs of A's rows (split by entries) counts its entries per
// column, a scan in (column, run) order gives every run its place in each column, and each run scatters its rows in
// order, so each column comes out in row order. A run a thread, but no more runs than keep the counters (runs x
// columns) within about four per entry of A beside 65536 per thread: a wide A gets fewer runs, not gigabytes of
// counters.
template <class Ctx>
CsrParts<BytesOf<Ctx>> transpose_by_counts(Ctx& ctx, const CsrRef& A, std::size_t elem_size) {
  const Index ncols = A.ncols, slots = A.nslots, n = A.nvals;
  const Index threads = static_cast<Index>(ctx.exec().concurrency());
  Index runs = (4 * n + 65536 * threads) / (ncols > 0 ? ncols : 1);
  runs = runs < threads ? runs : threads;
  runs = runs < slots ? runs : slots;
  runs = runs > 1 ? runs : 1;
  auto count_buf = ctx.alloc(runs * ncols * sizeof(Index));
  Index* at = as<Index>(count_buf);   // run r's count, then its next place, of column c: at[r * ncols + c]
  for_n_stream(ctx, "snack::portable::transpose_counts_clear", runs * ncols, KOKKOS_LAMBDA(Index q) { at[q] = 0; });
  const CsrRef a = A;
  const SlotEntries weight{A.p};
  for_n(ctx, "snack::portable::transpose_counts", runs, KOKKOS_LAMBDA(Index r) {
    Index* c = at + r * ncols;
    const Index k0 = run_start(weight, slots, r, runs), k1 = run_start(weight, slots, r + 1, runs);
    for (Index e = a.p[k0]; e < a.p[k1]; ++e) ++c[a.j[e]];
  });
  CsrParts<BytesOf<Ctx>> out = plain_parts(ctx, ncols, n, elem_size);
  Index* p = as<Index>(out.p);
  Index* j = as<Index>(out.j);
  unsigned char* x = as<unsigned char>(out.x);
  for_n(ctx, "snack::portable::transpose_column_counts", ncols, KOKKOS_LAMBDA(Index c) {
    Index total = 0;
    for (Index r = 0; r < runs; ++r) total += at[r * ncols + c];
    p[c] = total;
  });
  exclusive_scan_in_place(ctx, p, ncols);
  for_n(ctx, "snack::portable::transpose_places", ncols, KOKKOS_LAMBDA(Index c) {
    Index next = p[c];
    for (Index r = 0; r < runs; ++r) {
      const Index count = at[r * ncols + c];
      at[r * ncols + c] = next;
      next += count;
    }
  });
  for_n(ctx, "snack::portable::transpose_scatter", runs, KOKKOS_LAMBDA(Index r) {
    Index* next = at + r * ncols;
    const Index k0 = run_start(weight, slots, r, runs), k1 = run_start(weight, slots, r + 1, runs);
    for (Index k = k0; k < k1; ++k) {
      const Index i = a.row_of(k);
      for (Index e = a.p[k]; e < a.p[k + 1]; ++e) {
        const Index q = next[a.j[e]]++;
        j[q] = i;
        copy_value(x, q, a.x, e, elem_size);
      }
    }
  });
  return out;
}

// T = A^T (values of elem_size bytes). A's entries are in (row, column) order, so a stable sort by column gives
// the transpose's (row, column) order; the host counts instead (transpose_by_counts) where A is not too wide for it.
// A with every entry (a batch of activations) is a dense transpose instead:
// T's pattern is known and each value moves to its place by tiles (transpose_dense_values, for values of 1, 2, 4 or 8
// bytes), with no sort.
template <class Ctx>
CsrParts<BytesOf<Ctx>> transpose(Ctx& ctx, const CsrRef& A, std::size_t elem_size) {
  const Index n = A.nvals;
  if (!A.hyper && A.nrows > 0 && n == A.nrows * A.ncols) {
    const Index rows = A.nrows, cols = A.ncols;
    CsrParts<BytesOf<Ctx>> out = plain_parts(ctx, cols, n, elem_size);
    Index *p = as<Index>(out.p), *j = as<Index>(out.j);
    unsigned char* x = as<unsigned char>(out.x);
    const unsigned char* ax = A.x;
    for_n(ctx, "snack::portable::transpose_full_rows", cols + 1, KOKKOS_LAMBDA(Index c) { p[c] = c * rows; });
    const auto tiles = [&](auto value) {   // the values as one word of their size each
      using T = decltype(value);
      transpose_dense_values(ctx, reinterpret_cast<const T*>(ax), reinterpret_cast<T*>(x), rows, cols);
    };
    switch (elem_size) {
      case 1: tiles(std::uint8_t()); break;
      case 2: tiles(std::uint16_t()); break;
      case 4: tiles(std::uint32_t()); break;
      case 8: tiles(std::uint64_t()); break;
      default:
        for_n_stream(ctx, "snack::portable::transpose_full", n, KOKKOS_LAMBDA(Index q) {
          const Index c = q / rows, r = q % rows;   // T(c, r) = A(r, c)
          copy_value(x, q, ax, r * cols + c, elem_size);
        });
    }
    for_n_stream(ctx, "snack::portable::transpose_full_columns", n, KOKKOS_LAMBDA(Index q) { j[q] = q % rows; });
    return out;
  }
  if constexpr (host_space<Ctx>()) {
    if (A.ncols <= kCountedTransposeColumns && A.ncols <= 8 * n + 65536) return transpose_by_counts(ctx, A, elem_size);
  }
  auto key_buf = ctx.alloc(n * sizeof(std::uint64_t));
  auto idx_buf = ctx.alloc(n * sizeof(std::uint64_t));
  std::uint64_t* key = as<std::uint64_t>(key_buf);
  std::uint64_t* idx = as<std::uint64_t>(idx_buf);
  const CsrRef a = A;
  for_n(ctx, "snack::portable::transpose_keys", n, KOKKOS_LAMBDA(Index e) {
    key[e] = a.j[e];
    idx[e] = e;
  });
  ctx.sort_pairs(key, idx, n, bits_for(A.ncols));
  CsrParts<BytesOf<Ctx>> out;
  out.nvals = n;
  out.j = ctx.alloc(n * sizeof(Index));
  out.x = alloc_values(ctx, n * elem_size);
  auto row_buf = ctx.alloc(n * sizeof(Index));
  Index* j = as<Index>(out.j);
  Index* row = as<Index>(row_buf);
  unsigned char* x = as<unsigned char>(out.x);
  for_n(ctx, "snack::portable::transpose_gather", n, KOKKOS_LAMBDA(Index q) {
    const Index e = idx[q];
    row[q] = key[q];
    j[q] = a.row_of(slot_of(a, e));
    copy_value(x, q, a.x, e, elem_size);
  });
  rows_to_csr(ctx, out, row, A.ncols);
  return out;
}

// The products of A's entries with the rows of B they meet (entry e of A, in column k, with row k of B), numbered
// 0..count-1 entry by entry: where each one lies (locate), for one thread per product (not per entry of A: a long
// row of B would be one thread's serial walk). Trivially copyable, so kernels capture it.
struct ProductIndex {
  CsrRef a, b;
  CsrRef by_entry;   // the products' offsets per entry of A, as row pointers (nslots = A's entries)
  Index count = 0;
  // Product q: its entry e of A and its entry f of B.
  KOKKOS_INLINE_FUNCTION void locate(Index q, Index& e, Index& f) const {
    e = slot_of(by_entry, q);
    Index lo, hi;
    b.row_range(a.j[e], lo, hi);
    f = lo + (q - by_entry.p[e]);
  }
};

// A's products with B indexed (ProductIndex); `offsets` holds the offsets and must outlive the index's use.
template <class Ctx>
ProductIndex index_products(Ctx& ctx, const CsrRef& A, const CsrRef& B, BytesOf<Ctx>& offsets) {
  offsets = ctx.alloc((A.nvals + 1) * sizeof(Index));
  Index* off = as<Index>(offsets);
  const CsrRef a = A, b = B;
  for_n(ctx, "snack::portable::product_counts", A.nvals, KOKKOS_LAMBDA(Index e) {
    Index lo, hi;
    b.row_range(a.j[e], lo, hi);
    off[e] = hi - lo;
  });
  ProductIndex index;
  index.a = A;
  index.b = B;
  index.by_entry.p = off;
  index.by_entry.nslots = A.nvals;
  index.count = exclusive_scan_in_place(ctx, off, A.nvals);
  return index;
}

// Calls f(add, mul) with a semiring's monoid and multiply as functors on V, for the host's product kernels, where one
// thread walks many products (a device kernel reads the opcodes per value). PLUS_TIMES on FP32 (the layers) and FP64
// (the graph benchmarks) in the OpenMP pool is fixed at compile time (FixedFn); every other product, and every product
// on the serial space of threads outside the pool, reads its opcodes at run time (MonoidFn, MulFn). Each fixed
// pair is a second copy of every host product kernel, so only these are compiled.
template <class Ctx, class V, class F>
void with_semiring_fns(const MonoidFn<V>& add, BinaryOpcode mul, bool flip, F&& f) {
  if constexpr (std::is_floating_point_v<V> && std::is_same_v<ExecOf<Ctx>, Kokkos::DefaultHostExecutionSpace>) {
    if (add.op == BinaryOpcode::Plus && mul == BinaryOpcode::Times) {
      f(FixedFn<BinaryOpcode::Plus, V>{}, FixedFn<BinaryOpcode::Times, V>{});
      return;
    }
  }
  f(add, MulFn<V>{mul, flip});
}

// ---- Gustavson's rows: spgemm's host shape --------------------------------------------------------------------------
// A thread takes a run of A's rows (for_slot_runs, split by their products) and builds each row of the result in a
// dense accumulator of B's width that it keeps for the call (a mark per column: the stamp of the row that last touched
// it; a value per column), listing the columns as they are first touched and then sorting them, or reading them off
// the marks where the row touches a good share of the columns. Where B is too wide for an accumulator per thread
// (kHostDenseColumns, or far wider than the products), each row's products are sorted by column instead, stably. Each
// position adds its terms in the order of A's row, then of B's row, as the expansion does, so the two shapes give the
// same results. Two passes: each row's columns counted (marks alone), then the rows placed and filled.
constexpr Index kHostDenseColumns = Index(1) << 22;

template <class V, class Ctx, class Add, class Mul>
CsrParts<BytesOf<Ctx>> gustavson_rows(Ctx& ctx, const CsrRef& A, const CsrRef& B, Add add, Mul mul) {
  using Token = Kokkos::Experimental::UniqueToken<ExecOf<Ctx>>;
  const Index slots = A.nslots, ncols = B.ncols;
  const CsrRef a = A, b = B;
  // work[s]: the products of the slots before s, plus one a slot (an empty row still costs its visit).
  auto work_buf = ctx.alloc((slots + 1) * sizeof(Index));
  Index* work = as<Index>(work_buf);
  for_n(ctx, "snack::portable::row_products", slots, KOKKOS_LAMBDA(Index s) {
    Index f = 1;
    for (Index e = a.p[s]; e < a.p[s + 1]; ++e) f += b.row_length(a.j[e]);
    work[s] = f;
  });
  const Index flops = exclusive_scan_in_place(ctx, work, slots) - slots;
  const bool dense = ncols <= kHostDenseColumns && ncols <= 8 * flops + 65536;
  Token token(ctx.exec());
  const Index threads = static_cast<Index>(token.size());
  // The workspace of each thread: dense, marks (zero: never, as the host context's buffers come zeroed; row s stamps
  // 2s + 1 as it counts, 2s + 2 as it fills) and values, ncols of each; sorted, the longest row's products as columns,
  // values and their order.
  Index longest = 0;
  if (!dense)
    for (Index s = 0; s < slots; ++s) longest = std::max(longest, work[s + 1] - work[s] - 1);
  const Index width = dense ? ncols : longest;
  auto mark_buf = ctx.alloc(threads * width * sizeof(Index));
  auto value_buf = ctx.alloc(threads * width * sizeof(V));
  auto order_buf = ctx.alloc(dense ? 0 : threads * width * sizeof(Index));
  Index* marks = as<Index>(mark_buf);
  V* values = as<V>(value_buf);
  Index* orders = as<Index>(order_buf);

  CsrParts<BytesOf<Ctx>> out = with_slots_of(ctx, A);
  Index* p = as<Index>(out.p);
  for_slot_runs(ctx, "snack::portable::row_columns", slots, ArrayCounts{work}, KOKKOS_LAMBDA(Index k0, Index k1) {
    const auto id = token.acquire();
    Index* mark = marks + static_cast<Index>(id) * width;
    for (Index s = k0; s < k1; ++s) {
      Index n = 0;
      if (dense) {
        const Index stamp = 2 * s + 1;
        for (Index e = a.p[s]; e < a.p[s + 1]; ++e) {
          Index lo, hi;
          b.row_range(a.j[e], lo, hi);
          for (Index f = lo; f < hi; ++f) {
            const Index c = b.j[f];
            if (mark[c] != stamp) {
              mark[c] = stamp;
              ++n;
            }
          }
        }
      } else {   // the distinct columns of the row's products
        Index m = 0;
        for (Index e = a.p[s]; e < a.p[s + 1]; ++e) {
          Index lo, hi;
          b.row_range(a.j[e], lo, hi);
          for (Index f = lo; f < hi; ++f) mark[m++] = b.j[f];
        }
        std::sort(mark, mark + m);
        n = static_cast<Index>(std::unique(mark, mark + m) - mark);
      }
      p[s] = n;
    }
    token.release(id);
  });
  place_rows(ctx, out, slots, sizeof(V));
  Index* j = as<Index>(out.j);
  V* z = as<V>(out.x);
  for_slot_runs(ctx, "snack::portable::row_values", slots, ArrayCounts{work}, KOKKOS_LAMBDA(Index k0, Index k1) {
    const auto id = token.acquire();
    Index* mark = marks + static_cast<Index>(id) * width;
    V* acc = values + static_cast<Index>(id) * width;
    for (Index s = k0; s < k1; ++s) {
      const Index o = p[s], n = p[s + 1] - o;
      if (n == 0) continue;
      if (dense) {
        const Index stamp = 2 * s + 2;
        Index m = 0;
        for (Index e = a.p[s]; e < a.p[s + 1]; ++e) {
          Index lo, hi;
          b.row_range(a.j[e], lo, hi);
          const V av = a.values<V>()[e];
          for (Index f = lo; f < hi; ++f) {
            const Index c = b.j[f];
            const V t = mul(av, b.values<V>()[f]);
            if (mark[c] != stamp) {
              mark[c] = stamp;
              acc[c] = t;
              j[o + m++] = c;
            } else {
              acc[c] = add(acc[c], t);
            }
          }
        }
        if (32 * n >= ncols) {   // a good share of the columns: read them off the marks, in order
          m = 0;
          for (Index c = 0; c < ncols; ++c)
            if (mark[c] == stamp) j[o + m++] = c;
        } else {
          std::sort(j + o, j + o + n);
        }
        for (Index q = o; q < o + n; ++q) z[q] = acc[j[q]];
      } else {
        Index* order = orders + static_cast<Index>(id) * width;
        Index m = 0;   // the row's products in expansion order: columns in mark, values in acc
        for (Index e = a.p[s]; e < a.p[s + 1]; ++e) {
          Index lo, hi;
          b.row_range(a.j[e], lo, hi);
          const V av = a.values<V>()[e];
          for (Index f = lo; f < hi; ++f, ++m) {
            mark[m] = b.j[f];
            acc[m] = mul(av, b.values<V>()[f]);
          }
        }
        for (Index u = 0; u < m; ++u) order[u] = u;
        std::stable_sort(order, order + m, [=](Index x, Index y) { return mark[x] < mark[y]; });
        Index w = o;
        for (Index u = 0; u < m;) {
          const Index c = mark[order[u]];
          V v = acc[order[u]];
          for (++u; u < m && mark[order[u]] == c; ++u) v = add(v, acc[order[u]]);
          j[w] = c;
          z[w++] = v;
        }
      }
    }
    token.release(id);
  });
  return out;
}

// spgemm's device shape: each product keyed by (row, column), the keys sorted stably, each run of equal keys reduced.
template <class V, class Ctx>
CsrParts<BytesOf<Ctx>> expand_sort_compress(Ctx& ctx, const CsrRef& A, const CsrRef& B, MonoidFn<V> add,
                                            BinaryOpcode mul, bool flip) {
  const Index ncols = B.ncols;
  BytesOf<Ctx> offsets;
  const ProductIndex at = index_products(ctx, A, B, offsets);
  const Index flops = at.count;
  auto key_buf = ctx.alloc(flops * sizeof(std::uint64_t));
  auto idx_buf = ctx.alloc(flops * sizeof(std::uint64_t));
  auto val_buf = ctx.alloc(flops * sizeof(V));
  std::uint64_t* key = as<std::uint64_t>(key_buf);
  std::uint64_t* idx = as<std::uint64_t>(idx_buf);
  V* val = as<V>(val_buf);
  const CsrRef a = A, b = B;
  for_n(ctx, "snack::portable::spgemm_expand", flops, KOKKOS_LAMBDA(Index q) {
    Index e, f;
    at.locate(q, e, f);
    const Index i = a.row_of(slot_of(a, e));
    const V av = a.values<V>()[e], bv = b.values<V>()[f];
    key[q] = i * ncols + b.j[f];
    idx[q] = q;
    val[q] = flip ? binary_eval<V, V>(mul, bv, av) : binary_eval<V, V>(mul, av, bv);
  });
  ctx.sort_pairs(key, idx, flops, bits_for(A.nrows) + bits_for(ncols));
  // Runs of equal keys: one output entry each, reduced in expansion order.
  const Runs<Ctx> runs = runs_of(ctx, key, flops);
  const std::uint8_t* head = runs.head;
  const Index* pos = runs.pos;
  const Index n = runs.count;
  CsrParts<BytesOf<Ctx>> out;
  out.nvals = n;
  out.j = ctx.alloc(n * sizeof(Index));
  out.x = alloc_values(ctx, n * sizeof(V));
  auto row_buf = ctx.alloc(n * sizeof(Index));
  Index* j = as<Index>(out.j);
  V* z = as<V>(out.x);
  Index* row = as<Index>(row_buf);
  for_n(ctx, "snack::portable::spgemm_compress", flops, KOKKOS_LAMBDA(Index q) {
    if (!head[q]) return;
    V acc = val[idx[q]];
    for (Index r = q + 1; r < flops && !head[r]; ++r) acc = add(acc, val[idx[r]]);
    const Index o = pos[q];
    row[o] = key[q] / ncols;
    j[o] = key[q] % ncols;
    z[o] = acc;
  });
  rows_to_csr(ctx, out, row, A.nrows);
  return out;
}

// T = A * B over (add, mul) on V, every operand of type V; f(a, b) = flip ? mul(b, a) : mul(a, b). On a device by
// expand, sort and compress; on the host by Gustavson's rows; the two give the same results.
template <class V, class Ctx>
CsrParts<BytesOf<Ctx>> spgemm(Ctx& ctx, const CsrRef& A, const CsrRef& B, MonoidFn<V> add, BinaryOpcode mul,
                              bool flip) {
  if constexpr (host_space<Ctx>()) {
    CsrParts<BytesOf<Ctx>> out;
    with_semiring_fns<Ctx>(add, mul, flip,
                      [&](auto add_fn, auto mul_fn) { out = gustavson_rows<V>(ctx, A, B, add_fn, mul_fn); });
    return out;
  } else {
    return expand_sort_compress<V>(ctx, A, B, add, mul, flip);
  }
}

// rows_times_full's loop: a thread per run of A's rows, each output row swept once per entry of A's row.
template <class V, class Ctx, class Add, class Mul>
void full_rows_host(Ctx& ctx, const CsrRef& a, const V* bx, Index ncols, const Index* p, Add add, Mul mul, Index* j,
                    V* z) {
  for_slot_runs(ctx, "snack::portable::rows_times_full", a.nslots, SlotEntries{a.p}, KOKKOS_LAMBDA(Index k0, Index k1) {
    for (Index s = k0; s < k1; ++s) {
      const Index e0 = a.p[s], e1 = a.p[s + 1];
      if (e0 == e1) continue;
      Index* jr = j + p[s];
      V* zr = z + p[s];
      const V a0 = a.values<V>()[e0];
      const V* b0 = bx + a.j[e0] * ncols;
      for (Index c = 0; c < ncols; ++c) {
        jr[c] = c;
        zr[c] = mul(a0, b0[c]);
      }
      for (Index e = e0 + 1; e < e1; ++e) {
        const V av = a.values<V>()[e];
        const V* br = bx + a.j[e] * ncols;
        for (Index c = 0; c < ncols; ++c) zr[c] = add(zr[c], mul(av, br[c]));
      }
    }
  });
}

// T = A * B for a full B (every entry present; its values row-major, B(k, c) at k * ncols + c): a row of A with
// entries gives a full row of T, position (i, c) adding f(A(i,k), B(k,c)) over row i's entries in order (Gustavson's
// order, so spgemm's result). The result has A's slots. The host's kernel: on a device the SpMM family serves a full B
// (the cuda backend's product table).
template <class V, class Ctx>
CsrParts<BytesOf<Ctx>> rows_times_full(Ctx& ctx, const CsrRef& A, const CsrRef& B, MonoidFn<V> add, BinaryOpcode mul,
                                       bool flip) {
  static_assert(host_space<Ctx>(), "rows_times_full is the host's; a device runs a full B through the SpMM family");
  const Index slots = A.nslots, ncols = B.ncols;
  CsrParts<BytesOf<Ctx>> out = with_slots_of(ctx, A);
  Index* p = as<Index>(out.p);
  const CsrRef a = A;
  const V* bx = B.values<V>();
  for_n(ctx, "snack::portable::full_rows", slots, KOKKOS_LAMBDA(Index s) { p[s] = a.p[s + 1] > a.p[s] ? ncols : 0; });
  place_rows(ctx, out, slots, sizeof(V));
  Index* j = as<Index>(out.j);
  V* z = as<V>(out.x);
  with_semiring_fns<Ctx>(add, mul, flip,
                    [&](auto add_fn, auto mul_fn) { full_rows_host<V>(ctx, a, bx, ncols, p, add_fn, mul_fn, j, z); });
  return out;
}

// Whether the masked dot product (one merge of a row of A' and a row of B'^T per entry of M) costs less than expanding
// every product of A' * B': the merges read about nvals(M) x (mean row of A' + mean row of B'^T) entries, the
// expansion forms flops(A' * B') products (estimated from mean lengths), each counted at eight merged entries. A' and
// B' are given by their entries and dimensions (a_rows: the rows of A'; b_inner: the rows of B').
inline bool dot_is_cheaper(Index m_nvals, Index a_nvals, Index a_rows, Index b_nvals, Index b_inner, Index b_cols) {
  const auto mean = [](Index n, Index d) { return d > 0 ? static_cast<double>(n) / static_cast<double>(d) : 0.0; };
  const double merges = static_cast<double>(m_nvals) * (mean(a_nvals, a_rows) + mean(b_nvals, b_cols));
  const double products = static_cast<double>(a_nvals) * mean(b_nvals, b_inner);
  return merges < 8.0 * products;
}

// Whether a monoid's result on V is the same in any order of combination (so combining by atomics gives spgemm's
// result exactly): the integer and boolean types with an associative, commutative operator. Floating-point sums
// round by order, and MIN / MAX of floats differ on signed zeros and NaN.
template <class V>
bool order_free(BinaryOpcode op) {
  if constexpr (std::is_floating_point_v<V>) {
    return false;
  } else {
    switch (op) {
      case BinaryOpcode::Min: case BinaryOpcode::Max: case BinaryOpcode::Plus: case BinaryOpcode::Times:
      case BinaryOpcode::LOr: case BinaryOpcode::LAnd: case BinaryOpcode::LXor: case BinaryOpcode::LXnor:
      case BinaryOpcode::BOr: case BinaryOpcode::BAnd: case BinaryOpcode::BXor: case BinaryOpcode::BXnor:
        return true;
      case BinaryOpcode::Eq: return std::is_same_v<V, bool>;
      default: return false;
    }
  }
}

// *z = add(*z, v), atomically: a compare-and-swap loop on the aligned word that holds *z (8 bytes for an 8-byte V,
// else the 4-byte word, whose other bytes are kept). Returns without writing when the value would not change (an
// idempotent monoid such as MIN or LOR mostly ends there).
template <class V, class Add>
KOKKOS_INLINE_FUNCTION void atomic_combine(V* z, V v, const Add& add) {
  using W = std::conditional_t<sizeof(V) == 8, std::uint64_t, std::uint32_t>;
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(z);
  W* word = reinterpret_cast<W*>(address & ~static_cast<std::uintptr_t>(sizeof(W) - 1));
  const unsigned shift = static_cast<unsigned>(address & (sizeof(W) - 1)) * 8;   // little-endian byte offset
  const W field = sizeof(V) == sizeof(W) ? ~W(0) : ((W(1) << (8 * sizeof(V))) - 1) << shift;
  W old = *reinterpret_cast<volatile W*>(word);
  for (;;) {
    const W bits = old >> shift;
    V current;
    std::memcpy(&current, &bits, sizeof(V));
    const V next = add(current, v);
    W next_bits = 0;
    std::memcpy(&next_bits, &next, sizeof(V));
    const W updated = (old & ~field) | ((next_bits << shift) & field);
    if (updated == old) return;
    const W seen = Kokkos::atomic_compare_exchange(word, old, updated);
    if (seen == old) return;
    old = seen;
  }
}

// T (1 x B.ncols) = x * B for a sparse vector x (1 x B.nrows), pushed from x's entries into a dense accumulator: one
// thread per product f(x(k), B(k, j)) combines it into position j atomically (atomic_combine). Only for a monoid that
// is order_free on V, so the result equals spgemm's. With `allow` (null: every column), products in columns without
// allow[j] are skipped (the mask hint). Costs O(ncols) besides the products: for a frontier whose products are many.
template <class V, class Ctx>
CsrParts<BytesOf<Ctx>> push_dense(Ctx& ctx, const CsrRef& x, const CsrRef& B, const std::uint8_t* allow,
                                  MonoidFn<V> add, BinaryOpcode mul, bool flip) {
  const Index ncols = B.ncols;
  BytesOf<Ctx> offsets;
  const ProductIndex at = index_products(ctx, x, B, offsets);
  // Whole 8-byte words: atomic_combine swaps the aligned word that holds a value, past the last value too.
  auto acc_buf = ctx.alloc((ncols * sizeof(V) + 7) / 8 * 8);
  auto has_buf = ctx.alloc(ncols);
  V* acc = as<V>(acc_buf);
  std::uint8_t* has = as<std::uint8_t>(has_buf);
  const V identity = add.identity;
  for_n_stream(ctx, "snack::portable::push_clear", ncols, KOKKOS_LAMBDA(Index j) {
    acc[j] = identity;
    has[j] = 0;
  });
  const CsrRef a = x, b = B;
  for_n(ctx, "snack::portable::push_products", at.count, KOKKOS_LAMBDA(Index q) {
    Index e, f;
    at.locate(q, e, f);
    const Index j = b.j[f];
    if (allow != nullptr && !allow[j]) return;
    const V av = a.values<V>()[e], bv = b.values<V>()[f];
    has[j] = 1;   // every writer stores the same byte
    atomic_combine(&acc[j], flip ? binary_eval<V, V>(mul, bv, av) : binary_eval<V, V>(mul, av, bv), add);
  });
  CsrRef columns;   // the accumulator's positions as slots: slot j is column j
  columns.nslots = ncols;
  return slots_as_vector(ctx, columns, has, acc, sizeof(V));
}

// dense_rows_spgemm's on-chip accumulator for one row of the result: ncols flags (bytes, 0 or 1), then ncols values
// of V; each thread of a team owns one row of the result and one accumulator.
constexpr int kDenseStage = 8;       // entries of A whose partner rows of B the count pass fetches together
constexpr int kDenseLanesMax = 32;

constexpr std::size_t round16(std::size_t n) { return (n + 15) / 16 * 16; }

template <class V>
struct DenseRowLayout {
  std::size_t values, bytes;   // the values' offset (the flags are at 0) and the row's size
  Index flag_words;            // the flags as 4-byte words, cleared and counted four at a time (the layout pads them)
  explicit constexpr DenseRowLayout(Index ncols)
      : values(round16(static_cast<std::size_t>(ncols))),
        bytes(values + round16(static_cast<std::size_t>(ncols) * sizeof(V))),
        flag_words((ncols + 3) / 4) {}

  // The slot a thread of a team of `rows` rows owns.
  template <class Member>
  KOKKOS_INLINE_FUNCTION static Index slot(const Member& team, int rows) {
    return static_cast<Index>(team.league_rank()) * rows + static_cast<Index>(team.team_rank());
  }
  // That thread's row in the team's scratch (team_bytes in all), its flags cleared by its lanes.
  template <class Member>
  KOKKOS_INLINE_FUNCTION unsigned char* cleared_row(const Member& team, std::size_t team_bytes) const {
    unsigned char* row = static_cast<unsigned char*>(team.team_shmem().get_shmem(team_bytes)) +
                         static_cast<std::size_t>(team.team_rank()) * bytes;
    std::uint32_t* words = reinterpret_cast<std::uint32_t*>(row);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, flag_words), [&](const Index w) { words[w] = 0; });
    return row;
  }
};

// Whether one row of an A * B with B of ncols columns fits dense_rows_spgemm's on-chip accumulator (Kokkos' level-0
// team scratch of the context's space).
template <class V, class Ctx>
bool dense_rows_fit(Index ncols) {
  using Policy = Kokkos::TeamPolicy<ExecOf<Ctx>, Kokkos::IndexType<std::int64_t>>;
  return ncols > 0 && DenseRowLayout<V>(ncols).bytes <= static_cast<std::size_t>(Policy::scratch_size_max(0));
}

// T = A * B as spgemm computes it, by Gustavson's rows with a dense accumulator: each row of the result is built in
// team scratch as ncols values and ncols flags (so B's column count is bounded: dense_rows_fit), then written out in
// column order. One vector of lanes (a warp, or fewer lanes where B's rows are short) per row of A walks the row's
// entries in order, and for each one its lanes add the products with row k of B into the accumulator (the columns
// within one row of B are distinct, so lanes never collide; the lanes synchronise between entries). Each output
// entry is therefore reduced in the order of A's entries, as in spgemm's expansion order: the two give identical
// results. A first pass counts each row's entries with the flags alone, where order does not matter, so each lane
// walks the whole row and fetches kDenseStage partner rows at a time; a scan of the counts places the rows. The
// result has A's slots (rows of A whose products are all absent become empty slots).
template <class V, class Ctx>
CsrParts<BytesOf<Ctx>> dense_rows_spgemm(Ctx& ctx, const CsrRef& A, const CsrRef& B, MonoidFn<V> add, BinaryOpcode mul,
                                         bool flip) {
  using Exec = ExecOf<Ctx>;
  using Policy = Kokkos::TeamPolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  using Member = typename Policy::member_type;
  constexpr bool host = host_space<Ctx>();
  const Index ncols = B.ncols, slots = A.nslots;
  const DenseRowLayout<V> at(ncols);
  // Lanes: a power of two covering B's mean row, at most a warp. Rows per team: as many accumulators as the scratch
  // holds, at most 8 (one on the host, where a team is one thread).
  const double mean_b = B.nslots > 0 ? static_cast<double>(B.nvals) / static_cast<double>(B.nslots) : 0.0;
  int lanes = 1;
  while (lanes < kDenseLanesMax && lanes < mean_b) lanes *= 2;
  lanes = std::min<int>(lanes, Policy::vector_length_max());
  const int rows = host ? 1
                        : static_cast<int>(std::clamp<std::size_t>(
                              static_cast<std::size_t>(Policy::scratch_size_max(0)) / at.bytes, 1, 8));
  const std::int64_t league = static_cast<std::int64_t>((slots + rows - 1) / rows);
  const std::size_t team_bytes = rows * at.bytes;

  CsrParts<BytesOf<Ctx>> out = with_slots_of(ctx, A);
  Index* p = as<Index>(out.p);
  const CsrRef a = A, b = B;
  const Index width = static_cast<Index>(lanes);
  if (league > 0) {
    Kokkos::parallel_for(
        "snack::portable::dense_rows_count",
        Policy(ctx.exec(), league, rows, lanes).set_scratch_size(0, Kokkos::PerTeam(team_bytes)),
        KOKKOS_LAMBDA(const Member& team) {
          const Index s = DenseRowLayout<V>::slot(team, rows);
          if (s >= slots) return;
          const Index first = a.p[s], last = a.p[s + 1];
          if (first == last) {
            Kokkos::single(Kokkos::PerThread(team), [&]() { p[s] = 0; });
            return;
          }
          unsigned char* flag = at.cleared_row(team, team_bytes);
          // Marks need no order: each lane walks the whole row, a stage's fetches issued before its marks.
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, width), [&](const Index lane) {
            for (Index g = first; g < last; g += kDenseStage) {
              Index col[kDenseStage];
              bool long_rows = false;
              for (int u = 0; u < kDenseStage; ++u) {
                col[u] = ncols;
                if (g + u >= last) continue;
                Index lo, hi;
                b.row_range(a.j[g + u], lo, hi);
                if (lo + lane < hi) col[u] = b.j[lo + lane];
                long_rows = long_rows || hi - lo > width;
              }
              for (int u = 0; u < kDenseStage; ++u)
                if (col[u] < ncols) flag[col[u]] = 1;
              if (!long_rows) continue;
              for (int u = 0; u < kDenseStage && g + u < last; ++u) {
                Index lo, hi;
                b.row_range(a.j[g + u], lo, hi);
                for (Index f = lo + lane + width; f < hi; f += width) flag[b.j[f]] = 1;
              }
            }
          });
          Index count = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, at.flag_words), [&](const Index w, Index& n) {
                const std::uint32_t four = reinterpret_cast<const std::uint32_t*>(flag)[w];
                n += ((four & 0x01010101u) * 0x01010101u) >> 24;
              },
              count);
          Kokkos::single(Kokkos::PerThread(team), [&]() { p[s] = count; });
        });
  }
  const Index n = place_rows(ctx, out, slots, sizeof(V));
  Index* j = as<Index>(out.j);
  V* z = as<V>(out.x);
  if (n > 0) {
    Kokkos::parallel_for(
        "snack::portable::dense_rows_values",
        Policy(ctx.exec(), league, rows, lanes).set_scratch_size(0, Kokkos::PerTeam(team_bytes)),
        KOKKOS_LAMBDA(const Member& team) {
          const Index s = DenseRowLayout<V>::slot(team, rows);
          if (s >= slots || p[s] == p[s + 1]) return;
          unsigned char* flag = at.cleared_row(team, team_bytes);
          V* acc = reinterpret_cast<V*>(flag + at.values);
          for (Index e = a.p[s]; e < a.p[s + 1]; ++e) {
            Index lo, hi;
            b.row_range(a.j[e], lo, hi);
            const V av = a.values<V>()[e];
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lo, hi), [&](const Index f) {
              const Index c = b.j[f];
              const V bv = b.values<V>()[f];
              const V t = flip ? binary_eval<V, V>(mul, bv, av) : binary_eval<V, V>(mul, av, bv);
              acc[c] = flag[c] ? add(acc[c], t) : t;
              flag[c] = 1;
            });
          }
          const Index out0 = p[s];
          Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, ncols), [&](const Index c, Index& pos, const bool final) {
            if (final && flag[c]) {
              j[out0 + pos] = c;
              z[out0 + pos] = acc[c];
            }
            pos += flag[c];
          });
        });
  }
  return out;
}

// ---- a product over A's non-empty rows made dense (the cuda backend runs it through the SpMM family) ----------------
// Where A's non-empty rows hold a good share of their positions, A * B' runs as a dense k x ncols block X (those k
// rows, zeros where A has no entry) times the sparse B'. Under PLUS_TIMES with finite values of B' this gives A * B''s
// values: an absent A(i,k) adds 0 * B'(k,j) = 0. Its pattern is A * B''s where every such row is full; otherwise the
// same product of A's and B''s patterns as ones counts each position's terms, and the positions with none hold no
// entry.

// rank[s] = the number of non-empty slots of A before slot s (A.nslots + 1 values); returns their count k.
template <class Ctx>
Index nonempty_rank(Ctx& ctx, const CsrRef& A, Index* rank) {
  const CsrRef a = A;
  return exclusive_scan(ctx, KOKKOS_LAMBDA(Index s) { return Index(a.p[s + 1] > a.p[s]); }, rank, a.nslots);
}

// A's k non-empty rows laid out densely: row rank[s] of x (k x A.ncols, row-major) holds slot s's values and zeros
// elsewhere; of ones (where not null) 1 at A's entries and 0 elsewhere; rows[rank[s]] is slot s's row of A.
template <class V, class Ctx>
void dense_nonempty_rows(Ctx& ctx, const CsrRef& A, const Index* rank, Index k, V* x, V* ones, Index* rows) {
  const CsrRef a = A;
  const Index ncols = a.ncols;
  for_n_stream(ctx, "snack::portable::dense_rows_clear", k * ncols, KOKKOS_LAMBDA(Index q) {
    x[q] = V(0);
    if (ones != nullptr) ones[q] = V(0);
  });
  for_n(ctx, "snack::portable::dense_rows_slots", a.nslots, KOKKOS_LAMBDA(Index s) {
    if (a.p[s + 1] > a.p[s]) rows[rank[s]] = a.row_of(s);
  });
  for_entries_by_slot(ctx, "snack::portable::dense_rows_scatter", a, KOKKOS_LAMBDA(Index s, Index e) {
    const Index q = rank[s] * ncols + a.j[e];
    x[q] = a.values<V>()[e];
    if (ones != nullptr) ones[q] = V(1);
  });
}

// The product computed densely over A's non-empty rows (z: k x ncols values; count: the terms at each position, or
// null where every position has some) as a hypersparse result whose slot r is row rows[r]: the positions with terms,
// in column order. Every pass runs over the k x ncols positions (a scan of their flags places the entries), so a few
// long rows use the whole device, not a thread each.
template <class V, class Ctx>
CsrParts<BytesOf<Ctx>> compact_dense_product(Ctx& ctx, const Index* rows, Index k, Index ncols, const V* z,
                                             const V* count) {
  CsrParts<BytesOf<Ctx>> out;
  out.hyper = true;
  out.nslots = k;
  out.h = ctx.alloc(k * sizeof(Index));
  out.p = ctx.alloc((k + 1) * sizeof(Index));
  Index* h = as<Index>(out.h);
  Index* p = as<Index>(out.p);
  const Index n = k * ncols;
  if (count == nullptr) {
    for_n(ctx, "snack::portable::dense_product_rows", k + 1, KOKKOS_LAMBDA(Index r) {
      if (r < k) h[r] = rows[r];
      p[r] = r * ncols;
    });
    out.nvals = n;
    out.j = ctx.alloc(n * sizeof(Index));
    out.x = alloc_values(ctx, n * sizeof(V));
    Index* j = as<Index>(out.j);
    V* x = as<V>(out.x);
    for_n_stream(ctx, "snack::portable::dense_product_entries", n, KOKKOS_LAMBDA(Index q) {
      j[q] = q % ncols;
      x[q] = z[q];
    });
  } else {
    auto pos_buf = ctx.alloc((n + 1) * sizeof(Index));
    Index* pos = as<Index>(pos_buf);
    out.nvals = exclusive_scan(ctx, KOKKOS_LAMBDA(Index q) { return Index(count[q] > V(0)); }, pos, n);
    for_n(ctx, "snack::portable::dense_product_rows", k + 1, KOKKOS_LAMBDA(Index r) {
      if (r < k) h[r] = rows[r];
      p[r] = pos[r * ncols];
    });
    out.j = ctx.alloc(out.nvals * sizeof(Index));
    out.x = alloc_values(ctx, out.nvals * sizeof(V));
    Index* j = as<Index>(out.j);
    V* x = as<V>(out.x);
    for_n_stream(ctx, "snack::portable::dense_product_entries", n, KOKKOS_LAMBDA(Index q) {
      if (count[q] > V(0)) {
        j[pos[q]] = q % ncols;
        x[pos[q]] = z[q];
      }
    });
  }
  return out;
}

// Whether the n values at v are all finite (read back to the host).
template <class V, class Ctx>
bool all_finite(Ctx& ctx, const V* v, Index n) {
  auto bytes = ctx.alloc(sizeof(Index));
  Index* bad = as<Index>(bytes);
  for_n(ctx, "snack::portable::finite_clear", 1, KOKKOS_LAMBDA(Index) { bad[0] = 0; });
  for_n(ctx, "snack::portable::finite_check", n, KOKKOS_LAMBDA(Index e) {
    const V x = v[e];
    if (!(x - x == V(0))) Kokkos::atomic_exchange(&bad[0], Index(1));   // inf - inf and NaN - NaN are NaN
  });
  return read_back(ctx, bad) == 0;
}

// T<M> = A * B^T at M's entries only (B given by its rows: T(i,j) = add over k in both A(i,:) and B(j,:) of
// f(A(i,k), B(j,k))); an entry of M with no common k gives no entry. The result has M's slots. Two rows are
// intersected by a merge, or, where one is more than kSearchRatio times longer than the other (a hub of a power-law
// graph against a short row), by searching the shorter's entries in the longer: O(short x log long), not O(long).
// On a device a thread per entry of M; on the host a thread per run of M's rows, each row of A found once.
constexpr Index kSearchRatio = 32;

// The dot product of A's entries [pa, ea) and B's [pb, eb) (each in increasing column): false where no column is
// common, else true with the sum in *z. mul(a, b) takes a from A.
template <class V, class Add, class Mul>
KOKKOS_INLINE_FUNCTION bool sparse_dot(const CsrRef& a, Index pa, Index ea, const CsrRef& b, Index pb, Index eb,
                                       const Add& add, const Mul& mul, V* z) {
  bool any = false;
  V acc{};
  const auto term = [&](Index fa, Index fb) {
    const V t = mul(a.values<V>()[fa], b.values<V>()[fb]);
    acc = any ? add(acc, t) : t;
    any = true;
  };
  const Index la = ea - pa, lb = eb - pb;
  if (la > kSearchRatio * lb || lb > kSearchRatio * la) {
    // Rows of very different lengths (a hub's row against a short one): each entry of the shorter is searched in the
    // rest of the longer, so the common k come in increasing order, as from the merge.
    const bool a_short = la < lb;
    Index ps = a_short ? pa : pb, pl = a_short ? pb : pa;
    const Index es = a_short ? ea : eb, el = a_short ? eb : ea;
    const Index* js = a_short ? a.j : b.j;
    const Index* jl = a_short ? b.j : a.j;
    for (; ps < es && pl < el; ++ps) {
      pl = lower_bound_col(jl, pl, el, js[ps]);
      if (pl < el && jl[pl] == js[ps]) {
        if (a_short) term(ps, pl);
        else term(pl, ps);
        ++pl;
      }
    }
  } else {
    while (pa < ea && pb < eb) {
      const Index ka = a.j[pa], kb = b.j[pb];
      if (ka < kb) { ++pa; continue; }
      if (kb < ka) { ++pb; continue; }
      term(pa, pb);
      ++pa;
      ++pb;
    }
  }
  *z = acc;
  return any;
}

// masked_dot's host shape: a thread per run of M's rows, each row of A found once. The runs split the rows by their
// entries plus their row of A (a hub's row of A is merged once per entry of its mask row).
template <class V, class Ctx, class Add, class Mul>
void masked_dot_rows(Ctx& ctx, const CsrRef& m, const CsrRef& a, const CsrRef& b, Add add, Mul mul,
                     std::uint8_t* keep, V* z) {
  auto work_buf = ctx.alloc((m.nslots + 1) * sizeof(Index));
  Index* work = as<Index>(work_buf);
  exclusive_scan(ctx, KOKKOS_LAMBDA(Index s) {
    const Index entries = m.p[s + 1] - m.p[s];
    return 1 + entries + (entries > 0 ? a.row_length(m.row_of(s)) : 0);
  }, work, m.nslots);
  for_slot_runs(ctx, "snack::portable::masked_dot_rows", m.nslots, ArrayCounts{work}, KOKKOS_LAMBDA(Index k0, Index k1) {
    for (Index s = k0; s < k1; ++s) {
      Index pa, ea;
      a.row_range(m.row_of(s), pa, ea);
      for (Index e = m.p[s]; e < m.p[s + 1]; ++e) {
        Index pb, eb;
        b.row_range(m.j[e], pb, eb);
        keep[e] = sparse_dot<V>(a, pa, ea, b, pb, eb, add, mul, z + e);
      }
    }
  });
}

template <class V, class Ctx>
CsrParts<BytesOf<Ctx>> masked_dot(Ctx& ctx, const CsrRef& M, const CsrRef& A, const CsrRef& B, MonoidFn<V> add,
                                  BinaryOpcode mul, bool flip) {
  auto keep_buf = ctx.alloc(M.nvals);
  auto z_buf = ctx.alloc(M.nvals * sizeof(V));
  std::uint8_t* keep = as<std::uint8_t>(keep_buf);
  V* zall = as<V>(z_buf);
  const CsrRef m = M, a = A, b = B;
  if constexpr (host_space<Ctx>()) {
    with_semiring_fns<Ctx>(add, mul, flip,
                      [&](auto add_fn, auto mul_fn) { masked_dot_rows<V>(ctx, m, a, b, add_fn, mul_fn, keep, zall); });
  } else {
    const MulFn<V> mul_fn{mul, flip};
    for_n(ctx, "snack::portable::masked_dot", M.nvals, KOKKOS_LAMBDA(Index e) {
      Index pa, ea, pb, eb;
      a.row_range(m.row_of(slot_of(m, e)), pa, ea);
      b.row_range(m.j[e], pb, eb);
      keep[e] = sparse_dot<V>(a, pa, ea, b, pb, eb, add, mul_fn, zall + e);
    });
  }
  return compact(ctx, M, keep, zall, sizeof(V));
}

// masked_dot for full operands under a PLUS monoid (SDDMM: a layer's weight gradient dY^T X at its weights' positions):
// A is nrows x K and B (B^T's rows) ncols x K, both with every entry, so each of M's entries is the dot product of two
// dense rows. A team per row of M, each thread computing whole entries (four at once, for loads in flight): it reads
// their B rows whole, in 16-byte pieces where K allows, and the A row, which every thread of the team reads at the same
// address (one broadcast load, kept in cache for the whole mask row). Consecutive threads take consecutive entries, so
// the column indices and the values written are coalesced. Every entry of M gets a value (K > 0: the caller's precondition), so the result is M's
// pattern with the values returned here, in M's entry order.
template <class V, class Ctx>
BytesOf<Ctx> masked_dot_full(Ctx& ctx, const CsrRef& M, const CsrRef& A, const CsrRef& B, Index K, BinaryOpcode mul,
                             bool flip) {
  auto out = ctx.alloc(M.nvals * sizeof(V));
  if (M.nslots == 0 || M.nvals == 0) return out;
  using Exec = ExecOf<Ctx>;
  using Policy = Kokkos::TeamPolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  using Member = typename Policy::member_type;
  constexpr bool host = host_space<Ctx>();
  constexpr int kEntries = 4;   // entries per thread at once
  // Threads per team on a device: the mean row over kEntries, rounded up to whole warps, 32 to 256.
  const double mean = static_cast<double>(M.nvals) / static_cast<double>(M.nslots);
  int team = 32;
  while (team < 256 && team * kEntries < mean) team += 32;
  V* z = as<V>(out);
  const CsrRef m = M;
  const V *a = A.values<V>(), *b = B.values<V>();
  const std::int64_t k_len = static_cast<std::int64_t>(K);
  // 16-byte pieces: every row starts 16-byte aligned when K * sizeof(V) is a multiple of 16 (buffers are aligned).
  constexpr int kPiece = sizeof(V) <= 16 && 16 % sizeof(V) == 0 ? static_cast<int>(16 / sizeof(V)) : 1;
  using Piece = Piece16<V, kPiece>;
  const bool pieces = kPiece > 1 && k_len % kPiece == 0 && reinterpret_cast<std::uintptr_t>(a) % 16 == 0 &&
                      reinterpret_cast<std::uintptr_t>(b) % 16 == 0;
  const bool times = mul == BinaryOpcode::Times;
  const auto policy = host ? Policy(ctx.exec(), static_cast<std::int64_t>(M.nslots), Kokkos::AUTO)
                           : Policy(ctx.exec(), static_cast<std::int64_t>(M.nslots), team);
  Kokkos::parallel_for("snack::portable::masked_dot_full", policy, KOKKOS_LAMBDA(const Member& t) {
    const std::int64_t s = t.league_rank();
    const V* arow = a + static_cast<std::int64_t>(m.row_of(static_cast<Index>(s))) * k_len;
    const std::int64_t e0 = static_cast<std::int64_t>(m.p[s]), e1 = static_cast<std::int64_t>(m.p[s + 1]);
    // Each thread takes kEntries entries a row's length / kEntries apart, so that their loads are in flight together
    // and consecutive threads still read consecutive entries.
    const std::int64_t groups = (e1 - e0 + kEntries - 1) / kEntries;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, groups), [&](const std::int64_t g) {
      const V* brow[kEntries];
      V acc[kEntries];
      for (int u = 0; u < kEntries; ++u) {
        const std::int64_t e = e0 + g + u * groups;
        brow[u] = b + static_cast<std::int64_t>(m.j[e < e1 ? e : e0]) * k_len;
        acc[u] = V();
      }
      const auto term = [&](V& sum, V x, V y) {
        sum += times ? x * y : flip ? binary_eval<V, V>(mul, y, x) : binary_eval<V, V>(mul, x, y);
      };
      if (pieces) {
        const Piece* ap = reinterpret_cast<const Piece*>(arow);
        for (std::int64_t q = 0; q < k_len / kPiece; ++q) {
          const Piece x = ap[q];
          Piece y[kEntries];
          for (int u = 0; u < kEntries; ++u) y[u] = reinterpret_cast<const Piece*>(brow[u])[q];
          for (int u = 0; u < kEntries; ++u)
            for (int l = 0; l < kPiece; ++l) term(acc[u], x.v[l], y[u].v[l]);
        }
      } else {
        for (std::int64_t k = 0; k < k_len; ++k)
          for (int u = 0; u < kEntries; ++u) term(acc[u], arow[k], brow[u][k]);
      }
      for (int u = 0; u < kEntries; ++u) {
        const std::int64_t e = e0 + g + u * groups;
        if (e < e1) z[e] = acc[u];
      }
    });
  });
  return out;
}

// masked_dot_full computed a tile of M at a time (kDotTileRows slots x kDotTileCols columns, a team per tile), on dense
// operands read through strides (DenseOperand), so that either may be given transposed and none is copied: the team
// stages the tile's rows of A' and of B'^T kDotChunk values of K at a time in scratch (in the order that reads memory
// along the stride-1 side), and each thread sums its entries of the tile from there, so a value of A or B is read from
// memory once per tile rather than once per entry. Each entry still sums K in order, from zero, as masked_dot_full
// does: the two give the same results. A thread holds kDotPerThread entries at once; a tile with more entries than the
// team holds that way is taken in passes.
constexpr int kDotTileRows = 32, kDotTileCols = 128, kDotChunk = 32, kDotPerThread = 16;

// Whether tiling pays: a chunk of a tile stages kDotTileRows + kDotTileCols rows of values where the per-entry kernel
// reads one row of B per entry, so the tiles must hold more entries than that on average (a density of M above about
// 4%), and K must fill at least one chunk. `slots` are M's non-empty-able rows (its slots), `ncols` its columns.
inline bool masked_dot_tiles_pay(Index nvals, Index slots, Index ncols, Index K) {
  const double cells = static_cast<double>(slots) * static_cast<double>(ncols);
  return K >= kDotChunk && cells > 0 &&
         static_cast<double>(nvals) / cells * kDotTileRows * kDotTileCols >= kDotTileRows + kDotTileCols;
}

// A dense operand of masked_dot_full_tiled as its rows: row r's value k at v[r * row + k * k_step] (a row-major
// matrix: row = its columns, k_step = 1; its transpose: row = 1, k_step = its columns).
template <class V>
struct DenseOperand {
  const V* v = nullptr;
  std::int64_t row = 0, k_step = 1;
};

// The team scratch masked_dot_full_tiled needs: the two staged chunks (rows padded to kDotChunk + 1 values against
// bank conflicts), then each tile row's first entry in the tile and the tile's entry offsets.
template <class V>
constexpr std::size_t masked_dot_tile_bytes() {
  return round16(static_cast<std::size_t>(kDotTileRows + kDotTileCols) * (kDotChunk + 1) * sizeof(V)) +
         static_cast<std::size_t>(2 * kDotTileRows + 1) * sizeof(Index);
}

// Whether masked_dot_full_tiled's scratch fits the context's space (Kokkos' level-0 team scratch).
template <class V, class Ctx>
bool masked_dot_tiles_fit() {
  using Policy = Kokkos::TeamPolicy<ExecOf<Ctx>, Kokkos::IndexType<std::int64_t>>;
  return masked_dot_tile_bytes<V>() <= static_cast<std::size_t>(Policy::scratch_size_max(0));
}

template <class V, class Ctx>
BytesOf<Ctx> masked_dot_full_tiled(Ctx& ctx, const CsrRef& M, DenseOperand<V> A, DenseOperand<V> Bt, Index K,
                                   BinaryOpcode mul, bool flip) {
  auto out = ctx.alloc(M.nvals * sizeof(V));
  if (M.nslots == 0 || M.nvals == 0) return out;
  using Exec = ExecOf<Ctx>;
  using Policy = Kokkos::TeamPolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  using Member = typename Policy::member_type;
  constexpr bool host = host_space<Ctx>();
  constexpr int R = kDotTileRows, C = kDotTileCols, KC = kDotChunk, S = kDotChunk + 1, U = kDotPerThread;
  constexpr std::size_t bytes = masked_dot_tile_bytes<V>();
  constexpr std::size_t chunk_bytes = round16(static_cast<std::size_t>(R + C) * S * sizeof(V));
  const std::int64_t row_tiles = (M.nslots + R - 1) / R, col_tiles = (M.ncols + C - 1) / C;
  V* z = as<V>(out);
  const CsrRef m = M;
  const DenseOperand<V> a = A, b = Bt;
  const bool a_along_k = a.k_step == 1, b_along_k = b.k_step == 1;   // which side of a staged chunk is contiguous
  const std::int64_t k_len = static_cast<std::int64_t>(K), slots = static_cast<std::int64_t>(M.nslots),
                     ncols = static_cast<std::int64_t>(M.ncols);
  const bool times = mul == BinaryOpcode::Times;
  // A team of 256 threads on a device holds a whole tile's entries (R x C) in one pass; on the host a team is one
  // thread.
  Policy policy = host ? Policy(ctx.exec(), row_tiles * col_tiles, 1) : Policy(ctx.exec(), row_tiles * col_tiles, 256);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for("snack::portable::masked_dot_full_tiled", policy, KOKKOS_LAMBDA(const Member& t) {
    const std::int64_t rt = t.league_rank() / col_tiles, ct = t.league_rank() - rt * col_tiles;
    const std::int64_t s0 = rt * R, c0 = ct * C;
    const int rows = static_cast<int>(slots - s0 < R ? slots - s0 : R);
    const int cols = static_cast<int>(ncols - c0 < C ? ncols - c0 : C);
    unsigned char* base = static_cast<unsigned char*>(t.team_shmem().get_shmem(bytes));
    V* as_ = reinterpret_cast<V*>(base);   // [R][S]: A's tile rows, one chunk of K
    V* bs = as_ + R * S;                   // [C][S]: B's tile rows (columns of M), the same chunk
    Index* first = reinterpret_cast<Index*>(base + chunk_bytes);   // [R]: each row's first entry in the tile
    Index* off = first + R;                                          // [R + 1]: the tile's entries, row by row
    // Each row's entries in columns [c0, c0 + cols) (a row's columns ascend).
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, rows), [&](const int r) {
      const Index lo = m.p[s0 + r], hi = m.p[s0 + r + 1];
      first[r] = lower_bound_col(m.j, lo, hi, static_cast<Index>(c0));
      off[r + 1] = lower_bound_col(m.j, first[r], hi, static_cast<Index>(c0 + cols)) - first[r];
    });
    t.team_barrier();
    Kokkos::single(Kokkos::PerTeam(t), [&]() {
      off[0] = 0;
      for (int r = 0; r < rows; ++r) off[r + 1] += off[r];
    });
    t.team_barrier();
    const Index total = off[rows];
    const Index team = static_cast<Index>(t.team_size()), me = static_cast<Index>(t.team_rank());
    for (Index pass = 0; pass < total; pass += team * U) {
      // This thread's entries: pass + me + u * team (consecutive threads, consecutive entries).
      Index e[U];
      int er[U], ec[U];
      bool held[U];
      V acc[U];
      for (int u = 0; u < U; ++u) {
        const Index idx = pass + me + u * team;
        held[u] = idx < total;
        e[u] = 0;
        er[u] = ec[u] = 0;
        acc[u] = V();
        if (!held[u]) continue;
        int lo = 0, hi = rows;   // the row r with off[r] <= idx < off[r + 1]
        while (hi - lo > 1) {
          const int mid = (lo + hi) / 2;
          if (off[mid] <= idx) lo = mid; else hi = mid;
        }
        e[u] = first[lo] + idx - off[lo];
        er[u] = lo;
        ec[u] = static_cast<int>(m.j[e[u]] - c0);
      }
      for (std::int64_t k0 = 0; k0 < k_len; k0 += KC) {
        const int kc = static_cast<int>(k_len - k0 < KC ? k_len - k0 : KC);
        t.team_barrier();   // the previous chunk is read
        // Consecutive threads read consecutive addresses: along k where the operand's k step is 1, else along rows.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, rows * KC), [&](const int i) {
          const int r = a_along_k ? i / KC : i % rows, kk = a_along_k ? i % KC : i / rows;
          const std::int64_t row = static_cast<std::int64_t>(m.row_of(static_cast<Index>(s0 + r)));
          if (kk < kc) as_[r * S + kk] = a.v[row * a.row + (k0 + kk) * a.k_step];
        });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, cols * KC), [&](const int i) {
          const int c = b_along_k ? i / KC : i % cols, kk = b_along_k ? i % KC : i / cols;
          if (kk < kc) bs[c * S + kk] = b.v[(c0 + c) * b.row + (k0 + kk) * b.k_step];
        });
        t.team_barrier();
        for (int u = 0; u < U; ++u) {
          if (!held[u]) continue;
          const V* x = as_ + er[u] * S;
          const V* y = bs + ec[u] * S;
          for (int kk = 0; kk < kc; ++kk)
            acc[u] += times ? x[kk] * y[kk]
                            : flip ? binary_eval<V, V>(mul, y[kk], x[kk]) : binary_eval<V, V>(mul, x[kk], y[kk]);
        }
      }
      for (int u = 0; u < U; ++u)
        if (held[u]) z[e[u]] = acc[u];
    }
  });
  return out;
}

// The vector x (1 x n) as dense arrays: xv[k] = x(k), and xf[k] = 1 where x has an entry, 0 elsewhere.
template <class V, class Ctx>
void densify_vector(Ctx& ctx, const CsrRef& x, Index n, V* xv, std::uint8_t* xf) {
  for_n(ctx, "snack::portable::densify_clear", n, KOKKOS_LAMBDA(Index k) { xf[k] = 0; });
  const CsrRef v = x;
  for_n(ctx, "snack::portable::densify", x.nvals, KOKKOS_LAMBDA(Index e) {
    xv[v.j[e]] = v.values<V>()[e];
    xf[v.j[e]] = 1;
  });
}

// The positions a mask vector m (1 x n) allows: allow[k] = (m has an entry at k whose mask_true flag is set), or its
// negation when `complement`.
template <class Ctx>
void allowed_positions(Ctx& ctx, const CsrRef& m, const std::uint8_t* mask_true, bool complement, Index n,
                       std::uint8_t* allow) {
  const std::uint8_t outside = complement ? 1 : 0;
  for_n(ctx, "snack::portable::allow_clear", n, KOKKOS_LAMBDA(Index k) { allow[k] = outside; });
  const CsrRef v = m;
  for_n(ctx, "snack::portable::allow", m.nvals, KOKKOS_LAMBDA(Index e) {
    if (mask_true[e]) allow[v.j[e]] = 1 - outside;
  });
}

// spmv_rows' host shape: a thread per run of R's rows, each row's terms added in order (has[s]: row s has a term;
// val[s]: their sum).
template <class V, class Ctx, class Add, class Mul>
void spmv_rows_host(Ctx& ctx, const CsrRef& r, const V* xv, const std::uint8_t* xf, const std::uint8_t* allow, Add add,
                    Mul mul, std::uint8_t* has, V* val) {
  for_slot_runs(ctx, "snack::portable::spmv_rows", r.nslots, SlotEntries{r.p}, KOKKOS_LAMBDA(Index k0, Index k1) {
    const V* rv = r.values<V>();
    for (Index s = k0; s < k1; ++s) {
      Index e = r.p[s];
      const Index end = allow == nullptr || allow[r.row_of(s)] ? r.p[s + 1] : e;
      if (xf != nullptr)
        while (e < end && !xf[r.j[e]]) ++e;
      has[s] = e < end;
      if (e == end) continue;
      // The first term starts the sum (no flag to test in the loop that adds the others).
      V acc = mul(xv[r.j[e]], rv[e]);
      if (xf == nullptr) {
        for (++e; e < end; ++e) acc = add(acc, mul(xv[r.j[e]], rv[e]));
      } else {
        for (++e; e < end; ++e)
          if (xf[r.j[e]]) acc = add(acc, mul(xv[r.j[e]], rv[e]));
      }
      val[s] = acc;
    }
  });
}

// T (1 x R.nrows): T(r) = add over the entries (r, k) of R where x(k) is present of f(x(k), R(r, k)), with f(a, b)
// = flip ? mul(b, a) : mul(a, b); an entry only where a term exists. x is dense (densify_vector; xf null where x has
// every entry); with `allow` (null: every row) rows r without allow[r] are skipped. Each row's terms are added in
// order: the same result on either shape.
template <class V, class Ctx>
CsrParts<BytesOf<Ctx>> spmv_rows(Ctx& ctx, const CsrRef& R, const V* xv, const std::uint8_t* xf,
                                 const std::uint8_t* allow, MonoidFn<V> add, BinaryOpcode mul, bool flip) {
  if constexpr (host_space<Ctx>()) {
    auto has_buf = ctx.alloc(R.nslots);
    auto val_buf = ctx.alloc(R.nslots * sizeof(V));
    std::uint8_t* has = as<std::uint8_t>(has_buf);
    V* val = as<V>(val_buf);
    with_semiring_fns<Ctx>(add, mul, flip,
                      [&](auto add_fn, auto mul_fn) { spmv_rows_host<V>(ctx, R, xv, xf, allow, add_fn, mul_fn, has, val); });
    return slots_as_vector(ctx, R, has, val, sizeof(V));
  }
  // On a device each row is cut into pieces of at most kPiece entries, one thread each (a hub's row is not one thread's
  // serial walk); a second pass combines each row's pieces in order, so the result is deterministic.
  constexpr Index kPiece = 128;
  const Index slots = R.nslots;
  auto first_buf = ctx.alloc((slots + 1) * sizeof(Index));
  Index* first = as<Index>(first_buf);
  const CsrRef r = R;
  for_n(ctx, "snack::portable::spmv_pieces", slots, KOKKOS_LAMBDA(Index s) {
    const Index len = r.p[s + 1] - r.p[s];
    first[s] = len == 0 ? 1 : (len + kPiece - 1) / kPiece;
  });
  const Index pieces = exclusive_scan_in_place(ctx, first, slots);
  auto part_any_buf = ctx.alloc(pieces);
  auto part_val_buf = ctx.alloc(pieces * sizeof(V));
  std::uint8_t* part_any = as<std::uint8_t>(part_any_buf);
  V* part_val = as<V>(part_val_buf);
  CsrRef by_piece;   // first[] as row pointers of the pieces, to find each piece's row
  by_piece.p = first;
  by_piece.nslots = slots;
  const CsrRef bp = by_piece;
  for_n(ctx, "snack::portable::spmv_rows", pieces, KOKKOS_LAMBDA(Index q) {
    const Index s = slot_of(bp, q);
    bool any = false;
    V acc = add.identity;
    if (allow == nullptr || allow[r.row_of(s)]) {
      const Index begin = r.p[s] + (q - first[s]) * kPiece;
      const Index end = begin + kPiece < r.p[s + 1] ? begin + kPiece : r.p[s + 1];
      for (Index e = begin; e < end; ++e) {
        const Index k = r.j[e];
        if (xf != nullptr && !xf[k]) continue;
        const V rv = r.values<V>()[e];
        const V t = flip ? binary_eval<V, V>(mul, rv, xv[k]) : binary_eval<V, V>(mul, xv[k], rv);
        acc = any ? add(acc, t) : t;
        any = true;
      }
    }
    part_any[q] = any;
    part_val[q] = acc;
  });
  auto has_buf = ctx.alloc(slots);
  auto val_buf = ctx.alloc(slots * sizeof(V));
  std::uint8_t* has = as<std::uint8_t>(has_buf);
  V* val = as<V>(val_buf);
  for_n(ctx, "snack::portable::spmv_combine", slots, KOKKOS_LAMBDA(Index s) {
    bool any = false;
    V acc = add.identity;
    for (Index q = first[s]; q < first[s + 1]; ++q) {
      if (!part_any[q]) continue;
      acc = any ? add(acc, part_val[q]) : part_val[q];
      any = true;
    }
    has[s] = any;
    val[s] = acc;
  });
  return slots_as_vector(ctx, R, has, val, sizeof(V));
}

}  // namespace snk::kokkos::portable
