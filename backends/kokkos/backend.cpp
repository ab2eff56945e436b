// backends/kokkos/backend.cpp: the kokkos backend object, its registration (rank 20, complete: the default where
// built) and the lazy start of Kokkos.
//
// The backend implements every operation (mxm and through it mxv / vxm, eWiseAdd, eWiseMult, apply, select, reduce,
// transpose, kronecker, extract, assign to part of C) with the portable kernels that the cuda backend runs on the GPU,
// in their host shapes (mxm.cpp, portable_host.cpp; assign over the whole of C is an eWiseAdd or a copy, which the
// core makes), for every builtin type and every predefined operator, monoid and semiring; it declines
// user-defined types and operators, which the dispatcher then runs on reference (counted as fallbacks). Kokkos is
// initialized on the first backend creation unless the application already did it, and finalized at exit in that
// case. All kernels are deterministic (no floating-point atomics; every value is reduced by one thread in a fixed
// order, a scalar reduction in fixed blocks), so snk::deterministic() needs no separate path.
#include <cstdlib>
#include <mutex>

#include "entry_points.hpp"
#include "parallel.hpp"

namespace snk::kokkos {

void ensure_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!Kokkos::is_initialized()) {
      // without the advice Kokkos prints to stderr about OMP_PROC_BIND (a library must not chatter)
#if KOKKOS_VERSION >= 30700
      Kokkos::initialize(Kokkos::InitializationSettings().set_disable_warnings(true));
#else
      Kokkos::InitArguments arguments;
      arguments.disable_warnings = true;
      Kokkos::initialize(arguments);
#endif
      std::atexit([] {
        if (Kokkos::is_initialized()) Kokkos::finalize();
      });
    }
  });
}

namespace {

class KokkosBackend final : public core::Backend {
 public:
  std::string name() const override { return "kokkos"; }

  KernelStatus mxm(Matrix& T, const MaskHint& mask, const Semiring& s, const Matrix& A, bool ta, const Matrix& B,
                   bool tb, bool flip) override {
    return kokkos::mxm(T, mask, s, A, ta, B, tb, flip);
  }
  // The element-wise kernels ignore the mask hint (the core applies the mask).
  KernelStatus ewise_add(Matrix& T, const MaskHint&, const BinaryOp& op, const Matrix& A,
                         const Matrix& B) override {
    return kokkos::ewise_add(T, op, A, B);
  }
  KernelStatus ewise_mult(Matrix& T, const MaskHint&, const BinaryOp& op, const Matrix& A,
                          const Matrix& B) override {
    return kokkos::ewise_mult(T, op, A, B);
  }
  KernelStatus apply_unary(Matrix& T, const UnaryOp& op, const Matrix& A) override {
    return kokkos::apply_unary(T, op, A);
  }
  KernelStatus apply_bound(Matrix& T, const BinaryOp& op, const Scalar& s, bool bind_first,
                           const Matrix& A) override {
    return kokkos::apply_bound(T, op, s, bind_first, A);
  }
  KernelStatus apply_unary_in_place(Matrix& A, const UnaryOp& op) override {
    return kokkos::apply_unary(A, op, A);
  }
  KernelStatus apply_bound_in_place(Matrix& A, const BinaryOp& op, const Scalar& s, bool bind_first) override {
    return kokkos::apply_bound(A, op, s, bind_first, A);
  }
  KernelStatus optimizer_step(Matrix& W, Matrix& S1, Matrix* S2, const Matrix& G, const OptimizerStep& step) override {
    return kokkos::optimizer_step(W, S1, S2, G, step);
  }
  KernelStatus apply_index(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk) override {
    return kokkos::apply_index(T, op, A, thunk);
  }
  KernelStatus select(Matrix& T, const IndexUnaryOp& op, const Matrix& A, const Scalar& thunk) override {
    return kokkos::select(T, op, A, thunk);
  }
  KernelStatus reduce_rows(Matrix& T, const Monoid& m, const Matrix& A) override {
    return kokkos::reduce_rows(T, m, A);
  }
  KernelStatus reduce_scalar(Scalar& s, const Monoid& m, const Matrix& A) override {
    return kokkos::reduce_scalar(s, m, A);
  }
  KernelStatus transpose(Matrix& T, const Matrix& A) override { return kokkos::transpose(T, A); }
  KernelStatus kronecker(Matrix& T, const BinaryOp& op, const Matrix& A, const Matrix& B) override {
    return kokkos::kronecker(T, op, A, B);
  }
  KernelStatus extract(Matrix& T, const Matrix& A, const core::IndexList& I, const core::IndexList& J) override {
    return kokkos::extract(T, A, I, J);
  }
  KernelStatus assign(Matrix& Z, const Matrix& C, const BinaryOp* accum, const Matrix& A, const core::IndexList& I,
                      const core::IndexList& J) override {
    return kokkos::assign(Z, C, accum, A, I, J);
  }
};

}  // namespace

}  // namespace snk::kokkos

// Built into libsnack; complete for the builtin types and operators on the CPU, so the default where built.
SNACK_REGISTER_BACKEND(kokkos, snk::core::BackendEntry{"kokkos", 20, true, [] {
                         snk::kokkos::ensure_initialized();
                         return std::unique_ptr<snk::core::Backend>(std::make_unique<snk::kokkos::KokkosBackend>());
                       }, ""})
