// backends/cuda/backend/portable_products.cu: the portable sparse x sparse products and transpose
// (backends/kokkos/portable/products.hpp) instantiated for Kokkos' CUDA space, and the CUDA context's radix sort.
//
// A separate source from portable_ops.cu so that the two compile in parallel. Instantiation: the products once per
// builtin value type (11; the semiring's operators are run-time opcodes), transpose once (values moved as bytes),
// the sort once (64-bit keys with 64-bit positions; the values follow through the positions).
#include <cub/device/device_radix_sort.cuh>

#include "device_context.hpp"
#include "portable/products.hpp"
#include "portable_ops.hpp"

namespace snk::cuda {

void DeviceContext::sort_pairs(std::uint64_t* keys, std::uint64_t* idx, Index n, int bits) {
  if (n <= 1) return;
  DeviceBuffer keys_out(n * sizeof(std::uint64_t)), idx_out(n * sizeof(std::uint64_t));
  cub::DoubleBuffer<std::uint64_t> k(keys, static_cast<std::uint64_t*>(keys_out.get()));
  cub::DoubleBuffer<std::uint64_t> v(idx, static_cast<std::uint64_t*>(idx_out.get()));
  std::size_t temp_bytes = 0;
  throw_on_cuda_error(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, static_cast<std::int64_t>(n), 0, bits,
                                                      stream),
                      "radix sort (size)");
  DeviceBuffer temp(temp_bytes);
  throw_on_cuda_error(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, k, v, static_cast<std::int64_t>(n), 0,
                                                      bits, stream),
                      "radix sort");
  if (k.Current() != keys)
    throw_on_cuda_error(cudaMemcpyAsync(keys, k.Current(), n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, stream),
                        "radix sort");
  if (v.Current() != idx)
    throw_on_cuda_error(cudaMemcpyAsync(idx, v.Current(), n * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, stream),
                        "radix sort");
  throw_on_cuda_error(cudaStreamSynchronize(stream), "radix sort");   // the buffers above are released on return
}

namespace {
namespace P = snk::kokkos::portable;
using core::KernelStatus;
using kokkos::CsrRef;
using kokkos::with_type;

// Whether keys row * ncols + col of an nrows x ncols matrix fit 64 bits.
bool keys_fit(Index nrows, Index ncols) { return P::bits_for(nrows) + P::bits_for(ncols) <= 64; }
}  // namespace

KernelStatus portable_transpose(Matrix& T, const Matrix& A, cudaStream_t s) {
  if (A.type() != T.type() || !builtin(A.type())) return KernelStatus::Declined;
  DeviceContext ctx = context(s);
  attach(T, P::transpose(ctx, ref_of(A, s), A.type()->size), s);
  return KernelStatus::Done;
}

KernelStatus portable_mxm(Matrix& T, const core::MaskHint& mask, const Semiring& s, const Matrix& A, bool ta,
                          const Matrix& B, bool tb, bool flip, cudaStream_t stream) {
  const Type* v = s.add->type();
  const BinaryOp& mul = *s.multiply;
  if (!builtin(v) || mul.opcode == BinaryOpcode::User || mul.xtype != v || mul.ytype != v || mul.ztype != v ||
      A.type() != v || B.type() != v || T.type() != v || ta)
    return KernelStatus::Declined;
  // Masked dot products: a mask that is not complemented, with B given by the rows of B^T.
  const bool dot = tb && mask.M != nullptr && !mask.complement;
  if (tb && !dot) return KernelStatus::Declined;   // the core retries with B transposed (on this backend)
  if (!dot && !keys_fit(A.nrows(), B.ncols())) return KernelStatus::Declined;
  DeviceContext ctx = context(stream);
  bool done = false;
  with_type(v->code, [&](auto tt) {
    using V = typename decltype(tt)::type;
    P::MonoidFn<V> add{};
    if (!monoid_of(*s.add, add) || !P::defined_binary<V, V>(mul.opcode)) return false;
    const CsrRef a = ref_of(A, stream), b = ref_of(B, stream);
    if (dot) attach(T, P::masked_dot<V>(ctx, ref_of(*mask.M, stream), a, b, add, mul.opcode, flip), stream);
    else attach(T, P::spgemm<V>(ctx, a, b, add, mul.opcode, flip), stream);
    return done = true;
  });
  return done ? KernelStatus::Done : KernelStatus::Declined;
}

}  // namespace snk::cuda
