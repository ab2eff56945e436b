// A checksummed binary cache for a whole GraphChallenge data set (every weight layer, the bias, the inputs and
// the truth) in one file, so a run reloads in milliseconds what takes seconds to parse from text, and the
// loader that uses it: cache when present, valid and made from the same source files, else the text files
// (and the cache is rewritten). A corrupt or truncated cache is detected (size checks before every
// allocation, CRC-32 over the payload, structural checks on every matrix) and reported with CacheError; it
// never crashes the reader.
//
// File layout (little-endian; the writer refuses big-endian hosts):
//   bytes 0-7   magic "SNKGCDS\x01"
//   u32         format version (kCacheVersion)
//   u32         header size in bytes (40)
//   u64         payload size in bytes
//   u32         CRC-32 (zlib) of the payload
//   u32         zero
//   u64         payload size again, bitwise complemented (catches a corrupt size field)
//   payload:    u64 key length, key bytes (the caller's description of the sources)
//               i64 neurons, f32 bias, u32 zero, u64 layer count, each layer as a matrix,
//               the inputs as a matrix, u64 category count, i64 categories
//   matrix:     i64 nrows, i64 ncols, u64 nnz, i64 row_ptr[nrows + 1], i32 col[nnz], f32 val[nnz]
#pragma once

#include <cstdint>
#include <string>

#include "io/types.hpp"

namespace snk::gc {

inline constexpr uint32_t kCacheVersion = 1;

// Writes the data set to `path` (through a temporary file renamed into place, so a reader never sees half a
// cache). `key` is stored and returned by read_cache; the loader puts the source files' names, sizes and
// modification times there to notice stale caches. Throws CacheError on I/O failure.
void write_cache(const std::string& path, const Dataset& data, const std::string& key = "");

// Reads a cache written by write_cache. Throws CacheError when the file is missing, truncated, of another
// version, fails its checksum or holds an inconsistent matrix. key_out, when given, receives the stored key.
Dataset read_cache(const std::string& path, std::string* key_out = nullptr);

// Where the official files of one configuration are.
struct OfficialSources {
  std::string weights_dir;  // holds n{N}-l{k}.tsv[.gz]
  int64_t neurons = 1024;
  int64_t layers = 120;
  std::string inputs;       // sparse-images-{N}.tsv[.gz] or a MatrixMarket subset
  int64_t input_rows = 60000;  // rows of a TSV inputs file (<= 0: the largest row id); ignored for MatrixMarket
  std::string truth;        // neuron{N}-l{L}-categories.tsv[.gz] or .mtx; empty: no truth
};

enum class CacheUse {
  none,         // no cache path given: read the text files
  loaded,       // the cache was valid and made from these sources
  written,      // no cache yet: read the text files and wrote it
  rewritten,    // the cache was stale or unusable (see note): read the text files and rewrote it
};

struct LoadedDataset {
  Dataset data;
  CacheUse cache = CacheUse::none;
  std::string note;  // why the cache was rewritten, or why writing it failed; empty otherwise
};

// Loads the official data set, through the cache at `cache_path` when that is not empty. A cache write
// failure is not fatal (it is reported in note); text-file errors throw ReadError.
LoadedDataset load_official(const OfficialSources& sources, const std::string& cache_path);

// The key load_official stores: the configuration and each source file's path, size and modification time.
std::string source_key(const OfficialSources& sources);

}  // namespace snk::gc
