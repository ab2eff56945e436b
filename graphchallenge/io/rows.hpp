// graphchallenge/io/rows.hpp: row-wise helpers on the challenge's CSR matrices that every runner needs:
// stacking copies of an input set (the 1,200 official images repeated to 60,000), taking a block of rows (one
// MPI rank's share) and the first rows (the sample checked against the float64 reference), chosen rows, the transpose (a
// layer's columns as rows: what the engines read per output neuron), and the pattern of a binary matrix (the images as
// an engine that reads every stored entry as 1 takes them).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "io/types.hpp"

namespace snk::gc {

// `copies` copies of `a` stacked vertically (copies >= 1).
CsrMatrix repeat_rows(const CsrMatrix& a, int64_t copies);

// Rows [r0, r1) of `a` as a matrix of r1 - r0 rows (0 <= r0 <= r1 <= a.nrows).
CsrMatrix row_block(const CsrMatrix& a, int64_t r0, int64_t r1);

// The rows `ids` of `a` (each below a.nrows; repeats allowed), in that order: the rows two engines disagree on, copies
// of inputs in a chosen order.
CsrMatrix rows_at(const CsrMatrix& a, const std::vector<int64_t>& ids);

// a^T: row j lists the rows of `a` holding column j, in increasing order, with their values.
CsrMatrix transposed(const CsrMatrix& a);

// The pattern of `a` (its shape, row pointers and columns; `val` empty) where every stored value is exactly 1, as in
// the challenge's images; nullopt where any is not.
std::optional<CsrMatrix> binary_pattern(const CsrMatrix& a);

}  // namespace snk::gc
