// backends/kokkos/portable/csr_ref.hpp: CsrRef, a read-only view of a matrix's (hyper)sparse CSR form that a kernel
// captures by value, in whichever memory space the arrays live (host vectors for the host kernels, device memory
// for the device ones), and the searches every kernel shares.
//
// A row is found in O(1), or O(log) when the matrix is hypersparse; an entry's slot is found by a binary search of
// the row pointers, which lets kernels work per entry (a vector is one row: a per-row loop would be serial there).
#pragma once

#include <Kokkos_Macros.hpp>

#include <cstdint>

#include "snack/types.hpp"

namespace snk::kokkos {

// Sentinel for "no index".
constexpr Index kNoIndex = ~Index(0);

// A read-only view of a matrix's CSR form (captured by value in kernels).
struct CsrRef {
  const Index* h = nullptr;   // hyper only: row of each slot
  const Index* p = nullptr;   // nslots + 1 row pointers
  const Index* j = nullptr;   // column of each entry
  const unsigned char* x = nullptr;  // values, packed
  Index nslots = 0, nrows = 0, ncols = 0, nvals = 0;
  bool hyper = false;

  KOKKOS_INLINE_FUNCTION Index row_of(Index s) const { return hyper ? h[s] : s; }
  // The entry range [b, e) of row i (empty when the row has no entries).
  KOKKOS_INLINE_FUNCTION void row_range(Index i, Index& b, Index& e) const {
    if (!hyper) {
      if (i < nslots) { b = p[i]; e = p[i + 1]; } else { b = e = 0; }
      return;
    }
    Index lo = 0, hi = nslots;
    while (lo < hi) {
      const Index mid = lo + (hi - lo) / 2;
      if (h[mid] < i) lo = mid + 1; else hi = mid;
    }
    if (lo < nslots && h[lo] == i) { b = p[lo]; e = p[lo + 1]; } else { b = e = 0; }
  }
  KOKKOS_INLINE_FUNCTION Index row_length(Index i) const {
    Index b, e;
    row_range(i, b, e);
    return e - b;
  }
  template <class T> KOKKOS_INLINE_FUNCTION const T* values() const { return reinterpret_cast<const T*>(x); }
  // True when every position holds an entry (plain CSR with nrows * ncols entries).
  bool full() const { return !hyper && nrows > 0 && ncols > 0 && nvals / ncols == nrows && nvals % ncols == 0; }
};

// The slot s of entry e (p[s] <= e < p[s + 1]; empty slots are skipped): the last slot whose start is <= e.
KOKKOS_INLINE_FUNCTION Index slot_of(const CsrRef& A, Index e) {
  Index lo = 0, hi = A.nslots;   // answer in [lo, hi)
  while (hi - lo > 1) {
    const Index mid = lo + (hi - lo) / 2;
    if (A.p[mid] <= e) lo = mid; else hi = mid;
  }
  return lo;
}

// The first position in [b, e) of the column list whose column is >= c (e when none).
KOKKOS_INLINE_FUNCTION Index lower_bound_col(const Index* j, Index b, Index e, Index c) {
  while (b < e) {
    const Index mid = b + (e - b) / 2;
    if (j[mid] < c) b = mid + 1; else e = mid;
  }
  return b;
}

}  // namespace snk::kokkos
