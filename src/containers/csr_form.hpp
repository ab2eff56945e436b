// src/containers/csr_form.hpp: helpers on the (hyper)sparse CSR form shared by the container sources and
// the mask/accumulator step.
//
// The size rule that decides between plain CSR and hypersparse CSR lives here (one place), together with
// the functions that lay out row pointers for entries already in row-major order, that switch a CSR form
// to what the rule asks, that sort (i, j) tuples stably (used by build and by the merge of pending
// setElement tuples), and a small value copier that memcpy's when no cast is needed (cast_function has no
// entry for a user-defined type, which can only be copied).
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "snack/containers.hpp"

namespace snk::core {

// True when a matrix with nrows rows and nvals entries is stored hypersparse: nrows > 4 * nvals + 64
// (written without overflow for any nvals).
inline bool hyper_rule(Index nrows, Index nvals) { return nrows > 64 && (nrows - 65) / 4 >= nvals; }

// The empty storage of a matrix with nrows rows (hyper or not by the rule).
inline CsrStorage empty_csr(Index nrows) {
  CsrStorage s;
  s.hyper = hyper_rule(nrows, 0);
  s.p.assign(s.hyper ? 1 : nrows + 1, 0);
  return s;
}

// The row held by slot k of s.
inline Index slot_row(const CsrStorage& s, Index k) { return s.hyper ? s.h[k] : k; }

// Lays out s.h / s.p for nvals entries (already in s.j / s.x, row-major) whose rows are given by
// row_of(e), non-decreasing in e; chooses hyper or plain by the rule.
template <class RowOf>
void set_row_pointers(CsrStorage& s, Index nrows, Index nvals, RowOf row_of) {
  s.hyper = hyper_rule(nrows, nvals);
  s.h.clear();
  s.p.clear();
  if (s.hyper) {
    s.p.push_back(0);
    for (Index e = 0; e < nvals; ++e) {
      Index i = row_of(e);
      if (s.h.empty() || s.h.back() != i) {
        if (!s.h.empty()) s.p.push_back(e);
        s.h.push_back(i);
      }
    }
    if (!s.h.empty()) s.p.push_back(nvals);
  } else {
    s.p.assign(nrows + 1, 0);
    for (Index e = 0; e < nvals; ++e) ++s.p[row_of(e) + 1];
    for (Index i = 0; i < nrows; ++i) s.p[i + 1] += s.p[i];
  }
}

// Builds a CSR form entry by entry in row-major order (rows non-decreasing, columns increasing within a
// row), starting hypersparse and normalized by finish(): O(entries) plus O(nrows) when the result is plain.
class CsrBuilder {
 public:
  explicit CsrBuilder(std::size_t elem_size) : elem_size_(elem_size) {
    s_.hyper = true;
    s_.p.push_back(0);
  }
  void reserve(Index n) {
    s_.j.reserve(n);
    s_.x.reserve(n * elem_size_);
  }
  // Appends entry (row, col); returns where its value (elem_size bytes) must be written, valid until the
  // next push.
  unsigned char* push(Index row, Index col) {
    if (s_.h.empty() || s_.h.back() != row) {
      if (!s_.h.empty()) s_.p.push_back(s_.nvals());
      s_.h.push_back(row);
    }
    s_.j.push_back(col);
    const std::size_t at = s_.x.size();
    s_.x.resize(at + elem_size_);
    return s_.x.data() + at;
  }
  // The finished form for a matrix of nrows rows (plain or hyper by the size rule).
  CsrStorage finish(Index nrows);

 private:
  std::size_t elem_size_;
  CsrStorage s_;
};

// Brings s to the form the size rule asks for a matrix of nrows rows: plain <-> hyper, and drops empty
// slots of a hyper form. An empty p (a moved-from or default storage) becomes the canonical empty form.
void normalize_csr(CsrStorage& s, Index nrows);

// Checks that s is a consistent (hyper)CSR form for nrows rows and values of elem_size bytes (sizes of
// h/p/x and the ends of p; O(1)). Throws InvalidValue naming `who` otherwise.
void check_csr_shape(const CsrStorage& s, Index nrows, std::size_t elem_size, const char* who);

// One tuple of a sort: its row, its column and its position in the input.
struct SortedTuple {
  Index row, col, pos;
};

// The tuples (row(k), J[k], k), k < n, in a stable order by row then column (equal (row, column) pairs keep
// their input order, so pos increases within them); row(k) = I ? (I[k] & row_mask) : 0, and rows must be
// < nrows. The tuples are moved as records (not through an index permutation) so that every pass is
// sequential or a scatter to few streams. Cost: O(n) when already sorted, else LSD radix passes over the
// row index (11-bit digits: 2 passes for 10^6 rows) and a sort of each row's run by column.
std::unique_ptr<SortedTuple[]> sort_tuples(const Index* I, Index row_mask, const Index* J, Index n, Index nrows);

// Copies one value of type `from` into one of type `to`: memcpy when they are the same type (any type,
// user-defined included), the builtin cast otherwise. Both must be castable.
struct ValueCopier {
  std::size_t size = 0;       // bytes of `to`
  CastFunction fn = nullptr;  // null when no cast is needed
  ValueCopier() = default;
  ValueCopier(const Type* to, const Type* from) : size(to->size), fn(to == from ? nullptr : cast_function(to, from)) {}
  void operator()(void* dst, const void* src) const {
    if (fn) fn(dst, src);
    else std::memcpy(dst, src, size);
  }
};

}  // namespace snk::core
