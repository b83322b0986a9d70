"""`torch.func`: function transforms (`grad`, `vmap`, `jacrev`, ... from ember.autograd) and
`functional_call`/`stack_module_state` (from ember.nn), which make a module a function of its weights."""

from ember.autograd.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp, vmap
from ember.nn.func import functional_call, stack_module_state

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vjp", "vmap",
           "functional_call", "stack_module_state"]
