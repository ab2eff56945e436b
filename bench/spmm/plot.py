#!/usr/bin/env python3
"""bench/spmm/plot.py: draws the SpMM benchmark's CSV (spmm_bench --out DIR writes DIR/spmm.csv) as a PNG.

One panel per (M, sparsity); time (ms, log) against batch for SNACK-COO, the dispatched snack kernel (and
the same call with the values bound to the plan, where that changes the kernel's order: batch 8), the
best cuSPARSE algorithm at each point, dense cuBLAS and Dense+Mask, and (where the CSV has the shared-memory
read bandwidth) a floor: the larger of the DRAM time of what the snack kernels must read and write (W at 6
bytes per non-zero, the row offsets, X and Y, over the copy bandwidth) and the table's on-chip floor (each
non-zero's X row, batch x 4 bytes, over the shared-memory read bandwidth), with the expected nnz (M x M x
density). Usage: plot.py spmm.csv out.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    t = defaultdict(dict)  # (m, sparsity) -> method -> {batch: ms}
    copy_gbs = shared_gbs = None
    for r in csv.DictReader(open(src)):
        if r["method"] == "copy_gbs":
            copy_gbs = float(r["ms"])
            continue
        if r["method"] == "shared_gbs":   # the on-chip read bandwidth (the table's floor column)
            shared_gbs = float(r["ms"])
            continue
        ms, err = float(r["ms"]), float(r["rel_err"])
        if ms <= 0 or err > 1e-4:
            continue
        key = (int(r["m"]), float(r["sparsity"]))
        method = "cusparse (best)" if r["method"].startswith("cusparse:") else r["method"]
        b = int(r["batch"])
        cur = t[key].setdefault(method, {})
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
        "cublas": ("dense cuBLAS (fp32)", "tab:green", "v-"),
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
            d = t.get((m, s), {}).get("dispatched")
            if shared_gbs and d:
                bs = sorted(d)
                nnz = m * m * (1 - s)
                floor = [max(nnz * b * 4 / shared_gbs, (nnz * 6 + (m + 1) * 4 + 2 * m * b * 4) / copy_gbs) * 1e-6
                         for b in bs]
                ax.plot(bs, floor, ":", color="black", linewidth=1, label="floor (DRAM, or X rows on chip)")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"M = K = {m}, sparsity {s * 100:.0f}%")
            ax.set_xlabel("batch")
            ax.set_ylabel("ms (median)")
            ax.grid(True, which="both", alpha=0.3)
            if i == 0 and j == 0:
                ax.legend(fontsize=8)
    title = "Y = W X, fp32, SpMM"
    if copy_gbs:
        title += f" (copy bandwidth {copy_gbs:.0f} GB/s)"
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
