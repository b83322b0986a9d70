"""`torch.special`: PyTorch's special functions, every one of the module (`ember.core.special`)."""

from ember.core.special import *  # noqa: F403
from ember.core.special import __all__  # noqa: F401
