"""`torch.nn.modules.padding`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.extra import (
    CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d,
    ReplicationPad1d, ReplicationPad2d, ZeroPad1d, ZeroPad2d,
)

__all__ = [
    "CircularPad1d", "CircularPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "ZeroPad1d", "ZeroPad2d"
]

from ember.nn.modules.more import (  # noqa: E402
    CircularPad3d, ConstantPad3d, ReflectionPad3d, ReplicationPad3d, ZeroPad3d,
)

__all__ += ["CircularPad3d", "ConstantPad3d", "ReflectionPad3d", "ReplicationPad3d", "ZeroPad3d"]
