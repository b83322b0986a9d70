"""`torch.quantization`: PyTorch's older spelling of `torch.ao.quantization` (the same functions)."""

from ember.torch.ao.quantization import *  # noqa: F403
from ember.torch.ao.quantization import __all__  # noqa: F401
