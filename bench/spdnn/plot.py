#!/usr/bin/env python3
"""bench/spdnn/plot.py: draws the SpDNN benchmark chart from the CSV bench-spdnn writes.

One bar per configuration (neurons x layers, log scale in TeraEdges/s), with the best published single-GPU
figure beside it where one is known and the 2x-published target as a tick; with --before, a lighter bar for
an earlier run of the engine (for instance before an engine change) beside each.
Usage: plot.py results.csv [more.csv ...] [--before earlier.csv] [--before-label TEXT] -o chart.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    out = "spdnn-h200.png"
    paths = []
    before_path, before_label = None, "earlier run"
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
        else:
            paths.append(argv[i])
            i += 1
    rows = []
    for p in paths:
        with open(p) as f:
            rows.extend(csv.DictReader(f))
    rows.sort(key=lambda r: (int(r["neurons"]), int(r["layers"])))
    labels = [f'{r["neurons"]}x{r["layers"]}' for r in rows]
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
    ax.set_yscale("log")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=30)
    ax.set_ylabel("TeraEdges/s (log)")
    ax.set_title("SpDNN GraphChallenge, 60,000 inputs: inference rate per configuration")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main(sys.argv[1:])
