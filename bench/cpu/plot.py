#!/usr/bin/env python3
"""bench/cpu/plot.py: draws the CSV of bench-cpu-graph-ops (--csv PATH) as a PNG.

One panel per operation: median time (ms, log scale) against R-MAT scale for the two timed backends and,
where measured, SuiteSparse called directly; a last panel shows the ratio of the first backend to the
second per operation, with the 2x goal as a dashed line. Skipped rows are left out.
Usage: plot.py cpu-graph-ops.csv cpu-graph-ops.png
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

OPS = ["mxv", "mxm", "mxm_masked", "ewise_add"]
TITLES = {
    "mxv": "mxv  w = A u",
    "mxm": "mxm  C = A A",
    "mxm_masked": "masked mxm  C<A> = A A'",
    "ewise_add": "eWiseAdd  C = A + A'",
}


def number(s):
    try:
        v = float(s)
    except ValueError:
        return math.nan
    return v


def main(src, dst):
    reader = csv.DictReader(open(src))
    ms_cols = [c for c in reader.fieldnames if c.startswith("ms_")]
    rows = [r for r in reader if r["skipped"] == "0"]
    a, b = ms_cols[0], ms_cols[1]
    names = {a: a[3:], b: "SuiteSparse (" + b[3:] + " backend)", "ms_suitesparse_direct": "SuiteSparse direct"}
    styles = {a: ("tab:red", "o-"), b: ("tab:blue", "s-"), "ms_suitesparse_direct": ("tab:gray", "^--")}
    ops = [op for op in OPS if any(r["op"] == op for r in rows)]
    fig, axes = plt.subplots(1, len(ops) + 1, figsize=(4.2 * (len(ops) + 1), 4.0), squeeze=False)
    axes = axes[0]
    for ax, op in zip(axes, ops):
        sel = sorted((r for r in rows if r["op"] == op), key=lambda r: int(r["scale"]))
        for col in ms_cols:
            pts = [(int(r["scale"]), number(r[col])) for r in sel]
            pts = [(s, v) for s, v in pts if not math.isnan(v) and v > 0]
            if pts:
                color, fmt = styles[col]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], fmt, color=color, label=names[col])
        ax.set_yscale("log")
        ax.set_title(TITLES[op], fontsize=10)
        ax.set_xlabel("R-MAT scale (n = 2^scale)")
        ax.set_ylabel("median ms")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xticks(sorted({int(r["scale"]) for r in sel}))
    axes[0].legend(fontsize=8)
    ax = axes[-1]
    for op in ops:
        sel = sorted((r for r in rows if r["op"] == op), key=lambda r: int(r["scale"]))
        ax.plot([int(r["scale"]) for r in sel], [number(r["ratio"]) for r in sel], "o-", label=op)
    ax.axhline(2.0, color="k", linestyle="--", linewidth=1, label="2x goal")
    ax.axhline(1.0, color="k", linestyle=":", linewidth=1)
    ax.set_yscale("log")
    ax.set_title(f"ratio {a[3:]} / SuiteSparse ({b[3:]})", fontsize=10)
    ax.set_xlabel("R-MAT scale")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
