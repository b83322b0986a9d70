"""`torch.func`: the transforms of `ember.autograd.func` and `functional_call`, which runs a module with
parameters and buffers given in a dict (the stateless style of torch.func programs)."""

from __future__ import annotations

import contextlib

from ember.autograd.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "vmap"]


@contextlib.contextmanager
def _swapped(module, tensors: dict, strict: bool):
    """Put `tensors` (by dotted name) in place of the module's parameters and buffers, restoring them after."""
    names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
    unknown = [n for n in tensors if n not in names]
    if unknown:
        raise RuntimeError(f"Unexpected key(s): {', '.join(repr(n) for n in unknown)}.")
    if strict and set(tensors) != names:
        missing = sorted(names - set(tensors))
        raise RuntimeError(f"Missing key(s): {', '.join(repr(n) for n in missing)}.")
    saved = []
    try:
        for name, t in tensors.items():
            owner_name, _, attr = name.rpartition(".")
            owner = module.get_submodule(owner_name) if owner_name else module
            store = owner._parameters if attr in owner._parameters else owner._buffers
            saved.append((store, attr, store[attr]))
            store[attr] = t
        yield
    finally:
        for store, attr, old in reversed(saved):
            store[attr] = old


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """`module(*args, **kwargs)` computed with the given parameters and buffers in place of its own (a dict,
    or a tuple of dicts merged in order); the module is left as it was."""
    dicts = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, tuple | list) else \
        (parameter_and_buffer_dicts,)
    merged: dict = {}
    for d in dicts:
        clash = set(merged) & set(d)
        if clash:
            raise ValueError(f"{sorted(clash)} appeared in multiple dictionaries; behavior of functional call is "
                             "ambiguous")
        merged.update(d)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _swapped(module, merged, strict):
        return module(*args, **(kwargs or {}))
