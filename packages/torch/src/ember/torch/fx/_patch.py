"""What a symbolic trace swaps in while it runs, and back after: the leaf functions (`torch.fx.wrap`,
`autowrap_functions`, `math`'s), the functions of `torch` and `torch.nn.functional`, and Tensor's methods.

NOTE [ fx's torch functions ]
PyTorch's C++ and Python functions hand a call with a Proxy argument to `Proxy.__torch_function__`.
ember's op entries do so too (NOTE [ Tensor subclasses ] in ember.core.overrides), but many of its
functions read their tensor's shape or check its type before they reach an op, which a Proxy cannot
answer. So while a trace runs, the public functions of the `torch` module (and of `torch.linalg`,
`torch.fft`, `torch.special`, and ember.autograd, the same namespace under its own name) and of
`torch.nn.functional` are wrapped: a call with a Proxy among its arguments records a call_function of
the function itself; any other call runs it unchanged (tensors made during the trace, constants).
Those of torch.nn.functional and torch.functional that PyTorch writes in Python pass their required
parameters positionally and the rest by keyword, defaults filled in, as PyTorch's
`handle_torch_function` calls do (`max_pool2d(x, 2, stride = None, ...)`). Only the attribute on the
module is swapped, for the trace's duration, as PyTorch swaps `Module.__call__`: a function imported
by name (`from torch import relu`) reaches the Proxy through its op entry instead. Eager calls outside
a trace never see any of it. Tensor's public methods are swapped too: a real tensor's method called with a
Proxy argument (`self.buffer.to(x.dtype)`) records a call_method, as PyTorch's.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import types

from ember.core.dispatch import Op
from ember.torch.fx._names import F_BUILTINS_OF_C_NN, F_BUILTINS_OF_TORCH, SUBSPACES, TORCH_FUNCTIONAL

# `torch` functions that answer for any object, as PyTorch's Python functions do, rather than record
_NOT_RECORDED = frozenset({"is_tensor", "is_storage", "typename", "manual_seed", "set_printoptions", "compile",
                           "set_default_dtype", "get_default_dtype"})
_wrapped_fns_to_patch: dict[tuple[int, str], dict] = {}


def find_proxy(args, kwargs):
    """The first Proxy among `args`/`kwargs` (looking into lists, tuples and dicts), or None."""
    from ember.torch.fx.proxy import Proxy

    stack = [args, kwargs]
    while stack:
        a = stack.pop()
        if isinstance(a, Proxy):
            return a
        if isinstance(a, (list, tuple)):
            stack.extend(reversed(a))
        elif isinstance(a, dict):
            stack.extend(reversed(list(a.values())))
    return None


_made: dict[tuple, tuple] = {}  # the recording versions made so far (they hold no trace's state: made once)


def wrapped_function(orig, *, mark_wrapped: bool = False, name: str | None = None, normalize: bool = False):
    """`orig` recording itself as a call_function when a Proxy is among its arguments."""
    key = (id(orig), mark_wrapped, name, normalize)
    hit = _made.get(key)
    if hit is not None and hit[0] is orig:
        return hit[1]
    wrapper = _make_wrapped(orig, mark_wrapped, name, normalize)
    _made[key] = (orig, wrapper)
    return wrapper


def _make_wrapped(orig, mark_wrapped: bool, name: str | None, normalize: bool):
    sig = None
    if normalize:
        try:
            sig = inspect.signature(orig)
        except (TypeError, ValueError):
            sig = None
        if sig is not None and any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
            sig = None

    @functools.wraps(orig)
    def wrapped(*args, **kwargs):
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            return orig(*args, **kwargs)
        if sig is not None:
            args, kwargs = _normalized(sig, args, kwargs)
        node_name = None if name is None else proxy.tracer.graph._target_to_str(name)
        out = proxy.tracer.create_proxy("call_function", orig, args, kwargs, name=node_name)
        if mark_wrapped:
            out.node.meta["is_wrapped"] = True
        return out

    return wrapped


def _normalized(sig: inspect.Signature, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Required parameters positionally, the others by keyword with their defaults (PyTorch's Python
    functionals' `handle_torch_function` calls)."""
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return args, kwargs
    bound.apply_defaults()
    pos, kw = [], {}
    for p in sig.parameters.values():
        if p.default is p.empty and p.kind is not p.KEYWORD_ONLY:
            pos.append(bound.arguments[p.name])
        else:
            kw[p.name] = bound.arguments[p.name]
    return tuple(pos), kw


class Patcher:
    """Swaps attributes and globals in, and puts them back on exit (in reverse order)."""

    _MISSING = object()

    def __init__(self) -> None:
        self._undo: list[tuple] = []  # (dict or class, name, original or _MISSING)
        self._seen: set[int] = set()

    def __enter__(self) -> Patcher:
        return self

    def __exit__(self, *exc) -> None:
        for where, name, orig in reversed(self._undo):
            if isinstance(where, dict):
                if orig is self._MISSING:
                    where.pop(name, None)
                else:
                    where[name] = orig
            else:
                setattr(where, name, orig)
        self._undo.clear()

    def patch(self, frame_dict: dict, name: str, new_fn) -> None:
        """Set `frame_dict[name]` (a module's globals) for the trace."""
        self._undo.append((frame_dict, name, frame_dict.get(name, self._MISSING)))
        frame_dict[name] = new_fn

    def patch_method(self, cls, name: str, new_fn) -> None:
        """Set attribute `name` of `cls` for the trace."""
        self._undo.append((cls, name, getattr(cls, name)))
        setattr(cls, name, new_fn)

    def visit_once(self, thing) -> bool:
        """True the first time `thing` is seen (a globals dict patched once)."""
        if id(thing) in self._seen:
            return False
        self._seen.add(id(thing))
        return True


def patch_wrapped_functions(patcher: Patcher) -> None:
    """Swap in the recording versions of the functions `torch.fx.wrap` registered."""
    for (_, name), frame_dict in _wrapped_fns_to_patch.copy().items():
        orig = frame_dict[name] if name in frame_dict or not hasattr(builtins, name) else getattr(builtins, name)
        patcher.patch(frame_dict, name, wrapped_function(orig, mark_wrapped=True))


def autowrap_check(patcher: Patcher, frame_dict: dict, function_ids: set[int]) -> None:
    """Swap in recording versions of the globals of `frame_dict` that are autowrap functions (`math.sqrt`)."""
    if patcher.visit_once(frame_dict):
        for name, value in list(frame_dict.items()):
            if not name.startswith("_") and callable(value) and id(value) in function_ids:
                patcher.patch(frame_dict, name, wrapped_function(value, mark_wrapped=True))


def patch_torch_namespaces(patcher: Patcher) -> None:
    """NOTE [ fx's torch functions ]: swap in recording versions of `torch`'s and `torch.nn.functional`'s."""
    import ember.torch as torch
    import ember.torch.nn.functional as F
    from ember.torch.fx._names import _names

    _names()  # PyTorch's names of the functions, read before they are swapped
    for name, value in list(vars(F).items()):
        if _recordable(name, value):
            python = name not in F_BUILTINS_OF_TORCH and name not in F_BUILTINS_OF_C_NN
            patcher.patch(vars(F), name, wrapped_function(value, name=name, normalize=python))
    import ember.autograd as autograd

    # ember.autograd too: the namespace of programs written `import ember.autograd as torch`
    for space in (torch, autograd):
        for name, value in list(vars(space).items()):
            if _recordable(name, value) and name not in _NOT_RECORDED:
                patcher.patch(vars(space), name, wrapped_function(value, name=name, normalize=name in TORCH_FUNCTIONAL))
    for space in SUBSPACES:
        module = getattr(torch, space)
        for name, value in list(vars(module).items()):
            if _recordable(name, value):
                patcher.patch(vars(module), name, wrapped_function(value, name=f"{space}_{name}"))


def patch_tensor_methods(patcher: Patcher) -> None:
    """A tensor's method called with a Proxy argument (`buffer.to(x.dtype)`) records a call_method, as PyTorch's
    C++ methods hand it to `Proxy.__torch_function__`; other calls run unchanged."""
    from ember.core.tensor import Tensor

    for name, value in list(vars(Tensor).items()):
        if not name.startswith("_") and isinstance(value, types.FunctionType):
            patcher.patch_method(Tensor, name, _recording_method(name, value))


def _recording_method(name: str, orig):
    key = (id(orig), "method", name)
    hit = _made.get(key)
    if hit is not None and hit[0] is orig:
        return hit[1]

    @functools.wraps(orig)
    def method(self, *args, **kwargs):
        proxy = find_proxy(args, kwargs)
        if proxy is None:
            return orig(self, *args, **kwargs)
        return proxy.tracer.create_proxy("call_method", name, (self, *args), kwargs)

    method.fx_original = orig  # what `is_tensor_method` compares a `__torch_function__` func with
    _made[key] = (orig, method)
    return method


def _recordable(name: str, value) -> bool:
    if name.startswith("_") and name != "_assert":
        return False
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, Op))
