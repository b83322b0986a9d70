"""`torch.nn`: ember.nn's layers, `Parameter`, `functional` and `init`, with PyTorch's submodule paths
(`nn.modules.*`, `nn.utils`, `nn.parallel`, `nn.parameter`)."""

import ember.nn as _nn
from ember.nn import *  # noqa: F403
from ember.nn import Buffer, Module, Parameter
from ember.torch._alias import alias as _alias

# the same module objects as ember.nn's: `torch.nn.functional is ember.nn.functional`
functional = _alias(__name__ + ".functional", _nn.functional)
init = _alias(__name__ + ".init", _nn.init)
utils = _alias(__name__ + ".utils", _nn.utils)
grad = _alias(__name__ + ".grad", _nn.grad)
attention = _alias(__name__ + ".attention", _nn.attention)
common_types = _alias(__name__ + ".common_types", _nn.common_types)
parameter = _alias(__name__ + ".parameter", __import__("ember.nn.parameter", fromlist=["Parameter"]))

import ember.torch.nn.modules as modules  # noqa: E402 - not `from ember.torch.nn import`: the star import
import ember.torch.nn.parallel as parallel  # noqa: E402   bound `modules` to ember.nn.modules
from ember.torch.nn.parallel import DataParallel  # noqa: E402
