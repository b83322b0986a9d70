"""vmap's refusal of a write from a mapped value into an unmapped tensor, in PyTorch's words.

PyTorch's batched tensors cannot write a per-sample value into a tensor that has no batch dimension
(`buf = torch.zeros(3); buf.copy_(x)` inside `vmap`): there is one `buf` for all samples. ember runs
the function once per sample, where such a write would silently work; `refusal` finds the calls
PyTorch refuses so that the vmap hook raises the same RuntimeError. Only calls the user's code makes
count: ember's own composites fill fresh buffers this way, which PyTorch's batching rules never see.
"""

from __future__ import annotations

import sys

_ADVICE = ("(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more "
           "elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped "
           "over {where}. Please try to use out-of-place operators instead of {name}. If said operator is being "
           "called inside the PyTorch framework, please file a bug report instead.")
# ember op -> the name PyTorch's fallback prints ("inplace arithmetic" for its generic in-place rule)
_ARITHMETIC = {"copy_", "sub", "mul", "div", "masked_fill"}
_NAMED = {"fill_": "fill_", "index_add": "index_add_"}
_BROADCASTING = {"add", "atan2"}  # in-place ops whose batching rule checks the output's shape instead
_SHIMS = frozenset({"ember.core.methods"})  # frames between a Tensor method and its op
_SETITEM = frozenset({"setitem", "advanced_index_put_"})


def _caller(frame, op_name: str) -> tuple[object, str, bool, bool]:
    """The frame that asked for the op `op_name` running under `frame`'s dispatch, the public function it called
    (`addcmul` writes through the op `add`), whether the call came through an in-place method shim, and whether
    it came through `t[...] = v`; no frame where the public function is another op's own composite."""
    while frame is not None and frame.f_globals.get("__name__") == "ember.core.dispatch":
        frame = frame.f_back
    name, shim, setitem = op_name, False, False
    if frame is not None and frame.f_globals.get("__name__", "").startswith("ember.core.ops"):
        if frame.f_code.co_name in _SETITEM:
            setitem = True
        else:
            name = frame.f_code.co_name
        frame = frame.f_back
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module in _SHIMS:
            shim = True
        elif module.startswith("ember.core.ops") and frame.f_code.co_name in _SETITEM:
            setitem = True
        else:
            break
        frame = frame.f_back
    if not (shim or setitem) and name.rstrip("_") != op_name.rstrip("_"):
        return None, name, shim, setitem  # a composite writing its own fresh buffer (`pad` through `copy_`)
    return frame, name, shim, setitem


def refusal(op, args: tuple, kwargs: dict, holds, size: int, level: int) -> str | None:
    """PyTorch's message if this call writes a mapped value into an unmapped tensor from user code, else None.

    `holds(t)`: whether `t` is mapped; `size`: the mapped dimension's size; `level`: the vmap's nesting level."""
    out = kwargs.get("out") if kwargs else None
    written = out if out is not None else (args[op.mutates[0]] if op.mutates else None)
    if written is None:
        return None
    mapped = any(holds(a) or (isinstance(a, tuple | list) and any(holds(b) for b in a))
                 for a in (*args, *kwargs.values()) if a is not written)
    frame, name, shim, setitem = _caller(sys._getframe(2), op.name)
    if frame is None or frame.f_globals.get("__name__", "").startswith(("ember.", "torch.")):
        return None
    if out is not None and not op.mutates and not ((shim or setitem) and out is args[0]):  # an explicit out=
        if mapped or holds(out):
            return (f"Batching rule not implemented for aten::{name}.out; the fallback path doesn't work on out= "
                    "or view ops.")
        return None
    if not mapped or holds(written):
        return None
    if setitem:
        name = "copy_" if name == "copy_" else "index_put_"
    if name in _BROADCASTING:
        other = next((a for a in args if a is not written and holds(a)), written)
        shape = _broadcast(tuple(written.shape), tuple(other.shape))
        return (f"output with shape {list(written.shape)} doesn't match the broadcast shape "
                f"{[size, *shape]}")
    if name in _ARITHMETIC:
        return "vmap: inplace arithmetic" + _ADVICE.format(where="in a vmap", name="inplace arithmetic")
    if name in _NAMED or name == "index_put_":
        named = _NAMED.get(name, name)
        return f"vmap: {named}" + _ADVICE.format(where="in a vmap", name=named)
    aten = f"aten::{name.rstrip('_')}_"
    return f"vmap: {aten}" + _ADVICE.format(where=f"at level {level}", name=aten)


def _broadcast(a: tuple, b: tuple) -> list:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return [max(x, y) if 1 in (x, y) else x for x, y in zip(a, b)]
