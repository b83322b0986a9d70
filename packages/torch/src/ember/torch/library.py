"""`torch.library`'s Python custom operators: `custom_op` turns a function into an operator with optional
per-device kernels, a fake (shape-only) implementation and an autograd formula, as PyTorch 2.4+ code writes
them, or the older way: `Library(ns, "DEF").define(schema)` with kernels per dispatch key (`impl`). ember has no
ATen registry: `torch.ops.<namespace>` holds only these operators (`ember.torch._ops`)."""

from __future__ import annotations

import ast
import functools
import inspect
from collections.abc import Callable, Iterable

import ember.autograd as _ag
from ember.autograd.function import Function

__all__ = ["custom_op", "CustomOpDef", "register_fake", "register_autograd", "register_kernel", "opcheck", "Library",
           "define", "impl"]

_OPS: dict[str, CustomOpDef] = {}


class CustomOpDef:
    """An operator made by `custom_op`: call it like the function it wraps."""

    def __init__(self, name: str, fn: Callable, mutates_args, signature: inspect.Signature | None = None) -> None:
        self._signature = _infer_schema(fn) if signature is None else signature
        ns, op = name.split("::")  # PyTorch unpacks the same way (its ValueError for a name without "::")
        self._name, self._opname, self._init_fn = name, f"{ns}.{op}.default", fn
        self._mutates_args = mutates_args
        self._kernels: dict[str, Callable] = {}
        self._fake: Callable | None = None
        self._backward: Callable | None = None
        self._setup_context: Callable | None = None
        functools.update_wrapper(self, fn)
        self._node = type(f"GeneratedBackwardFor_{ns}_{op}_default", (_CustomOpFunction,), {"_op": self})

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._name})>"

    @property
    def _opoverload(self):
        """The op as `torch.ops.<ns>.<op>.default` (PyTorch's OpOverload), made once."""
        if "_overload" not in self.__dict__:
            from ember.torch._ops import OpOverload

            self.__dict__["_overload"] = OpOverload(self)
        return self.__dict__["_overload"]

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
        tensors = _tensors(list(args))
        if any(t.device.type == "meta" for t in tensors):  # meta inputs: shapes only, from the fake impl
            if self._fake is None and "meta" in self._kernels:
                return self._kernels["meta"]
            if self._fake is None and getattr(self, "_schema", None) is not None:
                raise NotImplementedError(f"{self._name}: attempted to run this operator with Meta tensors, but there "
                                          "was no fake impl or Meta kernel registered. You may have run into this "
                                          "message while using an operator with PT2 compilation APIs "
                                          "(torch.compile/torch.export); in order to use this operator with those "
                                          "APIs you'll need to add a fake impl. Please see the following for next "
                                          "steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")
            if self._fake is None:
                raise RuntimeError(f"There was no fake impl registered for {self!r}. This is necessary for "
                                   f"torch.compile/export/fx tracing to work. Please use "
                                   f"`{self._init_fn.__name__}.register_fake` to add an fake impl.")
            return self._fake
        if tensors:
            return self._kernels.get(tensors[0].device.type, self._kernels.get("None", self._init_fn))
        return self._kernels.get("None", self._init_fn)

    def __call__(self, *args, **kwargs):
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        args = tuple(bound.arguments.values())
        needs_grad = _ag.is_grad_enabled() and any(t.requires_grad for t in _tensors(list(args)))
        if not needs_grad:
            out = self._run(self._kernel(args), args)
        else:  # a list-of-tensors argument travels flattened, so that autograd sees each tensor
            lengths = tuple(len(a) if isinstance(a, list | tuple) else None for a in args)
            flat = [x for a, n in zip(args, lengths) for x in (a if n is not None else (a,))]
            out = self._node.apply(lengths, *flat)
        self._bump_mutated(bound.arguments)
        return out

    def _run(self, kernel: Callable, args: tuple):
        """`kernel` on the bound arguments in schema order, the keyword-only ones by keyword."""
        kw = [n for n, p in self._signature.parameters.items() if p.kind is p.KEYWORD_ONLY]
        if not kw:
            return kernel(*args)
        n = len(args) - len(kw)
        return kernel(*args[:n], **dict(zip(kw, args[n:])))

    def _bump_mutated(self, arguments: dict) -> None:
        """The arguments named in `mutates_args` were written (by numpy, say): PyTorch bumps their versions."""
        names = arguments if self._mutates_args == "unknown" else self._mutates_args
        for n in names:
            t = arguments.get(n)
            if isinstance(t, _ag.Tensor):
                t._storage.version += 1


def _infer_schema(fn: Callable) -> inspect.Signature:
    """`fn`'s signature, refused where PyTorch's `infer_schema` cannot build an operator schema from it."""
    sig = inspect.signature(fn)

    def error_fn(what: str):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    for name, param in sig.parameters.items():
        if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if param.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
    if sig.return_annotation is inspect.Signature.empty:
        error_fn("No return type annotation was provided. Please add one.")
    return sig


class _CustomOpFunction(Function):
    """The autograd node of a custom op: the kernel runs without recording; the registered formula
    differentiates it (PyTorch's GeneratedBackwardFor_<ns>_<op>_default)."""

    _op: CustomOpDef

    @classmethod
    def forward(cls, ctx, lengths, *flat):
        op = cls._op
        ctx.lengths, args, needs, i = lengths, [], [], 0
        flat_needs = ctx.needs_input_grad[1:]
        for n in lengths:
            args.append(flat[i] if n is None else list(flat[i:i + n]))
            needs.append(flat_needs[i] if n is None else any(flat_needs[i:i + n]))
            i += 1 if n is None else n
        args = tuple(args)
        ctx.needs_input_grad = tuple(needs)  # one per argument of the op, as its setup_context expects
        with _ag.no_grad():
            out = op._run(op._kernel(args), args)
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
        got = got if isinstance(got, tuple) else (got,)
        flat = []
        for g, n in zip(got, ctx.lengths):
            flat.extend((g,) if n is None else (g if g is not None else (None,) * n))
        return (None, *flat)


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


class Library:
    """`torch.library.Library(ns, kind)`: define operators from schema strings ("DEF", "FRAGMENT") and give them
    kernels per dispatch key ("IMPL" too), the style of code written before `custom_op`."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"  # PyTorch's stray ">"

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Declare the operator `schema` ("name(Tensor x, float alpha=1.0) -> Tensor") in this namespace."""
        name, signature, mutated = _parse_schema(schema)
        qualname = f"{self.ns}::{name}"
        if qualname in _OPS:
            raise RuntimeError(f"Tried to register an operator ({qualname}{schema[len(name):]}) with the same name and "
                               "overload name multiple times. Each overload's schema should only be registered with "
                               "a single call to def().")

        def no_kernel(*args, **kwargs):
            devices = [t.device.type for t in _tensors(list(args) + list(kwargs.values()))]
            raise NotImplementedError(f"Could not run '{qualname}' with arguments from the "
                                      f"'{(devices[0] if devices else 'cpu').upper()}' backend. This could be because "
                                      "the operator doesn't exist for this backend.")

        no_kernel.__name__ = no_kernel.__qualname__ = name
        op = CustomOpDef(qualname, no_kernel, mutated, signature)
        op._schema = f"{qualname}{schema[len(name):]}"
        _OPS[qualname] = op
        return name

    def impl(self, op_name, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False) -> None:
        """Register `fn` as the kernel of `op_name` for `dispatch_key` ("CPU", "CUDA", "Meta"; composite keys and ""
        for every device)."""
        name = op_name if isinstance(op_name, str) else str(op_name).split(".")[1]
        _register_impl(_op(name if "::" in name else f"{self.ns}::{name}"), dispatch_key or self.dispatch_key, fn)


_DEVICE_OF_KEY = {"cpu": "cpu", "cuda": "cuda", "meta": "meta"}


def _register_impl(op: CustomOpDef, key: str, fn: Callable) -> None:
    device = _DEVICE_OF_KEY.get(key.lower())
    if device is None:  # CompositeExplicitAutograd, CompositeImplicitAutograd, "default", "": any device
        op._init_fn = fn
    else:
        op._kernels[device] = fn


def define(qualname: str, schema: str, *, lib: Library | None = None, tags=()) -> None:
    """`torch.library.define("ns::name", "(Tensor x) -> Tensor")`: declare an operator from its schema."""
    ns, name = qualname.split("::")
    (lib or Library(ns, "FRAGMENT")).define(name + schema, tags=tags)


def impl(qualname: str, types, func: Callable | None = None, *, lib: Library | None = None):
    """`torch.library.impl("ns::name", "cpu")`: register a kernel (a decorator without `func`)."""
    def register(f: Callable) -> Callable:
        for t in [types] if isinstance(types, str) else types:
            _register_impl(_op(qualname), t, f)
        return f
    return register if func is None else register(func)


def _parse_schema(schema: str) -> tuple[str, inspect.Signature, tuple[str, ...]]:
    """(name, signature, mutated argument names) of a schema string "name(Tensor(a!) x, *, float k=1.) -> Tensor"."""
    head, arrow, _ = schema.partition("->")
    name, paren, rest = head.strip().partition("(")
    if not arrow or not paren or not rest.rstrip().endswith(")"):
        raise RuntimeError(f"Expected a schema of the form 'name(args) -> returns'; got {schema!r}")
    args, depth, cur = [], 0, ""
    for ch in rest.rstrip()[:-1]:
        if ch in "([":  # `Tensor(a!)`, `int[2]`: commas inside do not separate arguments
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        args.append(cur.strip())
    params, mutated, kind = [], [], inspect.Parameter.POSITIONAL_OR_KEYWORD
    for a in args:
        if a == "*":
            kind = inspect.Parameter.KEYWORD_ONLY
            continue
        decl, eq, default = a.partition("=")
        typ, _, pname = decl.strip().rpartition(" ")
        if "!" in typ:
            mutated.append(pname)
        value = inspect.Parameter.empty
        if eq:
            d = default.strip()
            value = ast.literal_eval(d + "0" if d.endswith(".") else d)  # "2." is the schema's 2.0
        params.append(inspect.Parameter(pname, kind, default=value))
    return name.strip(), inspect.Signature(params), tuple(mutated)


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


class OpCheckError(Exception):
    """What `opcheck` raises when one of its tests fails (PyTorch's optests.OpCheckError)."""


_DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


def _tensors(tree) -> list:
    if isinstance(tree, _ag.Tensor):
        return [tree]
    if isinstance(tree, tuple | list):
        return [t for x in tree for t in _tensors(x)]
    return []


def _clone_args(args: tuple, kwargs: dict, device: str | None = None):
    def one(a):
        if isinstance(a, _ag.Tensor):
            c = a.detach().to(device) if device else a.detach().clone()
            return c.requires_grad_(a.requires_grad) if c.is_floating_point() or c.is_complex() else c
        return a
    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


def _check_schema(op: CustomOpDef, args: tuple, kwargs: dict) -> None:
    """Only the arguments named in `mutates_args` are written; outputs are new tensors, not inputs or views."""
    args, kwargs = _clone_args(args, kwargs)
    bound = op._signature.bind(*args, **kwargs)
    before = {n: v.detach().clone() for n, v in bound.arguments.items() if isinstance(v, _ag.Tensor)}
    with _ag.no_grad():
        out = op(*args, **kwargs)
    declared = set(bound.arguments) if op._mutates_args == "unknown" else set(op._mutates_args)
    for n, old in before.items():
        if n not in declared and not _ag.equal(old, bound.arguments[n].detach()):
            raise RuntimeError(f"{op._opname}: argument {n} is not defined as mutable but was mutated")
    storages = {id(t._storage) for t in _tensors(list(bound.arguments.values()))}
    for o in _tensors(out):
        if id(o._storage) in storages:
            raise RuntimeError(f"{op._opname}: output aliases an input; outputs of a custom op must be new tensors")


def _check_autograd_registration(op: CustomOpDef, args: tuple, kwargs: dict) -> None:
    """An op called with inputs that require grad, whose outputs are differentiable, needs `register_autograd`."""
    if op._backward is not None or not any(t.requires_grad for t in _tensors(list(args) + list(kwargs.values()))):
        return
    with _ag.no_grad():
        out = op(*_clone_args(args, kwargs)[0], **_clone_args(args, kwargs)[1])
    if any(o.is_floating_point() or o.is_complex() for o in _tensors(out)):
        raise AssertionError(f"{op._opname}: inputs require grad but no autograd formula was registered (use "
                             "torch.library.register_autograd)")


def _check_faketensor(op: CustomOpDef, args: tuple, kwargs: dict) -> None:
    """The fake kernel, run on meta copies of the inputs, gives outputs of the real ones' sizes, strides, dtypes."""
    if op._fake is None:
        raise RuntimeError(f"There was no fake impl registered for {op._opname}. This is necessary for "
                           "torch.compile/export/fx tracing to work. Please use torch.library.register_fake to add a "
                           "fake impl.")
    with _ag.no_grad():
        real = _tensors(op(*_clone_args(args, kwargs)[0], **_clone_args(args, kwargs)[1]))
        fargs, fkwargs = _clone_args(args, kwargs, "meta")
        fake = _tensors(op._fake(*fargs, **fkwargs))
    if len(real) != len(fake):
        raise RuntimeError(f"{op._opname}: the fake impl returned {len(fake)} tensors, the real one {len(real)}")
    for r, f in zip(real, fake):
        for what, a, b in (("Shape", tuple(f.shape), tuple(r.shape)), ("Stride", f.stride(), r.stride()),
                           ("Dtype", f.dtype, r.dtype)):
            if a != b:
                raise RuntimeError(f"When comparing the output of {op._opname} on FakeTensor and concrete Tensors, "
                                   f"found mismatched tensor metadata: {what} mismatch! {what}s are {a} and {b}!")


def _check_aot_dispatch(op: CustomOpDef, args: tuple, kwargs: dict) -> None:
    """Two calls on copies of the inputs agree, and so do their gradients where inputs require grad."""
    from ember.torch.testing import assert_close

    runs = []
    for _ in range(2):
        cargs, ckwargs = _clone_args(args, kwargs)
        out = _tensors(op(*cargs, **ckwargs))
        leaves = [t for t in _tensors(list(cargs) + list(ckwargs.values())) if t.requires_grad]
        diff = [o for o in out if o.requires_grad]
        grads = _ag.autograd.grad([o.sum() for o in diff], leaves, allow_unused=True) if diff and leaves else ()
        runs.append(([o.detach() for o in out], [g for g in grads if g is not None]))
    for a, b in zip(runs[0][0] + runs[0][1], runs[1][0] + runs[1][1]):
        assert_close(a, b)


_TEST_UTILS = {"test_schema": _check_schema, "test_autograd_registration": _check_autograd_registration,
               "test_faketensor": _check_faketensor, "test_aot_dispatch_dynamic": _check_aot_dispatch,
               "test_aot_dispatch_static": _check_aot_dispatch}


def opcheck(op: str | CustomOpDef, args: tuple, kwargs: dict | None = None, *,
            test_utils: str | Iterable[str] = _DEFAULT_TEST_UTILS, raise_exception: bool = True,
            rtol: float | None = None, atol: float | None = None) -> dict:
    """`torch.library.opcheck`: check a custom op's registrations on sample inputs (schema and mutation, autograd
    formula, fake kernel metadata, repeatability); a dict of test name -> "SUCCESS" or the exception."""
    if (rtol is None) ^ (atol is None):
        raise ValueError("opcheck(op, ...): if you specify one of rtol/atol, you must specify both")
    op = _op(op)
    kwargs = {} if kwargs is None else kwargs
    if test_utils == "ALL":
        test_utils = tuple(_TEST_UTILS)
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, tuple | list) or not set(test_utils) <= set(_TEST_UTILS):
        raise ValueError(f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of "
                         f"{tuple(_TEST_UTILS)} but it was not")
    results: dict = {}
    for name in test_utils:
        try:
            _TEST_UTILS[name](op, tuple(args), kwargs)
            results[name] = "SUCCESS"
        except Exception as ex:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for stack trace)") from ex
            results[name] = ex
    return results
