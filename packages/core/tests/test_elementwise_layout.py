"""The memory layout of elementwise results (NOTE [ Elementwise result layout ] in ember.core.ops.memfmt):
a channels_last or permuted input gives a result in its layout, as PyTorch's TensorIterator does, with
the values of the row-major computation. The expected strides are PyTorch 2.13's, hard-coded; the
`torch`-marked test compares every case with PyTorch itself."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as E

RNG = np.random.default_rng(0)
A4 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
B4 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
C4 = RNG.standard_normal((2, 4, 3, 5)).astype(np.float32)  # permuted to (2, 3, 4, 5), not channels_last
P3 = RNG.standard_normal((4, 2, 3)).astype(np.float32)
S3 = RNG.standard_normal((6, 4, 5)).astype(np.float32)
N11 = RNG.standard_normal((2, 3, 1, 1)).astype(np.float32)
N1W = RNG.standard_normal((2, 3, 1, 5)).astype(np.float32)
M34 = RNG.standard_normal((3, 4)).astype(np.float32)
V3 = RNG.standard_normal(3).astype(np.float32)
V5 = RNG.standard_normal(5).astype(np.float32)
B311 = RNG.standard_normal((3, 1, 1)).astype(np.float32)
D5 = RNG.standard_normal((2, 3, 4, 5, 6)).astype(np.float32)


def _inputs(lib, device="cpu"):
    """The same inputs in `lib` (ember.core or torch): values from numpy, layouts by view ops."""
    def t(a):
        return lib.from_numpy(a).to(device)

    return {
        "cl": t(A4).contiguous(memory_format=lib.channels_last),
        "c": t(B4),
        "z": t(C4).permute(0, 2, 1, 3),
        "p": t(P3).permute(1, 2, 0),
        "sl": t(S3).permute(2, 0, 1)[:, ::2],
        "n11": t(N11).contiguous(memory_format=lib.channels_last).as_strided((2, 3, 1, 1), (3, 1, 3, 3)),
        "n1w": t(N1W).contiguous(memory_format=lib.channels_last),
        "tt": t(M34).t(),
        "v3": t(V3),
        "v5": t(V5),
        "bias": t(B311),
        "cl3d": t(D5).contiguous(memory_format=lib.channels_last_3d),
    }


def _F(lib):
    """Where `lib` keeps the activations: torch.nn.functional, or ember.core itself."""
    return lib.nn.functional if lib.__name__ == "torch" else lib


# name -> (op over the inputs of `_inputs`, PyTorch 2.13's strides of the result)
CASES = {
    "channels_last + 1": (lambda lib, i: i["cl"] + 1, (60, 1, 15, 3)),
    "channels_last.exp()": (lambda lib, i: i["cl"].exp(), (60, 1, 15, 3)),
    "channels_last * channels_last": (lambda lib, i: i["cl"] * i["cl"], (60, 1, 15, 3)),
    "channels_last + row-major": (lambda lib, i: i["cl"] + i["c"], (60, 1, 15, 3)),
    "row-major + channels_last": (lambda lib, i: i["c"] + i["cl"], (60, 20, 5, 1)),
    "channels_last + permuted": (lambda lib, i: i["cl"] + i["z"], (60, 1, 15, 3)),
    "permuted + channels_last": (lambda lib, i: i["z"] + i["cl"], (60, 5, 15, 1)),
    "channels_last + bias": (lambda lib, i: i["cl"] + i["bias"], (60, 1, 15, 3)),
    "channels_last + row": (lambda lib, i: i["cl"] - i["v5"], (60, 1, 15, 3)),
    "channels_last > 0": (lambda lib, i: i["cl"] > 0, (60, 1, 15, 3)),
    "channels_last ** 2": (lambda lib, i: i["cl"] ** 2, (60, 1, 15, 3)),
    "2 ** channels_last": (lambda lib, i: 2.0 ** i["cl"], (60, 20, 5, 1)),  # PyTorch: pow(number, t) row-major
    "-channels_last": (lambda lib, i: -i["cl"], (60, 1, 15, 3)),
    "channels_last.sigmoid()": (lambda lib, i: i["cl"].sigmoid(), (60, 1, 15, 3)),
    "isnan(channels_last)": (lambda lib, i: lib.isnan(i["cl"]), (60, 1, 15, 3)),
    "channels_last int + 1": (lambda lib, i: (i["cl"] * 10).to(lib.int64) + 1, (60, 1, 15, 3)),
    "channels_last float64 * 2": (lambda lib, i: i["cl"].to(lib.float64) * 2, (60, 1, 15, 3)),
    "maximum(channels_last, row-major)": (lambda lib, i: lib.maximum(i["cl"], i["c"]), (60, 1, 15, 3)),
    "where(channels_last > 0, channels_last, 0)": (lambda lib, i: lib.where(i["cl"] > 0, i["cl"], 0.0),
                                                   (60, 1, 15, 3)),
    "where(row-major cond, channels_last, row-major)": (lambda lib, i: lib.where(i["c"] > 0, i["cl"], i["c"]),
                                                        (60, 20, 5, 1)),
    "channels_last.clamp(-0.5, 0.5)": (lambda lib, i: i["cl"].clamp(-0.5, 0.5), (60, 1, 15, 3)),
    "channels_last.clamp(min=row-major)": (lambda lib, i: lib.clamp(i["cl"], min=i["c"]), (60, 1, 15, 3)),
    "lerp(channels_last, row-major, 0.3)": (lambda lib, i: lib.lerp(i["cl"], i["c"], 0.3), (60, 1, 15, 3)),
    "permuted.exp()": (lambda lib, i: i["p"].exp(), (3, 1, 6)),
    "permuted + permuted": (lambda lib, i: i["p"] + i["p"], (3, 1, 6)),
    "permuted + 1": (lambda lib, i: i["p"] + 1, (3, 1, 6)),
    "sliced permuted.exp()": (lambda lib, i: i["sl"].exp(), (1, 20, 5)),
    "sliced permuted + itself": (lambda lib, i: i["sl"] + i["sl"], (1, 20, 5)),
    "transposed + vector": (lambda lib, i: i["tt"] + i["v3"], (1, 4)),
    "vector + transposed": (lambda lib, i: i["v3"] + i["tt"], (1, 4)),
    "transposed + row-major": (lambda lib, i: i["tt"] + i["tt"].contiguous(), (1, 4)),
    "row-major + transposed": (lambda lib, i: i["tt"].contiguous() + i["tt"], (3, 1)),
    "N11 channels_last.exp()": (lambda lib, i: i["n11"].exp(), (3, 1, 1, 1)),
    "N11 channels_last + 1": (lambda lib, i: i["n11"] + 1, (3, 1, 3, 3)),
    "N11 channels_last * N11": (lambda lib, i: i["n11"] * i["n11"], (3, 1, 1, 1)),
    "N11 channels_last.clamp(0, 1)": (lambda lib, i: i["n11"].clamp(0, 1), (3, 1, 1, 1)),
    "N1W channels_last.exp()": (lambda lib, i: i["n1w"].exp(), (15, 1, 15, 3)),
    "N1W channels_last + 1": (lambda lib, i: i["n1w"] + 1, (15, 1, 15, 3)),
    "channels_last_3d.exp()": (lambda lib, i: i["cl3d"].exp(), (360, 1, 90, 18, 3)),
    "channels_last_3d + 1": (lambda lib, i: i["cl3d"] + 1, (360, 1, 90, 18, 3)),
    "expanded.exp()": (lambda lib, i: i["v3"].reshape(3, 1).expand(3, 4).exp(), (4, 1)),
    "complex channels_last.exp()": (lambda lib, i: i["cl"].to(lib.complex64).exp(), (60, 1, 15, 3)),
    "complex channels_last.abs()": (lambda lib, i: (i["cl"].to(lib.complex64) * 1j).abs(), (60, 1, 15, 3)),
    "gelu(channels_last)": (lambda lib, i: _F(lib).gelu(i["cl"]), (60, 1, 15, 3)),
    "leaky_relu(permuted)": (lambda lib, i: _F(lib).leaky_relu(i["p"], 0.2), (3, 1, 6)),
    "hardtanh(sliced permuted)": (lambda lib, i: _F(lib).hardtanh(i["sl"]), (1, 20, 5)),
    "softplus(channels_last)": (lambda lib, i: _F(lib).softplus(i["cl"]), (60, 1, 15, 3)),
    "lgamma(channels_last)": (lambda lib, i: lib.lgamma(i["cl"]), (60, 1, 15, 3)),
    "erfc(permuted)": (lambda lib, i: lib.erfc(i["p"]), (3, 1, 6)),
    "logit(channels_last)": (lambda lib, i: lib.logit(i["cl"].sigmoid()), (60, 1, 15, 3)),
    "polygamma(1, channels_last)": (lambda lib, i: lib.polygamma(1, i["cl"].abs() + 1), (60, 1, 15, 3)),
    "igamma(channels_last, row-major)": (lambda lib, i: lib.igamma(i["cl"].abs(), i["c"].abs()), (60, 1, 15, 3)),
}


def _np_of(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


@pytest.mark.parametrize("name", list(CASES))
def test_result_takes_pytorchs_layout_and_the_row_major_values(name):
    op, strides = CASES[name]
    inputs = _inputs(E)
    r = op(E, inputs)
    assert r.stride() == strides
    # the values: the same op over row-major copies of the inputs, and numpy's
    expected = op(E, {k: v.contiguous() for k, v in inputs.items()})
    assert expected.is_contiguous()
    np.testing.assert_array_equal(r.numpy(), expected.numpy())


def test_values_match_numpy_whatever_the_layout():
    i = _inputs(E)
    np.testing.assert_allclose((i["cl"] + i["c"]).numpy(), A4 + B4, rtol=1e-6)
    np.testing.assert_allclose((i["z"] + i["cl"]).numpy(), C4.transpose(0, 2, 1, 3) + A4, rtol=1e-6)
    np.testing.assert_allclose(i["cl"].exp().numpy(), np.exp(A4), rtol=1e-6)
    np.testing.assert_array_equal(E.where(i["cl"] > 0, i["cl"], 0.0).numpy(), np.where(A4 > 0, A4, 0))


def test_channels_last_results_are_channels_last_contiguous():
    x = _inputs(E)["cl"]
    for r in (x + 1, x.relu(), x * x, x > 0, E.where(x > 0, x, x), x.clamp(0, 1)):
        assert r.is_contiguous(memory_format=E.channels_last) and not r.is_contiguous()


def test_in_place_and_out_keep_the_given_tensor():
    i = _inputs(E)
    x = i["cl"].clone()
    assert x.stride() == (60, 1, 15, 3)
    x.add_(1)
    assert x.stride() == (60, 1, 15, 3)
    np.testing.assert_allclose(x.numpy(), A4 + 1, rtol=1e-6)
    out = E.empty(2, 3, 4, 5)
    E.exp(i["cl"], out=out)
    assert out.stride() == (60, 20, 5, 1)
    np.testing.assert_allclose(out.numpy(), np.exp(A4), rtol=1e-6)


@pytest.mark.parametrize("fn", ["empty_like", "zeros_like", "ones_like", "rand_like", "clone"])
@pytest.mark.parametrize("key,strides", [("cl", (60, 1, 15, 3)), ("p", (3, 1, 6)), ("sl", (1, 20, 5)),
                                         ("n11", (3, 1, 3, 3)), ("cl3d", (360, 1, 90, 18, 3))])
def test_like_factories_and_clone_preserve_the_layout(fn, key, strides):
    x = _inputs(E)[key]
    r = x.clone() if fn == "clone" else getattr(E, fn)(x)
    assert r.stride() == strides
    if fn == "clone":
        np.testing.assert_array_equal(r.numpy(), x.numpy())


def test_new_factories_are_row_major():
    x = _inputs(E)["cl"]
    assert x.new_empty(x.shape).stride() == (60, 20, 5, 1)
    assert x.new_zeros(x.shape).stride() == (60, 20, 5, 1)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_layouts_match_pytorch(name):
    torch = pytest.importorskip("torch")
    op, strides = CASES[name]
    got = op(E, _inputs(E))
    want = op(torch, _inputs(torch))
    assert tuple(want.stride()) == strides
    assert got.stride() == tuple(want.stride())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("key", ["cl", "p", "sl", "n11", "n1w", "tt", "cl3d"])
def test_like_clone_and_casts_match_pytorch(key):
    torch = pytest.importorskip("torch")
    mine, theirs = _inputs(E)[key], _inputs(torch)[key]
    for fn in (lambda lib, x: lib.empty_like(x), lambda lib, x: lib.zeros_like(x), lambda lib, x: lib.ones_like(x),
               lambda lib, x: lib.full_like(x, 2.0), lambda lib, x: lib.rand_like(x), lambda lib, x: x.clone(),
               lambda lib, x: x.to(lib.float64), lambda lib, x: x.new_empty(x.shape)):
        assert fn(E, mine).stride() == tuple(fn(torch, theirs).stride())


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("name", ["channels_last + 1", "channels_last.exp()", "channels_last * channels_last",
                                  "channels_last + row-major",
                                  "row-major + channels_last", "channels_last > 0",
                                  "where(channels_last > 0, channels_last, 0)", "channels_last.clamp(-0.5, 0.5)",
                                  "lerp(channels_last, row-major, 0.3)", "permuted + 1", "N11 channels_last + 1",
                                  "gelu(channels_last)", "lgamma(channels_last)",
                                  "igamma(channels_last, row-major)"])
def test_cuda_results_take_the_cpu_layout(name):
    op, strides = CASES[name]
    cpu, cuda = _inputs(E), _inputs(E, "cuda")
    for k in ("cl", "c", "p", "n11"):
        assert cuda[k].stride() == cpu[k].stride()
    r = op(E, cuda)
    assert r.device.type == "cuda" and r.stride() == strides
    np.testing.assert_allclose(r.cpu().numpy(), op(E, cpu).numpy(), rtol=1e-5)


def _random_operand(lib, rng, shape):
    """A float32 operand for a result of `shape`: maybe broadcast (size-1 or missing dims), permuted, sliced."""
    s = [n if rng.random() > 0.3 else 1 for n in shape] if rng.random() < 0.3 else list(shape)
    if rng.random() < 0.2:
        s = s[rng.integers(0, len(s)):]
    perm = list(rng.permutation(len(s))) if rng.random() < 0.7 else list(range(len(s)))
    step = int(rng.integers(1, 3)) if s else 1
    base = [s[p] * (step if i == 0 else 1) for i, p in enumerate(perm)]
    data = rng.standard_normal(int(np.prod(base))).astype(np.float32).reshape(base)
    t = lib.from_numpy(data).permute(*np.argsort(perm).tolist()) if s else lib.from_numpy(data)
    if step > 1:
        index = [slice(None)] * len(s)
        index[perm[0]] = slice(None, None, step)
        t = t[tuple(index)]
    return t


@pytest.mark.torch
def test_random_layouts_match_pytorchs_memory_order():
    """Random permuted, sliced and broadcast operands of unary, binary (with a scalar or not) and where: the
    result's strides equal PyTorch's at every dim of size > 1 (the memory order; a size-1 dim's stride
    addresses nothing, and may differ for an input both channels_last and row-major-like)."""
    torch = pytest.importorskip("torch")
    for seed in range(300):
        results = []
        for lib in (E, torch):
            rng = np.random.default_rng(seed)
            shape = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(2, 5)))
            xs = [_random_operand(lib, rng, shape) for _ in range(rng.integers(1, 4))]
            scalar = rng.random() < 0.3
            if len(xs) == 1:
                r = xs[0] + 1.0 if scalar else xs[0].exp()
            elif len(xs) == 2:
                r = xs[0] * xs[1] + 1.0 if scalar else xs[0] * xs[1]
            else:
                r = lib.where(xs[0] > 0, xs[1], xs[2])
            results.append((tuple(r.shape), tuple(r.stride())))
        (shape, mine), (_, theirs) = results
        assert [s for n, s in zip(shape, mine) if n > 1] == [s for n, s in zip(shape, theirs) if n > 1], seed


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
def test_cuda_in_place_on_channels_last_keeps_strides_and_values():
    x = _inputs(E, "cuda")["cl"]
    x.mul_(2).add_(x)
    assert x.stride() == (60, 1, 15, 3)
    np.testing.assert_allclose(x.cpu().numpy(), 4 * A4, rtol=1e-6)
