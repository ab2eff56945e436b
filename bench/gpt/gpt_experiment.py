"""bench/gpt/gpt_experiment.py: SNACK's GPT experiment on the project's sparse layers.

A small byte-level GPT (pre-LayerNorm blocks; the MLP of each block is GPT-2 small's, 768 x 3072 and 3072 x 768) is
trained on Debian's `fortunes` corpus three times, identical but for the MLP layers: dense nn.Linear, Dense+Mask, and
snack.nn.SparseLinear. The sparse MLPs start at 50% sparsity and are pruned to 90% along the cubic schedule of gradual
magnitude pruning over the first `--ramp` share of the steps; every `--interval` steps each is rewired by SET (the
fraction zeta decaying as a cosine to zero at 75% of training). Attention, embeddings and the head stay dense in all
three. Everything runs in fp32 (no TF32), with AdamW, warm-up and cosine decay, and gradient clipping at 1.

Prints, per variant, the training throughput (tokens per second over the steps after the first 20, evaluation
excluded, DST included; each row also has the rate over the steps since the last evaluation, so that the rate at the
final density, after the ramp, can be read apart), the peak device memory (common.DeviceMemory: PyTorch's allocator plus
the library's pool; on a GPU each variant trains in a process of its own, so that its peak holds nothing another variant
left behind), and the validation loss every `--eval-every` steps; writes them as CSV (`--out`, one row per evaluation)
with the device, date and commit. bench/gpt/report.py turns it into bench/results/gpt-h100.md (or -h200) and its chart.

  SNACK_LAYERS_LIB=build/layers/libsnack_layers_c.so PYTHONPATH=python python3 bench/gpt/gpt_experiment.py --out gpt.csv
"""
import argparse
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

import snack  # noqa: E402


class Block(torch.nn.Module):
    def __init__(self, d, heads, kind, sparsity, seed, device):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d, device=device)
        self.qkv = torch.nn.Linear(d, 3 * d, device=device)
        self.proj = torch.nn.Linear(d, d, device=device)
        self.ln2 = torch.nn.LayerNorm(d, device=device)
        self.fc = common.make_linear(kind, d, 4 * d, sparsity, seed, device)
        self.out = common.make_linear(kind, 4 * d, d, sparsity, seed + 1, device)

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        if hasattr(F, "scaled_dot_product_attention"):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:   # PyTorch 1.x
            att = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
            y = att.masked_fill(~causal, float("-inf")).softmax(dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(torch.nn.Module):
    def __init__(self, layers, d, heads, context, kind, sparsity, seed, device):
        super().__init__()
        self.tok = torch.nn.Embedding(256, d, device=device)
        self.pos = torch.nn.Embedding(context, d, device=device)
        self.blocks = torch.nn.ModuleList(Block(d, heads, kind, sparsity, seed + 10 * i, device) for i in range(layers))
        self.ln = torch.nn.LayerNorm(d, device=device)
        self.head = torch.nn.Linear(d, 256, bias=False, device=device)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))

    def mlp_layers(self):
        return [l for b in self.blocks for l in (b.fc, b.out)]


def batches(data, batch, context, generator, device):
    starts = torch.randint(0, data.numel() - context - 1, (batch,), generator=generator)
    x = torch.stack([data[s:s + context] for s in starts.tolist()])
    y = torch.stack([data[s + 1:s + 1 + context] for s in starts.tolist()])
    return x.to(device), y.to(device)


def sparsity_at(step, args):
    """Gradual magnitude pruning's cubic ramp from --initial to --sparsity over the first --ramp of the steps."""
    ramp = max(1, int(args.ramp * args.steps))
    r = min(1.0, step / ramp)
    return args.sparsity + (args.initial - args.sparsity) * (1.0 - r) ** 3


def zeta_at(step, args):
    stop = 0.75 * args.steps
    return 0.0 if step >= stop else args.zeta * 0.5 * (1.0 + math.cos(math.pi * step / stop))


def evaluate(model, val, args, device):
    g = torch.Generator().manual_seed(1234)
    model.eval()
    total = 0.0
    with torch.no_grad():
        for _ in range(args.eval_batches):
            x, y = batches(val, args.batch, args.context, g, device)
            total += F.cross_entropy(model(x).flatten(0, 1), y.flatten()).item()
    model.train()
    return total / args.eval_batches


def run(kind, train, val, args, device, memory):
    torch.manual_seed(args.seed)
    if memory is not None:
        memory.reset()
    initial = args.initial if kind != "dense" else 0.0
    model = GPT(args.layers, args.d, args.heads, args.context, kind, initial, args.seed, device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / args.warmup) * 0.5 * (1.0 + math.cos(math.pi * min(s, args.steps) / args.steps)))
    rewire = snack.dst.SET(model, zeta=args.zeta, interval=args.interval, optimizer=opt, seed=args.seed) \
        if kind == "snack" else None
    mask_gen = torch.Generator().manual_seed(args.seed)
    data_gen = torch.Generator().manual_seed(args.seed + 1)
    rows, timed, timed_tokens = [], 0.0, 0
    sync = (lambda: torch.cuda.synchronize(device)) if device.type == "cuda" else (lambda: None)
    last = time.perf_counter()
    for step in range(1, args.steps + 1):
        x, y = batches(train, args.batch, args.context, data_gen, device)
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if kind != "dense" and step % args.interval == 0:
            target = sparsity_at(step, args)
            for layer in model.mlp_layers():
                count = max(1, round((1.0 - target) * layer.in_features * layer.out_features))
                if kind == "snack":
                    snack.dst.prune_to(layer, count, optimizer=opt)
                else:
                    common.mask_prune_to(layer, count, optimizer=opt)
            if kind == "snack":
                rewire.zeta = zeta_at(step, args)
            else:
                for layer in model.mlp_layers():
                    common.mask_rewire(layer, zeta_at(step, args), optimizer=opt, generator=mask_gen)
        if rewire is not None:
            rewire.step()
        if step % args.eval_every == 0 or step == args.steps:
            sync()
            now = time.perf_counter()
            interval_rate = float("nan")
            if step > 20:
                tokens = (step - max(20, step - args.eval_every)) * args.batch * args.context
                timed += now - last
                timed_tokens += tokens
                interval_rate = tokens / (now - last)
            val_loss = evaluate(model, val, args, device)
            mlp = model.mlp_layers()
            nnz = sum(l.nnz if kind != "dense" else l.in_features * l.out_features for l in mlp)
            density = nnz / sum(l.in_features * l.out_features for l in mlp)
            rows.append({"kind": kind, "step": step, "train_loss": loss.item(), "val_loss": val_loss,
                         "mlp_density": density, "interval_tokens_per_s": interval_rate})
            print(f"[gpt] {kind:10s} step {step:5d}  train {loss.item():.4f}  val {val_loss:.4f}  "
                  f"MLP density {density:.3f}", flush=True)
            sync()
            last = time.perf_counter()
        elif step == 20:
            sync()
            last = time.perf_counter()
    tokens_per_s = timed_tokens / timed if timed > 0 else float("nan")
    peak = memory.peak() if memory is not None else (float("nan"), float("nan"), None)
    for r in rows:
        r.update(tokens_per_s=tokens_per_s, peak_bytes=peak[0], torch_peak_bytes=peak[1],
                 pool_peak_bytes=peak[2] if peak[2] is not None else "")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kinds", default=",".join(common.KINDS))
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--d", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--context", type=int, default=256)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=6e-4)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--sparsity", type=float, default=0.9)
    p.add_argument("--initial", type=float, default=0.5)
    p.add_argument("--ramp", type=float, default=0.5)
    p.add_argument("--interval", type=int, default=100)
    p.add_argument("--zeta", type=float, default=0.3)
    p.add_argument("--eval-every", type=int, default=100)
    p.add_argument("--eval-batches", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--corpus", default=None, help="the fortunes folder (default $SNACK_FORTUNES_DIR or Debian's)")
    p.add_argument("--out", default=None)
    p.add_argument("--result-json", default=None,
                   help="internal: train the one kind of --kinds in this process, its rows written to this file")
    args = p.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    train, val = common.corpus_split(common.load_fortunes(args.corpus), seed=args.seed)
    print(f"[gpt] corpus: {train.numel()} training bytes, {val.numel()} validation bytes; "
          f"{args.layers} blocks of d={args.d}, MLP {args.d}x{4 * args.d}, context {args.context}, batch {args.batch}",
          flush=True)
    memory = common.DeviceMemory(device) if device.type == "cuda" else None
    if args.result_json:
        common.write_result_json(args.result_json, run(args.kinds, train, val, args, device, memory))
        return
    rows = []
    for kind in args.kinds.split(","):
        rows += (run(kind, train, val, args, device, memory) if memory is None else
                 common.in_fresh_process(__file__, [*sys.argv[1:], "--kinds", kind], f"training {kind}"))
    name, stamp, commit = common.run_stamp(device)
    print(f"\n[gpt] {name}, {stamp}, commit {commit}, torch {torch.__version__}")
    print(f"{'kind':12s} {'tokens/s':>10s} {'peak MiB':>9s} {'final val':>9s}")
    for kind in args.kinds.split(","):
        mine = [r for r in rows if r["kind"] == kind]
        print(f"{kind:12s} {mine[-1]['tokens_per_s']:10.0f} {mine[-1]['peak_bytes'] / 2**20:9.1f} "
              f"{mine[-1]['val_loss']:9.4f}")
    if args.out:
        common.write_csv(args.out, common.run_meta(name, stamp, commit, f"args={' '.join(sys.argv[1:])}"), rows)


if __name__ == "__main__":
    main()
