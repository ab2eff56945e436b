// tests/graphchallenge/test_tiled_kernels.cpp: the tiled engine's layer kernels (graphchallenge/engine/
// tiled_kernels.cuh) run on the CPU under cuda_emulation.hpp, against a host computation of each tile in its input
// order (fma in the sums' type), on fresh random activations: the sparse kernel (any width, and specialised for
// 16 and 32 where the engine's rule gives them the tiles), its form for uniform tiles (several tiles a block, tiles
// across stages, inputs in runs of one activation as in a merged network) and for chained uniform tiles (segments of
// up to 3 tiles, lone tiles, several segments a block), and the tensor kernel, FP64 and FP32, on a
// RadiX-Net layer with drawn weights, a random sparse layer (classes of one column), one with dense columns (tiles of
// more inputs than a stage holds) and one class of 64 columns (two 32-column slices). Each run poisons the outputs first and holds fewer rows
// than its grid covers: the rows held and only they are written, each tile's outputs and no other, with the alive
// flags of the rows held. Under the emulation the tensor product sums in input order, so it too must agree bit for
// bit; on a GPU (tests/gpu/spdnn_tiled_test.cpp) the tensor cores' order may differ in the last bits. Uniform tiles
// are in chain order (orient_block_chains), as in the engine.
#include "cuda_emulation.hpp"   // first: the CUDA built-ins the kernels use

#include "engine/tiled_kernels.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gc_test_util.hpp"
#include "io/generator.hpp"
#include "plan/block_chains.hpp"
#include "plan/tile_modes.hpp"
#include "plan/tiles.hpp"

namespace snk::gc {
namespace {

using emulation::launch;
constexpr double kPoison = -7.0;
constexpr float kBias = -0.1f;

// A layer with its tiles, the input permutation (gather) and drawn activations Y^T in (neurons x ld).
struct Case {
  std::string name;
  TiledLayer layer;
  LayerTiles tiles;
  std::vector<int32_t> gather;
  int64_t neurons = 0;
};

CsrMatrix from_rows(int64_t n, std::vector<std::vector<std::pair<int32_t, float>>> rows) {
  CsrMatrix w;
  w.nrows = w.ncols = n;
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.first == b.first; }), r.end());
    for (const auto& [c, v] : r) {
      w.col.push_back(c);
      w.val.push_back(v);
    }
    w.row_ptr.push_back(static_cast<int64_t>(w.col.size()));
  }
  return w;
}

// kind 0: a RadiX-Net layer (1024 neurons: classes of 16 outputs x 32 inputs) with drawn weights; 1: random, 7
// inputs an output; 2: every third output reads all 96 inputs, the others one; 3: 48 inputs feed all 64 outputs.
Case make_case(int kind, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> value(-0.5f, 0.5f);
  Case c;
  CsrMatrix w;
  if (kind == 0) {
    w = generate_radix_layer(1024, 7, rng());
    for (float& v : w.val) v = value(rng);
    c.name = "RadiX-Net 1024";
  } else if (kind == 1) {
    const int64_t n = 128;
    std::vector<std::vector<std::pair<int32_t, float>>> rows(n);
    std::uniform_int_distribution<int64_t> pick(0, n - 1);
    for (int64_t j = 0; j < n; ++j)
      for (int k = 0; k < 7; ++k) rows[static_cast<size_t>(pick(rng))].push_back({static_cast<int32_t>(j), value(rng)});
    w = from_rows(n, rows);
    c.name = "random 128";
  } else if (kind == 2) {
    const int64_t n = 96;
    std::vector<std::vector<std::pair<int32_t, float>>> rows(n);
    for (int64_t j = 0; j < n; ++j) {
      if (j % 3 == 0)
        for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)].push_back({static_cast<int32_t>(j), value(rng)});
      else
        rows[static_cast<size_t>((j * 7) % n)].push_back({static_cast<int32_t>(j), value(rng)});
    }
    w = from_rows(n, rows);
    c.name = "dense columns 96";
  } else {
    const int64_t n = 64;   // inputs 0 to 47 feed every output: one class of 64 outputs x 48 inputs
    std::vector<std::vector<std::pair<int32_t, float>>> rows(n);
    for (int64_t i = 0; i < 48; ++i)
      for (int64_t j = 0; j < n; ++j) rows[static_cast<size_t>(i)].push_back({static_cast<int32_t>(j), value(rng)});
    w = from_rows(n, rows);
    c.name = "one class 64 x 48";
  }
  c.neurons = w.ncols;
  c.layer = tile_layer(w);
  c.tiles = layer_tiles(c.layer, TiledGpuEngine::kMaxClassColumns);
  c.gather.resize(static_cast<size_t>(c.neurons));
  for (int64_t i = 0; i < c.neurons; ++i) c.gather[static_cast<size_t>(i)] = static_cast<int32_t>(i);
  std::shuffle(c.gather.begin(), c.gather.end(), rng);
  return c;
}

// Every tile's weights made those of its first output (what a uniform tile is), and its blocks put in chain order as
// the engine puts a uniform tile's.
void make_uniform(Case& c) {
  LayerTiles& t = c.tiles;
  std::fill(t.distinct.begin(), t.distinct.end(), 1);
  orient_block_chains(t);
  for (int64_t i = 0; i < t.tiles(); ++i)
    for (int32_t b = t.block_ptr[i]; b < t.block_ptr[i + 1]; ++b)
      for (int32_t a = 0; a < t.blocks[b].nr; ++a) {
        float* row = c.layer.values.data() + t.blocks[b].voff + static_cast<int64_t>(a) * t.pitch[i];
        std::fill(row + 1, row + t.width[i], row[0]);
      }
}

// The host computation: each tile's outputs for rows [0, held), inputs in tile order, fma in Acc; kPoison elsewhere.
template <class Acc>
std::vector<Acc> expected(const Case& c, const std::vector<Acc>& yin, int64_t ld, int32_t held, std::vector<int>& alive) {
  std::vector<Acc> out(yin.size(), static_cast<Acc>(kPoison));
  alive.assign(static_cast<size_t>(ld) + 1, 0);
  const LayerTiles& t = c.tiles;
  for (int64_t i = 0; i < t.tiles(); ++i)
    for (int32_t row = 0; row < held; ++row)
      for (int32_t q = 0; q < t.width[i]; ++q) {
        Acc acc = 0;
        for (int32_t b = t.block_ptr[i]; b < t.block_ptr[i + 1]; ++b) {
          const TileBlock& k = t.blocks[b];
          for (int32_t a = 0; a < k.nr; ++a)
            acc = std::fma(yin[static_cast<size_t>(c.gather[k.r0 + a] * ld + row)],
                           static_cast<Acc>(c.layer.values[k.voff + static_cast<int64_t>(a) * t.pitch[i] + q]), acc);
        }
        const Acc v = activate(acc, kBias);
        out[static_cast<size_t>((t.start[i] + q) * ld + row)] = v;
        if (v > 0) alive[static_cast<size_t>(row)] = 1;
      }
  return out;
}

std::vector<int32_t> all_tiles(const Case& c) {
  std::vector<int32_t> list(static_cast<size_t>(c.tiles.tiles()));
  for (size_t i = 0; i < list.size(); ++i) list[i] = static_cast<int32_t>(i);
  return list;
}

enum class Kernel { Sparse, SparseWidth, Uniform, Chained, Tensor };
const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::Sparse: return "sparse";
    case Kernel::SparseWidth: return "sparse, fixed width";
    case Kernel::Uniform: return "uniform";
    case Kernel::Chained: return "uniform, chained";
    case Kernel::Tensor: return "tensor";
  }
  return "";
}

// The case's uniform tiles chained in segments of at most 3 tiles (cuts, lone tiles and whole segments all occur).
BlockChains case_chains(const Case& c) { return block_chains(c.tiles, all_tiles(c), 3); }

// Runs `kernel` on every tile of `c` for `held` rows of a grid over ld rows; expects the host computation's bits.
template <class Acc>
void check(const Case& c, Kernel kernel, int32_t held, std::mt19937_64& rng) {
  const int64_t ld = 160, n = c.neurons;
  SCOPED_TRACE(c.name + ", " + kernel_name(kernel) + (sizeof(Acc) == 8 ? ", FP64" : ", FP32") + ", " +
               std::to_string(held) + " rows held");
  std::vector<Acc> yin(static_cast<size_t>(n * ld));
  // Magnitudes from 2^-20 to 2^4, so that a sum's rounding depends on its order: a kernel that adds the same products
  // in another order differs in some bits.
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-20, 3);
  for (Acc& v : yin) v = static_cast<Acc>(std::ldexp(mantissa(rng), exponent(rng)));
  std::vector<int> want_alive;
  const std::vector<Acc> want = expected<Acc>(c, yin, ld, held, want_alive);
  std::vector<Acc> got(yin.size(), static_cast<Acc>(kPoison));
  std::vector<int32_t> alive(static_cast<size_t>(ld) + 1, 0);
  const std::vector<int32_t> list = all_tiles(c);
  const tiled::TilesRef L{c.gather.data(), c.tiles.start.data(), c.tiles.width.data(), c.tiles.pitch.data(),
                          c.tiles.block_ptr.data(), c.tiles.blocks.data(), c.layer.values.data()};
  const unsigned chunks = static_cast<unsigned>((ld + tiled::kRows - 1) / tiled::kRows);
  const dim3 grid{static_cast<unsigned>(list.size()), chunks, 1};
  const int width = c.tiles.width.front();
  switch (kernel) {
    case Kernel::Sparse:
      launch(grid, tiled::kRows, [&] { tiled::tiled_layer<0, Acc>(yin.data(), got.data(), ld, &held, list.data(), L, kBias, alive.data()); });
      break;
    case Kernel::SparseWidth:
      ASSERT_TRUE(std::all_of(c.tiles.width.begin(), c.tiles.width.end(), [&](int32_t w) { return w == width; }));
      if (width == 16)
        launch(grid, tiled::kRows, [&] { tiled::tiled_layer<16, Acc>(yin.data(), got.data(), ld, &held, list.data(), L, kBias, alive.data()); });
      else if (width == 32)
        launch(grid, tiled::kRows, [&] { tiled::tiled_layer<32, Acc>(yin.data(), got.data(), ld, &held, list.data(), L, kBias, alive.data()); });
      else
        FAIL() << "no kernel for width " << width;
      break;
    case Kernel::Uniform: {   // 5 blocks across: each takes many tiles, which cross stages
      const dim3 few{std::min(5u, grid.x), chunks, 1};
      const int32_t count = static_cast<int32_t>(list.size());
      const tiled::UniformRuns runs = tiled::uniform_runs(c.tiles, c.gather, c.layer.values, list);
      const tiled::UniformRunsRef R{runs.run_ptr.data(), runs.runs.data()};
      launch(few, tiled::kRows, [&] { tiled::tiled_layer_uniform<Acc>(yin.data(), got.data(), ld, &held, list.data(), count, L, R, kBias, alive.data()); });
      break;
    }
    case Kernel::Chained: {   // 2 blocks across: each takes several segments, which cross stages
      const BlockChains chains = case_chains(c);
      const tiled::ChainTables t = tiled::chain_tables(c.tiles, c.gather, c.layer.values, chains);
      const tiled::ChainRef C{t.seg_ptr.data(), t.group_ptr.data(), t.group_tile.data(), t.runs.data()};
      const int32_t segments = static_cast<int32_t>(chains.segments());
      launch(dim3{2, chunks, 1}, tiled::kRows, [&] { tiled::tiled_layer_chained<Acc>(yin.data(), got.data(), ld, &held, segments, L, C, kBias, alive.data()); });
      break;
    }
    case Kernel::Tensor:
      if constexpr (std::is_same_v<Acc, double>)
        launch(grid, tiled::kRows, [&] { tiled::tiled_layer_tensor(yin.data(), got.data(), ld, &held, list.data(), L, kBias, alive.data()); });
      break;
  }
  int64_t differ = 0;
  for (size_t i = 0; i < want.size(); ++i) differ += !(got[i] == want[i]);
  EXPECT_EQ(differ, 0) << "of " << want.size() << " values (the rows held of every output, the rest poisoned)";
  int64_t flags = 0;
  for (size_t r = 0; r < alive.size(); ++r) flags += (alive[r] != 0) != (want_alive[r] != 0);
  EXPECT_EQ(flags, 0) << "alive flags differ";
}

TEST(TiledKernelsEmulated, MatchTheTileOrderComputation) {
  const uint64_t seed = test::case_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (SNACK_GC_SEED replays it)");
  std::mt19937_64 rng(seed);
  for (int kind = 0; kind < 4; ++kind) {
    Case c = make_case(kind, rng);
    // The fixed-width kernels serve what the engine's rule gives them (whole classes of their width: not kind 3's
    // slices of a 64-column class, whose weights they would read 32 apart instead of 64).
    const bool same_width = tiled::whole_class_width(c.tiles, all_tiles(c)) != 0;
    const int32_t held = kind == 0 ? 150 : kind == 1 ? 97 : kind == 2 ? 1 : 70;   // of a grid over 256 rows (ld 160)
    check<double>(c, Kernel::Sparse, held, rng);
    check<float>(c, Kernel::Sparse, held, rng);
    if (same_width) {
      check<double>(c, Kernel::SparseWidth, held, rng);
      check<float>(c, Kernel::SparseWidth, held, rng);
    }
    check<double>(c, Kernel::Tensor, held, rng);
    make_uniform(c);
    check<double>(c, Kernel::Uniform, held, rng);
    check<float>(c, Kernel::Uniform, held, rng);
    check<double>(c, Kernel::Chained, held, rng);
    check<float>(c, Kernel::Chained, held, rng);
    if (kind == 0) {   // RadiX-Net: blocks shared by two tiles, so segments of several tiles
      const BlockChains chains = case_chains(c);
      EXPECT_LT(chains.segments(), c.tiles.tiles() / 2) << c.name << ": the tiles do not chain";
    }
    // As in a merged network: runs of inputs reading one row of Y^T (each aligned group of 8 positions reads the
    // first's row), some of them with equal weights, so that the runs' counts exceed 1.
    for (size_t p = 0; p < c.gather.size(); ++p) c.gather[p] = c.gather[p & ~size_t(7)];
    for (int64_t t = 0; t < c.tiles.tiles(); ++t) {   // every second input of a tile: the weight of the one before
      const float* before = nullptr;
      int64_t n = 0;
      for (int32_t b = c.tiles.block_ptr[t]; b < c.tiles.block_ptr[t + 1]; ++b)
        for (int32_t a = 0; a < c.tiles.blocks[b].nr; ++a, ++n) {
          float* w = c.layer.values.data() + c.tiles.blocks[b].voff + static_cast<int64_t>(a) * c.tiles.pitch[t];
          if (n % 2 == 1) std::fill(w, w + c.tiles.width[t], *before);
          before = w;
        }
    }
    const tiled::UniformRuns runs = tiled::uniform_runs(c.tiles, c.gather, c.layer.values, all_tiles(c));
    int64_t inputs = 0, want_inputs = 0;
    for (const tiled::UniformRun& u : runs.runs) inputs += u.count;
    for (int64_t t = 0; t < c.tiles.tiles(); ++t) want_inputs += c.tiles.inputs(t);
    EXPECT_EQ(inputs, want_inputs) << c.name;
    EXPECT_LT(static_cast<int64_t>(runs.runs.size()), want_inputs) << c.name << ": no run of more than one input";
    check<double>(c, Kernel::Uniform, held, rng);
    check<float>(c, Kernel::Uniform, held, rng);
    check<double>(c, Kernel::Chained, held, rng);
    check<float>(c, Kernel::Chained, held, rng);
  }
}

}  // namespace
}  // namespace snk::gc
