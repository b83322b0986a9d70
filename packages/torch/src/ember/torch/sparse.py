"""`torch.sparse`: products, sums and softmaxes of sparse COO/CSR tensors (docs/sparse.md).

The tensors, their kernels and validation live in `ember.core.sparse`; the gradient of the product in
`ember.autograd.sparse`. This module gives them PyTorch's names.
"""

from __future__ import annotations

import contextlib
import warnings

from ember.core import dtypes
from ember.core import sparse as _sparse
from ember.core.dispatch import node_name
from ember.core.sparse import SparseTensor, sparse_coo_tensor
from ember.core.sparse_ops import (
    sampled_addmm, sparse_addmm, sparse_log_softmax, sparse_mm, sparse_softmax, sparse_sum, spdiags,
)
from ember.core.tensor import Tensor

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "spmm", "spdiags", "sampled_addmm",
           "check_sparse_tensor_invariants", "as_sparse_gradcheck", "FloatTensor", "DoubleTensor", "HalfTensor",
           "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor"]


_REDUCES = {"sum": "sum", "mean": "mean", "amax": "amax", "max": "amax", "amin": "amin", "min": "amin"}


def mm(mat1: Tensor, mat2: Tensor, reduce: str | None = None) -> Tensor:
    """sparse (n, k) @ dense (k, m) -> dense (n, m); the sparse operand's gradient is sparse, with its pattern.
    A `reduce` given, even "sum" ("mean", "amax"/"max", "amin"/"min": over each row's stored products, 0 for an
    empty row), is PyTorch's other overload: it takes a CSR `mat1` and records SparseMmReduceImplBackward0.

    Raises:
        RuntimeError: shapes or dtypes that do not multiply, or an unknown `reduce` (and "prod", which PyTorch
            has not enabled).
        NotImplementedError: a `reduce` with a COO `mat1` (PyTorch's missing kernel).
    """
    if reduce is None:
        return sparse_mm(mat1, mat2)
    if reduce == "prod":
        raise RuntimeError("sparse_mm_reduce: reduce type of prod has not been enabled.")
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not getattr(mat1, "is_sparse_csr", False):
        raise NotImplementedError(
            "Could not run 'aten::_sparse_mm_reduce_impl' with arguments from the 'SparseCPU' backend. This could be "
            "because the operator doesn't exist for this backend, or was omitted during the selective/custom build "
            "process (if using custom build).")
    return _csr_mm_reduce(mat1, mat2, _REDUCES[reduce])


def _csr_mm_reduce(csr, dense: Tensor, reduce: str) -> Tensor:
    """Each row of `csr @ dense` reduced over the row's stored products by `reduce` (sum/mean/amax/amin), composed
    of dense ops so autograd differentiates it; its last node named as PyTorch's one."""
    import ember.autograd as _ag

    if reduce == "sum":
        return node_name(sparse_mm(csr, dense), "SparseAddmmBackward0", "SparseMmReduceImplBackward0")

    crow, col, values = csr.crow_indices(), csr.col_indices(), csr.values()
    n, m = csr.shape[0], dense.shape[1]
    rows = _ag.repeat_interleave(_ag.arange(n), crow[1:] - crow[:-1])
    products = values.unsqueeze(1) * dense.index_select(0, col)
    counts = _ag.bincount(rows, minlength=n).to(products.dtype).unsqueeze(1)
    zeros = _ag.zeros((n, m), dtype=products.dtype)
    if reduce == "mean":
        return node_name(zeros.index_add(0, rows, products) / counts.clamp(min=1), "DivBackward0",
                         "SparseMmReduceImplBackward0")
    index = rows.unsqueeze(1).expand(-1, m)
    return node_name(zeros.scatter_reduce(0, index, products, reduce, include_self=False), "ScatterReduceBackward0",
                     "SparseMmReduceImplBackward0")


def spmm(input: Tensor, mat2: Tensor) -> Tensor:
    """`torch.spmm`: the same product as `torch.sparse.mm`."""
    return sparse_mm(input, mat2)


def addmm(mat: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1.0, alpha: float = 1.0) -> Tensor:
    """`beta * mat + alpha * (mat1 @ mat2)` for a sparse `mat1`."""
    return sparse_addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input: Tensor, dim=None, dtype=None):  # noqa: A001 - PyTorch's name
    """All stored values summed (a dense 0-dim tensor), or summed over `dim` (sparse while sparse dims remain)."""
    return sparse_sum(input, dim, dtype)


def softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Softmax over the stored elements of each slice along `dim`; unstored elements count as -inf."""
    return sparse_softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Log-softmax over the stored elements of each slice along `dim`."""
    return sparse_log_softmax(input, dim, dtype)


class check_sparse_tensor_invariants(contextlib.ContextDecorator):
    """PyTorch's switch for checking sparse indices when a tensor is made: ember always checks them (its
    kernels do not bounds-check), so this context and its `enable`/`disable` only record that the program chose,
    which silences the constructors' "implicitly disabled" warning, as in PyTorch."""

    def __init__(self, enable: bool = True) -> None:
        self.enable = enable

    @staticmethod
    def is_enabled() -> bool:
        return True

    @staticmethod
    def enable() -> None:
        """Checks are always on in ember."""
        _sparse.invariants_chosen[0] = True

    @staticmethod
    def disable() -> None:
        """Checks stay on in ember: its kernels rely on them."""
        _sparse.invariants_chosen[0] = True

    def __enter__(self):
        _sparse.invariants_chosen[0] = True
        return self

    def __exit__(self, *exc) -> None:
        return None


def as_sparse_gradcheck(gradcheck):
    """Wrap `gradcheck` (or `gradgradcheck`) so that sparse inputs that require grad are checked through their
    values (perturbed at the stored elements only) and sparse outputs are compared densely."""
    def gradcheck_with_sparse_support(func, inputs, **kwargs):
        inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        shells = [x if isinstance(x, SparseTensor) and x.requires_grad else None for x in inputs]
        flat = tuple(x._values().detach().requires_grad_() if shell is not None else x
                     for x, shell in zip(inputs, shells))

        def on_values(*args):
            out = func(*[shell._with_values(a) if shell is not None else a for a, shell in zip(args, shells)])
            if isinstance(out, tuple):
                return tuple(o.to_dense() if isinstance(o, SparseTensor) else o for o in out)
            return out.to_dense() if isinstance(out, SparseTensor) else out

        return gradcheck(on_values, flat, **kwargs)

    return gradcheck_with_sparse_support


class _LegacySparseType(type):
    """`torch.sparse.FloatTensor` and friends: the deprecated constructors of COO tensors of one dtype
    (`FloatTensor(indices, values, size)`, `FloatTensor(*size)` for an empty one), which older GNN code
    (Kipf's pygcn) calls; `isinstance` checks layout and dtype."""

    def __call__(cls, *args, device=None):
        if args and isinstance(args[0], Tensor):
            warnings.warn("torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  Please use "
                          "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).", UserWarning,
                          stacklevel=2)
            indices, values, *size = args
            return sparse_coo_tensor(indices, values, tuple(size[0]) if size else None, dtype=cls.dtype, device=device,
                                     check_invariants=True)  # the legacy path gives only its own warning
        warnings.warn("torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
                      "torch.sparse_coo_tensor(shape, dtype=, device=).", UserWarning, stacklevel=2)
        from ember.core.creation import zeros

        size = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], int) else tuple(args)
        return sparse_coo_tensor(zeros((len(size), 0), dtype=dtypes.int64), zeros((0,), dtype=cls.dtype), size,
                                 check_invariants=True)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, SparseTensor) and obj.is_sparse and obj.dtype is cls.dtype


def _legacy(name: str, dtype) -> type:
    return _LegacySparseType(name, (), {"dtype": dtype, "__module__": "torch.sparse",
                                        "__doc__": f"Deprecated constructor of sparse COO {dtype} tensors."})


FloatTensor = _legacy("FloatTensor", dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", dtypes.float64)
HalfTensor = _legacy("HalfTensor", dtypes.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", dtypes.bfloat16)
ByteTensor = _legacy("ByteTensor", dtypes.uint8)
CharTensor = _legacy("CharTensor", dtypes.int8)
ShortTensor = _legacy("ShortTensor", dtypes.int16)
IntTensor = _legacy("IntTensor", dtypes.int32)
LongTensor = _legacy("LongTensor", dtypes.int64)
