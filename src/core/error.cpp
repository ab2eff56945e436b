// src/core/error.cpp: the names of the GrB_Info codes (snk::Info), as the C API spells them, for messages
// and for the C API shim's GrB_error text.
#include "snack/error.hpp"

namespace snk {

const char* info_name(Info info) {
  switch (info) {
    case Info::Success: return "GrB_SUCCESS";
    case Info::NoValue: return "GrB_NO_VALUE";
    case Info::UninitializedObject: return "GrB_UNINITIALIZED_OBJECT";
    case Info::NullPointer: return "GrB_NULL_POINTER";
    case Info::InvalidValue: return "GrB_INVALID_VALUE";
    case Info::InvalidIndex: return "GrB_INVALID_INDEX";
    case Info::DomainMismatch: return "GrB_DOMAIN_MISMATCH";
    case Info::DimensionMismatch: return "GrB_DIMENSION_MISMATCH";
    case Info::OutputNotEmpty: return "GrB_OUTPUT_NOT_EMPTY";
    case Info::NotImplemented: return "GrB_NOT_IMPLEMENTED";
    case Info::Panic: return "GrB_PANIC";
    case Info::OutOfMemory: return "GrB_OUT_OF_MEMORY";
    case Info::InsufficientSpace: return "GrB_INSUFFICIENT_SPACE";
    case Info::InvalidObject: return "GrB_INVALID_OBJECT";
    case Info::IndexOutOfBounds: return "GrB_INDEX_OUT_OF_BOUNDS";
    case Info::EmptyObject: return "GrB_EMPTY_OBJECT";
  }
  return "GrB_(unknown info code)";
}

}  // namespace snk
