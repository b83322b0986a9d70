"""The fuzz campaign's conv, pool, loss and linalg families (NOTE [ The fuzz campaign ] in
`ember.core.fuzz`): rows like core's indexing and shape rows (`ember.core.opinfo_indexing`: a
hypothesis `draw`, a float64 numpy `ref` that returns an `Expect` or raises `Invalid` with PyTorch's
exception class, a `call` in `ember` or `torch`), plus `grad`: once a valid call's value is right,
the derivative of `sum(w * out)` (fixed weights `w = cos(0, 1, 2, ...)`) along a random direction
of each float32/float64 input is compared with central differences of the float64 reference.

They live in nn because the losses are nn functions and the gradients need autograd; importing
this module registers the rows with `ember.core.fuzz_family.register` (the campaign's child imports
it by name: `EMBER_FUZZ_PLUGINS=ember.nn.fuzz_families`). Rows are keyed by the public name the call
uses (`F.conv2d`, `linalg.solve`): the conv and pool functions of 1 and 3 dims, the losses and most
linalg functions are compositions without an op declaration of their own to carry them.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from ember.core.fuzz_family import register
from ember.core.opinfo import OpInfo
from ember.core.opinfo_indexing import Expect, Invalid, Unchecked, _dt

__all__ = ["KINDS", "PLUGIN", "ROWS"]

KINDS = ("conv", "pool", "loss", "linalg")
PLUGIN = __name__
_FLOATS = ("float16", "bfloat16", "float32", "float64")
_INTS = ("int8", "int16", "int32", "int64", "uint8")
_CONV_DTYPES = ["float32"] * 6 + ["float64"] * 3 + ["float16", "bfloat16", "int64"]


def _st():
    from hypothesis import strategies as st

    return st


def _F(M):
    if M.__name__ == "torch":
        return M.nn.functional
    import ember.nn.functional as F

    return F


def _t(draw, T, dtype, shape, low=-4.0, high=4.0, channels_last=False):
    """A tensor spec (any layout; channels_last sometimes where asked)."""
    from ember.core.fuzz import CHANNELS_LAST

    spec = draw(T.tensor(dtype, tuple(shape), low, high))
    if channels_last and len(shape) >= 3 and draw(_st().integers(0, 3)) == 0:
        spec = dataclasses.replace(spec, layout=CHANNELS_LAST)
    return spec


def _tup(v, d: int) -> tuple:
    return tuple(v) if isinstance(v, tuple | list) else (v,) * d


def _param(draw, d, good, bad):
    """An int or a d-tuple from `good`, one of `bad` in one position sometimes."""
    st = _st()
    vals = [draw(st.sampled_from(good)) for _ in range(d)]
    if bad and draw(st.integers(0, 14)) == 0:
        vals[draw(st.integers(0, d - 1))] = draw(st.sampled_from(bad))
    if len(set(vals)) == 1 and draw(st.booleans()):
        return vals[0]
    return tuple(vals)


def _overflows(v, dt: str) -> None:
    """A power or sum the kernel computes in `dt` overflows there (inf, as PyTorch's) where float64 does not."""
    big = {"float16": 65504.0, "bfloat16": 3.38e38, "float32": 3.4e38}.get(dt)
    if big is not None and np.size(v) and np.nanmax(np.where(np.isfinite(v), v, 0)) >= big:
        raise Unchecked(f"an intermediate that overflows {dt}")


def _floating(*arrays) -> str:
    dt = _dt(arrays[0])
    if dt not in _FLOATS:
        raise Unchecked(f"{dt} input (PyTorch computes integer conv and pooling on the CPU, ember refuses)")
    for a in arrays[1:]:
        if a is not None and _dt(a) != dt:
            raise Invalid("operands of two dtypes")
    return dt


# --- convolution -------------------------------------------------------------------------------
def _conv_core(X, w, s, dil, groups):
    """Cross-correlation of a padded (N, C, *L) array with (O, C/groups, *k) weights."""
    d = X.ndim - 2
    k = w.shape[2:]
    o = tuple((X.shape[2 + i] - dil[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(d))
    N, C = X.shape[:2]
    O = w.shape[0]
    Xg = X.reshape(N, groups, C // groups, *X.shape[2:])
    wg = w.reshape(groups, O // groups, C // groups, *k)
    out = np.zeros((N, groups, O // groups) + o)
    for kap in itertools.product(*(range(n) for n in k)):
        sl = tuple(slice(kap[i] * dil[i], kap[i] * dil[i] + s[i] * (o[i] - 1) + 1, s[i]) for i in range(d))
        out += np.einsum("ngc...,goc->ngo...", Xg[(slice(None),) * 3 + sl], wg[(slice(None),) * 3 + kap])
    return out.reshape(N, O, *o)


def _conv_checks(x, w, b, d, stride, dilation, groups):
    dt = _floating(x, w, b)
    if x.ndim not in (d + 1, d + 2) or w.ndim != d + 2:
        raise Invalid("an input or weight of the wrong rank")
    s, dil = _tup(stride, d), _tup(dilation, d)
    if len(s) != d or len(dil) != d:
        raise Invalid("a parameter of the wrong length")
    if any(v <= 0 for v in s):
        raise Invalid("a non-positive stride")
    if any(v <= 0 for v in dil):
        raise Invalid("a non-positive dilation")
    if groups <= 0:
        raise Invalid("non-positive groups")
    return dt, s, dil


def _conv_ref(d):
    def ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
        dt, s, dil = _conv_checks(x, w, b, d, stride, dilation, groups)
        k = w.shape[2:]
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise Invalid("an unknown padding string")
            if padding == "same" and any(v != 1 for v in s):
                raise Invalid("padding='same' with a stride")
            tot = [dil[i] * (k[i] - 1) if padding == "same" else 0 for i in range(d)]
            pads = [(t // 2, t - t // 2) for t in tot]
        else:
            p = _tup(padding, d)
            if len(p) != d:
                raise Invalid("a padding of the wrong length")
            if any(v < 0 for v in p):
                raise Invalid("a negative padding")
            pads = [(v, v) for v in p]
        X = x[None] if x.ndim == d + 1 else x
        if w.shape[0] % groups or w.shape[0] == 0:
            raise Invalid("out channels not divisible by groups")
        if X.shape[1] != w.shape[1] * groups:
            raise Invalid("input channels that do not match the weight")
        if b is not None and b.shape != (w.shape[0],):
            raise Invalid("a bias of the wrong size")
        if any(X.shape[2 + i] + sum(pads[i]) < dil[i] * (k[i] - 1) + 1 for i in range(d)):
            raise Invalid("a kernel larger than the padded input")
        Xp = np.pad(X, [(0, 0), (0, 0)] + pads)
        out = _conv_core(Xp, w, s, dil, groups)
        scale = _conv_core(np.abs(Xp), np.abs(w), s, dil, groups)
        if b is not None:
            out = out + b.reshape((1, -1) + (1,) * d)
            scale = scale + np.abs(b).reshape((1, -1) + (1,) * d)
        if x.ndim == d + 1:
            out, scale = out[0], scale[0]
        return Expect(out, dt, scale)
    return ref


def _conv_t_ref(d):
    def ref(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        dt, s, dil = _conv_checks(x, w, b, d, stride, dilation, groups)
        p, op = _tup(padding, d), _tup(output_padding, d)
        if len(p) != d or len(op) != d:
            raise Invalid("a padding of the wrong length")
        if any(v < 0 for v in p) or any(v < 0 for v in op):
            raise Invalid("a negative padding")
        if any(op[i] >= s[i] and op[i] >= dil[i] for i in range(d)):
            raise Invalid("output padding not smaller than stride or dilation")
        X = x[None] if x.ndim == d + 1 else x
        if w.shape[0] % groups:
            raise Invalid("weight rows not divisible by groups")
        if X.shape[1] != w.shape[0]:
            raise Invalid("input channels that do not match the weight")
        k = w.shape[2:]
        O = w.shape[1] * groups
        if b is not None and b.shape != (O,):
            raise Invalid("a bias of the wrong size")
        L = X.shape[2:]
        size = tuple((L[i] - 1) * s[i] - 2 * p[i] + dil[i] * (k[i] - 1) + op[i] + 1 for i in range(d))
        if any(v < 0 for v in size):
            raise Invalid("an output of negative size")
        N, C = X.shape[:2]
        full = tuple((L[i] - 1) * s[i] + dil[i] * (k[i] - 1) + 1 + op[i] for i in range(d))
        Xg = X.reshape(N, groups, C // groups, *L)
        wg = w.reshape(groups, C // groups, w.shape[1], *k)
        out, scale = np.zeros((N, groups, w.shape[1]) + full), np.zeros((N, groups, w.shape[1]) + full)
        for kap in itertools.product(*(range(n) for n in k)):
            sl = (slice(None),) * 3 + tuple(slice(kap[i] * dil[i], kap[i] * dil[i] + s[i] * (L[i] - 1) + 1, s[i])
                                            for i in range(d))
            wk = wg[(slice(None),) * 3 + kap]
            out[sl] += np.einsum("ngc...,gco->ngo...", Xg, wk)
            scale[sl] += np.einsum("ngc...,gco->ngo...", np.abs(Xg), np.abs(wk))
        crop = (slice(None),) * 3 + tuple(slice(p[i], p[i] + size[i]) for i in range(d))
        out, scale = out[crop].reshape(N, O, *size), scale[crop].reshape(N, O, *size)
        if b is not None:
            out = out + b.reshape((1, -1) + (1,) * d)
            scale = scale + np.abs(b).reshape((1, -1) + (1,) * d)
        if x.ndim == d + 1:
            out, scale = out[0], scale[0]
        return Expect(out, dt, scale)
    return ref


def _d_conv(name, d, transposed):
    from ember.core.fuzz import Bad, Case

    def draw_fn(draw, T):
        st = _st()
        g = draw(st.sampled_from([1, 1, 1, 2, 3]))
        cin_pg, cout_pg = draw(st.sampled_from([1, 2])), draw(st.sampled_from([1, 2]))
        n = draw(st.sampled_from([0, 1, 2, 2]))
        sizes = tuple(draw(st.sampled_from([1, 2, 3, 5, 6])) for _ in range(d))
        k = tuple(draw(st.sampled_from([1, 2, 3])) for _ in range(d))
        dtype = draw(st.sampled_from(_CONV_DTYPES))
        cin = g * cin_pg + (1 if draw(st.integers(0, 19)) == 0 else 0)
        xshape = (() if draw(st.integers(0, 9)) == 0 else (n,)) + (cin,) + sizes
        wshape = ((g * cin_pg, cout_pg) if transposed else (g * cout_pg, cin_pg)) + k
        if draw(st.integers(0, 24)) == 0:
            wshape = wshape[:-1]
        x = _t(draw, T, dtype, xshape, channels_last=True)
        if draw(st.integers(0, 39)) == 0:
            x = Bad(draw(st.sampled_from(["a", None, [1.0]])))
        wdt = dtype if draw(st.integers(0, 19)) else draw(st.sampled_from(["float32", "float64"]))
        w = _t(draw, T, wdt, wshape, channels_last=True)
        b = None
        if draw(st.booleans()):
            b = _t(draw, T, wdt, (g * cout_pg + (1 if draw(st.integers(0, 19)) == 0 else 0),))
        kw = [("stride", _param(draw, d, [1, 1, 2, 3], [0, -1])),
              ("padding", _param(draw, d, [0, 0, 1, 2], [-1])),
              ("dilation", _param(draw, d, [1, 1, 2], [0])),
              ("groups", g if draw(st.integers(0, 29)) else draw(st.sampled_from([0, -1])))]
        if transposed:
            kw.append(("output_padding", _param(draw, d, [0, 0, 1], [3])))
        elif draw(st.integers(0, 7)) == 0:
            kw[1] = ("padding", draw(st.sampled_from(["same", "valid", "same", "foo"])))
        return Case(name, (x, w, b), tuple(kw))
    return draw_fn


def _call_conv(fname):
    def call(M, x, w, b=None, **kw):
        return getattr(_F(M), fname)(x, w, b, **kw)
    call.__name__ = f"_call_{fname}"
    return call


# --- pooling -----------------------------------------------------------------------------------
def _pool_size(L, k, s, p, dil, ceil_mode):
    eff = dil * (k - 1) + 1
    num = L + 2 * p - eff
    o = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (o - 1) * s >= L + p:
        o -= 1
    return o


def _pool_dtype(dt: str, integers: str | None) -> None:
    """PyTorch's CPU dtype dispatch of a pooling kernel, after its shape checks: floats compute; `integers`
    "all" (but bool) or "long" (int64 only) compute too; anything else is its NotImplementedError."""
    if dt in _FLOATS or (integers == "all" and dt in _INTS) or (integers == "long" and dt == "int64"):
        return
    raise Invalid(f"{dt} input (no CPU kernel)", NotImplementedError)


def _trunc_div(total: int, q: int) -> int:
    """C's integer division: toward zero."""
    r = abs(total) // abs(q)
    return r if (total < 0) == (q < 0) else -r


def _pool_common(x, d, kernel_size, stride, padding, dilation=1, ceil_mode=False):
    dt = _dt(x)
    if x.ndim not in (d + 1, d + 2):
        raise Invalid("an input of the wrong rank")
    k = _tup(kernel_size, d)
    s = k if stride is None or stride == () or stride == [] else _tup(stride, d)
    p, dil = _tup(padding, d), _tup(dilation, d)
    if any(len(v) != d for v in (k, s, p, dil)):
        raise Invalid("a parameter of the wrong length")
    if any(v <= 0 for v in k):
        raise Invalid("a non-positive kernel size")
    if any(v <= 0 for v in s):
        raise Invalid("a non-positive stride")
    if any(v <= 0 for v in dil):
        raise Invalid("a non-positive dilation")
    if any(v < 0 for v in p) or any(2 * p[i] > k[i] for i in range(d)):
        raise Invalid("a padding larger than half the kernel")
    X = x[None] if x.ndim == d + 1 else x
    if any(n == 0 for n in X.shape[1:]):
        raise Invalid("an empty plane")
    L = X.shape[2:]
    o = tuple(_pool_size(L[i], k[i], s[i], p[i], dil[i], ceil_mode) for i in range(d))
    if any(v < 1 for v in o):
        raise Invalid("an output of size 0")
    return dt, X, k, s, p, dil, o


def _windows(L, k, s, p, dil, o):
    """Per output position: the input positions of its window (in bounds) per dim, and the padded count."""
    per_dim = []
    for i in range(len(L)):
        rows = []
        for j in range(o[i]):
            start = j * s[i] - p[i]
            taps = [start + t * dil[i] for t in range(k[i])]
            end = min(start + (k[i] - 1) * dil[i] + 1, L[i] + p[i])
            rows.append(([v for v in taps if 0 <= v < L[i]], end - start))
        per_dim.append(rows)
    return per_dim


def _max_pool_ref(d):
    def ref(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        dt, X, k, s, p, dil, o = _pool_common(x, d, kernel_size, stride, padding, dilation, ceil_mode)
        _pool_dtype(dt, None if d == 1 and not return_indices else "all")  # max_pool1d_impl: floats only
        L = X.shape[2:]
        win = _windows(L, k, s, p, dil, o)
        out = np.zeros(X.shape[:2] + o, dtype=X.dtype if dt in _INTS else np.float64)  # (integers exact)
        idx = np.zeros(X.shape[:2] + o, dtype=np.int64)
        for pos in itertools.product(*(range(v) for v in o)):
            taps = list(itertools.product(*(win[i][pos[i]][0] for i in range(d))))
            flat = [int(np.ravel_multi_index(t, L)) for t in taps]
            vals = X.reshape(X.shape[:2] + (int(np.prod(L)),))[..., flat]
            best = np.argmax(vals, axis=-1)
            nan = np.isnan(vals)
            last_nan = vals.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
            pick = np.where(nan.any(-1), last_nan, best)
            out[(...,) + pos] = np.take_along_axis(vals, pick[..., None], -1)[..., 0]
            idx[(...,) + pos] = np.asarray(flat)[pick]
        if x.ndim == d + 1:
            out, idx = out[0], idx[0]
        if return_indices:
            return Expect([out, idx], (dt, "int64"))
        return Expect(out, dt)
    return ref


def _avg_pool_ref(d):
    def ref(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
        dt, X, k, s, p, dil, o = _pool_common(x, d, kernel_size, stride, padding, 1, ceil_mode)
        if d == 3 and any(X.shape[2 + i] < k[i] for i in range(d)):
            raise Invalid("an input smaller than the kernel (padding aside: PyTorch's avg_pool3d check)")
        if divisor_override == 0:
            raise Invalid("a zero divisor")
        _pool_dtype(dt, "long")
        if d == 3 and dt in ("float16", "bfloat16"):
            raise Invalid("a half-precision avg_pool3d (no CPU kernel)", NotImplementedError)
        L = X.shape[2:]
        win = _windows(L, k, s, p, dil, o)
        integer = dt == "int64"  # an int64 sum (wrapping as C's) divided toward zero, as PyTorch's
        out = np.zeros(X.shape[:2] + o, dtype=np.int64 if integer else np.float64)
        scale = np.zeros(X.shape[:2] + o)
        for pos in itertools.product(*(range(v) for v in o)):
            taps = list(itertools.product(*(win[i][pos[i]][0] for i in range(d))))
            flat = [int(np.ravel_multi_index(t, L)) for t in taps]
            vals = X.reshape(X.shape[:2] + (int(np.prod(L)),))[..., flat]
            if divisor_override is not None:
                div = divisor_override
            elif count_include_pad:
                div = int(np.prod([win[i][pos[i]][1] for i in range(d)]))
            else:
                div = len(taps)
            if integer:
                with np.errstate(over="ignore"):
                    sums = vals.astype(np.int64).sum(-1)
                out[(...,) + pos] = np.vectorize(lambda t, q=div: _trunc_div(int(t), q), otypes=[np.int64])(sums)
            else:
                out[(...,) + pos] = vals.sum(-1) / div
                scale[(...,) + pos] = np.abs(vals).sum(-1) / abs(div)
        if x.ndim == d + 1:
            out, scale = out[0], scale[0]
        return Expect(out, dt, None if integer else scale)
    return ref


def _lp_pool_ref(d):
    def ref(x, norm_type, kernel_size, stride=None, ceil_mode=False):
        _floating(x)  # (integer lp_pool: PyTorch's int64 truncations through pow are not modelled)
        dt, X, k, s, p, dil, o = _pool_common(x, d, kernel_size, stride, 0, 1, ceil_mode)
        _overflows(np.abs(x) ** norm_type * int(np.prod(_tup(kernel_size, d))), dt)
        avg = _avg_pool_ref(d)(x ** norm_type, kernel_size, stride, 0, ceil_mode)
        K = int(np.prod(k))
        out = (np.sign(avg.value) * np.maximum(np.abs(avg.value), 0) * K) ** (1.0 / norm_type)
        mag = (_avg_pool_ref(d)(np.abs(x) ** norm_type, kernel_size, stride, 0, ceil_mode).value * K) ** (1 / norm_type)
        return Expect(out, dt, np.maximum(np.abs(out), mag) * 4)  # (the sum of powers cancels)
    return ref


def _adaptive_ref(d, mode):
    def ref(x, output_size, return_indices=False):
        dt = _dt(x)
        o = _tup(output_size, d)
        if mode == "avg" and len(o) == d and all(v == 1 for v in o) and x.ndim >= d:
            # PyTorch's shortcut: the mean over the last d dims (no shape checks; NaN for an empty dim)
            if dt not in _FLOATS:
                raise Invalid("an integer mean")
            with np.errstate(invalid="ignore", divide="ignore"):
                m = x.astype(np.float64).mean(tuple(range(x.ndim - d, x.ndim)), keepdims=True)
            return Expect(m, dt, np.abs(x.astype(np.float64)).mean(tuple(range(x.ndim - d, x.ndim)), keepdims=True)
                          if x.size else None)
        if x.ndim not in (d + 1, d + 2):
            raise Invalid("an input of the wrong rank")
        if len(o) != d:
            raise Invalid("an output size of the wrong length")
        if any(v is None or v < 0 for v in o):
            raise Unchecked("None or a negative output size")
        X = x[None] if x.ndim == d + 1 else x
        if any(n == 0 for n in (X.shape[2:] if mode == "avg" else x.shape[1:])):
            raise Invalid("an empty non-batch dim")
        if not (mode == "avg" and d < 3 and x.size == 0):  # PyTorch's 1-D/2-D average returns before its dispatch
            _pool_dtype(dt, None)
        L = X.shape[2:]
        out = np.zeros(X.shape[:2] + o)
        scale = np.zeros(X.shape[:2] + o)
        idx = np.zeros(X.shape[:2] + o, dtype=np.int64)
        for pos in itertools.product(*(range(v) for v in o)):
            ranges = [range(pos[i] * L[i] // o[i], -(-(pos[i] + 1) * L[i] // o[i])) for i in range(d)]
            flat = [int(np.ravel_multi_index(t, L)) for t in itertools.product(*ranges)]
            vals = X.reshape(X.shape[:2] + (int(np.prod(L)),))[..., flat]
            if mode == "avg":
                out[(...,) + pos] = vals.mean(-1)
                scale[(...,) + pos] = np.abs(vals).mean(-1)
            else:
                nan = np.isnan(vals)
                pick = np.where(nan.any(-1), vals.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1),
                                np.argmax(vals, axis=-1))
                out[(...,) + pos] = np.take_along_axis(vals, pick[..., None], -1)[..., 0]
                idx[(...,) + pos] = np.asarray(flat)[pick]
        if x.ndim == d + 1:
            out, idx = out[0], idx[0]
        if return_indices:
            return Expect([out, idx], (dt, "int64"))
        if x.ndim == d + 1:
            scale = scale[0]
        return Expect(out, dt, scale if mode == "avg" else None)
    return ref


def _unpool_ref(d):
    def ref(x, indices, kernel_size, stride=None, padding=0, output_size=None):
        k = _tup(kernel_size, d)
        s = k if stride is None else _tup(stride, d)
        p = _tup(padding, d)
        size = tuple((x.shape[-d + i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(d))
        if output_size is not None:  # (checked first, in Python)
            given = tuple(output_size[-d:])
            if any(not size[i] - s[i] < given[i] < size[i] + s[i] for i in range(d)):
                raise Invalid("an output_size more than a stride from the default", ValueError)
            size = given
        dt = _floating(x)
        if _dt(indices) != "int64":
            raise Invalid("indices not int64")
        if x.ndim not in (d + 1, d + 2) or indices.shape != x.shape:
            raise Invalid("indices of another shape, or an input of the wrong rank")
        if any(v <= 0 for v in size):
            raise Unchecked("an output of non-positive size")
        plane = int(np.prod(size))
        X = x.reshape(-1, int(np.prod(x.shape[-d:])))
        Ii = indices.reshape(X.shape).astype(np.int64)
        out = np.zeros((X.shape[0], plane))
        if Ii.size and (Ii.min() < 0 or Ii.max() >= plane):
            raise Invalid("an index outside the output plane")
        for r in range(X.shape[0]):
            if len(set(Ii[r].tolist())) != Ii.shape[1]:
                raise Unchecked("repeated indices (which write wins is undefined)")
            out[r, Ii[r]] = X[r]
        return Expect(out.reshape(x.shape[:-d] + size), dt)
    return ref


def _pool_draw_x(draw, T, d, min_size=1):
    st = _st()
    n = draw(st.sampled_from([0, 1, 2]))
    c = draw(st.sampled_from([1, 2, 3]))
    sizes = tuple(draw(st.sampled_from([1, 2, 3, 4, 5, 7])) for _ in range(d))
    if draw(st.integers(0, 29)) == 0:
        sizes = sizes[:-1] + (0,)
    shape = (() if draw(st.integers(0, 7)) == 0 else (n,)) + (c,) + sizes
    dtype = draw(st.sampled_from(_CONV_DTYPES))
    return _t(draw, T, dtype, shape, channels_last=True)


def _d_max_pool(name, d):
    from ember.core.fuzz import Case

    def draw_fn(draw, T):
        st = _st()
        x = _pool_draw_x(draw, T, d)
        k = _param(draw, d, [1, 2, 2, 3], [0])
        kk = _tup(k, d)
        stride = None if draw(st.integers(0, 3)) == 0 else _param(draw, d, [1, 2, 3], [0])
        pad = _param(draw, d, [0, 0, 1], [2]) if min(kk) >= 2 else 0
        kw = (("stride", stride), ("padding", pad), ("dilation", _param(draw, d, [1, 1, 2], [0])),
              ("ceil_mode", draw(st.booleans())), ("return_indices", draw(st.booleans())))
        return Case(name, (x, k), kw)
    return draw_fn


def _d_avg_pool(name, d):
    from ember.core.fuzz import Case

    def draw_fn(draw, T):
        st = _st()
        x = _pool_draw_x(draw, T, d)
        k = _param(draw, d, [1, 2, 2, 3], [0])
        kk = _tup(k, d)
        stride = None if draw(st.integers(0, 3)) == 0 else _param(draw, d, [1, 2, 3], [0])
        pad = _param(draw, d, [0, 0, 1], [2]) if min(kk) >= 2 else 0
        kw = (("stride", stride), ("padding", pad), ("ceil_mode", draw(st.booleans())),
              ("count_include_pad", draw(st.booleans())))
        if d > 1:  # (avg_pool1d has none)
            kw += (("divisor_override", draw(st.sampled_from([None, None, None, 1, 3, -2, 0]))),)
        return Case(name, (x, k), kw)
    return draw_fn


def _d_lp_pool(name, d):
    from ember.core.fuzz import Case

    def draw_fn(draw, T):
        st = _st()
        x = _pool_draw_x(draw, T, d)
        k = _param(draw, d, [1, 2, 3], []) if d > 1 else draw(st.sampled_from([1, 2, 3]))
        stride = None if draw(st.integers(0, 3)) == 0 else _param(draw, d, [1, 2], []) if d > 1 else \
            draw(st.sampled_from([1, 2]))
        return Case(name, (x, draw(st.sampled_from([1.0, 2.0, 2.0, 3.0])), k),
                    (("stride", stride), ("ceil_mode", draw(st.booleans()))))
    return draw_fn


def _d_adaptive(name, d, mode):
    from ember.core.fuzz import Case

    def draw_fn(draw, T):
        st = _st()
        x = _pool_draw_x(draw, T, d)
        o = _param(draw, d, [1, 2, 3, 4], [0])
        kw = (("return_indices", draw(st.booleans())),) if mode == "max" else ()
        return Case(name, (x, o), kw)
    return draw_fn


def _d_unpool(name, d):
    from ember.core.fuzz import Case
    from ember.core.opinfo_indexing import _index

    def draw_fn(draw, T):
        st = _st()
        n, c = draw(st.sampled_from([0, 1, 2])), draw(st.sampled_from([1, 2]))
        k = draw(st.sampled_from([1, 2, 3]))
        s = draw(st.sampled_from([None, 1, 2]))
        sizes = tuple(draw(st.sampled_from([1, 2, 3])) for _ in range(d))
        plane = int(np.prod([(v - 1) * (s or k) + k for v in sizes]))
        shape = (n, c) + sizes
        dtype = draw(st.sampled_from(["float32", "float32", "float64", "float16"]))
        idx = _index(draw, shape, plane, dtype="int64" if draw(st.integers(0, 11)) else "int32")
        kw = (("stride", s),)
        if draw(st.integers(0, 4)) == 0:
            kw += (("output_size", tuple((v - 1) * (s or k) + k + draw(st.sampled_from([0, 1, -1, s or k]))
                                         for v in sizes)),)
        return Case(name, (_t(draw, T, dtype, shape), idx, k), kw)
    return draw_fn


def _call_F(fname):
    def call(M, *args, **kw):
        return getattr(_F(M), fname)(*args, **kw)
    call.__name__ = f"_call_{fname}"
    return call


# --- losses ------------------------------------------------------------------------------------
_REDUCTIONS = ["mean", "mean", "sum", "none"]


def _reduce(v, reduction, scale=None):
    scale = np.abs(v) if scale is None else scale
    if reduction == "none":
        return v, scale
    if reduction == "sum":
        return np.float64(v.sum()), np.float64(scale.sum())
    if reduction == "mean":
        n = max(v.size, 1)
        return (np.float64(v.sum() / v.size) if v.size else np.float64(np.nan)), np.float64(scale.sum() / n)
    raise Invalid(f"{reduction} is not a valid value for reduction", ValueError)


def _loss_dtype(*arrays):
    dt = _dt(arrays[0])
    if dt not in ("float32", "float64"):
        raise Unchecked(f"{dt} input")
    for a in arrays[1:]:
        if isinstance(a, np.ndarray) and _dt(a) != dt:
            raise Unchecked("operands of two dtypes (PyTorch promotes)")
    return dt


def _same(a, b):
    if a.shape != b.shape:
        raise Unchecked("operands of two shapes (PyTorch broadcasts with a warning)")


def _pointwise(fn):
    def ref(input, target, reduction="mean", **kw):
        dt = _loss_dtype(input, target)
        _same(input, target)
        v, sc = fn(input, target, **kw)
        v, sc = _reduce(v, reduction, sc)
        return Expect(v, dt, sc)
    return ref


def _mse(x, t):
    v = (x - t) ** 2
    return v, v + 1e-30


def _l1(x, t):
    return np.abs(x - t), np.abs(x) + np.abs(t)


def _smooth_l1(x, t, beta=1.0):
    if beta < 0:
        raise Invalid("a negative beta")
    z = np.abs(x - t)
    if beta == 0:
        return z, np.abs(x) + np.abs(t)
    return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), np.abs(x) + np.abs(t) + z * z / beta


def _huber(x, t, delta=1.0):
    if delta <= 0:
        raise Invalid("a non-positive delta")
    z = np.abs(x - t)
    return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), np.abs(x) * 4 + np.abs(t) * 4 + z * z


def _bce_ref(input, target, weight=None, reduction="mean"):
    dt = _loss_dtype(input, target, weight)
    _same(input, target)
    if np.any(~((input >= 0) & (input <= 1))):
        raise Invalid("input outside [0, 1]")
    if np.any(~((target >= 0) & (target <= 1))):
        raise Invalid("target outside [0, 1]")
    v = -(target * np.maximum(np.log(input), -100) + (1 - target) * np.maximum(np.log1p(-input), -100))
    if weight is not None:
        v = v * np.broadcast_to(weight, v.shape)
    r, sc = _reduce(v, reduction, np.abs(v) + 1e-6)
    return Expect(r, dt, sc)


def _bce_logits_ref(input, target, weight=None, reduction="mean", pos_weight=None):
    dt = _loss_dtype(input, target, weight, pos_weight)
    _same(input, target)
    logsig = -np.logaddexp(0, -input)
    coef = 1.0 if pos_weight is None else 1 + (pos_weight - 1) * target
    v = (1 - target) * input - coef * logsig
    if weight is not None:
        v = v * weight
    r, sc = _reduce(v, reduction, np.abs(v) + np.abs(input) * 1e-3)
    return Expect(r, dt, sc)


def _log_softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def _ce_ref(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    dt = _loss_dtype(input, weight)
    if label_smoothing < 0:
        raise Unchecked("a negative label_smoothing (PyTorch computes it, ember refuses)")
    if label_smoothing > 1:
        raise Invalid("label_smoothing above 1")
    if input.ndim < 1 or input.ndim == 0:
        raise Unchecked("0-dim input")
    unbatched = input.ndim == 1
    X = input[None] if unbatched else input
    C = X.shape[1]
    if weight is not None and weight.shape != (C,):
        raise Invalid("a weight of the wrong size")
    w = np.ones(C) if weight is None else weight
    lp = _log_softmax(X, 1)
    wshape = (1, C) + (1,) * (X.ndim - 2)
    if _dt(target) in _FLOATS:  # class probabilities
        if _dt(target) != dt:
            raise Unchecked("targets of another dtype")
        T = target[None] if unbatched else target
        if T.shape != X.shape:
            raise Invalid("probabilities of another shape")
        T = T * (1 - label_smoothing) + label_smoothing / C
        v = -(lp * T * w.reshape(wshape)).sum(1)
        if unbatched:
            v = v[0]
        if reduction == "mean":
            r = np.float64(v.sum() / (X.shape[0] * int(np.prod(X.shape[2:])))) if v.size else np.float64(np.nan)
            return Expect(r, dt, np.float64(np.abs(v).sum() / max(v.size, 1)))
        r, sc = _reduce(v, reduction)
        return Expect(r, dt, sc)
    if _dt(target) != "int64":
        raise Invalid("a target not int64")
    T = target[None] if unbatched else target
    if T.shape != (X.shape[0],) + X.shape[2:]:
        raise Unchecked("a target of another shape")
    valid = T != ignore_index
    if np.any(valid & ((T < 0) | (T >= C))):
        raise Invalid("a target out of range", IndexError)
    Tc = np.where(valid, T, 0)
    picked = np.take_along_axis(lp, Tc[:, None], 1)[:, 0]
    wt = np.where(valid, w[Tc], 0.0)
    nll = -picked * wt
    smooth = -(lp * w.reshape(wshape)).sum(1) * valid if weight is not None else -lp.sum(1) * valid
    if reduction == "mean":
        den = wt.sum()
        with np.errstate(all="ignore"):
            nll_r = nll.sum() / den
            sm_r = smooth.sum() / den if weight is not None else smooth.sum() / valid.sum()
        v = nll_r if label_smoothing == 0 else (1 - label_smoothing) * nll_r + label_smoothing / C * sm_r
        sc = np.abs(nll).sum() / max(abs(den), 1e-30) + np.abs(smooth).sum() / max(valid.sum(), 1)
        return Expect(np.float64(v), dt, np.float64(sc))
    v = nll if label_smoothing == 0 else (1 - label_smoothing) * nll + label_smoothing / C * smooth
    v = np.where(valid, v, 0.0)
    if unbatched:
        v = v[0]
    r, sc = _reduce(v, reduction, np.abs(nll) + np.abs(smooth))
    return Expect(r, dt, sc)


def _nll_ref(input, target, weight=None, ignore_index=-100, reduction="mean"):
    dt = _loss_dtype(input, weight)
    if input.ndim < 2:
        raise Unchecked("unbatched input")
    C = input.shape[1]
    if weight is not None and weight.shape != (C,):
        raise Invalid("a weight of the wrong size")
    w = np.ones(C) if weight is None else weight
    if _dt(target) != "int64":
        raise Invalid("a target not int64")
    if target.shape != (input.shape[0],) + input.shape[2:]:
        raise Unchecked("a target of another shape")
    valid = target != ignore_index
    if np.any(valid & ((target < 0) | (target >= C))):
        raise Invalid("a target out of range", IndexError)
    Tc = np.where(valid, target, 0)
    wt = np.where(valid, w[Tc], 0.0)
    with np.errstate(all="ignore"):
        v = np.where(valid, -np.take_along_axis(input, Tc[:, None], 1)[:, 0] * wt, 0.0)
    if reduction == "mean":
        with np.errstate(all="ignore"):
            return Expect(np.float64(v.sum() / wt.sum()), dt, np.float64(np.abs(v).sum() / max(abs(wt.sum()), 1e-30)))
    r, sc = _reduce(v, reduction)
    return Expect(r, dt, sc)


def _kl_ref(input, target, reduction="mean", log_target=False):
    dt = _loss_dtype(input, target)
    _same(input, target)
    with np.errstate(all="ignore"):
        if log_target:
            v = np.exp(target) * (target - input)
        else:  # PyTorch's xlogy(t, t) - t * input: NaN for a negative target
            v = np.where(target == 0, 0.0, target * np.log(target)) - target * input
    if reduction == "batchmean":
        n = input.shape[0] if input.ndim else 1
        with np.errstate(all="ignore"):
            return Expect(np.float64(v.sum() / n), dt, np.float64(np.abs(v).sum() / max(n, 1)))
    r, sc = _reduce(v, reduction)
    return Expect(r, dt, sc)


def _sign_target(t):
    return np.where(t >= 0, 1.0, -1.0)


def _margin_ranking_ref(input1, input2, target, margin=0.0, reduction="mean"):
    dt = _loss_dtype(input1, input2, target)
    if not (input1.shape == input2.shape == target.shape):
        raise Unchecked("operands of two shapes")
    v = np.maximum(0, -target * (input1 - input2) + margin)
    r, sc = _reduce(v, reduction, np.abs(input1) + np.abs(input2) + abs(margin))
    return Expect(r, dt, sc)


def _hinge_ref(input, target, margin=1.0, reduction="mean"):
    dt = _loss_dtype(input, target)
    _same(input, target)
    v = np.where(target == 1, input, 0.0) + np.where(target == -1, np.maximum(0, margin - input), 0.0)
    r, sc = _reduce(v, reduction, np.abs(input) + abs(margin))
    return Expect(r, dt, sc)


def _cosine_embedding_ref(input1, input2, target, margin=0.0, reduction="mean"):
    dt = _loss_dtype(input1, input2, target)
    if input1.shape != input2.shape or input1.ndim not in (1, 2):
        raise Invalid("inputs of two shapes or ranks")
    if input1.ndim == 2 and target.shape != (input1.shape[0],) or input1.ndim == 1 and target.ndim != 0:
        raise Invalid("a target of the wrong shape")
    eps = 1e-12
    dot = (input1 * input2).sum(-1)
    n1, n2 = (input1 * input1).sum(-1) + eps, (input2 * input2).sum(-1) + eps
    cos = dot / np.sqrt(n1 * n2)
    v = np.where(target == 1, 1 - cos, 0.0) + np.where(target == -1, np.maximum(0, cos - margin), 0.0)
    r, sc = _reduce(v, reduction, np.ones_like(v) * 2)
    return Expect(r, dt, sc)


def _triplet_ref(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction="mean"):
    dt = _loss_dtype(anchor, positive, negative)
    if not (anchor.shape == positive.shape == negative.shape) or anchor.ndim not in (1, 2):
        raise Unchecked("operands of two shapes or ranks")
    if margin <= 0:
        raise Invalid("a non-positive margin", ValueError)

    def dist(a, b):
        _overflows(np.abs(a - b + eps) ** p * a.shape[-1], dt)
        return (np.abs(a - b + eps) ** p).sum(-1) ** (1 / p)
    dp, dn = dist(anchor, positive), dist(anchor, negative)
    if swap:
        dn = np.minimum(dn, dist(positive, negative))
    v = np.maximum(dp - dn + margin, 0)
    r, sc = _reduce(v, reduction, dp + dn + margin)
    return Expect(r, dt, sc)


def _poisson_ref(input, target, log_input=True, full=False, eps=1e-8, reduction="mean"):
    dt = _loss_dtype(input, target)
    _same(input, target)
    _overflows(np.abs(target * input), dt)
    v = np.exp(input) - target * input if log_input else input - target * np.log(input + eps)
    sc = np.abs(np.exp(input)) + np.abs(target * input) if log_input else np.abs(input) + np.abs(target * np.log(
        input + eps))
    if full:
        with np.errstate(all="ignore"):
            st = np.where(target > 1, target * np.log(np.where(target > 1, target, 1)) - target
                          + 0.5 * np.log(2 * np.pi * np.where(target > 1, target, 1)), 0.0)
        v, sc = v + st, sc + np.abs(st)
    r, s2 = _reduce(v, reduction, sc)
    return Expect(r, dt, s2)


def _gaussian_ref(input, target, var, full=False, eps=1e-6, reduction="mean"):
    dt = _loss_dtype(input, target, var)
    _same(input, target)
    if var.shape != input.shape:
        raise Unchecked("a var of another shape")
    if np.any(var < 0):
        raise Invalid("a negative var", ValueError)
    _overflows((input - target) ** 2, dt)
    v2 = np.maximum(var, eps)
    v = 0.5 * (np.log(v2) + (input - target) ** 2 / v2)
    if full:
        v = v + 0.5 * np.log(2 * np.pi)
    r, sc = _reduce(v, reduction, np.abs(v) + np.abs(np.log(v2)) + 1)
    return Expect(r, dt, sc)


def _ctc_ref(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    dt = _loss_dtype(log_probs)
    Tn, N, C = log_probs.shape
    losses = []
    for b in range(N):
        tl = int(target_lengths[b])
        lab = [int(v) for v in targets[b, :tl]]
        ext = [blank]
        for c in lab:
            ext += [c, blank]
        S = len(ext)
        alpha = np.full(S, -np.inf)
        lp = log_probs[:, b]
        alpha[0] = lp[0, ext[0]]
        if S > 1:
            alpha[1] = lp[0, ext[1]]
        for t in range(1, int(input_lengths[b])):
            new = np.full(S, -np.inf)
            for s in range(S):
                cand = [alpha[s]] + ([alpha[s - 1]] if s >= 1 else [])
                if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                    cand.append(alpha[s - 2])
                new[s] = np.logaddexp.reduce(cand) + lp[t, ext[s]]
            alpha = new
        ll = np.logaddexp(alpha[-1], alpha[-2]) if S > 1 else alpha[-1]
        loss = -ll
        if zero_infinity and np.isinf(loss):
            loss = 0.0
        losses.append(loss)
    v = np.array(losses, dtype=np.float64)
    if reduction == "mean":
        with np.errstate(all="ignore"):
            v = v / np.maximum(np.asarray(target_lengths, dtype=np.float64), 1)
    r, sc = _reduce(v, reduction)
    return Expect(r, dt, sc + 1e-6)


def _d_pointwise(name, extra=()):
    from ember.core.fuzz import Case

    def draw_fn(draw, T):
        st = _st()
        shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 5]), min_size=0, max_size=3)))
        dtype = draw(st.sampled_from(["float32", "float32", "float64"]))
        lo, hi = (0.0, 1.0) if name == "F.binary_cross_entropy" else (-4.0, 4.0)
        x = _t(draw, T, dtype, shape, lo, hi)
        tlo, thi = (0.0, 1.0) if "binary" in name or name == "F.kl_div" else (0.0, 4.0) \
            if name == "F.poisson_nll_loss" else (-4.0, 4.0)
        t = _t(draw, T, dtype, shape, tlo, thi)
        kw = (("reduction", draw(st.sampled_from(_REDUCTIONS + (["batchmean"] if name == "F.kl_div" else [])))),)
        for key, values in extra:
            if draw(st.booleans()):
                v = draw(st.sampled_from(values))
                kw += ((key, _t(draw, T, dtype, shape, 0.0, 3.0) if v == "tensor" else v),)
        return Case(name, (x, t), kw)
    return draw_fn


def _d_sign_target(name, n_inputs):
    from ember.core.fuzz import Case

    def draw_fn(draw, T):
        st = _st()
        dtype = draw(st.sampled_from(["float32", "float32", "float64"]))
        n = draw(st.sampled_from([0, 1, 3, 4]))
        if name == "F.cosine_embedding_loss":
            shape = (n, draw(st.sampled_from([1, 3]))) if draw(st.integers(0, 5)) else (3,)
            tshape = shape[:1] if len(shape) == 2 else ()
        else:
            shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=0, max_size=2)))
            tshape = shape
        xs = tuple(_t(draw, T, dtype, shape) for _ in range(n_inputs))
        tgt = _t(draw, T, dtype, tshape, -1.0, 1.0)
        tgt = dataclasses.replace(tgt, low=-1.0, high=1.0, specials=(), seed=tgt.seed)
        kw = (("reduction", draw(st.sampled_from(_REDUCTIONS))),)
        if draw(st.booleans()):
            kw += (("margin", draw(st.sampled_from([0.0, 0.5, 1.0, -0.5]))),)
        return Case(name, xs + (tgt,), kw)
    return draw_fn


def _sign_call(fname):
    def call(M, *args, **kw):
        *xs, t = args
        t = M.where(t >= 0, M.ones_like(t), -M.ones_like(t)) if t is not None and t.dtype.is_floating_point else t
        return getattr(_F(M), fname)(*xs, t, **kw)
    call.__name__ = f"_call_{fname}"
    return call


def _sign_ref(fn):
    def ref(*args, **kw):
        *xs, t = args
        if _dt(t) in _FLOATS:
            t = _sign_target(t)
        return fn(*xs, t, **kw)
    return ref


def _d_triplet(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    dtype = draw(st.sampled_from(["float32", "float64"]))
    shape = draw(st.sampled_from([(0, 3), (1, 3), (4, 2), (3,), (2, 1)]))
    xs = tuple(_t(draw, T, dtype, shape) for _ in range(3))
    kw = (("margin", draw(st.sampled_from([1.0, 0.5, 0.0]))), ("p", draw(st.sampled_from([2.0, 1.0, 3.0]))),
          ("swap", draw(st.booleans())), ("reduction", draw(st.sampled_from(_REDUCTIONS))))
    return Case("F.triplet_margin_loss", xs, kw)


def _d_class_loss(name):
    from ember.core.fuzz import Case
    from ember.core.opinfo_indexing import _index

    def draw_fn(draw, T):
        st = _st()
        dtype = draw(st.sampled_from(["float32", "float32", "float64"]))
        n, c = draw(st.sampled_from([0, 1, 3, 4])), draw(st.sampled_from([1, 2, 5]))
        extra = draw(st.sampled_from([(), (), (), (2,), (1, 2)]))
        x = _t(draw, T, dtype, (n, c) + extra)
        kw = (("reduction", draw(st.sampled_from(_REDUCTIONS))),)
        if draw(st.booleans()):
            kw += (("weight", _t(draw, T, dtype, (c,), 0.0, 2.0)),)
        probs = name == "F.cross_entropy" and draw(st.integers(0, 3)) == 0
        if probs:
            t = _t(draw, T, dtype, (n, c) + extra, 0.0, 1.0)
        else:
            t = _index(draw, (n,) + extra, c, dtype="int64" if draw(st.integers(0, 11)) else "int32")
            if draw(st.integers(0, 2)) == 0:
                kw += (("ignore_index", draw(st.sampled_from([0, 1, -1]))),)
        if name == "F.cross_entropy" and draw(st.booleans()):
            kw += (("label_smoothing", draw(st.sampled_from([0.1, 0.5, 1.0, -0.1]))),)
        if name == "F.nll_loss":
            x = dataclasses.replace(x, low=-6.0, high=0.0)
        return Case(name, (x, t), kw)
    return draw_fn


def _d_ctc(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    dtype = draw(st.sampled_from(["float32", "float64"]))
    Tn, N, C = draw(st.sampled_from([1, 3, 5])), draw(st.sampled_from([1, 2])), draw(st.sampled_from([2, 3, 4]))
    S = draw(st.sampled_from([0, 1, 2, 3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    targets = tuple(tuple(int(v) for v in rng.integers(1, C, S)) for _ in range(N))
    il = tuple(int(v) for v in rng.integers(max(Tn - 1, 1), Tn + 1, N))
    tl = tuple(int(v) for v in rng.integers(0, S + 1, N))
    kw = (("reduction", draw(st.sampled_from(_REDUCTIONS))), ("zero_infinity", draw(st.booleans())))
    return Case("F.ctc_loss", (_t(draw, T, dtype, (Tn, N, C)), targets, il, tl), kw)


def _call_ctc(M, x, targets, il, tl, **kw):
    lp = _F(M).log_softmax(x, 2)
    tg = M.tensor([v for row in targets for v in row], dtype=M.int64).reshape(len(targets), len(targets[0]))
    return _F(M).ctc_loss(lp, tg, M.tensor(il), M.tensor(tl), **kw)


def _ctc_row_ref(x, targets, il, tl, **kw):
    if _dt(x) not in ("float32", "float64"):
        raise Unchecked("low precision")
    if not np.all(np.isfinite(x)):
        raise Unchecked("a non-finite logit (NaN log-probabilities)")
    lp = _log_softmax(x, 2)
    tg = np.array(targets, dtype=np.int64).reshape(len(targets), len(targets[0]))
    e = _ctc_ref(lp, tg, il, tl, **kw)
    return Expect(e.value, _dt(x), e.scale)


# --- linear algebra ----------------------------------------------------------------------------
_LA_DTYPES = ["float32"] * 5 + ["float64"] * 4 + ["float16", "int64"]


def _la_dtype(a, name):
    dt = _dt(a)
    if dt in ("float16", "bfloat16"):
        raise Invalid("a low-precision dtype")
    if dt not in ("float32", "float64"):
        raise Invalid("an integer matrix")
    if not np.all(np.isfinite(a)):
        raise Unchecked("a non-finite entry")
    return dt


def _matrices(a, square=True):
    if a.ndim < 2:
        raise Invalid("fewer than 2 dims")
    if square and a.shape[-1] != a.shape[-2]:
        raise Invalid("non-square matrices")


def _cond(a) -> float:
    if a.size == 0 or a.shape[-1] == 0 or a.shape[-2] == 0:
        return 1.0
    s = np.linalg.svd(a, compute_uv=False)
    with np.errstate(all="ignore"):
        c = s[..., 0] / s[..., -1]
    return float(np.nan_to_num(np.max(c), nan=np.inf))


def _la_expect(value, dt, a, scale_of=None):
    c = _cond(a)
    if dt == "float32" and c > 1e3:
        raise Unchecked("ill-conditioned for float32")
    if dt == "float64" and c > 1e8:
        raise Unchecked("ill-conditioned")
    if isinstance(value, list):
        scales = [np.full(np.shape(v), max(np.max(np.abs(v), initial=0), 1) * c) for v in value]
        dts = tuple(dt for _ in value)
        return Expect(value, dts, scales)
    return Expect(value, dt, np.full(np.shape(value), max(np.max(np.abs(value), initial=0), 1) * c))


def _singular(a) -> bool:
    """Exactly singular: a row of zeros (how the draw makes them; a 1e30 entry is ill-conditioned instead)."""
    return bool(a.size and a.shape[-1] and np.any(np.all(a == 0, axis=-1)))


def _ref_inv(a):
    dt = _la_dtype(a, "inv")
    _matrices(a)
    if _singular(a):
        raise Invalid("a singular matrix")
    return _la_expect(np.linalg.inv(a), dt, a)


def _ref_det(a):
    dt = _la_dtype(a, "det")
    _matrices(a)
    if _singular(a):  # (a zero row: the determinant is 0 exactly)
        return Expect(np.zeros(a.shape[:-2]), dt, np.prod(np.sqrt((a * a).sum(-1)), -1))
    return _la_expect(np.linalg.det(a), dt, a)


def _ref_slogdet(a):
    dt = _la_dtype(a, "slogdet")
    _matrices(a)
    if _singular(a):
        raise Unchecked("singular: log|det| is -inf or a rounding's log")
    s, ld = np.linalg.slogdet(a)
    e = _la_expect([ld, s], dt, a)
    return e


def _ref_solve(a, b):
    dt = _la_dtype(a, "solve")
    _la_dtype(b, "solve")
    _matrices(a)
    if _dt(b) != dt:
        raise Invalid("operands of two dtypes")
    n = a.shape[-1]
    vec = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    if vec:
        if b.shape[-1] != n:
            raise Invalid("a right side of the wrong size")
        B = b[..., None]
    else:
        if b.ndim < 2 or b.shape[-2] != n:
            raise Invalid("a right side of the wrong size")
        B = b
    try:
        batch = np.broadcast_shapes(a.shape[:-2], B.shape[:-2])
    except ValueError:
        raise Invalid("batches that do not broadcast") from None
    if _singular(a):
        raise Invalid("a singular matrix")
    A = np.broadcast_to(a, batch + a.shape[-2:])
    Bb = np.broadcast_to(B, batch + B.shape[-2:])
    x = np.linalg.solve(A, Bb) if A.size and Bb.size else np.zeros(batch + (n, B.shape[-1]))
    return _la_expect(x[..., 0] if vec else x, dt, a)


def _ref_cholesky(b, shift):
    if _dt(b) not in _FLOATS:
        raise Unchecked("an integer matrix (b @ b.mT + shift * I promotes it to float)")
    dt = _la_dtype(b, "cholesky")
    _matrices(b, square=False)
    _overflows(b * b * b.shape[-1], dt)
    a = b @ np.swapaxes(b, -1, -2) + shift * np.eye(b.shape[-2])
    if a.size and np.any(np.linalg.eigvalsh(a)[..., 0] <= 1e-3 * max(1.0, np.abs(a).max())):
        if shift < 0:
            raise Invalid("not positive-definite")
        raise Unchecked("near the edge of positive-definite")
    return _la_expect(np.linalg.cholesky(a) if a.size else np.zeros(a.shape), dt, a)


def _ref_qr(a, mode="reduced"):
    dt = _la_dtype(a, "qr")
    _matrices(a, square=False)
    if min(a.shape[-2:]) == 0 or _singular(a[..., :, : min(a.shape[-2:])]):
        raise Unchecked("empty or rank-deficient: R's signs are not unique")
    q, r = np.linalg.qr(a)
    return _la_expect([q @ r, np.abs(r)], dt, a)


def _ref_svd(a):
    dt = _la_dtype(a, "svd")
    _matrices(a, square=False)
    s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (min(a.shape[-2:]),))
    if s.size and np.min(np.abs(np.diff(s, axis=-1)), initial=np.inf) < 1e-3:
        raise Unchecked("close singular values")
    return _la_expect([s, a.copy()], dt, a)


def _ref_eigh(b):
    dt = _la_dtype(b, "eigh")
    if b.ndim < 2:
        raise Invalid("fewer than 2 dims")
    a = b + np.swapaxes(b, -1, -2)  # ((1, 0) + (0, 1) broadcasts to (0, 0), as in the call)
    _matrices(a)
    w = np.linalg.eigvalsh(a) if a.size else np.zeros(a.shape[:-1])
    if w.size and np.min(np.diff(w, axis=-1), initial=np.inf) < 1e-3:
        raise Unchecked("close eigenvalues")
    return _la_expect([w, a], dt, a)


def _ref_lstsq(a, b):
    dt = _la_dtype(a, "lstsq")
    _la_dtype(b, "lstsq")
    if _dt(b) != dt:
        raise Invalid("operands of two dtypes")
    _matrices(a, square=False)
    if not 0 <= a.ndim - b.ndim <= 1:
        raise Invalid("a right side of the wrong rank")
    if b.ndim == a.ndim - 1:
        e = _ref_lstsq(a, b[..., None])
        return Expect(e.value[..., 0], e.dtype, None if e.scale is None else e.scale[..., 0])
    if b.shape[-2] != a.shape[-2]:
        raise Invalid("a right side of the wrong size")
    if a.shape[:-2] != b.shape[:-2]:
        raise Unchecked("broadcast batches")
    if a.shape[-2] < a.shape[-1] or _singular(a):
        raise Unchecked("wide or rank-deficient (the solution depends on the driver)")
    if a.size == 0 or b.size == 0:
        return Expect(np.zeros(a.shape[:-2] + (a.shape[-1], b.shape[-1])), dt)
    x = np.stack([np.linalg.lstsq(A, B, rcond=None)[0] for A, B in zip(
        a.reshape(-1, *a.shape[-2:]), b.reshape(-1, *b.shape[-2:]), strict=True)])
    return _la_expect(x.reshape(a.shape[:-2] + x.shape[-2:]), dt, a)


def _ref_pinv(a):
    dt = _la_dtype(a, "pinv")
    _matrices(a, square=False)
    if a.size == 0:
        return Expect(np.zeros(a.shape[:-2] + (a.shape[-1], a.shape[-2])), dt)
    s = np.linalg.svd(a, compute_uv=False)
    if np.any(s[..., -1] < 1e-3 * np.maximum(s[..., 0], 1e-30)):
        raise Unchecked("rank-deficient or near it (the cut-off decides)")
    return _la_expect(np.linalg.pinv(a), dt, a)


def _ref_matrix_power(a, n):
    dt = _dt(a)
    if dt not in _FLOATS:
        raise Unchecked("integer matrix power")
    _matrices(a)
    if not np.all(np.isfinite(a)):
        raise Unchecked("a non-finite entry")
    if n < 0:
        if dt in ("float16", "bfloat16"):
            raise Invalid("a low-precision inverse")
        if _singular(a):
            raise Invalid("a singular matrix")
        r = np.linalg.matrix_power(a, n)
        return _la_expect(r, dt, a)
    r = np.linalg.matrix_power(a, n) if a.size else a.copy()
    sc = np.linalg.matrix_power(np.abs(a), n) if a.size else a.copy()
    return Expect(r, dt, sc * 2)


def _ref_matrix_norm(a, ord="fro", dim=(-2, -1), keepdim=False):  # noqa: A002 - PyTorch's keyword
    if _dt(a) in ("float16", "bfloat16") and ord not in (2, -2, "nuc"):
        raise Unchecked("a low-precision sum or max norm (PyTorch computes it)")
    dt = _la_dtype(a, "matrix_norm")
    _matrices(a, square=False)
    if a.size == 0 and ord in (2, -2, "nuc", 1, -1, float("inf"), float("-inf")):
        raise Unchecked("an empty matrix under a norm with no identity")
    if ord in (2, -2, "nuc"):
        s = np.linalg.svd(a, compute_uv=False)
        v = s[..., 0] if ord == 2 else s[..., -1] if ord == -2 else s.sum(-1)
    elif ord == "fro":
        _overflows(a * a * a.shape[-1] * a.shape[-2], dt)
        v = np.sqrt((a * a).sum((-2, -1)))
    else:
        v = np.linalg.norm(a, ord, axis=(-2, -1)) if a.size else np.zeros(a.shape[:-2])
    if keepdim:
        v = v[..., None, None]
    return Expect(v, dt, np.abs(v) * 4 + 1e-30)


def _ref_vector_norm(x, ord=2, dim=None, keepdim=False):  # noqa: A002 - PyTorch's keyword
    dt = _dt(x)
    if dt not in ("float32", "float64"):
        raise Unchecked(f"{dt} input")
    if not np.all(np.isfinite(x)):
        raise Unchecked("a non-finite entry")
    if x.size == 0 and ord in (float("inf"), float("-inf")) and dim is None:
        raise Invalid("an empty input under an inf norm")
    axis = None if dim is None else dim
    if axis is not None and x.ndim == 0:
        raise Unchecked("a dim on a 0-dim tensor")
    if isinstance(axis, int) and not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise Invalid("a dim out of range", IndexError)
    ax = axis if axis is not None else tuple(range(x.ndim))
    if (x.shape[ax] if isinstance(ax, int) else 1) == 0 and ord in (float("inf"), float("-inf")):
        raise Invalid("an empty dim under an inf norm")
    a = np.abs(x)
    if ord not in (0, float("inf")):
        _overflows(a ** ord * max(x.size, 1), dt)
    if ord == float("inf"):
        v = a.max(axis=ax, keepdims=keepdim)
    elif ord == 0:
        v = (a != 0).sum(axis=ax, keepdims=keepdim).astype(np.float64)
    else:
        v = (a ** ord).sum(axis=ax, keepdims=keepdim) ** (1 / ord)
    return Expect(v, dt, np.abs(v) * 4 + 1e-30)


def _ref_lu_solve(a, b):
    e = _ref_solve(a, b)
    return e


def _la_draw(draw, T, *, square=True, name=""):
    st = _st()
    batch = draw(st.sampled_from([(), (), (0,), (1,), (2,), (2, 3)]))
    n = draw(st.sampled_from([0, 1, 2, 3, 4, 4]))
    m = n if square or draw(st.booleans()) else draw(st.sampled_from([1, 2, 3, 5]))
    if square and draw(st.integers(0, 14)) == 0:
        m = n + 1
    shape = batch + (m, n)
    if draw(st.integers(0, 29)) == 0:
        shape = (n,)
    dtype = draw(st.sampled_from(_LA_DTYPES))
    spec = _t(draw, T, dtype, shape)
    if draw(st.integers(0, 7)) == 0 and len(shape) >= 2 and m >= 1 and n >= 1:
        # a singular matrix: one row of zeros in every matrix of the batch
        r = draw(st.integers(0, m - 1))
        zero = tuple((b * m * n + r * n + j, 0.0) for b in range(int(np.prod(batch))) for j in range(n))
        spec = dataclasses.replace(spec, specials=zero)
    return spec


def _d_la(name, n_args=1, square=True, extra=None):
    from ember.core.fuzz import Case

    def draw_fn(draw, T):
        st = _st()
        a = _la_draw(draw, T, square=square, name=name)
        args = [a]
        if n_args == 2:
            n = a.shape[-2] if len(a.shape) >= 2 else 1
            bshape = draw(st.sampled_from([(n, 2), (n, 1), (n,), (n + 1, 2), (n, 0)]))
            if len(a.shape) > 2 and draw(st.booleans()):
                bshape = a.shape[:-2] + bshape if len(bshape) == 2 else a.shape[:-2] + bshape
            bdt = a.dtype if draw(st.integers(0, 14)) else draw(st.sampled_from(["float32", "float64"]))
            args.append(_t(draw, T, bdt, bshape))
        kw = extra(draw) if extra else ()
        return Case(name, tuple(args), kw)
    return draw_fn


def _la_call(fname, post=None):
    def call(M, *args, **kw):
        r = getattr(M.linalg, fname)(*args, **kw)
        return post(M, r, *args) if post else r
    call.__name__ = f"_call_{fname}"
    return call


def _call_cholesky(M, b, shift):
    a = b @ b.mT + shift * M.eye(b.shape[-2], dtype=b.dtype, device=b.device)
    return M.linalg.cholesky(a)


def _call_eigh(M, b):
    a = b + b.mT
    w, v = M.linalg.eigh(a)
    return w, (v * w.unsqueeze(-2)) @ v.mT


def _call_svd(M, a):
    u, s, vh = M.linalg.svd(a, full_matrices=False)
    return s, (u * s.unsqueeze(-2)) @ vh


def _call_qr(M, a, mode="reduced"):
    q, r = M.linalg.qr(a, mode=mode)
    return q @ r, r.abs()


def _call_slogdet(M, a):
    s, ld = M.linalg.slogdet(a)
    return ld, s


def _call_lu_solve(M, a, b):
    vec = b.ndim == 1 or (b.ndim == a.ndim - 1 and tuple(b.shape) == tuple(a.shape[:-1]))
    lu, piv = M.linalg.lu_factor(a)
    x = M.linalg.lu_solve(lu, piv, b.unsqueeze(-1) if vec else b)
    return x.squeeze(-1) if vec else x


def _d_cholesky(draw, T):
    from ember.core.fuzz import Case

    a = _la_draw(draw, T)
    return Case("linalg.cholesky", (a, draw(_st().sampled_from([1.0, 1.0, 0.5, -100.0]))))


def _d_matrix_power(draw, T):
    from ember.core.fuzz import Case

    return Case("linalg.matrix_power", (_la_draw(draw, T), draw(_st().sampled_from([0, 1, 2, 3, -1, -2]))))


def _d_matrix_norm(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    return Case("linalg.matrix_norm", (_la_draw(draw, T, square=False),),
                (("ord", draw(st.sampled_from(["fro", "fro", "nuc", 2, -2, 1, -1, float("inf")]))),
                 ("keepdim", draw(st.booleans()))))


def _d_vector_norm(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=0, max_size=3)))
    x = _t(draw, T, draw(st.sampled_from(["float32", "float64", "float32", "int64"])), shape)
    dim = draw(st.sampled_from([None, None, 0, -1, 3]))
    return Case("linalg.vector_norm", (x,), (("ord", draw(st.sampled_from([2, 2, 1, 3, 0, 0.5, float("inf")]))),
                                              ("dim", dim), ("keepdim", draw(st.booleans()))))


# --- the gradient check ------------------------------------------------------------------------
def _grad(wrt=None, ties=False):
    """A row's `grad`: the derivative of sum(w * out) along a random direction of each float32/float64
    input (positions `wrt`, default every one) against central differences of the float64 reference."""
    def check(case, hargs, hkw, args, kwargs, result):
        from ember.core.fuzz import TensorSpec, build
        from ember.core.fuzz_family import info_of

        import ember.autograd as A
        import ember.core as E

        specs = [(i, a) for i, a in enumerate(case.args) if isinstance(a, TensorSpec)
                 and a.dtype in ("float32", "float64") and not a.specials and int(np.prod(a.shape)) > 0
                 and (wrt is None or i in wrt) and not (ties and a.layout in ("expanded", "overlapping"))]
        if not specs or any(isinstance(a, TensorSpec) and a.specials for a in case.args):
            return None  # (NaN, inf, 1e30 anywhere: float64 differences cannot see the derivative)
        out0 = result[0] if isinstance(result, tuple) else result
        if not out0.dtype.is_floating_point or out0.numel() == 0:
            return None
        info = info_of(case.op)
        xs = [build(a) for a in case.args]
        kws = {k: build(v) for k, v in case.kwargs}
        for i, _ in specs:
            xs[i].requires_grad_(True)
        out = info.call(E, *xs, **kws)
        out = out[0] if isinstance(out, tuple) else out
        if not out.requires_grad:
            return "the result does not require grad"
        w = np.cos(np.arange(out.numel(), dtype=np.float64)).reshape(tuple(out.shape))
        loss = (out * E.from_numpy(w.astype(out.dtype.np))).sum()
        grads = A.grad(loss, [xs[i] for i, _ in specs], allow_unused=True)

        def f(k, arr):
            h = list(hargs)
            h[k] = arr
            with np.errstate(all="ignore"):
                v = info.ref(*h, **hkw).value
            v = np.asarray(v[0] if isinstance(v, list) else v, dtype=np.float64).reshape(w.shape)
            return float(np.sum(w * v)), float(np.sum(np.abs(w * v)))

        rng = np.random.default_rng(0)
        for (i, spec), g in zip(specs, grads, strict=True):
            v = rng.standard_normal(spec.shape)
            gn = np.zeros(spec.shape) if g is None else np.asarray(g._host_array(), dtype=np.float64)
            got = float(np.sum(gn * v))
            x0 = hargs[i]
            eps = 1e-6 * max(1.0, float(np.max(np.abs(x0))))
            try:
                (fh, mag_h), (fl, mag_l) = f(i, x0 + eps * v), f(i, x0 - eps * v)
                (fh4, _), (fl4, _) = f(i, x0 + eps / 4 * v), f(i, x0 - eps / 4 * v)
                f0, _ = f(i, x0)
            except (Invalid, Unchecked):
                continue
            fd, fd4 = (fh - fl) / (2 * eps), (fh4 - fl4) / (eps / 2)
            rtol = 2e-3 if out.dtype.name == "float32" or spec.dtype == "float32" else 1e-5
            tol = rtol * (abs(fd) + float(np.sum(np.abs(gn * v)))) + 1e-12 * max(mag_h, mag_l) / eps * 4 \
                + 1e-9 * float(np.sum(np.abs(v)))  # (a derivative of 0 computed as 1e-11)
            one_sided = abs((fh - f0) - (f0 - fl)) / eps  # a kink at x0 (equal inputs at a hinge)
            if not (np.isfinite(fd) and abs(fd - fd4) <= tol / 4 and one_sided <= tol / 4):
                continue  # a kink or a pole within the step: differences say nothing
            if not abs(got - fd) <= tol:
                return (f"input {i}: d/dv of sum(w * out) is {got:.6g}, finite differences of the float64 "
                        f"reference {fd:.6g}" + ("" if g is not None else " (no gradient reached the input)"))
        return None
    return check


# --- the rows ----------------------------------------------------------------------------------
def _row(kind, draw, ref, call, grad=True, wrt=None, ties=False):
    """`ties`: a max (or a kink) whose derivative is undefined where inputs repeat (expanded and
    overlapping layouts are not differentiated there)."""
    return OpInfo(kind=kind, ref=ref, draw=draw, call=call, public=True, supports_out=False,
                  grad=_grad(wrt, ties) if grad else None)


def _rows() -> dict:
    rows = {}
    for d in (1, 2, 3):
        rows[f"F.conv{d}d"] = _row("conv", _d_conv(f"F.conv{d}d", d, False), _conv_ref(d), _call_conv(f"conv{d}d"))
        rows[f"F.conv_transpose{d}d"] = _row("conv", _d_conv(f"F.conv_transpose{d}d", d, True), _conv_t_ref(d),
                                             _call_conv(f"conv_transpose{d}d"))
        rows[f"F.max_pool{d}d"] = _row("pool", _d_max_pool(f"F.max_pool{d}d", d), _max_pool_ref(d),
                                       _call_F(f"max_pool{d}d"), ties=True)
        rows[f"F.avg_pool{d}d"] = _row("pool", _d_avg_pool(f"F.avg_pool{d}d", d), _avg_pool_ref(d),
                                       _call_F(f"avg_pool{d}d"))
        rows[f"F.lp_pool{d}d"] = _row("pool", _d_lp_pool(f"F.lp_pool{d}d", d), _lp_pool_ref(d),
                                      _call_F(f"lp_pool{d}d"))
        rows[f"F.adaptive_avg_pool{d}d"] = _row("pool", _d_adaptive(f"F.adaptive_avg_pool{d}d", d, "avg"),
                                                _adaptive_ref(d, "avg"), _call_F(f"adaptive_avg_pool{d}d"))
        rows[f"F.adaptive_max_pool{d}d"] = _row("pool", _d_adaptive(f"F.adaptive_max_pool{d}d", d, "max"),
                                                _adaptive_ref(d, "max"), _call_F(f"adaptive_max_pool{d}d"), ties=True)
        rows[f"F.max_unpool{d}d"] = _row("pool", _d_unpool(f"F.max_unpool{d}d", d), _unpool_ref(d),
                                         _call_F(f"max_unpool{d}d"), wrt=(0,))
    losses = {
        "F.mse_loss": (_d_pointwise("F.mse_loss"), _pointwise(_mse)),
        "F.l1_loss": (_d_pointwise("F.l1_loss"), _pointwise(_l1)),
        "F.smooth_l1_loss": (_d_pointwise("F.smooth_l1_loss", (("beta", [1.0, 0.5, 0.0, 2.0, -1.0]),)),
                             _pointwise(_smooth_l1)),
        "F.huber_loss": (_d_pointwise("F.huber_loss", (("delta", [1.0, 0.5, 2.0, 0.0]),)), _pointwise(_huber)),
        "F.binary_cross_entropy": (_d_pointwise("F.binary_cross_entropy", (("weight", ["tensor"]),)), _bce_ref),
        "F.binary_cross_entropy_with_logits": (
            _d_pointwise("F.binary_cross_entropy_with_logits", (("weight", ["tensor"]), ("pos_weight", ["tensor"]))),
            _bce_logits_ref),
        "F.kl_div": (_d_pointwise("F.kl_div", (("log_target", [True, False]),)), _kl_ref),
        "F.poisson_nll_loss": (_d_pointwise("F.poisson_nll_loss", (("log_input", [True, False]),
                                                                   ("full", [True, False]))), _poisson_ref),
        "F.cross_entropy": (_d_class_loss("F.cross_entropy"), _ce_ref),
        "F.nll_loss": (_d_class_loss("F.nll_loss"), _nll_ref),
        "F.margin_ranking_loss": (_d_sign_target("F.margin_ranking_loss", 2), _sign_ref(_margin_ranking_ref)),
        "F.hinge_embedding_loss": (_d_sign_target("F.hinge_embedding_loss", 1), _sign_ref(_hinge_ref)),
        "F.cosine_embedding_loss": (_d_sign_target("F.cosine_embedding_loss", 2), _sign_ref(_cosine_embedding_ref)),
        "F.triplet_margin_loss": (_d_triplet, _triplet_ref),
    }
    signed = ("F.margin_ranking_loss", "F.hinge_embedding_loss", "F.cosine_embedding_loss")
    for name, (draw, ref) in losses.items():
        call = _sign_call(name[2:]) if name in signed else _call_F(name[2:])
        wrt = (0,) if name in ("F.kl_div", "F.hinge_embedding_loss") else (0, 1)  # (hinge: no path to the target)
        rows[name] = _row("loss", draw, ref, call, wrt=wrt)
    rows["F.gaussian_nll_loss"] = _row("loss", _d_gaussian, _gaussian_ref, _call_F("gaussian_nll_loss"))
    rows["F.ctc_loss"] = _row("loss", _d_ctc, _ctc_row_ref, _call_ctc, wrt=(0,))
    la = {
        "linalg.inv": (_d_la("linalg.inv"), _ref_inv, _la_call("inv")),
        "linalg.det": (_d_la("linalg.det"), _ref_det, _la_call("det")),
        "linalg.slogdet": (_d_la("linalg.slogdet"), _ref_slogdet, _call_slogdet),
        "linalg.solve": (_d_la("linalg.solve", 2), _ref_solve, _la_call("solve")),
        "linalg.cholesky": (_d_cholesky, _ref_cholesky, _call_cholesky),
        "linalg.qr": (_d_la("linalg.qr", square=False), _ref_qr, _call_qr),
        "linalg.svd": (_d_la("linalg.svd", square=False), _ref_svd, _call_svd),
        "linalg.eigh": (_d_la("linalg.eigh"), _ref_eigh, _call_eigh),
        "linalg.lstsq": (_d_la("linalg.lstsq", 2, square=False), _ref_lstsq,
                         _la_call("lstsq", lambda M, r, *a: r.solution)),
        "linalg.pinv": (_d_la("linalg.pinv", square=False), _ref_pinv, _la_call("pinv")),
        "linalg.matrix_power": (_d_matrix_power, _ref_matrix_power, _la_call("matrix_power")),
        "linalg.matrix_norm": (_d_matrix_norm, _ref_matrix_norm, _la_call("matrix_norm")),
        "linalg.vector_norm": (_d_vector_norm, _ref_vector_norm, _la_call("vector_norm")),
        "linalg.lu_solve": (_d_la("linalg.lu_solve", 2), _ref_lu_solve, _call_lu_solve),
    }
    for name, (draw, ref, call) in la.items():
        rows[name] = _row("linalg", draw, ref, call, wrt=(0, 1) if name != "linalg.cholesky" else (0,))
    return rows


def _d_gaussian(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=0, max_size=3)))
    dtype = draw(st.sampled_from(["float32", "float64"]))
    var = _t(draw, T, dtype, shape, 0.01 if draw(st.integers(0, 9)) else -1.0, 2.0)
    kw = (("full", draw(st.booleans())), ("reduction", draw(st.sampled_from(_REDUCTIONS))))
    return Case("F.gaussian_nll_loss", (_t(draw, T, dtype, shape), _t(draw, T, dtype, shape), var), kw)


ROWS = _rows()
register(ROWS)
