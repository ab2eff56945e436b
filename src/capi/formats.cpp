// src/capi/formats.cpp: writer and validating parser of snack's matrix blob, and the MatrixMarket text
// parser (see formats.hpp for both formats). Every read is bounds-checked against the input size, every
// size computation is checked for overflow, and every structural property the core relies on (sorted
// unique indices within range, consistent offsets) is verified, so that no input can crash the library.
#include "capi/formats.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "snack/error.hpp"

namespace snk::capi {

std::uint64_t fnv1a64(const unsigned char* data, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t k = 0; k < n; ++k) {
    h ^= data[k];
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

void put_u32(unsigned char* out, std::uint32_t v) {
  for (int b = 0; b < 4; ++b) out[b] = static_cast<unsigned char>(v >> (8 * b));
}
void put_u64(unsigned char* out, std::uint64_t v) {
  for (int b = 0; b < 8; ++b) out[b] = static_cast<unsigned char>(v >> (8 * b));
}
std::uint32_t get_u32(const unsigned char* in) {
  std::uint32_t v = 0;
  for (int b = 0; b < 4; ++b) v |= static_cast<std::uint32_t>(in[b]) << (8 * b);
  return v;
}
std::uint64_t get_u64(const unsigned char* in) {
  std::uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= static_cast<std::uint64_t>(in[b]) << (8 * b);
  return v;
}

[[noreturn]] void corrupt(const std::string& why) {
  throw Error(Info::InvalidObject, "invalid serialized matrix: " + why);
}

// a + b and a * b, or throws when they overflow 64 bits.
std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  if (a > std::numeric_limits<std::uint64_t>::max() - b) corrupt("sizes overflow");
  return a + b;
}
std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) corrupt("sizes overflow");
  return a * b;
}

}  // namespace

std::uint64_t blob_size(const BlobMatrix& m) {
  std::uint64_t n = kBlobHeaderSize + m.type_name.size();
  n = add(n, mul(8, m.h.size()));
  n = add(n, mul(8, m.p.size()));
  n = add(n, mul(8, m.j.size()));
  n = add(n, mul(m.type_size, m.nvals()));
  return add(n, 8);
}

void write_blob(const BlobMatrix& m, unsigned char* out) {
  unsigned char* q = out;
  std::memcpy(q, kBlobMagic, 8);
  put_u32(q + 8, kBlobVersion);
  put_u32(q + 12, m.type_code);
  put_u64(q + 16, m.type_size);
  put_u64(q + 24, m.nrows);
  put_u64(q + 32, m.ncols);
  put_u64(q + 40, m.nvals());
  put_u64(q + 48, m.h.size());
  put_u64(q + 56, m.type_name.size());
  q += kBlobHeaderSize;
  std::memcpy(q, m.type_name.data(), m.type_name.size());
  q += m.type_name.size();
  for (const auto* array : {&m.h, &m.p, &m.j}) {
    for (std::uint64_t v : *array) {
      put_u64(q, v);
      q += 8;
    }
  }
  const std::uint64_t value_bytes = m.type_size * m.nvals();
  if (value_bytes != 0) std::memcpy(q, m.values, value_bytes);
  q += value_bytes;
  put_u64(q, fnv1a64(out, static_cast<std::size_t>(q - out)));
}

BlobMatrix parse_blob(const unsigned char* blob, std::size_t size, std::uint64_t max_dimension) {
  if (blob == nullptr) corrupt("no data");
  if (size < kBlobHeaderSize + 8) corrupt("truncated: " + std::to_string(size) + " bytes is less than a header");
  if (std::memcmp(blob, kBlobMagic, 8) != 0) corrupt("not a snack matrix blob (bad magic)");
  const std::uint32_t version = get_u32(blob + 8);
  if (version != kBlobVersion) corrupt("unsupported format version " + std::to_string(version));
  BlobMatrix m;
  m.type_code = get_u32(blob + 12);
  m.type_size = get_u64(blob + 16);
  m.nrows = get_u64(blob + 24);
  m.ncols = get_u64(blob + 32);
  const std::uint64_t nvals = get_u64(blob + 40);
  const std::uint64_t nh = get_u64(blob + 48);
  const std::uint64_t name_len = get_u64(blob + 56);
  if (m.type_code > 11) corrupt("unknown type code " + std::to_string(m.type_code));
  if (m.type_size == 0 || m.type_size > (std::uint64_t(1) << 20)) corrupt("bad type size");
  if (m.nrows > max_dimension || m.ncols > max_dimension) corrupt("dimension out of range");
  if (name_len > 4096) corrupt("type name too long");
  // The format is canonical (one blob per matrix): builtin types have their own size and no name.
  static const std::uint64_t kBuiltinSizes[11] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
  if (m.type_code < 11 && (m.type_size != kBuiltinSizes[m.type_code] || name_len != 0)) {
    corrupt("builtin type with a wrong size or a name");
  }
  // The total size must match the counts: checked before any array is read, with overflow checks.
  std::uint64_t need = add(kBlobHeaderSize, name_len);
  need = add(need, mul(8, nh));
  need = add(need, mul(8, add(nh, 1)));
  need = add(need, mul(8, nvals));
  need = add(need, mul(m.type_size, nvals));
  need = add(need, 8);
  if (need > size) corrupt("truncated: " + std::to_string(size) + " bytes, the header describes " + std::to_string(need));
  const std::uint64_t stored_sum = get_u64(blob + need - 8);
  if (stored_sum != fnv1a64(blob, static_cast<std::size_t>(need - 8))) corrupt("checksum mismatch");
  if (nh > m.nrows || nvals > mul(nh, m.ncols)) corrupt("more entries than positions");

  const unsigned char* q = blob + kBlobHeaderSize;
  m.type_name.assign(reinterpret_cast<const char*>(q), static_cast<std::size_t>(name_len));
  q += name_len;
  m.h.resize(nh);
  for (std::uint64_t k = 0; k < nh; ++k, q += 8) {
    m.h[k] = get_u64(q);
    if (m.h[k] >= m.nrows || (k > 0 && m.h[k] <= m.h[k - 1])) corrupt("row list not increasing or out of range");
  }
  m.p.resize(nh + 1);
  for (std::uint64_t k = 0; k <= nh; ++k, q += 8) {
    m.p[k] = get_u64(q);
    // Offsets start at 0 and increase strictly: every listed row has at least one entry.
    if ((k == 0 && m.p[k] != 0) || (k > 0 && m.p[k] <= m.p[k - 1]) || m.p[k] > nvals) corrupt("bad row offsets");
  }
  if (m.p[nh] != nvals) corrupt("row offsets do not end at nvals");
  m.j.resize(nvals);
  for (std::uint64_t e = 0; e < nvals; ++e, q += 8) m.j[e] = get_u64(q);
  for (std::uint64_t k = 0; k < nh; ++k) {
    for (std::uint64_t e = m.p[k]; e < m.p[k + 1]; ++e) {
      if (m.j[e] >= m.ncols || (e > m.p[k] && m.j[e] <= m.j[e - 1])) corrupt("column indices not increasing or out of range");
    }
  }
  m.values = q;
  return m;
}

// ---- MatrixMarket -----------------------------------------------------------------------------------------
namespace {

class LineReader {
 public:
  LineReader(const char* text, std::size_t size) : p_(text), end_(text + size) {}
  // The next line without its terminator; false at the end.
  bool next(std::string& line) {
    if (p_ >= end_) return false;
    const char* nl = static_cast<const char*>(std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_)));
    const char* stop = nl ? nl : end_;
    line.assign(p_, stop);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    p_ = nl ? nl + 1 : end_;
    ++number_;
    return true;
  }
  std::size_t number() const { return number_; }

 private:
  const char* p_;
  const char* end_;
  std::size_t number_ = 0;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
  return s;
}

// Splits on blanks.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::size_t k = 0;
  while (k < line.size()) {
    while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
    const std::size_t start = k;
    while (k < line.size() && line[k] != ' ' && line[k] != '\t') ++k;
    if (k > start) out.push_back(line.substr(start, k - start));
  }
  return out;
}

[[noreturn]] void bad_line(std::size_t line, const std::string& why) {
  throw Error(Info::InvalidValue, "MatrixMarket line " + std::to_string(line) + ": " + why);
}

std::uint64_t parse_index(const std::string& w, std::size_t line) {
  if (w.empty() || w.size() > 20) bad_line(line, "bad integer '" + w.substr(0, 32) + "'");
  std::uint64_t v = 0;
  for (char c : w) {
    if (c < '0' || c > '9') bad_line(line, "bad integer '" + w.substr(0, 32) + "'");
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) bad_line(line, "integer too large");
    v = v * 10 + d;
  }
  return v;
}

std::int64_t parse_integer(const std::string& w, std::size_t line) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(w.c_str(), &end, 10);
  if (w.empty() || end != w.c_str() + w.size() || errno == ERANGE) bad_line(line, "bad integer value '" + w.substr(0, 32) + "'");
  return static_cast<std::int64_t>(v);
}

double parse_real(const std::string& w, std::size_t line) {
  char* end = nullptr;
  const double v = std::strtod(w.c_str(), &end);
  if (w.empty() || end != w.c_str() + w.size()) bad_line(line, "bad real value '" + w.substr(0, 32) + "'");
  return v;
}

}  // namespace

MtxMatrix parse_mtx(const char* text, std::size_t size, std::uint64_t max_dimension, std::uint64_t max_entries) {
  if (text == nullptr) throw Error(Info::NullPointer, "text is NULL");
  LineReader reader(text, size);
  std::string line;
  if (!reader.next(line)) bad_line(1, "empty input");
  const std::vector<std::string> banner = words(lower(line));
  if (banner.size() != 5 || banner[0] != "%%matrixmarket" || banner[1] != "matrix") {
    bad_line(1, "expected '%%MatrixMarket matrix <format> <field> <symmetry>'");
  }
  const bool coordinate = banner[2] == "coordinate";
  if (!coordinate && banner[2] != "array") bad_line(1, "format must be coordinate or array");
  MtxMatrix m;
  if (banner[3] == "real" || banner[3] == "double") {
    m.field = MtxMatrix::Field::Real;
  } else if (banner[3] == "integer") {
    m.field = MtxMatrix::Field::Integer;
  } else if (banner[3] == "pattern" && coordinate) {
    m.field = MtxMatrix::Field::Pattern;
  } else if (banner[3] == "complex") {
    throw Error(Info::NotImplemented, "MatrixMarket complex matrices are not supported");
  } else {
    bad_line(1, "unknown field '" + banner[3] + "'");
  }
  enum class Symmetry { General, Symmetric, Skew } symmetry;
  if (banner[4] == "general") {
    symmetry = Symmetry::General;
  } else if (banner[4] == "symmetric") {
    symmetry = Symmetry::Symmetric;
  } else if (banner[4] == "skew-symmetric") {
    symmetry = Symmetry::Skew;
  } else if (banner[4] == "hermitian") {
    throw Error(Info::NotImplemented, "MatrixMarket hermitian matrices are not supported");
  } else {
    bad_line(1, "unknown symmetry '" + banner[4] + "'");
  }
  if (symmetry == Symmetry::Skew && m.field == MtxMatrix::Field::Pattern) bad_line(1, "a pattern matrix cannot be skew-symmetric");

  // Size line (after comments and blank lines).
  std::vector<std::string> w;
  do {
    if (!reader.next(line)) bad_line(reader.number() + 1, "missing size line");
    w = words(line);
  } while (w.empty() || w[0][0] == '%');
  if (w.size() != (coordinate ? 3u : 2u)) bad_line(reader.number(), coordinate ? "expected 'nrows ncols nvals'" : "expected 'nrows ncols'");
  m.nrows = parse_index(w[0], reader.number());
  m.ncols = parse_index(w[1], reader.number());
  if (m.nrows > max_dimension || m.ncols > max_dimension) bad_line(reader.number(), "dimension too large");
  if (symmetry != Symmetry::General && m.nrows != m.ncols) bad_line(reader.number(), "a symmetric matrix must be square");
  std::uint64_t declared;
  if (coordinate) {
    declared = parse_index(w[2], reader.number());
  } else {
    if (m.ncols != 0 && m.nrows > max_entries / m.ncols) bad_line(reader.number(), "too many entries");
    declared = m.nrows * m.ncols;
    if (symmetry != Symmetry::General) declared = m.nrows * (m.nrows + 1) / 2 - (symmetry == Symmetry::Skew ? m.nrows : 0);
  }
  if (declared > max_entries) bad_line(reader.number(), "too many entries");
  const std::size_t reserve = static_cast<std::size_t>(std::min<std::uint64_t>(declared, size / 2 + 1));
  m.rows.reserve(reserve);
  m.cols.reserve(reserve);

  const auto add_entry = [&](std::uint64_t i, std::uint64_t j, double rv, std::int64_t iv) {
    m.rows.push_back(i);
    m.cols.push_back(j);
    if (m.field == MtxMatrix::Field::Real) m.real_values.push_back(rv);
    if (m.field == MtxMatrix::Field::Integer) m.integer_values.push_back(iv);
    if (symmetry != Symmetry::General && i != j) {
      m.rows.push_back(j);
      m.cols.push_back(i);
      const bool skew = symmetry == Symmetry::Skew;
      if (m.field == MtxMatrix::Field::Real) m.real_values.push_back(skew ? -rv : rv);
      if (m.field == MtxMatrix::Field::Integer) m.integer_values.push_back(skew ? -iv : iv);
    }
  };

  std::uint64_t seen = 0;
  // Next position of the array format (column-major; symmetric storage lists the lower triangle only,
  // skew-symmetric storage the strictly lower one).
  std::uint64_t array_i = symmetry == Symmetry::Skew ? 1 : 0, array_j = 0;
  while (seen < declared) {
    if (!reader.next(line)) bad_line(reader.number() + 1, "expected " + std::to_string(declared) + " entries, found " + std::to_string(seen));
    w = words(line);
    if (w.empty() || w[0][0] == '%') continue;
    const std::size_t ln = reader.number();
    std::uint64_t i, j;
    std::size_t value_word;
    if (coordinate) {
      const std::size_t want = m.field == MtxMatrix::Field::Pattern ? 2 : 3;
      if (w.size() != want) bad_line(ln, "expected " + std::to_string(want) + " fields");
      i = parse_index(w[0], ln);
      j = parse_index(w[1], ln);
      if (i == 0 || j == 0 || i > m.nrows || j > m.ncols) bad_line(ln, "index out of range");
      --i;
      --j;
      value_word = 2;
    } else {
      if (w.size() != 1) bad_line(ln, "expected 1 field");
      i = array_i;
      j = array_j;
      const std::uint64_t first_row = symmetry == Symmetry::General ? 0 : (symmetry == Symmetry::Skew ? array_j + 2 : array_j + 1);
      if (++array_i >= m.nrows) {
        ++array_j;
        array_i = symmetry == Symmetry::General ? 0 : first_row;
      }
      value_word = 0;
    }
    if (symmetry == Symmetry::Skew && i == j) bad_line(ln, "a skew-symmetric matrix has no diagonal entries");
    if (symmetry != Symmetry::General && coordinate && i < j) bad_line(ln, "a symmetric matrix lists its lower triangle only");
    double rv = 0;
    std::int64_t iv = 0;
    if (m.field == MtxMatrix::Field::Real) rv = parse_real(w[value_word], ln);
    if (m.field == MtxMatrix::Field::Integer) {
      iv = parse_integer(w[value_word], ln);
      if (symmetry == Symmetry::Skew && iv == std::numeric_limits<std::int64_t>::min()) bad_line(ln, "value cannot be negated");
    }
    add_entry(i, j, rv, iv);
    ++seen;
  }
  return m;
}

}  // namespace snk::capi
