// tests/graphchallenge/test_embedded.cpp: the embedded mode's host side (engine/embedded.hpp) without a GPU: float
// literals that read back bitwise; the generated source, deterministic, checked for bad arguments, and run by a small
// interpreter of its statements against the table-driven kernel's arithmetic written out here (tiles of a RadiX layer,
// the same with distinct weights, slices of its classes, an irregular layer with edge-case weights); NVRTC, in its
// compiler process, compiles to ELF cubins, a failing compile with its log, the disk cache (hits, misses, corrupt
// files, an unwritable directory), the deadline (a compile with a cache left running, one without stopped), the
// compiler process's priority (the program's while waited for, the lowest once left running), the wait for
// background compiles, a program's exit that does not wait for them, one compile of a kernel across processes, and a
// missing compiler program. Needs the CUDA toolkit (NVRTC), not a GPU.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/embedded.hpp"
#include "io/generator.hpp"
#include "plan/tiles.hpp"

namespace snk::gc {
namespace {

namespace fs = std::filesystem;

// One tile per column class, whole: the tiles the table-driven kernel computes for classes of at most 32 columns.
LayerTiles class_tiles(const TiledLayer& t) { return layer_tiles(t, 1 << 30); }

const TiledNetwork& radix_network() {
  static const TiledNetwork net = tile_network(generate_network(1024, 2, 7), 1);
  return net;
}

// A square layer without structure: random rows, a few repeated (two-member row classes), random values, and some
// weights that test the literals: zeros of both signs, a subnormal, the largest float.
TiledNetwork irregular_network() {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<float> v(-1.0f, 1.0f);
  std::bernoulli_distribution on(0.08);
  const int64_t n = 160;
  Network net;
  net.neurons = n;
  net.bias = -0.3f;
  for (int layer = 0; layer < 2; ++layer) {
    CsrMatrix w;
    w.nrows = w.ncols = n;
    for (int64_t i = 0; i < n; ++i) {
      if (i % 7 == 6) {   // a copy of the previous row's columns
        const int64_t p0 = w.row_ptr[i - 1], p1 = w.row_ptr[i];
        for (int64_t k = p0; k < p1; ++k) {
          w.col.push_back(w.col[k]);
          w.val.push_back(v(rng));
        }
      } else {
        for (int32_t j = 0; j < n; ++j)
          if (on(rng)) {
            w.col.push_back(j);
            w.val.push_back(v(rng));
          }
      }
      w.row_ptr.push_back(static_cast<int64_t>(w.col.size()));
    }
    const float edge[] = {0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::max()};
    for (size_t k = 0; k < 5 && k < w.val.size(); ++k) w.val[k * 17 % w.val.size()] = edge[k];
    net.layers.push_back(std::move(w));
  }
  return tile_network(net, 1);
}

std::vector<int32_t> first_tiles(int32_t count) {
  std::vector<int32_t> ids;
  for (int32_t t = 0; t < count; ++t) ids.push_back(t);
  return ids;
}

// ---- an interpreter of the generated source (one statement per line, in the forms embedded_source writes) ----

double parse_weight(std::string lit) {
  if (lit.rfind("(double)", 0) == 0) lit = lit.substr(8);
  if (lit.rfind("__int_as_float(", 0) == 0) {
    const size_t hex = lit.find("0x");
    const uint32_t bits = static_cast<uint32_t>(std::strtoul(lit.c_str() + hex, nullptr, 16));
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  char* end = nullptr;
  const double d = std::strtod(lit.c_str(), &end);
  EXPECT_TRUE(*end == '\0' || (end[0] == 'f' && end[1] == '\0')) << lit;
  return d;
}

// The arguments of the call on `line` that starts after `open` and ends at the last ')'.
std::vector<std::string> call_args(const std::string& line, size_t open) {
  std::vector<std::string> out;
  const size_t close = line.rfind(')');
  std::string cur;
  int depth = 0;
  for (size_t i = open + 1; i < close; ++i) {
    const char c = line[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      if (i + 1 < close && line[i + 1] == ' ') ++i;
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

struct Program {
  struct Fma { int q, r, k; };                      // a<q> = fma(x<r>, w<k>, a<q>)
  struct Mult { int inputs = 0, width = 0; std::vector<Fma> ops; };
  struct Out { int q = 0, row = 0; double clamp = 0; };   // v from a<q>, stored at y[row * ld]
  struct Epilogue { int width = 0; std::vector<Out> outs; };
  struct Call { std::string helper; std::vector<long long> gather; std::vector<double> weights; };
  struct Tile {
    int width = 0;
    std::vector<Call> calls;
    std::string epilogue;
    long long start = 0;
    std::vector<long long> loads;   // in<N>: the row of Y^T load N reads
  };
  bool load_helper = false;             // load(y, r, ld_bytes) reads y + r * ld_bytes
  std::map<std::string, Mult> mult;
  std::map<std::string, Epilogue> epilogue;
  std::map<int, Tile> tiles;            // tile function t<i>
  std::map<int, int> cases;             // case -> tile function
};

// Parses the whole source; a line of no known form fails the test.
Program parse_source(const std::string& source, bool fp64) {
  Program p;
  std::istringstream in(source);
  std::string s;
  enum { Top, InLoad, InMult, InEpilogue, InTile, InKernel } where = Top;
  std::string name;
  int tile = -1;
  const std::string acc = fp64 ? "double" : "float";
  while (std::getline(in, s)) {
    int r = 0, w = 0, q = 0, q2 = 0, k = 0, i = 0, j = 0;
    long long g = 0;
    char lit[96];
    if (where == Top) {
      if (s == "namespace snk_embedded {") continue;
      if (s == "static __device__ __forceinline__ " + acc +
                   " load(const char* __restrict__ y, unsigned r, unsigned ld_bytes) {") {
        where = InLoad;
        continue;
      }
      if (std::sscanf(s.c_str(), "static __device__ __forceinline__ void m%dx%d(", &r, &w) == 2) {
        name = "m" + std::to_string(r) + "x" + std::to_string(w);
        p.mult[name] = {r, w, {}};
        EXPECT_EQ(call_args(s.substr(0, s.size() - 2), s.find('(')).size(), static_cast<size_t>(w + r + r * w)) << s;
        where = InMult;
      } else if (std::sscanf(s.c_str(), "static __device__ __forceinline__ bool e%d(", &w) == 1) {
        name = "e" + std::to_string(w);
        p.epilogue[name].width = w;
        where = InEpilogue;
      } else if (std::sscanf(s.c_str(), "static __device__ __noinline__ bool t%d(", &i) == 1 ||
                 std::sscanf(s.c_str(), "static __device__ __forceinline__ bool t%d(", &i) == 1) {
        tile = i;
        p.tiles[i];
        where = InTile;
      } else if (s.rfind("extern \"C\" __global__ void __launch_bounds__(128) ", 0) == 0) {
        where = InKernel;
      } else if (s != "}") {
        ADD_FAILURE() << "unknown line: " << s;
      }
    } else if (where == InLoad) {
      if (s == "}") {
        where = Top;
      } else if (s == "return __ldg(reinterpret_cast<const " + acc +
                           "*>(y + static_cast<unsigned long long>(r) * ld_bytes));") {
        p.load_helper = true;
      } else {
        ADD_FAILURE() << "unknown line: " << s;
      }
    } else if (where == InMult) {
      if (s == "}") {
        where = Top;
      } else if (std::sscanf(s.c_str(), fp64 ? "a%d = fma(x%d, w%d, a%d);" : "a%d = fmaf(x%d, w%d, a%d);", &q, &r, &k,
                             &q2) == 4 && q == q2) {
        p.mult[name].ops.push_back({q, r, k});
      } else {
        ADD_FAILURE() << "unknown line: " << s;
      }
    } else if (where == InEpilogue) {
      Program::Epilogue& e = p.epilogue[name];
      if (s == "}") {
        where = Top;
      } else if (s == "bool any = false;" || s == acc + " v;" || s == "return any;" ||
                 s == (fp64 ? "any = any || v > 0.0;" : "any = any || v > 0.0f;")) {
        // the flag, as the interpreter computes it
      } else if (std::sscanf(s.c_str(), fp64 ? "v = fmin(fmax(a%d + (double)bias, 0.0), %95[^)]);"
                                             : "v = fminf(fmaxf(a%d + bias, 0.0f), %95[^)]);",
                             &q, lit) == 2) {
        e.outs.push_back({q, -1, parse_weight(lit)});
      } else if (std::sscanf(s.c_str(), "y[%dLL * ld] = v;", &r) == 1 && !e.outs.empty() && e.outs.back().row < 0) {
        e.outs.back().row = r;
      } else {
        ADD_FAILURE() << "unknown line: " << s;
      }
    } else if (where == InTile) {
      Program::Tile& t = p.tiles[tile];
      if (s == "}") {
        where = Top;
      } else if (s.rfind(acc + " a0 = 0", 0) == 0) {
        t.width = static_cast<int>(std::count(s.begin(), s.end(), ',') + 1);
      } else if (s == "return false;") {
      } else if (std::sscanf(s.c_str(), ("const " + acc + " in%d = load(y, %lldu, ld_bytes);").c_str(), &i, &g) == 2) {
        EXPECT_EQ(i, static_cast<int>(t.loads.size())) << s;   // numbered in order
        if (!t.loads.empty()) EXPECT_NE(g, t.loads.back()) << s;   // a load only where the row changes
        t.loads.push_back(g);
      } else if (std::sscanf(s.c_str(), "m%dx%d(", &r, &w) == 2) {
        const std::vector<std::string> args = call_args(s, s.find('('));
        EXPECT_EQ(w, t.width) << s;
        EXPECT_EQ(args.size(), static_cast<size_t>(w + r + r * w)) << s;
        if (args.size() != static_cast<size_t>(w + r + r * w)) continue;
        Program::Call c;
        c.helper = "m" + std::to_string(r) + "x" + std::to_string(w);
        for (int a = 0; a < w; ++a) EXPECT_EQ(args[a], "a" + std::to_string(a)) << s;
        for (int a = 0; a < r; ++a) {
          EXPECT_EQ(std::sscanf(args[w + a].c_str(), "in%d", &i), 1) << args[w + a];
          EXPECT_TRUE(i >= 0 && i < static_cast<int>(t.loads.size())) << args[w + a] << ": not loaded before";
          c.gather.push_back(i >= 0 && i < static_cast<int>(t.loads.size()) ? t.loads[static_cast<size_t>(i)] : -1);
        }
        for (int a = 0; a < r * w; ++a) c.weights.push_back(parse_weight(args[w + r + a]));
        t.calls.push_back(std::move(c));
      } else if (std::sscanf(s.c_str(), "return e%d(yout + %lldLL * ld + row, ld, bias, ", &w, &g) == 2) {
        t.epilogue = "e" + std::to_string(w);
        t.start = g;
        const std::vector<std::string> args = call_args(s, s.find('('));
        EXPECT_EQ(args.size(), static_cast<size_t>(3 + w)) << s;
        for (int a = 0; a < w && 3 + a < static_cast<int>(args.size()); ++a)
          EXPECT_EQ(args[3 + a], "a" + std::to_string(a)) << s;
      } else {
        ADD_FAILURE() << "unknown line: " << s;
      }
    } else if (where == InKernel) {
      if (std::sscanf(s.c_str(), "case %d: any = snk_embedded::t%d(y, ld_bytes, yout, ld, row, bias); break;", &i,
                      &j) == 2) {
        p.cases[i] = j;
      } else if (s != "const int row = blockIdx.y * 128 + threadIdx.x;" && s != "if (row >= *held) return;" &&
                 s != "const char* y = reinterpret_cast<const char*>(yin + row);" &&
                 s != std::string("const unsigned ld_bytes = static_cast<unsigned>(ld) * ") + (fp64 ? "8u;" : "4u;") &&
                 s != "bool any = false;" && s != "switch (blockIdx.x) {" && s != "}" &&
                 s != "if (any) alive[row] = 1;") {
        ADD_FAILURE() << "unknown line: " << s;
      }
    }
  }
  return p;
}

// Thread block `bx` of the parsed kernel run for every row in [0, live): yout receives its stores, the rows it marks
// alive are set in `alive`. Acc: the kernel's sums' type.
template <class Acc>
void interpret(const Program& p, int bx, const std::vector<Acc>& yin, std::vector<Acc>& yout, int64_t ld, int live,
               float bias, std::vector<int>& alive) {
  ASSERT_TRUE(p.load_helper) << "no load helper";
  ASSERT_TRUE(p.cases.count(bx)) << "no case " << bx;
  ASSERT_TRUE(p.tiles.count(p.cases.at(bx)));
  const Program::Tile& t = p.tiles.at(p.cases.at(bx));
  for (int row = 0; row < live; ++row) {
    std::vector<Acc> a(static_cast<size_t>(t.width), Acc(0));
    for (const Program::Call& c : t.calls) {
      ASSERT_TRUE(p.mult.count(c.helper)) << c.helper;
      const Program::Mult& m = p.mult.at(c.helper);
      ASSERT_EQ(static_cast<size_t>(m.inputs), c.gather.size());
      for (const Program::Fma& f : m.ops) {
        const Acc x = yin[static_cast<size_t>(c.gather[f.r] * ld + row)];
        a[f.q] = std::fma(x, static_cast<Acc>(c.weights[f.k]), a[f.q]);
      }
    }
    if (t.width == 0) continue;
    ASSERT_TRUE(p.epilogue.count(t.epilogue)) << t.epilogue;
    bool any = false;
    for (const Program::Out& o : p.epilogue.at(t.epilogue).outs) {
      ASSERT_EQ(o.clamp, kChallengeClamp);
      Acc v;
      if constexpr (sizeof(Acc) == 8) v = std::fmin(std::fmax(a[o.q] + static_cast<double>(bias), 0.0), o.clamp);
      else v = std::fmin(std::fmax(a[o.q] + bias, 0.0f), static_cast<float>(o.clamp));
      yout[static_cast<size_t>((t.start + o.row) * ld + row)] = v;
      any = any || v > Acc(0);
    }
    if (any) alive[static_cast<size_t>(row)] = 1;
  }
}

// What the table-driven kernel computes for tile t (tiled_gpu.cu's tiled_layer, written out on the host).
template <class Acc>
void table_tile(const TiledLayer& layer, const std::vector<int32_t>& gather, const LayerTiles& tiles, int32_t t,
                const std::vector<Acc>& yin, std::vector<Acc>& yout, int64_t ld, int live, float bias,
                std::vector<int>& alive) {
  for (int row = 0; row < live; ++row) {
    std::vector<Acc> acc(static_cast<size_t>(tiles.width[t]), Acc(0));
    for (int32_t b = tiles.block_ptr[t]; b < tiles.block_ptr[t + 1]; ++b) {
      const TileBlock& k = tiles.blocks[b];
      for (int32_t a = 0; a < k.nr; ++a) {
        const Acc x = yin[static_cast<size_t>(int64_t{gather[k.r0 + a]} * ld + row)];
        for (int32_t q = 0; q < tiles.width[t]; ++q)
          acc[q] = std::fma(x, static_cast<Acc>(layer.values[k.voff + int64_t{a} * tiles.pitch[t] + q]), acc[q]);
      }
    }
    bool any = false;
    for (int32_t q = 0; q < tiles.width[t]; ++q) {
      Acc v;
      if constexpr (sizeof(Acc) == 8)
        v = std::fmin(std::fmax(acc[q] + static_cast<double>(bias), 0.0), kChallengeClamp);
      else v = std::fmin(std::fmax(acc[q] + bias, 0.0f), static_cast<float>(kChallengeClamp));
      yout[static_cast<size_t>(int64_t{tiles.start[t] + q} * ld + row)] = v;
      any = any || v > Acc(0);
    }
    if (any) alive[static_cast<size_t>(row)] = 1;
  }
}

// The generated kernel (interpreted) and the table-driven arithmetic give the same bits for `ids`, on inputs drawn in
// the activations' range [0, 32] (a quarter of them zero).
template <class Acc>
void expect_same_arithmetic(const TiledLayer& layer, const std::vector<int32_t>& gather, const LayerTiles& tiles,
                            const std::vector<int32_t>& ids, float bias, const std::string& what) {
  constexpr bool fp64 = sizeof(Acc) == 8;
  const Program program = parse_source(embedded_source(layer, gather, tiles, ids, fp64, "k"), fp64);
  const int live = 5;
  const int64_t ld = 7;
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(0.0, 32.0);
  std::vector<Acc> yin(static_cast<size_t>(layer.nrows * ld));
  for (Acc& y : yin) y = rng() % 4 == 0 ? Acc(0) : static_cast<Acc>(u(rng));
  std::vector<Acc> got(static_cast<size_t>(layer.ncols * ld), Acc(-1)), want = got;
  std::vector<int> got_alive(ld, 0), want_alive(ld, 0);
  for (size_t i = 0; i < ids.size(); ++i) {
    interpret<Acc>(program, static_cast<int>(i), yin, got, ld, live, bias, got_alive);
    table_tile<Acc>(layer, gather, tiles, ids[i], yin, want, ld, live, bias, want_alive);
  }
  ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(Acc))) << what;
  EXPECT_EQ(got_alive, want_alive) << what;
}

std::string temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "snack-embedded-XXXXXX").string();
  if (!mkdtemp(&pattern[0])) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

std::vector<fs::path> cubin_files(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".cubin") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The source of a RadiX layer's first `count` tiles.
std::string radix_source(int32_t count, bool fp64, const std::string& name = "snk_radix") {
  const TiledNetwork& net = radix_network();
  return embedded_source(net.layers[1], net.gather[1], class_tiles(net.layers[1]), first_tiles(count), fp64, name);
}

EmbeddedOptions no_cache() {
  EmbeddedOptions o;
  o.deadline_s = 300;
  return o;
}

// ---- tests ----

TEST(Embedded, FloatLiteralsReadBackBitwise) {
  std::mt19937 rng(3);
  std::vector<float> values = {0.0f, -0.0f, 1.0f, -1.0f, 0.1f, 1.0f / 16.0f, 32.0f,
                               std::numeric_limits<float>::min(), -std::numeric_limits<float>::min(),
                               std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                               std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                               std::nextafter(std::numeric_limits<float>::min(), 0.0f)};
  for (int i = 0; i < 20000; ++i) {
    const uint32_t bits = static_cast<uint32_t>(rng());
    float f;
    std::memcpy(&f, &bits, sizeof f);
    if (std::isfinite(f)) values.push_back(f);
  }
  for (const float v : values) {
    const std::string s = float_literal(v);
    ASSERT_EQ(s.back(), 'f') << s;
    ASSERT_NE(s.find("0x"), std::string::npos) << s;
    char* end = nullptr;
    const float back = std::strtof(s.c_str(), &end);
    ASSERT_EQ(std::string(end), "f") << s;
    ASSERT_EQ(0, std::memcmp(&back, &v, sizeof v)) << s;
  }
  EXPECT_EQ(float_literal(0.1f), "0x1.99999ap-4f");
  EXPECT_EQ(float_literal(1.0f / 16.0f), "0x1p-4f");
  EXPECT_EQ(float_literal(-0.0f), "-0x0p+0f");
  EXPECT_EQ(float_literal(std::numeric_limits<float>::infinity()), "__int_as_float(0x7f800000)");
  EXPECT_EQ(float_literal(-std::numeric_limits<float>::infinity()), "__int_as_float((int)0xff800000u)");
  EXPECT_EQ(float_literal(std::numeric_limits<float>::quiet_NaN()).rfind("__int_as_float(", 0), 0u);
}

TEST(Embedded, SourceIsDeterministicAndChecksItsArguments) {
  const TiledNetwork& net = radix_network();
  const TiledLayer& layer = net.layers[1];
  const LayerTiles tiles = class_tiles(layer);
  ASSERT_EQ(tiles.tiles(), 64);   // 1024 neurons: 64 column classes of 16
  const std::vector<int32_t> ids = {3, 0, 63};
  const std::string a = embedded_source(layer, net.gather[1], tiles, ids, true, "snk_layer_1");
  EXPECT_EQ(a, embedded_source(layer, net.gather[1], tiles, ids, true, "snk_layer_1"));
  EXPECT_NE(a.find("extern \"C\" __global__ void __launch_bounds__(128) snk_layer_1(const double* __restrict__ yin"),
            std::string::npos);
  EXPECT_EQ(a.find("#include"), std::string::npos);
  EXPECT_NE(a, embedded_source(layer, net.gather[1], tiles, ids, false, "snk_layer_1"));
  // 3 tiles of 32 inputs x 16 outputs: a multiply-add each.
  const Program p = parse_source(a, true);
  size_t fmas = 0;
  for (const auto& tile : p.tiles)
    for (const Program::Call& c : tile.second.calls) fmas += p.mult.at(c.helper).ops.size();
  EXPECT_EQ(fmas, 3u * 32 * 16);

  EXPECT_THROW(embedded_source(layer, net.gather[1], tiles, {64}, true, "k"), std::invalid_argument);
  EXPECT_THROW(embedded_source(layer, net.gather[1], tiles, {-1}, true, "k"), std::invalid_argument);
  EXPECT_THROW(embedded_source(layer, net.gather[1], tiles, {}, true, "k"), std::invalid_argument);
  const std::vector<int32_t> short_gather(net.gather[1].begin(), net.gather[1].begin() + 100);
  EXPECT_THROW(embedded_source(layer, short_gather, tiles, {0, 63}, true, "k"), std::invalid_argument);
  for (const char* name : {"", "1k", "k-1", "k 1", "k(", "é", "snk_embedded"})
    EXPECT_THROW(embedded_source(layer, net.gather[1], tiles, {0}, true, name), std::invalid_argument) << name;
  LayerTiles broken = tiles;
  broken.blocks[0].voff = layer.nnz();
  EXPECT_THROW(embedded_source(layer, net.gather[1], broken, {0}, true, "k"), std::invalid_argument);
}

TEST(Embedded, SourceComputesTheTableKernelsArithmetic) {
  const TiledNetwork& radix = radix_network();
  for (size_t l = 0; l < radix.layers.size(); ++l) {
    const LayerTiles tiles = class_tiles(radix.layers[l]);
    expect_same_arithmetic<double>(radix.layers[l], radix.gather[l], tiles, {5, 0, 40}, radix.bias, "radix fp64");
    expect_same_arithmetic<float>(radix.layers[l], radix.gather[l], tiles, {63, 1}, radix.bias, "radix fp32");
    const LayerTiles slices = layer_tiles(radix.layers[l], 6);   // widths 6, 6, 4 out of a pitch of 16
    expect_same_arithmetic<double>(radix.layers[l], radix.gather[l], slices, {0, 1, 2, 100}, radix.bias, "slices");
  }
  // Its equal outputs merged (plan/tile_modes.hpp): a tile of layer 1 reads each merged output of layer 0 for 16
  // inputs in a row, and the code loads it once (2 loads for 32 inputs); layer 0 reads 32 rows of inputs.
  std::vector<LayerTiles> whole;
  for (const TiledLayer& t : radix.layers) whole.push_back(class_tiles(t));
  const MergedNetwork merged = merge_equal_outputs(radix, whole);
  for (size_t l = 0; l < radix.layers.size(); ++l) {
    const LayerTiles& tiles = merged.tiles[l];
    expect_same_arithmetic<double>(radix.layers[l], merged.gather[l], tiles, {0, 7, 63}, radix.bias, "merged fp64");
    expect_same_arithmetic<float>(radix.layers[l], merged.gather[l], tiles, {2, 40}, radix.bias, "merged fp32");
    const Program p = parse_source(embedded_source(radix.layers[l], merged.gather[l], tiles, {5}, true, "k"), true);
    ASSERT_EQ(p.tiles.count(0), 1u);
    EXPECT_EQ(p.tiles.at(0).loads.size(), l == 0 ? 32u : 2u) << "layer " << l;
  }
  // The RadiX blocks with distinct weights: each weight's place in the sums matters.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  TiledLayer drawn = radix.layers[1];
  for (float& v : drawn.values) v = u(rng);
  const LayerTiles tiles = class_tiles(drawn);
  expect_same_arithmetic<double>(drawn, radix.gather[1], tiles, {7, 2}, radix.bias, "drawn fp64");
  expect_same_arithmetic<float>(drawn, radix.gather[1], tiles, {7, 2}, radix.bias, "drawn fp32");
  for (const int32_t cols : {1, 3, 6, 9})   // widths of 1 to 9 outputs: 16 to 1 inputs a helper call
    expect_same_arithmetic<double>(drawn, radix.gather[1], layer_tiles(drawn, cols), {0, 1, 2, 5, 11}, radix.bias,
                                   "drawn slices of " + std::to_string(cols));
  const TiledNetwork odd = irregular_network();
  for (size_t l = 0; l < odd.layers.size(); ++l) {
    const LayerTiles tiles = class_tiles(odd.layers[l]);
    const std::vector<int32_t> all = first_tiles(static_cast<int32_t>(tiles.tiles()));
    expect_same_arithmetic<double>(odd.layers[l], odd.gather[l], tiles, all, odd.bias, "irregular fp64");
    expect_same_arithmetic<float>(odd.layers[l], odd.gather[l], tiles, all, odd.bias, "irregular fp32");
  }
}

TEST(Embedded, CompilesToCubins) {
  for (const bool fp64 : {true, false}) {
    const EmbeddedBinary b = compile_embedded(radix_source(3, fp64), "snk_radix", no_cache());
    EXPECT_EQ(b.status, EmbeddedStatus::Compiled) << b.message;
    EXPECT_TRUE(is_elf(b.cubin));
    EXPECT_GT(b.seconds, 0.0);
  }
  // The irregular layer's tiles, literals of edge-case weights included (zeros, a subnormal, the largest float).
  const TiledNetwork odd = irregular_network();
  const LayerTiles tiles = class_tiles(odd.layers[0]);
  const std::vector<int32_t> all = first_tiles(static_cast<int32_t>(tiles.tiles()));
  const std::string src = embedded_source(odd.layers[0], odd.gather[0], tiles, all, true, "snk_odd");
  EXPECT_NE(src.find("0x1p-149"), std::string::npos);
  EXPECT_NE(src.find("0x1.fffffep+127"), std::string::npos);
  const EmbeddedBinary b = compile_embedded(src, "snk_odd", no_cache());
  EXPECT_EQ(b.status, EmbeddedStatus::Compiled) << b.message;
  EXPECT_TRUE(is_elf(b.cubin));

  const EmbeddedBinary bad = compile_embedded("extern \"C\" __global__ void k() { undeclared = 1; }", "k", no_cache());
  EXPECT_EQ(bad.status, EmbeddedStatus::Failed);
  EXPECT_NE(bad.message.find("undeclared"), std::string::npos) << bad.message;
  EXPECT_TRUE(bad.cubin.empty());
  EXPECT_STREQ(embedded_status_name(bad.status), "failed");
}

TEST(Embedded, DiskCache) {
  const std::string dir = temp_dir();
  EmbeddedOptions o = no_cache();
  o.cache_dir = dir + "/a/b";   // made on first use
  const std::string src = radix_source(2, true);
  const EmbeddedBinary first = compile_embedded(src, "snk_radix", o);
  ASSERT_EQ(first.status, EmbeddedStatus::Compiled) << first.message;
  EXPECT_TRUE(first.message.empty()) << first.message;
  const EmbeddedBinary second = compile_embedded(src, "snk_radix", o);
  EXPECT_EQ(second.status, EmbeddedStatus::Cached);
  EXPECT_EQ(second.cubin, first.cubin);
  auto files = cubin_files(o.cache_dir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].stem().string().size(), 16u);
  const fs::path file = files[0];
  const auto size = fs::file_size(file);

  // One weight changed: another kernel, another file.
  const TiledNetwork& net = radix_network();
  TiledLayer changed = net.layers[1];
  const LayerTiles tiles = class_tiles(changed);
  changed.values[tiles.blocks[0].voff] = 0.125f;
  const std::string src2 = embedded_source(changed, net.gather[1], tiles, first_tiles(2), true, "snk_radix");
  ASSERT_NE(src2, src);
  const EmbeddedBinary other = compile_embedded(src2, "snk_radix", o);
  EXPECT_EQ(other.status, EmbeddedStatus::Compiled) << other.message;
  EXPECT_EQ(cubin_files(o.cache_dir).size(), 2u);
  EXPECT_EQ(compile_embedded(src2, "snk_radix", o).status, EmbeddedStatus::Cached);
  // Another architecture: another file too.
  EmbeddedOptions o80 = o;
  o80.arch = "sm_80";
  EXPECT_EQ(compile_embedded(src, "snk_radix", o80).status, EmbeddedStatus::Compiled);
  EXPECT_EQ(cubin_files(o.cache_dir).size(), 3u);

  // A truncated file, then one with a damaged header: misses, recompiled and rewritten.
  fs::resize_file(file, size / 2);
  const EmbeddedBinary after_cut = compile_embedded(src, "snk_radix", o);
  EXPECT_EQ(after_cut.status, EmbeddedStatus::Compiled);
  EXPECT_EQ(after_cut.cubin, first.cubin);
  EXPECT_EQ(fs::file_size(file), size);
  for (const std::streamoff at : {std::streamoff{0}, std::streamoff{12}, std::streamoff{24}}) {   // magic, hash, ELF
    {
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(at);
      f.put('#');
    }
    EXPECT_EQ(compile_embedded(src, "snk_radix", o).status, EmbeddedStatus::Compiled) << "damaged at " << at;
    EXPECT_EQ(compile_embedded(src, "snk_radix", o).status, EmbeddedStatus::Cached) << "damaged at " << at;
  }
  // No temporary file is left behind: the three cubins and their lock files only.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(o.cache_dir))
    entries += e.is_regular_file() && e.path().extension() != ".lock" ? 1 : 0;
  EXPECT_EQ(entries, 3u);

  // A cache directory that cannot be made (under a regular file): compiled all the same, with a note.
  { std::ofstream(dir + "/plain") << "x"; }
  EmbeddedOptions blocked = o;
  blocked.cache_dir = dir + "/plain/cache";
  const EmbeddedBinary unwritten = compile_embedded(src, "snk_radix", blocked);
  EXPECT_EQ(unwritten.status, EmbeddedStatus::Compiled);
  EXPECT_EQ(unwritten.cubin, first.cubin);
  EXPECT_NE(unwritten.message.find("not written"), std::string::npos) << unwritten.message;
  fs::remove_all(dir);
}

TEST(Embedded, DeadlineLeavesTheCompileRunning) {
  const std::string dir = temp_dir();
  EmbeddedOptions o;
  o.cache_dir = dir;
  o.deadline_s = 0;
  const std::string src = radix_source(4, true, "snk_deadline");
  const EmbeddedBinary late = compile_embedded(src, "snk_deadline", o);
  EXPECT_EQ(late.status, EmbeddedStatus::TimedOut);
  EXPECT_LT(late.seconds, 1.0);
  EXPECT_TRUE(late.cubin.empty());
  EXPECT_FALSE(late.message.empty());
  const auto t0 = std::chrono::steady_clock::now();
  while (cubin_files(dir).empty() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(cubin_files(dir).size(), 1u) << "the background compile wrote nothing in 120 s";
  const EmbeddedBinary cached = compile_embedded(src, "snk_deadline", o);
  EXPECT_EQ(cached.status, EmbeddedStatus::Cached);
  EXPECT_TRUE(is_elf(cached.cubin));
  fs::remove_all(dir);
}

// The nice values of this process's child processes (/proc/<pid>/stat: after the command's ")", the 2nd field is the
// parent's id, the 17th the nice value): the compiler processes compile_embedded started.
std::vector<int> child_nice_values() {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& proc : fs::directory_iterator("/proc", ec)) {
    const std::string name = proc.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(proc.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 1));
    std::vector<std::string> v;
    std::string field;
    while (v.size() < 17 && fields >> field) v.push_back(field);
    if (v.size() == 17 && std::atoi(v[1].c_str()) == static_cast<int>(getpid())) out.push_back(std::atoi(v[16].c_str()));
  }
  return out;
}

// wait_for_background_compiles returns once the compiles left running have finished: their cubins are in the cache.
TEST(Embedded, WaitForBackgroundCompilesWaitsForThem) {
  const std::string dir = temp_dir();
  EmbeddedOptions o;
  o.cache_dir = dir;
  o.deadline_s = 0;
  for (const char* name : {"snk_wait_a", "snk_wait_b"})
    EXPECT_EQ(compile_embedded(radix_source(4, true, name), name, o).status, EmbeddedStatus::TimedOut) << name;
  wait_for_background_compiles();
  EXPECT_EQ(cubin_files(dir).size(), 2u);
  wait_for_background_compiles();   // none left: returns at once
  fs::remove_all(dir);
}

// A compile waited for runs at the process's priority (under load, a compile at nice 19 would wait for every other
// process of the machine); one left running in the background runs at nice 19, and the caller keeps its own.
TEST(Embedded, CompilesWaitedForKeepThePriorityBackgroundOnesDrop) {
  wait_for_background_compiles();   // none of the other tests' left running
  const std::string waited_dir = temp_dir();
  EmbeddedOptions w;
  w.cache_dir = waited_dir;
  w.deadline_s = 300;
  std::atomic<bool> finished{false};
  EmbeddedStatus status = EmbeddedStatus::Failed;
  std::thread caller([&] {
    status = compile_embedded(radix_source(4, true, "snk_waited"), "snk_waited", w).status;
    finished = true;
  });
  int seen = 0, low = 0;
  while (!finished) {
    const std::vector<int> nice = child_nice_values();
    seen += !nice.empty();
    low += std::count(nice.begin(), nice.end(), 19) > 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  caller.join();
  EXPECT_EQ(status, EmbeddedStatus::Compiled);
  EXPECT_GT(seen, 0) << "no compiler process seen while the compile was waited for";
  EXPECT_EQ(low, 0) << "a compiler process at nice 19 while the compile was waited for (" << seen << " polls)";
  fs::remove_all(waited_dir);

  const int own = getpriority(PRIO_PROCESS, 0);
  const std::string dir = temp_dir();
  EmbeddedOptions o;
  o.cache_dir = dir;
  o.deadline_s = 0;
  ASSERT_EQ(compile_embedded(radix_source(4, true, "snk_nice"), "snk_nice", o).status, EmbeddedStatus::TimedOut);
  bool background = false;
  const auto t0 = std::chrono::steady_clock::now();
  while (!background && cubin_files(dir).empty() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
    const std::vector<int> nice = child_nice_values();
    background = std::count(nice.begin(), nice.end(), 19) > 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(background) << "no compiler process at nice 19 while the compile ran";
  EXPECT_EQ(getpriority(PRIO_PROCESS, 0), own);
  wait_for_background_compiles();
  EXPECT_EQ(cubin_files(dir).size(), 1u);
  fs::remove_all(dir);
}

// With no cache a compile past its deadline is stopped: its process is gone once the call has returned and the
// thread that reaps it has run, and wait_for_background_compiles does not wait for a compile's whole time.
TEST(Embedded, CompileWithNoCacheStopsAtItsDeadline) {
  wait_for_background_compiles();
  EmbeddedOptions o = no_cache();
  o.deadline_s = 0.05;
  const auto t0 = std::chrono::steady_clock::now();
  const EmbeddedBinary late = compile_embedded(radix_source(32, true, "snk_stopped"), "snk_stopped", o);
  EXPECT_EQ(late.status, EmbeddedStatus::TimedOut);
  EXPECT_NE(late.message.find("stopped"), std::string::npos) << late.message;
  wait_for_background_compiles();
  const double stopped_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(child_nice_values().empty()) << "a compiler process outlived its stop";
  o.deadline_s = 300;
  const EmbeddedBinary whole = compile_embedded(radix_source(32, true, "snk_stopped"), "snk_stopped", o);
  ASSERT_EQ(whole.status, EmbeddedStatus::Compiled) << whole.message;
  EXPECT_LT(stopped_s, whole.seconds / 2) << "the stopped compile took about as long as a whole one";
}

// Options whose cache is a temporary directory that a death test's child (a fresh run of this test, death_test_style
// "threadsafe") shares with its parent, made by the parent and handed over in the environment variable `variable`;
// deadline 0, so that each compile is left running.
EmbeddedOptions cache_shared_with_death_tests(const char* variable) {
  const char* inherited = std::getenv(variable);
  EmbeddedOptions o;
  o.cache_dir = inherited && *inherited ? std::string(inherited) : temp_dir();
  ::setenv(variable, o.cache_dir.c_str(), 1);
  o.deadline_s = 0;
  return o;
}

// A program that exits while a compile runs does not wait for it: the compiler process goes on alone and writes the
// cache. The death test's child leaves a compile running and exits at once; the cubin arrives in the cache afterwards,
// and the child's exit took less time than a whole compile of the same kernel.
TEST(Embedded, ExitLeavesTheCompileToItsProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");   // the child re-runs this test alone, in a fresh process
  const char* kDirVariable = "SNK_TEST_EXIT_CACHE_DIR";
  EmbeddedOptions o = cache_shared_with_death_tests(kDirVariable);
  const std::string dir = o.cache_dir;
  const std::string src = radix_source(32, true, "snk_exit_leaves");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EXIT(
      {
        const EmbeddedBinary late = compile_embedded(src, "snk_exit_leaves", o);
        std::fprintf(stderr, "%s\n", late.message.c_str());
        std::exit(late.status == EmbeddedStatus::TimedOut ? 0 : 3);
      },
      ::testing::ExitedWithCode(0), "goes on in a process of its own");
  const double exit_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  while (cubin_files(dir).empty() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(cubin_files(dir).size(), 1u) << "the compiler left running wrote no cache in 120 s";
  o.deadline_s = 120;
  const EmbeddedBinary cached = compile_embedded(src, "snk_exit_leaves", o);
  EXPECT_EQ(cached.status, EmbeddedStatus::Cached);
  const EmbeddedBinary whole = compile_embedded(src, "snk_exit_leaves", no_cache());
  ASSERT_EQ(whole.status, EmbeddedStatus::Compiled) << whole.message;
  EXPECT_LT(exit_s, whole.seconds) << "the exit took as long as a whole compile";
  ::unsetenv(kDirVariable);
  fs::remove_all(dir);
}

// Whether another process holds a lock file of the cache directory `dir` (a compile under way there: the compiler
// process holds its kernel's lock file while it compiles).
bool compile_lock_held(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".lock") continue;
    const int fd = ::open(e.path().c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);   // lets go of the lock where this took it
    if (held) return true;
  }
  return false;
}

// A compile of the kernel another process is compiling for the same cache waits for that one (the lock file) and
// answers with its cubin instead of compiling again. The death test's child starts a compile and exits at once; this
// process asks for the same kernel once that compiler holds the kernel's lock (or has finished: then from the cache).
TEST(Embedded, CompileUnderWayInAnotherProcessIsWaitedFor) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const char* kDirVariable = "SNK_TEST_SHARED_CACHE_DIR";
  EmbeddedOptions o = cache_shared_with_death_tests(kDirVariable);
  const std::string dir = o.cache_dir;
  const std::string src = radix_source(32, true, "snk_shared");
  EXPECT_EXIT(std::exit(compile_embedded(src, "snk_shared", o).status == EmbeddedStatus::TimedOut ? 0 : 3),
              ::testing::ExitedWithCode(0), "");
  const auto t0 = std::chrono::steady_clock::now();
  while (!compile_lock_held(dir) && cubin_files(dir).empty() &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  o.deadline_s = 120;
  const EmbeddedBinary b = compile_embedded(src, "snk_shared", o);
  if (b.status == EmbeddedStatus::Compiled)
    EXPECT_NE(b.message.find("compiled by another process"), std::string::npos) << "compiled twice: " << b.message;
  else
    EXPECT_EQ(b.status, EmbeddedStatus::Cached) << b.message;
  EXPECT_TRUE(is_elf(b.cubin));
  EXPECT_EQ(cubin_files(dir).size(), 1u);
  ::unsetenv(kDirVariable);
  fs::remove_all(dir);
}

// Without the compiler program every compile fails, saying where it was looked for; nothing else breaks.
TEST(Embedded, MissingCompilerFailsEveryCompile) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");   // a fresh process: the compiler's path is read once a process
  EXPECT_EXIT(
      {
        ::setenv("SNACK_EMBEDDED_COMPILER", "/nonexistent/snack-embedded-compile", 1);
        const EmbeddedBinary b = compile_embedded(radix_source(1, true, "snk_nowhere"), "snk_nowhere", no_cache());
        std::fprintf(stderr, "%s: %s\n", embedded_status_name(b.status), b.message.c_str());
        std::exit(b.status == EmbeddedStatus::Failed ? 0 : 3);
      },
      ::testing::ExitedWithCode(0), "failed: cannot start /nonexistent/snack-embedded-compile");
}

TEST(Embedded, DefaultCacheRoot) {
  const auto keep = [](const char* name) {
    const char* v = std::getenv(name);
    return std::make_pair(v != nullptr, v ? std::string(v) : std::string());
  };
  const auto snack = keep("SNACK_CACHE_DIR"), xdg = keep("XDG_CACHE_HOME"), home = keep("HOME");
  setenv("SNACK_CACHE_DIR", "/s", 1);
  setenv("XDG_CACHE_HOME", "/x", 1);
  setenv("HOME", "/h", 1);
  EXPECT_EQ(default_cache_root(), "/s");
  unsetenv("SNACK_CACHE_DIR");
  EXPECT_EQ(default_cache_root(), "/x/snack");
  setenv("XDG_CACHE_HOME", "", 1);
  EXPECT_EQ(default_cache_root(), "/h/.cache/snack");
  unsetenv("HOME");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(default_cache_root(), "");
  for (const auto& [name, v] : {std::make_pair("SNACK_CACHE_DIR", snack), std::make_pair("XDG_CACHE_HOME", xdg),
                                std::make_pair("HOME", home)}) {
    if (v.first) setenv(name, v.second.c_str(), 1);
    else unsetenv(name);
  }
}

}  // namespace
}  // namespace snk::gc
