// backends/kokkos/mxm_instances_fp.cpp: run_mxm compiled for the predefined semirings on float double
// (one file per group of types, so the build compiles the 124 semiring kernels in parallel).
#include "mxm_methods.hpp"

namespace snk::kokkos {
SNK_KOKKOS_MXM_NUMERIC(float)
SNK_KOKKOS_MXM_NUMERIC(double)
// the four boolean semirings
template void run_mxm<SemiringFn<BinaryOpcode::LOr, BinaryOpcode::LAnd, bool>>(MxmCall&);
template void run_mxm<SemiringFn<BinaryOpcode::LAnd, BinaryOpcode::LOr, bool>>(MxmCall&);
template void run_mxm<SemiringFn<BinaryOpcode::LXor, BinaryOpcode::LAnd, bool>>(MxmCall&);
template void run_mxm<SemiringFn<BinaryOpcode::LXnor, BinaryOpcode::LOr, bool>>(MxmCall&);
}  // namespace snk::kokkos
