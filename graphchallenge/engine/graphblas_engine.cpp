// graphchallenge/engine/graphblas_engine.cpp: the SpDNN challenge as standard GraphBLAS C API calls (see
// graphblas_engine.hpp). Only GrB_ functions of the spec are used, plus SNK_Backend_set to pick the backend.
// Compiled a second time with SNACK_SUITESPARSE_DIRECT against SuiteSparse's own GraphBLAS.h and library
// (snack-spdnn-suitesparse), the same calls give the CPU baseline that the kokkos backend is measured against.
#include "engine/graphblas_engine.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#ifdef SNACK_SUITESPARSE_DIRECT
extern "C" {   // SuiteSparse's GraphBLAS.h (7.4) has no C++ linkage guards
#include <GraphBLAS.h>
}
#else
#include "GraphBLAS.h"
#endif

namespace snk::gc {
namespace {

void check(GrB_Info info, const char* what, GrB_Matrix m = nullptr) {
  if (info == GrB_SUCCESS) return;
  std::string msg = std::string("GraphBLAS engine: ") + what + " failed (GrB_Info " + std::to_string(int(info)) + ")";
  if (m) {
    const char* err = nullptr;
    if (GrB_Matrix_error(&err, m) == GrB_SUCCESS && err && *err) msg += ": " + std::string(err);
  }
  throw std::runtime_error(msg);
}

// A GrB_Matrix (FP32) from the reader's CSR form, by GrB_Matrix_import (spec 2.0): the rows are already in CSR
// order, so nothing is sorted (GrB_Matrix_build would sort the tuples).
GrB_Matrix to_graphblas(const CsrMatrix& a) {
  GrB_Matrix m = nullptr;
  const std::vector<GrB_Index> indptr(a.row_ptr.begin(), a.row_ptr.end()), indices(a.col.begin(), a.col.end());
  check(GrB_Matrix_import_FP32(&m, GrB_FP32, static_cast<GrB_Index>(a.nrows), static_cast<GrB_Index>(a.ncols),
                               indptr.data(), indices.data(), a.val.data(), indptr.size(), indices.size(),
                               a.val.size(), GrB_CSR_FORMAT),
        "GrB_Matrix_import");
  return m;
}

struct Matrices {
  std::vector<GrB_Matrix> list;
  ~Matrices() { for (GrB_Matrix& m : list) GrB_Matrix_free(&m); }
};

// Makes `backend` the library's current one ("" keeps it). Built against SuiteSparse:GraphBLAS itself
// (snack-spdnn-suitesparse, the CPU baseline) there are no backends, and only "suitesparse" names it.
void use_backend(const std::string& backend) {
  if (backend.empty()) return;
#ifdef SNACK_SUITESPARSE_DIRECT
  if (backend != "suitesparse")
    throw std::runtime_error("GraphBLAS engine: this build runs SuiteSparse:GraphBLAS directly; no backend '" + backend +
                             "'");
#else
  if (SNK_Backend_set(backend.c_str()) != GrB_SUCCESS)
    throw std::runtime_error("GraphBLAS engine: unknown backend '" + backend + "'");
#endif
}

}  // namespace

struct GraphBlasEngine::State {
  int64_t neurons = 0;
  float bias = 0;
  GraphBlasOptions options;
  Matrices weights;
  double setup_s = 0;
};

GraphBlasEngine::GraphBlasEngine(const Network& net, const GraphBlasOptions& options) : state_(new State) {
  using clock = std::chrono::steady_clock;
  GrB_Info init = GrB_init(GrB_NONBLOCKING);
  if (init != GrB_SUCCESS && init != GrB_INVALID_VALUE) check(init, "GrB_init");  // INVALID_VALUE: already initialized
  use_backend(options.backend);
  State& s = *state_;
  s.options = options;
  s.neurons = net.neurons;
  s.bias = net.bias;
  const auto t0 = clock::now();
  for (const CsrMatrix& w : net.layers) s.weights.list.push_back(to_graphblas(w));
  if (!s.weights.list.empty()) GrB_Matrix_wait(s.weights.list.back(), GrB_MATERIALIZE);
  s.setup_s = std::chrono::duration<double>(clock::now() - t0).count();
}

GraphBlasEngine::~GraphBlasEngine() = default;

std::vector<int64_t> GraphBlasEngine::infer(const CsrMatrix& inputs, GraphBlasTimings* timings) {
  using clock = std::chrono::steady_clock;
  State& s = *state_;
  const GraphBlasOptions& options = s.options;
  if (inputs.ncols != s.neurons) throw std::runtime_error("GraphBLAS engine: inputs must have one column per neuron");
  use_backend(options.backend);   // another engine may have changed the current backend since

  const auto t0 = clock::now();
  Matrices work;
  work.list.push_back(to_graphblas(inputs));
  GrB_Matrix_wait(work.list[0], GrB_MATERIALIZE);
#ifndef SNACK_SUITESPARSE_DIRECT
  // Part of making the inputs, as the fused engine pins its inputs when it loads them: a GPU backend then uploads Y0
  // inside the timed first product at the bus's speed (a backend without device memory leaves it as it is).
  check(GrB_Matrix_set_INT32(work.list[0], 1, SNK_PAGE_LOCKED), "GrB_set(SNK_PAGE_LOCKED)", work.list[0]);
#endif
  const auto t1 = clock::now();
  // The first layer reads the inputs Y0 and writes Y; every later layer updates Y in place. Y0 is freed with `work`,
  // after the clock stops, as the challenge's reference code keeps its input (freeing a large host form costs
  // milliseconds that are no part of inference). `in` is the layers' input: Y0, then Y.
  GrB_Matrix in = work.list[0];
  GrB_Matrix Y = nullptr;
  check(GrB_Matrix_new(&Y, GrB_FP32, static_cast<GrB_Index>(inputs.nrows), static_cast<GrB_Index>(s.neurons)),
        "GrB_Matrix_new");
  work.list.push_back(Y);
  GrB_Vector live = nullptr;
  check(GrB_Vector_new(&live, GrB_FP32, static_cast<GrB_Index>(inputs.nrows)), "GrB_Vector_new");
  const int64_t L = static_cast<int64_t>(s.weights.list.size());
  std::vector<int64_t> live_counts;
  double mxm_s = 0, bias_s = 0, relu_s = 0, cap_s = 0;
  // One step of a layer, its wall time added to `total`.
  auto step = [](double& total, const auto& call) {
    const auto start = clock::now();
    call();
    total += std::chrono::duration<double>(clock::now() - start).count();
  };
  for (int64_t l = 0; l < L; ++l) {
    step(mxm_s, [&] {
      check(GrB_mxm(Y, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP32, in, s.weights.list[l], nullptr), "GrB_mxm", Y);
      in = Y;
    });
    step(bias_s, [&] {
      check(GrB_Matrix_apply_BinaryOp2nd_FP32(Y, nullptr, nullptr, GrB_PLUS_FP32, Y, s.bias, nullptr), "apply bias", Y);
    });
    step(relu_s, [&] {
      check(GrB_Matrix_select_FP32(Y, nullptr, nullptr, GrB_VALUEGT_FP32, Y, 0.0f, nullptr), "select > 0", Y);
    });
    step(cap_s, [&] {
      check(GrB_Matrix_apply_BinaryOp2nd_FP32(Y, nullptr, nullptr, GrB_MIN_FP32, Y, 32.0f, nullptr), "apply min 32",
            Y);
    });
    if (options.track_live_rows) {
      check(GrB_Matrix_reduce_Monoid(live, nullptr, nullptr, GrB_PLUS_MONOID_FP32, Y, nullptr), "reduce rows", Y);
      GrB_Index nv = 0;
      GrB_Vector_nvals(&nv, live);
      live_counts.push_back(static_cast<int64_t>(nv));
    }
    if (options.progress) options.progress(l + 1, L);
  }
  check(GrB_Matrix_reduce_Monoid(live, nullptr, nullptr, GrB_PLUS_MONOID_FP32, in, nullptr), "reduce rows", in);
  GrB_Index nv = 0;
  check(GrB_Vector_nvals(&nv, live), "GrB_Vector_nvals");
  std::vector<GrB_Index> rows(nv);
  std::vector<float> sums(nv);
  GrB_Index got = nv;
  check(GrB_Vector_extractTuples_FP32(rows.data(), sums.data(), &got, live), "extractTuples");
  GrB_Vector_free(&live);
  const auto t2 = clock::now();
  if (timings) {
    timings->setup_s = s.setup_s;
    timings->input_s = std::chrono::duration<double>(t1 - t0).count();
    timings->infer_s = std::chrono::duration<double>(t2 - t1).count();
    timings->live_rows_per_layer = live_counts;
    timings->mxm_s = mxm_s;
    timings->bias_s = bias_s;
    timings->relu_s = relu_s;
    timings->cap_s = cap_s;
  }
  std::vector<int64_t> categories(rows.begin(), rows.begin() + got);
  std::sort(categories.begin(), categories.end());
  return categories;
}

std::vector<int64_t> graphblas_infer(const Network& net, const CsrMatrix& inputs, const GraphBlasOptions& options,
                                     GraphBlasTimings* timings) {
  GraphBlasEngine engine(net, options);
  return engine.infer(inputs, timings);
}

}  // namespace snk::gc
