#!/usr/bin/env python3
"""bench/spdnn/plot.py: draws the SpDNN benchmark chart from the CSV bench-spdnn writes.

One bar per configuration (neurons x layers, log scale in TeraEdges/s), with the best published single-GPU
figure beside it where one is known and the 2x-published target as a tick; with --before, a lighter bar for
an earlier run of the engine (for instance before an engine change) beside each.
With --exact, the tiled engine's exact work instead: one bar per run of it the CSV holds (exact_<sums>_teraedges:
fp64, fp64-all, ...), beside XY-2021's exact-work rate and the 2x-XY-2021 target, each bar marked FAIL where its
categories were not exact, or "did not run" where the run threw (bench-spdnn's log says why).
Usage: plot.py results.csv [more.csv ...] [--before earlier.csv] [--before-label TEXT] [--exact] -o chart.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    out = None   # default: the first CSV's name with .png
    paths = []
    before_path, before_label = None, "earlier run"
    exact = False
    i = 0
    while i < len(argv):
        if argv[i] == "-o":
            out = argv[i + 1]
            i += 2
        elif argv[i] == "--before":
            before_path = argv[i + 1]
            i += 2
        elif argv[i] == "--before-label":
            before_label = argv[i + 1]
            i += 2
        elif argv[i] == "--exact":
            exact = True
            i += 1
        else:
            paths.append(argv[i])
            i += 1
    if not paths:
        sys.exit(__doc__)
    if out is None:
        out = paths[0].rsplit(".", 1)[0] + ".png"
    rows = []
    for p in paths:
        with open(p) as f:
            rows.extend(csv.DictReader(f))
    rows.sort(key=lambda r: (int(r["neurons"]), int(r["layers"])))
    labels = [f'{r["neurons"]}x{r["layers"]}' for r in rows]
    if exact:
        plot_exact(rows, labels, out)
        return
    ours = [float(r["teraedges"]) for r in rows]
    pub = [float(r["published"]) for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(11, 5.5))
    width = 0.4
    offset_ours, offset_pub = -0.2, 0.2
    if before_path:
        with open(before_path) as f:
            earlier = {(r["neurons"], r["layers"]): float(r["teraedges"]) for r in csv.DictReader(f)}
        width = 0.27
        offset_ours, offset_pub = 0.0, 0.27
        ax.bar([i - 0.27 for i in x], [earlier.get((r["neurons"], r["layers"]), 0) for r in rows], width=width,
               label=before_label, color="#9ecae1")
    ax.bar([i + offset_ours for i in x], ours, width=width, label="snack fused engine (H200)", color="#2a7ab9")
    ax.bar([i + offset_pub for i in x], pub, width=width, label="best published single GPU", color="#bbbbbb")
    for i, p in enumerate(pub):
        if p > 0:
            ax.plot([i + offset_pub - width, i + offset_pub + width / 2], [2 * p, 2 * p], color="#c0392b", lw=1.5,
                    label="target: 2x published" if i == pub.index(next(q for q in pub if q > 0)) else None)
    for i, r in enumerate(rows):
        if r["pass"] != "1":
            ax.text(i + offset_ours, ours[i], "FAIL", ha="center", va="bottom", color="red")
    finish(fig, ax, labels, "SpDNN GraphChallenge, 60,000 inputs: inference rate per configuration", out)


def finish(fig, ax, labels, title, out):
    """What both charts share: a log rate axis, one tick per configuration, the legend below, the PNG."""
    ax.set_yscale("log")
    ax.set_xticks(list(range(len(labels))))
    ax.set_xticklabels(labels, rotation=30)
    ax.set_ylabel("TeraEdges/s (log)")
    ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=8)
    fig.savefig(out, dpi=120, bbox_inches="tight")   # the legend below the axes included


def plot_exact(rows, labels, out):
    """The tiled engine's exact-work runs per configuration against XY-2021 (the CSV's xy2021 column)."""
    kinds = [k[len("exact_"):-len("_teraedges")] for k in rows[0] if k.startswith("exact_") and k.endswith("_teraedges")]
    names = {"fp64": "exact work, FP64 sums, equal outputs once", "fp64-all": "exact work, FP64 sums, every output",
             "fp32": "exact work, FP32 sums, equal outputs once", "fp32-all": "exact work, FP32 sums, every output"}
    colors = ["#2a7ab9", "#9ecae1", "#e6550d", "#fdae6b"]
    n = len(kinds) + 1
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(11, 5.5))
    x = range(len(rows))
    for j, k in enumerate(kinds):
        vals = [float(r[f"exact_{k}_teraedges"]) for r in rows]
        pos = [i - 0.4 + width * (j + 0.5) for i in x]
        ax.bar(pos, vals, width=width, label=names.get(k, k), color=colors[j % len(colors)])
        for i, r in enumerate(rows):
            if r.get(f"exact_{k}_pass") == "0" and vals[i] > 0:
                ax.text(pos[i], vals[i], "FAIL", ha="center", va="bottom", color="red", fontsize=7)
            elif r.get(f"exact_{k}_pass") == "0":   # the run threw (out of memory, say): no bar on a log axis
                ax.text(pos[i], 0.02, "did not run", transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                        rotation=90, color="red", fontsize=7)
    xy = [float(r["xy2021"]) for r in rows]
    pos = [i - 0.4 + width * (len(kinds) + 0.5) for i in x]
    ax.bar(pos, xy, width=width, label="XY-2021, exact work (RTX A6000)", color="#bbbbbb")
    for i, v in enumerate(xy):
        if v > 0:
            ax.plot([i - 0.4, i + 0.4], [2 * v, 2 * v], color="#c0392b", lw=1.5,
                    label="target: 2x XY-2021" if i == 0 else None)
    finish(fig, ax, labels, "SpDNN exact work (every live row of every layer), 60,000 inputs", out)


if __name__ == "__main__":
    main(sys.argv[1:])
