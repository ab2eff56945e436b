"""snack: the project's sparse layers for PyTorch users.

snack.nn.SparseLinear replaces torch.nn.Linear and stores only its non-zeros; snack.nn.sparsify swaps a model's
Linear layers; snack.dst.SET / Snack rewire them during training. The layers run in the project's library
(libsnack_layers_c.so, found through $SNACK_LAYERS_LIB), on the backend that set_backend chooses; transfers() counts the
host <-> device copies it makes.
"""
from ._lib import SnackError, reset_transfers, set_backend, transfers
from . import dst, nn

__all__ = ["SnackError", "reset_transfers", "set_backend", "transfers", "dst", "nn"]
