"""bench/gpt/common.py: what the GPT experiment and the MLP-block benchmark share: the three kinds of MLP layer
(dense nn.Linear, Dense+Mask, snack.nn.SparseLinear), the masks' pruning and rewiring (the same rules the library
applies to SparseLinear: keep the largest |w|; SET's prune-smallest-|w| and regrow-at-random, new weights and their
optimizer state zero), the corpus, device-memory accounting that sees both PyTorch's allocator and the library's
(which allocates from the CUDA device's default memory pool, outside PyTorch), and a run's stamp and CSV."""
import ctypes
import datetime
import json
import math
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F

import snack

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from annotated_csv import write as write_csv  # noqa: E402,F401 (the benchmarks' CSV, which report.py reads)

KINDS = ("dense", "dense_mask", "snack")


class MaskedLinear(torch.nn.Linear):
    """Dense+Mask: a dense nn.Linear whose weight is multiplied by a fixed 0/1 mask in every forward, so its gradient
    is the dense one masked; the mask keeps round(density * in) inputs per output, as SparseLinear draws them."""

    def __init__(self, fin, fout, sparsity, bias=True, seed=0, device=None, dtype=torch.float32):
        super().__init__(fin, fout, bias=bias, device=device, dtype=dtype)
        g = torch.Generator().manual_seed(seed)
        keep = max(1, round((1.0 - sparsity) * fin))
        cols = torch.rand(fout, fin, generator=g).argsort(dim=1)[:, :keep]
        mask = torch.zeros(fout, fin, dtype=dtype)
        mask.scatter_(1, cols, 1.0)
        self.register_buffer("mask", mask.to(device))
        bound = 1.0 / math.sqrt(keep)
        with torch.no_grad():
            self.weight.uniform_(-bound, bound, generator=None)
            if bias:
                self.bias.uniform_(-bound, bound)

    @property
    def nnz(self):
        return int(self.mask.sum().item())

    def forward(self, x):
        return F.linear(x, self.weight * self.mask, self.bias)


def make_linear(kind, fin, fout, sparsity, seed, device):
    if kind == "dense":
        return torch.nn.Linear(fin, fout, device=device)
    if kind == "dense_mask":
        return MaskedLinear(fin, fout, sparsity, seed=seed, device=device)
    if kind == "snack":
        return snack.nn.SparseLinear(fin, fout, sparsity, seed=seed).to(device)
    raise ValueError(f"unknown layer kind {kind!r} (one of {', '.join(KINDS)})")


def _zero_state(optimizer, param, where):
    for value in (optimizer.state.get(param, {}) if optimizer is not None else {}).values():
        if torch.is_tensor(value) and value.shape == param.shape:
            value[where] = 0


def mask_prune_to(layer, count, optimizer=None):
    """MaskedLinear's gradual-pruning step: keeps the `count` active weights of largest |w|."""
    with torch.no_grad():
        active = layer.mask.bool()
        n = int(active.sum())
        if count >= n:
            return 0
        score = torch.where(active, layer.weight.abs(), torch.full_like(layer.weight, -1.0)).flatten()
        keep = torch.topk(score, int(count)).indices
        new = torch.zeros_like(layer.mask).flatten()
        new[keep] = 1.0
        layer.mask.copy_(new.view_as(layer.mask))
        dropped = active & ~layer.mask.bool()
        layer.weight[dropped] = 0
        _zero_state(optimizer, layer.weight, dropped)
        return n - int(count)


def mask_rewire(layer, zeta, optimizer=None, generator=None):
    """SET on a MaskedLinear: drops round(zeta * nnz) active weights of smallest |w|, activates as many inactive
    positions at random with weight 0 and zero optimizer state. Returns the count regrown."""
    with torch.no_grad():
        flat = layer.mask.flatten()
        active = flat.bool()
        n = int(active.sum())
        k = int(round(zeta * n))
        if k == 0:
            return 0
        w = layer.weight.detach().abs().flatten()
        score = torch.where(active, w, torch.full_like(w, float("inf")))
        drop = torch.topk(score, k, largest=False).indices
        free = (~active).nonzero().flatten()
        pick = free[torch.randperm(free.numel(), generator=generator, device="cpu")[:k].to(free.device)]
        flat[drop] = 0
        flat[pick] = 1
        changed = torch.zeros_like(flat, dtype=torch.bool)
        changed[drop] = True
        changed[pick] = True
        changed = changed.view_as(layer.weight)
        layer.weight[changed] = 0
        _zero_state(optimizer, layer.weight, changed)
        return int(pick.numel())


def load_fortunes(folder=None):
    """The text of Debian's `fortunes` package (fortune-mod's English collections: quotations, literature, jokes;
    about 2.5 MB): every collection file of `folder` (default $SNACK_FORTUNES_DIR, else /usr/share/games/fortunes),
    split into its fortunes ("%" lines). Returns the list of fortunes as bytes."""
    folder = folder or os.environ.get("SNACK_FORTUNES_DIR", "/usr/share/games/fortunes")
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"no fortunes corpus at {folder}: install Debian's package `fortunes` "
                                "(scripts/setup.sh does) or set SNACK_FORTUNES_DIR")
    pieces = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith((".dat", ".u8")) or os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            pieces += [p.strip(b"\n") + b"\n" for p in f.read().split(b"\n%\n") if p.strip()]
    if not pieces:
        raise FileNotFoundError(f"no fortune collections in {folder}")
    return pieces


def corpus_split(pieces, seed=0, validation=0.1):
    """Train and validation byte tensors: the fortunes shuffled with `seed`, the last `validation` share held out."""
    order = torch.randperm(len(pieces), generator=torch.Generator().manual_seed(seed)).tolist()
    cut = int(len(order) * (1.0 - validation))
    join = lambda ids: torch.frombuffer(bytearray(b"".join(pieces[i] for i in ids)), dtype=torch.uint8).long()
    return join(order[:cut]), join(order[cut:])


class DeviceMemory:
    """Peak device memory of a run: PyTorch's allocated bytes plus the used bytes of the device's default memory pool
    (cudaMallocAsync, where the library allocates). The two peaks are added, so the total is an upper bound. The pool
    is read through the CUDA runtime PyTorch loaded, else CuPy's; where neither answers, this raises rather than
    report PyTorch's part alone (which would leave the library's memory out)."""

    USED_MEM_HIGH = 8   # cudaMemPoolAttrUsedMemHigh

    def __init__(self, device):
        self.device = device
        self.read = self.reset_pool = None
        index = device.index or 0
        for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
            try:
                rt = ctypes.CDLL(name)
            except OSError:
                continue
            pool = ctypes.c_void_p()
            if rt.cudaDeviceGetDefaultMemPool(ctypes.byref(pool), index) != 0:
                continue

            def read(rt=rt, pool=pool):
                v = ctypes.c_uint64(0)
                if rt.cudaMemPoolGetAttribute(pool, self.USED_MEM_HIGH, ctypes.byref(v)) != 0:
                    raise RuntimeError("cudaMemPoolGetAttribute failed")
                return v.value

            def reset(rt=rt, pool=pool):
                zero = ctypes.c_uint64(0)
                rt.cudaMemPoolSetAttribute(pool, self.USED_MEM_HIGH, ctypes.byref(zero))

            self.read, self.reset_pool = read, reset
            break
        if self.read is None:
            try:
                import cupy
                rt = cupy.cuda.runtime
                pool = rt.deviceGetDefaultMemPool(index)
                self.read = lambda: int(rt.memPoolGetAttribute(pool, self.USED_MEM_HIGH))
                self.reset_pool = lambda: rt.memPoolSetAttribute(pool, self.USED_MEM_HIGH, 0)
            except Exception as e:  # noqa: BLE001 - any failure means the pool cannot be read
                raise RuntimeError(f"cannot read the CUDA default memory pool (no libcudart through ctypes, CuPy: {e}); "
                                   "the library's device memory would go uncounted") from e

    def reset(self):
        torch.cuda.synchronize(self.device)
        torch.cuda.reset_peak_memory_stats(self.device)
        self.reset_pool()

    def peak(self):
        """(total, torch's part, the pool's part)."""
        torch.cuda.synchronize(self.device)
        t = torch.cuda.max_memory_allocated(self.device)
        p = self.read()
        return t + p, t, p


def in_fresh_process(script, argv, what):
    """The JSON result of `script` run in a process of its own with `argv` and --result-json FILE (where it writes the
    result; its output passes through), so that no memory another measurement left behind is counted in its peaks.
    Exits naming `what` where the process fails."""
    with tempfile.TemporaryDirectory() as folder:
        result = os.path.join(folder, "result.json")
        done = subprocess.run([sys.executable, os.path.abspath(script), *argv, "--result-json", result])
        if done.returncode != 0:
            sys.exit(f"{os.path.basename(script)}: {what} failed (exit {done.returncode})")
        with open(result) as f:
            return json.load(f)


def write_result_json(path, value):
    """in_fresh_process's result, written by the process it runs."""
    with open(path, "w") as f:
        json.dump(value, f)


def run_meta(name, stamp, commit, extra):
    """The metadata line of a run's CSV: run_stamp's device, date and commit, the PyTorch version, then `extra`."""
    return f"device={name} date={stamp} commit={commit} torch={torch.__version__} {extra}"


def run_stamp(device):
    """(the device's name, the UTC date and time, the commit the sources are at) for a run's table and CSV. Where the
    sources are not a git checkout, or are a copy carried to another machine whose checkout may be stale,
    $SNACK_COMMIT names the commit; where it is set it wins."""
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    if os.environ.get("SNACK_COMMIT"):
        return name, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), os.environ["SNACK_COMMIT"]
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip() or "unknown"
    except OSError:
        commit = "unknown"
    if commit == "unknown":
        commit = os.environ.get("SNACK_COMMIT", "unknown")
    return name, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), commit
