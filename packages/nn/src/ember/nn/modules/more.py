"""More layers of `torch.nn`: `AlphaDropout`, `FeatureAlphaDropout`, `Dropout3d`, `RReLU`,
`InstanceNorm3d`, the 3-D padding layers, `LinearCrossEntropyLoss` (with
`LinearCrossEntropyOptions`) and the deprecated `Container`."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Literal

from ember.core import Tensor
from ember.nn import functional as F
from ember.nn.modules.dropout import _DropoutNd
from ember.nn.modules.extra import ConstantPad1d, ZeroPad1d, _PadNd
from ember.nn.modules.linear import Linear
from ember.nn.modules.loss import _WeightedLoss
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import _InstanceNorm

__all__ = ["AlphaDropout", "FeatureAlphaDropout", "Dropout3d", "RReLU", "InstanceNorm3d", "ConstantPad3d",
           "ZeroPad3d", "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d", "LinearCrossEntropyLoss",
           "LinearCrossEntropyOptions", "Container"]


class AlphaDropout(_DropoutNd):
    """Dropout that keeps zero mean and unit variance (for SELU networks), active in training mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels of `(N, C, *)` inputs, active in training mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of (N, C, D, H, W) inputs with probability p while training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) inputs."""

    _spatial = 3


class ConstantPad3d(ConstantPad1d):
    """Pads the last three dimensions with `value`: padding int or (left, right, top, bottom, front, back)."""

    _nd = 3


class ZeroPad3d(ZeroPad1d):
    """Pads the last three dimensions with zeros."""

    _nd = 3


class ReflectionPad3d(_PadNd):
    """Pads the last three dimensions by reflection at the edges."""

    _nd = 3
    _mode = "reflect"


class ReplicationPad3d(_PadNd):
    """Pads the last three dimensions by repeating the edge values."""

    _nd = 3
    _mode = "replicate"


class CircularPad3d(_PadNd):
    """Pads the last three dimensions by wrapping around."""

    _nd = 3
    _mode = "circular"


class RReLU(Module):
    """Randomized leaky ReLU: slopes from U(lower, upper) while training, their mean in evaluation."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


@dataclass
class LinearCrossEntropyOptions:
    """PyTorch's chunking hints for `linear_cross_entropy`; ember accepts them and computes unchunked."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: object = None


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy of `linear(input)` logits against the target, the projection held by the loss."""

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple[int, ...] = (), bias: bool = False,
                 device=None, dtype=None, reduction: str = "mean", weight: Tensor | None = None,
                 ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        w = self.linear.weight.reshape((self.num_classes, *self.out_features, self.linear.in_features))
        b = self.linear.bias.reshape((self.num_classes, *self.out_features)) if self.linear.bias is not None else None
        return F.linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
                                      options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, reduction={self.reduction}, "
                f"ignore_index={self.ignore_index}, label_smoothing={self.label_smoothing}, options={self.options}")


class Container(Module):
    """The deprecated `nn.Container`: a Module whose keyword arguments become submodules."""

    def __init__(self, **kwargs) -> None:
        super().__init__()
        warnings.warn("nn.Container is deprecated. All of it's functionality is now implemented in nn.Module. "
                      "Subclass that instead.", stacklevel=2)
        for key, value in kwargs.items():
            self.add_module(key, value)
