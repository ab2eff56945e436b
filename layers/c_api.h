/* layers/c_api.h: a C interface to the sparse layers (SparseLinear and its rewiring) for callers in other languages;
 * the Python package `snack` (python/) reaches it through ctypes.
 *
 * The layer owns its pattern (which positions of the out x in weight matrix W hold a weight); the caller owns the
 * values: W's non-zeros in the pattern's order (row by row, columns increasing) and the bias, passed to every call,
 * so that a PyTorch Parameter (and its optimizer's state) can hold them. Dense operands are row-major host arrays of
 * the layer's type (FP32 or FP64): X is batch x in, Y and dY are batch x out. Calls run on the thread's backend
 * (snk_layer_backend). Every call returns a GrB_Info code (0: success); on failure it changes none of its outputs,
 * and snk_layer_error() gives the message, for the calling thread. */
#ifndef SNACK_LAYERS_C_API_H
#define SNACK_LAYERS_C_API_H

#include <stdint.h>

#if defined(SNK_LAYER_C_EXPORTS) && defined(__GNUC__)
#define SNK_LAYER_API __attribute__((visibility("default")))
#else
#define SNK_LAYER_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct snk_layer snk_layer;

enum { SNK_LAYER_FP32 = 0, SNK_LAYER_FP64 = 1 };
/* Which weights a rewiring prunes: the smallest |w| (SET) or the smallest signed values (SNACK's rule). */
enum { SNK_PRUNE_MAGNITUDE = 0, SNK_PRUNE_VALUE = 1 };

/* The message of the calling thread's last failed call ("" before any). */
SNK_LAYER_API const char* snk_layer_error(void);
/* The thread's backend: "reference", "kokkos" or "cuda" (GrB_INVALID_VALUE for another name). */
SNK_LAYER_API int snk_layer_backend(const char* name);

/* A layer of in x out features; each neuron gets max(1, round(density * in)) distinct inputs drawn with `seed`. */
SNK_LAYER_API int snk_layer_new(snk_layer** layer, int64_t in_features, int64_t out_features, double density,
                                uint64_t seed, int bias, int type);
SNK_LAYER_API void snk_layer_free(snk_layer* layer);
/* The non-zero count (0 for a null layer). */
SNK_LAYER_API int64_t snk_layer_nnz(const snk_layer* layer);
/* The pattern: rows[k], cols[k] of the k-th non-zero (arrays of nnz). */
SNK_LAYER_API int snk_layer_pattern(const snk_layer* layer, int64_t* rows, int64_t* cols);
/* Replaces the pattern by the nnz positions rows[k], cols[k] (row by row, columns increasing, in range, no repeats;
 * GrB_INVALID_VALUE / GrB_INVALID_INDEX otherwise, and the pattern stays): a saved layer's, on loading it. */
SNK_LAYER_API int snk_layer_set_pattern(snk_layer* layer, int64_t nnz, const int64_t* rows, const int64_t* cols);
/* ERK densities (layers/dst.hpp: erk_densities) for n layers of shapes in_features[l] x out_features[l] keeping
 * `density` of their weights together, into densities[l]. */
SNK_LAYER_API int snk_layer_erk(int64_t n, const int64_t* in_features, const int64_t* out_features, double density,
                                double* densities);
/* The values the layer was made with: w (nnz) and b (out; ignored without a bias). */
SNK_LAYER_API int snk_layer_values(const snk_layer* layer, void* w, void* b);
/* y = x W^T + b; b null: y = x W^T, the bias left out for the caller to add (in place, with no array of y's size made
 * for it; the layer's bias values and its gradient db are unchanged by this). */
SNK_LAYER_API int snk_layer_forward(snk_layer* layer, const void* w, const void* b, const void* x, int64_t batch,
                                    void* y);
/* From the forward's x and dy: dx = dy W; dw = dY^T x at W's positions (nnz); db = the column sums of dy (out; ignored
 * without a bias). Any of dx, dw, db may be null (not computed into). The layer keeps neither dw nor the batch once the
 * call returns. */
SNK_LAYER_API int snk_layer_backward(snk_layer* layer, const void* w, const void* x, const void* dy, int64_t batch,
                                     void* dx, void* dw, void* db);
/* How a device call's batch operand is laid out, row-major either way: SNK_LAYER_ROWS, batch x features (as above: a
 * contiguous batch x features tensor); SNK_LAYER_FEATURES, features x batch (the transpose: x.t() of a contiguous
 * features x batch tensor). The GPU's products walk the batch along rows, so they read and write SNK_LAYER_FEATURES
 * operands in place and make a transposed copy of an SNK_LAYER_ROWS operand they read; layers that pass activations
 * and gradients to each other as SNK_LAYER_FEATURES make none between them. */
enum { SNK_LAYER_ROWS = 0, SNK_LAYER_FEATURES = 1 };
/* snk_layer_forward and snk_layer_backward on CUDA device memory (PyTorch's CUDA tensors): w, b, x, y, dy, dx, dw and
 * db are device memory of the cuda backend's GPU, x, y, dy and dx laid out as their layout arguments say (w, b, dw and
 * db as above), and `stream` is the caller's cudaStream_t (null: the default stream). The layer reads its inputs after
 * the work queued on `stream` so far, and work queued there afterwards sees the outputs; nothing passes through the
 * host. They run on the cuda backend whatever the thread's backend (GrB_INVALID_VALUE, saying why, where it is not
 * usable, or for a layout that is neither of the two), on the GPU current when it first ran. The products write y and
 * dx where they lie (no array of their size is made beside them), so these calls check every argument before they
 * write anything, and a failure of the device itself past that point (its memory exhausted) may leave y or dx
 * written; the layer's own state is unchanged then too. */
SNK_LAYER_API int snk_layer_forward_device(snk_layer* layer, const void* w, const void* b, const void* x, int x_layout,
                                           int64_t batch, void* y, int y_layout, void* stream);
SNK_LAYER_API int snk_layer_backward_device(snk_layer* layer, const void* w, const void* x, int x_layout,
                                            const void* dy, int dy_layout, int64_t batch, void* dx, int dx_layout,
                                            void* dw, void* db, void* stream);
/* Host <-> device traffic of the library's GPU backend since the start or the last snk_layer_transfers_reset: how many
 * copies each way and their bytes (a layer's pattern and plans, values the host passes, results it reads; GraphBLAS's
 * SNK_Transfers_get). The device calls make none once a layer's plans are made. Any pointer may be null. */
SNK_LAYER_API void snk_layer_transfers(uint64_t* uploads, uint64_t* downloads, uint64_t* upload_bytes,
                                       uint64_t* download_bytes);
SNK_LAYER_API void snk_layer_transfers_reset(void);
/* One prune-and-regrow step (layers/dst.hpp) from the values w: round(zeta * nnz) weights pruned by `rule`, as many
 * grown at random free positions (new weights are zero; fewer only where fewer positions are free, so the count stays
 * nnz unless the layer is nearly dense). old_index, with room for the count before the step: old_index[k], for the
 * first snk_layer_nnz() entries after it, is the index before the step of the new k-th non-zero, or -1 for a grown
 * one; pruned and grown (may be null) receive the counts. A step that prunes no weight (round(zeta * nnz) == 0) leaves
 * the layer as it is, its device copy and plans included. */
SNK_LAYER_API int snk_layer_rewire(snk_layer* layer, const void* w, double zeta, int rule, uint64_t seed,
                                   int64_t* old_index, int64_t* pruned, int64_t* grown);
/* One RigL step (layers/dst.hpp: rigl_rewire): prune as snk_layer_rewire with SNK_PRUNE_MAGNITUDE, grow where
 * |dY^T x| is largest among the free positions, from a batch's input x (batch x in) and output gradient dy (batch x
 * out), the gradient made block_rows rows at a time; old_index, pruned and grown as for snk_layer_rewire. */
SNK_LAYER_API int snk_layer_rewire_rigl(snk_layer* layer, const void* w, double zeta, const void* x, const void* dy,
                                        int64_t batch, int64_t block_rows, int64_t* old_index, int64_t* pruned,
                                        int64_t* grown);
/* RigL's schedule (layers/dst.hpp): the fraction to rewire at `step` of `total_steps` (cosine decay from zeta0, 0 from
 * stop_fraction * total_steps on), and whether `step` is an update step (every `interval`, before that). */
SNK_LAYER_API double snk_layer_cosine_fraction(double zeta0, int64_t step, int64_t total_steps, double stop_fraction);
SNK_LAYER_API int snk_layer_rewire_due(int64_t step, int64_t interval, int64_t total_steps, double stop_fraction);
/* How many weights a rewiring with fraction zeta of a layer of nvals weights prunes (round(zeta * nvals)); -1 for a
 * zeta outside [0, 1] or a negative nvals. 0: the step leaves the layer as it is, so a caller may skip it and what
 * it would pass. */
SNK_LAYER_API int64_t snk_layer_rewiring_count(double zeta, int64_t nvals);

#ifdef __cplusplus
}
#endif

#endif
