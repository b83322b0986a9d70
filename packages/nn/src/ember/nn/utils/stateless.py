"""`functional_call`: run a module with some parameters and buffers replaced by given tensors, as
`torch.nn.utils.stateless` (deprecated in PyTorch in favour of `torch.func.functional_call`)."""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

from ember.core import Tensor
from ember.nn.modules.module import Module

__all__ = ["functional_call"]


def _owner(module: Module, name: str) -> tuple[Module, str]:
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def _swap(module: Module, name: str, value):
    """Put `value` at the dotted `name` (parameter, buffer or attribute slot); returns what was there."""
    owner, leaf = _owner(module, name)
    for store in (owner._parameters, owner._buffers):
        if leaf in store:
            old = store[leaf]
            store[leaf] = value
            return old
    old = owner.__dict__.get(leaf)
    object.__setattr__(owner, leaf, value)
    return old


def _untie(module: Module, tensors: dict[str, Tensor]) -> dict[str, Tensor]:
    """Extend `tensors` to every name tied (the same tensor) to a given name."""
    names_of: dict[int, set[str]] = {}
    for name, t in [*module.named_parameters(remove_duplicate=False), *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: group for group in names_of.values() if len(group) > 1 for n in group}
    out = dict(tensors)
    for name in [n for n in tensors if n in tied]:
        group = tied[name]
        given = [g for g in group if g in tensors]
        if len(given) > 1 and len({id(tensors[g]) for g in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, which are tied. "
                             "Consider using tie_weights=False")
        for other in group:
            out[other] = tensors[name]
    return out


@contextlib.contextmanager
def _reparametrize_module(module: Module, parameters_and_buffers: dict[str, Tensor], tie_weights: bool = False,
                          strict: bool = False):
    tensors = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        known = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
            {n for n, _ in module.named_buffers(remove_duplicate=False)}
        unexpected = [k for k in tensors if k not in known]
        missing = [k for k in sorted(known) if k not in tensors]
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                  "\n\t".join(errors)))
    originals: dict[str, Any] = {}
    try:
        for name, value in tensors.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        for name, value in originals.items():
            _swap(module, name, value)


def functional_call(module: Module, parameters_and_buffers: dict[str, Tensor], args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """`module(*args, **kwargs)` with the named parameters and buffers replaced by the given tensors for
    the call (gradients flow to them); the module is unchanged afterwards."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
