"""Fused LSTM and GRU cell gates (PyTorch's _thnn_fused_lstm_cell / _thnn_fused_gru_cell).

The caller computes the gate pre-activations with its own matmuls (`x @ w_ih.T`, `h @ w_hh.T`);
these ops apply biases, nonlinearities and the state update in one pass and save a workspace
of activated gates, so the backward needs no recomputation. Gate order: i, f, g, o (LSTM) and
r, z, n (GRU), as PyTorch lays out `weight_ih_l0`.
"""

from __future__ import annotations

import numpy as np

from ember.core.dispatch import declare
from ember.core.ops._util import wrap
from ember.core.tensor import Tensor, describe

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
    ws, g = workspace._np(), grad_hy._np()
    h = ws.shape[-1] // 5
    r, z, n, hn, hxa = (ws[..., k * h:(k + 1) * h] for k in range(5))
    gn = g * (1 - z) * (1 - n * n)
    gz = g * (hxa - n) * z * (1 - z)
    gr = gn * hn * r * (1 - r)
    gi = np.concatenate([gr, gz, gn], axis=-1)
    gh = np.concatenate([gr, gz, gn * r], axis=-1)
    return wrap(gi), wrap(gh), wrap(g * z)


_thnn_fused_lstm_cell = lstm_cell
_thnn_fused_gru_cell = gru_cell
