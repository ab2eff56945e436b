// layers/two_four.hpp: 2:4 structured sparsity, the form the sparse tensor cores compute on: in every group of four
// consecutive weights of a row at most two are non-zero, and the group is stored as exactly two values and their
// two positions. This header holds the compressed form, magnitude pruning into it (from dense weights or from a
// project Matrix of any sparsity), the conversion back, and the float64 host reference of its product that tests and
// benchmarks check the GPU kernels against.
//
// Layout (row-major, K = the padded column count, a multiple of 32):
//   values: rows x K/2 entries of 16 bits (FP16 or BF16), the two kept values of each group in column order;
//   meta:   rows x K/32 words of 32 bits; group g of a row (columns 4g..4g+3) owns the 4 bits at (g % 8) * 4 of word
//           g / 8: the kept positions within the group (0..3), the first in the low 2 bits, the second above it,
//           first < second. This is the encoding of mma.sp's metadata for 16-bit inputs (two 2-bit indices per group
//           of four); a kernel hands the words to its threads as the instruction's fragment layout asks.
// A group with fewer than two non-zeros still stores two positions: the missing values are zeros at unused
// positions. Columns past the logical count (the padding) hold nothing: their values are zero.
#pragma once

#include <cstdint>
#include <vector>

#include "snack/snack.hpp"

namespace snk::layers {

enum class HalfType : std::uint8_t { FP16, BF16 };

// float -> 16 bits and back, rounding to nearest even (FP16 per IEEE 754 binary16; BF16 the upper half of binary32).
std::uint16_t to_half(float x, HalfType t);
float from_half(std::uint16_t h, HalfType t);

struct TwoFourMatrix {
  Index rows = 0, cols = 0;          // the logical shape
  HalfType type = HalfType::BF16;
  std::vector<std::uint16_t> values;  // rows x padded_cols() / 2
  std::vector<std::uint32_t> meta;    // rows x padded_cols() / 32

  Index padded_cols() const { return (cols + 31) / 32 * 32; }
  // The two kept positions (0..3) of group g of row i, and the value kept at the s-th of them (s = 0 or 1).
  void positions(Index i, Index g, int& first, int& second) const;
  float kept(Index i, Index g, int s) const { return from_half(values[i * (padded_cols() / 2) + g * 2 + s], type); }
  // The value stored at (i, j) as a float: zero where j is not a kept position of its group.
  float at(Index i, Index j) const;
};

// The 2:4 form of a dense rows x cols matrix (row-major, leading dimension ld >= cols): in each group of four the two
// entries of largest magnitude are kept (of equal magnitudes, the lower column), rounded to `type`. Throws
// Error(InvalidValue) for ld < cols.
TwoFourMatrix prune_two_four(const float* dense, Index rows, Index cols, Index ld, HalfType type);
// The same from a Matrix of any sparsity and builtin type (absent entries are zeros).
TwoFourMatrix prune_two_four(const Matrix& W, HalfType type);
// The non-zeros of the 2:4 form as an FP32 Matrix of the logical shape (stored zeros are left out).
Matrix to_matrix(const TwoFourMatrix& W);
// The entries of W that pruning to 2:4 keeps, with W's type and unrounded values (of a group's present entries,
// the two of largest magnitude, ties to the lower column): the weights of a prune-and-retrain run, which keeps
// training them with their pattern fixed.
Matrix keep_two_of_four(const Matrix& W);

// Y = W X in float64 from W's stored values: X is cols x batch and Y rows x batch, both column-major (X(k, b) at
// x[b * ldx + k], Y(i, b) at y[b * ldy + i]); the host reference of the 2:4 kernels.
void two_four_reference(const TwoFourMatrix& W, const float* x, Index batch, Index ldx, double* y, Index ldy);

}  // namespace snk::layers
