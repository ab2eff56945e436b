// graphchallenge/runner/snack_spdnn_mpi.cpp: `snack-spdnn-mpi`, the SpDNN GraphChallenge on several GPUs,
// one MPI rank per GPU.
//
// Every rank holds the whole network (the challenge's networks fit on one GPU) and a contiguous block of the inputs
// (rows are independent, so any partition gives the same categories); each runs its block on the fused GPU engine, or
// with --engine tiled on the tiled engine (exact work: no row reuse) (GPU = node-local rank modulo the visible devices;
// without a GPU, the GraphBLAS formulation on the best CPU backend), and rank 0 gathers the categories, shifted back to
// global row ids, and checks them exactly. --help lists the options; a bad command line stops every rank with status 2
// before any data is read. Time: from a barrier after loading to the end of the gather; rate = inputs x edges / that
// time. Data as snack-spdnn: `--data official` (the 1024 x 120 official network and the 1,200 official images repeated
// --repeat times, from the official folder or --official-cache) or generated (RadiX-Net from --seed, inputs from MNIST;
// the truth is the float64 host reference, computed by every rank on its own block, so it is checked for the whole
// input set).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/graphblas_engine.hpp"
#include "io/cache.hpp"
#include "io/generator.hpp"
#include "io/reference.hpp"
#include "io/rows.hpp"
#include "runner/whole_number.hpp"
#ifdef SNACK_WITH_FUSED_GPU
#include <cuda_runtime.h>

#include "engine/fused_gpu.hpp"
#endif
#ifdef SNACK_WITH_TILED_GPU
#include "engine/tiled_gpu.hpp"
#include "plan/tiles.hpp"
#endif

using namespace snk::gc;

void usage() {
  std::printf(
      "usage: mpirun -np N snack-spdnn-mpi [options]   (one rank per GPU; GPU = node-local rank modulo the GPUs)\n"
      "  --data KIND        official (default: 1024 x 120, the 1200 official images repeated) | generated\n"
      "  --official-dir D   folder of the official files (default ../shared/data/graphchallenge)\n"
      "  --official-cache F official data: read this binary cache (snack-spdnn --cache-dir makes it) instead\n"
      "  --repeat K         official data: copies of the 1200-image subset (default 50 = 60,000 inputs)\n"
      "  --neurons N        generated data: 1024 | 4096 | 16384 | 65536 (default 1024)\n"
      "  --layers L         generated data: 120 | 480 | 1920 (default 120)\n"
      "  --inputs N         generated data: number of inputs (default 60000)\n"
      "  --seed S           generated data: network seed (default 2019)\n"
      "  --engine E         auto (default: fused on a GPU, else graphblas) | graphblas | fused | tiled (exact work)\n"
      "  --dedup M          fused engine: auto (default) | on | off, as snack-spdnn --dedup\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local_rank = 0;
  MPI_Comm_rank(node, &local_rank);

  std::string data = "official", official_dir = "../shared/data/graphchallenge", official_cache, engine_name = "auto";
  std::string dedup = "auto";  // fused engine: as snack-spdnn --dedup
  int64_t neurons = 1024, layers = 120, inputs_count = 60000, repeat = 50;
  uint64_t seed = 2019;
  // A bad command line stops every rank with status 2, rank 0 saying why (see --help).
  auto refuse = [&](const std::string& why) {
    if (rank == 0) std::fprintf(stderr, "snack-spdnn-mpi: %s (see --help)\n", why.c_str());
    MPI_Finalize();
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      if (rank == 0) usage();
      MPI_Finalize();
      return 0;
    }
    if (i + 1 >= argc) refuse("missing value after " + a);
    const std::string v = argv[++i];
    auto number = [&]() -> int64_t {
      int64_t n = 0;
      if (!whole_number(v, n)) refuse("not a number: " + a + " " + v);
      return n;
    };
    if (a == "--data") data = v;
    else if (a == "--official-dir") official_dir = v;
    else if (a == "--official-cache") official_cache = v;
    else if (a == "--neurons") neurons = number();
    else if (a == "--layers") layers = number();
    else if (a == "--inputs") inputs_count = number();
    else if (a == "--repeat") repeat = number();
    else if (a == "--seed") seed = static_cast<uint64_t>(number());
    else if (a == "--engine") engine_name = v;
    else if (a == "--dedup") dedup = v;
    else refuse("unknown option " + a);
  }
  if (data != "official" && data != "generated") refuse("--data must be official or generated, not " + data);
  if (dedup != "auto" && dedup != "on" && dedup != "off") refuse("--dedup must be auto, on or off, not " + dedup);
  if (neurons < 1 || layers < 1 || inputs_count < 1 || repeat < 1) refuse("counts must be positive");
  int status = 0;
  try {
    Network net;
    CsrMatrix inputs;
    std::vector<int64_t> truth;
    bool have_truth = false;
    if (data == "official") {
      Dataset d;
      if (!official_cache.empty()) {
        d = read_cache(official_cache);
      } else {
        OfficialSources s;
        s.weights_dir = official_dir + "/neuron1024";
        s.inputs = official_dir + "/sparse-images-1024_subset.mtx";
        s.truth = official_dir + "/neuron1024-l120-categories_subset.mtx";
        d = load_official(s, "").data;
      }
      net = std::move(d.network);
      inputs = repeat_rows(d.inputs, repeat);
      for (int64_t c = 0; c < repeat; ++c)
        for (int64_t id : d.categories) truth.push_back(id + c * d.inputs.nrows);
      have_truth = true;
    } else {
      net = generate_network(neurons, layers, seed);
      InputOptions io;
      io.count = inputs_count;
      inputs = generate_inputs(load_mnist_digits(default_mnist_dir()), neurons, io);
    }
    const int64_t n_in = inputs.nrows;
    const int64_t r0 = n_in * rank / ranks, r1 = n_in * (rank + 1) / ranks;
    const CsrMatrix mine = row_block(inputs, r0, r1);
    std::string device = "CPU";

    std::vector<int64_t> local;
    std::string engine = engine_name;
#ifdef SNACK_WITH_FUSED_GPU
    std::unique_ptr<FusedGpuEngine> fused;
    if (engine == "auto") engine = fused_gpu_available() ? "fused" : "graphblas";
    if (engine == "fused") {
      int devices = 0;
      cudaGetDeviceCount(&devices);
      FusedGpuOptions o;
      o.device = devices > 0 ? local_rank % devices : 0;
      o.deduplicate_rows = deduplicate_rows_for(dedup, data == "official" && repeat > 1);
      fused = std::make_unique<FusedGpuEngine>(net, o);
      fused->pin_host_inputs(mine);
      device = fused->device_name() + " #" + std::to_string(o.device);
      fused->infer(mine);  // warm-up
    }
#ifdef SNACK_WITH_TILED_GPU
    std::unique_ptr<TiledGpuEngine> tiled;
    if (engine == "tiled") {
      int devices = 0;
      cudaGetDeviceCount(&devices);
      const int dev = devices > 0 ? local_rank % devices : 0;
      tiled = std::make_unique<TiledGpuEngine>(tile_network(net), dev);
      device = tiled->device_name() + " #" + std::to_string(dev);
      tiled->infer(mine);  // warm-up
    }
#endif
#else
    if (engine == "auto") engine = "graphblas";
#endif
    if (engine != "graphblas" && engine != "fused" && engine != "tiled")
      throw std::runtime_error("--engine must be auto, graphblas, fused or tiled, not " + engine);
#ifndef SNACK_WITH_FUSED_GPU
    if (engine == "fused") throw std::runtime_error("this build has no CUDA: the fused GPU engine is not available");
#endif
#ifndef SNACK_WITH_TILED_GPU
    if (engine == "tiled") throw std::runtime_error("this build has no CUDA: the tiled GPU engine is not available");
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (engine == "graphblas") {
      GraphBlasOptions o;
      local = graphblas_infer(net, mine, o);
    } else if (engine == "tiled") {
#ifdef SNACK_WITH_TILED_GPU
      local = tiled->infer(mine);
#endif
    } else {
#ifdef SNACK_WITH_FUSED_GPU
      local = fused->infer(mine);
#endif
    }
    for (int64_t& c : local) c += r0;
    // Gather the categories on rank 0.
    int count = static_cast<int>(local.size());
    std::vector<int> counts(ranks), offsets(ranks);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    if (rank == 0)
      for (int r = 0; r < ranks; ++r) { offsets[r] = total; total += counts[r]; }
    std::vector<int64_t> all(rank == 0 ? total : 0);
    MPI_Gatherv(local.data(), count, MPI_INT64_T, all.data(), counts.data(), offsets.data(), MPI_INT64_T, 0,
                MPI_COMM_WORLD);
    const double t1 = MPI_Wtime();
    double seconds = t1 - t0;

    if (!have_truth) {  // every rank checks its own block against the float64 host reference
      std::vector<int64_t> ref = reference_infer(net, mine);
      for (int64_t& c : ref) c += r0;
      int ok = ref == local ? 1 : 0, all_ok = 0;
      MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
      if (rank == 0) truth = all;  // consistent iff every block matched
      if (rank == 0 && all_ok != 1) truth.clear(), truth.push_back(-1);
    }
    // Each rank's device ordinal (-1: CPU), so the record shows which GPU every rank ran on.
    int ordinal = -1;
#ifdef SNACK_WITH_FUSED_GPU
    if (fused) cudaGetDevice(&ordinal);
#endif
    std::vector<int> ordinals(ranks);
    MPI_Gather(&ordinal, 1, MPI_INT, ordinals.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::sort(all.begin(), all.end());
      const bool pass = all == truth;
      const double edges = static_cast<double>(net.total_nnz());
      std::printf("snack-spdnn-mpi  %lld neurons x %zu layers, %lld inputs, data %s, %d ranks\n",
                  (long long)net.neurons, net.layers.size(), (long long)n_in, data.c_str(), ranks);
      std::string where;
      for (int r = 0; r < ranks; ++r)
        where += (r ? ", " : "") + std::to_string(r) + ":" + (ordinals[r] < 0 ? std::string("CPU") : "GPU " + std::to_string(ordinals[r]));
      std::printf("  engine %s, rank 0 device %s; rank:device %s\n", engine.c_str(), device.c_str(), where.c_str());
      std::printf("  inference time %.6f s, rate %.4f TeraEdges/s\n", seconds, n_in * edges / seconds / 1e12);
      std::printf("  categories %zu (truth %zu)\n%s\n", all.size(), truth.size(), pass ? "PASS" : "FAIL");
      status = pass ? 0 : 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snack-spdnn-mpi (rank %d): %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_free(&node);
  MPI_Finalize();
  return status;
}
