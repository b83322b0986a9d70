"""`torch.masked`: reductions and normalizations that ignore the masked-out elements (`mask=`, a
bool tensor broadcastable to the input, True where an element counts), and `MaskedTensor`.

Each function replaces the masked-out elements by the identity of its operation (0 for sums,
1 for products, -inf for maxima, +inf for minima, NaN for the median) and runs the ordinary op,
so it differentiates through the autograd layer like any composite and the masked-out elements
get zero gradient. As in PyTorch, a reduction over only masked-out elements gives that identity
(`amax` gives -inf, `sum` 0), and NaN where none exists (`mean`, `median`, `var`, `std`,
`softmax`).
"""

from __future__ import annotations

import math

from ember.core import amax as _amax
from ember.core import amin as _amin
from ember.core import argmax as _argmax
from ember.core import argmin as _argmin
from ember.core import broadcast_to, dtypes, iinfo, maximum, nanmedian, ones, sqrt, tensor, vector_norm, where
from ember.core import cumprod as _cumprod
from ember.core import cumsum as _cumsum
from ember.core import log_softmax as _log_softmax
from ember.core import logaddexp as _logaddexp
from ember.core import logsumexp as _logsumexp
from ember.core import softmax as _softmax
from ember.core import sum as _sum
from ember.core.tensor import Tensor, describe

__all__ = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "argmax", "argmin", "mean", "median",
           "logsumexp", "logaddexp", "norm", "var", "std", "softmax", "log_softmax", "softmin", "normalize",
           "MaskedTensor", "masked_tensor", "as_masked_tensor", "is_masked_tensor"]

_SMALL_INTS = (dtypes.uint8, dtypes.bool, dtypes.int8, dtypes.int16, dtypes.int32)


def _canonical_dim(dim, ndim: int) -> tuple[int, ...]:
    """`dim` (None, () or an int or a sequence of ints) as a sorted tuple of non-negative dims."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    n = max(ndim, 1)
    out: list[int] = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d >= n or d < -n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        if d % n in out:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        out.append(d % n)
    return tuple(sorted(out))


def _input_mask(input: Tensor, mask) -> Tensor:
    """`mask` as a bool tensor of `input`'s shape (broadcast, never reduced)."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if not isinstance(mask, Tensor):
        raise TypeError(f"mask must be a Tensor; got {describe(mask)}")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                             f"input); got {describe(mask)} and {describe(input)}")
        mask = broadcast_to(mask, input.shape)
    return mask if mask.dtype == dtypes.bool else mask.to(dtypes.bool)


def _identity(op: str, input: Tensor, order=2.0) -> Tensor | None:
    """The value that does not change `op`'s result (PyTorch's reduction identity), as a 0-dim tensor."""
    dt = input.dtype
    if op in ("sum", "cumsum") or (op == "norm" and order != -math.inf):
        value = 0
    elif op in ("prod", "cumprod"):
        value = 1
    elif op in ("amax", "argmax", "logsumexp", "logaddexp", "amin", "argmin", "norm"):
        low = op in ("amax", "argmax", "logsumexp", "logaddexp")
        if dt.is_floating_point or dt.is_complex:
            value = -math.inf if low else math.inf
        elif dt != dtypes.bool and (dt.is_signed or dt == dtypes.uint8):
            info = iinfo(dt)
            value = info.min if low else info.max
        else:
            raise NotImplementedError(f"identity of {op} on {dt} input")
    elif op == "median":
        return tensor(math.nan, dtype=dt if dt.is_floating_point else dtypes.float32, device=input.device)
    else:
        raise NotImplementedError(f"identity of {op} on {dt} input")
    return tensor(value, dtype=dt, device=input.device)


def _split(input, mask) -> tuple[Tensor, Tensor | None]:
    """(data, mask) of a Tensor with an optional mask, or of a MaskedTensor (whose own mask rules)."""
    if isinstance(input, MaskedTensor):
        return input.get_data(), input.get_mask()
    if not isinstance(input, Tensor):
        raise TypeError(f"torch.masked: input must be a Tensor or a MaskedTensor; got {describe(input)}")
    return input, mask


def _combine(op: str, input: Tensor, mask, order=2.0) -> Tensor:
    """`input` with its masked-out elements replaced by the identity of `op`."""
    if mask is None:
        return input
    return where(_input_mask(input, mask), input, _identity(op, input, order))


def _sum_dtype(input: Tensor, dtype):
    if dtype is not None:
        return dtype
    return dtypes.int64 if input.dtype in _SMALL_INTS else input.dtype


def sum(input, dim=None, *, keepdim: bool | None = False, dtype=None, mask: Tensor | None = None) -> Tensor:  # noqa: A001
    """The sum over `dim` (all dims when None) of the elements where `mask` is True (0 where none is).

    Args:
        input: the tensor, or a MaskedTensor (then its own mask applies).
        dim: an int or a tuple of ints.
        keepdim: keep the reduced dims with size 1.
        dtype: the result's dtype (int64 for bool and small integers, as `torch.sum`).
        mask: bool, broadcastable to `input`; None means every element counts.

    Example:
        >>> import ember.core as ec
        >>> sum(ec.tensor([[1., 2.], [3., 4.]]), 1, mask=ec.tensor([[True, False], [False, False]]))
        tensor([1., 0.])
    """
    input, mask = _split(input, mask)
    dt = _sum_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    return _sum(_combine("sum", input, mask), dims, bool(keepdim), dtype=dt)


def prod(input, dim=None, *, keepdim: bool | None = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The product over `dim` of the elements where `mask` is True (1 where none is)."""
    input, mask = _split(input, mask)
    dt = _sum_dtype(input, dtype)
    out = _combine("prod", input, mask).to(dt)
    for d in reversed(_canonical_dim(dim, input.ndim)):
        out = out.prod(dim=d, keepdim=bool(keepdim))
    return out


def cumsum(input, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The cumulative sum along `dim`, masked-out elements counting as 0 (their positions still get
    the running sum)."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _cumsum(_combine("sum", input, mask), _canonical_dim(dim, input.ndim)[0], dtype=dt).to(dt)


def cumprod(input, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The cumulative product along `dim`, masked-out elements counting as 1."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _cumprod(_combine("prod", input, mask), _canonical_dim(dim, input.ndim)[0], dtype=dt).to(dt)


def amax(input, dim=None, *, keepdim: bool | None = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The maximum over `dim` of the elements where `mask` is True (-inf, or the integer minimum,
    where none is)."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _amax(_combine("amax", input, mask), _canonical_dim(dim, input.ndim), bool(keepdim)).to(dt)


def amin(input, dim=None, *, keepdim: bool | None = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The minimum over `dim` of the elements where `mask` is True (+inf, or the integer maximum,
    where none is)."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _amin(_combine("amin", input, mask), _canonical_dim(dim, input.ndim), bool(keepdim)).to(dt)


def argmax(input, dim: int | None = None, *, keepdim: bool | None = False, dtype=None,
           mask: Tensor | None = None) -> Tensor:
    """The index of the maximum along `dim` among the elements where `mask` is True, in `input`'s
    dtype as PyTorch's (0 where none is)."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _argmax(_combine("argmax", input, mask), dim, bool(keepdim)).to(dt)


def argmin(input, dim: int | None = None, *, keepdim: bool | None = False, dtype=None,
           mask: Tensor | None = None) -> Tensor:
    """The index of the minimum along `dim` among the elements where `mask` is True (in `input`'s dtype)."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _argmin(_combine("argmin", input, mask), dim, bool(keepdim)).to(dt)


def _count(input: Tensor, mask, dim, keepdim: bool) -> Tensor:
    if mask is None:
        return _sum(ones(input.shape, dtype=dtypes.int64, device=input.device), _canonical_dim(dim, input.ndim),
                    keepdim)
    return _sum(_input_mask(input, mask), _canonical_dim(dim, input.ndim), keepdim)


def mean(input, dim=None, *, keepdim: bool | None = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The mean over `dim` of the elements where `mask` is True (NaN where none is).

    Raises:
        ValueError: the result's dtype (`dtype`, else `input`'s) is not floating point or complex.
    """
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    if not (dt.is_floating_point or dt.is_complex):
        source = "Input" if dtype is None else "Optional"
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating point or "
                         f"complex dtype. Got: {dt}")
    return sum(input, dim, keepdim=keepdim, dtype=dt, mask=mask) / _count(input, mask, dim, bool(keepdim))


def median(input, dim: int = -1, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The median along `dim` of the elements where `mask` is True (NaN where none is).

    Raises:
        ValueError: an integer input has a slice with no element left (its result cannot hold NaN).
    """
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    x = input if is_float else input.to(dtypes.float32)
    out = nanmedian(_combine("median", x, mask), d, keepdim).values
    if is_float:
        return out
    if bool(out.isnan().any()):
        raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")
    return out.to(dt)


def logsumexp(input, dim=None, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """log(sum(exp(x))) over `dim` of the elements where `mask` is True (-inf where none is)."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _logsumexp(_combine("logsumexp", input, mask), _canonical_dim(dim, input.ndim), keepdim).to(dt)


def logaddexp(input, other, *, dtype=None, input_mask: Tensor | None = None,
              other_mask: Tensor | None = None) -> Tensor:
    """log(exp(input) + exp(other)), each side's masked-out elements counting as -inf."""
    input, input_mask = _split(input, input_mask)
    other, other_mask = _split(other, other_mask)
    dt = input.dtype if dtype is None else dtype
    return _logaddexp(_combine("logaddexp", input, input_mask), _combine("logaddexp", other, other_mask)).to(dt)


def norm(input, ord: float | None = 2.0, dim=None, *,  # noqa: A002 - PyTorch's name
         keepdim: bool | None = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The vector `ord`-norm over `dim` of the elements where `mask` is True (0 where none is;
    +inf for ord=-inf)."""
    input, mask = _split(input, mask)
    order = 2.0 if ord is None else ord
    dt = input.dtype if dtype is None else dtype
    x = _combine("norm", input, mask, order)
    return vector_norm(x, order, _canonical_dim(dim, input.ndim), bool(keepdim), dtype=dt)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt: bool) -> Tensor:
    input, mask = _split(input, mask)
    if unbiased is not None and correction is not None:
        raise ValueError("Only one of unbiased and correction may be given")
    c = 1.0 if unbiased is None else float(bool(unbiased))
    if correction is not None:
        c = float(correction)
    dt = dtype
    if dt is None:
        dt = input.dtype if (input.dtype.is_floating_point or input.dtype.is_complex) else dtypes.float32
    compute = dt if (dt.is_floating_point or dt.is_complex) else dtypes.float32
    inmask = None if mask is None else _input_mask(input, mask)
    count = _count(input, inmask, dim, True)
    x = input - sum(input, dim, keepdim=True, dtype=dt, mask=inmask) / count
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if c != 0:
        real = compute.to_real() if compute.is_complex else compute
        count = maximum(count.to(real) - c, tensor(0, dtype=real, device=input.device))
    out = (total / count).to(dt)
    return sqrt(out) if take_sqrt else out


def var(input, dim=None, unbiased: bool | None = None, *, correction: float | None = None,
        keepdim: bool | None = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The variance over `dim` of the elements where `mask` is True, with Bessel's `correction`
    (1 by default; `unbiased=False` is 0); NaN where no element is left.

    Raises:
        ValueError: both `unbiased` and `correction` are given.
    """
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


def std(input, dim=None, unbiased: bool | None = None, *, correction: float | None = None,
        keepdim: bool | None = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The standard deviation over `dim` of the elements where `mask` is True (see `var`)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


def softmax(input, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    """Softmax along `dim` over the elements where `mask` is True: masked-out elements get 0, and a
    slice with none left is NaN."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _softmax(_combine("amax", input, mask), _canonical_dim(dim, input.ndim)[0], dtype=dt)


def log_softmax(input, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    """Log-softmax along `dim` over the elements where `mask` is True (-inf at masked-out elements)."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _log_softmax(_combine("amax", input, mask), _canonical_dim(dim, input.ndim)[0], dtype=dt)


def softmin(input, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    """Softmin (softmax of -input) along `dim` over the elements where `mask` is True."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    return _softmax(-_combine("amin", input, mask), _canonical_dim(dim, input.ndim)[0], dtype=dt)


def normalize(input, ord: float, dim: int, *, eps: float = 1e-12, dtype=None,  # noqa: A002 - PyTorch's name
              mask: Tensor | None = None) -> Tensor:
    """`input` divided by its masked `ord`-norm along `dim` (at least `eps`); masked-out elements are 0."""
    input, mask = _split(input, mask)
    dt = input.dtype if dtype is None else dtype
    nrm = norm(input, ord, dim, keepdim=True, dtype=dt, mask=mask)
    return _combine("sum", input, mask) / maximum(nrm, tensor(eps, dtype=nrm.dtype, device=nrm.device))


from ember.core.masked_tensor import MaskedTensor, as_masked_tensor, is_masked_tensor, masked_tensor  # noqa: E402
