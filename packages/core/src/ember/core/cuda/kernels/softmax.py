"""Row kernels: softmax/log_softmax and their backward ops, fused cross-entropy over class indices,
and nll_loss. One block per row (grid-stride over rows), threads over the row's `n` elements,
block-level tree reductions in shared memory.

Layout assumption: `km` rows are (row-index shape, output strides, input strides[, second
input strides]) over the dims other than the softmax/class dim; `rm` is the (1, k) array of
strides along that dim (input, output[, second input]). `threads` is a power of two equal to
the block size.
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda

from ember.core.cuda.kernels.reduce import _offset

__all__ = [
    "softmax_function", "softmax_backward_function", "cross_entropy_function", "cross_entropy_backward_function",
    "nll_function", "nll_backward_function", "softmax", "softmax_backward", "cross_entropy", "cross_entropy_backward",
    "nll", "nll_backward"
]


@cuda.jit(device=True)
def _row_shift(m):
    """The row's shift: its max, or 0 for a row all -inf (NaN, as PyTorch); a +inf or NaN max stays and
    makes the row NaN (inf - inf), as PyTorch's."""
    return 0.0 if m == -math.inf else m


def _tree_functions(threads: int):
    @cuda.jit(device=True)
    def tree_max(part, tid, v):
        part[tid] = v
        cuda.syncthreads()
        s = threads // 2
        while s > 0:
            if tid < s and (part[tid + s] > part[tid] or part[tid + s] != part[tid + s]):
                part[tid] = part[tid + s]
            cuda.syncthreads()
            s //= 2
        r = part[0]
        cuda.syncthreads()
        return r

    @cuda.jit(device=True)
    def tree_sum(part, tid, v):
        part[tid] = v
        cuda.syncthreads()
        s = threads // 2
        while s > 0:
            if tid < s:
                part[tid] += part[tid + s]
            cuda.syncthreads()
            s //= 2
        r = part[0]
        cuda.syncthreads()
        return r

    return tree_max, tree_sum


def softmax_function(threads: int, acc_t):
    """out = softmax(x) (log_ == False) or log_softmax(x) along the row dim."""
    tree_max, tree_sum = _tree_functions(threads)

    def kernel(nrows, n, km, rm, out, out_off, x, x_off, log_):
        part = cuda.shared.array(threads, acc_t)
        tid = cuda.threadIdx.x
        o = cuda.blockIdx.x
        sx = rm[0, 0]
        so = rm[0, 1]
        while o < nrows:
            po = _offset(o, out_off, km, 1)
            px = _offset(o, x_off, km, 2)
            m = -math.inf
            j = tid
            while j < n:
                v = acc_t(x[px + j * sx])
                if v > m or v != v:
                    m = v
                j += threads
            m = _row_shift(tree_max(part, tid, acc_t(m)))
            s = acc_t(0)
            j = tid
            while j < n:
                s += math.exp(acc_t(x[px + j * sx]) - m)
                j += threads
            s = tree_sum(part, tid, s)
            ls = math.log(s) if s > 0 else -math.inf
            j = tid
            while j < n:
                z = acc_t(x[px + j * sx]) - m
                out[po + j * so] = z - ls if log_ else math.exp(z) / s
                j += threads
            o += cuda.gridDim.x

    return kernel


def softmax_backward_function(threads: int, acc_t):
    """grad_input from grad `g` and the forward's result `y` along the row dim."""
    _, tree_sum = _tree_functions(threads)

    def kernel(nrows, n, km, rm, out, out_off, g, g_off, y, y_off, log_):
        part = cuda.shared.array(threads, acc_t)
        tid = cuda.threadIdx.x
        o = cuda.blockIdx.x
        sg = rm[0, 0]
        so = rm[0, 1]
        sy = rm[0, 2]
        while o < nrows:
            po = _offset(o, out_off, km, 1)
            pg = _offset(o, g_off, km, 2)
            py = _offset(o, y_off, km, 3)
            s = acc_t(0)
            j = tid
            while j < n:
                gv = acc_t(g[pg + j * sg])
                s += gv if log_ else gv * acc_t(y[py + j * sy])
                j += threads
            s = tree_sum(part, tid, s)
            j = tid
            while j < n:
                gv = acc_t(g[pg + j * sg])
                yv = acc_t(y[py + j * sy])
                out[po + j * so] = gv - math.exp(yv) * s if log_ else yv * (gv - s)
                j += threads
            o += cuda.gridDim.x

    return kernel


def cross_entropy_function(threads: int, acc_t):
    """Per row: loss[r] = the (weighted, label-smoothed) cross entropy at class target[r], and
    its weight wt[r] (0 where target == ignore_index). The op's meta step has checked every
    target; one out of range would still only give NaN, read from nowhere."""
    tree_max, tree_sum = _tree_functions(threads)

    def kernel(nrows, c, km, rm, x, x_off, target, weight, has_w, ignore, smoothing, loss, wt):
        part = cuda.shared.array(threads, acc_t)
        tid = cuda.threadIdx.x
        o = cuda.blockIdx.x
        sx = rm[0, 0]
        while o < nrows:
            px = _offset(o, x_off, km, 2)
            m = -math.inf
            j = tid
            while j < c:
                v = acc_t(x[px + j * sx])
                if v > m or v != v:
                    m = v
                j += threads
            m = _row_shift(tree_max(part, tid, acc_t(m)))
            s = acc_t(0)
            sw = acc_t(0)
            swx = acc_t(0)
            j = tid
            while j < c:
                v = acc_t(x[px + j * sx])
                s += math.exp(v - m)
                w = acc_t(weight[j]) if has_w else acc_t(1)
                sw += w
                swx += w * v
                j += threads
            s = tree_sum(part, tid, s)
            if smoothing > 0:
                sw = tree_sum(part, tid, sw)
                swx = tree_sum(part, tid, swx)
            if tid == 0:
                lse = m + (math.log(s) if s > 0 else -math.inf)
                t = target[o]
                if t == ignore:
                    loss[o] = 0
                    wt[o] = 0
                elif t < 0 or t >= c:
                    loss[o] = math.nan
                    wt[o] = math.nan
                else:
                    w = acc_t(weight[t]) if has_w else acc_t(1)
                    r = -(acc_t(x[px + t * sx]) - lse) * w
                    if smoothing > 0:
                        r = (1 - smoothing) * r + smoothing / c * -(swx - lse * sw)
                    loss[o] = r
                    wt[o] = w
            cuda.syncthreads()
            o += cuda.gridDim.x

    return kernel


def cross_entropy_backward_function(threads: int, acc_t):
    """grad_input[r, :] = A - softmax(x[r]) * sum(A), A = dloss/dlog_softmax scaled by the row's grad."""
    tree_max, tree_sum = _tree_functions(threads)

    def kernel(nrows, c, km, rm, out, out_off, x, x_off, target, weight, has_w, ignore, smoothing, g, g_rows,
               denom):
        part = cuda.shared.array(threads, acc_t)
        tid = cuda.threadIdx.x
        o = cuda.blockIdx.x
        sx = rm[0, 0]
        so = rm[0, 1]
        while o < nrows:
            po = _offset(o, out_off, km, 1)
            px = _offset(o, x_off, km, 2)
            t = target[o]
            valid = t != ignore and 0 <= t < c
            scale = acc_t(g[o]) if g_rows else acc_t(g[0]) / acc_t(denom[0])
            m = -math.inf
            j = tid
            while j < c:
                v = acc_t(x[px + j * sx])
                if v > m or v != v:
                    m = v
                j += threads
            m = _row_shift(tree_max(part, tid, acc_t(m)))
            s = acc_t(0)
            sa = acc_t(0)
            j = tid
            while j < c:
                s += math.exp(acc_t(x[px + j * sx]) - m)
                if valid:
                    w = acc_t(weight[j]) if has_w else acc_t(1)
                    a = -(smoothing / c) * w
                    if j == t:
                        a -= (1 - smoothing) * w
                    sa += a
                j += threads
            s = tree_sum(part, tid, s)
            sa = tree_sum(part, tid, sa)
            j = tid
            while j < c:
                a = acc_t(0)
                if valid:
                    w = acc_t(weight[j]) if has_w else acc_t(1)
                    a = -(smoothing / c) * w
                    if j == t:
                        a -= (1 - smoothing) * w
                p = math.exp(acc_t(x[px + j * sx]) - m) / s
                # an ignored row's gradient is 0, also when 'mean' divides by a total weight of 0
                out[po + j * so] = (a - p * sa) * scale if valid else acc_t(0)
                j += threads
            o += cuda.gridDim.x

    return kernel


def nll_function(acc_t):
    """One thread per row: loss[r] = -x[r, target[r]] * w, wt[r] = w (0 where ignored, NaN out of range)."""

    def kernel(nrows, c, km, rm, x, x_off, target, weight, has_w, ignore, loss, wt):
        o = cuda.grid(1)
        while o < nrows:
            t = target[o]
            if t == ignore:
                loss[o] = 0
                wt[o] = 0
            elif t < 0 or t >= c:
                loss[o] = math.nan
                wt[o] = math.nan
            else:
                w = acc_t(weight[t]) if has_w else acc_t(1)
                loss[o] = -acc_t(x[_offset(o, x_off, km, 2) + t * rm[0, 0]]) * w
                wt[o] = w
            o += cuda.gridsize(1)

    return kernel


def nll_backward_function(acc_t):
    """One thread per row: grad_input[r, target[r]] = -w * scale (grad_input zeroed before)."""

    def kernel(nrows, c, km, rm, out, out_off, target, weight, has_w, ignore, g, g_rows, denom):
        o = cuda.grid(1)
        while o < nrows:
            t = target[o]
            if t != ignore and 0 <= t < c:
                w = acc_t(weight[t]) if has_w else acc_t(1)
                scale = acc_t(g[o]) if g_rows else acc_t(g[0]) / acc_t(denom[0])
                out[_offset(o, out_off, km, 1) + t * rm[0, 1]] = -w * scale
            o += cuda.gridsize(1)

    return kernel


@cache
def softmax(threads: int, acc_t):
    return cuda.jit(softmax_function(threads, acc_t))


@cache
def softmax_backward(threads: int, acc_t):
    return cuda.jit(softmax_backward_function(threads, acc_t))


@cache
def cross_entropy(threads: int, acc_t):
    return cuda.jit(cross_entropy_function(threads, acc_t))


@cache
def cross_entropy_backward(threads: int, acc_t):
    return cuda.jit(cross_entropy_backward_function(threads, acc_t))


@cache
def nll(acc_t):
    return cuda.jit(nll_function(acc_t))


@cache
def nll_backward(acc_t):
    return cuda.jit(nll_backward_function(acc_t))
