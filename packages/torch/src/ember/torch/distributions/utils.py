"""Helpers shared by the distribution families: broadcasting parameters, probs <-> logits, lazy properties."""

from __future__ import annotations

import numbers
from functools import update_wrapper

import numpy as np

import ember.autograd as torch
from ember.autograd import Size, Tensor
from ember.core.overrides import is_tensor_like  # noqa: F401 (PyTorch's module imports it: code takes it here)

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property",
           "euler_constant", "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def _finfo(dtype) -> np.finfo:
    """numpy's float limits for an ember floating dtype."""
    return np.finfo(dtype.np)


def broadcast_all(*values) -> tuple[Tensor, ...]:
    """Broadcast numbers and tensors to one shape; numbers become tensors of the tensors' dtype and device.

    Raises:
        ValueError: when an argument is neither a number nor a Tensor.
    """
    if not all(isinstance(v, Tensor | numbers.Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        like = next((v for v in values if isinstance(v, Tensor)), None)
        opts = {"dtype": torch.get_default_dtype()} if like is None else {"dtype": like.dtype, "device": like.device}
        values = tuple(v if isinstance(v, Tensor) else torch.tensor(float(v), **opts) for v in values)
    return tuple(torch.broadcast_tensors(*values))


def _standard_normal(shape, dtype, device) -> Tensor:
    """PyTorch's draw: an in-place fill of a fresh tensor (so vmap(randomness="different") refuses it, as PyTorch's)."""
    with torch.no_grad():
        return torch.empty(tuple(shape), dtype=dtype, device=device).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the `dim` rightmost dimensions of `value`."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: a sigmoid for binary events, a softmax over the last dim otherwise."""
    return torch.sigmoid(logits) if is_binary else torch.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Clamp into [eps, 1 - eps] so that logarithms stay finite."""
    eps = float(_finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities (log-odds when binary, log-probabilities otherwise)."""
    ps = clamp_probs(probs)
    return torch.log(ps) - torch.log1p(-ps) if is_binary else torch.log(ps)


def _infer_size(a, b) -> Size:
    return Size(np.broadcast_shapes(tuple(a), tuple(b)))


class lazy_property:  # noqa: N801  (PyTorch's name)
    """A property computed on first access and then stored in the instance's `__dict__`.

    A distribution built from `probs` computes `logits` only when asked, and its `__dict__` then says
    which parameterization it was built with (its repr and `expand` rely on that).
    """

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value


class _lazy_property_and_property(lazy_property, property):
    """What the class attribute reads as: a lazy_property that is also a property (for docs and isinstance)."""

    def __init__(self, wrapped) -> None:
        property.__init__(self, wrapped)
        self.wrapped = wrapped


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (below diagonal `diag`) of the last two dims, row by row, as a vector."""
    n = mat.shape[-1]
    rows, cols = np.tril_indices(n, k=diag)
    return mat[..., torch.as_tensor(rows), torch.as_tensor(cols)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of `tril_matrix_to_vec`: a lower-triangular matrix from its row-major entries."""
    m = vec.shape[-1]
    root = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(root) - root > float(_finfo(vec.dtype).eps):  # PyTorch's one-sided test: a size just above D fails later
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as the lower triangular part "
                         "of a square D x D matrix.")
    n = round(root)
    rows, cols = np.tril_indices(n, k=diag)
    if len(rows) != m:
        raise RuntimeError(f"shape mismatch: value tensor of shape [{m}] cannot be broadcast to indexing result of "
                           f"shape [{len(rows)}]")
    flat = np.ravel_multi_index((rows, cols), (n, n))
    out = vec.new_zeros(tuple(vec.shape[:-1]) + (n * n,))
    index = torch.as_tensor(flat).expand(tuple(vec.shape[:-1]) + (m,))
    return out.scatter(-1, index, vec).reshape(tuple(vec.shape[:-1]) + (n, n))


def _numpy_generator(numel: int, device) -> np.random.Generator:
    """A numpy generator for one draw from ember's default generator of `device` (NOTE [ Philox streams ]).

    Families that numpy samples better than ember's kernels (gamma, binomial) draw through this, so that
    `manual_seed` reproduces them like every other sample.
    """
    seed, offset = torch.philox_seed_offset(None, max(int(numel), 1), device)
    return np.random.Generator(np.random.Philox(key=seed, counter=[0, offset % (1 << 64), offset >> 64, 0]))


def _to_numpy(x: Tensor) -> np.ndarray:
    return np.asarray(x.detach().cpu().numpy())


def _like(array: np.ndarray, x: Tensor) -> Tensor:
    """`array` as a tensor of x's dtype and device."""
    return torch.as_tensor(np.array(array, dtype=x.dtype.np, order="C")).to(x.device)


_EMPTY = Size()  # the default sample_shape: one sample
