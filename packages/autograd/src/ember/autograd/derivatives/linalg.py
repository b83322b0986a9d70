"""Derivatives of the matrix decompositions and solvers (inverse, determinants, solve, Cholesky,
symmetric eigendecomposition). QR and SVD have no backward in ember yet; it raises when needed."""

from __future__ import annotations

from ember.core.dispatch import get_op

from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.derivatives._helpers import not_implemented


def _mT(x):
    return x.transpose(-2, -1)


def _inv(a):
    return get_op("linalg_inv")(a)


def _solve_grads(grad, A, B, result, grad_input_mask):
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    gB = get_op("linalg_solve")(_mT(A), grad)
    if not grad_input_mask[0]:
        return None, gB
    if vector:
        gA = -(gB.unsqueeze(-1) @ result.unsqueeze(-2))
    else:
        gA = -(gB @ _mT(result))
    return gA, gB


def _cholesky_backward(grad, result, upper):
    """PyTorch's cholesky_backward: L^-H Phi(L^H gL) L^-1, symmetrized (Phi: lower half, diagonal halved)."""
    L, gL = (_mT(result), _mT(grad)) if upper else (result, grad)
    phi = (_mT(L) @ gL).tril()
    phi = phi - 0.5 * phi.diagonal(0, -2, -1).diag_embed()
    L_inv = _inv(L)
    g = _mT(L_inv) @ phi @ L_inv
    return 0.5 * (g + _mT(g))


def _eigh_backward(grads, result0, result1):
    """V (diag(gL) + E o (V^T gV)) V^T with E_ij = 1 / (L_j - L_i) off the diagonal."""
    L, V = result0, result1
    gL, gV = grads[0], grads[1]
    inner = 0.0 * (_mT(V) @ V)
    if gV is not None:
        diff = L.unsqueeze(-2) - L.unsqueeze(-1)
        n = L.shape[-1]
        from ember.core import eye

        off = 1.0 - eye(n, dtype=L.dtype, device=L.device)
        E = off / (diff + (1.0 - off))
        inner = inner + E * (_mT(V) @ gV)
    if gL is not None:
        inner = inner + gL.diag_embed()
    return V @ inner @ _mT(V)


ENTRIES = [
    d("linalg_inv(A)", A=lambda grad, result: -(_mT(result) @ grad @ _mT(result))),
    d("linalg_det(A)", A=lambda grad, A, result: (grad * result).unsqueeze(-1).unsqueeze(-1) * _mT(_inv(A))),
    d("linalg_slogdet(A)", A=lambda grads, A: None if grads[1] is None else
      grads[1].unsqueeze(-1).unsqueeze(-1) * _mT(_inv(A))),
    d("linalg_solve(A, B)", **{"A, B": _solve_grads}),
    d("linalg_cholesky(A, upper=False)", A=_cholesky_backward),
    d("linalg_eigh(A, UPLO='L')", A=_eigh_backward),
    d("linalg_qr(A, mode='reduced')", A=not_implemented("linalg_qr")),
    d("linalg_svd(A, full_matrices=True)", A=not_implemented("linalg_svd")),
]
