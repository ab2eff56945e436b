// graphchallenge/plan/tile_modes.hpp: a tiled layer (tiles.hpp) cut into the tiles the GPU engine computes, the three
// ways a tile can be computed, and the cost model that picks one per tile.
//
// A tile is a slice of one column class: at most max_columns of its outputs, with every dense block that feeds them.
// One thread block computes one tile for 128 live rows. The modes:
//   - Sparse: the table-driven kernel on the CUDA cores (block list, gather and weights read from memory); a
//     uniform tile (every output's weights alike, as in the challenge's layers) computes its one sum once;
//   - Tensor: the tile as a dense K x width matrix (K = the inputs of its blocks) on the FP64 tensor cores (DMMA), so
//     its sums keep the FP64 default's precision; offered only with FP64 sums;
//   - Embedded: code generated for the tile at run time (engine/embedded.hpp), its gather positions and weights
//     compiled in as constants; columns of equal weights compute one sum (the compiler merges their identical
//     chains), so it is priced on the distinct columns; costs a compile, bounded, and cached on disk.
// The cost model predicts one tile's time for 128 rows in each mode from the tile's inputs and non-zeros (a linear
// fit per mode over micro-benchmarks run on the device, engine/tiled_gpu.hpp), and the planner gives each tile its
// cheapest mode. Embedded tiles are compiled one module per layer, layers of most gain first; where the compile
// budget runs out, a layer's embedded tiles fall back to the cheaper of the other two modes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "plan/tiles.hpp"

namespace snk::gc {

// One dense block feeding a tile: input positions [r0, r0 + nr); weight (a, q) of the tile (input r0 + a, output
// start + q) at values[voff + a * pitch + q] of the layer.
struct TileBlock {
  int32_t r0 = 0, nr = 0;
  int64_t voff = 0;
};

struct LayerTiles {
  std::vector<int32_t> start;         // tile t computes output positions [start[t], start[t] + width[t])
  std::vector<int32_t> width;
  std::vector<int32_t> pitch;         // its column class's width: the stride of its weight rows
  std::vector<int32_t> block_ptr{0};  // its blocks: blocks[block_ptr[t] .. block_ptr[t + 1]), in row-class order
  std::vector<TileBlock> blocks;
  // Its distinct weight columns: outputs whose weights over all its inputs equal an earlier output's are not counted
  // (they compute the same sum; generated code computes it once: the challenge's tiles, all weights equal, have 1).
  std::vector<int32_t> distinct;

  int64_t tiles() const { return static_cast<int64_t>(start.size()); }
  int64_t inputs(int64_t t) const;    // the sum of its blocks' rows
  int64_t nnz(int64_t t) const { return inputs(t) * width[static_cast<size_t>(t)]; }
};

// The tiles of layer `t`: each column class cut into slices of at most max_columns outputs (max_columns >= 1), with
// their distinct columns counted.
LayerTiles layer_tiles(const TiledLayer& t, int max_columns);

// A network's tiles with the equal outputs of each uniform tile (LayerTiles::distinct == 1) merged into one value:
// such a tile becomes a tile of width 1 (its first output's weights, the same pitch), and each layer's outputs are
// numbered by value ("slots"): a merged tile's outputs share one slot, other tiles' outputs take one each, in tile
// order. The next layer reads slots: its gather maps an input position to the slot of the output it read. Layer 0
// reads the inputs in neuron order, unchanged. Each row's values are those of the unmerged network, bit for bit (a
// merged output is the same sum of the same products in the same order); only their copies are gone.
struct MergedNetwork {
  std::vector<LayerTiles> tiles;                 // per layer, the slot tiles: start = the first slot written
  std::vector<std::vector<int32_t>> gather;      // per layer, input position -> row of Y^T (slots of the layer before)
  std::vector<int32_t> slots;                    // per layer, the slots it writes
};
MergedNetwork merge_equal_outputs(const TiledNetwork& net, const std::vector<LayerTiles>& tiles);

// reference categories computed on the merged form in double precision, as tiled_infer does on the tiled form (the
// host check of merge_equal_outputs' numbering).
std::vector<int64_t> merged_infer(const TiledNetwork& net, const MergedNetwork& merged, const CsrMatrix& inputs);

enum class TileMode : int { Sparse = 0, Tensor = 1, Embedded = 2 };
constexpr int kTileModes = 3;
const char* tile_mode_name(TileMode m);   // "sparse", "tensor", "embedded"

// What the cost model reads of a tile. distinct_nnz = inputs x distinct columns: the multiply-adds left where equal
// columns are computed once (the embedded mode's code; the other modes compute all nnz).
// loads: the activations the sparse mode loads per row, where fewer than its inputs (a uniform tile whose inputs come
// in runs reading one activation with one weight, engine/tiled_kernels.cuh's uniform_runs: one load a run); 0: inputs.
struct TileShape {
  int64_t inputs = 0, width = 0, nnz = 0, distinct_nnz = 0, loads = 0;
};
TileShape tile_shape(const LayerTiles& tiles, int64_t t);   // loads 0

// The multiply-adds a tile costs in mode m: distinct_nnz in the embedded mode; in the sparse mode one column's worth
// (inputs) for a uniform tile (one distinct column: its sum computed once), else nnz; nnz in the tensor mode.
inline int64_t mode_nnz(TileMode m, const TileShape& s) {
  if (m == TileMode::Embedded) return s.distinct_nnz;
  if (m == TileMode::Sparse && s.distinct_nnz == s.inputs) return s.inputs;
  return s.nnz;
}

// The activations a tile loads per row in mode m: its loads in the sparse mode where set, else its inputs.
inline int64_t mode_inputs(TileMode m, const TileShape& s) {
  return m == TileMode::Sparse && s.loads > 0 ? s.loads : s.inputs;
}

// One mode's predicted time of a tile for 128 rows: base + per_input * (the activations it loads in that mode,
// mode_inputs) + per_nnz * (its multiply-adds in that mode, mode_nnz), in nanoseconds.
struct ModeCost {
  bool measured = false;
  double base_ns = 0, per_input_ns = 0, per_nnz_ns = 0;
  double predict_ns(int64_t inputs, int64_t nnz) const {
    return base_ns + per_input_ns * static_cast<double>(inputs) + per_nnz_ns * static_cast<double>(nnz);
  }
};

// A micro-benchmark's result: `tiles` tiles of one shape computed for `rows` rows in mode `mode` took `ns`.
struct TileTiming {
  TileMode mode = TileMode::Sparse;
  TileShape shape;
  int64_t tiles = 0, rows = 0;
  double ns = 0;
};

struct CostModel {
  std::string key;                         // what it was calibrated for (device, sums' type, format version)
  std::array<ModeCost, kTileModes> mode{};
  double compile_ns_per_nnz = 0;           // the embedded mode's compile time per non-zero compiled in

  double predict_ns(TileMode m, const TileShape& s) const {
    return mode[static_cast<size_t>(m)].predict_ns(mode_inputs(m, s), mode_nnz(m, s));
  }

  // The per-mode fits of `timings` (least squares; coefficients held at >= 0). A mode without timings of at least
  // two shapes stays unmeasured, and the planner never picks it.
  static CostModel fit(const std::string& key, const std::vector<TileTiming>& timings, double compile_ns_per_nnz);

  // Text form, one "name value" line per field; parse returns false, saying why, for text that is not a whole model
  // of this format.
  std::string serialize() const;
  static bool parse(const std::string& text, CostModel& out, std::string& why);
};

// Which modes the planner may give. Auto: each tile its cheapest measured mode. The others force one mode on every
// tile that can run in it (the rest stay sparse).
enum class ModePolicy { Auto, Sparse, Tensor, Embedded };
ModePolicy parse_mode_policy(const std::string& s);   // auto | sparse | tensor | embedded; throws std::invalid_argument

struct LayerModes {
  std::array<std::vector<int32_t>, kTileModes> tiles;   // tile ids per mode, ascending
  // Per embedded tile, the mode it falls back to where its layer's code is not compiled (same order as
  // tiles[Embedded]); and the predicted time the embedded tiles save per 128 rows against those modes.
  std::vector<TileMode> fallback;
  double embedded_gain_ns = 0;

  // Moves the embedded tiles to their fallback modes (keeping each list ascending).
  void drop_embedded();
};

struct ModePlan {
  std::vector<LayerModes> layers;
  std::array<int64_t, kTileModes> count() const;   // tiles per mode over the network
  int64_t embedded_fallbacks = 0;                  // tiles planned embedded whose code was not compiled in time
  std::string summary() const;                     // "sparse N, tensor N, embedded N (N fell back to ...)"
};

struct PlanOptions {
  ModePolicy policy = ModePolicy::Auto;
  bool tensor_allowed = true;        // false where the sums are FP32 (the tensor mode is FP64)
  bool embedded_allowed = true;      // false where no compiler is available
  // Whether a tile's equal weight columns may share one sum (LayerTiles::distinct). False: every column's sum is
  // computed, the costs count every column, and a tile with equal columns is never embedded (its compiled code would
  // share them: the compiler folds equal expressions).
  bool share_equal_sums = true;
};

// The modes of every layer's tiles. Auto gives each tile the mode of least predicted time among those allowed and
// measured (sparse where none is measured); a forced policy gives its mode to every tile where that mode is allowed
// (for the embedded mode: allowed for the tile, as PlanOptions::share_equal_sums says). uniform_loads, where given:
// per layer and tile, the loads (TileShape::loads) of the tile in the sparse mode where it is uniform and
// options.share_equal_sums (the engine's uniform kernel then computes it); the other tiles load their inputs.
// Throws std::invalid_argument for a forced mode that is not allowed, or uniform_loads not shaped as tiles.
ModePlan plan_tile_modes(const std::vector<LayerTiles>& tiles, const CostModel& model, const PlanOptions& options,
                         const std::vector<std::vector<int32_t>>* uniform_loads = nullptr);

}  // namespace snk::gc
