"""Normalization: batch_norm, layer_norm, group_norm primitives with one fused backward each, and
instance_norm composed over batch_norm.

Statistics accumulate in float64 (a float32 sum over a large batch loses digits), results are in
the input's dtype. Each forward returns the mean and inverse standard deviation it used, which
is all its backward needs besides the input and the weight.
"""

from __future__ import annotations

import math
import numbers
from functools import cache

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import composite, declare, node_name
from ember.core.ops import numba_nn
from ember.core.ops.arguments import parsed
from ember.core.ops._util import silenced, wrap
from ember.core.ops.memfmt import channels_last_as
from ember.core.tensor import Tensor, describe

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "local_response_norm", "batch_norm_backward",
           "layer_norm_backward", "group_norm_backward"]


def _bshape(x: np.ndarray) -> tuple[int, ...]:
    """The shape that broadcasts a per-channel `(C,)` vector against `(N, C, *)`."""
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _channel_axes(x: np.ndarray) -> tuple[int, ...]:
    return (0, *range(2, x.ndim))


batch_norm_op = declare("batch_norm", doc="""Batch normalization over the channel dim 1 (PyTorch's native_batch_norm).

Positional signature: `batch_norm(input, weight, bias, running_mean, running_var, training,
momentum, eps)`, input `(N, C, *)`, the rest `(C,)` or None. Returns `(output, save_mean,
save_invstd)`, both `(C,)`: the batch statistics when training (and then running_mean/var are
updated in place with `momentum` and the unbiased variance, their versions bumped), the running
ones otherwise. Backward: `batch_norm_backward(grad, input, weight, save_mean, save_invstd,
training)` -> (grad_input, grad_weight, grad_bias).""")


def _ncl(t: Tensor) -> np.ndarray:
    """`(N, C, *)` as a contiguous `(N, C, L)` array in a dtype the Numba kernels compile for."""
    a = numba_nn.kernel_array(t._np())
    return np.ascontiguousarray(a).reshape(a.shape[0], a.shape[1], -1)


def _check_channels(c: int, **tensors) -> None:
    """Each per-channel operand is None or holds exactly `c` elements: the kernels read one per channel."""
    for name, t in tensors.items():
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


@batch_norm_op.meta
def _batch_norm_meta(input, weight, bias, running_mean, running_var, training, momentum, eps) -> None:
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected an input of shape (N, C, *); got {describe(input)}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"{'running_mean' if running_mean is None else 'running_var'} must be defined in "
                           "evaluation mode")
    _check_channels(input._shape[1], weight=weight, bias=bias, running_mean=running_mean, running_var=running_var)


@batch_norm_op.register("cpu")
def _batch_norm_cpu(input, weight, bias, running_mean, running_var, training, momentum, eps):
    x = _ncl(input)
    c = x.shape[1]
    if training:
        n = x.shape[0] * x.shape[2]
        mean, var = np.empty(c), np.empty(c)
        numba_nn.channel_stats()(x, mean, var)
        bf16 = input._dtype is dtypes.bfloat16 and _param_dtype(input, weight, bias, running_mean, running_var) \
            is dtypes.bfloat16
        for t, v in ((running_mean, mean), (running_var, var * n / max(n - 1, 1))):
            if t is not None:
                r = t._np()  # in float64, rounded once (numpy would round a 16-bit one at every step)
                r[...] = _bf16_running(r, mean, var, n, momentum, t is running_var) if bf16 else \
                    (1 - momentum) * r.astype(np.float64) + momentum * v
                t._storage.bump()
    else:
        mean = running_mean._np().astype(np.float64)
        var = running_var._np().astype(np.float64)
    invstd = 1.0 / np.sqrt(var + eps)
    sdt = _param_dtype(input, weight, bias, running_mean, running_var).np
    if input._dtype in (dtypes.bfloat16, dtypes.float16):
        return _batch_norm_16bit(input, x, weight, bias, mean, var, invstd, training, eps, sdt)
    scale = invstd * (weight._np().astype(np.float64) if weight is not None else np.ones(c))
    shift = bias._np().astype(np.float64) if bias is not None else np.zeros(c)
    out = np.empty_like(x)
    numba_nn.channel_affine()(x, mean, scale, shift, out)
    return wrap(out.reshape(input._shape).astype(input._dtype.np, copy=False)), wrap(mean.astype(sdt)), \
        wrap(invstd.astype(sdt))


def _bf16_running(r: np.ndarray, mean: np.ndarray, var: np.ndarray, n: int, momentum: float, is_var: bool):
    """A bfloat16 running statistic updated as PyTorch's all-bfloat16 CPU kernel does: momentum, the batch mean
    and the variance sum in bfloat16, each product and sum rounded to it but the variance's momentum term float's."""
    bt, f32 = r.dtype.type, np.float32
    mom = bt(momentum)
    keep = (bt(1) - mom) * r  # bfloat16 * bfloat16, rounded
    if not is_var:
        return mom * mean.astype(r.dtype) + keep
    unbiased = ((var * n).astype(r.dtype) / bt(n - 1)).astype(f32)
    return f32(mom) * unbiased + keep.astype(f32)


def _batch_norm_16bit(input, x, weight, bias, mean, var, invstd, training, eps, sdt) -> tuple:
    """PyTorch's float16/bfloat16 CPU batch norm: the batch statistics are stored in the parameters' dtype
    (rounded, when that is the 16-bit one) and used from there, the eval invstd is float32's; the output is
    `x * alpha + beta` in float32 with `alpha = invstd * weight`, `beta = bias - mean * alpha`, rounded once."""
    f32 = np.float32
    save_mean, save_invstd = mean.astype(sdt), invstd.astype(sdt)
    # all bfloat16 (no float32 parameter): PyTorch keeps var_sum / n in bfloat16 (n rounded to it too), then takes
    # float32's invstd of it; float16 matches PyTorch from the float64 statistics
    low = sdt == input._dtype.np == np.dtype(dtypes.bfloat16.np)
    if training and low:
        n = x.shape[0] * x.shape[2]
        biased = ((var * n).astype(sdt) / sdt.type(n)).astype(sdt)
        save_invstd = (f32(1) / np.sqrt(biased.astype(f32) + f32(eps))).astype(sdt)
    m = save_mean.astype(f32)
    inv = save_invstd.astype(f32) if training else f32(1) / np.sqrt(var.astype(f32) + f32(eps))
    alpha = inv * weight._np().astype(f32) if weight is not None else inv
    beta = (bias._np().astype(f32) if bias is not None else f32(0)) - m * alpha
    # PyTorch's vectorized `fmadd`: the float32 product exact in float64, the sum rounded to float32 once
    out = (x.astype(np.float64) * alpha[:, None].astype(np.float64) + beta[:, None].astype(np.float64)).astype(f32)
    return wrap(out.reshape(input._shape).astype(input._dtype.np, copy=False)), wrap(save_mean), wrap(save_invstd)


def _param_dtype(input: Tensor, *params) -> dtypes.dtype:
    """The dtype of the statistics and parameter gradients: the parameters' (float32 for a float16/bfloat16
    input in PyTorch's CPU "mixed dtype" mode, see _batch_norm_dtypes), else the input's."""
    return next((t._dtype for t in params if t is not None), input._dtype)


batch_norm_backward = declare("batch_norm_backward", doc="""The gradients of batch_norm, fused.

Positional signature: `batch_norm_backward(grad, input, weight, save_mean, save_invstd,
training)` with save_mean/save_invstd batch_norm's 2nd and 3rd results -> `(grad_input,
grad_weight, grad_bias)` (all three always computed; weight None means ones). In training the
statistics depend on the input, and the kernels take the mean again from it, more exactly than
the saved one (see _exact_mean); in eval they are constants.""")


@batch_norm_backward.meta
def _batch_norm_backward_meta(grad, input, weight, save_mean, save_invstd, training) -> None:
    if tuple(grad._shape) != tuple(input._shape) or input.ndim < 2:
        raise RuntimeError(f"batch_norm_backward: expected grad of the input's shape (N, C, *); got {describe(grad)} "
                           f"and {describe(input)}")
    _check_channels(input._shape[1], weight=weight, save_mean=save_mean, save_invstd=save_invstd)


@batch_norm_backward.register("cpu")
def _batch_norm_backward_cpu(grad, input, weight, save_mean, save_invstd, training):
    g, x = _ncl(grad), _ncl(input)
    c = x.shape[1]
    w = weight._np().astype(np.float64) if weight is not None else np.ones(c)
    gi, gw, gb = np.empty_like(x), np.empty(c), np.empty(c)
    # in training the kernel corrects the saved batch mean (rounded to the input's dtype, see _exact_mean) to
    # the exact float64 one while it sums
    mean = save_mean._np().astype(np.float64)
    numba_nn.batch_norm_backward()(g, x, mean, save_invstd._np().astype(np.float64), w, bool(training), gi, gw, gb)
    sdt = save_mean._dtype.np  # the parameters' dtype (float32 in mixed dtype mode)
    return wrap(gi.reshape(input._shape).astype(input._dtype.np, copy=False)), wrap(gw.astype(sdt)), \
        wrap(gb.astype(sdt))


@silenced  # inf and NaN rows: NaN without numpy's RuntimeWarning, as PyTorch
def _rows_norm(x: np.ndarray, k: int, eps: float):
    """Mean and rstd over the last `k` dims (keepdims), in float64; over no elements PyTorch's 0 and NaN (numpy's
    mean would warn "Mean of empty slice", which PyTorch does not)."""
    axes = tuple(range(x.ndim - k, x.ndim))
    if not math.prod(x.shape[x.ndim - k:]):
        shape = x.shape[:x.ndim - k] + (1,) * k
        return np.zeros(shape), np.full(shape, np.nan)
    mean = x.mean(axis=axes, dtype=np.float64, keepdims=True)
    var = np.square(x - mean, dtype=np.float64).mean(axis=axes, keepdims=True)
    return mean, 1.0 / np.sqrt(var + eps)


@silenced  # inf and NaN rows: NaN without numpy's RuntimeWarning, as PyTorch
def _exact_mean(x: np.ndarray, axes: tuple) -> np.ndarray:
    """The forward's mean recomputed in float64 for a backward: the saved mean is rounded to the
    input's dtype, and x - mean then loses the digits of a small spread around a large mean
    (1e4 +- 1e-2 in float32: a 5e-4 error, 4% of the gradient)."""
    return x.mean(axis=axes, dtype=np.float64, keepdims=True)


@silenced  # inf and NaN rows: NaN without numpy's RuntimeWarning, as PyTorch
def _affine_backward(g, xhat, w, rstd, axes):
    """Input gradient of `xhat * w` given normalization over `axes`: the layer/group norm formula."""
    gx = g * w
    return rstd * (gx - gx.mean(axis=axes, keepdims=True) - xhat * (gx * xhat).mean(axis=axes, keepdims=True))


layer_norm_op = declare("layer_norm", doc="""Layer normalization over the trailing `normalized_shape` dims.

Positional signature: `layer_norm(input, normalized_shape, weight, bias, eps)`; weight/bias of
`normalized_shape` or None. Returns `(output, mean, rstd)`, mean/rstd of shape
`input.shape[:-k] + (1,) * k`. Backward: `layer_norm_backward(grad, input, normalized_shape, mean,
rstd, weight)` -> (grad_input, grad_weight, grad_bias).""")


@cache
def _ln_kernels():
    """Numba passes of layer_norm over rows `(R, n)` of a C-contiguous input (float32/float64): the row
    statistics as float64 sums (`reassoc` lets them vectorize; nothing else is reordered), then one pass
    per row in numpy's order of operations (numpy's ten whole-array float64 passes took 1.6 ms forward and
    2.4 ms backward on GPT's 1024 x 128 rows)."""
    import numba

    sums = numba.njit(cache=True, nogil=True, fastmath={"reassoc"}, error_model="numpy", no_cfunc_wrapper=True)
    plain = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy", no_cfunc_wrapper=True)

    @sums
    def stats(x, eps, mean, rstd):
        rows, n = x.shape
        for i in range(rows):
            s = 0.0
            for j in range(n):
                s += np.float64(x[i, j])
            m = s / n
            q = 0.0
            for j in range(n):
                d = np.float64(x[i, j]) - m
                q += d * d
            mean[i] = m
            rstd[i] = 1.0 / np.sqrt(q / n + eps)

    @plain
    def forward(x, mean, rstd, w, b, out):
        # out = ((x - mean) * rstd) rounded to x's dtype, then * w and + b in that dtype (empty w/b: none)
        rows, n = x.shape
        t = out.dtype.type
        for i in range(rows):
            m, r = mean[i], rstd[i]
            for j in range(n):
                v = t((np.float64(x[i, j]) - m) * r)
                if w.size:
                    v = v * w[j]
                if b.size:
                    v = v + b[j]
                out[i, j] = v

    @sums
    def backward_stats(g, x, mean, rstd, w, a, c):
        # per row: the mean of x (stats' loop, the same sum: see _exact_mean), then mean(g * w) and
        # mean(g * w * xhat), in float64 (w: float64, ones without a weight). One pass fewer than stats first
        rows, n = x.shape
        for i in range(rows):
            s = 0.0
            for j in range(n):
                s += np.float64(x[i, j])
            m, r = s / n, rstd[i]
            mean[i] = m
            sa = 0.0
            sc = 0.0
            for j in range(n):
                gx = np.float64(g[i, j]) * w[j]
                sa += gx
                sc += gx * ((np.float64(x[i, j]) - m) * r)
            a[i] = sa / n
            c[i] = sc / n

    @plain
    def backward(g, x, mean, rstd, w, a, c, gi, gw, gb):
        # gi = rstd * (g w - mean(g w) - xhat mean(g w xhat)); gw, gb (float64, zeroed) summed over rows
        rows, n = x.shape
        t = gi.dtype.type
        for i in range(rows):
            m, r, ai, ci = mean[i], rstd[i], a[i], c[i]
            for j in range(n):
                gg = np.float64(g[i, j])
                xh = (np.float64(x[i, j]) - m) * r
                gi[i, j] = t(r * (gg * w[j] - ai - xh * ci))
                gw[j] += gg * xh
                gb[j] += gg

    return stats, forward, backward_stats, backward


def _ln_rows(x: np.ndarray, k: int) -> np.ndarray | None:
    """`x` as `(rows, n)` over its last `k` dims for the Numba passes, or None (another dtype or layout)."""
    if x.dtype not in _LN_DTYPES or not x.flags.c_contiguous or x.ndim < k or x.size == 0:
        return None
    return x.reshape(-1, math.prod(x.shape[x.ndim - k:]))


_LN_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _ln_vec(t: Tensor | None, n: int, dtype) -> np.ndarray | None:
    """A weight or bias as a flat contiguous `(n,)` array of `dtype` (empty for None), or None."""
    if t is None:
        return np.empty(0, dtype)
    a = t._np()
    return np.ascontiguousarray(a).reshape(-1) if a.dtype == dtype and a.size == n else None


@layer_norm_op.register("cpu")
def _layer_norm_cpu(input, normalized_shape, weight, bias, eps):
    x = input._np()
    k = len(normalized_shape)
    x2 = _ln_rows(x, k)
    w = b = None
    if x2 is not None:
        w, b = _ln_vec(weight, x2.shape[1], x.dtype), _ln_vec(bias, x2.shape[1], x.dtype)
    if x2 is not None and w is not None and b is not None:
        stats, forward, _, _ = _ln_kernels()
        rows = x2.shape[0]
        mean, rstd = np.empty(rows), np.empty(rows)
        stats(x2, float(eps), mean, rstd)
        out = np.empty_like(x2)
        forward(x2, mean, rstd, w, b, out)
        shp = x.shape[:x.ndim - k] + (1,) * k
        return wrap(out.reshape(x.shape)), wrap(mean.astype(x.dtype).reshape(shp)), \
            wrap(rstd.astype(x.dtype).reshape(shp))
    mean, rstd = _rows_norm(x, k, eps)
    if x.dtype.itemsize == 2:  # half and bfloat16: the affine in float too, one rounding at the end as PyTorch's
        out = (x - mean) * rstd
        if weight is not None:
            out = out * weight._np()
        if bias is not None:
            out = out + bias._np()
        return wrap(np.ascontiguousarray(out.astype(x.dtype))), wrap(mean.astype(x.dtype)), \
            wrap(rstd.astype(x.dtype))
    out = ((x - mean) * rstd).astype(x.dtype, order="C")  # PyTorch's CPU kernel writes a row-major result
    if weight is not None:
        out *= weight._np()
    if bias is not None:
        out += bias._np()
    return wrap(out), wrap(mean.astype(x.dtype)), wrap(rstd.astype(x.dtype))


layer_norm_backward = declare("layer_norm_backward", doc="""The gradients of layer_norm, fused.

Positional signature: `layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight)`
with mean/rstd layer_norm's 2nd and 3rd results -> `(grad_input, grad_weight, grad_bias)`. The
kernels take the mean again from the input, more exactly than the saved one (see _exact_mean).""")


@layer_norm_backward.register("cpu")
def _layer_norm_backward_cpu(grad, input, normalized_shape, mean, rstd, weight):
    x = input._np()
    k = len(normalized_shape)
    x2 = _ln_rows(x, k)
    if x2 is not None and tuple(grad._shape) == x.shape and (weight is None or weight._np().size == x2.shape[1]):
        _, _, backward_stats, backward = _ln_kernels()
        rows, n = x2.shape
        g2 = np.ascontiguousarray(grad._np()).reshape(rows, n)
        r = np.ascontiguousarray(rstd._np(), dtype=np.float64).reshape(-1)
        if r.size == rows:
            w = np.ascontiguousarray(weight._np(), dtype=np.float64).reshape(-1) if weight is not None else np.ones(n)
            m, a, c = np.empty(rows), np.empty(rows), np.empty(rows)
            backward_stats(g2, x2, m, r, w, a, c)  # the exact mean again into m (see _exact_mean)
            gi, gw, gb = np.empty(x2.shape, x.dtype), np.zeros(n), np.zeros(n)
            backward(g2, x2, m, r, w, a, c, gi, gw, gb)
            nshape = x.shape[x.ndim - k:]
            return wrap(gi.reshape(x.shape)), wrap(gw.astype(x.dtype).reshape(nshape)), \
                wrap(gb.astype(x.dtype).reshape(nshape))
    g = grad._np().astype(np.float64)
    axes = tuple(range(x.ndim - k, x.ndim))
    lead = tuple(range(x.ndim - k))
    r = rstd._np().astype(np.float64)
    xhat = (x - _exact_mean(x, axes)) * r
    w = weight._np().astype(np.float64) if weight is not None else 1.0
    gi = _affine_backward(g, xhat, w, r, axes)
    gw, gb = (g * xhat).sum(axis=lead), g.sum(axis=lead)
    dt = x.dtype
    return wrap(gi.astype(dt)), wrap(np.asarray(gw, dtype=dt)), wrap(np.asarray(gb, dtype=dt))


group_norm_op = declare("group_norm", doc="""Group normalization: channels split into `num_groups` groups.

Positional signature: `group_norm(input, weight, bias, num_groups, eps)`, input `(N, C, *)`,
weight/bias `(C,)` or None. Returns `(output, mean, rstd)`, mean/rstd `(N, num_groups)`.
Backward: `group_norm_backward(grad, input, mean, rstd, weight, num_groups)` -> (grad_input,
grad_weight, grad_bias).""")


def _grouped(x: np.ndarray, groups: int) -> np.ndarray:
    return x.reshape(x.shape[0], groups, -1)


@group_norm_op.register("cpu")
def _group_norm_cpu(input, weight, bias, num_groups, eps):
    x = input._np()
    xg = _grouped(x, num_groups)
    mean, rstd = _rows_norm(xg, 1, eps)
    bs = _bshape(x)
    if x.dtype.char in "eE" and (weight is not None or bias is not None):
        # PyTorch's 16-bit kernel: x * scale + shift in float32 per channel, rounded once
        f32, n, c = np.float32, x.shape[0], x.shape[1]
        per_ch = (n, num_groups, c // num_groups)
        scale = np.broadcast_to(rstd.reshape(n, num_groups, 1).astype(f32), per_ch)
        if weight is not None:
            scale = scale * weight._np().astype(f32).reshape(1, num_groups, -1)
        shift = -scale * mean.reshape(n, num_groups, 1).astype(f32)
        if bias is not None:
            shift = shift + bias._np().astype(f32).reshape(1, num_groups, -1)
        xc = x.reshape(n, c, -1).astype(f32)
        out = (xc * scale.reshape(n, c, 1) + shift.reshape(n, c, 1)).astype(x.dtype).reshape(x.shape)
        return wrap(out), wrap(mean.reshape(n, num_groups).astype(x.dtype)), \
            wrap(rstd.reshape(n, num_groups).astype(x.dtype))
    out = ((xg - mean) * rstd).astype(x.dtype).reshape(x.shape)
    if weight is not None:
        out *= weight._np().reshape(bs)
    if bias is not None:
        out += bias._np().reshape(bs)
    n = x.shape[0]
    return wrap(out), wrap(mean.reshape(n, num_groups).astype(x.dtype)), \
        wrap(rstd.reshape(n, num_groups).astype(x.dtype))


group_norm_backward = declare("group_norm_backward", doc="""The gradients of group_norm, fused.

Positional signature: `group_norm_backward(grad, input, mean, rstd, weight, num_groups)` with
mean/rstd group_norm's 2nd and 3rd results -> `(grad_input, grad_weight, grad_bias)`. The kernels
take the mean again from the input, more exactly than the saved one (see _exact_mean).""")


@group_norm_backward.register("cpu")
def _group_norm_backward_cpu(grad, input, mean, rstd, weight, num_groups):
    g, x = grad._np().astype(np.float64), input._np()
    n, c = x.shape[:2]
    bs = _bshape(x)
    r = rstd._np().astype(np.float64).reshape(n, num_groups, 1)
    xg = _grouped(x, num_groups)
    xhat = (xg - _exact_mean(xg, (2,))) * r
    w = weight._np().astype(np.float64).reshape(bs) if weight is not None else np.ones(bs)
    wg = _grouped(np.broadcast_to(w, x.shape), num_groups)
    gi = _affine_backward(_grouped(g, num_groups), xhat, wg, r, (2,)).reshape(x.shape)
    xh = xhat.reshape(x.shape)
    axes = _channel_axes(x)
    dt = x.dtype
    return wrap(gi.astype(dt)), wrap((g * xh).sum(axis=axes).astype(dt)), wrap(g.sum(axis=axes).astype(dt))


# --- validation and the public functions ------------------------------------------------
def _check_vec(op: str, name: str, t, c: int, x: Tensor, dtype: bool = True) -> None:
    if t is None:
        return
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: expected {name} to be a tensor or None; got {describe(t)}")
    if t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if dtype and t.dtype is not x.dtype:
        raise TypeError(f"{op}: expected {name} of the input's dtype; got {describe(x)} and {describe(t)}")


def _norm_dtypes(x: Tensor, given: tuple, order: tuple) -> bool:
    """PyTorch's CPU dtype rule for the norms (probed against 2.13 over every combination of float dtypes and
    None): the first parameter `given` decides. Of the input's dtype, every other must be too ("expected scalar
    type Half but found Float", the first in the kernel's `order`); else it is the "mixed dtype" mode (True): a
    float16/bfloat16 input with every parameter float32, computed in float32."""
    params = [t for t in given if t is not None]
    if not params or params[0].dtype is x.dtype:
        for t in order:
            if t is not None and t.dtype is not x.dtype:
                name = dtypes.TORCH_NAMES.get
                raise RuntimeError(f"expected scalar type {name(x.dtype.name)} but found {name(t.dtype.name)}")
        return False
    if any(t.dtype is not dtypes.float32 for t in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if x.dtype not in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return True


def _batch_norm_dtypes(x: Tensor, training: bool, weight, bias, running_mean, running_var) -> bool:
    """_norm_dtypes with batch_norm's parameters, checked in its kernels' order (training: the statistics first)."""
    order = (weight, running_mean, running_var, bias) if training else (weight, bias, running_mean, running_var)
    return _norm_dtypes(x, (weight, bias, running_mean, running_var), order)


def _check_float(op: str, x, kernel: str | None = None, *params) -> None:
    """A tensor input, of a floating dtype unless `kernel` is None; else PyTorch's refusal naming `kernel`
    (or, for parameters `params` of another dtype, its CPU kernels' "mixed dtype" error, checked first)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if kernel is not None and not x.dtype.is_floating_point:
        if any(isinstance(t, Tensor) and t.dtype is not x.dtype for t in params):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for(kernel, x.dtype)


@composite("batch_norm")
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5,
               cudnn_enabled: bool | None = None) -> Tensor:
    """Batch normalization over dim 1, as `torch.nn.functional.batch_norm`.

    Called with a 9th argument it is `torch.batch_norm(input, weight, bias, running_mean,
    running_var, training, momentum, eps, cudnn_enabled)`, whose first four tensors come in
    another order.

    Args:
        input: `(N, C)` or `(N, C, *)`.
        running_mean, running_var: `(C,)`, updated in place when training (may be None then).
        weight, bias: `(C,)` affine parameters or None.
        training: use batch statistics; else the running ones.
    Raises:
        ValueError: training with a single value per channel.
        RuntimeError: statistics or parameters of the wrong size, or of a dtype mix PyTorch's CPU refuses (a
            float16/bfloat16 input with float32 parameters and statistics computes in float32).

    >>> import ember.core as ec
    >>> ec.batch_norm(ec.tensor([[1.0], [3.0]]), None, None, training=True).tolist()
    [[-0.9999949932098389], [0.9999949932098389]]
    """
    if cudnn_enabled is not None:
        running_mean, running_var, weight, bias = weight, bias, running_mean, running_var
    if isinstance(input, Tensor) and input.numel() == 0:
        return _empty_batch_norm(input, weight, bias)
    _check_float("batch_norm", input, "batch_norm")
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected 2D or more input (N, C, *); got {describe(input)}")
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        _check_vec("batch_norm", name, t, c, input, dtype=False)
    _batch_norm_dtypes(input, training, weight, bias, running_mean, running_var)
    if training:
        if input.numel() // max(c, 1) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{input.shape}")
    elif running_mean is None or running_var is None:  # PyTorch names the first missing one
        raise RuntimeError(f"{'running_mean' if running_mean is None else 'running_var'} must be defined in "
                           "evaluation mode")
    out = batch_norm_op(input, weight, bias, running_mean, running_var, bool(training), float(momentum),
                        float(eps))[0]
    return channels_last_as(out, input)


def _empty_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """PyTorch's shortcut for an empty input, ahead of every check: a copy times weight[0] plus bias[0], in
    their promoted dtype (an empty int64 input with float32 parameters gives float32); statistics untouched."""
    from ember.core.ops import elementwise as ew
    from ember.core.ops import shape as S

    out = S.clone(input)
    if weight is not None:
        out = ew.mul(out, S.select(weight, 0, 0))
    if bias is not None:
        out = ew.add(out, S.select(bias, 0, 0))
    return out


@composite("layer_norm")
def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    """Normalize over the trailing `normalized_shape` dims, as `torch.nn.functional.layer_norm`
    (`cudnn_enable`, of `torch.layer_norm`, is ignored).

    >>> import ember.core as ec
    >>> ec.layer_norm(ec.tensor([[1.0, 3.0]]), (2,)).tolist()
    [[-0.9999949932098389, 0.9999949932098389]]
    """
    ns = normalized_shape
    if (isinstance(input, Tensor) and (dt := input._dtype).is_floating_point and ns.__class__ is tuple
            and 0 < (k := len(ns)) <= len(input._shape) and (ns := input._shape[-k:]) == normalized_shape
            and (weight is None or isinstance(weight, Tensor) and weight._dtype is dt and weight._shape == ns)
            and (bias is None or isinstance(bias, Tensor) and bias._dtype is dt and bias._shape == ns)):
        return layer_norm_op(input, ns, weight, bias, float(eps))[0]  # the common call: nothing to convert or refuse
    _check_float("layer_norm", input, "LayerNormKernelImpl", weight, bias)
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (int(normalized_shape),)
    shape = tuple(int(s) for s in normalized_shape)
    k = len(shape)
    if k == 0 or tuple(input.shape[input.ndim - k:]) != shape or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(shape)}")
        _check_vec("layer_norm", name, t, t.numel() if t is not None else 0, input, dtype=False)
    if _norm_dtypes(input, (weight, bias), (weight, bias)):  # mixed dtype: in float32, rounded once
        return layer_norm_op(input.to(dtypes.float32), shape, weight, bias, float(eps))[0].to(input.dtype)
    return layer_norm_op(input, shape, weight, bias, float(eps))[0]


@composite("group_norm")
@parsed("group_norm", num_groups="int")
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    """Group normalization, as `torch.nn.functional.group_norm`: input `(N, C, *)`, C divisible by num_groups
    (`cudnn_enabled`, of `torch.group_norm`, is ignored)."""
    _check_float("group_norm", input, "GroupNormKernelImpl", weight, bias)
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    c = input.shape[1]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                         f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if isinstance(t, Tensor) and (t.ndim != 1 or t.numel() != c):  # PyTorch prints weight's shape for both
            shown = list(weight.shape) if isinstance(weight, Tensor) else [0]
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {shown} and input of shape {list(input.shape)}")
        _check_vec("group_norm", name, t, c, input, dtype=False)
    if _norm_dtypes(input, (weight, bias), (weight, bias)):  # mixed dtype: in float32, rounded once
        out = group_norm_op(input.to(dtypes.float32), weight, bias, int(num_groups), float(eps))[0].to(input.dtype)
    else:
        out = group_norm_op(input, weight, bias, int(num_groups), float(eps))[0]
    return channels_last_as(out, input)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5, cudnn_enabled: bool | None = None) -> Tensor:
    """Instance normalization, as `torch.nn.functional.instance_norm`: batch_norm of each `(n, c)` plane.

    Running statistics, when given, are updated with the batch mean of the per-instance ones. With
    a 9th argument it is `torch.instance_norm(input, weight, bias, running_mean, running_var, ...)`.
    """
    if cudnn_enabled is not None:
        running_mean, running_var, weight, bias = weight, bias, running_mean, running_var
    from ember.core.ops import elementwise as ew
    from ember.core.ops.layout import reshape

    _check_float("instance_norm", input, "batch_norm")
    if use_input_stats and math.prod(input.shape[2:]) == 1:  # F.instance_norm's check, before any on the rank
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    n, c = input.shape[0], input.shape[input._wrap_dim(1)]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if isinstance(t, Tensor) and t.numel() != c:  # PyTorch repeats each per sample: it counts n of them
            raise RuntimeError(f"{name} should contain {n * c} elements not {t.numel() * n}")
        _check_vec("instance_norm", name, t, c, input, dtype=False)
    if _batch_norm_dtypes(input, use_input_stats, weight, bias, running_mean, running_var):  # as batch_norm's
        return instance_norm(input.to(dtypes.float32), running_mean, running_var, weight, bias, use_input_stats,
                             momentum, eps).to(input.dtype)
    if not use_input_stats:  # a 2-D (N, C) input too: each column by its running statistics
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    planes = reshape(input, (1, n * c, *input.shape[2:]))
    # PyTorch's batch_norm of the planes with the parameters repeated per sample: one rounding at 16 bits
    fused = input._dtype in (dtypes.float16, dtypes.bfloat16)
    w_, b_ = ((t.repeat(n) if fused and t is not None else None) for t in (weight, bias))
    out, mean, invstd = batch_norm_op(planes, w_, b_, None, None, True, 0.0, float(eps))
    out = reshape(out, tuple(input.shape))
    if running_mean is not None or running_var is not None:
        m = input.numel() // (n * c)
        stats = {"running_mean": mean._np().reshape(n, c).mean(0),
                 "running_var": (1.0 / np.square(invstd._np()) - eps).reshape(n, c).mean(0) * m / (m - 1)}
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is not None:
                r = t._np()
                r[...] = (1 - momentum) * r + momentum * stats[name]
                t._storage.bump()
    bs = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None and not fused:
        out = ew.mul(out, reshape(weight, bs))
    if bias is not None and not fused:
        out = ew.add(out, reshape(bias, bs))
    if (weight is not None or bias is not None) and out._grad_fn is not None:  # PyTorch's ends in batch_norm's view
        out = node_name(out, type(out._grad_fn).__name__, "ViewBackward0")
    return out


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """Divide each element by `(k + alpha * mean of squares over `size` neighbouring channels) ** beta`,
    as `torch.nn.functional.local_response_norm` (composed of pad, avg_pool2d and elementwise ops).

    >>> import ember.core as ec
    >>> ec.local_response_norm(ec.ones(1, 2, 1, 1), 2, alpha=1.0, beta=1.0).tolist()
    [[[[0.6666666865348816]], [[0.5]]]]
    """
    from ember.core.ops import elementwise as ew
    from ember.core.ops.layout import reshape
    from ember.core.ops.padding import pad
    from ember.core.ops.pool import avg_pool2d

    _check_float("local_response_norm", input)
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {input.ndim} dimensions)")
    if input.ndim > 3 and not (input.dtype.is_floating_point or input.dtype is dtypes.int64):
        # PyTorch pools (N, C, *) inputs with avg_pool3d, whose kernel names itself (int64 computes, truncated)
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for("avg_pool3d_out_frame", input.dtype)
    if input.numel() == 0:
        return input
    n, c = input.shape[:2]
    sq = reshape(ew.mul(input, input), (n, 1, c, -1))
    sq = pad(sq, (0, 0, size // 2, (size - 1) // 2))
    avg = reshape(avg_pool2d(sq, (size, 1), stride=1), tuple(input.shape))
    return ew.div(input, ew.pow(ew.add(ew.mul(avg, alpha), k), beta))
