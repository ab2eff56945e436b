// backends/kokkos/reduce_transpose.cpp: reduce (each row to a vector, everything to a scalar) and
// transpose on the kokkos backend.
//
// Reductions are templated on (monoid opcode, type) and deterministic: a row is reduced by one thread in
// entry order; the scalar reduction reduces fixed blocks of entries in parallel, then the block results
// in block order, so the result does not depend on the thread count. Transpose is type-independent
// (values are moved as bytes): each of a few blocks of rows counts its entries per column, a scan in
// (column, block) order gives every block its place in each column, and the blocks scatter their rows
// in order, so each column comes out sorted without any sort. For a matrix far wider than its entry count
// (hypersparse), it sorts (column, row) pairs instead.
#include <algorithm>
#include <cstring>

#include "entry_points.hpp"
#include "functors.hpp"
#include "parallel.hpp"

namespace snk::kokkos {
namespace {

// Widest matrix transposed with per-block column counts.
constexpr Index kHistogramColumnLimit = Index(1) << 26;

KOKKOS_INLINE_FUNCTION void copy_bytes(unsigned char* dst, const unsigned char* src, std::size_t size) {
  switch (size) {
    case 1: *dst = *src; break;
    case 2: std::memcpy(dst, src, 2); break;
    case 4: std::memcpy(dst, src, 4); break;
    case 8: std::memcpy(dst, src, 8); break;
    default: std::memcpy(dst, src, size);
  }
}

// f(b) for each of a few blocks of rows, one thread each.
template <class F>
void parallel_blocks(const char* label, std::int64_t nblocks, const F& f) {
  if (nblocks == 1 || !use_pool()) {
    for (std::int64_t b = 0; b < nblocks; ++b) f(b);
    return;
  }
  Kokkos::parallel_for(label, Range(0, nblocks), f);
  Kokkos::fence();
}

CsrStorage transpose_by_counts(const CsrRef& A, std::size_t vsize) {
  const Index ncols = A.ncols;
  // blocks of A's slots with about equal entry counts
  std::vector<Index> slot_prefix(A.nslots + 1);
  for (Index s = 0; s <= A.nslots; ++s) slot_prefix[s] = A.p[s] + s;
  const std::vector<Index> blocks = balanced_chunks(slot_prefix.data(), A.nslots, Index(concurrency()));
  const std::int64_t nblocks = std::int64_t(blocks.size()) - 1;
  const Index* B = blocks.data();
  std::vector<Index> offsets(std::size_t(nblocks) * ncols, 0);
  Index* O = offsets.data();
  parallel_blocks("snack::kokkos::transpose_count", nblocks, [=](std::int64_t b) {
    Index* count = O + std::size_t(b) * ncols;
    for (Index e = A.p[B[b]]; e < A.p[B[b + 1]]; ++e) ++count[A.j[e]];
  });
  Kokkos::fence();
  CsrStorage s;
  s.hyper = false;
  s.p.resize(ncols + 1);
  std::vector<Index> colcount(ncols);
  Index* CC = colcount.data();
  host_parallel_for("snack::kokkos::transpose_colcount", ncols, [=](std::int64_t j) {
    Index n = 0;
    for (std::int64_t b = 0; b < nblocks; ++b) n += O[std::size_t(b) * ncols + j];
    CC[j] = n;
  });
  Kokkos::fence();
  const Index nnz = exclusive_scan(colcount.data(), s.p.data(), ncols);
  const Index* P = s.p.data();
  host_parallel_for("snack::kokkos::transpose_offsets", ncols, [=](std::int64_t j) {
    Index at = P[j];
    for (std::int64_t b = 0; b < nblocks; ++b) {
      const Index n = O[std::size_t(b) * ncols + j];
      O[std::size_t(b) * ncols + j] = at;
      at += n;
    }
  });
  Kokkos::fence();
  s.j.resize(nnz);
  s.x.resize(nnz * vsize);
  Index* Tj = s.j.data();
  unsigned char* Tx = s.x.data();
  parallel_blocks("snack::kokkos::transpose_scatter", nblocks, [=](std::int64_t b) {
    Index* next = O + std::size_t(b) * ncols;
    for (Index slot = B[b]; slot < B[b + 1]; ++slot) {
      const Index i = A.row_of(slot);
      for (Index e = A.p[slot]; e < A.p[slot + 1]; ++e) {
        const Index at = next[A.j[e]]++;
        Tj[at] = i;
        copy_bytes(Tx + at * vsize, A.x + e * vsize, vsize);
      }
    }
  });
  Kokkos::fence();
  return s;
}

CsrStorage transpose_by_sort(const CsrRef& A, std::size_t vsize) {
  struct Item { Index j, i, e; };
  std::vector<Item> items(A.nvals);
  Item* I = items.data();
  for_entries("snack::kokkos::transpose_items", A, [=](Index e, Index row) { I[e] = Item{A.j[e], row, e}; });
  std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) { return x.j != y.j ? x.j < y.j : x.i < y.i; });
  CsrStorage s;
  s.hyper = true;
  s.p.push_back(0);
  s.j.resize(A.nvals);
  s.x.resize(A.nvals * vsize);
  for (Index k = 0; k < A.nvals; ++k) {
    if (s.h.empty() || s.h.back() != items[k].j) {
      if (!s.h.empty()) s.p.push_back(k);
      s.h.push_back(items[k].j);
    }
    s.j[k] = items[k].i;
    copy_bytes(s.x.data() + k * vsize, A.x + items[k].e * vsize, vsize);
  }
  if (!s.h.empty()) s.p.push_back(A.nvals);
  return s;
}

}  // namespace

CsrStorage transpose_storage(const CsrRef& A, std::size_t value_size) {
  if (A.ncols <= kHistogramColumnLimit && A.ncols <= 8 * A.nvals + 65536) return transpose_by_counts(A, value_size);
  return transpose_by_sort(A, value_size);
}

KernelStatus transpose(Matrix& T, const Matrix& A) {
  if (!is_builtin(A.type())) return KernelStatus::Declined;
  T.adopt(transpose_storage(csr_ref(A), A.type()->size));
  return KernelStatus::Done;
}

KernelStatus reduce_rows(Matrix& T, const Monoid& m, const Matrix& A) {
  return with_monoid(m, [&](auto optag, auto ttag) {
           using X = typename decltype(ttag)::type;
           constexpr BinaryOpcode Op = decltype(optag)::value;
           const CsrRef a = csr_ref(A);
           // output position of each non-empty slot
           std::vector<Index> nonempty(a.nslots), pos(a.nslots + 1), work(a.nslots + 1);
           Index* NE = nonempty.data();
           for_items("snack::kokkos::reduce_rows_count", a.nslots,
                     [=](Index s) { NE[s] = a.p[s + 1] > a.p[s] ? 1 : 0; });
           const Index n = exclusive_scan(nonempty.data(), pos.data(), a.nslots);
           CsrStorage s;
           s.hyper = false;
           s.p = std::vector<Index>{0, n};   // a new vector (assigning the list in place trips GCC 12's -Wnonnull)
           s.j.resize(n);
           s.x.resize(n * sizeof(X));
           Index* Tj = s.j.data();
           X* Tx = reinterpret_cast<X*>(s.x.data());
           const Index* P = pos.data();
           const X* Ax = a.values<X>();
           for (Index k = 0; k <= a.nslots; ++k) work[k] = a.p[k] + k;
           const std::vector<Index> chunk_vec = balanced_chunks(work.data(), a.nslots, Index(16) * concurrency());
           for_chunks("snack::kokkos::reduce_rows", chunk_vec, [=](Index s0, Index s1, int) {
             for (Index slot = s0; slot < s1; ++slot) {
               const Index e0 = a.p[slot], e1 = a.p[slot + 1];
               if (e0 == e1) continue;
               X acc = Ax[e0];
               for (Index e = e0 + 1; e < e1; ++e) acc = binary_apply<Op, X>(acc, Ax[e]);
               Tj[P[slot]] = a.row_of(slot);
               Tx[P[slot]] = acc;
             }
           });
           T.adopt(std::move(s));
         })
             ? KernelStatus::Done
             : KernelStatus::Declined;
}

KernelStatus reduce_scalar(Scalar& result, const Monoid& m, const Matrix& A) {
  return with_monoid(m, [&](auto optag, auto ttag) {
           using X = typename decltype(ttag)::type;
           constexpr BinaryOpcode Op = decltype(optag)::value;
           const X identity = load_value<X>(m.identity.data());
           const CsrRef a = csr_ref(A);
           const X* Ax = a.values<X>();
           constexpr Index kBlock = 16384;
           const Index nblocks = (a.nvals + kBlock - 1) / kBlock;
           Buffer<X> partial(nblocks);
           X* R = partial.data();
           const Index n = a.nvals;
           for_items("snack::kokkos::reduce_scalar", nblocks, [=](Index b) {
             const Index e0 = b * kBlock, e1 = std::min(n, e0 + kBlock);
             X acc = Ax[e0];
             for (Index e = e0 + 1; e < e1; ++e) acc = binary_apply<Op, X>(acc, Ax[e]);
             R[b] = acc;
           }, 1);
           X total = identity;
           if (nblocks > 0) {
             total = R[0];
             for (Index b = 1; b < nblocks; ++b) total = binary_apply<Op, X>(total, R[b]);
           }
           result.set(&total, A.type());
         })
             ? KernelStatus::Done
             : KernelStatus::Declined;
}

}  // namespace snk::kokkos
