// tests/layers/test_training.cpp: what training a network of SparseLinear layers needs beyond the layer itself
// (functions.hpp, optim.hpp), on every usable backend, on fresh random inputs:
// - finite-difference gradient checks in float64 of every layer kind: SparseLinear (weights, bias, input), ReLU,
//   GELU, dropout and softmax cross-entropy, chained in one network;
// - softmax cross-entropy's loss, gradient and correct count against a float64 host computation (FP32 and FP64);
// - snk::optimizer_step (SGD, Adam, AdamW) on every backend against a float64 host replay of its rule and against the
//   GraphBLAS calls that define it (reference runs those), a gradient on another pattern, and its bad input;
//   snk::optimizer_step_sampled against the product and the step, and its bad input;
// - Adam and AdamW against a float64 host replay of their formulas, per non-zero; their state following its
//   connection through a rewiring; one training step's weights on every backend against the reference backend's;
// - checkpoints: a round trip of every kind of content, and damaged files refused;
// - bad input: a clear snk::Error and nothing changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint.hpp"
#include "dst.hpp"
#include "functions.hpp"
#include "layer_test_util.hpp"
#include "mlp.hpp"
#include "optim.hpp"
#include "sparse_linear.hpp"

namespace {

using snk::Index;
using snk::Matrix;
using snk::layers::SparseLinear;
using layer_test::Dense;
using layer_test::entries;
using layer_test::random_batch;
using layer_test::rng;

const snk::Type* const kF64 = &snk::types::FP64;

std::vector<std::string> backends() { return snk::available_backends(); }

double get(const Matrix& M, Index i, Index j) {
  double v = 0;
  M.extract_element(i, j, &v, kF64);
  return v;
}
void put(Matrix& M, Index i, Index j, double v) { M.set_element(i, j, &v, kF64); }

// The network under check: X -> L1 -> GELU -> dropout(fixed mask) -> L2 -> ReLU -> L3 -> softmax cross-entropy.
struct Net {
  SparseLinear l1, l2, l3;
  Matrix drop_mask;
  std::vector<std::uint8_t> labels;

  struct Pass {
    Matrix a1, h1, d1, a2, h2, z;
  };
  Pass forward(const Matrix& X) const {
    Pass p{l1.forward(X), Matrix(kF64, 0, 0), Matrix(kF64, 0, 0), Matrix(kF64, 0, 0), Matrix(kF64, 0, 0),
           Matrix(kF64, 0, 0)};
    p.h1 = snk::layers::gelu(p.a1);
    p.d1 = Matrix(kF64, p.h1.nrows(), p.h1.ncols());
    snk::ewise_mult(p.d1, nullptr, nullptr, *snk::builtin_binary_op(snk::BinaryOpcode::Times, snk::TypeCode::FP64),
                    p.h1, drop_mask);
    p.a2 = l2.forward(p.d1);
    p.h2 = snk::layers::relu(p.a2);
    p.z = l3.forward(p.h2);
    return p;
  }
  double loss(const Matrix& X) const { return snk::layers::softmax_cross_entropy(forward(X).z, labels).loss; }
  // Backward through every layer; returns dX.
  Matrix backward(const Matrix& X) {
    const Pass p = forward(X);
    const auto ce = snk::layers::softmax_cross_entropy(p.z, labels);
    Matrix g = l3.backward(p.h2, ce.grad);
    g = snk::layers::relu_backward(p.h2, g);
    g = l2.backward(p.d1, g);
    g = snk::layers::dropout_backward(drop_mask, g);
    g = snk::layers::gelu_backward(p.a1, g);
    return l1.backward(X, g);
  }
};

// Central difference of f at a parameter read and written by get/set.
double numeric(const std::function<double()>& f, const std::function<double()>& read,
               const std::function<void(double)>& write) {
  const double h = 1e-6, x0 = read();
  write(x0 + h);
  const double up = f();
  write(x0 - h);
  const double down = f();
  write(x0);
  return (up - down) / (2 * h);
}

void expect_gradient(double analytic, double num, const std::string& what) {
  EXPECT_NEAR(analytic, num, 1e-6 + 1e-5 * std::fabs(num)) << what;
}

TEST(GradientCheck, EveryLayerKindInFloat64) {
  const Index batch = 5, in = 7, h1 = 6, h2 = 5, classes = 4;
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    Net net{SparseLinear(in, h1, 0.7, rng()(), true, kF64), SparseLinear(h1, h2, 0.6, rng()(), true, kF64),
            SparseLinear(h2, classes, 0.8, rng()(), true, kF64), Matrix(kF64, 0, 0), {}};
    net.drop_mask = snk::layers::dropout(random_batch(batch, h1, kF64), 0.25, rng()()).mask;
    for (Index i = 0; i < batch; ++i) net.labels.push_back(static_cast<std::uint8_t>(rng()() % classes));
    Matrix X = random_batch(batch, in, kF64);
    const Matrix dX = net.backward(X);
    const auto f = [&] { return net.loss(X); };
    int checked = 0;
    for (SparseLinear* l : {&net.l1, &net.l2, &net.l3}) {
      const Matrix dW = l->weight_grad();
      for (const auto& [at, g] : entries(dW)) {
        const auto [i, j] = at;
        expect_gradient(g, numeric(f, [&] { return get(l->weight(), i, j); },
                                   [&](double v) { put(l->weight(), i, j, v); }),
                        backend + ": dW(" + std::to_string(i) + "," + std::to_string(j) + ")");
        ++checked;
      }
      const Matrix db = l->bias_grad().as_matrix();
      for (Index j = 0; j < l->out_features(); ++j) {
        expect_gradient(get(db, 0, j), numeric(f, [&] { return get(l->bias().as_matrix(), 0, j); },
                                               [&](double v) { put(l->bias().as_matrix(), 0, j, v); }),
                        backend + ": db(" + std::to_string(j) + ")");
        ++checked;
      }
    }
    for (Index i = 0; i < batch; ++i)
      for (Index k = 0; k < in; ++k) {
        expect_gradient(get(dX, i, k), numeric(f, [&] { return get(X, i, k); }, [&](double v) { put(X, i, k, v); }),
                        backend + ": dX(" + std::to_string(i) + "," + std::to_string(k) + ")");
        ++checked;
      }
    EXPECT_GT(checked, 60) << backend;
  }
}

TEST(SoftmaxCrossEntropy, EqualsTheHostComputation) {
  const Index batch = 13, classes = 10;
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    for (const snk::Type* type : {&snk::types::FP32, kF64}) {
      Dense z;
      Matrix Z = random_batch(batch, classes, z, type);
      std::vector<std::uint8_t> labels;
      for (Index i = 0; i < batch; ++i) labels.push_back(static_cast<std::uint8_t>(rng()() % classes));
      // Make a few rows right for certain (their label's logit the largest), so `correct` is tested at both ends.
      for (Index i = 0; i < 4; ++i) {
        z[i][labels[i]] = 5.0;
        put(Z, i, labels[i], 5.0);
      }
      const auto ce = snk::layers::softmax_cross_entropy(Z, labels);
      double loss = 0;
      Index correct = 0;
      Dense grad(batch, std::vector<double>(classes));
      for (Index i = 0; i < batch; ++i) {
        double m = z[i][0];
        Index arg = 0;
        for (Index j = 1; j < classes; ++j)
          if (z[i][j] > m) m = z[i][j], arg = j;
        double s = 0;
        for (Index j = 0; j < classes; ++j) s += std::exp(z[i][j] - m);
        loss += std::log(s) - (z[i][labels[i]] - m);
        correct += arg == labels[i];
        for (Index j = 0; j < classes; ++j)
          grad[i][j] = (std::exp(z[i][j] - m) / s - (j == labels[i] ? 1.0 : 0.0)) / double(batch);
      }
      const double tol = type == kF64 ? 1e-12 : 1e-5;
      const std::string what = backend + " " + type->name;
      EXPECT_NEAR(ce.loss, loss / double(batch), tol * 10) << what;
      EXPECT_EQ(ce.correct, correct) << what;
      ASSERT_EQ(ce.grad.nvals(), batch * classes) << what;
      for (const auto& [at, g] : entries(ce.grad)) EXPECT_NEAR(g, grad[at.first][at.second], tol) << what;
    }
  }
}

TEST(Activations, ReluAndGeluEqualTheHostComputation) {
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    Dense x, dy;
    const Matrix X = random_batch(6, 9, x, kF64), dY = random_batch(6, 9, dy, kF64);
    const auto r = entries(snk::layers::relu(X)), g = entries(snk::layers::gelu(X));
    const auto rb = entries(snk::layers::relu_backward(snk::layers::relu(X), dY));
    const auto gb = entries(snk::layers::gelu_backward(X, dY));
    const double k = std::sqrt(2.0 / 3.14159265358979323846);
    for (Index i = 0; i < 6; ++i)
      for (Index j = 0; j < 9; ++j) {
        const double v = x[i][j], t = std::tanh(k * (v + 0.044715 * v * v * v));
        EXPECT_NEAR(r.at({i, j}), std::max(v, 0.0), 1e-15) << backend;
        EXPECT_NEAR(g.at({i, j}), 0.5 * v * (1 + t), 1e-14) << backend;
        EXPECT_EQ(rb.count({i, j}), v > 0 ? 1u : 0u) << backend;
        if (v > 0) EXPECT_EQ(rb.at({i, j}), dy[i][j]) << backend;
        const double d = 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k * (1 + 3 * 0.044715 * v * v);
        EXPECT_NEAR(gb.at({i, j}), dy[i][j] * d, 1e-14) << backend;
      }
  }
}

TEST(Dropout, KeepsAboutOneMinusPAndScales) {
  const Matrix X = random_batch(200, 50);
  const auto d = snk::layers::dropout(X, 0.3, 7);
  const double kept = double(d.output.nvals()) / 10000.0;
  EXPECT_NEAR(kept, 0.7, 0.03);
  const auto x = entries(X);
  for (const auto& [at, v] : entries(d.output)) EXPECT_NEAR(v, x.at(at) / 0.7, 1e-6);
  EXPECT_EQ(snk::layers::dropout(X, 0.3, 7).mask.nvals(), d.mask.nvals()) << "the same seed, the same mask";
  EXPECT_EQ(snk::layers::dropout(X, 0.0, 7).output.nvals(), X.nvals());
  EXPECT_THROW(snk::layers::dropout(X, 1.0, 7), snk::Error);
}

// Adam's formulas replayed on the host in float64 for one parameter's values.
struct HostAdam {
  double b1, b2, eps, lr, wd;
  bool decoupled;
  std::map<std::pair<Index, Index>, double> m, v;
  int t = 0;
  void step(std::map<std::pair<Index, Index>, double>& w, const std::map<std::pair<Index, Index>, double>& g) {
    ++t;
    for (auto& [at, x] : w) {
      double grad = g.count(at) ? g.at(at) : 0.0;
      if (decoupled) x *= 1 - lr * wd;
      else grad += wd * x;
      m[at] = b1 * m[at] + (1 - b1) * grad;
      v[at] = b2 * v[at] + (1 - b2) * grad * grad;
      const double mh = m[at] / (1 - std::pow(b1, t)), vh = v[at] / (1 - std::pow(b2, t));
      x -= lr * mh / (std::sqrt(vh) + eps);
    }
  }
};

TEST(Adam, ThreeStepsEqualTheHostReplayAndKeepThePattern) {
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    for (const bool decoupled : {false, true}) {
      SparseLinear layer(30, 20, 0.2, rng()(), true, kF64);
      snk::layers::Adam adam(0.01f, 0.9f, 0.99f, 1e-8f, 0.05f, decoupled);
      HostAdam host{double(0.9f), double(0.99f), double(1e-8f), double(0.01f), double(0.05f), decoupled, {}, {}};
      HostAdam host_b = host;
      host_b.wd = 0;
      host_b.decoupled = false;
      auto w = entries(layer.weight());
      auto b = entries(layer.bias().as_matrix());
      const Index nnz = layer.weight().nvals();
      for (int s = 0; s < 3; ++s) {
        const Matrix X = random_batch(8, 30, kF64), dY = random_batch(8, 20, kF64);
        layer.backward(X, dY);
        host.step(w, entries(layer.weight_grad()));
        host_b.step(b, entries(layer.bias_grad().as_matrix()));
        adam.step(layer);
      }
      const std::string what = backend + (decoupled ? " AdamW" : " Adam");
      EXPECT_EQ(layer.weight().nvals(), nnz) << what;
      EXPECT_EQ(adam.steps(), 3u) << what;
      for (const auto& [at, x] : entries(layer.weight())) EXPECT_NEAR(x, w.at(at), 1e-12) << what;
      for (const auto& [at, x] : entries(layer.bias().as_matrix())) EXPECT_NEAR(x, b.at(at), 1e-12) << what;
      // The state follows its connections through a rewiring: kept where the weight stays, zero where it is new.
      const auto m_before = entries(*adam.state()[0].second);
      const auto r = snk::layers::prune_and_regrow(layer, 0.3, snk::layers::PruneRule::SmallestMagnitude, rng()(),
                                                   &adam);
      EXPECT_EQ(layer.weight().nvals(), nnz) << what;
      const auto W = entries(layer.weight());
      Index fresh = 0;
      for (const auto& [name, S] : adam.state()) {
        if (name[2] != 'w') continue;   // m_w, v_w
        const auto st = entries(*S);
        EXPECT_EQ(st.size(), W.size()) << what << " " << name << ": the state has the weights' pattern";
        for (const auto& [at, x] : st) {
          ASSERT_TRUE(W.count(at)) << what;
          if (!m_before.count(at)) {
            EXPECT_EQ(x, 0.0) << what << " " << name << ": a new connection's state starts at zero";
            ++fresh;
          } else if (name == "m_w") {
            EXPECT_EQ(x, m_before.at(at)) << what << ": a kept connection keeps its state";
          }
        }
      }
      EXPECT_EQ(fresh, 2 * r.grown) << what;
    }
  }
}

// ---- snk::optimizer_step: the one-pass update against the GraphBLAS calls that define it ------------------------
// A random rows x cols matrix of `type` holding values in [lo, hi) on the positions where `keep` holds (a random
// pattern of density 0.3 when keep is null).
Matrix random_on(Index rows, Index cols, const snk::Type* type, double lo, double hi, const Matrix* keep) {
  std::uniform_real_distribution<double> v(lo, hi), u(0, 1);
  std::vector<Index> I, J;
  std::vector<double> X;
  if (keep) {
    for (const auto& [at, x] : entries(*keep)) {
      I.push_back(at.first);
      J.push_back(at.second);
      X.push_back(v(rng()));
    }
  } else {
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < cols; ++j)
        if (u(rng()) < 0.3) {
          I.push_back(i);
          J.push_back(j);
          X.push_back(v(rng()));
        }
  }
  Matrix M(type, rows, cols);
  M.build(I.data(), J.data(), X.data(), kF64, I.size(), nullptr);
  return M;
}

using Entries = std::map<std::pair<Index, Index>, double>;

Matrix matrix_of(const Entries& e, Index rows, Index cols, const snk::Type* type) {
  std::vector<Index> I, J;
  std::vector<double> X;
  for (const auto& [at, x] : e) {
    I.push_back(at.first);
    J.push_back(at.second);
    X.push_back(x);
  }
  Matrix M(type, rows, cols);
  M.build(I.data(), J.data(), X.data(), kF64, I.size(), nullptr);
  return M;
}

// The host values of a parameter, its state and its gradient, on one random pattern.
struct HostParameter {
  Index rows, cols;
  Entries p, s1, s2, g;
};
HostParameter host_parameter(Index rows, Index cols) {
  const Matrix P = random_on(rows, cols, kF64, -1, 1, nullptr);
  return {rows, cols, entries(P), entries(random_on(rows, cols, kF64, -0.5, 0.5, &P)),
          entries(random_on(rows, cols, kF64, 0.0, 0.3, &P)), entries(random_on(rows, cols, kF64, -1, 1, &P))};
}

// P, S1, S2, G with those values, made as a backend makes a layer's (the state and gradient from the weights by
// element-wise calls, so on the GPU they share the weights' pattern arrays).
struct Parameter {
  Matrix P, S1, S2, G;
};
Parameter parameter_on(const HostParameter& h, const snk::Type* type) {
  Matrix P = matrix_of(h.p, h.rows, h.cols, type);
  const snk::BinaryOp& second = *snk::builtin_binary_op(snk::BinaryOpcode::Second, type->code);
  const auto on_p = [&](const Entries& e) {
    Matrix raw = matrix_of(e, h.rows, h.cols, type), out(type, h.rows, h.cols);
    snk::ewise_mult(out, nullptr, nullptr, second, P, raw);
    return out;
  };
  Matrix S1 = on_p(h.s1), S2 = on_p(h.s2), G = on_p(h.g);
  return {std::move(P), std::move(S1), std::move(S2), std::move(G)};
}

// The rule replayed in float64 on the host for one entry.
void host_step(const snk::OptimizerStep& s, double& p, double& s1, double& s2, double g) {
  if (s.rule == snk::OptimizerStep::Rule::SgdMomentum) {
    g += s.weight_decay * p;
    s1 = s.momentum * s1 + g;
    p -= s.lr * s1;
    return;
  }
  if (s.decoupled) p *= 1 - s.lr * s.weight_decay;
  else g += s.weight_decay * p;
  s1 = s.beta1 * s1 + (1 - s.beta1) * g;
  s2 = s.beta2 * s2 + (1 - s.beta2) * g * g;
  const double c1 = 1 - std::pow(s.beta1, double(s.t)), c2 = 1 - std::pow(s.beta2, double(s.t));
  p -= s.lr / c1 * s1 / (std::sqrt(s2 / c2) + s.eps);
}

std::vector<std::pair<std::string, snk::OptimizerStep>> optimizer_steps() {
  std::vector<std::pair<std::string, snk::OptimizerStep>> out;
  snk::OptimizerStep s;
  s.rule = snk::OptimizerStep::Rule::SgdMomentum;
  s.lr = 0.05;
  s.momentum = 0.8;
  out.push_back({"SGD", s});
  s.weight_decay = 0.01;
  out.push_back({"SGD with weight decay", s});
  s = snk::OptimizerStep{};
  s.lr = 0.01;
  s.t = 3;
  out.push_back({"Adam", s});
  s.weight_decay = 0.05;
  out.push_back({"Adam with L2 decay", s});
  s.decoupled = true;
  out.push_back({"AdamW", s});
  return out;
}

TEST(OptimizerStep, EveryBackendMatchesTheHostReplayAndTheCalls) {
  for (const snk::Type* type : {&snk::types::FP32, kF64}) {
    const double tol = type == kF64 ? 1e-12 : 2e-6;
    const HostParameter h = host_parameter(37, 29);
    for (const auto& [name, step] : optimizer_steps()) {
      const bool adam = step.rule == snk::OptimizerStep::Rule::Adam;
      std::map<std::string, Entries> results;
      for (const std::string& backend : backends()) {
        snk::BackendScope scope(backend);
        Parameter x = parameter_on(h, type);
        auto p = entries(x.P), s1 = entries(x.S1), s2 = entries(x.S2);
        const auto g = entries(x.G);
        snk::optimizer_step(x.P, x.S1, adam ? &x.S2 : nullptr, x.G, step);
        const std::string what = backend + " " + type->name + " " + name;
        for (auto& [at, pv] : p) host_step(step, pv, s1[at], s2[at], g.at(at));
        const auto check = [&](const Matrix& M, const Entries& want, const char* m) {
          const auto got = entries(M);
          ASSERT_EQ(got.size(), want.size()) << what << " " << m << ": the pattern is kept";
          for (const auto& [at, v] : want)
            EXPECT_NEAR(got.at(at), v, tol * (1 + std::abs(v))) << what << " " << m;
        };
        check(x.P, p, "P");
        check(x.S1, s1, "S1");
        if (adam) check(x.S2, s2, "S2");
        EXPECT_EQ(entries(x.G), g) << what << ": G is read only";
        results[backend] = entries(x.P);
      }
      // The one pass and the calls (reference declines the one pass) agree to rounding.
      for (const auto& [backend, got] : results)
        for (const auto& [at, v] : results.at("reference"))
          EXPECT_NEAR(got.at(at), v, tol * (1 + std::abs(v))) << backend << " " << name;
    }
  }
}

// A gradient on another pattern: the step runs as the calls, and G's entries outside P's pattern are added (as
// eWiseAdd adds them); every backend agrees with reference.
TEST(OptimizerStep, AGradientOnAnotherPatternRunsAsTheCalls) {
  const HostParameter h = host_parameter(23, 31);
  const Entries& p0 = h.p;
  snk::OptimizerStep sgd;
  sgd.rule = snk::OptimizerStep::Rule::SgdMomentum;
  sgd.lr = 0.1;
  std::map<std::string, Entries> results;
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    Parameter x = parameter_on(h, kF64);
    Matrix G = x.G;
    Index fi = 0, fj = 0;   // a position P lacks
    while (p0.count({fi, fj})) {
      if (++fj == 31) fj = 0, ++fi;
    }
    put(G, fi, fj, 2.0);
    snk::optimizer_step(x.P, x.S1, nullptr, G, sgd);
    EXPECT_EQ(x.P.nvals(), static_cast<Index>(p0.size()) + 1) << backend;
    // S1 there is G's 2 (eWiseAdd copies a one-sided entry); the accumulator then copies lr * S1 into P.
    EXPECT_NEAR(get(x.S1, fi, fj), 2.0, 1e-12) << backend;
    EXPECT_NEAR(get(x.P, fi, fj), 0.2, 1e-12) << backend;
    results[backend] = entries(x.P);
  }
  for (const auto& [backend, got] : results) {
    ASSERT_EQ(got.size(), results.at("reference").size()) << backend;
    for (const auto& [at, v] : results.at("reference")) EXPECT_NEAR(got.at(at), v, 1e-12) << backend;
  }
}

// call() must throw snk::Error with `code` and a message naming `op`, and leave x's P, S1 and S2 as they were.
void expect_refused(const Parameter& x, const std::string& backend, const char* op, snk::Info code,
                    const std::function<void()>& call, const char* what) {
  const auto before = entries(x.P), s1 = entries(x.S1), s2 = entries(x.S2);
  try {
    call();
    ADD_FAILURE() << backend << " " << what << ": accepted";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), code) << backend << " " << what << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(x.P), before) << backend << " " << what;
  EXPECT_EQ(entries(x.S1), s1) << backend << " " << what;
  EXPECT_EQ(entries(x.S2), s2) << backend << " " << what;
}

TEST(OptimizerStep, BadInputIsRefusedAndChangesNothing) {
  const HostParameter h = host_parameter(9, 7);
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    Parameter x = parameter_on(h, &snk::types::FP32);
    const snk::OptimizerStep adam;
    snk::OptimizerStep sgd;
    sgd.rule = snk::OptimizerStep::Rule::SgdMomentum;
    snk::OptimizerStep t0 = adam;
    t0.t = 0;
    Matrix wide(&snk::types::FP32, 9, 8), fp64(kF64, 9, 7), ints(&snk::types::Int32, 9, 7);
    const auto refused = [&](snk::Info code, const std::function<void()>& call, const char* what) {
      expect_refused(x, backend, "optimizer_step", code, call, what);
    };
    refused(snk::Info::InvalidValue, [&] { snk::optimizer_step(x.P, x.P, &x.S2, x.G, adam); }, "P as its own state");
    refused(snk::Info::InvalidValue, [&] { snk::optimizer_step(x.P, x.S1, &x.S2, x.S1, adam); }, "S1 as G");
    refused(snk::Info::NullPointer, [&] { snk::optimizer_step(x.P, x.S1, nullptr, x.G, adam); }, "Adam without S2");
    refused(snk::Info::InvalidValue, [&] { snk::optimizer_step(x.P, x.S1, &x.S2, x.G, sgd); }, "SGD with S2");
    refused(snk::Info::InvalidValue, [&] { snk::optimizer_step(x.P, x.S1, &x.S2, x.G, t0); }, "t = 0");
    refused(snk::Info::DimensionMismatch, [&] { snk::optimizer_step(x.P, x.S1, &x.S2, wide, adam); }, "G 9 x 8");
    refused(snk::Info::DomainMismatch, [&] { snk::optimizer_step(x.P, x.S1, &x.S2, fp64, adam); }, "G of FP64");
    refused(snk::Info::DomainMismatch, [&] { snk::optimizer_step(ints, x.S1, &x.S2, x.G, adam); }, "P of INT32");
  }
}

// snk::optimizer_step_sampled: the step with G = A^T B at P's positions against the product and the step (mxm, then
// optimizer_step) on every backend, FP32 and FP64, each rule; P first takes part in a product, as a layer's weights
// do in the forward pass (the cuda backend then takes G within its one pass, on P's product plan). Then bad input.
TEST(OptimizerStep, SampledGradientEqualsTheProductThenTheStep) {
  for (const snk::Type* type : {&snk::types::FP32, kF64}) {
    const double tol = type == kF64 ? 1e-12 : 2e-6;
    const HostParameter h = host_parameter(37, 29);
    const snk::Semiring& plus_times = *snk::builtin_semiring(snk::BinaryOpcode::Plus, snk::BinaryOpcode::Times,
                                                             type->code);
    for (const auto& [name, step] : optimizer_steps()) {
      const bool adam = step.rule == snk::OptimizerStep::Rule::Adam;
      for (const std::string& backend : backends())
        for (const Index K : {6, 12}) {   // the cuda backend's one pass takes K up to 8, the calls beyond
          snk::BackendScope scope(backend);
          Parameter x = parameter_on(h, type), y = parameter_on(h, type);
          const Matrix A = random_batch(K, 37, type), B = random_batch(K, 29, type);
          Matrix Y(type, 37, 3);
          snk::mxm(Y, nullptr, nullptr, plus_times, x.P, random_batch(29, 3, type));
          snk::Descriptor d;
          d.transpose_first = true;
          snk::optimizer_step_sampled(x.P, x.S1, adam ? &x.S2 : nullptr, A, B, d, step);
          Matrix G(type, 37, 29);
          snk::Descriptor masked = d;
          masked.mask_structure = true;
          snk::mxm(G, &y.P, nullptr, plus_times, A, B, masked);
          snk::optimizer_step(y.P, y.S1, adam ? &y.S2 : nullptr, G, step);
          const std::string what = backend + " " + type->name + " " + name + " K " + std::to_string(K);
          const auto check = [&](const Matrix& got, const Matrix& want, const char* m) {
            const auto g = entries(got), w = entries(want);
            ASSERT_EQ(g.size(), w.size()) << what << " " << m << ": the pattern is kept";
            for (const auto& [at, v] : w) EXPECT_NEAR(g.at(at), v, tol * (1 + std::abs(v))) << what << " " << m;
          };
          check(x.P, y.P, "P");
          check(x.S1, y.S1, "S1");
          if (adam) check(x.S2, y.S2, "S2");
        }
    }
  }
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    const HostParameter h = host_parameter(9, 7);
    Parameter x = parameter_on(h, &snk::types::FP32);
    const snk::OptimizerStep adam;
    const Matrix A = random_batch(4, 9), B = random_batch(4, 7), narrow = random_batch(4, 6),
                 fp64 = random_batch(4, 9, kF64), short_k = random_batch(3, 7);
    snk::Descriptor d;
    d.transpose_first = true;
    snk::Descriptor with_mask = d;
    with_mask.mask_structure = true;
    const auto refused = [&](snk::Info code, const std::function<void()>& call, const char* what) {
      expect_refused(x, backend, "optimizer_step_sampled", code, call, what);
    };
    refused(snk::Info::InvalidValue, [&] { snk::optimizer_step_sampled(x.P, x.S1, &x.S2, A, B, with_mask, adam); },
            "a mask field in the descriptor");
    refused(snk::Info::DimensionMismatch, [&] { snk::optimizer_step_sampled(x.P, x.S1, &x.S2, A, narrow, d, adam); },
            "op(B) of 6 columns");
    refused(snk::Info::DimensionMismatch, [&] { snk::optimizer_step_sampled(x.P, x.S1, &x.S2, A, short_k, d, adam); },
            "inner dimensions 4 and 3");
    refused(snk::Info::DomainMismatch, [&] { snk::optimizer_step_sampled(x.P, x.S1, &x.S2, fp64, B, d, adam); },
            "A of FP64");
    refused(snk::Info::NullPointer, [&] { snk::optimizer_step_sampled(x.P, x.S1, nullptr, A, B, d, adam); },
            "Adam without S2");
  }
}

// On the cuda backend the weights, their gradient and Adam's two moments hold one pattern on the device: each is its
// values on the weights' shared pattern arrays (so the state costs at most four value arrays and one pattern).
TEST(Adam, StateSharesTheWeightsPatternOnTheGpu) {
  const auto all = backends();
  if (std::find(all.begin(), all.end(), "cuda") == all.end()) GTEST_SKIP() << "no usable cuda backend";
  snk::BackendScope scope("cuda");
  SparseLinear layer(300, 200, 0.1, rng()());
  snk::layers::Adam adam(0.01f);
  for (int s = 0; s < 2; ++s) {
    layer.backward(random_batch(8, 300), random_batch(8, 200));   // a batch the one pass takes (K <= 8)
    adam.step(layer);
  }
  ASSERT_NE(layer.weight().device_copy(), nullptr) << "the weights live on the device after a step";
  // W's arrays are held by W, m and v (the step took dW within its pass: nothing stored it), then by dW as well once
  // it is asked for.
  const std::string key = "pattern arrays shared with ";
  const auto sharers = [&] {
    const std::string w = layer.weight().device_copy()->describe();
    const auto at = w.find(key);
    EXPECT_NE(at, std::string::npos) << w;
    return at == std::string::npos ? -1 : std::stoi(w.substr(at + key.size()));
  };
  EXPECT_EQ(sharers(), 2) << "W, m and v";
  EXPECT_EQ(layer.weight_grad().nvals(), layer.weight().nvals());
  EXPECT_EQ(sharers(), 3) << "W, m, v and dW";
  for (const auto& [name, M] : adam.state()) {
    if (name[2] != 'w') continue;
    ASSERT_NE(M->device_copy(), nullptr) << name;
    EXPECT_NE(M->device_copy()->describe().find("pattern arrays shared"), std::string::npos)
        << name << ": " << M->device_copy()->describe();
  }
}

// One training step of a small MLP (forward, softmax cross-entropy, backward, Adam) from the same weights and batch on
// every backend: the weights after it agree with the reference backend's within 1e-5 (relative to the largest |w|),
// FP32 sums taken in different orders being the only difference allowed. Adam's eps is 1e-2 here: its first step moves
// a weight by lr * g / (|g| + eps), so with the default 1e-8 a gradient within rounding of zero moves by up to lr
// either way, and sums in another order may flip it (a seed did, by 5e-5 at a weight of 0.23).
TEST(Training, BackendsAgreeOnAStep) {
  snk::layers::MlpSpec spec;
  spec.sizes = {40, 32, 16, 5};
  spec.densities = {0.3, 0.5, 0.8};
  const std::uint64_t seed = rng()();
  Dense x;
  const Matrix X = random_batch(24, 40, x);
  std::vector<std::uint8_t> labels;
  for (int i = 0; i < 24; ++i) labels.push_back(static_cast<std::uint8_t>(rng()() % 5));
  auto step = [&](const std::string& backend) {
    snk::BackendScope scope(backend);
    snk::layers::Mlp net(spec, seed);
    std::vector<snk::layers::Adam> opt(net.layers().size(), snk::layers::Adam(0.01f, 0.9f, 0.999f, 1e-2f));
    const double loss = net.train_batch(X, labels, 1).loss;
    for (std::size_t l = 0; l < opt.size(); ++l) opt[l].step(net.layers()[l]);
    std::vector<std::map<std::pair<Index, Index>, double>> w;
    for (const SparseLinear& l : net.layers()) w.push_back(entries(l.weight()));
    return std::make_pair(loss, w);
  };
  const auto want = step("reference");
  for (const std::string& backend : backends()) {
    if (backend == "reference") continue;
    const auto got = step(backend);
    EXPECT_NEAR(got.first, want.first, 1e-5 * std::fabs(want.first)) << backend << ": the loss";
    for (std::size_t l = 0; l < want.second.size(); ++l) {
      double scale = 0;
      for (const auto& [at, v] : want.second[l]) scale = std::max(scale, std::fabs(v));
      ASSERT_EQ(got.second[l].size(), want.second[l].size()) << backend << " layer " << l;
      for (const auto& [at, v] : want.second[l])
        EXPECT_NEAR(got.second[l].at(at), v, 1e-5 * scale) << backend << " layer " << l;
    }
  }
}

// A step that keeps nothing for rewiring (the layers take their inputs and output gradients instead of copies) leaves
// the same gradients, bit for bit, as one that keeps them, on every backend; only the kept one has them to read.
TEST(Training, StepWithoutKeepingForRewiringLeavesTheSameGradients) {
  snk::layers::MlpSpec spec;
  spec.sizes = {30, 24, 6};
  spec.densities = {0.4, 0.6};
  const std::uint64_t seed = rng()();
  Dense x;
  const Matrix X = random_batch(12, 30, x);
  std::vector<std::uint8_t> labels;
  for (int i = 0; i < 12; ++i) labels.push_back(static_cast<std::uint8_t>(rng()() % 6));
  for (const std::string& backend : backends()) {
    snk::BackendScope scope(backend);
    snk::layers::Mlp kept(spec, seed), taken(spec, seed);
    EXPECT_EQ(kept.train_batch(X, labels, 3, true).loss, taken.train_batch(X, labels, 3, false).loss) << backend;
    for (std::size_t l = 0; l < kept.layers().size(); ++l) {
      EXPECT_EQ(entries(taken.layers()[l].weight_grad()), entries(kept.layers()[l].weight_grad())) << backend << " " << l;
      EXPECT_EQ(entries(taken.layers()[l].bias_grad().as_matrix()), entries(kept.layers()[l].bias_grad().as_matrix()))
          << backend << " " << l;
      EXPECT_EQ(kept.last_input(l).nrows(), 12) << backend;
      EXPECT_EQ(taken.last_input(l).nrows(), 0) << backend;
    }
  }
}

// A checkpoint's matrices (any builtin type, any pattern) and series come back exactly; a cut, altered or foreign file
// is refused with a message that names it.
TEST(Checkpoint, RoundTripAndDamagedFiles) {
  const std::string path = ::testing::TempDir() + "snack_checkpoint_test.ckpt";
  snk::layers::Checkpoint c;
  c.config = "a test run";
  c.epoch = 3;
  c.step = 12345;
  c.matrices.emplace_back("fp32", random_batch(5, 7));
  c.matrices.emplace_back("fp64", SparseLinear(9, 4, 0.3, rng()(), true, kF64).weight());
  Matrix flags(&snk::types::Bool, 3, 3);
  const bool t = true;
  flags.set_element(1, 2, &t, &snk::types::Bool);
  c.matrices.emplace_back("flags", flags);
  c.matrices.emplace_back("empty", Matrix(&snk::types::FP32, 0, 0));
  c.series.emplace_back("loss", std::vector<double>{2.5, 1.25, 0.125});
  snk::layers::save_checkpoint(path, c);
  const snk::layers::Checkpoint r = snk::layers::load_checkpoint(path);
  EXPECT_EQ(r.config, c.config);
  EXPECT_EQ(r.epoch, 3u);
  EXPECT_EQ(r.step, 12345u);
  ASSERT_EQ(r.matrices.size(), c.matrices.size());
  for (std::size_t k = 0; k < c.matrices.size(); ++k) {
    const Matrix &a = c.matrices[k].second, &b = r.matrices[k].second;
    EXPECT_EQ(r.matrices[k].first, c.matrices[k].first);
    EXPECT_EQ(b.type(), a.type());
    EXPECT_EQ(b.nrows(), a.nrows());
    EXPECT_EQ(b.ncols(), a.ncols());
    EXPECT_EQ(entries(b), entries(a)) << c.matrices[k].first;
  }
  EXPECT_EQ(r.numbers("loss"), (std::vector<double>{2.5, 1.25, 0.125}));
  EXPECT_THROW(r.matrix("absent"), snk::Error);
  // Damaged copies.
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto refused = [&](const std::string& content, const std::string& expect, snk::Info info) {
    const std::string bad = path + ".bad";
    std::ofstream(bad, std::ios::binary) << content;
    try {
      snk::layers::load_checkpoint(bad);
      ADD_FAILURE() << "accepted: " << expect;
    } catch (const snk::Error& e) {
      EXPECT_EQ(e.info(), info) << e.what();
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  };
  refused(bytes.substr(0, bytes.size() / 2), "damaged or truncated", snk::Info::InvalidObject);
  refused(bytes.substr(0, 10), "truncated", snk::Info::InvalidObject);
  std::string flipped = bytes;
  flipped[bytes.size() / 3] ^= 0x40;
  refused(flipped, "damaged or truncated", snk::Info::InvalidObject);
  refused("# a text file, not a checkpoint\n", "not a snack checkpoint", snk::Info::InvalidObject);
  EXPECT_THROW(snk::layers::load_checkpoint(path + ".absent"), snk::Error);
}

TEST(Training, BadInputsGiveClearErrorsAndChangeNothing) {
  const Matrix Z = random_batch(4, 3);
  EXPECT_THROW(snk::layers::softmax_cross_entropy(Z, {0, 1, 2}), snk::Error) << "3 labels for 4 rows";
  try {
    snk::layers::softmax_cross_entropy(Z, {0, 1, 2, 3});
    ADD_FAILURE() << "label 3 of 3 classes accepted";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), snk::Info::InvalidValue);
    EXPECT_NE(std::string(e.what()).find("label 3"), std::string::npos) << e.what();
  }
  Matrix holey = Z;
  holey.remove_element(1, 1);
  EXPECT_THROW(snk::layers::softmax_cross_entropy(holey, {0, 1, 2, 0}), snk::Error) << "logits with a hole";
  EXPECT_THROW(snk::layers::relu_backward(random_batch(4, 3), random_batch(4, 2)), snk::Error);
  EXPECT_THROW(snk::layers::Adam(0.01f, 1.0f), snk::Error);
  EXPECT_THROW(snk::layers::Adam(0.01f, 0.9f, 0.999f, 0.0f), snk::Error);
  EXPECT_THROW(SparseLinear(4, 3, 0.5, 1, true, &snk::types::Int32), snk::Error);
  // An optimizer refuses a layer of another shape than the one it started with, and changes nothing.
  SparseLinear a(6, 4, 0.5, 1), b(5, 4, 0.5, 2);
  snk::layers::Adam adam;
  a.backward(random_batch(3, 6), random_batch(3, 4));
  adam.step(a);
  b.backward(random_batch(3, 5), random_batch(3, 4));
  const auto before = entries(b.weight());
  EXPECT_THROW(adam.step(b), snk::Error);
  EXPECT_EQ(entries(b.weight()), before);
  EXPECT_EQ(adam.steps(), 1u);
  // A batch of the wrong type for the layer.
  EXPECT_THROW(a.forward(random_batch(3, 6, kF64)), snk::Error);
}

}  // namespace
