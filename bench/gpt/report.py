#!/usr/bin/env python3
# bench/gpt/report.py: turns one GPU run of gpt_experiment.py and mlp_block_bench.py into the committed table
# (markdown, issue 39's targets marked met or missed) and chart (PNG): validation-loss curves of the three GPT variants,
# and the MLP block's training step per token count.
# Usage: report.py GPT.csv MLP.csv OUT_PREFIX   (writes OUT_PREFIX.md and OUT_PREFIX.png)
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from annotated_csv import read  # noqa: E402


def verdict(ok):
    return "met" if ok else "**missed**"


def after_ramp(rows, kind, meta):
    """The mean of the per-interval rates of `kind` over the evaluations after the ramp (the steps past --ramp of
    --steps, as the run's arguments in `meta` give them, else the experiment's defaults); '-' where the CSV predates
    the per-interval rate."""
    words = [w[len("args="):] if w.startswith("args=") else w for w in meta.split()]
    args = {w: v for w, v in zip(words, words[1:]) if w.startswith("--")}
    steps, ramp = int(args.get("--steps", 1500)), float(args.get("--ramp", 0.5))
    rates = [float(r["interval_tokens_per_s"]) for r in rows if r["kind"] == kind and
             r.get("interval_tokens_per_s") not in (None, "", "nan") and int(r["step"]) > ramp * steps]
    return f"{sum(rates) / len(rates):.0f}" if rates else "-"


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: report.py GPT.csv MLP.csv OUT_PREFIX")
    gmeta, grows = read(sys.argv[1])
    mmeta, mrows = read(sys.argv[2])
    out = sys.argv[3]
    kinds = [k for k in ("dense", "dense_mask", "snack") if any(r["kind"] == k for r in grows)]
    curve = {k: [(int(r["step"]), float(r["val_loss"])) for r in grows if r["kind"] == k] for k in kinds}
    last = {k: [r for r in grows if r["kind"] == k][-1] for k in kinds}
    label = {"dense": "dense nn.Linear", "dense_mask": "Dense+Mask", "snack": "snack SparseLinear"}

    device = next((w.split("=", 1)[1] for w in gmeta.replace("device=", "\ndevice=").split("\n") if w.startswith("device=")), "")
    device = device.split(" date=")[0].strip() or "GPU"
    md = [f"# SNACK's GPT experiment on the project's sparse layers ({device})", "",
          f"GPT run: `{gmeta}`", "", f"MLP block run: `{mmeta}`", "",
          "Produced by `bench/gpt/gpt_experiment.py` and `bench/gpt/mlp_block_bench.py` in one session on the GPU "
          "machine, and `bench/gpt/report.py`. fp32 throughout (no TF32 except the column that says so). Each MLP "
          "point and each GPT variant runs in a process of its own. Peak memory is PyTorch's allocated peak plus the "
          "peak of the CUDA default pool the library allocates from (an upper bound: the two peaks are added). The "
          "host column is the time the host takes to issue one step from an idle GPU: where it is close to the step's "
          "time, the step waits on the host, not on the GPU.", "",
          "## MLP block training step (768 -> 3072 -> 768, 90% sparse, forward + backward + AdamW)", "",
          "| tokens | dense fp32 (ms) | dense TF32 (ms) | Dense+Mask (ms) | snack (ms) | snack vs dense fp32 | "
          "snack vs D+M | host ms to issue a step, dense fp32 / snack | peak MiB dense / D+M / snack | memory vs D+M | "
          "target: step >= dense fp32 | target: memory >= 40% below D+M |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    tokens = sorted({int(r["tokens"]) for r in mrows})
    for t in tokens:
        m = {r["method"]: r for r in mrows if int(r["tokens"]) == t}
        ms = {k: float(v["step_ms"]) for k, v in m.items()}
        mem = {k: float(v["peak_bytes"]) / 2**20 for k, v in m.items()}
        less = 1 - mem["snack_fp32"] / mem["dense_mask_fp32"]
        host = " / ".join(f"{float(m[k]['host_ms']):.3f}" if m[k].get("host_ms") not in (None, "") else "-"
                          for k in ("dense_fp32", "snack_fp32"))
        md.append(f"| {t} | {ms['dense_fp32']:.3f} | {ms['dense_tf32']:.3f} | {ms['dense_mask_fp32']:.3f} | "
                  f"{ms['snack_fp32']:.3f} | {ms['dense_fp32'] / ms['snack_fp32']:.2f}x | "
                  f"{ms['dense_mask_fp32'] / ms['snack_fp32']:.2f}x | {host} | {mem['dense_fp32']:.0f} / "
                  f"{mem['dense_mask_fp32']:.0f} / {mem['snack_fp32']:.0f} | {abs(less):.0%} {'below' if less >= 0 else 'above'} | "
                  f"{verdict(ms['snack_fp32'] <= ms['dense_fp32'])} | {verdict(less >= 0.4)} |")
    if any(r["method"] == "snack_fp32_graph" for r in mrows):
        md += ["", "## The same step captured into a CUDA graph", "",
               "Each method's whole step (forward, backward, AdamW with `capturable=True`) captured once with "
               "`torch.cuda.graph` and replayed: no Python, autograd or library host work per step, so each method "
               "runs at its GPU time. This is what PyTorch offers for steps bound by the host (`torch.compile`'s "
               "\"reduce-overhead\" mode does the same); peaks are left out (a graph holds its memory in a pool of "
               "its own).", "",
               "| tokens | dense fp32 (ms) | Dense+Mask (ms) | snack (ms) | snack vs dense fp32 | snack vs D+M | "
               "target: step >= dense fp32 |",
               "|---|---|---|---|---|---|---|"]
        for t in tokens:
            ms = {r["method"]: float(r["step_ms"]) for r in mrows if int(r["tokens"]) == t}
            d, dm, sn = ms["dense_fp32_graph"], ms["dense_mask_fp32_graph"], ms["snack_fp32_graph"]
            md.append(f"| {t} | {d:.3f} | {dm:.3f} | {sn:.3f} | {d / sn:.2f}x | {dm / sn:.2f}x | {verdict(sn <= d)} |")
    md += ["", "## GPT training (byte-level, Debian's `fortunes` corpus)", "",
           "| variant | tokens/s | tokens/s after the ramp | peak MiB | final MLP density | final validation loss | "
           "vs Dense+Mask |",
           "|---|---|---|---|---|---|---|"]
    for k in kinds:
        r = last[k]
        ref = float(last["dense_mask"]["val_loss"]) if "dense_mask" in last else float("nan")
        md.append(f"| {label[k]} | {float(r['tokens_per_s']):.0f} | {after_ramp(grows, k, gmeta)} | "
                  f"{float(r['peak_bytes']) / 2**20:.0f} | "
                  f"{float(r['mlp_density']):.3f} | {float(r['val_loss']):.4f} | "
                  f"{(float(r['val_loss']) / ref - 1) * 100:+.2f}% |")
    if "snack" in curve and "dense_mask" in curve:
        dm = dict(curve["dense_mask"])
        worst = max((v / dm[s] - 1) * 100 for s, v in curve["snack"] if s in dm)
        md += ["", f"Validation loss of snack against Dense+Mask at the same step, worst over the evaluations: "
                   f"{worst:+.2f}% (target: within 2%: {verdict(worst <= 2.0)})."]
    md += ["", f"![GPT experiment]({os.path.basename(out)}.png)", ""]
    with open(out + ".md", "w") as f:
        f.write("\n".join(md))

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    for k in kinds:
        s, v = zip(*curve[k])
        a.plot(s, v, marker="o", ms=3, label=label[k])
    a.set_xlabel("step")
    a.set_ylabel("validation loss (nats per byte)")
    a.set_title("GPT on fortunes: MLPs 50% -> 90% sparse, SET every 100 steps")
    a.legend()
    a.grid(alpha=0.3)
    methods = [("dense_fp32", "dense fp32"), ("dense_tf32", "dense TF32"), ("dense_mask_fp32", "Dense+Mask"),
               ("snack_fp32", "snack 90%"), ("dense_fp32_graph", "dense fp32, CUDA graph"),
               ("snack_fp32_graph", "snack 90%, CUDA graph")]
    methods = [(m, name) for m, name in methods if any(r["method"] == m for r in mrows)]
    width = 0.8 / len(methods)
    for i, (m, name) in enumerate(methods):
        ys = [float(r["step_ms"]) for t in tokens for r in mrows if int(r["tokens"]) == t and r["method"] == m]
        b.bar([x + (i - (len(methods) - 1) / 2) * width for x in range(len(tokens))], ys, width, label=name,
              hatch="//" if m.endswith("_graph") else None)
    b.set_xticks(range(len(tokens)))
    b.set_xticklabels([str(t) for t in tokens])
    b.set_xlabel("tokens per step")
    b.set_ylabel("training step (ms)")
    b.set_title("MLP block 768-3072-768 step (lower is better)")
    b.legend()
    b.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out + ".png", dpi=110)


if __name__ == "__main__":
    main()
