// layers/data_parallel.cpp: the gradient exchange and parameter broadcast of data_parallel.hpp: each gradient is
// put on its parameter's positions and weighted by GraphBLAS calls (on the thread's backend), then its value array
// is summed over the ranks (MPI_Allreduce on the host form, or ncclAllReduce on the cuda backend's device copies,
// which leave the device and return to it through snk::export_device_values / import_device_values); parameters go
// out with MPI_Bcast.
#include "data_parallel.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#if defined(SNACK_LAYERS_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>
#endif

#include "calls.hpp"
#include "snack/backend.hpp"
#include "snack/operations.hpp"

namespace snk::layers {
namespace {

MPI_Datatype mpi_type_of(const Matrix& M) {
  if (M.type() == &types::FP32) return MPI_FLOAT;
  if (M.type() == &types::FP64) return MPI_DOUBLE;
  throw Error(Info::DomainMismatch, "DataParallel: values must be FP32 or FP64, not " + std::string(M.type()->name));
}

// FNV-1a over the type code, the shape and every (row, column) of the host form.
std::uint64_t pattern_hash(const Matrix& M) {
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xffu;
      h *= 1099511628211ull;
    }
  };
  mix(static_cast<std::uint64_t>(M.type()->code));
  mix(static_cast<std::uint64_t>(M.nrows()));
  mix(static_cast<std::uint64_t>(M.ncols()));
  const CsrStorage& c = M.csr();
  for (Index k = 0; k < c.nslots(); ++k) {
    const Index row = c.hyper ? c.h[k] : k;
    for (Index e = c.p[k]; e < c.p[k + 1]; ++e) {
      mix(static_cast<std::uint64_t>(row));
      mix(static_cast<std::uint64_t>(c.j[e]));
    }
  }
  return h;
}

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(Info::Panic, std::string("DataParallel: ") + what + " failed");
}

// f(first, count) over [0, n) in pieces that an MPI count (int) holds.
template <class F>
void in_pieces(Index n, F&& f) {
  constexpr Index kPiece = Index(1) << 30;
  for (Index k = 0; k < n; k += kPiece) f(k, static_cast<int>(std::min(kPiece, n - k)));
}

}  // namespace

struct DataParallel::Devices {
#if defined(SNACK_LAYERS_NCCL)
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  ~Devices() {
    if (comm) (void)ncclCommDestroy(comm);
    if (stream) (void)cudaStreamDestroy(stream);
  }
#endif
};

#if defined(SNACK_LAYERS_NCCL)
namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e == cudaErrorMemoryAllocation) throw Error(Info::OutOfMemory, std::string("DataParallel: ") + what);
  if (e != cudaSuccess)
    throw Error(Info::Panic, std::string("DataParallel: ") + what + " failed: " + cudaGetErrorString(e));
}

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess)
    throw Error(Info::Panic, std::string("DataParallel: ") + what + " failed: " + ncclGetErrorString(r));
}

}  // namespace
#endif

DataParallel::DataParallel(MPI_Comm comm, Exchange exchange) : comm_(comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw Error(Info::InvalidValue, "DataParallel: MPI is not initialized");
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  if (exchange == Exchange::Host) return;
#if defined(SNACK_LAYERS_NCCL)
  // This rank's GPU: its rank among the ranks of its node, modulo the GPUs it sees (a launcher may show each rank
  // only its own). No two ranks of a node may share one (NCCL refuses that), which the GPUs' PCI addresses tell. Every
  // rank learns whether any rank lacks a GPU of its own before any rank starts NCCL (whose start would wait for the
  // ranks that threw).
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int local = 0, local_ranks = 1, gpus = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &local_ranks);
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
  const int device = gpus > 0 ? local % gpus : -1;
  constexpr int kBusId = 32;
  char bus[kBusId] = {};
  if (device >= 0 && cudaDeviceGetPCIBusId(bus, kBusId, device) != cudaSuccess) bus[0] = '\0';
  std::vector<char> buses(static_cast<std::size_t>(local_ranks) * kBusId);
  const int gathered = MPI_Allgather(bus, kBusId, MPI_CHAR, buses.data(), kBusId, MPI_CHAR, node);
  MPI_Comm_free(&node);
  check_mpi(gathered, "MPI_Allgather");
  std::string why;
  if (bus[0] == '\0') why = "rank " + std::to_string(rank_) + " sees no GPU";
  for (int r = 0; r < local_ranks && why.empty(); ++r)
    if (r != local && std::string(&buses[r * kBusId]) == bus)
      why = "ranks " + std::to_string(std::min(r, local)) + " and " + std::to_string(std::max(r, local)) +
            " of rank " + std::to_string(rank_) + "'s node share the GPU at " + bus;
  const int lacking = why.empty() ? 0 : 1;
  int any_lacking = 0;
  check_mpi(MPI_Allreduce(&lacking, &any_lacking, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce");
  if (any_lacking)
    throw Error(Info::InvalidValue, "DataParallel: the device exchange takes one GPU per rank; " +
                                        (lacking ? why : "another rank lacks a GPU of its own") + " (" +
                                        std::to_string(local_ranks) + " ranks on " + std::to_string(gpus) +
                                        " GPUs here)");
  devices_ = std::make_unique<Devices>();
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  check_cuda(cudaStreamCreateWithFlags(&devices_->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  ncclUniqueId id{};
  if (rank_ == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  check_mpi(MPI_Bcast(&id, static_cast<int>(sizeof id), MPI_BYTE, 0, comm_), "MPI_Bcast");
  check_nccl(ncclCommInitRank(&devices_->comm, size_, id, rank_), "ncclCommInitRank");
#else
  throw Error(Info::NotImplemented, "DataParallel: this build has no NCCL, so no device exchange (Exchange::Device)");
#endif
}

DataParallel::~DataParallel() = default;

void DataParallel::sum_on_devices(std::vector<Matrix>& ms) const {
#if defined(SNACK_LAYERS_NCCL)
  // One buffer holds every matrix's values (each at a 256-byte boundary); they go out, are summed, and come back.
  std::vector<std::size_t> at(ms.size() + 1, 0);
  for (std::size_t k = 0; k < ms.size(); ++k)
    at[k + 1] = at[k] + (static_cast<std::size_t>(ms[k].nvals()) * ms[k].type()->size + 255) / 256 * 256;
  cudaStream_t s = devices_->stream;
  void* buffer = nullptr;
  check_cuda(cudaMallocAsync(&buffer, std::max<std::size_t>(at.back(), 256), s), "device buffer of the gradients");
  struct Release {
    void* p;
    cudaStream_t s;
    ~Release() { (void)cudaFreeAsync(p, s); }   // stream-ordered: after the imports' reads (operations.hpp)
  } release{buffer, s};
  auto* base = static_cast<unsigned char*>(buffer);
  for (std::size_t k = 0; k < ms.size(); ++k) export_device_values(ms[k], base + at[k], s);
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (std::size_t k = 0; k < ms.size(); ++k) {
    const ncclDataType_t t = ms[k].type() == &types::FP32 ? ncclFloat32 : ncclFloat64;   // mpi_type_of has checked
    const ncclResult_t r = ncclAllReduce(base + at[k], base + at[k], static_cast<std::size_t>(ms[k].nvals()), t,
                                         ncclSum, devices_->comm, s);
    if (r != ncclSuccess) {
      (void)ncclGroupEnd();
      check_nccl(r, "ncclAllReduce");
    }
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  for (std::size_t k = 0; k < ms.size(); ++k) import_device_values(ms[k], ms[k], base + at[k], s);
  // The host does not wait for the sums: the imports order the backend's later work after them. An error NCCL met
  // so far is reported here; later ones surface at the next exchange.
  ncclResult_t async = ncclSuccess;
  check_nccl(ncclCommGetAsyncError(devices_->comm, &async), "ncclCommGetAsyncError");
  check_nccl(async, "the gradients' exchange");
#else
  (void)ms;
#endif
}

void DataParallel::check_same_patterns(const std::vector<const Matrix*>& ms) const {
  std::vector<std::uint64_t> mine, root;
  for (const Matrix* m : ms) mine.push_back(pattern_hash(*m));
  root = mine;
  check_mpi(MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_UINT64_T, 0, comm_), "MPI_Bcast");
  const int differs = root != mine ? 1 : 0;
  int any = 0;
  check_mpi(MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce");
  if (any)
    throw Error(Info::InvalidObject, "DataParallel: the ranks' parameters differ in type, shape or pattern (rank " +
                                         std::to_string(rank_) +
                                         (differs ? " differs from rank 0)" : " agrees with rank 0)"));
}

double DataParallel::sum(double v) const {
  double total = 0;
  check_mpi(MPI_Allreduce(&v, &total, 1, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
  return total;
}

void DataParallel::sum_gradients(const std::vector<SparseLinear*>& layers, double weight) const {
  if (devices_ && current_backend() != "cuda")
    throw Error(Info::InvalidValue, "DataParallel: the device exchange sums the cuda backend's copies of the gradients; "
                                    "the thread's backend is " + current_backend());
  std::vector<const Matrix*> params;
  std::vector<Matrix*> grads;
  for (SparseLinear* l : layers) {
    params.push_back(&l->weight());
    grads.push_back(&l->weight_grad());
    if (l->has_bias()) {
      params.push_back(&l->bias().as_matrix());
      grads.push_back(&l->bias_grad().as_matrix());
    }
  }
  check_same_patterns(params);   // every rank throws, or none
  // Each gradient on its parameter's positions (zeros where it has none), times the weight; then summed over the
  // ranks in place. All are made before any exchange, so a refusal leaves every gradient as it was.
  std::vector<Matrix> weighted;
  for (std::size_t k = 0; k < grads.size(); ++k) {
    const Matrix& p = *params[k];
    const Matrix& g = *grads[k];
    (void)mpi_type_of(g);
    if (g.type() != p.type() || g.nrows() != p.nrows() || g.ncols() != p.ncols())
      throw Error(Info::InvalidObject, "DataParallel: a gradient has another type or shape than its parameter");
    Matrix on = calls::on_positions_of(p, g, "DataParallel");
    apply_bind_second(on, nullptr, nullptr, calls::op(BinaryOpcode::Times, p.type()), on,
                      calls::scalar(p.type(), weight));
    weighted.push_back(std::move(on));
  }
  if (devices_) {
    sum_on_devices(weighted);
  } else {
    for (Matrix& w : weighted) {
      CsrStorage& c = w.csr_mutable();
      const MPI_Datatype t = mpi_type_of(w);
      const std::size_t bytes = w.type()->size;
      in_pieces(c.nvals(), [&](Index first, int count) {
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, c.x.data() + first * bytes, count, t, MPI_SUM, comm_), "MPI_Allreduce");
      });
    }
  }
  for (std::size_t k = 0; k < grads.size(); ++k) *grads[k] = std::move(weighted[k]);
}

Rewiring DataParallel::rigl_rewire(SparseLinear& layer, double zeta, const Matrix& X, const Matrix& dY,
                                   Index block_rows, Optimizer* optimizer, double weight) const {
  check_same_patterns({&layer.weight()});
  const GradientBlocks combine = [&](Matrix& block, const Matrix& taken) {
    // A rank's block holds the free positions its share of the batch reached (activations and their gradients have
    // absent entries); on every free position of the block's rows (zeros where it has none) the ranks' blocks line up.
    const MPI_Datatype t = mpi_type_of(block);
    const Type* type = block.type();
    Matrix free(type, block.nrows(), block.ncols());
    Descriptor outside;
    outside.mask_structure = true;
    outside.mask_complement = true;
    assign_scalar(free, &taken, nullptr, calls::scalar(type, 0.0), nullptr, block.nrows(), nullptr, block.ncols(),
                  outside);
    Matrix weighted(type, block.nrows(), block.ncols());
    ewise_add(weighted, nullptr, nullptr, calls::op(BinaryOpcode::Plus, type), free, block);
    apply_bind_second(weighted, nullptr, nullptr, calls::op(BinaryOpcode::Times, type), weighted,
                      calls::scalar(type, weight));
    block = std::move(weighted);
    CsrStorage& c = block.csr_mutable();
    const std::size_t bytes = type->size;
    std::vector<unsigned char> sum(c.x.size());
    in_pieces(c.nvals(), [&](Index first, int count) {
      check_mpi(MPI_Reduce(c.x.data() + first * bytes, sum.data() + first * bytes, count, t, MPI_SUM, 0, comm_),
                "MPI_Reduce");
    });
    if (rank_ == 0) c.x.swap(sum);
    in_pieces(c.nvals(), [&](Index first, int count) {
      check_mpi(MPI_Bcast(c.x.data() + first * bytes, count, t, 0, comm_), "MPI_Bcast");
    });
  };
  return snk::layers::rigl_rewire(layer, zeta, X, dY, block_rows, optimizer, combine);
}

void DataParallel::broadcast_parameters(const std::vector<SparseLinear*>& layers) const {
  std::vector<Matrix*> params;
  for (SparseLinear* l : layers) {
    params.push_back(&l->weight());
    if (l->has_bias()) params.push_back(&l->bias().as_matrix());
  }
  check_same_patterns(std::vector<const Matrix*>(params.begin(), params.end()));
  for (Matrix* m : params) {
    const MPI_Datatype t = mpi_type_of(*m);
    CsrStorage& c = m->csr_mutable();
    const std::size_t bytes = m->type()->size;
    in_pieces(c.nvals(), [&](Index first, int count) {
      check_mpi(MPI_Bcast(c.x.data() + first * bytes, count, t, 0, comm_), "MPI_Bcast");
    });
  }
}

}  // namespace snk::layers
