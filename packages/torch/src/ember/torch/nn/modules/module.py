"""`torch.nn.modules.module`: PyTorch's module path for `Module`, the global module hooks, and the private helpers
that programs import from it (`_addindent` for custom reprs, `_IncompatibleKeys` for `load_state_dict` overrides,
the global hook dicts)."""

from ember.nn.modules._hooks import _EXTRA_STATE_KEY_SUFFIX as _EXTRA_STATE_KEY_SUFFIX
from ember.nn.modules._hooks import _global_backward_hooks as _global_backward_hooks
from ember.nn.modules._hooks import _global_backward_pre_hooks as _global_backward_pre_hooks
from ember.nn.modules._hooks import _global_buffer_registration_hooks as _global_buffer_registration_hooks
from ember.nn.modules._hooks import _global_forward_hooks as _global_forward_hooks
from ember.nn.modules._hooks import _global_forward_hooks_always_called as _global_forward_hooks_always_called
from ember.nn.modules._hooks import _global_forward_hooks_with_kwargs as _global_forward_hooks_with_kwargs
from ember.nn.modules._hooks import _global_forward_pre_hooks as _global_forward_pre_hooks
from ember.nn.modules._hooks import _global_module_registration_hooks as _global_module_registration_hooks
from ember.nn.modules._hooks import _global_parameter_registration_hooks as _global_parameter_registration_hooks
from ember.nn.modules.module import (
    Module, register_module_backward_hook, register_module_buffer_registration_hook, register_module_forward_hook,
    register_module_forward_pre_hook, register_module_full_backward_hook, register_module_full_backward_pre_hook,
    register_module_module_registration_hook, register_module_parameter_registration_hook,
)
from ember.nn.modules.module import _addindent as _addindent
from ember.nn.modules.module import _IncompatibleKeys as _IncompatibleKeys

__all__ = ["Module", "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_forward_hook", "register_module_forward_pre_hook", "register_module_full_backward_hook",
           "register_module_full_backward_pre_hook", "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]
