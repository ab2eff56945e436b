// spmm/csr_rowlanes.cuh: the lanes-across-rows SpMM kernel (plus_times fp32, fp16 and bf16 with fp32 sums, batch
// tiles 8, 16, 24 (fp32) and 32, values bound to the plan; deterministic unless its column blocks' sums are added into
// Y with atomics, which only fp32 does).
//
// At batch 32 every kernel that brings each non-zero's row of X (128 bytes) from shared memory into registers is bound
// by the shared-memory data pipe: one 128-byte wavefront per non-zero at best (the on-chip floor of
// bench/results/spmm-h200.md). colblock_wide_kernel spends about a third more than that: each group of 8 lanes takes
// the (value, offset) pairs of its row from shared memory (staged there by the warp) and the groups' pair loads
// conflict. Here each lane owns one whole row: its BT sums are in registers, its non-zeros come straight from global
// memory in the plan's interleaved order (row_lanes_layout.hpp: a warp's chunk step is one coalesced read of four
// values and four 8-byte columns per lane), and it reads each non-zero's X' row (BT values of VT) in P = BT sizeof(VT)
// / 16 pieces of 16 bytes, lane l starting at piece l mod P (piece kk ^ (l mod P) at step kk; at tile 24, six pieces,
// piece (kk + l mod 2) mod 6: rowlanes_piece). With fp32 at batch tile 32 (128-byte rows) the eight lanes of a load
// phase then read eight distinct bank groups whatever their rows are: no bank conflicts, and no pair traffic. Where
// rows are shorter than a bank line (fp32 at tiles 8, 16 and 24: 32, 64 and 96 bytes; 16-bit values: 16, 32 and 64
// bytes) the plan's residue order does it instead (row_lanes_layout.hpp). 16-bit values are held as they are in X' and
// W (half the bytes of fp32 to stage, hold and read per non-zero) and widened to fp32 for the sums. The sums are never
// folded across lanes; the lane's registers a[kk] hold batch values E rowlanes_piece(P, kk, lp) .. + E - 1 (E = 16 /
// sizeof(VT) values a piece) and are stored there. A thread block holds one column block of X' for the whole call
// (RowLanesTile: up to 176 KB of fp32 at tile 32 and 132 KB at tile 24, one block per SM; up to 88 KB at tile 16, two
// per SM, and 44 KB at tile 8, three per SM, so that more warps keep W's loads in flight; 16-bit X' takes the same
// blocks in half the bytes). Its warps take their work from a counter in shared memory, longest first (the layout's
// order): at tiles 24 and 32 the groups of 32 rows of the thread block's row range; at tiles 8 and 16 (the "dealt"
// tiles) every n-th work item of the column block's list over all rows (thread block x of n: items x, x + n, ...), so
// that each thread block gets long and short groups alike. Split column blocks write partial tiles that
// fold_column_ranges_kernel sums in block order, so each result is the same sums in the same order run to run (bitwise
// repeatable); where the call allows results that differ in the last bits run to run (SpmmArgs::deterministic false)
// and Y is fp32, each block adds its sums into Y with 16-byte atomics instead (p.accumulate: Y zeroed by
// zero_rows_kernel, which each thread of this kernel waits for before its first add), so no partial tiles are written
// and no fold runs; at tile 32, where Y's rows hold their values contiguous and 16-byte aligned (p.bulk_sums), a whole
// tile's sums go out as one 128-byte bulk reduction per row instead (cp.reduce.async.bulk, staged per warp in shared
// memory eight rows at a time), faster than the 16-byte atomics. With atomics, at the dealt tiles a group's walk may
// then be cut into runs of its chunk steps (p.runs), each a work item that adds its own sums, so that the warps' work
// evens out. A batch wider than the tile runs one tile per grid z, each streaming W again (batch 33-128 at tile 32).
// Only with values bound (Plan::bind_values): in CSR order a lane's chunk loads hit 32 rows' lines per step. Not kept:
// other stagings of the bulk sums, and a share of each column block's X' rows read through the texture path instead of
// staged (bench/results/onchip-paths-h200.md: that path runs beside the shared-memory one only with little shared
// memory taken and without W's stream). The measurements behind these choices: bench/results/spmm-dispatch-rules.md.
#pragma once

#include <cstdint>
#include <type_traits>

#include "spmm/loads.cuh"
#include "spmm/row_lanes_layout.hpp"
#include "spmm/semiring.cuh"   // to_acc, from_acc

namespace snk::cuda {

struct RowLanesParams {
  const std::uint16_t* col16 = nullptr;       // the layout's columns, relative to their block's first
  const void* values = nullptr;               // the bound values (fp32, fp16, bf16) in the layout's order
  const std::int64_t* group_start = nullptr;  // [n_blocks][n_groups]
  const int* group_chunks = nullptr;          // [n_blocks][n_groups]
  const int* slot_row = nullptr;              // [n_blocks][n_groups * 32]
  const int* slot_len = nullptr;              // [n_blocks][n_groups * 32]
  int rows = 0, cols = 0;
  int n_blocks = 0, block_cols = 0;           // block c: lanes_block_first / lanes_block_width (row_lanes_layout.hpp)
  int n_wide = 0, fine_cols = 0;
  int slots_per_range = 0;                    // tile 32: 32 x the groups of a range (row_lanes_layout.hpp)
  int n_groups = 0;
  const void* x = nullptr;                    // X'(k, b) = x[k * ldx + b], of the values' type
  std::int64_t ldx = 0;                       // 16 bytes' values times a whole number, >= the batch rounded up to the
                                              // tile
  void* y = nullptr;                          // Y'(m, b) = y[m * ys_row + b * ys_col] (n_blocks == 1)
  std::int64_t ys_row = 0, ys_col = 1;
  int batch = 0;
  float* partial = nullptr;                   // [n_blocks][rows][partial_ld] (n_blocks > 1, not accumulate)
  std::int64_t partial_ld = 0;
  bool accumulate = false;                    // n_blocks > 1, fp32: add the sums into Y (zeroed first) with atomics
  bool bulk_sums = false;                     // accumulate at tile 32 where Y's rows hold their values contiguous
                                              // and 16-byte aligned: a whole tile's sums go out as bulk reductions
  int runs = 1;                               // accumulate: work items per group, each a run of its chunk steps
};

// Rows of sums each warp stages in shared memory for the bulk reductions (p.bulk_sums): the 32 lanes' rows go
// out in four passes of eight (staging all 32, 4 KB per warp, would not fit beside the held block).
constexpr int kBulkRowsPerPass = 8;

// Dynamic shared memory of a launch of `threads` threads: the held block (rows of bt values of value_bytes), 128
// bytes to align it to a whole bank line (the 16-byte pieces' rotation is a XOR on the address), the work counter,
// and with bulk sums (fp32 at tile 32) each warp's staging rows after the next 128-byte boundary.
constexpr std::size_t rowlanes_shared_bytes(int bt, int value_bytes, int block_cols, int threads,
                                            bool bulk_sums = false) {
  return std::size_t(block_cols) * bt * value_bytes + 128 + 16 +
         (bulk_sums ? 128 + std::size_t(threads / 32) * kBulkRowsPerPass * 128 : 0);
}
static_assert(rowlanes_shared_bytes(32, 4, static_cast<int>(RowLanesTile<32>::kTileBytes / (32 * 4)),
                                    RowLanesTile<32>::kThreads, true) <= 227 * 1024 &&
                  RowLanesTile<32>::kLongThreads <= RowLanesTile<32>::kThreads,
              "the held block and the bulk sums' staging fit one thread block's shared memory");

// Work items per group of 32 rows: the dealt tiles may cut a group into runs of its chunk steps (p.runs, with
// accumulate); tile 32 walks whole groups (its 32 sums leave no register for the runs' bounds: 24 more bytes spilled).
// Read from the parameters at each use (a local copy cost the tile-8 kernel 8 bytes of spills).
template <int BT>
__device__ __forceinline__ int group_runs(const RowLanesParams& p) {
  return rowlanes_dealt(BT) ? p.runs : 1;
}

// The 16-byte piece of X' at shared-memory address addr, widened to fp32: E values (4 fp32, 8 fp16 / bf16).
template <class VT, int E>
__device__ __forceinline__ void rowlanes_load_piece(unsigned addr, float (&x)[E]) {
  unsigned u[4];
  asm volatile("ld.shared.v4.b32 {%0,%1,%2,%3}, [%4];" : "=r"(u[0]), "=r"(u[1]), "=r"(u[2]), "=r"(u[3]) : "r"(addr));
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if constexpr (sizeof(VT) == 4) {
      x[i] = __uint_as_float(u[i]);
    } else if constexpr (std::is_same_v<VT, __nv_bfloat16>) {   // a bf16 is the high half of its fp32
      x[2 * i] = __uint_as_float(u[i] << 16);
      x[2 * i + 1] = __uint_as_float(u[i] & 0xffff0000u);
    } else {
      __half2 h;
      memcpy(&h, &u[i], 4);
      const float2 f = __half22float2(h);
      x[2 * i] = f.x;
      x[2 * i + 1] = f.y;
    }
  }
}

// Value t (0 .. 3) of a chunk of four values of VT (one 16-byte load of fp32, one 8-byte load of 16-bit), as fp32.
template <class VT>
__device__ __forceinline__ float rowlanes_chunk_value(const uint4& w, int t) {
  const unsigned word = sizeof(VT) == 4 ? (t == 0 ? w.x : t == 1 ? w.y : t == 2 ? w.z : w.w) : (t < 2 ? w.x : w.y);
  if constexpr (sizeof(VT) == 4) {
    return __uint_as_float(word);
  } else {
    const unsigned short h = static_cast<unsigned short>((t & 1) ? (word >> 16) : (word & 0xffffu));
    VT v;
    memcpy(&v, &h, 2);
    return to_acc<float>(v);
  }
}

// The shared-memory address of the lane's step-kk piece (rowlanes_piece, row_lanes_layout.hpp) of the X' row whose
// piece lp starts at row_addr.
template <int P>
__device__ __forceinline__ unsigned rowlanes_piece_address(unsigned row_addr, int kk, int lp) {
  if constexpr (P == 6) return row_addr + 16u * static_cast<unsigned>(kk) - (kk + lp >= 6 ? 96u : 0u);
  else return row_addr ^ (static_cast<unsigned>(kk) << 4);
}

// VT: float, __half or __nv_bfloat16 (X', W and Y; the sums are fp32). Threads: RowLanesTile<BT>::kThreads, or at
// tile 32 its kLongThreads (the same code; the register budget differs).
template <class VT, int BT, int Threads>
__global__ void __launch_bounds__(Threads, RowLanesTile<BT>::kBlocksPerSm) rowlanes_kernel(RowLanesParams p) {
  static_assert(rowlanes_tile(BT, sizeof(VT)), "one of the kernel's batch tiles for these values (RowLanesTile)");
  constexpr bool kDealt = rowlanes_dealt(BT);
  static_assert(sizeof(VT) == 4 || sizeof(VT) == 2, "fp32 or 16-bit values");
  constexpr bool kFp32 = sizeof(VT) == 4;
  constexpr unsigned kRowBytes = BT * sizeof(VT);
  constexpr int P = kRowBytes / 16;          // 16-byte pieces of an X' row
  constexpr int E = 16 / sizeof(VT);         // values of a piece
  // Chunks loaded ahead of the one in use: one (at batch tile 32 the 32 sums take the registers; at 8 the
  // 40 registers of three 512-thread blocks per SM: two ahead spilled there, row_lanes_layout.hpp; 16 keeps the rule).
  constexpr int D = 1;
  extern __shared__ uint4 rowlanes_smem[];
  const int c = blockIdx.y;   // the column block; blockIdx.z: the batch tile (X' columns BT z .. BT z + BT - 1)
  const int k0 = static_cast<int>(lanes_block_first(c, p.block_cols, p.n_wide, p.fine_cols));
  const int nc = min(lanes_block_width(c, p.block_cols, p.n_wide, p.fine_cols), p.cols - k0);
  const unsigned raw = shared_address(rowlanes_smem);
  const unsigned base = (raw + 127u) & ~127u;   // the held block, aligned to 128 bytes
  char* tile = reinterpret_cast<char*>(rowlanes_smem) + (base - raw);
  int* next_group = reinterpret_cast<int*>(tile + std::size_t(p.block_cols) * kRowBytes);
  const VT* x = static_cast<const VT*>(p.x);
  for (int i = threadIdx.x; i < nc * P; i += blockDim.x)
    cp_async16(tile + std::size_t(i) * 16, x + std::int64_t(k0 + i / P) * p.ldx + blockIdx.z * BT + (i % P) * E, 16);
  cp_async_commit();
  if (threadIdx.x == 0) *next_group = 0;
  // The block is staged by cp.async from every thread, all of it before any walk, with no L2 prefetch of the
  // walks' first groups meanwhile (the alternatives measured: bench/results/spmm-dispatch-rules.md).
  cp_async_wait<0>();
  __syncthreads();

  const int lane = threadIdx.x & 31;
  constexpr int LP = rowlanes_first_pieces(P);
  const int lp = lane & (LP - 1);   // the lane's first piece
  // The lane's first piece of X' row 0 (held opaque: the compiler would rebuild it per non-zero otherwise).
  unsigned lane_base = base + 16u * static_cast<unsigned>(lp);
  asm volatile("" : "+r"(lane_base));
  // Tile 32: the thread block's row range, its groups taken in order. Tiles 8 and 16: the block's work items over all
  // its rows (the layout's one range, the groups longest first, each cut into group_runs runs of its chunk steps),
  // thread block x taking items x, x + gridDim.x, ...: each thread block gets long and short ones alike, so the SMs
  // finish together; its warps take them in order.
  const int g_first = kDealt ? 0 : blockIdx.x * (p.slots_per_range / 32);
  const int g_count = kDealt ? p.n_groups : min(p.n_groups, g_first + p.slots_per_range / 32) - g_first;
  for (;;) {
    int item = 0;
    if (lane == 0) item = atomicAdd(next_group, 1);
    item = __shfl_sync(0xffffffffu, item, 0);
    if (kDealt) item = item * gridDim.x + blockIdx.x;
    if (item >= g_count * group_runs<BT>(p)) break;
    const int gi = item / group_runs<BT>(p);
    const std::int64_t gb = std::int64_t(c) * p.n_groups + g_first + gi;
    // The lane's row (-1: a pad lane): tile 32 reads it before the walk, the dealt tiles after it (each spills least
    // so: 8 and 0 bytes at tiles 32 and 8).
    const int row_early = kDealt ? 0 : p.slot_row[gb * 32 + lane];
    const int all_chunks = p.group_chunks[gb];
    // The item's chunk steps [k_first, k_first + n_chunks) of the group's, and the lane's entries among them.
    const int per_run = (all_chunks + group_runs<BT>(p) - 1) / group_runs<BT>(p);
    const int k_first = kDealt ? min(all_chunks, (item - gi * group_runs<BT>(p)) * per_run) : 0;
    const int n_chunks = kDealt ? min(all_chunks, k_first + per_run) - k_first : all_chunks;
    const int len =
        kDealt ? min(p.slot_len[gb * 32 + lane] - 4 * k_first, 4 * n_chunks) : p.slot_len[gb * 32 + lane];
    const std::int64_t first = p.group_start[gb] + 4 * lane + 128 * std::int64_t(k_first);   // chunk k at + 128 k

    float a[P][E];
#pragma unroll
    for (int kk = 0; kk < P; ++kk)
#pragma unroll
      for (int e = 0; e < E; ++e) a[kk][e] = 0.0f;
    // The lane's chunks in flight: w[0], cc[0] are used while w[1 .. D], cc[1 .. D] load; vp, cp point at the
    // next chunk to load.
    const VT* vp = static_cast<const VT*>(p.values) + first;
    const std::uint16_t* cp = p.col16 + first;
    uint4 w[D + 1];   // four values (16-bit: in .x and .y)
    uint2 cc[D + 1];  // four 16-bit columns, packed (unpacked per use: fewer registers at tile 8's 40)
    auto load_values = [&](uint4& into) {
      if constexpr (kFp32) {
        into = ld_stream(reinterpret_cast<const uint4*>(vp));
      } else {
        const uint2 h = ld_stream(reinterpret_cast<const uint2*>(vp));
        into.x = h.x;
        into.y = h.y;
      }
    };
#pragma unroll
    for (int i = 0; i < D; ++i, vp += 128, cp += 128)
      if (4 * i < len) {
        load_values(w[i]);
        cc[i] = ld_stream(reinterpret_cast<const uint2*>(cp));
      }
    for (int k = 0; k < n_chunks; ++k) {
      if (4 * (k + D) < len) {
        load_values(w[D]);
        cc[D] = ld_stream(reinterpret_cast<const uint2*>(cp));
      }
      vp += 128;
      cp += 128;
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        if (4 * k + t < len) {
          const unsigned cw = t < 2 ? cc[0].x : cc[0].y;
          const unsigned col = (t & 1) ? (cw >> 16) : (cw & 0xffffu);
          const unsigned row_addr = lane_base + col * kRowBytes;
          const float wv = rowlanes_chunk_value<VT>(w[0], t);
#pragma unroll
          for (int kk = 0; kk < P; ++kk) {
            float xv[E];
            rowlanes_load_piece<VT, E>(rowlanes_piece_address<P>(row_addr, kk, lp), xv);
#pragma unroll
            for (int e = 0; e < E; ++e) a[kk][e] = fmaf(wv, xv[e], a[kk][e]);
          }
        }
      }
#pragma unroll
      for (int i = 0; i < D; ++i) {
        w[i] = w[i + 1];
        cc[i] = cc[i + 1];
      }
    }
    const std::int64_t slot = (std::int64_t(c) * p.n_groups + g_first + item / group_runs<BT>(p)) * 32 + lane;
    const int row = kDealt ? p.slot_row[slot] : row_early;   // (gb kept for this spilled 8 bytes at tile 8)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // With accumulate this grid is a programmatic dependent of zero_rows_kernel (launch_rowlanes): Y must be zero
    // before this thread's first add, and only then. Waiting here rather than after the staging lets the zeroing
    // run beside the block's staging and first walk (it returns at once once the zeroing is done, and after an
    // ordinary launch; bench/results/spmm-dispatch-rules.md).
    // (16-bit values never accumulate: kFp32 leaves that code out of their instantiations.)
    if (kFp32 && p.accumulate) asm volatile("griddepcontrol.wait;" ::: "memory");
    if (kFp32 && BT == 32 && p.bulk_sums && int(blockIdx.z) * BT + BT <= p.batch) {
      // The warp's rows go out eight at a time: each lane of the pass writes its 32 sums to its 128-byte staging
      // row (piece kk ^ lp from a[kk]: the eight lanes hit distinct bank groups), makes them visible to the async
      // proxy, and has the TMA unit add the row into Y's (one 128-byte reduction in L2 instead of eight 16-byte
      // atomics from eight lanes); it waits until the row has been read before the next pass reuses the staging.
      char* stage = tile + std::size_t(p.block_cols) * kRowBytes + 128 +
                    (threadIdx.x >> 5) * std::size_t(kBulkRowsPerPass * 128);
      const bool live = row >= 0 && len > 0;
      const int my_pass = lane / kBulkRowsPerPass;
#pragma unroll 1
      for (int pass = 0; pass < 32 / kBulkRowsPerPass; ++pass) {
        if (my_pass == pass && live) {
          float4* srow = reinterpret_cast<float4*>(stage + (lane - pass * kBulkRowsPerPass) * 128);
#pragma unroll
          for (int kk = 0; kk < P; ++kk)
            srow[rowlanes_piece(P, kk, lp)] = make_float4(a[kk][0], a[kk][1], a[kk][2], a[kk][3]);
          async_proxy_fence();
          float* dst = static_cast<float*>(p.y) + std::int64_t(row) * p.ys_row + blockIdx.z * BT;
          asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], 128;"
                       ::"l"(dst), "r"(shared_address(srow))
                       : "memory");
          asm volatile("cp.async.bulk.commit_group;" ::: "memory");
          asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        }
        __syncwarp();
      }
      continue;
    }
#endif
    if (row < 0 || (p.accumulate && len <= 0)) continue;   // (a fold reads every row's partial tile)
    if (kFp32 && p.accumulate) {
      const int b_first = blockIdx.z * BT;
      float* yr = static_cast<float*>(p.y) + std::int64_t(row) * p.ys_row;
      // 16-byte atomics (compute capability 9.0) where Y's row holds the four values contiguously and aligned,
      // else one per value. (This form of the test kept the tile-32 kernel at 8 bytes of spills; testing the
      // alignment once per call in the launcher instead spilled 36.)
      const bool vec = p.ys_col == 1 && (reinterpret_cast<std::uintptr_t>(yr + b_first) & 15u) == 0;
#pragma unroll
      for (int kk = 0; kk < P; ++kk) {
        const int b0 = b_first + 4 * rowlanes_piece(P, kk, lp);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        if (vec && b0 + 4 <= p.batch) {
          atomicAdd(reinterpret_cast<float4*>(yr + b0), make_float4(a[kk][0], a[kk][1], a[kk][2], a[kk][3]));
          continue;
        }
#endif
#pragma unroll
        for (int v = 0; v < 4; ++v)
          if (b0 + v < p.batch) atomicAdd(yr + std::int64_t(b0 + v) * p.ys_col, a[kk][v]);
      }
    } else if (p.partial) {   // fp32 partial tiles, each piece's E sums as E / 4 16-byte stores
      float4* out =
          reinterpret_cast<float4*>(p.partial + (std::int64_t(c) * p.rows + row) * p.partial_ld + blockIdx.z * BT);
#pragma unroll
      for (int kk = 0; kk < P; ++kk)
#pragma unroll
        for (int u = 0; u < E / 4; ++u)
          out[rowlanes_piece(P, kk, lp) * (E / 4) + u] =
              make_float4(a[kk][4 * u], a[kk][4 * u + 1], a[kk][4 * u + 2], a[kk][4 * u + 3]);
    } else {
      const int b_first = blockIdx.z * BT;
      VT* yr = static_cast<VT*>(p.y) + std::int64_t(row) * p.ys_row;
#pragma unroll
      for (int kk = 0; kk < P; ++kk) {
        const int b0 = E * rowlanes_piece(P, kk, lp);
#pragma unroll
        for (int v = 0; v < E; ++v)
          if (b_first + b0 + v < p.batch) yr[std::int64_t(b_first + b0 + v) * p.ys_col] = from_acc<VT>(a[kk][v]);
      }
    }
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // The bulk reductions' writes complete before the thread block ends.
  if (kFp32 && BT == 32 && p.bulk_sums) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

}  // namespace snk::cuda
