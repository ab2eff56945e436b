// backends/kokkos/parallel.cpp: the type-independent helpers of parallel.hpp (CSR views, scans,
// load-balanced chunking, output assembly), compiled once for every kernel of the kokkos backend.
#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "pool_governor.hpp"

namespace snk::kokkos {

namespace {
PoolGovernor& governor() {
  static PoolGovernor g;
  return g;
}
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

bool use_pool() { return on_pool() && governor().pool_allowed(now_ns()); }

CsrRef csr_ref(const Matrix& A) {
  const CsrStorage& s = A.csr();
  CsrRef r;
  r.hyper = s.hyper;
  r.h = s.hyper ? s.h.data() : nullptr;
  static const Index kEmptyRowPointers[1] = {0};
  r.p = s.p.empty() ? kEmptyRowPointers : s.p.data();
  r.j = s.j.data();
  r.x = s.x.data();
  r.nslots = s.nslots();
  r.nrows = A.nrows();
  r.ncols = A.ncols();
  r.nvals = s.nvals();
  return r;
}

int concurrency() { return Exec().concurrency(); }

Index exclusive_scan(const Index* counts, Index* p, Index n) {
  p[0] = 0;
  if (n == 0) return 0;
  if (n < kSerialWork || !use_pool()) {
    for (Index k = 0; k < n; ++k) p[k + 1] = p[k] + counts[k];
    return p[n];
  }
  Kokkos::parallel_scan("snack::kokkos::exclusive_scan", Range(0, std::int64_t(n)),
                        [=](std::int64_t k, Index& partial, bool final) {
                          partial += counts[k];
                          if (final) p[k + 1] = partial;
                        });
  Kokkos::fence();
  return p[n];
}

std::vector<Index> balanced_chunks(const Index* work_prefix, Index n, Index max_chunks) {
  std::vector<Index> bounds{0};
  if (n == 0) return {0, 0};
  const Index total = work_prefix[n] - work_prefix[0];
  max_chunks = std::max<Index>(1, std::min({max_chunks, n, total / kSerialWork + 1}));
  for (Index c = 1; c < max_chunks; ++c) {
    const Index target = work_prefix[0] + total / max_chunks * c + (total % max_chunks) * c / max_chunks;
    // first item whose prefix reaches the target
    const Index k = Index(std::lower_bound(work_prefix, work_prefix + n + 1, target) - work_prefix);
    const Index b = std::min(n, std::max(k, bounds.back()));
    if (b > bounds.back()) bounds.push_back(b);
  }
  if (bounds.back() != n) bounds.push_back(n);
  return bounds;
}

std::vector<Index> uniform_chunks(Index n, Index grain) {
  std::vector<Index> bounds{0};
  if (n == 0) return {0, 0};
  grain = std::max<Index>(1, grain);
  const Index nchunks = std::max<Index>(1, std::min<Index>(Index(8) * concurrency(), (n + grain - 1) / grain));
  for (Index c = 1; c <= nchunks; ++c) bounds.push_back(n / nchunks * c + (n % nchunks) * c / nchunks);
  return bounds;
}

void parallel_chunks(const char* label, const std::vector<Index>& bounds, ChunkBody body, const void* context) {
  const std::int64_t nchunks = std::int64_t(bounds.size()) - 1;
  if (nchunks <= 0) return;
  const Index* B = bounds.data();
  if (nchunks == 1 || !use_pool()) {
    for (std::int64_t k = 0; k < nchunks; ++k) body(context, B[k], B[k + 1], 0);
    return;
  }
  // The region's wall time against the time its chunks took is the governor's evidence.
  ThreadToken token;
  std::atomic<std::int64_t> work{0};
  std::atomic<std::int64_t>* work_ptr = &work;
  const std::int64_t start = now_ns();
  Kokkos::parallel_for(label, DynamicRange(0, nchunks), [=](std::int64_t k) {
    const int id = token.acquire();
    const std::int64_t t0 = now_ns();
    body(context, B[k], B[k + 1], id);
    work_ptr->fetch_add(now_ns() - t0, std::memory_order_relaxed);
    token.release(id);
  });
  Kokkos::fence();
  const std::int64_t end = now_ns();
  governor().record(end, end - start, work.load(std::memory_order_relaxed));
}

void compact_entries(Matrix& T, const CsrRef& pattern, const std::uint8_t* keep, const unsigned char* values,
                     std::size_t value_size) {
  const Index n = pattern.nvals;
  std::vector<Index> pos(n + 1);
  Index* P = pos.data();
  P[0] = 0;
  if (n > 0 && (n < kSerialWork || !use_pool())) {
    for (Index e = 0; e < n; ++e) P[e + 1] = P[e] + keep[e];
  } else if (n > 0) {
    Kokkos::parallel_scan("snack::kokkos::compact_scan", Range(0, std::int64_t(n)),
                          [=](std::int64_t e, Index& partial, bool final) {
                            partial += keep[e];
                            if (final) P[e + 1] = partial;
                          });
    Kokkos::fence();
  }
  const Index nnz = P[n];
  CsrStorage s;
  s.hyper = pattern.hyper;
  s.p.resize(pattern.nslots + 1);
  if (pattern.hyper) s.h.assign(pattern.h, pattern.h + pattern.nslots);
  for (Index k = 0; k <= pattern.nslots; ++k) s.p[k] = P[pattern.p[k]];
  s.j.resize(nnz);
  s.x.resize(nnz * value_size);
  Index* Tj = s.j.data();
  unsigned char* Tx = s.x.data();
  host_parallel_for("snack::kokkos::compact_fill", n, [=](std::int64_t e) {
    if (!keep[e]) return;
    Tj[P[e]] = pattern.j[e];
    switch (value_size) {
      case 1: Tx[P[e]] = values[e]; break;
      case 2: std::memcpy(Tx + P[e] * 2, values + e * 2, 2); break;
      case 4: std::memcpy(Tx + P[e] * 4, values + e * 4, 4); break;
      case 8: std::memcpy(Tx + P[e] * 8, values + e * 8, 8); break;
      default: std::memcpy(Tx + P[e] * value_size, values + e * value_size, value_size);
    }
  });
  OutputCsr out;
  out.s = std::move(s);
  out.finish(T);
}

CsrStorage copy_pattern(const Matrix& A, std::size_t value_size) {
  const CsrStorage& a = A.csr();
  CsrStorage s;
  s.hyper = a.hyper;
  s.h = a.h;
  s.p = a.p;
  s.j = a.j;
  s.x.resize(a.j.size() * value_size);
  return s;
}

void OutputCsr::begin(bool hyper, const Index* slot_rows, const Index* counts, Index nslots,
                      std::size_t value_size) {
  s = CsrStorage();
  s.hyper = hyper;
  if (hyper) s.h.assign(slot_rows, slot_rows + nslots);
  s.p.resize(nslots + 1);
  const Index nnz = exclusive_scan(counts, s.p.data(), nslots);
  s.j.resize(nnz);
  s.x.resize(nnz * value_size);
}

void OutputCsr::finish(Matrix& T) {
  if (s.hyper) {
    // keep the non-empty slots only (h lists non-empty rows)
    Index out = 0;
    const Index n = s.nslots();
    for (Index k = 0; k < n; ++k) {
      if (s.p[k + 1] > s.p[k]) {
        s.h[out] = s.h[k];
        s.p[out] = s.p[k];
        ++out;
      }
    }
    const Index nnz = s.j.size();
    s.h.resize(out);
    s.p.resize(out + 1);
    s.p[out] = nnz;
  }
  T.adopt(std::move(s));
  s = CsrStorage();
}

}  // namespace snk::kokkos
