"""interpolate (nearest, nearest-exact, linear/bilinear with and without align_corners) against
float64 loop references of PyTorch's source-index formulas; its backward by central differences."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import upsample as U


def T(a):
    return E.from_numpy(np.array(a))


def src_linear(o, n_in, n_out, align_corners, scale):
    if align_corners:
        return o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    ratio = 1 / scale if scale else n_in / n_out
    return max((o + 0.5) * ratio - 0.5, 0.0)


def ref_resize_1d(row, n_out, mode, align_corners, scale):
    n_in = len(row)
    out = np.zeros(n_out)
    ratio = 1 / scale if scale else n_in / n_out
    for o in range(n_out):
        if mode == "nearest":
            out[o] = row[min(int(math.floor(o * ratio)), n_in - 1)]
        elif mode == "nearest-exact":
            out[o] = row[min(int(math.floor((o + 0.5) * ratio)), n_in - 1)]
        else:
            s = src_linear(o, n_in, n_out, align_corners, scale)
            i0 = min(int(math.floor(s)), n_in - 1)
            i1 = min(i0 + 1, n_in - 1)
            lam = s - i0
            out[o] = (1 - lam) * row[i0] + lam * row[i1]
    return out


def ref_resize(x, size, mode, align_corners, scales):
    """Separable: resize the last dims one at a time (PyTorch's bilinear is the product of linears)."""
    for k, n_out in enumerate(size):
        d = x.ndim - len(size) + k
        x = np.apply_along_axis(ref_resize_1d, d, x, n_out, mode, align_corners, scales[k] if scales else None)
    return x


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["nearest", "nearest-exact", "bilinear"]), st.tuples(st.integers(1, 5), st.integers(1, 5)),
       st.one_of(st.tuples(st.integers(1, 9), st.integers(1, 9)), st.sampled_from([0.5, 1.5, 2.0, 3.0])),
       st.booleans())
def test_interpolate_2d_matches_reference_and_backward(mode, hw, target, align_corners):
    x = np.random.default_rng(0).standard_normal((2, 3, *hw))
    ac = align_corners if mode == "bilinear" else None
    if isinstance(target, tuple):
        got = E.interpolate(T(x), size=target, mode=mode, align_corners=ac)
        size, scales = target, None
    else:
        size = tuple(int(math.floor(n * target)) for n in hw)
        if min(size) < 1:
            return
        got = E.interpolate(T(x), scale_factor=target, mode=mode, align_corners=ac)
        scales = (target, target)
    want = ref_resize(x, size, mode, bool(ac), scales)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(1).standard_normal(want.shape)
    gi = U.upsample_backward(T(g), x.shape, mode, bool(ac), scales).numpy()
    rng = np.random.default_rng(2)
    for _ in range(3):
        v = rng.standard_normal(x.shape)
        jv = (ref_resize(x + 1e-6 * v, size, mode, bool(ac), scales)
              - ref_resize(x - 1e-6 * v, size, mode, bool(ac), scales)) / 2e-6
        assert np.isclose(np.sum(gi * v), np.sum(g * jv), rtol=1e-6, atol=1e-8)


def test_interpolate_linear_1d_and_recompute_scale_factor():
    x = np.random.default_rng(3).standard_normal((1, 2, 5))
    got = E.interpolate(T(x), scale_factor=1.7, mode="linear", recompute_scale_factor=True)
    np.testing.assert_allclose(got.numpy(), ref_resize(x, (8,), "linear", False, None), atol=1e-12)
    got = E.interpolate(T(x), size=9, mode="linear", align_corners=True)
    np.testing.assert_allclose(got.numpy()[..., ::2], x, atol=1e-12)


def test_interpolate_errors():
    x = E.zeros(1, 1, 4, 4)
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        E.interpolate(x, size=2, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        E.interpolate(x)
    with pytest.raises(ValueError, match="align_corners option can only be set with the interpolating modes"):
        E.interpolate(x, size=2, align_corners=True)
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D input"):
        E.interpolate(E.zeros(1, 1, 4), size=2, mode="bilinear")


def test_interpolate_checks_in_pytorchs_order():
    # align_corners before size/scale_factor; a size tuple's length before the input's rank
    with pytest.raises(ValueError, match="^align_corners option can only be set"):
        E.interpolate(E.zeros(1, 1, 4, 4), size=2, scale_factor=2, mode="area", align_corners=True)
    with pytest.raises(ValueError, match=r"^Input and output must have the same number of spatial dimensions, but "
                                         r"got input with spatial dimensions of \[\] and output size of \(8, 8\)"):
        E.interpolate(E.zeros(2, 2), size=(8, 8), mode="bilinear")
    with pytest.raises(NotImplementedError, match=r"^Input Error: Only 3D, 4D and 5D input Tensors supported \(got "
                                                  r"2D\) for the modes: .* \| lanczos \| area \| nearest-exact "
                                                  r"\(got nearest\)$"):
        E.interpolate(E.zeros(2, 2), size=8)
    with pytest.raises(ValueError, match="^recompute_scale_factor is not meaningful with an explicit size.$"):
        E.interpolate(E.zeros(1, 1, 4, 4), size=2, recompute_scale_factor=True)
    with pytest.raises(NotImplementedError, match=r"\(got 3D\) .* \(got bicubic\)$"):
        E.interpolate(E.zeros(1, 1, 4), size=2, mode="bicubic")


def test_pixel_shuffle_matches_reference_and_unshuffle_inverts_it():
    x = np.random.default_rng(4).standard_normal((2, 8, 3, 5))
    got = E.pixel_shuffle(T(x), 2).numpy()
    want = np.zeros((2, 2, 6, 10))
    for c in range(2):
        for i in range(2):
            for j in range(2):
                want[:, c, i::2, j::2] = x[:, c * 4 + i * 2 + j]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(E.pixel_unshuffle(T(got), 2).numpy(), x)
    assert E.pixel_shuffle(T(x[0]), 2).shape == (2, 6, 10)
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        E.pixel_shuffle(T(x), 3)
    with pytest.raises(RuntimeError, match="^pixel_shuffle expects a positive upscale_factor, but got 0$"):
        E.pixel_shuffle(T(x), 0)
    with pytest.raises(RuntimeError, match=r"^pixel_unshuffle expects height to be divisible by downscale_factor, "
                                         r"but input.size\(-2\)=3 is not divisible by 2$"):
        E.pixel_unshuffle(T(x), 2)
    with pytest.raises(RuntimeError, match=r"^pixel_unshuffle expects width to be divisible by downscale_factor, "
                                         r"but input.size\(-1\)=5 is not divisible by 3$"):
        E.pixel_unshuffle(E.zeros(1, 1, 3, 5), 3)


@pytest.mark.parametrize("factor", [2.0, True, "2"])
def test_pixel_shuffle_factor_must_be_an_int(factor):
    """A float, bool or str factor is PyTorch's parser TypeError, not a silent int(); a numpy int is accepted."""
    x = E.zeros(1, 4, 2, 2)
    name = type(factor).__name__
    with pytest.raises(TypeError, match=rf"^pixel_shuffle\(\): argument 'upscale_factor' \(position 2\) must be int, "
                                        rf"not {name}$"):
        E.pixel_shuffle(x, factor)
    with pytest.raises(TypeError, match=rf"^pixel_unshuffle\(\): argument 'downscale_factor' \(position 2\) must be "
                                        rf"int, not {name}$"):
        E.pixel_unshuffle(x, factor)
    assert E.pixel_shuffle(x, np.int64(2)).shape == (1, 1, 4, 4)


def test_area_mode_is_adaptive_average_pooling():
    x = np.random.default_rng(5).standard_normal((1, 2, 6, 4))
    np.testing.assert_allclose(E.interpolate(T(x), size=(3, 2), mode="area").numpy(),
                               x.reshape(1, 2, 3, 2, 2, 2).mean((3, 5)), rtol=1e-12)
    np.testing.assert_allclose(E.interpolate(T(x[:, :, 0]), scale_factor=0.5, mode="area").numpy(),
                               x[:, :, 0].reshape(1, 2, 2, 2).mean(-1), rtol=1e-12)


def test_uint8_nearest_interpolation_copies_bytes_as_pytorch():
    x = E.tensor([[[[1, 200], [30, 255]]]], dtype=E.uint8)
    got = E.interpolate(x, size=(3, 5))
    assert got.dtype is E.uint8
    assert got.tolist() == [[[[1, 1, 1, 200, 200], [1, 1, 1, 200, 200], [30, 30, 30, 255, 255]]]]
    assert E.interpolate(E.tensor([[[1, 200, 30]]], dtype=E.uint8), size=5, mode="nearest-exact").tolist() == \
        [[[1, 1, 200, 30, 30]]]


@pytest.mark.parametrize(("shape", "mode", "kernel"), [
    ((1, 2, 3), "nearest", "compute_indices_weights_nearest"),
    ((1, 2, 3), "linear", "compute_indices_weights_linear"),
    ((1, 2, 3, 3), "nearest", "upsample_nearest2d_channels_last"),
    ((1, 2, 3, 3), "nearest-exact", "upsample_nearest2d_channels_last"),
    ((1, 2, 3, 3), "bilinear", "upsample_bilinear2d_channels_last"),
    ((1, 2, 3, 3, 3), "nearest", "compute_indices_weights_nearest"),
    ((1, 2, 3, 3, 3), "trilinear", "compute_indices_weights_linear"),
    ((1, 2, 3, 3), "area", "adaptive_avg_pool2d"),
    ((1, 2, 3, 3, 3), "area", "adaptive_avg_pool3d_cpu")])
def test_interpolate_refuses_what_pytorch_refuses(shape, mode, kernel):
    for dtype, name in ((E.int64, "Long"), (E.bool, "Bool"), (E.complex64, "ComplexFloat")):
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{name}'$"):
            E.interpolate(E.ones(shape, dtype=dtype), scale_factor=2, mode=mode)
    if mode in ("linear", "trilinear"):  # uint8 refuses these too
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Byte'"):
            E.interpolate(E.ones(shape, dtype=E.uint8), scale_factor=2, mode=mode)


def test_uint8_bilinear_is_pytorchs_fixed_point_resize():
    # two passes (width, then height), each a two-tap int16-weighted sum rounded to a byte: values
    # hard-coded from torch 2.13 (float bilinear then rounding would give 118.125 -> 118 but 43.5 -> 44 too)
    x = E.tensor([[[[0, 255, 10], [200, 3, 77]]]], dtype=E.uint8)
    got = E.interpolate(x, size=(3, 4), mode="bilinear")
    assert got.dtype is E.uint8
    assert got.tolist() == [[[[0, 159, 163, 10], [100, 118, 97, 44], [200, 77, 31, 77]]]]
    assert E.interpolate(x, size=(3, 4), mode="bilinear", align_corners=True).tolist() == \
        [[[[0, 170, 173, 10], [100, 120, 101, 44], [200, 69, 28, 77]]]]
    assert E.interpolate(x, scale_factor=1, mode="bilinear").tolist() == x.tolist()  # no pass: the input


def test_uint8_bicubic_and_antialias_are_pytorchs_fixed_point_resizes():
    # values from torch 2.13: plain bicubic clamps its four taps into the input (as the float kernel) and
    # saturates; antialiasing stretches the filter over every covered pixel (float bicubic aa gives 94.6 -> 94)
    x = E.tensor([[[[0, 255, 10], [200, 3, 77]]]], dtype=E.uint8)
    assert E.interpolate(x, size=(3, 4), mode="bicubic").tolist() == \
        [[[[0, 201, 211, 0], [107, 128, 102, 41], [233, 55, 0, 89]]]]
    assert E.interpolate(x, size=(3, 4), mode="bicubic", align_corners=True).tolist() == \
        [[[[0, 202, 206, 10], [100, 130, 105, 44], [200, 57, 4, 77]]]]
    y = E.tensor([[[[0, 255, 10, 90, 30, 250], [200, 3, 77, 128, 64, 1], [9, 99, 199, 255, 0, 44],
                    [5, 6, 7, 8, 9, 10]]]], dtype=E.uint8)
    assert E.interpolate(y, size=(2, 3), mode="bilinear", antialias=True).tolist() == \
        [[[[100, 94, 85], [49, 94, 34]]]]
    got = E.interpolate(y, size=(3, 2), mode="bicubic", antialias=True)
    assert got.dtype is E.uint8
    assert got.tolist() == [[[[94, 93], [111, 86], [36, 35]]]]



@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_uint8_interpolation_of_channels_last_stays_channels_last(mode):
    x = E.arange(90, dtype=E.uint8).reshape(1, 3, 5, 6).contiguous(memory_format=E.channels_last)
    got = E.interpolate(x, size=(4, 8), mode=mode)
    assert got.stride() == (96, 1, 24, 3)
    assert got.tolist() == E.interpolate(x.contiguous(), size=(4, 8), mode=mode).tolist()


@pytest.mark.torch
@pytest.mark.parametrize(("mode", "antialias"), [("bilinear", False), ("bilinear", True), ("bicubic", False),
                                                 ("bicubic", True)])
def test_uint8_resizes_match_pytorch_to_the_byte(mode, antialias):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for _ in range(200):
        c, h, w = int(rng.choice([1, 3, 4])), *(int(v) for v in rng.integers(1, 10, size=2))
        x = rng.integers(0, 256, size=(2, c, h, w), dtype=np.uint8)
        ac = bool(rng.integers(2))
        kw = {"size": tuple(int(v) for v in rng.integers(1, 20, size=2))} if rng.integers(2) else \
            {"scale_factor": tuple(float(v) for v in rng.choice([0.5, 0.75, 1.3, 2.0, 2.5], size=2))}
        try:
            want = torch.nn.functional.interpolate(torch.tensor(x), mode=mode, align_corners=ac, antialias=antialias,
                                                   **kw)
        except RuntimeError:  # PyTorch's own internal asserts on some downscales to one pixel
            continue
        got = E.interpolate(E.tensor(x), mode=mode, align_corners=ac, antialias=antialias, **kw)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def _cubic_ref(x, a):
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def ref_bicubic_1d(row, n_out, align_corners, scale):
    """PyTorch's bicubic along one dim: four taps around floor(src), clamped into the row, A = -0.75."""
    n_in = len(row)
    out = np.zeros(n_out)
    for o in range(n_out):
        if align_corners:
            s = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            s = (o + 0.5) * (1 / scale if scale else n_in / n_out) - 0.5  # not clamped at 0, unlike linear
        i = math.floor(s)
        t = s - i
        w = [_cubic_ref(t + 1, -0.75), _cubic_ref(t, -0.75), _cubic_ref(1 - t, -0.75), _cubic_ref(2 - t, -0.75)]
        out[o] = sum(w[k] * row[min(max(i - 1 + k, 0), n_in - 1)] for k in range(4))
    return out


def ref_antialias_1d(row, n_out, mode, align_corners):
    """PyTorch's antialiased resize along one dim: the filter (triangle, or a = -0.5 cubic) widened by the
    downscale factor, over the pixels in its support, normalised."""
    n_in = len(row)
    step = ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0) if align_corners else n_in / n_out
    support = (1.0 if mode == "bilinear" else 2.0) * max(step, 1.0)
    inv = 1 / step if step >= 1 else 1.0
    out = np.zeros(n_out)
    for o in range(n_out):
        c = step * (o + 0.5)
        lo = max(int(c - support + 0.5), 0)
        hi = min(int(c + support + 0.5), n_in)
        ws = [max(1 - abs((j - c + 0.5) * inv), 0.0) if mode == "bilinear" else _cubic_ref((j - c + 0.5) * inv, -0.5)
              for j in range(lo, hi)]
        out[o] = sum(w * row[j] for w, j in zip(ws, range(lo, hi))) / sum(ws)
    return out


@pytest.mark.parametrize("hw, size, align_corners", [((5, 7), (9, 4), False), ((6, 6), (10, 10), True),
                                                     ((8, 9), (4, 4), False), ((3, 4), (1, 7), True)])
def test_bicubic_matches_reference_and_backward(hw, size, align_corners):
    x = np.random.default_rng(4).standard_normal((2, 3, *hw))

    def ref(a):
        for d, n in zip((2, 3), size):
            a = np.apply_along_axis(ref_bicubic_1d, d, a, n, align_corners, None)
        return a

    got = E.interpolate(T(x), size=size, mode="bicubic", align_corners=align_corners)
    np.testing.assert_allclose(got.numpy(), ref(x), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(5).standard_normal(got.shape)
    gi = U.upsample_backward(T(g), x.shape, "bicubic", align_corners, None).numpy()
    v = np.random.default_rng(6).standard_normal(x.shape)
    jv = (ref(x + 1e-6 * v) - ref(x - 1e-6 * v)) / 2e-6
    assert np.isclose(np.sum(gi * v), np.sum(g * jv), rtol=1e-6)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("hw, size, align_corners", [((9, 11), (4, 5), False), ((10, 7), (3, 4), True),
                                                     ((5, 6), (10, 3), False)])
def test_antialias_matches_reference_and_backward(mode, hw, size, align_corners):
    x = np.random.default_rng(7).standard_normal((1, 2, *hw))

    def ref(a):
        for d, n in zip((2, 3), size):
            a = np.apply_along_axis(ref_antialias_1d, d, a, n, mode, align_corners)
        return a

    got = E.interpolate(T(x), size=size, mode=mode, align_corners=align_corners, antialias=True)
    np.testing.assert_allclose(got.numpy(), ref(x), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(8).standard_normal(got.shape)
    gi = U.upsample_backward(T(g), x.shape, mode + "-aa", align_corners, None).numpy()
    v = np.random.default_rng(9).standard_normal(x.shape)
    jv = (ref(x + 1e-6 * v) - ref(x - 1e-6 * v)) / 2e-6
    assert np.isclose(np.sum(gi * v), np.sum(g * jv), rtol=1e-6)


def test_bicubic_and_antialias_errors_as_pytorch():
    with pytest.raises(NotImplementedError, match=r"Only 3D, 4D and 5D input Tensors supported \(got 3D\).*"
                                                  r"\(got bicubic\)"):
        E.interpolate(E.zeros(1, 2, 3), scale_factor=2, mode="bicubic")
    with pytest.raises(ValueError, match="Anti-alias option is restricted to bilinear, bicubic, and lanczos modes"):
        E.interpolate(E.zeros(1, 2, 3, 3), scale_factor=2, mode="nearest", antialias=True)
    with pytest.raises(NotImplementedError, match="\"compute_indices_weights_cubic\" not implemented for 'Long'"):
        E.interpolate(E.ones(1, 2, 3, 3, dtype=E.int64), scale_factor=2, mode="bicubic")
    with pytest.raises(NotImplementedError, match="\"compute_index_ranges_weights\" not implemented for 'Long'"):
        E.interpolate(E.ones(1, 2, 3, 3, dtype=E.int64), scale_factor=2, mode="bilinear", antialias=True)


@pytest.mark.torch
def test_bicubic_and_antialias_match_pytorch_with_scale_factors():
    torch = pytest.importorskip("torch")
    import ember.autograd as ea

    rng = np.random.default_rng(10)
    for kw in (dict(scale_factor=1.7, mode="bicubic"), dict(scale_factor=(0.3, 0.6), mode="bicubic", antialias=True),
               dict(scale_factor=0.45, mode="bilinear", antialias=True, align_corners=True)):
        x = rng.standard_normal((1, 2, 10, 7)).astype(np.float32)
        t = torch.nn.functional.interpolate(torch.tensor(x, requires_grad=True), **kw)
        ex = ea.tensor(x, requires_grad=True)
        e = ea.interpolate(ex, **kw)
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_deprecated_upsample_names_warn_and_interpolate():
    x = E.arange(4.0).reshape(1, 1, 2, 2)
    for name, want in (("upsample", E.interpolate(x, scale_factor=2)),
                       ("upsample_nearest", E.interpolate(x, scale_factor=2)),
                       ("upsample_bilinear", E.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True))):
        with pytest.warns(UserWarning, match=rf"^`nn.functional.{name}` is deprecated. Use `nn.functional"):
            got = getattr(E, name)(x, scale_factor=2)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_interpolate_errors_show_the_arguments_as_given():
    x = E.zeros(1, 1, 4, 4)
    with pytest.raises(ValueError, match=r"output size of \(3,\)\. Please provide input tensor"):
        E.interpolate(x, size=(3,))
    with pytest.raises(ValueError, match=r"scale_factor of shape \[2.0\]\. Please provide input tensor in \(N, C, "
                                         r"d1, d2, ...,dK\) format and scale_factor in \(s1, s2, ...,sK\) format"):
        E.interpolate(x, scale_factor=[2.0])
    with pytest.raises(NotImplementedError, match=r"^Input Error: Only 3D, 4D and 5D input Tensors supported "
                                                  r"\(got 4D\) for the modes: .* \(got bogus\)$"):
        E.interpolate(x, size=3, mode="bogus")


def test_interpolate_to_an_empty_size_names_the_dims_as_pytorch():
    with pytest.raises(RuntimeError, match=r"^Input and output sizes should be greater than 0, but got input "
                                         r"\(H: 4, W: 4\) output \(H: 2, W: 0\)$"):
        E.interpolate(E.zeros(1, 1, 4, 4), size=(2, 0), mode="bilinear")
    with pytest.raises(RuntimeError, match=r"input \(D: 4, H: 4, W: 4\) output \(D: 0, H: 1, W: 2\)$"):
        E.interpolate(E.zeros(1, 1, 4, 4, 4), size=(0, 1, 2))


def test_source_indices_use_pytorchs_float32_step():
    # nearest_idx's step is a float32 1/scale: with scale 1.3, output 39 reads input 30 (float64 would give 29)
    x = E.arange(40.0).reshape(1, 1, 40)
    got = E.interpolate(x, scale_factor=1.3, mode="nearest")
    assert got.shape == (1, 1, 52) and got[0, 0, 39].item() == 30.0
    assert E.interpolate(x, scale_factor=1.3, mode="nearest-exact")[0, 0, 19].item() == 15.0
    # linear: float32 coordinates for a float32 input, bit for bit the value PyTorch 2.13 prints
    assert E.interpolate(E.arange(16.0).reshape(1, 1, 4, 4), scale_factor=1.5, mode="bilinear")[0, 0, 0, 2].item() \
        == 1.1666667461395264


@pytest.mark.parametrize(("dtype", "name"), [(E.float16, "Half"), (E.bfloat16, "BFloat16")])
def test_antialiased_interpolation_of_half_floats_is_refused_on_the_cpu_as_pytorch(dtype, name):
    with pytest.raises(NotImplementedError, match=f"^\"compute_index_ranges_weights\" not implemented for '{name}'$"):
        E.interpolate(E.ones(1, 2, 5, 6, dtype=dtype), size=(3, 4), mode="bilinear", antialias=True)
    assert E.interpolate(E.ones(1, 2, 5, 6, dtype=dtype), size=(3, 4), mode="bilinear").dtype is dtype


def test_half_float_bicubic_and_bilinear_round_once_as_pytorchs_cpu_kernels():
    # values from torch 2.13: computed in float32 and rounded once (bicubic's weights stored in the input's
    # dtype first, as PyTorch stores them); rounding every product moved bfloat16 bicubic by up to two ulps
    x = E.arange(12.0).reshape(1, 1, 3, 4) * 0.37 - 1.3
    want = {(E.float16, "bicubic"): [-1.3955078125, -0.88720703125, -0.378662109375, -0.7861328125, -0.27783203125,
                                     0.23095703125, 0.2266845703125, 0.73486328125, 1.2431640625, 1.2392578125,
                                     1.748046875, 2.255859375, 1.8486328125, 2.357421875, 2.865234375],
            (E.bfloat16, "bicubic"): [-1.390625, -0.88671875, -0.37890625, -0.78125, -0.2734375, 0.232421875,
                                      0.2265625, 0.73828125, 1.2421875, 1.234375, 1.75, 2.25, 1.84375, 2.359375,
                                      2.859375],
            (E.float16, "bilinear"): [-1.23828125, -0.7451171875, -0.251708984375, -0.646484375, -0.153076171875,
                                      0.34033203125, 0.24169921875, 0.73486328125, 1.228515625, 1.1298828125,
                                      1.623046875, 2.115234375, 1.7216796875, 2.21484375, 2.70703125],
            (E.bfloat16, "bilinear"): [-1.234375, -0.7421875, -0.251953125, -0.64453125, -0.15234375, 0.33984375,
                                       0.2412109375, 0.734375, 1.2265625, 1.125, 1.625, 2.109375, 1.71875, 2.21875,
                                       2.703125]}
    for (dtype, mode), values in want.items():
        got = E.interpolate(x.to(dtype), size=(5, 3), mode=mode, align_corners=False)
        assert got.dtype is dtype
        assert got.to(E.float32).flatten().tolist() == values, (dtype, mode)


def test_interpolate_size_must_hold_integers_in_pytorchs_words():
    x = E.zeros(1, 1, 4, 4, 4)
    with pytest.raises(TypeError, match=r"^expected size to be one of int or Tuple\[int\] or Tuple\[int, int\] or "
                                        r"Tuple\[int, int, int\], but got size with types \[<class 'float'>, "
                                        r"<class 'int'>, <class 'int'>\]$"):
        E.interpolate(x, size=(2.0, 2, 2))
    assert E.interpolate(x, size=(np.int64(2), True, E.tensor(3))).shape == (1, 1, 2, 1, 3)


def test_interpolate_refuses_a_float_size_as_pytorchs_kernel_parser():
    """A scalar float size (`size=D / 2`) is repeated per dim and refused by the kernel's parser, as PyTorch's (an
    adaptive pool's words for 'area'), never truncated; a list is read as ints by its first element."""
    x = E.zeros(1, 1, 4, 4, 4)
    with pytest.raises(TypeError, match=re.escape("upsample_trilinear3d() received an invalid combination of "
                                                  "arguments - got (Tensor, list, bool, NoneType), but expected one "
                                                  "of:\n * (Tensor input, tuple of ints output_size, bool "
                                                  "align_corners, tuple of floats scale_factors)\n      didn't match "
                                                  "because some of the arguments have invalid types: (Tensor, !list of "
                                                  "[float, float, float]!, bool, !NoneType!)")):
        E.interpolate(x, size=2.0, mode="trilinear")
    with pytest.raises(TypeError, match=re.escape("adaptive_avg_pool3d(): argument 'output_size' (position 2) must be "
                                                  "tuple of ints, but found element of type float at pos 0")):
        E.interpolate(x, size=2.0, mode="area")
    with pytest.raises(TypeError, match=re.escape("(Tensor, !tuple of (bool, int)!, !NoneType!)")):
        E.interpolate(x[0], size=(True, 2))
    assert E.interpolate(x[0], size=(2, True)).shape == (1, 4, 2, 1)


def ref_lanczos_1d(row, n_out):
    """Lanczos-3 antialiased resize of one row, written from Pillow's definition: the filter `sinc(x) sinc(x/3)`
    on [-3, 3), stretched by the downscale factor, normalised over the input pixels it covers."""
    n_in = len(row)
    step = n_in / n_out
    stretch = max(step, 1.0)
    out = np.zeros(n_out)
    for o in range(n_out):
        centre = (o + 0.5) * step
        ws = {}
        for i in range(n_in):
            t = (i + 0.5 - centre) / stretch
            if -3.0 <= t < 3.0:
                ws[i] = np.sinc(t) * np.sinc(t / 3.0)
        total = sum(ws.values())
        out[o] = sum(w * row[i] for i, w in ws.items()) / total
    return out


@pytest.mark.parametrize("hw, size", [((9, 11), (4, 5)), ((5, 6), (13, 3)), ((7, 7), (1, 2))])
def test_lanczos_antialias_matches_reference_and_backward(hw, size):
    x = np.random.default_rng(3).standard_normal((1, 2, *hw))

    def ref(a):
        for d, n in zip((2, 3), size):
            a = np.apply_along_axis(ref_lanczos_1d, d, a, n)
        return a

    got = E.interpolate(T(x), size=size, mode="lanczos", antialias=True)
    np.testing.assert_allclose(got.numpy(), ref(x), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(4).standard_normal(got.shape)
    gi = U.upsample_backward(T(g), x.shape, "lanczos-aa", False, None).numpy()
    v = np.random.default_rng(5).standard_normal(x.shape)
    jv = (ref(x + 1e-6 * v) - ref(x - 1e-6 * v)) / 2e-6
    assert np.isclose(np.sum(gi * v), np.sum(g * jv), rtol=1e-6)


def test_lanczos_needs_antialias_and_no_align_corners_and_resizes_uint8_as_pytorch():
    x = E.zeros(1, 1, 4, 4)
    with pytest.raises(ValueError, match="^Lanczos mode requires antialias=True$"):
        E.interpolate(x, scale_factor=0.5, mode="lanczos")
    with pytest.raises(ValueError, match="^Lanczos mode does not support align_corners=True$"):
        E.interpolate(x, scale_factor=0.5, mode="lanczos", antialias=True, align_corners=True)
    with pytest.raises(ValueError, match="^Anti-alias option is restricted to bilinear, bicubic, and lanczos modes"):
        E.interpolate(x[0], scale_factor=0.5, mode="lanczos", antialias=True)
    # torch 2.13's fixed-point bytes
    y = E.tensor([[[[0, 255, 10, 90, 30, 250], [200, 3, 77, 128, 64, 1], [9, 99, 199, 255, 0, 44],
                    [5, 6, 7, 8, 9, 10]]]], dtype=E.uint8)
    assert E.interpolate(y, size=(3, 2), mode="lanczos", antialias=True).tolist() == \
        [[[[88, 89], [119, 88], [38, 40]]]]
    assert E.interpolate(y, size=(5, 9), mode="lanczos", antialias=True).tolist()[0][0][2] == \
        [143, 73, 40, 143, 236, 210, 68, 0, 0]


def test_tensor_size_or_scale_gets_the_kernels_parser_error():
    # PyTorch 2.13: F.interpolate repeats a tensor size/scale per dim; its kernel's parser refuses a list of
    # multi-element tensors (size) or of any tensors (scale) and takes one-element ones as ints
    x = E.ones(1, 1, 4, 4)
    with pytest.raises(TypeError) as info:
        E.interpolate(x, size=E.tensor([3, 4]))
    assert str(info.value) == (
        "upsample_nearest2d() received an invalid combination of arguments - got (Tensor, list, NoneType), but "
        "expected one of:\n * (Tensor input, tuple of ints output_size, tuple of floats scale_factors)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !list of [Tensor, Tensor]!, "
        "!NoneType!)\n * (Tensor input, tuple of ints output_size, float scales_h = None, float scales_w = None, *, "
        "Tensor out = None)\n")
    with pytest.raises(TypeError) as info:
        E.interpolate(E.ones(1, 1, 2, 2, 2), scale_factor=E.tensor(2.0), mode="trilinear")
    assert str(info.value).startswith(
        "upsample_trilinear3d() received an invalid combination of arguments - got (Tensor, NoneType, bool, list), "
        "but expected one of:\n * (Tensor input, tuple of ints output_size, bool align_corners, tuple of floats "
        "scale_factors)\n      didn't match because some of the arguments have invalid types: (Tensor, !NoneType!, "
        "bool, !list of [Tensor, Tensor, Tensor]!)\n")
    with pytest.raises(TypeError, match=r"^adaptive_avg_pool2d\(\): argument 'output_size' \(position 2\) must be "
                                        r"tuple of ints, but found element of type Tensor at pos 0$"):
        E.interpolate(x, size=E.tensor([3, 4]), mode="area")
    assert E.interpolate(x, size=E.tensor(3)).shape == (1, 1, 3, 3)
    assert E.interpolate(x, size=[E.tensor(3), E.tensor(2)]).shape == (1, 1, 3, 2)
    assert E.interpolate(x, scale_factor=E.tensor(2.0), recompute_scale_factor=True).shape == (1, 1, 8, 8)


@pytest.mark.parametrize("x, mode, message", [
    (E.ones(1, 1, 4), "nearest",
     "upsample_nearest1d() received an invalid combination of arguments - got (Tensor, list, NoneType), but expected "
     "one of:\n * (Tensor input, tuple of ints output_size, tuple of floats scale_factors)\n      didn't match because "
     "some of the arguments have invalid types: (Tensor, !list of [float]!, !NoneType!)\n * (Tensor input, tuple of "
     "ints output_size, float scales = None, *, Tensor out = None)\n"),
    (E.ones(1, 1, 4, 4), "bilinear",
     "upsample_bilinear2d() received an invalid combination of arguments - got (Tensor, list, bool, NoneType), but "
     "expected one of:\n * (Tensor input, tuple of ints output_size, bool align_corners, tuple of floats "
     "scale_factors)\n      didn't match because some of the arguments have invalid types: (Tensor, !list of [float, "
     "float]!, bool, !NoneType!)\n * (Tensor input, tuple of ints output_size, bool align_corners, float scales_h = "
     "None, float scales_w = None, *, Tensor out = None)\n"),
    (E.ones(1, 1, 4, 4), "area",
     "adaptive_avg_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type "
     "float at pos 0"),
])
def test_interpolate_refuses_a_float_size_as_its_kernel_ops_parser(x, mode, message):
    """F.interpolate repeats a lone size per dim and hands it to the mode's op, whose parser refuses a float (not
    truncated): its overloads listed, or adaptive_avg_pool's words for "area"."""
    with pytest.raises(TypeError) as e:
        E.interpolate(x, size=3.0, mode=mode)
    assert str(e.value) == message
    assert E.interpolate(x, size=E.tensor(3), mode=mode).shape[2:] == (3,) * (x.ndim - 2)


def test_16bit_linear_and_trilinear_round_their_weights_as_pytorch():
    # NOTE [ 16-bit linear weights ]: PyTorch 2.13's outputs (float32 weights gave -0.11474609 and 1.078125 at
    # positions 4 and 9 in bfloat16, 0.07733154 and -0.00971985 at 8 and 13 in float16)
    x = (E.arange(9.0) * 0.37 - 1).reshape(1, 1, 9).to(E.bfloat16)
    got = E.interpolate(x, size=14, mode="linear")
    assert got.dtype is E.bfloat16
    assert got.float().flatten().tolist() == [-1.0, -0.828125, -0.58984375, -0.3515625, -0.115234375, 0.123046875,
                                               0.361328125, 0.6015625, 0.83984375, 1.0703125, 1.3125, 1.5546875,
                                               1.7890625, 1.9609375]
    x3 = (E.arange(8.0) * 0.37 - 1).reshape(1, 1, 2, 2, 2).to(E.float16)
    got = E.interpolate(x3, scale_factor=1.7, mode="trilinear").float().flatten().tolist()
    assert got[8] == 0.07745361328125 and got[13] == -0.009796142578125
