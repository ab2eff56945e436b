// src/capi/operations.cpp: the GraphBLAS operations of the C API (mxm, mxv, vxm, eWiseAdd, eWiseMult,
// extract, assign, apply, select, reduce, transpose, kronecker) in every variant of the spec 2.0.
//
// Each entry point checks its handles (null and uninitialized objects), turns them into the C++ objects
// and calls the C++ front-end (snk::mxm, ...), which checks domains, dimensions and indices before it
// modifies anything. Variants resolve as the spec says: eWiseAdd with a monoid or semiring uses the
// monoid's operator (the semiring's additive monoid); eWiseMult with a monoid uses its operator and with
// a semiring its multiplicative operator; kronecker likewise. A typed scalar argument (_BOOL ... _FP64)
// becomes a GrB_Scalar of that builtin type; a _UDT one holds bytes of the type it stands for (the output's
// type for assign, the bound input's type for apply, the thunk type for index-unary operators). A typed
// reduce to a C value is a reduce to a scalar of the value's type that starts from *c when an accumulator
// is given.
#include <vector>

#include "capi/capi.hpp"

using namespace snk::capi;
using snk::Error;
using snk::Index;
using snk::Info;

namespace {

// A scalar holding one value of `type` copied (cast) from x of `xtype`.
snk::Scalar scalar_from(const void* x, const snk::Type* xtype, const snk::Type* type, const char* what) {
  check_pointer(x, what);
  if (!snk::castable(type, xtype)) {
    throw Error(Info::DomainMismatch, std::string(what) + ": cannot cast " + xtype->name + " to " + type->name);
  }
  snk::Scalar s(type);
  s.set(x, xtype);
  return s;
}

// A scalar argument given as a C value (xtype = its builtin type; nullptr = bytes of `udt_type`).
snk::Scalar scalar_arg(const void* x, const snk::Type* xtype, const snk::Type* udt_type, const char* what) {
  const snk::Type* t = xtype != nullptr ? xtype : udt_type;
  return scalar_from(x, t, t, what);
}

const snk::BinaryOp& ewise_add_op_of_monoid(GrB_Monoid m) { return *monoid_of(m, "op")->op; }
const snk::BinaryOp& ewise_add_op_of_semiring(GrB_Semiring s) { return *semiring_of(s, "op")->add->op; }
const snk::BinaryOp& ewise_mult_op_of_semiring(GrB_Semiring s) { return *semiring_of(s, "op")->multiply; }

}  // namespace

extern "C" {

// ==== multiplication ========================================================================================
GrB_Info GrB_mxm(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_Semiring op,
                 const GrB_Matrix A, const GrB_Matrix B, const GrB_Descriptor desc) {
  return call("GrB_mxm", C, [&] {
    snk::Matrix& c = matrix_of(C, "C");
    const snk::Matrix* m = matrix_or_null(Mask, "Mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Semiring* s = semiring_of(op, "op");
    const snk::Matrix& a = matrix_of(A, "A");
    const snk::Matrix& b = matrix_of(B, "B");
    snk::mxm(c, m, acc, *s, a, b, descriptor_of(desc));
  });
}

GrB_Info GrB_vxm(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Semiring op,
                 const GrB_Vector u, const GrB_Matrix A, const GrB_Descriptor desc) {
  return call("GrB_vxm", w, [&] {
    snk::Vector& out = vector_of(w, "w");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Semiring* s = semiring_of(op, "op");
    const snk::Vector& in = vector_of(u, "u");
    const snk::Matrix& a = matrix_of(A, "A");
    snk::vxm(out, m, acc, *s, in, a, descriptor_of(desc));
  });
}

GrB_Info GrB_mxv(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Semiring op,
                 const GrB_Matrix A, const GrB_Vector u, const GrB_Descriptor desc) {
  return call("GrB_mxv", w, [&] {
    snk::Vector& out = vector_of(w, "w");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Semiring* s = semiring_of(op, "op");
    const snk::Matrix& a = matrix_of(A, "A");
    const snk::Vector& in = vector_of(u, "u");
    snk::mxv(out, m, acc, *s, a, in, descriptor_of(desc));
  });
}

// ==== element-wise ==========================================================================================
// SNK_EWISE(Kind = eWiseAdd/eWiseMult, core function, Op handle type, how to get the BinaryOp)
#define SNK_EWISE(Kind, function, Op, resolve)                                                          \
  GrB_Info GrB_Vector_##Kind##_##Op(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,       \
                                    const GrB_##Op op, const GrB_Vector u, const GrB_Vector v,           \
                                    const GrB_Descriptor desc) {                                         \
    return call("GrB_Vector_" #Kind "_" #Op, w, [&] {                                                   \
      snk::Vector& out = vector_of(w, "w");                                                             \
      const snk::Vector* m = vector_or_null(mask, "mask");                                              \
      const snk::BinaryOp* acc = binary_or_null(accum, "accum");                                        \
      const snk::BinaryOp& bop = resolve(op);                                                           \
      const snk::Vector& a = vector_of(u, "u");                                                         \
      const snk::Vector& b = vector_of(v, "v");                                                         \
      snk::function(out, m, acc, bop, a, b, descriptor_of(desc));                                       \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Matrix_##Kind##_##Op(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,       \
                                    const GrB_##Op op, const GrB_Matrix A, const GrB_Matrix B,           \
                                    const GrB_Descriptor desc) {                                         \
    return call("GrB_Matrix_" #Kind "_" #Op, C, [&] {                                                   \
      snk::Matrix& out = matrix_of(C, "C");                                                             \
      const snk::Matrix* m = matrix_or_null(Mask, "Mask");                                              \
      const snk::BinaryOp* acc = binary_or_null(accum, "accum");                                        \
      const snk::BinaryOp& bop = resolve(op);                                                           \
      const snk::Matrix& a = matrix_of(A, "A");                                                         \
      const snk::Matrix& b = matrix_of(B, "B");                                                         \
      snk::function(out, m, acc, bop, a, b, descriptor_of(desc));                                       \
    });                                                                                                 \
  }
#define SNK_BINARY_OP_ARG(op) (*binary_of(op, "op"))
SNK_EWISE(eWiseAdd, ewise_add, Semiring, ewise_add_op_of_semiring)
SNK_EWISE(eWiseAdd, ewise_add, Monoid, ewise_add_op_of_monoid)
SNK_EWISE(eWiseAdd, ewise_add, BinaryOp, SNK_BINARY_OP_ARG)
SNK_EWISE(eWiseMult, ewise_mult, Semiring, ewise_mult_op_of_semiring)
SNK_EWISE(eWiseMult, ewise_mult, Monoid, ewise_add_op_of_monoid)
SNK_EWISE(eWiseMult, ewise_mult, BinaryOp, SNK_BINARY_OP_ARG)

// ==== extract ===============================================================================================
GrB_Info GrB_Vector_extract(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Vector u,
                            const GrB_Index* I, GrB_Index ni, const GrB_Descriptor desc) {
  return call("GrB_Vector_extract", w, [&] {
    snk::Vector& out = vector_of(w, "w");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Vector& in = vector_of(u, "u");
    snk::extract(out, m, acc, in, index_list(I, "I"), ni, descriptor_of(desc));
  });
}

GrB_Info GrB_Matrix_extract(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_Matrix A,
                            const GrB_Index* I, GrB_Index ni, const GrB_Index* J, GrB_Index nj,
                            const GrB_Descriptor desc) {
  return call("GrB_Matrix_extract", C, [&] {
    snk::Matrix& out = matrix_of(C, "C");
    const snk::Matrix* m = matrix_or_null(Mask, "Mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Matrix& a = matrix_of(A, "A");
    snk::extract(out, m, acc, a, index_list(I, "I"), ni, index_list(J, "J"), nj, descriptor_of(desc));
  });
}

GrB_Info GrB_Col_extract(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Matrix A,
                         const GrB_Index* I, GrB_Index ni, GrB_Index j, const GrB_Descriptor desc) {
  return call("GrB_Col_extract", w, [&] {
    snk::Vector& out = vector_of(w, "w");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Matrix& a = matrix_of(A, "A");
    snk::extract_column(out, m, acc, a, index_list(I, "I"), ni, j, descriptor_of(desc));
  });
}

// ==== assign ================================================================================================
GrB_Info GrB_Vector_assign(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Vector u,
                           const GrB_Index* I, GrB_Index ni, const GrB_Descriptor desc) {
  return call("GrB_Vector_assign", w, [&] {
    snk::Vector& out = vector_of(w, "w");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Vector& in = vector_of(u, "u");
    snk::assign(out, m, acc, in, index_list(I, "I"), ni, descriptor_of(desc));
  });
}

GrB_Info GrB_Matrix_assign(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_Matrix A,
                           const GrB_Index* I, GrB_Index ni, const GrB_Index* J, GrB_Index nj,
                           const GrB_Descriptor desc) {
  return call("GrB_Matrix_assign", C, [&] {
    snk::Matrix& out = matrix_of(C, "C");
    const snk::Matrix* m = matrix_or_null(Mask, "Mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Matrix& a = matrix_of(A, "A");
    snk::assign(out, m, acc, a, index_list(I, "I"), ni, index_list(J, "J"), nj, descriptor_of(desc));
  });
}

GrB_Info GrB_Col_assign(GrB_Matrix C, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Vector u,
                        const GrB_Index* I, GrB_Index ni, GrB_Index j, const GrB_Descriptor desc) {
  return call("GrB_Col_assign", C, [&] {
    snk::Matrix& out = matrix_of(C, "C");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Vector& in = vector_of(u, "u");
    snk::assign_column(out, m, acc, in, index_list(I, "I"), ni, j, descriptor_of(desc));
  });
}

GrB_Info GrB_Row_assign(GrB_Matrix C, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_Vector u,
                        GrB_Index i, const GrB_Index* J, GrB_Index nj, const GrB_Descriptor desc) {
  return call("GrB_Row_assign", C, [&] {
    snk::Matrix& out = matrix_of(C, "C");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Vector& in = vector_of(u, "u");
    snk::assign_row(out, m, acc, in, i, index_list(J, "J"), nj, descriptor_of(desc));
  });
}

// ==== apply (unary) =========================================================================================
GrB_Info GrB_Vector_apply(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, const GrB_UnaryOp op,
                          const GrB_Vector u, const GrB_Descriptor desc) {
  return call("GrB_Vector_apply", w, [&] {
    snk::Vector& out = vector_of(w, "w");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::UnaryOp* f = unary_of(op, "op");
    const snk::Vector& in = vector_of(u, "u");
    snk::apply(out, m, acc, *f, in, descriptor_of(desc));
  });
}

GrB_Info GrB_Matrix_apply(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_UnaryOp op,
                          const GrB_Matrix A, const GrB_Descriptor desc) {
  return call("GrB_Matrix_apply", C, [&] {
    snk::Matrix& out = matrix_of(C, "C");
    const snk::Matrix* m = matrix_or_null(Mask, "Mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::UnaryOp* f = unary_of(op, "op");
    const snk::Matrix& a = matrix_of(A, "A");
    snk::apply(out, m, acc, *f, a, descriptor_of(desc));
  });
}

}  // extern "C"

// ==== the scalar-argument families: assign, apply with a bound scalar, apply with an index-unary operator,
// select. Each helper takes either a GrB_Scalar (`given`) or a C value x of xtype (nullptr: a UDT). ====
namespace {

void vector_assign_scalar(GrB_Vector w, GrB_Vector mask, GrB_BinaryOp accum, const snk::Scalar* given,
                          const void* x, const snk::Type* xtype, const GrB_Index* I, GrB_Index ni,
                          GrB_Descriptor desc) {
  snk::Vector& out = vector_of(w, "w");
  const snk::Vector* m = vector_or_null(mask, "mask");
  const snk::BinaryOp* acc = binary_or_null(accum, "accum");
  const Index* list = index_list(I, "I");
  const snk::Descriptor d = descriptor_of(desc);
  if (given != nullptr) {
    snk::assign_scalar(out, m, acc, *given, list, ni, d);
  } else {
    snk::assign_scalar(out, m, acc, scalar_arg(x, xtype, out.type(), "x"), list, ni, d);
  }
}

void matrix_assign_scalar(GrB_Matrix C, GrB_Matrix Mask, GrB_BinaryOp accum, const snk::Scalar* given,
                          const void* x, const snk::Type* xtype, const GrB_Index* I, GrB_Index ni,
                          const GrB_Index* J, GrB_Index nj, GrB_Descriptor desc) {
  snk::Matrix& out = matrix_of(C, "C");
  const snk::Matrix* m = matrix_or_null(Mask, "Mask");
  const snk::BinaryOp* acc = binary_or_null(accum, "accum");
  const Index* ilist = index_list(I, "I");
  const Index* jlist = index_list(J, "J");
  const snk::Descriptor d = descriptor_of(desc);
  if (given != nullptr) {
    snk::assign_scalar(out, m, acc, *given, ilist, ni, jlist, nj, d);
  } else {
    snk::assign_scalar(out, m, acc, scalar_arg(x, xtype, out.type(), "x"), ilist, ni, jlist, nj, d);
  }
}

template <class Out, class In>
void apply_bound(Out& out, const typename std::conditional<std::is_same_v<Out, snk::Matrix>, snk::Matrix,
                                                             snk::Vector>::type* m,
                 const snk::BinaryOp* acc, const snk::BinaryOp& op, bool first, const snk::Scalar& s,
                 const In& in, const snk::Descriptor& d) {
  if (first) {
    snk::apply_bind_first(out, m, acc, op, s, in, d);
  } else {
    snk::apply_bind_second(out, m, acc, op, in, s, d);
  }
}

// given != nullptr: a GrB_Scalar argument; else x (of xtype, nullptr = UDT of the bound input's type).
void vector_apply_bound(GrB_Vector w, GrB_Vector mask, GrB_BinaryOp accum, GrB_BinaryOp op, bool first,
                        GrB_Scalar given, const void* x, const snk::Type* xtype, GrB_Vector u,
                        GrB_Descriptor desc) {
  snk::Vector& out = vector_of(w, "w");
  const snk::Vector* m = vector_or_null(mask, "mask");
  const snk::BinaryOp* acc = binary_or_null(accum, "accum");
  const snk::BinaryOp* f = binary_of(op, "op");
  const snk::Vector& in = vector_of(u, "u");
  const snk::Descriptor d = descriptor_of(desc);
  if (given != nullptr) {
    apply_bound(out, m, acc, *f, first, scalar_of(given, first ? "x" : "y"), in, d);
  } else {
    apply_bound(out, m, acc, *f, first, scalar_arg(x, xtype, first ? f->xtype : f->ytype, first ? "x" : "y"), in, d);
  }
}

void matrix_apply_bound(GrB_Matrix C, GrB_Matrix Mask, GrB_BinaryOp accum, GrB_BinaryOp op, bool first,
                        GrB_Scalar given, const void* x, const snk::Type* xtype, GrB_Matrix A,
                        GrB_Descriptor desc) {
  snk::Matrix& out = matrix_of(C, "C");
  const snk::Matrix* m = matrix_or_null(Mask, "Mask");
  const snk::BinaryOp* acc = binary_or_null(accum, "accum");
  const snk::BinaryOp* f = binary_of(op, "op");
  const snk::Matrix& in = matrix_of(A, "A");
  const snk::Descriptor d = descriptor_of(desc);
  if (given != nullptr) {
    apply_bound(out, m, acc, *f, first, scalar_of(given, first ? "x" : "y"), in, d);
  } else {
    apply_bound(out, m, acc, *f, first, scalar_arg(x, xtype, first ? f->xtype : f->ytype, first ? "x" : "y"), in, d);
  }
}

// Index-unary apply and select share their arguments; `selecting` picks the operation.
void vector_index_op(GrB_Vector w, GrB_Vector mask, GrB_BinaryOp accum, GrB_IndexUnaryOp op, GrB_Vector u,
                     GrB_Scalar given, const void* y, const snk::Type* ytype, GrB_Descriptor desc, bool selecting) {
  snk::Vector& out = vector_of(w, "w");
  const snk::Vector* m = vector_or_null(mask, "mask");
  const snk::BinaryOp* acc = binary_or_null(accum, "accum");
  const snk::IndexUnaryOp* f = index_unary_of(op, "op");
  const snk::Vector& in = vector_of(u, "u");
  const snk::Descriptor d = descriptor_of(desc);
  const snk::Scalar thunk = given != nullptr ? scalar_of(given, "y") : scalar_arg(y, ytype, f->ytype, "y");
  if (selecting) {
    snk::select(out, m, acc, *f, in, thunk, d);
  } else {
    snk::apply(out, m, acc, *f, in, thunk, d);
  }
}

void matrix_index_op(GrB_Matrix C, GrB_Matrix Mask, GrB_BinaryOp accum, GrB_IndexUnaryOp op, GrB_Matrix A,
                     GrB_Scalar given, const void* y, const snk::Type* ytype, GrB_Descriptor desc, bool selecting) {
  snk::Matrix& out = matrix_of(C, "C");
  const snk::Matrix* m = matrix_or_null(Mask, "Mask");
  const snk::BinaryOp* acc = binary_or_null(accum, "accum");
  const snk::IndexUnaryOp* f = index_unary_of(op, "op");
  const snk::Matrix& in = matrix_of(A, "A");
  const snk::Descriptor d = descriptor_of(desc);
  const snk::Scalar thunk = given != nullptr ? scalar_of(given, "y") : scalar_arg(y, ytype, f->ytype, "y");
  if (selecting) {
    snk::select(out, m, acc, *f, in, thunk, d);
  } else {
    snk::apply(out, m, acc, *f, in, thunk, d);
  }
}

}  // namespace

extern "C" {

// X(T, C value type): the 11 builtin variants take the value itself; UDT takes a pointer to it.
#define SNK_SCALAR_ARG_FAMILY(T, value, ARG, XTYPE)                                                     \
  GrB_Info GrB_Vector_assign_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, value x, \
                                 const GrB_Index* I, GrB_Index ni, const GrB_Descriptor desc) {         \
    return call("GrB_Vector_assign_" #T, w,                                                             \
                [&] { vector_assign_scalar(w, mask, accum, nullptr, ARG(x), XTYPE, I, ni, desc); });    \
  }                                                                                                     \
  GrB_Info GrB_Matrix_assign_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, value x, \
                                 const GrB_Index* I, GrB_Index ni, const GrB_Index* J, GrB_Index nj,    \
                                 const GrB_Descriptor desc) {                                           \
    return call("GrB_Matrix_assign_" #T, C, [&] {                                                       \
      matrix_assign_scalar(C, Mask, accum, nullptr, ARG(x), XTYPE, I, ni, J, nj, desc);                 \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Vector_apply_BinaryOp1st_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, \
                                            const GrB_BinaryOp op, value x, const GrB_Vector u,         \
                                            const GrB_Descriptor desc) {                                \
    return call("GrB_Vector_apply_BinaryOp1st_" #T, w, [&] {                                            \
      vector_apply_bound(w, mask, accum, op, true, nullptr, ARG(x), XTYPE, u, desc);                    \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Vector_apply_BinaryOp2nd_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, \
                                            const GrB_BinaryOp op, const GrB_Vector u, value y,         \
                                            const GrB_Descriptor desc) {                                \
    return call("GrB_Vector_apply_BinaryOp2nd_" #T, w, [&] {                                            \
      vector_apply_bound(w, mask, accum, op, false, nullptr, ARG(y), XTYPE, u, desc);                   \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Matrix_apply_BinaryOp1st_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, \
                                            const GrB_BinaryOp op, value x, const GrB_Matrix A,         \
                                            const GrB_Descriptor desc) {                                \
    return call("GrB_Matrix_apply_BinaryOp1st_" #T, C, [&] {                                            \
      matrix_apply_bound(C, Mask, accum, op, true, nullptr, ARG(x), XTYPE, A, desc);                    \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Matrix_apply_BinaryOp2nd_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, \
                                            const GrB_BinaryOp op, const GrB_Matrix A, value y,         \
                                            const GrB_Descriptor desc) {                                \
    return call("GrB_Matrix_apply_BinaryOp2nd_" #T, C, [&] {                                            \
      matrix_apply_bound(C, Mask, accum, op, false, nullptr, ARG(y), XTYPE, A, desc);                   \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Vector_apply_IndexOp_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,  \
                                        const GrB_IndexUnaryOp op, const GrB_Vector u, value y,         \
                                        const GrB_Descriptor desc) {                                    \
    return call("GrB_Vector_apply_IndexOp_" #T, w, [&] {                                                \
      vector_index_op(w, mask, accum, op, u, nullptr, ARG(y), XTYPE, desc, false);                      \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Matrix_apply_IndexOp_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,  \
                                        const GrB_IndexUnaryOp op, const GrB_Matrix A, value y,         \
                                        const GrB_Descriptor desc) {                                    \
    return call("GrB_Matrix_apply_IndexOp_" #T, C, [&] {                                                \
      matrix_index_op(C, Mask, accum, op, A, nullptr, ARG(y), XTYPE, desc, false);                      \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Vector_select_##T(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,         \
                                 const GrB_IndexUnaryOp op, const GrB_Vector u, value y,                \
                                 const GrB_Descriptor desc) {                                           \
    return call("GrB_Vector_select_" #T, w, [&] {                                                       \
      vector_index_op(w, mask, accum, op, u, nullptr, ARG(y), XTYPE, desc, true);                       \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Matrix_select_##T(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,         \
                                 const GrB_IndexUnaryOp op, const GrB_Matrix A, value y,                \
                                 const GrB_Descriptor desc) {                                           \
    return call("GrB_Matrix_select_" #T, C, [&] {                                                       \
      matrix_index_op(C, Mask, accum, op, A, nullptr, ARG(y), XTYPE, desc, true);                       \
    });                                                                                                 \
  }

#define SNK_ADDRESS_OF(x) (&(x))
#define SNK_AS_IS(x) (x)
#define SNK_SCALAR_ARG_BUILTIN(T, value, in, out) \
  SNK_SCALAR_ARG_FAMILY(T, value, SNK_ADDRESS_OF, snk::type_of<value>())
SNK_FOR_EACH_BUILTIN_TYPE(SNK_SCALAR_ARG_BUILTIN)
SNK_SCALAR_ARG_FAMILY(UDT, const void*, SNK_AS_IS, nullptr)

// The _Scalar variants.
GrB_Info GrB_Vector_assign_Scalar(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum, GrB_Scalar x,
                                  const GrB_Index* I, GrB_Index ni, const GrB_Descriptor desc) {
  return call("GrB_Vector_assign_Scalar", w, [&] {
    vector_of(w, "w");
    vector_or_null(mask, "mask");
    binary_or_null(accum, "accum");
    const snk::Scalar& s = scalar_of(x, "x");
    vector_assign_scalar(w, mask, accum, &s, nullptr, nullptr, I, ni, desc);
  });
}

GrB_Info GrB_Matrix_assign_Scalar(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, GrB_Scalar x,
                                  const GrB_Index* I, GrB_Index ni, const GrB_Index* J, GrB_Index nj,
                                  const GrB_Descriptor desc) {
  return call("GrB_Matrix_assign_Scalar", C, [&] {
    matrix_of(C, "C");
    matrix_or_null(Mask, "Mask");
    binary_or_null(accum, "accum");
    const snk::Scalar& s = scalar_of(x, "x");
    matrix_assign_scalar(C, Mask, accum, &s, nullptr, nullptr, I, ni, J, nj, desc);
  });
}

GrB_Info GrB_Vector_apply_BinaryOp1st_Scalar(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,
                                             const GrB_BinaryOp op, const GrB_Scalar x, const GrB_Vector u,
                                             const GrB_Descriptor desc) {
  return call("GrB_Vector_apply_BinaryOp1st_Scalar", w, [&] {
    vector_of(w, "w");
    check_handle(x, Kind::Scalar, "x");
    vector_apply_bound(w, mask, accum, op, true, x, nullptr, nullptr, u, desc);
  });
}

GrB_Info GrB_Vector_apply_BinaryOp2nd_Scalar(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,
                                             const GrB_BinaryOp op, const GrB_Vector u, const GrB_Scalar y,
                                             const GrB_Descriptor desc) {
  return call("GrB_Vector_apply_BinaryOp2nd_Scalar", w, [&] {
    vector_of(w, "w");
    check_handle(y, Kind::Scalar, "y");
    vector_apply_bound(w, mask, accum, op, false, y, nullptr, nullptr, u, desc);
  });
}

GrB_Info GrB_Matrix_apply_BinaryOp1st_Scalar(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,
                                             const GrB_BinaryOp op, const GrB_Scalar x, const GrB_Matrix A,
                                             const GrB_Descriptor desc) {
  return call("GrB_Matrix_apply_BinaryOp1st_Scalar", C, [&] {
    matrix_of(C, "C");
    check_handle(x, Kind::Scalar, "x");
    matrix_apply_bound(C, Mask, accum, op, true, x, nullptr, nullptr, A, desc);
  });
}

GrB_Info GrB_Matrix_apply_BinaryOp2nd_Scalar(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,
                                             const GrB_BinaryOp op, const GrB_Matrix A, const GrB_Scalar y,
                                             const GrB_Descriptor desc) {
  return call("GrB_Matrix_apply_BinaryOp2nd_Scalar", C, [&] {
    matrix_of(C, "C");
    check_handle(y, Kind::Scalar, "y");
    matrix_apply_bound(C, Mask, accum, op, false, y, nullptr, nullptr, A, desc);
  });
}

GrB_Info GrB_Vector_apply_IndexOp_Scalar(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,
                                         const GrB_IndexUnaryOp op, const GrB_Vector u, const GrB_Scalar y,
                                         const GrB_Descriptor desc) {
  return call("GrB_Vector_apply_IndexOp_Scalar", w, [&] {
    vector_of(w, "w");
    check_handle(y, Kind::Scalar, "y");
    vector_index_op(w, mask, accum, op, u, y, nullptr, nullptr, desc, false);
  });
}

GrB_Info GrB_Matrix_apply_IndexOp_Scalar(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,
                                         const GrB_IndexUnaryOp op, const GrB_Matrix A, const GrB_Scalar y,
                                         const GrB_Descriptor desc) {
  return call("GrB_Matrix_apply_IndexOp_Scalar", C, [&] {
    matrix_of(C, "C");
    check_handle(y, Kind::Scalar, "y");
    matrix_index_op(C, Mask, accum, op, A, y, nullptr, nullptr, desc, false);
  });
}

GrB_Info GrB_Vector_select_Scalar(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,
                                  const GrB_IndexUnaryOp op, const GrB_Vector u, const GrB_Scalar y,
                                  const GrB_Descriptor desc) {
  return call("GrB_Vector_select_Scalar", w, [&] {
    vector_of(w, "w");
    check_handle(y, Kind::Scalar, "y");
    vector_index_op(w, mask, accum, op, u, y, nullptr, nullptr, desc, true);
  });
}

GrB_Info GrB_Matrix_select_Scalar(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,
                                  const GrB_IndexUnaryOp op, const GrB_Matrix A, const GrB_Scalar y,
                                  const GrB_Descriptor desc) {
  return call("GrB_Matrix_select_Scalar", C, [&] {
    matrix_of(C, "C");
    check_handle(y, Kind::Scalar, "y");
    matrix_index_op(C, Mask, accum, op, A, y, nullptr, nullptr, desc, true);
  });
}

// ==== reduce ================================================================================================
GrB_Info GrB_Matrix_reduce_Monoid(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,
                                  const GrB_Monoid monoid, const GrB_Matrix A, const GrB_Descriptor desc) {
  return call("GrB_Matrix_reduce_Monoid", w, [&] {
    snk::Vector& out = vector_of(w, "w");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Monoid* mon = monoid_of(monoid, "monoid");
    const snk::Matrix& a = matrix_of(A, "A");
    snk::reduce(out, m, acc, *mon, a, descriptor_of(desc));
  });
}

GrB_Info GrB_Matrix_reduce_BinaryOp(GrB_Vector w, const GrB_Vector mask, const GrB_BinaryOp accum,
                                    const GrB_BinaryOp op, const GrB_Matrix A, const GrB_Descriptor desc) {
  return call("GrB_Matrix_reduce_BinaryOp", w, [&] {
    snk::Vector& out = vector_of(w, "w");
    const snk::Vector* m = vector_or_null(mask, "mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::BinaryOp* f = binary_of(op, "op");
    const snk::Matrix& a = matrix_of(A, "A");
    snk::reduce(out, m, acc, *f, a, descriptor_of(desc));
  });
}

}  // extern "C"

namespace {

// The monoid of a reduce with a BinaryOp (spec 2.0: the op must be that of a builtin monoid).
const snk::Monoid& monoid_for_reduce(GrB_BinaryOp op) {
  const snk::BinaryOp* f = binary_of(op, "op");
  const snk::Monoid* m = snk::monoid_of(*f);
  if (m == nullptr) {
    throw Error(Info::DomainMismatch, "reduce with a GrB_BinaryOp needs the operator of a builtin monoid; " +
                                          f->name + " is not one (use a GrB_Monoid)");
  }
  return *m;
}

template <class Container>
void reduce_to_value(void* c, const snk::Type* ctype, GrB_BinaryOp accum, GrB_Monoid monoid, const Container& in,
                     GrB_Descriptor desc) {
  check_pointer(c, "c");
  const snk::BinaryOp* acc = binary_or_null(accum, "accum");
  const snk::Monoid* mon = monoid_of(monoid, "monoid");
  const snk::Descriptor d = descriptor_of(desc);
  if (ctype == nullptr) ctype = mon->type();
  if (!snk::castable(ctype, mon->type())) {
    throw Error(Info::DomainMismatch, "cannot cast the monoid's " + mon->type()->name + " to " + ctype->name);
  }
  // s starts as *c when accumulating (s = s accum reduce(A)), empty otherwise (s = reduce(A)). The core's
  // reduce checks the arguments; on an input with no entries it leaves s as it was (the GrB_Scalar variants'
  // rule). A C value always receives a value, the reduction of no entries being the monoid's identity:
  // *c = identity, or *c = *c accum identity, reduced as a one-entry vector so that the accumulator and the
  // casts take the same path as for any other input.
  snk::Scalar s(ctype);
  if (acc != nullptr) s.set(c, ctype);
  snk::reduce(s, acc, *mon, in, d);
  if (in.nvals() == 0) {
    snk::Vector identity(mon->type(), 1);
    identity.set_element(0, mon->identity.data(), mon->type());
    snk::reduce(s, acc, *mon, identity, d);
  }
  s.get(c, ctype);
}

}  // namespace

extern "C" {

#define SNK_REDUCE_TYPED(T, value, in, out)                                                             \
  GrB_Info GrB_Vector_reduce_##T(out c, const GrB_BinaryOp accum, const GrB_Monoid monoid,              \
                                 const GrB_Vector u, const GrB_Descriptor desc) {                       \
    return call("GrB_Vector_reduce_" #T, u, [&] {                                                      \
      reduce_to_value(c, snk::type_of<value>(), accum, monoid, vector_of(u, "u"), desc);                \
    });                                                                                                 \
  }                                                                                                     \
  GrB_Info GrB_Matrix_reduce_##T(out c, const GrB_BinaryOp accum, const GrB_Monoid monoid,              \
                                 const GrB_Matrix A, const GrB_Descriptor desc) {                       \
    return call("GrB_Matrix_reduce_" #T, A, [&] {                                                      \
      reduce_to_value(c, snk::type_of<value>(), accum, monoid, matrix_of(A, "A"), desc);                \
    });                                                                                                 \
  }
SNK_FOR_EACH_BUILTIN_TYPE(SNK_REDUCE_TYPED)

GrB_Info GrB_Vector_reduce_UDT(void* c, const GrB_BinaryOp accum, const GrB_Monoid monoid, const GrB_Vector u,
                               const GrB_Descriptor desc) {
  return call("GrB_Vector_reduce_UDT", u,
              [&] { reduce_to_value(c, nullptr, accum, monoid, vector_of(u, "u"), desc); });
}
GrB_Info GrB_Matrix_reduce_UDT(void* c, const GrB_BinaryOp accum, const GrB_Monoid monoid, const GrB_Matrix A,
                               const GrB_Descriptor desc) {
  return call("GrB_Matrix_reduce_UDT", A,
              [&] { reduce_to_value(c, nullptr, accum, monoid, matrix_of(A, "A"), desc); });
}

GrB_Info GrB_Vector_reduce_Monoid_Scalar(GrB_Scalar s, const GrB_BinaryOp accum, const GrB_Monoid monoid,
                                         const GrB_Vector u, const GrB_Descriptor desc) {
  return call("GrB_Vector_reduce_Monoid_Scalar", s, [&] {
    snk::Scalar& out = scalar_of(s, "s");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Monoid* mon = monoid_of(monoid, "monoid");
    snk::reduce(out, acc, *mon, vector_of(u, "u"), descriptor_of(desc));
  });
}

GrB_Info GrB_Vector_reduce_BinaryOp_Scalar(GrB_Scalar s, const GrB_BinaryOp accum, const GrB_BinaryOp op,
                                           const GrB_Vector u, const GrB_Descriptor desc) {
  return call("GrB_Vector_reduce_BinaryOp_Scalar", s, [&] {
    snk::Scalar& out = scalar_of(s, "s");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Monoid& mon = monoid_for_reduce(op);
    snk::reduce(out, acc, mon, vector_of(u, "u"), descriptor_of(desc));
  });
}

GrB_Info GrB_Matrix_reduce_Monoid_Scalar(GrB_Scalar s, const GrB_BinaryOp accum, const GrB_Monoid monoid,
                                         const GrB_Matrix A, const GrB_Descriptor desc) {
  return call("GrB_Matrix_reduce_Monoid_Scalar", s, [&] {
    snk::Scalar& out = scalar_of(s, "s");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Monoid* mon = monoid_of(monoid, "monoid");
    snk::reduce(out, acc, *mon, matrix_of(A, "A"), descriptor_of(desc));
  });
}

GrB_Info GrB_Matrix_reduce_BinaryOp_Scalar(GrB_Scalar s, const GrB_BinaryOp accum, const GrB_BinaryOp op,
                                           const GrB_Matrix A, const GrB_Descriptor desc) {
  return call("GrB_Matrix_reduce_BinaryOp_Scalar", s, [&] {
    snk::Scalar& out = scalar_of(s, "s");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Monoid& mon = monoid_for_reduce(op);
    snk::reduce(out, acc, mon, matrix_of(A, "A"), descriptor_of(desc));
  });
}

// ==== transpose, kronecker ==================================================================================
GrB_Info GrB_transpose(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum, const GrB_Matrix A,
                       const GrB_Descriptor desc) {
  return call("GrB_transpose", C, [&] {
    snk::Matrix& out = matrix_of(C, "C");
    const snk::Matrix* m = matrix_or_null(Mask, "Mask");
    const snk::BinaryOp* acc = binary_or_null(accum, "accum");
    const snk::Matrix& a = matrix_of(A, "A");
    snk::transpose(out, m, acc, a, descriptor_of(desc));
  });
}

#define SNK_KRONECKER(Op, resolve)                                                                      \
  GrB_Info GrB_Matrix_kronecker_##Op(GrB_Matrix C, const GrB_Matrix Mask, const GrB_BinaryOp accum,      \
                                     const GrB_##Op op, const GrB_Matrix A, const GrB_Matrix B,          \
                                     const GrB_Descriptor desc) {                                        \
    return call("GrB_Matrix_kronecker_" #Op, C, [&] {                                                   \
      snk::Matrix& out = matrix_of(C, "C");                                                             \
      const snk::Matrix* m = matrix_or_null(Mask, "Mask");                                              \
      const snk::BinaryOp* acc = binary_or_null(accum, "accum");                                        \
      const snk::BinaryOp& bop = resolve(op);                                                           \
      const snk::Matrix& a = matrix_of(A, "A");                                                         \
      const snk::Matrix& b = matrix_of(B, "B");                                                         \
      snk::kronecker(out, m, acc, bop, a, b, descriptor_of(desc));                                      \
    });                                                                                                 \
  }
SNK_KRONECKER(BinaryOp, SNK_BINARY_OP_ARG)
SNK_KRONECKER(Monoid, ewise_add_op_of_monoid)
SNK_KRONECKER(Semiring, ewise_mult_op_of_semiring)

}  // extern "C"
