#!/usr/bin/env python3
"""bench/graph/plot.py: draws the CSV of bench-graph (--csv FILE) as a PNG.

One panel per snack backend found in the CSV files given: the speedup of snack over SuiteSparse:GraphBLAS
called directly (SuiteSparse ms / snack ms, log scale; above the dashed line at 1, snack is faster) against
the R-MAT scale, one line per algorithm. Skipped rows are left out; a row whose check failed is drawn as a
red cross, since its time does not belong to a correct result.
Usage: plot.py graph.csv [more.csv ...] -o graph.png [--target 10]
"""
import argparse
import csv
import math
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

ALGORITHMS = ["bfs_levels", "bfs_parents", "pagerank", "triangles", "components", "spgemm"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+")
    parser.add_argument("-o", "--output", default="bench-graph.png")
    parser.add_argument("--target", type=float, default=None, help="draw a target speedup (e.g. 10) as a dotted line")
    args = parser.parse_args()

    # series[backend][algorithm] = [(scale, ratio, passed)]
    series = defaultdict(lambda: defaultdict(list))
    for path in args.csv:
        with open(path) as f:
            for row in csv.DictReader(f):
                if row["check"] not in ("PASS", "FAIL"):
                    continue
                series[row["backend"]][row["algorithm"]].append(
                    (int(row["scale"]), float(row["ratio"]), row["check"] == "PASS"))
    if not series:
        raise SystemExit("plot.py: no timed rows in " + ", ".join(args.csv))

    backends = sorted(series)
    fig, axes = plt.subplots(1, len(backends), figsize=(6.5 * len(backends), 4.8), squeeze=False)
    for ax, backend in zip(axes[0], backends):
        names = [a for a in ALGORITHMS if a in series[backend]] + sorted(set(series[backend]) - set(ALGORITHMS))
        scales = set()
        for name in names:
            points = sorted(series[backend][name])
            scales.update(p[0] for p in points)
            line, = ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
            failed = [p for p in points if not p[2]]
            if failed:
                ax.plot([p[0] for p in failed], [p[1] for p in failed], "x", color="red", markersize=12, mew=2)
        ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
        if args.target:
            ax.axhline(args.target, color="black", linestyle=":", linewidth=1.2, label=f"target {args.target:g}x")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(ticker.FuncFormatter(
            lambda v, _: f"{v:g}" if round(v / 10 ** math.floor(math.log10(v))) in (2, 5) else ""))
        ax.set_xticks(sorted(scales))
        ax.set_xlabel("R-MAT scale (n = 2^scale, edge factor 16)")
        ax.set_ylabel("speedup: SuiteSparse ms / snack ms")
        ax.set_title(f"snack ({backend}) vs SuiteSparse:GraphBLAS")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
