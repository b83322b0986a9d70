"""`torch.fft`: discrete Fourier transforms of tensors, with PyTorch's signatures and errors.

Every transform trims or zero-pads its input to the sizes `n`/`s` asks for (recorded ops, so
gradients flow), then runs one of three primitives (`ember.core.ops.fft`): complex to complex,
real to one-sided complex, one-sided complex to real. The Hermitian transforms (`hfft`,
`ihfft` ...) are those primitives on the conjugate with the normalization read the other way.
The CPU library (scipy.fft or numpy.fft) and what happens on CUDA: NOTE [ FFT backends ].
The transforms PyTorch's CPU autocast lists (`fft_fft` ... `fft_ihfft`, not the 2-D/n-D Hermitian
ones) are `@composite`, so an autocast region hands them float32 inputs.

`norm`: "backward" (the default: no scaling forward, 1/n on the inverse), "ortho" (1/sqrt(n)
both ways) or "forward" (1/n forward, none on the inverse).
"""

from __future__ import annotations

import math
from collections.abc import Sequence


from ember.core.ops._util import require_grad
from ember.core.ops.arguments import parsed, refuse_out_with_grad
from ember.core import dtypes
from ember.core.dispatch import composite, node_name
from ember.core.methods import numpy_aliases
from ember.core.ops.fft import backend_name, fft_c2c, fft_c2r, fft_r2c
from ember.core.tensor import Tensor

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
           "backend_name"]

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm(norm: str | None) -> str:
    if norm is None:
        return "backward"
    if norm not in _SWAP:
        raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")
    return norm


def _check_dtype(x: Tensor) -> None:
    if x._dtype is dtypes.float16 or x._dtype is dtypes.bfloat16:
        raise RuntimeError(f"Unsupported dtype {dtypes.TORCH_NAMES[x._dtype.name]}")


def _as_complex(x: Tensor) -> Tensor:
    """`x` in the complex dtype its transform computes in (integers: the default complex dtype)."""
    _check_dtype(x)
    if x._dtype.is_complex:
        return x
    if x._dtype.is_floating_point:
        return x.to(x._dtype.to_complex())
    return x.to(dtypes.get_default_complex_dtype())


def _as_real(x: Tensor, fname: str) -> Tensor:
    _check_dtype(x)
    if x._dtype.is_complex:  # PyTorch's words differ by entry point
        got = dtypes.TORCH_NAMES[x._dtype.name]
        if fname == "ihfftn":
            raise RuntimeError(f"Only supports floating-point dtypes, but found: {got}")
        kind = "real-valued" if fname == "rfftn" else "real"
        raise RuntimeError(f"{fname} expects a {kind} input tensor, but got {got}")
    return x if x._dtype.is_floating_point else x.to(dtypes.get_default_dtype())


def _dims(x: Tensor, s, dim) -> tuple[tuple[int, ...], list[int | None]]:
    """The wrapped, unique dims of an n-D transform and the size asked for each (None: as it is); one int stands
    for a tuple of one, as PyTorch's parser reads it."""
    if s is not None and not isinstance(s, tuple | list):
        s = (s,)
    if dim is not None:
        dims = list(dim) if isinstance(dim, tuple | list) else [dim]
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > x.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.ndim} dimensions.")
        dims = list(range(x.ndim - len(s), x.ndim))
    else:
        dims = list(range(x.ndim))
    if not x._shape and dims:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    dims = [x._wrap_dim(d) for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    sizes: list[int | None] = [None] * len(dims)
    if s is not None:
        for i, n in enumerate(s):
            n = int(n)
            if n != -1:
                if n < 1:
                    raise RuntimeError(f"Invalid number of data points ({n}) specified")
                sizes[i] = n
    return tuple(dims), sizes


def _check_points(x: Tensor, dims: Sequence[int], sizes: Sequence[int | None]) -> None:
    """A transformed dim left at its size must have a point (PyTorch: "Invalid number of data points (0)")."""
    for d, n in zip(dims, sizes):
        if n is None and x._shape[d] == 0:
            raise RuntimeError("Invalid number of data points (0) specified")


def _resize(x: Tensor, dims: Sequence[int], sizes: Sequence[int | None]) -> Tensor:
    """`x` trimmed or zero-padded at the end of each of `dims` to the matching size, as PyTorch records it: a
    slice per trimmed dim, then one constant pad over all the padded ones (`ConstantPadNdBackward0`)."""
    from ember.core.ops.padding import pad

    widths = [0] * (2 * x.ndim)
    for d, n in zip(dims, sizes):
        if n is None or n == x._shape[d]:
            continue
        if n < x._shape[d]:
            x = x.narrow(d, 0, n)
        else:
            widths[2 * (x.ndim - 1 - d) + 1] = n - x._shape[d]
    return pad(x, tuple(widths)) if any(widths) else x


def _check_out(out: Tensor | None, fname: str, complex_result: bool, input: Tensor | None = None,
               kernel: str | None = None) -> None:
    """PyTorch checks `out`'s dtype kind before anything else: complex for a transform to complex, real floating
    point for one to real (no silent cast through `copy_`); then, as autograd does, that no `input` requiring grad
    meets `out=` in `kernel` (the primitive whose out= form the function runs; None: PyTorch lets it through)."""
    if out is None:
        return
    if out._dtype.is_complex if complex_result else out._dtype.is_floating_point:
        if kernel is not None:
            refuse_out_with_grad(kernel, input)
        return
    kind = "complex" if complex_result else "floating point"
    raise RuntimeError(f"{fname} expects a {kind} output tensor, but got {dtypes.TORCH_NAMES[out._dtype.name]}")


def _finish(r: Tensor, out: Tensor | None) -> Tensor:
    if out is None:
        return r
    if out._shape != r._shape:
        out.resize_(r._shape)
    return out.copy_(r)


def _c2c(input: Tensor, s, dim, norm, forward: bool, out, fname: str, kernel: str | None = "_fft_c2c") -> Tensor:
    _check_out(out, fname, True, input, kernel)
    dims, sizes = _dims(input, s, dim)
    _check_points(input, dims, sizes)
    x = _resize(_as_complex(input), dims, sizes)
    r = _finish(fft_c2c(x, dims, _norm(norm), forward), out)
    return r if kernel is not None or out is None else _conjugated_in(r)


def _conjugated_in(out: Tensor) -> Tensor:
    """`out` as PyTorch leaves it where ifft/ihfft of a real signal conjugates an r2c result in it in place: its node
    is `conj_physical`'s out form, PyTorch's `NotImplemented` (backward raises), not a differentiable copy."""
    return node_name(out, "CopyBackwards", "NotImplemented", "derivative for aten::conj_physical is not implemented")


def _real_1d(input: Tensor, n, dim: int, norm, out) -> Tensor:
    """PyTorch's 1-D `fft` of a real signal: one two-sided r2c transform (`FftR2CBackward0`), no copy to complex."""
    dims, sizes = _dims(input, _one(n), (dim,))
    _check_points(input, dims, sizes)
    x = _resize(_as_real(input, "fft"), dims, sizes)
    return _finish(fft_r2c(x, dims, norm, False), out)


def _r2c(input: Tensor, s, dim, norm, fname: str, out, hermitian: bool = False) -> Tensor:
    # PyTorch's 1-D ihfft conjugates into `out` in place, its n-D one runs a c2c transform into it
    kernel = "_fft_r2c" if not hermitian else None if fname == "ihfft" else "_fft_c2c"
    _check_out(out, fname, True)
    dims, sizes = _dims(input, s, dim)
    if not dims:
        raise RuntimeError(f"{fname} must transform at least one axis")
    _check_points(input, dims, sizes)
    x = _as_real(input, fname)
    if out is not None and kernel is not None:  # the out= kernel's autograd check, after the input's dtype
        refuse_out_with_grad(kernel, input)
    x = _resize(x, dims, sizes)
    if hermitian:  # ihfft: the conjugate of rfft, normalized the other way
        r = fft_r2c(x, dims, _SWAP[_norm(norm)])  # PyTorch's 1-D ihfft returns a lazy conjugate view
        r = _finish(r.conj() if len(dims) == 1 else r.conj_physical(), out)
        return r if kernel is not None or out is None else _conjugated_in(r)
    return _finish(fft_r2c(x, dims, _norm(norm)), out)


def _c2r(input: Tensor, s, dim, norm, out, fname: str, hermitian: bool = False) -> Tensor:
    _check_out(out, fname, False, input, "_fft_c2r")
    dims, sizes = _dims(input, s, dim)
    if not dims:
        raise RuntimeError("irfftn must transform at least one axis")
    last = sizes[-1] if sizes[-1] is not None else 2 * (input._shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    _check_points(input, dims[:-1], sizes[:-1])
    x = _as_complex(input)
    x = _resize(x.conj() if hermitian else x, dims, sizes[:-1] + [last // 2 + 1])
    return _finish(fft_c2r(x, dims, _SWAP[_norm(norm)] if hermitian else _norm(norm), last), out)


def _one(n) -> tuple | None:
    return None if n is None else (n,)


def _check_1d(n) -> None:
    """A 1-D transform's `n` (if given) at least 1 (its type and `dim`'s are `parsed`'s checks)."""
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


@composite("fft_fft")
@numpy_aliases
@parsed("fft_fft", n="SymInt?", dim="int", norm="str?")
def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
        out: Tensor | None = None) -> Tensor:
    """The 1-D discrete Fourier transform over `dim`, trimmed or zero-padded to `n` points.

    Args:
        input: a real or complex tensor (real and integer inputs are promoted to complex).
        n: the signal length (default: `input.size(dim)`).
        dim: the dimension to transform.
        norm: "backward" (default), "ortho" or "forward".
    Returns:
        a complex tensor.
    Raises:
        IndexError: `dim` is out of range.
        RuntimeError: `n` < 1 or an unknown `norm`.

    >>> from ember.core import tensor
    >>> fft(tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
    """
    _check_1d(n)
    _check_out(out, "fft", True, input, "_fft_c2c" if input._dtype.is_complex else "_fft_r2c")
    if not input._dtype.is_complex:
        return _real_1d(input, n, dim, _norm(norm), out)
    return _c2c(input, _one(n), (dim,), norm, True, out, "fft")


@composite("fft_ifft")
@numpy_aliases
@parsed("fft_ifft", n="SymInt?", dim="int", norm="str?")
def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The 1-D inverse discrete Fourier transform over `dim` (see `fft`)."""
    _check_1d(n)
    if out is None and not input._dtype.is_complex:  # PyTorch: the conjugate view of a real signal's forward
        return _real_1d(input, n, dim, _SWAP[_norm(norm)], None).conj()  # transform, normed the other way
    # PyTorch's ifft of a real signal conjugates an r2c result into `out` in place: no out= check for autograd
    return _c2c(input, _one(n), (dim,), norm, False, out, "ifft", "_fft_c2c" if input._dtype.is_complex else None)


@composite("fft_fft2")
@numpy_aliases
@parsed("fft_fft2", s="tuple of ints?", dim="tuple of ints", norm="str?")
def fft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The 2-D discrete Fourier transform over `dim` (see `fftn`)."""
    return _c2c(input, s, dim, norm, True, out, "fftn")


@composite("fft_ifft2")
@numpy_aliases
@parsed("fft_ifft2", s="tuple of ints?", dim="tuple of ints", norm="str?")
def ifft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The 2-D inverse discrete Fourier transform over `dim` (see `fftn`)."""
    return _c2c(input, s, dim, norm, False, out, "fftn")


@composite("fft_fftn")
@numpy_aliases
@parsed("fft_fftn", s="tuple of ints?", dim="tuple of ints?", norm="str?")
def fftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None,
         *, out: Tensor | None = None) -> Tensor:
    """The n-D discrete Fourier transform over `dim` (default: the last `len(s)` dims, or all).

    Args:
        s: the signal size in each transformed dim (-1: unchanged); trims or zero-pads.
    Raises:
        RuntimeError: `s` and `dim` of different lengths, repeated dims, a size < 1.
    """
    return _c2c(input, s, dim, norm, True, out, "fftn")


@composite("fft_ifftn")
@numpy_aliases
@parsed("fft_ifftn", s="tuple of ints?", dim="tuple of ints?", norm="str?")
def ifftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None,
          *, out: Tensor | None = None) -> Tensor:
    """The n-D inverse discrete Fourier transform over `dim` (see `fftn`)."""
    return _c2c(input, s, dim, norm, False, out, "fftn")


@composite("fft_rfft")
@numpy_aliases
@parsed("fft_rfft", n="SymInt?", dim="int", norm="str?")
def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The 1-D transform of a real signal: the `n // 2 + 1` non-negative frequencies.

    Raises:
        RuntimeError: `input` is complex.

    >>> from ember.core import tensor
    >>> rfft(tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    _check_1d(n)
    return _r2c(input, _one(n), (dim,), norm, "rfft", out)


@composite("fft_irfft")
@numpy_aliases
@parsed("fft_irfft", n="SymInt?", dim="int", norm="str?")
def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The inverse of `rfft`: a real signal of `n` points (default `2 * (input.size(dim) - 1)`)."""
    _check_1d(n)
    return _c2r(input, _one(n), (dim,), norm, out, "irfft")


@composite("fft_rfft2")
@numpy_aliases
@parsed("fft_rfft2", s="tuple of ints?", dim="tuple of ints", norm="str?")
def rfft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The 2-D transform of a real signal; the last of `dim` keeps its non-negative frequencies."""
    return _r2c(input, s, dim, norm, "rfftn", out)


@composite("fft_irfft2")
@numpy_aliases
@parsed("fft_irfft2", s="tuple of ints?", dim="tuple of ints", norm="str?")
def irfft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """The inverse of `rfft2`."""
    return _c2r(input, s, dim, norm, out, "irfftn")


@composite("fft_rfftn")
@numpy_aliases
@parsed("fft_rfftn", s="tuple of ints?", dim="tuple of ints?", norm="str?")
def rfftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None,
          *, out: Tensor | None = None) -> Tensor:
    """The n-D transform of a real signal; the last of `dim` keeps its non-negative frequencies."""
    return _r2c(input, s, dim, norm, "rfftn", out)


@composite("fft_irfftn")
@numpy_aliases
@parsed("fft_irfftn", s="tuple of ints?", dim="tuple of ints?", norm="str?")
def irfftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None,
           *, out: Tensor | None = None) -> Tensor:
    """The inverse of `rfftn`: the last of `dim` has `s[-1]` points (default `2 * (size - 1)`)."""
    return _c2r(input, s, dim, norm, out, "irfftn")


@composite("fft_hfft")
@numpy_aliases
@parsed("fft_hfft", n="SymInt?", dim="int", norm="str?")
def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """The 1-D transform of a Hermitian-symmetric signal given by its first half: a real result of
    `n` points (default `2 * (input.size(dim) - 1)`)."""
    _check_1d(n)
    return _c2r(input, _one(n), (dim,), norm, out, "hfft", hermitian=True)


@composite("fft_ihfft")
@numpy_aliases
@parsed("fft_ihfft", n="SymInt?", dim="int", norm="str?")
def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The inverse of `hfft`: the one-sided inverse transform of a real signal."""
    _check_1d(n)
    return _r2c(input, _one(n), (dim,), norm, "ihfft", out, hermitian=True)


@numpy_aliases
@parsed("fft_hfft2", s="tuple of ints?", dim="tuple of ints", norm="str?")
def hfft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """The 2-D `hfft`."""
    return _c2r(input, s, dim, norm, out, "hfftn", hermitian=True)


@numpy_aliases
@parsed("fft_ihfft2", s="tuple of ints?", dim="tuple of ints", norm="str?")
def ihfft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """The 2-D `ihfft`."""
    return _r2c(input, s, dim, norm, "ihfftn", out, hermitian=True)


@numpy_aliases
@parsed("fft_hfftn", s="tuple of ints?", dim="tuple of ints?", norm="str?")
def hfftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None,
          *, out: Tensor | None = None) -> Tensor:
    """The n-D `hfft`."""
    return _c2r(input, s, dim, norm, out, "hfftn", hermitian=True)


@numpy_aliases
@parsed("fft_ihfftn", s="tuple of ints?", dim="tuple of ints?", norm="str?")
def ihfftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None,
           *, out: Tensor | None = None) -> Tensor:
    """The n-D `ihfft`."""
    return _r2c(input, s, dim, norm, "ihfftn", out, hermitian=True)


def _freq_dtype(dtype, out: Tensor | None, fname: str):
    """The frequencies' dtype: `dtype`, else `out`'s, else the default (PyTorch checks `out`'s too)."""
    if dtype is not None:
        dt = dtypes.as_dtype(dtype)
    else:
        dt = out._dtype if out is not None else dtypes.get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    return dt


@parsed("fft_fftfreq", n="int", d="float")
def fftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype=None, layout=None, device=None,
            requires_grad: bool = False) -> Tensor:
    """The sample frequencies of an `n`-point transform with sample spacing `d`: [0, 1, ..., -1] / (d n).

    >>> fftfreq(4)
    tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    from ember.core.creation import arange, computable_dtype

    dt = computable_dtype(_freq_dtype(dtype, out, "fftfreq"), "arange_cpu")  # PyTorch's arange: no complex
    if n < 0:  # PyTorch's empty(n) refuses it
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    k = arange(n, dtype=dtypes.int64)
    k = k - (k >= (n + 1) // 2).to(dtypes.int64) * n
    r = k.to(dt) * _step(n, d)
    if device is not None:
        r = r.to(device)
    return _freq_result(r, out, requires_grad)


def _freq_result(r: Tensor, out: Tensor | None, requires_grad: bool) -> Tensor:
    """The frequencies, written into `out` before `requires_grad` applies: PyTorch's factory computes into `out`
    and then flags it, so `out` stays a leaf (no CopyBackwards)."""
    r = _finish(r, out)
    return require_grad(r) if requires_grad else r


def _step(n: int, d: float) -> float:
    """PyTorch's `1.0 / (n * d)` in double: +-inf (not ZeroDivisionError) for n * d == 0."""
    prod = n * d
    return 1.0 / prod if prod else math.copysign(math.inf, prod)


@parsed("fft_rfftfreq", n="int", d="float")
def rfftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """The non-negative sample frequencies of an `n`-point `rfft`: [0, 1, ..., n // 2] / (d n)."""
    from ember.core.creation import arange

    dt = _freq_dtype(dtype, out, "rfftfreq")
    r = arange(int(n / 2) + 1, dtype=dt, device=device) * _step(n, d)  # C's n / 2: rfftfreq(-1) has one element
    return _freq_result(r, out, requires_grad)


def _shift(input: Tensor, dim, sign: int) -> Tensor:
    from ember.core.ops.join import roll

    dims = tuple(range(input.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    dims = tuple(input._wrap_dim(d) for d in dims)
    if not dims:  # roll without dims needs shifts, which an empty dim list leaves empty
        raise RuntimeError("`shifts` required")
    shifts = tuple(sign * (input._shape[d] // 2) for d in dims)
    return roll(input, shifts, dims)


@numpy_aliases
def fftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """Roll the zero frequency to the middle of each of `dim` (default: all dims).

    >>> fftshift(fftfreq(4))
    tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    return _shift(input, dim, 1)


@numpy_aliases
def ifftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """The inverse of `fftshift`."""
    return _shift(input, dim, -1)

