// tests/gpu/data_parallel_test.cpp: DataParallel's device exchange (layers/data_parallel.hpp, Exchange::Device: the
// gradients summed by NCCL between the ranks' GPUs) in one process, an MPI singleton on one GPU, since NCCL takes one
// GPU per rank: the sum over the one rank of weight x gradient is that product, exactly, with nothing brought back to
// the host; the host exchange then gives the same; and on a thread whose backend is not cuda the device exchange
// refuses with InvalidValue and changes nothing. Several ranks are run where a machine has several GPUs
// (snack-train-mpi --exchange nccl).
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>

#include "data_parallel.hpp"
#include "layer_test_util.hpp"
#include "snack/backend.hpp"

namespace {

using snk::Index;
using snk::Matrix;
using snk::layers::DataParallel;
using snk::layers::Exchange;
using snk::layers::SparseLinear;

// MPI for the whole program: started by the first test that needs it, finished after the last test.
class MpiEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    int started = 0, finished = 0;
    MPI_Initialized(&started);
    MPI_Finalized(&finished);
    if (started && !finished) MPI_Finalize();
  }
};
const ::testing::Environment* const mpi_environment = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

void start_mpi() {
  int started = 0;
  MPI_Initialized(&started);
  if (started) return;
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);   // a singleton started as root (containers, CI machines)
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  MPI_Init(nullptr, nullptr);
}

// Every value of `now` is `scale` times the value of `before` at its position (zero where `before` has none), and
// `now` holds exactly the positions of `pattern`.
void expect_scaled(const Matrix& now, const std::map<std::pair<Index, Index>, double>& before, double scale,
                   const Matrix& pattern, const char* what) {
  const auto got = layer_test::entries(now), at = layer_test::entries(pattern);
  ASSERT_EQ(got.size(), at.size()) << what;
  int bad = 0;
  for (const auto& [pos, v] : got) {
    const auto it = before.find(pos);
    const double want = static_cast<float>(scale * (it == before.end() ? 0.0 : it->second));
    if (!at.count(pos) || v != want)
      if (++bad <= 5) ADD_FAILURE() << what << " at (" << pos.first << ", " << pos.second << "): " << v << ", not " << want;
  }
  EXPECT_EQ(bad, 0) << what;
}

TEST(DataParallelDevice, OneRankSumsOnItsGpu) {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) GTEST_SKIP() << "no CUDA device";
  start_mpi();
  const DataParallel dp(MPI_COMM_WORLD, Exchange::Device);   // before the cuda backend's first use: it picks the GPU
  ASSERT_EQ(dp.size(), 1) << "run as one process (an MPI singleton)";
  snk::BackendScope scope("cuda");
  const Index batch = 64, in = 300, out = 200;
  SparseLinear layer(in, out, 0.1, 5, true, &snk::types::FP32);
  (void)layer.backward(layer_test::random_batch(batch, in), layer_test::random_batch(batch, out));
  const auto dw = layer_test::entries(layer.weight_grad()), db = layer_test::entries(layer.bias_grad().as_matrix());
  ASSERT_FALSE(dw.empty());

  snk::reset_transfers();
  dp.sum_gradients({&layer}, 0.5);
  EXPECT_EQ(snk::transfers().downloads, 0u) << "the device exchange brought a gradient back to the host";
  expect_scaled(layer.weight_grad(), dw, 0.5, layer.weight(), "dW after the device exchange (weight 0.5)");
  expect_scaled(layer.bias_grad().as_matrix(), db, 0.5, layer.bias().as_matrix(), "db after the device exchange");

  const DataParallel host(MPI_COMM_WORLD);
  host.sum_gradients({&layer}, 2.0);
  expect_scaled(layer.weight_grad(), dw, 1.0, layer.weight(), "dW after both exchanges (weights 0.5, then 2)");

  snk::BackendScope other("reference");
  const auto before = layer_test::entries(layer.weight_grad());
  try {
    dp.sum_gradients({&layer}, 1.0);
    ADD_FAILURE() << "the device exchange ran on the reference backend";
  } catch (const snk::Error& e) {
    EXPECT_EQ(e.info(), snk::Info::InvalidValue) << e.what();
  }
  EXPECT_EQ(layer_test::entries(layer.weight_grad()), before) << "a refused exchange changed the gradient";
}

}  // namespace
