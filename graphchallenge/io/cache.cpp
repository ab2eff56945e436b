// The binary data-set cache (format in cache.hpp) and the official-data loader that sits on it. The reader
// loads the whole file, checks the header and the payload's CRC-32 before looking inside, then decodes with a
// cursor that checks every length against the bytes left before allocating, and finally checks each matrix's
// CSR invariants, so no corrupt file can make it allocate absurdly, read out of bounds or hand an engine an
// inconsistent matrix.
#include "io/cache.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

#include "io/readers.hpp"

namespace snk::gc {

namespace {

constexpr char kMagic[8] = {'S', 'N', 'K', 'G', 'C', 'D', 'S', '\x01'};
constexpr uint32_t kHeaderSize = 40;

bool host_is_little_endian() {
  const uint32_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

struct FileCloser {
  void operator()(std::FILE* f) const { if (f) std::fclose(f); }
};

// ---- writing -------------------------------------------------------------------------------------------------

class PayloadWriter {
 public:
  PayloadWriter(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}
  void bytes(const void* p, size_t n) {
    if (n == 0) return;
    if (std::fwrite(p, 1, n, f_) != n) throw CacheError(path_, "write failed: " + std::string(std::strerror(errno)));
    const auto* b = static_cast<const unsigned char*>(p);
    size_t done = 0;
    while (done < n) {  // crc32 takes a uInt length
      uInt chunk = static_cast<uInt>(std::min<size_t>(n - done, 1u << 30));
      crc_ = crc32(crc_, b + done, chunk);
      done += chunk;
    }
    size_ += n;
  }
  template <class T>
  void pod(T v) { bytes(&v, sizeof v); }
  template <class T>
  void array(const std::vector<T>& v) { bytes(v.data(), v.size() * sizeof(T)); }
  void matrix(const CsrMatrix& m) {
    pod<int64_t>(m.nrows);
    pod<int64_t>(m.ncols);
    pod<uint64_t>(static_cast<uint64_t>(m.nnz()));
    array(m.row_ptr);
    array(m.col);
    array(m.val);
  }
  uint64_t size() const { return size_; }
  uint32_t crc() const { return static_cast<uint32_t>(crc_); }

 private:
  std::FILE* f_;
  std::string path_;
  uLong crc_ = crc32(0L, Z_NULL, 0);
  uint64_t size_ = 0;
};

void write_header(std::FILE* f, uint64_t payload_size, uint32_t crc) {
  unsigned char h[kHeaderSize] = {};
  std::memcpy(h, kMagic, 8);
  uint32_t version = kCacheVersion, hsize = kHeaderSize, zero = 0;
  uint64_t complement = ~payload_size;
  std::memcpy(h + 8, &version, 4);
  std::memcpy(h + 12, &hsize, 4);
  std::memcpy(h + 16, &payload_size, 8);
  std::memcpy(h + 24, &crc, 4);
  std::memcpy(h + 28, &zero, 4);
  std::memcpy(h + 32, &complement, 8);
  std::fwrite(h, 1, kHeaderSize, f);
}

// ---- reading -------------------------------------------------------------------------------------------------

class PayloadReader {
 public:
  PayloadReader(const unsigned char* p, size_t n, const std::string& path) : p_(p), n_(n), path_(path) {}
  template <class T>
  T pod() {
    need(sizeof(T), "value");
    T v;
    std::memcpy(&v, p_ + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  template <class T>
  std::vector<T> array(uint64_t count, const char* what) {
    if (count > (n_ - at_) / sizeof(T)) bad(std::string(what) + " runs past the end of the payload");
    std::vector<T> v(static_cast<size_t>(count));
    if (count) std::memcpy(v.data(), p_ + at_, static_cast<size_t>(count) * sizeof(T));
    at_ += static_cast<size_t>(count) * sizeof(T);
    return v;
  }
  CsrMatrix matrix(const std::string& name) {
    CsrMatrix m;
    m.nrows = pod<int64_t>();
    m.ncols = pod<int64_t>();
    uint64_t nnz = pod<uint64_t>();
    if (m.nrows < 0 || m.ncols < 0 || m.ncols > INT32_MAX) bad(name + ": bad dimensions");
    if (static_cast<uint64_t>(m.nrows) + 1 > (n_ - at_) / sizeof(int64_t)) bad(name + ": row pointers run past the end");
    m.row_ptr = array<int64_t>(static_cast<uint64_t>(m.nrows) + 1, "row pointers");
    m.col = array<int32_t>(nnz, "column indices");
    m.val = array<float>(nnz, "values");
    if (m.row_ptr[0] != 0 || m.row_ptr.back() != static_cast<int64_t>(nnz)) bad(name + ": row pointers do not span the entries");
    for (int64_t r = 0; r < m.nrows; ++r) {
      int64_t b = m.row_ptr[r], e = m.row_ptr[r + 1];
      if (e < b || e > static_cast<int64_t>(nnz)) bad(name + ": row pointers not monotone");
      for (int64_t k = b; k < e; ++k) {
        if (m.col[k] < 0 || m.col[k] >= m.ncols) bad(name + ": column index out of range");
        if (k > b && m.col[k] <= m.col[k - 1]) bad(name + ": row not sorted or has duplicates");
      }
    }
    return m;
  }
  bool at_end() const { return at_ == n_; }
  [[noreturn]] void bad(const std::string& why) const { throw CacheError(path_, "inconsistent cache: " + why); }

 private:
  void need(size_t k, const char* what) const {
    if (n_ - at_ < k) bad(std::string(what) + " runs past the end of the payload");
  }
  const unsigned char* p_;
  size_t n_;
  size_t at_ = 0;
  std::string path_;
};

std::string stat_signature(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return path + " missing";
  return path + " " + std::to_string(static_cast<long long>(st.st_size)) + " " +
         std::to_string(static_cast<long long>(st.st_mtim.tv_sec)) + "." +
         std::to_string(static_cast<long long>(st.st_mtim.tv_nsec));
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

void write_cache(const std::string& path, const Dataset& data, const std::string& key) {
  if (!host_is_little_endian()) throw CacheError(path, "the cache format is little-endian; this host is not");
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long long>(::getpid()));
  {
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(tmp.c_str(), "wb"));
    if (!f) throw CacheError(path, "cannot create " + tmp + ": " + std::strerror(errno));
    try {
      write_header(f.get(), 0, 0);  // placeholder, rewritten below
      PayloadWriter w(f.get(), path);
      w.pod<uint64_t>(key.size());
      w.bytes(key.data(), key.size());
      w.pod<int64_t>(data.network.neurons);
      w.pod<float>(data.network.bias);
      w.pod<uint32_t>(0);
      w.pod<uint64_t>(data.network.layers.size());
      for (const auto& layer : data.network.layers) w.matrix(layer);
      w.matrix(data.inputs);
      w.pod<uint64_t>(data.categories.size());
      w.array(data.categories);
      if (std::fseek(f.get(), 0, SEEK_SET) != 0) throw CacheError(path, "seek failed");
      write_header(f.get(), w.size(), w.crc());
      if (std::fflush(f.get()) != 0 || std::ferror(f.get()))
        throw CacheError(path, "write failed: " + std::string(std::strerror(errno)));
      if (std::fclose(f.release()) != 0) throw CacheError(path, "close failed: " + std::string(std::strerror(errno)));
    } catch (...) {
      f.reset();
      std::remove(tmp.c_str());
      throw;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw CacheError(path, "cannot move the new cache into place: " + std::string(std::strerror(errno)));
  }
}

Dataset read_cache(const std::string& path, std::string* key_out) {
  if (!host_is_little_endian()) throw CacheError(path, "the cache format is little-endian; this host is not");
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) throw CacheError(path, "cannot open: " + std::string(std::strerror(errno)));
  if (std::fseek(f.get(), 0, SEEK_END) != 0) throw CacheError(path, "cannot seek");
  long fsize = std::ftell(f.get());
  std::rewind(f.get());
  if (fsize < static_cast<long>(kHeaderSize)) throw CacheError(path, "truncated (shorter than the header)");
  unsigned char h[kHeaderSize];
  if (std::fread(h, 1, kHeaderSize, f.get()) != kHeaderSize) throw CacheError(path, "cannot read the header");
  if (std::memcmp(h, kMagic, 8) != 0) throw CacheError(path, "not a snack GraphChallenge cache (bad magic)");
  uint32_t version, hsize, crc, zero;
  uint64_t payload_size, complement;
  std::memcpy(&version, h + 8, 4);
  std::memcpy(&hsize, h + 12, 4);
  std::memcpy(&payload_size, h + 16, 8);
  std::memcpy(&crc, h + 24, 4);
  std::memcpy(&zero, h + 28, 4);
  std::memcpy(&complement, h + 32, 8);
  if (version != kCacheVersion)
    throw CacheError(path, "cache format version " + std::to_string(version) + ", this build reads " + std::to_string(kCacheVersion));
  if (hsize != kHeaderSize || zero != 0 || complement != ~payload_size) throw CacheError(path, "corrupt header");
  if (payload_size != static_cast<uint64_t>(fsize) - kHeaderSize)
    throw CacheError(path, "truncated or padded: header announces " + std::to_string(payload_size) + " payload bytes, file holds " +
                               std::to_string(static_cast<uint64_t>(fsize) - kHeaderSize));
  std::vector<unsigned char> payload(static_cast<size_t>(payload_size));
  if (payload_size && std::fread(payload.data(), 1, payload.size(), f.get()) != payload.size())
    throw CacheError(path, "read failed");
  f.reset();
  uLong c = crc32(0L, Z_NULL, 0);
  for (size_t done = 0; done < payload.size();) {
    uInt chunk = static_cast<uInt>(std::min<size_t>(payload.size() - done, 1u << 30));
    c = crc32(c, payload.data() + done, chunk);
    done += chunk;
  }
  if (static_cast<uint32_t>(c) != crc) throw CacheError(path, "checksum mismatch (corrupt cache)");

  PayloadReader r(payload.data(), payload.size(), path);
  Dataset d;
  uint64_t key_len = r.pod<uint64_t>();
  std::vector<char> key = r.array<char>(key_len, "key");
  if (key_out) key_out->assign(key.begin(), key.end());
  d.network.neurons = r.pod<int64_t>();
  d.network.bias = r.pod<float>();
  if (r.pod<uint32_t>() != 0) r.bad("reserved field not zero");
  uint64_t nlayers = r.pod<uint64_t>();
  if (nlayers > payload.size() / 24) r.bad("layer count larger than the payload can hold");
  d.network.layers.reserve(static_cast<size_t>(nlayers));
  for (uint64_t k = 0; k < nlayers; ++k) {
    d.network.layers.push_back(r.matrix("layer " + std::to_string(k + 1)));
    const auto& w = d.network.layers.back();
    if (w.nrows != d.network.neurons || w.ncols != d.network.neurons) r.bad("layer " + std::to_string(k + 1) + " is not neurons x neurons");
  }
  d.inputs = r.matrix("inputs");
  if (nlayers > 0 && d.inputs.ncols != d.network.neurons) r.bad("inputs do not have one column per neuron");
  uint64_t ncat = r.pod<uint64_t>();
  d.categories = r.array<int64_t>(ncat, "categories");
  for (size_t k = 0; k < d.categories.size(); ++k) {
    if (d.categories[k] < 0 || (k > 0 && d.categories[k] <= d.categories[k - 1])) r.bad("categories not sorted ids");
  }
  if (!r.at_end()) r.bad("trailing bytes after the categories");
  return d;
}

std::string source_key(const OfficialSources& s) {
  std::string key = "snack-gc official v1\nneurons " + std::to_string(s.neurons) + "\nlayers " + std::to_string(s.layers) +
                    "\ninput_rows " + std::to_string(s.input_rows) + "\n";
  for (int64_t k = 1; k <= s.layers; ++k) key += stat_signature(weight_layer_path(s.weights_dir, s.neurons, k)) + "\n";
  key += "inputs " + stat_signature(s.inputs) + "\n";
  key += "truth " + (s.truth.empty() ? std::string("none") : stat_signature(s.truth)) + "\n";
  return key;
}

LoadedDataset load_official(const OfficialSources& s, const std::string& cache_path) {
  LoadedDataset out;
  const std::string key = source_key(s);
  bool had_cache = false;
  if (!cache_path.empty() && exists(cache_path)) {
    had_cache = true;
    try {
      std::string stored;
      Dataset d = read_cache(cache_path, &stored);
      if (stored == key) {
        out.data = std::move(d);
        out.cache = CacheUse::loaded;
        return out;
      }
      out.note = "cache made from other or changed source files";
    } catch (const CacheError& e) {
      out.note = std::string("cache unusable: ") + e.what();
    }
  }
  out.data.network = read_weights(s.weights_dir, s.neurons, s.layers);
  out.data.inputs = read_inputs(s.inputs, s.neurons, s.input_rows);
  if (!s.truth.empty()) out.data.categories = read_categories(s.truth, out.data.inputs.nrows);
  if (cache_path.empty()) return out;
  try {
    write_cache(cache_path, out.data, key);
    out.cache = had_cache ? CacheUse::rewritten : CacheUse::written;
  } catch (const CacheError& e) {
    out.cache = CacheUse::none;
    out.note += (out.note.empty() ? "" : "; ") + std::string("could not write the cache: ") + e.what();
  }
  return out;
}

}  // namespace snk::gc
