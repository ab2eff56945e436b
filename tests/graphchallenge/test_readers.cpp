// Tests of the GraphChallenge readers: the official 1024-neuron files read back with the shapes the challenge
// documents (120 layers of 32768 entries, 32 per row and column; 1200 x 1024 image subset with 122713
// entries; 19 truth categories), the speed of reading all 120 layers, the value parser against strtof, gzip
// and MatrixMarket round trips, and every error case naming the file and the line.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "gc_test_util.hpp"
#include "io/readers.hpp"
#include "io/rows.hpp"

namespace snk::gc {
namespace {

using test::expect_read_error;
using test::TempDir;

TEST(OfficialData, WeightLayersHaveTheDocumentedShape) {
  SNK_REQUIRE_OFFICIAL();
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  Network net = read_weights(test::official_dir() + "/neuron1024", 1024, 120);
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("read 120 official layers (3,932,160 entries): %.3f s wall, %.3f s CPU\n", secs, cpu);
  EXPECT_LT(cpu, 3.0) << "reading the official layers is far slower than it should be";
  ASSERT_EQ(net.layers.size(), 120u);
  EXPECT_FLOAT_EQ(net.bias, -0.3f);
  for (size_t k = 0; k < net.layers.size(); ++k) {
    const CsrMatrix& w = net.layers[k];
    ASSERT_EQ(w.nrows, 1024);
    ASSERT_EQ(w.ncols, 1024);
    ASSERT_EQ(w.nnz(), 32768) << "layer " << k + 1;
    for (int64_t r = 0; r < 1024; ++r) ASSERT_EQ(w.row_nnz(r), 32) << "layer " << k + 1 << " row " << r;
    for (int64_t c : test::column_counts(w)) ASSERT_EQ(c, 32) << "layer " << k + 1;
    for (float v : w.val) ASSERT_EQ(v, 0.0625f);
  }
}

TEST(OfficialData, ImageSubset) {
  SNK_REQUIRE_OFFICIAL();
  CsrMatrix y = read_inputs(test::official_dir() + "/sparse-images-1024_subset.mtx", 1024);
  EXPECT_EQ(y.nrows, 1200);
  EXPECT_EQ(y.ncols, 1024);
  EXPECT_EQ(y.nnz(), 122713);
  for (float v : y.val) ASSERT_EQ(v, 1.0f);
}

TEST(OfficialData, TruthCategories) {
  SNK_REQUIRE_OFFICIAL();
  auto subset = read_categories(test::official_dir() + "/neuron1024-l120-categories_subset.mtx", 1200);
  EXPECT_EQ(subset, test::official_subset_categories());
  auto full = read_categories(test::official_dir() + "/neuron1024-l120-categories.tsv", 60000);
  EXPECT_EQ(full.size(), 1812u);
  std::vector<int64_t> first;
  for (int64_t c : full) if (c < 1200) first.push_back(c);
  EXPECT_EQ(first, subset) << "the full truth restricted to the first 1200 images is the subset truth";
}

TEST(Readers, ValuesMatchStrtof) {
  TempDir dir;
  const char* values[] = {"6.250000e-02", "0.0625", "1", "-2.5", "0.1", "3.14159265358979", "1e-3", "+7",
                          "3.4028235e38", "1.17549435e-38", "1.4e-45", "123456789", "0.000000000001", "16777217",
                          ".5", "5.", "2.5E+2", "0", "-0"};
  std::string text;
  int n = 0;
  for (const char* v : values) text += "1\t" + std::to_string(++n) + "\t" + v + "\n";
  write_file_content(dir.file("v.tsv"), text, false);
  CsrMatrix m = read_tsv_matrix(dir.file("v.tsv"), 1, n);
  ASSERT_EQ(m.nnz(), n);
  for (int k = 0; k < n; ++k) EXPECT_EQ(m.val[k], std::strtof(values[k], nullptr)) << values[k];
}

TEST(Readers, TolerantLayout) {
  TempDir dir;
  // CRLF, spaces instead of tabs, blank lines, unsorted rows, last line without newline.
  write_file_content(dir.file("a.tsv"), "2 3 1.5\r\n\n1\t2\t0.5\n2  1\t-1\r\n1\t1\t2", false);
  CsrMatrix m = read_tsv_matrix(dir.file("a.tsv"), 2, 3);
  EXPECT_EQ(m.row_ptr, (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(m.col, (std::vector<int32_t>{0, 1, 0, 2}));
  EXPECT_EQ(m.val, (std::vector<float>{2.0f, 0.5f, -1.0f, 1.5f}));
  CsrMatrix inferred = read_tsv_matrix(dir.file("a.tsv"), 0, 3);
  EXPECT_EQ(inferred.nrows, 2);
}

TEST(Readers, GzipRoundTripDetectedByMagic) {
  TempDir dir;
  CsrMatrix m;
  m.nrows = 3;
  m.ncols = 5;
  m.row_ptr = {0, 2, 2, 5};
  m.col = {1, 4, 0, 2, 3};
  m.val = {0.0625f, -3.25f, 1e-7f, 12345.678f, 1.0f / 3.0f};
  write_tsv_matrix(dir.file("m.tsv.gz"), m, true);
  write_tsv_matrix(dir.file("named-plain.tsv"), m, true);  // gzip under a plain name: detected by content
  write_tsv_matrix(dir.file("plain.tsv"), m, false);
  EXPECT_EQ(read_tsv_matrix(dir.file("m.tsv.gz"), 3, 5), m);
  EXPECT_EQ(read_tsv_matrix(dir.file("named-plain.tsv"), 3, 5), m);
  EXPECT_EQ(read_tsv_matrix(dir.file("plain.tsv"), 3, 5), m);
  std::vector<int64_t> cats = {0, 7, 41};
  write_categories(dir.file("c.tsv.gz"), cats, true);
  EXPECT_EQ(read_categories(dir.file("c.tsv.gz")), cats);
  write_matrix_market(dir.file("m.mtx"), m, false);
  EXPECT_EQ(read_matrix_market(dir.file("m.mtx")), m);
  write_matrix_market(dir.file("p.mtx"), m, true);
  CsrMatrix p = read_matrix_market(dir.file("p.mtx"));
  EXPECT_EQ(p.col, m.col);
  for (float v : p.val) EXPECT_EQ(v, 1.0f);
}

TEST(ReaderErrors, MalformedLines) {
  TempDir dir;
  const std::string f = dir.file("bad.tsv");
  write_file_content(f, "1\t1\t1\n2\t2\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 2, "expected 3 fields");
  write_file_content(f, "1\t1\t1\n2\t2\t1\t9\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 2, "more than 3 fields");
  write_file_content(f, "1\t1\t1\n\n3\tx\t1\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 3, "malformed column index");
  write_file_content(f, "-1\t1\t1\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 1, "malformed row index");
  write_file_content(f, "1\t1\t1.0.0\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 1, "malformed value");
  write_file_content(f, "1\t1\t1\n2\t2\t6.25e", false);  // a partial field at the end of the file
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 2, "malformed value");
  write_file_content(f, "1\t1\t1\n2\t2\t", false);  // the last line lost its value
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 2, "expected 3 fields");
}

TEST(ReaderErrors, IndicesOutOfRangeOrZero) {
  TempDir dir;
  const std::string f = dir.file("idx.tsv");
  write_file_content(f, "1\t1\t1\n0\t2\t1\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 2, "index 0");
  write_file_content(f, "1\t1\t1\n1\t0\t1\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 2, "index 0");
  write_file_content(f, "1\t1\t1\n2\t2\t1\n5\t1\t1\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 3, "row index 5 out of range [1, 4]");
  write_file_content(f, "1\t1025\t0.0625\n", false);
  expect_read_error([&] { read_weight_layer(f, 1024); }, f, 1, "column index 1025 out of range");
  write_file_content(f, "99999999999999999999\t1\t1\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 1, "malformed row index");
}

TEST(ReaderErrors, NonFiniteValues) {
  TempDir dir;
  const std::string f = dir.file("nf.tsv");
  for (const char* v : {"inf", "nan", "-INF", "1e39", "1e999999"}) {
    write_file_content(f, std::string("1\t1\t1\n2\t2\t") + v + "\n", false);
    expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 2, "value");
  }
}

TEST(ReaderErrors, DuplicateNamesTheSecondLine) {
  TempDir dir;
  const std::string f = dir.file("dup.tsv");
  write_file_content(f, "1\t1\t1\n2\t3\t1\n2\t1\t1\n2\t3\t5\n", false);
  expect_read_error([&] { read_tsv_matrix(f, 4, 4); }, f, 4, "duplicate entry (2, 3)");
  write_file_content(f, "3\n5\n3\n", false);
  expect_read_error([&] { read_categories(f); }, f, 3, "repeated category 3");
}

TEST(ReaderErrors, TruncatedAndCorruptGzip) {
  TempDir dir;
  std::string text;
  for (int r = 1; r <= 2000; ++r) text += std::to_string(r) + "\t" + std::to_string(r % 97 + 1) + "\t0.0625\n";
  const std::string full = dir.file("full.tsv.gz");
  write_file_content(full, text, true);
  std::string bytes = read_file_content(dir.file("full.tsv.gz"));  // decompressed, as a sanity check
  ASSERT_EQ(bytes, text);
  // Cut the compressed file in half.
  std::FILE* in = std::fopen(full.c_str(), "rb");
  ASSERT_TRUE(in);
  std::string gz;
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, in)) > 0) gz.append(buf, got);
  std::fclose(in);
  const std::string cut = dir.file("cut.tsv.gz");
  write_file_content(cut, gz.substr(0, gz.size() / 2), false);
  try {
    read_tsv_matrix(cut, 2000, 100);
    ADD_FAILURE() << "truncated gzip accepted";
  } catch (const ReadError& e) {
    EXPECT_EQ(e.file(), cut);
    EXPECT_GT(e.line(), 1);
    EXPECT_LT(e.line(), 2001);
    EXPECT_NE(e.reason().find("truncated gzip"), std::string::npos) << e.what();
  }
  // Only the 8-byte trailer missing: all data present, still truncated.
  write_file_content(cut, gz.substr(0, gz.size() - 4), false);
  expect_read_error([&] { read_tsv_matrix(cut, 2000, 100); }, cut, 2001, "truncated gzip");
  // A flipped byte in the trailer's CRC.
  std::string bad = gz;
  bad[bad.size() - 6] ^= 0x5a;
  const std::string crc = dir.file("crc.tsv.gz");
  write_file_content(crc, bad, false);
  expect_read_error([&] { read_tsv_matrix(crc, 2000, 100); }, crc, 2001, "corrupt gzip");
}

TEST(ReaderErrors, MatrixMarket) {
  TempDir dir;
  const std::string f = dir.file("m.mtx");
  write_file_content(f, "%%MatrixMarket matrix coordinate pattern general\n% comment\n4 4 3\n1 1\n2 2\n", false);
  expect_read_error([&] { read_matrix_market(f); }, f, 6, "file ends after 2 of the 3 entries");
  write_file_content(f, "%%MatrixMarket matrix coordinate pattern general\n4 4 1\n1 1\n2 2\n", false);
  expect_read_error([&] { read_matrix_market(f); }, f, 4, "more entries than the 1");
  write_file_content(f, "%%MatrixMarket matrix coordinate real general\n4 4 2\n1 1 1\n5 2 1\n", false);
  expect_read_error([&] { read_matrix_market(f); }, f, 4, "row index 5 out of range");
  write_file_content(f, "%%MatrixMarket matrix array real general\n4 4\n", false);
  expect_read_error([&] { read_matrix_market(f); }, f, 1, "only coordinate");
  write_file_content(f, "%%MatrixMarket matrix coordinate real symmetric\n4 4 0\n", false);
  expect_read_error([&] { read_matrix_market(f); }, f, 1, "only general");
  write_file_content(f, "%%MatrixMarket matrix coordinate real general\n% only comments\n", false);
  expect_read_error([&] { read_matrix_market(f); }, f, 3, "before the MatrixMarket size line");
  write_file_content(f, "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 3\n2 2 -4\n", false);
  CsrMatrix m = read_matrix_market(f);
  EXPECT_EQ(m.val, (std::vector<float>{3.0f, -4.0f}));
  write_file_content(f, "%%MatrixMarket matrix coordinate pattern general\n10 1 2\n4 1\n", false);
  expect_read_error([&] { read_categories(f); }, f, 4, "file ends after 1 of the 2 entries");
}

TEST(ReaderErrors, MissingFileAndCategories) {
  TempDir dir;
  const std::string missing = dir.file("nope.tsv");
  expect_read_error([&] { read_tsv_matrix(missing, 4, 4); }, missing, 0, "cannot open");
  const std::string f = dir.file("cat.tsv");
  write_file_content(f, "3\n0\n", false);
  expect_read_error([&] { read_categories(f); }, f, 2, "category 0");
  write_file_content(f, "3\n70000\n", false);
  expect_read_error([&] { read_categories(f, 60000); }, f, 2, "out of range");
  write_file_content(f, "3\n4 5\n", false);
  expect_read_error([&] { read_categories(f); }, f, 2, "one category id");
}

// binary_pattern: the pattern (no values) of a matrix whose stored values are all 1; none where any value differs.
TEST(Rows, BinaryPattern) {
  CsrMatrix a;
  a.nrows = 2;
  a.ncols = 5;
  a.row_ptr = {0, 2, 3};
  a.col = {0, 4, 2};
  a.val = {1.0f, 1.0f, 1.0f};
  const std::optional<CsrMatrix> p = binary_pattern(a);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->nrows, 2);
  EXPECT_EQ(p->ncols, 5);
  EXPECT_EQ(p->row_ptr, a.row_ptr);
  EXPECT_EQ(p->col, a.col);
  EXPECT_TRUE(p->val.empty());
  a.val[2] = 0.5f;
  EXPECT_FALSE(binary_pattern(a).has_value());
  a.val[2] = -1.0f;
  EXPECT_FALSE(binary_pattern(a).has_value());
}

// rows_at: the chosen rows in the order given, repeats and empty rows kept; a row out of range is an error.
TEST(Rows, ChosenRowsInOrder) {
  const CsrMatrix a = test::random_inputs(9, 40, 0.3, 3);
  CsrMatrix with_empty = a;
  with_empty.nrows += 1;
  with_empty.row_ptr.push_back(with_empty.row_ptr.back());   // row 9 empty
  const CsrMatrix m = rows_at(with_empty, {4, 0, 9, 4});
  ASSERT_EQ(m.nrows, 4);
  EXPECT_EQ(m.ncols, 40);
  ASSERT_EQ(m.row_ptr.size(), 5u);
  const int64_t from[4] = {4, 0, 9, 4};
  for (int64_t i = 0; i < 4; ++i) {
    const int64_t r = from[i];
    ASSERT_EQ(m.row_nnz(i), with_empty.row_nnz(r)) << "row " << i;
    for (int64_t k = 0; k < m.row_nnz(i); ++k) {
      EXPECT_EQ(m.col[m.row_ptr[i] + k], with_empty.col[with_empty.row_ptr[r] + k]);
      EXPECT_EQ(m.val[m.row_ptr[i] + k], with_empty.val[with_empty.row_ptr[r] + k]);
    }
  }
  EXPECT_EQ(m.row_nnz(2), 0);
  EXPECT_GT(m.row_nnz(0), 0);
  EXPECT_THROW(rows_at(a, {9}), std::invalid_argument);
  EXPECT_EQ(rows_at(a, {}).nrows, 0);
}

}  // namespace
}  // namespace snk::gc
