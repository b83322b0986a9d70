"""The sorting family's composites (the `"any"` kernels CUDA runs) give the CPU kernels' values,
NaN, ties and `out=` included, on CPU tensors and on CUDA (simulator)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.testing import assert_close

NAN = float("nan")


def _ties_and_nans(seed: int, shape, dtype=E.float32):
    """Values drawn from a few integers (ties), a quarter of them NaN for float dtypes."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=shape).astype(np.float64)
    if dtype.is_floating_point:
        a[rng.random(shape) < 0.25] = np.nan
    return E.tensor(a, dtype=dtype)


def _kernels(name: str):
    op = get_op(name)
    return op.kernels["cpu"], op.kernels["any"]


def _same(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert_close(g, w, equal_nan=True, rtol=0, atol=0)


CASES = [
    ("kthvalue", lambda x: (x, 2, 1, False)),
    ("kthvalue", lambda x: (x, 1, 0, True)),
    ("median", lambda x: (x,)),
    ("median_dim", lambda x: (x, 1, False)),
    ("median_dim", lambda x: (x, 0, True)),
    ("nanmedian", lambda x: (x,)),
    ("nanmedian_dim", lambda x: (x, 1, True)),
    ("nanmedian_dim", lambda x: (x, 0, False)),
    ("unique", lambda x: (x, None)),
    ("unique_consecutive", lambda x: (x, None)),
    ("unique_consecutive", lambda x: (x, 1)),
    ("histc", lambda x: (x, 5, -2, 2)),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", [E.float32, E.float64, E.int64])
@pytest.mark.parametrize("name, args", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_composite_matches_the_cpu_kernel(name, args, dtype, seed):
    if name == "histc" and not dtype.is_floating_point:
        pytest.skip("histc takes floats")
    x = _ties_and_nans(seed, (4, 6), dtype)
    cpu, composite = _kernels(name)
    got, want = composite(*args(x)), cpu(*args(x))
    if name == "unique" and dtype.is_floating_point:
        # every NaN is distinct; which NaN gets which of their slots is the sort's (numpy's, like
        # PyTorch's CPU sort, is not stable): compare the values, counts, and what the inverse maps back to
        _same((got[0], got[2]), (want[0], want[2]))
        _same(got[0].reshape(-1)[got[1].reshape(-1)].reshape(x.shape), x)
        return
    if name == "kthvalue":
        # the CPU picks among equal values as PyTorch's quickselect does, the composite by a stable sort:
        # the same value, and each index points at it
        _same(got[0], want[0])
        a, d, keep = args(x)[0], args(x)[2], args(x)[3]
        idx = got[1] if keep else got[1].unsqueeze(d)
        _same(a.gather(d, idx), got[0] if keep else got[0].unsqueeze(d))
        return
    _same(got, want)


@pytest.mark.parametrize("name, args", [("median", ()), ("nanmedian", ()), ("kthvalue", (1, 0, False)),
                                        ("median_dim", (0, True)), ("nanmedian_dim", (0, False))])
def test_composite_matches_on_a_0_dim_and_an_all_nan_input(name, args):
    cpu, composite = _kernels(name)
    for x in (E.tensor(2.5), E.tensor([NAN, NAN, NAN])):
        got, want = composite(x, *args), cpu(x, *args)
        if name == "kthvalue":  # which NaN: the stable sort's first, the CPU quickselect's as PyTorch's
            got, want = got[0], want[0]
        _same(got, want)


def test_composite_writes_out_like_the_cpu_kernel():
    x = _ties_and_nans(7, (3, 5))
    cpu, composite = _kernels("median_dim")
    want = (E.empty(0), E.empty(0, dtype=E.int64))
    got = (E.empty(0), E.empty(0, dtype=E.int64))
    _same(composite(x, 1, False, out=got), cpu(x, 1, False, out=want))
    _same(got, want)
    cpu, composite = _kernels("histc")
    got, want = E.empty(0, dtype=E.float64), E.empty(0, dtype=E.float64)
    _same(composite(x, 4, -3, 3, out=got), cpu(x, 4, -3, 3, out=want))


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_composite_matches_numpy_with_nan(right):
    seq = E.tensor([[1.0, 2.0, 2.0, NAN], [0.0, 0.0, 3.0, 9.0]])
    v = E.tensor([[2.0, NAN, -1.0], [0.0, 10.0, NAN]])
    cpu, composite = _kernels("searchsorted")
    _same(composite(seq, v, right), cpu(seq, v, right))
    sorter = E.tensor([[1, 2, 3, 0], [0, 1, 3, 2]])
    shuffled = E.tensor([[NAN, 1.0, 2.0, 2.0], [0.0, 0.0, 9.0, 3.0]])
    _same(composite(shuffled, v, right, sorter, True), cpu(shuffled, v, right, sorter, True))


def test_bincount_composite_matches_numpy():
    x = E.tensor([1, 3, 3, 0, 7], dtype=E.int16)
    cpu, composite = _kernels("bincount")
    _same(composite(x, None, 10), cpu(x, None, 10))
    w = E.tensor([0.5, 1.0, 1.0, 2.0, 0.25], dtype=E.float32)
    _same(composite(x, w, 0), cpu(x, w, 0))


def test_histc_rejects_a_non_finite_range_as_pytorch():
    with pytest.raises(RuntimeError, match=re.escape("torch.histc: range of [0, inf] is not finite")):
        E.histc(E.tensor([0.0, 1.0, float("inf")]), 3)
    with pytest.raises(RuntimeError, match=re.escape("torch.histc: range of [0, inf] is not finite")):
        E.histc(E.tensor([0.0, 1.0]), 3, 0, float("inf"))
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        E.histc(E.tensor([1, 2]), 3)


def test_histc_of_data_with_a_nan_prints_pytorchs_negative_nan_range():
    """PyTorch 2.13's CPU min/max of NaN data give the all-ones NaN ("-nan"); a NaN bound passed in prints "nan"."""
    for data in ([1.0, NAN], [NAN, NAN]):
        with pytest.raises(RuntimeError, match=re.escape("torch.histc: range of [-nan, -nan] is not finite")):
            E.histc(E.tensor(data), 3)
    with pytest.raises(RuntimeError, match=re.escape("torch.histc: range of [nan, 1] is not finite")):
        E.histc(E.tensor([1.0, 2.0]), 3, NAN, 1.0)


@pytest.mark.parametrize("values, words", [([1.0, float("nan"), 2.0], "[-nan, -nan]"), ([float("nan")], "[nan, nan]"),
                                           ([float("inf"), float("nan")], "[-nan, -nan]")])
def test_histc_words_a_nan_data_range_as_pytorch(values, words):
    """PyTorch's vectorized min/max over more than one element gives x86's default NaN, printed `-nan`."""
    x = E.tensor(values)
    for kernel in _kernels("histc"):
        with pytest.raises(RuntimeError, match=re.escape(f"torch.histc: range of {words} is not finite")):
            kernel(x, 4, 0, 0)


# --- CUDA (simulator): the same values --------------------------------------------------------------
@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
def test_composites_on_cuda_give_the_cpu_values():
    x = _ties_and_nans(3, (3, 5))
    for fn in (lambda t: tuple(t.median(1)), lambda t: tuple(t.nanmedian(0, keepdim=True)), lambda t: t.median(),
               lambda t: t.kthvalue(2, 1).values, lambda t: E.histc(t, 4, -3, 3), lambda t: E.unique(t)):
        want, got = fn(x), fn(x.to("cuda"))
        _same(tuple(g.cpu() for g in got) if isinstance(got, tuple) else got.cpu(), want)
    out = (E.empty(0, device="cuda"), E.empty(0, dtype=E.int64, device="cuda"))
    E.median(x.to("cuda"), 1, out=out)
    _same(tuple(o.cpu() for o in out), tuple(E.median(x, 1)))
