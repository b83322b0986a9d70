"""The op table's rows for the indexing family (kind "indexing", NOTE [ The op table ] in
`ember.core.opinfo`): gather, scatter*, index_*, advanced indexing, take/put, masks, embedding,
one_hot, bincount, searchsorted and class-target losses.

Each row gives the fuzz campaign (`ember.core.fuzz_family`) three things:
- `draw(draw, T)`: a hypothesis draw of one call (a `Case`), `T` the campaign's tensor strategies.
  Indices are in range mostly, else one step out on either side (`n`, `-n-1`) or huge (2**40), of
  int64, int32 or a refused dtype; shapes have 0- and 1-size dims; every tensor any layout;
- `ref(*args, **kwargs)`: an independent numpy reference over the host copies (float64 for floating
  tensors) that returns an `Expect` (value, dtype) or raises `Invalid(why, exc)` naming PyTorch's
  exception class for a call PyTorch refuses (the campaign then requires that class);
- `call(M, *args, **kwargs)`: the call in module `M` (`ember.core` or `torch`), for the public
  functions whose form is not `M.<name>(...)` (`x[idx]`, `F.embedding`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ember.core.opinfo import OpInfo

__all__ = ["Invalid", "Unchecked", "Expect", "INFOS", "COMPOSITES", "info"]

HUGE = 2**40
INT = ("int64", "int32")
_FLOATS = ("float16", "bfloat16", "float32", "float64")


class Invalid(Exception):
    """PyTorch refuses the call; `exc` is the exception class it raises."""

    def __init__(self, why: str, exc: type[BaseException] = RuntimeError) -> None:
        super().__init__(why)
        self.exc = exc


class Unchecked(Exception):
    """The reference does not model this corner (the campaign counts the case as unchecked)."""


@dataclass
class Expect:
    value: object  # np.ndarray (float64 for a floating result)
    dtype: str
    scale: object = None  # per element, the magnitude a sum's rounding is relative to (sum |x|)


class Host(np.ndarray):
    """A host copy of a tensor (float64 for floating dtypes) that remembers the tensor's dtype."""

    fuzz_dtype: str | None = None
    fuzz_shared: bool = False  # some elements share memory (an expanded or overlapping view)
    fuzz_contiguous: bool = True

    def __array_finalize__(self, obj) -> None:
        self.fuzz_dtype = getattr(obj, "fuzz_dtype", None)
        self.fuzz_shared = getattr(obj, "fuzz_shared", False)
        self.fuzz_contiguous = getattr(obj, "fuzz_contiguous", True)


def host(a: np.ndarray, dtype: str, shared: bool = False, contiguous: bool = True) -> Host:
    h = np.asarray(a).view(Host)
    h.fuzz_dtype = dtype
    h.fuzz_shared = shared
    h.fuzz_contiguous = contiguous
    return h


def _dt(a) -> str:
    return getattr(a, "fuzz_dtype", None) or (a.dtype.name if isinstance(a, np.ndarray) else type(a).__name__)


def _is_index(a, dtypes=INT) -> None:
    if not isinstance(a, np.ndarray) or _dt(a) not in dtypes:
        raise Invalid(f"an index of dtype {_dt(a)}", IndexError if dtypes == ("adv",) else RuntimeError)


def _dim(dim, ndim: int) -> int:
    n = max(ndim, 1)
    if not isinstance(dim, int) or not -n <= dim < n:
        raise Invalid("a dim out of range", IndexError)
    return dim % n


def _values(idx: np.ndarray, size: int, exc=RuntimeError, negative: bool = False) -> np.ndarray:
    idx = idx.astype(np.int64)
    lo = -size if negative else 0
    if idx.size and (idx.min() < lo or idx.max() >= size):
        raise Invalid("an index out of range", exc)
    return np.where(idx < 0, idx + size, idx)


def _as1(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


def _same_dtype(a, b) -> None:
    if _dt(a) != _dt(b):
        raise Invalid("operands of two dtypes")


# --- gather / scatter ------------------------------------------------------------------------
def _gather_ref(x, dim, idx):
    d = _dim(dim, x.ndim)  # PyTorch checks the dim first, then the index's dtype
    _is_index(idx)
    if idx.size == 0:
        return Expect(np.zeros(idx.shape), _dt(x))
    xx, ii = _as1(x), _as1(idx)
    if ii.ndim != xx.ndim:
        raise Invalid("index of another rank")
    if any(ii.shape[k] > xx.shape[k] for k in range(xx.ndim) if k != d):
        raise Invalid("index larger than input")
    ii = _values(ii, xx.shape[d])
    sub = xx[tuple(slice(0, n) if k != d else slice(None) for k, n in enumerate(ii.shape))]
    return Expect(np.take_along_axis(sub, ii, d).reshape(idx.shape), _dt(x))


def _scatter_core(x, dim, idx, src, mode, include_self=True):
    d = _dim(dim, x.ndim)
    _is_index(idx)
    tensor_src = isinstance(src, np.ndarray)
    if tensor_src:
        _same_dtype(x, src)
    out = x.astype(np.float64 if _dt(x) in _FLOATS else x.dtype).copy()
    if idx.size == 0:
        return Expect(out, _dt(x))
    xx, ii, o = _as1(x), _as1(idx), _as1(out)
    if ii.ndim != xx.ndim or (tensor_src and _as1(src).ndim != xx.ndim):
        raise Invalid("index of another rank")
    if any(ii.shape[k] > xx.shape[k] for k in range(xx.ndim) if k != d) or \
            (tensor_src and any(ii.shape[k] > _as1(src).shape[k] for k in range(xx.ndim))):
        raise Invalid("index larger than self or src")
    ii = _values(ii, xx.shape[d])
    if tensor_src:
        s = _as1(src)[tuple(slice(0, n) for n in ii.shape)]
    else:
        s = np.full(ii.shape, src)
    touched: dict = {}
    scale = np.abs(o).astype(np.float64)
    for pos in np.ndindex(*ii.shape):
        tgt = list(pos)
        tgt[d] = ii[pos]
        tgt = tuple(tgt)
        v = s[pos]
        if mode == "set":
            if tgt in touched:
                raise Unchecked("repeated indices (which write wins is undefined)")
            touched[tgt] = v
            o[tgt] = v
        else:
            touched.setdefault(tgt, []).append(v)
    if mode == "set":
        touched = {}
    for tgt, vs in touched.items():
        base = [o[tgt]] if include_self else []
        allv = np.array(base + vs, dtype=np.float64)
        scale[tgt] = np.abs(allv).sum()
        if mode in ("add", "sum"):
            o[tgt] = allv.sum()
        elif mode in ("multiply", "prod"):
            o[tgt] = allv.prod()
            scale[tgt] = np.abs(allv.prod())
        elif mode == "mean":
            r = allv.sum() / len(allv)
            o[tgt] = r if _dt(x) in _FLOATS else np.floor_divide(int(allv.sum()), len(allv))
        elif mode == "amax":
            o[tgt] = np.nan if np.isnan(allv).any() else allv.max()
        elif mode == "amin":
            o[tgt] = np.nan if np.isnan(allv).any() else allv.min()
    if _dt(x) == "bool" and mode != "set":
        raise Unchecked("accumulating bools")
    return Expect(o.reshape(x.shape), _dt(x), scale.reshape(x.shape))


def _scatter_ref(x, dim, idx, src=None, *, value=None, reduce=None):
    source = src if src is not None else value
    if reduce not in (None, "add", "multiply"):
        raise Invalid("an unknown reduce")
    return _scatter_core(x, dim, idx, source, reduce or "set")


def _scatter_add_ref(x, dim, idx, src):
    if not isinstance(src, np.ndarray):
        raise Invalid("a non-tensor src", TypeError)
    return _scatter_core(x, dim, idx, src, "add")


def _scatter_reduce_ref(x, dim, idx, src, reduce, *, include_self=True):
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise Invalid("an unknown reduce")
    return _scatter_core(x, dim, idx, src, reduce, include_self)


def _take_along_dim_ref(x, idx, dim=None):
    if not isinstance(idx, np.ndarray) or _dt(idx) != "int64":
        raise Invalid("indices not int64")
    if dim is None:
        return Expect(np.ravel(x)[_values(np.ravel(idx), x.size)], _dt(x))
    if x.ndim != idx.ndim:
        raise Invalid("indices of another rank")
    d = _dim(dim, x.ndim)
    a, b = list(x.shape), list(idx.shape)
    a[d] = b[d] = 1
    try:
        shape = np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        raise Invalid("shapes that do not broadcast") from None
    xs = np.broadcast_to(x, shape[:d] + (x.shape[d],) + shape[d + 1:])
    ii = np.broadcast_to(idx, shape[:d] + (idx.shape[d],) + shape[d + 1:])
    if ii.size == 0:
        return Expect(np.zeros(ii.shape), _dt(x))
    return Expect(np.take_along_axis(xs, _values(ii, x.shape[d]), d), _dt(x))


# --- index_select / index_add / index_copy / index_fill ----------------------------------------
def _vector(idx, op: str, exc=IndexError) -> np.ndarray:
    if idx.ndim > 1:
        raise Invalid("an index that is not a vector", exc)
    return idx.reshape(-1)


def _index_select_ref(x, dim, idx):
    d = _dim(dim, x.ndim)
    ii = _vector(idx, "index_select")
    _is_index(idx)
    if x.ndim == 0:
        if ii.size != 1:
            raise Invalid("index to a scalar with several values")
        _values(ii, 1, IndexError)
        return Expect(x.copy(), _dt(x))
    # PyTorch's CPU kernel: RuntimeError on a 2+-D tensor's dim 1 (batch gather) or an empty tensor, else IndexError
    ii = _values(ii, x.shape[d], RuntimeError if x.ndim > 1 and (d == 1 or x.size == 0) else IndexError)
    return Expect(np.take(x, ii, axis=d), _dt(x))


def _index_into(x, dim, idx, source, mode, alpha=1):
    ii = _vector(idx, mode, RuntimeError if mode == "add" else IndexError)
    d = _dim(dim, x.ndim)
    if not isinstance(source, np.ndarray):
        raise Invalid("a non-tensor source", TypeError)
    _same_dtype(x, source)
    if x.ndim == 0 or source.ndim == 0:
        raise Unchecked("a 0-dim self or source")
    if source.ndim != x.ndim:
        raise Invalid("source of another rank", IndexError if mode == "copy" else RuntimeError)
    a, b = list(x.shape), list(source.shape)
    del a[d], b[d]
    if a != b:
        raise Invalid("slices of two shapes")
    if source.shape[d] != ii.size:
        raise Invalid("as many indices as source slices", IndexError if mode == "copy" else RuntimeError)
    ii = _values(ii, x.shape[d], IndexError if mode == "copy" else RuntimeError)
    o = x.astype(np.float64 if _dt(x) in _FLOATS else x.dtype).copy()
    scale = np.abs(o).astype(np.float64)
    for k, i in enumerate(ii):
        sl = (slice(None),) * d + (i,)
        v = np.take(source, k, axis=d)
        if mode == "add":
            if _dt(x) == "bool":
                raise Unchecked("accumulating bools")
            o[sl] = o[sl] + alpha * v
            scale[sl] = scale[sl] + np.abs(alpha * v)
        else:
            o[sl] = v
    if mode == "copy" and len(set(ii.tolist())) != ii.size:
        raise Unchecked("index_copy with repeated indices (which write wins is undefined)")
    return Expect(o, _dt(x), scale)


def _index_add_ref(x, dim, idx, source, *, alpha=1):
    _dim(dim, x.ndim)
    _vector(idx, "index_add", IndexError)
    _is_index(idx)
    return _index_into(x, dim, idx, source, "add", alpha)


def _index_copy_ref(x, dim, idx, source):
    _is_index(idx, ("int64",))
    return _index_into(x, dim, idx, source, "copy")


def _index_fill_ref(x, dim, idx, value):
    if _dt(idx) != "int64":
        raise Invalid("an index not int64", IndexError)
    if idx.ndim > 1:
        raise Invalid("an index that is not a vector")
    d = _dim(dim, x.ndim)
    o = x.astype(np.float64 if _dt(x) in _FLOATS else x.dtype).copy()
    size = x.shape[d] if x.ndim else 1
    ii = _values(idx.reshape(-1), size, IndexError, negative=True)
    if x.ndim == 0:
        if ii.size:
            o[...] = value
    else:
        o[(slice(None),) * d + (ii,)] = value
    return Expect(o, _dt(x))


# --- x[idx], x[idx] = v, take, put ---------------------------------------------------------------
def _key(x, idx, where: int, put: bool = False):
    """The key `(:,) * where + (idx,)` with its values checked (advanced indexing wraps negatives). A 0-dim
    int8/int16 index is a Python int to `x[idx]` (its `__index__`), not to `index_put_` (`put`)."""
    if _dt(idx) in _FLOATS or (_dt(idx) in ("int16", "int8") and (idx.ndim or put)):
        raise Invalid("a floating or short index", IndexError)
    if _dt(idx) in ("bool", "uint8"):  # before the dim count: a 0-dim mask adds a dim, it takes none
        raise Unchecked("mask indexing")
    if where >= x.ndim:
        raise Invalid("too many indices", IndexError)
    return (slice(None),) * where + (_values(idx, x.shape[where], IndexError, negative=True),)


def _getitem_ref(x, idx, where=0):
    return Expect(x[_key(x, idx, where)], _dt(x))


def _setitem_ref(x, idx, value, where=0, accumulate=False):
    """`x[idx] = value` drops the value's leading 1s (PyTorch's __setitem__); `index_put_` does not.
    Both an index and a value shape wrong: PyTorch names either (its value check comes first on the
    CPU's index_put_, the shape check in ember's meta step)."""
    v = value if isinstance(value, np.ndarray) else np.asarray(value)
    if not accumulate:
        v = v.reshape(v.shape[next((k for k, n in enumerate(v.shape) if n != 1), v.ndim):])
    try:
        key = _key(x, idx, where, put=accumulate)
    except Invalid as e:
        if e.exc is not IndexError or where >= x.ndim or _dt(idx) not in INT:
            raise
        target = x.shape[:where] + idx.shape + x.shape[where + 1:]
        if _broadcasts(v.shape, target):
            raise
        raise Invalid("an index out of range and values that do not broadcast", (IndexError, RuntimeError)) from None
    o = x.astype(np.float64 if _dt(x) in _FLOATS else x.dtype).copy()
    target = o[key].shape
    if not _broadcasts(v.shape, target):
        raise Invalid("values that do not broadcast to the indexing result")
    if getattr(x, "fuzz_shared", False):
        raise Unchecked("a write into elements that share memory (PyTorch writes through, as ember)")
    v = np.broadcast_to(v, target)
    if accumulate:
        if _dt(x) == "bool":
            raise Unchecked("accumulating bools")
        np.add.at(o, key, v)
        scale = np.abs(x).astype(np.float64)
        np.add.at(scale, key, np.abs(v.astype(np.float64)))
        return Expect(o, _dt(x), scale)
    if len(set(key[-1].reshape(-1).tolist())) != key[-1].size:
        raise Unchecked("repeated indices (which write wins is undefined)")
    o[key] = v
    return Expect(o, _dt(x))


def _broadcasts(shape, target) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _take_ref(x, idx):
    if not isinstance(idx, np.ndarray) or _dt(idx) != "int64":
        raise Invalid("an index not int64")
    return Expect(np.ravel(x)[_values(idx, x.size, IndexError, negative=True)].reshape(idx.shape), _dt(x))


def _put_ref(x, idx, source, accumulate=False):
    if _dt(idx) != "int64":
        raise Invalid("an index not int64")
    _same_dtype(x, source)
    if idx.size != source.size:
        raise Invalid("as many indices as source elements", IndexError)
    ii = _values(np.ravel(idx), x.size, IndexError, negative=True)
    o = x.astype(np.float64 if _dt(x) in _FLOATS else x.dtype).copy().reshape(-1)
    if accumulate:
        if _dt(x) == "bool":
            raise Unchecked("accumulating bools")
        np.add.at(o, ii, np.ravel(source))
        scale = np.abs(np.ravel(x)).astype(np.float64)
        np.add.at(scale, ii, np.abs(np.ravel(source).astype(np.float64)))
        return Expect(o.reshape(x.shape), _dt(x), scale.reshape(x.shape))
    if len(set(ii.tolist())) != ii.size:
        raise Unchecked("repeated indices")
    o[ii] = np.ravel(source)
    return Expect(o.reshape(x.shape), _dt(x))


# --- masks -------------------------------------------------------------------------------------
def _mask(mask, x, inplace_shape=None):
    if _dt(mask) != "bool":
        raise Invalid("a mask that is not bool")
    try:
        return np.broadcast_shapes(mask.shape, x.shape)
    except ValueError:
        raise Invalid("a mask that does not broadcast") from None


def _masked_fill_ref(x, mask, value):
    shape = _mask(mask, x)
    if isinstance(value, np.ndarray) and value.ndim:
        raise Invalid("a value with dims")
    xs, ms = np.broadcast_to(x, shape), np.broadcast_to(mask, shape)
    o = np.where(ms, np.asarray(value, dtype=np.float64 if _dt(x) in _FLOATS else x.dtype), xs)
    return Expect(o, _dt(x))


def _masked_select_ref(x, mask):
    shape = _mask(mask, x)
    return Expect(np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)], _dt(x))


def _masked_scatter_ref(x, mask, source):
    shape = _mask(mask, x)
    _same_dtype(x, source)
    ms = np.broadcast_to(mask, shape)
    n = int(ms.sum())
    if n > source.size:
        raise Invalid("a source shorter than the mask's ones")
    o = np.array(np.broadcast_to(x, shape), dtype=np.float64 if _dt(x) in _FLOATS else x.dtype)
    o[ms] = np.ravel(source)[:n]
    return Expect(o, _dt(x))


# --- embedding, one_hot, bincount, searchsorted, class targets -----------------------------------
def _embedding_ref(idx, weight):
    if _dt(idx) not in INT:
        raise Invalid("indices not int64/int32")
    if weight.ndim != 2:
        raise Invalid("a weight not 2-D")
    if idx.size and not weight.shape[0]:
        raise Invalid("indices into an empty table", RuntimeError)  # PyTorch's index_select refuses it first
    return Expect(weight[_values(idx, weight.shape[0], IndexError)], _dt(weight))


def _one_hot_ref(idx, num_classes=-1):
    if _dt(idx) != "int64":
        raise Invalid("indices not int64")
    if num_classes == -1:
        if idx.size == 0:
            raise Invalid("no classes to infer")
        num_classes = int(idx.max()) + 1
    if idx.size and (idx.min() < 0 or idx.max() >= num_classes):
        raise Invalid("a class out of range")
    return Expect((idx[..., None] == np.arange(num_classes)).astype(np.int64), "int64")


def _bincount_ref(x, weights=None, minlength=0):
    if _dt(x) in _FLOATS + ("bool",):
        raise Invalid("not integers", NotImplementedError)
    if x.ndim != 1:
        raise Invalid("not 1-d")
    if x.size and x.min() < 0:
        raise Invalid("a negative value")
    if minlength < 0:
        raise Invalid("a negative minlength")
    if weights is None:
        return Expect(np.bincount(x.astype(np.int64), minlength=minlength), "int64")
    if weights.shape != x.shape:
        raise Invalid("weights of another length")
    w = weights.astype(np.float64)
    r = np.bincount(x.astype(np.int64), w, minlength)
    scale = np.bincount(x.astype(np.int64), np.abs(w), minlength)
    return Expect(r, "float32" if _dt(weights) == "float32" else "float64", scale)


def _searchsorted_ref(sorted_sequence, values, *, right=False):
    if _dt(sorted_sequence) != _dt(values):
        raise Unchecked("two dtypes (PyTorch promotes)")
    if sorted_sequence.ndim != 1:
        raise Unchecked("batched boundaries")
    s = np.sort(sorted_sequence)  # the draw sorts; a NaN sorts last as in PyTorch

    def bound(v):  # PyTorch's search: `!(mid >= v)` (right: `!(mid > v)`) steps right, so NaNs step right
        lo, hi = 0, len(s)
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (mid + 1, hi) if not (s[mid] > v if right else s[mid] >= v) else (lo, mid)
        return lo

    return Expect(np.array([bound(v) for v in np.ravel(values)], np.int64).reshape(np.shape(values)), "int64")


def _nll_loss_ref(input, target, *, ignore_index=-100, reduction="mean"):
    if _dt(input) not in _FLOATS:
        raise Unchecked("integer input")
    if input.ndim == 2 and target.ndim == 1 and target.shape[0] != input.shape[0]:
        raise Invalid("a target of another batch size", ValueError)  # PyTorch checks it before the dtype
    if _dt(target) not in ("int64", "uint8"):
        raise Invalid("a target not int64")
    if input.ndim != 2 or target.ndim != 1:
        raise Unchecked("not (N, C) input")
    t = target.astype(np.int64)
    valid = t != ignore_index
    if (valid & ((t < 0) | (t >= input.shape[1]))).any():
        raise Invalid("a target out of range", IndexError)
    with np.errstate(all="ignore"):
        picked = np.where(valid, -input[np.arange(t.size), np.where(valid, t, 0)], 0.0)  # an ignored row is 0
    if reduction == "none":
        return Expect(picked, _dt(input), np.abs(picked))
    if reduction == "sum":
        return Expect(np.float64(picked.sum()), _dt(input), np.abs(picked).sum())
    return Expect(np.float64(picked.sum() / valid.sum()) if valid.sum() else np.nan, _dt(input),
                  np.abs(picked).sum() / max(valid.sum(), 1))


def _cross_entropy_ref(input, target, *, ignore_index=-100, reduction="mean"):
    if _dt(input) in _FLOATS and input.ndim == 2:
        m = input.max(1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(all="ignore"):
            input = input - m - np.log(np.exp(input - m).sum(1, keepdims=True))
    return _nll_loss_ref(input, target, ignore_index=ignore_index, reduction=reduction)


# --- drawing the calls -----------------------------------------------------------------------------
_X_DTYPES = ["float32"] * 4 + ["float64"] * 2 + ["int64"] * 2 + ["float16", "bfloat16", "int32", "uint8", "int8",
                                                                      "bool"]
_INDEX_DTYPES = ["int64"] * 8 + ["int32"] * 2 + ["float32", "int16", "bool"]


def _st():
    from hypothesis import strategies as st

    return st


def _shape(draw, lo: int = 1, hi: int = 3) -> tuple[int, ...]:
    st = _st()
    return tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 5]), min_size=lo, max_size=hi)))


def _index(draw, shape, n: int, negative: bool = False, dtype: str | None = None):
    """An index tensor spec over a dim of size `n`: in range, or with one value one step out of range on
    either side, -1 where negatives are refused, or huge; int64 mostly, also int32 and refused dtypes."""
    from ember.core.fuzz import LAYOUTS, TensorSpec

    st = _st()
    dtype = dtype or draw(st.sampled_from(_INDEX_DTYPES))
    size = int(np.prod(shape)) if shape else 1
    specials = ()
    if size and draw(st.integers(0, 3)) == 0:
        bad = [n, -n - 1] + ([HUGE] if dtype == "int64" else []) + ([] if negative else [-1])
        if dtype not in _FLOATS + ("bool",):
            lim = np.iinfo(dtype)
            bad = [b for b in bad if lim.min <= b <= lim.max] or [n]
        specials = ((draw(st.integers(0, size - 1)), draw(st.sampled_from(bad))),)
    return TensorSpec(tuple(shape), dtype, draw(st.sampled_from(LAYOUTS)), draw(st.integers(0, 2**16)),
                      -n if negative else 0, max(n - 1, 0), specials)


def _x(draw, T, shape, dtype=None):
    st = _st()
    return draw(T.tensor(dtype or draw(st.sampled_from(_X_DTYPES)), tuple(shape), -4.0, 4.0))


def _draw_dim(draw, nd: int) -> int:
    st = _st()
    n = max(nd, 1)
    return draw(st.integers(-n, n - 1)) if draw(st.integers(0, 9)) else draw(st.sampled_from([n, -n - 1]))


def _fits(draw, shape, d: int, along: int | None = None) -> tuple[int, ...]:
    """An index shape no larger than `shape` apart from dim `d` (sometimes one larger: an error)."""
    st = _st()
    out = []
    for k, n in enumerate(shape):
        if k == d:
            out.append(draw(st.integers(0, 4)) if along is None else along)
        else:
            out.append(draw(st.integers(0, n)) if draw(st.integers(0, 11)) else n + 1)
    return tuple(out)


def _draw_gather(draw, T):
    from ember.core.fuzz import Case

    shape = _shape(draw, 0 if not draw(_st().integers(0, 9)) else 1)
    d = _draw_dim(draw, len(shape))
    dd = d % max(len(shape), 1)
    ishape = _fits(draw, shape, dd) if shape else draw(_st().sampled_from([(), (1,), (2,)]))
    n = shape[dd] if shape and dd < len(shape) else 1
    return Case("gather", (_x(draw, T, shape), d, _index(draw, ishape, n)))


def _scatter_parts(draw, T):
    st = _st()
    shape = _shape(draw)
    d = _draw_dim(draw, len(shape))
    dd = d % len(shape)
    ishape = _fits(draw, shape, dd)
    dtype = draw(st.sampled_from(_X_DTYPES))
    sshape = tuple(k + draw(st.sampled_from([0, 0, 0, 1])) for k in ishape)
    if draw(st.integers(0, 9)) == 0:  # a src shorter than the index along some dim
        sshape = tuple(max(k - 1, 0) for k in sshape)
    sdt = dtype if draw(st.integers(0, 11)) else draw(st.sampled_from(_X_DTYPES))
    return (_x(draw, T, shape, dtype), d, _index(draw, ishape, shape[dd]), _x(draw, T, sshape, sdt))


def _draw_scatter(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    x, d, idx, src = _scatter_parts(draw, T)
    reduce = draw(st.sampled_from([None, None, None, "add", "multiply"]))
    kw = (("reduce", reduce),) if reduce else ()
    if draw(st.booleans()):
        return Case("scatter", (x, d, idx), (("value", draw(st.sampled_from([1.5, -2, 0, True]))),) + kw)
    return Case("scatter", (x, d, idx, src), kw)


def _draw_scatter_add(draw, T):
    from ember.core.fuzz import Case

    return Case("scatter_add", _scatter_parts(draw, T))


def _draw_scatter_reduce(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    reduce = draw(st.sampled_from(["sum", "prod", "mean", "amax", "amin"]))
    return Case("scatter_reduce", _scatter_parts(draw, T) + (reduce,), (("include_self", draw(st.booleans())),))


def _draw_take_along_dim(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    shape = _shape(draw)
    x = _x(draw, T, shape)
    if draw(st.integers(0, 4)) == 0:
        return Case("take_along_dim", (x, _index(draw, _shape(draw, 0, 2), int(np.prod(shape)), True)))
    d = _draw_dim(draw, len(shape))
    dd = d % len(shape)
    ishape = tuple(draw(st.sampled_from([1, n])) if k != dd else draw(st.integers(0, 3)) for k, n in enumerate(shape))
    return Case("take_along_dim", (x, _index(draw, ishape, shape[dd]), d))


def _draw_index_select(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    shape = _shape(draw, 0 if not draw(st.integers(0, 9)) else 1)
    d = _draw_dim(draw, len(shape))
    n = shape[d % len(shape)] if shape and -len(shape) <= d < len(shape) else 1
    ishape = draw(st.sampled_from([(0,), (1,), (2,), (4,), (4,), (), (2, 2)]))
    return Case("index_select", (_x(draw, T, shape), d, _index(draw, ishape, n)))


def _index_source(draw, T, op, negative=False):
    from ember.core.fuzz import Case

    st = _st()
    shape = _shape(draw)
    d = _draw_dim(draw, len(shape))
    dd = d % len(shape)
    k = draw(st.sampled_from([0, 1, 2, 3, 4]))
    sshape = list(shape)
    sshape[dd] = k if draw(st.integers(0, 9)) else k + 1
    if draw(st.integers(0, 11)) == 0 and len(sshape) > 1:
        sshape[(dd + 1) % len(sshape)] += 1
    dtype = draw(st.sampled_from(_X_DTYPES))
    idx_dtype = "int64" if op != "index_add" and draw(st.integers(0, 5)) else None
    args = (_x(draw, T, shape, dtype), d, _index(draw, (k,), shape[dd], negative, idx_dtype))
    sdt = dtype if draw(st.integers(0, 11)) else draw(st.sampled_from(_X_DTYPES))
    if op == "index_fill":
        return Case(op, args + (draw(st.sampled_from([1.5, -2, 0, True])),))
    kw = (("alpha", draw(st.sampled_from([1, 2, -0.5]) if dtype in _FLOATS else st.sampled_from([1, 2]))),) \
        if op == "index_add" and draw(st.booleans()) else ()
    return Case(op, args + (_x(draw, T, tuple(sshape), sdt),), kw)


def _draw_index_add(draw, T):
    return _index_source(draw, T, "index_add")


def _draw_index_copy(draw, T):
    return _index_source(draw, T, "index_copy")


def _draw_index_fill(draw, T):
    return _index_source(draw, T, "index_fill", negative=True)


def _draw_index(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    shape = _shape(draw)
    where = draw(st.integers(0, len(shape) - 1)) if draw(st.integers(0, 11)) else len(shape)
    n = shape[where] if where < len(shape) else 1
    idx = _index(draw, _shape(draw, 0, 2), n, negative=True)
    return Case("index", (_x(draw, T, shape), idx, where))


def _draw_index_put(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    shape = _shape(draw)
    dtype = draw(st.sampled_from(_X_DTYPES))
    accumulate = draw(st.booleans())
    where = 0 if accumulate else draw(st.integers(0, len(shape) - 1))
    ishape = _shape(draw, 0, 2)
    idx = _index(draw, ishape, shape[where], negative=True)
    target = shape[:where] + ishape + shape[where + 1:]
    vshape = draw(st.sampled_from([target, target[1:], (), (1,) + target, target[:-1] + (7,)]))
    value = draw(st.sampled_from([1.5, -2])) if draw(st.integers(0, 4)) == 0 else _x(draw, T, vshape, dtype)
    return Case("index_put_", (_x(draw, T, shape, dtype), idx, value, where, accumulate))


def _draw_take(draw, T):
    from ember.core.fuzz import Case

    shape = _shape(draw, 0)
    return Case("take", (_x(draw, T, shape), _index(draw, _shape(draw, 0, 2), int(np.prod(shape)), True)))


def _draw_put(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    shape = _shape(draw, 0)
    dtype = draw(st.sampled_from(_X_DTYPES))
    ishape = _shape(draw, 0, 2)
    sshape = ishape if draw(st.integers(0, 9)) else ishape + (2,)
    idx = _index(draw, ishape, int(np.prod(shape)), True, "int64" if draw(st.integers(0, 5)) else None)
    return Case("put", (_x(draw, T, shape, dtype), idx, _x(draw, T, sshape, dtype), draw(st.booleans())))


def _mask_shape(draw, shape):
    st = _st()
    cut = draw(st.integers(0, len(shape)))
    m = tuple(1 if draw(st.integers(0, 2)) == 0 else n for n in shape[cut:])
    if draw(st.integers(0, 11)) == 0:
        m = m[:-1] + (7,) if m else (7,)
    return m


def _draw_mask(draw, T, shape):
    st = _st()
    return draw(T.tensor("bool" if draw(st.integers(0, 11)) else "uint8", shape, 0.0, 1.0))


def _draw_masked_fill(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    shape = _shape(draw, 0)
    value = draw(st.sampled_from([1.5, -2, 0, True]))
    return Case("masked_fill", (_x(draw, T, shape), _draw_mask(draw, T, _mask_shape(draw, shape)), value))


def _draw_masked_select(draw, T):
    from ember.core.fuzz import Case

    shape = _shape(draw, 0)
    return Case("masked_select", (_x(draw, T, _mask_shape(draw, shape)), _draw_mask(draw, T, shape)))


def _draw_masked_scatter(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    shape = _shape(draw, 0)
    dtype = draw(st.sampled_from(_X_DTYPES))
    n = int(np.prod(shape))
    src = _x(draw, T, (draw(st.sampled_from([n, n + 2, max(n - 2, 0)])),), dtype)
    return Case("masked_scatter", (_x(draw, T, shape, dtype), _draw_mask(draw, T, _mask_shape(draw, shape)), src))


def _draw_embedding(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    v = draw(st.sampled_from([0, 1, 3, 5]))
    w = _x(draw, T, (v, draw(st.sampled_from([0, 1, 3]))), draw(st.sampled_from(["float32", "float64", "float16"])))
    return Case("embedding", (_index(draw, _shape(draw, 0, 2), v), w))


def _draw_one_hot(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    c = draw(st.sampled_from([-1, -1, 1, 3, 5]))
    return Case("one_hot", (_index(draw, _shape(draw, 0, 2), max(c, 4)), c))


def _draw_bincount(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    n = draw(st.sampled_from([0, 1, 3, 7]))
    x = _index(draw, (n,) if draw(st.integers(0, 9)) else (n, 1), 6, dtype=draw(st.sampled_from(
        ["int64", "int64", "int32", "uint8", "float32"])))
    w = None if draw(st.booleans()) else _x(draw, T, (n,) if draw(st.integers(0, 9)) else (n + 1,),
                                          draw(st.sampled_from(["float32", "float64", "int64"])))
    return Case("bincount", (x, w, draw(st.sampled_from([0, 0, 4, -1]))))


def _draw_searchsorted(draw, T):
    from ember.core.fuzz import Case

    st = _st()
    dtype = draw(st.sampled_from(["float32", "float64", "int64"]))
    seq = _x(draw, T, (draw(st.sampled_from([0, 1, 3, 5])),), dtype)
    return Case("searchsorted", (seq, _x(draw, T, _shape(draw, 0, 2), dtype)), (("right", draw(st.booleans())),))


def _draw_class_loss(draw, T, op):
    from ember.core.fuzz import Case

    st = _st()
    n, c = draw(st.sampled_from([0, 1, 3, 4])), draw(st.sampled_from([1, 2, 5]))
    x = _x(draw, T, (n, c), draw(st.sampled_from(["float32", "float64"])))
    tn = n if draw(st.integers(0, 9)) else n + 1
    t = _index(draw, (tn,), c, dtype="int64" if draw(st.integers(0, 7)) else None)
    kw = (("reduction", draw(st.sampled_from(["mean", "sum", "none"]))),)
    if draw(st.integers(0, 3)) == 0:
        kw += (("ignore_index", draw(st.sampled_from([0, -1]))),)
    return Case(op, (x, t), kw)


def _draw_nll_loss(draw, T):
    return _draw_class_loss(draw, T, "nll_loss")


def _draw_cross_entropy(draw, T):
    return _draw_class_loss(draw, T, "cross_entropy")


# --- calling them ----------------------------------------------------------------------------------
def _torch(M) -> bool:
    return M.__name__ == "torch"


def _call_index(M, x, idx, where):
    return x[(slice(None),) * where + (idx,)]


def _call_index_put(M, x, idx, value, where, accumulate):
    if accumulate:
        return x.index_put_((idx,), value if hasattr(value, "shape") else M.tensor(value, dtype=x.dtype),
                            accumulate=True)
    x[(slice(None),) * where + (idx,)] = value
    return x


def _call_functional(name):
    def call(M, *args, **kwargs):
        fn = getattr(M.nn.functional, name) if _torch(M) else getattr(M, name)
        return fn(*args, **kwargs)

    call.__name__ = f"_call_{name}"
    return call


def _call_searchsorted(M, seq, values, *, right=False):
    return M.searchsorted(M.sort(seq).values, values, right=right)


_ROWS = {
    "gather": (_draw_gather, _gather_ref, None),
    "scatter": (_draw_scatter, _scatter_ref, None),
    "scatter_add": (_draw_scatter_add, _scatter_add_ref, None),
    "scatter_reduce": (_draw_scatter_reduce, _scatter_reduce_ref, None),
    "index_select": (_draw_index_select, _index_select_ref, None),
    "index_add": (_draw_index_add, _index_add_ref, None),
    "index_copy": (_draw_index_copy, _index_copy_ref, None),
    "index_fill": (_draw_index_fill, _index_fill_ref, None),
    "index": (_draw_index, _getitem_ref, _call_index),
    "index_put_": (_draw_index_put, lambda x, i, v, w, a: _setitem_ref(x, i, v, w, a), _call_index_put),
    "take": (_draw_take, _take_ref, None),
    "put": (_draw_put, _put_ref, None),
    "masked_fill": (_draw_masked_fill, _masked_fill_ref, None),
    "masked_select": (_draw_masked_select, _masked_select_ref, None),
    "masked_scatter": (_draw_masked_scatter, _masked_scatter_ref, None),
    "embedding": (_draw_embedding, _embedding_ref, _call_functional("embedding")),
    "bincount": (_draw_bincount, _bincount_ref, None),
    "searchsorted": (_draw_searchsorted, _searchsorted_ref, _call_searchsorted),
    "nll_loss": (_draw_nll_loss, _nll_loss_ref, _call_functional("nll_loss")),
    "cross_entropy": (_draw_cross_entropy, _cross_entropy_ref, _call_functional("cross_entropy")),
    "take_along_dim": (_draw_take_along_dim, _take_along_dim_ref, None),
    "one_hot": (_draw_one_hot, _one_hot_ref, _call_functional("one_hot")),
}
COMPOSITES = ("take_along_dim", "one_hot")  # public functions over other ops: rows without an Op of their own


def info(name: str) -> OpInfo:
    """The `OpInfo` row of indexing op `name` (what its `declare(..., info=)` passes)."""
    draw, ref, call = _ROWS[name]
    return OpInfo(kind="indexing", ref=ref, draw=draw, call=call, public=True, supports_out=False)


INFOS = {name: info(name) for name in COMPOSITES}
