"""Products, reductions and builders of sparse tensors (`torch.sparse.mm`, `addmm`, `sum`, `softmax`,
`log_softmax`, `spdiags`, `sampled_addmm`); the tensors themselves are `ember.core.sparse`'s.

A product runs over the CSR form of its sparse operand (`CsrPattern`, kept by the tensor) with the Numba kernel
of `ember.core.sparse_kernels`; the autograd layer installs the differentiable product (`set_mm`). The rest
composes differentiable dense ops over the values (NOTE [ Sparse tensors beside the dense path ]).
"""

from __future__ import annotations

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import node_name
from ember.core.ops.arguments import parsed
from ember.core.sparse import (_LAYOUT_NAMES, SparseTensor, _check_coo_bounds, _index_dtype, _unique_columns,
                               sparse_coo, sparse_csc, sparse_csr)
from ember.core.tensor import Tensor

__all__ = ["CsrPattern", "set_mm", "sparse_mm", "sparse_addmm", "sparse_sum", "sparse_softmax", "sparse_log_softmax",
           "spdiags", "sampled_addmm", "sparse_index_select", "hspmm", "hsmm", "dsmm", "smm", "sspaddmm"]


class CsrPattern:
    """The row pointers, columns and rows of a 2-D sparse matrix's stored elements in CSR order, and (built on
    first use, for the product's backward) the order that sorts them by column with the transposed row pointers.
    A tensor keeps its pattern while its indices keep their version (`_pattern`): a GCN's adjacency builds it once."""

    __slots__ = ("crow", "col", "rows", "shape", "_t")

    def __init__(self, crow: np.ndarray, col: np.ndarray, shape: tuple) -> None:
        self.crow, self.col, self.shape = crow, col, shape
        self.rows = np.repeat(np.arange(shape[0], dtype=np.int64), np.diff(crow))
        self._t = None

    def transposed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(crow of A^T, its columns (A's rows), the permutation from A's order to A^T's)."""
        if self._t is None:
            order = np.argsort(self.col, kind="stable")
            tcrow = np.zeros(self.shape[1] + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.col, minlength=self.shape[1]), out=tcrow[1:])
            self._t = (tcrow, np.ascontiguousarray(self.rows[order]), order)
        return self._t


def _pattern(a: SparseTensor) -> tuple[CsrPattern, Tensor]:
    """The CSR pattern of a 2-D sparse matrix without dense dims and its values in that order (differentiable;
    an uncoalesced COO tensor is coalesced first, through its cached coalescing plan; a CSC one goes through COO)."""
    if a._sp_layout is sparse_csc:
        a = a.to_sparse_coo()
    if a._sp_layout is sparse_coo and not a._sp_coalesced:
        a = a.coalesce()
    version = a._sp_indices._storage.version if a._sp_layout is sparse_coo else 0
    cached = a.__dict__.get("_sp_pattern")
    if cached is not None and cached[0] == version:
        return cached[1], a._sp_values
    if a._sp_layout is sparse_csr:
        pat = CsrPattern(a._sp_crow, a._sp_col, a._shape)
    else:
        idx = a._sp_indices._np()
        _check_coo_bounds(idx, a._shape)  # `_indices()` hands out the tensor itself: a write may have left the size
        crow = np.zeros(a._shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(idx[0], minlength=a._shape[0]), out=crow[1:])
        pat = CsrPattern(crow, np.ascontiguousarray(idx[1]), a._shape)
    a.__dict__["_sp_pattern"] = (version, pat)
    return pat, a._sp_values


def _mm_plain(pattern: CsrPattern, values: Tensor, x: Tensor) -> Tensor:
    """The product without autograd: what the autograd layer's function runs forward (`set_mm`)."""
    return Tensor._wrap(_kernels().run_csr_mm(pattern.crow, pattern.col, values._np(), x._np()))


def _dense_grad_mm_plain(anchor: Tensor, pattern: CsrPattern, values: Tensor, x: Tensor) -> Tensor:
    return _mm_plain(pattern, values, x)


_MM = [_mm_plain, _dense_grad_mm_plain]


def set_mm(fn, dense_grad_fn=None) -> None:
    """The autograd layer installs its differentiable sparse @ dense here: `fn(pattern, values, x)` gives the
    values a sparse gradient (`torch.sparse.mm`), `dense_grad_fn(anchor, pattern, values, x)` gives `anchor` the
    matrix's dense one (`torch.mm`; NOTE [ Dense gradients of sparse operands ])."""
    _MM[0] = fn
    if dense_grad_fn is not None:
        _MM[1] = dense_grad_fn


def _kernels():
    from ember.core import sparse_kernels

    return sparse_kernels


def sparse_mm(mat1: SparseTensor, mat2: Tensor, *, dense_grad: bool = False) -> Tensor:
    """`torch.sparse.mm`: sparse (n, k) @ dense (k, m) -> dense (n, m), the sparse operand's gradient sparse
    with its own pattern (dense with `dense_grad`, as `torch.mm`'s); sparse @ sparse -> sparse
    (`_sparse_sparse_mm`).

    NOTE [ Dense gradients of sparse operands ]
    PyTorch's `torch.mm`/`matmul`/`@`/`addmm` give a sparse operand the whole dense gradient `grad @ X^T`, which
    reaches the dense tensor it was converted from (`to_sparse`'s backward is `grad.to_dense()`) or a sparse
    leaf's `.grad`; only `torch.sparse.mm`/`sparse.addmm` sample it at the operand's pattern. ember's sparse
    tensors take their gradients through their values (NOTE [ Sparse tensors beside the dense path ]), which
    cannot hold a dense one, so a matrix carries a dense "anchor" (`SparseTensor._grad_anchor`): the dense tensor
    of `to_sparse` (kept through coalesce, layout changes and transposes) or, for a leaf, a hidden dense leaf
    that `.grad` reports. The torch.mm product takes the anchor as its input in the values' place.

    Raises:
        RuntimeError: not a 2-D sparse matrix and a 2-D dense one of matching size and dtype.
    """
    if not isinstance(mat1, SparseTensor):
        if isinstance(mat2, SparseTensor):
            return mat2.__rmatmul__(mat1)
        from ember.core.ops.linalg import mm

        return mm(mat1, mat2)
    if isinstance(mat2, SparseTensor):
        return _sparse_sparse_mm(mat1, mat2, mat1 if dense_grad else mat2)
    if mat1.ndim != 2 or mat1.dense_dim():
        raise RuntimeError(f"mm: expected a 2-D sparse matrix without dense dims; got size {list(mat1._shape)}")
    if isinstance(mat2, Tensor) and mat2.ndim == 1:
        mat2.size(1)  # PyTorch's sparse kernels size mat2's columns first: IndexError, in its words
    if not isinstance(mat2, Tensor) or mat2.ndim != 2:
        raise RuntimeError(f"mm: mat2 must be a matrix, got {getattr(mat2, 'ndim', '?')}-D tensor")
    if mat1._shape[1] != mat2._shape[0] and mat1._sp_layout is not sparse_coo:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1._shape[0]}x{mat1._shape[1]} and "
                           f"{mat2._shape[0]}x{mat2._shape[1]})")
    if mat1._shape[1] != mat2._shape[0]:  # a COO product is PyTorch's addmm, which names the dense argument
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {mat1._shape[1]}, got {mat2._shape[0]}")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(f"expected scalar type {dtypes.TORCH_NAMES[mat1._dtype.name]} but found "
                           f"{dtypes.TORCH_NAMES[mat2._dtype.name]}")  # PyTorch's sparse kernels' words
    if mat2._storage.device.type != "cpu":
        raise RuntimeError(f"mm: ember's sparse tensors live on the CPU; got mat2 on {mat2.device}")
    pattern, values = _pattern(mat1)
    if dense_grad and (anchor := mat1._grad_anchor()) is not None:
        return node_name(_MM[1](anchor, pattern, values, mat2), "DenseGradMmBackward", "MmBackward0")
    return node_name(_MM[0](pattern, values, mat2), "SparseMmBackward", "SparseAddmmBackward0")  # PyTorch's node


def _sparse_sparse_mm(a: SparseTensor, b: SparseTensor, addmm_self: SparseTensor) -> SparseTensor:
    """sparse (n, k) @ sparse (k, m) -> sparse (n, m): each stored a[i, j] meets row j of b; the products' values
    are differentiable in both operands' values. Two COO operands give a coalesced COO product, two compressed
    ones a CSR one; PyTorch's addmm has no CPU kernel for the rest, named by the layout of the `addmm_self` it
    adds to (`a` for torch.mm, `b` for torch.sparse.mm)."""
    if a.ndim != 2 or b.ndim != 2 or a.dense_dim() or b.dense_dim():
        raise RuntimeError(f"mm: expected 2-D sparse matrices without dense dims; got sizes {list(a._shape)} and "
                           f"{list(b._shape)}")
    la, lb, ls = a._sp_layout, b._sp_layout, addmm_self._sp_layout
    if (la is sparse_coo) != (lb is sparse_coo) or (ls is sparse_csc and la is sparse_csr):
        names = [_LAYOUT_NAMES[x.name] for x in (ls, la, lb)]
        raise RuntimeError(f"addmm: computation on CPU is not implemented for {names[0]} + {names[1]} @ {names[2]}")
    if a._shape[1] != b._shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a._shape[0]}x{a._shape[1]} and "
                           f"{b._shape[0]}x{b._shape[1]})")
    if a._dtype is not b._dtype and la is sparse_coo:
        raise RuntimeError(f"mat1 dtype {dtypes.TORCH_NAMES[a._dtype.name]} does not match mat2 dtype "
                           f"{dtypes.TORCH_NAMES[b._dtype.name]}")
    if a._dtype is not b._dtype:  # the compressed kernel's words
        raise RuntimeError(f"expected scalar type {dtypes.TORCH_NAMES[b._dtype.name]} but found "
                           f"{dtypes.TORCH_NAMES[a._dtype.name]}")
    a, b = a.to_sparse_coo().coalesce(), b.to_sparse_coo().coalesce()
    ai, bi = a._sp_indices._np(), b._sp_indices._np()  # b's rows sorted: it is coalesced
    lo = np.searchsorted(bi[0], ai[1], "left")
    counts = np.searchsorted(bi[0], ai[1], "right") - lo
    ia = np.repeat(np.arange(ai.shape[1], dtype=np.int64), counts)
    ib = np.repeat(lo, counts) + np.arange(ia.size, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    vals = a._sp_values.index_select(0, Tensor._wrap(ia)) * b._sp_values.index_select(0, Tensor._wrap(ib))
    idx = np.stack([ai[0][ia], bi[1][ib]]).astype(np.int64)
    out = SparseTensor._coo(Tensor._wrap(idx), vals, (a._shape[0], b._shape[1]), False).coalesce()
    node_name(out._sp_values, "CoalesceBackward0", "SparseSparseMatmulBackward0")
    return out if la is sparse_coo else _first_touch_csr(out, idx)


def _first_touch_csr(product: SparseTensor, made: np.ndarray) -> SparseTensor:
    """The coalesced COO `product` as PyTorch's CSR @ CSR gives it: each row's columns in the order the products
    `made` ((2, count) indices, in the order they were formed) first reached them, not sorted."""
    rows, cols = product._sp_indices._np()
    first = np.unique(made[0] * product._shape[1] + made[1], return_index=True)[1]  # coalesced entries' order
    order = np.lexsort((first, rows)).astype(np.int64)
    crow = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=product._shape[0]))]).astype(np.int64)
    values = product._sp_values.index_select(0, Tensor._wrap(order))
    node_name(values, "IndexSelectBackward0", "SparseSparseMatmulBackward0")
    return SparseTensor._csr(crow, np.ascontiguousarray(cols[order]), values, product._shape)


def sparse_addmm(input: Tensor, mat1: SparseTensor, mat2: Tensor, *, beta=1, alpha=1,
                 dense_grad: bool = False) -> Tensor:
    """`beta * input + alpha * (mat1 @ mat2)` with a sparse `mat1` (torch.sparse.addmm; torch.addmm's with
    `dense_grad`, NOTE [ Dense gradients of sparse operands ])."""
    if isinstance(input, SparseTensor):  # PyTorch 2.13's kernel writes a strided result over `input`
        raise RuntimeError("addmm_sparse_dense: expected strided result tensor, got tensor with layout Sparse")
    prod = sparse_mm(mat1, mat2, dense_grad=dense_grad)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:  # PyTorch ignores `input` (NaN included) when beta is 0
        return prod
    return node_name(prod + (input if beta == 1 else input * beta), "AddBackward0",
                     "AddmmBackward0" if dense_grad else "SparseAddmmBackward0")  # PyTorch's one node


def _row_products(op: str, mat1: SparseTensor, mat2: Tensor) -> tuple[np.ndarray, Tensor]:
    """The rows of `mat1 @ mat2` where `mat1` (COO, 2-D) stores an element: their indices, sorted, and their
    values (rows, m), after PyTorch's checks in its words (`torch.hspmm`, `torch.sspaddmm`)."""
    if not isinstance(mat1, SparseTensor) or mat1._sp_layout is not sparse_coo:  # PyTorch has no such kernel
        raise NotImplementedError(f"Could not run 'aten::{op}' with arguments from the "
                                  f"'{'CPU' if not isinstance(mat1, SparseTensor) else 'SparseCsrCPU'}' backend. This "
                                  "could be because the operator doesn't exist for this backend, or was omitted "
                                  "during the selective/custom build process (if using custom build).")
    if mat1.sparse_dim() != 2 or mat1.dense_dim():
        raise RuntimeError(f"{op}: Argument #2: matrices expected, got {mat1.sparse_dim()}D tensor")
    if not isinstance(mat2, Tensor) or isinstance(mat2, SparseTensor) or mat2.ndim != 2:
        raise RuntimeError(f"{op}: Argument #3: matrices expected, got {getattr(mat2, 'ndim', '?')}D tensor")
    if mat1._shape[1] != mat2._shape[0]:
        raise RuntimeError(f"{op}: Argument #3: Expected dim 0 size {mat1._shape[1]}, got {mat2._shape[0]}")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(f"expected scalar type {dtypes.TORCH_NAMES[mat1._dtype.name]} but found "
                           f"{dtypes.TORCH_NAMES[mat2._dtype.name]}")
    c = mat1.coalesce()
    rows = np.unique(c._sp_indices._np()[0])
    return rows, sparse_mm(c, mat2).index_select(0, Tensor._wrap(rows.astype(np.int64)))


def hspmm(mat1: SparseTensor, mat2: Tensor) -> SparseTensor:
    """`torch.hspmm`: sparse (n, k) @ dense (k, m) as a hybrid COO tensor, one sparse dim: the rows where
    `mat1` stores an element, each a dense row of m values."""
    rows, vals = _row_products("hspmm", mat1, mat2)
    return SparseTensor._coo(Tensor._wrap(rows.reshape(1, -1)), vals, (mat1._shape[0], mat2._shape[1]), False)


def hsmm(mat1: SparseTensor, mat2: Tensor) -> SparseTensor:
    """`torch.hsmm`: `hspmm` under its other name (a hybrid COO product)."""
    return hspmm(mat1, mat2)


@parsed("mm", input="Tensor", mat2="Tensor")
def dsmm(input: Tensor, mat2: Tensor) -> Tensor:
    """`torch.dsmm`: `torch.mm` under its sparse-era name: sparse (or dense) @ dense -> dense, MmBackward0."""
    from ember.core.ops.linalg import mm

    return mm(input, mat2)


def sspaddmm(input: SparseTensor, mat1: SparseTensor, mat2: Tensor, *, beta=1, alpha=1) -> SparseTensor:
    """`torch.sspaddmm`: `beta * input + alpha * (mat1 @ mat2)`, all sparse: input's elements, then every
    element of the product's rows where `mat1` stores one, uncoalesced (as PyTorch's)."""
    if not isinstance(input, SparseTensor) or input._sp_layout is not sparse_coo:
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")
    rows, vals = _row_products("sspaddmm", mat1, mat2)
    n, m = mat1._shape[0], mat2._shape[1]
    for d, want in enumerate((n, m)):
        if input.ndim != 2 or input._shape[d] != want:
            raise RuntimeError(f"sspaddmm: Argument #1: Expected dim {d} size {want}, got "
                               f"{input._shape[d] if d < input.ndim else 1}")
    idx = np.stack([np.repeat(rows, m), np.tile(np.arange(m, dtype=np.int64), rows.size)])
    mine, theirs = input._sp_values, vals.reshape(-1)
    from ember.core.ops.join import cat

    values = cat([mine if beta == 1 else mine * beta, theirs if alpha == 1 else theirs * alpha])
    idx = np.concatenate([input._sp_indices._np(), idx], axis=1).astype(np.int64)
    return SparseTensor._coo(Tensor._wrap(idx), values, (n, m), False)


def smm(input: SparseTensor, mat2: Tensor) -> SparseTensor:
    """`torch.smm`: sparse @ dense as a sparse COO tensor (`sspaddmm` of an empty one)."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")
    shape = (input._shape[0], mat2._shape[1] if isinstance(mat2, Tensor) and mat2.ndim == 2 else 0)
    empty = SparseTensor._coo(Tensor._wrap(np.zeros((2, 0), np.int64)),
                              Tensor._wrap(np.zeros(0, input._dtype.np)), shape, True)
    return sspaddmm(empty, input, mat2)


def sparse_sum(input: SparseTensor, dim=None, dtype=None):
    """`torch.sparse.sum`: over everything (a dense 0-dim), or over `dim`s (sparse while sparse dims remain)."""
    if not isinstance(input, SparseTensor):
        return input.sum() if dim is None else input.sum(dim)
    input._need_coo("coalesce" if dim is None else "_indices")  # PyTorch's sparse.sum coalesces a COO input first
    v = input._sp_values if dtype is None else input._sp_values.to(dtype)
    if dim is None:
        return v.sum()
    dims = sorted({input._wrap_dim(d) for d in ((dim,) if isinstance(dim, int) else dim)})
    sd = input.sparse_dim()
    dense_dims = [d - sd + 1 for d in dims if d >= sd]
    if dense_dims:
        v = v.sum(tuple(dense_dims))
    keep = [d for d in range(sd) if d not in dims]
    shape = tuple(n for d, n in enumerate(input._shape) if d not in dims)
    if not keep:
        return node_name(v.sum(0), "SumBackward1", "SparseSumBackward0")
    idx = np.ascontiguousarray(input._sp_indices._np()[keep])
    out = SparseTensor._coo(Tensor._wrap(idx), v, shape, False).coalesce()
    node_name(out._sp_values, "CoalesceBackward0", "SparseSumBackward0")
    return out


def sparse_index_select(input: SparseTensor, dim: int, index: Tensor) -> SparseTensor:
    """`index_select` of a COO tensor, in PyTorch's order: the elements matching `index[0]` (in storage order),
    then `index[1]`'s...; uncoalesced. The new values are a differentiable gather of the old ones."""
    input._need_coo("index_select")
    d = input._wrap_dim(dim)
    if type(index) is not Tensor or index.ndim != 1 or index._dtype is not dtypes.int64:
        raise IndexError("index_select() argument index must be 1-D strided (non-sparse) long-tensor.")
    n = input._shape[d]
    want = index._np().astype(np.int64, copy=True)
    bad = (want < -n) | (want >= n)
    if bad.any():
        raise IndexError(f"index_select(): index contains {int(want[bad][0])} that is out of range for tensor of size "
                         f"{list(input._shape)} at dimension {d}")
    want[want < 0] += n
    shape = input._shape[:d] + (want.size,) + input._shape[d + 1:]
    idx, sd = input._sp_indices._np(), input.sparse_dim()
    if d >= sd:  # a dense dim: the values' slices, the same indices
        v = input._sp_values.index_select(d - sd + 1, Tensor._wrap(want))
        return SparseTensor._coo(Tensor._wrap(idx.copy()), v, shape, v._shape[0] < 2)
    order = np.argsort(idx[d], kind="stable")
    keys = idx[d][order]
    lo, hi = np.searchsorted(keys, want, "left"), np.searchsorted(keys, want, "right")
    counts = hi - lo
    slot = np.repeat(np.arange(want.size, dtype=np.int64), counts)
    within = np.arange(slot.size, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    picked = order[np.repeat(lo, counts) + within]
    new_idx = idx[:, picked]
    new_idx[d] = slot
    v = input._sp_values.index_select(0, Tensor._wrap(picked))
    return SparseTensor._coo(Tensor._wrap(np.ascontiguousarray(new_idx)), v, shape, slot.size < 2)


def _groups(s: SparseTensor, dim: int) -> np.ndarray:
    """For each stored element of coalesced `s`, the id of its slice along sparse dim `dim` (softmax's rows)."""
    idx = s._sp_indices._np()
    others = [d for d in range(idx.shape[0]) if d != dim]
    if not others:
        return np.zeros(idx.shape[1], dtype=np.int64)
    return _unique_columns(idx[others], tuple(s._shape[d] for d in others))[1]


def _softmax_parts(input: SparseTensor, dim: int, name: str):
    from ember.core.creation import zeros

    if not isinstance(input, SparseTensor) or input._sp_layout is not sparse_coo:  # PyTorch's missing kernels
        backend = "CPU" if not isinstance(input, SparseTensor) else "SparseCsrCPU"
        raise NotImplementedError(f"Could not run 'aten::_sparse_{name}' with arguments from the '{backend}' backend. "
                                  "This could be because the operator doesn't exist for this backend, or was omitted "
                                  "during the selective/custom build process (if using custom build). ember runs "
                                  f"'aten::_sparse_{name}' on sparse COO tensors only")
    d = input._wrap_dim(dim)
    if d >= input.sparse_dim() or input.dense_dim():
        raise RuntimeError("softmax: ember's sparse softmax runs over a sparse dim of a tensor without dense dims")
    c = input.coalesce()
    v = c._sp_values
    group = _groups(c, d)
    n_groups = int(group.max()) + 1 if group.size else 0
    g = Tensor._wrap(group)
    top = np.full(n_groups, -np.inf, dtype=v._dtype.np)
    np.maximum.at(top, group, v._np())
    shifted = v - Tensor._wrap(top).index_select(0, g)
    sums = zeros(n_groups, dtype=v._dtype).index_add(0, g, shifted.exp())
    return c, shifted, sums, g


def sparse_softmax(input: SparseTensor, dim: int, dtype=None) -> SparseTensor:
    """`torch.sparse.softmax`: softmax over the stored elements of each slice along `dim` (absent ones are
    -inf, so they stay absent)."""
    if dtype is not None:
        input = input.to(dtype)
    c, shifted, sums, g = _softmax_parts(input, dim, "softmax")
    return c._with_values(node_name(shifted.exp() / sums.index_select(0, g), "DivBackward0", "SparseSoftmaxBackward0"))


def sparse_log_softmax(input: SparseTensor, dim: int, dtype=None) -> SparseTensor:
    """`torch.sparse.log_softmax`: log of `sparse_softmax`, computed stably."""
    if dtype is not None:
        input = input.to(dtype)
    c, shifted, sums, g = _softmax_parts(input, dim, "log_softmax")
    out = shifted - sums.log().index_select(0, g)
    return c._with_values(node_name(out, "SubBackward0", "SparseLogSoftmaxBackward0"))


def spdiags(diagonals: Tensor, offsets: Tensor, shape: tuple, layout=None) -> SparseTensor:
    """`torch.sparse.spdiags`: row `j` of `diagonals` on diagonal `offsets[j]` of a sparse (rows, cols) matrix, element
    `diagonals[j, c]` at `(c - offsets[j], c)` (scipy's convention), differentiable in `diagonals`.

    Raises:
        RuntimeError: `diagonals` is not 2-D, `offsets` not 1-D of one entry per diagonal, or an offset repeats.
    """
    from ember.core.creation import tensor as _tensor

    offs = [int(o) for o in (offsets.tolist() if isinstance(offsets, Tensor) else offsets)]
    d = diagonals if isinstance(diagonals, Tensor) else _tensor(diagonals)
    if d.ndim != 2:
        raise RuntimeError(f"Diagonals must be vector or matrix, got {d.ndim}-D")
    if len(offs) != d._shape[0]:
        raise RuntimeError(f"Number of diagonals ({d._shape[0]}) does not match the number of offsets ({len(offs)})")
    if len(set(offs)) != len(offs):
        raise RuntimeError("Offset tensor contains duplicate values")
    rows_n, cols_n = (int(n) for n in shape)
    rows, cols, flat = [], [], []
    for j, k in enumerate(offs):
        c = np.arange(max(k, 0), min(rows_n + k, cols_n, d._shape[1]), dtype=np.int64)
        rows.append(c - k)
        cols.append(c)
        flat.append(j * d._shape[1] + c)
    cat = (lambda parts: np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64))
    values = d.reshape(-1).index_select(0, Tensor._wrap(cat(flat)))
    out = SparseTensor._coo(Tensor._wrap(np.stack([cat(rows), cat(cols)])), values, (rows_n, cols_n), False)
    return out.to_sparse_csr() if layout is sparse_csr else out


def sampled_addmm(input: SparseTensor, mat1: Tensor, mat2: Tensor, *, beta=1.0, alpha=1.0) -> SparseTensor:
    """`torch.sparse.sampled_addmm`: `beta * input + alpha * (mat1 @ mat2)` at `input`'s stored elements only (a CSR
    result with `input`'s pattern), differentiable in the values and both dense operands."""
    if not isinstance(input, SparseTensor) or input._sp_layout is sparse_coo:  # PyTorch has no kernel for these
        backend = "SparseCPU" if isinstance(input, SparseTensor) else "CPU"
        raise NotImplementedError(
            f"Could not run 'aten::sparse_sampled_addmm' with arguments from the '{backend}' backend. This could be "
            "because the operator doesn't exist for this backend, or was omitted during the selective/custom build "
            "process (if using custom build).")
    if input._sp_layout is not sparse_csr:
        raise RuntimeError("sampled_addmm: Expected result to have sparse csr layout, but got SparseCsc")
    if mat1.ndim != 2 or mat2.ndim != 2 or mat1._shape[1] != mat2._shape[0] \
            or (mat1._shape[0], mat2._shape[1]) != tuple(input._shape):
        raise RuntimeError(f"sampled_addmm: input, mat1 and mat2 sizes do not match: {list(input._shape)}, "
                           f"{list(mat1._shape)} and {list(mat2._shape)}")
    pat, values = _pattern(input)
    picked = (mat1.index_select(0, Tensor._wrap(pat.rows)) * mat2.t().index_select(0, Tensor._wrap(pat.col))).sum(1)
    return _index_dtype(input._with_values(values * beta + picked * alpha), np.int64)  # PyTorch's: int64 indices
