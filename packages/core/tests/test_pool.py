"""Max/avg/adaptive pooling against float64 loop references; backward ops against central
differences of the forward; PyTorch's output-size rules (ceil_mode) and errors."""

import math

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
    with pytest.raises(RuntimeError, match="Expected 3D or 4D"):
        E.max_pool2d(E.zeros(4, 4), 2)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        E.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(NotImplementedError, match="\"max_pool2d\" not implemented for 'Bool'"):
        E.max_pool2d(E.zeros(1, 1, 4, 4, dtype=E.bool), 2)


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


def test_max_pool2d_first_nan_after_a_larger_value_wins_with_its_index():
    x = np.zeros((1, 1, 4, 4), dtype=np.float32)
    x[0, 0, 0, 0] = 5.0
    x[0, 0, 1, 1] = np.nan  # after the max in scan order: still the result
    x[0, 0, 3, 2] = np.nan
    x[0, 0, 3, 3] = np.nan  # the first NaN of its window wins
    out, idx = P.max_pool2d_with_indices(E.from_numpy(x), (2, 2), (2, 2), (0, 0), (1, 1), False)
    o, i = out.numpy(), idx.numpy()
    assert np.isnan(o[0, 0, 0, 0]) and i[0, 0, 0, 0] == 5
    assert np.isnan(o[0, 0, 1, 1]) and i[0, 0, 1, 1] == 14
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
    earlier tap wins), signed zeros, NaNs (the first of its window wins) and odd sizes (the last row and
    column unread)."""
    from ember.core.ops import numba_nn

    rng = np.random.default_rng(23)
    x = rng.integers(-2, 3, size=(3, 4, *hw)).astype(dtype)  # many ties
    x[0, 0, :2, :2] = [[-0.0, 0.0], [0.0, -0.0]]
    x[1, 2, 2, 3] = x[1, 2, 3, 2] = x[2, 1, 5, 4] = np.nan
    planes = x.reshape(-1, *hw)
    want_o = np.empty((planes.shape[0], hw[0] // 2, hw[1] // 2), dtype=dtype)
    want_i = np.empty(want_o.shape, dtype=np.int64)
    numba_nn.max_pool2d()(planes, want_o, want_i, 2, 2, 2, 2, 0, 0, 1, 1)
    out, idx = P.max_pool2d_with_indices(T(x), (2, 2), (2, 2), (0, 0), (1, 1), False)
    np.testing.assert_array_equal(out.numpy().reshape(want_o.shape), want_o)
    np.testing.assert_array_equal(idx.numpy().reshape(want_i.shape), want_i)
    assert np.signbit(out.numpy()[0, 0, 0, 0])  # -0.0 came first and 0.0 is not greater
    assert np.isnan(out.numpy()[1, 2, 1, 1]) and idx.numpy()[1, 2, 1, 1] == 2 * hw[1] + 3


@pytest.mark.parametrize("size", [(1, 1, 0), (0, 1, 1)])
def test_adaptive_3d_pooling_of_an_empty_batch_to_a_size_with_a_zero(size):
    # found by the fuzz campaign's pool family: "shape '[0, 3, -1]' is invalid for input of size 0"
    x = E.zeros(0, 3, 5, 2, 7)
    out, idx = E.adaptive_max_pool3d(x, size, return_indices=True)
    assert tuple(out.shape) == tuple(idx.shape) == (0, 3, *size)
    assert tuple(E.adaptive_avg_pool3d(x, size).shape) == (0, 3, *size)
