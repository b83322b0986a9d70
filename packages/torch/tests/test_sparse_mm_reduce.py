"""`torch.sparse.mm(csr, dense, reduce)`: each row's stored products reduced, against a numpy float64 reference."""

import numpy as np
import pytest

import ember.torch as torch


def _reference(d: np.ndarray, w: np.ndarray, reduce: str) -> np.ndarray:
    out = np.zeros((d.shape[0], w.shape[1]))
    for i, row in enumerate(d):
        prods = [row[j] * w[j] for j in np.flatnonzero(row)]
        if prods:
            out[i] = {"mean": np.mean, "amax": np.max, "amin": np.min}[reduce](prods, axis=0)
    return out


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("reduce, name", [("mean", "mean"), ("amax", "amax"), ("max", "amax"), ("amin", "amin"),
                                          ("min", "amin")])
def test_csr_product_reduces_each_rows_stored_products(reduce, name):
    rng = np.random.default_rng(0)
    d = rng.standard_normal((4, 5)) * (rng.random((4, 5)) < 0.6)
    d[1] = 0.0  # an empty row gives 0
    w = rng.standard_normal((5, 3))
    got = torch.sparse.mm(torch.tensor(d).to_sparse_csr(), torch.tensor(w), reduce)
    np.testing.assert_allclose(got.numpy(), _reference(d, w, name), rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_mean_reduction_differentiates_the_dense_operand():
    d = np.array([[2.0, 0.0], [1.0, 3.0]])
    w = torch.ones(2, 1, dtype=torch.float64, requires_grad=True)
    torch.sparse.mm(torch.tensor(d).to_sparse_csr(), w, "mean").sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [[2.0 + 0.5], [1.5]])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_reductions_pytorch_refuses():
    csr, w = torch.eye(2).to_sparse_csr(), torch.ones(2, 2)
    with pytest.raises(RuntimeError, match="^sparse_mm_reduce: reduce type of prod has not been enabled.$"):
        torch.sparse.mm(csr, w, "prod")
    with pytest.raises(RuntimeError, match="^reduce argument must be either sum, prod, mean, amax or amin, got foo$"):
        torch.sparse.mm(csr, w, "foo")
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::_sparse_mm_reduce_impl' with arguments "
                                                  "from the 'SparseCPU' backend"):
        torch.sparse.mm(torch.eye(2).to_sparse(), w, "mean")
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::_sparse_mm_reduce_impl'"):
        torch.sparse.mm(torch.eye(2).to_sparse(), w, "sum")  # an explicit reduce, even "sum", is the other overload
    assert torch.sparse.mm(torch.eye(2).to_sparse(), w).tolist() == [[1.0, 1.0], [1.0, 1.0]]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "min"])
def test_every_reduction_records_pytorchs_one_node(reduce):
    v = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    csr = torch.sparse_csr_tensor([0, 2, 3], [0, 1, 1], v, (2, 2))
    w = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
    out = torch.sparse.mm(csr, w, reduce)
    assert type(out.grad_fn).__name__ == "SparseMmReduceImplBackward0"
    out.sum().backward()
    assert v.grad is not None and w.grad is not None
