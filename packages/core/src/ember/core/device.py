"""Devices: `device("cpu")`, `device("cuda:1")`; strings are accepted wherever a device is."""

from __future__ import annotations

import re

from ember.core import dtypes
from ember.core.device_backends import backend

__all__ = ["device", "as_device", "set_default_device", "get_default_device"]

_TYPES = ("cpu", "cuda", "meta")
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")
_PYTORCH_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, "
                  "meta, hpu, mtia, privateuseone")  # the device types PyTorch's parser names when refusing one
# PyTorch's other device types: a `device` of one is made (`torch.device("mps")`), memory on it is refused
_OTHER_TYPES = frozenset(_PYTORCH_TYPES.split(", ")) - frozenset(_TYPES)


class device:
    """Where a tensor's storage lives: a type (`cpu`, `cuda`, or `meta`: no data) and, for CUDA, an index."""

    __slots__ = ("type", "index")

    def __new__(cls, type, index: int | None = None):
        if isinstance(type, device):
            return type
        if isinstance(type, int) and not isinstance(type, bool):  # PyTorch's current accelerator: CUDA, or none
            if (type, None) not in _CACHE and not backend("cuda").is_available():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device: expected a string, an int or a device; got {type!r}")
        key = (type, index)
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        parsed = _DEVICE_STRING.fullmatch(type)
        if parsed is None:  # PyTorch's parser: a type of letters and '_', then ':' and an index without leading zeros
            raise RuntimeError("Device string must not be empty" if not type else f"Invalid device string: '{type}'")
        kind, idx = parsed.groups()
        if kind not in _TYPES and kind not in _OTHER_TYPES:
            raise RuntimeError(f"Expected one of {_PYTORCH_TYPES} device type at start of device string: {kind}")
        if idx is not None:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: "
                                   f"{type}")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self = object.__new__(cls)
        object.__setattr__(self, "type", kind)
        object.__setattr__(self, "index", index)
        _CACHE[key] = self
        return self

    def __setattr__(self, name, value):
        raise AttributeError("device is immutable")

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else (
            f"device(type='{self.type}', index={self.index})")

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except RuntimeError:
                return False
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self) -> device:
        """`with device("cuda"):` makes this the default device of the factories (and so of the modules) made
        inside the block, as `set_default_device` would; the previous default comes back after it."""
        global _default
        _entered.append(_default)
        _default = self
        return self

    def __exit__(self, *exc) -> None:
        global _default
        _default = _entered.pop()

    def __reduce__(self):
        return (device, (str(self),))

    def __getattr__(self, name: str):
        raise dtypes.no_attribute(self, name)


_CACHE: dict = {}
CPU = device("cpu")


_default: device | None = None  # where factories put tensors given no device (`set_default_device`)
_entered: list = []  # the defaults that `with device(...)` blocks replaced, innermost last


def set_default_device(device) -> None:  # noqa: A002 - PyTorch's argument name
    """Where factory functions (`zeros`, `tensor`, `randn` ...) put tensors given no `device`; None resets to CPU."""
    global _default
    _default = None if device is None else globals()["device"](device)


def get_default_device() -> device:
    """The device factory functions use when given none (`cpu` unless `set_default_device` changed it)."""
    return CPU if _default is None else as_device(_default)


def as_device(d) -> device:
    """A concrete device: `None` means the default device (the CPU unless `set_default_device` changed it); a
    bare "cuda" means the current CUDA device."""
    if d is None:
        if _default is None:
            return CPU
        d = _default
    d = device(d)
    if d.type == "cuda" and d.index is None:
        return device("cuda", backend("cuda").current_device())
    return d
