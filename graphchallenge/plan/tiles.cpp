// graphchallenge/plan/tiles.cpp: classes of identical rows and columns, the dense blocks they form, the tiled network
// and its double-precision host inference (tiles.hpp says why the blocks are dense).
#include "plan/tiles.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "host/threads.hpp"
#include "io/rows.hpp"

namespace snk::gc {
namespace {

// The members of each class laid out class after class (members ascending): order[p] is the member at position p,
// start[c] the first position of class c (count + 1 values), pos[i] the position of member i.
void layout(const std::vector<int32_t>& cls, int32_t count, std::vector<int32_t>& order, std::vector<int64_t>& start,
            std::vector<int64_t>& pos) {
  start.assign(static_cast<size_t>(count) + 1, 0);
  for (int32_t c : cls) ++start[c + 1];
  for (int32_t c = 0; c < count; ++c) start[c + 1] += start[c];
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  order.assign(cls.size(), 0);
  pos.assign(cls.size(), 0);
  for (size_t i = 0; i < cls.size(); ++i) {
    pos[i] = next[cls[i]]++;
    order[pos[i]] = static_cast<int32_t>(i);
  }
}

}  // namespace

std::vector<int32_t> equal_list_classes(int64_t n, const std::vector<int64_t>& ptr, const std::vector<int32_t>& idx,
                                        int32_t& count) {
  const auto equal = [&](int64_t a, int64_t b) {
    return ptr[a + 1] - ptr[a] == ptr[b + 1] - ptr[b] &&
           std::equal(idx.begin() + ptr[a], idx.begin() + ptr[a + 1], idx.begin() + ptr[b]);
  };
  std::unordered_map<uint64_t, std::vector<int32_t>> by_hash;   // hash -> classes with that hash
  std::vector<int64_t> first;                                   // a member of each class
  std::vector<int32_t> cls(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    uint64_t h = 14695981039346656037ull ^ static_cast<uint64_t>(ptr[i + 1] - ptr[i]);
    for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k) h = (h ^ static_cast<uint32_t>(idx[k])) * 1099511628211ull;
    std::vector<int32_t>& candidates = by_hash[h];
    int32_t c = -1;
    for (int32_t d : candidates)
      if (equal(first[d], i)) {
        c = d;
        break;
      }
    if (c < 0) {
      c = static_cast<int32_t>(first.size());
      first.push_back(i);
      candidates.push_back(c);
    }
    cls[i] = c;
  }
  count = static_cast<int32_t>(first.size());
  return cls;
}

TiledLayer tile_layer(const CsrMatrix& W) {
  const int64_t nrows = W.nrows, ncols = W.ncols;
  if (nrows < 0 || ncols < 0 || static_cast<int64_t>(W.row_ptr.size()) != nrows + 1 || W.row_ptr[0] != 0 ||
      W.row_ptr[nrows] != W.nnz() || static_cast<int64_t>(W.val.size()) != W.nnz())
    throw std::invalid_argument("tile_layer: a malformed CSR matrix (row pointers or value count)");
  for (int64_t i = 0; i < nrows; ++i) {
    if (W.row_ptr[i + 1] < W.row_ptr[i]) throw std::invalid_argument("tile_layer: row pointers decrease at row " + std::to_string(i));
    for (int64_t k = W.row_ptr[i]; k < W.row_ptr[i + 1]; ++k)
      if (W.col[k] < 0 || W.col[k] >= ncols || (k > W.row_ptr[i] && W.col[k] <= W.col[k - 1]))
        throw std::invalid_argument("tile_layer: row " + std::to_string(i) + "'s columns are out of range or not increasing");
  }
  const CsrMatrix columns = transposed(W);   // the columns' row lists, rows ascending
  int32_t nrc = 0, ncc = 0;
  const std::vector<int32_t> rcls = equal_list_classes(nrows, W.row_ptr, W.col, nrc);
  const std::vector<int32_t> ccls = equal_list_classes(ncols, columns.row_ptr, columns.col, ncc);

  TiledLayer t;
  t.nrows = nrows;
  t.ncols = ncols;
  std::vector<int64_t> row_pos, col_pos;
  layout(rcls, nrc, t.row_neuron, t.row_class, row_pos);
  layout(ccls, ncc, t.col_neuron, t.col_class, col_pos);

  // The blocks of each row class: the column classes its first row meets (each met in full: tiles.hpp).
  t.block_ptr.assign(static_cast<size_t>(nrc) + 1, 0);
  std::vector<int64_t> block_of_class(static_cast<size_t>(ncc), -1);   // scratch: block index within the row class
  for (int32_t c = 0; c < nrc; ++c) {
    const int64_t r0 = t.row_class[c], rows = t.row_class[c + 1] - r0;
    const int32_t first = t.row_neuron[r0];
    std::vector<int32_t> met;
    for (int64_t k = W.row_ptr[first]; k < W.row_ptr[first + 1]; ++k) met.push_back(ccls[W.col[k]]);
    std::sort(met.begin(), met.end());
    met.erase(std::unique(met.begin(), met.end()), met.end());
    const int64_t b0 = t.blocks();
    for (size_t m = 0; m < met.size(); ++m) {
      const int32_t cc = met[m];
      const int64_t cols = t.col_class[cc + 1] - t.col_class[cc];
      t.block_col.push_back(cc);
      t.block_offset.push_back(t.nnz());
      t.values.resize(t.values.size() + static_cast<size_t>(rows * cols));
      block_of_class[cc] = b0 + static_cast<int64_t>(m);
    }
    // Every entry of every row of the class into its block; each block must be filled exactly (all-or-nothing).
    int64_t placed = 0;
    for (int64_t a = 0; a < rows; ++a) {
      const int32_t i = t.row_neuron[r0 + a];
      for (int64_t k = W.row_ptr[i]; k < W.row_ptr[i + 1]; ++k) {
        const int32_t j = W.col[k], cc = ccls[j];
        const int64_t b = block_of_class[cc];
        if (b < b0) throw std::logic_error("tile_layer: a row class meets a column class its first row does not");
        const int64_t cols = t.col_class[cc + 1] - t.col_class[cc];
        t.values[static_cast<size_t>(t.block_offset[b] + a * cols + (col_pos[j] - t.col_class[cc]))] = W.val[k];
        ++placed;
      }
    }
    if (placed != t.nnz() - (b0 < t.blocks() ? t.block_offset[b0] : t.nnz()))
      throw std::logic_error("tile_layer: a block is not full");
    for (int32_t cc : met) block_of_class[cc] = -1;
    t.block_ptr[c + 1] = t.blocks();
  }
  return t;
}

CsrMatrix untile(const TiledLayer& t) {
  std::vector<std::vector<std::pair<int32_t, float>>> rows(static_cast<size_t>(t.nrows));
  for (int64_t c = 0; c < t.row_classes(); ++c) {
    const int64_t r0 = t.row_class[c], nr = t.row_class[c + 1] - r0;
    for (int64_t b = t.block_ptr[c]; b < t.block_ptr[c + 1]; ++b) {
      const int64_t c0 = t.col_class[t.block_col[b]], nc = t.col_class[t.block_col[b] + 1] - c0;
      for (int64_t a = 0; a < nr; ++a)
        for (int64_t q = 0; q < nc; ++q)
          rows[t.row_neuron[r0 + a]].push_back({t.col_neuron[c0 + q], t.values[t.block_offset[b] + a * nc + q]});
    }
  }
  CsrMatrix W;
  W.nrows = t.nrows;
  W.ncols = t.ncols;
  for (auto& r : rows) {
    std::sort(r.begin(), r.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [j, v] : r) {
      W.col.push_back(j);
      W.val.push_back(v);
    }
    W.row_ptr.push_back(static_cast<int64_t>(W.col.size()));
  }
  return W;
}

TileStats tile_stats(const TiledLayer& t, int64_t min_side) {
  TileStats s;
  s.row_classes = t.row_classes();
  s.col_classes = t.col_classes();
  s.blocks = t.blocks();
  int64_t large = 0;
  bool first = true;
  for (int64_t c = 0; c < t.row_classes(); ++c) {
    const int64_t nr = t.row_class[c + 1] - t.row_class[c];
    for (int64_t b = t.block_ptr[c]; b < t.block_ptr[c + 1]; ++b) {
      const int64_t nc = t.col_class[t.block_col[b] + 1] - t.col_class[t.block_col[b]];
      if (first || nr * nc < s.min_rows * s.min_cols) s.min_rows = nr, s.min_cols = nc;
      if (first || nr * nc > s.max_rows * s.max_cols) s.max_rows = nr, s.max_cols = nc;
      first = false;
      if (nr >= min_side && nc >= min_side) large += nr * nc;
    }
  }
  s.share_in_large_blocks = t.nnz() > 0 ? static_cast<double>(large) / static_cast<double>(t.nnz()) : 0.0;
  return s;
}

TiledNetwork tile_network(const Network& net, int threads) {
  TiledNetwork tn;
  tn.neurons = net.neurons;
  tn.bias = net.bias;
  const int64_t count = static_cast<int64_t>(net.layers.size());
  for (int64_t l = 0; l < count; ++l)
    if (net.layers[l].nrows != net.neurons || net.layers[l].ncols != net.neurons)
      throw std::invalid_argument("tile_network: layer " + std::to_string(l + 1) + " is not neurons x neurons");
  tn.layers.resize(static_cast<size_t>(count));
  host::for_each_index(
      static_cast<size_t>(count), [&](size_t l) { tn.layers[l] = tile_layer(net.layers[l]); }, threads);
  std::vector<int32_t> out_pos(static_cast<size_t>(net.neurons));
  for (int64_t l = 0; l < count; ++l) {
    std::vector<int32_t> g(tn.layers[l].row_neuron);   // layer 0 reads the inputs by neuron
    if (l > 0) {
      const TiledLayer& prev = tn.layers[l - 1];
      for (size_t q = 0; q < prev.col_neuron.size(); ++q) out_pos[prev.col_neuron[q]] = static_cast<int32_t>(q);
      for (int32_t& p : g) p = out_pos[p];
    }
    tn.gather.push_back(std::move(g));
  }
  return tn;
}

std::vector<int64_t> tiled_infer(const TiledNetwork& net, const CsrMatrix& inputs, int64_t layers) {
  const int64_t n = net.neurons;
  const int64_t count = layers < 0 ? static_cast<int64_t>(net.layers.size())
                                   : std::min<int64_t>(layers, static_cast<int64_t>(net.layers.size()));
  if (inputs.ncols != n)
    throw std::invalid_argument("tiled_infer: inputs have " + std::to_string(inputs.ncols) + " columns, network has " +
                                std::to_string(n) + " neurons");
  if (net.bias > 0) throw std::invalid_argument("tiled_infer: a positive bias is not supported (the challenge's is negative)");
  const double bias = net.bias;
  std::vector<int64_t> alive;
  std::vector<double> y(static_cast<size_t>(n)), x(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int64_t r = 0; r < inputs.nrows; ++r) {
    std::fill(y.begin(), y.end(), 0.0);   // in neuron order for layer 0, then in the last layer's output order
    bool any = false;
    for (int64_t k = inputs.row_ptr[r]; k < inputs.row_ptr[r + 1]; ++k) {
      y[inputs.col[k]] = inputs.val[k];
      any = any || inputs.val[k] != 0.0f;
    }
    for (int64_t l = 0; l < count && any; ++l) {
      const TiledLayer& t = net.layers[l];
      const std::vector<int32_t>& g = net.gather[l];
      for (int64_t p = 0; p < n; ++p) x[p] = y[g[p]];
      std::fill(out.begin(), out.end(), 0.0);
      for (int64_t c = 0; c < t.row_classes(); ++c) {
        const int64_t r0 = t.row_class[c], nr = t.row_class[c + 1] - r0;
        for (int64_t b = t.block_ptr[c]; b < t.block_ptr[c + 1]; ++b) {
          const int64_t c0 = t.col_class[t.block_col[b]], nc = t.col_class[t.block_col[b] + 1] - c0;
          const float* v = t.values.data() + t.block_offset[b];
          for (int64_t a = 0; a < nr; ++a) {
            const double xa = x[r0 + a];
            if (xa == 0.0) continue;   // a zero activation is no entry of the sparse Y
            for (int64_t q = 0; q < nc; ++q) out[c0 + q] += xa * static_cast<double>(v[a * nc + q]);
          }
        }
      }
      any = false;
      // reference_infer adds the bias only where Y W reached; elsewhere 0 + bias <= 0 is cut by the ReLU all the same.
      for (int64_t q = 0; q < n; ++q) {
        const double v = out[q] + bias;
        y[q] = v > 0.0 ? std::min(v, kChallengeClamp) : 0.0;
        any = any || y[q] != 0.0;
      }
    }
    if (any) alive.push_back(r);
  }
  return alive;
}

}  // namespace snk::gc
