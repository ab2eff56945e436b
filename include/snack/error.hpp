// snack/error.hpp: the error model of the C++ API.
//
// Every failing call throws snk::Error, which carries one of the GraphBLAS C API spec 2.0 GrB_Info codes
// (snk::Info, same numeric values) and a human-readable message. Calls check all their arguments before
// they modify anything, so a thrown Error leaves every argument as it was (the C API shim turns the
// exception into the GrB_Info return value and the message read through GrB_error).
#pragma once

#include <stdexcept>
#include <string>

namespace snk {

// Numeric values are those of GrB_Info in the C API spec 2.0.
enum class Info : int {
  Success = 0,
  NoValue = 1,
  UninitializedObject = -1,
  NullPointer = -2,
  InvalidValue = -3,
  InvalidIndex = -4,
  DomainMismatch = -5,
  DimensionMismatch = -6,
  OutputNotEmpty = -7,
  NotImplemented = -8,
  Panic = -101,
  OutOfMemory = -102,
  InsufficientSpace = -103,
  InvalidObject = -104,
  IndexOutOfBounds = -105,
  EmptyObject = -106,
};

const char* info_name(Info info);

class Error : public std::runtime_error {
 public:
  Error(Info info, const std::string& message) : std::runtime_error(message), info_(info) {}
  Info info() const { return info_; }

 private:
  Info info_;
};

// Throws Error(info, message) when cond is false. message is only built on failure.
#define SNK_CHECK(cond, info, message)                       \
  do {                                                       \
    if (!(cond)) throw ::snk::Error((info), (message));      \
  } while (0)

}  // namespace snk
