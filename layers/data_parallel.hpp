// layers/data_parallel.hpp: data-parallel training of sparse layers over MPI ranks. Every rank holds the same layers
// (the same patterns: built from the same seed, or made so by broadcast_parameters) and trains on its own share of
// each batch; average_gradients then leaves every rank the gradient of the whole batch. Gradients live per
// non-zero, so a layer's exchange moves nnz values, never a dense matrix. Built where MPI is found; the gradients
// travel through their host form by MPI, or, in a build with NCCL (SNACK_LAYERS_NCCL), as the cuda backend's device
// copies by NCCL between the ranks' GPUs (Exchange::Device).
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "dst.hpp"
#include "sparse_linear.hpp"

namespace snk::layers {

// How the ranks' gradients travel in sum_gradients / average_gradients.
enum class Exchange {
  Host,     // their host form, by MPI_Allreduce: any backend
  Device,   // the cuda backend's device copies of them, by ncclAllReduce between the ranks' GPUs (a build with NCCL)
};

class DataParallel {
 public:
  // The ranks of `comm` (MPI must be initialized; the communicator is used, not owned). Exchange::Device gives each
  // rank a GPU of its node (its rank among the node's ranks, modulo the GPUs it sees) and makes it the current device,
  // so it must be made before the cuda backend's first use in the process (the backend keeps the device current at its
  // start); every rank throws NotImplemented in a build without NCCL, and InvalidValue where a rank sees no GPU or two
  // ranks of a node would share one. Only the gradient sums go through NCCL: pattern checks, sum(), RigL's blocks and
  // parameter broadcasts stay on MPI.
  explicit DataParallel(MPI_Comm comm, Exchange exchange = Exchange::Host);
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Each layer's weight and bias gradients become their mean over the ranks, in place, on the positions of their
  // parameter (a gradient holds only the positions its share of the batch reached; the others count as zeros): with
  // each rank's loss the mean over its equal share of the batch, that is the gradient of the mean over the whole
  // batch. Throws Error(InvalidObject) on every rank, before any value moves, where the ranks' parameters differ in
  // type, shape or pattern (different layers, or a rewiring that differed).
  void average_gradients(const std::vector<SparseLinear*>& layers) const { sum_gradients(layers, 1.0 / size_); }
  // The same with each rank's own weight: every rank's gradients become the sum over the ranks of weight x gradient
  // (a rank whose share of the batch is n_r of n passes n_r / n, so that means over unequal shares make the mean of
  // the whole batch). Exchange::Device: the thread's backend must be cuda (InvalidValue otherwise, before anything
  // moves).
  void sum_gradients(const std::vector<SparseLinear*>& layers, double weight) const;
  // The sum of v over the ranks, on every rank.
  double sum(double v) const;

  // One RigL step (dst.hpp: rigl_rewire) that every rank makes alike: each rank passes its own share of the batch (X,
  // dY) and its weight (n_r / n, as for sum_gradients); each block of the dense gradient is weighted, summed on rank 0
  // and broadcast, so every rank ranks the same values, bit for bit, and grows the same positions. The layers must
  // agree (Error(InvalidObject) on every rank otherwise), as after sum_gradients and the same optimizer step.
  Rewiring rigl_rewire(SparseLinear& layer, double zeta, const Matrix& X, const Matrix& dY, Index block_rows,
                       Optimizer* optimizer, double weight) const;

  // Rank 0's weights and biases replace every other rank's (after an initialization that differed, or to resync);
  // the patterns must already agree (Error(InvalidObject) on every rank otherwise).
  void broadcast_parameters(const std::vector<SparseLinear*>& layers) const;

 private:
  // Every rank's matrices have the types, shapes and positions of rank 0's: compared through hashes of the
  // coordinates, in one broadcast and one reduction; InvalidObject on every rank otherwise.
  void check_same_patterns(const std::vector<const Matrix*>& ms) const;
  // Exchange::Device: each matrix's values (on the cuda backend) summed over the ranks in place, by NCCL.
  void sum_on_devices(std::vector<Matrix>& ms) const;
  struct Devices;   // the NCCL communicator and the stream it runs on (data_parallel.cpp)
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::unique_ptr<Devices> devices_;   // Exchange::Device only
};

}  // namespace snk::layers
