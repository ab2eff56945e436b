// spmm/rowseg_plus_times.cu: instantiations and launcher of the row-segment kernel for plus_times over
// fp32 / fp16 / bf16 values (fp32 accumulation): batch tiles 1, 4, 8, 32 and group widths 8, 32 (batch 1 with
// 32 lanes is the stream kernel, launch_rowseg_stream in csr_rowseg.cuh); and of its batch-lane variant
// (batch tiles 8, 32, 128).
#include <cstdint>
#include <type_traits>

#include "spmm/csr_rowseg.cuh"
#include "spmm/plan_impl.hpp"

namespace snk::cuda {

namespace {

template <class VT, int BT, int G>
cudaError_t launch_one(const RowSegParams& p, int sm_count, const int4* splits, int n_splits, cudaStream_t s) {
  constexpr int kThreads = 256;
  const std::int64_t groups_per_block = kThreads / G;
  std::int64_t blocks = (p.n_items + groups_per_block - 1) / groups_per_block;
  blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(blocks, std::int64_t(sm_count) * 32));
  dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>((p.batch + BT - 1) / BT));
  launch_with_carveout(rowseg_kernel<PlusTimes, VT, BT, G>, grid, kThreads, 0, s, p, PlusTimes{});
  return finish_rowseg_launch<PlusTimes, VT>(p, PlusTimes{}, splits, n_splits, s);
}

template <class VT>
cudaError_t launch_type(int bt, int g, const RowSegParams& p, int sm, const int4* sp, int ns, cudaStream_t s) {
  const bool wide = g >= 32;
  switch (bt) {
    case 1:
      return wide ? launch_rowseg_stream<PlusTimes, VT, kStreamWarpsPerSm / 8>(p, PlusTimes{}, sm, sp, ns, s)
                  : launch_one<VT, 1, 8>(p, sm, sp, ns, s);
    case 4: return wide ? launch_one<VT, 4, 32>(p, sm, sp, ns, s) : launch_one<VT, 4, 8>(p, sm, sp, ns, s);
    case 8: return wide ? launch_one<VT, 8, 32>(p, sm, sp, ns, s) : launch_one<VT, 8, 8>(p, sm, sp, ns, s);
    case 32: return wide ? launch_one<VT, 32, 32>(p, sm, sp, ns, s) : launch_one<VT, 32, 8>(p, sm, sp, ns, s);
    default: return cudaErrorInvalidValue;
  }
}

template <class VT, int BT, bool kVectorStore>
void launch_batch_kernel(const RowSegParams& p, dim3 grid, int threads, cudaStream_t s) {
  if (x_packed_to_tile(p.ldx, p.batch, BT))   // the constant-stride instantiation
    launch_with_carveout(rowseg_batch_kernel<VT, BT, kVectorStore, true>, grid, threads, 0, s, p);
  else
    launch_with_carveout(rowseg_batch_kernel<VT, BT, kVectorStore, false>, grid, threads, 0, s, p);
}

template <class VT, int BT>
cudaError_t launch_batch(const RowSegParams& p, int sm_count, const int4* splits, int n_splits, cudaStream_t s) {
  constexpr int kThreads = 256;
  // One warp per plan range (kStreamWarpsPerSm / 8 blocks per SM are resident: the kernel's launch bounds).
  const std::int64_t blocks = std::max<std::int64_t>(1, (p.n_ranges + kThreads / 32 - 1) / (kThreads / 32));
  dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>((p.batch + BT - 1) / BT));
  if constexpr (std::is_same_v<VT, float>) {
    if (y_takes_vector_stores(p.y, p.ys_row, p.ys_col, p.batch)) {
      launch_batch_kernel<VT, BT, true>(p, grid, kThreads, s);
      return finish_rowseg_launch<PlusTimes, VT>(p, PlusTimes{}, splits, n_splits, s);
    }
  }
  launch_batch_kernel<VT, BT, false>(p, grid, kThreads, s);
  return finish_rowseg_launch<PlusTimes, VT>(p, PlusTimes{}, splits, n_splits, s);
}

template <class VT>
cudaError_t launch_batch_type(int bt, const RowSegParams& p, int sm, const int4* sp, int ns, cudaStream_t s) {
  switch (bt) {
    case 8: return launch_batch<VT, 8>(p, sm, sp, ns, s);
    case 32: return launch_batch<VT, 32>(p, sm, sp, ns, s);
    case 128: return launch_batch<VT, 128>(p, sm, sp, ns, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_rowseg_batch_lanes(ValueType vt, int bt, const RowSegParams& p, int sm_count,
                                      const int4* splits, int n_splits, cudaStream_t s) {
  switch (vt) {
    case ValueType::FP32: return launch_batch_type<float>(bt, p, sm_count, splits, n_splits, s);
    case ValueType::FP16: return launch_batch_type<__half>(bt, p, sm_count, splits, n_splits, s);
    case ValueType::BF16: return launch_batch_type<__nv_bfloat16>(bt, p, sm_count, splits, n_splits, s);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_rowseg_plus_times(ValueType vt, int bt, int g, const RowSegParams& p, int sm_count,
                                     const int4* splits, int n_splits, cudaStream_t s) {
  switch (vt) {
    case ValueType::FP32: return launch_type<float>(bt, g, p, sm_count, splits, n_splits, s);
    case ValueType::FP16: return launch_type<__half>(bt, g, p, sm_count, splits, n_splits, s);
    case ValueType::BF16: return launch_type<__nv_bfloat16>(bt, g, p, sm_count, splits, n_splits, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace snk::cuda
