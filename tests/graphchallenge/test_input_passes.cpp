// tests/graphchallenge/test_input_passes.cpp: the split of an inference's inputs into passes that fit the device's
// memory (graphchallenge/plan/input_passes.hpp), on drawn row lengths: one pass where all rows fit; else the fewest
// passes of a multiple of the row unit that fit, each within the memory by its own entries, and an error where the
// unit does not fit; the forced size; the bound on rows a pass; and the errors on bad arguments.
#include "plan/input_passes.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

namespace snk::gc {
namespace {

std::vector<int64_t> random_row_ptr(int64_t rows, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> length(0, 300);
  std::vector<int64_t> p{0};
  for (int64_t r = 0; r < rows; ++r) p.push_back(p.back() + length(rng));
  return p;
}

// The bytes of the largest pass of `rows`, computed pass by pass.
size_t largest_pass(const std::vector<int64_t>& ptr, const PassFootprint& f, int64_t rows) {
  const int64_t n = static_cast<int64_t>(ptr.size()) - 1;
  size_t most = 0;
  for (int64_t r0 = 0; r0 < n; r0 += rows) {
    const int64_t r1 = std::min(n, r0 + rows);
    most = std::max(most, f.bytes(rows, ptr[r1] - ptr[r0]));
  }
  return most;
}

TEST(InputPasses, FewestPassesThatFit) {
  std::mt19937_64 rng(std::random_device{}());
  const PassFootprint f{2 * 65536 * 8 + 24, 4, 1 << 20};   // 65536 neurons, FP64, binary inputs
  for (const int64_t n : {int64_t{1}, int64_t{127}, int64_t{1000}, int64_t{60000}}) {
    SCOPED_TRACE(std::to_string(n) + " rows");
    const std::vector<int64_t> ptr = random_row_ptr(n, rng);
    const size_t all = f.bytes(n, ptr.back());
    InputPasses p = plan_input_passes(ptr, f, all, 128, 65535 * 128);   // everything fits, just
    EXPECT_EQ(p.passes, 1);
    EXPECT_EQ(p.rows_per_pass, n);
    EXPECT_EQ(p.bytes, all);
    if (n < 256) continue;
    for (const double share : {0.9, 0.5, 0.26, 0.05}) {
      const size_t available = static_cast<size_t>(static_cast<double>(all) * share);
      if (largest_pass(ptr, f, 128) > available) {   // not even the smallest pass fits
        EXPECT_THROW(plan_input_passes(ptr, f, available, 128, 65535 * 128), std::runtime_error);
        continue;
      }
      p = plan_input_passes(ptr, f, available, 128, 65535 * 128);
      SCOPED_TRACE(std::to_string(share) + " of the memory: " + std::to_string(p.passes) + " passes of " +
                   std::to_string(p.rows_per_pass));
      EXPECT_EQ(p.rows_per_pass % 128, 0);
      EXPECT_EQ(p.passes, (n + p.rows_per_pass - 1) / p.rows_per_pass);
      EXPECT_EQ(p.bytes, largest_pass(ptr, f, p.rows_per_pass));
      EXPECT_LE(p.bytes, available);
      // One pass fewer does not fit at any multiple of 128 rows that covers the inputs in that many passes.
      if (p.passes > 1) {
        const int64_t fewer = p.passes - 1;
        const int64_t rows = ((n + fewer - 1) / fewer + 127) / 128 * 128;
        EXPECT_GT(largest_pass(ptr, f, rows), available);
      }
    }
  }
}

TEST(InputPasses, ForcedSizeBoundAndErrors) {
  std::mt19937_64 rng(std::random_device{}());
  const PassFootprint f{1000, 8, 64};
  const std::vector<int64_t> ptr = random_row_ptr(1000, rng);
  InputPasses p = plan_input_passes(ptr, f, 0, 128, 512, 300);   // forced: memory not checked
  EXPECT_EQ(p.rows_per_pass, 300);
  EXPECT_EQ(p.passes, 4);
  p = plan_input_passes(ptr, f, size_t(1) << 40, 128, 512);   // fits, but at most 512 rows a pass
  EXPECT_EQ(p.rows_per_pass, 512);
  EXPECT_EQ(p.passes, 2);
  p = plan_input_passes({0}, f, f.bytes(1, 0), 128, 512);   // no inputs: one pass
  EXPECT_EQ(p.passes, 1);
  try {
    plan_input_passes(ptr, f, f.bytes(128, 0) - 1, 128, 512);
    ADD_FAILURE() << "128 rows do not fit";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("are available"), std::string::npos) << e.what();
  }
  EXPECT_THROW(plan_input_passes({1, 2}, f, 1 << 20, 128, 512), std::invalid_argument);
  EXPECT_THROW(plan_input_passes({0, 5, 3}, f, 1 << 20, 128, 512), std::invalid_argument);
  EXPECT_THROW(plan_input_passes(ptr, f, 1 << 20, 128, 64), std::invalid_argument);
}

}  // namespace
}  // namespace snk::gc
