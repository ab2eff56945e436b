// backends/kokkos/mxm_methods.hpp: the definitions of the mxm methods declared in mxm_kernels.hpp,
// included only by the mxm_instances_*.cpp files that instantiate them (see mxm_kernels.hpp for what
// each method computes and when mxm.cpp uses it).
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "mxm_kernels.hpp"

namespace snk::kokkos {


// Orders (column, value) pairs by column (one comparator per value type, shared by all semirings).
template <class T>
struct ByColumn {
  bool operator()(const std::pair<Index, T>& x, const std::pair<Index, T>& y) const { return x.first < y.first; }
};

// Adds the products of row s of A*B into a dense accumulator (mark[j] == s: column j has a value in
// acc[j]) and calls first_touch(j) for each column the row reaches for the first time. kBranchFree: no
// first-touch calls and a select instead of a branch (for rows that reach most columns: the caller reads
// the new columns off the marks afterwards).
template <class S, bool kBranchFree = false, class F>
inline void accumulate_row(const CsrRef& A, const CsrRef& B, Index s, Index* mark, typename S::value_type* acc,
                           const F& first_touch) {
  using T = typename S::value_type;
  const T* Ax = A.values<T>();
  const T* Bx = B.values<T>();
  for (Index e = A.p[s]; e < A.p[s + 1]; ++e) {
    const T a = Ax[e];
    Index b0, b1;
    B.row_range(A.j[e], b0, b1);
    for (Index q = b0; q < b1; ++q) {
      const Index j = B.j[q];
      const T t = S::mul(a, Bx[q]);
      if constexpr (kBranchFree) {
        const bool seen = mark[j] == s;
        acc[j] = seen ? S::add(acc[j], t) : t;
        mark[j] = s;
      } else if (mark[j] != s) {
        mark[j] = s;
        acc[j] = t;
        first_touch(j);
      } else {
        acc[j] = S::add(acc[j], t);
      }
    }
  }
}

// Row s of A*B for a full row s of A (a[k] = A(s, k) for every k): one dot product of a with each row of
// c.BT, out(c, j, value) for the c-th non-empty column j of B. Each sum adds its terms in increasing k,
// the order accumulate_row adds them in, so both give bitwise the same values. Four columns at a time:
// four independent chains of adds that the CPU overlaps (one chain waits on each add's latency).
template <class S, class Out>
inline void dot_full_row(const typename S::value_type* a, const CsrRef& BT, const Out& out) {
  using T = typename S::value_type;
  const T* bx = BT.values<T>();
  const Index* bk = BT.j;
  const Index* p = BT.p;
  const Index n = BT.nslots;
  Index c = 0;
  for (; c + 4 <= n; c += 4) {
    Index q0 = p[c], q1 = p[c + 1], q2 = p[c + 2], q3 = p[c + 3];
    const Index e0 = p[c + 1], e1 = p[c + 2], e2 = p[c + 3], e3 = p[c + 4];
    T s0 = S::mul(a[bk[q0]], bx[q0]), s1 = S::mul(a[bk[q1]], bx[q1]);
    T s2 = S::mul(a[bk[q2]], bx[q2]), s3 = S::mul(a[bk[q3]], bx[q3]);
    ++q0, ++q1, ++q2, ++q3;
    const Index m = std::min(std::min(e0 - q0, e1 - q1), std::min(e2 - q2, e3 - q3));
    for (Index t = 0; t < m; ++t) {
      s0 = S::add(s0, S::mul(a[bk[q0 + t]], bx[q0 + t]));
      s1 = S::add(s1, S::mul(a[bk[q1 + t]], bx[q1 + t]));
      s2 = S::add(s2, S::mul(a[bk[q2 + t]], bx[q2 + t]));
      s3 = S::add(s3, S::mul(a[bk[q3 + t]], bx[q3 + t]));
    }
    for (q0 += m; q0 < e0; ++q0) s0 = S::add(s0, S::mul(a[bk[q0]], bx[q0]));
    for (q1 += m; q1 < e1; ++q1) s1 = S::add(s1, S::mul(a[bk[q1]], bx[q1]));
    for (q2 += m; q2 < e2; ++q2) s2 = S::add(s2, S::mul(a[bk[q2]], bx[q2]));
    for (q3 += m; q3 < e3; ++q3) s3 = S::add(s3, S::mul(a[bk[q3]], bx[q3]));
    out(c, BT.h[c], s0);
    out(c + 1, BT.h[c + 1], s1);
    out(c + 2, BT.h[c + 2], s2);
    out(c + 3, BT.h[c + 3], s3);
  }
  for (; c < n; ++c) {
    Index q = p[c];
    T v = S::mul(a[bk[q]], bx[q]);
    for (++q; q < p[c + 1]; ++q) v = S::add(v, S::mul(a[bk[q]], bx[q]));
    out(c, BT.h[c], v);
  }
}

// Gustavson in one pass (when mxm.cpp skipped the symbolic pass: dense workspace, bounded output): each
// chunk of A's slots writes its rows into its own growing buffers while counting them, then the output is
// allocated from the counts and every chunk's rows are copied into place. Costs one extra copy of the
// output instead of a second pass over all the products.
template <class S>
void mxm_gustavson_one_pass(MxmCall& c) {
  using T = typename S::value_type;
  using Stored = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;   // no vector<bool>
  const CsrRef A = c.A, B = c.B, BT = c.BT;
  const T* Ax = A.values<T>();
  const MxmCall* call = &c;
  const Index ncols = B.ncols;
  const int nthreads = concurrency();
  const std::vector<Index>& bounds = c.chunks;
  const std::size_t nchunks = bounds.size() - 1;
  std::vector<std::vector<Index>> chunk_j(nchunks);
  std::vector<std::vector<Stored>> chunk_x(nchunks);
  c.counts.assign(A.nslots, 0);
  Index* counts = c.counts.data();
  std::vector<Index> marks(std::size_t(nthreads) * ncols, kNoIndex);
  Buffer<T> accs(std::size_t(nthreads) * ncols);
  Index* mark_all = marks.data();
  T* acc_all = accs.data();
  auto* cj = chunk_j.data();
  auto* cx = chunk_x.data();
  const Index* bp = bounds.data();
  auto chunk_of = [bp, nchunks](Index s0) {
    return std::size_t(std::upper_bound(bp, bp + nchunks + 1, s0) - bp) - 1;
  };
  for_chunks("snack::kokkos::mxm_gustavson_one_pass", bounds, [=](Index s0, Index s1, int id) {
    if (s0 == s1) return;
    Index* mark = mark_all + std::size_t(id) * ncols;
    T* acc = acc_all + std::size_t(id) * ncols;
    const std::size_t k = chunk_of(s0);
    std::vector<Index>& J = cj[k];
    std::vector<Stored>& X = cx[k];
    for (Index s = s0; s < s1; ++s) {
      const std::size_t p0 = J.size();
      if (call->full_row(s)) {
        const Index n = BT.nslots;
        J.resize(p0 + n);
        X.resize(p0 + n);
        Index* Jr = J.data() + p0;
        Stored* Xr = X.data() + p0;
        dot_full_row<S>(Ax + A.p[s], BT, [=](Index k, Index j, T v) {
          Jr[k] = j;
          Xr[k] = static_cast<Stored>(v);
        });
        counts[s] = n;
        continue;
      }
      Index products = 0;
      for (Index e = A.p[s]; e < A.p[s + 1]; ++e) products += B.row_length(A.j[e]);
      // A row with at least half as many products as columns: most columns get an entry, so the inner
      // loop does not branch on first touches, and the new columns are read off the marks in order after.
      const bool wide = products * 2 >= ncols;
      if (wide) {
        accumulate_row<S, true>(A, B, s, mark, acc, [](Index) {});
        for (Index j = 0; j < ncols; ++j)
          if (mark[j] == s) J.push_back(j);
      } else {
        accumulate_row<S>(A, B, s, mark, acc, [&J](Index j) { J.push_back(j); });
      }
      const Index n = Index(J.size() - p0);
      counts[s] = n;
      if (n == 0) continue;
      if (wide) {
        // already in column order
      } else if (n * 8 > ncols) {
        Index m = 0;
        for (Index j = 0; j < ncols && m < n; ++j)
          if (mark[j] == s) J[p0 + m++] = j;
      } else {
        std::sort(J.begin() + p0, J.end());
      }
      X.resize(J.size());
      for (std::size_t q = p0; q < J.size(); ++q) X[q] = static_cast<Stored>(acc[J[q]]);
    }
  });
  OutputCsr out;
  out.begin(A.hyper, A.h, counts, A.nslots, sizeof(T));
  Index* Tj = out.j();
  unsigned char* Tx = out.x();
  const Index* Tp = out.p();
  for_chunks("snack::kokkos::mxm_gustavson_place", bounds, [=](Index s0, Index s1, int) {
    if (s0 == s1) return;
    const std::size_t k = chunk_of(s0);
    const std::size_t n = cj[k].size();
    if (n == 0) return;
    std::memcpy(Tj + Tp[s0], cj[k].data(), n * sizeof(Index));
    std::memcpy(Tx + Tp[s0] * sizeof(T), cx[k].data(), n * sizeof(T));
  });
  out.finish(*c.T);
}

template <class S>
void mxm_gustavson(MxmCall& c) {
  using T = typename S::value_type;
  if (c.dense_workspace && c.counts.empty()) {
    mxm_gustavson_one_pass<S>(c);
    return;
  }
  const CsrRef A = c.A, B = c.B, BT = c.BT;
  const MxmCall* call = &c;
  const Index ncols = B.ncols;
  OutputCsr out;
  out.begin(A.hyper, A.h, c.counts.data(), A.nslots, sizeof(T));
  Index* Tj = out.j();
  T* Tx = reinterpret_cast<T*>(out.x());
  const Index* Tp = out.p();
  const T* Ax = A.values<T>();
  const T* Bx = B.values<T>();
  const int nthreads = concurrency();
  // Row s of T when s is a full row of A (both workspaces): dot products with BT, written in place.
  auto full_row_into_place = [=](Index s) {
    const Index p0 = Tp[s];
    dot_full_row<S>(Ax + A.p[s], BT, [=](Index k, Index j, T v) {
      Tj[p0 + k] = j;
      Tx[p0 + k] = v;
    });
  };
  if (c.dense_workspace) {
    std::vector<Index> marks(std::size_t(nthreads) * ncols, kNoIndex);
    Buffer<T> accs(std::size_t(nthreads) * ncols);
    Index* mark_all = marks.data();
    T* acc_all = accs.data();
    for_chunks("snack::kokkos::mxm_gustavson", c.chunks, [=](Index s0, Index s1, int id) {
      Index* mark = mark_all + std::size_t(id) * ncols;
      T* acc = acc_all + std::size_t(id) * ncols;
      for (Index s = s0; s < s1; ++s) {
        if (call->full_row(s)) {
          full_row_into_place(s);
          continue;
        }
        const Index p0 = Tp[s];
        Index n = 0;
        accumulate_row<S>(A, B, s, mark, acc, [&](Index j) { Tj[p0 + n++] = j; });
        if (n == 0) continue;
        if (n * 8 > ncols) {
          // a wide row: read the marks in column order instead of sorting
          Index k = 0;
          for (Index j = 0; j < ncols && k < n; ++j)
            if (mark[j] == s) Tj[p0 + k++] = j;
        } else {
          std::sort(Tj + p0, Tj + p0 + n);
        }
        for (Index k = 0; k < n; ++k) Tx[p0 + k] = acc[Tj[p0 + k]];
      }
    });
  } else {
    std::vector<std::vector<std::pair<Index, T>>> bufs(nthreads);
    auto* buf_all = bufs.data();
    for_chunks("snack::kokkos::mxm_gustavson_sort", c.chunks, [=](Index s0, Index s1, int id) {
      auto& buf = buf_all[id];
      for (Index s = s0; s < s1; ++s) {
        if (call->full_row(s)) {
          full_row_into_place(s);
          continue;
        }
        buf.clear();
        for (Index e = A.p[s]; e < A.p[s + 1]; ++e) {
          const T a = Ax[e];
          Index b0, b1;
          B.row_range(A.j[e], b0, b1);
          for (Index q = b0; q < b1; ++q) buf.emplace_back(B.j[q], S::mul(a, Bx[q]));
        }
        std::stable_sort(buf.begin(), buf.end(), ByColumn<T>());
        Index pos = Tp[s];
        for (std::size_t k = 0; k < buf.size();) {
          const Index j = buf[k].first;
          T v = buf[k].second;
          for (++k; k < buf.size() && buf[k].first == j; ++k) v = S::add(v, buf[k].second);
          Tj[pos] = j;
          Tx[pos] = v;
          ++pos;
        }
      }
    });
  }
  out.finish(*c.T);
}

template <class S>
void mxm_masked_gustavson(MxmCall& c) {
  using T = typename S::value_type;
  const CsrRef A = c.A, B = c.B, M = c.M;
  const Index ncols = B.ncols;
  std::vector<std::uint8_t> flags(M.nvals, 0);
  Buffer<T> vals(M.nvals);
  std::uint8_t* F = flags.data();
  T* V = vals.data();
  const T* Ax = A.values<T>();
  const T* Bx = B.values<T>();
  const int nthreads = concurrency();
  const bool dense = c.dense_workspace;
  std::vector<Index> where(dense ? std::size_t(nthreads) * ncols : 0, kNoIndex);
  Index* where_all = where.data();
  for_chunks("snack::kokkos::mxm_masked_gustavson", mask_row_chunks(M, A), [=](Index s0, Index s1, int id) {
    Index* pos = dense ? where_all + std::size_t(id) * ncols : nullptr;
    for (Index s = s0; s < s1; ++s) {
      const Index m0 = M.p[s], m1 = M.p[s + 1];
      if (m0 == m1) continue;
      Index a0, a1;
      A.row_range(M.row_of(s), a0, a1);
      if (a0 == a1) continue;
      if (dense)
        for (Index q = m0; q < m1; ++q) pos[M.j[q]] = q;
      for (Index e = a0; e < a1; ++e) {
        const T a = Ax[e];
        Index b0, b1;
        B.row_range(A.j[e], b0, b1);
        for (Index q = b0; q < b1; ++q) {
          const Index j = B.j[q];
          Index at;
          if (dense) {
            at = pos[j];
            if (at == kNoIndex) continue;
          } else {
            const Index* hit = std::lower_bound(M.j + m0, M.j + m1, j);
            if (hit == M.j + m1 || *hit != j) continue;
            at = Index(hit - M.j);
          }
          const T t = S::mul(a, Bx[q]);
          if (!F[at]) {
            F[at] = 1;
            V[at] = t;
          } else {
            V[at] = S::add(V[at], t);
          }
        }
      }
      if (dense)
        for (Index q = m0; q < m1; ++q) pos[M.j[q]] = kNoIndex;
    }
  });
  compact_masked(*c.T, M, F, reinterpret_cast<const unsigned char*>(V), sizeof(T));
}

// The dot product of two sorted sparse rows; returns false when they share no column. Stops at the add
// monoid's terminal value (e.g. the first true of LOR_LAND).
template <class S>
KOKKOS_INLINE_FUNCTION bool sparse_dot(const Index* aj, const typename S::value_type* ax, Index na,
                                       const Index* bj, const typename S::value_type* bx, Index nb,
                                       typename S::value_type& out) {
  using T = typename S::value_type;
  bool found = false, done = false;
  T acc{};
  Index ia = 0, ib = 0;
  auto hit = [&](Index pa, Index pb) {
    const T t = S::mul(ax[pa], bx[pb]);
    acc = found ? S::add(acc, t) : t;
    found = true;
    if constexpr (S::has_terminal) done = S::is_terminal(acc);
  };
  if (na * 32 < nb) {
    // A's row is much shorter: binary-search each of its columns in B's row
    for (; ia < na && ib < nb && !done; ++ia) {
      ib = Index(std::lower_bound(bj + ib, bj + nb, aj[ia]) - bj);
      if (ib < nb && bj[ib] == aj[ia]) hit(ia, ib++);
    }
  } else if (nb * 32 < na) {
    for (; ia < na && ib < nb && !done; ++ib) {
      ia = Index(std::lower_bound(aj + ia, aj + na, bj[ib]) - aj);
      if (ia < na && aj[ia] == bj[ib]) hit(ia++, ib);
    }
  } else {
    while (ia < na && ib < nb && !done) {
      const Index ja = aj[ia], jb = bj[ib];
      if (ja < jb) ++ia;
      else if (jb < ja) ++ib;
      else hit(ia++, ib++);
    }
  }
  out = acc;
  return found;
}

template <class S>
void mxm_masked_dot(MxmCall& c) {
  using T = typename S::value_type;
  const CsrRef A = c.A, B = c.B, M = c.M;
  std::vector<std::uint8_t> flags(M.nvals, 0);
  Buffer<T> vals(M.nvals);
  std::uint8_t* F = flags.data();
  T* V = vals.data();
  const T* Ax = A.values<T>();
  const T* Bx = B.values<T>();
  for_chunks("snack::kokkos::mxm_masked_dot", mask_row_chunks(M, A), [=](Index s0, Index s1, int) {
    for (Index s = s0; s < s1; ++s) {
      Index a0, a1;
      A.row_range(M.row_of(s), a0, a1);
      if (a0 == a1) continue;
      for (Index q = M.p[s]; q < M.p[s + 1]; ++q) {
        Index b0, b1;
        B.row_range(M.j[q], b0, b1);
        if (b0 == b1) continue;
        T v;
        if (sparse_dot<S>(A.j + a0, Ax + a0, a1 - a0, B.j + b0, Bx + b0, b1 - b0, v)) {
          F[q] = 1;
          V[q] = v;
        }
      }
    }
  });
  compact_masked(*c.T, M, F, reinterpret_cast<const unsigned char*>(V), sizeof(T));
}

template <class S>
void mxm_pull_dot(MxmCall& c) {
  using T = typename S::value_type;
  const CsrRef A = c.A, B = c.B;
  const Index width = A.ncols;  // == B.ncols
  const T* Ax = A.values<T>();
  const T* Bx = B.values<T>();
  const bool dense = c.dense_workspace;
  Buffer<T> xval(dense ? width : 0);
  Buffer<std::uint8_t> xset(dense ? width : 0);
  T* X = xval.data();
  std::uint8_t* XS = xset.data();
  const std::vector<Index> chunks = uniform_chunks(B.nslots, 512);
  // each row r of T (one per slot of A) as per-B-slot flags and values, compacted afterwards
  std::vector<Buffer<std::uint8_t>> flags(A.nslots);
  std::vector<Buffer<T>> vals(A.nslots);
  for (Index r = 0; r < A.nslots; ++r) {
    const Index a0 = A.p[r], a1 = A.p[r + 1];
    flags[r] = Buffer<std::uint8_t>(B.nslots);
    vals[r] = Buffer<T>(B.nslots);
    if (a0 == a1) continue;
    // a full row of A is its own dense array (no scatter); otherwise scatter it into X
    const bool a_full = (a1 - a0) == width;
    const T* XA = a_full ? Ax + a0 : X;
    if (dense && !a_full) {
      for_items("snack::kokkos::mxm_pull_scatter", a1 - a0, [=](Index k) {
        X[A.j[a0 + k]] = Ax[a0 + k];
        XS[A.j[a0 + k]] = 1;
      });
    }
    std::uint8_t* F = flags[r].data();
    T* V = vals[r].data();
    for_chunks("snack::kokkos::mxm_pull_dot", chunks, [=](Index s0, Index s1, int) {
      for (Index s = s0; s < s1; ++s) {
        const Index b0 = B.p[s], b1 = B.p[s + 1];
        bool found = false;
        T acc{};
        if (!dense) {
          found = b0 < b1 && sparse_dot<S>(A.j + a0, Ax + a0, a1 - a0, B.j + b0, Bx + b0, b1 - b0, acc);
        } else if (a_full) {
          if (b0 < b1) {
            acc = S::mul(XA[B.j[b0]], Bx[b0]);
            for (Index q = b0 + 1; q < b1; ++q) acc = S::add(acc, S::mul(XA[B.j[q]], Bx[q]));
            found = true;
          }
        } else {
          for (Index q = b0; q < b1; ++q) {
            const Index j = B.j[q];
            if (!XS[j]) continue;
            const T t = S::mul(X[j], Bx[q]);
            acc = found ? S::add(acc, t) : t;
            found = true;
            if constexpr (S::has_terminal) {
              if (S::is_terminal(acc)) break;
            }
          }
        }
        F[s] = found;
        V[s] = acc;
      }
    });
    if (dense && !a_full) for_items("snack::kokkos::mxm_pull_clear", a1 - a0, [=](Index k) { XS[A.j[a0 + k]] = 0; });
  }
  std::vector<const std::uint8_t*> flag_rows(A.nslots);
  std::vector<const unsigned char*> value_rows(A.nslots);
  for (Index r = 0; r < A.nslots; ++r) {
    flag_rows[r] = flags[r].data();
    value_rows[r] = reinterpret_cast<const unsigned char*>(vals[r].data());
  }
  compact_pull_rows(*c.T, A, B, flag_rows, value_rows, sizeof(T));
}

template <class S>
void mxm_dense_b(MxmCall& c) {
  using T = typename S::value_type;
  const CsrRef A = c.A, B = c.B;
  const Index ncols = B.ncols;
  std::vector<Index> counts(A.nslots);
  for (Index s = 0; s < A.nslots; ++s) counts[s] = A.p[s + 1] > A.p[s] ? ncols : 0;
  OutputCsr out;
  out.begin(A.hyper, A.h, counts.data(), A.nslots, sizeof(T));
  Index* Tj = out.j();
  T* Tx = reinterpret_cast<T*>(out.x());
  const Index* Tp = out.p();
  const T* Ax = A.values<T>();
  const T* Bx = B.values<T>();
  for_items("snack::kokkos::mxm_dense_b", A.nslots, [=](Index s) {
    const Index a0 = A.p[s], a1 = A.p[s + 1];
    if (a0 == a1) return;
    Index* rj = Tj + Tp[s];
    T* rx = Tx + Tp[s];
    for (Index j = 0; j < ncols; ++j) rj[j] = j;
    {
      const T a = Ax[a0];
      const T* b = Bx + A.j[a0] * ncols;
      for (Index j = 0; j < ncols; ++j) rx[j] = S::mul(a, b[j]);
    }
    for (Index e = a0 + 1; e < a1; ++e) {
      const T a = Ax[e];
      const T* b = Bx + A.j[e] * ncols;
      for (Index j = 0; j < ncols; ++j) rx[j] = S::add(rx[j], S::mul(a, b[j]));
    }
  }, 1);
  out.finish(*c.T);
}

template <class S>
void run_mxm(MxmCall& call) {
  switch (call.method) {
    case MxmMethod::Gustavson: mxm_gustavson<S>(call); break;
    case MxmMethod::MaskedGustavson: mxm_masked_gustavson<S>(call); break;
    case MxmMethod::MaskedDot: mxm_masked_dot<S>(call); break;
    case MxmMethod::PullDot: mxm_pull_dot<S>(call); break;
    case MxmMethod::DenseB: mxm_dense_b<S>(call); break;
  }
}

// Explicit instantiation of run_mxm for the compiled semirings of one type (used by mxm_instances_*.cpp).
#define SNK_KOKKOS_MXM_NUMERIC(T)                                                   \
  template void run_mxm<SemiringFn<BinaryOpcode::Plus, BinaryOpcode::Times, T>>(MxmCall&);  \
  template void run_mxm<SemiringFn<BinaryOpcode::Plus, BinaryOpcode::Min, T>>(MxmCall&);    \
  template void run_mxm<SemiringFn<BinaryOpcode::Min, BinaryOpcode::Plus, T>>(MxmCall&);    \
  template void run_mxm<SemiringFn<BinaryOpcode::Min, BinaryOpcode::Times, T>>(MxmCall&);   \
  template void run_mxm<SemiringFn<BinaryOpcode::Min, BinaryOpcode::First, T>>(MxmCall&);   \
  template void run_mxm<SemiringFn<BinaryOpcode::Min, BinaryOpcode::Second, T>>(MxmCall&);  \
  template void run_mxm<SemiringFn<BinaryOpcode::Min, BinaryOpcode::Max, T>>(MxmCall&);     \
  template void run_mxm<SemiringFn<BinaryOpcode::Max, BinaryOpcode::Plus, T>>(MxmCall&);    \
  template void run_mxm<SemiringFn<BinaryOpcode::Max, BinaryOpcode::Times, T>>(MxmCall&);   \
  template void run_mxm<SemiringFn<BinaryOpcode::Max, BinaryOpcode::First, T>>(MxmCall&);   \
  template void run_mxm<SemiringFn<BinaryOpcode::Max, BinaryOpcode::Second, T>>(MxmCall&);  \
  template void run_mxm<SemiringFn<BinaryOpcode::Max, BinaryOpcode::Min, T>>(MxmCall&);

}  // namespace snk::kokkos
