// backends/reference/reference_backend.cpp: the `reference` backend, every kernel of src/core/kernels.hpp
// computed by SuiteSparse:GraphBLAS 7.4.
//
// Each kernel imports its inputs (one copy each, convert.cpp), runs the one SuiteSparse operation that
// computes T with no accumulator and no replace (the core applies mask, accumulator and replace itself,
// once for all backends), and exports T back. It is the oracle the other backends are tested against and
// the "SuiteSparse" baseline of the benchmarks, so it adds nothing of its own beyond what the kernel
// contract needs:
//   - mask hints are passed to SuiteSparse as the operation's mask (valued, structural, complemented),
//     since masked products and element-wise operations are much cheaper there; T restricted to the mask
//     is what the contract allows. A valued mask of a user-defined type is not readable by SuiteSparse and
//     is ignored (the core masks anyway).
//   - flipped products (f(a,b) = mul(b,a), which the C API cannot express) are computed exactly for any
//     semiring through T^T = B'^T (+).mul A'^T: the output is held by column, so SuiteSparse computes T^T
//     and unpacking it as CSC hands back T's CSR arrays with no extra transpose on our side.
//   - vectors are 1 x n rows in snack, but index-unary operators must see entry k at (k, 0): apply_index
//     and select hand SuiteSparse the n x 1 column (the same arrays, imported as CSC) and read it back.
//   - reduce_scalar returns the monoid's identity for an empty input without asking SuiteSparse.
//   - assign makes duplicate indices deterministic (the last occurrence wins, as the contract says) by
//     keeping only the last occurrence of each index and the matching rows / columns of A.
// The SuiteSparse 7.4 departures listed in FACTS.md are avoided: the core applies every accumulator and
// mask to C, so SuiteSparse never runs a masked accumulate into a full matrix nor an accumulated
// product with an empty inner dimension; the only accumulator SuiteSparse sees is assign's, which is
// unmasked and over a fresh copy of C. Errors from SuiteSparse become snk::Error (out of memory, in
// practice: the core has checked every argument).
#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "core/internal.hpp"
#include "core/kernels.hpp"
#include "suitesparse.hpp"

namespace snk::reference {
namespace {

using core::IndexList;
using core::KernelStatus;
using core::MaskHint;

// The mask hint as a SuiteSparse mask (null: no mask), with its descriptor flags.
struct MaskArgument {
  MatrixHandle matrix;
  bool structural = false;
  bool complement = false;
  GrB_Matrix get() const { return matrix.get(); }
};

// `transposed`: the mask is given for T but SuiteSparse computes T^T (flipped products).
MaskArgument import_mask(const MaskHint& hint, bool transposed) {
  MaskArgument m;
  if (hint.M == nullptr) return m;
  if (!hint.structural && !hint.M->type()->builtin()) return m;
  m.matrix = import_matrix(*hint.M, transposed, hint.structural);
  m.structural = hint.structural;
  m.complement = hint.complement;
  return m;
}

// An index list as SuiteSparse takes it: GrB_ALL for "all" (the core has already set its count to the
// dimension, which is how SuiteSparse reads GrB_ALL too); an empty list may come as a null pointer, which
// SuiteSparse refuses, so it gets a valid (unread) address.
const GrB_Index* list_of(const IndexList& L) {
  static const GrB_Index unread = 0;
  if (L.all) return GrB_ALL;
  return L.list != nullptr ? L.list : &unread;
}

// The last occurrence of each index of a list with duplicates: `positions` (where in the list, in
// increasing order of the index) and `targets` (the index itself, increasing). Empty `positions` with
// has_duplicates false: the list has none and is used as it is.
struct Deduplicated {
  bool has_duplicates = false;
  std::vector<Index> positions;
  std::vector<Index> targets;
};

Deduplicated deduplicate(const IndexList& L) {
  Deduplicated d;
  if (L.all || L.n < 2) return d;
  bool increasing = true;
  for (Index k = 1; k < L.n && increasing; ++k) increasing = L.list[k] > L.list[k - 1];
  if (increasing) return d;
  std::vector<Index> order(L.n);
  std::iota(order.begin(), order.end(), Index(0));
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return L.list[a] < L.list[b]; });
  for (Index k = 0; k < L.n; ++k) {
    const bool last_of_run = k + 1 == L.n || L.list[order[k + 1]] != L.list[order[k]];
    if (!last_of_run) {
      d.has_duplicates = true;
      continue;
    }
    d.positions.push_back(order[k]);
    d.targets.push_back(L.list[order[k]]);
  }
  if (!d.has_duplicates) {
    d.positions.clear();
    d.targets.clear();
  }
  return d;
}

class ReferenceBackend final : public core::Backend {
 public:
  ReferenceBackend() { ensure_initialized(); }

  std::string name() const override { return "reference"; }

  KernelStatus mxm(Matrix& T, const MaskHint& mask, const Semiring& s, const Matrix& A, bool ta,
                   const Matrix& B, bool tb, bool flip) override {
    GrB_Semiring semiring = grb_semiring(s);
    MatrixHandle a = import_matrix(A);
    MatrixHandle b_own = &B == &A ? MatrixHandle() : import_matrix(B);
    GrB_Matrix b = &B == &A ? a.get() : b_own.get();
    MaskArgument m = import_mask(mask, flip);
    if (!flip) {
      MatrixHandle t = new_matrix(T.type(), T.nrows(), T.ncols());
      check(GrB_mxm(t.get(), m.get(), nullptr, semiring, a.get(), b,
                    grb_descriptor(ta, tb, m.structural, m.complement)),
            "GrB_mxm", t.get());
      export_matrix(t.get(), false, T);
    } else {
      // T = A' f B' with f(x, y) = mul(y, x)  <=>  T^T = B'^T mul A'^T, computed into a by-column matrix.
      MatrixHandle t = new_matrix(T.type(), T.ncols(), T.nrows(), true);
      check(GrB_mxm(t.get(), m.get(), nullptr, semiring, b, a.get(),
                    grb_descriptor(!tb, !ta, m.structural, m.complement)),
            "GrB_mxm", t.get());
      export_matrix(t.get(), true, T);
    }
    return KernelStatus::Done;
  }

  KernelStatus ewise_add(Matrix& T, const MaskHint& mask, const BinaryOp& op, const Matrix& A,
                         const Matrix& B) override {
    return ewise(T, mask, op, A, B, true);
  }

  KernelStatus ewise_mult(Matrix& T, const MaskHint& mask, const BinaryOp& op, const Matrix& A,
                          const Matrix& B) override {
    return ewise(T, mask, op, A, B, false);
  }

  KernelStatus apply_unary(Matrix& T, const UnaryOp& op, const Matrix& A) override {
    GrB_UnaryOp f = grb_unary_op(op);
    MatrixHandle a = import_matrix(A);
    MatrixHandle t = new_matrix(T.type(), T.nrows(), T.ncols());
    check(GrB_Matrix_apply(t.get(), nullptr, nullptr, f, a.get(), nullptr), "GrB_Matrix_apply", t.get());
    export_matrix(t.get(), false, T);
    return KernelStatus::Done;
  }

  KernelStatus apply_bound(Matrix& T, const BinaryOp& op, const Scalar& s, bool bind_first,
                           const Matrix& A) override {
    GrB_BinaryOp f = grb_binary_op(op);
    ScalarHandle bound = import_scalar(s);
    MatrixHandle a = import_matrix(A);
    MatrixHandle t = new_matrix(T.type(), T.nrows(), T.ncols());
    if (bind_first) {
      check(GrB_Matrix_apply_BinaryOp1st_Scalar(t.get(), nullptr, nullptr, f, bound.get(), a.get(), nullptr),
            "GrB_Matrix_apply_BinaryOp1st_Scalar", t.get());
    } else {
      check(GrB_Matrix_apply_BinaryOp2nd_Scalar(t.get(), nullptr, nullptr, f, a.get(), bound.get(), nullptr),
            "GrB_Matrix_apply_BinaryOp2nd_Scalar", t.get());
    }
    export_matrix(t.get(), false, T);
    return KernelStatus::Done;
  }

  KernelStatus apply_index(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk) override {
    return index_operation(T, op, A, thunk, false);
  }

  KernelStatus select(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk) override {
    return index_operation(T, op, A, thunk, true);
  }

  KernelStatus reduce_rows(Matrix& T, const Monoid& m, const Matrix& A) override {
    GrB_Monoid monoid = grb_monoid(m);
    MatrixHandle a = import_matrix(A);
    GrB_Vector w = nullptr;
    check(GrB_Vector_new(&w, grb_type(T.type()), A.nrows()), "GrB_Vector_new");
    VectorHandle w_owner(w);
    check(GrB_Matrix_reduce_Monoid(w, nullptr, nullptr, monoid, a.get(), nullptr), "GrB_Matrix_reduce_Monoid",
          a.get());
    export_vector_as_row(w, T);
    return KernelStatus::Done;
  }

  KernelStatus reduce_scalar(Scalar& s, const Monoid& m, const Matrix& A) override {
    if (A.nvals() == 0) {
      s.set(m.identity.data(), m.type());
      return KernelStatus::Done;
    }
    GrB_Monoid monoid = grb_monoid(m);
    MatrixHandle a = import_matrix(A);
    std::vector<unsigned char> value(m.type()->size);
    check(reduce_to_value(value.data(), m.type(), monoid, a.get()), "GrB_Matrix_reduce", a.get());
    s.set(value.data(), m.type());
    return KernelStatus::Done;
  }

  KernelStatus transpose(Matrix& T, const Matrix& A) override {
    MatrixHandle a = import_matrix(A);
    MatrixHandle t = new_matrix(T.type(), T.nrows(), T.ncols());
    check(GrB_transpose(t.get(), nullptr, nullptr, a.get(), nullptr), "GrB_transpose", t.get());
    export_matrix(t.get(), false, T);
    return KernelStatus::Done;
  }

  KernelStatus extract(Matrix& T, const Matrix& A, const IndexList& I, const IndexList& J) override {
    MatrixHandle a = import_matrix(A);
    MatrixHandle t = new_matrix(T.type(), T.nrows(), T.ncols());
    check(GrB_Matrix_extract(t.get(), nullptr, nullptr, a.get(), list_of(I), I.n, list_of(J), J.n, nullptr),
          "GrB_Matrix_extract", t.get());
    export_matrix(t.get(), false, T);
    return KernelStatus::Done;
  }

  KernelStatus assign(Matrix& Z, const Matrix& C, const BinaryOp* accum, const Matrix& A, const IndexList& I,
                      const IndexList& J) override {
    GrB_BinaryOp f = accum != nullptr ? grb_binary_op(*accum) : nullptr;
    const Deduplicated rows = deduplicate(I);
    const Deduplicated cols = deduplicate(J);
    MatrixHandle a = import_matrix(A);
    if (rows.has_duplicates || cols.has_duplicates) {
      // A restricted to the last occurrence of each row and column index.
      const Index nr = rows.has_duplicates ? static_cast<Index>(rows.positions.size()) : A.nrows();
      const Index nc = cols.has_duplicates ? static_cast<Index>(cols.positions.size()) : A.ncols();
      MatrixHandle kept = new_matrix(A.type(), nr, nc);
      check(GrB_Matrix_extract(kept.get(), nullptr, nullptr, a.get(),
                               rows.has_duplicates ? rows.positions.data() : GrB_ALL, nr,
                               cols.has_duplicates ? cols.positions.data() : GrB_ALL, nc, nullptr),
            "GrB_Matrix_extract", kept.get());
      a = std::move(kept);
    }
    const GrB_Index* ilist = rows.has_duplicates ? rows.targets.data() : list_of(I);
    const GrB_Index* jlist = cols.has_duplicates ? cols.targets.data() : list_of(J);
    const Index ni = rows.has_duplicates ? static_cast<Index>(rows.targets.size()) : I.n;
    const Index nj = cols.has_duplicates ? static_cast<Index>(cols.targets.size()) : J.n;
    MatrixHandle z = import_matrix(C);
    check(GrB_Matrix_assign(z.get(), nullptr, f, a.get(), ilist, ni, jlist, nj, nullptr), "GrB_Matrix_assign",
          z.get());
    export_matrix(z.get(), false, Z);
    return KernelStatus::Done;
  }

  KernelStatus kronecker(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) override {
    GrB_BinaryOp f = grb_binary_op(op);
    MatrixHandle a = import_matrix(A);
    MatrixHandle b_own = &B == &A ? MatrixHandle() : import_matrix(B);
    GrB_Matrix b = &B == &A ? a.get() : b_own.get();
    MatrixHandle t = new_matrix(T.type(), T.nrows(), T.ncols());
    check(GrB_Matrix_kronecker_BinaryOp(t.get(), nullptr, nullptr, f, a.get(), b, nullptr),
          "GrB_Matrix_kronecker_BinaryOp", t.get());
    export_matrix(t.get(), false, T);
    return KernelStatus::Done;
  }

 private:
  KernelStatus ewise(Matrix& T, const MaskHint& mask, const BinaryOp& op, const Matrix& A, const Matrix& B,
                     bool add) {
    GrB_BinaryOp f = grb_binary_op(op);
    MatrixHandle a = import_matrix(A);
    MatrixHandle b_own = &B == &A ? MatrixHandle() : import_matrix(B);
    GrB_Matrix b = &B == &A ? a.get() : b_own.get();
    MaskArgument m = import_mask(mask, false);
    MatrixHandle t = new_matrix(T.type(), T.nrows(), T.ncols());
    GrB_Descriptor d = grb_descriptor(false, false, m.structural, m.complement);
    if (add) {
      check(GrB_Matrix_eWiseAdd_BinaryOp(t.get(), m.get(), nullptr, f, a.get(), b, d), "GrB_Matrix_eWiseAdd",
            t.get());
    } else {
      check(GrB_Matrix_eWiseMult_BinaryOp(t.get(), m.get(), nullptr, f, a.get(), b, d), "GrB_Matrix_eWiseMult",
            t.get());
    }
    export_matrix(t.get(), false, T);
    return KernelStatus::Done;
  }

  // apply_index (keep = false) and select (keep = true). A vector (1 x n) goes to SuiteSparse as its
  // n x 1 column so that entry k is seen at (k, 0).
  KernelStatus index_operation(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk,
                               bool keep) {
    GrB_IndexUnaryOp f = grb_index_unary_op(op);
    ScalarHandle y = import_scalar(thunk);
    const bool column = A.is_vector();
    MatrixHandle a = import_matrix(A, column);
    MatrixHandle t = column ? new_matrix(T.type(), T.ncols(), T.nrows(), true)
                            : new_matrix(T.type(), T.nrows(), T.ncols());
    if (keep) {
      check(GrB_Matrix_select_Scalar(t.get(), nullptr, nullptr, f, a.get(), y.get(), nullptr),
            "GrB_Matrix_select", t.get());
    } else {
      check(GrB_Matrix_apply_IndexOp_Scalar(t.get(), nullptr, nullptr, f, a.get(), y.get(), nullptr),
            "GrB_Matrix_apply_IndexOp", t.get());
    }
    export_matrix(t.get(), column, T);
    return KernelStatus::Done;
  }
};

}  // namespace

std::unique_ptr<core::Backend> make_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace snk::reference

// The plugin's one exported symbol (backends/reference/plugin.map), called by libsnack's registry after it loads
// this library (src/core/registry.cpp). Reference is the oracle: it is never the default while a complete backend
// of the project's own is built.
extern "C" __attribute__((visibility("default"))) void snk_plugin_register() {
  snk::core::BackendEntry entry;
  entry.name = "reference";
  entry.rank = 10;
  entry.complete = true;
  entry.make = [] { return snk::reference::make_backend(); };
  snk::core::register_backend(std::move(entry));
}
