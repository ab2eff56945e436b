// tests/gpu/cuda_backend_test.cpp: the cuda backend through the snack C++ API, against reference.
//
// Every case runs the same GraphBLAS call under snk::BackendScope("cuda") and under "reference" (SuiteSparse) and
// compares the results: patterns exactly, values exactly for integers and BOOL and to a relative 1e-5 (FP32) / 1e-12
// (FP64) for floating point (inputs are multiples of 1/4, so most sums are exact anyway). Covered: mxm with a random
// sparse A (with empty rows) and a full B for every predefined semiring on FP32, FP64, INT32, INT64 and BOOL at batch
// 1, 7 and 64; a larger FP32 PLUS_TIMES product at the batch sizes of each SpMM kernel path; a hypersparse A of 2^40
// rows; B and A transposed by the descriptor (a sparse A^T on A's transposed plan, a full A^T read in place); mxv and
// vxm with a full matrix (the operand flip); semirings built from predefined parts (mirrored MINUS and DIV); mask and
// accumulator; SDDMM (full operands, a sparse mask); more than 65535 columns (several SpMM calls); empty inputs; the
// device-copy cache following changes of A, also where the products bound A's values to the plan (batch 5-8: not at the
// first product, after a loop of them); determinism; select at both lengths of the compaction's scan; the columns of
// tall full matrices reduced in row chunks and the rows of full matrices in place; a full output accumulated with a
// full result; a sparse A of dense enough rows times a sparse B (row blocks pulled through B's columns, and through the
// SpMM family where the inner dimension is too wide); a sparse B of few columns (the dense row accumulator: sums in A's
// row order, bit for bit); a chain of calls that stays on the device; BFS steps pushed from a frontier into a dense
// accumulator; a 2:4 A with the 2:4 hint (the sparse tensor cores), and the hint ignored where A is not 2:4 or the
// semiring is another; device memory exhaustion through the C API; the exchange with a caller's device memory on the
// caller's stream, a batch borrowed from it, and the products written into an output's memory lent for results (not
// where an accumulator reads it or an input lies in it); uploads larger than the staging threshold, also from page-locked
// arrays (SNK_PAGE_LOCKED). These must not fall back (fallback_counts("cuda")["mxm"] unchanged), nor must sparse B and
// INT8 (the portable products); a user-defined operator must fall back, counted. Everything skips with the reason
// printed where the cuda backend is not usable (no GPU, no driver).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../common/fractional_matrix.hpp"
#include "GraphBLAS.h"
#include "core/internal.hpp"
#include "snack/snack.hpp"

namespace {

using snk::Index;
using snk::Matrix;
using snk::Semiring;
using snk::Type;
using snk::TypeCode;
using snk::Vector;
using Op = snk::BinaryOpcode;

bool cuda_usable() {
  for (const std::string& b : snk::available_backends())
    if (b == "cuda") return true;
  return false;
}

// The registry's reason when the cuda backend is not usable (its plugin missing, or no GPU).
std::string why_no_cuda() {
  const auto missing = snk::unavailable_backends();
  const auto it = missing.find("cuda");
  return it == missing.end() ? "the library was built without the cuda backend" : "cuda backend off: " + it->second;
}

#define REQUIRE_CUDA()                                   \
  do {                                                   \
    if (!cuda_usable()) GTEST_SKIP() << why_no_cuda();   \
  } while (0)

std::mt19937_64& rng() {
  static std::mt19937_64 g(20240601);
  return g;
}

// Values: multiples of 1/4 in [-3, 3] for floating point, integers in [-3, 3], 0/1 for BOOL.
double draw(TypeCode code) {
  std::uniform_int_distribution<int> d(-12, 12);
  if (code == TypeCode::Bool) return d(rng()) > 0 ? 1.0 : 0.0;
  double v = d(rng()) / 4.0;
  if (code != TypeCode::FP32 && code != TypeCode::FP64) v = std::round(v);
  return v;
}

// An nrows x ncols matrix with an entry, a draw(), at each position (i, j) of the listed rows (increasing) where
// at(i, j) holds (asked in row-major order).
template <class Rows, class At>
Matrix built_over_rows(const Type* type, Index nrows, const Rows& rows, Index ncols, At at) {
  std::vector<Index> I, J;
  std::vector<double> X;
  for (const Index i : rows)
    for (Index j = 0; j < ncols; ++j)
      if (at(i, j)) {
        I.push_back(i);
        J.push_back(j);
        X.push_back(draw(type->code));
      }
  Matrix A(type, nrows, ncols);
  A.build(I.data(), J.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return A;
}

// The same over every row.
template <class At>
Matrix built_where(const Type* type, Index nrows, Index ncols, At at) {
  std::vector<Index> rows(nrows);
  for (Index i = 0; i < nrows; ++i) rows[i] = i;
  return built_over_rows(type, nrows, rows, ncols, at);
}

// A matrix of 2^40 rows, `rows` of them picked at random, with an entry, a draw(), at each column j of a picked row
// where at(j) holds (asked in increasing order).
template <class At>
Matrix hypersparse_where(const Type* type, std::size_t rows, Index ncols, At at) {
  const Index nrows = Index(1) << 40;
  std::uniform_int_distribution<Index> pick_row(0, nrows - 1);
  std::set<Index> picked;
  while (picked.size() < rows) picked.insert(pick_row(rng()));
  return built_over_rows(type, nrows, picked, ncols, [&](Index, Index j) { return at(j); });
}

// A random nrows x ncols matrix with about density * nrows * ncols entries; with empty_rows, one row in
// four is left empty (as is every row when the draw puts nothing there).
Matrix random_matrix(const Type* type, Index nrows, Index ncols, double density, bool empty_rows) {
  std::bernoulli_distribution on(density);
  return built_where(type, nrows, ncols, [&](Index i, Index) { return !(empty_rows && i % 4 == 3) && on(rng()); });
}

Matrix sparse_with_empty_rows(const Type* type, Index nrows, Index ncols, double density) {
  return random_matrix(type, nrows, ncols, density, true);
}

Matrix full(const Type* type, Index nrows, Index ncols) { return random_matrix(type, nrows, ncols, 1.0, false); }

Vector sparse_vector(const Type* type, Index n, double density) {
  Vector v(type, n);
  std::vector<Index> I;
  std::vector<double> X;
  std::bernoulli_distribution on(density);
  for (Index i = 0; i < n; ++i)
    if (on(rng())) {
      I.push_back(i);
      X.push_back(draw(type->code));
    }
  v.build(I.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return v;
}

std::uint64_t mxm_fallbacks() {
  const auto counts = snk::fallback_counts("cuda");
  const auto it = counts.find("mxm");
  return it == counts.end() ? 0 : it->second;
}

bool close(double a, double b, TypeCode code) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (code != TypeCode::FP32 && code != TypeCode::FP64) return false;
  const double tol = code == TypeCode::FP32 ? 1e-5 : 1e-12;
  return std::fabs(a - b) <= tol * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
}

// Same dimensions, same pattern, and accepts(got's value, want's value) at every entry; `what` names the case in
// failure messages (the first five values rejected).
template <class Accepts>
void expect_entries(const Matrix& got, const Matrix& want, const std::string& what, Accepts accepts) {
  ASSERT_EQ(got.nrows(), want.nrows()) << what;
  ASSERT_EQ(got.ncols(), want.ncols()) << what;
  ASSERT_EQ(got.nvals(), want.nvals()) << what;
  const Index n = got.nvals();
  std::vector<Index> gi(n), gj(n), wi(n), wj(n);
  std::vector<double> gx(n), wx(n);
  got.extract_tuples(gi.data(), gj.data(), gx.data(), &snk::types::FP64);
  want.extract_tuples(wi.data(), wj.data(), wx.data(), &snk::types::FP64);
  int reported = 0;
  for (Index k = 0; k < n && reported < 5; ++k) {
    if (gi[k] != wi[k] || gj[k] != wj[k]) {
      ADD_FAILURE() << what << ": pattern differs at entry " << k << ": (" << gi[k] << "," << gj[k]
                    << ") vs reference (" << wi[k] << "," << wj[k] << ")";
      return;
    }
    if (!accepts(gx[k], wx[k])) {
      ADD_FAILURE() << what << ": value at (" << gi[k] << "," << gj[k] << ") is " << gx[k] << ", reference "
                    << wx[k];
      ++reported;
    }
  }
}

// Same dimensions, same pattern, values close.
void expect_same(const Matrix& got, const Matrix& want, const std::string& what) {
  const TypeCode code = want.type()->code;
  expect_entries(got, want, what, [code](double g, double w) { return close(g, w, code); });
}

// C = A (+).(x) B (optionally masked / accumulated into a copy of C0) on `backend`.
Matrix mxm_on(const std::string& backend, const Semiring& s, const Matrix& A, const Matrix& B,
              const snk::Descriptor& d = {}, const Matrix* mask = nullptr, const snk::BinaryOp* accum = nullptr,
              const Matrix* C0 = nullptr) {
  snk::BackendScope scope(backend);
  Matrix C = C0 != nullptr ? *C0 : Matrix(s.add->type(), d.transpose_first ? A.ncols() : A.nrows(),
                                          d.transpose_second ? B.nrows() : B.ncols());
  snk::mxm(C, mask, accum, s, A, B, d);
  C.wait();
  return C;
}

// mxm on cuda and on reference, compared; the cuda call must not fall back.
void check_mxm(const Semiring& s, const Matrix& A, const Matrix& B, const std::string& what,
               const snk::Descriptor& d = {}) {
  const std::uint64_t before = mxm_fallbacks();
  const Matrix got = mxm_on("cuda", s, A, B, d);
  EXPECT_EQ(mxm_fallbacks(), before) << what << ": the cuda backend declined";
  const Matrix want = mxm_on("reference", s, A, B, d);
  expect_same(got, want, what);
}

std::string describe(const Semiring& s, Index batch) { return s.name + " batch " + std::to_string(batch); }

TEST(CudaBackend, EveryPredefinedSemiringWithFullB) {
  REQUIRE_CUDA();
  int cases = 0;
  for (TypeCode code : {TypeCode::FP32, TypeCode::FP64, TypeCode::Int32, TypeCode::Int64, TypeCode::Bool}) {
    const Type* type = snk::builtin_type(code);
    // One A per type, reused by every semiring and batch: also exercises the cached plan.
    const Matrix A = sparse_with_empty_rows(type, 97, 61, 0.15);
    for (Index batch : {1, 7, 64}) {
      const Matrix B = full(type, 61, batch);
      for (const Semiring* s : snk::all_builtin_semirings()) {
        if (s->add->type() != type) continue;
        check_mxm(*s, A, B, describe(*s, batch));
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 3 * (4 * 12 + 4));
  std::printf("cuda backend: %d semiring x type x batch cases compared with reference\n", cases);
}

TEST(CudaBackend, LargerPlusTimesFp32AtEveryKernelPath) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  const Matrix A = sparse_with_empty_rows(&snk::types::FP32, 3000, 2000, 0.02);
  for (Index batch : {1, 3, 7, 32, 64, 200}) check_mxm(s, A, full(&snk::types::FP32, 2000, batch), describe(s, batch));
}

TEST(CudaBackend, OtherTypesTheLibraryRuns) {
  REQUIRE_CUDA();
  for (TypeCode code : {TypeCode::UInt32, TypeCode::UInt64}) {
    const Type* type = snk::builtin_type(code);
    const Matrix A = sparse_with_empty_rows(type, 50, 40, 0.2);
    const Matrix B = full(type, 40, 9);
    for (const Semiring* s : snk::all_builtin_semirings())
      if (s->add->type() == type) check_mxm(*s, A, B, describe(*s, 9));
  }
}

TEST(CudaBackend, HypersparseA) {
  REQUIRE_CUDA();
  const Index rows = Index(1) << 40;
  Matrix A(&snk::types::FP64, rows, 50);
  std::vector<Index> I, J;
  std::vector<double> X;
  std::uniform_int_distribution<Index> pick_row(0, rows - 1), pick_col(0, 49);
  std::set<std::pair<Index, Index>> at;
  while (at.size() < 40) at.insert({pick_row(rng()), pick_col(rng())});
  for (const auto& e : at) {
    I.push_back(e.first);
    J.push_back(e.second);
    X.push_back(draw(TypeCode::FP64));
  }
  A.build(I.data(), J.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  const Matrix B = full(&snk::types::FP64, 50, 7);
  check_mxm(*snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP64), A, B, "hypersparse PLUS_TIMES");
  check_mxm(*snk::builtin_semiring(Op::Min, Op::Plus, TypeCode::FP64), A, B, "hypersparse MIN_PLUS");
}

TEST(CudaBackend, TransposedOperands) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Max, Op::First, TypeCode::Int32);
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  snk::Descriptor tb;
  tb.transpose_second = true;
  // B' = B^T with B full: read in place as a column-major operand.
  check_mxm(s, sparse_with_empty_rows(&snk::types::Int32, 80, 30, 0.2), full(&snk::types::Int32, 11, 30),
            "MAX_FIRST, B transposed", tb);
  check_mxm(pt, sparse_with_empty_rows(&snk::types::FP32, 80, 30, 0.2), full(&snk::types::FP32, 64, 30),
            "PLUS_TIMES, B transposed", tb);
  // A' = A^T with an empty row or column in A: the kernel declines it, the core transposes A and the mxm itself still
  // runs on cuda.
  snk::Descriptor ta;
  ta.transpose_first = true;
  check_mxm(pt, sparse_with_empty_rows(&snk::types::FP32, 30, 80, 0.2), full(&snk::types::FP32, 30, 7),
            "PLUS_TIMES, A transposed", ta);
}

// A sparse matrix with an entry in every row and every column (the products of its transpose are then full).
Matrix covering(const Type* type, Index nrows, Index ncols, double density) {
  return built_where(type, nrows, ncols, [&](Index i, Index j) {
    return j == i % ncols || i == j % nrows || std::uniform_real_distribution<double>(0, 1)(rng()) < density;
  });
}

// A sparse W transposed, W^T B' (the library's W^T X orientation on W's own transposed plan), and a full X
// transposed, X^T W' (X's columns read as the batch's rows), each with the other operand both ways (B' = B or B^T,
// W' = W or W^T), for every predefined FP64 semiring (the multiply's operand order included: FIRST, SECOND, MINUS,
// DIV) and PLUS_TIMES on FP32 at the batch sizes of the kernel paths; against reference, with no fallback (the layers'
// products on activations held features by batch).
TEST(CudaBackend, TransposedOperandsReadWhereTheyLie) {
  REQUIRE_CUDA();
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  int cases = 0;
  for (bool other : {false, true}) {
    snk::Descriptor d;
    d.transpose_first = true;
    d.transpose_second = other;
    const std::string how = other ? ", both transposed" : "";
    for (Index batch : {1, 7, 64}) {
      const Matrix W = covering(&snk::types::FP64, 40, 70, 0.1);
      const Matrix B = other ? full(&snk::types::FP64, batch, 40) : full(&snk::types::FP64, 40, batch);
      const Matrix X = full(&snk::types::FP64, 40, batch);   // X^T: batch x 40
      const Matrix V = covering(&snk::types::FP64, other ? 30 : 40, other ? 40 : 30, 0.1);
      for (const Semiring* s : snk::all_builtin_semirings()) {
        if (s->add->type() != &snk::types::FP64) continue;
        const std::string what = s->name + " batch " + std::to_string(batch) + how;
        check_mxm(*s, W, B, "W^T B', " + what, d);
        check_mxm(*s, X, V, "X^T W', " + what, d);
        cases += 2;
      }
    }
    for (Index batch : {1, 5, 8, 32, 100}) {
      const Matrix W = covering(&snk::types::FP32, 300, 500, 0.03);
      const Matrix B = other ? full(&snk::types::FP32, batch, 300) : full(&snk::types::FP32, 300, batch);
      const std::string what = "PLUS_TIMES batch " + std::to_string(batch) + how;
      check_mxm(pt, W, B, "W^T B', " + what, d);
      EXPECT_NE(W.device_copy()->describe().find("transposed plan"), std::string::npos)
          << what << ": W^T B' ran on a transposed copy of W, not on W's transposed plan: "
          << W.device_copy()->describe();
      const Matrix X = full(&snk::types::FP32, 500, batch);
      check_mxm(pt, X, other ? W : covering(&snk::types::FP32, 500, 300, 0.03), "X^T W', " + what, d);
      cases += 2;
    }
  }
  EXPECT_EQ(cases, 2 * (3 * 2 * 12 + 5 * 2));
}

TEST(CudaBackend, MxvAndVxmWithAFullMatrix) {
  REQUIRE_CUDA();
  const std::uint64_t before = mxm_fallbacks();
  // mxv(w, M, u) with M full and u sparse: the kernel sees A = u, B = M transposed, operands flipped.
  std::vector<std::unique_ptr<Semiring>> built;
  std::vector<const Semiring*> semirings = {snk::builtin_semiring(Op::Min, Op::First, TypeCode::FP64),
                                            snk::builtin_semiring(Op::Max, Op::Second, TypeCode::Int32),
                                            snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32),
                                            snk::builtin_semiring(Op::LOr, Op::LAnd, TypeCode::Bool)};
  for (TypeCode code : {TypeCode::FP64, TypeCode::Int32}) {
    // Predefined monoid and multiplier, put together by the user: the asymmetric ones must be mirrored.
    for (Op mul : {Op::Minus, Op::Div, Op::First, Op::Second}) {
      built.push_back(snk::new_semiring(snk::builtin_monoid(Op::Plus, code), snk::builtin_binary_op(mul, code)));
      semirings.push_back(built.back().get());
    }
  }
  for (const Semiring* s : semirings) {
    const Type* type = s->add->type();
    const Matrix M = full(type, 40, 60);
    const Vector u = sparse_vector(type, 60, 0.3);
    const Vector x = sparse_vector(type, 40, 0.3);
    Vector w_cuda(type, 40), w_ref(type, 40), v_cuda(type, 60), v_ref(type, 60);
    {
      snk::BackendScope scope("cuda");
      snk::mxv(w_cuda, nullptr, nullptr, *s, M, u);
      snk::vxm(v_cuda, nullptr, nullptr, *s, x, M);
    }
    {
      snk::BackendScope scope("reference");
      snk::mxv(w_ref, nullptr, nullptr, *s, M, u);
      snk::vxm(v_ref, nullptr, nullptr, *s, x, M);
    }
    expect_same(w_cuda.as_matrix(), w_ref.as_matrix(), "mxv " + s->name);
    expect_same(v_cuda.as_matrix(), v_ref.as_matrix(), "vxm " + s->name);
  }
  EXPECT_EQ(mxm_fallbacks(), before);
}

// A BFS step pushed from a frontier (vxm of a sparse vector, under a complemented structural mask with replace):
// a frontier whose products are many takes the dense accumulator (push_dense, atomics) for the boolean and index
// semirings, and equals reference exactly. Several steps from one source, so the visited set grows.
TEST(CudaBackend, FrontierPushedIntoDenseAccumulator) {
  REQUIRE_CUDA();
  const std::uint64_t before = mxm_fallbacks();
  for (const Semiring* s : {snk::builtin_semiring(Op::LOr, Op::LAnd, TypeCode::Bool),
                            snk::builtin_semiring(Op::Min, Op::First, TypeCode::Int64),
                            snk::builtin_semiring(Op::Max, Op::Second, TypeCode::UInt32),
                            snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::Int32)}) {
    const Type* type = s->add->type();
    const Matrix A = random_matrix(type, 3000, 3000, 0.01, false);
    Vector q = sparse_vector(type, 3000, 0.03);
    Vector visited(type, 3000);
    snk::Descriptor d;
    d.mask_complement = true;
    d.mask_structure = true;
    d.replace = true;
    snk::Descriptor on_q;
    on_q.mask_structure = true;
    for (int step = 0; step < 3 && q.nvals() > 0; ++step) {
      snk::assign(visited, &q, nullptr, q, nullptr, 3000, on_q);
      Vector next_cuda(type, 3000), next_ref(type, 3000);
      {
        snk::BackendScope scope("cuda");
        snk::vxm(next_cuda, &visited, nullptr, *s, q, A, d);
      }
      {
        snk::BackendScope scope("reference");
        snk::vxm(next_ref, &visited, nullptr, *s, q, A, d);
      }
      expect_same(next_cuda.as_matrix(), next_ref.as_matrix(), s->name + " step " + std::to_string(step));
      q = next_ref;
    }
  }
  EXPECT_EQ(mxm_fallbacks(), before);
}

TEST(CudaBackend, MaskAndAccumulator) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP64);
  const Matrix A = sparse_with_empty_rows(&snk::types::FP64, 60, 40, 0.2);
  const Matrix B = full(&snk::types::FP64, 40, 16);
  const Matrix C0 = sparse_with_empty_rows(&snk::types::FP64, 60, 16, 0.3);
  const Matrix M = sparse_with_empty_rows(&snk::types::Bool, 60, 16, 0.5);
  const snk::BinaryOp* plus = snk::builtin_binary_op(Op::Plus, TypeCode::FP64);
  for (bool structural : {false, true})
    for (bool complement : {false, true}) {
      snk::Descriptor d;
      d.mask_structure = structural;
      d.mask_complement = complement;
      const std::uint64_t before = mxm_fallbacks();
      const Matrix got = mxm_on("cuda", s, A, B, d, &M, plus, &C0);
      EXPECT_EQ(mxm_fallbacks(), before);
      const Matrix want = mxm_on("reference", s, A, B, d, &M, plus, &C0);
      expect_same(got, want, std::string("masked, accumulated") + (structural ? ", structural" : "") +
                                 (complement ? ", complemented" : ""));
    }
}

// SDDMM, the sampled product of two full operands on a sparse mask (the sparse layers' weight gradient dW<W> =
// dY^T X): C<M> = A * B, C<M> = A * B^T and C<M> = A^T * B with A and B full, on masks of 2% (the masked dot product
// entry by entry), 5% and 30% of the positions (tile by tile, reading A^T and B in place), at K = 48 and 1500, against
// reference, with no fallback.
TEST(CudaBackend, SampledProductOfFullOperands) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  for (const double density : {0.02, 0.05, 0.3})
    for (const Index K : {48, 1500}) {
      const Matrix M = random_matrix(&snk::types::Bool, 300, 200, density, false);
      const Matrix A = full(&snk::types::FP32, 300, K), At = full(&snk::types::FP32, K, 300);
      const Matrix B = full(&snk::types::FP32, K, 200), Bt = full(&snk::types::FP32, 200, K);
      struct Case {
        const Matrix& a;
        const Matrix& b;
        bool ta, tb;
        const char* what;
      };
      for (const Case& c : {Case{A, B, false, false, "C<M> = A * B"}, Case{A, Bt, false, true, "C<M> = A * B^T"},
                            Case{At, B, true, false, "C<M> = A^T * B"}}) {
        snk::Descriptor d;
        d.mask_structure = true;
        d.transpose_first = c.ta;
        d.transpose_second = c.tb;
        const std::string what = std::string(c.what) + ", mask " + std::to_string(density) + ", K " + std::to_string(K);
        const std::uint64_t before = mxm_fallbacks();
        const Matrix got = mxm_on("cuda", s, c.a, c.b, d, &M);
        EXPECT_EQ(mxm_fallbacks(), before) << what;
        EXPECT_EQ(got.nvals(), M.nvals()) << what;
        expect_same(got, mxm_on("reference", s, c.a, c.b, d, &M), what);
      }
    }
}

// The same where the mask already holds its product plan (a layer's weights, multiplied in the forward pass): the SpMM
// library's sampled product, at K = 1 .. 32 (each of its lane layouts), in slices past it (a last slice shorter than
// the others included), and dense tiles through cuBLAS where K is long and the mask not too sparse (K 1025 and 4100 at
// 10%; 1025 at 2% stays on the sampled kernel: dense_tile_sampled.hpp), each operand transposed or not, against
// reference; then on a mask whose rows are long and cut into several column blocks (K 600: dense tiles of 30000
// columns); then on one of 4500 x 4000 (K 520: two dense tiles, each made row-major or, with both operands transposed,
// column-major); then past the sampled product's largest K (spmm/dispatch.hpp: kSampledMaxK, 65536), where the masked
// dot product serves. One test per mask shape, so that a sanitizer can run each in a process of its own.
struct SampledShape {
  const char* name;
  Index rows, cols;
  double density;
  std::vector<Index> ks;
};
void PrintTo(const SampledShape& shape, std::ostream* os) { *os << shape.name; }
class SampledProductOnAMaskWithItsPlan : public ::testing::TestWithParam<SampledShape> {};

TEST_P(SampledProductOnAMaskWithItsPlan, MatchesReference) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  const SampledShape& shape = GetParam();
  for (const Index K : shape.ks) {
    const Matrix M = random_matrix(&snk::types::FP32, shape.rows, shape.cols, shape.density, false);
    (void)mxm_on("cuda", s, M, full(&snk::types::FP32, shape.cols, 8));   // M's plan, as a layer's forward makes it
    for (const bool ta : {false, true})
      for (const bool tb : {false, true}) {
        const Matrix A = ta ? full(&snk::types::FP32, K, shape.rows) : full(&snk::types::FP32, shape.rows, K);
        const Matrix B = tb ? full(&snk::types::FP32, shape.cols, K) : full(&snk::types::FP32, K, shape.cols);
        snk::Descriptor d;
        d.mask_structure = true;
        d.transpose_first = ta;
        d.transpose_second = tb;
        const std::string what = std::to_string(shape.rows) + " x " + std::to_string(shape.cols) + ", K " +
                                 std::to_string(K) + (ta ? " A^T" : " A") + (tb ? " B^T" : " B");
        const std::uint64_t before = mxm_fallbacks();
        const Matrix got = mxm_on("cuda", s, A, B, d, &M);
        EXPECT_EQ(mxm_fallbacks(), before) << what;
        expect_same(got, mxm_on("reference", s, A, B, d, &M), what);
      }
  }
}

INSTANTIATE_TEST_SUITE_P(
    CudaBackend, SampledProductOnAMaskWithItsPlan,
    ::testing::Values(SampledShape{"Mask300x200Dense10", 300, 200, 0.1, {1, 3, 5, 8, 12, 17, 32, 33, 70, 1025, 4100}},
                      SampledShape{"Mask300x200Dense2", 300, 200, 0.02, {1025}},
                      SampledShape{"LongRows40x30000", 40, 30000, 0.3, {1, 3, 8, 12, 32, 40, 600}},
                      SampledShape{"TwoDenseTiles4500x4000", 4500, 4000, 0.04, {520}},
                      SampledShape{"PastTheLargestK", 20, 30, 0.3, {(Index(1) << 16) + 1}}),
    [](const ::testing::TestParamInfo<SampledShape>& info) { return std::string(info.param.name); });

TEST(CudaBackend, MoreColumnsThanOneSpmmCall) {
  REQUIRE_CUDA();
  const Matrix A = sparse_with_empty_rows(&snk::types::Int64, 20, 10, 0.4);
  const Matrix B = full(&snk::types::Int64, 10, 70001);
  check_mxm(*snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::Int64), A, B, "PLUS_TIMES, 70001 columns");
}

TEST(CudaBackend, EmptyInputs) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  check_mxm(s, Matrix(&snk::types::FP32, 30, 20), full(&snk::types::FP32, 20, 5), "A without entries");
  check_mxm(s, sparse_with_empty_rows(&snk::types::FP32, 30, 20, 0.3), Matrix(&snk::types::FP32, 20, 0),
            "B without columns");
  check_mxm(s, Matrix(&snk::types::FP32, 30, 0), Matrix(&snk::types::FP32, 0, 4), "inner dimension 0");
}

TEST(CudaBackend, DeviceCopyFollowsChangesOfA) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  Matrix A = sparse_with_empty_rows(&snk::types::FP32, 64, 48, 0.2);
  check_mxm(s, A, full(&snk::types::FP32, 48, 8), "first use of A");
  ASSERT_NE(A.device_copy(), nullptr) << "the cuda backend keeps A on the device";
  EXPECT_STREQ(A.device_copy()->backend(), "cuda");
  EXPECT_TRUE(A.host_valid());
  check_mxm(s, A, full(&snk::types::FP32, 48, 8), "A reused (cached plan), new B");
  // A change drops the copy; the next product must see the new A (a new entry in an empty row, a changed
  // value).
  const float v = 2.5f;
  A.set_element(3, 7, &v, &snk::types::FP32);
  A.set_element(0, 0, &v, &snk::types::FP32);
  EXPECT_EQ(A.device_copy(), nullptr);
  check_mxm(s, A, full(&snk::types::FP32, 48, 8), "A changed");
}

// A matrix that is 2:4: each group of four columns of a row holds 0, 1 or 2 entries at random positions (multiples of
// 1/4, exact in FP16 and BF16, so that the 2:4 products equal the reference's exactly); with empty_rows, one row in
// five is empty.
Matrix two_four_matrix(Index nrows, Index ncols, bool empty_rows = true) {
  std::vector<Index> I, J;
  std::vector<double> X;
  std::uniform_int_distribution<int> count(0, 2), pos(0, 3);
  for (Index i = 0; i < nrows; ++i) {
    if (empty_rows && i % 5 == 4) continue;
    for (Index g = 0; g * 4 < ncols; ++g) {
      int first = pos(rng()), second = pos(rng());
      const int n = count(rng());
      for (int e = 0; e < n; ++e) {
        const Index j = g * 4 + (e == 0 ? first : second);
        if (j >= ncols || (e == 1 && second == first)) continue;
        I.push_back(i);
        J.push_back(j);
        X.push_back(draw(TypeCode::FP32));
      }
    }
  }
  Matrix A(&snk::types::FP32, nrows, ncols);
  A.build(I.data(), J.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return A;
}

bool described_as(const Matrix& A, const char* what) {
  return A.device_copy() != nullptr && A.device_copy()->describe().find(what) != std::string::npos;
}

TEST(CudaBackend, TwoFourHintRunsOnTheSparseTensorCores) {
  // With the hint, PLUS_TIMES on FP32 with a full B runs on the sparse tensor cores (A's device copy then holds its
  // 2:4 form) and equals reference (the values are exact in FP16 and BF16); B' = B^T too, batches across the 2:4
  // kernels' tiles, K not a multiple of 32; and X W^T with the hint on W. A matrix that is not 2:4, or another
  // semiring, computes as without it.
  REQUIRE_CUDA();
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  for (Matrix::TwoFourHint hint : {Matrix::TwoFourHint::BF16, Matrix::TwoFourHint::FP16}) {
    const char* form = hint == Matrix::TwoFourHint::BF16 ? "2:4 form (BF16)" : "2:4 form (FP16)";
    Matrix A = two_four_matrix(300, 200);
    A.set_two_four_hint(hint);
    for (Index batch : {1, 37, 64, 200}) {
      check_mxm(pt, A, full(&snk::types::FP32, 200, batch), std::string(form) + " batch " + std::to_string(batch));
      EXPECT_TRUE(described_as(A, form)) << A.device_copy()->describe();
    }
    snk::Descriptor tb;
    tb.transpose_second = true;
    check_mxm(pt, A, full(&snk::types::FP32, 45, 200), std::string(form) + ", B transposed", tb);
    EXPECT_TRUE(described_as(A, form));
    // X W^T, a layer's forward: the hint on W, the second operand, transposed.
    Matrix W = two_four_matrix(72, 200, /*empty_rows=*/false);
    W.set_two_four_hint(hint);
    for (Index batch : {1, 33, 130})
      check_mxm(pt, full(&snk::types::FP32, batch, 200), W,
                std::string(form) + ", X W^T batch " + std::to_string(batch), tb);
    EXPECT_TRUE(described_as(W, form)) << W.device_copy()->describe();
  }
  // Three entries in one group: not 2:4, so the product runs as without the hint (and says so).
  Matrix D = two_four_matrix(64, 96);
  const float v = 1.25f;
  for (Index j : {8, 9, 10}) D.set_element(5, j, &v, &snk::types::FP32);
  D.set_two_four_hint(Matrix::TwoFourHint::BF16);
  check_mxm(pt, D, full(&snk::types::FP32, 96, 16), "not 2:4, hint set");
  EXPECT_TRUE(described_as(D, "not 2:4")) << D.device_copy()->describe();
  EXPECT_FALSE(described_as(D, "2:4 form"));
  // Another semiring ignores the hint.
  Matrix E = two_four_matrix(64, 96);
  E.set_two_four_hint(Matrix::TwoFourHint::BF16);
  check_mxm(*snk::builtin_semiring(Op::Min, Op::Plus, TypeCode::FP32), E, full(&snk::types::FP32, 96, 16),
            "MIN_PLUS, hint set");
  EXPECT_FALSE(described_as(E, "2:4"));
}

// A's pattern (an FP32 matrix) with each value v replaced by f(v).
template <class F>
Matrix with_values_mapped(const Matrix& A, F f) {
  const Index n = A.nvals();
  std::vector<Index> I(n), J(n);
  std::vector<float> X(n);
  A.extract_tuples(I.data(), J.data(), X.data(), &snk::types::FP32);
  for (float& x : X) x = f(x);
  Matrix R(&snk::types::FP32, A.nrows(), A.ncols());
  R.build(I.data(), J.data(), X.data(), &snk::types::FP32, n, nullptr);
  return R;
}

// A's pattern with values drawn uniformly from (-1, 1) in FP32 (draw()'s quarters are exact in BF16).
Matrix with_uneven_values(const Matrix& A) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  return with_values_mapped(A, [&](float) { return u(rng()); });
}

// x rounded to BF16 (nearest even), as FP32.
float bf16_of(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

// A copy of the FP32 matrix A with each value rounded to BF16, still FP32.
Matrix rounded_to_bf16(const Matrix& A) { return with_values_mapped(A, bf16_of); }

// `got` is a product written in BF16: each value is the BF16 rounding of a sum within FP32's tolerance of `want`'s
// (rounding is monotone, so it lies between the roundings of want -/+ the tolerance).
void expect_bf16_of(const Matrix& got, const Matrix& want, const std::string& what) {
  expect_entries(got, want, what + " (BF16 rounding of the reference)", [](double g, double w) {
    const double tol = 1e-5 * std::max(1.0, std::fabs(w));
    return g >= bf16_of(static_cast<float>(w - tol)) && g <= bf16_of(static_cast<float>(w + tol));
  });
}

TEST(CudaBackend, PrecisionHintRoundsBothOperandsToBf16) {
  // With W's precision hint at BF16, W X, X W^T and X W (a layer's forward and dX) are the FP32 sums of the operands
  // rounded to BF16 (the products of two BF16 values are exact in FP32; only the order of the sums differs), written
  // in BF16 (16-bit activations), over batches that take different kernels. Rounding the operands moves most sums by
  // far more than FP32's tolerance. Without the hint, or under another semiring, the product is FP32's.
  REQUIRE_CUDA();
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  Matrix W = with_uneven_values(random_matrix(&snk::types::FP32, 300, 200, 0.08, false));
  W.set_precision_hint(Matrix::PrecisionHint::BF16);
  const Matrix Wr = rounded_to_bf16(W);
  snk::Descriptor tb;
  tb.transpose_second = true;
  for (Index batch : {1, 5, 8, 32, 130}) {
    const std::string b = " batch " + std::to_string(batch);
    const Matrix X = with_uneven_values(full(&snk::types::FP32, 200, batch)),
                 Xt = with_uneven_values(full(&snk::types::FP32, batch, 200)),
                 Y = with_uneven_values(full(&snk::types::FP32, batch, 300));
    const std::uint64_t before = mxm_fallbacks();
    expect_bf16_of(mxm_on("cuda", pt, W, X), mxm_on("reference", pt, Wr, rounded_to_bf16(X)), "W X" + b);
    expect_bf16_of(mxm_on("cuda", pt, Xt, W, tb), mxm_on("reference", pt, rounded_to_bf16(Xt), Wr, tb), "X W^T" + b);
    expect_bf16_of(mxm_on("cuda", pt, Y, W), mxm_on("reference", pt, rounded_to_bf16(Y), Wr), "X W" + b);
    EXPECT_EQ(mxm_fallbacks(), before) << "the cuda backend declined" << b;
  }
  const Matrix X = with_uneven_values(full(&snk::types::FP32, 200, 8));
  const Matrix unrounded = mxm_on("reference", pt, W, X), rounded = mxm_on("reference", pt, Wr, rounded_to_bf16(X));
  std::vector<double> u(unrounded.nvals()), r(rounded.nvals());
  unrounded.extract_tuples(nullptr, nullptr, u.data(), &snk::types::FP64);
  rounded.extract_tuples(nullptr, nullptr, r.data(), &snk::types::FP64);
  int apart = 0;
  for (std::size_t k = 0; k < u.size(); ++k) apart += !close(u[k], r[k], TypeCode::FP32);
  EXPECT_GT(apart, static_cast<int>(u.size()) / 2) << "rounding to BF16 must show in most entries";
  Matrix V = W;   // a copy takes the hint; set back to FP32 it computes in FP32
  V.set_precision_hint(Matrix::PrecisionHint::FP32);
  check_mxm(pt, V, X, "hint FP32");
  check_mxm(*snk::builtin_semiring(Op::Min, Op::Plus, TypeCode::FP32), W, X, "MIN_PLUS, hint BF16");
}

bool values_bound(const Matrix& A) {
  return A.device_copy() != nullptr && A.device_copy()->describe().find("values bound") != std::string::npos;
}

// Runs products A * (a fresh full B of `batch` columns), each checked against the reference, until A's device copy
// has its values bound to the plan (sparse_times_full.cpp binds once the products that ran unbound have taken as long
// as binding is estimated to take); returns how many ran, or 0 where `most` did not bind.
int products_until_bound(const Semiring& s, const Matrix& A, Index batch, int most, const std::string& what) {
  for (int n = 1; n <= most; ++n) {
    check_mxm(s, A, full(&snk::types::FP32, A.ncols(), batch), what + ", product " + std::to_string(n));
    if (::testing::Test::HasFailure()) return 0;
    if (values_bound(A)) return n;
  }
  return 0;
}

TEST(CudaBackend, BoundValuesFollowChangesOfA) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  // 4096 columns at 5% (about 205 entries per row): products at batch 5-8 run faster with A's values bound to the
  // plan (the column-block kernel's held block or the lanes-across-rows kernel, each reading its own order).
  Matrix A = sparse_with_empty_rows(&snk::types::FP32, 3000, 4096, 0.05);
  // A one-off product does not pay for the binding.
  check_mxm(s, A, full(&snk::types::FP32, 4096, 8), "batch 8, first product");
  ASSERT_NE(A.device_copy(), nullptr);
  EXPECT_FALSE(values_bound(A)) << A.device_copy()->describe();
  // A loop of them does, and the results stay right through the binding.
  const int n = products_until_bound(s, A, 8, 2000, "batch 8");
  ASSERT_GT(n, 0) << "2000 products at batch 8 did not bind A's values";
  std::printf("bound after %d products at batch 8 (%lld non-zeros)\n", n + 1, static_cast<long long>(A.nvals()));
  check_mxm(s, A, full(&snk::types::FP32, 4096, 5), "batch 5: the bound values again");
  check_mxm(s, A, full(&snk::types::FP32, 4096, 40), "batch 40: another kernel");
  EXPECT_TRUE(values_bound(A));
  // A change drops the copy with its binding; the next product runs the new values unbound, and later ones bind
  // them.
  const float v = -1.75f;
  A.set_element(5, 9, &v, &snk::types::FP32);
  A.set_element(3, 100, &v, &snk::types::FP32);   // row 3 was empty
  EXPECT_EQ(A.device_copy(), nullptr);
  check_mxm(s, A, full(&snk::types::FP32, 4096, 8), "batch 8 after A changed");
  ASSERT_NE(A.device_copy(), nullptr);
  EXPECT_FALSE(values_bound(A)) << A.device_copy()->describe();
  ASSERT_GT(products_until_bound(s, A, 6, 2000, "batch 6 after A changed"), 0);
  // Batch 1 runs the stream kernel: nothing is bound however many products run.
  Matrix A1 = sparse_with_empty_rows(&snk::types::FP32, 500, 4096, 0.05);
  for (int i = 0; i < 20; ++i) check_mxm(s, A1, full(&snk::types::FP32, 4096, 1), "batch 1");
  ASSERT_NE(A1.device_copy(), nullptr);
  EXPECT_FALSE(values_bound(A1)) << A1.device_copy()->describe();
}

// Values renewed on the same pattern before every product (an optimizer's step, here an apply that keeps the pattern
// and its plan): each set of values serves one product, so Auto never binds, however many products the pattern has
// seen; every product checked against the reference.
TEST(CudaBackend, AutoBindingCountsOneSetOfValues) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  snk::BackendScope scope("cuda");
  Matrix W = sparse_with_empty_rows(&snk::types::FP32, 3000, 4096, 0.05);
  snk::Scalar minus_one(&snk::types::FP32);
  const float m = -1.0f;
  minus_one.set(&m, &snk::types::FP32);
  int bound = 0;
  for (int i = 0; i < 300; ++i) {   // BoundValuesFollowChangesOfA binds one set of these within about 90
    snk::apply_bind_second(W, nullptr, nullptr, *snk::builtin_binary_op(Op::Times, TypeCode::FP32), W, minus_one);
    check_mxm(s, W, full(&snk::types::FP32, 4096, 8), "renewed values, product " + std::to_string(i));
    bound += values_bound(W);
  }
  EXPECT_EQ(bound, 0) << "products of values used once bound them";
}

// The bind policy (snk::set_bind_policy): Eager binds at the first product the bound values would serve, Never
// not after many; every product checked against the reference. Auto is BoundValuesFollowChangesOfA's.
TEST(CudaBackend, BindPolicyEagerAndNever) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  const snk::BindPolicy was = snk::bind_policy();
  snk::set_bind_policy(snk::BindPolicy::Eager);
  Matrix A = sparse_with_empty_rows(&snk::types::FP32, 3000, 4096, 0.05);
  check_mxm(s, A, full(&snk::types::FP32, 4096, 8), "eager, first product");
  EXPECT_TRUE(values_bound(A)) << (A.device_copy() ? A.device_copy()->describe() : "no device copy");
  Matrix A1 = sparse_with_empty_rows(&snk::types::FP32, 500, 4096, 0.05);   // batch 1: nothing to bind for
  check_mxm(s, A1, full(&snk::types::FP32, 4096, 1), "eager, batch 1");
  EXPECT_FALSE(values_bound(A1));
  snk::set_bind_policy(snk::BindPolicy::Never);
  Matrix B = sparse_with_empty_rows(&snk::types::FP32, 3000, 4096, 0.05);
  for (int i = 0; i < 200; ++i)   // Auto binds this one within about 90 (BoundValuesFollowChangesOfA)
    check_mxm(s, B, full(&snk::types::FP32, 4096, 8), "never, product " + std::to_string(i));
  EXPECT_FALSE(values_bound(B)) << (B.device_copy() ? B.device_copy()->describe() : "no device copy");
  snk::set_bind_policy(was);
}

// X W^T (a layer's forward) reads W's own plan: under Eager its values bind at the first product at batch 8, in FP32
// and, with W's BF16 precision hint, its rounded values (one type's at a time); the results stay the reference's
// (BF16: of the rounded operands), bound or not.
TEST(CudaBackend, EagerBindingOfXWtInFp32AndBf16) {
  REQUIRE_CUDA();
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  const snk::BindPolicy was = snk::bind_policy();
  snk::set_bind_policy(snk::BindPolicy::Eager);
  Matrix W = with_uneven_values(random_matrix(&snk::types::FP32, 3000, 4096, 0.05, false));
  snk::Descriptor tb;
  tb.transpose_second = true;
  const Matrix Xt = with_uneven_values(full(&snk::types::FP32, 8, 4096));
  const auto bound_as = [&](const char* type) {
    return W.device_copy() != nullptr &&
           W.device_copy()->describe().find(std::string("values bound (") + type) != std::string::npos;
  };
  for (int i = 0; i < 2; ++i) {
    expect_same(mxm_on("cuda", pt, Xt, W, tb), mxm_on("reference", pt, Xt, W, tb), "X W^T, FP32, eager");
    EXPECT_TRUE(bound_as("FP32")) << (W.device_copy() ? W.device_copy()->describe() : "no device copy");
  }
  W.set_precision_hint(Matrix::PrecisionHint::BF16);
  const Matrix Wr = rounded_to_bf16(W);
  for (int i = 0; i < 2; ++i) {
    expect_bf16_of(mxm_on("cuda", pt, Xt, W, tb), mxm_on("reference", pt, rounded_to_bf16(Xt), Wr, tb),
                   "X W^T, BF16 hint, eager");
    EXPECT_TRUE(bound_as("16-bit")) << (W.device_copy() ? W.device_copy()->describe() : "no device copy");
  }
  snk::set_bind_policy(was);
}

TEST(CudaBackend, DeterministicRunsAreBitwiseEqual) {
  REQUIRE_CUDA();
  const Semiring& s = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  const Matrix A = sparse_with_empty_rows(&snk::types::FP32, 2000, 1500, 0.05);
  const Matrix B = full(&snk::types::FP32, 1500, 33);
  snk::set_deterministic(true);
  const Matrix first = mxm_on("cuda", s, A, B);
  const Matrix second = mxm_on("cuda", s, A, B);
  snk::set_deterministic(false);
  ASSERT_EQ(first.nvals(), second.nvals());
  const std::vector<unsigned char>& x1 = first.csr().x;
  const std::vector<unsigned char>& x2 = second.csr().x;
  ASSERT_EQ(x1.size(), x2.size());
  EXPECT_EQ(std::memcmp(x1.data(), x2.data(), x1.size()), 0);
}

// Sparse A whose non-empty rows are dense enough (here 40% of their positions, and also every one of them full) times a
// sparse B with no empty row or column: the product over A's rows made dense (row blocks pulled through B's columns;
// the SpMM family's form has a test of its own below); in FP32 and FP64, B' = B and B' = B^T, against reference. With an infinity
// in B the product must not run so (0 * inf is NaN): the result still equals reference's.
TEST(CudaBackend, DenseRowsOfSparseATimesSparseB) {
  REQUIRE_CUDA();
  for (TypeCode code : {TypeCode::FP32, TypeCode::FP64}) {
    const Type* t = code == TypeCode::FP32 ? &snk::types::FP32 : &snk::types::FP64;
    const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, code);
    // B: 200 x 150, about 5% of its positions, plus a diagonal band so that no row or column is empty.
    std::bernoulli_distribution on(0.05);
    const Matrix B =
        built_where(t, 200, 150, [&](Index i, Index j) { return on(rng()) || j == i % 150 || i == j + 50; });
    Matrix Bt(t, 150, 200);
    {
      snk::BackendScope scope("reference");
      snk::transpose(Bt, nullptr, nullptr, B);
    }
    const Matrix sparse_rows = sparse_with_empty_rows(t, 300, 200, 0.4);
    Matrix full_rows = sparse_with_empty_rows(t, 300, 200, 1.0);
    for (const auto& [A, what] : {std::pair<const Matrix&, const char*>{sparse_rows, "40% rows"},
                                  std::pair<const Matrix&, const char*>{full_rows, "full rows"}}) {
      const std::string at = t->name + " " + what;
      check_mxm(pt, A, B, "dense rows of A: " + at);
      snk::Descriptor tr;
      tr.transpose_second = true;
      const Matrix got = mxm_on("cuda", pt, A, Bt, tr), want = mxm_on("reference", pt, A, Bt, tr);
      expect_same(got, want, "dense rows of A, B transposed: " + at);
    }
    Matrix Binf(B);
    const double inf = std::numeric_limits<double>::infinity();
    Binf.set_element(3, 7, &inf, &snk::types::FP64);
    Binf.wait();
    check_mxm(pt, sparse_rows, Binf, "dense rows of A, an infinity in B: " + t->name);
  }
}

// B: nrows x ncols, about `density` of its positions plus a band (so that most columns hold something), and its last
// `empty_cols` columns empty.
Matrix banded(const Type* t, Index nrows, Index ncols, double density, Index empty_cols) {
  std::bernoulli_distribution on(density);
  return built_where(t, nrows, ncols,
                     [&](Index i, Index j) { return j + empty_cols < ncols && (on(rng()) || j == i % ncols); });
}

// Sparse A of dense enough rows times a sparse B whose columns fit on chip: row blocks of A pulled through B's columns
// (row_block_product.cu), in FP32 and FP64. Shapes that reach every part of it: 5,000 rows (the largest blocks, the
// last one partial) and 300 rows (the smallest), one row in four empty, a hypersparse A of 2^40 rows, 600 columns of
// the result (several chunks of a block's threads) of which the last 10 are empty, explicit zeros and both signs
// in A and B; B' = B and B' = B^T; a B whose columns are too uneven for the sliced form (declined, the next kernel
// runs); against reference, with no fallback.
TEST(CudaBackend, RowBlocksOfSparseATimesSparseB) {
  REQUIRE_CUDA();
  for (TypeCode code : {TypeCode::FP32, TypeCode::FP64}) {
    const Type* t = code == TypeCode::FP32 ? &snk::types::FP32 : &snk::types::FP64;
    const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, code);
    const Matrix B = banded(t, 200, 600, 0.05, 10);
    Matrix Bt(t, 600, 200);
    {
      snk::BackendScope scope("reference");
      snk::transpose(Bt, nullptr, nullptr, B);
    }
    std::bernoulli_distribution on(0.3);
    const Matrix hyper = hypersparse_where(t, 700, 200, [&](Index) { return on(rng()); });
    const Matrix many = sparse_with_empty_rows(t, 5000, 200, 0.3), few = sparse_with_empty_rows(t, 300, 200, 0.5);
    for (const auto& [A, what] : {std::pair<const Matrix*, const char*>{&many, "5000 rows"},
                                  std::pair<const Matrix*, const char*>{&few, "300 rows"},
                                  std::pair<const Matrix*, const char*>{&hyper, "hypersparse"}}) {
      const std::string at = t->name + " " + what;
      check_mxm(pt, *A, B, "row blocks of A: " + at);
      snk::Descriptor tr;
      tr.transpose_second = true;
      check_mxm(pt, *A, Bt, "row blocks of A, B transposed: " + at, tr);
    }
    // One column of B holds every row, the others one entry each: B^T's slices would be padded past twice its entries,
    // so the row blocks decline and the next kernel of the family runs.
    const Matrix uneven = built_where(t, 200, 64, [](Index i, Index j) { return j == 0 || j == 1 + i % 63; });
    check_mxm(pt, many, uneven, "row blocks of A, uneven columns of B: " + t->name);
  }
}

// select (value > y) over matrices whose entries need a short scan of their runs of flags (one thread block) and a
// long one (the device-wide scan), plain and hypersparse, FP32 and FP64 (values of 4 and 8 bytes), into a new matrix
// and in place, against reference: the device compaction places each kept entry itself, in A's order.
TEST(CudaBackend, SelectAtEveryScanLength) {
  REQUIRE_CUDA();
  for (TypeCode code : {TypeCode::FP32, TypeCode::FP64}) {
    const Type* t = code == TypeCode::FP32 ? &snk::types::FP32 : &snk::types::FP64;
    const snk::IndexUnaryOp& gt = *snk::builtin_index_unary_op(snk::IndexUnaryOpcode::ValueGt, code);
    snk::Scalar y(t);
    const double quarter = 0.25;
    y.set(&quarter, &snk::types::FP64);
    std::bernoulli_distribution half(0.5);
    const Matrix hyper = hypersparse_where(t, 500, 300, [&](Index) { return half(rng()); });
    const Matrix small = sparse_with_empty_rows(t, 40, 30, 0.5), medium = sparse_with_empty_rows(t, 300, 400, 0.4),
                 large = sparse_with_empty_rows(t, 2000, 1000, 0.3);
    for (const auto& [A, what] : {std::pair<const Matrix*, const char*>{&small, "small"},
                                  std::pair<const Matrix*, const char*>{&medium, "one-block scan"},
                                  std::pair<const Matrix*, const char*>{&large, "device-wide scan"},
                                  std::pair<const Matrix*, const char*>{&hyper, "hypersparse"}}) {
      const std::string at = t->name + " " + what + " (" + std::to_string(A->nvals()) + " entries)";
      Matrix want(t, A->nrows(), A->ncols());
      {
        snk::BackendScope scope("reference");
        snk::select(want, nullptr, nullptr, gt, *A, y);
      }
      snk::reset_fallback_counts();
      Matrix got(t, A->nrows(), A->ncols()), in_place(*A);
      {
        snk::BackendScope scope("cuda");
        snk::select(got, nullptr, nullptr, gt, *A, y);
        snk::select(in_place, nullptr, nullptr, gt, in_place, y);
        got.wait();
        in_place.wait();
      }
      EXPECT_TRUE(snk::fallback_counts("cuda").empty()) << at << ": the cuda backend declined";
      expect_same(got, want, "select " + at);
      expect_same(in_place, want, "select in place " + at);
    }
  }
}

// The columns of full matrices reduced (reduce with GrB_INP0 transposed: a layer's db): tall shapes whose rows are cut
// into chunks reduced apart and then combined (4096 x 3072, 4097 x 768, a last chunk shorter), a short one reduced
// in one pass, with PLUS, MIN and MAX, against reference and with no fallback.
TEST(CudaBackend, ColumnsOfFullMatricesReducedInRowChunks) {
  REQUIRE_CUDA();
  for (TypeCode code : {TypeCode::FP32, TypeCode::FP64, TypeCode::Int32}) {
    const Type* t = code == TypeCode::FP32 ? &snk::types::FP32
                    : code == TypeCode::FP64 ? &snk::types::FP64
                                             : &snk::types::Int32;
    for (const auto& [r, n] : {std::pair<Index, Index>{4096, 3072}, {4097, 768}, {40, 33}}) {
      const Matrix F = full(t, r, n);
      snk::Descriptor cols;
      cols.transpose_first = true;
      for (Op op : {Op::Plus, Op::Min, Op::Max}) {
        const snk::Monoid& mon = *snk::builtin_monoid(op, code);
        const std::string at = mon.name + " " + std::to_string(r) + " x " + std::to_string(n);
        Vector want(t, n), got(t, n);
        {
          snk::BackendScope scope("reference");
          snk::reduce(want, nullptr, nullptr, mon, F, cols);
        }
        snk::reset_fallback_counts();
        {
          snk::BackendScope scope("cuda");
          snk::reduce(got, nullptr, nullptr, mon, F, cols);
          got.wait();
        }
        EXPECT_TRUE(snk::fallback_counts("cuda").empty()) << at << ": the cuda backend declined";
        expect_same(got.as_matrix(), want.as_matrix(), "reduce columns " + at);
      }
    }
  }
}

// The rows of full matrices reduced (a layer's db from gradients held features by batch): 3072 x 4096, 768 x 4097 and
// 33 x 40 (rows narrower than and not a multiple of the work items a row), with PLUS, MIN and MAX, against reference
// and with no fallback.
TEST(CudaBackend, RowsOfFullMatricesReducedInPlace) {
  REQUIRE_CUDA();
  for (TypeCode code : {TypeCode::FP32, TypeCode::FP64, TypeCode::Int32}) {
    const Type* t = snk::builtin_type(code);
    for (const auto& [r, n] : {std::pair<Index, Index>{3072, 4096}, {768, 4097}, {33, 40}, {5, 7}}) {
      const Matrix F = full(t, r, n);
      for (Op op : {Op::Plus, Op::Min, Op::Max}) {
        const snk::Monoid& mon = *snk::builtin_monoid(op, code);
        const std::string at = mon.name + " " + std::to_string(r) + " x " + std::to_string(n);
        Vector want(t, r), got(t, r);
        {
          snk::BackendScope scope("reference");
          snk::reduce(want, nullptr, nullptr, mon, F);
        }
        snk::reset_fallback_counts();
        {
          snk::BackendScope scope("cuda");
          snk::reduce(got, nullptr, nullptr, mon, F);
          got.wait();
        }
        EXPECT_TRUE(snk::fallback_counts("cuda").empty()) << at << ": the cuda backend declined";
        expect_same(got.as_matrix(), want.as_matrix(), "reduce rows " + at);
      }
    }
  }
}

// A full output accumulated with a full result and no mask (a layer's output plus its broadcast bias): PLUS and MIN
// accumulators and none, FP32 and INT32, against reference; a second call on the first's result (a full matrix that
// lives on the device only) makes no transfer and no fallback.
TEST(CudaBackend, FullOutputAccumulatesAFullResult) {
  REQUIRE_CUDA();
  for (TypeCode code : {TypeCode::FP32, TypeCode::Int32}) {
    const Type* t = code == TypeCode::FP32 ? &snk::types::FP32 : &snk::types::Int32;
    const snk::UnaryOp& identity = *snk::builtin_unary_op(snk::UnaryOpcode::Identity, code);
    const snk::UnaryOp& ainv = *snk::builtin_unary_op(snk::UnaryOpcode::AInv, code);
    const Matrix C0 = full(t, 300, 257), A = full(t, 300, 257);
    for (const snk::BinaryOp* accum : {snk::builtin_binary_op(Op::Plus, code), snk::builtin_binary_op(Op::Min, code),
                                       static_cast<const snk::BinaryOp*>(nullptr)}) {
      const std::string at = t->name + (accum != nullptr ? " accum " + accum->name : " no accum");
      Matrix want(C0);
      {
        snk::BackendScope scope("reference");
        snk::apply(want, nullptr, accum, identity, A);
        snk::apply(want, nullptr, accum, ainv, want);
      }
      snk::reset_fallback_counts();
      Matrix got(C0);
      {
        snk::BackendScope scope("cuda");
        snk::apply(got, nullptr, accum, identity, A);
        got.wait();
        snk::reset_transfers();
        snk::apply(got, nullptr, accum, ainv, got);
        got.wait();
        const snk::Transfers during = snk::transfers();
        EXPECT_EQ(during.uploads, 0u) << at << ": the second call uploaded";
        EXPECT_EQ(during.downloads, 0u) << at << ": the second call downloaded";
      }
      EXPECT_TRUE(snk::fallback_counts("cuda").empty()) << at << ": the cuda backend declined";
      expect_same(got, want, "apply into a full output, " + at);
    }
  }
}

// Sparse A of dense enough rows whose inner dimension is too wide for row blocks on chip (12,000 columns): the
// product over A's rows made dense, through the SpMM family, against reference.
TEST(CudaBackend, WideDenseRowsThroughTheSpmmFamily) {
  REQUIRE_CUDA();
  for (TypeCode code : {TypeCode::FP32, TypeCode::FP64}) {
    const Type* t = code == TypeCode::FP32 ? &snk::types::FP32 : &snk::types::FP64;
    const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, code);
    const Matrix B = banded(t, 12000, 150, 0.002, 0);
    const Matrix A = sparse_with_empty_rows(t, 120, 12000, 0.3);
    check_mxm(pt, A, B, "wide dense rows of A: " + t->name);
  }
}

// Sparse A times a sparse B of few columns: each entry reduced in the order of A's row, as the expansion reduces it,
// both where A's rows are dense enough for row blocks (10% of their positions: the pull runs over B^T's rows, in
// the same order) and where they are not (3%: the dense row accumulator). Checked bit for bit against that order
// computed on the host in FP32 (fractional values, so the order shows), with rows of B longer than a warp and empty
// rows of A.
TEST(CudaBackend, SparseTimesNarrowSparseInRowOrder) {
  REQUIRE_CUDA();
  const Type* f = &snk::types::FP32;
  for (const double density : {0.1, 0.03}) {
    SCOPED_TRACE("density of A " + std::to_string(density));
    const Matrix A = snk_test::fractional_fp32(3000, 400, density, rng(), 5);
    const Matrix B = snk_test::fractional_fp32(400, 700, 0.08, rng());
    const std::uint64_t before = mxm_fallbacks();
    const Matrix C = mxm_on("cuda", *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32), A, B);
    EXPECT_EQ(mxm_fallbacks(), before);
    // The host's sums, in A's row order: the first product of an entry starts it.
    const snk::CsrStorage& a = A.csr();
    const snk::CsrStorage& b = B.csr();
    const float* ax = reinterpret_cast<const float*>(a.x.data());
    const float* bx = reinterpret_cast<const float*>(b.x.data());
    std::vector<float> acc(700);
    std::vector<char> seen(700);
    Index expected = 0, differ = 0;
    ASSERT_FALSE(a.hyper);
    ASSERT_FALSE(b.hyper);
    for (Index i = 0; i < 3000; ++i) {
      std::fill(seen.begin(), seen.end(), 0);
      for (Index e = a.p[i]; e < a.p[i + 1]; ++e) {
        const Index k = a.j[e];
        for (Index q = b.p[k]; q < b.p[k + 1]; ++q) {
          volatile float t = ax[e] * bx[q];   // no fused multiply-add on the host either
          const Index j = b.j[q];
          acc[j] = seen[j] ? acc[j] + t : t;
          seen[j] = 1;
        }
      }
      for (Index j = 0; j < 700; ++j) {
        if (!seen[j]) continue;
        ++expected;
        float got = 0;
        if (!C.extract_element(i, j, &got, f)) {
          ++differ;
          continue;
        }
        if (std::memcmp(&got, &acc[j], sizeof(float)) != 0) ++differ;
      }
    }
    EXPECT_EQ(C.nvals(), expected);
    EXPECT_EQ(differ, Index(0)) << "entries whose FP32 sum differs from A's row order, of " << expected;
  }
}

// A matrix whose arrays are larger than the backend's staged-upload threshold (8 MB: its columns 25 MB, its values
// 13 MB, several 4 MB chunks through the page-locked slots) arrives whole: each value doubled on the device equals
// reference's, entry for entry, twice in a row (the slots reused).
TEST(CudaBackend, LargeUploadsArriveWhole) {
  REQUIRE_CUDA();
  const snk::BinaryOp& times = *snk::builtin_binary_op(Op::Times, TypeCode::FP32);
  snk::Scalar two(&snk::types::FP32);
  const float v2 = 2.0f;
  two.set(&v2, &snk::types::FP32);
  for (int round = 0; round < 2; ++round) {
    const Matrix A = random_matrix(&snk::types::FP32, 2000, 2000, 0.8, false);
    ASSERT_GT(A.nvals() * sizeof(float), std::size_t(8) << 20);
    Matrix got(&snk::types::FP32, 2000, 2000), want(&snk::types::FP32, 2000, 2000);
    {
      snk::BackendScope scope("cuda");
      snk::apply_bind_second(got, nullptr, nullptr, times, A, two);
      got.wait();
    }
    {
      snk::BackendScope scope("reference");
      snk::apply_bind_second(want, nullptr, nullptr, times, A, two);
    }
    expect_same(got, want, "large upload, round " + std::to_string(round));
  }
}

// SNK_PAGE_LOCKED through the C API: a matrix whose arrays pass the staging threshold is locked (GrB_get reads 1), its
// upload (the copy engine reading the locked arrays directly) gives reference's result entry for entry, a value
// overwritten in place keeps the lock and is uploaded again, a change that rebuilds the arrays ends the lock, and the
// next lock and upload after it are right again.
TEST(CudaBackend, PageLockedUploadsArriveWhole) {
  REQUIRE_CUDA();
  (void)GrB_init(GrB_NONBLOCKING);
  const Matrix S = random_matrix(&snk::types::FP32, 2000, 2000, 0.8, false);
  const Index n = S.nvals();
  std::vector<Index> I(n), J(n);
  std::vector<float> X(n);
  S.extract_tuples(I.data(), J.data(), X.data(), &snk::types::FP32);
  GrB_Matrix A = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&A, GrB_FP32, 2000, 2000), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_build_FP32(A, I.data(), J.data(), X.data(), n, nullptr), GrB_SUCCESS);
  auto doubled = [&](const char* backend) {
    snk::BackendScope scope(backend);
    GrB_Matrix C = nullptr;
    EXPECT_EQ(GrB_Matrix_new(&C, GrB_FP32, 2000, 2000), GrB_SUCCESS);
    EXPECT_EQ(GrB_Matrix_apply_BinaryOp2nd_FP32(C, nullptr, nullptr, GrB_TIMES_FP32, A, 2.0f, nullptr), GrB_SUCCESS);
    GrB_Index nv = 0;
    EXPECT_EQ(GrB_Matrix_nvals(&nv, C), GrB_SUCCESS);
    std::vector<GrB_Index> ci(nv), cj(nv);
    std::vector<float> cx(nv);
    EXPECT_EQ(GrB_Matrix_extractTuples_FP32(ci.data(), cj.data(), cx.data(), &nv, C), GrB_SUCCESS);
    GrB_free(&C);
    return std::make_tuple(ci, cj, cx);
  };
  int32_t locked = -1;
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    {
      snk::BackendScope scope("cuda");
      ASSERT_EQ(GrB_set(A, 1, SNK_PAGE_LOCKED), GrB_SUCCESS);
      ASSERT_EQ(GrB_get(A, &locked, SNK_PAGE_LOCKED), GrB_SUCCESS);
      EXPECT_EQ(locked, 1) << "25 MB of columns and 13 MB of values: above the staging threshold";
    }
    const snk::Transfers before = snk::transfers();
    const auto got = doubled("cuda");
    EXPECT_GE(snk::transfers().upload_bytes - before.upload_bytes, std::uint64_t(n) * sizeof(float));
    EXPECT_TRUE(got == doubled("reference")) << "the upload from locked memory gives reference's result";
    ASSERT_EQ(GrB_get(A, &locked, SNK_PAGE_LOCKED), GrB_SUCCESS);
    EXPECT_EQ(locked, 1) << "reading A keeps the lock";
    // An entry overwritten in place: the arrays stay where they are, and so does the lock; the next upload (from
    // the locked arrays) carries the new value.
    ASSERT_EQ(GrB_Matrix_setElement_FP32(A, 0.25f + round, I[round], J[round]), GrB_SUCCESS);
    ASSERT_EQ(GrB_get(A, &locked, SNK_PAGE_LOCKED), GrB_SUCCESS);
    EXPECT_EQ(locked, 1);
    EXPECT_TRUE(doubled("cuda") == doubled("reference")) << "the overwritten value uploaded again";
    // An entry removed: the arrays are rebuilt, the lock ends with the old ones, and the next round locks and
    // uploads the new ones.
    ASSERT_EQ(GrB_Matrix_removeElement(A, I[n - 1 - round], J[n - 1 - round]), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_wait(A, GrB_MATERIALIZE), GrB_SUCCESS);
    ASSERT_EQ(GrB_get(A, &locked, SNK_PAGE_LOCKED), GrB_SUCCESS);
    EXPECT_EQ(locked, 0);
  }
  {
    snk::BackendScope scope("cuda");
    ASSERT_EQ(GrB_set(A, 1, SNK_PAGE_LOCKED), GrB_SUCCESS);
    ASSERT_EQ(GrB_set(A, 0, SNK_PAGE_LOCKED), GrB_SUCCESS);
    ASSERT_EQ(GrB_get(A, &locked, SNK_PAGE_LOCKED), GrB_SUCCESS);
    EXPECT_EQ(locked, 0);
    ASSERT_EQ(GrB_set(A, 1, SNK_PAGE_LOCKED), GrB_SUCCESS);   // unlocked memory can be locked again
    ASSERT_EQ(GrB_get(A, &locked, SNK_PAGE_LOCKED), GrB_SUCCESS);
    EXPECT_EQ(locked, 1);
  }
  GrB_free(&A);   // frees the locked arrays: the locks end first
}

TEST(CudaBackend, DeclinedCallsFallBackAndAreCounted) {
  REQUIRE_CUDA();
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  const Matrix A = sparse_with_empty_rows(&snk::types::FP32, 40, 30, 0.2);

  // Sparse B and INT8 (no SpMM kernels): the portable products, on the GPU, equal to reference.
  std::uint64_t before = mxm_fallbacks();
  const Matrix sparse_b = sparse_with_empty_rows(&snk::types::FP32, 30, 9, 0.3);
  Matrix got = mxm_on("cuda", pt, A, sparse_b);
  EXPECT_EQ(mxm_fallbacks(), before) << "a sparse B runs on the GPU";
  expect_same(got, mxm_on("reference", pt, A, sparse_b), "sparse B");
  const Semiring& int8 = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::Int8);
  const Matrix a8 = sparse_with_empty_rows(&snk::types::Int8, 40, 30, 0.2), b8 = full(&snk::types::Int8, 30, 4);
  got = mxm_on("cuda", int8, a8, b8);
  EXPECT_EQ(mxm_fallbacks(), before) << "INT8 runs on the GPU";
  expect_same(got, mxm_on("reference", int8, a8, b8), "INT8");

  // A user-defined multiplier (same function as TIMES, but not the predefined object).
  auto times = snk::new_binary_op(snk::builtin_binary_op(Op::Times, TypeCode::FP32)->fn, &snk::types::FP32,
                                  &snk::types::FP32, &snk::types::FP32, "my_times");
  auto user = snk::new_semiring(snk::builtin_monoid(Op::Plus, TypeCode::FP32), times.get());
  const Matrix B = full(&snk::types::FP32, 30, 4);
  before = mxm_fallbacks();
  got = mxm_on("cuda", *user, A, B);
  EXPECT_EQ(mxm_fallbacks(), before + 1) << "a user-defined operator must fall back to reference";
  expect_same(got, mxm_on("reference", pt, A, B), "user TIMES on reference");

  // At the kernel interface: Declined, and T is left untouched.
  Matrix T(&snk::types::FP32, 40, 9);
  const Matrix sparse_B = sparse_with_empty_rows(&snk::types::FP32, 30, 9, 0.3);
  EXPECT_EQ(snk::core::backend_by_name("cuda").mxm(T, {}, *user, A, false, sparse_B, false, false),
            snk::core::KernelStatus::Declined);
  EXPECT_EQ(T.nvals(), 0u);
}

// A chain of GPU operations keeps its data on the device: after the inputs' one upload each, twenty calls (mxm,
// apply with a bound and a unary operator, eWiseAdd, eWiseMult, select, reduce to a vector and to a scalar, mxm
// again on a result, extract, assign with an accumulator to part of a matrix, and constant assigns everywhere, on a
// mask and under a complemented mask, and a select whose result is cast to its output's type) make no transfer, and
// reading the results brings each back once. The results equal the same chain on reference.
struct ChainResult {
  Matrix Y;
  Vector r;
  Matrix Yi;
  double s;
  snk::Transfers during;
};

ChainResult run_chain(const std::string& backend, const Matrix& W, const Matrix& X) {
  snk::BackendScope scope(backend);
  using snk::builtin_binary_op;
  const TypeCode t = TypeCode::FP32;
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, t);
  const Index n = W.nrows(), b = X.ncols();
  Matrix Y1(&snk::types::FP32, n, b), Y2(&snk::types::FP32, n, b), Y3(&snk::types::FP32, n, b),
      Y4(&snk::types::FP32, n, b), Y5(&snk::types::FP32, n, b), Y6(&snk::types::FP32, n, b),
      Y7(&snk::types::FP32, n, b), Y8(&snk::types::FP32, n, b);
  Vector r(&snk::types::FP32, n), r2(&snk::types::FP32, n);
  snk::Scalar two(&snk::types::FP32), zero(&snk::types::FP32), s(&snk::types::FP32);
  const float v2 = 2, v0 = 0;
  two.set(&v2, &snk::types::FP32);
  zero.set(&v0, &snk::types::FP32);
  // The inputs' uploads happen in the first product; count from there.
  snk::mxm(Y1, nullptr, nullptr, pt, W, X);
  snk::reset_transfers();
  snk::apply_bind_second(Y2, nullptr, nullptr, *builtin_binary_op(Op::Times, t), Y1, two);       // 2
  snk::ewise_add(Y3, nullptr, nullptr, *builtin_binary_op(Op::Plus, t), Y2, Y1);                  // 3
  snk::ewise_mult(Y4, nullptr, nullptr, *builtin_binary_op(Op::Minus, t), Y3, Y1);                // 4
  snk::select(Y5, nullptr, nullptr, *snk::builtin_index_unary_op(snk::IndexUnaryOpcode::ValueGt, t), Y4, zero);  // 5
  snk::apply(Y6, nullptr, nullptr, *snk::builtin_unary_op(snk::UnaryOpcode::AInv, t), Y5);        // 6
  snk::apply(Y7, nullptr, nullptr, *snk::builtin_unary_op(snk::UnaryOpcode::Abs, t), Y6);         // 7
  snk::reduce(r, nullptr, nullptr, *snk::builtin_monoid(Op::Plus, t), Y7);                        // 8
  snk::ewise_mult(r2, nullptr, nullptr, *builtin_binary_op(Op::Times, t), r, r);                  // 9
  snk::mxm(Y8, nullptr, nullptr, pt, W, Y1);                                                       // 10
  snk::ewise_add(Y8, nullptr, nullptr, *builtin_binary_op(Op::Max, t), Y8, Y3);                   // 11
  snk::reduce(s, nullptr, *snk::builtin_monoid(Op::Plus, t), r2);                                  // 12
  // A block of Y3 (rows in a shuffled order, columns 1, 3, 5) added into Y8 at other rows.
  const Index rows[] = {7, 2, 150, 99, 2}, cols[] = {1, 3, 5}, to_rows[] = {0, 1, 2, 3, 4};
  Matrix block(&snk::types::FP32, 5, 3);
  snk::extract(block, nullptr, nullptr, Y3, rows, 5, cols, 3);                                     // 13
  snk::assign(Y8, nullptr, builtin_binary_op(Op::Plus, t), block, to_rows, 5, cols, 3);           // 14
  // Constant assigns, their regions made on the device: everywhere, on a mask's pattern with an accumulator, and
  // under a complemented mask; both results summed into r2.
  Vector c(&snk::types::FP32, n), c2(&snk::types::FP32, n);
  snk::Descriptor structure;
  structure.mask_structure = true;
  snk::assign_scalar(c, nullptr, nullptr, two, nullptr, n);                                         // 15
  snk::assign_scalar(c, &r, builtin_binary_op(Op::Plus, t), two, nullptr, n, structure);            // 16
  structure.mask_complement = true;
  snk::assign_scalar(c2, &r, nullptr, two, nullptr, n, structure);                                  // 17
  snk::ewise_add(r2, nullptr, nullptr, *builtin_binary_op(Op::Plus, t), r2, c);                   // 18
  snk::ewise_add(r2, nullptr, nullptr, *builtin_binary_op(Op::Plus, t), r2, c2);                  // 19
  // A result cast to its output's type in the mask step (a select of a graph into an integer L).
  Matrix Yi(&snk::types::Int32, n, b);
  snk::select(Yi, nullptr, nullptr, *snk::builtin_index_unary_op(snk::IndexUnaryOpcode::ValueLt, t), Y8, zero);  // 20
  Y8.wait();
  r2.wait();
  Yi.wait();
  ChainResult out{Y8, r2, Yi, 0.0, snk::transfers()};
  float sv = 0;
  s.get(&sv, &snk::types::FP32);
  out.s = sv;
  return out;
}

TEST(CudaBackend, ChainOfOperationsStaysOnTheDevice) {
  REQUIRE_CUDA();
  const Matrix W = random_matrix(&snk::types::FP32, 300, 300, 0.05, false);
  const Matrix X = full(&snk::types::FP32, 300, 8);
  snk::reset_fallback_counts();
  const ChainResult got = run_chain("cuda", W, X);
  EXPECT_EQ(snk::fallback_total("cuda"), 0u) << "a call of the chain fell back to reference";
  std::printf("[residency] during the chain of 20 calls: %llu uploads, %llu downloads (%llu / %llu bytes)\n",
              static_cast<unsigned long long>(got.during.uploads), static_cast<unsigned long long>(got.during.downloads),
              static_cast<unsigned long long>(got.during.upload_bytes),
              static_cast<unsigned long long>(got.during.download_bytes));
  EXPECT_EQ(got.during.uploads, 0u);
  EXPECT_EQ(got.during.downloads, 0u);
  // Reading each result brings it back once.
  snk::reset_transfers();
  const ChainResult want = run_chain("reference", W, X);
  snk::reset_transfers();
  expect_same(got.Y, want.Y, "chain: Y8");
  expect_same(got.r.as_matrix(), want.r.as_matrix(), "chain: r2");
  expect_same(got.Yi, want.Yi, "chain: Y8 < 0 as INT32");
  EXPECT_EQ(snk::transfers().downloads, 3u);
  EXPECT_TRUE(close(got.s, want.s, TypeCode::FP32)) << got.s << " vs " << want.s;
}

// The exchange with a caller's device memory (PyTorch's CUDA tensors): X is written to device memory on a stream of the
// caller's and imported without a host wait; a product with W and a row-wise ReLU run on the device; the result is
// exported dense into the caller's memory and copied back on the caller's stream, which alone is waited for. W's values
// are replaced on its own pattern from device memory (import_device_values), and a sparse result (the ReLU's) is
// exported dense (zeros elsewhere) and as its values. Nothing is uploaded or downloaded through the host by the chain,
// and every result equals reference's on the same host data.
// A batch borrowed from the caller's device memory (snk::borrow_device_full, the layers' device calls): its device copy
// is that memory (no copy), products read it after the caller's queued writes, the results equal reference, and the
// memory outlives the matrix (the caller frees it, once).
TEST(CudaBackend, BorrowedDeviceBatchIsReadWhereItLies) {
  REQUIRE_CUDA();
  const Type* f32 = &snk::types::FP32;
  const Index batch = 41, in = 300, out = 200;
  const Matrix W = random_matrix(f32, out, in, 0.05, false);
  const Matrix X = full(f32, batch, in);
  std::vector<float> Xv(batch * in);
  std::vector<Index> xi(batch * in), xj(batch * in);
  X.extract_tuples(xi.data(), xj.data(), Xv.data(), f32);
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  snk::Descriptor tr;
  tr.transpose_second = true;
  const Matrix want = mxm_on("reference", pt, X, W, tr);
  cudaStream_t caller = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&caller, cudaStreamNonBlocking), cudaSuccess);
  float* dx = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dx), Xv.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(dx, 0xff, Xv.size() * 4, caller), cudaSuccess);   // NaNs, then the batch, not waited for
  ASSERT_EQ(cudaMemcpyAsync(dx, Xv.data(), Xv.size() * 4, cudaMemcpyHostToDevice, caller), cudaSuccess);
  {
    snk::BackendScope scope("cuda");
    Matrix Xb(f32, batch, in), Y(f32, batch, out);
    snk::reset_transfers();
    snk::borrow_device_full(Xb, dx, caller);
    ASSERT_NE(Xb.device_copy(), nullptr);
    EXPECT_NE(Xb.device_copy()->describe().find("in the caller's memory"), std::string::npos)
        << Xb.device_copy()->describe();
    EXPECT_EQ(snk::transfers().uploads, 0u);
    snk::mxm(Y, nullptr, nullptr, pt, Xb, W, tr);
    expect_same(Y, want, "X W^T with X borrowed");
    const Matrix back = Xb;   // a duplicate holds its own copy of the values
    expect_same(back, X, "a duplicate of the borrowed batch");
  }
  std::vector<float> still(Xv.size());
  ASSERT_EQ(cudaMemcpy(still.data(), dx, still.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(still, Xv) << "the library wrote into, or freed, the borrowed memory";
  EXPECT_EQ(cudaFree(dx), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(caller), cudaSuccess);
}

// The values of a full device result: nrows x ncols floats row-major at p, read back.
std::vector<float> device_floats(const void* p, std::size_t n) {
  std::vector<float> v(n);
  EXPECT_EQ(cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  return v;
}

// M's values as a dense row-major array, zero where M holds no entry (what export_device_dense writes).
std::vector<float> row_major(const Matrix& M) {
  std::vector<float> v(M.nrows() * M.ncols(), 0.0f);
  std::vector<Index> i(M.nvals()), j(M.nvals());
  std::vector<float> x(M.nvals());
  M.extract_tuples(i.data(), j.data(), x.data(), &snk::types::FP32);
  for (std::size_t k = 0; k < x.size(); ++k) v[i[k] * M.ncols() + j[k]] = x[k];
  return v;
}

void expect_floats_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0;
  for (std::size_t k = 0; k < got.size(); ++k)
    if (!(std::fabs(got[k] - want[k]) <= 1e-5f * std::max(1.0f, std::fabs(want[k])))) ++bad;
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " values differ";
}

TEST(CudaBackend, ProductsWriteWhereTheOutputWasLent) {
  REQUIRE_CUDA();
  const Type* f32 = &snk::types::FP32;
  const Index batch = 45, in = 300, out = 200;
  const Matrix W = random_matrix(f32, out, in, 0.3, false);   // every row and column holds entries
  const Matrix X = full(f32, batch, in), Xt = full(f32, in, batch), dYt = full(f32, out, batch);
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  snk::Descriptor tb, ta;
  tb.transpose_second = true;
  ta.transpose_first = true;
  // The three products of a layer, each with a result full in row-major order: X W^T (a full A times a sparse B^T),
  // W X^T with X held by features (a sparse A times a full B), W^T dY^T (a sparse A^T times a full B).
  struct Case {
    const char* what;
    const Matrix &A, &B;
    snk::Descriptor d;
  };
  const Case cases[] = {{"X W^T", X, W, tb}, {"W X'", W, Xt, {}}, {"W^T dY'", W, dYt, ta}};
  cudaStream_t caller = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&caller, cudaStreamNonBlocking), cudaSuccess);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const Matrix want = mxm_on("reference", pt, c.A, c.B, c.d);
    ASSERT_EQ(want.nvals(), want.nrows() * want.ncols());
    const std::size_t n = want.nrows() * want.ncols();
    void* lent = nullptr;
    void* other = nullptr;
    ASSERT_EQ(cudaMalloc(&lent, n * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&other, n * 4), cudaSuccess);
    ASSERT_EQ(cudaMemset(lent, 0xff, n * 4), cudaSuccess);   // NaNs: every value must be written
    {
      snk::BackendScope scope("cuda");
      Matrix C(f32, want.nrows(), want.ncols());
      snk::borrow_device_output(C, lent, caller);
      const std::uint64_t before = snk::fallback_counts("cuda")["mxm"];
      snk::mxm(C, nullptr, nullptr, pt, c.A, c.B, c.d);
      EXPECT_EQ(snk::fallback_counts("cuda")["mxm"], before);
      ASSERT_NE(C.device_copy(), nullptr);
      EXPECT_NE(C.device_copy()->describe().find("in the caller's memory"), std::string::npos)
          << "the result was not written where it was lent: " << C.device_copy()->describe();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      expect_floats_close(device_floats(lent, n), row_major(want), "the lent memory before any export");
      snk::export_device_dense(C, lent, caller);    // copies nothing
      snk::export_device_dense(C, other, caller);   // copies
      ASSERT_EQ(cudaStreamSynchronize(caller), cudaSuccess);
      expect_floats_close(device_floats(lent, n), row_major(want), "the lent memory after its own export");
      expect_floats_close(device_floats(other, n), row_major(want), "an export elsewhere");
      expect_same(C, want, "the result read on the host");
    }
    EXPECT_EQ(cudaFree(lent), cudaSuccess);
    EXPECT_EQ(cudaFree(other), cudaSuccess);
  }

  // Not lent: an accumulator (C's values are read), and an input lying in the output's memory (C = X W^T with X
  // borrowed from that memory: W square so that the shapes agree).
  const Matrix Ws = random_matrix(f32, in, in, 0.3, false), Xs = full(f32, batch, in);
  const snk::BinaryOp& plus = *snk::builtin_binary_op(Op::Plus, TypeCode::FP32);
  const Matrix want_acc = mxm_on("reference", pt, Xs, Ws, tb, nullptr, &plus, &Xs);
  const Matrix want_in = mxm_on("reference", pt, Xs, Ws, tb);
  const std::vector<float> xs = row_major(Xs);
  void* mem = nullptr;
  ASSERT_EQ(cudaMalloc(&mem, xs.size() * 4), cudaSuccess);
  for (int k = 0; k < 2; ++k) {
    const bool accumulate = k == 0;
    SCOPED_TRACE(accumulate ? "accumulated" : "an input in the output's memory");
    ASSERT_EQ(cudaMemcpy(mem, xs.data(), xs.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    snk::BackendScope scope("cuda");
    Matrix C(f32, batch, in), Xb(f32, batch, in);
    snk::borrow_device_output(C, mem, caller);   // C holds Xs's values
    snk::borrow_device_full(Xb, mem, caller);
    if (accumulate)
      snk::mxm(C, nullptr, &plus, pt, Xs, Ws, tb);
    else
      snk::mxm(C, nullptr, nullptr, pt, Xb, Ws, tb);
    expect_same(C, accumulate ? want_acc : want_in, "the result");
    if (!accumulate) {
      ASSERT_EQ(cudaStreamSynchronize(caller), cudaSuccess);
      EXPECT_EQ(device_floats(mem, xs.size()), xs) << "the product wrote into its own input";
    }
  }
  EXPECT_EQ(cudaFree(mem), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(caller), cudaSuccess);
}

TEST(CudaBackend, DeviceMemoryExchangeWithTheCallersStream) {
  REQUIRE_CUDA();
  const Type* f32 = &snk::types::FP32;
  const Index batch = 37, in = 300, out = 200;
  const Matrix W = random_matrix(f32, out, in, 0.05, true);
  const Matrix X = full(f32, batch, in);
  std::vector<float> Wv(W.nvals()), Xv(batch * in), Wv2(W.nvals());
  std::vector<Index> wi(W.nvals()), wj(W.nvals()), xi(batch * in), xj(batch * in);
  W.extract_tuples(wi.data(), wj.data(), Wv.data(), f32);
  X.extract_tuples(xi.data(), xj.data(), Xv.data(), f32);
  for (std::size_t k = 0; k < Wv2.size(); ++k) Wv2[k] = Wv[k] * 0.5f - 0.25f;
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  snk::Descriptor tr;
  tr.transpose_second = true;
  const snk::Scalar zero = [&] {
    snk::Scalar z(f32);
    const float v = 0;
    z.set(&v, f32);
    return z;
  }();
  const snk::IndexUnaryOp& positive = *snk::builtin_index_unary_op(snk::IndexUnaryOpcode::ValueGt, TypeCode::FP32);

  // reference: W with the new values, Y = X W^T, R = Y > 0
  Matrix W2(f32, out, in);
  W2.build(wi.data(), wj.data(), Wv2.data(), f32, W.nvals(), nullptr);
  Matrix Yref(f32, batch, out), Rref(f32, batch, out);
  {
    snk::BackendScope scope("reference");
    snk::mxm(Yref, nullptr, nullptr, pt, X, W2, tr);
    snk::select(Rref, nullptr, nullptr, positive, Yref, zero);
  }

  cudaStream_t caller = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&caller, cudaStreamNonBlocking), cudaSuccess);
  float *dx = nullptr, *dw = nullptr, *dy = nullptr, *dr = nullptr, *dv = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dx), Xv.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dw), Wv2.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dy), batch * out * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dr), batch * out * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dv), batch * out * 4), cudaSuccess);
  // Poisoned outputs, then the inputs written on the caller's stream, not waited for.
  ASSERT_EQ(cudaMemsetAsync(dy, 0xff, batch * out * 4, caller), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(dr, 0xff, batch * out * 4, caller), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(dx, Xv.data(), Xv.size() * 4, cudaMemcpyHostToDevice, caller), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(dw, Wv2.data(), Wv2.size() * 4, cudaMemcpyHostToDevice, caller), cudaSuccess);

  Matrix Wd(W), Xd(f32, batch, in), Y(f32, batch, out), R(f32, batch, out);
  std::vector<float> y(batch * out), r(batch * out), rv;
  {
    snk::BackendScope scope("cuda");
    snk::reset_fallback_counts();
    snk::mxm(Y, nullptr, nullptr, pt, X, Wd, tr);   // W's pattern uploaded (and its plans built) here
    snk::reset_transfers();
    snk::import_device_full(Xd, dx, caller);
    snk::import_device_values(Wd, Wd, dw, caller);
    snk::mxm(Y, nullptr, nullptr, pt, Xd, Wd, tr);
    snk::select(R, nullptr, nullptr, positive, Y, zero);
    snk::export_device_dense(Y, dy, caller);
    snk::export_device_dense(R, dr, caller);
    snk::export_device_values(R, dv, caller);
    const snk::Transfers during = snk::transfers();
    EXPECT_EQ(during.uploads, 0u) << "the exchange went through the host";
    EXPECT_EQ(during.downloads, 0u) << "the exchange went through the host";
    EXPECT_EQ(snk::fallback_total("cuda"), 0u);
    rv.resize(R.nvals());
  }
  ASSERT_EQ(cudaMemcpyAsync(y.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost, caller), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(r.data(), dr, r.size() * 4, cudaMemcpyDeviceToHost, caller), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(rv.data(), dv, rv.size() * 4, cudaMemcpyDeviceToHost, caller), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(caller), cudaSuccess);

  const std::vector<float> yref = row_major(Yref), rref = row_major(Rref);
  std::vector<float> rvals(Rref.nvals());   // in entry order
  Rref.extract_tuples(nullptr, nullptr, rvals.data(), f32);
  ASSERT_EQ(rv.size(), rvals.size()) << "the ReLU's entry count";
  int bad = 0;
  for (std::size_t k = 0; k < y.size() && bad < 5; ++k)
    if (!close(y[k], yref[k], TypeCode::FP32) || !close(r[k], rref[k], TypeCode::FP32))
      ADD_FAILURE() << "position " << k << ": Y " << y[k] << " vs " << yref[k] << ", ReLU " << r[k] << " vs " << rref[k]
                    << " (" << ++bad << ")";
  for (std::size_t k = 0; k < rv.size() && bad < 5; ++k)
    if (!close(rv[k], rvals[k], TypeCode::FP32))
      ADD_FAILURE() << "ReLU value " << k << ": " << rv[k] << " vs " << rvals[k] << " (" << ++bad << ")";
  std::printf("[exchange] %lld x %lld product and ReLU through device memory: %lld ReLU entries, %d mismatches\n",
              static_cast<long long>(batch), static_cast<long long>(out), static_cast<long long>(rv.size()), bad);
  // The C API's form: a GrB_Matrix imported from device memory and exported again.
  {
    (void)GrB_init(GrB_NONBLOCKING);
    snk::BackendScope scope("cuda");
    GrB_Matrix G = nullptr;
    ASSERT_EQ(GrB_Matrix_new(&G, GrB_FP32, batch, in), GrB_SUCCESS);
    ASSERT_EQ(SNK_Matrix_import_device_full(G, dx, caller), GrB_SUCCESS);
    GrB_Index nv = 0;
    ASSERT_EQ(GrB_Matrix_nvals(&nv, G), GrB_SUCCESS);
    EXPECT_EQ(nv, static_cast<GrB_Index>(batch * in));
    float* back = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&back), Xv.size() * 4), cudaSuccess);
    ASSERT_EQ(SNK_Matrix_export_device_dense(back, G, caller), GrB_SUCCESS);
    std::vector<float> round(Xv.size());
    ASSERT_EQ(cudaMemcpyAsync(round.data(), back, round.size() * 4, cudaMemcpyDeviceToHost, caller), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(caller), cudaSuccess);
    EXPECT_EQ(round, Xv) << "SNK_Matrix_import_device_full then SNK_Matrix_export_device_dense";
    cudaFree(back);
    GrB_Matrix_free(&G);
  }
  for (float* p : {dx, dw, dy, dr, dv}) cudaFree(p);
  cudaStreamDestroy(caller);
}

// An import has read the caller's memory before the caller's later work on its stream: with the backend's stream busy
// (products queued and not waited for), the caller overwrites the source right after each import, as a caller that
// frees a tensor and reuses its memory does; the matrices must still hold the values as they were at the import.
TEST(CudaBackend, AnImportReadsItsSourceBeforeTheCallersLaterWork) {
  REQUIRE_CUDA();
  const Type* f32 = &snk::types::FP32;
  const Index n = 2048, batch = 256;
  const Matrix W = random_matrix(f32, n, n, 0.1, true);
  const Matrix X = full(f32, batch, n);
  std::vector<float> wv(W.nvals()), xv(batch * n);
  W.extract_tuples(nullptr, nullptr, wv.data(), f32);
  X.extract_tuples(nullptr, nullptr, xv.data(), f32);
  const Semiring& pt = *snk::builtin_semiring(Op::Plus, Op::Times, TypeCode::FP32);
  snk::Descriptor tr;
  tr.transpose_second = true;
  cudaStream_t caller = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&caller, cudaStreamNonBlocking), cudaSuccess);
  float *dx = nullptr, *dw = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dx), xv.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dw), wv.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dx, xv.data(), xv.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dw, wv.data(), wv.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  Matrix Wd(W), Xd(f32, batch, n), Y(f32, batch, n);
  {
    snk::BackendScope scope("cuda");
    snk::mxm(Y, nullptr, nullptr, pt, X, Wd, tr);   // the first product makes W's device copy and plans
    (void)Y.nvals();
    for (int k = 0; k < 20; ++k) snk::mxm(Y, nullptr, nullptr, pt, X, Wd, tr);   // queued: milliseconds of work
    snk::import_device_full(Xd, dx, caller);
    ASSERT_EQ(cudaMemsetAsync(dx, 0, xv.size() * 4, caller), cudaSuccess);
    snk::import_device_values(Wd, Wd, dw, caller);
    ASSERT_EQ(cudaMemsetAsync(dw, 0, wv.size() * 4, caller), cudaSuccess);
  }
  ASSERT_EQ(cudaStreamSynchronize(caller), cudaSuccess);
  std::vector<float> got_x(xv.size()), got_w(wv.size());
  Xd.extract_tuples(nullptr, nullptr, got_x.data(), f32);
  Wd.extract_tuples(nullptr, nullptr, got_w.data(), f32);
  EXPECT_EQ(got_x, xv) << "import_device_full read its source after the caller overwrote it";
  EXPECT_EQ(got_w, wv) << "import_device_values read its source after the caller overwrote it";
  for (float* p : {dx, dw}) cudaFree(p);
  cudaStreamDestroy(caller);
}

// Device memory exhaustion, forced: u * v^T with u and v of 2^20 entries has 2^40 entries (8 TiB of FP64), more than
// any GPU holds. Through the C API the call returns GrB_OUT_OF_MEMORY with a message in GrB_error, C and both inputs
// keep their contents, nothing falls back to the CPU (which would try the same on the host), and the backend serves
// the next call.
TEST(CudaBackend, DeviceMemoryExhaustionIsOutOfMemoryAndChangesNothing) {
  REQUIRE_CUDA();
  (void)GrB_init(GrB_NONBLOCKING);   // GrB_INVALID_VALUE when already initialized; either way usable
  snk::BackendScope scope("cuda");
  snk::reset_fallback_counts();
  const GrB_Index n = GrB_Index(1) << 20;
  std::vector<GrB_Index> I(n), zeros(n, 0);
  std::vector<double> u(n), v(n);
  std::uniform_real_distribution<double> value(0.5, 2.0);
  for (GrB_Index k = 0; k < n; ++k) {
    I[k] = k;
    u[k] = value(rng());
    v[k] = value(rng());
  }
  GrB_Matrix A = nullptr, B = nullptr, C = nullptr, S = nullptr;
  ASSERT_EQ(GrB_Matrix_new(&A, GrB_FP64, n, 1), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_new(&B, GrB_FP64, 1, n), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_new(&C, GrB_FP64, n, n), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_build_FP64(A, I.data(), zeros.data(), u.data(), n, GrB_PLUS_FP64), GrB_SUCCESS);
  ASSERT_EQ(GrB_Matrix_build_FP64(B, zeros.data(), I.data(), v.data(), n, GrB_PLUS_FP64), GrB_SUCCESS);
  const GrB_Index ci[] = {3, 77, n - 1}, cj[] = {5, 0, n - 2};
  const double cx[] = {1.5, -2.0, 4.25};
  ASSERT_EQ(GrB_Matrix_build_FP64(C, ci, cj, cx, 3, GrB_PLUS_FP64), GrB_SUCCESS);
  // The inputs on the device first (a product that fits), so that what fails is the large product itself.
  ASSERT_EQ(GrB_Matrix_new(&S, GrB_FP64, 1, 1), GrB_SUCCESS);
  ASSERT_EQ(GrB_mxm(S, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, B, A, nullptr), GrB_SUCCESS);

  for (int attempt = 0; attempt < 2; ++attempt) {   // twice: a failure leaves nothing behind that breaks a retry
    EXPECT_EQ(GrB_mxm(C, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, A, B, nullptr), GrB_OUT_OF_MEMORY);
    const char* message = nullptr;
    ASSERT_EQ(GrB_Matrix_error(&message, C), GrB_SUCCESS);
    ASSERT_NE(message, nullptr);
    EXPECT_NE(std::string(message).find("memory"), std::string::npos) << message;
    std::printf("[out of memory] attempt %d: GrB_mxm returned GrB_OUT_OF_MEMORY: %s\n", attempt + 1, message);
  }
  EXPECT_EQ(snk::fallback_total("cuda"), 0u) << "an out-of-memory call must not be retried on the CPU";
  // C unchanged.
  GrB_Index nc = 0;
  ASSERT_EQ(GrB_Matrix_nvals(&nc, C), GrB_SUCCESS);
  ASSERT_EQ(nc, 3u);
  GrB_Index gi[3], gj[3], count = 3;
  double gx[3];
  ASSERT_EQ(GrB_Matrix_extractTuples_FP64(gi, gj, gx, &count, C), GrB_SUCCESS);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(gi[k] == ci[k] && gj[k] == cj[k] && gx[k] == cx[k]) << "C entry " << k;
  // A and B unchanged.
  for (GrB_Matrix M : {A, B}) {
    std::vector<GrB_Index> mi(n), mj(n);
    std::vector<double> mx(n);
    GrB_Index m = n;
    ASSERT_EQ(GrB_Matrix_extractTuples_FP64(mi.data(), mj.data(), mx.data(), &m, M), GrB_SUCCESS);
    ASSERT_EQ(m, n);
    const std::vector<double>& want = M == A ? u : v;
    for (GrB_Index k = 0; k < n; ++k)
      ASSERT_TRUE((M == A ? mi[k] : mj[k]) == k && mx[k] == want[k]) << (M == A ? "A" : "B") << " entry " << k;
  }
  // The backend serves the next call: v * u (1 x 1), against a float64 host sum.
  ASSERT_EQ(GrB_mxm(S, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, B, A, nullptr), GrB_SUCCESS);
  double got = 0, want = 0;
  for (GrB_Index k = 0; k < n; ++k) want += u[k] * v[k];
  ASSERT_EQ(GrB_Matrix_extractElement_FP64(&got, S, 0, 0), GrB_SUCCESS);
  EXPECT_NEAR(got, want, 1e-9 * want);
  for (GrB_Matrix* M : {&A, &B, &C, &S}) GrB_Matrix_free(M);
}

}  // namespace

namespace {
// A dense operand of the device products: rows x cols values held row-major, column-major or row-major with padding
// between the rows, in device memory filled with `fill` (poison for a result), and its host copy.
template <class T>
struct DenseOnDevice {
  Index rows, cols;
  std::int64_t row_stride, col_stride;
  std::vector<T> host;
  T* device = nullptr;
  DenseOnDevice(Index r, Index c, int layout, cudaStream_t s, bool random)
      : rows(r), cols(c), row_stride(layout == 1 ? 1 : layout == 2 ? c + 3 : c), col_stride(layout == 1 ? r : 1) {
    const std::size_t n = static_cast<std::size_t>(layout == 1 ? r * c : r * row_stride);
    host.assign(n, std::numeric_limits<T>::quiet_NaN());
    std::uniform_real_distribution<double> u(-1, 1);
    if (random)
      for (Index i = 0; i < r; ++i)
        for (Index j = 0; j < c; ++j) host[i * row_stride + j * col_stride] = static_cast<T>(u(rng()));
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&device), n * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpyAsync(device, host.data(), n * sizeof(T), cudaMemcpyHostToDevice, s), cudaSuccess);
  }
  ~DenseOnDevice() { (void)cudaFree(device); }
  T at(Index i, Index j) const { return host[i * row_stride + j * col_stride]; }
  snk::DeviceDense view() const { return snk::DeviceDense{device, rows, cols, row_stride, col_stride}; }
  std::vector<T> read(cudaStream_t s) {
    std::vector<T> out(host.size());
    EXPECT_EQ(cudaMemcpyAsync(out.data(), device, out.size() * sizeof(T), cudaMemcpyDeviceToHost, s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    return out;
  }
};

// |got - want| within a few roundings of the type on the sum of the terms' magnitudes.
template <class T>
void expect_sum_close(double got, double want, double magnitude, const std::string& what) {
  const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-14;
  EXPECT_NEAR(got, want, 8 * eps * (magnitude + 1)) << what;
}

template <class T>
void check_device_products(const Type* type, cudaStream_t s) {
  const Index m = 150, k = 90;
  const Matrix A = covering(type, m, k, 0.08);
  const Index nnz = A.nvals();
  std::vector<Index> ai(nnz), aj(nnz);
  std::vector<double> ignored(nnz);
  A.extract_tuples(ai.data(), aj.data(), ignored.data(), &snk::types::FP64);
  std::vector<T> av(nnz);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : av) v = static_cast<T>(u(rng()));
  T* dv = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dv), nnz * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(dv, av.data(), nnz * sizeof(T), cudaMemcpyHostToDevice, s), cudaSuccess);
  snk::BackendScope on_gpu("cuda");
  for (const Index n : {Index(1), Index(7), Index(64), Index(300)})
    for (const bool transpose : {false, true})
      for (const int xl : {0, 1, 2})
        for (const int yl : {0, 1, 2}) {
          const Index rows_in = transpose ? m : k, rows_out = transpose ? k : m;
          DenseOnDevice<T> X(rows_in, n, xl, s, true), Y(rows_out, n, yl, s, false);
          const std::string what = type->name + (transpose ? " A^T X" : " A X") + ", batch " + std::to_string(n) +
                                   ", layouts " + std::to_string(xl) + "/" + std::to_string(yl);
          ASSERT_TRUE(snk::device_sparse_times_dense(Y.view(), A, dv, transpose, X.view(), s)) << what;
          const std::vector<T> got = Y.read(s);
          std::vector<double> want(rows_out * n, 0.0), size(rows_out * n, 0.0);
          for (Index e = 0; e < nnz; ++e) {
            const Index r = transpose ? aj[e] : ai[e], c = transpose ? ai[e] : aj[e];
            for (Index b = 0; b < n; ++b) {
              const double term = double(av[e]) * double(X.at(c, b));
              want[r * n + b] += term;
              size[r * n + b] += std::fabs(term);
            }
          }
          for (Index r = 0; r < rows_out; ++r)
            for (Index b = 0; b < n; ++b)
              expect_sum_close<T>(got[r * Y.row_stride + b * Y.col_stride], want[r * n + b], size[r * n + b],
                                  what + " at (" + std::to_string(r) + ", " + std::to_string(b) + ")");
          if (::testing::Test::HasFailure()) return;
        }
  // Row sums of X, and (FP32) the sampled product X Y at A's positions, X m x n and Y n x k.
  for (const Index n : {Index(1), Index(33), Index(700)})
    for (const int xl : {0, 1}) {
      DenseOnDevice<T> X(m, n, xl, s, true);
      const std::string what = type->name + " batch " + std::to_string(n) + ", layout " + std::to_string(xl);
      std::vector<T> poison(std::max(m, nnz), std::numeric_limits<T>::quiet_NaN());
      T* dz = nullptr;
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dz), poison.size() * sizeof(T)), cudaSuccess);
      ASSERT_EQ(cudaMemcpyAsync(dz, poison.data(), m * sizeof(T), cudaMemcpyHostToDevice, s), cudaSuccess);
      ASSERT_TRUE(snk::device_row_sums(dz, type, X.view(), s)) << what;
      std::vector<T> sums(m);
      ASSERT_EQ(cudaMemcpyAsync(sums.data(), dz, m * sizeof(T), cudaMemcpyDeviceToHost, s), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
      for (Index i = 0; i < m; ++i) {
        double want = 0, size = 0;
        for (Index b = 0; b < n; ++b) want += double(X.at(i, b)), size += std::fabs(double(X.at(i, b)));
        expect_sum_close<T>(sums[i], want, size, "row sums, " + what + ", row " + std::to_string(i));
      }
      if (!std::is_same_v<T, float>) {
        (void)cudaFree(dz);
        continue;
      }
      for (const int yl : {0, 1}) {
        DenseOnDevice<T> Y(n, k, yl, s, true);
        ASSERT_EQ(cudaMemcpyAsync(dz, poison.data(), nnz * sizeof(T), cudaMemcpyHostToDevice, s), cudaSuccess);
        ASSERT_TRUE(snk::device_sampled_product(dz, A, X.view(), Y.view(), s)) << what;
        std::vector<T> z(nnz);
        ASSERT_EQ(cudaMemcpyAsync(z.data(), dz, nnz * sizeof(T), cudaMemcpyDeviceToHost, s), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
        for (Index e = 0; e < nnz; ++e) {
          double want = 0, size = 0;
          for (Index b = 0; b < n; ++b) {
            const double term = double(X.at(ai[e], b)) * double(Y.at(b, aj[e]));
            want += term, size += std::fabs(term);
          }
          expect_sum_close<T>(z[e], want, size, "sampled, " + what + ", Y layout " + std::to_string(yl));
        }
      }
      (void)cudaFree(dz);
      if (::testing::Test::HasFailure()) return;
    }
  (void)cudaFree(dv);
}
}  // namespace

// The products on the caller's device memory (snk::device_sparse_times_dense, device_sampled_product,
// device_row_sums) against float64 host sums: A X and A^T X with X and Y row-major, column-major and padded, batches
// from 1 to several tiles, row sums of both layouts, the sampled product (FP32) with both operands both ways; every
// result poisoned first and its inputs written on a non-blocking caller stream that is not waited for. An A with an
// empty row, or with a 2:4 hint, is declined with nothing written; the C API's SNK_mxm_device gives the C++ result.
TEST(CudaBackend, ProductsOnTheCallersDeviceMemory) {
  REQUIRE_CUDA();
  cudaStream_t caller = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&caller, cudaStreamNonBlocking), cudaSuccess);
  check_device_products<float>(&snk::types::FP32, caller);
  check_device_products<double>(&snk::types::FP64, caller);
  {
    const Type* f32 = &snk::types::FP32;
    Matrix holes = sparse_with_empty_rows(f32, 60, 40, 0.2), hinted = covering(f32, 60, 40, 0.2);
    hinted.set_two_four_hint(Matrix::TwoFourHint::BF16);
    DenseOnDevice<float> X(40, 5, 0, caller, true), Y(60, 5, 0, caller, false);
    std::vector<float> values(std::max(holes.nvals(), hinted.nvals()), 1.0f);
    float* dv = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dv), values.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(dv, values.data(), values.size() * 4, cudaMemcpyHostToDevice, caller), cudaSuccess);
    snk::BackendScope on_gpu("cuda");
    EXPECT_FALSE(snk::device_sparse_times_dense(Y.view(), holes, dv, false, X.view(), caller)) << "an empty row";
    EXPECT_FALSE(snk::device_sparse_times_dense(Y.view(), hinted, dv, false, X.view(), caller)) << "a 2:4 hint";
    for (const float v : Y.read(caller)) EXPECT_TRUE(std::isnan(v)) << "a declined product wrote its result";
    (void)cudaFree(dv);
  }
  {  // The C API's form, SNK_mxm_device on a GrB_Matrix of the same pattern, gives the C++ call's result.
    (void)GrB_init(GrB_NONBLOCKING);
    const Type* f32 = &snk::types::FP32;
    const Matrix A = covering(f32, 50, 30, 0.2);
    std::vector<Index> ai(A.nvals()), aj(A.nvals());
    std::vector<float> av(A.nvals());
    A.extract_tuples(ai.data(), aj.data(), av.data(), f32);
    GrB_Matrix G = nullptr;
    ASSERT_EQ(GrB_Matrix_new(&G, GrB_FP32, 50, 30), GrB_SUCCESS);
    ASSERT_EQ(GrB_Matrix_build_FP32(G, reinterpret_cast<const GrB_Index*>(ai.data()),
                                    reinterpret_cast<const GrB_Index*>(aj.data()), av.data(), av.size(), GrB_PLUS_FP32),
              GrB_SUCCESS);
    float* dv = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dv), av.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(dv, av.data(), av.size() * 4, cudaMemcpyHostToDevice, caller), cudaSuccess);
    DenseOnDevice<float> X(30, 9, 0, caller, true), Y1(50, 9, 0, caller, false), Y2(50, 9, 0, caller, false);
    snk::BackendScope on_gpu("cuda");
    ASSERT_TRUE(snk::device_sparse_times_dense(Y1.view(), A, dv, false, X.view(), caller));
    ASSERT_EQ(SNK_mxm_device(SNK_DeviceDense{Y2.device, 50, 9, 9, 1}, G, dv, false, SNK_DeviceDense{X.device, 30, 9, 9, 1},
                             caller),
              GrB_SUCCESS);
    const std::vector<float> y1 = Y1.read(caller), y2 = Y2.read(caller);
    for (std::size_t e = 0; e < y1.size(); ++e)
      EXPECT_TRUE(close(y2[e], y1[e], TypeCode::FP32)) << "SNK_mxm_device at " << e << ": " << y2[e] << " vs " << y1[e];
    (void)cudaFree(dv);
    GrB_Matrix_free(&G);
  }
  (void)cudaStreamDestroy(caller);
}
