// backends/kokkos/mxm.cpp: mxm on the kokkos backend: choosing the method for T = A' (+).(x) B' (see
// mxm_kernels.hpp for the methods), and the type-independent passes: flop counts per row, the symbolic
// pass of Gustavson's SpGEMM (count the distinct columns of each output row), load-balanced chunking and
// the compaction of masked results.
//
// Choice: a transposed A is declined (the core transposes it with our parallel transpose and calls again);
// a mask that is given and not complemented restricts the work to its structure (dot products when B is
// transposed, masked Gustavson otherwise; a valued mask is used by structure only, which computes a
// superset that the core's mask step trims); a transposed B with A of a few rows (mxv) uses dot products
// against a dense copy of A's row; a transposed B otherwise is declined (the core transposes B); a full B
// uses the sparse x dense path; everything else is Gustavson's SpGEMM: two phases (count, then fill), or one
// (fill per chunk, then place) when the output is small enough to hold twice; when A has several full rows,
// B^T is built once and those rows are dot products with its rows.
#include <algorithm>
#include <cstring>

#include "entry_points.hpp"
#include "functors.hpp"
#include "mxm_kernels.hpp"
#include "parallel.hpp"

namespace snk::kokkos {
namespace {

// Widest B for which each thread keeps dense arrays of B's width.
constexpr Index kDenseWorkspaceLimit = Index(1) << 22;
// Gustavson's SpGEMM skips its symbolic pass when the output is bounded by this many bytes.
constexpr double kOnePassOutputBytes = 2.0 * (1 << 30);
// A*B^T is computed by pull dot products when A has at most this many row slots.
constexpr Index kPullRowsLimit = 8;

// flops[s] = sum over the entries of A's slot s of the length of B's matching row; returns the prefix
// (nslots + 1 entries) with one extra unit per slot so that empty rows still count as work.
std::vector<Index> row_work_prefix(const CsrRef& A, const CsrRef& B) {
  std::vector<Index> work(A.nslots), prefix(A.nslots + 1);
  Index* W = work.data();
  host_parallel_for("snack::kokkos::mxm_row_flops", A.nslots, [=](std::int64_t s) {
    Index f = 1;
    for (Index e = A.p[s]; e < A.p[s + 1]; ++e) f += B.row_length(A.j[e]);
    W[s] = f;
  });
  Kokkos::fence();
  exclusive_scan(work.data(), prefix.data(), A.nslots);
  return prefix;
}

// Gustavson computes full rows of A by dot products with B^T's rows when A has at least this many full
// rows (building B^T costs about as much as multiplying a few full rows).
constexpr Index kFullRowsForTranspose = 4;

// c.BT = B^T restricted to B's non-empty columns (the project's transpose, then its empty rows dropped
// into the hypersparse form), values copied bytewise (see MxmCall), when A has enough full rows. Each row
// of BT lists B's rows k increasing, the order Gustavson adds the terms in.
void transpose_for_full_rows(MxmCall& c, std::size_t value_size) {
  const CsrRef A = c.A, B = c.B;
  if (A.ncols == 0 || B.nvals == 0) return;
  Index full = 0;
  for (Index s = 0; s < A.nslots && full < kFullRowsForTranspose; ++s) full += A.p[s + 1] - A.p[s] == A.ncols;
  if (full < kFullRowsForTranspose) return;
  CsrStorage& t = c.bt_storage;
  if (!transpose_storage(B, value_size, t)) return;
  if (!t.hyper) {
    std::vector<Index> p{0};
    for (Index r = 0; r < B.ncols; ++r)
      if (t.p[r + 1] > t.p[r]) {
        t.h.push_back(r);
        p.push_back(t.p[r + 1]);
      }
    t.p.swap(p);
    t.hyper = true;
  }
  c.BT.hyper = true;
  c.BT.h = t.h.data();
  c.BT.p = t.p.data();
  c.BT.j = t.j.data();
  c.BT.x = t.x.data();
  c.BT.nslots = Index(t.h.size());
  c.BT.nrows = B.ncols;
  c.BT.ncols = B.nrows;
  c.BT.nvals = B.nvals;
}

// The symbolic pass: counts[s] = number of distinct columns of row s of A*B.
void symbolic_counts(MxmCall& c) {
  const CsrRef A = c.A, B = c.B;
  const Index ncols = B.ncols;
  c.counts.assign(A.nslots, 0);
  Index* counts = c.counts.data();
  const Index* chunks = c.chunks.data();
  const MxmCall* cp = &c;
  const std::int64_t nchunks = std::int64_t(c.chunks.size()) - 1;
  ThreadToken token;
  const int nthreads = token.size();
  if (c.dense_workspace) {
    std::vector<Index> marks(std::size_t(nthreads) * ncols, kNoIndex);
    Index* mark_all = marks.data();
    dynamic_for("snack::kokkos::mxm_symbolic", nchunks, [=](std::int64_t chunk) {
      const int id = token.acquire();
      Index* mark = mark_all + std::size_t(id) * ncols;
      for (Index s = chunks[chunk]; s < chunks[chunk + 1]; ++s) {
        if (cp->full_row(s)) {
          counts[s] = cp->BT.nslots;
          continue;
        }
        Index n = 0;
        for (Index e = A.p[s]; e < A.p[s + 1]; ++e) {
          Index b0, b1;
          B.row_range(A.j[e], b0, b1);
          for (Index q = b0; q < b1; ++q) {
            const Index j = B.j[q];
            if (mark[j] != s) {
              mark[j] = s;
              ++n;
            }
          }
        }
        counts[s] = n;
      }
      token.release(id);
    });
  } else {
    std::vector<std::vector<Index>> bufs(nthreads);
    auto* buf_all = bufs.data();
    dynamic_for("snack::kokkos::mxm_symbolic_sort", nchunks, [=](std::int64_t chunk) {
      const int id = token.acquire();
      auto& buf = buf_all[id];
      for (Index s = chunks[chunk]; s < chunks[chunk + 1]; ++s) {
        if (cp->full_row(s)) {
          counts[s] = cp->BT.nslots;
          continue;
        }
        buf.clear();
        for (Index e = A.p[s]; e < A.p[s + 1]; ++e) {
          Index b0, b1;
          B.row_range(A.j[e], b0, b1);
          buf.insert(buf.end(), B.j + b0, B.j + b1);
        }
        std::sort(buf.begin(), buf.end());
        counts[s] = Index(std::unique(buf.begin(), buf.end()) - buf.begin());
      }
      token.release(id);
    });
  }
  Kokkos::fence();
}

}  // namespace

std::vector<Index> mask_row_chunks(const CsrRef& M, const CsrRef& A) {
  std::vector<Index> work(M.nslots), prefix(M.nslots + 1);
  Index* W = work.data();
  host_parallel_for("snack::kokkos::mask_row_work", M.nslots, [=](std::int64_t s) {
    W[s] = 1 + (M.p[s + 1] - M.p[s]) + A.row_length(M.row_of(s));
  });
  Kokkos::fence();
  exclusive_scan(work.data(), prefix.data(), M.nslots);
  return balanced_chunks(prefix.data(), M.nslots, Index(16) * concurrency());
}

void compact_masked(Matrix& T, const CsrRef& M, const std::uint8_t* flags, const unsigned char* values,
                    std::size_t value_size) {
  compact_entries(T, M, flags, values, value_size);
}

void compact_pull_rows(Matrix& T, const CsrRef& A, const CsrRef& B, const std::vector<const std::uint8_t*>& flags,
                       const std::vector<const unsigned char*>& values, std::size_t value_size) {
  // positions of the flagged B slots, row by row (scan over B's slots)
  const Index nb = B.nslots;
  std::vector<std::vector<Index>> pos(A.nslots);
  std::vector<Index> counts(A.nslots, 0), ones(nb);
  Index* O = ones.data();
  for (Index r = 0; r < A.nslots; ++r) {
    const std::uint8_t* F = flags[r];
    host_parallel_for("snack::kokkos::pull_flags", nb, [=](std::int64_t s) { O[s] = F[s]; });
    Kokkos::fence();
    pos[r].resize(nb + 1);
    counts[r] = exclusive_scan(O, pos[r].data(), nb);
  }
  OutputCsr out;
  out.begin(A.hyper, A.h, counts.data(), A.nslots, value_size);
  for (Index r = 0; r < A.nslots; ++r) {
    const std::uint8_t* F = flags[r];
    const unsigned char* V = values[r];
    const Index* P = pos[r].data();
    Index* Tj = out.j() + out.p()[r];
    unsigned char* Tx = out.x() + out.p()[r] * value_size;
    host_parallel_for("snack::kokkos::pull_compact", nb, [=](std::int64_t s) {
      if (!F[s]) return;
      Tj[P[s]] = B.row_of(s);
      std::memcpy(Tx + P[s] * value_size, V + s * value_size, value_size);
    });
    Kokkos::fence();
  }
  out.finish(T);
}

KernelStatus mxm(Matrix& T, const MaskHint& mask, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                 bool tb, bool flip) {
  if (ta) return KernelStatus::Declined;
  bool supported = with_semiring(s, flip, [](auto) {});
  if (!supported) return KernelStatus::Declined;

  MxmCall c;
  c.T = &T;
  c.A = csr_ref(A);
  c.B = csr_ref(B);
  const bool use_mask = mask.M != nullptr && !mask.complement;
  if (use_mask) c.M = csr_ref(*mask.M);
  const Index width = tb ? B.nrows() : B.ncols();  // columns of T
  if (use_mask && tb) {
    c.method = MxmMethod::MaskedDot;
  } else if (use_mask) {
    c.method = MxmMethod::MaskedGustavson;
    c.dense_workspace = width <= kDenseWorkspaceLimit && width <= 4 * (c.M.nvals + c.A.nvals) + 65536;
  } else if (tb) {
    if (c.A.nslots > kPullRowsLimit) return KernelStatus::Declined;
    c.method = MxmMethod::PullDot;
    const Index inner = A.ncols();
    c.dense_workspace = inner <= (Index(1) << 28) && inner <= 2 * (c.A.nvals + c.B.nvals) + 65536;
  } else if (c.B.full()) {
    c.method = MxmMethod::DenseB;
  } else {
    c.method = MxmMethod::Gustavson;
    const std::vector<Index> prefix = row_work_prefix(c.A, c.B);
    const Index flops = prefix.back() - c.A.nslots;
    c.chunks = balanced_chunks(prefix.data(), c.A.nslots, Index(16) * concurrency());
    c.dense_workspace = width <= kDenseWorkspaceLimit && width <= 8 * flops + 65536;
    transpose_for_full_rows(c, B.type()->size);
    // One pass (no symbolic pass) when the output, bounded by both the flops and rows x width, surely fits
    // twice in memory (the one-pass method keeps a copy of it per chunk before placing it).
    const double bound = std::min(double(flops), double(c.A.nslots) * double(width)) * double(sizeof(Index) + 8);
    if (!c.dense_workspace || bound > kOnePassOutputBytes) symbolic_counts(c);
  }
  with_semiring(s, flip, [&](auto sr) { run_mxm<decltype(sr)>(c); });
  return KernelStatus::Done;
}

}  // namespace snk::kokkos
