"""`torch.library`'s Python custom operators: `custom_op` turns a function into an operator with optional
per-device kernels, a fake (shape-only) implementation and an autograd formula, as PyTorch 2.4+ code writes
them. ember has no operator registry (`torch.ops`): the operator is the object `custom_op` returns."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable

import ember.autograd as _ag
from ember.autograd.function import Function

__all__ = ["custom_op", "CustomOpDef", "register_fake", "register_autograd", "register_kernel"]

_OPS: dict[str, CustomOpDef] = {}


class CustomOpDef:
    """An operator made by `custom_op`: call it like the function it wraps."""

    def __init__(self, name: str, fn: Callable, mutates_args) -> None:
        ns, _, op = name.partition("::")
        if not ns or not op:
            raise ValueError(f"Expected there to be a namespace in {name}, i.e. The operator name should look "
                             f"something like ns::foo")
        self._name, self._opname, self._init_fn = name, f"{ns}.{op}.default", fn
        self._signature = inspect.signature(fn)
        self._mutates_args = mutates_args
        self._kernels: dict[str, Callable] = {}
        self._fake: Callable | None = None
        self._backward: Callable | None = None
        self._setup_context: Callable | None = None
        functools.update_wrapper(self, fn)
        self._node = type(f"GeneratedBackwardFor_{ns}_{op}_default", (_CustomOpFunction,), {"_op": self})

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._name})>"

    def register_kernel(self, device_types: str | Iterable[str] | None, fn: Callable | None = None):
        """Use `fn` for inputs on `device_types` ('cpu', 'cuda'); the decorated function stays the default."""
        def register(f: Callable) -> Callable:
            types = [device_types] if isinstance(device_types, str) or device_types is None else device_types
            for t in types:
                self._kernels[str(t)] = f
            return f
        return register if fn is None else register(fn)

    def register_fake(self, fn: Callable) -> Callable:
        """The shape-and-dtype-only implementation (meta tensors, tracing); kept, not needed eagerly."""
        self._fake = fn
        return fn

    def register_autograd(self, backward: Callable, /, *, setup_context: Callable | None = None) -> None:
        """`backward(ctx, *grads)` returns one gradient per input (None for non-tensors), after
        `setup_context(ctx, inputs, output)` saved what it needs."""
        self._backward, self._setup_context = backward, setup_context

    def _kernel(self, args) -> Callable:
        for a in args:
            if isinstance(a, _ag.Tensor):
                return self._kernels.get(a.device.type, self._kernels.get("None", self._init_fn))
        return self._kernels.get("None", self._init_fn)

    def __call__(self, *args, **kwargs):
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        args = tuple(bound.arguments.values())
        needs_grad = _ag.is_grad_enabled() and any(
            isinstance(a, _ag.Tensor) and a.requires_grad for a in args)
        if not needs_grad:
            return self._kernel(args)(*args)
        return self._node.apply(*args)


class _CustomOpFunction(Function):
    """The autograd node of a custom op: the kernel runs without recording; the registered formula
    differentiates it (PyTorch's GeneratedBackwardFor_<ns>_<op>_default)."""

    _op: CustomOpDef

    @classmethod
    def forward(cls, ctx, *args):
        op = cls._op
        with _ag.no_grad():
            out = op._kernel(args)(*args)
        if op._setup_context is not None:
            op._setup_context(ctx, args, out)
        return out

    @classmethod
    def backward(cls, ctx, *grads):
        op = cls._op
        if op._backward is None:
            raise RuntimeError(f"Trying to backward through {op._opname} but no autograd formula was registered. "
                               f"Please use register_autograd to add one.")
        got = op._backward(ctx, *grads)
        return got if isinstance(got, tuple) else (got,)


def custom_op(name: str, fn: Callable | None = None, /, *, mutates_args, device_types=None, schema=None):
    """Make `fn` the operator `name` ("namespace::op_name"); `mutates_args` names the arguments it writes
    (`()` for none). Usable as a decorator.

    >>> import ember.torch as torch
    >>> @torch.library.custom_op("demo::twice", mutates_args=())
    ... def twice(x: torch.Tensor) -> torch.Tensor:
    ...     return x * 2
    >>> twice(torch.ones(2)).tolist()
    [2.0, 2.0]
    """
    def make(f: Callable) -> CustomOpDef:
        op = CustomOpDef(name, f, mutates_args)
        if device_types is not None:
            op.register_kernel(device_types, f)
        _OPS[name] = op
        return op
    return make if fn is None else make(fn)


def _op(op: str | CustomOpDef) -> CustomOpDef:
    if isinstance(op, CustomOpDef):
        return op
    if op not in _OPS:
        raise RuntimeError(f"{op}: no custom op of that name (ember registers only torch.library.custom_op ops)")
    return _OPS[op]


def register_fake(op: str | CustomOpDef, func: Callable | None = None, /, **_):
    """`torch.library.register_fake`: the fake implementation of a custom op, by object or name."""
    return _op(op).register_fake if func is None else _op(op).register_fake(func)


def register_autograd(op: str | CustomOpDef, backward: Callable, /, *, setup_context: Callable | None = None,
                      **_) -> None:
    """`torch.library.register_autograd`: the autograd formula of a custom op, by object or name."""
    _op(op).register_autograd(backward, setup_context=setup_context)


def register_kernel(op: str | CustomOpDef, device_types, func: Callable | None = None, /, **_):
    """`torch.library.register_kernel`: a per-device kernel of a custom op, by object or name."""
    return _op(op).register_kernel(device_types, func)
