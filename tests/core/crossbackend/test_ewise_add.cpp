// tests/core/crossbackend/test_ewise_add.cpp: GrB_eWiseAdd (set union) on the backend under test against
// reference. The cases are those of ewise_cases.hpp, shared with eWiseMult; this source picks the operation
// (and, for the semiring form, the semiring's add operator, as the spec's GrB_Matrix_eWiseAdd_Semiring does).
#include "crossbackend.hpp"

namespace xb {
namespace {

struct Ewise {
  static constexpr const char* name = "eWiseAdd";
  static void matrix(snk::Matrix& C, const snk::Matrix* M, const snk::BinaryOp* accum, const snk::BinaryOp& op,
                     const snk::Matrix& A, const snk::Matrix& B, const snk::Descriptor& d) {
    snk::ewise_add(C, M, accum, op, A, B, d);
  }
  static void vector(snk::Vector& w, const snk::Vector* m, const snk::BinaryOp* accum, const snk::BinaryOp& op,
                     const snk::Vector& u, const snk::Vector& v, const snk::Descriptor& d) {
    snk::ewise_add(w, m, accum, op, u, v, d);
  }
  static const snk::BinaryOp* semiring_op(const snk::Semiring& s) { return s.add->op; }
};

}  // namespace
}  // namespace xb

#include "ewise_cases.hpp"
