// backends/cuda/backend/device_copy.cpp: DeviceBuffer, the CUDA error policy of the backend, and
// MatrixOnDevice (the backend's copy of a Matrix: values and the compacted SpMM plan; see
// device_copy.hpp for the caching contract).
#include "device_copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/kernels.hpp"
#include "portable_ops.hpp"
#include "snack/error.hpp"
#include "spmm/host_threads.hpp"

namespace snk::cuda {

std::mutex& backend_mutex() {
  static std::mutex mutex;
  return mutex;
}

void throw_on_cuda_error(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();   // the error is reported here; do not let it resurface in an unrelated call
  const std::string message = std::string("cuda backend: ") + what + ": " + cudaGetErrorString(e);
  throw Error(e == cudaErrorMemoryAllocation ? Info::OutOfMemory : Info::Panic, message);
}

// ---- DeviceBuffer ---------------------------------------------------------------------------------------
// Allocations are stream-ordered (cudaMallocAsync / cudaFreeAsync) on the backend's stream, from the device's default
// pool, which keeps what is freed for reuse (its release threshold raised once): a call allocates a dozen buffers and
// plain cudaMalloc / cudaFree would map and unmap device memory for each. Freed memory returns to the device only when
// an allocation fails: the pool is trimmed and the allocation tried once more, so exhaustion is still OutOfMemory.
//
// Small buffers (up to kCachedUpTo bytes, in size classes a quarter octave apart) freed on the backend's stream are
// kept, the latest kCachedBytes and kCachedBlocks of them, for the next allocation of their class on that stream:
// the stream's order makes the reuse safe (the new work queues behind the old), and a chain of small calls would
// otherwise make more pool calls than kernel launches. They return to the pool when an allocation fails, when the
// stream changes, at process exit, or always where $SNACK_DEVICE_BLOCK_CACHE is "0" (so that a memory checker sees
// each buffer's own size). A buffer made while the stream is captured into a CUDA graph bypasses the cache (capturing).

namespace {
std::atomic<cudaStream_t> allocation_stream{nullptr};

cudaMemPool_t pool_of_current_device() {
  int device = 0;
  throw_on_cuda_error(cudaGetDevice(&device), "current device");
  cudaMemPool_t pool = nullptr;
  throw_on_cuda_error(cudaDeviceGetDefaultMemPool(&pool, device), "default memory pool");
  return pool;
}

constexpr std::size_t kCachedUpTo = std::size_t(1) << 20, kCachedBytes = std::size_t(16) << 20, kCachedBlocks = 256;
constexpr int kClasses = 4 * 12 + 1;   // 256 bytes to 1 MB (kCachedUpTo), four classes an octave

std::size_t class_bytes(int c) {
  return (std::size_t(256) << (c / 4)) + std::size_t(c % 4) * (std::size_t(64) << (c / 4));
}

struct BlockCache {
  struct Block {
    void* data;
    int size_class;
  };
  std::mutex mutex;
  std::deque<Block> kept;          // oldest first, each freed on allocation_stream (emptied when that changes)
  std::size_t bytes = 0;
  bool closed = false;             // after the release at exit: frees go to the pool
  const bool enabled = [] {
    const char* env = std::getenv("SNACK_DEVICE_BLOCK_CACHE");
    return env == nullptr || std::string(env) != "0";
  }();

  void free_oldest() {
    (void)cudaFreeAsync(kept.front().data, allocation_stream.load());
    bytes -= class_bytes(kept.front().size_class);
    kept.pop_front();
  }
  void release_locked() {
    while (!kept.empty()) free_oldest();
  }
};

BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache;   // its blocks are released by close_block_cache_at_exit()
  return *cache;
}

// Returns the kept blocks to the pool; `close` (at exit) sends every later free there too.
void release_cached_blocks(bool close = false) {
  BlockCache& c = block_cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.release_locked();
  c.closed = c.closed || close;
}

// The class of a request of `bytes` bytes (-1: not kept).
int size_class(std::size_t bytes) {
  if (bytes > kCachedUpTo || !block_cache().enabled) return -1;
  int c = 0;
  while (class_bytes(c) < bytes) ++c;
  return c;
}

// The most recently kept block of class c, for a buffer on `stream`, or null.
void* take_cached(int c, cudaStream_t stream) {
  BlockCache& cache = block_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (stream != allocation_stream.load()) return nullptr;
  for (auto it = cache.kept.rbegin(); it != cache.kept.rend(); ++it) {
    if (it->size_class != c) continue;
    void* block = it->data;
    cache.kept.erase(std::next(it).base());
    cache.bytes -= class_bytes(c);
    return block;
  }
  return nullptr;
}

// Keeps a block of class c freed on `stream`, returning the oldest kept ones to the pool past kCachedBytes or
// kCachedBlocks; false where the cache is closed or serves another stream.
bool keep_cached(void* block, int c, cudaStream_t stream) {
  BlockCache& cache = block_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.closed || stream != allocation_stream.load()) return false;
  static const bool at_exit = std::atexit(close_block_cache_at_exit) == 0;   // after the runtime's start
  (void)at_exit;
  cache.kept.push_back({block, c});
  cache.bytes += class_bytes(c);
  while (cache.bytes > kCachedBytes || cache.kept.size() > kCachedBlocks) cache.free_oldest();
  return true;
}

// Whether work queued on `stream` is being captured into a CUDA graph (the caller's capture, which the backend's
// stream joins by waiting on the caller's stream). A buffer made then is the graph's: allocated and freed by the
// graph's own memory nodes, never taken from or kept in the small-block cache, whose blocks outlive the graph.
bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  throw_on_cuda_error(cudaStreamIsCapturing(stream, &status), "stream capture status");
  return status != cudaStreamCaptureStatusNone;
}

// Runs alloc(); on exhaustion, returns the kept blocks and the pool's free memory to the device and runs it once more.
template <class Alloc>
void allocate_or_trim(Alloc&& alloc) {
  cudaError_t e = alloc();
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    release_cached_blocks();
    (void)cudaDeviceSynchronize();
    (void)cudaMemPoolTrimTo(pool_of_current_device(), 0);
    e = alloc();
  }
  throw_on_cuda_error(e, "device allocation");
}
}  // namespace

// At process exit the runtime may already be gone: errors are of no consequence.
void close_block_cache_at_exit() { release_cached_blocks(true); }

void set_allocation_stream(cudaStream_t stream) {
  cudaMemPool_t pool = pool_of_current_device();
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  throw_on_cuda_error(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "memory pool threshold");
  BlockCache& cache = block_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.release_locked();   // on the stream they were freed on, before it changes
  allocation_stream.store(stream);
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : stream_(allocation_stream.load()) {
  if (bytes == 0) return;
  if (stream_ == nullptr) {
    allocate_or_trim([&] { return cudaMalloc(&data_, bytes); });
  } else if (const int c = size_class(bytes); c >= 0 && !capturing(stream_)) {
    data_ = take_cached(c, stream_);
    if (data_ == nullptr) allocate_or_trim([&] { return cudaMallocAsync(&data_, class_bytes(c), stream_); });
    size_class_ = c;
  } else {
    allocate_or_trim([&] { return cudaMallocAsync(&data_, bytes, stream_); });
  }
  bytes_ = bytes;
}

void DeviceBuffer::release() noexcept {
  // At process exit the runtime may already be unloaded (statics destroyed after it): nothing to report.
  if (data_ == nullptr) return;
  if (borrowed_) {
    // the caller's memory
  } else if (size_class_ >= 0 && keep_cached(data_, size_class_, stream_)) {
    // kept for the next buffer of its class on this stream
  } else if (stream_ != nullptr) {
    (void)cudaFreeAsync(data_, stream_);
  } else {
    (void)cudaFree(data_);
  }
  data_ = nullptr;
  bytes_ = 0;
  size_class_ = -1;
  borrowed_ = false;
  for_results_ = false;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      stream_(std::exchange(other.stream_, nullptr)),
      size_class_(std::exchange(other.size_class_, -1)),
      borrowed_(std::exchange(other.borrowed_, false)),
      for_results_(std::exchange(other.for_results_, false)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    stream_ = std::exchange(other.stream_, nullptr);
    size_class_ = std::exchange(other.size_class_, -1);
    borrowed_ = std::exchange(other.borrowed_, false);
    for_results_ = std::exchange(other.for_results_, false);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer DeviceBuffer::borrowed(void* data, std::size_t bytes, bool for_results) {
  DeviceBuffer b;
  b.data_ = data;
  b.bytes_ = bytes;
  b.borrowed_ = true;
  b.for_results_ = for_results;
  return b;
}

DeviceBuffer result_values(const Matrix& T, std::size_t bytes, std::initializer_list<DeviceRange> inputs) {
  const LentMemory& lent = T.lent_memory();
  if (lent.data == nullptr || lent.bytes != bytes || bytes == 0) return DeviceBuffer(bytes);
  const auto begin = reinterpret_cast<std::uintptr_t>(lent.data);
  for (const DeviceRange& in : inputs) {
    const auto b = reinterpret_cast<std::uintptr_t>(in.data);
    if (in.data != nullptr && in.bytes > 0 && b < begin + bytes && begin < b + in.bytes) return DeviceBuffer(bytes);
  }
  return DeviceBuffer::borrowed(lent.data, bytes, /*for_results=*/true);
}

// ---- Uploads ----------------------------------------------------------------------------------------------
// The host form lives in pageable memory, which the driver copies through its own small staging buffers at a fraction
// of the bus speed. A large upload goes through page-locked slots of the backend's instead (allocated once): host
// threads copy chunks into the slots, each slot's transfer queued as soon as its chunk is in, so the copies of some
// chunks run while others travel. The source may change once upload() returns (every chunk has left it).

namespace {
constexpr std::size_t kStagedFrom = std::size_t(8) << 20;   // smaller uploads: one plain copy
constexpr std::size_t kChunk = std::size_t(4) << 20;

struct StagingSlots {
  std::mutex mutex;   // one upload at a time
  struct Slot {
    void* host = nullptr;
    cudaEvent_t done = nullptr;   // the slot's last transfer
    std::mutex in_use;
  };
  std::vector<std::unique_ptr<Slot>> slots;
  bool unavailable = false;

  // The slots, made on first use (false, and plain copies from then on, where page-locked memory is refused). Their
  // release is registered at exit then: after the runtime's own start, so it runs before the runtime's teardown.
  bool ready(int count) {
    if (unavailable) return false;
    static const bool at_exit = std::atexit(release_upload_slots) == 0;
    (void)at_exit;
    while (static_cast<int>(slots.size()) < count) {
      auto slot = std::make_unique<Slot>();
      if (cudaHostAlloc(&slot->host, kChunk, cudaHostAllocDefault) != cudaSuccess ||
          cudaEventCreateWithFlags(&slot->done, cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaGetLastError();
        if (slot->host != nullptr) (void)cudaFreeHost(slot->host);
        if (slots.empty()) unavailable = true;
        return !slots.empty();
      }
      slots.push_back(std::move(slot));
    }
    return true;
  }
};

StagingSlots& staging() {
  static StagingSlots* s = new StagingSlots;   // its memory is released by release_upload_slots()
  return *s;
}

void upload_staged(void* device, const void* host, std::size_t bytes, cudaStream_t stream) {
  StagingSlots& st = staging();
  std::lock_guard<std::mutex> lock(st.mutex);
  const int threads = std::min(host_order_threads(), 8);
  if (!st.ready(2 * threads)) {
    throw_on_cuda_error(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream), "upload");
    return;
  }
  const std::int64_t chunks = static_cast<std::int64_t>((bytes + kChunk - 1) / kChunk);
  const std::int64_t nslots = static_cast<std::int64_t>(st.slots.size());
  for_each_range(
      chunks, 1,
      [&](std::int64_t c, std::int64_t) {
        StagingSlots::Slot& slot = *st.slots[static_cast<std::size_t>(c % nslots)];
        std::lock_guard<std::mutex> mine(slot.in_use);
        throw_on_cuda_error(cudaEventSynchronize(slot.done), "upload");
        const std::size_t at = static_cast<std::size_t>(c) * kChunk, len = std::min(kChunk, bytes - at);
        std::memcpy(slot.host, static_cast<const unsigned char*>(host) + at, len);
        throw_on_cuda_error(cudaMemcpyAsync(static_cast<unsigned char*>(device) + at, slot.host, len,
                                            cudaMemcpyHostToDevice, stream),
                            "upload");
        throw_on_cuda_error(cudaEventRecord(slot.done, stream), "upload");
      },
      threads);
}
}  // namespace

void release_upload_slots() {
  StagingSlots& st = staging();
  std::lock_guard<std::mutex> lock(st.mutex);
  for (auto& slot : st.slots) {   // at process exit the runtime may already be gone: errors are of no consequence
    (void)cudaEventDestroy(slot->done);
    (void)cudaFreeHost(slot->host);
  }
  st.slots.clear();
}

namespace {
// Whether the host memory [p, p + bytes) is page-locked: its first and last bytes are (a locked range is locked
// whole: lock_host_pages, cudaHostAlloc).
bool page_locked(const void* p, std::size_t bytes) {
  auto locked = [](const void* q) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, q) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return a.type == cudaMemoryTypeHost;
  };
  return locked(p) && locked(static_cast<const unsigned char*>(p) + bytes - 1);
}
}  // namespace

std::shared_ptr<void> lock_host_pages(void* p, std::size_t bytes) {
  if (p == nullptr || bytes < kStagedFrom) return nullptr;   // smaller uploads are one plain copy anyway
  if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return std::shared_ptr<void>(p, [](void* q) {
    if (cudaHostUnregister(q) != cudaSuccess) (void)cudaGetLastError();   // at exit the runtime may be gone
  });
}

void DeviceBuffer::upload(const void* host, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  if (bytes > bytes_) throw Error(Info::Panic, "cuda backend: upload larger than its device buffer");
  if (bytes >= kStagedFrom) {
    if (page_locked(host, bytes)) {   // the copy engine reads it directly, at the bus's speed
      throw_on_cuda_error(cudaMemcpyAsync(data_, host, bytes, cudaMemcpyHostToDevice, stream), "upload");
      throw_on_cuda_error(cudaStreamSynchronize(stream), "upload");   // the source may change once this returns
      return;
    }
    upload_staged(data_, host, bytes, stream);
    return;
  }
  throw_on_cuda_error(cudaMemcpyAsync(data_, host, bytes, cudaMemcpyHostToDevice, stream), "upload");
}

namespace {
// An event of this thread on the current device, for stream_waits. One serves every wait: a wait is on the event's
// record at the time it is queued, so the event may be recorded again at once.
cudaEvent_t ordering_event(const char* what) {
  struct Events {
    std::vector<std::pair<int, cudaEvent_t>> of_device;
    ~Events() {
      for (auto& d : of_device) (void)cudaEventDestroy(d.second);   // at exit the runtime may be gone: no matter
    }
  };
  thread_local Events events;
  int device = 0;
  throw_on_cuda_error(cudaGetDevice(&device), what);
  for (const auto& d : events.of_device)
    if (d.first == device) return d.second;
  cudaEvent_t e = nullptr;
  throw_on_cuda_error(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), what);
  events.of_device.emplace_back(device, e);
  return e;
}

}  // namespace

void stream_waits(cudaStream_t waiting, cudaStream_t queued, const char* what) {
  if (waiting == queued) return;
  const cudaEvent_t e = ordering_event(what);
  throw_on_cuda_error(cudaEventRecord(e, queued), what);
  throw_on_cuda_error(cudaStreamWaitEvent(waiting, e, 0), what);
}

// ---- MatrixOnDevice -------------------------------------------------------------------------------------

MatrixOnDevice& MatrixOnDevice::of(const Matrix& m, cudaStream_t stream) {
  int device = 0;
  throw_on_cuda_error(cudaGetDevice(&device), "current device");
  if (auto* mine = dynamic_cast<MatrixOnDevice*>(m.device_copy()); mine != nullptr && mine->device_ == device)
    return *mine;

  const CsrStorage& host = m.csr();   // finished and host-valid (downloads another backend's copy if needed)
  DeviceBuffer values(host.x.size());
  values.upload(host.x.data(), host.x.size(), stream);
  throw_on_cuda_error(cudaStreamSynchronize(stream), "upload of a matrix");
  core::count_upload(host.x.size());
  std::unique_ptr<MatrixOnDevice> copy(new MatrixOnDevice(device, std::move(values), m.type()->size));
  copy->nvals_ = host.nvals();
  copy->stream_ = stream;
  MatrixOnDevice& attached = *copy;
  // Filling the device-copy cache leaves the matrix's content as it was (host form valid, no pending work).
  const_cast<Matrix&>(m).attach_device_copy(std::move(copy), /*host_is_stale=*/false);
  return attached;
}

std::uint64_t MatrixOnDevice::next_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

namespace {
// The compacted pattern of a host CSR form as the plan takes it: its non-empty rows, their row pointers and the
// entries' columns (32-bit).
struct CompactedArrays {
  std::vector<Index> rows;
  std::vector<std::int32_t> row_ptr{0}, col;
};

CompactedArrays compacted_arrays(const CsrStorage& host) {
  CompactedArrays a;
  a.col.resize(host.j.size());
  for (Index k = 0; k < host.nslots(); ++k) {
    if (host.p[k + 1] == host.p[k]) continue;
    a.rows.push_back(host.hyper ? host.h[k] : k);
    a.row_ptr.push_back(static_cast<std::int32_t>(host.p[k + 1]));
  }
  for_each_range(static_cast<std::int64_t>(a.col.size()), std::int64_t(1) << 20, [&](std::int64_t e0, std::int64_t e1) {
    for (std::int64_t e = e0; e < e1; ++e)
      a.col[static_cast<std::size_t>(e)] = static_cast<std::int32_t>(host.j[static_cast<std::size_t>(e)]);
  });
  return a;
}
}  // namespace

CompactedPattern* MatrixOnDevice::pattern(const Matrix& m, cudaStream_t stream) {
  if (pattern_tried_) return pattern_.get();
  const CsrStorage& host = m.csr();
  constexpr Index kInt32Max = static_cast<Index>(std::numeric_limits<std::int32_t>::max());
  if (m.ncols() > kInt32Max || host.nvals() > kMaxPlanNnz) {   // kMaxPlanNnz: Plan::create's bound on nnz
    pattern_tried_ = true;
    return nullptr;
  }

  auto compacted = std::make_shared<CompactedPattern>();
  CompactedArrays arrays = compacted_arrays(host);
  compacted->rows = std::move(arrays.rows);

  try {
    // From the host arrays: the plan is built on the host (synchronizes the stream).
    const auto rows = static_cast<std::int32_t>(compacted->rows.size());
    compacted->plan =
        Plan::create(rows, static_cast<std::int32_t>(m.ncols()), arrays.row_ptr, arrays.col, PlanOptions{}, stream);
    core::count_upload(compacted->plan->device_bytes());
    compacted->device_rows = DeviceBuffer(compacted->rows.size() * sizeof(Index));
    compacted->device_rows.upload(compacted->rows.data(), compacted->rows.size() * sizeof(Index), stream);
    core::count_upload(compacted->rows.size() * sizeof(Index));
    throw_on_cuda_error(cudaStreamSynchronize(stream), "upload of a plan's rows");
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(Info::Panic, std::string("cuda backend: building the SpMM plan failed: ") + e.what());
  }
  pattern_tried_ = true;
  pattern_ = std::move(compacted);
  return pattern_.get();
}

Plan* MatrixOnDevice::transposed_plan(const Matrix& m, cudaStream_t stream) {
  CompactedPattern* p = pattern(m, stream);
  if (p == nullptr) return nullptr;
  if (!p->transposed_tried) {
    p->transposed_tried = true;
    // The host form of a device-only result is downloaded (counted) for this, once per pattern.
    const CompactedArrays arrays = compacted_arrays(m.csr());
    std::vector<char> used(m.ncols(), 0);
    Index distinct = 0;
    for (const std::int32_t c : arrays.col) distinct += used[c] ? 0 : (used[c] = 1);
    if (distinct != m.ncols()) return nullptr;   // an empty column: W^T X would leave a row of the result empty
    try {
      const std::size_t before = p->plan->device_bytes();
      p->plan->add_transposed(arrays.row_ptr, arrays.col, stream);
      core::count_upload(p->plan->device_bytes() - before);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(Info::Panic, std::string("cuda backend: building the transposed SpMM plan failed: ") + e.what());
    }
  }
  return p->plan->has_transposed() ? p->plan.get() : nullptr;
}

std::string MatrixOnDevice::describe() const {
  std::string d = "cuda: " + std::to_string(values_.bytes()) + " value bytes";
  if (values_.is_borrowed()) d += " in the caller's memory";
  if (arrays_ && arrays_.use_count() > 1)
    d += ", pattern arrays shared with " + std::to_string(arrays_.use_count() - 1) + " other copies";
  if (pattern_) {
    const Plan& plan = *pattern_->plan;
    d += ", plan of " + std::to_string(plan.rows()) + " rows and " + std::to_string(plan.nnz()) + " non-zeros";
    if (plan.has_bound_values())
      d += std::string(", values bound (") + (pattern_->bound_type == ValueType::FP32 ? "FP32" : "16-bit") + ")";
    if (plan.has_transposed()) d += ", transposed plan";
  }
  if (two_four_.hint != Matrix::TwoFourHint::Off)
    d += std::string(", 2:4 form (") + (two_four_.hint == Matrix::TwoFourHint::FP16 ? "FP16" : "BF16") + ")";
  if (two_four_.refused) d += ", not 2:4";
  return d;
}

std::unique_ptr<MatrixOnDevice> MatrixOnDevice::dense_rows(int device, DeviceBuffer values, std::vector<Index> rows,
                                                           const DeviceBuffer* device_rows, Index ncols,
                                                           std::size_t elem_size, cudaStream_t stream) {
  std::unique_ptr<MatrixOnDevice> copy(new MatrixOnDevice(device, std::move(values), elem_size));
  copy->dense_rows_ = true;
  if (device_rows != nullptr && device_rows->bytes() > 0) {
    copy->device_rows_ = DeviceBuffer(device_rows->bytes());
    throw_on_cuda_error(cudaMemcpyAsync(copy->device_rows_.get(), device_rows->get(), device_rows->bytes(),
                                        cudaMemcpyDeviceToDevice, stream),
                        "copy of a result's rows");
  }
  copy->nvals_ = static_cast<Index>(rows.size()) * ncols;
  copy->held_rows_ = static_cast<Index>(rows.size());
  copy->rows_ = std::move(rows);
  copy->ncols_ = ncols;
  copy->stream_ = stream;
  return copy;
}

std::unique_ptr<MatrixOnDevice> MatrixOnDevice::every_row(int device, DeviceBuffer values, Index nrows, Index ncols,
                                                          std::size_t elem_size, cudaStream_t stream) {
  std::unique_ptr<MatrixOnDevice> copy(new MatrixOnDevice(device, std::move(values), elem_size));
  copy->dense_rows_ = true;
  copy->every_row_ = true;
  copy->nvals_ = nrows * ncols;
  copy->held_rows_ = nrows;
  copy->ncols_ = ncols;
  copy->stream_ = stream;
  return copy;
}

std::vector<Index> MatrixOnDevice::held_row_ids() const {
  if (!every_row_) return rows_;
  std::vector<Index> ids(held_rows_);
  for (Index i = 0; i < held_rows_; ++i) ids[i] = i;
  return ids;
}

std::unique_ptr<MatrixOnDevice> MatrixOnDevice::from_csr(int device, bool hyper, Index nslots, Index nvals,
                                                         DeviceBuffer h, DeviceBuffer p, DeviceBuffer j, DeviceBuffer x,
                                                         std::size_t elem_size, cudaStream_t stream) {
  std::unique_ptr<MatrixOnDevice> copy(new MatrixOnDevice(device, std::move(x), elem_size));
  copy->nvals_ = nvals;
  copy->has_csr_ = true;
  copy->owns_host_form_ = true;
  copy->hyper_ = hyper;
  copy->nslots_ = nslots;
  copy->arrays_ = std::make_shared<CsrArrays>(CsrArrays{std::move(h), std::move(p), std::move(j)});
  copy->stream_ = stream;
  return copy;
}

std::unique_ptr<MatrixOnDevice> MatrixOnDevice::with_values(const MatrixOnDevice& source, DeviceBuffer x,
                                                            std::size_t elem_size, cudaStream_t stream) {
  if (!source.has_csr_) throw Error(Info::Panic, "cuda backend: a result shares the pattern of a copy that has none");
  std::unique_ptr<MatrixOnDevice> copy(new MatrixOnDevice(source.device_, std::move(x), elem_size));
  copy->nvals_ = source.nvals_;
  copy->has_csr_ = true;
  copy->owns_host_form_ = true;
  copy->hyper_ = source.hyper_;
  copy->nslots_ = source.nslots_;
  copy->arrays_ = source.arrays_;
  copy->stream_ = stream;
  copy->pattern_ = source.pattern_;
  copy->pattern_tried_ = source.pattern_tried_ && source.pattern_ != nullptr;
  return copy;
}

std::unique_ptr<MatrixOnDevice> MatrixOnDevice::with_pattern_of(const Matrix& A, DeviceBuffer x, std::size_t elem_size,
                                                                cudaStream_t stream) {
  MatrixOnDevice& source = of(A, stream);
  source.csr(A, stream);
  return with_values(source, std::move(x), elem_size, stream);
}

MatrixOnDevice::Csr MatrixOnDevice::csr(const Matrix& m, cudaStream_t stream) {
  if (!has_csr_) {
    if (dense_rows_) {
      // Every row present: plain CSR (slot = row); else hypersparse over the rows held.
      const Index rows = held_rows_;
      hyper_ = rows != m.nrows();
      auto arrays = std::make_shared<CsrArrays>();
      if (hyper_) arrays->h = std::move(device_rows_);
      arrays->p = DeviceBuffer((rows + 1) * sizeof(Index));
      arrays->j = DeviceBuffer(nvals_ * sizeof(Index));
      fill_dense_pattern(static_cast<Index*>(arrays->p.get()), static_cast<Index*>(arrays->j.get()), rows, ncols_,
                         stream);
      arrays_ = std::move(arrays);
      nslots_ = rows;
    } else {
      const CsrStorage& host = m.csr();   // this copy sits beside a valid host form
      hyper_ = host.hyper;
      nslots_ = host.nslots();
      auto arrays = std::make_shared<CsrArrays>();
      arrays->h = DeviceBuffer(host.h.size() * sizeof(Index));
      arrays->p = DeviceBuffer(host.p.size() * sizeof(Index));
      arrays->j = DeviceBuffer(host.j.size() * sizeof(Index));
      if (host.nvals() == 0 && host.h.empty()) {
        // Empty (no slots, or plain rows with no entry): its row pointers are zeros, made on the device.
        throw_on_cuda_error(cudaMemsetAsync(arrays->p.get(), 0, host.p.size() * sizeof(Index), stream),
                            "row pointers of an empty matrix");
      } else {
        arrays->h.upload(host.h.data(), host.h.size() * sizeof(Index), stream);
        arrays->p.upload(host.p.data(), host.p.size() * sizeof(Index), stream);
        arrays->j.upload(host.j.data(), host.j.size() * sizeof(Index), stream);
        core::count_upload((host.h.size() + host.p.size() + host.j.size()) * sizeof(Index));
      }
      arrays_ = std::move(arrays);
      throw_on_cuda_error(cudaStreamSynchronize(stream), "upload of a pattern");   // the host arrays may change after
    }
    // (a dense-rows pattern is made on the device, in stream order: its readers queue behind it)
    has_csr_ = true;
  }
  Csr c;
  c.hyper = hyper_;
  c.nslots = nslots_;
  c.nvals = nvals_;
  c.h = static_cast<const Index*>(arrays_->h.get());
  c.p = static_cast<const Index*>(arrays_->p.get());
  c.j = static_cast<const Index*>(arrays_->j.get());
  c.x = values_.get();
  return c;
}

Index MatrixOnDevice::nvals() const { return nvals_; }

namespace {
// Runs f() with the copy's device current, restoring the caller's.
template <class F>
void on_device(int device, F&& f) {
  int previous = 0;
  throw_on_cuda_error(cudaGetDevice(&previous), "current device");
  if (previous != device) throw_on_cuda_error(cudaSetDevice(device), "select the copy's device");
  try {
    f();
  } catch (...) {
    if (previous != device) (void)cudaSetDevice(previous);
    throw;
  }
  if (previous != device) (void)cudaSetDevice(previous);
}

void copy_back(void* dst, const DeviceBuffer& src, std::size_t bytes, cudaStream_t stream) {
  if (bytes > 0) throw_on_cuda_error(cudaMemcpyAsync(dst, src.get(), bytes, cudaMemcpyDeviceToHost, stream), "download");
}

DeviceBuffer duplicate(const DeviceBuffer& src, cudaStream_t stream) {
  DeviceBuffer out(src.bytes());
  if (src.bytes() > 0)
    throw_on_cuda_error(cudaMemcpyAsync(out.get(), src.get(), src.bytes(), cudaMemcpyDeviceToDevice, stream), "duplicate");
  return out;
}
}  // namespace

void MatrixOnDevice::download(CsrStorage& out) {
  if (owns_host_form_) {
    out = CsrStorage();
    out.hyper = hyper_;
    out.h.resize(hyper_ ? nslots_ : 0);
    out.p.resize(nslots_ + 1);
    out.j.resize(nvals_);
    out.x.resize(nvals_ * elem_size_);
    on_device(device_, [&] {
      copy_back(out.h.data(), arrays_->h, out.h.size() * sizeof(Index), stream_);
      copy_back(out.p.data(), arrays_->p, out.p.size() * sizeof(Index), stream_);
      copy_back(out.j.data(), arrays_->j, out.j.size() * sizeof(Index), stream_);
      copy_back(out.x.data(), values_, out.x.size(), stream_);
      throw_on_cuda_error(cudaStreamSynchronize(stream_), "download of a result");
    });
    return;
  }
  if (!dense_rows_)
    throw Error(Info::Panic, "cuda backend: a copy attached beside its host form was asked to download");
  const Index rows = held_rows_, n = ncols_;
  out = CsrStorage();
  out.hyper = true;
  out.h = held_row_ids();
  out.p.resize(rows + 1);
  for (Index r = 0; r <= rows; ++r) out.p[r] = r * n;
  out.j.resize(rows * n);
  for_each_range(static_cast<std::int64_t>(rows), 1024, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r)
      for (Index c = 0; c < n; ++c) out.j[static_cast<std::size_t>(r) * n + c] = c;
  });
  out.x.resize(values_.bytes());
  int previous = 0;
  throw_on_cuda_error(cudaGetDevice(&previous), "current device");
  if (previous != device_) throw_on_cuda_error(cudaSetDevice(device_), "select the copy's device");
  const cudaError_t e = cudaMemcpyAsync(out.x.data(), values_.get(), values_.bytes(), cudaMemcpyDeviceToHost, stream_);
  const cudaError_t s = e == cudaSuccess ? cudaStreamSynchronize(stream_) : e;
  if (previous != device_) (void)cudaSetDevice(previous);
  throw_on_cuda_error(s, "download of a result");
}

bool MatrixOnDevice::mask_accum(Matrix& C, const Matrix* M, bool structural, bool complement, const BinaryOp* accum,
                                Matrix& T, bool replace) {
#if defined(SNACK_CUDA_PORTABLE)
  std::lock_guard<std::mutex> lock(backend_mutex());
  bool done = false;
  on_device(device_, [&] { done = portable_mask_accum(C, M, structural, complement, accum, T, replace, stream_); });
  return done;
#else
  (void)C, (void)M, (void)structural, (void)complement, (void)accum, (void)T, (void)replace;
  return false;
#endif
}

std::unique_ptr<DeviceCopy> MatrixOnDevice::clone() const {
  if (owns_host_form_) {
    std::unique_ptr<MatrixOnDevice> copy;
    on_device(device_, [&] {
      // The pattern's arrays are shared (no copy writes them); the values are duplicated.
      copy = with_values(*this, duplicate(values_, stream_), elem_size_, stream_);
      throw_on_cuda_error(cudaStreamSynchronize(stream_), "duplicate of a result");
    });
    return copy;
  }
  if (!dense_rows_) return nullptr;   // an input's copy: the duplicate copies the host form and uploads when used
  int previous = 0;
  throw_on_cuda_error(cudaGetDevice(&previous), "current device");
  if (previous != device_) throw_on_cuda_error(cudaSetDevice(device_), "select the copy's device");
  std::unique_ptr<MatrixOnDevice> copy;
  try {
    DeviceBuffer values(values_.bytes());
    if (values_.bytes() > 0) {
      throw_on_cuda_error(cudaMemcpyAsync(values.get(), values_.get(), values_.bytes(), cudaMemcpyDeviceToDevice, stream_),
                          "duplicate of a result");
      throw_on_cuda_error(cudaStreamSynchronize(stream_), "duplicate of a result");
    }
    copy = every_row_ ? every_row(device_, std::move(values), held_rows_, ncols_, elem_size_, stream_)
                      : dense_rows(device_, std::move(values), rows_, has_csr_ && hyper_ ? &arrays_->h : &device_rows_,
                                   ncols_, elem_size_, stream_);
    copy->inherit_pattern(pattern_);
  } catch (...) {
    if (previous != device_) (void)cudaSetDevice(previous);
    throw;
  }
  if (previous != device_) (void)cudaSetDevice(previous);
  return copy;
}

}  // namespace snk::cuda
