"""PyTorch's argument checks of the LU and triangular solvers, in its order and words: a program that passes int64
pivots, a B of the wrong height or pivots of another matrix gets the error PyTorch gives, not one from the
composite ops these solvers are built of (`mat1 and mat2 shapes cannot be multiplied`, an index out of range)."""

from __future__ import annotations

import numpy as np

from ember.core import dtypes
from ember.core.ops._util import broadcast_shapes
from ember.core.tensor import Tensor

__all__ = ["check_solver_shapes", "check_linear_solve", "check_lu_solve", "check_lu_unpack_pivots"]

_REFACTOR_HINT = "Did you properly pass the result of lu_factor?"


def check_solver_shapes(op: str, A: Tensor, B: Tensor, left: bool) -> None:
    """ATen's `checkInputsSolver`: A square, B a matrix with A's order on the side that `left` multiplies."""
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    if B.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    n, (rows, cols) = A._shape[-1], B._shape[-2:]
    if (rows if left else cols) != n:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({n}x{n} and {rows}x{cols})")


def check_linear_solve(op: str, b: Tensor, A: Tensor) -> None:
    """ATen's `linearSolveCheckInputs` of the older solvers (`cholesky_solve(b, u)`, `triangular_solve(b, A)`)."""
    if b._dtype is not A._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{dtypes.TORCH_NAMES[b._dtype.name]} and A of type {dtypes.TORCH_NAMES[A._dtype.name]} "
                           "instead.")
    (m, n), (p, k) = A._shape[-2:], b._shape[-2:]
    if m != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {m} by {n} matrices")
    if p != n:
        raise RuntimeError(f"Incompatible matrix sizes for {op}: each A matrix is {m} by {n} but each b "
                           f"matrix is {p} by {k}")


def check_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, left: bool) -> None:
    """`linalg.lu_solve`'s meta checks, then its kernel's check of the pivot values (1-based, at most n)."""
    if not (LU._dtype.is_floating_point or LU._dtype.is_complex):
        raise RuntimeError(f"torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.TORCH_NAMES[LU._dtype.name]}")
    if LU._dtype is not B._dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{dtypes.TORCH_NAMES[LU._dtype.name]} and B of type {dtypes.TORCH_NAMES[B._dtype.name]} "
                           "instead")
    if pivots._dtype is not dtypes.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if LU.ndim < 2 or LU._shape[-1] != LU._shape[-2]:
        check_solver_shapes("torch.linalg.lu_solve", LU, LU, True)
    check_solver_shapes("linalg.lu_solve", LU, B, left)
    if not pivots._shape or pivots._shape[-1] != LU._shape[-1]:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix")
    if pivots._shape != LU._shape[:-1]:
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots "
                           f"with shape {list(pivots._shape)} instead")
    broadcast_shapes(B._shape[:-2], LU._shape[:-2])  # B's batch first, as PyTorch names the sizes
    p = np.asarray(pivots._host_array())
    if p.size and p.min() < 1:
        raise RuntimeError(f"Pivots given to lu_solve must all be greater or equal to 1. {_REFACTOR_HINT}")
    if p.size and p.max() > LU._shape[-2]:
        raise RuntimeError(f"Pivots given to lu_solve must all be smaller or equal to LU.size(-2). {_REFACTOR_HINT}")


def check_lu_unpack_pivots(LU: Tensor, pivots: Tensor) -> None:
    """`lu_unpack`'s checks: contiguous int32 pivots whose values index LU's rows (1-based)."""
    if LU.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU._shape)} instead")
    if pivots._dtype is not dtypes.int32 or not pivots.is_contiguous():
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    p = np.asarray(pivots._host_array())
    if p.size and (p.min() < 1 or p.max() > LU._shape[-2]):
        raise RuntimeError(f"pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.{_REFACTOR_HINT}")
