"""Max/avg/adaptive pooling against float64 loop references; backward ops against central
differences of the forward; PyTorch's output-size rules (ceil_mode) and errors."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import pool as P


def T(a):
    return E.from_numpy(np.ascontiguousarray(a))


def out_len(n, k, s, p, d, ceil_mode):
    """PyTorch's documented pooling output size, ceil_mode's last window starting inside input or left pad."""
    span = n + 2 * p - d * (k - 1) - 1
    o = (math.ceil(span / s) if ceil_mode else span // s) + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def ref_max_pool2d(x, k, s, p, d, ceil_mode):
    n, c, h, w = x.shape
    ho, wo = out_len(h, k[0], s[0], p[0], d[0], ceil_mode), out_len(w, k[1], s[1], p[1], d[1], ceil_mode)
    out, idx = np.full((n, c, ho, wo), -np.inf), np.zeros((n, c, ho, wo), dtype=np.int64)
    for i in range(ho):
        for j in range(wo):
            for a in range(k[0]):
                for b in range(k[1]):
                    r, q = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + b * d[1]
                    if 0 <= r < h and 0 <= q < w:
                        better = x[:, :, r, q] > out[:, :, i, j]
                        out[:, :, i, j] = np.where(better, x[:, :, r, q], out[:, :, i, j])
                        idx[:, :, i, j] = np.where(better, r * w + q, idx[:, :, i, j])
    return out, idx


def ref_avg_pool2d(x, k, s, p, ceil_mode, count_include_pad, divisor_override):
    n, c, h, w = x.shape
    ho, wo = out_len(h, k[0], s[0], p[0], 1, ceil_mode), out_len(w, k[1], s[1], p[1], 1, ceil_mode)
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = min(h0 + k[0], h + p[0]), min(w0 + k[1], w + p[1])
            size = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            total = x[:, :, h0:h1, w0:w1].sum((2, 3))
            div = divisor_override or (size if count_include_pad else (h1 - h0) * (w1 - w0))
            out[:, :, i, j] = total / div
    return out


def ref_adaptive(x, size, fn):
    n, c, h, w = x.shape
    out = np.zeros((n, c, *size))
    for i in range(size[0]):
        for j in range(size[1]):
            a, b = (i * h) // size[0], math.ceil((i + 1) * h / size[0])
            e, f = (j * w) // size[1], math.ceil((j + 1) * w / size[1])
            out[:, :, i, j] = fn(x[:, :, a:b, e:f], axis=(2, 3))
    return out


def check_vjp(f, x, g, vjp, eps=1e-6, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(3):
        v = rng.standard_normal(x.shape)
        jv = (f(x + eps * v) - f(x - eps * v)) / (2 * eps)
        assert np.isclose(np.sum(vjp * v), np.sum(g * jv), rtol=1e-6, atol=1e-7)


windows = st.fixed_dictionaries({
    "h": st.integers(3, 8), "w": st.integers(3, 8), "k": st.tuples(st.integers(1, 3), st.integers(1, 3)),
    "s": st.tuples(st.integers(1, 3), st.integers(1, 3)), "p": st.tuples(st.integers(0, 1), st.integers(0, 1)),
    "d": st.tuples(st.integers(1, 2), st.integers(1, 2)), "ceil": st.booleans()})


def valid(c, dil=True):
    d = c["d"] if dil else (1, 1)
    if any(pp > kk // 2 for pp, kk in zip(c["p"], c["k"])):
        return False
    return all(out_len(n, k, s, p, dd, c["ceil"]) >= 1 for n, k, s, p, dd in
               zip((c["h"], c["w"]), c["k"], c["s"], c["p"], d))


@settings(max_examples=25, deadline=None)
@given(windows)
def test_max_pool2d_values_indices_and_backward(c):
    if not valid(c):
        return
    x = np.random.default_rng(0).standard_normal((2, 3, c["h"], c["w"]))
    out, idx = E.max_pool2d(T(x), c["k"], c["s"], c["p"], c["d"], c["ceil"], return_indices=True)
    want, want_idx = ref_max_pool2d(x, c["k"], c["s"], c["p"], c["d"], c["ceil"])
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    assert idx.dtype is E.int64
    g = np.random.default_rng(1).standard_normal(want.shape)
    gi = P.max_pool2d_backward(T(g), idx, x.shape).numpy()
    check_vjp(lambda xx: ref_max_pool2d(xx, c["k"], c["s"], c["p"], c["d"], c["ceil"])[0], x, g, gi)


@settings(max_examples=25, deadline=None)
@given(windows, st.booleans(), st.sampled_from([None, 3]))
def test_avg_pool2d_divisors_and_backward(c, count_include_pad, divisor_override):
    if not valid(c, dil=False):
        return
    x = np.random.default_rng(2).standard_normal((2, 2, c["h"], c["w"]))
    got = E.avg_pool2d(T(x), c["k"], c["s"], c["p"], c["ceil"], count_include_pad, divisor_override)
    want = ref_avg_pool2d(x, c["k"], c["s"], c["p"], c["ceil"], count_include_pad, divisor_override)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(3).standard_normal(want.shape)
    gi = P.avg_pool2d_backward(T(g), x.shape, c["k"], c["s"], c["p"], c["ceil"], count_include_pad,
                               divisor_override).numpy()
    check_vjp(lambda xx: ref_avg_pool2d(xx, c["k"], c["s"], c["p"], c["ceil"], count_include_pad,
                                        divisor_override), x, g, gi)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 5), st.integers(1, 5))
def test_adaptive_pools_match_bin_reference_and_backward(h, w, oh, ow):
    x = np.random.default_rng(4).standard_normal((2, 3, h, w))
    np.testing.assert_allclose(E.adaptive_avg_pool2d(T(x), (oh, ow)).numpy(), ref_adaptive(x, (oh, ow), np.mean),
                               atol=1e-12)
    out, idx = E.adaptive_max_pool2d(T(x), (oh, ow), return_indices=True)
    np.testing.assert_array_equal(out.numpy(), ref_adaptive(x, (oh, ow), np.max))
    np.testing.assert_array_equal(np.take_along_axis(x.reshape(2, 3, -1), idx.numpy().reshape(2, 3, -1), 2),
                                  out.numpy().reshape(2, 3, -1))
    g = np.random.default_rng(5).standard_normal((2, 3, oh, ow))
    gi = P.adaptive_avg_pool2d_backward(T(g), x.shape).numpy()
    check_vjp(lambda xx: ref_adaptive(xx, (oh, ow), np.mean), x, g, gi)
    gm = P.max_pool2d_backward(T(g), idx, x.shape).numpy()
    check_vjp(lambda xx: ref_adaptive(xx, (oh, ow), np.max), x, g, gm)


def test_pools_accept_unbatched_float32_and_none_in_output_size():
    x = np.random.default_rng(6).standard_normal((3, 6, 5)).astype(np.float32)
    got = E.max_pool2d(T(x), 2)
    assert got.dtype is E.float32 and got.shape == (3, 3, 2)
    np.testing.assert_array_equal(got.numpy(), ref_max_pool2d(x[None].astype(np.float64), (2, 2), (2, 2), (0, 0),
                                                              (1, 1), False)[0][0])
    assert E.adaptive_avg_pool2d(T(x), (None, 2)).shape == (3, 6, 2)
    np.testing.assert_allclose(E.adaptive_avg_pool2d(T(x[None]), 1).numpy()[..., 0, 0], x.mean((1, 2))[None],
                               rtol=1e-6)


def test_one_dimensional_pools_go_through_the_2d_kernels():
    x = np.random.default_rng(7).standard_normal((2, 3, 9))
    out, idx = E.max_pool1d(T(x), 3, stride=2, padding=1, return_indices=True)
    want, want_idx = ref_max_pool2d(x[:, :, None], (1, 3), (1, 2), (0, 1), (1, 1), False)
    np.testing.assert_array_equal(out.numpy(), want[:, :, 0])
    np.testing.assert_array_equal(idx.numpy(), want_idx[:, :, 0])
    np.testing.assert_allclose(E.avg_pool1d(T(x), 2).numpy(), x[:, :, :8].reshape(2, 3, 4, 2).mean(-1), atol=1e-12)
    np.testing.assert_allclose(E.adaptive_avg_pool1d(T(x), 3).numpy(), x.reshape(2, 3, 3, 3).mean(-1), atol=1e-12)
    np.testing.assert_array_equal(E.adaptive_max_pool1d(T(x), 1).numpy(), x.max(-1, keepdims=True))


def test_max_pool2d_propagates_nan():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = np.nan
    out = E.max_pool2d(T(x), 2).numpy()
    assert np.isnan(out[0, 0, 0, 0]) and out[0, 0, 1, 1] == 15


def test_pool_errors_use_pytorchs_messages():
    x = E.zeros(1, 1, 4, 4)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        E.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match=r"Output size is too small"):
        E.max_pool2d(E.zeros(1, 1, 2, 2), 3, dilation=2, padding=1)
    with pytest.raises(RuntimeError, match=r"^non-empty 3D or 4D \(batch mode\) tensor expected for input$"):
        E.max_pool2d(E.zeros(4, 4), 2)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        E.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(NotImplementedError, match="\"max_pool2d\" not implemented for 'Bool'"):
        E.max_pool2d(E.zeros(1, 1, 4, 4, dtype=E.bool), 2)


_OPT_BATCH = "Expected {}D or {}D (batch mode) tensor with optional 0 dim batch size for input, but got:{}"
_NON_BATCH = "{}: Expected input's non-batch dimensions to have positive length, but input has a shape of {} and " \
             "non-batch dimension 0 has length zero!"


@pytest.mark.parametrize("call, shape, exc, msg", [
    (lambda x: E.max_pool2d(x, 1), (2, 4), RuntimeError, "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda x: E.max_pool2d(x, 1), (0, 2, 4), RuntimeError, _OPT_BATCH.format(3, 4, [0, 2, 4])),
    (lambda x: E.max_pool2d(x, 1), (1, 2, 0, 4), RuntimeError, _OPT_BATCH.format(3, 4, [1, 2, 0, 4])),
    (lambda x: E.avg_pool2d(x, 1), (), IndexError, "Dimension specified as -3 but tensor has no dimensions"),
    (lambda x: E.avg_pool2d(x, 1), (2, 4), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda x: E.avg_pool2d(x, 1), (1, 1, 2, 2, 4), RuntimeError, _OPT_BATCH.format(3, 4, [1, 1, 2, 2, 4])),
    (lambda x: E.max_pool1d(x, 1), (4,), RuntimeError, "max_pool1d: " + _OPT_BATCH.format(2, 3, [4])),
    (lambda x: E.avg_pool1d(x, 1), (4,), RuntimeError,
     "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while checking arguments for "
     "avg_pool1d)"),
    (lambda x: E.avg_pool1d(x, 1), (1, 0, 4), RuntimeError, _OPT_BATCH.format(3, 4, [1, 0, 1, 4])),
    (lambda x: E.max_pool3d(x, 1), (2, 2, 4), RuntimeError,
     "non-empty 4D or 5D (batch mode) tensor expected for input"),
    (lambda x: E.max_pool3d(x, 1), (0, 2, 4, 4), RuntimeError,
     _NON_BATCH.format("max_pool3d_with_indices_out_cpu_template()", [0, 2, 4, 4])),
    (lambda x: E.avg_pool3d(x, 1), (1, 1, 0, 4, 4), RuntimeError, _NON_BATCH.format("avg_pool3d()", [1, 1, 0, 4, 4])),
    (lambda x: E.adaptive_avg_pool2d(x, 1), (4,), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
    (lambda x: E.adaptive_avg_pool3d(x, 1), (), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
], ids=lambda v: str(v) if isinstance(v, tuple) else None)
def test_pool_rank_and_empty_dim_errors_are_each_ops_own(call, shape, exc, msg):
    # PyTorch 2.13 CPU: each pooling op words its rank check differently; an unbatched input's first dim (its
    # channels) must not be empty, a batched one's may
    with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
        call(E.ones(shape))


def test_pools_accept_an_empty_batch():
    assert E.max_pool2d(E.ones(0, 2, 4, 4), 2).shape == (0, 2, 2, 2)
    assert E.avg_pool1d(E.ones(0, 2, 4), 2).shape == (0, 2, 2)
    assert E.max_pool3d(E.ones(0, 1, 2, 4, 4), 2).shape == (0, 1, 1, 2, 2)


@pytest.mark.parametrize("fn, shape, exc, msg", [
    (E.avg_pool2d, (2, 3), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (E.avg_pool2d, (), IndexError, "Dimension specified as -3 but tensor has no dimensions"),
    (E.avg_pool2d, (2, 0, 4, 4), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 0, 4, 4]"),
    (E.max_pool2d, (5,), RuntimeError, "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (E.avg_pool1d, (5,), RuntimeError, "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 "
     "'self' (while checking arguments for avg_pool1d)"),
    (E.avg_pool1d, (0, 0), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[0, 1, 0]"),
    (E.max_pool1d, (5,), RuntimeError,
     "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[5]"),
    (E.avg_pool3d, (2, 3), RuntimeError, "non-empty 4D or 5D (batch mode) tensor expected for input"),
    (E.max_pool3d, (2, 0, 4, 4, 4), RuntimeError, "max_pool3d_with_indices_out_cpu_template(): Expected input's "
     "non-batch dimensions to have positive length, but input has a shape of [2, 0, 4, 4, 4] and non-batch "
     "dimension 0 has length zero!"),
])
def test_pool_rank_errors_are_pytorchs_per_function(fn, shape, exc, msg):
    with pytest.raises(exc) as info:
        fn(E.ones(shape), 1)
    assert str(info.value) == msg


def test_half_inputs_pool_in_float32_and_stay_half():
    x = np.random.default_rng(8).standard_normal((1, 2, 4, 4)).astype(np.float16)
    for fn in (lambda t: E.max_pool2d(t, 2), lambda t: E.avg_pool2d(t, 2), lambda t: E.adaptive_avg_pool2d(t, 3)):
        got, want = fn(T(x)), fn(T(x.astype(np.float32)))
        assert got.dtype is E.float16
        np.testing.assert_allclose(got.numpy().astype(np.float32), want.numpy(), rtol=2e-3, atol=2e-3)


def test_max_unpool_scatters_values_back_and_backward_rejects_bad_indices():
    x = np.random.default_rng(9).standard_normal((2, 3, 4, 6))
    out, idx = E.max_pool2d(T(x), 2, return_indices=True)
    un = E.max_unpool2d(out, idx, 2).numpy()
    keep = np.zeros(x.shape, dtype=bool)
    np.put_along_axis(keep.reshape(2, 3, -1), idx.numpy().reshape(2, 3, -1), True, axis=2)
    np.testing.assert_array_equal(un, np.where(keep, x, 0))
    o1, i1 = E.max_pool1d(T(x[0]), 2, return_indices=True)
    assert E.max_unpool1d(o1, i1, 2, output_size=(7,)).shape == (3, 4, 7)
    with pytest.raises(IndexError, match="Found an invalid max index"):
        P.max_pool2d_backward(out, E.full(tuple(out.shape), 24, dtype=E.int64), x.shape)


@pytest.mark.parametrize("w", [2, 3], ids=["2x2 kernel", "general kernel"])
def test_max_pool2d_last_nan_of_a_window_wins_with_its_index(w):
    """PyTorch keeps `val > maxval || isnan(val)`: a NaN after the max wins, and of two NaNs the later one
    in scan order (PyTorch 2.13: indices 5 and 14 for w = 2, 14 and 33 for w = 3)."""
    n = 2 * w
    x = np.zeros((1, 1, n, n), dtype=np.float32)
    x[0, 0, 0, 0] = 5.0
    x[0, 0, w - 1, w - 1] = np.nan  # after the max in scan order: still the result
    x[0, 0, w, w + 1] = np.nan
    x[0, 0, n - 1, w] = np.nan  # the later NaN of its window wins
    out, idx = P.max_pool2d_with_indices(E.from_numpy(x), (w, w), (w, w), (0, 0), (1, 1), False)
    o, i = out.numpy(), idx.numpy()
    assert np.isnan(o[0, 0, 0, 0]) and i[0, 0, 0, 0] == (w - 1) * n + w - 1
    assert np.isnan(o[0, 0, 1, 1]) and i[0, 0, 1, 1] == (n - 1) * n + w
    assert o[0, 0, 0, 1] == 0 and o[0, 0, 1, 0] == 0


def test_max_pool2d_backward_rejects_an_index_outside_the_plane():
    g = E.from_numpy(np.ones((1, 1, 1, 2), dtype=np.float32))
    bad = E.from_numpy(np.array([[[[0, 9]]]], dtype=np.int64))
    with pytest.raises(IndexError, match="Found an invalid max index: 9"):
        P.max_pool2d_backward(g, bad, (1, 1, 3, 3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("hw", [(8, 10), (7, 9)])
def test_max_pool2d_2x2_fast_path_matches_the_general_kernel(dtype, hw):
    """The branch-free 2x2/stride-2 kernel against the general one: values and indices, with ties (the
    earlier tap wins), signed zeros, NaNs (the last of its window wins, as PyTorch's) and odd sizes (the last row and
    column unread)."""
    from ember.core.ops import numba_nn

    rng = np.random.default_rng(23)
    x = rng.integers(-2, 3, size=(3, 4, *hw)).astype(dtype)  # many ties
    x[0, 0, :2, :2] = [[-0.0, 0.0], [0.0, -0.0]]
    x[1, 2, 2, 3] = x[1, 2, 3, 2] = x[2, 1, 5, 4] = np.nan
    planes = x.reshape(-1, *hw)
    want_o = np.empty((planes.shape[0], hw[0] // 2, hw[1] // 2), dtype=dtype)
    want_i = np.empty(want_o.shape, dtype=np.int64)
    numba_nn.max_pool2d()(planes, want_o, want_i, 2, 2, 2, 2, 0, 0, 1, 1, dtype(-np.inf))
    out, idx = P.max_pool2d_with_indices(T(x), (2, 2), (2, 2), (0, 0), (1, 1), False)
    np.testing.assert_array_equal(out.numpy().reshape(want_o.shape), want_o)
    np.testing.assert_array_equal(idx.numpy().reshape(want_i.shape), want_i)
    assert np.signbit(out.numpy()[0, 0, 0, 0])  # -0.0 came first and 0.0 is not greater
    assert np.isnan(out.numpy()[1, 2, 1, 1]) and idx.numpy()[1, 2, 1, 1] == 3 * hw[1] + 2


@pytest.mark.parametrize("size", [(1, 1, 0), (0, 1, 1)])
def test_adaptive_3d_pooling_of_an_empty_batch_to_a_size_with_a_zero(size):
    # found by the fuzz campaign's pool family: "shape '[0, 3, -1]' is invalid for input of size 0"
    x = E.zeros(0, 3, 5, 2, 7)
    out, idx = E.adaptive_max_pool3d(x, size, return_indices=True)
    assert tuple(out.shape) == tuple(idx.shape) == (0, 3, *size)
    assert tuple(E.adaptive_avg_pool3d(x, size).shape) == (0, 3, *size)


# --- integer inputs: what PyTorch computes, exactly; its NotImplementedError where it refuses ----------
INT_DTYPES = [E.int8, E.int16, E.int32, E.int64, E.uint8]


def ref_int_max_pool(a, k, s, p, d, ceil_mode):
    """Max pooling over the last len(k) dims by brute force, first maximum in scan order (PyTorch's ties)."""
    nd = len(k)
    lead, size = a.shape[:-nd], a.shape[-nd:]
    outs = [out_len(n, kk, ss, pp, dd, ceil_mode) for n, kk, ss, pp, dd in zip(size, k, s, p, d)]
    vals, idxs = np.empty(lead + tuple(outs), a.dtype), np.empty(lead + tuple(outs), np.int64)
    for lidx in np.ndindex(*lead):
        for o in np.ndindex(*outs):
            best = None
            for w in np.ndindex(*k):
                pos = tuple(oi * ss - pp + wi * dd for oi, ss, pp, wi, dd in zip(o, s, p, w, d))
                if all(0 <= q < n for q, n in zip(pos, size)):
                    v = a[lidx + pos]
                    if best is None or v > best[0]:
                        best = (v, int(np.ravel_multi_index(pos, size)))
            vals[lidx + o], idxs[lidx + o] = best
    return vals, idxs


def ref_int_avg_pool(a, k, s, p, ceil_mode, count_include_pad, divisor=None):
    """int64 average pooling as C computes it: an int64 sum divided with truncation toward zero."""
    nd = len(k)
    lead, size = a.shape[:-nd], a.shape[-nd:]
    outs = [out_len(n, kk, ss, pp, 1, ceil_mode) for n, kk, ss, pp in zip(size, k, s, p)]
    out = np.empty(lead + tuple(outs), np.int64)
    for lidx in np.ndindex(*lead):
        for o in np.ndindex(*outs):
            lo = [oi * ss - pp for oi, ss, pp in zip(o, s, p)]
            hi = [min(l0 + kk, n + pp) for l0, kk, n, pp in zip(lo, k, size, p)]
            pool = math.prod(h - l0 for h, l0 in zip(hi, lo))
            lo, hi = [max(v, 0) for v in lo], [min(v, n) for v, n in zip(hi, size)]
            total = int(a[lidx + tuple(slice(x, y) for x, y in zip(lo, hi))].astype(object).sum())
            q = divisor or (pool if count_include_pad else math.prod(h - l0 for h, l0 in zip(hi, lo)))
            out[lidx + o] = abs(total) // abs(q) * (1 if (total < 0) == (q < 0) else -1)
    return out


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_max_pools_are_exact_with_pytorchs_indices(dtype):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype.np)
    a = rng.integers(info.min, info.max, size=(2, 3, 5, 7), dtype=dtype.np, endpoint=True)
    a[0, 0, :2, :2] = info.max  # ties: the first in scan order wins
    a[0, 1] = info.min  # an all-minimum plane with padding: the padding never wins
    for k, s, p, d, ceil in [((2, 2), (2, 2), (0, 0), (1, 1), False), ((3, 2), (2, 1), (1, 1), (1, 2), True)]:
        out, idx = E.max_pool2d(T(a), k, s, p, d, ceil, return_indices=True)
        want, want_idx = ref_int_max_pool(a, k, s, p, d, ceil)
        assert out.dtype is dtype and idx.dtype is E.int64
        np.testing.assert_array_equal(out.numpy(), want)
        np.testing.assert_array_equal(idx.numpy(), want_idx)
    out, idx = E.max_pool1d(T(a[0]), 3, 2, 1, return_indices=True)
    want, want_idx = ref_int_max_pool(a[0], (3,), (2,), (1,), (1,), False)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    v = a.reshape(1, 2, 3, 5, 7)
    out, idx = E.max_pool3d(T(v), (2, 3, 2), (1, 2, 2), (1, 1, 0), ceil_mode=True, return_indices=True)
    want, want_idx = ref_int_max_pool(v, (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 1), True)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(idx.numpy(), want_idx)


def test_int64_extremes_pool_without_a_float_round_trip():
    big = T(np.array([[[2**62, 2**62, -2**63, 2**63 - 1]]], dtype=np.int64))
    out, idx = E.max_pool1d(big, 2, return_indices=True)
    assert out.tolist() == [[[2**62, 2**63 - 1]]] and idx.tolist() == [[[0, 3]]]
    # the window sum wraps in int64 as C's (PyTorch gives these), then divides truncating
    assert E.avg_pool1d(big, 2).tolist() == [[[-2**62, 0]]]
    out, idx = E.max_pool1d(E.full((1, 1, 4), -2**63, dtype=E.int64), 3, 1, 1, return_indices=True)
    assert out.tolist() == [[[-2**63] * 4]] and idx.tolist() == [[[0, 0, 1, 2]]]


def test_int64_average_pooling_truncates_toward_zero_as_pytorch():
    x = T(-(3 * np.arange(6, dtype=np.int64) + 1).reshape(1, 1, 6))  # -1, -4, ..., -16
    assert E.avg_pool1d(x, 2).tolist() == [[[-2, -8, -14]]]  # -2.5 -> -2
    assert E.avg_pool1d(x, 3, 2, 1).tolist() == [[[-1, -7, -13]]]
    assert E.avg_pool1d(x, 3, 2, 1, count_include_pad=False).tolist() == [[[-2, -7, -13]]]
    assert E.avg_pool1d(x, 4, 3, 1, ceil_mode=True).tolist() == [[[-3, -11, -8]]]
    assert E.avg_pool1d(x, 4, 3, 1, ceil_mode=True, count_include_pad=False).tolist() == [[[-4, -11, -16]]]
    assert E.avg_pool2d(x.reshape(1, 2, 3), 2, 1, divisor_override=3).tolist() == [[[-9, -13]]]
    assert E.avg_pool2d(x.reshape(1, 2, 3), 2, 1, divisor_override=-3).tolist() == [[[9, 13]]]
    v = x.reshape(1, 1, 2, 3)
    assert E.avg_pool3d(v, (1, 2, 2), 1, (0, 1, 1), count_include_pad=False).tolist() == \
        [[[[-1, -2, -5, -7], [-5, -7, -10, -11], [-10, -11, -14, -16]]]]
    assert E.avg_pool3d(v, (1, 2, 2), 1, (0, 1, 1), divisor_override=4).tolist() == \
        [[[[0, -1, -2, -1], [-2, -7, -10, -5], [-2, -5, -7, -4]]]]
    assert E.avg_pool2d(x.reshape(1, 2, 3), 2, 1).dtype is E.int64


@pytest.mark.parametrize(("k", "s", "p", "ceil", "cip", "div"), [
    ((3, 2), (2, 1), (1, 1), False, True, None), ((3, 3), (2, 2), (1, 1), True, False, None),
    ((2, 3), (1, 2), (1, 0), True, True, 5), ((2, 2, 3), (2, 1, 2), (1, 1, 0), True, False, None),
    ((3, 1, 2), (1, 2, 1), (1, 0, 1), False, True, -7)])
def test_int64_average_pools_match_a_truncating_reference(k, s, p, ceil, cip, div):
    a = np.random.default_rng(4).integers(-10**6, 10**6, size=(2, 2, 4, 5, 6), dtype=np.int64)
    if len(k) == 2:
        a = a[0]
    fn = E.avg_pool2d if len(k) == 2 else E.avg_pool3d
    got = fn(T(a), k, s, p, ceil, cip, div)
    np.testing.assert_array_equal(got.numpy(), ref_int_avg_pool(a, k, s, p, ceil, cip, div))


@pytest.mark.parametrize(("call", "message"), [
    (lambda x: E.max_pool1d(x[0], 2), "\"max_pool1d_impl\" not implemented for 'Long'"),
    (lambda x: E.max_pool1d(x[0].bool(), 2, return_indices=True), "\"max_pool2d\" not implemented for 'Bool'"),
    (lambda x: E.max_pool3d(x.unsqueeze(0).bool(), 1), "\"max_pool3d\" not implemented for 'Bool'"),
    (lambda x: E.max_pool2d(x.to(E.complex64), 2), "\"max_pool2d\" not implemented for 'ComplexFloat'"),
    (lambda x: E.avg_pool2d(x.int(), 2), "\"avg_pool2d\" not implemented for 'Int'"),
    (lambda x: E.avg_pool1d(x[0].to(E.uint8), 2), "\"avg_pool2d\" not implemented for 'Byte'"),
    (lambda x: E.avg_pool3d(x.unsqueeze(0).short(), 1), "\"avg_pool3d_out_frame\" not implemented for 'Short'"),
    (lambda x: E.adaptive_avg_pool2d(x, 2), "\"adaptive_avg_pool2d\" not implemented for 'Long'"),
    (lambda x: E.adaptive_avg_pool1d(x[0], 2), "\"adaptive_avg_pool2d\" not implemented for 'Long'"),
    (lambda x: E.adaptive_avg_pool3d(x.unsqueeze(0), 2), "\"adaptive_avg_pool3d_cpu\" not implemented for 'Long'"),
    (lambda x: E.adaptive_max_pool2d(x, 2), "\"adaptive_max_pool2d\" not implemented for 'Long'"),
    (lambda x: E.adaptive_max_pool3d(x.unsqueeze(0), 2), "\"adaptive_max_pool3d_cpu\" not implemented for 'Long'"),
    (lambda x: E.max_unpool2d(x, E.zeros(x.shape, dtype=E.int64), 1), "\"max_unpool2d\" not implemented for 'Long'"),
    (lambda x: E.fractional_max_pool2d(x, 2, output_size=2), "\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda x: E.fractional_max_pool2d(x, 2, output_size=2, _random_samples=E.zeros(1, 1, 2, dtype=E.int64)),
     "\"fractional_max_pool2d_out_frame\" not implemented for 'Long'"),
])
def test_pools_refuse_integers_as_pytorch(call, message):
    x = E.arange(16).reshape(1, 1, 4, 4)
    with pytest.raises(NotImplementedError, match=message.replace("(", r"\(")):
        call(x)
    with pytest.raises(TypeError):  # DtypeNotImplemented is a TypeError too, ember's rule for dtype errors
        call(x)


def test_adaptive_avg_pool_of_an_empty_dim_to_ones_is_nan_as_pytorch():
    # PyTorch takes the mean for an output of all ones: NaN, the mean of nothing, and no shape checks
    for fn, x, size, shape in [(E.adaptive_avg_pool1d, E.zeros(2, 3, 0), 1, (2, 3, 1)),
                               (E.adaptive_avg_pool1d, E.zeros(3, 0), 1, (3, 1)),
                               (E.adaptive_avg_pool2d, E.zeros(2, 3, 0, 2), 1, (2, 3, 1, 1)),
                               (E.adaptive_avg_pool3d, E.zeros(2, 0, 3, 2), (1, 1, 1), (2, 1, 1, 1))]:
        out = fn(x, size)
        assert tuple(out.shape) == shape and np.isnan(out.numpy()).all()
    assert tuple(E.adaptive_avg_pool2d(E.zeros(2, 0, 3, 2), 2).shape) == (2, 0, 2, 2)  # channels may be empty
    with pytest.raises(RuntimeError, match=r"adaptive_avg_pool2d\(\): Expected input to have non-zero size for "
                                           r"non-batch dimensions, but input has sizes \[2, 3, 1, 0\] with "
                                           r"dimension 3 being empty"):
        E.adaptive_avg_pool1d(E.zeros(2, 3, 0), 2)
    with pytest.raises(RuntimeError, match=r"adaptive_avg_pool3d\(\): Expected input to have non-zero size"):
        E.adaptive_avg_pool3d(E.zeros(2, 3, 0, 2, 2), 2)
    with pytest.raises(RuntimeError, match=r"adaptive_max_pool1d\(\): Expected input to have non-zero size for "
                                           r"non-batch dimensions, but input has sizes \[2, 3, 0\] with dimension 2"):
        E.adaptive_max_pool1d(E.zeros(2, 3, 0), 1)
    with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype"):  # PyTorch's, through mean
        E.adaptive_avg_pool2d(E.ones(1, 1, 4, 4, dtype=E.int64), 1)
    np.testing.assert_allclose(E.adaptive_avg_pool2d(E.arange(16.0).reshape(1, 1, 4, 4), (1, 1)).numpy(), [[[[7.5]]]])


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "bool", "complex64"])
def test_integer_pools_match_pytorch(dtype):
    torch = pytest.importorskip("torch")
    cases = [
        lambda F, x: F.max_pool1d(x[0, 0], 2), lambda F, x: F.max_pool1d(x[0, 0], 3, 2, 1, return_indices=True),
        lambda F, x: F.max_pool2d(x[0], 3, 2, 1, 2, True, True), lambda F, x: F.max_pool3d(x, 2, 1, 1, 1, True, True),
        lambda F, x: F.avg_pool1d(x[0, 0], 4, 3, 1, True, False), lambda F, x: F.avg_pool2d(x[0], 3, 2, 1, True),
        lambda F, x: F.avg_pool2d(x[0], 2, divisor_override=3), lambda F, x: F.avg_pool3d(x, 2, 1, 1, True, False),
        lambda F, x: F.adaptive_avg_pool2d(x[0], 2), lambda F, x: F.adaptive_avg_pool2d(x[0], 1),
        lambda F, x: F.adaptive_max_pool3d(x, 2), lambda F, x: F.fractional_max_pool2d(x[0], 2, output_size=2),
        lambda F, x: F.max_unpool2d(x[0], torch.zeros(x[0].shape, dtype=torch.int64) if F is not E else
                                    E.zeros(x[0].shape, dtype=E.int64), 1)]
    a = np.random.default_rng(5).integers(-300, 300, size=(1, 2, 4, 5, 6))
    for i, case in enumerate(cases):
        results = []
        for F, x in ((torch.nn.functional, torch.tensor(a).to(getattr(torch, dtype))),
                     (E, T(a).to(getattr(E, dtype)))):
            try:
                r = case(F, x)
            except (NotImplementedError, RuntimeError) as e:
                results.append((isinstance(e, NotImplementedError), str(e).splitlines()[0]))
                continue
            rs = r if isinstance(r, tuple) else (r,)
            results.append([(str(t.dtype).split(".")[-1], t.numpy()) for t in rs])
        want, got = results
        if isinstance(want, tuple):
            assert got == want, (i, got, want)
            continue
        for (gd, gv), (wd, wv) in zip(got, want, strict=True):
            assert gd == wd, (i, gd, wd)
            np.testing.assert_allclose(gv, wv, rtol=1e-6, err_msg=str(i))


def test_pytorchs_order_for_integer_inputs_shape_errors_first_and_empty_results():
    # a bad window is a RuntimeError before the dtype's refusal; an empty input to adaptive average pooling
    # or unpooling returns an empty result of its dtype (PyTorch returns before dispatching on the dtype)
    with pytest.raises(RuntimeError, match=r"max_pool1d\(\) Invalid computed output size: 0"):
        E.max_pool1d(E.zeros(1, 1, 1, dtype=E.int64), 2, 1, ceil_mode=True)
    with pytest.raises(RuntimeError, match="^stride should not be zero$"):
        E.max_pool3d(E.zeros(0, 3, 7, 4, 5, dtype=E.int64), (2, 2, 1), (3, 1, 0))
    for fn, x, size, shape in [(E.adaptive_avg_pool2d, E.zeros(0, 2, 5, 4, dtype=E.int64), 2, (0, 2, 2, 2)),
                               (E.adaptive_avg_pool1d, E.zeros(0, 2, 5, dtype=E.int64), 2, (0, 2, 2)),
                               (E.adaptive_avg_pool2d, E.zeros(2, 0, 5, 4, dtype=E.int64), 2, (2, 0, 2, 2))]:
        out = fn(x, size)
        assert out.dtype is E.int64 and tuple(out.shape) == shape
    x = E.zeros(0, 2, 5, 4, dtype=E.int64)
    out = E.max_unpool2d(x, x, 1)
    assert out.dtype is E.int64 and tuple(out.shape) == (0, 2, 5, 4)


def test_adaptive_pool_shape_errors_use_pytorchs_messages():
    with pytest.raises(RuntimeError, match=r"^Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument "
                                           r"#1 'self' \(while checking arguments for adaptive_max_pool1d\)$"):
        E.adaptive_max_pool1d(E.zeros(1, 2, 3, 4), 2)
    with pytest.raises(RuntimeError, match=r"^adaptive_max_pool2d\(\): Expected 3D or 4D tensor, but got: "):
        E.adaptive_max_pool2d(E.zeros(1, 1, 2, 3, 4), 2)
    with pytest.raises(RuntimeError, match=r"^adaptive_avg_pool2d\(\): Expected 3D or 4D tensor, but got \[1, 1, 2"):
        E.adaptive_avg_pool2d(E.zeros(1, 1, 2, 3, 4), 2)
    # max pooling refuses empty channels too (average pooling returns the empty result)
    with pytest.raises(RuntimeError, match=r"sizes \[2, 0, 3, 2\] with dimension 1 being empty"):
        E.adaptive_max_pool2d(E.zeros(2, 0, 3, 2), 1)
    with pytest.raises(RuntimeError, match=r"greater than or equal to 0 but received \{-1, -1\}"):
        E.adaptive_avg_pool2d(E.zeros(2, 3, 4, 2), -1)


def test_avg_pool3d_checks_the_input_against_the_kernel_and_refuses_cpu_half_as_pytorch():
    with pytest.raises(RuntimeError, match=r"^input image \(T: 2 H: 4 W: 4\) smaller than kernel size "
                                           r"\(kT: 3 kH: 3 kW: 3\)$"):
        E.avg_pool3d(E.zeros(1, 1, 2, 4, 4), 3, 1, 1)  # padding does not count; max pooling computes
    assert tuple(E.max_pool3d(E.zeros(1, 1, 2, 4, 4), 3, 1, 1).shape) == (1, 1, 2, 4, 4)
    for dt, name in ((E.float16, "Half"), (E.bfloat16, "BFloat16")):
        with pytest.raises(NotImplementedError, match=f"\"avg_pool3d_out_frame\" not implemented for '{name}'"):
            E.avg_pool3d(E.zeros(1, 1, 2, 2, 2, dtype=dt), 2)


def test_half_adaptive_avg_pool3d_is_pytorchs_single_pass():
    # not two 2-D passes each rounded (109.5 gave 110): PyTorch's values (torch 2.13), its sums in bfloat16
    x = (E.arange(-8, 56).reshape(1, 1, 4, 4, 4) * 3).to(E.bfloat16)
    got = E.adaptive_avg_pool3d(x, 2).float().numpy().ravel()
    assert got.tolist() == [7.5, 13.5, 31.5, 37.5, 103.5, 109.5, 128.0, 133.0]


def test_a_max_pool_window_with_no_tap_inside_the_input_is_pytorchs_lowest():
    # ceil_mode with dilation can place a window's every tap outside the input: PyTorch gives -inf (an
    # integer dtype's least) and the index of the first tap past the left padding (the kernel used to read
    # past the plane); values hard-coded from torch 2.13
    x = E.tensor([[1.0], [2.0], [3.0]])
    out, idx = E.max_pool1d(x, 2, 3, 1, 2, True, True)
    assert out.tolist() == [[-math.inf]] * 3 and idx.tolist() == [[1]] * 3
    assert E.max_pool1d(x, 2, 3, 1, 2, True).tolist() == [[-math.inf]] * 3
    out, idx = E.max_pool1d(x.to(E.int8), 2, 3, 1, 2, True, True)
    assert out.tolist() == [[-128]] * 3 and idx.tolist() == [[1]] * 3
    out, idx = E.max_pool2d(x.unsqueeze(0), (1, 2), (1, 3), (0, 1), (1, 2), True, True)
    assert out.tolist() == [[[-math.inf]] * 3] and idx.tolist() == [[[1], [2], [3]]]
    out, idx = E.max_pool3d(E.zeros(1, 1, 1, 3), (3, 3, 2), (3, 3, 2), (1, 0, 0), (2, 1, 1), True, True)
    assert out.tolist() == [[[[-math.inf, -math.inf]]]] and idx.tolist() == [[[[3, 5]]]]


@pytest.mark.parametrize(("fn", "nd", "message"), [
    ("adaptive_avg_pool1d", 1, r"^adaptive_avg_pool1d\(\) argument 'output_size' should contain one int \(got 2\)$"),
    ("adaptive_max_pool1d", 1, r"^adaptive_max_pool1d\(\) argument 'output_size' should contain one int \(got 2\)$"),
    ("adaptive_avg_pool2d", 2, r"^adaptive_avg_pool2d: output_size must be 2$"),
    ("adaptive_max_pool2d", 2, r"^adaptive_max_pool2d\(\): internal error: output_size.size\(\) must be 2$"),
    ("adaptive_avg_pool3d", 3, r"^adaptive_avg_pool3d: output_size must be 3$"),
])
def test_adaptive_pools_reject_an_output_size_of_the_wrong_length(fn, nd, message):
    with pytest.raises(RuntimeError, match=message):
        getattr(E, fn)(E.zeros((1, 1) + (4,) * nd), (2,) * (nd + 1))


@pytest.mark.parametrize("args, kwargs", [
    ((4,), {}), ((2,), {"padding": 2}), ((2,), {"stride": 0}), ((0,), {}), ((2,), {"dilation": 0}),
    ((3,), {"padding": -1}), (((2, 2),), {}), ((2,), {"stride": (1, 1)}), ((2,), {"padding": (0, 0)}),
    ((2,), {"dilation": (1, 1)}), (([],), {}),
])
def test_max_pool1d_without_indices_raises_check_max_pool1d_messages(args, kwargs):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as want:
        torch.nn.functional.max_pool1d(torch.zeros(1, 2, 3), *args, **kwargs)
    with pytest.raises(RuntimeError) as got:
        E.max_pool1d(E.zeros(1, 2, 3), *args, **kwargs)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize(("call", "msg"), [
    (lambda x: E.avg_pool2d(x, 0), "stride should not be zero"),  # the stride defaults to the kernel
    (lambda x: E.max_pool2d(x, 0, stride=1), "kernel size should be greater than zero, but got kH: 0 kW: 0"),
    (lambda x: E.max_pool2d(x, (2, 0), stride=1), "kernel size should be greater than zero, but got kH: 2 kW: 0"),
    (lambda x: E.max_pool2d(x, 3, stride=(1, 0)), "stride should not be zero"),
    (lambda x: E.avg_pool2d(x, 3, padding=-1), "pad must be non-negative, but got pad: -1"),
    (lambda x: E.max_pool2d(x, 3, dilation=0), "dilation should be greater than zero, but got dilationH: 0 "
                                               "dilationW: 0"),
    (lambda x: E.avg_pool1d(x[0], 0, stride=1), "kernel size should be greater than zero, but got kH: 1 kW: 0"),
    (lambda x: E.avg_pool3d(x[None], 2, stride=0), "stride should not be zero"),
    (lambda x: E.max_pool3d(x[None], 2, padding=(0, -1, 3)), "pad must be non-negative, but got pad: -1"),
    (lambda x: E.avg_pool3d(x[None], 3, padding=2), "pad should be at most half of effective kernel size, but "
                                                    "got pad=2, kernel_size=3 and dilation=1"),
])
def test_bad_windows_raise_pytorchs_errors_in_its_order(call, msg):
    # PyTorch computes each dim's output size (checking stride, then pad) before its shape checks
    with pytest.raises(RuntimeError, match=f"^{re.escape(msg)}$"):
        call(E.ones(1, 2, 7, 9))


@pytest.mark.parametrize("call, message", [
    (lambda x: P.max_pool2d(x[0], (2, 2, 2)),
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda x: P.max_pool2d(x[0], 2, (1, 1, 1)),
     "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints"),
    (lambda x: P.max_pool2d(x[0], 2, dilation=(1, 1, 1)),
     "max_pool2d: dilation must be either a single int, or a tuple of two ints"),
    (lambda x: P.avg_pool2d(x[0], 2, padding=(0, 0, 0)),
     "avg_pool2d: padding must either be a single int, or a tuple of two ints"),
    (lambda x: P.max_pool3d(x, 2, (1, 1)),
     "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints"),
    (lambda x: P.max_pool3d(x, 2, dilation=(1, 1)),
     "max_pool3d: dilation must be either a single int, or a tuple of three ints"),
    (lambda x: P.avg_pool3d(x, (2, 2)), "avg_pool3d: kernel_size must be a single int, or a tuple of three ints"),
    (lambda x: P.avg_pool3d(x, 2, (1, 2, 3, 4)),
     "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints"),
    (lambda x: P.avg_pool3d(x, 2, padding=(0, 0)),
     "avg_pool3d: padding must be a single int, or a tuple of three ints"),
])
def test_window_arguments_of_the_wrong_length_use_each_ops_words(call, message):
    with pytest.raises(RuntimeError) as info:
        call(E.zeros(1, 1, 4, 4, 4))
    assert str(info.value) == message


def test_unpool_output_size_has_as_many_dims_as_the_kernel_given():
    """PyTorch's `_unpool_output_size` takes the kernel's length; the kernel then counts the dims it got."""
    y, idx = P.max_pool3d(E.zeros(1, 1, 4, 4, 4), 2, return_indices=True)
    from ember.core.ops import unpool as U
    for kernel, n in [((2, 2), 2), ((2,), 1)]:
        with pytest.raises(RuntimeError, match=rf"^There should be exactly three elements \(depth, height, width\) in "
                                               rf"output_size, but got {n} elements\.$"):
            U.max_unpool3d(y, idx, kernel)
    with pytest.raises(RuntimeError, match=r"^There should be exactly two elements \(height, width\) in output_size, "
                                           r"but got 1 elements\.$"):
        U.max_unpool2d(y[0], idx[0], (2,))
    with pytest.raises(IndexError):
        U.max_unpool3d(y, idx, 2, stride=(2, 2))
    assert U.max_unpool3d(y, idx, 2).shape == (1, 1, 4, 4, 4)


@pytest.mark.parametrize("call, message", [
    (lambda x: P.adaptive_avg_pool3d(x, (2, 2, -3)),
     "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received {2, 2,-3}"),
    (lambda x: P.adaptive_avg_pool2d(x[0], (1, -2)),
     "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {1, -2}"),
    (lambda x: P.adaptive_max_pool3d(x[0], (2, -1, -3)), "Trying to create tensor with negative dimension -1: "
                                                          "[1, 2, -1, -3]"),
    (lambda x: P.adaptive_max_pool2d(x[0, 0], (2, -3)),
     "Trying to create tensor with negative dimension -3: [4, 2, -3]"),
])
def test_negative_adaptive_output_sizes_raise_each_ops_words(call, message):
    with pytest.raises(RuntimeError) as info:
        call(E.zeros(1, 1, 4, 4, 4))
    assert str(info.value) == message


def test_fractional_max_pool3d_wants_the_window_span_strictly_inside_as_pytorch():
    from ember.core.ops import fractional_pool as FP
    x, samples = E.zeros(1, 1, 4, 4, 4), E.full((1, 1, 3), 0.5)
    for out, word in [((3, 2, 2), "time"), ((2, 3, 2), "height"), ((2, 3, 3), "width")]:
        with pytest.raises(RuntimeError, match=rf"^fractional_max_pool3d_out\(\): pool {word} 2 too large relative to "
                                               rf"input {word} 4$"):
            FP.fractional_max_pool3d(x, 2, output_size=out, _random_samples=samples)
    assert FP.fractional_max_pool3d(x, 2, output_size=(2, 2, 2), _random_samples=samples).shape == (1, 1, 2, 2, 2)


def _sequential_window_mean(a: np.ndarray, sizes) -> np.ndarray:
    """A loop reference of PyTorch's reduced-precision CPU adaptive_avg_pool3d: sum in the dtype, then / kD / kH /
    kW."""
    out = np.zeros(a.shape[:2] + tuple(sizes), dtype=a.dtype)
    bounds = [[(o * n // m, -(-(o + 1) * n // m)) for o in range(m)] for n, m in zip(a.shape[2:], sizes)]
    for idx in np.ndindex(*out.shape):
        (d0, d1), (h0, h1), (w0, w1) = (bounds[i][idx[2 + i]] for i in range(3))
        s = a.dtype.type(0)
        for v in a[idx[0], idx[1], d0:d1, h0:h1, w0:w1].reshape(-1):
            s = a.dtype.type(np.float32(s) + np.float32(v))
        for k in (d1 - d0, h1 - h0, w1 - w0):
            s = a.dtype.type(np.float32(s) / np.float32(k))
        out[idx] = s
    return out


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_adaptive_avg_pool3d_sums_in_its_dtype_as_pytorchs_cpu_kernel(dtype):
    a = (np.random.default_rng(0).standard_normal((1, 2, 8, 7, 7)) * 3 + 100).astype(getattr(E, dtype).np)
    x = E.tensor(a.astype(np.float32)).to(getattr(E, dtype))
    for sizes in [(1, 1, 2), (3, 4, 5)]:
        want = _sequential_window_mean(a, sizes)
        got = P.adaptive_avg_pool3d(x, sizes)
        assert got.dtype is getattr(E, dtype)
        np.testing.assert_array_equal(got.float().numpy(), want.astype(np.float32))
    once = P.adaptive_avg_pool3d(x.float(), (1, 1, 2)).numpy().astype(a.dtype)  # one rounding would differ here
    assert not np.array_equal(once, _sequential_window_mean(a, (1, 1, 2)))


def test_2d_pools_refuse_a_float_window_as_pytorchs_parser():
    """A float kernel/stride/padding (or one inside the tuple) is PyTorch's TypeError, not a truncated window."""
    x = E.zeros(1, 1, 4, 4)
    with pytest.raises(TypeError, match=re.escape("avg_pool2d(): argument 'kernel_size' (position 2) must be tuple of "
                                                  "ints, not float")):
        E.avg_pool2d(x, 2.0)
    with pytest.raises(TypeError, match=re.escape("avg_pool2d(): argument 'stride' (position 3) must be tuple of ints, "
                                                  "not float")):
        E.avg_pool2d(x, 2, 1.0)
    with pytest.raises(TypeError, match=re.escape("max_pool2d(): argument 'padding' (position 4) must be tuple of "
                                                  "ints, not float")):
        E.max_pool2d(x, 2, padding=1.0)
    with pytest.raises(TypeError, match=re.escape("avg_pool2d(): argument 'kernel_size' failed to unpack the object at "
                                                  "pos 2 with error \"type must be tuple of ints,but got float\"")):
        E.avg_pool2d(x, (2, 2.0))
    assert E.avg_pool2d(x, np.int64(2), stride=()).shape == (1, 1, 2, 2)


_x3, _x4, _x5 = E.ones(2, 3, 8), E.ones(1, 2, 6, 6), E.ones(1, 1, 4, 4, 4)
_UNPACK = "failed to unpack the object at pos {} with error \"type must be tuple of ints,but got float\""


@pytest.mark.parametrize("call, message", [
    (lambda: E.avg_pool1d(_x3, 2.0),
     "avg_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, not float"),
    (lambda: E.avg_pool1d(_x3, 2, 1.0),
     "avg_pool1d(): argument 'stride' (position 3) must be tuple of ints, not float"),
    (lambda: E.avg_pool1d(_x3, (2.0,)),
     "avg_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, but found element of type float at "
     "pos 0"),
    (lambda: E.max_pool1d(_x3, 2.0),
     "max_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, not float"),
    (lambda: E.max_pool1d(_x3, 2, 2, 0, 1.0),
     "max_pool1d(): argument 'dilation' (position 5) must be tuple of ints, not float"),
    (lambda: E.avg_pool2d(_x4, (2, 2.0)), "avg_pool2d(): argument 'kernel_size' " + _UNPACK.format(2)),
    (lambda: E.max_pool2d(_x4, 2.0, return_indices=True),
     "max_pool2d_with_indices(): argument 'kernel_size' (position 2) must be tuple of ints, not float"),
    (lambda: E.max_pool2d(_x4, E.tensor([2, 2])),
     "max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not Tensor"),
    (lambda: E.max_pool1d(_x3, 2.0, return_indices=True),
     "max_pool1d_with_indices(): argument 'kernel_size' (position 2) must be tuple of ints, not float"),
    (lambda: E.max_pool3d(_x5, 2.0, return_indices=True),
     "max_pool3d_with_indices(): argument 'kernel_size' (position 2) must be tuple of ints, not float"),
    (lambda: E.max_pool3d(_x5, 2.0),
     "max_pool3d(): argument 'kernel_size' (position 2) must be tuple of ints, not float"),
    (lambda: E.avg_pool3d(_x5, (2, 2, 2.0)), "avg_pool3d(): argument 'kernel_size' " + _UNPACK.format(3)),
    (lambda: E.adaptive_avg_pool1d(_x3, 2.0),
     "adaptive_avg_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not float"),
    (lambda: E.adaptive_max_pool1d(_x3, 2.0),
     "adaptive_max_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not float"),
    (lambda: E.adaptive_avg_pool2d(_x4, 2.0), "object of type 'float' has no len()"),
    (lambda: E.adaptive_max_pool2d(_x4, (2, 2.0)),
     "adaptive_max_pool2d(): argument 'output_size' " + _UNPACK.format(2)),
    (lambda: E.adaptive_avg_pool2d(_x4, (None, 2.0)),
     "adaptive_avg_pool2d(): argument 'output_size' " + _UNPACK.format(2)),
    (lambda: E.adaptive_avg_pool2d(_x4, (2.0, None)),
     "adaptive_avg_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type "
     "float at pos 0"),
    (lambda: E.adaptive_avg_pool2d(_x4, (1, 1.0)),
     "adaptive_avg_pool2d(): argument 'output_size' " + _UNPACK.format(2)),
    (lambda: E.adaptive_avg_pool3d(_x5, (2, 2, 2.0)),
     "adaptive_avg_pool3d(): argument 'output_size' " + _UNPACK.format(3)),
    (lambda: E.adaptive_max_pool3d(_x5, 2.0), "object of type 'float' has no len()"),
])
def test_pools_refuse_float_sizes_in_pytorchs_words(call, message):
    """A float window or output size is refused as PyTorch's parser refuses it (the adaptive 2-D and 3-D pools take
    `len()` of a size first, as PyTorch's Python wrappers do), not truncated or left to Python's iteration."""
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_pools_take_an_integer_tensor_of_one_element_as_an_int():
    """(And a size of the wrong length is still the kernel's words, which name the pool, not the builtin.)"""
    with pytest.raises(RuntimeError, match=r"^max_pool3d: kernel_size must either be a single int, or a tuple of three "
                                           r"ints$"):
        E.max_pool3d(_x5, (2, 2), return_indices=True)
    assert E.max_pool2d(_x4, E.tensor(2)).shape == (1, 2, 3, 3)
    assert E.avg_pool1d(_x3, E.tensor(2)).shape == (2, 3, 4)
def test_1d_and_3d_pools_refuse_a_float_window_as_pytorchs_parser():
    """A pyramid's `kernel_size=2.0` (or a float in the triple) is PyTorch's TypeError in 1-D and 3-D too, not
    Python's "'float' object is not iterable" nor a truncated window; a float first element names its type."""
    x = E.zeros(1, 1, 4, 4, 4)
    with pytest.raises(TypeError, match=re.escape("avg_pool3d(): argument 'kernel_size' (position 2) must be tuple of "
                                                  "ints, not float")):
        E.avg_pool3d(x, 2.0)
    with pytest.raises(TypeError, match=re.escape("max_pool3d(): argument 'dilation' (position 5) must be tuple of "
                                                  "ints, not float")):
        E.max_pool3d(x, 2, dilation=1.0)
    with pytest.raises(TypeError, match=re.escape("max_pool3d(): argument 'kernel_size' failed to unpack the object at "
                                                  "pos 2 with error \"type must be tuple of ints,but got float\"")):
        E.max_pool3d(x, (2, 2.0, 2))
    with pytest.raises(TypeError, match=re.escape("avg_pool3d(): argument 'kernel_size' (position 2) must be tuple of "
                                                  "ints, but found element of type float at pos 0")):
        E.avg_pool3d(x, (2.0, 2, 2))
    with pytest.raises(TypeError, match=re.escape("max_pool2d(): argument 'kernel_size' (position 2) must be tuple of "
                                                  "ints, but found element of type float at pos 0")):
        E.max_pool2d(x[0], (2.0, 2))
    with pytest.raises(TypeError, match=re.escape("avg_pool1d(): argument 'kernel_size' (position 2) must be tuple of "
                                                  "ints, not float")):
        E.avg_pool1d(x[0, 0], 2.0)
    with pytest.raises(TypeError, match=re.escape("max_pool1d(): argument 'kernel_size' (position 2) must be tuple of "
                                                  "ints, not float")):
        E.max_pool1d(x[0, 0], 2.0)
    with pytest.raises(TypeError, match=re.escape("max_pool3d_with_indices(): argument 'stride' (position 3) must be "
                                                  "tuple of ints, not float")):
        E.max_pool3d(x, 2, 1.0, return_indices=True)  # PyTorch's F.max_pool3d calls that op then
    with pytest.raises(TypeError, match=re.escape("max_pool2d_with_indices(): argument 'kernel_size' (position 2) must "
                                                  "be tuple of ints, not float")):
        E.max_pool2d(x[0], 2.0, return_indices=True)
    with pytest.raises(RuntimeError, match="^max_pool3d: kernel_size must either be a single int, or a tuple of three "
                                           "ints$"):
        E.max_pool3d(x, (2, 2), return_indices=True)
    assert E.avg_pool3d(x, np.int64(2), [2]).shape == (1, 1, 2, 2, 2)


def test_adaptive_pools_refuse_float_sizes_as_pytorch():
    """PyTorch's functional code takes `len()` of a non-int output size, and its parser refuses a float element
    (None keeps the input's dim first): no truncation, and no all-ones shortcut for `(1.0, 1)`."""
    x = E.zeros(1, 1, 4, 4, 4)
    with pytest.raises(TypeError, match=r"^object of type 'float' has no len\(\)$"):
        E.adaptive_avg_pool3d(x, 2.0)
    with pytest.raises(TypeError, match=r"^len\(\) of a 0-d tensor$"):
        E.adaptive_max_pool2d(x[0], E.tensor(2))
    with pytest.raises(TypeError, match=re.escape("adaptive_avg_pool2d(): argument 'output_size' (position 2) must be "
                                                  "tuple of ints, but found element of type float at pos 0")):
        E.adaptive_avg_pool2d(x[0], (1.0, 1))
    with pytest.raises(TypeError, match=re.escape("adaptive_max_pool3d(): argument 'output_size' failed to unpack the "
                                                  "object at pos 2 with error \"type must be tuple of ints,but got "
                                                  "float\"")):
        E.adaptive_max_pool3d(x, (None, 2.0, 2))
    with pytest.raises(TypeError, match=re.escape("adaptive_avg_pool1d(): argument 'output_size' (position 2) must be "
                                                  "tuple of ints, not float")):
        E.adaptive_avg_pool1d(x[0, 0], 2.0)
    assert E.adaptive_avg_pool3d(x, (None, 2, 1)).shape == (1, 1, 4, 2, 1)
