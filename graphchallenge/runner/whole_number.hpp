// graphchallenge/runner/whole_number.hpp: reading a count from the command line of the SpDNN runners (snack-spdnn,
// snack-spdnn-mpi): the whole value must be a number, so "12x" and "abc" are refused rather than read as 12 or as an
// exception that names std::stoll.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace snk::gc {

// v as a whole number in `out`; false (out unchanged) where v is empty, holds anything else, or overflows int64.
inline bool whole_number(const std::string& v, std::int64_t& out) {
  std::size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::logic_error&) {   // invalid_argument, out_of_range
    return false;
  }
  if (used != v.size()) return false;
  out = n;
  return true;
}

}  // namespace snk::gc
