// layers/checkpoint.cpp: writing and reading checkpoints (checkpoint.hpp): the byte layout, the trailing hash, and
// the atomic replace (write, fsync, rename).
#include "checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace snk::layers {
namespace {

constexpr char kMagic[8] = {'S', 'N', 'K', 'C', 'K', 'P', 'T', '1'};
constexpr std::uint32_t kVersion = 1;

// The format's hash (checkpoint.hpp): FNV-1a's step from the format's own basis, fixed by version 1's files.
std::uint64_t checkpoint_hash(const unsigned char* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t k = 0; k < n; ++k) h = (h ^ p[k]) * 1099511628211ull;
  return h;
}

struct Writer {
  std::vector<unsigned char> bytes;
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
  template <class T>
  void put(T v) { raw(&v, sizeof v); }
  void str(const std::string& s) {
    put<std::uint64_t>(s.size());
    raw(s.data(), s.size());
  }
};

struct Reader {
  const std::vector<unsigned char>& bytes;
  std::size_t at = 0, end = 0;
  const std::string& path;
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(Info::InvalidObject, "checkpoint " + path + ": " + what);
  }
  void raw(void* p, std::size_t n) {
    if (n > end - at) fail("truncated (it ends inside its data)");
    std::memcpy(p, bytes.data() + at, n);
    at += n;
  }
  template <class T>
  T get() {
    T v;
    raw(&v, sizeof v);
    return v;
  }
  // A count of items of `item` bytes each that must fit in what is left.
  std::uint64_t count(std::size_t item) {
    const auto n = get<std::uint64_t>();
    if (item > 0 && n > (end - at) / item) fail("truncated (a length exceeds the rest of the file)");
    return n;
  }
  std::string str() {
    const std::uint64_t n = count(1);
    std::string s(n, '\0');
    raw(s.data(), n);
    return s;
  }
};

}  // namespace

const Matrix& Checkpoint::matrix(const std::string& name) const {
  for (const auto& [n, M] : matrices)
    if (n == name) return M;
  throw Error(Info::InvalidObject, "checkpoint: no matrix named " + name);
}

const std::vector<double>& Checkpoint::numbers(const std::string& name) const {
  for (const auto& [n, v] : series)
    if (n == name) return v;
  throw Error(Info::InvalidObject, "checkpoint: no series named " + name);
}

void save_checkpoint(const std::string& path, const Checkpoint& c) {
  Writer w;
  w.raw(kMagic, sizeof kMagic);
  w.put(kVersion);
  w.str(c.config);
  w.put<std::uint64_t>(c.epoch);
  w.put<std::uint64_t>(c.step);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(c.matrices.size()));
  for (const auto& [name, M] : c.matrices) {
    w.str(name);
    const Type* t = M.type();
    if (!t->builtin()) throw Error(Info::DomainMismatch, "save_checkpoint: " + name + " has a user-defined type");
    const Index n = M.nvals();
    std::vector<Index> I(n), J(n);
    std::vector<unsigned char> X(n * t->size);
    M.extract_tuples(I.data(), J.data(), X.data(), t);
    w.put<std::uint8_t>(static_cast<std::uint8_t>(t->code));
    w.put<std::uint64_t>(M.nrows());
    w.put<std::uint64_t>(M.ncols());
    w.put<std::uint64_t>(n);
    for (Index i : I) w.put<std::uint64_t>(i);
    for (Index j : J) w.put<std::uint64_t>(j);
    w.raw(X.data(), X.size());
  }
  w.put<std::uint32_t>(static_cast<std::uint32_t>(c.series.size()));
  for (const auto& [name, v] : c.series) {
    w.str(name);
    w.put<std::uint64_t>(v.size());
    w.raw(v.data(), v.size() * sizeof(double));
  }
  w.put(checkpoint_hash(w.bytes.data(), w.bytes.size()));

  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw Error(Info::InvalidValue, "save_checkpoint: cannot create " + tmp + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < w.bytes.size()) {
    const ssize_t k = ::write(fd, w.bytes.data() + done, w.bytes.size() - done);
    if (k <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error(Info::InvalidValue, "save_checkpoint: cannot write " + tmp + ": " + why);
    }
    done += static_cast<std::size_t>(k);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Error(Info::InvalidValue, "save_checkpoint: cannot replace " + path + ": " + std::strerror(errno));
  }
}

Checkpoint load_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Info::InvalidValue, "checkpoint " + path + ": cannot open it");
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader r{bytes, 0, bytes.size(), path};
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    r.fail("not a snack checkpoint (no SNKCKPT1 header)");
  if (bytes.size() < sizeof kMagic + 4 + 8) r.fail("truncated (shorter than a header and its hash)");
  r.end = bytes.size() - sizeof(std::uint64_t);
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + r.end, sizeof stored);
  r.at = sizeof kMagic;
  const auto version = r.get<std::uint32_t>();
  if (version != kVersion)
    r.fail("format version " + std::to_string(version) + ", this library reads " + std::to_string(kVersion));
  if (checkpoint_hash(bytes.data(), r.end) != stored) r.fail("damaged or truncated (its hash does not match its contents)");
  Checkpoint c;
  c.config = r.str();
  c.epoch = r.get<std::uint64_t>();
  c.step = r.get<std::uint64_t>();
  const auto n_matrices = r.get<std::uint32_t>();
  for (std::uint32_t m = 0; m < n_matrices; ++m) {
    std::string name = r.str();
    const auto code = r.get<std::uint8_t>();
    if (code >= kBuiltinTypeCount) r.fail(name + " has an unknown type code " + std::to_string(code));
    const Type* t = builtin_type(static_cast<TypeCode>(code));
    const auto nrows = r.get<std::uint64_t>(), ncols = r.get<std::uint64_t>();
    const std::uint64_t n = r.count(16 + t->size);
    std::vector<Index> I(n), J(n);
    for (auto& i : I) i = r.get<std::uint64_t>();
    for (auto& j : J) j = r.get<std::uint64_t>();
    std::vector<unsigned char> X(n * t->size);
    r.raw(X.data(), X.size());
    Matrix M(t, nrows, ncols);
    try {
      M.build(I.data(), J.data(), X.data(), t, n, nullptr);
    } catch (const Error& e) {
      r.fail(name + ": " + e.what());
    }
    c.matrices.emplace_back(std::move(name), std::move(M));
  }
  const auto n_series = r.get<std::uint32_t>();
  for (std::uint32_t s = 0; s < n_series; ++s) {
    std::string name = r.str();
    std::vector<double> v(r.count(sizeof(double)));
    r.raw(v.data(), v.size() * sizeof(double));
    c.series.emplace_back(std::move(name), std::move(v));
  }
  if (r.at != r.end) r.fail("has " + std::to_string(r.end - r.at) + " bytes after its data");
  return c;
}

}  // namespace snk::layers
