#!/usr/bin/env python3
# bench/layers/report.py: joins layer_bench's CSV and torch_linear.py's CSV (one run on one GPU) into the committed
# table (markdown, with the targets marked met or missed), a merged CSV and a chart (PNG): each point's
# training-step and inference speed-up of SparseLinear over dense cuBLAS, Dense+Mask and torch.nn.Linear.
# Usage: report.py LAYER_BENCH.csv TORCH.csv OUT_PREFIX   (writes OUT_PREFIX.md, .csv, .png)
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from annotated_csv import read  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: report.py LAYER_BENCH.csv TORCH.csv OUT_PREFIX")
    meta, rows = read(sys.argv[1])
    tmeta, trows = read(sys.argv[2])
    out = sys.argv[3]
    by = {}
    for r in rows:
        by[(int(r["M"]), round(float(r["sparsity"]), 2), int(r["batch"]), r["method"])] = r
    torch = {}
    for r in trows:
        torch[(int(r["M"]), int(r["batch"]), r["method"])] = r
    points = sorted({(k[0], k[1], k[2]) for k in by})

    def f(r, k):
        return float(r[k])

    lines = []
    lines.append("# A sparse linear layer on the H200: SparseLinear against dense cuBLAS, Dense+Mask and torch.nn.Linear\n")
    lines.append(f"Run: layer_bench ({meta}); torch_linear.py ({tmeta}).\n")
    lines.append(
        "One layer of in = out = M features, Y = X W^T + b, FP32 weights and activations. `step` = forward, backward "
        "(dX, dW, db) and an Adam update; `infer` = forward alone. SparseLinear (`snack`) runs on the cuda backend "
        "through GraphBLAS calls (the SpMM family's X W^T and W^T X orientations, its sampled product for dW, "
        "Adam as snk::optimizer_step, one pass over the values). `cuBLAS` = the dense layer, pedantic FP32 SGEMM in the faster "
        "argument order per GEMM plus a fused Adam kernel; `D+M` = the same with W and dW multiplied by a 0/1 mask "
        "every step; `torch` = torch.nn.Linear with torch.optim.Adam, in FP32 with TF32 tensor cores allowed, and in "
        "bf16. Times are medians of 10 repetitions (CUDA events for torch, a synchronized wall clock for the others). "
        "Ratios are the other method's time over snack's (> 1: snack is faster). `state` = bytes of W, dW and Adam's "
        "two moments: `host` counts each as its own CSR matrix (8-byte column indices), `device` as the cuda backend "
        "holds them, four value arrays on one shared pattern (results that keep an operand's pattern share its "
        "arrays: MatrixOnDevice::with_values), plus the dense bias vectors; `peak` = device memory the step held (snack: "
        "device memory in use after the steps over what was in use before the layer existed, the pool trimmed "
        "before the point; cuBLAS: its allocations; torch: max_memory_allocated). `snack bf16` = the same layer with "
        "W's precision hint at BF16 (SNK_PRECISION_HINT): the forward and dX products round W and the activations to "
        "BF16 and sum in FP32; weights, gradients and Adam state stay FP32.\n")
    lines.append("| M | sparsity | batch | snack step ms | cuBLAS step ms | D+M step ms | torch fp32 step ms | "
                 "torch bf16 step ms | vs cuBLAS | vs D+M | vs torch fp32 | vs torch bf16 | snack infer ms | "
                 "cuBLAS infer ms | torch bf16 infer ms | infer vs cuBLAS | infer vs torch bf16 | snack state MB (host) | "
                 "snack state MB (device) | dense state MB | device state % of dense | snack peak MB | cuBLAS peak MB | "
                 "torch fp32 peak MB | snack bf16 step ms | snack bf16 infer ms | bf16 infer vs torch bf16 |")
    lines.append("|" + "---|" * 27)
    merged = []
    for (M, sp, b) in points:
        s, d, dm = by[(M, sp, b, "snack")], by[(M, sp, b, "cublas")], by[(M, sp, b, "dense_mask")]
        t32, t16 = torch.get((M, b, "torch_fp32_tf32")), torch.get((M, b, "torch_bf16"))
        ss = f(s, "step_ms")
        row = [M, f"{sp:.0%}", b, f"{ss:.3f}", f"{f(d, 'step_ms'):.3f}", f"{f(dm, 'step_ms'):.3f}",
               f"{f(t32, 'step_ms'):.3f}" if t32 else "-", f"{f(t16, 'step_ms'):.3f}" if t16 else "-",
               f"{f(d, 'step_ms') / ss:.2f}x", f"{f(dm, 'step_ms') / ss:.2f}x",
               f"{f(t32, 'step_ms') / ss:.2f}x" if t32 else "-", f"{f(t16, 'step_ms') / ss:.2f}x" if t16 else "-",
               f"{f(s, 'infer_ms'):.3f}", f"{f(d, 'infer_ms'):.3f}", f"{f(t16, 'infer_ms'):.3f}" if t16 else "-",
               f"{f(d, 'infer_ms') / f(s, 'infer_ms'):.2f}x",
               f"{f(t16, 'infer_ms') / f(s, 'infer_ms'):.2f}x" if t16 else "-",
               f"{f(s, 'state_bytes') / 2**20:.1f}", f"{f(s, 'device_state_bytes') / 2**20:.1f}",
               f"{f(d, 'state_bytes') / 2**20:.1f}",
               f"{100 * f(s, 'device_state_bytes') / f(d, 'state_bytes'):.0f}%", f"{f(s, 'peak_bytes') / 2**20:.0f}",
               f"{f(d, 'peak_bytes') / 2**20:.0f}", f"{f(t32, 'peak_bytes') / 2**20:.0f}" if t32 else "-"]
        h = by.get((M, sp, b, "snack_bf16"))
        row += [f"{f(h, 'step_ms'):.3f}" if h else "-", f"{f(h, 'infer_ms'):.3f}" if h else "-",
                f"{f(t16, 'infer_ms') / f(h, 'infer_ms'):.2f}x" if h and t16 else "-"]
        lines.append("| " + " | ".join(str(x) for x in row) + " |")
        merged.append(dict(M=M, sparsity=sp, batch=b, snack_step=ss, cublas_step=f(d, "step_ms"),
                           dense_mask_step=f(dm, "step_ms"), torch_fp32_step=f(t32, "step_ms") if t32 else "",
                           torch_bf16_step=f(t16, "step_ms") if t16 else "", snack_infer=f(s, "infer_ms"),
                           cublas_infer=f(d, "infer_ms"), torch_bf16_infer=f(t16, "infer_ms") if t16 else "",
                           snack_state=f(s, "state_bytes"), snack_device_state=f(s, "device_state_bytes"),
                           dense_state=f(d, "state_bytes"),
                           snack_peak=f(s, "peak_bytes"), cublas_peak=f(d, "peak_bytes"),
                           snack_bf16_step=f(h, "step_ms") if h else "", snack_bf16_infer=f(h, "infer_ms") if h else ""))

    # The targets at 16384 features, 90% sparsity, batch up to 32.
    lines.append("\nTargets at M = 16384, 90% sparsity, batch 1 to 32 (each point must meet it):\n")
    lines.append("| target | batch 1 | batch 8 | batch 32 | |")
    lines.append("|---|---|---|---|---|")

    def target(name, ratio, need, fmt="{:.2f}x"):
        vals, ok = [], True
        for b in (1, 8, 32):
            v = ratio(b)
            vals.append(fmt.format(v) if v is not None else "-")
            ok = ok and v is not None and need(v)
        lines.append(f"| {name} | " + " | ".join(vals) + f" | {'met' if ok else 'missed'} |")

    def at(b, m):
        return by.get((16384, 0.9, b, m))
    target("training step >= 5x faster than dense fp32 (cuBLAS)",
           lambda b: f(at(b, "cublas"), "step_ms") / f(at(b, "snack"), "step_ms"), lambda v: v >= 5)
    target("training step >= 10x faster than Dense+Mask",
           lambda b: f(at(b, "dense_mask"), "step_ms") / f(at(b, "snack"), "step_ms"), lambda v: v >= 10)
    target("bf16 inference >= 2x faster than torch.nn.Linear bf16 (snack bf16: W's BF16 precision hint)",
           lambda b: (f(torch[(16384, b, "torch_bf16")], "infer_ms") / f(at(b, "snack_bf16"), "infer_ms"))
           if (16384, b, "torch_bf16") in torch and at(b, "snack_bf16") else None, lambda v: v >= 2)
    target("weights, gradient and Adam state <= 20% of the dense layer's (device)",
           lambda b: 100 * f(at(b, "snack"), "device_state_bytes") / f(at(b, "cublas"), "state_bytes"),
           lambda v: v <= 20, "{:.0f}%")
    target("the same counting each matrix as its own CSR (host form)",
           lambda b: 100 * f(at(b, "snack"), "state_bytes") / f(at(b, "cublas"), "state_bytes"), lambda v: v <= 20,
           "{:.0f}%")
    with open(out + ".md", "w") as fo:
        fo.write("\n".join(lines) + "\n")
    with open(out + ".csv", "w", newline="") as fo:
        w = csv.DictWriter(fo, fieldnames=list(merged[0].keys()))
        w.writeheader()
        w.writerows(merged)

    # Chart: step and inference speed-up over cuBLAS and torch bf16, per batch, one panel per (M, sparsity) row.
    sizes = sorted({p[0] for p in points})
    sps = sorted({p[1] for p in points})
    fig, axes = plt.subplots(len(sizes), 2, figsize=(13, 4.2 * len(sizes)), squeeze=False)
    for i, M in enumerate(sizes):
        for j, what in enumerate(("step", "infer")):
            ax = axes[i][j]
            for sp in sps:
                bs = [p[2] for p in points if p[0] == M and p[1] == sp]
                ys = [f(by[(M, sp, b, "cublas")], what + "_ms") / f(by[(M, sp, b, "snack")], what + "_ms") for b in bs]
                ax.plot(bs, ys, marker="o", label=f"vs cuBLAS fp32, {sp:.0%} sparse")
                if what == "infer" and all((M, b, "torch_bf16") in torch and (M, sp, b, "snack_bf16") in by for b in bs):
                    yb = [f(torch[(M, b, "torch_bf16")], "infer_ms") / f(by[(M, sp, b, "snack_bf16")], "infer_ms")
                          for b in bs]
                    ax.plot(bs, yb, marker="^", linestyle="--", label=f"snack bf16 vs torch bf16, {sp:.0%}")
                if what == "step":
                    ym = [f(by[(M, sp, b, "dense_mask")], "step_ms") / f(by[(M, sp, b, "snack")], "step_ms") for b in bs]
                    ax.plot(bs, ym, marker="s", linestyle=":", label=f"vs Dense+Mask, {sp:.0%}")
            ax.axhline(1.0, color="black", linewidth=0.8)
            if M == 16384 and what == "step":
                ax.axhline(5.0, color="red", linestyle="--", linewidth=0.8, label="target vs cuBLAS (90%): 5x")
            if M == 16384 and what == "infer":
                ax.axhline(2.0, color="red", linestyle="--", linewidth=0.8, label="target bf16 vs torch bf16 (90%): 2x")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("batch")
            ax.set_ylabel("speed-up of SparseLinear (x)")
            ax.set_title(f"M = {M}: {'training step' if what == 'step' else 'inference'}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
    fig.suptitle("SparseLinear (cuda backend) against dense layers on the H200, FP32")
    fig.tight_layout()
    fig.savefig(out + ".png", dpi=110)


if __name__ == "__main__":
    main()
