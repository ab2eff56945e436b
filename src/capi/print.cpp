// src/capi/print.cpp: GxB_<Object>_fprint (and through them the polymorphic GxB_print / GxB_fprint of
// GraphBLAS.h): a readable description of any object, for people to read, not for programs to parse.
//
// One line describes the object (its kind, name, type or domains, dimensions, number of entries); at
// GxB_SHORT the first 30 entries follow (a matrix's in row order), at GxB_COMPLETE all of them; the
// _VERBOSE levels print floating-point values with all their digits. The text is built first and written
// with one fwrite, so that a failing call writes nothing; the object is checked as by every other call.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "capi/capi.hpp"

using namespace snk::capi;
using snk::Error;
using snk::Info;
using snk::TypeCode;

namespace {

constexpr snk::Index kShortEntries = 30;

struct Detail {
  int level;        // GxB_Print_Level, clamped to 0 .. 5
  bool verbose;     // all digits of floating-point values
  snk::Index max_entries;   // entries listed
};

Detail detail_of(GxB_Print_Level pr) {
  const int p = static_cast<int>(pr);
  Detail d;
  d.level = p < GxB_SILENT ? GxB_SILENT : p > GxB_COMPLETE_VERBOSE ? GxB_COMPLETE : p;
  d.verbose = d.level == GxB_SHORT_VERBOSE || d.level == GxB_COMPLETE_VERBOSE;
  d.max_entries = d.level == GxB_SHORT || d.level == GxB_SHORT_VERBOSE ? kShortEntries
                  : d.level >= GxB_COMPLETE                            ? ~snk::Index(0)
                                                                       : 0;
  return d;
}

template <class... A>
std::string format(const char* fmt, A... args) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// One value of type t at x.
std::string value_text(const snk::Type* t, const unsigned char* x, bool verbose) {
  const auto get = [&](auto v) {
    std::memcpy(&v, x, sizeof v);
    return v;
  };
  switch (t->code) {
    case TypeCode::Bool: return get(std::uint8_t{}) != 0 ? "true" : "false";
    case TypeCode::Int8: return format("%" PRId8, get(std::int8_t{}));
    case TypeCode::Int16: return format("%" PRId16, get(std::int16_t{}));
    case TypeCode::Int32: return format("%" PRId32, get(std::int32_t{}));
    case TypeCode::Int64: return format("%" PRId64, get(std::int64_t{}));
    case TypeCode::UInt8: return format("%" PRIu8, get(std::uint8_t{}));
    case TypeCode::UInt16: return format("%" PRIu16, get(std::uint16_t{}));
    case TypeCode::UInt32: return format("%" PRIu32, get(std::uint32_t{}));
    case TypeCode::UInt64: return format("%" PRIu64, get(std::uint64_t{}));
    case TypeCode::FP32: return format(verbose ? "%.9g" : "%g", static_cast<double>(get(0.0f)));
    case TypeCode::FP64: return format(verbose ? "%.17g" : "%g", get(0.0));
    case TypeCode::UDT: break;
  }
  // A user-defined value: its first 16 bytes in hexadecimal.
  std::string s = "<";
  const std::size_t n = t->size < 16 ? t->size : 16;
  for (std::size_t k = 0; k < n; ++k) s += format(k == 0 ? "%02x" : " %02x", static_cast<unsigned>(x[k]));
  return s + (t->size > n ? " ...>" : ">");
}

// "double", or for a user type "\"name\" (user-defined, 24 bytes)" / "user-defined type of 24 bytes".
std::string type_text(const snk::Type* t) {
  if (t->builtin()) return type_string(t);
  const std::string name = type_string(t);
  const std::string bytes = std::to_string(t->size) + " bytes";
  return name.empty() ? "user-defined type of " + bytes : "\"" + name + "\" (user-defined, " + bytes + ")";
}

std::string domain_text(const snk::Type* t) { return t == nullptr ? std::string("any type") : type_text(t); }

std::string title(const char* name) {
  return name == nullptr || *name == '\0' ? std::string() : std::string(name) + ": ";
}

// `, GrB_NAME "x"` for a collection or descriptor the user named.
std::string user_name_text(const ObjectHeader* h) {
  return h->predefined || h->name.empty() ? std::string() : ", GrB_NAME \"" + h->name + "\"";
}

// The name of a builtin or named user algebra object, or `"name" (user-defined)` / `(user-defined)`.
std::string algebra_name(const void* h, Kind k) {
  const std::string name = name_of(h, k);
  if (static_cast<const ObjectHeader*>(h)->predefined) return name;
  return name.empty() ? "(user-defined)" : "\"" + name + "\" (user-defined)";
}

// Operators inside monoids and semirings are the core's objects: builtin ones carry their C name.
std::string core_name(const std::string& name, const char* user) {
  return name.compare(0, 4, "GrB_") == 0 ? name : std::string(user);
}

std::string entries_text(snk::Index n) { return std::to_string(n) + (n == 1 ? " entry" : " entries"); }

// The listed entries of row 0 .. of m (vector: column indices only), at most d.max_entries.
std::string entries(const snk::Matrix& m, bool vector, const Detail& d) {
  std::string s;
  if (d.max_entries == 0) return s;
  const snk::CsrStorage& c = m.csr();
  const std::size_t size = m.type()->size;
  snk::Index listed = 0;
  for (snk::Index k = 0; k < c.nslots() && listed < d.max_entries; ++k) {
    const snk::Index row = c.hyper ? c.h[k] : k;
    for (snk::Index e = c.p[k]; e < c.p[k + 1] && listed < d.max_entries; ++e, ++listed) {
      const std::string value = value_text(m.type(), c.x.data() + e * size, d.verbose);
      s += vector ? format("  (%" PRIu64 ")   ", c.j[e]) : format("  (%" PRIu64 ",%" PRIu64 ")   ", row, c.j[e]);
      s += value + "\n";
    }
  }
  if (listed < c.nvals()) s += "  ... " + entries_text(c.nvals() - listed) + " more\n";
  return s;
}

std::string monoid_text(const snk::Monoid& m, const Detail& d) {
  std::string s = "operator " + core_name(m.op->name, "(user-defined)") + ", identity " +
                  value_text(m.type(), m.identity.data(), d.verbose);
  if (m.has_terminal) s += ", terminal " + value_text(m.type(), m.terminal.data(), d.verbose);
  return s;
}

const char* desc_value(int v) {
  switch (v) {
    case GrB_REPLACE: return "GrB_REPLACE";
    case GrB_COMP: return "GrB_COMP";
    case GrB_TRAN: return "GrB_TRAN";
    case GrB_STRUCTURE: return "GrB_STRUCTURE";
    case GrB_COMP_STRUCTURE: return "GrB_COMP_STRUCTURE";
  }
  return "GrB_DEFAULT";
}

// Writes `text` (built only when the level prints anything) to f, or stdout.
template <class Build>
GrB_Info print(const char* where, const void* object, Kind k, GxB_Print_Level pr, FILE* f, Build&& build) {
  return call(where, object, [&] {
    check_handle(object, k, "object");
    const Detail d = detail_of(pr);
    const std::string text = build(d);   // runs at every level: it also checks that the object can be read
    if (d.level == GxB_SILENT) return;
    FILE* out = f != nullptr ? f : stdout;
    if (std::fwrite(text.data(), 1, text.size(), out) != text.size()) {
      throw Error(Info::InvalidValue, "writing the description failed");
    }
  });
}

}  // namespace

extern "C" {

GrB_Info GxB_Type_fprint(GrB_Type type, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_Type_fprint", type, Kind::Type, pr, f, [&](const Detail&) {
    const snk::Type* t = type->type;
    const std::string kind = title(name) + "GrB_Type ";
    if (t->builtin()) {
      return kind + name_of(type, Kind::Type) + ": C type " + type_string(t) + ", " + std::to_string(t->size) +
             " bytes\n";
    }
    return kind + algebra_name(type, Kind::Type) + ": " + std::to_string(t->size) + " bytes\n";
  });
}

GrB_Info GxB_UnaryOp_fprint(GrB_UnaryOp op, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_UnaryOp_fprint", op, Kind::UnaryOp, pr, f, [&](const Detail&) {
    const snk::UnaryOp* o = op->resolve();
    return title(name) + "GrB_UnaryOp " + algebra_name(op, Kind::UnaryOp) + ": z = f(x), z " +
           domain_text(o->ztype) + ", x " + domain_text(o->xtype) + "\n";
  });
}

GrB_Info GxB_BinaryOp_fprint(GrB_BinaryOp op, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_BinaryOp_fprint", op, Kind::BinaryOp, pr, f, [&](const Detail&) {
    const snk::BinaryOp* o = op->resolve();
    return title(name) + "GrB_BinaryOp " + algebra_name(op, Kind::BinaryOp) + ": z = f(x, y), z " +
           domain_text(o->ztype) + ", x " + domain_text(o->xtype) + ", y " + domain_text(o->ytype) + "\n";
  });
}

GrB_Info GxB_IndexUnaryOp_fprint(GrB_IndexUnaryOp op, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_IndexUnaryOp_fprint", op, Kind::IndexUnaryOp, pr, f, [&](const Detail&) {
    const snk::IndexUnaryOp* o = op->resolve();
    return title(name) + "GrB_IndexUnaryOp " + algebra_name(op, Kind::IndexUnaryOp) + ": z = f(x, i, j, y), z " +
           domain_text(o->ztype) + ", x " + domain_text(o->positional() ? nullptr : o->xtype) + ", y " +
           domain_text(o->ytype) + "\n";
  });
}

GrB_Info GxB_Monoid_fprint(GrB_Monoid monoid, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_Monoid_fprint", monoid, Kind::Monoid, pr, f, [&](const Detail& d) {
    const snk::Monoid* m = monoid->resolve();
    return title(name) + "GrB_Monoid " + algebra_name(monoid, Kind::Monoid) + ": type " + type_text(m->type()) +
           ", " + monoid_text(*m, d) + "\n";
  });
}

GrB_Info GxB_Semiring_fprint(GrB_Semiring semiring, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_Semiring_fprint", semiring, Kind::Semiring, pr, f, [&](const Detail& d) {
    const snk::Semiring* s = semiring->resolve();
    const snk::BinaryOp* mul = s->multiply;
    return title(name) + "GrB_Semiring " + algebra_name(semiring, Kind::Semiring) + ": add monoid " +
           core_name(s->add->name, "(user-defined)") + " (" + monoid_text(*s->add, d) + "), multiply " +
           core_name(mul->name, "(user-defined)") + ", z = f(x, y), z " + domain_text(mul->ztype) + ", x " +
           domain_text(mul->xtype) + ", y " + domain_text(mul->ytype) + "\n";
  });
}

GrB_Info GxB_Descriptor_fprint(GrB_Descriptor desc, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_Descriptor_fprint", desc, Kind::Descriptor, pr, f, [&](const Detail&) {
    const snk::Descriptor& s = desc->desc;
    const int mask = s.mask_complement && s.mask_structure ? GrB_COMP_STRUCTURE
                     : s.mask_complement                   ? GrB_COMP
                     : s.mask_structure                    ? GrB_STRUCTURE
                                                           : GrB_DEFAULT;
    const std::string label = desc->predefined ? " " + name_of(desc, Kind::Descriptor) : std::string();
    return title(name) + "GrB_Descriptor" + label + ": outp " + desc_value(s.replace ? GrB_REPLACE : GrB_DEFAULT) +
           ", mask " + desc_value(mask) + ", inp0 " + desc_value(s.transpose_first ? GrB_TRAN : GrB_DEFAULT) +
           ", inp1 " + desc_value(s.transpose_second ? GrB_TRAN : GrB_DEFAULT) + user_name_text(desc) + "\n";
  });
}

GrB_Info GxB_Scalar_fprint(GrB_Scalar s, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_Scalar_fprint", s, Kind::Scalar, pr, f, [&](const Detail& d) {
    const snk::Scalar& sc = *s->scalar;
    std::string text = title(name) + "GrB_Scalar, type " + type_text(sc.type()) + ", " + entries_text(sc.nvals()) +
                       user_name_text(s) + "\n";
    if (d.max_entries > 0 && sc.has_value()) {
      text += "  value: " + value_text(sc.type(), static_cast<const unsigned char*>(sc.data()), d.verbose) + "\n";
    }
    return text;
  });
}

GrB_Info GxB_Vector_fprint(GrB_Vector v, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_Vector_fprint", v, Kind::Vector, pr, f, [&](const Detail& d) {
    const snk::Vector& vec = *v->vector;
    return title(name) + "GrB_Vector of size " + std::to_string(vec.size()) + ", type " + type_text(vec.type()) +
           ", " + entries_text(vec.nvals()) + user_name_text(v) + "\n" + entries(vec.as_matrix(), true, d);
  });
}

GrB_Info GxB_Matrix_fprint(GrB_Matrix A, const char* name, GxB_Print_Level pr, FILE* f) {
  return print("GxB_Matrix_fprint", A, Kind::Matrix, pr, f, [&](const Detail& d) {
    const snk::Matrix& m = *A->matrix;
    return title(name) + "GrB_Matrix " + std::to_string(m.nrows()) + " x " + std::to_string(m.ncols()) +
           ", type " + type_text(m.type()) + ", " + entries_text(m.nvals()) + ", stored by row" +
           user_name_text(A) + "\n" + entries(m, false, d);
  });
}

}  // extern "C"
