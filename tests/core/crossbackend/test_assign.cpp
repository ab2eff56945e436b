// tests/core/crossbackend/test_assign.cpp: GrB_assign on the backend under test against reference, in every
// form: matrix C<M>(I, J) = A, vector w<m>(I) = u, row C<m'>(i, J) = u', column C<m>(I, j) = u, and a scalar
// into a matrix or vector region (including an empty GrB_Scalar, which deletes the region's entries).
//
// Every type; index lists GrB_ALL, sorted, unsorted (distinct: duplicates in assign are left to the
// implementation by the spec), empty; masks, accumulators and replace (the full product on one type);
// hypersparse 10^6 x 10^6 outputs; and inputs aliasing the output (C(perm, perm) = C, C<C>(I, J) = ...).
// (The kokkos backend declines assign: these cases check the front-end and the mask step around it.)
#include <algorithm>

#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

// `n` distinct indices below `bound`, in random order.
std::vector<Index> distinct_list(Index bound, Index n, Rng& rng) {
  std::vector<Index> all(bound);
  for (Index k = 0; k < bound; ++k) all[k] = k;
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(n);
  return all;
}

class Assign : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(Assign);

TEST_P(Assign, EveryForm) {
  const ValueRange values = this->is_float() ? with_specials(0.05) : ValueRange{};
  const Type* t = this->type();
  Matrix C0 = random_matrix(t, 12, 14, 0.4, this->rng_, values);
  const std::vector<Index> I = distinct_list(12, 5, this->rng_), J = distinct_list(14, 6, this->rng_);
  std::vector<Index> sortedI = I;
  std::sort(sortedI.begin(), sortedI.end());
  Matrix A = random_matrix(t, 5, 6, 0.5, this->rng_, values);
  Matrix M = random_mask(12, 14, 0.5, this->rng_);
  const BinaryOp* plus = builtin_binary_op(BinaryOpcode::Plus, this->code());
  cross_check("C(I, J) = A", C0, [&](Matrix& C) { assign(C, nullptr, nullptr, A, I.data(), 5, J.data(), 6); });
  cross_check("C(sorted I, J) += A", C0, [&](Matrix& C) { assign(C, nullptr, plus, A, sortedI.data(), 5, J.data(), 6); });
  cross_check("C<M>(I, J) = A", C0, [&](Matrix& C) { assign(C, &M, nullptr, A, I.data(), 5, J.data(), 6); });
  Matrix At = random_matrix(t, 6, 5, 0.5, this->rng_, values);
  cross_check("C<!M,struct,replace>(I, J) += A'", C0, [&](Matrix& C) {
    Descriptor d = with_mask({}, MaskKind::StructuralComplement);
    d.replace = true;
    d.transpose_first = true;
    assign(C, &M, plus, At, I.data(), 5, J.data(), 6, d);
  });
  Matrix Full = random_matrix(t, 12, 14, 0.3, this->rng_, values);
  cross_check("C(ALL, ALL) = A", C0, [&](Matrix& C) { assign(C, nullptr, nullptr, Full, nullptr, 12, nullptr, 14); });
  cross_check("C(empty, J) = (0 x 6)", C0,
              [&](Matrix& C) { assign(C, nullptr, nullptr, Matrix(t, 0, 6), I.data(), 0, J.data(), 6); });
  // scalars
  const Scalar s = random_scalar(t, this->rng_, values);
  cross_check("C(I, J) = s", C0, [&](Matrix& C) { assign_scalar(C, nullptr, nullptr, s, I.data(), 5, J.data(), 6); });
  cross_check("C<M>(ALL, J) += s", C0, [&](Matrix& C) { assign_scalar(C, &M, plus, s, nullptr, 12, J.data(), 6); });
  cross_check("C(I, J) = empty scalar", C0,
              [&](Matrix& C) { assign_scalar(C, nullptr, nullptr, Scalar(t), I.data(), 5, J.data(), 6); });
  // rows and columns
  Vector urow = random_vector(t, 6, 0.6, this->rng_, values), ucol = random_vector(t, 5, 0.6, this->rng_, values);
  Vector mrow = random_mask_vector(14, 0.6, this->rng_), mcol = random_mask_vector(12, 0.6, this->rng_);
  cross_check("C(3, J) = u'", C0, [&](Matrix& C) { assign_row(C, nullptr, nullptr, urow, 3, J.data(), 6); });
  cross_check("C<m'>(3, J) += u'", C0, [&](Matrix& C) { assign_row(C, &mrow, plus, urow, 3, J.data(), 6); });
  cross_check("C(I, 7) = u", C0, [&](Matrix& C) { assign_column(C, nullptr, nullptr, ucol, I.data(), 5, 7); });
  cross_check("C<!m,replace>(I, 7) = u", C0, [&](Matrix& C) {
    Descriptor d = with_mask({}, MaskKind::ValuedComplement);
    d.replace = true;
    assign_column(C, &mcol, nullptr, ucol, I.data(), 5, 7, d);
  });
  // vectors
  Vector w0 = random_vector(t, 20, 0.5, this->rng_, values);
  Vector u = random_vector(t, 8, 0.6, this->rng_, values);
  Vector m = random_mask_vector(20, 0.5, this->rng_);
  const std::vector<Index> K = distinct_list(20, 8, this->rng_);
  cross_check("w(K) = u", w0, [&](Vector& w) { assign(w, nullptr, nullptr, u, K.data(), 8); });
  cross_check("w<m>(K) += u", w0, [&](Vector& w) { assign(w, &m, plus, u, K.data(), 8); });
  cross_check("w<!m,struct>(ALL) = s", w0, [&](Vector& w) {
    assign_scalar(w, &m, nullptr, s, nullptr, 20, with_mask({}, MaskKind::StructuralComplement));
  });
  cross_check("w(K) = empty scalar", w0, [&](Vector& w) { assign_scalar(w, nullptr, nullptr, Scalar(t), K.data(), 8); });
  // the constant on the mask's pattern (the region BFS's level<q> = depth builds), every mask kind that is not
  // complemented, with and without replace and accumulator
  for (MaskKind mk : {MaskKind::Valued, MaskKind::Structural})
    for (bool replace : {false, true}) {
      Descriptor d = with_mask({}, mk);
      d.replace = replace;
      const std::string how = name_of(mk) + (replace ? ", replace" : "");
      cross_check("w<m>(ALL) = s: " + how, w0, [&](Vector& w) { assign_scalar(w, &m, nullptr, s, nullptr, 20, d); });
      cross_check("C<M>(ALL, ALL) += s: " + how, C0,
                  [&](Matrix& C) { assign_scalar(C, &M, plus, s, nullptr, 12, nullptr, 14, d); });
    }
  // hypersparse output
  const Index n = 1000000;
  Matrix H0 = sparse_matrix_with(t, n, n, 100, this->rng_, values);
  const std::vector<Index> HI = random_indices(n, 5, this->rng_), HJ = random_indices(n, 6, this->rng_);
  Matrix HM = sparse_matrix_with(&types::Bool, n, n, 100, this->rng_);
  cross_check("10^6 x 10^6: C(I, J) = A", H0, [&](Matrix& C) { assign(C, nullptr, nullptr, A, HI.data(), 5, HJ.data(), 6); });
  cross_check("10^6 x 10^6: C<M>(I, J) += s", H0, [&](Matrix& C) { assign_scalar(C, &HM, plus, s, HI.data(), 5, HJ.data(), 6); });
}

class AssignFixed : public CrossBackend {};

TEST_F(AssignFixed, MaskAccumReplaceProduct) {
  Matrix C0 = random_matrix(&types::FP64, 10, 11, 0.4, rng_);
  Matrix A = random_matrix(&types::FP64, 6, 7, 0.5, rng_);
  const std::vector<Index> I = distinct_list(10, 6, rng_), J = distinct_list(11, 7, rng_);
  Matrix M = random_mask(10, 11, 0.5, rng_);
  const Scalar s = scalar_of(&types::FP64, 2.5);
  for (MaskKind mk : all_mask_kinds())
    for (AccumKind ak : all_accum_kinds())
      for (bool replace : {false, true}) {
        Descriptor d = with_mask({}, mk);
        d.replace = replace;
        const Matrix* mask = mk == MaskKind::None ? nullptr : &M;
        cross_check("C(I, J) = A: " + describe(mk, ak, replace), C0, [&](Matrix& C) {
          assign(C, mask, accum_of(ak, TypeCode::FP64), A, I.data(), 6, J.data(), 7, d);
        });
        cross_check("C(I, J) = s: " + describe(mk, ak, replace), C0, [&](Matrix& C) {
          assign_scalar(C, mask, accum_of(ak, TypeCode::FP64), s, I.data(), 6, J.data(), 7, d);
        });
      }
}

TEST_F(AssignFixed, AliasedInputs) {
  Matrix C0 = random_matrix(&types::Int32, 9, 9, 0.5, rng_);
  const std::vector<Index> perm = distinct_list(9, 9, rng_);
  const BinaryOp* minus = builtin_binary_op(BinaryOpcode::Minus, TypeCode::Int32);
  cross_check("C(perm, perm) = C", C0, [&](Matrix& C) { assign(C, nullptr, nullptr, C, perm.data(), 9, perm.data(), 9); });
  cross_check("C<C>(perm, ALL) -= C'", C0, [&](Matrix& C) {
    Descriptor d;
    d.transpose_first = true;
    assign(C, &C, minus, C, perm.data(), 9, nullptr, 9, d);
  });
  Vector w0 = random_vector(&types::Int32, 9, 0.5, rng_);
  cross_check("w<w>(perm) = w", w0, [&](Vector& w) { assign(w, &w, nullptr, w, perm.data(), 9); });
  Vector u = random_vector(&types::Int32, 9, 0.5, rng_);
  cross_check("C<u'>(2, perm) -= u' (u is mask and input)", C0,
              [&](Matrix& C) { assign_row(C, &u, minus, u, 2, perm.data(), 9); });
}

}  // namespace
}  // namespace xb
