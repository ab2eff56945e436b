// Readers (and the matching writers) for the SpDNN GraphChallenge's official files: weight layers
// `n{N}-l{k}.tsv`, input images `sparse-images-{N}.tsv` (both `row<TAB>col<TAB>value`, 1-based), truth
// categories `neuron{N}-l{L}-categories.tsv` (one 1-based row id per line), and MatrixMarket coordinate files
// (the form the SuiteSparse collection ships the image subset and its truth in). Every reader accepts the
// file plain or gzip-compressed (detected by the gzip magic bytes, not the name) and parses by hand from one
// in-memory buffer, because the challenge has thousands of these files and iostreams are an order of
// magnitude too slow. Every problem throws ReadError naming the file and the 1-based line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/types.hpp"

namespace snk::gc {

// The whole content of a file, decompressed when it starts with the gzip magic (1f 8b). A gzip stream cut
// short or failing its CRC throws ReadError naming the line the data stopped in.
std::string read_file_content(const std::string& path);

// Writes text to a file, gzip-compressed when gzip is true. Throws ReadError on any I/O failure.
void write_file_content(const std::string& path, const std::string& content, bool gzip);

// A `row<TAB>col<TAB>value` triples file (any run of spaces/tabs separates fields; CRLF accepted; blank lines
// skipped; the last line may lack its newline). Indices are 1-based and must lie in [1, nrows] x [1, ncols];
// nrows <= 0 means "as many rows as the largest row index". Values must be finite. Duplicate entries are an
// error (naming the line of the second one). The result is CSR with sorted rows.
CsrMatrix read_tsv_matrix(const std::string& path, int64_t nrows, int64_t ncols);

// One official weight layer (neurons x neurons).
CsrMatrix read_weight_layer(const std::string& path, int64_t neurons);

// The path of layer k (1-based) in an official weights folder: `<dir>/n{N}-l{k}.tsv`, or `.tsv.gz` when only
// that exists.
std::string weight_layer_path(const std::string& dir, int64_t neurons, int64_t layer);

// Layers 1..layers of an official network from its folder, with the challenge bias for that size when the
// size is official (0 otherwise).
Network read_weights(const std::string& dir, int64_t neurons, int64_t layers);

// Input images: a TSV triples file (images x neurons; images <= 0 means "up to the largest row id", the
// official files have 60000) or a MatrixMarket file (dimensions from its header; must have `neurons`
// columns). The format is told from the content (a MatrixMarket file starts with "%%MatrixMarket").
CsrMatrix read_inputs(const std::string& path, int64_t neurons, int64_t images = 60000);

// Truth categories, returned 0-based and sorted: a TSV file with one 1-based row id per line, or a
// MatrixMarket n x 1 (or 1 x n) coordinate file whose stored entries mark the categories. Ids must be >= 1
// (and <= max_id when max_id > 0); a repeated id is an error.
std::vector<int64_t> read_categories(const std::string& path, int64_t max_id = 0);

// A MatrixMarket `coordinate` file of field real, integer or pattern (value 1) and symmetry general. Fewer
// entries than the size line announces is an error naming the line where the data ended.
CsrMatrix read_matrix_market(const std::string& path);

// Writers in the official formats (1-based triples, values in shortest round-trip form; categories one
// 1-based id per line), optionally gzip-compressed. For tests, tools and exporting generated networks.
void write_tsv_matrix(const std::string& path, const CsrMatrix& m, bool gzip = false);
void write_categories(const std::string& path, const std::vector<int64_t>& categories, bool gzip = false);
void write_matrix_market(const std::string& path, const CsrMatrix& m, bool pattern = false);

}  // namespace snk::gc
