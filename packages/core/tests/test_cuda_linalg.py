"""mm, bmm, dot and the composites over them (matmul, addmm, ...) on both devices: CUDA must match
the CPU, for transposed and strided operands and tile edges. Run in the CUDA simulator."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]


def _on(t, device):
    return t if device == "cpu" else t.to(device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("m", "k", "n"), [(1, 1, 1), (3, 5, 2), (9, 4, 10), (2, 17, 3)])
def test_mm_matches_cpu_across_tile_edges(m, k, n, device):
    a = make_tensor(m, k, seed=1)
    b = make_tensor(k, n, seed=2)
    assert_close(E.mm(_on(a, device), _on(b, device)), _on(a @ b, device), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [E.float64, E.float16, E.int64, E.bool])
def test_mm_of_transposed_operands_and_dtypes(dtype, device):
    a = make_tensor(4, 3, dtype=dtype, low=0, high=3, seed=3)
    b = make_tensor(5, 4, dtype=dtype, low=0, high=3, seed=4, noncontiguous=True)
    if dtype is E.bool:  # PyTorch has no bool matrix product
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            E.mm(_on(a, device).t(), _on(b, device).t())
        return
    want = a.t() @ b.t()
    got = E.mm(_on(a, device).t(), _on(b, device).t())
    assert got.dtype is dtype
    assert_close(got, _on(want, device), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("device", DEVICES)
def test_bmm_dot_matmul_addmm(device):
    a, b = make_tensor(2, 3, 4, seed=5), make_tensor(2, 4, 2, seed=6)
    assert_close(E.bmm(_on(a, device), _on(b, device)), _on(E.bmm(a, b), device), rtol=1e-5, atol=1e-4)
    v, w = make_tensor(6, seed=7), make_tensor(6, seed=8)
    assert_close(E.dot(_on(v, device), _on(w, device)), _on(E.dot(v, w), device), rtol=1e-5, atol=1e-4)
    x, y = make_tensor(3, 2, 4, seed=9), make_tensor(4, 5, seed=10)
    assert_close(E.matmul(_on(x, device), _on(y, device)), _on(x @ y, device), rtol=1e-5, atol=1e-4)
    c = make_tensor(3, 5, seed=11)
    p, q = make_tensor(3, 4, seed=12), make_tensor(4, 5, seed=13)
    assert_close(E.addmm(_on(c, device), _on(p, device), _on(q, device), beta=0.5, alpha=2),
                 _on(E.addmm(c, p, q, beta=0.5, alpha=2), device), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_mm_errors_match_the_cpu(device):
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        E.mm(_on(E.zeros(2, 3), device), _on(E.zeros(2, 3), device))
    with pytest.raises(RuntimeError, match="same dtype"):
        E.mm(_on(E.zeros(2, 2), device), _on(E.zeros(2, 2, dtype=E.float64), device))
    with pytest.raises(RuntimeError, match="3D"):
        E.bmm(_on(E.zeros(2, 2), device), _on(E.zeros(2, 2), device))


@pytest.mark.parametrize("device", DEVICES)
def test_empty_inner_dimension_gives_zeros(device):
    r = E.mm(_on(E.zeros(2, 0), device), _on(E.zeros(0, 3), device))
    assert r.tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("eq", "shapes"), [("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
                                            ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->", [(2, 3)]),
                                            ("i,j->ij", [(2,), (3,)]), ("...ij,...jk", [(2, 2, 3), (3, 2)]),
                                            ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 2, 4)]),
                                            ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]), ("ijk->kji", [(2, 3, 1)])])
def test_einsum_matches_cpu(eq, shapes, device):
    ops = [make_tensor(*s, seed=i) for i, s in enumerate(shapes)]
    want = E.einsum(eq, *ops)
    got = E.einsum(eq, *(_on(o, device) for o in ops))
    assert got.shape == want.shape
    assert_close(got, _on(want, device), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("eq", "dt", "expect", "rdt"), [
    ("ij->i", "bool", [1, 2], "int64"), ("ij,k->k", "bool", [3, 0], "int64"), ("ij,jk->j", "int8", [2, 2], "int64"),
    ("ij,ij->ij", "bool", [[True, False], [True, True]], "bool"), ("ij,ij->i", "int8", [1, 2], "int8")])
def test_einsum_of_integral_operands_takes_pytorchs_dtype(eq, dt, expect, rdt, device):
    b = _on(E.tensor([[1, 0], [1, 1]], dtype=getattr(E, dt)), device)
    r = E.einsum(eq, *(b if len(t) == 2 else b[0] for t in eq.split("->")[0].split(",")))
    assert r.dtype == getattr(E, rdt) and r.tolist() == expect


def _spd(n: int, seed: int) -> E.Tensor:
    a = make_tensor(n, n, dtype=E.float64, seed=seed)
    return a @ a.t() + E.eye(n, dtype=E.float64) * n


@pytest.mark.parametrize("device", DEVICES)
def test_solve_inv_det_slogdet_cholesky(device):
    a = make_tensor(2, 3, 3, dtype=E.float64, seed=20)
    b = make_tensor(2, 3, 2, dtype=E.float64, seed=21)
    v = make_tensor(3, dtype=E.float64, seed=22)
    tol = {"rtol": 1e-9, "atol": 1e-9}
    assert_close(E.linalg.solve(_on(a, device), _on(b, device)), _on(E.linalg.solve(a, b), device), **tol)
    assert_close(E.linalg.solve(_on(a[0], device), _on(v, device)), _on(E.linalg.solve(a[0], v), device), **tol)
    assert_close(E.linalg.inv(_on(a, device)), _on(E.linalg.inv(a), device), **tol)
    assert_close(E.linalg.det(_on(a, device)), _on(E.linalg.det(a), device), **tol)
    for got, want in zip(E.linalg.slogdet(_on(a, device)), E.linalg.slogdet(a), strict=True):
        assert_close(got, _on(want, device), **tol)
    s = _spd(4, 23)
    assert_close(E.linalg.cholesky(_on(s, device)), _on(E.linalg.cholesky(s), device), **tol)
    assert_close(E.linalg.cholesky(_on(s, device), upper=True), _on(E.linalg.cholesky(s, upper=True), device), **tol)


@pytest.mark.parametrize("device", DEVICES)
def test_singular_and_indefinite_inputs_raise(device):
    sing = _on(E.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=E.float64), device)
    with pytest.raises(RuntimeError, match="singular"):
        E.linalg.inv(sing)
    with pytest.raises(RuntimeError, match="singular"):
        E.linalg.solve(sing, _on(E.ones(2, dtype=E.float64), device))
    with pytest.raises(RuntimeError, match="positive-definite"):
        E.linalg.cholesky(_on(E.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=E.float64), device))
    assert E.linalg.det(sing).item() == 0.0


@pytest.mark.parametrize("device", DEVICES)
def test_cholesky_reads_one_triangle_and_ex_gives_the_partial_factor(device):
    g = E.tensor([[4.0, 2.0], [99.0, 3.0]], dtype=E.float64)
    assert_close(E.linalg.cholesky(_on(g, device), upper=True), _on(E.tensor([[2.0, 1.0], [0.0, 2 ** 0.5]],
                                                                             dtype=E.float64), device))
    L, info = E.linalg.cholesky_ex(_on(E.tensor([[4.0, 2, 1], [2, 1, 3], [1, 3, 5]], dtype=E.float64), device))
    assert info.item() == 2 and L.device.type == device
    assert_close(L, _on(E.tensor([[2.0, 0, 0], [1, 0, 0], [0.5, 3, 5]], dtype=E.float64), device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
def test_qr_matches_lapack(shape, device):
    a = make_tensor(*shape, dtype=E.float64, seed=24)
    for mode in ("reduced", "complete", "r"):
        want, got = E.linalg.qr(a, mode), E.linalg.qr(_on(a, device), mode)
        for g, w in zip(got, want, strict=True):
            assert_close(g, _on(w, device), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("device", DEVICES)
def test_eigh_and_svd_decompose_their_input(device):
    s = _spd(4, 25)
    w, v = E.linalg.eigh(_on(s, device))
    assert_close(w, _on(E.linalg.eigh(s)[0], device), rtol=1e-9, atol=1e-9)
    assert_close(v @ E.diag_embed(w) @ v.mT, _on(s, device), rtol=1e-9, atol=1e-9)
    assert_close(v.mT @ v, _on(E.eye(4, dtype=E.float64), device), rtol=1e-9, atol=1e-9)
    for shape in ((3, 3), (4, 2), (2, 3)):
        a = make_tensor(*shape, dtype=E.float64, seed=26)
        u, sv, vh = E.linalg.svd(_on(a, device), full_matrices=False)
        assert_close(sv, _on(E.linalg.svd(a, full_matrices=False)[1], device), rtol=1e-8, atol=1e-8)
        assert_close(u @ E.diag_embed(sv) @ vh, _on(a, device), rtol=1e-8, atol=1e-8)


_EMPTY = [("cholesky", lambda L, c: L.cholesky(c(0, 0, 0))), ("inv", lambda L, c: L.inv(c(2, 3, 0, 0))),
          ("det", lambda L, c: L.det(c(2, 0, 0))), ("slogdet", lambda L, c: L.slogdet(c(2, 0, 0))),
          ("solve", lambda L, c: L.solve(c(3, 0, 0), c(3, 0, 2))),
          ("solve_batch0", lambda L, c: L.solve(c(0, 2, 2), c(0, 2, 1))),
          ("qr_wide", lambda L, c: L.qr(c(2, 0, 3))), ("qr_tall", lambda L, c: L.qr(c(2, 3, 0))),
          ("eigh", lambda L, c: L.eigh(c(0, 0))), ("svd", lambda L, c: L.svd(c(2, 0, 0), full_matrices=False)),
          ("pinv", lambda L, c: L.pinv(c(2, 3, 2, 0))), ("lstsq", lambda L, c: L.lstsq(c(1, 0), c(1, 0)).solution)]


@pytest.mark.parametrize(("name", "call"), _EMPTY, ids=[n for n, _ in _EMPTY])
def test_empty_matrices_and_batches_give_the_cpus_results(name, call):
    """A reshape to `(-1, m, n)` cannot infer the batch of empty matrices: found by the fuzz campaign's
    conv/pool/loss/linalg families run with --cuda."""
    want = call(E.linalg, lambda *s: E.zeros(*s, dtype=E.float64))
    got = call(E.linalg, lambda *s: E.zeros(*s, dtype=E.float64, device="cuda"))
    both = [r if isinstance(r, tuple) else (r,) for r in (got, want)]
    for g, w in zip(*both, strict=True):
        assert g.device.type == "cuda" and g.shape == w.shape and g.dtype == w.dtype
        assert_close(g.cpu(), w)


def test_qr_of_huge_entries_stays_finite():
    """The Householder norms are taken over the column's largest entry: squares of 1e30 overflowed
    float32 and gave NaN where LAPACK's QR is finite (found by the fuzz families with --cuda)."""
    a = make_tensor(2, 4, 4, dtype=E.float32, seed=30)
    a[0, 1, 2], a[1, 0, 0], a[1, 3, 1] = 1e30, -1e30, 1e-30
    q, r = E.linalg.qr(a)
    qc, rc = E.linalg.qr(a.to("cuda"))
    assert bool(E.isfinite(qc).all()) and bool(E.isfinite(rc).all())
    assert_close(qc.cpu(), q, rtol=0, atol=1e-5)
    assert_close(rc.cpu(), r, rtol=1e-5, atol=1e24)  # rounding on the 1e30 scale of those columns


@pytest.mark.parametrize("device", DEVICES)
def test_int_mm_matches_int32_accumulation_on_both_devices(device):
    a = E.tensor([[127, -128, 5], [1, 2, 3]], dtype=E.int8)
    b = E.tensor([[-128, 1], [127, 2], [-1, 3]], dtype=E.int8)
    r = E._int_mm(_on(a, device), _on(b, device))
    assert r.dtype is E.int32 and r.device.type == device
    assert r.cpu().tolist() == [[-32517, -114], [123, 14]]
