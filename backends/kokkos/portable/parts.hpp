// backends/kokkos/portable/parts.hpp: what the portable kernels run with and what they return, for any Kokkos space.
//
// A kernel is called with a context `ctx` that gives the execution space instance (ctx.exec(): on a GPU, the
// backend's stream) and owning buffers in that space's memory (ctx.alloc(bytes) -> an object with get(); the
// backend decides how they are allocated, so results can outlive Kokkos' own allocation tracking). It returns its
// result as CsrParts: the arrays of a (hyper)sparse CSR form in that memory, which the backend wraps as the result's
// device copy. The helpers below (loops, scans, copies) are the only places kernels touch Kokkos' dispatch.
//
// A kernel returns once its work is queued: its result is complete in the order of ctx.exec(), and the buffers it
// allocated for scratch may be released while that work is pending, since the backend releases them in that order
// (a GPU backend's stream-ordered frees; a host space runs each loop to its end). The host waits only where it reads
// a value back (read_back: the counts that size a result).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "portable/csr_ref.hpp"

namespace snk::kokkos::portable {

template <class Ctx>
using BytesOf = decltype(std::declval<Ctx&>().alloc(std::size_t(0)));

template <class Bytes>
struct CsrParts {
  bool hyper = false;
  Index nslots = 0, nvals = 0;
  Bytes h, p, j, x;   // h only when hyper; x holds nvals values of the result's type
};

template <class T, class Bytes>
T* as(const Bytes& b) {
  return static_cast<T*>(b.get());
}

template <class Ctx>
using ExecOf = std::decay_t<decltype(std::declval<Ctx&>().exec())>;

// Whether the context's space is the host's. Kernels take two shapes by it: on a device each index of the work gets a
// thread (thousands run at once, so a single row spreads over the device), on the host a thread takes a run of rows or
// entries and walks it in order (a pool of a few threads keeps busy, and a row is read once, not searched).
template <class Ctx>
constexpr bool host_space() {
  return std::is_same_v<typename ExecOf<Ctx>::memory_space, Kokkos::HostSpace>;
}

// Room for a result's values (out.x): ctx.alloc_values(bytes) where the context has it (the host's, whose results'
// arrays become the container's own without a copy, and values are held there as bytes), else ctx.alloc(bytes).
template <class C, class = void>
struct allocates_values : std::false_type {};
template <class C>
struct allocates_values<C, std::void_t<decltype(std::declval<C&>().alloc_values(std::size_t(0)))>> : std::true_type {};

template <class Ctx>
auto alloc_values(Ctx& ctx, std::size_t bytes) {
  if constexpr (allocates_values<Ctx>::value) return ctx.alloc_values(bytes);
  else return ctx.alloc(bytes);
}

// N values of V read or written as one aligned 16-byte piece.
template <class V, int N>
struct alignas(16) Piece16 {
  V v[N];
};

// for (i = 0; i < n; ++i) f(i), in parallel on the context's space, in Kokkos' own blocks (on a GPU, 64 indices to a
// block, scheduled as SMs free up, which balances indices of uneven work).
template <class Ctx, class F>
void for_n(Ctx& ctx, const char* label, Index n, const F& f) {
  if (n == 0) return;
  using Policy = Kokkos::RangePolicy<ExecOf<Ctx>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(label, Policy(ctx.exec(), 0, static_cast<std::int64_t>(n)),
                       KOKKOS_LAMBDA(const std::int64_t i) { f(static_cast<Index>(i)); });
}

// for_n for streaming passes, where every index does the same small work (a value read, a value written): on a device
// a bounded grid walks the range in strides, since over tens of millions of indices launching one 64-thread block
// per 64 indices, not memory, bounds such a pass; on the host, for_n.
template <class Ctx, class F>
void for_n_stream(Ctx& ctx, const char* label, Index n, const F& f) {
  if (n == 0) return;
  using Exec = ExecOf<Ctx>;
  if constexpr (host_space<Ctx>()) {
    for_n(ctx, label, n, f);
  } else {
    using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    constexpr std::int64_t kThreads = std::int64_t(1) << 18;   // about what a large GPU holds resident
    const std::int64_t total = static_cast<std::int64_t>(n);
    const std::int64_t threads = total < kThreads ? total : kThreads;
    Kokkos::parallel_for(label, Policy(ctx.exec(), 0, threads), KOKKOS_LAMBDA(const std::int64_t t) {
      for (std::int64_t i = t; i < total; i += threads) f(static_cast<Index>(i));
    });
  }
}

// f(s, e) for each slot s of A and each entry e of it: on a device, 32 consecutive threads per slot, side by side
// along its entries (so f's reads and writes along a row coalesce, and no entry searches for its slot), launched as a
// plain range (a team policy's launch costs the host several times more); on the host, one thread per slot.
template <class Ctx, class F>
void for_entries_by_slot(Ctx& ctx, const char* label, const CsrRef& A, const F& f) {
  if (A.nslots == 0 || A.nvals == 0) return;
  constexpr Index lanes = host_space<Ctx>() ? 1 : 32;
  const CsrRef a = A;
  for_n(ctx, label, a.nslots * lanes, KOKKOS_LAMBDA(Index t) {
    const Index s = t / lanes;
    for (Index e = a.p[s] + t % lanes; e < a.p[s + 1]; e += lanes) f(s, e);
  });
}

// The first slot k of [0, n] whose weight(k) reaches share r of weight(n) split `runs` ways (n for r = runs); weight is
// a prefix over slots: increasing, weight(0) = 0.
template <class W>
KOKKOS_INLINE_FUNCTION Index run_start(const W& weight, Index n, Index r, Index runs) {
  if (r >= runs) return n;
  const Index target = weight(n) / runs * r + weight(n) % runs * r / runs;
  Index lo = 0, hi = n;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (weight(mid) < target) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// The weight of the slots before k: their count plus their entries (a row's work is its entries and its own start).
struct SlotEntries {
  const Index* p;
  KOKKOS_INLINE_FUNCTION Index operator()(Index k) const { return k + p[k]; }
};

// f(k0, k1) over runs of consecutive slots [k0, k1) that cover 0 .. n-1 and split `weight` (a prefix, run_start's
// rule) evenly, 16 runs to each thread of the space, taken by the threads as they free up: for the host's kernels that
// give a thread whole rows, which a plain split of the slots would leave uneven where a few rows hold most entries
// (the weight is an estimate; the dynamic schedule absorbs its error).
template <class Ctx, class W, class F>
void for_slot_runs(Ctx& ctx, const char* label, Index n, const W& weight, const F& f) {
  if (n == 0) return;
  using Policy = Kokkos::RangePolicy<ExecOf<Ctx>, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<std::int64_t>>;
  const Index threads = static_cast<Index>(ctx.exec().concurrency());
  const Index runs = n < 16 * threads ? n : 16 * threads;
  Kokkos::parallel_for(label, Policy(ctx.exec(), 0, static_cast<std::int64_t>(runs)).set_chunk_size(1),
                       KOKKOS_LAMBDA(const std::int64_t i) {
                         const Index r = static_cast<Index>(i);
                         const Index k0 = run_start(weight, n, r, runs), k1 = run_start(weight, n, r + 1, runs);
                         if (k0 < k1) f(k0, k1);
                       });
}

// Whether the context reads values back itself (ctx.read_back_bytes(host, device, bytes), after the work queued before
// it), as a GPU context does through page-locked memory: a copy into pageable memory costs the host several times as
// long as the wait for the work before it.
template <class C, class = void>
struct reads_back_itself : std::false_type {};
template <class C>
struct reads_back_itself<C, std::void_t<decltype(std::declval<C&>().read_back_bytes(static_cast<void*>(nullptr),
                                                                                   static_cast<const void*>(nullptr),
                                                                                   std::size_t(0)))>>
    : std::true_type {};

// One value of the context's memory, read back to the host after the work queued before it (on the context's
// instance: Kokkos 3.4 returns a scan's or a reduction's host result through another stream, which does not wait
// for a non-blocking one, so results come back through device memory and this copy instead).
template <class T, class Ctx>
T read_back(Ctx& ctx, const T* device_value) {
  T host{};
  if constexpr (reads_back_itself<Ctx>::value) {
    ctx.read_back_bytes(&host, device_value, sizeof(T));
  } else {
    using Mem = typename ExecOf<Ctx>::memory_space;
    Kokkos::View<T, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(&host);
    Kokkos::View<const T, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> d(device_value);
    Kokkos::deep_copy(ctx.exec(), h, d);
    ctx.exec().fence();
  }
  return host;
}

// The counts of an array, as exclusive_scan reads them.
struct ArrayCounts {
  const Index* v;
  KOKKOS_INLINE_FUNCTION Index operator()(Index k) const { return v[k]; }
};

// Whether the context scans counts itself (ctx.exclusive_scan(count, out, n), with exclusive_scan's contract below,
// queued in stream order), as a GPU context does through its platform's library: one launch for a short scan, where
// Kokkos' scan costs several.
template <class C, class = void>
struct scans_itself : std::false_type {};
template <class C>
struct scans_itself<C, std::void_t<decltype(std::declval<C&>().exclusive_scan(ArrayCounts{nullptr},
                                                                             static_cast<Index*>(nullptr), Index(0)))>>
    : std::true_type {};

// out[k] = count(0) + ... + count(k-1) for k = 0 .. n (n + 1 values); returns out[n]. count(k) is read before out[k]
// is written, so out may be the array count reads (a scan in place).
template <class Ctx, class Count>
Index exclusive_scan(Ctx& ctx, const Count& count, Index* out, Index n) {
  if (n == 0) {
    for_n(ctx, "snack::portable::scan_empty", 1, KOKKOS_LAMBDA(Index) { out[0] = 0; });
    return 0;
  }
  if constexpr (scans_itself<Ctx>::value) {
    ctx.exclusive_scan(count, out, n);
  } else {
    using Policy = Kokkos::RangePolicy<ExecOf<Ctx>, Kokkos::IndexType<std::int64_t>>;
    const std::int64_t last = static_cast<std::int64_t>(n) - 1;
    Kokkos::parallel_scan("snack::portable::scan", Policy(ctx.exec(), 0, static_cast<std::int64_t>(n)),
                          KOKKOS_LAMBDA(const std::int64_t k, Index& run, const bool final) {
                            const Index c = count(static_cast<Index>(k));
                            if (final) {
                              out[k] = run;
                              if (k == last) out[k + 1] = run + c;
                            }
                            run += c;
                          });
  }
  return read_back(ctx, out + n);
}

// pos[k] = flags[0] + ... + flags[k-1] for k = 0 .. n (n + 1 values); returns pos[n].
template <class Ctx>
Index exclusive_scan_flags(Ctx& ctx, const std::uint8_t* flags, Index* pos, Index n) {
  return exclusive_scan(ctx, KOKKOS_LAMBDA(Index k) { return Index(flags[k]); }, pos, n);
}

// v[0 .. n-1] holds counts; replaces them by their exclusive prefix sums and sets v[n] to the total (v has n + 1
// values); returns the total.
template <class Ctx>
Index exclusive_scan_in_place(Ctx& ctx, Index* v, Index n) {
  return exclusive_scan(ctx, ArrayCounts{v}, v, n);
}

// A result whose row pointers out.p hold each of its `slots` rows' entry counts: the counts become offsets, and
// room is made for the entries' columns and values (elem_size bytes each). Returns the entry count.
template <class Ctx>
Index place_rows(Ctx& ctx, CsrParts<BytesOf<Ctx>>& out, Index slots, std::size_t elem_size) {
  out.nvals = exclusive_scan_in_place(ctx, as<Index>(out.p), slots);
  out.j = ctx.alloc(out.nvals * sizeof(Index));
  out.x = alloc_values(ctx, out.nvals * elem_size);
  return out.nvals;
}

// Room for a plain CSR result of `slots` rows and n entries (values of elem_size bytes); nothing filled.
template <class Ctx>
CsrParts<BytesOf<Ctx>> plain_parts(Ctx& ctx, Index slots, Index n, std::size_t elem_size) {
  CsrParts<BytesOf<Ctx>> out;
  out.nslots = slots;
  out.nvals = n;
  out.p = ctx.alloc((slots + 1) * sizeof(Index));
  out.j = ctx.alloc(n * sizeof(Index));
  out.x = alloc_values(ctx, n * elem_size);
  return out;
}

// Copies `bytes` bytes between two buffers of the context's memory.
template <class Ctx>
void copy_bytes(Ctx& ctx, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  using Mem = typename ExecOf<Ctx>::memory_space;
  using Out = Kokkos::View<unsigned char*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using In = Kokkos::View<const unsigned char*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::deep_copy(ctx.exec(), Out(static_cast<unsigned char*>(dst), bytes), In(static_cast<const unsigned char*>(src), bytes));
}

// A result with A's slots: the hypersparse flag and rows copied (h), room for the row pointers (p, filled by the
// caller); no entries yet.
template <class Ctx>
CsrParts<BytesOf<Ctx>> with_slots_of(Ctx& ctx, const CsrRef& A) {
  CsrParts<BytesOf<Ctx>> out;
  out.hyper = A.hyper;
  out.nslots = A.nslots;
  if (A.hyper) {
    out.h = ctx.alloc(A.nslots * sizeof(Index));
    copy_bytes(ctx, out.h.get(), A.h, A.nslots * sizeof(Index));
  }
  out.p = ctx.alloc((A.nslots + 1) * sizeof(Index));
  return out;
}

// A's pattern (h, p, j) copied into new buffers, with room for nvals values of elem_size bytes.
template <class Ctx>
CsrParts<BytesOf<Ctx>> copy_pattern(Ctx& ctx, const CsrRef& A, std::size_t elem_size) {
  CsrParts<BytesOf<Ctx>> out = with_slots_of(ctx, A);
  out.nvals = A.nvals;
  copy_bytes(ctx, out.p.get(), A.p, (A.nslots + 1) * sizeof(Index));
  out.j = ctx.alloc(A.nvals * sizeof(Index));
  copy_bytes(ctx, out.j.get(), A.j, A.nvals * sizeof(Index));
  out.x = alloc_values(ctx, A.nvals * elem_size);
  return out;
}

// Copies value e of `from` to position o of `to` (elem_size bytes each): as one word where the size is one.
KOKKOS_INLINE_FUNCTION void copy_value(unsigned char* to, Index o, const unsigned char* from, Index e,
                                       std::size_t elem_size) {
  switch (elem_size) {
    case 1: to[o] = from[e]; return;
    case 2: reinterpret_cast<std::uint16_t*>(to)[o] = reinterpret_cast<const std::uint16_t*>(from)[e]; return;
    case 4: reinterpret_cast<std::uint32_t*>(to)[o] = reinterpret_cast<const std::uint32_t*>(from)[e]; return;
    case 8: reinterpret_cast<std::uint64_t*>(to)[o] = reinterpret_cast<const std::uint64_t*>(from)[e]; return;
    default:
      for (std::size_t b = 0; b < elem_size; ++b) to[o * elem_size + b] = from[e * elem_size + b];
  }
}

// The set flags among flags[b .. e-1], b a multiple of 4 (flags 4-byte aligned): four flags to a word read, each 0 or 1,
// summed by one multiplication.
KOKKOS_INLINE_FUNCTION Index flags_set(const std::uint8_t* flags, Index b, Index e) {
  Index c = 0;
  const Index whole = e & ~Index(3);
  for (Index q = b; q < whole; q += 4) c += (*reinterpret_cast<const std::uint32_t*>(flags + q) * 0x01010101u) >> 24;
  for (Index q = b > whole ? b : whole; q < e; ++q) c += flags[q];
  return c;
}

// Keeps the entries of A whose flag is set (flags 4-byte aligned, one byte each, 0 or 1), with values from `values`
// (elem_size bytes each, in A's entry order) and columns from `columns` (A's own when null; they must keep each row in
// increasing order): the result has A's slots (some may become empty; the container drops them on its host copy).
// The entries form runs of kCompactRun: a scan over the runs' kept counts places each run, and an entry's place, or
// a row's start, adds the kept entries of its run before it. So the scan is a fraction of the entries long, whatever
// the rows' lengths. On a device each entry places itself (neighbouring threads read neighbouring flags); on the
// host each run writes its kept entries in order. One instantiation serves every caller: a caller's test writes the
// flags.
constexpr Index kCompactRun = 32;

template <class Ctx>
CsrParts<BytesOf<Ctx>> compact(Ctx& ctx, const CsrRef& A, const std::uint8_t* flags, const void* values,
                               std::size_t elem_size, const Index* columns = nullptr) {
  const Index n = A.nvals, runs = (n + kCompactRun - 1) / kCompactRun;
  auto pos_buf = ctx.alloc((runs + 1) * sizeof(Index));
  Index* pos = static_cast<Index*>(pos_buf.get());
  const Index kept = exclusive_scan(
      ctx,
      KOKKOS_LAMBDA(Index u) {
        const Index b = u * kCompactRun;
        return flags_set(flags, b, b + kCompactRun < n ? b + kCompactRun : n);
      },
      pos, runs);
  CsrParts<BytesOf<Ctx>> out;
  out.hyper = A.hyper;
  out.nslots = A.nslots;
  out.nvals = kept;
  if (A.hyper) out.h = ctx.alloc(A.nslots * sizeof(Index));
  out.p = ctx.alloc((A.nslots + 1) * sizeof(Index));
  out.j = ctx.alloc(kept * sizeof(Index));
  out.x = alloc_values(ctx, kept * elem_size);
  Index* h = A.hyper ? static_cast<Index*>(out.h.get()) : nullptr;
  Index* p = static_cast<Index*>(out.p.get());
  Index* j = static_cast<Index*>(out.j.get());
  unsigned char* x = static_cast<unsigned char*>(out.x.get());
  const Index* ah = A.h;
  const Index* ap = A.p;
  const Index slots = A.nslots;
  const Index* aj = columns != nullptr ? columns : A.j;
  const unsigned char* v = static_cast<const unsigned char*>(values);
  const bool per_entry = !host_space<Ctx>();
  // One pass over max(slots + 1, entries or runs) indices: slot k's row and start, and entry (or run) k's kept entries.
  const Index items = per_entry ? n : runs;
  const Index work = slots + 1 > items ? slots + 1 : items;
  for_n(ctx, "snack::portable::compact", work, KOKKOS_LAMBDA(Index k) {
    if (k <= slots) {
      if (h != nullptr && k < slots) h[k] = ah[k];
      const Index e = ap[k], u = e / kCompactRun;
      p[k] = pos[u] + flags_set(flags, u * kCompactRun, e);
    }
    if (k >= items) return;
    if (per_entry) {
      if (!flags[k]) return;
      const Index u = k / kCompactRun, o = pos[u] + flags_set(flags, u * kCompactRun, k);
      j[o] = aj[k];
      copy_value(x, o, v, k, elem_size);
    } else {
      Index o = pos[k];
      for (Index e = k * kCompactRun, end = e + kCompactRun < n ? e + kCompactRun : n; e < end; ++e) {
        if (!flags[e]) continue;
        j[o] = aj[e];
        copy_value(x, o, v, e, elem_size);
        ++o;
      }
    }
  });
  return out;
}

// A copy of A: its pattern and its values (elem_size bytes each).
template <class Ctx>
CsrParts<BytesOf<Ctx>> copy_of(Ctx& ctx, const CsrRef& A, std::size_t elem_size) {
  CsrParts<BytesOf<Ctx>> out = copy_pattern(ctx, A, elem_size);
  copy_bytes(ctx, out.x.get(), A.x, A.nvals * elem_size);
  return out;
}

// The 1 x nrows vector of per-slot results of A: an entry at row_of(s), with value values[s] (elem_size bytes), for
// each slot s whose flag is set.
template <class Ctx>
CsrParts<BytesOf<Ctx>> slots_as_vector(Ctx& ctx, const CsrRef& A, const std::uint8_t* flags, const void* values,
                                       std::size_t elem_size) {
  const Index slots = A.nslots;
  auto pos_buf = ctx.alloc((slots + 1) * sizeof(Index));
  Index* pos = as<Index>(pos_buf);
  const Index n = exclusive_scan_flags(ctx, flags, pos, slots);
  CsrParts<BytesOf<Ctx>> out;
  out.nslots = 1;
  out.nvals = n;
  out.p = ctx.alloc(2 * sizeof(Index));
  out.j = ctx.alloc(n * sizeof(Index));
  out.x = alloc_values(ctx, n * elem_size);
  Index* p = as<Index>(out.p);
  Index* j = as<Index>(out.j);
  unsigned char* x = as<unsigned char>(out.x);
  const unsigned char* v = static_cast<const unsigned char*>(values);
  const CsrRef a = A;
  for_n(ctx, "snack::portable::slots_p", 2, KOKKOS_LAMBDA(Index k) { p[k] = k == 0 ? 0 : n; });
  for_n(ctx, "snack::portable::slots_entries", slots, KOKKOS_LAMBDA(Index s) {
    if (!flags[s]) return;
    j[pos[s]] = a.row_of(s);
    copy_value(x, pos[s], v, s, elem_size);
  });
  return out;
}

}  // namespace snk::kokkos::portable
