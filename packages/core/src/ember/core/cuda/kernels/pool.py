"""2-D pooling kernels over contiguous `(planes, H, W)` buffers, one thread per output element
(grid-stride). Max pooling records the flat `h * W + w` index of each maximum (NaN wins);
its backward adds each gradient at its index with atomics (windows may overlap). The average
pooling backward ops gather: every input element sums the windows that cover it.

`geom` packs (H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw, count_include_pad, divisor).
"""

from __future__ import annotations

from functools import cache

from numba import cuda

__all__ = [
    "max_pool_function", "max_pool_backward_function", "avg_pool_function", "avg_pool_backward_function",
    "adaptive_pool_function", "adaptive_avg_backward_function", "max_pool", "max_pool_backward", "avg_pool",
    "avg_pool_backward", "adaptive_pool", "adaptive_avg_backward"
]


def max_pool_function(acc_t):
    def kernel(total, geom, x, out, idx, low):
        h, w, ho, wo, kh, kw = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5]
        sh, sw, ph, pw, dh, dw = geom[6], geom[7], geom[8], geom[9], geom[10], geom[11]
        i = cuda.grid(1)
        while i < total:
            ow = i % wo
            oh = (i // wo) % ho
            p = i // (wo * ho)
            best = acc_t(0)  # replaced by the first valid tap (arg < 0): no -inf, which integers lack
            arg = -1
            for a in range(kh):
                r = oh * sh - ph + a * dh
                if 0 <= r < h:
                    for b in range(kw):
                        s = ow * sw - pw + b * dw
                        if 0 <= s < w:
                            v = acc_t(x[(p * h + r) * w + s])
                            if arg < 0 or v > best or v != v:  # PyTorch's: the last NaN wins
                                best = v
                                arg = r * w + s
            if arg < 0:  # no tap inside the input: PyTorch's `low` and its first tap past the left padding
                best = low
                r = oh * sh - ph
                while r < 0:
                    r += dh
                s = ow * sw - pw
                while s < 0:
                    s += dw
                arg = r * w + s
            out[i] = best
            idx[i] = arg
            i += cuda.gridsize(1)

    return kernel


def max_pool_backward_function():
    def kernel(total, plane_out, plane_in, grad, idx, out):
        i = cuda.grid(1)
        while i < total:
            k = idx[i]
            if 0 <= k < plane_in:
                cuda.atomic.add(out, (i // plane_out) * plane_in + k, grad[i])
            i += cuda.gridsize(1)

    return kernel


@cuda.jit(device=True)
def _window_divisor(oh, ow, geom):
    h, w, kh, kw = geom[0], geom[1], geom[4], geom[5]
    sh, sw, ph, pw = geom[6], geom[7], geom[8], geom[9]
    h0 = oh * sh - ph
    h1 = min(h0 + kh, h + ph)
    w0 = ow * sw - pw
    w1 = min(w0 + kw, w + pw)
    if geom[13] != 0:  # an override (0 means none; the meta step refuses a zero override)
        return geom[13]
    if geom[12]:
        return (h1 - h0) * (w1 - w0)
    return (min(h1, h) - max(h0, 0)) * (min(w1, w) - max(w0, 0))


def avg_pool_function(acc_t):
    def kernel(total, geom, x, out):
        h, w, ho, wo, kh, kw = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5]
        sh, sw, ph, pw = geom[6], geom[7], geom[8], geom[9]
        i = cuda.grid(1)
        while i < total:
            ow = i % wo
            oh = (i // wo) % ho
            p = i // (wo * ho)
            h0 = oh * sh - ph
            w0 = ow * sw - pw
            acc = acc_t(0)
            for r in range(max(h0, 0), min(h0 + kh, h)):
                for s in range(max(w0, 0), min(w0 + kw, w)):
                    acc += acc_t(x[(p * h + r) * w + s])
            d = _window_divisor(oh, ow, geom)
            out[i] = acc / d if d != 0 else acc_t(0)
            i += cuda.gridsize(1)

    return kernel


def avg_pool_backward_function(acc_t):
    def kernel(total, geom, grad, out):
        h, w, ho, wo, kh, kw = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5]
        sh, sw, ph, pw = geom[6], geom[7], geom[8], geom[9]
        i = cuda.grid(1)
        while i < total:
            s = i % w
            r = (i // w) % h
            p = i // (w * h)
            acc = acc_t(0)
            for oh in range(max(0, (r + ph - kh) // sh), min(ho, (r + ph) // sh + 1)):
                h0 = oh * sh - ph
                if h0 <= r < h0 + kh:
                    for ow in range(max(0, (s + pw - kw) // sw), min(wo, (s + pw) // sw + 1)):
                        w0 = ow * sw - pw
                        if w0 <= s < w0 + kw:
                            d = _window_divisor(oh, ow, geom)
                            if d != 0:
                                acc += acc_t(grad[(p * ho + oh) * wo + ow]) / d
            out[i] = acc
            i += cuda.gridsize(1)

    return kernel


def adaptive_pool_function(acc_t, is_max: bool):
    def kernel(total, h, w, ho, wo, x, out, idx):
        i = cuda.grid(1)
        while i < total:
            ow = i % wo
            oh = (i // wo) % ho
            p = i // (wo * ho)
            h0 = (oh * h) // ho
            h1 = -((-(oh + 1) * h) // ho)
            w0 = (ow * w) // wo
            w1 = -((-(ow + 1) * w) // wo)
            acc = acc_t(0)
            best = acc_t(x[(p * h + h0) * w + w0])
            arg = h0 * w + w0
            for r in range(h0, h1):
                for s in range(w0, w1):
                    v = acc_t(x[(p * h + r) * w + s])
                    acc += v
                    if v > best or v != v:
                        best = v
                        arg = r * w + s
            if is_max:
                out[i] = best
                idx[i] = arg
            else:
                out[i] = acc / ((h1 - h0) * (w1 - w0))
            i += cuda.gridsize(1)

    return kernel


def adaptive_avg_backward_function(acc_t):
    def kernel(total, h, w, ho, wo, grad, out):
        i = cuda.grid(1)
        while i < total:
            s = i % w
            r = (i // w) % h
            p = i // (w * h)
            acc = acc_t(0)
            for oh in range((r * ho) // h, min(ho, ((r + 1) * ho + h - 1) // h)):
                h0 = (oh * h) // ho
                h1 = -((-(oh + 1) * h) // ho)
                if h0 <= r < h1:
                    for ow in range((s * wo) // w, min(wo, ((s + 1) * wo + w - 1) // w)):
                        w0 = (ow * w) // wo
                        w1 = -((-(ow + 1) * w) // wo)
                        if w0 <= s < w1:
                            acc += acc_t(grad[(p * ho + oh) * wo + ow]) / ((h1 - h0) * (w1 - w0))
            out[i] = acc
            i += cuda.gridsize(1)

    return kernel


@cache
def max_pool(acc_t):
    return cuda.jit(max_pool_function(acc_t))


@cache
def max_pool_backward():
    return cuda.jit(max_pool_backward_function())


@cache
def avg_pool(acc_t):
    return cuda.jit(avg_pool_function(acc_t))


@cache
def avg_pool_backward(acc_t):
    return cuda.jit(avg_pool_backward_function(acc_t))


@cache
def adaptive_pool(acc_t, is_max: bool):
    return cuda.jit(adaptive_pool_function(acc_t, is_max))


@cache
def adaptive_avg_backward(acc_t):
    return cuda.jit(adaptive_avg_backward_function(acc_t))
