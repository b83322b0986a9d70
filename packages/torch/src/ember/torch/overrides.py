"""`torch.overrides`: the `__torch_function__` protocol (ember.core.overrides, where `torch.nn.functional`
can reach it too)."""

from ember.core.overrides import *  # noqa: F403
from ember.core.overrides import __all__  # noqa: F401
