// backends/kokkos/parallel.cpp: the kokkos backend's type-independent host helpers of parallel.hpp (the pool's use,
// CSR views of a Matrix, a pattern's copy), compiled once.
#include "parallel.hpp"

#include <chrono>

#include "pool_governor.hpp"

namespace snk::kokkos {

namespace {
PoolGovernor& governor() {
  static PoolGovernor g;
  return g;
}
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

bool use_pool() { return on_pool() && governor().pool_allowed(now_ns()); }

CsrRef csr_ref(const Matrix& A) {
  const CsrStorage& s = A.csr();
  CsrRef r;
  r.hyper = s.hyper;
  r.h = s.hyper ? s.h.data() : nullptr;
  static const Index kEmptyRowPointers[1] = {0};
  r.p = s.p.empty() ? kEmptyRowPointers : s.p.data();
  r.j = s.j.data();
  r.x = s.x.data();
  r.nslots = s.nslots();
  r.nrows = A.nrows();
  r.ncols = A.ncols();
  r.nvals = s.nvals();
  return r;
}

CsrStorage copy_pattern(const Matrix& A, std::size_t value_size) {
  const CsrStorage& a = A.csr();
  CsrStorage s;
  s.hyper = a.hyper;
  s.h = a.h;
  s.p = a.p;
  s.j = a.j;
  s.x.resize(a.j.size() * value_size);
  return s;
}

}  // namespace snk::kokkos
