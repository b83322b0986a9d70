"""Sparse COO, CSR and CSC tensors (`torch.sparse_coo_tensor`, `Tensor.to_sparse`, `torch.sparse_csr_tensor`).

A sparse tensor keeps its indices and its values as two strided tensors: COO holds `indices` (sparse_dim, nnz)
int64 and `values` (nnz, *dense_shape); CSR (2-D, no dense dims) holds `crow_indices` (rows + 1,),
`col_indices` (nnz,) and `values` (nnz,); CSC holds the same parts column by column (`ccol_indices`,
`row_indices`), as the CSR form of its transpose. Every index is validated against the size when the tensor is made,
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

from ember.core import dispatch as _dispatch_mod
from ember.core import dtypes
from ember.core.dispatch import node_name
from ember.core.ops import _util
from ember.core.ops._util import named_as, warn_once
from ember.core.ops.tensor_utils import layout
from ember.core.tensor import Tensor, contiguous_strides

__all__ = ["SparseTensor", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "sparse_coo_tensor",
           "sparse_csr_tensor", "sparse_csc_tensor", "sparse_compressed_tensor", "to_sparse", "to_sparse_csr",
           "to_sparse_csc", "is_sparse_operand", "add_sparse_", "SparseLayoutError"]

sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
# PyTorch's block-compressed layouts: named (code compares `t.layout` with them); no tensor has them
sparse_bsr, sparse_bsc = layout("sparse_bsr"), layout("sparse_bsc")
_BACKEND = {"sparse_coo": "SparseCPU", "sparse_csr": "SparseCsrCPU", "sparse_csc": "SparseCsrCPU"}
_LAYOUT_NAMES = {"sparse_coo": "Sparse", "sparse_csr": "SparseCsr", "sparse_csc": "SparseCsc"}  # PyTorch's words


@named_as("NotImplementedError")
class SparseLayoutError(NotImplementedError):
    """A dense op reached a sparse tensor (PyTorch's "Could not run 'aten::op' ... 'SparseCPU' backend")."""


def _op_name() -> str:
    """The name of the dispatched op on the stack (error path only): the dispatcher's or autograd's `op`.

    ember's `max()`/`min()` without a dim reduce through amax/amin; PyTorch's refusal names the unary max/min,
    so a calling `_extreme` frame with no dim (ops/reduce.py) names the op instead."""
    f = sys._getframe(2)
    name = "unknown"
    for _ in range(40):
        if f is None:
            break
        if f.f_code.co_name == "_extreme" and f.f_locals.get("dim", 0) is None:
            return f.f_locals["name"]
        for key in ("op", "self"):
            v = f.f_locals.get(key)
            if name == "unknown" and v is not None and type(v).__name__ == "Op":
                name = v.name
        f = f.f_back
    return name


# PyTorch's operator names where ember declares an op under another (`linalg.vector_norm` is ember's vector_norm)
_ATEN_NAMES = {"vector_norm": "linalg_vector_norm", "max_dim": "max.dim", "min_dim": "min.dim"}


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
    return _own_leaf(values)


def _node(values: Tensor, name: str) -> Tensor:
    """`values` behind one identity node named as PyTorch's node `name` for an op that moves only indices or
    layout (the constructors, transposes, conversions): the graph then reads as PyTorch's; `values` itself when
    it records no graph."""
    if not values._requires_grad:
        return values
    return node_name(values.view(values._shape), "ViewBackward0", name)


def _own_leaf(values: Tensor) -> Tensor:
    """A detached copy of `values` as a leaf that belongs to a sparse leaf (not a tensor the caller passed in,
    whose gradient is its own): such a leaf gets a dense gradient anchor (`SparseTensor._grad_anchor`)."""
    leaf = values.detach().requires_grad_()
    leaf.__dict__["_sp_own_leaf"] = True
    return leaf


# whether the program chose to check sparse invariants or not (`torch.sparse.check_sparse_tensor_invariants`): until
# it does, PyTorch's constructors warn once that the checks are implicitly off (ember always checks)
invariants_chosen = [False]


def _warn_unchecked(check_invariants: bool | None) -> None:
    if check_invariants is None and not invariants_chosen[0]:
        warn_once(_util.internally(
            "Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur when operating "
            "on a sparse tensor which violates the invariants, but checks incur performance overhead. To silence this "
            "warning, explicitly opt in or out. See `torch.sparse.check_sparse_tensor_invariants.__doc__` for "
            "guidance. ", "aten/src/ATen/Context.cpp:816"))


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
    _warn_unchecked(check_invariants)  # PyTorch's warning, once a process
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
    v = _set_grad_leaf(v, True) if requires_grad else _node(v, "SparseCooTensorWithDimsAndTensorsBackward0")
    return SparseTensor._coo(Tensor._wrap(idx), v, size, coalesced)


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory: bool = False, requires_grad: bool = False,
                      check_invariants: bool | None = None) -> SparseTensor:
    """A 2-D sparse CSR tensor: row `r` holds `values[crow[r]:crow[r+1]]` at columns `col_indices[...]`.

    Raises:
        RuntimeError: the row pointers or columns break CSR's invariants (PyTorch's messages).
    """
    _warn_unchecked(check_invariants)
    return _compressed(crow_indices, col_indices, values, size, dtype, requires_grad, by_column=False)


def sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory: bool = False, requires_grad: bool = False,
                      check_invariants: bool | None = None) -> SparseTensor:
    """A 2-D sparse CSC tensor: column `c` holds `values[ccol[c]:ccol[c+1]]` at rows `row_indices[...]`.

    Raises:
        RuntimeError: the column pointers or rows break CSC's invariants (PyTorch's messages).
    """
    _warn_unchecked(check_invariants)
    return _compressed(ccol_indices, row_indices, values, size, dtype, requires_grad, by_column=True)


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None, layout=None,
                             device=None, pin_memory: bool = False, requires_grad: bool = False,
                             check_invariants: bool | None = None) -> SparseTensor:
    """A CSR or CSC tensor by its `layout` (`sparse_csr_tensor`/`sparse_csc_tensor` under one name).

    Raises:
        RuntimeError: `layout` is not a compressed one (PyTorch's words), or breaks the layout's invariants.
        NotImplementedError: a block layout (BSR/BSC), which ember's sparse tensors do not have.
    """
    if layout is sparse_csr or layout is sparse_csc:
        make = sparse_csr_tensor if layout is sparse_csr else sparse_csc_tensor
        return make(compressed_indices, plain_indices, values, size, dtype=dtype, requires_grad=requires_grad,
                    check_invariants=check_invariants)
    if layout is sparse_bsr or layout is sparse_bsc:
        raise NotImplementedError(f"ember: sparse_compressed_tensor(layout=torch.{layout.name}) is not supported")
    got = "none" if layout is None else _LAYOUT_NAMES.get(layout.name, "Strided")
    raise RuntimeError(f"sparse_compressed_tensor expected sparse compressed tensor layout but got {got}")


def _compressed(ptr_indices, plain_indices, values, size, dtype, requires_grad: bool, by_column: bool) -> SparseTensor:
    """A CSR tensor, or a CSC one (`by_column`), after CSR's invariants in the layout's own words."""
    ptr_name, idx_name = ("ccol", "row") if by_column else ("crow", "col")
    ptr_t, idx_t = _as_index(ptr_indices, f"{ptr_name}_indices"), _as_index(plain_indices, f"{idx_name}_indices")
    kind = np.int32 if ptr_t._dtype is dtypes.int32 and idx_t._dtype is dtypes.int32 else np.int64  # PyTorch's
    ptr = np.array(ptr_t._np(), dtype=kind, order="C")  # copies
    idx = np.array(idx_t._np(), dtype=kind, order="C")
    v = _as_values(values, dtype)
    layout_name = "sparse_csc" if by_column else "sparse_csr"
    if ptr.ndim != 1 or idx.ndim != 1 or v.ndim != 1:
        raise RuntimeError(f"{layout_name}_tensor: ember supports 2-D compressed tensors without batch or dense "
                           f"dims: {ptr_name}_indices, {idx_name}_indices and values must be 1-D")
    if idx.shape[0] != v._shape[0]:
        raise RuntimeError(f"{idx_name}_indices and values must have the same number of elements, but got "
                           f"{idx.shape[0]} and {v._shape[0]}")
    if ptr.shape[0] == 0:
        raise RuntimeError(f"{ptr_name}_indices must have at least one element")
    if size is None:
        inner = int(idx.max()) + 1 if idx.size else 0
        size = (inner, ptr.shape[0] - 1) if by_column else (ptr.shape[0] - 1, inner)
    size = tuple(int(n) for n in size)
    if len(size) != 2:
        raise RuntimeError(f"{layout_name}_tensor: ember supports 2-D compressed tensors; got size {list(size)}")
    outer, inner = (size[1], size[0]) if by_column else size
    what, inner_name = ("columns", "nrows") if by_column else ("rows", "ncols")
    if ptr.shape[0] != outer + 1:
        raise RuntimeError(f"{ptr_name}_indices.shape[-1] must be equal to the number of {what} + 1 (={outer + 1}), "
                           f"but got {ptr.shape[0]}")
    if ptr[0] != 0:
        raise RuntimeError(f"`{ptr_name}_indices[..., 0] == 0` is not satisfied.")
    if ptr[-1] != idx.shape[0]:
        raise RuntimeError(f"`{ptr_name}_indices[..., -1] == nnz` is not satisfied.")
    step = np.diff(ptr)
    if step.size and (step.min() < 0 or step.max() > inner):
        raise RuntimeError(f"`0 <= {ptr_name}_indices[..., 1:] - {ptr_name}_indices[..., :-1] <= {inner_name}` is "
                           "not satisfied.")
    if idx.size and (idx.min() < 0 or idx.max() >= inner):
        raise RuntimeError(f"`0 <= {idx_name}_indices < {inner_name}` is not satisfied.")
    v = _set_grad_leaf(v, True) if requires_grad else _node(v, "SparseCompressedTensorBackward0")
    return SparseTensor._csc(ptr, idx, v, size) if by_column else SparseTensor._csr(ptr, idx, v, size)


def _keep_index_dtype(src: SparseTensor, out: SparseTensor) -> SparseTensor:
    """`out`, a compressed tensor computed from the compressed `src`, with `src`'s index dtype: PyTorch keeps int32
    row/column indices through its compressed ops (ember computes them in int64)."""
    return _index_dtype(out, (src._sp_crow if src._sp_layout is sparse_csr else src._sp_ccol).dtype)


def _index_dtype(out: SparseTensor, kind) -> SparseTensor:
    """The compressed `out` with its row/column indices in numpy dtype `kind` (int32 or int64), in place."""
    if out._sp_layout is sparse_csr and out._sp_crow.dtype != kind:
        out._sp_crow, out._sp_col = out._sp_crow.astype(kind), out._sp_col.astype(kind)
    elif out._sp_layout is sparse_csc and out._sp_ccol.dtype != kind:
        out._sp_ccol, out._sp_row = out._sp_ccol.astype(kind), out._sp_row.astype(kind)
    return out


# --- the tensor ------------------------------------------------------------------------------------
def _refusing(op: str):
    """A method of SparseTensor that PyTorch's sparse layouts do not have (or ember does not give them)."""
    def refuse(self, *args, **kwargs):
        raise _refusal(self._sp_layout.name, op)

    refuse.__name__ = refuse.__qualname__ = op
    return refuse


_RESIZE_OPTIONS = (
    "You could try the following options:\n1. If you need an empty sparse tensor of this size, call "
    "`x = torch.sparse_coo_tensor(size)`.\n2. If you need to resize this tensor, you have the following options:\n"
    "    1. For both sparse and dense dimensions, keep the number of them constant and the size of them "
    "non-shrinking, and then try the same call again.\n    2. Or, create a new sparse tensor with the correct "
    "indices and values from this sparse tensor.")


_BETA = ("Sparse {} tensor support is in beta state. If you miss a functionality in the sparse tensor support, please "
         "submit a feature request to https://github.com/pytorch/pytorch/issues.")


def _beta_message(kind: str) -> str:
    return _util.internally(_BETA.format(kind), "aten/src/ATen/SparseCsrTensorImpl.cpp:49")


def _beta_warning(kind: str) -> None:
    """PyTorch's one TORCH_WARN_ONCE for both compressed layouts: the first CSR or CSC tensor made names its layout,
    none after it warns (a CSR tensor's transpose, a CSC one, does not), unless warnings are always on."""
    if _util.warn_always[0] or not any(_beta_message(k) in _util._warned_once for k in ("CSR", "CSC")):
        warn_once(_beta_message(kind))


def _index_kind(i) -> str:
    """What an index item does: "int" (a Python or 0-d integer tensor), "none", "ellipsis", "slice", "advanced"."""
    if i is None:
        return "none"
    if i is Ellipsis:
        return "ellipsis"
    if isinstance(i, slice):
        return "slice"
    if isinstance(i, int | np.integer) and not isinstance(i, bool | np.bool_) or (
            isinstance(i, Tensor) and i.__class__ is Tensor and i.ndim == 0
            and i._dtype in (dtypes.int64, dtypes.int32, dtypes.int16, dtypes.int8, dtypes.uint8)):
        return "int"
    return "advanced"


class SparseTensor(Tensor):
    """A sparse COO or CSR tensor: indices and values (NOTE [ Sparse tensors beside the dense path ])."""

    _dense_like = False

    @staticmethod
    def _blank(size: tuple, values: Tensor, layout_name: str) -> SparseTensor:
        t = Tensor._make(_NoStorage(values._storage.device, layout_name), 0, tuple(size),
                         contiguous_strides(tuple(size)), values._dtype, SparseTensor)
        t._sp_layout = {"sparse_coo": sparse_coo, "sparse_csr": sparse_csr, "sparse_csc": sparse_csc}[layout_name]
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
        _beta_warning("CSR")
        t = cls._blank(size, values, "sparse_csr")
        t._sp_crow, t._sp_col = crow, col
        return t

    @classmethod
    def _csc(cls, ccol: np.ndarray, row: np.ndarray, values: Tensor, size: tuple) -> SparseTensor:
        _beta_warning("CSC")
        t = cls._blank(size, values, "sparse_csc")
        t._sp_ccol, t._sp_row = ccol, row
        return t

    def _coo_parts(self) -> tuple[np.ndarray, Tensor]:
        """(indices as an int64 array (sparse_dim, nnz), values) of any layout (a CSC's in column order)."""
        if self._sp_layout is sparse_coo:
            return self._sp_indices._np(), self._sp_values
        if self._sp_layout is sparse_csc:
            cols = np.repeat(np.arange(self._shape[1], dtype=np.int64), np.diff(self._sp_ccol))
            return np.stack([self._sp_row, cols]), self._sp_values
        rows = np.repeat(np.arange(self._shape[0], dtype=np.int64), np.diff(self._sp_crow))
        return np.stack([rows, self._sp_col]), self._sp_values

    def _need_coo(self, op: str) -> None:
        if self._sp_layout is not sparse_coo:
            if op in ("indices", "is_coalesced", "coalesce"):  # PyTorch's own layout checks, not a missing kernel
                raise RuntimeError(f"{op} expected sparse coordinate tensor layout but got "
                                   f"{_LAYOUT_NAMES[self._sp_layout.name]}")
            raise _refusal(self._sp_layout.name, op)

    def _transposed_compressed(self) -> SparseTensor:
        """The transpose of a CSR tensor as CSC or of a CSC one as CSR: the same parts, the size swapped."""
        size = (self._shape[1], self._shape[0])
        values = _node(self._sp_values, "TransposeBackward0")
        if self._sp_layout is sparse_csr:
            return SparseTensor._csc(self._sp_crow, self._sp_col, values, size)
        return SparseTensor._csr(self._sp_ccol, self._sp_row, values, size)

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
        return self._sp_indices._shape[0] if self._sp_layout is sparse_coo else 2

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
        """The values' memory outside the graph, as PyTorch's `_values()` (which records no node)."""
        return _alias(self._sp_values)

    def indices(self) -> Tensor:
        self._need_coo("indices")
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._sp_indices

    def values(self) -> Tensor:
        if self._sp_layout is sparse_coo and not self._sp_coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        v = self._sp_values  # PyTorch's values() is an alias (a view) with autograd metadata of its own
        return _node(v, "ValuesBackward0") if v._requires_grad else v.view(v._shape)

    def _compressed_part(self, name: str, want, attr: str) -> Tensor:
        if self._sp_layout is not want:
            what = "row" if want is sparse_csr else "column"
            raise RuntimeError(f"{name} expected sparse {what} compressed tensor layout but got "
                               f"{_LAYOUT_NAMES[self._sp_layout.name]}")
        return Tensor._wrap(getattr(self, attr).copy())

    def crow_indices(self) -> Tensor:
        return self._compressed_part("crow_indices", sparse_csr, "_sp_crow")

    def col_indices(self) -> Tensor:
        return self._compressed_part("col_indices", sparse_csr, "_sp_col")

    def ccol_indices(self) -> Tensor:
        return self._compressed_part("ccol_indices", sparse_csc, "_sp_ccol")

    def row_indices(self) -> Tensor:
        return self._compressed_part("row_indices", sparse_csc, "_sp_row")

    def is_contiguous(self, memory_format=None) -> bool:
        return False

    def data_ptr(self) -> int:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def stride(self, dim: int | None = None):
        """PyTorch's answer: zeros for COO (no strided memory), an error for CSR and CSC."""
        if self._sp_layout is not sparse_coo:
            raise RuntimeError(f"Sparse {self._sp_layout.name[-3:].upper()} tensors do not have strides")
        return (0,) * self.ndim if dim is None else 0

    # views and element access share the (absent) storage: refused here rather than made over no data
    view, expand, squeeze, flatten, as_strided, contiguous, tolist, item, \
        __setitem__, unfold, diagonal = (_refusing(n) for n in (
            "view", "expand", "squeeze", "flatten", "as_strided", "contiguous",
            "tolist", "item", "index_put_", "unfold", "diagonal"))

    def narrow(self, dim: int, start: int, length: int):
        """A strided view in PyTorch, so refused as there (`narrow_copy` copies the stored elements instead)."""
        if self._sp_layout is not sparse_coo:
            raise RuntimeError(f"Sparse {self._sp_layout.name[-3:].upper()} tensors do not have strides")
        raise _refusal(self._sp_layout.name, "as_strided")

    def __getitem__(self, index):
        """`s[i]`, `s[i, j]`, `s[None]`, `s[..., i]`: integers select (a COO result while sparse dims remain, else
        dense; a CSR/CSC tensor's as COO), None adds a dim, as PyTorch's. Slices need strides, which sparse tensors
        lack (PyTorch: `aten::as_strided` for COO, "do not have strides" for CSR/CSC); masks and index tensors are
        PyTorch's `aten::index.Tensor`, which has no sparse kernel."""
        items = index if isinstance(index, tuple) else (index,)
        kinds = [_index_kind(i) for i in items]
        if self._sp_layout is not sparse_coo and any(k in ("slice", "advanced", "none") for k in kinds):
            raise RuntimeError(f"Sparse {self._sp_layout.name[-3:].upper()} tensors do not have strides")
        if "slice" in kinds:
            raise _refusal(self._sp_layout.name, "as_strided")
        if "advanced" in kinds or kinds.count("ellipsis") > 1 or kinds.count("int") > self.ndim:
            raise _refusal(self._sp_layout.name, "index.Tensor")
        out = self if self._sp_layout is sparse_coo else self.to_sparse_coo()
        d = src = 0  # the dim of `out` the next item indexes, and of `self`
        for pos, (i, kind) in enumerate(zip(items, kinds)):
            if kind == "none":
                out, d = out.unsqueeze(d), d + 1
            elif kind == "ellipsis":
                skip = out.ndim - kinds[pos + 1:].count("int") - d
                d, src = d + skip, src + skip
            else:
                i, n = int(i), out._shape[d]
                if not -n <= i < n:
                    raise IndexError(f"index {i} is out of bounds for dimension {src} with size {n}")
                out, src = out.select(d, i), src + 1
        return out

    def _kept(self, keep: np.ndarray, idx: np.ndarray, shape: tuple, coalesced: bool = False) -> SparseTensor:
        """The stored elements `keep` (a mask over them) with indices `idx`: uncoalesced unless `coalesced` or
        fewer than two, as PyTorch's select and narrow_copy say."""
        at = Tensor._wrap(np.flatnonzero(keep).astype(np.int64))
        return SparseTensor._coo(Tensor._wrap(np.ascontiguousarray(idx)), self._sp_values.index_select(0, at), shape,
                                 coalesced or int(keep.sum()) < 2)

    def select(self, dim: int, index: int) -> SparseTensor | Tensor:
        """The slice at `index` of `dim`: the elements stored there, one sparse dim fewer (differentiable)."""
        self._need_coo("select")
        d, sd = self._wrap_dim(dim), self.sparse_dim()
        n = self._shape[d]
        if not -n <= index < n:
            raise IndexError(f"select(): index {index} out of range for tensor of size {list(self._shape)} at "
                             f"dimension {d}")
        index %= n
        shape = self._shape[:d] + self._shape[d + 1:]
        if d >= sd:  # a dense dim: every element's values, sliced
            return self._with_values(self._sp_values.select(d - sd + 1, index))._reshaped(shape)
        idx = self._sp_indices._np()
        keep = idx[d] == index
        if sd == 1:  # no sparse dim left: the dense slice, duplicates summed
            return self._sp_values.index_select(0, Tensor._wrap(np.flatnonzero(keep).astype(np.int64))).sum(0)
        return self._kept(keep, np.delete(idx[:, keep], d, axis=0), shape)

    def narrow_copy(self, dim: int, start: int, length: int) -> SparseTensor:
        """The elements with `start <= index < start + length` along a sparse dim, shifted to start at 0."""
        self._need_coo("narrow_copy")
        d, sd = self._wrap_dim(dim), self.sparse_dim()
        if d >= sd:
            raise _refusal("sparse_coo", "narrow_copy")
        start = start + self._shape[d] if start < 0 else start
        if start < 0 or length < 0 or start + length > self._shape[d]:
            raise RuntimeError("Invalid range to narrow. range(start, start+length) must be a subset of range(0, "
                               f"{self._shape[d]}).")
        idx = self._sp_indices._np()
        keep = (idx[d] >= start) & (idx[d] < start + length)
        out = idx[:, keep].copy()
        out[d] -= start
        shape = list(self._shape)
        shape[d] = length
        return self._kept(keep, out, tuple(shape), self._sp_coalesced)  # order kept: still sorted

    def unsqueeze(self, dim: int) -> SparseTensor:
        """A size-1 dim at `dim`: a sparse one (an index row of zeros) within the sparse dims, else a dense one."""
        self._need_coo("unsqueeze")
        n = self.ndim + 1
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        d, sd = dim % n, self.sparse_dim()
        shape = self._shape[:d] + (1,) + self._shape[d:]
        few = self._nnz() < 2  # PyTorch's result claims no order otherwise
        if d > sd:
            return SparseTensor._coo(self._sp_indices, self._sp_values.unsqueeze(d - sd + 1), shape, few)
        idx = np.insert(self._sp_indices._np(), d, 0, axis=0)
        return SparseTensor._coo(Tensor._wrap(np.ascontiguousarray(idx)), self._sp_values, shape, few)

    def _reshaped(self, shape: tuple) -> SparseTensor:
        """This tensor's parts under a size whose dense part the values now have (after slicing a dense dim)."""
        return SparseTensor._coo(self._sp_indices, self._sp_values, tuple(shape), self._nnz() < 2)

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
        self._sp_values = _own_leaf(self._sp_values) if requires_grad else self._sp_values.detach()
        return self

    @property
    def grad(self) -> Tensor | None:
        """Sparse (the values' gradient, `torch.sparse.mm`'s) or dense (`torch.mm`'s, its `_grad_anchor`'s)."""
        g = self._sp_values._grad
        sparse = None if g is None else self._with_values(g) if self._sp_layout is not sparse_coo \
            or self._sp_coalesced or g._shape[0] < 2 else self._grad_per_cell(g)
        leaf = self.__dict__.get("_sp_grad_leaf")
        if leaf is None or leaf._grad is None:
            return sparse
        return leaf._grad if sparse is None else leaf._grad + sparse.to_dense()

    def _grad_per_cell(self, g: Tensor) -> SparseTensor:
        """An uncoalesced leaf's gradient `g` (one row per stored entry) with one entry per distinct index, in
        coalesced order but not marked coalesced, as PyTorch's: the gradient is the dense matrix's, which every
        duplicate of a cell shares, so densifying it does not count a duplicated cell twice."""
        _, uniq, inverse = self._coalesce_plan()
        if uniq.shape[1] == inverse.size:
            return self._with_values(g)
        first = np.unique(inverse, return_index=True)[1].astype(np.int64)
        return SparseTensor._coo(Tensor._wrap(uniq), g.index_select(0, Tensor._wrap(first)), self._shape, False)

    def _coalesce_plan(self) -> tuple:
        """(indices version, the sorted unique index columns, each stored entry's column among them), cached."""
        version = self._sp_indices._storage.version
        plan = self.__dict__.get("_sp_plan")
        if plan is None or plan[0] != version:  # the sort is done once per set of indices
            idx = self._sp_indices._np()
            plan = self.__dict__["_sp_plan"] = (version, *_unique_columns(idx, self._shape[:idx.shape[0]]))
        return plan

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            raise RuntimeError("ember: only None can be assigned to a sparse tensor's grad")
        self._sp_values._grad = None
        if (leaf := self.__dict__.get("_sp_grad_leaf")) is not None:
            leaf._grad = None

    def _grad_anchor(self) -> Tensor | None:
        """The dense tensor that takes this matrix's dense gradient through `torch.mm` (NOTE [ Dense gradients of
        sparse operands ]): the dense tensor it was converted from, or for a leaf a hidden dense leaf whose
        gradient `grad` reports; None when it needs no gradient or came from other sparse ops."""
        if not self._sp_values._requires_grad:
            return None
        anchor = self.__dict__.get("_sp_anchor")
        if anchor is None and self._sp_values.__dict__.get("_sp_own_leaf"):
            from ember.core.creation import zeros

            # an expanded zero: never read, so a large matrix costs no dense memory until a gradient arrives
            anchor = self.__dict__["_sp_grad_leaf"] = self.__dict__["_sp_anchor"] = zeros(
                (), dtype=self._dtype).expand(self._shape).requires_grad_()
        return anchor

    def _anchored(self, source: SparseTensor | Tensor, transposed: bool = False) -> SparseTensor:
        """This tensor with `source`'s gradient anchor (the same matrix in another layout or order)."""
        anchor = source if not isinstance(source, SparseTensor) else source._grad_anchor()
        if anchor is not None and self is not source:
            self.__dict__["_sp_anchor"] = anchor.t() if transposed else anchor
        return self

    @property
    def grad_fn(self):
        return self._sp_values._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._sp_values._grad_fn is None

    def detach(self) -> SparseTensor:
        return self._with_values(_alias(self._sp_values))

    def clone(self, *, memory_format=None) -> SparseTensor:
        """A copy of the indices and values; PyTorch's sparse clone takes no memory format (not even preserve)."""
        if memory_format is not None:
            name = {"contiguous_format": "Contiguous", "preserve_format": "Preserve", "channels_last": "ChannelsLast",
                    "channels_last_3d": "ChannelsLast3d"}.get(getattr(memory_format, "name", None), memory_format)
            raise RuntimeError(f"unsupported memory format option {name}")
        return self._with_values(self._sp_values.clone(), copy_indices=True)

    def copy_(self, src: Tensor, non_blocking: bool = False) -> SparseTensor:
        """Take `src`'s size, indices and values (cast to this dtype), as `load_state_dict` does for a sparse buffer
        (a COO tensor resized as by `sparse_resize_`); a compressed tensor only from one of its layout, size and nnz,
        as PyTorch's."""
        if self._sp_layout is not sparse_coo:
            self._check_compressed_copy(src)
        elif not isinstance(src, SparseTensor):
            raise RuntimeError(f"copy_() between dense and sparse Tensors is not implemented! Found self type = "
                               f"{self.type()} and src type = {Tensor.type(src)}")
        if not isinstance(src, SparseTensor) or src._sp_layout is not self._sp_layout:
            raise RuntimeError(f"copy_(): ember copies into a {self._sp_layout.name} tensor only from one of the "
                               "same layout")
        if self._sp_layout is sparse_coo:  # PyTorch resizes first: an empty or growing tensor takes src's size
            self.sparse_resize_(src._shape, src.sparse_dim(), src.dense_dim())
        values = src._sp_values.to(self._dtype).clone()
        self._sp_values = values if not self._sp_values._requires_grad else _own_leaf(values)
        if self._sp_layout is sparse_coo:
            self._sp_indices, self._sp_coalesced = src._sp_indices.clone(), src._sp_coalesced
        elif self._sp_layout is sparse_csr:
            self._sp_crow, self._sp_col = src._sp_crow.copy(), src._sp_col.copy()
        else:
            self._sp_ccol, self._sp_row = src._sp_ccol.copy(), src._sp_row.copy()
        self.__dict__.pop("_sp_pattern", None)
        self.__dict__.pop("_sp_plan", None)
        return self

    def _check_compressed_copy(self, src) -> None:
        """PyTorch's refusals of `copy_` into a CSR/CSC tensor: another layout, nnz or size."""
        mine = _LAYOUT_NAMES[self._sp_layout.name]
        theirs = _LAYOUT_NAMES[src._sp_layout.name] if isinstance(src, SparseTensor) else "Strided"
        if theirs != mine:
            raise RuntimeError(f"torch.copy_: copy of sparse compressed tensors having different layouts is not "
                               f"supported. self layout is {mine} and src layout is {theirs}")
        if src._nnz() != self._nnz():
            raise RuntimeError("torch.copy_: only sparse compressed tensors with the same number of specified "
                               "elements are supported.")
        for d, (a, b) in enumerate(zip(self._shape, src._shape)):
            if a != b:
                raise RuntimeError(f"torch.copy_: expected shapes of self and src to match along dimension {d} for "
                                   f"{mine} layout but the corresponding dimensions of self and src are {a} and {b}, "
                                   "respectively.")

    def _with_values(self, values: Tensor, copy_indices: bool = False, coalesced: bool | None = None) -> SparseTensor:
        """A sparse tensor of this one's layout, size and indices over `values`."""
        if self._sp_layout is sparse_csr:
            crow, col = (self._sp_crow.copy(), self._sp_col.copy()) if copy_indices else (self._sp_crow, self._sp_col)
            return SparseTensor._csr(crow, col, values, self._shape)
        if self._sp_layout is sparse_csc:
            ccol, row = (self._sp_ccol.copy(), self._sp_row.copy()) if copy_indices else (self._sp_ccol, self._sp_row)
            return SparseTensor._csc(ccol, row, values, self._shape)
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
            if self._sp_layout is not sparse_coo:
                raise RuntimeError("Unimplemented backend SparseCsrCPU")
            return "torch.sparse." + Tensor.type(self._sp_values).removeprefix("torch.")
        if isinstance(dtype, dtypes.dtype):
            return self.to(dtype)
        return Tensor.type(self, dtype, non_blocking)

    def to_dense(self, dtype=None, *, masked_grad: bool | None = None) -> Tensor:
        """The dense tensor (duplicates summed); differentiable in the values."""
        if dtype is not None:  # PyTorch 2.13's sparse kernels take no dtype
            kernel = "sparse_to_dense" if self._sp_layout is sparse_coo else "sparse_csr_to_dense"
            raise RuntimeError(f"dtype argument is not supported by {kernel}")

        idx, v = self._coo_parts()
        sparse_dim = idx.shape[0]
        sparse_shape = self._shape[:sparse_dim]
        out = _rows_summed(math.prod(sparse_shape), _linear(idx, sparse_shape), v).reshape(self._shape)
        out = node_name(node_name(out, "ViewBackward0", "ToDenseBackward0"), "IndexAddBackward0", "ToDenseBackward0")
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, *args, layout=None, **kwargs) -> SparseTensor:
        if layout is sparse_csr or layout is sparse_csc:
            return self.to_sparse_csr() if layout is sparse_csr else self.to_sparse_csc()
        if self._sp_layout is not sparse_coo:
            if args or kwargs.get("sparse_dim") not in (None, 2):
                raise RuntimeError("to_sparse: ember converts CSR and CSC to COO with sparse_dim 2 only")
            return self.to_sparse_coo()
        sd = args[0] if args else kwargs.get("sparse_dim")
        if sd is not None and sd != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                               "!=self.sparse_dim() is not supported")
        return self

    def to_sparse_coo(self) -> SparseTensor:
        if self._sp_layout is sparse_coo:
            return self
        idx, v = self._coo_parts()  # a CSC tensor's come column by column: not sorted, as PyTorch's says
        v = _node(v, "ToSparseBackward1")
        return SparseTensor._coo(Tensor._wrap(idx), v, self._shape, self._sp_layout is sparse_csr)._anchored(self)

    def to_sparse_csr(self, dense_dim: int | None = None) -> SparseTensor:
        """The CSR form of a 2-D COO tensor without dense dims (coalesced first)."""
        if self._sp_layout is sparse_csr:
            return self
        if self._sp_layout is sparse_csc:
            return _keep_index_dtype(self, self.to_sparse_coo().to_sparse_csr())
        if self.ndim != 2 or self.dense_dim():
            raise RuntimeError(f"to_sparse_csr: ember converts 2-D COO tensors without dense dims; got size "
                               f"{list(self._shape)} with {self.dense_dim()} dense dims")
        crow, col, values = self._row_compressed()
        return SparseTensor._csr(crow, col, _node(values, "ToSparseCsrBackward0"), self._shape)._anchored(self)

    def _row_compressed(self) -> tuple[np.ndarray, np.ndarray, Tensor]:
        """(row pointers, columns, values) of this 2-D COO tensor, coalesced first."""
        c = self.coalesce()
        idx = c._sp_indices._np()
        crow = np.zeros(self._shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(idx[0], minlength=self._shape[0]), out=crow[1:])
        return crow, np.ascontiguousarray(idx[1]), c._sp_values

    def to_sparse_csc(self, dense_dim: int | None = None) -> SparseTensor:
        """The CSC form of a 2-D sparse tensor without dense dims: the CSR form of its transpose, transposed."""
        if self._sp_layout is sparse_csc:
            return self
        if self._sp_layout is sparse_csr:
            return _keep_index_dtype(self, self.to_sparse_coo().to_sparse_csc())
        if self.ndim != 2 or self.dense_dim():
            raise RuntimeError(f"to_sparse_csc: ember converts 2-D COO tensors without dense dims; got size "
                               f"{list(self._shape)} with {self.dense_dim()} dense dims")
        ccol, row, values = self.transpose(0, 1)._row_compressed()  # no CSR made: no CSR warning
        out = SparseTensor._csc(ccol, row, _node(values, "ToSparseCscBackward0"), self._shape)
        return out._anchored(self)

    def coalesce(self) -> SparseTensor:
        """Indices sorted and unique, the values of duplicates summed (differentiable in the values)."""
        self._need_coo("coalesce")
        if self._sp_coalesced:
            return self
        v = self._sp_values
        _, uniq, inverse = self._coalesce_plan()
        if v._dtype in (dtypes.float16, dtypes.bfloat16) and inverse.size:
            # PyTorch adds the duplicates, rounding each add, in its (unstable) sort order of the linear indices
            from ember.core.ops.sorting import _sort_cpu

            order = _sort_cpu(Tensor._wrap(inverse), 0)[1]
            v, inverse = v.index_select(0, order), inverse[order._np()]
        summed = _rows_summed(uniq.shape[1], inverse, v)
        summed = node_name(node_name(summed, "IndexAddBackward0", "CoalesceBackward0"), "ViewBackward0",
                           "CoalesceBackward0")
        return SparseTensor._coo(Tensor._wrap(uniq), summed, self._shape, True)._anchored(self)

    # --- shape -----------------------------------------------------------------------------------
    def transpose(self, dim0: int, dim1: int) -> SparseTensor:
        d0, d1 = self._wrap_dim(dim0), self._wrap_dim(dim1)
        if self._sp_layout is not sparse_coo:  # CSR <-> CSC, as PyTorch's
            return self if d0 == d1 else self._transposed_compressed()
        sd = self.sparse_dim()
        if d0 == d1:
            return self
        if d0 >= sd or d1 >= sd:
            raise RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: {sd}, "
                               f"d0: {d0}, d1: {d1}")
        idx = self._sp_indices._np().copy()
        idx[[d0, d1]] = idx[[d1, d0]]
        shape = list(self._shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        out = SparseTensor._coo(Tensor._wrap(idx), _node(self._sp_values, "TransposeBackward0"), tuple(shape), False)
        return out._anchored(self, transposed=True) if self.ndim == 2 else out

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
        return SparseTensor._coo(Tensor._wrap(idx), _node(self._sp_values, "PermuteBackward0"), shape,
                                 order[:sd] == list(range(sd)) and self._sp_coalesced)

    @property
    def T(self) -> SparseTensor:  # noqa: N802 - PyTorch's name
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self) -> SparseTensor:  # noqa: N802 - PyTorch's name
        return self.transpose(-2, -1)

    @property
    def mH(self) -> SparseTensor:  # noqa: N802 - PyTorch's name
        if self.ndim < 2:
            raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self.ndim}-D "
                               "tensor.")
        return self.adjoint()

    @property
    def H(self) -> SparseTensor:  # noqa: N802 - PyTorch's name
        if self.ndim != 2:
            hint = ". For batches of matrices, consider using tensor.mH" if self.ndim > 2 else "."
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D "
                               f"tensor{hint}")
        return self.adjoint()

    def adjoint(self) -> SparseTensor:
        """The conjugate transpose of the last two dims (a CSR's as CSC, as PyTorch's)."""
        return self.transpose(-2, -1).conj()

    def conj(self) -> SparseTensor:
        """The complex conjugate, stored at once (PyTorch's sparse conj is physical); a real tensor itself."""
        return self._with_values(self._sp_values.conj_physical()) if self._dtype.is_complex else self

    conj_physical = conj

    def resolve_conj(self) -> SparseTensor:
        return self

    def is_conj(self) -> bool:
        return False

    def t(self) -> SparseTensor:
        if self.sparse_dim() > 2 or self.dense_dim():
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                               f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
        if self.ndim != 2:
            return self
        out = self.transpose(0, 1)
        node_name(out._sp_values, "TransposeBackward0", "TBackward0")
        return out

    # --- arithmetic --------------------------------------------------------------------------------
    def add(self, other, *, alpha=1) -> SparseTensor:
        if self._sp_layout is not sparse_coo:
            return self._add_compressed(other, alpha)
        if not isinstance(other, SparseTensor):
            if isinstance(other, Tensor):
                raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
            raise RuntimeError("add: ember adds a sparse tensor only to a sparse or dense tensor")
        self._need_coo("add")
        other._need_coo("add")
        if self._shape != other._shape:
            raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(self._shape)} != "
                               f"{list(other._shape)}")
        if self.sparse_dim() != other.sparse_dim():
            raise RuntimeError(f"add: expected same number of sparse dims, got {self.sparse_dim()} and "
                               f"{other.sparse_dim()}")
        out = _merge_add(self, other, alpha)
        node_name(out._sp_values, "IndexAddBackward0", "AddBackward0")
        return out

    __add__ = add

    def _add_compressed(self, other, alpha) -> SparseTensor | Tensor:
        """CSR or CSC plus a tensor, as PyTorch's: a dense one gives a dense sum, one of the same layout and size
        the merged pattern (explicit zeros kept) in that layout; a COO one is refused."""
        if isinstance(other, Tensor) and not isinstance(other, SparseTensor):
            _check_dense_size(other, self)
            return self.to_dense().add(other, alpha=alpha)
        if not isinstance(other, SparseTensor) or other._sp_layout is not self._sp_layout:
            raise _refusal(self._sp_layout.name, "add")
        if self._shape != other._shape:
            raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(self._shape)} != "
                               f"{list(other._shape)}")
        total = _merge_add(self.to_sparse_coo().coalesce(), other.to_sparse_coo().coalesce(), alpha)
        total = total.to_sparse_csr() if self._sp_layout is sparse_csr else total.to_sparse_csc()
        return _keep_index_dtype(self, total)

    def __radd__(self, other):
        if isinstance(other, Tensor) and not isinstance(other, SparseTensor):
            _check_dense_size(other, self)
            return other + self.to_dense()
        return self.add(other)

    def sub(self, other, *, alpha=1) -> SparseTensor:
        out = self.add(other, alpha=-alpha)
        node_name(out._sp_values, "AddBackward0", "SubBackward0")
        return out

    __sub__ = sub

    def __rsub__(self, other):
        if isinstance(other, Tensor):
            _check_dense_size(other, self)
            return other - self.to_dense()
        raise RuntimeError("sub: ember subtracts a sparse tensor only from a tensor")

    def _refuse_leaf_write(self) -> None:
        """PyTorch's refusal of an in-place write into a leaf that requires grad, under grad mode (the in-place
        ops that write through the values tensor get it from there)."""
        v = self._sp_values
        if v._requires_grad and v._grad_fn is None and sys.modules["ember.core.tensor"]._grad_mode_enabled():
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")

    def add_(self, other, *, alpha=1) -> SparseTensor:
        """`self += alpha * other` for a sparse `other`, as PyTorch's (the merge of `add`; `.grad` accumulates so)."""
        self._refuse_leaf_write()
        r = self.add(other, alpha=alpha)
        old, values = self._sp_values, r._sp_values.to(self._dtype)
        if old._requires_grad and old._grad_fn is None:  # a leaf (a sparse Parameter's step): it stays one
            values = _own_leaf(values) if old.__dict__.get("_sp_own_leaf") else values.detach().requires_grad_()
            values._grad = old._grad
        self._set_parts(r._sp_indices, values, r._sp_coalesced)
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
        self._refuse_csr_div()
        _check_divisor(other)
        self._sp_values.div_(other)
        return self

    def zero_(self) -> SparseTensor:
        """No stored element any more (nnz 0, coalesced), as PyTorch's `zero_` of a sparse tensor."""
        from ember.core.creation import zeros

        self._need_coo("zero_")
        self._refuse_leaf_write()
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

    def _coalesced_(self, coalesced: bool) -> SparseTensor:
        """Set the coalesced flag in place, as PyTorch's. ember's kernels trust the flag (they read sorted unique
        indices), so marking an uncoalesced tensor coalesced coalesces it: duplicates summed, indices sorted."""
        self._need_coo("_coalesced_")
        if coalesced.__class__ is not bool:
            raise TypeError(f"_coalesced_(): argument 'coalesced' (position 1) must be bool, not "
                            f"{type(coalesced).__name__}")
        if coalesced and not self._sp_coalesced:
            done = self.coalesce()
            self._set_parts(done._sp_indices, done._sp_values, True)
        self._sp_coalesced = coalesced
        return self

    def sparse_resize_(self, size, sparse_dim: int, dense_dim: int) -> SparseTensor:
        """Give this COO tensor the size `size` with `sparse_dim` sparse and `dense_dim` dense dims, as PyTorch: an
        empty one takes any; a non-empty one keeps both counts and grows (never shrinks) its sizes."""
        from ember.core.creation import zeros

        self._need_coo("sparse_resize_")
        size = tuple(int(n) for n in size)
        if sparse_dim + dense_dim != len(size):
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                               f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")
        v = self._sp_values
        if self._nnz():
            for what, old, new in (("sparse", self.sparse_dim(), sparse_dim), ("dense", self.dense_dim(), dense_dim)):
                if old != new:
                    raise RuntimeError(f"changing the number of {what} dimensions (from {old} to {new}) on a "
                                       f"non-empty sparse tensor is not supported.\n{_RESIZE_OPTIONS}")
            for what, old, new in (("sparse", self._shape[:sparse_dim], size[:sparse_dim]),
                                   ("dense", self._shape[sparse_dim:], size[sparse_dim:])):
                if any(b < a for a, b in zip(old, new)):
                    raise RuntimeError(f"shrinking the size of {what} dimensions (from {list(old)} to {list(new)}) "
                                       f"on a non-empty sparse tensor is not supported.\n{_RESIZE_OPTIONS}")
            if size[sparse_dim:] != tuple(v._shape[1:]):  # values.resize_: the flat data kept, the rest zero
                grown = zeros((v._shape[0],) + size[sparse_dim:], dtype=v._dtype, device=v.device)
                grown.view(-1)[:v.numel()] = v.reshape(-1)
                self._set_parts(self._sp_indices, grown, self._sp_coalesced)
        else:
            self._set_parts(zeros((sparse_dim, 0), dtype=dtypes.int64, device=v.device),
                            zeros((0,) + size[sparse_dim:], dtype=v._dtype, device=v.device), True)
        self._shape, self._strides = size, contiguous_strides(size)
        return self

    def sparse_resize_and_clear_(self, size, sparse_dim: int, dense_dim: int) -> SparseTensor:
        """Empty this COO tensor (nnz 0), then `sparse_resize_` it to `size`."""
        self.zero_()
        return self.sparse_resize_(size, sparse_dim, dense_dim)

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

    def neg_(self) -> SparseTensor:
        """Negate the stored values in place (linear: duplicates may stay)."""
        self._need_coo("neg_")
        self._sp_values.neg_()
        return self

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
        if self._sp_layout is not sparse_coo and isinstance(other, Tensor) and other.ndim:
            return self._mul_compressed(other)
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

    def _mul_compressed(self, other: Tensor) -> SparseTensor:
        """A CSR tensor times a dense tensor of its size (its pattern kept, as PyTorch's sparse_mask; no
        broadcasting) or times a sparse tensor of any layout (the product where both store, as CSR); PyTorch's
        kernel writes CSR only, so it refuses a CSC tensor."""
        if self._sp_layout is sparse_csc:
            raise RuntimeError("Expected result Tensor to be of format CSR")
        if isinstance(other, SparseTensor):
            return _mul_sparse(self.to_sparse_coo(), other.to_sparse_coo()).to_sparse_csr()
        if other._shape != self._shape:
            raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(other._shape)} "
                               f"but mask has size {list(self._shape)}")
        idx, values = self._coo_parts()
        lin = Tensor._wrap(_linear(idx, self._shape))
        out = self._with_values(values * other.reshape(-1).index_select(0, lin))
        return _index_dtype(out, np.int64)  # PyTorch's sparse_mask writes int64 indices

    def _refuse_csr_div(self) -> None:
        """PyTorch 2.13 has no CSR or CSC division (its kernel refuses the layout; `csr * (1 / k)` works)."""
        if self._sp_layout is not sparse_coo:
            raise RuntimeError(f"unsupported tensor layout: {_LAYOUT_NAMES[self._sp_layout.name]}")

    def div(self, other) -> SparseTensor:
        self._refuse_csr_div()
        _check_divisor(other)
        return self._with_values(self._sp_values / other)

    __truediv__ = div

    def __rtruediv__(self, other):
        """`dense / sparse`: PyTorch divides only by a scalar or a 0-dim dense tensor."""
        _check_divisor(self)

    def sum(self, dim=None, keepdim: bool = False, dtype=None):
        from ember.core.sparse_ops import sparse_sum

        if self._sp_layout is not sparse_coo:
            if dim is not None:
                return self._sum_compressed(dim, keepdim, dtype)
            if not keepdim:  # everything: the stored values' total
                return (self._sp_values if dtype is None else self._sp_values.to(dtype)).sum()
        if not keepdim:
            return sparse_sum(self, dim, dtype=dtype)
        if dim is None:  # PyTorch's overloads take keepdim beside a dim only
            from ember.core.ops.arguments import keepdim_without_dim_error

            raise keepdim_without_dim_error("sum", {"keepdim": True}, method=True)
        out = sparse_sum(self, dim, dtype=dtype)
        for d in sorted({self._wrap_dim(d) for d in ((dim,) if isinstance(dim, int) else dim)}):
            out = out.unsqueeze(d)  # the summed dims back, size 1: sparse ones among the sparse dims, as PyTorch's
        return out

    def _sum_compressed(self, dim, keepdim: bool, dtype) -> SparseTensor:
        """PyTorch's sum over dims of a compressed tensor: CSR only, keepdim=True only, a CSR result with one entry
        per row/column that stores any (its sum kept even when zero); integers sum as int64."""
        if self._sp_layout is sparse_csc:
            raise RuntimeError("Currently the only compressed sparse format supported for sum.dim_IntList is CSR, but "
                               "got layout SparseCsc")
        if not keepdim:
            raise RuntimeError("reduction operations on CSR tensors with keepdim=False is unsupported")
        dims = ((dim,) if isinstance(dim, int) else tuple(dim)) or (0, 1)
        if dtype is None and not (self._dtype.is_floating_point or self._dtype.is_complex):
            dtype = dtypes.int64
        out = self.to_sparse_coo().sum(dims, keepdim=True, dtype=dtype)
        if isinstance(out, SparseTensor):
            return _keep_index_dtype(self, out.to_sparse_csr())
        k = 1 if self._nnz() else 0  # every dim summed: one stored total unless nothing is stored
        return SparseTensor._csr(np.array([0, k], dtype=np.int64), np.zeros(k, dtype=np.int64), out.reshape(1)[:k],
                                 (1, 1))

    def index_select(self, dim: int, index: Tensor) -> SparseTensor:
        from ember.core.sparse_ops import sparse_index_select

        return sparse_index_select(self, dim, index)

    def mm(self, mat2: Tensor) -> Tensor:
        from ember.core.sparse_ops import sparse_mm

        out = sparse_mm(self, mat2, dense_grad=True)
        if isinstance(out, SparseTensor):  # sparse @ sparse
            node_name(out._sp_values, "SparseSparseMatmulBackward0", "MmBackward0")
            return out
        return node_name(out, "SparseAddmmBackward0", "MmBackward0")  # torch.mm's, as PyTorch's

    def matmul(self, other: Tensor) -> Tensor:
        if isinstance(other, Tensor) and other.ndim == 1:
            if self.ndim == 2 and self._shape[1] != other._shape[0]:
                raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
            return node_name(self.mm(other.unsqueeze(1)).squeeze(1), "SqueezeBackward1", "MvBackward0")
        return self.mm(other)

    __matmul__ = matmul

    def __rmatmul__(self, other: Tensor) -> Tensor:
        """dense @ sparse: (sparse^T @ dense^T)^T."""
        from ember.core.sparse_ops import sparse_mm

        if other.ndim == 1:
            return sparse_mm(self.t(), other.unsqueeze(1), dense_grad=True).squeeze(1)
        return node_name(sparse_mm(self.t(), other.t(), dense_grad=True).t(), "TBackward0", "MmBackward0")

    # --- printing and saving ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        from ember.core.printing import _add_suffixes, _dtype_grad_suffix

        pad = " " * 7
        if self._sp_layout is sparse_coo:
            head = "tensor(indices=" + _bare_repr(self._sp_indices, 22)
        elif self._sp_layout is sparse_csr:
            head = ("tensor(crow_indices=" + _bare_repr(Tensor._wrap(self._sp_crow), 27) + ",\n" + pad
                    + "col_indices=" + _bare_repr(Tensor._wrap(self._sp_col), 26))
        else:
            head = ("tensor(ccol_indices=" + _bare_repr(Tensor._wrap(self._sp_ccol), 27) + ",\n" + pad
                    + "row_indices=" + _bare_repr(Tensor._wrap(self._sp_row), 26))
        vals = "values=" + _bare_repr(self._sp_values, 21)
        suffix = [f"size={tuple(self._shape)}", f"nnz={self._nnz()}"]
        meta = _dtype_grad_suffix(self._sp_values)
        dt = [s for s in meta if s.startswith("dtype=")]
        grad = [s for s in meta if not s.startswith("dtype=")]
        suffix += dt + [f"layout={self._sp_layout!r}"] + grad
        if self._sp_layout is sparse_coo:
            return _add_suffixes(head + ",\n" + pad + vals, suffix, 7, force_newline=True)
        return _add_suffixes(head + ",\n" + pad + vals, suffix, 7)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        if self._sp_layout is sparse_coo:
            return (_rebuild_coo, (self._sp_indices, _alias(self._sp_values), tuple(self._shape),
                                   self._sp_coalesced, self._sp_values._requires_grad))
        if self._sp_layout is sparse_csc:
            return (_rebuild_csc, (Tensor._wrap(self._sp_ccol.copy()), Tensor._wrap(self._sp_row.copy()),
                                   _alias(self._sp_values), tuple(self._shape), self._sp_values._requires_grad))
        return (_rebuild_csr, (Tensor._wrap(self._sp_crow.copy()), Tensor._wrap(self._sp_col.copy()),
                               _alias(self._sp_values), tuple(self._shape), self._sp_values._requires_grad))

    def __deepcopy__(self, memo):
        return self.clone()


def _check_divisor(other) -> None:
    """PyTorch's sparse division takes a scalar or a 0-dim dense divisor only."""
    if isinstance(other, Tensor) and (other.ndim or isinstance(other, SparseTensor)):
        raise RuntimeError("Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                           f"{list(other._shape)} for divisor)")


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


def _zero_preserving_inplace(name: str):
    def method(self):
        self._need_coo(name + "_")
        if not self._sp_coalesced:  # abs_(-1 + 5) is not abs_(-1) + abs_(5)
            raise RuntimeError(f"{name}_ requires coalesced input")
        getattr(self._sp_values, name + "_")()
        return self

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"`{name}_` of the stored values in place (a coalesced tensor: it maps zero to zero)."
    return method


def _zero_preserving_method(name: str):
    def method(self):
        return self._zero_preserving(name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`{name}` of the stored values (PyTorch's sparse kernels: it maps zero to zero)."
    return method


_ZERO_PRESERVING = ("abs", "sqrt", "sin", "tan", "tanh", "sinh", "asin", "asinh", "atan", "atanh", "relu", "sign",
                    "sgn", "square", "floor", "ceil", "round", "trunc", "frac", "expm1", "log1p", "erf", "erfinv",
                    "deg2rad", "rad2deg", "isnan", "isinf", "signbit", "nan_to_num")
for _name in _ZERO_PRESERVING:
    setattr(SparseTensor, _name, _zero_preserving_method(_name))
    if _name not in ("isnan", "isinf", "signbit", "nan_to_num", "relu"):
        setattr(SparseTensor, _name + "_", _zero_preserving_inplace(_name))
del _name
_FUNCTION_FORMS = frozenset(_ZERO_PRESERVING) | {"neg", "pow", "conj_physical"}


def _function_form(name: str, args: tuple, kwargs: dict):
    """`torch.abs(s)`, `F.relu(s)`, `torch.neg(s)`: the sparse tensor's own method, as PyTorch's sparse
    kernels answer the function forms; NotImplemented (the dense refusal stands) for anything else or keywords."""
    if not args or args[0].__class__ is not SparseTensor or any(v is not None for v in kwargs.values()):
        return NotImplemented  # (`out=None` as `torch.pow` passes it is no keyword)
    if name == "sum" and len(args) == 4:  # `torch.sum(s, dim, keepdim, dtype=)`: the op's (input, dims, keepdim, dtype)
        return args[0].sum(*args[1:])
    if name not in _FUNCTION_FORMS:
        return NotImplemented
    return getattr(args[0], name)(*args[1:])


def _rebuild_coo(indices, values, size, coalesced, requires_grad):
    """Unpickle a COO tensor, validating its indices as the constructor does."""
    return sparse_coo_tensor(indices, values, size, requires_grad=requires_grad, is_coalesced=coalesced,
                             check_invariants=True)


def _rebuild_csr(crow, col, values, size, requires_grad):
    return sparse_csr_tensor(crow, col, values, size, requires_grad=requires_grad, check_invariants=True)


def _rebuild_csc(ccol, row, values, size, requires_grad):
    return sparse_csc_tensor(ccol, row, values, size, requires_grad=requires_grad, check_invariants=True)


def _rows_summed(n: int, targets: np.ndarray, v: Tensor) -> Tensor:
    """`zeros((n, *dense)).index_add(0, targets, v)`, differentiable in `v`. 16-bit values with dense dims are added
    element by element, so each add rounds to the dtype as PyTorch's sparse row loops do (a dense index_add of
    rows sums them in float32)."""
    from ember.core.creation import zeros

    dense = tuple(v._shape[1:])
    if dense and v._dtype in (dtypes.float16, dtypes.bfloat16):
        block = math.prod(dense)
        at = Tensor._wrap((targets[:, None] * block + np.arange(block, dtype=np.int64)).reshape(-1))
        return zeros((n * block,), dtype=v._dtype).index_add(0, at, v.reshape(-1)).reshape((n,) + dense)
    return zeros((n,) + dense, dtype=v._dtype).index_add(0, Tensor._wrap(targets), v)


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
        raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs with equal dimensionality, "
                           "number of sparse dimensions, and shape of sparse dimensions")
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


def _check_dense_size(dense: Tensor, s: SparseTensor) -> None:
    """dense + sparse does not broadcast in PyTorch: the sizes must be equal."""
    if tuple(dense._shape) != tuple(s._shape):
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(dense._shape)} while other has size {list(s._shape)} (FYI: dense-sparse "
                           "addition does not currently support broadcasting)")


def add_sparse_(dense: Tensor, s: SparseTensor, alpha=1) -> Tensor:
    """`dense += alpha * s` in place, as PyTorch's `dense.add_(sparse)`: each stored element (duplicates
    included, in order) added at its position; what optimizers and `.grad` accumulation do with a sparse
    gradient."""
    if isinstance(dense, SparseTensor):  # a sparse Parameter's update: the merge of the two patterns
        return dense.add_(s, alpha=alpha)
    s._need_coo("add_")
    _check_dense_size(dense, s)
    if not dense.is_contiguous():
        return dense.add_(s.to_dense(), alpha=alpha)
    sd = s.sparse_dim()
    lin = Tensor._wrap(_linear(s._sp_indices._np(), s._shape[:sd]))
    flat = dense.view((math.prod(s._shape[:sd]),) + tuple(s._shape[sd:]))
    flat.index_add_(0, lin, s._sp_values.to(dense._dtype), alpha=alpha)
    return dense


def _sparse_parts_of(tensors, what: str) -> list:
    """COO tensors of one dimensionality and sparse dim to join, with PyTorch's refusal of a dense one."""
    for i, t in enumerate(tensors):
        if not isinstance(t, SparseTensor):
            raise RuntimeError(f"{what} sparse tensors, but a dense tensor was found at position {i}.")
        t._need_coo("cat")
    sd = tensors[0].sparse_dim()
    for t in tensors:
        if t.sparse_dim() != sd or t.ndim != tensors[0].ndim:
            raise RuntimeError(f"{what} sparse tensors of different sparse dims or dimensionality: ember joins "
                               "COO tensors of one layout of dims only")
    return list(tensors)


def _join_values(tensors) -> Tensor:
    from ember.core.ops.join import cat

    return cat([t._sp_values for t in tensors], 0)


def sparse_cat(tensors, dim: int) -> SparseTensor:
    """`torch.cat` of COO tensors along a sparse dim: the indices shifted and joined (uncoalesced), as PyTorch's."""
    ts = _sparse_parts_of(tensors, "Concatenating")
    ref = ts[0]
    d = ref._wrap_dim(dim)
    if d >= ref.sparse_dim():
        raise RuntimeError(f"cat: ember concatenates sparse COO tensors along a sparse dim only; got dim {d} with "
                           f"sparse_dim {ref.sparse_dim()}")
    for i, t in enumerate(ts):
        if any(a != b for k, (a, b) in enumerate(zip(t._shape, ref._shape)) if k != d):
            raise RuntimeError(f"All tensors must have the same shape: {list(ref._shape)} (except in the "
                               f"concatenating dimension), but found shape: {list(t._shape)} at position {i}.")
    parts, offset = [], 0
    for t in ts:
        idx = t._sp_indices._np().copy()
        idx[d] += offset
        offset += t._shape[d]
        parts.append(idx)
    shape = list(ref._shape)
    shape[d] = offset
    idx = np.concatenate(parts, axis=1) if parts else np.zeros((ref.sparse_dim(), 0), dtype=np.int64)
    return SparseTensor._coo(Tensor._wrap(np.ascontiguousarray(idx)), _join_values(ts), tuple(shape), False)


def sparse_stack(tensors, dim: int) -> SparseTensor:
    """`torch.stack` of COO tensors: a new sparse dim at `dim` holding each tensor's position."""
    ts = _sparse_parts_of(tensors, "Stacking")
    ref = ts[0]
    n = ref.ndim + 1
    d = dim % n
    for i, t in enumerate(ts):
        if t._shape != ref._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ref._shape)} at entry 0 "
                               f"and {list(t._shape)} at entry {i}")
    if d > ref.sparse_dim():
        raise RuntimeError(f"stack: ember stacks sparse COO tensors along a sparse dim only; got dim {d} with "
                           f"sparse_dim {ref.sparse_dim()}")
    parts = [np.insert(t._sp_indices._np(), d, i, axis=0) for i, t in enumerate(ts)]
    shape = (*ref._shape[:d], len(ts), *ref._shape[d:])
    idx = np.ascontiguousarray(np.concatenate(parts, axis=1).astype(np.int64))
    return SparseTensor._coo(Tensor._wrap(idx), _join_values(ts), shape, False)


def sparse_mask(self: Tensor, mask: SparseTensor) -> SparseTensor:
    """`dense.sparse_mask(mask)`: this tensor's entries at the mask's indices (duplicates and order kept, values
    differentiable), as PyTorch's."""
    if not isinstance(mask, SparseTensor):
        raise NotImplementedError("Could not run 'aten::sparse_mask' with arguments from the 'CPU' backend. "
                                  "ember's sparse_mask takes a sparse COO mask")
    if isinstance(self, SparseTensor):
        raise _refusal(self._sp_layout.name, "sparse_mask")
    mask._need_coo("sparse_mask")
    if tuple(self._shape) != tuple(mask._shape):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(self._shape)} but "
                           f"mask has size {list(mask._shape)}")
    sd = mask.sparse_dim()
    lin = Tensor._wrap(_linear(mask._sp_indices._np(), mask._shape[:sd]))
    flat = self.reshape((math.prod(self._shape[:sd]),) + tuple(self._shape[sd:]))
    values = node_name(flat.index_select(0, lin), "IndexSelectBackward0", "SparseMaskBackward0")
    return SparseTensor._coo(mask._sp_indices.clone(), values, tuple(self._shape), mask._sp_coalesced)


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
    if layout is sparse_csr or layout is sparse_csc:
        return to_sparse_csr(self) if layout is sparse_csr else to_sparse_csc(self)
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
    node_name(vals, "IndexSelectBackward0", "ToSparseBackward1" if sparse_dim is None else "ToSparseBackward0")
    out = SparseTensor._coo(Tensor._wrap(idx), vals, tuple(self._shape), True)
    return out._anchored(self) if self._requires_grad and sd == self.ndim == 2 else out


def to_sparse_csr(self: Tensor, dense_dim: int | None = None) -> SparseTensor:
    """`Tensor.to_sparse_csr` of a 2-D dense (or COO) tensor."""
    if isinstance(self, SparseTensor):
        return self.to_sparse_csr()
    if self.ndim != 2:
        raise RuntimeError(f"to_sparse_csr: ember converts 2-D tensors; got {self.ndim}-D")
    return to_sparse(self).to_sparse_csr()


def to_sparse_csc(self: Tensor, dense_dim: int | None = None) -> SparseTensor:
    """`Tensor.to_sparse_csc` of a 2-D dense (or sparse) tensor."""
    if isinstance(self, SparseTensor):
        return self.to_sparse_csc()
    if self.ndim != 2:
        raise RuntimeError(f"to_sparse_csc: ember converts 2-D tensors; got {self.ndim}-D")
    return to_sparse(self).to_sparse_csc()


def _strided_refusal(name: str, wants: str):
    """The method `name` of a strided tensor, which PyTorch refuses for its layout."""
    def refuse(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {wants} layout but got Strided")

    refuse.__name__ = refuse.__qualname__ = name
    return refuse


def _dense_to_dense(self: Tensor, dtype=None, *, masked_grad: bool | None = None) -> Tensor:
    """`to_dense` of a strided tensor: itself (cast to `dtype` if given)."""
    return self if dtype is None else self.to(dtype)


def _smm(self: Tensor, mat: Tensor) -> SparseTensor:
    """`Tensor.smm`: `torch.smm(self, mat)` (a sparse `self` only, as PyTorch's)."""
    from ember.core.sparse_ops import smm

    return smm(self, mat)


def _sspaddmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> SparseTensor:
    """`Tensor.sspaddmm`: `torch.sspaddmm(self, mat1, mat2, beta=, alpha=)`."""
    from ember.core.sparse_ops import sspaddmm

    return sspaddmm(self, mat1, mat2, beta=beta, alpha=alpha)


def _strided_dispatch_refusal(name: str):
    def refuse(self: Tensor, *args):
        """A strided tensor has no sparse resize or coalesced flag: PyTorch's dispatcher refusal."""
        raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the 'CPU' backend. This could be "
                                  "because the operator doesn't exist for this backend, or was omitted during the "
                                  "selective/custom build process (if using custom build).")
    refuse.__name__ = name
    return refuse


def _attach() -> None:
    from ember.core.methods import attach

    attach("to_sparse", to_sparse)
    attach("to_sparse_coo", lambda self: to_sparse(self))
    attach("to_sparse_csr", to_sparse_csr)
    attach("to_sparse_csc", to_sparse_csc)
    attach("sparse_mask", sparse_mask)
    attach("to_dense", _dense_to_dense)
    attach("smm", _smm)
    attach("sspaddmm", _sspaddmm)
    attach("sparse_dim", lambda self: 0)
    attach("dense_dim", lambda self: len(self._shape))
    for name in ("sparse_resize_", "sparse_resize_and_clear_", "_coalesced_"):
        attach(name, _strided_dispatch_refusal(name))
    coo, csr, csc = "sparse coordinate tensor", "sparse row compressed tensor", "sparse column compressed tensor"
    for name, wants in (("coalesce", coo), ("is_coalesced", coo), ("indices", coo), ("values", "sparse tensor"),
                        ("crow_indices", csr), ("col_indices", csr), ("ccol_indices", csc), ("row_indices", csc)):
        attach(name, _strided_refusal(name, wants))


_attach()
_dispatch_mod.set_sparse_fallback(_function_form)
