"""`Upsample`: resampling by `F.interpolate`."""


from __future__ import annotations

from ember.core import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = ["Upsample"]


class Upsample(Module):
    """Upsamples (N, C, *spatial) inputs to `size` or by `scale_factor` (nearest, bilinear, ...)."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"
