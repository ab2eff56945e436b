// graphchallenge/plan/tiles.hpp: a layer's rows and columns reordered so that its non-zeros form dense blocks, found
// from the matrix alone, and the network in that form with the permutations of the activations between layers.
//
// Rows of W (input neurons) with the same set of columns form a row class; columns (output neurons) with the same set
// of rows form a column class. A row class R and a column class C meet in a block that is either full or empty: if a
// row of R holds a column of C, every row of R holds it (same columns), and that column holds every row of R, as does
// every column of C (same rows). Laid out class by class, W is therefore a block-sparse matrix of fully dense blocks,
// with no assumption about how it was made. For the challenge's RadiX-Net layers (generator.hpp) every class has 16
// members and every row class meets 2 column classes: 16 x 16 dense blocks, whatever the random permutations of the
// later RadiX blocks; at the last stage of each RadiX block (stride M/2, where base rows i and i + M/2 share both
// columns) the classes have 32 members and meet one: 32 x 32 dense blocks. A matrix without such structure gets
// classes of one member: its blocks are its single entries. The classes come from equal_list_classes, which the fused
// engine's column bundles use too.
//
// In the tiled network, layer l reads its inputs in its row order and writes its outputs in its column order; the
// input of position p is the output of the previous layer at position gather[l][p] (for layer 0, neuron gather[0][p]
// of the inputs). tiled_infer runs the challenge's rule on this form in double precision: the host reference that the
// tiled engines are checked against (it must give reference_infer's categories).
#pragma once

#include <cstdint>
#include <vector>

#include "io/types.hpp"

namespace snk::gc {

struct TiledLayer {
  int64_t nrows = 0, ncols = 0;
  std::vector<int32_t> row_neuron;   // input position p holds input neuron row_neuron[p]
  std::vector<int32_t> col_neuron;   // output position q holds output neuron col_neuron[q]
  // Classes: row class c covers input positions [row_class[c], row_class[c + 1]); likewise column classes.
  std::vector<int64_t> row_class{0};
  std::vector<int64_t> col_class{0};
  // Blocks, by row class: those of row class c are block_ptr[c] .. block_ptr[c + 1] - 1, in increasing column class;
  // block b covers column class block_col[b], its values (the class sizes' product, row-major in tile order) start at
  // values[block_offset[b]].
  std::vector<int64_t> block_ptr{0};
  std::vector<int32_t> block_col;
  std::vector<int64_t> block_offset;
  std::vector<float> values;

  int64_t row_classes() const { return static_cast<int64_t>(row_class.size()) - 1; }
  int64_t col_classes() const { return static_cast<int64_t>(col_class.size()) - 1; }
  int64_t blocks() const { return static_cast<int64_t>(block_col.size()); }
  int64_t nnz() const { return static_cast<int64_t>(values.size()); }
};

// Classes of equal lists, list i being idx[ptr[i] .. ptr[i + 1]) (i < n): each list's class id, classes numbered in the
// order of their first member; `count` receives the number of classes. Lists are compared in full (a hash only sorts
// them into candidates).
std::vector<int32_t> equal_list_classes(int64_t n, const std::vector<int64_t>& ptr, const std::vector<int32_t>& idx,
                                        int32_t& count);

// W's classes and dense blocks. Classes are ordered by their smallest neuron, members ascending. Throws
// std::invalid_argument for a malformed CSR matrix (row pointers or columns out of range).
TiledLayer tile_layer(const CsrMatrix& W);

// The layer back in neuron order (the same matrix tile_layer was given).
CsrMatrix untile(const TiledLayer& t);

// How a layer tiled: class and block counts, the smallest and largest block (rows x columns), and the share of the
// non-zeros in blocks of at least min_side x min_side.
struct TileStats {
  int64_t row_classes = 0, col_classes = 0, blocks = 0;
  int64_t min_rows = 0, min_cols = 0, max_rows = 0, max_cols = 0;
  double share_in_large_blocks = 0;
};
TileStats tile_stats(const TiledLayer& t, int64_t min_side = 8);

struct TiledNetwork {
  int64_t neurons = 0;
  float bias = 0;
  std::vector<TiledLayer> layers;
  std::vector<std::vector<int32_t>> gather;   // gather[l][p]: see the opening comment
};

// Every layer tiled (on `threads` host threads, 0: one per usable core; the result does not depend on it) and the
// gathers.
TiledNetwork tile_network(const Network& net, int threads = 0);

// reference_infer's categories computed on the tiled form (double precision, each block's products summed in tile
// order; a row that died is not computed again). layers < 0: all of them.
std::vector<int64_t> tiled_infer(const TiledNetwork& net, const CsrMatrix& inputs, int64_t layers = -1);

}  // namespace snk::gc
