"""`Parameter`: a tensor that a `Module` registers as one of its learnable weights."""

from __future__ import annotations

from collections import OrderedDict

from ember.core import Tensor, empty

__all__ = ["Parameter", "Buffer", "is_lazy"]


def _detached(t: Tensor) -> Tensor:
    """A plain tensor over `t`'s storage (shared version counter) that carries no gradient."""
    return Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype)


class Parameter(Tensor):
    """A tensor that, assigned as a `Module` attribute, joins the module's `parameters()`.

    It shares the storage of `data` (no copy) and is a leaf with `requires_grad=True` by default.

    >>> import ember.core as ec
    >>> p = Parameter(ec.zeros(2))
    >>> isinstance(p, Tensor), p.requires_grad, p.shape
    (True, True, ember.Size([2]))
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter: data must be a Tensor; got {type(data).__name__}")
        p = Tensor._make(data._storage, data._offset, data._shape, data._strides, data._dtype, cls)
        p._requires_grad = bool(requires_grad)
        return p

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(_detached(self).clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (_detached(self), self.requires_grad, OrderedDict()))


def _rebuild_parameter(data: Tensor, requires_grad: bool, hooks) -> Parameter:
    return Parameter(data, requires_grad)


class Buffer:
    """Marks a tensor to be registered as a buffer when assigned to a `Module` attribute."""

    def __init__(self, data: Tensor, *, persistent: bool = True) -> None:
        self.data = data
        self.persistent = persistent


def is_lazy(param) -> bool:
    """ember has no lazy modules; kept for PyTorch API compatibility."""
    return False
