#!/usr/bin/env python3
# bench/layers/torch_linear.py: PyTorch's torch.nn.Linear on the GPU, the layer a PyTorch user would pick, on the same
# grid as layer_bench (in = out = M, batch 1 / 8 / 32 / 128): a training step (forward, a loss whose gradient is a
# fixed random dY, backward, torch.optim.Adam's step) and inference, in fp32 with TF32 tensor cores allowed and in
# bf16 (weights, activations and Adam state in bf16 under autocast-free dtype=torch.bfloat16). Times are the medians
# of CUDA-event timings of REPS repetitions after warm-up; memory is torch.cuda.max_memory_allocated over the step.
# Prints the same CSV columns as layer_bench (the sparsity column is 0: the layer is dense).
# Usage: torch_linear.py [--quick] [--reps N]
import sys
import time

import torch

sizes, batches, reps = [4096, 16384], [1, 8, 32, 128], 10
args = sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "--quick":
        sizes, batches, reps = [4096], [8, 128], 3
    elif a == "--reps":
        reps = int(args.pop(0))
    else:
        sys.exit("usage: torch_linear.py [--quick] [--reps N]")

dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True


def timed(f):
    f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        end.record()
        torch.cuda.synchronize()
        ts.append(start.elapsed_time(end))
    ts.sort()
    return ts[len(ts) // 2]


print(f"# device={torch.cuda.get_device_name(0)} torch={torch.__version__} "
      f"date={time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
print("M,sparsity,batch,method,step_ms,infer_ms,state_bytes,device_state_bytes,peak_bytes,note")
for M in sizes:
    for batch in batches:
        for name, dtype in (("torch_fp32_tf32", torch.float32), ("torch_bf16", torch.bfloat16)):
            torch.cuda.empty_cache()
            layer = torch.nn.Linear(M, M, device=dev, dtype=dtype)
            opt = torch.optim.Adam(layer.parameters(), lr=1e-3)
            x = torch.rand(batch, M, device=dev, dtype=dtype) * 2 - 1
            dy = torch.rand(batch, M, device=dev, dtype=dtype) * 2 - 1

            def step():
                opt.zero_grad(set_to_none=False)
                y = layer(x)
                y.backward(dy)
                opt.step()

            def infer():
                with torch.no_grad():
                    layer(x)

            step()  # Adam's state exists from here on
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
            step_ms = timed(step)
            peak = torch.cuda.max_memory_allocated()
            infer_ms = timed(infer)
            elem = torch.finfo(dtype).bits // 8
            state = 4 * M * M * elem  # weight, grad, exp_avg, exp_avg_sq
            print(f"{M},0,{batch},{name},{step_ms:.4f},{infer_ms:.4f},{state},{state},{peak},allocated before step {base}")
            sys.stdout.flush()
            del layer, opt, x, dy
