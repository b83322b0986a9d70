"""grad_fn names and edges of composite ops as PyTorch 2.13 records them (found by a sweep against it)."""

import pytest

import ember.autograd as torch
from ember.nn import functional as F


def _names(edges):
    return [None if n is None else type(n).__name__ for n, _ in edges]


@pytest.mark.parametrize("norm", [lambda x: F.layer_norm(x, (4,)), lambda x: F.group_norm(x[None], 1),
                                  lambda x: F.batch_norm(x, None, None, training=True)])
def test_a_norm_without_affine_parameters_keeps_none_edges_for_them(norm):
    x = torch.randn(3, 4, requires_grad=True)
    assert _names(norm(x).grad_fn.next_functions)[-2:] == [None, None]
    w = torch.ones(4, requires_grad=True)
    assert _names(F.layer_norm(x, (4,), w).grad_fn.next_functions) == ["AccumulateGrad", "AccumulateGrad", None]
    y = F.layer_norm(x, (4,), w)
    y.sum().backward()  # the None edges take no gradient
    assert x.grad.shape == (3, 4) and w.grad.shape == (4,)


def test_composite_nodes_carry_pytorchs_names():
    x = torch.rand(3, 4, requires_grad=True) + 0.5
    assert type(F.rms_norm(x, (4,)).grad_fn.next_functions[1][0].next_functions[0][0]).__name__ == "AddBackward1"
    assert type(F.pairwise_distance(x, x.flip(0)).grad_fn.next_functions[0][0]).__name__ == "AddBackward1"
    mn, mx = torch.aminmax(x, dim=1)
    assert type(mn.grad_fn).__name__ == type(mx.grad_fn).__name__ == "AminmaxBackward0"
    assert type(torch.special.xlog1py(x, x).grad_fn).__name__ == "SpecialXlog1PyBackward0"  # PyTorch's str.title()
    assert type(torch.quantile(x, 0.3, dim=1).grad_fn.next_functions[0][0]).__name__ == "LerpBackward1"
    assert type(torch.mvlgamma(x + 2, 2).grad_fn).__name__ == "MvlgammaBackward0"
    assert type(torch.linalg.lu_factor(x[:, :3] + torch.eye(3) * 3)[0].grad_fn).__name__ == "LinalgLuFactorExBackward0"
    y = F.fractional_max_pool2d(x[None, None], 2, output_size=2)
    assert type(y.grad_fn).__name__ == "FractionalMaxPool2DBackward0"
    z = F.fractional_max_pool3d(torch.rand(1, 1, 2, 4, 4, requires_grad=True), (1, 2, 2), output_size=(1, 2, 2))
    assert type(z.grad_fn).__name__ == "FractionalMaxPool3DBackward0"
