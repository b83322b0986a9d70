"""embedding_bag: one thread per (bag, column) folds the bag's rows (sum, mean or max); the
backward adds each bag's gradient into the rows it read, with atomics (bags share rows).

Layout assumption: weight (V, D), grad and out (B, D) and argmax (B, D) are contiguous; bag `b`
covers positions [offsets[b], offsets[b + 1]) of the 1-D indices (a bag without a next offset
ends at M), clamped to [0, M] so a bad offset never reads outside; an index equal
to `skip` (padding_idx or -1) is left out; out-of-range indices are skipped.
"""

from __future__ import annotations

from functools import cache

from numba import cuda

__all__ = ["SUM", "MEAN", "MAX", "bag_function", "bag_backward_function", "bag", "bag_backward"]

SUM, MEAN, MAX = 0, 1, 2


@cuda.jit(device=True)
def _bag_range(b, offsets, nb_off, m):
    start = offsets[b]
    end = offsets[b + 1] if b + 1 < nb_off else m
    start = min(max(start, 0), m)
    end = min(max(end, start), m)
    return start, end


def bag_function(acc_t):
    def kernel(nbags, d, nb_off, m, v, weight, indices, offsets, psw, has_psw, out, argmax, count, mode, skip):
        i = cuda.grid(1)
        while i < nbags * d:
            b = i // d
            j = i % d
            start, end = _bag_range(b, offsets, nb_off, m)
            acc = acc_t(0)
            best = -1
            n = 0
            for k in range(start, end):
                r = indices[k]
                if r == skip or r < 0 or r >= v:
                    continue
                n += 1
                val = acc_t(weight[r * d + j]) * (acc_t(psw[k]) if has_psw else acc_t(1))
                if mode == MAX:
                    if n == 1 or val > acc:
                        acc = val
                        best = r
                else:
                    acc += val
            out[i] = acc / n if (mode == MEAN and n > 0) else acc
            argmax[i] = best
            if j == 0:
                count[b] = n
            i += cuda.gridsize(1)

    return kernel


def bag_backward_function(acc_t):
    def kernel(nbags, d, nb_off, m, v, grad, indices, offsets, psw, has_psw, argmax, count, out, mode, skip):
        i = cuda.grid(1)
        while i < nbags * d:
            b = i // d
            j = i % d
            g = acc_t(grad[i])
            if mode == MAX:
                r = argmax[i]
                if count[b] > 0 and 0 <= r < v:
                    cuda.atomic.add(out, r * d + j, g)
            else:
                scale = acc_t(1) / count[b] if (mode == MEAN and count[b] > 0) else acc_t(1)
                start, end = _bag_range(b, offsets, nb_off, m)
                for k in range(start, end):
                    r = indices[k]
                    if r == skip or r < 0 or r >= v:
                        continue
                    s = scale * (acc_t(psw[k]) if has_psw else acc_t(1))
                    cuda.atomic.add(out, r * d + j, s * g)
            i += cuda.gridsize(1)

    return kernel


@cache
def bag(acc_t):
    return cuda.jit(bag_function(acc_t))


@cache
def bag_backward(acc_t):
    return cuda.jit(bag_backward_function(acc_t))
