// tests/graphchallenge/test_block_chains.cpp: uniform tiles chained by the input blocks they share
// (graphchallenge/plan/block_chains.hpp). Hand-made layers: a cycle with tiles met both ways round, a path walked from
// its end, a block read by three tiles (left alone), two tiles over the same two blocks, tiles of other shapes; each
// tile keeps its blocks, only their order changes, and the segments are cut at the size asked. On generated networks
// (4096 neurons, RadiX-Net, every layer): every tile of a layer lands in one segment, consecutive tiles of a segment
// share a block, and almost every tile chains. The loads the cost model prices for chained tiles. Bad arguments are
// refused.
#include "plan/block_chains.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "io/generator.hpp"
#include "plan/tiles.hpp"

namespace snk::gc {
namespace {

// A layer of tiles, each over the blocks at the given first positions (16 inputs each, weights anywhere), uniform
// unless distinct says otherwise.
LayerTiles layer_of(const std::vector<std::vector<int32_t>>& blocks, std::vector<int32_t> distinct = {}) {
  LayerTiles t;
  int64_t voff = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    t.start.push_back(static_cast<int32_t>(i));
    t.width.push_back(1);
    t.pitch.push_back(1);
    for (const int32_t r0 : blocks[i]) {
      t.blocks.push_back(TileBlock{r0, 16, voff});
      voff += 16;
    }
    t.block_ptr.push_back(static_cast<int32_t>(t.blocks.size()));
    t.distinct.push_back(distinct.empty() ? 1 : distinct[i]);
  }
  return t;
}

std::vector<int32_t> firsts(const LayerTiles& t, int64_t tile) {
  std::vector<int32_t> r;
  for (int32_t b = t.block_ptr[static_cast<size_t>(tile)]; b < t.block_ptr[static_cast<size_t>(tile) + 1]; ++b)
    r.push_back(t.blocks[static_cast<size_t>(b)].r0);
  return r;
}

std::vector<int32_t> all(const LayerTiles& t) {
  std::vector<int32_t> l(static_cast<size_t>(t.tiles()));
  std::iota(l.begin(), l.end(), 0);
  return l;
}

std::vector<std::vector<int32_t>> segments(const BlockChains& c) {
  std::vector<std::vector<int32_t>> s;
  for (int64_t i = 0; i < c.segments(); ++i)
    s.emplace_back(c.tiles.begin() + c.seg_ptr[static_cast<size_t>(i)], c.tiles.begin() + c.seg_ptr[static_cast<size_t>(i) + 1]);
  return s;
}

// Each tile's blocks (with their weight offsets) the same set as before.
void expect_same_blocks(const LayerTiles& before, const LayerTiles& after) {
  ASSERT_EQ(before.block_ptr, after.block_ptr);
  for (int64_t t = 0; t < before.tiles(); ++t) {
    std::vector<std::pair<int32_t, int64_t>> a, b;
    for (int32_t k = before.block_ptr[static_cast<size_t>(t)]; k < before.block_ptr[static_cast<size_t>(t) + 1]; ++k) {
      a.emplace_back(before.blocks[static_cast<size_t>(k)].r0, before.blocks[static_cast<size_t>(k)].voff);
      b.emplace_back(after.blocks[static_cast<size_t>(k)].r0, after.blocks[static_cast<size_t>(k)].voff);
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << "tile " << t;
  }
}

TEST(BlockChains, CycleMetBothWaysRound) {
  // Blocks at 0, 16, 32, 48 (A, B, C, D): tiles (A,B), (C,B), (C,D), (A,D): a cycle, two of its tiles reversed.
  const LayerTiles before = layer_of({{0, 16}, {32, 16}, {32, 48}, {0, 48}});
  LayerTiles t = before;
  EXPECT_EQ(orient_block_chains(t), 2);
  expect_same_blocks(before, t);
  EXPECT_EQ(firsts(t, 0), (std::vector<int32_t>{0, 16}));
  EXPECT_EQ(firsts(t, 1), (std::vector<int32_t>{16, 32}));
  EXPECT_EQ(firsts(t, 2), (std::vector<int32_t>{32, 48}));
  EXPECT_EQ(firsts(t, 3), (std::vector<int32_t>{48, 0}));
  EXPECT_EQ(segments(block_chains(t, all(t), 8)), (std::vector<std::vector<int32_t>>{{0, 1, 2, 3}}));
  EXPECT_EQ(segments(block_chains(t, all(t), 3)), (std::vector<std::vector<int32_t>>{{0, 1, 2}, {3}}));
  EXPECT_EQ(segments(block_chains(t, all(t), 1)), (std::vector<std::vector<int32_t>>{{0}, {1}, {2}, {3}}));
  // A list in another order, or missing a tile, chains what it holds: the cycle cut open where the tile is missing.
  EXPECT_EQ(segments(block_chains(t, {3, 1, 0}, 8)), (std::vector<std::vector<int32_t>>{{3, 0, 1}}));
  EXPECT_EQ(orient_block_chains(t), 0);   // already in chain order
}

TEST(BlockChains, PathFromItsEnd) {
  // (B,A), (B,C), (D,C): A and D are read by one tile each; the walk starts at A.
  LayerTiles t = layer_of({{16, 0}, {16, 32}, {48, 32}});
  EXPECT_EQ(orient_block_chains(t), 2);
  EXPECT_EQ(firsts(t, 0), (std::vector<int32_t>{0, 16}));
  EXPECT_EQ(firsts(t, 1), (std::vector<int32_t>{16, 32}));
  EXPECT_EQ(firsts(t, 2), (std::vector<int32_t>{32, 48}));
  EXPECT_EQ(segments(block_chains(t, all(t), 8)), (std::vector<std::vector<int32_t>>{{0, 1, 2}}));
  EXPECT_EQ(segments(block_chains(t, {2, 1, 0}, 8)), (std::vector<std::vector<int32_t>>{{0, 1, 2}}));
}

TEST(BlockChains, WhatIsLeftAlone) {
  // Block B read by three tiles: none of them is oriented or chained. Tile 3 is not uniform, tile 4 has three blocks,
  // tile 5 one; tiles 6 and 7 read the same two blocks and chain as a cycle of two.
  const LayerTiles before =
      layer_of({{16, 0}, {16, 32}, {48, 16}, {80, 64}, {96, 112, 128}, {144}, {160, 176}, {160, 176}},
               {1, 1, 1, 2, 1, 1, 1, 1});
  LayerTiles t = before;
  EXPECT_EQ(orient_block_chains(t), 1);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(firsts(t, i), firsts(before, i)) << "tile " << i;
  EXPECT_EQ(firsts(t, 6), (std::vector<int32_t>{160, 176}));
  EXPECT_EQ(firsts(t, 7), (std::vector<int32_t>{176, 160}));
  const BlockChains c = block_chains(t, all(t), 8);
  EXPECT_EQ(segments(c), (std::vector<std::vector<int32_t>>{{0}, {1}, {2}, {3}, {4}, {5}, {6, 7}}));
  // Two tiles starting at one block: neither follows a third.
  const LayerTiles fork = layer_of({{0, 16}, {16, 32}, {16, 48}});
  EXPECT_EQ(segments(block_chains(fork, all(fork), 8)), (std::vector<std::vector<int32_t>>{{0}, {1}, {2}}));
}

TEST(BlockChains, GeneratedNetworksChainAlmostEveryTile) {
  const Network net = generate_network(4096, 24, 7);
  const TiledNetwork tn = tile_network(net);
  int64_t tiles = 0, segs = 0, chained = 0;
  for (size_t l = 0; l < tn.layers.size(); ++l) {
    const LayerTiles before = layer_tiles(tn.layers[l], 32);
    LayerTiles t = before;
    orient_block_chains(t);
    expect_same_blocks(before, t);
    const BlockChains c = block_chains(t, all(t), 8);
    std::vector<int32_t> seen = c.tiles;
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, all(t)) << "layer " << l + 1;
    for (const std::vector<int32_t>& s : segments(c)) {
      EXPECT_LE(s.size(), 8u);
      for (size_t j = 1; j < s.size(); ++j) {
        const TileBlock& a = t.blocks[static_cast<size_t>(t.block_ptr[static_cast<size_t>(s[j - 1])] + 1)];
        const TileBlock& b = t.blocks[static_cast<size_t>(t.block_ptr[static_cast<size_t>(s[j])])];
        EXPECT_TRUE(a.r0 == b.r0 && a.nr == b.nr) << "layer " << l + 1 << ": tiles " << s[j - 1] << ", " << s[j];
      }
      if (s.size() > 1) chained += static_cast<int64_t>(s.size());
    }
    tiles += t.tiles();
    segs += c.segments();
  }
  // Most layers' tiles (two blocks of 16, each read by two tiles) form cycles; a few layers have one block a tile.
  EXPECT_GT(chained, tiles * 3 / 4);
  EXPECT_LT(segs, tiles / 4);
}

// The loads the cost model prices: a segment of g tiles at (g + 1) / 2g of each tile's own, rounded up; a tile that
// chains to none, or is not uniform, keeps its own.
TEST(BlockChains, ChainedLoads) {
  const LayerTiles cycle = layer_of({{0, 16}, {16, 32}, {32, 48}, {48, 0}, {64, 80}}, {1, 1, 1, 1, 2});
  EXPECT_EQ(chained_loads(cycle, {32, 32, 31, 2, 32}, 8), (std::vector<int32_t>{20, 20, 20, 2, 32}));   // g = 4: 5/8
  EXPECT_EQ(chained_loads(cycle, {32, 32, 32, 32, 32}, 3), (std::vector<int32_t>{22, 22, 22, 32, 32}));  // 3 and 1
  EXPECT_THROW(chained_loads(cycle, {1, 2}, 8), std::invalid_argument);
}

TEST(BlockChains, BadArguments) {
  const LayerTiles t = layer_of({{0, 16}});
  EXPECT_THROW(block_chains(t, all(t), 0), std::invalid_argument);
  EXPECT_THROW(block_chains(t, {1}, 8), std::invalid_argument);
  EXPECT_THROW(block_chains(t, {-1}, 8), std::invalid_argument);
}

}  // namespace
}  // namespace snk::gc
