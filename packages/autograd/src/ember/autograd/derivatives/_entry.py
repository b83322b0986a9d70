"""One derivative entry per primitive op, as data, and the node class each entry makes.

NOTE [ Derivative entries ]
An entry is `derivative("mul(input, other)", input=lambda grad, other: grad * other, ...)`: the
primitive's signature (positional names, defaults, `*` before keyword-only attributes) in
PyTorch's vocabulary, then one rule per differentiable input. A rule's parameter names say
what it needs, and the node saves exactly that when it is recorded, for the inputs that require
grad only:

- `grad` (the gradient w.r.t. output 0), `grads` (all of them, None where none flowed),
- `result` / `result0`, `result1` ... (the forward outputs, saved without a reference cycle),
- any signature name (an input tensor is saved with its version; attributes as they are),
- `<name>_shape`, `<name>_dtype`, `<name>_device`, `<name>_geometry` (shape, strides, offset and
  storage size in elements): metadata only, the tensor is not kept alive,
- `grad_input_mask` (which of a joint rule's inputs need a gradient).

A key naming several inputs (`"input, weight"`) is a joint rule returning one gradient per
name (None where not needed). A rule of `None` declares the input not differentiable. A rule
may return a gradient with the broadcast shape or a wider dtype: the engine sums it back to
the input's shape and casts it to the input's dtype (`reduce_grad`).

An entry's `inplace` (set by `inplace(entry, other)`) is the entry recorded when the op writes
its input (`out=` is `input`): PyTorch's in-place activations (`hardtanh_`, `leaky_relu_`,
`elu_`) differentiate from their result, so nothing is cloned before the kernel overwrites the
input, where a rule that needs the input gets a clone (NOTE [ In-place ops and views ]).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

from ember.autograd.engine import _tasks, reduce_grad, will_execute
from ember.autograd.graph import FREED, Node, SavedTensor, _sequence

__all__ = ["Derivative", "derivative", "inplace", "RuleNode", "REQUIRED"]

REQUIRED = object()
_MISSING = object()
_SUFFIXES = ("_shape", "_dtype", "_device", "_geometry")


# ATen's names for an op's arguments where they are not ember's (ember's `input` is ATen's `self`): PyTorch's
# generated nodes save their tensors in the order of these names, which its pack hooks see
_ATEN_NAMES = {"dot": {"other": "tensor"}}
# ATen's attribute names where ember's signatures say otherwise, for `_saved_<name>`
_OWN_NAMES = {"dim": "dims", "end": "stop"}


def _symint(v: int) -> int:
    """A saved SymInt as PyTorch's node hands it back: a negative one read as unsigned 64-bit."""
    return v + (1 << 64) if v < 0 else v


# PyTorch's saved input sizes that ember's rule does not save (the engine sums the gradient to the input's shape,
# which the node keeps as its input metadata)
_INPUT_SHAPE_ATTRS = {"expand": ("self_sym_sizes",)}


# the attributes PyTorch saves as (lists of) SymInt dims: a negative dim reads back unsigned (`stack(ts, -1)`'s
# `_saved_dim` is 18446744073709551615)
_DIM_NAMES = frozenset({"dim", "dims", "dim0", "dim1", "dim2", "dimension"})


def _symint_dims(v):
    if type(v) is int:
        return _symint(v)
    if type(v) in (tuple, list) and all(type(d) is int for d in v):
        return type(v)(_symint(d) for d in v)
    return v


_INT64_MAX = (1 << 63) - 1
# slice's bounds as ATen's slice.Tensor saves them (an open end is INT64_MAX); narrow is ATen's slice
_ATEN_ATTRS = {
    "slice": {"start": lambda s: _symint(0 if s["start"] is None else s["start"]),
              "end": lambda s: _symint(_INT64_MAX if s["stop"] is None else s["stop"])},
    "narrow": {"end": lambda s: _symint(s["start"] + s["length"]), "step": lambda s: 1},
}


def _parse(sig: str) -> tuple[str, list[tuple[str, object]], int, str | None]:
    """`"sum(input, dim=None, *, dtype=None)"` -> ("sum", [(name, default)...], n_positional, vararg)."""
    fn = ast.parse(f"def {sig}: pass").body[0]
    a = fn.args
    pos = [x.arg for x in a.args]
    defaults = [REQUIRED] * (len(pos) - len(a.defaults)) + [ast.literal_eval(d) for d in a.defaults]
    params = list(zip(pos, defaults))
    vararg = a.vararg.arg if a.vararg is not None else None
    if vararg:
        params.append((vararg, ()))
    params += [(x.arg, REQUIRED if d is None else ast.literal_eval(d)) for x, d in zip(a.kwonlyargs, a.kw_defaults)]
    return fn.name, params, len(pos), vararg


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


class Derivative:
    """The parsed entry of one op: its signature and its rules (see NOTE [ Derivative entries ])."""

    def __init__(self, sig: str, rules: dict, name: str | None) -> None:
        self.op_name, params, self.n_positional, self.vararg = _parse(sig)
        self.params = [p for p, _ in params]
        self.defaults = dict(params)
        self.position = {p: i for i, p in enumerate(self.params[:self.n_positional])}
        self.groups: list[tuple[tuple[str, ...], Callable, tuple[str, ...]]] = []
        self.nondiff: set[str] = set()
        for key, fn in rules.items():
            keys = tuple(k.strip() for k in key.split(","))
            for k in keys:
                if k not in self.defaults:
                    raise ValueError(f"derivative of {self.op_name}: '{k}' is not in the signature {sig}")
            if fn is None:
                self.nondiff.update(keys)
                continue
            code = fn.__code__
            names = code.co_varnames[:code.co_argcount]
            for n in names:
                if not self._known(n):
                    raise ValueError(f"derivative of {self.op_name}: rule for '{key}' takes unknown name '{n}'")
            self.groups.append((keys, fn, names))
        order = {p: i for i, p in enumerate(self.params)}
        self.diff_params = sorted((k for keys, _, _ in self.groups for k in keys), key=order.__getitem__)
        self.group_of = {k: g for g in self.groups for k in g[0]}
        # the input whose gradient one rule computes alone: (rule, its names), for a node with that one edge
        self.alone = {keys[0]: (fn, names) for keys, fn, names in self.groups
                      if len(keys) == 1 and self.diff_params.count(keys[0]) == 1}
        self.diff_index = [(p, self._pos(p)) for p in self.diff_params]
        self.unimplemented = any(getattr(fn, "not_implemented", False) for _, fn, _ in self.groups)
        self._plans: dict[tuple, tuple] = {}
        self.inplace: Derivative | None = None
        self.node_cls = type(name or f"{_camel(self.op_name)}Backward0", (RuleNode,), {"__slots__": (), "entry": self,
                                                                                       "__module__": "builtins"})

    def _known(self, n: str) -> bool:
        if n in ("grad", "grads", "grad_input_mask") or n in self.defaults:
            return True
        if n == "result" or (n.startswith("result") and n[6:].isdigit()):
            return True
        return any(n.endswith(s) and n[: -len(s)] in self.defaults for s in _SUFFIXES)

    def save_plan(self, need: tuple) -> tuple[list, list]:
        """What to save when the inputs `need` require grad:
        ([(name, param, suffix, position)], [(name, output)]).

        The tensors are saved in PyTorch's order, which its pack hooks see: by ATen's argument names, as its
        generated nodes; with a trailing None in `need`, in argument order (inside a composite PyTorch
        records as one node, NOTE in ember.core.dispatch)."""
        plan = self._plans.get(need)
        if plan is None:
            key = self._aten_name if need[-1:] != (None,) else self._arg_order
            names = sorted({n for p in need if p is not None for n in self.group_of[p][2]}, key=key)
            inputs, results = [], []
            for n in names:
                if n in ("grad", "grads", "grad_input_mask"):
                    continue
                if n == "result" or (n.startswith("result") and n[6:].isdigit()):
                    results.append((n, 0 if n == "result" else int(n[6:])))
                elif n in self.defaults:
                    inputs.append((n, n, None, self._pos(n)))
                else:
                    suffix = next(s for s in _SUFFIXES if n.endswith(s) and n[: -len(s)] in self.defaults)
                    inputs.append((n, n[: -len(suffix)], suffix, self._pos(n[: -len(suffix)])))
            plan = self._plans[need] = (inputs, results)
        return plan

    def _aten_name(self, name: str) -> str:
        """`name` as ATen's schema of the op spells it (`self` for the first input), for the save order."""
        return _ATEN_NAMES.get(self.op_name, {}).get(name) or ("self" if name == "input" else name)

    def _arg_order(self, name: str) -> tuple[int, str]:
        """Where `name` (an argument, its metadata, or anything else, last) comes in the signature."""
        base = next((name[:-len(s)] for s in _SUFFIXES if name.endswith(s) and name[:-len(s)] in self.defaults),
                    name)
        return (self.params.index(base) if base in self.defaults else len(self.params)), name

    def _pos(self, param: str) -> int:
        """The positional index of `param`, or -1 (keyword-only, or the *args of a variadic op)."""
        return -1 if param == self.vararg else self.position.get(param, -1)

    def value(self, name: str, args: tuple, kwargs: dict):
        """The argument `name` of a call `op(*args, **kwargs)` (its default when not passed)."""
        if name == self.vararg:
            return args[self.n_positional:]
        i = self.position.get(name)
        if i is not None and i < len(args):
            return args[i]
        if kwargs and name in kwargs:
            return kwargs[name]
        d = self.defaults[name]
        if d is REQUIRED:
            raise TypeError(f"{self.op_name}: missing argument '{name}'")
        return d


def derivative(sig: str, rules: dict | None = None, /, *, name: str | None = None, **kw_rules) -> Derivative:
    """Declare the derivative entry of one primitive op (see NOTE [ Derivative entries ])."""
    return Derivative(sig, {**(rules or {}), **kw_rules}, name)


def inplace(entry: Derivative, in_place: Derivative) -> Derivative:
    """`entry`, recording `in_place` (same signature and differentiable inputs) when its op writes its input."""
    if in_place.op_name != entry.op_name or in_place.diff_params != entry.diff_params:
        raise ValueError(f"derivative of {entry.op_name}: the in-place entry must have the same op and "
                         f"differentiable inputs; got {in_place.op_name}{tuple(in_place.diff_params)}")
    entry.inplace = in_place
    return entry


def _wrapped(op_name: str, param: str, v):
    """`v` as PyTorch keeps it: a number it wraps into a tensor (int64/float64/complex128/bool) comes back as one."""
    from ember.autograd.record import _NUMBERS, _WRAPPED_NUMBERS
    from ember.core import dtypes, tensor

    if type(v) in _NUMBERS and param in _WRAPPED_NUMBERS.get(op_name, ()):
        dtype = {bool: dtypes.bool, int: dtypes.int64, float: dtypes.float64, complex: dtypes.complex128}[type(v)]
        return tensor(v, dtype=dtype)
    return v


# the parameters where PyTorch's overload takes a Tensor and ember a Python number (`x * 2`, not `2 - x`,
# which is rsub's Scalar overload): PyTorch lists the wrapped number in `next_functions` as (None, 0), and a
# backward frees it as a saved tensor (`_record` saves it, `RuleNode.release` frees it)
_WRAPPED_NUMBERS = {"add": ("other",), "sub": ("other",), "mul": ("other",), "div": ("other",),
                    "where": ("input", "other")}
_NUMBERS = frozenset((int, float, bool, complex))
# optional tensor parameters PyTorch's node keeps an edge for when they are None (`(None, 0)` in next_functions):
# the affine parameters of the norms
_OPTIONAL_TENSORS = {"layer_norm": ("weight", "bias"), "group_norm": ("weight", "bias"),
                     "batch_norm": ("weight", "bias")}
_ONE = (True,)  # the mask of a rule computing one gradient
_SAVED_OR_NONE = (SavedTensor, type(None))  # for isinstance: an inline `|` builds a Union object per call


# what a rule shared by several of PyTorch's nodes declares for some of them only: PowBackward0 (a number exponent)
# saves no result, PowBackward1/2 (a tensor exponent) do; `t()` is ember's transpose (PyTorch's TBackward0 saves
# nothing), `narrow` its slice (no length); permute's `dims` is ATen's own name (no `dim`)
_NOT_PYTORCHS = {"PowBackward0": ("result",), "TBackward0": ("dim0", "dim1"), "SliceBackward0": ("length",),
                 "PermuteBackward0": ("dim",)}
# ops whose saved names are ATen's although `_OWN_NAMES` maps them for others (permute's `dims`)
_ATEN_OWN = {"permute": frozenset({"dims"})}


def _resolves(node, name: str) -> bool:
    try:
        getattr(node, name)
    except AttributeError:
        return False
    except RuntimeError:  # freed by a backward: still PyTorch's attribute
        return True
    return True


class RuleNode(Node):
    """A node made from a derivative entry: evaluates the entry's rules on backward."""

    __slots__ = ("_saved", "_slots", "_in_meta")
    entry: Derivative

    def __init__(self, next_functions: tuple = (), slots: tuple = (), in_meta: tuple = ()) -> None:
        # Node.__init__, inlined: one node is made per recorded op
        self.next_functions = next_functions
        self._seq = next(_sequence)
        self._saved: dict | None = {}
        self._slots = slots      # per next_functions entry: (param, index in a list param or -1)
        self._in_meta = in_meta  # per next_functions entry: (shape, dtype, device) of that input

    def release(self) -> None:
        # frees the saved tensors only, as PyTorch's: a node that saved none (x + 1, x * 2) runs again
        saved = self._saved
        if saved:
            wrapped = _WRAPPED_NUMBERS.get(self.entry.op_name, ())
            for k, v in saved.items():
                if type(v) is SavedTensor:
                    v.tensor = None
                elif k in wrapped and type(v) in _NUMBERS:  # PyTorch saved the number as a wrapped tensor
                    freed = saved[k] = SavedTensor.__new__(SavedTensor)
                    freed.tensor = None
                elif type(v) is list and v and isinstance(v[0], _SAVED_OR_NONE):
                    for s in v:
                        if s is not None:
                            s.tensor = None

    def __getattr__(self, name: str):
        """PyTorch's `_saved_<name>` attributes: what the rule saved, unpacked; a wrapped number as a 0-d tensor."""
        if name.startswith("_saved_") and name[7:] not in _NOT_PYTORCHS.get(type(self).__name__, ()):
            saved = self._saved
            key = name[len("_saved_"):]
            if key == "self":  # PyTorch's derivatives name the first input `self`, ember's op table `input`
                key = "input"
            if saved is None:
                raise RuntimeError(FREED)
            aten = _ATEN_ATTRS.get(self.entry.op_name, {}).get(key)
            if aten is not None:
                return aten(saved)
            if key in _INPUT_SHAPE_ATTRS.get(self.entry.op_name, ()):  # what the engine keeps of the input
                return tuple(self._in_meta[0][0])
            if key in saved:
                v = saved[key]
                if isinstance(v, SavedTensor):
                    return v.unpack(self)
                if isinstance(v, list) and v and isinstance(v[0], SavedTensor | type(None)):
                    return [s.unpack(self) if s is not None else None for s in v]
                if key in _DIM_NAMES:
                    return _symint_dims(v)
                return _wrapped(self.entry.op_name, key, v)
            if any(key in names for _, _, names in self.entry.groups):
                return None  # a value the rule saves only when the gradient it feeds is needed, as PyTorch's
            meta = self._metadata_of(key, saved)
            if meta is not _MISSING:
                return meta
            own = _OWN_NAMES.get(key)
            if own in saved:  # ember's name for ATen's (`dims` for sum's `dim`)
                return self.__getattr__("_saved_" + own)
        if name.startswith("_raw_saved_"):  # the SavedTensor itself (its register_hooks); freed after backward
            key = name[len("_raw_saved_"):]
            key = "input" if key == "self" else key
            saved = self._saved
            if saved is None and any(key in names for _, _, names in self.entry.groups):
                freed = SavedTensor.__new__(SavedTensor)
                freed.tensor = None
                return freed
            if saved is not None and isinstance(saved.get(key), SavedTensor):
                return saved[key]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        """The attributes, with PyTorch's `_saved_<name>` (and `_raw_saved_<name>` for a saved tensor) of what the
        rule saves or declares, under ATen's names where ember's differ (torchviz's `show_attrs` walks `dir(fn)`)."""
        names = set(super().__dir__())
        saved = self._saved or {}
        keys = set(saved) | {n for _, _, group in self.entry.groups for n in group}
        own_to_aten = {v: k for k, v in _OWN_NAMES.items()}
        for key in keys - {"grad", "grads", "grad_input_mask"}:
            for suffix, aten in (("_geometry", ("_sym_sizes", "_sym_strides")), ("_shape", ("_sym_sizes",))):
                if key.endswith(suffix):
                    base = key[:-len(suffix)]
                    base = "self" if base == "input" else base
                    names.update(f"_saved_{base}{a}" for a in aten)
                    break
            else:
                name = "self" if key == "input" else \
                    key if key in _ATEN_OWN.get(self.entry.op_name, ()) else own_to_aten.get(key, key)
                names.add("_saved_" + name)
                if isinstance(saved.get(key), SavedTensor):
                    names.add("_raw_saved_" + name)
        names.update("_saved_" + k for k in _ATEN_ATTRS.get(self.entry.op_name, {}))
        names.update("_saved_" + k for k in _INPUT_SHAPE_ATTRS.get(self.entry.op_name, ()))
        return sorted(n for n in names if not n.startswith("_saved_") or _resolves(self, n))

    def _metadata_of(self, key: str, saved: dict):
        """PyTorch's `<name>_sym_sizes`/`_sym_strides`/`_sym_numel` from the shape or geometry the rule saved."""
        for suffix in ("_sym_sizes", "_sym_strides", "_sym_numel"):
            if key.endswith(suffix):
                base = key[:-len(suffix)]
                base = "input" if base == "self" else base
                geometry = saved.get(base + "_geometry")
                shape = saved.get(base + "_shape", geometry[0] if geometry is not None else None)
                if suffix == "_sym_strides":
                    return _MISSING if geometry is None else tuple(geometry[1])
                if shape is None:
                    return _MISSING
                return tuple(shape) if suffix == "_sym_sizes" else math.prod(shape)
        return _MISSING

    def _resolve(self, n: str, grads: list, mask: tuple):
        if n == "grad":
            return grads[0]
        if n == "grads":
            return grads
        if n == "grad_input_mask":
            return mask
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED)
        v = saved[n]
        if isinstance(v, SavedTensor):
            return v.unpack(self)
        if isinstance(v, list) and v and isinstance(v[0], SavedTensor | type(None)):
            return [s.unpack(self) if s is not None else None for s in v]
        return v

    def _arguments(self, names: tuple, grads: list, mask: tuple, unpacked: dict | None) -> tuple[list, dict | None]:
        """A rule's arguments (`_resolve`, inlined for grad, saved tensors and saved plain values), and the saved
        values unpacked once, in saved order, where unpack hooks are set (as PyTorch's nodes unpack them)."""
        saved = self._saved
        args = []
        for n in names:
            if n == "grad":
                args.append(grads[0])
                continue
            v = saved.get(n, _MISSING) if saved is not None else _MISSING
            if type(v) is SavedTensor and v.unpack_hook is None:
                v = v.unpack(self)
            elif type(v) is SavedTensor or (unpacked is not None and type(v) is list):
                if unpacked is None:
                    unpacked = {k: self._resolve(k, grads, mask) for k in saved}
                v = unpacked[n]
            elif v is _MISSING or isinstance(v, list):
                v = self._resolve(n, grads, mask)
            args.append(v)
        return args, unpacked

    def apply(self, grads: list) -> list:
        slots = self._slots
        nf = self.next_functions
        n_in = len(nf)
        if n_in == 1 and slots[0][1] < 0:  # one input (most nodes): its rule alone, its gradient checked inline
            if nf[0][0] is None:
                return [None]
            group = self.entry.alone.get(slots[0][0])
            if group is not None:
                fn, names = group
                g = fn(*self._arguments(names, grads, _ONE, None)[0])
                if g is not None:
                    shape, dtype, device = self._in_meta[0]
                    if g._shape != shape or g._dtype is not dtype or g._storage.device is not device:
                        g = reduce_grad(self, 0, g, self._in_meta[0])
                return [g]
        out: list = [None] * n_in
        if n_in == 1:
            need = (slots[0][0],) if nf[0][0] is not None else ()
        elif n_in == 2:  # the names of the inputs with an edge (None stands for none)
            need = (slots[0][0] if nf[0][0] is not None else None, slots[1][0] if nf[1][0] is not None else None)
        else:
            need = {p for (p, _), (n, _) in zip(slots, nf) if n is not None}
        if self.entry.unimplemented and _tasks:
            need = {p for (p, _), (n, _) in zip(slots, nf) if n is not None and will_execute(n)}
        saved = self._saved
        unpacked = None  # with unpack hooks: every saved tensor unpacked once, in saved order, as PyTorch's nodes
        for keys, fn, names in self.entry.groups:
            if len(keys) == 1:
                if keys[0] not in need:
                    continue
                mask = _ONE
            else:
                mask = tuple(k in need for k in keys)
                if not any(mask):
                    continue
            args = []
            for n in names:  # _arguments, inlined: a node of several inputs runs several rules
                if n == "grad":
                    args.append(grads[0])
                    continue
                v = saved.get(n, _MISSING) if saved is not None else _MISSING
                if type(v) is SavedTensor and v.unpack_hook is None:
                    v = v.unpack(self)
                elif type(v) is SavedTensor or (unpacked is not None and type(v) is list):
                    if unpacked is None:
                        unpacked = {k: self._resolve(k, grads, mask) for k in saved}
                    v = unpacked[n]
                elif v is _MISSING or isinstance(v, list):
                    v = self._resolve(n, grads, mask)
                args.append(v)
            r = (fn(*args),) if len(keys) == 1 else fn(*args)
            for k, g in zip(keys, r):
                if g is None or k not in need:
                    continue
                for i, (p, j) in enumerate(slots):
                    if p == k and nf[i][0] is not None:
                        out[i] = g[j] if j >= 0 else g
        in_meta = self._in_meta
        for i, g in enumerate(out):
            if g is not None:
                shape, dtype, device = in_meta[i]
                if g._shape != shape or g._dtype is not dtype or g._storage.device is not device:
                    out[i] = reduce_grad(self, i, g, in_meta[i])
        return out
