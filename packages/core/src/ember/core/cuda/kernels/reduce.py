"""Reduction CUDA kernels: one block per output element, a block-level tree in shared memory.

Layout assumption of every template: the launcher has split the input's dims into kept dims
(`km` rows: kept shape, output strides, input strides) and reduced dims (`rm` rows: reduced
shape, input strides), i.e. the reduced dims are permuted last; block `o` (grid-stride over
outputs) folds the `r` reduced elements of output `o`, each thread a strided share, then the
block combines the per-thread partials in shared memory (`threads` must be a power of two and
equal to the block size). A warp-shuffle finish would pay on a GPU; the shared-memory tree is
kept because the simulator has no warp intrinsics.

Three templates: `fold` (one accumulator: sum, prod, max, all, norms, logsumexp), `argfold`
(value and index: max/min along a dim, argmax) and `welford` (count, mean, M2: var/std).
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda
from numba import types as nbt

__all__ = [
    "fold_function", "argfold_function", "welford_function", "PRE", "COMB", "POST", "BETTER", "fold", "argfold",
    "welford"
]


@cuda.jit(device=True)
def _offset(j, base, m, row):
    """The input offset of element `j` of the index space `m[0]`, with strides `m[row]`."""
    for d in range(m.shape[1] - 1, -1, -1):
        size = m[0, d]
        base += (j % size) * m[row, d]
        j //= size
    return base


def fold_function(pre, comb, post, acc_t, threads: int):
    """out[o] = post(comb-fold of pre(x[i], aux[o], p) over the reduced i, r, aux[o], p)."""

    def kernel(nout, r, km, rm, out, out_off, x, x_off, aux, p, init):
        part = cuda.shared.array(threads, acc_t)
        tid = cuda.threadIdx.x
        o = cuda.blockIdx.x
        while o < nout:
            po = _offset(o, out_off, km, 1)
            px = _offset(o, x_off, km, 2)
            a = aux[o] if o < aux.shape[0] else aux[0]
            acc = acc_t(init)
            j = tid
            while j < r:
                acc = comb(acc, pre(acc_t(x[_offset(j, px, rm, 1)]), a, p))
                j += threads
            part[tid] = acc
            cuda.syncthreads()
            s = threads // 2
            while s > 0:
                if tid < s:
                    part[tid] = comb(part[tid], part[tid + s])
                cuda.syncthreads()
                s //= 2
            if tid == 0:
                out[po] = post(part[0], r, a, p)
            cuda.syncthreads()
            o += cuda.gridDim.x

    return kernel


def argfold_function(better, acc_t, threads: int):
    """(values[o], indices[o]) of the element `better` than all others along the reduced index."""

    def kernel(nout, r, km, rm, vals, v_off, idx, i_off, x, x_off):
        pv = cuda.shared.array(threads, acc_t)
        pi = cuda.shared.array(threads, nbt.int64)
        tid = cuda.threadIdx.x
        o = cuda.blockIdx.x
        while o < nout:
            pov = _offset(o, v_off, km, 1)
            poi = _offset(o, i_off, km, 3)
            px = _offset(o, x_off, km, 2)
            best = acc_t(0)
            bi = -1
            j = tid
            while j < r:
                v = acc_t(x[_offset(j, px, rm, 1)])
                if bi < 0 or better(v, j, best, bi):
                    best = v
                    bi = j
                j += threads
            pv[tid] = best
            pi[tid] = bi
            cuda.syncthreads()
            s = threads // 2
            while s > 0:
                if tid < s:
                    oi = pi[tid + s]
                    if oi >= 0 and (pi[tid] < 0 or better(pv[tid + s], oi, pv[tid], pi[tid])):
                        pv[tid] = pv[tid + s]
                        pi[tid] = oi
                cuda.syncthreads()
                s //= 2
            if tid == 0:
                if vals.shape[0] > 0:
                    vals[pov] = pv[0]
                idx[poi] = pi[0]
            cuda.syncthreads()
            o += cuda.gridDim.x

    return kernel


def welford_function(threads: int, acc_t):
    """var (or std) and mean over the reduced elements: Welford per thread, Chan's merge in the tree."""

    def kernel(nout, r, km, rm, var, v_off, mean, m_off, x, x_off, correction, take_sqrt):
        pn = cuda.shared.array(threads, acc_t)
        pm = cuda.shared.array(threads, acc_t)
        p2 = cuda.shared.array(threads, acc_t)
        tid = cuda.threadIdx.x
        o = cuda.blockIdx.x
        while o < nout:
            pov = _offset(o, v_off, km, 1)
            pom = _offset(o, m_off, km, 3)
            px = _offset(o, x_off, km, 2)
            n = acc_t(0)
            m = acc_t(0)
            m2 = acc_t(0)
            j = tid
            while j < r:
                v = acc_t(x[_offset(j, px, rm, 1)])
                n += 1
                d = v - m
                m += d / n
                m2 += d * (v - m)
                j += threads
            pn[tid] = n
            pm[tid] = m
            p2[tid] = m2
            cuda.syncthreads()
            s = threads // 2
            while s > 0:
                if tid < s:
                    nb = pn[tid + s]
                    if nb > 0:
                        na = pn[tid]
                        nt = na + nb
                        d = pm[tid + s] - pm[tid]
                        pm[tid] = pm[tid] + d * nb / nt
                        p2[tid] = p2[tid] + p2[tid + s] + d * d * na * nb / nt
                        pn[tid] = nt
                cuda.syncthreads()
                s //= 2
            if tid == 0:
                dof = pn[0] - correction
                v = p2[0] / dof if dof > 0 else (math.nan if p2[0] != p2[0] or dof < 0 else
                                                 (math.inf if p2[0] > 0 else math.nan))
                var[pov] = math.sqrt(v) if take_sqrt else v
                if mean.shape[0] > 0:
                    mean[pom] = pm[0] if pn[0] > 0 else math.nan
            cuda.syncthreads()
            o += cuda.gridDim.x

    return kernel


# --- the scalar pieces of the fold ops --------------------------------------------------------
def _x(v, a, p):
    return v


def _abs_pow(v, a, p):
    return abs(v) ** p


def _abs(v, a, p):
    return abs(v)


def _sq(v, a, p):
    return v * v


def _nonzero(v, a, p):
    return 1 if v != 0 else 0


def _nan_to_zero(v, a, p):
    return 0 if v != v else v


def _not_nan(v, a, p):
    return 0 if v != v else 1


def _exp_shifted(v, a, p):
    # `a` is the max of the slice; an infinite or NaN max shifts by 0, as the CPU kernel
    return math.exp(v - (a if a - a == 0 else 0))


def _add(a, b):
    return a + b


def _mul(a, b):
    return a * b


def _max(a, b):
    return a if a > b or a != a else b


def _min(a, b):
    return a if a < b or a != a else b


def _and(a, b):
    return 1 if a != 0 and b != 0 else 0


def _or(a, b):
    return 1 if a != 0 or b != 0 else 0


def _keep(acc, n, a, p):
    return acc


def _div_n(acc, n, a, p):
    return acc / n if n > 0 else math.nan


def _root(acc, n, a, p):
    return acc ** (1.0 / p)


def _sqrt(acc, n, a, p):
    return math.sqrt(acc)


def _log_shifted(acc, n, a, p):
    # a NaN sum (a NaN in the slice) stays NaN, as on the CPU; an empty or all -inf one is -inf
    return (math.log(acc) if acc > 0 else (acc if acc != acc else -math.inf)) + (a if a - a == 0 else 0)


def _greater(v, i, b, bi):
    # NaN counts as the largest; ties keep the lower index
    if v != v:
        return b == b or i < bi
    return b == b and (v > b or (v == b and i < bi))


def _less(v, i, b, bi):
    if v != v:
        return b == b or i < bi
    return b == b and (v < b or (v == b and i < bi))


PRE = {"x": _x, "abs_pow": _abs_pow, "abs": _abs, "sq": _sq, "nonzero": _nonzero, "nan_to_zero": _nan_to_zero,
       "not_nan": _not_nan, "exp_shifted": _exp_shifted}
COMB = {"add": _add, "mul": _mul, "max": _max, "min": _min, "and": _and, "or": _or}
POST = {"keep": _keep, "div_n": _div_n, "root": _root, "sqrt": _sqrt, "log_shifted": _log_shifted}
BETTER = {"max": _greater, "min": _less}

@cache
def _dev(fn):
    return cuda.jit(device=True)(fn)


@cache
def fold(pre: str, comb: str, post: str, acc_t, threads: int):
    return cuda.jit(fold_function(_dev(PRE[pre]), _dev(COMB[comb]), _dev(POST[post]), acc_t, threads))


@cache
def argfold(better: str, acc_t, threads: int):
    return cuda.jit(argfold_function(_dev(BETTER[better]), acc_t, threads))


@cache
def welford(acc_t, threads: int):
    return cuda.jit(welford_function(threads, acc_t))
