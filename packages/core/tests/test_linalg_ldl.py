"""linalg.ldl_factor / ldl_factor_ex / ldl_solve: the packed Bunch-Kaufman factor rebuilt into A in
float64, solves against numpy.linalg.solve, PyTorch's hard-coded factors and pivots, its errors, and
(torch-marked) LD and pivots equal to PyTorch's on random symmetric and Hermitian batches."""

import numpy as np
import pytest

import ember.core as E
from ember.core.testing import assert_close

L = E.linalg


def indefinite(n, batch=(), seed=0, dtype=np.float64, hermitian=False):
    """A well-conditioned symmetric (Hermitian) indefinite matrix: Q diag(+-[1, 2]) Q^T with a random Q."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((*batch, n, n))
    q = np.linalg.qr(a)[0]
    d = rng.uniform(1, 2, (*batch, n)) * rng.choice([-1.0, 1.0], (*batch, n))
    qt = np.conj(np.swapaxes(q, -1, -2)) if hermitian else np.swapaxes(q, -1, -2)
    return (q * d[..., None, :]) @ qt


def rebuild(ld, piv, hermitian):
    """A from the packed factor, read by LAPACK's convention: A = P1 L1 P2 L2 ... D ... L2^T P2^T L1^T P1^T."""
    n = ld.shape[0]
    t = (lambda m: m.conj().T) if hermitian else (lambda m: m.T)
    blocks, k = [], 0
    while k < n:
        s = 1 if piv[k] > 0 else 2
        blocks.append((k, s, abs(piv[k]) - 1))
        k += s
    m = np.zeros_like(ld)
    for k, s, _ in blocks:
        m[k, k] = ld[k, k]
        if s == 2:
            m[k + 1, k + 1] = ld[k + 1, k + 1]
            m[k, k + 1] = np.conj(ld[k + 1, k]) if hermitian else ld[k + 1, k]
            m[k + 1, k] = ld[k + 1, k]
    for k, s, kp in reversed(blocks):
        lk = np.eye(n, dtype=ld.dtype)
        lk[k + s:, k:k + s] = ld[k + s:, k:k + s]
        p = np.eye(n, dtype=ld.dtype)
        p[[k + s - 1, kp]] = p[[kp, k + s - 1]]
        m = p @ lk @ m @ t(lk) @ p.T
    return m


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("n", [1, 2, 5, 9, 17])
def test_factor_rebuilds_a_and_solve_matches_numpy(n, hermitian, dtype):
    a = indefinite(n, (2,), seed=n, dtype=dtype, hermitian=hermitian)
    LD, piv, info = L.ldl_factor_ex(E.from_numpy(a), hermitian=hermitian)
    assert piv.dtype is E.int32 and info.dtype is E.int32 and info.tolist() == [0, 0]
    ld, pv = LD.numpy(), piv.numpy()
    assert np.all(np.triu(ld, 1) == 0)
    for i in range(2):
        np.testing.assert_allclose(rebuild(ld[i], pv[i], hermitian), a[i], rtol=1e-12, atol=1e-12)
    b = np.random.default_rng(1).standard_normal((2, n, 3)).astype(dtype)
    x = L.ldl_solve(LD, piv, E.from_numpy(b), hermitian=hermitian)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=1e-10, atol=1e-10)


def test_float32_solves_and_broadcasts_batches():
    a = indefinite(6, dtype=np.float64).astype(np.float32)
    LD, piv = L.ldl_factor(E.from_numpy(a))
    b = np.random.default_rng(2).standard_normal((3, 6, 2)).astype(np.float32)
    x = L.ldl_solve(LD, piv, E.from_numpy(b))
    assert x.dtype is E.float32 and x.shape == (3, 6, 2)
    assert_close(x, E.from_numpy(np.linalg.solve(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)),
                 rtol=1e-4, atol=1e-4)
    x64 = L.ldl_solve(LD, piv.long(), E.from_numpy(b))  # int64 pivots are accepted, as PyTorch
    assert_close(x64, x)


def test_matches_pytorch_hard_coded_factors():
    LD, piv = L.ldl_factor(E.tensor([[1.0, 2.0, 3.0], [2.0, 0.0, 4.0], [3.0, 4.0, -2.0]], dtype=E.float64))
    assert piv.tolist() == [-3, -3, 3]
    assert_close(LD, E.tensor([[1.0, 0, 0], [3.0, -2.0, 0], [16 / 11, 2 / 11, -40 / 11]], dtype=E.float64))
    perm = E.tensor([[0.0, 1, 2, 0], [1, 0, 0, 3], [2, 0, 0, 1], [0, 3, 1, 0]], dtype=E.float64)
    LD, piv = L.ldl_factor(perm)
    assert piv.tolist() == [-3, -3, -4, -4]
    assert_close(LD, E.tensor([[0.0, 0, 0, 0], [2, 0, 0, 0], [0, 0.5, 0, 0], [0.5, 0, 2.5, 0]], dtype=E.float64))
    h = E.tensor([[1.0, 2 + 1j], [2 - 1j, -3.0]], dtype=E.complex128)
    LD, piv = L.ldl_factor(h, hermitian=True)
    assert piv.tolist() == [2, 2]
    np.testing.assert_allclose(LD.numpy(), [[-3.0, 0], [-2 / 3 - 1j / 3, 8 / 3]])
    LD, piv = L.ldl_factor(h)
    np.testing.assert_allclose(LD.numpy(), [[-3.0, 0], [-2 / 3 + 1j / 3, 2 - 4j / 3]])


def test_singular_input_reports_info_and_ldl_factor_raises():
    z = E.zeros(3, 3, dtype=E.float64)
    LD, piv, info = L.ldl_factor_ex(z)
    assert info.item() == 1 and piv.tolist() == [1, 2, 3] and LD.abs().sum().item() == 0
    with pytest.raises(L.LinAlgError, match=r"ldl_factor: .*D\[0, 0\] is zero"):
        L.ldl_factor(z)
    with pytest.raises(L.LinAlgError, match=r"ldl_factor_ex \(batch element 1\)"):
        L.ldl_factor_ex(E.stack([E.eye(2, dtype=E.float64), E.zeros(2, 2, dtype=E.float64)]), check_errors=True)


def test_empty_batches_and_matrices():
    LD, piv = L.ldl_factor(E.zeros(0, 3, 3))
    assert LD.shape == (0, 3, 3) and piv.shape == (0, 3) and piv.dtype is E.int32
    LD, piv = L.ldl_factor(E.zeros(3, 0, 0))
    assert LD.shape == (3, 0, 0) and piv.shape == (3, 0)


def test_out_and_no_gradient_entry():
    A = E.from_numpy(indefinite(4))
    LD, piv = E.empty(0, dtype=E.float64), E.empty(0, dtype=E.int32)
    r = L.ldl_factor(A, out=(LD, piv))
    assert r.LD is LD and LD.shape == (4, 4) and piv.tolist() == L.ldl_factor(A).pivots.tolist()
    assert not E.get_op("linalg_ldl_factor_ex").differentiable and not E.get_op("linalg_ldl_solve").differentiable


@pytest.mark.parametrize("bad, msg", [
    (E.zeros(3), "must have at least 2 dimensions"),
    (E.zeros(3, 4), "A must be batches of square matrices, but they are 3 by 4 matrices"),
    (E.zeros(3, 3, dtype=E.int64), "Expected a floating point or complex tensor as input. Got Long"),
])
def test_factor_errors(bad, msg):
    with pytest.raises(RuntimeError, match=msg):
        L.ldl_factor(bad)


def test_solve_errors():
    LD, piv = L.ldl_factor(E.from_numpy(indefinite(3)))
    with pytest.raises(RuntimeError, match="each A matrix is 3 by 3 but each b matrix is 4 by 2"):
        L.ldl_solve(LD, piv, E.zeros(4, 2, dtype=E.float64))
    with pytest.raises(RuntimeError, match="found b of type Float and A of type Double"):
        L.ldl_solve(LD, piv, E.zeros(3, 2))
    with pytest.raises(RuntimeError, match="pivots must hold 1-based indices"):
        L.ldl_solve(LD, E.zeros(3, dtype=E.int32), E.zeros(3, 2, dtype=E.float64))
    with pytest.raises(RuntimeError, match="expected pivots of shape"):
        L.ldl_solve(LD, piv[:2], E.zeros(3, 2, dtype=E.float64))


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("hermitian", [False, True])
def test_factor_and_solve_match_pytorch(hermitian, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 4, 7, 12, 33, 70):
        a = rng.standard_normal((3, n, n))
        if np.dtype(dtype).kind == "c":
            a = a + 1j * rng.standard_normal((3, n, n))
        a = (a + (np.conj(np.swapaxes(a, -1, -2)) if hermitian else np.swapaxes(a, -1, -2))).astype(dtype)
        a[1, n // 2] *= 1e-3  # a small row and column force 2x2 pivots
        a[1, :, n // 2] *= 1e-3
        LD, piv = L.ldl_factor(E.from_numpy(a), hermitian=hermitian)
        tLD, tpiv = torch.linalg.ldl_factor(torch.from_numpy(a), hermitian=hermitian)
        assert piv.tolist() == tpiv.tolist(), n
        tol = 1e-3 if dtype in (np.float32, np.complex64) else 1e-9
        np.testing.assert_allclose(LD.numpy(), tLD.numpy(), rtol=tol, atol=tol)
        b = rng.standard_normal((3, n, 2)).astype(dtype)
        x = L.ldl_solve(LD, piv, E.from_numpy(b), hermitian=hermitian)
        tx = torch.linalg.ldl_solve(tLD, tpiv, torch.from_numpy(b), hermitian=hermitian)
        np.testing.assert_allclose(x.numpy(), tx.numpy(), rtol=tol * 10, atol=tol * 10)
