"""snack.dst: dynamic sparse training schedulers for snack.nn.SparseLinear layers.

Every `interval` calls of step(), each layer prunes the fraction zeta of its weights and regrows as many at random free
positions, in the library (layers/dst.hpp: prune_and_regrow): SET prunes the smallest |w|, Snack the smallest signed
values. The non-zero count stays constant, new weights start at zero, and the optimizer's per-non-zero state (every
state tensor shaped like the weights) follows its connection, zero for new ones. Call step() after optimizer.step().
"""
import ctypes

import torch

from . import _lib
from .nn import SparseLinear


class _Rewirer:
    rule = None

    def __init__(self, model, zeta=0.3, interval=100, optimizer=None, seed=0):
        if not 0.0 <= zeta <= 1.0:
            raise ValueError(f"snack.dst: zeta must lie in [0, 1], not {zeta}")
        if interval < 1:
            raise ValueError(f"snack.dst: interval must be at least 1, not {interval}")
        self.layers = [m for m in model.modules() if isinstance(m, SparseLinear)]
        self.zeta, self.interval, self.optimizer, self.seed = zeta, interval, optimizer, seed
        self.calls = 0
        self.rewired = 0   # connections regrown so far

    def step(self):
        """Counts a training step; rewires every layer on every interval-th one. Returns the connections regrown."""
        self.calls += 1
        if self.calls % self.interval:
            return 0
        grown_now = 0
        for k, layer in enumerate(self.layers):
            grown_now += self._rewire(layer, self.seed + 1000003 * self.calls + k)
        self.rewired += grown_now
        return grown_now

    def _rewire(self, layer, seed):
        w = layer.weight_values.detach().contiguous()
        old_index = torch.empty(w.numel(), dtype=torch.int64)
        pruned, grown = ctypes.c_int64(), ctypes.c_int64()
        _lib.check(_lib.lib.snk_layer_rewire(layer._handle.ptr, ctypes.c_void_p(w.data_ptr()), self.zeta, self.rule,
                                             seed, ctypes.cast(old_index.data_ptr(), _lib.c_int64_p),
                                             ctypes.byref(pruned), ctypes.byref(grown)))
        n = layer._handle.nnz()
        old_index = old_index[:n]
        kept = old_index >= 0

        def moved(t):
            out = torch.zeros(n, dtype=t.dtype, device=t.device)
            out[kept] = t[old_index[kept]]
            return out

        with torch.no_grad():
            param = layer.weight_values
            states = self.optimizer.state.get(param, {}) if self.optimizer is not None else {}
            for key, value in list(states.items()):
                if torch.is_tensor(value) and value.shape == param.shape:
                    states[key] = moved(value)
            param.data = moved(param.data)
            if param.grad is not None:
                param.grad = None
            layer.indices = layer._handle.pattern()
        return int(grown.value)


class SET(_Rewirer):
    """SET (Mocanu et al., 2018): prune the smallest |w|, regrow at random."""
    rule = _lib.PRUNE_MAGNITUDE


class Snack(_Rewirer):
    """SNACK's rule: prune the smallest signed values (the most negative weights first), regrow at random."""
    rule = _lib.PRUNE_VALUE
