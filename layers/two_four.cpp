// layers/two_four.cpp: the 2:4 compressed form, magnitude pruning into it, the conversion back, and the float64 host
// reference of its product (two_four.hpp states the layout).
#include "two_four.hpp"

#include <cmath>
#include <cstring>
#include <string>

namespace snk::layers {

std::uint16_t to_half(float x, HalfType t) {
  if (t == HalfType::FP16) {
    const _Float16 h = static_cast<_Float16>(x);   // IEEE binary16, round to nearest even
    std::uint16_t bits;
    std::memcpy(&bits, &h, sizeof bits);
    return bits;
  }
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if (std::isnan(x)) return static_cast<std::uint16_t>((u >> 16) | 0x40);   // stays a (quiet) NaN
  u += 0x7fff + ((u >> 16) & 1);                                           // round to nearest even
  return static_cast<std::uint16_t>(u >> 16);
}

float from_half(std::uint16_t h, HalfType t) {
  if (t == HalfType::FP16) {
    _Float16 v;
    std::memcpy(&v, &h, sizeof v);
    return static_cast<float>(v);
  }
  const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

void TwoFourMatrix::positions(Index i, Index g, int& first, int& second) const {
  const std::uint32_t code = (meta[i * (padded_cols() / 32) + g / 8] >> ((g % 8) * 4)) & 0xf;
  first = static_cast<int>(code & 3);
  second = static_cast<int>(code >> 2);
}

float TwoFourMatrix::at(Index i, Index j) const {
  int first, second;
  positions(i, j / 4, first, second);
  const int q = static_cast<int>(j % 4);
  if (q == first) return kept(i, j / 4, 0);
  if (q == second) return kept(i, j / 4, 1);
  return 0.0f;
}

namespace {

// The two positions of a group of four that pruning keeps: present entries before absent ones, then the larger
// magnitude, then the lower position (strict comparisons keep the first); returned in increasing order.
template <class T>
void two_largest(const T x[4], const bool present[4], int& first, int& second) {
  auto above = [&](int q, int r) {   // q ranks above r
    if (present[q] != present[r]) return present[q];
    return std::fabs(x[q]) > std::fabs(x[r]);
  };
  int a = 0;
  for (int q = 1; q < 4; ++q)
    if (above(q, a)) a = q;
  int b = a == 0 ? 1 : 0;
  for (int q = 0; q < 4; ++q)
    if (q != a && above(q, b)) b = q;
  first = a < b ? a : b;
  second = a < b ? b : a;
}

// Rows are given one at a time as cols floats (absent entries zero); each is pruned into row i of W.
void prune_row(TwoFourMatrix& W, Index i, const float* row) {
  const Index K = W.padded_cols(), groups = K / 4;
  std::uint16_t* v = W.values.data() + i * (K / 2);
  std::uint32_t* m = W.meta.data() + i * (K / 32);
  for (Index g = 0; g < groups; ++g) {
    float x[4];
    bool present[4];
    for (int q = 0; q < 4; ++q) {
      present[q] = g * 4 + q < W.cols;
      x[q] = present[q] ? row[g * 4 + q] : 0.0f;
    }
    int first, second;
    two_largest(x, present, first, second);
    v[g * 2] = to_half(x[first], W.type);
    v[g * 2 + 1] = to_half(x[second], W.type);
    m[g / 8] |= static_cast<std::uint32_t>(first | (second << 2)) << ((g % 8) * 4);
  }
}

TwoFourMatrix shaped(Index rows, Index cols, HalfType type) {
  TwoFourMatrix W;
  W.rows = rows;
  W.cols = cols;
  W.type = type;
  W.values.assign(rows * (W.padded_cols() / 2), 0);
  W.meta.assign(rows * (W.padded_cols() / 32), 0);
  return W;
}

}  // namespace

TwoFourMatrix prune_two_four(const float* dense, Index rows, Index cols, Index ld, HalfType type) {
  if (ld < cols)
    throw Error(Info::InvalidValue, "prune_two_four: the leading dimension " + std::to_string(ld) +
                                        " is less than the column count " + std::to_string(cols));
  TwoFourMatrix W = shaped(rows, cols, type);
  for (Index i = 0; i < rows; ++i) prune_row(W, i, dense + i * ld);
  return W;
}

TwoFourMatrix prune_two_four(const Matrix& A, HalfType type) {
  TwoFourMatrix W = shaped(A.nrows(), A.ncols(), type);
  const Index n = A.nvals();
  std::vector<Index> I(n), J(n);
  std::vector<float> X(n);
  A.extract_tuples(I.data(), J.data(), X.data(), &types::FP32);   // in row order
  std::vector<float> row(A.ncols(), 0.0f);
  Index e = 0;
  for (Index i = 0; i < A.nrows(); ++i) {
    const Index begin = e;
    for (; e < n && I[e] == i; ++e) row[J[e]] = X[e];
    prune_row(W, i, row.data());
    for (Index k = begin; k < e; ++k) row[J[k]] = 0.0f;
  }
  return W;
}

Matrix to_matrix(const TwoFourMatrix& W) {
  std::vector<Index> I, J;
  std::vector<float> X;
  for (Index i = 0; i < W.rows; ++i)
    for (Index g = 0; g < W.padded_cols() / 4; ++g) {
      int pos[2];
      W.positions(i, g, pos[0], pos[1]);
      for (int s = 0; s < 2; ++s) {
        const float v = W.kept(i, g, s);
        const Index j = g * 4 + pos[s];
        if (v == 0.0f || j >= W.cols) continue;
        I.push_back(i);
        J.push_back(j);
        X.push_back(v);
      }
    }
  Matrix M(&types::FP32, W.rows, W.cols);
  M.build(I.data(), J.data(), X.data(), &types::FP32, I.size(), nullptr);
  return M;
}

Matrix keep_two_of_four(const Matrix& W) {
  const Index n = W.nvals();
  std::vector<Index> I(n), J(n);
  std::vector<double> X(n);
  W.extract_tuples(I.data(), J.data(), X.data(), &types::FP64);   // row order, columns increasing within a row
  std::vector<Index> KI, KJ;
  std::vector<double> KX;
  for (Index e = 0; e < n;) {
    // The entries of one group: same row, same column / 4.
    Index end = e;
    while (end < n && I[end] == I[e] && J[end] / 4 == J[e] / 4) ++end;
    double x[4] = {0, 0, 0, 0};
    bool present[4] = {false, false, false, false};
    for (Index k = e; k < end; ++k) {
      x[J[k] % 4] = X[k];
      present[J[k] % 4] = true;
    }
    int first, second;
    two_largest(x, present, first, second);
    for (int q : {first, second}) {
      if (!present[q]) continue;
      KI.push_back(I[e]);
      KJ.push_back(J[e] / 4 * 4 + q);
      KX.push_back(x[q]);
    }
    e = end;
  }
  Matrix K(W.type(), W.nrows(), W.ncols());
  K.build(KI.data(), KJ.data(), KX.data(), &types::FP64, KI.size(), nullptr);
  return K;
}

void two_four_reference(const TwoFourMatrix& W, const float* x, Index batch, Index ldx, double* y, Index ldy) {
  const Index K = W.padded_cols();
  for (Index b = 0; b < batch; ++b)
    for (Index i = 0; i < W.rows; ++i) {
      double acc = 0.0;
      for (Index g = 0; g < K / 4; ++g) {
        int pos[2];
        W.positions(i, g, pos[0], pos[1]);
        for (int s = 0; s < 2; ++s) {
          const Index k = g * 4 + pos[s];
          if (k >= W.cols) continue;
          acc += static_cast<double>(W.kept(i, g, s)) * static_cast<double>(x[b * ldx + k]);
        }
      }
      y[b * ldy + i] = acc;
    }
}

}  // namespace snk::layers
