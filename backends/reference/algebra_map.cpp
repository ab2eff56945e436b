// backends/reference/algebra_map.cpp: snack's types, operators, monoids and semirings as SuiteSparse objects.
//
// A builtin snack object (opcode other than User) maps to SuiteSparse's predefined object of the same
// opcode and type (GrB_PLUS_FP64, GrB_TRIL, GrB_VALUEEQ_FP32, GrB_PLUS_MONOID_FP64, ...), so SuiteSparse
// runs its specialised kernels; semirings are made with GrB_Semiring_new from the mapped monoid and
// multiplier (SuiteSparse recognises builtin pairs by their opcodes). Everything else (user operators,
// and any builtin combination SuiteSparse does not predefine) becomes a SuiteSparse user object around the
// same C function pointer: the signatures are those of SuiteSparse, so the result is exact for any
// operator. A monoid maps to a predefined one only when its operator is builtin and its identity equals
// SuiteSparse's; otherwise it is made with the typed GrB_Monoid_new / GxB_Monoid_terminal_new.
//
// Caches are keyed by content (function pointer and domains; monoid operator, identity and terminal
// bytes; semiring monoid and multiplier), never by the address of a snack object, so a user object freed
// and another allocated at the same address can never see a stale entry. Each cache is protected by one
// mutex; the objects are created once and live until the process ends (SuiteSparse objects are read-only
// once made, so threads share them freely).
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "suitesparse.hpp"

namespace snk::reference {
namespace {

constexpr int kTypes = kBuiltinTypeCount;   // Bool ... FP64, in TypeCode order
using Key = std::uintptr_t;

template <class F>
Key key_of(F fn) { return reinterpret_cast<Key>(fn); }

#define SNK_REF_ALL(P) \
  { P##BOOL, P##INT8, P##INT16, P##INT32, P##INT64, P##UINT8, P##UINT16, P##UINT32, P##UINT64, P##FP32, P##FP64 }
#define SNK_REF_NUMERIC(P) \
  { nullptr, P##INT8, P##INT16, P##INT32, P##INT64, P##UINT8, P##UINT16, P##UINT32, P##UINT64, P##FP32, P##FP64 }
#define SNK_REF_INTEGER(P) \
  { nullptr, P##INT8, P##INT16, P##INT32, P##INT64, P##UINT8, P##UINT16, P##UINT32, P##UINT64, nullptr, nullptr }
#define SNK_REF_FLOAT(P) \
  { nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, P##FP32, P##FP64 }
#define SNK_REF_BOOL_ONLY(X) \
  { X, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr }

// SuiteSparse's predefined objects, indexed by snack opcode and TypeCode (nullptr: none predefined).
struct Predefined {
  GrB_Type types[kTypes] = SNK_REF_ALL(GrB_);
  GrB_UnaryOp unary[static_cast<int>(UnaryOpcode::User)][kTypes] = {
      SNK_REF_ALL(GrB_IDENTITY_), SNK_REF_ALL(GrB_AINV_), SNK_REF_ALL(GrB_MINV_),
      SNK_REF_ALL(GxB_LNOT_),     SNK_REF_ALL(GrB_ABS_),  SNK_REF_INTEGER(GrB_BNOT_),
      SNK_REF_FLOAT(GxB_SQRT_),   SNK_REF_FLOAT(GxB_EXP_), SNK_REF_FLOAT(GxB_LOG_), SNK_REF_FLOAT(GxB_TANH_)};
  GrB_BinaryOp binary[static_cast<int>(BinaryOpcode::User)][kTypes] = {
      SNK_REF_ALL(GrB_FIRST_), SNK_REF_ALL(GrB_SECOND_), SNK_REF_ALL(GrB_ONEB_),
      SNK_REF_ALL(GrB_MIN_),   SNK_REF_ALL(GrB_MAX_),    SNK_REF_ALL(GrB_PLUS_),
      SNK_REF_ALL(GrB_MINUS_), SNK_REF_ALL(GrB_TIMES_),  SNK_REF_ALL(GrB_DIV_),
      SNK_REF_ALL(GrB_EQ_),    SNK_REF_ALL(GrB_NE_),     SNK_REF_ALL(GrB_GT_),
      SNK_REF_ALL(GrB_LT_),    SNK_REF_ALL(GrB_GE_),     SNK_REF_ALL(GrB_LE_),
      SNK_REF_BOOL_ONLY(GrB_LOR), SNK_REF_BOOL_ONLY(GrB_LAND), SNK_REF_BOOL_ONLY(GrB_LXOR),
      SNK_REF_BOOL_ONLY(GrB_LXNOR),
      SNK_REF_INTEGER(GrB_BOR_), SNK_REF_INTEGER(GrB_BAND_), SNK_REF_INTEGER(GrB_BXOR_),
      SNK_REF_INTEGER(GrB_BXNOR_)};
  // Index-unary: RowIndex/ColIndex/DiagIndex by output type (INT32, INT64); Tril ... RowGt single;
  // Value* by value type.
  GrB_IndexUnaryOp row_index[2] = {GrB_ROWINDEX_INT32, GrB_ROWINDEX_INT64};
  GrB_IndexUnaryOp col_index[2] = {GrB_COLINDEX_INT32, GrB_COLINDEX_INT64};
  GrB_IndexUnaryOp diag_index[2] = {GrB_DIAGINDEX_INT32, GrB_DIAGINDEX_INT64};
  GrB_IndexUnaryOp positional[8] = {GrB_TRIL,  GrB_TRIU,  GrB_DIAG,  GrB_OFFDIAG,
                                    GrB_COLLE, GrB_COLGT, GrB_ROWLE, GrB_ROWGT};
  GrB_IndexUnaryOp value[6][kTypes] = {SNK_REF_ALL(GrB_VALUEEQ_), SNK_REF_ALL(GrB_VALUENE_),
                                       SNK_REF_ALL(GrB_VALUELT_), SNK_REF_ALL(GrB_VALUELE_),
                                       SNK_REF_ALL(GrB_VALUEGT_), SNK_REF_ALL(GrB_VALUEGE_)};
  // Monoids of the spec: PLUS, TIMES, MIN, MAX on numeric types; LOR, LAND, LXOR, LXNOR on BOOL.
  GrB_Monoid plus[kTypes] = SNK_REF_NUMERIC(GrB_PLUS_MONOID_);
  GrB_Monoid times[kTypes] = SNK_REF_NUMERIC(GrB_TIMES_MONOID_);
  GrB_Monoid min[kTypes] = SNK_REF_NUMERIC(GrB_MIN_MONOID_);
  GrB_Monoid max[kTypes] = SNK_REF_NUMERIC(GrB_MAX_MONOID_);
};

const Predefined& predefined() {
  static const Predefined table;
  return table;
}

int code_index(const Type* type) { return static_cast<int>(type->code); }

bool builtin(const Type* type) { return type != nullptr && type->builtin(); }

// The predefined monoid for a builtin operator, or nullptr.
GrB_Monoid predefined_monoid(BinaryOpcode opcode, const Type* type) {
  if (!builtin(type)) return nullptr;
  const Predefined& p = predefined();
  int t = code_index(type);
  switch (opcode) {
    case BinaryOpcode::Plus: return p.plus[t];
    case BinaryOpcode::Times: return p.times[t];
    case BinaryOpcode::Min: return p.min[t];
    case BinaryOpcode::Max: return p.max[t];
    case BinaryOpcode::LOr: return type->code == TypeCode::Bool ? GrB_LOR_MONOID_BOOL : nullptr;
    case BinaryOpcode::LAnd: return type->code == TypeCode::Bool ? GrB_LAND_MONOID_BOOL : nullptr;
    case BinaryOpcode::LXor: return type->code == TypeCode::Bool ? GrB_LXOR_MONOID_BOOL : nullptr;
    case BinaryOpcode::LXnor:
    case BinaryOpcode::Eq: return type->code == TypeCode::Bool ? GrB_LXNOR_MONOID_BOOL : nullptr;
    default: return nullptr;
  }
}

// The SuiteSparse objects made for snack's user-defined and non-predefined algebra, made once per
// distinct object and kept for the life of the process. The caches are created on first use and never
// destroyed: the objects may be used until exit, and static destructors may run after SuiteSparse is
// finalized, so freeing them then is not safe. (Held from a static pointer they also stay reachable, so
// LeakSanitizer does not report them; with destructible static maps it did, once the maps were gone.)
struct Caches {
  std::mutex mutex;
  std::map<std::size_t, GrB_Type> udt_types;
  std::map<std::tuple<Key, GrB_Type, GrB_Type>, GrB_UnaryOp> user_unary;
  std::map<std::tuple<Key, GrB_Type, GrB_Type, GrB_Type>, GrB_BinaryOp> user_binary;
  std::map<std::tuple<Key, GrB_Type, GrB_Type, GrB_Type>, GrB_IndexUnaryOp> user_index_unary;
  std::map<std::tuple<GrB_BinaryOp, std::vector<unsigned char>, bool, std::vector<unsigned char>>, GrB_Monoid> monoids;
  std::map<std::pair<GrB_Monoid, GrB_BinaryOp>, GrB_Semiring> semirings;
};
Caches* const caches = new Caches;
std::mutex& cache_mutex = caches->mutex;
auto& udt_types = caches->udt_types;
auto& user_unary = caches->user_unary;
auto& user_binary = caches->user_binary;
auto& user_index_unary = caches->user_index_unary;
auto& monoids = caches->monoids;
auto& semirings = caches->semirings;

GrB_UnaryOp wrap_unary(const UnaryOp& op) {
  GrB_Type z = grb_type(op.ztype), x = grb_type(op.xtype);
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto key = std::make_tuple(key_of(op.fn), z, x);
  auto it = user_unary.find(key);
  if (it != user_unary.end()) return it->second;
  GrB_UnaryOp made = nullptr;
  check(GrB_UnaryOp_new(&made, reinterpret_cast<GxB_unary_function>(op.fn), z, x), "GrB_UnaryOp_new");
  user_unary.emplace(key, made);
  return made;
}

GrB_BinaryOp wrap_binary(const BinaryOp& op) {
  GrB_Type z = grb_type(op.ztype), x = grb_type(op.xtype), y = grb_type(op.ytype);
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto key = std::make_tuple(key_of(op.fn), z, x, y);
  auto it = user_binary.find(key);
  if (it != user_binary.end()) return it->second;
  GrB_BinaryOp made = nullptr;
  check(GrB_BinaryOp_new(&made, reinterpret_cast<GxB_binary_function>(op.fn), z, x, y), "GrB_BinaryOp_new");
  user_binary.emplace(key, made);
  return made;
}

GrB_IndexUnaryOp wrap_index_unary(const IndexUnaryOp& op) {
  GrB_Type z = grb_type(op.ztype), x = grb_type(op.xtype), y = grb_type(op.ytype);
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto key = std::make_tuple(key_of(op.fn), z, x, y);
  auto it = user_index_unary.find(key);
  if (it != user_index_unary.end()) return it->second;
  GrB_IndexUnaryOp made = nullptr;
  check(GrB_IndexUnaryOp_new(&made, reinterpret_cast<GxB_index_unary_function>(op.fn), z, x, y),
        "GrB_IndexUnaryOp_new");
  user_index_unary.emplace(key, made);
  return made;
}

}  // namespace

GrB_Type grb_type(const Type* type) {
  if (type == nullptr) return nullptr;
  ensure_initialized();
  if (type->builtin()) return predefined().types[code_index(type)];
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto it = udt_types.find(type->size);
  if (it != udt_types.end()) return it->second;
  GrB_Type made = nullptr;
  check(GrB_Type_new(&made, type->size), "GrB_Type_new");
  udt_types.emplace(type->size, made);
  return made;
}

GrB_UnaryOp grb_unary_op(const UnaryOp& op) {
  ensure_initialized();
  if (op.opcode != UnaryOpcode::User && builtin(op.xtype) && op.ztype == op.xtype) {
    GrB_UnaryOp found = predefined().unary[static_cast<int>(op.opcode)][code_index(op.xtype)];
    if (found != nullptr) return found;
  }
  return wrap_unary(op);
}

GrB_BinaryOp grb_binary_op(const BinaryOp& op) {
  ensure_initialized();
  if (op.opcode != BinaryOpcode::User && builtin(op.xtype) && op.xtype == op.ytype) {
    GrB_BinaryOp found = predefined().binary[static_cast<int>(op.opcode)][code_index(op.xtype)];
    if (found != nullptr) return found;
  }
  return wrap_binary(op);
}

GrB_IndexUnaryOp grb_index_unary_op(const IndexUnaryOp& op) {
  ensure_initialized();
  const Predefined& p = predefined();
  GrB_IndexUnaryOp found = nullptr;
  auto output_variant = [&](const GrB_IndexUnaryOp (&pair)[2]) -> GrB_IndexUnaryOp {
    if (op.ztype == nullptr) return nullptr;
    if (op.ztype->code == TypeCode::Int32) return pair[0];
    if (op.ztype->code == TypeCode::Int64) return pair[1];
    return nullptr;
  };
  switch (op.opcode) {
    case IndexUnaryOpcode::RowIndex: found = output_variant(p.row_index); break;
    case IndexUnaryOpcode::ColIndex: found = output_variant(p.col_index); break;
    case IndexUnaryOpcode::DiagIndex: found = output_variant(p.diag_index); break;
    case IndexUnaryOpcode::Tril:
    case IndexUnaryOpcode::Triu:
    case IndexUnaryOpcode::Diag:
    case IndexUnaryOpcode::Offdiag:
    case IndexUnaryOpcode::ColLe:
    case IndexUnaryOpcode::ColGt:
    case IndexUnaryOpcode::RowLe:
    case IndexUnaryOpcode::RowGt:
      found = p.positional[static_cast<int>(op.opcode) - static_cast<int>(IndexUnaryOpcode::Tril)];
      break;
    case IndexUnaryOpcode::ValueEq:
    case IndexUnaryOpcode::ValueNe:
    case IndexUnaryOpcode::ValueLt:
    case IndexUnaryOpcode::ValueLe:
    case IndexUnaryOpcode::ValueGt:
    case IndexUnaryOpcode::ValueGe:
      if (builtin(op.xtype) && op.xtype == op.ytype)
        found = p.value[static_cast<int>(op.opcode) - static_cast<int>(IndexUnaryOpcode::ValueEq)]
                       [code_index(op.xtype)];
      break;
    case IndexUnaryOpcode::User: break;
  }
  if (found != nullptr) return found;
  return wrap_index_unary(op);
}

GrB_Monoid grb_monoid(const Monoid& monoid) {
  ensure_initialized();
  const Type* type = monoid.type();
  GrB_BinaryOp op = grb_binary_op(*monoid.op);
  if (monoid.op->opcode != BinaryOpcode::User) {
    GrB_Monoid candidate = predefined_monoid(monoid.op->opcode, type);
    if (candidate != nullptr) {
      std::vector<unsigned char> identity(type->size);
      check(GxB_Monoid_identity(identity.data(), candidate), "GxB_Monoid_identity");
      if (identity == monoid.identity) return candidate;
    }
  }
  std::vector<unsigned char> terminal;
  if (monoid.has_terminal) terminal = monoid.terminal;
  auto key = std::make_tuple(op, monoid.identity, monoid.has_terminal, terminal);
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto it = monoids.find(key);
  if (it != monoids.end()) return it->second;
  GrB_Monoid made = nullptr;
  check(new_monoid(&made, op, type, monoid.identity.data(), monoid.has_terminal ? terminal.data() : nullptr),
        "GrB_Monoid_new");
  monoids.emplace(std::move(key), made);
  return made;
}

GrB_Semiring grb_semiring(const Semiring& semiring) {
  GrB_Monoid add = grb_monoid(*semiring.add);
  GrB_BinaryOp multiply = grb_binary_op(*semiring.multiply);
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto key = std::make_pair(add, multiply);
  auto it = semirings.find(key);
  if (it != semirings.end()) return it->second;
  GrB_Semiring made = nullptr;
  check(GrB_Semiring_new(&made, add, multiply), "GrB_Semiring_new");
  semirings.emplace(key, made);
  return made;
}

}  // namespace snk::reference
