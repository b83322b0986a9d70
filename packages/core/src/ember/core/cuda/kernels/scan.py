"""Running sums and products along one dim: one thread per row, a sequential scan.

Layout assumption: `km` rows are (row-index shape, output strides, input strides) over the dims
other than the scanned one; `rm[0]` holds the scanned dim's (input, output) strides. Rows are
independent, so a grid of threads covers them; a block-parallel scan would pay on long rows.
"""

from __future__ import annotations

from functools import cache

from numba import cuda

from ember.core.cuda.kernels.reduce import _offset


def scan_function(multiply: bool, acc_t):
    def kernel(nrows, n, km, rm, out, out_off, x, x_off):
        o = cuda.grid(1)
        sx = rm[0, 0]
        so = rm[0, 1]
        while o < nrows:
            po = _offset(o, out_off, km, 1)
            px = _offset(o, x_off, km, 2)
            acc = acc_t(1) if multiply else acc_t(0)
            for j in range(n):
                v = acc_t(x[px + j * sx])
                acc = acc * v if multiply else acc + v
                out[po + j * so] = acc
            o += cuda.gridsize(1)

    return kernel


@cache
def scan(multiply: bool, acc_t):
    return cuda.jit(scan_function(multiply, acc_t))
