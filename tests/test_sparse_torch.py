"""`torch.sparse` through `ember.torch`: the namespace, serialization, and a GCN that trains like PyTorch's
(against PyTorch where installed, against dense numpy otherwise)."""

import io

import numpy as np
import pytest

import ember.torch as etorch

N, F, H, C = 30, 8, 16, 3


def _graph(seed=0):
    """A random undirected graph's normalized adjacency D^-1/2 (A + I) D^-1/2 in COO, features, labels."""
    rng = np.random.default_rng(seed)
    a = (rng.random((N, N)) < 0.1).astype(np.float64)
    a = np.maximum(a, a.T) + np.eye(N)
    a = np.minimum(a, 1.0)
    d = 1.0 / np.sqrt(a.sum(1))
    norm = a * d[:, None] * d[None, :]
    rows, cols = np.nonzero(norm)
    return (np.stack([rows, cols]), norm[rows, cols].astype(np.float32), rng.standard_normal((N, F)).astype(np.float32),
            rng.integers(0, C, N), norm.astype(np.float32))


def _weights(seed=1):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((F, H)).astype(np.float32) * 0.3, rng.standard_normal((H, C)).astype(np.float32) * 0.3)


def _train(torch, spmm, steps=15):
    """The GCN of Kipf & Welling, as a PyTorch program: losses of `steps` SGD steps."""
    idx, vals, x, y, _ = _graph()
    adj = torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals), (N, N)).coalesce()
    w1, w2 = (torch.tensor(w, requires_grad=True) for w in _weights())
    feats, labels = torch.tensor(x), torch.tensor(y)
    opt = torch.optim.SGD([w1, w2], lr=0.5)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        h = torch.relu(spmm(adj, feats @ w1))
        out = torch.log_softmax(spmm(adj, h @ w2), dim=1)
        loss = torch.nn.functional.nll_loss(out, labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


SPMMS = {"sparse.mm": lambda t: t.sparse.mm, "spmm": lambda t: t.spmm, "mm": lambda t: t.mm,
         "matmul": lambda t: t.matmul, "@": lambda t: (lambda a, b: a @ b)}


@pytest.mark.parametrize("name", list(SPMMS))
def test_gcn_trains_like_pytorch(name):
    torch = pytest.importorskip("torch")
    ours = _train(etorch, SPMMS[name](etorch))
    theirs = _train(torch, SPMMS[name](torch))
    np.testing.assert_allclose(ours, theirs, rtol=2e-5)
    assert ours[-1] < ours[0]


def test_gcn_first_step_against_dense_numpy():
    idx, vals, x, y, norm = _graph()
    w1, w2 = _weights()
    h = np.maximum(norm @ (x @ w1), 0)
    z = norm @ (h @ w2)
    z = z - z.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    expected = -logp[np.arange(N), y].mean()
    assert _train(etorch, etorch.sparse.mm, steps=1)[0] == pytest.approx(expected, rel=1e-5)


def test_namespace():
    s = etorch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    assert s.layout is etorch.sparse_coo and isinstance(s, etorch.Tensor)
    assert s.to_sparse_csr().layout is etorch.sparse_csr
    np.testing.assert_array_equal(etorch.sparse.sum(s, 0).to_dense().numpy(), [2.0, 1.0])
    np.testing.assert_array_equal(etorch.sparse.addmm(etorch.ones(2, 1), s, etorch.ones(2, 1), beta=2).numpy(),
                                  [[3.0], [4.0]])
    np.testing.assert_array_equal(etorch.addmm(etorch.ones(2, 1), s, etorch.ones(2, 1)).numpy(), [[2.0], [3.0]])
    assert etorch.smm(s, etorch.ones(2, 1)).is_sparse and etorch.hspmm(s, etorch.ones(2, 1)).sparse_dim() == 1
    assert etorch.sspaddmm(s, s, etorch.eye(2)).to_dense().tolist() == [[0.0, 2.0], [4.0, 0.0]]
    with etorch.sparse.check_sparse_tensor_invariants():
        assert etorch.sparse.check_sparse_tensor_invariants.is_enabled()


@pytest.mark.parametrize("coalesced", [False, True])
def test_save_load_round_trip(coalesced):
    s = etorch.sparse_coo_tensor([[0, 1, 1], [2, 0, 0]], [1.0, 2.0, 3.0], (2, 3))
    s = s.coalesce() if coalesced else s
    c = s.to_sparse_csr()
    buf = io.BytesIO()
    etorch.save({"coo": s, "csr": [c], "csc": s.to_sparse_csc()}, buf)
    buf.seek(0)
    back = etorch.load(buf)
    assert back["coo"].is_coalesced() is coalesced and back["csr"][0].layout is etorch.sparse_csr
    assert back["csc"].layout is etorch.sparse_csc
    np.testing.assert_array_equal(back["csc"].ccol_indices().numpy(), s.to_sparse_csc().ccol_indices().numpy())
    np.testing.assert_array_equal(back["csc"].to_dense().numpy(), s.to_dense().numpy())
    np.testing.assert_array_equal(back["coo"]._indices().numpy(), s._indices().numpy())
    np.testing.assert_array_equal(back["coo"].to_dense().numpy(), s.to_dense().numpy())
    np.testing.assert_array_equal(back["csr"][0].to_dense().numpy(), s.to_dense().numpy())


def test_load_validates_sparse_indices():
    from ember.autograd.checkpoint_io import CheckpointError
    from ember.core.sparse import SparseTensor

    forged = SparseTensor._coo(etorch.tensor([[0, 5]]), etorch.tensor([1.0, 2.0]), (2,), False)  # index 5 of 2
    buf = io.BytesIO()
    etorch.save(forged, buf)
    buf.seek(0)
    with pytest.raises(CheckpointError, match="size is inconsistent with indices: for dim 0, size is 2 but found "
                                              "index 5"):
        etorch.load(buf)


class Holder(etorch.nn.Module):
    def __init__(self):
        super().__init__()
        self.adj = etorch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))


def test_pickled_module_with_sparse_buffer():
    buf = io.BytesIO()
    etorch.save(Holder(), buf)
    buf.seek(0)
    np.testing.assert_array_equal(etorch.load(buf, weights_only=False).adj.to_dense().numpy(), [[0, 1], [2, 0]])
    buf.seek(0)
    with etorch.serialization.safe_globals([Holder]):  # the sparse rebuild itself needs no allowlisting
        np.testing.assert_array_equal(etorch.load(buf).adj.to_dense().numpy(), [[0, 1], [2, 0]])


def test_repr_matches_pytorch():
    torch = pytest.importorskip("torch")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make in (lambda t: t.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3)),
                     lambda t: t.sparse_coo_tensor([[0, 1]], t.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=t.float64)),
                     lambda t: t.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_csr()):
            ours = repr(make(etorch)).replace("ember.", "torch.")
            assert ours == repr(make(torch))


def test_legacy_sparse_constructors_of_pygcn():
    """Kipf's pygcn builds its adjacency with the deprecated `torch.sparse.FloatTensor(indices, values, shape)`."""
    i = etorch.tensor([[0, 1], [1, 0]])
    with pytest.warns(UserWarning, match="is deprecated.  Please use torch.sparse_coo_tensor"):
        s = etorch.sparse.FloatTensor(i, etorch.tensor([1, 2]), etorch.Size([2, 2]))
    assert s.dtype is etorch.float32 and isinstance(s, etorch.sparse.FloatTensor)
    assert not isinstance(s, etorch.sparse.DoubleTensor) and not isinstance(etorch.ones(2), etorch.sparse.FloatTensor)
    with pytest.warns(UserWarning):
        empty = etorch.sparse.DoubleTensor(2, 3)
    assert tuple(empty.shape) == (2, 3) and empty._nnz() == 0 and empty.dtype is etorch.float64


def test_spdiags_like_scipy():
    import scipy.sparse as sp

    data = np.arange(1.0, 13.0).reshape(3, 4)
    offsets = [0, -1, 2]
    got = etorch.sparse.spdiags(etorch.tensor(data), etorch.tensor(offsets), (4, 5))
    np.testing.assert_array_equal(got.to_dense().numpy(), sp.spdiags(data, offsets, 4, 5).toarray())
    assert etorch.sparse.spdiags(etorch.tensor(data), etorch.tensor(offsets), (4, 5),
                                 layout=etorch.sparse_csr).layout is etorch.sparse_csr


def test_sampled_addmm_against_dense():
    rng = np.random.default_rng(0)
    mask = rng.random((4, 5)) < 0.5
    base = np.where(mask, rng.standard_normal((4, 5)), 0.0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    m1 = etorch.tensor(a, requires_grad=True)
    got = etorch.sparse.sampled_addmm(etorch.tensor(base).to_sparse_csr(), m1, etorch.tensor(b), beta=0.5, alpha=2.0)
    assert got.layout is etorch.sparse_csr
    np.testing.assert_allclose(got.to_dense().detach().numpy(), np.where(mask, 0.5 * base + 2.0 * a @ b, 0.0))
    got.to_dense().sum().backward()
    np.testing.assert_allclose(m1.grad.numpy(), 2.0 * mask.astype(float) @ b.T)


class WithAdjacency(etorch.nn.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        self.register_buffer("adj", etorch.sparse_coo_tensor([[0, 1], [1, 0]], [scale, 2 * scale], (2, 2)))


def test_state_dict_with_a_sparse_buffer_round_trips():
    src, dst = WithAdjacency(3.0), WithAdjacency()
    state = src.state_dict()
    assert state["adj"].layout is etorch.sparse_coo
    buf = io.BytesIO()
    etorch.save(state, buf)
    buf.seek(0)
    dst.load_state_dict(etorch.load(buf))
    np.testing.assert_array_equal(dst.adj.to_dense().numpy(), [[0.0, 3.0], [6.0, 0.0]])
    assert dst.double().adj.dtype is etorch.float64


def test_as_sparse_gradcheck_checks_through_the_values():
    a = etorch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], etorch.tensor([1.0, 2.0, 3.0], dtype=etorch.float64), (2, 3),
                                 requires_grad=True)
    x = etorch.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    check = etorch.sparse.as_sparse_gradcheck(etorch.autograd.gradcheck)
    assert check(lambda s, d: etorch.sparse.mm(s, d), (a, x))
    assert check(lambda s: s * 3, (a,))


@pytest.mark.parametrize("call", ["mm", "matmul", "@", "addmm", "mv", "dense @ sparse", "csr @"])
def test_mm_of_a_sparse_operand_gives_the_dense_gradient(call):
    """torch.mm/matmul/@/addmm differentiate a sparse operand as the dense product (PyTorch's grad @ X^T), reaching
    the dense tensor it came from whole; torch.sparse.mm samples it at the pattern."""
    w0 = np.array([[0.0, 2.0], [3.0, 0.0]])
    x = np.array([[1.0, -2.0, 0.5], [4.0, 3.0, -1.0]])
    w = etorch.tensor(w0, requires_grad=True)
    s, X = w.to_sparse(), etorch.tensor(x)
    out = {"mm": lambda: etorch.mm(s, X), "matmul": lambda: etorch.matmul(s, X), "@": lambda: s @ X,
           "addmm": lambda: etorch.addmm(etorch.zeros(2, 3, dtype=etorch.float64), s, X),
           "mv": lambda: etorch.matmul(s, X[:, 0]), "dense @ sparse": lambda: X.t() @ s,
           "csr @": lambda: w.to_sparse_csr() @ X}[call]()
    weights = np.arange(out.numel(), dtype=np.float64).reshape(out.shape) + 1
    (out * etorch.tensor(weights)).sum().backward()
    if call == "mv":
        expected, value = np.outer(weights, x[:, 0]), w0 @ x[:, 0]
    elif call == "dense @ sparse":
        expected, value = x @ weights, x.T @ w0
    else:
        expected, value = weights @ x.T, w0 @ x
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(out.detach().numpy(), value, rtol=1e-12)
    node = {"addmm": "AddmmBackward0", "mv": "MvBackward0"}.get(call, "MmBackward0")  # PyTorch 2.13's
    assert type(out.grad_fn).__name__ == node


def test_sparse_leaf_grad_is_dense_after_mm_and_sparse_after_sparse_mm():
    s = etorch.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse().requires_grad_()
    etorch.sparse.mm(s, etorch.ones(2, 3)).sum().backward()
    assert s.grad.layout is etorch.sparse_coo
    np.testing.assert_allclose(s.grad.to_dense().numpy(), [[0.0, 3.0], [3.0, 0.0]])
    etorch.mm(s, etorch.ones(2, 3)).sum().backward()  # PyTorch's sum of the two: dense
    assert s.grad.layout is etorch.strided
    np.testing.assert_allclose(s.grad.numpy(), [[3.0, 6.0], [6.0, 3.0]])
    assert type(etorch.mm(s, etorch.ones(2, 3)).grad_fn).__name__ == "MmBackward0"
    s.grad = None
    assert s.grad is None
    w = etorch.tensor([[0.0, 2.0], [3.0, 0.0]], requires_grad=True)
    etorch.sparse.mm(w.to_sparse(), etorch.ones(2, 2)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [[0.0, 2.0], [2.0, 0.0]])
