#!/usr/bin/env python3
# bench/layers/accuracy_report.py SUMMARY OUT_PREFIX: accuracy.sh's summary (one line per run) as the committed
# table (OUT_PREFIX.md, with the target: at 90% sparsity within 1 point of the dense MLP) and a chart (OUT_PREFIX.png).
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

if len(sys.argv) != 4:
    sys.exit("usage: accuracy_report.py SUMMARY OUT_PREFIX HEADER")
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) epoch \d+/\d+  train loss ([\d.]+) acc ([\d.]+)%  test loss ([\d.]+) acc ([\d.]+)%  "
                 r"density ([\d.]+)% \((\d+) weights\)", line)
    if m:
        runs[m.group(1)] = dict(train_loss=float(m.group(2)), train_acc=float(m.group(3)),
                                test_loss=float(m.group(4)), test_acc=float(m.group(5)),
                                density=float(m.group(6)), weights=int(m.group(7)))
dense = runs["dense"]["test_acc"]
methods = ["none", "set", "rigl", "snack"]
names = {"none": "static", "set": "SET", "rigl": "RigL", "snack": "SNACK's rule"}
out = sys.argv[2]
lines = ["# Fashion-MNIST accuracy of sparse MLPs trained with snack-train\n", sys.argv[3] + "\n",
         "784-300-100-10, ReLU, Adam (lr 3e-3), batch 128, 8 epochs over the 60,000 training images; test accuracy on "
         "the 10,000 test images after the last epoch. Sparse runs: every layer at the given sparsity from the start "
         "(uniform; `(ERK)`: per-layer densities by Erdos-Renyi-Kernel for the same total), rewired every 200 steps (zeta 0.3, cosine decay, no rewiring after 75% of training) by the "
         "method named; `static` never rewires.\n",
         f"Dense MLP: test accuracy {dense:.2f}% ({runs['dense']['weights']} weights).\n",
         "| sparsity | method | weights | test accuracy | vs dense (points) | train loss | test loss |",
         "|---|---|---|---|---|---|---|"]
for prefix, label in (("s", ""), ("e", " (ERK)")):
    for s in ("0.9", "0.95", "0.99"):
        for d in methods:
            r = runs.get(f"{prefix}{s}_{d}")
            if r:
                lines.append(f"| {float(s):.0%}{label} | {names[d]} | {r['weights']} | {r['test_acc']:.2f}% | "
                             f"{r['test_acc'] - dense:+.2f} | {r['train_loss']:.4f} | {r['test_loss']:.4f} |")
best90 = max((runs[f"s0.9_{d}"]["test_acc"], names[d]) for d in methods if f"s0.9_{d}" in runs)
lines.append(f"\nTarget: at 90% sparsity, test accuracy within 1 point of the dense MLP of the same shape: best "
             f"{best90[0]:.2f}% ({best90[1]}) against {dense:.2f}%, {best90[0] - dense:+.2f} points: "
             f"{'met' if best90[0] >= dense - 1 else 'missed'}.")
open(out + ".md", "w").write("\n".join(lines) + "\n")
fig, ax = plt.subplots(figsize=(8, 4.5))
xs = [0.9, 0.95, 0.99]
for d in methods:
    ys = [runs[f"s{s}_{d}"]["test_acc"] if f"s{s}_{d}" in runs else float("nan") for s in ("0.9", "0.95", "0.99")]
    line = ax.plot([100 * x for x in xs], ys, marker="o", label=names[d])[0]
    erk = [(100 * float(s), runs[f"e{s}_{d}"]["test_acc"]) for s in ("0.9", "0.95", "0.99") if f"e{s}_{d}" in runs]
    if erk:
        ax.plot([p[0] for p in erk], [p[1] for p in erk], marker="s", linestyle="none", color=line.get_color(),
                label=names[d] + " (ERK)")
ax.axhline(dense, color="black", linestyle="--", label=f"dense ({dense:.2f}%)")
ax.axhline(dense - 1, color="red", linestyle=":", label="target at 90%: dense - 1 point")
ax.set_xlabel("sparsity (%)")
ax.set_ylabel("test accuracy (%)")
ax.set_title("Fashion-MNIST, 784-300-100-10, 8 epochs")
ax.grid(True, alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(out + ".png", dpi=110)
