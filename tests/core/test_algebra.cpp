// tests/core/test_algebra.cpp: the algebra (types, casts, operators, monoids, semirings) against the
// C API spec 2.0 and, bit for bit, against SuiteSparse:GraphBLAS 7.4, the reference backend.
//
// Every predefined object must exist with SuiteSparse's name and domains; every builtin cast, unary,
// binary and index-unary function must give exactly SuiteSparse's bytes on special values (0, -0, +-1,
// min, max, NaN, +-inf, values at the edges of every integer range) and on fresh random values (random
// bit patterns included). SuiteSparse is driven through its public API on vectors and matrices of many
// entries (apply, eWiseMult, apply with an index-unary operator), so its own functions are the oracle.
// Only SuiteSparse's header is included here (wrapped in extern "C"), never snack's C API header.
#include <cmath>
#include <complex>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include <GraphBLAS.h>
}

#include <gtest/gtest.h>

#include "snack/algebra.hpp"
#include "snack/error.hpp"
#include "snack/types.hpp"

namespace {

using snk::Index;
using snk::Type;
using snk::TypeCode;
using Bytes = std::vector<unsigned char>;

#define GB_OK(call)                                                      \
  do {                                                                   \
    GrB_Info info_ = (call);                                             \
    ASSERT_EQ(info_, GrB_SUCCESS) << #call;                              \
  } while (0)

class SuiteSparseEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_EQ(GrB_init(GrB_NONBLOCKING), GrB_SUCCESS); }
  void TearDown() override { GrB_finalize(); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new SuiteSparseEnvironment);

std::mt19937_64& rng() {
  static std::mt19937_64 gen(std::random_device{}());
  return gen;
}

// ---- SuiteSparse's predefined objects, by name ------------------------------------------------------------
#define SNK_ALL11(M, P) M(P, BOOL) SNK_NUM10(M, P)
#define SNK_NUM10(M, P) SNK_INT8T(M, P) M(P, FP32) M(P, FP64)
#define SNK_INT8T(M, P) \
  M(P, INT8) M(P, INT16) M(P, INT32) M(P, INT64) M(P, UINT8) M(P, UINT16) M(P, UINT32) M(P, UINT64)
#define SNK_ENTRY(P, T) {"GrB_" #P "_" #T, GrB_##P##_##T},
#define SNK_FLOAT2(M, P) M(P, FP32) M(P, FP64)
#define SNK_EXTENSION(P, T) {"SNK_" #P "_" #T, GxB_##P##_##T},

const std::map<std::string, GrB_UnaryOp>& gb_unary() {
  static const std::map<std::string, GrB_UnaryOp> m = {
      SNK_ALL11(SNK_ENTRY, IDENTITY) SNK_ALL11(SNK_ENTRY, AINV) SNK_ALL11(SNK_ENTRY, MINV)
      SNK_ALL11(SNK_ENTRY, ABS) SNK_INT8T(SNK_ENTRY, BNOT) {"GrB_LNOT", GrB_LNOT},
      // the library's extensions, against SuiteSparse's GxB_ operators of the same function
      SNK_FLOAT2(SNK_EXTENSION, SQRT) SNK_FLOAT2(SNK_EXTENSION, EXP) SNK_FLOAT2(SNK_EXTENSION, LOG)
      SNK_FLOAT2(SNK_EXTENSION, TANH)};
  return m;
}

const std::map<std::string, GrB_BinaryOp>& gb_binary() {
  static const std::map<std::string, GrB_BinaryOp> m = {
      SNK_ALL11(SNK_ENTRY, FIRST) SNK_ALL11(SNK_ENTRY, SECOND) SNK_ALL11(SNK_ENTRY, ONEB)
      SNK_ALL11(SNK_ENTRY, MIN) SNK_ALL11(SNK_ENTRY, MAX) SNK_ALL11(SNK_ENTRY, PLUS)
      SNK_ALL11(SNK_ENTRY, MINUS) SNK_ALL11(SNK_ENTRY, TIMES) SNK_ALL11(SNK_ENTRY, DIV)
      SNK_ALL11(SNK_ENTRY, EQ) SNK_ALL11(SNK_ENTRY, NE) SNK_ALL11(SNK_ENTRY, GT)
      SNK_ALL11(SNK_ENTRY, LT) SNK_ALL11(SNK_ENTRY, GE) SNK_ALL11(SNK_ENTRY, LE)
      SNK_INT8T(SNK_ENTRY, BOR) SNK_INT8T(SNK_ENTRY, BAND) SNK_INT8T(SNK_ENTRY, BXOR)
      SNK_INT8T(SNK_ENTRY, BXNOR)
      {"GrB_LOR", GrB_LOR}, {"GrB_LAND", GrB_LAND}, {"GrB_LXOR", GrB_LXOR}, {"GrB_LXNOR", GrB_LXNOR}};
  return m;
}

const std::map<std::string, GrB_IndexUnaryOp>& gb_index_unary() {
  static const std::map<std::string, GrB_IndexUnaryOp> m = {
      {"GrB_ROWINDEX_INT32", GrB_ROWINDEX_INT32}, {"GrB_ROWINDEX_INT64", GrB_ROWINDEX_INT64},
      {"GrB_COLINDEX_INT32", GrB_COLINDEX_INT32}, {"GrB_COLINDEX_INT64", GrB_COLINDEX_INT64},
      {"GrB_DIAGINDEX_INT32", GrB_DIAGINDEX_INT32}, {"GrB_DIAGINDEX_INT64", GrB_DIAGINDEX_INT64},
      {"GrB_TRIL", GrB_TRIL}, {"GrB_TRIU", GrB_TRIU}, {"GrB_DIAG", GrB_DIAG}, {"GrB_OFFDIAG", GrB_OFFDIAG},
      {"GrB_COLLE", GrB_COLLE}, {"GrB_COLGT", GrB_COLGT}, {"GrB_ROWLE", GrB_ROWLE}, {"GrB_ROWGT", GrB_ROWGT},
      SNK_ALL11(SNK_ENTRY, VALUEEQ) SNK_ALL11(SNK_ENTRY, VALUENE) SNK_ALL11(SNK_ENTRY, VALUELT)
      SNK_ALL11(SNK_ENTRY, VALUELE) SNK_ALL11(SNK_ENTRY, VALUEGT) SNK_ALL11(SNK_ENTRY, VALUEGE)};
  return m;
}

const std::map<std::string, GrB_Monoid>& gb_monoids() {
  static const std::map<std::string, GrB_Monoid> m = {
      SNK_NUM10(SNK_ENTRY, PLUS_MONOID) SNK_NUM10(SNK_ENTRY, TIMES_MONOID) SNK_NUM10(SNK_ENTRY, MIN_MONOID)
      SNK_NUM10(SNK_ENTRY, MAX_MONOID)
      SNK_ENTRY(LOR_MONOID, BOOL) SNK_ENTRY(LAND_MONOID, BOOL) SNK_ENTRY(LXOR_MONOID, BOOL)
      SNK_ENTRY(LXNOR_MONOID, BOOL)};
  return m;
}

const std::map<std::string, GrB_Semiring>& gb_semirings() {
  static const std::map<std::string, GrB_Semiring> m = {
      SNK_NUM10(SNK_ENTRY, PLUS_TIMES_SEMIRING) SNK_NUM10(SNK_ENTRY, PLUS_MIN_SEMIRING)
      SNK_NUM10(SNK_ENTRY, MIN_PLUS_SEMIRING) SNK_NUM10(SNK_ENTRY, MIN_TIMES_SEMIRING)
      SNK_NUM10(SNK_ENTRY, MIN_FIRST_SEMIRING) SNK_NUM10(SNK_ENTRY, MIN_SECOND_SEMIRING)
      SNK_NUM10(SNK_ENTRY, MIN_MAX_SEMIRING) SNK_NUM10(SNK_ENTRY, MAX_PLUS_SEMIRING)
      SNK_NUM10(SNK_ENTRY, MAX_TIMES_SEMIRING) SNK_NUM10(SNK_ENTRY, MAX_FIRST_SEMIRING)
      SNK_NUM10(SNK_ENTRY, MAX_SECOND_SEMIRING) SNK_NUM10(SNK_ENTRY, MAX_MIN_SEMIRING)
      SNK_ENTRY(LOR_LAND_SEMIRING, BOOL) SNK_ENTRY(LAND_LOR_SEMIRING, BOOL)
      SNK_ENTRY(LXOR_LAND_SEMIRING, BOOL) SNK_ENTRY(LXNOR_LOR_SEMIRING, BOOL)};
  return m;
}

// ---- SuiteSparse containers of any builtin type -------------------------------------------------------------
GrB_Type gb_type(const Type* t) {
  static const GrB_Type table[] = {GrB_BOOL,   GrB_INT8,   GrB_INT16,  GrB_INT32, GrB_INT64, GrB_UINT8,
                                   GrB_UINT16, GrB_UINT32, GrB_UINT64, GrB_FP32,  GrB_FP64};
  return table[static_cast<int>(t->code)];
}

// The C name SuiteSparse reports for a type (GxB_*_type_name), "" for none.
std::string c_type_name(const Type* t) {
  if (t == nullptr) return "";
  static const char* names[] = {"bool",     "int8_t",   "int16_t",  "int32_t", "int64_t", "uint8_t",
                                "uint16_t", "uint32_t", "uint64_t", "float",   "double"};
  return names[static_cast<int>(t->code)];
}

#define SNK_TYPE_SWITCH(code, CASE)                                                   \
  switch (code) {                                                                     \
    case TypeCode::Bool: CASE(BOOL, bool); break;                                     \
    case TypeCode::Int8: CASE(INT8, int8_t); break;                                   \
    case TypeCode::Int16: CASE(INT16, int16_t); break;                                \
    case TypeCode::Int32: CASE(INT32, int32_t); break;                                \
    case TypeCode::Int64: CASE(INT64, int64_t); break;                                \
    case TypeCode::UInt8: CASE(UINT8, uint8_t); break;                                \
    case TypeCode::UInt16: CASE(UINT16, uint16_t); break;                             \
    case TypeCode::UInt32: CASE(UINT32, uint32_t); break;                             \
    case TypeCode::UInt64: CASE(UINT64, uint64_t); break;                             \
    case TypeCode::FP32: CASE(FP32, float); break;                                    \
    case TypeCode::FP64: CASE(FP64, double); break;                                   \
    default: FAIL() << "not a builtin type";                                          \
  }

// A matrix of type t with entries (I[k], J[k]) = values[k] (I, J sorted row-major, no duplicates).
void gb_matrix(GrB_Matrix* A, const Type* t, Index nrows, Index ncols, const std::vector<Index>& I,
               const std::vector<Index>& J, const Bytes& values) {
  GB_OK(GrB_Matrix_new(A, gb_type(t), nrows, ncols));
  const GrB_Index n = I.size();
#define SNK_BUILD(S, C) \
  GB_OK(GrB_Matrix_build_##S(*A, I.data(), J.data(), reinterpret_cast<const C*>(values.data()), n, GrB_FIRST_##S))
  SNK_TYPE_SWITCH(t->code, SNK_BUILD)
#undef SNK_BUILD
}

void gb_tuples(GrB_Matrix A, const Type* t, std::vector<Index>* I, std::vector<Index>* J, Bytes* values) {
  GrB_Index n = 0;
  GB_OK(GrB_Matrix_nvals(&n, A));
  I->assign(n, 0);
  J->assign(n, 0);
  values->assign(n * t->size + 1, 0);
#define SNK_TUPLES(S, C) \
  GB_OK(GrB_Matrix_extractTuples_##S(I->data(), J->data(), reinterpret_cast<C*>(values->data()), &n, A))
  SNK_TYPE_SWITCH(t->code, SNK_TUPLES)
#undef SNK_TUPLES
  values->resize(n * t->size);
}

// A 1 x n matrix (SuiteSparse treats it as any other) holding `values` at columns 0 .. n-1.
void gb_row(GrB_Matrix* A, const Type* t, const Bytes& values) {
  const Index n = values.size() / t->size;
  std::vector<Index> I(n, 0), J(n);
  for (Index k = 0; k < n; ++k) J[k] = k;
  gb_matrix(A, t, 1, n == 0 ? 1 : n, I, J, values);
}

// ---- sample values: specials of each type plus fresh random values ----------------------------------------------
struct SampleValues {
  std::size_t nrandom;

  template <class T>
  Bytes operator()() const {
    std::vector<T> v;
    auto& g = rng();
    if constexpr (std::is_same_v<T, bool>) {
      v = {false, true};
      for (std::size_t k = 0; k < nrandom; ++k) v.push_back(g() & 1);
    } else if constexpr (std::is_integral_v<T>) {
      using L = std::numeric_limits<T>;
      for (long long s : {0LL, 1LL, -1LL, 2LL, -2LL, 3LL, 7LL, -7LL, 100LL, -100LL}) v.push_back(T(s));
      for (T s : {L::min(), T(L::min() + 1), T(L::min() / 2), L::max(), T(L::max() - 1), T(L::max() / 2)})
        v.push_back(s);
      for (std::size_t k = 0; k < nrandom; ++k) {
        if (k % 2) v.push_back(T(g()));
        else v.push_back(T(static_cast<long long>(g() % 21) - 10));
      }
    } else {
      using L = std::numeric_limits<T>;
      const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.7, -3.7, 127.5, 128.0,
                                 -128.5, -129.0, 255.9, 256.0, 32767.5, 65535.9, 65536.0, -32769.0,
                                 2147483647.0, 2147483647.5, 2147483648.0, -2147483648.0, -2147483649.0,
                                 4294967295.5, 4294967296.0, 9.2e18, 9223372036854775807.0,
                                 -9223372036854775808.0, -9.3e18, 1.8446744073709552e19, 2e19, 1e30, -1e30,
                                 1e300, -1e300, 1e-300};
      for (double s : specials) v.push_back(T(s));
      for (T s : {L::max(), L::lowest(), L::min(), L::denorm_min(), L::infinity(), -L::infinity(),
                  L::quiet_NaN(), -L::quiet_NaN()})
        v.push_back(s);
      std::uniform_real_distribution<double> small(-300.0, 300.0);
      for (std::size_t k = 0; k < nrandom; ++k) {
        if (k % 2) {
          // a random bit pattern: every exponent, NaN payloads, subnormals
          using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
          U bits = U(g());
          T x;
          std::memcpy(&x, &bits, sizeof(T));
          v.push_back(x);
        } else {
          v.push_back(T(small(g)));
        }
      }
    }
    Bytes b(v.size() * sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      for (std::size_t k = 0; k < v.size(); ++k) b[k] = v[k] ? 1 : 0;
    } else if (!v.empty()) {
      std::memcpy(b.data(), v.data(), b.size());
    }
    return b;
  }
};

Bytes samples(const Type* t, std::size_t nrandom) { return snk::dispatch_type(t->code, SampleValues{nrandom}); }

std::string hex(const unsigned char* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (std::size_t k = n; k-- > 0;) {
    s += digits[p[k] >> 4];
    s += digits[p[k] & 15];
  }
  return s;
}

// Compares our results against SuiteSparse's, value by value, byte for byte. Where `swapped` is given (our
// results with the operands exchanged, for a commutative operator), SuiteSparse may match either: it treats
// op(x, y) and op(y, x) of a commutative builtin operator as the same and picks the order by code path,
// which is visible only in the sign of a zero from MIN/MAX and in which of two NaNs comes back; such
// values are counted in *by_swap. Returns the number of values compared.
std::size_t expect_same_bytes(const std::string& what, const Type* t, const Bytes& ours, const Bytes& theirs,
                              const std::vector<std::string>& inputs, const Bytes* swapped = nullptr,
                              std::size_t* by_swap = nullptr) {
  EXPECT_EQ(ours.size(), theirs.size()) << what;
  if (ours.size() != theirs.size()) return 0;
  const std::size_t n = ours.size() / t->size;
  int reported = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const unsigned char* a = ours.data() + k * t->size;
    const unsigned char* b = theirs.data() + k * t->size;
    if (std::memcmp(a, b, t->size) == 0) continue;
    if (swapped != nullptr && std::memcmp(swapped->data() + k * t->size, b, t->size) == 0) {
      if (by_swap) ++*by_swap;
      continue;
    }
    if (reported++ < 8) {
      ADD_FAILURE() << what << " at " << inputs[k] << ": snack " << hex(a, t->size) << ", SuiteSparse "
                    << hex(b, t->size);
    }
  }
  return n;
}

bool commutative(snk::BinaryOpcode op) {
  using B = snk::BinaryOpcode;
  switch (op) {
    case B::Oneb: case B::Min: case B::Max: case B::Plus: case B::Times: case B::Eq: case B::Ne:
    case B::LOr: case B::LAnd: case B::LXor: case B::LXnor: case B::BOr: case B::BAnd: case B::BXor:
    case B::BXnor:
      return true;
    default:
      return false;
  }
}

// ---- (a) the predefined objects -------------------------------------------------------------------------------
TEST(Algebra, BuiltinTypes) {
  const char* names[] = {"BOOL",   "INT8",   "INT16",  "INT32", "INT64", "UINT8",
                         "UINT16", "UINT32", "UINT64", "FP32",  "FP64"};
  const std::size_t sizes[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
  for (int k = 0; k < snk::kBuiltinTypeCount; ++k) {
    const Type* t = snk::builtin_types()[k];
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(static_cast<int>(t->code), k);
    EXPECT_EQ(t->name, names[k]);
    EXPECT_EQ(t->size, sizes[k]);
    EXPECT_TRUE(t->builtin());
    EXPECT_EQ(snk::builtin_type(t->code), t);
    size_t gb_size = 0;
    GB_OK(GxB_Type_size(&gb_size, gb_type(t)));
    EXPECT_EQ(gb_size, t->size);
  }
  EXPECT_EQ(snk::builtin_type(TypeCode::UDT), nullptr);
  EXPECT_EQ(snk::type_of<double>(), &snk::types::FP64);
  EXPECT_EQ(snk::type_of<uint16_t>(), &snk::types::UInt16);
}

TEST(Algebra, PredefinedObjectsMatchSuiteSparse) {
  const auto& un = snk::all_builtin_unary_ops();
  const auto& bin = snk::all_builtin_binary_ops();
  const auto& idx = snk::all_builtin_index_unary_ops();
  const auto& mon = snk::all_builtin_monoids();
  const auto& sr = snk::all_builtin_semirings();
  std::cout << "[algebra] predefined objects: " << un.size() << " unary ops, " << bin.size()
            << " binary ops, " << idx.size() << " index-unary ops, " << mon.size() << " monoids, " << sr.size()
            << " semirings\n";
  EXPECT_EQ(un.size(), gb_unary().size());
  EXPECT_EQ(bin.size(), gb_binary().size());
  EXPECT_EQ(idx.size(), gb_index_unary().size());
  EXPECT_EQ(mon.size(), gb_monoids().size());
  EXPECT_EQ(sr.size(), gb_semirings().size());
  EXPECT_EQ(un.size(), 61u);   // the spec's 53 and the library's 8 (SQRT, EXP, LOG, TANH on FP32 and FP64)
  EXPECT_EQ(bin.size(), 201u);
  EXPECT_EQ(idx.size(), 80u);
  EXPECT_EQ(mon.size(), 44u);
  EXPECT_EQ(sr.size(), 124u);

  char name[GxB_MAX_NAME_LEN];
  std::set<std::string> seen;
  for (const snk::UnaryOp* op : un) {
    ASSERT_TRUE(gb_unary().count(op->name)) << op->name;
    EXPECT_TRUE(seen.insert(op->name).second) << op->name;
    GrB_UnaryOp g = gb_unary().at(op->name);
    GB_OK(GxB_UnaryOp_ztype_name(name, g));
    EXPECT_EQ(c_type_name(op->ztype), name) << op->name;
    GB_OK(GxB_UnaryOp_xtype_name(name, g));
    EXPECT_EQ(c_type_name(op->xtype), name) << op->name;
    EXPECT_EQ(snk::builtin_unary_op(op->opcode, op->xtype->code), op);
    EXPECT_NE(op->fn, nullptr);
  }
  for (const snk::BinaryOp* op : bin) {
    ASSERT_TRUE(gb_binary().count(op->name)) << op->name;
    EXPECT_TRUE(seen.insert(op->name).second) << op->name;
    GrB_BinaryOp g = gb_binary().at(op->name);
    GB_OK(GxB_BinaryOp_ztype_name(name, g));
    EXPECT_EQ(c_type_name(op->ztype), name) << op->name;
    GB_OK(GxB_BinaryOp_xtype_name(name, g));
    EXPECT_EQ(c_type_name(op->xtype), name) << op->name;
    GB_OK(GxB_BinaryOp_ytype_name(name, g));
    EXPECT_EQ(c_type_name(op->ytype), name) << op->name;
    EXPECT_EQ(snk::builtin_binary_op(op->opcode, op->xtype->code), op);
  }
  for (const snk::IndexUnaryOp* op : idx) {
    ASSERT_TRUE(gb_index_unary().count(op->name)) << op->name;
    EXPECT_TRUE(seen.insert(op->name).second) << op->name;
    GrB_IndexUnaryOp g = gb_index_unary().at(op->name);
    GB_OK(GxB_IndexUnaryOp_ztype_name(name, g));
    EXPECT_EQ(c_type_name(op->ztype), name) << op->name;
    GB_OK(GxB_IndexUnaryOp_xtype_name(name, g));
    EXPECT_EQ(c_type_name(op->xtype), name) << op->name;
    GB_OK(GxB_IndexUnaryOp_ytype_name(name, g));
    EXPECT_EQ(c_type_name(op->ytype), name) << op->name;
    EXPECT_EQ(op->positional(), op->xtype == nullptr) << op->name;
    const TypeCode key = op->positional() ? op->ztype->code == TypeCode::Bool ? TypeCode::Int64 : op->ztype->code
                                          : op->xtype->code;
    EXPECT_EQ(snk::builtin_index_unary_op(op->opcode, key), op);
  }
  for (const snk::Monoid* m : mon) {
    ASSERT_TRUE(gb_monoids().count(m->name)) << m->name;
    EXPECT_TRUE(seen.insert(m->name).second) << m->name;
    GrB_Monoid g = gb_monoids().at(m->name);
    GrB_BinaryOp gop = nullptr;
    GB_OK(GxB_Monoid_operator(&gop, g));
    EXPECT_EQ(gop, gb_binary().at(m->op->name)) << m->name;
    Bytes identity(16, 0), terminal(16, 0);
    GB_OK(GxB_Monoid_identity(identity.data(), g));
    ASSERT_EQ(m->identity.size(), m->type()->size);
    EXPECT_EQ(std::memcmp(identity.data(), m->identity.data(), m->type()->size), 0) << m->name << " identity";
    bool has_terminal = false;
    GB_OK(GxB_Monoid_terminal(&has_terminal, terminal.data(), g));
    EXPECT_EQ(has_terminal, m->has_terminal) << m->name;
    if (has_terminal && m->has_terminal) {
      ASSERT_EQ(m->terminal.size(), m->type()->size);
      EXPECT_EQ(std::memcmp(terminal.data(), m->terminal.data(), m->type()->size), 0) << m->name << " terminal";
    }
    EXPECT_EQ(snk::builtin_monoid(m->op->opcode, m->type()->code), m);
  }
  for (const snk::Semiring* s : sr) {
    ASSERT_TRUE(gb_semirings().count(s->name)) << s->name;
    EXPECT_TRUE(seen.insert(s->name).second) << s->name;
    GrB_Semiring g = gb_semirings().at(s->name);
    GrB_Monoid gadd = nullptr;
    GrB_BinaryOp gmul = nullptr;
    GB_OK(GxB_Semiring_add(&gadd, g));
    GB_OK(GxB_Semiring_multiply(&gmul, g));
    EXPECT_EQ(gadd, gb_monoids().at(s->add->name)) << s->name;
    EXPECT_EQ(gmul, gb_binary().at(s->multiply->name)) << s->name;
    EXPECT_EQ(s->multiply->ztype, s->add->type());
    EXPECT_EQ(snk::builtin_semiring(s->add->op->opcode, s->multiply->opcode, s->multiply->xtype->code), s);
  }
}

TEST(Algebra, UndefinedCombinationsAreNull) {
  using B = snk::BinaryOpcode;
  EXPECT_EQ(snk::builtin_unary_op(snk::UnaryOpcode::LNot, TypeCode::FP64), nullptr);
  EXPECT_EQ(snk::builtin_unary_op(snk::UnaryOpcode::BNot, TypeCode::Bool), nullptr);
  EXPECT_EQ(snk::builtin_unary_op(snk::UnaryOpcode::BNot, TypeCode::FP32), nullptr);
  EXPECT_EQ(snk::builtin_unary_op(snk::UnaryOpcode::User, TypeCode::FP32), nullptr);
  EXPECT_EQ(snk::builtin_unary_op(snk::UnaryOpcode::Abs, TypeCode::UDT), nullptr);
  EXPECT_EQ(snk::builtin_binary_op(B::BOr, TypeCode::FP32), nullptr);
  EXPECT_EQ(snk::builtin_binary_op(B::BOr, TypeCode::Bool), nullptr);
  EXPECT_EQ(snk::builtin_binary_op(B::LOr, TypeCode::Int32), nullptr);
  EXPECT_EQ(snk::builtin_binary_op(B::User, TypeCode::Int32), nullptr);
  EXPECT_EQ(snk::builtin_monoid(B::Min, TypeCode::Bool), nullptr);
  EXPECT_EQ(snk::builtin_monoid(B::Plus, TypeCode::Bool), nullptr);
  EXPECT_EQ(snk::builtin_monoid(B::Minus, TypeCode::FP64), nullptr);
  EXPECT_EQ(snk::builtin_monoid(B::LOr, TypeCode::Int8), nullptr);
  EXPECT_EQ(snk::builtin_semiring(B::Plus, B::Times, TypeCode::Bool), nullptr);
  EXPECT_EQ(snk::builtin_semiring(B::Plus, B::Plus, TypeCode::FP64), nullptr);
  EXPECT_EQ(snk::builtin_index_unary_op(snk::IndexUnaryOpcode::RowIndex, TypeCode::FP64), nullptr);
  EXPECT_EQ(snk::builtin_index_unary_op(snk::IndexUnaryOpcode::Tril, TypeCode::Int32), nullptr);
  // EQ on BOOL is LXNOR: the LXNOR monoid and semiring are reachable through either name.
  EXPECT_EQ(snk::builtin_monoid(B::Eq, TypeCode::Bool), snk::builtin_monoid(B::LXnor, TypeCode::Bool));
  EXPECT_EQ(snk::builtin_semiring(B::Eq, B::LOr, TypeCode::Bool)->name, "GrB_LXNOR_LOR_SEMIRING_BOOL");
}

TEST(Algebra, MonoidOf) {
  using B = snk::BinaryOpcode;
  for (const snk::Monoid* m : snk::all_builtin_monoids()) EXPECT_EQ(snk::monoid_of(*m->op), m) << m->name;
  auto bool_op = [](B op) { return snk::builtin_binary_op(op, TypeCode::Bool); };
  EXPECT_EQ(snk::monoid_of(*bool_op(B::Plus))->name, "GrB_LOR_MONOID_BOOL");
  EXPECT_EQ(snk::monoid_of(*bool_op(B::Max))->name, "GrB_LOR_MONOID_BOOL");
  EXPECT_EQ(snk::monoid_of(*bool_op(B::Times))->name, "GrB_LAND_MONOID_BOOL");
  EXPECT_EQ(snk::monoid_of(*bool_op(B::Min))->name, "GrB_LAND_MONOID_BOOL");
  EXPECT_EQ(snk::monoid_of(*bool_op(B::Ne))->name, "GrB_LXOR_MONOID_BOOL");
  EXPECT_EQ(snk::monoid_of(*bool_op(B::Eq))->name, "GrB_LXNOR_MONOID_BOOL");
  EXPECT_EQ(snk::monoid_of(*bool_op(B::First)), nullptr);
  EXPECT_EQ(snk::monoid_of(*snk::builtin_binary_op(B::Div, TypeCode::FP64)), nullptr);
  EXPECT_EQ(snk::monoid_of(*snk::builtin_binary_op(B::Eq, TypeCode::FP64)), nullptr);
  EXPECT_EQ(snk::monoid_of(*snk::builtin_binary_op(B::BOr, TypeCode::UInt8)), nullptr);
  auto user = snk::new_binary_op([](void* z, const void* x, const void*) { std::memcpy(z, x, 8); },
                                 &snk::types::FP64, &snk::types::FP64, &snk::types::FP64);
  EXPECT_EQ(snk::monoid_of(*user), nullptr);
}

// ---- (b) bitwise agreement with SuiteSparse ---------------------------------------------------------------------
TEST(Algebra, CastsMatchSuiteSparse) {
  std::size_t compared = 0;
  for (int f = 0; f < snk::kBuiltinTypeCount; ++f) {
    const Type* from = snk::builtin_types()[f];
    const Bytes x = samples(from, 400);
    const std::size_t n = x.size() / from->size;
    std::vector<std::string> inputs(n);
    for (std::size_t k = 0; k < n; ++k) inputs[k] = from->name + " " + hex(x.data() + k * from->size, from->size);
    GrB_Matrix A = nullptr;
    gb_row(&A, from, x);
    for (int t = 0; t < snk::kBuiltinTypeCount; ++t) {
      const Type* to = snk::builtin_types()[t];
      ASSERT_TRUE(snk::castable(to, from));
      snk::CastFunction cast = snk::cast_function(to, from);
      ASSERT_NE(cast, nullptr);
      Bytes ours(n * to->size), bulk(n * to->size);
      for (std::size_t k = 0; k < n; ++k) cast(ours.data() + k * to->size, x.data() + k * from->size);
      snk::cast_array(to, bulk.data(), from, x.data(), n);
      EXPECT_EQ(ours, bulk) << to->name << " <- " << from->name << ": cast_array differs from cast_function";
      // SuiteSparse casts A to the operator's input type (to) and applies the identity.
      GrB_Matrix C = nullptr;
      GB_OK(GrB_Matrix_new(&C, gb_type(to), 1, n));
      GB_OK(GrB_Matrix_apply(C, nullptr, nullptr, gb_unary().at("GrB_IDENTITY_" + to->name), A, nullptr));
      std::vector<Index> I, J;
      Bytes theirs;
      gb_tuples(C, to, &I, &J, &theirs);
      compared += expect_same_bytes("cast to " + to->name, to, ours, theirs, inputs);
      GrB_Matrix_free(&C);
    }
    GrB_Matrix_free(&A);
  }
  std::cout << "[algebra] casts: 121 type pairs, " << compared << " values compared with SuiteSparse\n";
}

TEST(Algebra, UnaryOpsMatchSuiteSparse) {
  std::size_t compared = 0;
  for (const snk::UnaryOp* op : snk::all_builtin_unary_ops()) {
    const Bytes x = samples(op->xtype, 1000);
    const std::size_t n = x.size() / op->xtype->size;
    std::vector<std::string> inputs(n);
    for (std::size_t k = 0; k < n; ++k) inputs[k] = hex(x.data() + k * op->xtype->size, op->xtype->size);
    Bytes ours(n * op->ztype->size);
    for (std::size_t k = 0; k < n; ++k) op->fn(ours.data() + k * op->ztype->size, x.data() + k * op->xtype->size);
    GrB_Matrix A = nullptr, C = nullptr;
    gb_row(&A, op->xtype, x);
    GB_OK(GrB_Matrix_new(&C, gb_type(op->ztype), 1, n));
    GB_OK(GrB_Matrix_apply(C, nullptr, nullptr, gb_unary().at(op->name), A, nullptr));
    std::vector<Index> I, J;
    Bytes theirs;
    gb_tuples(C, op->ztype, &I, &J, &theirs);
    compared += expect_same_bytes(op->name, op->ztype, ours, theirs, inputs);
    GrB_Matrix_free(&A);
    GrB_Matrix_free(&C);
  }
  std::cout << "[algebra] unary ops: " << snk::all_builtin_unary_ops().size() << " ops, " << compared
            << " values compared with SuiteSparse\n";
}

// Sets a SuiteSparse scalar of type t to the value at p.
void gb_scalar(GrB_Scalar* s, const Type* t, const unsigned char* p) {
  GB_OK(GrB_Scalar_new(s, gb_type(t)));
#define SNK_SET(S, C)                          \
  {                                            \
    C v;                                       \
    std::memcpy(&v, p, sizeof(C));             \
    GB_OK(GrB_Scalar_setElement_##S(*s, v));   \
  }
  SNK_TYPE_SWITCH(t->code, SNK_SET)
#undef SNK_SET
}

// z = op(x, y) for every x of a pool (special values, then random ones) and every y of another: SuiteSparse
// computes it with x bound as the first operand (GrB_Matrix_apply_BinaryOp1st) over a row of all the y
// values.
TEST(Algebra, BinaryOpsMatchSuiteSparse) {
  std::size_t compared = 0, by_swap = 0;
  for (const snk::BinaryOp* op : snk::all_builtin_binary_ops()) {
    const Type* t = op->xtype;
    const std::size_t s = t->size, zs = op->ztype->size;
    const Bytes xs = samples(t, 40), ys = samples(t, 60);
    const std::size_t nx = xs.size() / s, ny = ys.size() / s;
    GrB_Matrix A = nullptr;
    gb_row(&A, t, ys);
    std::vector<std::string> inputs(ny);
    for (std::size_t a = 0; a < nx; ++a) {
      const unsigned char* x = xs.data() + a * s;
      Bytes ours(ny * zs), swapped(ny * zs);
      for (std::size_t b = 0; b < ny; ++b) {
        op->fn(ours.data() + b * zs, x, ys.data() + b * s);
        op->fn(swapped.data() + b * zs, ys.data() + b * s, x);
        inputs[b] = "(" + hex(x, s) + ", " + hex(ys.data() + b * s, s) + ")";
      }
      GrB_Scalar gx = nullptr;
      gb_scalar(&gx, t, x);
      GrB_Matrix C = nullptr;
      GB_OK(GrB_Matrix_new(&C, gb_type(op->ztype), 1, ny));
      GB_OK(GrB_Matrix_apply_BinaryOp1st_Scalar(C, nullptr, nullptr, gb_binary().at(op->name), gx, A, nullptr));
      std::vector<Index> I, J;
      Bytes theirs;
      gb_tuples(C, op->ztype, &I, &J, &theirs);
      compared += expect_same_bytes(op->name, op->ztype, ours, theirs, inputs,
                                    commutative(op->opcode) ? &swapped : nullptr, &by_swap);
      GrB_Matrix_free(&C);
      GrB_Scalar_free(&gx);
    }
    GrB_Matrix_free(&A);
  }
  std::cout << "[algebra] binary ops: " << snk::all_builtin_binary_ops().size() << " ops, " << compared
            << " values compared with SuiteSparse; " << by_swap
            << " of them (float MIN/MAX/PLUS/TIMES on signed zeros or two NaNs) equal op(y, x), which SuiteSparse"
               " computed for op(x, y)\n";
}

// Entries at sorted, distinct positions of an n x n matrix: the corners, a small block near the origin and
// near the diagonal, and random positions.
void index_positions(Index n, std::size_t nrandom, std::vector<Index>* I, std::vector<Index>* J) {
  std::set<std::pair<Index, Index>> p;
  for (Index i : {Index(0), Index(1), n - 1})
    for (Index j : {Index(0), Index(1), n - 1}) p.insert({i, j});
  for (Index i = 0; i < 6; ++i)
    for (Index j = 0; j < 6; ++j) p.insert({i, j});
  for (std::size_t k = 0; k < nrandom; ++k) {
    const Index i = rng()() % n;
    const Index d = rng()() % 11;
    p.insert({i, std::min(n - 1, i + d >= 5 ? i + d - 5 : 0)});   // near the diagonal
    p.insert({rng()() % n, rng()() % n});
    p.insert({rng()() % 64, rng()() % 64});
  }
  I->clear();
  J->clear();
  for (const auto& ij : p) {
    I->push_back(ij.first);
    J->push_back(ij.second);
  }
}

TEST(Algebra, IndexUnaryOpsMatchSuiteSparse) {
  std::size_t compared = 0;
  for (const snk::IndexUnaryOp* op : snk::all_builtin_index_unary_ops()) {
    // Positional operators: an FP64 matrix (values ignored) of dimension 2^40, every thunk of a list.
    // Value operators: a 64 x 64 matrix of sample values, every special value as thunk plus random ones.
    const Type* xtype = op->positional() ? &snk::types::FP64 : op->xtype;
    const Index n = op->positional() ? (Index(1) << 40) : 64;
    std::vector<Index> I, J;
    index_positions(n, 400, &I, &J);
    const std::size_t nvals = I.size();
    Bytes x = samples(xtype, nvals);
    x.resize(nvals * xtype->size);
    GrB_Matrix A = nullptr;
    gb_matrix(&A, xtype, n, n, I, J, x);
    std::vector<std::string> inputs(nvals);
    Bytes thunks;
    if (op->positional()) {
      std::vector<int64_t> y = {0, 1, -1, 2, -2, 5, -5, 63, -63, int64_t(1) << 40, -(int64_t(1) << 40),
                                (int64_t(1) << 40) - 1, int64_t(1) << 31, -(int64_t(1) << 31), INT32_MAX,
                                INT32_MIN};
      for (int k = 0; k < 8; ++k) y.push_back(int64_t(rng()() % 201) - 100);
      for (int64_t v : y) {
        if (op->ytype->code == TypeCode::Int32) {
          const int32_t w = int32_t(v);
          thunks.insert(thunks.end(), reinterpret_cast<const unsigned char*>(&w),
                        reinterpret_cast<const unsigned char*>(&w) + 4);
        } else {
          thunks.insert(thunks.end(), reinterpret_cast<const unsigned char*>(&v),
                        reinterpret_cast<const unsigned char*>(&v) + 8);
        }
      }
    } else {
      thunks = samples(op->ytype, 8);
    }
    const std::size_t ys = op->ytype->size, zs = op->ztype->size;
    for (std::size_t t = 0; t < thunks.size() / ys; ++t) {
      const unsigned char* y = thunks.data() + t * ys;
      Bytes ours(nvals * zs);
      for (std::size_t k = 0; k < nvals; ++k) {
        op->fn(ours.data() + k * zs, x.data() + k * xtype->size, I[k], J[k], y);
        inputs[k] = "(i=" + std::to_string(I[k]) + ", j=" + std::to_string(J[k]) +
                    ", x=" + hex(x.data() + k * xtype->size, xtype->size) + ", y=" + hex(y, ys) + ")";
      }
      GrB_Scalar thunk = nullptr;
      gb_scalar(&thunk, op->ytype, y);
      GrB_Matrix C = nullptr;
      GB_OK(GrB_Matrix_new(&C, gb_type(op->ztype), n, n));
      GB_OK(GrB_Matrix_apply_IndexOp_Scalar(C, nullptr, nullptr, gb_index_unary().at(op->name), A, thunk, nullptr));
      std::vector<Index> CI, CJ;
      Bytes theirs;
      gb_tuples(C, op->ztype, &CI, &CJ, &theirs);
      EXPECT_EQ(CI, I) << op->name;
      EXPECT_EQ(CJ, J) << op->name;
      compared += expect_same_bytes(op->name, op->ztype, ours, theirs, inputs);
      GrB_Matrix_free(&C);
      GrB_Scalar_free(&thunk);
    }
    GrB_Matrix_free(&A);
  }
  std::cout << "[algebra] index-unary ops: " << snk::all_builtin_index_unary_ops().size() << " ops, " << compared
            << " values compared with SuiteSparse\n";
}

// ---- (c) monoids ---------------------------------------------------------------------------------------------------
TEST(Algebra, MonoidIdentitiesAndTerminals) {
  for (const snk::Monoid* m : snk::all_builtin_monoids()) {
    const Type* t = m->type();
    const std::size_t s = t->size;
    EXPECT_EQ(m->op->ztype, t);
    EXPECT_EQ(m->op->xtype, t);
    EXPECT_EQ(m->op->ytype, t);
    const Bytes x = samples(t, 500);
    Bytes z(s);
    for (std::size_t k = 0; k < x.size() / s; ++k) {
      const unsigned char* v = x.data() + k * s;
      double dv = 0;
      snk::cast_function(&snk::types::FP64, t)(&dv, v);
      if (std::isnan(dv)) continue;   // MIN/MAX ignore NaN, so NaN is not absorbed by the identity
      auto same = [&](const unsigned char* a, const unsigned char* b) {
        double da, db;
        snk::cast_function(&snk::types::FP64, t)(&da, a);
        snk::cast_function(&snk::types::FP64, t)(&db, b);
        return t->code == TypeCode::FP32 || t->code == TypeCode::FP64 ? da == db : std::memcmp(a, b, s) == 0;
      };
      m->op->fn(z.data(), m->identity.data(), v);
      EXPECT_TRUE(same(z.data(), v)) << m->name << ": identity (+) " << hex(v, s) << " = " << hex(z.data(), s);
      m->op->fn(z.data(), v, m->identity.data());
      EXPECT_TRUE(same(z.data(), v)) << m->name << ": " << hex(v, s) << " (+) identity = " << hex(z.data(), s);
      if (m->has_terminal) {
        m->op->fn(z.data(), m->terminal.data(), v);
        EXPECT_TRUE(same(z.data(), m->terminal.data())) << m->name << ": terminal does not absorb " << hex(v, s);
        m->op->fn(z.data(), v, m->terminal.data());
        EXPECT_TRUE(same(z.data(), m->terminal.data())) << m->name << ": terminal does not absorb " << hex(v, s);
      }
    }
  }
}

// ---- (d) user-defined objects and their errors ---------------------------------------------------------------------
void user_plus_fp64(void* z, const void* x, const void* y) {
  double a, b;
  std::memcpy(&a, x, 8);
  std::memcpy(&b, y, 8);
  const double r = a + b;
  std::memcpy(z, &r, 8);
}
void user_neg(void* z, const void* x) {
  double a;
  std::memcpy(&a, x, 8);
  a = -a;
  std::memcpy(z, &a, 8);
}
void user_index(void* z, const void*, Index i, Index j, const void*) {
  const bool r = i == j;
  std::memcpy(z, &r, 1);
}

template <class F>
void expect_error(snk::Info info, F&& f) {
  try {
    f();
    ADD_FAILURE() << "expected " << snk::info_name(info) << ", nothing thrown";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), info) << e.what();
    EXPECT_STRNE(e.what(), "");
  }
}

TEST(Algebra, UserDefinedObjects) {
  using snk::Info;
  const Type* fp64 = &snk::types::FP64;
  const Type* i32 = &snk::types::Int32;
  const Type* b = &snk::types::Bool;

  auto u = snk::new_unary_op(user_neg, fp64, fp64, "neg");
  EXPECT_EQ(u->opcode, snk::UnaryOpcode::User);
  EXPECT_EQ(u->name, "neg");
  double v = 2.5, r = 0;
  u->fn(&r, &v);
  EXPECT_EQ(r, -2.5);
  expect_error(Info::NullPointer, [&] { snk::new_unary_op(nullptr, fp64, fp64); });
  expect_error(Info::NullPointer, [&] { snk::new_unary_op(user_neg, nullptr, fp64); });
  expect_error(Info::NullPointer, [&] { snk::new_unary_op(user_neg, fp64, nullptr); });

  auto plus = snk::new_binary_op(user_plus_fp64, fp64, fp64, fp64, "myplus");
  EXPECT_EQ(plus->opcode, snk::BinaryOpcode::User);
  expect_error(Info::NullPointer, [&] { snk::new_binary_op(nullptr, fp64, fp64, fp64); });
  expect_error(Info::NullPointer, [&] { snk::new_binary_op(user_plus_fp64, nullptr, fp64, fp64); });
  expect_error(Info::NullPointer, [&] { snk::new_binary_op(user_plus_fp64, fp64, nullptr, fp64); });
  expect_error(Info::NullPointer, [&] { snk::new_binary_op(user_plus_fp64, fp64, fp64, nullptr); });

  auto diag = snk::new_index_unary_op(user_index, b, fp64, i32, "mydiag");
  EXPECT_EQ(diag->opcode, snk::IndexUnaryOpcode::User);
  EXPECT_FALSE(diag->positional());
  expect_error(Info::NullPointer, [&] { snk::new_index_unary_op(nullptr, b, fp64, i32); });
  expect_error(Info::NullPointer, [&] { snk::new_index_unary_op(user_index, nullptr, fp64, i32); });
  expect_error(Info::NullPointer, [&] { snk::new_index_unary_op(user_index, b, nullptr, i32); });
  expect_error(Info::NullPointer, [&] { snk::new_index_unary_op(user_index, b, fp64, nullptr); });

  const double zero = 0, inf = INFINITY;
  auto m = snk::new_monoid(plus.get(), &zero, nullptr, "mymonoid");
  EXPECT_EQ(m->type(), fp64);
  EXPECT_FALSE(m->has_terminal);
  ASSERT_EQ(m->identity.size(), 8u);
  EXPECT_EQ(std::memcmp(m->identity.data(), &zero, 8), 0);
  auto mt = snk::new_monoid(plus.get(), &zero, &inf);
  EXPECT_TRUE(mt->has_terminal);
  EXPECT_EQ(std::memcmp(mt->terminal.data(), &inf, 8), 0);
  expect_error(Info::NullPointer, [&] { snk::new_monoid(nullptr, &zero); });
  expect_error(Info::NullPointer, [&] { snk::new_monoid(plus.get(), nullptr); });
  auto mixed = snk::new_binary_op(user_plus_fp64, fp64, fp64, i32);
  expect_error(Info::DomainMismatch, [&] { snk::new_monoid(mixed.get(), &zero); });
  expect_error(Info::DomainMismatch,
               [&] { snk::new_monoid(snk::builtin_binary_op(snk::BinaryOpcode::Lt, TypeCode::FP64), &zero); });

  auto s = snk::new_semiring(m.get(), plus.get(), "mysemiring");
  EXPECT_EQ(s->add, m.get());
  EXPECT_EQ(s->multiply, plus.get());
  EXPECT_EQ(s->name, "mysemiring");
  auto s2 = snk::new_semiring(snk::builtin_monoid(snk::BinaryOpcode::Plus, TypeCode::FP64),
                              snk::builtin_binary_op(snk::BinaryOpcode::Times, TypeCode::FP64));
  EXPECT_EQ(s2->multiply->ztype, fp64);
  expect_error(Info::NullPointer, [&] { snk::new_semiring(nullptr, plus.get()); });
  expect_error(Info::NullPointer, [&] { snk::new_semiring(m.get(), nullptr); });
  expect_error(Info::DomainMismatch, [&] {
    snk::new_semiring(m.get(), snk::builtin_binary_op(snk::BinaryOpcode::Lt, TypeCode::FP64));
  });
  expect_error(Info::DomainMismatch, [&] {
    snk::new_semiring(snk::builtin_monoid(snk::BinaryOpcode::Plus, TypeCode::Int32),
                      snk::builtin_binary_op(snk::BinaryOpcode::Times, TypeCode::FP64));
  });
}

TEST(Algebra, UserDefinedTypes) {
  std::unique_ptr<Type> udt(snk::new_user_type(24, "my_triple"));
  EXPECT_EQ(udt->code, TypeCode::UDT);
  EXPECT_EQ(udt->size, 24u);
  EXPECT_EQ(udt->name, "my_triple");
  EXPECT_FALSE(udt->builtin());
  std::unique_ptr<Type> other(snk::new_user_type(24, "my_triple"));
  EXPECT_TRUE(snk::castable(udt.get(), udt.get()));
  EXPECT_FALSE(snk::castable(udt.get(), other.get()));
  EXPECT_FALSE(snk::castable(udt.get(), &snk::types::FP64));
  EXPECT_FALSE(snk::castable(&snk::types::FP64, udt.get()));
  EXPECT_FALSE(snk::castable(nullptr, &snk::types::FP64));
  EXPECT_EQ(snk::cast_function(&snk::types::FP64, udt.get()), nullptr);
  EXPECT_EQ(snk::cast_function(udt.get(), udt.get()), nullptr);   // a UDT copy needs its size: cast_array
  unsigned char src[48], dst[48] = {};
  for (int k = 0; k < 48; ++k) src[k] = static_cast<unsigned char>(rng()());
  snk::cast_array(udt.get(), dst, udt.get(), src, 2);
  EXPECT_EQ(std::memcmp(src, dst, 48), 0);
  double d = 0;
  expect_error(snk::Info::DomainMismatch, [&] { snk::cast_array(&snk::types::FP64, &d, udt.get(), src, 1); });
  expect_error(snk::Info::DomainMismatch, [&] { snk::cast_array(udt.get(), dst, other.get(), src, 1); });
  expect_error(snk::Info::InvalidValue, [&] { snk::new_user_type(0, "empty"); });
  // a user-defined operator on the UDT
  auto op = snk::new_binary_op([](void* z, const void* x, const void*) { std::memcpy(z, x, 24); }, udt.get(),
                               udt.get(), udt.get(), "first_triple");
  const unsigned char zero[24] = {};
  auto m = snk::new_monoid(op.get(), zero);
  EXPECT_EQ(m->type(), udt.get());
  EXPECT_EQ(m->identity.size(), 24u);
}

TEST(Algebra, InfoNames) {
  EXPECT_STREQ(snk::info_name(snk::Info::Success), "GrB_SUCCESS");
  EXPECT_STREQ(snk::info_name(snk::Info::NoValue), "GrB_NO_VALUE");
  EXPECT_STREQ(snk::info_name(snk::Info::NullPointer), "GrB_NULL_POINTER");
  EXPECT_STREQ(snk::info_name(snk::Info::DomainMismatch), "GrB_DOMAIN_MISMATCH");
  EXPECT_STREQ(snk::info_name(snk::Info::IndexOutOfBounds), "GrB_INDEX_OUT_OF_BOUNDS");
  EXPECT_STREQ(snk::info_name(snk::Info::EmptyObject), "GrB_EMPTY_OBJECT");
  EXPECT_STREQ(snk::info_name(snk::Info::Panic), "GrB_PANIC");
}

}  // namespace
