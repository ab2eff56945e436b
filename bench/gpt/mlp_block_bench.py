"""bench/gpt/mlp_block_bench.py: one training step of a GPT-2-small MLP block (768 -> 3072, GELU, 3072 -> 768) at 90%
sparsity, against dense nn.Linear and Dense+Mask, side by side in one run.

A step is the forward, the backward and an AdamW update of the block's parameters, on tokens = batch x sequence rows
(default 1 x 1024 to 8 x 1024). Dense runs in fp32 twice: as PyTorch runs it by default (no TF32: the same precision as
the sparse layers) and with TF32 tensor cores allowed (reported beside it, not the target's baseline). Dense+Mask
multiplies its weights by a 0/1 mask in every forward. Each point is the median of --repeat timed steps (CUDA events,
after --warmup steps), beside the host's time to issue one step from an idle GPU (where the two are close, the step is
bound by the host); peak memory is common.DeviceMemory's over the timed steps (PyTorch's allocator plus the library's
pool). With --graphs (the default) dense fp32, Dense+Mask and snack are timed a second time with the whole step
captured into one CUDA graph and replayed, the configuration PyTorch offers where a step is bound by the host
(torch.cuda.graph; torch.compile's "reduce-overhead"): that leaves each method its GPU time (the graphed points' peaks
are not comparable with the others': a graph's memory is held in its own pool). Each point runs in a process of its
own, so that no method's peak holds memory another one left behind (cuBLAS's workspaces, which PyTorch keeps allocated
once a dense product has run, are about 70 MiB). Prints a table with ratios, the device, the date and the commit;
--out writes it as CSV. --profile TOKENS prints instead where the snack block's step spends its GPU time, kernel by
kernel (torch.profiler).
"""
import argparse
import os
import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


class Mlp(torch.nn.Module):
    def __init__(self, kind, d, sparsity, device):
        super().__init__()
        self.fc = common.make_linear(kind, d, 4 * d, sparsity, 1, device)
        self.out = common.make_linear(kind, 4 * d, d, sparsity, 2, device)

    def forward(self, x):
        return self.out(F.gelu(self.fc(x)))


def training_step(kind, tokens, args, device, graphed=False):
    """One training step of a fresh block of `kind` on `tokens` random rows (forward, backward, AdamW), as a function,
    after --warmup steps. `graphed`: the step captured once into a CUDA graph (torch.cuda.graph, AdamW capturable), the
    function replaying it, so that no Python, autograd or library host work is left per step."""
    torch.manual_seed(0)
    block = Mlp(kind, args.d, args.sparsity, device)
    opt = torch.optim.AdamW(block.parameters(), lr=1e-4, capturable=graphed)
    x = torch.randn(tokens, args.d, device=device, requires_grad=True)
    g = torch.randn(tokens, args.d, device=device)

    def step():
        opt.zero_grad(set_to_none=True)
        block(x).backward(g)
        opt.step()

    if not graphed:
        for _ in range(args.warmup):
            step()
        return step
    # PyTorch's rule for capturing autograd: warm up on a side stream; the gradients made in the capture are the
    # graph's, rewritten by every replay.
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for _ in range(args.warmup):
            step()
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        block(x).backward(g)
        opt.step()

    def replay(keep=(block, opt, x, g)):   # the graph reads their memory: they live as long as it is replayed
        graph.replay()

    return replay


def time_steps(kind, tokens, args, device, memory, tf32, graphed=False):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    step = training_step(kind, tokens, args, device, graphed)
    memory.reset()
    times = []
    for _ in range(args.repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    peak = memory.peak()
    # The host's time to issue one step, from an idle GPU (the step runs host-bound where it is about step_ms).
    issue = []
    for _ in range(args.repeat):
        torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        step()
        issue.append((time.perf_counter() - t0) * 1e3)
    torch.cuda.synchronize(device)
    torch.backends.cuda.matmul.allow_tf32 = False
    return statistics.median(times), peak, statistics.median(issue)


def measure_point(kind, tf32, graphed, tokens, args):
    """time_steps' (median ms, (peak, torch's part, the pool's part), host ms to issue a step) of one point, measured in
    a fresh process."""
    argv = ["--point", f"{kind},{int(tf32)},{int(graphed)},{tokens}", "--d", str(args.d),
            "--sparsity", str(args.sparsity), "--warmup", str(args.warmup), "--repeat", str(args.repeat)]
    result = common.in_fresh_process(__file__, argv,
                                     f"the point {kind} (tf32={tf32}, graphed={graphed}) at {tokens} tokens")
    return result["ms"], tuple(result["peak"]), result["host_ms"]


def kernel_label(name):
    """A GPU kernel's name shortened to what says which code it is: a Kokkos kernel by the function its lambda is
    written in (the closure type names it: snk::kokkos::portable::masked_dot_full_tiled, ...; the loop helpers for_n
    and for_n_stream only where nothing else is named), others by their function name."""
    if "Kokkos::Impl" in name:
        found = re.findall(r"snk::(?:[A-Za-z_]+::)*([A-Za-z_]+)[<(]", name)
        helpers = ("CsrRef", "MonoidFn", "DenseOperand", "Partial", "Piece16", "for_n", "for_n_stream")
        picked = [f for f in found if f not in helpers]
        return "kokkos: " + (picked[0] if picked else found[0] if found else name[:60])
    return re.sub(r"^void ", "", name).replace("(anonymous namespace)::", "").split("(")[0][:70]


def profile(tokens, args, device, steps=10):
    """The snack block's step under torch.profiler: GPU time per step by kernel, largest first."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile
    step = training_step("snack", tokens, args, device)
    torch.cuda.synchronize(device)
    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize(device)
    totals = {}
    for e in prof.key_averages():
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = e.self_cuda_time_total
        if us > 0:
            label = kernel_label(e.key)
            n, t = totals.get(label, (0, 0.0))
            totals[label] = (n + e.count, t + us)
    total = sum(t for _, t in totals.values())
    print(f"\n[mlp] snack block at {tokens} tokens, {steps} steps: {total / steps / 1000:.3f} ms of GPU time per step")
    print(f"{'kernel':72s} {'calls/step':>10s} {'ms/step':>8s} {'share':>6s}")
    for label, (n, t) in sorted(totals.items(), key=lambda kv: -kv[1][1])[:25]:
        print(f"{label:72s} {n / steps:10.1f} {t / steps / 1000:8.3f} {t / total:6.1%}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tokens", default="1024,2048,4096,8192")
    p.add_argument("--d", type=int, default=768)
    p.add_argument("--sparsity", type=float, default=0.9)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--out", default=None)
    p.add_argument("--profile", type=int, default=0, metavar="TOKENS",
                   help="instead of the table: the snack block's GPU time per step by kernel at TOKENS tokens")
    p.add_argument("--graphs", type=int, default=1,
                   help="1 (default): also time dense fp32, Dense+Mask and snack with the step in a CUDA graph")
    p.add_argument("--point", default=None, metavar="KIND,TF32,GRAPHED,TOKENS",
                   help="internal: measure one point in this process (its result to --result-json)")
    p.add_argument("--result-json", default=None, help="internal: where --point writes its result")
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("mlp_block_bench: no CUDA device")
    device = torch.device("cuda")
    if args.profile > 0:
        profile(args.profile, args, device)
        return
    if args.point:
        kind, tf32, graphed, tokens = args.point.split(",")
        ms, peak, host = time_steps(kind, int(tokens), args, device, common.DeviceMemory(device), tf32 == "1",
                                    graphed == "1")
        common.write_result_json(args.result_json, {"ms": ms, "peak": peak, "host_ms": host})
        return
    rows = []
    configs = [("dense", False, False, "dense_fp32"), ("dense", True, False, "dense_tf32"),
               ("dense_mask", False, False, "dense_mask_fp32"), ("snack", False, False, "snack_fp32")]
    if args.graphs:
        configs += [("dense", False, True, "dense_fp32_graph"), ("dense_mask", False, True, "dense_mask_fp32_graph"),
                    ("snack", False, True, "snack_fp32_graph")]
    for tokens in [int(t) for t in args.tokens.split(",")]:
        for kind, tf32, graphed, name in configs:
            ms, peak, host = measure_point(kind, tf32, graphed, tokens, args)
            rows.append({"tokens": tokens, "method": name, "step_ms": ms, "host_ms": host, "peak_bytes": peak[0],
                         "torch_peak_bytes": peak[1], "pool_peak_bytes": peak[2] if peak[2] is not None else ""})
            print(f"[mlp] tokens {tokens:5d} {name:16s} {ms:8.3f} ms (host {host:6.3f} ms to issue)  "
                  f"peak {peak[0] / 2**20:8.1f} MiB", flush=True)
    name, stamp, commit = common.run_stamp(device)
    print(f"\n[mlp] {name}, {stamp}, commit {commit}, torch {torch.__version__}; d={args.d}, sparsity {args.sparsity}")
    print(f"{'tokens':>6s} {'dense fp32':>10s} {'dense tf32':>10s} {'D+M':>8s} {'snack':>8s} {'vs dense':>8s} "
          f"{'vs D+M':>7s} {'mem vs D+M':>10s}"
          + ("  graphed: dense fp32    D+M   snack vs dense" if args.graphs else ""))
    for tokens in sorted({r["tokens"] for r in rows}):
        m = {r["method"]: r for r in rows if r["tokens"] == tokens}
        s, d, t, dm = m["snack_fp32"], m["dense_fp32"], m["dense_tf32"], m["dense_mask_fp32"]
        less = 1 - s["peak_bytes"] / dm["peak_bytes"]
        line = (f"{tokens:6d} {d['step_ms']:10.3f} {t['step_ms']:10.3f} {dm['step_ms']:8.3f} {s['step_ms']:8.3f} "
                f"{d['step_ms'] / s['step_ms']:7.2f}x {dm['step_ms'] / s['step_ms']:6.2f}x "
                f"{abs(less):9.0%} {'below' if less >= 0 else 'above'}")
        if args.graphs:
            gd, gdm, gs = m["dense_fp32_graph"], m["dense_mask_fp32_graph"], m["snack_fp32_graph"]
            line += (f"  {gd['step_ms']:18.3f} {gdm['step_ms']:6.3f} {gs['step_ms']:7.3f} "
                     f"{gd['step_ms'] / gs['step_ms']:7.2f}x")
        print(line)
    if args.out:
        common.write_csv(args.out, common.run_meta(name, stamp, commit, f"d={args.d} sparsity={args.sparsity}"), rows)


if __name__ == "__main__":
    main()
