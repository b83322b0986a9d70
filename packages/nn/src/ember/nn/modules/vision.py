"""Unpooling, 1-D adaptive max pooling, fractional max pooling and cross-channel normalization
layers: `MaxUnpool1d/2d/3d`, `AdaptiveMaxPool1d`, `FractionalMaxPool2d/3d`, `LocalResponseNorm`,
`CrossMapLRN2d`."""

from __future__ import annotations

import numbers

import numpy as np

from ember.core import Tensor
from ember.nn import functional as F
from ember.nn.functional._vision import channel_window_sum
from ember.nn.modules.module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
           "LocalResponseNorm", "CrossMapLRN2d"]


def _ntuple(v, n: int) -> tuple:
    if isinstance(v, numbers.Number):
        return (v,) * n
    return tuple(v)


class _MaxUnpoolNd(Module):
    _nd = 2  # forward is each class's own, as PyTorch's: a call's TypeError names the class

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._nd)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._nd)
        self.padding = _ntuple(padding, self._nd)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d: `forward(input, indices, output_size=None)`; zeros where no maximum was."""

    _nd = 1

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d: `forward(input, indices, output_size=None)`; zeros where no maximum was."""

    _nd = 2

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d: `forward(input, indices, output_size=None)`; zeros where no maximum was."""

    _nd = 3

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class _FractionalMaxPoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples: Tensor | None = None) -> None:
        super().__init__()
        name = type(self).__name__
        self.kernel_size = _ntuple(kernel_size, self._nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, self._nd) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, self._nd) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        fn = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling of `(N, C, H, W)` over pseudo-randomly placed windows to `output_size` or by `output_ratio`."""

    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max pooling of `(N, C, T, H, W)` over pseudo-randomly placed windows to `output_size` or by `output_ratio`."""

    _nd = 3


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
