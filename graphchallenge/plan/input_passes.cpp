// graphchallenge/plan/input_passes.cpp: the split of an inference's inputs into passes that fit the device's memory
// (input_passes.hpp says why).
#include "plan/input_passes.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace snk::gc {

size_t PassFootprint::bytes(int64_t rows, int64_t entries) const {
  return fixed_bytes + static_cast<size_t>(rows) * bytes_per_row + static_cast<size_t>(entries) * bytes_per_entry;
}

namespace {

// The most stored entries any pass of `rows` consecutive rows holds.
int64_t most_entries(const std::vector<int64_t>& row_ptr, int64_t rows) {
  const int64_t n = static_cast<int64_t>(row_ptr.size()) - 1;
  int64_t most = 0;
  for (int64_t r0 = 0; r0 < n; r0 += rows)
    most = std::max(most, row_ptr[static_cast<size_t>(std::min(n, r0 + rows))] - row_ptr[static_cast<size_t>(r0)]);
  return most;
}

std::string gigabytes(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g GB", static_cast<double>(bytes) * 1e-9);
  return buf;
}

}  // namespace

InputPasses plan_input_passes(const std::vector<int64_t>& row_ptr, const PassFootprint& footprint,
                              size_t available_bytes, int64_t row_multiple, int64_t most_rows, int64_t forced_rows) {
  if (row_ptr.empty() || row_ptr.front() != 0 || !std::is_sorted(row_ptr.begin(), row_ptr.end()))
    throw std::invalid_argument("plan_input_passes: the row pointers are not a CSR matrix's (" +
                                std::to_string(row_ptr.size()) + " of them, non-decreasing from 0)");
  if (row_multiple < 1 || most_rows < row_multiple)
    throw std::invalid_argument("plan_input_passes: rows in multiples of " + std::to_string(row_multiple) +
                                ", at most " + std::to_string(most_rows) + " a pass");
  const int64_t n = static_cast<int64_t>(row_ptr.size()) - 1;
  const auto plan = [&](int64_t rows) {
    rows = std::max<int64_t>(1, std::min({rows, most_rows, std::max<int64_t>(1, n)}));
    return InputPasses{rows, std::max<int64_t>(1, (n + rows - 1) / rows),
                       footprint.bytes(rows, most_entries(row_ptr, rows))};
  };
  if (forced_rows > 0) return plan(forced_rows);
  // The fewest passes that fit: one first, then rows per pass rounded up to row_multiple for each count of passes.
  InputPasses p = plan(n);
  for (int64_t passes = p.passes; p.bytes > available_bytes;) {
    if (p.rows_per_pass <= row_multiple)
      throw std::runtime_error("the activations of " + std::to_string(p.rows_per_pass) + " inputs need " +
                               gigabytes(p.bytes) + " of device memory; " + gigabytes(available_bytes) +
                               " are available");
    const int64_t per = (n + passes) / (passes + 1);   // ceil(n / (passes + 1))
    p = plan((per + row_multiple - 1) / row_multiple * row_multiple);
    passes = std::max(passes + 1, p.passes);
  }
  return p;
}

}  // namespace snk::gc
