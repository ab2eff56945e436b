// src/capi/formats.hpp: the byte and text formats the C API reads and writes: snack's serialized-matrix
// blob (GrB_Matrix_serialize / deserialize) and MatrixMarket text (SNK_Matrix_read_mtx).
//
// The parsers here depend on nothing but the standard library and snk::Error, so that they can be tested
// and fuzzed on their own; they validate everything (sizes, overflow, index ranges, ordering) and throw
// snk::Error on bad input, never read outside the given bytes. Turning the parsed form into a matrix is
// the caller's job (serialize.cpp, mtx_reader.cpp).
//
// Blob layout, version 1, all integers little-endian:
//   0  char[8]  magic "SNKBLOB\0"
//   8  u32      format version (1)
//   12 u32      type code (snk::TypeCode: 0 BOOL ... 10 FP64, 11 UDT)
//   16 u64      type size in bytes
//   24 u64      nrows          32 u64 ncols          40 u64 nvals
//   48 u64      nh: number of non-empty rows
//   56 u64      length of the type's name (UDT; 0 for builtin types)
//   64          name bytes, then h[nh] (u64, increasing rows), p[nh + 1] (u64 offsets, p[0] = 0,
//               p[nh] = nvals), j[nvals] (u64 columns, increasing within a row), values (nvals * size)
//   end - 8     u64 checksum: FNV-1a 64 of every byte before it
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace snk::capi {

constexpr char kBlobMagic[8] = {'S', 'N', 'K', 'B', 'L', 'O', 'B', '\0'};
constexpr std::uint32_t kBlobVersion = 1;
constexpr std::size_t kBlobHeaderSize = 64;

std::uint64_t fnv1a64(const unsigned char* data, std::size_t n);

// A matrix in the blob's (hypersparse CSR) form. When parsed, `values` points into the blob.
struct BlobMatrix {
  std::uint32_t type_code = 0;
  std::uint64_t type_size = 0;
  std::string type_name;
  std::uint64_t nrows = 0, ncols = 0;
  std::vector<std::uint64_t> h, p, j;
  const unsigned char* values = nullptr;   // nvals * type_size bytes
  std::uint64_t nvals() const { return j.size(); }
};

// Exact size of the blob of m.
std::uint64_t blob_size(const BlobMatrix& m);
// Writes the blob of m into out (which holds blob_size(m) bytes).
void write_blob(const BlobMatrix& m, unsigned char* out);
// Parses and validates a blob; throws snk::Error(InvalidObject) for anything wrong (bad magic,
// unsupported version, truncated, checksum mismatch, inconsistent structure). max_dimension bounds
// nrows and ncols.
BlobMatrix parse_blob(const unsigned char* blob, std::size_t size, std::uint64_t max_dimension);

// A MatrixMarket matrix, coordinate or array, with symmetry already expanded. Values are held as double
// (field real), int64 (integer) or none (pattern: every entry is 1).
struct MtxMatrix {
  enum class Field { Real, Integer, Pattern } field = Field::Real;
  std::uint64_t nrows = 0, ncols = 0;
  std::vector<std::uint64_t> rows, cols;   // 0-based
  std::vector<double> real_values;
  std::vector<std::int64_t> integer_values;
};

// Parses MatrixMarket text of `size` bytes (not necessarily NUL-terminated). Throws snk::Error:
// InvalidValue with the line number for malformed text or out-of-range indices, NotImplemented for the
// complex field or the hermitian symmetry. max_entries bounds the entries declared by the size line.
MtxMatrix parse_mtx(const char* text, std::size_t size, std::uint64_t max_dimension, std::uint64_t max_entries);

}  // namespace snk::capi
