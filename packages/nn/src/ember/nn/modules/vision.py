"""Unpooling, 1-D adaptive max pooling and cross-channel normalization layers: `MaxUnpool1d/2d/3d`,
`AdaptiveMaxPool1d`, `LocalResponseNorm`, `CrossMapLRN2d`."""

from __future__ import annotations

import numbers

import numpy as np

from ember.core import Tensor
from ember.nn import functional as F
from ember.nn.functional._vision import channel_window_sum
from ember.nn.modules.module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "AdaptiveMaxPool1d", "LocalResponseNorm", "CrossMapLRN2d"]


def _ntuple(v, n: int) -> tuple[int, ...]:
    if isinstance(v, numbers.Integral):
        return (int(v),) * n
    return tuple(v)


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._nd)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._nd)
        self.padding = _ntuple(padding, self._nd)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        fn = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self._nd - 1]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d: `forward(input, indices, output_size=None)`; zeros where no maximum was."""

    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d: `forward(input, indices, output_size=None)`; zeros where no maximum was."""

    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d: `forward(input, indices, output_size=None)`; zeros where no maximum was."""

    _nd = 3


class AdaptiveMaxPool1d(Module):
    """Maximum pooling of (N, C, L) to a fixed L_out; `return_indices` also gives the argmax positions."""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class LocalResponseNorm(Module):
    """Normalization over neighbouring channels of `(N, C, *)` inputs; see `F.local_response_norm`."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _lrn2d_window(channels: int, size: int) -> np.ndarray:
    """Which channels each channel's scale sums in Lua Torch's CrossMapLRN2d recurrence: the first
    sums the leading `(size - 1) // 2 + 1`; each next one adds the channel entering the window and
    drops the one leaving it only once it is past `pre_pad` (the original's bounds, kept as they are)."""
    pre_pad = int((size - 1) / 2 + 1)
    win = np.zeros((channels, channels))
    win[0, :min(pre_pad, channels)] = 1
    for c in range(1, channels):
        win[c] = win[c - 1]
        if c < channels - pre_pad + 1:
            win[c, c + pre_pad - 1] += 1
        if c > pre_pad:
            win[c, c - pre_pad] -= 1
    return win


class CrossMapLRN2d(Module):
    """Lua Torch's cross-map local response normalization of `(N, C, H, W)` inputs:
    input * (k + alpha / size * sum of squares over the channel window)^-beta."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        scale = channel_window_sum(input * input, _lrn2d_window(input.shape[1], self.size)) * (self.alpha / self.size)
        return input * (scale + self.k) ** -self.beta

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
