// src/ops/mxm.cpp: the multiplication front-ends GrB_mxm, GrB_mxv and GrB_vxm (C API spec 2.0, 4.3.1-3).
//
// All three reduce to one kernel call, T = A' (+).(x) B', because vectors are stored as 1 x n rows:
//   mxm:  C = A' B'                      (A' = A or A^T by GrB_INP0, B' likewise by GrB_INP1)
//   vxm:  w^T = u^T A'                   kernel(A = u, B = A, tb = GrB_INP1, flip = false)
//   mxv:  w = A' u  <=>  w^T = u^T A'^T  kernel(A = u, B = A, tb = !GrB_INP0, flip = true)
// In mxv the product terms are multiply(A(i,k), u(k)) with A's value first, so the kernel is told to flip
// the multiplier's operands (it sees u's value first). Transposes stay parameters of the kernel; one that
// declines a transposed input gets a transposed copy and is asked again (run_mxm below) before the
// dispatcher falls back to reference. The mask is passed to the kernel as a hint. Where the result replaces C whole,
// the memory C's caller lent for results is lent to T (a layer's output: the product is written where it is read).
#include "ops/common.hpp"

namespace snk {
namespace {

using core::Backend;
using core::KernelStatus;
using core::Operand;

// One kernel call with the retry-with-transposed-copies rule. Transposed copies are made once and kept
// for a second backend (the fallback) in `cache`.
struct TransposeCache {
  std::unique_ptr<Matrix> at, bt;
};

KernelStatus run_mxm(Backend& b, Matrix& T, const core::MaskHint& hint, const Semiring& s, const Matrix& A,
                     bool ta, const Matrix& B, bool tb, bool flip, TransposeCache& cache) {
  KernelStatus st = b.mxm(T, hint, s, A, ta, B, tb, flip);
  if (st == KernelStatus::Done || (!ta && !tb)) return st;
  if (ta && !cache.at) cache.at = std::make_unique<Matrix>(core::transposed(A));
  if (tb && !cache.bt) cache.bt = std::make_unique<Matrix>(core::transposed(B));
  return b.mxm(T, hint, s, ta ? *cache.at : A, false, tb ? *cache.bt : B, false, flip);
}

// Checks the semiring's domains against the operands (A is the multiplier's first input unless flip).
void check_semiring_domains(const char* op, const Semiring& s, const Type* a_type, const char* a_name,
                            const Type* b_type, const char* b_name) {
  std::string o(op);
  core::check_castable(s.multiply->xtype, a_type, o + ": " + a_name + " to the multiplier's first input");
  core::check_castable(s.multiply->ytype, b_type, o + ": " + b_name + " to the multiplier's second input");
}

// The common body once arguments are checked: T (of the shape of C) = kernel, then the mask step.
void multiply(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Semiring& s, Operand A, bool ta,
              Operand B, bool tb, bool flip, const Descriptor& d) {
  if (core::finish_if_all_masked_out(C, mask, accum, s.add->type(), d)) return;
  A.cast_to(flip ? s.multiply->ytype : s.multiply->xtype);
  B.cast_to(flip ? s.multiply->xtype : s.multiply->ytype);
  core::Result T(s.add->type(), C.nrows(), C.ncols(), C.is_vector());
  core::MaskHint hint{mask, d.mask_structure, d.mask_complement};
  TransposeCache cache;
  Matrix& t = T.get();
  // C replaced whole: its memory, where its caller lent it for results, may take T's values (Matrix::lend_memory).
  if (mask == nullptr && accum == nullptr && C.type() == t.type() && C.device_valid() && C.device_copy() != nullptr)
    t.lend_memory(C.device_copy()->lendable_memory());
  core::dispatch("mxm", [&](Backend& b) {
    return run_mxm(b, t, hint, s, A.get(), ta, B.get(), tb, flip, cache);
  });
  t.lend_memory({});
  core::finish(C, mask, accum, T.take(), d);
}

}  // namespace

void mxm(Matrix& C, const Matrix* mask, const BinaryOp* accum, const Semiring& s, const Matrix& A,
         const Matrix& B, const Descriptor& d) {
  const char* op = "mxm";
  check_semiring_domains(op, s, A.type(), "A", B.type(), "B");
  core::check_output_domains(op, C.type(), accum, s.add->type());
  core::check_mask(op, mask, C.nrows(), C.ncols(), d);
  const Index am = d.transpose_first ? A.ncols() : A.nrows();
  const Index ak = d.transpose_first ? A.nrows() : A.ncols();
  const Index bk = d.transpose_second ? B.ncols() : B.nrows();
  const Index bn = d.transpose_second ? B.nrows() : B.ncols();
  core::check_dim(op, ak, "ncols(A) (after the descriptor's transpose)", bk,
                  "nrows(B) (after the descriptor's transpose)");
  core::check_dim(op, C.nrows(), "nrows(C)", am, "nrows(A) (after the descriptor's transpose)");
  core::check_dim(op, C.ncols(), "ncols(C)", bn, "ncols(B) (after the descriptor's transpose)");
  multiply(C, mask, accum, s, Operand(A), d.transpose_first, Operand(B), d.transpose_second, false, d);
}

void vxm(Vector& w, const Vector* mask, const BinaryOp* accum, const Semiring& s, const Vector& u,
         const Matrix& A, const Descriptor& d) {
  const char* op = "vxm";
  const Matrix* m = core::mask_matrix(mask);
  check_semiring_domains(op, s, u.type(), "u", A.type(), "A");
  core::check_output_domains(op, w.type(), accum, s.add->type());
  core::check_mask(op, m, 1, w.size(), d);
  const Index an = d.transpose_second ? A.ncols() : A.nrows();
  const Index am = d.transpose_second ? A.nrows() : A.ncols();
  core::check_dim(op, u.size(), "size(u)", an, "nrows(A) (after the descriptor's transpose)");
  core::check_dim(op, w.size(), "size(w)", am, "ncols(A) (after the descriptor's transpose)");
  multiply(w.as_matrix(), m, accum, s, Operand(u.as_matrix()), false, Operand(A), d.transpose_second, false, d);
}

void mxv(Vector& w, const Vector* mask, const BinaryOp* accum, const Semiring& s, const Matrix& A,
         const Vector& u, const Descriptor& d) {
  const char* op = "mxv";
  const Matrix* m = core::mask_matrix(mask);
  check_semiring_domains(op, s, A.type(), "A", u.type(), "u");
  core::check_output_domains(op, w.type(), accum, s.add->type());
  core::check_mask(op, m, 1, w.size(), d);
  const Index am = d.transpose_first ? A.ncols() : A.nrows();
  const Index an = d.transpose_first ? A.nrows() : A.ncols();
  core::check_dim(op, u.size(), "size(u)", an, "ncols(A) (after the descriptor's transpose)");
  core::check_dim(op, w.size(), "size(w)", am, "nrows(A) (after the descriptor's transpose)");
  // w^T = u^T A'^T: the kernel's B is A, transposed unless the descriptor already asks for A^T.
  multiply(w.as_matrix(), m, accum, s, Operand(u.as_matrix()), false, Operand(A), !d.transpose_first, true, d);
}

}  // namespace snk
