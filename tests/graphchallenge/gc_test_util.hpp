// Helpers shared by the graphchallenge data tests (and the GPU engines'): where the official data and the
// MNIST package are, a scratch folder per test, the official network loaded once per process, a matcher for
// ReadError, random binary inputs, and the seed of a generated case.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "io/readers.hpp"
#include "io/types.hpp"

namespace snk::gc::test {

inline std::string shared_data() { return SNACK_SHARED_DATA; }
inline std::string official_dir() { return shared_data() + "/graphchallenge"; }
inline std::string mnist_dir() {
  const char* env = std::getenv("SNACK_DEPS");
  if (env && *env) return std::string(env) + "/mnist/package";
  return SNACK_MNIST_DIR;
}

inline bool path_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

inline bool have_official() { return path_exists(official_dir() + "/neuron1024/n1024-l120.tsv"); }
inline bool have_mnist() { return path_exists(mnist_dir() + "/src/digits/9.json"); }

#define SNK_REQUIRE_OFFICIAL()                                                                          \
  do {                                                                                                  \
    if (!::snk::gc::test::have_official())                                                              \
      GTEST_SKIP() << "official GraphChallenge data not found at " << ::snk::gc::test::official_dir(); \
  } while (0)

#define SNK_REQUIRE_MNIST()                                                                                 \
  do {                                                                                                      \
    if (!::snk::gc::test::have_mnist())                                                                     \
      GTEST_SKIP() << "MNIST package not found at " << ::snk::gc::test::mnist_dir() << " (run scripts/setup.sh)"; \
  } while (0)

// A fresh temporary folder, removed (with its files) at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) + "/snkgc.XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The official network (120 layers), read once per process.
inline const Network& official_network() {
  static const Network net = read_weights(official_dir() + "/neuron1024", 1024, 120);
  return net;
}

// The 19 official categories of the 1200-image subset, 0-based.
inline std::vector<int64_t> official_subset_categories() {
  std::vector<int64_t> one_based = {287, 295, 386, 427, 428, 529, 571, 666, 757, 943,
                                    945, 1031, 1097, 1098, 1177, 1184, 1190, 1194, 1200};
  for (auto& v : one_based) --v;
  return one_based;
}

// Runs fn and checks that it throws ReadError for `file` at `line` with `reason_part` in the reason.
template <class Fn>
void expect_read_error(Fn&& fn, const std::string& file, int64_t line, const std::string& reason_part) {
  try {
    fn();
    ADD_FAILURE() << "no ReadError thrown (expected " << file << ":" << line << ": ..." << reason_part << ")";
  } catch (const ReadError& e) {
    EXPECT_EQ(e.file(), file) << e.what();
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(e.reason().find(reason_part), std::string::npos) << "reason: " << e.reason();
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(file, 0), 0u) << what;
    if (line > 0) EXPECT_NE(what.find(":" + std::to_string(line) + ":"), std::string::npos) << what;
  }
}

// Entries per column of a CSR matrix.
inline std::vector<int64_t> column_counts(const CsrMatrix& m) {
  std::vector<int64_t> c(static_cast<size_t>(m.ncols), 0);
  for (int32_t j : m.col) ++c[j];
  return c;
}

// Random binary inputs (rows x n) from `seed`; row r has a density drawn uniformly from [0, max_density], so that sparse
// rows die and dense ones survive.
inline CsrMatrix random_inputs(int64_t rows, int64_t n, double max_density, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> density(0.0, max_density);
  CsrMatrix m;
  m.nrows = rows;
  m.ncols = n;
  for (int64_t r = 0; r < rows; ++r) {
    std::bernoulli_distribution on(density(rng));
    for (int64_t c = 0; c < n; ++c)
      if (on(rng)) {
        m.col.push_back(static_cast<int32_t>(c));
        m.val.push_back(1.0f);
      }
    m.row_ptr.push_back(static_cast<int64_t>(m.col.size()));
  }
  return m;
}

// The seed of a generated case: $SNACK_GC_SEED replays a printed one, else a fresh one.
inline uint64_t case_seed() {
  const char* env = std::getenv("SNACK_GC_SEED");
  return env && *env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
}

}  // namespace snk::gc::test
