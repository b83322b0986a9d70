"""The ops of `torch.nested` tensors: every call on a `NestedTensor` arrives at `handle` (NOTE [ Nested tensors ]
in `ember.core.nested`), which runs it on the buffer where the geometry allows and per component otherwise.

A jagged tensor of shape (B, *S) has a buffer of shape S (its ragged size the total length), so NT dim d ≥ 1
is buffer dim d - 1: an op over a regular dim is the same op on the buffer. A strided tensor's ops run per
component (dim d is the component's d - 1), with PyTorch's refusals of the ops its strided layout lacks.
"""

from __future__ import annotations

from ember.core import dtypes
from ember.core.nested import NestedTensor, jagged
from ember.core.tensor import Tensor

__all__ = ["handle"]

# ops that act elementwise on every operand: a jagged tensor's buffer, or each component of a strided one
_POINTWISE = frozenset("""
abs absolute neg negative exp exp2 expm1 log log1p log2 log10 sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh
asinh acosh atanh sigmoid logit relu relu6 gelu silu mish elu selu celu leaky_relu hardtanh hardswish hardsigmoid
softplus softsign tanhshrink hardshrink softshrink threshold glu erf erfc erfinv sign sgn square reciprocal floor ceil
round trunc frac positive nan_to_num clamp clip clamp_min clamp_max logical_not bitwise_not isnan isinf isfinite
dropout native_dropout alpha_dropout feature_alpha_dropout add sub subtract mul multiply div divide true_divide
floor_divide remainder fmod pow float_power atan2 maximum minimum fmax fmin eq ne lt le gt ge greater less equal
not_equal logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor rsub where masked_fill lerp addcmul
addcdiv hypot copysign xlogy to float double half bfloat16 long int short bool byte char type type_as clone detach
contiguous cpu cuda zero_ fill_ copy_ normal_ uniform_ requires_grad_ zeros_like ones_like empty_like full_like
rand_like randn_like
""".split())
_OVERLOADS = {"var": "var.correction", "std": "std.correction"}  # the overload PyTorch's refusal names
_DUNDERS = {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "sub", "__mul__": "mul",
            "__rmul__": "mul", "__truediv__": "div", "__rtruediv__": "div", "__div__": "div", "__pow__": "pow",
            "__rpow__": "pow", "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide", "__mod__": "remainder",
            "__neg__": "neg", "__abs__": "abs", "__invert__": "bitwise_not", "__eq__": "eq", "__ne__": "ne",
            "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__and__": "bitwise_and",
            "__or__": "bitwise_or", "__xor__": "bitwise_xor", "__iadd__": "add_", "__isub__": "sub_",
            "__imul__": "mul_", "__itruediv__": "div_", "__pos__": "positive"}


def handle(func, args: tuple, kwargs: dict):
    """Run `func(*args, **kwargs)` where some argument is a nested tensor."""
    name = getattr(func, "__name__", "")
    op = _DUNDERS.get(name, name)
    if op == "__iter__":
        return iter(_first(args, kwargs).unbind())
    fn = _HANDLERS.get(op)
    if fn is not None:
        return _inherit(fn(func, args, kwargs), _first(args, kwargs))
    base = op[:-1] if op.endswith("_") and not op.endswith("__") else op
    if base in _POINTWISE:
        return _inherit(_pointwise(func, base, args, kwargs, inplace=base != op), _first(args, kwargs))
    raise _unsupported(_first(args, kwargs), op)


def _inherit(result, src: NestedTensor):
    """Results over `src`'s offsets learn the max length `src` knows (PyTorch's metadata cache follows ops)."""
    if src.layout is jagged and src._nt_max is not None:
        for r in result if isinstance(result, tuple) else (result,):
            if isinstance(r, NestedTensor) and r._nt_offsets is src._nt_offsets and r._nt_max is None:
                r._nt_max = src._nt_max
    return result


def _first(args, kwargs) -> NestedTensor:
    for a in (*args, *kwargs.values()):
        if isinstance(a, NestedTensor):
            return a
        if isinstance(a, list | tuple):
            for b in a:
                if isinstance(b, NestedTensor):
                    return b
    raise AssertionError("a nested tensor reached nested_ops.handle without a nested argument")


def _unsupported(nt: NestedTensor, op: str) -> Exception:
    op = _OVERLOADS.get(op, op)
    if nt.layout is jagged:
        return NotImplementedError(f"aten.{op}" if "." in op else f"aten.{op}.default")
    return NotImplementedError(f"Could not run 'aten::{op}' with arguments from the 'NestedTensorCPU' backend. "
                               "This could be because the operator doesn't exist for this backend, or was omitted "
                               "during the selective/custom build process (if using custom build).")


def _shape_text(t) -> str:
    """A shape as PyTorch's pointwise errors print a nested tensor's: `(2, j1, 4)`."""
    return "(" + ", ".join(str(s) for s in t.size()) + ")"


def _wrap(d: int, n: int) -> int:
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d % n


def _arg(args, kwargs, i: int, key: str, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(key, default)


def _set(args, kwargs, i: int, key: str, value):
    """(args, kwargs) with argument `i`/`key` replaced by `value`."""
    if len(args) > i:
        return (*args[:i], value, *args[i + 1:]), kwargs
    return args, {**kwargs, key: value}


def _refit(nt: NestedTensor, comps: list[Tensor], ragged: int | None = None, node: str | None = None) -> NestedTensor:
    """A nested tensor of `comps`, new components of `nt` (a jagged one keeps its offsets when the ragged
    lengths are kept, so it combines with `nt`)."""
    from ember.core import creation
    from ember.core.ops.join import cat

    if nt.layout is not jagged:
        buffer = _named(cat([c.reshape(-1) for c in comps], 0), comps, node)
        return NestedTensor._strided(buffer, [tuple(c.shape) for c in comps])
    r = nt._nt_ragged if ragged is None else ragged
    values = _named(cat(comps, r - 1), comps, node)
    if nt._nt_lengths is None:
        return NestedTensor._jagged(values, nt._nt_offsets, None, r)
    lens = [c.shape[r - 1] for c in comps]
    offsets = creation.tensor([0, *_accumulate(lens)], dtype=dtypes.int64, device=values.device)
    return NestedTensor._jagged(values, offsets, None, r, max(lens))


def _named(buffer: Tensor, comps: list[Tensor], node: str | None) -> Tensor:
    """The refitted buffer's node named `node` or as the components' op (ReluBackward0, not CatBackward0), as
    PyTorch records one node of the op for the whole nested tensor."""
    from ember.core.dispatch import node_name

    fn = getattr(comps[0], "_grad_fn", None)
    return buffer if fn is None else node_name(buffer, "CatBackward0", node or type(fn).__name__)


def _accumulate(xs):
    total = 0
    for x in xs:
        total += x
        yield total


def _map(fn, res):
    if isinstance(res, Tensor):
        return fn(res)
    if isinstance(res, tuple):
        items = [_map(fn, r) for r in res]
        return type(res)(items) if type(res) is not tuple else tuple(items)
    return res


# --- elementwise ------------------------------------------------------------------------------------------------
def _pointwise(func, op: str, args, kwargs, inplace: bool):
    nts = [a for a in (*args, *kwargs.values()) if isinstance(a, NestedTensor)]
    nt = nts[0]
    if nt.layout is jagged:
        for other in nts[1:]:
            if other.layout is not jagged or other._nt_offsets is not nt._nt_offsets or \
                    other._nt_ragged != nt._nt_ragged or other.dim() != nt.dim():
                raise RuntimeError(f"cannot call binary pointwise function {op}.Tensor with inputs of shapes "
                                   f"{_shape_text(nt)} and {_shape_text(other)}")
        dense = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor) and not isinstance(a, NestedTensor)]
        if any(d.dim() > nt.dim() - 1 or _needs_rows(nt, d) for d in dense):
            return _pointwise_rows(func, op, nt, args, kwargs)
        res = func(*_swap(args, lambda a: a._nt_values), **_swap_kw(kwargs, lambda a: a._nt_values))
        if inplace:
            return nt
        vals, r = nt._nt_values, nt._nt_ragged - 1
        return _map(lambda v: nt._like(v) if v.dim() == vals.dim() and v.shape[r] == vals.shape[r] else v, res)
    for other in nts[1:]:
        if other.layout is jagged or [tuple(s) for s in other._nt_sizes] != nt._nt_sizes:
            raise RuntimeError(f"{op} does not support broadcasting when given a NestedTensor")
    _refuse_strided_comparison(nt, op, _arg(args, kwargs, 1, "other"), inplace)
    missing = _STRIDED_MISSING.get(getattr(func, "__name__", op))
    if missing is not None and not (missing.startswith("pow") and isinstance(_arg(args, kwargs, 1, "exponent"),
                                                                          NestedTensor)):
        raise _unsupported(nt, missing)
    if any(isinstance(a, Tensor) and not isinstance(a, NestedTensor) and a.dim() > 0
           for a in (*args, *kwargs.values())):
        raise RuntimeError("Expected both self and other to be nested, but got a nested self and non-nested other")
    return _per_component(func, nt, args, kwargs, inplace)


# the pointwise ops PyTorch's strided nested tensors have no kernel for, and the overload its error names
_STRIDED_MISSING = {"exp": "exp", "pow": "pow.Tensor_Scalar", "__pow__": "pow.Tensor_Scalar", "__rsub__": "rsub.Scalar",
                    "rsub": "rsub.Scalar", "log": "log", "sigmoid": "sigmoid", "sqrt_": "sqrt_", "exp_": "exp_",
                    "clamp": "clamp"}


# comparisons: PyTorch's strided nested tensors have eq, gt and ge against a number only
_COMPARISONS = {"eq": "eq", "ne": "ne", "not_equal": "ne", "lt": "lt", "less": "lt", "le": "le", "gt": "gt",
                "greater": "gt", "ge": "ge"}


def _refuse_strided_comparison(nt: NestedTensor, op: str, other, inplace: bool) -> None:
    aten = _COMPARISONS.get(op)
    if aten is None:
        return
    if aten == "eq" and isinstance(other, NestedTensor) and not inplace:
        raise RuntimeError("eq does not support nested tensor as other value.")
    kind = "Tensor" if isinstance(other, Tensor) else "Scalar"
    if inplace or aten in ("ne", "lt", "le") or isinstance(other, NestedTensor):
        raise _unsupported(nt, f"{aten}{'_' if inplace else ''}.{kind}")


def _needs_rows(nt: NestedTensor, d: Tensor) -> bool:
    """Whether dense `d` broadcast against the buffer would meet the ragged dim with a size other than 1."""
    at = nt._nt_ragged - 1 - (nt.dim() - 1 - d.dim())
    return at >= 0 and d.shape[at] != 1


def _pointwise_rows(func, op: str, nt: NestedTensor, args, kwargs):
    """A jagged tensor with a dense operand that has the batch dim (B or 1, ..., 1 at the ragged dim, ...):
    component i meets row i."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor) and not isinstance(a, NestedTensor):
            ok = a.dim() == nt.dim() and a.shape[0] in (1, nt._batch()) and a.shape[nt._nt_ragged] == 1
            if not ok:
                raise RuntimeError(f"cannot call binary pointwise function {op}.Tensor with inputs of shapes "
                                   f"{nt.size()!r} and {a.shape!r}")
    comps = []
    for i in range(nt._batch()):
        pick = (lambda a, i=i: a.unbind()[i] if isinstance(a, NestedTensor) else
                a[i if a.shape[0] > 1 else 0] if isinstance(a, Tensor) and a.dim() == nt.dim() else a)
        comps.append(func(*[pick(a) for a in args], **{k: pick(v) for k, v in kwargs.items()}))
    return _refit(nt, comps)


def _swap(args, fn):
    return tuple(fn(a) if isinstance(a, NestedTensor) else
                 type(a)(fn(b) if isinstance(b, NestedTensor) else b for b in a) if isinstance(a, list | tuple)
                 else a for a in args)


def _swap_kw(kwargs, fn):
    return {k: fn(v) if isinstance(v, NestedTensor) else v for k, v in kwargs.items()}


def _per_component(func, nt: NestedTensor, args, kwargs, inplace: bool = False, shift: dict | None = None):
    """`func` on each component (other nested arguments give theirs); `shift` names dim arguments
    {position: keyword} to move from the nested tensor's numbering to the component's."""
    n = nt.dim()
    if shift:
        for i, key in shift.items():
            d = _arg(args, kwargs, i, key)
            if isinstance(d, int):
                args, kwargs = _set(args, kwargs, i, key, _wrap(d, n) - 1)
    results = []
    for i in range(nt._batch()):
        pick = (lambda a, i=i: a.unbind()[i] if isinstance(a, NestedTensor) else a)
        results.append(func(*_swap(args, pick), **_swap_kw(kwargs, pick)))
    if inplace:
        return nt
    if isinstance(results[0], tuple):
        return tuple(_refit(nt, list(parts)) for parts in zip(*results))
    return _refit(nt, results)


# --- dims -------------------------------------------------------------------------------------------------------
def _dim_op(func, args, kwargs, d: int, *, pos: int = 1, key: str = "dim", ragged_after=None):
    """`func` over regular dim `d` (≥ 1, not ragged) of a jagged tensor: the same op on the buffer's d - 1."""
    nt = args[0]
    args, kwargs = _set(args, kwargs, pos, key, d - 1)
    res = func(nt._nt_values, *args[1:], **kwargs)
    r = nt._nt_ragged if ragged_after is None else ragged_after
    return _map(lambda v: NestedTensor._jagged(v, nt._nt_offsets, nt._nt_lengths, r), res)


def _softmax(func, args, kwargs):
    nt = args[0]
    name = getattr(func, "__name__", "softmax").lstrip("_")
    d = _wrap(_arg(args, kwargs, 1, "dim"), nt.dim())
    if nt.layout is not jagged:
        if "log" in name:
            raise _unsupported(nt, "_log_softmax")
        if d == 0:
            raise RuntimeError("Cannot apply softmax across nested dimension 0")
        return _per_component(func, nt, args, kwargs, shift={1: "dim"})
    if d == 0:
        raise RuntimeError(f"{name}(): not supported when reducing across the batch dimension for NestedTensor")
    if d == nt._nt_ragged:
        out = _per_component(func, nt, args, kwargs, shift={1: "dim"})
        out._nt_max = max(c.shape[d - 1] for c in out.unbind())  # PyTorch's ragged softmax learns the max length
        return out
    return _dim_op(func, args, kwargs, d)


def _reduce(func, args, kwargs):
    nt = args[0]
    name = getattr(func, "__name__", "sum")
    dim = _arg(args, kwargs, 1, "dim")
    keepdim = bool(_arg(args, kwargs, 2, "keepdim", False))
    n = nt.dim()
    if nt.layout is not jagged:
        if name != "sum":
            raise _unsupported(nt, name if dim is None or name not in ("mean", "max", "min") else f"{name}.dim")
        if dim is None:
            raise _unsupported(nt, "sum")
        dims = dim if isinstance(dim, list | tuple) else [dim]
        if len(dims) != 1:
            raise RuntimeError("NestedTensor only allows reduction of a single dimension for now.")
        d = _wrap(dims[0], n)
        if d != n - 1:
            raise RuntimeError(f"NestedTensor can only be reduced across the last dimension for now got dimension "
                               f"{d} instead.")
        if not keepdim:
            raise RuntimeError("NestedTensor always requires keepdim=True for now.")
        return _per_component(func, nt, args, kwargs, shift={1: "dim"})
    if dim is None or (isinstance(dim, list | tuple) and not dim):
        return func(nt._nt_values if nt._nt_lengths is None else _cat_components(nt), *args[2:], **{
            k: v for k, v in kwargs.items() if k not in ("dim", "keepdim")})
    dims = sorted({_wrap(x, n) for x in (dim if isinstance(dim, list | tuple) else [dim])})
    r = nt._nt_ragged
    if 0 in dims and r not in dims:
        raise RuntimeError(f"{name}(): reducing along the batch dimension but not the ragged dimension is not "
                           "supported for nested tensors")
    if r in dims and len([x for x in dims if x != 0]) > 1:
        raise RuntimeError(f"{name}(): reducing along a ragged and non-batch dimension is not supported for "
                           "nested tensors")
    if 0 in dims:
        return func(_cat_components(nt), r - 1, keepdim=keepdim)
    if r in dims:
        from ember.core.ops.join import stack

        return stack([func(c, r - 1, keepdim=keepdim) for c in nt.unbind()], 0)
    d = dims[0] if len(dims) == 1 else dims
    shift = 0 if keepdim else len([x for x in dims if x < r])
    if isinstance(d, list):
        args, kwargs = _set(args, kwargs, 1, "dim", [x - 1 for x in d])
        res = func(nt._nt_values, *args[1:], **kwargs)
        return _map(lambda v: NestedTensor._jagged(v, nt._nt_offsets, nt._nt_lengths, r - shift), res)
    return _dim_op(func, args, kwargs, d, ragged_after=r - shift)


def _cat_components(nt: NestedTensor) -> Tensor:
    from ember.core.ops.join import cat

    return cat(nt.unbind(), nt._nt_ragged - 1)


def _transpose(func, args, kwargs):
    nt = args[0]
    n = nt.dim()
    d0, d1 = _wrap(_arg(args, kwargs, 1, "dim0"), n), _wrap(_arg(args, kwargs, 2, "dim1"), n)
    if nt.layout is not jagged:
        if 0 in (d0, d1):
            raise RuntimeError("Nested tensor dimension 0 cannot be transposed")
        return _per_component(func, nt, (nt, d0 - 1, d1 - 1), {})
    if 0 in (d0, d1):
        raise ValueError("Transpose is not supported on the batch dimension for jagged NT")
    r = nt._nt_ragged
    r = d1 if r == d0 else d0 if r == d1 else r
    return NestedTensor._jagged(nt._nt_values.transpose(d0 - 1, d1 - 1), nt._nt_offsets, nt._nt_lengths, r)


def _permute(func, args, kwargs):
    nt = args[0]
    dims = args[1:] if len(args) > 2 or (len(args) == 2 and isinstance(args[1], int)) else \
        (args[1] if len(args) > 1 else kwargs["dims"])
    if nt.layout is not jagged:
        raise _unsupported(nt, "permute")
    dims = [_wrap(d, nt.dim()) for d in dims]
    if dims[0] != 0:
        raise ValueError("Permute is not supported on the batch dimension for jagged NT")
    return NestedTensor._jagged(nt._nt_values.permute(*[d - 1 for d in dims[1:]]), nt._nt_offsets, nt._nt_lengths,
                                dims.index(nt._nt_ragged))


def _unsqueeze(func, args, kwargs):
    nt = args[0]
    d = _wrap(_arg(args, kwargs, 1, "dim"), nt.dim() + 1)
    if d == 0:
        raise RuntimeError("unsqueeze(): not supported for NestedTensor on dim=0")
    if nt.layout is not jagged:
        return _per_component(func, nt, (nt, d - 1), {})
    r = nt._nt_ragged + (d <= nt._nt_ragged)
    return NestedTensor._jagged(nt._nt_values.unsqueeze(d - 1), nt._nt_offsets, nt._nt_lengths, r)


def _squeeze(func, args, kwargs):
    nt = args[0]
    d = _arg(args, kwargs, 1, "dim")
    if d is None or _wrap(d, nt.dim()) == 0:
        if nt.layout is jagged:
            raise RuntimeError("squeeze(): not supported for NestedTensor on dim=0")
        raise RuntimeError("squeeze(): For nested tensors, squeezing dimension 0 is not supported at the moment if "
                           "you need this feature, please open an issue on github describing your use case.")
    d = _wrap(d, nt.dim())
    if nt.layout is not jagged:
        return _per_component(func, nt, (nt, d - 1), {})
    if d == nt._nt_ragged:
        raise RuntimeError("squeeze(): not supported for NestedTensor on ragged dim")
    r = nt._nt_ragged - (d < nt._nt_ragged and nt._nt_values.shape[d - 1] == 1)
    return NestedTensor._jagged(nt._nt_values.squeeze(d - 1), nt._nt_offsets, nt._nt_lengths, r)


def _unflatten(func, args, kwargs):
    nt = args[0]
    d = _wrap(_arg(args, kwargs, 1, "dim"), nt.dim())
    sizes = tuple(_arg(args, kwargs, 2, "sizes"))
    if nt.layout is not jagged:
        raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")
    if d in (0, nt._nt_ragged):
        raise RuntimeError(f"unflatten(): not supported for NestedTensor on {'dim=0' if d == 0 else 'ragged dim'}")
    r = nt._nt_ragged + (len(sizes) - 1 if d < nt._nt_ragged else 0)
    return NestedTensor._jagged(nt._nt_values.unflatten(d - 1, sizes), nt._nt_offsets, nt._nt_lengths, r)


def _flatten(func, args, kwargs):
    nt = args[0]
    n = nt.dim()
    s, e = _wrap(_arg(args, kwargs, 1, "start_dim", 0), n), _wrap(_arg(args, kwargs, 2, "end_dim", -1), n)
    if nt.layout is not jagged:
        raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")
    if s == 0:
        raise RuntimeError("flatten(): not supported for NestedTensor on dim=0")
    r = nt._nt_ragged
    if s <= r <= e and s != e:
        raise RuntimeError("flatten(): not supported for NestedTensor on ragged dim")
    r = r - (e - s) if r > e else r
    return NestedTensor._jagged(nt._nt_values.flatten(s - 1, e - 1), nt._nt_offsets, nt._nt_lengths, r)


def _view(func, args, kwargs):
    nt = args[0]
    shape = args[1] if len(args) == 2 and isinstance(args[1], list | tuple) else args[1:] or kwargs.get("shape")
    shape = list(shape)
    if nt.layout is not jagged:
        if shape[0] not in (-1, nt._batch()):
            raise RuntimeError(f"view: For now nested view cannot change or infer the implicit batch dimension; "
                               f"got {shape[0]}")
        return _per_component(lambda c: c.reshape(shape[1:]), nt, (nt,), {})
    r = nt._nt_ragged
    if len(shape) <= r or shape[0] not in (-1, nt._batch()) or not (shape[r] == -1 or shape[r] is nt.size(r)):
        raise RuntimeError(f"view(): does not support ragged dims changing in shape {shape} for "
                           f"{_shape_text(nt)}")
    inner = [nt._nt_values.shape[r - 1] if i == r else s for i, s in enumerate(shape)][1:]
    return NestedTensor._jagged(getattr(nt._nt_values, getattr(func, "__name__", "view"))(inner), nt._nt_offsets,
                                nt._nt_lengths, r)


def _chunk(func, args, kwargs):
    nt = args[0]
    name = getattr(func, "__name__", "chunk")
    key = "chunks" if name == "chunk" else "split_size_or_sections"
    d = _wrap(_arg(args, kwargs, 2, "dim", 0), nt.dim())
    if nt.layout is not jagged:
        if name != "chunk":
            raise _unsupported(nt, "split.Tensor")
        if d != nt.dim() - 1:
            raise RuntimeError("Chunk for nested tensors is currently only supported for the last dimension.")
        return _per_component(func, nt, (nt, _arg(args, kwargs, 1, key), d - 1), {})
    if d == 0 or d == nt._nt_ragged:
        raise RuntimeError(f"{name}(): not supported for NestedTensor on {'dim=0' if d == 0 else 'ragged dim'}")
    parts = func(nt._nt_values, _arg(args, kwargs, 1, key), d - 1)
    return tuple(nt._like(p) for p in parts)


def _cat(func, args, kwargs):
    tensors = list(_arg(args, kwargs, 0, "tensors"))
    nt = next(t for t in tensors if isinstance(t, NestedTensor))
    d = _wrap(_arg(args, kwargs, 1, "dim", 0), nt.dim())
    if nt.layout is not jagged:
        if d == 0:
            raise _unsupported(nt, "cat")
        return _per_component(lambda *cs: func(list(cs), d - 1), nt, tuple(tensors), {})
    if any(not isinstance(t, NestedTensor) or t._nt_offsets is not nt._nt_offsets for t in tensors) or \
            d in (0, nt._nt_ragged):
        raise RuntimeError("cat(): expected all nested tensors to have matching ragged structures outside of the "
                           "concatenated dim")
    return nt._like(func([t._nt_values for t in tensors], d - 1))


# --- products and layers ------------------------------------------------------------------------------------------
def _matmul(func, args, kwargs):
    a, b = args[0], args[1] if len(args) > 1 else kwargs.get("other", kwargs.get("mat2"))
    a_nt, b_nt = isinstance(a, NestedTensor), isinstance(b, NestedTensor)
    lead = a if a_nt else b
    if lead.layout is not jagged:
        if not (a_nt and b_nt):
            raise RuntimeError("Expected both to be nested, but got a nested self and non-nested other" if a_nt else
                               "Expected both to be nested, but got a non-nested self and nested other")
        from ember.core.ops.linalg import matmul

        return _per_component(matmul, a, (a, b), {})  # a component of a batched product is a matrix product
    if a_nt and not b_nt and a._nt_ragged < a.dim() - 1 and b.dim() <= 2:
        return a._like(func(a._nt_values, b))
    if a_nt and b_nt and b.layout is jagged and a._nt_offsets is b._nt_offsets and \
            a._nt_ragged == b._nt_ragged < a.dim() - 2:
        return a._like(func(a._nt_values, b._nt_values))
    left = _shape_text(a) if a_nt else repr(a.shape)
    raise RuntimeError(f"matmul(): not supported between inputs of shapes {left} and {b.size()!r}")


def _linear(func, args, kwargs):
    nt = args[0]
    if nt.layout is not jagged:
        return _per_component(func, nt, args, kwargs)
    if nt._nt_ragged == nt.dim() - 1:
        raise RuntimeError("linear(): not supported for NestedTensor on ragged last dim")
    from ember.core.dispatch import node_name

    out = func(nt._nt_values, *args[1:], **kwargs)
    fn = getattr(out, "_grad_fn", None)
    return nt._like(out if fn is None else node_name(out, type(fn).__name__, "LinearBackward0"))  # PyTorch's one node


def _layer_norm(func, args, kwargs):
    nt = args[0]
    shape = _arg(args, kwargs, 1, "normalized_shape")
    shape = [shape] if isinstance(shape, int) else list(shape)
    if nt.layout is not jagged:
        if _arg(args, kwargs, 2, "weight") is None or _arg(args, kwargs, 3, "bias") is None:
            raise ValueError("NestedTensor layer_norm requires weight and bias")
        return _per_component(func, nt, args, kwargs)
    if nt.dim() - len(shape) == 0:
        raise RuntimeError("layer_norm(): not supported for NestedTensor objects with normalized dims over the "
                           "batch dim")
    return nt._like(func(nt._nt_values, *args[1:], **kwargs))


def _rms_norm(func, args, kwargs):
    """`F.rms_norm` over regular last dims: once on a jagged tensor's buffer, per component of a strided one."""
    nt = args[0]
    if nt.layout is not jagged:
        return _per_component(func, nt, args, kwargs)
    return nt._like(func(nt._nt_values, *args[1:], **kwargs))


def _attention(func, args, kwargs):
    """`F.scaled_dot_product_attention` of jagged (B, H, j, D) tensors, component by component (each batch
    element attends within its own length), with the checks of PyTorch's CPU (math) path."""
    q, k, v = args[0], _arg(args, kwargs, 1, "key"), _arg(args, kwargs, 2, "value")
    if not all(isinstance(t, NestedTensor) for t in (q, k, v)):
        raise ValueError(f"Expected query, key, and value to be nested tensors, but got query.is_nested: "
                         f"{q.is_nested}, key.is_nested: {k.is_nested}, and value.is_nested: {v.is_nested} instead.")
    if q.dtype != k.dtype or q.dtype != v.dtype:
        raise ValueError(f"Expected query, key, and value to have the same dtype, but got query.dtype: {q.dtype}, "
                         f"key.dtype: {k.dtype}, and value.dtype: {v.dtype} instead.")
    if q.dim() < 3 or k.dim() < 3 or v.dim() < 3:
        raise ValueError(f"Expected query, key, and value to all be at least 3 dimensional, but got query.dim: "
                         f"{q.dim()}, key.dim: {k.dim()} and value.dim: {v.dim()} instead.")
    if q._nt_ragged != k._nt_ragged or q._nt_ragged != v._nt_ragged:
        raise ValueError(f"Expected query, key, and value to all be ragged on the same dimension, but got ragged "
                         f"dims {q._nt_ragged}, {k._nt_ragged}, and {v._nt_ragged}, respectively.")
    # PyTorch's CPU has only the math path, which takes no causal mask and wants (B, j, H, D) contiguous inputs
    if bool(_arg(args, kwargs, 5, "is_causal", False)) or _arg(args, kwargs, 3, "attn_mask") is not None or \
            not all(t.transpose(1, 2).is_contiguous() for t in (q, k, v)):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found.")
    rest = {key: val for key, val in kwargs.items() if key not in ("query", "key", "value")}
    outs = [func(qi, ki, vi, *args[3:], **rest) for qi, ki, vi in zip(q.unbind(), k.unbind(), v.unbind())]
    return _refit(q, outs, node="TransposeBackward0")  # PyTorch's math path ends in a transpose


def _embedding(func, args, kwargs):
    """A lookup of a nested tensor of indices: each index gains the embedding dim, the geometry is kept."""
    nt = _first(args, kwargs)
    if nt.layout is not jagged:
        return _per_component(func, nt, args, kwargs)
    res = func(*_swap(args, lambda a: a._nt_values), **_swap_kw(kwargs, lambda a: a._nt_values))
    return NestedTensor._jagged(res, nt._nt_offsets, nt._nt_lengths, nt._nt_ragged)


def _unbind(func, args, kwargs):
    return args[0].unbind(_arg(args, kwargs, 1, "dim", 0))


def _size_like(func, args, kwargs):
    nt = args[0]
    return getattr(nt, func.__name__)(*args[1:], **kwargs)


def _max(func, args, kwargs):
    if _arg(args, kwargs, 1, "dim") is None or isinstance(_arg(args, kwargs, 1, "dim"), Tensor):
        other = _arg(args, kwargs, 1, "other")
        if isinstance(other, Tensor):
            return _pointwise(func, getattr(func, "__name__", "max"), args, kwargs, False)
        nt = args[0]
        if nt.layout is not jagged:
            raise _unsupported(nt, getattr(func, "__name__", "max"))
        return func(_cat_components(nt))
    return _reduce(func, args, kwargs)


def _equal(func, args, kwargs):
    """PyTorch 2.13's `torch.equal` of nested tensors: no kernel for the strided layout; the jagged one runs
    `equal` as a pointwise op over the values, so two nested tensors end in its own AttributeError (it asks the bool
    answer for a device) and a dense operand in the pointwise shape error."""
    nt = _first(args, kwargs)
    if nt.layout is not jagged:
        raise _unsupported(nt, "equal")
    other = args[1] if args[0] is nt else args[0]
    if isinstance(other, NestedTensor):
        raise AttributeError("'bool' object has no attribute 'device'")
    raise RuntimeError(f"cannot call binary pointwise function equal.default with inputs of shapes "
                       f"torch.Size({list(nt.size())}) and torch.Size({list(other.size())})".replace("'", ""))


_HANDLERS = {
    "equal": _equal,
    "softmax": _softmax, "log_softmax": _softmax, "_softmax": _softmax, "_log_softmax": _softmax,
    "sum": _reduce, "mean": _reduce, "amax": _reduce, "amin": _reduce, "prod": _reduce, "logsumexp": _reduce,
    "nansum": _reduce, "argmax": _reduce, "argmin": _reduce, "any": _reduce, "all": _reduce, "norm": _reduce,
    "max": _max, "min": _max,
    "transpose": _transpose, "swapaxes": _transpose, "swapdims": _transpose, "permute": _permute,
    "unsqueeze": _unsqueeze, "squeeze": _squeeze, "unflatten": _unflatten, "flatten": _flatten,
    "view": _view, "reshape": _view, "chunk": _chunk, "split": _chunk, "cat": _cat, "concat": _cat,
    "concatenate": _cat, "matmul": _matmul, "bmm": _matmul, "mm": _matmul, "linear": _linear,
    "layer_norm": _layer_norm, "rms_norm": _rms_norm,
    "embedding": _embedding, "scaled_dot_product_attention": _attention, "unbind": _unbind,
    "size": _size_like, "dim": _size_like, "numel": _size_like, "values": _size_like, "offsets": _size_like,
    "lengths": _size_like, "to_padded_tensor": _size_like, "is_contiguous": _size_like,
}
