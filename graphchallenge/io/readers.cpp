// Hand-written parsers for the GraphChallenge text formats (TSV triples, category lists, MatrixMarket
// coordinate), working on one in-memory buffer per file: the file is read in one go (or inflated through
// zlib when it carries the gzip magic), lines are found with memchr, integers and the common short decimal
// values are converted without the C library (values outside the exactly-representable fast path go through
// strtof, so every value is rounded correctly). Triples are collected as COO and turned into CSR by a
// counting sort on the row, which keeps each row in file order; rows that arrive unsorted are sorted after.
// Errors are reported with the file and the 1-based line; finding the line of a duplicate re-scans the text
// (only on that error path), so the fast path keeps no per-entry line numbers.
#include "io/readers.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>
#include <sys/stat.h>

namespace snk::gc {

float challenge_bias(int64_t neurons) {
  switch (neurons) {
    case 1024: return -0.30f;
    case 4096: return -0.35f;
    case 16384: return -0.40f;
    case 65536: return -0.45f;
    default: throw std::invalid_argument("challenge_bias: no official bias for " + std::to_string(neurons) + " neurons");
  }
}

static std::string format_error(const std::string& file, int64_t line, const std::string& reason) {
  if (line > 0) return file + ":" + std::to_string(line) + ": " + reason;
  return file + ": " + reason;
}

ReadError::ReadError(std::string file, int64_t line, const std::string& reason)
    : std::runtime_error(format_error(file, line, reason)), file_(std::move(file)), line_(line), reason_(reason) {}

namespace {

[[noreturn]] void fail(const std::string& path, int64_t line, const std::string& reason) {
  throw ReadError(path, line, reason);
}

int64_t count_lines_before(const std::string& s) {  // the 1-based line a reader would be in at the end of s
  return 1 + static_cast<int64_t>(std::count(s.begin(), s.end(), '\n'));
}

struct FileCloser {
  void operator()(std::FILE* f) const { if (f) std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

std::string read_plain(const std::string& path, std::FILE* f) {
  std::string data;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long size = std::ftell(f);
    if (size > 0) data.reserve(static_cast<size_t>(size));
    std::rewind(f);
  }
  char buf[1 << 16];
  for (;;) {
    size_t got = std::fread(buf, 1, sizeof buf, f);
    data.append(buf, got);
    if (got < sizeof buf) break;
  }
  if (std::ferror(f)) fail(path, 0, "read error: " + std::string(std::strerror(errno)));
  return data;
}

// Inflates a gzip file held in memory (concatenated members allowed, trailing zero padding ignored). Driving
// inflate directly, rather than gzread, keeps every byte decompressed before a failure, so a truncated stream
// is reported at the line where its data stopped.
std::string inflate_gzip(const std::string& path, const std::string& comp) {
  z_stream s{};
  if (inflateInit2(&s, 15 + 16) != Z_OK) fail(path, 0, "cannot initialize zlib");
  struct End { z_stream* s; ~End() { inflateEnd(s); } } end{&s};
  std::string out;
  out.resize(std::max<size_t>(comp.size() * 4, 1u << 16));
  size_t in_pos = 0, out_pos = 0;
  auto refill = [&] {
    const size_t n = std::min<size_t>(comp.size() - in_pos, 1u << 30);
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(comp.data() + in_pos));
    s.avail_in = static_cast<uInt>(n);
    in_pos += n;
  };
  refill();
  for (;;) {
    if (out_pos == out.size()) out.resize(out.size() * 2);
    const size_t room = std::min<size_t>(out.size() - out_pos, 1u << 30);
    s.next_out = reinterpret_cast<Bytef*>(&out[out_pos]);
    s.avail_out = static_cast<uInt>(room);
    const int ret = inflate(&s, Z_NO_FLUSH);
    out_pos += room - s.avail_out;
    if (ret == Z_STREAM_END) {
      // Another member follows, or only padding.
      size_t rest = s.avail_in + (comp.size() - in_pos);
      const char* next = reinterpret_cast<const char*>(s.next_in);
      if (rest == 0) break;
      if (s.avail_in >= 2 && static_cast<unsigned char>(next[0]) == 0x1f && static_cast<unsigned char>(next[1]) == 0x8b) {
        inflateReset(&s);
        continue;
      }
      const char* tail = comp.data() + (comp.size() - rest);
      if (std::all_of(tail, comp.data() + comp.size(), [](char ch) { return ch == 0; })) break;
      out.resize(out_pos);
      fail(path, count_lines_before(out), "trailing garbage after the gzip stream");
    }
    if (ret == Z_OK) {
      if (s.avail_in == 0 && in_pos < comp.size()) refill();
      continue;
    }
    if (ret == Z_BUF_ERROR) {
      if (s.avail_in == 0 && in_pos < comp.size()) { refill(); continue; }
      if (s.avail_in == 0) {
        out.resize(out_pos);
        fail(path, count_lines_before(out), "truncated gzip stream (unexpected end of file)");
      }
      continue;  // output space ran out: grown at the top of the loop
    }
    out.resize(out_pos);
    fail(path, count_lines_before(out), std::string("corrupt gzip stream (") + (s.msg ? s.msg : "zlib error") + ")");
  }
  out.resize(out_pos);
  return out;
}

// ---- tokenizing -------------------------------------------------------------------------------------------

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline const char* skip_blanks(const char* p, const char* e) {
  while (p < e && is_blank(*p)) ++p;
  return p;
}

inline const char* token_end(const char* p, const char* e) {
  while (p < e && !is_blank(*p)) ++p;
  return p;
}

// A non-negative decimal integer occupying all of [p, e). False when malformed or above 2^62.
inline bool parse_uint(const char* p, const char* e, int64_t& out) {
  if (p == e) return false;
  while (p < e - 1 && *p == '0') ++p;  // leading zeros do not count towards the length limit
  if (e - p > 18) return false;
  int64_t v = 0;
  for (; p < e; ++p) {
    unsigned d = static_cast<unsigned>(*p - '0');
    if (d > 9) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

const float kPow10f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

// A decimal value occupying all of [p, e). Fast path: up to 2^24 as the integer of significant digits and a
// decimal exponent in [-10, 10], where both operands are exact floats and one IEEE multiply or divide rounds
// correctly. Anything else goes to strtof. False when malformed; non-finite values are reported by the caller.
inline bool parse_float(const char* p, const char* e, float& out) {
  const char* s = p;
  bool neg = false;
  if (s < e && (*s == '-' || *s == '+')) { neg = *s == '-'; ++s; }
  uint64_t mant = 0;
  int digits = 0, frac_digits = 0;
  bool any = false;
  while (s < e && static_cast<unsigned>(*s - '0') <= 9) {
    if (mant || *s != '0') { mant = mant * 10 + static_cast<unsigned>(*s - '0'); ++digits; }
    if (digits > 18) goto slow;
    ++s; any = true;
  }
  if (s < e && *s == '.') {
    ++s;
    while (s < e && static_cast<unsigned>(*s - '0') <= 9) {
      if (mant || *s != '0') { mant = mant * 10 + static_cast<unsigned>(*s - '0'); ++digits; }
      if (digits > 18) goto slow;
      ++frac_digits; ++s; any = true;
    }
  }
  if (!any) goto slow;
  {
    int64_t exp10 = 0;
    if (s < e && (*s == 'e' || *s == 'E')) {
      ++s;
      bool eneg = false;
      if (s < e && (*s == '-' || *s == '+')) { eneg = *s == '-'; ++s; }
      if (s == e) return false;
      int64_t ev = 0;
      if (!parse_uint(s, e, ev)) return false;
      if (ev > 100000) goto slow;
      exp10 = eneg ? -ev : ev;
      s = e;
    }
    if (s != e) goto slow;
    exp10 -= frac_digits;
    if (mant == 0) { out = neg ? -0.0f : 0.0f; return true; }
    if (mant <= (uint64_t{1} << 24) && exp10 >= -10 && exp10 <= 10) {
      float f = static_cast<float>(mant);
      f = exp10 >= 0 ? f * kPow10f[exp10] : f / kPow10f[-exp10];
      out = neg ? -f : f;
      return true;
    }
  }
slow: {
  char buf[128];
  size_t n = static_cast<size_t>(e - p);
  if (n == 0 || n >= sizeof buf) return false;
  std::memcpy(buf, p, n);
  buf[n] = '\0';
  char* end = nullptr;
  errno = 0;
  float f = std::strtof(buf, &end);
  if (end != buf + n) return false;
  out = f;  // an overflow gives inf, rejected by the caller as non-finite
  return true;
}
}

// Splits [p, e) into at most `max` whitespace-separated tokens. Returns the count (max + 1 when there were more).
inline int split_tokens(const char* p, const char* e, const char** tb, const char** te, int max) {
  int n = 0;
  for (;;) {
    p = skip_blanks(p, e);
    if (p == e) return n;
    if (n == max) return max + 1;
    tb[n] = p;
    p = token_end(p, e);
    te[n] = p;
    ++n;
  }
}

// Calls fn(line_begin, line_end, line_number) for every line of [p, e) starting at line number first_line;
// fn returns false to stop. Returns the number of the line after the last one seen.
template <class Fn>
int64_t for_each_line(const char* p, const char* e, int64_t first_line, Fn&& fn) {
  int64_t line = first_line;
  while (p < e) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(e - p)));
    const char* le = nl ? nl : e;
    if (!fn(p, le, line)) return line;
    ++line;
    p = nl ? nl + 1 : e;
  }
  return line;
}

// ---- triples -----------------------------------------------------------------------------------------------

struct TripleFormat {
  int64_t nrows;      // <= 0: no upper bound on rows (inferred)
  int64_t ncols;
  bool has_value;     // false: MatrixMarket pattern, every value is 1
  bool integer_value; // MatrixMarket integer field
};

// Parses one triple line; returns false for a blank line. Throws on anything malformed.
inline bool parse_triple(const std::string& path, const char* p, const char* e, int64_t line, const TripleFormat& f,
                         int64_t& r, int64_t& c, float& v) {
  const char* tb[4];
  const char* te[4];
  const int want = f.has_value ? 3 : 2;
  int n = split_tokens(p, e, tb, te, want);
  if (n == 0) return false;
  if (n != want) {
    fail(path, line, n > want ? "malformed line: more than " + std::to_string(want) + " fields"
                              : "malformed line: expected " + std::to_string(want) + " fields (row, column" +
                                    (f.has_value ? ", value" : "") + "), found " + std::to_string(n));
  }
  if (!parse_uint(tb[0], te[0], r)) fail(path, line, "malformed row index '" + std::string(tb[0], te[0]) + "'");
  if (!parse_uint(tb[1], te[1], c)) fail(path, line, "malformed column index '" + std::string(tb[1], te[1]) + "'");
  if (r == 0 || c == 0) fail(path, line, "index 0 (indices are 1-based)");
  if (f.nrows > 0 && r > f.nrows)
    fail(path, line, "row index " + std::to_string(r) + " out of range [1, " + std::to_string(f.nrows) + "]");
  if (c > f.ncols)
    fail(path, line, "column index " + std::to_string(c) + " out of range [1, " + std::to_string(f.ncols) + "]");
  if (f.has_value) {
    if (f.integer_value) {
      const char* s = tb[2];
      bool neg = s < te[2] && *s == '-';
      if (s < te[2] && (*s == '-' || *s == '+')) ++s;
      int64_t iv = 0;
      if (!parse_uint(s, te[2], iv)) fail(path, line, "malformed integer value '" + std::string(tb[2], te[2]) + "'");
      v = static_cast<float>(neg ? -iv : iv);
    } else {
      if (!parse_float(tb[2], te[2], v)) fail(path, line, "malformed value '" + std::string(tb[2], te[2]) + "'");
      if (!std::isfinite(v)) fail(path, line, "non-finite value '" + std::string(tb[2], te[2]) + "'");
    }
  } else {
    v = 1.0f;
  }
  return true;
}

struct Coo {
  std::vector<int32_t> row, col;  // 0-based
  std::vector<float> val;
  int64_t max_row = 0;            // 1-based largest row seen
};

// Parses all triple lines of [p, e) (line numbers from first_line). When expected >= 0, exactly that many
// entries must be present (MatrixMarket); the result's end line is returned through end_line.
Coo parse_triples(const std::string& path, const char* p, const char* e, int64_t first_line, const TripleFormat& f,
                  int64_t expected) {
  if (f.ncols > std::numeric_limits<int32_t>::max() || f.nrows > std::numeric_limits<int32_t>::max())
    fail(path, 0, "dimensions above 2^31 - 1 are not supported");
  Coo coo;
  size_t guess = expected >= 0 ? static_cast<size_t>(expected) : static_cast<size_t>((e - p) / 16 + 16);
  coo.row.reserve(guess);
  coo.col.reserve(guess);
  coo.val.reserve(guess);
  int64_t count = 0;
  int64_t end_line = for_each_line(p, e, first_line, [&](const char* lb, const char* le, int64_t line) {
    int64_t r, c;
    float v;
    if (!parse_triple(path, lb, le, line, f, r, c, v)) return true;
    if (expected >= 0 && count == expected)
      fail(path, line, "more entries than the " + std::to_string(expected) + " the size line announces");
    if (r > std::numeric_limits<int32_t>::max())
      fail(path, line, "row index " + std::to_string(r) + " above 2^31 - 1");
    coo.row.push_back(static_cast<int32_t>(r - 1));
    coo.col.push_back(static_cast<int32_t>(c - 1));
    coo.val.push_back(v);
    if (r > coo.max_row) coo.max_row = r;
    ++count;
    return true;
  });
  if (expected >= 0 && count < expected)
    fail(path, end_line, "file ends after " + std::to_string(count) + " of the " + std::to_string(expected) +
                             " entries the size line announces (truncated?)");
  return coo;
}

// The line of the second occurrence of (r, c) (0-based) in the text.
int64_t find_duplicate_line(const std::string& path, const char* p, const char* e, int64_t first_line,
                            const TripleFormat& f, int64_t r0, int64_t c0) {
  int seen = 0;
  int64_t found = 0;
  for_each_line(p, e, first_line, [&](const char* lb, const char* le, int64_t line) {
    int64_t r, c;
    float v;
    if (!parse_triple(path, lb, le, line, f, r, c, v)) return true;
    if (r - 1 == r0 && c - 1 == c0 && ++seen == 2) { found = line; return false; }
    return true;
  });
  return found;
}

// COO -> CSR (rows sorted by column). On a duplicate, calls on_duplicate(row, col) which must throw.
template <class OnDup>
CsrMatrix coo_to_csr(Coo&& coo, int64_t nrows, int64_t ncols, OnDup&& on_duplicate) {
  CsrMatrix m;
  m.nrows = nrows;
  m.ncols = ncols;
  const size_t nnz = coo.row.size();
  m.row_ptr.assign(static_cast<size_t>(nrows) + 1, 0);
  for (int32_t r : coo.row) ++m.row_ptr[static_cast<size_t>(r) + 1];
  for (int64_t i = 0; i < nrows; ++i) m.row_ptr[i + 1] += m.row_ptr[i];
  m.col.resize(nnz);
  m.val.resize(nnz);
  {
    std::vector<int64_t> next(m.row_ptr.begin(), m.row_ptr.end() - 1);
    for (size_t k = 0; k < nnz; ++k) {
      int64_t pos = next[coo.row[k]]++;
      m.col[pos] = coo.col[k];
      m.val[pos] = coo.val[k];
    }
  }
  coo = Coo{};
  std::vector<std::pair<int32_t, float>> tmp;
  for (int64_t r = 0; r < nrows; ++r) {
    const int64_t b = m.row_ptr[r], e = m.row_ptr[r + 1];
    bool sorted = true;
    for (int64_t k = b + 1; k < e; ++k) {
      if (m.col[k] <= m.col[k - 1]) { sorted = false; break; }
    }
    if (sorted) continue;
    tmp.clear();
    for (int64_t k = b; k < e; ++k) tmp.emplace_back(m.col[k], m.val[k]);
    std::stable_sort(tmp.begin(), tmp.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (int64_t k = b; k < e; ++k) {
      m.col[k] = tmp[k - b].first;
      m.val[k] = tmp[k - b].second;
      if (k > b && m.col[k] == m.col[k - 1]) on_duplicate(r, m.col[k]);
    }
  }
  return m;
}

CsrMatrix triples_to_csr(const std::string& path, const std::string& text, size_t offset, int64_t first_line,
                         TripleFormat f, int64_t expected) {
  const char* p = text.data() + offset;
  const char* e = text.data() + text.size();
  Coo coo = parse_triples(path, p, e, first_line, f, expected);
  int64_t nrows = f.nrows > 0 ? f.nrows : coo.max_row;
  return coo_to_csr(std::move(coo), nrows, f.ncols, [&](int64_t r, int64_t c) {
    int64_t line = find_duplicate_line(path, p, e, first_line, f, r, c);
    fail(path, line, "duplicate entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) + ")");
  });
}

bool starts_with_mm(const std::string& text) { return text.compare(0, 14, "%%MatrixMarket") == 0; }

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Parses a MatrixMarket header; returns the format, sizes and where the entries start.
struct MmHeader {
  TripleFormat format{};
  int64_t nrows = 0, ncols = 0, nnz = 0;
  size_t data_offset = 0;
  int64_t data_line = 0;
};

MmHeader parse_mm_header(const std::string& path, const std::string& text) {
  MmHeader h;
  const char* base = text.data();
  const char* e = base + text.size();
  bool got_banner = false, got_size = false;
  for_each_line(base, e, 1, [&](const char* lb, const char* le, int64_t line) {
    if (!got_banner) {
      const char* tb[6];
      const char* te[6];
      int n = split_tokens(lb, le, tb, te, 5);
      if (n != 5 || std::string(tb[0], te[0]) != "%%MatrixMarket")
        fail(path, line, "not a MatrixMarket banner (expected '%%MatrixMarket matrix coordinate <field> general')");
      std::string object = lower(std::string(tb[1], te[1])), fmt = lower(std::string(tb[2], te[2]));
      std::string field = lower(std::string(tb[3], te[3])), sym = lower(std::string(tb[4], te[4]));
      if (object != "matrix") fail(path, line, "unsupported MatrixMarket object '" + object + "'");
      if (fmt != "coordinate") fail(path, line, "unsupported MatrixMarket format '" + fmt + "' (only coordinate)");
      if (field == "real" || field == "double") { h.format.has_value = true; }
      else if (field == "integer") { h.format.has_value = true; h.format.integer_value = true; }
      else if (field == "pattern") { h.format.has_value = false; }
      else fail(path, line, "unsupported MatrixMarket field '" + field + "' (real, integer or pattern)");
      if (sym != "general") fail(path, line, "unsupported MatrixMarket symmetry '" + sym + "' (only general)");
      got_banner = true;
      return true;
    }
    const char* s = skip_blanks(lb, le);
    if (s == le || *s == '%') return true;  // comment or blank before the size line
    const char* tb[4];
    const char* te[4];
    int n = split_tokens(lb, le, tb, te, 3);
    if (n != 3 || !parse_uint(tb[0], te[0], h.nrows) || !parse_uint(tb[1], te[1], h.ncols) ||
        !parse_uint(tb[2], te[2], h.nnz))
      fail(path, line, "malformed MatrixMarket size line (expected 'rows columns entries')");
    got_size = true;
    h.data_line = line + 1;
    h.data_offset = static_cast<size_t>((le < e ? le + 1 : e) - base);
    return false;
  });
  if (!got_banner) fail(path, 1, "empty file (no MatrixMarket banner)");
  if (!got_size) fail(path, count_lines_before(text), "file ends before the MatrixMarket size line");
  h.format.nrows = h.nrows;
  h.format.ncols = h.ncols;
  if (h.nrows == 0 && h.nnz > 0) fail(path, h.data_line - 1, "entries announced for a matrix without rows");
  return h;
}

CsrMatrix mm_to_csr(const std::string& path, const std::string& text) {
  MmHeader h = parse_mm_header(path, text);
  if (h.nrows > std::numeric_limits<int32_t>::max() || h.ncols > std::numeric_limits<int32_t>::max())
    fail(path, h.data_line - 1, "dimensions above 2^31 - 1 are not supported");
  return triples_to_csr(path, text, h.data_offset, h.data_line, h.format, h.nnz);
}

std::vector<int64_t> finish_categories(const std::string& path, std::vector<std::pair<int64_t, int64_t>>&& ids) {
  // ids: (0-based id, line). Sort by id; a repeated id names its later line.
  std::stable_sort(ids.begin(), ids.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int64_t> out;
  out.reserve(ids.size());
  for (size_t k = 0; k < ids.size(); ++k) {
    if (k > 0 && ids[k].first == ids[k - 1].first)
      fail(path, std::max(ids[k].second, ids[k - 1].second), "repeated category " + std::to_string(ids[k].first + 1));
    out.push_back(ids[k].first);
  }
  return out;
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

// ---- public API ---------------------------------------------------------------------------------------------

std::string read_file_content(const std::string& path) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(path, 0, "cannot open: " + std::string(std::strerror(errno)));
  unsigned char magic[2] = {0, 0};
  size_t got = std::fread(magic, 1, 2, f.get());
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) return inflate_gzip(path, read_plain(path, f.get()));
  return read_plain(path, f.get());
}

void write_file_content(const std::string& path, const std::string& content, bool gzip) {
  if (gzip) {
    gzFile gz = gzopen(path.c_str(), "wb6");
    if (!gz) fail(path, 0, "cannot create gzip file");
    size_t done = 0;
    while (done < content.size()) {
      unsigned n = static_cast<unsigned>(std::min<size_t>(content.size() - done, 1u << 24));
      if (gzwrite(gz, content.data() + done, n) != static_cast<int>(n)) {
        gzclose(gz);
        fail(path, 0, "gzip write failed");
      }
      done += n;
    }
    if (gzclose(gz) != Z_OK) fail(path, 0, "gzip close failed");
    return;
  }
  FilePtr f(std::fopen(path.c_str(), "wb"));
  if (!f) fail(path, 0, "cannot create: " + std::string(std::strerror(errno)));
  if (std::fwrite(content.data(), 1, content.size(), f.get()) != content.size())
    fail(path, 0, "write failed: " + std::string(std::strerror(errno)));
  if (std::fclose(f.release()) != 0) fail(path, 0, "close failed: " + std::string(std::strerror(errno)));
}

CsrMatrix read_tsv_matrix(const std::string& path, int64_t nrows, int64_t ncols) {
  if (ncols <= 0) throw std::invalid_argument("read_tsv_matrix: ncols must be positive");
  std::string text = read_file_content(path);
  TripleFormat f{nrows, ncols, true, false};
  return triples_to_csr(path, text, 0, 1, f, -1);
}

CsrMatrix read_weight_layer(const std::string& path, int64_t neurons) {
  return read_tsv_matrix(path, neurons, neurons);
}

std::string weight_layer_path(const std::string& dir, int64_t neurons, int64_t layer) {
  std::string base = dir + "/n" + std::to_string(neurons) + "-l" + std::to_string(layer) + ".tsv";
  if (!file_exists(base) && file_exists(base + ".gz")) return base + ".gz";
  return base;
}

Network read_weights(const std::string& dir, int64_t neurons, int64_t layers) {
  Network net;
  net.neurons = neurons;
  try {
    net.bias = challenge_bias(neurons);
  } catch (const std::invalid_argument&) {
    net.bias = 0.0f;
  }
  net.layers.reserve(static_cast<size_t>(layers));
  for (int64_t k = 1; k <= layers; ++k) net.layers.push_back(read_weight_layer(weight_layer_path(dir, neurons, k), neurons));
  return net;
}

CsrMatrix read_inputs(const std::string& path, int64_t neurons, int64_t images) {
  std::string text = read_file_content(path);
  if (starts_with_mm(text)) {
    CsrMatrix m = mm_to_csr(path, text);
    if (m.ncols != neurons)
      fail(path, 0, "input images have " + std::to_string(m.ncols) + " columns, expected " + std::to_string(neurons));
    return m;
  }
  TripleFormat f{images, neurons, true, false};
  return triples_to_csr(path, text, 0, 1, f, -1);
}

std::vector<int64_t> read_categories(const std::string& path, int64_t max_id) {
  std::string text = read_file_content(path);
  std::vector<std::pair<int64_t, int64_t>> ids;
  if (starts_with_mm(text)) {
    MmHeader h = parse_mm_header(path, text);
    if (h.ncols != 1 && h.nrows != 1)
      fail(path, h.data_line - 1, "categories must be an n x 1 or 1 x n MatrixMarket matrix");
    const bool column = h.ncols == 1;
    const char* p = text.data() + h.data_offset;
    const char* e = text.data() + text.size();
    int64_t count = 0;
    int64_t end_line = for_each_line(p, e, h.data_line, [&](const char* lb, const char* le, int64_t line) {
      int64_t r, c;
      float v;
      if (!parse_triple(path, lb, le, line, h.format, r, c, v)) return true;
      if (count == h.nnz) fail(path, line, "more entries than the " + std::to_string(h.nnz) + " the size line announces");
      ++count;
      int64_t id = column ? r : c;
      if (max_id > 0 && id > max_id) fail(path, line, "category " + std::to_string(id) + " out of range [1, " + std::to_string(max_id) + "]");
      if (v != 0.0f) ids.emplace_back(id - 1, line);
      return true;
    });
    if (count < h.nnz)
      fail(path, end_line, "file ends after " + std::to_string(count) + " of the " + std::to_string(h.nnz) +
                               " entries the size line announces (truncated?)");
    return finish_categories(path, std::move(ids));
  }
  for_each_line(text.data(), text.data() + text.size(), 1, [&](const char* lb, const char* le, int64_t line) {
    const char* tb[2];
    const char* te[2];
    int n = split_tokens(lb, le, tb, te, 1);
    if (n == 0) return true;
    if (n > 1) fail(path, line, "malformed line: expected one category id");
    int64_t id = 0;
    if (!parse_uint(tb[0], te[0], id)) fail(path, line, "malformed category id '" + std::string(tb[0], te[0]) + "'");
    if (id == 0) fail(path, line, "category 0 (ids are 1-based)");
    if (max_id > 0 && id > max_id) fail(path, line, "category " + std::to_string(id) + " out of range [1, " + std::to_string(max_id) + "]");
    ids.emplace_back(id - 1, line);
    return true;
  });
  return finish_categories(path, std::move(ids));
}

CsrMatrix read_matrix_market(const std::string& path) {
  std::string text = read_file_content(path);
  if (!starts_with_mm(text)) fail(path, 1, "not a MatrixMarket file (no '%%MatrixMarket' banner)");
  return mm_to_csr(path, text);
}

namespace {
void append_value(std::string& out, float v) {
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}
void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}
}  // namespace

void write_tsv_matrix(const std::string& path, const CsrMatrix& m, bool gzip) {
  std::string out;
  out.reserve(static_cast<size_t>(m.nnz()) * 20);
  for (int64_t r = 0; r < m.nrows; ++r) {
    for (int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
      append_int(out, r + 1);
      out += '\t';
      append_int(out, int64_t{m.col[k]} + 1);
      out += '\t';
      append_value(out, m.val[k]);
      out += '\n';
    }
  }
  write_file_content(path, out, gzip);
}

void write_categories(const std::string& path, const std::vector<int64_t>& categories, bool gzip) {
  std::string out;
  for (int64_t c : categories) {
    append_int(out, c + 1);
    out += '\n';
  }
  write_file_content(path, out, gzip);
}

void write_matrix_market(const std::string& path, const CsrMatrix& m, bool pattern) {
  std::string out = std::string("%%MatrixMarket matrix coordinate ") + (pattern ? "pattern" : "real") + " general\n";
  append_int(out, m.nrows); out += ' ';
  append_int(out, m.ncols); out += ' ';
  append_int(out, m.nnz()); out += '\n';
  for (int64_t r = 0; r < m.nrows; ++r) {
    for (int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
      append_int(out, r + 1); out += ' ';
      append_int(out, int64_t{m.col[k]} + 1);
      if (!pattern) { out += ' '; append_value(out, m.val[k]); }
      out += '\n';
    }
  }
  write_file_content(path, out, false);
}

}  // namespace snk::gc
