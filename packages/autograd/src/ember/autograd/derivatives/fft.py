"""Derivatives of the three FFT primitives, after PyTorch's: each transform is linear, so its
gradient is the adjoint (the conjugate transpose) applied to `grad`. The adjoint of a transform
normalized by `norm` runs the other way with the normalization swapped ("backward" <-> "forward")."""

from __future__ import annotations

from ember.core.ops.fft import fft_c2c, fft_r2c

from ember.autograd.derivatives._entry import derivative as d

__all__ = ["ENTRIES"]

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _r2c_backward(grad, input, dim, norm):
    """Zero-fill the dropped negative frequencies, apply the complex adjoint, keep the real part.
    PyTorch's node saves `input` itself (not only its shape), so a second backward through it raises."""
    from ember.core import cat, zeros

    last = dim[-1]
    missing = input.shape[last] - grad.shape[last]
    if missing > 0:
        shape = list(grad.shape)
        shape[last] = missing
        grad = cat([grad, zeros(tuple(shape), dtype=grad.dtype, device=grad.device)], last)
    return fft_c2c(grad, dim, _SWAP[norm], False).real


def _c2r_backward(grad, input_shape, dim, norm):
    """rfft of the real gradient; the frequencies whose mirror image the one-sided input stands for
    (1 .. n - n // 2 - 1) count twice."""
    from ember.core import ones

    g = fft_r2c(grad, dim, _SWAP[norm])
    last = dim[-1]
    half = g.shape[last]
    double = grad.shape[last] - half
    if double <= 0:
        return g
    scale = ones(half, dtype=grad.dtype, device=grad.device)
    scale[1:1 + double] = 2.0
    shape = [1] * g.ndim
    shape[last] = half
    return g * scale.reshape(tuple(shape))


ENTRIES = [
    d("fft_c2c(input, dim, norm, forward)", name="FftC2CBackward0",
      input=lambda grad, dim, norm, forward: fft_c2c(grad, dim, _SWAP[norm], not forward)),
    d("fft_r2c(input, dim, norm, onesided=True)", name="FftR2CBackward0", input=_r2c_backward),
    d("fft_c2r(input, dim, norm, last_dim_size)", name="FftC2RBackward0", input=_c2r_backward),
]
