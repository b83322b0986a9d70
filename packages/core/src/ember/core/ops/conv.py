"""Convolutions: conv1d/conv2d/conv_transpose1d/conv_transpose2d and the conv backward kernels.

NOTE [ Convolution as one GEMM ]
The forward unfolds the input into columns `(C, kh, kw, N, Ho, Wo)` (a Numba gather, per tap,
from a zero-padded channels-first copy of the input through a table of window offsets; a 1x1
stride-1 conv only a transpose), then multiplies the weight `(G, O/G, C/G*kh*kw)` by
them in one GEMM per group, over the whole batch at once (a single large GEMM is several times
faster than N small ones). The input gradient is the transposed GEMM followed by `col2im`, a
Numba scatter-add through the same table into a padded buffer, cropped (at stride 1, with at
least as many input as output channels, it is instead the forward's im2col + GEMM of the
gradient padded by d*(k-1) - p with the flipped weight: the gather costs half the scatter); the
weight gradient is GEMM of the gradient with the columns. Depthwise convolutions (one input channel
per group, groups > 1) run direct Numba loops instead: their per-group GEMMs would have
K = kh * kw (see NOTE [ Depthwise convolution over phase planes ]). A single-channel input with
groups == 1 (a first layer) stays off the depthwise loops (the GEMM, or the direct kernel below,
measured faster, and compile no parallel kernel at start). A transposed convolution is exactly a
convolution's input gradient, so it reuses it.

NOTE [ Convolution as one GEMM per image ]
An output plane of at least 16x16 makes each image's GEMM large enough on its own: the image's columns
`(C/G*kh*kw, Ho*Wo)` times the weight `(O/G, C/G*kh*kw)` land straight in the output's `(N, O, Ho, Wo)`
layout, with no transposing copies of the columns, the output or the gradient. The columns of a few
images at a time (`_over_images`, about 2 MB) are written by one Numba pass (`numba_nn.image_columns`:
each output row one contiguous run) into a buffer the chunk reuses, so the GEMMs read them from cache
(the whole batch's columns, tens of MB, went to memory and back: im2col cost half a GEMM). The input
gradient is each image's transposed GEMM and the same pass run as col2im; the weight gradient is each
image's columns times its transposed gradient (the reverse when the columns' rows outnumber the image's
positions), summed in image order within a chunk and then chunk by chunk. At more than one thread the
chunks run on that many worker threads with the BLAS at one thread: a threaded BLAS meets its threads
at a barrier in every call, and a layer's 64 calls took a 600 ms median on the shared 2-core machine
where the workers take 23 ms; each image's GEMM is then the one-thread GEMM, so the results are the
same bits at every thread count. It replaces `_direct` from 64 output channels up: a GEMM with 64 or
more rows runs at the BLAS's peak, which the direct kernel's 2 output channels a pass never reach
(LeNet's 32->64 3x3 layer on 26x26: forward, input and weight gradient measured 20-25% faster).
A float32 3x3 stride-1 layer of 16 or more channels (at least as many out as in) and even planes runs
its forward and input gradient by Winograd's F(2x2, 3x3) instead, 4 multiplies an output where these
GEMMs do 9 (see NOTE [ Winograd F(2x2, 3x3) convolution ] in `conv_winograd.py`); its weight gradient
stays here (by Winograd, measured 15.7 -> 14.0 ms with OpenBLAS's Haswell kernels but 10.4 -> 12.7 ms
with its SkylakeX ones on LeNet's layer).

NOTE [ Direct convolution over flat rows ]
A stride-1, groups=1 convolution with few channels (fewer than 64 out) on a large image runs direct instead
(`numba_nn.conv_rows`): im2col would write kh*kw copies of the input for a GEMM whose 16-32 rows
give BLAS a skinny, memory-bound shape. The input is zero-padded once and each padded image is
read as one flat row: output q = oh*Wp + ow is the sum over taps of xp[q + i*dh*Wp + j*dw], so
every tap is a single long contiguous loop; the Wp - Wo columns past each output row are
computed and dropped. The input gradient of such a convolution is the same kernel applied to the
gradient padded by d*(k-1) - p, with the weight flipped and its channel axes swapped. Small
planes (16x16) put two padded images end to end in one flat row (`_images_per_row`): the rows
between them are computed and dropped too, and each tap's loop is twice as long.
An unpadded 1x1 convolution (groups=1) needs no columns at all: each image is `W (O, C) @ x[b]
(C, H*W)`, one stacked matmul over the batch with no transposes (a stride keeps every s-th
pixel first); its weight gradient is the batch's sum of `g[b] @ x[b]^T`.

NOTE [ Depthwise convolution over phase planes ]
A depthwise convolution (one input channel per group) is 9 multiply-adds per output, too few for
a GEMM, and its planes are small (8x8 to 32x32), so loops over output rows of 8-32 run mostly
in LLVM's scalar remainders. Each kernel works on one plane at a time in a scratch buffer that
stays in L1: the input plane is copied in zero-padded and split into its sh*sw stride phases
(`xp[ri::sh, rj::sw]`, each `hq x wq`), so that at any stride the output q = oh*wq + ow reads tap
(i, j) at one constant offset of one phase, `phase[q + (i*dh // sh)*wq + j*dw // sw]`: every tap
(three a pass) is one long contiguous vector loop over the whole plane, and the wq - wo columns
past each output row are computed and dropped when the rows are copied out. The input gradient
adds each tap into the scratch the same way (then copies the plane's interior out), and the
weight gradient is one dot product per tap and image. The launcher computes the scratch's
offsets (`_phase_geometry`), so the kernels do no integer division.
The kernels are parallel over channels, but below `_DEPTHWISE_PARALLEL_MIN` multiply-adds a call runs them
on one thread (`_depthwise_run`), as PyTorch's parallel_for runs inline below its grain size: a small layer's
planes are tens of microseconds of work, and on a shared 2-core machine each OpenMP region waited for a
descheduled worker (MobileNetV2's small training step measured 150-840 ms against 30-80 ms on one thread).
Every channel is computed alone, so the bits do not depend on the thread count.

NOTE [ 3-D convolution through the 2-D op ]
A 3-D convolution is the 2-D op with the depth taps folded into the channels: the padded input's
kd depth slices `x[:, :, i*dd + sd*t]` are stacked as `(N*Do, C*kd, H, W)` (channel `c*kd + i`,
which keeps each group's channels contiguous) and the weight `(O, C/g, kd, kh, kw)` is read as
`(O, C/g*kd, kh, kw)`: one GEMM per group, as a 3-D im2col would give. The transposed one folds
the depth taps into conv_transpose2d's output channels and sums each tap's slab back at its depth
(`_depth_col2im`). Both are compositions of ops every device has, so the derivatives (the slices'
scatter, the 2-D op's backward) and the CUDA path come from the 2-D op (as conv1d's do).

NOTE [ Integer convolution ]
PyTorch's CPU computes conv1d/2d/3d of uint8, int8, int16, int32 and int64 (dilated ones of int64
only) and the transposed ones of int64, in the input's dtype with C's wrap-around. Sums and
products modulo 2**bits do not depend on the width they are taken in, so `_integer_conv` takes
them in int64 numpy (im2col and one integer matmul per group; exact, never through float64) and
casts the result down. Integer tensors never require grad, so it is a plain forward off the float
ops. The dtype checks follow PyTorch's order and messages: forward, a bias of another dtype
("Input type (long int) and bias type (float) ..."), then the kernel's dtype dispatch
(NotImplementedError naming its kernel), then the weight ("expected scalar type ..."); transposed,
the dispatch, the weight, then a 3-D bias strictly or a 1-D/2-D bias that must cast to the output
(it is added in place). An empty input computes its empty result whatever the dtype, as PyTorch's.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import composite, declare, node_name
from ember.core.ops import numba_nn
from ember.core.ops import workers as _workers
from ember.core.ops._util import internally, named_as, warn_once, wrap
from ember.core.ops.blas_threads import matmul as _matmul
from ember.core.ops.blas_threads import single_threaded as _blas_single_threaded
from ember.core.ops.conv_winograd import winograd_conv, winograd_ok
from ember.core.ops.elementwise import add
from ember.core.ops.layout import squeeze, unsqueeze
from ember.core.ops.memfmt import channels_last_as
from ember.core.ops.shape import to_dtype
from ember.core.tensor import Tensor, describe

Size2 = int | tuple[int, ...]  # an int, or one int per spatial dim

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "convolution",
           "conv2d_backward_input",
           "conv2d_backward_weight", "fold"]  # F.unfold stays here: ember.core.unfold is Tensor.unfold


def _ntuple(v, n: int, name: str, op: str) -> tuple[int, ...]:
    """An int or a sequence of ints expanded to `n` (PyTorch's expand_param_if_needed); other types refused as
    its argument parser does (conv2d's own message lists its overloads; a sequence whose first element is an int
    names the first bad one, counted from 1)."""
    if isinstance(v, int | np.integer) and not isinstance(v, bool):
        return (int(v),) * n
    if isinstance(v, str | bytes) or not hasattr(v, "__iter__") or \
            not all(isinstance(x, int | np.integer) for x in v):
        items = list(v) if isinstance(v, tuple | list) else None
        if items and isinstance(items[0], int | np.integer):
            i, bad = next((i, x) for i, x in enumerate(items) if not isinstance(x, int | np.integer))
            raise TypeError(f"{op}(): argument '{name}' failed to unpack the object at pos {i + 1} with error \"type "
                            f"must be tuple of ints,but got {type(bad).__name__}\"")
        raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to "
                           f"match the convolution dimensions, but got {name}={list(v)}")
    return v


def _out_size(n: int, k: int, s: int, p: int, d: int) -> int:
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


@lru_cache(maxsize=256)
def _window_offsets(n: int, hp: int, wp: int, ho: int, wo: int, sh: int, sw: int) -> np.ndarray:
    """The flat offset of every output position's window corner in `(N, Hp, Wp)`: `im2col`'s gather table
    (kept per geometry: a training step asks for the same ones every step; the kernels only read it)."""
    return (np.arange(n, dtype=np.int64)[:, None, None] * (hp * wp) + (np.arange(ho) * (sh * wp))[None, :, None]
            + (np.arange(wo) * sw)[None, None, :]).reshape(-1)


def _unfold(x: np.ndarray, kh: int, kw: int, stride, padding, dilation) -> np.ndarray:
    """The columns `(C, kh, kw, N, Ho, Wo)` of `x (N, C, H, W)` (see NOTE [ Convolution as one GEMM ])."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, c, h, w = x.shape
    ho, wo = _out_size(h, kh, sh, ph, dh), _out_size(w, kw, sw, pw, dw)
    if kh == kw == 1 and sh == sw == 1 and ph == pw == 0:
        return np.ascontiguousarray(x.transpose(1, 0, 2, 3)).reshape(c, 1, 1, n, ho, wo)
    hp, wp = h + 2 * ph, w + 2 * pw
    xf = np.zeros((c, n, hp, wp), dtype=x.dtype)
    xf[:, :, ph:ph + h, pw:pw + w] = x.transpose(1, 0, 2, 3)
    cols = np.empty((c, kh, kw, n, ho, wo), dtype=x.dtype)
    numba_nn.im2col()(xf.reshape(c, n * hp * wp), _window_offsets(n, hp, wp, ho, wo, sh, sw),
                      cols.reshape(c, kh, kw, n * ho * wo), wp, dh, dw)
    return cols


def _fold(cols: np.ndarray, out: np.ndarray, stride, padding, dilation) -> None:
    """The adjoint of `_unfold`: sum columns `(C, kh, kw, N, Ho, Wo)` back into `out (N, C, H, W)`
    (overwritten)."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, c, h, w = out.shape
    kh, kw, ho, wo = cols.shape[1], cols.shape[2], cols.shape[4], cols.shape[5]
    if kh == kw == 1 and sh == sw == 1 and ph == pw == 0 and (ho, wo) == (h, w):
        out[...] = cols.reshape(c, n, h, w).transpose(1, 0, 2, 3)
        return
    hp, wp = h + 2 * ph, w + 2 * pw
    xf = np.zeros((c, n, hp, wp), dtype=out.dtype)
    numba_nn.col2im()(np.ascontiguousarray(cols).reshape(c, kh, kw, n * ho * wo),
                      _window_offsets(n, hp, wp, ho, wo, sh, sw), xf.reshape(c, n * hp * wp), wp, dh, dw)
    out[...] = xf[:, :, ph:ph + h, pw:pw + w].transpose(1, 0, 2, 3)


_COLS_BYTES = 1 << 27  # one chunk's column buffer: a whole large-image batch would need gigabytes


def _chunks(n: int, per_sample_nbytes: int) -> list[slice]:
    """Batch slices whose columns stay within `_COLS_BYTES` (at least one sample each)."""
    step = max(1, _COLS_BYTES // max(per_sample_nbytes, 1))
    return [slice(i, min(i + step, n)) for i in range(0, n, step)] or [slice(0, 0)]


def _gemm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-group `a[g] @ b[g]`; one plain 2-D GEMM (BLAS's fastest path) when there is one group."""
    return _matmul(a[0], b[0])[None] if a.shape[0] == 1 else _matmul(a, b)


_IMAGE_COLS_BYTES = 1 << 21  # one chunk's columns: a few images, still in cache when the GEMMs read them
_DIRECT_MAX_OUT = 64  # output channels from which the per-image GEMMs beat `_direct` (measured 10-25% faster)


def _image_gemm_ok(ho: int, wo: int) -> bool:
    """Whether each image's output plane is large enough to be its own GEMM (at least 16x16: below, the
    batch's GEMM over all images wins, see NOTE [ Convolution as one GEMM per image ])."""
    return ho * wo >= 256


def _over_images(n: int, per: int, dtype, work, budget: int = _IMAGE_COLS_BYTES):
    """`work(start, images, columns)` over chunks of a few images (their columns within `budget` bytes, a
    buffer of `per` elements an image), yielding its results in chunk order. At more than one thread, as many
    loops on ember's workers (`workers.run_queue`) each take the next chunk until none is left, each with its
    buffer and the BLAS at one thread (a GEMM per image on a threaded BLAS waits at a barrier per image, which
    on a busy machine cost 10x, see NOTE [ Convolution as one GEMM per image ]), so a descheduled thread's
    chunks go to the others. Each image's GEMM is the one-thread one and the results are combined in chunk
    order, so they do not depend on the thread count or on which thread ran a chunk."""
    from ember.core.parallel import get_num_threads

    step = max(1, min(n, budget // max(per * np.dtype(dtype).itemsize, 1)))
    chunks = [(s, min(step, n - s)) for s in range(0, n, step)]
    threads = 1 if _workers.in_worker() else min(get_num_threads(), len(chunks))
    if threads <= 1:
        buf = np.empty(step * per, dtype=dtype)
        for s, nb in chunks:
            yield work(s, nb, buf[:nb * per])
        return
    with _blas_single_threaded():
        results = _workers.run_queue(lambda chunk, buf: work(chunk[0], chunk[1], buf[:chunk[1] * per]), chunks,
                                     threads, lambda: np.empty(step * per, dtype=dtype))
    yield from results


def _columns(x: np.ndarray, cols: np.ndarray, kh: int, kw: int, ho: int, wo: int, stride, padding, dilation,
             fold: bool) -> None:
    """`cols` (flat) from the contiguous images `x (B, C, H, W)`, or with `fold`, `x` overwritten by their sum
    at their taps (see `numba_nn.image_columns`)."""
    n, c, h, w = x.shape
    numba_nn.image_columns()(x.reshape(-1), cols, n, c, h, w, kh, kw, ho, wo, *stride, *padding, *dilation, fold)


def _image_gemm_conv(x: np.ndarray, w: np.ndarray, bias, stride, padding, dilation, groups: int, ho: int,
                     wo: int) -> np.ndarray:
    """conv2d by each image's columns and its GEMM (see NOTE [ Convolution as one GEMM per image ])."""
    x = np.ascontiguousarray(x)
    n, o, cg, kh, kw = x.shape[0], *w.shape
    kg, hw = cg * kh * kw, ho * wo
    wg = w.reshape(groups, o // groups, kg)
    res = np.empty((n, o, ho, wo), dtype=x.dtype)

    def work(s, nb, cols):
        _columns(x[s:s + nb], cols, kh, kw, ho, wo, stride, padding, dilation, False)
        out = res[s:s + nb].reshape(nb, groups, o // groups, hw)
        if groups == 1:  # a 2-D weight: numpy's stacked matmul calls the BLAS once per image
            np.matmul(wg[0], cols.reshape(nb, kg, hw), out=out[:, 0])
        else:
            np.matmul(wg, cols.reshape(nb, groups, kg, hw), out=out)
        if bias is not None:  # while the chunk's output is in cache
            out += bias.reshape(groups, o // groups, 1)

    for _ in _over_images(n, x.shape[1] * kh * kw * hw, x.dtype, work):
        pass
    return res


def _image_gemm_input_grad(g: np.ndarray, w: np.ndarray, input_shape, stride, padding, dilation,
                           groups: int) -> np.ndarray:
    """conv2d's input gradient by each image's transposed GEMM and col2im (see NOTE [ Convolution as one GEMM
    per image ])."""
    g = np.ascontiguousarray(g)
    n, o, ho, wo = g.shape
    cg, kh, kw = w.shape[1:]
    kg, hw = cg * kh * kw, ho * wo
    wt = np.ascontiguousarray(w.reshape(groups, o // groups, kg).transpose(0, 2, 1))
    res = np.empty(tuple(input_shape), dtype=g.dtype)

    def work(s, nb, cols):
        if groups == 1:
            np.matmul(wt[0], g[s:s + nb].reshape(nb, o, hw), out=cols.reshape(nb, kg, hw))
        else:
            np.matmul(wt, g[s:s + nb].reshape(nb, groups, o // groups, hw), out=cols.reshape(nb, groups, kg, hw))
        _columns(res[s:s + nb], cols, kh, kw, ho, wo, stride, padding, dilation, True)

    for _ in _over_images(n, input_shape[1] * kh * kw * hw, g.dtype, work):
        pass
    return res


def _image_gemm_weight_grad(g: np.ndarray, x: np.ndarray, weight_shape, stride, padding, dilation,
                            groups: int) -> np.ndarray:
    """conv2d's weight gradient: each image's GEMM of its columns and its gradient, summed in image order
    within a chunk, then the chunks' sums in chunk order (see NOTE [ Convolution as one GEMM per image ])."""
    g, x = np.ascontiguousarray(g), np.ascontiguousarray(x)
    n, o, ho, wo = g.shape
    _, cg, kh, kw = weight_shape
    kg, hw = cg * kh * kw, ho * wo
    # cols @ grad^T, transposed once at the end, when the image's positions outnumber the columns' rows: BLAS
    # is faster with the long K x L operand first (5% on LeNet's 288 x 576), as in `_conv2d_backward_weight_cpu`
    flip = hw > kg

    def work(s, nb, cols):
        _columns(x[s:s + nb], cols, kh, kw, ho, wo, stride, padding, dilation, False)
        gb = g[s:s + nb].reshape(nb, groups, o // groups, hw)
        cb = cols.reshape(nb, groups, kg, hw)
        part = np.matmul(cb, gb.transpose(0, 1, 3, 2)) if flip else np.matmul(gb, cb.transpose(0, 1, 3, 2))
        for k in range(1, nb):
            part[0] += part[k]
        return part[0]

    acc = np.zeros((groups, kg, o // groups) if flip else (groups, o // groups, kg), dtype=g.dtype)
    for chunk in _over_images(n, x.shape[1] * kh * kw * hw, g.dtype, work):
        acc += chunk
    return np.ascontiguousarray(acc.transpose(0, 2, 1) if flip else acc).reshape(weight_shape)


def _channels_first(g: np.ndarray, groups: int) -> np.ndarray:
    """`(N, O, Ho, Wo)` as `(G, O/G, N*Ho*Wo)`: the GEMM layout of an output gradient."""
    n, o = g.shape[:2]
    return np.ascontiguousarray(g.transpose(1, 0, 2, 3)).reshape(groups, o // groups, n * g.shape[2] * g.shape[3])


def _direct_ok(c: int, o: int, ho: int, wo: int, stride, groups: int) -> bool:
    """Whether `_direct` serves this layer: stride 1, one group, 2 to 64 input channels and an output
    plane of at least 16x16 (measured: below that the flat rows are too short, above 64 channels BLAS
    wins, and a single channel, padded to the kernel's 4, does 4x the work of the GEMM's K = kh*kw)."""
    return groups == 1 and tuple(stride) == (1, 1) and 2 <= c <= 64 and o >= 1 and ho * wo >= 256


def _images_per_row(n: int, plane: int) -> int:
    """How many padded images of `plane` elements one flat row holds (see NOTE [ Direct convolution over flat
    rows ]): two 16x16 images a row cut each tap's loop overhead and weight loads by half (measured 12-15%
    faster); a 32x32 image is long enough alone."""
    return next((k for k in (4, 2) if n % k == 0 and k * plane <= 800), 1)


def _direct(x: np.ndarray, w: np.ndarray, padding, dilation, bias: np.ndarray | None = None) -> np.ndarray:
    """Stride-1 conv2d of `x (N, C, H, W)` with `w (O, C, kh, kw)` (plus `bias (O,)`) by `numba_nn.conv_rows`
    (see NOTE [ Direct convolution over flat rows ]); a contiguous `(N, O, Ho, Wo)` array."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    (ph, pw), (dh, dw) = padding, dilation
    hp, wp = h + 2 * ph, wd + 2 * pw
    ho, wo = hp - dh * (kh - 1), wp - dw * (kw - 1)
    cp, op = -(-c // 4) * 4, -(-o // 2) * 2  # the kernel takes 4 input and 2 output channels at a time
    k = _images_per_row(n, hp * wp)
    wz = np.zeros((op, cp, kh, kw), dtype=x.dtype)
    wz[:o, :c] = w
    out = np.empty((n // k, op, k * hp * wp), dtype=x.dtype)
    numba_nn.conv_rows()(_padded_rows(x, cp, padding, hp, wp, k), wz, out, wp, dh, dw,
                         (k - 1) * hp * wp + (ho - 1) * wp + wo)
    res = np.empty((n, o, ho, wo), dtype=x.dtype)
    src = out.reshape(n // k, op, k, hp, wp)[:, :o, :, :ho, :wo].transpose(0, 2, 1, 3, 4)
    if bias is not None:
        np.add(src, bias.reshape(o, 1, 1), out=res.reshape(n // k, k, o, ho, wo))
    else:
        np.copyto(res.reshape(n // k, k, o, ho, wo), src)
    return res


def _pointwise_ok(kh: int, kw: int, padding, groups: int) -> bool:
    """Whether `_pointwise` serves this layer: a 1x1 kernel, no padding, one group."""
    return kh == kw == 1 and tuple(padding) == (0, 0) and groups == 1


def _subsampled(x: np.ndarray, stride, ho: int, wo: int) -> np.ndarray:
    """The pixels a 1x1 kernel of this stride reads, `(N, C, Ho*Wo)`."""
    sh, sw = stride
    if (sh, sw, x.shape[2], x.shape[3]) == (1, 1, ho, wo):
        xs = x
    else:  # strided, or trailing rows/columns no output reads (a transposed conv's output_padding)
        xs = x[:, :, :(ho - 1) * sh + 1:sh, :(wo - 1) * sw + 1:sw]
    return np.ascontiguousarray(xs).reshape(x.shape[0], x.shape[1], ho * wo)


def _pointwise(x: np.ndarray, w: np.ndarray, stride, ho: int, wo: int) -> np.ndarray:
    """An unpadded 1x1 conv2d: `W @ x[b]` for every image at once (see NOTE [ Direct convolution over
    flat rows ])."""
    o = w.shape[0]
    return _matmul(w.reshape(o, -1), _subsampled(x, stride, ho, wo)).reshape(x.shape[0], o, ho, wo)


def _pointwise_input_grad(g: np.ndarray, w: np.ndarray, input_shape, stride) -> np.ndarray:
    """The input gradient of an unpadded 1x1 conv: `W^T @ g[b]`, scattered to every s-th pixel at a stride."""
    n, o, ho, wo = g.shape
    wt = w.reshape(o, -1).T
    gi = _matmul(wt, np.ascontiguousarray(g).reshape(n, o, ho * wo)).reshape(n, wt.shape[0], ho, wo)  # (n may be 0)
    if tuple(stride) == (1, 1) and tuple(input_shape[2:]) == (ho, wo):
        return gi
    sh, sw = stride
    res = np.zeros(tuple(input_shape), dtype=g.dtype)
    res[:, :, :(ho - 1) * sh + 1:sh, :(wo - 1) * sw + 1:sw] = gi
    return res


def _padded_rows(x: np.ndarray, cp: int, padding, rows: int, wp: int, k: int = 1) -> np.ndarray:
    """`x (N, C, H, W)` zero-padded to `cp` channels and a `(rows, wp)` plane (`padding` before), flattened
    to `(N/k, cp, k*rows*wp)`, k images a row: the flat rows of NOTE [ Direct convolution over flat rows ]."""
    n, c, h, wd = x.shape
    (ph, pw) = padding
    xp = np.zeros((n // k, cp, k, rows, wp), dtype=x.dtype)
    xp[:, :c, :, ph:ph + h, pw:pw + wd] = x.reshape(n // k, k, c, h, wd).transpose(0, 2, 1, 3, 4)
    return xp.reshape(n // k, cp, k * rows * wp)


def _direct_weight_grad(g: np.ndarray, x: np.ndarray, kh: int, kw: int, padding, dilation) -> np.ndarray:
    """The weight gradient `(O, C, kh, kw)` of a stride-1 conv by `numba_nn.conv_rows_weight`."""
    (n, c, h, wd), o = x.shape, g.shape[1]
    (ph, pw), (dh, dw) = padding, dilation
    hp, wp = h + 2 * ph, wd + 2 * pw
    ho, wo = hp - dh * (kh - 1), wp - dw * (kw - 1)
    cp, op = -(-c // 4) * 4, -(-o // 2) * 2
    k = _images_per_row(n, hp * wp)
    gw = np.zeros((op, cp, kh, kw), dtype=x.dtype)
    numba_nn.conv_rows_weight()(_padded_rows(x, cp, padding, hp, wp, k),
                                _padded_rows(g, op, (0, 0), hp if k > 1 else ho, wp, k), gw, wp, dh, dw,
                                (k - 1) * hp * wp + (ho - 1) * wp + wo)
    return gw[:o, :c]


def _direct_input_grad_ok(g_hw, input_shape, w_shape, stride, padding, dilation, groups) -> bool:
    """Whether the stride-1 input gradient runs as `_direct` of the padded gradient (the full gradient, and
    padding no larger than the dilated kernel's reach)."""
    kh, kw = w_shape[2:]
    return (_direct_ok(w_shape[0], input_shape[1], input_shape[2], input_shape[3], stride, groups)
            and w_shape[0] < _DIRECT_MAX_OUT
            and dilation[0] * (kh - 1) >= padding[0] and dilation[1] * (kw - 1) >= padding[1]
            and tuple(g_hw) == (input_shape[2] + 2 * padding[0] - dilation[0] * (kh - 1),
                                input_shape[3] + 2 * padding[1] - dilation[1] * (kw - 1)))


def _flipped_input_grad_ok(g_hw, input_shape, w_shape, stride, padding, dilation, groups) -> bool:
    """Whether a stride-1, one-group input gradient is the convolution of the full gradient padded by
    d*(k-1) - p with the flipped, channel-swapped weight (padding no larger than the dilated kernel's reach).
    Only with at least as many input channels as output ones: the GEMM's rows are the input channels, and
    64 rows against 128 (64->128 on 8x8) measured slower than the transposed GEMM and col2im. And only with
    more than 2*O gradient positions: the flipped weight is a C*O*kh*kw copy that the cheaper gather repays
    only on longer rows (measured: 128 channels on a batch of 8 4x4 planes, 0.78 against col2im's 0.67 ms)."""
    kh, kw = w_shape[2:]
    return (groups == 1 and tuple(stride) == (1, 1) and input_shape[1] >= w_shape[0]
            and input_shape[0] * g_hw[0] * g_hw[1] > 2 * w_shape[0]
            and dilation[0] * (kh - 1) >= padding[0]
            and dilation[1] * (kw - 1) >= padding[1]
            and tuple(g_hw) == (input_shape[2] + 2 * padding[0] - dilation[0] * (kh - 1),
                                input_shape[3] + 2 * padding[1] - dilation[1] * (kw - 1)))


def _direct_input_grad(g: np.ndarray, w: np.ndarray, padding, dilation) -> np.ndarray:
    """The input gradient of a stride-1 conv: `_direct` of g padded by d*(k-1) - p with the flipped,
    channel-swapped weight."""
    kh, kw = w.shape[2:]
    (ph, pw), (dh, dw) = padding, dilation
    return _direct(g, w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3), (dh * (kh - 1) - ph, dw * (kw - 1) - pw),
                   dilation)


def _winograd_input_grad_ok(g: np.ndarray, input_shape, w_shape, stride, padding, dilation, groups) -> bool:
    """Whether conv2d's input gradient runs by `winograd_conv` (see NOTE [ Winograd F(2x2, 3x3) convolution ]):
    a full stride-1 gradient of a 3x3 kernel with padding at most 2, the input planes its even output."""
    return (max(padding) <= 2 and tuple(g.shape[2:]) == (input_shape[2] + 2 * padding[0] - 2,
                                                        input_shape[3] + 2 * padding[1] - 2)
            and winograd_ok(g.dtype, g.shape[1], input_shape[1], *w_shape[2:], stride, dilation, groups,
                            *input_shape[2:]))


conv2d_op = declare("conv2d", doc="""2-D cross-correlation (PyTorch's conv2d), batched input only.

Positional signature: `conv2d(input, weight, bias, stride, padding, dilation, groups)` with
input `(N, C, H, W)`, weight `(O, C/groups, kh, kw)`, bias `(O,)` or None, and `stride`,
`padding`, `dilation` pairs of ints (symmetric padding), `groups` an int.
Backward: grad_input = `conv2d_backward_input(grad, weight, input.shape, stride, padding,
dilation, groups)`, grad_weight = `conv2d_backward_weight(grad, input, weight.shape, stride,
padding, dilation, groups)`, grad_bias = `grad.sum((0, 2, 3))`.""")


def _phase_geometry(hw, kh: int, kw: int, stride, padding, dilation) -> tuple:
    """The depthwise kernels' scratch layout (see NOTE [ Depthwise convolution over phase planes ]): each tap's
    start in it, where each input row starts, each column phase's (first column, offset, count), the phase
    row width and the scratch's size. Kept per geometry (its Python loops cost more than a small layer's
    kernel); the kernels only read the tables."""
    return _phase_geometry_of(tuple(hw), kh, kw, tuple(stride), tuple(padding), tuple(dilation))


@lru_cache(maxsize=256)
def _phase_geometry_of(hw, kh: int, kw: int, stride, padding, dilation) -> tuple:
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    hq, wq = -(-(hw[0] + 2 * ph) // sh), -(-(hw[1] + 2 * pw) // sw)
    p = hq * wq
    taps = [((i * dh % sh) * sw + j * dw % sw) * p + (i * dh // sh) * wq + j * dw // sw
            for i in range(kh) for j in range(kw)]
    rows = [((r + ph) % sh) * sw * p + ((r + ph) // sh) * wq for r in range(hw[0])]
    cph = [((rj - pw) % sw, rj * p + ((rj - pw) % sw + pw) // sw, max(0, -(-(hw[1] - (rj - pw) % sw) // sw)))
           for rj in range(sw)]
    return (np.array(taps, dtype=np.int64), np.array(rows, dtype=np.int64),
            np.array(cph, dtype=np.int64).reshape(sw, 3), wq, sh * sw * p)


# a depthwise call's multiply-adds from which its kernel runs on all threads (about 2 ms of one thread's work;
# see NOTE [ Depthwise convolution over phase planes ])
_DEPTHWISE_PARALLEL_MIN = 1 << 25


def _depthwise_run(kernel, work: int, *args) -> None:
    """`kernel(*args)`, on one thread when its `work` (multiply-adds) is below `_DEPTHWISE_PARALLEL_MIN`."""
    if work >= _DEPTHWISE_PARALLEL_MIN:
        kernel(*args)
        return
    import numba

    threads = numba.get_num_threads()
    if threads == 1:
        kernel(*args)
        return
    numba.set_num_threads(1)
    try:
        kernel(*args)
    finally:
        numba.set_num_threads(threads)


def _depthwise(x: np.ndarray, w: np.ndarray, stride, padding, dilation) -> np.ndarray:
    """A depthwise convolution (one input channel per group), by direct loops (see `numba_nn.depthwise_conv`)."""
    n, o, kh, kw = x.shape[0], w.shape[0], w.shape[2], w.shape[3]
    ho = _out_size(x.shape[2], kh, stride[0], padding[0], dilation[0])
    wo = _out_size(x.shape[3], kw, stride[1], padding[1], dilation[1])
    out = np.empty((n, o, ho, wo), dtype=x.dtype)
    _depthwise_run(numba_nn.depthwise_conv(), out.size * kh * kw, np.ascontiguousarray(x),
                   np.ascontiguousarray(w).reshape(o, kh * kw), out,
                   *_phase_geometry(x.shape[2:], kh, kw, stride, padding, dilation))
    return out


def _meta_geometry(op: str, n_c_hw, weight_shape, groups: int, stride, padding, dilation) -> tuple[int, int]:
    """Channels agree with the weight and groups, and the window fits the padded input; returns (Ho, Wo).
    Kept per geometry: a training step checks the same ones three times a layer (forward and both gradients)."""
    return _geometry_of(op, tuple(n_c_hw), tuple(weight_shape), groups, tuple(stride), tuple(padding),
                        tuple(dilation))


def _at_least(groups: int, weight_shape: list) -> str:
    return (f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight of size "
            f"{weight_shape} instead")


@lru_cache(maxsize=512)
def _geometry_of(op: str, n_c_hw, weight_shape, groups: int, stride, padding, dilation) -> tuple[int, int]:
    o, cg, kh, kw = weight_shape
    if o < groups:
        raise RuntimeError(_at_least(groups, list(weight_shape)))
    if groups < 1 or o % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight_shape)}] instead")
    if n_c_hw[1] != cg * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight_shape)}, expected input"
                           f"{list(n_c_hw)} to have {cg * groups} channels, but got {n_c_hw[1]} channels instead")
    _check_window_args(stride, padding, dilation)
    _check_sizes(op, tuple(n_c_hw[2:]), (kh, kw), padding, dilation)
    return (_out_size(n_c_hw[2], kh, stride[0], padding[0], dilation[0]),
            _out_size(n_c_hw[3], kw, stride[1], padding[1], dilation[1]))


def _meta_grad(op: str, grad: Tensor, n: int, o: int, ho: int, wo: int) -> None:
    """A gradient `(N, O, Ho', Wo')` with Ho' <= Ho, Wo' <= Wo (a transposed convolution's may be smaller)."""
    g = grad._shape
    if len(g) != 4 or g[0] != n or g[1] != o or g[2] > ho or g[3] > wo:
        raise RuntimeError(f"{op}: expected grad of shape [{n}, {o}, {ho}, {wo}] (at most, spatially); got "
                           f"{describe(grad)}")


@conv2d_op.meta
def _conv2d_meta(input, weight, bias, stride, padding, dilation, groups) -> None:
    if input.ndim != 4 or weight.ndim != 4:
        raise RuntimeError(f"conv2d: expected a batched 4-D input and a 4-D weight; got {describe(input)} and "
                           f"{describe(weight)}")
    _meta_geometry("conv2d", input._shape, weight._shape, groups, stride, padding, dilation)
    if bias is not None and (bias.ndim != 1 or bias._shape[0] != weight._shape[0]):
        raise RuntimeError(f"Given weight of size {list(weight._shape)}, expected bias to be 1-dimensional with "
                           f"{weight._shape[0]} elements, but got bias of size {list(bias._shape)} instead")


@conv2d_op.register("cpu")
def _conv2d_cpu(input, weight, bias, stride, padding, dilation, groups):
    x, w = numba_nn.kernel_array(input._np()), numba_nn.kernel_array(weight._np())
    o, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    if w.shape[1] == 1 and groups > 1:
        res = _depthwise(x, w, stride, padding, dilation)
        if bias is not None:
            res += bias._np().reshape(o, 1, 1)
        return wrap(res.astype(input._dtype.np, copy=False))
    ho = _out_size(x.shape[2], kh, stride[0], padding[0], dilation[0])
    wo = _out_size(x.shape[3], kw, stride[1], padding[1], dilation[1])
    if _pointwise_ok(kh, kw, padding, groups):
        out = _pointwise(x, w, stride, ho, wo)
        res = np.add(out, bias._np().reshape(o, 1, 1)) if bias is not None else out
        return wrap(res.astype(input._dtype.np, copy=False))
    if _direct_ok(x.shape[1], o, ho, wo, stride, groups) and o < _DIRECT_MAX_OUT:
        res = _direct(x, w, padding, dilation, None if bias is None else bias._np())
        return wrap(res.astype(input._dtype.np, copy=False))
    if winograd_ok(x.dtype, x.shape[1], o, kh, kw, stride, dilation, groups, ho, wo):
        res = winograd_conv(x, w, None if bias is None else bias._np(), padding, _over_images)
        return wrap(res.astype(input._dtype.np, copy=False))
    if _image_gemm_ok(ho, wo):
        res = _image_gemm_conv(x, w, None if bias is None else bias._np(), stride, padding, dilation, groups, ho,
                               wo)
        return wrap(res.astype(input._dtype.np, copy=False))
    res = _gemm_conv(x, w, None if bias is None else bias._np(), stride, padding, dilation, groups, ho, wo)
    return wrap(res.astype(input._dtype.np, copy=False))


def _gemm_conv(x: np.ndarray, w: np.ndarray, bias, stride, padding, dilation, groups: int, ho: int,
               wo: int) -> np.ndarray:
    """conv2d by im2col and one GEMM per group and batch chunk (see NOTE [ Convolution as one GEMM ])."""
    n, o, kh, kw = x.shape[0], w.shape[0], w.shape[2], w.shape[3]
    k = w.shape[1] * kh * kw
    wg = w.reshape(groups, o // groups, k)
    res = np.empty((n, o, ho, wo), dtype=x.dtype)
    for sl in _chunks(n, groups * k * ho * wo * x.itemsize):
        nb = len(range(n)[sl])
        cols = _unfold(x[sl], kh, kw, stride, padding, dilation)
        out = _gemm(wg, cols.reshape(groups, k, nb * ho * wo)).reshape(o, nb, ho, wo).transpose(1, 0, 2, 3)
        if bias is not None:
            np.add(out, bias.reshape(o, 1, 1), out=res[sl])
        else:
            np.copyto(res[sl], out)
    return res


conv2d_backward_input = declare("conv2d_backward_input", doc="""The gradient of conv2d with respect to its input.

Positional signature: `conv2d_backward_input(grad, weight, input_shape, stride, padding,
dilation, groups)` with grad `(N, O, Ho, Wo)` -> grad_input of `input_shape` `(N, C, H, W)`.
It is also the forward of `conv_transpose2d`. Its backward: grad wrt grad is
`conv2d(gg, weight, None, stride, padding, dilation, groups)`, grad wrt weight is
`conv2d_backward_weight(grad, gg, weight.shape, stride, padding, dilation, groups)`.""")


@conv2d_backward_input.meta
def _conv2d_backward_input_meta(grad, weight, input_shape, stride, padding, dilation, groups) -> None:
    if weight.ndim != 4 or len(input_shape) != 4:
        raise RuntimeError(f"conv2d_backward_input: expected a 4-D weight and input shape; got {describe(weight)} "
                           f"and {list(input_shape)}")
    ho, wo = _meta_geometry("conv2d_backward_input", input_shape, weight._shape, groups, stride, padding, dilation)
    _meta_grad("conv2d_backward_input", grad, input_shape[0], weight._shape[0], ho, wo)


@conv2d_backward_input.register("cpu")
def _conv2d_backward_input_cpu(grad, weight, input_shape, stride, padding, dilation, groups):
    g, w = numba_nn.kernel_array(grad._np()), numba_nn.kernel_array(weight._np())
    n, o, ho, wo = g.shape
    cg, kh, kw = w.shape[1:]
    if cg == 1 and groups > 1:
        out = np.empty(tuple(input_shape), dtype=g.dtype)
        _depthwise_run(numba_nn.depthwise_conv_backward_input(), g.size * kh * kw, np.ascontiguousarray(g),
                       np.ascontiguousarray(w).reshape(o, kh * kw), out,
                       *_phase_geometry(input_shape[2:], kh, kw, stride, padding, dilation))
        return wrap(out.astype(grad._dtype.np, copy=False))
    if _pointwise_ok(kh, kw, padding, groups):
        return wrap(_pointwise_input_grad(g, w, input_shape, stride).astype(grad._dtype.np, copy=False))
    if _direct_input_grad_ok(g.shape[2:], input_shape, w.shape, stride, padding, dilation, groups):
        return wrap(np.ascontiguousarray(_direct_input_grad(g, w, padding, dilation), dtype=grad._dtype.np))
    if _winograd_input_grad_ok(g, input_shape, w.shape, stride, padding, dilation, groups):
        # the convolution of the gradient padded by 2 - p with the flipped, channel-swapped weight
        wf = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
        res = winograd_conv(g, wf, None, (2 - padding[0], 2 - padding[1]), _over_images)
        return wrap(res.astype(grad._dtype.np, copy=False))
    if _image_gemm_ok(ho, wo):
        res = _image_gemm_input_grad(g, w, input_shape, stride, padding, dilation, groups)
        return wrap(res.astype(grad._dtype.np, copy=False))
    if _flipped_input_grad_ok(g.shape[2:], input_shape, w.shape, stride, padding, dilation, groups):
        # a forward convolution of the padded gradient: im2col's gather instead of col2im's scatter-add
        pad = (dilation[0] * (kh - 1) - padding[0], dilation[1] * (kw - 1) - padding[1])
        wf = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
        res = _gemm_conv(g, wf, None, (1, 1), pad, dilation, 1, *input_shape[2:])
        return wrap(res.astype(grad._dtype.np, copy=False))
    wt = w.reshape(groups, o // groups, cg * kh * kw).transpose(0, 2, 1)
    res = np.empty(tuple(input_shape), dtype=g.dtype)
    for sl in _chunks(n, groups * cg * kh * kw * ho * wo * g.itemsize):
        nb = len(range(n)[sl])
        cols = _gemm(wt, _channels_first(g[sl], groups)).reshape(groups * cg, kh, kw, nb, ho, wo)
        _fold(cols, res[sl], stride, padding, dilation)
    return wrap(res.astype(grad._dtype.np, copy=False))


conv2d_backward_weight = declare("conv2d_backward_weight", doc="""The gradient of conv2d with respect to its weight.

Positional signature: `conv2d_backward_weight(grad, input, weight_shape, stride, padding,
dilation, groups)` with grad `(N, O, Ho, Wo)`, input `(N, C, H, W)` -> grad_weight of
`weight_shape` `(O, C/groups, kh, kw)`. Bilinear in (grad, input): its backward is
grad wrt grad = `conv2d(input, gw, None, ...)`, grad wrt input =
`conv2d_backward_input(grad, gw, input.shape, ...)` with gw the incoming gradient.""")


@conv2d_backward_weight.meta
def _conv2d_backward_weight_meta(grad, input, weight_shape, stride, padding, dilation, groups) -> None:
    if input.ndim != 4 or len(weight_shape) != 4:
        raise RuntimeError(f"conv2d_backward_weight: expected a 4-D input and weight shape; got {describe(input)} "
                           f"and {list(weight_shape)}")
    ho, wo = _meta_geometry("conv2d_backward_weight", input._shape, weight_shape, groups, stride, padding, dilation)
    _meta_grad("conv2d_backward_weight", grad, input._shape[0], weight_shape[0], ho, wo)


@conv2d_backward_weight.register("cpu")
def _conv2d_backward_weight_cpu(grad, input, weight_shape, stride, padding, dilation, groups):
    g, x = numba_nn.kernel_array(grad._np()), numba_nn.kernel_array(input._np())
    o, cg, kh, kw = weight_shape
    n, _, ho, wo = g.shape
    if cg == 1 and groups > 1:
        out = np.empty((o, kh * kw), dtype=g.dtype)
        _depthwise_run(numba_nn.depthwise_conv_backward_weight(), g.size * kh * kw, np.ascontiguousarray(g),
                       np.ascontiguousarray(x), out, *_phase_geometry(x.shape[2:], kh, kw, stride, padding, dilation))
        return wrap(out.reshape(o, 1, kh, kw).astype(grad._dtype.np, copy=False))
    if _pointwise_ok(kh, kw, padding, groups):
        gw = _matmul(np.ascontiguousarray(g).reshape(n, o, ho * wo),
                     _subsampled(x, stride, ho, wo).transpose(0, 2, 1))
        return wrap(gw.sum(0).reshape(weight_shape).astype(grad._dtype.np, copy=False))
    full = tuple(_out_size(x.shape[2 + a], (kh, kw)[a], 1, padding[a], dilation[a]) for a in (0, 1))
    if _direct_ok(cg, o, ho, wo, stride, groups) and o < _DIRECT_MAX_OUT and (ho, wo) == full:
        gw = _direct_weight_grad(g, x, kh, kw, padding, dilation)
        return wrap(np.ascontiguousarray(gw, dtype=grad._dtype.np))
    if _image_gemm_ok(ho, wo):
        gw = _image_gemm_weight_grad(g, x, weight_shape, stride, padding, dilation, groups)
        return wrap(gw.astype(grad._dtype.np, copy=False))
    k = cg * kh * kw
    gw = None
    for sl in _chunks(n, groups * k * ho * wo * g.itemsize):
        nb = len(range(n)[sl])
        cols = _unfold(x[sl], kh, kw, stride, padding, dilation)
        if cols.shape[4:] != (ho, wo):
            cols = np.ascontiguousarray(cols[..., :ho, :wo])
        cols = cols.reshape(groups, k, nb * ho * wo)
        gq = _channels_first(g[sl], groups)
        if nb * ho * wo <= k:  # grad @ cols^T: a short reduction, and the result needs no transposing copy
            part = _gemm(gq, cols.transpose(0, 2, 1))
        else:  # cols @ grad^T, transposed once at the end: BLAS is faster with the long K x L operand first
            part = _gemm(cols, gq.transpose(0, 2, 1)).transpose(0, 2, 1)
        gw = part if gw is None else gw + part
    return wrap(np.ascontiguousarray(gw.reshape(o, cg, kh, kw), dtype=grad._dtype.np))


conv_transpose2d_op = declare("conv_transpose2d", doc="""2-D transposed convolution (PyTorch's conv_transpose2d).

Positional signature: `conv_transpose2d(input, weight, bias, stride, padding, output_padding,
groups, dilation)` with input `(N, C, H, W)`, weight `(C, O/groups, kh, kw)`, bias `(O,)` or None,
pairs of ints for stride/padding/output_padding/dilation. The result is conv2d's input gradient
for an input of the output's shape. Backward: grad_input = `conv2d(grad, weight, None, stride,
padding, dilation, groups)` narrowed to the input's (H, W) (larger only when output_padding >=
stride), grad_weight = `conv2d_backward_weight(input, grad, weight.shape,
stride, padding, dilation, groups)`, grad_bias = `grad.sum((0, 2, 3))`.""")


def _transpose_out_shape(x_shape, w_shape, stride, padding, output_padding, dilation, groups):
    return (x_shape[0], w_shape[1] * groups, *((n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, k, s, p, op, d in
                                               zip(x_shape[2:], w_shape[2:], stride, padding, output_padding,
                                                   dilation)))


def _check_transpose_params(stride, padding, output_padding, dilation) -> None:
    """PyTorch's rules on a transposed convolution's parameters (ints per spatial dim, depth first), in its
    order; a negative dilation fails a check before the one that names them."""
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(output_padding) < 0:
        raise RuntimeError("negative output_padding is not supported")
    if min(stride) < 1:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) < 0:
        raise RuntimeError("dilation should be greater than zero")
    if min(dilation) < 1:
        dilation = (1, *dilation) if len(dilation) == 1 else dilation  # PyTorch runs a 1-d one as 2-d
        names = ("depth", "height", "width")[3 - len(dilation):]
        got = ", ".join(f"dilation_{n}: {d}" for n, d in zip(names, dilation))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")


@conv_transpose2d_op.meta
def _conv_transpose2d_meta(input, weight, bias, stride, padding, output_padding, groups, dilation) -> None:
    """The kernel is conv2d's input gradient: its parameters, channels, bias and output size must hold."""
    if input.ndim != 4 or weight.ndim != 4:
        raise RuntimeError(f"conv_transpose2d: expected a batched 4-D input and a 4-D weight; got {describe(input)} "
                           f"and {describe(weight)}")
    _check_transpose_params(stride, padding, output_padding, dilation)
    c, og = weight._shape[:2]
    if c < groups:
        raise RuntimeError(_at_least(groups, list(weight._shape)))
    if groups < 1 or c % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight._shape)}] instead")
    if input._shape[1] != c:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight._shape)}, expected input"
                           f"{list(input._shape)} to have {c} channels, but got {input._shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias._shape[0] != og * groups):
        raise RuntimeError(f"Given weight of size {list(weight._shape)}, expected bias to be 1-dimensional with "
                           f"{og * groups} elements, but got bias of size {list(bias._shape)} instead")
    shape = _transpose_out_shape(input._shape, weight._shape, stride, padding, output_padding, dilation, groups)
    if min(shape[2:]) < 0:  # (a 0-size output is empty, as in PyTorch)
        raise RuntimeError(f"conv_transpose2d: the output size {list(shape)} is too small; got {describe(input)} "
                           f"and {describe(weight)}")


@conv_transpose2d_op.register("any")
def _conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation):
    """conv2d's input gradient of `input`, plus the bias: one composite for every device."""
    shape = _transpose_out_shape(input._shape, weight._shape, stride, padding, output_padding, dilation, groups)
    dt = input._dtype
    if bias is not None and dt in (dtypes.bfloat16, dtypes.float16):
        # PyTorch's 16-bit kernel adds the bias to the float32 sums and rounds once (not the rounded sums)
        f32 = dtypes.float32
        out = conv2d_backward_input(to_dtype(input, f32), to_dtype(weight, f32), shape, stride, padding, dilation,
                                    groups)
        add(out, to_dtype(bias, f32).view(1, -1, 1, 1), out=out)
        return to_dtype(out, dt)
    out = conv2d_backward_input(input, weight, shape, stride, padding, dilation, groups)
    if bias is not None:
        add(out, bias.view(1, -1, 1, 1), out=out)
    return out


im2col = declare("im2col", doc="""Sliding blocks of a batched input as columns (PyTorch's im2col, F.unfold).

Positional signature: `im2col(input, kernel_size, dilation, padding, stride)`, input `(N, C, H, W)`,
pairs of ints -> `(N, C*kh*kw, L)` with L the number of block positions. Linear; its backward is
`col2im(grad, (H, W), kernel_size, dilation, padding, stride)`.""")


_BLOCK_CHECKS = {  # ATen's im2col and col2im shape checks, each in its own order
    "kernel": lambda v: (min(v) > 0, f"kernel size should be greater than zero, but got kernel_height: {v[0]} "
                                     f"kernel_width: {v[1]}"),
    "dilation": lambda v: (min(v) > 0, f"dilation should be greater than zero, but got dilation_height: {v[0]} "
                                       f"dilation_width: {v[1]}"),
    "padding": lambda v: (min(v) >= 0, f"padding should be non-negative, but got pad_height: {v[0]} "
                                       f"pad_width: {v[1]}"),
    "stride": lambda v: (min(v) > 0, f"stride should be greater than zero, but got stride_height: {v[0]} "
                                     f"stride_width: {v[1]}")}
_BLOCK_ORDER = {"unfold": ("kernel", "dilation", "padding", "stride"),
                "fold": ("kernel", "stride", "dilation", "padding")}


def _check_blocks(op: str, kernel_size, dilation, padding, stride) -> None:
    values = {"kernel": kernel_size, "dilation": dilation, "padding": padding, "stride": stride}
    for name in _BLOCK_ORDER[op]:
        ok, message = _BLOCK_CHECKS[name](tuple(values[name]))
        if not ok:
            raise RuntimeError(message)


def _check_unfold_blocks(hw, k, padding, dilation, stride) -> None:
    """ATen's im2col: at least one block position along each spatial dim (a floor division, as its div_rtn)."""
    blocks = tuple((n + 2 * p - (d * (kk - 1) + 1)) // st + 1
                   for n, kk, p, d, st in zip(hw, k, padding, dilation, stride))
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(hw)}, kernel_size={tuple(k)}, "
                           f"dilation={tuple(dilation)}, padding={tuple(padding)}, calculated shape of the array of "
                           f"sliding blocks as {blocks}, but its components must be at least one.")


@im2col.meta
def _im2col_meta(input, kernel_size, dilation, padding, stride) -> None:
    """A batched input and a window that fits it once padded (the kernels walk every block position)."""
    if input.ndim != 4:
        raise RuntimeError(f"Input Error: Only 4D input Tensors are supported (got {describe(input)})")
    _check_blocks("unfold", kernel_size, dilation, padding, stride)
    _check_unfold_blocks(tuple(input._shape[2:]), kernel_size, padding, dilation, stride)


def _refuse_integer_blocks(kernel: str, input: Tensor) -> None:
    """ATen's CPU im2col/col2im dispatch on floating, complex and bool dtypes only (after the shape checks)."""
    if input._dtype.is_floating_point or input._dtype.is_complex or input._dtype is dtypes.bool:
        return
    from ember.core.ops.elementwise import DtypeNotSupported

    raise DtypeNotSupported(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[input._dtype.name]}'")


@im2col.register("cpu")
def _im2col_cpu(input, kernel_size, dilation, padding, stride):
    _refuse_integer_blocks("im2col_out_cpu", input)
    x = numba_nn.kernel_array(input._np())
    n, c = x.shape[:2]
    cols = _unfold(x, *kernel_size, stride, padding, dilation)
    out = cols.reshape(c * kernel_size[0] * kernel_size[1], n, cols.shape[4] * cols.shape[5]).transpose(1, 0, 2)
    return wrap(np.ascontiguousarray(out, dtype=input._dtype.np))


col2im = declare("col2im", doc="""Sum columns of sliding blocks back into an image (PyTorch's col2im, F.fold).

Positional signature: `col2im(input, output_size, kernel_size, dilation, padding, stride)`, input
`(N, C*kh*kw, L)` -> `(N, C, H, W)` with `(H, W) = output_size`; overlapping blocks add up. Linear;
its backward is `im2col(grad, kernel_size, dilation, padding, stride)`.""")


@col2im.meta
def _col2im_meta(input, output_size, kernel_size, dilation, padding, stride) -> None:
    """The columns are `(N, C * kh * kw, L)` with L exactly the block positions of `output_size`."""
    if input.ndim != 3:
        raise RuntimeError(f"Input Error: Only batched (3D) input Tensors are supported (got {describe(input)})")
    k, d, p, st = kernel_size, dilation, padding, stride
    _check_blocks("fold", k, d, p, st)
    if input._shape[1] % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={input._shape[1]} and kernel_size={tuple(k)}.")
    blocks = [_out_size(n, kk, ss, pp, dd) for n, kk, ss, pp, dd in zip(output_size, k, st, p, d)]
    if input._shape[2] != blocks[0] * blocks[1] or min(blocks) < 1:
        raise RuntimeError(f"Given output_size={tuple(output_size)}, kernel_size={tuple(k)}, dilation={tuple(d)}, "
                           f"padding={tuple(p)}, stride={tuple(st)}, expected size of input's dimension 2 to match "
                           f"the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={input._shape[2]}.")


@col2im.register("cpu")
def _col2im_cpu(input, output_size, kernel_size, dilation, padding, stride):
    _refuse_integer_blocks("col2im_out_cpu", input)
    x = numba_nn.kernel_array(input._np())
    (kh, kw), (h, w) = kernel_size, output_size
    n, ck = x.shape[:2]
    ho, wo = (_out_size(h, kh, stride[0], padding[0], dilation[0]), _out_size(w, kw, stride[1], padding[1],
                                                                               dilation[1]))
    cols = x.transpose(1, 0, 2).reshape(ck // (kh * kw), kh, kw, n, ho, wo)
    out = np.empty((n, ck // (kh * kw), h, w), dtype=x.dtype)
    _fold(cols, out, stride, padding, dilation)
    return wrap(out.astype(input._dtype.np, copy=False))


# --- validation and the public functions ------------------------------------------------
def _weight_rank_error(input: Tensor, weight: Tensor, nd: int, stride, padding, dilation) -> RuntimeError:
    """PyTorch's error for a weight of the wrong rank: ATen takes the convolution's dims from the weight, so an
    argument list of another length, else the input's rank, is what it reports."""
    k = weight.ndim
    if k < 3:
        return RuntimeError("weight should have at least three dimensions")
    shape = list(input.shape) if input.ndim == nd + 2 else [1, *input.shape]
    space = " "
    if not isinstance(padding, str):
        for name, v in (("stride", stride), ("padding", padding), ("dilation", dilation)):
            vals = [v] * nd if isinstance(v, int) else list(v)
            if len(vals) not in (1, k - 2):
                return RuntimeError(f"expected {name} to be a single integer value or a list of {k - 2} values to "
                                    f"match the convolution dimensions, but got {name}={vals}")
    else:
        space = ""  # the string-padding path words it without the space
    return RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight{space}{list(weight.shape)}, "
                        f"but got {len(shape)}-dimensional input of size {shape} instead")


def _check(op: str, input: Tensor, weight: Tensor, bias, groups: int, nd: int, transposed: bool,
           params: tuple | None = None) -> None:
    """The operands' checks in PyTorch's order; `params` (stride, padding, dilation) words a misranked weight's
    error and refuses a strided padding='same' before the channels are checked."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"{op}: expected input and weight to be tensors; got {describe(input)} and "
                        f"{describe(weight)}")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {op}, but got "
                           f"input of size: {list(input.shape)}")
    if weight.ndim != nd + 2:
        if params is not None:
            raise _weight_rank_error(input, weight, nd, *params)
        raise RuntimeError(f"{op}: expected weight to be {nd + 2}-dimensional; got {describe(weight)}")
    if params is not None and isinstance(params[1], str) and params[1] == "same":
        stride = params[0]
        if any(s != 1 for s in ((stride,) if isinstance(stride, int) else stride)):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
    if input.device != weight.device:
        raise RuntimeError(f"{op}: expected input and weight on the same device; got {describe(input)} and "
                           f"{describe(weight)}")
    if groups < 1:
        raise RuntimeError("non-positive groups is not supported")
    ws = list(weight.shape)
    shape = list(input.shape) if input.ndim == nd + 2 else [1, *input.shape]
    if params is not None and isinstance(params[1], str) and params[1] == "same":
        shape = _same_padded_shape(shape, ws, params[2], nd)
    if ws[0] < groups:  # PyTorch checks the weight against groups first
        raise RuntimeError(_at_least(groups, ws))
    if transposed:
        if shape[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{shape} to have {ws[0]} "
                               f"channels, but got {shape[1]} channels instead")
        if ws[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                               f"dimension 0, but got weight of size [{ws}] instead")
        out_ch = ws[1] * groups
    else:
        if ws[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                               f"dimension 0, but got weight of size [{ws}] instead")
        if shape[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{shape} to have "
                               f"{ws[1] * groups} channels, but got {shape[1]} channels instead")
        out_ch = ws[0]
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_ch):
        raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with {out_ch} "
                           f"elements, but got bias of size {list(bias.shape)} instead")
    if transposed:
        _check_dtypes(op, input, weight, bias, nd, groups=groups)


@named_as("RuntimeError")
class ConvDtypeError(RuntimeError, TypeError):
    """Input, weight or bias of two dtypes: PyTorch's RuntimeError, a TypeError by ember's rule."""


# the C++ type names PyTorch's "Input type (...) and bias type (...)" message spells
_C_TYPES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
            "int64": "long int", "uint16": "short unsigned int", "uint32": "unsigned int",
            "uint64": "long unsigned int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
            "float64": "double", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
_CPP_ONLY_TYPES = {"bfloat16": "BFloat16", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
_INT_KERNELS = frozenset(("uint8", "int8", "int16", "int32", "int64"))  # PyTorch's CPU conv; int64 alone dilated


def _integral(t: Tensor) -> bool:
    return not (t._dtype.is_floating_point or t._dtype.is_complex)


def _check_dtypes(op: str, input: Tensor, weight: Tensor, bias, nd: int, dilation=None, strided: bool = False,
                  groups: int = 1) -> None:
    """PyTorch's dtype rules in its order, after the shape checks (see NOTE [ Integer convolution ]);
    `dilation` is None for a transposed convolution, `strided` says a stride or dilation is not 1."""
    x = input._dtype
    names = dtypes.TORCH_NAMES
    computes = not _integral(input) or not input.numel() or x.name == "int64"
    if dilation is None:
        if not computes:
            raise NotImplementedError(f"\"slow_conv_transpose{3 if nd == 3 else 2}d_out_cpu\" not implemented for "
                                      f"'{names[x.name]}'")
        if weight._dtype is not x:
            _refuse_weight_dtype(input, weight, _onednn(input, weight, strided, groups))
        if bias is not None and bias._dtype is not x:
            if nd == 3:
                raise ConvDtypeError(f"expected scalar type {names[x.name]} but found {names[bias._dtype.name]}")
            to = dtypes.promote_types(x, bias._dtype)
            if not dtypes.can_cast(to, x):  # 1-D/2-D add the bias in place: any dtype that casts to the output's
                raise ConvDtypeError(f"result type {names[to.name]} can't be cast to the desired output type "
                                     f"{names[x.name]}")
        return
    if bias is not None and bias._dtype is not x:
        raise ConvDtypeError(f"Input type ({_C_TYPES.get(x.name, x.name)}) and bias type "
                             f"({_C_TYPES.get(bias._dtype.name, bias._dtype.name)}) should be the same")
    if not computes:
        dilated = any(d != 1 for d in dilation)
        if x.name not in _INT_KERNELS or dilated:
            kernel = "slow_conv_dilated<>" if dilated else "compute_columns3d" if nd == 3 else "slow_conv2d_cpu"
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{names[x.name]}'")
    if weight._dtype is not x:
        _refuse_weight_dtype(input, weight, _onednn(input, weight, strided, groups))


def _onednn(input: Tensor, weight: Tensor, strided: bool, groups: int) -> bool:
    """PyTorch's `use_mkldnn` choice for a float32 CPU convolution (Convolution.cpp), as 4-D shapes (a 1-D
    convolution as (N, C, 1, L), an unbatched input with N = 1): grouped, a kernel over 3x3, a batch, or an input
    over 20480 elements; a 1x1 kernel only when strided, dilated, N >= 16 or multi-threaded."""
    from ember.core.parallel import get_num_threads

    if input._dtype is not dtypes.float32 or input.device.type != "cpu":
        return False
    shape = list(input.shape) if input.ndim == weight.ndim else [1, *input.shape]
    if weight.ndim == 3:
        shape.insert(2, 1)
    kh, kw = (1, *weight.shape[2:])[-2:]
    n = shape[0]
    if kh == kw == 1 and not (strided or n >= 16 or get_num_threads() > 1):
        return False
    return groups > 1 or (kh > 3 and kw > 3) or n > 1 or int(np.prod(shape[:4])) > 20480


def _refuse_weight_dtype(input: Tensor, weight: Tensor, onednn: bool) -> None:
    """A weight of another dtype than the input, in PyTorch's words: a bfloat16 CPU input goes to oneDNN (on the
    AVX-512 CPUs PyTorch's stored outputs come from), as a float32 one where `_onednn` says so, and oneDNN's check
    names the legacy tensor types."""
    names = dtypes.TORCH_NAMES
    if (input._dtype is dtypes.bfloat16 and input.device.type == "cpu") or onednn:
        from ember.core.ops.layout import type as _type_name

        def legacy(t: Tensor) -> str:  # PyTorch maps only the legacy tensor types to their Python names
            cpp = _CPP_ONLY_TYPES.get(t._dtype.name)
            return f"CPU{cpp}Type" if cpp else _type_name(t)

        raise ConvDtypeError(f"Input type ({legacy(input)}) and weight type ({legacy(weight)}) should be the "
                             f"same or input should be a MKLDNN tensor and weight is a dense tensor")
    raise ConvDtypeError(f"expected scalar type {names[input._dtype.name]} but found {names[weight._dtype.name]}")


def _integer_conv(op: str, input: Tensor, weight: Tensor, bias, stride, padding, dilation, groups: int,
                  output_padding=None) -> Tensor:
    """An integer (or empty) convolution, transposed when `output_padding` is given, in int64 numpy with
    PyTorch's wrap-around in the input's dtype (see NOTE [ Integer convolution ])."""
    if input.device.type != "cpu":
        raise NotImplementedError(f"{op}: no {input.device.type.upper()} kernel for {input._dtype.name} input "
                                  f"(PyTorch computes integer convolutions on the CPU only)")
    nd = weight.ndim - 2
    x = input._np().astype(np.int64) if input.numel() else None
    w = weight._np().astype(np.int64)
    n, c, sp = input._shape[0], input._shape[1], input._shape[2:]
    k = w.shape[2:]
    taps = list(np.ndindex(*k))
    if output_padding is None:
        o = w.shape[0]
        osp = tuple(_out_size(sp[i], k[i], stride[i], padding[i], dilation[i]) for i in range(nd))
        res = np.zeros((n, groups, o // groups) + osp, dtype=np.int64)
        if x is not None and res.size:
            xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
            xg = xp.reshape(n, groups, c // groups, 1, *xp.shape[2:])
            cols = np.stack([xg[(..., *(slice(t[i] * dilation[i], t[i] * dilation[i] + stride[i] * (osp[i] - 1) + 1,
                                                stride[i]) for i in range(nd)))] for t in taps], 3)
            cols = cols.reshape(n, groups, (c // groups) * len(taps), -1)  # (N, G, C/G * taps, L)
            wg = w.reshape(groups, o // groups, (c // groups) * len(taps))
            res = np.matmul(wg, cols).reshape(res.shape)
    else:
        og = w.shape[1]
        o = og * groups
        osp = _transpose_out_shape(input._shape, w.shape, stride, padding, output_padding, dilation, groups)[2:]
        full = tuple(max((sp[i] - 1) * stride[i] + dilation[i] * (k[i] - 1) + 1, padding[i] + osp[i])
                     for i in range(nd))
        buf = np.zeros((n, groups, og) + full, dtype=np.int64)
        if x is not None:
            xg = x.reshape(n, groups, c // groups, -1)
            wg = w.reshape(groups, c // groups, og, len(taps))
            for j, t in enumerate(taps):  # each tap's (N, G, O/G, *in) products land on a strided grid
                part = np.matmul(wg[..., j].transpose(0, 2, 1), xg).reshape(n, groups, og, *sp)
                buf[(..., *(slice(t[i] * dilation[i], t[i] * dilation[i] + stride[i] * (sp[i] - 1) + 1, stride[i])
                            for i in range(nd)))] += part
        res = buf[(..., *(slice(padding[i], padding[i] + osp[i]) for i in range(nd)))]
    res = res.reshape(n, o, *osp)
    if bias is not None:
        res = res + bias._np().astype(np.int64).reshape(o, *(1,) * nd)
    return wrap(np.ascontiguousarray(res.astype(input._dtype.np)))


def _check_window_args(stride, padding, dilation) -> None:
    """PyTorch's checks of a convolution's arguments, in its order and words (a zero dilation lists them all, a
    1-d convolution's after the unit height PyTorch runs it with)."""
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(stride) < 1:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) < 0:
        raise RuntimeError("dilation should be greater than zero")
    if min(dilation) < 1:
        got = [1, *dilation] if len(dilation) == 1 else list(dilation)
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")


def _check_sizes(op: str, hw, k, padding, dilation) -> None:
    if all(n + 2 * p >= d * (kk - 1) + 1 for n, kk, p, d in zip(hw, k, padding, dilation)):
        return
    padded = [n + 2 * p for n, p in zip(hw, padding)]
    eff = [d * (kk - 1) + 1 for kk, d in zip(k, dilation)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                           f"Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than "
                           f"actual input size")


def _same_padded_shape(shape: list[int], ws: list[int], dilation, nd: int) -> list[int]:
    """The input's shape after padding='same' adds its extra trailing row/col (odd total padding): PyTorch pads
    before it checks the channels, so its messages name this shape."""
    dil = (dilation,) * nd if isinstance(dilation, int) else tuple(dilation) * (nd if len(dilation) == 1 else 1)
    return shape[:2] + [n + (d * (kk - 1)) % 2 for n, kk, d in zip(shape[2:], ws[2:], dil)]


def _same_padding(op: str, input: Tensor, k, stride, dilation):
    """PyTorch's padding='same': symmetric pads, plus one extra row/col at the end when odd."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (kk - 1) for kk, d in zip(k, dilation)]
    sym = tuple(t // 2 for t in total)
    extra = [t - 2 * s for t, s in zip(total, sym)]
    if any(extra):
        from ember.core.ops.padding import pad

        warn_once(internally("Using padding='same' with even kernel lengths and odd dilation may require a "
                             "zero-padded copy of the input be created", "aten/src/ATen/native/Convolution.cpp:1101"))
        flat: list[int] = []
        for e in reversed(extra):
            flat += [0, e]
        input = pad(input, tuple(flat))
    return input, sym


def _keeps_channels_last_3d(input, weight, stride, dilation, groups) -> bool:
    """Whether PyTorch's CPU 3-D convolution of this batched call takes its mkldnn path, the one that answers
    channels_last_3d for a channels_last_3d operand (ConvParams::use_mkldnn); its slow path and unbatched calls
    answer row-major. Only float32 and bfloat16 go to mkldnn."""
    from ember.core.parallel import get_num_threads

    n, c, d, h = input.shape[:4]
    kh, kw = weight.shape[-2:]
    return (input._dtype in (dtypes.float32, dtypes.bfloat16)
            and (any(v != 1 for v in stride) or any(v != 1 for v in dilation) or n >= 16 or kw != 1 or kh != 1
                 or get_num_threads() > 1)
            and (groups > 1 or (kw > 3 and kh > 3) or n > 1 or n * c * d * h > 20480))


def _conv_nd(op: str, nd: int, input, weight, bias, stride, padding, dilation, groups) -> Tensor:
    _check(op, input, weight, bias, groups, nd, False, (stride, padding, dilation))
    stride = _ntuple(stride, nd, "stride", op)
    dilation = _ntuple(dilation, nd, "dilation", op)
    k = tuple(weight.shape[2:])
    batched = input.ndim == nd + 2
    if not batched:
        input = unsqueeze(input, 0)
    pad_arg = padding
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nd
        elif padding == "same":
            input, padding = _same_padding(op, input, k, stride, dilation)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _ntuple(padding, nd, "padding", op)
    # PyTorch runs conv1d with a padding string as a 2-D convolution: its dilation message lists (1, d)
    _check_window_args(stride, padding, (1, *dilation) if nd == 1 and isinstance(pad_arg, str) else dilation)
    _check_sizes(op, tuple(input.shape[2:]), k, padding, dilation)
    _check_dtypes(op, input, weight, bias, nd, dilation, any(v != 1 for v in (*stride, *dilation)), groups)
    if _integral(input):
        out = _integer_conv(op, input, weight, bias, stride, padding, dilation, groups)
    elif nd == 1:
        out = conv2d_op(unsqueeze(input, 2), unsqueeze(weight, 2), bias, (1, *stride), (0, *padding),
                        (1, *dilation), groups)
        out = node_name(squeeze(out, 2), "SqueezeBackward1", "ConvolutionBackward0")  # PyTorch's one node
    elif nd == 3:
        out = _conv3d_by_depth_taps(input, weight, bias, stride, padding, dilation, groups)
        if out.grad_fn is not None:
            out = node_name(out, type(out.grad_fn).__name__, "ConvolutionBackward0")
        if batched and _keeps_channels_last_3d(input, weight, stride, dilation, groups):
            out = channels_last_as(out, input, weight)
    else:
        out = conv2d_op(input, weight, bias, stride, padding, dilation, groups)
        out = channels_last_as(out, input, weight)
    return out if batched else squeeze(out, 0)


def _conv3d_by_depth_taps(input, weight, bias, stride, padding, dilation, groups) -> Tensor:
    """conv3d as one conv2d over the stacked depth taps (see NOTE [ 3-D convolution through the 2-D op ])."""
    from ember.core.ops.join import stack
    from ember.core.ops.layout import permute, reshape
    from ember.core.ops.padding import pad
    from ember.core.ops.shape import slice as slice_

    n, c, d, h, w = input.shape
    o, cg, kd, kh, kw = weight.shape
    (sd, pd, dd) = stride[0], padding[0], dilation[0]
    do = _out_size(d, kd, sd, pd, dd)
    x = pad(input, (0, 0, 0, 0, pd, pd)) if pd else input
    # each tap (N, C, Do, H, W) seen as (N, Do, C, H, W) and stacked at dim 3: (N, Do, C, kd, H, W) in one copy
    taps = stack([permute(slice_(x, 2, i * dd, i * dd + sd * (do - 1) + 1, sd), (0, 2, 1, 3, 4)) for i in range(kd)],
                 3)
    x2 = reshape(taps, (n * do, c * kd, h, w))
    out = conv2d_op(x2, reshape(weight, (o, cg * kd, kh, kw)), bias, stride[1:], padding[1:], dilation[1:], groups)
    out = permute(reshape(out, (n, do, o, *out.shape[2:])), (0, 2, 1, 3, 4)).contiguous()
    return reshape(out, out.shape)  # row-major strides for size-1 dims too (one output channel or depth), as PyTorch's


def _depth_col2im(y: Tensor, length: int, stride: int, dilation: int) -> Tensor:
    """Sum the depth taps `y (N, O, kd, D, H, W)` into `(N, O, length, H, W)`, tap i of slab t at depth
    `i * dilation + t * stride`: the adjoint of stacking the depth taps (a depth-only col2im)."""
    from ember.core.creation import zeros_like
    from ember.core.ops.join import stack
    from ember.core.ops.layout import narrow, reshape
    from ember.core.ops.padding import pad

    n, o, kd, d, h, w = y.shape
    if (kd - 1) * dilation < stride:  # taps never overlap (an upsampling kernel = stride): one interleaving copy
        zero = zeros_like(y[:, :, 0])
        at = {i * dilation: y[:, :, i] for i in range(kd)}
        out = reshape(stack([at.get(j, zero) for j in range(stride)], 3), (n, o, d * stride, h, w))
        return narrow(out, 2, 0, length) if length <= d * stride else pad(out, (0, 0, 0, 0, 0, length - d * stride))
    if stride > 1:  # slab t lands at depth t * stride: interleave stride - 1 zero slabs
        zero = zeros_like(y)
        y = reshape(stack([y] + [zero] * (stride - 1), 4), (n, o, kd, d * stride, h, w))
        y = narrow(y, 3, 0, (d - 1) * stride + 1)
    span = y.shape[3]
    out = None
    for i in range(kd):
        tap = pad(y[:, :, i], (0, 0, 0, 0, i * dilation, length - i * dilation - span))
        out = tap if out is None else out + tap
    return out


@composite("conv2d")
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Size2 = 1,
           padding: Size2 | str = 0, dilation: Size2 = 1, groups: int = 1) -> Tensor:
    """2-D convolution (cross-correlation) of `input` with `weight`, as `torch.nn.functional.conv2d`.

    Args:
        input: `(N, C, H, W)` or unbatched `(C, H, W)`.
        weight: `(O, C/groups, kh, kw)`.
        bias: `(O,)` or None.
        stride, dilation: an int or a pair.
        padding: an int, a pair, 'valid' or 'same' (stride 1 only).
        groups: split input and output channels into this many independent groups.
    Returns:
        `(N, O, Ho, Wo)` with `Ho = (H + 2p - d(k - 1) - 1) // s + 1`.
    Raises:
        RuntimeError: channel or size mismatches, with PyTorch's messages.
        RuntimeError (`ConvDtypeError`, also a TypeError): mixed dtypes; NotImplementedError: an integer
            dtype PyTorch has no kernel for (bool, dilated non-int64).

    >>> import ember.core as ec
    >>> ec.conv2d(ec.ones(1, 1, 3, 3), ec.ones(1, 1, 2, 2)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    return _conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@composite("conv1d")
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Size2 = 1,
           padding: Size2 | str = 0, dilation: Size2 = 1, groups: int = 1) -> Tensor:
    """1-D convolution, as `torch.nn.functional.conv1d`: input `(N, C, L)` or `(C, L)`, weight `(O, C/groups, k)`.

    >>> import ember.core as ec
    >>> ec.conv1d(ec.ones(1, 1, 4), ec.ones(1, 1, 2), padding=1).tolist()
    [[[1.0, 2.0, 2.0, 2.0, 1.0]]]
    """
    return _conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose_nd(op: str, nd: int, input, weight, bias, stride, padding, output_padding, groups,
                       dilation) -> Tensor:
    _check(op, input, weight, bias, groups, nd, True)
    stride = _ntuple(stride, nd, "stride", op)
    padding = _ntuple(padding, nd, "padding", op)
    output_padding = _ntuple(output_padding, nd, "output_padding", op)
    dilation = _ntuple(dilation, nd, "dilation", op)
    _check_transpose_params(stride, padding, output_padding, dilation)
    for op_, s, d in zip(output_padding, stride, dilation):
        if op_ >= max(s, d) or op_ < 0:
            # PyTorch runs a 1-d transposed convolution as a 2-d one of height 1: its words name that height
            lead = ((0,), (1,), (1,)) if nd == 1 else ((), (), ())
            names = ("depth", "height", "width")[3 - max(nd, 2):]
            got = " ".join(f"{label}_{n}: {v}" for label, vals in (("output_padding", lead[0] + output_padding),
                                                                   ("stride", lead[1] + stride),
                                                                   ("dilation", lead[2] + dilation))
                           for n, v in zip(names, vals))
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {got}")
    batched = input.ndim == nd + 2
    if not batched:
        input = unsqueeze(input, 0)
    if nd == 1:
        input, weight = unsqueeze(input, 2), unsqueeze(weight, 2)
        stride, padding, output_padding, dilation = (1, *stride), (0, *padding), (0, *output_padding), \
            (1, *dilation)
    shape = _transpose_out_shape(tuple(input.shape), tuple(weight.shape), stride, padding, output_padding,
                                 dilation, groups)
    if min(shape[2:]) < 0:
        raise RuntimeError(f"{op}: the output size {list(shape)} is too small; got {describe(input)} and "
                           f"{describe(weight)}")
    if bias is not None and bias._dtype is not input._dtype:  # added in place, as PyTorch's: cast to the output's
        bias = bias.to(input._dtype)
    if _integral(input):
        out = _integer_conv(op, input, weight, bias, stride, padding, dilation, groups, output_padding)
    elif nd == 3:
        out = _conv_transpose3d_by_depth_taps(input, weight, bias, stride, padding, output_padding, groups,
                                              dilation, shape[2])
    else:
        out = conv_transpose2d_op(input, weight, bias, stride, padding, output_padding, groups, dilation)
    if nd == 2 or (nd == 3 and batched and _keeps_channels_last_3d(input, weight, stride, dilation, groups)):
        out = channels_last_as(out, input, weight)
    if nd == 1:
        out = squeeze(out, 2)
    return out if batched else squeeze(out, 0)


def _conv_transpose3d_by_depth_taps(input, weight, bias, stride, padding, output_padding, groups, dilation,
                                    depth: int) -> Tensor:
    """conv_transpose3d as one conv_transpose2d with the depth taps in its output channels, summed back at
    their depths (see NOTE [ 3-D convolution through the 2-D op ]); `depth` is the output's depth."""
    from ember.core.ops.layout import narrow, permute, reshape

    dt = input._dtype
    if dt in (dtypes.bfloat16, dtypes.float16):  # the taps' sums and the bias in float32, rounded once (PyTorch's)
        f32 = dtypes.float32
        out = _conv_transpose3d_by_depth_taps(to_dtype(input, f32), to_dtype(weight, f32),
                                              None if bias is None else to_dtype(bias, f32), stride, padding,
                                              output_padding, groups, dilation, depth)
        return to_dtype(out, dt)
    n, c, d, h, w = input.shape
    _, og, kd, kh, kw = weight.shape
    o = og * groups
    x2 = reshape(permute(input, (0, 2, 1, 3, 4)), (n * d, c, h, w))
    y = conv_transpose2d_op(x2, reshape(weight, (c, og * kd, kh, kw)), None, stride[1:], padding[1:],
                            output_padding[1:], groups, dilation[1:])
    y = permute(reshape(y, (n, d, o, kd, *y.shape[2:])), (0, 2, 3, 1, 4, 5))  # (N, O, kd, D, Ho, Wo)
    full = (d - 1) * stride[0] + dilation[0] * (kd - 1) + 1
    out = narrow(_depth_col2im(y, max(full, padding[0] + depth), stride[0], dilation[0]), 2, padding[0], depth)
    if bias is not None:
        out = out + reshape(bias, (1, o, 1, 1, 1))
    return out.contiguous()


@composite("conv_transpose2d")
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Size2 = 1,
                     padding: Size2 = 0, output_padding: Size2 = 0, groups: int = 1, dilation: Size2 = 1) -> Tensor:
    """2-D transposed convolution, as `torch.nn.functional.conv_transpose2d`.

    Args:
        input: `(N, C, H, W)` or `(C, H, W)`; weight `(C, O/groups, kh, kw)`; bias `(O,)` or None.
    Returns:
        `(N, O, Ho, Wo)` with `Ho = (H - 1)s - 2p + d(k - 1) + output_padding + 1`.

    >>> import ember.core as ec
    >>> ec.conv_transpose2d(ec.ones(1, 1, 2, 2), ec.ones(1, 1, 2, 2)).tolist()
    [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    """
    return _conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding,
                              groups, dilation)


@composite("conv_transpose1d")
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Size2 = 1,
                     padding: Size2 = 0, output_padding: Size2 = 0, groups: int = 1, dilation: Size2 = 1) -> Tensor:
    """1-D transposed convolution, as `torch.nn.functional.conv_transpose1d`: input `(N, C, L)`."""
    r = _conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)
    return _convolution_node(r)


@composite("conv3d")
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Size2 = 1,
           padding: Size2 | str = 0, dilation: Size2 = 1, groups: int = 1) -> Tensor:
    """3-D convolution (cross-correlation), as `torch.nn.functional.conv3d`.

    Args:
        input: `(N, C, D, H, W)` or unbatched `(C, D, H, W)`.
        weight: `(O, C/groups, kd, kh, kw)`.
        bias: `(O,)` or None.
        stride, dilation: an int or a triple.
        padding: an int, a triple, 'valid' or 'same' (stride 1 only).
        groups: split input and output channels into this many independent groups.
    Returns:
        `(N, O, Do, Ho, Wo)` with `Do = (D + 2p - d(k - 1) - 1) // s + 1` per dim.
    Raises:
        RuntimeError: channel or size mismatches, with PyTorch's messages.
        RuntimeError (`ConvDtypeError`, also a TypeError): mixed dtypes; NotImplementedError: an integer
            dtype PyTorch has no kernel for (bool, dilated non-int64).

    >>> import ember.core as ec
    >>> ec.conv3d(ec.ones(1, 1, 2, 2, 2), ec.ones(1, 1, 2, 2, 2)).tolist()
    [[[[[8.0]]]]]
    """
    return _conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


@composite("conv_transpose3d")
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Size2 = 1,
                     padding: Size2 = 0, output_padding: Size2 = 0, groups: int = 1, dilation: Size2 = 1) -> Tensor:
    """3-D transposed convolution, as `torch.nn.functional.conv_transpose3d` (conv3d's input gradient).

    Args:
        input: `(N, C, D, H, W)` or `(C, D, H, W)`; weight `(C, O/groups, kd, kh, kw)`; bias `(O,)` or None.
    Returns:
        `(N, O, Do, Ho, Wo)` with `Do = (D - 1)s - 2p + d(k - 1) + output_padding + 1` per dim.

    >>> import ember.core as ec
    >>> ec.conv_transpose3d(ec.ones(1, 1, 1, 1, 2), ec.ones(1, 1, 1, 1, 2)).tolist()
    [[[[[1.0, 2.0, 1.0]]]]]
    """
    r = _conv_transpose_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)
    return _convolution_node(r)


def _convolution_node(r: Tensor) -> Tensor:
    """PyTorch's node for every convolution, on the last node of a decomposed one (a new result, never an input)."""
    fn = getattr(r, "_grad_fn", None)
    return r if fn is None else node_name(r, type(fn).__name__, "ConvolutionBackward0")


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Size2, padding: Size2 | str,
                dilation: Size2, transposed: bool, output_padding: Size2, groups: int) -> Tensor:
    """`torch.convolution`: the 1-D, 2-D or 3-D (transposed) convolution the weight's rank names."""
    nd = weight.ndim - 2 if isinstance(weight, Tensor) else 0
    if nd not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a 3-D, 4-D or 5-D weight; got {describe(weight)}")
    if transposed:
        fn = (conv_transpose1d, conv_transpose2d, conv_transpose3d)[nd - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return (conv1d, conv2d, conv3d)[nd - 1](input, weight, bias, stride, padding, dilation, groups)


def _block_args(op: str, kernel_size, dilation, padding, stride):
    args = [_ntuple(v, 2, name, op) for v, name in ((kernel_size, "kernel_size"), (dilation, "dilation"),
                                                     (padding, "padding"), (stride, "stride"))]
    k, d, p, s = args
    _check_blocks(op, k, d, p, s)
    return k, d, p, s


def unfold(input: Tensor, kernel_size: Size2, dilation: Size2 = 1, padding: Size2 = 0, stride: Size2 = 1) -> Tensor:
    """Extract sliding local blocks as columns, as `torch.nn.functional.unfold`.

    Args:
        input: `(N, C, H, W)` or unbatched `(C, H, W)`.
    Returns:
        `(N, C * kh * kw, L)`, L the number of block positions.

    >>> import ember.core as ec
    >>> from ember.core.ops.conv import unfold
    >>> unfold(ec.arange(4.0).reshape(1, 1, 2, 2), 1).tolist()
    [[[0.0, 1.0, 2.0, 3.0]]]
    """
    if not isinstance(input, Tensor):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {describe(input)})")
    if input.ndim in (1, 2):  # PyTorch's im2col reads the size of a dim the input lacks
        n = input.ndim
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {n})")
    k, d, p, s = _block_args("unfold", kernel_size, dilation, padding, stride)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    batched = input.ndim == 4
    x = input if batched else unsqueeze(input, 0)
    out = im2col(x, k, d, p, s)  # its meta step checks the window against the padded input
    return out if batched else squeeze(out, 0)


def fold(input: Tensor, output_size: Size2, kernel_size: Size2, dilation: Size2 = 1, padding: Size2 = 0,
         stride: Size2 = 1) -> Tensor:
    """Sum sliding local blocks back into an image, as `torch.nn.functional.fold` (unfold's adjoint).

    Args:
        input: `(N, C * kh * kw, L)` or unbatched `(C * kh * kw, L)`.
        output_size: the image's `(H, W)`.

    >>> import ember.core as ec
    >>> ec.fold(ec.ones(1, 4, 4), (3, 3), 2).tolist()
    [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    """
    if not isinstance(input, Tensor):
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                           f"(got {describe(input)})")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    size = _ntuple(output_size, 2, "output_size", "fold")
    k, d, p, s = _block_args("fold", kernel_size, dilation, padding, stride)
    batched = input.ndim == 3
    x = input if batched else unsqueeze(input, 0)
    out = col2im(x, size, k, d, p, s)  # its meta step checks the columns against the blocks
    return out if batched else squeeze(out, 0)
