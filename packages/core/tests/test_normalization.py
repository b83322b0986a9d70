"""batch_norm/layer_norm/group_norm/instance_norm against float64 references; the fused backward
ops against central differences of the forward; running-statistics updates and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import normalization as N


def T(a):
    return E.from_numpy(np.array(a))


def check_vjp(f, x, g, vjp, eps=1e-6, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(3):
        v = rng.standard_normal(np.shape(x))
        jv = (f(x + eps * v) - f(x - eps * v)) / (2 * eps)
        assert np.isclose(np.sum(vjp * v), np.sum(g * jv), rtol=1e-5, atol=1e-7)


def ref_bn_train(x, w, b, eps):
    axes = (0, *range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w.reshape(shape) + b.reshape(shape)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([(4, 3), (2, 3, 5), (3, 2, 2, 3)]), st.booleans(), st.floats(0.05, 0.9))
def test_batch_norm_training_output_running_stats_and_backward(shape, affine, momentum):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape) * 3 + 1
    c = shape[1]
    w, b = (rng.standard_normal(c), rng.standard_normal(c)) if affine else (np.ones(c), np.zeros(c))
    rm, rv = T(rng.standard_normal(c)), T(rng.random(c) + 0.5)
    rm0, rv0, ver = rm.numpy().copy(), rv.numpy().copy(), rm._version
    wt, bt = (T(w), T(b)) if affine else (None, None)
    out, mean, invstd = N.batch_norm_op(T(x), wt, bt, rm, rv, True, momentum, 1e-5)
    np.testing.assert_allclose(out.numpy(), ref_bn_train(x, w, b, 1e-5), rtol=1e-10, atol=1e-10)
    axes = (0, *range(2, x.ndim))
    n = x.size // c
    np.testing.assert_allclose(rm.numpy(), (1 - momentum) * rm0 + momentum * x.mean(axes), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), (1 - momentum) * rv0 + momentum * x.var(axes) * n / (n - 1), rtol=1e-12)
    assert rm._version > ver
    g = rng.standard_normal(shape)
    gi, gw, gb = (t.numpy() for t in N.batch_norm_backward(T(g), T(x), wt, mean, invstd, True))
    check_vjp(lambda xx: ref_bn_train(xx, w, b, 1e-5), x, g, gi)
    check_vjp(lambda ww: ref_bn_train(x, ww, b, 1e-5), w, g, gw)
    check_vjp(lambda bb: ref_bn_train(x, w, bb, 1e-5), b, g, gb)


def test_batch_norm_eval_uses_running_stats_and_its_backward():
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((4, 3, 2)), rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = rng.standard_normal(3), rng.random(3) + 0.5
    shape = (1, 3, 1)

    def ref(xx, ww):
        return (xx - rm.reshape(shape)) / np.sqrt(rv.reshape(shape) + 1e-3) * ww.reshape(shape) + b.reshape(shape)

    rmt, rvt = T(rm), T(rv)
    got = E.batch_norm(T(x), rmt, rvt, T(w), T(b), training=False, eps=1e-3)
    np.testing.assert_allclose(got.numpy(), ref(x, w), rtol=1e-12)
    np.testing.assert_array_equal(rmt.numpy(), rm)
    _, mean, invstd = N.batch_norm_op(T(x), T(w), T(b), rmt, rvt, False, 0.1, 1e-3)
    g = rng.standard_normal(x.shape)
    gi, gw, _ = (t.numpy() for t in N.batch_norm_backward(T(g), T(x), T(w), mean, invstd, False))
    check_vjp(lambda xx: ref(xx, w), x, g, gi)
    check_vjp(lambda ww: ref(x, ww), w, g, gw)


def test_batch_norm_float32_is_accurate_on_offset_data():
    x = (np.random.default_rng(2).standard_normal((256, 4, 8, 8)) + 1000).astype(np.float32)
    got = E.batch_norm(T(x), None, None, training=True)
    assert got.dtype is E.float32
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(got.numpy(), ref_bn_train(x64, np.ones(4), np.zeros(4), 1e-5), atol=2e-3)


@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_batch_norm_float32_passes_match_float64_on_long_odd_planes(offset):
    # planes of 63 elements over a batch of 16 (the vector loops and their remainders) and a large mean: the
    # float32 passes compute (x - mean) in float32 and must keep the float64 result's digits
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 3, 7, 9)) + offset
    g, w = rng.standard_normal(x.shape), rng.standard_normal(3)
    ref = None
    for dt in (np.float64, np.float32):
        xt, wt = T(x.astype(dt)), T(w.astype(dt))
        out, mean, invstd = N.batch_norm_op(xt, wt, T(np.full(3, 0.5, dt)), None, None, True, 0.1, 1e-5)
        np.testing.assert_allclose(out.numpy(), ref_bn_train(x, w, np.full(3, 0.5), 1e-5), rtol=1e-4,
                                   atol=1e-4 if dt == np.float32 else 1e-10)
        got = [t.numpy() for t in N.batch_norm_backward(T(g.astype(dt)), xt, wt, mean, invstd, True)]
        assert all(a.dtype == dt for a in got)
        if ref is None:
            ref = got
            check_vjp(lambda xx: ref_bn_train(xx, w, np.zeros(3), 1e-5), x, g, got[0])
        else:
            for a, r in zip(got, ref):
                np.testing.assert_allclose(a, r, rtol=1e-4, atol=2e-4 * np.abs(r).max())


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([((3, 4), (4,)), ((2, 3, 4), (3, 4)), ((2, 5), (5,)), ((2, 2, 3), (3,))]), st.booleans())
def test_layer_norm_matches_reference_and_backward(shapes, affine):
    shape, norm = shapes
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape) * 2 + 0.5
    w, b = (rng.standard_normal(norm), rng.standard_normal(norm)) if affine else (np.ones(norm), np.zeros(norm))
    axes = tuple(range(x.ndim - len(norm), x.ndim))

    def ref(xx, ww, bb):
        m, v = xx.mean(axes, keepdims=True), xx.var(axes, keepdims=True)
        return (xx - m) / np.sqrt(v + 1e-5) * ww + bb

    wt, bt = (T(w), T(b)) if affine else (None, None)
    out, mean, rstd = N.layer_norm_op(T(x), norm, wt, bt, 1e-5)
    np.testing.assert_allclose(out.numpy(), ref(x, w, b), rtol=1e-10, atol=1e-10)
    assert mean.shape == shape[:x.ndim - len(norm)] + (1,) * len(norm)
    np.testing.assert_allclose(E.layer_norm(T(x), norm, wt, bt).numpy(), ref(x, w, b), rtol=1e-10, atol=1e-10)
    g = rng.standard_normal(shape)
    gi, gw, gb = (t.numpy() for t in N.layer_norm_backward(T(g), T(x), norm, mean, rstd, wt))
    check_vjp(lambda xx: ref(xx, w, b), x, g, gi)
    check_vjp(lambda ww: ref(x, ww, b), w, g, gw)
    check_vjp(lambda bb: ref(x, w, bb), b, g, gb)


@pytest.mark.parametrize("contiguous", [True, False], ids=["rows-kernel", "strided-numpy"])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_float32_rows_match_float64_reference(contiguous, affine):
    # float32 (16, 64, 128) rows take the Numba passes (statistics in float64); a strided input the numpy path
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((16, 64, 128)) * 3 + 1).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    w, b = (rng.standard_normal(128).astype(np.float32), rng.standard_normal(128).astype(np.float32)) if affine \
        else (np.ones(128, np.float32), np.zeros(128, np.float32))
    x64, g64, w64 = x.astype(np.float64), g.astype(np.float64), w.astype(np.float64)
    m, v = x64.mean(-1, keepdims=True), x64.var(-1, keepdims=True)
    rstd = 1 / np.sqrt(v + 1e-5)
    xhat = (x64 - m) * rstd
    want = xhat * w64 + b
    gx = g64 * w64
    want_gi = rstd * (gx - gx.mean(-1, keepdims=True) - xhat * (gx * xhat).mean(-1, keepdims=True))
    xt = T(x) if contiguous else T(np.ascontiguousarray(x.transpose(1, 0, 2))).transpose(0, 1)
    wt, bt = (T(w), T(b)) if affine else (None, None)
    out, mean, r = N.layer_norm_op(xt, (128,), wt, bt, 1e-5)
    assert out.dtype == E.float32 and mean.shape == (16, 64, 1) and r.dtype == E.float32
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(r.numpy(), rstd, rtol=1e-6)
    gi, gw, gb = (t.numpy() for t in N.layer_norm_backward(T(g), xt, (128,), mean, r, wt))
    np.testing.assert_allclose(gi, want_gi, rtol=1e-4, atol=1e-4 * np.abs(want_gi).max())
    np.testing.assert_allclose(gw, (g64 * xhat).sum((0, 1)), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(gb, g64.sum((0, 1)), rtol=1e-4, atol=1e-3)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([((2, 4, 3), 2), ((3, 6), 3), ((2, 6, 2, 2), 1), ((1, 4, 5), 4)]), st.booleans())
def test_group_norm_matches_reference_and_backward(case, affine):
    shape, groups = case
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape)
    c = shape[1]
    w, b = (rng.standard_normal(c), rng.standard_normal(c)) if affine else (np.ones(c), np.zeros(c))
    bshape = (1, c) + (1,) * (x.ndim - 2)

    def ref(xx, ww, bb):
        xg = xx.reshape(shape[0], groups, -1)
        y = (xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + 1e-5)
        return y.reshape(shape) * ww.reshape(bshape) + bb.reshape(bshape)

    wt, bt = (T(w), T(b)) if affine else (None, None)
    out, mean, rstd = N.group_norm_op(T(x), wt, bt, groups, 1e-5)
    np.testing.assert_allclose(out.numpy(), ref(x, w, b), rtol=1e-10, atol=1e-10)
    assert mean.shape == (shape[0], groups)
    g = rng.standard_normal(shape)
    gi, gw, gb = (t.numpy() for t in N.group_norm_backward(T(g), T(x), mean, rstd, wt, groups))
    check_vjp(lambda xx: ref(xx, w, b), x, g, gi)
    check_vjp(lambda ww: ref(x, ww, b), w, g, gw)
    check_vjp(lambda bb: ref(x, w, bb), b, g, gb)


def test_instance_norm_normalizes_each_plane_and_updates_running_stats():
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((2, 3, 4, 5)) * 2 + 1, rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = T(np.zeros(3)), T(np.ones(3))
    got = E.instance_norm(T(x), rm, rv, T(w), T(b), momentum=0.5)
    m, v = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    want = (x - m) / np.sqrt(v + 1e-5) * w.reshape(1, 3, 1, 1) + b.reshape(1, 3, 1, 1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rm.numpy(), 0.5 * m.reshape(2, 3).mean(0), rtol=1e-10)
    np.testing.assert_allclose(rv.numpy(), 0.5 + 0.5 * (v * 20 / 19).reshape(2, 3).mean(0), rtol=1e-6)


def test_instance_norm_below_three_dims_is_pytorchs():
    with pytest.raises(ValueError, match=r"^Expected more than 1 spatial element when training, got input size "
                                         r"\w+.Size\(\[2, 3\]\)$"):  # F.instance_norm's check comes first
        E.instance_norm(E.zeros(2, 3))
    with pytest.raises(ValueError, match=r"got input size \w+.Size\(\[\]\)$"):
        E.instance_norm(E.zeros(()))
    x, rm, rv = np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0]), np.array([4.0, 1.0, 0.25])
    got = E.instance_norm(T(x), T(rm), T(rv), use_input_stats=False)  # (N, C): each column by its running stats
    np.testing.assert_allclose(got.numpy(), (x - rm) / np.sqrt(rv + 1e-5), rtol=1e-12)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], "
                                         r"but got 1\)$"):
        E.instance_norm(E.zeros(3), E.zeros(3), E.ones(3), use_input_stats=False)


def test_normalization_errors_use_pytorchs_messages():
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training"):
        E.batch_norm(E.zeros(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        E.batch_norm(E.zeros(2, 3), E.zeros(4), E.ones(3))
    for rm, rv, missing in [(None, None, "running_mean"), (E.zeros(3), None, "running_var"),
                            (None, E.ones(3), "running_mean")]:  # PyTorch names the first missing statistic
        with pytest.raises(RuntimeError, match=f"^{missing} must be defined in evaluation mode$"):
            E.batch_norm(E.zeros(2, 3), rm, rv, training=False)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[5\], expected input with shape \[\*, 5\], "
                                           r"but got input of size\[2, 4\]"):
        E.layer_norm(E.zeros(2, 4), [5])
    with pytest.raises(RuntimeError, match=r"Expected number of channels in input to be divisible by num_groups, but "
                                         r"got input of shape \[2, 5, 3\] and num_groups=2"):
        E.group_norm(E.zeros(2, 5, 3), 2)
    with pytest.raises(RuntimeError, match=r"^Expected weight to be a vector of size equal to the number of channels "
                                         r"in input, but got weight of shape \[3\] and input of shape \[2, 6, 4\]$"):
        E.group_norm(E.zeros(2, 6, 4), 3, E.ones(3))
    with pytest.raises(RuntimeError, match=r"but got bias of shape \[6\] and input"):  # weight's shape, as PyTorch
        E.group_norm(E.zeros(2, 6, 4), 3, E.ones(6), E.ones(3))
    with pytest.raises(NotImplementedError, match="\"LayerNormKernelImpl\" not implemented for 'Long'"):
        E.layer_norm(E.zeros(2, 4, dtype=E.int64), [4])


def test_torch_level_argument_orders_of_batch_and_instance_norm():
    rng = np.random.default_rng(6)
    x, w, b = rng.standard_normal((4, 3, 5)), rng.standard_normal(3), rng.standard_normal(3)
    rm1, rv1, rm2, rv2 = T(np.zeros(3)), T(np.ones(3)), T(np.zeros(3)), T(np.ones(3))
    f = E.batch_norm(T(x), rm1, rv1, T(w), T(b), True, 0.1, 1e-5)
    t = E.batch_norm(T(x), T(w), T(b), rm2, rv2, True, 0.1, 1e-5, False)
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    np.testing.assert_array_equal(rm1.numpy(), rm2.numpy())
    f = E.instance_norm(T(x), None, None, T(w), T(b), True, 0.1, 1e-5)
    t = E.instance_norm(T(x), T(w), T(b), None, None, True, 0.1, 1e-5, False)
    np.testing.assert_array_equal(f.numpy(), t.numpy())
    np.testing.assert_array_equal(E.layer_norm(T(x), (5,), None, None, 1e-5, True).numpy(),
                                  E.layer_norm(T(x), (5,)).numpy())


def test_local_response_norm_matches_channel_window_reference():
    x = np.random.default_rng(7).standard_normal((2, 5, 3, 2))
    size, alpha, beta, k = 3, 0.5, 0.75, 2.0
    sq = np.pad(x * x, ((0, 0), (size // 2, (size - 1) // 2), (0, 0), (0, 0)))
    avg = np.stack([sq[:, c:c + size].sum(1) / size for c in range(5)], axis=1)
    want = x / (k + alpha * avg) ** beta
    np.testing.assert_allclose(E.local_response_norm(T(x), size, alpha, beta, k).numpy(), want, rtol=1e-12)
    assert E.local_response_norm(T(x[:, :, :, 0]), 2).shape == (2, 5, 3)


@pytest.mark.parametrize(("call", "kernel"), [
    (lambda x: E.batch_norm(x, None, None, training=True), "batch_norm"),
    (lambda x: E.batch_norm(x, E.zeros(3), E.ones(3)), "batch_norm"),
    (lambda x: E.instance_norm(x), "batch_norm"),
    (lambda x: E.layer_norm(x, (4,)), "LayerNormKernelImpl"),
    (lambda x: E.group_norm(x, 3), "GroupNormKernelImpl"),
    (lambda x: E.local_response_norm(x.unsqueeze(-1), 2), "avg_pool3d_out_frame")])
@pytest.mark.parametrize(("dtype", "name"), [(E.int32, "Int"), (E.bool, "Bool"), (E.complex128, "ComplexDouble")])
def test_norms_refuse_non_floating_input_as_pytorch(call, kernel, dtype, name):
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{name}'$"):
        call(E.ones(2, 3, 4, dtype=dtype))


def test_local_response_norm_of_int64_averages_truncated_as_pytorch():
    # PyTorch's composition: the int64 mean of squares truncates (channel 0: (0 + 9) / 2 -> 4, not 4.5)
    x = E.tensor([[[3, -5], [7, 1], [-2, 4]]])
    want = [[[0.6, -0.38461539], [0.23333333, 0.07142857], [-0.07407407, 0.44444445]]]
    for inp in (x, x.reshape(1, 3, 2, 1)):
        got = E.local_response_norm(inp, 2, alpha=1.0, beta=1.0, k=1.0)
        assert got.dtype is E.float32
        np.testing.assert_allclose(got.numpy().reshape(1, 3, 2), want, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="\"avg_pool2d\" not implemented for 'Char'"):
        E.local_response_norm(x.to(E.int8), 2)


def test_integer_input_with_float_parameters_is_pytorchs_mixed_dtype_error():
    x = E.zeros(2, 2, 3, dtype=E.int64)
    with pytest.raises(RuntimeError, match=r"mixed dtype \(CPU\): all inputs must share same datatype\."):
        E.layer_norm(x, (3,), E.ones(3), E.zeros(3))
    with pytest.raises(RuntimeError, match=r"mixed dtype \(CPU\): all inputs must share same datatype\."):
        E.group_norm(x, 2, E.ones(2))
    with pytest.raises(NotImplementedError, match="\"LayerNormKernelImpl\" not implemented for 'Long'"):
        E.layer_norm(x, (3,), E.ones(3, dtype=E.int64))


# PyTorch 2.13's CPU "mixed dtype" batch norm: a float16/bfloat16 input with float32 parameters and statistics
# (x = arange(12).reshape(2, 3, 2) / 7 and grad = cos(arange(12)) in the input's dtype, weight [1, 2, -1],
# bias [0, .5, 1], running mean [.1, .2, .3], running var [1, 2, 3]); forward and input gradient bit for bit
_MIXED_BN = {
    ("float16", True): dict(
        y=[-1.150390625, -0.82177734375, -1.80078125, -1.1435546875, 2.150390625, 1.8212890625, 0.82177734375,
           1.1513671875, 2.142578125, 2.802734375, 0.177734375, -0.150390625],
        rm=[0.13999389111995697, 0.2585705518722534, 0.3771411180496216],
        rv=[0.9251658916473389, 1.8251821994781494, 2.7251715660095215],
        gx=[0.4697265625, -0.599609375, 1.0830078125, -1.60546875, 0.9208984375, -1.267578125, 0.307861328125,
            -0.1781005859375, 2.046875, -1.5234375, 1.1591796875, -0.8125],
        gw=[0.06152428686618805, 0.12430291622877121, -0.1653006672859192],
        gb=[3.25439453125, -2.463134765625, -1.204559326171875]),
    ("float16", False): dict(
        y=[-0.0999755859375, 0.042816162109375, 0.62109375, 0.8232421875, 0.84326171875, 0.7607421875,
           0.7568359375, 0.89990234375, 1.8330078125, 2.03515625, 0.348388671875, 0.26611328125],
        rm=[0.1, 0.2, 0.3], rv=[1.0, 2.0, 3.0],
        gx=[1.0, 0.54052734375, -0.5888671875, -1.400390625, 0.37744140625, -0.163818359375, 0.9599609375,
            0.75390625, -0.205810546875, -1.2880859375, 0.484375, -0.0025539398193359375],
        gw=[1.328282117843628, -0.9819211959838867, -0.5779469609260559],
        gb=[3.25439453125, -2.463134765625, -1.204559326171875]),
    ("bfloat16", True): dict(
        y=[-1.1484375, -0.8203125, -1.796875, -1.140625, 2.15625, 1.8203125, 0.8203125, 1.15625, 2.125, 2.8125,
           0.17578125, -0.1484375],
        rm=[0.1399511694908142, 0.25856444239616394, 0.377128928899765],
        rv=[0.9251368641853333, 1.8252675533294678, 2.7251832485198975],
        gx=[0.470703125, -0.6015625, 1.0703125, -1.6015625, 0.91796875, -1.265625, 0.310546875, -0.1787109375,
            2.046875, -1.515625, 1.15625, -0.8125],
        gw=[0.0632241889834404, 0.11964419484138489, -0.16780084371566772],
        gb=[3.25390625, -2.4599609375, -1.204559326171875]),
    ("bfloat16", False): dict(
        y=[-0.10009765625, 0.04248046875, 0.62109375, 0.8203125, 0.84375, 0.76171875, 0.75390625, 0.8984375,
           1.828125, 2.046875, 0.34765625, 0.265625],
        rm=[0.1, 0.2, 0.3], rv=[1.0, 2.0, 3.0],
        gx=[1.0, 0.5390625, -0.58984375, -1.3984375, 0.376953125, -0.1630859375, 0.9609375, 0.75390625,
            -0.2060546875, -1.2890625, 0.484375, -0.0025482177734375],
        gw=[1.3274195194244385, -0.9818699359893799, -0.5784990787506104],
        gb=[3.25390625, -2.4599609375, -1.204559326171875]),
}


@pytest.mark.parametrize(("name", "training"), list(_MIXED_BN))
def test_batch_norm_of_half_input_with_float32_parameters_is_pytorchs_mixed_dtype(name, training):
    want = _MIXED_BN[(name, training)]
    dt = getattr(E, name)
    x = (E.arange(12.0).reshape(2, 3, 2) / 7).to(dt)
    g = E.arange(12.0).reshape(2, 3, 2).cos().to(dt)
    rm, rv = E.tensor([0.1, 0.2, 0.3]), E.tensor([1.0, 2.0, 3.0])
    w, b = E.tensor([1.0, 2.0, -1.0]), E.tensor([0.0, 0.5, 1.0])
    y, mean, invstd = N.batch_norm_op(x, w, b, rm, rv, training, 0.1, 1e-5)
    assert y.dtype is dt and mean.dtype is E.float32 and invstd.dtype is E.float32
    assert rm.dtype is E.float32 and rv.dtype is E.float32
    assert y.float().flatten().tolist() == want["y"]
    np.testing.assert_allclose(rm.numpy(), want["rm"], rtol=1e-6)
    np.testing.assert_allclose(rv.numpy(), want["rv"], rtol=1e-6)
    gx, gw, gb = N.batch_norm_backward(g, x, w, mean, invstd, training)
    assert gx.dtype is dt and gw.dtype is E.float32 and gb.dtype is E.float32
    assert gx.float().flatten().tolist() == want["gx"]
    np.testing.assert_allclose(gw.numpy(), want["gw"], rtol=2e-6)  # PyTorch sums in float32, ember in float64
    np.testing.assert_allclose(gb.numpy(), want["gb"], rtol=1e-6)
    assert E.batch_norm(x, rm, rv, w, b, training).dtype is dt


# (input, weight, bias, running_mean, running_var, training) -> PyTorch 2.13's CPU error; "-" is None
_BN_DTYPE_ERRORS = [
    ("float16", "-", "-", "float16", "float32", True, "expected scalar type Half but found Float"),
    ("float16", "float32", "-", "float16", "float16", False, "mixed dtype \\(CPU\\): expect parameter to have "
                                                             "scalar type of Float"),
    ("float16", "float16", "bfloat16", "float16", "float32", True, "expected scalar type Half but found Float"),
    ("float16", "float16", "bfloat16", "float16", "float32", False, "expected scalar type Half but found BFloat16"),
    ("bfloat16", "-", "-", "float64", "float64", False, "mixed dtype \\(CPU\\): expect parameter to have scalar "
                                                        "type of Float"),
    ("float32", "-", "-", "float64", "float64", False, "mixed dtype \\(CPU\\): expect parameter to have scalar "
                                                       "type of Float"),
    ("float64", "float32", "-", "-", "-", True, "mixed dtype \\(CPU\\): all inputs must share same datatype\\."),
]


@pytest.mark.parametrize(("inp", "w", "b", "rm", "rv", "training", "message"), _BN_DTYPE_ERRORS)
def test_batch_norm_dtype_errors_are_pytorchs(inp, w, b, rm, rv, training, message):
    def vec(name, v):
        return None if name == "-" else E.full((3,), v, dtype=getattr(E, name))

    with pytest.raises(RuntimeError, match=f"^{message}$"):
        E.batch_norm(E.ones(2, 3, dtype=getattr(E, inp)), vec(rm, 0.0), vec(rv, 1.0), vec(w, 1.0), vec(b, 0.0),
                     training)


@pytest.mark.torch
def test_batch_norm_dtype_rule_matches_torch_over_every_combination():
    torch = pytest.importorskip("torch")
    import itertools

    names = ["-", "float16", "bfloat16", "float32", "float64"]

    def run(lib, inp, combo, training):
        def vec(name, v):
            return None if name == "-" else lib.full((3,), v, dtype=getattr(lib, name))

        w, b, rm, rv = combo
        try:
            out = (torch.nn.functional.batch_norm if lib is torch else E.batch_norm)(
                lib.ones(2, 3, dtype=getattr(lib, inp)), vec(rm, 0.0), vec(rv, 1.0), vec(w, 1.0), vec(b, 0.0),
                training)
        except RuntimeError as e:
            return str(e).split("\n")[0]
        return str(out.dtype).split(".")[-1]

    for inp in names[1:]:
        for combo in itertools.product(names, repeat=4):
            if (combo[2] == "-") != (combo[3] == "-"):
                continue
            for training in (True, False) if combo[2] != "-" else (True,):
                assert run(E, inp, combo, training) == run(torch, inp, combo, training), (inp, combo, training)


def test_composite_batch_norm_kernels_compute_mixed_dtype_in_float32():
    # the "any" kernels (CUDA and other devices): the same mode, the CPU kernels' values
    from ember.core.ops import norm_composite as C

    want = _MIXED_BN[("float16", True)]
    x = (E.arange(12.0).reshape(2, 3, 2) / 7).half()
    g = E.arange(12.0).reshape(2, 3, 2).cos().half()
    rm, rv = E.tensor([0.1, 0.2, 0.3]), E.tensor([1.0, 2.0, 3.0])
    w, b = E.tensor([1.0, 2.0, -1.0]), E.tensor([0.0, 0.5, 1.0])
    y, mean, invstd = C._batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
    assert y.dtype is E.float16 and mean.dtype is E.float32
    np.testing.assert_allclose(y.float().numpy().ravel(), want["y"], rtol=1e-3)
    np.testing.assert_allclose(rm.numpy(), want["rm"], rtol=1e-6)
    gx, gw, gb = C._batch_norm_backward(g, x, w, mean, invstd, True)
    assert gx.dtype is E.float16 and gw.dtype is E.float32 and gb.dtype is E.float32
    np.testing.assert_allclose(gx.float().numpy().ravel(), want["gx"], rtol=2e-3, atol=1e-3)
    np.testing.assert_allclose(gw.numpy(), want["gw"], rtol=1e-4)


@pytest.mark.parametrize(("call", "inp", "w", "b", "message"), [
    ("layer", "float16", "-", "bfloat16", "mixed dtype \\(CPU\\): expect parameter to have scalar type of Float"),
    ("layer", "float16", "float16", "float32", "expected scalar type Half but found Float"),
    ("layer", "float64", "-", "float32", "mixed dtype \\(CPU\\): all inputs must share same datatype\\."),
    ("group", "bfloat16", "float32", "float16", "mixed dtype \\(CPU\\): expect parameter to have scalar type of "
                                                "Float"),
    ("group", "float32", "float32", "float64", "expected scalar type Float but found Double"),
    ("instance", "float16", "float16", "float32", "expected scalar type Half but found Float"),
])
def test_layer_group_instance_norm_dtype_errors_are_pytorchs(call, inp, w, b, message):
    def vec(name, n):
        return None if name == "-" else E.ones(n, dtype=getattr(E, name))

    x = E.ones(2, 3, 3, dtype=getattr(E, inp))
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        {"layer": lambda: E.layer_norm(x, (3,), vec(w, 3), vec(b, 3)),
         "group": lambda: E.group_norm(x, 3, vec(w, 3), vec(b, 3)),
         "instance": lambda: E.instance_norm(x, None, None, vec(w, 3), vec(b, 3))}[call]()


def test_layer_and_group_norm_of_half_input_with_float32_parameters_compute():
    x = (E.arange(24.0).reshape(2, 3, 4) / 7).half()
    y = E.layer_norm(x, (4,), E.tensor([1.0, 2.0, -1.0, 0.5]), E.zeros(4))
    assert y.dtype is E.float16
    assert y.float().flatten().tolist()[:4] == [-1.341796875, -0.89404296875, -0.447021484375, 0.6708984375]
    y = E.group_norm(x.bfloat16(), 3, E.tensor([1.0, 2.0, -1.0]), E.zeros(3))
    assert y.dtype is E.bfloat16 and tuple(y.shape) == (2, 3, 4)


@pytest.mark.torch
def test_layer_group_instance_norm_dtype_rule_matches_torch():
    torch = pytest.importorskip("torch")
    import itertools

    names = ["-", "float16", "bfloat16", "float32", "float64"]

    def run(lib, call, inp, w, b):
        def vec(name):
            return None if name == "-" else lib.ones(3, dtype=getattr(lib, name))

        f = torch.nn.functional if lib is torch else E
        x = lib.ones(2, 3, 3, dtype=getattr(lib, inp))
        try:
            out = {"layer": lambda: f.layer_norm(x, (3,), vec(w), vec(b)),
                   "group": lambda: f.group_norm(x, 3, vec(w), vec(b)),
                   "instance": lambda: f.instance_norm(x, None, None, vec(w), vec(b))}[call]()
        except RuntimeError as e:
            return str(e).split("\n")[0]
        return str(out.dtype).split(".")[-1]

    for call, inp, w, b in itertools.product(("layer", "group", "instance"), names[1:], names, names):
        assert run(E, call, inp, w, b) == run(torch, call, inp, w, b), (call, inp, w, b)


def test_norm_operand_errors_name_what_pytorch_names():
    x = E.ones(4, 3, 5)
    with pytest.raises(RuntimeError, match="^running_var must be defined in evaluation mode$"):
        E.batch_norm(x, E.zeros(3), None, training=False)
    with pytest.raises(RuntimeError, match=r"^Expected bias to be of same shape as normalized_shape, but got bias of "
                                           r"shape \[4\] and normalized_shape = \[5\]$"):
        E.layer_norm(x, (5,), None, E.ones(4))
    with pytest.raises(ValueError, match=r"^Expected 3D or higher dimensionality {26}input \(got 2 dimensions\)$"):
        E.local_response_norm(E.ones(3, 4), 2)


def test_instance_norm_counts_its_per_sample_repeated_stats_in_size_errors():
    """PyTorch runs instance norm as a batch norm of n * c planes, so its size errors count n copies."""
    with pytest.raises(RuntimeError, match="^running_mean should contain 12 elements not 8$"):
        E.instance_norm(E.ones(4, 3, 5), E.zeros(2), E.ones(3))
    with pytest.raises(RuntimeError, match="^weight should contain 12 elements not 8$"):
        E.instance_norm(E.ones(4, 3, 5), weight=E.ones(2))


def test_layer_norm_of_a_transposed_input_is_row_major_as_pytorch():
    x = E.tensor(np.arange(12.0).reshape(3, 4) ** 2, dtype=E.float32).t()
    r = E.layer_norm(x, (3,))
    assert r.stride() == (3, 1)
    a = x.numpy().astype(np.float64)
    want = (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(r.numpy(), want, rtol=1e-5, atol=1e-5)
