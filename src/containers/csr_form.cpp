// src/containers/csr_form.cpp: the CSR-form helpers declared in csr_form.hpp: switching between plain and
// hypersparse CSR by the size rule, checking the shape of a CSR form handed over by a kernel, and the
// stable (row, column) sort of tuples that build and the pending-tuple merge rely on.
//
// The sort is the hot part of building a matrix (10^7 tuples should take about a second): it first checks
// whether the input is already in order (the common case of tuples extracted from another matrix), then
// orders the tuples, moved as 24-byte records, by row with LSD radix passes of at most 11 bits (stable, each
// pass a sequential read and a scatter to at most 2048 streams, which caches and prefetchers handle well,
// unlike one scatter over a million row buckets), and finally sorts each row's run by column, with an
// insertion sort for the short runs that dominate real inputs.
#include "containers/csr_form.hpp"

#include <algorithm>
#include <string>

namespace snk::core {

void normalize_csr(CsrStorage& s, Index nrows) {
  if (s.p.empty()) {
    s = empty_csr(nrows);
    return;
  }
  const Index nvals = s.nvals();
  const bool want_hyper = hyper_rule(nrows, nvals);
  if (s.hyper && !want_hyper) {
    std::vector<Index> p(nrows + 1, 0);
    for (Index k = 0; k < s.nslots(); ++k) p[s.h[k] + 1] = s.p[k + 1] - s.p[k];
    for (Index i = 0; i < nrows; ++i) p[i + 1] += p[i];
    s.p = std::move(p);
    s.h = std::vector<Index>();
    s.hyper = false;
  } else if (!s.hyper && want_hyper) {
    std::vector<Index> h, p;
    p.push_back(0);
    for (Index i = 0; i < nrows; ++i) {
      if (s.p[i + 1] > s.p[i]) {
        h.push_back(i);
        p.push_back(s.p[i + 1]);
      }
    }
    s.h = std::move(h);
    s.p = std::move(p);
    s.hyper = true;
  } else if (s.hyper) {
    // Drop slots left empty by in-place edits.
    Index out = 0;
    for (Index k = 0; k < s.nslots(); ++k) {
      if (s.p[k + 1] == s.p[k]) continue;
      s.h[out] = s.h[k];
      s.p[out + 1] = s.p[k + 1];
      ++out;
    }
    s.h.resize(out);
    s.p.resize(out + 1);
  }
}

CsrStorage CsrBuilder::finish(Index nrows) {
  if (!s_.h.empty()) s_.p.push_back(s_.nvals());
  normalize_csr(s_, nrows);
  return std::move(s_);
}

void check_csr_shape(const CsrStorage& s, Index nrows, std::size_t elem_size, const char* who) {
  const Index nvals = s.nvals();
  auto fail = [&](const std::string& what) {
    throw Error(Info::InvalidValue, std::string(who) + ": inconsistent CSR storage: " + what);
  };
  if (s.x.size() != nvals * elem_size)
    fail("x holds " + std::to_string(s.x.size()) + " bytes, expected nvals * type size = " +
         std::to_string(nvals * elem_size));
  if (s.p.empty()) {
    if (nvals != 0) fail("p is empty but j holds entries");
    return;
  }
  if (s.hyper) {
    if (s.p.size() != s.h.size() + 1) fail("hyper form needs p.size() == h.size() + 1");
    if (!s.h.empty() && s.h.back() >= nrows) fail("h lists a row out of range");
  } else if (s.p.size() != nrows + 1) {
    fail("p has " + std::to_string(s.p.size()) + " entries, expected nrows + 1 = " + std::to_string(nrows + 1));
  }
  if (s.p.front() != 0 || s.p.back() != nvals) fail("p must start at 0 and end at nvals");
}

std::unique_ptr<SortedTuple[]> sort_tuples(const Index* I, Index row_mask, const Index* J, Index n, Index nrows) {
  auto row = [&](Index k) { return I ? (I[k] & row_mask) : Index(0); };
  std::unique_ptr<SortedTuple[]> t(new SortedTuple[n]);
  auto fill_in_input_order = [&](SortedTuple* dst) {
    for (Index k = 0; k < n; ++k) dst[k] = SortedTuple{row(k), J[k], k};
  };
  bool sorted = true;
  for (Index k = 1; k < n; ++k) {
    const Index r0 = row(k - 1), r1 = row(k);
    if (r1 < r0 || (r1 == r0 && J[k] < J[k - 1])) {
      sorted = false;
      break;
    }
  }
  if (sorted) {
    fill_in_input_order(t.get());
    return t;
  }
  auto by_row_col_pos = [](const SortedTuple& a, const SortedTuple& b) {
    return a.row < b.row || (a.row == b.row && (a.col < b.col || (a.col == b.col && a.pos < b.pos)));
  };
  if (n < 2048) {
    fill_in_input_order(t.get());
    std::sort(t.get(), t.get() + n, by_row_col_pos);
    return t;
  }

  // Stable order by row.
  if (I == nullptr || nrows <= 1) {
    fill_in_input_order(t.get());
  } else {
    // LSD radix passes over the row index with digits of at most 11 bits (at most 2048 buckets, so each
    // scatter writes to few streams and stays cache friendly); the first pass reads the input directly,
    // the histograms of all digits come from one sequential pass.
    int bits = 0;
    for (Index m = nrows - 1; m != 0; m >>= 1) ++bits;
    const int passes = (bits + 10) / 11;
    const int digit = (bits + passes - 1) / passes;
    const Index buckets = Index(1) << digit, mask = buckets - 1;
    std::vector<Index> count(static_cast<std::size_t>(passes) * (buckets + 1), 0);
    for (Index k = 0; k < n; ++k) {
      const Index i = row(k);
      for (int d = 0; d < passes; ++d) ++count[d * (buckets + 1) + ((i >> (d * digit)) & mask) + 1];
    }
    for (int d = 0; d < passes; ++d) {
      Index* c = &count[d * (buckets + 1)];
      for (Index b = 0; b < buckets; ++b) c[b + 1] += c[b];
    }
    std::unique_ptr<SortedTuple[]> tmp;
    if (passes > 1) tmp.reset(new SortedTuple[n]);
    // Pass 0 from the input; passes alternate between the two buffers and must end in t.
    SortedTuple* dst = passes % 2 == 1 ? t.get() : tmp.get();
    SortedTuple* other = passes % 2 == 1 ? tmp.get() : t.get();
    for (Index k = 0; k < n; ++k) {
      const Index i = row(k);
      dst[count[(i & mask)]++] = SortedTuple{i, J[k], k};
    }
    for (int d = 1; d < passes; ++d) {
      std::swap(dst, other);
      Index* c = &count[d * (buckets + 1)];
      const int shift = d * digit;
      for (Index r = 0; r < n; ++r) {
        const SortedTuple& x = other[r];
        dst[c[(x.row >> shift) & mask]++] = x;
      }
    }
  }

  // Within each row's run (in input order), order by column; pos breaks ties, which keeps input order.
  Index begin = 0;
  while (begin < n) {
    const Index r = t[begin].row;
    Index end = begin + 1;
    bool run_sorted = true;
    while (end < n && t[end].row == r) {
      if (t[end].col < t[end - 1].col) run_sorted = false;
      ++end;
    }
    if (!run_sorted) {
      if (end - begin <= 32) {
        for (Index a = begin + 1; a < end; ++a) {
          const SortedTuple x = t[a];
          Index b = a;
          while (b > begin && t[b - 1].col > x.col) {
            t[b] = t[b - 1];
            --b;
          }
          t[b] = x;
        }
      } else {
        std::sort(t.get() + begin, t.get() + end, by_row_col_pos);
      }
    }
    begin = end;
  }
  return t;
}

}  // namespace snk::core
