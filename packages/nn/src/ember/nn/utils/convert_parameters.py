"""`parameters_to_vector` / `vector_to_parameters`: flatten parameters into one vector and back."""

from __future__ import annotations

from collections.abc import Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.tensor import describe

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """One 1-D tensor: every parameter flattened, concatenated in order."""
    vec = []
    device = None
    for p in parameters:
        if device is not None and p.device != device:
            raise TypeError(f"Found two parameters on different devices, this is currently not supported; got "
                            f"{describe(p)} after a parameter on {device}")
        device = p.device
        vec.append(p.view(-1))  # PyTorch views: a non-contiguous parameter is an error, never a silent copy
    return ea.cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Point each parameter's data at the next slice of `vec` (PyTorch's `param.data = ...`: they share memory)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device = None
    pointer = 0
    for p in parameters:
        if device is not None and p.device != device:
            raise TypeError(f"Found two parameters on different devices, this is currently not supported; got "
                            f"{describe(p)} after a parameter on {device}")
        device = p.device
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n
