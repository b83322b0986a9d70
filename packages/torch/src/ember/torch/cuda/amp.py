"""`torch.cuda.amp`: the CUDA-defaulting `autocast` and `GradScaler` of `torch.amp` (deprecated names in
PyTorch, still common in programs); without a GPU both disable themselves with PyTorch's warnings."""

from __future__ import annotations

from ember.torch.amp import GradScaler as _GradScaler
from ember.torch.amp import autocast as _autocast
from ember.torch.amp import custom_bwd, custom_fwd

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_autocast):
    """`torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)`."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True) -> None:
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    def __call__(self, func):
        return _autocast("cuda", self.fast_dtype, self._enabled)(func)


class GradScaler(_GradScaler):
    """`torch.cuda.amp.GradScaler(...)`: `torch.amp.GradScaler("cuda", ...)`."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
