// src/containers/transfers.cpp: the counters of host <-> device traffic (snk::transfers(), include/snack/backend.hpp;
// core::count_upload / count_download, src/core/kernels.hpp).
//
// They live with the containers because the containers count the downloads (Matrix's host reads of a device-only
// matrix) and the backends count their uploads; relaxed atomics, since they are statistics read after the fact.
// The call trace ($SNACK_TRACE, core::CallTrace) reports them per call, so it lives here too.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/kernels.hpp"
#include "snack/backend.hpp"

namespace snk {
namespace {
std::atomic<std::uint64_t> uploads{0}, downloads{0}, upload_bytes{0}, download_bytes{0};
}  // namespace

namespace core {
// A copy of no bytes (an empty matrix's values) moves nothing and is not counted.
void count_upload(std::uint64_t bytes) {
  if (bytes == 0) return;
  uploads.fetch_add(1, std::memory_order_relaxed);
  upload_bytes.fetch_add(bytes, std::memory_order_relaxed);
}
void count_download(std::uint64_t bytes) {
  if (bytes == 0) return;
  downloads.fetch_add(1, std::memory_order_relaxed);
  download_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

bool trace_on() {
  static const bool on = [] {
    const char* env = std::getenv("SNACK_TRACE");
    return env != nullptr && *env != '\0' && std::strcmp(env, "0") != 0;
  }();
  return on;
}

namespace {
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

CallTrace::CallTrace(const char* op) : op_(op), on_(trace_on()) {
  if (!on_) return;
  const Transfers t = snk::transfers();
  uploads_ = t.uploads;
  downloads_ = t.downloads;
  start_ = now_ms();
}

CallTrace::~CallTrace() {
  if (!on_) return;
  const double ms = now_ms() - start_;
  const Transfers t = snk::transfers();
  std::string who = who_.empty() ? "?" : who_;
  if (!declined_.empty()) who += " (declined by " + declined_ + ")";
  std::fprintf(stderr, "[snack trace] %-12s %-28s %10.3f ms  %llu uploads  %llu downloads\n", op_, who.c_str(), ms,
               static_cast<unsigned long long>(t.uploads - uploads_),
               static_cast<unsigned long long>(t.downloads - downloads_));
}

}  // namespace core

Transfers transfers() {
  Transfers t;
  t.uploads = uploads.load(std::memory_order_relaxed);
  t.downloads = downloads.load(std::memory_order_relaxed);
  t.upload_bytes = upload_bytes.load(std::memory_order_relaxed);
  t.download_bytes = download_bytes.load(std::memory_order_relaxed);
  return t;
}

void reset_transfers() {
  uploads.store(0);
  downloads.store(0);
  upload_bytes.store(0);
  download_bytes.store(0);
}

}  // namespace snk
