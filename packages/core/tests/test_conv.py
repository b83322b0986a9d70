"""conv1d/conv2d/conv_transpose against float64 loop references; their backward ops against
central differences of the forward; PyTorch's validation messages."""

import os
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import conv as C


def ref_conv2d(x, w, b, stride, padding, dilation, groups):
    """out[n, o, i, j] = sum_{c, ki, kj} xpad[n, g cg + c, i s + ki d, j s + kj d] w[o, c, ki, kj]."""
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    xp = np.zeros((n, x.shape[1], h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    ho, wo = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for ki in range(kh):
            for kj in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, ki * dh:ki * dh + sh * (ho - 1) + 1:sh,
                           kj * dw:kj * dw + sw * (wo - 1) + 1:sw]
                out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, ki, kj])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def ref_conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation):
    """Scatter definition: every input pixel adds its weighted kernel into the (uncropped) output."""
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    hf, wf = (h - 1) * sh + dh * (kh - 1) + 1 + output_padding[0], (wd - 1) * sw + dw * (kw - 1) + 1 + output_padding[1]
    full = np.zeros((n, og * groups, hf, wf))
    cg = c // groups
    for ci in range(c):
        g = ci // cg
        for i in range(h):
            for j in range(wd):
                for ki in range(kh):
                    for kj in range(kw):
                        full[:, g * og:(g + 1) * og, i * sh + ki * dh, j * sw + kj * dw] += \
                            x[:, ci, i, j, None] * w[ci, :, ki, kj]
    out = full[:, :, ph:hf - ph, pw:wf - pw]
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out


def fd_vjp(f, x, g, eps=1e-6, directions=3, seed=0):
    """<g, J v> by central differences along random directions v, paired with v (for <vjp, v>)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(directions):
        v = rng.standard_normal(x.shape)
        jv = (f(x + eps * v) - f(x - eps * v)) / (2 * eps)
        out.append((float(np.sum(g * jv)), v))
    return out


def check_vjp(f, x, g, vjp):
    for expected, v in fd_vjp(f, x, g):
        assert np.isclose(np.sum(vjp * v), expected, rtol=1e-6, atol=1e-7)


def T(a):
    return E.from_numpy(np.ascontiguousarray(a))


conv_cases = st.fixed_dictionaries({
    "n": st.integers(1, 2), "groups": st.sampled_from([1, 2]), "cg": st.integers(1, 2), "og": st.integers(1, 2),
    "h": st.integers(3, 7), "w": st.integers(3, 7), "kh": st.integers(1, 3), "kw": st.integers(1, 3),
    "stride": st.tuples(st.integers(1, 2), st.integers(1, 2)),
    "padding": st.tuples(st.integers(0, 2), st.integers(0, 2)),
    "dilation": st.tuples(st.integers(1, 2), st.integers(1, 2)), "bias": st.booleans(),
})


def make_case(p, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((p["n"], p["cg"] * p["groups"], p["h"], p["w"]))
    w = rng.standard_normal((p["og"] * p["groups"], p["cg"], p["kh"], p["kw"]))
    b = rng.standard_normal(p["og"] * p["groups"]) if p["bias"] else None
    return x, w, b


def fits(p):
    return all(n + 2 * pp >= d * (k - 1) + 1 for n, pp, d, k in
               zip((p["h"], p["w"]), p["padding"], p["dilation"], (p["kh"], p["kw"])))


@settings(max_examples=25, deadline=None)
@given(conv_cases)
def test_conv2d_matches_loop_reference(p):
    if not fits(p):
        return
    x, w, b = make_case(p)
    got = E.conv2d(T(x), T(w), None if b is None else T(b), p["stride"], p["padding"], p["dilation"], p["groups"])
    np.testing.assert_allclose(got.numpy(), ref_conv2d(x, w, b, p["stride"], p["padding"], p["dilation"],
                                                       p["groups"]), rtol=1e-10, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(conv_cases)
def test_conv2d_backward_ops_match_finite_differences(p):
    if not fits(p):
        return
    x, w, _ = make_case(p)
    args = (p["stride"], p["padding"], p["dilation"], p["groups"])
    y = ref_conv2d(x, w, None, *args)
    g = np.random.default_rng(1).standard_normal(y.shape)
    gi = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
    gw = C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()
    assert gi.shape == x.shape and gw.shape == w.shape
    check_vjp(lambda xx: C.conv2d_op(T(xx), T(w), None, *args).numpy(), x, g, gi)
    check_vjp(lambda ww: C.conv2d_op(T(x), T(ww), None, *args).numpy(), w, g, gw)


def test_conv2d_float32_matches_float64_reference():
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((4, 6, 9, 9)), rng.standard_normal((8, 6, 3, 3)), rng.standard_normal(8)
    got = E.conv2d(T(x.astype(np.float32)), T(w.astype(np.float32)), T(b.astype(np.float32)), padding=1)
    assert got.dtype is E.float32
    np.testing.assert_allclose(got.numpy(), ref_conv2d(x, w, b, (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)


def test_conv2d_accepts_unbatched_and_noncontiguous_input():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((3, 5, 6)), rng.standard_normal((2, 3, 2, 2))
    got = E.conv2d(T(x), T(w), stride=2)
    np.testing.assert_allclose(got.numpy(), ref_conv2d(x[None], w, None, (2, 2), (0, 0), (1, 1), 1)[0], atol=1e-12)
    xt = T(x.transpose(0, 2, 1).copy()).transpose(1, 2)
    np.testing.assert_allclose(E.conv2d(xt, T(w)).numpy(), ref_conv2d(x[None], w, None, (1, 1), (0, 0), (1, 1), 1)[0],
                               atol=1e-12)


@pytest.mark.parametrize("k,dilation", [(3, 1), (4, 1), (2, 3), (3, 2)])
def test_conv_same_padding_keeps_the_size_and_pads_the_extra_at_the_end(k, dilation):
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((1, 2, 7, 8)), rng.standard_normal((3, 2, k, k))
    got = E.conv2d(T(x), T(w), padding="same", dilation=dilation)
    total = dilation * (k - 1)
    lo = total // 2
    xp = np.pad(x, ((0, 0), (0, 0), (lo, total - lo), (lo, total - lo)))
    np.testing.assert_allclose(got.numpy(), ref_conv2d(xp, w, None, (1, 1), (0, 0), (dilation,) * 2, 1), atol=1e-12)
    assert E.conv2d(T(x), T(w), padding="valid", dilation=dilation).shape == (1, 3, 7 - total, 8 - total)


def test_same_padding_with_an_even_kernel_warns_once_a_process(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    x = E.zeros(1, 2, 6, 6)
    with pytest.warns(UserWarning, match=r"^Using padding='same' with even kernel lengths and odd dilation may require "
                                         r"a zero-padded copy of the input be created \(Triggered internally at "
                                         r"/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.\)$"):
        E.conv2d(x, E.zeros(2, 2, 4, 4), padding="same")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        E.conv2d(x, E.zeros(2, 2, 4, 4), padding="same")  # PyTorch's TORCH_WARN_ONCE
        E.conv2d(x, E.zeros(2, 2, 3, 3), padding="same")  # an odd kernel pads symmetrically: no copy, no warning


@pytest.mark.parametrize("shape,w,kw,named", [
    ((1, 3, 5, 5), (2, 4, 2, 3), {}, "[1, 3, 6, 5]"),
    ((1, 3, 5, 5), (2, 4, 2, 2), {"dilation": 2}, "[1, 3, 5, 5]"),
    ((3, 5, 5), (2, 4, 2, 2), {}, "[1, 3, 6, 6]"),
    ((1, 3, 5), (2, 4, 2), {"groups": 2}, "[1, 3, 6]"),
])
def test_same_padding_channel_error_names_the_padded_input(shape, w, kw, named):
    conv = E.conv1d if len(w) == 3 else E.conv2d
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=re.escape(f"expected input{named} to have")):
            conv(E.zeros(*shape), E.zeros(*w), padding="same", **kw)


def test_conv1d_matches_reference_and_same_padding():
    rng = np.random.default_rng(6)
    x, w, b = rng.standard_normal((2, 4, 11)), rng.standard_normal((6, 2, 3)), rng.standard_normal(6)
    got = E.conv1d(T(x), T(w), T(b), stride=2, padding=1, dilation=2, groups=2)
    want = ref_conv2d(x[:, :, None], w[:, :, None], b, (1, 2), (0, 1), (1, 2), 2)[:, :, 0]
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    assert E.conv1d(T(x), T(w), padding="same", groups=2).shape == (2, 6, 11)
    assert E.conv1d(T(x[0]), T(w), groups=2).shape == (6, 9)


@settings(max_examples=20, deadline=None)
@given(st.fixed_dictionaries({
    "groups": st.sampled_from([1, 2]), "h": st.integers(1, 4), "w": st.integers(1, 4), "k": st.integers(1, 3),
    "stride": st.integers(1, 3), "padding": st.integers(0, 1), "dilation": st.integers(1, 2), "op": st.integers(0, 2),
    "bias": st.booleans(), "og": st.sampled_from([1, 3])}))
def test_conv_transpose2d_matches_scatter_reference_and_its_backward(p):
    s, d = p["stride"], p["dilation"]
    opad = min(p["op"], max(s, d) - 1)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 2 * p["groups"], p["h"], p["w"]))
    w = rng.standard_normal((2 * p["groups"], p["og"], p["k"], p["k"]))
    b = rng.standard_normal(p["og"] * p["groups"]) if p["bias"] else None
    hf = (p["h"] - 1) * s + d * (p["k"] - 1) + 1 + opad
    if hf - 2 * p["padding"] <= 0 or (p["w"] - 1) * s + d * (p["k"] - 1) + 1 + opad - 2 * p["padding"] <= 0:
        return
    args = dict(stride=s, padding=p["padding"], output_padding=opad, groups=p["groups"], dilation=d)
    got = E.conv_transpose2d(T(x), T(w), None if b is None else T(b), **args)
    want = ref_conv_transpose2d(x, w, b, (s, s), (p["padding"],) * 2, (opad, opad), p["groups"], (d, d))
    np.testing.assert_allclose(got.numpy(), want, atol=1e-10)
    # backward as documented: grad_input = conv2d(grad, w) narrowed to (H, W),
    # grad_weight = conv2d_backward_weight(x, grad, ...)
    g = rng.standard_normal(want.shape)
    cargs = ((s, s), (p["padding"],) * 2, (d, d), p["groups"])
    gi = C.conv2d_op(T(g), T(w), None, *cargs).numpy()[:, :, :p["h"], :p["w"]]
    gw = C.conv2d_backward_weight(T(x), T(g), w.shape, *cargs).numpy()
    check_vjp(lambda xx: E.conv_transpose2d(T(xx), T(w), **args).numpy(), x, g, gi)
    check_vjp(lambda ww: E.conv_transpose2d(T(x), T(ww), **args).numpy(), w, g, gw)


def test_pointwise_weight_gradient_ignores_input_rows_no_output_reads():
    # conv_transpose2d(1x1, dilation 2, output_padding 1) asks for the gradient of a 1x1 kernel
    # whose input (2x2) is larger than the output it produced (1x1): only pixel (0, 0) is read
    rng = np.random.default_rng(3)
    x, g = rng.standard_normal((2, 3, 2, 2)), rng.standard_normal((2, 4, 1, 1))
    gw = C.conv2d_backward_weight(T(g), T(x), (4, 3, 1, 1), (1, 1), (0, 0), (2, 2), 1).numpy()
    np.testing.assert_allclose(gw[:, :, 0, 0], np.einsum("no,nc->oc", g[:, :, 0, 0], x[:, :, 0, 0]), atol=1e-12)


def test_conv_transpose1d_is_conv_transpose2d_on_a_unit_height():
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal((2, 4, 5)), rng.standard_normal((4, 3, 3))
    got = E.conv_transpose1d(T(x), T(w), stride=2, padding=1, output_padding=1)
    want = ref_conv_transpose2d(x[:, :, None], w[:, :, None], None, (1, 2), (0, 1), (0, 1), 1, (1, 1))[:, :, 0]
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)


def test_conv_errors_use_pytorchs_messages():
    x, w = E.zeros(32, 4, 32, 32), E.zeros(64, 3, 3, 3)
    with pytest.raises(RuntimeError, match=r"^Given groups=1, weight of size \[64, 3, 3, 3\], expected "
                                           r"input\[32, 4, 32, 32\] to have 3 channels, but got 4 channels instead$"):
        E.conv2d(x, w)
    with pytest.raises(RuntimeError, match=r"expected weight to be divisible by 2 at dimension 0"):
        E.conv2d(E.zeros(1, 6, 5, 5), E.zeros(3, 3, 3, 3), groups=2)
    # fewer filters than groups: PyTorch's "at least" check comes first (its list printed once, not nested)
    for conv, x1, w1 in ((E.conv1d, E.zeros(1, 2, 5), E.zeros(2, 1, 3)),
                         (E.conv2d, E.zeros(1, 2, 5, 5), E.zeros(2, 1, 3, 3)),
                         (E.conv_transpose1d, E.zeros(1, 2, 5), E.zeros(2, 1, 3)),
                         (E.conv_transpose2d, E.zeros(1, 2, 5, 5), E.zeros(2, 1, 3, 3))):
        with pytest.raises(RuntimeError, match=rf"^Given groups=3, expected weight to be at least 3 at dimension 0, "
                                               rf"but got weight of size \[{', '.join(map(str, w1.shape))}\] instead$"):
            conv(x1, w1, groups=3)
    with pytest.raises(RuntimeError, match=r"expected bias to be 1-dimensional with 64 elements, but got bias of "
                                           r"size \[32\] instead"):
        E.conv2d(E.zeros(1, 3, 5, 5), w, E.zeros(32))
    with pytest.raises(RuntimeError, match=r"Kernel size can't be greater than actual input size"):
        E.conv2d(E.zeros(1, 3, 2, 2), w)
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d"):
        E.conv2d(E.zeros(3, 5), w)
    with pytest.raises(RuntimeError, match=r"^expected scalar type Double but found Float$"):
        E.conv2d(E.zeros(1, 3, 5, 5, dtype=E.float64), w)
    with pytest.raises(RuntimeError, match=r"^Input type \(float\) and bias type \(double\) should be the same$"):
        E.conv2d(E.zeros(1, 3, 5, 5), w, E.zeros(64, dtype=E.float64))
    with pytest.raises(RuntimeError, match=r"^expected scalar type Long but found Float$"):
        E.conv2d(E.zeros(1, 3, 5, 5, dtype=E.int64), w)
    # a bfloat16 CPU input is oneDNN's (PyTorch 2.13 on AVX-512), which names the legacy types; its bias check first
    cases = ((E.conv2d, w), (E.conv3d, E.zeros(2, 3, 1, 1, 1)), (E.conv_transpose3d, E.zeros(3, 2, 1, 1, 1)))
    for conv, weight in cases:
        x = E.zeros((1, 3) + (5,) * (weight.ndim - 2), dtype=E.bfloat16)
        with pytest.raises(RuntimeError, match=r"^Input type \(CPUBFloat16Type\) and weight type "
                                               r"\(torch\.FloatTensor\) should be the same or input should be a "
                                               r"MKLDNN tensor and weight is a dense tensor$"):
            conv(x, weight)
    with pytest.raises(RuntimeError, match=r"^Input type \(c10::BFloat16\) and bias type \(float\) should be the "
                                           r"same$"):
        E.conv2d(E.zeros(1, 3, 5, 5, dtype=E.bfloat16), w.bfloat16(), E.zeros(64))
    with pytest.raises(RuntimeError, match=r"^expected scalar type Half but found Float$"):
        E.conv2d(E.zeros(1, 3, 5, 5, dtype=E.float16), w)
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        E.conv2d(E.zeros(1, 3, 5, 5), w, padding="same", stride=2)
    with pytest.raises(RuntimeError, match="Invalid padding string: 'full'"):
        E.conv2d(E.zeros(1, 3, 5, 5), w, padding="full")
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        E.conv_transpose2d(E.zeros(1, 3, 5, 5), E.zeros(3, 2, 3, 3), output_padding=1)


@pytest.mark.parametrize("x, w, kw, onednn", [
    ((1, 3, 8, 8), (2, 3, 3, 3), {}, False),  # one small image, a 3x3 kernel: PyTorch's native kernel
    ((4, 3, 8, 8), (2, 3, 3, 3), {}, True),  # a batch
    ((1, 3, 8, 8), (2, 3, 3, 3), {"stride": 2}, False),
    ((1, 3, 8, 8), (2, 3, 5, 5), {}, True),  # a kernel over 3x3
    ((1, 4, 8, 8), (4, 1, 3, 3), {"groups": 4}, True),
    ((1, 3, 100, 100), (2, 3, 3, 3), {}, True),  # over 20480 elements
    ((3, 100, 100), (2, 3, 3, 3), {}, True),  # unbatched, counted as a batch of one
    ((4, 3, 8), (2, 3, 3), {}, True),  # conv1d, as 2-d
    ((1, 3, 8), (2, 3, 3), {}, False),
    ((2, 3, 4, 4, 4), (2, 3, 3, 3, 3), {}, True),
])
def test_float_input_weight_dtype_error_follows_pytorchs_onednn_choice(x, w, kw, onednn):
    conv = {3: E.conv1d, 4: E.conv2d, 5: E.conv3d}[len(w)]
    legacy = (r"^Input type \(torch\.FloatTensor\) and weight type \(torch\.DoubleTensor\) should be the same or "
              r"input should be a MKLDNN tensor and weight is a dense tensor$")
    with pytest.raises(RuntimeError, match=legacy if onednn else r"^expected scalar type Float but found Double$"):
        conv(E.zeros(*x), E.zeros(*w, dtype=E.float64), **kw)


def test_onednn_weight_dtype_error_names_bfloat16_and_complex_by_their_cpp_types():
    for dt, name in ((E.bfloat16, "CPUBFloat16Type"), (E.complex64, "CPUComplexFloatType")):
        with pytest.raises(RuntimeError, match=rf"^Input type \(torch\.FloatTensor\) and weight type \({name}\)"):
            E.conv2d(E.zeros(2, 3, 8, 8), E.zeros(2, 3, 3, 3, dtype=dt))
    with pytest.raises(RuntimeError, match=r"^Input type \(torch\.FloatTensor\) and weight type \(torch\.CharTensor\)"):
        E.conv_transpose2d(E.zeros(4, 3, 8, 8), E.zeros(3, 2, 3, 3, dtype=E.int8))


@pytest.mark.parametrize("call, exc, msg", [
    # PyTorch 2.13 CPU: padding, then stride, then dilation (a zero one lists them, a negative one does not)
    (lambda x, w: E.conv2d(x, w, stride=0, padding=-1), RuntimeError, "negative padding is not supported"),
    (lambda x, w: E.conv2d(x, w, stride=0, dilation=0), RuntimeError, "non-positive stride is not supported"),
    (lambda x, w: E.conv2d(x, w, dilation=(1, 0)), RuntimeError,
     "dilation should be greater than zero, but got [1, 0]"),
    (lambda x, w: E.conv2d(x, w, dilation=(2, -1)), RuntimeError, "dilation should be greater than zero"),
    (lambda x, w: E.conv1d(E.ones(1, 2, 5), E.ones(3, 2, 3), dilation=0), RuntimeError,  # run as 2-d: a unit height
     "dilation should be greater than zero, but got [1, 0]"),
    (lambda x, w: E.conv_transpose1d(E.ones(1, 2, 5), E.ones(2, 3, 3), dilation=0), RuntimeError,
     "dilation should be greater than zero, but got dilation_height: 1, dilation_width: 0"),
    (lambda x, w: E.conv1d(E.ones(1, 2, 5), E.ones(3, 2, 3), dilation=0, padding="same"), RuntimeError,
     "dilation should be greater than zero, but got [1, 0]"),
    (lambda x, w: E.conv2d(x, w, stride=(1, 1, 1)), RuntimeError, "expected stride to be a single integer value or "
     "a list of 2 values to match the convolution dimensions, but got stride=[1, 1, 1]"),
    (lambda x, w: E.conv2d(x, w, padding=1.0), TypeError, "conv2d(): argument 'padding' must be tuple of ints, "
     "not float"),
    (lambda x, w: E.conv_transpose2d(E.ones(1, 2, 5, 5), E.ones(2, 3, 3, 3), padding=(1, None)), TypeError,
     "conv_transpose2d(): argument 'padding' failed to unpack the object at pos 2 with error \"type must be tuple "
     "of ints,but got NoneType\""),
    (lambda x, w: E.conv2d(x, w, stride=[1, 2.0]), TypeError, "conv2d(): argument 'stride' failed to unpack the "
     "object at pos 2 with error \"type must be tuple of ints,but got float\""),
    (lambda x, w: E.conv2d(x, w, padding=("a", 1)), TypeError, "conv2d(): argument 'padding' must be tuple of ints, "
     "not tuple"),
    (lambda x, w: E.conv2d(x, w[0]), RuntimeError, "expected stride to be a single integer value or a list of 1 "
     "values to match the convolution dimensions, but got stride=[1, 1]"),
    (lambda x, w: E.conv2d(x, w[0, 0]), RuntimeError, "weight should have at least three dimensions"),
    (lambda x, w: E.conv1d(E.ones(1, 2, 5), w), RuntimeError, "Expected 4-dimensional input for 4-dimensional weight "
     "[3, 2, 3, 3], but got 3-dimensional input of size [1, 2, 5] instead"),
    (lambda x, w: E.conv_transpose2d(x, w.transpose(0, 1), stride=0, output_padding=-1), RuntimeError,
     "negative output_padding is not supported"),
    (lambda x, w: E.conv_transpose2d(x, w.transpose(0, 1), padding=-1, dilation=0), RuntimeError,
     "negative padding is not supported"),
    (lambda x, w: E.conv_transpose2d(x, w.transpose(0, 1), dilation=(2, -1)), RuntimeError,
     "dilation should be greater than zero"),
])
def test_conv_argument_errors_in_pytorchs_order_and_words(call, exc, msg):
    with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
        call(E.ones(1, 2, 5, 5), E.ones(3, 2, 3, 3))


def test_conv2d_half_input_computes_in_float32_and_returns_half():
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((4, 3, 3, 3))
    got = E.conv2d(T(x.astype(np.float16)), T(w.astype(np.float16)), padding=1)
    assert got.dtype is E.float16
    want = ref_conv2d(x.astype(np.float16).astype(np.float64), w.astype(np.float16).astype(np.float64), None,
                      (1, 1), (1, 1), (1, 1), 1)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=1e-2, atol=1e-2)


def ref_unfold(x, k, d, p, s):
    """Blocks in PyTorch's order: row c*kh*kw + i*kw + j, column oh*Wo + ow."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    ho, wo = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1, (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], ho * wo))
    for ci in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                for oh in range(ho):
                    for ow in range(wo):
                        out[:, (ci * k[0] + i) * k[1] + j, oh * wo + ow] = xp[:, ci, oh * s[0] + i * d[0],
                                                                             ow * s[1] + j * d[1]]
    return out


@settings(max_examples=20, deadline=None)
@given(conv_cases)
def test_unfold_matches_block_reference_and_fold_is_its_adjoint(p):
    if not fits(p):
        return
    x, _, _ = make_case(p)
    k = (p["kh"], p["kw"])
    args = dict(dilation=p["dilation"], padding=p["padding"], stride=p["stride"])
    got = C.unfold(T(x), k, **args)
    want = ref_unfold(x, k, p["dilation"], p["padding"], p["stride"])
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    g = np.random.default_rng(1).standard_normal(want.shape)
    back = E.fold(T(g), x.shape[2:], k, **args).numpy()
    check_vjp(lambda xx: ref_unfold(xx, k, p["dilation"], p["padding"], p["stride"]), x, g, back)
    assert C.unfold(T(x[0]), k, **args).shape == want.shape[1:]


def test_fold_errors_use_pytorchs_messages():
    with pytest.raises(RuntimeError, match="expected size of input's dimension 2 to match the calculated number"):
        E.fold(E.ones(1, 4, 5), (3, 3), 2)
    with pytest.raises(RuntimeError, match="divisible by the product of kernel_size"):
        E.fold(E.ones(1, 5, 4), (3, 3), 2)


def test_unfold_and_fold_of_the_wrong_rank_raise_pytorchs_errors():
    with pytest.raises(IndexError, match=re.escape("Dimension out of range (expected to be in range of [-2, 1], but "
                                                   "got 2)")):
        C.unfold(E.ones(12, 16), 3)
    with pytest.raises(RuntimeError, match=re.escape("Expected 3D or 4D (batch mode) tensor with possibly 0 batch "
                                                     "size and other non-zero dimensions for input, but got: [1, 1, 1, "
                                                     "4, 4]")):
        C.unfold(E.ones(1, 1, 1, 4, 4), 3)
    with pytest.raises(RuntimeError, match=re.escape("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                                                     "batch size and non-zero dimensions for input, but got: [4]")):
        E.fold(E.ones(4), (4, 4), 3)


@pytest.mark.parametrize("dtype,name", [(E.int64, "Long"), (E.int32, "Int"), (E.uint8, "Byte"), (E.int8, "Char")])
def test_unfold_and_fold_refuse_integer_dtypes_after_the_shape_checks(dtype, name):
    """ATen's CPU im2col/col2im dispatch on floating, complex and bool dtypes only."""
    with pytest.raises(NotImplementedError, match=f"^\"im2col_out_cpu\" not implemented for '{name}'$"):
        C.unfold(E.ones(1, 1, 3, 3, dtype=dtype), 2)
    with pytest.raises(NotImplementedError, match=f"^\"col2im_out_cpu\" not implemented for '{name}'$"):
        E.fold(E.ones(1, 4, 4, dtype=dtype), (3, 3), 2)
    with pytest.raises(RuntimeError, match="calculated shape of the array of sliding blocks"):
        C.unfold(E.ones(1, 1, 3, 3, dtype=dtype), 4)


def test_unfold_and_fold_keep_bool_and_reduced_float_dtypes():
    for dtype in (E.bool, E.float16, E.bfloat16, E.complex64):
        assert C.unfold(E.ones(1, 1, 3, 3, dtype=dtype), 2).dtype is dtype
        assert E.fold(E.ones(1, 4, 4, dtype=dtype), (3, 3), 2).dtype is dtype
    assert C.unfold(E.tensor([[[[True, False], [False, True]]]]), 1).tolist() == [[[True, False, False, True]]]


def test_unfold_and_fold_check_their_block_arguments_in_atens_order():
    # im2col checks kernel, dilation, padding, stride; col2im kernel, stride, dilation, padding
    with pytest.raises(RuntimeError, match="^dilation should be greater than zero, but got dilation_height: 0 "
                                           "dilation_width: 0$"):
        C.unfold(E.ones(1, 1, 3, 3), 2, dilation=0, stride=0)
    with pytest.raises(RuntimeError, match="^stride should be greater than zero, but got stride_height: 0 "
                                           "stride_width: 0$"):
        E.fold(E.ones(1, 4, 4), (3, 3), 2, dilation=0, stride=0)
    with pytest.raises(RuntimeError, match="^kernel size should be greater than zero, but got kernel_height: 0 "
                                           "kernel_width: 2$"):
        C.unfold(E.ones(1, 1, 3, 3), (0, 2), stride=0)
    with pytest.raises(RuntimeError, match="^padding should be non-negative, but got pad_height: -1 pad_width: -1$"):
        E.fold(E.ones(1, 4, 4), (3, 3), 2, padding=-1)
    with pytest.raises(RuntimeError, match="^stride should be greater"):  # before the input's rank
        C.unfold(E.ones(2, 1, 1, 3, 3), 5, stride=0)
    with pytest.raises(RuntimeError, match=re.escape("Given input with spatial size (2, 2), kernel_size=(3, 3), "
                                                     "dilation=(2, 2), padding=(0, 0), calculated shape of the array "
                                                     "of sliding blocks as (-2, -2), but its components must be at "
                                                     "least one.")):
        C.unfold(E.ones(1, 1, 2, 2), 3, dilation=2)


def test_empty_batches_give_empty_results_and_zero_weight_gradients():
    x, w = E.zeros(0, 3, 5, 5), E.ones(4, 3, 3, 3)
    assert E.conv2d(x, w, padding=1).shape == (0, 4, 5, 5)
    assert E.conv2d(x, E.ones(3, 1, 3, 3), groups=3).shape == (0, 3, 3, 3)
    assert C.conv2d_backward_input(E.zeros(0, 4, 5, 5), w, x.shape, (1, 1), (1, 1), (1, 1), 1).shape == x.shape
    gw = C.conv2d_backward_weight(E.zeros(0, 4, 5, 5), x, w.shape, (1, 1), (1, 1), (1, 1), 1)
    assert gw.shape == w.shape and not gw.numpy().any()
    assert C.unfold(x, 2).shape == (0, 12, 16)


def test_importing_ember_core_builds_no_nn_kernel():
    import subprocess
    import sys

    code = ("import ember.core, functools; from ember.core.ops import numba_nn as K; "
            "built = [n for n, f in vars(K).items() if isinstance(f, functools._lru_cache_wrapper) "
            "and f.cache_info().currsize]; print(built)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_batch_chunking_of_the_column_buffer_gives_the_same_results(monkeypatch):
    rng = np.random.default_rng(10)
    x, w, g = rng.standard_normal((5, 4, 7, 6)), rng.standard_normal((6, 2, 3, 3)), rng.standard_normal((5, 6, 4, 3))
    args = ((2, 2), (1, 1), (1, 1), 2)
    whole = [C.conv2d_op(T(x), T(w), T(np.ones(6)), *args).numpy(),
             C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy(),
             C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()]
    monkeypatch.setattr(C, "_COLS_BYTES", 1)  # one sample per chunk
    chunked = [C.conv2d_op(T(x), T(w), T(np.ones(6)), *args).numpy(),
               C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy(),
               C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()]
    for a, b in zip(whole, chunked):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


direct_cases = st.fixed_dictionaries({
    "n": st.integers(1, 2), "c": st.integers(2, 5), "o": st.integers(2, 5), "h": st.integers(20, 23),
    "w": st.integers(20, 23), "kh": st.integers(1, 3), "kw": st.integers(1, 3),
    "padding": st.tuples(st.integers(0, 2), st.integers(0, 2)),
    "dilation": st.tuples(st.integers(1, 2), st.integers(1, 2)), "bias": st.booleans(),
})


def _spy_direct(monkeypatch):
    """Count the calls of the direct stride-1 kernels' launchers (NOTE [ Direct convolution over flat rows ])."""
    calls = []
    for name in ("_direct", "_direct_weight_grad"):
        real = getattr(C, name)
        monkeypatch.setattr(C, name, lambda *a, _real=real, _name=name: calls.append(_name) or _real(*a))
    return calls


@settings(max_examples=25, deadline=None)
@given(direct_cases)
def test_direct_stride1_kernels_match_reference_and_finite_differences(p):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((p["n"], p["c"], p["h"], p["w"]))
    w = rng.standard_normal((p["o"], p["c"], p["kh"], p["kw"]))
    b = rng.standard_normal(p["o"]) if p["bias"] else None
    args = ((1, 1), p["padding"], p["dilation"], 1)
    y = ref_conv2d(x, w, b, *args)
    assert y.shape[2] * y.shape[3] >= 256  # every case is one the direct kernels take (16x16 outputs at least)
    with pytest.MonkeyPatch.context() as mp:
        calls = _spy_direct(mp)
        got = C.conv2d_op(T(x), T(w), None if b is None else T(b), *args).numpy()
        g = np.random.default_rng(1).standard_normal(y.shape)
        gi = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
        gw = C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()
    reaches = all(d * (k - 1) >= pp for d, k, pp in zip(p["dilation"], (p["kh"], p["kw"]), p["padding"]))
    pointwise = p["kh"] == p["kw"] == 1 and p["padding"] == (0, 0)  # a stacked matmul instead
    assert calls == [] if pointwise else (["_direct", "_direct"] * reaches + ["_direct"] * (not reaches)
                                          + ["_direct_weight_grad"])
    np.testing.assert_allclose(got, y, rtol=1e-10, atol=1e-10)
    check_vjp(lambda xx: ref_conv2d(xx, w, None, *args), x, g, gi)
    check_vjp(lambda ww: ref_conv2d(x, ww, None, *args), w, g, gw)


@pytest.mark.parametrize("padding,dilation", [((1, 1), (1, 1)), ((0, 2), (2, 1))])
def test_direct_stride1_kernels_in_float32_match_the_float64_reference(padding, dilation):
    rng = np.random.default_rng(12)
    x, w = rng.standard_normal((3, 7, 20, 18)), rng.standard_normal((6, 7, 3, 3))
    args = ((1, 1), padding, dilation, 1)
    y = ref_conv2d(x, w, None, *args)
    g = rng.standard_normal(y.shape)
    f32 = [T(a.astype(np.float32)) for a in (x, w, g)]
    got = C.conv2d_op(f32[0], f32[1], None, *args).numpy()
    gi = C.conv2d_backward_input(f32[2], f32[1], x.shape, *args).numpy()
    gw = C.conv2d_backward_weight(f32[2], f32[0], w.shape, *args).numpy()
    gi64 = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
    gw64 = C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()
    assert got.dtype == gi.dtype == gw.dtype == np.float32
    np.testing.assert_allclose(got, y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gi, gi64, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw, gw64, rtol=1e-4, atol=2e-3)  # sums of 3 * 18 * 16 products


@pytest.mark.parametrize("stride,padding,dilation", [((1, 1), (1, 1), (1, 1)), ((1, 1), (0, 2), (2, 1)),
                                                     ((2, 1), (1, 0), (1, 1)), ((2, 2), (1, 1), (1, 2))])
def test_depthwise_weight_gradient_in_float32_matches_float64(stride, padding, dilation):
    """The depthwise weight gradient's float32 sums (one dot product per tap and image over the phase
    planes, summed in float64) against the float64 kernel, with a channel multiplier of 2."""
    rng = np.random.default_rng(13)
    x, w = rng.standard_normal((3, 4, 17, 15)), rng.standard_normal((8, 1, 3, 3))
    args = (stride, padding, dilation, 4)
    y = ref_conv2d(x, w, None, *args)
    g = rng.standard_normal(y.shape)
    gw = C.conv2d_backward_weight(T(g.astype(np.float32)), T(x.astype(np.float32)), w.shape, *args).numpy()
    gw64 = C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()
    assert gw.dtype == np.float32
    np.testing.assert_allclose(gw, gw64, rtol=1e-4, atol=1e-3)
    check_vjp(lambda ww: ref_conv2d(x, ww, None, *args), w, g, gw64)


@pytest.mark.parametrize("stride", [(1, 1), (2, 1), (2, 2), (3, 2)])
def test_unpadded_1x1_convolution_is_a_stacked_matmul(stride, monkeypatch):
    """An unpadded 1x1 conv (any stride, dilation ignored) against the loop reference and finite
    differences, through `_pointwise` (no columns); conv_transpose2d with output_padding reuses it."""
    rng = np.random.default_rng(14)
    x, w, b = rng.standard_normal((2, 5, 7, 6)), rng.standard_normal((3, 5, 1, 1)), rng.standard_normal(3)
    args = (stride, (0, 0), (2, 1), 1)
    calls = []
    real = C._pointwise
    monkeypatch.setattr(C, "_pointwise", lambda *a: calls.append(1) or real(*a))
    y = ref_conv2d(x, w, b, *args)
    np.testing.assert_allclose(C.conv2d_op(T(x), T(w), T(b), *args).numpy(), y, rtol=1e-12, atol=1e-12)
    assert calls == [1]
    g = rng.standard_normal(y.shape)
    gi = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
    gw = C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()
    check_vjp(lambda xx: ref_conv2d(xx, w, None, *args), x, g, gi)
    check_vjp(lambda ww: ref_conv2d(x, ww, None, *args), w, g, gw)
    extra = tuple(int(s > 1) for s in stride)  # output_padding: an output larger than the strided input reaches
    up = E.conv_transpose2d(T(g), T(w), None, stride, 0, extra)
    ref = ref_conv_transpose2d(g, w, None, stride, (0, 0), extra, 1, (1, 1))
    np.testing.assert_allclose(up.numpy(), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("stride,padding,dilation,mult", [((1, 1), (1, 1), (1, 1), 1), ((2, 2), (1, 1), (1, 1), 1),
                                                          ((2, 1), (0, 2), (1, 2), 2), ((3, 2), (2, 1), (2, 1), 1),
                                                          ((1, 2), (0, 0), (1, 1), 3)])
def test_depthwise_phase_kernels_match_reference_and_finite_differences(stride, padding, dilation, mult):
    """The depthwise kernels over phase planes (strides 1-3, padding, dilation, a channel multiplier, odd
    sizes, a non-contiguous input) against the float64 loop reference and central differences."""
    rng = np.random.default_rng(21)
    x = rng.standard_normal((2, 11, 13, 3)).transpose(0, 3, 2, 1)  # (2, 3, 13, 11), not contiguous
    w = rng.standard_normal((3 * mult, 1, 3, 2))
    args = (stride, padding, dilation, 3)
    y = ref_conv2d(x, w, None, *args)
    got = C.conv2d_op(E.from_numpy(x), T(w), None, *args).numpy()
    np.testing.assert_allclose(got, y, rtol=1e-10, atol=1e-10)
    g = rng.standard_normal(y.shape)
    gi = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
    gw = C.conv2d_backward_weight(T(g), E.from_numpy(x), w.shape, *args).numpy()
    check_vjp(lambda xx: ref_conv2d(xx, w, None, *args), x, g, gi)
    check_vjp(lambda ww: ref_conv2d(x, ww, None, *args), w, g, gw)
    gi32 = C.conv2d_backward_input(T(g.astype(np.float32)), T(w.astype(np.float32)), x.shape, *args).numpy()
    np.testing.assert_allclose(gi32, gi, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("padding,dilation", [((1, 1), (1, 1)), ((0, 2), (1, 2)), ((2, 0), (1, 1))])
def test_stride1_input_gradient_of_a_gemm_layer_is_the_flipped_convolution(padding, dilation, monkeypatch):
    """A stride-1 layer on the GEMM path (128 channels on 5x7) takes its input gradient as the forward
    convolution of the padded gradient with the flipped weight (no col2im), float32 and float64."""
    rng = np.random.default_rng(17)
    x, w = rng.standard_normal((2, 128, 5, 7)), rng.standard_normal((3, 128, 3, 3)) / 10
    args = ((1, 1), padding, dilation, 1)
    y = ref_conv2d(x, w, None, *args)
    g = rng.standard_normal(y.shape)
    monkeypatch.setattr(C.numba_nn, "col2im", None)  # the scatter path would fail
    gi = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
    check_vjp(lambda xx: ref_conv2d(xx, w, None, *args), x, g, gi)
    gi32 = C.conv2d_backward_input(T(g.astype(np.float32)), T(w.astype(np.float32)), x.shape, *args).numpy()
    np.testing.assert_allclose(gi32, gi, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("padding,dilation,bias", [((1, 1), (1, 1), True), ((1, 2), (2, 1), False),
                                                   ((2, 1), (1, 1), True)])
def test_direct_kernels_with_two_images_a_row_match_reference(padding, dilation, bias, monkeypatch):
    """Small planes put two padded images in one flat row (`_images_per_row`): the forward, both gradients
    and the bias against the float64 reference and central differences."""
    rng = np.random.default_rng(19)
    x, w = rng.standard_normal((4, 5, 17, 16)), rng.standard_normal((3, 5, 3, 3))
    b = rng.standard_normal(3) if bias else None
    args = ((1, 1), padding, dilation, 1)
    rows = []
    real = C._images_per_row
    monkeypatch.setattr(C, "_images_per_row", lambda n, plane: rows.append(real(n, plane)) or rows[-1])
    y = ref_conv2d(x, w, b, *args)
    got = C.conv2d_op(T(x), T(w), None if b is None else T(b), *args).numpy()
    g = rng.standard_normal(y.shape)
    gi = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
    gw = C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()
    assert rows and set(rows) == {2}
    np.testing.assert_allclose(got, y, rtol=1e-10, atol=1e-10)
    check_vjp(lambda xx: ref_conv2d(xx, w, None, *args), x, g, gi)
    check_vjp(lambda ww: ref_conv2d(x, ww, None, *args), w, g, gw)


@pytest.mark.parametrize("x, w, kw, shape", [
    ((2, 2, 1, 2), (2, 3, 1, 3), dict(padding=(0, 2)), (2, 3, 1, 0)),
    ((0, 2, 2), (2, 2, 3), dict(padding=2), (0, 2, 0)),
    ((2, 3, 6, 3, 5), (3, 2, 1, 2, 3), dict(stride=(2, 1, 2), padding=(2, 2, 0), dilation=(1, 1, 2), groups=3,
                                            output_padding=(1, 0, 1)), (2, 6, 8, 0, 14)),
])
def test_transposed_conv_to_an_empty_output_is_empty_as_in_pytorch(x, w, kw, shape):
    # found by the fuzz campaign's conv family: ember refused an output size of 0 ("too small")
    fn = {3: E.conv_transpose1d, 4: E.conv_transpose2d, 5: E.conv_transpose3d}[len(x)]
    assert tuple(fn(E.ones(*x), E.ones(*w), **kw).shape) == shape
    with pytest.raises(RuntimeError, match=r"output size \[1, 1, -1, -1\] is too small"):
        E.conv_transpose2d(E.ones(1, 1, 1, 1), E.ones(1, 1, 1, 1), padding=1)


def test_transposed_1x1_conv_of_an_empty_batch_is_empty():
    # found by the fuzz campaign's conv family: numpy's "cannot reshape array of size 0" leaked
    # (the 1x1 path's reshape inferred the channels from a batch of 0)
    out = E.conv_transpose1d(E.ones(0, 1, 2), E.ones(1, 1, 1), E.ones(1), dilation=2, output_padding=1)
    assert tuple(out.shape) == (0, 1, 3)
    assert tuple(E.conv_transpose2d(E.ones(0, 3, 2, 2), E.ones(3, 4, 1, 1), stride=2).shape) == (0, 4, 3, 3)


@pytest.mark.parametrize("n,groups", [(1, 1), (1, 2), (10, 1), (10, 2)])
def test_weight_gradient_in_both_gemm_orientations_matches_the_reference(n, groups):
    """The GEMM-path weight gradient is `grad @ cols^T` when the batch's positions (n*Ho*Wo) are at most the
    columns' rows (C/G*kh*kw), else `cols @ grad^T` transposed: 1 image of 3x3 outputs against 36 or 72 rows,
    10 images (90 positions) against them; both match finite differences of the forward, one group and two."""
    rng = np.random.default_rng(21)
    x, w = rng.standard_normal((n, 8, 5, 5)), rng.standard_normal((4, 8 // groups, 3, 3))
    args = ((2, 2), (1, 1), (1, 1), groups)
    g = rng.standard_normal(ref_conv2d(x, w, None, *args).shape)  # 3x3 outputs
    gw = C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()
    check_vjp(lambda ww: ref_conv2d(x, ww, None, *args), w, g, gw)


def test_input_gradient_of_few_positions_takes_col2im_not_the_flipped_weight(monkeypatch):
    """Past 2*O gradient positions the stride-1 input gradient is the flipped convolution; at or below it
    (one 2x2 image, 8 output channels) the transposed GEMM and col2im, which spare the weight's flipped copy."""
    rng = np.random.default_rng(22)
    x, w = rng.standard_normal((1, 8, 2, 2)), rng.standard_normal((8, 8, 3, 3))
    args = ((1, 1), (1, 1), (1, 1), 1)
    g = rng.standard_normal((1, 8, 2, 2))
    monkeypatch.setattr(C, "_gemm_conv", None)  # the flipped path would fail
    gi = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
    check_vjp(lambda xx: ref_conv2d(xx, w, None, *args), x, g, gi)


def test_geometry_errors_are_raised_on_every_call_and_tables_are_shared():
    """The geometry checks and the depthwise tables are kept per shape: a bad geometry still raises each
    time (an exception is never cached), and a second layer of the same shape gets the same tables."""
    for _ in range(2):
        with pytest.raises(RuntimeError, match=r"Kernel size can't be greater than actual input size"):
            C.conv2d_op(E.zeros(1, 3, 2, 2), E.zeros(4, 3, 3, 3), None, (1, 1), (0, 0), (1, 1), 1)
    a = C._phase_geometry((8, 8), 3, 3, (2, 2), (1, 1), (1, 1))
    b = C._phase_geometry([8, 8], 3, 3, [2, 2], [1, 1], [1, 1])
    assert all(p is q for p, q in zip(a, b))


def test_kernel_array_widens_only_the_half_float_dtypes():
    """The nn kernels' operands: float16 and bfloat16 become float32 (Numba has no CPU arithmetic for them);
    2-byte integers and every other dtype pass through as the same array."""
    for dt in (np.float16, E.bfloat16.np):
        assert C.numba_nn.kernel_array(np.ones(3, dt)).dtype == np.float32
    for dt in (np.int16, np.uint16, np.float32, np.float64, np.int64, np.uint8):
        a = np.ones(3, dt)
        assert C.numba_nn.kernel_array(a) is a


def _spy_image_gemm(monkeypatch):
    """Count the calls of the per-image GEMM launchers (NOTE [ Convolution as one GEMM per image ])."""
    calls = []
    for name in ("_image_gemm_conv", "_image_gemm_input_grad", "_image_gemm_weight_grad"):
        real = getattr(C, name)
        monkeypatch.setattr(C, name, lambda *a, _real=real, _name=name: calls.append(_name) or _real(*a))
    return calls


@pytest.mark.parametrize("n,c,o,hw,k,stride,padding,dilation,groups", [
    (2, 1, 3, (18, 19), (3, 3), (1, 1), (0, 0), (1, 1), 1),  # a first layer (one input channel)
    (1, 70, 4, (20, 19), (3, 2), (1, 1), (5, 2), (2, 1), 1),  # batch 1, 70 channels, padding past the reach
    (2, 4, 6, (33, 34), (3, 3), (2, 2), (1, 1), (1, 1), 2),  # strided, two groups
    (3, 2, 2, (35, 33), (2, 3), (2, 1), (0, 2), (1, 2), 1),  # mixed stride and dilation, even kernel
    (2, 6, 9, (16, 16), (5, 5), (1, 1), (2, 2), (1, 1), 3),  # three groups, 'same'-style padding
])
def test_per_image_gemm_convolution_matches_reference_and_finite_differences(n, c, o, hw, k, stride, padding,
                                                                              dilation, groups, monkeypatch):
    """Layers with a 16x16 output or larger that the direct kernels do not take run as one GEMM per image:
    the forward (with bias) against the float64 loop reference, both gradients against central differences
    of it, and the float32 results against the float64 ones. The input is not contiguous."""
    rng = np.random.default_rng(23)
    x = rng.standard_normal((n, hw[1], hw[0], c)).transpose(0, 3, 2, 1)  # (n, c, H, W), channels last in memory
    w, b = rng.standard_normal((o, c // groups, *k)), rng.standard_normal(o)
    args = (stride, padding, dilation, groups)
    y = ref_conv2d(x, w, b, *args)
    assert y.shape[2] * y.shape[3] >= 256
    g = rng.standard_normal(y.shape)
    calls = _spy_image_gemm(monkeypatch)
    got = C.conv2d_op(E.from_numpy(x), T(w), T(b), *args).numpy()
    gi = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
    gw = C.conv2d_backward_weight(T(g), E.from_numpy(x), w.shape, *args).numpy()
    # (the one-channel input's gradient is a 3-channel to 1-channel direct convolution)
    assert calls == ["_image_gemm_conv"] + ["_image_gemm_input_grad"] * (c > 1) + ["_image_gemm_weight_grad"]
    np.testing.assert_allclose(got, y, rtol=1e-10, atol=1e-10)
    check_vjp(lambda xx: ref_conv2d(xx, w, None, *args), x, g, gi)
    check_vjp(lambda ww: ref_conv2d(x, ww, None, *args), w, g, gw)
    f32 = [E.from_numpy(a.astype(np.float32)) for a in (x, w, b, g)]
    np.testing.assert_allclose(C.conv2d_op(f32[0], f32[1], f32[2], *args).numpy(), y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(C.conv2d_backward_input(f32[3], f32[1], x.shape, *args).numpy(), gi, rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(C.conv2d_backward_weight(f32[3], f32[0], w.shape, *args).numpy(), gw, rtol=1e-4,
                               atol=2e-3)


def test_sixty_four_output_channels_take_the_per_image_gemm_not_the_direct_kernels(monkeypatch):
    """LeNet's 32->64 3x3 layer shape (here 4->64 on 18x18): from 64 output channels the direct kernels'
    layers run as per-image GEMMs, forward and both gradients, in float32 within the float64 reference."""
    rng = np.random.default_rng(24)
    x, w, b = rng.standard_normal((2, 4, 18, 18)), rng.standard_normal((64, 4, 3, 3)), rng.standard_normal(64)
    args = ((1, 1), (0, 0), (1, 1), 1)
    y = ref_conv2d(x, w, b, *args)
    g = rng.standard_normal(y.shape)
    gi64 = C.conv2d_backward_input(T(g), T(w), x.shape, *args).numpy()
    gw64 = C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()
    check_vjp(lambda xx: ref_conv2d(xx, w, None, *args), x, g, gi64)
    check_vjp(lambda ww: ref_conv2d(x, ww, None, *args), w, g, gw64)
    calls = _spy_image_gemm(monkeypatch)
    monkeypatch.setattr(C, "_direct", None)  # the direct kernels would fail
    monkeypatch.setattr(C, "_direct_weight_grad", None)
    f32 = [T(a.astype(np.float32)) for a in (x, w, b, g)]
    np.testing.assert_allclose(C.conv2d_op(f32[0], f32[1], f32[2], *args).numpy(), y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(C.conv2d_backward_input(f32[3], f32[1], x.shape, *args).numpy(), gi64, rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(C.conv2d_backward_weight(f32[3], f32[0], w.shape, *args).numpy(), gw64, rtol=1e-4,
                               atol=2e-3)
    assert calls == ["_image_gemm_conv", "_image_gemm_input_grad", "_image_gemm_weight_grad"]


def test_per_image_gemm_results_do_not_depend_on_the_chunk_or_the_thread_count(monkeypatch):
    """The per-image GEMMs and the image-ordered weight-gradient sum give the same bits whether a chunk holds
    one image or all of them, and at one thread or two."""
    from ember.core.parallel import get_num_threads, set_num_threads

    rng = np.random.default_rng(25)
    x = rng.standard_normal((5, 3, 19, 18)).astype(np.float32)
    w, b = rng.standard_normal((8, 3, 3, 3)).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    g = rng.standard_normal((5, 8, 17, 16)).astype(np.float32)
    args = ((1, 1), (0, 0), (1, 1), 1)

    def run():
        return [C.conv2d_op(T(x), T(w), T(b), *args).numpy(), C.conv2d_backward_input(T(g), T(w), x.shape,
                                                                                       *args).numpy(),
                C.conv2d_backward_weight(T(g), T(x), w.shape, *args).numpy()]

    monkeypatch.setattr(C, "_DIRECT_MAX_OUT", 0)  # every stride-1 layer on the per-image GEMMs
    first = run()
    monkeypatch.setattr(C, "_IMAGE_COLS_BYTES", 1)  # one image a chunk, one a worker thread
    threads = get_num_threads()
    try:
        for t in (1, 2):
            set_num_threads(t)
            for a, r in zip(run(), first):
                np.testing.assert_array_equal(a, r)
    finally:
        set_num_threads(threads)


def test_transposed_convolution_of_a_large_plane_matches_the_scatter_reference(monkeypatch):
    """conv_transpose2d of a 16x16-or-larger input is the per-image GEMM input gradient, including an output
    larger than the input reaches (output_padding)."""
    rng = np.random.default_rng(26)
    x, w, b = rng.standard_normal((2, 4, 17, 16)), rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(3)
    calls = _spy_image_gemm(monkeypatch)
    for stride, padding, output_padding in (((2, 2), (1, 1), (1, 0)), ((1, 2), (0, 1), (0, 1))):
        got = E.conv_transpose2d(T(x), T(w), T(b), stride, padding, output_padding).numpy()
        ref = ref_conv_transpose2d(x, w, b, stride, padding, output_padding, 1, (1, 1))
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)
    assert calls == ["_image_gemm_input_grad"] * 2


def _threaded_conv_sum(x):
    """A per-image GEMM convolution at two threads (for the forked child of the test below)."""
    from ember.core.parallel import set_num_threads

    set_num_threads(2)
    w = np.ones((4, 1, 3, 3), dtype=np.float32)
    return float(C._image_gemm_conv(x, w, None, (1, 1), (0, 0), (1, 1), 1, 18, 18).sum())


def test_per_image_gemm_worker_threads_are_made_again_in_a_forked_child(monkeypatch):
    """The worker threads do not survive a fork: a child process (a fork-started DataLoader worker) running a
    threaded convolution gets its own pool instead of waiting forever on its parent's."""
    import multiprocessing

    from ember.core.parallel import get_num_threads, set_num_threads

    monkeypatch.setattr(C, "_IMAGE_COLS_BYTES", 1)  # one image a chunk: the threaded path
    x = np.random.default_rng(27).standard_normal((4, 1, 20, 20)).astype(np.float32)
    threads = get_num_threads()
    try:
        want = _threaded_conv_sum(x)  # the parent's pool exists now
        with multiprocessing.get_context("fork").Pool(1) as pool:
            got = pool.apply_async(_threaded_conv_sum, (x,)).get(timeout=120)
    finally:
        set_num_threads(threads)
    assert got == want


def test_the_blas_limit_of_overlapping_conv_calls_is_restored_by_the_last_one_out(monkeypatch):
    """Two user threads' threaded convolutions overlap: the BLAS stays at one thread until the last leaves,
    then gets its own limit back (each restoring what it saw on entry left it at one thread for good)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from ember.core.ops import blas_threads

    monkeypatch.setattr(blas_threads, "_STATE", [None, 0, None])  # the library found afresh

    def blas_threads():  # numpy's BLAS, the one ember's GEMMs call
        pkg = os.path.realpath(os.path.dirname(np.__file__))  # (scipy's own OpenBLAS is another library)
        return [m["num_threads"] for m in threadpoolctl.threadpool_info() if m["user_api"] == "blas"
                and os.path.realpath(m["filepath"]).startswith((pkg + os.sep, pkg + ".libs" + os.sep))]

    before = blas_threads()
    if not before or max(before) == 1:
        pytest.skip("no BLAS with more than one thread to limit")
    a, b = C._blas_single_threaded(), C._blas_single_threaded()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)  # the first call out while the second still runs
    assert blas_threads() == [1] * len(before)
    b.__exit__(None, None, None)
    assert blas_threads() == before


@pytest.mark.parametrize("fn, x, w, kw, msg", [
    (E.conv2d, (1, 4, 5, 5), (8, 4, 3), {}, "expected stride to be a single integer value or a list of 1 values to "
     "match the convolution dimensions, but got stride=[1, 1]"),
    (E.conv1d, (1, 4, 5), (8, 4, 3, 3), {}, "Expected 4-dimensional input for 4-dimensional weight [8, 4, 3, 3], but "
     "got 3-dimensional input of size [1, 4, 5] instead"),
    (E.conv2d, (1, 4, 5, 5), (6, 2, 3), {"padding": "same"}, "Expected 3-dimensional input for 3-dimensional "
     "weight[6, 2, 3], but got 4-dimensional input of size [1, 4, 5, 5] instead"),
    (E.conv1d, (2, 4, 7), (6, 2, 3), {"padding": "same", "stride": 2},
     "padding='same' is not supported for strided convolutions"),
    (E.conv_transpose1d, (1, 4, 5), (4, 3, 3), {"stride": 2, "output_padding": 2},
     "output padding must be smaller than either stride or dilation, but got output_padding_height: 0 "
     "output_padding_width: 2 stride_height: 1 stride_width: 2 dilation_height: 1 dilation_width: 1"),
])
def test_misranked_weights_and_argument_order_errors_are_pytorchs(fn, x, w, kw, msg):
    """ATen takes a convolution's dims from its weight; 'same' with a stride is refused before the channels."""
    with pytest.raises(RuntimeError) as info:
        fn(E.zeros(*x), E.zeros(*w), **kw)
    assert str(info.value) == msg


def test_batched_3d_convolutions_answer_channels_last_3d_for_a_channels_last_3d_operand():
    """PyTorch's CPU conv3d/conv_transpose3d keep a channels_last_3d input's or weight's layout (the values
    unchanged) where they take the mkldnn path; an unbatched call answers row-major."""
    rng = np.random.default_rng(0)
    x = E.tensor(rng.standard_normal((2, 4, 3, 4, 5)).astype(np.float32))
    w = E.tensor(rng.standard_normal((6, 4, 3, 3, 3)).astype(np.float32))
    wt = E.tensor(rng.standard_normal((4, 6, 2, 2, 2)).astype(np.float32))
    cl = E.channels_last_3d
    for fn, weight in [(C.conv3d, w), (C.conv_transpose3d, wt)]:
        ref = fn(x, weight, stride=1, padding=1)
        for xi, wi in [(x.contiguous(memory_format=cl), weight), (x, weight.contiguous(memory_format=cl))]:
            out = fn(xi, wi, stride=1, padding=1)
            assert out.is_contiguous(memory_format=cl) and not out.is_contiguous()
            np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
        unbatched = fn(x[0], weight.contiguous(memory_format=cl), stride=1, padding=1)
        assert unbatched.is_contiguous()
        # PyTorch's slow path (float64, or one image with a small kernel and one group) answers row-major
        assert fn(x.double().contiguous(memory_format=cl), weight.double(), stride=1, padding=1).is_contiguous()
        assert fn(x[:1].contiguous(memory_format=cl), weight, stride=1, padding=1).is_contiguous()
        assert fn(x[:1].contiguous(memory_format=cl), weight[:4, :1] if fn is C.conv3d else weight[:, :1],
                  stride=1, padding=1, groups=4).is_contiguous(memory_format=cl)


def test_conv3d_gives_size_one_dims_row_major_strides():
    """One output channel or one output depth: PyTorch's strides (the depth-tap permute's would show)."""
    x = E.zeros(1, 2, 3, 4, 5)
    assert C.conv3d(x, E.zeros(1, 2, 1, 1, 1)).stride() == (60, 60, 20, 5, 1)
    assert C.conv3d(x, E.zeros(4, 2, 3, 3, 3), stride=(1, 4, 5)).stride() == (4, 1, 1, 1, 1)
