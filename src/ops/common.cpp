// src/ops/common.cpp: the shared pieces of the operation front-ends (see common.hpp): argument checks,
// operands, results, index lists, and the assign step used by every assign variant.
#include "ops/common.hpp"

#include <mutex>
#include <new>
#include <utility>

namespace snk::core {

std::string dims_string(Index nrows, Index ncols) {
  return std::to_string(nrows) + " x " + std::to_string(ncols);
}

static std::string type_name(const Type* t) { return t ? t->name : std::string("(any)"); }

void check_castable(const Type* to, const Type* from, const std::string& what) {
  if (!castable(to, from))
    throw Error(Info::DomainMismatch, what + ": type " + type_name(from) + " cannot be cast to type " +
                                          type_name(to) + " (a user-defined type casts only to itself)");
}

void check_mask(const char* op, const Matrix* mask, Index nrows, Index ncols, const Descriptor& d) {
  if (mask == nullptr) return;
  if (!d.mask_structure && !mask->type()->builtin())
    throw Error(Info::DomainMismatch, std::string(op) + ": a valued mask must have a builtin type, but it has "
                                          "the user-defined type " + mask->type()->name +
                                          " (use a structural mask for it)");
  if (mask->nrows() != nrows || mask->ncols() != ncols) {
    if (mask->is_vector())
      throw Error(Info::DimensionMismatch, std::string(op) + ": the mask has size " +
                                               std::to_string(mask->ncols()) + " but the output has size " +
                                               std::to_string(ncols));
    throw Error(Info::DimensionMismatch, std::string(op) + ": the mask is " +
                                             dims_string(mask->nrows(), mask->ncols()) + " but the output is " +
                                             dims_string(nrows, ncols));
  }
}

void check_output_domains(const char* op, const Type* c_type, const BinaryOp* accum, const Type* t_type) {
  std::string o(op);
  check_castable(c_type, t_type, o + ": the result (type of T) to the output");
  if (accum != nullptr) {
    check_castable(accum->xtype, c_type, o + ": the output to the accumulator's first input");
    check_castable(accum->ytype, t_type, o + ": the result (type of T) to the accumulator's second input");
    check_castable(c_type, accum->ztype, o + ": the accumulator's output to the output");
  }
}

void check_dim(const char* op, Index a, const char* what_a, Index b, const char* what_b) {
  if (a != b)
    throw Error(Info::DimensionMismatch, std::string(op) + ": " + what_a + " is " + std::to_string(a) +
                                             " but " + what_b + " is " + std::to_string(b));
}

IndexList index_list(const Index* list, Index n, Index dim) {
  IndexList l;
  l.list = list;
  l.all = (list == nullptr);
  l.n = l.all ? dim : n;
  return l;
}

void check_index_list(const char* op, const IndexList& list, Index bound, const char* what) {
  if (list.all) return;   // every index below the dimension it was made for
  for (Index k = 0; k < list.n; ++k)
    if (list.list[k] >= bound)
      throw Error(Info::IndexOutOfBounds, std::string(op) + ": " + what + " index list entry " + std::to_string(k) +
                                              " is " + std::to_string(list.list[k]) +
                                              ", out of bounds for dimension " + std::to_string(bound));
}

Result::Result(const Type* type, Index nrows, Index ncols, bool vector) {
  if (vector) vector_ = std::make_unique<Vector>(type, ncols);
  else matrix_ = std::make_unique<Matrix>(type, nrows, ncols);
}

Matrix transposed(const Matrix& A) {
  Matrix T(A.type(), A.ncols(), A.nrows());
  dispatch("transpose", [&](Backend& b) { return b.transpose(T, A); });
  return T;
}

void Operand::own(std::unique_ptr<Matrix> m) {
  owned_ = std::move(m);   // may free a previous owned copy that ptr_ pointed to; ptr_ is reset now
  owned_vector_.reset();
  ptr_ = owned_.get();
}

void Operand::transpose() { own(std::make_unique<Matrix>(transposed(*ptr_))); }

void Operand::cast_to(const Type* type) {
  if (ptr_->type() == type) return;
  if (!ptr_->is_vector()) {   // a matrix: its cast is kept with it (Matrix::cached_cast), made once under a lock
    static std::mutex cache_mutex;
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (const Matrix* kept = ptr_->cached_cast(type)) {
      ptr_ = kept;
      return;
    }
    std::unique_ptr<Matrix> c = cast_matrix(*ptr_, type);
    if (c) ptr_ = &ptr_->keep_cast(std::move(c));
    return;
  }
  std::unique_ptr<Matrix> c = cast_matrix(*ptr_, type);
  if (!c) return;
  if (ptr_->is_vector() && !c->is_vector()) {
    // Keep the vector shape: kernels read is_vector() (index-unary operators swap coordinates for it).
    auto v = std::make_unique<Vector>(type, c->ncols());
    v->as_matrix().adopt(CsrStorage(c->csr()));
    owned_.reset();
    owned_vector_ = std::move(v);
    ptr_ = &owned_vector_->as_matrix();
    return;
  }
  own(std::move(c));
}

Matrix Operand::take() {
  if (owned_) return std::move(*owned_);
  if (owned_vector_) return std::move(owned_vector_->as_matrix());
  return Matrix(*ptr_);
}

void assign_region(Matrix& C, const Matrix* mask, const BinaryOp* accum, Operand A, const IndexList& I,
                   const IndexList& J, const Descriptor& d) {
  if (finish_if_all_masked_out(C, mask, nullptr, C.type(), d)) return;
  Result Z(C.type(), C.nrows(), C.ncols(), C.is_vector());
  Matrix& z = Z.get();
  // The region is all of C: Z is A (cast to C's type), or with an accumulator of C's type the union C (+) A, which is
  // eWiseAdd's; no backend needs an assign kernel for it, and a device-resident A stays where it is.
  if (I.covers(C.nrows()) && J.covers(C.ncols()) && (accum == nullptr || (accum->xtype == C.type() &&
                                                                           accum->ztype == C.type()))) {
    if (accum == nullptr) {
      A.cast_to(C.type());
      z.take(A.take());
    } else {
      A.cast_to(accum->ytype);
      dispatch("ewise_add", [&](Backend& b) { return b.ewise_add(z, MaskHint{}, *accum, C, A.get()); });
    }
    finish(C, mask, nullptr, Z.take(), d);
    return;
  }
  if (accum == nullptr) {
    A.cast_to(C.type());
    dispatch("assign", [&](Backend& b) { return b.assign(z, C, nullptr, A.get(), I, J); });
  } else if (accum->xtype == C.type() && accum->ztype == C.type()) {
    A.cast_to(accum->ytype);
    dispatch("assign", [&](Backend& b) { return b.assign(z, C, accum, A.get(), I, J); });
  } else {
    // The accumulator's domains differ from C's: form the region's new content R = C(I,J) (.) A with the
    // core's accumulate step (which casts C's values to accum's x, A's to its y, and the result back to
    // C's type), then put R into the region without an accumulator. Entries of C(I,J) that A lacks are
    // kept by the accumulate step, so this equals the kernel's accumulate semantics.
    Matrix R(C.type(), I.n, J.n);
    dispatch("extract", [&](Backend& b) { return b.extract(R, C, I, J); });
    apply_mask_accum(R, nullptr, false, false, accum, A.take(), false);
    dispatch("assign", [&](Backend& b) { return b.assign(z, C, nullptr, R, I, J); });
  }
  finish(C, mask, nullptr, Z.take(), d);
}

}  // namespace snk::core
