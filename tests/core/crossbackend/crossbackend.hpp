// tests/core/crossbackend/crossbackend.hpp: the shared fixture of the cross-backend suite.
//
// Every test source of this folder (one per operation) is one program, which CTest runs once per backend other
// than reference with --xb-backend=NAME naming it (see CMakeLists.txt here). A case builds random inputs, runs the same call
// on the backend under test and on "reference" (SuiteSparse:GraphBLAS, the oracle), each on its own deep
// copy of the output (the call may read the output too: aliasing cases pass it as an input as well), and
// compares the outputs: integers and bool exactly, floating values with the rule of same_values() below.
// This header holds what every source needs for that: the random generators (matrices, vectors, masks and
// scalars of any builtin type with a chosen shape, density, hypersparsity and value range), the mask /
// accumulator / descriptor vocabulary, the comparison, and cross_check(), which runs one case on both
// backends, checks that the backend under test (kokkos) counted no fallback on the operations it must
// implement, and counts the case. Random inputs are fresh on every run: the base seed comes from
// $SNACK_XB_SEED when set, else from the clock; it is printed with every failure, so that
// `SNACK_XB_SEED=<seed> <test binary> --gtest_filter=<test>` repeats a failing case exactly.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "snack/snack.hpp"


namespace xb {

using snk::Index;
using snk::Matrix;
using snk::Scalar;
using snk::Type;
using snk::TypeCode;
using snk::Vector;

// ---- the backend under test ------------------------------------------------------------------------------
// The backend under test: --xb-backend=NAME (CTest passes it for each registration of a program), else kokkos.
const std::string& backend_under_test();
// True when that backend can be used in this process (compiled into the library; for cuda, a GPU present).
bool backend_usable();
// "reference, kokkos" (for messages).
std::string available_backends_text();

// ---- random inputs ---------------------------------------------------------------------------------------
using Rng = std::mt19937_64;

// The base seed of this run ($SNACK_XB_SEED, else the clock), and a generator for the running test, seeded
// from the base seed and the test's full name (so one test can be repeated on its own).
std::uint64_t base_seed();
Rng test_rng();

// How values are drawn. Integers: uniform in [lo, hi] (lo is raised to 0 for unsigned types), which keeps
// every sum and product of the small matrices here far from the range of the type (no signed overflow,
// which is undefined behaviour in C and C++, so backends may legitimately differ on it). Floating types:
// multiples of 1/4 in [lo, hi], so that sums and products of a few terms are exact in FP32 and FP64 and
// summation order rarely matters; with probability `special` a value is instead NaN, +Inf, -Inf or -0.
// Bool: true with probability 1/2.
struct ValueRange {
  double lo = -3;
  double hi = 3;
  double special = 0;
  bool non_finite = true;  // whether the special values include NaN and +-Inf (else only -0)
};
// Values in {-1, 0, 1} (or {0, 1}): for long products (TIMES monoids) that must not overflow.
inline ValueRange unit_values() { return ValueRange{-1, 1, 0}; }
// The default range with IEEE special values mixed in (floating types only; a no-op for the others).
inline ValueRange with_specials(double p = 0.05) { return ValueRange{-3, 3, p}; }
// The same with -0 as the only special value, for products whose add monoid is MIN or MAX. SuiteSparse 7.4
// departs from the spec there: in some of its mxm / mxv / vxm methods it starts each output entry from the
// monoid's identity, and since fmin(+Inf, NaN) = +Inf, an entry whose only product terms are NaN comes back
// as +Inf (MIN) or -Inf (MAX) instead of NaN, depending on which method it picked (seen with
// GrB_MIN_SECOND_SEMIRING_FP64 on 7x13 * 13x5 inputs; a 1x2 * 2x2 product gives NaN). Infinities are left
// out too, since Inf * 0 and Inf + -Inf make NaN terms.
inline ValueRange with_finite_specials(double p = 0.05) { return ValueRange{-3, 3, p, false}; }

// Rows of the "large" size class: above the serial cut-off of the kokkos kernels (loops over fewer than
// 8192 items or chunks of work run on the calling thread), so that the parallel paths (several chunks,
// per-thread workspaces, parallel scans and compaction) run too.
constexpr Index kLargeRows = 9000;

// One value of `code` drawn from `r`, as a double (exactly representable in the type).
double draw_value(TypeCode code, const ValueRange& r, Rng& rng);

// A random matrix: each position present with probability `density` (1 = every position, a full matrix),
// values from `r`. Dimensions may be 0.
Matrix random_matrix(const Type* type, Index nrows, Index ncols, double density, Rng& rng,
                     const ValueRange& r = {});
// A matrix of any dimensions (up to 2^60) with exactly `nvals` entries at distinct random positions: the
// hypersparse case (e.g. 10^6 x 10^6 with 100 entries).
Matrix sparse_matrix_with(const Type* type, Index nrows, Index ncols, Index nvals, Rng& rng,
                          const ValueRange& r = {});
// `count` distinct indices in [0, n), increasing.
std::vector<Index> random_indices(Index n, Index count, Rng& rng);
// `nvals` distinct entries whose rows are taken from `rows` and columns from `cols` (for hypersparse
// operands that share indices, so that their products and intersections are not empty).
Matrix sparse_matrix_on(const Type* type, Index nrows, Index ncols, const std::vector<Index>& rows,
                        const std::vector<Index>& cols, Index nvals, Rng& rng, const ValueRange& r = {});
Vector random_vector(const Type* type, Index n, double density, Rng& rng, const ValueRange& r = {});
Vector sparse_vector_with(const Type* type, Index n, Index nvals, Rng& rng, const ValueRange& r = {});
// A mask: entries present with probability `density`, of which about half hold an explicit false (0)
// value, so that valued and structural masks differ. `type` defaults to BOOL.
Matrix random_mask(Index nrows, Index ncols, double density, Rng& rng, const Type* type = &snk::types::Bool);
Vector random_mask_vector(Index n, double density, Rng& rng, const Type* type = &snk::types::Bool);
// A scalar of `type` holding one value drawn from `r`.
Scalar random_scalar(const Type* type, Rng& rng, const ValueRange& r = {});
Scalar scalar_of(const Type* type, double value);

// ---- the call vocabulary -------------------------------------------------------------------------------
enum class MaskKind { None, Valued, Structural, ValuedComplement, StructuralComplement };
const std::vector<MaskKind>& all_mask_kinds();
std::string name_of(MaskKind k);
// The descriptor flags of a mask kind, added to `d`.
snk::Descriptor with_mask(snk::Descriptor d, MaskKind k);

// Accumulators used by the cases: none, PLUS (commutative) and MINUS (not commutative, so an accumulator
// applied as accum(T, C) instead of accum(C, T) shows). For BOOL, MINUS is SuiteSparse's/our MINUS_BOOL.
enum class AccumKind { None, Plus, Minus };
const std::vector<AccumKind>& all_accum_kinds();
std::string name_of(AccumKind k);
const snk::BinaryOp* accum_of(AccumKind k, TypeCode code);

// "none/valued/... + accum + replace + transposes" for case labels.
std::string describe(MaskKind m, AccumKind a, bool replace);
std::string dims(const Matrix& A);

// ---- comparison -----------------------------------------------------------------------------------------
// Floating values are equal when both are NaN (any payload), when they compare equal (so -0 == +0: for
// commutative operators SuiteSparse may compute op(y, x), which can change the sign of a zero), or when
// |a - b| <= tol * max(|a|, |b|, scale) with tol = 1e-5 for FP32 and 1e-12 for FP64: summation order may
// differ between backends, and `scale` (the magnitude of the summed terms, 1 by default) keeps the test
// meaningful when a sum cancels to near zero. Every other type must match exactly.
::testing::AssertionResult same_matrix(const Matrix& expected, const Matrix& got, double scale = 1);
::testing::AssertionResult same_vector(const Vector& expected, const Vector& got, double scale = 1);
::testing::AssertionResult same_scalar(const Scalar& expected, const Scalar& got, double scale = 1);
inline ::testing::AssertionResult same(const Matrix& e, const Matrix& g, double s) { return same_matrix(e, g, s); }
inline ::testing::AssertionResult same(const Vector& e, const Vector& g, double s) { return same_vector(e, g, s); }
inline ::testing::AssertionResult same(const Scalar& e, const Scalar& g, double s) { return same_scalar(e, g, s); }

// ---- running a case on both backends -------------------------------------------------------------------
// What a call did: returned, or threw snk::Error (code and message), or threw something else.
struct Outcome {
  bool threw = false;
  snk::Info info = snk::Info::Success;
  std::string message;
};
// Runs `call` with `backend` as this thread's backend and records how it ended.
Outcome run_on(const std::string& backend, const std::function<void()>& call);

// The operations that kokkos and cuda compute for every builtin type and operator: a case on either must not
// increase their fallback counts.
const std::vector<std::string>& operations_without_fallback();
// Fallback counts of the backend under test now, for those operations.
std::vector<std::uint64_t> fallback_snapshot();
// Adds a failure for every operation whose count grew between two snapshots.
void expect_no_new_fallbacks(const std::vector<std::uint64_t>& before, const std::string& label);

// The number of cross-backend cases run so far in this process (printed at exit by the suite's main:
// "cross-backend cases: N").
void count_case();
long cases_run();

struct CaseOptions {
  double scale = 1;               // magnitude of the summed terms (see same_matrix)
  bool builtin_only = true;       // only builtin types and operators: no fallback allowed on kokkos
};

// One cross-backend case: `call(out)` runs on a deep copy of `initial` on reference and on another deep
// copy on the backend under test; both must succeed and give the same output, or both must throw the same
// snk::Info and leave their output as it was. `label` names the case in failure messages.
template <class Out, class Call>
void cross_check(const std::string& label, const Out& initial, Call&& call, const CaseOptions& options = {}) {
  SCOPED_TRACE(label + " [backend " + backend_under_test() + ", SNACK_XB_SEED=" + std::to_string(base_seed()) + "]");
  count_case();
  Out expected = initial;
  const Outcome e = run_on("reference", [&] { call(expected); });
  Out got = initial;
  const std::vector<std::uint64_t> before = fallback_snapshot();
  const Outcome g = run_on(backend_under_test(), [&] { call(got); });
  if (options.builtin_only) expect_no_new_fallbacks(before, label);
  if (e.threw || g.threw) {
    EXPECT_EQ(e.threw, g.threw) << "reference: " << (e.threw ? e.message : std::string("returned")) << "; "
                                << backend_under_test() << ": " << (g.threw ? g.message : std::string("returned"));
    if (e.threw && g.threw) {
      EXPECT_EQ(static_cast<int>(e.info), static_cast<int>(g.info)) << e.message << " / " << g.message;
      EXPECT_TRUE(same(initial, got, options.scale)) << "an output changed by a failing call";
    }
    return;
  }
  EXPECT_TRUE(same(expected, got, options.scale));
}

// ---- fixtures -------------------------------------------------------------------------------------------
// Skips (with the reason printed) when the backend under test is not usable in this process.
class CrossBackend : public ::testing::Test {
 protected:
  void SetUp() override;
  Rng rng_ = Rng(0);
};

// A suite whose tests run once per builtin type. The type is the test's parameter, so each test body is compiled
// once, not once per type. Declare the suite as
// `class Suite : public TypedCrossBackend {};`, instantiate it with XB_FOR_EVERY_TYPE(Suite), and write its tests
// with TEST_P; they are named "EveryType/<Suite>.<Test>/<TYPE>" (BOOL, INT8, ..., FP64).
class TypedCrossBackend : public CrossBackend, public ::testing::WithParamInterface<TypeCode> {
 protected:
  const Type* type() const { return snk::builtin_type(GetParam()); }
  TypeCode code() const { return GetParam(); }
  bool is_float() const { return code() == TypeCode::FP32 || code() == TypeCode::FP64; }
};

// The 11 builtin types, in the spec's order, and a parameter's test-name suffix (the spec's type name).
const std::vector<TypeCode>& every_builtin_type();
std::string type_name(const ::testing::TestParamInfo<TypeCode>& info);

#define XB_FOR_EVERY_TYPE(Suite) \
  INSTANTIATE_TEST_SUITE_P(EveryType, Suite, ::testing::ValuesIn(::xb::every_builtin_type()), ::xb::type_name)

// Semiring helpers shared by the product suites (mxm, mxv/vxm).
inline std::vector<const snk::Semiring*> semirings_of(snk::TypeCode code) {
  std::vector<const snk::Semiring*> out;
  for (const snk::Semiring* s : snk::all_builtin_semirings())
    if (s->multiply->xtype->code == code) out.push_back(s);
  return out;
}

// Inputs with IEEE special values for a floating semiring: only -0 under a MIN or MAX monoid (see
// with_finite_specials for the SuiteSparse departure this avoids).
inline ValueRange special_values_for(const snk::Semiring& s) {
  const snk::TypeCode c = s.multiply->xtype->code;
  if (c != snk::TypeCode::FP32 && c != snk::TypeCode::FP64) return ValueRange{};
  const snk::BinaryOpcode add = s.add->op->opcode;
  return add == snk::BinaryOpcode::Min || add == snk::BinaryOpcode::Max ? with_finite_specials(0.03) : with_specials(0.03);
}

inline const snk::Semiring& semiring(snk::BinaryOpcode add, snk::BinaryOpcode mult, snk::TypeCode code) {
  const snk::Semiring* s = snk::builtin_semiring(add, mult, code);
  if (s == nullptr) throw std::logic_error("no such predefined semiring");
  return *s;
}

}  // namespace xb
