"""`addmm(input, mat1, mat2)` of float32/float64 CPU operands, where autograd alone watches, is computed at once and
recorded as PyTorch's one AddmmBackward0 (NOTE [ One node computed outside dispatch ]): the same values and gradients
as the dispatched composite's, PyTorch's graph, and the composite whenever anything else is asked for."""

import numpy as np
import pytest

import ember.autograd as ea
from ember.core.testing import watching
from ember.core.ops import linalg


@pytest.fixture
def direct(monkeypatch):
    """How often `addmm` computed at once."""
    n = [0]
    real = linalg._addmm_direct

    def counted(*args):
        r = real(*args)
        n[0] += r is not None
        return r

    monkeypatch.setattr(linalg, "_addmm_direct", counted)
    return n


def _names(node) -> list:
    return [None if f is None else type(f).__name__ for f, _ in node.next_functions]


def _grads(inputs, gy, transpose_mat2):
    for t in inputs:
        t.grad = None
    m2 = inputs[2].t() if transpose_mat2 else inputs[2]
    y = ea.addmm(inputs[0], inputs[1], m2)
    y.backward(gy)
    return y.detach().numpy(), [None if t.grad is None else t.grad.numpy() for t in inputs]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("input_shape", ["row", "full"])
@pytest.mark.parametrize("transpose_mat2", [False, True])
@pytest.mark.parametrize("grads", [(True, True, True), (False, True, False), (True, False, False)])
def test_values_and_gradients_match_the_dispatched_composite(direct, dt, input_shape, transpose_mat2, grads):
    rng = np.random.default_rng(5)
    n, k, m = 6, 5, 7
    b = rng.standard_normal((m,) if input_shape == "row" else (n, m)).astype(dt)
    x = rng.standard_normal((n, k)).astype(dt)
    w = rng.standard_normal((m, k) if transpose_mat2 else (k, m)).astype(dt)
    inputs = [ea.tensor(a, requires_grad=g) for a, g in zip((b, x, w), grads)]
    gy = ea.tensor(rng.standard_normal((n, m)).astype(dt))
    y, got = _grads(inputs, gy, transpose_mat2)
    assert direct[0] == 1
    with watching():
        y_ref, want = _grads(inputs, gy, transpose_mat2)
    assert direct[0] == 1
    assert np.array_equal(y, y_ref)
    for g, r in zip(got, want):
        assert (g is None) == (r is None) and (g is None or np.array_equal(g, r))
    w2 = w.T if transpose_mat2 else w
    tol = {"rtol": 1e-5, "atol": 1e-5} if dt == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    x64, w64, g64 = x.astype(np.float64), w2.astype(np.float64), gy.numpy().astype(np.float64)
    np.testing.assert_allclose(y, b + x64 @ w64, **tol)
    refs = (g64 if b.ndim == 2 else g64.sum(0), g64 @ w64.T, x64.T @ g64)
    for g, r in zip(got, refs[:2]):
        if g is not None:
            np.testing.assert_allclose(g, r, **tol)
    if got[2] is not None:
        np.testing.assert_allclose(got[2], refs[2].T if transpose_mat2 else refs[2], **tol)


def test_graph_is_pytorchs(direct):
    b, x, w = ea.randn(5, requires_grad=True), ea.randn(3, 4), ea.randn(4, 5, requires_grad=True)
    y = ea.addmm(b, x, w)
    assert type(y.grad_fn).__name__ == "AddmmBackward0" and _names(y.grad_fn) == ["AccumulateGrad", None,
                                                                                  "AccumulateGrad"]
    fn = y.grad_fn
    assert fn._saved_mat1 is x and fn._saved_mat2 is None and fn._saved_alpha == 1 and fn._saved_beta == 1
    y = ea.addmm(b, x.requires_grad_(), w.t().t())
    assert _names(y.grad_fn) == ["AccumulateGrad", "AccumulateGrad", "TBackward0"]
    assert direct[0] == 2


def test_composite_where_not_plain(direct):
    b, x, w = ea.randn(5, requires_grad=True), ea.randn(3, 4), ea.randn(4, 5)
    y = ea.addmm(b, x, w, beta=2)  # scaled: the composite (its bits and graph)
    np.testing.assert_allclose(y.detach().numpy(), 2 * b.detach().numpy() + x.numpy() @ w.numpy(), rtol=1e-5)
    ea.addmm(b, x, w, alpha=True)
    ea.addmm(ea.randn(1, 5), x, w)  # an input broadcast along rows too
    out = ea.empty(3, 5, dtype=ea.float64)
    ea.addmm(b.detach().double(), x.double(), w.double(), out=out)
    with pytest.raises(RuntimeError, match=r"^addmm\(\): functions with out=\.\.\. arguments don't support automatic "
                       "differentiation, but one of the arguments requires grad."):
        ea.addmm(b.double(), x.double(), w.double(), out=out)
    assert ea.addmm(b.detach().half(), x.half(), w.half()).dtype == ea.float16
    assert direct[0] == 0
    with ea.no_grad():
        y = ea.addmm(b, x, w)
    assert direct[0] == 1 and y.grad_fn is None and not y.requires_grad


def test_errors_unchanged(direct):
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x5\)"):
        ea.addmm(ea.randn(5), ea.randn(3, 4), ea.randn(5, 5))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype|same dtype"):
        ea.addmm(ea.randn(5), ea.randn(3, 4, dtype=ea.float64), ea.randn(4, 5))
    with pytest.raises(RuntimeError, match="mat1 must be a matrix, got 1-D tensor"):
        ea.addmm(ea.randn(5), ea.randn(4), ea.randn(4, 5))
    assert direct[0] == 0


def test_double_backward():
    b, x, w = (ea.randn(*s, dtype=ea.float64, requires_grad=True) for s in ((2,), (3, 4), (4, 2)))
    assert ea.autograd.gradcheck(ea.addmm, (b, x, w))
    assert ea.autograd.gradgradcheck(ea.addmm, (b, x, w))


@pytest.mark.parametrize("name,shapes", [("addmm", ((3, 5), (3, 4), (4, 5))), ("addmv", ((3,), (3, 4), (4,))),
                                         ("baddbmm", ((2, 3, 5), (2, 3, 4), (2, 4, 5))),
                                         ("addbmm", ((3, 5), (2, 3, 4), (2, 4, 5))), ("addr", ((3, 5), (3,), (5,)))])
def test_out_refused_with_grad_in_the_ops_words_and_in_place_recorded(name, shapes):
    a, b, c = (ea.randn(*s) for s in shapes)
    with pytest.raises(RuntimeError, match=rf"^{name}\(\): functions with out=\.\.\. arguments don't support "
                       "automatic differentiation, but one of the arguments requires grad."):
        getattr(ea, name)(a.requires_grad_(), b, c, out=ea.empty(*shapes[0]))
    y = a.clone()  # in place (`out` is `input`): recorded, as PyTorch
    getattr(y, name + "_")(b, c)
    assert type(y.grad_fn).__name__ == name.capitalize() + "Backward0"
    (g,) = ea.autograd.grad(y.sum(), a)
    np.testing.assert_array_equal(g.numpy(), np.ones(shapes[0], np.float32))


def test_sparse_operand_takes_the_composite(direct):
    s = ea.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    for bias in (ea.ones(2, 1), ea.ones(2, 1, requires_grad=True)):
        np.testing.assert_array_equal(ea.addmm(bias, s, ea.ones(2, 1)).detach().numpy(), [[2.0], [3.0]])
    assert direct[0] == 0
