// tests/capi/backend_list.hpp: the backends this library offers, as the C API lists them (SNK_Backend_list),
// for the C API tests that run once per backend.
#pragma once

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

}  // namespace snk_test
