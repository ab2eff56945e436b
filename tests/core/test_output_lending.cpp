// tests/core/test_output_lending.cpp: the core's rule for lending an output's memory to an mxm's result
// (Matrix::lend_memory, snk::borrow_device_output): a probe backend records what each mxm's result was lent and
// declines, so that reference computes the call and the results can be checked too. The output holds a fake device
// copy that lends a host array; no GPU is needed. The cuda backend's use of the lent memory is tested on the GPU
// (tests/gpu/cuda_backend_test.cpp: ProductsWriteWhereTheOutputWasLent).
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/internal.hpp"
#include "snack/snack.hpp"

namespace {

using snk::BinaryOpcode;
using snk::CsrStorage;
using snk::Index;
using snk::LentMemory;
using snk::Matrix;
using Oracle = std::map<std::pair<Index, Index>, double>;

Oracle content(const Matrix& m) {
  std::vector<Index> i(m.nvals()), j(m.nvals());
  std::vector<double> x(m.nvals());
  m.extract_tuples(i.data(), j.data(), x.data(), &snk::types::FP64);
  Oracle o;
  for (std::size_t k = 0; k < x.size(); ++k) o[{i[k], j[k]}] = x[k];
  return o;
}

// A device copy whose "device" is a CsrStorage, lending `lendable`.
class LendingCopy : public snk::DeviceCopy {
 public:
  LendingCopy(CsrStorage content, LentMemory lendable) : content_(std::move(content)), lendable_(lendable) {}
  void download(CsrStorage& host) override { host = content_; }
  Index nvals() const override { return content_.nvals(); }
  LentMemory lendable_memory() const override { return lendable_; }
  const char* backend() const override { return "fake"; }

 private:
  CsrStorage content_;
  LentMemory lendable_;
};

// A backend that records the memory lent to each mxm's result, then declines.
class LendProbe : public snk::core::Backend {
 public:
  std::string name() const override { return "lend-probe"; }
  snk::core::KernelStatus mxm(Matrix& T, const snk::core::MaskHint&, const snk::Semiring&, const Matrix&, bool,
                              const Matrix&, bool, bool) override {
    seen().push_back(T.lent_memory());
    return snk::core::KernelStatus::Declined;
  }
  static std::vector<LentMemory>& seen() {
    static std::vector<LentMemory> s;
    return s;
  }
};

// The result is lent the output's memory only where the call replaces the output whole: no mask, no accumulator, the
// output of the result's type, its device copy current and lending memory. The results are the same either way.
TEST(OutputLending, OnlyWhereTheCallReplacesTheOutputWhole) {
  snk::core::register_backend({"lend-probe", -1, false, [] { return std::make_unique<LendProbe>(); }, ""});
  const snk::Type* f64 = &snk::types::FP64;
  const snk::Semiring& pt = *snk::builtin_semiring(BinaryOpcode::Plus, BinaryOpcode::Times, snk::TypeCode::FP64);
  Matrix A(f64, 2, 2), B(f64, 2, 3);
  const Index ai[] = {0, 1, 1}, aj[] = {0, 0, 1}, bi[] = {0, 0, 1}, bj[] = {0, 2, 1};
  const double av[] = {1, 2, 3}, bv[] = {4, 5, 6};
  A.build(ai, aj, av, f64, 3, nullptr);
  B.build(bi, bj, bv, f64, 3, nullptr);
  const Oracle product{{{0, 0}, 4}, {{0, 2}, 5}, {{1, 0}, 8}, {{1, 1}, 18}, {{1, 2}, 10}};
  double memory[6];
  const LentMemory lent{memory, sizeof memory};
  // An output whose device copy holds 1 at (0, 0) and lends `lendable`.
  const auto output = [&](const snk::Type* type, LentMemory lendable) {
    CsrStorage dev;
    dev.p = {0, 1, 1};
    dev.j = {0};
    dev.x.assign(type->size, 0);
    const double one = 1;
    const float one_f = 1;
    std::memcpy(dev.x.data(), type == f64 ? static_cast<const void*>(&one) : &one_f, type->size);
    Matrix C(type, 2, 3);
    C.attach_device_copy(std::make_unique<LendingCopy>(std::move(dev), lendable), true);
    return C;
  };
  const snk::BinaryOp& plus = *snk::builtin_binary_op(BinaryOpcode::Plus, snk::TypeCode::FP64);
  Matrix M(&snk::types::Bool, 2, 3);
  const Index mi[] = {1}, mj[] = {1};
  const bool mv[] = {true};
  M.build(mi, mj, mv, &snk::types::Bool, 1, nullptr);
  const snk::Descriptor none;
  snk::BackendScope scope("lend-probe");
  const auto expect_lent = [&](const char* what, bool lends, const std::function<void()>& call) {
    LendProbe::seen().clear();
    call();
    ASSERT_EQ(LendProbe::seen().size(), 1u) << what;
    EXPECT_EQ(LendProbe::seen()[0].data, lends ? static_cast<void*>(memory) : nullptr) << what;
    EXPECT_EQ(LendProbe::seen()[0].bytes, lends ? sizeof memory : 0u) << what;
  };
  {
    Matrix C = output(f64, lent);
    expect_lent("replaced whole", true, [&] { snk::mxm(C, nullptr, nullptr, pt, A, B, none); });
    EXPECT_EQ(content(C), product);
  }
  {
    Matrix C = output(f64, lent);
    expect_lent("accumulated", false, [&] { snk::mxm(C, nullptr, &plus, pt, A, B, none); });
    Oracle want = product;
    want[{0, 0}] += 1;
    EXPECT_EQ(content(C), want);
  }
  {
    Matrix C = output(f64, lent);
    expect_lent("masked", false, [&] { snk::mxm(C, &M, nullptr, pt, A, B, none); });
    EXPECT_EQ(content(C), (Oracle{{{0, 0}, 1}, {{1, 1}, 18}}));
  }
  {
    Matrix C = output(&snk::types::FP32, {memory, 6 * sizeof(float)});
    expect_lent("of another type", false, [&] { snk::mxm(C, nullptr, nullptr, pt, A, B, none); });
    EXPECT_EQ(content(C), product);
  }
  {
    Matrix C = output(f64, {});
    expect_lent("lending nothing", false, [&] { snk::mxm(C, nullptr, nullptr, pt, A, B, none); });
    EXPECT_EQ(content(C), product);
  }
  {
    Matrix C = output(f64, lent);
    const double two = 2;
    C.set_element(1, 2, &two, f64);   // a host write: the device copy goes
    expect_lent("after a host write", false, [&] { snk::mxm(C, nullptr, nullptr, pt, A, B, none); });
    EXPECT_EQ(content(C), product);
  }
}

}  // namespace
