// tests/core/crossbackend/test_extract.cpp: GrB_extract on the backend under test against reference:
// sub-matrix C = A(I, J), sub-vector w = u(I) and column w = A(I, j).
//
// Every type, with index lists that are GrB_ALL, sorted, unsorted, repeating, empty, and on hypersparse
// 10^6 x 10^6 inputs; the descriptor's transpose of A; masks, accumulators and replace; and outputs aliasing
// the input (C = C(I, J) on a square C with |I| = |J| = n). (The kokkos backend declines extract: its cases
// run on reference in both runs, and what they check is the front-end and the mask step around it.)
#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

// `n` indices below `bound`, possibly repeated and unsorted.
std::vector<Index> random_list(Index bound, Index n, Rng& rng) {
  std::vector<Index> out(n);
  std::uniform_int_distribution<Index> pick(0, bound - 1);
  for (auto& i : out) i = pick(rng);
  return out;
}

class Extract : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(Extract);

TEST_P(Extract, IndexListsAndShapes) {
  const ValueRange values = this->is_float() ? with_specials(0.05) : ValueRange{};
  Matrix A = random_matrix(this->type(), 12, 15, 0.4, this->rng_, values);
  const std::vector<Index> I = random_list(12, 7, this->rng_), J = random_list(15, 9, this->rng_);
  const std::vector<Index> sortedI{1, 3, 4, 8, 11}, reversedJ{14, 10, 7, 2, 0};
  cross_check("A(ALL, ALL)", Matrix(this->type(), 12, 15),
              [&](Matrix& C) { extract(C, nullptr, nullptr, A, nullptr, 12, nullptr, 15); });
  cross_check("A(I, J) unsorted with repeats", Matrix(this->type(), 7, 9),
              [&](Matrix& C) { extract(C, nullptr, nullptr, A, I.data(), 7, J.data(), 9); });
  cross_check("A(sorted I, reversed J)", Matrix(this->type(), 5, 5),
              [&](Matrix& C) { extract(C, nullptr, nullptr, A, sortedI.data(), 5, reversedJ.data(), 5); });
  cross_check("A(I, ALL)", Matrix(this->type(), 7, 15),
              [&](Matrix& C) { extract(C, nullptr, nullptr, A, I.data(), 7, nullptr, 15); });
  cross_check("A(empty, J)", Matrix(this->type(), 0, 9),
              [&](Matrix& C) { extract(C, nullptr, nullptr, A, I.data(), 0, J.data(), 9); });
  Descriptor tr;
  tr.transpose_first = true;
  cross_check("A'(J, I)", Matrix(this->type(), 9, 7),
              [&](Matrix& C) { extract(C, nullptr, nullptr, A, J.data(), 9, I.data(), 7, tr); });
  Matrix M = random_mask(7, 9, 0.5, this->rng_);
  cross_check("C<!M> += A(I, J)", random_matrix(this->type(), 7, 9, 0.5, this->rng_, values), [&](Matrix& C) {
    extract(C, &M, builtin_binary_op(BinaryOpcode::Plus, this->code()), A, I.data(), 7, J.data(), 9,
            with_mask({}, MaskKind::ValuedComplement));
  });
  // vectors and columns
  Vector u = random_vector(this->type(), 20, 0.5, this->rng_, values);
  const std::vector<Index> K = random_list(20, 11, this->rng_);
  cross_check("u(K)", Vector(this->type(), 11), [&](Vector& w) { extract(w, nullptr, nullptr, u, K.data(), 11); });
  cross_check("u(ALL)", Vector(this->type(), 20), [&](Vector& w) { extract(w, nullptr, nullptr, u, nullptr, 20); });
  cross_check("A(I, 4)", Vector(this->type(), 7),
              [&](Vector& w) { extract_column(w, nullptr, nullptr, A, I.data(), 7, 4); });
  cross_check("A'(J, 2) (row 2 of A)", Vector(this->type(), 9),
              [&](Vector& w) { extract_column(w, nullptr, nullptr, A, J.data(), 9, 2, tr); });
  // hypersparse
  const Index n = 1000000;
  const std::vector<Index> idx = random_indices(n, 30, this->rng_);
  Matrix H = sparse_matrix_on(this->type(), n, n, idx, idx, 100, this->rng_, values);
  std::vector<Index> HI(idx.begin(), idx.begin() + 20), HJ(idx.begin() + 5, idx.end());
  HI.push_back(n - 1);
  cross_check("10^6 x 10^6 (I, J)", Matrix(this->type(), HI.size(), HJ.size()),
              [&](Matrix& C) { extract(C, nullptr, nullptr, H, HI.data(), HI.size(), HJ.data(), HJ.size()); });
  cross_check("10^6 x 10^6 (ALL, ALL)", Matrix(this->type(), n, n),
              [&](Matrix& C) { extract(C, nullptr, nullptr, H, nullptr, n, nullptr, n); });
  cross_check("10^6 x 10^6 (I, j)", Vector(this->type(), HI.size()),
              [&](Vector& w) { extract_column(w, nullptr, nullptr, H, HI.data(), HI.size(), idx[7]); });
}

class ExtractFixed : public CrossBackend {};

TEST_F(ExtractFixed, MaskAccumReplaceProduct) {
  Matrix A = random_matrix(&types::Int32, 14, 14, 0.4, rng_);
  const std::vector<Index> I = random_list(14, 8, rng_), J = random_list(14, 10, rng_);
  Matrix C0 = random_matrix(&types::Int32, 8, 10, 0.4, rng_);
  Matrix M = random_mask(8, 10, 0.5, rng_);
  for (MaskKind mk : all_mask_kinds())
    for (AccumKind ak : all_accum_kinds())
      for (bool replace : {false, true}) {
        Descriptor d = with_mask({}, mk);
        d.replace = replace;
        cross_check("A(I, J): " + describe(mk, ak, replace), C0, [&](Matrix& C) {
          extract(C, mk == MaskKind::None ? nullptr : &M, accum_of(ak, TypeCode::Int32), A, I.data(), 8, J.data(), 10, d);
        });
      }
}

TEST_F(ExtractFixed, AliasedOutputs) {
  Matrix C0 = random_matrix(&types::FP64, 10, 10, 0.5, rng_);
  std::vector<Index> perm{9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
  cross_check("C = C(perm, perm)", C0,
              [&](Matrix& C) { extract(C, nullptr, nullptr, C, perm.data(), 10, perm.data(), 10); });
  cross_check("C<C> -= C'(perm, ALL)", C0, [&](Matrix& C) {
    Descriptor d;
    d.transpose_first = true;
    extract(C, &C, builtin_binary_op(BinaryOpcode::Minus, TypeCode::FP64), C, perm.data(), 10, nullptr, 10, d);
  });
  Vector w0 = random_vector(&types::FP64, 10, 0.5, rng_);
  cross_check("w = w(perm)", w0, [&](Vector& w) { extract(w, nullptr, nullptr, w, perm.data(), 10); });
}

}  // namespace
}  // namespace xb
