"""Private Numba CPU kernels of the nn ops: im2col/col2im, depthwise convolution, pooling,
batch-norm channel passes, scatter-adds.

Each kernel is built on first use by its `@cache`d getter (so `import ember.core` compiles
nothing), cached on disk, and releases the GIL. Launchers in `conv.py`, `pool.py`,
`normalization.py`, `embedding.py` validate shapes and indices first: no kernel here checks a
bound. Most kernels are serial: they are memory-bound, and on two cores an OpenMP parallel loop
measured no faster when idle and up to 10x slower when the cores are shared; only the
compute-bound depthwise convolution kernels run in parallel, and only on large layers (conv.py's
`_depthwise_run`). A kernel never calls another jitted function through a closure: Numba keys
its disk cache on the closure's contents, which for a dispatcher differ in every process, so such
a kernel would recompile at every start.
Kernels are only called from Python, so they compile without the C-callable wrapper Numba adds
for first-class function use (`no_cfunc_wrapper`): ~0.02 s less per kernel at a cold start.

The im2col/col2im kernels gather from (scatter into) a zero-padded, channels-first copy of the
input through a table of window offsets. In every convolution kernel a shifted index known to
be in bounds is cast to `np.uint64`, so Numba emits no negative-index wraparound for it: the
wraparound kept LLVM from vectorizing those row loops (5x slower for the depthwise forward).
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = [
    "kernel_array", "threshold_backward", "log_sigmoid", "log_sigmoid_backward", "hardtanh_backward",
    "rows_gather_product", "rows_scatter_product_into", "im2col", "col2im", "image_columns", "depthwise_conv",
    "depthwise_conv_backward_input", "depthwise_conv_backward_weight", "channel_stats", "channel_affine",
    "batch_norm_backward", "max_pool2d", "max_pool2d_2x2", "index_scatter_add", "avg_pool2d", "avg_pool2d_backward",
    "avg_pool3d_int", "adaptive_pool2d", "adaptive_avg_pool2d_backward", "rows_scatter_add", "embedding_bag",
    "embedding_bag_backward"
]


def kernel_array(a: np.ndarray) -> np.ndarray:
    """`a` in a dtype the kernels compile for: Numba has no float16 or bfloat16 arithmetic on the CPU.
    (The size is tested first: NumPy computes `dtype.name` in Python, 5 us a call on every conv and norm.)"""
    dt = a.dtype
    return a.astype(np.float32) if dt.itemsize == 2 and (dt.kind == "f" or dt.name == "bfloat16") else a


def _njit(parallel: bool = False):
    import numba

    return numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, parallel=parallel, fastmath=False)


@cache
def threshold_backward():
    # g, x, out: 1-D contiguous, one dtype; out = 0 where x <= th, else g (NaN x passes, as PyTorch's).
    @_njit()
    def kernel(g, x, th, out):
        for i in range(x.shape[0]):
            out[i] = 0.0 if x[i] <= th else g[i]

    return kernel


@cache
def log_sigmoid():
    # x, out: 1-D contiguous, one float dtype; vector_math's log_sigmoid32/64, the function fused kernels inline.
    import numba

    from ember.core.ops.vector_math import LOG_SIGMOID as f  # a plain module global: a stable cache key

    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, error_model="numpy")
    def kernel(x, out):
        for i in range(x.shape[0]):
            out[i] = f(x[i])

    return kernel


@cache
def log_sigmoid_backward():
    # g, x, out: 1-D contiguous, one float dtype; out = g * sigmoid(-x) through vector_math's sigmoid32/64.
    import numba

    from ember.core.ops.vector_math import LOG_SIGMOID_BACKWARD as f  # a plain module global: a stable cache key

    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, error_model="numpy")
    def kernel(g, x, out):
        for i in range(x.shape[0]):
            out[i] = f(g[i], x[i])

    return kernel


@cache
def hardtanh_backward():
    # g, x, out: 1-D contiguous, one dtype; out = 0 where x <= lo or x >= hi, else g (NaN x passes, as PyTorch's).
    @_njit()
    def kernel(g, x, lo, hi, out):
        for i in range(x.shape[0]):
            v = x[i]
            out[i] = 0.0 if v <= lo or v >= hi else g[i]

    return kernel


@cache
def _gather_scatter():
    # xf: (C, N*Hp*Wp) the zero-padded input, channels first, flat; idx: (L,) int64, the flat offset of each
    # output position's window corner (b*Hp*Wp + oh*sh*Wp + ow*sw); cols: (C, kh, kw, L), dense (one GEMM
    # operand). im2col (scatter False) gathers cols from xf, one gather per tap through the offset table: no
    # bounds tests and no per-row loops, so 4- and 8-wide output rows cost no more per element than long
    # ones. col2im (scatter True) is its adjoint: cols added into xf (zeroed) at the same offsets (within one
    # tap the offsets are distinct, so the scatter never collides with itself). One kernel for both: each
    # kernel costs ~0.1 s of fixed compile time at a cold start, whatever its size.
    @_njit()
    def kernel(xf, idx, cols, wp, dh, dw, scatter):
        c, kh, kw, m = cols.shape
        for ch in range(c):
            for i in range(kh):
                for j in range(kw):
                    off = i * dh * wp + j * dw
                    if scatter:
                        for q in range(m):
                            xf[ch, np.uint64(idx[q] + off)] += cols[ch, i, j, q]
                    else:
                        for q in range(m):
                            cols[ch, i, j, q] = xf[ch, np.uint64(idx[q] + off)]

    return kernel


@cache
def im2col():
    """`kernel(xf, idx, cols, wp, dh, dw)`: cols gathered from xf (see `_gather_scatter`)."""
    k = _gather_scatter()
    return lambda xf, idx, cols, wp, dh, dw: k(xf, idx, cols, wp, dh, dw, False)


@cache
def col2im():
    """`kernel(cols, idx, xf, wp, dh, dw)`: cols added into xf (see `_gather_scatter`)."""
    k = _gather_scatter()
    return lambda cols, idx, xf, wp, dh, dw: k(xf, idx, cols, wp, dh, dw, True)


@cache
def image_columns():
    # The im2col of conv.py's NOTE [ Convolution as one GEMM per image ]: x (n*C*H*W,) the images,
    # contiguous; cols (n*C*kh*kw*Ho*Wo,), each image's columns one dense (C*kh*kw, Ho*Wo) GEMM operand.
    # fold False writes cols from x (zeros where a tap reads the padding); fold True is the adjoint, x
    # overwritten by the sum of the columns at their taps (col2im), each pixel's taps added in (i, j)
    # order. Every output row is one contiguous run between its padded ends, and the flat indices are cast
    # to np.uint64 so LLVM vectorizes those runs (3x faster than 6-D indexing with wraparound).
    @_njit()
    def kernel(x, cols, n, c, h, w, kh, kw, ho, wo, sh, sw, ph, pw, dh, dw, fold):
        if fold:
            for q in range(x.shape[0]):
                x[q] = 0.0
        for b in range(n):
            for ch in range(c):
                base = (b * c + ch) * h * w
                for i in range(kh):
                    for j in range(kw):
                        off = j * dw - pw
                        ow0 = 0
                        while ow0 < wo and ow0 * sw + off < 0:
                            ow0 += 1
                        ow1 = wo
                        while ow1 > ow0 and (ow1 - 1) * sw + off >= w:
                            ow1 -= 1
                        d = (((b * c + ch) * kh + i) * kw + j) * ho * wo
                        for oh in range(ho):
                            ih = oh * sh - ph + i * dh
                            if ih < 0 or ih >= h:
                                if not fold:
                                    for ow in range(wo):
                                        cols[np.uint64(d + ow)] = 0.0
                            elif fold:
                                s = base + ih * w + off
                                for ow in range(ow0, ow1):
                                    x[np.uint64(s + ow * sw)] += cols[np.uint64(d + ow)]
                            else:
                                for ow in range(ow0):
                                    cols[np.uint64(d + ow)] = 0.0
                                s = base + ih * w + off
                                if sw == 1:
                                    for ow in range(ow0, ow1):
                                        cols[np.uint64(d + ow)] = x[np.uint64(s + ow)]
                                else:
                                    for ow in range(ow0, ow1):
                                        cols[np.uint64(d + ow)] = x[np.uint64(s + ow * sw)]
                                for ow in range(ow1, wo):
                                    cols[np.uint64(d + ow)] = 0.0
                            d += wo

    return kernel


@cache
def conv_rows():
    import numba

    # Direct stride-1 convolution over flattened padded rows (see conv.py's NOTE [ Direct convolution over
    # flat rows ]): xp (N, C, Hp*Wp) padded input, C % 4 == 0; w (O, C, kh, kw), O % 2 == 0; out (N, O, L),
    # L >= m, overwritten on [0, m). Output q reads xp[..., q + i*dh*Wp + j*dw]: one long contiguous row
    # per tap that LLVM vectorizes; 2 output x 4 input channels per pass keep 8 multiply-adds per store, each sum
    # a chain of 4 fused multiply-adds from the stored partial sum (a product first, added last, was 5 ops).
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, fastmath={"contract"})
    def kernel(xp, w, out, wp, dh, dw, m):
        n, c, _ = xp.shape
        o, _, kh, kw = w.shape
        for b in range(n):
            for oc in range(0, o, 2):
                for q in range(m):
                    out[b, oc, q] = 0.0
                    out[b, oc + 1, q] = 0.0
                for ch in range(0, c, 4):
                    for i in range(kh):
                        for j in range(kw):
                            off = i * dh * wp + j * dw
                            a0, a1, a2, a3 = w[oc, ch, i, j], w[oc, ch + 1, i, j], w[oc, ch + 2, i, j], \
                                w[oc, ch + 3, i, j]
                            b0, b1, b2, b3 = w[oc + 1, ch, i, j], w[oc + 1, ch + 1, i, j], w[oc + 1, ch + 2, i, j], \
                                w[oc + 1, ch + 3, i, j]
                            for q in range(m):
                                p = np.uint64(q + off)
                                x0, x1, x2, x3 = xp[b, ch, p], xp[b, ch + 1, p], xp[b, ch + 2, p], xp[b, ch + 3, p]
                                out[b, oc, q] = out[b, oc, q] + a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3
                                out[b, oc + 1, q] = out[b, oc + 1, q] + b0 * x0 + b1 * x1 + b2 * x2 + b3 * x3

    return kernel


@cache
def conv_rows_weight():
    import numba

    # The weight gradient of `conv_rows`: xp (N, C, Hp*Wp) padded input, C % 4 == 0; gq (N, O, >= m) the
    # output gradient on the same flat rows (zeros in the dropped columns), O % 2 == 0; gw (O, C, kh, kw)
    # zeroed, accumulated into image by image. Each tap is 8 dot products over one contiguous row;
    # `reassoc` lets LLVM split them into vector lanes (the sum's order is still fixed by the code).
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, fastmath={"contract", "reassoc"})
    def kernel(xp, gq, gw, wp, dh, dw, m):
        n, c, _ = xp.shape
        o = gq.shape[1]
        kh, kw = gw.shape[2], gw.shape[3]
        z = np.zeros(1, dtype=xp.dtype)[0]  # accumulators in the input's dtype
        for b in range(n):
            for ch in range(0, c, 4):
                for oc in range(0, o, 2):
                    for i in range(kh):
                        for j in range(kw):
                            off = i * dh * wp + j * dw
                            s0 = s1 = s2 = s3 = t0 = t1 = t2 = t3 = z
                            for q in range(m):
                                p = np.uint64(q + off)
                                x0, x1, x2, x3 = xp[b, ch, p], xp[b, ch + 1, p], xp[b, ch + 2, p], xp[b, ch + 3, p]
                                g0, g1 = gq[b, oc, q], gq[b, oc + 1, q]
                                s0 += g0 * x0
                                s1 += g0 * x1
                                s2 += g0 * x2
                                s3 += g0 * x3
                                t0 += g1 * x0
                                t1 += g1 * x1
                                t2 += g1 * x2
                                t3 += g1 * x3
                            gw[oc, ch, i, j] += s0
                            gw[oc, ch + 1, i, j] += s1
                            gw[oc, ch + 2, i, j] += s2
                            gw[oc, ch + 3, i, j] += s3
                            gw[oc + 1, ch, i, j] += t0
                            gw[oc + 1, ch + 1, i, j] += t1
                            gw[oc + 1, ch + 2, i, j] += t2
                            gw[oc + 1, ch + 3, i, j] += t3

    return kernel


@cache
def depthwise_conv():
    import numba

    # One input channel per group (see conv.py's NOTE [ Depthwise convolution over phase planes ]): x (N, G, H, W);
    # w (O, T) the taps, flat; out (N, O, Ho, Wo), output channel o reads input channel o // (O / G). The scratch
    # (`size`) holds the sh*sw phase planes of rows wq wide: tb (T,) each tap's start in it, rows (H,) where input
    # row r starts, cph (sw, 3) each column phase's first column, its offset and its count (no division in
    # here). Per plane: the phases are filled, each tap is one long vector loop over the flat output
    # q = oh*wq + ow, three taps a pass, and the rows are copied out.
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, parallel=True, fastmath={"contract"})
    def kernel(x, w, out, tb, rows, cph, wq, size):
        n, groups, h, wd = x.shape
        o, ho, wo = out.shape[1], out.shape[2], out.shape[3]
        og = o // groups
        sw = cph.shape[0]
        m = (ho - 1) * wq + wo
        nt = tb.shape[0]
        for g in numba.prange(groups):
            s = np.empty(size, dtype=x.dtype)
            acc = np.empty(m, dtype=x.dtype)
            for b in range(n):
                for k in range(size):
                    s[k] = 0.0
                for r in range(h):
                    if sw == 1:  # unit stride: a loop LLVM vectorizes
                        rb = rows[r] + cph[0, 1]
                        for t in range(wd):
                            s[np.uint64(rb + t)] = x[b, g, r, t]
                    else:
                        for rj in range(sw):  # the row's columns of each column phase: a contiguous run
                            c0, rb = cph[rj, 0], rows[r] + cph[rj, 1]
                            for t in range(cph[rj, 2]):
                                s[np.uint64(rb + t)] = x[b, g, r, c0 + t * sw]
                for oc in range(g * og, (g + 1) * og):
                    for q in range(m):
                        acc[q] = 0.0
                    for t in range(0, nt - 2, 3):  # three taps a pass: a third of the stores
                        b0, b1, b2 = tb[t], tb[t + 1], tb[t + 2]
                        w0, w1, w2 = w[oc, t], w[oc, t + 1], w[oc, t + 2]
                        for q in range(m):
                            acc[q] += w0 * s[np.uint64(b0 + q)] + w1 * s[np.uint64(b1 + q)] + w2 * s[np.uint64(b2 + q)]
                    for t in range(nt - nt % 3, nt):
                        b0, w0 = tb[t], w[oc, t]
                        for q in range(m):
                            acc[q] += w0 * s[np.uint64(b0 + q)]
                    for oh in range(ho):
                        for ow in range(wo):
                            out[b, oc, oh, ow] = acc[np.uint64(oh * wq + ow)]

    return kernel


@cache
def depthwise_conv_backward_input():
    import numba

    # The adjoint of `depthwise_conv`: g (N, O, Ho, Wo), w (O, T), tb as there; gi (N, G, H, W) overwritten. Per
    # plane each output channel's gradient is laid on the flat rows (zeros in the dropped columns) and added
    # into the phase scratch once per tap (one vector loop each), whose interior is then copied out.
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, parallel=True, fastmath={"contract"})
    def kernel(g, w, gi, tb, rows, cph, wq, size):
        n, o, ho, wo = g.shape
        groups, h, wd = gi.shape[1], gi.shape[2], gi.shape[3]
        og = o // groups
        sw = cph.shape[0]
        m = (ho - 1) * wq + wo
        for gg in numba.prange(groups):
            s = np.empty(size, dtype=gi.dtype)
            gf = np.empty(m, dtype=gi.dtype)
            for b in range(n):
                for k in range(size):
                    s[k] = 0.0
                for oc in range(gg * og, (gg + 1) * og):
                    for q in range(m):
                        gf[q] = 0.0
                    for oh in range(ho):
                        for ow in range(wo):
                            gf[np.uint64(oh * wq + ow)] = g[b, oc, oh, ow]
                    for t in range(tb.shape[0]):
                        base = tb[t]
                        wv = w[oc, t]
                        for q in range(m):
                            s[np.uint64(base + q)] += wv * gf[q]
                for r in range(h):
                    if sw == 1:
                        rb = rows[r] + cph[0, 1]
                        for t in range(wd):
                            gi[b, gg, r, t] = s[np.uint64(rb + t)]
                    else:
                        for rj in range(sw):
                            c0, rb = cph[rj, 0], rows[r] + cph[rj, 1]
                            for t in range(cph[rj, 2]):
                                gi[b, gg, r, c0 + t * sw] = s[np.uint64(rb + t)]

    return kernel


@cache
def depthwise_conv_backward_weight():
    import numba

    # The weight gradient of `depthwise_conv`: g (N, O, Ho, Wo), x (N, G, H, W), tb as there; gw (O, T)
    # overwritten; parallel over output channels. Per image each tap is one dot product of the gradient's flat
    # rows with the phase scratch (`reassoc` lets LLVM vectorize it), summed over the batch in float64.
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, parallel=True, fastmath={"contract", "reassoc"})
    def kernel(g, x, gw, tb, rows, cph, wq, size):
        n, o, ho, wo = g.shape
        groups, h, wd = x.shape[1], x.shape[2], x.shape[3]
        og = o // groups
        sw = cph.shape[0]
        m = (ho - 1) * wq + wo
        nt = tb.shape[0]
        z = np.zeros(1, dtype=x.dtype)[0]
        for oc in numba.prange(o):
            gg = oc // og
            s = np.empty(size, dtype=x.dtype)
            gf = np.empty(m, dtype=x.dtype)
            acc = np.empty(nt, dtype=np.float64)
            for t in range(nt):
                acc[t] = 0.0
            for b in range(n):
                for k in range(size):
                    s[k] = 0.0
                for r in range(h):
                    if sw == 1:  # unit stride: a loop LLVM vectorizes
                        rb = rows[r] + cph[0, 1]
                        for t in range(wd):
                            s[np.uint64(rb + t)] = x[b, gg, r, t]
                    else:
                        for rj in range(sw):  # the row's columns of each column phase: a contiguous run
                            c0, rb = cph[rj, 0], rows[r] + cph[rj, 1]
                            for t in range(cph[rj, 2]):
                                s[np.uint64(rb + t)] = x[b, gg, r, c0 + t * sw]
                for q in range(m):
                    gf[q] = 0.0
                for oh in range(ho):
                    for ow in range(wo):
                        gf[np.uint64(oh * wq + ow)] = g[b, oc, oh, ow]
                for t in range(nt):
                    base = tb[t]
                    d = z
                    for q in range(m):
                        d += gf[q] * s[np.uint64(base + q)]
                    acc[t] += d
            for t in range(nt):
                gw[oc, t] = acc[t]

    return kernel


@cache
def channel_stats():
    import numba

    # x: (N, C, L); mean, var: (C,) float64 (biased var, two passes over each channel: centred, stable). The
    # sums run in float64; `reassoc` lets LLVM split them into vector lanes (one accumulator is a chain of
    # dependent adds it may not reorder otherwise).
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, fastmath={"reassoc", "contract"})
    def kernel(x, mean, var):
        n, c, m = x.shape
        cnt = n * m if n * m > 0 else 1  # not max(): its overload would compile with the kernel
        for ch in range(c):
            s = 0.0
            for b in range(n):
                for k in range(m):
                    s += x[b, ch, k]
            mu = s / cnt
            s = 0.0
            for b in range(n):
                for k in range(m):
                    d = x[b, ch, k] - mu
                    s += d * d
            mean[ch] = mu
            var[ch] = s / cnt

    return kernel


@cache
def channel_affine():
    # out[b, c, :] = (x[b, c, :] - mean[c]) * scale[c] + bias[c]; x, out: (N, C, L); mean, scale, bias: (C,)
    # float64. One pass in x's dtype: (x - mean') * scale + bias', mean' the mean rounded to that dtype and
    # bias' correcting for the rounding in float64, so the centring keeps the digits that x * scale -
    # mean * scale would cancel when the mean is large against the spread (mean 1e4, spread 1e-2). The
    # coefficients are rounded by casts (a scratch array from np.empty would compile numpy's allocation
    # overloads with the kernel, ~0.15 s of a cold start).
    @_njit()
    def kernel(x, mean, scale, bias, out):
        n, c, m = x.shape
        t = out.dtype.type
        for ch in range(c):
            mu = t(mean[ch])
            a = t(scale[ch])
            sh = t(bias[ch] + (np.float64(mu) - mean[ch]) * scale[ch])
            for b in range(n):
                for k in range(m):
                    out[b, ch, k] = (x[b, ch, k] - mu) * a + sh

    return kernel


@cache
def batch_norm_backward():
    import numba

    # g, x, gi: (N, C, L); mean, invstd, w: (C,) float64; gw, gb: (C,) float64 outputs. One channel at a time:
    # its sums, then its input gradient while the channel is still in cache (training subtracts the
    # statistics' terms). The sums run in float64, centred on `mean` (the saved batch mean, rounded to x's
    # dtype); `reassoc` lets LLVM split them into vector lanes. In training the exact float64 batch mean is
    # that centre plus the mean of x - centre, written back to `mean`, and sum(g * (x - mean)) is corrected
    # to it. The input gradient is a * g + e * (x - mean') + f in x's dtype (one vector pass), mean' the
    # mean rounded to that dtype and f correcting for the rounding, so x - mean' keeps its digits (the
    # coefficients rounded by casts, as in channel_affine).
    @numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True, fastmath={"reassoc", "contract"})
    def kernel(g, x, mean, invstd, w, training, gi, gw, gb):
        n, c, m = x.shape
        t = gi.dtype.type
        cnt = n * m if n * m > 0 else 1
        for ch in range(c):
            ref = mean[ch]
            sg = 0.0
            sgx = 0.0
            sx = 0.0
            for b in range(n):
                for k in range(m):
                    gv = np.float64(g[b, ch, k])
                    d = x[b, ch, k] - ref
                    sg += gv
                    sgx += gv * d
                    sx += d
            mu = ref
            if training:
                shift = sx / cnt
                mu = ref + shift
                mean[ch] = mu
                sgx -= shift * sg
            gb[ch] = sg
            gw[ch] = sgx * invstd[ch]
            k0 = w[ch] * invstd[ch]
            e = -k0 * gw[ch] / cnt * invstd[ch] if training else 0.0
            a, e2, md = t(k0), t(e), t(mu)
            f = t(-k0 * sg / cnt + e * (np.float64(md) - mu)) if training else t(0.0)
            for b in range(n):
                for k in range(m):
                    gi[b, ch, k] = a * g[b, ch, k] + e2 * (x[b, ch, k] - md) + f

    return kernel


@cache
def max_pool2d():
    # x: (NC, H, W); out, idx: (NC, Ho, Wo); idx is the flat h * W + w of the max; the last NaN wins.
    # The valid taps of each window are found first, so the inner loops carry no bounds tests. The hot
    # loop only compares and notes whether a NaN went by (a NaN test in the max's branch made it 3x
    # slower); a window that held one is rescanned for its last NaN, as PyTorch's kernel keeps it.
    @_njit()
    # A window with no tap inside the input (ceil_mode with dilation can make one) gets PyTorch's `low`
    # (-inf, or the integer dtype's least) and the flat index of its first tap past the left padding.
    def kernel(x, out, idx, kh, kw, sh, sw, ph, pw, dh, dw, low):
        nc, h, w = x.shape
        _, ho, wo = out.shape
        for p in range(nc):
            for oh in range(ho):
                r0 = oh * sh - ph
                i0, i1 = 0, kh
                while r0 + i0 * dh < 0:
                    i0 += 1
                while i1 > i0 and r0 + (i1 - 1) * dh >= h:
                    i1 -= 1
                for ow in range(wo):
                    c0 = ow * sw - pw
                    j0, j1 = 0, kw
                    while c0 + j0 * dw < 0:
                        j0 += 1
                    while j1 > j0 and c0 + (j1 - 1) * dw >= w:
                        j1 -= 1
                    if i0 >= i1 or j0 >= j1:
                        out[p, oh, ow] = low
                        idx[p, oh, ow] = (r0 + i0 * dh) * w + c0 + j0 * dw
                        continue
                    best = x[p, r0 + i0 * dh, c0 + j0 * dw]
                    bi, bj = i0, j0
                    nan = False
                    for i in range(i0, i1):
                        for j in range(j0, j1):
                            v = x[p, r0 + i * dh, c0 + j * dw]
                            nan |= v != v
                            if v > best:
                                best = v
                                bi, bj = i, j
                    if nan:  # PyTorch's `val > maxval || isnan(val)`: the last NaN in scan order wins
                        for i in range(i0, i1):
                            for j in range(j0, j1):
                                v = x[p, r0 + i * dh, c0 + j * dw]
                                if v != v:
                                    best = v
                                    bi, bj = i, j
                    out[p, oh, ow] = best
                    idx[p, oh, ow] = (r0 + bi * dh) * w + c0 + bj * dw

    return kernel


@cache
def max_pool2d_2x2():
    # `max_pool2d` for a 2x2 window at stride 2, unpadded, undilated, Ho = H // 2, Wo = W // 2 (x: (NC, H, W)):
    # the max of each row's pair, then of the two rows, by selects (no branch: on random data the general
    # kernel's compare-and-branch mispredicts about half the time); ties keep the earlier tap in scan order.
    # A plane that held a NaN is rescanned for each window's last NaN, as in `max_pool2d`.
    @_njit()
    def kernel(x, out, idx):
        nc, _, w = x.shape
        _, ho, wo = out.shape
        for p in range(nc):
            nan = False
            for oh in range(ho):
                r = 2 * oh
                for ow in range(wo):
                    c = 2 * ow
                    a, b, e, d = x[p, r, c], x[p, r, c + 1], x[p, r + 1, c], x[p, r + 1, c + 1]
                    ab = b > a
                    m1 = b if ab else a
                    ed = d > e
                    m2 = d if ed else e
                    t = m2 > m1
                    out[p, oh, ow] = m2 if t else m1
                    idx[p, oh, ow] = r * w + c + (w + np.int64(ed) if t else np.int64(ab))
                    nan |= (a != a) | (b != b) | (e != e) | (d != d)
            if nan:
                for oh in range(ho):
                    r = 2 * oh
                    for ow in range(wo):
                        c = 2 * ow
                        for k in range(4):  # the taps in scan order (a range compiles faster than a tuple)
                            dr, dc = k >> 1, k & 1
                            v = x[p, r + dr, c + dc]
                            if v != v:  # the last NaN wins, as in `max_pool2d`
                                out[p, oh, ow] = v
                                idx[p, oh, ow] = (r + dr) * w + c + dc

    return kernel


@cache
def index_scatter_add():
    # grad, idx: (NC, L); out: (NC, HW) zeroed: out[p, idx[p, k]] += grad[p, k]. Checks each index as it
    # goes (one pass, no separate min/max scan) and returns the first out of [0, HW), or -1.
    @_njit()
    def kernel(grad, idx, out):
        nc, n = grad.shape
        hw = out.shape[1]
        for p in range(nc):
            for k in range(n):
                q = idx[p, k]
                if q < 0 or q >= hw:
                    return q
                out[p, q] += grad[p, k]
        return -1

    return kernel


@cache
def avg_pool3d_int():
    # x: (NC, D, H, W) int64; out: (NC, Do, Ho, Wo) int64 (2-D pooling is D = 1). PyTorch's integer average:
    # the window's int64 sum (wrapping as C's) over PyTorch's divisor, divided with C's truncation toward 0.
    @_njit()
    def kernel(x, out, kd, kh, kw, sd, sh, sw, pd, ph, pw, count_include_pad, divisor):
        nc, d, h, w = x.shape
        _, do, ho, wo = out.shape
        for p in range(nc):
            for od in range(do):
                d0 = od * sd - pd
                d1 = min(d0 + kd, d + pd)
                for oh in range(ho):
                    h0 = oh * sh - ph
                    h1 = min(h0 + kh, h + ph)
                    for ow in range(wo):
                        w0 = ow * sw - pw
                        w1 = min(w0 + kw, w + pw)
                        size = (d1 - d0) * (h1 - h0) * (w1 - w0)
                        t0, t1, a0, a1 = max(d0, 0), min(d1, d), max(h0, 0), min(h1, h)
                        b0, b1 = max(w0, 0), min(w1, w)
                        acc = np.int64(0)
                        for t in range(t0, t1):
                            for r in range(a0, a1):
                                for s in range(b0, b1):
                                    acc += x[p, t, r, s]
                        if divisor != 0:  # an override; 0 means none
                            q = np.int64(divisor)
                        elif count_include_pad:
                            q = np.int64(size)
                        else:
                            q = np.int64((t1 - t0) * (a1 - a0) * (b1 - b0))
                        if q == 0 or t0 >= t1 or a0 >= a1 or b0 >= b1:
                            out[p, od, oh, ow] = 0
                        else:
                            v = acc // q
                            if v * q != acc and (acc < 0) != (q < 0):
                                v += 1
                            out[p, od, oh, ow] = v

    return kernel


@cache
def avg_pool2d():
    # x: (NC, H, W); out: (NC, Ho, Wo); PyTorch's divisor rules (padding counted up to H + ph).
    @_njit()
    def kernel(x, out, kh, kw, sh, sw, ph, pw, count_include_pad, divisor):
        nc, h, w = x.shape
        _, ho, wo = out.shape
        for p in range(nc):
            for oh in range(ho):
                h0 = oh * sh - ph
                h1 = min(h0 + kh, h + ph)
                for ow in range(wo):
                    w0 = ow * sw - pw
                    w1 = min(w0 + kw, w + pw)
                    size = (h1 - h0) * (w1 - w0)
                    a0, a1, b0, b1 = max(h0, 0), min(h1, h), max(w0, 0), min(w1, w)
                    acc = 0.0
                    for r in range(a0, a1):
                        for s in range(b0, b1):
                            acc += x[p, r, s]
                    if divisor != 0:  # an override; 0 means none
                        d = divisor
                    elif count_include_pad:
                        d = size
                    else:
                        d = (a1 - a0) * (b1 - b0)
                    out[p, oh, ow] = acc / d if d != 0 else 0.0

    return kernel


@cache
def avg_pool2d_backward():
    # grad: (NC, Ho, Wo); out: (NC, H, W) zeroed; the transpose of `avg_pool2d`.
    @_njit()
    def kernel(grad, out, kh, kw, sh, sw, ph, pw, count_include_pad, divisor):
        nc, h, w = out.shape
        _, ho, wo = grad.shape
        for p in range(nc):
            for oh in range(ho):
                h0 = oh * sh - ph
                h1 = min(h0 + kh, h + ph)
                for ow in range(wo):
                    w0 = ow * sw - pw
                    w1 = min(w0 + kw, w + pw)
                    size = (h1 - h0) * (w1 - w0)
                    a0, a1, b0, b1 = max(h0, 0), min(h1, h), max(w0, 0), min(w1, w)
                    if divisor != 0:  # an override; 0 means none
                        d = divisor
                    elif count_include_pad:
                        d = size
                    else:
                        d = (a1 - a0) * (b1 - b0)
                    if d == 0:
                        continue
                    g = grad[p, oh, ow] / d
                    for r in range(a0, a1):
                        for s in range(b0, b1):
                            out[p, r, s] += g

    return kernel


@cache
def adaptive_pool2d():
    # x: (NC, H, W); out, idx: (NC, Ho, Wo); bins [floor(i*H/Ho), ceil((i+1)*H/Ho)); idx only for max.
    @_njit()
    def kernel(x, out, idx, is_max):
        nc, h, w = x.shape
        _, ho, wo = out.shape
        for p in range(nc):
            for oh in range(ho):
                h0 = (oh * h) // ho
                h1 = -((-(oh + 1) * h) // ho)
                for ow in range(wo):
                    w0 = (ow * w) // wo
                    w1 = -((-(ow + 1) * w) // wo)
                    if is_max:
                        best = x[p, h0, w0]
                        arg = h0 * w + w0
                        for r in range(h0, h1):
                            for s in range(w0, w1):
                                v = x[p, r, s]
                                if v > best or v != v:
                                    best = v
                                    arg = r * w + s
                        out[p, oh, ow] = best
                        idx[p, oh, ow] = arg
                    else:
                        acc = 0.0
                        for r in range(h0, h1):
                            for s in range(w0, w1):
                                acc += x[p, r, s]
                        out[p, oh, ow] = acc / ((h1 - h0) * (w1 - w0))

    return kernel


@cache
def adaptive_avg_pool2d_backward():
    # grad: (NC, Ho, Wo); out: (NC, H, W) zeroed.
    @_njit()
    def kernel(grad, out):
        nc, h, w = out.shape
        _, ho, wo = grad.shape
        for p in range(nc):
            for oh in range(ho):
                h0 = (oh * h) // ho
                h1 = -((-(oh + 1) * h) // ho)
                for ow in range(wo):
                    w0 = (ow * w) // wo
                    w1 = -((-(ow + 1) * w) // wo)
                    g = grad[p, oh, ow] / ((h1 - h0) * (w1 - w0))
                    for r in range(h0, h1):
                        for s in range(w0, w1):
                            out[p, r, s] += g

    return kernel


@cache
def rows_scatter_add():
    # grad: (M, D); idx: (M,); scale: (M,); out: (V, D) zeroed; out[idx[m]] += scale[m] * grad[m],
    # skipping rows whose index equals `skip` (padding_idx, or -1 for none). Serial over M: rows collide.
    @_njit()
    def kernel(grad, idx, scale, out, skip):
        m, d = grad.shape
        for k in range(m):
            r = idx[k]
            if r == skip:
                continue
            s = scale[k]
            for j in range(d):
                out[r, j] += s * grad[k, j]

    return kernel


@cache
def rows_gather():
    # w: (V, D) C-contiguous; idx: (M,); out: (M, W) C-contiguous, W >= col + D: out[k, col:col + D] = w[idx[k]]
    # (col 0 and W = D: an embedding lookup; else a column block of `cat`'s result). Returns the first
    # position whose index is outside [0, V), or -1 (out is then incomplete: the caller raises).
    @_njit()
    def kernel(w, idx, out, col):
        v, d = w.shape
        width = out.shape[1]
        src, dst = w.reshape(v * d), out.reshape(out.size)
        for k in range(idx.size):
            r = idx[k]
            if r < 0 or r >= v:
                return k
            row, to = src[r * d:(r + 1) * d], dst[k * width + col:k * width + col + d]
            for j in range(d):
                to[j] = row[j]
        return -1

    return kernel


@cache
def rows_gather_product():
    # wa, wb: (Va, D), (Vb, D) C-contiguous; ia, ib: (M,); a, b: (M, D) and out: (M, W) C-contiguous, W >= col + D:
    # a[k] = wa[ia[k]], b[k] = wb[ib[k]], out[k, col:col + D] = a[k] * b[k] (two lookups and their product in a
    # column block of `cat`'s result). Returns the first position whose index is outside its table, or -1.
    @_njit()
    def kernel(wa, ia, wb, ib, a, b, out, col):
        va, d = wa.shape
        vb = wb.shape[0]
        width = out.shape[1]
        sa, sb, fa, fb, dst = wa.reshape(va * d), wb.reshape(vb * d), a.reshape(a.size), b.reshape(b.size), \
            out.reshape(out.size)
        for k in range(ia.size):
            ra, rb = ia[k], ib[k]
            if ra < 0 or ra >= va or rb < 0 or rb >= vb:
                return k
            x, y = sa[ra * d:(ra + 1) * d], sb[rb * d:(rb + 1) * d]
            xo, yo, to = fa[k * d:(k + 1) * d], fb[k * d:(k + 1) * d], dst[k * width + col:k * width + col + d]
            for j in range(d):
                xo[j] = x[j]
                yo[j] = y[j]
                to[j] = x[j] * y[j]
        return -1

    return kernel


@cache
def first_out_of_range():
    # idx: (M,) integers: the first position whose value is outside [0, rows), or -1
    @_njit()
    def kernel(idx, rows):
        for k in range(idx.size):
            if idx[k] < 0 or idx[k] >= rows:
                return k
        return -1

    return kernel


@cache
def rows_scatter_into():
    # grad: flat, C-contiguous, row k at [k * rs, k * rs + D); idx: (M,); out: (V, D) C-contiguous, uninitialized.
    # Zeroes out, then out[idx[k]] += grad row k in the order of k (rows_scatter_add's sums with scale 1, the
    # same bits), rows whose index is `skip` left out. Returns the first position whose index is outside
    # [0, V), or -1 (out is then garbage: the caller raises). A narrowed gradient (a row stride rs > D) is read
    # in place: no zeroed table, contiguous copy or scale vector.
    @_njit()
    def kernel(grad, rs, idx, out, skip):
        v, d = out.shape
        flat = out.reshape(v * d)
        for j in range(v * d):
            flat[j] = 0
        for k in range(idx.size):
            r = idx[k]
            if r == skip:
                continue
            if r < 0 or r >= v:
                return k
            row = flat[r * d:(r + 1) * d]
            src = grad[k * rs:k * rs + d]
            for j in range(d):
                row[j] += src[j]
        return -1

    return kernel


@cache
def rows_scatter_product_into():
    # a, b: flat, row k at [k * ra, k * ra + D) and [k * rb, k * rb + D); idx: (M,); out: (V, D) C-contiguous,
    # uninitialized. rows_scatter_into of the rows' products: out zeroed, then out[idx[k]] += a row k * b row k,
    # each product rounded to the dtype before its add (eager's `mul`, then its scatter: the same bits), rows
    # whose index is `skip` left out. Returns the first position whose index is outside [0, V), or -1.
    @_njit()
    def kernel(a, ra, b, rb, idx, out, skip):
        v, d = out.shape
        flat = out.reshape(v * d)
        for j in range(v * d):
            flat[j] = 0
        for k in range(idx.size):
            r = idx[k]
            if r == skip:
                continue
            if r < 0 or r >= v:
                return k
            row = flat[r * d:(r + 1) * d]
            x, y = a[k * ra:k * ra + d], b[k * rb:k * rb + d]
            for j in range(d):
                row[j] += x[j] * y[j]
        return -1

    return kernel


@cache
def embedding_bag():
    # weight: (V, D); indices, bag_of, psw: (M,); out: (B, D) zeroed; argmax: (B, D) for max mode.
    # mode 0 sum, 1 mean, 2 max; indices equal to `skip` (padding_idx or -1) are left out of the bag.
    @_njit()
    def kernel(weight, indices, starts, ends, psw, out, argmax, count, mode, skip):
        b, d = out.shape
        for bag in range(b):
            n = 0
            for k in range(starts[bag], ends[bag]):
                r = indices[k]
                if r == skip:
                    continue
                n += 1
                for j in range(d):
                    v = weight[r, j] * psw[k]
                    if mode == 2:
                        if n == 1 or v > out[bag, j]:
                            out[bag, j] = v
                            argmax[bag, j] = r
                    else:
                        out[bag, j] += v
            count[bag] = n
            if mode == 1 and n > 0:
                for j in range(d):
                    out[bag, j] /= n

    return kernel


@cache
def embedding_bag_backward():
    # grad: (B, D); out: (V, D) zeroed; serial over bags (rows collide).
    @_njit()
    def kernel(grad, indices, starts, ends, psw, argmax, count, out, mode, skip):
        b, d = grad.shape
        for bag in range(b):
            if mode == 2:
                if count[bag] > 0:
                    for j in range(d):
                        out[argmax[bag, j], j] += grad[bag, j]
                continue
            scale = 1.0 / count[bag] if (mode == 1 and count[bag] > 0) else 1.0
            for k in range(starts[bag], ends[bag]):
                r = indices[k]
                if r == skip:
                    continue
                s = scale * psw[k]
                for j in range(d):
                    out[r, j] += s * grad[bag, j]

    return kernel
