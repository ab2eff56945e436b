// graphchallenge/engine/embedded.hpp: the tiled engine's embedded mode (plan/tile_modes.hpp): CUDA C++ generated for
// some tiles of one layer with their gather positions and weights written in as constants, and its compile to a cubin
// by NVRTC at run time, bounded in time and cached on disk.
//
// The generated kernel computes what the table-driven kernel (tiled_gpu.cu's tiled_layer) computes for the same tiles,
// bit for bit: the same multiply-adds in the same order (blocks in the tile's order, inputs within a block in order,
// one fma per weight, zero weights included), the same activation, the same stores and alive flags. Only where the
// gather positions and the weights come from differs: literals in the code instead of tables in memory.
//
// A compile may take seconds (a whole layer of the 1024-neuron network is 32K multiply-adds), so the caller waits at
// most EmbeddedOptions::deadline_s. Each compile runs NVRTC in a process of its own (snack-embedded-compile), which can
// be lowered in priority, stopped, or left to finish after the program exits; inside one process NVRTC can be neither
// stopped nor torn down under a running compile. Past its deadline the call returns TimedOut, and the compile goes on,
// writing its cubin to the disk cache when done, where a later call or a later run finds it. The cache's file for a
// kernel is named by a hash of everything its code depends on (a format version, the architecture, NVRTC's version,
// the kernel's name and source); a file that is not whole and consistent is a miss, and files are replaced
// atomically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/tile_modes.hpp"
#include "plan/tiles.hpp"

namespace snk::gc {

// The CUDA C++ source of one kernel computing tiles `tile_ids` (indices into `tiles`) of `layer`, whose input position
// p reads row gather[p] of Y^T. Its signature:
//   extern "C" __global__ void __launch_bounds__(128) kernel_name(const ACC* __restrict__ yin, ACC* __restrict__ yout,
//                                                               long long ld, const int* __restrict__ held,
//                                                               float bias, int* __restrict__ alive)
// with ACC double where fp64, else float; grid.x = tile_ids.size() (block x computes tile tile_ids[x]), grid.y = 128-row
// chunks covering at least the *held rows computed (rows from *held on are not), 128 threads per block; ld times
// sizeof(ACC) below 2^32 (the inputs' offsets are 32-bit products widened to 64). The source needs no header and is the
// same text for the same arguments. Its compile time grows faster than linearly in its size (engine/embedded.cpp says
// where), and with the distinct rows its tiles read (one load for consecutive inputs of one row): a layer compiles
// faster as several kernels of a few thousand multiply-adds each. Throws std::invalid_argument for no tiles, a tile id
// out of range, a tile whose blocks or outputs fall outside the layer or `gather`, or a kernel_name that is not a C
// identifier (or is "snk_embedded", the generated helpers' namespace).
std::string embedded_source(const TiledLayer& layer, const std::vector<int32_t>& gather, const LayerTiles& tiles,
                            const std::vector<int32_t>& tile_ids, bool fp64, const std::string& kernel_name);

struct EmbeddedOptions {
  std::string arch = "sm_90";   // NVRTC's --gpu-architecture: a real architecture, so the result is a cubin
  std::string cache_dir;        // where compiled kernels are kept; "": no disk cache
  double deadline_s = 30;       // the longest the caller waits for one compile
};

enum class EmbeddedStatus { Compiled, Cached, TimedOut, Failed };
const char* embedded_status_name(EmbeddedStatus s);   // "compiled", "cached", "timed out", "failed"

struct EmbeddedBinary {
  EmbeddedStatus status = EmbeddedStatus::Failed;
  std::vector<char> cubin;   // the ELF cubin (Compiled, Cached)
  double seconds = 0;        // wall time of this call
  std::string message;       // NVRTC's log where Failed; why where TimedOut; a note where the cache was not written
};

// The cubin of `source`'s extern "C" kernel `kernel_name`: from the cache where it holds it (Cached), else compiled by
// NVRTC in a snack-embedded-compile process (Compiled; the process writes the cache). Never throws for a compile that
// fails (Failed, NVRTC's log in message) or does not finish within options.deadline_s of the call's start (TimedOut).
// A compile past its deadline with a cache goes on, at the lowest priority (nice 19), and writes the cache when done,
// even after this program has exited (its exit does not wait); a call for the same kernel and cache meanwhile, in this
// process or another (a lock file beside the cache file), waits for that compile rather than compiling again. With no
// cache a compile past its deadline is stopped. A cache that cannot be written is not an error: Compiled, with a
// message saying so. The compiler program is
// $SNACK_EMBEDDED_COMPILER where set, else snack-embedded-compile beside the running program, else where the build
// made it; where none is found every compile is Failed, saying so.
EmbeddedBinary compile_embedded(const std::string& source, const std::string& kernel_name,
                                const EmbeddedOptions& options);

// The cubin of `source`'s kernel where the cache holds it (Cached), without compiling: else TimedOut ("not in the
// cache"), nothing started.
EmbeddedBinary lookup_embedded(const std::string& source, const std::string& kernel_name,
                               const EmbeddedOptions& options);

// Waits until no compile this process started is still running (those left past their callers' deadline finish and
// fill the cache). A program need not call it: its exit does not wait, and each compile ends on its own.
void wait_for_background_compiles();

// The cache files (the format embedded.cpp's banner gives): the cubin held in `path` under the key check `check`, or
// false where the file is missing or not whole and consistent; and the file written (through write_atomically), ""
// where written, else why not. is_elf: whether `b` starts as an ELF file does.
bool load_cached(const std::string& path, uint64_t check, std::vector<char>& cubin);
std::string store_cached(const std::string& path, uint64_t check, const std::vector<char>& cubin);
bool is_elf(const std::vector<char>& b);

// NVRTC's option besides the architecture, which snack-embedded-compile passes; part of every cache key, so a change to
// it changes the key.
inline constexpr const char* kEmbeddedLanguageOption = "-std=c++17";

// The compiler process's answer on its standard output (snack-embedded-compile writes it, compile_embedded reads it):
// one byte (0 compiled, 1 failed), a 64-bit little-endian length and the message, a 64-bit length and the cubin.
std::string compiler_answer(bool compiled, const std::string& message, const std::vector<char>& cubin);

// Writes `bytes` to `path` atomically (a temporary file beside it, then a rename), creating its folders: a reader sees
// the old file or the whole new one. "" where written, else why not.
std::string write_atomically(const std::string& path, const std::string& bytes);

// The project's cache folder: $SNACK_CACHE_DIR, else $XDG_CACHE_HOME/snack, else $HOME/.cache/snack, else "" (each
// variable read where set and not empty). The tiled engine keeps embedded kernels in its "embedded" folder.
std::string default_cache_root();

// The exact C++ literal of `v`: a hexadecimal float ("0x1.99999ap-4f") for a finite value, "__int_as_float(0x7f800000)"
// (its bits) for an infinity or a NaN.
std::string float_literal(float v);

}  // namespace snk::gc
