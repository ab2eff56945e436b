#!/usr/bin/env python3
"""bench/two_four/torch_semi.py: what a PyTorch user would run for Y = W X with a 2:4 W, on the shapes of
two_four_bench: the dense product (torch.mm(W, X), and F.linear(X^T, W) as nn.Linear calls it) and PyTorch's
semi-structured sparse path (to_sparse_semi_structured, with each backend PyTorch offers: cuSPARSELt and CUTLASS),
FP16 and BF16. A point or backend that PyTorch refuses is recorded with its error, not dropped. Times are medians of
--reps CUDA-event timings, each after a 256 MB write that flushes the L2, as in two_four_bench. Writes a CSV for
report.py."""
import argparse
import csv
import datetime
import statistics

import torch
import torch.nn.functional as F


def median_ms(call, reps, flush):
    call()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for r in range(reps):
        flush.fill_(r & 0xFF)
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def two_four_weights(m, k, dtype, gen):
    """A dense m x k tensor with two non-zeros (uniform in [-1, 1]) in every group of four of a row."""
    w = torch.rand(m, k, device="cuda", generator=gen, dtype=torch.float32) * 2 - 1
    keep = torch.rand(m, k // 4, 4, device="cuda", generator=gen).argsort(dim=-1)[..., :2]
    mask = torch.zeros(m, k // 4, 4, device="cuda", dtype=torch.bool)
    mask.scatter_(-1, keep, True)
    return (w * mask.reshape(m, k)).to(dtype)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="4096,8192,16384")
    ap.add_argument("--batches", default="16,32,64,128,256,1024")
    ap.add_argument("--types", default="fp16,bf16")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--csv", required=True)
    args = ap.parse_args()
    from torch.sparse import SparseSemiStructuredTensor, to_sparse_semi_structured

    device = torch.cuda.get_device_name(0)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"# PyTorch 2:4: device={device} torch={torch.__version__} date={date}")
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    rows = []
    dtypes = {"fp16": torch.float16, "bf16": torch.bfloat16}
    for tname in args.types.split(","):
        dtype = dtypes[tname]
        for size in [int(s) for s in args.sizes.split(",")]:
            m = k = size
            w = two_four_weights(m, k, dtype, gen)
            sparse = {}
            for backend, force_cutlass in (("cusparselt", False), ("cutlass", True)):
                try:
                    SparseSemiStructuredTensor._FORCE_CUTLASS = force_cutlass
                    sparse[backend] = to_sparse_semi_structured(w)
                except Exception as e:  # noqa: BLE001 (recorded, not fatal)
                    sparse[backend] = e
            batches = [int(b) for b in args.batches.split(",")] + [size]
            for i, n in enumerate(batches):
                shape = "square" if i == len(batches) - 1 else "layer"
                x = (torch.rand(k, n, device="cuda", generator=gen) * 2 - 1).to(dtype)
                xt = x.t().contiguous()   # batch x K: activations as nn.Linear holds them
                flops = 2.0 * m * k * n

                def record(method, config, ms, err=""):
                    rows.append(dict(device=device, date=date, torch=torch.__version__, type=tname, shape=shape,
                                     m=m, k=k, batch=n, method=method, config=config,
                                     ms="" if ms is None else f"{ms:.6f}",
                                     tflops="" if ms is None else f"{flops / ms * 1e-9:.2f}", error=err))
                    if ms is not None:
                        print(f"{tname} {shape:6} {m:6} {k:6} {n:6} {method:14} {config:28} {ms:9.4f} ms")
                    else:
                        print(f"{tname} {shape:6} {m:6} {k:6} {n:6} {method:14} {config:28} refused: {err[:80]}")

                record("torch_dense", "torch.mm(W, X)", median_ms(lambda: torch.mm(w, x), args.reps, flush))
                record("torch_dense", "F.linear(X^T, W)", median_ms(lambda: F.linear(xt, w), args.reps, flush))
                for backend, ws in sparse.items():
                    if isinstance(ws, Exception):
                        record("torch_semi", backend, None, str(ws).replace("\n", " "))
                        continue
                    for form, call in ((f"{backend} mm(W, X)", lambda: torch.mm(ws, x)),
                                       (f"{backend} linear(X^T, W)", lambda: F.linear(xt, ws))):
                        try:
                            ms = median_ms(call, args.reps, flush)
                            record("torch_semi", form, ms)
                        except Exception as e:  # noqa: BLE001
                            record("torch_semi", form, None, str(e).replace("\n", " "))
                del x, xt
            del w, sparse
            torch.cuda.empty_cache()
    with open(args.csv, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        out.writeheader()
        out.writerows(rows)


if __name__ == "__main__":
    main()
