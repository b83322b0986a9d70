"""`DataParallel`: PyTorch's single-process wrapper, here on one device (ember runs one device per
process), so that programs written for it run unchanged and save `module.`-prefixed state dicts."""

from __future__ import annotations

from ember.nn.modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Runs `module` on its device; `device_ids` beyond the first are not used."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = list(device_ids) if device_ids is not None else []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
