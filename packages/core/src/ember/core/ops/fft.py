"""The three FFT primitives every `torch.fft` function is built from, as in PyTorch:

- `fft_c2c(input, dim, norm, forward)`: complex to complex, over the dims `dim`,
- `fft_r2c(input, dim, norm, onesided=True)`: real to complex, one-sided (last of `dim` halved) or
  two-sided (PyTorch's 1-D `fft` of a real signal),
- `fft_c2r(input, dim, norm, last_dim_size)`: one-sided complex to real (the inverse of r2c).

`norm` is numpy's and PyTorch's mode ("backward", "ortho", "forward"), read in the direction of
the transform. Padding and trimming (`n`, `s`) and the Hermitian variants are composed above
these in `ember.core.fft`, so the derivatives of the three cover them all.

NOTE [ FFT backends ]
CPU: scipy.fft where scipy is installed, else numpy.fft. Both are pocketfft (the same values);
scipy's build is vectorised, keeps float32 as float32 and runs `workers` threads: on batched 2-D
transforms (an FNO layer's rfft2 of 16x32x64x64 float32) it measured 2-3x faster than numpy's.
scipy is a large package, so ember-core does not require it: `pip install ember-core[fft]` (or
any scipy) enables it. Results are cast to PyTorch's dtypes either way (numpy < 2 computes in
float64) and take PyTorch's memory layout (`_result`). CUDA: cuFFT would come through
nvmath-python, which ember does not depend on; a CUDA tensor is copied to the host, transformed
there and copied back, with a one-time warning.
"""

from __future__ import annotations

import warnings

import numpy as np

from ember.core.dispatch import OVERLAP_INTERNAL, declare
from ember.core.ops._util import wrap, write_out

__all__ = ["fft_c2c", "fft_r2c", "fft_c2r", "backend_name"]

_backend = None  # (module, extra keyword arguments), chosen on the first transform


def _lib():
    global _backend
    if _backend is None:
        try:
            import scipy.fft as lib

            from ember.core.parallel import get_num_threads

            _backend = (lib, {"workers": max(1, get_num_threads())})
        except ImportError:
            _backend = (np.fft, {})
    return _backend


def backend_name() -> str:
    """The CPU FFT library in use: "scipy.fft" or "numpy.fft" (NOTE [ FFT backends ])."""
    return _lib()[0].__name__


fft_c2c = declare("fft_c2c", argnames=("input",), overlap=OVERLAP_INTERNAL)
fft_r2c = declare("fft_r2c", argnames=("input",), overlap=OVERLAP_INTERNAL)
fft_c2r = declare("fft_c2r", argnames=("input",), overlap=OVERLAP_INTERNAL)


def _result(r: np.ndarray, x, dim, out, op: str, keep_last: bool = False):
    """`r` as PyTorch's CPU FFT lays a result out: the transformed dims innermost, the others outside them, each
    group ordered by the input's strides (largest outermost) but for a real transform's halved dim (`keep_last`),
    which stays innermost; so `rfft(x, dim=0)` is not contiguous."""
    if out is not None:
        return write_out(out, r, op)
    strides = x.stride()

    def by_stride(ds):
        return sorted(ds, key=lambda d: -strides[d])

    dims = by_stride(dim[:-1]) + [dim[-1]] if keep_last else by_stride(dim)
    perm = by_stride([d for d in range(r.ndim) if d not in dims]) + dims
    if perm == list(range(r.ndim)):
        return wrap(r)
    return wrap(np.ascontiguousarray(r.transpose(perm)).transpose(np.argsort(perm)), keep=True)


@fft_c2c.register("cpu")
def _c2c_cpu(x, dim, norm, forward, *, out=None):
    lib, kw = _lib()
    a = x._np()
    r = (lib.fftn if forward else lib.ifftn)(a, axes=dim, norm=norm, **kw) if dim else a.copy()
    return _result(np.asarray(r).astype(x._dtype.np, copy=False), x, dim, out, "fft_c2c")


def _two_sided(half: np.ndarray, dim, n: int) -> np.ndarray:
    """The full spectrum of a real signal from its one-sided one, as PyTorch fills it: X[-k] = conj(X[k])
    (so signed zeros come out as PyTorch's, where a complex transform of the signal would differ)."""
    mirror = half
    for d in dim[:-1]:
        mirror = np.roll(np.flip(mirror, d), 1, d)
    last = dim[-1]
    tail = np.conj(np.take(mirror, n - np.arange(half.shape[last], n), axis=last))
    return np.concatenate([half, tail], axis=last)


@fft_r2c.register("cpu")
def _r2c_cpu(x, dim, norm, onesided=True, *, out=None):
    lib, kw = _lib()
    a = x._np()
    r = np.asarray(lib.rfftn(a, axes=dim, norm=norm, **kw)).astype(x._dtype.to_complex().np, copy=False)
    if not onesided:
        r = _two_sided(r, dim, a.shape[dim[-1]])
    return _result(r, x, dim, out, "fft_r2c", keep_last=True)


@fft_c2r.register("cpu")
def _c2r_cpu(x, dim, norm, last_dim_size, *, out=None):
    lib, kw = _lib()
    a = x._np()
    s = [a.shape[d] for d in dim[:-1]] + [last_dim_size]
    r = np.asarray(lib.irfftn(a, s=s, axes=dim, norm=norm, **kw)).astype(x._dtype.to_real().np, copy=False)
    return _result(r, x, dim, out, "fft_c2r", keep_last=True)


_warned_host = False


def _on_host(kernel):
    """A CUDA kernel that runs `kernel` on a host copy (no cuFFT binding: NOTE [ FFT backends ])."""
    def run(x, *args, out=None):
        global _warned_host
        if not _warned_host:
            _warned_host = True
            warnings.warn("torch.fft on a CUDA tensor: nvmath-python (cuFFT) is not installed, so ember computes "
                          "the transform on the host (a device-to-host and a host-to-device copy)", UserWarning,
                          stacklevel=4)
        r = kernel(x.cpu(), *args).to(x.device)
        return out.copy_(r) if out is not None else r
    return run


fft_c2c.register("cuda")(_on_host(_c2c_cpu))
fft_r2c.register("cuda")(_on_host(_r2c_cpu))
fft_c2r.register("cuda")(_on_host(_c2r_cpu))

