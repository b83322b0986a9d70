"""The eigendecomposition of general square matrices (`torch.linalg.eig`, `eigvals`): complex
eigenvalues and unit-norm eigenvectors from LAPACK's geev (through numpy), as complex tensors
whatever the input's dtype, as PyTorch returns them."""

from __future__ import annotations

import numpy as np
from ember.core import dtypes
from ember.core.dispatch import declare
from ember.core.ops._util import wrap
from ember.core.ops.arguments import parsed, refuse_out_with_grad
from ember.core.ops.linalg import linalg
from ember.core.ops.linalg_solvers import LinAlgError, column_major, refuse_dtype
from ember.core.ops.structseq import out_type, return_type
from ember.core.tensor import Tensor

__all__: list[str] = []

_Eig = return_type("linalg_eig", ["eigenvalues", "eigenvectors"])

_eig = declare("linalg_eig", np.linalg.eig, doc="linalg_eig(A) -> (eigenvalues, eigenvectors), complex")


@_eig.register("cpu")
def _eig_cpu(A):
    """linalg_eig(A): each square matrix's eigenvalues and unit-norm eigenvectors (columns), complex."""
    if A.ndim < 2:
        raise RuntimeError("linalg.eig: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"linalg.eig: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    dt = A._dtype
    if not (dt.is_floating_point or dt.is_complex):  # PyTorch looks up the complex dtype of the result first
        raise RuntimeError(f"Unknown Complex ScalarType for {dtypes.TORCH_NAMES.get(dt.name, dt.name)}")
    refuse_dtype(A, "linalg_eig_out_cpu")
    a = A._np()
    if a.size and not np.all(np.isfinite(a)):
        raise LinAlgError("linalg.eig: The input tensor A must not contain infs or NaNs.")
    try:
        w, v = np.linalg.eig(a)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.eig: The algorithm failed to converge.") from None
    out = dt if dt.is_complex else dt.to_complex()
    return wrap(np.asarray(w, dtype=out.np)), column_major(np.asarray(v, dtype=out.np))


@parsed("linalg_eig", A=("input", "Tensor"))
def eig(A: Tensor, *, out=None):
    """`(eigenvalues, eigenvectors)` of each square matrix in A, complex; eigenvectors have norm 1,
    defined up to a phase (a loss that depends on the phase has no gradient, as in PyTorch).

    >>> from ember.core import linalg, tensor
    >>> linalg.eig(tensor([[2.0, 0.0], [0.0, 3.0]])).eigenvalues
    tensor([2.+0.j, 3.+0.j])
    """
    if out is not None:
        refuse_out_with_grad("linalg_eig", A)
    w, v = _eig(A)
    if out is not None:
        out[0].resize_(w.shape).copy_(w)
        out[1].resize_(v.shape).copy_(v)
        return out_type(_Eig)(*out)
    return _Eig(w, v)


@parsed("linalg_eigvals", A=("input", "Tensor"))
def eigvals(A: Tensor, *, out=None) -> Tensor:
    """The complex eigenvalues of each square matrix in A."""
    if isinstance(A, Tensor) and A.ndim >= 2 and A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"linalg.eigvals: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    w = _eig(A)[0]
    if out is not None:
        return out.resize_(w.shape).copy_(w)
    return w


linalg.eig = eig
linalg.eigvals = eigvals
