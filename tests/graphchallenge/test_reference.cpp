// Tests of the double-precision host reference: the official 1024 x 120 network on the official 1200 images
// gives exactly the 19 official categories (this is the check every engine is held to), the clamp at 32 and
// the bias act as the challenge rule says on a hand-computed network, which also shows each row's margin (how near
// the ReLU's threshold it came), and the result does not depend on the thread count.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "gc_test_util.hpp"
#include "io/generator.hpp"
#include "io/readers.hpp"
#include "io/reference.hpp"

namespace snk::gc {
namespace {

TEST(Reference, OfficialSubsetGivesTheOfficialCategories) {
  SNK_REQUIRE_OFFICIAL();
  const Network& net = test::official_network();
  CsrMatrix y = read_inputs(test::official_dir() + "/sparse-images-1024_subset.mtx", 1024);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<int64_t> cats = reference_infer(net, y);
  std::printf("reference inference, 120 layers x 1200 images: %.3f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  EXPECT_EQ(cats, test::official_subset_categories());
  EXPECT_EQ(cats, read_categories(test::official_dir() + "/neuron1024-l120-categories_subset.mtx"));
  ReferenceOptions one;
  one.threads = 1;
  one.layers = 30;
  ReferenceOptions three = one;
  three.threads = 3;
  EXPECT_EQ(reference_infer(net, y, one), reference_infer(net, y, three));
}

// Two neurons, hand-computed. W1 = [[20, 0], [0, 0.25]], W2 = [[1, 0], [1, 1]], bias -1:
//   row 0: y = (3, 2): after W1 (60, 0.5) - 1 -> (59 -> clamp 32, 0 (cut)); after W2 (32, 0) - 1 -> (31, 0): alive
//   row 1: y = (0, 4): after W1 (0, 1) - 1 -> (0, 0): dead
//   row 2: empty: dead
Network hand_network() {
  Network net;
  net.neurons = 2;
  net.bias = -1.0f;
  CsrMatrix w1;
  w1.nrows = w1.ncols = 2;
  w1.row_ptr = {0, 1, 2};
  w1.col = {0, 1};
  w1.val = {20.0f, 0.25f};
  CsrMatrix w2;
  w2.nrows = w2.ncols = 2;
  w2.row_ptr = {0, 1, 3};
  w2.col = {0, 0, 1};
  w2.val = {1.0f, 1.0f, 1.0f};
  net.layers = {w1, w2};
  return net;
}

CsrMatrix hand_inputs() {
  CsrMatrix y;
  y.nrows = 3;
  y.ncols = 2;
  y.row_ptr = {0, 2, 3, 3};
  y.col = {0, 1, 1};
  y.val = {3.0f, 2.0f, 4.0f};
  return y;
}

TEST(Reference, ClampBiasAndDeath) {
  Network net = hand_network();
  CsrMatrix y = hand_inputs();
  EXPECT_EQ(reference_infer(net, y), (std::vector<int64_t>{0}));
  // Without the clamp row 0 would read 59 - 1 = 58 > 32 + something; check the clamp by a third layer that
  // subtracts 31.5 after scaling by 1: 31 + 0 - 1 = 30 -> alive; with W = 0.03 (<1/31): 0.93 - 1 < 0 -> dead.
  CsrMatrix w3 = net.layers[1];
  w3.val = {0.03f, 0.03f, 0.03f};
  net.layers.push_back(w3);
  EXPECT_TRUE(reference_infer(net, y).empty());
  ReferenceOptions two_layers;
  two_layers.layers = 2;
  EXPECT_EQ(reference_infer(net, y, two_layers), (std::vector<int64_t>{0}));
  net.bias = 0.5f;
  EXPECT_THROW(reference_infer(net, y), std::invalid_argument);
}

// The margins of the same rows: row 0 came within 0.5 of the threshold (neuron 1 after W1: 0.5 - 1), row 1 onto
// it (0.25 x 4 - 1 = 0), row 2 reached no neuron. They do not change the categories.
TEST(Reference, MarginsSayHowNearTheThresholdEachRowCame) {
  const Network net = hand_network();
  const CsrMatrix y = hand_inputs();
  std::vector<double> margins = {7.0};   // replaced, one per row
  ReferenceOptions o;
  o.margins = &margins;
  EXPECT_EQ(reference_infer(net, y, o), (std::vector<int64_t>{0}));
  ASSERT_EQ(3u, margins.size());
  EXPECT_EQ(0.5, margins[0]);
  EXPECT_EQ(0.0, margins[1]);
  EXPECT_TRUE(std::isinf(margins[2]));
  o.layers = 1;   // row 0's second layer (31) does not lower it
  EXPECT_EQ(reference_infer(net, y, o), (std::vector<int64_t>{0}));
  EXPECT_EQ(0.5, margins[0]);
}

TEST(Reference, RejectsMismatchedSizes) {
  Network net = generate_network(1024, 2, 1);
  CsrMatrix y;
  y.nrows = 1;
  y.ncols = 512;
  y.row_ptr = {0, 0};
  EXPECT_THROW(reference_infer(net, y), std::invalid_argument);
}

}  // namespace
}  // namespace snk::gc
