"""`BatchNorm1d`, `BatchNorm2d` (running statistics), `LayerNorm`, `GroupNorm`."""


from __future__ import annotations

import sys
import warnings

from ember import autograd as ea
from ember.core import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LayerNorm", "GroupNorm", "SyncBatchNorm"]


class _NormBase(Module):
    """The parameters, running statistics and state-dict handling batch and instance norms share; as PyTorch's
    `_NormBase`, an instance norm is not a `_BatchNorm` (code that freezes or converts batch norms by
    `isinstance(m, _BatchNorm)` leaves instance norms alone)."""

    _version = 2  # version 2 state dicts have `num_batches_tracked`

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(ea.empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(ea.empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", ea.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ea.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", ea.tensor(0, dtype=ea.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        # checkpoints from before `num_batches_tracked` existed (version < 2, or no metadata) load strictly, as in
        # PyTorch
        key = prefix + "num_batches_tracked"
        version = local_metadata.get("version")
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            state_dict[key] = self.num_batches_tracked if self.num_batches_tracked is not None else \
                ea.tensor(0, dtype=ea.long)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    _dims: tuple[int, ...] = ()

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.dim()}D input)")
        if input.shape[1] != self.num_features:
            # PyTorch's batch_norm names the first per-channel tensor whose length is wrong
            what = "running_mean" if self.running_mean is not None else "weight" if self.affine else None
            if what is not None:
                raise RuntimeError(f"{what} should contain {input.shape[1]} elements not {self.num_features}")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)  # an integer buffer: never recorded, so no no_grad() block
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_stats else None, self.running_var if use_stats else None,
                            self.weight, self.bias, bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) inputs, per channel C."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) inputs, per channel C.

    >>> from ember import nn
    >>> nn.BatchNorm2d(8)
    BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over (N, C, D, H, W) inputs, per channel C."""

    _dims = (5,)


class _InstanceNorm(_NormBase):
    """Per-sample, per-channel normalisation over the spatial dims (no batch statistics)."""

    _spatial = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        no_batch = self._spatial + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise ValueError(f"expected {no_batch}D or {no_batch + 1}D input (got {input.dim()}D input)")
        feature_dim = input.dim() - no_batch
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        x = input.unsqueeze(0) if input.dim() == no_batch else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if input.dim() == no_batch else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L) inputs."""


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W) inputs."""

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) inputs."""

    _spatial = 3


class LayerNorm(Module):
    """Normalisation over the trailing `normalized_shape` dimensions, with elementwise affine."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ea.empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(ea.empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        n = len(self.normalized_shape)
        if input.is_nested:  # a strided nested tensor has no shape: F.layer_norm checks each component
            return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)
        if tuple(input.shape[input.dim() - n:]) != self.normalized_shape or input.dim() < n:
            raise RuntimeError(f"Given normalized_shape={list(self.normalized_shape)}, expected input with shape "
                               f"[*, {', '.join(map(str, self.normalized_shape))}], but got input of size"
                               f"{list(input.shape)}")
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalisation over `num_groups` groups of channels of each sample of (N, C, *) inputs."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(ea.empty(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(ea.empty(num_channels, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation over (N, C, *) inputs whose statistics PyTorch reduces over every process of a
    distributed job.

    Outside an initialized process group of more than one process (and in eval) it is `BatchNorm`, as in
    PyTorch. ember does not synchronise the statistics across processes: training in such a group raises
    NotImplementedError rather than silently normalising per process.
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

    def forward(self, input: Tensor) -> Tensor:
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        # looked up, not imported: ember.distributed is a layer above ember.nn
        dist = sys.modules.get("ember.distributed")
        if bn_training and self.training and dist is not None and dist.is_initialized() and \
                dist.get_world_size(self.process_group) > 1:
            raise NotImplementedError("SyncBatchNorm: ember does not synchronise batch statistics across processes; "
                                      "use BatchNorm (per-process statistics) or train in one process")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """`module` with every batch norm in it replaced by a SyncBatchNorm sharing its parameters and
        running statistics."""
        out = module
        if isinstance(module, _BatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group, bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
