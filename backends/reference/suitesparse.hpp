// backends/reference/suitesparse.hpp: the reference backend's private bridge to SuiteSparse:GraphBLAS 7.4.
//
// This is the only header that includes SuiteSparse's GraphBLAS.h (wrapped in extern "C", since that
// header has no guard of its own), and only the reference backend's .cpp files include it: the library's
// own C API exports GrB_ names too (prefixed symbols), and the two declarations must never meet in one
// translation unit of the core. It declares what the kernels need: initialisation, turning a GrB_Info
// into snk::Error, owning handles, the mapping of snack's types and operators to SuiteSparse objects
// (algebra_map.cpp) and the conversion of containers (convert.cpp).
//
// Orientation: snack stores matrices by rows. A SuiteSparse matrix held by column whose CSC arrays are a
// snack matrix's CSR arrays is that matrix's transpose, so "import transposed" and "export transposed" cost
// nothing beyond the copy; the kernels use this for flipped products and for vectors seen as columns.
#pragma once

// SuiteSparse's header, by the full path CMake found (snack's own include/GraphBLAS.h, the library's C API,
// is on the include path too and must not be the one used here).
extern "C" {
#ifdef SNACK_SUITESPARSE_HEADER
#include SNACK_SUITESPARSE_HEADER
#else
#include <GraphBLAS.h>
#endif
}
#if !defined(GxB_IMPLEMENTATION) || defined(SNACK_GRAPHBLAS_H)
#error "the reference backend must be compiled against SuiteSparse:GraphBLAS's GraphBLAS.h"
#endif

#include <memory>
#include <type_traits>

#include "snack/algebra.hpp"
#include "snack/containers.hpp"
#include "snack/error.hpp"

namespace snk::reference {

// GrB_init(GrB_NONBLOCKING) once per process (thread-safe); every entry point calls it first.
void ensure_initialized();

// Throws snk::Error carrying `info` (same numeric codes) and SuiteSparse's message, if any, when
// info is neither GrB_SUCCESS nor GrB_NO_VALUE.
void check(GrB_Info info, const char* what);
void check(GrB_Info info, const char* what, GrB_Matrix object);

// ---- owning handles ---------------------------------------------------------------------------------------
struct MatrixFree { void operator()(GrB_Matrix m) const { GrB_Matrix_free(&m); } };
struct VectorFree { void operator()(GrB_Vector v) const { GrB_Vector_free(&v); } };
struct ScalarFree { void operator()(GrB_Scalar s) const { GrB_Scalar_free(&s); } };
using MatrixHandle = std::unique_ptr<std::remove_pointer_t<GrB_Matrix>, MatrixFree>;
using VectorHandle = std::unique_ptr<std::remove_pointer_t<GrB_Vector>, VectorFree>;
using ScalarHandle = std::unique_ptr<std::remove_pointer_t<GrB_Scalar>, ScalarFree>;

// ---- algebra (algebra_map.cpp) ------------------------------------------------------------------------------
// Builtin types and operators map to SuiteSparse's predefined objects (so that its specialised kernels
// run); user-defined ones, and any builtin combination SuiteSparse lacks, become SuiteSparse user objects
// around the same C function pointer. Objects made here are cached by content (function pointer, domains,
// identity bytes), never by the address of a snack object, so no entry can go stale; they live until the
// process ends. UDTs map to one opaque SuiteSparse type per size (the core has already checked domains).
// nullptr type -> nullptr (the "any type" of positional operators).
GrB_Type grb_type(const Type* type);
GrB_UnaryOp grb_unary_op(const UnaryOp& op);
GrB_BinaryOp grb_binary_op(const BinaryOp& op);
GrB_IndexUnaryOp grb_index_unary_op(const IndexUnaryOp& op);
GrB_Monoid grb_monoid(const Monoid& monoid);
GrB_Semiring grb_semiring(const Semiring& semiring);

// A descriptor with the given input transposes and mask flags (predefined once, shared, never freed).
GrB_Descriptor grb_descriptor(bool transpose_first, bool transpose_second, bool mask_structure,
                              bool mask_complement);

// ---- containers (convert.cpp) -------------------------------------------------------------------------------
// A SuiteSparse copy of A (one O(nvals) copy of A's CSR arrays into buffers SuiteSparse owns). With
// `transposed`, the result is A^T (ncols x nrows), held by column, made from the same arrays. With
// `structure_only`, the values are not copied (the result is iso, for use as a structural mask).
MatrixHandle import_matrix(const Matrix& A, bool transposed = false, bool structure_only = false);
// An empty SuiteSparse matrix, held by row (or by column).
MatrixHandle new_matrix(const Type* type, Index nrows, Index ncols, bool by_column = false);
// Moves M's content into T (which must have M's type; with `transposed`, M is held by column and T gets
// M^T, so T's dimensions are M's swapped). Iso results are expanded, jumbled rows come back sorted, empty
// hypersparse rows are dropped; T.adopt() picks T's final format. M is left empty.
void export_matrix(GrB_Matrix M, bool transposed, Matrix& T);
// Moves a SuiteSparse vector of size n into T, a 1 x n snack matrix.
void export_vector_as_row(GrB_Vector v, Matrix& T);
// A SuiteSparse scalar holding s (empty if s is).
ScalarHandle import_scalar(const Scalar& s);
// Typed calls that SuiteSparse spells once per type (BOOL ... FP64, UDT).
GrB_Info new_monoid(GrB_Monoid* monoid, GrB_BinaryOp op, const Type* type, const void* identity,
                    const void* terminal);
GrB_Info reduce_to_value(void* value, const Type* type, GrB_Monoid monoid, GrB_Matrix A);

}  // namespace snk::reference
