"""`torch._foreach_*`: one op over each tensor of a list (optimizers, EMA and gradient code call them on
every parameter at once). Each is the plain op per tensor (composed of core ops, so differentiable under
ember.autograd); PyTorch fuses them into multi-tensor kernels, which changes speed, not values.

Out-of-place forms return a tuple; in-place forms (`_`) return the list they were given. A second operand is
a number, a list of numbers, a list of tensors (matched by position) or one tensor, as PyTorch's overloads.
"""

from __future__ import annotations

import numbers

from ember.core.ops import arith, elementwise, layout, linalg, reduce
from ember.core.tensor import Tensor

_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
          "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin",
          "sinh", "sqrt", "tan", "tanh", "trunc")
_BINARY = ("add", "sub", "mul", "div", "clamp_min", "clamp_max", "maximum", "minimum", "pow")

__all__ = ["_foreach_addcmul", "_foreach_addcmul_", "_foreach_addcdiv", "_foreach_addcdiv_", "_foreach_lerp",
           "_foreach_lerp_", "_foreach_norm", "_foreach_max", "_foreach_powsum", "_foreach_copy_", "_foreach_zero_",
           "_foreach_clone", "_foreach_mm"]


def _check(tensors, what: str = "Tensor list") -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{what} must be a list or tuple of Tensors, not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return list(tensors)


def _operands(self: list, other, tensors: bool = False) -> list:
    """`other` spread over `self`: a number or a tensor for every entry, or a list matched by position
    (`tensors`: a parameter PyTorch types as a tensor list, so even an empty list counts as one)."""
    if isinstance(other, (list, tuple)):
        if (other or tensors) and all(isinstance(o, Tensor) for o in other):
            if len(other) != len(self):
                raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(self)} and "
                                   f"{len(other)}")
        elif len(other) != len(self):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(other)
    if isinstance(other, Tensor) and other.ndim == 1 and other.numel() == len(self) and len(self) > 1:
        return [other[i] for i in range(len(self))]  # a tensor of scalars, one per entry (addcmul's value=)
    return [other] * len(self)


def _binary(name: str):
    def fn(x: Tensor, o, alpha):
        if name in ("add", "sub"):
            return getattr(arith, name)(x, o, alpha=alpha)
        if name in ("clamp_min", "clamp_max"):
            return elementwise.clamp(x, **{name[6:]: o})
        if name in ("maximum", "minimum") and not isinstance(o, Tensor):
            return elementwise.clamp(x, **{"min" if name == "maximum" else "max": o})
        return getattr(x, name)(o)

    def inplace(x: Tensor, o, alpha):
        if name in ("add", "sub"):
            return getattr(x, name + "_")(o, alpha=alpha)
        if name in ("maximum", "minimum"):
            return x.copy_(fn(x, o, alpha))
        return getattr(x, name + "_")(o)

    def out_of_place(self, other, *, alpha=1):
        if name == "pow" and isinstance(self, numbers.Number):  # _foreach_pow(scalar, exponents)
            return tuple(elementwise.pow(self, e) for e in _check(other))
        self = _check(self)
        return tuple(fn(x, o, alpha) for x, o in zip(self, _operands(self, other)))

    def in_place(self, other, *, alpha=1):
        for x, o in zip(_check(self), _operands(list(self), other)):
            inplace(x, o, alpha)
        return self

    out_of_place.__name__, in_place.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
    out_of_place.__doc__ = f"`{name}` of each tensor of `self` with `other` (a number, numbers, tensors or a tensor)."
    in_place.__doc__ = f"`{name}_` of each tensor of `self` with `other`, in place; returns `self`."
    return out_of_place, in_place


def _unary(name: str):
    def out_of_place(self):
        return tuple(getattr(x, name)() for x in _check(self))

    def in_place(self):
        for x in _check(self):
            getattr(x, name + "_")()
        return self

    out_of_place.__name__, in_place.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
    out_of_place.__doc__ = f"`{name}` of each tensor of `self`."
    in_place.__doc__ = f"`{name}_` of each tensor of `self`, in place; returns `self`."
    return out_of_place, in_place


for _name in _UNARY:
    globals()[f"_foreach_{_name}"], globals()[f"_foreach_{_name}_"] = _unary(_name)
    __all__ += [f"_foreach_{_name}", f"_foreach_{_name}_"]
for _name in _BINARY:
    globals()[f"_foreach_{_name}"], globals()[f"_foreach_{_name}_"] = _binary(_name)
    __all__ += [f"_foreach_{_name}", f"_foreach_{_name}_"]


def _foreach_addcmul(self, tensor1, tensor2, value=1) -> tuple:
    """`self[i] + value[i] * tensor1[i] * tensor2[i]` (value a number, numbers, or a tensor of them)."""
    self = _check(self)
    return tuple(arith.addcmul(x, a, b, value=v) for x, a, b, v in
                 zip(self, _operands(self, tensor1, True), _operands(self, tensor2, True), _values(self, value)))


def _foreach_addcmul_(self, tensor1, tensor2, value=1) -> list:
    for x, a, b, v in zip(_check(self), _operands(list(self), tensor1, True), _operands(list(self), tensor2, True),
                          _values(list(self), value)):
        x.addcmul_(a, b, value=v)
    return self


def _foreach_addcdiv(self, tensor1, tensor2, value=1) -> tuple:
    """`self[i] + value[i] * tensor1[i] / tensor2[i]`."""
    self = _check(self)
    return tuple(arith.addcdiv(x, a, b, value=v) for x, a, b, v in
                 zip(self, _operands(self, tensor1, True), _operands(self, tensor2, True), _values(self, value)))


def _foreach_addcdiv_(self, tensor1, tensor2, value=1) -> list:
    for x, a, b, v in zip(_check(self), _operands(list(self), tensor1, True), _operands(list(self), tensor2, True),
                          _values(list(self), value)):
        x.addcdiv_(a, b, value=v)
    return self


def _values(self: list, value) -> list:
    """addcmul/addcdiv's `value`: numbers, as the scalar overloads take them (a tensor's entries read out)."""
    if isinstance(value, Tensor):
        if value.numel() != len(self):
            raise RuntimeError(f"Expected length of scalars to match input of length {len(self)} but got "
                               f"{value.numel()} instead.")
        return value.reshape(-1).tolist()
    return _operands(self, value)


def _foreach_lerp(self, tensors1, weight) -> tuple:
    """`self[i] + weight * (tensors1[i] - self[i])`."""
    self = _check(self)
    return tuple(elementwise.lerp(x, e, w)
                 for x, e, w in zip(self, _operands(self, tensors1, True), _operands(self, weight)))


def _foreach_lerp_(self, tensors1, weight) -> list:
    for x, e, w in zip(_check(self), _operands(list(self), tensors1, True), _operands(list(self), weight)):
        x.lerp_(e, w)
    return self


def _foreach_norm(self, ord=2, dtype=None) -> tuple:  # noqa: A002 - PyTorch's argument name
    """The vector `ord`-norm of each tensor (0-d tensors)."""
    return tuple(linalg.vector_norm(x, ord, dtype=dtype) for x in _check(self))


def _foreach_max(self) -> tuple:
    """The largest element of each tensor (0-d tensors)."""
    return tuple(reduce.amax(x) for x in _check(self))


def _foreach_powsum(self, ord=2, dtype=None) -> tuple:  # noqa: A002 - PyTorch's argument name
    """`sum(|x| ** ord)` of each tensor (0-d tensors)."""
    return tuple(reduce.sum(elementwise.pow(elementwise.abs(x), ord), dtype=dtype) for x in _check(self))


def _foreach_copy_(self, src, non_blocking: bool = False) -> list:
    """Copy each `src[i]` into `self[i]`; returns `self`."""
    for x, s in zip(_check(self), _operands(list(self), _check(src))):
        x.copy_(s, non_blocking=non_blocking)
    return self


def _foreach_zero_(self) -> list:
    """Fill each tensor with zeros; returns `self`."""
    for x in _check(self):
        x.zero_()
    return self


def _foreach_clone(self) -> tuple:
    return tuple(layout.clone(x) for x in _check(self))


def _foreach_mm(self, other) -> tuple:
    return tuple(linalg.mm(x, o) for x, o in zip(_check(self), _operands(list(self), _check(other))))
