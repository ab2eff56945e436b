// spmm/rowseg_generic.cu: instantiations and launcher of the row-segment kernel for every builtin
// semiring, with the monoid and multiply chosen at run time (RuntimeSemiring<T>), for the value types
// bool, int32, int64, uint32, uint64, fp32, fp64; batch 1 (the stream kernel) and batch tile 4, one group
// width (32 lanes). Two kernels per type keep the instantiation count at 14; the plus_times fast path is
// separate.
#include "spmm/csr_rowseg.cuh"
#include "spmm/plan_impl.hpp"

namespace snk::cuda {

namespace {

template <class T, int BT>
cudaError_t launch_one(const RowSegParams& p, RuntimeSemiring<T> sr, int sm_count, const int4* splits,
                       int n_splits, cudaStream_t s) {
  constexpr int kThreads = 256, kG = 32;
  std::int64_t blocks = (p.n_items + kThreads / kG - 1) / (kThreads / kG);
  blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(blocks, std::int64_t(sm_count) * 32));
  dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>((p.batch + BT - 1) / BT));
  launch_with_carveout(rowseg_kernel<RuntimeSemiring<T>, T, BT, kG>, grid, kThreads, 0, s, p, sr);
  return finish_rowseg_launch<RuntimeSemiring<T>, T>(p, sr, splits, n_splits, s);
}

template <class T>
cudaError_t launch_type(SemiringId id, bool swap, int bt, const RowSegParams& p, int sm, const int4* sp,
                        int ns, cudaStream_t s) {
  RuntimeSemiring<T> sr{id.add, id.mul, swap != id.flip};
  return bt == 1 ? launch_rowseg_stream<RuntimeSemiring<T>, T, 1>(p, sr, sm, sp, ns, s)
                 : launch_one<T, 4>(p, sr, sm, sp, ns, s);
}

}  // namespace

cudaError_t launch_rowseg_generic(ValueType vt, SemiringId id, bool swap, int bt, const RowSegParams& p,
                                  int sm_count, const int4* splits, int n_splits, cudaStream_t s) {
  switch (vt) {
    case ValueType::Bool: return launch_type<bool>(id, swap, bt, p, sm_count, splits, n_splits, s);
    case ValueType::Int32: return launch_type<std::int32_t>(id, swap, bt, p, sm_count, splits, n_splits, s);
    case ValueType::Int64: return launch_type<std::int64_t>(id, swap, bt, p, sm_count, splits, n_splits, s);
    case ValueType::UInt32: return launch_type<std::uint32_t>(id, swap, bt, p, sm_count, splits, n_splits, s);
    case ValueType::UInt64: return launch_type<std::uint64_t>(id, swap, bt, p, sm_count, splits, n_splits, s);
    case ValueType::FP32: return launch_type<float>(id, swap, bt, p, sm_count, splits, n_splits, s);
    case ValueType::FP64: return launch_type<double>(id, swap, bt, p, sm_count, splits, n_splits, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace snk::cuda
