// tests/gpu/spmm_test.cu: GPU tests of the SpMM kernel family (backends/cuda/spmm) against a host
// reference.
//
// Every case draws a fresh random pattern, values and X on the host, computes the reference on the host
// (float64 for plus_times; for the other semirings the same operations in the value type: exact for
// integers, with wrap-around, and bool; for floating point the order of terms differs from the kernel's, so
// the relative error is compared), poisons Y (all bytes 0xff: NaN for floating point) before each
// kernel run, and compares: ||out - ref|| / ||ref|| < 1e-5 for fp32, 1e-2 for fp16/bf16, 1e-12 for fp64,
// exact for integers and bool; NaN never passes. For integer types, where any poison value could be a
// valid result, each run is repeated with a second poison (0x5a bytes) and both must agree bit for bit.
// Size classes: nnz = 0, a small dense-ish block, a medium matrix, one row holding most non-zeros
// (cut into segments: exercises the fix-up), more than 65536 columns (16-bit column windows), batch 1,
// and batches that are not multiples of the tiles. Deterministic kernels run twice and must be bitwise
// equal. Without a GPU every test skips with the reason.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <type_traits>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "algebra/builtin_ops.hpp"
#include "spmm/dispatch.hpp"
#include "spmm_host_pattern.hpp"   // with_dense_corner (tests/core)

namespace snk::cuda {
namespace {

bool have_gpu(std::string* why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    *why = std::string("no CUDA device: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return false;
  }
  return true;
}

#define SKIP_WITHOUT_GPU()                      \
  do {                                          \
    std::string why_;                           \
    if (!have_gpu(&why_)) GTEST_SKIP() << why_; \
  } while (0)

#define CUDA_OK(x) ASSERT_EQ(cudaSuccess, (x)) << #x

struct DeviceBuffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  explicit DeviceBuffer(std::size_t n) : bytes(n) { EXPECT_EQ(cudaSuccess, cudaMalloc(&p, n ? n : 1)); }
  ~DeviceBuffer() { cudaFree(p); }
  template <class T> void put(const std::vector<T>& h) {
    ASSERT_EQ(cudaSuccess, cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
};

// ---- random patterns ----------------------------------------------------------------------------------
struct Pattern {
  int rows = 0, cols = 0;
  std::vector<int> row_ptr, col;
};

// Each row draws its columns independently with probability `density`; row `heavy` (if >= 0) gets
// `heavy_nnz` columns.
Pattern random_pattern(std::mt19937& rng, int rows, int cols, double density, int heavy = -1, int heavy_nnz = 0) {
  Pattern p;
  p.rows = rows;
  p.cols = cols;
  p.row_ptr.push_back(0);
  std::uniform_real_distribution<double> u(0, 1);
  for (int r = 0; r < rows; ++r) {
    if (r == heavy) {
      std::vector<int> all(cols);
      for (int c = 0; c < cols; ++c) all[c] = c;
      std::shuffle(all.begin(), all.end(), rng);
      all.resize(std::min(cols, heavy_nnz));
      std::sort(all.begin(), all.end());
      p.col.insert(p.col.end(), all.begin(), all.end());
    } else if (density > 0) {
      // Geometric skips: O(nnz) even for very wide rows.
      std::geometric_distribution<int> skip(density);
      for (long c = skip(rng); c < cols; c += 1 + skip(rng)) p.col.push_back(static_cast<int>(c));
    }
    p.row_ptr.push_back(static_cast<int>(p.col.size()));
  }
  return p;
}

// ---- values ---------------------------------------------------------------------------------------------
template <class T> struct Host;   // host storage type and conversion to double
template <> struct Host<float> { using S = float; static double d(S v) { return v; } static S make(double v) { return float(v); } };
template <> struct Host<double> { using S = double; static double d(S v) { return v; } static S make(double v) { return v; } };
template <> struct Host<__half> { using S = __half; static double d(S v) { return __half2float(v); } static S make(double v) { return __float2half(float(v)); } };
template <> struct Host<__nv_bfloat16> { using S = __nv_bfloat16; static double d(S v) { return __bfloat162float(v); } static S make(double v) { return __float2bfloat16(float(v)); } };

template <class T> ValueType vtype();
template <> ValueType vtype<float>() { return ValueType::FP32; }
template <> ValueType vtype<double>() { return ValueType::FP64; }
template <> ValueType vtype<__half>() { return ValueType::FP16; }
template <> ValueType vtype<__nv_bfloat16>() { return ValueType::BF16; }
template <> ValueType vtype<bool>() { return ValueType::Bool; }
template <> ValueType vtype<std::int32_t>() { return ValueType::Int32; }
template <> ValueType vtype<std::int64_t>() { return ValueType::Int64; }
template <> ValueType vtype<std::uint32_t>() { return ValueType::UInt32; }
template <> ValueType vtype<std::uint64_t>() { return ValueType::UInt64; }

// A dense user matrix r x c in a layout, with a padded leading dimension.
struct DenseShape {
  std::int64_t r, c, ld;
  Layout layout;
  std::int64_t at(std::int64_t i, std::int64_t j) const { return layout == Layout::RowMajor ? i * ld + j : i + j * ld; }
  std::int64_t size() const { return layout == Layout::RowMajor ? r * ld : c * ld; }
};
DenseShape shape_of(std::int64_t r, std::int64_t c, Layout l, int pad) {
  return {r, c, (l == Layout::RowMajor ? c : r) + pad, l};
}

struct Case {
  Orientation orientation = Orientation::WX;
  Layout layout = Layout::RowMajor;
  int batch = 1;
  int pad = 0;
  Kernel kernel = Kernel::Auto;
  ColumnBlockConfig cb{};
  bool deterministic = false;
  int batch_tile = 0;
  int slabs = 0;
  bool tight_x = false;   // X's allocation ends where its last row's batch ends (BLAS convention)
  bool bind = false;      // bind W's values to the plan first and call with values_bound
  int lanes_runs = 0;   // RowLanes at batch tile 8 with atomic sums: work items per group (0: the dispatcher's)
  int lanes_threads = 0;   // RowLanes at batch tile 32: threads per thread block (0: the dispatcher's)
  StreamWalk walk = StreamWalk::Auto;   // batch 1, RowSegment with 32 lanes: items or windows
};

// The batch-1 walk a case asks for, for the traces (nothing for Auto).
std::string walk_suffix(StreamWalk w) {
  return w == StreamWalk::Items ? " walk=items" : w == StreamWalk::Windows ? " walk=windows" : "";
}

std::string describe(const Case& c) {
  static const char* o[] = {"WX", "XWt", "WtX"};
  return std::string(o[int(c.orientation)]) + (c.layout == Layout::RowMajor ? " row-major" : " col-major") +
         " batch=" + std::to_string(c.batch) + " pad=" + std::to_string(c.pad) + " kernel=" + kernel_name(c.kernel) +
         " splits=" + std::to_string(c.cb.splits) + " bt=" + std::to_string(c.cb.batch_tile) +
         " tile=" + std::to_string(c.batch_tile) + " slabs=" + std::to_string(c.slabs) + (c.bind ? " bound" : "") +
         (c.lanes_runs ? " runs=" + std::to_string(c.lanes_runs) : "") +
         (c.lanes_threads ? " threads=" + std::to_string(c.lanes_threads) : "") + walk_suffix(c.walk);
}

// A case in one orientation and layout, with a batch and a padding of the leading dimensions (Auto unless set).
Case oriented(Orientation o, Layout l, int batch, int pad, Kernel kernel = Kernel::Auto) {
  Case c;
  c.orientation = o;
  c.layout = l;
  c.batch = batch;
  c.pad = pad;
  c.kernel = kernel;
  return c;
}

// A case of the column-block kernel at batch tile 8 (block width, rows and splits the dispatcher's unless set).
Case column_block8(int batch, bool bind = false) {
  Case c;
  c.batch = batch;
  c.kernel = Kernel::ColumnBlock;
  c.cb.batch_tile = 8;
  c.bind = bind;
  return c;
}

// A case of the lanes-across-rows kernel with W's values bound (fresh values each run: every bind refreshes the copy).
Case row_lanes_bound(int batch) {
  Case c;
  c.batch = batch;
  c.kernel = Kernel::RowLanes;
  c.bind = true;
  return c;
}

// The call row_lanes_bound makes, as the arguments choose() reads: RowLanes asked for, values of `type` bound.
SpmmArgs row_lanes_call(int batch, ValueType type = ValueType::FP32) {
  SpmmArgs a;
  a.values_bound = true;
  a.kernel = Kernel::RowLanes;
  a.type = type;
  a.batch = batch;
  return a;
}

// The batch tile the dispatcher's rule gives the lanes-across-rows kernel at `batch` (2-128) where none is asked for:
// the smallest of 8, 16, 24 (fp32 only) and 32 that holds it, else 32.
int rule_lanes_tile(int batch, bool fp32 = true) {
  return batch <= 8 ? 8 : batch <= 16 ? 16 : batch <= 24 && fp32 ? 24 : 32;
}

// Runs one plus_times case of value type T and checks it; returns false on a failed expectation.
template <class T>
void check_plus_times(const Pattern& pat, const Case& cs, std::mt19937& rng, double tol, Plan& plan,
                      std::vector<unsigned char>* out_bytes = nullptr, const std::vector<typename Host<T>::S>* fixed_w = nullptr,
                      const std::vector<typename Host<T>::S>* fixed_x = nullptr) {
  using S = typename Host<T>::S;
  SCOPED_TRACE(describe(cs));
  const std::int64_t nnz = pat.col.size();
  const bool t = cs.orientation == Orientation::WtX;
  const std::int64_t kin = t ? pat.rows : pat.cols, mout = t ? pat.cols : pat.rows;
  const bool xwt = cs.orientation == Orientation::XWt;
  DenseShape xs = xwt ? shape_of(cs.batch, kin, cs.layout, cs.pad) : shape_of(kin, cs.batch, cs.layout, cs.pad);
  DenseShape ys = xwt ? shape_of(cs.batch, mout, cs.layout, cs.pad) : shape_of(mout, cs.batch, cs.layout, cs.pad);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<S> w(nnz), x(xs.size());
  if (fixed_w) w = *fixed_w; else for (auto& v : w) v = Host<T>::make(u(rng));
  if (fixed_x) x = *fixed_x; else for (auto& v : x) v = Host<T>::make(u(rng));
  // Reference: Y'(m, b) = sum over the pattern.
  std::vector<double> ref(mout * cs.batch, 0.0);
  auto xat = [&](std::int64_t k, std::int64_t b) { return Host<T>::d(x[xwt ? xs.at(b, k) : xs.at(k, b)]); };
  for (int r = 0; r < pat.rows; ++r)
    for (int j = pat.row_ptr[r]; j < pat.row_ptr[r + 1]; ++j) {
      const int c = pat.col[j];
      const std::int64_t m = t ? c : r, k = t ? r : c;
      const double wv = Host<T>::d(w[j]);
      for (int b = 0; b < cs.batch; ++b) ref[m * cs.batch + b] += wv * xat(k, b);
    }
  // A tight X ends at element (rows - 1) * ld + cols of its layout (row-major here): the kernels must not read
  // past it (compute-sanitizer catches it).
  const std::int64_t x_elems = cs.tight_x && xs.layout == Layout::RowMajor && xs.r > 0 ? (xs.r - 1) * xs.ld + xs.c : xs.size();
  DeviceBuffer dw(nnz * sizeof(S) + 16), dx(x_elems * sizeof(S)), dy(ys.size() * sizeof(S));
  dw.put(w);
  CUDA_OK(cudaMemcpy(dx.p, x.data(), x_elems * sizeof(S), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dy.p, 0xff, dy.bytes));   // poison: NaN in every floating-point format
  SpmmArgs a;
  a.orientation = cs.orientation;
  a.type = vtype<T>();
  a.values = dw.p;
  a.x = {dx.p, xs.ld, cs.layout};
  a.y = {dy.p, ys.ld, cs.layout};
  a.batch = cs.batch;
  a.kernel = cs.kernel;
  a.column_block = cs.cb;
  a.batch_tile = cs.batch_tile;
  a.slabs = cs.slabs;
  a.deterministic = cs.deterministic;
  a.lanes_runs = cs.lanes_runs;
  a.lanes_threads = cs.lanes_threads;
  a.stream_walk = cs.walk;
  std::string msg;
  if (cs.bind) {
    ASSERT_EQ(Status::Success, plan.bind_values(dw.p, vtype<T>(), nullptr, &msg)) << msg;
    a.values_bound = true;
  }
  ASSERT_EQ(Status::Success, spmm(plan, a, &msg)) << msg;
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<S> y(ys.size());
  CUDA_OK(cudaMemcpy(y.data(), dy.p, dy.bytes, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  std::int64_t nans = 0;
  for (std::int64_t m = 0; m < mout; ++m)
    for (int b = 0; b < cs.batch; ++b) {
      const double got = Host<T>::d(y[xwt ? ys.at(b, m) : ys.at(m, b)]);
      if (std::isnan(got)) ++nans;
      const double d = got - ref[m * cs.batch + b];
      num += d * d;
      den += ref[m * cs.batch + b] * ref[m * cs.batch + b];
    }
  ASSERT_EQ(0, nans) << "unwritten or NaN outputs";
  if (den == 0) {
    EXPECT_EQ(0.0, num) << "expected an all-zero result";
  } else {
    const double rel = std::sqrt(num / den);
    EXPECT_LT(rel, tol) << "relative error " << rel;
  }
  if (out_bytes) {
    out_bytes->resize(y.size() * sizeof(S));
    std::memcpy(out_bytes->data(), y.data(), out_bytes->size());
  }
}

std::mt19937& rng() {
  static std::mt19937 g(std::random_device{}());
  return g;
}

// Runs fp32 cases a and b (same orientation, layout and batch) on the same fresh W and X, a on plan_a and b on
// plan_b (plans of the same pattern), each checked against the host reference, and expects bitwise-equal outputs.
void expect_same_bits(const Pattern& p, const Case& a, Plan& plan_a, const Case& b, Plan& plan_b) {
  std::uniform_real_distribution<double> u(-1, 1);
  const std::int64_t kin = a.orientation == Orientation::WtX ? p.rows : p.cols;
  const DenseShape xs = a.orientation == Orientation::XWt ? shape_of(a.batch, kin, a.layout, a.pad)
                                                          : shape_of(kin, a.batch, a.layout, a.pad);
  std::vector<float> w(p.col.size()), x(static_cast<std::size_t>(xs.size()));
  for (auto& v : w) v = float(u(rng()));
  for (auto& v : x) v = float(u(rng()));
  std::vector<unsigned char> first, second;
  check_plus_times<float>(p, a, rng(), 1e-5, plan_a, &first, &w, &x);
  check_plus_times<float>(p, b, rng(), 1e-5, plan_b, &second, &w, &x);
  EXPECT_TRUE(first == second) << "outputs differ: " << describe(a) << " / " << describe(b);
}
// The same on one plan.
void expect_same_bits(const Pattern& p, const Case& a, const Case& b, Plan& plan) {
  expect_same_bits(p, a, plan, b, plan);
}

// Runs the fp32 case twice on the same fresh W and X and expects bitwise-equal outputs.
void expect_bitwise_repeatable(const Pattern& p, const Case& c, Plan& plan) { expect_same_bits(p, c, c, plan); }

std::unique_ptr<Plan> make_plan(const Pattern& p, bool coo = true) {
  DeviceBuffer rp(p.row_ptr.size() * 4), ci(p.col.size() * 4 + 4);
  rp.put(p.row_ptr);
  if (!p.col.empty()) ci.put(p.col);
  CsrPattern cp;
  cp.rows = p.rows;
  cp.cols = p.cols;
  cp.nnz = static_cast<std::int64_t>(p.col.size());
  cp.row_ptr = static_cast<const int*>(rp.p);
  cp.col_idx = static_cast<const int*>(ci.p);
  PlanOptions o;
  o.transposed = true;
  o.coo = coo;
  return Plan::create(cp, o);
}

struct Shape {
  const char* name;
  int rows, cols;
  double density;
  int heavy = -1, heavy_nnz = 0;
};
const Shape kShapes[] = {
    {"empty", 50, 40, 0.0},
    {"small", 64, 80, 0.2},
    {"medium", 1000, 1200, 0.05},
    {"one_heavy_row", 300, 5000, 0.001, 7, 4500},
    {"wide", 40, 70000, 0.002},
};


// Runs `run` on c with X' packed to the 128-wide batch tile: as given (batch 128, ld 128) and repacked (126,
// ld 127).
template <class Run>
void packed_to_wide_tile(Case c, Run&& run) {
  for (int wide : {126, 128}) {
    c.batch = wide;
    c.pad = wide == 128 ? 0 : 1;
    run(c);
  }
}

// ---- plus_times, every kernel, every orientation and layout ------------------------------------------------
TEST(SpmmPlusTimes, Fp32AllKernelsOrientationsLayouts) {
  SKIP_WITHOUT_GPU();
  for (const Shape& sh : kShapes) {
    SCOPED_TRACE(sh.name);
    Pattern p = random_pattern(rng(), sh.rows, sh.cols, sh.density, sh.heavy, sh.heavy_nnz);
    auto plan = make_plan(p);
    auto check_fp32 = [&](const Case& c) { check_plus_times<float>(p, c, rng(), 1e-5, *plan); };
    for (int batch : {1, 3, 8, 13, 32, 37}) {
      for (Orientation o : {Orientation::WX, Orientation::XWt, Orientation::WtX})
        for (Layout l : {Layout::RowMajor, Layout::ColMajor})
          for (Kernel k : {Kernel::Auto, Kernel::SnackCoo, Kernel::RowSegment, Kernel::ColumnBlock,
                           Kernel::RowSegmentBatchLanes, Kernel::RowRange, Kernel::ColumnScatter}) {
            Case c;
            c.orientation = o;
            c.layout = l;
            c.batch = batch;
            c.kernel = k;
            c.pad = batch % 2;
            check_plus_times<float>(p, c, rng(), 1e-5, *plan);
            if (k == Kernel::RowSegmentBatchLanes) {
              c.batch_tile = 128;                 // the widest tile, also on small batches
              check_plus_times<float>(p, c, rng(), 1e-5, *plan);
              if (batch == 37) packed_to_wide_tile(c, check_fp32);   // constant X' stride
            }
            if (k == Kernel::RowRange) {
              c.slabs = 3;                        // pieces per row summed in slab order
              check_plus_times<float>(p, c, rng(), 1e-5, *plan);
              c.slabs = 0;
              c.batch_tile = 128;                 // one row per warp, also on small batches
              check_plus_times<float>(p, c, rng(), 1e-5, *plan);
              if (batch == 37) packed_to_wide_tile(c, check_fp32);   // constant X' stride
            }
            if (k == Kernel::ColumnBlock) {
              for (int bt : {8, 32, 128}) {       // every tile, also ones wider or narrower than the batch
                c.cb.splits = 3;                  // partial tiles over column ranges, folded in order
                c.cb.batch_tile = bt;
                c.cb.block_cols = 64;
                c.cb.rows_per_cta = 40;           // not a multiple of the 32 warps of a block
                c.cb.pairs_per_lane = 0;
                check_plus_times<float>(p, c, rng(), 1e-5, *plan);
                if (bt == 32) {                   // the wider per-lane staging, and runs longer than it
                  c.cb.pairs_per_lane = 8;
                  check_plus_times<float>(p, c, rng(), 1e-5, *plan);
                  c.cb.block_cols = 512;          // (batch 32: bulk-copied stages, two of them)
                  check_plus_times<float>(p, c, rng(), 1e-5, *plan);
                  c.cb.pairs_per_lane = 0;
                }
              }
              c.cb = ColumnBlockConfig{};         // batch tile 8, blocks as wide as shared memory allows, each
              c.cb.batch_tile = 8;                // held by its thread blocks for the call (colblock_held_kernel)
              c.cb.rows_per_cta = 40;
              check_plus_times<float>(p, c, rng(), 1e-5, *plan);
              if (batch == 37) {                  // bulk-copied stages
                packed_to_wide_tile(c, [&](Case w) {
                  w.cb.batch_tile = 128;
                  w.cb.block_cols = 64;
                  for (int splits : {1, 3}) {
                    w.cb.splits = splits;
                    check_fp32(w);
                  }
                });
              }
            }
          }
    }
  }
}

// The column-scatter kernel (W^T X read from W's rows): against the float64 reference at every batch it takes, both
// layouts, over several thread blocks' column blocks and row ranges; Auto takes it for W^T X at batch 1-4 where it
// runs, and not at batch 8, for a deterministic call, another orientation or W with more than 65536 columns.
TEST(SpmmColumnScatter, WtXFromTheRowsOfW) {
  SKIP_WITHOUT_GPU();
  for (const Shape& sh : kShapes) {
    SCOPED_TRACE(sh.name);
    Pattern p = random_pattern(rng(), sh.rows, sh.cols, sh.density, sh.heavy, sh.heavy_nnz);
    auto plan = make_plan(p, false);
    for (int batch : {1, 2, 5, 8, 17, 32})
      for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
        Case c;
        c.orientation = Orientation::WtX;
        c.layout = l;
        c.batch = batch;
        c.kernel = Kernel::ColumnScatter;
        c.pad = batch % 2;
        check_plus_times<float>(p, c, rng(), 1e-5, *plan);
      }
    SpmmArgs probe;
    probe.type = ValueType::FP32;
    probe.orientation = Orientation::WtX;
    probe.batch = 4;
    const bool fits = sh.cols <= 65536;
    EXPECT_EQ(choose(*plan, probe).kernel == Kernel::ColumnScatter, fits) << choose(*plan, probe).describe();
    probe.deterministic = true;
    EXPECT_NE(choose(*plan, probe).kernel, Kernel::ColumnScatter) << "a deterministic call";
    probe.deterministic = false;
    probe.batch = 8;
    EXPECT_NE(choose(*plan, probe).kernel, Kernel::ColumnScatter) << "batch 8";
    probe.orientation = Orientation::XWt;
    EXPECT_NE(choose(*plan, probe).kernel, Kernel::ColumnScatter) << "X W^T";
  }
}

// W's values reach W^T's order piece by piece (spmm/transpose_runs.hpp); a tile far above the expected count (a
// dense 200 x 200 corner in a sparse pattern) is cut into several pieces, and every value still lands once, for 4- and
// 8-byte values.
TEST(SpmmPlan, TransposedValuesOfACrowdedTile) {
  SKIP_WITHOUT_GPU();
  const Pattern q = with_dense_corner(random_pattern(rng(), 2000, 3000, 0.001), 200);
  auto plan = make_plan(q, false);
  for (int batch : {1, 8, 32})
    for (Kernel k : {Kernel::Auto, Kernel::RowSegment}) {
      Case c;
      c.orientation = Orientation::WtX;
      c.batch = batch;
      c.kernel = k;
      c.deterministic = true;   // not the column scatter, which reads W's own order
      check_plus_times<float>(q, c, rng(), 1e-5, *plan);
    }
  for (int batch : {1, 8}) {   // 8-byte values: the corner's full pieces take 64 KB of shared memory
    Case c;
    c.orientation = Orientation::WtX;
    c.batch = batch;
    c.deterministic = true;
    check_plus_times<double>(q, c, rng(), 1e-12, *plan);
  }
}

template <class T>
void half_types(double tol) {
  for (const Shape& sh : kShapes) {
    SCOPED_TRACE(sh.name);
    Pattern p = random_pattern(rng(), sh.rows, sh.cols, sh.density, sh.heavy, sh.heavy_nnz);
    auto plan = make_plan(p, false);
    for (int batch : {1, 5, 8, 32, 37})
      for (Orientation o : {Orientation::WX, Orientation::XWt, Orientation::WtX})
        for (Kernel k : {Kernel::Auto, Kernel::RowSegment, Kernel::ColumnBlock, Kernel::RowSegmentBatchLanes,
                         Kernel::RowRange}) {
          Case c;
          c.orientation = o;
          c.batch = batch;
          c.kernel = k;
          check_plus_times<T>(p, c, rng(), tol, *plan);
          if (k == Kernel::RowRange) {
            c.slabs = 4;
            check_plus_times<T>(p, c, rng(), tol, *plan);
          }
        }
  }
}
TEST(SpmmPlusTimes, Fp16ValuesFp32Accumulation) { SKIP_WITHOUT_GPU(); half_types<__half>(1e-2); }
TEST(SpmmPlusTimes, Bf16ValuesFp32Accumulation) { SKIP_WITHOUT_GPU(); half_types<__nv_bfloat16>(1e-2); }

// ---- determinism -----------------------------------------------------------------------------------------------
TEST(SpmmDeterminism, RowSegmentAndColumnBlockBitwiseRepeatable) {
  SKIP_WITHOUT_GPU();
  for (const Shape& sh : {kShapes[2], kShapes[3]}) {
    SCOPED_TRACE(sh.name);
    Pattern p = random_pattern(rng(), sh.rows, sh.cols, sh.density, sh.heavy, sh.heavy_nnz);
    auto plan = make_plan(p, false);
    for (int batch : {1, 8, 32, 37, 128, 130})   // 32 and 128: X' packed to the tile (bulk-copied column blocks)
      for (Kernel k : {Kernel::Auto, Kernel::RowSegment, Kernel::ColumnBlock, Kernel::RowSegmentBatchLanes,
                       Kernel::RowRange}) {
        Case c;
        c.batch = batch;
        c.kernel = k;
        c.deterministic = true;
        if (k == Kernel::RowRange) c.slabs = 5;
        expect_bitwise_repeatable(p, c, *plan);
        if (k == Kernel::ColumnBlock) {   // split column ranges: partial tiles folded in order
          c.cb.splits = 4;
          c.cb.block_cols = 64;
          expect_bitwise_repeatable(p, c, *plan);
        }
      }
  }
}

// ---- semirings ---------------------------------------------------------------------------------------------------
// The oracle computes with the operators' one definition (algebra/builtin_ops.hpp), as the kernels do: what it checks
// is the kernels' traversal, summation order, identities and operand roles. The operators' own values are checked
// against SuiteSparse by the cross-backend tests.
template <BinaryOpcode Op, class T>
T ref_apply(T a, T b) {
  if constexpr (ops::binary_defined<Op, T>()) return static_cast<T>(ops::binary_apply<Op, T>(a, b));
  ADD_FAILURE() << "no builtin " << ops::opcode_name(Op) << " on this type";
  return a;
}
template <class T>
T ref_op(BinaryOpcode op, T a, T b) {
  using B = BinaryOpcode;
  switch (op) {
    case B::First: return ref_apply<B::First>(a, b);
    case B::Second: return ref_apply<B::Second>(a, b);
    case B::Oneb: return ref_apply<B::Oneb>(a, b);
    case B::Min: return ref_apply<B::Min>(a, b);
    case B::Max: return ref_apply<B::Max>(a, b);
    case B::Plus: return ref_apply<B::Plus>(a, b);
    case B::Minus: return ref_apply<B::Minus>(a, b);
    case B::Times: return ref_apply<B::Times>(a, b);
    case B::Div: return ref_apply<B::Div>(a, b);
    case B::Eq: return ref_apply<B::Eq>(a, b);
    case B::Ne: return ref_apply<B::Ne>(a, b);
    case B::Gt: return ref_apply<B::Gt>(a, b);
    case B::Lt: return ref_apply<B::Lt>(a, b);
    case B::Ge: return ref_apply<B::Ge>(a, b);
    case B::Le: return ref_apply<B::Le>(a, b);
    case B::LOr: return ref_apply<B::LOr>(a, b);
    case B::LAnd: return ref_apply<B::LAnd>(a, b);
    case B::LXor: return ref_apply<B::LXor>(a, b);
    case B::LXnor: return ref_apply<B::LXnor>(a, b);
    default: ADD_FAILURE() << "no oracle for " << ops::opcode_name(op); return a;
  }
}
template <BinaryOpcode Op, class T>
T ref_identity_of() {
  if constexpr (ops::monoid_defined<Op, T>()) return ops::monoid_identity<Op, T>();
  ADD_FAILURE() << ops::opcode_name(Op) << " is no builtin monoid on this type";
  return T(0);
}
template <class T>
T ref_identity(BinaryOpcode op) {
  using B = BinaryOpcode;
  switch (op) {
    case B::Plus: return ref_identity_of<B::Plus, T>();
    case B::Times: return ref_identity_of<B::Times, T>();
    case B::Min: return ref_identity_of<B::Min, T>();
    case B::Max: return ref_identity_of<B::Max, T>();
    case B::LOr: return ref_identity_of<B::LOr, T>();
    case B::LAnd: return ref_identity_of<B::LAnd, T>();
    case B::LXor: return ref_identity_of<B::LXor, T>();
    case B::LXnor: return ref_identity_of<B::LXnor, T>();
    default: ADD_FAILURE() << "no monoid " << ops::opcode_name(op); return T(0);
  }
}

template <class T>
T random_value(std::mt19937& g) {
  if constexpr (std::is_same_v<T, bool>) return std::uniform_int_distribution<int>(0, 1)(g) == 1;
  else if constexpr (std::is_floating_point_v<T>) {
    const double m = std::uniform_real_distribution<double>(0.5, 1.5)(g);
    return T(std::uniform_int_distribution<int>(0, 1)(g) ? m : -m);
  } else if constexpr (std::is_signed_v<T>) return T(std::uniform_int_distribution<int>(-9, 9)(g));
  else return T(std::uniform_int_distribution<int>(0, 9)(g));
}

template <class T>
void check_semiring(const Pattern& pat, Plan& plan, SemiringId sr, Orientation o, int batch, Kernel kernel,
                    StreamWalk walk = StreamWalk::Auto) {
  SCOPED_TRACE(std::string(ops::opcode_name(sr.add)) + "_" + ops::opcode_name(sr.mul) + (sr.flip ? " flipped " : " ") +
               value_type_name(vtype<T>()) +
               " batch=" + std::to_string(batch) + (o == Orientation::XWt ? " XWt" : " WX") + " " +
               kernel_name(kernel) +
               walk_suffix(walk));
  using S = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;   // host storage (vector<bool> is packed)
  const std::int64_t nnz = pat.col.size();
  const bool xwt = o == Orientation::XWt;
  std::vector<S> w(nnz), x(std::size_t(pat.cols) * batch);
  for (auto& v : w) v = S(random_value<T>(rng()));
  for (auto& v : x) v = S(random_value<T>(rng()));
  // X is cols x batch row-major (WX) or batch x cols row-major (XWt).
  auto xat = [&](int k, int b) { return T(x[xwt ? std::size_t(b) * pat.cols + k : std::size_t(k) * batch + b]); };
  std::vector<T> ref(std::size_t(pat.rows) * batch);
  std::vector<double> refd(ref.size());
  for (int r = 0; r < pat.rows; ++r)
    for (int b = 0; b < batch; ++b) {
      T acc = ref_identity<T>(sr.add);
      for (int j = pat.row_ptr[r]; j < pat.row_ptr[r + 1]; ++j) {
        const T wv = T(w[j]), xv = xat(pat.col[j], b);
        // mul(w, x), or mul(x, w) for Y = X W^T, swapped again by flip.
        acc = ref_op<T>(sr.add, acc, xwt != sr.flip ? ref_op<T>(sr.mul, xv, wv) : ref_op<T>(sr.mul, wv, xv));
      }
      ref[std::size_t(r) * batch + b] = acc;
    }
  DeviceBuffer dw(nnz * sizeof(S) + 64), dx(x.size() * sizeof(S)), dy(ref.size() * sizeof(S));
  dw.put(w);
  dx.put(x);
  SpmmArgs a;
  a.orientation = o;
  a.semiring = sr;
  a.type = vtype<T>();
  a.values = dw.p;
  a.x = {dx.p, xwt ? pat.cols : batch, Layout::RowMajor};
  a.y = {dy.p, xwt ? pat.rows : batch, Layout::RowMajor};
  a.batch = batch;
  a.kernel = kernel;
  a.stream_walk = walk;
  std::vector<S> y1(ref.size()), y2(ref.size());
  for (int poison : {0xff, 0x5a}) {
    CUDA_OK(cudaMemset(dy.p, poison, dy.bytes));
    std::string msg;
    ASSERT_EQ(Status::Success, spmm(plan, a, &msg)) << msg;
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy((poison == 0xff ? y1 : y2).data(), dy.p, dy.bytes, cudaMemcpyDeviceToHost));
  }
  ASSERT_EQ(0, std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(S))) << "unwritten outputs";
  auto yat = [&](int r, int b) { return T(y1[xwt ? std::size_t(b) * pat.rows + r : std::size_t(r) * batch + b]); };
  if constexpr (std::is_floating_point_v<T>) {
    double num = 0, den = 0;
    for (int r = 0; r < pat.rows; ++r)
      for (int b = 0; b < batch; ++b) {
        const double got = yat(r, b), want = ref[std::size_t(r) * batch + b];
        if (std::isinf(want) || std::isinf(got)) {   // identities of min/max on empty rows
          ASSERT_EQ(want, got) << "row " << r;
          continue;
        }
        ASSERT_FALSE(std::isnan(got)) << "row " << r;
        num += (got - want) * (got - want);
        den += want * want;
      }
    if (den > 0) EXPECT_LT(std::sqrt(num / den), (std::is_same_v<T, float> ? 1e-5 : 1e-12));
    else EXPECT_EQ(0.0, num);
  } else {
    std::int64_t bad = 0;
    for (int r = 0; r < pat.rows; ++r)
      for (int b = 0; b < batch; ++b) bad += yat(r, b) != ref[std::size_t(r) * batch + b];
    EXPECT_EQ(0, bad) << "wrong outputs";
  }
}

using B = BinaryOpcode;
const SemiringId kNumericSemirings[] = {
    {B::Plus, B::Times},       {B::Plus, B::Min},          {B::Min, B::Plus},    {B::Min, B::Times},
    {B::Min, B::First},        {B::Min, B::Second},        {B::Min, B::Max},     {B::Max, B::Plus},
    {B::Max, B::Times},        {B::Max, B::First},         {B::Max, B::Second},  {B::Max, B::Min},
    {B::Plus, B::First},       {B::Plus, B::Second},       {B::Plus, B::Oneb},   {B::Min, B::Minus},
    {B::Plus, B::Div},         {B::Max, B::Div, true},     {B::Plus, B::Eq},     {B::Times, B::Plus},
    {B::Plus, B::Lt},          {B::Max, B::Minus, true},   {B::Plus, B::Gt, true},
};
const SemiringId kBoolSemirings[] = {
    {B::LOr, B::LAnd},  {B::LAnd, B::LOr},    {B::LXor, B::LAnd}, {B::LXnor, B::LOr},
    {B::LOr, B::First}, {B::LAnd, B::Second}, {B::LOr, B::Eq},    {B::LXor, B::Oneb},
    {B::LOr, B::First, true},
};

template <class T>
void numeric_semirings() {
  Pattern p = random_pattern(rng(), 70, 90, 0.15);
  Pattern heavy = random_pattern(rng(), 40, 3000, 0.002, 3, 2500);
  auto plan = make_plan(p, false);
  auto plan_heavy = make_plan(heavy, false);
  for (const SemiringId& sr : kNumericSemirings)
    for (int batch : {1, 6})
      for (Orientation o : {Orientation::WX, Orientation::XWt}) {
        check_semiring<T>(p, *plan, sr, o, batch, Kernel::RowSegment);
        if (batch == 1) check_semiring<T>(heavy, *plan_heavy, sr, o, batch, Kernel::Auto);
      }
}
TEST(SpmmSemiring, Fp32) { SKIP_WITHOUT_GPU(); numeric_semirings<float>(); }
TEST(SpmmSemiring, Fp64) { SKIP_WITHOUT_GPU(); numeric_semirings<double>(); }
TEST(SpmmSemiring, Int32) { SKIP_WITHOUT_GPU(); numeric_semirings<std::int32_t>(); }
TEST(SpmmSemiring, Int64) { SKIP_WITHOUT_GPU(); numeric_semirings<std::int64_t>(); }
TEST(SpmmSemiring, UInt32) { SKIP_WITHOUT_GPU(); numeric_semirings<std::uint32_t>(); }
TEST(SpmmSemiring, UInt64) { SKIP_WITHOUT_GPU(); numeric_semirings<std::uint64_t>(); }
TEST(SpmmSemiring, Bool) {
  SKIP_WITHOUT_GPU();
  Pattern p = random_pattern(rng(), 70, 90, 0.15);
  auto plan = make_plan(p, false);
  for (const SemiringId& sr : kBoolSemirings)
    for (int batch : {1, 6})
      for (Orientation o : {Orientation::WX, Orientation::XWt}) check_semiring<bool>(p, *plan, sr, o, batch, Kernel::Auto);
}

// ---- the stream kernels' warp ranges (many items per range, split rows inside ranges) -----------------------
TEST(SpmmRowSegment, StreamKernelsOverManyWarpRanges) {
  SKIP_WITHOUT_GPU();
  const Shape shapes[] = {
      {"many_rows", 20000, 600, 0.08},                       // ~5 items per warp range
      {"many_rows_heavy", 9000, 40000, 0.001, 4321, 39000},  // one row cut into ~39 segments inside ranges
      {"many_rows_wide", 6000, 70000, 0.0006},               // column windows (per-item column base)
  };
  for (const Shape& sh : shapes) {
    SCOPED_TRACE(sh.name);
    Pattern p = random_pattern(rng(), sh.rows, sh.cols, sh.density, sh.heavy, sh.heavy_nnz);
    auto plan = make_plan(p, false);
    for (int batch : {1, 8, 37})   // batch 1: rowseg_stream_kernel; 8 and 37 (two tiles of 32): rowseg_batch_kernel
      for (Orientation o : {Orientation::WX, Orientation::XWt, Orientation::WtX})
        for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
          Case c;
          c.orientation = o;
          c.layout = l;
          c.batch = batch;
          c.pad = batch == 8 ? 0 : 3;   // batch 8 unpadded row-major: the 16-byte stores of the batch-lane kernel
          c.kernel = batch == 1 ? Kernel::Auto : Kernel::RowSegmentBatchLanes;
          if (batch == 1 && o != Orientation::WtX) {
            SpmmArgs probe;
            probe.orientation = o;
            EXPECT_EQ("row_segment(bt=1,g=32,stream)", choose(*plan, probe).describe());
          }
          check_plus_times<float>(p, c, rng(), 1e-5, *plan);
          check_plus_times<__half>(p, c, rng(), 1e-2, *plan);
          c.deterministic = true;
          expect_bitwise_repeatable(p, c, *plan);
        }
    for (const SemiringId sr : {SemiringId{B::Plus, B::Times}, SemiringId{B::Min, B::Plus}})
      for (Orientation o : {Orientation::WX, Orientation::XWt}) {
        check_semiring<double>(p, *plan, sr, o, 1, Kernel::Auto);
        check_semiring<std::int64_t>(p, *plan, sr, o, 1, Kernel::Auto);
      }
  }
}

// ---- batch 1: the window walk of the warp ranges against the item walk ------------------------------------
// Windows of 256 non-zeros run across item boundaries: items ending inside a window (several when rows are
// short, more than 32 per range so the lanes reload the descriptors), empty rows, pieces of split rows, a
// range's first and last windows partly outside it, and the last chunk of the matrix read element by element
// (nnz made not a multiple of 4). Both walks against the float64 reference; each bitwise repeatable.
TEST(SpmmRowSegment, WindowWalkAcrossItems) {
  SKIP_WITHOUT_GPU();
  const Shape shapes[] = {
      kShapes[0],                                             // nnz = 0
      {"small", 64, 80, 0.2},
      {"long_rows", 9000, 3000, 0.2},                         // ~600 per row: Auto takes windows
      {"short_rows", 200000, 256, 0.14},                      // ~36 per row, ~47 items per range
      {"tiny_rows", 300000, 64, 0.05},                        // ~3 per row, empty rows (32 lanes: semirings)
      {"many_rows_heavy", 9000, 40000, 0.001, 4321, 39000},  // one row cut into ~39 pieces inside ranges
      {"many_rows_wide", 6000, 70000, 0.0006},               // > 65536 columns: windows fall back to items
  };
  for (const Shape& sh : shapes) {
    SCOPED_TRACE(sh.name);
    Pattern p = random_pattern(rng(), sh.rows, sh.cols, sh.density, sh.heavy, sh.heavy_nnz);
    if (p.col.size() % 4 == 0 && !p.col.empty()) {   // leave a partial last chunk: drop the last non-zero
      p.col.pop_back();
      p.row_ptr.back() -= 1;
      for (int r = p.rows - 1; r >= 0 && p.row_ptr[r] > static_cast<int>(p.col.size()); --r) p.row_ptr[r] -= 1;
    }
    auto plan = make_plan(p, false);
    const bool wide = sh.cols > 65536;
    for (StreamWalk walk : {StreamWalk::Items, StreamWalk::Windows}) {
      for (Orientation o : {Orientation::WX, Orientation::XWt}) {
        SpmmArgs probe;
        probe.orientation = o;
        probe.stream_walk = walk;
        if (p.rows > 0 && double(p.col.size()) / p.rows >= 32)
          EXPECT_EQ(walk == StreamWalk::Windows && !wide ? "row_segment(bt=1,g=32,stream,windows)"
                                                         : "row_segment(bt=1,g=32,stream)",
                    choose(*plan, probe).describe());
        Case c;
        c.orientation = o;
        c.kernel = Kernel::RowSegment;
        c.walk = walk;
        c.pad = 3;
        check_plus_times<float>(p, c, rng(), 1e-5, *plan);
        check_plus_times<__half>(p, c, rng(), 1e-2, *plan);
        check_plus_times<__nv_bfloat16>(p, c, rng(), 1e-2, *plan);
        c.deterministic = true;
        expect_bitwise_repeatable(p, c, *plan);
        for (const SemiringId sr : {SemiringId{B::Plus, B::Times}, SemiringId{B::Min, B::Plus}}) {
          check_semiring<double>(p, *plan, sr, o, 1, Kernel::RowSegment, walk);
          check_semiring<std::int64_t>(p, *plan, sr, o, 1, Kernel::RowSegment, walk);
        }
        check_semiring<bool>(p, *plan, {B::LOr, B::LAnd}, o, 1, Kernel::RowSegment, walk);
      }
    }
    if (p.rows > 0 && double(p.col.size()) / p.rows >= 512 && !wide) {   // the dispatcher's rule
      SpmmArgs probe;
      EXPECT_EQ("row_segment(bt=1,g=32,stream,windows)", choose(*plan, probe).describe());
    }
  }
}

// ---- the row-range kernel: ranges past the resident warps, slabs, packed and strided X', fallbacks -----------
TEST(SpmmRowRange, SlabsRangesAndFallbacks) {
  SKIP_WITHOUT_GPU();
  const Shape shapes[] = {
      kShapes[0],                                             // nnz = 0
      {"many_rows", 45000, 3000, 0.01},                       // more ranges (8 rows each) than resident warps
      {"uneven", 1003, 4500, 0.03},                           // ranges of 0 or 1 rows, a last partial slab
      {"skewed", 700, 3000, 0.01, 350, 2900},                 // falls back to the batch-lane kernel
      kShapes[4],                                             // > 65536 columns: falls back too
  };
  for (const Shape& sh : shapes) {
    SCOPED_TRACE(sh.name);
    Pattern p = random_pattern(rng(), sh.rows, sh.cols, sh.density, sh.heavy, sh.heavy_nnz);
    auto plan = make_plan(p, false);
    const bool fits = sh.heavy < 0 && sh.cols <= 65536;
    for (int batch : {5, 8, 12, 29, 32, 37}) {
      SpmmArgs probe;
      probe.batch = batch;
      probe.kernel = Kernel::RowRange;
      EXPECT_EQ(fits ? Kernel::RowRange : Kernel::RowSegmentBatchLanes, choose(*plan, probe).kernel);
      for (int slabs : {0, 1, 2, 7, 1000}) {   // 1000: more than the plan's column boundaries (clamped)
        for (Orientation o : {Orientation::WX, Orientation::XWt})
          for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
            // Unpadded: packed X' and 16-byte stores where the batch allows.
            Case c = oriented(o, l, batch, slabs % 3 == 0 ? 0 : 3, Kernel::RowRange);
            c.slabs = slabs;
            check_plus_times<float>(p, c, rng(), 1e-5, *plan);
          }
        Case h;
        h.batch = batch;
        h.kernel = Kernel::RowRange;
        h.slabs = slabs;
        check_plus_times<__nv_bfloat16>(p, h, rng(), 1e-2, *plan);
      }
      Case d;   // bitwise repeatable with slabs, and with plain rows (one row per 8 lanes on many rows)
      d.batch = batch;
      d.kernel = Kernel::RowRange;
      d.slabs = 4;
      expect_bitwise_repeatable(p, d, *plan);
      d.slabs = 1;
      expect_bitwise_repeatable(p, d, *plan);
    }
    for (int batch : {100, 130}) {   // batch tile 128: one tile with idle lanes, two tiles
      for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
        Case c;
        c.layout = l;
        c.batch = batch;
        c.pad = l == Layout::RowMajor ? 0 : 3;
        c.kernel = Kernel::RowRange;
        check_plus_times<float>(p, c, rng(), 1e-5, *plan);
      }
      Case h;
      h.batch = batch;
      h.kernel = Kernel::RowRange;
      check_plus_times<__half>(p, h, rng(), 1e-2, *plan);
    }
  }
  // Auto takes it on a uniform pattern at batch 8 (with slabs: 16384 columns, ~819 non-zeros per row); at
  // batch 24 the column-block kernel takes rows of >= 300 non-zeros, the row-range kernel sparser ones.
  Pattern p = random_pattern(rng(), 2000, 16384, 0.05);
  auto plan = make_plan(p, false);
  SpmmArgs a;
  a.batch = 8;
  EXPECT_EQ("row_range(bt=8,slabs=4)", choose(*plan, a).describe());
  a.batch = 24;
  EXPECT_EQ(Kernel::ColumnBlock, choose(*plan, a).kernel);
  Pattern q = random_pattern(rng(), 2000, 16384, 0.01);   // ~164 per row
  auto plan_q = make_plan(q, false);
  EXPECT_EQ("row_range(bt=32,slabs=1)", choose(*plan_q, a).describe());
  // Batch tile 32 with plain rows on a plan of many rows (>= 96 per SM): one row per 8-lane group.
  Pattern m = random_pattern(rng(), 16000, 2000, 0.02);
  auto plan_m = make_plan(m, false);
  EXPECT_EQ("row_range(bt=32,slabs=1,one_row)", choose(*plan_m, a).describe());
  // Batch > 32: one row per warp at batch tile 128 on rows of < 300 non-zeros, the column-block kernel above.
  a.batch = 128;
  EXPECT_EQ(Kernel::ColumnBlock, choose(*plan, a).kernel);
  EXPECT_EQ("row_range(bt=128,slabs=1,one_row)", choose(*plan_q, a).describe());
  a.slabs = 4;   // no slabs at batch tile 128
  EXPECT_EQ("row_range(bt=128,slabs=1,one_row)", choose(*plan_q, a).describe());
}

// ---- Auto at batch 33-64: passes of 32 batch columns where the whole call would run at batch tile 128 --------------
TEST(SpmmBatchPasses, AutoSplitsBatch33To64) {
  SKIP_WITHOUT_GPU();
  // Two plans of >= 2^19 non-zeros: rows of ~330 (the column-block kernel) and of ~30 (the row-range kernel).
  struct Plans { const char* name; int rows, cols; double density; const char* tile32; };
  const Plans plans[] = {{"column_block", 2000, 16384, 0.02, "column_block"}, {"row_range", 20000, 3000, 0.01, "row_range"}};
  for (const Plans& pl : plans) {
    SCOPED_TRACE(pl.name);
    Pattern p = random_pattern(rng(), pl.rows, pl.cols, pl.density);
    ASSERT_GE(p.col.size(), std::size_t(1) << 19);
    auto plan = make_plan(p, false);
    SpmmArgs a;
    for (int batch : {33, 40, 64}) {
      a.batch = batch;
      const Choice ch = choose(*plan, a);
      EXPECT_EQ(2, ch.batch_passes) << batch;
      EXPECT_EQ(32, ch.batch_tile) << batch;
      EXPECT_EQ(0u, ch.describe().find(pl.tile32)) << ch.describe();
      EXPECT_NE(std::string::npos, ch.describe().find(" x2 passes")) << ch.describe();
    }
    // Whole calls: batch 32 and 65, a kernel or a batch tile asked for, fp16, W^T X.
    for (int batch : {32, 65, 128}) {
      a.batch = batch;
      EXPECT_EQ(1, choose(*plan, a).batch_passes) << batch;
    }
    a.batch = 48;
    const std::function<void(SpmmArgs&)> whole_calls[] = {
        [](SpmmArgs& x) { x.kernel = Kernel::RowSegmentBatchLanes; },
        [](SpmmArgs& x) { x.batch_tile = 128; },
        [](SpmmArgs& x) { x.column_block.batch_tile = 128; },
        [](SpmmArgs& x) { x.type = ValueType::FP16; },
        [](SpmmArgs& x) { x.orientation = Orientation::WtX; },
    };
    for (std::size_t i = 0; i < std::size(whole_calls); ++i) {
      SpmmArgs asked = a;
      whole_calls[i](asked);
      EXPECT_EQ(1, choose(*plan, asked).batch_passes) << "case " << i;
    }
    // Against the float64 reference: both orientations and layouts, padded and not, a last pass of 1 to 32
    // columns; with values bound (the passes read the bound values where their kernels have an order).
    for (int batch : {33, 47, 64})
      for (Orientation o : {Orientation::WX, Orientation::XWt})
        for (Layout l : {Layout::RowMajor, Layout::ColMajor})
          check_plus_times<float>(p, oriented(o, l, batch, batch == 47 ? 0 : 5), rng(), 1e-5, *plan);
    Case b;
    b.batch = 40;
    b.bind = true;
    check_plus_times<float>(p, b, rng(), 1e-5, *plan);
    Case t;   // W^T X runs whole
    t.orientation = Orientation::WtX;
    t.batch = 48;
    check_plus_times<float>(p, t, rng(), 1e-5, *plan);
  }
  // Fewer than 2^19 non-zeros (launch-bound): whole.
  Pattern small = random_pattern(rng(), 1000, 3000, 0.02);
  auto plan_s = make_plan(small, false);
  SpmmArgs a;
  a.batch = 48;
  EXPECT_EQ(1, choose(*plan_s, a).batch_passes);
  EXPECT_EQ(128, choose(*plan_s, a).batch_tile);
}

// ---- the wide column-block kernel on enough rows to fill the GPU: rows spread evenly over the SMs ----------------
TEST(SpmmColumnBlock, RowsSpreadOverTheSms) {
  SKIP_WITHOUT_GPU();
  int dev = 0, sms = 0;
  ASSERT_EQ(cudaSuccess, cudaGetDevice(&dev));
  ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  // ~307 non-zeros per row: Auto takes column_block at batch 128. Blocks of 128 rows would leave SMs idle
  // (or run a second, short wave), so the rows go evenly over whole waves of blocks.
  const int rows = 64 * sms + 7;   // 128-row blocks: just over half of the SMs
  Pattern p = random_pattern(rng(), rows, 1024, 0.3);
  auto plan = make_plan(p, false);
  SpmmArgs a;
  a.batch = 128;
  const Choice ch = choose(*plan, a);
  ASSERT_EQ(Kernel::ColumnBlock, ch.kernel) << ch.describe();
  const int ranges128 = (rows + 127) / 128, waves = (ranges128 + sms - 1) / sms;
  EXPECT_EQ((rows + waves * sms - 1) / (waves * sms), ch.column_block.rows_per_cta) << ch.describe();
  EXPECT_LT(ch.column_block.rows_per_cta, 128) << ch.describe();
  for (int batch : {128, 100, 32}) {   // one batch tile, and the tile of 32 (X' packed to it: bulk copies)
    Case c;
    c.batch = batch;
    check_plus_times<float>(p, c, rng(), 1e-5, *plan);
    c.kernel = Kernel::ColumnBlock;
    c.cb.rows_per_cta = 125;           // explicit: warps of three and of four rows in one block
    check_plus_times<float>(p, c, rng(), 1e-5, *plan);
  }
  // Fewer rows: the column blocks are split across blocks, and the rows spread over as many ranges as the
  // splits fill one wave with (132 SMs: 33 ranges of 125 rows x 4 splits, not 32 of 128 x 4).
  Pattern f = random_pattern(rng(), 4096, 1024, 0.3);
  auto plan_f = make_plan(f, false);
  const Choice cf = choose(*plan_f, a);
  ASSERT_EQ(Kernel::ColumnBlock, cf.kernel) << cf.describe();
  const int ranges_f = (4096 + cf.column_block.rows_per_cta - 1) / cf.column_block.rows_per_cta;
  EXPECT_LE(ranges_f * cf.column_block.splits, sms) << cf.describe();   // one wave
  if (sms == 132) {
    EXPECT_EQ(125, cf.column_block.rows_per_cta) << cf.describe();
    EXPECT_EQ(4, cf.column_block.splits) << cf.describe();
  }
  for (int batch : {128, 32}) {
    Case c;
    c.batch = batch;
    check_plus_times<float>(f, c, rng(), 1e-5, *plan_f);
  }
}

// The wide kernel's rows in the plan's balanced order (RowOrder::Balanced, row_balance.hpp) and in plain order:
// each against the float64 reference and both bitwise equal (a row's sum runs in column order whichever warp
// holds it); batch tiles 32 and 128 with full and short batches, all orientations, split column ranges, rows
// that leave the last thread block short, one row 50x as long as the others, fp16; Auto balances at batch tiles
// 32 and 128 without split ranges, and batch tile 8 always runs plain.
TEST(SpmmColumnBlock, BalancedRowOrder) {
  SKIP_WITHOUT_GPU();
  struct Layout3 {
    int rows, cols;
    double density;
    int heavy, heavy_nnz, rows_per_cta, splits;
  };
  const Layout3 layouts[] = {{3000, 2000, 0.05, -1, 0, 0, 0}, {1000, 4096, 0.02, 17, 4000, 100, 3},
                             {260, 700, 0.1, -1, 0, 0, 2}};
  for (const Layout3& l : layouts) {
    const Pattern p = random_pattern(rng(), l.rows, l.cols, l.density, l.heavy, l.heavy_nnz);
    auto plan = make_plan(p, false);
    for (Orientation o : {Orientation::WX, Orientation::XWt, Orientation::WtX})
      for (int bt : {32, 128})
        for (int batch : {bt - 11, bt}) {
          Case c;
          c.orientation = o;
          c.batch = batch;
          c.kernel = Kernel::ColumnBlock;
          c.cb.batch_tile = bt;
          c.cb.rows_per_cta = l.rows_per_cta;
          c.cb.splits = l.splits;
          c.cb.row_order = RowOrder::Plain;
          Case b = c;
          b.cb.row_order = RowOrder::Balanced;
          expect_same_bits(p, c, b, *plan);
        }
    Case h;
    h.batch = 128;
    h.kernel = Kernel::ColumnBlock;
    h.cb.row_order = RowOrder::Balanced;
    check_plus_times<__half>(p, h, rng(), 1e-2, *plan);
  }
  Pattern p = random_pattern(rng(), 2000, 1024, 0.3);   // ~307 per row
  auto plan = make_plan(p, false);
  SpmmArgs a;
  a.kernel = Kernel::ColumnBlock;
  for (int splits : {1, 2})
    for (int batch : {8, 32, 128}) {
      a.batch = batch;
      a.column_block.splits = splits;
      const Choice ch = choose(*plan, a);
      const bool balanced = batch > 8 && splits == 1;
      EXPECT_EQ(balanced ? RowOrder::Balanced : RowOrder::Plain, ch.column_block.row_order) << ch.describe();
      EXPECT_EQ(balanced, ch.describe().find(",balanced") != std::string::npos) << ch.describe();
      a.column_block.row_order = RowOrder::Balanced;   // asked for: batch tiles 32 and 128 only
      EXPECT_EQ(batch > 8 ? RowOrder::Balanced : RowOrder::Plain, choose(*plan, a).column_block.row_order);
      a.column_block.row_order = RowOrder::Auto;
    }
}

// ---- the batch-tile-8 column-block kernel with its blocks held for the whole call ------------------------------
TEST(SpmmColumnBlock, ResidentBlocksAtBatchTile8) {
  SKIP_WITHOUT_GPU();
  // 20000 fp32 columns: 625 KB of X' per batch tile, so four column blocks of 5056 (a multiple of the plan's
  // 64-column granularity), one per thread block, their partial tiles folded in order.
  Pattern p = random_pattern(rng(), 1500, 20000, 0.03);
  auto plan = make_plan(p, false);
  SpmmArgs a;
  a.batch = 8;
  a.kernel = Kernel::ColumnBlock;
  const Choice ch = choose(*plan, a);
  ASSERT_EQ(8, ch.column_block.batch_tile) << ch.describe();
  EXPECT_EQ(5056, ch.column_block.block_cols) << ch.describe();
  EXPECT_EQ(4, ch.column_block.splits) << ch.describe();
  for (int batch : {1, 5, 8, 13}) {   // 13: two batch tiles of 8, the second one part full
    for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
      Case c = column_block8(batch);
      c.layout = l;
      c.pad = 1;
      check_plus_times<float>(p, c, rng(), 1e-5, *plan);
      c.cb.rows_per_cta = 37;        // many row ranges, rows not a multiple of the warps
      check_plus_times<float>(p, c, rng(), 1e-5, *plan);
    }
    check_plus_times<__half>(p, column_block8(batch), rng(), 1e-2, *plan);   // fp16: two blocks of 10048
    Case d = column_block8(batch);
    d.deterministic = true;
    expect_bitwise_repeatable(p, d, *plan);
  }
  // A single block (4096 columns, 128 KB) with all rows in one range; and the transposed orientations.
  Pattern q = random_pattern(rng(), 700, 4096, 0.05);
  auto plan_q = make_plan(q);
  for (Orientation o : {Orientation::WX, Orientation::XWt, Orientation::WtX}) {
    Case c = column_block8(8);
    c.orientation = o;
    c.cb.rows_per_cta = 5000;        // more than the rows: one thread block (the held kernel keeps no row sums)
    check_plus_times<float>(q, c, rng(), 1e-5, *plan_q);
  }
  // Auto takes it at batch 2-8 where each thread block streams at least twice the bytes of W that it stages of
  // X' (16384 columns, ~1638 non-zeros per row, 8192 rows), not on the sparser 2000-row plan of SpmmRowRange; at
  // batch 1 the stream kernel.
  Pattern m = random_pattern(rng(), 8192, 16384, 0.1);
  auto plan_m = make_plan(m, false);
  SpmmArgs am;
  for (int batch : {8, 5, 3, 2}) {
    am.batch = batch;
    EXPECT_EQ(Kernel::ColumnBlock, choose(*plan_m, am).kernel) << choose(*plan_m, am).describe();
    EXPECT_EQ(8, choose(*plan_m, am).column_block.batch_tile);
  }
  am.batch = 1;
  EXPECT_EQ(Kernel::RowSegment, choose(*plan_m, am).kernel) << choose(*plan_m, am).describe();
  for (int batch : {3, 2}) {
    Case c2;
    c2.batch = batch;
    check_plus_times<float>(m, c2, rng(), 1e-5, *plan_m);
  }
  Case c;
  c.batch = 8;
  check_plus_times<float>(m, c, rng(), 1e-5, *plan_m);
  am.batch = 5;
  // One block holding all 4096 columns: Auto takes it where rows average >= 128 non-zeros (5%: ~205), not at
  // 1% (~41: row_range).
  Pattern f = random_pattern(rng(), 4096, 4096, 0.05);
  auto plan_f = make_plan(f, false);
  const Choice cf = choose(*plan_f, am);
  EXPECT_EQ(Kernel::ColumnBlock, cf.kernel) << cf.describe();
  EXPECT_EQ(1, cf.column_block.splits) << cf.describe();
  check_plus_times<float>(f, c, rng(), 1e-5, *plan_f);
  Pattern g = random_pattern(rng(), 4096, 4096, 0.01);
  auto plan_g = make_plan(g, false);
  EXPECT_EQ(Kernel::RowRange, choose(*plan_g, am).kernel) << choose(*plan_g, am).describe();
}

// ---- values bound to the plan: the batch-8 column-block kernel in the bank-aware order -----------------------------
TEST(SpmmColumnBlock, BoundValuesInBankOrder) {
  SKIP_WITHOUT_GPU();
  // Four fp32 blocks of 5056 columns (two of 10048 for fp16 / bf16), as in ResidentBlocksAtBatchTile8.
  Pattern p = random_pattern(rng(), 1500, 20000, 0.03);
  auto plan = make_plan(p, false);
  EXPECT_FALSE(plan->has_bound_values());
  SpmmArgs probe;
  probe.batch = 8;
  probe.kernel = Kernel::ColumnBlock;
  probe.values_bound = true;
  EXPECT_FALSE(choose(*plan, probe).bound_order) << "nothing bound yet";
  for (int batch : {5, 8, 13}) {   // 13: two batch tiles, the second part full
    for (Orientation o : {Orientation::WX, Orientation::XWt, Orientation::WtX}) {
      Case c = column_block8(batch, true);   // each case binds its own fresh values: a re-bind refreshes them
      c.orientation = o;
      check_plus_times<float>(p, c, rng(), 1e-5, *plan);
      probe.orientation = o;
      probe.type = ValueType::FP32;
      // W^T X gathers its values per call (the order is W's): no bound order there.
      EXPECT_EQ(o != Orientation::WtX, choose(*plan, probe).bound_order) << choose(*plan, probe).describe();
      c.layout = Layout::ColMajor;
      c.pad = 3;
      check_plus_times<float>(p, c, rng(), 1e-5, *plan);
    }
    const Case h = column_block8(batch, true);   // 16-byte X' rows: another block width and residue count
    check_plus_times<__half>(p, h, rng(), 1e-2, *plan);
    check_plus_times<__nv_bfloat16>(p, h, rng(), 1e-2, *plan);
    probe.orientation = Orientation::WX;
    probe.type = ValueType::BF16;
    EXPECT_TRUE(choose(*plan, probe).bound_order) << choose(*plan, probe).describe();
    expect_bitwise_repeatable(p, column_block8(batch, true), *plan);
  }
  // A block width other than the one the order was built for (explicit, two blocks per thread block): the values
  // given per call are read in CSR order, still correct.
  {
    Case c = column_block8(8, true);
    c.cb = ColumnBlockConfig{8, 2048, 256, 0, 0};
    check_plus_times<float>(p, c, rng(), 1e-5, *plan);
    probe.type = ValueType::FP32;
    probe.column_block = c.cb;
    EXPECT_FALSE(choose(*plan, probe).bound_order) << choose(*plan, probe).describe();
    probe.column_block = {};
  }
  // Auto at 16384 columns, 10%, batch 8, 8192 rows (where the dispatcher takes the held kernel) reads the order.
  Pattern m = random_pattern(rng(), 8192, 16384, 0.1);
  auto plan_m = make_plan(m, false);
  Case c;
  c.batch = 8;
  c.bind = true;
  check_plus_times<float>(m, c, rng(), 1e-5, *plan_m);
  SpmmArgs am;
  am.batch = 8;
  am.values_bound = true;
  const Choice cm = choose(*plan_m, am);
  EXPECT_EQ(Kernel::ColumnBlock, cm.kernel) << cm.describe();
  EXPECT_TRUE(cm.bound_order) << cm.describe();
}

// ---- values bound to the plan: the lanes-across-rows kernel in its interleaved row-group order --------------------
// RowLanes (csr_rowlanes.cuh) with fp32 values bound at batch 2-128 (batch tiles 8, 16 and 32, the tile-8 and tile-16
// orders in their residue orders; batches past 32 in several tiles, not a multiple of the tile among them): one column
// block held per thread block (several blocks: partial tiles folded in block order; one block: Y written directly),
// rows in length-sorted groups of 32 (row counts that leave a group short, fewer rows than one group, empty rows, one
// row far longer than the others), batches short of the 32-value tile, both orientations it serves and both layouts
// with padded leading dimensions; each against the float64 reference and bitwise repeatable. These plans are too small
// for Auto to take it (it runs where asked for); on a plan where it pays, Auto takes it. Where it cannot run (W^T X,
// batch 1 or 129, fp16, more than 65536 columns, no values bound) the call runs as Auto would, still correct. The
// RowLanes tests' shapes: several column blocks and one, a heavy row (with a few empty rows), fewer rows than a group,
// and more than 65536 columns (where the kernel cannot run).
struct LanesShape {
  const char* name;
  int rows, cols;
  double density;
  int heavy, heavy_nnz;
  bool fits;   // at most 65536 columns
};
constexpr LanesShape kLanesShapes[] = {
    {"blocks", 1500, 20000, 0.03, -1, 0, true},   // 15 blocks: 10 of 1336 columns, 5 of 1328
    {"one_block", 300, 1000, 0.1, -1, 0, true},
    {"heavy_row", 700, 3000, 0.02, 5, 2500, true},
    {"few_rows", 20, 500, 0.2, -1, 0, true},
    {"wide", 64, 70000, 0.002, -1, 0, false},
};

// A fresh random pattern of shape sh (heavy_row: rows 1-3 emptied as well).
Pattern lanes_pattern(const LanesShape& sh) {
  Pattern p = random_pattern(rng(), sh.rows, sh.cols, sh.density, sh.heavy, sh.heavy_nnz);
  if (std::string(sh.name) == "heavy_row")
    for (int r : {1, 2, 3}) {
      const int n = p.row_ptr[r + 1] - p.row_ptr[r];
      p.col.erase(p.col.begin() + p.row_ptr[r], p.col.begin() + p.row_ptr[r + 1]);
      for (int i = r + 1; i <= p.rows; ++i) p.row_ptr[i] -= n;
    }
  return p;
}

TEST(SpmmRowLanes, BoundValuesAgainstReference) {
  SKIP_WITHOUT_GPU();
  for (const LanesShape& sh : kLanesShapes) {
    SCOPED_TRACE(sh.name);
    const Pattern p = lanes_pattern(sh);
    auto plan = make_plan(p, false);
    SpmmArgs probe;
    probe.values_bound = true;
    probe.kernel = Kernel::RowLanes;
    for (int batch : {2, 3, 4, 5, 8, 9, 12, 16, 17, 20, 24, 25, 31, 32, 33, 48, 64, 100, 128}) {
      for (Orientation o : {Orientation::WX, Orientation::XWt}) {
        Case c;
        c.batch = batch;
        c.orientation = o;
        c.kernel = Kernel::RowLanes;
        c.bind = true;   // fresh values each case: every bind refreshes the copy
        check_plus_times<float>(p, c, rng(), 1e-5, *plan);
        probe.batch = batch;
        probe.orientation = o;
        probe.kernel = Kernel::RowLanes;
        const Choice ch = choose(*plan, probe);
        if (sh.fits) {
          EXPECT_EQ(Kernel::RowLanes, ch.kernel) << ch.describe();
          EXPECT_EQ(rule_lanes_tile(batch), ch.batch_tile) << ch.describe();
          EXPECT_TRUE(ch.bound_order) << ch.describe();
        } else {
          EXPECT_NE(Kernel::RowLanes, ch.kernel) << ch.describe();
        }
        probe.kernel = Kernel::Auto;   // too few rows per thread block for Auto
        EXPECT_NE(Kernel::RowLanes, choose(*plan, probe).kernel) << choose(*plan, probe).describe();
        c.layout = Layout::ColMajor;
        c.pad = 3;
        check_plus_times<float>(p, c, rng(), 1e-5, *plan);
      }
      Case d;
      d.batch = batch;
      d.kernel = Kernel::RowLanes;
      d.bind = true;
      d.deterministic = true;
      expect_bitwise_repeatable(p, d, *plan);
      // Several column blocks: a deterministic call folds their partial tiles in block order; one that allows
      // otherwise (the cases above) adds the blocks' sums into Y with atomics, 16-byte ones where Y's rows hold
      // aligned groups of four, else one per value (column-major, padded, batch not a multiple of 4).
      probe.orientation = Orientation::WX;
      probe.kernel = Kernel::RowLanes;
      if (sh.fits) {
        const Choice any_order = choose(*plan, probe);
        EXPECT_EQ(any_order.lanes_blocks > 1, any_order.atomic_sums) << any_order.describe();
        probe.deterministic = true;
        EXPECT_FALSE(choose(*plan, probe).atomic_sums) << choose(*plan, probe).describe();
        probe.deterministic = false;
      }
    }
    if (sh.fits)   // a batch tile asked for (SpmmArgs::batch_tile): any of the four at any batch, a tile per grid z
      for (int bt : {8, 16, 24, 32})
        for (int batch : {3, 12, 20, 40}) {
          Case c = row_lanes_bound(batch);
          c.batch_tile = bt;
          check_plus_times<float>(p, c, rng(), 1e-5, *plan);
          SpmmArgs asked = row_lanes_call(batch);
          asked.batch_tile = bt;
          EXPECT_EQ(bt, choose(*plan, asked).batch_tile) << choose(*plan, asked).describe();
        }
    probe.kernel = Kernel::RowLanes;
    for (int batch : {1, 129}) {   // not served; still correct
      Case c;
      c.batch = batch;
      c.kernel = Kernel::RowLanes;
      c.bind = true;
      check_plus_times<float>(p, c, rng(), 1e-5, *plan);
      probe.batch = batch;
      probe.orientation = Orientation::WX;
      EXPECT_NE(Kernel::RowLanes, choose(*plan, probe).kernel) << choose(*plan, probe).describe();
    }
    {
      Case c;   // W^T X gathers its values per call: not served
      c.batch = 20;
      c.orientation = Orientation::WtX;
      c.kernel = Kernel::RowLanes;
      c.bind = true;
      check_plus_times<float>(p, c, rng(), 1e-5, *plan);
      probe.batch = 20;
      probe.orientation = Orientation::WtX;
      EXPECT_NE(Kernel::RowLanes, choose(*plan, probe).kernel) << choose(*plan, probe).describe();
      Case e;   // no values bound: runs as Auto
      e.batch = 20;
      e.kernel = Kernel::RowLanes;
      check_plus_times<float>(p, e, rng(), 1e-5, *plan);
      SpmmArgs unbound;
      unbound.batch = 20;
      unbound.kernel = Kernel::RowLanes;
      EXPECT_NE(Kernel::RowLanes, choose(*plan, unbound).kernel) << choose(*plan, unbound).describe();
    }
    if (sh.fits) {   // bound as fp16: the kernel serves fp16 calls, not fp32 ones; bound as fp32 again, fp32 again
      Case h;
      h.batch = 24;
      h.kernel = Kernel::RowLanes;
      h.bind = true;
      check_plus_times<__half>(p, h, rng(), 1e-2, *plan);
      probe.batch = 24;
      probe.orientation = Orientation::WX;
      probe.type = ValueType::FP16;
      EXPECT_EQ(Kernel::RowLanes, choose(*plan, probe).kernel) << choose(*plan, probe).describe();
      probe.type = ValueType::FP32;
      EXPECT_FALSE(choose(*plan, probe).kernel == Kernel::RowLanes) << "fp16 values are bound";
      Case f = h;
      check_plus_times<float>(p, f, rng(), 1e-5, *plan);
      EXPECT_EQ(Kernel::RowLanes, choose(*plan, probe).kernel) << choose(*plan, probe).describe();
    }
  }
  // Tiles 8 and 16 with atomic sums cut each group's walk into work items (runs of its chunk steps): by default two
  // where rows' segments in a block average >= kRowLanesRunSegment non-zeros (here about 150 in each of 3 blocks), else
  // one; asked for, any number up to 16 (more than a group's chunk steps leaves items empty). Each against the
  // reference; a deterministic call folds (one run).
  {
    Pattern q = random_pattern(rng(), 600, 3000, 0.15);
    auto plan_q = make_plan(q, false);
    SpmmArgs aq;
    aq.batch = 8;
    aq.values_bound = true;
    aq.kernel = Kernel::RowLanes;
    check_plus_times<float>(q, row_lanes_bound(8), rng(), 1e-5, *plan_q);   // binds (the choice reads the type)
    const Choice cq = choose(*plan_q, aq);
    EXPECT_EQ(Kernel::RowLanes, cq.kernel) << cq.describe();
    EXPECT_TRUE(cq.atomic_sums) << cq.describe();
    EXPECT_EQ(2, cq.lanes_runs) << cq.describe();
    EXPECT_NE(std::string::npos, cq.describe().find(",runs=2")) << cq.describe();
    aq.deterministic = true;
    EXPECT_EQ(1, choose(*plan_q, aq).lanes_runs) << choose(*plan_q, aq).describe();
    aq.deterministic = false;
    aq.batch = 32;
    EXPECT_EQ(1, choose(*plan_q, aq).lanes_runs) << "tile 32 walks whole groups";
    aq.batch = 16;
    EXPECT_EQ(2, choose(*plan_q, aq).lanes_runs) << choose(*plan_q, aq).describe();
    for (int runs : {0, 1, 2, 3, 16})
      for (int batch : {8, 6, 16, 10}) {   // batches 6 and 10 asked for: one-value atomics
        Case c = row_lanes_bound(batch);
        c.lanes_runs = runs;
        check_plus_times<float>(q, c, rng(), 1e-5, *plan_q);
      }
    // Few non-zeros per segment: one item per group by default.
    Pattern sparse_q = random_pattern(rng(), 600, 3000, 0.03);
    auto plan_s = make_plan(sparse_q, false);
    check_plus_times<float>(sparse_q, row_lanes_bound(8), rng(), 1e-5, *plan_s);
    aq.batch = 8;
    EXPECT_EQ(1, choose(*plan_s, aq).lanes_runs) << choose(*plan_s, aq).describe();
  }
  // Auto takes it where it pays: 16384 x 16384 in 12 column blocks, 8 of 1368 and 4 of 1360 (batch tile 32: 11 row
  // ranges of about 1490 rows each, 47 groups for 32 warps, the sums added by bulk reductions at batch 32; tile 8:
  // up to 33 thread blocks per column block, dealt its 512 groups in turn), 4% (segments of about 55 non-zeros per
  // block).
  Pattern m = random_pattern(rng(), 16384, 16384, 0.04);
  auto plan_m = make_plan(m, false);
  for (int batch : {32, 20, 16, 12, 8, 5, 4, 2}) {
    Case c;
    c.batch = batch;
    c.bind = true;
    check_plus_times<float>(m, c, rng(), 1e-5, *plan_m);
    SpmmArgs am;
    am.batch = batch;
    am.values_bound = true;
    const Choice cm = choose(*plan_m, am);
    EXPECT_EQ(Kernel::RowLanes, cm.kernel) << cm.describe();
    EXPECT_EQ(cm.batch_tile >= 24 ? 1024 : 512, cm.lanes_threads) << cm.describe();   // short segments
    EXPECT_EQ(rule_lanes_tile(batch), cm.batch_tile) << cm.describe();
    // Auto adds the 12 blocks' sums with atomics only where they are 16-byte ones (Y row-major, a batch that is a
    // multiple of 4).
    EXPECT_EQ(batch % 4 == 0, cm.atomic_sums) << cm.describe();
    am.y.layout = Layout::ColMajor;
    EXPECT_FALSE(choose(*plan_m, am).atomic_sums) << choose(*plan_m, am).describe();
    am.y.layout = Layout::RowMajor;
    EXPECT_TRUE(bound_values_would_serve(*plan_m, am));
    am.values_bound = false;
    EXPECT_NE(Kernel::RowLanes, choose(*plan_m, am).kernel) << "values not bound";
  }
  for (int batch : {32, 16, 8}) {
    Case d;
    d.batch = batch;
    d.bind = true;
    d.deterministic = true;
    expect_bitwise_repeatable(m, d, *plan_m);
  }
  // Past batch 32 with a last tile of 1-16 columns: the whole tiles in one pass, the rest in a second (batch tile 8
  // for 2-8 columns, 16 for 9-16, the stream kernel for one); a last tile of 17 or more runs in the one call.
  for (int batch : {33, 36, 40, 44, 48, 72}) {
    SpmmArgs am;
    am.batch = batch;
    am.values_bound = true;
    const Choice cm = choose(*plan_m, am);
    EXPECT_EQ(Kernel::RowLanes, cm.kernel) << cm.describe();
    EXPECT_EQ(2, cm.batch_passes) << cm.describe();
    EXPECT_EQ(batch - batch % 32, cm.pass_width) << cm.describe();
    Case c;
    c.batch = batch;
    c.bind = true;
    c.layout = batch == 36 ? Layout::ColMajor : Layout::RowMajor;
    c.pad = batch == 40 ? 3 : 0;
    check_plus_times<float>(m, c, rng(), 1e-5, *plan_m);
  }
  for (int batch : {49, 64, 128}) {
    SpmmArgs am;
    am.batch = batch;
    am.values_bound = true;
    EXPECT_EQ(1, choose(*plan_m, am).batch_passes) << batch;
  }
  Case r;
  r.batch = 37;
  r.bind = true;
  r.deterministic = true;
  expect_bitwise_repeatable(m, r, *plan_m);
}

// RowLanes with fp16 and bf16 values bound: X', W and Y of that type, fp32 sums. Its 16-bit X' rows (16, 32 and 64
// bytes at batch tiles 8, 16 and 32) are laid out in their own residue order (row_lanes_layout.hpp), and the column
// blocks' sums are always folded from fp32 partial tiles (there are no 16-bit atomics), so a call is deterministic
// either way. The shapes of the fp32 test (several blocks and one, a heavy row with empty ones, fewer rows than a
// group), batches 2-128 in both orientations it serves and both layouts with padded leading dimensions, each against
// the float64 reference on the 16-bit inputs (the output rounded to 16 bits: relative error about 2^-9); the choice
// takes the kernel with bf16 values bound, and not once fp32 values are bound instead. On a plan where it pays, Auto
// takes it at batch 4, 8, 16 and 32 with bf16 values bound.
TEST(SpmmRowLanes, SixteenBitValuesAgainstReference) {
  SKIP_WITHOUT_GPU();
  for (const LanesShape& sh : kLanesShapes) {
    if (!sh.fits) continue;   // the fp32 test covers the call the kernel cannot run
    SCOPED_TRACE(sh.name);
    const Pattern p = lanes_pattern(sh);
    auto plan = make_plan(p, false);
    for (int batch : {2, 5, 8, 9, 13, 16, 17, 32, 33, 64, 100, 128}) {
      for (Orientation o : {Orientation::WX, Orientation::XWt}) {
        Case c = row_lanes_bound(batch);
        c.orientation = o;
        check_plus_times<__nv_bfloat16>(p, c, rng(), 1e-2, *plan);
        SpmmArgs probe = row_lanes_call(batch, ValueType::BF16);
        probe.orientation = o;
        const Choice ch = choose(*plan, probe);
        EXPECT_EQ(Kernel::RowLanes, ch.kernel) << ch.describe();
        EXPECT_EQ(rule_lanes_tile(batch, false), ch.batch_tile) << ch.describe();
        EXPECT_FALSE(ch.atomic_sums) << ch.describe();
        probe.batch_tile = 24;   // fp32's tile only: a 16-bit call asking for it gets the rule's
        const Choice asked = choose(*plan, probe);
        EXPECT_EQ(rule_lanes_tile(batch, false), asked.batch_tile) << asked.describe();
        probe.batch_tile = 0;
        probe.type = ValueType::FP32;
        EXPECT_NE(Kernel::RowLanes, choose(*plan, probe).kernel) << "bf16 values are bound";
        c.layout = Layout::ColMajor;
        c.pad = 3;
        check_plus_times<__nv_bfloat16>(p, c, rng(), 1e-2, *plan);
        if (batch == 8 || batch == 16 || batch == 33) {
          Case h = row_lanes_bound(batch);
          h.orientation = o;
          check_plus_times<__half>(p, h, rng(), 1e-2, *plan);
        }
      }
    }
  }
  // Auto with bf16 values bound, 16384 x 16384 at 4%.
  Pattern m = random_pattern(rng(), 16384, 16384, 0.04);
  auto plan_m = make_plan(m, false);
  for (int batch : {32, 16, 8, 4}) {
    Case c;
    c.batch = batch;
    c.bind = true;
    check_plus_times<__nv_bfloat16>(m, c, rng(), 1e-2, *plan_m);
    SpmmArgs am;
    am.batch = batch;
    am.type = ValueType::BF16;
    am.values_bound = true;
    const Choice cm = choose(*plan_m, am);
    EXPECT_EQ(Kernel::RowLanes, cm.kernel) << cm.describe();
    EXPECT_TRUE(bound_values_would_serve(*plan_m, am)) << cm.describe();
    std::cout << "bf16 bound, batch " << batch << ": " << cm.describe() << "\n";
  }
}

// Batch tile 32 in thread blocks of 768 or 1024 threads: by default 768 where rows' segments in a column block average
// at least kRowLanesLongSegment non-zeros, else 1024 (tiles 8 and 16: always 512); asked for, either count at tile 32.
// Each count against the float64 reference on long and short segments, with the blocks' sums added by bulk reductions
// (row-major Y), by per-value atomics (column-major, padded) and folded in block order (deterministic, bitwise
// repeatable); another count is refused with Y untouched.
TEST(SpmmRowLanes, ThreadsPerBlock) {
  SKIP_WITHOUT_GPU();
  struct Segments {
    const char* name;
    double density;   // 3000 x 3000 in 3 column blocks of 1000 columns at tile 32
    int rule;         // the dispatcher's count at tile 32
  };
  for (const Segments& sg : {Segments{"long", 0.2, 768}, Segments{"short", 0.05, 1024}}) {
    SCOPED_TRACE(sg.name);
    Pattern p = random_pattern(rng(), 3000, 3000, sg.density);
    auto plan = make_plan(p, false);
    check_plus_times<float>(p, row_lanes_bound(32), rng(), 1e-5, *plan);   // binds (the choice reads the type)
    SpmmArgs probe;
    probe.values_bound = true;
    probe.kernel = Kernel::RowLanes;
    probe.batch = 32;
    const Choice dflt = choose(*plan, probe);
    EXPECT_EQ(Kernel::RowLanes, dflt.kernel) << dflt.describe();
    EXPECT_EQ(3, dflt.lanes_blocks) << dflt.describe();
    EXPECT_EQ(sg.rule, dflt.lanes_threads) << dflt.describe();
    probe.batch = 8;
    EXPECT_EQ(512, choose(*plan, probe).lanes_threads) << choose(*plan, probe).describe();
    probe.lanes_threads = 768;
    EXPECT_EQ(512, choose(*plan, probe).lanes_threads) << "tile 8 runs 512 whatever is asked";
    probe.batch = 16;
    EXPECT_EQ(16, choose(*plan, probe).batch_tile) << choose(*plan, probe).describe();
    EXPECT_EQ(512, choose(*plan, probe).lanes_threads) << "tile 16 runs 512 whatever is asked";
    for (int threads : {768, 1024}) {
      probe.batch = 32;
      probe.lanes_threads = threads;
      EXPECT_EQ(threads, choose(*plan, probe).lanes_threads) << choose(*plan, probe).describe();
      for (int batch : {9, 32, 64, 100}) {
        Case c = row_lanes_bound(batch);
        c.lanes_threads = threads;
        check_plus_times<float>(p, c, rng(), 1e-5, *plan);
        c.layout = Layout::ColMajor;
        c.pad = 3;
        check_plus_times<float>(p, c, rng(), 1e-5, *plan);
        c.layout = Layout::RowMajor;
        c.pad = 0;
        c.deterministic = true;
        check_plus_times<float>(p, c, rng(), 1e-5, *plan);
      }
      Case d = row_lanes_bound(32);
      d.lanes_threads = threads;
      d.deterministic = true;
      expect_bitwise_repeatable(p, d, *plan);
    }
  }
  // Another count: InvalidArgument naming the setting, Y as it was.
  Pattern p = random_pattern(rng(), 300, 1000, 0.1);
  auto plan = make_plan(p, false);
  std::vector<float> w(p.col.size(), 0.5f), x(std::size_t(p.cols) * 32, 0.25f);
  DeviceBuffer dw(w.size() * 4 + 16), dx(x.size() * 4), dy(std::size_t(p.rows) * 32 * 4);
  dw.put(w);
  dx.put(x);
  ASSERT_EQ(Status::Success, plan->bind_values(dw.p, ValueType::FP32));
  for (int threads : {512, 1023, -1}) {
    SpmmArgs a;
    a.values = dw.p;
    a.values_bound = true;
    a.kernel = Kernel::RowLanes;
    a.batch = 32;
    a.x = {dx.p, 32, Layout::RowMajor};
    a.y = {dy.p, 32, Layout::RowMajor};
    a.lanes_threads = threads;
    CUDA_OK(cudaMemset(dy.p, 0xff, dy.bytes));
    std::string msg;
    EXPECT_EQ(Status::InvalidArgument, spmm(*plan, a, &msg)) << threads;
    EXPECT_NE(std::string::npos, msg.find("lanes_threads")) << msg;
    std::vector<std::uint32_t> y(dy.bytes / 4);
    CUDA_OK(cudaMemcpy(y.data(), dy.p, dy.bytes, cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](std::uint32_t v) { return v == 0xffffffffu; })) << threads;
  }
}

// ---- calls captured into a CUDA graph and replayed ------------------------------------------------------------------
// Calls whose kernels write partial tiles that a second kernel folds (fold_column_ranges_kernel, launched as a
// programmatic dependent of the first: column_ranges.cuh), captured on a stream after a first call (which builds
// what the plan builds once) and replayed twice: each replay bitwise equal to the direct call (deterministic
// calls), with Y poisoned before each. The column-block kernel at batch 32 with four split ranges, the row-lanes
// kernel with values bound (12 column blocks), and a bound batch-40 call that runs as two passes. Then the row-lanes
// kernel's blocks adding into Y with atomics (not deterministic: Y zeroed by a kernel whose programmatic dependent
// it is): each replay within 1e-6 of the direct call (relative, in norm) and free of NaN.
TEST(SpmmGraphCapture, FoldedCallsReplayBitwiseEqual) {
  SKIP_WITHOUT_GPU();
  Pattern small = random_pattern(rng(), 4096, 4096, 0.1);
  Pattern large = random_pattern(rng(), 16384, 16384, 0.04);
  struct GraphCase {
    const Pattern* p;
    int batch;
    bool bind;
    ColumnBlockConfig cb;
    Kernel kernel;
    const char* kernel_text;
    bool deterministic = true;
  };
  ColumnBlockConfig split4{};
  split4.batch_tile = 32;
  split4.splits = 4;
  const GraphCase cases[] = {
      {&small, 32, false, split4, Kernel::ColumnBlock, "splits=4"},
      {&large, 8, true, {}, Kernel::Auto, "row_lanes(bt=8"},
      {&large, 40, true, {}, Kernel::Auto, "x2 passes"},
      {&large, 8, true, {}, Kernel::Auto, ",atomic,", false},
      {&large, 32, true, {}, Kernel::Auto, ",atomic,", false},
  };
  cudaStream_t stream;
  ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const GraphCase& gc : cases) {
    const Pattern& p = *gc.p;
    SCOPED_TRACE(::testing::Message() << p.rows << " x " << p.cols << " batch " << gc.batch);
    auto plan = make_plan(p, false);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<float> w(p.col.size()), x(std::size_t(p.cols) * gc.batch);
    for (auto& v : w) v = float(u(rng()));
    for (auto& v : x) v = float(u(rng()));
    const std::size_t ybytes = std::size_t(p.rows) * gc.batch * 4;
    DeviceBuffer dw(w.size() * 4 + 16), dx(x.size() * 4), dy(ybytes), dz(ybytes);
    dw.put(w);
    dx.put(x);
    SpmmArgs a;
    a.values = dw.p;
    a.x = {dx.p, gc.batch, Layout::RowMajor};
    a.y = {dy.p, gc.batch, Layout::RowMajor};
    a.batch = gc.batch;
    a.kernel = gc.kernel;
    a.column_block = gc.cb;
    a.deterministic = gc.deterministic;
    a.stream = stream;
    std::string msg;
    if (gc.bind) {
      ASSERT_EQ(Status::Success, plan->bind_values(dw.p, ValueType::FP32, stream, &msg)) << msg;
      a.values_bound = true;
    }
    EXPECT_NE(std::string::npos, choose(*plan, a).describe().find(gc.kernel_text)) << choose(*plan, a).describe();
    ASSERT_EQ(cudaSuccess, cudaMemsetAsync(dy.p, 0xff, ybytes, stream));
    ASSERT_EQ(Status::Success, spmm(*plan, a, &msg)) << msg;   // the direct call (and the plan's first-call work)
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    std::vector<unsigned char> direct(ybytes), replayed(ybytes);
    ASSERT_EQ(cudaSuccess, cudaMemcpy(direct.data(), dy.p, ybytes, cudaMemcpyDeviceToHost));
    std::vector<float> values(ybytes / 4);
    std::memcpy(values.data(), direct.data(), ybytes);
    ASSERT_EQ(0, std::count_if(values.begin(), values.end(), [](float v) { return std::isnan(v); }))
        << "unwritten outputs in the direct call";
    SpmmArgs c = a;
    c.y.data = dz.p;
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const Status st = spmm(*plan, c, &msg);
    ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(stream, &graph));
    ASSERT_EQ(Status::Success, st) << msg;
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 2; ++replay) {
      ASSERT_EQ(cudaSuccess, cudaMemsetAsync(dz.p, 0xff, ybytes, stream));
      ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
      ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
      ASSERT_EQ(cudaSuccess, cudaMemcpy(replayed.data(), dz.p, ybytes, cudaMemcpyDeviceToHost));
      if (gc.deterministic) {
        EXPECT_TRUE(direct == replayed) << "replay " << replay << " differs from the direct call";
      } else {
        std::vector<float> again(ybytes / 4);
        std::memcpy(again.data(), replayed.data(), ybytes);
        double num = 0, den = 0;
        for (std::size_t i = 0; i < again.size(); ++i) {
          num += (double(again[i]) - values[i]) * (double(again[i]) - values[i]);
          den += double(values[i]) * values[i];
        }
        EXPECT_TRUE(std::isfinite(num) && den > 0) << "replay " << replay << ": NaN or an all-zero result";
        EXPECT_LT(std::sqrt(num / den), 1e-6) << "replay " << replay;
      }
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  cudaStreamDestroy(stream);
}

// values_bound where the plan holds none, or of another type, and bind_values with a type the kernel does not run:
// refused before anything runs (Y keeps its poison, the earlier binding stays).
TEST(SpmmArguments, BoundValuesRefused) {
  SKIP_WITHOUT_GPU();
  Pattern p = random_pattern(rng(), 600, 3000, 0.05);
  auto plan = make_plan(p, false);
  const std::int64_t nnz = static_cast<std::int64_t>(p.col.size());
  std::vector<float> w(nnz, 0.5f), x(std::size_t(p.cols) * 8, 0.25f);
  DeviceBuffer dw(nnz * 4 + 16), dx(x.size() * 4), dy(std::size_t(p.rows) * 8 * 4);
  dw.put(w);
  dx.put(x);
  SpmmArgs a;
  a.values = dw.p;
  a.x = {dx.p, 8, Layout::RowMajor};
  a.y = {dy.p, 8, Layout::RowMajor};
  a.batch = 8;
  a.values_bound = true;
  auto y_untouched = [&]() {
    std::vector<std::uint32_t> y(std::size_t(p.rows) * 8);
    EXPECT_EQ(cudaSuccess, cudaMemcpy(y.data(), dy.p, y.size() * 4, cudaMemcpyDeviceToHost));
    return std::all_of(y.begin(), y.end(), [](std::uint32_t v) { return v == 0xffffffffu; });
  };
  CUDA_OK(cudaMemset(dy.p, 0xff, dy.bytes));
  std::string msg;
  EXPECT_EQ(Status::InvalidArgument, spmm(*plan, a, &msg));
  EXPECT_NE(std::string::npos, msg.find("no values are bound")) << msg;
  EXPECT_EQ(Status::Unsupported, plan->bind_values(dw.p, ValueType::FP64, nullptr, &msg));
  EXPECT_FALSE(plan->has_bound_values());
  ASSERT_EQ(Status::Success, plan->bind_values(dw.p, ValueType::FP32, nullptr, &msg)) << msg;
  EXPECT_TRUE(plan->has_bound_values());
  EXPECT_EQ(Status::Unsupported, plan->bind_values(dw.p, ValueType::Int32, nullptr, &msg));
  EXPECT_EQ(Status::InvalidArgument, plan->bind_values(nullptr, ValueType::FP32, nullptr, &msg));
  EXPECT_TRUE(plan->has_bound_values()) << "a refused bind keeps the earlier one";
  a.type = ValueType::FP16;   // bound as fp32
  EXPECT_EQ(Status::InvalidArgument, spmm(*plan, a, &msg));
  EXPECT_NE(std::string::npos, msg.find("fp32")) << msg;
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_TRUE(y_untouched());
  a.type = ValueType::FP32;   // and the binding still serves
  ASSERT_EQ(Status::Success, spmm(*plan, a, &msg)) << msg;
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_FALSE(y_untouched());
}

// ---- X allocated only to the batch in its last row: no kernel reads past it -------------------------------------
TEST(SpmmArguments, TightXAllocation) {
  SKIP_WITHOUT_GPU();
  Pattern p = random_pattern(rng(), 300, 500, 0.05);
  auto plan = make_plan(p, true);
  // 28 and 124: ld 32 / 128, a whole column-block tile, with the batch short of it (its bulk-copied stages
  // would read whole tile rows).
  for (int batch : {2, 3, 5, 6, 13, 28, 29, 37, 124})
    for (Kernel k : {Kernel::Auto, Kernel::RowSegment, Kernel::ColumnBlock, Kernel::RowSegmentBatchLanes,
                     Kernel::RowRange}) {
      Case c;
      c.batch = batch;
      c.pad = (4 - batch % 4) % 4 + 4;   // ld a multiple of 4: no repack for alignment alone
      c.kernel = k;
      c.tight_x = true;
      check_plus_times<float>(p, c, rng(), 1e-5, *plan);
      check_plus_times<__half>(p, c, rng(), 1e-2, *plan);
    }
}

// ---- argument checks ---------------------------------------------------------------------------------------------
TEST(SpmmPlan, FromHostArrays) {
  SKIP_WITHOUT_GPU();
  // A plan built from host arrays (the cuda backend's way) runs as one built from device arrays: bitwise the same
  // deterministic output, both against the float64 reference. 6000 rows with a heavy one, so that the threaded
  // checks and the boundary table take several chunks.
  const Pattern p = random_pattern(rng(), 6000, 3000, 0.03, 17, 2500);
  auto from_device = make_plan(p, false);
  PlanOptions o;
  o.transposed = true;
  auto from_host = Plan::create(p.rows, p.cols, p.row_ptr, p.col, o);
  ASSERT_EQ(from_device->nnz(), from_host->nnz());
  for (Orientation orient : {Orientation::WX, Orientation::WtX})
    for (int batch : {1, 8, 32}) {
      Case c = oriented(orient, Layout::RowMajor, batch, 0);
      c.deterministic = true;
      expect_same_bits(p, c, *from_device, c, *from_host);
    }
  // Bad patterns are refused with the first defect in row order, whichever host thread finds which.
  auto refused = [&](std::int32_t rows, std::int32_t cols, const std::vector<int>& rp, const std::vector<int>& ci,
                     const std::string& want) {
    try {
      Plan::create(rows, cols, rp, ci);
      ADD_FAILURE() << "accepted; wanted: " << want;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what() << "; wanted: " << want;
    }
  };
  refused(-1, p.cols, p.row_ptr, p.col, "dimensions out of range");
  refused(p.rows - 1, p.cols, p.row_ptr, p.col, "rows + 1 entries");
  std::vector<int> short_col(p.col.begin(), p.col.end() - 1);
  refused(p.rows, p.cols, p.row_ptr, short_col, "row_ptr[rows] != nnz");
  auto in_row = [&](int r, int k) { return static_cast<std::size_t>(p.row_ptr[r] + k); };
  ASSERT_GE(p.row_ptr[4501] - p.row_ptr[4500], 2);
  ASSERT_GE(p.row_ptr[5501] - p.row_ptr[5500], 2);
  {
    std::vector<int> ci = p.col;
    ci[in_row(4500, 1)] = p.cols;                        // out of range
    std::swap(ci[in_row(5500, 0)], ci[in_row(5500, 1)]);   // unsorted
    refused(p.rows, p.cols, p.row_ptr, ci, "column out of range");
  }
  {
    std::vector<int> ci = p.col;
    std::swap(ci[in_row(4500, 0)], ci[in_row(4500, 1)]);
    ci[in_row(5500, 1)] = -3;
    refused(p.rows, p.cols, p.row_ptr, ci, "columns not strictly increasing");
  }
  {
    std::vector<int> rp = p.row_ptr, ci = p.col;
    rp[5001] = rp[5000] - 1;          // falls
    ci[in_row(200, 0)] = p.cols + 7;  // an earlier row's column: reported first
    refused(p.rows, p.cols, rp, ci, "column out of range");
    refused(p.rows, p.cols, rp, p.col, "row_ptr not monotone");
    rp = p.row_ptr;
    rp[100] = static_cast<int>(p.col.size()) + 5;   // past the non-zeros (falls after): refused before any read
    refused(p.rows, p.cols, rp, p.col, "row_ptr not monotone");
  }
}

TEST(SpmmPlan, TransposedFormAddedLater) {
  SKIP_WITHOUT_GPU();
  // A plan made without the transposed form and given it later (the cuda backend's way: W X first, W^T X at the first
  // backward) runs both orientations bitwise as one made with it; arrays of another shape are refused, and a second
  // add changes nothing.
  const Pattern p = random_pattern(rng(), 3000, 1200, 0.05, 17, 900);
  PlanOptions o;
  o.transposed = true;
  auto made_with = Plan::create(p.rows, p.cols, p.row_ptr, p.col, o);
  auto added = Plan::create(p.rows, p.cols, p.row_ptr, p.col);
  ASSERT_FALSE(added->has_transposed());
  std::vector<int> short_col(p.col.begin(), p.col.end() - 1);
  EXPECT_THROW(added->add_transposed(p.row_ptr, short_col), std::invalid_argument);
  EXPECT_FALSE(added->has_transposed());
  added->add_transposed(p.row_ptr, p.col);
  ASSERT_TRUE(added->has_transposed());
  const std::size_t bytes = added->device_bytes();
  added->add_transposed(p.row_ptr, p.col);
  EXPECT_EQ(added->device_bytes(), bytes);
  EXPECT_EQ(added->device_bytes(), made_with->device_bytes());
  for (Orientation orient : {Orientation::WX, Orientation::WtX})
    for (int batch : {1, 8, 32, 128}) {
      Case c = oriented(orient, Layout::RowMajor, batch, 0);
      c.deterministic = true;
      expect_same_bits(p, c, *made_with, c, *added);
    }
}

TEST(SpmmArguments, RejectedWithoutLaunching) {
  SKIP_WITHOUT_GPU();
  Pattern p = random_pattern(rng(), 10, 12, 0.3);
  DeviceBuffer rp(p.row_ptr.size() * 4), ci(p.col.size() * 4 + 4);
  rp.put(p.row_ptr);
  ci.put(p.col);
  CsrPattern cp{p.rows, p.cols, std::int64_t(p.col.size()), static_cast<const int*>(rp.p), static_cast<const int*>(ci.p)};
  auto plan = Plan::create(cp);
  DeviceBuffer d(4096);
  SpmmArgs a;
  a.values = d.p;
  a.x = {d.p, 1, Layout::RowMajor};
  a.y = {d.p, 1, Layout::RowMajor};
  a.orientation = Orientation::WtX;   // no transposed pattern in this plan
  EXPECT_EQ(Status::InvalidArgument, spmm(*plan, a));
  a.orientation = Orientation::WX;
  a.kernel = Kernel::SnackCoo;        // no COO arrays
  EXPECT_EQ(Status::InvalidArgument, spmm(*plan, a));
  a.kernel = Kernel::Auto;
  a.batch = 4;
  a.x.ld = 2;                         // ld < batch
  EXPECT_EQ(Status::InvalidArgument, spmm(*plan, a));
  // X and Y sharing memory (Y in place of X, or one row of Y over X's last): refused, Y unchanged; X and Y in
  // the two halves of one buffer: served.
  std::vector<float> w(p.col.size(), 0.5f), x(std::size_t(p.cols) * 4, 0.25f);
  DeviceBuffer dw(w.size() * 4 + 16), buf(std::size_t(p.cols + p.rows) * 4 * 4);
  dw.put(w);
  a.values = dw.p;
  a.x = {buf.p, 4, Layout::RowMajor};
  float* x_last = static_cast<float*>(buf.p) + (p.cols - 1) * 4;
  for (float* y_at : {static_cast<float*>(buf.p), x_last}) {
    CUDA_OK(cudaMemset(buf.p, 0xff, buf.bytes));
    a.y = {y_at, 4, Layout::RowMajor};
    std::string msg;
    EXPECT_EQ(Status::InvalidArgument, spmm(*plan, a, &msg));
    EXPECT_NE(std::string::npos, msg.find("X and Y overlap")) << msg;
    std::vector<std::uint32_t> all(buf.bytes / 4);
    CUDA_OK(cudaMemcpy(all.data(), buf.p, buf.bytes, cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::all_of(all.begin(), all.end(), [](std::uint32_t v) { return v == 0xffffffffu; }));
  }
  CUDA_OK(cudaMemcpy(buf.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  a.y = {static_cast<float*>(buf.p) + p.cols * 4, 4, Layout::RowMajor};
  // Semirings no kernel computes: a bitwise multiply, a logical monoid on numbers, a numeric one on Bool, anything but
  // plus_times on fp16: refused, Y unchanged.
  CUDA_OK(cudaMemset(a.y.data, 0xff, std::size_t(p.rows) * 4 * 4));
  const std::pair<SemiringId, ValueType> refused[] = {{{B::Plus, B::BOr}, ValueType::Int32},
                                                      {{B::LOr, B::Times}, ValueType::Int32},
                                                      {{B::Plus, B::Times}, ValueType::Bool},
                                                      {{B::Min, B::Plus}, ValueType::FP16}};
  for (const auto& [sr, type] : refused) {
    SpmmArgs r = a;
    r.semiring = sr;
    r.type = type;
    std::string msg;
    EXPECT_EQ(Status::Unsupported, spmm(*plan, r, &msg)) << ops::opcode_name(sr.add) << "_" << ops::opcode_name(sr.mul);
    EXPECT_NE(std::string::npos, msg.find("semiring")) << msg;
  }
  std::vector<std::uint32_t> kept(std::size_t(p.rows) * 4);
  CUDA_OK(cudaMemcpy(kept.data(), a.y.data, kept.size() * 4, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(std::all_of(kept.begin(), kept.end(), [](std::uint32_t v) { return v == 0xffffffffu; }));
  EXPECT_EQ(Status::Success, spmm(*plan, a));
  std::vector<float> y(std::size_t(p.rows) * 4);
  CUDA_OK(cudaMemcpy(y.data(), a.y.data, y.size() * 4, cudaMemcpyDeviceToHost));
  for (int r = 0; r < p.rows; ++r)   // every value 0.5 x 0.25 per non-zero of the row
    EXPECT_FLOAT_EQ(0.125f * float(p.row_ptr[r + 1] - p.row_ptr[r]), y[std::size_t(r) * 4]) << r;
  // An unsorted pattern is refused when the plan is built.
  std::vector<int> bad_col = p.col;
  if (p.row_ptr[1] - p.row_ptr[0] >= 2) {
    std::swap(bad_col[0], bad_col[1]);
    ci.put(bad_col);
    EXPECT_THROW(Plan::create(cp), std::invalid_argument);
  }
}

}  // namespace
}  // namespace snk::cuda
