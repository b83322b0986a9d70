"""Unpooling and 1-D adaptive max pooling layers: `MaxUnpool1d/2d/3d`, `AdaptiveMaxPool1d`."""

from __future__ import annotations

import numbers

from ember.core import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "AdaptiveMaxPool1d"]


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
