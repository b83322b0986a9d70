"""`torch.ao.nn.intrinsic.modules`: the fused module classes (`fused`)."""

from ember.torch.ao.nn.intrinsic.modules.fused import *  # noqa: F403
from ember.torch.ao.nn.intrinsic.modules.fused import __all__  # noqa: F401
