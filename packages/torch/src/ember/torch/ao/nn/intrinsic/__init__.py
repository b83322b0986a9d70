"""`torch.ao.nn.intrinsic`: the modules `ao.quantization.fuse_modules` builds (a convolution or linear layer with
its ReLU, a batch norm with its ReLU), defined in `modules.fused`."""

from ember.torch.ao.nn.intrinsic import modules  # noqa: F401
from ember.torch.ao.nn.intrinsic.modules.fused import *  # noqa: F403
from ember.torch.ao.nn.intrinsic.modules.fused import __all__  # noqa: F401
