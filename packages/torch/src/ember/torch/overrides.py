"""`torch.overrides`: the `__torch_function__` protocol, Tensor subclasses and torch-function modes
(ember.core.overrides, where `torch.nn.functional` can reach it too; NOTE [ Tensor subclasses ] there).
`_disabled_torch_function_impl` is PyTorch's `torch._C._disabled_torch_function_impl` (ember has no `torch._C`)."""

from ember.core.overrides import *  # noqa: F403
from ember.core.overrides import __all__  # noqa: F401
from ember.core.overrides import (  # noqa: F401 - PyTorch's private names that user code imports from here
    _disabled_torch_function_impl, _get_current_function_mode, _get_current_function_mode_stack,
    _is_torch_function_mode_enabled,
)
