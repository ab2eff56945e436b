// src/containers/matrix.cpp: the Matrix container (everything in containers.hpp except build, which is in
// build.cpp): construction and copies, element access with pending work, resize/clear/diag, the derived
// forms (sorted-COO rows, bitmap), and the host/device copy protocol.
//
// Invariants kept here:
//   - csr_ is a valid (hyper)CSR form in the shape the size rule asks, whenever host_valid_ is set.
//   - Pending work is a list of tuples in pending_i_/pending_j_/pending_x_ (values already in the matrix
//     type), applied in order by assemble_pending(): a later tuple for the same (i,j) wins. A pending
//     removal is a tuple whose row index carries kRemoveBit (indices are < 2^60, so bit 63 is free); this
//     makes removeElement O(1) like setElement instead of shifting the CSR arrays on every call.
//     Assembly is a stable sort of the pending tuples plus one merge with the CSR form, O((n+p) log p).
//   - Pending tuples exist only while the host copy is valid: every host write first downloads a stale
//     host copy and then drops the device copy (the device copy is released, not just flagged, so that no
//     backend can ever read stale device data; a backend uploads again when it needs the data).
//   - Cached derived forms are dropped by every change of content.
// Threads: const methods may finish pending work, download the device copy or fill a cache, so they are not
// safe to call concurrently on an unfinished matrix; on a finished one (after wait() or any host read)
// csr(), row_range(), nvals(), extract_element() and extract_tuples() only read and may run in parallel
// (coo_rows() and bitmap() fill their caches on first use: call them once before a parallel region).
// A moved-from Matrix is left 0 x 0 and empty (its storage arrays empty), fit only to be assigned to or
// destroyed.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "containers/csr_form.hpp"
#include "core/kernels.hpp"
#include "snack/containers.hpp"

namespace snk {

namespace {

constexpr Index kRemoveBit = Index(1) << 63;

// Entry range [b, e) of row i in s (empty when the row has no slot).
void find_row(const CsrStorage& s, Index i, Index& b, Index& e) {
  b = e = 0;
  if (s.p.empty()) return;
  if (!s.hyper) {
    if (i + 1 >= s.p.size()) return;
    b = s.p[i];
    e = s.p[i + 1];
    return;
  }
  auto it = std::lower_bound(s.h.begin(), s.h.end(), i);
  if (it == s.h.end() || *it != i) return;
  const Index k = static_cast<Index>(it - s.h.begin());
  b = s.p[k];
  e = s.p[k + 1];
}

// Position of entry (i, j) in s, or false.
bool find_entry(const CsrStorage& s, Index i, Index j, Index& pos) {
  Index b, e;
  find_row(s, i, b, e);
  auto first = s.j.begin() + static_cast<std::ptrdiff_t>(b), last = s.j.begin() + static_cast<std::ptrdiff_t>(e);
  auto it = std::lower_bound(first, last, j);
  if (it == last || *it != j) return false;
  pos = static_cast<Index>(it - s.j.begin());
  return true;
}

std::string index_pair(Index i, Index j) { return "(" + std::to_string(i) + "," + std::to_string(j) + ")"; }

void check_dimension(Index n, const char* who, const char* what) {
  SNK_CHECK(n <= kIndexMax, Info::InvalidValue,
            std::string(who) + ": " + what + " = " + std::to_string(n) + " exceeds the largest dimension 2^60");
}

// Replaces a matrix's host arrays with `fresh`: the page locks of the old arrays (Matrix::keep_host_locks) are
// released first, so that a lock never outlives the memory it covers.
void replace_host_arrays(std::vector<std::shared_ptr<void>>& locks, CsrStorage& csr, CsrStorage&& fresh) {
  locks.clear();
  csr = std::move(fresh);
}

}  // namespace

// ---- construction, copies, moves ------------------------------------------------------------------------

Matrix::Matrix(const Type* type, Index nrows, Index ncols) : type_(type), nrows_(nrows), ncols_(ncols) {
  SNK_CHECK(type != nullptr, Info::NullPointer, "Matrix: the type is null");
  check_dimension(nrows, "Matrix", "nrows");
  check_dimension(ncols, "Matrix", "ncols");
  csr_ = core::empty_csr(nrows);
}

Matrix::Matrix(const Matrix& other)
    : type_(other.type_), nrows_(other.nrows_), ncols_(other.ncols_), is_vector_(other.is_vector_),
      two_four_hint_(other.two_four_hint_),
      precision_hint_(other.precision_hint_) {
  if (!other.host_valid_ && other.pending_i_.empty()) {
    if (std::unique_ptr<DeviceCopy> copy = other.device_->clone()) {   // the duplicate stays on the device
      device_ = std::move(copy);
      device_valid_ = true;
      host_valid_ = false;
      return;
    }
  }
  csr_ = other.csr();
}

Matrix& Matrix::operator=(const Matrix& other) {
  if (this != &other) {
    Matrix copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Matrix::Matrix(Matrix&& other) noexcept
    : type_(other.type_), nrows_(other.nrows_), ncols_(other.ncols_), is_vector_(other.is_vector_),
      csr_(std::move(other.csr_)), host_locks_(std::move(other.host_locks_)),
      pending_i_(std::move(other.pending_i_)), pending_j_(std::move(other.pending_j_)),
      pending_x_(std::move(other.pending_x_)), coo_rows_(std::move(other.coo_rows_)),
      bitmap_(std::move(other.bitmap_)), casts_(std::move(other.casts_)), device_(std::move(other.device_)),
      host_valid_(other.host_valid_),
      device_valid_(other.device_valid_),
      two_four_hint_(other.two_four_hint_),
      precision_hint_(other.precision_hint_) {
  other.nrows_ = other.ncols_ = 0;
  other.csr_ = CsrStorage();
  other.pending_i_.clear();
  other.pending_j_.clear();
  other.pending_x_.clear();
  other.host_valid_ = true;
  other.device_valid_ = false;
}

Matrix& Matrix::operator=(Matrix&& other) noexcept {
  if (this == &other) return *this;
  type_ = other.type_;
  nrows_ = other.nrows_;
  ncols_ = other.ncols_;
  is_vector_ = other.is_vector_;
  replace_host_arrays(host_locks_, csr_, std::move(other.csr_));
  host_locks_ = std::move(other.host_locks_);
  pending_i_ = std::move(other.pending_i_);
  pending_j_ = std::move(other.pending_j_);
  pending_x_ = std::move(other.pending_x_);
  coo_rows_ = std::move(other.coo_rows_);
  bitmap_ = std::move(other.bitmap_);
  casts_ = std::move(other.casts_);
  device_ = std::move(other.device_);
  host_valid_ = other.host_valid_;
  device_valid_ = other.device_valid_;
  other.nrows_ = other.ncols_ = 0;
  other.csr_ = CsrStorage();
  other.pending_i_.clear();
  other.pending_j_.clear();
  other.pending_x_.clear();
  other.host_valid_ = true;
  other.device_valid_ = false;
  return *this;
}

Matrix::~Matrix() = default;

// ---- pending work and the host form ---------------------------------------------------------------------

void Matrix::assemble_pending() const {
  if (!host_valid_) {
    CsrStorage fresh;
    device_->download(fresh);
    core::count_download(fresh.h.size() * sizeof(Index) + fresh.p.size() * sizeof(Index) +
                         fresh.j.size() * sizeof(Index) + fresh.x.size());
    core::check_csr_shape(fresh, nrows_, type_->size, "download of the device copy");
    core::normalize_csr(fresh, nrows_);
    replace_host_arrays(host_locks_, csr_, std::move(fresh));
    host_valid_ = true;
  }
  if (pending_i_.empty()) return;

  const Index np = static_cast<Index>(pending_i_.size());
  const std::size_t es = type_->size;
  const std::unique_ptr<core::SortedTuple[]> t =
      core::sort_tuples(pending_i_.data(), ~kRemoveBit, pending_j_.data(), np, nrows_);
  auto prow = [&](Index q) { return pending_i_[q] & ~kRemoveBit; };
  // The winning tuple of each (i, j): the last of its run (the sort is stable).
  std::vector<Index> winners;
  winners.reserve(np);
  for (Index r = 0; r < np; ++r) {
    if (r + 1 < np && t[r + 1].row == t[r].row && t[r + 1].col == t[r].col) continue;
    winners.push_back(t[r].pos);
  }

  const CsrStorage& s = csr_;
  core::CsrBuilder out(es);
  out.reserve(s.nvals() + static_cast<Index>(winners.size()));
  std::size_t u = 0;
  auto emit_pending = [&](Index q) {
    if (!(pending_i_[q] & kRemoveBit)) std::memcpy(out.push(prow(q), pending_j_[q]), &pending_x_[q * es], es);
  };
  for (Index k = 0; k < s.nslots(); ++k) {
    const Index i = core::slot_row(s, k);
    for (Index e = s.p[k]; e < s.p[k + 1]; ++e) {
      const Index j = s.j[e];
      while (u < winners.size() &&
             (prow(winners[u]) < i || (prow(winners[u]) == i && pending_j_[winners[u]] < j))) {
        emit_pending(winners[u++]);
      }
      if (u < winners.size() && prow(winners[u]) == i && pending_j_[winners[u]] == j) {
        emit_pending(winners[u++]);   // replaced or removed
      } else {
        std::memcpy(out.push(i, j), &s.x[e * es], es);
      }
    }
  }
  while (u < winners.size()) emit_pending(winners[u++]);

  replace_host_arrays(host_locks_, csr_, out.finish(nrows_));
  std::vector<Index>().swap(pending_i_);
  std::vector<Index>().swap(pending_j_);
  std::vector<unsigned char>().swap(pending_x_);
}

void Matrix::invalidate_derived() {
  coo_rows_.reset();
  bitmap_.reset();
  casts_.clear();
}

// Pending tuples exist only beside a valid host form; a device-only result is already finished and stays there.
void Matrix::wait() const {
  if (!pending_i_.empty()) assemble_pending();
}

Index Matrix::nvals() const {
  if (!host_valid_ && pending_i_.empty()) return device_->nvals();
  return csr().nvals();
}

const CsrStorage& Matrix::csr() const {
  assemble_pending();
  return csr_;
}

CsrStorage& Matrix::csr_mutable() {
  assemble_pending();
  host_locks_.clear();   // the caller may reallocate the arrays
  invalidate_derived();
  invalidate_device_copy();
  return csr_;
}

void Matrix::adopt(CsrStorage&& s) {
  core::check_csr_shape(s, nrows_, type_->size, "Matrix::adopt");
  core::normalize_csr(s, nrows_);
  std::vector<Index>().swap(pending_i_);
  std::vector<Index>().swap(pending_j_);
  std::vector<unsigned char>().swap(pending_x_);
  replace_host_arrays(host_locks_, csr_, std::move(s));
  invalidate_derived();
  device_.reset();
  device_valid_ = false;
  host_valid_ = true;
}

void Matrix::normalize_format() {
  assemble_pending();
  host_locks_.clear();   // a change of form reallocates the arrays
  core::normalize_csr(csr_, nrows_);
}

void Matrix::keep_host_locks(std::vector<std::shared_ptr<void>> locks) { host_locks_ = std::move(locks); }

// ---- whole-matrix changes -------------------------------------------------------------------------------

void Matrix::clear() {
  CsrStorage fresh = core::empty_csr(nrows_);
  adopt(std::move(fresh));
}

void Matrix::resize(Index nrows, Index ncols) {
  check_dimension(nrows, "resize", "nrows");
  check_dimension(ncols, "resize", "ncols");
  SNK_CHECK(!is_vector_ || nrows == 1, Info::InvalidValue, "resize: the matrix of a vector must keep one row");
  const CsrStorage& s = csr();
  const std::size_t es = type_->size;
  core::CsrBuilder out(es);
  for (Index k = 0; k < s.nslots(); ++k) {
    const Index i = core::slot_row(s, k);
    if (i >= nrows) break;
    for (Index e = s.p[k]; e < s.p[k + 1]; ++e) {
      if (s.j[e] >= ncols) break;
      std::memcpy(out.push(i, s.j[e]), &s.x[e * es], es);
    }
  }
  CsrStorage fresh = out.finish(nrows);
  nrows_ = nrows;
  ncols_ = ncols;
  adopt(std::move(fresh));
}

Matrix Matrix::diag(const Vector& v, std::int64_t k) {
  const CsrStorage& s = v.as_matrix().csr();
  const Index len = v.size();
  const Index shift = k >= 0 ? static_cast<Index>(k) : Index(0) - static_cast<Index>(k);
  SNK_CHECK(shift <= kIndexMax && len <= kIndexMax - shift, Info::InvalidValue,
            "diag: the size of v (" + std::to_string(len) + ") plus |k| (" + std::to_string(shift) +
                ") exceeds the largest dimension 2^60");
  const Index n = len + shift;
  Matrix D(v.type(), n, n);
  CsrStorage out;
  const Index nv = s.nvals();
  out.j.resize(nv);
  out.x = s.x;
  for (Index e = 0; e < nv; ++e) out.j[e] = k >= 0 ? s.j[e] + shift : s.j[e];
  core::set_row_pointers(out, n, nv, [&](Index e) { return k >= 0 ? s.j[e] : s.j[e] + shift; });
  D.adopt(std::move(out));
  return D;
}

// ---- elements -------------------------------------------------------------------------------------------

void Matrix::set_element(Index i, Index j, const void* value, const Type* vtype) {
  SNK_CHECK(value != nullptr, Info::NullPointer, "set_element: value is null");
  SNK_CHECK(vtype != nullptr, Info::NullPointer, "set_element: the value's type is null");
  SNK_CHECK(castable(type_, vtype), Info::DomainMismatch,
            "set_element: a value of type " + vtype->name + " cannot be cast to the matrix type " + type_->name);
  SNK_CHECK(i < nrows_ && j < ncols_, Info::InvalidIndex,
            "set_element: index " + index_pair(i, j) + " is out of range for a " + std::to_string(nrows_) + " x " +
                std::to_string(ncols_) + " matrix");
  if (!host_valid_) assemble_pending();   // downloads; no pending tuples exist while the host is stale
  const core::ValueCopier copy(type_, vtype);
  const std::size_t es = type_->size;
  Index pos;
  if (pending_i_.empty() && find_entry(csr_, i, j, pos)) {
    copy(&csr_.x[pos * es], value);   // an existing entry is overwritten in place
  } else {
    const std::size_t old = pending_i_.size();
    try {
      pending_i_.push_back(i);
      pending_j_.push_back(j);
      pending_x_.resize((old + 1) * es);
    } catch (...) {
      pending_i_.resize(old);
      pending_j_.resize(old);
      pending_x_.resize(old * es);
      throw;
    }
    copy(&pending_x_[old * es], value);
  }
  invalidate_derived();
  invalidate_device_copy();
}

void Matrix::remove_element(Index i, Index j) {
  SNK_CHECK(i < nrows_ && j < ncols_, Info::InvalidIndex,
            "remove_element: index " + index_pair(i, j) + " is out of range for a " + std::to_string(nrows_) +
                " x " + std::to_string(ncols_) + " matrix");
  if (!host_valid_) assemble_pending();
  Index pos;
  if (pending_i_.empty() && !find_entry(csr_, i, j, pos)) return;   // nothing to remove
  const std::size_t es = type_->size;
  const std::size_t old = pending_i_.size();
  try {
    pending_i_.push_back(i | kRemoveBit);
    pending_j_.push_back(j);
    pending_x_.resize((old + 1) * es, 0);
  } catch (...) {
    pending_i_.resize(old);
    pending_j_.resize(old);
    pending_x_.resize(old * es);
    throw;
  }
  invalidate_derived();
  invalidate_device_copy();
}

bool Matrix::extract_element(Index i, Index j, void* value, const Type* vtype) const {
  SNK_CHECK(value != nullptr, Info::NullPointer, "extract_element: value is null");
  SNK_CHECK(vtype != nullptr, Info::NullPointer, "extract_element: the value's type is null");
  SNK_CHECK(castable(vtype, type_), Info::DomainMismatch,
            "extract_element: the matrix type " + type_->name + " cannot be cast to " + vtype->name);
  SNK_CHECK(i < nrows_ && j < ncols_, Info::InvalidIndex,
            "extract_element: index " + index_pair(i, j) + " is out of range for a " + std::to_string(nrows_) +
                " x " + std::to_string(ncols_) + " matrix");
  const CsrStorage& s = csr();
  Index pos;
  if (!find_entry(s, i, j, pos)) return false;
  core::ValueCopier(vtype, type_)(value, &s.x[pos * type_->size]);
  return true;
}

void Matrix::extract_tuples(Index* I, Index* J, void* values, const Type* vtype) const {
  if (values != nullptr) {
    SNK_CHECK(vtype != nullptr, Info::NullPointer, "extract_tuples: the values' type is null");
    SNK_CHECK(castable(vtype, type_), Info::DomainMismatch,
              "extract_tuples: the matrix type " + type_->name + " cannot be cast to " + vtype->name);
  }
  const CsrStorage& s = csr();
  const Index nv = s.nvals();
  if (I != nullptr) {
    for (Index k = 0; k < s.nslots(); ++k) {
      const Index i = core::slot_row(s, k);
      for (Index e = s.p[k]; e < s.p[k + 1]; ++e) I[e] = i;
    }
  }
  if (J != nullptr && nv > 0) std::memcpy(J, s.j.data(), nv * sizeof(Index));
  if (values != nullptr) cast_array(vtype, values, type_, s.x.data(), nv);
}

// ---- derived forms --------------------------------------------------------------------------------------

const std::vector<Index>& Matrix::coo_rows() const {
  const CsrStorage& s = csr();
  if (!coo_rows_) {
    auto rows = std::make_unique<std::vector<Index>>(s.nvals());
    for (Index k = 0; k < s.nslots(); ++k) {
      const Index i = core::slot_row(s, k);
      std::fill(rows->begin() + static_cast<std::ptrdiff_t>(s.p[k]),
                rows->begin() + static_cast<std::ptrdiff_t>(s.p[k + 1]), i);
    }
    coo_rows_ = std::move(rows);
  }
  return *coo_rows_;
}

const BitmapStorage& Matrix::bitmap() const {
  constexpr Index kLimit = Index(1) << 31;
  SNK_CHECK(ncols_ == 0 || nrows_ <= kLimit / ncols_, Info::InvalidValue,
            "bitmap: a " + std::to_string(nrows_) + " x " + std::to_string(ncols_) +
                " matrix has more than 2^31 positions");
  const CsrStorage& s = csr();
  if (!bitmap_) {
    const std::size_t es = type_->size;
    const Index npos = nrows_ * ncols_;
    auto bm = std::make_unique<BitmapStorage>();
    bm->b.assign(npos, 0);
    bm->x.assign(npos * es, 0);
    for (Index k = 0; k < s.nslots(); ++k) {
      const Index i = core::slot_row(s, k);
      for (Index e = s.p[k]; e < s.p[k + 1]; ++e) {
        const Index at = i * ncols_ + s.j[e];
        bm->b[at] = 1;
        std::memcpy(&bm->x[at * es], &s.x[e * es], es);
      }
    }
    bm->full = s.nvals() == npos;
    bitmap_ = std::move(bm);
  }
  return *bitmap_;
}

void Matrix::row_range(Index i, Index& begin, Index& end) const { find_row(csr(), i, begin, end); }

const Matrix* Matrix::cached_cast(const Type* type) const {
  for (const auto& c : casts_)
    if (c->type() == type) return c.get();
  return nullptr;
}

const Matrix& Matrix::keep_cast(std::unique_ptr<Matrix> cast) const {
  SNK_CHECK(cast != nullptr && cast->nrows() == nrows_ && cast->ncols() == ncols_, Info::InvalidValue,
            "keep_cast: the cast copy's dimensions differ from the matrix's");
  casts_.push_back(std::move(cast));
  return *casts_.back();
}

// ---- device copies --------------------------------------------------------------------------------------

void Matrix::attach_device_copy(std::unique_ptr<DeviceCopy> copy, bool host_is_stale) {
  SNK_CHECK(copy != nullptr, Info::NullPointer, "attach_device_copy: the device copy is null");
  if (host_is_stale) {
    std::vector<Index>().swap(pending_i_);
    std::vector<Index>().swap(pending_j_);
    std::vector<unsigned char>().swap(pending_x_);
    replace_host_arrays(host_locks_, csr_, CsrStorage());
    invalidate_derived();
    host_valid_ = false;
  } else {
    assemble_pending();
  }
  device_ = std::move(copy);
  device_valid_ = true;
}

void Matrix::take(Matrix&& t) {
  SNK_CHECK(t.type_ == type_ && t.nrows_ == nrows_ && t.ncols_ == ncols_, Info::InvalidValue,
            "Matrix::take: the result's type or dimensions differ from the output's");
  const bool vector = is_vector_;
  *this = std::move(t);
  is_vector_ = vector;
}

void Matrix::invalidate_device_copy() {
  if (!host_valid_) assemble_pending();   // the device holds the only valid copy: bring it back first
  device_.reset();
  device_valid_ = false;
}

}  // namespace snk
