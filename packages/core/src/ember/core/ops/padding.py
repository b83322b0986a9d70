"""Padding: `pad(input, pad, mode, value)` as one primitive (`pad_nd`) and its backward.

Every padding mode is a separable index map: along each padded dim, output position `j` reads
input position `src[j]` (or the fill value when `src[j] == -1`). The forward gathers by the
map, the backward copies the unpadded block back and adds each padded position onto its source,
so the four modes share both kernels. Constant padding, the common case (every padded convolution
and pooling), skips the maps: one fill and one block copy each way, so a 5-D input padded along
depth only is copied once, not once per padded dim.
"""

from __future__ import annotations

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import declare, node_name
from ember.core.ops._util import scalar_as, wrap
from ember.core.ops.memfmt import channels_last_as
from ember.core.tensor import Tensor, describe

__all__ = ["pad", "pad_nd", "pad_nd_backward"]

_MODES = ("constant", "reflect", "replicate", "circular")


def _source_map(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """`src[j]`: the input index output position `j` reads along one dim (-1: the fill value)."""
    j = np.arange(-before, n + after)
    if mode == "constant":
        return np.where((j >= 0) & (j < n), j, -1)
    if mode == "replicate":
        return np.clip(j, 0, n - 1)
    if mode == "circular":
        return j % n
    period = 2 * (n - 1)
    k = np.abs(j) % period if period else np.zeros_like(j)
    return np.where(k < n, k, period - k)


def _maps(shape: tuple[int, ...], pad: tuple[int, ...], mode: str) -> list[tuple[int, np.ndarray]]:
    out = []
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        out.append((d, _source_map(shape[d], pad[2 * i], pad[2 * i + 1], mode)))
    return out


pad_nd = declare("pad_nd", np.pad, doc="""Pad the last `len(pad) // 2` dims of `input`.

Positional signature: `pad_nd(input, pad, mode, value)`; `pad` is PyTorch's flat tuple
(last dim first: `(left, right, top, bottom, ...)`), `mode` one of 'constant', 'reflect',
'replicate', 'circular', `value` the constant fill (a float). Negative constant pads crop.
Backward: `pad_nd_backward(grad, input.shape, pad, mode)` -> grad_input.""")


def _constant_block(shape: tuple[int, ...], pad: tuple[int, ...]) -> tuple[tuple, tuple, tuple]:
    """Constant padding as one block copy: (the output's shape, the input's kept block, where it lands)."""
    out_shape, src, dst = list(shape), [slice(None)] * len(shape), [slice(None)] * len(shape)
    for i in range(len(pad) // 2):
        d, lo, hi = len(shape) - 1 - i, pad[2 * i], pad[2 * i + 1]
        n = shape[d]
        out_shape[d] = n + lo + hi
        src[d] = slice(max(0, -lo), max(max(0, -lo), n - max(0, -hi)))
        dst[d] = slice(max(0, lo), max(0, lo) + src[d].stop - src[d].start)
    return tuple(out_shape), tuple(src), tuple(dst)


@pad_nd.register("cpu")
def _pad_nd_cpu(input, pad, mode, value=0.0):
    a = input._np()
    if mode == "constant":  # one fill and one block copy (negative pads crop the block)
        shape, src, dst = _constant_block(a.shape, pad)
        out = np.full(shape, value, dtype=a.dtype)
        out[dst] = a[src]
        return wrap(out)
    for d, src in _maps(a.shape, pad, mode):
        if len(src) == a.shape[d] and (src == np.arange(len(src))).all():
            continue  # an unpadded dim: taking every position in order would only copy
        a = np.take(a, src, axis=d) if a.shape[d] else np.zeros(a.shape[:d] + (len(src),) + a.shape[d + 1:],
                                                                  a.dtype)
    return wrap(np.ascontiguousarray(a))


pad_nd_backward = declare("pad_nd_backward", doc="""The gradient of `pad_nd` with respect to its input.

Positional signature: `pad_nd_backward(grad, input_shape, pad, mode)` -> grad_input of
`input_shape`: each output position's gradient is added to the input position it read.
It is linear in `grad`; its own backward is `pad_nd(grad_grad, pad, mode, 0.0)`.""")


@pad_nd_backward.register("cpu")
def _pad_nd_backward_cpu(grad, input_shape, pad, mode):
    g = grad._np()
    if mode == "constant":  # the input's block of the gradient; cropped positions get zeros
        _, src, dst = _constant_block(tuple(input_shape), pad)
        out = np.zeros(tuple(input_shape), dtype=g.dtype)
        out[src] = g[dst]
        return wrap(out)
    for i, (d, src) in enumerate(_maps(tuple(input_shape), pad, mode)):
        if pad[2 * i] == pad[2 * i + 1] == 0:
            continue
        # the input's own positions copy back as one block; each padded position adds onto its source
        before = pad[2 * i]
        pos = np.arange(len(src))
        own = (src >= 0) & (src == pos - before)
        out = np.zeros(g.shape[:d] + (input_shape[d],) + g.shape[d + 1:], dtype=g.dtype)
        lo, hi = (int(pos[own][0]), int(pos[own][-1]) + 1) if own.any() else (0, 0)
        _at(out, d, slice(lo - before, hi - before))[...] = _at(g, d, slice(lo, hi))
        for j in np.nonzero(~own & (src >= 0))[0]:
            _at(out, d, int(src[j]))[...] += _at(g, d, int(j))
        g = out
    return wrap(np.ascontiguousarray(g))


def _at(a: np.ndarray, d: int, index) -> np.ndarray:
    """The view `a[..., index, ...]` with `index` on dim `d`."""
    sel = [slice(None)] * a.ndim
    sel[d] = index
    return a[tuple(sel)]


def _circular_with_crops(input: Tensor, pad: tuple[int, ...]) -> Tensor:
    """Circular padding where some pads are negative, as PyTorch: each dim is cropped first, then wrapped from what
    is left (`pad(x, (-1, 2), mode="circular")` of `[0 .. 5]` is `[1, 2, 3, 4, 5, 1, 2]`)."""
    from ember.core.creation import arange
    from ember.core.ops.indexing import index_select

    out = input
    for d, (lo, hi) in enumerate(zip(pad[::2], pad[1::2])):
        dim = input.ndim - 1 - d
        n = out.shape[dim]
        kept = n - max(-lo, 0) - max(-hi, 0)
        if max(lo, hi) > n:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if kept == 0 and lo <= 0 and hi <= 0:  # cropped to nothing: PyTorch's empty result
            out = index_select(out, dim, arange(0))
            continue
        if kept < 1:  # (PyTorch wraps a positive pad around nothing, reading memory it never wrote)
            raise RuntimeError(f"pad: circular padding of an empty dim; got {describe(input)} and pad={pad}")
        if lo or hi:
            idx = (arange(kept + max(lo, 0) + max(hi, 0)) - max(lo, 0)) % kept + max(-lo, 0)
            out = index_select(out, dim, idx)
    return out


def _refuse_negative_size(input: Tensor, pad: tuple[int, ...], nd: int, mode: str, d: int) -> None:
    """A reflect/replicate crop past the input along pad pair `d`: the 1-D kernels' check names the dim; PyTorch's
    2-D/3-D kernels fail inside, allocating the output (reflect's size product overflows; replicate's shape is
    refused)."""
    name, n, lo, hi = "WHD"[d], input.shape[input.ndim - 1 - d], pad[2 * d], pad[2 * d + 1]
    if nd == 1:
        raise RuntimeError(f"input ({name}: {n}) is too small. Calculated output {name}: {n + lo + hi}")
    if mode == "reflect":
        raise RuntimeError("numel: integer multiplication overflow")
    shape = list(input.shape)
    for d in range(nd):
        shape[input.ndim - 1 - d] += pad[2 * d] + pad[2 * d + 1]
    bad = next(v for v in shape if v < 0)
    raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {shape}")


def _check_reflect_replicate(input: Tensor, nd: int, mode: str) -> None:
    """PyTorch's reflection/replication kernels' refusals: an empty dim other than the batch dim, a bool input."""
    batched = input.ndim == nd + 2
    if any(n == 0 for n in input.shape[int(batched):]):
        raise RuntimeError(f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    if input.dtype is dtypes.bool:
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for(f"{'reflection' if mode == 'reflect' else 'replication'}_pad{nd}d", input.dtype)


def _fill_value(input: Tensor, value) -> float:
    """Constant mode's fill, a double that must fit a numeric input's dtype (PyTorch's checked conversion: -1 does
    not wrap into uint8, 1e6 overflows float16)."""
    v = float(value or 0.0)
    if input.dtype is not dtypes.bool and not input.dtype.is_complex:
        scalar_as(input.dtype, v)
    return v


def pad(input: Tensor, pad: tuple[int, ...] | list[int], mode: str = "constant",
        value: float | None = None) -> Tensor:
    """Pad `input` as `torch.nn.functional.pad`: `pad` lists (before, after) pairs, last dim first.

    Args:
        input: a tensor of any shape (reflect/replicate/circular: one or two dims more than the dims they pad).
        pad: an even-length sequence of ints.
        mode: 'constant', 'reflect', 'replicate' or 'circular'.
        value: the fill of 'constant' mode (default 0).
    Returns:
        the padded tensor.
    Raises:
        RuntimeError: odd-length `pad`, too many padded dims, a reflect pad not smaller than its dim, a negative
            constant pad that crops past the input.
        NotImplementedError: an unknown mode; a non-constant pad of a rank PyTorch does not pad.

    >>> import ember.core as ec
    >>> ec.pad(ec.tensor([1.0, 2.0]), (1, 2)).tolist()
    [0.0, 1.0, 2.0, 0.0, 0.0]
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {input.ndim}")
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant":
        if value not in (None, 0, 0.0):
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        if len(pad) > 6 or input.ndim not in (len(pad) // 2 + 1, len(pad) // 2 + 2):
            raise NotImplementedError(
                f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                "Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
        nd = len(pad) // 2
        if mode != "circular":
            _check_reflect_replicate(input, nd, mode)
        crops = []
        if mode == "circular" and min(pad) < 0:
            return node_name(_circular_with_crops(input, pad), "IndexSelectBackward0", "CopySlices")
        for d, (lo, hi) in enumerate(zip(pad[::2], pad[1::2])):
            n = input.shape[input.ndim - 1 - d]
            if min(lo, hi) < 0:
                if n + lo + hi < (1 if nd == 1 else 0):  # 2-D/3-D padding may crop a dim to nothing
                    _refuse_negative_size(input, pad, nd, mode, d)
                crops.append((input.ndim - 1 - d, max(-lo, 0), n + max(lo, 0) + max(hi, 0) - max(-lo, 0)
                              - max(-hi, 0)))
            if mode == "reflect" and max(lo, hi) >= max(n, 1):  # PyTorch numbers the pad's entries from 3
                raise RuntimeError(f"Argument #{4 + 2 * d}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({lo}, {hi}) at dimension "
                                   f"{input.ndim - 1 - d} of input {list(input.shape)}")
            if mode == "circular" and max(lo, hi) > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if n == 0 and (lo or hi):  # an empty dim that is not padded stays empty (circular mode)
                raise RuntimeError(f"pad: {mode} padding of an empty dim; got {describe(input)}")
        kind = "Reflection" if mode == "reflect" else "Replication"
        if crops:  # negative pads crop, after the positive ones padded (PyTorch's reflect/replicate rule)
            from ember.core.ops.layout import clone, narrow

            out = pad_nd(input, tuple(max(v, 0) for v in pad), mode, 0.0)
            for dim, start, length in crops:
                out = narrow(out, dim, start, length)
            # PyTorch's kernel writes the cropped result densely, in one node
            out = node_name(clone(out), "CloneBackward0", f"{kind}Pad{nd}DBackward0")
            return channels_last_as(out, input)
        if mode != "circular" and input.ndim in (nd + 1, nd + 2):
            out = node_name(pad_nd(input, pad, mode, 0.0), "PadBackward0", f"{kind}Pad{nd}DBackward0")
            return channels_last_as(out, input)
    else:
        # PyTorch crops each negative pad with `narrow` (the left one first) before it pads: a crop past the
        # input fails there, even where the positive pad on the other side would make the output size valid
        for d, (lo, hi) in enumerate(zip(pad[::2], pad[1::2])):
            n = input.shape[input.ndim - 1 - d]
            if n + min(lo, 0) < 0 or n + min(lo, 0) + min(hi, 0) < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
    r = pad_nd(input, pad, mode, _fill_value(input, value))
    if mode == "circular":  # PyTorch's composite `_pad_circular` copies slices into a new tensor: CopySlices
        return node_name(r, "PadBackward0", "CopySlices")
    if mode != "constant":
        return r
    return channels_last_as(node_name(r, "PadBackward0", "ConstantPadNdBackward0"), input)
