// backends/kokkos/mxm_instances_int.cpp: run_mxm compiled for the predefined semirings on std::int8_t std::int16_t std::int32_t std::int64_t
// (one file per group of types, so the build compiles the 124 semiring kernels in parallel).
#include "mxm_methods.hpp"

namespace snk::kokkos {
SNK_KOKKOS_MXM_NUMERIC(std::int8_t)
SNK_KOKKOS_MXM_NUMERIC(std::int16_t)
SNK_KOKKOS_MXM_NUMERIC(std::int32_t)
SNK_KOKKOS_MXM_NUMERIC(std::int64_t)
}  // namespace snk::kokkos
