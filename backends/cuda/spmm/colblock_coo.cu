// spmm/colblock_coo.cu: launchers of the column-block kernel (fp32/fp16/bf16, batch tiles 8, 32, 128), of the
// lanes-across-rows kernel (fp32, fp16, bf16, batch tiles 8, 16 and 32, bound values), of SNACK-COO, of the
// column-scatter kernel (W^T X from W's rows), of the sampled product (SDDMM), and of the small helper kernels the
// dispatcher uses (strided copies of dense operands, value gathers for bound orders, the move of W's values into the
// transposed pattern's order, COO row expansion).
#include "spmm/csr_colblock.cuh"
#include "spmm/csr_rowlanes.cuh"
#include "spmm/column_ranges.cuh"
#include "spmm/column_scatter.cuh"
#include "spmm/sampled_product.cuh"
#include "spmm/plan_impl.hpp"
#include "spmm/snack_coo.cuh"
#include "spmm/transpose_runs.hpp"   // kTransposePieceCap

namespace snk::cuda {

namespace {

// Batch tiles 32 and 128 run colblock_wide_kernel (row sums in registers: rows_per_cta at most
// 32 x kColBlockRowsPerWarp), batch tile 8 colblock_held_kernel (one column block per thread block) or
// colblock_kernel; colblock_shared_bytes says what each needs.
template <class VT, int BT, int K>
void (*wide_kernel(bool bulk, bool map))(ColBlockParams) {
  if constexpr (BT == 32 || BT == 128) {   // (the launcher refuses a map at batch tile 8)
    if (map) return bulk ? colblock_wide_kernel<VT, BT, K, true, true> : colblock_wide_kernel<VT, BT, K, false, true>;
  }
  return bulk ? colblock_wide_kernel<VT, BT, K, true, false> : colblock_wide_kernel<VT, BT, K, false, false>;
}

template <class VT, int BT>
cudaError_t launch_cb(const ColBlockParams& p_in, int pairs_per_lane, cudaStream_t s) {
  constexpr bool kWide = BT == 32 || BT == 128;
  ColBlockParams p = p_in;
  if (kWide && (p.rows_per_cta < 1 || p.rows_per_cta > 32 * kColBlockRowsPerWarp)) return cudaErrorInvalidValue;
  if (p.row_map && !kWide) return cudaErrorInvalidValue;   // balanced rows: batch tiles 32 and 128 only
  const int k = colblock_pairs_per_lane(BT, pairs_per_lane);
  // The wide kernel fills its stages by bulk copies where the tile's X' rows are contiguous (one batch tile,
  // ldx == BT, 16-byte aligned), with a third stage where it fits.
  const bool bulk = kWide && p.ldx == BT && p.batch <= BT && reinterpret_cast<std::uintptr_t>(p.x) % 16 == 0;
  p.stages = colblock_stages(BT, p.blocks_per_cta);
  if (bulk && colblock_shared_bytes(BT, p.block_cols, p.rows_per_cta, k, sizeof(VT), 3, true) <= p.shared_limit)
    p.stages = 3;
  const std::size_t smem = colblock_shared_bytes(BT, p.block_cols, p.rows_per_cta, k, sizeof(VT), p.stages, bulk);
  void (*kernel)(ColBlockParams);
  const bool map = p.row_map != nullptr;
  if constexpr (BT == 32) kernel = k == 8 ? wide_kernel<VT, BT, 8>(bulk, map) : wide_kernel<VT, BT, 4>(bulk, map);
  else if constexpr (kWide) kernel = wide_kernel<VT, BT, 4>(bulk, map);
  else if (colblock_one_block(BT, p.blocks_per_cta))
    kernel = p.bound_layout ? colblock_held_kernel<VT, true> : colblock_held_kernel<VT, false>;
  else if (p.bound_layout) return cudaErrorInvalidValue;   // the bound copy serves the held kernel only
  else kernel = colblock_kernel<VT, BT>;
  cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (e != cudaSuccess) return e;
  const int splits = (p.n_blocks + p.blocks_per_cta - 1) / p.blocks_per_cta;
  dim3 grid(static_cast<unsigned>((p.rows + p.rows_per_cta - 1) / p.rows_per_cta), static_cast<unsigned>(splits),
            static_cast<unsigned>((p.batch + BT - 1) / BT));
  launch_with_carveout(kernel, grid, kColBlockThreads, smem, s, p);
  if ((e = cudaGetLastError()) != cudaSuccess || !p.partial) return e;
  return launch_fold_column_ranges<VT>(p.partial, p.partial_ld, splits, p.rows, p.batch, p.y, p.ys_row, p.ys_col, s);
}

template <class VT>
cudaError_t launch_cb_type(int bt, const ColBlockParams& p, int pairs_per_lane, cudaStream_t s) {
  switch (bt) {
    case 8: return launch_cb<VT, 8>(p, pairs_per_lane, s);
    case 32: return launch_cb<VT, 32>(p, pairs_per_lane, s);
    case 128: return launch_cb<VT, 128>(p, pairs_per_lane, s);
    default: return cudaErrorInvalidValue;
  }
}

template <class E>
__global__ void strided_copy_kernel(E* dst, std::int64_t d_row, std::int64_t d_col, const E* src,
                                    std::int64_t s_row, std::int64_t s_col, std::int64_t r, std::int64_t c) {
  // Threads walk the destination's contiguous dimension when it has one.
  const std::int64_t n = r * c;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < n;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t i, j;
    if (d_col == 1) { i = t / c; j = t % c; } else { j = t / r; i = t % r; }
    dst[i * d_row + j * d_col] = src[i * s_row + j * s_col];
  }
}

template <class E>
__global__ void gather_kernel(E* dst, const E* src, const int* perm, std::int64_t n) {
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < n;
       t += std::int64_t(gridDim.x) * blockDim.x)
    dst[t] = perm[t] >= 0 ? src[perm[t]] : E{};   // a negative index: a pad of the plan's layout
}

// The pieces' arrays (Plan::Impl::transpose_*, transpose_runs.hpp).
struct TransposeRunsView {
  const std::int64_t *entry, *src_run, *dst_run;
  const std::int32_t *src_run_pos, *dst_run_pos;
  const std::uint16_t *src_run_off, *dst_run_off, *dperm;
  std::int64_t pieces;
};

// The runs [j0, j0 + 32) of a piece (runs before `last`, which ends at the piece's size n), one per lane: its
// start position, its first slot (src) or dst-order index (dst), and its length (0 past `last`).
struct RunsOfWarp {
  std::int64_t pos;
  int off, len;
};
__device__ __forceinline__ RunsOfWarp runs_of_warp(const std::int32_t* run_pos, const std::uint16_t* run_off,
                                                   std::int64_t j0, std::int64_t last, int n, int lane) {
  const std::int64_t r = j0 + lane;
  RunsOfWarp w{0, n, 0};
  if (r < last) {
    w.pos = run_pos[r];
    w.off = run_off[r];
  }
  int end = __shfl_down_sync(0xffffffffu, w.off, 1);   // the next run's first slot
  if (lane == 31) end = r + 1 < last ? run_off[r + 1] : n;
  if (r < last) w.len = (r + 1 < last ? end : n) - w.off;
  return w;
}

// A warp's walk over runs [first, last) of a piece of n non-zeros, 32 runs at a time (their positions and lengths
// with one load per lane), kInFlight runs' loads issued before any is used, one lane per non-zero. A non-zero has a
// CSR position (of W in src runs, of W^T in dst runs) and an index (its slot in src runs, its dst-order index in dst
// runs): x = load(one of them), then store(the other, x); kLoadAtPosition says which the load takes.
static_assert(kTransposeRunCap == 32, "a run is one warp's load: one lane per non-zero");
template <class X, bool kLoadAtPosition, class Load, class Store>
__device__ __forceinline__ void walk_runs(const std::int32_t* run_pos, const std::uint16_t* run_off, std::int64_t first,
                                          std::int64_t last, int n, int lane, int warps, Load load, Store store) {
  constexpr int kInFlight = 16;
  // Run u's start on the load's side (at_load) or on the store's side.
  const auto start = [](const RunsOfWarp& w, int u, bool at_load) -> std::int64_t {
    return at_load == kLoadAtPosition ? __shfl_sync(0xffffffffu, w.pos, u) : __shfl_sync(0xffffffffu, w.off, u);
  };
  for (std::int64_t j0 = first; j0 < last; j0 += warps * 32) {
    const RunsOfWarp w = runs_of_warp(run_pos, run_off, j0, last, n, lane);
#pragma unroll
    for (int h = 0; h < 32; h += kInFlight) {
      X x[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const std::int64_t at = start(w, h + u, true);
        const int len = __shfl_sync(0xffffffffu, w.len, h + u);
        x[u] = lane < len ? load(at + lane) : X{};
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const std::int64_t at = start(w, h + u, false);
        const int len = __shfl_sync(0xffffffffu, w.len, h + u);
        if (lane < len) store(at + lane, x[u]);
      }
    }
  }
}

// One thread block per piece: its values read along W's runs into shared memory (slot by slot), then written along
// W^T's runs, each from the slot dperm names.
template <class E>
__global__ void __launch_bounds__(256) transpose_values_kernel(E* __restrict__ dst, const E* __restrict__ src,
                                                               TransposeRunsView t) {
  extern __shared__ __align__(16) unsigned char slot_bytes[];
  E* slots = reinterpret_cast<E*>(slot_bytes);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  for (std::int64_t p = blockIdx.x; p < t.pieces; p += gridDim.x) {
    const std::int64_t e0 = t.entry[p];
    const int n = static_cast<int>(t.entry[p + 1] - e0);
    walk_runs<E, true>(
        t.src_run_pos, t.src_run_off, t.src_run[p] + warp * 32, t.src_run[p + 1], n, lane, warps,
        [&](std::int64_t pos) { return src[pos]; }, [&](std::int64_t slot, E v) { slots[slot] = v; });
    __syncthreads();
    walk_runs<int, false>(
        t.dst_run_pos, t.dst_run_off, t.dst_run[p] + warp * 32, t.dst_run[p + 1], n, lane, warps,
        [&](std::int64_t k) { return static_cast<int>(t.dperm[e0 + k]); },
        [&](std::int64_t pos, int slot) { dst[pos] = slots[slot]; });
    __syncthreads();   // the slots are free for the next piece
  }
}

__global__ void expand_rows_kernel(int* row, const int* row_ptr, int rows) {
  const int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (r >= rows) return;
  for (int j = row_ptr[r] + (threadIdx.x & 31); j < row_ptr[r + 1]; j += 32) row[j] = r;
}

unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>((n + 255) / 256, 65535)));
}

}  // namespace

cudaError_t launch_colblock(ValueType vt, int bt, const ColBlockParams& p, int pairs_per_lane, cudaStream_t s) {
  switch (vt) {
    case ValueType::FP32: return launch_cb_type<float>(bt, p, pairs_per_lane, s);
    case ValueType::FP16: return launch_cb_type<__half>(bt, p, pairs_per_lane, s);
    case ValueType::BF16: return launch_cb_type<__nv_bfloat16>(bt, p, pairs_per_lane, s);
    default: return cudaErrorInvalidValue;
  }
}

namespace {
template <class VT, int BT, int Threads>
cudaError_t launch_rl(const RowLanesParams& p, int n_ranges, int sm_count, cudaStream_t s) {
  constexpr int kPiece = 16 / sizeof(VT);   // values of a 16-byte piece of an X' row
  if (p.slots_per_range % 32 != 0 || p.slots_per_range <= 0 ||
      (!rowlanes_dealt(BT) && std::int64_t(p.slots_per_range / 32) * n_ranges != p.n_groups) || p.ldx % kPiece != 0 ||
      p.ldx < (p.batch + BT - 1) / BT * BT || reinterpret_cast<std::uintptr_t>(p.x) % 16 != 0 ||
      std::int64_t(p.block_cols) * BT * sizeof(VT) > RowLanesTile<BT>::kTileBytes ||
      (p.n_blocks > 1) != (p.partial != nullptr || p.accumulate) || (p.partial && p.accumulate) || p.runs < 1 ||
      (p.runs > 1 && (!p.accumulate || !rowlanes_dealt(BT))) || (sizeof(VT) != 4 && p.accumulate))
    return cudaErrorInvalidValue;
  // Bulk sums (csr_rowlanes.cuh) where tile 32 adds into Y rows of contiguous, 16-byte aligned values.
  RowLanesParams q = p;
  q.bulk_sums = BT == 32 && p.accumulate && rows_start_aligned(p.y, p.ys_row, p.ys_col);
  const std::size_t smem = rowlanes_shared_bytes(BT, sizeof(VT), p.block_cols, Threads, q.bulk_sums);
  cudaError_t e = cudaFuncSetAttribute(rowlanes_kernel<VT, BT, Threads>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem));
  if (e != cudaSuccess) return e;
  const unsigned tiles = static_cast<unsigned>((p.batch + BT - 1) / BT);   // grid z: the batch tiles
  // Tiles 8 and 16: n_ranges thread blocks per column block dealt its work items in turn, but no more than keep all
  // their warps busy; tile 32: one per row range.
  constexpr int kWarps = Threads / 32;
  const int ctas = !rowlanes_dealt(BT) ? n_ranges
                            : static_cast<int>(std::max<std::int64_t>(
                                  1, std::min<std::int64_t>(n_ranges, std::int64_t(p.n_groups) * p.runs / kWarps)));
  dim3 grid(static_cast<unsigned>(ctas), static_cast<unsigned>(p.n_blocks), tiles);
  if constexpr (sizeof(VT) == 4) {
    if (p.accumulate) {   // Y zeroed, then the blocks' sums added into it (column_ranges.cuh)
      e = launch_zero_rows(static_cast<float*>(p.y), p.rows, p.batch, p.ys_row, p.ys_col, sm_count, s);
      if (e != cudaSuccess) return e;
      return launch_dependent(rowlanes_kernel<VT, BT, Threads>, grid, dim3(Threads), smem, s, q);
    }
  }
  launch_with_carveout(rowlanes_kernel<VT, BT, Threads>, grid, Threads, smem, s, q);
  if ((e = cudaGetLastError()) != cudaSuccess || !p.partial) return e;
  return launch_fold_column_ranges<VT>(p.partial, p.partial_ld, p.n_blocks, p.rows, p.batch, p.y, p.ys_row, p.ys_col,
                                      s);
}

template <class VT>
cudaError_t launch_rl_type(int bt, int threads, const RowLanesParams& p, int n_ranges, int sm_count, cudaStream_t s) {
  if (bt == 8 && threads == RowLanesTile<8>::kThreads)
    return launch_rl<VT, 8, RowLanesTile<8>::kThreads>(p, n_ranges, sm_count, s);
  if (bt == 16 && threads == RowLanesTile<16>::kThreads)
    return launch_rl<VT, 16, RowLanesTile<16>::kThreads>(p, n_ranges, sm_count, s);
  if constexpr (sizeof(VT) == 4)
    if (bt == 24 && threads == RowLanesTile<24>::kThreads)
      return launch_rl<VT, 24, RowLanesTile<24>::kThreads>(p, n_ranges, sm_count, s);
  if (bt == 32 && threads == RowLanesTile<32>::kThreads)
    return launch_rl<VT, 32, RowLanesTile<32>::kThreads>(p, n_ranges, sm_count, s);
  if (bt == 32 && threads == RowLanesTile<32>::kLongThreads)
    return launch_rl<VT, 32, RowLanesTile<32>::kLongThreads>(p, n_ranges, sm_count, s);
  return cudaErrorInvalidValue;
}
}  // namespace

cudaError_t launch_rowlanes(ValueType vt, int bt, int threads, const RowLanesParams& p, int n_ranges, int sm_count,
                            cudaStream_t s) {
  switch (vt) {
    case ValueType::FP32: return launch_rl_type<float>(bt, threads, p, n_ranges, sm_count, s);
    case ValueType::FP16: return launch_rl_type<__half>(bt, threads, p, n_ranges, sm_count, s);
    case ValueType::BF16: return launch_rl_type<__nv_bfloat16>(bt, threads, p, n_ranges, sm_count, s);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_snack_coo(const SnackCooParams& p, int batch, cudaStream_t s) {
  if (p.nnz == 0) return cudaSuccess;
  dim3 grid(static_cast<unsigned>((p.nnz + 255) / 256), static_cast<unsigned>(batch));
  launch_with_carveout(snack_coo_kernel, grid, 256, 0, s, p);
  return cudaGetLastError();
}

namespace {
// A kernel of the blocked-rows layout (blocked_rows.cuh), 512 threads, `bytes` of dynamic shared memory: the rows
// are cut into ranges so that ranges x column blocks fill the SMs once at as many thread blocks an SM as the
// kernel's registers and shared memory let reside.
template <class Params>
cudaError_t launch_blocked(void (*kernel)(Params), const Params& p, std::size_t bytes, cudaStream_t s) {
  if (p.grid.rows < 1 || p.grid.blocks < 1) return cudaSuccess;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (e != cudaSuccess) return e;
  int per_sm = 0;
  if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 512, bytes)) != cudaSuccess) return e;
  Params q = p;
  BlockedRows& g = q.grid;
  const std::int64_t ranges = std::max<std::int64_t>(
      1, std::min<std::int64_t>(g.rows, std::int64_t(std::max(1, per_sm)) * g.sm_count / g.blocks));
  g.rows_per_cta = static_cast<std::int32_t>((g.rows + ranges - 1) / ranges);
  g.ranges = (g.rows + g.rows_per_cta - 1) / g.rows_per_cta;
  const dim3 grid(static_cast<unsigned>(g.ranges), static_cast<unsigned>(g.blocks));
  launch_with_carveout(kernel, grid, 512, bytes, s, q);
  return cudaGetLastError();
}
}  // namespace

cudaError_t launch_column_scatter(const ColumnScatterParams& p, cudaStream_t s) {
  return launch_blocked(column_scatter_kernel, p, std::size_t(p.batch) * p.grid.block_cols * sizeof(float), s);
}

cudaError_t launch_sampled_product(const SampledParams& p, cudaStream_t s) {
  const std::size_t bytes = std::size_t(p.row_floats) * p.grid.block_cols * sizeof(float);
  const int slice = std::min(p.k, kSampledSliceK);   // the kernel's lanes and values are a slice's
  // The instantiations of sampled_lanes / _values, storing z or updating (one lane a non-zero: kSampledUpdateMaxK;
  // an update on 2 or 4 lanes has none).
  switch (sampled_lanes(slice) * 1000 + sampled_values(slice) * 10 + (p.update ? 1 : 0)) {
    case 1010: return launch_blocked(sampled_product_kernel<1, 1, false>, p, bytes, s);
    case 1040: return launch_blocked(sampled_product_kernel<4, 1, false>, p, bytes, s);
    case 1080: return launch_blocked(sampled_product_kernel<8, 1, false>, p, bytes, s);
    case 2080: return launch_blocked(sampled_product_kernel<8, 2, false>, p, bytes, s);
    case 4080: return launch_blocked(sampled_product_kernel<8, 4, false>, p, bytes, s);
    case 1011: return launch_blocked(sampled_product_kernel<1, 1, true>, p, bytes, s);
    case 1041: return launch_blocked(sampled_product_kernel<4, 1, true>, p, bytes, s);
    case 1081: return launch_blocked(sampled_product_kernel<8, 1, true>, p, bytes, s);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_strided_copy(void* dst, std::int64_t d_row, std::int64_t d_col, const void* src,
                                std::int64_t s_row, std::int64_t s_col, std::int64_t r, std::int64_t c,
                                int elem_size, cudaStream_t s) {
  if (r * c == 0) return cudaSuccess;
  const unsigned g = blocks_for(r * c);
  switch (elem_size) {
    case 1: strided_copy_kernel<<<g, 256, 0, s>>>(static_cast<std::uint8_t*>(dst), d_row, d_col,
                                                  static_cast<const std::uint8_t*>(src), s_row, s_col, r, c); break;
    case 2: strided_copy_kernel<<<g, 256, 0, s>>>(static_cast<std::uint16_t*>(dst), d_row, d_col,
                                                  static_cast<const std::uint16_t*>(src), s_row, s_col, r, c); break;
    case 4: strided_copy_kernel<<<g, 256, 0, s>>>(static_cast<std::uint32_t*>(dst), d_row, d_col,
                                                  static_cast<const std::uint32_t*>(src), s_row, s_col, r, c); break;
    case 8: strided_copy_kernel<<<g, 256, 0, s>>>(static_cast<std::uint64_t*>(dst), d_row, d_col,
                                                  static_cast<const std::uint64_t*>(src), s_row, s_col, r, c); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_gather(void* dst, const void* src, const int* perm, std::int64_t n, int elem_size,
                          cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  const unsigned g = blocks_for(n);
  switch (elem_size) {
    case 1: gather_kernel<<<g, 256, 0, s>>>(static_cast<std::uint8_t*>(dst), static_cast<const std::uint8_t*>(src), perm, n); break;
    case 2: gather_kernel<<<g, 256, 0, s>>>(static_cast<std::uint16_t*>(dst), static_cast<const std::uint16_t*>(src), perm, n); break;
    case 4: gather_kernel<<<g, 256, 0, s>>>(static_cast<std::uint32_t*>(dst), static_cast<const std::uint32_t*>(src), perm, n); break;
    case 8: gather_kernel<<<g, 256, 0, s>>>(static_cast<std::uint64_t*>(dst), static_cast<const std::uint64_t*>(src), perm, n); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_transpose_values(void* dst, const void* src, const Plan::Impl& w, int elem_size, cudaStream_t s) {
  if (w.n_transpose_pieces == 0) return cudaSuccess;
  const TransposeRunsView t{w.transpose_entry.get(),         w.transpose_src_run.get(),     w.transpose_dst_run.get(),
                            w.transpose_src_run_pos.get(),   w.transpose_dst_run_pos.get(), w.transpose_src_run_off.get(),
                            w.transpose_dst_run_off.get(),   w.transpose_dperm.get(),       w.n_transpose_pieces};
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>(w.n_transpose_pieces, std::int64_t(1) << 30)));
  const auto run = [&](auto element) {
    using E = decltype(element);
    const std::size_t smem = static_cast<std::size_t>(w.transpose_max_piece) * sizeof(E);
    if constexpr (kTransposePieceCap * sizeof(E) > 48 * 1024) {   // past the default dynamic limit: raised once
      static const cudaError_t raised =
          cudaFuncSetAttribute(transpose_values_kernel<E>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(kTransposePieceCap * sizeof(E)));
      if (raised != cudaSuccess) return raised;
    }
    launch_with_carveout(transpose_values_kernel<E>, grid, 256, smem, s, static_cast<E*>(dst),
                         static_cast<const E*>(src), t);
    return cudaGetLastError();
  };
  switch (elem_size) {
    case 1: return run(std::uint8_t{});
    case 2: return run(std::uint16_t{});
    case 4: return run(std::uint32_t{});
    case 8: return run(std::uint64_t{});
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_expand_rows(int* row, const int* row_ptr, int rows, cudaStream_t s) {
  if (rows == 0) return cudaSuccess;
  launch_with_carveout(expand_rows_kernel, static_cast<unsigned>((rows + 7) / 8), 256, 0, s, row, row_ptr, rows);
  return cudaGetLastError();
}

}  // namespace snk::cuda
