"""The rest of torch.linalg (triangular and Cholesky solves, LU, matrix_exp, the *_ex variants,
lstsq, cond, tensorinv/tensorsolve, vander, householder_product) against numpy/scipy float64."""

import math
import re
import warnings

import numpy as np
import pytest

import ember.core as E
from ember.core import linalg
from ember.core.testing import assert_close

sla = pytest.importorskip("scipy.linalg")
RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 4, 4))
B = RNG.standard_normal((2, 4, 3))
SPD = A @ A.transpose(0, 2, 1) + 4 * np.eye(4)


def T(a):
    return E.tensor(np.asarray(a), dtype=E.float64)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular_reads_one_triangle(upper, unit):
    X = linalg.solve_triangular(T(A), T(B), upper=upper, unitriangular=unit)
    ref = np.stack([sla.solve_triangular(A[i], B[i], lower=not upper, unit_diagonal=unit) for i in range(2)])
    assert_close(X, T(ref))
    tri = np.triu(A) if upper else np.tril(A)
    if unit:
        tri[:, np.arange(4), np.arange(4)] = 1.0
    Xr = linalg.solve_triangular(T(A), T(B).transpose(-2, -1), upper=upper, left=False, unitriangular=unit)
    assert_close(Xr, T(B.transpose(0, 2, 1) @ np.linalg.inv(tri)))


def test_solve_triangular_errors():
    with pytest.raises(RuntimeError, match="The input tensor B must have at least 2 dimensions"):
        linalg.solve_triangular(T(A[0]), T(B[0, :, 0]), upper=True)
    with pytest.raises(NotImplementedError, match="\"triangular_solve_cpu\" not implemented for 'Long'"):
        linalg.solve_triangular(E.tensor([[1]]), E.tensor([[1]]), upper=True)  # PyTorch's kernel refuses it
    with pytest.raises(TypeError) as e:  # upper is required: PyTorch's argument parser names it
        linalg.solve_triangular(E.eye(3), E.ones(3, 1))
    assert str(e.value) == 'linalg_solve_triangular() missing 1 required positional arguments: "upper"'
    with pytest.raises(RuntimeError) as e:
        linalg.lstsq(E.ones(3, 2), E.ones(4, 1))
    assert str(e.value) == "torch.linalg.lstsq: input.size(-2) should match other.size(-2)"


def test_cholesky_solve_and_inverse():
    Lc = np.linalg.cholesky(SPD)
    ref = np.linalg.solve(SPD, B)
    assert_close(E.cholesky_solve(T(B), T(Lc)), T(ref))
    assert_close(E.cholesky_solve(T(B), T(Lc).transpose(-2, -1), upper=True), T(ref))
    assert_close(E.cholesky_inverse(T(Lc[0])), T(np.linalg.inv(SPD[0])))
    assert_close(T(B).cholesky_solve(T(Lc)), T(ref))


@pytest.mark.parametrize("b, u, msg", [
    (B[0, :, 0], SPD[0], "b should have at least 2 dimensions, but has 1 dimensions instead"),
    (B[0], SPD[0, 0], "u should have at least 2 dimensions, but has 1 dimensions instead"),
    (B[0], SPD[0, :3, :3], "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix "
                           "is 4 by 3"),
    (B[0], SPD[0, :, :3], "A must be batches of square matrices, but they are 4 by 3 matrices"),
])
def test_cholesky_solve_errors_are_pytorchs(b, u, msg):
    with pytest.raises(RuntimeError) as e:
        E.cholesky_solve(T(b), T(u))
    assert str(e.value) == msg


def test_cholesky_solve_and_inverse_name_the_operands():
    with pytest.raises(RuntimeError) as e:
        E.cholesky_solve(E.ones(4, 2), T(SPD[0]))
    assert str(e.value) == ("Expected b and A to have the same dtype, but found b of type Float and A of type Double "
                            "instead.")
    with pytest.raises(RuntimeError) as e:
        E.cholesky_inverse(E.ones(3))
    assert str(e.value) == "cholesky_inverse: The input tensor A must have at least 2 dimensions."
    with pytest.raises(RuntimeError) as e:
        E.cholesky_inverse(E.ones(3, 2))
    assert str(e.value) == "cholesky_inverse: A must be batches of square matrices, but they are 3 by 2 matrices"


def test_cholesky_ex_reports_the_first_bad_minor():
    L, info = linalg.cholesky_ex(T(np.stack([SPD[0], -SPD[1]])))
    assert info.tolist() == [0, 1] and info.dtype is E.int32
    assert_close(L[0], T(np.linalg.cholesky(SPD[0])))
    assert_close(L[1], T(np.tril(-SPD[1])))  # LAPACK's partial factor: the failed pivot, the rest as given
    assert linalg.cholesky_ex(T([[1.0, 2.0], [2.0, 1.0]])).info.item() == 2
    with pytest.raises(linalg.LinAlgError):
        linalg.cholesky_ex(T([[1.0, 2.0], [2.0, 1.0]]), check_errors=True)


def _potf2(a, upper=False):
    """LAPACK's unblocked Cholesky in float64/complex128 from the triangle it reads: (factor, info)."""
    w = np.array(a.conj().T if upper else a, dtype=complex if np.iscomplexobj(a) else float)
    w = np.tril(w)
    n, info = w.shape[0], 0
    for j in range(n):
        d = w[j, j].real - sum(abs(w[j, q]) ** 2 for q in range(j))
        if not d > 0:
            w[j, j], info = d, j + 1
            break
        w[j, j] = math.sqrt(d)
        for i in range(j + 1, n):
            w[i, j] = (w[i, j] - sum(w[i, q] * w[j, q].conjugate() for q in range(j))) / w[j, j]
    return (w.conj().T if upper else w), info


# PyTorch 2.13's (MKL's) results, hard-coded
CHOL_CASES = [
    ([[-1.0, 1.0], [1.0, 2.0]], False, [[-1.0, 0.0], [1.0, 2.0]], 1),
    ([[-1.0, 1.0], [1.0, 2.0]], True, [[-1.0, 1.0], [0.0, 2.0]], 1),
    ([[4.0, 2, 1], [2, 1, 3], [1, 3, 5]], False, [[2.0, 0, 0], [1, 0, 0], [0.5, 3, 5]], 2),
    ([[4.0, 100, 7], [2, 1, 8], [1, 3, -5]], True, [[2.0, 50, 3.5], [0, -2499, 8], [0, 0, -5]], 2),
    ([[1.0, 5.0], [5.0, 2.0]], False, [[1.0, 0.0], [5.0, -23.0]], 2),
    ([[math.nan, 1.0], [1.0, 2.0]], False, [[math.nan, 0.0], [1.0, 2.0]], 1),
    ([[1.0, math.nan], [math.nan, 2.0]], False, [[1.0, 0.0], [math.nan, math.nan]], 2),
    ([[4.0, 2], [99, 3]], True, [[2.0, 1.0], [0.0, math.sqrt(2)]], 0),
]


@pytest.mark.parametrize("dtype", [E.float32, E.float64])
@pytest.mark.parametrize("a, upper, want, info", CHOL_CASES)
def test_cholesky_ex_returns_lapacks_partial_factor(a, upper, want, info, dtype):
    L, got = linalg.cholesky_ex(E.tensor(a, dtype=dtype), upper=upper)
    assert got.item() == info and L.dtype is dtype
    assert_close(L, E.tensor(want, dtype=dtype), equal_nan=True)


def test_cholesky_ex_partial_factor_batched_and_complex():
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 5, 8):
        m = rng.standard_normal((3, n, n)) + 1j * rng.standard_normal((3, n, n))
        a = m @ m.conj().transpose(0, 2, 1) + 0.1 * np.eye(n)
        a[1, n // 2, n // 2] -= 60.0  # the middle matrix fails at (about) column n // 2
        a[:, np.arange(n)[:, None] < np.arange(n)] += 3.0  # junk in the unread upper triangle
        for upper in (False, True):
            src = a.conj().transpose(0, 2, 1) if upper else a  # upper reads the conjugate of the other triangle
            for dtype in (E.complex128, E.float64):
                x = src if dtype.is_complex else src.real
                L, info = linalg.cholesky_ex(E.tensor(x, dtype=dtype), upper=upper)
                ref = [_potf2(m, upper) for m in x]
                assert info.tolist() == [k for _, k in ref] and info.tolist()[1] > 0
                assert_close(L, E.tensor(np.stack([f for f, _ in ref]), dtype=dtype), rtol=1e-9, atol=1e-9)


def test_cholesky_raises_at_a_nan_pivot_and_reads_one_triangle():
    with pytest.raises(linalg.LinAlgError, match="leading minor of order 2 is not positive-definite"):
        linalg.cholesky(T([[1.0, math.nan], [math.nan, 2.0]]))
    with pytest.raises(linalg.LinAlgError, match=r"\(Batch element 1\): .* order 1 is not"):
        linalg.cholesky(T([np.eye(2), [[math.nan, 0], [0, 1]]]))
    assert_close(linalg.cholesky(T([[4.0, 2], [99, 3]]), upper=True), T([[2.0, 1.0], [0.0, math.sqrt(2)]]))
    assert_close(linalg.cholesky(T([[4.0, 99], [2, 3]])), T([[2.0, 0.0], [1.0, math.sqrt(2)]]))


def _not_pd_at(n: int, k: int) -> np.ndarray:
    """An SPD matrix of order n whose leading minor of order k (1-based) is the first that is not positive-definite."""
    a = np.random.default_rng(0).standard_normal((n, n))
    A = a @ a.T + n * np.eye(n)
    A[k - 1, k - 1] = -1e3
    return A


@pytest.mark.parametrize("k", [10, 150, 195])
def test_cholesky_ex_info_past_lapacks_block_size(k):
    # n = 200 goes through LAPACK's blocked potrf (PyTorch's MKL, scipy's LAPACK); its info is the order of the
    # first leading minor that is not positive-definite, which the unblocked factor finds the same
    from scipy.linalg import lapack

    A = _not_pd_at(200, k)
    for upper in (False, True):
        L, info = linalg.cholesky_ex(T(A), upper=upper)
        assert info.item() == k == lapack.dpotrf(A, lower=1)[1]
        L = L.numpy().T if upper else L.numpy()
        L11 = np.linalg.cholesky(A[:k - 1, :k - 1])
        row = np.linalg.solve(L11, A[k - 1, :k - 1])
        np.testing.assert_allclose(L[:k - 1, :k - 1], L11, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(L[k - 1, :k - 1], row, rtol=1e-12, atol=1e-12)
        assert L[k - 1, k - 1] == pytest.approx(A[k - 1, k - 1] - row @ row, rel=1e-12)  # the failing pivot


@pytest.mark.torch
@pytest.mark.parametrize("n, k", [(129, 125), (200, 10), (200, 150), (200, 195), (300, 250)])
def test_cholesky_ex_past_128_matches_torch_to_the_failing_row(n, k):
    # rows below the failing one differ: MKL's blocked routine has updated them partly (docs/robustness.md)
    torch = pytest.importorskip("torch")
    A = _not_pd_at(n, k)
    L, info = linalg.cholesky_ex(T(A))
    tL, tinfo = torch.linalg.cholesky_ex(torch.tensor(A))
    assert info.item() == tinfo.item() == k
    np.testing.assert_allclose(L.numpy()[:k], tL.numpy()[:k], rtol=1e-10, atol=1e-10)


@pytest.mark.torch
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_cholesky_ex_matches_torch(dtype, upper):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for n in (1, 2, 4, 7, 10):
        m = rng.standard_normal((4, n, n)) + (1j * rng.standard_normal((4, n, n)) if "complex" in dtype else 0)
        a = m @ m.conj().transpose(0, 2, 1) + np.eye(n)
        a[1:, n - 1, n - 1] -= 100.0
        a[2, 0, 0] = -1.0
        L, info = linalg.cholesky_ex(E.tensor(a, dtype=getattr(E, dtype)), upper=upper)
        tL, tinfo = torch.linalg.cholesky_ex(torch.tensor(a, dtype=getattr(torch, dtype)), upper=upper)
        assert info.tolist() == tinfo.tolist()
        tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
        np.testing.assert_allclose(L.numpy(), tL.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 4, 4)])
def test_lu_factor_matches_lapack(shape):
    a = RNG.standard_normal(shape)
    LU, piv = linalg.lu_factor(T(a))
    flat = a.reshape((-1,) + shape[-2:])
    for i, m in enumerate(flat):
        lu_ref, piv_ref = sla.lu_factor(m) if m.shape[0] == m.shape[1] else _getrf(m)
        assert_close(LU.reshape((-1,) + shape[-2:])[i], T(lu_ref))
        assert piv.reshape(len(flat), -1)[i].tolist() == (np.asarray(piv_ref) + 1).tolist()
    assert piv.dtype is E.int32


def _getrf(m):
    from scipy.linalg import lapack

    lu, piv, _ = lapack.dgetrf(m)
    return lu, piv


def test_lu_unpack_and_linalg_lu_reconstruct_a():
    a = RNG.standard_normal((2, 5, 3))
    P, L, U = linalg.lu(T(a))
    assert_close(P @ L @ U, T(a))
    assert np.allclose(np.triu(L.tolist()[0], 1), 0) and np.allclose(np.tril(U.tolist()[0], -1), 0)
    P2, L2, U2 = E.lu_unpack(*linalg.lu_factor(T(a)))
    assert_close(P2, P) and assert_close(L2, L) and assert_close(U2, U)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve(left, adjoint):
    LU, piv = linalg.lu_factor(T(A))
    Aa = A.transpose(0, 2, 1) if adjoint else A
    if left:
        ref = np.linalg.solve(Aa, B)
        assert_close(linalg.lu_solve(LU, piv, T(B), adjoint=adjoint), T(ref))
    else:
        Bt = B.transpose(0, 2, 1)
        ref = np.linalg.solve(Aa.transpose(0, 2, 1), B).transpose(0, 2, 1)  # X A = B^T
        assert_close(linalg.lu_solve(LU, piv, T(Bt), left=False, adjoint=adjoint), T(ref))
    assert_close(E.lu_solve(T(B), LU, piv), T(np.linalg.solve(A, B)))


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    (lambda LU, piv: (LU, piv, E.ones(3, 1, dtype=E.float64)), {},
     r"linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B \(4x4 and 3x1\)"),
    (lambda LU, piv: (LU, piv, E.ones(1, 3, dtype=E.float64)), {"left": False},
     r"linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B \(4x4 and 1x3\)"),
    (lambda LU, piv: (LU, piv, E.ones(4, 1)), {},
     "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type Double and B of type Float "
     "instead"),
    (lambda LU, piv: (LU, piv[:3], E.ones(4, 1, dtype=E.float64)), {},
     "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix"),
    (lambda LU, piv: (LU, piv.long(), E.ones(4, 1, dtype=E.float64)), {},
     "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32"),
    (lambda LU, piv: (LU[:3], piv, E.ones(4, 1, dtype=E.float64)), {},
     "torch.linalg.lu_solve: A must be batches of square matrices, but they are 3 by 4 matrices"),
    (lambda LU, piv: (LU.expand(2, 4, 4), piv.expand(3, 4), E.ones(4, 1, dtype=E.float64)), {},
     r"linalg.lu_solve: Expected LU.shape\[:-1\] and pivots.shape to be the same, but got pivots with shape "
     r"\[3, 4\] instead"),
])
def test_lu_solve_checks_its_operands_in_pytorchs_words(args, kwargs, message):
    LU, piv = linalg.lu_factor(T(A[0, :4, :4] + 4 * np.eye(4)))
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        linalg.lu_solve(*args(LU, piv), **kwargs)


def test_singular_matrices_in_lu_inv_ex_and_solve_ex():
    s = T([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(RuntimeError, match=r"U\[2,2\] is zero") as e:  # a plain RuntimeError in PyTorch
        linalg.lu_factor(s)
    assert not isinstance(e.value, linalg.LinAlgError)
    LU, piv, info = linalg.lu_factor_ex(s)
    assert LU.tolist() == [[2.0, 4.0], [0.5, 0.0]] and piv.tolist() == [2, 2] and info.item() == 2
    inv, info = linalg.inv_ex(T(np.stack([A[0], np.zeros((4, 4))])))
    assert info.tolist() == [0, 1]
    assert_close(inv[0], T(np.linalg.inv(A[0])))
    X, info = linalg.solve_ex(T(A), T(B))
    assert info.tolist() == [0, 0]
    assert_close(X, T(np.linalg.solve(A, B)))
    LU, piv, infos = E.lu(T(A), get_infos=True)
    assert infos.tolist() == [0, 0]


@pytest.mark.parametrize("scale", [0.1, 1.0, 10.0])
def test_matrix_exp_matches_scipy(scale):
    a = A * scale
    assert_close(linalg.matrix_exp(T(a)), T(np.stack([sla.expm(m) for m in a])), rtol=1e-10, atol=1e-10)
    f32 = E.matrix_exp(E.tensor(A[0], dtype=E.float32))
    assert f32.dtype is E.float32
    assert_close(f32, E.tensor(sla.expm(A[0]), dtype=E.float32), rtol=1e-5, atol=1e-5)


def test_cond_diagonal_tensorinv_tensorsolve_vander():
    for p in (None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf):
        assert_close(linalg.cond(T(A), p), T(np.linalg.cond(A, p)))
    assert_close(linalg.diagonal(T(A), offset=1), T(np.diagonal(A, 1, -2, -1)))
    a6 = RNG.standard_normal((6, 2, 3))
    assert_close(linalg.tensorinv(T(a6), ind=1), T(np.linalg.tensorinv(a6, ind=1)))
    a = RNG.standard_normal((2, 3, 6))
    b = RNG.standard_normal((2, 3))
    assert_close(linalg.tensorsolve(T(a), T(b)), T(np.linalg.tensorsolve(a, b)))
    x = np.array([1.0, 2.0, 3.0])
    assert_close(linalg.vander(T(x)), T(np.vander(x, increasing=True)))
    assert linalg.vander(E.tensor([1, 2, 3]), N=4).tolist() == np.vander([1, 2, 3], 4, increasing=True).tolist()
    assert linalg.vander(E.tensor(2.0), N=3).tolist() == [[1.0, 2.0, 4.0]]
    with pytest.raises(RuntimeError, match="prod"):
        linalg.tensorinv(T(RNG.standard_normal((4, 2, 3))), ind=1)


def test_vander_is_parsed_as_pytorchs_linalg_vander():
    with pytest.raises(TypeError, match="^linalg_vander\\(\\) got an unexpected keyword argument 'out'$"):
        linalg.vander(E.ones(2), out=E.empty(2, 2))
    with pytest.raises(TypeError, match="^linalg_vander\\(\\): argument 'N' must be int, not float$"):
        linalg.vander(E.ones(2), N=2.0)


def test_cond_of_a_singular_matrix_is_inf_in_the_norms_that_invert():
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    for p in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        c = linalg.cond(T(np.stack([s, SPD[0][:2, :2]])), p)
        # PyTorch's inf, not inv's LinAlgError; "nuc" takes svdvals' round-off of 0 (4.8e16), as PyTorch
        assert math.isinf(c[0].item()) or p == "nuc" and c[0].item() > 1e15, p
        assert_close(c[1], T(np.linalg.cond(SPD[0][:2, :2], p)))


def test_cond_of_a_nan_product_is_inf_and_the_nuclear_norm_comes_from_svdvals():
    # PyTorch maps the norms' NaN product to inf; its nuclear cond is sum(s) * sum(1 / s)
    a = T([[math.nan, 0.0], [0.0, 1.0]])
    for p in ("fro", 1, math.inf):
        assert linalg.cond(a, p).item() == math.inf, p
    b = T([[2.0, 1.0], [1.0, 3.0]])
    assert_close(linalg.cond(b), T(np.linalg.cond(np.array([[2.0, 1.0], [1.0, 3.0]]))), atol=1e-5, rtol=1e-5)
    assert_close(linalg.cond(b, "nuc"), T(np.linalg.cond(np.array([[2.0, 1.0], [1.0, 3.0]]), "nuc")), atol=1e-5,
                 rtol=1e-5)


def test_tensorsolve_reshapes_b_whose_product_matches_and_solve_ex_names_itself():
    a, b = RNG.standard_normal((2, 3, 6)), RNG.standard_normal((3, 2))
    assert_close(linalg.tensorsolve(T(a), T(b)), T(np.linalg.solve(a.reshape(6, 6), b.reshape(6))))
    with pytest.raises(RuntimeError, match=r"shape '\[6, 6\]' is invalid for input of size 24"):
        linalg.tensorsolve(T(RNG.standard_normal((2, 2, 6))), T(b))
    with pytest.raises(linalg.LinAlgError, match=r"^torch\.linalg\.solve_ex: The solver failed"):
        linalg.solve_ex(T([[1.0, 2.0], [2.0, 4.0]]), T([[1.0], [1.0]]), check_errors=True)


def test_householder_product_rebuilds_q_of_a_qr():
    a = RNG.standard_normal((5, 3))
    (qr, tau), _ = sla.qr(a, mode="raw")
    q_ref = sla.qr(a, mode="economic")[0]
    assert_close(linalg.householder_product(T(qr), T(tau)), T(q_ref))
    assert_close(E.orgqr(T(qr), T(tau)), T(q_ref))


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_fills_the_outputs_of_each_driver(driver):
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    x, res, rank, sv = linalg.lstsq(T(a), T(b), driver=driver)
    x_ref, res_ref, rank_ref, sv_ref = np.linalg.lstsq(a, b, rcond=None)
    assert_close(x, T(x_ref))
    assert (res.shape == (0,)) == (driver in (None, "gelsy"))
    if res.numel():
        assert_close(res, T(res_ref))
    assert (rank.numel() == 0) == (driver == "gels")
    if rank.numel():
        assert rank.item() == rank_ref
    assert (sv.numel() != 0) == (driver in ("gelsd", "gelss"))
    if sv.numel():
        assert_close(sv, T(sv_ref))


def test_old_top_level_names():
    sol, coeff = E.triangular_solve(T(B), T(A))
    assert_close(sol, T(np.stack([sla.solve_triangular(A[i], B[i]) for i in range(2)])))
    assert_close(coeff, T(A))
    sol, _ = E.triangular_solve(T(B), T(A), upper=False, transpose=True)
    assert_close(sol, T(np.stack([sla.solve_triangular(A[i], B[i], lower=True, trans=1) for i in range(2)])))
    assert_close(E.frobenius_norm(T(A), (-2, -1)), T(np.linalg.norm(A, "fro", axis=(-2, -1))))
    assert_close(E.nuclear_norm(T(A[0])), T(np.linalg.norm(A[0], "nuc")))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_geqrf_matches_lapack_and_ormqr_applies_q(shape):
    a = RNG.standard_normal(shape)
    (qr_ref, tau_ref), _ = sla.qr(a, mode="raw")
    packed, tau = E.geqrf(T(a))
    assert_close(packed, T(qr_ref))
    assert_close(tau, T(tau_ref))
    q = sla.qr(a)[0]  # the full m x m Q
    c = RNG.standard_normal((shape[0], 2))
    assert_close(E.ormqr(packed, tau, T(c)), T(q @ c))
    assert_close(E.ormqr(packed, tau, T(c), transpose=True), T(q.T @ c))
    assert_close(E.ormqr(packed, tau, T(c.T), left=False), T(c.T @ q))


@pytest.mark.parametrize("args, message", [
    (((3, 3), (2,), (3, 3)), "tau.shape[-1] must be equal to min(other.shape[-2], input.shape[-1])"),
    (((4, 3), (2,), (4, 2)), "tau.shape[-1] must be equal to min(other.shape[-2], input.shape[-1])"),
    (((3,), (2,), (3, 3)), "input must have at least 2 dimensions."),
    (((3, 3), (3,), (4, 3)), "other.shape[-2] must be equal to input.shape[-2]"),
    (((4, 3), (1, 3), (4, 2)), "Expected tau to have one dimension less than input, but got tau.ndim equal to 2 and "
                               "input.ndim is equal to 2"),
    (((2, 4, 3), (3, 3), (2, 4, 2)), "Expected batch dimensions of tau to be equal to input.shape[:-2], but got [3]"),
])
def test_ormqr_checks_its_operands_as_pytorch(args, message):
    # a short tau computed a wrong Q silently before: PyTorch refuses it
    a, tau, c = (E.ones(*s) for s in args)
    with pytest.raises(RuntimeError, match="^" + re.escape("torch.ormqr: " + message) + "$"):
        E.ormqr(a, tau, c)
    with pytest.raises(RuntimeError, match=re.escape("min(other.shape[-1], input.shape[-1])")):
        E.ormqr(E.ones(4, 3), E.ones(2), E.ones(2, 4), left=False)


def test_low_rank_svds_and_norm_except_dim():
    E.manual_seed(0)  # the randomized range finder draws from the default generator: not the earlier tests' state
    a = RNG.standard_normal((6, 4))
    u, s, v = E.svd_lowrank(T(a), q=4)  # randomized: exact when q is the rank
    assert_close(s, T(np.linalg.svd(a, compute_uv=False)))
    assert u.shape == (6, 4) and v.shape == (4, 4)
    _, s, _ = E.pca_lowrank(T(a), q=4)
    assert_close(s, T(np.linalg.svd(a - a.mean(0), compute_uv=False)))
    _, s, _ = E.svd_lowrank(T(a), q=2, niter=6)  # and close to the leading values when q is below it
    assert_close(s, T(np.linalg.svd(a, compute_uv=False)[:2]), rtol=1e-2, atol=1e-2)
    w = RNG.standard_normal((3, 4))
    assert_close(E.norm_except_dim(T(w), 2, 0), T(np.linalg.norm(w, axis=1, keepdims=True)))
    assert_close(E.norm_except_dim(T(w), 2, -1), T(np.linalg.norm(w)))


def test_norm_except_dim_of_a_vector_is_each_elements_norm():
    """With no other dim, PyTorch's norms of the rows of v viewed (n, 1): |v_i| (weight_norm of a bias gets one g
    per element, so the normalised bias is the bias); a 0-dim v has no size(0)."""
    v = np.array([3.0, -4.0, 0.5])
    assert_close(E.norm_except_dim(T(v), 2, 0), T(np.abs(v)))
    assert_close(E.norm_except_dim(T(v), 1, 0), T(np.abs(v)))
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        E.norm_except_dim(E.tensor(3.0), 2, 0)


@pytest.mark.parametrize("kw, msg", [({"q": 5}, "q(=5) must be non-negative integer and not greater than min(m, n)=4"),
                                     ({"q": -1}, "q(=-1) must be non-negative integer"),
                                     ({"niter": -1}, "niter(=-1) must be non-negative integer")])
def test_pca_lowrank_rejects_a_rank_above_the_matrix_before_drawing(kw, msg):
    E.manual_seed(0)
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        E.pca_lowrank(T(RNG.standard_normal((6, 4))), **kw)
    drawn = E.randn(2)
    E.manual_seed(0)
    assert_close(drawn, E.randn(2))  # the generator untouched


def test_deprecated_cholesky_warns_once_as_pytorch(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    with pytest.warns(UserWarning, match=r"(?s)^torch.cholesky is deprecated in favor of torch.linalg.cholesky .*"
                                         r"U = torch.linalg.cholesky\(A\).mH\nThis transform will produce "
                                         r"equivalent results .* inputs. \(Triggered internally at "
                                         r"/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.\)$"):
        u = E.cholesky(T(SPD[0]), upper=True)
    assert_close(u, T(np.linalg.cholesky(SPD[0]).T))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process, the Tensor method included
        T(SPD[0]).cholesky()


def test_deprecated_lu_warns_once_with_pytorchs_source_location(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    with pytest.warns(UserWarning, match=r"(?s)^torch.lu is deprecated in favor of torch.linalg.lu_factor .*"
                                         r"torch.linalg.lu_factor_ex\(A, compute_pivots\) \(Triggered internally at "
                                         r"/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.\)$"):
        LU, piv = E.lu(T(SPD[0]))
    assert LU.shape == (SPD[0].shape) and piv.dtype is E.int32


def test_svd_lowrank_draws_pytorchs_test_matrix_from_the_global_generator():
    a = RNG.standard_normal((5, 8))  # wide: the range finder works on a^H, whose 5 columns it sketches
    E.manual_seed(3)
    u, s, v = E.svd_lowrank(T(a), q=5, niter=1)
    after = E.randn(3)
    E.manual_seed(3)
    E.randn(5, 5, dtype=E.float64)  # the Gaussian test matrix: (a.shape[-1] of the tall one, q)
    assert after.tolist() == E.randn(3).tolist()
    assert u.shape == (5, 5) and v.shape == (8, 5)
    assert_close(s, T(np.linalg.svd(a, compute_uv=False)))  # q = rank: exact
    assert_close(u @ E.diag(s) @ v.mT, T(a))


def test_low_rank_svd_and_pca_take_a_sparse_matrix():
    from ember.core.sparse import sparse_coo_tensor

    idx = np.array([[0, 1, 2, 3, 4, 4], [0, 2, 1, 3, 0, 4]])
    vals = np.array([3.0, 1, 2, 5, 1, 1])
    a = np.zeros((5, 6))
    a[idx[0], idx[1]] = vals
    s = sparse_coo_tensor(T(idx), T(vals), (5, 6))
    for A in (s, s.t(), s.to_sparse_csr()):  # tall, wide and compressed: q = rank is exact
        E.manual_seed(0)
        u, sv, v = E.svd_lowrank(A, q=5, niter=2)
        assert_close(sv, T(np.linalg.svd(a, compute_uv=False)))
        dense = a if A.shape == (5, 6) else a.T
        assert_close(u @ E.diag(sv) @ v.mT, T(dense))
    E.manual_seed(0)
    _, sv, _ = E.pca_lowrank(s, q=5)  # centered through M = the column means, the input left sparse
    assert_close(sv, T(np.linalg.svd(a - a.mean(0), compute_uv=False)))
    with pytest.raises(ValueError, match="^pca_lowrank input is expected to be 2-dimensional tensor$"):
        E.pca_lowrank(sparse_coo_tensor(T(np.array([[0], [0], [0]])), T(np.array([1.0])), (2, 3, 2)), q=1)


def test_linalg_solvers_functions_take_out():
    spd = T(SPD[0])
    for name, args, ref in [("inv", (spd,), np.linalg.inv(SPD[0])), ("det", (spd,), np.linalg.det(SPD[0])),
                            ("solve", (spd, T(B[0])), np.linalg.solve(SPD[0], B[0])),
                            ("cholesky", (spd,), np.linalg.cholesky(SPD[0])),
                            ("matrix_norm", (spd,), np.linalg.norm(SPD[0])),
                            ("svdvals", (spd,), np.linalg.svd(SPD[0], compute_uv=False))]:
        out = E.empty(0, dtype=E.float64)
        assert getattr(linalg, name)(*args, out=out) is out, name
        assert_close(out, T(ref))
    sign, logabs = E.empty(0, dtype=E.float64), E.empty(0, dtype=E.float64)
    linalg.slogdet(spd, out=(sign, logabs))
    assert sign.item() == 1.0 and abs(logabs.item() - np.linalg.slogdet(SPD[0])[1]) < 1e-12
    with pytest.raises(TypeError, match=r"^linalg_slogdet\(\): argument 'out' must be tuple of 2 Tensors, got 1"):
        linalg.slogdet(spd, out=(sign,))


def test_lu_unpack_leaves_the_parts_not_unpacked_empty():
    LU, piv = linalg.lu_factor(T(A))
    P, Lm, U = E.lu_unpack(LU, piv, unpack_data=False)
    assert P.shape == (2, 4, 4) and Lm.shape == (0,) and U.shape == (0,) and Lm.dtype is E.float64
    P, Lm, U = E.lu_unpack(LU, piv, unpack_pivots=False)
    assert P.shape == (0,) and P.dtype is E.float64
    assert_close(Lm @ U, T(np.stack([sla.lu(a)[1] @ sla.lu(a)[2] for a in A])))


def _same_specials(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])


def test_inv_ex_and_solve_ex_of_a_singular_matrix_divide_by_the_zero_pivot():
    # PyTorch 2.13 solves through LAPACK's getrs, whose zero pivot gives inf and NaN (not a NaN fill)
    inf, nan = math.inf, math.nan
    inv, info = linalg.inv_ex(T([[1.0, 2.0], [2.0, 4.0]]))
    assert info.item() == 2
    _same_specials(inv.numpy(), [[-inf, inf], [inf, -inf]])
    A = T([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])
    inv, info = linalg.inv_ex(A)
    assert info.item() == 3
    _same_specials(inv.numpy(), [[nan, nan, nan], [-inf, inf, nan], [inf, -inf, nan]])
    x, info = linalg.solve_ex(T([[1.0, 2.0], [2.0, 4.0]]), T([1.0, 1.0]))
    _same_specials(x.numpy(), [-inf, inf])
    x, _ = linalg.solve_ex(A, T([[1.0, 2.0, 0.0]]), left=False)  # A^T through A's LU (getrs 'T')
    _same_specials(x.numpy(), [[-inf, nan, nan]])
    good, info = linalg.inv_ex(T(np.stack([np.eye(2) * 2, [[1.0, 2.0], [2.0, 4.0]]])))  # one of a batch
    assert info.tolist() == [0, 2]
    assert_close(good[0], T(np.eye(2) / 2))


def test_solve_triangular_of_a_zero_diagonal_divides_as_trsm():
    inf, nan = math.inf, math.nan  # PyTorch 2.13's values (it raised LinAlgError in ember before)
    _same_specials(linalg.solve_triangular(T([[0.0, 0.0], [1.0, 1.0]]), T([[1.0], [1.0]]), upper=False).numpy(),
                   [[inf], [-inf]])
    _same_specials(linalg.solve_triangular(T([[1.0, 2.0], [0.0, 0.0]]), T([[1.0, 0.0]]), upper=True,
                                           left=False).numpy(), [[1.0, -inf]])
    _same_specials(linalg.solve_triangular(T([[2.0, 1.0], [0.0, 0.0]]), T([[1.0], [0.0]]), upper=True).numpy(),
                   [[nan], [nan]])  # 0 / 0, then NaN carried up


@pytest.mark.torch
def test_singular_solves_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    agree = total = 0
    for _ in range(150):
        n = int(rng.integers(1, 6))
        a = rng.integers(-2, 3, (n, n)).astype(float)
        upper, left = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        tri = np.triu(a) if upper else np.tril(a)
        b = rng.integers(-2, 3, (n, 2) if left else (2, n)).astype(float)
        for got, want in ((linalg.solve_triangular(T(tri), T(b), upper=upper, left=left),
                           torch.linalg.solve_triangular(torch.tensor(tri), torch.tensor(b), upper=upper, left=left)),
                          (linalg.inv_ex(T(a))[0], torch.linalg.inv_ex(torch.tensor(a))[0])):
            g, w = got.numpy(), want.numpy()
            total += 1
            agree += np.array_equal(np.isnan(g), np.isnan(w)) and np.allclose(g[~np.isnan(g)], w[~np.isnan(w)])
    assert agree >= 0.97 * total  # the rest: MKL's blocked LU rounds a near-zero pivot differently


def test_lu_factor_pivots_past_a_nan_as_lapack():
    # LAPACK's izamax: a NaN below the first entry never compares larger (PyTorch 2.13's pivots [1, 2])
    LU, piv, info = linalg.lu_factor_ex(T([[1.2, 1.59], [math.nan, -1.18]]))
    assert piv.tolist() == [1, 2] and info.item() == 0 and LU[0].tolist() == [1.2, 1.59]
    LU, piv, _ = linalg.lu_factor_ex(T([[math.nan, 1.0], [3.0, 1.0]]))  # a NaN in first place is the pivot
    assert piv.tolist() == [1, 2] and math.isnan(LU[0, 0].item())


@pytest.mark.torch
def test_lu_factor_of_non_finite_matrices_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(150):
        n = int(rng.integers(1, 6))
        a = rng.standard_normal((n, n))
        for _ in range(int(rng.integers(1, 3))):
            a[rng.integers(0, n), rng.integers(0, n)] = rng.choice([math.nan, math.inf, -math.inf])
        LU, piv, info = linalg.lu_factor_ex(T(a))
        tLU, tpiv, tinfo = torch.linalg.lu_factor_ex(torch.tensor(a))
        assert piv.tolist() == tpiv.tolist() and info.item() == tinfo.item()
        got, want = LU.numpy(), tLU.numpy()
        assert np.array_equal(np.isnan(got), np.isnan(want)) and np.allclose(got[~np.isnan(got)], want[~np.isnan(want)])


@pytest.mark.parametrize("name", ["cholesky_ex", "inv_ex", "lu_factor", "lu_factor_ex", "solve_ex"])
def test_out_tuples_are_written_and_returned(name):
    """The factorizations' out= tuples receive the results (they were ignored) and come back as the results, in
    PyTorch's out= structseq (`linalg_inv_ex_out`)."""
    import ember.core.ops.linalg_composite as LC

    A = E.tensor([[4.0, 1.0], [1.0, 3.0]])
    fn = getattr(LC, name)
    call = (lambda **kw: fn(A, A, **kw)) if name == "solve_ex" else (lambda **kw: fn(A, **kw))
    expected = call()
    outs = tuple(E.empty(0, dtype=x.dtype) for x in expected)
    got = call(out=outs)
    assert type(got).__name__ == f"{type(expected).__name__}_out" and all(g is o for g, o in zip(got, outs))
    for o, x in zip(outs, expected):
        np.testing.assert_array_equal(o.numpy(), x.numpy())


def test_out_of_a_factorization_checks_dtypes_and_kind_as_pytorch():
    import ember.core.ops.linalg_composite as LC

    A = E.tensor([[4.0, 1.0], [1.0, 3.0]])
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
        LC.inv_ex(A, out=(E.empty(0, dtype=E.float64), E.empty(0, dtype=E.int32)))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype int, but got long int instead$"):
        LC.inv_ex(A, out=(E.empty(0), E.empty(0, dtype=E.int64)))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got short unsigned int "
                                           "instead$"):  # PyTorch's C++ name of uint16
        LC.inv_ex(A, out=(E.empty(0, dtype=E.uint16), E.empty(0, dtype=E.int32)))
    with pytest.raises(TypeError, match=r"^linalg_inv_ex\(\): argument 'out' must be tuple of Tensors, not Tensor$"):
        LC.inv_ex(A, out=E.empty(0))
    o = E.empty(0, dtype=E.float64)
    assert LC.cond(A, out=o) is o and o.item() == pytest.approx(np.linalg.cond(A.numpy().astype(np.float64)))


def test_single_result_outs_check_dtypes_as_pytorchs_kernels():
    """Each linalg function checks a one-tensor out='s dtype as its PyTorch kernel does: structured kernels want the
    result's dtype, composites any dtype it casts to safely, solve_triangular its trsm's scalar type; a float64 out
    of a castable one still receives the values, and torch.cholesky, torch.inverse and orgqr take out= too."""
    spd, b = T(SPD[0]), T(B[0])
    L = linalg.cholesky(spd)
    LU, piv = linalg.lu_factor(spd)
    f32, i64 = E.empty(0), E.empty(0, dtype=E.int64)
    exact = [("inv", lambda o: linalg.inv(spd, out=o)), ("det", lambda o: linalg.det(spd, out=o)),
             ("solve", lambda o: linalg.solve(spd, b, out=o)), ("cholesky", lambda o: linalg.cholesky(spd, out=o)),
             ("eigvalsh", lambda o: linalg.eigvalsh(spd, out=o)), ("svdvals", lambda o: linalg.svdvals(spd, out=o)),
             ("lu_solve", lambda o: linalg.lu_solve(LU, piv, b, out=o)), ("inverse", lambda o: E.inverse(spd, out=o)),
             ("cross", lambda o: linalg.cross(b, b, out=o))]
    for name, call in exact:
        with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype double, but got float instead$"):
            call(f32)
    castable = [("cholesky_solve", lambda o: E.cholesky_solve(b, L, out=o)),
                ("cholesky_inverse", lambda o: E.cholesky_inverse(L, out=o)),
                ("linalg.pinv", lambda o: linalg.pinv(spd, out=o)), ("linalg.cond", lambda o: linalg.cond(spd, out=o)),
                ("tensorinv", lambda o: linalg.tensorinv(spd, ind=1, out=o)),
                ("torch.linalg.householder_product", lambda o: E.orgqr(spd, T(np.ones(2)), out=o)),
                ("cholesky", lambda o: E.cholesky(spd, out=o))]
    for op, call in castable:
        o = E.empty(0)
        assert call(o) is o and o.dtype is E.float32, op
        with pytest.raises(RuntimeError, match=f"^{re.escape(op)}: Expected result to be safely castable from Double "
                                               "dtype, but got result with dtype Long$"):
            call(i64)
    assert_close(E.cholesky_solve(b, L, out=E.empty(0)), T(np.linalg.solve(SPD[0], B[0])).float())
    with pytest.raises(RuntimeError, match="^matrix_power: Expected result to be safely castable"):
        linalg.matrix_power(spd, 2, out=i64)
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype double, but got float instead$"):
        linalg.matrix_power(spd, 2, out=f32)
    with pytest.raises(RuntimeError, match=r"^multi_dot\(\): expected out tensor to have dtype double but got float$"):
        linalg.multi_dot([spd, spd], out=f32)
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm expected out tensor dtype Double but got: Float$"):
        linalg.matrix_norm(spd, out=f32)
    with pytest.raises(RuntimeError, match="^linalg.norm expected out tensor dtype Double but got: Long$"):
        linalg.norm(spd, out=i64)
    with pytest.raises(RuntimeError, match="^expected scalar type Double but found Float$"):
        linalg.solve_triangular(L, b, upper=False, out=f32)


def test_cholesky_inverse_refuses_a_zero_on_the_factors_diagonal():
    """PyTorch's CPU cholesky_inverse raises potri's LinAlgError for a zero diagonal element (1-based, the first
    bad matrix of a batch named), upper or lower, any dtype; a NaN there is computed through."""
    tail = "is zero, the inversion could not be completed because the input matrix is singular."
    for A, upper, where, k in ((E.zeros(2, 2), False, "", 1), (E.tensor([[1.0, 0.0], [1.0, 0.0]]), False, "", 2),
                               (E.zeros(2, 2, dtype=E.complex64), True, "", 1),
                               (E.stack([E.eye(2), E.zeros(2, 2)]), False, r"\(Batch element 1\): ", 1)):
        with pytest.raises(linalg.LinAlgError, match=f"^cholesky_inverse: {where}The diagonal element {k} {tail}$"):
            E.cholesky_inverse(A, upper=upper)
    assert np.isnan(E.cholesky_inverse(E.tensor([[math.nan, 0.0], [1.0, 1.0]])).numpy()).any()
    assert E.cholesky_inverse(E.zeros(0, 0)).shape == (0, 0)


def test_a_resized_out_takes_lapacks_layout_where_pytorchs_kernel_writes_into_it():
    """An empty out= resized by a structured linalg kernel (and cholesky_inverse, of its dtype) is column-major as
    the result is; the composites' (cholesky_solve, pinv) and a cast's are row-major; a right-shaped out keeps its
    own strides."""
    spd, b = T(SPD[0]), T(B[0][:, :1])
    L = linalg.cholesky(spd)
    for call in (lambda o: linalg.cholesky(spd, out=o), lambda o: linalg.inv(spd, out=o),
                 lambda o: linalg.solve(spd, b, out=o), lambda o: linalg.solve_triangular(L, b, upper=False, out=o),
                 lambda o: E.cholesky_inverse(L, out=o)):
        o = E.empty(0, dtype=E.float64)
        assert call(o).stride() == (1, 4) and o.stride() == (1, 4)
    assert E.cholesky_inverse(L, out=E.empty(0)).stride() == (4, 1)
    assert E.cholesky_solve(b, L, out=E.empty(0, dtype=E.float64)).stride() == (1, 1)
    assert linalg.pinv(spd, out=E.empty(0, dtype=E.float64)).stride() == (4, 1)
    o = E.empty(4, 4, dtype=E.float64)
    assert_close(linalg.cholesky(spd, out=o), T(np.linalg.cholesky(SPD[0])))
    assert o.stride() == (4, 1)


def test_deprecated_lu_solve_triangular_solve_and_qr_warn_once_a_process(monkeypatch):
    import warnings

    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    A, b = E.tensor([[2.0, 1.0], [0.0, 4.0]]), E.tensor([[1.0], [2.0]])
    with pytest.warns(UserWarning, match=r"(?s)^torch.triangular_solve is deprecated in favor of "
                                         r"torch.linalg.solve_triangularand will be removed.*\(Triggered internally at "
                                         r"/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2273.\)$"):
        x = E.triangular_solve(b, A).solution
    np.testing.assert_allclose(x.numpy(), [[0.25], [0.5]])
    LU, piv = linalg.lu_factor(A)
    with pytest.warns(UserWarning, match=r"(?s)^torch.lu_solve is deprecated.*torch.linalg.lu_solve\(LU, pivots, B\) "
                                         r"\(Triggered internally at .*BatchLinearAlgebra.cpp:2230.\)$"):
        E.lu_solve(b, LU, piv)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch's TORCH_WARN_ONCE
        E.triangular_solve(b, A)
        E.lu_solve(b, LU, piv)
    with pytest.warns(UserWarning, match=r"(?s)^torch.qr is deprecated in favor of torch.linalg.qr .*"
                                         r"torch.linalg.qr\(A, 'reduced' if some else 'complete'\) \(Triggered "
                                         r"internally at .*BatchLinearAlgebra.cpp:2505.\)$"):
        q, r = E.qr(A)
    np.testing.assert_allclose((q @ r).numpy(), A.numpy(), atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        E.qr(A, some=False)


def test_lu_solve_from_the_right_writes_its_out():
    A = E.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=E.float64)
    B = E.tensor([[1.0, 2.0]], dtype=E.float64)
    LU, pivots = E.linalg.lu_factor(A)
    out = E.empty(0, dtype=E.float64)
    assert E.linalg.lu_solve(LU, pivots, B, left=False, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(A.numpy().T, B.numpy().T).T, rtol=1e-12)


def test_norm_with_an_unknown_string_order_raises_pytorchs_matrix_norm_error():
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: Order abc not supported\.$"):
        E.norm(E.ones(2), p="abc")


def test_norm_string_orders_over_more_than_two_dims_go_to_matrix_norm():
    # PyTorch: "fro" is a 2-norm over at most two dims; over three (or "nuc" anywhere) matrix_norm speaks
    w = E.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_allclose(E.norm(w, p="fro").item(), np.linalg.norm(np.arange(24.0)), rtol=1e-6)
    np.testing.assert_allclose(E.norm(w, p="fro", dim=1).numpy(), np.linalg.norm(w.numpy(), axis=1), rtol=1e-6)
    for kw in ({"p": "fro", "dim": (0, 1, 2)}, {"p": "nuc"}, {"p": "fro", "dim": [0, 1, 2]}):
        with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: dim must be a 2-tuple\. Got 0 1 2$"):
            E.norm(w, **kw)
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: dim must be a 2-tuple\. Got 1$"):
        E.norm(w, p="nuc", dim=1)
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: Order abc not supported\.$"):
        E.norm(w, p="abc", dim=1)
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: Order abc not supported\.$"):
        E.linalg.matrix_norm(E.ones(3), "abc")


def test_out_forms_return_pytorchs_out_structseqs_and_lstsq_takes_out():
    A, B = E.tensor([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), E.tensor([[1.0], [2.0], [3.0]])
    out = (E.empty(0), E.empty(0), E.empty(0, dtype=E.int64), E.empty(0))
    r = E.linalg.lstsq(A, B, driver="gelsd", out=out)
    assert type(r).__name__ == "linalg_lstsq_out" and r.solution is out[0] and r.rank is out[2]
    expected = np.linalg.lstsq(A.numpy().astype(np.float64), B.numpy().astype(np.float64), rcond=None)
    assert_close(r.solution, expected[0], rtol=1e-5, atol=1e-6)
    assert_close(r.residuals, expected[1], rtol=1e-5, atol=1e-5) and int(r.rank) == 2
    eigh = E.linalg.eigh(E.eye(2), out=(E.empty(0), E.empty(0)))
    assert type(eigh).__name__ == "linalg_eigh_out" and eigh.eigenvalues.tolist() == [1.0, 1.0]
    assert type(E.frexp(E.ones(2), out=(E.empty(0), E.empty(0, dtype=E.int32)))).__name__ == "frexp_out"
    sign, logabs = E.empty(0), E.empty(0)
    r = E.slogdet(E.eye(2) * 2, out=(sign, logabs))  # torch.slogdet's out= too
    assert type(r).__name__ == "slogdet_out" and r.sign is sign and sign.item() == 1.0
    assert math.isclose(logabs.item(), math.log(4.0), rel_tol=1e-6)
    with pytest.raises(TypeError, match="^slogdet\\(\\): argument 'out' must be tuple of Tensors, not Tensor$"):
        E.slogdet(E.eye(2), out=E.empty(0))


def test_vecdot_writes_out_with_pytorchs_checks():
    x = E.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    o = E.empty(0)
    assert E.linalg.vecdot(x, x, out=o) is o and o.tolist() == [14.0, 77.0]
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        E.linalg.vecdot(x[0], x[0], out=E.empty(2))
    with pytest.raises(RuntimeError, match="^linalg.vecdot: Expected out of dtypeFloat but found Long$"):
        E.linalg.vecdot(x, x, out=E.empty(2, dtype=E.int64))


def _lu_of_spd():
    A = E.tensor([[4.0, 2.0, 0.6], [2.0, 3.0, 0.4], [0.6, 0.4, 2.0]], dtype=E.float64)
    return (A, *linalg.lu_factor(A))


@pytest.mark.parametrize("case, words", [
    ("int64 pivots", "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32"),
    ("float B", "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type Double and B of type "
                "Float instead"),
    ("short B", "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x1)"),
    ("right B", "linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B (3x3 and 3x1)"),
    ("few pivots", "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix"),
    ("batched pivots", "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots "
                       "with shape [2, 3] instead"),
    ("pivot 5", "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly pass the "
                "result of lu_factor?"),
    ("pivot 0", "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the result of "
                "lu_factor?"),
    ("batched B", "The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 0"),
])
def test_lu_solve_refuses_mismatched_operands_in_pytorchs_words(case, words):
    A, LU, piv = _lu_of_spd()
    B, left = E.ones((3, 1), dtype=E.float64), True
    if case == "int64 pivots":
        piv = piv.to(E.int64)
    elif case == "float B":
        B = B.float()
    elif case == "short B":
        B = E.ones((2, 1), dtype=E.float64)
    elif case == "right B":
        left = False
    elif case == "few pivots":
        piv = piv[:2]
    elif case == "batched pivots":
        piv = piv.expand(2, 3)
    elif case in ("pivot 5", "pivot 0"):
        piv = E.tensor([1, 2, 5 if case == "pivot 5" else 0], dtype=E.int32)
    else:
        LU, piv = linalg.lu_factor(A.expand(2, 3, 3))
        B = E.ones((4, 3, 1), dtype=E.float64)
    with pytest.raises(RuntimeError, match=f"^{re.escape(words)}$"):
        linalg.lu_solve(LU, piv, B, left=left)


def test_lu_unpack_wants_int32_pivots_in_range():
    A, LU, piv = _lu_of_spd()
    with pytest.raises(RuntimeError, match=r"^torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                                           r"torch.int32 dtype.\nNote: this function is intended"):
        E.lu_unpack(LU, piv.to(E.int64))
    with pytest.raises(RuntimeError, match=r"^pivots passed to lu_unpack must be between 1 and LU.size\(-2\) "
                                           r"inclusive.Did you properly pass the result of lu_factor\?$"):
        E.lu_unpack(LU, E.tensor([1, 2, 4], dtype=E.int32))
    P, Lm, U = E.lu_unpack(LU, piv)
    assert_close(P @ Lm @ U, A)


def test_solve_triangular_names_itself_and_casts_b_to_a_dtype():
    U = E.tensor([[2.0, 1.0], [0.0, 4.0]], dtype=E.float64)
    with pytest.raises(RuntimeError, match=r"^linalg.solve_triangular: Incompatible shapes of A and B for the "
                                           r"equation AX = B \(2x2 and 3x2\)$"):
        linalg.solve_triangular(U, E.ones((3, 2), dtype=E.float64), upper=True)
    with pytest.raises(RuntimeError, match=r"^linalg.solve_triangular: Incompatible shapes of A and B for the "
                                           r"equation XA = B \(2x2 and 2x3\)$"):
        linalg.solve_triangular(U, E.ones((2, 3), dtype=E.float64), upper=True, left=False)
    with pytest.raises(RuntimeError, match=r"^linalg.solve_triangular: A must be batches of square matrices, but "
                                           r"they are 2 by 3 matrices$"):
        linalg.solve_triangular(E.ones((2, 3)), E.ones((2, 1)), upper=True)
    x32 = linalg.solve_triangular(U.float(), E.tensor([[3.0], [4.0]], dtype=E.float64), upper=True)
    x64 = linalg.solve_triangular(U, E.tensor([[3], [4]]), upper=True)
    assert x32.dtype is E.float32 and x64.dtype is E.float64
    assert x32.tolist() == [[1.0], [1.0]] and x64.tolist() == [[1.0], [1.0]]


def test_triangular_solve_checks_its_operands_as_pytorch():
    A = E.eye(3, dtype=E.float64)
    with pytest.raises(RuntimeError, match=r"^Incompatible matrix sizes for triangular_solve: each A matrix is 3 by 3 "
                                           r"but each b matrix is 2 by 3$"):
        E.triangular_solve(E.ones((2, 3), dtype=E.float64), A)
    with pytest.raises(RuntimeError, match=r"^torch.triangular_solve: Expected b to have at least 2 dimensions, but "
                                           r"it has 1 dimensions instead$"):
        E.triangular_solve(E.ones(3, dtype=E.float64), A)
    with pytest.raises(RuntimeError, match=r"^Expected b and A to have the same dtype, but found b of type Float and "
                                           r"A of type Double instead.$"):
        E.triangular_solve(E.ones((3, 2)), A)


def test_lstsq_residuals_of_a_vector_b_keep_its_column():
    # PyTorch solves a vector B as one column: the solution drops it, the residuals keep it, (*, 1)
    A = E.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=E.float64)
    b = E.tensor([1.0, 2.0, 0.0], dtype=E.float64)
    expected = np.linalg.lstsq(A.numpy(), b.numpy(), rcond=None)
    for driver in ("gels", "gelsd", "gelss"):
        r = E.linalg.lstsq(A, b, driver=driver)
        assert tuple(r.solution.shape) == (2,) and tuple(r.residuals.shape) == (1,)
        assert_close(r.residuals, expected[1], rtol=1e-10, atol=1e-10)
    r = E.linalg.lstsq(A.expand(2, 3, 2), b.expand(2, 3), driver="gelsd")
    assert tuple(r.solution.shape) == (2, 2) and tuple(r.residuals.shape) == (2, 1)
    assert tuple(E.linalg.lstsq(A, b).residuals.shape) == (0,)


def test_lstsq_takes_a_vector_right_side_only_with_the_batch_of_a_as_pytorch():
    # linalg.solve's rule: B of one dim fewer is a vector only when B.shape == A.shape[:-1]; another such B is a
    # matrix (*, m, k) whose batch B.shape[:-1] still broadcasts against A's (PyTorch 2.13)
    rng = np.random.default_rng(5)
    A, B = rng.standard_normal((1, 6, 3)), rng.standard_normal((6, 2))
    r = E.linalg.lstsq(E.from_numpy(A), E.from_numpy(B), driver="gelsd")
    assert tuple(r.solution.shape) == (6, 3, 2) and tuple(r.residuals.shape) == (6, 2)
    assert tuple(r.rank.shape) == (1,) and tuple(r.singular_values.shape) == (1, 3)
    expected = np.linalg.lstsq(A[0], B, rcond=None)[0]
    for i in (0, 5):
        assert_close(r.solution[i], expected, rtol=1e-10, atol=1e-10)
    with pytest.raises(RuntimeError, match=r"^torch.linalg.lstsq: input.size\(-2\) should match other.size\(-2\)$"):
        E.linalg.lstsq(E.zeros(2, 6, 3, dtype=E.float64), E.zeros(1, 6, dtype=E.float64))
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(6\) at "
                                           r"non-singleton dimension 0$"):
        E.linalg.lstsq(E.zeros(2, 6, 3, dtype=E.float64), E.zeros(6, 2, dtype=E.float64))
    assert tuple(E.linalg.lstsq(E.zeros(2, 6, 3, dtype=E.float64), E.zeros(2, 6, dtype=E.float64)).solution.shape) \
        == (2, 3)
