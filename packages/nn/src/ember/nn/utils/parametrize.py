"""`register_parametrization`: a tensor of a module computed by modules from its `original`.

NOTE [ Parametrizations ]
As in PyTorch, the module's class is swapped for a generated subclass
(`ParametrizedLinear`) that has a property for the parametrized name; the property evaluates
`module.parametrizations[name]`, a `ParametrizationList` holding the original tensor(s)
(`original`, or `original0`, `original1`... when `right_inverse` returns several) and the
parametrizing modules, applied in order. Assigning to the name calls `right_inverse`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from contextlib import contextmanager

from ember import autograd as ea
from ember.core import Tensor
from ember.nn.modules.container import ModuleDict, ModuleList
from ember.nn.modules.module import Module, _set_data
from ember.nn.parameter import Parameter, _detached

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "ParametrizationList", "type_before_parametrizations", "transfer_parametrizations_and_params"]


def _register(module: Module, name: str, tensor: Tensor) -> None:
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


class ParametrizationList(ModuleList):
    """The parametrizing modules of one tensor and its original tensor(s)."""

    def __init__(self, modules, original: Tensor, unsafe: bool = False) -> None:
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype  # before right_inverse's value may replace original's data
        with ea.no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass  # PyTorch's rule: at registration, a right_inverse that cannot invert is the identity
        if not isinstance(new, Tensor | Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        if isinstance(new, Tensor):
            self.is_tensor = True
            for what in ("dtype", "device"):
                if getattr(new, what) != getattr(original, what):
                    raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the {what}.\n"
                                     f"original.{what}: {getattr(original, what)}\n"
                                     f"right_inverse(original).{what}: {getattr(new, what)}")
            if new is not original:
                with ea.no_grad():
                    _set_data(original, _detached(new).clone())
            _register(self, "original", original)
        else:
            self.is_tensor = False
            self.ntensors = len(new)
            for i, t in enumerate(new):
                t = Parameter(_detached(t).clone(), original.requires_grad) if isinstance(original, Parameter) else t
                _register(self, f"original{i}", t)
        if not unsafe:  # PyTorch's consistency check: forward(right_inverse(original)) keeps shape and dtype
            _check_same(self(), shape, dtype, "unless `unsafe` flag is enabled")

    def right_inverse(self, value: Tensor) -> None:
        """Set the original(s) so that the parametrization evaluates to `value`."""
        with ea.no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while `original` "
                                     f"has dtype {self.original.dtype}")
                self.original.set_(value)  # PyTorch's set_: takes value's storage and shape, unchecked
            else:
                if not isinstance(value, Sequence):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                     f"Got a sequence of length {len(value)}.")
                for i, t in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(t, Tensor):
                        raise ValueError("'right_inverse' must return a sequence of tensors or reference-type "
                                         f"opaques. Got element {i} of type {type(t).__name__}.")
                    if t.dtype != original_i.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {t.dtype} while "
                                         f"`original{i}` has dtype {original_i.dtype}")
                    original_i.set_(t)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def type_before_parametrizations(module: Module) -> type:
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


_cache_enabled = 0
_cache: dict = {}  # (id(module), name) -> the tensor computed once inside `cached()`


def _inject_property(module: Module, name: str) -> None:
    def get(self):
        if not _cache_enabled:
            return self.parametrizations[name]()
        key = (id(self), name)
        t = _cache.get(key)
        if t is None:
            t = _cache[key] = self.parametrizations[name]()
        return t

    def set_(self, value):
        self.parametrizations[name].right_inverse(value)

    setattr(type(module), name, property(get, set_))


def _check_same(z, shape, dtype, unless: str) -> None:
    """PyTorch's errors for a parametrization whose output is no tensor or changes the dtype or shape."""
    if not isinstance(z, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
    if z.dtype != dtype:
        raise ValueError(f"Registering a parametrization may not change the dtype of the tensor, {unless}.\n"
                         f"unparametrized dtype: {dtype}\nparametrized dtype: {z.dtype}")
    if z.shape != shape:
        raise ValueError(f"Registering a parametrization may not change the shape of the tensor, {unless}.\n"
                         f"unparametrized shape: {shape}\nparametrized shape: {z.shape}")


def _check_stacked(parametrization: Module, y: Tensor, name: str) -> None:
    """PyTorch's checks of a parametrization added on top of others: its output and its right_inverse's (when it
    has one that can invert) keep the current tensor's dtype and shape."""
    x = parametrization(y)
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    unless = "unless the `unsafe` flag is enabled"
    for what in ("dtype", "shape"):
        if getattr(x, what) != getattr(y, what):
            raise ValueError(f"Registering a parametrization may not change the {what} of the tensor, {unless}.\n"
                             f"module.{name}.{what}: {getattr(y, what)}\n"
                             f"parametrization(module.{name}).{what}: {getattr(x, what)}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        z = parametrization.right_inverse(x)
    except NotImplementedError:
        return
    if not isinstance(z, Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(z).__name__}")
    for what in ("dtype", "shape"):
        if getattr(z, what) != getattr(y, what):
            raise ValueError(f"The tensor returned by parametrization.right_inverse must have the same {what} as "
                             f"module.{name}, {unless}.\nmodule.{name}.{what}: {getattr(y, what)}\n"
                             f"returned {what}: {getattr(z, what)}")


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make `module.<tensor_name>` the output of `parametrization` applied to the original tensor."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_stacked(parametrization, getattr(module, tensor_name), tensor_name)
        module.parametrizations[tensor_name].append(parametrization)
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        cls = type(module)
        attrs = {"__getstate__": _refuse_pickling}
        if not hasattr(cls, "__deepcopy__"):  # copy.deepcopy would otherwise go through __getstate__
            attrs["__deepcopy__"] = _deepcopy
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), attrs)
        module.parametrizations = ModuleDict()
    _inject_property(module, tensor_name)
    module.parametrizations[tensor_name] = plist
    return module


def _refuse_pickling(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _deepcopy(self, memo):
    """A parametrized module's deepcopy: its `__dict__` copied into a new instance of its generated class."""
    obj = memo.get(id(self))
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo `register_parametrization`: the tensor becomes a plain parameter (or buffer) again,
    holding the parametrized value (`leave_parametrized`) or the original one."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with ea.no_grad():
                value = getattr(module, tensor_name)
                _set_data(original, _detached(value).clone())
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        value = getattr(module, tensor_name)  # a parameter when any of the originals requires grad, as PyTorch's
        original = Parameter(_detached(value)) if value.requires_grad else _detached(value)
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


@contextmanager
def cached():
    """Inside it, each parametrized tensor is computed on first access and that same tensor (with its graph)
    is returned after: a weight used at every step of a recurrence is parametrized once. The cache empties
    when the outermost `cached()` ends."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Give `to_module` the parametrizations of `from_module` (all, or `tensor_name`'s), sharing the same
    original tensors, so both compute the same parametrized values; returns `to_module`."""
    if is_parametrized(from_module):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            source = from_module.parametrizations[name]
            for fn in source:
                register_parametrization(to_module, name, fn)
            target = to_module.parametrizations[name]
            if hasattr(source, "original"):
                target.original = source.original
            else:
                i = 0
                while hasattr(source, f"original{i}"):
                    setattr(target, f"original{i}", getattr(source, f"original{i}"))
                    i += 1
    return to_module
