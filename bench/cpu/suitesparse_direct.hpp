// bench/cpu/suitesparse_direct.hpp: the CPU graph benchmark's third contender, SuiteSparse:GraphBLAS
// called directly on its own matrices.
//
// The `reference` backend runs each operation in SuiteSparse too, but through snack's front-end and with
// one copy of every input into SuiteSparse and one copy of the result back (backends/reference/
// convert.cpp). Timing SuiteSparse alone on the same inputs, already imported, shows how much of the
// reference backend's time is that copying, so that the kokkos/reference ratio can be read against
// SuiteSparse's own speed. This header keeps SuiteSparse's GraphBLAS.h out of the benchmark's main file
// (snack's own C API declares the same GrB_ names).
#pragma once

#include <cstdint>
#include <memory>

#include "snack/snack.hpp"

namespace bench {

class SuiteSparseDirect {
 public:
  // Imports copies of A (FP64, n x n) and u (FP64, size n) into SuiteSparse (GrB_Matrix_import, CSR).
  SuiteSparseDirect(const snk::Matrix& A, const snk::Vector& u);
  ~SuiteSparseDirect();
  SuiteSparseDirect(const SuiteSparseDirect&) = delete;
  SuiteSparseDirect& operator=(const SuiteSparseDirect&) = delete;

  // Each computes one result (PLUS_TIMES / PLUS on FP64) into a fresh object, finished with GrB_wait, and
  // keeps it until release() or the next call.
  void mxv();          // w = A u
  void mxm();          // C = A A
  void mxm_masked();   // C<A, structural> = A A'  (descriptor: mask structure, second input transposed)
  void ewise_add();    // C = A + A'               (descriptor: second input transposed)
  void release();      // frees the kept result

  // Entries of the kept result and the sum of its values (to check it against the other contenders).
  std::uint64_t result_nvals() const;
  double result_sum() const;

  // SuiteSparse's global thread limit (GxB_NTHREADS; 0 or less means "chosen automatically").
  static int threads();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace bench
