"""`torch.lobpcg`: the k largest (or smallest) eigenpairs of a symmetric positive-definite generalized
problem A X = B X diag(E), by Knyazev's locally optimal block preconditioned conjugate gradient.

The iteration runs in float64 numpy on the host: each step is a Rayleigh-Ritz projection onto the span
of the current vectors X, the (preconditioned) residuals W and the previous step's directions P.
Where A or B requires grad, the returned eigenpairs are instead those of the dense problem through the
differentiable `linalg.eigh` (the same eigenpairs, signs matched to the iteration's), whose gradient
restricted to the k pairs is the derivative PyTorch's lobpcg backward computes.
"""

from __future__ import annotations

import math

import numpy as np

from ember.core.ops import indexing as I
from ember.core.ops import shape as S
from ember.core.ops.linalg_composite import solve_triangular
from ember.core.ops.linalg_solvers import _linalg_cholesky, eigh
from ember.core.random import randn
from ember.core.tensor import Tensor, describe

__all__ = ["lobpcg"]


class _ArgumentError(ValueError, AssertionError):
    """A bad argument: PyTorch's lobpcg asserts (AssertionError); Python code expects ValueError."""


class _State:
    """What `tracker` sees after each step: `ivars` (istep, converged_count), `tvars` (E, X, R)."""

    def __init__(self) -> None:
        self.ivars: dict[str, int] = {"istep": 0, "converged_count": 0}
        self.fvars: dict[str, float] = {}
        self.tvars: dict[str, Tensor] = {}


def _b_orthonormal(S_: np.ndarray, B: np.ndarray | None) -> np.ndarray:
    """Columns spanning S_'s range, orthonormal in the B inner product; near-dependent directions dropped."""
    G = S_.T @ (S_ if B is None else B @ S_)
    G = (G + G.T) / 2
    w, V = np.linalg.eigh(G)
    keep = w > w.max() * 1e-14 * G.shape[0] if w.size else w > 0
    return S_ @ (V[:, keep] / np.sqrt(w[keep]))


def _lobpcg_one(A: np.ndarray, B: np.ndarray | None, X: np.ndarray, k: int, iK: np.ndarray | None, niter: int,
                tol: float, largest: bool, state: _State, tracker) -> tuple[np.ndarray, np.ndarray]:
    n = X.shape[1]
    norm_a = np.linalg.norm(A)
    norm_b = 1.0 if B is None else np.linalg.norm(B)
    X = _b_orthonormal(X, B)
    W = P = np.zeros((A.shape[0], 0))
    step = 0
    while True:
        basis = _b_orthonormal(np.hstack([X, W, P]), B)
        w, C = np.linalg.eigh(basis.T @ A @ basis)
        order = np.argsort(-w if largest else w, kind="stable")[:n]
        E, X_new = w[order], basis @ C[:, order]
        BX = X_new if B is None else B @ X_new
        R = A @ X_new - BX * E
        if step:  # the new vectors' part outside the old ones: the next step's directions
            P = X_new - X @ (X.T @ BX)
        X = X_new
        rerr = np.linalg.norm(R, axis=0) / ((norm_a + np.abs(E) * norm_b) * np.linalg.norm(X, axis=0))
        converged = int(np.sum(rerr[:k] < tol))
        step += 1
        state.ivars.update(istep=step, converged_count=converged)
        if tracker is not None:
            state.tvars.update(E=Tensor._wrap(E.copy()), X=Tensor._wrap(X.copy()), R=Tensor._wrap(R.copy()))
            tracker(state)
        if converged >= k or (niter >= 0 and step >= niter):
            return E[:k], X[:, :k]
        W = R if iK is None else iK @ R


def _sym(M: Tensor) -> Tensor:
    return (M + S.transpose(M, -2, -1)) * 0.5


def _dense(A: Tensor, B: Tensor | None, k: int, largest: bool, X_ref: Tensor) -> tuple[Tensor, Tensor]:
    """The k eigenpairs through differentiable ops, signed as the iteration's eigenvectors `X_ref`; A and B
    enter symmetrized, so their gradients are symmetric, as PyTorch's lobpcg gives them."""
    A = _sym(A)
    B = None if B is None else _sym(B)
    if B is None:
        w, V = eigh(A)
    else:  # A x = e B x with B = L L^T: (L^-1 A L^-T) y = e y, x = L^-T y
        L = _linalg_cholesky(B)
        C = solve_triangular(L, S.transpose(solve_triangular(L, A, upper=False), -2, -1), upper=False)
        w, Y = eigh(C)
        V = solve_triangular(S.transpose(L, -2, -1), Y, upper=True)
    m = A._shape[-1]
    idx = list(range(m - 1, m - 1 - k, -1)) if largest else list(range(k))
    from ember.core.creation import tensor

    index = tensor(idx, device=A.device)
    E, X = I.index_select(w, -1, index), I.index_select(V, -1, index)
    sign = np.sign(np.sum(X._host_array() * X_ref._host_array(), axis=-2, keepdims=True))
    sign[sign == 0] = 1
    return E, X * Tensor._wrap(sign.astype(X._dtype.np)).to(A.device)


def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None, n: int | None = None,
           iK: Tensor | None = None, niter: int | None = None, tol: float | None = None, largest: bool | None = None,
           method: str | None = None, tracker=None, ortho_iparams: dict | None = None,
           ortho_fparams: dict | None = None, ortho_bparams: dict | None = None) -> tuple[Tensor, Tensor]:
    """`(E, X)`: the k largest (smallest when `largest=False`) eigenvalues of the symmetric positive-definite
    problem A X = B X diag(E) (A: (*, m, m)), in that order, and their B-orthonormal eigenvectors (*, m, k).

    Args:
        k: eigenpairs wanted (default 1, or X's columns); n: the size of the search block (default k).
        X: the initial block (*, m, n) (default random); iK: a preconditioner (m, m) for the residuals.
        niter: the most steps (default 1000, -1: until converged); tol: the relative residual to reach
            (default the square root of the dtype's eps).
        method: 'ortho' or 'basic' (the same iteration here); `ortho_*` are accepted and not needed.
        tracker: called after each step with the state (`ivars['istep']`, `tvars['E']`, `tvars['X']`).

    Raises:
        ValueError: m < 3 n (the method needs room for three blocks), a shape that is not square.

    >>> from ember.core import tensor
    >>> round(float(lobpcg(tensor([[2.0, 0, 0, 0], [0, 5.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 3.0]]), k=1)[0]), 4)
    5.0
    """
    if not isinstance(A, Tensor):
        raise TypeError(f"lobpcg(): argument 'A' must be Tensor, not {describe(A)}")
    if A.ndim < 2 or A._shape[-1] != A._shape[-2]:
        raise _ArgumentError(f"A must be square, got shape {tuple(A._shape)}")
    if B is not None and B._shape != A._shape:
        raise _ArgumentError(f"A and B must have the same shapes, got {tuple(A._shape)} and {tuple(B._shape)}")
    if method not in (None, "ortho", "basic"):
        raise ValueError(f"lobpcg: method must be 'ortho' or 'basic', got {method!r}")
    k = 1 if k is None else k
    n = (k if n is None else n) if X is None else X._shape[-1]
    m = A._shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
                         f"the number of requested eigenpairs (={n})")
    if n < k:
        raise ValueError(f"lobpcg: the search block (n={n}) must hold the k={k} requested eigenpairs")
    largest = True if largest is None else largest
    niter = 1000 if niter is None else niter
    tol = math.sqrt(float(np.finfo(A._dtype.np).eps)) if tol is None else tol
    batch = A._shape[:-2]
    count = math.prod(batch)
    a = np.asarray(A._host_array(), dtype=np.float64).reshape(count, m, m)
    b = None if B is None else np.asarray(B._host_array(), dtype=np.float64).reshape(count, m, m)
    x0 = randn(*batch, m, n, dtype=A._dtype) if X is None else X
    x = np.broadcast_to(np.asarray(x0._host_array(), dtype=np.float64), batch + (m, n)).reshape(count, m, n)
    ik = None if iK is None else np.asarray(iK._host_array(), dtype=np.float64)
    state = _State()
    Es, Xs = zip(*[_lobpcg_one(a[i], None if b is None else b[i], x[i], k, ik, niter, tol, largest, state, tracker)
                   for i in range(count)]) if count else ((), ())
    E = Tensor._wrap(np.array(Es, dtype=A._dtype.np).reshape(batch + (k,))).to(A.device)
    Xr = Tensor._wrap(np.array(Xs, dtype=A._dtype.np).reshape(batch + (m, k))).to(A.device)
    if A._requires_grad or A._grad_fn is not None or (B is not None and (B._requires_grad or B._grad_fn is not None)):
        return _dense(A, B, k, largest, Xr)
    return E, Xr

