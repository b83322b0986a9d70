"""`torch.ao.nn.intrinsic.modules.fused`: Sequential containers marking modules fused for inference (a convolution
or linear layer with its ReLU, a batch norm with its ReLU), as `ao.quantization.fuse_modules` builds them."""

from ember import nn

__all__ = ["ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "LinearReLU", "BNReLU2d", "BNReLU3d"]


class _FusedModule(nn.Sequential):
    """Modules fused into one: run in order, as a Sequential."""

    _parts: tuple = ()

    def __init__(self, *modules) -> None:
        if tuple(type(m) for m in modules) != self._parts:
            names = " and ".join(type(m).__name__ for m in modules)
            raise AssertionError(f"Incorrect types for input modules: {names}")
        super().__init__(*modules)


class ConvReLU1d(_FusedModule):
    _parts = (nn.Conv1d, nn.ReLU)


class ConvReLU2d(_FusedModule):
    _parts = (nn.Conv2d, nn.ReLU)


class ConvReLU3d(_FusedModule):
    _parts = (nn.Conv3d, nn.ReLU)


class LinearReLU(_FusedModule):
    _parts = (nn.Linear, nn.ReLU)


class BNReLU2d(_FusedModule):
    _parts = (nn.BatchNorm2d, nn.ReLU)


class BNReLU3d(_FusedModule):
    _parts = (nn.BatchNorm3d, nn.ReLU)
