"""Dropout: `native_dropout` (output and the bool mask it kept) with its backward, and the channel
variants (dropout1d/2d/3d) as one mask multiply; alpha dropout (SELU networks) as one affine map.

Random bits come from `ember.core.random` (its `dropout_mask`), so dropout follows
`manual_seed` and explicit `Generator`s like every other sampler.
"""

from __future__ import annotations

import numbers

import numpy as np

from ember.core import cpu_sampling, dtypes
from ember.core.dispatch import OVERLAP_INTERNAL, declare, node_name
from ember.core.ops._util import wrap, write_out
from ember.core.tensor import Tensor

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "feature_dropout", "native_dropout_backward",
           "alpha_dropout", "feature_alpha_dropout", "alpha_dropout_", "feature_alpha_dropout_"]


native_dropout = declare("native_dropout", overlap=OVERLAP_INTERNAL, doc="""Dropout returning (output, mask).

Positional signature: `native_dropout(input, p, generator)` (accepts `out=`): each element is
zeroed with probability p and the rest scaled by 1 / (1 - p); mask (bool, no gradient) marks the
kept elements. Backward: `native_dropout_backward(grad, mask, 1 / (1 - p))` -> grad_input.""")


def dropout_scale(dt, p: float) -> float:
    """PyTorch's CPU dropout multiplier as its `noise.div_(1 - p)` computes it in `dt`: `1 / (1 - p)` in float64
    for float64, else in float32 (one bit off `1 / (1 - p)` rounded for p = 0.04, 0.09, 0.15, 0.42 ...), rounded
    to a 16-bit `dt`."""
    if dt is dtypes.float64:
        return 1.0 / (1.0 - p)
    s = np.float32(1.0) / np.float32(1.0 - p)
    return float(s if dt is dtypes.float32 else np.asarray(s).astype(dt.np))


@native_dropout.register("cpu")
def _native_dropout_cpu(input, p, generator=None, *, out=None):
    from ember.core import random

    from ember.core.ops.elementwise import laid_out

    a = input._np()
    if (input._dtype is dtypes.float32 or input._dtype is dtypes.float64) and a.flags.c_contiguous:
        r, k = cpu_sampling.dropout(random.cpu_engine(generator), a, 1.0 - p, dropout_scale(input._dtype, p))
        return (write_out(out, r, "dropout") if out is not None else wrap(r)), wrap(k)
    m = random.dropout_mask(None, p, generator, dtype=input._dtype, like=input)._np()  # in input's memory order
    r = input._np() * m
    k = m != 0
    keep = laid_out(wrap(k), k, (input,))  # both laid out as `input` (a channels_last one stays so)
    return (write_out(out, r, "dropout") if out is not None else laid_out(wrap(r), r, (input,))), keep


native_dropout_backward = declare("native_dropout_backward", doc="""The gradient of dropout.

Positional signature: `native_dropout_backward(grad, mask, scale)` -> `grad * mask * scale`.
Linear in grad; its backward is itself.""")


@native_dropout_backward.register("cpu")
def _native_dropout_backward_cpu(grad, mask, scale):
    from ember.core.ops.elementwise import laid_out

    g = grad._np()
    r = (g * mask._np() * np.asarray(scale, dtype=g.dtype)).astype(g.dtype, copy=False)
    return laid_out(wrap(r), r, (grad, mask))


def _check(op: str, input, p) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _check_draw(input: Tensor, alpha: bool = False) -> None:
    """PyTorch's errors when a mask must be drawn for a non-floating input (in eval, or at p = 0 or 1, any dtype
    passes): its bernoulli_ has no complex kernel, and its float mask cannot scale an integer in place (alpha
    dropout's shift of a bool input is already a Long)."""
    name = "Long" if alpha and input.dtype is dtypes.bool else dtypes.TORCH_NAMES[input.dtype.name]
    if input.dtype.is_complex:
        raise NotImplementedError(f"\"bernoulli_scalar_{input.device.type}_\" not implemented for '{name}'")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")


def _zeroed(input: Tensor, out) -> Tensor:
    """Dropout at p = 1: input times a zero of its own dtype (PyTorch draws nothing, keeps the dtype)."""
    from ember.core.ops import elementwise as ew

    if input.dtype.is_floating_point or input.dtype.is_complex:
        return ew.mul(input, 0.0, out=out)
    from ember.core.creation import zeros

    return ew.mul(input, zeros((), dtype=input.dtype, device=input.device), out=out)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
            generator=None) -> Tensor:
    """Zero each element with probability `p` and scale the rest by `1 / (1 - p)` when training.

    Args:
        input: any shape, floating point.
        p: the drop probability in [0, 1].
        training: off means identity (returns `input` itself).
        inplace: write into `input`.
        generator: an `ember.core.random.Generator` (default: the global one).

    >>> import ember.core as ec
    >>> ec.dropout(ec.ones(3), 0.0).tolist()
    [1.0, 1.0, 1.0]
    """
    _check("dropout", input, p)
    if not training or p == 0:  # a nested tensor's dropout is native_dropout's, a new tensor even here
        return input._like(node_name(input._nt_values.clone(), "CloneBackward0", "NativeDropoutBackward0")) \
            if input.is_nested else input
    if p == 1:  # PyTorch multiplies by zero without drawing, so the random stream does not move
        return _zeroed(input, input if inplace else None)
    _check_draw(input)
    r = native_dropout(input, float(p), generator, out=input)[0] if inplace else native_dropout(input, float(p),
                                                                                                  generator)[0]
    # PyTorch's CPU dropout is `input * mask`; its CUDA one keeps native_dropout's node
    return node_name(r, "NativeDropoutBackward0", "MulBackward0") if input.device.type == "cpu" else r


def _feature(op: str, input: Tensor, p: float, training: bool, inplace: bool, batched_ndim: int) -> Tensor:
    from ember.core import random
    from ember.core.ops import elementwise as ew

    _check(op, input, p)
    if input.ndim not in (batched_ndim - 1, batched_ndim):
        raise RuntimeError(f"{op}: Expected {batched_ndim - 1}D or {batched_ndim}D input, but received a "
                           f"{input.ndim}D input")
    if not training or p == 0:
        return input
    if p == 1:
        return _zeroed(input, input if inplace else None)
    _check_draw(input)
    lead = 1 if input.ndim == batched_ndim else 0
    shape = tuple(input.shape[:lead + 1]) + (1,) * (input.ndim - lead - 1)
    mask = random.dropout_mask(shape, float(p), None, dtype=input.dtype, device=input.device)
    return ew.mul(input, mask, out=input) if inplace else ew.mul(input, mask)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of `(N, C, L)` or `(C, L)` with probability `p`, scaling the rest."""
    return _feature("dropout1d", input, p, training, inplace, 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of `(N, C, H, W)` or `(C, H, W)` with probability `p`, scaling the rest.

    >>> import ember.core as ec
    >>> ec.dropout2d(ec.ones(1, 2, 1, 1), 0.0).tolist()
    [[[[1.0]], [[1.0]]]]
    """
    return _feature("dropout2d", input, p, training, inplace, 4)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of `(N, C, D, H, W)` or `(C, D, H, W)` with probability `p`, scaling the rest."""
    return _feature("dropout3d", input, p, training, inplace, 5)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """`torch.feature_dropout`: channel dropout of a batched `(N, C, *)` input."""
    return _feature("feature_dropout", input, p, train, False, input.ndim)


_SELU_NEG = 1.7580993408473766  # SELU's scale * alpha: a dropped unit is set to SELU's negative saturation


def _alpha(op: str, input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    """Alpha dropout: dropped units take SELU's saturation value, then an affine map `a x + b` restores the
    mean and variance (PyTorch's formulas); `feature` drops whole channels of `(N, C, *)`."""
    import math

    from ember.core import random
    from ember.core.ops import elementwise as ew

    _check(op, input, p)
    if not training or p == 0 or input.numel() == 0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    out = input if inplace else None
    if p == 1:
        return _zeroed(input, out)
    _check_draw(input, alpha=True)
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    drawn = random.dropout_mask(shape, float(p), None, dtype=input.dtype, device=input.device,
                                like=None if feature else input)
    keep = ew.ne(drawn, 0).to(input.dtype)
    a = 1.0 / math.sqrt((_SELU_NEG * _SELU_NEG * p + 1) * (1 - p))
    # PyTorch's steps, each rounded in the input's dtype: b = (noise - 1) * alpha a + alpha a p; x * (noise a) + b
    shift = ew.add(ew.mul(ew.sub(keep, 1), _SELU_NEG * a), _SELU_NEG * a * p)
    return ew.add(ew.mul(input, ew.mul(keep, a), out=out), shift, out=out)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False) -> Tensor:
    """Alpha dropout (keeps SELU activations' mean and variance), as `torch.alpha_dropout`.

    >>> import ember.core as ec
    >>> ec.alpha_dropout(ec.ones(2), 0.5, False).tolist()
    [1.0, 1.0]
    """
    return _alpha("alpha_dropout", input, p, training, False, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False) -> Tensor:
    """Alpha dropout of whole channels of `(N, C, *)`, as `torch.feature_alpha_dropout`."""
    return _alpha("feature_alpha_dropout", input, p, training, False, True)


def alpha_dropout_(input: Tensor, p: float = 0.5, training: bool = False) -> Tensor:
    """In-place `alpha_dropout`."""
    return _alpha("alpha_dropout_", input, p, training, True, False)


def feature_alpha_dropout_(input: Tensor, p: float = 0.5, training: bool = False) -> Tensor:
    """In-place `feature_alpha_dropout`."""
    return _alpha("feature_alpha_dropout_", input, p, training, True, True)
