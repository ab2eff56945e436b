// src/containers/transfers.cpp: the counters of host <-> device traffic (snk::transfers(), include/snack/backend.hpp;
// core::count_upload / count_download, src/core/kernels.hpp).
//
// They live with the containers because the containers count the downloads (Matrix's host reads of a device-only
// matrix) and the backends count their uploads; relaxed atomics, since they are statistics read after the fact.
#include <atomic>

#include "core/kernels.hpp"
#include "snack/backend.hpp"

namespace snk {
namespace {
std::atomic<std::uint64_t> uploads{0}, downloads{0}, upload_bytes{0}, download_bytes{0};
}  // namespace

namespace core {
void count_upload(std::uint64_t bytes) {
  uploads.fetch_add(1, std::memory_order_relaxed);
  upload_bytes.fetch_add(bytes, std::memory_order_relaxed);
}
void count_download(std::uint64_t bytes) {
  downloads.fetch_add(1, std::memory_order_relaxed);
  download_bytes.fetch_add(bytes, std::memory_order_relaxed);
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
