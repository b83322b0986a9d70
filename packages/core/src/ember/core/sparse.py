"""Sparse COO and CSR tensors (`torch.sparse_coo_tensor`, `Tensor.to_sparse`, `torch.sparse_csr_tensor`).

A sparse tensor keeps its indices and its values as two strided tensors: COO holds `indices` (sparse_dim, nnz)
int64 and `values` (nnz, *dense_shape); CSR (2-D, no dense dims) holds `crow_indices` (rows + 1,),
`col_indices` (nnz,) and `values` (nnz,). Every index is validated against the size when the tensor is made,
so the kernels (`ember.core.sparse_kernels`) read in bounds.

NOTE [ Sparse tensors beside the dense path ]
`SparseTensor` subclasses `Tensor`, so `isinstance(adj, Tensor)` holds and Python's operator rules send
`dense @ adj`, `dense * adj`, `dense + adj` to the subclass's reflected methods before the dense ones. It
has no storage of its own: `_storage` is a `_NoStorage` whose data read (`_raw`, as `_np()`) raises
PyTorch's NotImplementedError naming the op and the 'SparseCPU' backend. A dense op handed a sparse tensor
therefore fails loudly inside its kernel, and the dispatcher checks nothing for it: dense tensors pay no
test. `torch.mm`, `torch.matmul` and `torch.addmm` catch that error (a `try` costs nothing until it
raises) and rerun on the sparse operand's own method. Gradients flow through the values tensor: ops
on a sparse tensor compute its new values with differentiable dense ops (index_add, mul) or, for the
products, with the autograd layer's function (`ember.core.sparse_ops.set_mm`); `requires_grad` and `grad`
of a sparse tensor are those of its values, so a leaf's gradient is sparse, with its own pattern, as
PyTorch's torch.sparse.mm. A dense op that only reads metadata (a functional `torch.reshape(s, ...)`) makes
a strided tensor over the `_NoStorage`, which refuses as soon as its data is read.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import node_name
from ember.core.ops._util import named_as, warn_once
from ember.core.ops.tensor_utils import layout
from ember.core.tensor import Tensor, contiguous_strides

__all__ = ["SparseTensor", "sparse_coo", "sparse_csr", "sparse_coo_tensor", "sparse_csr_tensor", "to_sparse",
           "to_sparse_csr", "is_sparse_operand", "add_sparse_", "SparseLayoutError"]

sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
_BACKEND = {"sparse_coo": "SparseCPU", "sparse_csr": "SparseCsrCPU"}


@named_as("NotImplementedError")
class SparseLayoutError(NotImplementedError):
    """A dense op reached a sparse tensor (PyTorch's "Could not run 'aten::op' ... 'SparseCPU' backend")."""


def _op_name() -> str:
    """The name of the dispatched op on the stack (error path only): the dispatcher's or autograd's `op`."""
    f = sys._getframe(2)
    for _ in range(40):
        if f is None:
            break
        for key in ("op", "self"):
            v = f.f_locals.get(key)
            if v is not None and type(v).__name__ == "Op":
                return v.name
        f = f.f_back
    return "unknown"


# PyTorch's operator names where ember declares an op under another (`linalg.vector_norm` is ember's vector_norm)
_ATEN_NAMES = {"vector_norm": "linalg_vector_norm"}


def _refusal(layout_name: str, op: str | None = None) -> SparseLayoutError:
    op = op or _op_name()
    op = _ATEN_NAMES.get(op, op)
    return SparseLayoutError(f"Could not run 'aten::{op}' with arguments from the '{_BACKEND[layout_name]}' "
                             f"backend: ember's sparse tensors (layout torch.{layout_name}) do not support it; "
                             "see docs/sparse.md")


class _NoStorage:
    """The storage slot of a sparse tensor: a device and a version, and no data to read."""

    __slots__ = ("device", "version", "layout")
    nbytes = 0
    _shared = _block = None

    def __init__(self, dev, layout_name: str) -> None:
        self.device = dev
        self.version = 0
        self.layout = layout_name

    @property
    def root(self) -> _NoStorage:
        """Itself, as `Storage.root` (capture and checkpoints key storages by it)."""
        return self

    def __getattr__(self, name):
        raise _refusal(object.__getattribute__(self, "layout"))


# --- validation ------------------------------------------------------------------------------------
def _as_index(x, what: str) -> Tensor:
    from ember.core.creation import tensor

    t = x if isinstance(x, Tensor) else tensor(x, dtype=dtypes.int64)
    if type(t) is not Tensor:
        raise TypeError(f"{what} must be a strided tensor; got layout {t.layout}")
    if t._dtype is dtypes.bool or t._dtype.is_complex:
        raise RuntimeError(f"{what} must be an int64 tensor")
    return t.detach() if t._requires_grad else t


def _as_values(x, dtype) -> Tensor:
    from ember.core.creation import tensor

    if isinstance(x, Tensor):
        if type(x) is SparseTensor:
            raise TypeError("values must be a strided tensor")
        return x if dtype is None or x._dtype is dtype else x.to(dtype)
    return tensor(x, dtype=dtype)


def _check_coo_bounds(idx: np.ndarray, size: tuple) -> None:
    """Every index in [0, size[d]) (PyTorch's check_invariants messages); the kernels rely on it."""
    if idx.shape[1] == 0:
        return
    lo, hi = idx.min(axis=1), idx.max(axis=1)
    for d in range(idx.shape[0]):
        if lo[d] < 0:
            raise RuntimeError(f"found negative index {int(lo[d])} for dim {d}")
        if hi[d] >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                               f"index {int(hi[d])}")


def _alias(t: Tensor) -> Tensor:
    """A tensor over `t`'s memory outside any graph (`detach` without the autograd layer)."""
    return Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype)


def _set_grad_leaf(values: Tensor, requires_grad: bool) -> Tensor:
    if not requires_grad:
        return values
    if not (values._dtype.is_floating_point or values._dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return values.detach().requires_grad_()


def sparse_coo_tensor(indices=None, values=None, size=None, *, dtype=None, device=None, pin_memory: bool = False,
                      requires_grad: bool = False, check_invariants: bool | None = None,
                      is_coalesced: bool | None = None) -> SparseTensor:
    """A sparse COO tensor of `values` (nnz, *dense) at `indices` (sparse_dim, nnz); `size` inferred if None.

    Indices are always checked against `size` (ember's kernels do not bounds-check), as PyTorch checks them
    with `check_invariants=True`.

    >>> from ember.core.sparse import sparse_coo_tensor
    >>> sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2)).to_dense()
    tensor([[0., 1.],
            [2., 0.]])

    Raises:
        RuntimeError: indices out of range, nnz or size inconsistent with the values (PyTorch's messages).
    """
    if values is None and size is None and isinstance(indices, tuple | list) and all(
            isinstance(n, int) for n in indices):
        indices, size = None, indices  # PyTorch's sparse_coo_tensor(size) overload
    if indices is None and values is None:
        if size is None:
            raise TypeError("sparse_coo_tensor() missing 2 required positional arguments: 'indices' and 'values'")
        from ember.core.creation import empty

        dt = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
        indices, values = empty((len(size), 0), dtype=dtypes.int64), empty((0,), dtype=dt)
    i = _as_index(indices, "indices")
    v = _as_values(values, dtype)
    if size is not None and i.ndim and v.ndim and len(size) != i._shape[0] + v.ndim - 1:  # PyTorch checks this first
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {i._shape[0]}, dense_dim = {v.ndim - 1}")
    if i.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(i._shape)}")
    if v.ndim == 0:
        raise RuntimeError("values must have at least one dimension (nnz)")
    sparse_dim, nnz = i._shape
    if v._shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {v._shape[0]}")
    idx = np.array(i._np(), dtype=np.int64, order="C")  # a copy: the caller's later writes must not pass the check
    dense_shape = tuple(v._shape[1:])
    if size is None:
        if nnz and idx.min() < 0:
            raise RuntimeError(f"found negative index {int(idx.min())} for dim {int(idx.min(axis=1).argmin())}")
        sizes = tuple(int(s) + 1 for s in idx.max(axis=1)) if nnz else (0,) * sparse_dim
        size = sizes + dense_shape
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + len(dense_shape):
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {len(dense_shape)}")
    if size[sparse_dim:] != dense_shape:
        raise RuntimeError(f"values has incorrect size, expected {[nnz, *size[sparse_dim:]]}, got {list(v._shape)}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    _check_coo_bounds(idx, size)
    if device is not None and str(device) != "cpu":
        raise RuntimeError(f"sparse_coo_tensor: ember's sparse tensors live on the CPU only; got device {device}")
    if is_coalesced and nnz > 1 and not (np.diff(_linear(idx, size[:sparse_dim])) > 0).all():
        # the products read a coalesced tensor's indices as sorted rows: a false claim would give wrong sums
        raise RuntimeError("cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor")
    coalesced = bool(is_coalesced) or nnz < 2
    return SparseTensor._coo(Tensor._wrap(idx), _set_grad_leaf(v, requires_grad), size, coalesced)


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory: bool = False, requires_grad: bool = False,
                      check_invariants: bool | None = None) -> SparseTensor:
    """A 2-D sparse CSR tensor: row `r` holds `values[crow[r]:crow[r+1]]` at columns `col_indices[...]`.

    Raises:
        RuntimeError: the row pointers or columns break CSR's invariants (PyTorch's messages).
    """
    crow = np.array(_as_index(crow_indices, "crow_indices")._np(), dtype=np.int64, order="C")  # copies, as COO's
    col = np.array(_as_index(col_indices, "col_indices")._np(), dtype=np.int64, order="C")
    v = _as_values(values, dtype)
    if crow.ndim != 1 or col.ndim != 1 or v.ndim != 1:
        raise RuntimeError("sparse_csr_tensor: ember supports 2-D CSR tensors without batch or dense dims: "
                           "crow_indices, col_indices and values must be 1-D")
    if col.shape[0] != v._shape[0]:
        raise RuntimeError("col_indices and values must have the same number of elements, but got "
                           f"{col.shape[0]} and {v._shape[0]}")
    if crow.shape[0] == 0:
        raise RuntimeError("crow_indices must have at least one element")
    if size is None:
        size = (crow.shape[0] - 1, int(col.max()) + 1 if col.size else 0)
    size = tuple(int(s) for s in size)
    if len(size) != 2:
        raise RuntimeError(f"sparse_csr_tensor: ember supports 2-D CSR tensors; got size {list(size)}")
    if crow.shape[0] != size[0] + 1:
        raise RuntimeError(f"crow_indices.size(-1) == nrows + 1 is not satisfied: got {crow.shape[0]} for "
                           f"{size[0]} rows")
    if crow[0] != 0:
        raise RuntimeError("`crow_indices[..., 0] == 0` is not satisfied.")
    if crow[-1] != col.shape[0]:
        raise RuntimeError("`crow_indices[..., -1] == nnz` is not satisfied.")
    step = np.diff(crow)
    if step.size and (step.min() < 0 or step.max() > size[1]):
        raise RuntimeError("`0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.")
    if col.size and (col.min() < 0 or col.max() >= size[1]):
        raise RuntimeError("`0 <= col_indices < ncols` is not satisfied.")
    return SparseTensor._csr(crow, col, _set_grad_leaf(v, requires_grad), size)


# --- the tensor ------------------------------------------------------------------------------------
def _refusing(op: str):
    """A method of SparseTensor that PyTorch's sparse layouts do not have (or ember does not give them)."""
    def refuse(self, *args, **kwargs):
        raise _refusal(self._sp_layout.name, op)

    refuse.__name__ = refuse.__qualname__ = op
    return refuse


class SparseTensor(Tensor):
    """A sparse COO or CSR tensor: indices and values (NOTE [ Sparse tensors beside the dense path ])."""

    _dense_like = False

    @staticmethod
    def _blank(size: tuple, values: Tensor, layout_name: str) -> SparseTensor:
        t = Tensor._make(_NoStorage(values._storage.device, layout_name), 0, tuple(size),
                         contiguous_strides(tuple(size)), values._dtype, SparseTensor)
        t._sp_layout = sparse_coo if layout_name == "sparse_coo" else sparse_csr
        t._sp_values = values
        return t

    @classmethod
    def _coo(cls, indices: Tensor, values: Tensor, size: tuple, coalesced: bool) -> SparseTensor:
        t = cls._blank(size, values, "sparse_coo")
        t._sp_indices = indices
        t._sp_coalesced = coalesced
        return t

    @classmethod
    def _csr(cls, crow: np.ndarray, col: np.ndarray, values: Tensor, size: tuple) -> SparseTensor:
        warn_once("Sparse CSR tensor support is in beta state. If you miss a functionality in the sparse tensor "
                  "support, please submit a feature request to https://github.com/pytorch/pytorch/issues.")
        t = cls._blank(size, values, "sparse_csr")
        t._sp_crow, t._sp_col = crow, col
        return t

    def _coo_parts(self) -> tuple[np.ndarray, Tensor]:
        """(indices as an int64 array (sparse_dim, nnz), values) of either layout."""
        if self._sp_layout is sparse_coo:
            return self._sp_indices._np(), self._sp_values
        rows = np.repeat(np.arange(self._shape[0], dtype=np.int64), np.diff(self._sp_crow))
        return np.stack([rows, self._sp_col]), self._sp_values

    def _need_coo(self, op: str) -> None:
        if self._sp_layout is not sparse_coo:
            if op in ("indices", "is_coalesced", "coalesce"):  # PyTorch's own layout checks, not a missing kernel
                raise RuntimeError(f"{op} expected sparse coordinate tensor layout but got SparseCsr")
            raise _refusal("sparse_csr", op)

    # --- what PyTorch's sparse tensors answer ------------------------------------------------------
    @property
    def layout(self):
        return self._sp_layout

    @property
    def is_sparse(self) -> bool:
        return self._sp_layout is sparse_coo

    @property
    def is_sparse_csr(self) -> bool:
        return self._sp_layout is sparse_csr

    @property
    def device(self):
        return self._sp_values.device

    def _np(self):
        raise _refusal(self._sp_layout.name)

    def sparse_dim(self) -> int:
        return 2 if self._sp_layout is sparse_csr else self._sp_indices._shape[0]

    def dense_dim(self) -> int:
        return self._sp_values.ndim - 1

    def _nnz(self) -> int:
        return self._sp_values._shape[0]

    def is_coalesced(self) -> bool:
        self._need_coo("is_coalesced")
        return self._sp_coalesced

    def _indices(self) -> Tensor:
        self._need_coo("_indices")
        return self._sp_indices

    def _values(self) -> Tensor:
        return self._sp_values

    def indices(self) -> Tensor:
        self._need_coo("indices")
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._sp_indices

    def values(self) -> Tensor:
        if self._sp_layout is sparse_coo and not self._sp_coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._sp_values

    def crow_indices(self) -> Tensor:
        if self._sp_layout is not sparse_csr:
            raise RuntimeError(f"crow_indices expected sparse row compressed tensor layout but got "
                               f"{self._sp_layout.name.capitalize().replace('_coo', '')}")
        return Tensor._wrap(self._sp_crow.copy())

    def col_indices(self) -> Tensor:
        if self._sp_layout is not sparse_csr:
            raise RuntimeError(f"col_indices expected sparse row or block row compressed tensor layout but got "
                               f"{self._sp_layout.name.capitalize().replace('_coo', '')}")
        return Tensor._wrap(self._sp_col.copy())

    def is_contiguous(self, memory_format=None) -> bool:
        return False

    def data_ptr(self) -> int:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def stride(self, dim: int | None = None):
        """PyTorch's answer: zeros for COO (no strided memory), an error for CSR."""
        if self._sp_layout is sparse_csr:
            raise RuntimeError("Sparse CSR tensors do not have strides")
        return (0,) * self.ndim if dim is None else 0

    # views and element access share the (absent) storage: refused here rather than made over no data
    view, expand, narrow, select, unsqueeze, squeeze, flatten, as_strided, contiguous, tolist, item, __getitem__, \
        __setitem__, unfold, diagonal = (_refusing(n) for n in (
            "view", "expand", "narrow", "select", "unsqueeze", "squeeze", "flatten", "as_strided", "contiguous",
            "tolist", "item", "index", "index_put_", "unfold", "diagonal"))

    def reshape(self, *shape):
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def numpy(self, *, force: bool = False):
        raise TypeError(f"can't convert {'Sparse' if self.is_sparse else 'SparseCsr'} layout tensor to numpy. Use "
                        "Tensor.to_dense() first.")

    # --- autograd lives on the values -------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._sp_values._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> SparseTensor:
        """Make the values a leaf that requires grad (the sparse tensor's `grad` is then sparse)."""
        if requires_grad and self._sp_values.requires_grad:
            return self
        if requires_grad and not (self._dtype.is_floating_point or self._dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._sp_values = self._sp_values.detach().requires_grad_(requires_grad)
        return self

    @property
    def grad(self) -> SparseTensor | None:
        g = self._sp_values._grad
        return None if g is None else self._with_values(g)

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            raise RuntimeError("ember: only None can be assigned to a sparse tensor's grad")
        self._sp_values._grad = None

    @property
    def grad_fn(self):
        return self._sp_values._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._sp_values._grad_fn is None

    def detach(self) -> SparseTensor:
        return self._with_values(_alias(self._sp_values))

    def clone(self, *, memory_format=None) -> SparseTensor:
        return self._with_values(self._sp_values.clone(), copy_indices=True)

    def copy_(self, src: Tensor, non_blocking: bool = False) -> SparseTensor:
        """Take `src`'s indices and values (cast to this dtype), as `load_state_dict` does for a sparse buffer."""
        if not isinstance(src, SparseTensor) or src._sp_layout is not self._sp_layout:
            raise RuntimeError(f"copy_(): ember copies into a {self._sp_layout.name} tensor only from one of the "
                               "same layout")
        if src._shape != self._shape:
            raise RuntimeError(f"copy_(): sizes of the sparse tensors differ: {list(self._shape)} and "
                               f"{list(src._shape)}")
        values = src._sp_values.to(self._dtype).clone()
        self._sp_values = values if not self._sp_values._requires_grad else values.requires_grad_()
        if self._sp_layout is sparse_coo:
            self._sp_indices, self._sp_coalesced = src._sp_indices.clone(), src._sp_coalesced
        else:
            self._sp_crow, self._sp_col = src._sp_crow.copy(), src._sp_col.copy()
        self.__dict__.pop("_sp_pattern", None)
        self.__dict__.pop("_sp_plan", None)
        return self

    def _with_values(self, values: Tensor, copy_indices: bool = False, coalesced: bool | None = None) -> SparseTensor:
        """A sparse tensor of this one's layout, size and indices over `values`."""
        if self._sp_layout is sparse_csr:
            crow, col = (self._sp_crow.copy(), self._sp_col.copy()) if copy_indices else (self._sp_crow, self._sp_col)
            return SparseTensor._csr(crow, col, values, self._shape)
        idx = self._sp_indices.clone() if copy_indices else self._sp_indices
        return SparseTensor._coo(idx, values, self._shape, self._sp_coalesced if coalesced is None else coalesced)

    # --- conversions ------------------------------------------------------------------------------
    def to(self, *args, **kwargs) -> SparseTensor:
        """Cast the values (`to(dtype)`, `to("cpu")`, `to(other)`); only the CPU holds sparse tensors."""
        dt = kwargs.get("dtype")
        for a in args:
            if isinstance(a, dtypes.dtype):
                dt = a
            elif isinstance(a, Tensor):
                dt = a._dtype
            elif a is not None and str(a) != "cpu":
                raise RuntimeError(f"to: ember's sparse tensors live on the CPU only; got {a}")
        dev = kwargs.get("device")
        if dev is not None and str(dev) != "cpu":
            raise RuntimeError(f"to: ember's sparse tensors live on the CPU only; got {dev}")
        if dt is None or dt is self._dtype:
            return self
        return self._with_values(self._sp_values.to(dt))

    def cpu(self, memory_format=None) -> SparseTensor:
        return self

    def double(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.float64)

    def float(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.float32)

    def half(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.float16)

    def bfloat16(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.bfloat16)

    def long(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.int64)

    def int(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.int32)

    def short(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.int16)

    def char(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.int8)

    def byte(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.uint8)

    def bool(self, memory_format=None) -> SparseTensor:
        return self.to(dtypes.bool)

    def type(self, dtype=None, non_blocking: bool = False):
        """`torch.sparse.FloatTensor` and friends (PyTorch names no CSR type), or the tensor cast to `dtype`."""
        if dtype is None:
            if self._sp_layout is sparse_csr:
                raise RuntimeError("Unimplemented backend SparseCsrCPU")
            return "torch.sparse." + Tensor.type(self._sp_values).removeprefix("torch.")
        if isinstance(dtype, dtypes.dtype):
            return self.to(dtype)
        return Tensor.type(self, dtype, non_blocking)

    def to_dense(self, dtype=None, *, masked_grad: bool | None = None) -> Tensor:
        """The dense tensor (duplicates summed); differentiable in the values."""
        from ember.core.creation import zeros

        idx, v = self._coo_parts()
        sparse_dim = idx.shape[0]
        sparse_shape = self._shape[:sparse_dim]
        lin = Tensor._wrap(_linear(idx, sparse_shape))
        flat = zeros((math.prod(sparse_shape),) + tuple(v._shape[1:]), dtype=v._dtype)
        out = flat.index_add(0, lin, v).reshape(self._shape)
        out = node_name(node_name(out, "ViewBackward0", "ToDenseBackward0"), "IndexAddBackward0", "ToDenseBackward0")
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, *args, layout=None, **kwargs) -> SparseTensor:
        if self._sp_layout is sparse_csr:
            if args or kwargs.get("sparse_dim") not in (None, 2):
                raise RuntimeError("to_sparse: ember converts CSR to COO with sparse_dim 2 only")
            return self.to_sparse_coo()
        sd = args[0] if args else kwargs.get("sparse_dim")
        if sd is not None and sd != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                               "!=self.sparse_dim() is not supported")
        return self

    def to_sparse_coo(self) -> SparseTensor:
        if self._sp_layout is sparse_coo:
            return self
        idx, v = self._coo_parts()
        return SparseTensor._coo(Tensor._wrap(idx), v, self._shape, True)

    def to_sparse_csr(self, dense_dim: int | None = None) -> SparseTensor:
        """The CSR form of a 2-D COO tensor without dense dims (coalesced first)."""
        if self._sp_layout is sparse_csr:
            return self
        if self.ndim != 2 or self.dense_dim():
            raise RuntimeError(f"to_sparse_csr: ember converts 2-D COO tensors without dense dims; got size "
                               f"{list(self._shape)} with {self.dense_dim()} dense dims")
        c = self.coalesce()
        idx = c._sp_indices._np()
        crow = np.zeros(self._shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(idx[0], minlength=self._shape[0]), out=crow[1:])
        return SparseTensor._csr(crow, np.ascontiguousarray(idx[1]), c._sp_values, self._shape)

    def coalesce(self) -> SparseTensor:
        """Indices sorted and unique, the values of duplicates summed (differentiable in the values)."""
        self._need_coo("coalesce")
        if self._sp_coalesced:
            return self
        from ember.core.creation import zeros

        v = self._sp_values
        version = self._sp_indices._storage.version
        plan = self.__dict__.get("_sp_plan")
        if plan is None or plan[0] != version:  # the sort is done once per set of indices
            idx = self._sp_indices._np()
            plan = self.__dict__["_sp_plan"] = (version, *_unique_columns(idx, self._shape[:idx.shape[0]]))
        _, uniq, inverse = plan
        summed = zeros((uniq.shape[1],) + tuple(v._shape[1:]), dtype=v._dtype).index_add(0, Tensor._wrap(inverse), v)
        summed = node_name(summed, "IndexAddBackward0", "CoalesceBackward0")
        return SparseTensor._coo(Tensor._wrap(uniq), summed, self._shape, True)

    # --- shape -----------------------------------------------------------------------------------
    def transpose(self, dim0: int, dim1: int) -> SparseTensor:
        self._need_coo("transpose")
        d0, d1 = self._wrap_dim(dim0), self._wrap_dim(dim1)
        sd = self.sparse_dim()
        if d0 == d1:
            return self
        if d0 >= sd or d1 >= sd:
            raise RuntimeError("transpose: ember's sparse tensors swap sparse dims only; got dims "
                               f"{dim0} and {dim1} with sparse_dim {sd}")
        idx = self._sp_indices._np().copy()
        idx[[d0, d1]] = idx[[d1, d0]]
        shape = list(self._shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        return SparseTensor._coo(Tensor._wrap(idx), self._sp_values, tuple(shape), False)

    def permute(self, *dims) -> SparseTensor:
        """The sparse dims reordered (the dense dims stay in place, as PyTorch requires)."""
        self._need_coo("permute")
        order = [self._wrap_dim(d) for d in (dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)]
        sd = self.sparse_dim()
        if sorted(order) != list(range(self.ndim)):
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                               "length of the desired ordering of dimensions i.e. input.dim() = "
                               f"{self.ndim} is not equal to len(dims) = {len(order)}")
        if order[sd:] != list(range(sd, self.ndim)):
            raise RuntimeError("permute(sparse_coo): transpositions between sparse and dense dimensions are not "
                               "allowed. Only transpositions within sparse and within dense dimensions are allowed.")
        idx = np.ascontiguousarray(self._sp_indices._np()[order[:sd]])
        shape = tuple(self._shape[d] for d in order)
        return SparseTensor._coo(Tensor._wrap(idx), self._sp_values, shape, order[:sd] == list(range(sd))
                                 and self._sp_coalesced)

    @property
    def T(self) -> SparseTensor:  # noqa: N802 - PyTorch's name
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self) -> SparseTensor:  # noqa: N802 - PyTorch's name
        return self.transpose(-2, -1)

    def t(self) -> SparseTensor:
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                               f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
        return self.transpose(0, 1) if self.ndim == 2 else self

    # --- arithmetic --------------------------------------------------------------------------------
    def add(self, other, *, alpha=1) -> SparseTensor:
        if not isinstance(other, SparseTensor):
            if isinstance(other, Tensor):
                raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
            raise RuntimeError("add: ember adds a sparse tensor only to a sparse or dense tensor")
        self._need_coo("add")
        other._need_coo("add")
        if self._shape != other._shape:
            raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                               f"{list(self._shape)} while other has size {list(other._shape)} (FYI: op2-sparse "
                               "addition does not currently support broadcasting)")
        if self.sparse_dim() != other.sparse_dim():
            raise RuntimeError(f"add: expected same number of sparse dims, got {self.sparse_dim()} and "
                               f"{other.sparse_dim()}")
        return _merge_add(self, other, alpha)

    __add__ = add

    def __radd__(self, other):
        if isinstance(other, Tensor) and not isinstance(other, SparseTensor):
            return other + self.to_dense()
        return self.add(other)

    def sub(self, other, *, alpha=1) -> SparseTensor:
        return self.add(other, alpha=-alpha)

    __sub__ = sub

    def __rsub__(self, other):
        if isinstance(other, Tensor):
            return other - self.to_dense()
        raise RuntimeError("sub: ember subtracts a sparse tensor only from a tensor")

    def add_(self, other, *, alpha=1) -> SparseTensor:
        """`self += alpha * other` for a sparse `other`, as PyTorch's (the merge of `add`; `.grad` accumulates so)."""
        r = self.add(other, alpha=alpha)
        self._set_parts(r._sp_indices, r._sp_values.to(self._dtype), r._sp_coalesced)
        return self

    def sub_(self, other, *, alpha=1) -> SparseTensor:
        return self.add_(other, alpha=-alpha)

    def mul_(self, other) -> SparseTensor:
        """Scale the values in place by a scalar (or a 0-dim tensor)."""
        if isinstance(other, Tensor) and other.ndim:
            raise RuntimeError("mul_: ember scales a sparse tensor in place by a scalar or a 0-dim tensor only")
        self._sp_values.mul_(other)
        return self

    def div_(self, other) -> SparseTensor:
        if isinstance(other, Tensor) and other.ndim:
            raise RuntimeError("div_: ember divides a sparse tensor in place by a scalar or a 0-dim tensor only")
        self._sp_values.div_(other)
        return self

    def zero_(self) -> SparseTensor:
        """No stored element any more (nnz 0, coalesced), as PyTorch's `zero_` of a sparse tensor."""
        from ember.core.creation import zeros

        self._need_coo("zero_")
        v = self._sp_values
        self._set_parts(zeros((self.sparse_dim(), 0), dtype=dtypes.int64),
                        zeros((0,) + tuple(v._shape[1:]), dtype=v._dtype), True)
        return self

    def __iadd__(self, other) -> SparseTensor:
        return self.add_(other)

    def __isub__(self, other) -> SparseTensor:
        return self.sub_(other)

    def __imul__(self, other) -> SparseTensor:
        return self.mul_(other)

    def __itruediv__(self, other) -> SparseTensor:
        return self.div_(other)

    def _set_parts(self, indices: Tensor, values: Tensor, coalesced: bool) -> None:
        """Replace the indices and values in place (the cached coalescing plan and CSR pattern go with them)."""
        self._sp_indices, self._sp_values, self._sp_coalesced = indices, values, coalesced
        self.__dict__.pop("_sp_pattern", None)
        self.__dict__.pop("_sp_plan", None)

    def norm(self, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
        """`torch.norm` of a COO tensor: the `p`-norm of all its elements (the stored values, duplicates summed
        first), PyTorch's NormBackward1; what PyTorch's sparse kernel refuses (a `dim` short of all of them,
        `keepdim`, `dtype`, `out`, "nuc") is refused in its words."""
        if isinstance(p, str) and p not in ("fro", "nuc"):
            raise RuntimeError(f"only valid string values are 'fro' and 'nuc', found {p}")
        if dtype is not None and isinstance(p, str):
            raise ValueError(f"dtype argument is not supported in {'frobenius' if p == 'fro' else 'nuclear'} norm")
        name = self._sp_layout.name
        if p == "nuc":
            raise _refusal(name, "_linalg_svd")
        if out is not None or self._sp_layout is not sparse_coo:
            raise _refusal(name, "norm.out")
        if dtype is not None:
            raise RuntimeError("norm_sparse currently does not support 'dtype' argument")
        ndim = len(self._shape)
        dims = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
        if dims and {d % max(ndim, 1) for d in dims} != set(range(ndim)):
            raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must either be empty or "
                               "contain all dimensions of the input")
        if keepdim:
            raise RuntimeError("norm_sparse currently does not support keepdim=True")
        if not (self._dtype.is_floating_point or self._dtype.is_complex):
            raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                               f"{dtypes.TORCH_NAMES[self._dtype.name]} instead.")
        r = self.coalesce()._sp_values.norm(2 if p in ("fro", None) else p)
        return node_name(r, "LinalgVectorNormBackward0", "NormBackward1")

    def neg(self) -> SparseTensor:
        return self._with_values(-self._sp_values)

    __neg__ = neg

    def pow(self, exponent) -> SparseTensor:
        """Elementwise power by a number (absent elements stay zero, so PyTorch refuses the zeroth)."""
        if isinstance(exponent, Tensor):
            raise _refusal(self._sp_layout.name, "pow.Tensor_Tensor")
        if exponent == 0:
            raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor "
                               "dense")
        return self._zero_preserving("pow", exponent)

    __pow__ = pow

    def _zero_preserving(self, name: str, *args) -> SparseTensor:
        """A unary op that maps 0 to 0, over the stored values (coalesced first: abs(-1 + 5) is not 1 + 5)."""
        c = self.coalesce() if self._sp_layout is sparse_coo else self
        return c._with_values(getattr(c._sp_values, name)(*args))

    def mul(self, other) -> SparseTensor:
        """Elementwise product with a scalar, a dense tensor broadcast to this size, or a sparse tensor."""
        if isinstance(other, SparseTensor):
            return _mul_sparse(self, other)
        if isinstance(other, Tensor) and other.ndim:
            self._need_coo("mul")
            from ember.core.ops.shape import expand

            if other.ndim > self.ndim:
                raise RuntimeError(f"mul: ember does not broadcast a sparse tensor of size {list(self._shape)} to "
                                   f"the larger dense size {list(other._shape)}")
            for d in range(1, other.ndim + 1):
                o, n = other._shape[-d], self._shape[-d]
                if o != 1 and o != n:
                    raise RuntimeError(f"The size of tensor a ({o}) must match the size of tensor b ({n}) at "
                                       f"non-singleton dimension {self.ndim - d}")
            idx = self._sp_indices._np()
            sd = idx.shape[0]
            if sd == self.ndim:  # read each stored element's operand where it lies: no dense (n, n) expansion
                aligned = (1,) * (self.ndim - other.ndim) + tuple(other._shape)
                at = np.stack([idx[d] if aligned[d] != 1 else np.zeros_like(idx[d]) for d in range(sd)])
                lin = Tensor._wrap(_linear(at, aligned))
                return self._with_values(self._sp_values * other.reshape(-1).index_select(0, lin))
            full = expand(other, self._shape)
            lin = Tensor._wrap(_linear(idx, self._shape[:sd]))
            picked = full.reshape((math.prod(self._shape[:sd]),) + tuple(self._shape[sd:])).index_select(0, lin)
            return self._with_values(self._sp_values * picked)
        return self._with_values(self._sp_values * other)

    __mul__ = mul
    __rmul__ = mul

    def div(self, other) -> SparseTensor:
        if isinstance(other, Tensor) and other.ndim:
            raise RuntimeError("div: ember divides a sparse tensor by a scalar or a 0-dim tensor only")
        return self._with_values(self._sp_values / other)

    __truediv__ = div

    def sum(self, dim=None, keepdim: bool = False, dtype=None):
        from ember.core.sparse_ops import sparse_sum

        return sparse_sum(self, dim, dtype=dtype) if not keepdim else _refuse_keepdim()

    def index_select(self, dim: int, index: Tensor) -> SparseTensor:
        from ember.core.sparse_ops import sparse_index_select

        return sparse_index_select(self, dim, index)

    def mm(self, mat2: Tensor) -> Tensor:
        from ember.core.sparse_ops import sparse_mm

        out = sparse_mm(self, mat2)
        if isinstance(out, SparseTensor):  # sparse @ sparse
            node_name(out._sp_values, "SparseSparseMatmulBackward0", "MmBackward0")
            return out
        return node_name(out, "SparseAddmmBackward0", "MmBackward0")  # torch.mm's, as PyTorch's

    def matmul(self, other: Tensor) -> Tensor:
        if isinstance(other, Tensor) and other.ndim == 1:
            if self.ndim == 2 and self._shape[1] != other._shape[0]:
                raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
            return self.mm(other.unsqueeze(1)).squeeze(1)
        return self.mm(other)

    __matmul__ = matmul

    def __rmatmul__(self, other: Tensor) -> Tensor:
        """dense @ sparse: (sparse^T @ dense^T)^T."""
        from ember.core.sparse_ops import sparse_mm

        if other.ndim == 1:
            return sparse_mm(self.t(), other.unsqueeze(1)).squeeze(1)
        return sparse_mm(self.t(), other.t()).t()

    # --- printing and saving ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        from ember.core.printing import _add_suffixes, _dtype_grad_suffix

        pad = " " * 7
        if self._sp_layout is sparse_coo:
            head = "tensor(indices=" + _bare_repr(self._sp_indices, 22)
        else:
            head = ("tensor(crow_indices=" + _bare_repr(Tensor._wrap(self._sp_crow), 27) + ",\n" + pad
                    + "col_indices=" + _bare_repr(Tensor._wrap(self._sp_col), 26))
        vals = "values=" + _bare_repr(self._sp_values, 21)
        suffix = [f"size={tuple(self._shape)}", f"nnz={self._nnz()}"]
        meta = _dtype_grad_suffix(self._sp_values)
        dt = [s for s in meta if s.startswith("dtype=")]
        grad = [s for s in meta if not s.startswith("dtype=")]
        suffix += dt + [f"layout={self._sp_layout!r}"] + grad
        if self._sp_layout is sparse_coo:
            return _add_suffixes(head + ",\n" + pad + vals + ",\n" + pad + suffix[0], suffix[1:], 7)
        return _add_suffixes(head + ",\n" + pad + vals, suffix, 7)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        if self._sp_layout is sparse_coo:
            return (_rebuild_coo, (self._sp_indices, _alias(self._sp_values), tuple(self._shape),
                                   self._sp_coalesced, self._sp_values._requires_grad))
        return (_rebuild_csr, (Tensor._wrap(self._sp_crow.copy()), Tensor._wrap(self._sp_col.copy()),
                               _alias(self._sp_values), tuple(self._shape), self._sp_values._requires_grad))

    def __deepcopy__(self, memo):
        return self.clone()


def _bare_repr(t: Tensor, indent: int) -> str:
    """`tensor([...])` without the dtype and grad suffixes (PyTorch names them once, on the sparse tensor).

    `indent` is the column the part's elements start at: PyTorch fits its rows to the width left there."""
    from ember.core import printing

    a = t._values() if type(t) is Tensor else Tensor._values(t)
    if a.size == 0:  # PyTorch names the size of every empty part, 1-D included
        return f"tensor([], size={tuple(t._shape)})"
    if a.dtype.kind == "V" or a.dtype.itemsize == 1 and a.dtype.kind == "f" or t._dtype is dtypes.bfloat16:
        a = a.astype(np.float32)
    fmt, width = printing._element_formatter(printing._shown(a))
    return "tensor(" + printing._tensor_str(a, indent, a.size > printing._options["threshold"], fmt, width) + ")"


def _zero_preserving_method(name: str):
    def method(self):
        return self._zero_preserving(name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`{name}` of the stored values (PyTorch's sparse kernels: it maps zero to zero)."
    return method


for _name in ("abs", "sqrt", "sin", "tan", "tanh", "sinh", "asin", "asinh", "atan", "atanh", "relu", "sign", "sgn",
              "square", "floor", "ceil", "round", "trunc", "frac", "expm1", "log1p", "erf", "erfinv", "deg2rad",
              "rad2deg", "isnan", "isinf", "signbit", "nan_to_num"):
    setattr(SparseTensor, _name, _zero_preserving_method(_name))
del _name


def _rebuild_coo(indices, values, size, coalesced, requires_grad):
    """Unpickle a COO tensor, validating its indices as the constructor does."""
    return sparse_coo_tensor(indices, values, size, requires_grad=requires_grad, is_coalesced=coalesced)


def _rebuild_csr(crow, col, values, size, requires_grad):
    return sparse_csr_tensor(crow, col, values, size, requires_grad=requires_grad)


def _refuse_keepdim():
    raise RuntimeError("sum: keepdim=True is not supported for sparse tensors")


def _linear(idx: np.ndarray, shape: tuple) -> np.ndarray:
    """Row-major linear positions of the index columns `idx` (sparse_dim, nnz) in `shape`."""
    if idx.shape[0] == 0:
        return np.zeros(idx.shape[1], dtype=np.int64)
    return np.ravel_multi_index(tuple(idx), shape).astype(np.int64, copy=False) if idx.shape[1] else \
        np.zeros(0, dtype=np.int64)


def _unique_columns(idx: np.ndarray, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The sorted unique columns of `idx` and, per column, the position of its unique one."""
    if idx.shape[1] == 0:
        return idx.copy(), np.zeros(0, dtype=np.int64)
    if math.prod(shape) < 2 ** 62:
        keys, inverse = np.unique(_linear(idx, shape), return_inverse=True)
        return np.stack(np.unravel_index(keys, shape)).astype(np.int64).reshape(idx.shape[0], -1), \
            inverse.astype(np.int64).reshape(-1)
    uniq, inverse = np.unique(idx.T, axis=0, return_inverse=True)
    return np.ascontiguousarray(uniq.T), inverse.astype(np.int64).reshape(-1)


def _mul_sparse(a: SparseTensor, b: SparseTensor) -> SparseTensor:
    """a * b of two sparse tensors of one size: the product at the indices both hold."""
    a._need_coo("mul")
    b._need_coo("mul")
    if a._shape != b._shape:
        raise RuntimeError(f"mul: expected 'self' and 'other' to have same sizes, but {list(a._shape)} != "
                           f"{list(b._shape)}")
    ca, cb = a.coalesce(), b.coalesce()
    sd = ca.sparse_dim()
    la = _linear(ca._sp_indices._np(), a._shape[:sd])
    lb = _linear(cb._sp_indices._np(), a._shape[:sd])
    _, ia, ib = np.intersect1d(la, lb, assume_unique=True, return_indices=True)
    va = ca._sp_values.index_select(0, Tensor._wrap(ia.astype(np.int64)))
    vb = cb._sp_values.index_select(0, Tensor._wrap(ib.astype(np.int64)))
    idx = np.ascontiguousarray(ca._sp_indices._np()[:, ia])
    return SparseTensor._coo(Tensor._wrap(idx), va * vb, a._shape, True)


def _merge_add(a: SparseTensor, b: SparseTensor, alpha) -> SparseTensor:
    """a + alpha * b as PyTorch's CPU kernel: one merge pass over both lists of indices, taking the smaller head
    and summing two equal heads, so two coalesced tensors give a coalesced sum and any other pair a merged list
    (`.grad` of a sparse embedding accumulates so); the lists concatenated when a values tensor is not contiguous;
    an empty operand gives a copy of the other."""
    from ember.core.creation import zeros
    from ember.core.sparse_kernels import merge_slots

    dt = dtypes.promote_types(a._dtype, b._dtype)
    bv = b._sp_values if alpha == 1 else b._sp_values * alpha
    if b._nnz() == 0 or a._nnz() == 0:
        keep, vals = (a, a._sp_values) if b._nnz() == 0 else (b, bv)
        return SparseTensor._coo(keep._sp_indices.clone(), vals.to(dt).clone(), a._shape, keep._sp_coalesced)
    sd = a.sparse_dim()
    ia, ib = a._sp_indices._np(), b._sp_indices._np()
    if not (a._sp_values.is_contiguous() and b._sp_values.is_contiguous()):
        # PyTorch's kernel concatenates when a values tensor is strided (the expanded gradient of a sum), and
        # coalesces once the list outgrows the dense size
        from ember.core.ops.join import cat

        idx = np.concatenate([ia, ib], axis=1)
        r = SparseTensor._coo(Tensor._wrap(idx), cat([a._sp_values.to(dt), bv.to(dt)]), a._shape, False)
        return r.coalesce() if idx.shape[1] > math.prod(a._shape) else r
    la, lb = _linear(ia, a._shape[:sd]), _linear(ib, a._shape[:sd])
    pa, pb = np.empty(la.shape[0], dtype=np.int64), np.empty(lb.shape[0], dtype=np.int64)
    n = merge_slots()(la, lb, pa, pb)
    idx = np.empty((sd, n), dtype=np.int64)
    idx[:, pa] = ia
    idx[:, pb] = ib
    vals = zeros((n,) + tuple(a._sp_values._shape[1:]), dtype=dt)
    vals = vals.index_add(0, Tensor._wrap(pa), a._sp_values.to(dt)).index_add(0, Tensor._wrap(pb), bv.to(dt))
    return SparseTensor._coo(Tensor._wrap(idx), vals, a._shape, a._sp_coalesced and b._sp_coalesced)


def add_sparse_(dense: Tensor, s: SparseTensor, alpha=1) -> Tensor:
    """`dense += alpha * s` in place, as PyTorch's `dense.add_(sparse)`: each stored element (duplicates
    included, in order) added at its position; what optimizers and `.grad` accumulation do with a sparse
    gradient."""
    s._need_coo("add_")
    if tuple(dense._shape) != tuple(s._shape):
        raise RuntimeError(f"add_: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(dense._shape)} while other has size {list(s._shape)}")
    if not dense.is_contiguous():
        return dense.add_(s.to_dense(), alpha=alpha)
    sd = s.sparse_dim()
    lin = Tensor._wrap(_linear(s._sp_indices._np(), s._shape[:sd]))
    flat = dense.view((math.prod(s._shape[:sd]),) + tuple(s._shape[sd:]))
    flat.index_add_(0, lin, s._sp_values.to(dense._dtype), alpha=alpha)
    return dense


def is_sparse_operand(*args) -> bool:
    """Whether any argument is a sparse tensor (the reroute of `mm`/`matmul`/`addmm`, error path only)."""
    return any(isinstance(a, SparseTensor) for a in args)


# --- dense -> sparse ------------------------------------------------------------------------------
def to_sparse(self: Tensor, sparse_dim: int | None = None, *, layout=None, blocksize=None,
              dense_dim: int | None = None) -> SparseTensor:
    """`Tensor.to_sparse`: the nonzero entries (slices, with `sparse_dim` < ndim) as a coalesced COO tensor;
    differentiable (the gradient is dense, as PyTorch's ToSparseBackward)."""
    if isinstance(self, SparseTensor):
        return self.to_sparse(sparse_dim) if sparse_dim is not None else self.to_sparse()
    if layout is sparse_csr:
        return to_sparse_csr(self)
    sd = self.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= sd <= self.ndim:
        raise RuntimeError(f"sparse_dim must be in [0, {self.ndim}], but got {sd}")
    a = self._np()
    nz = a != 0
    if sd < self.ndim:
        nz = nz.reshape(a.shape[:sd] + (-1,)).any(axis=-1)
    idx = np.stack(np.nonzero(nz)).astype(np.int64).reshape(sd, -1) if sd else np.zeros((0, 1), dtype=np.int64)
    lin = Tensor._wrap(_linear(idx, self._shape[:sd]))
    vals = self.reshape((math.prod(self._shape[:sd]),) + tuple(self._shape[sd:])).index_select(0, lin)
    return SparseTensor._coo(Tensor._wrap(idx), vals, tuple(self._shape), True)


def to_sparse_csr(self: Tensor, dense_dim: int | None = None) -> SparseTensor:
    """`Tensor.to_sparse_csr` of a 2-D dense (or COO) tensor."""
    if isinstance(self, SparseTensor):
        return self.to_sparse_csr()
    if self.ndim != 2:
        raise RuntimeError(f"to_sparse_csr: ember converts 2-D tensors; got {self.ndim}-D")
    return to_sparse(self).to_sparse_csr()


def _strided_refusal(name: str, wants: str):
    """The method `name` of a strided tensor, which PyTorch refuses for its layout."""
    def refuse(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {wants} layout but got Strided")

    refuse.__name__ = refuse.__qualname__ = name
    return refuse


def _dense_to_dense(self: Tensor, dtype=None, *, masked_grad: bool | None = None) -> Tensor:
    """`to_dense` of a strided tensor: itself (cast to `dtype` if given)."""
    return self if dtype is None else self.to(dtype)


def _attach() -> None:
    from ember.core.methods import attach

    attach("to_sparse", to_sparse)
    attach("to_sparse_coo", lambda self: to_sparse(self))
    attach("to_sparse_csr", to_sparse_csr)
    attach("to_dense", _dense_to_dense)
    attach("sparse_dim", lambda self: 0)
    attach("dense_dim", lambda self: len(self._shape))
    coo, csr = "sparse coordinate tensor", "sparse row compressed tensor"
    for name, wants in (("coalesce", coo), ("is_coalesced", coo), ("indices", coo), ("values", "sparse tensor"),
                        ("crow_indices", csr), ("col_indices", csr)):
        attach(name, _strided_refusal(name, wants))


_attach()
