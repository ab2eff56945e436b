// layers/sparse_linear.cpp: SparseLinear's initialization and passes (sparse_linear.hpp), each a few GraphBLAS calls
// on the thread's backend.
#include "sparse_linear.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "calls.hpp"

namespace snk::layers {
namespace {

using calls::plus_times;

// The batch size of M held as `layout`, after checking its type and its width against the layer's `features`
// (`expected` names them).
Index checked_batch(const char* what, const Matrix& M, BatchLayout layout, const Type* type, Index features,
                    const char* expected) {
  if (M.type() != type)
    throw Error(Info::DomainMismatch, std::string("SparseLinear::") + what + ": the batch must be " + type->name +
                                          " (the layer's type), not " + M.type()->name);
  const bool rows = layout == BatchLayout::Rows;
  const Index width = rows ? M.ncols() : M.nrows();
  if (width != features)
    throw Error(Info::DimensionMismatch, std::string("SparseLinear::") + what + ": the batch has " +
                                             std::to_string(width) + (rows ? " columns" : " rows (held by features)") +
                                             ", but the layer's " + expected + " are " + std::to_string(features));
  return rows ? M.nrows() : M.ncols();
}

// An output batch M as checked_batch checks an input, and holding the n rows of the call's input batch.
void check_output_batch(const char* what, const Matrix& M, BatchLayout layout, const Type* type, Index features,
                        const char* expected, Index n) {
  const Index m = checked_batch(what, M, layout, type, features, expected);
  if (m != n)
    throw Error(Info::DimensionMismatch, std::string("SparseLinear::") + what + ": the input holds a batch of " +
                                             std::to_string(n) + " but the output one of " + std::to_string(m));
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

namespace {
const Type* checked_type(const Type* t) {
  if (t != &types::FP32 && t != &types::FP64)
    throw Error(Info::DomainMismatch, std::string("SparseLinear: the value type must be FP32 or FP64, not ") +
                                          (t ? t->name : std::string("null")));
  return t;
}
}  // namespace

SparseLinear::SparseLinear(Index in_features, Index out_features, double density, std::uint64_t seed, bool bias,
                           const Type* type)
    : W_(checked_type(type), out_features, in_features),
      dW_(type, out_features, in_features),
      grad_x_(type, 0, in_features),
      grad_dy_(type, 0, out_features),
      b_(type, out_features),
      db_(type, out_features),
      has_bias_(bias),
      ones_(type, 0, 1) {
  if (in_features == 0 || out_features == 0)
    throw Error(Info::InvalidValue, "SparseLinear: in_features and out_features must be positive");
  if (!(density > 0.0 && density <= 1.0))
    throw Error(Info::InvalidValue, "SparseLinear: the density must lie in (0, 1], not " + std::to_string(density));
  const Index fan_in = std::max<Index>(1, static_cast<Index>(std::llround(density * static_cast<double>(in_features))));
  std::mt19937_64 rng(seed);
  const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
  std::uniform_real_distribution<float> weight(-bound, bound);
  std::vector<Index> I, J, rows;
  std::vector<float> X, B;   // drawn in float whatever the type, so an FP64 layer starts where an FP32 one does
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

Matrix SparseLinear::forward(const Matrix& X, BatchLayout x_layout, BatchLayout y_layout, bool with_bias) const {
  const Index n = checked_batch("forward", X, x_layout, type(), in_features(), "in_features");
  Matrix Y = empty_batch(type(), n, out_features(), y_layout);
  forward(X, x_layout, Y, y_layout, with_bias);
  return Y;
}

void SparseLinear::forward(const Matrix& X, BatchLayout x_layout, Matrix& Y, BatchLayout y_layout,
                           bool with_bias) const {
  const Type* t = type();
  const Index n = checked_batch("forward", X, x_layout, t, in_features(), "in_features");
  const bool x_rows = x_layout == BatchLayout::Rows, y_rows = y_layout == BatchLayout::Rows;
  check_output_batch("forward (Y)", Y, y_layout, t, out_features(), "out_features", n);
  Descriptor d;
  if (y_rows) {   // Y = X' W^T, X' = X or (Features) X^T
    d.transpose_first = !x_rows;
    d.transpose_second = true;
    mxm(Y, nullptr, nullptr, plus_times(t), X, W_, d);
  } else {   // Y^T = W X'^T, X'^T = X^T (Rows) or X
    d.transpose_second = x_rows;
    mxm(Y, nullptr, nullptr, plus_times(t), W_, X, d);
  }
  if (has_bias_ && with_bias && n > 0) {   // Y += ones(batch x 1) * b (1 x out), or Y^T += b^T * ones^T
    if (ones_.type() != t || ones_.nrows() != n) {
      std::vector<Index> i(n), zero(n, 0);
      for (Index k = 0; k < n; ++k) i[k] = k;
      const std::vector<float> one(n, 1.0f);
      Matrix ones(t, n, 1);
      ones.build(i.data(), zero.data(), one.data(), &types::FP32, i.size(), nullptr);
      ones_ = std::move(ones);
    }
    const BinaryOp* plus = builtin_binary_op(BinaryOpcode::Plus, t->code);
    if (y_rows) {
      mxm(Y, nullptr, plus, plus_times(t), ones_, b_.as_matrix());
    } else {
      Descriptor both;
      both.transpose_first = true;
      both.transpose_second = true;
      mxm(Y, nullptr, plus, plus_times(t), b_.as_matrix(), ones_, both);
    }
  }
}

void SparseLinear::check_backward(const Matrix& X, BatchLayout x_layout, const Matrix& dY,
                                  BatchLayout dy_layout) const {
  const Type* t = type();
  const Index n = checked_batch("backward (X)", X, x_layout, t, in_features(), "in_features");
  const Index m = checked_batch("backward (dY)", dY, dy_layout, t, out_features(), "out_features");
  if (n != m)
    throw Error(Info::DimensionMismatch, "SparseLinear::backward: X holds a batch of " + std::to_string(n) +
                                             " but dY one of " + std::to_string(m));
}

Matrix SparseLinear::backward(const Matrix& X, const Matrix& dY) {
  check_backward(X, BatchLayout::Rows, dY, BatchLayout::Rows);   // before anything is copied
  // dW's inputs, duplicated by the backend (a GPU's copies stay there); the caller may change X and dY after.
  const Type* t = type();
  Matrix x(t, X.nrows(), X.ncols()), dy(t, dY.nrows(), dY.ncols());
  apply(x, nullptr, nullptr, calls::unary(UnaryOpcode::Identity, t), X);
  apply(dy, nullptr, nullptr, calls::unary(UnaryOpcode::Identity, t), dY);
  return backward(std::move(x), BatchLayout::Rows, std::move(dy), BatchLayout::Rows, BatchLayout::Rows);
}

Matrix SparseLinear::backward(Matrix&& X, BatchLayout x_layout, Matrix&& dY, BatchLayout dy_layout,
                              BatchLayout dx_layout) {
  check_backward(X, x_layout, dY, dy_layout);
  const Index n = x_layout == BatchLayout::Rows ? X.nrows() : X.ncols();
  Matrix dX = empty_batch(type(), n, in_features(), dx_layout);
  backward(std::move(X), x_layout, std::move(dY), dy_layout, dX, dx_layout);
  return dX;
}

void SparseLinear::backward(Matrix&& X, BatchLayout x_layout, Matrix&& dY, BatchLayout dy_layout, Matrix& dX,
                            BatchLayout dx_layout) {
  check_backward(X, x_layout, dY, dy_layout);
  const Type* t = type();
  const bool x_rows = x_layout == BatchLayout::Rows, dy_rows = dy_layout == BatchLayout::Rows;
  const Index n = x_rows ? X.nrows() : X.ncols();
  check_output_batch("backward (dX)", dX, dx_layout, t, in_features(), "in_features", n);
  Descriptor d;
  if (dx_layout == BatchLayout::Rows) {   // dX = dY' W, dY' = dY or (Features) dY^T
    d.transpose_first = !dy_rows;
    mxm(dX, nullptr, nullptr, plus_times(t), dY, W_, d);
  } else {   // dX^T = W^T dY'^T, dY'^T = dY^T (Rows) or dY
    d.transpose_first = true;
    d.transpose_second = dy_rows;
    mxm(dX, nullptr, nullptr, plus_times(t), W_, dY, d);
  }
  if (has_bias_) {   // made in full before the layer's state changes: the sums over the batch of dY'
    Vector db(t, out_features());
    Descriptor columns;
    columns.transpose_first = dy_rows;
    reduce(db, nullptr, nullptr, *builtin_monoid(BinaryOpcode::Plus, t->code), dY, columns);
    db_ = std::move(db);
  }
  // Everything that can fail is done: the layer keeps X and dY for dW<W> = dY'^T X'.
  grad_descriptor_ = Descriptor();
  grad_descriptor_.transpose_first = dy_rows;
  grad_descriptor_.transpose_second = !x_rows;
  grad_x_ = std::move(X);
  grad_dy_ = std::move(dY);
  dW_pending_ = true;
}

const Matrix& SparseLinear::weight_grad() const {
  if (dW_pending_) {
    Matrix dW(type(), out_features(), in_features());
    Descriptor sampled = grad_descriptor_;   // dW<W> = dY'^T X', at W's stored positions only
    sampled.mask_structure = true;
    mxm(dW, &W_, nullptr, plus_times(type()), grad_dy_, grad_x_, sampled);
    dW_ = std::move(dW);
    dW_pending_ = false;
    drop_grad_operands();   // the duplicates are not needed once dW is made
  }
  return dW_;
}

void SparseLinear::drop_grad_operands() const {
  grad_x_ = Matrix(type(), 0, in_features());
  grad_dy_ = Matrix(type(), 0, out_features());
}

void SparseLinear::release_weight_grad() noexcept {
  dW_pending_ = false;   // first: nothing reads the operands once no dW is pending
  try {
    dW_.clear();
    drop_grad_operands();
  } catch (...) {   // an empty form could not be allocated: the old ones stay, unread, until the next backward
  }
}

Matrix& SparseLinear::weight_grad() { return const_cast<Matrix&>(static_cast<const SparseLinear&>(*this).weight_grad()); }

WeightGradInputs SparseLinear::weight_grad_inputs() const {
  if (!dW_pending_) return {};
  return {&grad_dy_, &grad_x_, grad_descriptor_};
}

std::size_t csr_bytes(const Matrix& M) {
  return static_cast<std::size_t>(M.nvals()) * (M.type()->size + sizeof(Index)) +
         static_cast<std::size_t>(M.nrows() + 1) * sizeof(Index);
}

}  // namespace snk::layers
