"""More layers of `torch.nn`: `AlphaDropout`, `FeatureAlphaDropout`, `Dropout3d`, `RReLU`,
`InstanceNorm3d`, `SyncBatchNorm` (one process), the 3-D padding layers, `LinearCrossEntropyLoss` (with
`LinearCrossEntropyOptions`) and the deprecated `Container`."""

from __future__ import annotations

import math
import sys
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
from ember.nn.modules.normalization import _BatchNorm, _InstanceNorm

__all__ = ["AlphaDropout", "FeatureAlphaDropout", "Dropout3d", "RReLU", "InstanceNorm3d", "ConstantPad3d",
           "ZeroPad3d", "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d", "LinearCrossEntropyLoss",
           "LinearCrossEntropyOptions", "Container", "SyncBatchNorm"]


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


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation whose statistics PyTorch reduces over a process group; within one process
    (no initialized process group, or a group of one) it is BatchNorm over any `(N, C, *)` input.

    ember does not synchronize the statistics: training with an initialized process group of more
    than one process raises NotImplementedError rather than silently normalizing per process.
    `convert_sync_batchnorm(module)` swaps every BatchNorm of a model, as PyTorch's.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if input.shape[1] != self.num_features:
            raise RuntimeError(f"SyncBatchNorm: expected input with {self.num_features} channels (dim 1), but got "
                               f"{input.shape[1]} channels; input of shape {list(input.shape)}")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if self.training and self._world_size() > 1:
            raise NotImplementedError(f"SyncBatchNorm: synchronizing batch statistics across {self._world_size()} "
                                      f"processes is not supported by ember")
        return super().forward(input)

    def _world_size(self) -> int:
        """The process group's size when ember.distributed is imported and initialized, else 1 (looked up,
        not imported: ember.nn sits below ember.distributed)."""
        dist = sys.modules.get("ember.distributed")
        if dist is None or not dist.is_initialized():
            return 1
        return dist.get_world_size(self.process_group)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """`module` with every BatchNorm*d (recursively) replaced by a SyncBatchNorm sharing its parameters
        and running statistics."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm | SyncBatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group, bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
