"""`Conv1d/2d/3d`, `ConvTranspose1d/2d/3d` with PyTorch's attributes, initialisation and repr."""


from __future__ import annotations

import math
import warnings

from ember import autograd as ea
from ember.core import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(v, n: int) -> tuple:
    if isinstance(v, tuple | list):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    _nd = 2
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride, padding, dilation, groups: int,
                 bias: bool, padding_mode: str, output_padding=0, device=None, dtype=None) -> None:
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, nd)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            modes = ", ".join(repr(m) for m in _PADDING_MODES)  # PyTorch prints a set
            raise ValueError(f"padding_mode must be one of {{{modes}}}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, nd)
        self.stride = _ntuple(stride, nd)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, nd)
        self.dilation = _ntuple(dilation, nd)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        # PyTorch's F.pad argument for the padding modes (read by subclasses that pad themselves): per dim from
        # the last, (left, right); 'same' puts the extra element of an odd total on the right
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * nd
            if padding == "same":
                for i, (d, k) in enumerate(zip(reversed(self.dilation), reversed(self.kernel_size))):
                    total = d * (k - 1)
                    self._reversed_padding_repeated_twice[2 * i: 2 * i + 2] = [total // 2, total - total // 2]
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(self.padding) for _ in range(2))
        if self._transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(ea.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(ea.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _check_input(self, input: Tensor) -> None:
        nd = self._nd
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv{nd}d, "
                               f"but got input of size: {list(input.shape)}")

    def _check_channels(self, x: Tensor, weight: Tensor) -> None:
        """PyTorch's channel error names the input as its kernel sees it: batched, padded by a padding mode (or,
        for zero padding='same', by the extra trailing element of an odd total)."""
        got = x.shape[-self._nd - 1]
        if got != self.in_channels:
            shape = list(x.shape) if x.dim() == self._nd + 2 else [1, *x.shape]
            if self.padding == "same" and self.padding_mode == "zeros":
                shape[2:] = [n + d * (k - 1) % 2 for n, k, d in zip(shape[2:], self.kernel_size, self.dilation)]
            raise RuntimeError(f"Given groups={self.groups}, weight of size {list(weight.shape)}, expected "
                               f"input{shape} to have {self.in_channels} channels, but got {got} channels instead")

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        """The module's convolution with another weight and bias (PyTorch's hook for weight-standardised and
        reparametrised convolutions): its stride, padding and padding mode, dilation and groups. A padding mode
        pads first, so F.pad's errors come before the rank check, as PyTorch's."""
        x, padding = self._padded(input)
        self._check_input(input)
        self._check_channels(x, weight)
        conv = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        return conv(x, weight, bias, self.stride, padding, self.dilation, self.groups)

    def _padded(self, input: Tensor) -> tuple[Tensor, object]:
        """Non-zero padding modes pad explicitly and convolve without padding ('same': the extra element of an
        odd total at the end, as PyTorch's; 'valid' pads by nothing, but through F.pad and its checks)."""
        if self.padding_mode == "zeros":
            return input, self.padding
        return F.pad(input, tuple(self._reversed_padding_repeated_twice), mode=self.padding_mode), 0

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if isinstance(self.padding, str) or self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) inputs; weight (out_channels, in_channels / groups, k)."""

    _nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device=device, dtype=dtype)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) inputs; weight (out_channels, in_channels / groups, kH, kW).

    >>> from ember import nn
    >>> nn.Conv2d(1, 8, 3, padding=1)
    Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
    """

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device=device, dtype=dtype)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W) inputs; weight (out_channels, in_channels / groups, kD, kH, kW).

    >>> from ember import nn
    >>> nn.Conv3d(1, 8, 3, padding=1)
    Conv3d(1, 8, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))
    """

    _nd = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device=device, dtype=dtype)


class _ConvTransposeNd(_ConvNd):
    """Transposed convolution over `_nd` spatial dims; weight (in_channels, out_channels / groups, *kernel)."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):  # PyTorch's _ntuple splits it: ('s', 'a', 'm', 'e'), refused in forward
            padding = tuple(padding)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, output_padding, device=device, dtype=dtype)

    def _check_input(self, input: Tensor) -> None:
        nd = self._nd
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                               f"conv_transpose{nd}d, but got input of size: {list(input.shape)}")
        got = input.shape[-nd - 1]
        if got != self.in_channels:
            shape = list(input.shape) if input.dim() == nd + 2 else [1, *input.shape]  # batched, as PyTorch's kernel
            raise RuntimeError(f"Given transposed=1, weight of size {list(self.weight.shape)}, expected input"
                               f"{shape} to have {self.in_channels} channels, but got {got} channels instead")

    def _output_padding(self, input: Tensor, output_size, stride=None, padding=None, kernel_size=None,
                        num_spatial_dims=None, dilation=None) -> tuple[int, ...] | list[int]:
        """The output_padding that makes the output `output_size` (its last `_nd` entries), as PyTorch's: sizes from
        the least one up to `stride - 1` more, the error printing `output_size` as given and `input.size()[2:]`.
        PyTorch's signature (subclasses that copy its forward pass the geometry), the module's by default."""
        if output_size is None:
            return self.output_padding
        stride = self.stride if stride is None else stride
        padding = self.padding if padding is None else padding
        kernel_size = self.kernel_size if kernel_size is None else kernel_size
        dilation = self.dilation if dilation is None else dilation
        nd = self._nd if num_spatial_dims is None else num_spatial_dims
        lead = 2 if input.dim() == nd + 2 else 1
        if len(output_size) == lead + nd:
            output_size = output_size[lead:]
        if len(output_size) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.dim()}D input, output_size must have {nd} or {lead + nd} "
                             f"elements (got {len(output_size)})")
        least = [(n - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel_size[i] - 1) + 1
                 for i, n in enumerate(input.shape[lead:])]
        most = [m + stride[i] - 1 for i, m in enumerate(least)]
        if any(not lo <= int(n) <= hi for n, lo, hi in zip(output_size, least, most)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {least} to "
                             f"{most} (for an input of {input.size()[2:]})")
        return [int(n) - lo for n, lo in zip(output_size, least)]

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        self._check_input(input)
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._nd - 1]
        return fn(input, self.weight, self.bias, self.stride, self.padding, self._output_padding(input, output_size),
                  self.groups, self.dilation)


class _ConvTransposeMixin(_ConvTransposeNd):
    """PyTorch's deprecated internal base of transposed convolutions: constructing one warns FutureWarning."""

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn("`_ConvTransposeMixin` is a deprecated internal class. Please consider using public APIs.",
                      FutureWarning, stacklevel=2)
        super().__init__(*args, **kwargs)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution; weight (in_channels, out_channels / groups, k)."""

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution; weight (in_channels, out_channels / groups, kH, kW)."""

    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution; weight (in_channels, out_channels / groups, kD, kH, kW).

    >>> from ember import nn
    >>> nn.ConvTranspose3d(4, 2, 2, stride=2)
    ConvTranspose3d(4, 2, kernel_size=(2, 2, 2), stride=(2, 2, 2))
    """

    _nd = 3
