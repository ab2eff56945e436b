// bench/graph/graph_bench.cpp: the driver of `bench-graph`: classic graph algorithms (algorithms.c, plain
// GraphBLAS C calls) run through snack's C API on one backend and through SuiteSparse:GraphBLAS called
// directly, side by side in one process, on Graph500 R-MAT graphs.
//
// Per scale it generates the graph once (bench/cpu/rmat.hpp: edge factor 16, symmetric, no self-loops),
// removes duplicate edges, builds A (FP64 ones) in both libraries, then per algorithm: one warm-up call on
// each side, --repeat timed rounds (each round runs snack, then SuiteSparse), the median wall time of each;
// then both results are fetched and compared: BFS levels identical; parents identical in depth and each a
// valid BFS tree (parent on the previous level, joined by an edge); PageRank ranks scaled by n (mean 1)
// within 1e-9; equal triangle counts; component labels forming the same partition; SpGEMM with equal
// patterns and values within 1e-9 relative. snack's fallbacks (calls its backend declined) are counted on
// the warm-up call. An A*A whose result would not fit --max-spgemm-gb (or 80% of the free memory), or that
// takes over 1e10 multiply-adds, is skipped. Output: a table on stdout (ratio = SuiteSparse ms / snack ms,
// > 1 when snack is faster) and, with --csv, the same rows for plot.py.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../cpu/rmat.hpp"
#include "side.h"

#include "bench_commit.h"   // SNACK_GIT_COMMIT (bench/commit.cmake)

extern "C" void graph_result_free(graph_result* r) {
  std::free(r->ivec);
  std::free(r->dvec);
  std::free(r->ci);
  std::free(r->cj);
  std::free(r->cx);
  *r = graph_result{};
}

namespace {

const char* const kAlgorithmNames[GRAPH_ALGORITHM_COUNT] = {"bfs_levels", "bfs_parents", "pagerank",
                                                            "triangles",  "components",  "spgemm"};

struct Side {
  const char* name;
  int (*init)();
  int (*load)(uint64_t, uint64_t, const uint64_t*, const uint64_t*);
  int (*run)(graph_algorithm, uint64_t);
  int (*fetch)(graph_algorithm, graph_result*);
  void (*release)();
};
const Side kSnack{"snack", snack_init, snack_load, snack_run, snack_fetch, snack_release};
const Side kSuiteSparse{"SuiteSparse", suitesparse_init, suitesparse_load, suitesparse_run, suitesparse_fetch,
                        suitesparse_release};

struct Options {
  std::vector<int> scales{18, 19, 20, 21, 22};
  std::vector<graph_algorithm> algorithms;
  std::string backend;            // empty: $SNACK_BACKEND's choice
  int repeat = 3;
  long long source = -1;          // -1: the vertex of largest degree
  double max_spgemm_gb = 16;
  std::uint64_t seed = 20260;
  std::string csv;
};

[[noreturn]] void usage(const std::string& why) {
  if (!why.empty()) std::fprintf(stderr, "bench-graph: %s\n", why.c_str());
  std::fprintf(stderr,
               "usage: bench-graph [--scales 18-22 | 12,13,14] [--backend NAME] [--repeat N] [--csv FILE]\n"
               "         [--source-vertex V] [--max-spgemm-gb GB] [--seed N]\n"
               "         [--algorithms bfs_levels,bfs_parents,pagerank,triangles,components,spgemm]\n");
  std::exit(why.empty() ? 0 : 2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int k = 0; k < GRAPH_ALGORITHM_COUNT; ++k) o.algorithms.push_back(graph_algorithm(k));
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") usage("");
    if (i + 1 >= argc) usage("missing value after " + a);
    std::string v = argv[++i];
    if (a == "--scales") {
      o.scales.clear();
      for (const std::string& part : split(v)) {
        auto dash = part.find('-');
        int lo = std::atoi(part.c_str()), hi = dash == std::string::npos ? lo : std::atoi(part.c_str() + dash + 1);
        for (int s = lo; s <= hi; ++s) o.scales.push_back(s);
      }
      for (int s : o.scales)
        if (s < 1 || s > 26) usage("scales lie in 1..26");
    } else if (a == "--algorithms") {
      o.algorithms.clear();
      for (const std::string& name : split(v)) {
        auto it = std::find(std::begin(kAlgorithmNames), std::end(kAlgorithmNames), name);
        if (it == std::end(kAlgorithmNames)) usage("unknown algorithm " + name);
        o.algorithms.push_back(graph_algorithm(it - std::begin(kAlgorithmNames)));
      }
    } else if (a == "--backend") o.backend = v;
    else if (a == "--repeat") o.repeat = std::max(1, std::atoi(v.c_str()));
    else if (a == "--source-vertex") o.source = std::atoll(v.c_str());
    else if (a == "--max-spgemm-gb") o.max_spgemm_gb = std::atof(v.c_str());
    else if (a == "--seed") o.seed = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "--csv") o.csv = v;
    else usage("unknown option " + a);
  }
  return o;
}

// ---- machine facts ------------------------------------------------------------------------------------

std::string first_line_of(const std::string& command) {
  std::string out;
  if (FILE* f = popen(command.c_str(), "r")) {
    char buf[512];
    if (std::fgets(buf, sizeof buf, f)) out = buf;
    pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

double mem_available_gb() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kb = 0;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb / (1024.0 * 1024.0);
  return 4;
}

// ---- the graph ----------------------------------------------------------------------------------------

// A without duplicates, as row-major sorted pairs (key = row << scale | col, for edge look-ups).
struct Graph {
  int scale = 0;
  std::uint64_t n = 0;
  std::vector<std::uint64_t> keys, rows, cols, degree;
  bool has_edge(std::uint64_t u, std::uint64_t v) const {
    return std::binary_search(keys.begin(), keys.end(), (u << scale) | v);
  }
};

Graph make_graph(int scale, std::uint64_t seed) {
  bench::RmatParameters p;
  p.scale = scale;
  p.edge_factor = 16;
  p.seed = seed;
  bench::EdgeList e = bench::generate_rmat(p);
  Graph g;
  g.scale = scale;
  g.n = e.n;
  g.keys.resize(e.rows.size());
  for (std::size_t k = 0; k < e.rows.size(); ++k) g.keys[k] = (e.rows[k] << scale) | e.cols[k];
  e = bench::EdgeList{};
  std::sort(g.keys.begin(), g.keys.end());
  g.keys.erase(std::unique(g.keys.begin(), g.keys.end()), g.keys.end());
  g.rows.resize(g.keys.size());
  g.cols.resize(g.keys.size());
  g.degree.assign(g.n, 0);
  const std::uint64_t low = (std::uint64_t{1} << scale) - 1;
  for (std::size_t k = 0; k < g.keys.size(); ++k) {
    g.rows[k] = g.keys[k] >> scale;
    g.cols[k] = g.keys[k] & low;
    ++g.degree[g.rows[k]];
  }
  return g;
}

// nnz(A*A) by a symbolic pass over the sorted pairs (a marker per column per thread; about
// sum(degree^2) steps).
std::uint64_t nnz_of_square(const Graph& g) {
  std::vector<std::uint64_t> start(g.n + 1, 0);
  for (std::uint64_t r : g.rows) ++start[r + 1];
  for (std::uint64_t v = 0; v < g.n; ++v) start[v + 1] += start[v];
  std::uint64_t total = 0;
#pragma omp parallel reduction(+ : total)
  {
    std::vector<std::int64_t> mark(g.n, -1);
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(g.n); ++i)
      for (std::uint64_t e = start[i]; e < start[i + 1]; ++e)
        for (std::uint64_t f = start[g.cols[e]]; f < start[g.cols[e] + 1]; ++f)
          if (mark[g.cols[f]] != i) {
            mark[g.cols[f]] = i;
            ++total;
          }
  }
  return total;
}

// ---- checks: "" when the two results agree, else what differs ----------------------------------------

std::string check(graph_algorithm algorithm, const Graph& g, std::uint64_t source, const graph_result& a,
                  const graph_result& b, const std::vector<std::int64_t>& levels) {
  char why[256] = "";
  const std::uint64_t n = g.n;
  switch (algorithm) {
    case GRAPH_BFS_LEVELS:
      for (std::uint64_t v = 0; v < n && !*why; ++v)
        if (a.ivec[v] != b.ivec[v])
          std::snprintf(why, sizeof why, "level of %llu: %lld vs %lld", (unsigned long long)v, (long long)a.ivec[v],
                        (long long)b.ivec[v]);
      break;
    case GRAPH_BFS_PARENTS:
      for (const graph_result* r : {&a, &b})
        for (std::uint64_t v = 0; v < n && !*why; ++v) {
          std::int64_t p = r->ivec[v];
          bool ok = v == source ? p == std::int64_t(v)
                    : levels[v] < 0 ? p == -1
                                    : p >= 0 && levels[p] == levels[v] - 1 && g.has_edge(std::uint64_t(p), v);
          if (!ok)
            std::snprintf(why, sizeof why, "%s: parent of %llu (level %lld) is %lld", r == &a ? "snack" : "SuiteSparse",
                          (unsigned long long)v, (long long)levels[v], (long long)p);
        }
      break;
    case GRAPH_PAGERANK: {
      double worst = 0;
      for (std::uint64_t v = 0; v < n; ++v) {
        double d = std::fabs(a.dvec[v] - b.dvec[v]) * double(n);
        worst = std::isnan(d) || std::isnan(worst) ? NAN : std::max(worst, d);   // a missing rank is NaN
      }
      if (!(worst < 1e-9)) std::snprintf(why, sizeof why, "max |rank difference| * n = %g", worst);
      break;
    }
    case GRAPH_TRIANGLES:
      if (a.count != b.count)
        std::snprintf(why, sizeof why, "%llu vs %llu triangles", (unsigned long long)a.count,
                      (unsigned long long)b.count);
      break;
    case GRAPH_COMPONENTS: {
      // Same partition: the label maps a -> b and b -> a are both functions.
      std::vector<std::int64_t> ab(n, -1), ba(n, -1);
      for (std::uint64_t v = 0; v < n && !*why; ++v) {
        std::int64_t x = a.ivec[v], y = b.ivec[v];
        if (x < 0 || y < 0 || std::uint64_t(x) >= n || std::uint64_t(y) >= n ||
            (ab[x] >= 0 && ab[x] != y) || (ba[y] >= 0 && ba[y] != x))
          std::snprintf(why, sizeof why, "vertex %llu: labels %lld, %lld differ from the partition",
                        (unsigned long long)v, (long long)x, (long long)y);
        else
          ab[x] = y, ba[y] = x;
      }
      break;
    }
    case GRAPH_SPGEMM: {
      if (a.count != b.count) {
        std::snprintf(why, sizeof why, "nvals %llu vs %llu", (unsigned long long)a.count, (unsigned long long)b.count);
        break;
      }
      // Visit both in row-major order (each library's order is its own).
      auto order = [&](const graph_result& r) {
        std::vector<std::uint64_t> p(r.count);
        for (std::uint64_t k = 0; k < r.count; ++k) p[k] = k;
        auto less = [&](std::uint64_t x, std::uint64_t y) {
          return r.ci[x] != r.ci[y] ? r.ci[x] < r.ci[y] : r.cj[x] < r.cj[y];
        };
        if (!std::is_sorted(p.begin(), p.end(), less)) std::sort(p.begin(), p.end(), less);
        return p;
      };
      std::vector<std::uint64_t> pa = order(a), pb = order(b);
      for (std::uint64_t k = 0; k < a.count && !*why; ++k) {
        std::uint64_t x = pa[k], y = pb[k];
        double scale = std::max(std::fabs(a.cx[x]), std::fabs(b.cx[y]));
        if (a.ci[x] != b.ci[y] || a.cj[x] != b.cj[y] || !(std::fabs(a.cx[x] - b.cx[y]) <= 1e-9 * scale))
          std::snprintf(why, sizeof why, "entry %llu: (%llu,%llu)=%g vs (%llu,%llu)=%g", (unsigned long long)k,
                        (unsigned long long)a.ci[x], (unsigned long long)a.cj[x], a.cx[x],
                        (unsigned long long)b.ci[y], (unsigned long long)b.cj[y], b.cx[y]);
      }
      break;
    }
    default:
      break;
  }
  return why;
}

// ---- timing -------------------------------------------------------------------------------------------

double run_ms(const Side& side, graph_algorithm algorithm, std::uint64_t source) {
  auto t0 = std::chrono::steady_clock::now();
  int info = side.run(algorithm, source);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (info != 0) {
    std::fprintf(stderr, "bench-graph: %s %s failed: GrB_Info %d\n", side.name, kAlgorithmNames[algorithm], info);
    std::exit(1);
  }
  return ms;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

void must(int info, const char* what) {
  if (info != 0) {
    std::fprintf(stderr, "bench-graph: %s failed: GrB_Info %d\n", what, info);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  must(snack_init(), "snack GrB_init");
  char backend[64] = "";
  if (snack_backend_select(o.backend.empty() ? nullptr : o.backend.c_str(), backend, sizeof backend) != 0) {
    std::fprintf(stderr, "bench-graph: unknown snack backend '%s'\n", o.backend.c_str());
    return 2;
  }
  must(suitesparse_init(), "SuiteSparse GrB_init");

  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::string device = "CPU " + cpu_model();
  if (std::string(backend) == "cuda") {
    std::string gpu = first_line_of("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null");
    if (!gpu.empty()) device = "GPU " + gpu + " (host " + cpu_model() + ")";
  }
  std::printf("# bench-graph: snack (backend %s) vs SuiteSparse:GraphBLAS called directly\n", backend);
  std::printf("# device: %s\n# date: %s, commit %s\n", device.c_str(), date, SNACK_GIT_COMMIT);
  std::printf("# threads: omp_get_max_threads() = %d (SuiteSparse's default)\n", omp_get_max_threads());
  std::printf("# graphs: Graph500 R-MAT, edge factor 16, seed %llu, symmetric, no self-loops, duplicates removed, "
              "values 1.0; edges = undirected edges = nvals(A) / 2\n", (unsigned long long)o.seed);
  std::printf("# time: median of %d runs after one warm-up; ratio = SuiteSparse ms / snack ms (> 1: snack faster); "
              "fallbacks = calls of one run that snack's backend declined (by operation after the row)\n", o.repeat);
  std::printf("%5s %9s %11s  %-11s %-9s %11s %13s %8s  %-5s %9s\n", "scale", "n", "edges", "algorithm",
              "backend", "snack ms", "SuiteSparse ms", "ratio", "check", "fallbacks");
  std::FILE* csv = o.csv.empty() ? nullptr : std::fopen(o.csv.c_str(), "w");
  if (!o.csv.empty() && !csv) usage("cannot write " + o.csv);
  if (csv) std::fprintf(csv, "scale,n,edges,algorithm,backend,snack_ms,suitesparse_ms,ratio,check,fallbacks\n");

  bool all_pass = true;
  for (int scale : o.scales) {
    Graph g = make_graph(scale, o.seed);
    const std::uint64_t edges = g.keys.size() / 2;
    std::uint64_t source = o.source >= 0 ? std::uint64_t(o.source)
                                         : std::uint64_t(std::max_element(g.degree.begin(), g.degree.end()) -
                                                         g.degree.begin());
    if (source >= g.n) usage("--source-vertex lies outside the graph");
    std::printf("# scale %d: n %llu, nvals(A) %zu, BFS source %llu (degree %llu)\n", scale, (unsigned long long)g.n,
                g.keys.size(), (unsigned long long)source, (unsigned long long)g.degree[source]);
    must(snack_load(g.n, g.keys.size(), g.rows.data(), g.cols.data()), "snack build of A");
    must(suitesparse_load(g.n, g.keys.size(), g.rows.data(), g.cols.data()), "SuiteSparse build of A");
    std::vector<std::int64_t> levels;   // SuiteSparse's BFS levels, for the parent check
    for (graph_algorithm algorithm : o.algorithms) {
      const char* name = kAlgorithmNames[algorithm];
      if (algorithm == GRAPH_SPGEMM) {
        // The product lives in both libraries and is fetched from both: about 80 bytes per entry. Its exact
        // size is counted only where the multiply-adds (sum of degree^2) are few enough to count them.
        double flops = 0;
        for (std::uint64_t d : g.degree) flops += double(d) * double(d);
        double limit = std::min(o.max_spgemm_gb, 0.8 * mem_available_gb());
        double gb = flops > 1e10 ? NAN : 80.0 * double(nnz_of_square(g)) / 1e9;
        if (!(gb <= limit)) {
          char why[128];
          if (std::isnan(gb)) std::snprintf(why, sizeof why, "%.1e multiply-adds > 1e10", flops);
          else std::snprintf(why, sizeof why, "needs ~%.1f GB > %.1f GB (--max-spgemm-gb)", gb, limit);
          std::printf("%5d %9llu %11llu  %-11s %-9s %11s %13s %8s  %-5s %9s   %s\n", scale, (unsigned long long)g.n,
                      (unsigned long long)edges, name, backend, "-", "-", "-", "skip", "-", why);
          std::fflush(stdout);
          if (csv)
            std::fprintf(csv, "%d,%llu,%llu,%s,%s,,,,skip,\n", scale, (unsigned long long)g.n,
                         (unsigned long long)edges, name, backend);
          continue;
        }
      }
      snack_fallbacks_reset();
      run_ms(kSnack, algorithm, source);
      char fallback_detail[160];
      std::uint64_t fallbacks = snack_fallbacks(backend, fallback_detail, sizeof fallback_detail);
      run_ms(kSuiteSparse, algorithm, source);
      std::vector<double> snack_ms, suitesparse_ms;
      for (int r = 0; r < o.repeat; ++r) {
        snack_ms.push_back(run_ms(kSnack, algorithm, source));
        suitesparse_ms.push_back(run_ms(kSuiteSparse, algorithm, source));
      }
      graph_result a{}, b{};
      must(snack_fetch(algorithm, &a), "snack fetch");
      must(suitesparse_fetch(algorithm, &b), "SuiteSparse fetch");
      if (algorithm == GRAPH_BFS_LEVELS) levels.assign(b.ivec, b.ivec + g.n);
      if (algorithm == GRAPH_BFS_PARENTS && levels.empty()) {   // levels not asked for: compute them here
        graph_result l{};
        must(suitesparse_run(GRAPH_BFS_LEVELS, source), "SuiteSparse BFS levels");
        must(suitesparse_fetch(GRAPH_BFS_LEVELS, &l), "SuiteSparse fetch");
        levels.assign(l.ivec, l.ivec + g.n);
        graph_result_free(&l);
      }
      std::string why = check(algorithm, g, source, a, b, levels);
      graph_result_free(&a);
      graph_result_free(&b);
      double ms_a = median(snack_ms), ms_b = median(suitesparse_ms), ratio = ms_b / ms_a;
      all_pass = all_pass && why.empty();
      std::string note = why.empty() ? fallback_detail : why;
      std::printf("%5d %9llu %11llu  %-11s %-9s %11.2f %13.2f %8.3f  %-5s %9llu%s%s\n", scale, (unsigned long long)g.n,
                  (unsigned long long)edges, name, backend, ms_a, ms_b, ratio, why.empty() ? "PASS" : "FAIL",
                  (unsigned long long)fallbacks, note.empty() ? "" : "   ", note.c_str());
      std::fflush(stdout);
      if (csv)
        std::fprintf(csv, "%d,%llu,%llu,%s,%s,%.4f,%.4f,%.5f,%s,%llu\n", scale, (unsigned long long)g.n,
                     (unsigned long long)edges, name, backend, ms_a, ms_b, ratio, why.empty() ? "PASS" : "FAIL",
                     (unsigned long long)fallbacks);
      if (csv) std::fflush(csv);   // rows survive a run cut short
    }
    snack_release();
    suitesparse_release();
  }
  if (csv) std::fclose(csv);
  return all_pass ? 0 : 1;
}
