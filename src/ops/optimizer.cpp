// src/ops/optimizer.cpp: snk::optimizer_step (snack/operations.hpp), the sparse layers' optimizer update as one
// library operation. The current backend may run it as one pass over values of a shared pattern
// (Backend::optimizer_step); otherwise, and as the definition of its result, it runs as the GraphBLAS calls that
// spell out the rule, each dispatched as usual.
#include <cmath>
#include <string>

#include "ops/common.hpp"

namespace snk {
namespace {

const BinaryOp& op(BinaryOpcode code, const Type* t) { return *builtin_binary_op(code, t->code); }

Scalar scalar(const Type* t, double v) {
  Scalar s(t);
  s.set(&v, &types::FP64);
  return s;
}

// The checks of both forms; G is null for the sampled one (its dimensions, those of op(A) op(B), are checked there).
void check(const char* name, Matrix& P, Matrix& S1, Matrix* S2, const Matrix* G, const OptimizerStep& step) {
  const bool adam = step.rule == OptimizerStep::Rule::Adam;
  if (adam && S2 == nullptr)
    throw Error(Info::NullPointer, std::string(name) + ": an Adam step needs its second moment S2");
  if (!adam && S2 != nullptr)
    throw Error(Info::InvalidValue, std::string(name) + ": an SGD step has no second state (S2 must be null)");
  const void* objects[4] = {&P, &S1, S2, G};
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b)
      if (objects[a] != nullptr && objects[a] == objects[b])
        throw Error(Info::InvalidValue, std::string(name) + ": P, S1, S2 and G must be four different objects");
  if (!P.type()->builtin() || (P.type()->code != TypeCode::FP32 && P.type()->code != TypeCode::FP64))
    throw Error(Info::DomainMismatch, std::string(name) + ": P must be FP32 or FP64, not " + P.type()->name);
  const auto same = [&](const Matrix& X, const char* what) {
    if (X.type() != P.type())
      throw Error(Info::DomainMismatch, std::string(name) + ": " + what + " is " + X.type()->name + " but P is " +
                                            P.type()->name);
    core::check_dim(name, X.nrows(), (std::string(what) + "'s rows").c_str(), P.nrows(), "P's rows");
    core::check_dim(name, X.ncols(), (std::string(what) + "'s columns").c_str(), P.ncols(), "P's columns");
  };
  same(S1, "S1");
  if (S2) same(*S2, "S2");
  if (G) same(*G, "G");
  if (adam && step.t < 1)
    throw Error(Info::InvalidValue, std::string(name) + ": the step number t must be at least 1, not " +
                                        std::to_string(step.t));
}

// The step as GraphBLAS calls, one line of the rule after another.
void composed(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& st) {
  const Type* t = P.type();
  const BinaryOp &times = op(BinaryOpcode::Times, t), &plus = op(BinaryOpcode::Plus, t);
  const Index nr = P.nrows(), nc = P.ncols();
  Matrix g = G;
  if (st.rule == OptimizerStep::Rule::SgdMomentum) {
    if (st.weight_decay != 0) apply_bind_second(g, nullptr, &plus, times, P, scalar(t, st.weight_decay));
    apply_bind_second(S1, nullptr, nullptr, times, S1, scalar(t, st.momentum));
    ewise_add(S1, nullptr, nullptr, plus, S1, g);
    apply_bind_second(P, nullptr, &op(BinaryOpcode::Minus, t), times, S1, scalar(t, st.lr));
    return;
  }
  const double c1 = 1.0 - std::pow(st.beta1, static_cast<double>(st.t));
  const double c2 = 1.0 - std::pow(st.beta2, static_cast<double>(st.t));
  if (st.weight_decay != 0) {
    if (st.decoupled)
      apply_bind_second(P, nullptr, nullptr, times, P, scalar(t, 1.0 - st.lr * st.weight_decay));
    else
      apply_bind_second(g, nullptr, &plus, times, P, scalar(t, st.weight_decay));
  }
  apply_bind_second(S1, nullptr, nullptr, times, S1, scalar(t, st.beta1));
  apply_bind_second(S1, nullptr, &plus, times, g, scalar(t, 1.0 - st.beta1));
  Matrix g2(t, nr, nc);
  ewise_mult(g2, nullptr, nullptr, times, g, g);
  apply_bind_second(*S2, nullptr, nullptr, times, *S2, scalar(t, st.beta2));
  apply_bind_second(*S2, nullptr, &plus, times, g2, scalar(t, 1.0 - st.beta2));
  Matrix d(t, nr, nc);
  apply_bind_second(d, nullptr, nullptr, times, *S2, scalar(t, 1.0 / c2));
  apply(d, nullptr, nullptr, *builtin_unary_op(UnaryOpcode::Sqrt, t->code), d);
  apply_bind_second(d, nullptr, nullptr, plus, d, scalar(t, st.eps));
  Matrix u(t, nr, nc);
  ewise_mult(u, nullptr, nullptr, op(BinaryOpcode::Div, t), S1, d);
  apply_bind_second(P, nullptr, &op(BinaryOpcode::Minus, t), times, u, scalar(t, st.lr / c1));
}

}  // namespace

void optimizer_step(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& step) {
  check("optimizer_step", P, S1, S2, &G, step);
  core::Backend& backend = core::current_backend_object();
  {
    core::CallTrace trace("optimizer_step");
    if (backend.optimizer_step(P, S1, S2, G, step) == core::KernelStatus::Done) {
      trace.ran_on(backend);
      return;
    }
    trace.ran_on("as calls");
  }
  composed(P, S1, S2, G, step);
}

void optimizer_step_sampled(Matrix& P, Matrix& S1, Matrix* S2, const Matrix& A, const Matrix& B, const Descriptor& d,
                            const OptimizerStep& step) {
  const char* name = "optimizer_step_sampled";
  check(name, P, S1, S2, nullptr, step);
  if (d.replace || d.mask_complement || d.mask_structure)
    throw Error(Info::InvalidValue, std::string(name) + ": the descriptor may only transpose A or B (P is the mask)");
  for (const Matrix* X : {&A, &B})
    if (X->type() != P.type())
      throw Error(Info::DomainMismatch, std::string(name) + ": A and B must be of P's type " + P.type()->name +
                                            ", not " + X->type()->name);
  const Index a_rows = d.transpose_first ? A.ncols() : A.nrows(), a_k = d.transpose_first ? A.nrows() : A.ncols();
  const Index b_k = d.transpose_second ? B.ncols() : B.nrows(), b_cols = d.transpose_second ? B.nrows() : B.ncols();
  core::check_dim(name, a_rows, "op(A)'s rows", P.nrows(), "P's rows");
  core::check_dim(name, b_cols, "op(B)'s columns", P.ncols(), "P's columns");
  core::check_dim(name, b_k, "op(B)'s rows", a_k, "op(A)'s columns");
  core::Backend& backend = core::current_backend_object();
  {
    core::CallTrace trace(name);
    if (backend.optimizer_step_sampled(P, S1, S2, A, d.transpose_first, B, d.transpose_second, step) ==
        core::KernelStatus::Done) {
      trace.ran_on(backend);
      return;
    }
    trace.ran_on("as calls");
  }
  Matrix G(P.type(), P.nrows(), P.ncols());
  Descriptor sampled = d;
  sampled.mask_structure = true;
  mxm(G, &P, nullptr, *builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Times, P.type()->code), A, B, sampled);
  optimizer_step(P, S1, S2, G, step);
}

}  // namespace snk
