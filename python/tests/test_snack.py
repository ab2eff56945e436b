"""python/tests/test_snack.py: the snack package against PyTorch itself (float64 gradcheck, nn.Linear on masked
weights), the DST invariants, state-dict round trips, and clear errors for bad input. Run by the README's test command
(pytest, with SNACK_LAYERS_LIB pointing at the built library); the CUDA cases (the same checks on CUDA tensors, a chain
of layers passing features-by-batch tensors, and a short training run with SET on the GPU) skip where PyTorch sees no
GPU."""
import ctypes
import io
import math

import pytest
import torch

import snack
from snack.nn import SparseLinear, sparsify


def masked_linear(layer):
    """The same layer as a dense nn.Linear whose weights are zero off the pattern."""
    dense = torch.nn.Linear(layer.in_features, layer.out_features, bias=layer.bias is not None,
                            dtype=layer.weight_values.dtype)
    with torch.no_grad():
        dense.weight.copy_(layer.to_dense())
        if layer.bias is not None:
            dense.bias.copy_(layer.bias)
    return dense


@pytest.mark.parametrize("bias", [True, False])
def test_gradcheck_float64(bias):
    torch.manual_seed(1)
    layer = SparseLinear(13, 7, sparsity=0.6, bias=bias, dtype=torch.float64, seed=3)
    x = torch.randn(5, 13, dtype=torch.float64, requires_grad=True)
    params = (x, layer.weight_values) + ((layer.bias,) if bias else ())

    def f(x_, w_, *b_):
        return snack.nn._SparseLinearFunction.apply(x_, w_, b_[0] if b_ else None, layer)

    assert torch.autograd.gradcheck(f, params, eps=1e-6, atol=1e-8)


@pytest.mark.parametrize("shape", [(3, 17, 11), (1, 64, 40), (8, 5, 1)])
def test_equals_nn_linear_on_masked_weights(shape):
    torch.manual_seed(2)
    batch, fin, fout = shape
    layer = SparseLinear(fin, fout, sparsity=0.7, dtype=torch.float64, seed=5)
    dense = masked_linear(layer)
    x = torch.randn(batch, fin, dtype=torch.float64)
    xs, xd = x.clone().requires_grad_(), x.clone().requires_grad_()
    ys, yd = layer(xs), dense(xd)
    assert torch.allclose(ys, yd, rtol=1e-12, atol=1e-12)
    g = torch.randn_like(ys)
    (ys * g).sum().backward()
    (yd * g).sum().backward()
    assert torch.allclose(xs.grad, xd.grad, rtol=1e-12, atol=1e-12)
    # dW only at the pattern's positions: nn.Linear's dense gradient read there.
    assert torch.allclose(layer.weight_values.grad, dense.weight.grad[layer.indices[0], layer.indices[1]],
                          rtol=1e-12, atol=1e-12)
    assert torch.allclose(layer.bias.grad, dense.bias.grad, rtol=1e-12, atol=1e-12)


def test_leading_dimensions_and_float32():
    torch.manual_seed(3)
    layer = SparseLinear(24, 10, sparsity=0.9, seed=1)
    x = torch.randn(2, 3, 24)
    y = layer(x)
    assert y.shape == (2, 3, 10) and y.dtype == torch.float32
    ref = masked_linear(layer)(x)
    assert torch.allclose(y, ref, rtol=1e-5, atol=1e-6)


def test_training_with_adam_lowers_the_loss():
    torch.manual_seed(4)
    model = torch.nn.Sequential(SparseLinear(20, 32, 0.8, seed=1), torch.nn.ReLU(), SparseLinear(32, 3, 0.5, seed=2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, labels = torch.randn(64, 20), torch.randint(0, 3, (64,))
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0]


@pytest.mark.parametrize("scheduler", [snack.dst.SET, snack.dst.Snack])
def test_dst_keeps_count_moves_state_and_starts_new_weights_at_zero(scheduler):
    torch.manual_seed(5)
    layer = SparseLinear(30, 20, sparsity=0.8, seed=7)
    opt = torch.optim.Adam(layer.parameters(), lr=1e-2)
    x = torch.randn(16, 30)
    layer(x).pow(2).sum().backward()
    opt.step()
    n = layer.nnz
    before = {(int(i), int(j)): (float(w), float(m)) for i, j, w, m in
              zip(layer.indices[0], layer.indices[1], layer.weight_values.detach(),
                  opt.state[layer.weight_values]["exp_avg"])}
    dst = scheduler(layer, zeta=0.3, interval=1, optimizer=opt, seed=11)
    grown = dst.step()
    assert layer.nnz == n and layer.indices.shape == (2, n)
    assert grown == round(0.3 * n)
    pos = list(zip(layer.indices[0].tolist(), layer.indices[1].tolist()))
    assert len(set(pos)) == n, "no repeated positions"
    assert pos == sorted(pos), "row by row, columns increasing"
    m = opt.state[layer.weight_values]["exp_avg"]
    new = 0
    for k, p in enumerate(pos):
        if p in before:
            assert float(layer.weight_values[k]) == before[p][0]
            assert float(m[k]) == before[p][1], "the optimizer state follows its connection"
        else:
            new += 1
            assert float(layer.weight_values[k]) == 0.0 and float(m[k]) == 0.0
    assert new == grown
    # The layer still computes with its new pattern.
    assert torch.allclose(layer(x), masked_linear(layer)(x), rtol=1e-5, atol=1e-6)
    if scheduler is snack.dst.SET:   # the pruned ones were the smallest |w|
        kept = [abs(v[0]) for p, v in before.items() if p in set(pos)]
        gone = [abs(v[0]) for p, v in before.items() if p not in set(pos)]
        assert max(gone) <= min(kept)


def test_the_rewiring_count_is_the_librarys():
    # round(zeta * nvals), capped at nvals; -1 for a fraction outside [0, 1] or a negative count.
    count = snack._lib.lib.snk_layer_rewiring_count
    assert [count(0.004, 120), count(0.3, 10), count(1.0, 7), count(0.0, 0)] == [0, 3, 7, 0]
    assert [count(1.5, 7), count(-0.1, 7), count(float("nan"), 7), count(0.3, -1)] == [-1, -1, -1, -1]


@pytest.mark.parametrize("zeta", [0.0, 0.004])
def test_a_rewiring_that_prunes_no_weight_changes_nothing(zeta):
    # A fraction that rounds to no weight (0.004 of 120 weights) rewires nothing: the values, the optimizer's state and
    # the pattern are the same tensors as before (the layer's plans on a GPU are kept: nothing is put into the layer).
    torch.manual_seed(3)
    layer = SparseLinear(30, 20, sparsity=0.8, seed=7)
    assert layer.nnz == 120
    opt = torch.optim.Adam(layer.parameters(), lr=1e-2)
    layer(torch.randn(8, 30)).pow(2).sum().backward()
    opt.step()
    values, state, indices = layer.weight_values.data, dict(opt.state[layer.weight_values]), layer.indices
    kept = values.clone()
    sched = snack.dst.SET(layer, zeta=zeta, interval=1, optimizer=opt)
    sched._library_step = lambda *args: pytest.fail("a rewiring of no weight reached the library")   # nor the host copy
    assert sched.step() == 0
    assert layer.weight_values.data.data_ptr() == values.data_ptr() and torch.equal(layer.weight_values.data, kept)
    assert all(opt.state[layer.weight_values][k] is v for k, v in state.items())
    assert layer.indices is indices


@pytest.mark.parametrize("zeta", [0.0, 0.004])
def test_the_librarys_rewiring_of_no_weight_reports_nothing_changed(zeta):
    # The C interface itself (snack.dst skips such a call before it): a fraction that rounds to no weight reports no
    # pruned or grown weight, every non-zero at its old index, and leaves the pattern as it was.
    layer = SparseLinear(30, 20, sparsity=0.8, seed=7)
    n, pattern = layer.nnz, layer._handle.pattern().clone()
    w = layer.weight_values.detach().contiguous()
    old_index = torch.full((n,), -7, dtype=torch.int64)
    pruned, grown = ctypes.c_int64(-1), ctypes.c_int64(-1)
    snack._lib.check(snack._lib.lib.snk_layer_rewire(layer._handle.ptr, ctypes.c_void_p(w.data_ptr()), zeta,
                                                      snack._lib.PRUNE_MAGNITUDE, 1,
                                                      ctypes.cast(old_index.data_ptr(), snack._lib.c_int64_p),
                                                      ctypes.byref(pruned), ctypes.byref(grown)))
    assert (pruned.value, grown.value) == (0, 0)
    assert torch.equal(old_index, torch.arange(n))
    assert torch.equal(layer._handle.pattern(), pattern)


def test_rigl_grows_where_the_dense_gradient_is_largest():
    torch.manual_seed(8)
    layer = SparseLinear(40, 25, sparsity=0.85, dtype=torch.float64, seed=2)
    old = set(zip(layer.indices[0].tolist(), layer.indices[1].tolist()))
    n = layer.nnz
    rigl = snack.dst.RigL(layer, zeta=0.4, interval=2, total_steps=10, stop_fraction=0.5, block_rows=7)
    x = torch.randn(9, 40, dtype=torch.float64)
    g = torch.randn(9, 25, dtype=torch.float64)
    assert rigl.step() == 0   # step 1: not an update step
    (layer(x) * g).sum().backward()
    grown = rigl.step()       # step 2: fraction 0.4 * (1 + cos(pi * 2 / 5)) / 2
    k = round(0.4 * (1 + math.cos(math.pi * 2 / 5)) / 2 * n)
    assert grown == k and layer.nnz == n
    dense_grad = (g.t() @ x).abs()   # |dY^T X|, what RigL ranks the free positions by
    free = [(dense_grad[i, j].item(), i, j) for i in range(25) for j in range(40) if (i, j) not in old]
    want = {(i, j) for _, i, j in sorted(free, reverse=True)[:k]}
    new = set(zip(layer.indices[0].tolist(), layer.indices[1].tolist())) - old
    assert new == want
    assert rigl.step() == 0                                               # step 3
    assert rigl.step() == round(0.4 * (1 + math.cos(math.pi * 4 / 5)) / 2 * n)   # step 4, the decayed fraction
    assert rigl.step() == 0 and rigl.step() == 0   # steps 5, 6: from stop_fraction * total_steps = 5 on, none
    rigl.remove_hooks()


def test_state_dict_round_trip_after_rewiring():
    torch.manual_seed(6)
    layer = SparseLinear(12, 9, sparsity=0.5, seed=1)
    snack.dst.SET(layer, zeta=0.5, interval=1, seed=3).step()
    buf = io.BytesIO()
    torch.save(layer.state_dict(), buf)
    buf.seek(0)
    other = SparseLinear(12, 9, sparsity=0.5, seed=99)   # another pattern
    other.load_state_dict(torch.load(buf))
    assert torch.equal(other.indices, layer.indices)
    x = torch.randn(4, 12)
    assert torch.equal(other(x), layer(x))


def test_sparsify_swaps_linear_layers_and_keeps_their_weights():
    torch.manual_seed(7)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
    dense_w = [model[0].weight.detach().clone(), model[2].weight.detach().clone()]
    sparsify(model, 0.75)
    assert isinstance(model[0], SparseLinear) and isinstance(model[2], SparseLinear)
    for layer, w in zip((model[0], model[2]), dense_w):
        assert torch.equal(layer.weight_values.detach(), w[layer.indices[0], layer.indices[1]])
        assert abs(layer.nnz / (layer.in_features * layer.out_features) - 0.25) < 0.05
    erk = sparsify(torch.nn.Sequential(torch.nn.Linear(100, 100), torch.nn.Linear(100, 10)), 0.9, method="erk")
    total = sum(m.nnz for m in erk.modules() if isinstance(m, SparseLinear))
    assert abs(total / (100 * 100 + 100 * 10) - 0.1) < 0.02
    assert erk[1].nnz / 1000 > erk[0].nnz / 10000, "ERK keeps the smaller layer denser"


def test_bad_input_is_refused_clearly():
    with pytest.raises(ValueError, match="sparsity"):
        SparseLinear(4, 4, sparsity=1.0)
    with pytest.raises(snack.SnackError, match="GrB_INVALID_VALUE"):
        SparseLinear(0, 4, sparsity=0.5)
    with pytest.raises(TypeError, match="dtype"):
        SparseLinear(4, 4, sparsity=0.5, dtype=torch.float16)
    layer = SparseLinear(6, 3, sparsity=0.5)
    with pytest.raises(ValueError, match="features"):
        layer(torch.randn(2, 5))
    with pytest.raises(TypeError, match="dtype"):
        layer(torch.randn(2, 6, dtype=torch.float64))
    with pytest.raises(ValueError, match="zeta"):
        snack.dst.SET(layer, zeta=1.5)
    with pytest.raises(snack.SnackError, match="GrB_INVALID_VALUE"):
        snack.set_backend("no-such-backend")
    bad = layer.state_dict()
    bad["indices"] = torch.tensor([[0, 0], [1, 1]])   # a repeated position
    bad["weight_values"] = torch.zeros(2)
    fresh = SparseLinear(6, 3, sparsity=0.5)
    with pytest.raises(snack.SnackError, match="repeats"):
        fresh.load_state_dict(bad)


def test_library_forward_with_a_null_bias_leaves_the_bias_out():
    # The layer's own forward passes a null bias to the library and adds it in place; the library's product alone is
    # x W^T, and with the bias given, x W^T + b, both against the masked dense product in float64.
    torch.manual_seed(5)
    layer = SparseLinear(9, 5, sparsity=0.4, dtype=torch.float64, seed=2)
    x = torch.randn(4, 9, dtype=torch.float64)
    ptr = snack.nn._ptr
    for b, want in ((None, x @ layer.to_dense().t()), (layer.bias, x @ layer.to_dense().t() + layer.bias)):
        y = torch.full((4, 5), 7.0, dtype=torch.float64)
        snack._lib.check(snack._lib.lib.snk_layer_forward(layer._handle.ptr, ptr(layer.weight_values.detach()),
                                                           ptr(b.detach()) if b is not None else None,
                                                           ptr(x), 4, ptr(y)))
        assert torch.allclose(y, want.detach(), rtol=1e-12, atol=1e-12)


needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="PyTorch sees no CUDA device")


@needs_cuda
@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.float64, 1e-12)])
def test_cuda_tensors_equal_the_cpu_layer_and_nn_linear(dtype, tol):
    torch.manual_seed(7)
    cpu = SparseLinear(384, 256, sparsity=0.9, dtype=dtype, seed=11)
    gpu = SparseLinear(384, 256, sparsity=0.9, dtype=dtype, seed=11).cuda()
    dense = masked_linear(cpu).cuda()
    x = torch.randn(2, 33, 384, dtype=dtype)
    xc, xg, xd = x.clone().requires_grad_(), x.cuda().requires_grad_(), x.cuda().requires_grad_()
    yc, yg, yd = cpu(xc), gpu(xg), dense(xd)
    assert yg.device.type == "cuda" and gpu.weight_values.device.type == "cuda"
    assert torch.allclose(yg.cpu(), yc, rtol=tol, atol=tol)
    assert torch.allclose(yg, yd, rtol=tol, atol=tol)
    g = torch.randn_like(yc)
    (yc * g).sum().backward()
    (yg * g.cuda()).sum().backward()
    (yd * g.cuda()).sum().backward()
    assert torch.allclose(xg.grad.cpu(), xc.grad, rtol=tol, atol=tol)
    assert torch.allclose(gpu.weight_values.grad.cpu(), cpu.weight_values.grad, rtol=tol, atol=tol)
    assert torch.allclose(gpu.weight_values.grad, dense.weight.grad[gpu.indices[0], gpu.indices[1]], rtol=tol, atol=tol)
    assert torch.allclose(gpu.bias.grad.cpu(), cpu.bias.grad, rtol=tol, atol=tol)


@needs_cuda
@pytest.mark.parametrize("transposed_input", [False, True])
def test_cuda_layers_pass_features_by_batch_and_equal_nn_linear(transposed_input):
    """Two layers with GELU between (a GPT MLP block): the first's output, and the second's input gradient, are
    features by batch (transposes of contiguous tensors), which GELU keeps and the next layer reads in place; an input
    held either way gives nn.Linear's output and gradients on masked weights."""
    torch.manual_seed(12)
    fc = SparseLinear(96, 384, sparsity=0.9, dtype=torch.float64, seed=21).cuda()
    out = SparseLinear(384, 96, sparsity=0.9, dtype=torch.float64, seed=22).cuda()
    dfc, dout = masked_linear(fc).cuda(), masked_linear(out).cuda()
    x = torch.randn(4, 50, 96, dtype=torch.float64, device="cuda")
    if transposed_input:
        x = x.reshape(200, 96).t().contiguous().t().reshape(4, 50, 96)
        assert not x.is_contiguous()
    xs, xd = x.clone().requires_grad_(), x.clone().requires_grad_()
    h = torch.nn.functional.gelu(fc(xs))
    assert h.reshape(200, 384).t().is_contiguous()
    ys, yd = out(h), dout(torch.nn.functional.gelu(dfc(xd)))
    assert torch.allclose(ys, yd, rtol=1e-12, atol=1e-12)
    g = torch.randn_like(yd)
    (ys * g).sum().backward()
    (yd * g).sum().backward()
    assert torch.allclose(xs.grad, xd.grad, rtol=1e-12, atol=1e-12)
    for layer, dense in ((fc, dfc), (out, dout)):
        assert torch.allclose(layer.weight_values.grad, dense.weight.grad[layer.indices[0], layer.indices[1]],
                              rtol=1e-12, atol=1e-12)
        assert torch.allclose(layer.bias.grad, dense.bias.grad, rtol=1e-12, atol=1e-12)


@needs_cuda
def test_cuda_layout_other_than_rows_or_features_is_refused():
    layer = SparseLinear(8, 4, sparsity=0.5).cuda()
    x, y = torch.randn(3, 8, device="cuda"), torch.full((3, 4), 7.0, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    info = snack._lib.lib.snk_layer_forward_device(layer._handle.ptr, layer.weight_values.data_ptr(),
                                                   layer.bias.data_ptr(), x.data_ptr(), 2, 3, y.data_ptr(),
                                                   snack._lib.FEATURES, stream)
    with pytest.raises(snack._lib.SnackError, match="GrB_INVALID_VALUE: .*layout of x"):
        snack._lib.check(info)
    assert torch.equal(y, torch.full((3, 4), 7.0, device="cuda"))


@needs_cuda
def test_cuda_gradcheck_float64():
    torch.manual_seed(8)
    layer = SparseLinear(13, 7, sparsity=0.6, dtype=torch.float64, seed=3).cuda()
    x = torch.randn(5, 13, dtype=torch.float64, device="cuda", requires_grad=True)

    def f(x_, w_, b_):
        return snack.nn._SparseLinearFunction.apply(x_, w_, b_, layer)

    assert torch.autograd.gradcheck(f, (x, layer.weight_values, layer.bias), eps=1e-6, atol=1e-8)


@needs_cuda
def test_cuda_training_with_set_keeps_the_count_and_learns():
    torch.manual_seed(9)
    model = torch.nn.Sequential(SparseLinear(64, 128, sparsity=0.8, seed=1), torch.nn.ReLU(),
                                SparseLinear(128, 4, sparsity=0.5, seed=2)).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    rewire = snack.dst.SET(model, zeta=0.3, interval=5, optimizer=opt, seed=4)
    counts = [layer.nnz for layer in rewire.layers]
    x = torch.randn(256, 64, device="cuda")
    target = (x[:, :4] > 0).long().argmax(dim=1)
    losses = []
    for _ in range(40):
        loss = torch.nn.functional.cross_entropy(model(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rewire.step()
        losses.append(loss.item())
    assert rewire.rewired > 0
    assert [layer.nnz for layer in rewire.layers] == counts
    for layer in rewire.layers:
        assert layer.weight_values.device.type == "cuda" and layer.indices.device.type == "cuda"
        pos = layer.indices[0] * layer.in_features + layer.indices[1]
        assert pos.unique().numel() == pos.numel()
    assert losses[-1] < 0.5 * losses[0], losses


@needs_cuda
def test_cuda_rewiring_that_prunes_no_weight_keeps_the_layers_device_plans():
    # A schedule decayed to zero still calls its layers each interval: nothing may be put into the layer then, or its
    # device copy and SpMM plans would be made again (snack.transfers() counts the uploads).
    def uploads():
        return snack.transfers()["uploads"]

    torch.manual_seed(2)
    layer = SparseLinear(256, 512, sparsity=0.9, seed=3).cuda()
    x = torch.randn(64, 256, device="cuda")

    def step():
        layer(x).pow(2).sum().backward()
        torch.cuda.synchronize()

    step()
    step()
    before = uploads()
    step()
    steady = uploads() - before
    rewire = snack.dst.SET(layer, zeta=0.0, interval=1)
    before = uploads()
    assert rewire.step() == 0
    step()
    assert uploads() - before == steady, "the layer's pattern was uploaded again after a rewiring that changed nothing"
    rewire.zeta = 0.3
    before = uploads()
    assert rewire.step() > 0
    step()
    assert uploads() - before > steady, "a changed pattern is uploaded (the counter sees plans)"


@needs_cuda
@pytest.mark.parametrize("tokens", [96, 1024])
def test_cuda_training_step_captured_in_a_cuda_graph_equals_the_eager_step(tokens):
    # The whole step (forward, backward, AdamW) captured once with torch.cuda.graph and replayed on new inputs copied
    # into the captured ones gives what the same steps give run eagerly. 1024 tokens take the dense-tile weight
    # gradient (cuBLAS and a temporary tile), 96 the sampled kernel.
    torch.manual_seed(12)

    def block():
        return torch.nn.Sequential(SparseLinear(64, 256, sparsity=0.9, seed=5), torch.nn.GELU(),
                                   SparseLinear(256, 64, sparsity=0.9, seed=6)).cuda()

    eager, graphed = block(), block()
    graphed.load_state_dict(eager.state_dict())
    opt_e = torch.optim.AdamW(eager.parameters(), lr=1e-2, capturable=True)
    opt_g = torch.optim.AdamW(graphed.parameters(), lr=1e-2, capturable=True)
    xs = [torch.randn(tokens, 64, device="cuda") for _ in range(6)]
    gs = [torch.randn(tokens, 64, device="cuda") for _ in range(6)]
    x, g = xs[0].clone(), gs[0].clone()

    def step(model, opt, x, g):
        opt.zero_grad(set_to_none=True)
        model(x).backward(g)
        opt.step()

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):   # warm-up steps, on a side stream as PyTorch asks before a capture
        for k in range(2):
            x.copy_(xs[k])
            g.copy_(gs[k])
            step(graphed, opt_g, x, g)
    torch.cuda.current_stream().wait_stream(side)
    for k in range(2):
        step(eager, opt_e, xs[k], gs[k])
    graph = torch.cuda.CUDAGraph()
    opt_g.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        graphed(x).backward(g)
        opt_g.step()
    for k in range(2, 6):
        x.copy_(xs[k])
        g.copy_(gs[k])
        graph.replay()
        step(eager, opt_e, xs[k], gs[k])
    torch.cuda.synchronize()
    for (name, a), b in zip(eager.state_dict().items(), graphed.state_dict().values()):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-6), name
    assert not torch.equal(eager[0].weight_values, block()[0].weight_values)   # the steps changed the weights


@needs_cuda
def test_cuda_input_with_a_cpu_layer_is_refused_with_a_clear_message():
    layer = SparseLinear(8, 4, sparsity=0.5)
    with pytest.raises(ValueError, match="weight_values is on cpu, the input on cuda"):
        layer(torch.randn(2, 8, device="cuda"))


def test_prune_to_keeps_the_largest_with_their_state():
    torch.manual_seed(10)
    layer = SparseLinear(40, 30, sparsity=0.5, seed=6)
    opt = torch.optim.Adam(layer.parameters(), lr=1e-3)
    layer(torch.randn(4, 40)).sum().backward()
    opt.step()
    n = layer.nnz
    w = layer.weight_values.detach().clone()
    pos = (layer.indices[0] * 40 + layer.indices[1]).clone()
    avg = opt.state[layer.weight_values]["exp_avg"].clone()
    assert snack.dst.prune_to(layer, n // 3, optimizer=opt) == n - n // 3
    assert layer.nnz == n // 3 and layer.indices.shape[1] == n // 3
    kept = pos.tolist()
    new_pos = (layer.indices[0] * 40 + layer.indices[1]).tolist()
    assert new_pos == sorted(new_pos)
    source = torch.tensor([kept.index(p) for p in new_pos])
    assert torch.equal(layer.weight_values.detach(), w[source])
    assert torch.equal(opt.state[layer.weight_values]["exp_avg"], avg[source])
    assert layer.weight_values.abs().min() >= w.abs().sort(descending=True).values[n // 3 - 1]
    assert any(p is layer.weight_values for p in opt.param_groups[0]["params"])
    x = torch.randn(3, 40)
    assert torch.allclose(layer(x), masked_linear(layer)(x), rtol=1e-6, atol=1e-6)
    layer(x).sum().backward()   # the pruned layer trains on: a step with the optimizer after the change
    opt.step()
    assert snack.dst.prune_to(layer, n) == 0
    with pytest.raises(ValueError, match="at least 1"):
        snack.dst.prune_to(layer, 0)
