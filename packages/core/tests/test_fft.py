"""`torch.fft` (ember.core.fft): every function against numpy.fft in complex128, the `n`/`s`,
`dim`, `norm` and `out=` arguments, dtypes, and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember.core as E
from ember.core import fft

RNG = np.random.default_rng(0)
NORMS = [None, "backward", "ortho", "forward"]


def real(*shape) -> np.ndarray:
    return RNG.standard_normal(shape)


def cplx(*shape) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def check(got: E.Tensor, want: np.ndarray, tol: float = 1e-10) -> None:
    assert got.shape == want.shape
    np.testing.assert_allclose(got.resolve_conj().numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("name", "make", "kwargs"), [
    ("fft", cplx, {}), ("fft", real, {"n": 5}), ("fft", cplx, {"n": 11, "dim": 0}),
    ("ifft", cplx, {"dim": -1}), ("ifft", real, {"n": 3, "dim": 1}),
    ("rfft", real, {}), ("rfft", real, {"n": 7, "dim": 0}),
    ("irfft", cplx, {}), ("irfft", cplx, {"n": 9}), ("irfft", cplx, {"n": 4, "dim": 0}),
    ("hfft", cplx, {}), ("hfft", cplx, {"n": 7, "dim": 0}),
    ("ihfft", real, {}), ("ihfft", real, {"n": 5, "dim": 0}),
])
def test_one_dimensional_transforms_match_numpy(name, make, kwargs, norm):
    a = make(6, 8)
    got = getattr(fft, name)(E.from_numpy(a), norm=norm, **kwargs)
    axis = kwargs.get("dim", -1)
    want = getattr(np.fft, name)(a, n=kwargs.get("n"), axis=axis, norm=norm)
    check(got, want)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("name", "make", "kwargs"), [
    ("fft2", cplx, {}), ("fft2", real, {"s": (3, 10)}), ("ifft2", cplx, {"dim": (0, 2)}),
    ("fftn", cplx, {}), ("fftn", cplx, {"s": (4, 5)}), ("ifftn", cplx, {"s": (2, -1, 3), "dim": (2, 0, 1)}),
    ("rfft2", real, {}), ("rfftn", real, {"dim": (0, 1)}), ("rfftn", real, {"s": (3, 9)}),
    ("irfft2", cplx, {}), ("irfftn", cplx, {"s": (5, 6)}), ("irfftn", cplx, {"dim": (1, 0)}),
])
def test_multi_dimensional_transforms_match_numpy(name, make, kwargs, norm):
    a = make(4, 5, 6)
    got = getattr(fft, name)(E.from_numpy(a), norm=norm, **kwargs)
    s, dim = kwargs.get("s"), kwargs.get("dim")
    if name.endswith("2") and dim is None:
        dim = (-2, -1)
    if s is not None and dim is None:
        dim = tuple(range(a.ndim - len(s), a.ndim))
    if s is not None and -1 in s:  # numpy has no -1 ("unchanged")
        s = [a.shape[d] if n == -1 else n for n, d in zip(s, dim)]
    want = getattr(np.fft, name)(a, s=s, axes=dim, norm=norm)
    check(got, want)


@pytest.mark.parametrize("norm", NORMS)
def test_hermitian_n_dimensional_transforms(norm):
    """hfftn(x) = irfftn(conj(x)) and ihfftn(x) = conj(rfftn(x)), normalized the other way."""
    swap = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    a, x = cplx(4, 5, 3), real(4, 5, 6)
    check(fft.hfftn(E.from_numpy(a), norm=norm), np.fft.irfftn(a.conj(), norm=swap))
    check(fft.hfft2(E.from_numpy(a), s=(3, 6), norm=norm), np.fft.irfft2(a.conj(), s=(3, 6), norm=swap))
    check(fft.ihfftn(E.from_numpy(x), dim=(0, 2), norm=norm), np.fft.rfftn(x, axes=(0, 2), norm=swap).conj())
    check(fft.ihfft2(E.from_numpy(x), norm=norm), np.fft.rfft2(x, norm=swap).conj())
    # 1-D against numpy's own hfft
    check(fft.hfft(E.from_numpy(a[0, 0]), norm=norm), np.fft.hfft(a[0, 0], norm=norm))


def test_roundtrips_and_dtypes():
    x32 = E.from_numpy(real(4, 6).astype(np.float32))
    r = fft.rfft(x32)
    assert r.dtype is E.complex64
    assert fft.irfft(r).dtype is E.float32
    assert fft.fft(x32).dtype is E.complex64 and fft.ifft(fft.fft(x32)).dtype is E.complex64
    assert fft.fft(E.tensor([1, 2, 3])).dtype is E.complex64  # integers: the default complex dtype
    assert fft.fft(E.ones(3, dtype=E.bool)).dtype is E.complex64
    np.testing.assert_allclose(fft.irfft(r, n=6).numpy(), x32.numpy(), atol=1e-5)
    x = E.from_numpy(real(3, 4, 5))
    np.testing.assert_allclose(fft.irfftn(fft.rfftn(x), s=(3, 4, 5)).numpy(), x.numpy(), atol=1e-12)
    np.testing.assert_allclose(fft.ifftn(fft.fftn(x)).real.numpy(), x.numpy(), atol=1e-12)
    np.testing.assert_allclose(fft.hfft(fft.ihfft(x), n=5).numpy(), x.numpy(), atol=1e-12)


def test_transforms_of_non_contiguous_views():
    a = cplx(6, 8)
    x = E.from_numpy(a)[::2, 1:].t()
    check(fft.fft(x, dim=0), np.fft.fft(a[::2, 1:].T, axis=0))
    check(fft.rfft2(x.real), np.fft.rfft2(a[::2, 1:].T.real))


def test_out_argument_receives_the_result():
    a = cplx(3, 4)
    out = E.empty(0, dtype=E.complex128)
    r = fft.fft(E.from_numpy(a), out=out)
    assert r is out
    check(out, np.fft.fft(a))
    out_r = E.empty(3, 6, dtype=E.float64)
    fft.irfft(E.from_numpy(a), out=out_r)
    check(out_r, np.fft.irfft(a))


@pytest.mark.parametrize(("call", "message"), [
    (lambda x: fft.fft(x, norm="bad", out=E.empty(3, 4)), "fft expects a complex output tensor, but got Float"),
    (lambda x: fft.ifft(x + 0j, out=E.empty(3, 4)), "ifft expects a complex output tensor, but got Float"),
    (lambda x: fft.ifft2(x, out=E.empty(3, 4)), "fftn expects a complex output tensor, but got Float"),
    (lambda x: fft.rfft2(x, out=E.empty(3, 3)), "rfftn expects a complex output tensor, but got Float"),
    (lambda x: fft.ihfft(x, out=E.empty(3, 3, dtype=E.int64)), "ihfft expects a complex output tensor, but got Long"),
    (lambda x: fft.irfft(x + 0j, out=E.empty(3, 6, dtype=E.complex64)),
     "irfft expects a floating point output tensor, but got ComplexFloat"),
    (lambda x: fft.hfft2(x + 0j, out=E.empty(3, 6, dtype=E.int32)),
     "hfftn expects a floating point output tensor, but got Int"),
    (lambda x: fft.rfftfreq(4, out=E.empty(3, dtype=E.int64)), "rfftfreq requires a floating point or complex dtype"),
])
def test_out_of_the_wrong_kind_is_refused_not_cast(call, message):
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        call(E.ones(3, 4))


def test_frequencies_and_shifts():
    for n in (1, 4, 5, 8):
        check(fft.fftfreq(n, dtype=E.float64), np.fft.fftfreq(n), 1e-15)
        check(fft.fftfreq(n, 0.3, dtype=E.float64), np.fft.fftfreq(n, 0.3), 1e-15)
        check(fft.rfftfreq(n, 2.0, dtype=E.float64), np.fft.rfftfreq(n, 2.0), 1e-15)
    assert fft.fftfreq(4).dtype is E.float32 and fft.fftfreq(4).tolist() == [0.0, 0.25, -0.5, -0.25]
    a = real(4, 5)
    for dim in (None, 0, 1, (0, 1), (-1,)):
        check(fft.fftshift(E.from_numpy(a), dim), np.fft.fftshift(a, dim), 0)
        check(fft.ifftshift(E.from_numpy(a), dim), np.fft.ifftshift(a, dim), 0)
    with pytest.raises(RuntimeError, match="fftfreq requires a floating point or complex dtype"):
        fft.fftfreq(4, dtype=E.int64)


@pytest.mark.parametrize(("call", "exc", "message"), [
    (lambda x: fft.fft(x, dim=2), IndexError, "Dimension out of range \\(expected to be in range of \\[-2, 1\\], "
                                              "but got 2\\)"),
    (lambda x: fft.fftshift(x, dim=5), IndexError, "Dimension out of range"),
    (lambda x: fft.rfft2(x[0]), IndexError, "Dimension out of range"),
    (lambda x: fft.fft(x, n=0), RuntimeError, "Invalid number of data points \\(0\\) specified"),
    (lambda x: fft.fftn(x, s=(2,), dim=(0, 1)), RuntimeError,
     "When given, dim and shape arguments must have the same length"),
    (lambda x: fft.fftn(x, dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
    (lambda x: fft.fftn(x, s=(1, 2, 3)), RuntimeError,
     "Got shape with 3 values but input tensor only has 2 dimensions."),
    (lambda x: fft.fft(x, norm="bad"), RuntimeError, "Invalid normalization mode: \"bad\""),
    (lambda x: fft.rfft(x + 0j), RuntimeError, "rfft expects a real input tensor, but got ComplexFloat"),
    (lambda x: fft.ihfft(x.to(E.complex128)), RuntimeError, "ihfft expects a real input tensor, but got ComplexDouble"),
    (lambda x: fft.irfft(x[0, :1] + 0j), RuntimeError, "Invalid number of data points \\(0\\) specified"),
    (lambda x: fft.fft(x.half()), RuntimeError, "Unsupported dtype Half"),
    (lambda x: fft.fft(x[0, 0]), IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    # a transformed dim left empty has no data points; shifting over no dims has no shifts
    (lambda x: fft.fft(x[:, :0]), RuntimeError, "^Invalid number of data points \\(0\\) specified$"),
    (lambda x: fft.rfft(x[0, :0]), RuntimeError, "^Invalid number of data points \\(0\\) specified$"),
    (lambda x: fft.fft2(x[:, :0]), RuntimeError, "^Invalid number of data points \\(0\\) specified$"),
    (lambda x: fft.irfft(x[0, :0] + 0j), RuntimeError, "^Invalid number of data points \\(-2\\) specified$"),
    (lambda x: fft.fftshift(x[0, 0]), RuntimeError, "^`shifts` required$"),
    (lambda x: fft.ifftshift(x, dim=()), RuntimeError, "^`shifts` required$"),
])
def test_bad_input_raises_pytorchs_error(call, exc, message):
    with pytest.raises(exc, match=message):
        call(E.ones(3, 4))


def test_backend_is_named():
    assert fft.backend_name() in ("scipy.fft", "numpy.fft")


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_ifft_of_a_real_signal_is_a_lazy_conjugate_as_pytorchs(norm):
    """PyTorch's 1-D ifft of a real signal conjugates its one-sided forward transform lazily: is_conj() is True,
    the values are numpy's and a zero imaginary part prints as -0 (only the 1-D ifft does this)."""
    x = np.arange(5.0)
    y = E.fft.ifft(E.tensor(x), n=6, norm=norm)
    assert y.is_conj()
    np.testing.assert_allclose(y.resolve_conj().numpy(), np.fft.ifft(x, n=6, norm=norm), atol=1e-12)
    assert np.signbit(y.resolve_conj().numpy()[0].imag)
    assert not E.fft.ifft(E.tensor(x, dtype=E.complex128)).is_conj()
    assert not E.fft.ifft2(E.tensor(x).reshape(1, 5)).is_conj()


def test_one_dimensional_transforms_parse_dim_and_n_as_pytorch():
    x = E.arange(4.0)
    with pytest.raises(TypeError, match=r"^fft_ifft\(\): argument 'dim' must be int, not tuple$"):
        E.fft.ifft(x, dim=(0,))
    with pytest.raises(RuntimeError, match=r"^Invalid number of data points \(-2\) specified$"):
        E.fft.fft(x, n=-2)
    with pytest.raises(RuntimeError, match="^rfft expects a real input tensor, but got ComplexFloat$"):
        E.fft.rfft(x.to(E.complex64))
    with pytest.raises(RuntimeError, match="^rfftn expects a real-valued input tensor, but got ComplexFloat$"):
        E.fft.rfft2(x.to(E.complex64).reshape(2, 2))
    with pytest.raises(RuntimeError, match="^Only supports floating-point dtypes, but found: ComplexFloat$"):
        E.fft.ihfftn(x.to(E.complex64))


def test_frequencies_divide_as_ieee_and_refuse_negative_sizes():
    """PyTorch scales by 1 / (n d) in double arithmetic: a zero spacing gives inf (and NaN at 0), not an error."""
    got = E.fft.fftfreq(3, d=0).tolist()
    assert math.isnan(got[0]) and got[1:] == [math.inf, -math.inf]
    assert E.fft.rfftfreq(-2).shape == (0,) and E.fft.fftfreq(0).shape == (0,)
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[-1\]$"):
        E.fft.fftfreq(-1)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies_take_an_int_n_as_pytorchs_parser(name):
    """A float or bool `n` is refused (not truncated or taken as 1); a numpy int or 0-dim integer tensor is an int."""
    f = getattr(E.fft, name)
    with pytest.raises(TypeError, match=rf"^fft_{name}\(\): argument 'n' \(position 1\) must be int, not float$"):
        f(4.0)
    with pytest.raises(TypeError, match=rf"^fft_{name}\(\): argument 'n' \(position 1\) must be int, not bool$"):
        f(True)
    with pytest.raises(TypeError, match=rf"^fft_{name}\(\): argument 'n' must be int, not float$"):
        f(n=4.0)
    assert f(np.int64(4)).tolist() == f(4).tolist() == f(E.tensor(4)).tolist()


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_one_dimensional_transforms_refuse_a_float_n(name):
    """`n=4.0` (or a bool, or a float tensor) is PyTorch's parser TypeError, not a transform of int(n) points."""
    x = E.ones(8, dtype=E.complex64 if name in ("irfft", "hfft") else E.float32)
    f = getattr(E.fft, name)
    for n, kind in ((4.0, "float"), (np.float64(4.0), "numpy.float64"), (True, "bool"), (E.tensor(4.0), "Tensor")):
        with pytest.raises(TypeError, match=rf"^fft_{name}\(\): argument 'n' must be int, not {kind}$"):
            f(x, n=n)
    assert f(x, n=np.int64(4)).shape == f(x, n=4).shape


@pytest.mark.parametrize("call, message", [
    (lambda x: E.fft.rfft(x, 4.0), "fft_rfft(): argument 'n' (position 2) must be int, not float"),
    (lambda x: E.fft.fft(x, 4, 0.0), "fft_fft(): argument 'dim' (position 3) must be int, not float"),
    (lambda x: E.fft.rfft2(x, s=(4, 4.0)), "fft_rfft2(): argument 's' failed to unpack the object at pos 2 with error "
                                           "\"type must be tuple of ints,but got float\""),
    (lambda x: E.fft.fftn(x, s=(4.0, 4)), "fft_fftn(): argument 's' must be tuple of ints, not tuple"),
    (lambda x: E.fft.fftn(x, (4.0, 4)),
     "fft_fftn(): argument 's' (position 2) must be tuple of ints, but found element of type float at pos 0"),
    (lambda x: E.fft.fft2(x, dim=None), "fft_fft2(): argument 'dim' must be tuple of ints, not NoneType"),
])
def test_transforms_parse_their_sizes_and_dims_as_pytorch(call, message):
    """A float size (alone or in `s`) is refused, not truncated, in the parser's words for where it came."""
    with pytest.raises(TypeError) as e:
        call(E.ones(2, 4))
    assert str(e.value) == message


def test_an_int_s_or_dim_stands_for_a_tuple_of_one():
    x = E.arange(8.0).reshape(2, 4)
    np.testing.assert_allclose(E.fft.fftn(x, s=4).numpy(), np.fft.fftn(x.numpy(), s=(4,), axes=(-1,)), atol=1e-5)
    np.testing.assert_allclose(E.fft.fftn(x, dim=0).numpy(), np.fft.fftn(x.numpy(), axes=(0,)), atol=1e-5)


def test_two_sided_r2c_fills_the_negative_frequencies_by_conjugate_symmetry():
    """fft_r2c with onesided=False (PyTorch's 1-D fft of a real signal) is numpy's full transform, over one or
    several dims, with the conjugate mirror's signed zeros."""
    from ember.core.ops.fft import fft_r2c

    x = np.random.default_rng(3).standard_normal((3, 5, 4))
    for dims in [(2,), (1,), (0, 2), (1, 2)]:
        got = fft_r2c(E.tensor(x), dims, "ortho", False).numpy()
        np.testing.assert_allclose(got, np.fft.fftn(x, axes=dims, norm="ortho"), atol=1e-12)
    full = fft.fft(E.tensor([3.0, 3.0, 3.0, 3.0])).numpy()
    np.testing.assert_array_equal(full, [12, 0, 0, 0])
    np.testing.assert_array_equal(np.signbit(full.imag), [False, False, False, True])  # conj of bin 1's +0
    assert fft.fft(E.arange(4)).dtype == E.complex64


def test_results_are_laid_out_as_pytorchs_cpu_fft():
    """PyTorch 2.13's CPU FFT puts the transformed dims innermost (a real transform's halved dim last), each group
    ordered by the input's strides: its strides, its non-contiguity (a `.view(-1)` then fails), its values."""
    a = E.randn(8, 3, 4)
    b = a.transpose(0, 2)
    c = E.randn(3, 4, 5).permute(1, 2, 0)
    cases = [
        (fft.rfft(a, dim=0), (1, 20, 5)), (fft.rfft(a, dim=1), (8, 1, 2)), (fft.rfft(a), (9, 3, 1)),
        (fft.fft(a, dim=0), (1, 32, 8)), (fft.fft(a + 0j, dim=1), (12, 1, 3)), (fft.irfft(a + 0j, dim=0), (1, 56, 14)),
        (fft.rfft2(a, dim=(0, 1)), (2, 1, 16)), (fft.fftn(a, dim=(2, 0)), (4, 32, 1)), (fft.fftn(b, dim=(0, 2)),
                                                                                        (1, 32, 4)),
        (fft.rfftn(a, dim=(2, 0)), (1, 20, 5)), (fft.irfftn(a + 0j, dim=(1, 0)), (1, 14, 42)),
        (fft.fft2(c), (15, 1, 5)), (fft.fftn(c), (5, 1, 20)), (fft.fft(a, n=10, dim=0), (1, 40, 10)),
    ]
    for got, strides in cases:
        assert got.stride() == strides
    r = fft.rfft(a, dim=0)
    check(r, np.fft.rfft(a.numpy(), axis=0), 1e-5)
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        r.view(-1)
