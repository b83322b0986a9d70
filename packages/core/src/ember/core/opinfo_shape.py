"""The op table's rows for the shape family (kind "shape"): views, joins, splits and rearrangements
(view/reshape, permute, transpose, expand, squeeze/unsqueeze, flatten/unflatten, cat/stack,
split/chunk/narrow/select, flip, roll, repeat, tile, movedim, diagonal, tril/triu, unfold).

Rows follow `ember.core.opinfo_indexing` (a hypothesis `draw`, a numpy `ref` that returns an
`Expect` or raises `Invalid` with PyTorch's exception class, a `call`); a view's `Expect` has
`alias=0`: writing through the result must show in the input (`ember.core.fuzz_family`). Dims are
drawn in range mostly, else one step out on either side; sizes include 0, 1, -1 and incompatible
ones.
"""

from __future__ import annotations

import numpy as np

from ember.core.opinfo import OpInfo
from ember.core.opinfo_indexing import Expect, Invalid, Unchecked, _dt

__all__ = ["COMPOSITES", "INFOS", "info"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")
_DTYPES = ["float32"] * 4 + ["float64", "int64", "int32", "uint8", "bool", "float16", "bfloat16", "int8"]


def _view(value, dtype) -> Expect:
    e = Expect(value, dtype)
    e.alias = 0
    return e


def _wrap(d, n: int, extra: int = 0) -> int:
    """PyTorch's dim wrapping: IndexError outside [-n - extra, n + extra); a 0-dim tensor has dims -1, 0."""
    m = max(n + extra, 1)
    if not isinstance(d, int) or not -m <= d < m:
        raise Invalid("a dim out of range", IndexError)
    return d % m


def _infer(shape, numel: int) -> tuple:
    if sum(1 for s in shape if s == -1) > 1:
        raise Invalid("two inferred dims")
    if any(s < -1 for s in shape):
        raise Invalid("a negative size")
    known = int(np.prod([s for s in shape if s != -1]))
    if -1 in shape:
        if known == 0 or numel % known:
            raise Invalid("an inferred dim that does not divide")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise Invalid("a shape of another size")
    return tuple(shape)


def _contiguous(x) -> bool:
    return getattr(x, "fuzz_contiguous", True)


def _view_ref(x, shape):
    new = _infer(shape, x.size)
    if not _contiguous(x) and x.size > 1 and new != x.shape:
        raise Unchecked("a view of a non-contiguous input (viewable or not depends on its strides)")
    return _view(x.reshape(new), _dt(x))


def _reshape_ref(x, shape):
    return Expect(x.reshape(_infer(shape, x.size)), _dt(x))


def _permute_ref(x, dims):
    w = [_wrap(d, x.ndim) for d in dims]
    if len(dims) != x.ndim:
        raise Invalid("as many dims as the input's")
    if len(set(w)) != len(w):
        raise Invalid("a dim repeated")
    return _view(np.transpose(x, w) if x.ndim else x, _dt(x))


def _transpose_ref(x, d0, d1):
    a, b = _wrap(d0, x.ndim), _wrap(d1, x.ndim)
    return _view(np.swapaxes(x, a, b) if x.ndim else x, _dt(x))


def _expand_ref(x, sizes):
    if len(sizes) < x.ndim:
        raise Invalid("fewer sizes than dims")
    lead = len(sizes) - x.ndim
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise Invalid("-1 in a new leading dim")
            out.append(s)
            continue
        n = x.shape[i - lead]
        if s == -1:
            s = n
        if s < 0 or (n != 1 and s != n):
            raise Invalid("a size that does not match a non-singleton dim")
        out.append(s)
    return _view(np.broadcast_to(x, tuple(out)), _dt(x))


def _squeeze_ref(x, dim=None):
    if dim is None:
        return _view(np.squeeze(x), _dt(x))
    d = _wrap(dim, x.ndim)
    return _view(np.squeeze(x, d) if x.ndim and x.shape[d] == 1 else x, _dt(x))


def _unsqueeze_ref(x, dim):
    return _view(np.expand_dims(x, _wrap(dim, x.ndim, 1)), _dt(x))


def _flatten_ref(x, start_dim=0, end_dim=-1):
    s, e = _wrap(start_dim, x.ndim), _wrap(end_dim, x.ndim)
    if s > e:
        raise Invalid("start_dim after end_dim")
    if x.ndim == 0:
        return Expect(x.reshape(1), _dt(x))
    return Expect(x.reshape(x.shape[:s] + (int(np.prod(x.shape[s:e + 1])),) + x.shape[e + 1:]), _dt(x))


def _unflatten_ref(x, dim, sizes):
    if x.ndim == 0:
        raise Invalid("a 0-dim input", (IndexError, RuntimeError))
    d = _wrap(dim, x.ndim)
    new = _infer(sizes, x.shape[d]) if sizes else None
    if new is None:
        raise Invalid("no sizes")
    return Expect(x.reshape(x.shape[:d] + new + x.shape[d + 1:]), _dt(x))


def _promote(ts) -> str:
    from ember.core import dtypes

    dt = dtypes.as_dtype(_dt(ts[0]))
    for t in ts[1:]:
        dt = dtypes.promote_types(dt, dtypes.as_dtype(_dt(t)))
    return dt.name


def _cat_ref(tensors, dim=0):
    if not tensors:
        raise Invalid("no tensors", ValueError)
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]  # PyTorch's legacy empty (0,) skip
    if any(t.ndim == 0 for t in tensors):
        raise Invalid("a 0-dim tensor")
    ref = kept[0] if kept else tensors[0]
    d = _wrap(dim, ref.ndim)
    for t in kept:
        if t.ndim != ref.ndim:
            raise Invalid("tensors of two ranks")
        if any(a != b for k, (a, b) in enumerate(zip(t.shape, ref.shape, strict=True)) if k != d):
            raise Invalid("sizes that differ apart from dim")
    dt = _promote(tensors)
    if not kept:
        return Expect(np.zeros((0,)), dt)
    return Expect(np.concatenate([np.asarray(t, np.float64) for t in kept], d), dt)


def _stack_ref(tensors, dim=0):
    if not tensors:
        raise Invalid("no tensors", ValueError)
    d = _wrap(dim, tensors[0].ndim, 1)
    if any(t.shape != tensors[0].shape for t in tensors):
        raise Invalid("tensors of two shapes")
    return Expect(np.stack([np.asarray(t, np.float64) for t in tensors], d), _promote(tensors))


def _split_ref(x, split_size_or_sections, dim=0):
    if x.ndim == 0:
        raise Invalid("a 0-dim input", RuntimeError)
    d = _wrap(dim, x.ndim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, int):
        k = split_size_or_sections
        if k < 0 or (k == 0 and n):
            raise Invalid("a split size of 0 or less")
        bounds = list(range(0, n, k)) if k else [0]
        parts = [np.take(x, range(b, min(b + k, n)), d) for b in bounds] if n else [x]
    else:
        if sum(split_size_or_sections) != n or any(s < 0 for s in split_size_or_sections):
            raise Invalid("sections that do not add up to the dim")
        cuts = np.cumsum(split_size_or_sections)[:-1]
        parts = np.split(x, cuts, d)
    return _parts([np.asarray(p) for p in parts], _dt(x))


def _chunk_ref(x, chunks, dim=0):
    if x.ndim == 0:
        raise Invalid("a 0-dim input", RuntimeError)
    if chunks <= 0:
        raise Invalid("chunks of 0 or less")
    d = _wrap(dim, x.ndim)
    n = x.shape[d]
    k = -(-n // chunks) if n else 0
    if n == 0:
        return _parts([x] * chunks, _dt(x))  # PyTorch: `chunks` empty pieces of an empty dim
    return _parts([np.take(x, range(b, min(b + k, n)), d) for b in range(0, n, k)], _dt(x))


def _parts(arrays, dtype) -> Expect:
    e = Expect(arrays, dtype)
    e.alias = 0
    return e


def _narrow_ref(x, dim, start, length):
    if x.ndim == 0:
        raise Invalid("a 0-dim input")
    d = _wrap(dim, x.ndim)
    n = x.shape[d]
    if length < 0:
        raise Invalid("a negative length")
    if not -n <= start <= n:
        raise Invalid("start out of range", IndexError)
    start %= max(n, 1) if start < 0 else n + 1
    if length < 0 or start + length > n:
        raise Invalid("start + length past the dim")
    return _view(np.take(x, range(start, start + length), d), _dt(x))


def _select_ref(x, dim, index):
    if x.ndim == 0:
        raise Invalid("a 0-dim input", IndexError)
    d = _wrap(dim, x.ndim)
    n = x.shape[d]
    if not -n <= index < n:
        raise Invalid("an index out of range", IndexError)
    return _view(np.take(x, index % n, d), _dt(x))


def _flip_ref(x, dims):
    w = [_wrap(d, x.ndim) for d in dims]
    if len(set(w)) != len(w):
        raise Invalid("a dim repeated")
    return Expect(np.flip(x, w) if x.ndim else x.copy(), _dt(x))


def _roll_ref(x, shifts, dims=None):
    if dims is None:
        return Expect(np.roll(x.reshape(-1), shifts).reshape(x.shape), _dt(x))
    if x.ndim == 0:
        raise Invalid("dims of a 0-dim tensor", IndexError)
    if len(shifts) != len(dims):
        raise Invalid("shifts and dims that do not align")
    w = [_wrap(d, x.ndim) for d in dims]
    return Expect(np.roll(x, shifts, w) if x.ndim else x.copy(), _dt(x))


def _repeat_ref(x, sizes):
    if len(sizes) < x.ndim:
        raise Invalid("fewer repeats than dims")
    if any(s < 0 for s in sizes):
        raise Invalid("a negative repeat")
    return Expect(np.tile(x, sizes), _dt(x))


def _tile_ref(x, reps):
    if any(s < 0 for s in reps):
        raise Invalid("a negative repeat")
    return Expect(np.tile(x, tuple(reps)) if reps else x.copy(), _dt(x))


def _movedim_ref(x, source, destination):
    s = [source] if isinstance(source, int) else list(source)
    t = [destination] if isinstance(destination, int) else list(destination)
    if len(s) != len(t):
        raise Invalid("source and destination of two lengths")
    ws, wt = [_wrap(d, x.ndim) for d in s], [_wrap(d, x.ndim) for d in t]
    if len(set(ws)) != len(ws) or len(set(wt)) != len(wt):
        raise Invalid("a repeated dim")
    return _view(np.moveaxis(x, ws, wt) if x.ndim else x, _dt(x))


def _diagonal_ref(x, offset=0, dim1=0, dim2=1):
    a, b = _wrap(dim1, x.ndim), _wrap(dim2, x.ndim)
    if a == b:
        raise Invalid("identical dims")
    return _view(np.diagonal(x, offset, a, b), _dt(x))


def _tri_ref(lower):
    def ref(x, diagonal=0):
        if x.ndim < 2:
            raise Invalid("fewer than 2 dims")
        if _dt(x) == "bool" or x.size == 0:
            out = np.tril(x, diagonal) if lower else np.triu(x, diagonal)
        else:
            out = np.tril(x, diagonal) if lower else np.triu(x, diagonal)
        return Expect(out, _dt(x))
    return ref


def _unfold_ref(x, dimension, size, step):
    d = _wrap(dimension, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if size > n:
        raise Invalid("a window larger than the dim")
    if step <= 0:
        raise Invalid("a step of 0 or less")
    if size < 0:
        raise Invalid("a negative size", (RuntimeError, IndexError))
    if x.ndim == 0:
        return _view(x.reshape(1)[:size], _dt(x))
    count = (n - size) // step + 1
    wins = [np.take(x, range(i * step, i * step + size), d) for i in range(count)]
    out = np.stack(wins, d) if wins else np.zeros(x.shape[:d] + (0,) + x.shape[d + 1:] + (size,))
    return _view(np.moveaxis(out, d + 1, -1) if wins else out, _dt(x))


# --- drawing --------------------------------------------------------------------------------------
def _st():
    from hypothesis import strategies as st

    return st


def _shape(draw, lo=0, hi=4):
    st = _st()
    return tuple(draw(st.lists(st.sampled_from([0, 1, 1, 2, 3, 4]), min_size=lo, max_size=hi)))


def _x(draw, T, shape=None, dtype=None):
    st = _st()
    return draw(T.tensor(dtype or draw(st.sampled_from(_DTYPES)), _shape(draw) if shape is None else shape,
                         -4.0, 4.0))


def _dim(draw, nd: int, extra: int = 0):
    st = _st()
    m = max(nd + extra, 1)
    return draw(st.integers(-m, m - 1)) if draw(st.integers(0, 9)) else draw(st.sampled_from([m, -m - 1]))


def _case(name, *args, kwargs=()):
    from ember.core.fuzz import Case

    return Case(name, tuple(args), tuple(kwargs))


def _new_shape(draw, shape):
    """A shape for view/reshape: a factorisation of numel, with -1, or one of another size."""
    st = _st()
    n = int(np.prod(shape))
    cands = [(n,), (-1,), (1, n), (n, 1), (-1, 1), (1, -1), tuple(reversed(shape)) or (1,), (n + 1,), (-1, -1),
             (0, -1), (-2, n)]
    if n % 2 == 0 and n:
        cands += [(2, n // 2), (-1, 2), (2, -1, 1)]
    return draw(st.sampled_from(cands))


def _d_view(draw, T):
    shape = _shape(draw)
    return _case("view", _x(draw, T, shape), _new_shape(draw, shape))


def _d_reshape(draw, T):
    shape = _shape(draw)
    return _case("reshape", _x(draw, T, shape), _new_shape(draw, shape))


def _d_permute(draw, T):
    st = _st()
    shape = _shape(draw)
    dims = list(draw(st.permutations(range(len(shape)))))
    k = draw(st.integers(0, 5))
    if k == 0 and dims:
        dims[0] = dims[-1]  # repeated (or unchanged for one dim)
    elif k == 1:
        dims = dims + [0]
    elif k == 2 and dims:
        dims[-1] = len(shape)
    return _case("permute", _x(draw, T, shape), tuple(dims))


def _d_transpose(draw, T):
    shape = _shape(draw)
    return _case("transpose", _x(draw, T, shape), _dim(draw, len(shape)), _dim(draw, len(shape)))


def _d_expand(draw, T):
    st = _st()
    shape = _shape(draw)
    sizes = [draw(st.sampled_from([n, n, -1, 3])) if n == 1 else draw(st.sampled_from([n, n, n, -1, n + 1]))
             for n in shape]
    lead = draw(st.lists(st.sampled_from([1, 2, 0, -1]), max_size=2))
    if draw(st.integers(0, 9)) == 0 and sizes:
        sizes = sizes[1:]
    return _case("expand", _x(draw, T, shape), tuple(lead + sizes))


def _d_squeeze(draw, T):
    st = _st()
    shape = _shape(draw)
    if draw(st.booleans()):
        return _case("squeeze", _x(draw, T, shape))
    return _case("squeeze", _x(draw, T, shape), _dim(draw, len(shape)))


def _d_unsqueeze(draw, T):
    shape = _shape(draw)
    return _case("unsqueeze", _x(draw, T, shape), _dim(draw, len(shape), 1))


def _d_flatten(draw, T):
    shape = _shape(draw)
    return _case("flatten", _x(draw, T, shape), _dim(draw, len(shape)), _dim(draw, len(shape)))


def _d_unflatten(draw, T):
    st = _st()
    shape = _shape(draw, 1)
    d = _dim(draw, len(shape))
    n = shape[d % len(shape)] if -len(shape) <= d < len(shape) else 2
    sizes = draw(st.sampled_from([(n,), (1, n), (-1, 1), (n, -1), (n + 1,), (2, -1), (-1, -1)]))
    return _case("unflatten", _x(draw, T, shape), d, sizes)


def _join_parts(draw, T, stack: bool):
    st = _st()
    shape = _shape(draw, 1, 3)
    k = draw(st.integers(1, 3))
    d = _dim(draw, len(shape), 1 if stack else 0)
    dd = d % len(shape) if -len(shape) <= d < len(shape) else 0
    same = draw(st.integers(0, 3)) > 0
    dtype = draw(st.sampled_from(_DTYPES))
    parts = []
    for _ in range(k):
        s = list(shape)
        if not stack:
            s[dd] = draw(st.sampled_from([0, 1, 2]))
        if draw(st.integers(0, 9)) == 0:
            s = [n + 1 for n in s] if draw(st.booleans()) else [0]  # a mismatched or an empty (0,) tensor
        parts.append(_x(draw, T, tuple(s), dtype if same else None))
    return parts, d


def _d_cat(draw, T):
    parts, d = _join_parts(draw, T, False)
    return _case("cat", parts, d)


def _d_stack(draw, T):
    parts, d = _join_parts(draw, T, True)
    return _case("stack", parts, d)


def _d_split(draw, T):
    st = _st()
    shape = _shape(draw, 1)
    d = _dim(draw, len(shape))
    n = shape[d % len(shape)] if -len(shape) <= d < len(shape) else 2
    arg = draw(st.sampled_from([1, 2, 3, 0, (n,), (1, n - 1), (n, 1), (0, n)]))
    return _case("split", _x(draw, T, shape), arg, d)


def _d_chunk(draw, T):
    st = _st()
    shape = _shape(draw, 1)
    return _case("chunk", _x(draw, T, shape), draw(st.sampled_from([1, 2, 3, 5, 0])), _dim(draw, len(shape)))


def _d_narrow(draw, T):
    st = _st()
    shape = _shape(draw, 1)
    d = _dim(draw, len(shape))
    n = shape[d % len(shape)] if -len(shape) <= d < len(shape) else 2
    start = draw(st.sampled_from([0, 1, n, -1, n + 1, -n - 1]))
    return _case("narrow", _x(draw, T, shape), d, start, draw(st.sampled_from([0, 1, n, -1])))


def _d_select(draw, T):
    st = _st()
    shape = _shape(draw, 1)
    d = _dim(draw, len(shape))
    n = shape[d % len(shape)] if -len(shape) <= d < len(shape) else 2
    return _case("select", _x(draw, T, shape), d, draw(st.sampled_from([0, n - 1, -1, n, -n - 1])))


def _d_flip(draw, T):
    st = _st()
    shape = _shape(draw)
    return _case("flip", _x(draw, T, shape), tuple(_dim(draw, len(shape)) for _ in range(draw(st.integers(0, 2)))))


def _d_roll(draw, T):
    st = _st()
    shape = _shape(draw)
    if draw(st.integers(0, 3)) == 0:
        return _case("roll", _x(draw, T, shape), draw(st.sampled_from([1, -2, 7])))
    k = draw(st.integers(1, 2))
    shifts = tuple(draw(st.sampled_from([1, -1, 3, 0])) for _ in range(k if draw(st.integers(0, 9)) else k + 1))
    return _case("roll", _x(draw, T, shape), shifts, tuple(_dim(draw, len(shape)) for _ in range(k)))


def _d_repeat(draw, T):
    st = _st()
    shape = _shape(draw, 0, 3)
    sizes = tuple(draw(st.lists(st.sampled_from([1, 2, 0, 3, -1] if not draw(st.integers(0, 9)) else [1, 2, 0, 3]),
                                min_size=max(len(shape) - (draw(st.integers(0, 9)) == 0), 0), max_size=len(shape) + 1)))
    return _case("repeat", _x(draw, T, shape), sizes)


def _d_tile(draw, T):
    st = _st()
    shape = _shape(draw, 0, 3)
    return _case("tile", _x(draw, T, shape), tuple(draw(st.lists(st.sampled_from([1, 2, 0, 3]), max_size=3))))


def _d_movedim(draw, T):
    st = _st()
    shape = _shape(draw, 1)
    if draw(st.booleans()):
        return _case("movedim", _x(draw, T, shape), _dim(draw, len(shape)), _dim(draw, len(shape)))
    k = draw(st.integers(1, 2))
    return _case("movedim", _x(draw, T, shape), tuple(_dim(draw, len(shape)) for _ in range(k)),
                 tuple(_dim(draw, len(shape)) for _ in range(k)))


def _d_diagonal(draw, T):
    st = _st()
    shape = _shape(draw, 2)
    return _case("diagonal", _x(draw, T, shape), draw(st.sampled_from([0, 1, -1, 5])), _dim(draw, len(shape)),
                 _dim(draw, len(shape)))


def _d_tri(name):
    def d(draw, T):
        st = _st()
        return _case(name, _x(draw, T, _shape(draw, 1, 3)), draw(st.sampled_from([0, 1, -1, 4, -4])))
    return d


def _d_unfold(draw, T):
    st = _st()
    shape = _shape(draw, 0, 3)
    d = _dim(draw, len(shape))
    n = shape[d % max(len(shape), 1)] if shape and -len(shape) <= d < len(shape) else 1
    return _case("unfold", _x(draw, T, shape), d, draw(st.sampled_from([0, 1, 2, n, n + 1])),
                 draw(st.sampled_from([1, 1, 2, 0])))


# --- calls --------------------------------------------------------------------------------------
def _method(name):
    def call(M, x, *args):
        return getattr(x, name)(*args)

    call.__name__ = f"_call_{name}"
    return call


def _call_view(M, x, shape):
    return x.view(*shape)


def _call_reshape(M, x, shape):
    return x.reshape(*shape)


def _call_split(M, x, arg, dim):
    return tuple(x.split(list(arg) if isinstance(arg, tuple) else arg, dim))


def _call_chunk(M, x, chunks, dim):
    return tuple(x.chunk(chunks, dim))


_ROWS = {
    "view": (_d_view, _view_ref, _call_view),
    "reshape": (_d_reshape, _reshape_ref, _call_reshape),
    "permute": (_d_permute, _permute_ref, _method("permute")),
    "transpose": (_d_transpose, _transpose_ref, _method("transpose")),
    "expand": (_d_expand, _expand_ref, _method("expand")),
    "squeeze": (_d_squeeze, _squeeze_ref, _method("squeeze")),
    "unsqueeze": (_d_unsqueeze, _unsqueeze_ref, _method("unsqueeze")),
    "flatten": (_d_flatten, _flatten_ref, _method("flatten")),
    "unflatten": (_d_unflatten, _unflatten_ref, _method("unflatten")),
    "cat": (_d_cat, _cat_ref, None),
    "stack": (_d_stack, _stack_ref, None),
    "split": (_d_split, _split_ref, _call_split),
    "chunk": (_d_chunk, _chunk_ref, _call_chunk),
    "narrow": (_d_narrow, _narrow_ref, _method("narrow")),
    "select": (_d_select, _select_ref, _method("select")),
    "flip": (_d_flip, _flip_ref, _method("flip")),
    "roll": (_d_roll, _roll_ref, _method("roll")),
    "repeat": (_d_repeat, _repeat_ref, _method("repeat")),
    "tile": (_d_tile, _tile_ref, _method("tile")),
    "movedim": (_d_movedim, _movedim_ref, _method("movedim")),
    "diagonal": (_d_diagonal, _diagonal_ref, _method("diagonal")),
    "tril": (_d_tri("tril"), _tri_ref(True), _method("tril")),
    "triu": (_d_tri("triu"), _tri_ref(False), _method("triu")),
    "unfold": (_d_unfold, _unfold_ref, _method("unfold")),
}


def info(name: str) -> OpInfo:
    """The `OpInfo` row of shape op `name`."""
    draw, ref, call = _ROWS[name]
    return OpInfo(kind="shape", ref=ref, draw=draw, call=call, public=True, supports_out=False)


# the registered ops (view, permute, transpose, expand, squeeze, unsqueeze, select, narrow, unfold, diagonal,
# cat, flip, tril, triu) carry their row through `declare(..., info=)`; these public functions have no Op
COMPOSITES = ("reshape", "flatten", "unflatten", "stack", "split", "chunk", "roll", "repeat", "tile", "movedim")
INFOS = {name: info(name) for name in COMPOSITES}
