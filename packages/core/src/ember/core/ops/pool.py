"""Pooling: max/avg/adaptive pooling in 1-D and 2-D over Numba kernels, with their backward ops.

Every kernel runs on `(N*C, H, W)` contiguous planes (serially: see `numba_nn`). Max pooling
returns the flat `h * W + w` index of each maximum (PyTorch's convention), so its backward is
one scatter-add by index shared by `max_pool2d` and `adaptive_max_pool2d`.

NOTE [ 3-D pooling as two 2-D passes ]
Every 3-D pool here is separable: a window (or adaptive bin) is a box, so its max is the max over
depth of the per-slice (H, W) maxima, and its mean (with either count_include_pad rule, whose
divisor is a product of per-dim counts) the depth mean of the slice means. So a 3-D pool is the
2-D op over `(N, C*D, H, W)` and then the 2-D op with a `(kd, 1)` window over `(N, C, D, Ho*Wo)`:
no new kernels, and the derivatives and CUDA kernels of the 2-D ops serve. Flat 3-D indices
`d*H*W + h*W + w` come from the two passes' indices: the depth pass's flat index `d*Ho*Wo + q`
is the position of the chosen slice's 2-D index, so one gather combines them; ties keep the first
maximum in (d, h, w) order, as PyTorch's.
"""

from __future__ import annotations

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import composite, declare, node_name
from ember.core.ops import numba_nn
from ember.core.ops.conv import Size2
from ember.core.ops._util import wrap
from ember.core.ops.memfmt import channels_last_as, grad_laid_out, suggested_format
from ember.core.ops.parser_errors import int_like, int_tuple_error
from ember.core.tensor import Tensor, describe

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_backward", "avg_pool2d_backward", "adaptive_avg_pool2d_backward"]


def _arity_error(op: str, name: str, n: str) -> RuntimeError:
    """PyTorch's words for a window argument of the wrong length: they differ by op and argument (3-D average
    pooling drops "either", dilation says "be either", stride may be "omitted" but for avg_pool3d)."""
    verb = "be either" if name == "dilation" else "be" if op == "avg_pool3d" else "either be"
    omitted = " omitted," if name == "stride" else ""
    return RuntimeError(f"{op}: {name} must {verb}{omitted} a single int, or a tuple of {n} ints")


# positions in PyTorch's (input, kernel_size | output_size, stride, ...)
_POSITIONS = {"kernel_size": 2, "output_size": 2, "stride": 3, "padding": 4, "dilation": 5}


def _window(v, name: str, op: str, n: int, parser: str | None = None) -> tuple[int, ...]:
    """One int for all `n` dims, or a sequence of one or `n`; a float (alone or in the sequence) is PyTorch's parser
    TypeError for a positional "tuple of ints", not truncated, in the words of the `parser` op (default `op`)."""
    if int_like(v):
        return (int(v),) * n
    err = int_tuple_error(parser or op, name, f" (position {_POSITIONS[name]})", v)
    if err is not None:
        raise err
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise _arity_error(op, name, "two" if n == 2 else "three")
    return v


def _pair(v, name: str, op: str, parser: str | None = None) -> tuple[int, int]:
    """`_window` over two dims."""
    return _window(v, name, op, 2, parser)


def _pool_out(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    num = n + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _planes(x: Tensor) -> np.ndarray:
    a = numba_nn.kernel_array(x._np())
    return np.ascontiguousarray(a).reshape(-1, a.shape[-2], a.shape[-1])


def _result(a: np.ndarray, like: Tensor):
    """Wrap a kernel's result in the dtype of `like` (half inputs are computed in float32)."""
    return wrap(a.astype(like._dtype.np, copy=False))


max_pool2d_with_indices = declare("max_pool2d_with_indices", doc="""2-D max pooling returning (output, indices).

Positional signature: `max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
ceil_mode)`, input `(N, C, H, W)` or `(C, H, W)`, pairs of ints. Returns `(output, indices)`;
indices (int64) hold each maximum's flat position `h * W + w` in its input plane and carry no
gradient. Backward: `max_pool2d_backward(grad, indices, input.shape)` -> grad_input.""")


@max_pool2d_with_indices.meta
def _max_pool2d_meta(input, kernel_size, stride, padding, dilation, ceil_mode) -> None:
    """The window stays inside the padded input, as the public max_pool2d checks (the kernels index by it)."""
    _check_window("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)


@max_pool2d_with_indices.register("cpu")
def _max_pool2d_cpu(input, kernel_size, stride, padding, dilation, ceil_mode):
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel_size, stride, padding, dilation
    x = _planes(input)
    ho = _pool_out(x.shape[1], kh, sh, ph, dh, ceil_mode)
    wo = _pool_out(x.shape[2], kw, sw, pw, dw, ceil_mode)
    out = np.empty((x.shape[0], ho, wo), dtype=x.dtype)
    idx = np.empty((x.shape[0], ho, wo), dtype=np.int64)
    if (kh, kw, sh, sw, ph, pw, dh, dw, ho, wo) == (2, 2, 2, 2, 0, 0, 1, 1, x.shape[1] // 2, x.shape[2] // 2):
        numba_nn.max_pool2d_2x2()(x, out, idx)  # the common window, branch-free
    else:
        low = np.iinfo(x.dtype).min if x.dtype.kind in "iu" else -np.inf  # an empty window's value, as PyTorch's
        numba_nn.max_pool2d()(x, out, idx, kh, kw, sh, sw, ph, pw, dh, dw, x.dtype.type(low))
    shape = input._shape[:-2] + (ho, wo)
    return _result(out.reshape(shape), input), wrap(idx.reshape(shape))


max_pool2d_backward = declare("max_pool2d_backward", doc="""The gradient of 2-D max pooling by its indices.

Positional signature: `max_pool2d_backward(grad, indices, input_shape, input=None)` with grad and
indices of the pooled shape -> grad_input of `input_shape`: each gradient is added at its index (a
Numba scatter-add). Linear in grad; its backward is gathering `gg` at `indices`. `input`, unread,
is the pooled input under a double backward: PyTorch's op takes it, so its gradient (zero) reaches it.""")


@max_pool2d_backward.meta
def _max_pool2d_backward_meta(grad, indices, input_shape, input=None) -> None:
    """Indices match the gradient one to one and index planes of `input_shape` (the kernels walk both)."""
    if tuple(indices._shape) != tuple(grad._shape) or tuple(grad._shape[:-2]) != tuple(input_shape[:-2]):
        raise RuntimeError(f"max_pool2d_backward: Expected shape of indices to be same as that of the gradient, "
                           f"with the input's leading dims {list(input_shape[:-2])}; got {describe(grad)} and "
                           f"{describe(indices)}")


@max_pool2d_backward.register("cpu")
def _max_pool2d_backward_cpu(grad, indices, input_shape, input=None):
    g = _planes(grad)
    planes = int(np.prod(input_shape[:-2], dtype=np.int64))
    out = np.zeros((planes, input_shape[-2] * input_shape[-1]), dtype=g.dtype)
    idx = np.ascontiguousarray(indices._np(), dtype=np.int64).reshape(planes, -1)
    bad = numba_nn.index_scatter_add()(g.reshape(planes, -1), idx, out) if idx.size else -1
    if bad != -1:
        raise IndexError(f"max_pool2d_backward: Found an invalid max index: {int(bad)} (output volumes are "
                         f"of size {input_shape[-2]}x{input_shape[-1]}")
    return _result(out.reshape(tuple(input_shape)), grad)


avg_pool2d_op = declare("avg_pool2d", doc="""2-D average pooling.

Positional signature: `avg_pool2d(input, kernel_size, stride, padding, ceil_mode,
count_include_pad, divisor_override)`, pairs of ints, `divisor_override` an int or None.
Backward: `avg_pool2d_backward(grad, input.shape, kernel_size, stride, padding, ceil_mode,
count_include_pad, divisor_override)` -> grad_input.""")


@avg_pool2d_op.meta
def _avg_pool2d_meta(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) -> None:
    _check_window("avg_pool2d", input, kernel_size, stride, padding, (1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:  # the kernels read 0 as no override
        raise RuntimeError("divisor must be not zero")


@avg_pool2d_op.register("cpu")
def _avg_pool2d_cpu(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    (kh, kw), (sh, sw), (ph, pw) = kernel_size, stride, padding
    x = _planes(input)
    ho = _pool_out(x.shape[1], kh, sh, ph, 1, ceil_mode)
    wo = _pool_out(x.shape[2], kw, sw, pw, 1, ceil_mode)
    out = np.empty((x.shape[0], ho, wo), dtype=x.dtype)
    numba_nn.avg_pool2d()(x, out, kh, kw, sh, sw, ph, pw, bool(count_include_pad), int(divisor_override or 0))
    return _result(out.reshape(input._shape[:-2] + (ho, wo)), input)


avg_pool2d_backward = declare("avg_pool2d_backward", doc="""The gradient of 2-D average pooling.

Positional signature: `avg_pool2d_backward(grad, input_shape, kernel_size, stride, padding,
ceil_mode, count_include_pad, divisor_override)` -> grad_input of `input_shape`. Linear in grad;
its backward is `avg_pool2d(gg, kernel_size, stride, padding, ceil_mode, count_include_pad,
divisor_override)`.""")


@avg_pool2d_backward.meta
def _avg_pool2d_backward_meta(grad, input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad,
                              divisor_override) -> None:
    """The gradient has the pooled shape of `input_shape` (the kernels read one gradient plane per input plane)."""
    from types import SimpleNamespace

    ho, wo = _check_window("avg_pool2d_backward", SimpleNamespace(shape=(1, *input_shape)[-3:]), kernel_size,
                           stride, padding, (1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if tuple(grad._shape) != (*input_shape[:-2], ho, wo):
        raise RuntimeError(f"avg_pool2d_backward: expected grad of shape {[*input_shape[:-2], ho, wo]}; got "
                           f"{describe(grad)}")


@avg_pool2d_backward.register("cpu")
def _avg_pool2d_backward_cpu(grad, input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad,
                             divisor_override):
    (kh, kw), (sh, sw), (ph, pw) = kernel_size, stride, padding
    g = _planes(grad)
    out = np.zeros((g.shape[0], input_shape[-2], input_shape[-1]), dtype=g.dtype)
    numba_nn.avg_pool2d_backward()(g, out, kh, kw, sh, sw, ph, pw, bool(count_include_pad),
                                   int(divisor_override or 0))
    return _result(out.reshape(tuple(input_shape)), grad)


adaptive_avg_pool2d_op = declare("adaptive_avg_pool2d", doc="""2-D adaptive average pooling.

Positional signature: `adaptive_avg_pool2d(input, output_size)`, output_size a pair of ints;
bin `i` of a dim of size H covers `[floor(i H / Ho), ceil((i + 1) H / Ho))`.
Backward: `adaptive_avg_pool2d_backward(grad, input.shape)` -> grad_input.""")


@adaptive_avg_pool2d_op.register("cpu")
def _adaptive_avg_pool2d_cpu(input, output_size):
    x = _planes(input)
    out = np.empty((x.shape[0], *output_size), dtype=x.dtype)
    numba_nn.adaptive_pool2d()(x, out, np.empty((1, 1, 1), np.int64), False)
    return _result(out.reshape(input._shape[:-2] + tuple(output_size)), input)


adaptive_avg_pool2d_backward = declare("adaptive_avg_pool2d_backward", doc="""The gradient of adaptive average pooling.

Positional signature: `adaptive_avg_pool2d_backward(grad, input_shape)` -> grad_input. Linear in
grad; its backward is `adaptive_avg_pool2d(gg, grad.shape[-2:])`.""")


@adaptive_avg_pool2d_backward.meta
def _adaptive_avg_pool2d_backward_meta(grad, input_shape) -> None:
    """One gradient plane per input plane (the kernels pair them up)."""
    if grad.ndim != len(input_shape) or tuple(grad._shape[:-2]) != tuple(input_shape[:-2]) or grad.ndim < 3:
        raise RuntimeError(f"adaptive_avg_pool2d_backward: expected grad with the leading dims of the input "
                           f"{list(input_shape)}; got {describe(grad)}")


@adaptive_avg_pool2d_backward.register("cpu")
def _adaptive_avg_pool2d_backward_cpu(grad, input_shape):
    g = _planes(grad)
    out = np.zeros((g.shape[0], input_shape[-2], input_shape[-1]), dtype=g.dtype)
    numba_nn.adaptive_avg_pool2d_backward()(g, out)
    return _result(out.reshape(tuple(input_shape)), grad)


adaptive_max_pool2d_op = declare("adaptive_max_pool2d", doc="""2-D adaptive max pooling returning (output, indices).

Positional signature: `adaptive_max_pool2d(input, output_size)`; indices as in
`max_pool2d_with_indices`, so the backward is `max_pool2d_backward(grad, indices, input.shape)`.""")


@adaptive_max_pool2d_op.register("cpu")
def _adaptive_max_pool2d_cpu(input, output_size):
    x = _planes(input)
    out = np.empty((x.shape[0], *output_size), dtype=x.dtype)
    idx = np.empty((x.shape[0], *output_size), dtype=np.int64)
    numba_nn.adaptive_pool2d()(x, out, idx, True)
    shape = input._shape[:-2] + tuple(output_size)
    return _result(out.reshape(shape), input), wrap(idx.reshape(shape))


# --- validation and the public functions ------------------------------------------------
def _check_input(op: str, input, nd: int) -> None:
    """PyTorch's rank and empty-size errors of each pooling function, worded (and typed) as each words them."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: expected a tensor; got {describe(input)}")
    shape, ndim = list(input.shape), input.ndim
    rank_ok = ndim in (nd + 1, nd + 2)
    empty = [i for i, n in enumerate(shape[ndim - nd - 1:]) if n == 0] if rank_ok else []
    if rank_ok and not empty:
        return
    if op == "avg_pool1d" and not rank_ok:
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {ndim}-dimensional tensor for argument #1 'self' "
                           "(while checking arguments for avg_pool1d)")
    if op == "avg_pool2d" and ndim < 3:
        raise IndexError("Dimension specified as -3 but tensor has no dimensions" if ndim == 0 else
                         f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got -3)")
    if nd == 3 and empty:  # PyTorch prints the empty dim's length (0) where it means its index
        where = "avg_pool3d()" if op == "avg_pool3d" else "max_pool3d_with_indices_out_cpu_template()"
        raise RuntimeError(f"{where}: Expected input's non-batch dimensions to have positive length, but input has "
                           f"a shape of {shape} and non-batch dimension 0 has length zero!")
    if op in ("max_pool2d", "avg_pool3d", "max_pool3d") and not rank_ok:
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    if op == "avg_pool1d":  # PyTorch pools a 1-d input as 2-d over an inserted height of 1
        op, nd, shape = "avg_pool2d", 2, shape[:-1] + [1] + shape[-1:]
    prefix = "max_pool1d: " if op == "max_pool1d" else ""
    raise RuntimeError(f"{prefix}Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with optional 0 dim batch size "
                       f"for input, but got:{shape}")


def _check_dtype(input: Tensor, kernel: str, integers: str | None = None) -> None:
    """PyTorch's CPU dtype dispatch of a pooling kernel: floating point always; `integers` "all" (but bool) or
    "long" (int64 only) also compute; any other dtype raises `"kernel" not implemented for 'Long'`."""
    dt = input._dtype
    if dt.is_floating_point:
        return
    if dt.is_complex or dt is dtypes.bool or integers is None or (integers == "long" and dt is not dtypes.int64):
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for(kernel, dt)


def _avg_pool_int(input: Tensor, k, s, p, ceil_mode: bool, count_include_pad: bool, divisor_override,
                  cuda_kernel: str) -> Tensor:
    """Integer (int64) average pooling over the last 2 or 3 dims, as PyTorch's integer kernels: an int64
    window sum divided with truncation toward zero (not separable, so in one pass). No gradient flows into
    integers, so it is a forward kernel only; PyTorch's CUDA kernels are floating point only, and so are ours."""
    if input.device.type != "cpu":
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for(cuda_kernel, input._dtype)
    a = input._np()
    nd = len(k)
    lead, spatial = a.shape[:-nd], (1,) * (3 - nd) + a.shape[-nd:]
    k, s, p = (1,) * (3 - nd) + tuple(k), (1,) * (3 - nd) + tuple(s), (0,) * (3 - nd) + tuple(p)
    x = np.ascontiguousarray(a, dtype=np.int64).reshape(-1, *spatial)
    o = tuple(_pool_out(n, kk, ss, pp, 1, ceil_mode) for n, kk, ss, pp in zip(spatial, k, s, p))
    out = np.empty((x.shape[0], *o), dtype=np.int64)
    if out.size:
        numba_nn.avg_pool3d_int()(x, out, *k, *s, *p, bool(count_include_pad), int(divisor_override or 0))
    return wrap(out.reshape(*lead, *o[3 - nd:]))


def _check_output_shape_args(k, s, p, d) -> None:
    """PyTorch's `pooling_output_shape` checks, dim by dim from the outermost, which run before its shape
    checks: a zero stride, a negative pad, a pad over half the dilated kernel (C's truncating division)."""
    for kk, ss, pp, dd in zip(k, s, p, d):
        if ss == 0:
            raise RuntimeError("stride should not be zero")
        if pp < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pp}")
        if pp > int(((kk - 1) * dd + 1) / 2):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pp}, "
                               f"kernel_size={kk} and dilation={dd}")


def _check_window(op: str, input, k, s, p, d, ceil_mode) -> tuple[int, int]:
    _check_output_shape_args(k, s, p, d)
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}")
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, "
                           f"padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    h, w = input.shape[-2:]
    ho, wo = _pool_out(h, k[0], s[0], p[0], d[0], ceil_mode), _pool_out(w, k[1], s[1], p[1], d[1], ceil_mode)
    if ho < 1 or wo < 1:
        raise RuntimeError(f"Given input size: ({input.shape[-3]}x{h}x{w}). Calculated output size: "
                           f"({input.shape[-3]}x{ho}x{wo}). Output size is too small")
    return ho, wo


def max_pool2d(input: Tensor, kernel_size: Size2, stride: Size2 | None = None, padding: Size2 = 0, dilation: Size2 = 1,
               ceil_mode: bool = False,
               return_indices: bool = False):
    """2-D max pooling, as `torch.nn.functional.max_pool2d`.

    Args:
        input: `(N, C, H, W)` or `(C, H, W)`.
        kernel_size, stride (default: kernel_size), padding (at most half the kernel), dilation: int or pair.
        ceil_mode: round the output size up (windows that start inside the input or left padding).
        return_indices: also return the flat `h * W + w` index of each maximum.
    Returns:
        the pooled tensor, or `(output, indices)`.

    >>> import ember.core as ec
    >>> ec.max_pool2d(ec.arange(16.0).reshape(1, 1, 4, 4), 2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    _check_input("max_pool2d", input, 2)
    parser = "max_pool2d_with_indices" if return_indices else None  # the op PyTorch's F.max_pool2d calls then
    k = _pair(kernel_size, "kernel_size", "max_pool2d", parser)
    s = k if stride is None or (isinstance(stride, tuple | list) and len(stride) == 0) else \
        _pair(stride, "stride", "max_pool2d", parser)
    p, d = _pair(padding, "padding", "max_pool2d", parser), _pair(dilation, "dilation", "max_pool2d", parser)
    _check_window("max_pool2d", input, k, s, p, d, ceil_mode)
    _check_dtype(input, "max_pool2d", "all")
    out, idx = max_pool2d_with_indices(input, k, s, p, d, bool(ceil_mode))
    out = channels_last_as(out, input)
    return (out, channels_last_as(idx, input)) if return_indices else out


def _via_2d(fn, input: Tensor, *args, **kwargs):
    from ember.core.ops.layout import squeeze, unsqueeze

    r = fn(unsqueeze(input, -2), *args, **kwargs)
    if isinstance(r, tuple):
        return tuple(squeeze(t, -2) for t in r)
    return squeeze(r, -2)


def _one(v, default=None, op: str | None = None, name: str | None = None):
    """A 1-D pool's int argument (None: `default`); with `op`, a float is its parser's TypeError, not truncated."""
    if v is None:
        return default
    if op is not None and not int_like(v):
        err = int_tuple_error(op, name, f" (position {_POSITIONS[name]})", v)
        if err is not None:
            raise err
    if isinstance(v, int | np.integer):
        return int(v)
    v = tuple(v)
    return default if not v else int(v[0])


def _check_max_pool1d(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool) -> None:
    """PyTorch's `check_max_pool1d`: each argument of one int, then the values and the output length."""
    def size(v):
        return 1 if isinstance(v, int | np.integer) else len(tuple(v))

    one = "an int, list of ints, or tuple of ints of size 1"
    for name, v, kind in (("kernel_size", kernel_size, "an int, list of ints or tuple of ints of size 1"),
                          ("stride", stride, "None, " + one), ("padding", padding, one),
                          ("dilation", dilation, "an int, list of ints or tuple of ints of size 1")):
        if not (v is None or (name == "stride" and size(v) == 0) or size(v) == 1):
            raise RuntimeError(f"max_pool1d() {name} must be {kind} but got size {size(v)}")
    k, p, d = _one(kernel_size), _one(padding), _one(dilation)
    s = _one(stride, k)
    for name, v in (("kernel_size", k), ("stride", s)):
        if v <= 0:
            raise RuntimeError(f"max_pool1d() {name} must be greater than zero, but got {v}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _pool_out(input.shape[-1], k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def max_pool1d(input: Tensor, kernel_size: Size2, stride: Size2 | None = None, padding: Size2 = 0, dilation: Size2 = 1,
               ceil_mode: bool = False,
               return_indices: bool = False):
    """1-D max pooling over `(N, C, L)` or `(C, L)`, as `torch.nn.functional.max_pool1d` (via the 2-D kernel).

    Indices are positions along L.
    """
    _check_input("max_pool1d", input, 1)
    k = _one(kernel_size, None, "max_pool1d_with_indices" if return_indices else "max_pool1d", "kernel_size")
    if not return_indices:  # PyTorch's max_pool1d (no indices): check_max_pool1d's checks, then floats only
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
        _check_dtype(input, "max_pool1d_impl")
    return _via_2d(max_pool2d, input, (1, k), (1, _one(stride, k)), (0, _one(padding)), (1, _one(dilation)),
                   ceil_mode, return_indices)


def avg_pool2d(input: Tensor, kernel_size: Size2, stride: Size2 | None = None, padding: Size2 = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """2-D average pooling, as `torch.nn.functional.avg_pool2d`.

    Args:
        input: `(N, C, H, W)` or `(C, H, W)`.
        count_include_pad: divide by the window size including zero padding (else only real elements).
        divisor_override: divide by this instead.

    >>> import ember.core as ec
    >>> ec.avg_pool2d(ec.arange(16.0).reshape(1, 1, 4, 4), 2).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    _check_input("avg_pool2d", input, 2)
    k = _pair(kernel_size, "kernel_size", "avg_pool2d")
    s = k if stride is None or (isinstance(stride, tuple | list) and len(stride) == 0) else \
        _pair(stride, "stride", "avg_pool2d")
    p = _pair(padding, "padding", "avg_pool2d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_window("avg_pool2d", input, k, s, p, (1, 1), ceil_mode)
    _check_dtype(input, "avg_pool2d", "long")
    if input._dtype is dtypes.int64:
        return channels_last_as(_avg_pool_int(input, k, s, p, bool(ceil_mode), bool(count_include_pad),
                                              divisor_override, "avg_pool2d_out_cuda_frame"), input)
    return channels_last_as(avg_pool2d_op(input, k, s, p, bool(ceil_mode), bool(count_include_pad), divisor_override),
                            input)


def avg_pool1d(input: Tensor, kernel_size: Size2, stride: Size2 | None = None, padding: Size2 = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """1-D average pooling over `(N, C, L)` or `(C, L)`, as `torch.nn.functional.avg_pool1d`."""
    _check_input("avg_pool1d", input, 1)
    k = _one(kernel_size, None, "avg_pool1d", "kernel_size")
    return _via_2d(avg_pool2d, input, (1, k), (1, _one(stride, k)), (0, _one(padding)), ceil_mode,
                   count_include_pad)


def _adaptive_list(output_size, nd: int):
    """PyTorch's functional `_list_with_default`: a Python int repeated per dim, a sequence kept; anything else
    fails its `len()` (a float, a numpy integer, a 0-d tensor)."""
    if isinstance(output_size, int):
        return (output_size,) * nd
    len(output_size)  # Python's own TypeError, as PyTorch's
    return tuple(output_size)


def _adaptive_size(op: str, input: Tensor, output_size, nd: int) -> tuple[int, ...]:
    """`output_size` as `nd` ints, None keeping the input's dim; a float is refused as PyTorch's functional code
    (`len()` of a non-int) and its parser (a float element) refuse it."""
    output_size = _adaptive_list(output_size, nd)
    sizes = tuple(input.shape[input.ndim - nd + i] if v is None else v for i, v in enumerate(output_size))
    err = int_tuple_error(op, "output_size", " (position 2)", sizes)
    if err is not None:
        raise err
    sizes = tuple(int(v) for v in sizes)
    if len(sizes) != nd:  # PyTorch's words, which differ between the avg and max pools
        raise RuntimeError(f"{op}: output_size must be {nd}" if "avg" in op else
                           f"{op}(): internal error: output_size.size() must be {nd}")
    if any(v < 0 for v in sizes):
        if "max" in op:  # PyTorch's max pools fail allocating their result
            shape = [*input.shape[:input.ndim - nd], *sizes]
            raise RuntimeError(f"Trying to create tensor with negative dimension {next(v for v in sizes if v < 0)}: "
                               f"{shape}")
        shown = ", ".join(map(str, sizes)) if nd < 3 else f"{sizes[0]}, {sizes[1]},{sizes[2]}"  # PyTorch's spacing
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 but received {{{shown}}}")
    return sizes


def _global_mean(input, output_size, nd: int):
    """PyTorch's shortcut for an adaptive average pool to all-ones: the mean over the last `nd` dims, kept
    (so an empty dim gives NaN, the mean of nothing, and integers get mean()'s refusal); None if not all ones."""
    if not isinstance(input, Tensor):
        return None
    sizes = _adaptive_list(output_size, nd)
    if len(sizes) != nd or any(not int_like(v) or int(v) != 1 for v in sizes):
        return None
    from ember.core.ops.reduce import mean

    return mean(input, tuple(range(-1, -nd - 1, -1)), keepdim=True)  # PyTorch's order: a low rank fails at -2


def _check_adaptive(op: str, input: Tensor, nd: int) -> None:
    """PyTorch's adaptive-pool checks: the rank, then no empty dim past the first (average pooling: no empty
    spatial dim, so its channels may be empty too)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: expected a tensor; got {describe(input)}")
    is_max = "max" in op
    if input.ndim not in (nd + 1, nd + 2):
        if op == "adaptive_max_pool1d":
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                               f"'self' (while checking arguments for adaptive_max_pool1d)")
        raise RuntimeError(f"{op}(): Expected {nd + 1}D or {nd + 2}D tensor, but got{':' if is_max else ''} "
                           f"{list(input.shape)}")
    for i in range(1 if is_max else input.ndim - nd, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {i} being empty")


def adaptive_avg_pool2d(input: Tensor, output_size: Size2 | tuple[int | None, ...]) -> Tensor:
    """Adaptive 2-D average pooling to `output_size` (an int, a pair, None keeps a dim).

    >>> import ember.core as ec
    >>> ec.adaptive_avg_pool2d(ec.arange(16.0).reshape(1, 1, 4, 4), 1).tolist()
    [[[[7.5]]]]
    """
    r = _global_mean(input, output_size, 2)
    if r is not None:
        return channels_last_as(r, input)
    _check_adaptive("adaptive_avg_pool2d", input, 2)
    sizes = _adaptive_size("adaptive_avg_pool2d", input, output_size, 2)
    if not input._dtype.is_floating_point and input.numel() == 0:  # PyTorch returns before its kernel's dispatch
        from ember.core.creation import empty

        return empty(input.shape[:-2] + sizes, dtype=input._dtype, device=input.device)
    _check_dtype(input, "adaptive_avg_pool2d")
    return channels_last_as(adaptive_avg_pool2d_op(input, sizes), input)


def adaptive_max_pool2d(input: Tensor, output_size: Size2 | tuple[int | None, ...], return_indices: bool = False):
    """Adaptive 2-D max pooling to `output_size`, optionally returning the flat indices."""
    _check_adaptive("adaptive_max_pool2d", input, 2)
    sizes = _adaptive_size("adaptive_max_pool2d", input, output_size, 2)
    _check_dtype(input, "adaptive_max_pool2d")
    out, idx = adaptive_max_pool2d_op(input, sizes)
    out = channels_last_as(out, input)
    return (out, channels_last_as(idx, input)) if return_indices else out


def _check_one_size(op: str, output_size) -> None:
    if isinstance(output_size, tuple | list) and len(output_size) != 1:
        raise RuntimeError(f"{op}() argument 'output_size' should contain one int (got {len(output_size)})")


def adaptive_avg_pool1d(input: Tensor, output_size: Size2 | tuple[int | None, ...]) -> Tensor:
    """Adaptive 1-D average pooling over `(N, C, L)` or `(C, L)`."""
    if isinstance(input, Tensor) and input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for adaptive_avg_pool1d)")
    _check_one_size("adaptive_avg_pool1d", output_size)
    return _via_2d(adaptive_avg_pool2d, input, (1, _one(output_size, None, "adaptive_avg_pool1d", "output_size")))


def adaptive_max_pool1d(input: Tensor, output_size: Size2 | tuple[int | None, ...], return_indices: bool = False):
    """Adaptive 1-D max pooling over `(N, C, L)` or `(C, L)`."""
    _check_adaptive("adaptive_max_pool1d", input, 1)
    _check_one_size("adaptive_max_pool1d", output_size)
    size = _one(output_size, None, "adaptive_max_pool1d", "output_size")
    return _via_2d(adaptive_max_pool2d, input, (1, size), return_indices)



# --- 3-D pooling: two 2-D passes (see NOTE [ 3-D pooling as two 2-D passes ]) --------------------
def _triple(v, name: str, op: str, parser: str | None = None) -> tuple[int, int, int]:
    """`_window` over three dims."""
    return _window(v, name, op, 3, parser)


def _check_window3d(op: str, input: Tensor, k, s, p, d, ceil_mode, check_input_size: bool = False) -> None:
    """PyTorch's 3-D window checks (the 2-D passes re-check only their own dims); average pooling's also
    wants the unpadded input at least the kernel's size (`check_input_size`)."""
    _check_output_shape_args(k, s, p, d)
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")
    size = tuple(input.shape[-3:])
    if check_input_size and any(n < kk for n, kk in zip(size, k)):
        raise RuntimeError(f"input image (T: {size[0]} H: {size[1]} W: {size[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if min(p) < 0 or any(pp > kk // 2 for pp, kk in zip(p, k)):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} "
                           f"kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}")
    out = tuple(_pool_out(n, kk, ss, pp, dd, ceil_mode) for n, kk, ss, pp, dd in zip(size, k, s, p, d))
    if min(out) < 1:
        raise RuntimeError(f"Given input size: ({input.shape[-4]}x{'x'.join(map(str, size))}). Calculated output "
                           f"size: ({input.shape[-4]}x{'x'.join(map(str, out))}). Output size is too small")


def _window3d_args(op: str, kernel_size, stride, padding, dilation, parser: str | None = None):
    """A 3-D pool's window arguments as triples (stride defaulting to the kernel); `parser` as in `_window`."""
    k = _triple(kernel_size, "kernel_size", op, parser)
    s = k if stride is None or (isinstance(stride, tuple | list) and len(stride) == 0) else \
        _triple(stride, "stride", op, parser)
    return k, s, _triple(padding, "padding", op, parser), _triple(dilation, "dilation", op, parser)


def _as_batched(input: Tensor) -> Tensor:
    from ember.core.ops.layout import unsqueeze

    return input if input.ndim == 5 else unsqueeze(input, 0)


def _unbatch(t: Tensor, like: Tensor) -> Tensor:
    from ember.core.ops.layout import squeeze

    return t if like.ndim == 5 else squeeze(t, 0)


def _empty_adaptive_3d(input: Tensor, sizes, return_indices: bool):
    """The empty result of an adaptive 3-D pooling to a size with a 0 in it, as PyTorch's (a view of
    none of the input's elements, so autograd's graph holds)."""
    from ember.core import dtypes
    from ember.core.creation import empty
    from ember.core.ops.layout import narrow, reshape

    x = _as_batched(input)
    shape = (*x.shape[:2], *sizes)
    plane = x.shape[2] * x.shape[3] * x.shape[4]  # (not -1: the batch may be empty too)
    out = _unbatch(reshape(narrow(reshape(x, (*x.shape[:2], plane)), 2, 0, 0), shape), input)
    if not return_indices:
        return out
    return out, _unbatch(empty(shape, dtype=dtypes.int64, device=input.device), input)


def _opmath(input: Tensor):
    """`input` in float32 if it is half or bfloat16, and the cast back: a 3-D average's two passes then
    round once, as PyTorch's single pass (a bfloat16 mean of 109.5 rounded between passes gave 110)."""
    from ember.core.ops.layout import to

    if input._dtype not in (dtypes.float16, dtypes.bfloat16):
        return input, lambda t: t
    return to(input, dtypes.float32), lambda t: to(t, input._dtype)


def _two_passes(x: Tensor, plane_op, depth_op):
    """Run `plane_op` over the (H, W) planes of `x (N, C, D, H, W)`, then `depth_op` over depth; each returns
    a tensor or (values, flat indices). Returns the pooled `(N, C, Do, Ho, Wo)` and its 3-D flat indices."""
    from ember.core.ops.layout import reshape

    n, c, d, h, w = x.shape
    r1 = plane_op(reshape(x, (n, c * d, h, w)))
    v1, i1 = r1 if isinstance(r1, tuple) else (r1, None)
    ho, wo = v1.shape[-2:]
    r2 = depth_op(reshape(v1, (n, c, d, ho * wo)))
    v2, i2 = r2 if isinstance(r2, tuple) else (r2, None)
    do = v2.shape[2]
    out = reshape(v2, (n, c, do, ho, wo))
    if i1 is None:
        return out, None
    from ember.core.ops.indexing import gather

    from ember.core.ops.join import where

    i2 = reshape(i2, (n, c, do * ho * wo))
    plane = ho * wo
    # a depth window with no slice inside the input indexes past it: gathered at slice 0 here, and its
    # index set by the caller (`_empty_depth_windows`)
    picked = gather(reshape(i1, (n, c, d * ho * wo)), 2, where(i2 < d * plane, i2, i2 % plane))
    idx = (i2 // plane) * (h * w) + picked
    return out, reshape(idx, (n, c, do, ho, wo))


def _empty_depth_windows(idx: Tensor, size, k, s, p, d) -> Tensor:
    """PyTorch's index for a 3-D max-pooling window with no slice inside the input (ceil_mode with dilation):
    its first depth, height and width taps past the left padding, `d0 * H * W + h0 * W + w0`."""
    from ember.core.creation import tensor
    from ember.core.ops.join import where

    starts, empty = [], None
    for i, n in enumerate(size):
        o = idx.shape[-3 + i]
        first = np.array([j * s[i] - p[i] for j in range(o)])
        last = np.minimum(first + (k[i] - 1) * d[i] + 1, n)
        adj = first + np.maximum(-(first // d[i]), 0) * d[i]  # the first tap at or past 0
        starts.append(adj)
        if i == 0:
            empty = adj >= last
    if not empty.any():
        return idx
    fix = starts[0][:, None, None] * size[1] * size[2] + starts[1][None, :, None] * size[2] + starts[2][None, None, :]
    return where(tensor(empty[:, None, None], device=idx.device), tensor(fix, device=idx.device), idx)


@composite("max_pool3d")  # seen whole, as PyTorch's op (CPU autocast runs it in float32)
def max_pool3d(input: Tensor, kernel_size: Size2, stride: Size2 | None = None, padding: Size2 = 0, dilation: Size2 = 1,
               ceil_mode: bool = False, return_indices: bool = False):
    """3-D max pooling, as `torch.nn.functional.max_pool3d` (see NOTE [ 3-D pooling as two 2-D passes ]).

    Args:
        input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        kernel_size, stride (default: kernel_size), padding (at most half the kernel), dilation: int or triple.
        ceil_mode: round the output size up.
        return_indices: also return the flat `d * H * W + h * W + w` index of each maximum.
    Returns:
        the pooled tensor, or `(output, indices)`.

    >>> import ember.core as ec
    >>> ec.max_pool3d(ec.arange(8.0).reshape(1, 1, 2, 2, 2), 2, return_indices=True)[1].tolist()
    [[[[[7]]]]]
    """
    _check_input("max_pool3d", input, 3)
    k, s, p, d = _window3d_args("max_pool3d", kernel_size, stride, padding, dilation,
                                "max_pool3d_with_indices" if return_indices else None)
    _check_window3d("max_pool3d", input, k, s, p, d, ceil_mode)
    _check_dtype(input, "max_pool3d", "all")
    ceil_mode = bool(ceil_mode)
    # PyTorch's backward kernel answers a channels_last_3d input's gradient in its layout
    like = grad_laid_out(input, "channels_last_3d") if suggested_format(input) == "channels_last_3d" else input
    out, idx = _two_passes(
        _as_batched(like),
        lambda x: max_pool2d_with_indices(x, k[1:], s[1:], p[1:], d[1:], ceil_mode),
        lambda x: max_pool2d_with_indices(x, (k[0], 1), (s[0], 1), (p[0], 0), (d[0], 1), ceil_mode))
    idx = _empty_depth_windows(idx, tuple(input.shape[-3:]), k, s, p, d)
    out, idx = _named3d(_unbatch(out, input), "MaxPool3DWithIndicesBackward0"), _unbatch(idx, input)
    out = channels_last_as(out, input)
    return (out, channels_last_as(idx, input)) if return_indices else out


def _named3d(out: Tensor, name: str) -> Tensor:
    """A 3-D pool's result with PyTorch's node name on its last node (its two 2-D passes made it)."""
    return node_name(out, type(out._grad_fn).__name__, name) if getattr(out, "_grad_fn", None) is not None else out


@composite("avg_pool3d")  # seen whole, as PyTorch's op (CPU autocast runs it in float32)
def avg_pool3d(input: Tensor, kernel_size: Size2, stride: Size2 | None = None, padding: Size2 = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """3-D average pooling, as `torch.nn.functional.avg_pool3d` (see NOTE [ 3-D pooling as two 2-D passes ]).

    Args:
        input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        count_include_pad: divide by the window size including zero padding (else only real elements).
        divisor_override: divide the window's sum by this instead.

    >>> import ember.core as ec
    >>> ec.avg_pool3d(ec.arange(8.0).reshape(1, 1, 2, 2, 2), 2).tolist()
    [[[[[3.5]]]]]
    """
    _check_input("avg_pool3d", input, 3)
    k, s, p, _ = _window3d_args("avg_pool3d", kernel_size, stride, padding, 1)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_window3d("avg_pool3d", input, k, s, p, (1, 1, 1), ceil_mode, check_input_size=True)
    _check_dtype(input, "avg_pool3d_out_frame", "long")
    if input._dtype in (dtypes.float16, dtypes.bfloat16) and input.device.type == "cpu":  # (PyTorch's CUDA has it)
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for("avg_pool3d_out_frame", input._dtype)
    if input._dtype is dtypes.int64:
        return _avg_pool_int(input, k, s, p, bool(ceil_mode), bool(count_include_pad), divisor_override,
                             "avg_pool3d_out_cuda")
    ceil_mode, cip = bool(ceil_mode), bool(count_include_pad)
    div = None if divisor_override is None else 1  # sums in both passes, divided once at the end
    x, back = _opmath(input)
    out, _ = _two_passes(_as_batched(x),
                         lambda x: avg_pool2d_op(x, k[1:], s[1:], p[1:], ceil_mode, cip, div),
                         lambda x: avg_pool2d_op(x, (k[0], 1), (s[0], 1), (p[0], 0), ceil_mode, cip, div))
    if divisor_override is not None:
        out = out / divisor_override
    return _named3d(back(_unbatch(out, input)), "AvgPool3DBackward0")


@composite("adaptive_avg_pool3d")  # seen whole, as PyTorch's op (CPU autocast runs it in float32)
def adaptive_avg_pool3d(input: Tensor, output_size: Size2 | tuple[int | None, ...]) -> Tensor:
    """Adaptive 3-D average pooling to `output_size` (an int, a triple, None keeps a dim).

    >>> import ember.core as ec
    >>> ec.adaptive_avg_pool3d(ec.arange(8.0).reshape(1, 1, 2, 2, 2), 1).tolist()
    [[[[[3.5]]]]]
    """
    r = _global_mean(input, output_size, 3)
    if r is not None:
        return channels_last_as(r, input)
    _check_adaptive("adaptive_avg_pool3d", input, 3)
    do, ho, wo = _adaptive_size("adaptive_avg_pool3d", input, output_size, 3)
    _check_dtype(input, "adaptive_avg_pool3d_cpu")
    if 0 in (do, ho, wo):
        return _empty_adaptive_3d(input, (do, ho, wo), False)
    x, back = _opmath(input)
    out, _ = _two_passes(_as_batched(x), lambda x: adaptive_avg_pool2d_op(x, (ho, wo)),
                         lambda x: adaptive_avg_pool2d_op(x, (do, x.shape[-1])))
    out = _named3d(back(_unbatch(out, input)), "AdaptiveAvgPool3DBackward0")
    if input._dtype in (dtypes.float16, dtypes.bfloat16) and input._storage.device.type == "cpu":
        # the values of PyTorch's reduced-precision CPU kernel; the (linear) backward reads none of them
        out._np()[...] = _adaptive_avg3d_in_dtype(input._np(), (do, ho, wo))
    return out


def _adaptive_avg3d_in_dtype(a: np.ndarray, sizes: tuple[int, int, int]) -> np.ndarray:
    """PyTorch's CPU adaptive_avg_pool3d of a float16/bfloat16 `a (..., D, H, W)`: each window summed in the dtype
    element by element (depth, height, width order), then divided by its depth, height and width in turn, every
    step rounded. Vectorized over the output cells, looping over the offsets of the largest window."""
    f32 = np.float32
    starts, lens = [], []
    for n, o in zip(a.shape[-3:], sizes):
        st = np.arange(o) * n // o
        starts.append(st)
        lens.append(-(-(np.arange(1, o + 1) * n) // o) - st)
    grid = np.ix_(*(range(o) for o in sizes))
    total = np.zeros(a.shape[:-3] + tuple(sizes), dtype=a.dtype)
    for i in range(int(lens[0].max())):
        for j in range(int(lens[1].max())):
            for k in range(int(lens[2].max())):
                at = [np.minimum(st + off, n - 1) for st, off, n in zip(starts, (i, j, k), a.shape[-3:])]
                inside = (i < lens[0])[grid[0]] & (j < lens[1])[grid[1]] & (k < lens[2])[grid[2]]
                vals = a[..., at[0][grid[0]], at[1][grid[1]], at[2][grid[2]]]
                total = np.where(inside, (total.astype(f32) + vals.astype(f32)).astype(a.dtype), total)
    for d, ln in enumerate(lens):
        total = (total.astype(f32) / ln.astype(f32)[grid[d]]).astype(a.dtype)
    return total


@composite("adaptive_max_pool3d")  # seen whole, as PyTorch's op (CPU autocast runs it in float32)
def adaptive_max_pool3d(input: Tensor, output_size: Size2 | tuple[int | None, ...], return_indices: bool = False):
    """Adaptive 3-D max pooling to `output_size`, optionally returning the flat `d * H * W + h * W + w` indices."""
    _check_adaptive("adaptive_max_pool3d", input, 3)
    do, ho, wo = _adaptive_size("adaptive_max_pool3d", input, output_size, 3)
    _check_dtype(input, "adaptive_max_pool3d_cpu")
    if 0 in (do, ho, wo):
        return _empty_adaptive_3d(input, (do, ho, wo), return_indices)
    out, idx = _two_passes(_as_batched(input), lambda x: adaptive_max_pool2d_op(x, (ho, wo)),
                           lambda x: adaptive_max_pool2d_op(x, (do, x.shape[-1])))
    out, idx = _named3d(_unbatch(out, input), "AdaptiveMaxPool3DBackward0"), _unbatch(idx, input)
    return (out, idx) if return_indices else out


def max_pool1d_with_indices(input: Tensor, kernel_size: Size2, stride: Size2 | None = None, padding: Size2 = 0,
                            dilation: Size2 = 1, ceil_mode: bool = False, return_indices: bool = True):
    """`max_pool1d` returning `(output, indices)`, as `torch.max_pool1d_with_indices`."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)
