"""Fused LSTM and GRU cell gates (PyTorch's _thnn_fused_lstm_cell / _thnn_fused_gru_cell).

The caller computes the gate pre-activations with its own matmuls (`x @ w_ih.T`, `h @ w_hh.T`);
these ops apply biases, nonlinearities and the state update in one pass and save a workspace
of activated gates, so the backward needs no recomputation. Gate order: i, f, g, o (LSTM) and
r, z, n (GRU), as PyTorch lays out `weight_ih_l0`.

`lstm_layer` runs a whole LSTM layer direction (the node `nn.LSTM` records per layer, as
PyTorch's CPU LSTM runs `mkldnn_rnn_layer`); on the CPU each step is one GEMM and one compiled
Numba pass over the gates.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from functools import cache

import numpy as np

from ember.core.dispatch import declare
from ember.core.ops._util import wrap
from ember.core.ops.blas_threads import matmul, single_threaded
from ember.core.ops.numba_rows import transposed
from ember.core.tensor import Tensor, describe

# lstm_layer and its backward (ember.nn's LSTM node, no PyTorch name) stay out of the torch namespace

# Numba's pedantic SSA check (NumbaIRAssumptionWarning) flags the selects of `exp32`, inlined twice into the
# LSTM kernels (their `exp` overload, then exp32 itself), as a variable out of scope; the code is right (the
# tests hold it to float64), and without the inlining the loops do not vectorize (the layer 3.5x slower), so
# that one message is not shown (matched by message: naming the category would import numba here), neither by
# default nor under a caller's `catch_warnings` with `simplefilter("always")` (the first call of each dtype)
_EXP32_SCOPE = r"variable '.*exp32.*' is not in scope"
warnings.filterwarnings("ignore", message=_EXP32_SCOPE)
_compiled: set = set()


@contextlib.contextmanager
def _quiet_compile(kernel: str, dt):
    """Around the first calls of a layer kernel for one dtype (those that compile it): the exp32 message hidden."""
    if (kernel, dt) in _compiled:
        yield
        return
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_EXP32_SCOPE)
        yield
    _compiled.add((kernel, dt))


def _quiet(kernel: str, dt, fn):
    """`fn`, or, until its first call for `dt` has compiled it, `fn` under `_quiet_compile`: a cell op runs once per
    time step, where the context manager's five frames were a tenth of the op's Python calls."""
    if (kernel, dt) in _compiled:
        return fn

    def first(*args):
        with _quiet_compile(kernel, dt):
            return fn(*args)
    return first
__all__ = ["_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "lstm_cell_backward", "gru_cell_backward"]


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _gates_meta(op: str, k: int):
    """The meta step of a fused cell: gates `(N, k*H)` beside a state `(N, H)`, on every device."""
    def check(input_gates: Tensor, hidden_gates: Tensor, state: Tensor, input_bias=None, hidden_bias=None) -> None:
        ig, hg, h = input_gates._shape, hidden_gates._shape, state._shape[-1]
        if ig != hg or ig[-1] != k * h or ig[:-1] != state._shape[:-1]:
            raise RuntimeError(f"{op}: expected input_gates and hidden_gates of shape (N, {k}*H) with state (N, H); "
                               f"got {describe(input_gates)}, {describe(hidden_gates)} and {describe(state)}")
    return check


def _pre(input_gates: Tensor, hidden_gates: Tensor, state: Tensor, input_bias, hidden_bias):
    ig, hg, s = input_gates._np(), hidden_gates._np(), state._np()
    h = s.shape[-1]
    if input_bias is not None:
        ig = ig + input_bias._np()
    if hidden_bias is not None:
        hg = hg + hidden_bias._np()
    return ig, hg, s, h


lstm_cell = declare("lstm_cell", doc="""Fused LSTM cell update from precomputed gates.

Positional signature: `lstm_cell(input_gates, hidden_gates, cx, input_bias=None,
hidden_bias=None)`, gates `(N, 4H)` in order i, f, g, o, cx `(N, H)`, biases `(4H,)` or None.
Returns `(hy, cy, workspace)`: `cy = f * cx + i * g`, `hy = o * tanh(cy)`, workspace `(N, 4H)`
the activated gates (no gradient). Backward: `lstm_cell_backward(grad_hy, grad_cy, cx, cy,
workspace)` -> (grad_gates, grad_cx); grad_gates is the gradient of both input_gates and
hidden_gates, and `grad_gates.sum(0)` that of either bias.""")
lstm_cell.meta(_gates_meta("lstm_cell", 4))


@lstm_cell.register("cpu")
def _lstm_cell_cpu(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    ops = _cell_operands(input_gates, hidden_gates, cx, input_bias, hidden_bias)
    if ops is not None:
        ig, hg, bi, bh, c = ops  # one step of lstm_layer's kernel, whose workspace also holds tanh(c_t)
        n, h = c.shape
        hy, cy, ws = np.empty((1, n, h), c.dtype), np.empty((1, n, h), c.dtype), np.empty((1, n, 5 * h), c.dtype)
        _quiet("forward", c.dtype, _layer_kernels()[0])(0, -1, 0, hg, ig.reshape(1, n, 4 * h), bi + bh, hy, cy, c, ws)
        return wrap(hy[0]), wrap(cy[0]), wrap(np.ascontiguousarray(ws[0, :, :4 * h]))
    ig, hg, c, h = _pre(input_gates, hidden_gates, cx, None, None)
    ws = np.add(ig, hg)  # the gates, activated in place: one buffer, a few passes over it
    for bias in (input_bias, hidden_bias):
        if bias is not None:
            ws += bias._np()
    with np.errstate(over="ignore"):  # exp(-x) = inf for x << 0 is sigmoid 0, tanh -1
        g = ws[..., 2 * h:3 * h]
        np.negative(ws[..., :2 * h], out=ws[..., :2 * h])
        np.negative(ws[..., 3 * h:], out=ws[..., 3 * h:])
        g *= -2.0  # tanh(x) = 2 sigmoid(2x) - 1: numpy's exp is vectorized where its tanh is not
        np.exp(ws, out=ws)  # then 1 / (1 + exp(-x)) over the whole contiguous buffer
        ws += 1.0
        np.reciprocal(ws, out=ws)
        g *= 2.0
        g -= 1.0
        i, f, o = ws[..., :h], ws[..., h:2 * h], ws[..., 3 * h:]
        cy = f * c
        cy += i * g
        hy = np.multiply(cy, 2.0)
        _sigmoid_(hy)
        hy *= 2.0
        hy -= 1.0
    hy *= o
    dt = c.dtype
    return wrap(hy.astype(dt, copy=False)), wrap(cy.astype(dt, copy=False)), wrap(ws.astype(dt, copy=False))


def _sigmoid_(x: np.ndarray) -> None:
    """x = 1 / (1 + exp(-x)), in place."""
    np.negative(x, out=x)
    np.exp(x, out=x)
    x += 1.0
    np.reciprocal(x, out=x)


lstm_cell_backward = declare("lstm_cell_backward", doc="""The gradients of lstm_cell.

Positional signature: `lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace)` (either grad
may be None, meaning zeros) -> `(grad_gates (N, 4H), grad_cx (N, H))`.""")


@lstm_cell_backward.register("cpu")
def _lstm_cell_backward_cpu(grad_hy, grad_cy, cx, cy, workspace):
    c = cx._np()
    dt, shape = cx._dtype, cx._shape
    if (c.dtype in _CELL_DTYPES and c.ndim == 2 and c.size
            and (grad_hy is None or grad_hy._dtype is dt and grad_hy._shape == shape)
            and (grad_cy is None or grad_cy._dtype is dt and grad_cy._shape == shape)
            and (cy is None or cy._dtype is dt and cy._shape == shape)
            and workspace._dtype is dt and workspace._shape == (c.shape[0], 4 * c.shape[1])):
        ws, c = _rows(workspace), _rows(cx)
        ghy = _rows(grad_hy) if grad_hy is not None else c
        gcy = _rows(grad_cy) if grad_cy is not None else c
        gg, gcx = np.empty_like(ws), np.empty_like(c)
        _quiet("lstm_cell_backward", c.dtype, _cell_kernels()[0])(
            ghy, grad_hy is not None, gcy, grad_cy is not None, c, _rows(cy), ws, gg, gcx)
        return wrap(gg), wrap(gcx)
    ws, c, cn = workspace._np(), cx._np(), cy._np()
    h = c.shape[-1]
    i, f, g, o = ws[..., :h], ws[..., h:2 * h], ws[..., 2 * h:3 * h], ws[..., 3 * h:]
    ghy = grad_hy._np() if grad_hy is not None else np.zeros_like(c)
    gcy = grad_cy._np() if grad_cy is not None else np.zeros_like(c)
    tc = np.tanh(cn)
    gc = gcy + ghy * o * (1 - tc * tc)
    out = np.empty_like(ws)
    out[..., :h] = gc * g * i * (1 - i)
    out[..., h:2 * h] = gc * c * f * (1 - f)
    out[..., 2 * h:3 * h] = gc * i * (1 - g * g)
    out[..., 3 * h:] = ghy * tc * o * (1 - o)
    return wrap(out), wrap((gc * f).astype(c.dtype, copy=False))


gru_cell = declare("gru_cell", doc="""Fused GRU cell update from precomputed gates.

Positional signature: `gru_cell(input_gates, hidden_gates, hx, input_bias=None,
hidden_bias=None)`, gates `(N, 3H)` in order r, z, n, hx `(N, H)`, biases `(3H,)` or None.
`r = sigmoid(i_r + h_r)`, `z = sigmoid(i_z + h_z)`, `n = tanh(i_n + r * h_n)`,
`hy = (1 - z) * n + z * hx`. Returns `(hy, workspace)`, workspace `(N, 5H)` = [r, z, n, h_n, hx]
(no gradient). Backward: `gru_cell_backward(grad_hy, workspace)` -> (grad_input_gates,
grad_hidden_gates, grad_hx); bias gradients are the sums over dim 0 of the gate gradients.""")
gru_cell.meta(_gates_meta("gru_cell", 3))


@gru_cell.register("cpu")
def _gru_cell_cpu(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None):
    ops = _cell_operands(input_gates, hidden_gates, hx, input_bias, hidden_bias)
    if ops is not None:
        ig, hg, bi, bh, x = ops
        hy, ws = np.empty_like(x), np.empty((x.shape[0], 5 * x.shape[1]), x.dtype)
        _quiet("gru_cell", x.dtype, _cell_kernels()[1])(ig, hg, bi, bh, x, hy, ws)
        return wrap(hy), wrap(ws)
    ig, hg, hxa, h = _pre(input_gates, hidden_gates, hx, input_bias, hidden_bias)
    r = _sigmoid(ig[..., :h] + hg[..., :h])
    z = _sigmoid(ig[..., h:2 * h] + hg[..., h:2 * h])
    hn = hg[..., 2 * h:]
    n = np.tanh(ig[..., 2 * h:] + r * hn)
    hy = n + z * (hxa - n)
    dt = hxa.dtype
    ws = np.concatenate([r, z, n, hn, hxa], axis=-1).astype(dt, copy=False)
    return wrap(hy.astype(dt, copy=False)), wrap(ws)


gru_cell_backward = declare("gru_cell_backward", doc="""The gradients of gru_cell.

Positional signature: `gru_cell_backward(grad_hy, workspace)` -> `(grad_input_gates (N, 3H),
grad_hidden_gates (N, 3H), grad_hx (N, H))`.""")


@gru_cell_backward.register("cpu")
def _gru_cell_backward_cpu(grad_hy, workspace):
    g = grad_hy._np()
    if (g.dtype in _CELL_DTYPES and g.ndim == 2 and g.size and workspace._dtype is grad_hy._dtype
            and workspace._shape == (g.shape[0], 5 * g.shape[1])):
        g, ws = _rows(grad_hy), _rows(workspace)
        gi, gh = np.empty((g.shape[0], 3 * g.shape[1]), g.dtype), np.empty((g.shape[0], 3 * g.shape[1]), g.dtype)
        ghx = np.empty_like(g)
        _quiet("gru_cell_backward", g.dtype, _cell_kernels()[2])(g, ws, gi, gh, ghx)
        return wrap(gi), wrap(gh), wrap(ghx)
    ws, g = workspace._np(), grad_hy._np()
    h = ws.shape[-1] // 5
    r, z, n, hn, hxa = (ws[..., k * h:(k + 1) * h] for k in range(5))
    gn = g * (1 - z) * (1 - n * n)
    gz = g * (hxa - n) * z * (1 - z)
    gr = gn * hn * r * (1 - r)
    gi = np.concatenate([gr, gz, gn], axis=-1)
    gh = np.concatenate([gr, gz, gn * r], axis=-1)
    return wrap(gi), wrap(gh), wrap(g * z)


@cache
def _gate_exp():
    """`exp` for the gate kernels (math.exp; for float32 `exp32`, which LLVM vectorizes: see the overload) and their
    `jit` decorator."""
    import numba
    from numba import types
    from numba.extending import overload

    from ember.core.ops.vector_exp import exp32

    def exp(x):
        """math.exp; for float32, `exp32`."""

    @overload(exp)
    def _exp(x):
        # float32: the branch-free Cephes expf of NOTE [ Vectorized exp32 ], so the loops around it
        # vectorize (Numba's scalar expf runs at half numpy's speed and tanhf at a tenth); overflow is
        # inf, so a saturated gate is exactly 0 or 1 as in PyTorch. A call, not `inline="always"`: LLVM
        # inlines it and vectorizes the same (the same bits and speed), where Numba's inlining typed exp32's
        # IR again at each of forward_step's four call sites (its cold compile 1.9 -> 0.9 s)
        if x != types.float32:
            return lambda x: math.exp(x)
        return lambda x: exp32(x)

    # error_model="numpy": a division by zero gives inf instead of a branch that raises, which
    # would stop LLVM vectorizing the loops
    return exp, numba.njit(cache=True, nogil=True, error_model="numpy")


@cache
def _layer_kernels():
    """The per-step kernels, compiled on first use: `lstm_cell`'s over rows (N, 4H), and `lstm_layer`'s and its
    backward's over gate-major operands."""
    exp, jit = _gate_exp()

    @jit
    def forward_step(t, tp, slot, gates, gi, bias, hs, cs, c0, ws):
        """`lstm_cell`'s pass, as step t of a sequence: gates (N, 4H) = h_prev @ W_hh^T; writes the activated
        gates i, f, g, o and tanh(c_t) into ws[t] (N, 5H), c_t into cs[t] and h_t into hs[slot]; c_prev is c0
        when tp < 0, else cs[tp]. tanh z = 2 sigmoid(2z) - 1. Each loop indexes its arrays from 0 and
        reads few of them, which is what lets LLVM vectorize it (offsets such as w[h + j] leave it
        unable to rule out negative indices)."""
        n_rows, h4 = gates.shape
        h = h4 // 4
        one, two = ws.dtype.type(1), ws.dtype.type(2)
        for n in range(n_rows):
            w, g, x, hn, cn = ws[t, n], gates[n], gi[t, n], hs[slot, n], cs[t, n]
            cp = c0[n] if tp < 0 else cs[tp, n]
            for j in range(h4):
                w[j] = g[j] + x[j] + bias[j]
            s_if, s_g, s_o = w[:2 * h], w[2 * h:3 * h], w[3 * h:h4]
            for j in range(2 * h):
                s_if[j] = one / (one + exp(-s_if[j]))
            for j in range(h):
                s_g[j] = two / (one + exp(-two * s_g[j])) - one
            for j in range(h):
                s_o[j] = one / (one + exp(-s_o[j]))
            s_i, s_f, tc = w[:h], w[h:2 * h], w[h4:]
            for j in range(h):
                cn[j] = s_f[j] * cp[j] + s_i[j] * s_g[j]
            for j in range(h):
                tc[j] = two / (one + exp(-two * cn[j])) - one
            for j in range(h):
                hn[j] = s_o[j] * tc[j]

    @jit
    def layer_forward(t, tp, slot, gates, gi, bias, hs, c0, ws):
        """lstm_layer's step t over gate-major operands (NOTE [ lstm_layer's gate-major steps ]): gates (4H, N) =
        W_hh @ h_prev, gi (4H, L*N) the input projection, whose columns t*N... are step t's; writes the activated
        gates i, f, g, o, tanh(c_t) and c_t as the rows of ws[t] (6H, N) and h_t into hs[slot] (H, N); c_prev is c0
        (H, N) when tp < 0, else ws[tp]'s c rows. The activations run over whole gate blocks as flat loops (a row
        of N is too short a loop for LLVM's vector body)."""
        h4, n_cols = gates.shape
        h = h4 // 4
        hn = h * n_cols
        col = t * n_cols
        one, two = ws.dtype.type(1), ws.dtype.type(2)
        w = ws[t]
        for r in range(h4):
            w_r, a_r, x_r, b_r = w[r], gates[r], gi[r, col:col + n_cols], bias[r]
            for n in range(n_cols):
                w_r[n] = a_r[n] + x_r[n] + b_r
        wf = w.reshape(6 * hn)
        s_if, s_g, s_o = wf[:2 * hn], wf[2 * hn:3 * hn], wf[3 * hn:4 * hn]
        for k in range(2 * hn):
            s_if[k] = one / (one + exp(-s_if[k]))
        for k in range(hn):
            s_g[k] = two / (one + exp(-two * s_g[k])) - one
        for k in range(hn):
            s_o[k] = one / (one + exp(-s_o[k]))
        s_i, s_f, tc, cn = wf[:hn], wf[hn:2 * hn], wf[4 * hn:5 * hn], wf[5 * hn:]
        cp = c0.reshape(hn) if tp < 0 else ws[tp].reshape(6 * hn)[5 * hn:]
        for k in range(hn):
            cn[k] = s_f[k] * cp[k] + s_i[k] * s_g[k]
        for k in range(hn):
            tc[k] = two / (one + exp(-two * cn[k])) - one
        hf = hs[slot].reshape(hn)
        for k in range(hn):
            hf[k] = s_o[k] * tc[k]

    @jit
    def layer_backward(t, tp, g_out, gh, gc, c0, ws, gg):
        """Step t of lstm_layer's backward, gate-major: gh (H, N) is the gradient reaching h_t through the next
        step, gc (H, N) that of c_t (replaced by c_{t-1}'s); writes the gates' gradient into gg (4H, N)."""
        h, n_cols = gh.shape
        hn = h * n_cols
        one = ws.dtype.type(1)
        for n in range(n_cols):  # dh: the gradient of h_t in all
            go = g_out[t, n]
            for j in range(h):
                gh[j, n] += go[j]
        wf = ws[t].reshape(6 * hn)
        s_i, s_f, s_g, s_o, tc = wf[:hn], wf[hn:2 * hn], wf[2 * hn:3 * hn], wf[3 * hn:4 * hn], wf[4 * hn:5 * hn]
        cp = c0.reshape(hn) if tp < 0 else ws[tp].reshape(6 * hn)[5 * hn:]
        d = gg.reshape(4 * hn)
        d_i, d_f, d_g, d_o = d[:hn], d[hn:2 * hn], d[2 * hn:3 * hn], d[3 * hn:]
        dh, dc = gh.reshape(hn), gc.reshape(hn)
        for k in range(hn):
            dc[k] += dh[k] * s_o[k] * (one - tc[k] * tc[k])
        for k in range(hn):
            d_o[k] = dh[k] * tc[k] * s_o[k] * (one - s_o[k])
        for k in range(hn):
            d_i[k] = dc[k] * s_g[k] * s_i[k] * (one - s_i[k])
        for k in range(hn):
            d_g[k] = dc[k] * s_i[k] * (one - s_g[k] * s_g[k])
        for k in range(hn):
            d_f[k] = dc[k] * cp[k] * s_f[k] * (one - s_f[k])
        for k in range(hn):
            dc[k] *= s_f[k]

    @jit
    def gru_layer_forward(t, tp, slot, gates, gi, b_ih, b_hh, hs, ws):
        """gru_layer's step t, gate-major as lstm_layer's: gates (3H, N) = W_hh @ h_prev, gi (3H, L*N) the input
        projection; writes r, z, n, h_n (W_hh's n rows with their bias) and h_prev as the rows of ws[t] (5H, N) and
        h_t into hs[slot] (H, N); h_prev is hs[tp]."""
        h3, n_cols = gates.shape
        h = h3 // 3
        hn = h * n_cols
        col = t * n_cols
        one, two = ws.dtype.type(1), ws.dtype.type(2)
        w = ws[t]
        for r in range(2 * h):
            w_r, a_r, x_r, bi, bh = w[r], gates[r], gi[r, col:col + n_cols], b_ih[r], b_hh[r]
            for n in range(n_cols):
                w_r[n] = (x_r[n] + bi) + (a_r[n] + bh)
        for r in range(2 * h, h3):
            w_n, w_hn, a_r, x_r, bi, bh = w[r], w[r + h], gates[r], gi[r, col:col + n_cols], b_ih[r], b_hh[r]
            for n in range(n_cols):
                w_n[n] = x_r[n] + bi
            for n in range(n_cols):
                w_hn[n] = a_r[n] + bh
        wf = w.reshape(5 * hn)
        rz, nn, h_n, hp = wf[:2 * hn], wf[2 * hn:3 * hn], wf[3 * hn:4 * hn], wf[4 * hn:]
        for k in range(2 * hn):
            rz[k] = one / (one + exp(-rz[k]))
        r_, z = wf[:hn], wf[hn:2 * hn]
        for k in range(hn):
            nn[k] = two / (one + exp(-two * (nn[k] + r_[k] * h_n[k]))) - one
        prev, y = hs[tp].reshape(hn), hs[slot].reshape(hn)
        for k in range(hn):
            hp[k] = prev[k]
        for k in range(hn):
            y[k] = nn[k] + z[k] * (hp[k] - nn[k])

    @jit
    def gru_layer_backward(t, g_out, dh, gz, gm, ws, d_in, d_hid):
        """Step t of gru_layer's backward: the gradient of h_t is gz (the last step's through z) + gm (through W_hh)
        + g_out[t], into dh (H, N); writes the input gates' gradient d_in and the hidden gates' d_hid (3H, N), and
        gz = dh * z for the step before."""
        h, n_cols = dh.shape
        hn = h * n_cols
        one = ws.dtype.type(1)
        df, zf, mf = dh.reshape(hn), gz.reshape(hn), gm.reshape(hn)
        for k in range(hn):
            df[k] = zf[k] + mf[k]
        for n in range(n_cols):
            go = g_out[t, n]
            for j in range(h):
                dh[j, n] += go[j]
        wf = ws[t].reshape(5 * hn)
        r, z, nn, h_n, hp = wf[:hn], wf[hn:2 * hn], wf[2 * hn:3 * hn], wf[3 * hn:4 * hn], wf[4 * hn:]
        di, dd = d_in.reshape(3 * hn), d_hid.reshape(3 * hn)
        di_r, di_z, di_n = di[:hn], di[hn:2 * hn], di[2 * hn:]
        dh_r, dh_z, dh_n = dd[:hn], dd[hn:2 * hn], dd[2 * hn:]
        for k in range(hn):
            di_n[k] = df[k] * (one - z[k]) * (one - nn[k] * nn[k])
        for k in range(hn):
            di_z[k] = df[k] * (hp[k] - nn[k]) * z[k] * (one - z[k])
        for k in range(hn):
            di_r[k] = di_n[k] * h_n[k] * r[k] * (one - r[k])
        for k in range(hn):
            dh_r[k] = di_r[k]
        for k in range(hn):
            dh_z[k] = di_z[k]
        for k in range(hn):
            dh_n[k] = di_n[k] * r[k]
        for k in range(hn):
            zf[k] = df[k] * z[k]

    return forward_step, layer_forward, layer_backward, gru_layer_forward, gru_layer_backward


@cache
def _cell_kernels():
    """One pass each for `lstm_cell`'s backward, `gru_cell` and its backward over C-contiguous float32/float64 rows,
    compiled on first use (`lstm_cell` runs `lstm_layer`'s step): the numpy forms make a dozen passes and temporaries
    per call."""
    exp, jit = _gate_exp()

    @jit
    def lstm_backward(ghy, has_ghy, gcy, has_gcy, cx, cy, ws, gg, gcx):
        """The gates' gradient gg (N, 4H) and cx's gcx (N, H) from those of hy and cy (absent: zeros)."""
        n_rows, h = cx.shape
        one, two, zero = ws.dtype.type(1), ws.dtype.type(2), ws.dtype.type(0)
        for n in range(n_rows):
            w, d, c, cn, dcx = ws[n], gg[n], cx[n], cy[n], gcx[n]
            dh, dc = ghy[n if has_ghy else 0], gcy[n if has_gcy else 0]
            s_i, s_f, s_g, s_o = w[:h], w[h:2 * h], w[2 * h:3 * h], w[3 * h:]
            d_i, d_f, d_g, d_o = d[:h], d[h:2 * h], d[2 * h:3 * h], d[3 * h:]
            for j in range(h):
                tc = two / (one + exp(-two * cn[j])) - one
                gh = dh[j] if has_ghy else zero
                gc = (dc[j] if has_gcy else zero) + gh * s_o[j] * (one - tc * tc)
                d_o[j] = gh * tc * s_o[j] * (one - s_o[j])
                d_i[j] = gc * s_g[j] * s_i[j] * (one - s_i[j])
                d_f[j] = gc * c[j] * s_f[j] * (one - s_f[j])
                d_g[j] = gc * s_i[j] * (one - s_g[j] * s_g[j])
                dcx[j] = gc * s_f[j]

    @jit
    def gru_forward(ig, hg, bi, bh, hx, hy, ws):
        """ws (N, 5H) = r, z, n, h_n (hg's third block with its bias), hx; hy = n + z (hx - n). Each loop reads
        slices from 0 (as forward_step's), which is what lets LLVM vectorize it."""
        n_rows, h = hx.shape
        one, two = ws.dtype.type(1), ws.dtype.type(2)
        for n in range(n_rows):
            w, a, b, x, y = ws[n], ig[n], hg[n], hx[n], hy[n]
            rz, nn, hn, hw = w[:2 * h], w[2 * h:3 * h], w[3 * h:4 * h], w[4 * h:]
            a_rz, b_rz, bi_rz, bh_rz = a[:2 * h], b[:2 * h], bi[:2 * h], bh[:2 * h]
            a_n, b_n, bi_n, bh_n = a[2 * h:], b[2 * h:], bi[2 * h:], bh[2 * h:]
            for j in range(2 * h):
                rz[j] = one / (one + exp(-((a_rz[j] + bi_rz[j]) + (b_rz[j] + bh_rz[j]))))
            r, z = w[:h], w[h:2 * h]
            for j in range(h):
                hn[j] = b_n[j] + bh_n[j]
            for j in range(h):
                nn[j] = two / (one + exp(-two * ((a_n[j] + bi_n[j]) + r[j] * hn[j]))) - one
            for j in range(h):
                hw[j] = x[j]
            for j in range(h):
                y[j] = nn[j] + z[j] * (x[j] - nn[j])

    @jit
    def gru_backward(g, ws, gi, gh, ghx):
        """The gradients of the input gates, the hidden gates and hx from hy's."""
        n_rows, h = g.shape
        one = ws.dtype.type(1)
        for n in range(n_rows):
            w, d, di, dh, dx = g[n], ws[n], gi[n], gh[n], ghx[n]
            r, z, nn, hn, x = d[:h], d[h:2 * h], d[2 * h:3 * h], d[3 * h:4 * h], d[4 * h:]
            di_r, di_z, di_n = di[:h], di[h:2 * h], di[2 * h:]
            dh_r, dh_z, dh_n = dh[:h], dh[h:2 * h], dh[2 * h:]
            for j in range(h):
                di_n[j] = w[j] * (one - z[j]) * (one - nn[j] * nn[j])
            for j in range(h):
                di_z[j] = w[j] * (x[j] - nn[j]) * z[j] * (one - z[j])
            for j in range(h):
                di_r[j] = di_n[j] * hn[j] * r[j] * (one - r[j])
            for j in range(h):
                dh_r[j] = di_r[j]
                dh_z[j] = di_z[j]
                dh_n[j] = di_n[j] * r[j]
            for j in range(h):
                dx[j] = w[j] * z[j]

    return lstm_backward, gru_forward, gru_backward


_CELL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _rows(x: Tensor) -> np.ndarray:
    """`x`'s array, C-contiguous (a copy only where it is not)."""
    a = x._np()
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _cell_operands(input_gates, hidden_gates, state, input_bias, hidden_bias):
    """The arrays of a fused cell call the compiled kernels take (one float32/float64 dtype, 2-D gates, the biases as
    zeros where None), or None for the numpy forms."""
    s = state._np()
    dt = s.dtype
    if dt not in _CELL_DTYPES or s.ndim != 2 or not s.shape[0] or not s.shape[1]:
        return None
    ig, hg = input_gates._np(), hidden_gates._np()
    if ig.dtype != dt or hg.dtype != dt:
        return None
    k = ig.shape[1]
    biases = []
    for b in (input_bias, hidden_bias):
        if b is None:
            biases.append(np.zeros(k, dt))
        else:
            a = b._np()
            if a.dtype != dt or a.shape != (k,):
                return None
            biases.append(a)
    return _rows(input_gates), _rows(hidden_gates), biases[0], biases[1], _rows(state)


lstm_layer = declare("lstm_layer", differentiable=False, doc="""One LSTM layer direction over a whole sequence.

Positional signature: `lstm_layer(input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx, reverse)`,
input `(L, N, H_in)`, weights `(4H, H_in)` and `(4H, H)`, biases `(4H,)` or None, hx and cx
`(N, H)`. Returns `(hs, cs, workspace)`: hs `(L + 1, N, H)` holds hx and the L outputs in time
order (hx first, or last when `reverse`), cs `(L, N, H)` the cell states (on the CPU a strided view
of the workspace's c rows), workspace what `lstm_layer_backward` reads, in its device's layout (CPU:
`(L, 6H, N)`, the activated gates, tanh(c) and c by rows; composed: `(L, N, 5H)`, the gates and
tanh(c)). The input projection is one GEMM; each
step is one GEMM and one compiled pass that writes its results in place (PyTorch's CPU LSTM
layer does the same in oneDNN).""")


def _c(x: Tensor) -> np.ndarray:
    return np.ascontiguousarray(x._np())


def _layer_check(x, w_ih, w_hh, hx, cx) -> None:
    """lstm_layer's operands, checked for every device's kernel."""
    if x.ndim != 3 or w_ih.ndim != 2 or w_hh.ndim != 2 or w_ih.shape[1] != x.shape[2] or \
            w_hh.shape[0] != 4 * w_hh.shape[1] or w_ih.shape[0] != w_hh.shape[0] or \
            tuple(hx.shape) != (x.shape[1], w_hh.shape[1]) or tuple(cx.shape) != tuple(hx.shape):
        raise RuntimeError(f"lstm_layer: expected input (L, N, H_in), weight_ih (4H, H_in), weight_hh (4H, H), "
                           f"hx and cx (N, H); got {describe(x)}, {describe(w_ih)}, {describe(w_hh)}, "
                           f"{describe(hx)} and {describe(cx)}")
    if any(t._dtype is not x._dtype for t in (w_ih, w_hh, hx, cx)):
        raise RuntimeError(f"lstm_layer: expected input, weights and states of one dtype; got {describe(x)}, "
                           f"{describe(w_ih)}, {describe(w_hh)}, {describe(hx)} and {describe(cx)}")


# NOTE [ lstm_layer's gate-major steps ]
# On the CPU a layer's per-step GEMM is W_hh (4H, H) @ h_prev^T, giving the gates as (4H, N) rows, not h_prev @ W_hh^T
# (N, 4H): OpenBLAS runs the small dimension N (the batch) as its GEMM's M side several times faster with its AVX-512
# (SkylakeX) kernels, 32 x 256 x 1024 float32 in 90 against 160 us, and no slower with its Haswell ones; W_hh is read
# as stored (no transposed copy per call). The input projection W_ih @ x^T, the workspace (L, 6H, N) (i, f, g, o,
# tanh(c), c) and the backward's gates' gradient (4H, L, N) follow, so every kernel loop runs along the batch over
# contiguous rows; hs, which the caller reads as (N, H) states, is transposed once at the end, and cs is a strided
# (L, N, H) view of the workspace's c rows (the CPU backward reads ws, not cs: no copy). The backward's step is
# W_hh^T @ its gates' gradient (H, N), from a row-major copy of W_hh^T made once per call (OpenBLAS packs the GEMM's
# W_hh operand at every step, and a transposed view made that the slower transposing pack: 10-12 us a step at
# 1024 x 256 against the copy's 67 us once), and its weight gradients one GEMM each over (4H, L*N).
@lstm_layer.register("cpu")
def _lstm_layer_cpu(input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx, reverse):
    _layer_check(input, weight_ih, weight_hh, hx, cx)
    x, w_hh = input._np(), _c(weight_hh)
    steps, n, hid = x.shape[0], x.shape[1], w_hh.shape[1]
    dt = x.dtype
    bias = np.zeros(4 * hid, dt)
    for b in (bias_ih, bias_hh):
        if b is not None:
            bias += b._np()
    gi = matmul(weight_ih._np(), _c(input).reshape(steps * n, x.shape[2]).T)  # (4H, L*N)
    hs = np.empty((steps + 1, hid, n), dt)
    ws = np.empty((steps, 6 * hid, n), dt)
    gates = np.empty((4 * hid, n), dt)
    c0 = np.ascontiguousarray(cx._np().T)
    step = _layer_kernels()[1]
    with single_threaded(), _quiet_compile("layer_forward", dt):  # each step's GEMM is small: see blas_threads.py
        if reverse:
            hs[steps] = hx._np().T
            for t in range(steps - 1, -1, -1):
                np.matmul(w_hh, hs[t + 1], out=gates)
                step(t, t + 1 if t + 1 < steps else -1, t, gates, gi, bias, hs, c0, ws)
        else:
            hs[0] = hx._np().T
            for t in range(steps):
                np.matmul(w_hh, hs[t], out=gates)
                step(t, t - 1, t + 1, gates, gi, bias, hs, c0, ws)
    # the outputs as the caller reads them, (N, H) a step: one transposing copy; the cell states a view of ws's rows
    workspace = wrap(ws)
    cs = Tensor._make(workspace._storage, 5 * hid * n if steps else 0, (steps, n, hid), (6 * hid * n, 1, n),
                      workspace._dtype)
    return wrap(np.ascontiguousarray(hs.transpose(0, 2, 1))), cs, workspace


lstm_layer_backward = declare("lstm_layer_backward", differentiable=False, doc="""The gradients of lstm_layer.

Positional signature: `lstm_layer_backward(grad_output, grad_hy, grad_cy, input, weight_ih,
weight_hh, cx, hs, cs, workspace, reverse, output_mask)`, grad_output `(L, N, H)` (the outputs'
gradient), the final states' gradients `(N, H)` (None meaning zeros), the rest as lstm_layer took
and returned them; output_mask: which of (input, weights, bias) gradients to compute. Returns
`(grad_input, grad_weight_ih, grad_weight_hh, grad_bias, grad_hx, grad_cx)`, None where masked;
grad_bias is that of either bias. The weights' gradients are one GEMM each over all the steps.""")


@lstm_layer_backward.register("cpu")
def _lstm_layer_backward_cpu(grad_output, grad_hy, grad_cy, input, weight_ih, weight_hh, cx, hs, cs, workspace,
                             reverse, output_mask):
    x, w_hh = input._np(), weight_hh._np()
    steps, n, hid = x.shape[0], x.shape[1], w_hh.shape[1]
    dt = x.dtype
    g_out = _c(grad_output)
    # the states' gradients gate-major (H, N): see NOTE [ lstm_layer's gate-major steps ]
    gh = np.ascontiguousarray(grad_hy._np().T) if grad_hy is not None else np.zeros((hid, n), dt)
    gc = np.ascontiguousarray(grad_cy._np().T) if grad_cy is not None else np.zeros((hid, n), dt)
    hsa, ws, c0 = hs._np(), workspace._np(), np.ascontiguousarray(cx._np().T)
    gg, g_t = np.empty((4 * hid, steps, n), dt), np.empty((4 * hid, n), dt)
    w_hh_t = transposed(w_hh)
    step = _layer_kernels()[2]
    with single_threaded(), _quiet_compile("layer_backward", dt):  # each step's GEMM is small: see blas_threads.py
        for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
            step(t, (t + 1 if t + 1 < steps else -1) if reverse else t - 1, g_out, gh, gc, c0, ws, g_t)
            np.matmul(w_hh_t, g_t, out=gh)
            gg[:, t] = g_t
    g2 = gg.reshape(4 * hid, steps * n)
    g_x = g_w_ih = g_w_hh = g_b = None
    if output_mask[0]:
        g_x = wrap(matmul(g2.T, weight_ih._np()).reshape(x.shape))
    if output_mask[1]:  # (4H, L*N) @ (L*N, .): row-major results, the layout .grad keeps
        h_prev = (hsa[1:] if reverse else hsa[:steps]).reshape(steps * n, hid)
        g_w_hh = wrap(matmul(g2, h_prev))
        g_w_ih = wrap(matmul(g2, _c(input).reshape(steps * n, x.shape[2])))
    if output_mask[2]:
        g_b = wrap(g2.sum(1))
    return g_x, g_w_ih, g_w_hh, g_b, wrap(np.ascontiguousarray(gh.T)), wrap(np.ascontiguousarray(gc.T))


gru_layer = declare("gru_layer", differentiable=False, doc="""One GRU layer direction over a whole sequence.

Positional signature: `gru_layer(input, weight_ih, weight_hh, bias_ih, bias_hh, hx, reverse)`, input
`(L, N, H_in)`, weights `(3H, H_in)` and `(3H, H)`, biases `(3H,)` or None, hx `(N, H)`. Returns
`(hs, workspace)`: hs `(L + 1, N, H)` holds hx and the L outputs in time order (hx first, or last
when `reverse`), workspace what `gru_layer_backward` reads, in its device's layout (CPU: `(L, 5H, N)`,
r, z, n, h_n and h_prev by rows; composed: `(L, N, 5H)`, each step's `gru_cell` workspace). The input projection
is one GEMM; each step one GEMM and one compiled pass (NOTE [ lstm_layer's gate-major steps]).""")


def _gru_layer_check(x, w_ih, w_hh, hx) -> None:
    """gru_layer's operands."""
    if x.ndim != 3 or w_ih.ndim != 2 or w_hh.ndim != 2 or w_ih.shape[1] != x.shape[2] or \
            w_hh.shape[0] != 3 * w_hh.shape[1] or w_ih.shape[0] != w_hh.shape[0] or \
            tuple(hx.shape) != (x.shape[1], w_hh.shape[1]):
        raise RuntimeError(f"gru_layer: expected input (L, N, H_in), weight_ih (3H, H_in), weight_hh (3H, H) and "
                           f"hx (N, H); got {describe(x)}, {describe(w_ih)}, {describe(w_hh)} and {describe(hx)}")
    if any(t._dtype is not x._dtype for t in (w_ih, w_hh, hx)):
        raise RuntimeError(f"gru_layer: expected input, weights and state of one dtype; got {describe(x)}, "
                           f"{describe(w_ih)}, {describe(w_hh)} and {describe(hx)}")


@gru_layer.register("cpu")
def _gru_layer_cpu(input, weight_ih, weight_hh, bias_ih, bias_hh, hx, reverse):
    _gru_layer_check(input, weight_ih, weight_hh, hx)
    x, w_hh = input._np(), _c(weight_hh)
    steps, n, hid = x.shape[0], x.shape[1], w_hh.shape[1]
    dt = x.dtype
    b_ih, b_hh = (b._np() if b is not None else np.zeros(3 * hid, dt) for b in (bias_ih, bias_hh))
    gi = matmul(weight_ih._np(), _c(input).reshape(steps * n, x.shape[2]).T)  # (3H, L*N)
    hs = np.empty((steps + 1, hid, n), dt)
    ws = np.empty((steps, 5 * hid, n), dt)
    gates = np.empty((3 * hid, n), dt)
    step = _layer_kernels()[3]
    with single_threaded(), _quiet_compile("gru_layer_forward", dt):  # small GEMMs: see blas_threads.py
        if reverse:
            hs[steps] = hx._np().T
            for t in range(steps - 1, -1, -1):
                np.matmul(w_hh, hs[t + 1], out=gates)
                step(t, t + 1, t, gates, gi, b_ih, b_hh, hs, ws)
        else:
            hs[0] = hx._np().T
            for t in range(steps):
                np.matmul(w_hh, hs[t], out=gates)
                step(t, t, t + 1, gates, gi, b_ih, b_hh, hs, ws)
    return wrap(np.ascontiguousarray(hs.transpose(0, 2, 1))), wrap(ws)


gru_layer_backward = declare("gru_layer_backward", differentiable=False, doc="""The gradients of gru_layer.

Positional signature: `gru_layer_backward(grad_output, grad_hy, input, weight_ih, weight_hh,
workspace, reverse, output_mask)`, grad_output `(L, N, H)`, grad_hy `(N, H)` or None (zeros), the rest
as gru_layer took and returned them (not hs: the workspace holds each step's h_prev, so the outputs may
change in place afterwards, as PyTorch's GRU's stacked outputs may); output_mask: which of (input, weights,
biases) gradients to compute. Returns `(grad_input, grad_weight_ih, grad_weight_hh, grad_bias_ih, grad_bias_hh,
grad_hx)`, None where masked. Each weight's and bias's gradient is one GEMM or sum over all the steps.""")


@gru_layer_backward.register("cpu")
def _gru_layer_backward_cpu(grad_output, grad_hy, input, weight_ih, weight_hh, workspace, reverse, output_mask):
    x, w_hh = input._np(), weight_hh._np()
    steps, n, hid = x.shape[0], x.shape[1], w_hh.shape[1]
    dt = x.dtype
    g_out, ws = _c(grad_output), workspace._np()
    gz = np.ascontiguousarray(grad_hy._np().T) if grad_hy is not None else np.zeros((hid, n), dt)
    gm, dh = np.zeros((hid, n), dt), np.empty((hid, n), dt)
    g_in, g_hid = np.empty((3 * hid, steps, n), dt), np.empty((3 * hid, steps, n), dt)
    d_in, d_hid = np.empty((3 * hid, n), dt), np.empty((3 * hid, n), dt)
    w_hh_t = transposed(w_hh)  # row-major W_hh^T, as lstm_layer_backward's (NOTE [ lstm_layer's gate-major steps ])
    step = _layer_kernels()[4]
    with single_threaded(), _quiet_compile("gru_layer_backward", dt):  # small GEMMs: see blas_threads.py
        for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
            step(t, g_out, dh, gz, gm, ws, d_in, d_hid)
            np.matmul(w_hh_t, d_hid, out=gm)
            g_in[:, t] = d_in
            g_hid[:, t] = d_hid
    gi2, gh2 = g_in.reshape(3 * hid, steps * n), g_hid.reshape(3 * hid, steps * n)
    g_x = g_w_ih = g_w_hh = g_b_ih = g_b_hh = None
    if output_mask[0]:
        g_x = wrap(matmul(gi2.T, weight_ih._np()).reshape(x.shape))
    if output_mask[1]:
        h_prev = np.ascontiguousarray(ws[:, 4 * hid:].transpose(0, 2, 1)).reshape(steps * n, hid)
        g_w_hh = wrap(matmul(gh2, h_prev))
        g_w_ih = wrap(matmul(gi2, _c(input).reshape(steps * n, x.shape[2])))
    if output_mask[2]:
        g_b_ih, g_b_hh = wrap(gi2.sum(1)), wrap(gh2.sum(1))
    return g_x, g_w_ih, g_w_hh, g_b_ih, g_b_hh, wrap(np.ascontiguousarray((gz + gm).T))


_thnn_fused_lstm_cell = lstm_cell
_thnn_fused_gru_cell = gru_cell
