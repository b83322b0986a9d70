"""3-D convolution and pooling (conv3d, conv_transpose3d, max/avg/adaptive pool3d, 5-D interpolate)
against float64 numpy loops over tiny volumes; PyTorch's validation messages."""

import itertools

import numpy as np
import pytest

import ember.core as E


def T(a):
    return E.tensor(np.asarray(a, dtype=np.float64))


def ref_conv3d(x, w, b, stride, padding, dilation, groups):
    """out[n, o, z, y, x] = sum over c and taps of xpad[n, g cg + c, z s + i d, ...] w[o, c, i, j, k], one by one."""
    n, c, *size = x.shape
    o, cg, *k = w.shape
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    out_size = [(s + 2 * p - d * (kk - 1) - 1) // st + 1 for s, p, d, kk, st in zip(size, padding, dilation, k, stride)]
    out = np.zeros((n, o, *out_size))
    og = o // groups
    for b_, oc, *pos in itertools.product(range(n), range(o), *map(range, out_size)):
        g = oc // og
        acc = 0.0
        for ci, *tap in itertools.product(range(cg), *map(range, k)):
            src = [q * st + t * d for q, t, st, d in zip(pos, tap, stride, dilation)]
            acc += xp[(b_, g * cg + ci, *src)] * w[(oc, ci, *tap)]
        out[(b_, oc, *pos)] = acc + (b[oc] if b is not None else 0.0)
    return out


def ref_conv_transpose3d(x, w, b, stride, padding, output_padding, groups, dilation):
    """Scatter definition: every input voxel adds its weighted kernel into the uncropped output."""
    n, c, *size = x.shape
    _, og, *k = w.shape
    full = [(s - 1) * st + d * (kk - 1) + 1 + op for s, st, d, kk, op in zip(size, stride, dilation, k, output_padding)]
    out = np.zeros((n, og * groups, *full))
    cg = c // groups
    for b_, ci, *pos in itertools.product(range(n), range(c), *map(range, size)):
        g = ci // cg
        for oc, *tap in itertools.product(range(og), *map(range, k)):
            dst = [q * st + t * d for q, t, st, d in zip(pos, tap, stride, dilation)]
            out[(b_, g * og + oc, *dst)] += x[(b_, ci, *pos)] * w[(ci, oc, *tap)]
    crop = tuple(slice(p, f - p) for p, f in zip(padding, full))
    out = out[(slice(None), slice(None), *crop)]
    return out + (b.reshape(1, -1, 1, 1, 1) if b is not None else 0.0)


def ref_pool3d(x, k, s, p, d, ceil_mode, kind, count_include_pad=True, divisor=None):
    """Max (value, flat index) or average over every window of `x (N, C, D, H, W)`, one window at a time."""
    n, c, *size = x.shape

    def out_len(L, kk, ss, pp, dd):
        num = L + 2 * pp - dd * (kk - 1) - 1
        o = (-(-num // ss) if ceil_mode else num // ss) + 1
        return o - 1 if ceil_mode and (o - 1) * ss >= L + pp else o

    osz = [out_len(*a) for a in zip(size, k, s, p, d)]
    out, idx = np.zeros((n, c, *osz)), np.zeros((n, c, *osz), dtype=np.int64)
    for b_, ch, *pos in itertools.product(range(n), range(c), *map(range, osz)):
        start = [q * ss - pp for q, ss, pp in zip(pos, s, p)]
        if kind == "max":
            best, arg = -np.inf, -1
            for tap in itertools.product(*map(range, k)):
                src = [a + t * dd for a, t, dd in zip(start, tap, d)]
                if all(0 <= v < L for v, L in zip(src, size)) and x[(b_, ch, *src)] > best:
                    best, arg = x[(b_, ch, *src)], np.ravel_multi_index(src, size)
            out[(b_, ch, *pos)], idx[(b_, ch, *pos)] = best, arg
        else:
            ends = [min(a + kk, L + pp) for a, kk, L, pp in zip(start, k, size, p)]
            lo = [max(a, 0) for a in start]
            hi = [min(e, L) for e, L in zip(ends, size)]
            total = x[(b_, ch, *(slice(a, z) for a, z in zip(lo, hi)))].sum()
            if divisor is not None:
                div = divisor
            elif count_include_pad:
                div = np.prod([e - a for e, a in zip(ends, start)])
            else:
                div = np.prod([z - a for z, a in zip(hi, lo)])
            out[(b_, ch, *pos)] = total / div
    return out, idx


CONV_CASES = [  # stride, padding, dilation, groups
    ((1, 1, 1), (0, 0, 0), (1, 1, 1), 1),
    ((2, 1, 2), (1, 0, 1), (2, 1, 2), 2),
    ((1, 2, 1), (2, 1, 0), (2, 1, 1), 1),
]


@pytest.mark.parametrize("stride, padding, dilation, groups", CONV_CASES)
def test_conv3d_matches_loop_reference(stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 5, 4, 6)), rng.standard_normal((6, 4 // groups, 2, 3, 2))
    b = rng.standard_normal(6)
    got = E.conv3d(T(x), T(w), T(b), stride, padding, dilation, groups)
    np.testing.assert_allclose(got.numpy(), ref_conv3d(x, w, b, stride, padding, dilation, groups), atol=1e-12)


def test_conv3d_same_valid_unbatched_and_float32():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 4, 5, 4)), rng.standard_normal((2, 3, 2, 3, 2))
    same = E.conv3d(T(x), T(w), padding="same", dilation=(1, 2, 1))
    assert same.shape == (2, 4, 5, 4)
    xp = np.pad(x[None], [(0, 0), (0, 0), (0, 1), (2, 2), (0, 1)])  # odd totals put their extra at the end
    np.testing.assert_allclose(same.numpy(), ref_conv3d(xp, w, None, (1,) * 3, (0,) * 3, (1, 2, 1), 1)[0], atol=1e-12)
    assert E.conv3d(T(x), T(w), padding="valid").shape == (2, 3, 3, 3)
    got32 = E.conv3d(E.tensor(x[None], dtype=E.float32), E.tensor(w, dtype=E.float32))
    assert got32.dtype == E.float32
    np.testing.assert_allclose(got32.numpy(), ref_conv3d(x[None], w, None, (1,) * 3, (0,) * 3, (1,) * 3, 1),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride, padding, output_padding, groups, dilation", [
    ((1, 1, 1), (0, 0, 0), (0, 0, 0), 1, (1, 1, 1)),
    ((2, 1, 3), (1, 0, 1), (1, 0, 2), 2, (1, 2, 1)),
    ((3, 2, 1), (2, 1, 0), (0, 1, 1), 1, (2, 1, 2)),
    ((4, 1, 2), (1, 0, 0), (3, 0, 1), 1, (1, 1, 1)),  # depth taps apart: the interleaving path
    ((3, 2, 2), (0, 0, 0), (0, 0, 0), 2, (1, 1, 1)),  # taps exactly tile the depth (an upsampling kernel)
])
def test_conv_transpose3d_matches_scatter_reference(stride, padding, output_padding, groups, dilation):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 4, 3, 2, 3)), rng.standard_normal((4, 6 // groups, 3, 2, 2))
    b = rng.standard_normal(6)
    got = E.conv_transpose3d(T(x), T(w), T(b), stride, padding, output_padding, groups, dilation)
    want = ref_conv_transpose3d(x, w, b, stride, padding, output_padding, groups, dilation)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    np.testing.assert_allclose(E.conv_transpose3d(T(x[0]), T(w), None, stride, padding, output_padding, groups,
                                                  dilation).numpy(), want[0] - b.reshape(-1, 1, 1, 1), atol=1e-12)


def test_convolution_picks_the_rank_and_transposition():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((1, 2, 3, 3, 3)), rng.standard_normal((2, 2, 2, 2, 2))
    np.testing.assert_allclose(E.convolution(T(x), T(w), None, 1, 0, 1, False, 0, 1).numpy(),
                               E.conv3d(T(x), T(w)).numpy())
    np.testing.assert_allclose(E.convolution(T(x), T(w), None, 2, 0, 1, True, 1, 1).numpy(),
                               E.conv_transpose3d(T(x), T(w), stride=2, output_padding=1).numpy())


@pytest.mark.parametrize("call, err, msg", [
    (lambda: E.conv3d(E.ones(3, 4, 4), E.ones(1, 3, 2, 2, 2)), RuntimeError,
     r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv3d, but got input of size: \[3, 4, 4\]"),
    (lambda: E.conv3d(E.ones(1, 3, 4, 4, 4), E.ones(2, 3, 2, 2, 2), groups=2), RuntimeError,
     r"Given groups=2, weight of size \[2, 3, 2, 2, 2\], expected input\[1, 3, 4, 4, 4\] to have 6 channels"),
    (lambda: E.conv3d(E.ones(1, 4, 4, 4, 4), E.ones(3, 2, 2, 2, 2), groups=2), RuntimeError,
     r"Given groups=2, expected weight to be divisible by 2 at dimension 0"),
    (lambda: E.conv3d(E.ones(1, 1, 2, 4, 4), E.ones(1, 1, 3, 2, 2)), RuntimeError,
     r"Calculated padded input size per channel: \(2 x 4 x 4\). Kernel size: \(3 x 2 x 2\). Kernel size can't be "
     r"greater than actual input size"),
    (lambda: E.conv3d(E.ones(1, 1, 4, 4, 4), E.ones(1, 1, 3, 3, 3), stride=2, padding="same"), RuntimeError,
     r"padding='same' is not supported for strided convolutions"),
    (lambda: E.conv3d(E.ones(1, 1, 4, 4, 4), E.ones(1, 1, 3, 3, 3), stride=(1, 2)), RuntimeError,
     r"expected stride to be a single integer value or a list of 3 values"),
    (lambda: E.conv_transpose3d(E.ones(1, 2, 2, 2, 2), E.ones(2, 1, 2, 2, 2), stride=2, output_padding=2),
     RuntimeError, r"output padding must be smaller than either stride or dilation, but got output_padding_depth: 2"),
    (lambda: E.conv_transpose3d(E.ones(1, 3, 2, 2, 2), E.ones(2, 1, 2, 2, 2)), RuntimeError,
     r"Given transposed=1, weight of size \[2, 1, 2, 2, 2\], expected input\[1, 3, 2, 2, 2\] to have 2 channels"),
])
def test_conv3d_bad_input_raises_pytorchs_errors(call, err, msg):
    with pytest.raises(err, match=msg):
        call()


@pytest.mark.parametrize("k, s, p, d, ceil_mode", [
    ((2, 2, 2), (2, 2, 2), (0, 0, 0), (1, 1, 1), False),
    ((3, 2, 3), (2, 1, 2), (1, 1, 1), (1, 2, 1), True),
    ((2, 3, 2), (3, 2, 1), (1, 0, 1), (2, 1, 1), True),
])
def test_max_pool3d_values_and_indices_match_loop_reference(k, s, p, d, ceil_mode):
    x = np.random.default_rng(4).permutation(2 * 3 * 7 * 6 * 5).reshape(2, 3, 7, 6, 5).astype(np.float64)
    out, idx = E.max_pool3d(T(x), k, s, p, d, ceil_mode, return_indices=True)
    want, want_idx = ref_pool3d(x, k, s, p, d, ceil_mode, "max")
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    assert idx.dtype == E.int64
    assert E.max_pool3d(T(x[0]), k, s, p, d, ceil_mode).shape == want.shape[1:]


def test_max_pool3d_ties_keep_the_first_maximum():
    out, idx = E.max_pool3d(E.ones(1, 1, 2, 2, 2), 2, return_indices=True)
    assert idx.tolist() == [[[[[0]]]]]


@pytest.mark.parametrize("k, s, p, ceil_mode, cip, divisor", [
    ((2, 2, 2), (2, 2, 2), (0, 0, 0), False, True, None),
    ((3, 2, 3), (2, 1, 2), (1, 1, 1), True, False, None),
    ((3, 3, 2), (2, 2, 2), (1, 1, 1), True, True, None),
    ((3, 3, 2), (2, 2, 2), (1, 1, 0), True, True, 5),
])
def test_avg_pool3d_matches_loop_reference(k, s, p, ceil_mode, cip, divisor):
    x = np.random.default_rng(5).standard_normal((2, 3, 7, 6, 5))
    got = E.avg_pool3d(T(x), k, s, p, ceil_mode, cip, divisor)
    np.testing.assert_allclose(got.numpy(), ref_pool3d(x, k, s, p, (1, 1, 1), ceil_mode, "avg", cip, divisor)[0],
                               atol=1e-12)


@pytest.mark.parametrize("size", [(1, 1, 1), (3, 4, 2), (7, 6, 5), (4, None, 3)])
def test_adaptive_pool3d_matches_bin_reference(size):
    x = np.random.default_rng(6).permutation(2 * 7 * 6 * 5).reshape(1, 2, 7, 6, 5).astype(np.float64)
    full = tuple(x.shape[2 + i] if v is None else v for i, v in enumerate(size))
    want_avg, want_max = np.zeros((1, 2, *full)), np.zeros((1, 2, *full))
    want_idx = np.zeros((1, 2, *full), dtype=np.int64)
    for pos in itertools.product(*map(range, full)):
        box = tuple(slice((q * L) // o, -((-(q + 1) * L) // o)) for q, L, o in zip(pos, x.shape[2:], full))
        for ch in range(2):
            block = x[(0, ch, *box)]
            want_avg[(0, ch, *pos)] = block.mean()
            want_max[(0, ch, *pos)] = block.max()
            local = np.unravel_index(block.argmax(), block.shape)
            want_idx[(0, ch, *pos)] = np.ravel_multi_index([b.start + i for b, i in zip(box, local)], x.shape[2:])
    np.testing.assert_allclose(E.adaptive_avg_pool3d(T(x), size).numpy(), want_avg, atol=1e-12)
    out, idx = E.adaptive_max_pool3d(T(x), size, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), want_max)
    np.testing.assert_array_equal(idx.numpy(), want_idx)


@pytest.mark.parametrize("call, msg", [
    (lambda: E.max_pool3d(E.ones(2, 3, 4), 2), r"^non-empty 4D or 5D \(batch mode\) tensor expected for input$"),
    (lambda: E.max_pool3d(E.ones(1, 1, 8, 8, 8), 2, padding=2, dilation=3),
     r"pad should be smaller than or equal to half of kernel size, but got kT: 2 kW: 2 kH: 2 padT: 2"),
    (lambda: E.max_pool3d(E.ones(1, 1, 4, 4, 4), 2, padding=2), r"pad should be at most half of effective kernel "
                                                                r"size, but got pad=2, kernel_size=2 and dilation=1"),
    (lambda: E.max_pool3d(E.ones(1, 1, 1, 4, 4), (3, 2, 2)), r"Output size is too small"),
    (lambda: E.avg_pool3d(E.ones(1, 1, 4, 4, 4), 2, stride=0), r"^stride should not be zero$"),
    (lambda: E.avg_pool3d(E.ones(1, 1, 4, 4, 4), 2, divisor_override=0), r"divisor must be not zero"),
    (lambda: E.max_pool3d(E.ones(1, 1, 4, 4, 4), (2, 2)), r"kernel_size must either be a single int, or a tuple "
                                                          r"of three ints"),
])
def test_pool3d_bad_input_raises_runtime_error(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call()


def test_trilinear_interpolate_matches_separable_reference():
    """align_corners=False: each output voxel blends its 8 neighbours at PyTorch's source coordinates."""
    x = np.random.default_rng(7).standard_normal((1, 2, 3, 4, 2))
    out = E.interpolate(T(x), size=(5, 3, 4), mode="trilinear").numpy()

    def taps(n_in, n_out):
        src = np.maximum((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0)
        i0 = np.minimum(np.floor(src).astype(int), n_in - 1)
        return i0, np.minimum(i0 + 1, n_in - 1), src - i0

    td, th, tw = taps(3, 5), taps(4, 3), taps(2, 4)
    want = np.zeros((1, 2, 5, 3, 4))
    for z, y, v in itertools.product(range(5), range(3), range(4)):
        for (a, la), (b, lb), (c, lc) in itertools.product(
                ((td[0][z], 1 - td[2][z]), (td[1][z], td[2][z])), ((th[0][y], 1 - th[2][y]), (th[1][y], th[2][y])),
                ((tw[0][v], 1 - tw[2][v]), (tw[1][v], tw[2][v]))):
            want[0, :, z, y, v] += la * lb * lc * x[0, :, a, b, c]
    np.testing.assert_allclose(out, want, atol=1e-12)
    near = E.interpolate(T(x), scale_factor=2, mode="nearest").numpy()
    np.testing.assert_array_equal(near, x.repeat(2, 2).repeat(2, 3).repeat(2, 4))
    area = E.interpolate(T(x), size=(1, 2, 1), mode="area").numpy()
    np.testing.assert_allclose(area, E.adaptive_avg_pool3d(T(x), (1, 2, 1)).numpy())


def test_empty_batch_gives_empty_results():
    w = E.ones(3, 2, 2, 2, 2)
    assert E.conv3d(E.ones(0, 2, 3, 4, 5), w, stride=(2, 1, 1)).shape == (0, 3, 1, 3, 4)
    assert E.conv_transpose3d(E.ones(0, 3, 3, 4, 5), w, stride=2).shape == (0, 2, 6, 8, 10)
    assert E.max_pool3d(E.ones(0, 2, 4, 4, 4), 2).shape == (0, 2, 2, 2, 2)
    assert E.ones(0, 2, 5)[:, :, 1:4:2].numpy().shape == (0, 2, 2)  # an empty view past its storage's end
