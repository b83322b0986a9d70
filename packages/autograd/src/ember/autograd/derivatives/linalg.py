"""Derivatives of the matrix decompositions and solvers (inverse, determinants, solve, Cholesky,
symmetric and general eigendecompositions, SVD, QR of tall or square matrices), after PyTorch's formulas.
Complex matrices take the same rules with conjugate transposes (`_mH`; the transpose of a real matrix),
in PyTorch's convention for complex gradients; where a loss depends on the arbitrary phase of complex
eigen- or singular vectors, the rule raises PyTorch's error."""

from __future__ import annotations

import math

import numpy as np

from ember.core import cat, eye
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor

from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.derivatives._helpers import cj, not_implemented

__all__ = ["ENTRIES", "COMPOSITE_ENTRIES"]


def _mT(x):
    return x.transpose(-2, -1)


def _mH(x):
    return x.mH if x.is_complex() else x.transpose(-2, -1)


def _inv(a):
    return get_op("linalg_inv")(a)


def _det_backward(grad, A, result):
    """conj(det(A)) A^-H; at a singular matrix, the conjugate cofactor matrix (`_cofactors`: the same gradient,
    continuous there) where the inverse would raise. PyTorch gives 0 there."""
    if not bool((result == 0).any()):
        return (grad * result.conj()).unsqueeze(-1).unsqueeze(-1) * _mH(_inv(A))
    return grad.unsqueeze(-1).unsqueeze(-1) * Tensor._wrap(_cofactors(A).conj()).to(dtype=A.dtype, device=A.device)


def _cofactors(A):
    """The cofactor matrix det(A) A^-T of each matrix of A, from its SVD A = U S Vh (valid where A is singular):
    det(U) det(Vh) conj(U) diag(product of the other singular values) conj(Vh), float64 (complex128) numpy."""
    a = A.detach().cpu().numpy()
    u, s, vh = np.linalg.svd(a.astype(np.complex128 if np.iscomplexobj(a) else np.float64))
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(s.shape[-1])], -1)
    return (np.linalg.det(u) * np.linalg.det(vh))[..., None, None] * (u.conj() * others[..., None, :]) @ vh.conj()


def _slogdet_backward(grads, A, result0, result1):
    """A^-H for log|det A|; at a singular matrix it is infinite: conj(cofactors / 0) (+-inf, NaN where a cofactor
    is 0), as PyTorch, instead of the inverse's error. Complex: sign = det / |det| varies too, and the gradient
    is (g_logabsdet + i Im(g_sign conj(sign))) A^-H."""
    if grads[1] is None and (grads[0] is None or not A.is_complex()):
        return None
    g = grads[1] if grads[1] is not None else 0.0 * result1
    if A.is_complex() and grads[0] is not None:
        g = g + 1j * (grads[0] * result0.conj()).imag
    g = g.unsqueeze(-1).unsqueeze(-1)
    if not bool((result1 == -math.inf).any()):
        return g * _mH(_inv(A))
    with np.errstate(divide="ignore", invalid="ignore"):
        det = result0.detach().cpu().numpy() * np.exp(result1.detach().cpu().numpy())  # a signed 0, as the LU's
        cof = _cofactors(A)
        inv_h = (cof / det.astype(cof.dtype)[..., None, None]).conj()
    return g * Tensor._wrap(inv_h).to(dtype=A.dtype, device=A.device)


def _solve_grads(grad, A, B, result, grad_input_mask):
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    gB = get_op("linalg_solve")(_mH(A), grad)
    if not grad_input_mask[0]:
        return None, gB
    if vector:
        gA = -(gB.unsqueeze(-1) @ result.conj().unsqueeze(-2))
    else:
        gA = -(gB @ _mH(result))
    return gA, gB


def _cholesky_backward(grad, result, upper):
    """PyTorch's cholesky_backward: L^-H Phi(tril(L^H gL)) L^-1 with Phi(X) = (X + tril(X, -1)^H) / 2."""
    L, gL = (_mH(result), _mH(grad)) if upper else (result, grad)
    phi = (_mH(L) @ gL).tril()
    phi = 0.5 * (phi + _mH(phi.tril(-1)))  # a complex diagonal keeps its imaginary part, as PyTorch's
    L_inv = _inv(L)
    return _mH(L_inv) @ phi @ L_inv


def _eigh_backward(grads, result0, result1):
    """The Hermitian part of V (diag(gL) + E o (V^H gV)) V^H with E_ij = 1 / (L_j - L_i) off the diagonal, as
    PyTorch's (which projects V^H gV onto the skew-Hermitian matrices)."""
    L, V = result0, result1
    gL, gV = grads[0], grads[1]
    inner = 0.0 * (_mH(V) @ V)
    if gV is not None:
        diff = L.unsqueeze(-2) - L.unsqueeze(-1)
        n = L.shape[-1]
        from ember.core import eye

        off = 1.0 - eye(n, dtype=L.dtype, device=L.device)
        E = off / (diff + (1.0 - off))
        VhgV = _mH(V) @ gV
        if V.is_complex():
            _check_phase(VhgV.diagonal(0, -2, -1).imag, None, "linalg_eigh_backward: The eigenvectors in the complex "
                         "case are specified up to multiplication by e^{i phi}. The specified loss function depends "
                         "on this quantity, so it is ill-defined.")
        inner = inner + E * VhgV
    if gL is not None:
        inner = inner + gL.diag_embed()
    g = V @ inner @ _mH(V)
    return 0.5 * (g + _mH(g))  # PyTorch's projection onto Hermitian matrices: eigh reads only one triangle


def _check_phase(a, b, message: str) -> None:
    """PyTorch's test that a loss does not depend on the phases of complex eigen- or singular vectors:
    allclose(a, -b) (b None: a ~ 0) with its lax rtol = atol = 1e-2, else a RuntimeError."""
    a = a.detach().cpu().numpy()
    b = np.zeros_like(a) if b is None else -b.detach().cpu().numpy()
    if not np.allclose(a, b, rtol=1e-2, atol=1e-2):
        raise RuntimeError(message)


def _eig_backward(grads, result0, result1):
    """PyTorch's linalg_eig_backward: V^-H (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(L_j - L_i)) V^H.
    First order only: V^-H comes from LAPACK (ember's solvers are real)."""
    L, V = result0, result1
    gL, gV = grads[0], grads[1]
    n = L.shape[-1]
    eye = _eye_like(L, n)
    off = 1.0 - eye
    Vh = V.mH
    inner = 0.0 * (Vh @ V)
    if gV is not None:
        VhgV = Vh @ gV
        diag = VhgV.diagonal(0, -2, -1)
        scale = float(diag.abs().max().item()) if diag.numel() else 0.0
        if diag.numel() and float(diag.imag.abs().max().item()) > 1e-4 * max(scale, 1.0):
            raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                               "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
                               "so it is ill-defined.")
        econj = L.conj().unsqueeze(-2) - L.conj().unsqueeze(-1)
        econj = econj * off + eye
        inner = (VhgV - Vh @ (V * diag.real.unsqueeze(-2))) / econj * off
    if gL is not None:
        inner = inner + gL.diag_embed()
    rhs = (inner @ Vh).detach()
    return Tensor._wrap(np.linalg.solve(Vh.detach().resolve_conj()._np(), rhs._np()))


def _eye_like(L, n: int):
    return eye(n, dtype=L.dtype, device=L.device)


def _svd_backward(grads, A, full_matrices, result0, result1, result2):
    """PyTorch's svd_backward; with full_matrices the extra singular vectors are dropped. Complex: the
    diagonal of U^H gU adds i Im(.) / S, and a loss that depends on the vectors' phases raises."""
    gU, gS, gVh = grads
    U, S, Vh = result0, result1, result2
    k = S.shape[-1]
    if full_matrices:
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU = None if gU is None else gU.narrow(-1, 0, k)
        gVh = None if gVh is None else gVh.narrow(-2, 0, k)
    m, n = A.shape[-2], A.shape[-1]
    if gU is None and gVh is None:
        return U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh
    from ember.core import eye

    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(k, dtype=S.dtype, device=S.device)
    uhgu = None if gU is None else _mH(U) @ gU
    vhgv = None if gVh is None else Vh @ _mH(gVh)
    uhgu = None if uhgu is None else uhgu - _mH(uhgu)
    vhgv = None if vhgv is None else vhgv - _mH(vhgv)
    cplx = A.is_complex()
    if cplx:
        _check_phase(uhgu.diagonal(0, -2, -1).imag if uhgu is not None else 0.0 * S,
                     vhgv.diagonal(0, -2, -1).imag if vhgv is not None else None,
                     "svd_backward: The singular vectors in the complex case are specified up to multiplication by "
                     "e^{i phi}. The specified loss function depends on this phase term, making it ill-defined.")
    if uhgu is not None and vhgv is not None:
        gA = (uhgu * S.unsqueeze(-2) + S.unsqueeze(-1) * vhgv) / E
    elif uhgu is None:
        gA = S.unsqueeze(-1) * (vhgv / E)
    else:
        gA = (uhgu / E) * S.unsqueeze(-2)
    if gS is not None:
        gA = gA + gS.diag_embed()
    if cplx and uhgu is not None:
        gA = gA + (uhgu.diagonal(0, -2, -1) / (2.0 * S)).diag_embed()
    if m > n and gU is not None:
        gUSinv = gU / S.unsqueeze(-2)
        return (U @ gA + gUSinv - U @ (_mH(U) @ gUSinv)) @ Vh
    if m < n and gVh is not None:
        SinvgVh = gVh / S.unsqueeze(-1)
        return U @ (gA @ Vh + SinvgVh - (SinvgVh @ _mH(Vh)) @ Vh)
    return U @ gA @ Vh


def _qr_backward(grads, A, mode, result0, result1):
    """PyTorch's linalg_qr_backward: for m >= n, (gQ + Q syminvadj(triu(gR R^H - Q^H gQ))) R^-H; for
    m < n, A = [X | Y] with X = Q R[:, :m] square: X's gradient by that rule with gQ + Y gV^H (gV the
    gradient of R[:, m:] = Q^H Y), and Y's is Q gV."""
    gQ, gR = grads
    Q, R = result0, result1
    m, n = A.shape[-2], A.shape[-1]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                           "linalg.qr.")
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if m >= n:
        return _qr_backward_tall(gQ, gR, Q, R)
    gU = None if gR is None else gR[..., :m]
    gV = None if gR is None else gR[..., m:]
    if gV is not None:
        yg = A[..., m:] @ _mH(gV)
        gQ = yg if gQ is None else gQ + yg
    gX = _qr_backward_tall(gQ, gU, Q, R[..., :m])
    gY = Q @ gV if gV is not None else A[..., m:] * 0.0
    return cat([gX, gY], -1)


def _qr_backward_tall(gQ, gR, Q, R):
    inner = None
    if gR is not None:
        inner = gR @ _mH(R)
    if gQ is not None:
        qtgq = _mH(Q) @ gQ
        inner = -qtgq if inner is None else inner - qtgq
    inner = inner.triu()
    sym = inner + _mH(inner)
    sym = sym - 0.5 * sym.diagonal(0, -2, -1).diag_embed()
    gA = Q @ sym
    if gQ is not None:
        gA = gA + gQ
    return _mH(get_op("linalg_solve")(R, _mH(gA)))


def _pinv_backward(grad, result, A):
    """PyTorch's pinv_backward, for the whole matrix whether or not `hermitian` read one triangle (its gradient is
    not symmetrized), arranged so the products are of the smaller dimension."""
    m, n = A.shape[-2:]
    ph, gh = _mH(result), _mH(grad)
    if m <= n:
        K = gh @ result
        Kph = K @ ph
        return -_mH(result @ K) + Kph - (A @ result) @ Kph + (ph @ result) @ (gh - K @ A)
    K = result @ gh
    phK = ph @ K
    return -_mH(K @ result) + (gh - A @ K) @ result @ ph + phK - phK @ result @ A


def _cholesky_solve_grads(grad, input, input2, result, upper, grad_input_mask):
    """PyTorch's cholesky_solve_backward: the factor's gradient is -(G X^H + X G^H) L (U (...) when `upper`),
    over the whole matrix, with G = cholesky_solve(grad)."""
    g_input = get_op("cholesky_solve")(grad, input2, upper)
    if not grad_input_mask[1]:
        return g_input, None
    common = g_input @ _mH(result)
    common = common + _mH(common)
    return g_input, -(input2 @ common) if upper else -(common @ input2)


def _cholesky_inverse_backward(grad, input, upper, result):
    """PyTorch's cholesky_inverse_backward: -(A^-1 (G + G^H) A^-1) L (U (...) when `upper`), the whole matrix."""
    common = result @ (grad + _mH(grad)) @ result
    return -(input @ common) if upper else -(common @ input)


def _euclidean_dist_grads(grad, x1, x2, result):
    """PyTorch's _euclidean_dist_backward: grad / distance (0 where the distance is 0, a subgradient) pulled back
    through |x1_i - x2_j|."""
    ratio = (grad / result).masked_fill(result == 0, 0)
    return x1 * ratio.sum(-1, keepdim=True) - ratio @ x2, x2 * ratio.sum(-2).unsqueeze(-1) - _mT(ratio) @ x1


def _weight_norm_grads(grad, v, g, dim):
    """w = v * g / n with n = ||v|| over every dim but `dim`: through v directly and through n (dn/dv = v / n),
    the norms recomputed from v so the rule differentiates again, as PyTorch's differentiable backward."""
    from ember.core.ops.linalg_composite import norm_except_dim

    n = norm_except_dim(v, 2, dim)
    grad_n = (grad * v * g / (n * n)).sum_to_size(tuple(n.shape))
    return (grad * g / n).sum_to_size(tuple(v.shape)) - v / n * grad_n, (grad * v / n).sum_to_size(tuple(g.shape))


ENTRIES = [
    d("linalg_cross(input, other, dim)", input=lambda grad, other, dim: get_op("linalg_cross")(cj(other), grad, dim),
      other=lambda grad, input, dim: get_op("linalg_cross")(grad, cj(input), dim)),
    d("linalg_inv(A)", A=lambda grad, result: -(_mH(result) @ grad @ _mH(result))),
    d("linalg_det(A)", A=_det_backward),
    d("linalg_slogdet(A)", A=_slogdet_backward),
    d("linalg_solve(A, B)", **{"A, B": _solve_grads}),
    d("linalg_cholesky(A, upper=False)", A=_cholesky_backward),
    d("linalg_eigh(A, UPLO='L')", A=_eigh_backward),
    d("linalg_eig(A)", A=_eig_backward),
    d("linalg_qr(A, mode='reduced')", A=_qr_backward),
    d("linalg_svd(A, full_matrices=True)", A=_svd_backward),
    d("linalg_pinv(A, atol=None, rtol=None, hermitian=False)", A=_pinv_backward, atol=None, rtol=None),
    d("cholesky_solve(input, input2, upper=False)", **{"input, input2": _cholesky_solve_grads}),
    d("cholesky_inverse(input, upper=False)", input=_cholesky_inverse_backward),
    d("_euclidean_dist(x1, x2)", **{"x1, x2": _euclidean_dist_grads}),
    d("_weight_norm_interface(v, g, dim)", name="WeightNormInterfaceBackward0", **{"v, g": _weight_norm_grads}),
]


def _cdist_backward(grad, x1, x2, p, result, which: int):
    """cdist's gradient wrt x1 (`which` 0) or x2: its composition differentiated on detached operands, recorded
    as PyTorch's _cdist_backward, which has no derivative (a second backward raises PyTorch's error). PyTorch's
    kernel sums each coordinate's contributions into zeros, so a zero gradient is +0 (never a negated -0)."""
    from ember.autograd.engine import grad as _grad
    from ember.autograd.grad_mode import enable_grad
    from ember.core.dispatch import record
    from ember.core.ops.linalg import _cdist_distances

    with enable_grad():
        a, b = x1.detach().requires_grad_(which == 0), x2.detach().requires_grad_(which == 1)
        g, = _grad(_cdist_distances(a, b, p), (a, b)[which], grad.detach())
    return record("_cdist_backward", (grad, x1, x2, p, result), g + 0.0)


def _affine_grid_backward(grad, theta, size, align_corners):
    """theta's gradient of `grid = base @ theta^T`: `(base^T @ grad)^T` per batch, `(N, nd, nd + 1)`, PyTorch's bmm
    and transpose (the nodes a double backward records)."""
    from ember.core.creation import from_numpy
    from ember.core.ops.sampling import _base_grid

    nd = len(size) - 2
    base = from_numpy(_base_grid(tuple(size), align_corners, theta.dtype.np).astype(theta.dtype.np)).to(grad.device)
    return _mT(_mT(base.expand(size[0], *base.shape)).bmm(grad.reshape(size[0], -1, nd)))


# composites PyTorch records as one node (`record.computed`; see reduce.COMPOSITE_ENTRIES)
COMPOSITE_ENTRIES = [
    d("affine_grid_generator(theta, size, align_corners)", theta=_affine_grid_backward),
    d("cdist(x1, x2, p)", x1=lambda grad, x1, x2, p, result: _cdist_backward(grad, x1, x2, p, result, 0),
      x2=lambda grad, x1, x2, p, result: _cdist_backward(grad, x1, x2, p, result, 1)),
    d("_cdist_backward(grad, x1, x2, p, cdist)", grad=not_implemented("_cdist_backward"),
      x1=not_implemented("_cdist_backward"), x2=not_implemented("_cdist_backward"),
      cdist=not_implemented("_cdist_backward")),
]
