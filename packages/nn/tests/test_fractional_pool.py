"""fractional_max_pool2d/3d and FractionalMaxPool2d/3d: windows and maxima against a float64
loop, gradients by finite differences, PyTorch's values, indices and gradients from the same
samples, the CUDA path (simulator) and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember.autograd as E
import ember.nn as nn
import ember.nn.functional as F


def _starts(u, n_in, n_out, k):
    if n_out == 1:
        return [n_in - k]
    alpha = (n_in - k) / (n_out - 1)
    return [int((i + u) * alpha) - int(u * alpha) for i in range(n_out - 1)] + [n_in - k]


def ref_fractional(x, k, out, samples):
    """Loop reference: sample order (W, H) in 2-D and (T, H, W) in 3-D, as PyTorch."""
    nd = len(k)
    lead, sp = x.shape[:-nd], x.shape[-nd:]
    vals, idx = np.zeros(lead + tuple(out)), np.zeros(lead + tuple(out), dtype=np.int64)
    for li in np.ndindex(*lead):
        u = samples[li if len(lead) == 2 else (0,) + li]
        u = u[::-1] if nd == 2 else u
        starts = [_starts(u[d], sp[d], out[d], k[d]) for d in range(nd)]
        for o in np.ndindex(*out):
            best, where = -np.inf, -1
            for w in np.ndindex(*k):
                pos = tuple(starts[d][o[d]] + w[d] for d in range(nd))
                if x[li + pos] > best:
                    best, where = x[li + pos], int(np.ravel_multi_index(pos, sp))
            vals[li + o], idx[li + o] = best, where
    return vals, idx


@pytest.mark.parametrize(("shape", "k", "out"), [((2, 3, 9, 8), (2, 2), (4, 5)), ((2, 3, 9, 8), (3, 2), (7, 1)),
                                                 ((3, 7, 7), (2, 3), (5, 5)), ((2, 2, 5, 6, 7), (2, 2, 3), (3, 4, 4)),
                                                 ((2, 5, 6, 7), (1, 2, 2), (4, 1, 5))])
def test_fractional_max_pool_against_a_loop(shape, k, out):
    nd = len(k)
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape)
    n_batch = shape[0] if len(shape) == nd + 2 else 1
    s = rng.uniform(0, 1, (n_batch, shape[-nd - 1], nd))
    fn = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
    vals, idx = fn(E.tensor(x), k, output_size=out, return_indices=True, _random_samples=E.tensor(s))
    want_v, want_i = ref_fractional(x, k, out, s)
    np.testing.assert_array_equal(vals.numpy(), want_v)
    np.testing.assert_array_equal(idx.numpy(), want_i)


def test_output_ratio_modules_and_default_samples():
    x = E.tensor(np.random.default_rng(0).standard_normal((2, 3, 10, 9)))
    E.manual_seed(1)
    a = F.fractional_max_pool2d(x, 3, output_ratio=0.5)
    E.manual_seed(1)
    b = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(x)
    assert tuple(a.shape) == (2, 3, 5, 4)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    s = E.tensor(np.random.default_rng(2).uniform(size=(1, 2, 3)))
    out, idx = nn.FractionalMaxPool3d(2, output_size=3, return_indices=True, _random_samples=s)(
        E.tensor(np.random.default_rng(3).standard_normal((2, 5, 6, 7))))
    assert tuple(out.shape) == tuple(idx.shape) == (2, 3, 3, 3)
    assert repr(nn.FractionalMaxPool2d(2, output_size=3)) == "FractionalMaxPool2d()"


@pytest.mark.parametrize("nd", [2, 3])
def test_gradient_by_finite_differences(nd):
    rng = np.random.default_rng(nd)
    x = rng.permutation(120).reshape((1, 2) + ((6, 10) if nd == 2 else (3, 4, 5))) / 7.0  # distinct values
    s = E.tensor(rng.uniform(size=(1, 2, nd)))
    fn = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
    k, out = ((2, 3), (3, 4)) if nd == 2 else ((2, 2, 2), (1, 2, 3))
    assert E.gradcheck(lambda a: fn(a, k, output_size=out, _random_samples=s), (E.tensor(x, requires_grad=True),))


def test_nan_the_last_nan_of_a_window_wins_as_pytorch():
    x = np.zeros((1, 1, 2, 2))
    x[0, 0, 0, 1] = x[0, 0, 1, 0] = np.nan
    x[0, 0, 1, 1] = 5.0
    out, idx = F.fractional_max_pool2d(E.tensor(x), 2, output_size=1, return_indices=True,
                                       _random_samples=E.zeros(1, 1, 2, dtype=E.float64))
    assert np.isnan(out.item()) and idx.item() == 2


def test_bad_arguments_raise_pytorchs_errors():
    x = E.zeros(2, 3, 9, 8)
    with pytest.raises(ValueError, match="fractional_max_pool2d requires specifying either an output_size or an "
                                         "output_ratio"):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(RuntimeError, match="fractional_max_pool2d\\(\\): pool height 2 too large relative to input "
                                           "height 9"):
        F.fractional_max_pool2d(x, 2, output_size=(9, 4))
    with pytest.raises(RuntimeError, match="fractional_max_pool3d_out\\(\\): pool time 2 too large relative to "
                                           "input time 5"):
        F.fractional_max_pool3d(E.zeros(2, 3, 5, 6, 7), 2, output_size=(6, 4, 4))
    with pytest.raises(RuntimeError, match="Expect _random_samples.size\\(2\\) equals to 2; got 3."):
        F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=E.rand(2, 3, 3))
    with pytest.raises(RuntimeError, match="Expect _random_samples.size\\(0\\) no less then input batch size."):
        F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=E.rand(1, 3, 2))
    with pytest.raises(RuntimeError, match="Expect _random_samples to have the same dtype as input"):
        F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=E.rand(2, 3, 2, dtype=E.float64))
    with pytest.raises(RuntimeError, match=r"_random_samples must be in \[0, 1\)"):  # PyTorch reads out of bounds
        F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=E.rand(2, 3, 2) + 1)
    with pytest.raises(RuntimeError, match="kernel_size must either be a single Int or tuple of Ints"):
        F.fractional_max_pool2d(x, (2, 2, 2), output_size=4)
    with pytest.raises(RuntimeError, match=r"Expected 3D or 4D tensor, but got: \[9, 8\]"):
        F.fractional_max_pool2d(E.zeros(9, 8), 2, output_size=4, _random_samples=E.rand(1, 9, 2))
    # without samples, PyTorch's Python reads the channels' size (-3) first
    with pytest.raises(IndexError, match=r"out of range \(expected to be in range of \[-2, 1\], but got -3\)"):
        F.fractional_max_pool2d(E.zeros(9, 8), 2, output_size=4)
    with pytest.raises(IndexError, match=r"out of range \(expected to be in range of \[-3, 2\], but got -4\)"):
        nn.FractionalMaxPool3d(2, output_ratio=0.5)(E.zeros(3, 5, 6))
    with pytest.raises(RuntimeError, match=r"Expected 3D or 4D tensor, but got: \[2, 9, 8, 7, 6\]"):
        F.fractional_max_pool2d(E.zeros(2, 9, 8, 7, 6), 2, output_size=4)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio may be specified"):
        nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(ValueError, match="FractionalMaxPool3d requires specifying either an output size, or a "
                                         "pooling ratio"):
        nn.FractionalMaxPool3d(2)


@pytest.mark.torch
@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_indices_and_gradients_match_pytorch(nd, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(nd)
    shape = (2, 3, 17, 13) if nd == 2 else (2, 2, 9, 8, 11)
    x = rng.standard_normal(shape).astype(dtype)
    s = rng.uniform(0, 1, (2, shape[1], nd)).astype(dtype)
    out = (7, 6) if nd == 2 else (4, 5, 6)
    tf = torch.nn.functional.fractional_max_pool2d if nd == 2 else torch.nn.functional.fractional_max_pool3d
    ef = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
    tx, ex = torch.tensor(x, requires_grad=True), E.tensor(x, requires_grad=True)
    tv, ti = tf(tx, 3, output_size=out, return_indices=True, _random_samples=torch.tensor(s))
    ev, ei = ef(ex, 3, output_size=out, return_indices=True, _random_samples=E.tensor(s))
    g = rng.standard_normal(tv.shape).astype(dtype)
    tv.backward(torch.tensor(g))
    ev.backward(E.tensor(g))
    np.testing.assert_array_equal(ev.detach().numpy(), tv.detach().numpy())
    np.testing.assert_array_equal(ei.numpy(), ti.numpy())
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


@pytest.mark.cuda
@pytest.mark.parametrize("nd", [2, 3])
def test_cuda_matches_the_cpu(nd):
    if not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    rng = np.random.default_rng(5)
    x = E.tensor(rng.standard_normal((1, 2) + (6, 5, 5)[:nd]))  # PyTorch: output + pool - 1 < input, each dim
    s = E.tensor(rng.uniform(size=(1, 2, nd)))
    fn = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
    out = (3,) * nd
    want = fn(x, 2, output_size=out, return_indices=True, _random_samples=s)
    xc = x.cuda().requires_grad_(True)
    got = fn(xc, 2, output_size=out, return_indices=True, _random_samples=s.cuda())
    assert got[0].device.type == "cuda"
    np.testing.assert_array_equal(got[0].detach().cpu().numpy(), want[0].numpy())
    np.testing.assert_array_equal(got[1].cpu().numpy(), want[1].numpy())
    got[0].sum().backward()
    assert math.isclose(float(xc.grad.cpu().numpy().sum()), float(np.prod(got[0].shape)))


def test_fractional_max_pool_grad_stays_connected_to_the_input():
    # PyTorch's fractional_max_pool2d_backward takes the input (`self: zeros_like(self)`): a gradient penalty
    # differentiates back to it as zeros
    x = E.tensor(np.random.default_rng(0).standard_normal((1, 2, 5, 5)), requires_grad=True)
    samples = E.full((1, 2, 2), 0.5, dtype=E.float64)
    (g,) = E.autograd.grad(F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=samples).pow(2).sum(), x,
                           create_graph=True)
    (gg,) = E.autograd.grad(g.pow(2).sum(), x)
    (g1,) = E.autograd.grad(F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=samples).sum(), x,
                            create_graph=True)
    np.testing.assert_array_equal(E.autograd.grad(g1.sum(), x)[0].numpy(), np.zeros(x.shape))
    pt = pytest.importorskip("torch")
    tx = pt.tensor(x.detach().numpy(), requires_grad=True)
    out = pt.nn.functional.fractional_max_pool2d(tx, 2, output_size=3, _random_samples=pt.tensor(samples.numpy()))
    (tg,) = pt.autograd.grad(out.pow(2).sum(), tx, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), pt.autograd.grad(tg.pow(2).sum(), tx)[0].numpy(), rtol=1e-12)
