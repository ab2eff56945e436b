// tests/core/crossbackend/test_mxv_vxm.cpp: GrB_mxv and GrB_vxm on the backend under test against reference.
//
// Every predefined semiring of every type, both products, on empty, 1 x 1, rectangular, full and
// hypersparse (10^6 x 10^6, 100 entries) shapes; the mask x accumulator x replace product on a few
// semirings; the descriptor's transpose of A; and w = A*w / w = w*A with the output aliasing the input.
#include "crossbackend.hpp"

namespace xb {
namespace {

using namespace snk;

struct MatrixShape {
  Index m, n;
  double density;
  const char* what;
};

class MxvVxm : public TypedCrossBackend {};
XB_FOR_EVERY_TYPE(MxvVxm);

TEST_P(MxvVxm, EverySemiringEveryShape) {
  const std::vector<MatrixShape> shapes{{0, 0, 0.5, "0x0"},   {0, 6, 0.5, "0x6"},      {5, 0, 0.5, "5x0"},
                                        {1, 1, 1.0, "1x1"},   {7, 13, 0.3, "7x13"},   {9, 9, 1.0, "full 9x9"},
                                        {64, 33, 0.15, "64x33"}};
  for (const Semiring* s : semirings_of(this->code())) {
    const Type* wt = s->add->type();
    const ValueRange values = special_values_for(*s);
    for (const MatrixShape& sh : shapes) {
      Matrix A = random_matrix(this->type(), sh.m, sh.n, sh.density, this->rng_, values);
      Vector u = random_vector(this->type(), sh.n, 0.6, this->rng_, values);
      Vector v = random_vector(this->type(), sh.m, 0.6, this->rng_, values);
      cross_check(s->name + " mxv " + sh.what, Vector(wt, sh.m), [&](Vector& w) { mxv(w, nullptr, nullptr, *s, A, u); },
                  {double(sh.n) * 9});
      cross_check(s->name + " vxm " + sh.what, Vector(wt, sh.n), [&](Vector& w) { vxm(w, nullptr, nullptr, *s, v, A); },
                  {double(sh.m) * 9});
    }
    Matrix A = random_matrix(this->type(), 10, 8, 0.4, this->rng_);
    Vector u = random_vector(this->type(), 8, 0.7, this->rng_);
    Vector w0 = random_vector(wt, 10, 0.5, this->rng_);
    Vector m = random_mask_vector(10, 0.7, this->rng_);
    Descriptor d = with_mask({}, MaskKind::ValuedComplement);
    cross_check(s->name + " w<!m> += A*u", w0, [&](Vector& w) { mxv(w, &m, s->add->op, *s, A, u, d); }, {80});
    Descriptor t;
    t.transpose_second = true;  // vxm: A is the second input
    cross_check(s->name + " w<m> += u*A'", w0, [&](Vector& w) { vxm(w, &m, s->add->op, *s, u, A, t); }, {80});
  }
}

class MxvVxmFixed : public CrossBackend {};

TEST_F(MxvVxmFixed, MaskAccumReplaceProduct) {
  for (const Semiring* s : {&semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP32),
                            &semiring(BinaryOpcode::Max, BinaryOpcode::First, TypeCode::Int8),
                            &semiring(BinaryOpcode::LAnd, BinaryOpcode::LOr, TypeCode::Bool)}) {
    const Type* t = s->multiply->xtype;
    Matrix A = random_matrix(t, 11, 11, 0.35, rng_);
    Vector u = random_vector(t, 11, 0.6, rng_);
    Vector w0 = random_vector(s->add->type(), 11, 0.5, rng_);
    Vector m = random_mask_vector(11, 0.6, rng_);
    for (MaskKind mk : all_mask_kinds())
      for (AccumKind ak : all_accum_kinds())
        for (bool replace : {false, true})
          for (bool transpose : {false, true}) {
            Descriptor d = with_mask({}, mk);
            d.replace = replace;
            const Vector* mask = mk == MaskKind::None ? nullptr : &m;
            const BinaryOp* accum = accum_of(ak, s->add->type()->code);
            const std::string what = s->name + ": " + describe(mk, ak, replace) + (transpose ? ", A'" : "");
            Descriptor dm = d;
            dm.transpose_first = transpose;
            cross_check("mxv " + what, w0, [&](Vector& w) { mxv(w, mask, accum, *s, A, u, dm); }, {100});
            Descriptor dv = d;
            dv.transpose_second = transpose;
            cross_check("vxm " + what, w0, [&](Vector& w) { vxm(w, mask, accum, *s, u, A, dv); }, {100});
          }
  }
}

TEST_F(MxvVxmFixed, AliasedOutputs) {
  for (const Semiring* s : {&semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64),
                            &semiring(BinaryOpcode::Min, BinaryOpcode::Plus, TypeCode::UInt32)}) {
    const Type* t = s->add->type();
    Matrix A = random_matrix(t, 15, 15, 0.3, rng_);
    Vector w0 = random_vector(t, 15, 0.6, rng_);
    const BinaryOp* minus = builtin_binary_op(BinaryOpcode::Minus, t->code);
    cross_check(s->name + " w = A*w", w0, [&](Vector& w) { mxv(w, nullptr, nullptr, *s, A, w); }, {150});
    cross_check(s->name + " w = w*A", w0, [&](Vector& w) { vxm(w, nullptr, nullptr, *s, w, A); }, {150});
    cross_check(s->name + " w<w> -= A'*w", w0,
                [&](Vector& w) {
                  Descriptor d;
                  d.transpose_first = true;
                  mxv(w, &w, minus, *s, A, w, d);
                },
                {150});
    cross_check(s->name + " w<!w, struct, replace> = w*A", w0,
                [&](Vector& w) {
                  Descriptor d = with_mask({}, MaskKind::StructuralComplement);
                  d.replace = true;
                  vxm(w, &w, nullptr, *s, w, A, d);
                },
                {150});
  }
}

// A 10^6 x 10^6 matrix with 100 entries times sparse vectors of size 10^6 sharing its indices.
TEST_F(MxvVxmFixed, Hypersparse) {
  const Index n = 1000000;
  for (TypeCode code : {TypeCode::FP64, TypeCode::Int16, TypeCode::Bool}) {
    const Type* t = builtin_type(code);
    const Semiring& s = code == TypeCode::Bool ? semiring(BinaryOpcode::LOr, BinaryOpcode::LAnd, code)
                                               : semiring(BinaryOpcode::Min, BinaryOpcode::Plus, code);
    const std::vector<Index> idx = random_indices(n, 40, rng_);
    Matrix A = sparse_matrix_on(t, n, n, idx, idx, 100, rng_);
    Vector u(t, n), m(&types::Bool, n);
    for (std::size_t k = 0; k < idx.size(); k += 2) {
      const double x = draw_value(code, {}, rng_), b = double(k % 4 == 0);
      u.set_element(idx[k], &x, &types::FP64);
      m.set_element(idx[(k + 1) % idx.size()], &b, &types::FP64);
    }
    Vector w0 = sparse_vector_with(t, n, 30, rng_);
    cross_check(s.name + " hypersparse mxv", Vector(t, n), [&](Vector& w) { mxv(w, nullptr, nullptr, s, A, u); });
    cross_check(s.name + " hypersparse vxm", Vector(t, n), [&](Vector& w) { vxm(w, nullptr, nullptr, s, u, A); });
    cross_check(s.name + " hypersparse w<m> += A*u", w0, [&](Vector& w) { mxv(w, &m, s.add->op, s, A, u); });
    cross_check(s.name + " hypersparse w<!m,replace> = u*A'", w0, [&](Vector& w) {
      Descriptor d = with_mask({}, MaskKind::ValuedComplement);
      d.replace = true;
      d.transpose_second = true;
      vxm(w, &m, nullptr, s, u, A, d);
    });
  }
}

// A full vector and a full matrix (dense kernels), in FP32 where summation order matters most.
TEST_F(MxvVxmFixed, FullOperands) {
  for (TypeCode code : {TypeCode::FP32, TypeCode::FP64, TypeCode::Int64}) {
    const Type* t = builtin_type(code);
    const Semiring& s = semiring(BinaryOpcode::Plus, BinaryOpcode::Times, code);
    Matrix A = random_matrix(t, 40, 70, 1.0, rng_, ValueRange{-2, 2, 0});
    Vector u = random_vector(t, 70, 1.0, rng_, ValueRange{-2, 2, 0});
    Vector v = random_vector(t, 40, 1.0, rng_, ValueRange{-2, 2, 0});
    cross_check(s.name + " full 40x70 * full u", Vector(t, 40), [&](Vector& w) { mxv(w, nullptr, nullptr, s, A, u); },
                {280});
    cross_check(s.name + " full v * full 40x70", Vector(t, 70), [&](Vector& w) { vxm(w, nullptr, nullptr, s, v, A); },
                {160});
  }
}

// The large size class (kLargeRows rows), so that the kokkos kernels run on several threads.
TEST_F(MxvVxmFixed, LargeParallel) {
  for (const Semiring* s : {&semiring(BinaryOpcode::Plus, BinaryOpcode::Times, TypeCode::FP64),
                            &semiring(BinaryOpcode::Max, BinaryOpcode::Min, TypeCode::Int16),
                            &semiring(BinaryOpcode::LAnd, BinaryOpcode::LOr, TypeCode::Bool)}) {
    const Type* t = s->multiply->xtype;
    Matrix A = random_matrix(t, kLargeRows, 300, 0.01, rng_);
    Vector u = random_vector(t, 300, 0.5, rng_), v = random_vector(t, kLargeRows, 0.5, rng_);
    Vector m = random_mask_vector(kLargeRows, 0.5, rng_);
    cross_check(s->name + " large mxv", Vector(s->add->type(), kLargeRows),
                [&](Vector& w) { mxv(w, nullptr, nullptr, *s, A, u); }, {100});
    cross_check(s->name + " large w<m> = A*u", Vector(s->add->type(), kLargeRows),
                [&](Vector& w) { mxv(w, &m, nullptr, *s, A, u); }, {100});
    cross_check(s->name + " large vxm", Vector(s->add->type(), 300),
                [&](Vector& w) { vxm(w, nullptr, nullptr, *s, v, A); }, {1000});
    Descriptor t1;
    t1.transpose_first = true;
    cross_check(s->name + " large A'*v", Vector(s->add->type(), 300),
                [&](Vector& w) { mxv(w, nullptr, nullptr, *s, A, v, t1); }, {1000});
  }
}

}  // namespace
}  // namespace xb
