// graphchallenge/runner/snack_spdnn.cpp: `snack-spdnn`, the SpDNN GraphChallenge runner (the README's
// main job).
//
// Runs one challenge configuration (neurons x layers) on a chosen engine and backend, checks the
// categories exactly against the truth, and prints the inference time and the official rate
// (inputs x total edges / inference seconds; reading and generating data is excluded), with progress on
// stderr and an optional JSON record. Data: `generated` (the default; the project makes it on any machine:
// a RadiX-Net network from a seed and 60,000 inputs from the real MNIST digits; the truth comes from the
// reference backend and is cached) or `official` (the challenge's files; the 1024-neuron weights and the
// 1200-image subset repeated --repeat times, whose truth is the official one shifted by 1200 per copy).
// Engines: `graphblas` (four standard GraphBLAS calls per layer, any backend), `fused` (the fused GPU engine) and
// `tiled` (the GPU engine on the layers' dense blocks, exact work: every live row of every layer computed); `auto`
// picks fused where a GPU is present, else graphblas on the best CPU backend.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "engine/graphblas_engine.hpp"
#ifndef SNACK_SUITESPARSE_DIRECT
#include "snack/backend.hpp"
#endif
#include "io/cache.hpp"
#include "io/generator.hpp"
#include "io/readers.hpp"
#include "io/rows.hpp"
#include "runner/whole_number.hpp"
#ifdef SNACK_WITH_FUSED_GPU
#include "engine/fused_gpu.hpp"
#endif
#ifdef SNACK_WITH_TILED_GPU
#include "engine/tiled_gpu.hpp"
#include "plan/tiles.hpp"
#endif

namespace {

using snk::gc::CsrMatrix;
using snk::gc::Network;
using snk::gc::whole_number;

struct Config {
  int64_t neurons = 1024;
  int64_t layers = 120;
  std::string data = "generated";
  std::string official_dir;
  std::string official_cache;   // a binary cache of the official data (as build-gpu.sh writes), read instead of the files
  int64_t repeat = 50;
  int64_t inputs = 60000;
  uint64_t seed = 2019;
  std::string engine = "auto";
  std::string dedup = "auto";
  std::string tiled_sums = "fp64";
  std::string tile_modes = "auto";
  double compile_budget = 60;
  std::string merge_outputs = "on";
  std::string backend;
  std::string json;
  std::string cache_dir;
  int runs = 1;
};

void usage() {
  std::printf(
      "usage: snack-spdnn [options]\n"
      "  --neurons N        1024 | 4096 | 16384 | 65536 (default 1024)\n"
      "  --layers L         120 | 480 | 1920 (default 120)\n"
      "  --data KIND        generated (default) | official\n"
      "  --official-dir D   folder of the official files (default ../shared/data/graphchallenge if present)\n"
      "  --official-cache F official data: read this binary cache (made by a run with --cache-dir) instead\n"
      "  --repeat K         official data: copies of the 1200-image subset (default 50 = 60,000 inputs)\n"
      "  --inputs N         generated data: number of inputs (default 60000)\n"
      "  --seed S           generated data: network seed (default 2019)\n"
      "  --engine E         auto (default) | graphblas | fused | tiled (GPU, exact work on the layers' dense blocks)\n"
      "  --backend B        graphblas engine: reference | kokkos | cuda (default: the library's best)\n"
      "  --tiled-sums T     tiled engine: hold each layer's sums and activations in fp64 (default: the float64\n"
      "                     reference's arithmetic) or fp32 (faster, but a row whose sum lies within FP32's rounding\n"
      "                     of the ReLU's threshold may go the other way: refused, before timing, where any row's\n"
      "                     category differs from the truth)\n"
      "  --tile-modes M     tiled engine: how each tile is computed: auto (default: the cost model, calibrated once\n"
      "                     per device and cached in ~/.cache/snack) | sparse | tensor (FP64 tensor cores; fp64 sums\n"
      "                     only) | embedded (code generated per layer with its weights compiled in)\n"
      "  --compile-budget S tiled engine: seconds the embedded layers' compiles may take (default 60); layers not\n"
      "                     compiled in time (nor cached) fall back to the other modes\n"
      "  --merge-outputs M  tiled engine: on (default): outputs whose weights are all alike (every tile of the\n"
      "                     challenge's layers) are one value a row, computed once; off: every output computed\n"
      "  --dedup M          fused engine: compute identical live rows once: auto (default: on, except for\n"
      "                     official data repeated more than once, whose copies it would merge) | on | off\n"
      "  --runs R           timed runs; the best is reported (default 1)\n"
      "  --cache-dir D      where generated truth and data caches go (default ~/.cache/snack/spdnn)\n"
      "  --json PATH        also write the result as JSON\n");
}

Config parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("missing value after " + a);
      return argv[++i];
    };
    auto number = [&]() -> std::int64_t {   // the value after `a`, a whole number
      const std::string v = next();
      std::int64_t n = 0;
      if (!whole_number(v, n)) throw std::runtime_error(a + " needs a whole number, not '" + v + "'");
      return n;
    };
    if (a == "--neurons") c.neurons = number();
    else if (a == "--layers") c.layers = number();
    else if (a == "--data") c.data = next();
    else if (a == "--official-dir") c.official_dir = next();
    else if (a == "--official-cache") c.official_cache = next();
    else if (a == "--repeat") c.repeat = number();
    else if (a == "--inputs") c.inputs = number();
    else if (a == "--seed") c.seed = static_cast<std::uint64_t>(number());
    else if (a == "--engine") c.engine = next();
    else if (a == "--backend") c.backend = next();
    else if (a == "--dedup") c.dedup = next();
    else if (a == "--tiled-sums") c.tiled_sums = next();
    else if (a == "--tile-modes") c.tile_modes = next();
    else if (a == "--compile-budget") c.compile_budget = static_cast<double>(number());
    else if (a == "--merge-outputs") c.merge_outputs = next();
    else if (a == "--runs") c.runs = static_cast<int>(number());
    else if (a == "--cache-dir") c.cache_dir = next();
    else if (a == "--json") c.json = next();
    else if (a == "-h" || a == "--help") { usage(); std::exit(0); }
    else throw std::runtime_error("unknown option " + a + " (see --help)");
  }
  if (c.data != "generated" && c.data != "official") throw std::runtime_error("--data must be generated or official");
  if (c.engine != "auto" && c.engine != "graphblas" && c.engine != "fused" && c.engine != "tiled")
    throw std::runtime_error("--engine must be auto, graphblas, fused or tiled");
  if (c.dedup != "auto" && c.dedup != "on" && c.dedup != "off") throw std::runtime_error("--dedup must be auto, on or off");
  if (c.tiled_sums != "fp64" && c.tiled_sums != "fp32") throw std::runtime_error("--tiled-sums must be fp64 or fp32");
  if (c.tile_modes != "auto" && c.tile_modes != "sparse" && c.tile_modes != "tensor" && c.tile_modes != "embedded")
    throw std::runtime_error("--tile-modes must be auto, sparse, tensor or embedded");
  if (c.merge_outputs != "on" && c.merge_outputs != "off") throw std::runtime_error("--merge-outputs must be on or off");
  if (c.tile_modes == "tensor" && c.tiled_sums == "fp32")
    throw std::runtime_error("--tile-modes tensor computes fp64 sums; it cannot be used with --tiled-sums fp32");
  if (c.repeat < 1 || c.inputs < 1 || c.runs < 1 || c.layers < 1) throw std::runtime_error("counts must be positive");
  if (c.cache_dir.empty()) {
    const char* home = std::getenv("HOME");
    const char* deps = std::getenv("SNACK_DEPS");
    c.cache_dir = std::string(deps ? deps : (std::string(home ? home : ".") + "/.cache/snack")) + "/spdnn";
  }
  return c;
}

bool exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

void make_dirs(const std::string& path) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part + "/";
    mkdir(cur.c_str(), 0755);
  }
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string join(const std::vector<int64_t>& v, size_t max_items) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < max_items; ++i) s += (i ? " " : "") + std::to_string(v[i] + 1);
  if (v.size() > max_items) s += " ...";
  return s;
}

int run(int argc, char** argv) {
  Config cfg;
  try {
    cfg = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snack-spdnn: %s\n", e.what());
    return 2;
  }
  try {
    const double t_load0 = now();
    Network net;
    CsrMatrix inputs;
    std::vector<int64_t> truth;
    std::string truth_source;
    make_dirs(cfg.cache_dir);
    if (cfg.data == "official") {
      if (cfg.official_dir.empty()) cfg.official_dir = "../shared/data/graphchallenge";
      if (cfg.neurons != 1024 || cfg.layers != 120)
        throw std::runtime_error("official data is available here for 1024 neurons x 120 layers only");
      snk::gc::OfficialSources src;
      src.weights_dir = cfg.official_dir + "/neuron1024";
      src.neurons = 1024;
      src.layers = 120;
      src.inputs = cfg.official_dir + "/sparse-images-1024_subset.mtx";
      src.truth = cfg.official_dir + "/neuron1024-l120-categories_subset.mtx";
      snk::gc::Dataset d;
      if (!cfg.official_cache.empty()) {
        std::fprintf(stderr, "[spdnn] reading the official 1024 x 120 data from the cache %s\n", cfg.official_cache.c_str());
        d = snk::gc::read_cache(cfg.official_cache);
      } else {
        std::fprintf(stderr, "[spdnn] reading the official 1024 x 120 data from %s\n", cfg.official_dir.c_str());
        d = snk::gc::load_official(src, cfg.cache_dir + "/official-1024-120.bin").data;
      }
      net = std::move(d.network);
      inputs = snk::gc::repeat_rows(d.inputs, cfg.repeat);
      for (int64_t c = 0; c < cfg.repeat; ++c)
        for (int64_t id : d.categories) truth.push_back(id + c * d.inputs.nrows);
      truth_source = "official";
    } else {
      std::fprintf(stderr, "[spdnn] generating a %lld x %lld RadiX-Net network (seed %llu) and %lld MNIST inputs\n",
                   (long long)cfg.neurons, (long long)cfg.layers, (unsigned long long)cfg.seed, (long long)cfg.inputs);
      net = snk::gc::generate_network(cfg.neurons, cfg.layers, cfg.seed);
      snk::gc::InputOptions io;
      io.count = cfg.inputs;
      inputs = snk::gc::generate_inputs(snk::gc::load_mnist_digits(snk::gc::default_mnist_dir()), cfg.neurons, io);
      const std::string truth_path = cfg.cache_dir + "/truth-n" + std::to_string(cfg.neurons) + "-l" +
                                     std::to_string(cfg.layers) + "-s" + std::to_string(cfg.seed) + "-i" +
                                     std::to_string(cfg.inputs) + ".tsv";
      bool have = false;
      if (exists(truth_path)) {
        try {
          truth = snk::gc::read_categories(truth_path, cfg.inputs);
          have = true;
          truth_source = "reference backend (cached " + truth_path + ")";
        } catch (const std::exception& e) {
          std::fprintf(stderr, "[spdnn] truth cache unusable (%s); recomputing\n", e.what());
        }
      }
      if (!have) {
        std::fprintf(stderr, "[spdnn] computing the truth on the reference backend (SuiteSparse:GraphBLAS)...\n");
        snk::gc::GraphBlasOptions ro;
#ifndef SNACK_SUITESPARSE_DIRECT
        ro.backend = "reference";
#endif
        ro.progress = [](int64_t l, int64_t L) {
          if (l % 20 == 0 || l == L) std::fprintf(stderr, "[spdnn]   truth: layer %lld / %lld\n", (long long)l, (long long)L);
        };
        snk::gc::GraphBlasTimings rt;
        truth = snk::gc::graphblas_infer(net, inputs, ro, &rt);
        snk::gc::write_categories(truth_path, truth);
        truth_source = "reference backend (computed in " + std::to_string(rt.infer_s) + " s)";
      }
    }
    const double t_load1 = now();
    const int64_t edges = net.total_nnz();
    std::fprintf(stderr, "[spdnn] data ready in %.1f s: %lld inputs, %lld edges in %zu layers, %zu truth categories\n",
                 t_load1 - t_load0, (long long)inputs.nrows, (long long)edges, net.layers.size(), truth.size());

    std::string engine = cfg.engine;
#ifdef SNACK_WITH_FUSED_GPU
    if (engine == "auto") engine = snk::gc::fused_gpu_available() ? "fused" : "graphblas";
#else
    if (engine == "auto") engine = "graphblas";
    if (engine == "fused") throw std::runtime_error("this build has no CUDA: the fused GPU engine is not available");
#endif
#ifdef SNACK_SUITESPARSE_DIRECT
    std::string backend_name = "SuiteSparse:GraphBLAS called directly (snack-spdnn-suitesparse)";
#else
    std::string backend_name = engine == "fused"   ? "cuda (fused engine)"
                               : engine == "tiled" ? "cuda (tiled engine, exact work)"
                                                   : (cfg.backend.empty() ? "default" : cfg.backend);
#endif
    std::string device = engine == "graphblas" && cfg.backend == "cuda" ? "GPU (the cuda backend)" : "CPU";
    double best = 1e300;
    std::vector<int64_t> categories;
    std::vector<int64_t> live;      // inputs alive after each layer
    std::vector<int64_t> computed;  // fused engine: rows each layer computed (fewer with deduplication)
    bool dedup_used = false;  // fused engine: rows deduplicated
    // The GraphBLAS engine's weights, made once for every run (as the other engines upload theirs once).
    int graphblas_run = 0;
    std::unique_ptr<snk::gc::GraphBlasEngine> graphblas;
    if (engine == "graphblas") {
      snk::gc::GraphBlasOptions go;
      go.backend = cfg.backend;
      go.progress = [&](int64_t l, int64_t L) {
        if (l % 20 == 0 || l == L)
          std::fprintf(stderr, "[spdnn]   run %d: layer %lld / %lld\n", graphblas_run, (long long)l, (long long)L);
      };
      graphblas = std::make_unique<snk::gc::GraphBlasEngine>(net, go);
    }
    for (int run = 0; run < cfg.runs; ++run) {
      double seconds = 0;
      if (engine == "graphblas") {
        graphblas_run = run + 1;
        snk::gc::GraphBlasTimings gt;
#ifndef SNACK_SUITESPARSE_DIRECT
        snk::reset_transfers();
#endif
        categories = graphblas->infer(inputs, &gt);
        seconds = gt.infer_s;
        std::fprintf(stderr, "[spdnn] run %d parts: weights made once %.3f s, inputs made Y0 %.3f s (neither timed); "
                     "layers: product %.3f s, bias %.3f s, ReLU %.3f s, cap %.3f s\n", run + 1, gt.setup_s, gt.input_s,
                     gt.mxm_s, gt.bias_s, gt.relu_s, gt.cap_s);
#ifndef SNACK_SUITESPARSE_DIRECT
        const snk::Transfers tr = snk::transfers();
        std::fprintf(stderr, "[spdnn] run %d host <-> device: %llu uploads (%.1f MB), %llu downloads (%.1f MB)\n",
                     run + 1, (unsigned long long)tr.uploads, tr.upload_bytes / 1e6, (unsigned long long)tr.downloads,
                     tr.download_bytes / 1e6);
#endif
      } else if (engine == "tiled") {
#ifdef SNACK_WITH_TILED_GPU
        // The inputs as the tiled engine takes them (pinned by it: declared first, so that they outlive it).
        static snk::gc::CsrMatrix tiled_inputs;
        static std::unique_ptr<snk::gc::TiledGpuEngine> tiled;
        if (!tiled) {
          const double tt0 = now();
          const snk::gc::TiledNetwork tn = snk::gc::tile_network(net);
          const snk::gc::TileStats st = snk::gc::tile_stats(tn.layers.front(), 16);
          std::fprintf(stderr, "[spdnn] tiled the layers in %.1f s (layer 1: %lld row classes, %lld blocks of %lld x %lld "
                       "to %lld x %lld)\n", now() - tt0, (long long)st.row_classes, (long long)st.blocks,
                       (long long)st.min_rows, (long long)st.min_cols, (long long)st.max_rows, (long long)st.max_cols);
          snk::gc::TiledOptions to;
          to.accumulation = cfg.tiled_sums == "fp32" ? snk::gc::TiledAccumulation::FP32 : snk::gc::TiledAccumulation::FP64;
          to.modes = snk::gc::parse_mode_policy(cfg.tile_modes);
          to.compile_budget_s = cfg.compile_budget;
          to.merge_equal_outputs = cfg.merge_outputs == "on";
          to.progress = true;
          const double tp0 = now();
          tiled = std::make_unique<snk::gc::TiledGpuEngine>(tn, 0, to);
          std::fprintf(stderr, "[spdnn] tile modes (%s, %.1f s): %s\n", cfg.tile_modes.c_str(), now() - tp0,
                       tiled->plan().summary().c_str());
          // Binary images go as their pattern (half the bytes to upload); both are part of loading the data.
          if (std::optional<snk::gc::CsrMatrix> p = snk::gc::binary_pattern(inputs)) tiled_inputs = std::move(*p);
          else tiled_inputs = inputs;
          tiled->pin_host_inputs(tiled_inputs);  // uploads then run at full bus speed
          device = tiled->device_name();
          categories = tiled->infer(tiled_inputs);  // warm-up
          if (cfg.tiled_sums == "fp32" && categories != truth) {   // a precision that changes categories is refused
            std::vector<int64_t> differ;
            std::set_symmetric_difference(categories.begin(), categories.end(), truth.begin(), truth.end(),
                                          std::back_inserter(differ));
            throw std::runtime_error("--tiled-sums fp32 decides " + std::to_string(differ.size()) + " of the " +
                                     std::to_string(inputs.nrows) + " inputs unlike the truth (" + truth_source +
                                     "), first row " + std::to_string(differ.front()) +
                                     ": that precision is refused for this network; use --tiled-sums fp64");
          }
        }
        snk::gc::TiledGpuTimings tt;
        categories = tiled->infer(tiled_inputs, &tt);
        seconds = tt.total_s;
        live = tt.live_rows_per_layer;
        std::fprintf(stderr, "[spdnn] run %d parts: inputs with the first layer %.3f s, other layers %.3f s (%lld "
                     "compactions), categories %.3f s; %lld pass%s over the inputs\n",
                     run + 1, tt.upload_inputs_s, tt.layers_s, (long long)tt.compactions, tt.download_s,
                     (long long)tt.passes, tt.passes == 1 ? "" : "es");
#else
        throw std::runtime_error("this build has no CUDA: the tiled GPU engine is not available");
#endif
      } else {
#ifdef SNACK_WITH_FUSED_GPU
        static std::unique_ptr<snk::gc::FusedGpuEngine> fused;
        if (!fused) {
          snk::gc::FusedGpuOptions fo;
          fo.deduplicate_rows = snk::gc::deduplicate_rows_for(cfg.dedup, cfg.data == "official" && cfg.repeat > 1);
          if (cfg.dedup == "auto" && !fo.deduplicate_rows)
            std::fprintf(stderr, "[spdnn] row deduplication off: the inputs are %lld copies of the official images, "
                                 "which it would compute once (--dedup on to allow it)\n", (long long)cfg.repeat);
          dedup_used = fo.deduplicate_rows;
          fused = std::make_unique<snk::gc::FusedGpuEngine>(net, fo);
          fused->pin_host_inputs(inputs);  // part of loading the data: uploads then run at full bus speed
          device = fused->device_name();
          categories = fused->infer(inputs);  // warm-up (graph capture, first-touch)
        }
        snk::gc::FusedGpuTimings ft;
        categories = fused->infer(inputs, &ft);
        seconds = ft.total_s;
        live = ft.live_rows_per_layer;
        computed = ft.computed_rows_per_layer;
#endif
      }
      best = std::min(best, seconds);
      std::fprintf(stderr, "[spdnn] run %d: %.6f s\n", run + 1, seconds);
    }
    const bool pass = categories == truth;
    const double rate = static_cast<double>(inputs.nrows) * static_cast<double>(edges) / best;
    std::printf("snack-spdnn  %lld neurons x %lld layers, %lld inputs, data %s\n", (long long)cfg.neurons,
                (long long)cfg.layers, (long long)inputs.nrows, cfg.data.c_str());
    std::printf("  engine %s%s, backend %s, device %s\n", engine.c_str(),
                engine == "fused" ? (dedup_used ? " (row deduplication on)" : " (row deduplication off)") : "",
                backend_name.c_str(), device.c_str());
    std::printf("  inference time %.6f s, rate %.4f TeraEdges/s\n", best, rate / 1e12);
#ifndef SNACK_SUITESPARSE_DIRECT
    if (engine == "graphblas") {   // calls the backend declined (they ran on reference), all runs
      std::string detail;
      for (const auto& [op, n] : snk::fallback_counts(backend_name)) detail += " " + op + "=" + std::to_string(n);
      std::printf("  fallbacks to reference: %llu%s\n", (unsigned long long)snk::fallback_total(backend_name),
                  detail.c_str());
    }
#endif
    std::printf("  categories %zu (truth %zu from %s): %s\n", categories.size(), truth.size(), truth_source.c_str(),
                join(categories, 8).c_str());
    if (!computed.empty()) {
      int64_t sum = 0;
      for (int64_t c : computed) sum += c;
      std::printf("  rows computed over all layers %lld, in the last layer %lld (inputs alive there: %lld)\n",
                  (long long)sum, (long long)computed.back(), (long long)live.back());
    }
    std::printf("%s\n", pass ? "PASS" : "FAIL");
    if (!pass) {
      std::printf("  expected: %s\n", join(truth, 8).c_str());
    }
    if (!cfg.json.empty()) {
      std::ofstream j(cfg.json);
      j << "{\n  \"neurons\": " << cfg.neurons << ",\n  \"layers\": " << cfg.layers << ",\n  \"inputs\": "
        << inputs.nrows << ",\n  \"edges\": " << edges << ",\n  \"data\": \"" << cfg.data << "\",\n  \"engine\": \""
        << engine << "\",\n  \"backend\": \"" << backend_name << "\",\n  \"device\": \"" << device
        << "\",\n  \"seconds\": " << best << ",\n  \"teraedges_per_s\": " << rate / 1e12 << ",\n  \"categories\": "
        << categories.size() << ",\n  \"pass\": " << (pass ? "true" : "false") << ",\n  \"live_rows_per_layer\": [";
      for (size_t i = 0; i < live.size(); ++i) j << (i ? ", " : "") << live[i];
      j << "],\n  \"computed_rows_per_layer\": [";
      for (size_t i = 0; i < computed.size(); ++i) j << (i ? ", " : "") << computed[i];
      j << "],\n  \"row_deduplication\": " << (dedup_used ? "true" : "false") << "\n}\n";
    }
    return pass ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snack-spdnn: %s\n", e.what());
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
