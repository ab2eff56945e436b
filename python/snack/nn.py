"""snack.nn: SparseLinear, a drop-in for torch.nn.Linear that stores and computes only its non-zeros, and sparsify,
which swaps a model's nn.Linear layers for it.

The weights are a per-non-zero Parameter `weight_values` (nnz values, in the order of the buffer `indices`, 2 x nnz:
row by row, columns increasing), so any torch optimizer keeps its state per non-zero; the pattern lives in the
library (layers/c_api.h), which runs the forward (Y = X W^T + b) and the backward (dX = dY W, dW at W's positions
only, db). Tensors are float32 or float64 (the layer's dtype). CPU tensors run on the thread's backend of the
library; CUDA tensors run on its cuda backend, on PyTorch's current stream, with no copy through the host (the pattern
lives on the GPU too; the first call on a device uploads it). On the GPU a layer's output and its input's gradient
are made features by batch (the transposes of contiguous tensors, which PyTorch's element-wise operations keep), so
that a following SparseLinear reads them in place; an input that is contiguous costs the products a transposed copy.
"""
import contextlib
import ctypes

import torch

from . import _lib


def _ptr(t):
    return ctypes.c_void_p(t.data_ptr())


def _i64(t):
    return ctypes.cast(t.data_ptr(), _lib.c_int64_p)


class _Handle:
    """Owns one layer of the library."""

    def __init__(self, in_features, out_features, density, seed, bias, dtype):
        self.ptr = ctypes.c_void_p()
        kind = {torch.float32: _lib.FP32, torch.float64: _lib.FP64}.get(dtype)
        if kind is None:
            raise TypeError(f"snack.nn.SparseLinear: dtype must be torch.float32 or torch.float64, not {dtype}")
        _lib.check(_lib.lib.snk_layer_new(ctypes.byref(self.ptr), in_features, out_features, density, seed,
                                          int(bias), kind))

    def __del__(self):
        if getattr(self, "ptr", None):
            _lib.lib.snk_layer_free(self.ptr)
            self.ptr = None

    def nnz(self):
        return int(_lib.lib.snk_layer_nnz(self.ptr))

    def pattern(self):
        n = self.nnz()
        idx = torch.empty(2, n, dtype=torch.int64)
        _lib.check(_lib.lib.snk_layer_pattern(self.ptr, _i64(idx[0]), _i64(idx[1])))
        return idx

    def set_pattern(self, indices):
        idx = indices.to(device="cpu", dtype=torch.int64).contiguous()
        _lib.check(_lib.lib.snk_layer_set_pattern(self.ptr, idx.shape[1], _i64(idx[0]), _i64(idx[1])))


def _operand(t, what, dtype, device, contiguous=True):
    if t.device != device:
        raise ValueError(f"snack.nn.SparseLinear: {what} is on {t.device}, the input on {device}")
    if t.dtype != dtype:
        raise TypeError(f"snack.nn.SparseLinear: {what} is {t.dtype}, the layer's dtype is {dtype}")
    return t.contiguous() if contiguous else t


def _on_gpu(device, call, *args):
    """One device call of the library (the arguments, then PyTorch's current stream) on `device`'s GPU (made current
    for the call where it is not)."""
    current = torch.cuda.current_device()
    index = device.index if device.index is not None else current
    stream = ctypes.c_void_p(torch.cuda.current_stream(index).cuda_stream)
    with torch.cuda.device(index) if index != current else contextlib.nullcontext():
        _lib.check(call(*args, stream))


def _opt(t):
    return _ptr(t) if t is not None else None


def _batch_view(t, features, what, dtype, device):
    """t (..., features) as a 2-D batch x features tensor and its layout for the device calls: a view where t is
    contiguous (ROWS) or the transpose of a contiguous features x batch tensor (FEATURES: what this layer's outputs and
    input gradients are on the GPU), else a contiguous copy."""
    t2 = _operand(t, what, dtype, device, contiguous=False).reshape(-1, features)
    if t2.is_contiguous():
        return t2, _lib.ROWS
    if t2.t().is_contiguous():
        return t2, _lib.FEATURES
    return t2.contiguous(), _lib.ROWS


def _empty_batch(batch, features, layout, dtype, device):
    """A batch x features tensor laid out as `layout` (FEATURES: the transpose of a contiguous features x batch one)."""
    if layout == _lib.FEATURES:
        return torch.empty(features, batch, dtype=dtype, device=device).t()
    return torch.empty(batch, features, dtype=dtype, device=device)


class _SparseLinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight_values, bias, module):
        dtype, device = weight_values.dtype, x.device
        if x.shape[-1] != module.in_features:
            raise ValueError(f"snack.nn.SparseLinear: the input has {x.shape[-1]} features, the layer takes "
                             f"{module.in_features}")
        if device.type not in ("cpu", "cuda"):
            raise ValueError(f"snack.nn.SparseLinear: tensors on {device} are not supported (CPU or CUDA)")
        w = _operand(weight_values, "weight_values", dtype, device)
        b = _operand(bias, "bias", dtype, device) if bias is not None else None
        # The library computes x W^T (its bias left out: a null b) and the bias is added here in place, so that no
        # array of y's size is made for the bias's term (c_api.h).
        if device.type == "cuda":
            # The output is made features by batch: the next layer's products read it in place (c_api.h).
            x2, x_layout = _batch_view(x, module.in_features, "the input", dtype, device)
            y = _empty_batch(x2.shape[0], module.out_features, _lib.FEATURES, dtype, device)
            _on_gpu(device, _lib.lib.snk_layer_forward_device, module._handle.ptr, _ptr(w), None, _ptr(x2),
                    x_layout, x2.shape[0], _ptr(y), _lib.FEATURES)
        else:
            x2, x_layout = _operand(x, "the input", dtype, device).reshape(-1, module.in_features), _lib.ROWS
            y = torch.empty(x2.shape[0], module.out_features, dtype=dtype, device=device)
            _lib.check(_lib.lib.snk_layer_forward(module._handle.ptr, _ptr(w), None, _ptr(x2), x2.shape[0],
                                                  _ptr(y)))
        if b is not None:
            y.add_(b)
        ctx.save_for_backward(x2, w)
        ctx.module, ctx.x_shape, ctx.x_layout, ctx.has_bias = module, x.shape, x_layout, bias is not None
        return y.reshape(*x.shape[:-1], module.out_features)

    @staticmethod
    def backward(ctx, grad_y):
        x2, w = ctx.saved_tensors
        module, device, n = ctx.module, x2.device, x2.shape[0]
        dw = torch.empty_like(w) if ctx.needs_input_grad[1] else None
        db = (torch.empty(module.out_features, dtype=w.dtype, device=device)
              if ctx.has_bias and ctx.needs_input_grad[2] else None)
        if device.type == "cuda":
            # The input gradient is laid out as the input was.
            gy, gy_layout = _batch_view(grad_y, module.out_features, "the output gradient", w.dtype, device)
            dx = _empty_batch(n, module.in_features, ctx.x_layout, w.dtype, device) if ctx.needs_input_grad[0] else None
            _on_gpu(device, _lib.lib.snk_layer_backward_device, module._handle.ptr, _ptr(w), _ptr(x2), ctx.x_layout,
                    _ptr(gy), gy_layout, n, _opt(dx), ctx.x_layout, _opt(dw), _opt(db))
        else:
            gy = _operand(grad_y, "the output gradient", w.dtype, device).reshape(-1, module.out_features)
            dx = torch.empty_like(x2) if ctx.needs_input_grad[0] else None
            _lib.check(_lib.lib.snk_layer_backward(module._handle.ptr, _ptr(w), _ptr(x2), _ptr(gy), n, _opt(dx),
                                                   _opt(dw), _opt(db)))
        return (dx.reshape(ctx.x_shape) if dx is not None else None), dw, db, None


class SparseLinear(torch.nn.Module):
    """y = x W^T + b with W out_features x in_features holding a fraction 1 - sparsity of its entries.

    Each output neuron gets max(1, round(density * in_features)) distinct inputs at random (`seed`); weights and bias
    start from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with the neuron's real fan-in, as the library's layers do.
    """

    def __init__(self, in_features, out_features, sparsity, bias=True, dtype=torch.float32, seed=0):
        super().__init__()
        if not 0.0 <= sparsity < 1.0:
            raise ValueError(f"snack.nn.SparseLinear: sparsity must lie in [0, 1), not {sparsity}")
        self.in_features, self.out_features = int(in_features), int(out_features)
        self._handle = _Handle(self.in_features, self.out_features, 1.0 - sparsity, seed, bias, dtype)
        n = self._handle.nnz()
        w = torch.empty(n, dtype=dtype)
        b = torch.empty(self.out_features, dtype=dtype) if bias else None
        _lib.check(_lib.lib.snk_layer_values(self._handle.ptr, _ptr(w), _opt(b)))
        self.weight_values = torch.nn.Parameter(w)
        self.bias = torch.nn.Parameter(b) if bias else None
        self.register_buffer("indices", self._handle.pattern())

    @property
    def nnz(self):
        return self.weight_values.numel()

    def forward(self, x):
        return _SparseLinearFunction.apply(x, self.weight_values, self.bias, self)

    def to_dense(self):
        """W as a dense out_features x in_features tensor (zeros off the pattern)."""
        d = torch.zeros(self.out_features, self.in_features, dtype=self.weight_values.dtype,
                        device=self.weight_values.device)
        d[self.indices[0], self.indices[1]] = self.weight_values.detach()
        return d

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        idx = state_dict.get(prefix + "indices")
        if idx is not None and idx.shape[1] != self.indices.shape[1]:   # a rewired layer of another count
            self.indices = torch.empty_like(idx)
            self.weight_values = torch.nn.Parameter(torch.empty(idx.shape[1], dtype=self.weight_values.dtype))
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
        self._handle.set_pattern(self.indices)

    def extra_repr(self):
        density = self.nnz / (self.in_features * self.out_features)
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"density={density:.4f}, bias={self.bias is not None}")


def sparsify(model, sparsity, method="uniform", seed=0):
    """Replaces every torch.nn.Linear of `model` (in place; the model is returned) by a SparseLinear keeping the dense
    layer's weights at its pattern's positions and its bias. method: "uniform" (each layer at `sparsity`) or "erk"
    (ERK densities: each layer's proportional to (in + out) / (in * out), the whole keeping 1 - sparsity)."""
    if method not in ("uniform", "erk"):
        raise ValueError(f"snack.nn.sparsify: method must be 'uniform' or 'erk', not {method!r}")
    if not 0.0 <= sparsity < 1.0:
        raise ValueError(f"snack.nn.sparsify: sparsity must lie in [0, 1), not {sparsity}")
    found = [(parent, name, child) for parent in model.modules() for name, child in parent.named_children()
             if isinstance(child, torch.nn.Linear)]
    if not found:
        return model
    if method == "erk":
        ins = torch.tensor([c.in_features for _, _, c in found], dtype=torch.int64)
        outs = torch.tensor([c.out_features for _, _, c in found], dtype=torch.int64)
        dens = torch.empty(len(found), dtype=torch.float64)
        _lib.check(_lib.lib.snk_layer_erk(len(found), _i64(ins), _i64(outs), 1.0 - sparsity,
                                          ctypes.cast(dens.data_ptr(), _lib.c_double_p)))
        densities = dens.tolist()
    else:
        densities = [1.0 - sparsity] * len(found)
    for k, ((parent, name, lin), density) in enumerate(zip(found, densities)):
        s = SparseLinear(lin.in_features, lin.out_features, max(0.0, 1.0 - density),
                         bias=lin.bias is not None, dtype=lin.weight.dtype, seed=seed + k)
        with torch.no_grad():
            s.weight_values.copy_(lin.weight[s.indices[0], s.indices[1]])
            if lin.bias is not None:
                s.bias.copy_(lin.bias)
        setattr(parent, name, s)
    return model
