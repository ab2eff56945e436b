// Tests of the binary data-set cache and the official-data loader: a round trip is bit-exact; every kind of
// damage (any flipped byte, truncation, a wrong magic or version, inconsistent matrices behind a valid
// checksum, garbage) gives CacheError and never a crash; the loader writes, reuses, notices stale sources,
// and replaces a corrupt cache; and the official 1024 x 120 data set loads through it.
#include <gtest/gtest.h>

#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "gc_test_util.hpp"
#include "io/cache.hpp"
#include "io/generator.hpp"
#include "io/readers.hpp"

namespace snk::gc {
namespace {

using test::TempDir;

Dataset small_dataset() {
  Dataset d;
  d.network = generate_network(1024, 9, 5);
  d.inputs.nrows = 4;
  d.inputs.ncols = 1024;
  d.inputs.row_ptr = {0, 2, 2, 5, 6};
  d.inputs.col = {3, 900, 0, 1, 1023, 17};
  d.inputs.val = {1, 1, 0.5f, 2, 1, 1};
  d.categories = {0, 3};
  return d;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void expect_same(const Dataset& a, const Dataset& b) {
  EXPECT_EQ(a.network.neurons, b.network.neurons);
  EXPECT_EQ(a.network.bias, b.network.bias);
  ASSERT_EQ(a.network.layers.size(), b.network.layers.size());
  for (size_t k = 0; k < a.network.layers.size(); ++k) EXPECT_TRUE(a.network.layers[k] == b.network.layers[k]) << k;
  EXPECT_TRUE(a.inputs == b.inputs);
  EXPECT_EQ(a.categories, b.categories);
}

void expect_cache_error(const std::string& path, const std::string& part) {
  try {
    read_cache(path);
    ADD_FAILURE() << "damaged cache accepted (" << part << ")";
  } catch (const CacheError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Cache, RoundTripIsExact) {
  TempDir dir;
  Dataset d = small_dataset();
  write_cache(dir.file("c.bin"), d, "my key");
  std::string key;
  Dataset back = read_cache(dir.file("c.bin"), &key);
  EXPECT_EQ(key, "my key");
  expect_same(d, back);
}

TEST(Cache, FlippedBytesAreDetected) {
  TempDir dir;
  Dataset d;
  d.network = generate_network(32, 3, 1);
  d.inputs.nrows = 2;
  d.inputs.ncols = 32;
  d.inputs.row_ptr = {0, 1, 2};
  d.inputs.col = {5, 6};
  d.inputs.val = {1, 1};
  write_cache(dir.file("c.bin"), d, "k");
  const std::string good = slurp(dir.file("c.bin"));
  std::vector<size_t> positions;  // the whole header, then a spread over the payload (file writes are slow on
  for (size_t i = 0; i < good.size(); i += (i < 64 ? 1 : 61)) positions.push_back(i);  // some file systems)
  positions.push_back(good.size() - 1);
  for (size_t i : positions) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ (1 << (i % 8)));
    spit(dir.file("bad.bin"), bad);
    EXPECT_THROW(read_cache(dir.file("bad.bin")), CacheError) << "byte " << i;
  }
  for (size_t len : {size_t{0}, size_t{7}, size_t{39}, size_t{40}, good.size() / 2, good.size() - 1}) {
    spit(dir.file("short.bin"), good.substr(0, len));
    EXPECT_THROW(read_cache(dir.file("short.bin")), CacheError) << "length " << len;
  }
  spit(dir.file("long.bin"), good + "x");
  expect_cache_error(dir.file("long.bin"), "padded");
  expect_cache_error(dir.file("missing.bin"), "cannot open");
}

TEST(Cache, SpecificDamageIsNamed) {
  TempDir dir;
  write_cache(dir.file("c.bin"), small_dataset());
  const std::string good = slurp(dir.file("c.bin"));
  std::string bad = good;
  bad[0] = 'X';
  spit(dir.file("b.bin"), bad);
  expect_cache_error(dir.file("b.bin"), "bad magic");
  bad = good;
  bad[8] = 9;  // version
  spit(dir.file("b.bin"), bad);
  expect_cache_error(dir.file("b.bin"), "version 9");
  bad = good;
  bad[good.size() - 3] ^= 1;  // payload
  spit(dir.file("b.bin"), bad);
  expect_cache_error(dir.file("b.bin"), "checksum mismatch");
  spit(dir.file("b.bin"), good.substr(0, good.size() - 100));
  expect_cache_error(dir.file("b.bin"), "truncated");
  std::string garbage(5000, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 131 + 7);
  spit(dir.file("b.bin"), garbage);
  expect_cache_error(dir.file("b.bin"), "bad magic");
}

// Damage behind a valid checksum (as a buggy writer would produce) is caught by the structural checks.
TEST(Cache, InconsistentContentWithValidChecksum) {
  TempDir dir;
  auto rewrite_with_crc = [&](Dataset d, const std::string& name) {
    write_cache(dir.file(name), d);
    return dir.file(name);
  };
  // The writer does not validate: feed it broken matrices.
  Dataset d = small_dataset();
  d.inputs.col[1] = 5000;  // column out of range
  expect_cache_error(rewrite_with_crc(d, "a.bin"), "column index out of range");
  d = small_dataset();
  std::swap(d.inputs.col[2], d.inputs.col[3]);  // row 2 holds 0, 1, 1023: swapped -> unsorted
  expect_cache_error(rewrite_with_crc(d, "b.bin"), "not sorted");
  d = small_dataset();
  d.inputs.row_ptr[2] = 1;  // row pointers not monotone (2, 1, 5)
  expect_cache_error(rewrite_with_crc(d, "c.bin"), "not monotone");
  d = small_dataset();
  d.categories = {3, 1};
  expect_cache_error(rewrite_with_crc(d, "d.bin"), "categories");
  // A huge count inside the payload with the CRC recomputed: no giant allocation, a clean error.
  write_cache(dir.file("e.bin"), small_dataset());
  std::string bytes = slurp(dir.file("e.bin"));
  const uint64_t huge = uint64_t{1} << 60;
  std::memcpy(&bytes[40], &huge, 8);  // the key length
  uint32_t crc = static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data() + 40),
                                             static_cast<uInt>(bytes.size() - 40)));
  std::memcpy(&bytes[24], &crc, 4);
  spit(dir.file("e.bin"), bytes);
  expect_cache_error(dir.file("e.bin"), "runs past the end");
}

TEST(Cache, LoaderWritesReusesAndRefreshes) {
  TempDir dir;
  // A small "official" configuration written in the official formats.
  Network net = generate_network(1024, 3, 11);
  for (int k = 0; k < 3; ++k) write_tsv_matrix(dir.file("n1024-l" + std::to_string(k + 1) + ".tsv"), net.layers[k], k == 1);
  // (layer 2 as gzip under the plain name .tsv: detected by its magic)
  Dataset small = small_dataset();
  write_tsv_matrix(dir.file("images.tsv"), small.inputs);
  write_categories(dir.file("truth.tsv"), {1, 2});
  OfficialSources src;
  src.weights_dir = dir.path();
  src.neurons = 1024;
  src.layers = 3;
  src.inputs = dir.file("images.tsv");
  src.input_rows = 4;
  src.truth = dir.file("truth.tsv");
  const std::string cache = dir.file("cache.bin");

  LoadedDataset first = load_official(src, cache);
  EXPECT_EQ(first.cache, CacheUse::written) << first.note;
  ASSERT_EQ(first.data.network.layers.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(first.data.network.layers[k] == net.layers[k]);
  EXPECT_FLOAT_EQ(first.data.network.bias, -0.3f);
  EXPECT_TRUE(first.data.inputs == small.inputs);
  EXPECT_EQ(first.data.categories, (std::vector<int64_t>{1, 2}));

  LoadedDataset second = load_official(src, cache);
  EXPECT_EQ(second.cache, CacheUse::loaded);
  expect_same(first.data, second.data);

  // A changed source file makes the cache stale.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write_categories(dir.file("truth.tsv"), {0, 1, 2});
  LoadedDataset third = load_official(src, cache);
  EXPECT_EQ(third.cache, CacheUse::rewritten);
  EXPECT_EQ(third.data.categories, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(load_official(src, cache).cache, CacheUse::loaded);

  // A corrupt cache is replaced, with the reason in the note.
  std::string bytes = slurp(cache);
  bytes[bytes.size() / 2] ^= 0x10;
  spit(cache, bytes);
  LoadedDataset fourth = load_official(src, cache);
  EXPECT_EQ(fourth.cache, CacheUse::rewritten);
  EXPECT_NE(fourth.note.find("checksum"), std::string::npos) << fourth.note;
  expect_same(third.data, fourth.data);

  // No cache path: plain text loading.
  EXPECT_EQ(load_official(src, "").cache, CacheUse::none);
}

TEST(Cache, OfficialDataThroughTheCache) {
  SNK_REQUIRE_OFFICIAL();
  TempDir dir;
  OfficialSources src;
  src.weights_dir = test::official_dir() + "/neuron1024";
  src.neurons = 1024;
  src.layers = 120;
  src.inputs = test::official_dir() + "/sparse-images-1024_subset.mtx";
  src.truth = test::official_dir() + "/neuron1024-l120-categories_subset.mtx";
  auto t0 = std::chrono::steady_clock::now();
  LoadedDataset text = load_official(src, dir.file("gc1024.bin"));
  auto t1 = std::chrono::steady_clock::now();
  LoadedDataset cached = load_official(src, dir.file("gc1024.bin"));
  auto t2 = std::chrono::steady_clock::now();
  std::printf("official 1024 x 120 + 1200 images: text %.3f s (with cache write), cache %.3f s\n",
              std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
  EXPECT_EQ(text.cache, CacheUse::written) << text.note;
  EXPECT_EQ(cached.cache, CacheUse::loaded) << cached.note;
  expect_same(text.data, cached.data);
  EXPECT_EQ(cached.data.network.total_nnz(), 120 * 32768);
  EXPECT_EQ(cached.data.inputs.nnz(), 122713);
  EXPECT_EQ(cached.data.categories, test::official_subset_categories());
}

}  // namespace
}  // namespace snk::gc
