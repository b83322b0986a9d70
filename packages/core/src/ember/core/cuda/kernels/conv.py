"""im2col and col2im for convolutions as GEMMs.

Layout assumptions: `x` is (N, C, H, W) with strides (sn, sc, sh, sw) and an offset; `cols` is a
contiguous (N, C * kh * kw, Ho * Wo) buffer, row (c * kh + ki) * kw + kj, column oh * Wo + ow.
`geom` packs (C, H, W, kh, kw, Ho, Wo, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w).
col2im gathers (no atomics): each input element sums the columns that read it.
"""

from __future__ import annotations

from functools import cache

from numba import cuda

__all__ = ["im2col_function", "col2im_function", "im2col", "col2im"]


def im2col_function():
    def kernel(total, geom, x, x_off, sn, sc, sh, sw, cols):
        c_, h_, w_, kh, kw, ho, wo = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5], geom[6]
        st_h, st_w, p_h, p_w, d_h, d_w = geom[7], geom[8], geom[9], geom[10], geom[11], geom[12]
        i = cuda.grid(1)
        while i < total:
            ow = i % wo
            r = i // wo
            oh = r % ho
            r //= ho
            kj = r % kw
            r //= kw
            ki = r % kh
            r //= kh
            c = r % c_
            n = r // c_
            hh = oh * st_h - p_h + ki * d_h
            ww = ow * st_w - p_w + kj * d_w
            v = x[x_off + n * sn + c * sc + hh * sh + ww * sw] if 0 <= hh < h_ and 0 <= ww < w_ else 0
            cols[i] = v
            i += cuda.gridsize(1)

    return kernel


def col2im_function(acc_t):
    def kernel(total, geom, cols, out):
        c_, h_, w_, kh, kw, ho, wo = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5], geom[6]
        st_h, st_w, p_h, p_w, d_h, d_w = geom[7], geom[8], geom[9], geom[10], geom[11], geom[12]
        i = cuda.grid(1)
        while i < total:
            ww = i % w_
            r = i // w_
            hh = r % h_
            r //= h_
            c = r % c_
            n = r // c_
            acc = acc_t(0)
            for ki in range(kh):
                th = hh + p_h - ki * d_h
                if th >= 0 and th % st_h == 0 and th // st_h < ho:
                    oh = th // st_h
                    for kj in range(kw):
                        tw = ww + p_w - kj * d_w
                        if tw >= 0 and tw % st_w == 0 and tw // st_w < wo:
                            row = (c * kh + ki) * kw + kj
                            acc += cols[((n * c_ * kh * kw) + row) * (ho * wo) + oh * wo + tw // st_w]
            out[i] = acc
            i += cuda.gridsize(1)

    return kernel


@cache
def im2col():
    return cuda.jit(im2col_function())


@cache
def col2im(acc_t):
    return cuda.jit(col2im_function(acc_t))
