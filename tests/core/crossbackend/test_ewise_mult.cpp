// tests/core/crossbackend/test_ewise_mult.cpp: GrB_eWiseMult (set intersection) on the backend under test against
// reference. The cases are those of ewise_cases.hpp, shared with eWiseAdd; this source picks the operation
// (and, for the semiring form, the semiring's multiplier, as the spec's GrB_Matrix_eWiseMult_Semiring does).
#include "crossbackend.hpp"

namespace xb {
namespace {

struct Ewise {
  static constexpr const char* name = "eWiseMult";
  static void matrix(snk::Matrix& C, const snk::Matrix* M, const snk::BinaryOp* accum, const snk::BinaryOp& op,
                     const snk::Matrix& A, const snk::Matrix& B, const snk::Descriptor& d) {
    snk::ewise_mult(C, M, accum, op, A, B, d);
  }
  static void vector(snk::Vector& w, const snk::Vector* m, const snk::BinaryOp* accum, const snk::BinaryOp& op,
                     const snk::Vector& u, const snk::Vector& v, const snk::Descriptor& d) {
    snk::ewise_mult(w, m, accum, op, u, v, d);
  }
  static const snk::BinaryOp* semiring_op(const snk::Semiring& s) { return s.multiply; }
};

}  // namespace
}  // namespace xb

#include "ewise_cases.hpp"
