"""Double backward of fused backward ops by recomputing their forward with differentiable ops.

A fused backward op (`layer_norm_backward` ...) returns the gradients of `<grad_output, f(p)>`
w.r.t. the primals `p` of a forward `f`. Its own derivative, for incoming gradients `gg`, is the
gradient of `<gg, those gradients>` w.r.t. `grad_output` and `p`: here `f` is rebuilt from ember
ops (means, rsqrt, log_softmax ...), differentiated once with `create_graph`, then again. When the
backward itself is recorded (`create_graph`, grad mode on), the recomputation stays attached to the
primals, so third derivatives (forward-over-reverse `jvp(grad(f))` ...) are exact too; otherwise it
runs on detached copies.
"""

from __future__ import annotations

from collections.abc import Callable

from ember.core.dispatch import get_op
from ember.core.ops import elementwise as ew
from ember.core.tensor import Tensor

__all__ = ["second_order", "layer_norm_fn", "group_norm_fn", "batch_norm_fn", "eps_from", "grid_sampler_fn"]


def _input(t: Tensor, higher: bool) -> Tensor:
    """`t` as an input the recomputation differentiates with respect to: attached to its history when the
    backward is recorded (`higher`), else a detached copy."""
    return t.view_as(t) if higher and t.requires_grad else t.detach().requires_grad_()


def second_order(fn: Callable, grad_output: Tensor, primals: list, ggs: list) -> list:
    """d<ggs, d<grad_output, fn(*primals)>/d primals> / d(grad_output, *primals); None for a None primal."""
    from ember.autograd.engine import grad
    from ember.autograd.grad_mode import enable_grad, is_grad_enabled

    higher = is_grad_enabled()
    with enable_grad():
        go = _input(grad_output, higher)
        ps = [_input(p, higher) if isinstance(p, Tensor) else None for p in primals]
        live = [p for p in ps if p is not None]
        firsts = grad(fn(*ps), live, go, create_graph=True, allow_unused=True)
        gg_live = [g for p, g in zip(ps, ggs) if p is not None]
        terms = [(f * g).sum() for f, g in zip(firsts, gg_live) if f is not None and g is not None]
        if not terms:
            return [None] * (1 + len(primals))
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        outs = iter(grad(total, [go] + live, allow_unused=True, create_graph=higher))
    go_grad = next(outs)
    return [go_grad] + [next(outs) if p is not None else None for p in ps]


def eps_from(x: Tensor, dims: tuple, rstd: Tensor) -> float:
    """The epsilon a normalization used, recovered from its saved 1 / sqrt(var + eps)."""
    xd = x.detach().double()
    var = xd.var(dims, correction=0, keepdim=True)
    r = rstd.detach().double().reshape(tuple(var.shape))
    return max(float((1.0 / (r * r) - var).mean().item()), 0.0)


def _normalize(x: Tensor, dims: tuple, eps: float) -> Tensor:
    xc = x - x.mean(dims, keepdim=True)
    return xc * ew.rsqrt((xc * xc).mean(dims, keepdim=True) + eps)


def _affine(y: Tensor, w, b, shape: tuple) -> Tensor:
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


def layer_norm_fn(normalized_shape: tuple, eps: float) -> Callable:
    def f(x, w, b):
        dims = tuple(range(x.ndim - len(normalized_shape), x.ndim))
        return _affine(_normalize(x, dims, eps), w, b, tuple(normalized_shape))
    return f


def group_norm_fn(num_groups: int, eps: float) -> Callable:
    def f(x, w, b):
        n, c = x.shape[0], x.shape[1]
        y = _normalize(x.reshape(n, num_groups, -1), (2,), eps).reshape(tuple(x.shape))
        return _affine(y, w, b, (1, c) + (1,) * (x.ndim - 2))
    return f


def batch_norm_fn(training: bool, eps: float, mean: Tensor, invstd: Tensor) -> Callable:
    def f(x, w, b):
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        if training:
            y = _normalize(x, tuple(d for d in range(x.ndim) if d != 1), eps)
        else:
            y = (x - mean.detach().reshape(shape)) * invstd.detach().reshape(shape)
        return _affine(y, w, b, shape)
    return f


def _unnormalize(c: Tensor, size: int, align: bool) -> Tensor:
    return (c + 1.0) * ((size - 1) / 2.0) if align else ((c + 1.0) * size - 1.0) / 2.0


def _clip(c: Tensor, size: int) -> Tensor:
    """`c` clipped to [0, size - 1], with a zero gradient on and beyond the bounds (PyTorch's rule)."""
    inside = (c > 0) & (c < size - 1)
    return ew.where(inside, c, c.detach().clamp(0, size - 1))


def _reflect(c: Tensor, twice_low: int, twice_high: int) -> Tensor:
    if twice_low == twice_high:
        return c * 0.0
    lo, span = twice_low / 2.0, (twice_high - twice_low) / 2.0
    a = ew.abs(c - lo)
    extra = ew.fmod(a, span)
    even = ew.fmod(ew.floor(a.detach() / span), 2.0) == 0
    return ew.where(even, extra + lo, (span - extra) + lo)


def _pad(c: Tensor, size: int, padding: int, align: bool) -> Tensor:
    if padding == 1:
        return _clip(c, size)
    if padding == 2:
        return _clip(_reflect(c, 0, 2 * (size - 1)) if align else _reflect(c, -1, 2 * size - 1), size)
    return c


def _read(flat: Tensor, idx: list, sizes: tuple) -> Tensor:
    """flat `(N, C, L)` read at the integer-valued coordinates `idx` (each `(N, P)`, x first); 0 outside."""
    valid, lin, stride = None, None, 1
    for i, size in zip(idx, sizes):
        ok = (i >= 0) & (i <= size - 1)
        valid = ok if valid is None else valid & ok
        term = i * stride
        lin = term if lin is None else lin + term
        stride *= size
    lin = ew.where(valid, lin, 0.0).long().unsqueeze(1).expand(flat.shape[0], flat.shape[1], lin.shape[1])
    return ew.where(valid.unsqueeze(1), flat.gather(2, lin), 0.0)


def _cubic(t: Tensor) -> list:
    """PyTorch's cubic convolution coefficients (A = -0.75) of the 4 taps around fraction `t`."""
    a = -0.75

    def near(x):
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0

    def far(x):
        return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a

    return [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]


def grid_sampler_fn(interpolation_mode: int, padding_mode: int, align_corners: bool) -> Callable:
    """grid_sampler written with ops, by PyTorch's CPU math: each point's taps gathered from the flattened input
    planes, their weights differentiable in the grid (the taps' positions are not)."""
    import itertools

    def f(input, grid):
        n, c = input.shape[0], input.shape[1]
        sizes = tuple(input.shape[2:])[::-1]  # x (width) first, as the grid's last dimension
        g = grid.reshape(n, -1, len(sizes))
        flat = input.reshape(n, c, -1)
        cs = [_unnormalize(g[..., k], s, align_corners) for k, s in enumerate(sizes)]
        out = None
        if interpolation_mode == 2:
            lo = [ew.floor(x.detach()) for x in cs]
            coef = [_cubic(x - l) for x, l in zip(cs, lo)]
            for i, j in itertools.product(range(4), repeat=2):
                taps = [_pad(lo[0] + (i - 1.0), sizes[0], padding_mode, align_corners).trunc(),
                        _pad(lo[1] + (j - 1.0), sizes[1], padding_mode, align_corners).trunc()]
                term = (coef[0][i] * coef[1][j]).unsqueeze(1) * _read(flat, taps, sizes)
                out = term if out is None else out + term
        else:
            cs = [_pad(x, s, padding_mode, align_corners) for x, s in zip(cs, sizes)]
            if interpolation_mode == 1:
                out = _read(flat, [ew.round(x.detach()) for x in cs], sizes)
            else:
                lo = [ew.floor(x.detach()) for x in cs]
                for corner in itertools.product((0, 1), repeat=len(sizes)):
                    w = None
                    for x, l, b in zip(cs, lo, corner):
                        wk = x - l if b else (l + 1.0) - x
                        w = wk if w is None else w * wk
                    term = w.unsqueeze(1) * _read(flat, [l + b for l, b in zip(lo, corner)], sizes)
                    out = term if out is None else out + term
        return out.reshape((n, c) + tuple(grid.shape[1:-1]))
    return f


def cross_entropy_fn(target, weight, reduction: str, ignore_index: int, label_smoothing: float) -> Callable:
    """cross_entropy from log_softmax, as PyTorch defines it for class indices (ignore_index,
    weights, label smoothing; 'mean' divides by the summed weights of the kept targets) and for
    class probabilities ('mean' divides by the number of rows)."""
    def f(x):
        cdim = 1 if x.ndim >= 2 else 0
        n_classes = x.shape[cdim]
        logp = get_op("log_softmax")(x, cdim)
        wshape = tuple(n_classes if d == cdim else 1 for d in range(x.ndim))
        wlogp = logp * weight.reshape(wshape) if weight is not None else logp
        if target.is_floating_point():
            t = target * (1.0 - label_smoothing) + label_smoothing / n_classes
            per = -(wlogp * t).sum(cdim)
            return per.mean() if reduction == "mean" else per.sum() if reduction == "sum" else per
        keep = target != ignore_index
        per = get_op("nll_loss")(logp, target, weight, "none", ignore_index)[0]
        if label_smoothing:
            smooth = ew.where(keep, -wlogp.sum(cdim), 0.0)
            per = per * (1.0 - label_smoothing) + smooth * (label_smoothing / n_classes)
        if reduction == "none":
            return per
        if reduction == "sum":
            return per.sum()
        safe = ew.where(keep, target, 0)
        kept = weight[safe] * keep if weight is not None else keep.to(x.dtype)
        return per.sum() / kept.sum()
    return f


def vjp_of(fn: Callable, primals: list, ggs: list) -> list:
    """The vector-Jacobian product of `fn(*primals)` (a tuple of outputs) with `ggs`: a fused
    backward op written out with ops, differentiated once (None for a None primal)."""
    from ember.autograd.engine import grad
    from ember.autograd.grad_mode import enable_grad, is_grad_enabled

    higher = is_grad_enabled()
    with enable_grad():
        ps = [_input(p, higher) if isinstance(p, Tensor) else None for p in primals]
        outs = fn(*ps)
        pairs = [(o, g) for o, g in zip(outs, ggs) if g is not None and o.requires_grad]
        if not pairs:
            return [None] * len(primals)
        res = iter(grad([o for o, _ in pairs], [p for p in ps if p is not None], [g for _, g in pairs],
                        allow_unused=True, create_graph=higher))
    return [next(res) if p is not None else None for p in ps]


def _split(t: Tensor, n: int) -> list:
    h = t.shape[-1] // n
    return [t.narrow(-1, k * h, h) for k in range(n)]


def lstm_backward_fn(grad_hy, grad_cy, cx, cy, workspace):
    """`lstm_cell_backward` written with ops: (grad_gates, grad_cx)."""
    from ember.core import cat

    i, f, g, o = _split(workspace, 4)
    tc = ew.tanh(cy)
    gc = 0.0 * cy if grad_cy is None else grad_cy
    if grad_hy is not None:
        gc = gc + grad_hy * o * (1.0 - tc * tc)
    go = 0.0 * cy if grad_hy is None else grad_hy * tc * o * (1.0 - o)
    gates = cat([gc * g * i * (1.0 - i), gc * cx * f * (1.0 - f), gc * i * (1.0 - g * g), go], -1)
    return gates, gc * f


def gru_backward_fn(grad_hy, workspace):
    """`gru_cell_backward` written with ops: (grad_input_gates, grad_hidden_gates, grad_hx)."""
    from ember.core import cat

    r, z, n, hn, hx = _split(workspace, 5)
    gn = grad_hy * (1.0 - z) * (1.0 - n * n)
    gz = grad_hy * (hx - n) * z * (1.0 - z)
    gr = gn * hn * r * (1.0 - r)
    return cat([gr, gz, gn], -1), cat([gr, gz, gn * r], -1), grad_hy * z
