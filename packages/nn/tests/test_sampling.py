"""grid_sample and affine_grid: values against a float64 loop reference, gradients of input and
grid by finite differences, PyTorch's values and gradients, and PyTorch's errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import ember.autograd as E
import ember.nn.functional as F

MODES = ["bilinear", "nearest", "bicubic"]
PADS = ["zeros", "border", "reflection"]


# --- a float64 reference written from the definitions, one point at a time ---------------
def _unnorm(c, n, align):
    return (c + 1) / 2 * (n - 1) if align else ((c + 1) * n - 1) / 2


def _reflect(c, lo2, hi2):
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    c = abs(c - lo)
    flips, extra = math.floor(c / span), c % span
    return extra + lo if flips % 2 == 0 else span - extra + lo


def _padc(c, n, pad, align):
    if pad == "reflection":
        c = _reflect(c, 0, 2 * (n - 1)) if align else _reflect(c, -1, 2 * n - 1)
    if pad != "zeros":
        c = min(max(c, 0.0), n - 1.0)
    return c


def _read(plane, idx):
    return plane[idx] if all(0 <= i < n for i, n in zip(idx, plane.shape)) else 0.0


def _cubic_w(t):
    a = -0.75
    f1 = lambda s: ((a + 2) * s - (a + 3)) * s * s + 1  # noqa: E731
    f2 = lambda s: ((a * s - 5 * a) * s + 8 * a) * s - 4 * a  # noqa: E731
    return [f2(t + 1), f1(t), f1(1 - t), f2(2 - t)]


def ref_grid_sample(x, grid, mode, pad, align):
    n_, c_ = x.shape[:2]
    sp = x.shape[2:]
    nd = len(sp)
    out = np.zeros((n_, c_) + grid.shape[1:-1])
    for n in range(n_):
        for pos in np.ndindex(*grid.shape[1:-1]):
            coords = grid[(n,) + pos][::-1]  # (z,) y, x in the input's dim order
            for c in range(c_):
                plane = x[n, c]
                if mode == "bicubic":
                    iy, ix = (_unnorm(v, s, align) for v, s in zip(coords, sp))
                    y0, x0 = math.floor(iy), math.floor(ix)
                    wy, wx = _cubic_w(iy - y0), _cubic_w(ix - x0)
                    v = 0.0
                    for i, j in itertools.product(range(4), range(4)):
                        yy = int(_padc(y0 - 1 + i, sp[0], pad, align))
                        xx = int(_padc(x0 - 1 + j, sp[1], pad, align))
                        v += wy[i] * wx[j] * _read(plane, (yy, xx))
                    out[(n, c) + pos] = v
                    continue
                src = [_padc(_unnorm(v, s, align), s, pad, align) for v, s in zip(coords, sp)]
                if mode == "nearest":
                    out[(n, c) + pos] = _read(plane, tuple(int(np.rint(s)) for s in src))
                    continue
                lo = [math.floor(s) for s in src]
                v = 0.0
                for bits in itertools.product((0, 1), repeat=nd):
                    w = np.prod([(s - f) if b else (f + 1 - s) for s, f, b in zip(src, lo, bits)])
                    v += w * _read(plane, tuple(f + b for f, b in zip(lo, bits)))
                out[(n, c) + pos] = v
    return out


def _case(nd, seed=0, spread=1.5):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 2) + ((3, 4) if nd == 2 else (2, 3, 4)))
    grid = rng.uniform(-spread, spread, (2,) + ((3, 2) if nd == 2 else (2, 2, 2)) + (nd,))
    return x, grid


@pytest.mark.parametrize(("nd", "mode", "pad", "align"),
                         [(nd, m, p, a) for nd in (2, 3) for m in MODES for p in PADS for a in (False, True)
                          if not (nd == 3 and m == "bicubic")])
def test_grid_sample_matches_the_float64_reference(nd, mode, pad, align):
    x, grid = _case(nd)
    out = F.grid_sample(E.tensor(x), E.tensor(grid), mode=mode, padding_mode=pad, align_corners=align)
    np.testing.assert_allclose(out.numpy(), ref_grid_sample(x, grid, mode, pad, align), atol=1e-12)


def test_grid_sample_float32_keeps_its_dtype():
    x, grid = _case(2)
    out = F.grid_sample(E.tensor(x, dtype=E.float32), E.tensor(grid, dtype=E.float32), align_corners=False)
    assert out.dtype == E.float32
    np.testing.assert_allclose(out.numpy(), ref_grid_sample(x, grid, "bilinear", "zeros", False), atol=1e-5)


def test_empty_batch_and_empty_grid():
    for n, grid_shape in ((0, (0, 2, 2, 2)), (2, (2, 0, 3, 2))):
        x = E.zeros(n, 3, 4, 5, requires_grad=True)
        g = E.zeros(*grid_shape, requires_grad=True)
        out = F.grid_sample(x, g, align_corners=False)
        assert tuple(out.shape) == (n, 3) + grid_shape[1:3]
        out.sum().backward()
        assert tuple(x.grad.shape) == (n, 3, 4, 5) and tuple(g.grad.shape) == grid_shape


def test_taps_outside_the_input_read_nothing_even_next_to_inf():
    x = np.zeros((1, 1, 3, 4))
    x[0, 0, 0, 0] = np.inf  # offset 0: a skipped tap must not multiply it by a zero weight
    grid = np.array([[[[1.1, 1.1], [-1.0, 0.9]]]])
    out = F.grid_sample(E.tensor(x), E.tensor(grid), align_corners=True).numpy()
    np.testing.assert_array_equal(out, np.zeros((1, 1, 1, 2)))


# PyTorch 2.13's CPU values at (NaN, -0.2) and (inf, -0.2) in 2-D, and (NaN, -0.2, 0.1) and (inf, -0.2, 0.1) in 3-D
_NON_FINITE = {
    ("bilinear", "zeros"): [math.nan, math.nan, 0.0, 0.0],
    ("bilinear", "border"): [6.5, 10.5, 33.5, 33.5],
    ("bilinear", "reflection"): [6.5, 6.5, 33.5, 33.5],
    ("nearest", "zeros"): [0.0, 0.0, 0.0, 0.0],
    ("nearest", "border"): [6.0, 10.0, 30.0, 30.0],
    ("nearest", "reflection"): [6.0, 6.0, 30.0, 30.0],
}


@pytest.mark.parametrize("mode,pad", list(_NON_FINITE))
def test_non_finite_coordinates_clamp_as_pytorchs_cpu_kernels(mode, pad):
    # NaN after padding: 0 in 2-D, the far edge in 3-D; under zeros padding only 2-D bilinear gives NaN
    x2, x3 = E.arange(1.0, 21.0).view(1, 1, 4, 5), E.arange(1.0, 61.0).view(1, 1, 3, 4, 5)
    got = []
    for x, rest in ((x2, [-0.2]), (x3, [-0.2, 0.1])):
        for v in (math.nan, math.inf):
            got.append(F.grid_sample(x, E.tensor([[[[v] + rest]]]).view(1, *([1] * (x.ndim - 2)), x.ndim - 2),
                                     mode=mode, padding_mode=pad, align_corners=False).item())
    np.testing.assert_allclose(got, _NON_FINITE[mode, pad], rtol=1e-6)


def test_a_clamped_nan_coordinate_has_a_zero_grid_gradient():
    x = E.arange(1.0, 21.0).view(1, 1, 4, 5).requires_grad_()
    g = E.tensor([[[[math.nan, -0.2]]]], requires_grad=True)
    F.grid_sample(x, g, padding_mode="border", align_corners=False).sum().backward()
    assert g.grad.tolist()[0][0][0][0] == 0.0
    want = np.zeros(20)
    want[[5, 10]] = [0.9, 0.1]  # column 0, row 1.1: rows 1 and 2 (offsets 5 and 10)
    np.testing.assert_allclose(x.grad.numpy().ravel(), want, atol=1e-6)


# PyTorch 2.13's CPU bilinear samples of the inputs below: its 2-D kernel rounds every operation to the half type
_HALF_BILINEAR = {
    "bfloat16": [0.0, -3.828125, -5.3125, -3.234375, -1.2109375, 0.859375, 2.859375, 4.875, 7.0, 5.375, 0.0, 0.0],
    "float16": [0.0, -3.79296875, -5.31640625, -3.267578125, -1.2197265625, 0.82861328125, 2.880859375, 4.921875,
                6.9765625, 5.34375, 0.0, 0.0],
}


@pytest.mark.parametrize("dtype", list(_HALF_BILINEAR))
def test_half_bilinear_rounds_every_operation_as_pytorchs_kernel(dtype):
    dt = getattr(E, dtype)
    x = (E.arange(42.0) * 0.37 - 7).view(1, 1, 6, 7).to(dt)
    g = (E.arange(24.0).view(1, 3, 4, 2) * 0.113 - 1.2).to(dt)
    got = F.grid_sample(x, g, align_corners=False).float().flatten().tolist()
    assert got == _HALF_BILINEAR[dtype]


# PyTorch 2.13's CPU trilinear samples of the inputs below (align_corners False, True): its scalar 3-D kernel
# computes the source index, each corner weight and the sum in the half type
_HALF_TRILINEAR = {
    "bfloat16": ([0.0, -1.828125, -6.4375, -3.109375, 0.2578125, 3.671875, 7.0, 10.375, 13.6875, 9.8125, 2.0625,
                  0.01129150390625],
                 [-3.140625, -5.625, -3.28125, -0.984375, 1.359375, 3.71875, 6.0, 8.3125, 10.625, 12.9375, 13.875,
                  5.15625]),
    "float16": ([0.0, -1.8271484375, -6.40625, -3.068359375, 0.282958984375, 3.625, 6.98046875, 10.34375, 13.6796875,
                 9.6875, 1.95703125, 0.01088714599609375],
                [-3.19140625, -5.61328125, -3.287109375, -0.9638671875, 1.3623046875, 3.69140625, 6.015625, 8.34375,
                 10.6640625, 12.984375, 13.703125, 5.1328125]),
}


@pytest.mark.parametrize("dtype", list(_HALF_TRILINEAR))
def test_half_trilinear_rounds_every_operation_as_pytorchs_3d_kernel(dtype):
    dt = getattr(E, dtype)
    x = (E.arange(60.0) * 0.37 - 7).view(1, 1, 3, 4, 5).to(dt)
    g = (E.arange(36.0).view(1, 2, 2, 3, 3) * 0.071 - 1.2).to(dt)
    for align, want in zip((False, True), _HALF_TRILINEAR[dtype]):
        assert F.grid_sample(x, g, align_corners=align).float().flatten().tolist() == want


def test_identity_affine_grid_samples_the_input_back():
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5))
    theta = E.tensor(np.tile(np.array([[1.0, 0, 0], [0, 1, 0]]), (2, 1, 1)))
    for align in (False, True):
        grid = F.affine_grid(theta, (2, 3, 4, 5), align_corners=align)
        out = F.grid_sample(E.tensor(x), grid, align_corners=align)
        np.testing.assert_allclose(out.numpy(), x, atol=1e-12)


@pytest.mark.parametrize(("nd", "mode", "pad", "align"),
                         [(2, "bilinear", "zeros", False), (2, "bilinear", "reflection", True),
                          (2, "bicubic", "border", False), (2, "bicubic", "reflection", True),
                          (3, "bilinear", "border", True), (3, "bilinear", "reflection", False),
                          (2, "nearest", "zeros", False)])
def test_grid_sample_gradients_of_input_and_grid_by_finite_differences(nd, mode, pad, align):
    x, grid = _case(nd, seed=3, spread=0.9)
    xt, gt = E.tensor(x, requires_grad=True), E.tensor(grid, requires_grad=mode != "nearest")

    def fn(a, g):
        return F.grid_sample(a, g, mode=mode, padding_mode=pad, align_corners=align)

    assert E.gradcheck(fn, (xt, gt))


def test_grid_sample_nearest_has_a_zero_grid_gradient():
    x, grid = _case(2)
    g = E.tensor(grid, requires_grad=True)
    F.grid_sample(E.tensor(x), g, mode="nearest", align_corners=False).sum().backward()
    assert not g.grad.numpy().any()


def test_grid_sample_eikonal_term_reaches_input_and_grid():
    # a penalty on the grid gradient of a sampled field (an eikonal term) is differentiable again: its
    # gradients are its float64 central differences
    x, grid = _case(2)

    def penalty(xa, ga):
        gt = E.tensor(ga, requires_grad=True)
        (gg,) = E.autograd.grad(F.grid_sample(E.tensor(xa, requires_grad=True), gt, align_corners=False).sum(), gt,
                                create_graph=True)
        return (gg * gg).sum()

    xt, gt = E.tensor(x, requires_grad=True), E.tensor(grid, requires_grad=True)
    (gg,) = E.autograd.grad(F.grid_sample(xt, gt, align_corners=False).sum(), gt, create_graph=True)
    (gg * gg).sum().backward()
    for k, arr, got in ((0, x, xt.grad.numpy()), (1, grid, gt.grad.numpy())):
        for i in np.ndindex(arr.shape):
            hi, lo = arr.copy(), arr.copy()
            hi[i] += 1e-6
            lo[i] -= 1e-6
            fd = ((penalty(hi, grid) - penalty(lo, grid)) if k == 0 else (penalty(x, hi) - penalty(x, lo))).item()
            assert abs(fd / 2e-6 - got[i]) < 1e-5 * max(1.0, abs(got[i]))


def test_affine_grid_values():
    theta = np.array([[[0.5, -1.0, 0.25], [2.0, 0.3, -0.1]]])
    for align in (False, True):
        got = F.affine_grid(E.tensor(theta), (1, 1, 3, 4), align_corners=align).numpy()
        xs = np.linspace(-1, 1, 4) * (1 if align else 3 / 4)
        ys = np.linspace(-1, 1, 3) * (1 if align else 2 / 3)
        for i, j in np.ndindex(3, 4):
            np.testing.assert_allclose(got[0, i, j], theta[0] @ np.array([xs[j], ys[i], 1.0]), atol=1e-12)


def test_affine_grid_3d_and_its_gradient():
    theta = E.tensor(np.random.default_rng(2).standard_normal((2, 3, 4)), requires_grad=True)
    grid = F.affine_grid(theta, (2, 1, 2, 3, 4), align_corners=False)
    assert tuple(grid.shape) == (2, 2, 3, 4, 3)
    got = grid.detach().numpy()
    z = np.linspace(-1, 1, 2) / 2
    np.testing.assert_allclose(got[1, 1, 0, 0], theta.detach().numpy()[1] @ np.array([-3 / 4, -2 / 3, z[1], 1.0]))
    assert E.gradcheck(lambda t: F.affine_grid(t, (2, 1, 2, 3, 4), align_corners=True), (theta,))


def test_affine_grid_is_pytorchs_to_the_bit():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for size in [(2, 1, 6, 6, 6), (1, 2, 4, 5, 7), (2, 1, 5, 9), (1, 1, 40, 40)]:
        nd = len(size) - 2
        for dtype in ("float32", "float64"):
            theta = rng.standard_normal((size[0], nd, nd + 1)).astype(dtype)
            for align in (False, True):
                want = torch.nn.functional.affine_grid(torch.from_numpy(theta), size, align_corners=align).numpy()
                np.testing.assert_array_equal(F.affine_grid(E.tensor(theta), size, align_corners=align).numpy(), want)


def test_nearest_sampling_of_an_affine_grid_rounds_the_points_pytorch_rounds():
    # x = 0.9 * -1/3 - 0.1 * 1/3 + 0.1 accumulated by PyTorch 2.13's CPU bmm (fused multiply-adds) lands on the tie
    # 1.5 pixels (rounded term by term it was 1.4999999), which nearest sampling rounds to even: pixel 2, not 1
    theta = E.tensor([[[0.9, -0.1, 0.0, 0.1], [0.1, 0.9, 0.0, 0.0], [0.0, 0.0, 1.0, -0.2]]])
    grid = F.affine_grid(theta, (1, 1, 6, 6, 6), align_corners=False)
    assert ((grid[0, 2, 2, 1, 0] + 1) * 6 - 1).item() / 2 == 1.5
    x = E.arange(216, dtype=E.float32).reshape(1, 1, 6, 6, 6)
    got = F.grid_sample(x, grid, mode="nearest", align_corners=False)[0, 0, 2, 2, :2].tolist()
    assert got == [x[0, 0, 1, 2, 1].item(), x[0, 0, 1, 2, 2].item()]


def test_affine_grid_rounds_small_products_term_by_term_and_large_ones_fused():
    """PyTorch's CPU bmm runs under 400 multiply-adds per batch in its own loop (each product and sum rounded),
    a larger product by BLAS (fused multiply-adds): float64 points of both against exact fractions."""
    from fractions import Fraction

    theta = np.array([[[0.7, -0.3, 0.1], [0.2, 1.1, -0.4]]])
    for size, fused in (((1, 1, 5, 9), False), ((1, 1, 12, 12), True)):
        grid = F.affine_grid(E.tensor(theta), size, align_corners=False).numpy().reshape(-1, 2)
        base = F.affine_grid(E.tensor(np.eye(2, 3)[None]), size, align_corners=False).numpy().reshape(-1, 2)
        for (x, y), got in zip(base, grid):
            for i in range(2):
                t0, t1, t2 = theta[0, i]
                acc = x * t0
                acc = float(Fraction(y) * Fraction(t1) + Fraction(acc)) if fused else acc + y * t1
                assert got[i] == acc + t2


def test_float32_coordinates_round_as_pytorchs_kernels():
    # (2 * 2 + 1) / 3 - 1 is 0.6666666 in float32: PyTorch's float32 math puts it on row 2.0 exactly, float64 math
    # on 1.9999999, whose taps (rows 1 and 2) give another grid gradient
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for align, (h, w) in itertools.product((False, True), [(3, 4), (5, 7)]):
        xs, ys = np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32)
        gx = (2 * xs + 1) / np.float32(w) - 1 if not align else xs / np.float32(w - 1) * 2 - 1
        gy = (2 * ys + 1) / np.float32(h) - 1 if not align else ys / np.float32(h - 1) * 2 - 1
        grid = np.stack(np.meshgrid(gx, gy), -1)[None].astype(np.float32)
        img = rng.standard_normal((1, 2, h, w)).astype(np.float32)
        img3, grid3 = img[:, :, None].repeat(2, 2), np.concatenate([grid, grid[..., :1] * 0 + 0.5], -1)[:, None]
        for x, g in ((img, grid), (img3, grid3)):
            tg = torch.tensor(g, requires_grad=True)
            torch.nn.functional.grid_sample(torch.tensor(x), tg, align_corners=align).sum().backward()
            eg = E.tensor(g, requires_grad=True)
            F.grid_sample(E.tensor(x), eg, align_corners=align).sum().backward()
            np.testing.assert_allclose(eg.grad.numpy(), tg.grad.numpy(), atol=1e-5)
            want = torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(g), "nearest", align_corners=align)
            got = F.grid_sample(E.tensor(x), E.tensor(g), mode="nearest", align_corners=align)
            np.testing.assert_array_equal(got.numpy(), want.numpy())


# --- PyTorch's errors ---------------------------------------------------------------------
def test_grid_of_the_wrong_shape_raises_pytorchs_errors():
    x = E.zeros(2, 3, 4, 5)
    with pytest.raises(RuntimeError, match=r"expected grid to have size 2 in last dimension, but got grid with "
                                           r"sizes \[2, 6, 7, 3\]"):
        F.grid_sample(x, E.zeros(2, 6, 7, 3), align_corners=False)
    with pytest.raises(RuntimeError, match="expected grid and input to have same batch size"):
        F.grid_sample(x, E.zeros(3, 6, 7, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="with dimension 2 being empty"):
        F.grid_sample(E.zeros(2, 3, 0, 5), E.zeros(2, 6, 7, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(E.zeros(2, 3, 4, 5, 6), E.zeros(2, 1, 6, 7, 3), mode="bicubic", align_corners=False)
    with pytest.raises(RuntimeError, match=r"expected 4D input and grid with same number of dimensions, but got input "
                                           r"with sizes \[2, 3, 4, 5\] and grid with sizes \[2, 2, 2, 2, 2\]"):
        F.grid_sample(x, E.zeros(2, 2, 2, 2, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        F.grid_sample(x, E.zeros(2, 6, 7, 2, dtype=E.float64), align_corners=False)
    with pytest.raises(RuntimeError, match="^expected scalar type Double but found Long$"):
        F.grid_sample(x.double(), E.zeros(2, 6, 7, 2, dtype=E.int64), align_corners=False)


def test_bad_modes_and_thetas_raise_pytorchs_errors():
    x, g = E.zeros(1, 1, 2, 2), E.zeros(1, 1, 1, 2)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'foo'"):
        F.grid_sample(x, g, mode="foo")
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or 'reflection'"):
        F.grid_sample(x, g, padding_mode="foo")
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(E.zeros(2, 3, 3), (2, 3, 4, 5), align_corners=False)
    with pytest.raises(ValueError, match="Nx3x4"):
        F.affine_grid(E.zeros(2, 2, 3), (2, 3, 4, 5, 6), align_corners=False)
    with pytest.raises(ValueError, match="floating point"):
        F.affine_grid(E.zeros(2, 2, 3, dtype=E.int32), (2, 3, 4, 5), align_corners=False)
    with pytest.raises(NotImplementedError, match="only supports 4D and 5D sizes"):
        F.affine_grid(E.zeros(2, 2, 3), (2, 3, 4), align_corners=False)


def test_affine_grid_of_a_theta_with_another_batch_raises_pytorchs_bmm_error():
    with pytest.raises(RuntimeError, match=r"batch2 tensor to be: \[2, 3\] but got: \[1, 3\]\.$"):
        F.affine_grid(E.zeros(1, 2, 3), (2, 1, 4, 4), align_corners=False)
    with pytest.raises(RuntimeError, match=r"batch2 tensor to be: \[2, 4\] but got: \[3, 4\]\.$"):
        F.affine_grid(E.zeros(3, 3, 4), (2, 1, 2, 2, 2), align_corners=False)


def test_missing_align_corners_warns_as_pytorch():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(E.zeros(1, 1, 2, 2), E.zeros(1, 1, 1, 2))


@pytest.mark.torch
@pytest.mark.parametrize(("nd", "mode", "pad", "align"),
                         [(nd, m, p, a) for nd in (2, 3) for m in MODES for p in PADS for a in (False, True)
                          if not (nd == 3 and m == "bicubic")])
def test_grid_sample_values_and_grads_match_pytorch(nd, mode, pad, align):
    torch = pytest.importorskip("torch")
    x, grid = _case(nd, seed=5, spread=1.7)
    go = np.random.default_rng(6).standard_normal((2, 2) + grid.shape[1:-1])
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    to = torch.nn.functional.grid_sample(tx, tg, mode=mode, padding_mode=pad, align_corners=align)
    to.backward(torch.tensor(go))
    ex, eg = E.tensor(x, requires_grad=True), E.tensor(grid, requires_grad=True)
    eo = F.grid_sample(ex, eg, mode=mode, padding_mode=pad, align_corners=align)
    eo.backward(E.tensor(go))
    np.testing.assert_allclose(eo.detach().numpy(), to.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(eg.grad.numpy(), tg.grad.numpy(), atol=1e-11)


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:Since version 1.3.0")
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 1, 4)])
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_matches_pytorch(size, align):
    torch = pytest.importorskip("torch")
    theta = np.random.default_rng(7).standard_normal((2, 2, 3) if len(size) == 4 else (2, 3, 4))
    want = torch.nn.functional.affine_grid(torch.tensor(theta), size, align_corners=align).numpy()
    np.testing.assert_allclose(F.affine_grid(E.tensor(theta), size, align_corners=align).numpy(), want, atol=1e-12)


@pytest.mark.cuda
@pytest.mark.parametrize(("nd", "mode", "pad", "align"), [(2, "bilinear", "zeros", False),
                                                          (2, "bicubic", "reflection", True),
                                                          (2, "nearest", "border", False),
                                                          (3, "bilinear", "reflection", False),
                                                          (3, "nearest", "zeros", True)])
def test_grid_sample_on_cuda_matches_the_cpu(nd, mode, pad, align):
    if not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    x, grid = _case(nd, seed=8)
    go = np.random.default_rng(9).standard_normal((2, 2) + grid.shape[1:-1])
    results = []
    for dev in ("cpu", "cuda"):
        xt, gt = E.tensor(x, device=dev, requires_grad=True), E.tensor(grid, device=dev, requires_grad=True)
        out = F.grid_sample(xt, gt, mode=mode, padding_mode=pad, align_corners=align)
        out.backward(E.tensor(go, device=dev))
        assert out.device.type == dev
        results.append([out.detach().cpu().numpy(), xt.grad.cpu().numpy(), gt.grad.cpu().numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, atol=1e-12)


@pytest.mark.cuda
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_float32_grids_round_alike_on_cuda_and_the_cpu(mode):
    if not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    h, w = 3, 4
    gx = (2 * np.arange(w, dtype=np.float32) + 1) / np.float32(w) - 1
    gy = (2 * np.arange(h, dtype=np.float32) + 1) / np.float32(h) - 1
    grid = np.stack(np.meshgrid(gx, gy), -1)[None].astype(np.float32)
    x = np.random.default_rng(4).standard_normal((1, 2, h, w)).astype(np.float32)
    results = []
    for dev in ("cpu", "cuda"):
        gt = E.tensor(grid, device=dev, requires_grad=True)
        out = F.grid_sample(E.tensor(x, device=dev), gt, mode=mode, align_corners=False)
        out.sum().backward()
        results.append([out.detach().cpu().numpy(), gt.grad.cpu().numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, atol=1e-5)


@pytest.mark.torch
def test_a_spatial_transformer_trains_with_pytorchs_loss_trajectory():
    """Localization net -> affine_grid -> grid_sample -> MSE to a target, SGD from the same weights."""
    torch = pytest.importorskip("torch")
    import ember.nn as enn
    import ember.optim as eoptim

    rng = np.random.default_rng(11)
    x, target = rng.standard_normal((4, 2, 6, 6)), rng.standard_normal((4, 2, 5, 5))
    w = rng.standard_normal((6, 72)) * 0.05
    b = np.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0])

    def run(lib, nn_mod, optim, tensor):
        loc = nn_mod.Linear(72, 6).double()
        with lib.no_grad():
            loc.weight.copy_(tensor(w))
            loc.bias.copy_(tensor(b))
        opt = optim.SGD(loc.parameters(), lr=0.5)
        fn = nn_mod.functional
        losses = []
        for _ in range(4):
            xt = tensor(x)
            theta = loc(xt.reshape(4, -1)).reshape(4, 2, 3)
            grid = fn.affine_grid(theta, (4, 2, 5, 5), align_corners=False)
            out = fn.grid_sample(xt, grid, mode="bilinear", padding_mode="border", align_corners=False)
            loss = fn.mse_loss(out, tensor(target))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    ours = run(E, enn, eoptim, lambda a: E.tensor(a))
    theirs = run(torch, torch.nn, torch.optim, lambda a: torch.tensor(a))
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    assert ours[-1] < ours[0]


@pytest.mark.parametrize(("shape", "kernel"), [((1, 1, 3, 3), "grid_sampler_2d_cpu_kernel_impl"),
                                               ((1, 1, 3, 3, 3), "grid_sampler3d_cpu")])
def test_grid_sample_refuses_non_floating_input_as_pytorch(shape, kernel):
    # PyTorch dispatches on the input's dtype before it compares the grid's: the kernel's refusal
    grid = E.zeros(1, *(2,) * (len(shape) - 2), len(shape) - 2)
    for dtype, name in ((E.int64, "Long"), (E.uint8, "Byte"), (E.bool, "Bool"), (E.complex64, "ComplexFloat")):
        for g in (grid, grid.to(dtype)):
            with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{name}'$"):
                F.grid_sample(E.ones(shape, dtype=dtype), g, align_corners=False)
    empty = F.grid_sample(E.ones((0, *shape[1:]), dtype=E.int64), grid[:0], align_corners=False)
    assert empty.dtype is E.int64 and tuple(empty.shape) == (0, 1, *grid.shape[1:-1])  # PyTorch returns it


def test_affine_grid_errors_show_the_size_as_given():
    # PyTorch formats the size argument itself: a list prints with brackets, a tuple with parentheses
    theta = E.zeros(1, 3, 3)
    with pytest.raises(ValueError, match=r"^Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                                         r"\[1, 3, 4, 4\]\. Got (torch|ember)\.Size\(\[1, 3, 3\]\)\.$"):
        F.affine_grid(theta, [1, 3, 4, 4], align_corners=False)
    with pytest.raises(ValueError, match=r"for size \(1, 3, 4, 4\)\. Got"):
        F.affine_grid(theta, (1, 3, 4, 4), align_corners=False)
    with pytest.raises(NotImplementedError, match=r"respectively\. Got size \[1, 3, 4\]\.$"):
        F.affine_grid(theta, [1, 3, 4], align_corners=False)


def test_grid_gradient_of_clipped_points_is_pytorchs_signed_zero():
    # PyTorch 2.13's grid gradients: a clipped coordinate's zero factor multiplies the summed gradient (the 3-D
    # kernel's zero carries the reflection's sign; the 2-D kernel's is +0), so -0.0 where the sum is negative
    x = E.tensor([[[[[1., -2.], [3., 0.5]], [[-1., 2.], [0.25, 4.]]]]])
    pts = [[1.2, 0.3, -0.4], [-1.3, -0.2, 0.6], [0.1, 1.4, -1.1]]
    cases = [(x, pts, "reflection", False, [[0.0, 2.45, 3.6], [-0.0, 1.25, 0.0], [-2.5, 0.0, -0.0]]),
             (x, pts, "border", True, [[-0.0, 1.175, 1.8375], [0.0, 0.7, -1.15], [-1.25, -0.0, 0.0]]),
             (x[:, :, 0], [p[:2] for p in pts], "reflection", False, [[0.0, 2.5], [-0.0, 2.0], [-2.5, -0.0]])]
    for inp, p, padding_mode, align, want in cases:
        g = E.tensor(p).reshape((1,) * (inp.dim() - 2) + (3, len(p[0]))).requires_grad_()
        F.grid_sample(inp, g, padding_mode=padding_mode, align_corners=align).sum().backward()
        got = g.grad.reshape(3, -1).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert np.signbit(got).tolist() == np.signbit(np.array(want)).tolist()
