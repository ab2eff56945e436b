"""snack.dst: dynamic sparse training schedulers for snack.nn.SparseLinear layers.

Every `interval` calls of step(), each layer prunes the fraction zeta of its weights and regrows as many, in the
library (layers/dst.hpp): SET prunes the smallest |w| and regrows at random free positions, Snack prunes the smallest
signed values, RigL prunes as SET and regrows where the dense gradient of the last batch is largest, on its cosine
schedule. The non-zero count stays constant, new weights start at zero, and the optimizer's per-non-zero state (every
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

    def due(self):
        """Whether the step just counted rewires."""
        return self.calls % self.interval == 0

    def step(self):
        """Counts a training step; rewires every layer on every interval-th one. Returns the connections regrown."""
        self.calls += 1
        if not self.due():
            return 0
        grown_now = 0
        for k, layer in enumerate(self.layers):
            grown_now += self._rewire(layer, self.seed + 1000003 * self.calls + k)
        self.rewired += grown_now
        return grown_now

    def _fraction(self):
        """The fraction this interval rewires."""
        return self.zeta

    def _library_step(self, layer, w, zeta, seed, out):
        """The library's rewiring call for one layer from its values w, rewiring the fraction zeta; `out` are the
        pointers it reports through."""
        return _lib.lib.snk_layer_rewire(layer._handle.ptr, ctypes.c_void_p(w.data_ptr()), zeta, self.rule, seed, *out)

    def _rewire(self, layer, seed):
        """Rewires one layer in the library, then moves its values and the optimizer's state onto the new pattern."""
        zeta = self._fraction()
        if _lib.lib.snk_layer_rewiring_count(zeta, layer.nnz) == 0:
            return 0   # a fraction that rounds to no weight changes nothing: no copy of the values to the host
        w = layer.weight_values.detach().contiguous().cpu()   # the library rewires on the host
        old_index = torch.empty(w.numel(), dtype=torch.int64)
        pruned, grown = ctypes.c_int64(), ctypes.c_int64()
        _lib.check(self._library_step(layer, w, zeta, seed, (ctypes.cast(old_index.data_ptr(), _lib.c_int64_p),
                                                            ctypes.byref(pruned), ctypes.byref(grown))))
        n = layer._handle.nnz()
        old_index = old_index[:n]
        device = layer.weight_values.device
        new = (old_index < 0).to(device)                  # regrown: no old entry
        source = old_index.clamp(min=0).to(device)        # a kept entry's old index (0 for the regrown, then zeroed)

        def moved(t):
            s, z = (source, new) if t.device == device else (source.to(t.device), new.to(t.device))
            return t.index_select(0, s).masked_fill_(z, 0)

        with torch.no_grad():
            param = layer.weight_values
            states = self.optimizer.state.get(param, {}) if self.optimizer is not None else {}
            for key, value in list(states.items()):
                if torch.is_tensor(value) and value.shape == param.shape:
                    states[key] = moved(value)
            param.data = moved(param.data)
            if param.grad is not None:
                param.grad = None
            layer.indices = layer._handle.pattern().to(layer.indices.device)
        return int(grown.value)


def prune_to(layer, count, optimizer=None):
    """Keeps the `count` weights of largest |w| of a SparseLinear (ties: the earlier position), dropping the others with
    their optimizer state: a gradual-pruning schedule's step (the count only shrinks; a larger count changes nothing).
    The layer's weight_values becomes a new Parameter of `count` values; the optimizer, where given, holds it in place of
    the old one, with the kept entries' state. Returns how many were pruned."""
    n = layer.nnz
    count = int(count)
    if count < 1:
        raise ValueError(f"snack.dst.prune_to: the count must be at least 1, not {count}")
    if count >= n:
        return 0
    with torch.no_grad():
        old = layer.weight_values
        order = torch.sort(old.detach().abs().cpu(), descending=True, stable=True).indices
        keep = torch.sort(order[:count]).values   # entry order is row by row, columns increasing: kept so
        idx = layer.indices.cpu()[:, keep]
        layer._handle.set_pattern(idx)
        keep_d = keep.to(old.device)
        new = torch.nn.Parameter(old.detach()[keep_d].clone(), requires_grad=old.requires_grad)
        if optimizer is not None:
            for group in optimizer.param_groups:
                group["params"] = [new if p is old else p for p in group["params"]]
            if old in optimizer.state:
                state = optimizer.state.pop(old)
                optimizer.state[new] = {k: (v[keep_d].clone() if torch.is_tensor(v) and v.shape == old.shape else v)
                                        for k, v in state.items()}
        layer.weight_values = new
        layer.indices = idx.to(layer.indices.device)
    return n - count


class SET(_Rewirer):
    """SET (Mocanu et al., 2018): prune the smallest |w|, regrow at random."""
    rule = _lib.PRUNE_MAGNITUDE


class Snack(_Rewirer):
    """SNACK's rule: prune the smallest signed values (the most negative weights first), regrow at random."""
    rule = _lib.PRUNE_VALUE


class RigL(_Rewirer):
    """RigL (Evci et al., 2020): prune the smallest |w|, grow where |dY^T X| of the last batch is largest among the free
    positions (made block_rows rows at a time, never dense), every `interval` steps while step < stop_fraction *
    total_steps, the fraction decaying from zeta as a cosine. The layers' last input and output gradient are taken by
    hooks, so step() goes after backward()."""

    def __init__(self, model, zeta=0.3, interval=100, total_steps=None, stop_fraction=0.75, optimizer=None,
                 block_rows=256, seed=0):
        super().__init__(model, zeta, interval, optimizer, seed)
        if total_steps is None or total_steps < 1:
            raise ValueError("snack.dst.RigL: total_steps (the training's length) must be given, at least 1")
        if not 0.0 < stop_fraction <= 1.0:
            raise ValueError(f"snack.dst.RigL: stop_fraction must lie in (0, 1], not {stop_fraction}")
        self.total_steps, self.stop_fraction, self.block_rows = int(total_steps), float(stop_fraction), int(block_rows)
        self._batch = {}
        self._hooks = []
        for layer in self.layers:
            self._hooks.append(layer.register_forward_hook(self._keep_input))
            self._hooks.append(layer.register_full_backward_hook(self._keep_grad))

    def _keep_input(self, layer, inputs, output):
        self._batch.setdefault(layer, {})["x"] = inputs[0].detach().reshape(-1, layer.in_features)

    def _keep_grad(self, layer, grad_input, grad_output):
        self._batch.setdefault(layer, {})["dy"] = grad_output[0].detach().reshape(-1, layer.out_features)

    def fraction(self, step):
        return _lib.lib.snk_layer_cosine_fraction(self.zeta, step, self.total_steps, self.stop_fraction)

    def _fraction(self):
        return self.fraction(self.calls)

    def due(self):
        return bool(_lib.lib.snk_layer_rewire_due(self.calls, self.interval, self.total_steps, self.stop_fraction))

    def _library_step(self, layer, w, zeta, seed, out):
        kept = self._batch.get(layer, {})
        if "x" not in kept or "dy" not in kept:
            raise RuntimeError("snack.dst.RigL: step() needs a forward and a backward pass of every layer first")
        x, dy = kept["x"].contiguous().cpu(), kept["dy"].contiguous().cpu()
        return _lib.lib.snk_layer_rewire_rigl(layer._handle.ptr, ctypes.c_void_p(w.data_ptr()), zeta,
                                              ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(dy.data_ptr()),
                                              x.shape[0], self.block_rows, *out)

    def remove_hooks(self):
        for h in self._hooks:
            h.remove()
        self._hooks = []
