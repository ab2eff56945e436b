// snack/backend.hpp: choosing the backend at run time, and reading what it declined.
//
// Backends: "reference" (SuiteSparse:GraphBLAS, complete on the CPU, the oracle), "kokkos" (the project's
// portable kernels) and "cuda" (the project's GPU kernels), as far as they were built. The choice is
// process-wide, or per thread through BackendScope; the environment variable SNACK_BACKEND sets the
// initial choice. When the chosen backend declines a call (a user-defined type on the GPU, say), the call
// runs on "reference" and the fallback is counted per operation, readable here: nothing falls back
// silently.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace snk {

// Names of the backends usable in this process, "reference" first.
std::vector<std::string> available_backends();
// The backends built but not usable here, each with the reason (a plugin that did not load, no GPU, ...).
std::map<std::string, std::string> unavailable_backends();
// The backend that new calls use on this thread. Initially $SNACK_BACKEND, else the best complete one
// (kokkos, else reference); "cuda" (the GPU: every operation on builtin types and operators, data kept on the
// device; user-defined types and operators fall back to reference, counted) is used when named.
std::string current_backend();
// Chooses the process-wide backend; InvalidValue (with the list of available ones) if unknown.
void set_backend(const std::string& name);

// Chooses the backend of the calling thread only (over set_backend's choice); "" goes back to the
// process-wide choice. InvalidValue if unknown, and nothing changes.
void set_thread_backend(const std::string& name);

// Uses `name` on this thread for the lifetime of the object.
class BackendScope {
 public:
  explicit BackendScope(const std::string& name);
  ~BackendScope();
  BackendScope(const BackendScope&) = delete;
  BackendScope& operator=(const BackendScope&) = delete;

 private:
  std::string previous_;
  bool had_previous_;
};

// Calls that the named backend declined and that ran on reference instead, per operation name
// ("mxm", "ewise_add", ...). Counts are process-wide.
std::map<std::string, std::uint64_t> fallback_counts(const std::string& backend);
std::uint64_t fallback_total(const std::string& backend);
void reset_fallback_counts();

// Host <-> device traffic of the GPU backends since the start (or the last reset_transfers()): copies of
// container data to device memory (uploads) and back (downloads: the host reading a matrix whose only valid copy
// is on the device). A chain of GPU operations on data that lives there adds none. Process-wide.
struct Transfers {
  std::uint64_t uploads = 0;
  std::uint64_t downloads = 0;
  std::uint64_t upload_bytes = 0;
  std::uint64_t download_bytes = 0;
};
Transfers transfers();
void reset_transfers();

// Determinism: when on, backends use only kernels whose results are bitwise identical run to run
// (no floating-point atomics, fixed reduction orders). Default off; $SNACK_DETERMINISTIC=1 (or true, on, yes)
// turns it on, 0 (false, off, no) leaves it off; another value prints a message on stderr and leaves it off.
void set_deterministic(bool on);
bool deterministic();

// When the cuda backend binds a sparse matrix's values to its SpMM plan, so that products with a full matrix at
// batch 5-128 read them in the plan's own orders (faster; the binding is host work linear in the entries, about
// 0.3 s at 26.8 M entries, redone after the matrix changes). Auto (the default): once the matrix's products that
// would have run bound have taken as long as the binding is estimated to take, so a one-off product never pays for
// it and a loop of products does; Eager: at the first such product; Never: not at all. $SNACK_BIND=auto, eager or
// never sets the initial policy (another value prints a message on stderr: Auto). Process-wide.
enum class BindPolicy { Auto = 0, Eager = 1, Never = 2 };
void set_bind_policy(BindPolicy policy);
BindPolicy bind_policy();

}  // namespace snk
