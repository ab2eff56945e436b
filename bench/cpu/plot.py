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
from matplotlib import ticker  # noqa: E402

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
    # Columns by position: the two timed backends may carry the same name (reference vs reference).
    reader = csv.reader(open(src))
    header = next(reader)
    pos = {name: k for k, name in reversed(list(enumerate(header)))}
    ia, ib, idirect = pos["flops"] + 1, pos["flops"] + 2, pos["ms_suitesparse_direct"]
    a, b = header[ia][3:], header[ib][3:]
    rows = [r for r in reader if r[pos["skipped"]] == "0"]
    series = [
        (ia, a, "tab:red", "o-"),
        (ib, "SuiteSparse (" + b + " backend)", "tab:blue", "s-"),
        (idirect, "SuiteSparse direct", "tab:gray", "^--"),
    ]
    ops = [op for op in OPS if any(r[pos["op"]] == op for r in rows)]
    fig, axes = plt.subplots(1, len(ops) + 1, figsize=(4.2 * (len(ops) + 1), 4.0), squeeze=False)
    axes = axes[0]
    scales_all = sorted({int(r[pos["scale"]]) for r in rows})
    for ax, op in zip(axes, ops):
        sel = sorted((r for r in rows if r[pos["op"]] == op), key=lambda r: int(r[pos["scale"]]))
        values = []
        for col, label, color, fmt in series:
            pts = [(int(r[pos["scale"]]), number(r[col])) for r in sel]
            pts = [(s, v) for s, v in pts if not math.isnan(v) and v > 0]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], fmt, color=color, label=label)
                values += [p[1] for p in pts]
        ax.set_yscale("log")
        if values:  # at least a factor 4 of range, so that one-scale panels are not blown up
            ax.set_ylim(min(values) / 2, max(values) * 2)
        ax.set_title(TITLES[op], fontsize=10)
        ax.set_xlabel("R-MAT scale (n = 2^scale)")
        ax.set_ylabel("median ms")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xticks(scales_all)
    axes[0].legend(fontsize=8)
    ax = axes[-1]
    for op in ops:
        sel = sorted((r for r in rows if r[pos["op"]] == op), key=lambda r: int(r[pos["scale"]]))
        ax.plot([int(r[pos["scale"]]) for r in sel], [number(r[pos["ratio"]]) for r in sel], "o-", label=op)
    ax.axhline(2.0, color="k", linestyle="--", linewidth=1, label="2x goal")
    ax.axhline(1.0, color="k", linestyle=":", linewidth=1)
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(ticker.FixedLocator([0.25, 0.5, 1, 2, 4, 8, 16, 32]))
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_title(f"ratio {a} / SuiteSparse ({b} backend)", fontsize=10)
    ax.set_xlabel("R-MAT scale")
    ax.set_xticks(scales_all)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
