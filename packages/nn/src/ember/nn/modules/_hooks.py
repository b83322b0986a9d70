"""`RemovableHandle` (what `register_*_hook` returns; `.remove()` takes the hook out again) and the global
module hooks (`register_module_*`) that every module runs besides its own."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from ember.autograd.graph import RemovableHandle

__all__ = ["RemovableHandle", "register_module_forward_hook", "register_module_forward_pre_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]


# the hooks every module runs, registered by the `register_module_*` functions below
_global_forward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks_with_kwargs: dict[int, bool] = OrderedDict()
_global_forward_hooks_always_called: dict[int, bool] = OrderedDict()
_global_backward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_backward_hooks: dict[int, Callable] = OrderedDict()
_global_buffer_registration_hooks: dict[int, Callable] = OrderedDict()
_global_module_registration_hooks: dict[int, Callable] = OrderedDict()
_global_parameter_registration_hooks: dict[int, Callable] = OrderedDict()
_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _global_hook(hooks: dict, hook: Callable) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """A forward pre-hook run before every module's own ones."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """A forward hook run before every module's own ones (`with_kwargs`: `hook(module, args, kwargs, output)`;
    `always_call`: also when forward raises, with output None)."""
    handle = RemovableHandle(_global_forward_hooks, extra_dict=[_global_forward_hooks_with_kwargs,
                                                               _global_forward_hooks_always_called])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """`hook(module, grad_output)` for every module, before its own backward pre-hooks."""
    return _global_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """`hook(module, grad_input, grad_output)` for every module, before its own backward hooks."""
    return _global_hook(_global_backward_hooks, hook)


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    """The deprecated global backward hook: ember runs it as a full backward hook (the gradients of the
    module's inputs and outputs), which is what PyTorch's non-full hook gives for single-op modules."""
    return _global_hook(_global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """`hook(module, name, buffer)` at every `register_buffer`; it may return a replacement buffer."""
    return _global_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """`hook(module, name, submodule)` at every `add_module`/`register_module`; it may return a replacement."""
    return _global_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """`hook(module, name, param)` at every `register_parameter`; it may return a replacement."""
    return _global_hook(_global_parameter_registration_hooks, hook)


def _run_registration_hooks(hooks: dict, module, name: str, value):
    for hook in list(hooks.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value
