// bench/device_tag.hpp: the device's model as a file-name tag ("NVIDIA H100 80GB HBM3": h100), so that every GPU
// benchmark names its results after the device that made them (spmm-h100.md, onchip-paths-h200.md,
// spdnn-h100.csv). Host code only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>

namespace snk::bench {

// The first word of `name` made of a letter and then digits, in lower case; else "gpu".
inline std::string device_tag(const std::string& name) {
  std::istringstream words(name);
  for (std::string w; words >> w;)
    if (w.size() >= 2 && std::isalpha(static_cast<unsigned char>(w[0])) &&
        std::all_of(w.begin() + 1, w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      std::transform(w.begin(), w.end(), w.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
      return w;
    }
  return "gpu";
}

// The tag of the current device; "gpu" where its properties cannot be read (the CUDA error state is cleared).
inline std::string current_device_tag() {
  cudaDeviceProp prop{};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    return "gpu";
  }
  return device_tag(prop.name);
}

}  // namespace snk::bench
