// graphchallenge/engine/embedded.cpp: the embedded mode's code generator, its compile by NVRTC in a process of its own
// (snack-embedded-compile, engine/embedded_compiler.cpp) with a deadline, and the disk cache of the cubins
// (embedded.hpp says what each computes).
//
// The generated source, one statement per line: in namespace snk_embedded, helpers m<R>x<W> (R inputs into W sums:
// for each input in order, one fma per sum in order; the sums by reference) and e<W> (the epilogue of W sums:
// activation, store, alive flag); then one function t<i> per tile of the kernel (its sums, its helper calls in input
// order with the gather positions and weights as arguments, its epilogue); then the extern "C" kernel, whose switch on
// blockIdx.x calls t<blockIdx.x>. The shape is for NVRTC's sake: its front end slows down faster than linearly in the
// number of calls in the source (hence several multiply-adds per helper call), its optimizer in a function's size
// (hence a function of its own for a large tile). Whatever the shape, the arithmetic is one fma per weight in the
// table-driven kernel's order.
//
// Cache file: the magic "SNKEMB1\n", a second 64-bit hash of the key's material (little-endian), the cubin's size
// (64-bit, little-endian), the cubin. Its name is the first hash (FNV-1a) of the same material, 16 hex digits.
// Compiles of one kernel for one cache directory that overlap in time share one compiler process.
#include "engine/embedded.hpp"

#include <fcntl.h>
#include <nvrtc.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace snk::gc {
namespace {

// Part of every cache key, with the compiler's language option (kEmbeddedLanguageOption): a change to the generated
// code's form must change it.
constexpr const char* kFormat = "snack-embedded-2";
constexpr char kMagic[8] = {'S', 'N', 'K', 'E', 'M', 'B', '1', '\n'};
constexpr size_t kHeader = 24;   // magic, second hash, cubin size
constexpr const char* kNamespace = "snk_embedded";   // the generated helpers' namespace
// A tile of at least this many multiply-adds is a function of its own (__noinline__), smaller ones are inlined into the
// kernel: NVVM's optimizer takes time that grows faster than a function's size, while a call costs a small tile more
// than the compile time it saves.
constexpr int64_t kOutlineMultiplyAdds = 128;
// The multiply-adds a helper call does (its inputs times the tile's width, at least one input): the front end's time
// grows faster than the number of calls in the source, so each call does several.
constexpr int32_t kMultiplyAddsPerCall = 16;
constexpr int kCompileNice = 19;   // a compiler process's nice value once no caller waits (send_to_background)

// `d` as a hexadecimal floating literal without suffix ("0x1.99999ap-4", "-0x0p+0"): exact, and free of the locale.
std::string hex_literal(double d) {
  uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof bits);
  std::string s = (bits >> 63) ? "-" : "";
  const int e = static_cast<int>((bits >> 52) & 0x7ff);
  uint64_t m = bits & ((uint64_t{1} << 52) - 1);
  if (e == 0 && m == 0) return s + "0x0p+0";
  int exp = e - 1023;
  if (e == 0) {   // a subnormal double: normalise (no float is one, but keep the function whole)
    exp = -1022;
    while (!(m & (uint64_t{1} << 52))) {
      m <<= 1;
      --exp;
    }
    m &= (uint64_t{1} << 52) - 1;
  }
  s += "0x1";
  if (m != 0) {
    static const char* digits = "0123456789abcdef";
    std::string frac;
    for (int shift = 48; shift >= 0; shift -= 4) frac += digits[(m >> shift) & 0xf];
    while (frac.back() == '0') frac.pop_back();
    s += "." + frac;
  }
  s += exp < 0 ? "p-" : "p+";
  s += std::to_string(exp < 0 ? -exp : exp);
  return s;
}

bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

[[noreturn]] void bad(const std::string& why) { throw std::invalid_argument("embedded_source: " + why); }

// Every tile in `tile_ids` checked against the layer, the gather and `tiles`' own arrays.
void check_tiles(const TiledLayer& layer, const std::vector<int32_t>& gather, const LayerTiles& tiles,
                 const std::vector<int32_t>& tile_ids) {
  const int64_t n = tiles.tiles();
  if (tiles.width.size() != static_cast<size_t>(n) || tiles.pitch.size() != static_cast<size_t>(n) ||
      tiles.block_ptr.size() != static_cast<size_t>(n) + 1)
    bad("the tiles' arrays disagree in length");
  if (tile_ids.empty()) bad("no tiles");
  for (const int32_t t : tile_ids) {
    if (t < 0 || t >= n) bad("tile " + std::to_string(t) + " out of range (" + std::to_string(n) + " tiles)");
    const std::string at = "tile " + std::to_string(t) + ": ";
    const int64_t start = tiles.start[t], width = tiles.width[t], pitch = tiles.pitch[t];
    if (width < 0 || width > pitch || start < 0 || start + width > layer.ncols)
      bad(at + "outputs outside the layer's " + std::to_string(layer.ncols) + " columns");
    const int64_t b0 = tiles.block_ptr[t], b1 = tiles.block_ptr[t + 1];
    if (b0 < 0 || b1 < b0 || b1 > static_cast<int64_t>(tiles.blocks.size())) bad(at + "block range out of bounds");
    for (int64_t b = b0; b < b1; ++b) {
      const TileBlock& k = tiles.blocks[b];
      if (k.r0 < 0 || k.nr < 0 || int64_t{k.r0} + k.nr > layer.nrows)
        bad(at + "a block's rows outside the layer's " + std::to_string(layer.nrows) + " rows");
      if (int64_t{k.r0} + k.nr > static_cast<int64_t>(gather.size()))
        bad(at + "gather too short (" + std::to_string(gather.size()) + " positions)");
      for (int32_t a = 0; a < k.nr; ++a)
        if (gather[k.r0 + a] < 0) bad(at + "a negative gather position");
      if (k.nr > 0 && width > 0 &&
          (k.voff < 0 || k.voff + (int64_t{k.nr} - 1) * pitch + width > layer.nnz()))
        bad(at + "a block's weights outside the layer's values");
    }
  }
}

int64_t tile_inputs(const LayerTiles& tiles, int32_t t) {
  int64_t n = 0;
  for (int32_t b = tiles.block_ptr[t]; b < tiles.block_ptr[t + 1]; ++b) n += tiles.blocks[b].nr;
  return n;
}

// The inputs one multiply-add helper takes for a tile of `width` outputs: about kMultiplyAddsPerCall multiply-adds.
int32_t inputs_per_call(int32_t width) {
  return std::max<int32_t>(1, kMultiplyAddsPerCall / std::max<int32_t>(1, width));
}

// 64-bit FNV-1a.
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// A second hash, of another construction than FNV-1a (a multiply-xorshift per byte, then splitmix64's finaliser), so
// that a file matching the name's hash by accident does not match this one too.
uint64_t check_hash(const std::string& s) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
  for (const unsigned char c : s) {
    h = (h ^ c) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

std::string nvrtc_version() {
  static const std::string v = [] {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return std::string("unknown");
    return std::to_string(major) + "." + std::to_string(minor);
  }();
  return v;
}

// The key's material: each field prefixed with its length, so that no two field lists run together alike.
std::string key_material(const std::string& arch, const std::string& kernel_name, const std::string& source) {
  const std::string format = std::string(kFormat) + " " + kEmbeddedLanguageOption, version = nvrtc_version();
  std::string m;
  for (const std::string* f : {&format, &arch, &version, &kernel_name, &source}) {
    m += std::to_string(f->size());
    m += ':';
    m += *f;
  }
  return m;
}

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

uint64_t get_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// One compile: a snack-embedded-compile process (engine/embedded_compiler.cpp), and the detached thread that hands
// it the source, reads its answer and reaps it. Everything the thread reads is the job's own or the registry's (never
// destroyed), so it may outlive the call that started it, and the program's exit.
struct CompileJob {
  std::string source, kernel_name, arch;
  std::string cache_file;     // where the compiler writes the cubin; "": no cache
  uint64_t check = 0;
  std::string registry_key;   // "" for a compile with no cache, which is never shared

  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  pid_t pid = 0;              // the compiler process while it runs (0 once it has ended, before it is reaped)
  bool stopped = false;       // past its caller's deadline with no cache to keep its result: the process is killed
  EmbeddedStatus status = EmbeddedStatus::Failed;
  std::vector<char> cubin;
  std::string message;
};

// The compiles under way: those with a cache by key (a call for the same kernel and cache joins one), and how many job
// threads have not finished. Never destroyed, so that a job thread may use it during the program's exit.
struct Registry {
  std::mutex m;
  std::condition_variable idle;
  std::map<std::string, std::shared_ptr<CompileJob>> running;
  int live = 0;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

constexpr const char* kCompilerName = "snack-embedded-compile";

// The compiler program: $SNACK_EMBEDDED_COMPILER where set, else snack-embedded-compile beside the running program,
// else where this build made it (SNK_EMBEDDED_COMPILER_BUILT). "" where none of the last two is an executable file.
std::string compiler_path() {
  static const std::string path = [] {
    if (const char* v = std::getenv("SNACK_EMBEDDED_COMPILER"); v && *v) return std::string(v);
    std::vector<std::string> tries;
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) tries.push_back((self.parent_path() / kCompilerName).string());
#ifdef SNK_EMBEDDED_COMPILER_BUILT
    tries.push_back(SNK_EMBEDDED_COMPILER_BUILT);
#endif
    for (const std::string& t : tries)
      if (::access(t.c_str(), X_OK) == 0) return t;
    return std::string();
  }();
  return path;
}

// Puts the compiler process `pid` at the lowest scheduling priority: a compile left running may outlive its caller's
// wait by minutes, and must not take the cores from what the program goes on with (an inference's host thread
// launches every layer, and the GPU waits while it waits for a core), nor from the compiles a caller waits for.
// Lowering a priority needs no privilege; it is never raised again.
void send_to_background(pid_t pid) { (void)setpriority(PRIO_PROCESS, static_cast<id_t>(pid), kCompileNice); }

// Starts the compiler for `job`: its standard input and output pipes to this process (`to`: the source is written
// there; `from`: the answer is read there), its standard error /dev/null, no other descriptor inherited, no signal
// blocked. The process id, or 0 with why in `why`.
pid_t spawn_compiler(const CompileJob& job, int& to, int& from, std::string& why) {
  const std::string path = compiler_path();
  if (path.empty()) {
    why = std::string("cannot find ") + kCompilerName + " beside this program or where it was built; set "
          "SNACK_EMBEDDED_COMPILER to its path";
    return 0;
  }
  int in[2] = {-1, -1}, out[2] = {-1, -1};
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    why = std::string("cannot make a pipe: ") + std::strerror(errno);
    for (const int fd : {in[0], in[1], out[0], out[1]})
      if (fd >= 0) ::close(fd);
    return 0;
  }
  const std::string check = hex16(job.check);
  std::vector<char*> argv = {const_cast<char*>(path.c_str()), const_cast<char*>(job.arch.c_str()),
                             const_cast<char*>(job.kernel_name.c_str())};
  if (!job.cache_file.empty()) {
    argv.push_back(const_cast<char*>(job.cache_file.c_str()));
    argv.push_back(const_cast<char*>(check.c_str()));
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int e = ::posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  if (e != 0) {
    why = "cannot start " + path + ": " + std::strerror(e);
    ::close(in[1]);
    ::close(out[0]);
    return 0;
  }
  to = in[1];
  from = out[0];
  return pid;
}

// The compiler's answer (compiler_answer's format) into `job`; false where it is not whole.
bool read_answer(const std::string& a, CompileJob& job) {
  if (a.size() < 17) return false;
  const uint64_t message_size = get_u64(a.data() + 1);
  if (message_size > a.size() - 17) return false;
  const uint64_t cubin_size = get_u64(a.data() + 9 + message_size);
  if (cubin_size != a.size() - 17 - message_size) return false;
  job.message.assign(a, 9, message_size);
  const char* cubin = a.data() + 17 + message_size;
  job.cubin.assign(cubin, cubin + cubin_size);
  job.status = a[0] == 0 && is_elf(job.cubin) ? EmbeddedStatus::Compiled : EmbeddedStatus::Failed;
  if (job.status == EmbeddedStatus::Failed) job.cubin.clear();
  return true;
}

// Hands `job` to a new compiler process: starts it and writes it the whole source, on the calling thread, so that the
// process holds all it needs before the call can return (and the program exit). SIGPIPE is blocked meanwhile (a
// compiler that ended early makes the write fail, not the program) and one raised by the write is taken back. The
// process id and the descriptor its answer is read from, or 0 with why.
pid_t start_compiler(const CompileJob& job, int& from, std::string& why) {
  int to = -1;
  const pid_t pid = spawn_compiler(job, to, from, why);
  if (pid == 0) return 0;
  sigset_t pipe_signal, old;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
  bool broken = false;
  for (size_t at = 0; at < job.source.size();) {
    const ssize_t n = ::write(to, job.source.data() + at, job.source.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      broken = errno == EPIPE;
      break;
    }
    at += static_cast<size_t>(n);
  }
  ::close(to);
  if (broken && !sigismember(&old, SIGPIPE)) {
    const timespec now = {0, 0};
    while (sigtimedwait(&pipe_signal, nullptr, &now) > 0) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return pid;
}

// Publishes `job`'s result (set by the caller) and takes it out of the registry.
void finish_job(const std::shared_ptr<CompileJob>& job) {
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.m);
    auto it = r.running.find(job->registry_key);
    if (it != r.running.end() && it->second == job) r.running.erase(it);
  }
  {
    std::lock_guard<std::mutex> lock(job->m);
    job->done = true;
    job->cv.notify_all();
  }
  std::lock_guard<std::mutex> lock(r.m);
  --r.live;
  r.idle.notify_all();
}

// The detached thread's body: read the compiler's answer, reap the process, publish the result.
void reap_job(const std::shared_ptr<CompileJob>& job, pid_t pid, int from) {
  std::string answer;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(from, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<size_t>(n));
  }
  ::close(from);
  // Waited for without reaping, then marked ended, then reaped: a kill at the deadline never reaches a reused id.
  siginfo_t info;
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(job->m);
    job->pid = 0;
  }
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(job->m);
    if (!read_answer(answer, *job)) {
      job->status = EmbeddedStatus::Failed;
      job->cubin.clear();
      job->message = job->stopped ? std::string("stopped")
                     : WIFSIGNALED(wstatus)
                         ? std::string(kCompilerName) + " ended by signal " + std::to_string(WTERMSIG(wstatus))
                         : std::string(kCompilerName) + " gave no answer (exit status " +
                               std::to_string(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1) + ")";
    }
  }
  finish_job(job);
}

}  // namespace

bool is_elf(const std::vector<char>& b) {
  return b.size() >= 4 && b[0] == '\x7f' && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
}

// The cubin held in `path`, or false where the file is missing or not whole and consistent.
bool load_cached(const std::string& path, uint64_t check, std::vector<char>& cubin) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::string data;
  char buf[1 << 16];
  size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, got);
  const bool read_ok = !std::ferror(f);
  std::fclose(f);
  if (!read_ok || data.size() < kHeader || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) return false;
  if (get_u64(data.data() + 8) != check || get_u64(data.data() + 16) != data.size() - kHeader) return false;
  std::vector<char> out(data.begin() + kHeader, data.end());
  if (!is_elf(out)) return false;
  cubin = std::move(out);
  return true;
}

// Writes the cache file (header, then the cubin) through write_atomically; "" where written, else why not.
std::string store_cached(const std::string& path, uint64_t check, const std::vector<char>& cubin) {
  std::string bytes(kMagic, sizeof kMagic);
  put_u64(bytes, check);
  put_u64(bytes, cubin.size());
  bytes.append(cubin.data(), cubin.size());
  const std::string why = write_atomically(path, bytes);
  return why.empty() ? why : "the cache was not written: " + why;
}

std::string compiler_answer(bool compiled, const std::string& message, const std::vector<char>& cubin) {
  std::string answer(1, compiled ? '\0' : '\1');
  put_u64(answer, message.size());
  answer += message;
  put_u64(answer, cubin.size());
  answer.append(cubin.data(), cubin.size());
  return answer;
}

void wait_for_background_compiles() {
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.m);
  r.idle.wait(lock, [&] { return r.live == 0; });
}

std::string float_literal(float v) {
  if (!std::isfinite(v)) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    char buf[48];
    if (bits >= 0x80000000u)
      std::snprintf(buf, sizeof buf, "__int_as_float((int)0x%08xu)", static_cast<unsigned>(bits));
    else
      std::snprintf(buf, sizeof buf, "__int_as_float(0x%08x)", static_cast<unsigned>(bits));
    return buf;
  }
  return hex_literal(static_cast<double>(v)) + "f";
}

std::string embedded_source(const TiledLayer& layer, const std::vector<int32_t>& gather, const LayerTiles& tiles,
                            const std::vector<int32_t>& tile_ids, bool fp64, const std::string& kernel_name) {
  if (!is_identifier(kernel_name) || kernel_name == kNamespace)
    bad("kernel name '" + kernel_name + "' is not a C identifier (or is " + kNamespace + ")");
  check_tiles(layer, gather, tiles, tile_ids);
  const std::string acc = fp64 ? "double" : "float";
  // A weight as a literal of the sums' type: in FP64 the float's value written as a double literal (exact).
  const auto weight = [fp64](float w) {
    if (!std::isfinite(w)) return fp64 ? "(double)" + float_literal(w) : float_literal(w);
    return fp64 ? hex_literal(static_cast<double>(w)) : float_literal(w);
  };
  const auto list = [](const std::string& prefix, int n, const std::string& before) {
    std::string l;
    for (int i = 0; i < n; ++i) l += (i ? ", " : "") + before + prefix + std::to_string(i);
    return l;
  };
  // The helpers the tiles call: m<R>x<W> (R inputs into W sums) and e<W> (the epilogue of W sums).
  std::set<std::pair<int32_t, int32_t>> mult;   // (R, W)
  std::set<int32_t> epilogue;                  // W
  for (const int32_t t : tile_ids) {
    const int32_t width = tiles.width[t];
    if (width == 0) continue;
    epilogue.insert(width);
    const int64_t inputs = tile_inputs(tiles, t);
    const int32_t r = inputs_per_call(width);
    if (inputs >= r) mult.insert({r, width});
    if (inputs % r != 0) mult.insert({static_cast<int32_t>(inputs % r), width});
  }

  std::string s;
  s.reserve(64 * 1024);
  s += std::string("namespace ") + kNamespace + " {\n";
  // An input's activation: row `r` of Y^T at the thread's column, `y` pointing at row 0's. The offset r * ld_bytes is
  // one 32 x 32 -> 64-bit multiply-add with r a literal, where r * ld + row in 64 bits took several instructions.
  s += "static __device__ __forceinline__ " + acc +
       " load(const char* __restrict__ y, unsigned r, unsigned ld_bytes) {\n";
  s += "return __ldg(reinterpret_cast<const " + acc + "*>(y + static_cast<unsigned long long>(r) * ld_bytes));\n}\n";
  const std::string fma = fp64 ? " = fma(x" : " = fmaf(x";
  for (const auto& [r, w] : mult) {
    s += "static __device__ __forceinline__ void m" + std::to_string(r) + "x" + std::to_string(w) + "(" +
         list("a", w, acc + "& ") + ", " + list("x", r, acc + " ") + ", " + list("w", r * w, acc + " ") + ") {\n";
    for (int32_t a = 0; a < r; ++a)
      for (int32_t q = 0; q < w; ++q) {
        const std::string aq = "a" + std::to_string(q);
        s += aq + fma + std::to_string(a) + ", w" + std::to_string(a * w + q) + ", " + aq + ");\n";
      }
    s += "}\n";
  }
  const std::string activation =
      fp64 ? std::string(" + (double)bias, 0.0), ") + hex_literal(kChallengeClamp) + ");\n"
           : std::string(" + bias, 0.0f), ") + float_literal(static_cast<float>(kChallengeClamp)) + ");\n";
  for (const int32_t w : epilogue) {
    s += "static __device__ __forceinline__ bool e" + std::to_string(w) + "(" + acc +
         "* __restrict__ y, long long ld, float bias, " + list("a", w, acc + " ") + ") {\n";
    s += "bool any = false;\n" + acc + " v;\n";
    for (int32_t q = 0; q < w; ++q) {
      s += (fp64 ? "v = fmin(fmax(a" : "v = fminf(fmaxf(a") + std::to_string(q) + activation;
      s += "y[" + std::to_string(q) + "LL * ld] = v;\n";
      s += fp64 ? "any = any || v > 0.0;\n" : "any = any || v > 0.0f;\n";
    }
    s += "return any;\n}\n";
  }
  for (size_t i = 0; i < tile_ids.size(); ++i) {
    const int32_t t = tile_ids[i];
    const int32_t width = tiles.width[t], pitch = tiles.pitch[t];
    const bool outline = tile_inputs(tiles, t) * width >= kOutlineMultiplyAdds;
    s += std::string("static __device__ ") + (outline ? "__noinline__" : "__forceinline__") + " bool t" +
         std::to_string(i) + "(const char* __restrict__ y, unsigned ld_bytes, " + acc +
         "* __restrict__ yout, long long ld, int row, float bias) {\n";
    if (width == 0) {
      s += "return false;\n}\n";
      continue;
    }
    s += acc + " ";
    for (int32_t q = 0; q < width; ++q) s += (q ? ", a" : "a") + std::to_string(q) + " = 0";
    s += ";\n";
    const std::string sums = list("a", width, "");
    // The tile's inputs in order (blocks in order, rows within a block in order), R to a call. Each activation is
    // loaded once for consecutive inputs that read the same row (in<N>: the tile's N-th such load), before the call
    // that first reads it.
    std::vector<std::pair<int32_t, const float*>> run;   // (load number, the input's weight row)
    const int32_t r = inputs_per_call(width);
    int32_t loads = 0, last_row = -1;
    std::string loaded;   // the loads' declarations not yet written
    const auto flush = [&] {
      s += loaded;
      loaded.clear();
      s += "m" + std::to_string(run.size()) + "x" + std::to_string(width) + "(" + sums;
      for (const auto& in : run) s += ", in" + std::to_string(in.first);
      for (const auto& in : run)
        for (int32_t q = 0; q < width; ++q) s += ", " + weight(in.second[q]);
      s += ");\n";
      run.clear();
    };
    for (int32_t b = tiles.block_ptr[t]; b < tiles.block_ptr[t + 1]; ++b) {
      const TileBlock& k = tiles.blocks[b];
      for (int32_t a = 0; a < k.nr; ++a) {
        const int32_t row = gather[k.r0 + a];
        if (loads == 0 || row != last_row) {
          loaded += "const " + acc + " in" + std::to_string(loads) + " = load(y, " + std::to_string(row) +
                    "u, ld_bytes);\n";
          ++loads;
          last_row = row;
        }
        run.emplace_back(loads - 1, layer.values.data() + k.voff + static_cast<int64_t>(a) * pitch);
        if (static_cast<int32_t>(run.size()) == r) flush();
      }
    }
    if (!run.empty()) flush();
    s += "return e" + std::to_string(width) + "(yout + " + std::to_string(tiles.start[t]) +
         "LL * ld + row, ld, bias, " + sums + ");\n}\n";
  }
  s += "}\n";
  s += "extern \"C\" __global__ void __launch_bounds__(128) " + kernel_name + "(const " + acc + "* __restrict__ yin, " +
       acc + "* __restrict__ yout, long long ld, const int* __restrict__ held, float bias, int* __restrict__ alive) {\n";
  s += "const int row = blockIdx.y * 128 + threadIdx.x;\n";
  s += "if (row >= *held) return;\n";
  s += "const char* y = reinterpret_cast<const char*>(yin + row);\n";
  s += "const unsigned ld_bytes = static_cast<unsigned>(ld) * " + std::to_string(fp64 ? 8 : 4) + "u;\n";
  s += "bool any = false;\n";
  s += "switch (blockIdx.x) {\n";
  for (size_t i = 0; i < tile_ids.size(); ++i)
    s += "case " + std::to_string(i) + ": any = " + kNamespace + "::t" + std::to_string(i) +
         "(y, ld_bytes, yout, ld, row, bias); break;\n";
  s += "}\n";
  s += "if (any) alive[row] = 1;\n";
  s += "}\n";
  return s;
}

const char* embedded_status_name(EmbeddedStatus s) {
  switch (s) {
    case EmbeddedStatus::Compiled: return "compiled";
    case EmbeddedStatus::Cached: return "cached";
    case EmbeddedStatus::TimedOut: return "timed out";
    case EmbeddedStatus::Failed: return "failed";
  }
  return "unknown";
}

EmbeddedBinary compile_embedded(const std::string& source, const std::string& kernel_name,
                                const EmbeddedOptions& options) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  EmbeddedBinary out;
  const auto finish = [&]() -> EmbeddedBinary {
    out.seconds = std::chrono::duration<double>(clock::now() - t0).count();
    return std::move(out);
  };
  const std::string material = key_material(options.arch, kernel_name, source);
  const std::string name = hex16(fnv1a(material));
  const uint64_t check = check_hash(material);
  std::string cache_file;
  if (!options.cache_dir.empty()) {
    cache_file = options.cache_dir + "/" + name + ".cubin";
    if (load_cached(cache_file, check, out.cubin)) {
      out.status = EmbeddedStatus::Cached;
      return finish();
    }
  }

  // Join the compile of this kernel for this cache under way, or start one.
  std::shared_ptr<CompileJob> job;
  bool started = false;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.m);
    const std::string registry_key = cache_file.empty() ? "" : cache_file + '\n' + hex16(check);
    auto it = registry_key.empty() ? r.running.end() : r.running.find(registry_key);
    if (it != r.running.end()) {
      job = it->second;
    } else {
      job = std::make_shared<CompileJob>();
      job->source = source;
      job->kernel_name = kernel_name;
      job->arch = options.arch;
      job->cache_file = cache_file;
      job->check = check;
      job->registry_key = registry_key;
      ++r.live;
      if (!registry_key.empty()) r.running.emplace(registry_key, job);
      started = true;
    }
  }
  if (started) {
    std::string why;
    int from = -1;
    const pid_t pid = start_compiler(*job, from, why);
    {
      std::lock_guard<std::mutex> lock(job->m);
      job->pid = pid;
    }
    if (pid != 0) {
      try {
        std::thread([job, pid, from] { reap_job(job, pid, from); }).detach();
      } catch (const std::system_error& e) {
        {
          std::lock_guard<std::mutex> lock(job->m);
          job->pid = 0;
        }
        ::kill(pid, SIGKILL);
        ::close(from);
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        why = std::string("cannot start the thread that waits for the compile: ") + e.what();
      }
    }
    if (!why.empty()) {
      {
        std::lock_guard<std::mutex> lock(job->m);
        job->message = why;
      }
      finish_job(job);
    }
  }

  // The wait, counted from the call's start.
  const double deadline = std::isnan(options.deadline_s) ? 0.0 : std::max(0.0, options.deadline_s);
  std::unique_lock<std::mutex> lock(job->m);
  const auto is_done = [&] { return job->done; };
  bool done = false;
  if (deadline >= 1e9) {   // no deadline worth a timer
    job->cv.wait(lock, is_done);
    done = true;
  } else {
    const auto until = t0 + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(deadline));
    done = job->cv.wait_until(lock, until, is_done);
  }
  if (!done) {
    if (cache_file.empty()) {
      job->stopped = true;
      if (job->pid != 0) ::kill(job->pid, SIGKILL);
    } else {
      if (job->pid != 0) send_to_background(job->pid);   // kept for the cache, at the lowest priority
    }
    out.status = EmbeddedStatus::TimedOut;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", deadline);
    out.message = std::string("not compiled within the deadline of ") + buf + " s; " +
                  (cache_file.empty() ? std::string("stopped (with no cache, its result would be dropped)")
                                      : "the compile goes on in a process of its own, also past this program's "
                                        "exit, and writes " + cache_file + " when done");
    return finish();
  }
  out.status = job->status;
  out.cubin = job->cubin;
  out.message = job->message;
  return finish();
}

EmbeddedBinary lookup_embedded(const std::string& source, const std::string& kernel_name,
                               const EmbeddedOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  EmbeddedBinary out;
  out.status = EmbeddedStatus::TimedOut;
  out.message = "not in the cache";
  if (!options.cache_dir.empty()) {
    const std::string material = key_material(options.arch, kernel_name, source);
    if (load_cached(options.cache_dir + "/" + hex16(fnv1a(material)) + ".cubin", check_hash(material), out.cubin)) {
      out.status = EmbeddedStatus::Cached;
      out.message.clear();
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string write_atomically(const std::string& path, const std::string& bytes) {
  static std::atomic<uint64_t> counter{0};
  const std::string dir = std::filesystem::path(path).parent_path().string();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create " + dir + ": " + ec.message();
  const std::string tmp = path + "." + std::to_string(static_cast<long long>(::getpid())) + "." +
                          std::to_string(counter.fetch_add(1)) + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return "cannot create " + tmp + ": " + std::strerror(errno);
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int saved = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    return "cannot write " + tmp + ": " + std::strerror(saved ? saved : errno);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    return "cannot rename to " + path + ": " + std::strerror(e);
  }
  return "";
}

std::string default_cache_root() {
  const auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
  };
  if (const std::string d = env("SNACK_CACHE_DIR"); !d.empty()) return d;
  if (const std::string d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/snack";
  if (const std::string d = env("HOME"); !d.empty()) return d + "/.cache/snack";
  return "";
}

}  // namespace snk::gc
