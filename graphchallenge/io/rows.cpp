// graphchallenge/io/rows.cpp: row-wise helpers on CSR matrices (see rows.hpp).
#include "io/rows.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace snk::gc {

CsrMatrix repeat_rows(const CsrMatrix& a, int64_t copies) {
  if (copies < 1) throw std::invalid_argument("repeat_rows: copies must be at least 1");
  CsrMatrix r;
  r.nrows = a.nrows * copies;
  r.ncols = a.ncols;
  r.row_ptr.assign(1, 0);
  r.row_ptr.reserve(r.nrows + 1);
  r.col.reserve(a.col.size() * copies);
  r.val.reserve(a.val.size() * copies);
  for (int64_t c = 0; c < copies; ++c) {
    const int64_t base = r.row_ptr.back();
    for (int64_t i = 1; i <= a.nrows; ++i) r.row_ptr.push_back(base + a.row_ptr[i]);
    r.col.insert(r.col.end(), a.col.begin(), a.col.end());
    r.val.insert(r.val.end(), a.val.begin(), a.val.end());
  }
  return r;
}

CsrMatrix row_block(const CsrMatrix& a, int64_t r0, int64_t r1) {
  if (r0 < 0 || r1 < r0 || r1 > a.nrows) throw std::invalid_argument("row_block: rows out of range");
  CsrMatrix b;
  b.nrows = r1 - r0;
  b.ncols = a.ncols;
  b.row_ptr.resize(b.nrows + 1);
  for (int64_t i = 0; i <= b.nrows; ++i) b.row_ptr[i] = a.row_ptr[r0 + i] - a.row_ptr[r0];
  b.col.assign(a.col.begin() + a.row_ptr[r0], a.col.begin() + a.row_ptr[r1]);
  b.val.assign(a.val.begin() + a.row_ptr[r0], a.val.begin() + a.row_ptr[r1]);
  return b;
}

CsrMatrix rows_at(const CsrMatrix& a, const std::vector<int64_t>& ids) {
  CsrMatrix m;
  m.nrows = static_cast<int64_t>(ids.size());
  m.ncols = a.ncols;
  for (const int64_t r : ids) {
    if (r < 0 || r >= a.nrows) throw std::invalid_argument("rows_at: row " + std::to_string(r) + " out of range");
    m.col.insert(m.col.end(), a.col.begin() + a.row_ptr[r], a.col.begin() + a.row_ptr[r + 1]);
    m.val.insert(m.val.end(), a.val.begin() + a.row_ptr[r], a.val.begin() + a.row_ptr[r + 1]);
    m.row_ptr.push_back(static_cast<int64_t>(m.col.size()));
  }
  return m;
}

CsrMatrix transposed(const CsrMatrix& a) {
  CsrMatrix t;
  t.nrows = a.ncols;
  t.ncols = a.nrows;
  t.row_ptr.assign(static_cast<size_t>(a.ncols) + 1, 0);
  for (int32_t j : a.col) ++t.row_ptr[j + 1];
  for (int64_t j = 0; j < a.ncols; ++j) t.row_ptr[j + 1] += t.row_ptr[j];
  t.col.resize(a.col.size());
  t.val.resize(a.col.size());
  std::vector<int64_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  for (int64_t i = 0; i < a.nrows; ++i)
    for (int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const int64_t slot = next[a.col[k]]++;
      t.col[slot] = static_cast<int32_t>(i);
      t.val[slot] = a.val[k];
    }
  return t;
}

std::optional<CsrMatrix> binary_pattern(const CsrMatrix& a) {
  for (const float v : a.val)
    if (v != 1.0f) return std::nullopt;
  CsrMatrix p;
  p.nrows = a.nrows;
  p.ncols = a.ncols;
  p.row_ptr = a.row_ptr;
  p.col = a.col;
  return p;
}

}  // namespace snk::gc
