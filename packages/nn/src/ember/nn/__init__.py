"""`ember.nn`: PyTorch's `torch.nn` (Module, Parameter, layers, losses, containers) on ember."""

from ember.nn.parameter import Buffer, Parameter
from ember.nn.modules import *
from ember.nn.modules import Module
from ember.nn import attention, common_types, functional, grad, init, utils


def factory_kwargs(kwargs: dict | None) -> dict:
    """PyTorch's `torch.nn.factory_kwargs`: the `device`/`dtype`/`memory_format` keywords of `kwargs`
    (and of its `factory_kwargs` entry) for factory functions; TypeError for anything else."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    if not kwargs.keys() <= simple | {"factory_kwargs"}:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - simple - {'factory_kwargs'}}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r
