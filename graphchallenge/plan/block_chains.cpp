// graphchallenge/plan/block_chains.cpp: orient_block_chains and block_chains (block_chains.hpp says what they do).
#include "plan/block_chains.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace snk::gc {
namespace {

// A block's input positions as one key.
int64_t block_key(const TileBlock& b) {
  return (static_cast<int64_t>(b.r0) << 32) | static_cast<int64_t>(static_cast<uint32_t>(b.nr));
}

// Tile t's two block keys where it has exactly two blocks of different positions.
bool two_blocks(const LayerTiles& tiles, int64_t t, int64_t& first, int64_t& second) {
  const int32_t b = tiles.block_ptr[static_cast<size_t>(t)];
  if (tiles.block_ptr[static_cast<size_t>(t) + 1] - b != 2) return false;
  first = block_key(tiles.blocks[static_cast<size_t>(b)]);
  second = block_key(tiles.blocks[static_cast<size_t>(b) + 1]);
  return first != second;
}

}  // namespace

int64_t orient_block_chains(LayerTiles& tiles) {
  const int64_t n = tiles.tiles();
  // The candidates: uniform two-block tiles; then those whose blocks no third candidate reads.
  std::vector<std::array<int64_t, 2>> keys(static_cast<size_t>(n));
  std::vector<char> kept(static_cast<size_t>(n), 0);
  std::unordered_map<int64_t, int32_t> readers;
  for (int64_t t = 0; t < n; ++t) {
    auto& k = keys[static_cast<size_t>(t)];
    if (tiles.distinct[static_cast<size_t>(t)] == 1 && two_blocks(tiles, t, k[0], k[1])) {
      kept[static_cast<size_t>(t)] = 1;
      ++readers[k[0]];
      ++readers[k[1]];
    }
  }
  std::unordered_map<int64_t, std::array<int32_t, 2>> at;   // block -> the (at most two) kept tiles reading it
  for (int64_t t = 0; t < n; ++t) {
    if (!kept[static_cast<size_t>(t)]) continue;
    const auto& k = keys[static_cast<size_t>(t)];
    if (readers[k[0]] > 2 || readers[k[1]] > 2) {
      kept[static_cast<size_t>(t)] = 0;
      continue;
    }
    for (const int64_t key : k) {
      std::array<int32_t, 2>& readers_of = at.try_emplace(key, std::array<int32_t, 2>{-1, -1}).first->second;
      readers_of[readers_of[0] < 0 ? 0 : 1] = static_cast<int32_t>(t);
    }
  }
  std::vector<char> walked(static_cast<size_t>(n), 0);
  int64_t swapped = 0;
  // From block `from` along tile t and on: each tile's first block the one the walk enters it by.
  const auto walk = [&](int64_t from, int32_t t) {
    while (t >= 0) {
      walked[static_cast<size_t>(t)] = 1;
      auto& k = keys[static_cast<size_t>(t)];
      if (k[0] != from) {
        const size_t b = static_cast<size_t>(tiles.block_ptr[static_cast<size_t>(t)]);
        std::swap(tiles.blocks[b], tiles.blocks[b + 1]);
        std::swap(k[0], k[1]);
        ++swapped;
      }
      from = k[1];
      const std::array<int32_t, 2>& next = at.at(from);
      t = next[0] >= 0 && !walked[static_cast<size_t>(next[0])] ? next[0]
          : next[1] >= 0 && !walked[static_cast<size_t>(next[1])] ? next[1] : -1;
    }
  };
  // Paths from an end (a block only one kept tile reads), then the cycles left.
  for (int64_t t = 0; t < n; ++t) {
    if (!kept[static_cast<size_t>(t)] || walked[static_cast<size_t>(t)]) continue;
    for (const int64_t key : keys[static_cast<size_t>(t)])
      if (!walked[static_cast<size_t>(t)] && at.at(key)[1] < 0) walk(key, static_cast<int32_t>(t));
  }
  for (int64_t t = 0; t < n; ++t)
    if (kept[static_cast<size_t>(t)] && !walked[static_cast<size_t>(t)]) walk(keys[static_cast<size_t>(t)][0], static_cast<int32_t>(t));
  return swapped;
}

BlockChains block_chains(const LayerTiles& tiles, const std::vector<int32_t>& list, int most) {
  if (most < 1) throw std::invalid_argument("block_chains: segments of " + std::to_string(most) + " tiles");
  const size_t n = list.size();
  // Entry i's successor: the entry whose first block is i's second, where exactly one entry starts there and exactly
  // one ends there.
  std::vector<std::array<int64_t, 2>> keys(n);
  std::vector<char> two(n, 0);
  std::unordered_map<int64_t, int32_t> starting, ending;   // block -> the entry starting (ending) there, -1: several
  for (size_t i = 0; i < n; ++i) {
    const int32_t t = list[i];
    if (t < 0 || t >= tiles.tiles()) throw std::invalid_argument("block_chains: tile " + std::to_string(t) + " of " +
                                                                 std::to_string(tiles.tiles()));
    if (!two_blocks(tiles, t, keys[i][0], keys[i][1])) continue;
    two[i] = 1;
    auto [s, s_new] = starting.try_emplace(keys[i][0], static_cast<int32_t>(i));
    if (!s_new) s->second = -1;
    auto [e, e_new] = ending.try_emplace(keys[i][1], static_cast<int32_t>(i));
    if (!e_new) e->second = -1;
  }
  std::vector<int32_t> next(n, -1);
  std::vector<char> has_before(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!two[i] || ending.at(keys[i][1]) < 0) continue;
    const auto s = starting.find(keys[i][1]);
    if (s == starting.end() || s->second < 0 || static_cast<size_t>(s->second) == i) continue;
    next[i] = s->second;
    has_before[static_cast<size_t>(s->second)] = 1;
  }
  BlockChains c;
  std::vector<char> placed(n, 0);
  const auto walk = [&](size_t i) {
    int32_t in_segment = 0;
    for (int64_t e = static_cast<int64_t>(i); e >= 0 && !placed[static_cast<size_t>(e)]; e = next[static_cast<size_t>(e)]) {
      placed[static_cast<size_t>(e)] = 1;
      c.tiles.push_back(list[static_cast<size_t>(e)]);
      if (++in_segment == most) {
        c.seg_ptr.push_back(static_cast<int32_t>(c.tiles.size()));
        in_segment = 0;
      }
    }
    if (in_segment > 0) c.seg_ptr.push_back(static_cast<int32_t>(c.tiles.size()));
  };
  for (size_t i = 0; i < n; ++i)   // paths (and lone tiles) from their first entry
    if (!placed[i] && !has_before[i]) walk(i);
  for (size_t i = 0; i < n; ++i)   // cycles
    if (!placed[i]) walk(i);
  return c;
}

std::vector<int32_t> chained_loads(const LayerTiles& tiles, std::vector<int32_t> loads, int most) {
  if (static_cast<int64_t>(loads.size()) != tiles.tiles())
    throw std::invalid_argument("chained_loads: " + std::to_string(loads.size()) + " loads for " +
                                std::to_string(tiles.tiles()) + " tiles");
  std::vector<int32_t> uniform;
  for (int64_t t = 0; t < tiles.tiles(); ++t)
    if (tiles.distinct[static_cast<size_t>(t)] == 1) uniform.push_back(static_cast<int32_t>(t));
  const BlockChains c = block_chains(tiles, uniform, most);
  for (int64_t s = 0; s < c.segments(); ++s) {
    const int64_t g = c.seg_ptr[static_cast<size_t>(s) + 1] - c.seg_ptr[static_cast<size_t>(s)];
    if (g < 2) continue;
    for (int32_t i = c.seg_ptr[static_cast<size_t>(s)]; i < c.seg_ptr[static_cast<size_t>(s) + 1]; ++i) {
      int32_t& l = loads[static_cast<size_t>(c.tiles[static_cast<size_t>(i)])];
      l = static_cast<int32_t>((static_cast<int64_t>(l) * (g + 1) + 2 * g - 1) / (2 * g));
    }
  }
  return loads;
}

}  // namespace snk::gc
