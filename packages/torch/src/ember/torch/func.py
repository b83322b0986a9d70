"""`torch.func`: function transforms (`grad`, `vmap`, `jacrev`, ... from ember.autograd) and
`functional_call`/`stack_module_state` (from ember.nn), which make a module a function of its weights, and
`replace_all_batch_norm_modules_`, and einops' `rearrange`."""

from ember.autograd.func import (
    debug_unwrap, functionalize, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp, vmap,
)
from ember.autograd.einops import rearrange
from ember.nn.func import functional_call, replace_all_batch_norm_modules_, stack_module_state

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vjp", "vmap",
           "functionalize", "debug_unwrap", "functional_call", "stack_module_state", "replace_all_batch_norm_modules_",
           "rearrange"]
