// src/capi/context.cpp: the C API's context and object plumbing: GrB_init / GrB_finalize / GrB_getVersion,
// the error machinery (GrB_Info codes, per-object and per-thread messages, GrB_error), handle checking,
// resolution of predefined objects, the wait/error/free methods of every object kind, and the SNK_
// extensions (backend choice, fallback counters, determinism, transfer counters, device memory exchange).
//
// GrB_init may be called again after GrB_finalize; a second GrB_init without GrB_finalize is
// GrB_INVALID_VALUE, as the spec says. Blocking mode finishes pending setElement work before a method
// returns; non-blocking mode leaves it to GrB_wait or to the first read (the containers hold it).
#include <atomic>
#include <cstring>
#include <mutex>

#include "capi/capi.hpp"
#include "core/internal.hpp"

namespace snk::capi {

namespace {
std::atomic<bool> g_initialized{false};
std::atomic<int> g_mode{GrB_NONBLOCKING};
std::mutex g_init_mutex;
thread_local std::string t_last_error;
}  // namespace

bool initialized() { return g_initialized.load(std::memory_order_acquire); }
GrB_Mode mode() { return static_cast<GrB_Mode>(g_mode.load(std::memory_order_relaxed)); }
void set_last_error(const std::string& message) { t_last_error = message; }

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Type: return "GrB_Type";
    case Kind::UnaryOp: return "GrB_UnaryOp";
    case Kind::BinaryOp: return "GrB_BinaryOp";
    case Kind::IndexUnaryOp: return "GrB_IndexUnaryOp";
    case Kind::Monoid: return "GrB_Monoid";
    case Kind::Semiring: return "GrB_Semiring";
    case Kind::Scalar: return "GrB_Scalar";
    case Kind::Vector: return "GrB_Vector";
    case Kind::Matrix: return "GrB_Matrix";
    case Kind::Descriptor: return "GrB_Descriptor";
  }
  return "object";
}

GrB_Info info_of(Info info) { return static_cast<GrB_Info>(static_cast<int>(info)); }

namespace {
// The kind of a live object at h, or 0 when h does not point to one.
std::uint32_t live_kind(const void* h) {
  std::uint64_t magic;
  std::memcpy(&magic, h, sizeof magic);
  if ((magic & ~std::uint64_t(0xffffffff)) != kMagicBase) return 0;
  const auto k = static_cast<std::uint32_t>(magic & 0xffffffff);
  return (k >= static_cast<std::uint32_t>(Kind::Type) && k <= static_cast<std::uint32_t>(Kind::Descriptor)) ? k : 0;
}
}  // namespace

ObjectHeader* error_target(const void* handle) {
  if (handle == nullptr || live_kind(handle) == 0) return nullptr;
  return static_cast<ObjectHeader*>(const_cast<void*>(handle));
}

void clear_error(const void* target) noexcept {
  if (ObjectHeader* h = error_target(target); h != nullptr && !h->predefined) h->error.clear();
}

void record_error(const char* where, const void* target, const std::string& message) noexcept {
  try {
    std::string full = std::string(where) + ": " + message;
    if (ObjectHeader* h = error_target(target); h != nullptr && !h->predefined) h->error = full;
    t_last_error = std::move(full);
  } catch (...) {
  }
}

GrB_Info fail(const char* where, const void* target, GrB_Info info, const std::string& message) noexcept {
  record_error(where, target, message);
  return info;
}

void check_handle(const void* h, Kind k, const char* what) {
  if (h == nullptr) throw Error(Info::NullPointer, std::string(what) + " is NULL");
  std::uint64_t magic;
  std::memcpy(&magic, h, sizeof magic);
  if (magic == magic_of(k)) return;
  if (magic == kFreedMagic) {
    throw Error(Info::UninitializedObject, std::string(what) + " is a freed " + kind_name(k));
  }
  if (const std::uint32_t other = live_kind(h); other != 0) {
    throw Error(Info::UninitializedObject, std::string(what) + " is a " + kind_name(static_cast<Kind>(other)) +
                                               ", not a " + kind_name(k));
  }
  throw Error(Info::UninitializedObject, std::string(what) + " is not an initialized " + kind_name(k));
}

bool optional_handle(const void* h, Kind k, const char* what) {
  if (h == nullptr) return false;
  check_handle(h, k, what);
  return true;
}

void finish_if_blocking(const Matrix& m) {
  if (mode() == GrB_BLOCKING) m.wait();
}

const Index* index_list(const GrB_Index* I, const char* what) {
  if (I == GrB_ALL) return nullptr;
  if (I == nullptr) throw Error(Info::NullPointer, std::string(what) + " is NULL (use GrB_ALL for all indices)");
  return I;
}

// ---- accessors -------------------------------------------------------------------------------------------
const Type* type_of(GrB_Type t, const char* what) {
  check_handle(t, Kind::Type, what);
  return t->type;
}

namespace {
[[noreturn]] void not_available(const char* name) {
  throw Error(Info::NotImplemented, std::string("predefined object ") + name + " is not available in this build");
}
}  // namespace

const UnaryOp* unary_of(GrB_UnaryOp op, const char* what) {
  check_handle(op, Kind::UnaryOp, what);
  return op->resolve();
}
const BinaryOp* binary_of(GrB_BinaryOp op, const char* what) {
  check_handle(op, Kind::BinaryOp, what);
  return op->resolve();
}
const BinaryOp* binary_or_null(GrB_BinaryOp op, const char* what) {
  return optional_handle(op, Kind::BinaryOp, what) ? op->resolve() : nullptr;
}
const IndexUnaryOp* index_unary_of(GrB_IndexUnaryOp op, const char* what) {
  check_handle(op, Kind::IndexUnaryOp, what);
  return op->resolve();
}
const Monoid* monoid_of(GrB_Monoid m, const char* what) {
  check_handle(m, Kind::Monoid, what);
  return m->resolve();
}
const Semiring* semiring_of(GrB_Semiring s, const char* what) {
  check_handle(s, Kind::Semiring, what);
  return s->resolve();
}
Scalar& scalar_of(GrB_Scalar s, const char* what) {
  check_handle(s, Kind::Scalar, what);
  return *s->scalar;
}
Vector& vector_of(GrB_Vector v, const char* what) {
  check_handle(v, Kind::Vector, what);
  return *v->vector;
}
const Vector* vector_or_null(GrB_Vector v, const char* what) {
  return optional_handle(v, Kind::Vector, what) ? v->vector.get() : nullptr;
}
Matrix& matrix_of(GrB_Matrix A, const char* what) {
  check_handle(A, Kind::Matrix, what);
  return *A->matrix;
}
const Matrix* matrix_or_null(GrB_Matrix A, const char* what) {
  return optional_handle(A, Kind::Matrix, what) ? A->matrix.get() : nullptr;
}
Descriptor descriptor_of(GrB_Descriptor d) {
  if (!optional_handle(d, Kind::Descriptor, "desc")) return Descriptor{};
  return d->desc;
}

}  // namespace snk::capi

// ---- resolution of predefined objects ----------------------------------------------------------------------
using namespace snk::capi;

const snk::UnaryOp* SNK_UnaryOp_opaque::resolve() {
  const snk::UnaryOp* p = object.load(std::memory_order_acquire);
  if (p == nullptr) {
    p = snk::builtin_unary_op(opcode, type);
    if (p == nullptr) snk::capi::not_available(name);
    object.store(p, std::memory_order_release);
  }
  return p;
}
const snk::BinaryOp* SNK_BinaryOp_opaque::resolve() {
  const snk::BinaryOp* p = object.load(std::memory_order_acquire);
  if (p == nullptr) {
    p = snk::builtin_binary_op(opcode, type);
    if (p == nullptr) snk::capi::not_available(name);
    object.store(p, std::memory_order_release);
  }
  return p;
}
const snk::IndexUnaryOp* SNK_IndexUnaryOp_opaque::resolve() {
  const snk::IndexUnaryOp* p = object.load(std::memory_order_acquire);
  if (p == nullptr) {
    p = snk::builtin_index_unary_op(opcode, type);
    if (p == nullptr) snk::capi::not_available(name);
    object.store(p, std::memory_order_release);
  }
  return p;
}
const snk::Monoid* SNK_Monoid_opaque::resolve() {
  const snk::Monoid* p = object.load(std::memory_order_acquire);
  if (p == nullptr) {
    p = snk::builtin_monoid(opcode, type);
    if (p == nullptr) snk::capi::not_available(name);
    object.store(p, std::memory_order_release);
  }
  return p;
}
const snk::Semiring* SNK_Semiring_opaque::resolve() {
  const snk::Semiring* p = object.load(std::memory_order_acquire);
  if (p == nullptr) {
    p = snk::builtin_semiring(add_opcode, multiply_opcode, type);
    if (p == nullptr) snk::capi::not_available(name);
    object.store(p, std::memory_order_release);
  }
  return p;
}

namespace {
GrB_Info copy_string(const char* where, const std::string& s, char* out, size_t out_size) {
  if (out == nullptr) return fail(where, nullptr, GrB_NULL_POINTER, "out is NULL");
  if (s.size() + 1 > out_size) {
    return fail(where, nullptr, GrB_INSUFFICIENT_SPACE,
                "the buffer holds " + std::to_string(out_size) + " bytes; " + std::to_string(s.size() + 1) +
                    " are needed");
  }
  std::memcpy(out, s.c_str(), s.size() + 1);
  return GrB_SUCCESS;
}
}  // namespace

// ---- GrB_init / GrB_finalize / GrB_getVersion -------------------------------------------------------------
extern "C" {

GrB_Info GrB_init(GrB_Mode mode) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_initialized.load()) {
    return fail("GrB_init", nullptr, GrB_INVALID_VALUE, "GrB_init has already been called");
  }
  if (mode != GrB_BLOCKING && mode != GrB_NONBLOCKING) {
    return fail("GrB_init", nullptr, GrB_INVALID_VALUE, "mode must be GrB_BLOCKING or GrB_NONBLOCKING");
  }
  try {
    (void)snk::current_backend();   // reads $SNACK_BACKEND and creates the backends now, not mid-call
  } catch (const snk::Error& e) {
    return fail("GrB_init", nullptr, info_of(e.info()), e.what());
  } catch (const std::exception& e) {
    return fail("GrB_init", nullptr, GrB_PANIC, e.what());
  }
  g_mode.store(mode);
  g_initialized.store(true, std::memory_order_release);
  return GrB_SUCCESS;
}

GrB_Info GrB_finalize(void) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  g_initialized.store(false, std::memory_order_release);
  return GrB_SUCCESS;
}

GrB_Info GrB_getVersion(unsigned int* version, unsigned int* subversion) {
  return call("GrB_getVersion", nullptr, [&] {
    check_pointer(version, "version");
    check_pointer(subversion, "subversion");
    *version = GRB_VERSION;
    *subversion = GRB_SUBVERSION;
  });
}

// ---- wait / error / free for every kind --------------------------------------------------------------------
#define SNK_OBJECT_METHODS(Object, KIND, WAIT)                                                           \
  GrB_Info GrB_##Object##_wait(GrB_##Object obj, GrB_WaitMode waitmode) {                                 \
    return call("GrB_" #Object "_wait", obj, [&] {                                                       \
      check_handle(obj, Kind::KIND, "object");                                                          \
      if (waitmode != GrB_COMPLETE && waitmode != GrB_MATERIALIZE)                                       \
        throw snk::Error(snk::Info::InvalidValue, "wait mode must be GrB_COMPLETE or GrB_MATERIALIZE");   \
      WAIT;                                                                                              \
    });                                                                                                  \
  }                                                                                                      \
  GrB_Info GrB_##Object##_error(const char** error, const GrB_##Object obj) {                            \
    if (error == nullptr) return GrB_NULL_POINTER;                                                       \
    try {                                                                                                \
      check_handle(obj, Kind::KIND, "object");                                                          \
    } catch (const snk::Error& e) {                                                                      \
      return info_of(e.info());                                                                          \
    }                                                                                                    \
    *error = obj->error.c_str();                                                                         \
    return GrB_SUCCESS;                                                                                  \
  }                                                                                                      \
  GrB_Info GrB_##Object##_free(GrB_##Object* obj) {                                                      \
    if (obj == nullptr) return GrB_NULL_POINTER;                                                         \
    if (*obj == nullptr) return GrB_SUCCESS;                                                             \
    ObjectHeader* h = error_target(*obj);                                                                \
    if (h == nullptr || h->magic != magic_of(Kind::KIND)) return GrB_UNINITIALIZED_OBJECT;               \
    if (h->predefined) return GrB_SUCCESS;                                                               \
    delete *obj;                                                                                         \
    *obj = nullptr;                                                                                      \
    return GrB_SUCCESS;                                                                                  \
  }

SNK_OBJECT_METHODS(Type, Type, (void)0)
SNK_OBJECT_METHODS(UnaryOp, UnaryOp, (void)0)
SNK_OBJECT_METHODS(BinaryOp, BinaryOp, (void)0)
SNK_OBJECT_METHODS(IndexUnaryOp, IndexUnaryOp, (void)0)
SNK_OBJECT_METHODS(Monoid, Monoid, (void)0)
SNK_OBJECT_METHODS(Semiring, Semiring, (void)0)
SNK_OBJECT_METHODS(Scalar, Scalar, (void)0)
SNK_OBJECT_METHODS(Vector, Vector, obj->vector->wait())
SNK_OBJECT_METHODS(Matrix, Matrix, obj->matrix->wait())
SNK_OBJECT_METHODS(Descriptor, Descriptor, (void)0)

// ---- SNK_ extensions -------------------------------------------------------------------------------------

GrB_Info SNK_Backend_set(const char* name) {
  return call("SNK_Backend_set", nullptr, [&] {
    check_pointer(name, "name");
    snk::set_backend(name);
  });
}

GrB_Info SNK_Thread_backend_set(const char* name) {
  return call("SNK_Thread_backend_set", nullptr, [&] { snk::set_thread_backend(name != nullptr ? name : ""); });
}

GrB_Info SNK_Backend_get(char* out, size_t out_size) {
  std::string name;
  const GrB_Info info = call("SNK_Backend_get", nullptr, [&] { name = snk::current_backend(); });
  return info != GrB_SUCCESS ? info : copy_string("SNK_Backend_get", name, out, out_size);
}

GrB_Info SNK_Backend_list(char* out, size_t out_size) {
  std::string list;
  const GrB_Info info = call("SNK_Backend_list", nullptr, [&] {
    for (const std::string& b : snk::available_backends()) list += (list.empty() ? "" : ",") + b;
  });
  return info != GrB_SUCCESS ? info : copy_string("SNK_Backend_list", list, out, out_size);
}

GrB_Info SNK_Fallback_count(const char* backend, const char* op, uint64_t* count) {
  return call("SNK_Fallback_count", nullptr, [&] {
    check_pointer(backend, "backend");
    check_pointer(op, "op");
    check_pointer(count, "count");
    const auto counts = snk::fallback_counts(backend);
    const auto it = counts.find(op);
    *count = it == counts.end() ? 0 : it->second;
  });
}

GrB_Info SNK_Fallback_total(const char* backend, uint64_t* count) {
  return call("SNK_Fallback_total", nullptr, [&] {
    check_pointer(backend, "backend");
    check_pointer(count, "count");
    *count = snk::fallback_total(backend);
  });
}

GrB_Info SNK_Fallback_reset(void) {
  return call("SNK_Fallback_reset", nullptr, [&] { snk::reset_fallback_counts(); });
}

GrB_Info SNK_Transfers_get(uint64_t* uploads, uint64_t* downloads, uint64_t* upload_bytes, uint64_t* download_bytes) {
  return call("SNK_Transfers_get", nullptr, [&] {
    const snk::Transfers t = snk::transfers();
    if (uploads != nullptr) *uploads = t.uploads;
    if (downloads != nullptr) *downloads = t.downloads;
    if (upload_bytes != nullptr) *upload_bytes = t.upload_bytes;
    if (download_bytes != nullptr) *download_bytes = t.download_bytes;
  });
}

GrB_Info SNK_Transfers_reset(void) {
  return call("SNK_Transfers_reset", nullptr, [&] { snk::reset_transfers(); });
}

GrB_Info SNK_Matrix_import_device_full(GrB_Matrix A, const void* device_values, void* stream) {
  return call("SNK_Matrix_import_device_full", A,
              [&] { snk::import_device_full(matrix_of(A, "A"), device_values, stream); });
}

GrB_Info SNK_Matrix_import_device_values(GrB_Matrix A, const GrB_Matrix pattern, const void* device_values,
                                         void* stream) {
  return call("SNK_Matrix_import_device_values", A, [&] {
    snk::Matrix& a = matrix_of(A, "A");
    snk::import_device_values(a, matrix_of(pattern, "pattern"), device_values, stream);
  });
}

GrB_Info SNK_Matrix_export_device_dense(void* device_out, const GrB_Matrix A, void* stream) {
  return call("SNK_Matrix_export_device_dense", A,
              [&] { snk::export_device_dense(matrix_of(A, "A"), device_out, stream); });
}

GrB_Info SNK_Matrix_export_device_values(void* device_out, const GrB_Matrix A, void* stream) {
  return call("SNK_Matrix_export_device_values", A,
              [&] { snk::export_device_values(matrix_of(A, "A"), device_out, stream); });
}

namespace {
snk::DeviceDense dense_of(const SNK_DeviceDense& d) {
  return snk::DeviceDense{d.data, static_cast<snk::Index>(d.nrows), static_cast<snk::Index>(d.ncols), d.row_stride,
                          d.col_stride};
}

// A device product the thread's backend declined: GrB_NOT_IMPLEMENTED, with what the caller may do instead.
void declined(const char* call) {
  throw snk::Error(snk::Info::NotImplemented,
                   std::string(call) + ": the " + snk::current_backend() +
                       " backend has no device path for this call (a backend without device memory, or on the cuda "
                       "backend an A with an empty row, or column for A^T, or a 2:4 or precision hint); nothing was "
                       "written: import, GrB_mxm and export instead");
}
}  // namespace

GrB_Info SNK_mxm_device(SNK_DeviceDense Y, const GrB_Matrix A, const void* a_values, bool transpose, SNK_DeviceDense X,
                        void* stream) {
  return call("SNK_mxm_device", A, [&] {
    if (!snk::device_sparse_times_dense(dense_of(Y), matrix_of(A, "A"), a_values, transpose, dense_of(X), stream))
      declined("SNK_mxm_device");
  });
}

GrB_Info SNK_mxm_device_sampled(void* z, const GrB_Matrix A, SNK_DeviceDense X, SNK_DeviceDense Y, void* stream) {
  return call("SNK_mxm_device_sampled", A, [&] {
    if (!snk::device_sampled_product(z, matrix_of(A, "A"), dense_of(X), dense_of(Y), stream))
      declined("SNK_mxm_device_sampled");
  });
}

GrB_Info SNK_reduce_device_rows(void* z, GrB_Type type, SNK_DeviceDense X, void* stream) {
  return call("SNK_reduce_device_rows", nullptr, [&] {
    if (!snk::device_row_sums(z, type_of(type, "type"), dense_of(X), stream)) declined("SNK_reduce_device_rows");
  });
}

GrB_Info SNK_Deterministic_set(bool on) {
  return call("SNK_Deterministic_set", nullptr, [&] { snk::set_deterministic(on); });
}

GrB_Info SNK_Deterministic_get(bool* on) {
  return call("SNK_Deterministic_get", nullptr, [&] {
    check_pointer(on, "on");
    *on = snk::deterministic();
  });
}

GrB_Info SNK_Bind_set(SNK_Bind policy) {
  // The values match snk::BindPolicy's; set_bind_policy refuses any other (InvalidValue).
  return call("SNK_Bind_set", nullptr, [&] { snk::set_bind_policy(static_cast<snk::BindPolicy>(policy)); });
}

GrB_Info SNK_Bind_get(SNK_Bind* policy) {
  return call("SNK_Bind_get", nullptr, [&] {
    check_pointer(policy, "policy");
    *policy = static_cast<SNK_Bind>(snk::bind_policy());
  });
}

GrB_Info SNK_last_error(const char** message) {
  if (message == nullptr) return GrB_NULL_POINTER;
  *message = t_last_error.c_str();
  return GrB_SUCCESS;
}

}  // extern "C"
