"""Gradients of the linear algebra on complex matrices in PyTorch's convention (the conjugate Wirtinger
derivative): float64 finite differences in the real and the imaginary direction of every element
(gradcheck), PyTorch's errors for losses that depend on the phase of eigen- or singular vectors, and
PyTorch's gradients where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E

L = E.linalg


def crand(*shape, seed: int = 0) -> E.Tensor:
    rng = np.random.default_rng(seed)
    return E.from_numpy(rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).requires_grad_()


def hpd(n: int = 3, seed: int = 0) -> E.Tensor:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (n, n)) + 1j * rng.uniform(-1, 1, (n, n))
    return E.from_numpy(a @ a.conj().T + n * np.eye(n)).requires_grad_()


def herm(a):
    """The Hermitian part: eigh, cholesky and pinv(hermitian=True) read one triangle of their input."""
    return (a + a.mH) / 2


def reconstruct(u, s, vh):
    return (u[..., :, :s.shape[-1]] * s.unsqueeze(-2)) @ vh[..., :s.shape[-1], :]


CASES = {
    "inv": (lambda a: L.inv(a), [(3, 3)]),
    "det": (lambda a: L.det(a), [(2, 3, 3)]),
    "slogdet": (lambda a: L.slogdet(a).sign * L.slogdet(a).logabsdet, [(3, 3)]),
    "logdet": (lambda a: E.logdet(a), [(3, 3)]),
    "solve": (lambda a, b: L.solve(a, b), [(3, 3), (3, 2)]),
    "solve_vector": (lambda a, b: L.solve(a, b), [(3, 3), (3,)]),
    "qr_tall": (lambda a: L.qr(a).Q @ L.qr(a).R.diag_embed() + L.qr(a).R.triu(1).sum(), [(4, 3)]),
    "qr_wide": (lambda a: (L.qr(a).Q, L.qr(a).R), [(3, 5)]),
    "qr_complete_square": (lambda a: L.qr(a, mode="complete").Q, [(3, 3)]),
    "svd_reduced": (lambda a: reconstruct(*L.svd(a, full_matrices=False)), [(4, 3)]),
    "svd_full_wide": (lambda a: reconstruct(*L.svd(a)), [(3, 5)]),
    "svd_projectors": (lambda a: (lambda u, s, vh: (u @ u.mH, vh.mH @ vh, s))(*L.svd(a, full_matrices=False)),
                       [(4, 3)]),
    "svd_abs": (lambda a: L.svd(a, full_matrices=False).U.abs(), [(3, 4)]),
    "torch_svd": (lambda a: (lambda u, s, v: u @ v.mH)(*E.svd(a)), [(4, 3)]),
    "svdvals": (lambda a: L.svdvals(a), [(3, 4)]),
    "pinv_tall": (lambda a: L.pinv(a), [(4, 3)]),
    "pinv_wide": (lambda a: L.pinv(a), [(3, 4)]),
    "lstsq": (lambda a, b: L.lstsq(a, b).solution, [(5, 3), (5, 2)]),
    "lstsq_wide": (lambda a, b: L.lstsq(a, b, driver="gelsd").solution, [(3, 5), (3, 2)]),
    "lu": (lambda a: L.lu(a)[1:], [(3, 3)]),
    "lu_solve": (lambda a, b: L.lu_solve(*L.lu_factor(a), b, adjoint=True), [(3, 3), (3, 2)]),
    "matrix_exp": (lambda a: L.matrix_exp(a), [(3, 3)]),
    "matrix_norms": (lambda a: (L.matrix_norm(a, 2), L.matrix_norm(a, "nuc"), L.cond(a)), [(3, 3)]),
    "solve_triangular": (lambda a, b: L.solve_triangular(a, b, upper=True, left=False), [(3, 3), (2, 3)]),
    "householder": (lambda a, tau: L.householder_product(a, tau), [(4, 3), (3,)]),
    "geqrf": (lambda a: E.geqrf(a), [(4, 3)]),
    "eigvals": (lambda a: L.eigvals(a), [(3, 3)]),
    "logsumexp": (lambda a: E.logsumexp(a, 1), [(2, 3)]),
    "logcumsumexp": (lambda a: E.logcumsumexp(a, 1), [(2, 3)]),
    "logaddexp": (lambda a, b: E.logaddexp(a, b), [(2, 3), (2, 3)]),
    "trace": (lambda a: E.trace(a), [(3, 3)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_by_finite_differences(name):
    fn, shapes = CASES[name]
    assert E.gradcheck(fn, tuple(crand(*s, seed=i) for i, s in enumerate(shapes)))


@pytest.mark.parametrize("fn", [
    lambda a: L.cholesky(herm(a)), lambda a: L.cholesky(herm(a), upper=True),
    lambda a: E.cholesky_solve(a[:, :2], L.cholesky(herm(a))), lambda a: L.eigvalsh(herm(a)),
    lambda a: (lambda w, v: (v * w.unsqueeze(-2)) @ v.mH)(*L.eigh(herm(a))),
    lambda a: L.eigh(herm(a)).eigenvectors.abs(), lambda a: L.pinv(herm(a), hermitian=True),
], ids=["cholesky", "cholesky_upper", "cholesky_solve", "eigvalsh", "eigh", "eigh_abs", "pinv_hermitian"])
def test_gradients_of_hermitian_inputs(fn):
    assert E.gradcheck(fn, (hpd(),))


def test_determinants_of_a_singular_complex_matrix():
    a = E.from_numpy(np.array([[1 + 1j, 2 - 1j, 0.5j], [2 + 2j, 4 - 2j, 1j], [0.3, 1j, 2]])).requires_grad_()
    assert E.gradcheck(lambda x: L.det(x), (a,))  # the conjugate cofactors: continuous where det is 0
    L.slogdet(a).logabsdet.backward()  # infinite there: NaN, as PyTorch, not the inverse's LinAlgError
    assert np.isnan(a.grad.numpy()).all()


@pytest.mark.parametrize("name", ["inv", "slogdet", "solve", "qr_tall", "svd_reduced", "pinv_wide", "logsumexp",
                                  "logcumsumexp", "logaddexp"])
def test_second_derivatives(name):
    fn, shapes = CASES[name]
    assert E.gradgradcheck(fn, tuple(crand(*s, seed=i) for i, s in enumerate(shapes)))


def test_second_derivatives_of_hermitian_inputs():
    assert E.gradgradcheck(lambda a: L.cholesky(herm(a)), (hpd(),))
    assert E.gradgradcheck(lambda a: (lambda w, v: (v * w.unsqueeze(-2)) @ v.mH)(*L.eigh(herm(a))), (hpd(),))


def test_phase_dependent_losses_raise_pytorchs_error():
    a = crand(4, 3)
    with pytest.raises(RuntimeError, match=r"^svd_backward: The singular vectors in the complex case are specified "
                                           r"up to multiplication by e\^\{i phi\}\. The specified loss function "
                                           r"depends on this phase term, making it ill-defined\.$"):
        L.svd(a, full_matrices=False).U.real.sum().backward()
    with pytest.raises(RuntimeError, match="svd_backward: The singular vectors in the complex case"):
        L.svd(a).Vh.sum().abs().backward()
    with pytest.raises(RuntimeError, match=r"^linalg_eigh_backward: The eigenvectors in the complex case are specified "
                                           r"up to multiplication by e\^\{i phi\}\. The specified loss function "
                                           r"depends on this quantity, so it is ill-defined\.$"):
        L.eigh(hpd()).eigenvectors.real.sum().backward()
    u, s, vh = L.svd(a, full_matrices=False)  # U diag(S) Vh does not depend on the phases
    (u * s.unsqueeze(-2) @ vh).abs().sum().backward()
    assert a.grad.dtype is E.complex128


def test_eigh_gradient_is_hermitian_for_real_and_complex():
    for a in (E.from_numpy(np.array([[2.0, 0.5], [0.5, 1.0]])).requires_grad_(), hpd()):
        w, v = L.eigh(a)
        (w.sum() + (v * v[..., :1, :].conj()).real.sum()).backward()
        g = a.grad.numpy()
        np.testing.assert_allclose(g, g.conj().T, atol=1e-12)


@pytest.mark.torch
def test_gradients_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)

    def c(*s):
        return rng.standard_normal(s) + 1j * rng.standard_normal(s)

    a, tall, wide, b = c(4, 4), c(5, 3), c(3, 5), c(4, 2)
    hp = a @ a.conj().T + 4 * np.eye(4)

    def weighted(m, y, seed):
        w = np.asarray(np.random.default_rng(seed).standard_normal(tuple(y.shape) + (2,)) @ np.array([1, 1j]))
        return (y * m.from_numpy(w if y.is_complex() else w.real)).real.sum()

    cases = [
        (lambda m, x: m.linalg.inv(x), a), (lambda m, x: m.linalg.det(x), a),
        (lambda m, x: m.linalg.slogdet(x).sign * 2 + m.linalg.slogdet(x).logabsdet, a),
        (lambda m, x, y: m.linalg.solve(x, y), a, b), (lambda m, x: m.linalg.cholesky(x), hp),
        (lambda m, x: m.linalg.cholesky(x, upper=True), hp), (lambda m, x: m.linalg.eigvalsh(x), hp),
        (lambda m, x: (lambda v: v * v[..., :1, :].conj())(m.linalg.eigh(x).eigenvectors), hp),
        (lambda m, x: m.linalg.qr(x).Q + m.linalg.qr(x).R.sum(), tall), (lambda m, x: m.linalg.qr(x).R, wide),
        (lambda m, x: (lambda u, s, vh: u @ vh + s.sum())(*m.linalg.svd(x, full_matrices=False)), tall),
        (lambda m, x: (lambda u, s, vh: u[:, :3] @ vh[:3] + s.sum())(*m.linalg.svd(x)), wide),
        (lambda m, x: m.linalg.pinv(x), tall), (lambda m, x: m.linalg.pinv(x), wide),
        (lambda m, x, y: m.linalg.lstsq(x, y).solution, tall, c(5, 2)),
        (lambda m, x: m.logsumexp(x, 1), a), (lambda m, x: m.linalg.matrix_exp(x), a * 0.3),
        (lambda m, x: m.logcumsumexp(x, 1), a), (lambda m, x, y: m.logaddexp(x, y), a, b[:, :1]),
        (lambda m, x: m.linalg.lu(x).U, a), (lambda m, x: m.linalg.matrix_norm(x, "nuc"), a),
    ]
    for i, (fn, *arrs) in enumerate(cases):
        grads = []
        for m in (torch, E):
            xs = [m.from_numpy(x).requires_grad_() for x in arrs]
            weighted(m, fn(m, *xs), i).backward()
            grads.append([x.grad.resolve_conj().numpy() for x in xs])
        for want, got in zip(*grads, strict=True):
            np.testing.assert_allclose(got, want, atol=1e-8, err_msg=f"case {i}")
