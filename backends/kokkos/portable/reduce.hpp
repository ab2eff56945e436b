// backends/kokkos/portable/reduce.hpp: reduce to a scalar and reduce each row to a vector, as portable kernels
// with a monoid chosen at run time (op_eval.hpp: MonoidFn).
//
// reduce_scalar is Kokkos' parallel_reduce with the monoid as the join (its identity as the start), over entries.
// reduce_rows reduces each non-empty slot in its own order (one thread per row: a deterministic order; a matrix
// with a few very long rows gets little parallelism there) and places the sums as the entries of a 1 x nrows
// vector at the rows' indices, through a scan of the non-empty slots.
#pragma once

#include <type_traits>

#include "portable/op_eval.hpp"
#include "portable/parts.hpp"

namespace snk::kokkos::portable {

// Kokkos reduces values of fewer than 4 bytes wrongly on CUDA (its warp shuffles move whole 4-byte words), so
// those are reduced inside a 4-byte wrapper.
template <class T>
struct alignas(4) Padded {
  T v;
};
template <class T>
using ReduceValue = std::conditional_t<(sizeof(T) < 4), Padded<T>, T>;
template <class T>
KOKKOS_INLINE_FUNCTION T& unpad(T& x) { return x; }
template <class T>
KOKKOS_INLINE_FUNCTION T& unpad(Padded<T>& x) { return x.v; }

template <class T>
struct MonoidReduce {
  using value_type = ReduceValue<T>;
  const T* v;
  MonoidFn<T> m;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t e, value_type& acc) const { unpad(acc) = m(unpad(acc), v[e]); }
  KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const {
    value_type s = src;
    unpad(dst) = m(unpad(dst), unpad(s));
  }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dst, const volatile value_type& src) const {
    value_type d = const_cast<const value_type&>(dst), s = const_cast<const value_type&>(src);
    unpad(d) = m(unpad(d), unpad(s));
    const_cast<value_type&>(dst) = d;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& acc) const { unpad(acc) = m.identity; }
};

// The monoid's reduction of every entry of A (its identity when A is empty).
template <class T, class Ctx>
T reduce_scalar(Ctx& ctx, const CsrRef& A, MonoidFn<T> m) {
  if (A.nvals == 0) return m.identity;
  using Policy = Kokkos::RangePolicy<ExecOf<Ctx>, Kokkos::IndexType<std::int64_t>>;
  // The result goes to device memory and comes back through read_back (parts.hpp says why).
  using Mem = typename ExecOf<Ctx>::memory_space;
  auto result_buf = ctx.alloc(sizeof(ReduceValue<T>));
  Kokkos::View<ReduceValue<T>, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(as<ReduceValue<T>>(result_buf));
  Kokkos::parallel_reduce("snack::portable::reduce_scalar", Policy(ctx.exec(), 0, static_cast<std::int64_t>(A.nvals)),
                          MonoidReduce<T>{A.values<T>(), m}, result);
  ReduceValue<T> host = read_back(ctx, as<ReduceValue<T>>(result_buf));
  return unpad(host);
}

// T(0, i) = the monoid's reduction of row i of A, for each row with an entry (a 1 x nrows vector).
template <class T, class Ctx>
CsrParts<BytesOf<Ctx>> reduce_rows(Ctx& ctx, const CsrRef& A, MonoidFn<T> m) {
  auto flag_buf = ctx.alloc(A.nslots);
  auto sum_buf = ctx.alloc(A.nslots * sizeof(T));
  std::uint8_t* nonempty = as<std::uint8_t>(flag_buf);
  T* sum = as<T>(sum_buf);
  const CsrRef a = A;
  for_n(ctx, "snack::portable::reduce_rows", A.nslots, KOKKOS_LAMBDA(Index k) {
    nonempty[k] = a.p[k + 1] > a.p[k];
    if (!nonempty[k]) return;
    const T* v = a.values<T>();
    T acc = v[a.p[k]];
    for (Index e = a.p[k] + 1; e < a.p[k + 1]; ++e) acc = m(acc, v[e]);
    sum[k] = acc;
  });
  return slots_as_vector(ctx, A, nonempty, sum, sizeof(T));
}

}  // namespace snk::kokkos::portable
