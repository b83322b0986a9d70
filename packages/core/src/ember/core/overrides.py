"""`torch.overrides` (ember.core.overrides): the `__torch_function__` protocol, Tensor subclasses and modes.

NOTE [ Tensor subclasses ]
As PyTorch's, a class that defines `__torch_function__` (a Tensor subclass, which inherits Tensor's
default, or any tensor-like) is handed the calls made with its instances, as
`cls.__torch_function__(func, types, args, kwargs)`, subclasses asked before their bases; a
`TorchFunctionMode` on the stack is asked before them all. `Tensor.__torch_function__` (the default)
runs `func` with the protocol off for objects and gives the tensors it returns the subclass, so
`type(x + 1)`, `type(x.sum())`, `type(x[0])` are the subclass of `x`. A class that sets
`__torch_function__ = _disabled_torch_function_impl` opts out: ops on it give plain tensors. ember's own
subclasses (`nn.Parameter`, the uninitialized tensors, layout classes) get it at their definition
(`register_subclass`), as PyTorch's Parameter sets it. Where the calls are caught:
- Tensor methods and operators of a subclass: its definition (`Tensor.__init_subclass__`) puts a
  wrapper on the subclass for each method Tensor has (and each one attached later), whose `func` is
  `Tensor.<name>` itself; `Tensor` and its plain instances keep their methods unwrapped.
- The reductions' public functions (`torch.sum`, `torch.mean` ... the ones taking `dim`): a check of
  their first argument's class (`ember.core.methods.numpy_aliases`), so `func` is `torch.mean`.
- A `@composite` function (`F.linear`, `F.mse_loss` ...) at its entry (`dispatch.composite`): `func` is
  the function itself, and the ops it runs inside reach no one (as PyTorch's C++ functions).
- Every other `torch.*` and `torch.nn.functional` function at the op it dispatches (the op entry,
  `Op.__call__` and its method twin): `func` is the public function of the op's name when it is the
  op or takes the op's leading arguments by the same names (`torch.add`, so `func is torch.add`); else
  the op, named as it: `F.relu(x)` arrives as `torch.relu`, `torch.stack` as `cat` then `view`.
  The entry tests `_protocol is not None` (one global read), and once a subclass
  with the protocol is defined, a mode is entered or a tensor-like is first seen (`set_protocol_check`),
  whether each argument's class (and each item's of a tuple or list argument) is in `_SKIP`: set
  membership, no call, so an op on plain tensors, scalars, shapes and Parameters makes the calls it
  made before (tests/test_subclass_autograd.py counts them). Any other class goes to `_check`. While a
  mode is active the entry's set is empty: every call reaches the mode.
Functions written against PyTorch use `has_torch_function`/`handle_torch_function` or
`wrap_torch_function` as with PyTorch.
Not supported: `__torch_dispatch__` (the layer below autograd; ember's subclasses cannot override
the kernels), `_make_wrapper_subclass`, and properties other than `data` (`_PROPERTIES`) reaching
`__torch_function__`. A tensor-like that is no Tensor (its class has no `__init_subclass__` of ours)
reaches an op only once the check is set (a reduction's or `has_torch_function`'s first sight of it
sets it), and a composite function's op only if the function did not read it as a tensor first.
"""

from __future__ import annotations

import inspect
import sys
import threading
import types as _pytypes
import weakref
from collections.abc import Callable, Iterable

from ember.core import dispatch as _dispatch
from ember.core.tensor import Tensor

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like", "wrap_torch_function", "DisableTorchFunction",
           "DisableTorchFunctionSubclass", "is_tensor_method_or_property", "TorchFunctionMode",
           "BaseTorchFunctionMode", "enable_reentrant_dispatch", "get_ignored_functions",
           "get_overridable_functions", "get_testing_overrides", "resolve_name"]

class _State(threading.local):
    """The protocol's state, per thread as PyTorch's: `disabled`, DisableTorchFunction's depth (neither objects
    nor modes are asked); `sub`, DisableTorchFunctionSubclass's (and the default __torch_function__'s: modes
    still are); `modes`, the TorchFunctionMode stack, innermost last."""

    def __init__(self) -> None:
        self.disabled = 0
        self.sub = 0
        self.modes: list = []


_tls = _State()
_entered = [0]  # modes entered in any thread: while some are, every op call reaches `_check`
_SKIP = _dispatch._SKIP  # classes that never take part (the scans test membership, no call); one joins when seen
_NONE: frozenset = frozenset()  # the op entry's set while a mode is active


class _DisabledImpl:
    """`torch._C._disabled_torch_function_impl`: as a class's `__torch_function__` it opts the class out of
    the protocol (`nn.Parameter`: ops on it give plain tensors). No descriptor: `p.__torch_function__` is it."""

    __name__ = __qualname__ = "_disabled_torch_function_impl"

    def __call__(self, func, types, args=(), kwargs=None):
        _tls.sub += 1
        try:
            return func(*args, **(kwargs or {}))
        finally:
            _tls.sub -= 1

    def __repr__(self) -> str:
        return "<built-in function _disabled_torch_function_impl>"


_disabled_torch_function_impl = _DisabledImpl()


def _participates(c: type) -> bool:
    """Whether instances of class `c` are handed calls (a class that does not joins `_SKIP`)."""
    if c in _SKIP or c is list or c is tuple:  # the scans look into lists and tuples: they never join
        return False
    tf = getattr(c, "__torch_function__", None)
    if tf is None or tf is _disabled_torch_function_impl:
        _SKIP.add(c)
        return False
    _activate()
    return True


def has_torch_function(relevant_args: Iterable) -> bool:
    """Whether a mode is active or any of `relevant_args` defines `__torch_function__` (protocol enabled)."""
    if _tls.disabled:
        return False
    if _tls.modes:
        return True
    if _tls.sub:
        return False
    for a in relevant_args:
        if a.__class__ not in _SKIP and _participates(a.__class__):
            return True
    return False


def has_torch_function_unary(obj) -> bool:
    return has_torch_function((obj,))


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def _overloaded(relevant_args: Iterable) -> list:
    """The arguments whose types implement the protocol, one per type, subclasses before their bases."""
    args: list = []
    types: list[type] = []
    if _tls.sub:
        return args
    for a in relevant_args:
        t = type(a)
        if t in types or not _participates(t):
            continue
        at = len(args)
        for i, other in enumerate(types):
            if issubclass(t, other):
                at = i
                break
        args.insert(at, a)
        types.insert(at, t)
    return args


def handle_torch_function(public_api: Callable, relevant_args: Iterable, *args, **kwargs):
    """Ask the innermost mode, then the overloaded arguments' `__torch_function__`, until one does not
    return NotImplemented. The mode is off the stack while it runs.

    Raises:
        TypeError: every implementation returned NotImplemented.
    """
    overloaded = _overloaded(relevant_args)
    types = tuple(type(a) for a in overloaded)
    if _tls.modes and not _tls.disabled:
        mode = _tls.modes.pop()
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            _tls.modes.append(mode)
        if result is not NotImplemented:
            return result
    for a in overloaded:
        result = type(a).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    module = getattr(public_api, "__module__", None) or ""
    if module.startswith("ember."):  # one of torch's own functions: PyTorch's message of its C++ dispatch
        listed = "".join(f"  - tensor subclass {t}\n" for t in dict.fromkeys(types))
        name = getattr(public_api, "__name__", None)
        if name is None or getattr(sys.modules["ember.core"], name, None) is not public_api:
            name = resolve_name(public_api) or repr(public_api)
        else:
            name = f"torch.{name}"
        raise TypeError(f"Multiple dispatch failed for '{name}'; all "
                        f"__torch_function__ handlers returned NotImplemented:\n\n{listed}\nFor more information, "
                        "try re-running with TORCH_LOGS=not_implemented")
    name = f"{module}.{getattr(public_api, '__name__', repr(public_api))}"
    raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: "
                    f"{[t for t in types]}")


def _relevant(args: tuple, kwargs: dict) -> list:
    """The arguments, the items of list and tuple arguments, and the keyword values, in order."""
    out = []
    for a in (*args, *kwargs.values()):
        if a.__class__ is list or a.__class__ is tuple:
            out.extend(a)
        else:
            out.append(a)
    return out


# --- the default implementation ---------------------------------------------------------------------------------
def default_torch_function(cls, func, types, args=(), kwargs=None):
    """`Tensor.__torch_function__`: `func` with the protocol off for objects; its tensors become `cls`."""
    if kwargs is None:
        kwargs = {}
    for t in types:
        if not issubclass(cls, t):
            return NotImplemented
    _tls.sub += 1
    try:
        ret = func(*args, **kwargs)
    finally:
        _tls.sub -= 1
    if cls is Tensor:
        return ret
    return _convert(ret, cls, {id(a) for a in _relevant(args, kwargs)})


def _convert(ret, cls, inputs: set):
    """PyTorch's `torch._tensor._convert`: the tensors of `ret` (and of its tuples and lists) as `cls`. A fresh
    result that needs no gradient changes class in place (its views stay its own); one in the graph, or an input
    returned, gets `as_subclass`'s alias (PyTorch's AliasBackward0 over the op's node)."""
    if isinstance(ret, Tensor):
        if isinstance(ret, cls):
            return ret
        if ret.__class__ is Tensor and id(ret) not in inputs and not ret.requires_grad:
            return _reclass(ret, cls)
        return ret._as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls, inputs) for r in ret]
        from ember.core.ops.structseq import rebuilt

        return rebuilt(ret, items)
    return ret


def _reclass(t: Tensor, cls) -> Tensor:
    """The fresh tensor `t` as class `cls` (a copy sharing its data, graph and view record where `cls`'s
    layout differs: `__slots__` of its own)."""
    try:
        t.__class__ = cls
        return t
    except TypeError:
        r = Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype, cls)
        r._requires_grad, r._grad_fn, r._ag = t._requires_grad, t._grad_fn, t._ag
        if t._conj:
            r._conj = True
        return r


def recorded_alias(t: Tensor, cls) -> Tensor:
    """`t.as_subclass(cls)` of a tensor that requires grad: an alias the graph records (AliasBackward0), as
    PyTorch's."""
    alias = _dispatch.node_name(_dispatch.get_op("view")(t, t._shape), "ViewBackward0", "AliasBackward0")
    return _reclass(alias, cls)


# --- the checks: at the op (torch.* functions), on subclass methods --------------------------------------------
_PUBLIC: dict = {}


def _public(op) -> Callable:
    """The `func` an op's call hands over: the public function of its name (`torch.add`, so `func is torch.add`)
    when it is the op itself or takes the op's leading arguments by the same names, else the op."""
    f = _PUBLIC.get(op)
    if f is None:
        g = getattr(sys.modules.get("ember.core"), op.name, None)
        f = _PUBLIC[op] = g if g is op or g is op.method or _takes_op_args(g, op) else op
    return f


def _takes_op_args(g, op) -> bool:
    if not isinstance(g, _pytypes.FunctionType) or not op.argnames:
        return False
    names = [p.name for p in inspect.signature(g).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return tuple(names[:len(op.argnames)]) == tuple(op.argnames)


def _check(op, args: tuple, kwargs: dict):
    """The op entry's check (an argument's class is not in `_SKIP`): hand the call over when a mode is
    active or an argument's class takes part, else run it below."""
    if not _tls.disabled and (_tls.modes or (not _tls.sub and _takes_part(args, kwargs))):
        return handle_torch_function(_public(op), _relevant(args, kwargs), *args, **kwargs)
    if _dispatch._top is not None:
        return _dispatch._top(op, args, kwargs, _dispatch._top_next)
    return op.redispatch(args, kwargs)


def _check_composite(fn, args: tuple, kwargs: dict):
    """A `@composite` function's check: hand the whole call over (its inner ops then reach no one, as PyTorch's
    C++ functions), or answer `RUN`."""
    if not _tls.disabled and (_tls.modes or (not _tls.sub and _takes_part(args, kwargs))):
        return handle_torch_function(fn, _relevant(args, kwargs), *args, **kwargs)
    return _dispatch.RUN


def _takes_part(args: tuple, kwargs: dict) -> bool:
    for a in _relevant(args, kwargs):
        if a.__class__ not in _SKIP and _participates(a.__class__):
            return True
    return False


_active = [False]


def _activate() -> None:
    """Put the op-level check above the dispatch hooks (once)."""
    if not _active[0]:
        _active[0] = True
        _dispatch.set_protocol_check(_check, _check_composite)


class checking:
    """`with checking():` the op-level check is on for the block (as `_activate`), for tensor-likes used only
    there (torch.fx's Proxy during a trace); off again after unless a subclass or a mode has needed it since,
    so eager calls after the block cost what they did before it."""

    def __enter__(self) -> None:
        self._was = _active[0]
        _activate()

    def __exit__(self, *exc) -> None:
        if not self._was and not _SUBCLASSES and not _entered[0]:
            _active[0] = False
            _dispatch.set_protocol_check(None, None)


_SUBCLASSES: weakref.WeakSet = weakref.WeakSet()
# dunders that are torch functions in PyTorch (the rest of Tensor's methods are unless private or ignored)
_DUNDERS = frozenset({f"__{p}{n}__" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                                              "and", "or", "xor", "lshift", "rshift", "div")
                      for p in ("", "r", "i")} |
                     {"__neg__", "__pos__", "__abs__", "__invert__", "__eq__", "__ne__", "__lt__", "__le__",
                      "__gt__", "__ge__", "__getitem__", "__setitem__", "__len__", "__bool__", "__float__",
                      "__int__", "__index__", "__complex__", "__repr__", "__format__", "__array__",
                      "__contains__"})
_IGNORED_METHODS = frozenset({"as_subclass", "stride"})  # PyTorch's get_ignored_functions() among the methods


_PROPERTIES = frozenset({"data"})  # properties whose getter reaches `__torch_function__` (`Tensor.data.__get__`)


def _overridable(name: str, value) -> bool:
    if name in _PROPERTIES:
        return isinstance(value, property)
    if name.startswith("_") and name not in _DUNDERS:
        return False
    return isinstance(value, _pytypes.FunctionType) and name not in _IGNORED_METHODS


def _property(name: str) -> property:
    """The property a subclass gets for `Tensor.<name>`: its getter hands `Tensor.<name>.__get__` over."""
    def get(self):
        prop = Tensor.__dict__[name]
        if _tls.disabled or _tls.sub or not _participates(self.__class__):
            return prop.__get__(self)
        return handle_torch_function(prop.__get__, (self,), self)

    def set_(self, value):
        Tensor.__dict__[name].__set__(self, value)

    return property(get, set_, doc=f"`Tensor.{name}`, of this subclass")


_FUNC_OF = {"__matmul__": "matmul"}  # operators whose `func` is the named method, as PyTorch's


def _method(name: str) -> Callable:
    """The wrapper a subclass gets for `Tensor.<name>`: `func` is Tensor's method as it is at the call."""
    def method(*args, **kwargs):
        fn = Tensor.__dict__[_FUNC_OF.get(name, name)]
        if _tls.disabled or _tls.sub:
            return fn(*args, **kwargs)
        relevant = _relevant(args, kwargs)
        if not _tls.modes and not any(a.__class__ not in _SKIP and _participates(a.__class__) for a in relevant):
            return fn(*args, **kwargs)  # a subclass below one that opted out
        return handle_torch_function(fn, relevant, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def _install(cls, name: str) -> None:
    """Wrap `Tensor.<name>` on `cls` unless a class between them defines the name."""
    for k in cls.__mro__:
        if name in k.__dict__:
            if k is Tensor:
                setattr(cls, name, _property(name) if name in _PROPERTIES else _method(name))
            return


def register_subclass(cls) -> None:
    """`Tensor.__init_subclass__`: wrap the methods of a subclass that takes part (NOTE [ Tensor subclasses ]).
    ember's own subclasses (`nn.Parameter`, the uninitialized tensors, sparse layouts) are tensors to the
    protocol and print as `tensor(...)`, as PyTorch's (whose Parameter sets `_disabled_torch_function_impl`)."""
    if cls.__module__.startswith("ember.") and "__torch_function__" not in cls.__dict__:
        cls.__torch_function__ = _disabled_torch_function_impl
        cls._repr_as_tensor = True
    if getattr(cls, "__torch_function__", None) is _disabled_torch_function_impl:
        _SKIP.add(cls)  # no calls to hand it: the op entries' scans and the direct paths pass it at once
        return
    _SUBCLASSES.add(cls)
    for name, value in list(Tensor.__dict__.items()):
        if _overridable(name, value):
            _install(cls, name)
    _activate()


def on_attach(name: str) -> None:
    """`ember.core.methods.attach` set `Tensor.<name>`: subclasses defined before wrap it too."""
    if _SUBCLASSES and _overridable(name, Tensor.__dict__.get(name)):
        for cls in list(_SUBCLASSES):
            _install(cls, name)


# --- public helpers -----------------------------------------------------------------------------------------
def is_tensor_like(inp) -> bool:
    """A Tensor, or an object whose type implements `__torch_function__`."""
    return isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")


def is_tensor_method_or_property(func: Callable) -> bool:
    """Whether `func` is a method or property of Tensor (PyTorch passes these with `self` first)."""
    name = getattr(func, "__name__", None)
    return name == "__get__" or (name is not None and getattr(Tensor, name, None) is func)  # a property's getter


def wrap_torch_function(dispatcher: Callable) -> Callable:
    """Decorator: the wrapped function hands itself to `handle_torch_function` when any argument that
    `dispatcher(*args, **kwargs)` returns implements the protocol."""
    def deco(func: Callable) -> Callable:
        import functools

        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return deco


class DisableTorchFunction:
    """Within `with DisableTorchFunction():` neither objects nor modes are asked (`has_torch_function*`: False)."""

    def __enter__(self):
        _tls.disabled += 1
        return self

    def __exit__(self, *exc):
        _tls.disabled -= 1
        return False


class DisableTorchFunctionSubclass(DisableTorchFunction):
    """Within it no object's `__torch_function__` is asked (subclasses act as Tensor); modes still are."""

    def __enter__(self):
        _tls.sub += 1
        return self

    def __exit__(self, *exc):
        _tls.sub -= 1
        return False


class TorchFunctionMode:
    """`with Mode(): ...` hands every torch function called inside to `Mode.__torch_function__(func, types,
    args, kwargs)`, before any object's; the mode is off the stack while it runs."""

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _tls.modes.append(self)
        _activate()
        _entered[0] += 1
        _dispatch._SKIP = _NONE  # every op call reaches the check, plain tensors too
        _dispatch._rebuild()  # factories fill through their op while a mode watches (`dispatch.bare`)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _tls.modes.remove(self)
        _entered[0] -= 1
        if not _entered[0]:
            _dispatch._SKIP = _SKIP
            _dispatch._rebuild()
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every function as it is (subclass it to override a few)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _get_current_function_mode():
    return _tls.modes[-1] if _tls.modes else None


def _get_current_function_mode_stack() -> list:
    return list(_tls.modes)


def _is_torch_function_mode_enabled() -> bool:
    return bool(_tls.modes) and not _tls.disabled


class enable_reentrant_dispatch:
    """PyTorch's re-entrant dispatch context (for `__torch_dispatch__`, which ember has not): does nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def get_ignored_functions() -> set:
    """Functions that never reach `__torch_function__`."""
    return {Tensor.as_subclass, Tensor._make_subclass, Tensor.stride, Tensor.__init_subclass__,
            Tensor.__new__, Tensor.__torch_function__, Tensor.__hash__, Tensor.__iter__}


def get_overridable_functions() -> dict:
    """{namespace: [functions]} of what reaches `__torch_function__`: the public functions and Tensor's methods."""
    core = sys.modules["ember.core"]
    ignored = get_ignored_functions()
    funcs = []
    for name in getattr(core, "__all__", ()):
        f = getattr(core, name, None)
        if callable(f) and not isinstance(f, type) and f not in ignored:
            funcs.append(f)
    methods = [v for k, v in Tensor.__dict__.items() if _overridable(k, v)]
    return {core: funcs, Tensor: methods}


def get_testing_overrides() -> dict:
    """{function: a dummy override returning -1}, for testing that a tensor-like overrides each."""
    return {f: (lambda *args, **kwargs: -1) for fs in get_overridable_functions().values() for f in fs}


def resolve_name(f) -> str | None:
    """The name PyTorch prints for `f` (`torch.add`, `torch.Tensor.add`)."""
    name = getattr(f, "__name__", None)
    if name is None:
        return None
    if Tensor.__dict__.get(name) is f:
        return f"torch.Tensor.{name}"
    return f"torch.{name}"

