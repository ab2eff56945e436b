// src/ops/device_exchange.cpp: snk::import_device_full, borrow_device_full, borrow_device_output, import_device_values,
// export_device_dense and export_device_values (snack/operations.hpp), the exchange between a caller's device memory
// and the thread's backend. The front-ends check the arguments and hand the copy to the backend
// (Backend::import_device / export_device); a backend without device memory declines, which is reported as
// NotImplemented naming the backend, and nothing changes. There is no fallback: reference cannot read device memory.
#include <string>

#include "ops/common.hpp"

namespace snk {
namespace {

void need(const void* p, const char* call, const char* what) {
  if (p == nullptr) throw Error(Info::NullPointer, std::string(call) + ": " + what + " is null");
}

template <class Call>
void on_backend(const char* call, Call&& f) {
  core::Backend& b = core::current_backend_object();
  core::CallTrace trace(call);
  trace.ran_on(b);
  if (f(b) == core::KernelStatus::Done) return;
  throw Error(Info::NotImplemented, std::string(call) + ": the " + b.name() +
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

}  // namespace snk
