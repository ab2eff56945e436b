// tests/core/test_environment.cpp: the process-wide settings that the environment gives their first values:
// $SNACK_BACKEND (the backend), $SNACK_BIND (the cuda backend's bind policy), $SNACK_DETERMINISTIC and
// $SNACK_HOST_THREADS (the threads of the SpMM plans' host order builds, spmm/host_threads.hpp, header only). Each is
// read once, at first use, so one process sees one setting: CTest runs this program once per environment
// (tests/core/CMakeLists.txt), telling it what to expect through $SNACK_TEST_EXPECT_BACKEND, _BIND ("auto", "eager"
// or "never"), _DETERMINISTIC ("on" or "off"), _HOST_THREADS (a count, or "default") and _MESSAGE (text that
// stderr must hold after the first use, or "none": stderr stays empty). A value the library does not read prints
// one message and leaves the default.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "snack/backend.hpp"
#include "spmm/host_threads.hpp"

namespace {

std::string expected(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

const char* policy_name(snk::BindPolicy p) {
  switch (p) {
    case snk::BindPolicy::Auto: return "auto";
    case snk::BindPolicy::Eager: return "eager";
    case snk::BindPolicy::Never: return "never";
  }
  return "?";
}

TEST(Environment, FirstUseReadsTheSettings) {
  const std::string backend = expected("SNACK_TEST_EXPECT_BACKEND");
  const std::string bind = expected("SNACK_TEST_EXPECT_BIND");
  const std::string deterministic = expected("SNACK_TEST_EXPECT_DETERMINISTIC");
  const std::string host_threads = expected("SNACK_TEST_EXPECT_HOST_THREADS");
  const std::string message = expected("SNACK_TEST_EXPECT_MESSAGE");
  if (backend.empty() || bind.empty() || deterministic.empty() || host_threads.empty() || message.empty())
    GTEST_SKIP() << "run by CTest with SNACK_TEST_EXPECT_BACKEND, _BIND, _DETERMINISTIC, _HOST_THREADS and _MESSAGE "
                    "set";

  testing::internal::CaptureStderr();
  const std::string got_backend = snk::current_backend();
  const snk::BindPolicy got_bind = snk::bind_policy();
  const bool got_deterministic = snk::deterministic();
  const int got_host_threads = snk::cuda::host_order_threads();
  const std::string err = testing::internal::GetCapturedStderr();

  EXPECT_EQ(backend, got_backend);
  EXPECT_EQ(bind, policy_name(got_bind));
  EXPECT_EQ(deterministic == "on", got_deterministic);
  EXPECT_EQ(host_threads == "default" ? snk::cuda::default_host_order_threads() : std::atoi(host_threads.c_str()),
            got_host_threads);
  if (message == "none")
    EXPECT_EQ("", err);
  else
    EXPECT_NE(std::string::npos, err.find(message)) << "stderr: " << err;

  // Read once: changing the environment now changes nothing, and the calls that set them still do.
  setenv("SNACK_BIND", "never", 1);
  setenv("SNACK_DETERMINISTIC", got_deterministic ? "0" : "1", 1);
  setenv("SNACK_HOST_THREADS", "7", 1);
  EXPECT_EQ(got_host_threads, snk::cuda::host_order_threads());
  EXPECT_EQ(got_bind, snk::bind_policy());
  EXPECT_EQ(got_deterministic, snk::deterministic());
  snk::set_bind_policy(snk::BindPolicy::Eager);
  EXPECT_EQ(snk::BindPolicy::Eager, snk::bind_policy());
  snk::set_deterministic(!got_deterministic);
  EXPECT_EQ(!got_deterministic, snk::deterministic());
}

}  // namespace
