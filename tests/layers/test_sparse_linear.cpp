// tests/layers/test_sparse_linear.cpp: SparseLinear and SgdMomentum (sparse_linear.hpp, optim.hpp) against float64
// host computations on fresh random inputs, on every usable backend (reference, kokkos, and cuda where a GPU is present):
// the initialization's invariants (each neuron's fan-in, the weight scale), forward, the three gradients (dW only at
// W's positions; made on request or within an optimizer's step), every layout of the batch operands (rows or
// features by batch), two momentum steps with weight decay (the non-zero
// count kept), gradient clipping, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "layer_test_util.hpp"
#include "optim.hpp"
#include "sparse_linear.hpp"

namespace {

using snk::Index;
using snk::Matrix;
using snk::layers::SgdMomentum;
using snk::layers::SparseLinear;
using layer_test::Dense;
using layer_test::entries;
using layer_test::random_batch;
using layer_test::rng;

Dense dense(const Matrix& M) {
  Dense out(M.nrows(), std::vector<double>(M.ncols(), 0.0));
  for (const auto& [at, x] : entries(M)) out[at.first][at.second] = x;
  return out;
}

std::vector<double> values_of(const snk::Vector& v) {
  std::vector<double> out(v.size(), 0.0);
  for (const auto& [at, x] : entries(v.as_matrix())) out[at.second] = x;
  return out;
}

// |got - want| within fp32 rounding of a sum whose terms' magnitudes add up to `scale`.
void expect_close(double got, double want, double scale, const std::string& what) {
  EXPECT_LE(std::fabs(got - want), 1e-5 * (scale + 1.0)) << what << ": got " << got << ", want " << want;
}

std::vector<std::string> backends() {
  std::vector<std::string> out;
  for (const std::string& b : snk::available_backends()) out.push_back(b);
  return out;
}

TEST(SparseLinear, InitializationFanInAndScale) {
  const SparseLinear layer(200, 50, 0.1, rng()());
  const auto W = entries(layer.weight());
  std::vector<Index> fan_in(50, 0);
  for (const auto& [at, x] : W) {
    ++fan_in[at.first];
    EXPECT_LE(std::fabs(x), 1.0 / std::sqrt(20.0) + 1e-7);
  }
  for (Index j = 0; j < 50; ++j) EXPECT_EQ(fan_in[j], 20u) << "neuron " << j;
  EXPECT_EQ(layer.bias().nvals(), 50u);
  // A density so small that round(density * in) is 0 still gives each neuron one input.
  const SparseLinear thin(10, 4, 0.01, rng()());
  EXPECT_EQ(thin.weight().nvals(), 4u);
}

TEST(SparseLinear, ForwardAndBackwardEqualTheHostComputation) {
  const Index in = 37, out = 23, batch = 9;
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    SparseLinear layer(in, out, 0.3, rng()());
    Dense x, dy;
    const Matrix X = random_batch(batch, in, x), dY = random_batch(batch, out, dy);
    const Dense w = dense(layer.weight());
    const std::vector<double> b = values_of(layer.bias());
    const Dense y = dense(layer.forward(X));
    for (Index i = 0; i < batch; ++i)
      for (Index j = 0; j < out; ++j) {
        double want = b[j], scale = std::fabs(b[j]);
        for (Index k = 0; k < in; ++k) {
          want += x[i][k] * w[j][k];
          scale += std::fabs(x[i][k] * w[j][k]);
        }
        expect_close(y[i][j], want, scale, backend + ": Y(" + std::to_string(i) + "," + std::to_string(j) + ")");
      }
    const Dense dx = dense(layer.backward(X, dY));
    for (Index i = 0; i < batch; ++i)
      for (Index k = 0; k < in; ++k) {
        double want = 0, scale = 0;
        for (Index j = 0; j < out; ++j) {
          want += dy[i][j] * w[j][k];
          scale += std::fabs(dy[i][j] * w[j][k]);
        }
        expect_close(dx[i][k], want, scale, backend + ": dX(" + std::to_string(i) + "," + std::to_string(k) + ")");
      }
    // dW exactly at W's positions.
    const auto W = entries(layer.weight()), dW = entries(layer.weight_grad());
    ASSERT_EQ(dW.size(), W.size()) << backend << ": dW must have W's pattern";
    for (const auto& [at, g] : dW) {
      ASSERT_TRUE(W.count(at)) << backend << ": dW has an entry W lacks";
      double want = 0, scale = 0;
      for (Index i = 0; i < batch; ++i) {
        want += dy[i][at.first] * x[i][at.second];
        scale += std::fabs(dy[i][at.first] * x[i][at.second]);
      }
      expect_close(g, want, scale, backend + ": dW");
    }
    const std::vector<double> db = values_of(layer.bias_grad());
    for (Index j = 0; j < out; ++j) {
      double want = 0, scale = 0;
      for (Index i = 0; i < batch; ++i) {
        want += dy[i][j];
        scale += std::fabs(dy[i][j]);
      }
      expect_close(db[j], want, scale, backend + ": db");
    }
  }
}

TEST(SgdMomentum, TwoStepsWithWeightDecayKeepThePattern) {
  const float lr = 0.1f, momentum = 0.9f, decay = 0.01f;
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    SparseLinear layer(15, 11, 0.4, rng()());
    SgdMomentum sgd(lr, momentum, decay);
    const auto w0 = entries(layer.weight());
    const std::vector<double> b0 = values_of(layer.bias());
    Dense x, dy;
    const Matrix X1 = random_batch(4, 15, x), dY1 = random_batch(4, 11, dy);
    layer.backward(X1, dY1);
    const auto g1 = entries(layer.weight_grad());
    const std::vector<double> gb1 = values_of(layer.bias_grad());
    sgd.step(layer);
    const auto w1 = entries(layer.weight());
    const Matrix X2 = random_batch(4, 15, x), dY2 = random_batch(4, 11, dy);
    layer.backward(X2, dY2);
    const auto g2 = entries(layer.weight_grad());
    const std::vector<double> gb2 = values_of(layer.bias_grad());
    sgd.step(layer);
    const auto w2 = entries(layer.weight());
    ASSERT_EQ(w1.size(), w0.size()) << backend;
    ASSERT_EQ(w2.size(), w0.size()) << backend;
    for (const auto& [at, a0] : w0) {
      const double v1 = g1.at(at) + decay * a0, a1 = a0 - lr * v1;
      const double v2 = momentum * v1 + g2.at(at) + decay * a1, a2 = a1 - lr * v2;
      expect_close(w1.at(at), a1, std::fabs(a0) + std::fabs(v1), backend + ": W after one step");
      expect_close(w2.at(at), a2, std::fabs(a1) + std::fabs(v2), backend + ": W after two steps");
    }
    const std::vector<double> b2 = values_of(layer.bias());
    for (Index j = 0; j < 11; ++j) {
      const double v1 = gb1[j], v2 = momentum * v1 + gb2[j];
      expect_close(b2[j], b0[j] - lr * v1 - lr * v2, std::fabs(b0[j]) + std::fabs(v1) + std::fabs(v2),
                   backend + ": b after two steps");
    }
  }
}

// dW is made from the backward's own duplicates of X and dY: at its first request (weight_grad), or within an
// optimizer's step that takes it (snk::optimizer_step_sampled; the cuda backend's one pass never stores it). Two
// layers from one seed: one steps on dW asked for first, the other takes it within the step; their weights after
// the step agree, the second's dW asked for after the step is the first's, and changing X and dY after the backward
// changes neither.
TEST(SparseLinear, WeightGradientMadeOnRequestOrWithinTheStep) {
  const Index in = 29, out = 17, batch = 6;
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    const std::uint64_t seed = rng()();
    SparseLinear asked(in, out, 0.3, seed), within(in, out, 0.3, seed);
    snk::layers::Adam adam_asked(0.01f), adam_within(0.01f);
    Dense x, dy;
    Matrix X = random_batch(batch, in, x), dY = random_batch(batch, out, dy);
    (void)asked.forward(X);   // the products' plans, as in training
    (void)within.forward(X);
    asked.backward(X, dY);
    within.backward(X, dY);
    const auto g = entries(asked.weight_grad());
    const double minus_one = -1.0;   // the caller reuses its batch after the backward
    for (Index i = 0; i < batch; ++i) {
      X.set_element(i, 0, &minus_one, &snk::types::FP64);
      dY.set_element(i, 0, &minus_one, &snk::types::FP64);
    }
    adam_asked.step(asked);
    adam_within.step(within);
    const auto wa = entries(asked.weight()), ww = entries(within.weight());
    ASSERT_EQ(wa.size(), ww.size()) << backend;
    for (const auto& [at, v] : wa) expect_close(ww.at(at), v, std::fabs(v) + 0.01, backend + ": W after the step");
    const auto gw = entries(within.weight_grad());
    ASSERT_EQ(gw.size(), g.size()) << backend;
    for (const auto& [at, v] : g) {
      double want = 0, scale = 0;
      for (Index i = 0; i < batch; ++i) {
        want += dy[i][at.first] * x[i][at.second];
        scale += std::fabs(dy[i][at.first] * x[i][at.second]);
      }
      expect_close(v, want, scale, backend + ": dW asked for before the step");
      expect_close(gw.at(at), want, scale, backend + ": dW asked for after a step that took it");
    }
  }
}

// M^T, made by the thread's backend.
Matrix transposed(const Matrix& M) {
  Matrix T(M.type(), M.ncols(), M.nrows());
  snk::transpose(T, nullptr, nullptr, M);
  return T;
}

// The entries of a batch held as `layout`, read as Rows (batch x features).
std::map<std::pair<Index, Index>, double> rows_of(const Matrix& M, snk::layers::BatchLayout layout) {
  if (layout == snk::layers::BatchLayout::Rows) return entries(M);
  std::map<std::pair<Index, Index>, double> out;
  for (const auto& [at, x] : entries(M)) out[{at.second, at.first}] = x;
  return out;
}

void expect_same_entries(const std::map<std::pair<Index, Index>, double>& got,
                         const std::map<std::pair<Index, Index>, double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (const auto& [at, x] : want) {
    const auto it = got.find(at);
    ASSERT_NE(it, got.end()) << what << ": no entry at (" << at.first << ", " << at.second << ")";
    expect_close(it->second, x, std::fabs(x) + 1.0, what);
  }
}

// Every layout of the batch operands (BatchLayout: Rows or Features for X, Y, dY and dX) gives the Rows results: the
// forward's Y, and the backward's dX, db and dW, dW asked for and taken within an Adam step (the optimizer then reads
// the backward's operands as they were held), on every backend.
TEST(SparseLinear, EveryBatchLayoutGivesTheRowsResults) {
  using snk::layers::BatchLayout;
  const Index in = 31, out = 21, batch = 10;
  const BatchLayout both[] = {BatchLayout::Rows, BatchLayout::Features};
  const auto name = [](BatchLayout l) { return std::string(l == BatchLayout::Rows ? "rows" : "features"); };
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    const std::uint64_t seed = rng()();
    SparseLinear rows_layer(in, out, 0.3, seed);
    Dense x, dy;
    const Matrix X = random_batch(batch, in, x), dY = random_batch(batch, out, dy);
    const Matrix Xt = transposed(X), dYt = transposed(dY);
    const auto want_y = entries(rows_layer.forward(X));
    const auto want_dx = entries(rows_layer.backward(X, dY));
    const std::vector<double> want_db = values_of(rows_layer.bias_grad());
    const auto want_dw = entries(rows_layer.weight_grad());
    // W after an Adam step on dW asked for first, from rows.
    snk::layers::Adam on_asked(0.01f);
    on_asked.step(rows_layer);
    const auto want_w = entries(rows_layer.weight());
    // The batch X or dY as `layout` holds it.
    const auto held = [](const Matrix& rows, const Matrix& features, BatchLayout layout) {
      return Matrix(layout == BatchLayout::Rows ? rows : features);
    };
    for (BatchLayout xl : both)
      for (BatchLayout yl : both) {
        const SparseLinear layer(in, out, 0.3, seed);
        const std::string what = backend + ": forward, X " + name(xl) + ", Y " + name(yl);
        expect_same_entries(rows_of(layer.forward(held(X, Xt, xl), xl, yl), yl), want_y, what);
      }
    for (BatchLayout xl : both)
      for (BatchLayout dyl : both)
        for (BatchLayout dxl : both) {
          const std::string what = backend + ": backward, X " + name(xl) + ", dY " + name(dyl) + ", dX " + name(dxl);
          SparseLinear layer(in, out, 0.3, seed), stepped(in, out, 0.3, seed);
          Matrix dX = layer.backward(held(X, Xt, xl), xl, held(dY, dYt, dyl), dyl, dxl);
          expect_same_entries(rows_of(dX, dxl), want_dx, what + ": dX");
          const std::vector<double> db = values_of(layer.bias_grad());
          for (Index j = 0; j < out; ++j) expect_close(db[j], want_db[j], std::fabs(want_db[j]) + 1.0, what + ": db");
          expect_same_entries(entries(layer.weight_grad()), want_dw, what + ": dW");
          // An Adam step that takes dW within it, against one on dW asked for first.
          (void)stepped.backward(held(X, Xt, xl), xl, held(dY, dYt, dyl), dyl, dxl);
          snk::layers::Adam within_step(0.01f);
          within_step.step(stepped);
          expect_same_entries(entries(stepped.weight()), want_w, what + ": W after an Adam step");
        }
  }
}

// backward taking X and dY (no duplicates) gives what backward on duplicates gives, bit for bit: dX, dW and db; a
// refused call leaves the operands it was handed as they were.
TEST(SparseLinear, BackwardTakingItsOperandsEqualsBackwardOnDuplicates) {
  const Index in = 23, out = 19, batch = 7;
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    const std::uint64_t seed = rng()();
    SparseLinear kept(in, out, 0.3, seed), taking(in, out, 0.3, seed);
    Dense x, dy;
    const Matrix X = random_batch(batch, in, x), dY = random_batch(batch, out, dy);
    const Matrix dX = kept.backward(X, dY);
    Matrix x2 = X, dy2 = dY;
    const Matrix dX2 = taking.backward(std::move(x2), std::move(dy2));
    EXPECT_EQ(entries(dX2), entries(dX)) << backend;
    EXPECT_EQ(entries(taking.weight_grad()), entries(kept.weight_grad())) << backend;
    EXPECT_EQ(values_of(taking.bias_grad()), values_of(kept.bias_grad())) << backend;
    Matrix wrong = random_batch(batch + 1, out, dy), still = X;
    EXPECT_THROW(taking.backward(std::move(still), std::move(wrong)), snk::Error) << backend;
    EXPECT_EQ(entries(still), entries(X)) << backend << ": a refused call keeps its operands";
    EXPECT_EQ(wrong.nrows(), batch + 1) << backend;
  }
}

// forward and backward into outputs the caller gives (filled with other values first) give what the returning calls
// give, bit for bit, in either layout; an output of another batch size or type is refused before anything changes.
TEST(SparseLinear, OutputsGivenByTheCallerTakeTheResults) {
  using snk::layers::BatchLayout;
  const Index in = 27, out = 17, batch = 9;
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    const std::uint64_t seed = rng()();
    SparseLinear returning(in, out, 0.3, seed), given(in, out, 0.3, seed);
    Dense x, dy, poison;
    const Matrix X = random_batch(batch, in, x), dY = random_batch(batch, out, dy);
    for (BatchLayout l : {BatchLayout::Rows, BatchLayout::Features}) {
      const bool rows = l == BatchLayout::Rows;
      const std::string what = backend + (rows ? ": rows" : ": features");
      Matrix Y = rows ? random_batch(batch, out, poison) : transposed(random_batch(batch, out, poison));
      given.forward(X, BatchLayout::Rows, Y, l);
      EXPECT_EQ(entries(Y), entries(returning.forward(X, BatchLayout::Rows, l))) << what << ": Y";
      Matrix dX = rows ? random_batch(batch, in, poison) : transposed(random_batch(batch, in, poison));
      Matrix x1 = X, dy1 = dY, x2 = X, dy2 = dY;
      given.backward(std::move(x1), BatchLayout::Rows, std::move(dy1), BatchLayout::Rows, dX, l);
      EXPECT_EQ(entries(dX), entries(returning.backward(std::move(x2), BatchLayout::Rows, std::move(dy2),
                                                        BatchLayout::Rows, l)))
          << what << ": dX";
      EXPECT_EQ(entries(given.weight_grad()), entries(returning.weight_grad())) << what << ": dW";
      EXPECT_EQ(values_of(given.bias_grad()), values_of(returning.bias_grad())) << what << ": db";
    }
    const auto w = entries(given.weight());
    const auto db = values_of(given.bias_grad());
    Matrix short_y = random_batch(batch - 1, out, poison), wrong_type(&snk::types::FP64, batch, out);
    const auto short_before = entries(short_y);
    for (Matrix* bad : {&short_y, &wrong_type}) {
      try {
        given.forward(X, BatchLayout::Rows, *bad, BatchLayout::Rows);
        ADD_FAILURE() << backend << ": a forward into a bad output must be refused";
      } catch (const snk::Error& e) {
        EXPECT_EQ(e.info(), bad == &short_y ? snk::Info::DimensionMismatch : snk::Info::DomainMismatch) << backend;
      }
    }
    Matrix short_dx = random_batch(batch - 1, in, poison), x3 = X, dy3 = dY;
    const auto short_dx_before = entries(short_dx);
    EXPECT_THROW(given.backward(std::move(x3), BatchLayout::Rows, std::move(dy3), BatchLayout::Rows, short_dx,
                                BatchLayout::Rows),
                 snk::Error)
        << backend;
    EXPECT_EQ(entries(short_y), short_before) << backend << ": a refused forward wrote its output";
    EXPECT_EQ(entries(short_dx), short_dx_before) << backend << ": a refused backward wrote its output";
    EXPECT_EQ(entries(given.weight()), w) << backend;
    EXPECT_EQ(values_of(given.bias_grad()), db) << backend << ": a refused backward changed db";
    EXPECT_EQ(entries(x3), entries(X)) << backend << ": a refused backward took its operands";
  }
}

// release_weight_grad drops dW and the operands kept for it (no entry, nothing pending), and the next backward makes
// dW as before.
TEST(SparseLinear, ReleasedWeightGradientIsEmptyUntilTheNextBackward) {
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    SparseLinear layer(19, 13, 0.4, rng()());
    Dense x, dy;
    const Matrix X = random_batch(6, 19, x), dY = random_batch(6, 13, dy);
    (void)layer.backward(X, dY);
    EXPECT_NE(layer.weight_grad_inputs().dy, nullptr) << backend << ": dW pending after a backward";
    layer.release_weight_grad();
    EXPECT_EQ(layer.weight_grad_inputs().dy, nullptr) << backend;
    EXPECT_EQ(layer.weight_grad().nvals(), 0) << backend;
    (void)layer.backward(X, dY);
    EXPECT_EQ(layer.weight_grad().nvals(), layer.weight().nvals()) << backend << ": dW after the next backward";
  }
}

TEST(SparseLinear, BadInputIsAnErrorAndChangesNothing) {
  EXPECT_THROW(SparseLinear(0, 4, 0.5, 1), snk::Error);
  EXPECT_THROW(SparseLinear(4, 4, 0.0, 1), snk::Error);
  EXPECT_THROW(SparseLinear(4, 4, 1.5, 1), snk::Error);
  SparseLinear layer(8, 5, 0.5, rng()());
  const auto before = entries(layer.weight());
  Dense x;
  try {
    layer.forward(random_batch(3, 7, x));
    FAIL() << "a batch of 7 features into a layer of 8 must be rejected";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), snk::Info::DimensionMismatch);
  }
  try {
    layer.backward(random_batch(3, 8, x), random_batch(2, 5, x));
    FAIL() << "X and dY of different batch sizes must be rejected";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), snk::Info::DimensionMismatch);
  }
  EXPECT_EQ(entries(layer.weight()), before);
}

TEST(ClipGradNorm, ScalesEveryGradientToTheLimitOnlyAboveIt) {
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    SparseLinear a(20, 12, 0.4, rng()()), b(12, 5, 0.5, rng()());
    Dense x;
    a.backward(random_batch(6, 20, x), random_batch(6, 12, x));
    b.backward(random_batch(6, 12, x), random_batch(6, 5, x));
    double want = 0;
    for (const SparseLinear* l : {&a, &b}) {
      for (const auto& [at, g] : entries(l->weight_grad())) want += g * g;
      for (double g : values_of(l->bias_grad())) want += g * g;
    }
    want = std::sqrt(want);
    const auto a_before = entries(a.weight_grad());
    // A limit above the norm changes nothing.
    EXPECT_NEAR(snk::layers::clip_grad_norm({&a, &b}, 2 * want), want, 1e-5 * want) << backend;
    EXPECT_EQ(entries(a.weight_grad()), a_before) << backend;
    // A limit below it scales every gradient to the limit.
    EXPECT_NEAR(snk::layers::clip_grad_norm({&a, &b}, want / 4), want, 1e-5 * want) << backend;
    for (const auto& [at, g] : entries(a.weight_grad()))
      EXPECT_NEAR(g, a_before.at(at) / 4, 1e-5 * (std::fabs(g) + 1e-3)) << backend;
    EXPECT_NEAR(snk::layers::clip_grad_norm({&a, &b}, 1e9), want / 4, 1e-5 * want) << backend << ": the new norm";
    EXPECT_THROW(snk::layers::clip_grad_norm({&a}, 0.0), snk::Error);
  }
}

}  // namespace
