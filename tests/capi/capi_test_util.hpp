// tests/capi/capi_test_util.hpp: what several C API tests share: the backends the library offers, as the C API
// lists them (for the tests that run once per backend), and handles to memory that holds no GraphBLAS object.
#pragma once

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "GraphBLAS.h"

namespace snk_test {

// The names SNK_Backend_list gives ("reference, kokkos, ..."), in order; empty if the call fails.
inline std::vector<std::string> backend_list() {
  char list[256] = {0};
  std::vector<std::string> names;
  if (SNK_Backend_list(list, sizeof list) != GrB_SUCCESS) return names;
  std::stringstream ss(list);
  for (std::string name; std::getline(ss, name, ',');) {
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

// A handle of type H to memory that holds no GraphBLAS object: the library must report it as uninitialized.
template <class H>
H uninitialized() {
  alignas(16) static unsigned char garbage[512];
  std::memset(garbage, 0x5a, sizeof garbage);
  return reinterpret_cast<H>(garbage);
}

}  // namespace snk_test
