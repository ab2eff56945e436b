// src/containers/csr_form.cpp: the CSR-form helpers declared in csr_form.hpp: switching between plain and
// hypersparse CSR by the size rule, checking the shape of a CSR form handed over by a kernel, and the
// stable (row, column) sort of tuples that build and the pending-tuple merge rely on.
//
// The sort is the hot part of building a matrix (10^7 tuples should take about a second): it first checks
// whether the input is already in order (the common case of tuples extracted from another matrix), then
// orders by row with one counting pass (when the row count is not much larger than the number of tuples)
// or with 16-bit LSD radix passes (hypersparse), both stable, and finally sorts each row's run by column,
// with an insertion sort for the short runs that dominate real inputs.
#include "containers/csr_form.hpp"

#include <algorithm>
#include <numeric>
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

void sort_tuples(const Index* I, Index row_mask, const Index* J, Index n, Index nrows, std::vector<Index>& perm) {
  auto row = [&](Index k) { return I ? (I[k] & row_mask) : Index(0); };
  perm.resize(n);
  std::iota(perm.begin(), perm.end(), Index(0));
  bool sorted = true;
  for (Index k = 1; k < n; ++k) {
    const Index r0 = row(k - 1), r1 = row(k);
    if (r1 < r0 || (r1 == r0 && J[k] < J[k - 1])) {
      sorted = false;
      break;
    }
  }
  if (sorted) return;

  if (n < 2048) {
    std::stable_sort(perm.begin(), perm.end(), [&](Index a, Index b) {
      const Index ra = row(a), rb = row(b);
      return ra < rb || (ra == rb && J[a] < J[b]);
    });
    return;
  }

  // Stable order by row.
  if (I != nullptr && nrows > 1) {
    std::vector<Index> tmp(n);
    if (nrows <= 2 * n + 65536) {
      std::vector<Index> start(nrows + 1, 0);
      for (Index k = 0; k < n; ++k) ++start[row(k) + 1];
      for (Index i = 0; i < nrows; ++i) start[i + 1] += start[i];
      for (Index k = 0; k < n; ++k) tmp[start[row(k)]++] = k;
      perm.swap(tmp);
    } else {
      int bits = 0;
      for (Index m = nrows - 1; m != 0; m >>= 1) ++bits;
      std::vector<Index> count(65537);
      for (int shift = 0; shift < bits; shift += 16) {
        std::fill(count.begin(), count.end(), 0);
        for (Index r = 0; r < n; ++r) ++count[((row(perm[r]) >> shift) & 0xffff) + 1];
        for (int d = 0; d < 65536; ++d) count[d + 1] += count[d];
        for (Index r = 0; r < n; ++r) {
          const Index k = perm[r];
          tmp[count[(row(k) >> shift) & 0xffff]++] = k;
        }
        perm.swap(tmp);
      }
    }
  }

  // Within each row's run (currently in input order), a stable order by column.
  Index begin = 0;
  while (begin < n) {
    const Index r = row(perm[begin]);
    Index end = begin + 1;
    bool run_sorted = true;
    while (end < n && row(perm[end]) == r) {
      if (J[perm[end]] < J[perm[end - 1]]) run_sorted = false;
      ++end;
    }
    if (!run_sorted) {
      if (end - begin <= 32) {
        for (Index a = begin + 1; a < end; ++a) {
          const Index k = perm[a];
          const Index jk = J[k];
          Index b = a;
          while (b > begin && J[perm[b - 1]] > jk) {
            perm[b] = perm[b - 1];
            --b;
          }
          perm[b] = k;
        }
      } else {
        std::stable_sort(perm.begin() + begin, perm.begin() + end, [&](Index a, Index b) { return J[a] < J[b]; });
      }
    }
    begin = end;
  }
}

}  // namespace snk::core
