"""Every derivative entry against float64 central differences, driven by the op registry.

`SAMPLES` maps each op with a derivative entry to sample calls (a function and its inputs);
the completeness tests fail when a differentiable op of ember-core has no entry, or an entry
no sample. Elementwise ops also run over random shapes with broadcasting and non-contiguous
inputs (hypothesis).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from ag_util import make
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.autograd as E
from ember.autograd.derivatives import TABLE, check_signature
from ember.autograd.derivatives._entry import derivative
from ember.autograd.gradcheck import gradcheck
from ember.core.dispatch import get_op, registered_ops
from ember.core.ops import elementwise as ew
from ember.core.ops.activation import ACTIVATIONS

F64 = E.float64


def op(name):
    return get_op(name)


def idx(values) -> E.Tensor:
    return E.tensor(values, dtype=E.int64)


# the op table (NOTE [ The op table ]): the differentiable elementwise rows, and each row's
# `grad_domain` (where finite differences are accurate: away from kinks, jumps and poles)
UNARY = [r.name for r in ew.UNARY if r.differentiable]
BINARY = [r.name for r in ew.BINARY if r.differentiable]


def _grad_range(name, i):
    return get_op(name).info.range_of(i, F64, grad=True) or (-1.0, 1.0)


def _unary(name):
    lo, hi = _grad_range(name, 0)
    f = getattr(E, name)
    return [(f, (make((2, 3), lo, hi),)), (f, (make((3, 2), lo, hi, noncontig=True),))]


def _binary(name):
    (alo, ahi), (blo, bhi) = _grad_range(name, 0), _grad_range(name, 1)
    f = op(name)
    rng = np.random.default_rng(7)
    return [(f, (make((2, 3), alo, ahi, rng=rng), make((2, 3), blo, bhi, rng=rng))),
            (f, (make((2, 1, 3), alo, ahi, rng=rng), make((4, 1), blo, bhi, rng=rng))),
            (f, (make((3,), alo, ahi, rng=rng), make((), blo, bhi, rng=rng)))]


def _distinct(*shape, noncontig=False):
    """Distinct values (no ties) for max/sort-like ops."""
    n = int(np.prod(shape))
    a = np.random.default_rng(3).permutation(n).astype(np.float64).reshape(shape) / n
    t = E.from_numpy(a)
    if noncontig and a.ndim >= 2:
        t = E.from_numpy(np.ascontiguousarray(a.T)).T
    return t.requires_grad_()


def _with_zero(shape):
    t = make(shape, 0.5, 1.5, requires_grad=False)
    t.view(-1)[1] = 0.0
    return t.requires_grad_()


def _fresh_zeros_copy(x):
    return E.zeros(tuple(x.shape), dtype=x.dtype).copy_(x)


# a mask of a (2, 3) operand's whole first row: _safe_softmax gives it zeros and a zero gradient
_ROW0_MASKED = E.tensor([[True, True, True], [False, False, False]])

SAMPLES = {name: _unary(name) for name in UNARY}
SAMPLES.update({name: _binary(name) for name in BINARY})
SAMPLES["mul"].append((lambda x: x * 2.5, (make((3,)),)))
SAMPLES["pow"] += [(lambda x: x ** 3, (make((3,)),)), (lambda x: 2.0 ** x, (make((3,)),)),
                   (lambda x: x ** 0, (make((3,)),))]
SAMPLES.update({
    "where": [(lambda a, b: E.where(idx([[1, 0, 1], [0, 0, 1]]).bool(), a, b), (make((2, 3)), make((3,))))],
    "clamp": [(lambda x: E.clamp(x, -0.5, 0.5), (make((4, 3)),)),
              (lambda x, lo, hi: E.clamp(x, lo, hi), (make((4, 3)), make((3,), -0.6, -0.3), make((4, 1), 0.3, 0.6)))],
    "lerp": [(op("lerp"), (make((2, 3)), make((2, 3)), make((3,))))],
    # views and copies
    "view": [(lambda x: x.view(3, 2), (make((2, 3)),))],
    # reshape's copy of a non-viewable input, and a batched matmul's result
    "_unsafe_view": [(lambda x: x.t().reshape(6), (make((2, 3)),)),
                     (lambda a, b: a @ b, (make((2, 2, 3)), make((3, 2))))],
    "as_strided": [(lambda x: x.as_strided((2, 2), (1, 2), 1), (make((6,)),)),
                   (lambda x: x.as_strided((3, 2), (0, 1)), (make((2,)),)),
                   # overlapping windows (stride 1 over both dims): their gradients add up
                   (lambda x: x.as_strided((3, 4), (1, 1)), (make((6,)),))],
    "permute": [(lambda x: x.permute(2, 0, 1), (make((2, 3, 2)),))],
    "transpose": [(lambda x: x.transpose(0, 1), (make((2, 3), noncontig=True),))],
    "expand": [(lambda x: x.expand(2, 3, 3), (make((3, 1)),))],
    "squeeze": [(lambda x: x.squeeze(1), (make((2, 1, 3)),))],
    "unsqueeze": [(lambda x: x.unsqueeze(-1), (make((2, 3)),))],
    "select": [(lambda x: x[1], (make((3, 2)),)), (lambda x: x[:, -1], (make((3, 2), noncontig=True),))],
    "slice": [(lambda x: x[1:, ::2], (make((3, 4)),))],
    "narrow": [(lambda x: x.narrow(1, 1, 2), (make((2, 4)),))],
    "unfold": [(lambda x: x.unfold(1, 3, 1), (make((2, 5)),))],
    # every piece, and some only (the others' gradients are zeros)
    "unbind": [(lambda x: x.unbind(1), (make((2, 3)),)), (lambda x: x.unbind(-2)[1] * 2, (make((3, 2)),))],
    "split": [(lambda x: x.split(2, 1), (make((2, 5)),)), (lambda x: x.split(2)[2], (make((5, 2)),))],
    "split_with_sizes": [(lambda x: x.split([1, 3], -1), (make((2, 4)),)),
                         (lambda x: x.split([2, 0, 1])[0], (make((3, 2), noncontig=True),))],
    "diagonal": [(lambda x: x.diagonal(1), (make((3, 4)),))],
    "copy_": [(_fresh_zeros_copy, (make((2, 3)),)), (lambda x: E.zeros(2, 3, dtype=F64).copy_(x), (make((3,)),))],
    "clone": [(lambda x: x.clone(), (make((2, 3), noncontig=True),))],
    "to_dtype": [(lambda x: x.to(E.float32).to(F64) * 3.0, (make((2, 2)),), {"eps": 1e-2, "atol": 1e-4})],
    "fill_": [(lambda x: (x * 1.0).fill_(2.0) + x, (make((2, 2)),))],
    # reductions
    "sum": [(lambda x: x.sum(), (make((2, 3)),)), (lambda x: x.sum((0, 2), keepdim=True), (make((2, 3, 2)),)),
            (lambda x: x.sum(-1), (make((3, 2), noncontig=True),))],
    "nansum": [(lambda x: E.nansum(x, 1), (make((2, 3)),))],
    "mean": [(lambda x: x.mean(), (make((2, 3)),)), (lambda x: x.mean(0, keepdim=True), (make((2, 3)),))],
    "nanmean": [(lambda x: E.nanmean(x, 1), (make((2, 3)),))],
    "prod": [(lambda x: x.prod(1), (make((2, 3), 0.5, 1.5),)), (lambda x: x.prod(), (_with_zero((2, 3)),)),
             (lambda x: x.prod(0, keepdim=True), (_with_zero((3, 2)),))],
    "amax": [(lambda x: x.amax(1), (_distinct(2, 3),)), (lambda x: x.max(), (_distinct(2, 3),))],
    "amin": [(lambda x: x.amin((0, 1), keepdim=True), (_distinct(2, 3),))],
    "max_dim": [(lambda x: x.max(1)[0], (_distinct(2, 3),)), (lambda x: x.max(0, keepdim=True)[0], (_distinct(3, 2),))],
    "min_dim": [(lambda x: x.min(1)[0], (_distinct(2, 3, noncontig=True),))],
    "var": [(lambda x: x.var(1), (make((2, 3)),)), (lambda x: x.var(0, keepdim=True, correction=0), (make((3, 2)),))],
    "std": [(lambda x: x.std(1), (make((2, 3)),)), (lambda x: x.std(), (make((2, 3)),))],
    "var_mean": [(lambda x: E.var_mean(x, 1), (make((2, 3)),))],
    "std_mean": [(lambda x: E.std_mean(x, 0), (make((3, 2)),))],
    "logsumexp": [(lambda x: x.logsumexp(1), (make((2, 3)),)), (lambda x: x.logsumexp((0, 1), keepdim=True),
                                                                 (make((2, 3)),))],
    "vector_norm": [(lambda x: x.norm(), (make((2, 3)),)), (lambda x: x.norm(1, dim=1), (make((2, 3)),)),
                    (lambda x: x.norm(3, dim=0, keepdim=True), (make((2, 3)),)),
                    (lambda x: x.norm(float("inf"), dim=1), (_distinct(2, 3),))],
    "cumsum": [(lambda x: x.cumsum(1), (make((2, 3)),))],
    "cumprod": [(lambda x: x.cumprod(1), (make((2, 3), 0.5, 1.5),)), (lambda x: x.cumprod(0), (_with_zero((4,)),))],
    "logcumsumexp": [(lambda x: x.logcumsumexp(1), (make((2, 3)),))],
    "cummax": [(lambda x: E.cummax(x, 1)[0], (_distinct(2, 4),))],
    "cummin": [(lambda x: E.cummin(x, 0)[0], (_distinct(4, 2),))],
    "sort": [(lambda x: x.sort(1)[0], (_distinct(2, 3),)), (lambda x: x.sort(0, descending=True)[0],
                                                          (_distinct(3, 2),))],
    "topk": [(lambda x: x.topk(2, 1)[0], (_distinct(2, 4),))],
    "kthvalue": [(lambda x: x.kthvalue(2, 1)[0], (_distinct(2, 4),))],
    "median_dim": [(lambda x: x.median(1)[0], (_distinct(2, 3),))],
    "mode": [(lambda x: x.mode(1)[0], (_distinct(2, 3),))],
    "median": [(lambda x: x.median(), (_distinct(2, 3),))],
    "nanmedian": [(lambda x: op("nanmedian")(x), (_distinct(2, 3),))],
    "nanmedian_dim": [(lambda x: op("nanmedian_dim")(x, 1, False)[0], (_distinct(2, 3),))],
    # linear algebra
    "mm": [(op("mm"), (make((2, 3)), make((3, 2), noncontig=True)))],
    "bmm": [(op("bmm"), (make((2, 2, 3)), make((2, 3, 2))))],
    "dot": [(op("dot"), (make((3,)), make((3,), noncontig=True)))],
    "einsum": [(lambda a, b: E.einsum("ij,jk->ik", a, b), (make((2, 3)), make((3, 2)))),
               (lambda a, b: E.einsum("i,j", a, b), (make((2,)), make((3,)))),
               (lambda a: E.einsum("ij->j", a), (make((2, 3)),)),
               (lambda a, b: E.einsum("...ij,...jk->...ik", a, b), (make((2, 2, 3)), make((2, 3, 1)))),
               # a repeated subscript reads a diagonal: trace, diagonal, and a batched generalised diagonal
               (lambda a: E.einsum("ii->", a), (make((3, 3)),)),
               (lambda a, b: E.einsum("ii,ij->j", a, b), (make((3, 3)), make((3, 2)))),
               (lambda a: E.einsum("aibi->ab", a), (make((2, 3, 2, 3)),)),
               # ellipsis dims the output drops are summed; size-1 dims broadcast; the sublist format
               (lambda a: E.einsum("...->", a), (make((2, 3)),)),
               (lambda a: E.einsum("i...->i", a), (make((2, 3, 2)),)),
               (lambda a, b: E.einsum("i...,i...->i", a, b), (make((2, 3)), make((2, 1)))),
               (lambda a, b: E.einsum("ij,jk->ik", a, b), (make((2, 1)), make((3, 2)))),
               (lambda a, b: E.einsum(a, [0, Ellipsis], b, [Ellipsis, 1], [1]), (make((2, 3)), make((3, 2))))],
    "trace": [(lambda x: x.trace(), (make((3, 3)),))],
    # indexing and joining
    "index": [(lambda x: x[idx([0, 2, 0])], (make((3, 2)),)), (lambda x: x[:, idx([1, 1])], (make((2, 3)),))],
    "index_put_": [(lambda x, v: E.index_put(x, (idx([0, 2]),), v), (make((3, 2)), make((2, 2)))),
                   (lambda x, v: E.index_put(x, (idx([0, 0]),), v, accumulate=True), (make((3, 2)), make((2,))))],
    "gather": [(lambda x: x.gather(1, idx([[0, 0], [1, 2]])), (make((2, 3)),))],
    "scatter": [(lambda x, s: x.scatter(1, idx([[0, 2], [1, 0]]), s), (make((2, 3)), make((2, 2)))),
                (lambda x, s: x.scatter(1, idx([[0, 0], [1, 0]]), s, reduce="add"), (make((2, 3)), make((2, 2))))],
    "scatter_add": [(lambda x, s: x.scatter_add(1, idx([[0, 0], [1, 2]]), s), (make((2, 3)), make((2, 2))))],
    "scatter_reduce": [(lambda x, s, r=r, inc=inc: x.scatter_reduce(1, idx([[0, 0], [1, 2]]), s, r,
                                                                    include_self=inc),
                        (make((2, 3), 0.5, 1.5), make((2, 2), 0.5, 1.5, rng=np.random.default_rng(9))))
                       for r in ("sum", "mean", "amax", "amin", "prod") for inc in (True, False)],
    "index_select": [(lambda x: x.index_select(0, idx([2, 0, 2])), (make((3, 2)),))],
    "index_add": [(lambda x, s: x.index_add(0, idx([0, 0]), s, alpha=2.0), (make((3, 2)), make((2, 2))))],
    "index_copy": [(lambda x, s: x.index_copy(0, idx([2, 0]), s), (make((3, 2)), make((2, 2))))],
    "index_fill": [(lambda x, v: x.index_fill(1, idx([1]), v), (make((2, 3)), make(())))],
    "masked_fill": [(lambda x, v: x.masked_fill(idx([1, 0, 1]).bool(), v), (make((2, 3)), make(())))],
    "masked_select": [(lambda x: x.masked_select(idx([1, 0, 1]).bool()), (make((2, 3)),))],
    "masked_scatter": [(lambda x, s: x.masked_scatter(idx([[1, 0], [0, 1]]).bool(), s), (make((2, 2)),
                                                                                        make((5,))))],
    "take": [(lambda x: x.take(idx([0, 5, 5])), (make((2, 3)),))],
    "put": [(lambda x, s: x.put(idx([1, 4]), s), (make((2, 3)), make((2,)))),
            (lambda x, s: x.put(idx([1, 1]), s, accumulate=True), (make((2, 3)), make((2,))))],
    "cat": [(lambda a, b: E.cat([a, b], 1), (make((2, 2)), make((2, 3)))),
            (lambda a, b: E.cat([a, b]), (make((0,)), make((2,))))],
    "flip": [(lambda x: x.flip(0, 1), (make((2, 3)),))],
    "tril": [(lambda x: x.tril(), (make((3, 3)),))],
    "triu": [(lambda x: x.triu(1), (make((3, 3)),))],
    "diag_embed": [(lambda x: E.diag_embed(x), (make((2, 3)),))],
})


def _gen_dropout(x):
    g = E.Generator().manual_seed(5)
    return op("native_dropout")(x, 0.5, g)[0]


def _lstm(ig, hg, cx, ib, hb):
    hy, cy, _ = op("lstm_cell")(ig, hg, cx, ib, hb)
    return hy, cy


def _gru(ig, hg, hx, ib, hb):
    return op("gru_cell")(ig, hg, hx, ib, hb)[0]


_TARGET = idx([0, 2])
_PROBS = E.softmax(make((2, 3), requires_grad=False, rng=np.random.default_rng(5)), 1)
_PROBS_3D = E.softmax(make((2, 3, 2), requires_grad=False, rng=np.random.default_rng(6)), 1)
_ACT = {row[0]: get_op(row[0]).info.attrs for row in ACTIVATIONS}  # the table's sample attributes
_ACT_BACKWARD_ATTRS = {"threshold": (0.1,)}
_NO_SECOND: set[str] = set()

for _name, _attrs in _ACT.items():
    battrs = _ACT_BACKWARD_ATTRS.get(_name, _attrs)
    _lo, _hi = _grad_range(_name, 0)
    SAMPLES[_name] = [(lambda x, _n=_name, _a=_attrs: op(_n)(x, *_a), (make((2, 3), _lo, _hi),))]
    if _name in _NO_SECOND:
        SAMPLES[_name + "_backward"] = [(lambda g, _n=_name, _a=battrs: op(_n + "_backward")(g, make(
            (2, 3), requires_grad=False), *_a), (make((2, 3)),))]
    else:
        SAMPLES[_name + "_backward"] = [(lambda g, x, _n=_name, _a=battrs: op(_n + "_backward")(g, x, *_a),
                                         (make((2, 3)), make((2, 3), _lo, _hi)))]
for _name, _out in (("sigmoid", E.sigmoid), ("tanh", E.tanh)):
    SAMPLES[_name + "_backward"] = [(lambda g, x, _n=_name, _f=_out: op(_n + "_backward")(g, _f(x)),
                                     (make((2, 3)), make((2, 3))))]
SAMPLES["silu_backward"] = [(op("silu_backward"), (make((2, 3)), make((2, 3))))]
del SAMPLES["hardsigmoid_backward"]  # PyTorch's NotImplemented node (NO_DOUBLE_BACKWARD)

_CONV = ((1, 1), (1, 1), (1, 1), 1)
SAMPLES.update({
    "conv2d": [(lambda x, w, b: op("conv2d")(x, w, b, *_CONV), (make((1, 2, 4, 4)), make((3, 2, 3, 3)), make((3,)))),
               (lambda x, w: op("conv2d")(x, w, None, (2, 2), (0, 0), (1, 1), 2), (make((1, 4, 5, 5)),
                                                                                   make((2, 2, 2, 2))))],
    "conv2d_backward_input": [(lambda g, w: op("conv2d_backward_input")(g, w, (1, 2, 3, 3), *_CONV),
                               (make((1, 2, 3, 3)), make((2, 2, 3, 3))))],
    "conv2d_backward_weight": [(lambda g, x: op("conv2d_backward_weight")(g, x, (2, 2, 3, 3), *_CONV),
                                (make((1, 2, 3, 3)), make((1, 2, 3, 3))))],
    "conv_transpose2d": [(lambda x, w, b: op("conv_transpose2d")(x, w, b, (2, 2), (0, 0), (0, 0), 1, (1, 1)),
                          (make((1, 2, 2, 2)), make((2, 3, 2, 2)), make((3,))))],
    "im2col": [(lambda x: op("im2col")(x, (2, 2), (1, 1), (1, 1), (2, 1)), (make((1, 2, 3, 3)),))],
    "col2im": [(lambda x: op("col2im")(x, (3, 3), (2, 2), (1, 1), (0, 0), (1, 1)), (make((1, 8, 4)),))],
    "max_pool2d_with_indices": [(lambda x: op("max_pool2d_with_indices")(x, (2, 2), (2, 2), (0, 0), (1, 1), False)[0],
                                 (_distinct(1, 1, 4, 4),))],
    "max_pool2d_backward": [(lambda g: op("max_pool2d_backward")(g, idx([[[[0, 3], [10, 15]]]]), (1, 1, 4, 4)),
                             (make((1, 1, 2, 2)),))],
    "adaptive_max_pool2d": [(lambda x: op("adaptive_max_pool2d")(x, (2, 2))[0], (_distinct(1, 1, 4, 4),))],
    "avg_pool2d": [(lambda x: op("avg_pool2d")(x, (2, 2), (1, 1), (1, 1), False, True, None), (make((1, 1, 3, 3)),))],
    "avg_pool2d_backward": [(lambda g: op("avg_pool2d_backward")(g, (1, 1, 3, 3), (2, 2), (1, 1), (0, 0), False,
                                                                 True, None), (make((1, 1, 2, 2)),))],
    "adaptive_avg_pool2d": [(lambda x: op("adaptive_avg_pool2d")(x, (2, 2)), (make((1, 1, 3, 3)),))],
    "adaptive_avg_pool2d_backward": [(lambda g: op("adaptive_avg_pool2d_backward")(g, (1, 1, 3, 3)),
                                      (make((1, 1, 2, 2)),))],
    "upsample": [(lambda x: op("upsample")(x, (4, 4), "bilinear", False, None), (make((1, 1, 2, 2)),)),
                 (lambda x: op("upsample")(x, (4, 4), "nearest", False, None), (make((1, 1, 2, 2)),))],
    "upsample_backward": [(lambda g: op("upsample_backward")(g, (1, 1, 2, 2), "bilinear", False, None),
                           (make((1, 1, 4, 4)),))],
    "pad_nd": [(lambda x: op("pad_nd")(x, (1, 2), "constant", 0.5), (make((2, 3)),)),
               (lambda x: op("pad_nd")(x, (1, 1, 1, 0), "reflect", 0.0), (make((1, 1, 3, 3)),))],
    "pad_nd_backward": [(lambda g: op("pad_nd_backward")(g, (2, 2), (1, 1), "replicate"), (make((2, 4)),))],
    "softmax": [(lambda x: op("softmax")(x, 1), (make((2, 3)),))],
    "_safe_softmax": [(lambda x: op("_safe_softmax")(x, 1), (make((2, 3)),)),
                      (lambda x: op("_safe_softmax")(x.masked_fill(_ROW0_MASKED, float("-inf")), 1), (make((2, 3)),))],
    "softmax_backward": [(lambda g, x: op("softmax_backward")(g, op("softmax")(x, 1), 1), (make((2, 3)),
                                                                                         make((2, 3))))],
    "log_softmax": [(lambda x: op("log_softmax")(x, 0), (make((3, 2)),))],
    "log_softmax_backward": [(lambda g, x: op("log_softmax_backward")(g, op("log_softmax")(x, 1), 1),
                              (make((2, 3)), make((2, 3))))],
    "cross_entropy": [(lambda x: op("cross_entropy")(x, _TARGET, None, "mean", -100, 0.0), (make((2, 3)),)),
                      (lambda x, t: op("cross_entropy")(x, t, None, "none", -100, 0.2),
                       (make((2, 3)), make((2, 3), 0.1, 1.0, rng=np.random.default_rng(4)))),
                      (lambda x: op("cross_entropy")(x, _TARGET, E.tensor([1.0, 2.0, 0.5], dtype=F64), "none",
                                                     -100, 0.1), (make((2, 3)),)),
                      # class weights of probability targets are differentiable (PyTorch's composite)
                      (lambda x, w: op("cross_entropy")(x, _PROBS, w, "mean", -100, 0.2),
                       (make((2, 3)), make((3,), 0.5, 2.0))),
                      (lambda x, w: op("cross_entropy")(x, _PROBS_3D, w, "sum", -100, 0.0),
                       (make((2, 3, 2)), make((3,), 0.5, 2.0)))],
    "cross_entropy_backward": [(lambda g: op("cross_entropy_backward")(g, make((2, 3), requires_grad=False),
                                                                       _TARGET, None, "sum", -100, 0.0),
                                (make(()),)),
                               (lambda g: op("cross_entropy_backward")(g, make((2, 3), requires_grad=False),
                                                                       _TARGET, None, "none", -100, 0.0),
                                (make((2,)),))],
    "nll_loss": [(lambda x: op("nll_loss")(x, _TARGET, None, "mean", -100)[0], (make((2, 3)),))],
    "binary_cross_entropy": [(op("binary_cross_entropy"), (make((2, 3), 0.1, 0.9), make((2, 3), 0.0, 1.0)))],
    "mv": [(op("mv"), (make((2, 3)), make((3,))))],
    "mse_loss": [(lambda x, t: op("mse_loss")(x, t, reduction), (make((2, 3)), make(shape)))
                 for reduction, shape in (("mean", (2, 3)), ("sum", (3,)), ("none", (2, 3)))],
    "mse_loss_backward": [(lambda g, x, t: op("mse_loss_backward")(g, x, t, reduction), (make(gshape), make((2, 3)),
                                                                                      make((2, 3))))
                          for reduction, gshape in (("mean", ()), ("sum", ()), ("none", (2, 3)))],
    "nll_loss_backward": [(lambda g: op("nll_loss_backward")(g, make((2, 3), requires_grad=False), _TARGET, None,
                                                             "none", -100, E.tensor(2.0, dtype=F64)),
                           (make((2,)),))],
    "batch_norm": [(lambda x, w, b: op("batch_norm")(x, w, b, None, None, True, 0.1, 1e-5)[0],
                    (make((3, 2, 2)), make((2,)), make((2,)))),
                   (lambda x, w: op("batch_norm")(x, w, None, E.zeros(2, dtype=F64), E.ones(2, dtype=F64), False,
                                                  0.1, 1e-5)[0], (make((3, 2)), make((2,))))],
    "layer_norm": [(lambda x, w, b: op("layer_norm")(x, (3,), w, b, 1e-5)[0], (make((2, 3)), make((3,)),
                                                                                 make((3,))))],
    "group_norm": [(lambda x, w, b: op("group_norm")(x, w, b, 2, 1e-5)[0], (make((2, 4, 2)), make((4,)),
                                                                              make((4,))))],
    "embedding": [(lambda w: op("embedding")(w, idx([[0, 2], [2, 2]]), -1, False), (make((3, 2)),))],
    "embedding_backward": [(lambda g: op("embedding_backward")(g, idx([0, 2, 2]), 4, -1, False), (make((3, 2)),)),
                           (lambda g: op("embedding_backward")(g, idx([[0, 2], [2, 1]]), 4, 2, True),
                            (make((2, 2, 3)),))],
    "embedding_bag": [(lambda w: op("embedding_bag")(w, idx([0, 2, 2, 1]), idx([0, 2]), "mean", None, False,
                                                     -1)[0], (make((3, 2)),)),
                      (lambda w, p: op("embedding_bag")(w, idx([0, 2, 2, 1, 3]), idx([0, 2, 2, 5]), "sum", p, True,
                                                        2)[0], (make((4, 3)), make((5,))))],
    "embedding_bag_backward": [(lambda g: op("embedding_bag_backward")(g, idx([0, 2, 2, 1]), idx([0, 2]),
                                                                       idx([2, 2]), idx([[0, 0], [0, 0]]), 3, "sum",
                                                                       None, False, -1), (make((2, 2)),))],
    "native_dropout": [(_gen_dropout, (make((2, 3)),))],
    "native_dropout_backward": [(lambda g: op("native_dropout_backward")(g, idx([[1, 0, 1], [0, 1, 1]]).bool(), 2.0),
                                 (make((2, 3)),))],
    "lstm_cell": [(_lstm, (make((2, 8)), make((2, 8)), make((2, 2)), make((8,)), make((8,))))],
    "gru_cell": [(_gru, (make((2, 6)), make((2, 6)), make((2, 2)), make((6,)), make((6,))))],
})

def _ln_backward(g, x, w):
    _, mean, rstd = op("layer_norm")(x, (3,), None, None, 1e-5)
    return op("layer_norm_backward")(g, x, (3,), mean, rstd, w)[:2]


def _gn_backward(g, x, w):
    _, mean, rstd = op("group_norm")(x, None, None, 2, 1e-5)
    return op("group_norm_backward")(g, x, mean, rstd, w, 2)[:2]


def _bn_backward(g, x, w):
    _, mean, invstd = op("batch_norm")(x, None, None, None, None, True, 0.1, 1e-5)
    return op("batch_norm_backward")(g, x, w, mean, invstd, True)[:2]


SAMPLES.update({
    "layer_norm_backward": [(_ln_backward, (make((2, 3)), make((2, 3)), make((3,))), {"atol": 1e-4})],
    "group_norm_backward": [(_gn_backward, (make((2, 4, 2)), make((2, 4, 2)), make((4,))), {"atol": 1e-4})],
    "batch_norm_backward": [(_bn_backward, (make((3, 2, 2)), make((3, 2, 2)), make((2,))), {"atol": 1e-4})],
})

def _lstm_backward(ghy, gcy, ig, cx):
    _, cy, ws = op("lstm_cell")(ig, ig * 0.5, cx, None, None)
    return op("lstm_cell_backward")(ghy, gcy, cx, cy, ws)


def _gru_backward(ghy, ig, hx):
    _, ws = op("gru_cell")(ig, ig * 0.5, hx, None, None)
    return op("gru_cell_backward")(ghy, ws)


SAMPLES.update({
    "lstm_cell_backward": [(_lstm_backward, (make((2, 2)), make((2, 2)), make((2, 8)), make((2, 2))))],
    "gru_cell_backward": [(_gru_backward, (make((2, 2)), make((2, 6)), make((2, 2))))],
})

def _svd_invariants(a, full_matrices):
    """Sign-independent functions of the SVD: S, the projections U U^T and V V^T, and U S V^T."""
    u, s, vh = op("linalg_svd")(a, full_matrices)
    k = s.shape[-1]
    u, vh = u[:, :k], vh[:k]
    return s, u @ u.mT, vh.mT @ vh, (u * s) @ vh


def _eig_invariants(a):
    """Phase-independent functions of the general eigendecomposition: the eigenvalues' parts and
    the eigenvectors' squared moduli weighted by position."""
    lam, v = op("linalg_eig")(a)
    weights = E.arange(1.0, 1.0 + a.shape[-1], dtype=F64)
    return lam.real, lam.imag, (v.abs() ** 2 * weights).sum(-2)


def _spd_base():
    a = np.random.default_rng(5).uniform(-1, 1, (3, 3)) + 3 * np.eye(3)
    return E.from_numpy(a).requires_grad_()


SAMPLES.update({
    "linalg_cross": [(lambda a, b: op("linalg_cross")(a, b, -1), (make((2, 3)), make((1, 3)))),
                     (lambda a, b: op("linalg_cross")(a, b, 0), (make((3, 2)), make((3, 2))))],
    "linalg_inv": [(op("linalg_inv"), (_spd_base(),))],
    "linalg_det": [(op("linalg_det"), (_spd_base(),))],
    "linalg_slogdet": [(lambda a: op("linalg_slogdet")(a)[1], (_spd_base(),))],
    "linalg_solve": [(op("linalg_solve"), (_spd_base(), make((3, 2)))), (op("linalg_solve"), (_spd_base(),
                                                                                            make((3,))))],
    "linalg_cholesky": [(lambda a: op("linalg_cholesky")(a @ a.mT, False), (_spd_base(),)),
                        (lambda a: op("linalg_cholesky")(a @ a.mT, True), (_spd_base(),))],
    "linalg_eigh": [(lambda a: op("linalg_eigh")(a + a.mT, "L"), (_spd_base(),))],
    "linalg_eig": [(_eig_invariants, (make((3, 3), rng=np.random.default_rng(5)),)),
                   (_eig_invariants, (make((2, 4, 4), rng=np.random.default_rng(6)),))],
    "linalg_qr": [(lambda a: op("linalg_qr")(a, "reduced"), (make(shape, rng=np.random.default_rng(sum(shape))),))
                  for shape in ((3, 3), (4, 2))],
    "linalg_svd": [(lambda a, full=full: _svd_invariants(a, full), (make(shape),))
                   for shape in ((3, 3), (4, 2), (2, 4)) for full in (False, True)],
    # hermitian=True reads one triangle: its gradient is PyTorch's, checked through a Hermitian-constrained input
    "linalg_pinv": [(lambda a: op("linalg_pinv")(a, None, None, False), (make(shape),)) for shape in ((3, 3), (4, 2),
                                                                                                    (2, 4))]
                   + [(lambda a: op("linalg_pinv")(a + a.mT, None, None, True), (_spd_base(),))],
    # the factor's gradient covers the whole matrix (PyTorch's) where the forward reads one triangle: checked
    # through a triangular input, as PyTorch's gradcheck_wrapper_triangular_input does
    "cholesky_solve": [(lambda b, f, up=up: op("cholesky_solve")(b, f.triu() if up else f.tril(), up),
                        (make((3, 2)), _spd_base())) for up in (False, True)],
    "_euclidean_dist": [(op("_euclidean_dist"), (make((3, 2)), make((4, 2), rng=np.random.default_rng(7)))),
                        (op("_euclidean_dist"), (make((2, 3, 2)), make((2, 2, 2), rng=np.random.default_rng(8))))],
    "cholesky_inverse": [(lambda f, up=up: op("cholesky_inverse")(f.triu() if up else f.tril(), up), (_spd_base(),))
                         for up in (False, True)],
    "_weight_norm_interface": [(lambda v, g: op("_weight_norm_interface")(v, g, 0)[0], (make((3, 2)), make((3, 1)))),
                               (lambda v, g: op("_weight_norm_interface")(v, g, 2)[0],
                                (make((2, 3, 4)), make((1, 1, 4), rng=np.random.default_rng(9))))],
})

# sampling, CTC and pooling kernels of the functional layer (grids inside [-1, 1) keep taps off the pixel edges)
SAMPLES.update({
    "grid_sampler": [(lambda x, g, m=m, p=p, a=a: op("grid_sampler")(x, g, m, p, a),
                      (make((1, 2, 3, 4)), make((1, 2, 2, 2), -0.9, 0.9, rng=np.random.default_rng(4))))
                     for m, p, a in ((0, 0, False), (0, 2, True), (2, 1, False))],
    "ctc_loss": [(lambda x: op("ctc_loss")(x.log_softmax(2), idx([[1, 2], [2, 0]]), (4, 3), (2, 1), 0, False)[0],
                  (make((4, 2, 3)),))],
    "fractional_max_pool": [(lambda x: op("fractional_max_pool")(x, (2, 2), (2, 3), E.tensor([[[0.3, 0.6]]],
                                                                                         dtype=F64))[0],
                             (_distinct(1, 1, 4, 5),))],
    "max_unpool": [(lambda x: op("max_unpool")(x, idx([[[[0, 3], [10, 15]]]]), (4, 4)), (make((1, 1, 2, 2)),))],
})


def make_complex(shape, seed: int = 0) -> E.Tensor:
    """A complex128 leaf (gradcheck perturbs its real and imaginary parts)."""
    rng = np.random.default_rng(seed)
    return E.from_numpy(rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).requires_grad_()


# complex views and constructors, and the FFT primitives: checked in both directions of each
# complex element (gradcheck's float views), with PyTorch's conjugate-Wirtinger convention
SAMPLES.update({
    "real": [(lambda z: z.real * z.real, (make_complex((2, 3)),))],
    "imag": [(lambda z: z.imag * z.real, (make_complex((2, 3)),))],
    "view_as_real": [(lambda z: E.view_as_real(z * z), (make_complex((3,)),))],
    "view_as_complex": [(lambda x: E.view_as_complex(x) * E.view_as_complex(x), (make((3, 2)),))],
    "complex": [(E.complex, (make((2, 3)), make((3,)))),
                (lambda a, b: E.complex(a, b).abs(), (make((3,)), make((3,))))],
    "polar": [(E.polar, (make((2, 3), 0.5, 2.0), make((3,))))],
    "angle": [(E.angle, (make_complex((2, 3)),)), (lambda x: E.angle(x) * x, (make((4,), 0.5, 1.0),))],
    "conj_physical": [(lambda z: E.conj_physical(z) * z, (make_complex((2, 3)),)), (E.conj_physical, (make((3,)),))],
    "conj": [(lambda z: E.conj(z) * z, (make_complex((2, 3)),)),
             (lambda z: E.conj(z).t() @ z, (make_complex((2, 3)),))],
    "_neg_view": [(lambda x: E._neg_view(x) * x, (make((2, 3)),)),
                  (lambda z: E.conj(z).imag * z.real, (make_complex((2, 3)),))],
    "fft_c2c": [(lambda z, n=n, f=f: op("fft_c2c")(z, (0, 1), n, f), (make_complex((3, 4)),))
                for n in ("backward", "ortho", "forward") for f in (True, False)],
    "fft_r2c": [(lambda x, n=n: op("fft_r2c")(x, (1,), n), (make((2, m)),))
                for n in ("backward", "ortho", "forward") for m in (5, 6)],
    "fft_c2r": [(lambda z, n=n, m=m: op("fft_c2r")(z, (0, 1), n, m), (make_complex((2, m // 2 + 1)),))
                for n in ("backward", "ortho", "forward") for m in (5, 6)],
})

# convolutions are bilinear: a complex gradient takes the other operand's conjugate
SAMPLES["conv2d"].append((lambda x, w: op("conv2d")(x, w, None, (2, 1), (1, 0), (1, 1), 1),
                          (make_complex((1, 2, 4, 4)), make_complex((3, 2, 3, 2), 1))))
SAMPLES["conv2d_backward_input"].append((lambda g, w: op("conv2d_backward_input")(g, w, (1, 2, 3, 3), *_CONV),
                                         (make_complex((1, 2, 3, 3)), make_complex((2, 2, 3, 3), 1))))
SAMPLES["conv2d_backward_weight"].append((lambda g, x: op("conv2d_backward_weight")(g, x, (2, 2, 3, 3), *_CONV),
                                          (make_complex((1, 2, 3, 3)), make_complex((1, 2, 3, 3), 1))))
SAMPLES["conv_transpose2d"].append((lambda x, w: op("conv_transpose2d")(x, w, None, (2, 2), (0, 0), (0, 0), 1, (1, 1)),
                                    (make_complex((1, 2, 2, 2)), make_complex((2, 3, 2, 2), 1))))

# special functions (the derivatives PyTorch has; the rest raise, see test_special_derivatives.py)
SPECIAL_DOMAIN = {
    "lgamma": (0.5, 3.0), "digamma": (0.5, 3.0), "erfc": (-1.0, 1.0), "special_erfcx": (-1.0, 2.0),
    "i0": (-2.0, 2.0), "special_i0e": (-2.0, 2.0), "special_i1": (-2.0, 2.0), "special_i1e": (-2.0, 2.0),
    "special_ndtri": (0.1, 0.9), "special_log_ndtr": (-3.0, 2.0),
    "special_entr": (0.2, 2.0), "sinc": (-2.0, 2.0),
}
for _name, (_lo, _hi) in SPECIAL_DOMAIN.items():
    SAMPLES[_name] = [(op(_name), (make((2, 3), _lo, _hi),)), (op(_name), (make((3, 2), _lo, _hi, noncontig=True),))]
SAMPLES.update({
    "polygamma": [(lambda x: E.polygamma(1, x), (make((2, 3), 0.5, 3.0),)),
                  (lambda x: E.polygamma(3, x), (make((3,), 0.5, 3.0),))],
    "logit": [(E.logit, (make((2, 3), 0.1, 0.9),)),
              (lambda x: E.logit(x, eps=0.2), (E.tensor([0.1, 0.3, 0.5, 0.7, 0.9], dtype=F64).requires_grad_(),))],
    "special_xlog1py": [(op("special_xlog1py"), (make((2, 3)), make((2, 3), 0.5, 2.0))),
                        (op("special_xlog1py"), (make((2, 1, 3)), make((4, 1), -0.5, 2.0)))],
    "special_zeta": [(lambda q: op("special_zeta")(E.tensor([2.5, 3.0, 4.0], dtype=F64), q),
                      (make((2, 3), 0.5, 3.0),)),
                     (lambda q: op("special_zeta")(3.0, q), (make((3,), 0.5, 3.0),))],
    "igamma": [(lambda x: E.igamma(E.tensor([0.5, 2.0, 3.5], dtype=F64), x), (make((2, 3), 0.5, 4.0),))],
    "igammac": [(lambda x: E.igammac(2.5, x), (make((3,), 0.5, 4.0),))],
    "grid_sampler_backward": [(lambda go, x, g: op("grid_sampler_backward")(go, x, g, 0, 2, False),
                               (make((1, 2, 2, 3)), make((1, 2, 3, 4)), make((1, 2, 3, 2), -1.4, 1.4))),
                              (lambda go, x, g: op("grid_sampler_backward")(go, x, g, 2, 1, True),
                               (make((1, 1, 2, 2)), make((1, 1, 3, 4)), make((1, 2, 2, 2), -1.2, 1.2)))],
})

# derivatives PyTorch does not provide either: its `NotImplemented` node, whose backward raises its words
NO_DOUBLE_BACKWARD = {
    "hardsigmoid_backward": lambda x, g: op("hardsigmoid_backward")(g, x),
    "ctc_loss_backward": lambda x, g: op("ctc_loss_backward")(
        g[0, :1], x.reshape(2, 1, 3), idx([[1]]), (2,), (1,), *op("ctc_loss")(x.detach().reshape(2, 1, 3), idx([[1]]),
                                                                              (2,), (1,), 0, False), 0, False),
}


def test_every_differentiable_op_has_a_derivative_entry():
    missing = sorted(n for n, o in registered_ops().items() if o.differentiable and n not in TABLE)
    assert missing == []


def test_every_entry_names_a_registered_op():
    assert sorted(n for n in TABLE if n not in registered_ops()) == []


def test_a_derivative_signature_that_drifts_from_its_op_raises():
    for name in TABLE:  # what the import of the table checked
        check_signature(TABLE[name], get_op(name))
    renamed = derivative("pow(input, other)", input=lambda grad: grad)
    with pytest.raises(RuntimeError, match=r"pow.*declared with arguments \('input', 'exponent'\).*drifted"):
        check_signature(renamed, get_op("pow"))
    extra = derivative("exp(input, scale)", input=lambda grad: grad)
    with pytest.raises(RuntimeError, match=r"exp.*drifted"):
        check_signature(extra, get_op("exp"))
    fewer = derivative("sum(input, dims)", input=lambda grad: grad)
    with pytest.raises(RuntimeError, match=r"sum.*kernel takes 4 positional argument\(s\).*drifted"):
        check_signature(fewer, get_op("sum"))


# entries whose backward raises, as PyTorch's (test_oops_messages checks the words): nothing to gradcheck
NOT_IMPLEMENTED = {"unique", "unique_consecutive", "bincount"}


def test_every_entry_has_samples():
    covered = SAMPLES.keys() | NO_DOUBLE_BACKWARD.keys() | NOT_IMPLEMENTED
    assert sorted(n for n in TABLE if n not in covered) == []
    # every sample is parametrized (none added after the parametrization was built)
    assert sum(len(v) for v in SAMPLES.values()) == len(_PARAMS)


def _cases():
    for name in sorted(SAMPLES):
        for k, case in enumerate(SAMPLES[name]):
            yield pytest.param(name, case, id=f"{name}-{k}")


_PARAMS = list(_cases())


@pytest.mark.parametrize(("name", "case"), _PARAMS)
def test_gradcheck(name, case):
    fn, inputs, *opts = case
    assert E.gradcheck(fn, inputs, **(opts[0] if opts else {}))


def test_samples_record_their_op():
    """Each sample really goes through the op its entry is for (its node appears in the graph, perhaps
    under the name PyTorch gives the public function's node: a subclass of the entry's node class)."""
    for name, cases in SAMPLES.items():
        node_cls = TABLE[name].node_cls
        found = False
        for fn, inputs, *_ in cases:
            outs = fn(*inputs)
            outs = outs if isinstance(outs, tuple) else (outs,)
            for o in outs:
                found = found or _graph_has(o.grad_fn, node_cls)
        assert found, f"no {node_cls.__name__} in the graph of the samples for {name}"


def _graph_has(node, node_cls: type) -> bool:
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        if isinstance(n, node_cls) or isinstance(getattr(n, "fn", None), node_cls):
            return True
        stack.extend(c for c, _ in n.next_functions)
    return False


SECOND_ORDER = ["exp", "log", "sin", "tanh", "sigmoid", "sqrt", "mul", "div", "pow", "atan2", "maximum", "where",
                "view", "permute", "expand", "select", "slice", "sum", "mean", "prod", "var", "std", "logsumexp",
                "amax", "mm", "bmm", "cat", "index", "gather", "softmax", "log_softmax", "conv2d",
                "max_pool2d_with_indices", "avg_pool2d", "pad_nd", "elu", "gelu", "softplus", "silu", "log_sigmoid",
                "cumsum", "nll_loss", "embedding", "sort", "lstm_cell", "gru_cell"]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_gradgradcheck(name):
    fn, inputs, *_ = SAMPLES[name][0]
    assert E.gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name", sorted(NO_DOUBLE_BACKWARD))
def test_missing_double_backward_raises(name):
    x = make((2, 3))
    g = make((2, 3))
    out = NO_DOUBLE_BACKWARD[name](x, g)
    assert out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match=rf"^derivative for aten::_?{name} is not implemented$"):
        out.sum().backward()


def _bn(x, w, b, training):
    rm, rv = E.zeros(2, dtype=F64), E.ones(2, dtype=F64)
    return op("batch_norm")(x, w, b, rm, rv, training, 0.1, 1e-5)[0]


# second derivatives of the fused normalization and loss kernels, by recomputation
FUSED_SECOND_ORDER = {
    "layer_norm": (lambda x, w, b: op("layer_norm")(x, (3,), w, b, 1e-5)[0], (make((2, 3)), make((3,)),
                                                                              make((3,)))),
    "group_norm": (lambda x, w, b: op("group_norm")(x, w, b, 2, 1e-5)[0], (make((2, 4, 2)), make((4,)),
                                                                          make((4,)))),
    "batch_norm_train": (lambda x, w, b: _bn(x, w, b, True), (make((3, 2, 2)), make((2,)), make((2,)))),
    "batch_norm_eval": (lambda x, w, b: _bn(x, w, b, False), (make((3, 2)), make((2,)), make((2,)))),
    "cross_entropy": (lambda x: op("cross_entropy")(x, _TARGET, E.tensor([1.0, 2.0, 0.5], dtype=F64), "mean",
                                                    -100, 0.0), (make((2, 3)),)),
    "cross_entropy_smoothing_ignore": (lambda x: op("cross_entropy")(x, idx([0, -100, 2]), None, "mean", -100, 0.2),
                                       (make((3, 3)),)),
    "cross_entropy_probabilities": (lambda x, t: op("cross_entropy")(x, t, E.tensor([1.0, 2.0, 0.5], dtype=F64),
                                                                     "sum", -100, 0.1),
                                    (make((2, 3)), make((2, 3), 0.1, 1.0, rng=np.random.default_rng(4)))),
    "mish": (lambda x: op("mish")(x), (make((2, 3), -2.0, 2.0),)),
    "gelu_tanh": (lambda x: op("gelu")(x, "tanh"), (make((2, 3), -2.0, 2.0),)),
}
# grid_sampler (mode, padding, align_corners), 2-D and 3-D, with points outside the input too
_GRID_CASES = [(0, 0, False, 2), (0, 1, True, 2), (0, 2, False, 2), (0, 2, True, 3), (1, 2, False, 2),
               (2, 0, False, 2), (2, 2, True, 2), (2, 1, False, 2), (0, 0, True, 3)]
for _mode, _pad, _align, _nd in _GRID_CASES:
    FUSED_SECOND_ORDER[f"grid_sampler_{_mode}_{_pad}_{int(_align)}_{_nd}d"] = (
        lambda x, g, m=_mode, p=_pad, a=_align: op("grid_sampler")(x, g, m, p, a),
        (make((1, 2) + (3, 4, 3)[3 - _nd:], rng=np.random.default_rng(5)),
         make((1, 2, 3, _nd) if _nd == 2 else (1, 2, 1, 2, 3), -1.4, 1.4, rng=np.random.default_rng(6))))


@pytest.mark.parametrize("mode, pad, align, nd", _GRID_CASES)
def test_grid_sampler_recomputed_with_ops_is_the_kernel(mode, pad, align, nd):
    from ember.autograd.derivatives._recompute import grid_sampler_fn

    x = make((2, 3) + (4, 5, 3)[3 - nd:], rng=np.random.default_rng(1))
    g = make((2, 4, 3, nd) if nd == 2 else (2, 4, 3, 2, 3), -1.6, 1.6, rng=np.random.default_rng(2))
    np.testing.assert_allclose(grid_sampler_fn(mode, pad, align)(x, g).detach().numpy(),
                               op("grid_sampler")(x, g, mode, pad, align).detach().numpy(), atol=1e-12)


@pytest.mark.parametrize("nd", [2, 3])
def test_grid_sampler_double_backward_node_is_pytorchs(nd):
    x = make((1, 1) + (3, 4, 3)[3 - nd:])
    g = make((1, 2, 2, nd) if nd == 2 else (1, 2, 1, 2, 3), -0.9, 0.9)
    (gg,) = E.autograd.grad(op("grid_sampler")(x, g, 0, 0, False).sum(), g, create_graph=True)
    assert type(gg.grad_fn).__name__ == f"GridSampler{nd}DBackwardBackward0"


@pytest.mark.parametrize("name", sorted(FUSED_SECOND_ORDER))
def test_gradgradcheck_of_fused_kernels(name):
    fn, inputs = FUSED_SECOND_ORDER[name]
    assert E.gradgradcheck(fn, inputs, atol=1e-4)


_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(["add", "sub", "mul", "div", "maximum", "atan2", "hypot"]), a=_shapes, b=_shapes,
       nc=st.booleans(), seed=st.integers(0, 2**16))
def test_binary_broadcasting_gradients(name, a, b, nc, seed):
    rng = np.random.default_rng(seed)
    (alo, ahi), (blo, bhi) = _grad_range(name, 0), _grad_range(name, 1)
    # make b broadcastable against a by taking a's trailing dims, some set to 1
    b = tuple(1 if rng.random() < 0.4 else n for n in a[len(a) - min(len(a), len(b)):])
    x, y = make(a, alo, ahi, rng=rng, noncontig=nc), make(b, blo, bhi, rng=rng)
    assert E.gradcheck(op(name), (x, y))


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(UNARY), shape=_shapes, nc=st.booleans(), seed=st.integers(0, 2**16))
def test_unary_gradients_random_shapes(name, shape, nc, seed):
    lo, hi = _grad_range(name, 0)
    x = make(shape, lo, hi, rng=np.random.default_rng(seed), noncontig=nc)
    assert E.gradcheck(getattr(E, name), (x,))


@pytest.mark.parametrize("x, w, kw", [
    ((1, 1, 3, 3), (1, 1, 3, 1), dict(stride=1, padding=(0, 1), dilation=(1, 2), output_padding=(0, 1))),
    ((1, 2, 2, 3), (2, 1, 2, 2), dict(stride=1, dilation=(2, 3), output_padding=(1, 2), groups=2)),
    ((1, 1, 2, 2, 2), (1, 1, 2, 2, 1), dict(stride=(2, 1, 1), padding=(0, 0, 1), dilation=(1, 1, 2),
                                          output_padding=(0, 0, 1))),
])
def test_transposed_conv_with_output_padding_below_the_dilation_has_the_right_input_gradient(x, w, kw):
    # found by the fuzz campaign's conv family: with stride 1, output_padding < dilation adds output rows
    # that the input gradient (a conv of the gradient) mapped past the input: "invalid gradient ... shape"
    rng = np.random.default_rng(0)
    a = E.tensor(rng.standard_normal(x), dtype=E.float64, requires_grad=True)
    b = E.tensor(rng.standard_normal(w), dtype=E.float64, requires_grad=True)
    fn = E.conv_transpose2d if len(x) == 4 else E.conv_transpose3d
    assert gradcheck(lambda a, b: fn(a, b, **kw), (a, b))


def test_matrix_power_zero_is_the_identity_with_a_zero_gradient():
    # found by the fuzz campaign's linalg family: the identity was not connected to the graph, so
    # backward() said it "does not require grad" (PyTorch: a zero gradient; a NaN entry does not leak)
    a = E.tensor([[1.0, float("nan")], [2.0, 3.0]], requires_grad=True)
    r = E.linalg.matrix_power(a, 0)
    assert r.requires_grad
    r.sum().backward()
    np.testing.assert_array_equal(r.detach().numpy(), np.eye(2))
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros((2, 2)))


@pytest.mark.parametrize("shape", [(2, 4), (3, 2, 5), (1, 2)])
def test_qr_of_a_wide_matrix_is_differentiable(shape):
    # found by the fuzz campaign's linalg family: NotImplementedError for m < n (PyTorch differentiates it)
    a = E.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)

    def f(x):
        q, r = E.linalg.qr(x)
        return q, r

    assert gradcheck(f, (a,))


@pytest.mark.parametrize("name, args", [("relu", ()), ("leaky_relu", (0.2,)), ("hardtanh", (-1.0, 1.0)),
                                        ("hardshrink", (0.5,)), ("softshrink", (0.5,)), ("threshold", (0.1, 20.0))])
def test_piecewise_linear_grad_stays_connected_to_the_input(name, args):
    # PyTorch's `self: zeros_like(grad)` for their backward ops: a gradient penalty differentiates back to the
    # input (zero), it does not report the input unused
    x = E.tensor([-1.5, -0.2, 0.3, 2.0], dtype=F64, requires_grad=True)
    (g,) = E.autograd.grad(op(name)(x, *args).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = E.autograd.grad(g.pow(2).sum(), x)
    np.testing.assert_array_equal(gg.numpy(), np.zeros(4))


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_pool_grad_stays_connected_to_the_input(dims):
    # PyTorch's max_pool2d_with_indices_backward takes the input (`self: zeros_like(self)`): a gradient penalty
    # through max pooling differentiates back to the input as zeros, on top of the path through grad_output
    from ember.core.ops import pool as ops_pool

    x = E.tensor(np.random.default_rng(0).standard_normal((1, 2) + (4,) * dims), dtype=F64, requires_grad=True)
    pool = getattr(ops_pool, f"max_pool{dims}d")
    (g,) = E.autograd.grad((pool(x, 2) ** 2).sum(), x, create_graph=True)
    (gg,) = E.autograd.grad(g.pow(2).sum(), x)
    (g1,) = E.autograd.grad(pool(x, 2).sum(), x, create_graph=True)
    assert g1.requires_grad
    np.testing.assert_array_equal(E.autograd.grad(g1.sum(), x)[0].numpy(), np.zeros(x.shape))
    torch = pytest.importorskip("torch")
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    tpool = getattr(torch.nn.functional, f"max_pool{dims}d")
    (tg,) = torch.autograd.grad((tpool(tx, 2) ** 2).sum(), tx, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), torch.autograd.grad(tg.pow(2).sum(), tx)[0].numpy(), rtol=1e-12)


def test_dropout_gradient_is_the_forward_noise():
    """PyTorch's CPU dropout is `x * noise`: its gradient is `grad * noise`, the noise 1 / (1 - p) computed in
    float32 (for p = 0.15 one bit above 1 / 0.85 rounded from float64)."""
    p = 0.15
    x = E.tensor(np.random.default_rng(0).standard_normal(300).astype(np.float32), requires_grad=True)
    g = np.random.default_rng(1).standard_normal(300).astype(np.float32)
    y = E.dropout(x, p, True)
    y.backward(E.tensor(g))
    kept = y.detach().numpy() != 0
    noise = np.where(kept, np.float32(1) / np.float32(1 - p), np.float32(0))
    np.testing.assert_array_equal(x.grad.numpy(), g * noise)


@pytest.mark.parametrize("name", ["add", "sub"])
def test_add_and_sub_save_alpha_whichever_input_needs_a_gradient(name):
    """PyTorch's AddBackward0/SubBackward0 save alpha always (1 when not given), also where only `input` requires
    grad or `other` is a number."""
    a, b = E.ones(2, requires_grad=True), E.ones(2)
    fn = getattr(E, name)
    assert fn(a, b, alpha=2).grad_fn._saved_alpha == 2 and fn(b, a, alpha=2).grad_fn._saved_alpha == 2
    assert fn(a, 2.0, alpha=3).grad_fn._saved_alpha == 3 and fn(a, b).grad_fn._saved_alpha == 1
    q = a * 1.0
    getattr(q, name + "_")(b, alpha=4)
    assert q.grad_fn._saved_alpha == 4


@pytest.mark.parametrize("name", ["add", "sub"])
def test_add_and_sub_with_alpha_are_one_node_with_the_operands_edges(name):
    # PyTorch's AddBackward0/SubBackward0 (not a MulBackward0 for `alpha * other`, nor a ToCopyBackward0 for
    # 16-bit operands), saving alpha; other's gradient is grad * alpha (negated for sub)
    x, y = make((2, 3)), make((3,))
    assert E.gradcheck(lambda x, y: getattr(E, name)(x, y, alpha=-0.7), (x, y))
    for dt in (F64, E.bfloat16):
        a, b = E.ones(2, 3, dtype=dt, requires_grad=True), E.ones(3, dtype=dt, requires_grad=True)
        r = getattr(E, name)(a, b, alpha=0.5)
        assert type(r.grad_fn).__name__ == f"{name.capitalize()}Backward0" and r.grad_fn._saved_alpha == 0.5
        assert [type(f).__name__ for f, _ in r.grad_fn.next_functions] == ["AccumulateGrad"] * 2
        r.sum().backward()
        np.testing.assert_array_equal(a.grad.float().numpy(), np.ones((2, 3)))
        np.testing.assert_array_equal(b.grad.float().numpy(), np.full(3, 1.0 if name == "add" else -1.0))
    p = E.ones(3, dtype=F64, requires_grad=True)
    q = p * 1.0
    q.add_(make((3,)), alpha=2.0)
    assert type(q.grad_fn).__name__ == "AddBackward0"


@pytest.mark.parametrize("include_self, want_src, want_self", [  # PyTorch 2.13's gradients
    (True, [1.0, 1.0, 0.0, 0.0, 0.0, 15.0], [1.0, 0.0, 9.0]),
    (False, [1.0, 1.0, 0.0, 0.0, 0.0, 3.0], [0.0, 0.0, 0.0]),
])
def test_scatter_reduce_prod_gradient_through_zeros_is_pytorchs(include_self, want_src, want_self):
    src = E.tensor([1.0, 1.0, 0.0, 2.0, 0.0, 3.0], requires_grad=True)  # two zeros in segment 1, whose base is 0
    base = E.tensor([1.0, 0.0, 5.0], requires_grad=True)
    out = base.scatter_reduce(0, E.tensor([0, 0, 1, 1, 1, 2]), src, "prod", include_self=include_self)
    (out * E.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert src.grad.tolist() == want_src and base.grad.tolist() == want_self
    s = E.tensor([2.0, 0.0, 4.0], requires_grad=True)  # a single zero takes the product of the rest
    E.ones(1).scatter_reduce(0, E.tensor([0, 0, 0]), s, "prod").sum().backward()
    assert s.grad.tolist() == [0.0, 8.0, 0.0]


def test_index_reduce_records_index_reduce_backward_in_place_too():
    b = E.ones(3, 2, requires_grad=True)
    x = b.clone()
    x.index_reduce_(0, E.tensor([0, 0]), E.full((2, 2), 2.0), "prod")
    assert x.grad_fn.name() == "IndexReduceBackward0"
    x.sum().backward()  # the in-place write keeps what the backward reads
    assert b.grad.tolist() == [[4.0, 4.0], [1.0, 1.0], [1.0, 1.0]]
    assert b.index_reduce(0, E.tensor([1]), E.ones(1, 2), "amax").grad_fn.name() == "IndexReduceBackward0"


def test_setitem_through_a_mask_and_an_ellipsis_key_record_pytorchs_nodes():
    w = E.ones(2, 2, requires_grad=True)
    assert w[...].grad_fn.name() == "AliasBackward0" and w[()].grad_fn.name() == "AliasBackward0"
    c = w.clone()
    v = E.tensor(3.0, requires_grad=True)
    c[c > 0] = v  # PyTorch's setitem is an index_put_ (ember fills the mask)
    assert c.grad_fn.name() == "IndexPutBackward0"
    (c * E.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert v.grad.item() == 10.0 and w.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def _chain(fn) -> list[str]:
    names = []
    while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


@pytest.mark.parametrize("make_y, chain", [
    (lambda x: x.squeeze(), ["UnsqueezeBackward0"]),
    (lambda x: x.squeeze(1), ["UnsqueezeBackward0"]),
    (lambda x: x.squeeze((1,)), ["UnsqueezeBackward0"]),
    (lambda x: x.squeeze(0), []),  # nothing squeezed: the gradient itself
    (lambda x: x.unsqueeze(-1), ["SqueezeBackward1"]),
    (lambda x: x.expand(4, 2, 1, 3), ["ViewBackward0", "SumBackward1"]),  # PyTorch's sum_to: keepdim, then view
    (lambda x: x.expand(2, 5, 3), ["SumBackward1"]),
    (lambda x: x.tanh(), ["TanhBackwardBackward0"]),
    (lambda x: x.sigmoid(), ["SigmoidBackwardBackward0"]),
    (lambda x: x.softmax(2), ["SoftmaxBackwardDataBackward0"]),
    (lambda x: x.log_softmax(2), ["LogSoftmaxBackwardDataBackward0"]),
    (lambda x: op("layer_norm")(x, (3,), None, None, 1e-5)[0], ["NativeLayerNormBackwardBackward0"]),
    (lambda x: x.abs(), ["MulBackward0"]),
    (lambda x: op("mse_loss")(x, E.zeros(2, 1, 3, dtype=F64), "sum"), ["MseLossBackwardBackward0"]),
])
def test_double_backward_graph_has_pytorchs_nodes(make_y, chain):
    x = E.randn(2, 1, 3, dtype=F64, requires_grad=True)
    y = make_y(x)
    v = E.ones_like(y).requires_grad_()
    (g,) = E.autograd.grad(y, x, v, create_graph=True)
    assert _chain(g.grad_fn) == chain and g.shape == x.shape


def test_abs_double_backward_goes_through_sgn():
    x = E.tensor([-2.0, 3.0], dtype=F64, requires_grad=True)
    (g,) = E.autograd.grad(x.abs().sum(), x, create_graph=True)
    assert [n.name() for n, _ in g.grad_fn.next_functions if n is not None] == ["SgnBackward0"]
    assert x.sgn().grad_fn.name() == "SgnBackward0" and g.tolist() == [-1.0, 1.0]


def test_conv2d_double_backward_node_is_convolution_backwards():
    w = E.randn(2, 1, 3, 3, dtype=F64, requires_grad=True)
    x = E.randn(1, 1, 4, 4, dtype=F64, requires_grad=True)
    (gx, gw) = E.autograd.grad(op("conv2d")(x, w, None, (1, 1), (1, 1), (1, 1), 1).pow(2).sum(), (x, w),
                               create_graph=True)
    assert gx.grad_fn.name() == gw.grad_fn.name() == "ConvolutionBackwardBackward0"


def test_fused_tanh_sigmoid_backward_values_and_second_derivative():
    x = E.tensor([-1.5, 0.0, 0.7], dtype=F64, requires_grad=True)
    for f, d1, d2 in [(E.tanh, lambda t: 1 - np.tanh(t) ** 2, lambda t: -2 * np.tanh(t) * (1 - np.tanh(t) ** 2)),
                      (E.sigmoid, lambda t: (s := 1 / (1 + np.exp(-t))) * (1 - s),
                       lambda t: (s := 1 / (1 + np.exp(-t))) * (1 - s) * (1 - 2 * s))]:
        (g,) = E.autograd.grad(f(x).sum(), x, create_graph=True)
        (h,) = E.autograd.grad(g.sum(), x)
        t = np.array([-1.5, 0.0, 0.7])
        np.testing.assert_allclose(g.detach().numpy(), d1(t), rtol=1e-12)
        np.testing.assert_allclose(h.numpy(), d2(t), rtol=1e-12, atol=1e-15)


def test_cumprod_saves_its_result_so_writing_into_it_raises_at_backward():
    x = make((2, 4), 0.5, 2.0)
    y = x.cumprod(1)
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="which is output 0 of Cumprod, is at version 1; expected version 0"):
        y.sum().backward()


@pytest.mark.parametrize("values", [[0.5, -2.0, 1.5, 3.0], [0.5, 0.0, 1.5, 0.0]])
def test_cumprod_gradient_with_and_without_zeros_is_the_float64_reference(values):
    x = E.tensor(values, dtype=F64, requires_grad=True)
    g = np.array([1.0, -2.0, 0.5, 3.0])
    x.cumprod(0).backward(E.tensor(g, dtype=F64))
    v = np.array(values)
    want = [sum(g[i] * np.prod(np.delete(v[:i + 1], k)) for i in range(k, 4)) for k in range(4)]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("zero", [False, True])
def test_cumprod_gradient_of_a_complex_input_is_the_conjugate_wirtinger_one(zero):
    """PyTorch's complex gradient is g * conj(f'(z)): dx_k = sum_{i >= k} g_i conj(prod_{j <= i, j != k} z_j)."""
    v = np.array([1 + 2j, 0.5 - 1j, 0j if zero else -1 + 0.3j, 2 - 1j])
    z = E.tensor(v, dtype=E.complex128, requires_grad=True)
    g = np.array([1 - 1j, 2 + 0.5j, -1 + 1j, 0.5j])
    z.cumprod(0).backward(E.tensor(g, dtype=E.complex128))
    want = [sum(g[i] * np.conj(np.prod(np.delete(v[:i + 1], k))) for i in range(k, 4)) for k in range(4)]
    np.testing.assert_allclose(z.grad.numpy(), want, rtol=1e-12)


def test_polar_gradient_is_pytorchs_read_from_the_result():
    """PyTorch differentiates polar through its result: abs gets real(conj(g) sgn(result)), so 0 where abs is 0
    and the sign of a negative abs folded in (PyTorch 2.13's numbers)."""
    a = E.tensor([-1.5, 0.0, 2.0], dtype=F64, requires_grad=True)
    p = E.tensor([0.3, -2.0, 1.0], dtype=F64, requires_grad=True)
    r = E.polar(a, p)
    assert r.grad_fn.name() == "PolarBackward0"
    r.backward(E.tensor([1 + 2j, -0.5j, 3.0], dtype=E.complex128))
    np.testing.assert_allclose(a.grad.numpy(), [-1.546376902448285, 0.0, 1.6209069176044193], rtol=1e-12)
    np.testing.assert_allclose(p.grad.numpy(), [-2.4227291573848087, 0.0, -5.048825908847379], rtol=1e-12)


def test_prelu_gradient_stays_connected_to_the_input_with_a_zero_second_derivative():
    """PyTorch's prelu backward is a node of the input: a gradient penalty through a PReLU with a fixed slope
    requires grad, and its derivative reaching the input is zeros, not unused."""
    x = E.tensor([[-2.0, 0.0, 1.5]], dtype=F64, requires_grad=True)
    w = E.tensor([0.25], dtype=F64)
    (g,) = E.autograd.grad(E.prelu(x, w).sum(), x, create_graph=True)
    assert g.requires_grad and g.tolist() == [[0.25, 0.25, 1.0]]
    (h,) = E.autograd.grad(g.square().sum(), x)
    assert h.tolist() == [[0.0, 0.0, 0.0]]
    y = E.prelu(E.tensor([[-0.0, 0.0, -2.0]], dtype=F64), w)
    assert [math.copysign(1.0, v) for v in y.tolist()[0]] == [-1.0, 1.0, -1.0] and y.tolist()[0][2] == -0.5


def test_inplace_leaky_relu_negative_slope_message_is_pytorchs_whole():
    """PyTorch's leaky_relu message ends with a plea to file an issue (its elu one does not)."""
    out = E.leaky_relu(E.randn(3, requires_grad=True) * 1.0, -0.2, True)
    with pytest.raises(RuntimeError) as info:
        out.sum().backward()
    assert str(info.value).endswith("please call out-of-place version instead. File an issue at "
                                    "https://github.com/pytorch/pytorch if you do require supporting in-place "
                                    "leakRelu backward calculation with negative slope")


def test_mish_gradient_under_create_graph_is_pytorchs_composite_and_differentiates_twice():
    # PyTorch's infinitely_differentiable_mish_backward: the first derivative's node is MulBackward0, not a fused op
    xs = np.array([-2.5, -0.7, 0.0, 0.3, 1.1, 3.0])
    x = E.tensor(xs, requires_grad=True)
    g1 = E.autograd.grad(op("mish")(x).sum(), x, create_graph=True)[0]
    assert g1.grad_fn.name() == "MulBackward0"
    g2 = E.autograd.grad(g1.sum(), x, create_graph=True)[0]

    def mish_d1(v):
        sp = np.log1p(np.exp(v))
        return np.tanh(sp) + v / (1 + np.exp(-v)) * (1 - np.tanh(sp) ** 2)

    h = 1e-5
    np.testing.assert_allclose(g1.detach().numpy(), mish_d1(xs), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g2.detach().numpy(), (mish_d1(xs + h) - mish_d1(xs - h)) / (2 * h), atol=1e-8)
    assert E.autograd.grad(op("mish")(x).sum(), x)[0].grad_fn is None


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_into_out_leaves_pytorchs_refusing_node(name):
    """PyTorch's softmax.out has no derivative: `out` of an input that requires grad gets NotImplemented."""
    x = E.randn(2, 3, requires_grad=True)
    out = E.empty(2, 3)
    getattr(E, name)(x, 1, out=out)
    assert type(out.grad_fn).__name__ == "NotImplemented" and out.requires_grad
    with pytest.raises(RuntimeError, match=f"^derivative for aten::{name} is not implemented$"):
        out.sum().backward()


def test_cdist_root_in_double_keeps_vector_norms_gradient():
    a = E.tensor([[3.0, -1.0, 0.5], [0.2, 0.4, -2.0]], requires_grad=True)
    b = E.tensor([[0.0, 1.0, 1.0]])
    out = E.cdist(a, b, p=3)
    assert type(out.grad_fn).__name__ == "CdistBackward0"
    out.sum().backward()
    ref = a.detach().clone().requires_grad_()
    E.linalg.vector_norm(ref - b, 3, -1).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ref.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name, call, node", [
    ("transpose_copy", lambda x: E.transpose_copy(x, 0, 1), "TransposeBackward0_copy"),
    ("permute_copy", lambda x: E.permute_copy(x, (1, 0, 2)), "PermuteBackward0_copy"),
    ("select_copy", lambda x: E.select_copy(x, 1, 0), "SelectBackward0_copy"),
    ("narrow_copy", lambda x: E.narrow_copy(x, 1, 0, 1), "NarrowCopyBackward0"),
    ("alias_copy", lambda x: E.alias_copy(x), "AliasBackward0_copy"),
    ("unbind_copy", lambda x: E.unbind_copy(x, 1)[0], "UnbindBackward0_copy"),
])
def test_copy_twins_of_views_are_row_major_with_pytorchs_nodes(name, call, node):
    """PyTorch's *_copy ops return a contiguous tensor whatever the input's layout, recorded as `<View>_copy`."""
    x = E.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1).requires_grad_()
    r = call(x)
    assert r.is_contiguous() and type(r.grad_fn).__name__ == node
    r.sum().backward()
    assert x.grad.shape == x.shape and float(x.grad.sum()) == r.numel()


def test_clamp_takes_a_zero_dim_tensor_bound_beside_a_number_as_a_number_unless_it_requires_grad():
    # PyTorch's parser reads a 0-dim tensor as a Number only if it does not require grad: the Number overload's node
    x = E.tensor([0.0, 1.0], requires_grad=True)
    r = E.clamp(x, E.tensor(0.5), 0.7)
    assert type(r.grad_fn).__name__ == "ClampBackward1" and r.tolist() == pytest.approx([0.5, 0.7])
    r.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="^clamp\\(\\) received an invalid combination of arguments - got "
                                        "\\(Tensor, Tensor, float\\), but expected one of:\n"):
        E.clamp(x, E.tensor(0.5, requires_grad=True), 0.7)


def test_a_not_implemented_derivative_is_evaluated_only_where_its_gradient_is_wanted():
    # PyTorch's igamma: grad() of `other` (or backward(inputs=[other])) works while `input` requires grad
    a, x = E.tensor(2.0, requires_grad=True), E.tensor([0.5, 1.0], requires_grad=True)
    r = E.special.gammainc(a, x)
    (g,) = E.autograd.grad(r.sum(), x, retain_graph=True)
    assert g.tolist() == pytest.approx([0.5 * math.exp(-0.5), math.exp(-1.0)])  # the Gamma(2, 1) density
    r.sum().backward(inputs=[x], retain_graph=True)
    assert a.grad is None and x.grad.tolist() == pytest.approx(g.tolist())
    for call in (lambda: E.autograd.grad(r.sum(), a, retain_graph=True), lambda: r.sum().backward()):
        with pytest.raises(NotImplementedError, match="^the derivative for 'igamma: input' is not implemented.$"):
            call()
