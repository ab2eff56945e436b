// tests/layers/test_data_parallel.cpp: DataParallel under MPI (run by ctest as several ranks): the gradients
// averaged over the ranks' shares of a batch equal one process's gradient of the whole batch, in float64; ranks
// whose layers differ get InvalidObject on every rank and nothing moves; broadcast_parameters makes every rank hold
// rank 0's weights. Each rank prints its checks; the exit status is non-zero where any failed.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "data_parallel.hpp"
#include "layer_test_util.hpp"

using snk::Index;
using snk::Matrix;
using snk::layers::DataParallel;
using snk::layers::SparseLinear;

namespace {

int failures = 0;
int rank_ = 0;

void check(bool ok, const std::string& what) {
  std::printf("[rank %d] %s: %s\n", rank_, ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

// Rows [r0, r1) of a full FP64 matrix, each value times `scale`.
Matrix rows_of(const Matrix& M, Index r0, Index r1, double scale) {
  std::vector<Index> I, J;
  std::vector<double> X;
  for (const auto& [pos, v] : layer_test::entries(M))
    if (pos.first >= r0 && pos.first < r1) {
      I.push_back(pos.first - r0);
      J.push_back(pos.second);
      X.push_back(v * scale);
    }
  Matrix out(&snk::types::FP64, r1 - r0, M.ncols());
  out.build(I.data(), J.data(), X.data(), &snk::types::FP64, I.size(), nullptr);
  return out;
}

std::string show(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

double largest_difference(const Matrix& A, const Matrix& B) {
  const auto a = layer_test::entries(A), b = layer_test::entries(B);
  if (a.size() != b.size()) return INFINITY;
  double d = 0;
  for (const auto& [pos, v] : a) {
    const auto it = b.find(pos);
    if (it == b.end()) return INFINITY;
    d = std::max(d, std::fabs(v - it->second) / std::max(1.0, std::fabs(v)));
  }
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const DataParallel dp(MPI_COMM_WORLD);
  rank_ = dp.rank();
  const int size = dp.size();
  check(size >= 2, "runs on " + std::to_string(size) + " ranks (at least 2)");

  // The whole batch, the same on every rank: each draws one, and rank 0's values replace the others'.
  const Index batch = 11, in = 37, out = 23;
  auto shared_batch = [&](Index cols) {
    Matrix M = layer_test::random_batch(batch, cols, &snk::types::FP64);
    snk::CsrStorage& c = M.csr_mutable();
    MPI_Bcast(c.x.data(), static_cast<int>(c.x.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
    return M;
  };
  const Matrix X = shared_batch(in), dY = shared_batch(out);

  // One process, the whole batch (sum of the per-example gradients).
  SparseLinear whole(in, out, 0.3, 5, true, &snk::types::FP64);
  (void)whole.backward(X, dY);

  // This rank's share (rows spread as evenly as the batch allows), its dY scaled by the number of ranks, so that the
  // mean over the ranks is the sum over the batch.
  const Index r0 = batch * rank_ / size, r1 = batch * (rank_ + 1) / size;
  SparseLinear mine(in, out, 0.3, 5, true, &snk::types::FP64);
  (void)mine.backward(rows_of(X, r0, r1, 1.0), rows_of(dY, r0, r1, static_cast<double>(size)));
  dp.average_gradients({&mine});
  const double dw = largest_difference(mine.weight_grad(), whole.weight_grad());
  const double db = largest_difference(mine.bias_grad().as_matrix(), whole.bias_grad().as_matrix());
  check(dw < 1e-12, "averaged dW equals the whole batch's (largest relative difference " + show(dw) + ")");
  check(db < 1e-12, "averaged db equals the whole batch's (largest relative difference " + show(db) + ")");

  // Layers that differ between ranks (another seed on rank 1): every rank refuses, and no gradient changes.
  SparseLinear other(in, out, 0.3, rank_ == 1 ? 6 : 5, true, &snk::types::FP64);
  (void)other.backward(X, dY);
  const auto before = layer_test::entries(other.weight_grad());
  bool refused = false;
  try {
    dp.average_gradients({&other});
  } catch (const snk::Error& e) {
    refused = e.info() == snk::Info::InvalidObject;
  }
  check(refused, "different patterns are refused with InvalidObject on every rank");
  check(layer_test::entries(other.weight_grad()) == before, "a refused exchange leaves the gradients unchanged");

  // Rank 0's weights to everyone: rank 1's values are changed first, then equal rank 0's again.
  SparseLinear synced(in, out, 0.3, 5, true, &snk::types::FP64);
  const Matrix reference = synced.weight();
  if (rank_ == 1) {
    snk::CsrStorage& c = synced.weight().csr_mutable();
    double* w = reinterpret_cast<double*>(c.x.data());
    for (Index e = 0; e < c.nvals(); ++e) w[e] += 1.0;
  }
  dp.broadcast_parameters({&synced});
  check(largest_difference(synced.weight(), reference) == 0.0, "broadcast_parameters gives every rank rank 0's weights");

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) std::printf("data_parallel: %s (%d ranks, %d failed checks)\n", all ? "FAILED" : "PASS", size, all);
  MPI_Finalize();
  return all ? 1 : 0;
}
