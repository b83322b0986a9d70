"""Gradients through sparse tensors: the product's against the dense product's and finite differences,
to_dense, coalesce and the constructor's (to the values)."""

import numpy as np
import pytest

import ember.autograd as torch
from ember.autograd import gradcheck

IDX = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]  # (0, 2) twice


def _pair(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(5), rng.standard_normal((3, 4))


@pytest.mark.parametrize("call", ["sparse.mm", "mm", "matmul", "@"])
def test_mm_grads_match_dense_product(call):
    v, x = _pair()
    A = torch.sparse_coo_tensor(IDX, torch.tensor(v), (3, 3), requires_grad=True)
    X = torch.tensor(x, requires_grad=True)
    from ember.core.sparse_ops import sparse_mm

    fn = {"sparse.mm": sparse_mm, "mm": torch.mm, "matmul": torch.matmul, "@": lambda a, b: a @ b}[call]
    y = fn(A, X)
    w = torch.tensor(np.arange(12.0).reshape(3, 4))
    (y * w).sum().backward()
    D = torch.tensor(A.to_dense().detach().numpy(), requires_grad=True)
    X2 = torch.tensor(x, requires_grad=True)
    (D @ X2 * w).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), (D @ X2).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(X.grad.numpy(), X2.grad.numpy(), rtol=1e-12)
    g = A.grad
    if call != "sparse.mm":  # torch.mm's gradient is the dense product's, as PyTorch's
        assert g.layout is torch.strided
        np.testing.assert_allclose(g.numpy(), D.grad.numpy(), rtol=1e-12)
        return
    assert g.layout is torch.sparse_coo and not g.is_coalesced()
    # A's pattern, one entry per distinct index in sorted order as PyTorch's (the duplicated (0, 2) once)
    np.testing.assert_array_equal(g._indices().numpy(), [[0, 1, 1, 2], [2, 0, 2, 1]])
    rows, cols = g._indices().numpy()
    np.testing.assert_allclose(g._values().numpy(), D.grad.numpy()[rows, cols], rtol=1e-12)
    mask = np.zeros((3, 3))
    mask[rows, cols] = 1
    np.testing.assert_allclose(g.to_dense().numpy(), D.grad.numpy() * mask, rtol=1e-12)


def test_mm_gradcheck_values_and_dense():
    v, x = _pair(1)
    vals = torch.tensor(v, requires_grad=True)
    X = torch.tensor(x, requires_grad=True)
    assert gradcheck(lambda vv, xx: torch.sparse_coo_tensor(IDX, vv, (3, 3)) @ xx, (vals, X))


def test_csr_mm_grad():
    v, x = _pair(2)
    vals = torch.tensor(v, requires_grad=True)
    X = torch.tensor(x, requires_grad=True)
    assert gradcheck(lambda vv, xx: torch.sparse_coo_tensor(IDX, vv, (3, 3)).to_sparse_csr() @ xx, (vals, X))


def test_csc_mm_and_conversions_grad():
    v, x = _pair(4)
    vals = torch.tensor(v, requires_grad=True)
    X = torch.tensor(x, requires_grad=True)
    assert gradcheck(lambda vv, xx: torch.sparse_coo_tensor(IDX, vv, (3, 3)).to_sparse_csc() @ xx, (vals, X))
    ccol, row = [0, 1, 3, 4], [1, 0, 2, 1]
    assert gradcheck(lambda vv: torch.sparse_csc_tensor(ccol, row, vv, (3, 3)).to_sparse_csr().to_dense() ** 2,
                     (torch.tensor(v[:4], requires_grad=True),))
    ones = torch.ones(2, 3, dtype=torch.float64)
    assert gradcheck(lambda vv: ones @ torch.sparse_csc_tensor(ccol, row, vv, (3, 3)),
                     (torch.tensor(v[:4], requires_grad=True),))


def test_sparse_mask_and_cat_backward():
    v, _ = _pair(5)
    mask = torch.sparse_coo_tensor(IDX, torch.ones(5, dtype=torch.float64), (3, 3))
    x = torch.tensor(np.arange(9.0).reshape(3, 3), requires_grad=True)
    assert gradcheck(lambda xx: xx.sparse_mask(mask).to_dense() ** 2, (x,))
    vals = torch.tensor(v, requires_grad=True)
    assert gradcheck(lambda vv: torch.cat([torch.sparse_coo_tensor(IDX, vv, (3, 3)),
                                           torch.sparse_coo_tensor(IDX, 2 * vv, (3, 3))], 1).to_dense(), (vals,))


def test_to_dense_and_coalesce_backward_to_values():
    v, _ = _pair(3)
    vals = torch.tensor(v, requires_grad=True)
    assert gradcheck(lambda vv: torch.sparse_coo_tensor(IDX, vv, (3, 3)).coalesce().to_dense() ** 2, (vals,))


def test_dense_to_sparse_backward_masked_like_pytorch():
    x = torch.tensor([[0.0, 2.0], [3.0, 0.0]], requires_grad=True)
    (x.to_sparse() * 3).to_dense().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 3.0], [3.0, 0.0]])  # PyTorch's: the stored positions


def test_softmax_grad():
    v, _ = _pair(4)
    vals = torch.tensor(v, requires_grad=True)
    from ember.core.sparse_ops import sparse_log_softmax

    assert gradcheck(lambda vv: sparse_log_softmax(torch.sparse_coo_tensor(IDX, vv, (3, 3)), 1).to_dense(), (vals,))


def test_leaf_flags():
    A = torch.sparse_coo_tensor(IDX, torch.ones(5), (3, 3), requires_grad=True)
    assert A.requires_grad and A.is_leaf and A.grad is None
    B = A * 2
    assert B.requires_grad and not B.is_leaf
    assert not A.detach().requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        torch.sparse_coo_tensor(IDX, torch.ones(5, dtype=torch.int64), (3, 3), requires_grad=True)


def test_dense_path_pays_nothing_for_sparse():
    """Counted work (NOTE [ Sparse tensors beside the dense path ]): `mm`'s reroute `try` adds no call to a dense
    product, and using sparse tensors installs nothing the dense ops then run through."""
    import ember.core.ops.linalg as L
    from test_op_path_budget import _count

    a = torch.ones(10, 10)
    b = torch.ones(10, 10, requires_grad=True)
    ops = {"mm": lambda: torch.mm(a, b), "matmul": lambda: torch.matmul(a, b), "add": lambda: torch.add(a, b),
           "addmm": lambda: torch.addmm(a, a, b)}
    before = {k: _count(f) for k, f in ops.items()}
    op_calls, op_c_calls = _count(lambda: L._mm(a, b, out=None))
    assert before["mm"] == (op_calls + 1, op_c_calls)  # the wrapper's frame only
    A = torch.sparse_coo_tensor(IDX, torch.ones(5), (3, 3), requires_grad=True)
    (A @ torch.ones(3, 2)).sum().backward()
    assert {k: _count(f) for k, f in ops.items()} == before


def test_node_names_are_pytorchs():
    A = torch.sparse_coo_tensor(IDX, torch.ones(5), (3, 3), requires_grad=True)
    X = torch.ones(3, 2, requires_grad=True)
    from ember.core.sparse_ops import sparse_mm

    assert type(sparse_mm(A, X).grad_fn).__name__ == "SparseAddmmBackward0"
    assert type(torch.mm(A, X).grad_fn).__name__ == "MmBackward0"
    assert type((A @ X).grad_fn).__name__ == "MmBackward0"
    assert type(A.to_dense().grad_fn).__name__ == "ToDenseBackward0"


def test_index_select_grad_reaches_the_values():
    """A row picked twice sends its values' gradient twice (PyTorch's own backward of this op is missing)."""
    v = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    o = torch.sparse_coo_tensor([[2, 0, 1, 0, 2], [0, 1, 2, 2, 1]], v, (3, 3)).index_select(0, torch.tensor([2, 2]))
    assert o.requires_grad
    (o.to_dense() * torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert v.grad.tolist() == [5.0, 0.0, 0.0, 0.0, 7.0]


def test_grad_fn_names_are_pytorchs():
    from ember.core.sparse_ops import sparse_log_softmax, sparse_softmax, sparse_sum

    v = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    s = torch.sparse_coo_tensor([[0, 1, 1, 2, 0], [1, 0, 2, 1, 1]], v, (3, 3))
    c = s.coalesce()
    names = [type(t.grad_fn).__name__ for t in (
        c, sparse_softmax(c, 1), sparse_log_softmax(c, 1), sparse_sum(s, dim=1), sparse_sum(s, dim=(0, 1)),
        c.to_dense())]
    assert names == ["CoalesceBackward0", "SparseSoftmaxBackward0", "SparseLogSoftmaxBackward0", "SparseSumBackward0",
                     "SparseSumBackward0", "ToDenseBackward0"]


def test_sparse_times_sparse_grads_match_dense_product():
    rng = np.random.default_rng(3)
    va, vb = rng.standard_normal(5), rng.standard_normal(3)
    A = torch.sparse_coo_tensor([[0, 1, 1, 2, 0], [2, 0, 2, 1, 0]], torch.tensor(va), (3, 3), requires_grad=True)
    B = torch.sparse_coo_tensor([[0, 2, 1], [0, 1, 1]], torch.tensor(vb), (3, 2), requires_grad=True)
    w = torch.tensor(np.arange(6.0).reshape(3, 2))
    P = A @ B
    assert type(P.grad_fn).__name__ == "MmBackward0"
    (P.to_dense() * w).sum().backward()
    Ad = torch.tensor(A.to_dense().detach().numpy(), requires_grad=True)
    Bd = torch.tensor(B.to_dense().detach().numpy(), requires_grad=True)
    ((Ad @ Bd) * w).sum().backward()
    np.testing.assert_allclose(A.grad.to_dense().numpy(), Ad.grad.numpy() * (A.to_dense().detach().numpy() != 0))
    np.testing.assert_allclose(B.grad.to_dense().numpy(), Bd.grad.numpy() * (B.to_dense().detach().numpy() != 0))


def test_norm_of_a_sparse_tensor_is_pytorchs_normbackward1_and_differentiates_its_values():
    x = torch.tensor([[1.0, -2.0], [0.0, 3.0]]).to_sparse().requires_grad_()
    y = torch.norm(x)
    assert type(y.grad_fn).__name__ == "NormBackward1" and type(x.norm(1).grad_fn).__name__ == "NormBackward1"
    y.backward()
    np.testing.assert_allclose(x.grad.to_dense().numpy(), np.array([[1.0, -2.0], [0.0, 3.0]]) / np.sqrt(14.0),
                               rtol=1e-6)


def test_index_and_layout_ops_record_pytorchs_nodes():
    """Ops that move only indices or layout record one node each, named as PyTorch's, and still differentiate."""
    v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = torch.sparse_coo_tensor([[0, 1, 2], [1, 0, 2]], v, (3, 3))
    d = torch.tensor([[0.0, 2.0], [3.0, 0.0]], requires_grad=True)
    csr = torch.sparse_csr_tensor([0, 1, 2], [1, 0], v[:2], (2, 2))
    names = [type(t.grad_fn).__name__ for t in (
        s, s.t(), s.transpose(0, 1), s.T, s.permute(1, 0), s.coalesce().values(), s + s, s - s,
        s.coalesce().to_sparse_csr(), s.coalesce().to_sparse_csc(), csr, csr.t(), csr.to_sparse_coo(),
        d.to_sparse(), d.to_sparse(1))]
    assert names == ["SparseCooTensorWithDimsAndTensorsBackward0", "TBackward0", "TransposeBackward0",
                     "PermuteBackward0", "PermuteBackward0", "ValuesBackward0", "AddBackward0", "SubBackward0",
                     "ToSparseCsrBackward0", "ToSparseCscBackward0", "SparseCompressedTensorBackward0", "TBackward0",
                     "ToSparseBackward1", "ToSparseBackward1", "ToSparseBackward0"]
    assert not s.is_leaf and s.t().requires_grad
    (s.t().to_dense() * torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])).sum().backward()
    assert v.grad.tolist() == [4.0, 2.0, 9.0]


def test_private_values_are_outside_the_graph():
    """`_values()` aliases the values without a node (PyTorch's): no grad, the same memory."""
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    raw = torch.sparse_coo_tensor([[0, 1]], v, (2,))._values()
    assert not raw.requires_grad and raw.grad_fn is None
    with torch.no_grad():
        v[0] = 5.0
    assert raw.tolist() == [5.0, 2.0]


def test_in_place_write_into_a_sparse_leaf_that_requires_grad_is_refused_under_grad_mode():
    # PyTorch 2.13 refuses add_/sub_/zero_ (as mul_, abs_ ...) on a sparse leaf outside no_grad
    def leaf():
        s = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1.0, -2.0]), (2, 2)).coalesce()
        return s.requires_grad_()

    other = leaf().detach()
    for write in (lambda p: p.add_(other), lambda p: p.sub_(other), lambda p: p.zero_(), lambda p: p.mul_(2)):
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place "
                                               "operation.$"):
            write(leaf())
    p = leaf()
    with torch.no_grad():
        p.add_(other)
    assert p.to_dense().tolist() == [[0.0, 2.0], [-4.0, 0.0]] and p.requires_grad and p.grad_fn is None


def test_gather_sparse_grad_is_pytorchs_uncoalesced_coo():
    """PyTorch's _gather_sparse_backward: one entry per gathered element, its coordinates with dim's replaced."""
    w = torch.zeros(5, 3, requires_grad=True)
    y = w.gather(0, torch.tensor([[0, 1, 0], [4, 4, 4]]), sparse_grad=True)
    assert y.grad_fn.name() == "GatherBackward0"
    (y * torch.arange(6.0).view(2, 3)).sum().backward()
    g = w.grad
    assert g.layout is torch.sparse_coo and not g.is_coalesced()
    np.testing.assert_array_equal(g._indices().numpy(), [[0, 1, 0, 4, 4, 4], [0, 1, 2, 0, 1, 2]])
    np.testing.assert_array_equal(g._values().numpy(), np.arange(6.0))
    dense = np.zeros((5, 3))
    np.add.at(dense, ([0, 1, 0, 4, 4, 4], [0, 1, 2, 0, 1, 2]), np.arange(6.0))
    np.testing.assert_array_equal(g.to_dense().numpy(), dense)


def test_gather_sparse_grad_along_last_dim_and_single_entry():
    w = torch.zeros(2, 3, requires_grad=True)
    torch.gather(w, 1, torch.tensor([[2], [0]]), sparse_grad=True).sum().backward()
    np.testing.assert_array_equal(w.grad._indices().numpy(), [[0, 1], [2, 0]])
    v = torch.zeros(3, requires_grad=True)
    v.gather(0, torch.tensor(1), sparse_grad=True).sum().backward()
    assert v.grad.is_coalesced() and v.grad._indices().tolist() == [[1]] and v.grad._values().tolist() == [1.0]


def test_values_of_a_sparse_tensor_is_an_alias_with_its_own_grad_flag():
    # PyTorch's values() is a view: requiring grad on it leaves the sparse tensor alone
    s = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1.0, 2.0]), (2, 2)).coalesce()
    a = s.values()
    assert a is not s.values() and a._base is not None
    a.requires_grad_()
    assert a.requires_grad and not s.requires_grad
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used"):
        a.mul_(2)
