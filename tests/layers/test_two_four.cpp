// tests/layers/test_two_four.cpp: the 2:4 compressed form (layers/two_four.hpp) on fresh random inputs: the 16-bit
// conversions against the exact rounding rule, pruning's invariants (two of every four kept, the two of largest
// magnitude, ties to the lower column, the metadata codes), pruning of a sparse Matrix equal to pruning its dense
// form, the conversion back, the unrounded weights a prune-and-retrain run keeps, and the float64 reference product
// against a direct sum over the kept entries, at shapes whose column count is not a multiple of a group or of a
// metadata word; and, on the cuda backend, a layer whose weights carry the 2:4 hint (its forward on the sparse tensor
// cores) against the reference backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "layer_test_util.hpp"
#include "sparse_linear.hpp"
#include "two_four.hpp"

namespace {

using snk::Index;
using snk::layers::HalfType;
using snk::layers::TwoFourMatrix;

std::mt19937_64& rng() {
  static std::mt19937_64 g(static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  return g;
}

std::vector<float> random_dense(Index rows, Index cols, double zero_share) {
  std::vector<float> a(rows * cols);
  std::normal_distribution<float> v(0.0f, 1.0f);
  std::bernoulli_distribution zero(zero_share);
  for (float& x : a) x = zero(rng()) ? 0.0f : v(rng());
  return a;
}

// The dense rows x cols array `a` as a Matrix of `type` holding its non-zeros.
snk::Matrix matrix_of(const std::vector<float>& a, Index rows, Index cols, const snk::Type* type) {
  std::vector<Index> I, J;
  std::vector<double> X;
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j)
      if (a[i * cols + j] != 0.0f) {
        I.push_back(i);
        J.push_back(j);
        X.push_back(a[i * cols + j]);
      }
  snk::Matrix A(type, rows, cols);
  A.build(I.data(), J.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return A;
}

TEST(TwoFour, HalfConversionsRoundToNearestEven) {
  // BF16: exact for values with 8 significant bits; a tie rounds to the even neighbour.
  EXPECT_EQ(snk::layers::to_half(1.0f, HalfType::BF16), 0x3f80);
  EXPECT_EQ(snk::layers::to_half(1.0f + std::ldexp(1.0f, -8), HalfType::BF16), 0x3f80);   // tie, even below
  EXPECT_EQ(snk::layers::to_half(1.0f + 3 * std::ldexp(1.0f, -8), HalfType::BF16), 0x3f82);   // tie, even above
  EXPECT_EQ(snk::layers::to_half(-2.5f, HalfType::BF16), 0xc020);
  EXPECT_TRUE(std::isnan(snk::layers::from_half(snk::layers::to_half(NAN, HalfType::BF16), HalfType::BF16)));
  // FP16: 1 + 2^-11 is a tie (to 1), 65520 overflows to infinity, 2^-24 is the smallest subnormal.
  EXPECT_EQ(snk::layers::to_half(1.0f, HalfType::FP16), 0x3c00);
  EXPECT_EQ(snk::layers::to_half(1.0f + std::ldexp(1.0f, -11), HalfType::FP16), 0x3c00);
  EXPECT_EQ(snk::layers::to_half(65520.0f, HalfType::FP16), 0x7c00);
  EXPECT_EQ(snk::layers::to_half(std::ldexp(1.0f, -24), HalfType::FP16), 0x0001);
  // Round trips: the error of one rounding is at most the unit roundoff relative, 2^-8 (BF16, 8 significant bits) and
  // 2^-11 (FP16, 11 bits), in the normal range, and at most half the smallest FP16 subnormal below it.
  std::uniform_real_distribution<float> u(-100.0f, 100.0f);
  for (int k = 0; k < 10000; ++k) {
    const float x = u(rng());
    for (auto [t, eps] : {std::pair{HalfType::BF16, std::ldexp(1.0, -8)}, std::pair{HalfType::FP16, std::ldexp(1.0, -11)}})
      ASSERT_LE(std::fabs(snk::layers::from_half(snk::layers::to_half(x, t), t) - x), eps * std::fabs(x) + 3e-8) << x;
  }
}

TEST(TwoFour, PruningKeepsTheTwoLargestOfEveryFour) {
  for (Index cols : {Index(4), Index(37), Index(64), Index(100)}) {
    for (HalfType t : {HalfType::BF16, HalfType::FP16}) {
      const Index rows = 23;
      const std::vector<float> a = random_dense(rows, cols, 0.2);
      const TwoFourMatrix W = snk::layers::prune_two_four(a.data(), rows, cols, cols, t);
      ASSERT_EQ(W.padded_cols() % 32, 0);
      ASSERT_EQ(W.values.size(), static_cast<std::size_t>(rows * W.padded_cols() / 2));
      ASSERT_EQ(W.meta.size(), static_cast<std::size_t>(rows * W.padded_cols() / 32));
      for (Index i = 0; i < rows; ++i)
        for (Index g = 0; g < W.padded_cols() / 4; ++g) {
          int first, second;
          W.positions(i, g, first, second);
          ASSERT_LT(first, second) << "row " << i << " group " << g;
          ASSERT_LE(second, 3);
          // Exactly the kept positions hold values; each kept magnitude is at least every dropped one, and a dropped
          // one equal to a kept one lies above it (ties go to the lower column).
          for (int q = 0; q < 4; ++q) {
            const Index j = g * 4 + q;
            const float x = j < cols ? a[i * cols + j] : 0.0f;
            const bool kept = q == first || q == second;
            if (j < cols) {
              EXPECT_EQ(W.at(i, j), kept ? snk::layers::from_half(snk::layers::to_half(x, t), t) : 0.0f);
            }
            if (kept) continue;
            for (int s : {first, second}) {
              const float y = g * 4 + s < cols ? a[i * cols + g * 4 + s] : 0.0f;
              ASSERT_GE(std::fabs(y), std::fabs(x)) << "row " << i << " column " << j;
              if (std::fabs(y) == std::fabs(x)) ASSERT_LT(s, q) << "tie at row " << i << " column " << j;
            }
          }
        }
    }
  }
}

TEST(TwoFour, SparseMatrixPrunesAsItsDenseForm) {
  const Index rows = 31, cols = 75;
  const std::vector<float> a = random_dense(rows, cols, 0.7);
  const snk::Matrix A = matrix_of(a, rows, cols, &snk::types::FP64);
  const TwoFourMatrix from_sparse = snk::layers::prune_two_four(A, HalfType::BF16);
  const TwoFourMatrix from_dense = snk::layers::prune_two_four(a.data(), rows, cols, cols, HalfType::BF16);
  // Equal values everywhere; positions may differ only where a group's dropped entries are zeros.
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) ASSERT_EQ(from_sparse.at(i, j), from_dense.at(i, j)) << i << "," << j;
  // Back to a Matrix: the kept non-zeros, at most two per group.
  const snk::Matrix back = snk::layers::to_matrix(from_sparse);
  std::vector<Index> bi(back.nvals()), bj(back.nvals());
  std::vector<float> bx(back.nvals());
  back.extract_tuples(bi.data(), bj.data(), bx.data(), &snk::types::FP32);
  Index nonzeros = 0;
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) nonzeros += from_sparse.at(i, j) != 0.0f;
  ASSERT_EQ(back.nvals(), nonzeros);
  for (Index e = 0; e < back.nvals(); ++e) EXPECT_EQ(bx[e], from_sparse.at(bi[e], bj[e]));
  EXPECT_THROW(snk::layers::prune_two_four(a.data(), rows, cols, cols - 1, HalfType::BF16), snk::Error);
}

TEST(TwoFour, KeptWeightsForRetraining) {
  // A sparse FP32 W: each group keeps its present entries of the two largest magnitudes, values unrounded.
  const Index rows = 17, cols = 70;
  const std::vector<float> a = random_dense(rows, cols, 0.4);
  const snk::Matrix W = matrix_of(a, rows, cols, &snk::types::FP32);
  const snk::Matrix K = snk::layers::keep_two_of_four(W);
  ASSERT_EQ(K.type(), W.type());
  std::vector<Index> ki(K.nvals()), kj(K.nvals());
  std::vector<float> kx(K.nvals());
  K.extract_tuples(ki.data(), kj.data(), kx.data(), &snk::types::FP32);
  std::vector<int> kept(rows * cols, 0);
  for (Index e = 0; e < K.nvals(); ++e) {
    ASSERT_EQ(kx[e], a[ki[e] * cols + kj[e]]) << "a kept value changed";
    kept[ki[e] * cols + kj[e]] = 1;
  }
  for (Index i = 0; i < rows; ++i)
    for (Index g = 0; g * 4 < cols; ++g) {
      int present = 0, count = 0;
      float smallest_kept = INFINITY, largest_dropped = 0;
      for (Index j = g * 4; j < std::min(cols, g * 4 + 4); ++j) {
        const float x = a[i * cols + j];
        present += x != 0.0f;
        count += kept[i * cols + j];
        if (kept[i * cols + j]) smallest_kept = std::min(smallest_kept, std::fabs(x));
        else if (x != 0.0f) largest_dropped = std::max(largest_dropped, std::fabs(x));
      }
      ASSERT_EQ(count, std::min(present, 2)) << "row " << i << " group " << g;
      if (count == 2) ASSERT_GE(smallest_kept, largest_dropped) << "row " << i << " group " << g;
    }
  // A dense W keeps exactly the positions of its 2:4 form.
  const std::vector<float> d = random_dense(rows, cols, 0.0);
  const snk::Matrix D = matrix_of(d, rows, cols, &snk::types::FP32);
  const TwoFourMatrix F = snk::layers::prune_two_four(d.data(), rows, cols, cols, HalfType::BF16);
  const snk::Matrix KD = snk::layers::keep_two_of_four(D);
  std::vector<Index> di(KD.nvals()), dj(KD.nvals());
  std::vector<float> dx(KD.nvals());
  KD.extract_tuples(di.data(), dj.data(), dx.data(), &snk::types::FP32);
  Index stored = 0;
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) stored += F.at(i, j) != 0.0f;
  ASSERT_EQ(KD.nvals(), stored);
  for (Index e = 0; e < KD.nvals(); ++e) EXPECT_NE(F.at(di[e], dj[e]), 0.0f) << di[e] << "," << dj[e];
}

TEST(TwoFour, ReferenceProductSumsTheKeptEntries) {
  const Index rows = 19, cols = 45, batch = 3, ldx = 50, ldy = 21;
  const std::vector<float> a = random_dense(rows, cols, 0.1);
  const TwoFourMatrix W = snk::layers::prune_two_four(a.data(), rows, cols, cols, HalfType::FP16);
  const std::vector<float> x = random_dense(ldx, batch, 0.0);
  std::vector<double> y(ldy * batch, std::nan(""));
  snk::layers::two_four_reference(W, x.data(), batch, ldx, y.data(), ldy);
  for (Index b = 0; b < batch; ++b)
    for (Index i = 0; i < rows; ++i) {
      double want = 0;
      for (Index j = 0; j < cols; ++j) want += static_cast<double>(W.at(i, j)) * static_cast<double>(x[b * ldx + j]);
      EXPECT_NEAR(y[b * ldy + i], want, 1e-12 * (1 + std::fabs(want))) << i << "," << b;
    }
}

// A layer whose weights carry the 2:4 hint runs its forward product (X W^T) on the sparse tensor cores on the cuda
// backend: W's device copy holds its BF16 2:4 form, and Y is within 2^-7 of sum |x w| of the reference backend's
// (X and W rounded to BF16, sums in FP32). Skips where no cuda backend is usable.
TEST(TwoFour, HintedLayerForwardOnTheGpu) {
  const auto all = snk::available_backends();
  if (std::find(all.begin(), all.end(), "cuda") == all.end()) GTEST_SKIP() << "no usable cuda backend";
  snk::layers::SparseLinear layer(256, 96, 1.0, rng()());
  layer.weight() = snk::layers::keep_two_of_four(layer.weight());
  layer.weight().set_two_four_hint(snk::Matrix::TwoFourHint::BF16);
  layer_test::Dense x;
  const snk::Matrix X = layer_test::random_batch(40, 256, x);
  snk::Matrix want(&snk::types::FP32, 0, 0), got(&snk::types::FP32, 0, 0);
  {
    snk::BackendScope scope("reference");
    want = layer.forward(X);
  }
  {
    snk::BackendScope scope("cuda");
    got = layer.forward(X);
  }
  ASSERT_NE(layer.weight().device_copy(), nullptr);
  EXPECT_NE(layer.weight().device_copy()->describe().find("2:4 form (BF16)"), std::string::npos)
      << layer.weight().device_copy()->describe();
  // sum |x w| per output: |X| |W|^T on the reference backend.
  snk::Matrix absW = layer.weight(), absX = X;
  const snk::UnaryOp& abs = *snk::builtin_unary_op(snk::UnaryOpcode::Abs, snk::TypeCode::FP32);
  snk::apply(absW, nullptr, nullptr, abs, layer.weight(), {});
  snk::apply(absX, nullptr, nullptr, abs, X, {});
  snk::Matrix bound(&snk::types::FP32, 40, 96);
  {
    snk::BackendScope scope("reference");
    snk::Descriptor tb;
    tb.transpose_second = true;
    snk::mxm(bound, nullptr, nullptr, *snk::builtin_semiring(snk::BinaryOpcode::Plus, snk::BinaryOpcode::Times,
                                                           snk::TypeCode::FP32), absX, absW, tb);
  }
  const auto g = layer_test::entries(got), w = layer_test::entries(want), b = layer_test::entries(bound);
  ASSERT_EQ(g.size(), w.size());
  ASSERT_EQ(g.size(), b.size());
  int bad = 0;
  for (const auto& [at, v] : w) {
    const double have = g.count(at) ? g.at(at) : NAN, sum = b.count(at) ? b.at(at) : 0.0;
    if (!(std::fabs(have - v) <= std::ldexp(1.0, -7) * sum + 1e-6) && bad++ < 5)
      ADD_FAILURE() << "Y(" << at.first << ", " << at.second << ") = " << have << ", reference " << v
                    << " (sum |x w| " << sum << ")";
  }
}

}  // namespace
