"""`torch.nn.utils.stateless.functional_call`, deprecated in PyTorch 2.0 for `torch.func.functional_call`
(`ember.nn.func`), which it calls after the same FutureWarning."""

from __future__ import annotations

import warnings

from ember.nn import func as _func
from ember.nn.modules.module import Module

__all__ = ["functional_call"]


def functional_call(module: Module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """`module(*args, **kwargs)` with the named parameters and buffers replaced for the call (see
    `ember.nn.func.functional_call`)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    return _func.functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                                 strict=strict)
