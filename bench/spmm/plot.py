#!/usr/bin/env python3
"""bench/spmm/plot.py: draws the SpMM benchmark's CSV (spmm_bench --out DIR writes DIR/spmm.csv) as a PNG.

One panel per (M, sparsity); time (ms, log) against batch for SNACK-COO, the dispatched snack kernel (and
the same call with the values bound to the plan, where that changes the kernel's order), the best cuSPARSE
algorithm and the best dense cuBLAS call at each point (the fastest of the CSV's cusparse:<alg> and
cublas:<call> rows), Dense+Mask, and the limit: the CSV's `limit` rows (the larger of the stream time of what
the snack kernels must move and the on-chip floor; spmm_bench.cu), with a band up to 1.25x the limit (the
SpMM target at 16384, 90% and 95%). For a CSV without `limit` rows the limit is estimated from the expected
nnz (M x M x density), W at 6 bytes per non-zero, and the copy and shared-memory bandwidths it holds.
Usage: plot.py spmm.csv out.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LIMIT_TARGET = 1.25  # the target's factor over the limit (spmm_bench.cu, kLimitFactor)


def best_of(method):
    """The baseline a CSV row belongs to: cusparse:<alg> and cublas:<call> rows (and a bare cublas row) each to the
    fastest of its kind at the point; any other method to itself."""
    for base in ("cusparse", "cublas"):
        if method == base or method.startswith(base + ":"):
            return base + " (best)"
    return method


def estimated_limit(m, s, b, copy_gbs, shared_gbs):
    """The limit without `limit` rows: expected nnz, W at 6 bytes per non-zero, row offsets, X and Y."""
    nnz = m * m * (1 - s)
    stream = (nnz * 6 + (m + 1) * 4 + 2 * m * b * 4) / copy_gbs
    floor = nnz * b * 4 / shared_gbs if shared_gbs else 0
    return max(stream, floor) * 1e-6


def main(src, dst):
    t = defaultdict(dict)  # (m, sparsity) -> method -> {batch: ms}
    limit = defaultdict(dict)  # (m, sparsity) -> {batch: ms}
    copy_gbs = shared_gbs = None
    for r in csv.DictReader(open(src)):
        if r["method"] == "copy_gbs":
            copy_gbs = float(r["ms"])
            continue
        if r["method"] == "shared_gbs":   # the on-chip read bandwidth (the table's floor column)
            shared_gbs = float(r["ms"])
            continue
        key, b, ms = (int(r["m"]), float(r["sparsity"])), int(r["batch"]), float(r["ms"])
        if r["method"] == "limit":
            limit[key][b] = ms
            continue
        if ms <= 0 or float(r["rel_err"]) > 1e-4:
            continue
        cur = t[key].setdefault(best_of(r["method"]), {})
        cur[b] = min(ms, cur.get(b, float("inf")))
    keys = sorted(t)
    ms_ = sorted({k[0] for k in keys})
    ss = sorted({k[1] for k in keys})
    fig, axes = plt.subplots(len(ms_), len(ss), figsize=(5 * len(ss), 4 * len(ms_)), squeeze=False)
    style = {
        "snack_coo": ("SNACK-COO", "tab:gray", "s--"),
        "dispatched": ("snack dispatched", "tab:red", "o-"),
        "dispatched_bound": ("snack dispatched, values bound", "tab:purple", "P"),
        "cusparse (best)": ("best cuSPARSE", "tab:blue", "^-"),
        "cublas (best)": ("best dense cuBLAS (fp32, any layout)", "tab:green", "v-"),
        "dense_mask": ("Dense+Mask", "tab:olive", "d:"),
    }
    for i, m in enumerate(ms_):
        for j, s in enumerate(ss):
            ax = axes[i][j]
            for method, (label, color, fmt) in style.items():
                d = t.get((m, s), {}).get(method)
                if not d:
                    continue
                bs = sorted(d)
                ax.plot(bs, [d[b] for b in bs], fmt, color=color, label=label)
            lim = limit.get((m, s))
            if not lim and copy_gbs:
                d = t.get((m, s), {}).get("dispatched", {})
                lim = {b: estimated_limit(m, s, b, copy_gbs, shared_gbs) for b in d}
            if lim:
                bs = sorted(lim)
                lo = [lim[b] for b in bs]
                ax.plot(bs, lo, "-", color="black", linewidth=1, label="limit (stream or on-chip)")
                ax.fill_between(bs, lo, [v * LIMIT_TARGET for v in lo], color="black", alpha=0.12, linewidth=0,
                                label=f"within {LIMIT_TARGET:g}x of the limit")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"M = K = {m}, sparsity {s * 100:.0f}%")
            ax.set_xlabel("batch")
            ax.set_ylabel("ms (median)")
            ax.grid(True, which="both", alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    title = "Y = W X, fp32, SpMM"
    if copy_gbs:
        title += f" (copy bandwidth {copy_gbs:.0f} GB/s)"
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
