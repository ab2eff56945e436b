// graphchallenge/plan/block_chains.hpp: uniform tiles that share whole input blocks, put in chains so that a kernel
// loads each shared block's activations once for the two tiles that read it.
//
// In the challenge's layers (RadiX-Net) each uniform tile (tile_modes.hpp: every output's weights alike) reads two
// blocks of 16 input positions, and each block is read by two tiles: the tiles are the edges of a graph whose nodes
// are the blocks, every node of degree two, so the graph is a set of cycles. Walking a cycle, tile k reads blocks k
// and k + 1, and a thread that sweeps the blocks in that order with two running sums (tile k - 1's and tile k's)
// loads each block once instead of twice. A tile sums its inputs in its blocks' order, so the sweep needs each tile's
// blocks in walk order: orient_block_chains swaps a tile's two blocks where the walk meets them the other way round,
// before anything sums the tile (every kernel, the merged network and the host references then use that order).
// Found from the tiles alone: any block read by more than two such tiles, or tiles of other shapes, are left out.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/tile_modes.hpp"

namespace snk::gc {

// Orients the chains of `tiles`: the uniform tiles (distinct == 1) of exactly two blocks of different positions, whose
// blocks no third such tile reads, get their two blocks in the order of a walk along their path or cycle, each tile's
// first block its predecessor's second. Paths are walked from an end, cycles from their lowest-numbered tile. Returns
// how many tiles had their blocks swapped. Other tiles are left as they are.
int64_t orient_block_chains(LayerTiles& tiles);

// The tiles of `list` (a layer's uniform tiles, in any order) cut into segments of at most `most` tiles (most >= 1):
// within a segment, tile j's second block is tile j + 1's first (same positions). Every tile of the list is in
// exactly one segment, those that chain to no other alone; a segment of two or more tiles has only two-block tiles.
struct BlockChains {
  std::vector<int32_t> tiles;        // segment s: tiles[seg_ptr[s] .. seg_ptr[s + 1])
  std::vector<int32_t> seg_ptr{0};
  int64_t segments() const { return static_cast<int64_t>(seg_ptr.size()) - 1; }
};
BlockChains block_chains(const LayerTiles& tiles, const std::vector<int32_t>& list, int most);

// The activations each tile of `tiles` loads per row where its uniform tiles (distinct == 1) run chained in segments
// of at most `most` (block_chains over all of them), from `loads`, those it loads on its own (one per run of its
// inputs): a tile in a segment of g >= 2 tiles, whose g + 1 blocks are loaded once for its g tiles, is priced at
// (g + 1) / 2g of its own loads, rounded up; every other tile keeps its own. What the cost model prices the sparse mode
// by (tile_modes.hpp: TileShape::loads).
std::vector<int32_t> chained_loads(const LayerTiles& tiles, std::vector<int32_t> loads, int most);

}  // namespace snk::gc
