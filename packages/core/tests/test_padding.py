"""pad (constant/reflect/replicate/circular) against numpy.pad; its backward against central
differences; negative (cropping) constant pads and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import padding as P

NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def T(a):
    return E.from_numpy(np.array(a))


def np_pad(x, pad, mode, value=0.0):
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode == "constant":
        return np.pad(x, widths, constant_values=value)
    return np.pad(x, widths, mode=NP_MODE[mode])


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["constant", "reflect", "replicate", "circular"]), st.integers(1, 3),
       st.lists(st.integers(0, 2), min_size=2, max_size=6))
def test_pad_matches_numpy_and_backward(mode, nd, pads):
    pads = tuple(pads[:2 * nd]) + (0,) * max(0, 2 * nd - len(pads))
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)[-(nd + 1):])
    value = 1.5 if mode == "constant" else None
    got = E.pad(T(x), pads, mode, value)
    want = np_pad(x, pads, mode, value or 0.0)
    np.testing.assert_array_equal(got.numpy(), want)
    g = np.random.default_rng(1).standard_normal(want.shape)
    gi = P.pad_nd_backward(T(g), x.shape, pads, mode).numpy()
    rng = np.random.default_rng(2)
    for _ in range(3):
        v = rng.standard_normal(x.shape)
        jv = (np_pad(x + 1e-6 * v, pads, mode, value or 0.0) - np_pad(x - 1e-6 * v, pads, mode, value or 0.0)) / 2e-6
        assert np.isclose(np.sum(gi * v), np.sum(g * jv), rtol=1e-6, atol=1e-8)


def test_negative_constant_padding_crops_and_its_backward_zero_fills():
    x = np.arange(20.0).reshape(4, 5)
    got = E.pad(T(x), (-1, 2, 0, -2))
    np.testing.assert_array_equal(got.numpy(), np.pad(x[:2, 1:], ((0, 0), (0, 2))))
    g = np.ones(got.shape)
    gi = P.pad_nd_backward(T(g), x.shape, (-1, 2, 0, -2), "constant").numpy()
    want = np.zeros_like(x)
    want[:2, 1:] = 1
    np.testing.assert_array_equal(gi, want)


@pytest.mark.parametrize("pads", [(-5, 1), (-5, 6), (-2, -3), (0, 0, -4, 2)])
def test_negative_constant_pad_cropping_past_the_input_fails_in_narrow(pads):
    # PyTorch crops with narrow before it pads, so a positive pad on the other side does not rescue it
    with pytest.raises(RuntimeError, match=r"^narrow\(\): length must be non-negative.$"):
        E.pad(E.zeros(1, 3, 4), pads)
    assert E.pad(E.zeros(1, 3, 4), (-4, 0)).shape == (1, 3, 0)


@pytest.mark.parametrize("shape, pads, message", [
    ((1, 3, 4), (4, 0), "Argument #4: Padding size should be less than the corresponding input dimension, "
                        "but got: padding (4, 0) at dimension 2 of input [1, 3, 4]"),
    ((1, 3, 4), (0, 0, 3, 0), "Argument #6: Padding size should be less than the corresponding input dimension, "
                              "but got: padding (3, 0) at dimension 1 of input [1, 3, 4]"),
    ((1, 2, 3, 4), (0, 0, 0, 0, 2, 0), "Argument #8: Padding size should be less than the corresponding input "
                                       "dimension, but got: padding (2, 0) at dimension 1 of input [1, 2, 3, 4]")])
def test_reflect_pad_too_large_names_the_argument_of_its_dim(shape, pads, message):
    with pytest.raises(RuntimeError) as info:
        E.pad(E.zeros(*shape), pads, mode="reflect")
    assert str(info.value) == message


def test_pad_keeps_dtype_and_validates():
    assert E.pad(E.tensor([[1, 2]]), (1, 1), value=7).tolist() == [[7, 1, 2, 7]]
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        E.pad(E.zeros(3), (1,))
    with pytest.raises(RuntimeError, match=r"Padding size should be less than the corresponding input dimension, "
                                           r"but got: padding \(3, 3\) at dimension 2 of input \[1, 1, 3\]"):
        E.pad(E.zeros(1, 1, 3), (3, 3), mode="reflect")
    with pytest.raises(NotImplementedError, match="^Unrecognised padding mode wrap$"):
        E.pad(E.zeros(1, 3), (1, 1), mode="wrap")
    # PyTorch pads n dims of an (n + 1)- or (n + 2)-dim input only, in the non-constant modes
    for shape, pads in [((1, 2, 3, 3), (2, 0)), ((2, 3), (1, 1, 1, 1)), ((1,) * 6, (1,) * 8)]:
        with pytest.raises(NotImplementedError, match=rf"^Padding size {len(pads)} is not supported for "
                                                      rf"{len(shape)}D input tensor.\nSupported combinations"):
            E.pad(E.zeros(*shape), pads, mode="replicate")
    assert E.pad(E.zeros(1, 2, 3), (1, 1, 1, 1), mode="reflect").shape == (1, 4, 5)


@pytest.mark.parametrize("mode, pad", [
    ("constant", (1, -1, 0, 0, 2, 1)), ("constant", (-2, 3, 1, -1)), ("constant", (0, 0, 0, 0, 1, 1)),
    ("reflect", (0, 0, 0, 0, 1, 2)), ("replicate", (1, 0, 0, 0, 2, 0)), ("circular", (0, 0, 1, 1, 0, 1)),
])
def test_pad_matches_numpy_and_its_backward_is_the_adjoint(mode, pad):
    """The forward against np.pad (crops first for negative pads); <pad(x), g> == <x, pad_backward(g)>."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5, 4))
    crop = [slice(None)] * x.ndim
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        d, lo, hi = x.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        crop[d] = slice(max(0, -lo), x.shape[d] - max(0, -hi))
        widths[d] = (max(0, lo), max(0, hi))
    np_mode = {"replicate": "edge", "circular": "wrap"}.get(mode, mode)
    kw = {"constant_values": 1.5} if mode == "constant" else {}
    want = np.pad(x[tuple(crop)], widths, mode=np_mode, **kw)
    got = E.pad(E.tensor(x), pad, mode, 1.5 if mode == "constant" else None)
    np.testing.assert_array_equal(got.numpy(), want)
    g = rng.standard_normal(want.shape)
    back = E.pad_nd_backward(E.tensor(g), x.shape, pad, mode).numpy()
    zero_fill = E.pad(E.tensor(x), pad, mode).numpy()
    np.testing.assert_allclose((zero_fill * g).sum(), (x * back).sum(), rtol=1e-12)


@pytest.mark.parametrize("pad", [(-1, 2), (2, -1), (-2, -1), (-3, 5), (-1, 2, 1, -1), (0, 0, -1, 1)])
def test_negative_circular_padding_crops_then_wraps_what_is_left(pad):
    """PyTorch: `pad(arange(6), (-1, 2), "circular")` is `[1, 2, 3, 4, 5, 1, 2]` (np.pad "wrap" of the crop)."""
    x = np.arange(24.0).reshape((1, 2, 12) if len(pad) == 2 else (1, 2, 3, 4))
    crop, widths = [slice(None)] * x.ndim, [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        d, lo, hi = x.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        crop[d] = slice(max(0, -lo), x.shape[d] - max(0, -hi))
        widths[d] = (max(0, lo), max(0, hi))
    want = np.pad(x[tuple(crop)], widths, mode="wrap")
    np.testing.assert_array_equal(E.pad(E.tensor(x), pad, "circular").numpy(), want)


def test_a_value_with_a_non_constant_mode_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="^Padding mode \"reflect\" doesn't take in value argument$"):
        E.pad(E.zeros(1, 2, 3), (1, 1), mode="reflect", value=1.0)
    with pytest.raises(RuntimeError, match="^only one dimension can be inferred$"):
        E.zeros(4).view(-1, -1)
    with pytest.raises(RuntimeError, match="^selected index k out of range$"):
        E.zeros(3).topk(4)


@pytest.mark.parametrize("mode, kernel", [("reflect", "reflection"), ("replicate", "replication")])
def test_reflect_and_replicate_refuse_empty_non_batch_dims_and_bool_inputs(mode, kernel):
    # an empty batch pads; any other empty dim is PyTorch's shape error, checked before the dtype
    assert E.pad(E.zeros(0, 1, 3), (1, 1), mode=mode).shape == (0, 1, 5)
    for shape, pads, ranks in [((2, 0, 2), (1, 1), "2D or 3D"), ((0, 3, 3), (1, 1, 1, 1), "3D or 4D"),
                               ((1, 2, 3, 0), (0, 0, 1, 1), "3D or 4D"), ((1, 0, 2, 2, 2), (1,) * 6, "4D or 5D")]:
        with pytest.raises(RuntimeError) as info:
            E.pad(E.zeros(*shape), pads, mode=mode)
        assert str(info.value) == (f"Expected {ranks} (batch mode) tensor with possibly 0 batch size and other "
                                   f"non-zero dimensions for input, but got: {list(shape)}")
    for nd in (1, 2, 3):
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}_pad{nd}d\" not implemented for 'Bool'$"):
            E.pad(E.ones(*(1, 1) + (3,) * nd, dtype=E.bool), (1, 1) * nd, mode=mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_negative_pads_may_crop_a_2d_dim_to_nothing_but_not_a_1d_one(mode):
    assert E.pad(E.zeros(1, 1, 3, 4), (-4, 0, 0, 0), mode=mode).shape == (1, 1, 3, 0)
    assert E.pad(E.zeros(1, 1, 2, 3, 4), (0, 0, 0, 0, -2, 0), mode=mode).shape == (1, 1, 0, 3, 4)
    with pytest.raises(RuntimeError, match=r"^input \(W: 4\) is too small. Calculated output W: 0$"):
        E.pad(E.zeros(1, 1, 4), (-2, -2), mode=mode)


def test_circular_padding_keeps_an_unpadded_empty_dim():
    assert E.pad(E.zeros(1, 2, 0, 3), (1, 1, 0, 0), mode="circular").shape == (1, 2, 0, 5)


def test_constant_fill_must_fit_the_dtype_as_pytorchs_checked_conversion():
    # the fill is a double: -1 does not wrap into uint8 (as fill_ would), 300.5 does not fit int8
    for dt, value, cname in [(E.uint8, -1, "uint8_t"), (E.uint8, -0.5, "uint8_t"), (E.int8, 300.5, "int8_t"),
                             (E.float16, 1e6, "c10::Half")]:
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {cname} without overflow$"):
            E.pad(E.zeros(1, 3, dtype=dt), (1, 1), value=value)
    assert E.pad(E.tensor([[1, 2]], dtype=E.uint8), (1, 1), value=2.7).tolist() == [[2, 1, 2, 2]]
    assert E.pad(E.tensor([[1, 2]], dtype=E.int8), (1, 0), value=-128).tolist() == [[-128, 1, 2]]


@pytest.mark.parametrize("shape, pad, number, dim", [
    ((1, 2, 3, 4, 5), (5, 0, 0, 0, 0, 0), 4, 4), ((1, 2, 3, 4, 5), (0, 0, 4, 0, 0, 0), 6, 3),
    ((1, 2, 3, 4, 5), (0, 0, 0, 0, 0, 3), 8, 2), ((2, 4, 5), (0, 0, 4, 0), 6, 1)])
def test_reflect_pad_too_wide_names_its_pad_entry_as_pytorch(shape, pad, number, dim):
    """PyTorch's argument number counts the pad's entries from the last dim's (#4), two a dim."""
    x = E.zeros(*shape)
    with pytest.raises(RuntimeError) as info:
        P.pad(x, pad, mode="reflect")
    lo, hi = pad[2 * (len(shape) - 1 - dim)], pad[2 * (len(shape) - 1 - dim) + 1]
    assert str(info.value) == (f"Argument #{number}: Padding size should be less than the corresponding input dimension"
                               f", but got: padding ({lo}, {hi}) at dimension {dim} of input {list(shape)}")


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_negative_reflect_and_replicate_pads_answer_a_dense_tensor(mode):
    a = np.arange(2 * 4 * 5, dtype=np.float32).reshape(1, 2, 4, 5)
    out = P.pad(T(a), (-1, 2, 1, -2), mode=mode)
    want = np_pad(a, (0, 2, 1, 0), mode)[:, :, :3, 1:]
    assert out.is_contiguous() and out.stride() == (36, 18, 6, 1)
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("pad", [(0, -4), (-4, 0), (-2, -2), (2, -4), (-4, 2), (1, -5), (0, 0, 0, -3), (0, 0, -3, 1)])
def test_constant_pad_cropping_past_the_input_fails_in_narrow_as_pytorch(pad):
    # PyTorch's constant_pad_nd narrows by the negative pads before it pads: (2, -4) of 3 columns is refused there
    # even though 3 + 2 - 4 >= 0
    with pytest.raises(RuntimeError, match=r"^narrow\(\): length must be non-negative\.$"):
        E.pad(E.ones(2, 3), pad)


def test_constant_pad_mixing_a_crop_and_a_pad_within_the_input():
    x = E.tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(E.pad(x, (2, -1), value=9.0).numpy(), [[9, 9, 0, 1], [9, 9, 3, 4]])
    np.testing.assert_array_equal(E.pad(x, (-3, 1)).numpy(), [[0], [0]])


def test_circular_crop_to_nothing_is_an_empty_result():
    # PyTorch 2.13: negative circular pads that crop a dim away give an empty dim; a positive pad would wrap
    # around nothing (PyTorch reads memory it never wrote), which ember refuses
    x = E.arange(12.0).reshape(1, 1, 3, 4)
    assert E.pad(x, (-2, -2, 0, 0), mode="circular").shape == (1, 1, 3, 0)
    assert E.pad(x, (0, 0, -2, -1), mode="circular").shape == (1, 1, 0, 4)
    assert E.pad(E.zeros(1, 2, 4), (-3, -1), mode="circular").shape == (1, 2, 0)
    with pytest.raises(RuntimeError, match="circular padding of an empty dim"):
        E.pad(x, (0, 0, -3, 1), mode="circular")


def test_2d_reflect_and_replicate_crops_past_the_input_fail_as_pytorchs_kernels():
    # PyTorch 2.13's 2-D/3-D kernels fail allocating a negative size (the 1-D ones name the dim)
    x = E.arange(12.0).reshape(1, 1, 3, 4)
    with pytest.raises(RuntimeError, match="^numel: integer multiplication overflow$"):
        E.pad(x, (-3, -2, 0, 0), mode="reflect")
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[1, 1, -1, 4\]$"):
        E.pad(x, (0, 0, -2, -2), mode="replicate")
    with pytest.raises(RuntimeError, match=r"^input \(W: 4\) is too small. Calculated output W: -1$"):
        E.pad(E.arange(4.0).reshape(1, 1, 4), (-3, -2), mode="reflect")
