"""The op registry and dispatcher.

NOTE [ Ops and dispatch ]
Every primitive op is an `Op`, declared once (name, numpy reference, flags) and registered
under its name. Device kernels register against it (`@op.register("cpu")`); an op whose work
is only metadata (views) registers one kernel for every device (`"any"`). Calling an op goes
through the hook chain first: a layer above core (autograd, a profiler) installs a hook with
`register_dispatch_hook(hook)`; a hook is called as `hook(op, args, kwargs, call_next)` and
continues below itself with `call_next(op, args, kwargs)`. Without hooks, a call costs one
attribute lookup and one dict lookup before the kernel runs.

Flags the layers above read:
- `out=` (a keyword of elementwise and reduction kernels) is written in place; the dispatcher
  bumps its storage's version counter.
- `mutates` names the positional argument an op writes in place (`copy_`, `fill_`,
  `index_put_`); its version is bumped too.
- `view=True`: the result shares the storage of `args[0]`.
- `differentiable=False`: the result never carries gradients (comparisons, argmax, ...).

NOTE [ The meta step ]
An op whose kernels read one operand over a loop bounded by another's shape (scatter's source
over its index, index_add's source over its index ...) declares a `meta` check (`@op.meta`). It
runs in `redispatch`, before whichever device kernel is picked, with the kernel's arguments: the
shapes, dtypes and ranks that bound every memory access are validated once, for CPU and CUDA
alike, and a kernel may take them as given. Checks that need the index values stay on the host
side of the CPU kernels (a CUDA kernel would have to synchronize to read them; it skips
out-of-range values instead).
"""

from __future__ import annotations

from collections.abc import Callable
from types import MethodType

__all__ = ["Op", "declare", "get_op", "registered_ops", "register_dispatch_hook",
           "remove_dispatch_hook", "device_of"]

_REGISTRY: dict[str, Op] = {}
_hooks: list[Callable] = []


def _call_kernel(op: Op, args: tuple, kwargs: dict):
    return op.redispatch(args, kwargs)


_entry: Callable | None = None


class Op:
    """A primitive operation: one declaration, one kernel per device."""

    __slots__ = ("name", "kernels", "ref", "mutates", "view", "differentiable", "doc", "argnames", "check",
                 "__weakref__")

    def __init__(self, name: str, ref: Callable | None = None, *, mutates: int | None = None,
                 view: bool = False, differentiable: bool = True, doc: str = "",
                 argnames: tuple[str, ...] = ()) -> None:
        self.name = name
        self.kernels: dict[str, Callable] = {}
        self.ref = ref
        self.mutates = mutates
        self.view = view
        self.differentiable = differentiable
        self.doc = doc
        self.argnames = argnames  # PyTorch's names of the leading positional arguments (`input`, `other`)
        self.check: Callable | None = None  # the meta step (NOTE [ The meta step ])

    def register(self, device_type: str) -> Callable:
        """Decorator: register `fn` as this op's kernel for `device_type` ("cpu", "cuda" or "any")."""
        def deco(fn):
            self.kernels[device_type] = fn
            return fn
        return deco

    def meta(self, fn: Callable) -> Callable:
        """Decorator: `fn(*args, **kwargs)` validates the operands before any device's kernel runs."""
        self.check = fn
        return fn

    def __call__(self, *args, **kwargs):
        if kwargs and len(args) < len(self.argnames):
            args, kwargs = self._bind(args, kwargs)
        if _entry is not None:
            return _entry(self, args, kwargs)
        return self.redispatch(args, kwargs)

    def _bind(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Move `input=`/`other=`-style keywords into their positions: hooks and kernels see
        inputs positionally, however the user passed them."""
        kwargs = dict(kwargs)
        args = list(args)
        for name in self.argnames[len(args):]:
            if name not in kwargs:
                break
            args.append(kwargs.pop(name))
        return tuple(args), kwargs

    def redispatch(self, args: tuple, kwargs: dict):
        """Run the device kernel, below every hook."""
        dev = device_of(args)
        kernel = self.kernels.get(dev) or self.kernels.get("any")
        if kernel is None:
            raise NotImplementedError(f"{self.name}: no kernel for device type '{dev}'")
        if self.check is not None:
            self.check(*args, **kwargs)
        result = kernel(*args, **kwargs)
        if kwargs:
            out = kwargs.get("out")
            if out is not None:
                _bump(out)
        if self.mutates is not None:
            args[self.mutates]._storage.version += 1
        return result

    def __get__(self, obj, objtype=None):
        """Ops stored on `Tensor` act as methods: `x.exp()` is `exp(x)`."""
        return self if obj is None else MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def _bump(out) -> None:
    if isinstance(out, tuple | list):
        for o in out:
            o._storage.version += 1
    else:
        out._storage.version += 1


def device_of(args) -> str:
    """The device type an op runs on: that of its tensor arguments; CPU 0-dim tensors and
    Python scalars go along with any device."""
    found = None
    for a in args:
        st = getattr(a, "_storage", None)
        if st is None:
            if isinstance(a, list | tuple) and a:
                st = getattr(a[0], "_storage", None)
                if st is None:
                    continue
            else:
                continue
        t = st.device.type
        if t != "cpu":
            return t
        found = t
    return found or "cpu"


def declare(name: str, ref: Callable | None = None, **flags) -> Op:
    """Declare the primitive op `name` once; a second declaration is a bug and raises."""
    if name in _REGISTRY:
        raise RuntimeError(f"op '{name}' is declared twice")
    op = Op(name, ref, **flags)
    _REGISTRY[name] = op
    return op


def get_op(name: str) -> Op:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no op named '{name}'") from None


def registered_ops() -> dict[str, Op]:
    """Every declared op by name (tests iterate over this)."""
    return dict(_REGISTRY)


def register_dispatch_hook(hook: Callable) -> Callable:
    """Install `hook(op, args, kwargs, call_next)` above the kernels; later hooks run first."""
    _hooks.append(hook)
    _rebuild()
    return hook


def remove_dispatch_hook(hook: Callable) -> None:
    _hooks.remove(hook)
    _rebuild()


def _rebuild() -> None:
    global _entry
    fn = _call_kernel
    for h in _hooks:
        fn = _chain(h, fn)
    _entry = fn if _hooks else None


def _chain(hook: Callable, call_next: Callable) -> Callable:
    return lambda op, args, kwargs: hook(op, args, kwargs, call_next)
