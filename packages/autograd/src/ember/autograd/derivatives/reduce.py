"""Derivatives of reductions, scans, sorting and selection, and the linear-algebra primitives."""

# ruff: noqa: A002 - rules take PyTorch's argument names (input, ord)

from __future__ import annotations

import math

import numpy as np

from ember.core.dispatch import get_op
from ember.core.ops import elementwise as ew
from ember.core.tensor import Tensor

from ember.autograd.derivatives._entry import derivative as d
from ember.core.ops.linalg import mm_untracked

from ember.autograd.derivatives._helpers import (cj, keep, not_implemented, put_into, scatter_into, unreduce, where0,
                                                zeros_with)
from ember.autograd.grad_mode import is_grad_enabled
from ember.autograd.untracked import plain, transposed

__all__ = ["ENTRIES", "COMPOSITE_ENTRIES"]


def _column_major(shape: tuple, strides: tuple) -> bool:
    """A 2-D layout that is a transposed row-major matrix (`w.t()`), and not also row-major."""
    return strides[0] == 1 and strides[1] == max(shape[0], 1) and strides[1] != 1


def _mm_input_backward(grad, mat2):
    """grad @ mat2^H: at once where `plain` (NOTE [ Backward products computed at once ])."""
    if plain(grad, mat2):
        return mm_untracked(grad, mat2, tb=True)
    return grad.mm(cj(mat2.t()))


def _mm_mat2_backward(grad, input, mat2_geometry):
    """input^H @ grad, in mat2's layout when mat2 is column-major (PyTorch's rule): linear's `x @ w.t()`
    then hands `w` a contiguous gradient through `t`'s backward, which `.grad` takes without a copy."""
    shape, strides = mat2_geometry[0], mat2_geometry[1]
    if _column_major(shape, strides):
        if plain(grad, input):
            return transposed(mm_untracked(grad, input, ta=True))
        return grad.t().mm(cj(input)).t()
    if plain(grad, input):
        return mm_untracked(input, grad, ta=True)
    return cj(input.t()).mm(grad)


def _count(shape: tuple, dims: tuple) -> int:
    return math.prod(shape[i] for i in dims)


def _evenly(grad, input, result, dims, keepdim):
    """Gradient of max/min over `dims` shared evenly among the elements equal to the result."""
    shape = input.shape
    r = keep(result, shape, dims) if not keepdim else result
    mask = ew.logical_or(input == r, ew.logical_and(ew.isnan(input), ew.isnan(r)))  # a NaN max is its NaNs'
    g = unreduce(grad, shape, dims, keepdim) * mask
    return g / keep(mask.sum(dims), shape, dims)


def _softmax_over(input, dims):
    """exp(x - logsumexp(x)) over `dims`, computed as exp(x - max) / sum: exp(x - result) loses the
    digits of a rounded result (1e4 + log 2 in float32 is off by 5e-4, and so is the gradient).
    Complex: shifted by the max real part, and conjugated (the rule multiplies by conj(d lse / dx))."""
    if input.numel() == 0:
        return input * 0.0
    m = (input.real if input.is_complex() else input).amax(dims, keepdim=True).detach()
    e = ew.exp(input - ew.where(ew.isfinite(m), m, 0.0))  # rows of -inf (or +inf) give NaN, as PyTorch
    p = e / e.sum(dims, keepdim=True)
    return p.conj() if input.is_complex() else p


def _prod_backward(grad, input, dims, keepdim):
    """prod's gradient as the product of all other elements (exact with zeros): exclusive
    running products from both ends of the reduced elements laid out along one axis."""
    from ember.core import cat, ones

    if input.ndim == 0:
        return grad
    rest = [i for i in range(input.ndim) if i not in dims]
    perm = rest + list(dims)
    x = input.permute(perm)
    lead = tuple(x.shape[:len(rest)])
    n = _count(tuple(input.shape), dims)
    if n == 0:
        return zeros_with(tuple(input.shape), grad)
    x = x.reshape(lead + (n,))
    one = ones(lead + (1,), dtype=x.dtype, device=x.device)
    left = cat([one, x.narrow(-1, 0, n - 1)], -1).cumprod(-1)
    right = cat([one, x.flip((-1,)).narrow(-1, 0, n - 1)], -1).cumprod(-1).flip((-1,))
    g = (grad.reshape(lead + (1,)) * cj(left * right)).reshape(tuple(input.permute(perm).shape))
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return g.permute(inv)


def _moment_grads(grads, input, dims, correction, keepdim, sqrt, result0):
    """var/std (and their *_mean twins) backward: grads[0] for var or std, grads[1] for the mean."""
    shape = tuple(input.shape)
    n = _count(shape, dims)
    out = None
    if grads[0] is not None:
        centred = input - input.mean(dims, keepdim=True)
        # centre twice: the first mean is rounded to the input's dtype (1e4 +- 1e-2 in float32 is off by
        # 5e-4); the deviations are exact and small, so their own mean removes that error
        centred = centred - centred.mean(dims, keepdim=True)
        g = unreduce(grads[0], shape, dims, keepdim)
        if sqrt:  # std's gradient is 0 where std is 0 (all-equal inputs), as PyTorch's masked rule
            std = keep(result0, shape, dims) if not keepdim else result0
            g = ew.where(std == 0, 0.0, g / std * 0.5)
        out = g * 2.0 * centred / max(n - correction, 0)
    if len(grads) > 1 and grads[1] is not None:
        gm = unreduce(grads[1], shape, dims, keepdim) / n
        out = gm if out is None else out + gm
    return out


def _norm_backward(grad, input, ord, dims, keepdim, result):
    shape = tuple(input.shape)
    r = result if keepdim else keep(result, shape, dims)
    g = unreduce(grad, shape, dims, keepdim)
    if ord == 0:  # PyTorch's rule returns an undefined gradient: the input's .grad stays None
        return None
    if ord == 1:
        return g * ew.sign(input)
    if ord == 2:
        return g * ew.where(r == 0, 0.0, input / r)
    if math.isinf(ord):
        mask = ew.abs(input) == r
        return g * ew.sign(input) * mask / keep(mask.sum(dims), shape, dims)
    scaled = ew.where(input == 0, 0.0, ew.sign(input) * ew.abs(input) ** (ord - 1))  # 0 ** (p - 1) is inf for p < 1
    return g * ew.where(r == 0, 0.0, scaled / r ** (ord - 1))


def _cumprod_backward(grad, input, dim, result):
    """PyTorch's rule, which saves the result (so writing into it raises at backward): where no input is zero and no
    second derivative is recorded, dx_k = sum_{i >= k} g_i r_i / x_k by a reversed cumsum; otherwise exact with
    zeros, dx_k = left_k * sum_{i >= k} g_i * prod_{k < j <= i} x_j, via an (L, L) table (of the conjugates for a
    complex input: PyTorch's gradient is g * conj(f'(z)))."""
    from ember.core import arange, cat, ones

    if input.ndim == 0:
        return grad
    if not is_grad_enabled() and not input.is_complex() and not bool((input == 0).any()):
        return (grad * result).flip((dim,)).cumsum(dim).flip((dim,)) / input
    x = cj(input).movedim(dim, -1)
    g = grad.movedim(dim, -1)
    n = x.shape[-1]
    if n == 0:
        return grad
    idx = arange(n, device=x.device)
    after = idx.unsqueeze(0) > idx.unsqueeze(1)            # [k, j]: j > k
    table = ew.where(after, x.unsqueeze(-2), 1.0).cumprod(-1)  # [k, i]: prod_{k < j <= i} x_j
    upper = idx.unsqueeze(0) >= idx.unsqueeze(1)           # [k, i]: i >= k
    inner = (where0(upper, g.unsqueeze(-2) * table)).sum(-1)
    one = ones(tuple(x.shape[:-1]) + (1,), dtype=x.dtype, device=x.device)
    left = cat([one, x.narrow(-1, 0, n - 1)], -1).cumprod(-1)
    return (left * inner).movedim(-1, dim)


def _selected(grad, indices, input_shape, dim, keepdim):
    """Backward of ops returning values picked at `indices` along `dim` (max_dim, kthvalue ...)."""
    return put_into(grad, input_shape, dim, indices, keepdim)


def _logcumsumexp_backward_linear(grad, input, result, dim):
    """dx_j = sum_{i >= j} g_i exp(x_j - r_i) through an (L, L) table, each exponent <= 0: linear in grad, so its
    derivative in grad is finite where grad is zero (forward AD differentiates the backward at a zero cotangent,
    where log|grad| is -inf)."""
    from ember.core import arange

    x, r, g = input.movedim(dim, -1), result.movedim(dim, -1), grad.movedim(dim, -1)
    idx = arange(x.shape[-1], device=x.device)
    upto = idx.unsqueeze(0) <= idx.unsqueeze(1)  # [i, j]: j <= i
    table = ew.exp(ew.where(upto, x.unsqueeze(-2) - r.unsqueeze(-1), -math.inf))
    return (g.unsqueeze(-1) * table).sum(-2).movedim(-1, dim)


def _logcumsumexp_backward(grad, input, result, dim):
    """Stable: positive and negative parts of grad through a reversed logcumsumexp (as PyTorch); complex:
    conj(exp(rev(log(conj(grad)) - result) + input)), no split needed."""
    def rev(x):
        return x.flip((dim,)).logcumsumexp(dim).flip((dim,))

    if input.is_complex():
        return ew.exp(rev(ew.log(grad.conj()) - result) + input).conj()
    if is_grad_enabled() and input.ndim > 0:
        return _logcumsumexp_backward_linear(grad, input, result, dim)

    lowest = float(np.finfo(input.dtype.np).min)
    log_abs = ew.log(ew.abs(grad))
    pos = ew.exp(rev(ew.where(grad > 0, log_abs, lowest) - result) + input)
    neg = ew.exp(rev(ew.where(grad < 0, log_abs, lowest) - result) + input)
    return pos - neg


def _einsum_backward(grads, equation, operands):
    """Each operand's gradient is another einsum: grad with the other operands (cast to the result's dtype), to
    its subscripts; summed over the dims it broadcast from size 1, and back in its own dtype."""
    from ember.core import einsum
    from ember.core.ops.einsum_composite import _parse

    grad = grads[0]
    ins, out = _parse(equation, operands)
    res = []
    for i, op in enumerate(operands):
        if not isinstance(op, Tensor):
            res.append(None)
            continue
        sub = ins[i]
        uniq = "".join(dict.fromkeys(sub))  # a repeated letter ('ii') reads a diagonal: one dim per letter
        sizes = tuple(op.shape[sub.index(c)] for c in uniq)
        others = [(s, o) for j, (s, o) in enumerate(zip(ins, operands)) if j != i]
        avail = set(out).union(*(set(s) for s, _ in others))
        target = "".join(c for c in uniq if c in avail)
        eq = ",".join([out] + [s for s, _ in others]) + "->" + target
        g = einsum(eq, grad, *[cj(o.to(grad.dtype)) for _, o in others])  # complex: the other factors' conjugates
        if g.dtype.is_complex and not op.dtype.is_complex:
            g = g.real
        wide = tuple(k for k, c in enumerate(target) if g.shape[k] != 1 and sizes[uniq.index(c)] == 1)
        if wide:  # the operand broadcast there from size 1
            g = g.sum(wide, keepdim=True)
        g = g.to(op.dtype)
        if tuple(g.shape) != sizes:  # letters the others lack, or broadcast from their size 1
            g = g.reshape(tuple(g.shape[target.index(c)] if c in avail else 1 for c in uniq)).expand(sizes)
        if uniq != sub:  # scatter onto that diagonal of a zero gradient
            full = zeros_with(tuple(op.shape), g)
            st = full.stride()
            full.as_strided(sizes, tuple(sum(st[k] for k, d in enumerate(sub) if d == c) for c in uniq)).copy_(g)
            g = full
        res.append(g)
    return res


def _trace_backward(grad, input_shape):
    g = zeros_with(input_shape, grad)
    n = min(input_shape)
    g.diagonal().copy_(grad.expand((n,)))
    return g


def _unique_backward(dim, name: str | None = None):
    """PyTorch records unique's nodes but implements no derivative: backward through one raises, naming its op."""
    not_implemented(name or ("_unique2" if dim is None else "unique_dim"))()


def _bincount_backward():
    """PyTorch records bincount of weights requiring grad as its `NotImplemented` node, which refuses."""
    raise RuntimeError("derivative for aten::bincount is not implemented")


ENTRIES = [
    d("sum(input, dims, keepdim=False, dtype=None)",
      input=lambda grad, input_shape, dims, keepdim: unreduce(grad, input_shape, dims, keepdim)),
    d("nansum(input, dims, keepdim=False, dtype=None)",
      input=lambda grad, input, dims, keepdim: where0(ew.logical_not(ew.isnan(input)),
                                                      unreduce(grad, tuple(input.shape), dims, keepdim))),
    d("mean(input, dims, keepdim=False, dtype=None)",
      input=lambda grad, input_shape, dims, keepdim: unreduce(grad, input_shape, dims, keepdim)
      / max(_count(input_shape, dims), 1)),
    d("nanmean(input, dims, keepdim=False, dtype=None)", name="DivBackward0",  # PyTorch's nansum / count
      input=lambda grad, input, dims, keepdim: where0(
          ew.logical_not(ew.isnan(input)), unreduce(grad, tuple(input.shape), dims, keepdim))
      / ew.logical_not(ew.isnan(input)).sum(dims, keepdim=True)),
    d("prod(input, dims, keepdim=False, dtype=None)", input=_prod_backward),
    d("amax(input, dims, keepdim=False)", input=_evenly),
    d("amin(input, dims, keepdim=False)", input=_evenly),
    d("max_dim(input, dim, keepdim=False)", name="MaxBackward0",
      input=lambda grad, result1, input_shape, dim, keepdim: _selected(grad, result1, input_shape, dim, keepdim)),
    d("min_dim(input, dim, keepdim=False)", name="MinBackward0",
      input=lambda grad, result1, input_shape, dim, keepdim: _selected(grad, result1, input_shape, dim, keepdim)),
    d("var(input, dims, correction=1, keepdim=False)",
      input=lambda grads, input, dims, correction, keepdim: _moment_grads(grads, input, dims, correction, keepdim,
                                                                          False, None)),
    d("std(input, dims, correction=1, keepdim=False)",
      input=lambda grads, input, dims, correction, keepdim, result: _moment_grads(
          grads, input, dims, correction, keepdim, True, result)),
    d("var_mean(input, dims, correction=1, keepdim=False)",
      input=lambda grads, input, dims, correction, keepdim: _moment_grads(grads, input, dims, correction, keepdim,
                                                                          False, None)),
    d("std_mean(input, dims, correction=1, keepdim=False)",
      input=lambda grads, input, dims, correction, keepdim, result0: _moment_grads(
          grads, input, dims, correction, keepdim, True, result0)),
    d("logsumexp(input, dims, keepdim=False)",
      input=lambda grad, input, dims, keepdim: unreduce(grad, tuple(input.shape), dims, keepdim)
      * _softmax_over(input, dims)),
    d("vector_norm(input, ord=2, dims=(), keepdim=False, dtype=None)", name="LinalgVectorNormBackward0",
      input=_norm_backward),
    d("cumsum(input, dim, dtype=None)", input=lambda grad, dim: grad.flip((dim,)).cumsum(dim).flip((dim,))),
    d("cumprod(input, dim, dtype=None)", input=_cumprod_backward),
    d("logcumsumexp(input, dim)", input=_logcumsumexp_backward),
    d("cummax(input, dim)", input=lambda grad, result1, input_shape, dim: scatter_into(grad, input_shape, dim,
                                                                                         result1)),
    d("cummin(input, dim)", input=lambda grad, result1, input_shape, dim: scatter_into(grad, input_shape, dim,
                                                                                         result1)),
    d("sort(input, dim=-1, descending=False, stable=False)",
      input=lambda grad, result1, input_shape, dim: put_into(grad, input_shape, dim, result1)),
    d("topk(input, k, dim=-1, largest=True, sorted=True)",
      input=lambda grad, result1, input_shape, dim: put_into(grad, input_shape, dim, result1)),
    d("kthvalue(input, k, dim=-1, keepdim=False)",
      input=lambda grad, result1, input_shape, dim, keepdim: _selected(grad, result1, input_shape, dim, keepdim)),
    d("median_dim(input, dim, keepdim=False)", name="MedianBackward1",
      input=lambda grad, result1, input_shape, dim, keepdim: _selected(grad, result1, input_shape, dim, keepdim)),
    d("unique(input, dim=None)", name="Unique2Backward0", input=lambda grad, dim: _unique_backward(dim)),
    d("unique_consecutive(input, dim=None)", input=lambda grad, dim: _unique_backward(dim, "unique_consecutive")),
    d("bincount(input, weights=None, minlength=0)", name="NotImplemented", weights=_bincount_backward),
    d("mode(input, dim=-1, keepdim=False)",
      input=lambda grad, result1, input_shape, dim, keepdim: _selected(grad, result1, input_shape, dim, keepdim)),
    d("median(input)", input=lambda grad, input, result: _evenly(grad, input, result, tuple(range(input.ndim)),
                                                                  False)),
    d("nanmedian(input)", input=lambda grad, input, result: _evenly(grad, input, result, tuple(range(input.ndim)),
                                                                     False)),
    d("nanmedian_dim(input, dim, keepdim=False)", name="NanmedianBackward1",
      input=lambda grad, result1, input_shape, dim, keepdim: _selected(grad, result1, input_shape, dim, keepdim)),

    d("mm(input, mat2)", input=lambda grad, mat2: _mm_input_backward(grad, mat2),
      mat2=lambda grad, input, mat2_geometry: _mm_mat2_backward(grad, input, mat2_geometry)),
    d("bmm(input, mat2)", input=lambda grad, mat2: grad.bmm(cj(mat2.transpose(1, 2))),
      mat2=lambda grad, input: cj(input.transpose(1, 2)).bmm(grad)),
    d("mv(input, vec)", input=lambda grad, vec: grad.unsqueeze(1).mm(cj(vec).unsqueeze(0)),  # PyTorch's ger
      vec=lambda grad, input: get_op("mv")(cj(input.t()), grad)),
    d("dot(input, other)", input=lambda grad, other: grad * cj(other), other=lambda grad, input: grad * cj(input)),
    d("einsum(equation, *operands)", operands=lambda grads, equation, operands: _einsum_backward(
        grads, equation, operands)),
    d("trace(input)", input=lambda grad, input_shape: _trace_backward(grad, input_shape)),
]


def _scaled(grad, factor):
    """PyTorch's `maybe_multiply`: `grad * conj(factor)`, or `grad` itself for a factor of 1."""
    return grad if factor == 1 else grad * (factor.conjugate() if isinstance(factor, complex) else factor)


# composites PyTorch records as one node, whose node `record.computed` makes where a composite computes the result
# outside dispatch (NOTE [ One node computed outside dispatch ]); not in TABLE, which holds the dispatched ops'
COMPOSITE_ENTRIES = [
    d("addmm(input, mat1, mat2, *, beta=1, alpha=1)", input=lambda grad, beta: _scaled(grad, beta),
      mat1=lambda grad, mat2, alpha: _scaled(_mm_input_backward(grad, mat2), alpha),
      mat2=lambda grad, mat1, mat2_geometry, alpha: _scaled(_mm_mat2_backward(grad, mat1, mat2_geometry), alpha)),
]
