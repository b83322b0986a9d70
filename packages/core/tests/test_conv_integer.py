"""Integer convolutions: conv1d/2d/3d of int8/uint8/int16/int32/int64 and conv_transpose of int64 compute
PyTorch's CPU results (wrapping in the input's dtype), and the other integer cases and mixed dtypes raise
PyTorch's errors, in PyTorch's order (bias, then the kernel's dtype, then the weight)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember.core as E

FORWARD = {1: E.conv1d, 2: E.conv2d, 3: E.conv3d}
TRANSPOSED = {1: E.conv_transpose1d, 2: E.conv_transpose2d, 3: E.conv_transpose3d}


def _reference(x, w, b, stride, padding, dilation, groups):
    """Cross-correlation in Python ints over every output position (int64 numpy in, exact sums out)."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    k = w.shape[2:]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    osp = [(xp.shape[2 + i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    out = np.zeros((n, o, *osp), dtype=object)
    for b_, oc in itertools.product(range(n), range(o)):
        g = oc // (o // groups)
        for pos in np.ndindex(*osp):
            total = 0 if b is None else int(b[oc])
            for ci, tap in itertools.product(range(cg), np.ndindex(*k)):
                at = tuple(pos[i] * stride[i] + tap[i] * dilation[i] for i in range(nd))
                total += int(xp[(b_, g * cg + ci, *at)]) * int(w[(oc, ci, *tap)])
            out[(b_, oc, *pos)] = total
    return out


def _reference_transposed(x, w, b, stride, padding, output_padding, dilation, groups):
    """The adjoint: each input element scatters `x * w[tap]` to `i * stride + tap * dilation - padding`."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    og = w.shape[1]
    k = w.shape[2:]
    osp = [(x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k[i] - 1) + output_padding[i] + 1
           for i in range(nd)]
    out = np.zeros((n, og * groups, *osp), dtype=object)
    for b_, ci in itertools.product(range(n), range(c)):
        g = ci // (c // groups)
        for pos in np.ndindex(*x.shape[2:]):
            for oc, tap in itertools.product(range(og), np.ndindex(*k)):
                at = tuple(pos[i] * stride[i] + tap[i] * dilation[i] - padding[i] for i in range(nd))
                if all(0 <= a < s for a, s in zip(at, osp)):
                    out[(b_, g * og + oc, *at)] += int(x[(b_, ci, *pos)]) * int(w[(ci, oc, *tap)])
    if b is not None:
        out += np.array([int(v) for v in b], dtype=object).reshape(-1, *(1,) * nd)
    return out


def _wrapped(exact, dtype: str) -> np.ndarray:
    """Python ints reduced modulo 2**bits into `dtype`, as C integer arithmetic leaves them."""
    bits = np.dtype(dtype).itemsize * 8
    signed = np.dtype(dtype).kind == "i"
    flat = [(int(v) % 2 ** bits) - (2 ** bits if signed and int(v) % 2 ** bits >= 2 ** (bits - 1) else 0)
            for v in exact.ravel()]
    return np.array(flat, dtype=dtype).reshape(exact.shape)


def _rand(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=np.int64).astype(dtype)


def test_int8_conv1d_wraps_like_int8_arithmetic():
    x = E.full((1, 1, 4), 100, dtype=E.int8)
    w = E.full((1, 1, 4), 3, dtype=E.int8)
    assert E.conv1d(x, w).tolist() == [[[-80]]]  # 1200 mod 256, as PyTorch
    assert E.conv1d(x, w, E.tensor([100], dtype=E.int8)).tolist() == [[[20]]]
    assert E.conv1d(x, w).dtype is E.int8


def test_int64_conv_is_exact_at_the_edges_of_its_range():
    x = E.tensor([[[2 ** 62, 2 ** 62, 3]]], dtype=E.int64)
    w = E.tensor([[[3, 1]]], dtype=E.int64)
    assert E.conv1d(x, w).tolist() == [[[0, -4611686018427387901]]]  # (3 * 2**62 + 3) wrapped: PyTorch's values
    big = E.tensor([[[2 ** 53 + 1, 1]]], dtype=E.int64)  # not representable in float64
    assert E.conv1d(big, E.tensor([[[1, 1]]], dtype=E.int64)).tolist() == [[[2 ** 53 + 2]]]
    assert E.conv_transpose1d(big, E.tensor([[[1, 1]]], dtype=E.int64)).tolist() == [[[2 ** 53 + 1, 2 ** 53 + 2, 1]]]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize(("stride", "padding", "groups", "bias"), [(1, 0, 1, False), (2, 1, 2, True),
                                                                   (1, 2, 4, True)])
def test_forward_matches_the_exact_reference(dtype, nd, stride, padding, groups, bias):
    rng = np.random.default_rng(nd * 7 + groups)
    x = _rand(rng, (2, 4) + (5, 4, 3)[:nd], dtype)
    w = _rand(rng, (4, 4 // groups) + (3, 2, 2)[:nd], dtype)
    b = _rand(rng, (4,), dtype) if bias else None
    got = FORWARD[nd](E.tensor(x), E.tensor(w), None if b is None else E.tensor(b), stride=stride, padding=padding,
                      groups=groups)
    exact = _reference(x, w, b, (stride,) * nd, (padding,) * nd, (1,) * nd, groups)
    assert got.dtype.name == dtype
    np.testing.assert_array_equal(got.numpy(), _wrapped(exact, dtype))


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_int64_dilated_and_same_padding(nd):
    rng = np.random.default_rng(nd)
    x = _rand(rng, (1, 2) + (6, 5, 4)[:nd], "int64")
    w = _rand(rng, (2, 1) + (2, 3, 2)[:nd], "int64")
    got = FORWARD[nd](E.tensor(x), E.tensor(w), dilation=2, padding="same", groups=2)
    pads = [(2 * (k - 1)) // 2 for k in w.shape[2:]]
    extra = [2 * (k - 1) - 2 * p for k, p in zip(w.shape[2:], pads)]
    xe = np.pad(x, [(0, 0), (0, 0)] + [(0, e) for e in extra])
    exact = _reference(xe, w, None, (1,) * nd, pads, (2,) * nd, 2)
    np.testing.assert_array_equal(got.numpy(), _wrapped(exact, "int64"))
    assert got.shape == x.shape[:1] + (2,) + x.shape[2:]


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize(("stride", "padding", "output_padding", "dilation", "groups"),
                         [(1, 0, 0, 1, 1), (2, 1, 1, 1, 2), (3, 2, 1, 2, 1), (2, 0, 1, 2, 2)])
def test_int64_transposed_matches_the_exact_reference(nd, stride, padding, output_padding, dilation, groups):
    rng = np.random.default_rng(nd + stride)
    x = _rand(rng, (2, 4) + (3, 2, 2)[:nd], "int64")
    w = _rand(rng, (4, 3) + (3, 2, 2)[:nd], "int64")
    b = _rand(rng, (3 * groups,), "int64")
    got = TRANSPOSED[nd](E.tensor(x), E.tensor(w), E.tensor(b), stride=stride, padding=padding,
                         output_padding=output_padding, groups=groups, dilation=dilation)
    exact = _reference_transposed(x, w, b, (stride,) * nd, (padding,) * nd, (output_padding,) * nd, (dilation,) * nd,
                                  groups)
    np.testing.assert_array_equal(got.numpy(), _wrapped(exact, "int64"))


def test_unbatched_and_empty_inputs():
    x = E.tensor([[1, 2, 3, 4]], dtype=E.int16)
    assert E.conv1d(x, E.tensor([[[1, -1]]], dtype=E.int16)).tolist() == [[-1, -1, -1]]
    # an empty input computes its empty result even where PyTorch has no kernel for the dtype
    assert E.conv2d(E.zeros(0, 1, 4, 4, dtype=E.bool), E.ones(1, 1, 2, 2, dtype=E.bool)).shape == (0, 1, 3, 3)
    assert E.conv2d(E.zeros(0, 1, 4, 4, dtype=E.int8), E.ones(1, 1, 2, 2, dtype=E.int8), dilation=2).shape == \
        (0, 1, 2, 2)
    out = E.conv_transpose2d(E.zeros(0, 1, 4, 4, dtype=E.int32), E.ones(1, 1, 2, 2, dtype=E.int32))
    assert out.shape == (0, 1, 5, 5) and out.dtype is E.int32


def test_int64_transposed_bias_of_another_integer_dtype_is_cast():
    x, w = E.ones(1, 1, 3, dtype=E.int64), E.ones(1, 1, 2, dtype=E.int64)
    assert E.conv_transpose1d(x, w, E.tensor([True])).tolist() == [[[2, 3, 3, 2]]]
    assert E.conv_transpose2d(x[..., None], w[..., None], E.tensor([5], dtype=E.int8)).tolist() == \
        [[[[6], [7], [7], [6]]]]


ERRORS = [  # (call, type, message): PyTorch 2.13's CPU answers
    (lambda: E.conv2d(E.ones(1, 1, 4, 4, dtype=E.int8), E.ones(1, 1, 2, 2, dtype=E.int8), dilation=2),
     NotImplementedError, "\"slow_conv_dilated<>\" not implemented for 'Char'"),
    (lambda: E.conv1d(E.ones(1, 1, 4, dtype=E.bool), E.ones(1, 1, 2, dtype=E.bool)),
     NotImplementedError, "\"slow_conv2d_cpu\" not implemented for 'Bool'"),
    (lambda: E.conv3d(E.ones(1, 1, 3, 3, 3, dtype=E.bool), E.ones(1, 1, 2, 2, 2)),
     NotImplementedError, "\"compute_columns3d\" not implemented for 'Bool'"),
    (lambda: E.conv_transpose1d(E.ones(1, 1, 4, dtype=E.int32), E.ones(1, 1, 2, dtype=E.int64)),
     NotImplementedError, "\"slow_conv_transpose2d_out_cpu\" not implemented for 'Int'"),
    (lambda: E.conv_transpose3d(E.ones(1, 1, 1, 1, 4, dtype=E.uint8), E.ones(1, 1, 1, 1, 2, dtype=E.uint8)),
     NotImplementedError, "\"slow_conv_transpose3d_out_cpu\" not implemented for 'Byte'"),
    (lambda: E.conv1d(E.ones(1, 1, 4, dtype=E.int64), E.ones(1, 1, 2)),
     RuntimeError, "expected scalar type Long but found Float"),
    (lambda: E.conv1d(E.ones(1, 1, 4), E.ones(1, 1, 2, dtype=E.int64)),
     RuntimeError, "expected scalar type Float but found Long"),
    (lambda: E.conv1d(E.ones(1, 1, 4, dtype=E.int8), E.ones(1, 1, 2), E.ones(1, dtype=E.int64)),
     RuntimeError, "Input type (signed char) and bias type (long int) should be the same"),
    (lambda: E.conv2d(E.ones(1, 1, 4, 4, dtype=E.int16), E.ones(1, 1, 2, 2, dtype=E.int16), E.ones(1, dtype=E.int32),
                      dilation=2),
     RuntimeError, "Input type (short int) and bias type (int) should be the same"),
    (lambda: E.conv_transpose2d(E.ones(1, 1, 2, 2, dtype=E.int64), E.ones(1, 1, 2, 2, dtype=E.int64), E.ones(1)),
     RuntimeError, "result type Float can't be cast to the desired output type Long"),
    (lambda: E.conv_transpose3d(E.ones(1, 1, 1, 1, 2, dtype=E.int64), E.ones(1, 1, 1, 1, 2, dtype=E.int64),
                                E.ones(1, dtype=E.int32)),
     RuntimeError, "expected scalar type Long but found Int"),
    (lambda: E.conv_transpose3d(E.ones(1, 1, 1, 1, 2), E.ones(1, 1, 1, 1, 2), E.ones(1, dtype=E.float64)),
     RuntimeError, "expected scalar type Float but found Double"),
]


@pytest.mark.parametrize(("call", "kind", "message"), ERRORS)
def test_errors_are_pytorchs(call, kind, message):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == message
    if kind is RuntimeError:
        assert isinstance(info.value, TypeError)  # ConvDtypeError: ember's rule for a dtype mismatch too


def test_float_transposed_bias_of_another_dtype_is_added_in_the_outputs_dtype():
    x, w = E.ones(1, 1, 3), E.ones(1, 1, 2)
    out = E.conv_transpose1d(x, w, E.tensor([0.5], dtype=E.float64))
    assert out.dtype is E.float32 and out.tolist() == [[[1.5, 2.5, 2.5, 1.5]]]


def test_integer_tensors_never_record_a_graph():
    x = E.ones(1, 1, 3, dtype=E.int64)
    assert not E.conv1d(x, E.ones(1, 1, 2, dtype=E.int64)).requires_grad


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_forward_against_torch(dtype, nd):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(nd)
    geometries = [dict(stride=1, padding=0, groups=1), dict(stride=2, padding=1, groups=2),
                  dict(stride=(1, 2, 3)[:nd], padding=(2, 0, 1)[:nd], groups=4), dict(padding="same", groups=2),
                  dict(padding="valid", groups=1)]
    if dtype == "int64":
        geometries += [dict(dilation=(2, 1, 3)[:nd], padding=1, groups=2), dict(dilation=2, padding="same")]
    for kw in geometries:
        x = _rand(rng, (2, 4) + (7, 6, 5)[:nd], dtype)
        w = _rand(rng, (8, 4 // kw["groups"] if "groups" in kw else 4) + (3, 2, 3)[:nd], dtype)
        b = _rand(rng, (8,), dtype)
        got = FORWARD[nd](E.tensor(x), E.tensor(w), E.tensor(b), **kw)
        want = getattr(F, f"conv{nd}d")(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), **kw)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_int64_transposed_against_torch(nd):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(10 + nd)
    for stride, padding, output_padding, dilation, groups in [(1, 0, 0, 1, 1), (2, 1, 1, 2, 2), (3, 2, 2, 1, 4),
                                                              ((1, 2, 3)[:nd], (0, 1, 2)[:nd], 0, (2, 1, 1)[:nd], 1)]:
        x = _rand(rng, (2, 4) + (4, 3, 3)[:nd], "int64")
        w = _rand(rng, (4, 2) + (3, 2, 3)[:nd], "int64")
        b = _rand(rng, (2 * groups,), "int64")
        kw = dict(stride=stride, padding=padding, output_padding=output_padding, groups=groups, dilation=dilation)
        got = TRANSPOSED[nd](E.tensor(x), E.tensor(w), E.tensor(b), **kw)
        want = getattr(F, f"conv_transpose{nd}d")(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), **kw)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("nd", [1, 3])
@pytest.mark.parametrize("transposed", [False, True])
def test_dtype_errors_against_torch(nd, transposed):
    """Every input/weight/bias dtype combination: the same value, or the same exception type and message."""
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    names = ["bool", "int8", "uint8", "int16", "int32", "int64", "float32", "float64"]
    fn = ("conv_transpose%dd" if transposed else "conv%dd") % nd

    def run(mod, f, xd, wd, bd, dilation):
        x = mod.ones((1, 1) + (5,) * nd, dtype=getattr(mod, xd))
        w = mod.ones((1, 1) + (2,) * nd, dtype=getattr(mod, wd))
        b = None if bd is None else mod.ones(1, dtype=getattr(mod, bd))
        try:
            r = f(x, w, b, dilation=dilation)
        except (RuntimeError, NotImplementedError) as e:
            return type(e) is NotImplementedError, str(e)
        return str(r.dtype).split(".")[-1], r.tolist()

    for xd, wd, bd, dilation in itertools.product(names, names, names + [None], (1, 2)):
        assert run(E, getattr(E, fn), xd, wd, bd, dilation) == run(torch, getattr(F, fn), xd, wd, bd, dilation), \
            (fn, xd, wd, bd, dilation)
