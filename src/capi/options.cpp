// src/capi/options.cpp: SuiteSparse's option functions, which GraphBLAS programs call even when they mean to
// use only the spec (LAGraph's VANILLA mode among them): GxB_Global_Option_get / _set, GxB_Matrix_Option_get
// / _set, GxB_Vector_Option_get / _set, GxB_Desc_get / _set and GxB_Descriptor_get, with their typed forms
// (GraphBLAS.h lists the fields snack answers and what each holds).
//
// Each object kind has one reader (a field -> its value, an Option) and one writer (a field and a Source
// that gives the caller's value in the form the field takes); the C functions only say where the value is
// (the variadic forms read their one value argument with va_arg once the field says its type, as
// SuiteSparse does). A field snack cannot answer truthfully is an error, never a pretended success: the
// storage is always by rows, in sparse or hypersparse CSR, so GxB_FORMAT reads GxB_BY_ROW and accepts only
// it, and a sparsity control is accepted only when it allows the forms snack chooses between. Every check
// runs before anything is written.
#include <cstdarg>
#include <cstring>
#include <string>

#include "capi/capi.hpp"

using namespace snk::capi;
using snk::Error;
using snk::Info;

extern "C" {
const GxB_Format_Value GxB_FORMAT_DEFAULT = GxB_BY_ROW;
const double GxB_HYPER_DEFAULT = 0.0625;
const double GxB_ALWAYS_HYPER = 1.0;
const double GxB_NEVER_HYPER = -1.0;
}

namespace {

std::string option_name(int f) {
  switch (f) {
    case GxB_HYPER_SWITCH: return "GxB_HYPER_SWITCH";
    case GxB_BITMAP_SWITCH: return "GxB_BITMAP_SWITCH";
    case GxB_FORMAT: return "GxB_FORMAT";
    case GxB_MODE: return "GxB_MODE";
    case GxB_LIBRARY_NAME: return "GxB_LIBRARY_NAME";
    case GxB_LIBRARY_VERSION: return "GxB_LIBRARY_VERSION";
    case GxB_LIBRARY_DATE: return "GxB_LIBRARY_DATE";
    case GxB_LIBRARY_ABOUT: return "GxB_LIBRARY_ABOUT";
    case GxB_LIBRARY_URL: return "GxB_LIBRARY_URL";
    case GxB_LIBRARY_LICENSE: return "GxB_LIBRARY_LICENSE";
    case GxB_LIBRARY_COMPILE_DATE: return "GxB_LIBRARY_COMPILE_DATE";
    case GxB_LIBRARY_COMPILE_TIME: return "GxB_LIBRARY_COMPILE_TIME";
    case GxB_API_VERSION: return "GxB_API_VERSION";
    case GxB_API_DATE: return "GxB_API_DATE";
    case GxB_API_ABOUT: return "GxB_API_ABOUT";
    case GxB_API_URL: return "GxB_API_URL";
    case GxB_COMPILER_VERSION: return "GxB_COMPILER_VERSION";
    case GxB_COMPILER_NAME: return "GxB_COMPILER_NAME";
    case GxB_LIBRARY_OPENMP: return "GxB_LIBRARY_OPENMP";
    case GxB_GLOBAL_NTHREADS: return "GxB_NTHREADS";
    case GxB_GLOBAL_CHUNK: return "GxB_CHUNK";
    case GxB_BURBLE: return "GxB_BURBLE";
    case GxB_PRINTF: return "GxB_PRINTF";
    case GxB_FLUSH: return "GxB_FLUSH";
    case GxB_MEMORY_POOL: return "GxB_MEMORY_POOL";
    case GxB_PRINT_1BASED: return "GxB_PRINT_1BASED";
    case GxB_SPARSITY_STATUS: return "GxB_SPARSITY_STATUS";
    case GxB_IS_HYPER: return "GxB_IS_HYPER";
    case GxB_SPARSITY_CONTROL: return "GxB_SPARSITY_CONTROL";
    case GxB_GLOBAL_GPU_CONTROL: return "GxB_GPU_CONTROL";
    case GxB_GLOBAL_GPU_CHUNK: return "GxB_GPU_CHUNK";
  }
  return "option field " + std::to_string(f);
}

std::string desc_field_name(int f) {
  switch (f) {
    case GrB_OUTP: return "GrB_OUTP";
    case GrB_MASK: return "GrB_MASK";
    case GrB_INP0: return "GrB_INP0";
    case GrB_INP1: return "GrB_INP1";
    case GxB_NTHREADS: return "GxB_NTHREADS";
    case GxB_CHUNK: return "GxB_CHUNK";
    case GxB_GPU_CONTROL: return "GxB_GPU_CONTROL";
    case GxB_GPU_CHUNK: return "GxB_GPU_CHUNK";
    case GxB_AxB_METHOD: return "GxB_AxB_METHOD";
    case GxB_SORT: return "GxB_SORT";
    case GxB_COMPRESSION: return "GxB_COMPRESSION";
    case GxB_IMPORT: return "GxB_IMPORT";
  }
  return "field " + std::to_string(f);
}

// Why snack does not answer a SuiteSparse field it knows ("" for a number SuiteSparse does not use).
std::string unsupported_reason(int f) {
  switch (f) {
    case GxB_HYPER_SWITCH: return "snack has no hyper switch: a matrix is hypersparse when it has more than "
                                  "4 * nvals + 64 rows";
    case GxB_BITMAP_SWITCH: return "snack has no bitmap form to switch to";
    case GxB_LIBRARY_URL: case GxB_LIBRARY_LICENSE: return "snack publishes none";
    case GxB_LIBRARY_OPENMP: return "snack's use of OpenMP depends on the backend";
    case GxB_GLOBAL_NTHREADS: case GxB_GLOBAL_CHUNK: return "snack's thread use is not set through options";
    case GxB_PRINTF: case GxB_FLUSH: case GxB_PRINT_1BASED: return "snack has no diagnostic output";
    case GxB_MEMORY_POOL: return "snack has no memory pool";
    case GxB_GLOBAL_GPU_CONTROL: case GxB_GLOBAL_GPU_CHUNK:
      return "the cuda backend is chosen with SNK_Backend_set or SNACK_BACKEND";
  }
  return "";
}

// ---- values ----------------------------------------------------------------------------------------------
// A field's value as a reader gives it; the kind says which C type the variadic get writes.
struct Option {
  enum class Kind { Format, Mode, Int, Bool, Int3, String } kind = Kind::Int;
  std::int32_t i = 0;              // Format, Mode, Int, Bool (0 or 1)
  std::int32_t v[3] = {0, 0, 0};   // Int3
  const char* s = nullptr;         // String, of static storage
};
Option int_option(Option::Kind k, std::int32_t i) {
  Option o;
  o.kind = k;
  o.i = i;
  return o;
}
Option int3_option(std::int32_t a, std::int32_t b, std::int32_t c) {
  Option o;
  o.kind = Option::Kind::Int3;
  o.v[0] = a;
  o.v[1] = b;
  o.v[2] = c;
  return o;
}
Option string_option(const char* s) {
  Option o;
  o.kind = Option::Kind::String;
  o.s = s;
  return o;
}

const char* kind_text(Option::Kind k) {
  switch (k) {
    case Option::Kind::Format: case Option::Kind::Mode: case Option::Kind::Int:
      return "an int32_t (read it with the _INT32 form or the variadic one)";
    case Option::Kind::Bool: return "a bool (read it with the variadic form, or as 0 or 1 with the _INT32 one)";
    case Option::Kind::Int3: return "3 int32_t (read them with the _INT32 form or the variadic one)";
    case Option::Kind::String: return "a string (read it with the _CHAR form or the variadic one)";
  }
  return "";
}

// Where a get puts the value: the variadic form's one pointer argument (read once the field gives its
// type), or the typed forms' pointer.
struct Dest {
  enum class As { Variadic, Int32, FP64, Int64, Char, Function } as;
  va_list* ap = nullptr;
  void* p = nullptr;

  template <class T>
  T* pointer() const {
    T* q = as == As::Variadic ? va_arg(*ap, T*) : static_cast<T*>(p);
    check_pointer(q, "value");
    return q;
  }

  void put(const Option& o, const std::string& field) const {
    const auto wrong = [&](const char* asked) {
      return Error(Info::InvalidValue, field + " holds " + kind_text(o.kind) + ", not " + asked);
    };
    switch (as) {
      case As::Variadic:
        switch (o.kind) {
          case Option::Kind::Format: *pointer<GxB_Format_Value>() = static_cast<GxB_Format_Value>(o.i); return;
          case Option::Kind::Mode: *pointer<GrB_Mode>() = static_cast<GrB_Mode>(o.i); return;
          case Option::Kind::Int: *pointer<int>() = o.i; return;
          case Option::Kind::Bool: *pointer<bool>() = o.i != 0; return;
          case Option::Kind::Int3: std::memcpy(pointer<int>(), o.v, sizeof o.v); return;
          case Option::Kind::String: *pointer<char*>() = const_cast<char*>(o.s); return;
        }
        return;
      case As::Int32:
        if (o.kind == Option::Kind::String) throw wrong("an int32_t");
        if (o.kind == Option::Kind::Int3) {
          std::memcpy(pointer<std::int32_t>(), o.v, sizeof o.v);
        } else {
          *pointer<std::int32_t>() = o.i;
        }
        return;
      case As::Char:
        if (o.kind != Option::Kind::String) throw wrong("a string");
        *pointer<char*>() = const_cast<char*>(o.s);
        return;
      case As::FP64: throw wrong("a double");
      case As::Int64: throw wrong("an int64_t");
      case As::Function: throw wrong("a function pointer");
    }
  }
};

// What a set writes: the variadic form's one value argument, or the typed forms' value. Every field snack
// accepts a value for takes an int (bool and enum values arrive as int through `...`).
struct Source {
  enum class As { Variadic, Int32, FP64, FP64Array, Int64Array, Function } as;
  va_list* ap = nullptr;
  std::int32_t i = 0;

  std::int32_t int32(const std::string& field) const {
    switch (as) {
      case As::Variadic: return va_arg(*ap, int);
      case As::Int32: return i;
      case As::FP64: break;
      case As::FP64Array: case As::Int64Array: case As::Function:
        throw Error(Info::InvalidValue, field + " takes an int32_t, not an array or a function pointer");
    }
    throw Error(Info::InvalidValue, field + " takes an int32_t, not a double");
  }
};

// ---- the fields, by object kind ----------------------------------------------------------------------------
// `what`: "a global option", "an option of a GrB_Matrix", ...
[[noreturn]] void not_supported(int f, const char* what) {
  const std::string reason = unsupported_reason(f);
  if (reason.empty()) throw Error(Info::InvalidValue, option_name(f) + " is not " + what);
  throw Error(Info::InvalidValue, option_name(f) + " is not supported by snack (" + reason + ")");
}
[[noreturn]] void read_only(int f) { throw Error(Info::InvalidValue, option_name(f) + " is read only"); }

[[noreturn]] void by_rows_only(std::int32_t format) {
  if (format == GxB_BY_COL) {
    throw Error(Info::InvalidValue, "GxB_FORMAT cannot be GxB_BY_COL: snack stores matrices by rows only "
                                    "(GxB_BY_ROW)");
  }
  throw Error(Info::InvalidValue, "GxB_FORMAT must be GxB_BY_ROW (snack stores matrices by rows only), not " +
                                      std::to_string(format));
}
void check_format(std::int32_t format) {
  if (format != GxB_BY_ROW) by_rows_only(format);
}

// "Dec 2, 2025" from __DATE__ ("Dec  2 2025").
const char* build_date() {
  static const std::string date = [] {
    const std::string d = __DATE__;
    const std::string day = d.substr(4, 2);
    return d.substr(0, 4) + (day[0] == ' ' ? day.substr(1) : day) + "," + d.substr(6);
  }();
  return date.c_str();
}

#if defined(__clang__)
#define SNK_COMPILER_NAME "clang " __clang_version__
#define SNK_COMPILER_VERSION __clang_major__, __clang_minor__, __clang_patchlevel__
#elif defined(__GNUC__)
#define SNK_COMPILER_NAME "GNU C++ " __VERSION__
#define SNK_COMPILER_VERSION __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__
#endif

bool matrix_only(int f) {
  return f == GxB_SPARSITY_STATUS || f == GxB_IS_HYPER || f == GxB_SPARSITY_CONTROL;
}

Option read_global(int f) {
  switch (f) {
    case GxB_FORMAT: return int_option(Option::Kind::Format, GxB_BY_ROW);
    case GxB_MODE: return int_option(Option::Kind::Mode, mode());
    case GxB_BURBLE: return int_option(Option::Kind::Bool, 0);
    case GxB_LIBRARY_NAME: return string_option("snack");
    case GxB_LIBRARY_VERSION: return int3_option(SNK_VERSION_MAJOR, SNK_VERSION_MINOR, SNK_VERSION_PATCH);
    case GxB_LIBRARY_DATE: return string_option(build_date());
    case GxB_LIBRARY_ABOUT:
      return string_option("snack: the GraphBLAS C API 2.1 over backends chosen at run time (SNK_Backend_list)");
    case GxB_LIBRARY_COMPILE_DATE: return string_option(__DATE__);
    case GxB_LIBRARY_COMPILE_TIME: return string_option(__TIME__);
    case GxB_API_VERSION: return int3_option(GRB_VERSION, GRB_SUBVERSION, 0);
    case GxB_API_DATE: return string_option("Dec 22, 2023");
    case GxB_API_ABOUT: return string_option("The GraphBLAS C API Specification, version 2.1.0");
    case GxB_API_URL: return string_option("https://graphblas.org");
#ifdef SNK_COMPILER_NAME
    case GxB_COMPILER_NAME: return string_option(SNK_COMPILER_NAME);
    case GxB_COMPILER_VERSION: return int3_option(SNK_COMPILER_VERSION);
#endif
  }
  if (matrix_only(f)) {
    throw Error(Info::InvalidValue, option_name(f) + " is an option of a matrix or vector, not a global one");
  }
  not_supported(f, "a global option");
}

void write_global(int f, const Source& in) {
  const std::string name = option_name(f);
  switch (f) {
    case GxB_FORMAT: check_format(in.int32(name)); return;
    case GxB_BURBLE:
      if (in.int32(name) != 0) {
        throw Error(Info::InvalidValue, "GxB_BURBLE cannot be turned on: snack has no diagnostic output");
      }
      return;
    case GxB_MODE: case GxB_LIBRARY_NAME: case GxB_LIBRARY_VERSION: case GxB_LIBRARY_DATE: case GxB_LIBRARY_ABOUT:
    case GxB_LIBRARY_COMPILE_DATE: case GxB_LIBRARY_COMPILE_TIME: case GxB_API_VERSION: case GxB_API_DATE:
    case GxB_API_ABOUT: case GxB_API_URL: case GxB_COMPILER_NAME: case GxB_COMPILER_VERSION:
      read_only(f);
  }
  if (matrix_only(f)) {
    throw Error(Info::InvalidValue, name + " is an option of a matrix or vector, not a global one");
  }
  not_supported(f, "a global option");
}

// Matrices and vectors. A vector is one row, which snack's size rule never makes hypersparse.
constexpr std::int32_t kMatrixForms = GxB_HYPERSPARSE + GxB_SPARSE;
constexpr std::int32_t kVectorForms = GxB_SPARSE;

Option read_container(const snk::Matrix& m, std::int32_t forms, const char* what, int f) {
  switch (f) {
    case GxB_FORMAT: return int_option(Option::Kind::Format, GxB_BY_ROW);
    case GxB_SPARSITY_STATUS: return int_option(Option::Kind::Int, m.csr().hyper ? GxB_HYPERSPARSE : GxB_SPARSE);
    case GxB_IS_HYPER: return int_option(Option::Kind::Bool, m.csr().hyper ? 1 : 0);
    case GxB_SPARSITY_CONTROL: return int_option(Option::Kind::Int, forms);
  }
  not_supported(f, what);
}

void write_container(std::int32_t forms, const char* what, int f, const Source& in) {
  const std::string name = option_name(f);
  switch (f) {
    case GxB_FORMAT: check_format(in.int32(name)); return;
    case GxB_SPARSITY_CONTROL: {
      const std::int32_t control = in.int32(name);
      const std::int32_t bits = control & GxB_ANY_SPARSITY;
      const std::int32_t allowed = bits == 0 ? GxB_AUTO_SPARSITY : bits;
      if ((allowed & forms) != forms) {
        throw Error(Info::InvalidValue,
                    "GxB_SPARSITY_CONTROL " + std::to_string(control) + " does not allow " +
                        (forms == kMatrixForms ? "GxB_HYPERSPARSE + GxB_SPARSE, the forms snack chooses between "
                                                 "for a matrix"
                                               : "GxB_SPARSE, the form snack gives every vector") +
                        " (it has no bitmap or full form)");
      }
      return;   // the control allows what snack does
    }
    case GxB_SPARSITY_STATUS: case GxB_IS_HYPER: read_only(f);
  }
  not_supported(f, what);
}

constexpr const char* kMatrixOption = "an option of a GrB_Matrix";
constexpr const char* kVectorOption = "an option of a GrB_Vector";
Option read(GrB_Matrix A, int f) { return read_container(*A->matrix, kMatrixForms, kMatrixOption, f); }
Option read(GrB_Vector v, int f) { return read_container(v->vector->as_matrix(), kVectorForms, kVectorOption, f); }
void write(GrB_Matrix, int f, const Source& in) { write_container(kMatrixForms, kMatrixOption, f, in); }
void write(GrB_Vector, int f, const Source& in) { write_container(kVectorForms, kVectorOption, f, in); }

// Descriptors: the spec's four fields, with GrB_Descriptor_set's values and meaning.
[[noreturn]] void desc_not_supported(int f) {
  const bool gxb = f == GxB_NTHREADS || f == GxB_CHUNK || f == GxB_GPU_CONTROL || f == GxB_GPU_CHUNK ||
                   f == GxB_AxB_METHOD || f == GxB_SORT || f == GxB_COMPRESSION || f == GxB_IMPORT;
  throw Error(Info::InvalidValue, desc_field_name(f) + (gxb ? " is not supported by snack (snack's descriptors "
                                                              "hold only GrB_OUTP, GrB_MASK, GrB_INP0, GrB_INP1)"
                                                            : " is not a descriptor field"));
}

Option read_desc(const snk::Descriptor& d, int f) {
  switch (f) {
    case GrB_OUTP: return int_option(Option::Kind::Int, d.replace ? GrB_REPLACE : GrB_DEFAULT);
    case GrB_MASK:
      return int_option(Option::Kind::Int, d.mask_complement && d.mask_structure ? GrB_COMP_STRUCTURE
                                           : d.mask_complement                   ? GrB_COMP
                                           : d.mask_structure                    ? GrB_STRUCTURE
                                                                                 : GrB_DEFAULT);
    case GrB_INP0: return int_option(Option::Kind::Int, d.transpose_first ? GrB_TRAN : GrB_DEFAULT);
    case GrB_INP1: return int_option(Option::Kind::Int, d.transpose_second ? GrB_TRAN : GrB_DEFAULT);
  }
  desc_not_supported(f);
}

void write_desc(GrB_Descriptor desc, int f, const Source& in) {
  if (f != GrB_OUTP && f != GrB_MASK && f != GrB_INP0 && f != GrB_INP1) desc_not_supported(f);
  if (desc->predefined) throw Error(Info::InvalidValue, "a predefined descriptor cannot be modified");
  const std::int32_t value = in.int32(desc_field_name(f));
  desc->desc = with_descriptor_field(desc->desc, static_cast<GrB_Desc_Field>(f), value, desc_field_name(f));
}

// ---- the calls ---------------------------------------------------------------------------------------------
GrB_Info global_get(const char* where, GxB_Option_Field field, const Dest& out) {
  return call(where, nullptr, [&] {
    const int f = static_cast<int>(field);
    out.put(read_global(f), option_name(f));
  });
}
GrB_Info global_set(const char* where, GxB_Option_Field field, const Source& in) {
  return call(where, nullptr, [&] { write_global(static_cast<int>(field), in); });
}

template <class H>
GrB_Info container_get(const char* where, H obj, Kind k, GxB_Option_Field field, const Dest& out) {
  return call(where, obj, [&] {
    check_handle(obj, k, "obj");
    const int f = static_cast<int>(field);
    out.put(read(obj, f), option_name(f));
  });
}
template <class H>
GrB_Info container_set(const char* where, H obj, Kind k, GxB_Option_Field field, const Source& in) {
  return call(where, obj, [&] {
    check_handle(obj, k, "obj");
    write(obj, static_cast<int>(field), in);
  });
}

GrB_Info desc_get(const char* where, GrB_Descriptor desc, GrB_Desc_Field field, const Dest& out) {
  return call(where, desc, [&] {
    const int f = static_cast<int>(field);
    const snk::Descriptor d = descriptor_of(desc);   // NULL: the defaults
    out.put(read_desc(d, f), desc_field_name(f));
  });
}
GrB_Info desc_set(const char* where, GrB_Descriptor desc, GrB_Desc_Field field, const Source& in) {
  return call(where, desc, [&] {
    check_handle(desc, Kind::Descriptor, "desc");
    write_desc(desc, static_cast<int>(field), in);
  });
}

Dest typed(Dest::As as, void* p) { return Dest{as, nullptr, p}; }
Source typed(Source::As as, std::int32_t i = 0) { return Source{as, nullptr, i}; }

}  // namespace

extern "C" {

GrB_Info GxB_Global_Option_set(int field, ...) {
  va_list ap;
  va_start(ap, field);
  const GrB_Info info =
      global_set("GxB_Global_Option_set", static_cast<GxB_Option_Field>(field), Source{Source::As::Variadic, &ap});
  va_end(ap);
  return info;
}
GrB_Info GxB_Global_Option_set_INT32(GxB_Option_Field field, int32_t value) {
  return global_set("GxB_Global_Option_set_INT32", field, typed(Source::As::Int32, value));
}
GrB_Info GxB_Global_Option_set_FP64(GxB_Option_Field field, double) {
  return global_set("GxB_Global_Option_set_FP64", field, typed(Source::As::FP64));
}
GrB_Info GxB_Global_Option_set_FP64_ARRAY(GxB_Option_Field field, double*) {
  return global_set("GxB_Global_Option_set_FP64_ARRAY", field, typed(Source::As::FP64Array));
}
GrB_Info GxB_Global_Option_set_INT64_ARRAY(GxB_Option_Field field, int64_t*) {
  return global_set("GxB_Global_Option_set_INT64_ARRAY", field, typed(Source::As::Int64Array));
}
GrB_Info GxB_Global_Option_set_FUNCTION(GxB_Option_Field field, void*) {
  return global_set("GxB_Global_Option_set_FUNCTION", field, typed(Source::As::Function));
}

GrB_Info GxB_Global_Option_get(int field, ...) {
  va_list ap;
  va_start(ap, field);
  const GrB_Info info =
      global_get("GxB_Global_Option_get", static_cast<GxB_Option_Field>(field), Dest{Dest::As::Variadic, &ap});
  va_end(ap);
  return info;
}
GrB_Info GxB_Global_Option_get_INT32(GxB_Option_Field field, int32_t* value) {
  return global_get("GxB_Global_Option_get_INT32", field, typed(Dest::As::Int32, value));
}
GrB_Info GxB_Global_Option_get_FP64(GxB_Option_Field field, double* value) {
  return global_get("GxB_Global_Option_get_FP64", field, typed(Dest::As::FP64, value));
}
GrB_Info GxB_Global_Option_get_INT64(GxB_Option_Field field, int64_t* value) {
  return global_get("GxB_Global_Option_get_INT64", field, typed(Dest::As::Int64, value));
}
GrB_Info GxB_Global_Option_get_CHAR(GxB_Option_Field field, char** value) {
  return global_get("GxB_Global_Option_get_CHAR", field, typed(Dest::As::Char, value));
}
GrB_Info GxB_Global_Option_get_FUNCTION(GxB_Option_Field field, void** value) {
  return global_get("GxB_Global_Option_get_FUNCTION", field, typed(Dest::As::Function, value));
}

#define SNK_OPTION(Object)                                                                               \
  GrB_Info GxB_##Object##_Option_set(GrB_##Object obj, int field, ...) {                                \
    va_list ap;                                                                                          \
    va_start(ap, field);                                                                                 \
    const GrB_Info info = container_set("GxB_" #Object "_Option_set", obj, Kind::Object,                 \
                                        static_cast<GxB_Option_Field>(field),                            \
                                        Source{Source::As::Variadic, &ap});                              \
    va_end(ap);                                                                                          \
    return info;                                                                                         \
  }                                                                                                      \
  GrB_Info GxB_##Object##_Option_set_INT32(GrB_##Object obj, GxB_Option_Field field, int32_t value) {   \
    return container_set("GxB_" #Object "_Option_set_INT32", obj, Kind::Object, field,                   \
                         typed(Source::As::Int32, value));                                               \
  }                                                                                                      \
  GrB_Info GxB_##Object##_Option_set_FP64(GrB_##Object obj, GxB_Option_Field field, double) {           \
    return container_set("GxB_" #Object "_Option_set_FP64", obj, Kind::Object, field,                    \
                         typed(Source::As::FP64));                                                       \
  }                                                                                                      \
  GrB_Info GxB_##Object##_Option_get(GrB_##Object obj, int field, ...) {                                \
    va_list ap;                                                                                          \
    va_start(ap, field);                                                                                 \
    const GrB_Info info = container_get("GxB_" #Object "_Option_get", obj, Kind::Object,                 \
                                        static_cast<GxB_Option_Field>(field),                            \
                                        Dest{Dest::As::Variadic, &ap});                                  \
    va_end(ap);                                                                                          \
    return info;                                                                                         \
  }                                                                                                      \
  GrB_Info GxB_##Object##_Option_get_INT32(GrB_##Object obj, GxB_Option_Field field, int32_t* value) {  \
    return container_get("GxB_" #Object "_Option_get_INT32", obj, Kind::Object, field,                   \
                         typed(Dest::As::Int32, value));                                                 \
  }                                                                                                      \
  GrB_Info GxB_##Object##_Option_get_FP64(GrB_##Object obj, GxB_Option_Field field, double* value) {    \
    return container_get("GxB_" #Object "_Option_get_FP64", obj, Kind::Object, field,                    \
                         typed(Dest::As::FP64, value));                                                  \
  }
SNK_OPTION(Matrix)
SNK_OPTION(Vector)

GrB_Info GxB_Desc_set(GrB_Descriptor desc, int field, ...) {
  va_list ap;
  va_start(ap, field);
  const GrB_Info info =
      desc_set("GxB_Desc_set", desc, static_cast<GrB_Desc_Field>(field), Source{Source::As::Variadic, &ap});
  va_end(ap);
  return info;
}
GrB_Info GxB_Desc_set_INT32(GrB_Descriptor desc, GrB_Desc_Field field, int32_t value) {
  return desc_set("GxB_Desc_set_INT32", desc, field, typed(Source::As::Int32, value));
}
GrB_Info GxB_Desc_set_FP64(GrB_Descriptor desc, GrB_Desc_Field field, double) {
  return desc_set("GxB_Desc_set_FP64", desc, field, typed(Source::As::FP64));
}
GrB_Info GxB_Desc_get(GrB_Descriptor desc, int field, ...) {
  va_list ap;
  va_start(ap, field);
  const GrB_Info info =
      desc_get("GxB_Desc_get", desc, static_cast<GrB_Desc_Field>(field), Dest{Dest::As::Variadic, &ap});
  va_end(ap);
  return info;
}
GrB_Info GxB_Desc_get_INT32(GrB_Descriptor desc, GrB_Desc_Field field, int32_t* value) {
  return desc_get("GxB_Desc_get_INT32", desc, field, typed(Dest::As::Int32, value));
}
GrB_Info GxB_Desc_get_FP64(GrB_Descriptor desc, GrB_Desc_Field field, double* value) {
  return desc_get("GxB_Desc_get_FP64", desc, field, typed(Dest::As::FP64, value));
}
GrB_Info GxB_Descriptor_get(GrB_Desc_Value* value, GrB_Descriptor desc, GrB_Desc_Field field) {
  return call("GxB_Descriptor_get", desc, [&] {
    const int f = static_cast<int>(field);
    const Option o = read_desc(descriptor_of(desc), f);
    check_pointer(value, "value");
    *value = static_cast<GrB_Desc_Value>(o.i);
  });
}

}  // extern "C"
