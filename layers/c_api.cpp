// layers/c_api.cpp: the C interface of c_api.h over SparseLinear and prune_and_regrow. Each call copies the caller's
// values into the layer's matrices (the pattern stays the layer's), runs the layer, and copies the results out as dense
// arrays: host arrays through the containers' host form, device arrays through the backend's device exchange
// (snk::import_device_full and its kin; a device batch is read where it lies, snk::borrow_device_full). The device
// forward and backward take the direct path first: the products on the caller's arrays (snk::device_sparse_times_dense
// and its kin), which make no matrix per call and so cost the host a fraction of the exchange's work. Errors become
// GrB_Info codes with the message kept per thread.
#include "c_api.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "calls.hpp"
#include "dst.hpp"
#include "snack/snack.hpp"
#include "sparse_linear.hpp"

struct snk_layer {
  std::unique_ptr<snk::layers::SparseLinear> linear;
};

namespace {

using snk::Error;
using snk::Index;
using snk::Info;
using snk::Matrix;

thread_local std::string last_error;

template <class F>
int guarded(F&& f) {
  try {
    f();
    return 0;
  } catch (const Error& e) {
    last_error = e.what();
    return static_cast<int>(e.info());
  } catch (const std::bad_alloc&) {
    last_error = "out of memory";
    return static_cast<int>(Info::OutOfMemory);
  } catch (const std::exception& e) {
    last_error = e.what();
    return static_cast<int>(Info::Panic);
  }
}

void need(const void* p, const char* what) {
  if (p == nullptr) throw Error(Info::NullPointer, std::string("snk_layer: ") + what + " is null");
}

snk::layers::SparseLinear& linear_of(const snk_layer* layer) {
  need(layer, "the layer");
  return *layer->linear;
}

// Copies the caller's values into the layer's W: the pattern is the layer's, so only the values change.
void put_weights(snk::layers::SparseLinear& l, const void* w) {
  need(w, "the weight values");
  snk::CsrStorage& s = l.weight().csr_mutable();
  if (!s.x.empty()) std::memcpy(s.x.data(), w, s.x.size());
}

// The same for the bias (every entry present), where the layer has one and the caller gives it (null: the forward
// leaves the bias out).
void put_bias(snk::layers::SparseLinear& l, const void* b) {
  if (!l.has_bias() || b == nullptr) return;
  snk::CsrStorage& s = l.bias().as_matrix().csr_mutable();
  if (s.nvals() != l.out_features()) throw Error(Info::InvalidObject, "snk_layer: the bias does not hold every entry");
  std::memcpy(s.x.data(), b, s.x.size());
}

// The caller's batch size as a row count (InvalidValue when negative).
Index batch_rows(int64_t batch) {
  if (batch < 0) throw Error(Info::InvalidValue, "snk_layer: a negative batch (" + std::to_string(batch) + ")");
  return static_cast<Index>(batch);
}

// A batch of the layer's type from the caller's row-major array (batch x cols).
Matrix batch_of(const snk::layers::SparseLinear& l, int64_t batch, Index cols, const void* data) {
  return snk::layers::calls::full_matrix(l.type(), batch_rows(batch), cols, data);
}

// A device call's layout argument (SNK_LAYER_ROWS or SNK_LAYER_FEATURES; InvalidValue otherwise).
snk::layers::BatchLayout layout_of(int layout, const char* what) {
  if (layout != SNK_LAYER_ROWS && layout != SNK_LAYER_FEATURES)
    throw Error(Info::InvalidValue, std::string("snk_layer: the layout of ") + what +
                                        " must be SNK_LAYER_ROWS or SNK_LAYER_FEATURES, not " + std::to_string(layout));
  return layout == SNK_LAYER_ROWS ? snk::layers::BatchLayout::Rows : snk::layers::BatchLayout::Features;
}

// A batch of the layer's type over the caller's device array, held as `layout` (snk::layers::empty_batch), row-major:
// read where it lies where `borrow` (the call's last export makes the caller's stream wait for every read, and nothing
// keeps the batch past the call), else copied on the device.
Matrix device_batch(const snk::layers::SparseLinear& l, int64_t batch, Index features, const void* data,
                    snk::layers::BatchLayout layout, bool borrow, void* stream) {
  Matrix M = snk::layers::empty_batch(l.type(), batch_rows(batch), features, layout);
  if (M.nrows() == 0 || M.ncols() == 0) return M;
  if (borrow)
    snk::borrow_device_full(M, data, stream);
  else
    snk::import_device_full(M, data, stream);
  return M;
}

// An output batch over the caller's device array, laid out as device_batch's: lent for the result, so that the product
// making it writes there and its export copies nothing (snk::borrow_device_output).
Matrix device_output(const snk::layers::SparseLinear& l, int64_t batch, Index features, void* data,
                     snk::layers::BatchLayout layout, void* stream) {
  Matrix M = snk::layers::empty_batch(l.type(), batch_rows(batch), features, layout);
  if (M.nrows() > 0 && M.ncols() > 0) snk::borrow_device_output(M, data, stream);
  return M;
}

// A device batch of n rows of `features` values held as `layout`, viewed as its transpose: features x n (element (f, i)
// is row i's feature f), the operand and result form of the device products.
snk::DeviceDense features_by_batch(const void* data, Index features, Index n, snk::layers::BatchLayout layout) {
  const bool rows = layout == snk::layers::BatchLayout::Rows;
  return snk::DeviceDense{data, features, n, rows ? 1 : static_cast<std::int64_t>(n),
                          rows ? static_cast<std::int64_t>(features) : 1};
}

// The same batch as it is: n x features.
snk::DeviceDense batch_by_features(const void* data, Index features, Index n, snk::layers::BatchLayout layout) {
  const snk::DeviceDense t = features_by_batch(data, features, n, layout);
  return snk::DeviceDense{data, n, features, t.col_stride, t.row_stride};
}

// The device calls' direct path: the products on the caller's arrays with the caller's values of W on the layer's
// pattern and plans (snk::device_sparse_times_dense and its kin), no matrix made for the batches and nothing kept by
// the layer. False where the backend has no such path for the layer (a hinted W, an empty row or column): the matrix
// operations then run the call. A backward that falls back after writing part of its outputs has them written again.
bool forward_direct(const snk::layers::SparseLinear& l, const void* w, const void* x, snk::layers::BatchLayout xl,
                    Index n, void* y, snk::layers::BatchLayout yl, void* stream) {
  return n > 0 && snk::device_sparse_times_dense(features_by_batch(y, l.out_features(), n, yl), l.weight(), w, false,
                                                 features_by_batch(x, l.in_features(), n, xl), stream);
}

bool backward_direct(const snk::layers::SparseLinear& l, const void* w, const void* x, snk::layers::BatchLayout xl,
                     const void* dy, snk::layers::BatchLayout dyl, Index n, void* dx, snk::layers::BatchLayout dxl,
                     void* dw, void* db, void* stream) {
  if (n == 0) return false;
  const snk::DeviceDense dYt = features_by_batch(dy, l.out_features(), n, dyl);   // dY^T, out x n
  // dW<W> = dY^T X first (the product most often declined: FP64, a batch past the sampled kernels' K), then
  // dX^T = W^T dY^T and db = the row sums of dY^T.
  if (dw != nullptr &&
      !snk::device_sampled_product(dw, l.weight(), dYt, batch_by_features(x, l.in_features(), n, xl), stream))
    return false;
  if (dx != nullptr && !snk::device_sparse_times_dense(features_by_batch(dx, l.in_features(), n, dxl), l.weight(), w,
                                                       true, dYt, stream))
    return false;
  return db == nullptr || !l.has_bias() || snk::device_row_sums(db, l.type(), dYt, stream);
}

// The caller's device values of W (on the layer's pattern), and of the bias b where the layer has one and b is given.
void put_device_values(snk::layers::SparseLinear& l, const void* w, const void* b, void* stream) {
  snk::import_device_values(l.weight(), l.weight(), w, stream);
  // On the bias's own pattern (every entry), so that its device copy keeps the plans the bias's products made.
  if (b != nullptr && l.has_bias()) snk::import_device_values(l.bias().as_matrix(), l.bias().as_matrix(), b, stream);
}

// Releases the layer's dW and the operands kept for it when the call ends, however it ends
// (SparseLinear::release_weight_grad): nothing in this interface reads them after the call that hands dW out.
class ReleaseWeightGrad {
 public:
  explicit ReleaseWeightGrad(snk::layers::SparseLinear& l) : l_(l) {}
  ~ReleaseWeightGrad() { l_.release_weight_grad(); }
  ReleaseWeightGrad(const ReleaseWeightGrad&) = delete;
  ReleaseWeightGrad& operator=(const ReleaseWeightGrad&) = delete;

 private:
  snk::layers::SparseLinear& l_;
};

// l's weight gradient on exactly W's positions, in W's order: the gradient itself where it holds every one (the sampled
// product does for a batch that is not empty), else made so in `made` (zeros at the positions it lacks).
const Matrix& gradient_at_weights(const snk::layers::SparseLinear& l, Matrix& made) {
  if (l.weight_grad().nvals() == l.weight().nvals()) return l.weight_grad();
  made = snk::layers::calls::on_positions_of(l.weight(), l.weight_grad(), "snk_layer_backward");
  return made;
}

// M's values into a zeroed row-major array (absent entries are zeros).
void dense_out(const Matrix& M, void* out) {
  const std::size_t elem = M.type()->size;
  const snk::CsrStorage& s = M.csr();
  const std::vector<Index>& rows = M.coo_rows();
  std::memset(out, 0, static_cast<std::size_t>(M.nrows() * M.ncols()) * elem);
  auto* o = static_cast<unsigned char*>(out);
  for (std::size_t e = 0; e < rows.size(); ++e)
    std::memcpy(o + (rows[e] * M.ncols() + s.j[e]) * elem, s.x.data() + e * elem, elem);
}

// Runs one rewiring step of l (`step` returns its Rewiring) and reports it as c_api.h's rewiring calls do: old_index
// maps each new non-zero to its index before the step (or -1), and the counts go to pruned and grown where given.
template <class Step>
void rewire_reported(snk::layers::SparseLinear& l, int64_t* old_index, int64_t* pruned, int64_t* grown, Step&& step) {
  const snk::layers::Rewiring r = step();
  const Index n = l.weight().nvals();
  if (r.old_index.empty()) {   // nothing changed
    for (Index k = 0; k < n; ++k) old_index[k] = static_cast<int64_t>(k);
  } else {
    std::copy(r.old_index.begin(), r.old_index.end(), old_index);
  }
  if (pruned != nullptr) *pruned = r.pruned;
  if (grown != nullptr) *grown = r.grown;
}

// Whether a rewiring with fraction zeta changes nothing on l (zeta in [0, 1] and round(zeta * nnz) == 0): it is then
// reported as such without the weights being put into the layer, so that its device copy and plans stay (a schedule
// that has decayed to zero calls it on every interval).
bool rewires_nothing(snk::layers::SparseLinear& l, double zeta, int64_t* old_index, int64_t* pruned, int64_t* grown) {
  if (snk_layer_rewiring_count(zeta, static_cast<int64_t>(l.weight().nvals())) != 0) return false;
  rewire_reported(l, old_index, pruned, grown, [] { return snk::layers::Rewiring{}; });
  return true;
}

}  // namespace

extern "C" {

const char* snk_layer_error(void) { return last_error.c_str(); }

int snk_layer_backend(const char* name) {
  return guarded([&] {
    need(name, "the backend name");
    snk::set_thread_backend(name);
  });
}

int snk_layer_new(snk_layer** layer, int64_t in_features, int64_t out_features, double density, uint64_t seed, int bias,
                  int type) {
  return guarded([&] {
    need(layer, "the layer's address");
    if (type != SNK_LAYER_FP32 && type != SNK_LAYER_FP64)
      throw Error(Info::InvalidValue, "snk_layer_new: the type must be SNK_LAYER_FP32 or SNK_LAYER_FP64, not " +
                                          std::to_string(type));
    auto made = std::make_unique<snk_layer>();
    const snk::Type* t = type == SNK_LAYER_FP32 ? &snk::types::FP32 : &snk::types::FP64;
    made->linear = std::make_unique<snk::layers::SparseLinear>(in_features, out_features, density, seed, bias != 0, t);
    *layer = made.release();
  });
}

void snk_layer_free(snk_layer* layer) { delete layer; }

int64_t snk_layer_nnz(const snk_layer* layer) { return layer == nullptr ? 0 : layer->linear->weight().nvals(); }

int snk_layer_pattern(const snk_layer* layer, int64_t* rows, int64_t* cols) {
  return guarded([&] {
    const Matrix& W = linear_of(layer).weight();
    const std::vector<Index>& I = W.coo_rows();
    const std::vector<Index>& J = W.csr().j;
    if (!I.empty()) {
      need(rows, "rows");
      need(cols, "cols");
    }
    std::copy(I.begin(), I.end(), rows);
    std::copy(J.begin(), J.end(), cols);
  });
}

int snk_layer_set_pattern(snk_layer* layer, int64_t nnz, const int64_t* rows, const int64_t* cols) {
  return guarded([&] {
    snk::layers::SparseLinear& l = linear_of(layer);
    if (nnz < 0) throw Error(Info::InvalidValue, "snk_layer_set_pattern: a negative count");
    if (nnz > 0) {
      need(rows, "rows");
      need(cols, "cols");
    }
    for (int64_t k = 0; k < nnz; ++k) {
      if (rows[k] < 0 || rows[k] >= l.out_features() || cols[k] < 0 || cols[k] >= l.in_features())
        throw Error(Info::InvalidIndex, "snk_layer_set_pattern: position " + std::to_string(k) + " (" +
                                            std::to_string(rows[k]) + ", " + std::to_string(cols[k]) +
                                            ") lies outside the " + std::to_string(l.out_features()) + " x " +
                                            std::to_string(l.in_features()) + " weights");
      if (k > 0 && (rows[k] < rows[k - 1] || (rows[k] == rows[k - 1] && cols[k] <= cols[k - 1])))
        throw Error(Info::InvalidValue, "snk_layer_set_pattern: position " + std::to_string(k) +
                                            " does not follow the one before it (row by row, columns increasing, "
                                            "no repeats)");
    }
    std::vector<Index> I(rows, rows + nnz), J(cols, cols + nnz);
    const std::vector<double> zeros(static_cast<std::size_t>(nnz), 0.0);
    Matrix W(l.type(), l.out_features(), l.in_features());
    W.build(I.data(), J.data(), zeros.data(), &snk::types::FP64, static_cast<Index>(nnz), nullptr);
    l.weight() = std::move(W);
  });
}

int snk_layer_erk(int64_t n, const int64_t* in_features, const int64_t* out_features, double density,
                  double* densities) {
  return guarded([&] {
    if (n < 0) throw Error(Info::InvalidValue, "snk_layer_erk: a negative count");
    if (n == 0) return;
    need(in_features, "in_features");
    need(out_features, "out_features");
    need(densities, "densities");
    std::vector<std::pair<Index, Index>> shapes;
    for (int64_t k = 0; k < n; ++k) {
      if (in_features[k] < 1 || out_features[k] < 1)
        throw Error(Info::InvalidValue, "snk_layer_erk: layer " + std::to_string(k) + " has no weights");
      shapes.emplace_back(static_cast<Index>(in_features[k]), static_cast<Index>(out_features[k]));
    }
    const std::vector<double> d = snk::layers::erk_densities(shapes, density);
    std::copy(d.begin(), d.end(), densities);
  });
}

int snk_layer_values(const snk_layer* layer, void* w, void* b) {
  return guarded([&] {
    const snk::layers::SparseLinear& l = linear_of(layer);
    const snk::CsrStorage& s = l.weight().csr();
    if (!s.x.empty()) need(w, "w");
    if (l.has_bias()) need(b, "b");
    if (!s.x.empty()) std::memcpy(w, s.x.data(), s.x.size());
    if (l.has_bias()) dense_out(l.bias().as_matrix(), b);
  });
}

int snk_layer_forward(snk_layer* layer, const void* w, const void* b, const void* x, int64_t batch, void* y) {
  return guarded([&] {
    snk::layers::SparseLinear& l = linear_of(layer);
    need(x, "x");
    need(y, "y");
    put_weights(l, w);
    put_bias(l, b);
    const Matrix X = batch_of(l, batch, l.in_features(), x);
    dense_out(l.forward(X, snk::layers::BatchLayout::Rows, snk::layers::BatchLayout::Rows, b != nullptr), y);
  });
}

int snk_layer_backward(snk_layer* layer, const void* w, const void* x, const void* dy, int64_t batch, void* dx,
                       void* dw, void* db) {
  return guarded([&] {
    snk::layers::SparseLinear& l = linear_of(layer);
    need(x, "x");
    need(dy, "dy");
    put_weights(l, w);   // the bias takes no part in the backward pass
    Matrix X = batch_of(l, batch, l.in_features(), x);
    Matrix dY = batch_of(l, batch, l.out_features(), dy);
    const ReleaseWeightGrad release(l);   // dW is handed out here: the layer keeps neither it nor X and dY
    const Matrix dX = l.backward(std::move(X), std::move(dY));   // the layer keeps them for dW
    // All outputs are computed before any is written, so a failure leaves them as they were.
    Matrix made(l.type(), l.out_features(), l.in_features());
    std::vector<unsigned char> dw_values;
    if (dw != nullptr) dw_values = gradient_at_weights(l, made).csr().x;
    if (dx != nullptr) dense_out(dX, dx);
    if (dw != nullptr && !dw_values.empty()) std::memcpy(dw, dw_values.data(), dw_values.size());
    if (db != nullptr && l.has_bias()) dense_out(l.bias_grad().as_matrix(), db);
  });
}

int snk_layer_forward_device(snk_layer* layer, const void* w, const void* b, const void* x, int x_layout,
                             int64_t batch, void* y, int y_layout, void* stream) {
  return guarded([&] {
    snk::BackendScope on_gpu("cuda");   // device memory is the cuda backend's
    snk::layers::SparseLinear& l = linear_of(layer);
    need(w, "the weight values");
    need(x, "x");
    need(y, "y");
    const auto xl = layout_of(x_layout, "x"), yl = layout_of(y_layout, "y");
    if (b == nullptr && forward_direct(l, w, x, xl, batch_rows(batch), y, yl, stream)) return;
    const Matrix X = device_batch(l, batch, l.in_features(), x, xl, /*borrow=*/true, stream);
    Matrix Y = device_output(l, batch, l.out_features(), y, yl, stream);
    put_device_values(l, w, b, stream);
    l.forward(X, xl, Y, yl, b != nullptr);
    snk::export_device_dense(Y, y, stream);   // the caller's stream waits for the product (written there, or copied)
  });
}

int snk_layer_backward_device(snk_layer* layer, const void* w, const void* x, int x_layout, const void* dy,
                              int dy_layout, int64_t batch, void* dx, int dx_layout, void* dw, void* db,
                              void* stream) {
  return guarded([&] {
    snk::BackendScope on_gpu("cuda");   // device memory is the cuda backend's
    snk::layers::SparseLinear& l = linear_of(layer);
    need(w, "the weight values");
    need(x, "x");
    need(dy, "dy");
    const auto xl = layout_of(x_layout, "x"), dyl = layout_of(dy_layout, "dy"), dxl = layout_of(dx_layout, "dx");
    // The layer's hold on X and dY, and on dW, ends with the call. They are read where they lie where an export ends
    // the call (it makes the caller's stream wait for every read), else copied.
    const ReleaseWeightGrad release(l);
    if (backward_direct(l, w, x, xl, dy, dyl, batch_rows(batch), dx, dxl, dw, db, stream)) return;
    const bool borrow = dx != nullptr || dw != nullptr || (db != nullptr && l.has_bias());
    Matrix X = device_batch(l, batch, l.in_features(), x, xl, borrow, stream);
    Matrix dY = device_batch(l, batch, l.out_features(), dy, dyl, borrow, stream);
    put_device_values(l, w, nullptr, stream);
    // dX is written where the caller wants it where it is asked for, else made and dropped.
    Matrix dX = dx != nullptr ? device_output(l, batch, l.in_features(), dx, dxl, stream)
                              : snk::layers::empty_batch(l.type(), batch_rows(batch), l.in_features(), dxl);
    l.backward(std::move(X), xl, std::move(dY), dyl, dX, dxl);   // the layer keeps X and dY for dW
    Matrix made(l.type(), l.out_features(), l.in_features());
    const Matrix* dW = dw != nullptr ? &gradient_at_weights(l, made) : nullptr;
    if (dx != nullptr) snk::export_device_dense(dX, dx, stream);
    if (dW != nullptr) snk::export_device_values(*dW, dw, stream);
    if (db != nullptr && l.has_bias()) snk::export_device_dense(l.bias_grad().as_matrix(), db, stream);
  });
}

void snk_layer_transfers(uint64_t* uploads, uint64_t* downloads, uint64_t* upload_bytes, uint64_t* download_bytes) {
  const snk::Transfers t = snk::transfers();
  if (uploads != nullptr) *uploads = t.uploads;
  if (downloads != nullptr) *downloads = t.downloads;
  if (upload_bytes != nullptr) *upload_bytes = t.upload_bytes;
  if (download_bytes != nullptr) *download_bytes = t.download_bytes;
}

void snk_layer_transfers_reset(void) { snk::reset_transfers(); }

int snk_layer_rewire(snk_layer* layer, const void* w, double zeta, int rule, uint64_t seed, int64_t* old_index,
                     int64_t* pruned, int64_t* grown) {
  return guarded([&] {
    snk::layers::SparseLinear& l = linear_of(layer);
    need(old_index, "old_index");
    if (rule != SNK_PRUNE_MAGNITUDE && rule != SNK_PRUNE_VALUE)
      throw Error(Info::InvalidValue, "snk_layer_rewire: the rule must be SNK_PRUNE_MAGNITUDE or SNK_PRUNE_VALUE, "
                                      "not " + std::to_string(rule));
    need(w, "the weight values");
    if (rewires_nothing(l, zeta, old_index, pruned, grown)) return;
    put_weights(l, w);
    const auto by = rule == SNK_PRUNE_MAGNITUDE ? snk::layers::PruneRule::SmallestMagnitude
                                                : snk::layers::PruneRule::SmallestValue;
    rewire_reported(l, old_index, pruned, grown, [&] { return snk::layers::prune_and_regrow(l, zeta, by, seed); });
  });
}

int snk_layer_rewire_rigl(snk_layer* layer, const void* w, double zeta, const void* x, const void* dy, int64_t batch,
                          int64_t block_rows, int64_t* old_index, int64_t* pruned, int64_t* grown) {
  return guarded([&] {
    snk::layers::SparseLinear& l = linear_of(layer);
    need(old_index, "old_index");
    need(x, "x");
    need(dy, "dy");
    if (block_rows < 1) throw Error(Info::InvalidValue, "snk_layer_rewire_rigl: block_rows must be at least 1");
    const Matrix X = batch_of(l, batch, l.in_features(), x);
    const Matrix dY = batch_of(l, batch, l.out_features(), dy);
    need(w, "the weight values");
    if (rewires_nothing(l, zeta, old_index, pruned, grown)) return;
    put_weights(l, w);
    rewire_reported(l, old_index, pruned, grown,
                    [&] { return snk::layers::rigl_rewire(l, zeta, X, dY, static_cast<Index>(block_rows)); });
  });
}

double snk_layer_cosine_fraction(double zeta0, int64_t step, int64_t total_steps, double stop_fraction) {
  if (step < 0 || total_steps < 0) return 0.0;
  return snk::layers::cosine_fraction(zeta0, static_cast<Index>(step), static_cast<Index>(total_steps), stop_fraction);
}

int64_t snk_layer_rewiring_count(double zeta, int64_t nvals) {
  if (!(zeta >= 0.0 && zeta <= 1.0) || nvals < 0) return -1;
  return static_cast<int64_t>(snk::layers::rewiring_count(zeta, static_cast<Index>(nvals)));
}

int snk_layer_rewire_due(int64_t step, int64_t interval, int64_t total_steps, double stop_fraction) {
  if (step < 0 || interval < 0 || total_steps < 0) return 0;
  return snk::layers::rewire_due(static_cast<Index>(step), static_cast<Index>(interval),
                                 static_cast<Index>(total_steps), stop_fraction)
             ? 1
             : 0;
}

}  // extern "C"
