"""`ember.nn`: PyTorch's `torch.nn` (Module, Parameter, layers, losses, containers) on ember."""

from ember.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from ember.nn.modules import *
from ember.nn.modules import Module
from ember.nn import attention, common_types, functional, grad, init, utils


def factory_kwargs(kwargs: dict | None) -> dict:
    """The `device`/`dtype`/`memory_format` keywords of `kwargs` for factory functions, merged with an explicit
    `factory_kwargs` entry; any other key raises TypeError (as `torch.nn.factory_kwargs`)."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    if not kwargs.keys() <= simple | {"factory_kwargs"}:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - simple - {'factory_kwargs'}}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for k in simple & kwargs.keys():
        if k in out:
            raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
        out[k] = kwargs[k]
    return out
