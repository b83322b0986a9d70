"""`LazyModuleMixin` and the lazy layers: modules whose input size (`in_features`, `in_channels`,
`num_features`) is read from the first input, as PyTorch's `Lazy*` modules.

Until the first forward the module holds `UninitializedParameter`s and `UninitializedBuffer`s; a forward
pre-hook calls `initialize_parameters(*args, **kwargs)`, which materializes them in place (an optimizer
built before the first forward keeps working) and initialises them as the eager layer does; the module
then becomes its `cls_to_become` (`LazyLinear` becomes `Linear`). A checkpoint loaded into a lazy module
materializes it with the checkpoint's shapes.

A lazy layer over a new eager layer is a few lines: for a convolution, subclass
`(_LazyConvXdMixin, ConvNd)`, set `cls_to_become`, and call `_lazy_init` after the eager `__init__` with
zero channels.
"""

from __future__ import annotations

import itertools

from ember import autograd as ea
from ember.core import Tensor
from ember.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ember.nn.modules.linear import Linear
from ember.nn.modules.normalization import (
    BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _BatchNorm, _InstanceNorm,
)
from ember.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


def _lazy_load_hook(module, state_dict: dict, prefix: str, *args) -> None:
    """Materialize each uninitialized tensor that the checkpoint holds initialized, with its shape."""
    for name, param in itertools.chain(module._parameters.items(), module._buffers.items()):
        key = prefix + name
        if param is not None and key in state_dict and is_lazy(param):
            value = state_dict[key]
            if not is_lazy(value):
                with ea.no_grad():
                    param.materialize(value.shape)


class LazyModuleMixin:
    """Mixin of modules that infer their parameters' shapes from the first input.

    >>> import ember.autograd as torch
    >>> from ember import nn
    >>> fc = nn.LazyLinear(3)
    >>> fc.weight
    <UninitializedParameter>
    >>> fc(torch.ones(2, 5)).shape
    ember.Size([2, 3])
    >>> fc
    Linear(in_features=5, out_features=3, bias=True)
    """

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self.register_load_state_dict_pre_hook(_lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        # uninitialized tensors are saved as themselves, so that loading them keeps a module lazy
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Materialize and initialise the parameters from the first forward's arguments."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer of this module (not its children) is still uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")


class LazyLinear(LazyModuleMixin, Linear):
    """`Linear` whose `in_features` is the last dimension of the first input; becomes `Linear`.

    Args:
        out_features: size of each output sample.
        bias: learn an additive bias.
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Read `in_features` from `input.shape[-1]`, materialize and initialise weight and bias."""
        if self.has_uninitialized_params():
            with ea.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # initialized by a loaded checkpoint
            self.in_features = self.weight.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    """The lazy part of every convolution: `in_channels` is the channel dimension of the first input."""

    def _lazy_init(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        """Read `in_channels` from `input`, materialize and initialise weight and bias."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            with ea.no_grad():
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()
        if self.in_channels == 0:  # initialized by a loaded checkpoint
            w = self.weight.shape
            self.in_channels = w[0] if self.transposed else w[1] * self.groups

    def _get_in_channels(self, input: Tensor) -> int:
        no_batch = self._get_num_spatial_dims() + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def _get_num_spatial_dims(self) -> int:
        return self._nd


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """`Conv1d` whose `in_channels` is read from the first input; becomes `Conv1d`."""

    cls_to_become = Conv1d

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """`Conv2d` whose `in_channels` is read from the first input; becomes `Conv2d`."""

    cls_to_become = Conv2d

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """`Conv3d` whose `in_channels` is read from the first input; becomes `Conv3d`."""

    cls_to_become = Conv3d

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    """`ConvTranspose1d` whose `in_channels` is read from the first input; becomes `ConvTranspose1d`."""

    cls_to_become = ConvTranspose1d

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    """`ConvTranspose2d` whose `in_channels` is read from the first input; becomes `ConvTranspose2d`."""

    cls_to_become = ConvTranspose2d

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    """`ConvTranspose3d` whose `in_channels` is read from the first input; becomes `ConvTranspose3d`."""

    cls_to_become = ConvTranspose3d

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyNormBase(LazyModuleMixin):
    """The lazy part of batch and instance norms: `num_features` is `input.shape[1]` of the first input (as
    PyTorch, also for an unbatched instance-norm input)."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        # affine and running stats off: no eager tensors that the uninitialized ones would replace
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = ea.tensor(0, dtype=ea.long, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Read `num_features` from `input.shape[1]`, materialize weight, bias and running statistics."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with ea.no_grad():
                for t in (self.weight, self.bias, self.running_mean, self.running_var):
                    if t is not None:
                        t.materialize((self.num_features,))
                self.reset_parameters()
        if self.num_features == 0:  # initialized by a loaded checkpoint
            held = next((t for t in (self.weight, self.running_mean) if t is not None), None)
            self.num_features = held.shape[0] if held is not None else input.shape[1]


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """`BatchNorm1d` whose `num_features` is read from the first input; becomes `BatchNorm1d` (until then no
    `BatchNorm1d`, as PyTorch's)."""

    cls_to_become = BatchNorm1d
    _dims = BatchNorm1d._dims


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """`BatchNorm2d` whose `num_features` is read from the first input; becomes `BatchNorm2d` (until then no
    `BatchNorm2d`, as PyTorch's)."""

    cls_to_become = BatchNorm2d
    _dims = BatchNorm2d._dims


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """`BatchNorm3d` whose `num_features` is read from the first input; becomes `BatchNorm3d` (until then no
    `BatchNorm3d`, as PyTorch's)."""

    cls_to_become = BatchNorm3d
    _dims = BatchNorm3d._dims


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """`InstanceNorm1d` whose `num_features` is read from the first input; becomes `InstanceNorm1d` (until then no
    `InstanceNorm1d`, as PyTorch's)."""

    cls_to_become = InstanceNorm1d
    _spatial = InstanceNorm1d._spatial


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """`InstanceNorm2d` whose `num_features` is read from the first input; becomes `InstanceNorm2d` (until then no
    `InstanceNorm2d`, as PyTorch's)."""

    cls_to_become = InstanceNorm2d
    _spatial = InstanceNorm2d._spatial


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """`InstanceNorm3d` whose `num_features` is read from the first input; becomes `InstanceNorm3d` (until then no
    `InstanceNorm3d`, as PyTorch's)."""

    cls_to_become = InstanceNorm3d
    _spatial = InstanceNorm3d._spatial
