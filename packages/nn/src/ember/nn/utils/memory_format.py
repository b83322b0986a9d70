"""Converting convolution weights to a memory format (channels_last) in place, through a module tree."""

from __future__ import annotations

from ember.nn.modules import conv
from ember.nn.modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module: Module, memory_format, names: tuple[str, ...]) -> Module:
    classes = tuple(getattr(conv, n) for n in names if hasattr(conv, n))
    if isinstance(module, classes):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, names)
    return module


def convert_conv2d_weight_memory_format(module: Module, memory_format) -> Module:
    """Give every Conv2d/ConvTranspose2d weight in `module` the layout `memory_format`; returns `module`."""
    return _convert(module, memory_format, ("Conv2d", "ConvTranspose2d"))


def convert_conv3d_weight_memory_format(module: Module, memory_format) -> Module:
    """Give every Conv3d/ConvTranspose3d weight in `module` the layout `memory_format`; returns `module`."""
    return _convert(module, memory_format, ("Conv3d", "ConvTranspose3d"))
