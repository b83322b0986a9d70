"""Complex matrices in the linear algebra (decompositions, solvers, pinv, lstsq, LU, Householder
QR) and complex logsumexp and trace: values against numpy's LAPACK in complex128, PyTorch's dtypes
and conventions (real singular values, eigenvalues, log|det|, residuals; conjugate transposes), and
PyTorch's values where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as E
from ember.core import linalg

RNG = np.random.default_rng(7)


def crand(*shape) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


A = crand(4, 4)
TALL, WIDE, RHS = crand(5, 3), crand(3, 5), crand(4, 2)
HPD = A @ A.conj().T + 4 * np.eye(4)


def t(a) -> E.Tensor:
    return E.from_numpy(np.asarray(a))


def close(x, ref, tol=1e-10):
    np.testing.assert_allclose(x.resolve_conj().numpy(), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("dt", [E.complex64, E.complex128])
def test_result_dtypes_are_pytorchs(dt):
    a = t(A).to(dt)
    real = dt.to_real()
    assert linalg.svd(a).S.dtype is real and linalg.svdvals(a).dtype is real
    assert linalg.eigh(a).eigenvalues.dtype is real and linalg.eigh(a).eigenvectors.dtype is dt
    assert linalg.slogdet(a).sign.dtype is dt and linalg.slogdet(a).logabsdet.dtype is real
    assert linalg.det(a).dtype is dt and linalg.inv(a).dtype is dt and linalg.pinv(a).dtype is dt
    assert linalg.matrix_norm(a, "nuc").dtype is real and linalg.cond(a).dtype is real


def test_inverse_determinants_and_solve_match_lapack():
    a = t(A)
    close(linalg.inv(a), np.linalg.inv(A))
    close(linalg.det(a), np.linalg.det(A))
    sign, logabs = np.linalg.slogdet(A)
    close(linalg.slogdet(a).sign, sign)
    close(linalg.slogdet(a).logabsdet, logabs)
    close(E.logdet(a), np.log(np.linalg.det(A)))  # the principal log of a complex determinant
    close(linalg.solve(a, t(RHS)), np.linalg.solve(A, RHS))
    close(linalg.solve(a, t(RHS[:, 0])), np.linalg.solve(A, RHS[:, 0]))
    close(linalg.solve(a, t(RHS.T), left=False), RHS.T @ np.linalg.inv(A))


def test_cholesky_is_hermitian_and_upper_is_the_conjugate_transpose():
    L = linalg.cholesky(t(HPD)).numpy()
    close(linalg.cholesky(t(HPD)), np.linalg.cholesky(HPD))
    U = linalg.cholesky(t(HPD), upper=True).numpy()
    np.testing.assert_allclose(U, L.conj().T)
    np.testing.assert_allclose(U.conj().T @ U, HPD, atol=1e-10)
    close(E.cholesky_solve(t(RHS), t(L)), np.linalg.solve(HPD, RHS))
    close(E.cholesky_solve(t(RHS), t(U), True), np.linalg.solve(HPD, RHS))
    close(E.cholesky_inverse(t(L)), np.linalg.inv(HPD))


@pytest.mark.parametrize("a", [TALL, WIDE, A], ids=["tall", "wide", "square"])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_modes(a, mode):
    Q, R = linalg.qr(t(a), mode=mode)
    ref = np.linalg.qr(a, mode=mode)
    if mode == "r":
        assert Q.shape == (0,)
        close(R, ref)
        return
    close(Q, ref[0])
    close(R, ref[1])
    np.testing.assert_allclose(Q.numpy() @ R.numpy(), a, atol=1e-10)


@pytest.mark.parametrize("a", [TALL, WIDE], ids=["tall", "wide"])
@pytest.mark.parametrize("full", [True, False])
def test_svd_full_matrices_and_torch_svd(a, full):
    U, S, Vh = linalg.svd(t(a), full_matrices=full)
    m, n = a.shape
    k = min(m, n)
    assert U.shape == ((m, m) if full else (m, k)) and Vh.shape == ((n, n) if full else (k, n))
    close(S, np.linalg.svd(a, compute_uv=False))
    np.testing.assert_allclose((U.numpy()[:, :k] * S.numpy()) @ Vh.numpy()[:k], a, atol=1e-10)
    u, s, v = E.svd(t(a), some=not full)
    np.testing.assert_allclose(v.resolve_conj().numpy(), Vh.numpy().conj().T)  # torch.svd's V = Vh^H, a conjugate view


def test_eigh_reads_one_triangle():
    w, v = linalg.eigh(t(HPD))
    close(w, np.linalg.eigvalsh(HPD))
    np.testing.assert_allclose((v.numpy() * w.numpy()) @ v.numpy().conj().T, HPD, atol=1e-10)
    mangled = np.tril(HPD) + np.triu(crand(4, 4), 1)
    close(linalg.eigvalsh(t(mangled)), np.linalg.eigvalsh(HPD))
    close(linalg.eigvalsh(t(np.triu(HPD) + np.tril(crand(4, 4), -1)), "U"), np.linalg.eigvalsh(HPD))


def test_pinv_with_tolerances_and_hermitian():
    for a in (TALL, WIDE):
        close(linalg.pinv(t(a)), np.linalg.pinv(a))
        s = np.linalg.svd(a, compute_uv=False)
        cut = (s[0] + s[1]) / 2  # keeps only the largest singular value
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        one = np.outer(vh[0].conj(), u[:, 0].conj()) / s[0]
        close(linalg.pinv(t(a), atol=cut), one)
        close(linalg.pinv(t(a), rtol=cut / s[0]), one)
        assert linalg.matrix_rank(t(a), atol=cut).item() == 1
    close(linalg.pinv(t(HPD), hermitian=True), np.linalg.inv(HPD))
    assert linalg.matrix_rank(t(HPD), hermitian=True).item() == 4
    close(E.pinverse(t(TALL)), np.linalg.pinv(TALL))


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("a", [TALL, WIDE], ids=["tall", "wide"])
def test_lstsq_outputs_per_driver(driver, a):
    b = crand(a.shape[0], 2)
    sol, res, rank, sv = linalg.lstsq(t(a), t(b), driver=driver)
    ref, ref_res, ref_rank, ref_sv = np.linalg.lstsq(a, b, rcond=None)
    close(sol, ref)
    assert res.dtype is E.float64 and sv.dtype is E.float64 and rank.dtype is E.int64
    # PyTorch's CPU drivers: residuals for a tall full-rank A except from gelsy, the rank but from gels,
    # the singular values from gelsd/gelss
    if driver != "gelsy" and a.shape[0] > a.shape[1]:
        close(res, ref_res)
    else:
        assert res.shape == (0,)
    assert rank.shape == (0,) if driver == "gels" else rank.item() == ref_rank
    if driver in ("gelsd", "gelss"):
        close(sv, ref_sv)
    else:
        assert sv.shape == (0,)
    close(linalg.lstsq(t(a), t(b[:, 0]), driver=driver).solution, ref[:, 0])


def test_lu_pivots_by_the_sum_of_absolute_parts():
    # |re| + |im| (LAPACK's izamax, as PyTorch) keeps row 0 (2 + 2.1 > 3); the modulus would pick row 1 (2.9 < 3)
    a = np.array([[2 + 2.1j, 1], [3, 1 - 1j]])
    LU, piv = linalg.lu_factor(t(a))
    assert piv.tolist() == [1, 2]
    P, L, U = linalg.lu(t(A))
    np.testing.assert_allclose(P.numpy() @ L.numpy() @ U.numpy(), A, atol=1e-10)
    LU, piv = linalg.lu_factor(t(A))
    close(linalg.lu_solve(LU, piv, t(RHS)), np.linalg.solve(A, RHS))
    close(linalg.lu_solve(LU, piv, t(RHS), adjoint=True), np.linalg.solve(A.conj().T, RHS))
    close(linalg.lu_solve(LU, piv, t(RHS.T), left=False), RHS.T @ np.linalg.inv(A))
    close(linalg.lu_solve(LU, piv, t(RHS.T), left=False, adjoint=True), RHS.T @ np.linalg.inv(A.conj().T))


def test_householder_qr_in_lapacks_layout():
    a, tau = E.geqrf(t(TALL))
    r = np.triu(a.numpy())[:3]
    assert np.allclose(np.diag(r).imag, 0)  # zgeqrf's R has a real diagonal
    Q = linalg.householder_product(a, tau).numpy()
    np.testing.assert_allclose(Q @ r, TALL, atol=1e-10)
    np.testing.assert_allclose(Q.conj().T @ Q, np.eye(3), atol=1e-10)
    full_q = E.ormqr(a, tau, t(np.eye(5, dtype=complex))).numpy()
    np.testing.assert_allclose(full_q[:, :3], Q, atol=1e-12)
    c = crand(5, 2)
    close(E.ormqr(a, tau, t(c), transpose=True), full_q.conj().T @ c)  # Q^H for complex, as LAPACK's zunmqr
    close(E.ormqr(a, tau, t(c.T), left=False), c.T @ full_q)


def test_ex_variants_flag_a_singular_complex_matrix():
    sing = np.stack([np.array([[1 + 1j, 2 + 2j], [2 + 2j, 4 + 4j]]), np.eye(2) * (1 + 1j)])
    inverse, info = linalg.inv_ex(t(sing))
    assert info.tolist() == [2, 0]
    # LAPACK's getrs through the zero pivot, dividing as Fortran does: nan+nanj (PyTorch 2.13)
    assert np.isnan(inverse.numpy()[0].real).all() and np.isnan(inverse.numpy()[0].imag).all()
    close(inverse[1], np.linalg.inv(sing[1]))
    result, info = linalg.solve_ex(t(sing), t(np.ones((2, 2, 1), complex)))
    assert info.tolist() == [2, 0] and np.isnan(result.numpy()[0].imag).all()


def test_matrix_functions_and_norms():
    close(linalg.matrix_exp(t(A * 0.3)), _expm(A * 0.3))
    close(linalg.matrix_norm(t(A), 2), np.linalg.norm(A, 2))
    close(linalg.matrix_norm(t(A), "nuc"), np.linalg.norm(A, "nuc"))
    close(linalg.cond(t(A)), np.linalg.cond(A))
    close(linalg.tensorsolve(t(A), t(RHS[:, 0])), np.linalg.solve(A, RHS[:, 0]))


def _expm(a: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eig(a)
    return (v * np.exp(w)) @ np.linalg.inv(v)


@pytest.mark.parametrize("dt", [E.complex64, E.complex128])
def test_logsumexp_of_complex_shifts_by_the_real_max(dt):
    inf, nan = float("inf"), float("nan")
    # (input, PyTorch 2.13's value): the principal log of the shifted sum plus the real shift
    cases = [([1 + 2j, -0.5 + 3j, 2 - 1j], 1.4591227353781373 - 1.017531521599077j),
             ([complex(-inf, 1), 1 + 2j], 1 + 2j), ([complex(-inf, 1), complex(-inf, 2)], complex(-inf, 0)),
             ([complex(inf, 1), 1 + 2j], complex(inf, np.pi / 4)), ([1000 + 1j, 1000 + 2j], 1000.5625730 + 1.5j),
             ([3j, 3j], np.log(2) + 3j), ([], complex(-inf, 0))]
    for vals, want in cases:
        got = E.logsumexp(E.tensor(vals, dtype=dt), 0)
        assert got.dtype is dt
        np.testing.assert_allclose(got.numpy().real, want.real, rtol=1e-6)
        np.testing.assert_allclose(got.numpy().imag, want.imag, rtol=1e-6)
    assert np.isnan(E.logsumexp(E.tensor([complex(nan, 1), 1 + 2j]), 0).item().real)
    close(E.logsumexp(t(A), 1, keepdim=True), np.log(np.exp(A).sum(1, keepdims=True)))


def test_logaddexp_and_logcumsumexp_of_complex_follow_pytorchs_steps():
    inf = float("inf")
    x = np.array([1 + 2j, -0.5 + 3j, 2 - 1j, complex(-inf, 1), complex(inf, 1)])
    y = np.array([0.5 - 1j, 2 + 0.5j, complex(-inf, 2), complex(-inf, 1), 1 + 1j])
    got = E.logaddexp(t(x), t(y)).numpy()
    np.testing.assert_allclose(got[:3], np.log(np.exp(x[:3]) + np.exp(y[:3])), rtol=1e-12)
    assert got[3] == complex(-inf, 1) and got[4] == complex(inf, 1)  # PyTorch 2.13's values at the infinities
    run = E.logcumsumexp(t(x), 0).numpy()
    np.testing.assert_allclose(run[:3], np.log(np.cumsum(np.exp(x[:3]))), rtol=1e-12)
    np.testing.assert_allclose(run[3], run[2])
    assert run[4] == complex(inf, 1)
    close(E.logcumsumexp(t(A), 1), np.log(np.cumsum(np.exp(A), 1)))
    assert np.isnan(E.logaddexp(t([complex(np.nan, 0)]), t([1j])).numpy()).all()


def test_trace_of_complex_stays_complex():
    assert E.trace(t(A)).dtype is E.complex128
    close(E.trace(t(A)), np.trace(A))


@pytest.mark.torch
def test_every_linalg_function_matches_pytorch_on_complex():
    torch = pytest.importorskip("torch")
    T = torch.from_numpy
    H, L = T(HPD), torch.linalg.cholesky(T(HPD))
    cases = [("inv", (A,), {}), ("det", (A,), {}), ("slogdet", (A,), {}), ("solve", (A, RHS), {}),
             ("cholesky", (HPD,), {"upper": True}), ("qr", (TALL,), {"mode": "complete"}), ("svd", (WIDE,), {}),
             ("svdvals", (TALL,), {}), ("eigvalsh", (HPD,), {}), ("pinv", (TALL,), {}),
             ("pinv", (HPD,), {"hermitian": True}), ("matrix_rank", (WIDE,), {}), ("lstsq", (TALL, crand(5, 2)), {}),
             ("lstsq", (TALL, crand(5, 2)), {"driver": "gelsd"}), ("lu", (A,), {}), ("lu_factor", (A,), {}),
             ("matrix_exp", (A,), {}), ("cond", (A,), {}), ("matrix_norm", (A, "nuc"), {}),
             ("householder_product", tuple(x.numpy() for x in torch.geqrf(T(TALL))), {}),
             ("solve_triangular", (np.triu(A) + 3 * np.eye(4), RHS), {"upper": True})]
    for name, args, kw in cases:
        want = getattr(torch.linalg, name)(*(T(a) if isinstance(a, np.ndarray) else a for a in args), **kw)
        got = getattr(linalg, name)(*(t(a) if isinstance(a, np.ndarray) else a for a in args), **kw)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        for w, g in zip(want, got, strict=True):
            w = w.resolve_conj().numpy()
            assert g.numpy().dtype == w.dtype and g.shape == w.shape, name
            np.testing.assert_allclose(g.numpy(), w, atol=1e-8, err_msg=name)
    for name, args in (("cholesky_solve", (T(RHS), L)), ("cholesky_inverse", (L,)), ("logdet", (H,)),
                       ("geqrf", (T(TALL),)), ("logsumexp", (T(A), 1)), ("trace", (T(A),)),
                       ("logcumsumexp", (T(A), 0)), ("logaddexp", (T(A), T(A.T)))):
        want = getattr(torch, name)(*args)
        got = getattr(E, name)(*(t(a.numpy()) if isinstance(a, torch.Tensor) else a for a in args))
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,),
                        strict=True):
            np.testing.assert_allclose(g.numpy(), w.numpy(), atol=1e-8, err_msg=name)


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
def test_complex_linalg_on_cuda_runs_on_the_host_or_on_the_parts():
    m = A[:3, :3]
    a = t(m).to("cuda")
    for got, ref in ((linalg.inv(a), np.linalg.inv(m)), (linalg.svdvals(a), np.linalg.svd(m)[1]),
                     (E.logsumexp(a, 1), np.log(np.exp(m).sum(1))), (linalg.pinv(a), np.linalg.pinv(m)),
                     (linalg.lu_factor(a).LU, linalg.lu_factor(t(m)).LU.numpy()),
                     (linalg.matrix_exp(a * 0.3), _expm(m * 0.3)), (E.trace(a), np.trace(m)),
                     (E.logaddexp(a, a.mT), E.logaddexp(t(m), t(m.T)).numpy()),
                     (E.logcumsumexp(a, 1), np.log(np.cumsum(np.exp(m), 1))), (a / 2.0, m / 2), (3.0 / a, 3 / m),
                     (E.log1p(a * 1e-9), np.log1p(m * 1e-9)), (E.tril(a), np.tril(m)),
                     (E.diag_embed(a), E.diag_embed(t(m)).numpy())):
        assert got.device.type == "cuda"
        np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-7, atol=1e-10)
