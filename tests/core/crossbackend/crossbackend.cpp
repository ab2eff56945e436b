// tests/core/crossbackend/crossbackend.cpp: the shared part of the cross-backend suite: the random
// generators, the comparison, the backend checks of crossbackend.hpp, and the suite's main(), which prints
// which backend is tested (or why it is skipped) and, at the end, "cross-backend cases: N" plus the
// backend's fallback counts. It is linked into each operation's test program, which CTest runs once per backend
// with --xb-backend=NAME naming it.
#include "crossbackend.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>

namespace xb {

using namespace snk;

namespace {
std::string& backend_argument() {   // --xb-backend=NAME (main() reads it)
  static std::string name;
  return name;
}
}  // namespace

const std::string& backend_under_test() {
  static const std::string name = backend_argument().empty() ? std::string("kokkos") : backend_argument();
  return name;
}

bool backend_usable() {
  for (const auto& n : available_backends())
    if (n == backend_under_test()) return true;
  return false;
}

std::string available_backends_text() {
  std::string out;
  for (const auto& n : available_backends()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// ---- random inputs ---------------------------------------------------------------------------------------
std::uint64_t base_seed() {
  static const std::uint64_t seed = []() -> std::uint64_t {
    if (const char* env = std::getenv("SNACK_XB_SEED"); env != nullptr && *env != '\0')
      return static_cast<std::uint64_t>(std::strtoull(env, nullptr, 10));
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) % 1000000007ull;
  }();
  return seed;
}

Rng test_rng() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
  std::seed_seq seq{static_cast<std::uint32_t>(base_seed()), static_cast<std::uint32_t>(base_seed() >> 32),
                    static_cast<std::uint32_t>(std::hash<std::string>{}(name))};
  return Rng(seq);
}

namespace {

bool is_unsigned(TypeCode c) {
  return c == TypeCode::UInt8 || c == TypeCode::UInt16 || c == TypeCode::UInt32 || c == TypeCode::UInt64;
}
bool is_float(TypeCode c) { return c == TypeCode::FP32 || c == TypeCode::FP64; }

// Builds a matrix of `type` from distinct positions and values drawn as doubles (cast by build()).
Matrix build_from(const Type* type, Index nrows, Index ncols, const std::vector<Index>& I,
                  const std::vector<Index>& J, Rng& rng, const ValueRange& r) {
  std::vector<double> x(I.size());
  for (auto& v : x) v = draw_value(type->code, r, rng);
  Matrix A(type, nrows, ncols);
  A.build(I.data(), J.data(), x.data(), &types::FP64, I.size(), nullptr);
  return A;
}

// Distinct random positions (row-major order), `n` of them, in an nrows x ncols space.
void random_positions(Index nrows, Index ncols, Index n, Rng& rng, std::vector<Index>& I, std::vector<Index>& J) {
  std::set<std::pair<Index, Index>> picked;
  std::uniform_int_distribution<Index> ri(0, nrows - 1), rj(0, ncols - 1);
  while (picked.size() < n) picked.insert({ri(rng), rj(rng)});
  for (const auto& [i, j] : picked) {
    I.push_back(i);
    J.push_back(j);
  }
}

}  // namespace

double draw_value(TypeCode code, const ValueRange& r, Rng& rng) {
  if (code == TypeCode::Bool) return std::bernoulli_distribution(0.5)(rng) ? 1 : 0;
  if (is_float(code)) {
    if (r.special > 0 && std::bernoulli_distribution(r.special)(rng)) {
      switch (r.non_finite ? std::uniform_int_distribution<int>(0, 3)(rng) : 3) {
        case 0: return std::numeric_limits<double>::quiet_NaN();
        case 1: return std::numeric_limits<double>::infinity();
        case 2: return -std::numeric_limits<double>::infinity();
        default: return -0.0;
      }
    }
    const auto lo = static_cast<long long>(std::ceil(r.lo * 4)), hi = static_cast<long long>(std::floor(r.hi * 4));
    return static_cast<double>(std::uniform_int_distribution<long long>(lo, hi)(rng)) / 4;
  }
  long long lo = static_cast<long long>(std::ceil(r.lo)), hi = static_cast<long long>(std::floor(r.hi));
  if (is_unsigned(code)) {
    // keep the width of the range: [-3, 3] becomes [0, 6]
    hi = hi - std::min(lo, 0LL);
    lo = std::max(lo, 0LL);
  }
  return static_cast<double>(std::uniform_int_distribution<long long>(lo, hi)(rng));
}

Matrix random_matrix(const Type* type, Index nrows, Index ncols, double density, Rng& rng, const ValueRange& r) {
  std::vector<Index> I, J;
  std::bernoulli_distribution present(std::min(1.0, std::max(0.0, density)));
  for (Index i = 0; i < nrows; ++i)
    for (Index j = 0; j < ncols; ++j)
      if (density >= 1 || present(rng)) {
        I.push_back(i);
        J.push_back(j);
      }
  return build_from(type, nrows, ncols, I, J, rng, r);
}

Matrix sparse_matrix_with(const Type* type, Index nrows, Index ncols, Index nvals, Rng& rng, const ValueRange& r) {
  std::vector<Index> I, J;
  if (nrows > 0 && ncols > 0) random_positions(nrows, ncols, nvals, rng, I, J);
  return build_from(type, nrows, ncols, I, J, rng, r);
}

std::vector<Index> random_indices(Index n, Index count, Rng& rng) {
  std::set<Index> picked;
  std::uniform_int_distribution<Index> pick(0, n - 1);
  while (picked.size() < std::min(n, count)) picked.insert(pick(rng));
  return std::vector<Index>(picked.begin(), picked.end());
}

Matrix sparse_matrix_on(const Type* type, Index nrows, Index ncols, const std::vector<Index>& rows,
                        const std::vector<Index>& cols, Index nvals, Rng& rng, const ValueRange& r) {
  std::set<std::pair<Index, Index>> picked;
  std::uniform_int_distribution<std::size_t> ri(0, rows.size() - 1), rj(0, cols.size() - 1);
  nvals = std::min<Index>(nvals, rows.size() * cols.size());
  while (picked.size() < nvals) picked.insert({rows[ri(rng)], cols[rj(rng)]});
  std::vector<Index> I, J;
  for (const auto& [i, j] : picked) {
    I.push_back(i);
    J.push_back(j);
  }
  return build_from(type, nrows, ncols, I, J, rng, r);
}

namespace {
Vector as_vector(const Matrix& row) {
  Vector v(row.type(), row.ncols());
  const Index n = row.nvals();
  std::vector<Index> J(n);
  std::vector<unsigned char> x(n * row.type()->size + 8);
  row.extract_tuples(nullptr, J.data(), x.data(), row.type());
  v.build(J.data(), x.data(), row.type(), n, nullptr);
  return v;
}
}  // namespace

Vector random_vector(const Type* type, Index n, double density, Rng& rng, const ValueRange& r) {
  return as_vector(random_matrix(type, 1, n, density, rng, r));
}

Vector sparse_vector_with(const Type* type, Index n, Index nvals, Rng& rng, const ValueRange& r) {
  return as_vector(sparse_matrix_with(type, 1, n, nvals, rng, r));
}

Matrix random_mask(Index nrows, Index ncols, double density, Rng& rng, const Type* type) {
  // Bool values are true/false with probability 1/2 each; for another type, 0 or 1 likewise.
  return random_matrix(type, nrows, ncols, density, rng, ValueRange{0, 1, 0});
}

Vector random_mask_vector(Index n, double density, Rng& rng, const Type* type) {
  return as_vector(random_mask(1, n, density, rng, type));
}

Scalar scalar_of(const Type* type, double value) {
  Scalar s(type);
  s.set(&value, &types::FP64);
  return s;
}

Scalar random_scalar(const Type* type, Rng& rng, const ValueRange& r) {
  return scalar_of(type, draw_value(type->code, r, rng));
}

// ---- the call vocabulary ---------------------------------------------------------------------------------
const std::vector<MaskKind>& all_mask_kinds() {
  static const std::vector<MaskKind> kinds{MaskKind::None, MaskKind::Valued, MaskKind::Structural,
                                           MaskKind::ValuedComplement, MaskKind::StructuralComplement};
  return kinds;
}

std::string name_of(MaskKind k) {
  switch (k) {
    case MaskKind::None: return "no mask";
    case MaskKind::Valued: return "valued mask";
    case MaskKind::Structural: return "structural mask";
    case MaskKind::ValuedComplement: return "complemented valued mask";
    default: return "complemented structural mask";
  }
}

Descriptor with_mask(Descriptor d, MaskKind k) {
  d.mask_structure = k == MaskKind::Structural || k == MaskKind::StructuralComplement;
  d.mask_complement = k == MaskKind::ValuedComplement || k == MaskKind::StructuralComplement;
  return d;
}

const std::vector<AccumKind>& all_accum_kinds() {
  static const std::vector<AccumKind> kinds{AccumKind::None, AccumKind::Plus, AccumKind::Minus};
  return kinds;
}

std::string name_of(AccumKind k) {
  switch (k) {
    case AccumKind::None: return "no accum";
    case AccumKind::Plus: return "accum PLUS";
    default: return "accum MINUS";
  }
}

const BinaryOp* accum_of(AccumKind k, TypeCode code) {
  switch (k) {
    case AccumKind::None: return nullptr;
    case AccumKind::Plus: return builtin_binary_op(BinaryOpcode::Plus, code);
    default: return builtin_binary_op(BinaryOpcode::Minus, code);
  }
}

std::string describe(MaskKind m, AccumKind a, bool replace) {
  return name_of(m) + ", " + name_of(a) + (replace ? ", replace" : "");
}

std::string dims(const Matrix& A) {
  return std::to_string(A.nrows()) + "x" + std::to_string(A.ncols()) + " (" + std::to_string(A.nvals()) +
         " entries)";
}

// ---- comparison -------------------------------------------------------------------------------------------
namespace {

template <class T>
bool floats_match(T a, T b, double tol, double scale) {
  if (std::isnan(a) && std::isnan(b)) return true;
  if (a == b) return true;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return false;
  const double mag = std::max({std::fabs(double(a)), std::fabs(double(b)), scale});
  return std::fabs(double(a) - double(b)) <= tol * mag;
}

// Value k of two packed arrays of `code` match (the rule of same_matrix).
bool values_match(TypeCode code, const unsigned char* a, const unsigned char* b, double scale) {
  if (code == TypeCode::FP32) {
    float x, y;
    std::memcpy(&x, a, sizeof x);
    std::memcpy(&y, b, sizeof y);
    return floats_match(x, y, 1e-5, scale);
  }
  if (code == TypeCode::FP64) {
    double x, y;
    std::memcpy(&x, a, sizeof x);
    std::memcpy(&y, b, sizeof y);
    return floats_match(x, y, 1e-12, scale);
  }
  if (code == TypeCode::Bool) return (*a != 0) == (*b != 0);
  return std::memcmp(a, b, builtin_type(code)->size) == 0;
}

std::string value_text(TypeCode code, const unsigned char* v) {
  double d = 0;
  cast_array(&types::FP64, &d, builtin_type(code), v, 1);
  std::ostringstream os;
  os.precision(17);
  if (code == TypeCode::Int64 || code == TypeCode::UInt64) {
    if (code == TypeCode::Int64) {
      std::int64_t x;
      std::memcpy(&x, v, 8);
      os << x;
    } else {
      std::uint64_t x;
      std::memcpy(&x, v, 8);
      os << x;
    }
  } else {
    os << d;
  }
  return os.str();
}

struct Tuples {
  std::vector<Index> I, J;
  std::vector<unsigned char> x;
};

Tuples tuples_of(const Matrix& A) {
  Tuples t;
  const Index n = A.nvals();
  t.I.resize(n);
  t.J.resize(n);
  t.x.resize(n * A.type()->size + 8);
  A.extract_tuples(t.I.data(), t.J.data(), t.x.data(), A.type());
  return t;
}

}  // namespace

::testing::AssertionResult same_matrix(const Matrix& expected, const Matrix& got, double scale) {
  if (expected.type() != got.type())
    return ::testing::AssertionFailure() << "type: expected " << expected.type()->name << ", got "
                                         << got.type()->name;
  if (expected.nrows() != got.nrows() || expected.ncols() != got.ncols())
    return ::testing::AssertionFailure() << "dimensions: expected " << dims(expected) << ", got " << dims(got);
  const TypeCode code = expected.type()->code;
  if (code == TypeCode::UDT) return ::testing::AssertionFailure() << "user-defined types are not compared here";
  const Tuples e = tuples_of(expected), g = tuples_of(got);
  const std::size_t sz = expected.type()->size;
  std::ostringstream diff;
  int shown = 0;
  std::size_t a = 0, b = 0, mismatches = 0;
  auto show = [&](const std::string& what) {
    ++mismatches;
    if (shown++ < 8) diff << "\n    " << what;
  };
  while (a < e.I.size() || b < g.I.size()) {
    const bool take_e = a < e.I.size() && (b >= g.I.size() || std::make_pair(e.I[a], e.J[a]) <= std::make_pair(g.I[b], g.J[b]));
    const bool take_g = b < g.I.size() && (a >= e.I.size() || std::make_pair(g.I[b], g.J[b]) <= std::make_pair(e.I[a], e.J[a]));
    if (take_e && take_g) {
      if (!values_match(code, &e.x[a * sz], &g.x[b * sz], scale))
        show("(" + std::to_string(e.I[a]) + "," + std::to_string(e.J[a]) + "): expected " +
             value_text(code, &e.x[a * sz]) + ", got " + value_text(code, &g.x[b * sz]));
      ++a;
      ++b;
    } else if (take_e) {
      show("(" + std::to_string(e.I[a]) + "," + std::to_string(e.J[a]) + "): expected " +
           value_text(code, &e.x[a * sz]) + ", got no entry");
      ++a;
    } else {
      show("(" + std::to_string(g.I[b]) + "," + std::to_string(g.J[b]) + "): expected no entry, got " +
           value_text(code, &g.x[b * sz]));
      ++b;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " mismatching position(s) in a " << expected.type()->name
                                       << " " << expected.nrows() << "x" << expected.ncols() << " output ("
                                       << e.I.size() << " expected entries, " << g.I.size()
                                       << " got); first ones:" << diff.str();
}

::testing::AssertionResult same_vector(const Vector& expected, const Vector& got, double scale) {
  return same_matrix(expected.as_matrix(), got.as_matrix(), scale);
}

::testing::AssertionResult same_scalar(const Scalar& expected, const Scalar& got, double scale) {
  if (expected.type() != got.type())
    return ::testing::AssertionFailure() << "type: expected " << expected.type()->name << ", got "
                                         << got.type()->name;
  if (expected.has_value() != got.has_value())
    return ::testing::AssertionFailure() << "scalar: expected " << (expected.has_value() ? "a value" : "no value")
                                         << ", got " << (got.has_value() ? "a value" : "no value");
  if (!expected.has_value()) return ::testing::AssertionSuccess();
  const TypeCode code = expected.type()->code;
  const auto* e = static_cast<const unsigned char*>(expected.data());
  const auto* g = static_cast<const unsigned char*>(got.data());
  if (values_match(code, e, g, scale)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "scalar: expected " << value_text(code, e) << ", got " << value_text(code, g);
}

// ---- running cases ----------------------------------------------------------------------------------------
Outcome run_on(const std::string& backend, const std::function<void()>& call) {
  Outcome o;
  try {
    BackendScope scope(backend);
    call();
  } catch (const Error& e) {
    o.threw = true;
    o.info = e.info();
    o.message = std::string(info_name(e.info())) + ": " + e.what();
  } catch (const std::exception& e) {
    o.threw = true;
    o.info = Info::Panic;
    o.message = std::string("a non-snk exception: ") + e.what();
    ADD_FAILURE() << "backend " << backend << " threw a non-snk::Error exception: " << e.what();
  }
  return o;
}

const std::vector<std::string>& operations_without_fallback() {
  static const std::vector<std::string> ops{"mxm",    "ewise_add", "ewise_mult", "apply",  "select",
                                            "reduce", "transpose", "extract",    "assign", "kronecker"};
  return ops;
}

std::vector<std::uint64_t> fallback_snapshot() {
  const auto counts = fallback_counts(backend_under_test());
  std::vector<std::uint64_t> out;
  for (const auto& op : operations_without_fallback()) {
    auto it = counts.find(op);
    out.push_back(it == counts.end() ? 0 : it->second);
  }
  return out;
}

void expect_no_new_fallbacks(const std::vector<std::uint64_t>& before, const std::string& label) {
  // kokkos and cuda cover these operations for every builtin type and operator: a fallback is a failure.
  const std::string backend = backend_under_test();
  if (backend != "kokkos" && backend != "cuda") return;
  const auto after = fallback_snapshot();
  for (std::size_t k = 0; k < after.size(); ++k)
    EXPECT_EQ(after[k], before[k]) << backend << " declined " << operations_without_fallback()[k]
                                   << " (fell back to reference) in: " << label;
}

namespace {
std::atomic<long> case_counter{0};
}
void count_case() { case_counter.fetch_add(1, std::memory_order_relaxed); }
long cases_run() { return case_counter.load(); }

const std::vector<TypeCode>& every_builtin_type() {
  static const std::vector<TypeCode> codes{TypeCode::Bool,   TypeCode::Int8,   TypeCode::Int16,  TypeCode::Int32,
                                           TypeCode::Int64,  TypeCode::UInt8,  TypeCode::UInt16, TypeCode::UInt32,
                                           TypeCode::UInt64, TypeCode::FP32,   TypeCode::FP64};
  return codes;
}

std::string type_name(const ::testing::TestParamInfo<TypeCode>& info) { return snk::builtin_type(info.param)->name; }

void CrossBackend::SetUp() {
  if (!backend_usable())
    GTEST_SKIP() << "backend \"" << backend_under_test() << "\" is not usable here (available: "
                 << available_backends_text() << "): " << snk::unavailable_backends()[backend_under_test()];
  rng_ = test_rng();
}

namespace {

// Prints the backend tested at start, and the number of cases and the backend's fallbacks at the end.
class CaseCountReporter : public ::testing::Environment {
 public:
  void SetUp() override {
    if (backend_usable())
      std::printf("[crossbackend] %s against reference (available backends: %s), SNACK_XB_SEED=%llu\n",
                  backend_under_test().c_str(), available_backends_text().c_str(),
                  static_cast<unsigned long long>(base_seed()));
    else
      std::printf("[crossbackend] %s is not usable here (available backends: %s): its cases are skipped\n",
                  backend_under_test().c_str(), available_backends_text().c_str());
  }
  void TearDown() override {
    std::string fallbacks;
    if (backend_usable())
      for (const auto& [op, n] : fallback_counts(backend_under_test()))
        fallbacks += " " + op + "=" + std::to_string(n);
    std::printf("[crossbackend] %s: cross-backend cases: %ld (fallbacks to reference:%s)\n",
                backend_under_test().c_str(), cases_run(), fallbacks.empty() ? " none" : fallbacks.c_str());
    std::fflush(stdout);
  }
};

}  // namespace
}  // namespace xb

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int k = 1; k < argc; ++k)
    if (std::strncmp(argv[k], "--xb-backend=", 13) == 0) xb::backend_argument() = argv[k] + 13;
  ::testing::AddGlobalTestEnvironment(new xb::CaseCountReporter);
  return RUN_ALL_TESTS();
}
