// layers/checkpoint.hpp: training checkpoints, a file of named matrices (weights, biases, optimizer state), named
// number series (the learning curves so far) and the run's position (epoch, step), so that a killed run resumes
// where its last checkpoint left it.
//
// Writes are atomic: the file is written beside its final name, flushed to disk, then renamed over it, so a reader
// sees the old checkpoint or the new one, never a part. The file ends with a 64-bit hash of everything before it
// (FNV-1a's step, from the basis 1469598103934665603: FNV's standard basis with its last digit cut, as version 1 has
// always written it); a truncated or altered file is refused with a message, and nothing is loaded from it.
// Layout (little-endian): "SNKCKPT1", u32 format version, string config, u64 epoch, u64 step, u32 matrix count,
// then per matrix: string name, u8 type code, u64 nrows, u64 ncols, u64 nvals, nvals u64 rows, nvals u64 columns,
// nvals values of the type; u32 series count, then per series: string name, u64 length, doubles; u64 hash.
// A string is a u64 length and its bytes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "snack/snack.hpp"

namespace snk::layers {

struct Checkpoint {
  std::string config;   // what the run was started with; a resumed run must match it
  std::uint64_t epoch = 0, step = 0;
  std::vector<std::pair<std::string, Matrix>> matrices;
  std::vector<std::pair<std::string, std::vector<double>>> series;

  // The matrix or series of that name (InvalidObject naming the checkpoint when absent).
  const Matrix& matrix(const std::string& name) const;
  const std::vector<double>& numbers(const std::string& name) const;
};

// Writes c to path atomically (path + ".tmp", fsync, rename). InvalidValue naming the path if it cannot be written.
void save_checkpoint(const std::string& path, const Checkpoint& c);

// Reads a checkpoint. InvalidValue if the file cannot be opened; InvalidObject, naming the file and what is wrong,
// for a file that is not a checkpoint, is of another format version, is truncated, or fails its hash.
Checkpoint load_checkpoint(const std::string& path);

}  // namespace snk::layers
