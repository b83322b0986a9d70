"""`optim.swa_utils`: averages against numpy means, update_bn against batch statistics, SWALR's schedule."""

import math
import re

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim
from ember.optim.swa_utils import (
    SWALR, AveragedModel, get_ema_avg_fn, get_ema_multi_avg_fn, get_swa_multi_avg_fn, update_bn,
)


def snapshots(net, k, seed=0):
    """Set `net`'s parameters to k random values in turn, yielding each (a generator: one at a time)."""
    rng = np.random.default_rng(seed)
    for _ in range(k):
        with torch.no_grad():
            for p in net.parameters():
                p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)), dtype=p.dtype))
        yield [p.detach().numpy().astype(np.float64).copy() for p in net.parameters()]


@pytest.mark.parametrize("multi", [False, True])
def test_averaged_model_holds_the_mean_of_the_snapshots(multi):
    net = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2)).double()
    swa = AveragedModel(net, multi_avg_fn=get_swa_multi_avg_fn() if multi else None)
    snaps = []
    for snap in snapshots(net, 5):
        swa.update_parameters(net)
        snaps.append(snap)
    assert int(swa.n_averaged) == 5
    # the multi-tensor form lerps by 1 / (n + 1) computed from the long counter in float32, as PyTorch
    rtol = 1e-6 if multi else 1e-12
    for i, p in enumerate(swa.module.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), np.mean([s[i] for s in snaps], axis=0), rtol=rtol)
    x = torch.randn(2, 3, dtype=torch.float64)
    np.testing.assert_array_equal(swa(x).detach().numpy(), swa.module(x).detach().numpy())


@pytest.mark.parametrize("make", [lambda: {"multi_avg_fn": get_ema_multi_avg_fn(0.9)},
                                  lambda: {"avg_fn": get_ema_avg_fn(0.9)}])
def test_ema_averaged_model_follows_the_exponential_average(make):
    net = nn.Linear(3, 2).double()
    ema = AveragedModel(net, **make())
    ref = None
    for snap in snapshots(net, 4, seed=1):
        ema.update_parameters(net)
        ref = [s.copy() for s in snap] if ref is None else [0.9 * r + 0.1 * s for r, s in zip(ref, snap)]
    for p, r in zip(ema.module.parameters(), ref):
        np.testing.assert_allclose(p.detach().numpy(), r, rtol=1e-12)


def test_averaged_model_copies_or_averages_buffers():
    net = nn.BatchNorm1d(3).double()
    swa = AveragedModel(net)
    net.running_mean.fill_(2.0)
    swa.update_parameters(net)
    np.testing.assert_array_equal(swa.module.running_mean.numpy(), [2.0, 2.0, 2.0])
    swa_b = AveragedModel(net, use_buffers=True)
    swa_b.update_parameters(net)
    net.running_mean.fill_(4.0)
    swa_b.update_parameters(net)
    np.testing.assert_array_equal(swa_b.module.running_mean.numpy(), [3.0, 3.0, 3.0])


def test_avg_fn_and_multi_avg_fn_are_exclusive_and_decay_is_checked():
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        AveragedModel(nn.Linear(1, 1), avg_fn=get_ema_avg_fn(), multi_avg_fn=get_ema_multi_avg_fn())
    with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided. Please provide a value in \[0,1\]"):
        get_ema_avg_fn(1.5)


def test_update_bn_recomputes_running_statistics_as_a_cumulative_average():
    net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3, momentum=0.5)).double()
    net.eval()
    rng = np.random.default_rng(2)
    batches = [torch.tensor(rng.standard_normal((6, 2))) for _ in range(4)]
    update_bn([(b, 0) for b in batches], net)
    assert not net.training and net[1].momentum == 0.5
    with torch.no_grad():
        hidden = [net[0](b).numpy() for b in batches]
    np.testing.assert_allclose(net[1].running_mean.numpy(), np.mean([h.mean(0) for h in hidden], axis=0), rtol=1e-10)
    np.testing.assert_allclose(net[1].running_var.numpy(), np.mean([h.var(0, ddof=1) for h in hidden], axis=0),
                               rtol=1e-10)
    assert int(net[1].num_batches_tracked) == 4


def test_swalr_anneals_to_swa_lr_then_holds_it():
    p = nn.Parameter(torch.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    sched = SWALR(opt, swa_lr=0.1, anneal_epochs=4, anneal_strategy="cos")
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(6):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    ref = [0.1 * (1 - math.cos(math.pi * min(t, 4) / 4)) / 2 + 1.0 * (1 - (1 - math.cos(math.pi * min(t, 4) / 4)) / 2)
           for t in range(7)]
    np.testing.assert_allclose(lrs, ref, rtol=1e-12, atol=1e-15)
    state = sched.state_dict()
    assert "anneal_func" not in state and "optimizer" not in state
    other = SWALR(opt, swa_lr=0.1, anneal_strategy="linear")
    other.load_state_dict(state)
    assert other.anneal_func(0.5) == pytest.approx(0.5)  # cos: (1 - cos(pi / 2)) / 2
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got x"):
        SWALR(opt, 0.1, anneal_strategy="x")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
        SWALR(opt, 0.1, anneal_epochs=-1)
    msg = "swa_lr must have the same length as optimizer.param_groups. swa_lr has 2 values, param_groups has 1."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        SWALR(opt, [0.1, 0.2])
    msg = "max_lr must have the same length as optimizer.param_groups. max_lr has 2 values, param_groups has 1."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        optim.lr_scheduler.OneCycleLR(opt, [0.1, 0.2], total_steps=4)


@pytest.mark.torch
@pytest.mark.parametrize("strategy, epochs", [("cos", 5), ("linear", 3), ("cos", 0)])
def test_swalr_after_a_scheduler_matches_pytorch(strategy, epochs):
    pt = pytest.importorskip("torch")
    lrs = []
    for lib in (optim, pt.optim):
        p = (nn.Parameter(torch.zeros(1)) if lib is optim else pt.nn.Parameter(pt.zeros(1)))
        opt = lib.SGD([p], lr=0.5)
        cos = lib.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
        swa = lib.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=epochs, anneal_strategy=strategy)
        seq = []
        for epoch in range(12):
            opt.step()
            (cos if epoch < 4 else swa).step()
            seq.append(opt.param_groups[0]["lr"])
        lrs.append(seq)
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-12)
