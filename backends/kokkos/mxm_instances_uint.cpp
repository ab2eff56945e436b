// backends/kokkos/mxm_instances_uint.cpp: run_mxm compiled for the predefined semirings on std::uint8_t std::uint16_t std::uint32_t std::uint64_t
// (one file per group of types, so the build compiles the 124 semiring kernels in parallel).
#include "mxm_methods.hpp"

namespace snk::kokkos {
SNK_KOKKOS_MXM_NUMERIC(std::uint8_t)
SNK_KOKKOS_MXM_NUMERIC(std::uint16_t)
SNK_KOKKOS_MXM_NUMERIC(std::uint32_t)
SNK_KOKKOS_MXM_NUMERIC(std::uint64_t)
}  // namespace snk::kokkos
