// src/mask/mask_accum.cpp: the mask / accumulator / replace step, C<M, replace> = C (.) T, written once for
// every operation and every backend (C API spec 2.0, "mask and replace"), plus core::mask_value_true.
//
// The spec defines the step position by position:
//   Z(i,j) = accum ? (C(i,j) (.) T(i,j) where both exist, else whichever exists, cast to C's type)
//                  : T(i,j) cast to C's type (none where T has none);
//   mask(i,j) = no mask: true; else M(i,j) exists and (structural or M(i,j) != 0), negated by complement;
//               no mask with complement: false everywhere;
//   C(i,j) = mask(i,j) ? Z(i,j) (or no entry)  :  (replace ? no entry : old C(i,j)).
// It is computed here as one merge, row by row, of C, T and M in their (hyper)CSR forms: only rows where C or
// T has an entry can hold a result entry, so the walk is over the union of those rows, with M's row found
// by a forward cursor. Cost O(nnz(C) + nnz(T) + nnz(M) + rows), no dense array, any dimension up to 2^60.
// The new C is built aside and adopted at the end, so C changes only when the step succeeds.
//
// Types: T's values are cast to C's type; accum's x comes from C's type and y from T's type (each cast to
// accum's input types) and its z is cast to C's type; the accumulator is applied as accum(C(i,j), T(i,j)),
// in that order (it need not be commutative).
#include <algorithm>
#include <cstring>
#include <string>

#include "containers/csr_form.hpp"
#include "core/internal.hpp"

namespace snk::core {

namespace {

constexpr Index kNoRow = ~Index(0);

// Tells whether one stored mask value counts as true: (value != 0) in its own type, for any type.
class MaskValueTest {
 public:
  explicit MaskValueTest(const Type* type) : size_(type->size) {
    switch (type->code) {
      case TypeCode::Bool:
      case TypeCode::Int8:
      case TypeCode::UInt8: fn_ = &nonzero<std::uint8_t>; break;
      case TypeCode::Int16:
      case TypeCode::UInt16: fn_ = &nonzero<std::uint16_t>; break;
      case TypeCode::Int32:
      case TypeCode::UInt32: fn_ = &nonzero<std::uint32_t>; break;
      case TypeCode::Int64:
      case TypeCode::UInt64: fn_ = &nonzero<std::uint64_t>; break;
      case TypeCode::FP32: fn_ = &nonzero<float>; break;      // -0.0 is false, NaN is true
      case TypeCode::FP64: fn_ = &nonzero<double>; break;
      case TypeCode::UDT: fn_ = nullptr; break;               // any nonzero byte
    }
  }
  bool operator()(const unsigned char* value) const {
    if (fn_) return fn_(value);
    for (std::size_t b = 0; b < size_; ++b)
      if (value[b] != 0) return true;
    return false;
  }

 private:
  template <class V>
  static bool nonzero(const unsigned char* p) {
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v != V(0);
  }
  bool (*fn_)(const unsigned char*) = nullptr;
  std::size_t size_;
};

// The entry ranges of the rows of a CSR form, asked for in increasing row order.
class RowCursor {
 public:
  explicit RowCursor(const CsrStorage& s) : s_(s) {}
  void range(Index i, Index& b, Index& e) {
    b = e = 0;
    if (s_.p.empty()) return;
    if (!s_.hyper) {
      if (i + 1 < s_.p.size()) {
        b = s_.p[i];
        e = s_.p[i + 1];
      }
      return;
    }
    auto it = std::lower_bound(s_.h.begin() + static_cast<std::ptrdiff_t>(slot_), s_.h.end(), i);
    slot_ = static_cast<Index>(it - s_.h.begin());
    if (it != s_.h.end() && *it == i) {
      b = s_.p[slot_];
      e = s_.p[slot_ + 1];
    }
  }

 private:
  const CsrStorage& s_;
  Index slot_ = 0;
};

std::string dims(const Matrix& A) { return std::to_string(A.nrows()) + " x " + std::to_string(A.ncols()); }

}  // namespace

bool mask_value_true(const Matrix& M, Index k) {
  const CsrStorage& s = M.csr();
  return MaskValueTest(M.type())(&s.x[k * M.type()->size]);
}

void apply_mask_accum(Matrix& C, const Matrix* M, bool structural, bool complement, const BinaryOp* accum,
                      Matrix&& T, bool replace) {
  const Type* ctype = C.type();
  SNK_CHECK(T.nrows() == C.nrows() && T.ncols() == C.ncols(), Info::DimensionMismatch,
            "mask/accum: the result T is " + dims(T) + " but the output C is " + dims(C));
  if (M != nullptr) {
    SNK_CHECK(M->nrows() == C.nrows() && M->ncols() == C.ncols(), Info::DimensionMismatch,
              "mask/accum: the mask is " + dims(*M) + " but the output C is " + dims(C));
    SNK_CHECK(structural || M->type()->builtin(), Info::DomainMismatch,
              "mask/accum: a valued mask of the user-defined type " + M->type()->name + " cannot be cast to bool");
  }
  SNK_CHECK(castable(ctype, T.type()), Info::DomainMismatch,
            "mask/accum: the result type " + T.type()->name + " cannot be cast to the output type " + ctype->name);
  if (accum != nullptr) {
    SNK_CHECK(accum->fn != nullptr, Info::UninitializedObject, "mask/accum: the accumulator has no function");
    SNK_CHECK(castable(accum->xtype, ctype) && castable(accum->ytype, T.type()) && castable(ctype, accum->ztype),
              Info::DomainMismatch,
              "mask/accum: the accumulator " + accum->name + " does not fit the output type " + ctype->name +
                  " and the result type " + T.type()->name);
  }

  // T is normally a fresh result; should a caller hand over C itself or the mask as T, take a copy first
  // so that consuming T cannot empty them.
  if (&T == &C || &T == M) {
    Matrix copy(T);
    apply_mask_accum(C, M, structural, complement, accum, std::move(copy), replace);
    return;
  }
  Matrix t(std::move(T));

  // No mask, complemented: the mask is false everywhere.
  if (M == nullptr && complement) {
    if (replace) C.clear();
    return;
  }

  // No mask, no accumulator, no cast: C takes T where it is (a device result stays there).
  if (M == nullptr && accum == nullptr && t.type() == ctype) {
    C.take(std::move(t));
    return;
  }

  // A result that lives on a device: the step runs there where its backend does it.
  CallTrace trace("mask_accum");
  trace.ran_on("host");
  if (!t.host_valid() && t.device_copy() != nullptr) {
    if (t.device_copy()->mask_accum(C, M, structural, complement, accum, t, replace)) {
      trace.ran_on("device");
      return;
    }
    trace.ran_on("host (declined by the device)");
  }

  // No mask, no accumulator: C = T cast to C's type.
  if (M == nullptr && accum == nullptr) {
    CsrStorage s = std::move(t.csr_mutable());
    if (t.type() != ctype) {
      std::vector<unsigned char> x(s.nvals() * ctype->size);
      cast_array(ctype, x.data(), t.type(), s.x.data(), s.nvals());
      s.x = std::move(x);
    }
    C.adopt(std::move(s));
    return;
  }

  const CsrStorage& cs = C.csr();
  const CsrStorage& ts = t.csr();
  const CsrStorage* ms = M != nullptr ? &M->csr() : nullptr;
  const std::size_t ces = ctype->size, tes = t.type()->size, mes = M != nullptr ? M->type()->size : 0;
  const ValueCopier t_to_c(ctype, t.type());
  ValueCopier c_to_x, t_to_y, z_to_c;
  std::vector<unsigned char> xbuf, ybuf, zbuf;
  if (accum != nullptr) {
    c_to_x = ValueCopier(accum->xtype, ctype);
    t_to_y = ValueCopier(accum->ytype, t.type());
    z_to_c = ValueCopier(ctype, accum->ztype);
    xbuf.resize(accum->xtype->size);
    ybuf.resize(accum->ytype->size);
    zbuf.resize(accum->ztype->size);
  }
  const MaskValueTest mask_test(M != nullptr ? M->type() : ctype);

  CsrBuilder out(ces);
  out.reserve(cs.nvals() + ts.nvals());
  RowCursor mask_rows(ms != nullptr ? *ms : cs);
  Index kc = 0, kt = 0;
  const Index ncs = cs.nslots(), nts = ts.nslots();
  while (kc < ncs || kt < nts) {
    const Index rc = kc < ncs ? slot_row(cs, kc) : kNoRow;
    const Index rt = kt < nts ? slot_row(ts, kt) : kNoRow;
    const Index i = std::min(rc, rt);
    Index cb = 0, ce = 0, tb = 0, te = 0, mb = 0, me = 0;
    if (rc == i) {
      cb = cs.p[kc];
      ce = cs.p[kc + 1];
      ++kc;
    }
    if (rt == i) {
      tb = ts.p[kt];
      te = ts.p[kt + 1];
      ++kt;
    }
    if (cb == ce && tb == te) continue;
    if (ms != nullptr) mask_rows.range(i, mb, me);

    Index pc = cb, pt = tb, pm = mb;
    while (pc < ce || pt < te) {
      const Index jc = pc < ce ? cs.j[pc] : kNoRow;
      const Index jt = pt < te ? ts.j[pt] : kNoRow;
      const Index j = std::min(jc, jt);
      const bool has_c = jc == j, has_t = jt == j;
      bool mask_true = true;
      if (ms != nullptr) {
        while (pm < me && ms->j[pm] < j) ++pm;
        mask_true = pm < me && ms->j[pm] == j && (structural || mask_test(&ms->x[pm * mes]));
        if (complement) mask_true = !mask_true;
      }
      if (mask_true) {
        if (accum != nullptr) {
          if (has_c && has_t) {
            c_to_x(xbuf.data(), &cs.x[pc * ces]);
            t_to_y(ybuf.data(), &ts.x[pt * tes]);
            accum->fn(zbuf.data(), xbuf.data(), ybuf.data());
            z_to_c(out.push(i, j), zbuf.data());
          } else if (has_c) {
            std::memcpy(out.push(i, j), &cs.x[pc * ces], ces);
          } else {
            t_to_c(out.push(i, j), &ts.x[pt * tes]);
          }
        } else if (has_t) {
          t_to_c(out.push(i, j), &ts.x[pt * tes]);
        }
      } else if (has_c && !replace) {
        std::memcpy(out.push(i, j), &cs.x[pc * ces], ces);
      }
      if (has_c) ++pc;
      if (has_t) ++pt;
    }
  }
  C.adopt(out.finish(C.nrows()));
}

}  // namespace snk::core
