// graphchallenge/engine/embedded_compiler.cpp: `snack-embedded-compile`, the process that compiles one embedded-mode
// kernel with NVRTC for compile_embedded (engine/embedded.hpp), so that a compile can be lowered in priority, stopped,
// or left to finish after the program that asked for it has exited; NVRTC itself can be neither stopped nor torn down
// under a running compile inside one process.
//
// Usage: snack-embedded-compile ARCH KERNEL_NAME [CACHE_FILE CHECK]
// Reads the kernel's CUDA C++ source from standard input to its end, compiles it for ARCH (--gpu-architecture, a real
// architecture such as sm_90) and, where CACHE_FILE is given, writes the cubin there in the cache's format under the
// key check CHECK (16 hex digits), atomically; where another process is compiling the same cache file, waits for it and
// answers with its cubin (CACHE_FILE.lock, below). Then writes its answer to standard output (embedded.hpp's
// compiler_answer: whether compiled, the message, the cubin; the message is NVRTC's log where failed, else why the cache
// was not written, or nothing). Exit status 0 where compiled, 1 where the compile failed, 2 for bad usage.
// A reader that has gone away (the program exited) does not stop it: the cache file is written first, and a broken
// pipe is ignored.
#include <fcntl.h>
#include <nvrtc.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/embedded.hpp"

namespace {

// The cubin of `source`'s kernel, or false with NVRTC's log (or why there is no cubin) in `message`.
bool nvrtc_compile(const std::string& source, const std::string& kernel_name, const std::string& arch,
                   std::vector<char>& cubin, std::string& message) {
  nvrtcProgram prog = nullptr;
  const std::string file = kernel_name + ".cu";
  nvrtcResult r = nvrtcCreateProgram(&prog, source.c_str(), file.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) {
    message = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(r);
    return false;
  }
  const std::string arch_option = "--gpu-architecture=" + arch;
  const char* options[] = {arch_option.c_str(), snk::gc::kEmbeddedLanguageOption};
  r = nvrtcCompileProgram(prog, 2, options);
  size_t log_size = 0;
  std::string log;
  if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    if (nvrtcGetProgramLog(prog, &log[0]) != NVRTC_SUCCESS) log.clear();
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  }
  bool ok = false;
  if (r != NVRTC_SUCCESS) {
    message = log.empty() ? std::string("nvrtcCompileProgram: ") + nvrtcGetErrorString(r) : log;
  } else {
    size_t size = 0;
    if (nvrtcGetCUBINSize(prog, &size) != NVRTC_SUCCESS || size == 0) {
      message = "NVRTC made no cubin: --gpu-architecture=" + arch + " is not a real architecture (sm_NN)";
    } else {
      cubin.resize(size);
      r = nvrtcGetCUBIN(prog, cubin.data());
      if (r != NVRTC_SUCCESS) {
        message = std::string("nvrtcGetCUBIN: ") + nvrtcGetErrorString(r);
      } else if (!snk::gc::is_elf(cubin)) {
        message = "NVRTC's cubin is not an ELF file";
      } else {
        ok = true;
      }
    }
  }
  nvrtcDestroyProgram(&prog);
  if (!ok) cubin.clear();
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) {
    std::fprintf(stderr, "usage: %s ARCH KERNEL_NAME [CACHE_FILE CHECK] < source.cu\n", argv[0]);
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  const std::string arch = argv[1], kernel_name = argv[2];
  std::uint64_t check = 0;
  if (argc == 5) {
    char* end = nullptr;
    check = std::strtoull(argv[4], &end, 16);
    if (end == argv[4] || *end != '\0') {
      std::fprintf(stderr, "%s: CHECK must be hexadecimal, not '%s'\n", argv[0], argv[4]);
      return 2;
    }
  }
  const std::string source((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  std::vector<char> cubin;
  std::string message;
  bool ok = false;
  // One compile of a kernel for a cache at a time, across processes: the lock file beside the cache file is held
  // (flock, let go when this process ends, however it ends) while compiling, and a compiler that waited for it finds
  // the cubin in the cache instead of compiling again.
  int lock = -1;
  if (argc == 5) {
    const std::string lock_file = std::string(argv[3]) + ".lock";
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(lock_file).parent_path(), ec);
    lock = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock >= 0) {
      while (::flock(lock, LOCK_EX) != 0 && errno == EINTR) {
      }
      ok = snk::gc::load_cached(argv[3], check, cubin);
      if (ok) message = "compiled by another process meanwhile";
    }
  }
  if (!ok) {
    ok = nvrtc_compile(source, kernel_name, arch, cubin, message);
    if (ok && argc == 5) message = snk::gc::store_cached(argv[3], check, cubin);
  }
  if (lock >= 0) ::close(lock);

  const std::string answer = snk::gc::compiler_answer(ok, message, cubin);
  (void)std::fwrite(answer.data(), 1, answer.size(), stdout);
  (void)std::fflush(stdout);
  return ok ? 0 : 1;
}
