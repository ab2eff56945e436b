// backends/kokkos/mxm_kernels.hpp: the semiring kernels of mxm (SpGEMM, masked SpGEMM, masked dot
// products, SpMV as dot products, sparse x dense), as templates on the semiring functor S.
//
// This header declares them; mxm_methods.hpp defines them. mxm.cpp chooses the method and the workspace
// form from the shapes, does the type-independent work (flop counts, the symbolic pass, the compaction of
// masked results) and calls run_mxm<S>; the mxm_instances_*.cpp files include mxm_methods.hpp and
// instantiate run_mxm for the 124 compiled semirings, a few types per file so that the two-core build
// compiles them in parallel. Methods, for T = A' (+).(x) B':
//   Gustavson        T = A*B, row-wise, two phases: symbolic count per row + scan (mxm.cpp), then the
//                    numeric pass here with a per-thread dense accumulator (columns marked with the row's
//                    slot, touched columns listed and sorted) or, for very wide B, a per-row sort of the
//                    (column, product) pairs. Rows are grouped into chunks of equal flops, scheduled
//                    dynamically.
//   MaskedGustavson  T<M> = A*B: the same row-wise scheme, accumulating only where M has an entry (a
//                    per-thread map column -> mask position, or a binary search in the mask row).
//   MaskedDot        T<M> = A*B^T: one sorted-merge dot product per mask entry (C<L> = L*L').
//   PullDot          T = A*B^T with A of a few rows (mxv arrives as u * A^T): A's row is scattered into a
//                    dense array once, then each row of B is a dot product against it, in parallel.
//   DenseB           T = A*B with B full: each non-empty row of A gives a full row of T (SpMM).
// Every output value is accumulated by one thread in the order of A's row (then B's row), so results
// are deterministic.
#pragma once

#include <vector>

#include "functors.hpp"
#include "parallel.hpp"

namespace snk::kokkos {

enum class MxmMethod { Gustavson, MaskedGustavson, MaskedDot, PullDot, DenseB };

struct MxmCall {
  MxmMethod method = MxmMethod::Gustavson;
  Matrix* T = nullptr;
  CsrRef A, B, M;              // M: the mask (masked methods)
  bool dense_workspace = true; // per-thread arrays of B's width (else sort / binary search)
  // Gustavson: chunks of A's slots of about equal flops, and the symbolic counts per A slot.
  std::vector<Index> chunks;
  std::vector<Index> counts;
  // Gustavson, when A has full rows: B^T holding only B's non-empty columns (BT.h: those columns,
  // increasing; each row of BT lists B's rows k in increasing order with B(k, j)); BT.nslots == 0: none.
  CsrRef BT;
  CsrStorage bt_storage;
  // Whether row s of A is full (every column 0 .. A.ncols - 1), so that BT's dot products compute it.
  bool full_row(Index s) const { return BT.nslots > 0 && A.p[s + 1] - A.p[s] == A.ncols; }
};

// The type-independent parts (mxm.cpp).
// Compacts the per-mask-entry results (flag set where an entry exists) into T, with M's row structure.
void compact_masked(Matrix& T, const CsrRef& M, const std::uint8_t* flags, const unsigned char* values,
                    std::size_t value_size);
// Assembles T from the per-B-slot results of PullDot: row r of T (slot r of A) has an entry in column
// B.row_of(s) wherever flags[r][s] is set, with the value values[r] + s * value_size.
void compact_pull_rows(Matrix& T, const CsrRef& A, const CsrRef& B, const std::vector<const std::uint8_t*>& flags,
                       const std::vector<const unsigned char*>& values, std::size_t value_size);
// Chunks of M's slots of about equal work (entries of M plus entries of the matching rows of A).
std::vector<Index> mask_row_chunks(const CsrRef& M, const CsrRef& A);

template <class S>
void run_mxm(MxmCall& call);

}  // namespace snk::kokkos
