"""`nn.Parameter(sparse)`: as PyTorch's, the Parameter keeps the sparse layout (indices and values shared), its
gradient is sparse, SGD steps it in place as a sparse tensor, and a checkpoint loads it back as a Parameter."""

import io

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim
from ember.core.sparse_ops import sparse_mm

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled")

IDX = [[0, 1, 2], [1, 0, 2]]
VAL = [1.0, 2.0, 3.0]


def _param() -> nn.Parameter:
    return nn.Parameter(torch.sparse_coo_tensor(IDX, torch.tensor(VAL, dtype=torch.float64), (3, 3)))


def test_parameter_of_a_sparse_tensor_keeps_its_layout():
    s = torch.sparse_coo_tensor(IDX, torch.tensor(VAL, dtype=torch.float64), (3, 3))
    p = nn.Parameter(s)
    assert isinstance(p, nn.Parameter) and type(p).__name__ == "Parameter"
    assert p.is_sparse and p.layout is torch.sparse_coo and p._nnz() == 3 and p.requires_grad and p.is_leaf
    assert repr(p).startswith("Parameter containing:\ntensor(indices=tensor([[0, 1, 2],")
    assert repr(p).endswith("layout=ember.sparse_coo,\n       requires_grad=True)")
    s._values().mul_(2)  # shared values, as PyTorch's
    np.testing.assert_array_equal(p._values().detach().numpy(), np.multiply(VAL, 2))
    assert not nn.Parameter(s.to_sparse_csr(), requires_grad=False).requires_grad


def test_sgd_steps_a_sparse_parameter_with_its_sparse_gradient():
    p = _param()
    x = np.arange(6.0).reshape(3, 2)
    opt = optim.SGD([p], lr=0.1)
    w = np.zeros((3, 3))
    w[IDX[0], IDX[1]] = VAL
    for _ in range(3):
        opt.zero_grad()
        (sparse_mm(p, torch.tensor(x)) ** 2).sum().backward()
        assert p.grad.is_sparse
        opt.step()
        g = 2 * (w @ x) @ x.T  # d/dW sum((W x)^2), read at the stored entries
        w[IDX[0], IDX[1]] -= 0.1 * g[IDX[0], IDX[1]]
    np.testing.assert_allclose(p.to_dense().detach().numpy(), w)
    assert p.is_sparse and p.requires_grad and p.is_leaf and p._nnz() == 3


def test_a_saved_sparse_parameter_loads_as_a_parameter():
    buf = io.BytesIO()
    torch.save({"p": _param()}, buf)
    buf.seek(0)
    q = torch.load(buf)["p"]
    assert isinstance(q, nn.Parameter) and q.is_sparse and q.requires_grad
    np.testing.assert_array_equal(q.to_dense().detach().numpy()[IDX[0], IDX[1]], VAL)


def test_deepcopy_of_a_sparse_parameter_fails_as_pytorchs():
    # PyTorch 2.13's Parameter.__deepcopy__ clones with preserve_format, which its sparse clone refuses
    import copy

    s = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1.0, 2.0]), (2, 2))
    with pytest.raises(RuntimeError, match="^unsupported memory format option Preserve$"):
        copy.deepcopy(nn.Parameter(s))
    assert copy.deepcopy(s).to_dense().tolist() == [[0.0, 1.0], [2.0, 0.0]]  # a plain sparse tensor copies
    dense = nn.Parameter(torch.ones(2, 3, 4, 5).contiguous(memory_format=torch.channels_last))
    assert copy.deepcopy(dense).stride() == dense.stride()
