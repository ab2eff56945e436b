// The data types shared by the SpDNN GraphChallenge readers, cache, generator and host reference: a plain
// CSR matrix (the form every weight layer and every input batch takes on the host before an engine moves it
// to its own containers), a network (the layers plus the challenge's scalar bias), a data set (network,
// inputs, optional truth), and the exceptions the data side throws. They are deliberately free of GraphBLAS so
// that the data side builds and tests on its own and any engine can consume it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace snk::gc {

// Rows sorted by column inside each row, no duplicate (row, column) pairs. row_ptr has nrows + 1 entries;
// col and val have row_ptr[nrows] entries. Column indices are 32-bit: every challenge dimension fits.
struct CsrMatrix {
  int64_t nrows = 0;
  int64_t ncols = 0;
  std::vector<int64_t> row_ptr{0};
  std::vector<int32_t> col;
  std::vector<float> val;

  int64_t nnz() const { return static_cast<int64_t>(col.size()); }
  int64_t row_nnz(int64_t r) const { return row_ptr[r + 1] - row_ptr[r]; }
  friend bool operator==(const CsrMatrix& a, const CsrMatrix& b) {
    return a.nrows == b.nrows && a.ncols == b.ncols && a.row_ptr == b.row_ptr && a.col == b.col && a.val == b.val;
  }
  friend bool operator!=(const CsrMatrix& a, const CsrMatrix& b) { return !(a == b); }
};

// A challenge network: layers[k] is W_{k+1} (neurons x neurons, row = input neuron, column = output neuron, as
// in Y_{k+1} = h(Y_k W_k + bias)), and one bias value added to every neuron of every layer.
struct Network {
  int64_t neurons = 0;
  float bias = 0.0f;
  std::vector<CsrMatrix> layers;

  int64_t total_nnz() const {
    int64_t s = 0;
    for (const auto& w : layers) s += w.nnz();
    return s;
  }
};

// A whole run's data: the network, the inputs (rows = images, columns = neurons) and, when known, the truth
// categories (0-based row ids of the inputs, sorted ascending).
struct Dataset {
  Network network;
  CsrMatrix inputs;
  std::vector<int64_t> categories;
};

// The activation ceiling of the challenge: Y = min(max(Y W + b, 0), 32).
inline constexpr double kChallengeClamp = 32.0;

// The challenge's bias for each official network size (-0.3, -0.35, -0.4, -0.45 for 1024, 4096, 16384,
// 65536 neurons). Throws std::invalid_argument for any other size.
float challenge_bias(int64_t neurons);

// Thrown for anything wrong in a data file. what() reads "<file>:<line>: <reason>" when a line is known and
// "<file>: <reason>" when line() is 0 (a whole-file problem: missing file, bad header, corrupt cache).
class ReadError : public std::runtime_error {
 public:
  ReadError(std::string file, int64_t line, const std::string& reason);
  const std::string& file() const { return file_; }
  int64_t line() const { return line_; }  // 1-based; 0 when not tied to a line
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  int64_t line_;
  std::string reason_;
};

// Thrown for a binary cache that is missing, truncated, corrupt (checksum), of another version or
// inconsistent. The loader treats it as "cache unusable" and falls back to the text files.
class CacheError : public ReadError {
 public:
  CacheError(std::string file, const std::string& reason) : ReadError(std::move(file), 0, reason) {}
};

}  // namespace snk::gc
