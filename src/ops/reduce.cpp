// src/ops/reduce.cpp: the front-ends of GrB_reduce (C API spec 2.0, 4.3.10): matrix to vector (per row; per
// column with GrB_INP0 = GrB_TRAN, done by transposing first) with a monoid or a binary operator, and
// matrix or vector to a GrB_Scalar with a monoid or a binary operator.
//
// Settled semantics:
// - A binary operator must have three equal domains (else GrB_DOMAIN_MISMATCH, spec). When it is the
//   operator of a builtin monoid the monoid's kernel is used; otherwise (FIRST, MINUS, a user-defined
//   operator ...) the reduction is a left fold in storage order computed here (the spec allows any
//   operator and leaves non-associative ones undefined; SuiteSparse 7.4 answers GrB_NOT_IMPLEMENTED).
// - Reduction to a GrB_Scalar of an input with no entries: the scalar is cleared without an accumulator
//   and left unchanged with one (spec 2.0's GrB_Scalar variant; SuiteSparse 7.4 does the same, checked
//   with GrB_Matrix_reduce_Monoid_Scalar on an empty 3 x 3 FP64 matrix). The non-opaque <type> val form of
//   the C API, which gets the monoid's identity, is the C shim's business.
// - Otherwise s = accum && s has a value ? accum(s, r) : r, with the spec's casts (s to accum's x, r to
//   its y, the result to s's type).
#include "ops/common.hpp"

#include <cstring>
#include <vector>

namespace snk {
namespace {

using core::Backend;
using core::Operand;

// s = accum && s has a value ? accum(s, r) : r (cast to s's type).
void store_scalar(Scalar& s, const BinaryOp* accum, const Scalar& r) {
  if (accum != nullptr && s.has_value()) {
    Scalar x(accum->xtype), y(accum->ytype);
    x.set(s.data(), s.type());
    y.set(r.data(), r.type());
    std::vector<unsigned char> z(accum->ztype->size + 8);
    accum->fn(z.data(), x.data(), y.data());
    s.set(z.data(), accum->ztype);
  } else {
    s.set(r.data(), r.type());
  }
}

void check_reduce_op(const char* name, const BinaryOp& op) {
  if (op.xtype != op.ytype || op.xtype != op.ztype)
    throw Error(Info::DomainMismatch, std::string(name) + ": a reduction operator must have three equal domains, but " +
                                          op.name + " is " + op.ztype->name + " = f(" + op.xtype->name + ", " +
                                          op.ytype->name + ")");
}

// z = op(acc, v) in place on acc (all three of op's type).
struct Folder {
  const BinaryOp& op;
  std::vector<unsigned char> tmp;
  explicit Folder(const BinaryOp& o) : op(o), tmp(o.ztype->size + 8) {}
  void fold(unsigned char* acc, const unsigned char* v) {
    op.fn(tmp.data(), acc, v);
    std::memcpy(acc, tmp.data(), op.ztype->size);
  }
};

// T (1 x nrows(A)) = left fold of each non-empty row of A with op (A is op's type).
void fold_rows(Matrix& T, const BinaryOp& op, const Matrix& A) {
  const CsrStorage& a = A.csr();
  const std::size_t sz = A.type()->size;
  CsrStorage t;
  t.p.assign(2, 0);
  Folder f(op);
  std::vector<unsigned char> acc(sz + 8);  // an aligned accumulator
  for (Index k = 0; k < a.nslots(); ++k) {
    if (a.p[k] == a.p[k + 1]) continue;
    const Index row = a.hyper ? a.h[k] : k;
    std::memcpy(acc.data(), a.x.data() + a.p[k] * sz, sz);
    for (Index e = a.p[k] + 1; e < a.p[k + 1]; ++e) f.fold(acc.data(), a.x.data() + e * sz);
    t.x.insert(t.x.end(), acc.begin(), acc.begin() + sz);
    t.j.push_back(row);
  }
  t.p[1] = t.j.size();
  T.adopt(std::move(t));
}

// r = left fold of every entry of A (non-empty, of op's type).
void fold_all(Scalar& r, const BinaryOp& op, const Matrix& A) {
  const CsrStorage& a = A.csr();
  const std::size_t sz = A.type()->size;
  std::vector<unsigned char> acc(sz + 8);
  std::memcpy(acc.data(), a.x.data(), sz);
  Folder f(op);
  for (Index e = 1; e < a.nvals(); ++e) f.fold(acc.data(), a.x.data() + e * sz);
  r.set(acc.data(), A.type());
}

// The matrix-to-vector reduction with either a monoid or (monoid == null) a binary operator.
void reduce_to_vector(const char* name, Vector& w, const Vector* mask, const BinaryOp* accum, const Monoid* monoid,
                      const BinaryOp* op, const Matrix& A, const Descriptor& d) {
  const Type* type = monoid ? monoid->type() : op->ztype;
  core::check_castable(type, A.type(), std::string(name) + ": the input to the reduction's type");
  core::check_output_domains(name, w.type(), accum, type);
  const Matrix* m = core::mask_matrix(mask);
  core::check_mask(name, m, 1, w.size(), d);
  core::check_dim(name, w.size(), "size(w)", d.transpose_first ? A.ncols() : A.nrows(),
                  d.transpose_first ? "ncols(A) (reducing columns: GrB_INP0 is GrB_TRAN)" : "nrows(A)");
  if (core::finish_if_all_masked_out(w.as_matrix(), m, accum, type, d)) return;
  Operand a(A);
  core::Result T(type, 1, w.size(), true);
  Matrix& t = T.get();
  if (d.transpose_first && monoid) {   // the columns reduced where they are, where the backend can
    a.cast_to(type);
    if (core::current_backend_object().reduce_columns(t, *monoid, a.get()) == core::KernelStatus::Done) {
      core::finish(w.as_matrix(), m, accum, T.take(), d);
      return;
    }
  }
  if (d.transpose_first) a.transpose();
  a.cast_to(type);
  if (monoid) core::dispatch("reduce", [&](Backend& b) { return b.reduce_rows(t, *monoid, a.get()); });
  else fold_rows(t, *op, a.get());
  core::finish(w.as_matrix(), m, accum, T.take(), d);
}

void reduce_to_scalar(const char* name, Scalar& s, const BinaryOp* accum, const Monoid* monoid, const BinaryOp* op,
                      const Matrix& A) {
  const Type* type = monoid ? monoid->type() : op->ztype;
  core::check_castable(type, A.type(), std::string(name) + ": the input to the reduction's type");
  core::check_output_domains(name, s.type(), accum, type);
  if (A.nvals() == 0) {
    if (accum == nullptr) s.clear();
    return;
  }
  Operand a(A);
  a.cast_to(type);
  Scalar r(type);
  if (monoid) core::dispatch("reduce", [&](Backend& b) { return b.reduce_scalar(r, *monoid, a.get()); });
  else fold_all(r, *op, a.get());
  store_scalar(s, accum, r);
}

}  // namespace

void reduce(Vector& w, const Vector* mask, const BinaryOp* accum, const Monoid& monoid, const Matrix& A,
            const Descriptor& d) {
  reduce_to_vector("reduce", w, mask, accum, &monoid, nullptr, A, d);
}

void reduce(Vector& w, const Vector* mask, const BinaryOp* accum, const BinaryOp& op, const Matrix& A,
            const Descriptor& d) {
  check_reduce_op("reduce", op);
  reduce_to_vector("reduce", w, mask, accum, monoid_of(op), &op, A, d);
}

void reduce(Scalar& s, const BinaryOp* accum, const Monoid& monoid, const Matrix& A, const Descriptor&) {
  reduce_to_scalar("reduce", s, accum, &monoid, nullptr, A);
}

void reduce(Scalar& s, const BinaryOp* accum, const Monoid& monoid, const Vector& u, const Descriptor&) {
  reduce_to_scalar("reduce", s, accum, &monoid, nullptr, u.as_matrix());
}

void reduce(Scalar& s, const BinaryOp* accum, const BinaryOp& op, const Matrix& A, const Descriptor&) {
  check_reduce_op("reduce", op);
  reduce_to_scalar("reduce", s, accum, monoid_of(op), &op, A);
}

void reduce(Scalar& s, const BinaryOp* accum, const BinaryOp& op, const Vector& u, const Descriptor&) {
  check_reduce_op("reduce", op);
  reduce_to_scalar("reduce", s, accum, monoid_of(op), &op, u.as_matrix());
}

}  // namespace snk
