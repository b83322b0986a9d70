"""interpolate/upsample: nearest, nearest-exact, (bi/tri)linear and bicubic resizing (bilinear and bicubic
also antialiased) and antialiased Lanczos-3, forward and backward.

Each mode is separable: along every spatial dim, output position `j` blends at most two input
positions `i0[j]`, `i1[j]` with weights `1 - lam[j]`, `lam[j]` (nearest: one position, lam = 0),
from PyTorch's source-index formulas; bicubic and the antialiased modes blend K positions
(`_Taps`: 4 for bicubic, a filter's support for antialias). The forward gathers those taps dim by
dim; the backward sums each output's gradient back into its taps. The taps are non-decreasing in
`j`, so that sum is a segmented `np.add.reduceat`: no scatter, and O(output) work in both directions.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ember.core.dispatch import declare, node_name
from ember.core.ops._util import silenced, wrap
from ember.core.ops.arguments import parsed
from ember.core.ops.memfmt import channels_last_as, grad_format_from, grad_laid_out
from ember.core.ops.parser_errors import int_like, int_tuple_error
from ember.core.tensor import Tensor

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "upsample_backward", "pixel_shuffle",
           "pixel_unshuffle"]

_LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4, "lanczos": 4}
_A = -0.75  # the cubic convolution constant of PyTorch's bicubic mode (its antialiased filter uses -0.5)
_AA_HALF = {"bilinear": 1.0, "bicubic": 2.0, "lanczos": 3.0}  # each antialiased filter's half width (support)


class _Taps:
    """K taps of one dim: output `j` is `sum_k w[k][j] * x[idx[k][j]]`, each `idx[k]` non-decreasing in `j`."""

    __slots__ = ("idx", "w")

    def __init__(self, idx: list, w: list) -> None:
        self.idx, self.w = idx, w


def _cubic(x: np.ndarray, a: float) -> np.ndarray:
    """The cubic convolution kernel with constant `a` at distances `x` (zero from 2 on)."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def _sinc(x: np.ndarray) -> np.ndarray:
    return np.where(x == 0.0, 1.0, np.sin(np.pi * x) / np.where(x == 0.0, 1.0, np.pi * x))


def _aa_filter(mode: str, x: np.ndarray) -> np.ndarray:
    """The antialiased modes' filters at distances `x`: the triangle, the a = -0.5 cubic, and Lanczos-3
    (`sinc(x) sinc(x / 3)` on [-3, 3), as Pillow's and PyTorch's)."""
    if mode == "bilinear":
        return np.maximum(1.0 - np.abs(x), 0.0)
    if mode == "bicubic":
        return _cubic(x, -0.5)
    return np.where((x >= -3.0) & (x < 3.0), _sinc(x) * _sinc(x / 3.0), 0.0)


def _scale(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> float:
    """PyTorch's input step per output position (area_pixel_compute_scale)."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale else n_in / n_out


def _bicubic_taps(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> _Taps:
    """Four taps around floor(src) (clamped into the input), PyTorch's cubic weights; src is not clamped at 0."""
    dst = np.arange(n_out, dtype=np.float64)
    step = _scale(n_in, n_out, align_corners, scale)
    src = dst * step if align_corners else (dst + 0.5) * step - 0.5
    i = np.floor(src)
    t = src - i
    i = i.astype(np.int64)
    ws = [_cubic(t + 1, _A), _cubic(t, _A), _cubic(1 - t, _A), _cubic(2 - t, _A)]
    return _Taps([np.clip(i - 1 + k, 0, n_in - 1) for k in range(4)], ws)


def _antialias_taps(n_in: int, n_out: int, mode: str, align_corners: bool, scale: float | None) -> _Taps:
    """PyTorch's antialiased taps: the mode's filter (`_aa_filter`), stretched by the downscale factor so every
    input pixel contributes, normalised to sum 1 per output."""
    step = _scale(n_in, n_out, align_corners, scale)
    support = _AA_HALF[mode] * (step if step >= 1.0 else 1.0)
    inv = 1.0 / step if step >= 1.0 else 1.0
    centre = step * (np.arange(n_out, dtype=np.float64) + 0.5)  # align_corners changes only the step here
    lo = np.maximum((centre - support + 0.5).astype(np.int64), 0)  # C truncation of positive values, as PyTorch
    size = np.minimum((centre + support + 0.5).astype(np.int64), n_in) - lo
    k_max = max(int(size.max()), 1)
    ws = []
    for k in range(k_max):
        x = (k + lo - centre + 0.5) * inv
        w = _aa_filter(mode, x)
        ws.append(np.where(k < size, w, 0.0))
    total = np.sum(ws, axis=0)
    total = np.where(total == 0.0, 1.0, total)
    return _Taps([np.minimum(lo + k, n_in - 1) for k in range(k_max)], [w / total for w in ws])


def _taps(n_in: int, n_out: int, mode: str, align_corners: bool, scale: float | None, f64: bool = False):
    """`(i0, i1, lam)` of one dim: output `j` is `(1 - lam[j]) * x[i0[j]] + lam[j] * x[i1[j]]`. As PyTorch's
    kernels: nearest indices from a float32 step (nearest_idx), linear coordinates in the input's opmath type
    (float32 but for float64 inputs), so the indices and weights are PyTorch's to the last bit."""
    dst = np.arange(n_out, dtype=np.int64)
    if mode in ("nearest", "nearest-exact"):
        step = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
        if mode == "nearest" and n_out == n_in:
            src = dst
        elif mode == "nearest" and n_out == 2 * n_in:
            src = dst >> 1
        elif mode == "nearest":
            src = np.floor(dst.astype(np.float32) * step).astype(np.int64)
        else:  # (dst + 0.5) in double times the float step, then floorf of it as a float
            src = np.floor(((dst + 0.5) * np.float64(step)).astype(np.float32)).astype(np.int64)
        i0 = np.minimum(src, n_in - 1)
        return i0, i0, None
    ft = np.float64 if f64 else np.float32
    if align_corners:
        step = ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
        src = dst.astype(ft) * step
    else:
        step = ft(1.0 / scale) if scale else ft(n_in) / ft(n_out)
        src = np.maximum((dst.astype(ft) + ft(0.5)) * step - ft(0.5), ft(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    return i0, np.minimum(i0 + 1, n_in - 1), np.clip(src - i0.astype(ft), ft(0), ft(1))


def _along(v: np.ndarray, d: int, ndim: int) -> np.ndarray:
    """A per-position vector of dim `d`, shaped to broadcast against an `ndim`-dim array."""
    return v.reshape((-1,) + (1,) * (ndim - 1 - d))


def _segment_sum(v: np.ndarray, idx: np.ndarray, n_in: int, d: int) -> np.ndarray:
    """Sum the slices of `v` along `d` that share a (non-decreasing) index into `n_in` positions."""
    uniq, starts = np.unique(idx, return_index=True)
    out_shape = v.shape[:d] + (n_in,) + v.shape[d + 1:]
    out = np.zeros(out_shape, dtype=v.dtype)
    sel = [slice(None)] * v.ndim
    sel[d] = uniq
    out[tuple(sel)] = np.add.reduceat(v, starts, axis=d)
    return out


def _resize(a: np.ndarray, taps, backward: bool, in_sizes, weight_dtype=None, lambda_dtype=None) -> np.ndarray:
    """Resize `a` dim by dim through `taps`; `weight_dtype` rounds the weights first (PyTorch's forward kernels
    store a reduced float input's weights in its own dtype), `lambda_dtype` the linear weights.

    NOTE [ 16-bit linear weights ]
    For a float16/bfloat16 input PyTorch's linear and trilinear kernels (not its bilinear one) round `lambda` to the
    dtype, take `1 - lambda` from the rounded value and round it too, and form `x0 w0 + x1 w1` in float32 with a
    fused multiply-add; so the weights here are rounded the same way and the two products summed in float64
    (exact), then rounded to float32 and, by the caller, to the dtype (46-81% of 16-bit outputs were an ulp off
    with float32 weights; now 99.9-100% of PyTorch 2.13's bits)."""
    def cast(w):
        return (w if weight_dtype is None else w.astype(weight_dtype)).astype(a.dtype)

    for k, tap in enumerate(taps):
        d = a.ndim - len(taps) + k
        if isinstance(tap, _Taps):
            ws = [_along(cast(w), d, a.ndim) for w in tap.w]
            if backward:
                a = sum(_segment_sum(a * w, i, in_sizes[k], d) for i, w in zip(tap.idx, ws))
            else:
                a = sum(np.take(a, i, axis=d) * w for i, w in zip(tap.idx, ws))
            continue
        i0, i1, lam = tap
        if backward:
            n_in = in_sizes[k]
            if lam is None:
                a = _segment_sum(a, i0, n_in, d)
            else:
                w = _along(lam.astype(a.dtype), d, a.ndim)
                a = _segment_sum(a * (1 - w), i0, n_in, d) + _segment_sum(a * w, i1, n_in, d)
        elif lam is None:
            a = np.take(a, i0, axis=d)
        elif lambda_dtype is not None:  # NOTE [ 16-bit linear weights ]
            w = lam.astype(lambda_dtype).astype(np.float64)
            w0, w1 = _along((1 - w).astype(lambda_dtype).astype(np.float64), d, a.ndim), _along(w, d, a.ndim)
            a = (np.take(a, i0, axis=d) * w0 + np.take(a, i1, axis=d) * w1).astype(a.dtype)
        else:
            w = lam.astype(a.dtype)
            w0, w1 = _along(1 - w, d, a.ndim), _along(w, d, a.ndim)
            a = np.take(a, i0, axis=d) * w0 + np.take(a, i1, axis=d) * w1
    return np.ascontiguousarray(a)


upsample_op = declare("upsample", doc="""Resize the spatial dims (all but the first two) of `input`.

Positional signature: `upsample(input, output_size, mode, align_corners, scales)`, output_size a
tuple of ints per spatial dim, mode 'nearest' | 'nearest-exact' | 'linear' | 'bilinear' |
'trilinear' | 'bicubic' | 'bilinear-aa' | 'bicubic-aa' | 'lanczos-aa' (antialiased), align_corners a bool (ignored
by nearest), scales a tuple of floats or None per dim (the user's scale_factor, used by PyTorch's
source-index formula). Backward:
`upsample_backward(grad, input.shape, mode, align_corners, scales)` -> grad_input.""")


def _all_taps(in_sizes, out_sizes, mode, align_corners, scales, f64: bool = False):
    scales = scales or (None,) * len(in_sizes)
    if mode == "bicubic":
        return [_bicubic_taps(i, o, align_corners, s) for i, o, s in zip(in_sizes, out_sizes, scales)]
    if mode.endswith("-aa"):
        return [_antialias_taps(i, o, mode[:-3], align_corners, s) for i, o, s in zip(in_sizes, out_sizes, scales)]
    return [_taps(i, o, mode, align_corners, s, f64) for i, o, s in zip(in_sizes, out_sizes, scales)]


@upsample_op.meta
def _upsample_meta(input, output_size, mode, align_corners, scales) -> None:
    """One positive output size per non-empty spatial dim: the taps index the input's last element."""
    spatial = tuple(input._shape[2:])
    if len(output_size) != len(spatial) or any(o <= 0 for o in output_size) or any(n <= 0 for n in spatial):
        names = ("D", "H", "W")[3 - len(spatial):] if len(spatial) <= 3 else [str(i) for i in range(len(spatial))]
        shown = [", ".join(f"{n}: {v}" for n, v in zip(names, sizes)) for sizes in (spatial, output_size)]
        joint = " and " if len(spatial) == 1 else " "  # PyTorch's words: "and" in the 1-D message only
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({shown[0]}){joint}"
                           f"output ({shown[1]})")


def _in_opmath(fn, a: np.ndarray) -> np.ndarray:
    """`fn(a)` for float16/bfloat16 `a` computed in float32 and rounded once, as PyTorch's CPU kernels
    accumulate reduced floats in their opmath type (rounding every product moved results by an ulp)."""
    if a.dtype.itemsize != 2:
        return fn(a)
    return fn(a.astype(np.float32)).astype(a.dtype)


_quiet_opmath = silenced(_in_opmath)  # inf * 0 weights: NaN without numpy's RuntimeWarning, as PyTorch


@upsample_op.register("cpu")
def _upsample_cpu(input, output_size, mode, align_corners, scales):
    x = input._np()
    taps = _all_taps(x.shape[2:], output_size, mode, align_corners, scales, x.dtype == np.float64)
    wdt = x.dtype if x.dtype.itemsize == 2 else None
    ldt = wdt if mode in ("linear", "trilinear") else None  # NOTE [ 16-bit linear weights ]
    return wrap(_quiet_opmath(lambda a: _resize(a, taps, False, x.shape[2:], wdt, ldt), x))


upsample_backward = declare("upsample_backward", doc="""The gradient of upsample wrt its input.

Positional signature: `upsample_backward(grad, input_shape, mode, align_corners, scales)`:
each output gradient spread back with the interpolation weights. Linear in grad; its backward
is `upsample(gg, grad.shape[2:], mode, align_corners, scales)`.""")


@upsample_backward.register("cpu")
def _upsample_backward_cpu(grad, input_shape, mode, align_corners, scales):
    g, sizes = grad._np(), tuple(input_shape[2:])
    taps = _all_taps(sizes, g.shape[2:], mode, align_corners, scales, g.dtype == np.float64)
    return wrap(_in_opmath(lambda a: _resize(a, taps, True, sizes), g))


def _is_integer(x) -> bool:
    """PyTorch's `_is_integer`: an int (bool included), a numpy integer or a non-floating tensor."""
    return isinstance(x, (int, np.integer)) or isinstance(x, Tensor) and not x.dtype.is_floating_point


def interpolate(input: Tensor, size: int | tuple[int, ...] | None = None,
                scale_factor: float | tuple[float, ...] | None = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize `(N, C, *spatial)` to `size` or by `scale_factor`, as `torch.nn.functional.interpolate`.

    Args:
        size: an int or a tuple per spatial dim. scale_factor: a float or a tuple (exactly one of the two).
        mode: 'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear' (4-D), 'bicubic' (4-D), 'trilinear'
            (5-D), 'lanczos' (4-D, antialias=True only) or 'area' (adaptive average pooling).
        align_corners: linear and bicubic modes only; align the corner pixels' centres.
        antialias: bilinear, bicubic and lanczos only; when downsampling, filter over every input pixel an output
            covers.
    Raises:
        ValueError: both or neither of size and scale_factor, or a bad mode/argument combination.

    >>> import ember.core as ec
    >>> ec.interpolate(ec.tensor([[[1.0, 2.0]]]), scale_factor=2).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not {type(input).__name__}")
    # checked in PyTorch's order: align_corners, size/scale_factor, antialias, then the rank for the mode
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    align_corners = bool(align_corners)
    nd = input.ndim - 2
    spatial = tuple(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales = None
    if size is not None:
        if isinstance(size, (list, tuple)) and len(size) != nd:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(spatial)} and output size of {size}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                             f"format.")
        if isinstance(size, (list, tuple)) and not all(_is_integer(s) for s in size):
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], "
                            f"but got size with types {[type(s) for s in size]}")
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        _check_kernel_arguments(size, None, mode, nd, antialias, recompute_scale_factor)
        out = tuple(int(s) for s in size) if isinstance(size, (list, tuple)) else (int(size),) * max(nd, 0)
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape {scale_factor}. "
                             f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             f"(s1, s2, ...,sK) format.")
        _check_kernel_arguments(None, scale_factor, mode, nd, antialias, recompute_scale_factor)
        sf = tuple(float(s) for s in scale_factor) if isinstance(scale_factor, (list, tuple)) else \
            (float(scale_factor),) * max(nd, 0)
        if not all(math.isfinite(n * s) for n, s in zip(spatial, sf)):
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        out = tuple(int(math.floor(n * s)) for n, s in zip(spatial, sf))
        scales = None if recompute_scale_factor or mode == "area" else sf
    else:
        raise ValueError("either size or scale_factor should be defined")
    if antialias and (mode not in _AA_HALF or input.ndim != 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    supported = mode in ("nearest", "nearest-exact", "area") and 1 <= nd <= 3 or _LINEAR.get(mode) == input.ndim
    if not supported:
        if mode in ("linear", "bilinear", "trilinear") and 3 <= input.ndim <= 5:
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR[mode]}D input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) "
                                  f"for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | "
                                  f"area | nearest-exact (got {mode})")
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if mode == "area":  # (the pools refuse non-floating dtypes in PyTorch's words)
        from ember.core.ops import pool

        return (pool.adaptive_avg_pool1d, pool.adaptive_avg_pool2d, pool.adaptive_avg_pool3d)[nd - 1](input, out)
    if not input.dtype.is_floating_point:
        return _interpolate_integer(input, out, mode, align_corners, scales, nd, antialias)
    if antialias and input.dtype.itemsize == 2 and input.device.type == "cpu":  # PyTorch's CPU aa: float, double
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for("compute_index_ranges_weights", input.dtype)
    r = upsample_op(input, out, mode + "-aa" if antialias else mode, align_corners, scales)
    r = node_name(r, "UpsampleBackward0", _UPSAMPLE_NODES.get((mode, antialias), "UpsampleBackward0")
                  .replace("#", str(nd)))
    return channels_last_as(r, input)


def _check_kernel_arguments(size, scale_factor, mode: str, nd: int, antialias: bool, recompute) -> None:
    """PyTorch's F.interpolate repeats a size or scale that is no list per dim (a tensor, a float too) and hands the
    lists to its kernel, whose parser takes an int list (a one-element tensor is an int) and a float list (no tensor):
    a tensor it refuses gets that parser's invalid-combination TypeError, or the adaptive pool's for 'area'."""
    def per_dim(v):
        return v if isinstance(v, list | tuple) else [v] * nd

    sizes = None if size is None else per_dim(size)
    scales = None if scale_factor is None or recompute or mode == "area" else per_dim(scale_factor)
    # the parser reads a list as ints by its first element (a float or bool there refuses it; later ones convert)
    bad_size = sizes is not None and (any(isinstance(v, Tensor) and v.numel() != 1 for v in sizes)
                                      or bool(sizes) and not isinstance(sizes[0], Tensor) and not int_like(sizes[0]))
    bad_scale = scales is not None and any(isinstance(v, Tensor) for v in scales)
    if not (bad_size or bad_scale) or not 1 <= nd <= 3:
        return
    if mode == "area":
        raise int_tuple_error(f"adaptive_avg_pool{nd}d", "output_size", " (position 2)", sizes)
    if mode in ("nearest", "nearest-exact"):
        name = f"{'_upsample_nearest_exact' if mode == 'nearest-exact' else 'upsample_nearest'}{nd}d"
    else:
        name = f"{'_' if antialias else ''}upsample_{mode}{nd}d{'_aa' if antialias else ''}"
    align = "" if mode in ("nearest", "nearest-exact") else "bool, "

    def kind(v, marked: bool | None = None) -> str:
        """The parser's name of an argument: its type in "got", a list's element types in a mismatch line."""
        if marked is None:
            return type(v).__name__
        names = ", ".join(type(e).__name__ for e in v) if isinstance(v, list | tuple) else ""
        k = f"list of [{names}]" if isinstance(v, list) else f"tuple of ({names})" if isinstance(v, tuple) else \
            type(v).__name__
        return f"!{k}!" if marked else k

    got = f"(Tensor, {kind(sizes)}, {align}{kind(scales)})"
    marks = f"(Tensor, {kind(sizes, sizes is None or bad_size)}, {align}{kind(scales, scales is None or bad_scale)})"
    args = f"Tensor input, tuple of ints output_size, {'bool align_corners, ' if align else ''}"
    names = ["scales"] if nd == 1 else ["scales_d", "scales_h", "scales_w"][-nd:]
    per = ", ".join(f"float {n} = None" for n in names)
    raise TypeError(f"{name}() received an invalid combination of arguments - got {got}, but expected one of:\n"
                    f" * ({args}tuple of floats scale_factors)\n"
                    f"      didn't match because some of the arguments have invalid types: {marks}\n"
                    f" * ({args}{per}, *, Tensor out = None)\n")


# PyTorch's node per (mode, antialias); `#` is the number of spatial dims
_UPSAMPLE_NODES = {("nearest", False): "UpsampleNearest#DBackward0",
                   ("nearest-exact", False): "UpsampleNearestExact#DBackward0",
                   ("linear", False): "UpsampleLinear1DBackward0",
                   ("bilinear", False): "UpsampleBilinear2DBackward0",
                   ("trilinear", False): "UpsampleTrilinear3DBackward0",
                   ("bicubic", False): "UpsampleBicubic2DBackward0",
                   ("bilinear", True): "UpsampleBilinear2DAaBackward0",
                   ("bicubic", True): "UpsampleBicubic2DAaBackward0",
                   ("lanczos", True): "UpsampleLanczos2DAaBackward0"}


def _interpolate_integer(input: Tensor, out, mode: str, align_corners, scales, nd: int,
                         antialias: bool = False) -> Tensor:
    """PyTorch's CPU interpolation of a non-floating input: uint8 'nearest' copies values (so the float32
    kernel, exact on bytes, serves), uint8 'bilinear' and 'bicubic' (antialiased or not) and 'lanczos' are
    PyTorch's fixed-point resize (NOTE [ uint8 bilinear ]); the rest raises its kernel's refusal."""
    from ember.core import dtypes
    from ember.core.ops.layout import to
    from ember.core.ops.numeric import DtypeNotImplemented, not_implemented_for

    dt = input.dtype
    nearest = mode in ("nearest", "nearest-exact")
    if dt is dtypes.uint8 and nearest:
        r = to(upsample_op(to(input, dtypes.float32), out, mode, align_corners, scales), dtypes.uint8)
        return channels_last_as(r, input)
    if dt is dtypes.uint8 and mode in _AA_HALF:
        if input.device.type != "cpu":
            raise DtypeNotImplemented(f"interpolate: ember computes uint8 '{mode}' on the CPU only")
        r = wrap(_resize_uint8(input._np(), out, mode, antialias, align_corners, scales))
        return channels_last_as(r, input)
    if mode == "bicubic" or antialias:
        raise not_implemented_for("compute_index_ranges_weights" if antialias else "compute_indices_weights_cubic",
                                  dt)
    if nd == 2:
        raise not_implemented_for(f"upsample_{'nearest' if nearest else 'bilinear'}2d_channels_last", dt)
    raise not_implemented_for(f"compute_indices_weights_{'nearest' if nearest else 'linear'}", dt)


# NOTE [ uint8 bilinear ]
# PyTorch's CPU resizes uint8 images in fixed point, one dim at a time (width, then height, each only if
# its size changes), rounding to uint8 between the passes: each output is a sum of the input bytes times
# int16 weights, plus half, shifted right by the weights' precision and clamped to 0..255. The weights are
# the normalized filter (triangle for bilinear; cubic with a = -0.75, or -0.5 when antialiased, for
# bicubic) over the taps of `[centre - support, centre + support)` clipped to the input, at PyTorch's
# centres (align_corners without antialias shifts them by a half pixel); antialiasing stretches the
# support by the downscale factor. They are scaled by the largest power of two that keeps the largest
# weight's double under 2^15. Computed here to the byte (checked against torch 2.13 over thousands of
# random sizes); not where PyTorch's own generic path (more than 4 channels) resizes to width 1 and
# repeats its first row.
def _uint8_taps(n_in: int, n_out: int, mode: str, antialias: bool, align_corners: bool, scale) -> tuple:
    """First tap, tap count, int16 weights (n_out, K) and precision of one dim's uint8 resize."""
    if align_corners:
        step = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        step = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
    if mode == "bicubic" and not antialias:
        return _int16_weights(*_uint8_cubic_taps(n_in, n_out, step, align_corners))
    half = _AA_HALF[mode]  # interp_size * 0.5
    if antialias:
        support = half * step if step >= 1.0 else half
        k_max, inv = int(math.ceil(support)) * 2 + 1, (1.0 / step if step >= 1.0 else 1.0)
    else:
        support, k_max, inv = half, int(2 * half), 1.0
    delta = 0.5 if align_corners and not antialias else 0.0
    first, count, w = np.zeros(n_out, np.int64), np.zeros(n_out, np.int64), np.zeros((n_out, k_max))
    for i in range(n_out):
        centre = step * (i + 0.5 - delta)
        lo = max(int(centre - support + 0.5 + delta), 0)  # C's truncation, as PyTorch's
        k = min(max(min(int(centre + support + 0.5 + delta), n_in) - lo, 0), k_max)
        x = (np.arange(k) + lo - centre + 0.5 - delta) * inv
        w[i, :k] = _aa_filter(mode, x) if antialias else \
            np.maximum(1.0 - np.abs(x), 0.0) if mode == "bilinear" else _cubic(x, _A)
        total = w[i, :k].sum()
        if total != 0.0:
            w[i, :k] /= total
        first[i], count[i] = lo, k
    return _int16_weights(first, count, w)


def _uint8_cubic_taps(n_in: int, n_out: int, step: float, align_corners: bool) -> tuple:
    """Plain bicubic's float64 taps as its float kernel's (four around floor(src), clamped into the input), the
    weights of taps clamped onto the same pixel summed: first tap, tap count and weights (n_out, 4)."""
    src = np.arange(n_out, dtype=np.float64) * step
    if not align_corners:
        src = (np.arange(n_out, dtype=np.float64) + 0.5) * step - 0.5
    i0 = np.floor(src)
    t = src - i0
    i0 = i0.astype(np.int64)
    first = np.clip(i0 - 1, 0, n_in - 1)
    w = np.zeros((n_out, 4))
    rows = np.arange(n_out)
    last = first.copy()
    for k, wk in enumerate((_cubic(t + 1, _A), _cubic(t, _A), _cubic(1 - t, _A), _cubic(2 - t, _A))):
        idx = np.clip(i0 - 1 + k, 0, n_in - 1)
        w[rows, idx - first] += wk
        last = np.maximum(last, idx)
    return first, last - first + 1, w


def _int16_weights(first: np.ndarray, count: np.ndarray, w: np.ndarray) -> tuple:
    """The weights in int16 fixed point at the finest precision that keeps the largest under 2^15."""
    top = w.max() if w.size else 0.0
    precision = 0
    while precision < 22 and int(0.5 + top * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    scaled = w * (1 << precision)
    return first, count, np.where(w < 0, scaled - 0.5, scaled + 0.5).astype(np.int64), precision


def _uint8_resample(a: np.ndarray, axis: int, n_out: int, mode: str, antialias: bool, align_corners: bool,
                    scale) -> np.ndarray:
    first, count, w, precision = _uint8_taps(a.shape[axis], n_out, mode, antialias, align_corners, scale)
    shape = [1] * a.ndim
    shape[axis] = n_out
    acc = np.int64(1 << (precision - 1))
    for j in range(w.shape[1]):
        taps = np.take(a, np.clip(first + j, 0, a.shape[axis] - 1), axis).astype(np.int64)
        acc = acc + taps * np.where(j < count, w[:, j], 0).reshape(shape)
    return np.clip(acc >> precision, 0, 255).astype(np.uint8)


def _resize_uint8(a: np.ndarray, size, mode: str, antialias: bool, align_corners: bool, scales) -> np.ndarray:
    """PyTorch's CPU uint8 bilinear/bicubic resize of `(N, C, H, W)` (see NOTE [ uint8 bilinear ])."""
    sh, sw = (None, None) if scales is None else scales
    if a.shape[-1] != size[1]:
        a = _uint8_resample(a, a.ndim - 1, size[1], mode, antialias, align_corners, sw)
    if a.shape[-2] != size[0]:
        a = _uint8_resample(a, a.ndim - 2, size[0], mode, antialias, align_corners, sh)
    return np.ascontiguousarray(a)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """The deprecated `F.upsample`: `interpolate` with the same arguments."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """`interpolate(input, size, scale_factor, mode='nearest')` (the deprecated F.upsample_nearest)."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """`interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)`."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


@parsed("pixel_shuffle", upscale_factor="int")
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """`(*, C r^2, H, W)` -> `(*, C, H r, W r)`, as `torch.nn.functional.pixel_shuffle` (a reshape and permute).

    >>> import ember.core as ec
    >>> ec.pixel_shuffle(ec.arange(4.0).reshape(1, 4, 1, 1), 2).tolist()
    [[[[0.0, 1.0], [2.0, 3.0]]]]
    """
    from ember.core.ops.layout import permute, reshape

    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    k = len(lead)
    fmt = [None]  # the input's gradient in its incoming gradient's format, as PyTorch's kernel answers
    x = reshape(grad_laid_out(input, fmt), (*lead, c // (r * r), r, r, h, w))
    x = permute(x, (*range(k), k, k + 3, k + 1, k + 4, k + 2))
    out = reshape(x, (*lead, c // (r * r), h * r, w * r))
    out = node_name(node_name(out, "UnsafeViewBackward0", "PixelShuffleBackward0"), "ViewBackward0",
                    "PixelShuffleBackward0")
    return grad_format_from(channels_last_as(out, input) if input.ndim == 4 else out, fmt)


@parsed("pixel_unshuffle", downscale_factor="int")
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """`(*, C, H r, W r)` -> `(*, C r^2, H, W)`: the inverse of `pixel_shuffle`."""
    from ember.core.ops.layout import permute, reshape

    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for side, d, n in (("height", -2, h), ("width", -1, w)):
        if n % r:
            raise RuntimeError(f"pixel_unshuffle expects {side} to be divisible by downscale_factor, but "
                               f"input.size({d})={n} is not divisible by {r}")
    k = len(lead)
    fmt = [None]  # the input's gradient in its incoming gradient's format, as PyTorch's kernel answers
    x = reshape(grad_laid_out(input, fmt), (*lead, c, h // r, r, w // r, r))
    x = permute(x, (*range(k), k, k + 2, k + 4, k + 1, k + 3))
    out = reshape(x, (*lead, c * r * r, h // r, w // r))
    out = node_name(node_name(out, "UnsafeViewBackward0", "PixelUnshuffleBackward0"), "ViewBackward0",
                    "PixelUnshuffleBackward0")
    return grad_format_from(channels_last_as(out, input) if input.ndim == 4 else out, fmt)
