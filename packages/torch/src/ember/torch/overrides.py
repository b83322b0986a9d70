"""`torch.overrides`: the `__torch_function__` protocol, Tensor subclasses and torch-function modes
(ember.core.overrides, where `torch.nn.functional` can reach it too; NOTE [ Tensor subclasses ] there).
`_disabled_torch_function_impl` is PyTorch's `torch._C._disabled_torch_function_impl` (ember has no `torch._C`)."""

from ember.core.overrides import *  # noqa: F403
from ember.core.overrides import __all__  # noqa: F401
from ember.core.overrides import (  # noqa: F401 - PyTorch's private names that user code imports from here
    _disabled_torch_function_impl, _get_current_function_mode, _get_current_function_mode_stack,
    _is_torch_function_mode_enabled,
)


def get_overridable_functions() -> dict:
    """{namespace: [functions]} as ember.core's, keyed by this `torch` module as PyTorch's (`torch.add in
    get_overridable_functions()[torch]`)."""
    import sys

    from ember.core import overrides as _core

    core = sys.modules["ember.core"]
    return {(sys.modules["ember.torch"] if k is core else k): v for k, v in _core.get_overridable_functions().items()}
