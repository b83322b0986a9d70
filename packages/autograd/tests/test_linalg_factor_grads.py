"""Gradients PyTorch defines for the whole matrix where the forward reads part of it: `linalg.pinv(hermitian=True)`
(one triangle, through eigh; its gradient is pinv_backward, not symmetrized) and the Cholesky factor of
`cholesky_solve`/`cholesky_inverse` (one triangle; the gradient is full, not triangular). Checked against the
formulas in float64 numpy, and against PyTorch in the torch session."""

import numpy as np
import pytest

import ember.autograd as E


def _rng(seed):
    return np.random.default_rng(seed)


def _pinv_backward(G, P, A):
    """PyTorch's pinv_backward in numpy (m <= n arrangement; it holds for every shape)."""
    h = lambda x: x.conj().swapaxes(-1, -2)  # noqa: E731
    K = h(G) @ P
    return -h(P @ K) + K @ h(P) - A @ P @ K @ h(P) + h(P) @ P @ (h(G) - K @ A)


def _grad(fn, arrays, G):
    xs = [E.tensor(a, requires_grad=True) for a in arrays]
    return [g.numpy() for g in E.autograd.grad(fn(*xs), xs, E.tensor(G))]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_pinv_hermitian_gradient_is_pinv_backward_not_symmetrized(dtype):
    rng = _rng(1)
    X = rng.standard_normal((3, 3)) + (1j * rng.standard_normal((3, 3)) if dtype is np.complex128 else 0)
    H = X + X.conj().T
    G = rng.standard_normal((3, 3)) + (1j * rng.standard_normal((3, 3)) if dtype is np.complex128 else 0)
    (g,) = _grad(lambda a: E.linalg.pinv(a, hermitian=True), [H], G)
    np.testing.assert_allclose(g, _pinv_backward(G, np.linalg.pinv(H), H), rtol=1e-9, atol=1e-9)
    assert np.abs(g - g.conj().T).max() > 1e-2  # the eigh route's gradient was Hermitian


def test_pinv_gradient_of_wide_and_tall_matrices():
    rng = _rng(2)
    for shape in ((4, 2), (2, 4)):
        A = rng.standard_normal(shape)
        G = rng.standard_normal(shape[::-1])
        (g,) = _grad(E.linalg.pinv, [A], G)
        np.testing.assert_allclose(g, _pinv_backward(G, np.linalg.pinv(A), A), rtol=1e-10, atol=1e-10)


def _factor(rng, upper):
    L = np.tril(rng.standard_normal((3, 3)), -1) + np.diag(rng.uniform(1, 2, 3))
    return L.T if upper else L


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_factor_gradient_is_full(upper):
    rng = _rng(3)
    F, B, G = _factor(rng, upper), rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    gB, gF = _grad(lambda b, f: E.cholesky_solve(b, f, upper=upper), [B, F], G)
    A = F.T @ F if upper else F @ F.T
    X = np.linalg.solve(A, B)
    gX = np.linalg.solve(A, G)
    common = gX @ X.T + X @ gX.T
    np.testing.assert_allclose(gB, gX, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gF, -(F @ common) if upper else -(common @ F), rtol=1e-10, atol=1e-12)
    outside = np.tril(gF, -1) if upper else np.triu(gF, 1)
    assert np.abs(outside).max() > 1e-3  # not masked to the factor's triangle


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_factor_gradient_is_full(upper):
    rng = _rng(4)
    F, G = _factor(rng, upper), rng.standard_normal((3, 3))
    (gF,) = _grad(lambda f: E.cholesky_inverse(f, upper=upper), [F], G)
    inv = np.linalg.inv(F.T @ F if upper else F @ F.T)
    common = inv @ (G + G.T) @ inv
    np.testing.assert_allclose(gF, -(F @ common) if upper else -(common @ F), rtol=1e-10, atol=1e-12)
    outside = np.tril(gF, -1) if upper else np.triu(gF, 1)
    assert np.abs(outside).max() > 1e-3


def _zlauu2_reference(F):
    """LAPACK's unblocked potri of a complex lower factor, entry by entry (reference zlauu2 after a true inverse):
    row i of X^H X with X[i, i] read as its real part a, and the last row scaled by a, diagonal included."""
    X = np.linalg.inv(np.tril(F))
    n = len(X)
    R = np.zeros_like(X)
    for i in range(n):
        a = X[i, i].real
        for j in range(i + 1):
            if i == n - 1:
                R[i, j] = a * X[i, j]
            elif i == j:
                R[i, i] = a * a + np.vdot(X[i + 1:, i], X[i + 1:, i]).real
            else:
                R[i, j] = a * X[i, j] + X[i + 1:, j] @ X[i + 1:, i].conj()
    return np.tril(R) + np.tril(R, -1).conj().T


def test_cholesky_inverse_of_a_non_real_diagonal_is_pytorchs_potri():
    # PyTorch 2.13 (MKL's potri): neither (L L^H)^-1 nor Hermitian on the diagonal
    L = np.array([[1 + 1j, 0], [2 - 1j, 3 + 2j]])
    got = E.cholesky_inverse(E.tensor(L)).numpy()
    expected = np.array([[0.4423076923076924, 0.026627218934911254 - 0.09763313609467457j],
                         [0.026627218934911254 + 0.09763313609467457j, 0.053254437869822494 - 0.03550295857988166j]])
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)
    up = E.cholesky_inverse(E.tensor(L.conj().T), upper=True).numpy()
    np.testing.assert_allclose(up, expected + np.diag([0, 0.07100591715976332j]), rtol=1e-13, atol=1e-15)
    assert E.cholesky_inverse(E.tensor([[1 + 1j]])).item() == 0.25 - 0.25j  # Re(1/a) * (1/a)
    rng = _rng(6)
    for n in (5, 32, 33, 70):  # past 32: lauum's blocks, whose herk update makes those diagonals real
        F = np.tril(0.1 * (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))) + np.diag(
            3 + 1j * rng.standard_normal(n))
        got = E.cholesky_inverse(E.tensor(F + np.triu(np.ones((n, n)), 1))).numpy()  # the other triangle unread
        if n <= 32:
            np.testing.assert_allclose(got, _zlauu2_reference(F), rtol=1e-12, atol=1e-14)
        exact = np.linalg.inv(np.tril(F) @ np.tril(F).conj().T)
        assert np.abs(got - exact).max() > 1e-3


@pytest.mark.torch
@pytest.mark.parametrize("n", [1, 3, 32, 33, 100])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_of_a_non_real_diagonal_matches_pytorch(n, upper):
    torch = pytest.importorskip("torch")
    rng = _rng(7)
    F = np.tril(0.1 * (rng.standard_normal((2, n, n)) + 1j * rng.standard_normal((2, n, n)))) + np.eye(n) * (
        3 + 1j * rng.standard_normal((2, 1, n)))
    F = F.conj().swapaxes(-1, -2) if upper else F
    G = np.cos(np.arange(2 * n * n)).reshape(2, n, n) + 0.5j
    res = []
    for M in (E, torch):
        f = M.tensor(F, requires_grad=True)
        out = M.cholesky_inverse(f, upper=upper)
        res.append((out.detach().numpy(), M.autograd.grad(out, [f], M.tensor(G))[0].numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-13)


@pytest.mark.torch
@pytest.mark.parametrize("case", ["pinv_hermitian", "pinv_hermitian_complex", "cholesky_solve", "cholesky_solve_upper",
                                  "cholesky_inverse", "cholesky_inverse_complex"])
def test_factor_gradients_match_pytorch(case):
    torch = pytest.importorskip("torch")
    rng = _rng(5)
    cplx = case.endswith("complex")
    X = rng.standard_normal((3, 3)) + (1j * rng.standard_normal((3, 3)) if cplx else 0)
    F = np.tril(X, -1) + np.diag(rng.uniform(1, 2, 3))
    B = rng.standard_normal((3, 2))
    calls = {
        "pinv_hermitian": (lambda M, a: M.linalg.pinv(a, hermitian=True), [X + X.conj().T]),
        "pinv_hermitian_complex": (lambda M, a: M.linalg.pinv(a, hermitian=True), [X + X.conj().T]),
        "cholesky_solve": (lambda M, b, f: M.cholesky_solve(b, f), [B, F]),
        "cholesky_solve_upper": (lambda M, b, f: M.cholesky_solve(b, f, upper=True), [B, F.T]),
        "cholesky_inverse": (lambda M, f: M.cholesky_inverse(f), [F]),
        "cholesky_inverse_complex": (lambda M, f: M.cholesky_inverse(f), [F]),
    }
    fn, arrays = calls[case]
    grads = []
    for M in (E, torch):
        xs = [M.tensor(a, requires_grad=True) for a in arrays]
        out = fn(M, *xs)
        G = M.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)).astype(arrays[0].dtype))
        grads.append([g.detach().numpy() for g in M.autograd.grad(out, xs, G)])
    for a, b in zip(*grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_cholesky_nodes_carry_pytorchs_names():
    A = E.tensor(np.array([[4.0, 1.0], [1.0, 3.0]]), requires_grad=True)
    assert type(E.linalg.cholesky(A).grad_fn).__name__ == "LinalgCholeskyExBackward0"  # linalg.cholesky is cholesky_ex
    assert type(E.linalg.cholesky(A, upper=True).grad_fn).__name__ == "LinalgCholeskyExBackward0"
    assert type(E.linalg.cholesky_ex(A).L.grad_fn).__name__ == "LinalgCholeskyExBackward0"
    assert type(E.cholesky(A).grad_fn).__name__ == "CholeskyBackward0"
    L = E.linalg.cholesky(A)
    L.sum().backward()
    assert np.allclose(A.grad.numpy(), A.grad.numpy().T)  # the renamed node still runs cholesky's backward


def test_inv_and_cross_nodes_carry_pytorchs_names():
    rng = _rng(3)
    A = E.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    B = E.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    for out in (E.linalg.inv(A), E.inverse(A), A.inverse(), E.linalg.inv_ex(A).inverse):
        assert type(out.grad_fn).__name__ == "LinalgInvExBackward0"  # PyTorch's linalg.inv is inv_ex
    for out in (E.linalg.cross(A, B), E.cross(A, B, dim=0), A.cross(B, dim=1)):
        assert type(out.grad_fn).__name__ == "LinalgCrossBackward0"
    gA, gB = E.autograd.grad(E.linalg.cross(A, B).sum(), (A, B))  # the renamed node runs the composite's backward
    ones = np.ones((3, 3))
    assert np.allclose(gA.numpy(), np.cross(B.detach().numpy(), ones)) and np.allclose(
        gB.numpy(), np.cross(ones, A.detach().numpy()))


@pytest.mark.parametrize("name, call", [
    ("linalg_inv_ex", lambda A, o: E.linalg.inv(A, out=o)),
    ("_linalg_solve_ex", lambda A, o: E.linalg.solve(A, A, out=o)),
    ("linalg_cholesky_ex", lambda A, o: E.linalg.cholesky(A, out=o)),
    ("mm", lambda A, o: E.linalg.multi_dot([A, A], out=o)),
])
def test_out_forms_refuse_inputs_that_require_grad_under_grad_mode(name, call):
    A = E.tensor(np.array([[4.0, 1.0], [1.0, 3.0]]), requires_grad=True)
    with pytest.raises(RuntimeError, match=rf"^{name}\(\): functions with out=\.\.\. arguments don't support"):
        call(A, E.empty(0, dtype=E.float64))
    out = E.empty(0, dtype=E.float64)
    with E.no_grad():
        assert call(A, out) is out and out.shape == (2, 2)


def _outs(*dts):
    return lambda: tuple(E.empty(0, dtype=d) for d in dts) if len(dts) > 1 else E.empty(0, dtype=dts[0])


_LU = E.linalg.lu_factor(E.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=E.float64))
_F, _I, _C = E.float64, E.int32, E.complex128


@pytest.mark.parametrize("name, call, make_out", [
    ("linalg_vector_norm", lambda A, o: E.linalg.vector_norm(A, out=o), _outs(_F)),
    ("linalg_lu_factor_ex", lambda A, o: E.linalg.lu_factor(A, out=o), _outs(_F, _I)),
    ("linalg_lu_factor_ex", lambda A, o: E.linalg.lu_factor_ex(A, out=o), _outs(_F, _I, _I)),
    ("linalg_lu", lambda A, o: E.linalg.lu(A, out=o), _outs(_F, _F, _F)),
    ("linalg_lu_solve", lambda A, o: E.linalg.lu_solve(_LU.LU, _LU.pivots, A, out=o), _outs(_F)),
    ("linalg_solve_triangular", lambda A, o: E.linalg.solve_triangular(A, A, upper=True, out=o), _outs(_F)),
    ("linalg_inv_ex", lambda A, o: E.linalg.inv_ex(A, out=o), _outs(_F, _I)),
    ("_linalg_solve_ex", lambda A, o: E.linalg.solve_ex(A, A, out=o), _outs(_F, _I)),
    ("linalg_cholesky_ex", lambda A, o: E.linalg.cholesky_ex(A, out=o), _outs(_F, _I)),
    ("linalg_eig", lambda A, o: E.linalg.eig(A, out=o), _outs(_C, _C)),
    ("linalg_householder_product", lambda A, o: E.linalg.householder_product(A, A[:, 0], out=o), _outs(_F)),
    ("matmul", lambda A, o: E.linalg.matrix_power(A, 2, out=o), _outs(_F)),
    ("geqrf", lambda A, o: E.geqrf(A, out=o), _outs(_F, _F)),
    ("triangular_solve", lambda A, o: E.triangular_solve(A, A, out=o), _outs(_F, _F)),
    ("norm", lambda A, o: E.frobenius_norm(A, (0, 1), out=o), _outs(_F)),
    ("linalg_lstsq", lambda A, o: E.linalg.lstsq(A, A, out=o), _outs(_F, _F, E.int64, _F)),
    ("sum", lambda A, o: E.linalg.vecdot(A, A, out=o), _outs(_F)),
    ("vdot", lambda A, o: E.linalg.vecdot(A[0], A[0], out=o), _outs(_F)),
    ("_linalg_slogdet", lambda A, o: E.slogdet(A, out=o), _outs(_F, _F)),
])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_every_out_form_refuses_inputs_that_require_grad_naming_pytorchs_aten_op(name, call, make_out):
    """PyTorch 2.13's words: the ATen op its out= form runs (`linalg_lu_factor_ex` for `lu_factor`)."""
    A = E.tensor(np.array([[4.0, 1.0], [1.0, 3.0]]), requires_grad=True)
    with pytest.raises(RuntimeError, match=rf"^{name}\(\): functions with out=\.\.\. arguments don't support"):
        call(A, make_out())
    out = make_out()
    with E.no_grad():
        r = call(A, out)
    assert r is out if isinstance(out, E.Tensor) else all(a is b for a, b in zip(r, out))


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist_gradient_is_pytorchs_cdist_backward_which_has_no_derivative(p):
    """cdist's first gradient is its distances' (gradcheck), recorded as PyTorch's CdistBackwardBackward0 under
    create_graph; a second backward raises PyTorch's NotImplementedError."""
    rng = np.random.default_rng(3)
    a = E.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = E.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    d = E.cdist(a, b, p=p)
    assert type(d.grad_fn).__name__ == "CdistBackward0"
    if p:
        assert E.autograd.gradcheck(lambda x, y: E.cdist(x, y, p=p), (a, b))
    ga, gb = E.autograd.grad(d.sum(), (a, b), create_graph=True)
    assert type(ga.grad_fn).__name__ == type(gb.grad_fn).__name__ == "CdistBackwardBackward0"
    with pytest.raises(NotImplementedError, match=r"^the derivative for '_cdist_backward' is not implemented\.$"):
        ga.sum().backward()


@pytest.mark.parametrize("p", [0.0, 1.0, 3.0, float("inf")])
def test_cdist_zero_gradients_are_positive_zeros_for_both_operands(p):
    """PyTorch's kernel sums each coordinate's contributions into zeros: one that gets no gradient (a zero
    difference, a coordinate p = inf does not select) is +0 (printed `0.`) for either operand and upstream sign."""
    x1 = E.tensor([[-0.5, 1.0, -2.0, 0.0]], requires_grad=True)
    x2 = E.zeros(1, 4, requires_grad=True)
    g1, g2 = E.autograd.grad(-E.cdist(x1, x2, p=p).sum(), (x1, x2))
    for g in (g1, g2):
        zeros = g.numpy()[g.numpy() == 0]
        assert not np.signbit(zeros).any(), g
    assert np.array_equal(g2.numpy(), -g1.numpy())


def test_vector_norm_of_order_zero_has_an_undefined_gradient_where_cdist_and_pdist_give_zeros():
    """PyTorch's norm backward returns no gradient for ord 0 (`.grad` stays None, `grad` needs allow_unused);
    cdist's and pdist's own backwards return zeros."""
    x = E.tensor([[1.0, 0.0, 3.0], [0.0, 2.0, 0.0]], requires_grad=True)
    E.linalg.vector_norm(x, 0).backward()
    E.dist(x, E.zeros(3), p=0).backward()
    assert x.grad is None
    assert E.autograd.grad(E.linalg.vector_norm(x, 0, dim=1).sum(), x, allow_unused=True) == (None,)
    (E.linalg.vector_norm(x, 0) + x.sum()).backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2
    for d in (E.cdist(x, E.tensor([[0.0, float("inf"), 1.0]]), p=0), E.pdist(x, p=0)):
        g, = E.autograd.grad(d.sum(), x)
        assert g.tolist() == [[0.0] * 3] * 2
    assert E.cdist(x, E.tensor([[0.0, float("inf"), 1.0]]), p=0).tolist() == [[3.0], [2.0]]


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_records_one_node_whose_gradient_is_grad_times_the_base_grid(align_corners):
    """PyTorch's one AffineGridGeneratorBackward0, its edge to theta's AccumulateGrad; theta's gradient is
    `sum_points grad[p] (x) [x_p, y_p, 1]` (numpy's), a double backward through PyTorch's bmm and transpose."""
    rng = np.random.default_rng(5)
    theta = E.tensor(rng.standard_normal((2, 2, 3)), requires_grad=True)
    grid = E.affine_grid(theta, (2, 1, 3, 4), align_corners=align_corners)
    assert type(grid.grad_fn).__name__ == "AffineGridGeneratorBackward0" and grid._base is None
    assert [type(n).__name__ for n, _ in grid.grad_fn.next_functions] == ["AccumulateGrad"]
    w = rng.standard_normal((2, 3, 4, 2))
    (gt,) = E.autograd.grad((grid * E.tensor(w, requires_grad=True)).sum(), theta, create_graph=True)
    xs = np.linspace(-1, 1, 4) * (1 if align_corners else 3 / 4)
    ys = np.linspace(-1, 1, 3) * (1 if align_corners else 2 / 3)
    base = np.stack([np.tile(xs, 3), np.repeat(ys, 4), np.ones(12)], 1)
    np.testing.assert_allclose(gt.detach().numpy(), np.einsum("npi,pk->nik", w.reshape(2, 12, 2), base), rtol=1e-12)
    assert type(gt.grad_fn).__name__ == "TransposeBackward0"
    assert E.autograd.gradgradcheck(lambda t: E.affine_grid(t, (2, 1, 2, 3, 4), align_corners=align_corners),
                                    (E.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True),))


def test_cond_nodes_are_pytorchs():
    # NanToNum over the norms' product, the nuclear norm's Mul of two sums, the 2-norm's squeezed quotient
    b = E.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    assert type(E.linalg.cond(b, 1).grad_fn).__name__ == "NanToNumBackward0"
    assert type(E.linalg.cond(b, "nuc").grad_fn).__name__ == "MulBackward0"
    c = E.linalg.cond(b)
    assert type(c.grad_fn).__name__ == "SqueezeBackward1"
    assert type(c.grad_fn.next_functions[0][0]).__name__ == "DivBackward0"


def test_lu_and_lstsq_results_carry_pytorchs_node_names():
    A = E.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    _, L, U = E.linalg.lu(A)
    assert type(L.grad_fn).__name__ == type(U.grad_fn).__name__ == "LinalgLuBackward0"
    assert type(E.linalg.lstsq(A, E.ones(2, 1)).solution.grad_fn).__name__ == "LinalgLstsqBackward0"
    (L.sum() + U.sum()).backward()  # the renamed nodes still differentiate
    assert A.grad is not None


def test_dist_p0_backward_refuses_a_differentiable_other_as_pytorch():
    # PyTorch's DistBackward0 negates the undefined 0-norm gradient for `other`, which raises
    x, y = E.tensor([1.0, 2.0], requires_grad=True), E.tensor([1.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Expected a proper Tensor but got None \(or an undefined Tensor in "
                                           r"C\+\+\) for argument #0 'self'$"):
        E.dist(x, y, p=0).backward()
    E.dist(x, y.detach(), p=0).backward()
    assert x.grad is None
