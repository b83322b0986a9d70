"""Kernels composed from other ops, registered once as `"any"` kernels (NOTE [ Composite kernels ]
in `ember.core.dispatch`) for every device without a kernel of its own: pad_nd (+ backward) over
index maps, upsample (+ backward) as one small matmul per spatial dim, the fused LSTM/GRU cells
(+ backward), the LSTM layer (+ backward) over the cell and mm, isclose, trace, isin,
masked_scatter (a running count of the mask picks each source element), embedding_renorm_, take,
put, max_unpool (a scatter into zeroed planes), fractional_max_pool (a gather, then a max) and
native_dropout_backward. The CPU keeps its numpy/Numba kernels; CUDA runs these on its primitives,
where every step queues on the stream and nothing synchronizes (but fractional_max_pool, whose
window positions come from the samples on the host). Arguments arrive checked by each op's meta
step."""

from __future__ import annotations

import math

import numpy as np

from ember.core import dtypes
from ember.core.creation import from_numpy, new_empty, tensor
from ember.core.dispatch import get_op
from ember.core.ops import fractional_pool as FP
from ember.core.ops import padding as PD
from ember.core.ops import upsample as UP
from ember.core.ops._util import prepare_out
from ember.core.ops.layout import reshape
from ember.core.settings import preserve_format
from ember.core.tensor import Tensor, contiguous_strides

__all__: list[str] = []  # kernels only: the public functions are in their ops' modules


def _op(name: str):
    return get_op(name)


def _device_ints(a: np.ndarray, dev) -> Tensor:
    return from_numpy(np.ascontiguousarray(a, dtype=np.int64)).to(dev)


def _pad_nd(input, pad, mode, value=0.0):
    a = input
    dev = input._storage.device
    for d, src in PD._maps(tuple(a._shape), pad, mode):
        shape = a._shape[:d] + (len(src),) + a._shape[d + 1:]
        if a._shape[d] == 0:
            a = _op("fill_")(_empty(shape, a._dtype, dev), 0)
        else:
            a = _op("index_select")(a, d, _device_ints(np.maximum(src, 0), dev))
        if mode == "constant" and (src < 0).any():
            mask = _device_ints(src < 0, dev).to(dtypes.bool).view((-1,) + (1,) * (a.ndim - d - 1))
            a = _op("masked_fill")(a, mask, value, out=a)
    return a if a is not input else _op("clone")(a)


def _pad_nd_backward(grad, input_shape, pad, mode):
    g = grad
    dev = grad._storage.device
    for d, src in PD._maps(tuple(input_shape), pad, mode):
        keep = np.nonzero(src >= 0)[0]
        shape = g._shape[:d] + (input_shape[d],) + g._shape[d + 1:]
        acc = _op("fill_")(_empty(shape, g._dtype, dev), 0)
        if keep.size:
            sel = _op("index_select")(g, d, _device_ints(keep, dev))
            acc = _op("index_add")(acc, d, _device_ints(src[keep], dev), sel, out=acc)
        g = acc
    return g


def _empty(shape, dt, dev) -> Tensor:
    return new_empty(tuple(shape), dt, dev)


def _gates(ig: Tensor, hg: Tensor, state: Tensor, ib, hb):
    h = state._shape[-1]
    add = _op("add")
    if ib is not None:
        ig = add(ig, ib)
    if hb is not None:
        hg = add(hg, hb)
    return ig, hg, h


def _lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    ig, hg, h = _gates(input_gates, hidden_gates, cx, input_bias, hidden_bias)
    gates = _op("add")(ig, hg)
    sig, tanh, mul, add = _op("sigmoid"), _op("tanh"), _op("mul"), _op("add")
    ws = _op("cat")([sig(gates.narrow(-1, 0, 2 * h)), tanh(gates.narrow(-1, 2 * h, h)),
                     sig(gates.narrow(-1, 3 * h, h))], gates.ndim - 1)
    i, f, g, o = (ws.narrow(-1, k * h, h) for k in range(4))
    cy = add(mul(f, cx), mul(i, g))
    hy = mul(o, tanh(cy))
    return hy, cy, ws


def _lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace):
    h = cx._shape[-1]
    mul, add, sub, tanh = _op("mul"), _op("add"), _op("sub"), _op("tanh")
    i, f, g, o = (workspace.narrow(-1, k * h, h) for k in range(4))
    zeros = _op("fill_")(_empty(cx._shape, cx._dtype, cx._storage.device), 0)
    ghy = grad_hy if grad_hy is not None else zeros
    gcy = grad_cy if grad_cy is not None else zeros
    tc = tanh(cy)
    gc = add(gcy, mul(mul(ghy, o), sub(1, mul(tc, tc))))
    parts = [mul(mul(gc, g), mul(i, sub(1, i))), mul(mul(gc, cx), mul(f, sub(1, f))),
             mul(mul(gc, i), sub(1, mul(g, g))), mul(mul(ghy, tc), mul(o, sub(1, o)))]
    return _op("cat")(parts, workspace.ndim - 1), mul(gc, f)


def _lstm_layer(input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx, reverse):
    """lstm_layer composed: the input projection as one mm, then per step one mm and the cell,
    written into the buffers the CPU kernel returns (hs (L + 1, N, H), cs, workspace (L, N, 5H))."""
    from ember.core.ops.rnn_cells import _layer_check

    _layer_check(input, weight_ih, weight_hh, hx, cx)
    steps, n, hid = input._shape[0], input._shape[1], weight_hh._shape[1]
    dev, dt = input._storage.device, input._dtype
    mm, tanh = _op("mm"), _op("tanh")
    gi = mm(input.reshape(steps * n, -1), weight_ih.t()).reshape(steps, n, 4 * hid)
    hs, cs, ws = (_empty(shape, dt, dev) for shape in ((steps + 1, n, hid), (steps, n, hid), (steps, n, 5 * hid)))
    hs[steps if reverse else 0].copy_(hx)
    c = cx
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        h_prev = hs[t + 1] if reverse else hs[t]
        hy, c, gates = _lstm_cell(gi[t], mm(h_prev, weight_hh.t()), c, bias_ih, bias_hh)
        hs[t if reverse else t + 1].copy_(hy)
        cs[t].copy_(c)
        ws[t].narrow(-1, 0, 4 * hid).copy_(gates)
        ws[t].narrow(-1, 4 * hid, hid).copy_(tanh(c))
    return hs, cs, ws


def _lstm_layer_backward(grad_output, grad_hy, grad_cy, input, weight_ih, weight_hh, cx, hs, cs, workspace,
                         reverse, output_mask):
    steps, n, hid = input._shape[0], input._shape[1], weight_hh._shape[1]
    dev, dt = input._storage.device, input._dtype
    mm, add = _op("mm"), _op("add")
    gg = _empty((steps, n, 4 * hid), dt, dev)
    gh = grad_hy if grad_hy is not None else _op("fill_")(_empty((n, hid), dt, dev), 0)
    gc = grad_cy
    for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
        first = t == (steps - 1 if reverse else 0)
        c_prev = cx if first else cs[t + 1 if reverse else t - 1]
        g, gc = _lstm_cell_backward(add(grad_output[t], gh), gc, c_prev, cs[t], workspace[t].narrow(-1, 0, 4 * hid))
        gg[t].copy_(g)
        gh = mm(g, weight_hh)
    g2 = gg.reshape(steps * n, 4 * hid)
    g_x = g_w_ih = g_w_hh = g_b = None
    if output_mask[0]:
        g_x = mm(g2, weight_ih).reshape(tuple(input._shape))
    if output_mask[1]:
        g_w_hh = mm(g2.t(), (hs[1:] if reverse else hs[:steps]).reshape(steps * n, hid))
        g_w_ih = mm(g2.t(), input.reshape(steps * n, -1))
    if output_mask[2]:
        g_b = _op("sum")(g2, (0,), False)
    return g_x, g_w_ih, g_w_hh, g_b, gh, gc


def _gru_cell(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None):
    ig, hg, h = _gates(input_gates, hidden_gates, hx, input_bias, hidden_bias)
    sig, tanh, mul, add, sub = _op("sigmoid"), _op("tanh"), _op("mul"), _op("add"), _op("sub")
    r = sig(add(ig.narrow(-1, 0, h), hg.narrow(-1, 0, h)))
    z = sig(add(ig.narrow(-1, h, h), hg.narrow(-1, h, h)))
    hn = hg.narrow(-1, 2 * h, h)
    n = tanh(add(ig.narrow(-1, 2 * h, h), mul(r, hn)))
    hy = add(n, mul(z, sub(hx, n)))
    return hy, _op("cat")([r, z, n, hn, hx], hx.ndim - 1)


def _gru_cell_backward(grad_hy, workspace):
    h = workspace._shape[-1] // 5
    mul, sub = _op("mul"), _op("sub")
    r, z, n, hn, hxa = (workspace.narrow(-1, k * h, h) for k in range(5))
    g = grad_hy
    gn = mul(mul(g, sub(1, z)), sub(1, mul(n, n)))
    gz = mul(mul(g, sub(hxa, n)), mul(z, sub(1, z)))
    gr = mul(mul(gn, hn), mul(r, sub(1, r)))
    last = workspace.ndim - 1
    return _op("cat")([gr, gz, gn], last), _op("cat")([gr, gz, mul(gn, r)], last), mul(g, z)


def _gru_layer(input, weight_ih, weight_hh, bias_ih, bias_hh, hx, reverse):
    """gru_layer composed: the input projection as one mm, then per step one mm and the cell; hs (L + 1, N, H) as
    the CPU kernel's, the workspace this composition's own layout (L, N, 5H): each step's cell workspace."""
    from ember.core.ops.rnn_cells import _gru_layer_check

    _gru_layer_check(input, weight_ih, weight_hh, hx)
    steps, n, hid = input._shape[0], input._shape[1], weight_hh._shape[1]
    dev, dt, mm = input._storage.device, input._dtype, _op("mm")
    gi = mm(input.reshape(steps * n, -1), weight_ih.t()).reshape(steps, n, 3 * hid)
    hs, ws = _empty((steps + 1, n, hid), dt, dev), _empty((steps, n, 5 * hid), dt, dev)
    hs[steps if reverse else 0].copy_(hx)
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        h_prev = hs[t + 1] if reverse else hs[t]
        hy, cell = _gru_cell(gi[t], mm(h_prev, weight_hh.t()), h_prev, bias_ih, bias_hh)
        hs[t if reverse else t + 1].copy_(hy)
        ws[t].copy_(cell)
    return hs, ws


def _gru_layer_backward(grad_output, grad_hy, input, weight_ih, weight_hh, workspace, reverse, output_mask):
    steps, n, hid = input._shape[0], input._shape[1], weight_hh._shape[1]
    dev, dt = input._storage.device, input._dtype
    mm, add = _op("mm"), _op("add")
    g_in, g_hid = _empty((steps, n, 3 * hid), dt, dev), _empty((steps, n, 3 * hid), dt, dev)
    gh = grad_hy if grad_hy is not None else _op("fill_")(_empty((n, hid), dt, dev), 0)
    for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
        gi_t, gh_t, g_prev = _gru_cell_backward(add(grad_output[t], gh), workspace[t])
        g_in[t].copy_(gi_t)
        g_hid[t].copy_(gh_t)
        gh = add(g_prev, mm(gh_t, weight_hh))
    gi2, gh2 = g_in.reshape(steps * n, 3 * hid), g_hid.reshape(steps * n, 3 * hid)
    g_x = g_w_ih = g_w_hh = g_b_ih = g_b_hh = None
    if output_mask[0]:
        g_x = mm(gi2, weight_ih).reshape(tuple(input._shape))
    if output_mask[1]:
        g_w_ih = mm(gi2.t(), input.reshape(steps * n, -1))
        g_w_hh = mm(gh2.t(), workspace.narrow(-1, 4 * hid, hid).reshape(steps * n, hid))
    if output_mask[2]:
        g_b_ih, g_b_hh = _op("sum")(gi2, (0,), False), _op("sum")(gh2, (0,), False)
    return g_x, g_w_ih, g_w_hh, g_b_ih, g_b_hh, gh


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    eq = _op("eq")(a, b)
    if a._dtype is dtypes.bool or (not a._dtype.is_floating_point and rtol == 0 and atol == 0):
        return eq
    diff = _op("abs")(_op("sub")(a, b))
    tol = _op("add")(_op("mul")(_op("abs")(b), rtol), atol)
    close = _op("logical_and")(_op("le")(diff, tol), _op("isfinite")(diff)) if a._dtype.is_floating_point \
        else _op("le")(diff, tol)
    r = _op("logical_or")(eq, close)
    if equal_nan and a._dtype.is_floating_point:
        r = _op("logical_or")(r, _op("logical_and")(_op("isnan")(a), _op("isnan")(b)))
    return r


def _trace(input):
    dt = input._dtype if input._dtype.is_floating_point or input._dtype.is_complex else dtypes.int64
    return _op("sum")(input.diagonal(), (0,), False, dt)


def _device_matrix(m: np.ndarray, like: Tensor) -> Tensor:
    return from_numpy(np.ascontiguousarray(m, dtype=like._dtype.np)).to(like._storage.device)


def _apply_mats(a: Tensor, mats, transpose: bool) -> Tensor:
    """Contract each trailing spatial dim of `a` with its `(out, in)` matrix (or its transpose)."""
    for k, m in enumerate(mats):
        d = a.ndim - len(mats) + k
        mm = _device_matrix(m if transpose else m.T, a)
        moved = a.movedim(d, -1)
        lead = moved._shape[:-1]
        r = _op("mm")(moved.reshape(-1, moved._shape[-1]), mm)
        a = r.reshape(lead + (mm._shape[1],)).movedim(-1, d)
    return _op("clone")(a) if not a.is_contiguous() else a


def _mats(in_sizes, out_sizes, mode, align_corners, scales, f64: bool) -> list[np.ndarray]:
    """The `(out, in)` interpolation matrix of each spatial dim, from the CPU op's taps."""
    mats = []
    for n_in, (i0, i1, lam) in zip(in_sizes, UP._all_taps(in_sizes, out_sizes, mode, align_corners, scales, f64),
                                   strict=True):
        m = np.zeros((len(i0), n_in))
        rows = np.arange(len(i0))
        if lam is None:
            m[rows, i0] = 1.0
        else:
            np.add.at(m, (rows, i0), 1.0 - lam)
            np.add.at(m, (rows, i1), lam)
        mats.append(m)
    return mats


def _upsample(input, output_size, mode, align_corners, scales):
    f64 = input._dtype is dtypes.float64
    return _apply_mats(input, _mats(input._shape[2:], output_size, mode, align_corners, scales, f64), False)


def _upsample_backward(grad, input_shape, mode, align_corners, scales):
    f64 = grad._dtype is dtypes.float64
    return _apply_mats(grad, _mats(tuple(input_shape[2:]), grad._shape[2:], mode, align_corners, scales, f64), True)


def _on_device(v, like: Tensor, dtype=None) -> Tensor:
    if isinstance(v, Tensor):
        return v if v._storage.device == like._storage.device else v.to(like._storage.device)
    return tensor(v, dtype=dtype, device=like._storage.device)


def _isin(elements, test_elements, invert=False):
    like = elements if isinstance(elements, Tensor) else test_elements
    e = _on_device(elements, like)
    t = _on_device(test_elements, like).reshape(-1)
    hit = _op("any")(_op("eq")(e.unsqueeze(-1), t), (e.ndim,), False) if t.numel() else \
        _op("fill_")(_empty(e._shape, dtypes.bool, e._storage.device), False)
    return _op("logical_not")(hit) if invert else hit


def _masked_scatter(input, mask, source, *, out=None):
    t = input if out is input else _op("clone")(input)
    shape = t._shape
    n = source.numel()
    if n:  # else the meta step found no ones in the mask: nothing to write
        m = mask.expand(shape).reshape(-1)
        pos = _op("sub")(_op("cumsum")(m, 0, dtypes.int64), 1)
        vals = _op("index")(source.reshape(-1), (_op("clamp")(pos, 0, n - 1),))
        merged = _op("where")(m, vals, t.reshape(-1))
        t.copy_(merged.view(shape))
    if out is None or out is t:
        return t
    return out.resize_(shape).copy_(t)


def _embedding_renorm(weight, indices, max_norm, norm_type):
    idx = _op("remainder")(indices.reshape(-1), weight._shape[0])  # the meta step kept [-rows, rows): wrap
    rows = _op("index_select")(weight, 0, idx)
    # as the CPU kernel: the norm accumulated in double, rounded to the weight's dtype, read out as a double
    norms = _op("vector_norm")(_op("to_dtype")(rows, dtypes.float64), float(norm_type), (1,), False, None)
    norms = _op("to_dtype")(_op("to_dtype")(norms, weight._dtype), dtypes.float64)
    big = _op("gt")(norms, max_norm)
    scale = _op("where")(big, _op("div")(max_norm, _op("add")(norms, 1e-7)), 1.0)
    _op("index_put_")(weight, (idx,), _op("mul")(rows, _op("to_dtype")(scale, weight._dtype).unsqueeze(1)), False)
    return weight


def _max_unpool(input, indices, output_size):
    """A scatter into zeroed planes (the meta step checked every index against its plane)."""
    nd = len(output_size)
    lead = tuple(input._shape[:-nd])
    planes = math.prod(lead)
    out = get_op("fill_")(_empty((planes, math.prod(output_size)), input._dtype, input._storage.device), 0)
    if input.numel():
        src = reshape(input, (planes, -1))
        idx = reshape(indices, (planes, -1))
        out = get_op("scatter")(out, 1, idx, src, out=out)
    return reshape(out, lead + tuple(output_size))


def _fractional_max_pool(input, kernel_size, output_size, samples):
    """Window positions from the samples on the host, then a gather and a max on the device."""
    nd = len(kernel_size)
    spatial, lead = tuple(input._shape[-nd:]), tuple(input._shape[:-nd])
    planes, m, k = math.prod(lead), math.prod(output_size), math.prod(kernel_size)
    pos = FP.window_positions(FP.plane_samples(input, samples, nd), spatial, kernel_size, output_size)
    pos = from_numpy(pos.reshape(planes, m * k)).to(input._storage.device)
    vals = reshape(get_op("gather")(reshape(input, (planes, math.prod(spatial))), 1, pos), (planes, m, k))
    out, pick = get_op("max_dim")(vals, 2, True)
    idx = get_op("gather")(reshape(pos, (planes, m, k)), 2, pick)
    shape = lead + tuple(output_size)
    return reshape(out, shape), reshape(idx, shape)


def _native_dropout_backward(grad, mask, scale):
    mul = _op("mul")
    return mul(mul(grad, mask), scale)


def _take(input, index, *, out=None):
    r = _op("index")(input.reshape(-1), (index,))
    return r if out is None else prepare_out(out, r._shape, r._dtype, r._storage.device, "take").copy_(r)


def _put(input, index, source, accumulate=False, *, out=None):
    t = input if out is input else _op("clone")(input, memory_format=preserve_format)  # as the CPU's, PyTorch's
    dense = t.numel() <= 1 or t._strides == contiguous_strides(t._shape)
    flat = t.view(-1) if dense else _op("clone")(t).view(-1)
    _op("index_put_")(flat, (index.reshape(-1),), source.reshape(-1), accumulate)
    if not dense:
        t.copy_(flat.view(t._shape))
    if out is None or out is t:
        return t
    return prepare_out(out, t._shape, t._dtype, t._storage.device, "put").copy_(t)


for _name, _kernel in (("pad_nd", _pad_nd), ("pad_nd_backward", _pad_nd_backward), ("lstm_cell", _lstm_cell),
                       ("lstm_cell_backward", _lstm_cell_backward), ("lstm_layer", _lstm_layer),
                       ("lstm_layer_backward", _lstm_layer_backward), ("gru_cell", _gru_cell),
                       ("gru_cell_backward", _gru_cell_backward), ("gru_layer", _gru_layer),
                       ("gru_layer_backward", _gru_layer_backward), ("isclose", _isclose), ("trace", _trace),
                       ("upsample", _upsample), ("upsample_backward", _upsample_backward), ("isin", _isin),
                       ("masked_scatter", _masked_scatter), ("embedding_renorm_", _embedding_renorm),
                       ("take", _take), ("put", _put), ("max_unpool", _max_unpool),
                       ("fractional_max_pool", _fractional_max_pool),
                       ("native_dropout_backward", _native_dropout_backward)):
    get_op(_name).register("any")(_kernel)
