"""Matrix functions (inv, det, solve, cholesky, qr, svd, eigh, pinv ...) against numpy.linalg and
their defining identities, batched, in float32 and float64, and PyTorch's errors."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.testing import assert_close

L = E.linalg


def spd(n, batch=(), seed=0, dtype=np.float64):
    """A well-conditioned symmetric positive-definite matrix (batch)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, n, n))
    return E.from_numpy((a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype))


def rand(*shape, seed=0, dtype=np.float64):
    return E.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.lists(st.integers(1, 3), max_size=2).map(tuple), st.sampled_from([np.float32, np.float64]),
       st.integers(0, 2**16))
def test_inverse_det_solve_cholesky_on_batches(n, batch, dtype, seed):
    A = spd(n, batch, seed, dtype)
    a = A.numpy().astype(np.float64)
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-9, "atol": 1e-9}
    eye = np.broadcast_to(np.eye(n), a.shape)
    assert L.inv(A).dtype is A.dtype
    assert_close(A @ L.inv(A), E.from_numpy(eye.astype(dtype)), **tol)
    assert_close(E.det(A), E.from_numpy(np.asarray(np.linalg.det(a)).astype(dtype)), **tol)
    sign, logabs = E.slogdet(A)
    assert_close(logabs, E.from_numpy(np.asarray(np.linalg.slogdet(a)[1]).astype(dtype)), **tol)
    assert (sign.numpy() == 1).all()
    b = rand(*batch, n, 2, seed=seed + 1, dtype=dtype)
    x = L.solve(A, b)
    assert_close(A @ x, b, **tol)
    chol = L.cholesky(A)
    assert_close(chol @ chol.mT, A, **tol)
    assert np.allclose(np.triu(chol.numpy(), 1), 0)


def test_solve_with_vectors_and_on_the_right():
    A = spd(3, seed=1)
    v = rand(3, seed=2)
    assert_close(L.solve(A, v), E.from_numpy(np.linalg.solve(A.numpy(), v.numpy())))
    B = rand(4, 3, seed=3)
    X = L.solve(A, B, left=False)
    assert_close(X @ A, B)
    batch = spd(3, (2,), seed=4)
    vs = rand(2, 3, seed=5)
    assert L.solve(batch, vs).shape == (2, 3)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.sampled_from(["reduced", "complete"]), st.integers(0, 2**16))
def test_qr_and_svd_reconstruct_their_input(m, n, mode, seed):
    A = rand(m, n, seed=seed)
    Q, R = L.qr(A, mode=mode)
    assert_close(Q @ R, A, rtol=1e-9, atol=1e-9)
    assert_close(Q.mT @ Q, E.eye(Q.shape[-1], dtype=E.float64), rtol=1e-9, atol=1e-9)
    assert np.allclose(np.tril(R.numpy(), -1), 0)
    U, S, Vh = L.svd(A, full_matrices=False)
    assert_close((U * S.unsqueeze(-2)) @ Vh, A, rtol=1e-9, atol=1e-9)
    assert_close(S, E.from_numpy(np.linalg.svd(A.numpy(), compute_uv=False)), rtol=1e-9, atol=1e-9)
    assert_close(L.svdvals(A), S)
    full = L.svd(A)
    assert full.U.shape == (m, m) and full.Vh.shape == (n, n)


def test_legacy_svd_returns_v_and_legacy_qr():
    A = rand(4, 3, seed=6)
    U, S, V = E.svd(A)
    assert U.shape == (4, 3) and V.shape == (3, 3)
    assert_close((U * S) @ V.t(), A, rtol=1e-9, atol=1e-9)
    assert E.svd(A, some=False).U.shape == (4, 4)
    U0, S0, V0 = E.svd(rand(2, 4, 3, seed=6), compute_uv=False)  # PyTorch's zero-filled full U and V
    assert U0.shape == (2, 4, 4) and V0.shape == (2, 3, 3) and not U0.numpy().any() and not V0.numpy().any()
    assert_close(S0, L.svdvals(rand(2, 4, 3, seed=6)), rtol=1e-9, atol=1e-9)
    Q, R = A.qr()
    assert_close(Q @ R, A, rtol=1e-9, atol=1e-9)


def test_eigh_and_eigvalsh():
    A = spd(4, (2,), seed=7)
    w, V = L.eigh(A)
    assert (np.diff(w.numpy(), axis=-1) >= 0).all()
    assert_close(A @ V, V * w.unsqueeze(-2), rtol=1e-9, atol=1e-9)
    assert_close(L.eigvalsh(A), w)
    up = A.clone()
    up.numpy()[..., 1, 0] = 1e6            # the lower triangle is ignored with UPLO="U"
    assert_close(L.eigvalsh(up, UPLO="U"), w, rtol=1e-9, atol=1e-9)


@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim arg")
def test_pinv_takes_pytorchs_rcond_overload_as_a_relative_cutoff():
    A = E.tensor([[1.0, 2.0], [2.0, 4.0001], [0.0, 1e-3]], dtype=E.float64)
    u, s, vh = np.linalg.svd(A.numpy(), full_matrices=False)
    keep = s > 0.1 * s[0]
    ref = (vh.T[:, keep] / s[keep]) @ u[:, keep].T
    assert_close(L.pinv(A, 0.1), E.from_numpy(ref), rtol=1e-12, atol=1e-12)
    assert_close(L.pinv(A, rcond=0.1), E.from_numpy(ref), rtol=1e-12, atol=1e-12)
    assert_close(L.pinv(A.mT @ A, 0.1, True), L.pinv(A.mT @ A, rtol=0.1, hermitian=True))
    with pytest.raises(TypeError, match=r"^linalg_pinv\(\) received an invalid combination of arguments - got "
                                        r"\(Tensor, float, atol=float\), but expected one of:\n"):
        L.pinv(A, 0.1, atol=0.2)


def test_pinv_matrix_rank_matrix_power_multi_dot_cross():
    A = rand(4, 3, seed=8)
    assert_close(L.pinv(A), E.from_numpy(np.linalg.pinv(A.numpy())), rtol=1e-9, atol=1e-9)
    assert_close(A.pinverse(), E.from_numpy(np.linalg.pinv(A.numpy())), rtol=1e-9, atol=1e-9)
    low_rank = E.from_numpy(np.outer(np.arange(1.0, 5.0), np.arange(1.0, 4.0)))
    assert L.matrix_rank(low_rank).item() == 1 and L.matrix_rank(A).item() == 3
    assert L.matrix_rank(low_rank).dtype is E.int64
    M = spd(3, seed=9)
    for n in (0, 1, 2, 5, -1, -3):
        assert_close(E.matrix_power(M, n), E.from_numpy(np.linalg.matrix_power(M.numpy(), n)), rtol=1e-9, atol=1e-9)
    assert E.matrix_power(M, 1).untyped_storage() is not M.untyped_storage()
    B, C = rand(3, 5, seed=10), rand(5, 2, seed=11)
    assert_close(L.multi_dot([A, B, C]), E.from_numpy(A.numpy() @ B.numpy() @ C.numpy()))
    assert_close(E.chain_matmul(A, B, C), L.multi_dot([A, B, C]))
    u, v = rand(2, 3, seed=12), rand(2, 3, seed=13)
    assert_close(L.cross(u, v), E.from_numpy(np.cross(u.numpy(), v.numpy())))
    assert_close(E.cross(u.t(), v.t(), dim=0), E.from_numpy(np.cross(u.numpy(), v.numpy()).T.copy()))
    assert_close(u.cross(v), E.from_numpy(np.cross(u.numpy(), v.numpy())))


def test_cross_without_dim_warns_once_and_needs_a_size_3_dim(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    u, v = rand(3, 4, seed=12), rand(3, 4, seed=13)
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated") as rec:
        out = E.cross(u, v)
        u.cross(v)
    assert len(rec) == 1
    assert_close(out, E.from_numpy(np.cross(u.numpy(), v.numpy(), axis=0)))
    with pytest.raises(RuntimeError, match="^no dimension of size 3 in input$"):
        E.cross(E.ones(2, 4), E.ones(2, 4))


def test_logdet_of_negative_and_singular_matrices():
    assert math.isnan(E.logdet(E.tensor([[-1.0, 0.0], [0.0, 1.0]])).item())
    assert E.logdet(E.zeros(2, 2)).item() == -math.inf
    assert_close(E.logdet(spd(3, seed=14)), E.from_numpy(np.asarray(np.log(np.linalg.det(spd(3, seed=14).numpy())))))


def test_errors_like_pytorch():
    with pytest.raises(L.LinAlgError, match="linalg.inv: .*singular"):
        L.inv(E.zeros(2, 2))
    assert issubclass(L.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError, match="linalg.inv: A must be batches of square matrices, but they are 2 by 3"):
        E.inverse(E.ones(2, 3))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        L.det(E.ones(2, 2, dtype=E.int64))
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
        L.inv(E.ones(2, 2, dtype=E.float16))
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        L.inv(E.ones(3))
    with pytest.raises(L.LinAlgError, match="not positive-definite") as info:
        L.cholesky(-E.eye(2))
    assert type(info.value).__name__ == "_LinAlgError" and repr(info.value).startswith("_LinAlgError('linalg.cholesky")
    with pytest.raises(RuntimeError, match="Incompatible shapes of A and B"):
        L.solve(E.eye(3), E.ones(4, 2))
    with pytest.raises(RuntimeError, match="cross: inputs dimension -1 must have length 3"):
        L.cross(E.ones(2, 2), E.ones(2, 2))


def test_matrix_primitives_are_declared_differentiable():
    ops = E.registered_ops()
    for name in ("linalg_inv", "linalg_det", "linalg_slogdet", "linalg_solve", "linalg_cholesky", "linalg_qr",
                 "linalg_svd", "linalg_eigh"):
        assert ops[name].differentiable and "cpu" in ops[name].kernels
        assert ops[name].doc.startswith(name + "(")


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
@pytest.mark.parametrize("dim", [(-2, -1), (0, 2), (2, 0)])
def test_matrix_norms_match_numpy(ord, dim):
    A = rand(3, 2, 4, seed=15)
    expected = np.linalg.norm(A.numpy(), ord, axis=dim)
    assert_close(L.matrix_norm(A, ord, dim), E.from_numpy(np.asarray(expected)), rtol=1e-9, atol=1e-9)
    kept = L.matrix_norm(A, ord, dim, keepdim=True)
    assert kept.shape == np.linalg.norm(A.numpy(), ord, axis=dim, keepdims=True).shape
    if dim == (-2, -1):
        assert_close(L.norm(A[0], ord), E.from_numpy(np.asarray(np.linalg.norm(A.numpy()[0], ord))),
                     rtol=1e-9, atol=1e-9)


def test_linalg_norm_dispatches_on_dim_and_ord():
    A = rand(2, 3, 4, seed=16)
    a = A.numpy()
    assert_close(L.norm(A), E.from_numpy(np.asarray(np.linalg.norm(a.ravel()))))
    assert_close(L.norm(A, dim=1), E.from_numpy(np.linalg.norm(a, axis=1)))
    assert_close(L.norm(A, 1, dim=(1, 2)), E.from_numpy(np.linalg.norm(a, 1, axis=(1, 2))))
    with pytest.raises(RuntimeError, match="must be 1D or 2D"):
        L.norm(A, 2)
    with pytest.raises(RuntimeError, match="Order 3 not supported"):
        L.matrix_norm(A, 3)


NAN, INF = math.nan, math.inf


@pytest.mark.parametrize("a, det, sign, logabs", [  # PyTorch 2.13's values: the product of the whole LU diagonal
    ([[NAN, 1], [1, 1]], NAN, 0.0, NAN),  # numpy's det stops at the NaN pivot and says 0
    ([[0, NAN], [0, 1]], NAN, 0.0, NAN),  # a zero pivot: the NaN below it still reaches the diagonal
    ([[1, 2], [3, NAN]], NAN, -0.0, NAN),
    ([[NAN, 0], [0, 0]], NAN, 0.0, NAN),
    ([[INF, 1], [INF, 1]], NAN, 0.0, NAN),  # inf / inf
    ([[INF, 1], [1, 1]], INF, 1.0, INF),
    ([[1, 2], [2, 4]], -0.0, -0.0, -INF),  # singular after a row swap
    ([[0, 0], [0, 0]], 0.0, 0.0, -INF),
])
def test_det_and_slogdet_of_non_finite_and_singular_matrices(a, det, sign, logabs):
    for dt in (E.float64, E.float32):
        x = E.tensor(a, dtype=dt)
        s, la = E.linalg.slogdet(x)
        for got, want in ((E.linalg.det(x).item(), det), (s.item(), sign), (la.item(), logabs)):
            same_zero = got == want and math.copysign(1, got) == math.copysign(1, want)
            assert (math.isnan(got) and math.isnan(want)) or same_zero
    batch = E.tensor([np.eye(2) * 2, a], dtype=E.float64)  # a batch: only the flagged matrix recomputed
    assert E.linalg.det(batch)[0].item() == 4.0
    d = E.linalg.det(batch)[1].item()
    assert (math.isnan(d) and math.isnan(det)) or d == det


def test_det_of_a_complex_matrix_with_inf_is_nan_as_lapack():
    # zgetf2 scales by 1 / pivot, which Fortran's complex division makes NaN for an infinite pivot
    d = E.linalg.det(E.tensor([[INF, 1], [1, 1]], dtype=E.complex128)).item()
    assert math.isnan(d.real) and math.isnan(d.imag)
    assert math.isnan(E.linalg.slogdet(E.tensor([[INF, 1], [1, 1]], dtype=E.complex128))[1].item())


@pytest.mark.torch
def test_det_and_slogdet_of_non_finite_matrices_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for _ in range(400):
        n = int(rng.integers(1, 5))
        # NaN and zero pivots (inf entries: which products MKL's blocked LU forms decides NaN or inf; not copied)
        a = rng.choice([0.0, 1.0, -2.0, 0.5, NAN], size=(n, n), p=[.3, .2, .2, .15, .15])
        for dt in ("float64", "complex128"):
            got = [E.linalg.det(E.tensor(a, dtype=getattr(E, dt))).item(),
                   E.linalg.slogdet(E.tensor(a, dtype=getattr(E, dt)))[1].item()]
            want = [torch.linalg.det(torch.tensor(a, dtype=getattr(torch, dt))).item(),
                    torch.linalg.slogdet(torch.tensor(a, dtype=getattr(torch, dt)))[1].item()]
            np.testing.assert_allclose(np.array(got, dtype=complex), np.array(want, dtype=complex), rtol=1e-12,
                                       err_msg=f"{a} {dt}")


_H = E.float16


@pytest.mark.parametrize("call, exc, message", [  # PyTorch 2.13's CPU errors for a dtype or shape it refuses
    (lambda: E.linalg.det(E.eye(2, dtype=_H)), NotImplementedError, "\"lu_cpu\" not implemented for 'Half'"),
    (lambda: E.linalg.solve(E.eye(2, dtype=E.bfloat16), E.ones(2, dtype=E.bfloat16)), NotImplementedError,
     "\"lu_cpu\" not implemented for 'BFloat16'"),
    (lambda: E.linalg.cholesky(E.eye(2, dtype=_H)), NotImplementedError, "\"cholesky_cpu\" not implemented for 'Half'"),
    (lambda: E.linalg.qr(E.eye(2, dtype=_H)), NotImplementedError, "\"geqrf_cpu\" not implemented for 'Half'"),
    (lambda: E.linalg.svdvals(E.eye(2, dtype=_H)), NotImplementedError, "\"linalg_svd_cpu\" not implemented"),
    (lambda: E.linalg.eigh(E.eye(2, dtype=E.int64)), NotImplementedError,
     "\"linalg_eigh_cpu\" not implemented for 'Long'"),
    (lambda: E.linalg.eigvals(E.eye(2, dtype=_H)), NotImplementedError, "\"linalg_eig_out_cpu\" not implemented"),
    (lambda: E.linalg.eig(E.eye(2, dtype=E.bool)), RuntimeError, "Unknown Complex ScalarType for Bool"),
    (lambda: E.linalg.lu_factor(E.eye(2, dtype=_H)), NotImplementedError, "\"lu_cpu\" not implemented for 'Half'"),
    (lambda: E.linalg.lu(E.eye(2, dtype=E.int64)), NotImplementedError, "\"lu_cpu\" not implemented for 'Long'"),
    (lambda: E.linalg.solve_triangular(E.eye(2, dtype=_H), E.eye(2, dtype=_H), upper=True), NotImplementedError,
     "\"triangular_solve_cpu\" not implemented for 'Half'"),
    (lambda: E.linalg.householder_product(E.eye(2, dtype=_H), E.ones(1, dtype=_H)), NotImplementedError,
     "\"orgqr_cpu\" not implemented for 'Half'"),
    (lambda: E.geqrf(E.eye(2, dtype=E.int64)), NotImplementedError, "\"geqrf_cpu\" not implemented for 'Long'"),
    (lambda: E.cholesky_inverse(E.eye(2, dtype=E.int64)), NotImplementedError,
     "\"cholesky_inverse_out_cpu\" not implemented for 'Long'"),
    (lambda: E.cholesky_solve(E.eye(2, dtype=_H), E.eye(2, dtype=_H)), NotImplementedError,
     "\"cholesky_solve_cpu\" not implemented for 'Half'"),
    (lambda: E.linalg.ldl_factor(E.eye(2, dtype=_H)), NotImplementedError,
     "\"ldl_factor_kernel_cpu\" not implemented for 'Half'"),
    (lambda: E.linalg.pinv(E.eye(2, dtype=_H)), RuntimeError,
     "linalg.pinv(Half{[2, 2]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble "
     "types"),
    (lambda: E.linalg.matrix_rank(E.eye(2, dtype=E.int64)), RuntimeError,
     "This function doesn't handle types other than float and double"),
    (lambda: E.linalg.lstsq(E.eye(2, dtype=_H), E.eye(2, dtype=_H)), RuntimeError,
     "This function doesn't handle types other than float and double"),
    (lambda: E.linalg.matrix_norm(E.eye(2, dtype=_H), 2), RuntimeError,
     "linalg.matrix_norm: Low precision dtypes not supported. Got Half"),
    (lambda: E.linalg.matrix_power(E.eye(2, dtype=E.int64), -1), RuntimeError,
     "linalg.inv: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: E.logdet(E.eye(2, dtype=_H)), RuntimeError, "logdet: Low precision dtypes not supported. Got Half"),
    (lambda: E.linalg.lu_solve(E.eye(2, dtype=_H), E.ones(2, dtype=E.int32), E.eye(2, dtype=_H)), NotImplementedError,
     "\"linalg.lu_solve_cpu\" not implemented for 'Half'"),
    (lambda: E.linalg.eigvals(E.ones(2, 3)), RuntimeError,
     "linalg.eigvals: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: E.linalg.solve(E.ones(3, 2, 2), E.ones(2, 2, 1)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda: E.linalg.solve(E.ones(2, 2, 2), E.ones(3, 2)), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x2)"),
    (lambda: E.linalg.inv_ex(E.tensor([[1.0, 2.0], [2.0, 4.0]]), check_errors=True), E.linalg.LinAlgError,
     "linalg.inv_ex: The diagonal element 2 is zero"),
    (lambda: E.linalg.cholesky_ex(-E.eye(2), check_errors=True), E.linalg.LinAlgError,
     "linalg.cholesky_ex: The factorization could not be completed"),
    (lambda: E.linalg.tensorinv(E.ones(4, 2, 2), ind=1), E.linalg.LinAlgError, "inv: The diagonal element 2 is zero"),
    (lambda: E.linalg.matrix_power(E.ones(4, 2, 3), -1), RuntimeError,
     "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: E.linalg.matrix_power(E.ones(3), 2), RuntimeError,
     "linalg.matrix_power: The input tensor A must have at least 2 dimensions."),
    (lambda: E.linalg.pinv(E.ones(3)), RuntimeError, "linalg.pinv(Float{[3]}): expected a tensor with 2 or more"),
    (lambda: E.linalg.matrix_rank(E.ones(3, dtype=E.int64)), RuntimeError,
     "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."),
])
def test_linalg_refusals_as_pytorch(call, exc, message):
    with pytest.raises(exc) as e:
        call()
    assert str(e.value).startswith(message)


def test_inv_of_a_matrix_with_nan_or_inf_follows_lapack():
    # numpy's inverse of such a matrix can be partly finite; PyTorch's LAPACK order spreads the NaN
    x = E.linalg.inv(E.tensor([[1.0, 2.0, 0.5], [NAN, 1.0, 3.0], [0.0, 1.0, 1.0]], dtype=E.float64)).numpy()
    assert np.isnan(x).all()  # PyTorch 2.13: all NaN (the NaN row is the pivot of the first column)
    with pytest.raises(E.linalg.LinAlgError, match=r"\(Batch element 1\): The diagonal element 1 is zero"):
        E.linalg.inv(E.tensor([np.eye(2), [[0.0, NAN], [0.0, 1.0]]]))  # a zero column: LAPACK's info, raised
    assert np.isnan(E.linalg.inv(E.tensor([[NAN, 0.0], [0.0, 0.0]])).numpy()).all()


@pytest.mark.torch
def test_inv_of_non_finite_matrices_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 6))
        a = rng.standard_normal((n, n))
        for _ in range(int(rng.integers(1, 3))):
            a[rng.integers(0, n), rng.integers(0, n)] = rng.choice([NAN, INF, -INF])
        got, want = E.linalg.inv(E.tensor(a)).numpy(), torch.linalg.inv(torch.tensor(a)).numpy()
        assert np.array_equal(np.isnan(got), np.isnan(want)) and np.allclose(got[~np.isnan(got)], want[~np.isnan(want)])


def test_solve_of_a_matrix_with_inf_follows_lapack():
    A = np.array([[0.28, 0.81, -1.23, -0.02, 0.12], [0.86, 0.12, 0.8, -0.5, 0.36], [0.41, -1.25, 0.18, -0.32, -1.9],
                  [0.96, -0.36, -0.85, -0.38, 0.14], [1.51, -0.17, -INF, 1.37, 0.53]])
    b = np.array([[1.07, -0.48], [0.77, -0.06], [1.07, -1.0], [-0.78, 1.27], [-0.2, -0.36]])
    assert np.isfinite(np.linalg.solve(A, b)[2:]).all()  # numpy's is partly finite
    assert np.isnan(E.linalg.solve(E.tensor(A), E.tensor(b)).numpy()).all()  # PyTorch 2.13: all NaN
    x = E.linalg.solve(E.tensor(np.stack([np.eye(5), A])), E.tensor(b))  # a batch: the finite matrix as before
    assert_close(x[0], E.tensor(b)) and np.isnan(x[1].numpy()).all()


@pytest.mark.torch
def test_svd_cholesky_eigh_of_non_finite_matrices_match_pytorch():
    """PyTorch 2.13's CPU kernels: svd refuses a matrix holding a NaN (gesdd's check; the first bad matrix of a
    batch named) and gives NaN factors for an inf; cholesky fails where potf2's inf / inf or inf^2 below an inf
    makes a pivot NaN or -inf; eigh takes UPLO in either case."""
    nan, inf = math.nan, math.inf
    msg = "The algorithm failed to converge because the input matrix contained non-finite values."
    with pytest.raises(L.LinAlgError, match=f"^linalg.svd: {re.escape(msg)}$"):
        L.svd(E.tensor([[nan, 0.0], [0.0, 1.0]]))
    with pytest.raises(L.LinAlgError, match=rf"^linalg.svd: \(Batch element 1\): {re.escape(msg)}$"):
        L.svdvals(E.stack([E.eye(2), E.full((2, 2), nan)]))
    assert np.isnan(L.svdvals(E.tensor([[inf, 0.0], [0.0, 1.0]])).numpy()).all()
    with pytest.raises(L.LinAlgError, match=r"^linalg.cholesky: .*\(the leading minor of order 2 is not"):
        L.cholesky(E.full((2, 2), inf, dtype=E.float64))
    Lf, info = L.cholesky_ex(E.tensor([[1.0, inf], [inf, 1.0]], dtype=E.float64))
    assert info.item() == 2 and Lf.tolist() == [[1.0, 0.0], [inf, -inf]]
    assert L.cholesky(E.tensor([[inf, 0.0], [0.0, 1.0]], dtype=E.float64)).tolist() == [[inf, 0.0], [0.0, 1.0]]
    A = spd(3)
    assert_close(L.eigh(A, UPLO="u").eigenvalues, L.eigvalsh(A, UPLO="U"))
    assert_close(L.eigvalsh(A, UPLO="l"), L.eigvalsh(A))
    with pytest.raises(RuntimeError, match="^Expected UPLO argument to be 'L' or 'U', but got ll$"):
        L.eigh(A, UPLO="ll")


def test_solve_of_non_finite_matrices_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 6))
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, 2))
        for _ in range(int(rng.integers(1, 3))):
            a[rng.integers(0, n), rng.integers(0, n)] = rng.choice([NAN, INF, -INF])
        try:
            want = torch.linalg.solve(torch.tensor(a), torch.tensor(b)).numpy()
        except RuntimeError:
            with pytest.raises(E.linalg.LinAlgError):
                E.linalg.solve(E.tensor(a), E.tensor(b))
            continue
        got = E.linalg.solve(E.tensor(a), E.tensor(b)).numpy()
        assert np.array_equal(np.isnan(got), np.isnan(want)) and np.allclose(got[~np.isnan(got)], want[~np.isnan(want)])


@pytest.mark.torch
def test_complex_inv_solve_det_of_non_finite_matrices_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)

    def same(x, y):
        nx, ny = np.isnan(x.real) | np.isnan(x.imag), np.isnan(y.real) | np.isnan(y.imag)
        return np.array_equal(nx, ny) and np.allclose(x[~nx], y[~ny])

    for _ in range(150):
        n = int(rng.integers(1, 5))
        a = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
        for _ in range(int(rng.integers(1, 3))):
            a[rng.integers(0, n), rng.integers(0, n)] = rng.choice([NAN, INF, complex(0, INF)])
        b = rng.standard_normal((n, 1)) + 0j
        for call in (lambda m: m.linalg.inv(m.tensor(a)), lambda m: m.linalg.det(m.tensor(a)),
                     lambda m: m.linalg.solve(m.tensor(a), m.tensor(b))):
            try:
                want = call(torch).numpy()
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    call(E)
                continue
            assert same(np.asarray(call(E).numpy()), np.asarray(want))


def test_matrix_rank_tol_overload_is_an_absolute_cutoff():
    # PyTorch's overload matrix_rank(A, tol, hermitian): atol=tol, rtol=0 (singular values 5.00002, 2e-5)
    A = E.tensor([[1.0, 2.0], [2.0, 4.0001]])
    assert [int(E.linalg.matrix_rank(A, t)) for t in (1e-3, 1e-6)] == [1, 2]
    assert int(E.linalg.matrix_rank(A, 1e-3, True)) == 1 and int(E.linalg.matrix_rank(A, tol=E.tensor(1e-6))) == 2
    with pytest.raises(TypeError, match="invalid combination"):
        E.linalg.matrix_rank(A, tol=1e-3, atol=1.0)


def test_tensor_tolerances_of_matrix_rank_and_pinv_apply_per_matrix_of_the_batch():
    # PyTorch unsqueezes atol/rtol tensors against each matrix's largest singular value; ember broadcast them
    # against the singular values (a (2,) atol raised "Boolean value of Tensor ... ambiguous")
    A = E.diag(E.tensor([1.0, 1e-3, 1e-7], dtype=E.float64)).expand(2, 3, 3)
    tol = E.tensor([1e-2, 1e-4], dtype=E.float64)
    assert E.linalg.matrix_rank(A, atol=tol).tolist() == [1, 2]
    assert E.linalg.matrix_rank(A, rtol=tol).tolist() == [1, 2]
    assert E.linalg.matrix_rank(A, atol=E.tensor([0.0, 1e-2], dtype=E.float64)).tolist() == [3, 1]  # rtol = eps*n
    assert E.linalg.matrix_rank(A, atol=-1.0).tolist() == [3, 3]  # a negative atol keeps the default rtol
    d = E.linalg.pinv(A, atol=tol).diagonal(dim1=-2, dim2=-1).numpy()
    np.testing.assert_allclose(d, [[1.0, 0.0, 0.0], [1.0, 1e3, 0.0]], rtol=1e-12)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\)"):
        E.linalg.matrix_rank(A, atol=E.tensor([1e-2, 1e-4, 1.0], dtype=E.float64))


@pytest.mark.parametrize("call, msg", [
    (lambda A: E.linalg.pinv(A, atol=E.tensor(1j)), "pinv: atol tensor of complex type is not supported. Got Complex"),
    (lambda A: E.linalg.pinv(A, atol=E.tensor(1.0), rtol=E.tensor(1j, dtype=E.complex128)),
     "pinv: rtol tensor of complex type is not supported. Got ComplexDouble"),
    (lambda A: E.linalg.pinv(A, E.tensor(1j)), "pinv: rcond tensor of complex type is not supported. Got ComplexFloat"),
    (lambda A: E.linalg.matrix_rank(A, E.tensor(1j)), "matrix_rank: atol tensor of complex type is not supported."),
    (lambda A: E.linalg.matrix_rank(A, rtol=E.tensor(1j)), "matrix_rank: rtol tensor of complex type is not"),
])
def test_complex_tolerance_tensors_are_refused_in_pytorchs_words(call, msg):
    with pytest.raises(RuntimeError, match="^torch.linalg." + re.escape(msg)):
        call(E.eye(2))


def test_lstsq_gels_ignores_rcond_as_pytorchs_qr_driver():
    A = E.tensor([[1.0, 0.0], [0.0, 1e-8], [0.0, 0.0]], dtype=E.float64)
    b = E.ones(3, 1, dtype=E.float64)
    assert_close(E.linalg.lstsq(A, b, rcond=1e-6, driver="gels").solution, E.tensor([[1.0], [1e8]], dtype=E.float64))
    assert E.linalg.lstsq(A, b, rcond=1e-6, driver="gelsd").solution.tolist() == [[1.0], [0.0]]


def test_slogdet_return_type_names_as_pytorch():
    M = E.eye(2) * 2
    assert type(L.slogdet(M)).__name__ == "linalg_slogdet" and type(E.slogdet(M)).__name__ == "slogdet"
    assert repr(L.slogdet(M)).split("\n")[0].endswith(".linalg_slogdet(")
    sign, logabs = L.slogdet(M)
    assert sign.item() == 1.0 and abs(logabs.item() - math.log(4.0)) < 1e-6


def test_det_is_the_lu_diagonal_product_exact_for_integer_matrices():
    # PyTorch multiplies getrf's pivots (15.0 exactly); numpy's det goes through logs (15.000000000000007)
    M = E.tensor([[2.0, -1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.0, 3.0]], dtype=E.float64)
    assert L.det(M).item() == 15.0 and E.det(E.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=E.float64)).item() == -2.0
    X = np.random.default_rng(0).standard_normal((6, 5, 5))
    np.testing.assert_allclose(L.det(E.tensor(X)).numpy(), np.linalg.det(X), rtol=1e-12)
    assert L.det(E.tensor([[1 + 1j, 2], [3, 4j]])).item() == -10 + 4j


def test_svd_driver_keyword_is_refused_off_cuda():
    A = E.tensor([[3.0, 1.0], [1.0, 2.0]])
    U, S, Vh = L.svd(A, driver=None)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(A.numpy(), compute_uv=False), rtol=1e-6)
    msg = r"^torch\.linalg\.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend\.$"
    for call in (lambda: L.svd(A, driver="gesvd"), lambda: L.svd(A, False, driver="gesvdj"),
                 lambda: L.svdvals(A, driver="gesvda")):
        with pytest.raises(RuntimeError, match=msg):
            call()


def test_tolerance_overload_refusals_list_keywords_in_pytorchs_order():
    # PyTorch 2.13's messages: the keywords in its C++ map's order (the last given first here), four overloads
    A = E.eye(3)
    rank = (" * (Tensor input, *, Tensor atol = None, Tensor rtol = None, bool hermitian = False, Tensor out = None)\n"
            " * (Tensor input, *, float atol = None, float rtol = None, bool hermitian = False, Tensor out = None)\n"
            " * (Tensor input, Tensor tol, bool hermitian = False, *, Tensor out = None)\n"
            " * (Tensor input, float tol, bool hermitian = False, *, Tensor out = None)\n")
    head = "linalg_matrix_rank() received an invalid combination of arguments - got "
    for call, got in ((lambda: E.linalg.matrix_rank(A, tol=0.1, atol=0.2), "(Tensor, atol=float, tol=float)"),
                      (lambda: E.linalg.matrix_rank(A, atol=0.2, tol=0.1), "(Tensor, tol=float, atol=float)"),
                      (lambda: E.linalg.matrix_rank(A, tol=0.1, rtol=0.2, hermitian=True),
                       "(Tensor, hermitian=bool, rtol=float, tol=float)")):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == f"{head}{got}, but expected one of:\n{rank}"
    with pytest.raises(TypeError) as e:
        E.linalg.pinv(A, atol=0.2, rcond=0.1, hermitian=False)
    assert str(e.value).startswith("linalg_pinv() received an invalid combination of arguments - got (Tensor, "
                                   "hermitian=bool, rcond=float, atol=float), but expected one of:\n * (Tensor input, "
                                   "*, Tensor atol = None")
    assert str(e.value).endswith(" * (Tensor input, float rcond, bool hermitian = False, *, Tensor out = None)\n")


def test_tolerance_of_another_type_lists_the_four_overloads():
    # PyTorch 2.13: a str/list tolerance or an int hermitian matches no overload (ember multiplied or compared it)
    A = E.eye(3)
    for call, got in ((lambda: E.linalg.pinv(A, atol="a"), "linalg_pinv() received an invalid combination of "
                       "arguments - got (Tensor, atol=str), but expected one of:\n"),
                      (lambda: E.linalg.pinv(A, rtol=[1.0]), "linalg_pinv() received an invalid combination of "
                       "arguments - got (Tensor, rtol=list), but expected one of:\n"),
                      (lambda: E.linalg.matrix_rank(A, "a"), "linalg_matrix_rank() received an invalid combination of "
                       "arguments - got (Tensor, str), but expected one of:\n"),
                      (lambda: E.linalg.matrix_rank(A, hermitian=1), "linalg_matrix_rank() received an invalid "
                       "combination of arguments - got (Tensor, hermitian=int), but expected one of:\n")):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value).startswith(got) and str(e.value).count("\n * ") == 4
    assert int(E.linalg.matrix_rank(A, atol=0.1, rtol=E.tensor(0.1))) == 3


@pytest.mark.parametrize("a_shape, b_shape, got", [((2, 2), (2,), "2x1"), ((2, 2), (2, 1), "2x1"),
                                                   ((2, 2), (2, 3), "2x3"), ((3, 2, 2), (3, 2), "2x1"),
                                                   ((3, 2, 2), (2, 3), "2x3")])
def test_solve_right_side_refuses_b_with_the_wrong_column_count_as_pytorch(a_shape, b_shape, got):
    A = E.tensor(np.broadcast_to(np.array([[2.0, 1.0], [0.5, 3.0]], dtype=np.float32), a_shape).copy())
    with pytest.raises(RuntimeError, match=f"^linalg.solve: Incompatible shapes of A and B for the equation "
                                           rf"XA = B \(2x2 and {got}\)$"):
        E.linalg.solve(A, E.ones(*b_shape), left=False)
    X = E.linalg.solve(A, E.ones(3, 2), left=False) if len(a_shape) == 2 else None
    if X is not None:  # a right-hand side with A's column count still solves X A = B
        np.testing.assert_allclose(X.numpy(), np.ones((3, 2)) @ np.linalg.inv(A.numpy()), rtol=1e-6)


_NORM_TAIL = "bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n"


@pytest.mark.parametrize(("call", "want"), [  # PyTorch 2.13's words
    (lambda A: E.linalg.norm(A, ord=[1]),
     "linalg_norm() received an invalid combination of arguments - got (Tensor, ord=list), but expected one of:\n"
     f" * (Tensor input, Number ord = None, tuple of ints dim = None, {_NORM_TAIL}"
     f" * (Tensor input, str ord, tuple of ints dim = None, {_NORM_TAIL}"),
    (lambda A: E.linalg.norm(A, ord=None, dim=1.5),
     "linalg_norm() received an invalid combination of arguments - got (Tensor, dim=float, ord=NoneType), but "
     "expected one of:\n"
     f" * (Tensor input, Number ord = None, tuple of ints dim = None, {_NORM_TAIL}"
     f" * (Tensor input, str ord, tuple of ints dim = None, {_NORM_TAIL}"),
    (lambda A: E.linalg.matrix_norm(A, [1]),
     "linalg_matrix_norm() received an invalid combination of arguments - got (Tensor, list), but expected one of:\n"
     f" * (Tensor input, Number ord, tuple of ints dim = {{-2,-1}}, {_NORM_TAIL}"
     f" * (Tensor input, str ord = \"fro\", tuple of ints dim = {{-2,-1}}, {_NORM_TAIL}"),
    (lambda A: E.linalg.cond(A, p=[1]),
     "linalg_cond() received an invalid combination of arguments - got (Tensor, p=list), but expected one of:\n"
     " * (Tensor input, Number p = None, *, Tensor out = None)\n * (Tensor input, str p, *, Tensor out = None)\n"),
])
def test_a_norm_order_of_no_overload_lists_pytorchs_overloads(call, want):
    A = E.eye(3)
    with pytest.raises(TypeError) as e:
        call(A)
    assert str(e.value) == want
    assert E.linalg.norm(A, 2.0, (0, 1)).item() == 1.0 and E.linalg.cond(A, "fro").item() == pytest.approx(3.0)


def test_lapack_results_are_column_major_as_pytorchs():
    """PyTorch 2.13's CPU LAPACK results keep LAPACK's layout: each matrix column-major (strides (1, m), batched
    (m*n, 1, m)), so `.view(-1)` of one refuses; a vector solve's solution and the eigenvalues stay plain."""
    A, B = spd(3), spd(3, batch=(2,))
    b, R = rand(3, 2), rand(4, 3)
    cases = {
        "inv": (L.inv(A), (1, 3)), "inv batched": (L.inv(B), (9, 1, 3)), "cholesky": (L.cholesky(B), (9, 1, 3)),
        "solve": (L.solve(A, b), (1, 3)), "solve_triangular": (L.solve_triangular(L.cholesky(A), b, upper=False),
                                                               (1, 3)),
        "qr Q": (L.qr(R).Q, (1, 4)), "qr R": (L.qr(R).R, (1, 3)), "qr complete Q": (L.qr(R, mode="complete").Q,
                                                                             (1, 4)),
        "svd U": (L.svd(R).U, (1, 4)), "svd Vh": (L.svd(R).Vh, (1, 3)), "eigh": (L.eigh(B).eigenvectors, (9, 1, 3)),
        "eig": (L.eig(A).eigenvectors, (1, 3)), "ldl_factor": (L.ldl_factor(A).LD, (1, 3)),
        "matrix_power -1": (L.matrix_power(A, -1), (1, 3)), "cholesky_inverse": (E.cholesky_inverse(L.cholesky(A)),
                                                                                 (1, 3)),
    }
    for name, (t, strides) in cases.items():
        assert t.stride() == strides, name
    assert E.svd(R).V.stride() == (3, 1) and L.solve(A, b[:, 0]).stride() == (1,)
    assert L.eigh(A).eigenvalues.stride() == (1,) and L.svd(R).S.stride() == (1,)
    np.testing.assert_allclose((L.inv(A) @ A).numpy(), np.eye(3), atol=1e-12)
    with pytest.raises(RuntimeError, match="^view size is not compatible with input tensor's size and stride"):
        L.inv(A).view(-1)
    assert L.inv(A).reshape(-1).tolist() == np.linalg.inv(A.numpy()).reshape(-1).tolist()


def test_lapack_layouts_of_one_column_vector_batches_and_composed_solvers():
    """The layouts PyTorch 2.13 returns where ember once differed: a one-column result keeps the column-major
    stride of its size-1 dim, a batch of vector solves is column-major in its last two dims, the composed solvers
    (right-side triangular solve, lu_factor, geqrf, householder_product, ormqr, lstsq's top rows of LAPACK's
    max(m, n)-row buffer) are column-major, and lu's P is row-major; values unchanged."""
    A, B = spd(4), spd(4, batch=(2,))
    C = L.cholesky(A)
    cases = {
        "cholesky_solve 1 col": (E.cholesky_solve(rand(4, 1), C), (1, 4)),
        "batched 1 col": (L.solve(B, rand(2, 4, 1)), (4, 1, 4)),
        "vector batch": (L.solve(B, rand(2, 4)), (1, 2)),
        "vector batch 3-d": (L.solve(spd(4, batch=(3, 2)), rand(3, 2, 4)), (8, 1, 2)),
        "solve_triangular right": (L.solve_triangular(C, rand(2, 3, 4), upper=False, left=False), (12, 1, 3)),
        "lu_factor": (L.lu_factor(rand(2, 3, 5)).LU, (15, 1, 3)),
        "lu P": (L.lu(A).P, (4, 1)),
        "lu_solve adjoint": (L.lu_solve(*L.lu_factor(B), rand(2, 4, 3), adjoint=True), (12, 1, 4)),
        "lu_solve right": (L.lu_solve(*L.lu_factor(B), rand(2, 3, 4), left=False), (12, 4, 1)),
        "geqrf": (E.geqrf(rand(3, 5))[0], (1, 3)),
        "householder_product": (L.householder_product(*E.geqrf(rand(4, 3))), (1, 4)),
        "ormqr": (E.ormqr(*E.geqrf(rand(4, 3)), rand(4, 2)), (1, 4)),
        "lstsq tall": (L.lstsq(rand(5, 3), rand(5, 2)).solution, (1, 5)),
        "lstsq batch": (L.lstsq(rand(2, 5, 3), rand(2, 5, 1)).solution, (5, 1, 5)),
        "qr R one row": (L.qr(rand(1, 3)).R, (1, 1)),
    }
    for name, (t, strides) in cases.items():
        assert t.stride() == strides, name
    b = rand(2, 3, 4)
    X = L.solve_triangular(C, b, upper=False, left=False)
    np.testing.assert_allclose((X @ E.tril(C)).numpy(), b.numpy(), atol=1e-12)
    a, y = rand(5, 3), rand(5, 2)
    np.testing.assert_allclose(L.lstsq(a, y).solution.numpy(), np.linalg.lstsq(a.numpy(), y.numpy(), rcond=None)[0],
                               atol=1e-12)
    np.testing.assert_allclose((L.lu(A).P @ L.lu(A).L @ L.lu(A).U).numpy(), A.numpy(), atol=1e-12)
