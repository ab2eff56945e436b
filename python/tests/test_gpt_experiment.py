"""python/tests/test_gpt_experiment.py: the GPT experiment's machinery (bench/gpt/) at toy size on the CPU: the cubic
ramp from 50% to 90% sparsity reaches its target in both sparse variants, the count holds between rewirings, the
Dense+Mask rewiring keeps its count and zeroes what it changes, training lowers the loss, and every evaluation after
the untimed first steps carries its interval's rate. Skips without Debian's `fortunes` corpus (scripts/setup.sh
installs it)."""
import argparse
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpt"))
import common  # noqa: E402
import gpt_experiment  # noqa: E402


def corpus():
    try:
        return common.corpus_split(common.load_fortunes(), seed=0)
    except FileNotFoundError as e:
        pytest.skip(str(e))


def toy_args(**kw):
    a = dict(steps=40, layers=1, d=32, heads=4, context=32, batch=8, lr=3e-3, warmup=5, sparsity=0.9, initial=0.5,
             ramp=0.5, interval=10, zeta=0.3, eval_every=10, eval_batches=2, seed=0)
    a.update(kw)
    return argparse.Namespace(**a)


def test_corpus_split_holds_out_whole_fortunes():
    train, val = corpus()
    assert train.numel() > 2_000_000 and val.numel() > 200_000
    assert int(train.max()) < 256 and int(val.min()) >= 0


@pytest.mark.parametrize("kind", ["snack", "dense_mask"])
def test_ramp_reaches_the_target_and_training_learns(kind):
    train, val = corpus()
    torch.manual_seed(0)
    rows = gpt_experiment.run(kind, train, val, toy_args(), torch.device("cpu"), None)
    densities = [r["mlp_density"] for r in rows]
    assert densities[0] < 0.5 and abs(densities[-1] - 0.1) < 0.002, densities
    assert densities[1:] == sorted(densities[1:], reverse=True)
    assert rows[-1]["val_loss"] < rows[0]["val_loss"]
    rates = [r["interval_tokens_per_s"] for r in rows if r["step"] > 20]   # the first 20 steps are not timed
    assert rates and all(r > 0 for r in rates), rates


def test_mask_rewiring_keeps_the_count_and_zeroes_what_it_changes():
    torch.manual_seed(1)
    layer = common.MaskedLinear(30, 20, sparsity=0.8, seed=3)
    opt = torch.optim.Adam(layer.parameters(), lr=1e-2)
    layer(torch.randn(5, 30)).sum().backward()
    opt.step()
    before = layer.mask.clone()
    n = layer.nnz
    grown = common.mask_rewire(layer, 0.25, optimizer=opt, generator=torch.Generator().manual_seed(2))
    assert grown == round(0.25 * n) and layer.nnz == n
    changed = before != layer.mask
    assert int(changed.sum()) == 2 * grown
    assert torch.all(layer.weight[changed] == 0)
    assert torch.all(opt.state[layer.weight]["exp_avg"][changed] == 0)
    assert common.mask_prune_to(layer, n // 2, optimizer=opt) == n - n // 2 and layer.nnz == n // 2
