// backends/reference/runtime.cpp: SuiteSparse:GraphBLAS start-up, error translation and descriptors.
//
// SuiteSparse is initialised once per process in non-blocking mode, on the first call into this backend
// (std::call_once, so concurrent first calls are safe). If something else in the process initialised it
// first (a user program linking SuiteSparse directly), GrB_init answers GrB_INVALID_VALUE and that is
// fine: the library is ready either way. It is never finalised: the process exit releases it, and
// finalising would break another user of SuiteSparse in the same process. Errors become snk::Error with
// the same numeric GrB_Info code and SuiteSparse's own message. The 16 descriptors the kernels need
// (input transposes x mask structure x mask complement) are made once and shared by all threads. In a
// ThreadSanitizer build SuiteSparse's memory pool is switched off (see ensure_initialized).
#include <mutex>
#include <string>

#include "suitesparse.hpp"

namespace snk::reference {
namespace {

std::once_flag init_once;
GrB_Descriptor descriptors[16];

void make_descriptors() {
  for (int k = 0; k < 16; ++k) {
    GrB_Descriptor d = nullptr;
    check(GrB_Descriptor_new(&d), "GrB_Descriptor_new");
    if (k & 1) check(GrB_Descriptor_set(d, GrB_INP0, GrB_TRAN), "GrB_Descriptor_set");
    if (k & 2) check(GrB_Descriptor_set(d, GrB_INP1, GrB_TRAN), "GrB_Descriptor_set");
    // SuiteSparse combines the two mask settings (complement and structure) when both are set.
    if (k & 4) check(GrB_Descriptor_set(d, GrB_MASK, GrB_STRUCTURE), "GrB_Descriptor_set");
    if (k & 8) check(GrB_Descriptor_set(d, GrB_MASK, GrB_COMP), "GrB_Descriptor_set");
    descriptors[k] = d;
  }
}

[[noreturn]] void fail(GrB_Info info, const char* what, const char* detail) {
  std::string message = std::string("SuiteSparse:GraphBLAS ") + what + " failed (GrB_Info " +
                        std::to_string(static_cast<int>(info)) + ")";
  if (detail != nullptr && detail[0] != '\0') message += ": " + std::string(detail);
  throw Error(static_cast<Info>(info), message);
}

}  // namespace

void ensure_initialized() {
  std::call_once(init_once, [] {
    GrB_Info info = GrB_init(GrB_NONBLOCKING);
    if (info != GrB_SUCCESS && info != GrB_INVALID_VALUE) fail(info, "GrB_init", nullptr);
#if defined(__SANITIZE_THREAD__)
    // SuiteSparse's memory pool hands blocks from one thread to another under an OpenMP critical section
    // that ThreadSanitizer cannot see (libgomp is not instrumented); with the pool off, every block goes
    // through malloc and free, which it sees, so it reports only real races.
    int64_t no_pool[64] = {0};
    check(GxB_Global_Option_set(GxB_MEMORY_POOL, no_pool), "GxB_Global_Option_set(GxB_MEMORY_POOL)");
#endif
    make_descriptors();
  });
}

void check(GrB_Info info, const char* what) {
  if (info == GrB_SUCCESS || info == GrB_NO_VALUE) return;
  fail(info, what, nullptr);
}

void check(GrB_Info info, const char* what, GrB_Matrix object) {
  if (info == GrB_SUCCESS || info == GrB_NO_VALUE) return;
  const char* detail = nullptr;
  if (object != nullptr) GrB_Matrix_error(&detail, object);
  fail(info, what, detail);
}

GrB_Descriptor grb_descriptor(bool transpose_first, bool transpose_second, bool mask_structure,
                              bool mask_complement) {
  ensure_initialized();
  int k = (transpose_first ? 1 : 0) | (transpose_second ? 2 : 0) | (mask_structure ? 4 : 0) |
          (mask_complement ? 8 : 0);
  return descriptors[k];
}

}  // namespace snk::reference
