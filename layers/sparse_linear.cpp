// layers/sparse_linear.cpp: SparseLinear's initialization and passes, gradient clipping, and SgdMomentum
// (sparse_linear.hpp), each a few GraphBLAS calls on the thread's backend.
#include "sparse_linear.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace snk::layers {
namespace {

const Semiring& plus_times() { return *builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP32); }
const BinaryOp& op(BinaryOpcode code) { return *builtin_binary_op(code, TypeCode::FP32); }

Scalar fp32(float v) {
  Scalar s(&types::FP32);
  s.set(&v, &types::FP32);
  return s;
}

void check_batch(const char* what, const Matrix& M, Index ncols, const char* expected) {
  if (M.type() != &types::FP32)
    throw Error(Info::DomainMismatch, std::string("SparseLinear::") + what + ": the batch must be FP32, not " +
                                          M.type()->name);
  if (M.ncols() != ncols)
    throw Error(Info::DimensionMismatch, std::string("SparseLinear::") + what + ": the batch has " +
                                             std::to_string(M.ncols()) + " columns, but the layer's " + expected +
                                             " are " + std::to_string(ncols));
}

// k distinct values of 0 .. n-1, increasing (Floyd's sampling: k draws whatever n is).
std::vector<Index> distinct_sorted(Index k, Index n, std::mt19937_64& rng) {
  std::unordered_set<Index> chosen;
  for (Index j = n - k; j < n; ++j) {
    const Index t = std::uniform_int_distribution<Index>(0, j)(rng);
    chosen.insert(chosen.count(t) ? j : t);
  }
  std::vector<Index> out(chosen.begin(), chosen.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

SparseLinear::SparseLinear(Index in_features, Index out_features, double density, std::uint64_t seed, bool bias)
    : W_(&types::FP32, out_features, in_features),
      dW_(&types::FP32, out_features, in_features),
      b_(&types::FP32, out_features),
      db_(&types::FP32, out_features),
      has_bias_(bias) {
  if (in_features == 0 || out_features == 0)
    throw Error(Info::InvalidValue, "SparseLinear: in_features and out_features must be positive");
  if (!(density > 0.0 && density <= 1.0))
    throw Error(Info::InvalidValue, "SparseLinear: the density must lie in (0, 1], not " + std::to_string(density));
  const Index fan_in = std::max<Index>(1, static_cast<Index>(std::llround(density * static_cast<double>(in_features))));
  std::mt19937_64 rng(seed);
  const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
  std::uniform_real_distribution<float> weight(-bound, bound);
  std::vector<Index> I, J, rows;
  std::vector<float> X, B;
  I.reserve(out_features * fan_in);
  J.reserve(out_features * fan_in);
  X.reserve(out_features * fan_in);
  for (Index j = 0; j < out_features; ++j) {
    for (Index c : distinct_sorted(fan_in, in_features, rng)) {
      I.push_back(j);
      J.push_back(c);
      X.push_back(weight(rng));
    }
    rows.push_back(j);
    B.push_back(weight(rng));
  }
  W_.build(I.data(), J.data(), X.data(), &types::FP32, I.size(), nullptr);
  if (has_bias_) b_.build(rows.data(), B.data(), &types::FP32, rows.size(), nullptr);
}

Matrix SparseLinear::forward(const Matrix& X) const {
  check_batch("forward", X, in_features(), "in_features");
  Matrix Y(&types::FP32, X.nrows(), out_features());
  Descriptor t;
  t.transpose_second = true;
  mxm(Y, nullptr, nullptr, plus_times(), X, W_, t);
  if (has_bias_ && X.nrows() > 0) {   // Y += ones(batch x 1) * b (1 x out)
    std::vector<Index> i(X.nrows()), zero(X.nrows(), 0);
    for (Index k = 0; k < X.nrows(); ++k) i[k] = k;
    const std::vector<float> one(X.nrows(), 1.0f);
    Matrix ones(&types::FP32, X.nrows(), 1);
    ones.build(i.data(), zero.data(), one.data(), &types::FP32, i.size(), nullptr);
    mxm(Y, nullptr, &op(BinaryOpcode::Plus), plus_times(), ones, b_.as_matrix());
  }
  return Y;
}

Matrix SparseLinear::backward(const Matrix& X, const Matrix& dY) {
  check_batch("backward (X)", X, in_features(), "in_features");
  check_batch("backward (dY)", dY, out_features(), "out_features");
  if (X.nrows() != dY.nrows())
    throw Error(Info::DimensionMismatch, "SparseLinear::backward: X has " + std::to_string(X.nrows()) +
                                             " rows but dY has " + std::to_string(dY.nrows()));
  Matrix dX(&types::FP32, dY.nrows(), in_features());
  mxm(dX, nullptr, nullptr, plus_times(), dY, W_);
  Matrix dW(&types::FP32, out_features(), in_features());
  Descriptor sampled;   // dW<W> = dY^T X, at W's stored positions only
  sampled.transpose_first = true;
  sampled.mask_structure = true;
  mxm(dW, &W_, nullptr, plus_times(), dY, X, sampled);
  dW_ = std::move(dW);
  if (has_bias_) {
    Vector db(&types::FP32, out_features());
    Descriptor columns;
    columns.transpose_first = true;
    reduce(db, nullptr, nullptr, *builtin_monoid(BinaryOpcode::Plus, TypeCode::FP32), dY, columns);
    db_ = std::move(db);
  }
  return dX;
}

namespace {
// The sum of the squares of a gradient's values.
double sum_of_squares(const Matrix& g) {
  Matrix sq(&types::FP32, g.nrows(), g.ncols());
  ewise_mult(sq, nullptr, nullptr, op(BinaryOpcode::Times), g, g);
  Scalar s(&types::FP64);
  reduce(s, nullptr, *builtin_monoid(BinaryOpcode::Plus, TypeCode::FP64), sq);
  double v = 0;
  s.get(&v, &types::FP64);
  return v;
}
}  // namespace

double clip_grad_norm(const std::vector<SparseLinear*>& layers, double max_norm) {
  if (!(max_norm > 0.0))
    throw Error(Info::InvalidValue, "clip_grad_norm: max_norm must be positive, not " + std::to_string(max_norm));
  double total = 0;
  for (const SparseLinear* l : layers) {
    total += sum_of_squares(l->weight_grad());
    if (l->has_bias()) total += sum_of_squares(l->bias_grad().as_matrix());
  }
  const double norm = std::sqrt(total);
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0) {
    const Scalar c = fp32(static_cast<float>(coef));
    for (SparseLinear* l : layers) {
      apply_bind_second(l->weight_grad(), nullptr, nullptr, op(BinaryOpcode::Times), l->weight_grad(), c);
      if (l->has_bias())
        apply_bind_second(l->bias_grad(), nullptr, nullptr, op(BinaryOpcode::Times), l->bias_grad(), c);
    }
  }
  return norm;
}

void SgdMomentum::step(SparseLinear& layer) {
  Matrix& W = layer.weight();
  // g = dW + weight_decay * W (on W's pattern: dW's lies inside it).
  Matrix g = layer.weight_grad();
  if (weight_decay_ != 0.0f) apply_bind_second(g, nullptr, &op(BinaryOpcode::Plus), op(BinaryOpcode::Times), W,
                                               fp32(weight_decay_));
  if (!started_) {
    vw_ = std::move(g);
    if (layer.has_bias()) vb_ = layer.bias_grad();
    started_ = true;
  } else {   // v = momentum * v + g
    apply_bind_second(vw_, nullptr, nullptr, op(BinaryOpcode::Times), vw_, fp32(momentum_));
    ewise_add(vw_, nullptr, nullptr, op(BinaryOpcode::Plus), vw_, g);
    if (layer.has_bias()) {
      apply_bind_second(vb_, nullptr, nullptr, op(BinaryOpcode::Times), vb_, fp32(momentum_));
      ewise_add(vb_, nullptr, nullptr, op(BinaryOpcode::Plus), vb_, layer.bias_grad());
    }
  }
  // W -= lr * v (the accumulator subtracts; v's pattern lies inside W's, so W keeps its non-zero count).
  apply_bind_second(W, nullptr, &op(BinaryOpcode::Minus), op(BinaryOpcode::Times), vw_, fp32(lr_));
  if (layer.has_bias())
    apply_bind_second(layer.bias(), nullptr, &op(BinaryOpcode::Minus), op(BinaryOpcode::Times), vb_, fp32(lr_));
}

}  // namespace snk::layers
