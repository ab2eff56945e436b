// bench/cpu/cpu_graph_ops.cpp: the CPU graph-operations benchmark `bench-cpu-graph-ops`: snack's kokkos
// backend against its reference backend (SuiteSparse:GraphBLAS 7.4) on R-MAT graphs, plus SuiteSparse
// called directly as a third column.
//
// For each scale (default 16..20) it generates a Graph500 R-MAT graph in memory (rmat.hpp says exactly
// how), builds the symmetric FP64 adjacency matrix A once, and runs four operations on the same inputs on
// every contender: mxv (w = A u, PLUS_TIMES, u full with random values in (0,1]), mxm (C = A A, PLUS_TIMES),
// masked mxm (C<A, structural> = A A' with the second input transposed by the descriptor: the
// triangle-counting kernel) and eWiseAdd (C = A + A', PLUS, A' by the descriptor). Before timing, the
// results of the two backends are compared: identical pattern, values within 1e-12 relative; the direct
// SuiteSparse result must have the same number of entries and value sum. Timing: one warm-up call each,
// then rounds that run every contender once in turn (so that load from other processes hits them alike)
// until at least --runs rounds and about --target-seconds of timed work are done; the median wall time of
// each is reported. An A*A whose product would exceed --max-product-gb (or the memory this machine has
// free), or whose run is predicted from the previous scale to take over --max-seconds, is skipped with a
// printed note. Output: a markdown report (device, threads, date, commit, load average, table with
// kokkos/reference ratios, kokkos fallback counts) and a CSV for plot.py.
#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "rmat.hpp"
#include "snack/snack.hpp"
#include "suitesparse_direct.hpp"

#include "bench_commit.h"   // SNACK_GIT_COMMIT (bench/commit.cmake)
#ifndef SNACK_SOURCE_DIR
#define SNACK_SOURCE_DIR "."
#endif

namespace {

using Clock = std::chrono::steady_clock;
using snk::Index;
using snk::Matrix;
using snk::Vector;

const char* const kOps[] = {"mxv", "mxm", "mxm_masked", "ewise_add"};

// ---- options -------------------------------------------------------------------------------------------

struct Options {
  std::vector<int> scales{16, 17, 18, 19, 20};
  std::vector<std::string> ops{"mxv", "mxm", "mxm_masked", "ewise_add"};
  std::string backend_a = "kokkos", backend_b = "reference";   // timed ratio = a / b
  int min_runs = 3;
  int max_runs = 51;
  double target_seconds = 2.0;      // timed work per row before stopping (after min_runs)
  double max_seconds = 60.0;        // skip a row predicted to take longer per run
  double max_product_gb = 8.0;      // skip an A*A whose result would exceed this
  bool direct = true;               // also time SuiteSparse directly
  double direct_max_seconds = 15;   // ... except on rows predicted to take longer than this per run
  bool stats_only = false;          // print the graphs' sizes (and nnz(A*A) where cheap), time nothing
  std::uint64_t seed = 20260;
  std::string csv_path, markdown_path;
};

[[noreturn]] void usage(const char* why) {
  if (why) std::fprintf(stderr, "bench-cpu-graph-ops: %s\n", why);
  std::fprintf(stderr,
               "usage: bench-cpu-graph-ops [--scales 16-20 | 16,18] [--ops mxv,mxm,mxm_masked,ewise_add]\n"
               "         [--runs MIN_RUNS] [--max-runs N] [--target-seconds S] [--max-seconds S]\n"
               "         [--max-product-gb GB] [--backends kokkos,reference] [--no-direct] [--direct-max-seconds S]\n"
               "         [--seed N] [--stats-only]\n"
               "         [--csv PATH] [--markdown PATH]\n");
  std::exit(why ? 2 : 0);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<int> parse_scales(const std::string& s) {
  std::vector<int> out;
  for (const std::string& part : split(s, ',')) {
    auto dash = part.find('-');
    if (dash == std::string::npos) {
      out.push_back(std::stoi(part));
    } else {
      int lo = std::stoi(part.substr(0, dash)), hi = std::stoi(part.substr(dash + 1));
      for (int k = lo; k <= hi; ++k) out.push_back(k);
    }
  }
  for (int k : out)
    if (k < 1 || k > 26) usage("scales must lie in 1..26");
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--scales") o.scales = parse_scales(value());
    else if (a == "--ops") {
      o.ops = split(value(), ',');
      for (const std::string& op : o.ops)
        if (std::find(std::begin(kOps), std::end(kOps), op) == std::end(kOps)) usage(("unknown op " + op).c_str());
    } else if (a == "--runs") o.min_runs = std::max(1, std::stoi(value()));
    else if (a == "--max-runs") o.max_runs = std::max(1, std::stoi(value()));
    else if (a == "--target-seconds") o.target_seconds = std::stod(value());
    else if (a == "--max-seconds") o.max_seconds = std::stod(value());
    else if (a == "--max-product-gb") o.max_product_gb = std::stod(value());
    else if (a == "--backends") {
      auto b = split(value(), ',');
      if (b.size() != 2) usage("--backends takes two names, A,B (ratio A/B)");
      o.backend_a = b[0];
      o.backend_b = b[1];
    } else if (a == "--no-direct") o.direct = false;
    else if (a == "--stats-only") o.stats_only = true;
    else if (a == "--direct-max-seconds") o.direct_max_seconds = std::stod(value());
    else if (a == "--seed") o.seed = std::stoull(value());
    else if (a == "--csv") o.csv_path = value();
    else if (a == "--markdown") o.markdown_path = value();
    else if (a == "--help" || a == "-h") usage(nullptr);
    else usage(("unknown option " + a).c_str());
  }
  o.max_runs = std::max(o.max_runs, o.min_runs);
  return o;
}

// ---- machine facts -------------------------------------------------------------------------------------

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown CPU";
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  double l1 = 0, l5 = 0, l15 = 0;
  in >> l1 >> l5 >> l15;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f, %.2f, %.2f", l1, l5, l15);
  return buf;
}

double mem_available_gb() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb / (1024.0 * 1024.0);
  return 4.0;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

// First line of a shell command's output ("" if it fails).
std::string command_line_output(const std::string& cmd) {
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[512];
    if (std::fgets(buf, sizeof buf, f)) out = buf;
    pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// ---- formatting --------------------------------------------------------------------------------------------

std::string fmt(double v, int prec = 2) {
  if (std::isnan(v)) return "-";
  char buf[64];
  if (v >= 100) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (v >= 10) std::snprintf(buf, sizeof buf, "%.1f", v);
  else std::snprintf(buf, sizeof buf, "%.*f", prec + (v < 1 ? 1 : 0), v);
  return buf;
}

std::string with_commas(std::uint64_t v) {
  std::string s = std::to_string(v), out;
  int k = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (k && k % 3 == 0) out.push_back(',');
    out.push_back(*it);
    ++k;
  }
  return std::string(out.rbegin(), out.rend());
}

// ---- graph, input vector, work estimates ---------------------------------------------------------------

struct Graph {
  int scale = 0;
  Index n = 0;
  std::uint64_t generated = 0, self_loops = 0, directed_tuples = 0;
  Index nnz = 0, max_degree = 0;
  double flops_aa = 0;     // multiply-adds of A*A (sum over k of colcount(k) * rowcount(k))
  double build_seconds = 0, generate_seconds = 0;
};

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Matrix make_adjacency(const bench::RmatParameters& p, Graph& g) {
  auto t0 = Clock::now();
  bench::EdgeList e = bench::generate_rmat(p);
  g.generate_seconds = seconds_since(t0);
  g.scale = p.scale;
  g.n = e.n;
  g.generated = e.generated;
  g.self_loops = e.self_loops;
  g.directed_tuples = e.rows.size();
  t0 = Clock::now();
  Matrix A(&snk::types::FP64, e.n, e.n);
  // Duplicates carry equal values (hashed from the vertex pair), so FIRST merges them exactly.
  A.build(e.rows.data(), e.cols.data(), e.values.data(), &snk::types::FP64, e.rows.size(),
          snk::builtin_binary_op(snk::BinaryOpcode::First, snk::TypeCode::FP64));
  A.wait();
  g.build_seconds = seconds_since(t0);
  g.nnz = A.nvals();
  // Row and column counts (A is symmetric, but count both to state the estimate generally).
  std::vector<double> rowcount(g.n, 0), colcount(g.n, 0);
  const snk::CsrStorage& s = A.csr();
  for (Index k = 0; k < s.nslots(); ++k) {
    Index i = s.hyper ? s.h[k] : k;
    rowcount[i] = static_cast<double>(s.p[k + 1] - s.p[k]);
    g.max_degree = std::max<Index>(g.max_degree, s.p[k + 1] - s.p[k]);
  }
  for (Index j : s.j) colcount[j] += 1;
  g.flops_aa = 0;
  for (Index k = 0; k < g.n; ++k) g.flops_aa += rowcount[k] * colcount[k];
  return A;
}

// Exact nnz(A*A) by a symbolic pass (a marker per column, per thread): costs about flops_aa steps.
Index symbolic_nnz_aa(const Matrix& A) {
  const snk::CsrStorage& s = A.csr();
  const Index slots = s.nslots();
  const Index n = A.ncols();
  Index total = 0;
#pragma omp parallel reduction(+ : total)
  {
    std::vector<Index> mark(n, ~Index(0));
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(slots); ++k) {
      for (Index e = s.p[k]; e < s.p[k + 1]; ++e) {
        Index mid = s.j[e], b = 0, end = 0;
        A.row_range(mid, b, end);
        for (Index f = b; f < end; ++f) {
          Index col = s.j[f];
          if (mark[col] != static_cast<Index>(k)) {
            mark[col] = static_cast<Index>(k);
            ++total;
          }
        }
      }
    }
  }
  return total;
}

Vector make_input_vector(Index n, std::uint64_t seed) {
  std::vector<Index> I(n);
  std::vector<double> X(n);
  for (Index i = 0; i < n; ++i) {
    I[i] = i;
    X[i] = bench::unit_interval_open_closed(bench::hash3(seed, 7, i));
  }
  Vector u(&snk::types::FP64, n);
  u.build(I.data(), X.data(), &snk::types::FP64, n, nullptr);
  u.wait();
  return u;
}

// ---- verification --------------------------------------------------------------------------------------

// Same pattern, values within `rel` relative (|x - y| <= rel * max(|x|, |y|)). On mismatch, `why` says where.
bool same_result(const Matrix& X, const Matrix& Y, double rel, std::string& why, double& max_rel_seen) {
  max_rel_seen = 0;
  if (X.nrows() != Y.nrows() || X.ncols() != Y.ncols()) {
    why = "dimensions differ";
    return false;
  }
  if (X.nvals() != Y.nvals()) {
    why = "nvals " + std::to_string(X.nvals()) + " vs " + std::to_string(Y.nvals());
    return false;
  }
  const snk::CsrStorage& sx = X.csr();
  const snk::CsrStorage& sy = Y.csr();
  const double* xv = reinterpret_cast<const double*>(sx.x.data());
  const double* yv = reinterpret_cast<const double*>(sy.x.data());
  for (Index i = 0; i < X.nrows(); ++i) {
    Index xb, xe, yb, ye;
    X.row_range(i, xb, xe);
    Y.row_range(i, yb, ye);
    if (xe - xb != ye - yb) {
      why = "row " + std::to_string(i) + " has " + std::to_string(xe - xb) + " vs " + std::to_string(ye - yb) +
            " entries";
      return false;
    }
    for (Index k = 0; k < xe - xb; ++k) {
      if (sx.j[xb + k] != sy.j[yb + k]) {
        why = "row " + std::to_string(i) + ": column " + std::to_string(sx.j[xb + k]) + " vs " +
              std::to_string(sy.j[yb + k]);
        return false;
      }
      double a = xv[xb + k], b = yv[yb + k];
      double scale = std::max(std::fabs(a), std::fabs(b));
      double d = std::fabs(a - b);
      if (scale > 0) max_rel_seen = std::max(max_rel_seen, d / scale);
      if (d > rel * scale) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "A(%llu,%llu): %.17g vs %.17g", static_cast<unsigned long long>(i),
                      static_cast<unsigned long long>(sx.j[xb + k]), a, b);
        why = buf;
        return false;
      }
    }
  }
  return true;
}

double value_sum(const Matrix& X) {
  const snk::CsrStorage& s = X.csr();
  const double* v = reinterpret_cast<const double*>(s.x.data());
  double sum = 0;
  for (Index k = 0; k < s.nvals(); ++k) sum += v[k];
  return sum;
}

// ---- timing --------------------------------------------------------------------------------------------

// One contender of a row: `run` computes the result (kept until `release`), timed; `release` is not.
struct Contender {
  Contender(std::string l, std::function<void()> r, std::function<void()> rel)
      : label(std::move(l)), run(std::move(r)), release(std::move(rel)) {}
  std::string label;
  std::function<void()> run, release;
  double warmup_ms = 0;
  std::vector<double> ms;
  double median() const {
    if (ms.empty()) return NAN;
    std::vector<double> v = ms;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  }
};

// Times one call; the result stays alive (for verification) until the contender's release().
double time_once(Contender& c) {
  c.release();
  auto t0 = Clock::now();
  c.run();
  return seconds_since(t0) * 1e3;
}

// Rounds of every contender in turn, until min_runs and the time target (or max_runs) are reached.
void measure(std::vector<Contender*>& cs, const Options& o) {
  double spent = 0;
  for (int r = 0; r < o.max_runs; ++r) {
    if (r >= o.min_runs && spent >= o.target_seconds * 1e3) break;
    for (Contender* c : cs) {
      double t = time_once(*c);
      c->release();   // one result alive at a time: A*A products are large
      c->ms.push_back(t);
      spent += t;
    }
  }
}

// ---- one row -------------------------------------------------------------------------------------------

struct Row {
  std::string op;
  int scale = 0;
  Index n = 0, nnz_a = 0, nnz_result = 0;
  double flops = 0;
  double ms_a = NAN, ms_b = NAN, ms_direct = NAN;
  int runs = 0;
  double max_rel_diff = 0;
  bool skipped = false, verified = false;
  std::string note;
  double ratio() const { return ms_a / ms_b; }
  double ratio_direct() const { return ms_a / ms_direct; }
};

// Output container of an operation: a Vector for mxv, else a Matrix.
struct Output {
  std::optional<Matrix> C;
  std::optional<Vector> w;
  void reset() {
    C.reset();
    w.reset();
  }
  const Matrix& matrix() const { return C ? *C : w->as_matrix(); }
};

void run_snack_op(const std::string& op, const std::string& backend, Output& out, const Matrix& A,
                  const Vector& u) {
  static const snk::Semiring* plus_times =
      snk::builtin_semiring(snk::BinaryOpcode::Plus, snk::BinaryOpcode::Times, snk::TypeCode::FP64);
  static const snk::BinaryOp* plus = snk::builtin_binary_op(snk::BinaryOpcode::Plus, snk::TypeCode::FP64);
  snk::BackendScope scope(backend);
  const Index n = A.nrows();
  if (op == "mxv") {
    out.w.emplace(&snk::types::FP64, n);
    snk::mxv(*out.w, nullptr, nullptr, *plus_times, A, u);
    out.w->wait();
  } else if (op == "mxm") {
    out.C.emplace(&snk::types::FP64, n, n);
    snk::mxm(*out.C, nullptr, nullptr, *plus_times, A, A);
    out.C->wait();
  } else if (op == "mxm_masked") {
    snk::Descriptor d;
    d.mask_structure = true;
    d.transpose_second = true;
    out.C.emplace(&snk::types::FP64, n, n);
    snk::mxm(*out.C, &A, nullptr, *plus_times, A, A, d);
    out.C->wait();
  } else if (op == "ewise_add") {
    snk::Descriptor d;
    d.transpose_second = true;
    out.C.emplace(&snk::types::FP64, n, n);
    snk::ewise_add(*out.C, nullptr, nullptr, *plus, A, A, d);
    out.C->wait();
  }
}

// Per-run time predicted from the previous scale (work ratio x slowest measured contender), or 0.
struct History {
  std::map<std::string, std::pair<double, double>> last;   // op -> (work, slowest median ms)
  std::map<std::string, int> last_scale;                     // op -> the scale of that measurement
  double aa_compression = 0;                                 // nnz(A*A) / flops(A*A) at the last exact count
};

double work_of(const std::string& op, const Graph& g) {
  return (op == "mxm" || op == "mxm_masked") ? g.flops_aa : static_cast<double>(g.nnz);
}

Row run_row(const std::string& op, const Graph& g, const Matrix& A, const Vector& u, const Options& o,
            History& history, std::optional<bench::SuiteSparseDirect>& direct) {
  Row row;
  row.op = op;
  row.scale = g.scale;
  row.n = g.n;
  row.nnz_a = g.nnz;
  row.flops = (op == "mxv" || op == "ewise_add") ? static_cast<double>(g.nnz) : g.flops_aa;

  // Guards: product size (A*A only) and predicted time.
  if (op == "mxm") {
    // nnz(A*A): exact by a symbolic pass when that is affordable; otherwise extrapolated with the previous
    // scale's nnz/flops (or bounded by min(flops, n^2)) and not run when even that is far over the limit.
    double estimate = std::min(g.flops_aa, static_cast<double>(g.n) * static_cast<double>(g.n));
    const char* how = "<=";
    if (history.aa_compression > 0) {
      estimate = std::min(estimate, g.flops_aa * history.aa_compression);
      how = "~";
    }
    const double symbolic_cap = 2e10;
    Index nnz = static_cast<Index>(estimate);
    const bool clearly_too_big = history.aa_compression > 0 && estimate * 16 / 1e9 > 1.25 * o.max_product_gb;
    if (g.flops_aa <= symbolic_cap && !clearly_too_big) {
      auto t0 = Clock::now();
      nnz = symbolic_nnz_aa(A);
      how = "=";
      history.aa_compression = static_cast<double>(nnz) / g.flops_aa;
      std::printf("  mxm: flops %.3g, nnz(A*A) %s (symbolic pass %.1f s)\n", g.flops_aa, with_commas(nnz).c_str(),
                  seconds_since(t0));
    }
    double gb = static_cast<double>(nnz) * 16 / 1e9;   // column index + FP64 value per entry
    // Peak: during verification the first backend's result stays alive while the reference backend holds
    // SuiteSparse's result and its copy of it: three products (about 16 GB seen for 5.7 GB at scale 16).
    double peak_gb = 3 * gb;
    double avail = mem_available_gb() * 1.073741824;
    if (gb > o.max_product_gb || peak_gb > 0.8 * avail) {
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "skipped: nnz(A*A) %s %s (%.2g flops) would take %.1f GB, about %.0f GB at peak (limits: %.1f GB "
                    "for the product, 80%% of the %.1f GB free)",
                    how, with_commas(nnz).c_str(), g.flops_aa, gb, peak_gb, o.max_product_gb, avail);
      row.skipped = true;
      row.nnz_result = nnz;
      row.note = buf;
      return row;
    }
  }
  auto h = history.last.find(op);
  bool time_direct = direct.has_value();
  if (h != history.last.end() && h->second.first > 0) {
    double predicted_s = h->second.second * (work_of(op, g) / h->second.first) / 1e3;
    if (time_direct && predicted_s > o.direct_max_seconds) {
      time_direct = false;
      char buf[160];
      std::snprintf(buf, sizeof buf, "SuiteSparse direct not timed (one run predicted to take %.0f s > %.0f s)",
                    predicted_s, o.direct_max_seconds);
      row.note = buf;
    }
    if (predicted_s > o.max_seconds) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "skipped: one run predicted to take %.0f s (> %.0f s) from scale %d", predicted_s,
                    o.max_seconds, history.last_scale[op]);
      row.skipped = true;
      row.note = buf;
      return row;
    }
  }

  Output out_a, out_b;
  Contender ca{o.backend_a, [&] { run_snack_op(op, o.backend_a, out_a, A, u); }, [&] { out_a.reset(); }};
  Contender cb{o.backend_b, [&] { run_snack_op(op, o.backend_b, out_b, A, u); }, [&] { out_b.reset(); }};
  Contender cd{"suitesparse-direct",
               [&] {
                 if (op == "mxv") direct->mxv();
                 else if (op == "mxm") direct->mxm();
                 else if (op == "mxm_masked") direct->mxm_masked();
                 else direct->ewise_add();
               },
               [&] { direct->release(); }};

  // Warm-up (one call each) doubles as the verification run.
  ca.warmup_ms = time_once(ca);
  cb.warmup_ms = time_once(cb);
  std::string why;
  row.verified = same_result(out_a.matrix(), out_b.matrix(), 1e-12, why, row.max_rel_diff);
  row.nnz_result = out_b.matrix().nvals();
  if (!row.verified) {
    row.note = "RESULTS DIFFER (" + o.backend_a + " vs " + o.backend_b + "): " + why + (row.note.empty() ? "" : "; " + row.note);
    std::printf("  %s: %s\n", op.c_str(), row.note.c_str());
  }
  const double sum_b = value_sum(out_b.matrix());
  ca.release();
  cb.release();
  std::vector<Contender*> cs{&ca, &cb};
  if (time_direct) {
    cd.warmup_ms = time_once(cd);
    const double sum_d = direct->result_sum();
    if (direct->result_nvals() != row.nnz_result ||
        std::fabs(sum_b - sum_d) > 1e-9 * std::max(std::fabs(sum_b), std::fabs(sum_d))) {
      std::string msg = "direct SuiteSparse result differs (nvals " + std::to_string(direct->result_nvals()) +
                        ", sum " + std::to_string(sum_d) + " vs " + std::to_string(sum_b) + ")";
      row.note += (row.note.empty() ? "" : "; ") + msg;
      std::printf("  %s: %s\n", op.c_str(), msg.c_str());
    }
    cd.release();
    cs.push_back(&cd);
  }
  measure(cs, o);
  row.ms_a = ca.median();
  row.ms_b = cb.median();
  if (time_direct) row.ms_direct = cd.median();
  row.runs = static_cast<int>(ca.ms.size());
  double slowest = std::max(row.ms_a, row.ms_b);
  if (time_direct) slowest = std::max(slowest, row.ms_direct);
  history.last[op] = {work_of(op, g), slowest};
  history.last_scale[op] = g.scale;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  // Backends: fall back to reference vs reference (with a loud note) when kokkos is not compiled in.
  std::vector<std::string> available = snk::available_backends();
  auto has = [&](const std::string& b) { return std::find(available.begin(), available.end(), b) != available.end(); };
  std::string backend_note;
  for (std::string* b : {&o.backend_a, &o.backend_b})
    if (!has(*b)) {
      backend_note += "backend '" + *b + "' is not available in this build; ran 'reference' in its place. ";
      *b = "reference";
    }
  if (!backend_note.empty()) std::printf("NOTE: %s\n", backend_note.c_str());
  snk::reset_fallback_counts();

  const char* omp_env = std::getenv("OMP_NUM_THREADS");
  const long nproc = sysconf(_SC_NPROCESSORS_ONLN);
  const int omp_max = omp_get_max_threads();
  const int ss_threads = bench::SuiteSparseDirect::threads();
  const std::string date = utc_now(), cpu = cpu_model(), load_start = load_average();
  std::string runtime_head = command_line_output("git -C " SNACK_SOURCE_DIR " rev-parse --short HEAD 2>/dev/null");
  std::string dirty = command_line_output("git -C " SNACK_SOURCE_DIR
                                          " status --porcelain -- src include backends/kokkos backends/reference "
                                          "2>/dev/null | wc -l");
  std::string avail_list;
  for (auto& b : available) avail_list += (avail_list.empty() ? "" : ", ") + b;

  std::printf("bench-cpu-graph-ops: %s vs %s%s\n", o.backend_a.c_str(), o.backend_b.c_str(),
              o.direct ? " (+ SuiteSparse direct)" : "");
  std::printf("device: %s, %ld cores online; OMP_NUM_THREADS=%s, omp_get_max_threads()=%d, SuiteSparse "
              "GxB_NTHREADS=%d\n",
              cpu.c_str(), nproc, omp_env ? omp_env : "(unset)", omp_max, ss_threads);
  std::printf("date %s, commit %s (built) / %s (tree, %s modified library paths), load average %s\n", date.c_str(),
              SNACK_GIT_COMMIT, runtime_head.c_str(), dirty.c_str(), load_start.c_str());

  std::vector<Row> rows;
  History history;
  for (int scale : o.scales) {
    bench::RmatParameters p;
    p.scale = scale;
    p.seed = o.seed;
    Graph g;
    Matrix A = make_adjacency(p, g);
    Vector u = make_input_vector(g.n, o.seed);
    std::printf("scale %d: n %s, %s edges drawn, %s self-loops dropped, nnz(A) %s (symmetric), max degree %llu, "
                "flops(A*A) %.3g; generate %.1f s, build %.1f s\n",
                scale, with_commas(g.n).c_str(), with_commas(g.generated).c_str(), with_commas(g.self_loops).c_str(),
                with_commas(g.nnz).c_str(), static_cast<unsigned long long>(g.max_degree), g.flops_aa,
                g.generate_seconds, g.build_seconds);
    if (o.stats_only) {
      if (g.flops_aa <= 3e9) {
        auto t0 = Clock::now();
        Index nnz = symbolic_nnz_aa(A);
        std::printf("  nnz(A*A) %s = %.1f GB as CSR (symbolic pass %.1f s)\n", with_commas(nnz).c_str(),
                    static_cast<double>(nnz) * 16 / 1e9, seconds_since(t0));
      }
      continue;
    }
    std::optional<bench::SuiteSparseDirect> direct;
    if (o.direct) direct.emplace(A, u);
    for (const std::string& op : o.ops) {
      Row r = run_row(op, g, A, u, o, history, direct);
      rows.push_back(r);
      if (r.skipped) {
        std::printf("  %-10s scale %d: %s\n", op.c_str(), scale, r.note.c_str());
      } else {
        std::printf("  %-10s scale %d: nnz(result) %s, %s %s ms, %s %s ms, direct %s ms, ratio %.2f (%d runs)%s\n",
                    op.c_str(), scale, with_commas(r.nnz_result).c_str(), o.backend_a.c_str(), fmt(r.ms_a).c_str(),
                    o.backend_b.c_str(), fmt(r.ms_b).c_str(), fmt(r.ms_direct).c_str(), r.ratio(), r.runs,
                    r.verified ? "" : "  ** NOT VERIFIED **");
      }
    }
  }
  if (o.stats_only) return 0;
  const std::string load_end = load_average();
  const std::uint64_t fallbacks = snk::fallback_total("kokkos");
  std::map<std::string, std::uint64_t> fallback_by_op = snk::fallback_counts("kokkos");
  std::printf("kokkos fallback total after all runs: %llu\n", static_cast<unsigned long long>(fallbacks));
  std::printf("load average at end: %s\n", load_end.c_str());

  if (!o.csv_path.empty()) {
    std::ofstream csv(o.csv_path);
    csv << "op,scale,n,nnz_a,nnz_result,flops,ms_" << o.backend_a << ",ms_" << o.backend_b
        << ",ms_suitesparse_direct,ratio,ratio_direct,runs,verified,skipped,note\n";
    for (const Row& r : rows) {
      csv << r.op << ',' << r.scale << ',' << r.n << ',' << r.nnz_a << ',' << r.nnz_result << ',' << r.flops << ','
          << r.ms_a << ',' << r.ms_b << ',' << r.ms_direct << ',' << r.ratio() << ',' << r.ratio_direct() << ','
          << r.runs << ',' << (r.verified ? 1 : 0) << ',' << (r.skipped ? 1 : 0) << ",\"" << r.note << "\"\n";
    }
  }

  std::ostringstream md;
  md << "# CPU graph operations: kokkos vs SuiteSparse (reference backend) on R-MAT graphs\n\n";
  md << "Produced by `bench-cpu-graph-ops` (bench/cpu/). ";
  md << "Timed: **" << o.backend_a << "** against **" << o.backend_b << "** through snack's C++ API";
  if (o.direct) md << ", plus SuiteSparse:GraphBLAS called directly on its own copies of the inputs";
  md << ".\n\n";
  if (!backend_note.empty()) md << "**NOTE:** " << backend_note << "\n\n";
  md << "- Device: " << cpu << ", " << nproc << " cores online; OMP_NUM_THREADS="
     << (omp_env ? omp_env : "(unset)") << ", omp_get_max_threads() = " << omp_max
     << " (Kokkos' OpenMP space starts with this many threads), SuiteSparse GxB_NTHREADS = " << ss_threads
     << (ss_threads <= 0 ? " (automatic)" : "") << "\n";
  md << "- Date: " << date << "; commit " << SNACK_GIT_COMMIT << " (configured)";
  if (!runtime_head.empty()) md << ", tree at " << runtime_head << " with " << dirty << " modified/untracked library paths";
  md << "\n- Load average (1, 5, 15 min) at start: " << load_start << "; at end: " << load_end << "\n";
  md << "- Graphs: Graph500 R-MAT, a=.57 b=.19 c=.19 d=.05, edge factor 16, seed " << o.seed
     << ", vertex labels randomly permuted, self-loops dropped, duplicate edges merged, symmetrized (each edge "
        "stored as (u,v) and (v,u)); values FP64 in (0,1], hashed from the vertex pair (so A = A' exactly)\n";
  md << "- Operations (FP64): `mxv` w = A u (PLUS_TIMES, u full, values in (0,1]); `mxm` C = A A (PLUS_TIMES); "
        "`mxm_masked` C<A, structural> = A A' (PLUS_TIMES, A' by the descriptor; the triangle-counting kernel); "
        "`ewise_add` C = A + A' (PLUS, A' by the descriptor)\n";
  md << "- Verified before timing: " << o.backend_a << " and " << o.backend_b
     << " results have identical patterns and values within 1e-12 relative; the direct SuiteSparse result has the "
        "same nvals and value sum\n";
  md << "- Timing: wall clock of the call (fresh output, finished with wait), one warm-up call each, then rounds "
        "running every contender in turn; median of at least "
     << o.min_runs << " runs (more for fast operations, up to " << o.max_runs << " or about " << o.target_seconds
     << " s of timed work per row)\n\n";
  md << "| operation | scale | n | nnz(A) | nnz(result) | " << o.backend_a << " ms | SuiteSparse (" << o.backend_b
     << ") ms | ratio " << o.backend_a << "/SuiteSparse | within 2x? | SuiteSparse direct ms | ratio vs direct | runs |\n";
  md << "|---|---:|---:|---:|---:|---:|---:|---:|:---:|---:|---:|---:|\n";
  for (const Row& r : rows) {
    md << "| " << r.op << " | " << r.scale << " | " << with_commas(r.n) << " | " << with_commas(r.nnz_a) << " | ";
    if (r.skipped) {
      md << (r.nnz_result ? with_commas(r.nnz_result) : std::string("-")) << " | - | - | - | skipped | - | - | - |\n";
      continue;
    }
    md << with_commas(r.nnz_result) << " | " << fmt(r.ms_a) << " | " << fmt(r.ms_b) << " | " << fmt(r.ratio())
       << " | " << (r.verified ? (r.ratio() <= 2.0 ? "yes" : "**no**") : "NOT VERIFIED") << " | " << fmt(r.ms_direct)
       << " | " << fmt(r.ratio_direct()) << " | " << r.runs << " |\n";
  }
  md << "\n";
  bool any_note = false;
  for (const Row& r : rows)
    if (!r.note.empty()) {
      if (!any_note) md << "Notes:\n";
      any_note = true;
      md << "- " << r.op << " at scale " << r.scale << ": " << r.note << "\n";
    }
  if (any_note) md << "\n";
  md << "kokkos fallback count after all runs (`snk::fallback_total(\"kokkos\")`): **" << fallbacks << "**";
  if (!fallback_by_op.empty()) {
    md << " (";
    bool first = true;
    for (auto& [name, count] : fallback_by_op) {
      md << (first ? "" : ", ") << name << " " << count;
      first = false;
    }
    md << ")";
  }
  md << "\n";
  std::cout << "\n" << md.str();
  if (!o.markdown_path.empty()) {
    std::ofstream out(o.markdown_path);
    out << md.str();
  }
  bool ok = true;
  for (const Row& r : rows) ok = ok && (r.skipped || r.verified);
  return ok ? 0 : 1;
}
