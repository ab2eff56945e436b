// tests/core/test_portable_kernels.cpp: the portable kernels (backends/kokkos/portable/) run on the host, in Kokkos'
// default host space, and compared with the reference backend.
//
// The cuda backend compiles these kernels for Kokkos' CUDA space; their GPU runs are covered by the cross-backend suite
// on a GPU machine. This test instantiates the same sources for the host space, so that every machine (CI has no GPU)
// checks their logic: apply, select, eWiseMult, eWiseAdd (of hypersparse operands too), reduce, transpose, SpGEMM (by
// expansion and by dense row accumulators, and over A's non-empty rows made dense), the masked dot product, the row-wise SpMV of mxv / vxm and their push into
// a dense accumulator, the mask step,
// extract and the scatter of assign, on fresh random inputs (with empty rows, and vectors), each result against the
// same call on reference, in the kokkos backend's host context (host_context.hpp); and the compaction they share, on
// raw arrays against a host filter.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstring>
#include <tuple>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../common/fractional_matrix.hpp"
#include "core/internal.hpp"
#include "host_context.hpp"
#include "parallel.hpp"
#include "portable/elementwise.hpp"
#include "portable/index_ops.hpp"
#include "portable/mask_accum.hpp"
#include "portable/products.hpp"
#include "portable/reduce.hpp"
#include "snack/snack.hpp"

namespace {

namespace P = snk::kokkos::portable;
using snk::CsrStorage;
using snk::Index;
using snk::Matrix;
using snk::TypeCode;
using Op = snk::BinaryOpcode;
using IU = snk::IndexUnaryOpcode;

using HostContext = snk::kokkos::HostContext<Kokkos::DefaultHostExecutionSpace>;
using snk::kokkos::HostBytes;

std::mt19937_64& rng() {
  static std::mt19937_64 g(static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  return g;
}

// A matrix of `type` with an entry at each of `at` (row-major order, no repeats), values from draw() (a double each).
template <class Draw>
Matrix with_values(const snk::Type* type, Index nrows, Index ncols, const std::vector<std::pair<Index, Index>>& at,
                   Draw draw) {
  std::vector<Index> I, J;
  std::vector<double> X;
  for (const auto& [i, j] : at) {
    I.push_back(i);
    J.push_back(j);
    X.push_back(draw());
  }
  Matrix A(type, nrows, ncols);
  A.build(I.data(), J.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return A;
}

// The same with values drawn from the integers lo..hi.
Matrix with_entries(const snk::Type* type, Index nrows, Index ncols, const std::vector<std::pair<Index, Index>>& at,
                    int lo, int hi) {
  std::uniform_int_distribution<int> v(lo, hi);
  return with_values(type, nrows, ncols, at, [&] { return static_cast<double>(v(rng())); });
}

// Every position of an nrows x ncols matrix, in row-major order.
std::vector<std::pair<Index, Index>> every_position(Index nrows, Index ncols) {
  std::vector<std::pair<Index, Index>> at;
  for (Index i = 0; i < nrows; ++i)
    for (Index j = 0; j < ncols; ++j) at.push_back({i, j});
  return at;
}

// A nrows x ncols matrix of `type` with an entry at every position, values drawn from lo..hi.
Matrix full_of(const snk::Type* type, Index nrows, Index ncols, int lo, int hi) {
  return with_entries(type, nrows, ncols, every_position(nrows, ncols), lo, hi);
}

// A random nrows x ncols matrix of `type` (values in -3..3), with about `density` of the positions, every fourth
// row empty.
Matrix random_matrix(const snk::Type* type, Index nrows, Index ncols, double density) {
  std::vector<std::pair<Index, Index>> at;
  std::bernoulli_distribution on(density);
  for (Index i = 0; i < nrows; ++i)
    for (Index j = 0; j < ncols && i % 4 != 3; ++j)
      if (on(rng())) at.push_back({i, j});
  return with_entries(type, nrows, ncols, at, -3, 3);
}

// A random nrows x ncols matrix of `type` with n entries at random positions (hypersparse where nrows is large).
Matrix random_sparse(const snk::Type* type, Index nrows, Index ncols, Index n) {
  std::set<std::pair<Index, Index>> at;
  std::uniform_int_distribution<Index> row(0, nrows - 1), col(0, ncols - 1);
  while (static_cast<Index>(at.size()) < n) at.insert({row(rng()), col(rng())});
  return with_entries(type, nrows, ncols, std::vector<std::pair<Index, Index>>(at.begin(), at.end()), 1, 9);
}

// A random vector of n positions, about half of them present (values in -3..3, zeros included).
snk::Vector random_vector(const snk::Type* type, Index n) {
  std::vector<Index> I;
  std::vector<double> X;
  std::bernoulli_distribution on(0.5);
  std::uniform_int_distribution<int> v(-3, 3);
  for (Index k = 0; k < n; ++k)
    if (on(rng())) {
      I.push_back(k);
      X.push_back(v(rng()));
    }
  snk::Vector u(type, n);
  u.build(I.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return u;
}

// n random indices below dim (repeats likely, any order).
std::vector<Index> random_list(Index n, Index dim) {
  std::uniform_int_distribution<Index> k(0, dim - 1);
  std::vector<Index> out(n);
  for (Index& x : out) x = k(rng());
  return out;
}

snk::kokkos::CsrRef ref(const Matrix& A) { return snk::kokkos::csr_ref(A); }

// The kernel's result as a Matrix of `type` and the given shape.
Matrix to_matrix(P::CsrParts<HostBytes> parts, const snk::Type* type, Index nrows, Index ncols) {
  Matrix M(type, nrows, ncols);
  snk::kokkos::adopt_result(M, std::move(parts));
  return M;
}

void expect_same(const Matrix& got, const Matrix& want, const std::string& what) {
  ASSERT_EQ(got.nvals(), want.nvals()) << what;
  const Index n = got.nvals();
  std::vector<Index> gi(n), gj(n), wi(n), wj(n);
  std::vector<double> gx(n), wx(n);
  got.extract_tuples(gi.data(), gj.data(), gx.data(), &snk::types::FP64);
  want.extract_tuples(wi.data(), wj.data(), wx.data(), &snk::types::FP64);
  for (Index k = 0; k < n; ++k) {
    ASSERT_TRUE(gi[k] == wi[k] && gj[k] == wj[k]) << what << ": pattern differs at entry " << k;
    ASSERT_DOUBLE_EQ(gx[k], wx[k]) << what << " at (" << gi[k] << "," << gj[k] << ")";
  }
}

class PortableKernels : public ::testing::Test {
 protected:
  HostContext ctx;
  snk::BackendScope reference{"reference"};
};

TEST_F(PortableKernels, ApplySelectAndElementWise) {
  for (TypeCode code : {TypeCode::FP64, TypeCode::Int32, TypeCode::UInt8}) {
    const snk::Type* t = snk::builtin_unary_op(snk::UnaryOpcode::Identity, code)->xtype;
    for (Index rows : {Index(1), Index(37)}) {
      const Matrix A = random_matrix(t, rows, 53, 0.3), B = random_matrix(t, rows, 53, 0.3);
      const std::string at = t->name + " " + std::to_string(rows) + " rows";
      Matrix want(t, rows, 53);
      snk::apply(want, nullptr, nullptr, *snk::builtin_unary_op(snk::UnaryOpcode::AInv, code), A);
      // eWiseMult / eWiseAdd with MINUS (not commutative: the operand order shows).
      Matrix mult(t, rows, 53), add(t, rows, 53);
      const snk::BinaryOp& minus = *snk::builtin_binary_op(Op::Minus, code);
      snk::ewise_mult(mult, nullptr, nullptr, minus, A, B);
      snk::ewise_add(add, nullptr, nullptr, minus, A, B);
      snk::kokkos::with_type(code, [&](auto tt) {
        using V = typename decltype(tt)::type;
        P::CsrParts<HostBytes> applied = P::copy_pattern(ctx, ref(A), 0);
        applied.x = P::apply_unary_values<V>(ctx, ref(A), snk::UnaryOpcode::AInv);
        expect_same(to_matrix(applied, t, rows, 53), want, "apply AINV " + at);
        expect_same(to_matrix(P::ewise_mult<V, V>(ctx, ref(A), ref(B), Op::Minus), t, rows, 53), mult,
                    "eWiseMult " + at);
        expect_same(to_matrix(P::ewise_add<V, V>(ctx, ref(A), ref(B), Op::Minus), t, rows, 53), add, "eWiseAdd " + at);
        // Operands of one pattern held in different arrays (`want` is AINV(A)): the values-only path.
        Matrix same_add(t, rows, 53), same_mult(t, rows, 53);
        snk::ewise_add(same_add, nullptr, nullptr, minus, A, want);
        snk::ewise_mult(same_mult, nullptr, nullptr, minus, want, A);
        EXPECT_TRUE(P::same_pattern(ctx, ref(A), ref(want))) << at;
        EXPECT_FALSE(P::same_pattern(ctx, ref(A), ref(B))) << at;
        P::CsrParts<HostBytes> on_a = P::copy_pattern(ctx, ref(A), 0), on_want = P::copy_pattern(ctx, ref(want), 0);
        on_a.x = P::ewise_values<V, V>(ctx, ref(A), ref(want), Op::Minus);
        on_want.x = P::ewise_values<V, V>(ctx, ref(want), ref(A), Op::Minus);
        expect_same(to_matrix(std::move(on_a), t, rows, 53), same_add, "eWise values of one pattern " + at);
        expect_same(to_matrix(std::move(on_want), t, rows, 53), same_mult, "eWise values of one pattern, swapped " + at);
        return true;
      });
    }
  }
  // select: a position test and a value test, on a matrix and on a vector.
  for (Index rows : {Index(1), Index(29)}) {
    const Matrix A = random_matrix(&snk::types::FP64, rows, 29, 0.4);
    snk::Scalar y(&snk::types::Int64), zero(&snk::types::FP64);
    const std::int64_t k = -1;
    const double z = 0;
    y.set(&k, &snk::types::Int64);
    zero.set(&z, &snk::types::FP64);
    Matrix tril(&snk::types::FP64, rows, 29), positive(&snk::types::FP64, rows, 29);
    snk::select(tril, nullptr, nullptr, *snk::builtin_index_unary_op(IU::Tril, TypeCode::Int64), A, y);
    snk::select(positive, nullptr, nullptr, *snk::builtin_index_unary_op(IU::ValueGt, TypeCode::FP64), A, zero);
    expect_same(to_matrix(P::select_by_position(ctx, ref(A), false, IU::Tril, k, 8), &snk::types::FP64, rows, 29),
                tril, "select TRIL");
    expect_same(to_matrix(P::select_by_value<double>(ctx, ref(A), IU::ValueGt, 0.0, 8), &snk::types::FP64, rows, 29),
                positive, "select VALUEGT");
  }
}

// The compaction under select, eWiseMult, extract and the mask step (parts.hpp: compact, in runs of kCompactRun
// entries), on raw CSR arrays against the same filter on the host: plain and hypersparse slots, empty rows, a row of
// many runs and rows that start inside a run, every value size it copies as a word (1, 2, 4, 8) and one it copies by
// bytes (12), with no flag, every flag and random flags set; the kept entries' columns, values and row starts, and the
// slots kept (hypersparse rows copied).
TEST_F(PortableKernels, CompactionKeepsFlaggedEntriesInOrder) {
  std::bernoulli_distribution half(0.5);
  std::uniform_int_distribution<int> length(0, 40), byte(0, 255);
  for (const bool hyper : {false, true})
    for (const std::size_t elem : {std::size_t(1), std::size_t(2), std::size_t(4), std::size_t(8), std::size_t(12)})
      for (const int fill : {0, 1, 2}) {   // no flag, every flag, random flags
        // 60 slots: lengths 0 - 40, slot 7 holding 1000 entries (31 runs and more), slot 8 a single one.
        std::vector<Index> h, p{0}, j;
        for (Index s = 0; s < 60; ++s) {
          const Index len = s == 7 ? 1000 : s == 8 ? 1 : static_cast<Index>(length(rng()));
          if (hyper) h.push_back(3 * s + 1);
          for (Index c = 0; c < len; ++c) j.push_back(c);
          p.push_back(static_cast<Index>(j.size()));
        }
        const Index n = static_cast<Index>(j.size());
        std::vector<unsigned char> x(n * elem), flags(n);
        for (auto& b : x) b = static_cast<unsigned char>(byte(rng()));
        for (auto& f : flags) f = fill == 0 ? 0 : fill == 1 ? 1 : half(rng());
        snk::kokkos::CsrRef A;
        A.hyper = hyper;
        A.h = hyper ? h.data() : nullptr;
        A.p = p.data();
        A.j = j.data();
        A.x = x.data();
        A.nslots = 60;
        A.nrows = hyper ? 3 * 60 + 1 : 60;
        A.ncols = 1000;
        A.nvals = n;
        const std::string at = std::string(hyper ? "hypersparse" : "plain") + ", " + std::to_string(elem) +
                               "-byte values, fill " + std::to_string(fill);
        const P::CsrParts<HostBytes> out = P::compact(ctx, A, flags.data(), x.data(), elem);
        ASSERT_EQ(out.hyper, hyper) << at;
        ASSERT_EQ(out.nslots, Index(60)) << at;
        const Index* op = P::as<Index>(out.p);
        const Index* oj = P::as<Index>(out.j);
        const unsigned char* ox = P::as<unsigned char>(out.x);
        Index kept = 0;
        for (Index s = 0; s < 60; ++s) {
          ASSERT_EQ(op[s], kept) << at << ": start of slot " << s;
          if (hyper) ASSERT_EQ(P::as<Index>(out.h)[s], h[s]) << at << ": row of slot " << s;
          for (Index e = p[s]; e < p[s + 1]; ++e) {
            if (!flags[e]) continue;
            ASSERT_EQ(oj[kept], j[e]) << at << ": column of kept entry " << kept;
            ASSERT_EQ(std::memcmp(ox + kept * elem, x.data() + e * elem, elem), 0) << at << ": value of kept entry " << kept;
            ++kept;
          }
        }
        EXPECT_EQ(op[60], kept) << at;
        EXPECT_EQ(out.nvals, kept) << at;
      }
}

TEST_F(PortableKernels, ReduceTransposeAndProducts) {
  const snk::Type* t = &snk::types::FP64;
  const Matrix A = random_matrix(t, 41, 23, 0.25), B = random_matrix(t, 23, 31, 0.25), M = random_matrix(t, 41, 31, 0.4);
  const P::MonoidFn<double> plus{Op::Plus, 0.0};
  // Reduce each row, and everything.
  snk::Vector rows(t, 41);
  snk::reduce(rows, nullptr, nullptr, *snk::builtin_monoid(Op::Plus, TypeCode::FP64), A);
  expect_same(to_matrix(P::reduce_rows<double>(ctx, ref(A), plus), t, 1, 41), rows.as_matrix(), "reduce rows");
  snk::Scalar s(t);
  snk::reduce(s, nullptr, *snk::builtin_monoid(Op::Max, TypeCode::FP64), A);
  double want = 0;
  s.get(&want, t);
  EXPECT_EQ(P::reduce_scalar<double>(ctx, ref(A), P::MonoidFn<double>{Op::Max, -1e300}), want);
  // The reduction starts from no value, not from the identity: MIN over a lone NaN is NaN (fmin(+Inf, NaN) would
  // give +Inf), as SuiteSparse computes it; MIN over {2, NaN} is 2.
  {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    std::vector<Index> I{1}, J{1};
    std::vector<double> X{nan};
    Matrix lone(t, 3, 3);
    lone.build(I.data(), J.data(), X.data(), t, 1, nullptr);
    EXPECT_TRUE(std::isnan(P::reduce_scalar<double>(ctx, ref(lone), P::MonoidFn<double>{Op::Min, inf})));
    I.push_back(2);
    J.push_back(0);
    X.push_back(2.0);
    Matrix two(t, 3, 3);
    two.build(I.data(), J.data(), X.data(), t, 2, nullptr);
    EXPECT_EQ(P::reduce_scalar<double>(ctx, ref(two), P::MonoidFn<double>{Op::Min, inf}), 2.0);
  }
  // Transpose.
  Matrix at(t, 23, 41);
  snk::transpose(at, nullptr, nullptr, A);
  expect_same(to_matrix(P::transpose(ctx, ref(A), 8), t, 23, 41), at, "transpose");
  // SpGEMM, with MINUS as the multiply and the operands swapped (flip), and the masked dot product with B^T.
  const snk::Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP64);
  Matrix ab(t, 41, 31);
  snk::mxm(ab, nullptr, nullptr, pt, A, B);
  expect_same(to_matrix(P::spgemm<double>(ctx, ref(A), ref(B), plus, Op::Times, false), t, 41, 31), ab, "A*B");
  Matrix bt(t, 31, 23);
  snk::transpose(bt, nullptr, nullptr, B);
  Matrix masked(t, 41, 31);
  snk::Descriptor d;
  d.mask_structure = true;
  snk::mxm(masked, &M, nullptr, pt, A, B, d);
  expect_same(to_matrix(P::masked_dot<double>(ctx, ref(M), ref(A), ref(bt), plus, Op::Times, false), t, 41, 31), masked,
              "C<M> = A * (B^T)^T");
  // Rows of very different lengths (every seventh row of A and of B^T nearly full, the others a few entries): the
  // shorter row's entries are searched in the longer; MINUS shows which operand each value comes from.
  {
    auto skewed = [&](Index r, Index c) {
      std::vector<std::pair<Index, Index>> at;
      for (Index i = 0; i < r; ++i) {
        std::bernoulli_distribution on(i % 7 == 0 ? 0.9 : 0.01);
        for (Index j = 0; j < c; ++j)
          if (on(rng())) at.push_back({i, j});
      }
      return with_entries(t, r, c, at, -3, 3);
    };
    const Matrix As = skewed(40, 2000), Bts = skewed(30, 2000), Ms = random_matrix(t, 40, 30, 0.6);
    const auto plus_minus = snk::new_semiring(snk::builtin_monoid(Op::Plus, TypeCode::FP64),
                                              snk::builtin_binary_op(Op::Minus, TypeCode::FP64));
    Matrix want(t, 40, 30);
    d.transpose_second = true;
    snk::mxm(want, &Ms, nullptr, *plus_minus, As, Bts, d);
    d.transpose_second = false;
    ASSERT_GT(want.nvals(), Index(0));
    expect_same(to_matrix(P::masked_dot<double>(ctx, ref(Ms), ref(As), ref(Bts), plus, Op::Minus, false), t, 40, 30),
                want, "C<M> = A * B^T, rows of very different lengths");
  }
  // Full operands (SDDMM), with MINUS as the multiply and flipped: small integers, so every order of the sums is exact.
  const Matrix Af = full_of(t, 41, 23, -8, 8), Bf = full_of(t, 23, 31, -8, 8);
  Matrix bft(t, 31, 23), sampled(t, 41, 31), flipped(t, 41, 31);
  snk::transpose(bft, nullptr, nullptr, Bf);
  snk::mxm(sampled, &M, nullptr, pt, Af, Bf, d);
  // The values come in M's entry order, on M's pattern.
  auto on_mask = [&](HostBytes x) {
    P::CsrParts<HostBytes> parts = P::copy_pattern(ctx, ref(M), 0);
    parts.x = std::move(x);
    return to_matrix(parts, t, 41, 31);
  };
  expect_same(on_mask(P::masked_dot_full<double>(ctx, ref(M), ref(Af), ref(bft), 23, Op::Times, false)), sampled,
              "C<M> = A * B, full operands");
  // flip: each product is f(b, a) = b - a, here checked against the transposed problem C'<M'> = B^T (-) A^T.
  const snk::Semiring pm{snk::builtin_monoid(Op::Plus, TypeCode::FP64), snk::builtin_binary_op(Op::Minus, TypeCode::FP64),
                         "PLUS_MINUS_FP64"};
  Matrix at_f(t, 23, 41), mt(t, 31, 41), want_t(t, 31, 41), want_f(t, 41, 31);
  snk::transpose(at_f, nullptr, nullptr, Af);
  snk::transpose(mt, nullptr, nullptr, M);
  snk::mxm(want_t, &mt, nullptr, pm, bft, at_f, d);
  snk::transpose(want_f, nullptr, nullptr, want_t);
  expect_same(on_mask(P::masked_dot_full<double>(ctx, ref(M), ref(Af), ref(bft), 23, Op::Minus, true)), want_f,
              "C<M> = A * B, full operands, MINUS flipped");
  // K a multiple of the 16-byte pieces (the kernel's piece-wise reads), and the dense transpose of a full matrix.
  const Matrix Ag = full_of(t, 41, 24, -8, 8), Bg = full_of(t, 24, 31, -8, 8);
  Matrix bgt(t, 31, 24), sampled_g(t, 41, 31);
  snk::transpose(bgt, nullptr, nullptr, Bg);
  expect_same(to_matrix(P::transpose(ctx, ref(Bg), 8), t, 31, 24), bgt, "transpose of a full matrix");
  snk::mxm(sampled_g, &M, nullptr, pt, Ag, Bg, d);
  expect_same(on_mask(P::masked_dot_full<double>(ctx, ref(M), ref(Ag), ref(bgt), 24, Op::Times, false)), sampled_g,
              "C<M> = A * B, full operands, K = 24 read in pieces");
}

// The columns of a full matrix reduced in place against reference (reduce with GrB_INP0 transposed): several monoids
// and types, shapes of one row, one column and partial column groups, and tall shapes whose rows are cut into chunks
// (the last one shorter); a matrix that is not full is declined.
template <class V>
void check_full_columns(HostContext& ctx, TypeCode code, Op op) {
  const snk::Monoid& mon = *snk::builtin_monoid(op, code);
  const snk::Type* t = mon.type();
  V identity{};
  std::memcpy(&identity, mon.identity.data(), sizeof(V));
  const P::MonoidFn<V> fn{op, identity};
  for (const auto& [r, n] : {std::pair<Index, Index>{70, 45}, {1, 5}, {5, 1}, {40, 33}, {1000, 3}, {1001, 40}}) {
    const Matrix F = full_of(t, r, n, 0, 9);
    snk::Vector want(t, n);
    snk::Descriptor cols;
    cols.transpose_first = true;
    snk::reduce(want, nullptr, nullptr, mon, F, cols);
    const std::string what = mon.name + " " + std::to_string(r) + " x " + std::to_string(n);
    HostBytes got;   // the full result's values
    ASSERT_TRUE(P::reduce_full_columns<V>(ctx, ref(F), fn, got)) << what;
    expect_same(to_matrix(P::full_vector(ctx, n, std::move(got)), t, 1, n), want.as_matrix(), what);
  }
  const Matrix holes = random_matrix(t, 8, 6, 1.0);   // every fourth row empty
  HostBytes none;
  EXPECT_FALSE(P::reduce_full_columns<V>(ctx, ref(holes), fn, none)) << mon.name << ": not full";
}

// The rows of a full matrix reduced in place (each row by several work items, then folded) against reference:
// several monoids and types, rows narrower than the work items, of one column, of a partial last group, long rows; a
// matrix that is not full is declined.
template <class V>
void check_full_rows(HostContext& ctx, TypeCode code, Op op) {
  const snk::Monoid& mon = *snk::builtin_monoid(op, code);
  const snk::Type* t = mon.type();
  V identity{};
  std::memcpy(&identity, mon.identity.data(), sizeof(V));
  const P::MonoidFn<V> fn{op, identity};
  for (const auto& [r, n] : {std::pair<Index, Index>{70, 45}, {1, 5}, {5, 1}, {40, 33}, {3, 1000}, {17, 4096}}) {
    const Matrix F = full_of(t, r, n, 0, 9);
    snk::Vector want(t, r);
    snk::reduce(want, nullptr, nullptr, mon, F);
    const std::string what = mon.name + " " + std::to_string(r) + " x " + std::to_string(n);
    HostBytes got;   // the full result's values
    ASSERT_TRUE(P::reduce_full_rows<V>(ctx, ref(F), fn, got)) << what;
    expect_same(to_matrix(P::full_vector(ctx, r, std::move(got)), t, 1, r), want.as_matrix(), what);
  }
  const Matrix holes = random_matrix(t, 8, 6, 1.0);   // every fourth row empty
  HostBytes none;
  EXPECT_FALSE(P::reduce_full_rows<V>(ctx, ref(holes), fn, none)) << mon.name << ": not full";
}

// The host's scalar reduction folds fixed blocks in order, so the pool's threads and one thread give the same bits
// (a reduction split by threads would round differently). Rows reduce one thread each: the same there too.
TEST_F(PortableKernels, HostReductionsDoNotDependOnTheThreadCount) {
#if defined(KOKKOS_ENABLE_SERIAL)
  const snk::Type* t = &snk::types::FP64;
  // Values of every magnitude from 1e-6 to 1e6, so that a different order of the additions rounds differently.
  const Index rows = 10, cols = 60000;
  std::vector<Index> I, J;
  std::vector<double> X;
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0), exponent(-6.0, 6.0);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) {
      I.push_back(i);
      J.push_back(j);
      X.push_back(mantissa(rng()) * std::pow(10.0, exponent(rng())));
    }
  Matrix A(t, rows, cols);
  A.build(I.data(), J.data(), X.data(), t, I.size(), nullptr);
  ASSERT_GT(A.nvals(), 20 * P::kScalarBlock);
  const P::MonoidFn<double> plus{Op::Plus, 0.0};
  snk::kokkos::HostContext<Kokkos::Serial> one;
  const double pool = P::reduce_scalar<double>(ctx, ref(A), plus), serial = P::reduce_scalar<double>(one, ref(A), plus);
  EXPECT_EQ(std::memcmp(&pool, &serial, sizeof(double)), 0) << pool << " vs " << serial;
  expect_same(to_matrix(P::reduce_rows<double>(ctx, ref(A), plus), t, 1, rows),
              to_matrix(P::reduce_rows<double>(one, ref(A), plus), t, 1, rows), "rows on the pool and on one thread");
#else
  GTEST_SKIP() << "Kokkos built without its Serial space";
#endif
}

// The host's counted transpose on matrices whose width gives it every thread a run, fewer runs, and one run (the
// counters kept near four per entry), and a width past its rule (the sort): each against the reference's transpose.
TEST_F(PortableKernels, HostTransposeByWidth) {
  const snk::Type* t = &snk::types::FP64;
  for (const Index ncols : {Index(300), Index(30000), Index(100000), Index(500000)}) {
    const Matrix A = random_sparse(t, 50, ncols, 10000);
    Matrix want(t, ncols, 50);
    snk::transpose(want, nullptr, nullptr, A);
    expect_same(to_matrix(P::transpose(ctx, ref(A), 8), t, ncols, 50), want,
                "transpose, " + std::to_string(ncols) + " columns");
  }
}

TEST_F(PortableKernels, FullRowsReducedInPlace) {
  check_full_rows<double>(ctx, TypeCode::FP64, Op::Plus);
  check_full_rows<std::int32_t>(ctx, TypeCode::Int32, Op::Min);
  check_full_rows<float>(ctx, TypeCode::FP32, Op::Max);
  check_full_rows<std::uint8_t>(ctx, TypeCode::UInt8, Op::Plus);
}

TEST_F(PortableKernels, FullColumnsReducedInPlace) {
  check_full_columns<double>(ctx, TypeCode::FP64, Op::Plus);
  check_full_columns<std::int32_t>(ctx, TypeCode::Int32, Op::Min);
  check_full_columns<float>(ctx, TypeCode::FP32, Op::Max);
  check_full_columns<std::uint8_t>(ctx, TypeCode::UInt8, Op::Plus);
}

// The dense transpose of a full matrix (by tiles) against reference: values of 1, 2, 4 and 8 bytes, shapes with
// partial tiles at both edges, a single row and a single column.
TEST_F(PortableKernels, DenseTransposeByTiles) {
  for (TypeCode code : {TypeCode::UInt8, TypeCode::Int16, TypeCode::FP32, TypeCode::FP64}) {
    const snk::Type* t = snk::builtin_unary_op(snk::UnaryOpcode::Identity, code)->xtype;
    for (const auto& [r, c] : {std::pair<Index, Index>{70, 45}, {33, 32}, {1, 100}, {100, 1}, {64, 96}}) {
      const Matrix A = full_of(t, r, c, 0, 100);
      Matrix want(t, c, r);
      snk::transpose(want, nullptr, nullptr, A);
      expect_same(to_matrix(P::transpose(ctx, ref(A), t->size), t, c, r), want,
                  t->name + " " + std::to_string(r) + " x " + std::to_string(c));
    }
  }
}

// The tiled masked dot product of full operands against the per-entry one, bit for bit, with each operand read as rows
// and transposed: fractional FP32 values (the order of the sums shows), masks that leave partial tiles at both edges,
// K of one partial chunk and of several chunks, tiles with more entries than a team holds at once (a full mask:
// passes), empty rows, a hypersparse mask, and MINUS flipped; once against reference.
TEST_F(PortableKernels, TiledMaskedDotMatchesPerEntry) {
  const snk::Type* t = &snk::types::FP32;
  auto full_fractions = [&](Index r, Index c) {
    std::uniform_real_distribution<float> v(-1.0f, 1.0f);
    return with_values(t, r, c, every_position(r, c), [&] { return static_cast<double>(v(rng())); });
  };
  struct Case {
    Index rows, cols, k;
    double density;   // of the mask; 1: every position; negative: a hypersparse mask of 300 entries
    Op mul;
    bool flip;
  };
  for (const Case& c : {Case{70, 300, 70, 0.1, Op::Times, false}, Case{33, 129, 20, 0.3, Op::Times, false},
                        Case{40, 140, 65, 1.0, Op::Times, false}, Case{45, 200, 33, 0.2, Op::Minus, true},
                        Case{5000, 150, 40, -1, Op::Times, false}}) {
    const std::string what = std::to_string(c.rows) + " x " + std::to_string(c.cols) + ", K " + std::to_string(c.k) +
                             ", mask density " + std::to_string(c.density);
    const Matrix M = c.density < 0 ? random_sparse(t, c.rows, c.cols, 300) : random_matrix(t, c.rows, c.cols, c.density);
    const Matrix A = full_fractions(c.rows, c.k), Bt = full_fractions(c.cols, c.k);
    ASSERT_GT(M.nvals(), Index(0)) << what;
    const HostBytes per_entry = P::masked_dot_full<float>(ctx, ref(M), ref(A), ref(Bt), c.k, c.mul, c.flip);
    // The operands as rows (A and B^T row-major), and transposed (A^T and B row-major, read through their strides).
    Matrix At(t, c.k, c.rows), B(t, c.k, c.cols);
    snk::transpose(At, nullptr, nullptr, A);
    snk::transpose(B, nullptr, nullptr, Bt);
    const auto K = static_cast<std::int64_t>(c.k), rows = static_cast<std::int64_t>(c.rows),
               cols = static_cast<std::int64_t>(c.cols);
    const P::DenseOperand<float> a_rows{ref(A).values<float>(), K, 1}, a_cols{ref(At).values<float>(), 1, rows},
        b_rows{ref(Bt).values<float>(), K, 1}, b_cols{ref(B).values<float>(), 1, cols};
    for (const auto& [a, b, how] : {std::tuple{a_rows, b_rows, "A, B^T as rows"}, std::tuple{a_cols, b_rows, "A^T"},
                                    std::tuple{a_rows, b_cols, "B"}, std::tuple{a_cols, b_cols, "A^T and B"}}) {
      const HostBytes tiled = P::masked_dot_full_tiled<float>(ctx, ref(M), a, b, c.k, c.mul, c.flip);
      EXPECT_EQ(std::memcmp(per_entry.get(), tiled.get(), M.nvals() * sizeof(float)), 0) << what << ", " << how;
    }
    if (c.rows == 70) {   // and against reference: C<M> = A * B
      Matrix want(t, c.rows, c.cols);
      snk::Descriptor d;
      d.mask_structure = true;
      snk::mxm(want, &M, nullptr, *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32), A, B, d);
      P::CsrParts<HostBytes> parts = P::copy_pattern(ctx, ref(M), 0);
      parts.x = P::masked_dot_full_tiled<float>(ctx, ref(M), a_cols, b_cols, c.k, c.mul, c.flip);
      const Matrix got = to_matrix(parts, t, c.rows, c.cols);
      std::vector<double> gx(got.nvals()), wx(want.nvals());
      ASSERT_EQ(got.nvals(), want.nvals());
      got.extract_tuples(nullptr, nullptr, gx.data(), &snk::types::FP64);
      want.extract_tuples(nullptr, nullptr, wx.data(), &snk::types::FP64);
      for (std::size_t q = 0; q < gx.size(); ++q) EXPECT_NEAR(gx[q], wx[q], 1e-4) << what << ", entry " << q;
    }
  }
  // The rule: tiles pay where they hold more entries than they stage rows, and K fills a chunk.
  EXPECT_TRUE(P::masked_dot_tiles_pay(235930, 3072, 768, 4096));    // a 90%-sparse layer's dW at 4096 tokens
  EXPECT_FALSE(P::masked_dot_tiles_pay(23593, 3072, 768, 4096));    // 99% sparse
  EXPECT_FALSE(P::masked_dot_tiles_pay(235930, 3072, 768, 16));     // K below one chunk
  EXPECT_TRUE((P::masked_dot_tiles_fit<float, HostContext>()));   // FP32 (the layers) fits level-0 scratch
}

// The dense row accumulator against the expansion and against reference: several types and semirings (a multiply
// that is not commutative, flipped), rows of A that are empty, a hypersparse A, and fractional FP32 values, whose
// sums show the order of reduction: the two kernels must agree bit for bit.
TEST_F(PortableKernels, DenseRowAccumulatorMatchesExpansion) {
  struct Case {
    TypeCode code;
    Op add, mul;
    bool flip;
  };
  for (const Case& c : {Case{TypeCode::FP64, Op::Plus, Op::Times, false}, Case{TypeCode::FP32, Op::Min, Op::Plus, false},
                        Case{TypeCode::Int32, Op::Max, Op::Minus, true}, Case{TypeCode::UInt8, Op::Plus, Op::Times, false},
                        Case{TypeCode::Bool, Op::LOr, Op::LAnd, false}}) {
    const snk::Type* t = snk::builtin_unary_op(snk::UnaryOpcode::Identity, c.code)->xtype;
    const snk::Semiring sr{snk::builtin_monoid(c.add, c.code), snk::builtin_binary_op(c.mul, c.code), "case"};
    for (bool hyper : {false, true}) {
      const Matrix A = hyper ? random_sparse(t, 5000, 23, 60) : random_matrix(t, 37, 23, 0.3);
      const Matrix B = random_matrix(t, 23, 29, 0.35);
      const std::string at = t->name + (hyper ? " hypersparse A" : " A with empty rows");
      // Reference: C = A * B, or with flip, C = (B^T * A^T)^T under the flipped multiply's reading f(b, a).
      Matrix want(t, A.nrows(), 29);
      if (!c.flip) {
        snk::mxm(want, nullptr, nullptr, sr, A, B);
      } else {
        Matrix at_(t, 23, A.nrows()), bt(t, 29, 23), wt(t, 29, A.nrows());
        snk::transpose(at_, nullptr, nullptr, A);
        snk::transpose(bt, nullptr, nullptr, B);
        snk::mxm(wt, nullptr, nullptr, sr, bt, at_);
        snk::transpose(want, nullptr, nullptr, wt);
      }
      snk::kokkos::with_type(c.code, [&](auto tt) {
        using V = typename decltype(tt)::type;
        const P::MonoidFn<V> add{c.add, V()};   // the identity is not read: flags mark present entries
        EXPECT_TRUE((P::dense_rows_fit<V, HostContext>(29))) << at;
        expect_same(to_matrix(P::dense_rows_spgemm<V>(ctx, ref(A), ref(B), add, c.mul, c.flip), t, A.nrows(), 29), want,
                    "dense rows " + at);
        return true;
      });
    }
  }
  // Fractional FP32 values: bit for bit the expansion's sums, from the dense row accumulator and from Gustavson's rows
  // (spgemm's host shape), with B narrow enough for the host's dense accumulator and, its columns spread over 8.2
  // million (past kHostDenseColumns), wide enough for the per-row sort.
  const snk::Type* f = &snk::types::FP32;
  const Matrix A = snk_test::fractional_fp32(64, 300, 0.5, rng());
  const Matrix B = snk_test::fractional_fp32(300, 1000, 0.1, rng());
  const P::MonoidFn<float> plus{Op::Plus, 0.0f};
  const auto bits_equal = [&](P::CsrParts<HostBytes> got, P::CsrParts<HostBytes> want, Index ncols, const char* what) {
    ASSERT_EQ(got.nvals, want.nvals) << what;
    ASSERT_GT(want.nvals, Index(0)) << what;
    const Matrix mg = to_matrix(std::move(got), f, 64, ncols), mw = to_matrix(std::move(want), f, 64, ncols);
    const Index n = mw.nvals();
    std::vector<Index> gi(n), gj(n), wi(n), wj(n);
    std::vector<float> gx(n), wx(n);
    mg.extract_tuples(gi.data(), gj.data(), gx.data(), f);
    mw.extract_tuples(wi.data(), wj.data(), wx.data(), f);
    EXPECT_EQ(gi, wi) << what;
    EXPECT_EQ(gj, wj) << what;
    EXPECT_EQ(0, std::memcmp(gx.data(), wx.data(), n * sizeof(float))) << what << ": FP32 sums differ from the expansion's";
  };
  bits_equal(P::dense_rows_spgemm<float>(ctx, ref(A), ref(B), plus, Op::Times, false),
             P::expand_sort_compress<float>(ctx, ref(A), ref(B), plus, Op::Times, false), 1000, "dense rows");
  bits_equal(P::spgemm<float>(ctx, ref(A), ref(B), plus, Op::Times, false),
             P::expand_sort_compress<float>(ctx, ref(A), ref(B), plus, Op::Times, false), 1000,
             "Gustavson's rows, dense accumulator");
  constexpr Index kSpread = 8191, wide = 1000 * kSpread;
  static_assert(wide > P::kHostDenseColumns);
  Matrix bw(f, 300, wide);
  {
    const Index n = B.nvals();
    std::vector<Index> bi(n), bj(n);
    std::vector<float> bx(n);
    B.extract_tuples(bi.data(), bj.data(), bx.data(), f);
    for (Index& j : bj) j *= kSpread;
    bw.build(bi.data(), bj.data(), bx.data(), f, n, nullptr);
  }
  bits_equal(P::spgemm<float>(ctx, ref(A), ref(bw), plus, Op::Times, false),
             P::expand_sort_compress<float>(ctx, ref(A), ref(bw), plus, Op::Times, false), wide,
             "Gustavson's rows, sorted");
}

// A product over A's non-empty rows made dense (products.hpp: nonempty_rank, dense_nonempty_rows,
// compact_dense_product; the cuda backend's SpMM family does the dense product, a host loop here): the pattern and
// values of A * B, with A sparse (counts needed) and with A's non-empty rows full (no counts), plain and hypersparse;
// all_finite on finite values and on an infinity and a NaN.
TEST_F(PortableKernels, ProductOverDenseRowsOfA) {
  const snk::Type* t = &snk::types::FP64;
  const snk::Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP64);
  // B: about a third of its positions, and at least one entry in every column, so that full rows of A exercise
  // the null count (a random B of this size leaves some column empty about once in 700 draws).
  const Matrix B = [&] {
    std::vector<std::pair<Index, Index>> at;
    std::bernoulli_distribution on(0.35);
    for (Index i = 0; i < 23; ++i)
      for (Index j = 0; j < 29; ++j)
        if (on(rng()) || i == j % 23) at.push_back({i, j});
    return with_entries(t, 23, 29, at, -3, 3);
  }();
  const auto full_rows = [&](Index nrows) {   // every fourth row empty, the others full
    std::vector<std::pair<Index, Index>> at;
    for (Index i = 0; i < nrows; ++i)
      for (Index j = 0; j < 23 && i % 4 != 1; ++j) at.push_back({i, j});
    return with_entries(t, nrows, 23, at, -3, 3);
  };
  for (int variant = 0; variant < 3; ++variant) {
    const Matrix A = variant == 0 ? random_matrix(t, 37, 23, 0.4) : variant == 1 ? random_sparse(t, 5000, 23, 60)
                                                                                  : full_rows(41);
    const std::string what = variant == 0 ? "A with empty rows" : variant == 1 ? "hypersparse A" : "full rows of A";
    Matrix want(t, A.nrows(), 29);
    snk::mxm(want, nullptr, nullptr, pt, A, B);
    const snk::kokkos::CsrRef a = ref(A);
    std::vector<Index> rank(a.nslots + 1);
    const Index k = P::nonempty_rank(ctx, a, rank.data());
    const bool every_row_full = A.nvals() == k * A.ncols();
    EXPECT_EQ(every_row_full, variant == 2) << what;
    std::vector<double> x(k * 23), ones(k * 23);
    std::vector<Index> rows(k);
    P::dense_nonempty_rows<double>(ctx, a, rank.data(), k, x.data(), every_row_full ? nullptr : ones.data(),
                                   rows.data());
    // The dense product, and the terms' count per position, on the host.
    std::vector<double> Bd(23 * 29, 0.0), Bo(23 * 29, 0.0);
    {
      std::vector<Index> bi(B.nvals()), bj(B.nvals());
      std::vector<double> bx(B.nvals());
      B.extract_tuples(bi.data(), bj.data(), bx.data(), t);
      for (std::size_t e = 0; e < bx.size(); ++e) {
        Bd[bi[e] * 29 + bj[e]] = bx[e];
        Bo[bi[e] * 29 + bj[e]] = 1.0;
      }
    }
    std::vector<double> z(k * 29, 0.0), count(k * 29, 0.0);
    for (Index r = 0; r < k; ++r)
      for (Index q = 0; q < 23; ++q)
        for (Index c = 0; c < 29; ++c) {
          z[r * 29 + c] += x[r * 23 + q] * Bd[q * 29 + c];
          if (!every_row_full) count[r * 29 + c] += ones[r * 23 + q] * Bo[q * 29 + c];
        }
    // Full rows of A meet every column of B that holds an entry: the count is only needed where one is empty.
    std::vector<double> full_count(k * 29, 0.0);
    for (Index r = 0; r < k; ++r)
      for (Index c = 0; c < 29; ++c)
        for (Index q = 0; q < 23; ++q) full_count[r * 29 + c] += Bo[q * 29 + c];
    const bool b_columns_hold_entries = std::all_of(full_count.begin(), full_count.begin() + 29, [](double n) { return n > 0; });
    const double* counts = every_row_full ? (b_columns_hold_entries ? nullptr : full_count.data()) : count.data();
    if (variant == 2 && k > 0) EXPECT_TRUE(b_columns_hold_entries) << "the null count (every position) is not exercised";
    expect_same(to_matrix(P::compact_dense_product<double>(ctx, rows.data(), k, 29, z.data(), counts), t, A.nrows(), 29),
                want, "product over dense rows: " + what);
  }
  std::vector<float> v = {1.0f, -2.5f, 0.0f, 3e38f};
  EXPECT_TRUE(P::all_finite<float>(ctx, v.data(), Index(v.size())));
  v.push_back(std::numeric_limits<float>::infinity());
  EXPECT_FALSE(P::all_finite<float>(ctx, v.data(), Index(v.size())));
  v.back() = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(P::all_finite<float>(ctx, v.data(), Index(v.size())));
}

TEST_F(PortableKernels, MaskStep) {
  const snk::Type* t = &snk::types::FP64;
  for (int round = 0; round < 4; ++round) {
    const bool complement = round & 1, replace = round & 2;
    const Matrix C0 = random_matrix(t, 33, 27, 0.3), T = random_matrix(t, 33, 27, 0.3),
                 M = random_matrix(&snk::types::Int32, 33, 27, 0.5);
    // The mask's value test: nonzero Int32 values.
    std::vector<std::uint8_t> mask_true(M.nvals());
    std::vector<std::int32_t> mv(M.nvals());
    M.extract_tuples(nullptr, nullptr, mv.data(), &snk::types::Int32);
    for (Index e = 0; e < M.nvals(); ++e) mask_true[e] = mv[e] != 0;
    Matrix want = C0;
    snk::core::apply_mask_accum(want, &M, false, complement, snk::builtin_binary_op(Op::Plus, TypeCode::FP64), Matrix(T),
                                replace);
    const Matrix got = to_matrix(P::mask_accum<double>(ctx, ref(C0), ref(T), true, ref(M), mask_true.data(), complement,
                                                       true, Op::Plus, replace),
                                 t, 33, 27);
    expect_same(got, want, std::string("C<") + (complement ? "!" : "") + "M" + (replace ? ",replace" : "") + "> += T");
  }
}

TEST_F(PortableKernels, ExtractAssignAndHypersparseUnion) {
  const snk::Type* t = &snk::types::FP64;
  const snk::BinaryOp& plus = *snk::builtin_binary_op(Op::Plus, TypeCode::FP64);
  const Matrix A = random_matrix(t, 40, 30, 0.3);
  // Extract: rows with repeats, columns unsorted with repeats, increasing, and every one.
  const std::vector<Index> I = random_list(17, 40), J = random_list(12, 30);
  std::vector<Index> Jinc = random_list(12, 30);
  std::sort(Jinc.begin(), Jinc.end());
  Jinc.erase(std::unique(Jinc.begin(), Jinc.end()), Jinc.end());
  for (int form = 0; form < 3; ++form) {
    const std::vector<Index>& cols = form == 1 ? Jinc : J;
    const bool all_cols = form == 2;
    const Index nj = all_cols ? 30 : static_cast<Index>(cols.size());
    Matrix want(t, 17, nj);
    snk::extract(want, nullptr, nullptr, A, I.data(), 17, all_cols ? nullptr : cols.data(), nj);
    expect_same(to_matrix(P::extract(ctx, ref(A), I.data(), 17, false, cols.data(), nj, all_cols, form != 0, 8), t, 17,
                          nj),
                want, "extract, column form " + std::to_string(form));
  }
  // Assign: C(I, J) = S and C(I, J) += S, with repeated and unsorted indices (the last one wins), and with J increasing.
  const Matrix C = random_matrix(t, 40, 30, 0.3);
  for (int form = 0; form < 4; ++form) {
    const bool accum = form & 1, increasing = form & 2;
    const std::vector<Index>& cols = increasing ? Jinc : J;
    const Index nj = static_cast<Index>(cols.size());
    const Matrix S = random_matrix(t, 17, nj, 0.5);
    Matrix want = C;
    snk::assign(want, nullptr, accum ? &plus : nullptr, S, I.data(), 17, cols.data(), nj);
    const P::ResolvedList ri = P::resolve_last_wins(I.data(), 17), rj = P::resolve_last_wins(cols.data(), nj);
    const P::PlacedList rows{false, ri.target.data(), ri.source.data(), ri.size(), ri.keeps_order};
    const P::PlacedList pcols{false, rj.target.data(), rj.source.data(), rj.size(), rj.keeps_order};
    const Matrix placed = to_matrix(P::scatter(ctx, ref(S), 30, rows, pcols, 8), t, 40, 30);
    Matrix got(t, 40, 30);
    if (accum) {
      got = to_matrix(P::ewise_union<double, double>(ctx, ref(C), ref(placed), Op::Plus), t, 40, 30);
    } else {
      const Matrix kept = to_matrix(P::drop_region(ctx, ref(C), rows.target, rows.n, false, pcols.target, pcols.n,
                                                   false, 8),
                                    t, 40, 30);
      got = to_matrix(P::ewise_union<double, double>(ctx, ref(kept), ref(placed), Op::First), t, 40, 30);
    }
    expect_same(got, want, std::string("assign") + (accum ? " with PLUS" : "") + (increasing ? ", J increasing" : ""));
  }
  {   // An empty row list (the region is empty: C unchanged).
    const std::vector<Index> none;
    const P::ResolvedList ri = P::resolve_last_wins(none.data(), 0), rj = P::resolve_last_wins(J.data(), 12);
    const P::PlacedList rows{false, ri.target.data(), ri.source.data(), 0, true};
    const P::PlacedList pcols{false, rj.target.data(), rj.source.data(), rj.size(), rj.keeps_order};
    const Matrix S = random_matrix(t, 0, 12, 0.5);
    const Matrix placed = to_matrix(P::scatter(ctx, ref(S), 30, rows, pcols, 8), t, 40, 30);
    const Matrix kept = to_matrix(P::drop_region(ctx, ref(C), nullptr, 0, false, pcols.target, pcols.n, false, 8), t,
                                  40, 30);
    expect_same(to_matrix(P::ewise_union<double, double>(ctx, ref(kept), ref(placed), Op::First), t, 40, 30), C,
                "assign to an empty row list");
  }
  // eWiseAdd of hypersparse operands (both, and one with a plain operand), with MINUS.
  const Index huge = Index(1) << 40;
  const Matrix H1 = random_sparse(t, huge, 50, 60), H2 = random_sparse(t, huge, 50, 60);
  Matrix want(t, huge, 50);
  const snk::BinaryOp& minus = *snk::builtin_binary_op(Op::Minus, TypeCode::FP64);
  snk::ewise_add(want, nullptr, nullptr, minus, H1, H2);
  ASSERT_TRUE(ref(H1).hyper && ref(H2).hyper);
  expect_same(to_matrix(P::ewise_union<double, double>(ctx, ref(H1), ref(H2), Op::Minus), t, huge, 50), want,
              "eWiseAdd of two hypersparse matrices");
  const Matrix D = random_matrix(t, 3000, 50, 0.01), H3 = random_sparse(t, 3000, 50, 4);
  Matrix want2(t, 3000, 50);
  snk::ewise_add(want2, nullptr, nullptr, minus, H3, D);
  ASSERT_TRUE(ref(H3).hyper && !ref(D).hyper);
  expect_same(to_matrix(P::ewise_union<double, double>(ctx, ref(H3), ref(D), Op::Minus), t, 3000, 50), want2,
              "eWiseAdd of a hypersparse and a plain matrix");
}

TEST_F(PortableKernels, VectorTimesMatrixPulledThroughRows) {
  const snk::Type* t = &snk::types::FP64;
  // PLUS_MINUS: MINUS shows the operand order.
  const auto plus_minus = snk::new_semiring(snk::builtin_monoid(Op::Plus, TypeCode::FP64),
                                            snk::builtin_binary_op(Op::Minus, TypeCode::FP64));
  const snk::Semiring& pt = *plus_minus;
  const P::MonoidFn<double> plus{Op::Plus, 0.0};
  const Matrix A = random_matrix(t, 45, 38, 0.2);
  const snk::Vector u = random_vector(t, 38), w = random_vector(t, 45), m = random_vector(&snk::types::Int32, 45);
  for (int complement = 0; complement < 2; ++complement) {
    snk::Descriptor d;
    d.mask_complement = complement;
    // mxv: y(i) = sum over k of A(i,k) - u(k) (the matrix operand first), over A's rows.
    snk::Vector y(t, 45);
    snk::mxv(y, &m, nullptr, pt, A, u, d);
    std::vector<double> xv(38);
    std::vector<std::uint8_t> xf(38), allow(45), mask_true(m.nvals());
    std::vector<std::int32_t> mv(m.nvals());
    m.as_matrix().extract_tuples(nullptr, nullptr, mv.data(), &snk::types::Int32);
    for (Index e = 0; e < m.nvals(); ++e) mask_true[e] = mv[e] != 0;
    P::densify_vector<double>(ctx, ref(u.as_matrix()), 38, xv.data(), xf.data());
    P::allowed_positions(ctx, ref(m.as_matrix()), mask_true.data(), complement, 45, allow.data());
    Matrix got = to_matrix(P::spmv_rows<double>(ctx, ref(A), xv.data(), xf.data(), allow.data(), plus, Op::Minus, true),
                           t, 1, 45);
    Matrix masked(t, 1, 45);   // the hint only skips rows: the mask itself is the core's step
    snk::core::apply_mask_accum(masked, &m.as_matrix(), false, complement, nullptr, std::move(got), false);
    expect_same(masked, y.as_matrix(), std::string("mxv pulled") + (complement ? ", complemented mask" : ""));
    // vxm: z(j) = sum over k of w(k) - A(k,j) (the vector first), over the rows of A^T.
    snk::Vector z(t, 38);
    snk::vxm(z, nullptr, nullptr, pt, w, A);
    const Matrix at = to_matrix(P::transpose(ctx, ref(A), 8), t, 38, 45);
    std::vector<double> wv(45);
    std::vector<std::uint8_t> wf(45);
    P::densify_vector<double>(ctx, ref(w.as_matrix()), 45, wv.data(), wf.data());
    expect_same(to_matrix(P::spmv_rows<double>(ctx, ref(at), wv.data(), wf.data(), nullptr, plus, Op::Minus, false), t,
                          1, 38),
                z.as_matrix(), "vxm pulled");
  }
  // Rows longer than one piece of the SpMV (a row of 1000 entries, one of 300, an empty one).
  const Matrix L = random_matrix(t, 4, 1000, 0.9);
  const snk::Vector x = random_vector(t, 1000);
  snk::Vector y(t, 4);
  snk::mxv(y, nullptr, nullptr, pt, L, x);
  std::vector<double> lv(1000);
  std::vector<std::uint8_t> lf(1000);
  P::densify_vector<double>(ctx, ref(x.as_matrix()), 1000, lv.data(), lf.data());
  expect_same(to_matrix(P::spmv_rows<double>(ctx, ref(L), lv.data(), lf.data(), nullptr, plus, Op::Minus, true), t, 1,
                        4),
              y.as_matrix(), "mxv with rows of several pieces");
}

// vxm pushed from the vector's entries into a dense accumulator by atomic combines (push_dense): for monoids whose
// result does not depend on order, on every width of the compare-and-swap (bytes share a word with their neighbours),
// with and without the mask hint's allowed columns; the result equals reference's vxm under that mask.
TEST_F(PortableKernels, VectorTimesMatrixPushedIntoDenseAccumulator) {
  EXPECT_TRUE(P::order_free<std::int64_t>(Op::Min));
  EXPECT_TRUE(P::order_free<bool>(Op::Eq));
  EXPECT_FALSE(P::order_free<std::int32_t>(Op::Eq));   // EQ of integers gives a bool: no monoid on the integer
  EXPECT_FALSE(P::order_free<double>(Op::Plus));
  EXPECT_FALSE(P::order_free<float>(Op::Min));
  EXPECT_FALSE(P::order_free<std::int64_t>(Op::First));
  struct Case {
    TypeCode code;
    Op add, mul;
    bool flip;
  };
  for (const Case& c : {Case{TypeCode::Bool, Op::LOr, Op::LAnd, false}, Case{TypeCode::Int64, Op::Min, Op::First, false},
                        Case{TypeCode::Int64, Op::Min, Op::Second, true}, Case{TypeCode::Int32, Op::Plus, Op::Times, false},
                        Case{TypeCode::UInt8, Op::Max, Op::Plus, false}, Case{TypeCode::UInt16, Op::Plus, Op::Minus, true},
                        Case{TypeCode::UInt64, Op::Times, Op::Max, false}}) {
    const snk::Type* t = snk::builtin_unary_op(snk::UnaryOpcode::Identity, c.code)->xtype;
    const auto mul = snk::new_semiring(snk::builtin_monoid(c.add, c.code), snk::builtin_binary_op(c.mul, c.code));
    const snk::Semiring& sr = *mul;
    // 300 x 61 at half density with half of the vector present: about 75 products per column, so combines collide.
    const Matrix A = random_matrix(t, 300, 61, 0.5);
    const snk::Vector w = random_vector(t, 300), m = random_vector(&snk::types::Int32, 61);
    std::vector<std::int32_t> mv(m.nvals());
    m.as_matrix().extract_tuples(nullptr, nullptr, mv.data(), &snk::types::Int32);
    std::vector<std::uint8_t> mask_true(m.nvals()), allow(61);
    for (Index e = 0; e < m.nvals(); ++e) mask_true[e] = mv[e] != 0;
    for (int masked = 0; masked < 3; ++masked) {   // none, the mask's values, their complement
      snk::Descriptor d;
      d.mask_complement = masked == 2;
      snk::Vector z(t, 61);
      // Reference: z = w A with the multiply f(w(k), A(k, j)), or f(A(k, j), w(k)) when flipped (the core's reading
      // of mxv as a vector times A^T): computed as A^T w for the flip.
      if (!c.flip) {
        snk::vxm(z, masked ? &m : nullptr, nullptr, sr, w, A, d);
      } else {
        d.transpose_first = true;
        snk::mxv(z, masked ? &m : nullptr, nullptr, sr, A, w, d);
      }
      if (masked) P::allowed_positions(ctx, ref(m.as_matrix()), mask_true.data(), masked == 2, 61, allow.data());
      snk::kokkos::with_type(c.code, [&](auto tt) {
        using V = typename decltype(tt)::type;
        P::MonoidFn<V> add{c.add, V()};
        std::memcpy(&add.identity, sr.add->identity.data(), sizeof(V));
        EXPECT_TRUE(P::order_free<V>(add.op)) << t->name;
        expect_same(to_matrix(P::push_dense<V>(ctx, ref(w.as_matrix()), ref(A), masked ? allow.data() : nullptr, add,
                                               c.mul, c.flip),
                              t, 1, 61),
                    z.as_matrix(), "pushed " + t->name + (masked ? (masked == 2 ? ", complemented mask" : ", mask") : ""));
        return true;
      });
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
