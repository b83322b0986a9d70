"""conv2d of a 3x3 kernel at stride 1 by Winograd's F(2x2, 3x3): 16 GEMMs of 4 multiplies where im2col has 9.

NOTE [ Winograd F(2x2, 3x3) convolution ]
Each 2x2 output tile of a 3x3, stride-1 convolution is `A^T [(G g G^T) * (B^T d B)] A` of its 4x4 input
tile d (Lavin & Gray, 2016): per tile and channel pair 16 multiplies instead of 36, so the image GEMMs'
2.25x fewer flops become 16 GEMMs `U[k] (O, C) @ V[k] (C, tiles)`, one per position k of the 4x4
transformed tile, over the tiles of a few images at a time (`_CHUNK_BYTES`: the transformed tiles and
products stay in cache; the chunks run through conv.py's `_over_images`, so above one thread they go to its
workers with the BLAS at one thread, and the bits do not depend on the thread count). `_input_tiles` writes
V (the 4x4 input tiles, B^T d B) from a zero-padded copy of the chunk, and `_output_tiles` folds the 16
products back into 2x2 outputs (A^T M A) plus the bias: both transforms are additions only, and the
weight's (G g G^T, with halvings) is taken in float64 and rounded once. Against a float64 reference the
error measured below im2col's (3e-7 against 7e-7 of the largest output, LeNet's 32->64 layer).
It serves float32 layers with at least as many output as input channels, 16 or more, and even output
planes of at least 16x16 (the image GEMMs' regime), and the stride-1 input gradient, which is the same
convolution of the gradient padded by 2 - p with the flipped, channel-swapped weight. Measured at batch
64 on one thread (OpenBLAS's Haswell kernels / its SkylakeX ones), LeNet's 32->64 layer on 26x26:
forward 14.4 -> 9.7 / 8.8 -> 8.0 ms; a 64->64 layer on 32x32 (batch 32): forward 24.5 -> 15.0 / 18.1 ->
10.5 ms, input gradient 24.2 -> 15.3 / 16.7 -> 10.3 ms. LeNet's input gradient (64 -> 32 channels)
measured 13.8 -> 12.0 / 9.1 -> 9.9 ms (the 16 GEMMs' 32 rows), hence the channel rule; below 16
channels the GEMMs' reduction is too short to pay for the transforms.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ember.core.ops.blas_threads import matmul as _matmul
from ember.core.ops.numba_nn import _njit

__all__ = ["winograd_ok", "winograd_conv"]

_CHUNK_BYTES = 1 << 23  # a chunk's padded images, transformed tiles and products (8 images of LeNet's layer)
_MIN_CHANNELS = 16


def _weight_tiles(w: np.ndarray) -> np.ndarray:
    """`G g G^T` of every `(O, C, 3, 3)` kernel, in float64 and rounded once, as the GEMMs' `(16, O, C)`
    operand; G's rows are the taps 0 and 2 alone and the halved sums `(g0 + g1 + g2) / 2`, `(g0 - g1 + g2) / 2`
    (an einsum took 0.4 ms a call on LeNet's weight)."""
    def rows(t, axis):
        g0, g1, g2 = (np.take(t, i, axis) for i in range(3))
        return np.stack([g0, (g0 + g1 + g2) * 0.5, (g0 - g1 + g2) * 0.5, g2])

    w64 = w.astype(np.float64)
    return rows(rows(w64, 3), 3).reshape(16, *w.shape[:2]).astype(w.dtype)  # columns, then rows: (a, b, O, C)


def winograd_ok(dtype, c: int, o: int, kh: int, kw: int, stride, dilation, groups: int, ho: int, wo: int) -> bool:
    """Whether a conv2d runs by `winograd_conv` (see NOTE [ Winograd F(2x2, 3x3) convolution ])."""
    return (dtype == np.float32 and kh == kw == 3 and groups == 1 and tuple(stride) == (1, 1)
            and tuple(dilation) == (1, 1) and o >= c >= _MIN_CHANNELS and ho % 2 == 0 and wo % 2 == 0
            and ho * wo >= 256)


@cache
def _input_tiles():
    # xp (nb, C, 2*th + 2, 2*tw + 2), the chunk zero-padded; v (16, C, nb*th*tw) flat: each 4x4 tile's
    # B^T d B, tile t = (b*th + ty)*tw + tx. The rows' combination runs over a whole padded row (contiguous),
    # then the columns' over the tiles.
    @_njit()
    def kernel(xp, v, nb, c, th, tw):
        hp, wp = 2 * th + 2, 2 * tw + 2
        t_all = nb * th * tw
        plane = c * t_all
        a = np.empty(4 * wp, dtype=v.dtype)
        for b in range(nb):
            for ch in range(c):
                for ty in range(th):
                    r = ((b * c + ch) * hp + 2 * ty) * wp
                    for q in range(wp):
                        x0 = xp[np.uint64(r + q)]
                        x1 = xp[np.uint64(r + wp + q)]
                        x2 = xp[np.uint64(r + 2 * wp + q)]
                        x3 = xp[np.uint64(r + 3 * wp + q)]
                        a[np.uint64(q)] = x0 - x2
                        a[np.uint64(wp + q)] = x1 + x2
                        a[np.uint64(2 * wp + q)] = x2 - x1
                        a[np.uint64(3 * wp + q)] = x1 - x3
                    base = ch * t_all + (b * th + ty) * tw
                    for i in range(4):
                        s = i * wp
                        d0 = base + 4 * i * plane
                        for tx in range(tw):
                            e0 = a[np.uint64(s + 2 * tx)]
                            e1 = a[np.uint64(s + 2 * tx + 1)]
                            e2 = a[np.uint64(s + 2 * tx + 2)]
                            e3 = a[np.uint64(s + 2 * tx + 3)]
                            v[np.uint64(d0 + tx)] = e0 - e2
                            v[np.uint64(d0 + plane + tx)] = e1 + e2
                            v[np.uint64(d0 + 2 * plane + tx)] = e2 - e1
                            v[np.uint64(d0 + 3 * plane + tx)] = e1 - e3

    return kernel


@cache
def _output_tiles():
    # m (16, O, nb*th*tw) flat, the products; out (nb, O, 2*th, 2*tw) flat: each tile's A^T m A plus the
    # channel's bias. Per output channel the column combination runs over all the chunk's tiles (16 contiguous
    # streams), then each 2x2 tile is written.
    @_njit()
    def kernel(m, out, bias, nb, o, th, tw):
        t_all = nb * th * tw
        plane = o * t_all
        hq, wq = 2 * th, 2 * tw
        s = np.empty(8 * t_all, dtype=m.dtype)
        for oc in range(o):
            for j in range(4):
                p0 = oc * t_all + j * plane
                q0, q1 = j * t_all, (4 + j) * t_all
                for t in range(t_all):
                    m1 = m[np.uint64(p0 + 4 * plane + t)]
                    m2 = m[np.uint64(p0 + 8 * plane + t)]
                    s[np.uint64(q0 + t)] = m[np.uint64(p0 + t)] + m1 + m2
                    s[np.uint64(q1 + t)] = m1 - m2 - m[np.uint64(p0 + 12 * plane + t)]
            bv = bias[oc]
            for b in range(nb):
                for ty in range(th):
                    base = (b * th + ty) * tw
                    for i in range(2):
                        r = ((b * o + oc) * hq + 2 * ty + i) * wq
                        c0 = 4 * i * t_all + base
                        for tx in range(tw):
                            a1 = s[np.uint64(c0 + t_all + tx)]
                            a2 = s[np.uint64(c0 + 2 * t_all + tx)]
                            out[np.uint64(r + 2 * tx)] = s[np.uint64(c0 + tx)] + a1 + a2 + bv
                            out[np.uint64(r + 2 * tx + 1)] = a1 - a2 - s[np.uint64(c0 + 3 * t_all + tx)] + bv

    return kernel


def winograd_conv(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, padding, over_chunks) -> np.ndarray:
    """conv2d of float32 `x (N, C, H, W)` with `w (O, C, 3, 3)` at stride 1 (plus `bias (O,)`), a contiguous
    `(N, O, Ho, Wo)` array; `winograd_ok` must hold (even Ho and Wo). `over_chunks(n, per, dtype, work, budget)`
    runs `work(start, images, buffer)` over chunks of images, each with a buffer of `per` elements an image
    (conv.py's `_over_images`: on worker threads, the BLAS at one thread, when there are several)."""
    n, c, h, wd = x.shape
    o = w.shape[0]
    ph, pw = padding
    hp, wp = h + 2 * ph, wd + 2 * pw
    th, tw = hp // 2 - 1, wp // 2 - 1
    tiles = th * tw
    u = _weight_tiles(w)
    res = np.empty((n, o, hp - 2, wp - 2), dtype=x.dtype)
    b = np.zeros(o, dtype=x.dtype) if bias is None else np.ascontiguousarray(bias, dtype=x.dtype)
    to_tiles, from_tiles = _input_tiles(), _output_tiles()
    padded = c * hp * wp

    def work(s, nb, buf):
        xc = buf[:nb * padded].reshape(nb, c, hp, wp)
        xc[:, :, :ph], xc[:, :, ph + h:], xc[:, :, :, :pw], xc[:, :, :, pw + wd:] = 0, 0, 0, 0
        xc[:, :, ph:ph + h, pw:pw + wd] = x[s:s + nb]
        vc = buf[nb * padded:nb * (padded + 16 * c * tiles)]
        mc = buf[nb * (padded + 16 * c * tiles):]
        to_tiles(buf[:nb * padded], vc, nb, c, th, tw)
        _matmul(u, vc.reshape(16, c, nb * tiles), out=mc.reshape(16, o, nb * tiles))
        from_tiles(mc, res[s:s + nb].reshape(-1), b, nb, o, th, tw)

    for _ in over_chunks(n, padded + 16 * (c + o) * tiles, x.dtype, work, _CHUNK_BYTES):
        pass
    return res
