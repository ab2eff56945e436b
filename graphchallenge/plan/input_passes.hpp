// graphchallenge/plan/input_passes.hpp: how many inputs a GPU engine takes in one pass through the network, where the
// activations of all of them at once would not fit the device's memory.
//
// An engine that holds the activations as a dense neurons x rows block (the tiled engine's Y^T, twice: a layer reads
// one and writes the other) needs 2 x neurons x rows values; at 65536 neurons and the challenge's 60000 inputs in FP64
// that is 63 GB. Where that and the pass's other arrays do not fit the memory it may take, the inputs are split into
// passes of consecutive rows, each run through every layer in turn; each row's category depends on that row alone, so
// the categories are the same, and the weights are read once a pass instead of once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace snk::gc {

// The device bytes a pass holds: per row of the pass (its activations twice, row ids, flags), per stored input entry,
// and once.
struct PassFootprint {
  size_t bytes_per_row = 0;
  size_t bytes_per_entry = 0;
  size_t fixed_bytes = 0;

  // The bytes of a pass of `rows` rows holding `entries` stored input entries.
  size_t bytes(int64_t rows, int64_t entries) const;
};

struct InputPasses {
  int64_t rows_per_pass = 0;   // every pass but the last takes this many rows (the last the rest); at least 1
  int64_t passes = 0;          // at least 1 (one pass over no rows where there are none)
  size_t bytes = 0;            // the most device bytes a pass holds (PassFootprint::bytes)
};

// The passes over the inputs with row pointers `row_ptr` (CSR, rows + 1 offsets): all rows in one pass where it fits
// `available_bytes`, else the fewest passes whose rows (a multiple of `row_multiple`, but for the last) fit; no pass
// over `most_rows`. `forced_rows` > 0 sets the rows per pass instead (still at most `most_rows`; memory not checked).
// Throws std::invalid_argument where the row pointers are not a CSR's, std::runtime_error where even `row_multiple` rows
// do not fit (the message gives the bytes needed and those available).
InputPasses plan_input_passes(const std::vector<int64_t>& row_ptr, const PassFootprint& footprint,
                              size_t available_bytes, int64_t row_multiple, int64_t most_rows, int64_t forced_rows = 0);

}  // namespace snk::gc
