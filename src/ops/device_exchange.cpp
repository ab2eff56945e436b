// src/ops/device_exchange.cpp: snk::import_device_full, borrow_device_full, borrow_device_output, import_device_values,
// export_device_dense and export_device_values (snack/operations.hpp), the exchange between a caller's device memory
// and the thread's backend, and the products on the caller's device memory (device_sparse_times_dense,
// device_sampled_product, device_row_sums). The front-ends check the arguments and hand the call to the backend
// (Backend::import_device / export_device / device_product / device_sampled / device_row_sums). An exchange that the
// backend declines (no device memory) is reported as NotImplemented naming the backend; a declined product returns
// false for the caller to run the matrix operations instead. Nothing changes either way, and there is no fallback:
// reference cannot read device memory.
#include <string>

#include "ops/common.hpp"

namespace snk {
namespace {

void need(const void* p, const char* call, const char* what) {
  if (p == nullptr) throw Error(Info::NullPointer, std::string(call) + ": " + what + " is null");
}

// Runs f on the thread's backend, traced under `call`: whether the backend did it.
template <class Call>
bool on_device_path(const char* call, Call&& f) {
  core::Backend& b = core::current_backend_object();
  core::CallTrace trace(call);
  trace.ran_on(b);
  return f(b) == core::KernelStatus::Done;
}

// The same for an exchange, which only a backend with device memory does: NotImplemented where it declines.
template <class Call>
void on_backend(const char* call, Call&& f) {
  if (on_device_path(call, f)) return;
  throw Error(Info::NotImplemented, std::string(call) + ": the " + core::current_backend_object().name() +
                                        " backend holds no device memory (device data needs the cuda backend)");
}

}  // namespace

namespace {
// T takes every position's value from device_values, copied or read where it lies as `mode` says.
void import_full(const char* call, Matrix& T, const void* device_values, void* stream, core::Backend::ImportMode mode) {
  need(device_values, call, "the device values");
  if (T.nrows() == 0 || T.ncols() == 0) {
    T.clear();
    return;
  }
  on_backend(call, [&](core::Backend& b) { return b.import_device(T, nullptr, device_values, stream, mode); });
}
}  // namespace

void import_device_full(Matrix& T, const void* device_values, void* stream) {
  import_full("import_device_full", T, device_values, stream, core::Backend::ImportMode::Copy);
}

void borrow_device_full(Matrix& T, const void* device_values, void* stream) {
  import_full("borrow_device_full", T, device_values, stream, core::Backend::ImportMode::Borrow);
}

void borrow_device_output(Matrix& T, void* device_values, void* stream) {
  import_full("borrow_device_output", T, device_values, stream, core::Backend::ImportMode::BorrowForResults);
}

void import_device_values(Matrix& T, const Matrix& pattern, const void* device_values, void* stream) {
  const char* call = "import_device_values";
  core::check_dim(call, pattern.nrows(), "the pattern's row count", T.nrows(), "the matrix's");
  core::check_dim(call, pattern.ncols(), "the pattern's column count", T.ncols(), "the matrix's");
  if (pattern.nvals() == 0) {
    T.clear();
    return;
  }
  need(device_values, call, "the device values");
  on_backend(call, [&](core::Backend& b) {
    return b.import_device(T, &pattern, device_values, stream, core::Backend::ImportMode::Copy);
  });
}

void export_device_dense(const Matrix& M, void* device_out, void* stream) {
  const char* call = "export_device_dense";
  if (M.nrows() == 0 || M.ncols() == 0) return;
  need(device_out, call, "the device output");
  on_backend(call, [&](core::Backend& b) { return b.export_device(M, true, device_out, stream); });
}

void export_device_values(const Matrix& M, void* device_out, void* stream) {
  const char* call = "export_device_values";
  if (M.nvals() == 0) return;
  need(device_out, call, "the device output");
  on_backend(call, [&](core::Backend& b) { return b.export_device(M, false, device_out, stream); });
}

namespace {
// The checks of a dense operand or result: its data (NullPointer), its extent (DimensionMismatch against the
// product's), its strides (InvalidValue: one of them 1, the other covering the extent).
void check_dense(const char* call, const DeviceDense& D, const char* what, Index rows, Index cols) {
  need(D.data, call, what);
  if (D.rows != rows || D.cols != cols) {   // the messages' names made only for a mismatch
    const std::string name = std::string(what) + "'s";
    core::check_dim(call, D.rows, (name + " row count").c_str(), rows, "the product's");
    core::check_dim(call, D.cols, (name + " column count").c_str(), cols, "the product's");
  }
  if (!D.row_major() && !D.column_major())
    throw Error(Info::InvalidValue, std::string(call) + ": " + what + " has strides " + std::to_string(D.row_stride) +
                                        " (rows) and " + std::to_string(D.col_stride) +
                                        " (columns); one must be 1 and the other at least the extent it steps over");
}

void check_float(const char* call, const Type* t, const char* what) {
  if (t != &types::FP32 && t != &types::FP64)
    throw Error(Info::DomainMismatch, std::string(call) + ": " + what + " is " + (t ? t->name : "null") +
                                          "; the device products take FP32 or FP64");
}

}  // namespace

bool device_sparse_times_dense(const DeviceDense& Y, const Matrix& A, const void* a_values, bool transpose,
                               const DeviceDense& X, void* stream) {
  const char* call = "device_sparse_times_dense";
  check_float(call, A.type(), "A");
  const Index m = transpose ? A.ncols() : A.nrows(), k = transpose ? A.nrows() : A.ncols();
  check_dense(call, X, "X", k, X.cols);
  check_dense(call, Y, "Y", m, X.cols);
  if (A.nvals() > 0) need(a_values, call, "A's device values");
  return on_device_path(call, [&](core::Backend& b) { return b.device_product(Y, A, a_values, transpose, X, stream); });
}

bool device_sampled_product(void* z, const Matrix& A, const DeviceDense& X, const DeviceDense& Y, void* stream) {
  const char* call = "device_sampled_product";
  check_float(call, A.type(), "A");
  check_dense(call, X, "X", A.nrows(), X.cols);
  check_dense(call, Y, "Y", X.cols, A.ncols());
  if (A.nvals() > 0) need(z, call, "the device output");
  return on_device_path(call, [&](core::Backend& b) { return b.device_sampled(z, A, X, Y, stream); });
}

bool device_row_sums(void* z, const Type* type, const DeviceDense& X, void* stream) {
  const char* call = "device_row_sums";
  check_float(call, type, "the type");
  check_dense(call, X, "X", X.rows, X.cols);
  need(z, call, "the device output");
  return on_device_path(call, [&](core::Backend& b) { return b.device_row_sums(z, type, X, stream); });
}

}  // namespace snk
