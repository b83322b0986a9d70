"""The fuzz campaign's runner for the op families that bring their own draw and reference (kinds
"indexing" and "shape": `ember.core.opinfo_indexing`, `ember.core.opinfo_shape`).

A family row's `ref` runs first, on host copies of the case's tensors (float64 for floating
dtypes, tagged with the tensor's dtype): it returns an `Expect` (value, dtype, the scale of a sum's
rounding), raises `Invalid(why, exc)` for a call PyTorch refuses, or `Unchecked` for a corner it
does not model. Then the call runs (on a fresh build of the same tensors) and is classified as in
NOTE [ The fuzz campaign ] of `ember.core.fuzz`, with one rule more: an invalid call must raise
PyTorch's exception class (`exc`), else it is a `bad-error` naming the class expected. A `shape`
row may also ask that the result alias its input (`Expect.alias`): writing through it must show in
the input.

Layers above core register families of their own (`register`: the conv, pool, loss and linalg rows of
`ember.nn.fuzz_families`, which need autograd and nn); the campaign's child imports the modules named
in `EMBER_FUZZ_PLUGINS` (comma-separated) so that it knows their rows. A row with `grad` also checks a
valid call's first derivatives once its value is right (a `wrong` outcome names the input).
"""

from __future__ import annotations

import importlib
import os

import numpy as np

__all__ = ["info_of", "call", "run_case", "family_names", "register", "load_plugins"]

FAMILIES = ("indexing", "shape")
_REGISTERED: dict = {}  # rows of the families above core, by name (`register`)


def register(rows: dict) -> None:
    """Add family rows ({name: OpInfo with `draw`}) from a layer above core (ember.nn.fuzz_families)."""
    _REGISTERED.update(rows)


def load_plugins() -> None:
    """Import the modules named in `EMBER_FUZZ_PLUGINS` (each calls `register` on import)."""
    for name in filter(None, os.environ.get("EMBER_FUZZ_PLUGINS", "").split(",")):
        importlib.import_module(name.strip())


def _composites() -> dict:
    from ember.core import opinfo_indexing, opinfo_shape

    return {**opinfo_indexing.INFOS, **opinfo_shape.INFOS, **_REGISTERED}


def family_names() -> dict:
    """{name: OpInfo} of every family row: the registered ops' and the composites' (take_along_dim ...)."""
    from ember.core.opinfo import ops_with_info

    rows = {n: o.info for n, o in ops_with_info(lambda i: i.kind in FAMILIES).items()}
    return dict(sorted({**rows, **_composites()}.items()))


def info_of(name: str):
    """The OpInfo of a case's op: the registered op's, else a composite row's (None if neither)."""
    from ember.core.dispatch import registered_ops

    op = registered_ops().get(name)
    if op is not None and op.info is not None:
        return op.info
    return _composites().get(name)


def call(info, name: str, M, args, kwargs):
    """The case's call in module `M` (`ember.core` or `torch`)."""
    if info.call is not None:
        return info.call(M, *args, **kwargs)
    return getattr(M, name)(*args, **kwargs)


def _host_of(v):
    from ember.core.opinfo_indexing import host
    from ember.core.tensor import Tensor

    if isinstance(v, list):
        return [_host_of(t) for t in v]
    if not isinstance(v, Tensor):
        return v
    a = np.asarray(v._host_array())
    offsets = v._offset + sum(np.arange(n)[(slice(None),) + (None,) * (v.ndim - k - 1)] * st
                              for k, (n, st) in enumerate(zip(v.shape, v.stride(), strict=True)))
    shared = v.numel() > 1 and np.unique(np.ravel(offsets)).size < v.numel()
    return host(a.astype(np.float64) if v.dtype.is_floating_point else a.copy(), v.dtype.name, shared,
                v.is_contiguous())


def run_case(case, info):
    """Run one family case in this process and classify it."""
    import ember.core as E
    from ember.core.fuzz import Outcome, build, leaked
    from ember.core.opinfo_indexing import Invalid, Unchecked

    hargs = [_host_of(build(a)) for a in case.args]
    hkw = {k: _host_of(build(v)) for k, v in case.kwargs}
    expect = invalid = None
    unchecked = ""
    try:
        with np.errstate(all="ignore"):
            expect = info.ref(*hargs, **hkw)
    except Invalid as e:
        invalid = e
    except Unchecked as e:
        unchecked = str(e)
    except Exception as e:  # noqa: BLE001 - a reference that cannot compute the case checks nothing
        unchecked = f"reference: {type(e).__name__}: {e}"
    args = [build(a) for a in case.args]
    kwargs = {k: build(v) for k, v in case.kwargs}
    try:
        with np.errstate(all="ignore"):
            r = call(info, case.op, E, args, kwargs)
    except Exception as e:  # noqa: BLE001 - classifying every exception is the point
        msg = f"{type(e).__name__}: {str(e)[:200]}"
        if leaked(e):
            return Outcome(case, "bad-error", msg)
        if invalid is None:
            return Outcome(case, "unchecked" if unchecked else "rejected", msg)
        if not isinstance(e, invalid.exc):
            return Outcome(case, "bad-error", f"{msg} (PyTorch raises {invalid.exc.__name__}: {invalid})")
        return Outcome(case, "error", msg)
    if invalid is not None:
        return Outcome(case, "accepted", f"{invalid} returned {type(r).__name__}")
    if expect is None:
        return Outcome(case, "unchecked", unchecked)
    o = _compare(case, expect, r, args)
    if o.cls == "ok" and info.grad is not None:
        try:
            why = info.grad(case, hargs, hkw, args, kwargs, r)
        except Exception as e:  # noqa: BLE001 - a backward that raises is a defect of the op
            why = f"backward raised {type(e).__name__}: {str(e)[:200]}"
        if why:
            return Outcome(case, "wrong", f"gradient: {why}")
    return o


def _compare(case, expect, r, args):
    from ember.core.fuzz import Outcome

    if isinstance(expect.value, list):  # split, chunk: one expected array per piece
        if not isinstance(r, tuple) or len(r) != len(expect.value):
            return Outcome(case, "wrong", f"returned {type(r).__name__} of {len(r) if isinstance(r, tuple) else '?'} "
                                          f"pieces, expected {len(expect.value)}")
        dts = expect.dtype if isinstance(expect.dtype, tuple) else (expect.dtype,) * len(expect.value)
        scales = expect.scale if isinstance(expect.scale, list) else [expect.scale] * len(expect.value)
        for k, (part, want) in enumerate(zip(r, expect.value, strict=True)):
            piece = type(expect)(want, dts[k], scales[k])
            piece.alias = getattr(expect, "alias", None)
            o = _compare(case, piece, part, args)
            if o.cls != "ok":
                o.detail = f"piece {k}: {o.detail}"
                return o
        return Outcome(case, "ok")
    return _compare_one(case, expect, r, args)


def _compare_one(case, expect, r, args):
    from ember.core.fuzz import _TOL, Outcome
    from ember.core.tensor import Tensor

    if not isinstance(r, Tensor):
        return Outcome(case, "wrong", f"returned {type(r).__name__}, not a Tensor")
    want = np.asarray(expect.value)
    if tuple(r.shape) != want.shape:
        return Outcome(case, "wrong", f"shape {tuple(r.shape)}, expected {want.shape}")
    if r.dtype.name != expect.dtype:
        return Outcome(case, "wrong", f"dtype {r.dtype.name}, expected {expect.dtype}")
    got = np.asarray(r._host_array())
    if r.dtype.is_floating_point:
        want = want.astype(np.float64).astype(r.dtype.np).astype(np.float64)
        g = got.astype(np.float64)
        rtol, atol = _TOL[r.dtype.name]
        scale = np.abs(want) if expect.scale is None else np.maximum(np.abs(want), np.asarray(expect.scale))
        with np.errstate(all="ignore"):
            bad = ~((np.abs(g - want) <= atol + rtol * np.nan_to_num(scale, posinf=0)) | (g == want)
                    | (np.isnan(g) & np.isnan(want)))
    else:
        bad = got != want.astype(got.dtype)
    if np.any(bad):
        i = tuple(int(k) for k in np.argwhere(bad)[0])
        return Outcome(case, "wrong", f"{int(np.sum(bad))}/{bad.size} elements differ; at {i}: {got[i]!r} vs "
                                      f"reference {want[i]!r}")
    alias = getattr(expect, "alias", None)
    if alias is not None and r.numel():
        base = args[alias]
        if not _writes_through(r, base):
            return Outcome(case, "wrong", "the result does not alias its input (writing through it is not seen)")
    return Outcome(case, "ok")


def _writes_through(view, base) -> bool:
    """Write a marker through `view` and look for it in `base` (then restore base's memory through
    a dense span of it: `view` may have elements at one address, which `copy_` refuses)."""
    from ember.core.tensor import Tensor

    before = np.array(base._host_array(), copy=True)
    last = base._offset + sum((n - 1) * s for n, s in zip(base._shape, base._strides))
    span = Tensor._make(base._storage, base._offset, (last - base._offset + 1,), (1,), base._dtype)
    saved = span.clone()
    old = view.clone()
    first = old.reshape(-1)[0].item()
    if isinstance(first, bool):
        marker = not first
    else:
        marker = (0.0 if first != 0 else 1.0) if isinstance(first, float) else (first - 1 if first > 0 else first + 1)
    view.fill_(marker)
    after = np.asarray(base._host_array())
    changed = after.tobytes() != before.tobytes()
    span.copy_(saved)
    return changed
