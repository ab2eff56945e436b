// spmm/rowrange_plus_times.cu: instantiations and launcher of the row-range kernel (csr_rowrange.cuh) for
// plus_times over fp32 / fp16 / bf16 values (fp32 accumulation), batch tiles 8, 32 and 128 (rowrange_row_kernel
// at 128, and at 32 where the dispatcher sets one_row), with 16-byte stores of
// the row sums where Y' allows (fp32, aligned rows, a batch that is a multiple of 4) and a constant X' row
// stride where X' is packed (ldx = batch tile, one tile that the batch fills to its last four values).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "spmm/csr_rowrange.cuh"
#include "spmm/plan_impl.hpp"

namespace snk::cuda {

namespace {

template <class VT, int BT, bool kVectorStore>
void launch_kernel(const RowRangeParams& p, cudaStream_t s) {
  const unsigned batch_tiles = static_cast<unsigned>((p.batch + BT - 1) / BT);
  if constexpr (BT != 8) {
    if (p.one_row || BT == 128) {   // one row per lane group (32 lanes at 128, 8 at 32)
      constexpr int kRowsPerWarp = 128 / BT, kWarps = kRowWarpThreads / 32;
      const std::int64_t warps = (std::int64_t(p.rows) + kRowsPerWarp - 1) / kRowsPerWarp;
      const dim3 grid(static_cast<unsigned>(std::max<std::int64_t>(1, (warps + kWarps - 1) / kWarps)), batch_tiles);
      if (x_packed_to_tile(p.ldx, p.batch, BT))
        launch_with_carveout(rowrange_row_kernel<VT, BT, kVectorStore, true>, grid, kRowWarpThreads, 0, s, p);
      else
        launch_with_carveout(rowrange_row_kernel<VT, BT, kVectorStore, false>, grid, kRowWarpThreads, 0, s, p);
      return;
    }
  }
  if constexpr (BT != 128) {
    constexpr int kWarps = 8;   // 256 threads; kStreamWarpsPerSm / 8 blocks per SM are resident (launch bounds)
    const std::int64_t blocks = std::max<std::int64_t>(1, (p.n_ranges + kWarps - 1) / kWarps);
    const dim3 grid(static_cast<unsigned>(blocks), batch_tiles);
    if (x_packed_to_tile(p.ldx, p.batch, BT))
      launch_with_carveout(rowrange_kernel<VT, BT, kVectorStore, true>, grid, 256, 0, s, p);
    else
      launch_with_carveout(rowrange_kernel<VT, BT, kVectorStore, false>, grid, 256, 0, s, p);
  }
}

template <class VT, int BT>
cudaError_t launch_tile(const RowRangeParams& p, cudaStream_t s) {
  if constexpr (std::is_same_v<VT, float>) {
    if (y_takes_vector_stores(p.y, p.ys_row, p.ys_col, p.batch)) {
      launch_kernel<VT, BT, true>(p, s);
      return cudaGetLastError();
    }
  }
  launch_kernel<VT, BT, false>(p, s);
  return cudaGetLastError();
}

template <class VT>
cudaError_t launch_type(int bt, const RowRangeParams& p, cudaStream_t s) {
  switch (bt) {
    case 8: return launch_tile<VT, 8>(p, s);
    case 32: return launch_tile<VT, 32>(p, s);
    case 128: return launch_tile<VT, 128>(p, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_rowrange(ValueType vt, int bt, const RowRangeParams& p, cudaStream_t s) {
  switch (vt) {
    case ValueType::FP32: return launch_type<float>(bt, p, s);
    case ValueType::FP16: return launch_type<__half>(bt, p, s);
    case ValueType::BF16: return launch_type<__nv_bfloat16>(bt, p, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace snk::cuda
