"""snack._lib: the C interface of the sparse layers (layers/c_api.h) through ctypes.

Binding choice: a C ABI loaded with ctypes needs no compiler at install time and no build against a particular
PyTorch, so one shared library serves Debian's python3-torch 1.13 and PyTorch 2.x alike. CUDA tensors are passed as
device pointers with PyTorch's current stream (snk_layer_forward_device and its kin), so their data never passes
through the host; CPU tensors are copied into the library per call, which the layers' own work dwarfs. The library is found through $SNACK_LAYERS_LIB
(a path to libsnack_layers_c.so), else by the loader's search (ctypes.util.find_library).
"""
import ctypes
import ctypes.util
import os

c_int64_p = ctypes.POINTER(ctypes.c_int64)
c_double_p = ctypes.POINTER(ctypes.c_double)

FP32, FP64 = 0, 1
ROWS, FEATURES = 0, 1
PRUNE_MAGNITUDE, PRUNE_VALUE = 0, 1

# GrB_Info codes the library returns, by name (the C API's values).
_INFO = {1: "GrB_NO_VALUE", -1: "GrB_UNINITIALIZED_OBJECT", -2: "GrB_NULL_POINTER", -3: "GrB_INVALID_VALUE",
         -4: "GrB_INVALID_INDEX", -5: "GrB_DOMAIN_MISMATCH", -6: "GrB_DIMENSION_MISMATCH",
         -7: "GrB_OUTPUT_NOT_EMPTY", -8: "GrB_NOT_IMPLEMENTED", -101: "GrB_PANIC", -102: "GrB_OUT_OF_MEMORY",
         -103: "GrB_INSUFFICIENT_SPACE", -104: "GrB_INVALID_OBJECT", -105: "GrB_INDEX_OUT_OF_BOUNDS",
         -106: "GrB_EMPTY_OBJECT"}


class SnackError(RuntimeError):
    """A call of the library failed: `info` is its GrB_Info code, the message says why."""

    def __init__(self, info, message):
        super().__init__(f"{_INFO.get(info, info)}: {message}")
        self.info = info


def _load():
    path = os.environ.get("SNACK_LAYERS_LIB") or ctypes.util.find_library("snack_layers_c")
    if not path:
        raise ImportError("snack: libsnack_layers_c.so not found; set SNACK_LAYERS_LIB to its path")
    lib = ctypes.CDLL(path)
    vp, i64, i32, u64, dbl = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_uint64, ctypes.c_double
    sigs = {
        "snk_layer_error": (ctypes.c_char_p, []),
        "snk_layer_backend": (i32, [ctypes.c_char_p]),
        "snk_layer_new": (i32, [ctypes.POINTER(vp), i64, i64, dbl, u64, i32, i32]),
        "snk_layer_free": (None, [vp]),
        "snk_layer_nnz": (i64, [vp]),
        "snk_layer_pattern": (i32, [vp, c_int64_p, c_int64_p]),
        "snk_layer_set_pattern": (i32, [vp, i64, c_int64_p, c_int64_p]),
        "snk_layer_erk": (i32, [i64, c_int64_p, c_int64_p, dbl, c_double_p]),
        "snk_layer_values": (i32, [vp, vp, vp]),
        "snk_layer_forward": (i32, [vp, vp, vp, vp, i64, vp]),
        "snk_layer_backward": (i32, [vp, vp, vp, vp, i64, vp, vp, vp]),
        "snk_layer_forward_device": (i32, [vp, vp, vp, vp, i32, i64, vp, i32, vp]),
        "snk_layer_backward_device": (i32, [vp, vp, vp, i32, vp, i32, i64, vp, i32, vp, vp, vp]),
        "snk_layer_rewire": (i32, [vp, vp, dbl, i32, u64, c_int64_p, c_int64_p, c_int64_p]),
        "snk_layer_rewire_rigl": (i32, [vp, vp, dbl, vp, vp, i64, i64, c_int64_p, c_int64_p, c_int64_p]),
        "snk_layer_cosine_fraction": (dbl, [dbl, i64, i64, dbl]),
        "snk_layer_rewire_due": (i32, [i64, i64, i64, dbl]),
        "snk_layer_rewiring_count": (i64, [dbl, i64]),
        "snk_layer_transfers": (None, [ctypes.POINTER(u64)] * 4),
        "snk_layer_transfers_reset": (None, []),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


lib = _load()


def check(info):
    """Raises SnackError for a failed call's code."""
    if info != 0:
        raise SnackError(info, lib.snk_layer_error().decode())


def set_backend(name):
    """The calling thread's backend for the layers: "reference", "kokkos" or "cuda"."""
    check(lib.snk_layer_backend(name.encode()))


def transfers():
    """Host <-> device traffic of the library's GPU backend since the start or the last reset_transfers(): a dict of
    uploads, downloads, upload_bytes and download_bytes. The layers' calls on CUDA tensors make none once a layer's
    plans are made (its first calls, and the first after its pattern changes, upload them)."""
    counts = [ctypes.c_uint64() for _ in range(4)]
    lib.snk_layer_transfers(*[ctypes.byref(c) for c in counts])
    return dict(zip(("uploads", "downloads", "upload_bytes", "download_bytes"), (c.value for c in counts)))


def reset_transfers():
    """Sets the counts of transfers() to zero."""
    lib.snk_layer_transfers_reset()
