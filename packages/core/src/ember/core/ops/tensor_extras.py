"""More of PyTorch's long tail: `renorm`, `gradient` (numpy.gradient's finite differences), `histogram`/
`histogramdd`, `torch.vander`, `nonzero_static`, `as_strided_scatter`, a few Tensor methods and
the global switches (`set_warn_always`, the deterministic debug mode, `set_flush_denormal`).

`renorm`, `gradient`, `vander` and `as_strided_scatter` are composed of differentiable ops; the
histograms are counts, computed on the host with numpy, as PyTorch's CPU-only kernels are.
"""

from __future__ import annotations

import builtins as _builtins
import math
import numbers
import warnings

import numpy as np
from ember.core import dtypes
from ember.core.creation import from_numpy, full, linspace
from ember.core.dispatch import node_name
from ember.core.methods import attach, inplace, method, numpy_aliases
from ember.core.ops import elementwise as ew
from ember.core.ops import join as J
from ember.core.ops import layout as L
from ember.core.ops import _util
from ember.core.ops import shape as S
from ember.core.ops.activation import hardshrink, prelu
from ember.core.ops.indexing import check_source_dtype, check_source_slices, nonzero, scatter_reduce
from ember.core.ops.linalg import linalg
from ember.core.ops.parser_errors import overloads
from ember.core.ops.structseq import return_type
from ember.core.tensor import Tensor

__all__ = ["renorm", "index_reduce", "hash_tensor", "segment_reduce", "gradient", "histogram", "histogramdd",
           "vander", "nonzero_static",
           "as_strided_scatter", "slice_inverse",
           "set_warn_always", "is_warn_always_enabled", "get_deterministic_debug_mode",
           "set_deterministic_debug_mode", "set_flush_denormal", "init_num_threads", "is_distributed", "from_file"]

_Histogram = return_type("histogram", ["hist", "bin_edges"])
_HistogramDD = return_type("histogramdd", ["hist", "bin_edges"])


@method
def renorm(input: Tensor, p: float, dim: int, maxnorm: float, *, out: Tensor | None = None) -> Tensor:
    """Each slice along `dim` whose `p`-norm exceeds `maxnorm` scaled down to norm `maxnorm`
    (by `maxnorm / (norm + 1e-7)`, as PyTorch). A 16-bit input's norm and factor are float32, the factor rounded
    once to the dtype; the result is row-major whatever the input's layout (PyTorch's structured output)."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")  # C++'s stream format
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = input._wrap_dim(dim)
    others = tuple(i for i in range(input.ndim) if i != d)
    half = input._dtype in (dtypes.float16, dtypes.bfloat16)
    norm = linalg.vector_norm(input, p, others, True, dtype=dtypes.float32 if half else None)
    factor = ew.where(ew.gt(norm, maxnorm), ew.div(maxnorm, ew.add(norm, 1e-7)), 1.0)
    if half:
        factor = factor.to(input._dtype)
    r = node_name(ew.mul(L.contiguous(input), factor), "MulBackward0", "RenormBackward0")
    if out is not None:
        return S.copy_(out, r)
    return r


inplace(renorm)


def _check_coordinates(spacing: Tensor) -> Tensor:
    """One dim's sample coordinates: a 1-D tensor. PyTorch does not check its length against the dim's size:
    the weights' broadcast with the samples raises (or, for three coordinates, broadcasts), and so here."""
    if spacing.ndim != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                           f"element with {spacing.ndim} dimensions!")
    return spacing


def _diff_along(y: Tensor, spacing, dim: int, edge_order: int) -> Tensor:
    """PyTorch's gradient along `dim` with its operation order (so its roundings): a number's uniform step
    divides differences; coordinates give three-point weights computed in their own dtype."""
    n = y._shape[dim]

    def f(i, k=1):
        return S.narrow(y, dim, i if i >= 0 else n + i, k)

    if not isinstance(spacing, Tensor):
        h = complex(spacing) if isinstance(spacing, complex | np.complexfloating) else float(spacing)
        interior = ew.div(ew.div(ew.sub(f(2, n - 2), f(0, n - 2)), h), 2)
        if edge_order == 1:
            first = ew.div(ew.sub(f(1), f(0)), h)
            last = ew.div(ew.sub(f(-1), f(-2)), h)
        else:
            first = ew.div(ew.sub(ew.add(ew.mul(f(0), -1.5), ew.mul(f(1), 2)), ew.mul(f(2), 0.5)), h)
            last = ew.div(ew.add(ew.sub(ew.mul(f(-3), 0.5), ew.mul(f(-2), 2)), ew.mul(f(-1), 1.5)), h)
        return J.cat([first, interior, last], dim)
    view = [1] * y.ndim
    view[dim] = -1

    def c(t):
        return S.view(t, tuple(view))

    dx = ew.sub(spacing[1:], spacing[:-1])  # (n - 1)
    d1, d2 = dx[:-1], dx[1:]  # backward and forward steps at the interior points
    a = c(ew.div(ew.neg(d2), ew.mul(d1, ew.add(d1, d2))))
    b = c(ew.div(ew.sub(d2, d1), ew.mul(d1, d2)))
    cc = c(ew.div(d1, ew.mul(d2, ew.add(d1, d2))))
    interior = ew.add(ew.add(ew.mul(a, f(0, n - 2)), ew.mul(b, f(1, n - 2))), ew.mul(cc, f(2, n - 2)))
    if edge_order == 1:
        first = ew.div(ew.sub(f(1), f(0)), dx[0])
        last = ew.div(ew.sub(f(-1), f(-2)), dx[-1])
    else:
        d1, d2 = dx[0], dx[1]
        a = ew.neg(ew.div(ew.add(ew.mul(d1, 2.0), d2), ew.mul(d1, ew.add(d1, d2))))
        b = ew.div(ew.add(d1, d2), ew.mul(d1, d2))
        cc = ew.div(ew.neg(d1), ew.mul(d2, ew.add(d1, d2)))
        first = ew.add(ew.add(ew.mul(a, f(0)), ew.mul(b, f(1))), ew.mul(cc, f(2)))
        d1, d2 = dx[-2], dx[-1]
        a = ew.div(d2, ew.mul(d1, ew.add(d2, d1)))
        b = ew.neg(ew.div(ew.add(d2, d1), ew.mul(d2, d1)))
        cc = ew.div(ew.add(ew.mul(d2, 2), d1), ew.mul(d2, ew.add(d2, d1)))
        last = ew.add(ew.add(ew.mul(a, f(-3)), ew.mul(b, f(-2))), ew.mul(cc, f(-1)))
    return J.cat([first, interior, last], dim)


_GRADIENT_OVERLOADS = [
    "(Tensor input, *, tuple of ints dim, int edge_order = 1)",
    "(Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)",
    "(Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1)",
    "(Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1)",
    "(Tensor input, *, tuple of Scalars spacing, tuple of ints dim, int edge_order = 1)",
    "(Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1)",
    "(Tensor input, *, tuple of Tensors spacing, tuple of ints dim, int edge_order = 1)"]


def _spacing_invalid(args: tuple, kwargs: dict) -> bool:
    """Whether `spacing` is none of PyTorch's kinds: a number (a 0-dim tensor is one), a sequence, or None."""
    s = kwargs.get("spacing")
    if isinstance(s, Tensor):
        return s.ndim != 0
    return not (s is None or isinstance(s, numbers.Number | list | tuple))


def _check_spacing_elements(spacing: list | tuple) -> None:
    """A sequence that is not all numbers is PyTorch's "tuple of Tensors": its parser names the first element that
    is not a tensor (`[1.0, t]` fails at element 0)."""
    if all(isinstance(v, numbers.Number) for v in spacing):
        return
    for i, v in enumerate(spacing):
        if not isinstance(v, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {_util.tp_name(v)}")


@overloads("gradient", _GRADIENT_OVERLOADS, _spacing_invalid)
@numpy_aliases
def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """The derivative estimate along each of `dim` (all dims by default) by central differences inside
    and one-sided ones (first or second order, `edge_order`) at the ends, as numpy.gradient; `spacing`
    is a number, one number per dim, or one coordinate tensor per dim.

    >>> from ember.core import gradient, tensor
    >>> gradient(tensor([1.0, 4.0, 9.0, 16.0]))
    (tensor([3., 4., 6., 7.]),)
    """
    if input._dtype == dtypes.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, numbers.Integral) else list(dim)
    if spacing is None:
        spacing = 1
    if isinstance(spacing, list | tuple):
        _check_spacing_elements(spacing)
    if isinstance(spacing, list | tuple) and len(spacing) != len(dims):
        if dim is None:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                               f"to 'self.dim() = {input.ndim}', since dim argument was not given, but got a list of "
                               f"length {len(spacing)}")
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {len(spacing)} "
                           f"and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = [input._wrap_dim(d) for d in dims]
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if any(input._shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    if isinstance(spacing, Tensor) and spacing.ndim == 0:  # a 0-dim tensor is a number, as PyTorch's binding
        spacing = spacing.item()
    spacings = list(spacing) if isinstance(spacing, list | tuple) else [spacing] * len(dims)
    if input._dtype is dtypes.bool:  # PyTorch's differences are `-` of bool tensors
        raise ew.BoolOperatorError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                                   "Use the `^` or `logical_xor()` operator instead.")
    y = input if input._dtype.is_floating_point or input._dtype.is_complex else \
        S.to_dtype(input, dtypes.get_default_dtype())
    out = []
    for d, sp in zip(dims, spacings, strict=True):
        sp = _check_coordinates(sp) if isinstance(sp, Tensor) else sp
        out.append(_diff_along(y, sp, d, edge_order))
    return tuple(out)


def _host(x: Tensor, op: str) -> np.ndarray:
    if x.device.type != "cpu":
        raise NotImplementedError(f"{op}: PyTorch computes it on the CPU only; move the tensor with .cpu() first")
    return x._np()


def _as_range(range_):
    return None if range_ is None else tuple(float(v) for v in range_)


def _check_ranges(pairs) -> None:
    """PyTorch's refusal of a (min, max) pair with min above max, naming its dimension."""
    for i, (lo, hi) in enumerate(pairs):
        if float(lo) > float(hi):
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_num(lo)} max {_num(hi)} "
                               f"for dimension {i}")


def _check_finite_ranges(pts: np.ndarray, ranges) -> None:
    """PyTorch's refusal of a dimension whose range (given, or its data's min and max, NaN when one is NaN) is
    not finite; `pts` is (N, D), `ranges` None or one (min, max) pair per dimension."""
    for i in _builtins.range(pts.shape[1]):
        if ranges is not None:
            lo, hi = (float(v) for v in ranges[i])
        elif pts.shape[0]:
            col = pts[:, i]
            lo, hi = (float("nan"),) * 2 if np.isnan(col).any() else (float(col.min()), float(col.max()))
        else:
            continue
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {i}'s range [{_num(lo)}, {_num(hi)}] is not finite")


def _num(v) -> str:
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)


def _check_histogram_dtypes(input: Tensor, edges: list) -> None:
    """PyTorch's refusals: bin edges of another dtype than input's, then any input but float32/float64."""
    names = {"float32": "float", "float64": "double", **_util._CPP_TYPE_NAMES}
    for i, e in enumerate(edges):
        if e._dtype != input._dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {names.get(input._dtype.name, input._dtype.name)} and bins for "
                               f"dimension {i} with dtype {names.get(e._dtype.name, e._dtype.name)}")
    if input._dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{dtypes.TORCH_NAMES[input._dtype.name]}'")


def _check_weight(input: Tensor, weight: Tensor | None, points: tuple, weight_shape: tuple) -> None:
    """PyTorch's refusals of a weight: another dtype than input's, or a shape other than the points' (input's
    shape but its innermost dim; `points` and `weight_shape` are the shapes its message names)."""
    if weight is None:
        return
    if weight._dtype != input._dtype:
        names = {"float32": "float", "float64": "double", **_util._CPP_TYPE_NAMES}
        i, w = (names.get(t._dtype.name, t._dtype.name) for t in (input, weight))
        raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
                           f"have the same dtype, but got input({i}), and weight({w})")
    if tuple(weight_shape) != tuple(points[:-1]):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the input "
                           "tensor excluding its innermost dimension, but got input with shape "
                           f"{list(points)} and weight with shape {list(weight_shape)}")


def _check_bin_counts(counts: list) -> None:
    """PyTorch's refusal of an empty dimension: a count below 1, or an edges tensor of fewer than 2 elements."""
    for i, n in enumerate(counts):
        if n <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {n} for dimension {i}")


def _upper_bound(edges: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """`std::upper_bound`'s halving search of each value in `edges`, step for step as PyTorch's kernel runs it, so
    edges that do not increase bin as PyTorch's do (numpy refuses them); on increasing edges, searchsorted's right."""
    first = np.zeros(vals.shape, np.int64)
    length = np.full(vals.shape, edges.size, np.int64)
    while (length > 0).any():
        half = length >> 1
        middle = first + half
        left = vals < edges[np.minimum(middle, edges.size - 1)]
        active = length > 0
        first = np.where(active & ~left, middle + 1, first)
        length = np.where(active, np.where(left, half, length - half - 1), 0)
    return first


def _search_histogram(pts: np.ndarray, edges: list, weight: np.ndarray | None) -> np.ndarray:
    """The counts (or summed weights) of the points (N, D) in the bins that given edges bound, as PyTorch's
    binary-search kernel counts them: a point outside [first edge, last edge] in any dimension is dropped, and the
    last bin holds its right edge."""
    keep = np.ones(pts.shape[0], bool)
    pos = []
    for i, e in enumerate(edges):
        col = pts[:, i]
        keep &= (col >= e[0]) & (col <= e[-1])
        p = _upper_bound(e, col) - 1
        pos.append(np.where(p == e.size - 1, p - 1, p))
    shape = tuple(e.size - 1 for e in edges)
    flat = np.ravel_multi_index(tuple(p[keep] for p in pos), shape) if keep.any() else np.zeros(0, np.int64)
    w = None if weight is None else weight[keep]
    return np.bincount(flat, weights=w, minlength=math.prod(shape)).astype(np.float64).reshape(shape)


def _uniform_edges(edges: np.ndarray, dtype) -> np.ndarray:
    """Equal bins' edges as PyTorch computes them: its `linspace` in input's dtype (numpy's are float64)."""
    return linspace(float(edges[0]), float(edges[-1]), len(edges), dtype=dtype)._np()


def _density(hist: np.ndarray, edges: list) -> np.ndarray:
    """A histogram normalised as PyTorch does it, in its own dtype: divided by its sum, then by each dimension's
    bin widths in turn (numpy's float64 quotient can round the other way)."""
    hist = hist / hist.dtype.type(hist.sum())
    for dim, e in enumerate(edges):
        shape = [1] * hist.ndim
        shape[dim] = e.size - 1
        hist = hist / np.diff(e).reshape(shape)
    return hist


@method
def histogram(input: Tensor, bins=100, *, range=None, weight: Tensor | None = None,  # noqa: A002
              density: bool = False, out=None):
    """`(hist, bin_edges)`: counts (or weights, or a density) of input's elements in `bins` equal bins over
    `range` (input's min and max by default), or in the bins that the edges tensor `bins` bounds."""
    _check_histogram_dtypes(input, [bins] if isinstance(bins, Tensor) else [])
    _check_bin_counts([bins.numel() - 1 if isinstance(bins, Tensor) else int(bins)])
    if range is not None:
        _check_ranges([range])
    if weight is not None:  # PyTorch flattens both: the points are (numel, 1), the weight (numel,)
        _check_weight(input, weight, (input.numel(), 1), (weight.numel(),))
    a = _host(input, "histogram").reshape(-1)
    if not isinstance(bins, Tensor):
        _check_finite_ranges(a.reshape(-1, 1), None if range is None else [range])
    b = _host(bins, "histogram") if isinstance(bins, Tensor) else \
        _uniform_edges(np.histogram_bin_edges(a, int(bins), _as_range(range)), input._dtype)
    w = None if weight is None else _host(weight, "histogram").reshape(-1)
    # one bin per point, as PyTorch's kernel (numpy's weighted histogram differences a cumulative sum, so a NaN
    # weight would spoil every later bin)
    hist, edges = _search_histogram(a.reshape(-1, 1), [b], w).reshape(-1), b
    hist, edges = hist.astype(input._dtype.np), edges.astype(input._dtype.np)
    if density:
        hist = _density(hist, [edges])
    return _Histogram(from_numpy(hist), from_numpy(edges))


def histogramdd(input: Tensor, bins=10, *, range=None, weight: Tensor | None = None,  # noqa: A002
                density: bool = False):
    """`(hist, bin_edges)` of the points input (*, D) in D dimensions: `bins` is a count, one count per
    dimension, or one edges tensor per dimension; `range` is (min, max) pairs flattened."""
    edges = list(bins) if isinstance(bins, list | tuple) and bins and isinstance(bins[0], Tensor) else []
    _check_histogram_dtypes(input, edges)
    d = input._shape[-1]
    if edges and len(edges) != d:
        raise RuntimeError(f"torch.histogramdd: expected {d} sequences of bin edges for a {d}-dimensional histogram "
                           f"but got {len(edges)}")
    if isinstance(bins, list | tuple) and not edges and len(bins) != d:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    _check_bin_counts([e.numel() - 1 for e in edges] if edges else
                      [int(n) for n in bins] if isinstance(bins, list | tuple) else [int(bins)] * d)
    if range is not None and len(range) != 2 * d:
        raise RuntimeError(f"torch.histogramdd: for a {d}-dimensional histogram range should have {2 * d} elements, "
                           f"but got {len(range)}")
    if range is not None:
        _check_ranges([range[i:i + 2] for i in _builtins.range(0, len(range), 2)])
    _check_weight(input, weight, input._shape, None if weight is None else weight._shape)
    a = _host(input, "histogramdd")
    pts = a.reshape(-1, a.shape[-1])
    rng = None if range is None else [tuple(range[i:i + 2]) for i in _builtins.range(0, len(range), 2)]
    counts = bins if isinstance(bins, list | tuple) else [bins] * d
    if not edges:
        _check_finite_ranges(pts, rng)
    b = [_host(e, "histogramdd") for e in edges] if edges else \
        [_uniform_edges(np.histogram_bin_edges(pts[:, i], int(counts[i]), None if rng is None else rng[i]),
                        input._dtype) for i in _builtins.range(d)]
    w = None if weight is None else _host(weight, "histogramdd").reshape(-1)
    hist, edges = (_search_histogram(pts, b, w), b) if edges else np.histogramdd(pts, bins=b, range=rng, weights=w)
    hist, edges = hist.astype(input._dtype.np), [e.astype(input._dtype.np) for e in edges]
    if density:
        hist = _density(hist, edges)
    return _HistogramDD(from_numpy(hist), tuple(from_numpy(e) for e in edges))


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """`torch.vander`: the Vandermonde matrix of the 1-D x, powers decreasing left to right unless
    `increasing` (`linalg.vander` increases)."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    from ember.core.ops.linalg_composite import vandermonde

    r = vandermonde(x, x._shape[-1] if N is None else N)  # N = 0 or 1 too, which linalg.vander refuses
    return r if increasing else J.flip(r, (-1,))


@method
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """`nonzero`'s (n, ndim) indices padded with `fill_value` or cut to exactly `size` rows."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")  # PyTorch 2.13's words
    idx = nonzero(input)
    n = idx._shape[0]
    if n >= size:
        return idx[:size]
    pad = full((size - n, input.ndim), fill_value, dtype=dtypes.int64, device=input.device)
    return J.cat([idx, pad], 0)


@method
def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A copy of input with `src` written into the `as_strided(size, stride, storage_offset)` view of it."""
    r = L.clone(input)
    S.copy_(L.as_strided(r, tuple(size), tuple(stride), storage_offset), src)
    return r


@method
def slice_inverse(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """The inverse of slicing (functionalization's view replay): `input` is the slice `dim`, `start:end:step` of
    `src`, and the result is a view of input's storage with src's sizes, strides and offset, as PyTorch's.
    Where either requires grad it is instead src with that slice replaced by input (the same values), whose
    gradient is PyTorch's: the slice's part to input, the rest to src.

    >>> from ember.core import arange
    >>> x = arange(6.0)
    >>> x[2:4].slice_inverse(x, 0, 2, 4).tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    """
    if input._requires_grad or src._requires_grad:
        return J.slice_scatter(src, input, dim, start, end, step)
    return L.as_strided(input, src._shape, src._strides, src._offset)


@method
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True,
                 out: Tensor | None = None) -> Tensor:
    """input with the slices of `source` reduced (prod, mean, amax or amin) into the slices at `index`
    along `dim`; `include_self=False` leaves input's own values out of the slices it reduces into."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if index._dtype not in (dtypes.int64, dtypes.int32):  # a float index would be truncated silently
        name = dtypes.TORCH_NAMES.get(index._dtype.name, index._dtype.name)
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {name}")
    _check_index_reduce_shapes(input, dim, index, source)
    _util.warn_once(_util.internally("index_reduce() is in beta and the API may change at any time.",
                                     "aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523"))
    _util.check_out_dtype(out, input._dtype)
    if input._dtype is dtypes.bool or input._dtype.is_complex:  # PyTorch's CPU kernels take neither
        kernel = "index_func_" if include_self else "index_reduce_func_exclude_input_init"
        raise ew.DtypeNotSupported(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[input._dtype.name]}'")
    d = input._wrap_dim(dim)
    if index.numel():  # PyTorch wraps no negative index here
        if int(index.min()) < 0 or int(index.max()) >= (input._shape[d] if input.ndim else 1):
            raise IndexError("index out of range in self")
    view = [1] * source.ndim
    if view:  # a 0-d source takes its one index as a 0-d tensor
        view[d] = -1
    idx = L.expand(S.view(S.to_dtype(index, dtypes.int64), tuple(view)), source._shape)
    base = S.clone(input) if out is input else input  # in place: autograd keeps what the write overwrites
    r = node_name(scatter_reduce(base, d, idx, source, reduce, include_self=include_self), "ScatterReduceBackward0",
                  "IndexReduceBackward0")
    if reduce in ("prod", "mean") and r._dtype in (dtypes.float16, dtypes.bfloat16) and r.device.type == "cpu" \
            and r.ndim and index.numel():
        r._np()[...] = _index_reduce_16bit(input._np(), d, index._np().reshape(-1), source._np(), reduce,
                                           include_self)
    return r if out is None else node_name(S.copy_(out, r), "CopyBackwards", "IndexReduceBackward0")


inplace(index_reduce)


def _check_index_reduce_shapes(input: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    """PyTorch's index_func_meta_impl checks, in its order (a source of another shape would broadcast here)."""
    check_source_dtype("index_reduce_", input, source)
    check_source_slices("index_reduce_", input, input._wrap_dim(dim), index, source)


def _index_reduce_16bit(x: np.ndarray, d: int, index: np.ndarray, src: np.ndarray, reduce: str,
                        include_self: bool) -> np.ndarray:
    """PyTorch's CPU index_reduce of a 16-bit tensor: one slice of `src` at a time, in index order, each product or
    sum computed in float32 and rounded to the dtype (scatter_reduce, which `index_reduce` is composed over,
    rounds once); a mean divides by its count in the dtype at the end."""
    from ember.core.ops.scatter_cpu import ADD, MUL, apply_stepwise

    work = np.ascontiguousarray(np.moveaxis(x, d, 0)).copy()
    src = np.ascontiguousarray(np.moveaxis(src, d, 0))
    f32 = np.float32
    if not include_self:
        work[index] = 1 if reduce == "prod" else 0
    row = math.prod(work.shape[1:])
    offs = (index.astype(np.int64)[:, None] * row + np.arange(row)).reshape(-1)
    apply_stepwise(work.reshape(-1), offs, src.reshape(-1), MUL if reduce == "prod" else ADD)
    if reduce == "mean":
        counts = np.full(work.shape[0], 1 if include_self else 0, np.int64)
        np.add.at(counts, index, 1)
        # PyTorch counts in the dtype (index_add_ of ones): a count stops at 2**(mantissa bits + 1), where adding 1
        # rounds back to it (256 in bfloat16, 2048 in float16)
        counts = np.minimum(counts, 2 ** (np.finfo(work.dtype).nmant + 1))
        counts = np.maximum(counts, 1).astype(f32).reshape((-1,) + (1,) * (work.ndim - 1))
        work = (work.astype(f32) / counts).astype(work.dtype)
    return np.moveaxis(work, 0, d)


@method
def hash_tensor(input: Tensor, dim=None, *, keepdim: bool = False, mode: int = 0) -> Tensor:
    """The xor of input's elements over `dim` (all by default), each widened to 64 bits (float64, int64 or
    uint64) and read as uint64: a uint64 tensor, as `torch.hash_tensor` (computed on the host)."""
    if mode != 0:
        raise RuntimeError(f"hash_tensor: only mode=0 (xor reduction) is supported; got mode={mode}")
    if input._dtype.is_complex:
        raise ew.DtypeNotSupported(f"\"xor_sum_cpu\" not implemented for '{dtypes.TORCH_NAMES[input._dtype.name]}'")
    a = input._host_array()
    wide = np.float64 if a.dtype.kind in "fV" else np.uint64 if a.dtype.kind in "bu" else np.int64
    bits = np.ascontiguousarray(a.astype(wide)).view(np.uint64)
    axes = None if dim is None else tuple(d % max(input.ndim, 1) for d in ((dim,) if isinstance(dim, int) else dim))
    r = np.bitwise_xor.reduce(bits, axis=axes, keepdims=keepdim) if bits.size else \
        np.zeros(() if axes is None else [s for i, s in enumerate(bits.shape) if i not in axes], np.uint64)
    return from_numpy(np.asarray(r, dtype=np.uint64)).to(input.device)


_SEGMENT_EMPTY = {"sum": 0.0, "mean": float("nan"), "max": float("-inf"), "min": float("inf"), "prod": 1.0}


def segment_reduce(data: Tensor, reduce: str, *, lengths: Tensor | None = None, indices=None,
                   offsets: Tensor | None = None, axis: int = 0, unsafe: bool = False, initial=None) -> Tensor:
    """Reduce consecutive segments of `data` along `axis` (sizes from `lengths`, or bounds from `offsets`, whose
    last dim is `axis` and whose leading dims index data's) with sum, mean, max, min or prod; `initial` joins every
    segment (mean divides by the segment's length only); an empty segment without it gives the reduction's
    identity (NaN for mean)."""
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    reduce = {"amax": "max", "amin": "min"}.get(reduce, reduce)
    if reduce not in _SEGMENT_EMPTY:  # PyTorch's words (it takes max/min and amax/amin alike)
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if offsets is not None:  # PyTorch reads the offsets when given both
        lengths = None
    bounds = (lengths if lengths is not None else offsets)
    ax = data._wrap_dim(axis)
    if ax != bounds.ndim - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {ax}.")
    if bounds._dtype not in (dtypes.int32, dtypes.int64):
        from ember.core.ops.numeric import not_implemented_for

        kind = "lengths" if lengths is not None else "offsets"
        raise not_implemented_for(f"_segment_reduce_{kind}_cpu_kernel1", bounds._dtype)
    rows = np.asarray(bounds.tolist(), dtype=np.int64).reshape(-1, bounds._shape[-1])
    if lengths is not None:
        starts = np.cumsum(rows, 1) - rows
        sizes = rows
    else:
        starts, sizes = rows[:, :-1], np.diff(rows, axis=1)
    if not unsafe and starts.shape[1] and (starts[:, -1] + sizes[:, -1] != data._shape[ax]).any():
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")
    if data._dtype not in (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64):
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for("_segment_reduce_cpu", data._dtype)
    if ax == 0:
        out = _segments(data, starts[0].tolist(), sizes[0].tolist(), reduce, initial)
        return node_name(out, "StackBackward0", "SegmentReduceBackward0")  # PyTorch's one node
    flat = L.reshape(data, (-1,) + data._shape[ax:])  # one row of data per row of bounds
    out = J.stack([_segments(flat[r], starts[r].tolist(), sizes[r].tolist(), reduce, initial)
                   for r in range(rows.shape[0])])
    out = L.reshape(out, data._shape[:ax] + out._shape[1:])
    for made in ("ViewBackward0", "UnsafeViewBackward0"):
        out = node_name(out, made, "SegmentReduceBackward0")
    return out


def _segments(data: Tensor, starts: list, sizes: list, reduce: str, initial) -> Tensor:
    """segment_reduce of one row: `reduce` over data[a:a + n] for each start a and size n, stacked on dim 0."""
    pieces = []
    for a, n in zip(starts, sizes, strict=True):
        seg = S.narrow(data, 0, a, n)
        if initial is not None and reduce != "mean":
            seg = J.cat([seg, full((1,) + data._shape[1:], initial, dtype=data._dtype, device=data.device)], 0)
        if seg._shape[0] == 0:
            fill = _SEGMENT_EMPTY[reduce] if initial is None else initial
            pieces.append(full(data._shape[1:], fill, dtype=data._dtype, device=data.device))
            continue
        if reduce == "mean":
            total = seg.sum(0)
            r = ew.div(total if initial is None else ew.add(total, initial), n)
        else:
            r = {"sum": lambda t: t.sum(0), "prod": lambda t: t.prod(0), "max": lambda t: t.amax(0),
                 "min": lambda t: t.amin(0)}[reduce](seg)
        pieces.append(r)
    return J.stack(pieces, 0)


# --- Tensor methods -------------------------------------------------------------------------------
def _autograd_resize(self: Tensor, sizes) -> Tensor:
    """PyTorch's autograd `Resize`: `self` viewed as `sizes`, which must hold as many elements (unlike `resize_`)."""
    numel = math.prod(sizes)
    if self.numel() != numel:
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the "
                           f"given tensor has a size of {'x'.join(map(str, self._shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, while preserving the "
                           "number of elements. ")
    return node_name(S.view(L.contiguous(self), tuple(sizes)), "ViewBackward0", "ResizeBackward")


def _resize(self: Tensor, *sizes) -> Tensor:
    """Deprecated `Tensor.resize`: `self` reshaped to as many elements (`resize_` changes the tensor itself)."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _autograd_resize(self, sizes)


def _resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """Deprecated `Tensor.resize_as`: `self` reshaped to tensor's shape, of as many elements."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _autograd_resize(self, tensor._shape)


def _is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether both tensors view the same memory with the same geometry."""
    return (self._storage is tensor._storage and self._offset == tensor._offset and self._shape == tensor._shape
            and self._strides == tensor._strides)


@method
def is_distributed(input: Tensor) -> bool:
    """False: a tensor is never split across processes (PyTorch's answer too, outside its removed THD backend)."""
    return False


def from_file(filename: str, shared: bool | None = None, size: int = 0, *, dtype=None, layout=None, device=None,
              pin_memory: bool = False) -> Tensor:
    """A CPU tensor of `size` elements over the memory-mapped file (`shared`: writes reach the file)."""
    dt = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    mm = np.memmap(filename, dtype=dt.np, mode="r+" if shared else "c", shape=(size,))
    t = from_numpy(mm)
    return t if device is None else t.to(device)


attach("grad_dtype", property(lambda self: self._dtype))


def _hardshrink_method(self: Tensor, lambd: float = 0.5) -> Tensor:
    """`x.hardshrink(lambd)`: PyTorch's method takes no `out=` (its function does)."""
    return hardshrink(self, lambd)


_hardshrink_method.__name__ = _hardshrink_method.__qualname__ = "hardshrink"
attach("hardshrink", _hardshrink_method)
attach("prelu", prelu)
attach("resize", _resize)
attach("resize_as", _resize_as)
attach("is_set_to", _is_set_to)
attach("as_subclass", lambda self, cls: self._as_subclass(cls))
attach("const_data_ptr", lambda self: self.data_ptr())


# --- global switches --------------------------------------------------------------------------------
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_warn_always(b: bool) -> None:
    """Whether warnings that PyTorch issues once (`warn_once`) are issued every time."""
    _util.warn_always[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """The flag `set_warn_always` set."""
    return _util.warn_always[0]


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """`use_deterministic_algorithms` by level: "default"/0 off, "warn"/1 warn only, "error"/2 on."""
    from ember.core import settings

    if not isinstance(debug_mode, str | int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        mode = _DEBUG_MODES[debug_mode]
    else:
        mode = debug_mode
        if mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    settings.use_deterministic_algorithms(mode != 0, warn_only=mode == 1)


def get_deterministic_debug_mode() -> int:
    """0, 1 or 2: the level `set_deterministic_debug_mode` (or `use_deterministic_algorithms`) set."""
    from ember.core import settings

    if not settings.are_deterministic_algorithms_enabled():
        return 0
    return 1 if settings.is_deterministic_algorithms_warn_only_enabled() else 2


def set_flush_denormal(mode: bool) -> bool:
    """False: ember's numpy kernels cannot switch the CPU's flush-to-zero mode, so the request is not honoured
    (PyTorch also returns False where it cannot)."""
    return False


def init_num_threads() -> None:
    """Nothing to do: ember's thread pools start on first use."""
