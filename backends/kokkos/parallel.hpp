// backends/kokkos/parallel.hpp: the Kokkos execution space of the kokkos backend and the type-independent
// building blocks every kernel of this folder shares.
//
// Kernels run on Kokkos' default host execution space (OpenMP here) with RangePolicy loops whose bodies
// capture plain pointers into the containers' host storage (the Matrix keeps std::vector storage, so no
// copies and no managed Views are needed). CsrRef is a read-only, trivially copyable view of a matrix's
// (hyper)sparse CSR form that a lambda can capture by value; it finds a row in O(1), or O(log) when the
// matrix is hypersparse. The helpers declared here (scans, load-balanced chunking, output assembly) do not
// depend on the value type, so they are compiled once in parallel.cpp instead of once per kernel
// instantiation. Every kernel is deterministic: each output entry is produced by one thread in a fixed
// order, and no floating-point atomics are used anywhere, so results are bitwise identical run to run
// whatever snk::deterministic() says.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "portable/csr_ref.hpp"
#include "snack/containers.hpp"

namespace snk::kokkos {

using Exec = Kokkos::DefaultHostExecutionSpace;
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
using DynamicRange = Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<std::int64_t>>;

// A heap array of n values (value-initialized), for scratch and results of any value type (unlike
// std::vector, also for bool with one byte per value and a data() pointer).
template <class T>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t n) : data_(n ? new T[n]() : nullptr), size_(n) {}
  Buffer(std::size_t n, T fill) : Buffer(n) { std::fill(data_.get(), data_.get() + n, fill); }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  T* begin() { return data_.get(); }
  T* end() { return data_.get() + size_; }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
};

CsrRef csr_ref(const Matrix& A);

// Kokkos' host pool serves one user thread: the one that initialized Kokkos (GrB_init's thread, normally),
// outside a parallel region of its own. Every other user thread runs the same kernels on itself, serially:
// Kokkos 3.4 runs a parallel_for serially there but refuses a parallel_scan, so every parallel helper of this
// folder asks this first. Several user threads may therefore call the backend at once, each on its own
// objects (the kernels keep no state between calls).
inline bool on_pool() { return !Exec::in_parallel(); }

// Whether a parallel helper called now runs on the pool: this thread owns it (on_pool) and the pool governor
// (pool_governor.hpp) is not holding the pool back because other processes hold the machine's cores.
bool use_pool();

// Loops with less work than this run on the calling thread: a parallel region costs more than it saves
// there (and much more when the machine is oversubscribed and a worker thread is descheduled).
constexpr Index kSerialWork = 8192;

// A type-independent parallel loop f(k), k in [0, n) (Kokkos::parallel_for over a RangePolicy, or a plain
// loop below kSerialWork items).
template <class F>
void host_parallel_for(const char* label, Index n, const F& f) {
  if (n < kSerialWork || !use_pool()) {
    for (Index k = 0; k < n; ++k) f(std::int64_t(k));
    return;
  }
  Kokkos::parallel_for(label, Range(0, std::int64_t(n)), f);
  Kokkos::fence();
}

// f(k) for k in [0, n) with Kokkos' dynamic schedule on the pool, or on this thread when use_pool() says no
// (f may claim per-thread scratch with a ThreadToken either way).
template <class F>
void dynamic_for(const char* label, std::int64_t n, const F& f) {
  if (!use_pool()) {
    for (std::int64_t k = 0; k < n; ++k) f(k);
    return;
  }
  Kokkos::parallel_for(label, DynamicRange(0, n), f);
  Kokkos::fence();
}

// Number of threads of the execution space.
int concurrency();

// p[0] = 0, p[k + 1] = counts[0] + ... + counts[k] for k < n (p has n + 1 entries). Returns p[n].
Index exclusive_scan(const Index* counts, Index* p, Index n);

// Splits [0, n) into at most `max_chunks` contiguous chunks of about equal total work, where
// work_prefix[k] (n + 1 entries, non-decreasing) is the work before item k. Returns the chunk boundaries
// (first 0, last n).
std::vector<Index> balanced_chunks(const Index* work_prefix, Index n, Index max_chunks);
// Equal-size chunks of at least `grain` items.
std::vector<Index> uniform_chunks(Index n, Index grain);

// An output CSR laid out slot by slot from per-slot counts: `slot_rows` (hyper only) gives the row of each
// slot. begin() allocates j and x; finish() drops empty slots of a hyper output and hands the storage to T.
struct OutputCsr {
  CsrStorage s;
  // counts: nslots entries. value_size: bytes per value.
  void begin(bool hyper, const Index* slot_rows, const Index* counts, Index nslots, std::size_t value_size);
  Index* j() { return s.j.data(); }
  unsigned char* x() { return s.x.data(); }
  const Index* p() const { return s.p.data(); }
  void finish(Matrix& T);
};

// ---- the one parallel dispatch of the templated kernels ------------------------------------------------------
// A templated kernel body is a plain function of a chunk of items [begin, end) and the index of the thread
// running it (0 <= thread < concurrency(), for per-thread scratch). parallel_chunks runs such a body over
// every chunk k = [bounds[k], bounds[k + 1]) with one Kokkos::parallel_for over the chunks (dynamic
// schedule) on the host execution space. Because the body is called through a pointer, the hundreds of
// (opcode, type) instantiations of the backend share this single Kokkos dispatch instead of each
// instantiating Kokkos' parallel machinery: that keeps the build fast and the library small; the inner
// loops stay fully inlined inside each body.
using ChunkBody = void (*)(const void* context, Index begin, Index end, int thread);
void parallel_chunks(const char* label, const std::vector<Index>& bounds, ChunkBody body, const void* context);

// for_chunks(label, bounds, f): f(begin, end, thread) for every chunk, in parallel.
template <class F>
void for_chunks(const char* label, const std::vector<Index>& bounds, const F& f) {
  parallel_chunks(label, bounds,
                  [](const void* context, Index begin, Index end, int thread) {
                    (*static_cast<const F*>(context))(begin, end, thread);
                  },
                  &f);
}

// for_items(label, n, f): f(k) for k in [0, n), in parallel over chunks of at least `grain` items.
template <class F>
void for_items(const char* label, Index n, const F& f, Index grain = 2048) {
  for_chunks(label, uniform_chunks(n, grain), [&](Index begin, Index end, int) {
    for (Index k = begin; k < end; ++k) f(k);
  });
}

// The entries of `pattern` where keep[e] is set, with values (value_size bytes each, indexed by entry of
// pattern) copied from `values`, laid out as T with pattern's rows (scan over entries, in parallel).
void compact_entries(Matrix& T, const CsrRef& pattern, const std::uint8_t* keep, const unsigned char* values,
                     std::size_t value_size);

// A copy of A's pattern (h, p, j) with room for values of value_size bytes.
CsrStorage copy_pattern(const Matrix& A, std::size_t value_size);

// out = A^T (values moved as bytes, value_size each), each row listing A's rows in increasing order: the portable
// transpose on the host (portable_host.cpp: per-run column counts, or, for an A far wider than its entry count, a
// sort, hypersparse where the result is). False (out unchanged) where no host space may run it.
bool transpose_storage(const CsrRef& A, std::size_t value_size, CsrStorage& out);

// A fixed number of per-thread scratch arrays (one per concurrent thread), claimed with a
// Kokkos::Experimental::UniqueToken inside a parallel loop.
using ThreadToken = Kokkos::Experimental::UniqueToken<Exec>;

}  // namespace snk::kokkos
