"""A leaf's new `.grad` follows PyTorch's gradient layout contract: the leaf's strides when the leaf is
dense (channels_last, transposed), else row-major, whatever the incoming gradient's layout; later
accumulations keep `.grad`'s layout; `autograd.grad` returns gradients as computed. The strides
asserted are PyTorch 2.13's."""

import numpy as np
import pytest

import ember.autograd as E
from ember.core.dispatch import register_dispatch_hook, remove_dispatch_hook
from ember.core.settings import channels_last

_SHAPE = (2, 3, 4, 5)
_CL = (60, 1, 15, 3)


def _array(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _cl_leaf(seed=0):
    return E.from_numpy(_array(_SHAPE, seed)).contiguous(memory_format=channels_last).requires_grad_(True)


def _t_leaf(seed=0):
    return E.from_numpy(_array((5, 4), seed)).t().detach().requires_grad_(True)


def _ops_run(fn) -> list[str]:
    names = []

    def hook(op, args, kwargs, call_next):
        names.append(op.name)
        return call_next(op, args, kwargs)

    register_dispatch_hook(hook)
    try:
        fn()
    finally:
        remove_dispatch_hook(hook)
    return names


def test_a_channels_last_leaf_gets_a_channels_last_grad_from_a_row_major_gradient():
    p = _cl_leaf()
    g = _array(_SHAPE, 1)
    p.backward(E.from_numpy(g))
    assert p.grad.stride() == _CL
    np.testing.assert_array_equal(p.grad.numpy(), g)
    p.backward(E.from_numpy(g))
    assert p.grad.stride() == _CL
    np.testing.assert_array_equal(p.grad.numpy(), 2 * g)


def test_a_transposed_leaf_gets_a_transposed_grad():
    p = _t_leaf()
    (p * 2).sum().backward()
    assert p.grad.stride() == (1, 4)
    np.testing.assert_array_equal(p.grad.numpy(), np.full((4, 5), 2, np.float32))


def test_a_transposed_leaf_at_an_offset_gets_its_strides_in_fresh_memory():
    base = E.from_numpy(np.arange(100, dtype=np.float32))
    p = base[10:30].view(5, 4).t().detach().requires_grad_(True)
    p.sum().backward()
    assert p.grad.stride() == (1, 4) and p.grad.storage_offset() == 0


def test_a_leaf_keeps_the_strides_of_its_size_one_dims():
    p = E.empty_strided((1, 5), (7, 1)).fill_(1.0).requires_grad_(True)
    p.backward(E.ones(1, 5))
    assert p.grad.stride() == (7, 1)


@pytest.mark.parametrize("make", [lambda: E.ones(4, 1).expand(4, 5).requires_grad_(True),
                                  lambda: E.ones(4, 10)[:, ::2].detach().requires_grad_(True)],
                         ids=["expanded", "sliced"])
def test_a_leaf_that_is_not_dense_gets_a_row_major_grad(make):
    p = make()
    (p * 2).sum().backward()
    assert p.grad.stride() == (5, 1)
    np.testing.assert_array_equal(p.grad.numpy(), np.full((4, 5), 2, np.float32))


def test_a_row_major_leaf_gets_a_row_major_grad_from_a_channels_last_gradient():
    p = E.from_numpy(_array(_SHAPE)).requires_grad_(True)
    p.backward(E.from_numpy(_array(_SHAPE, 1)).contiguous(memory_format=channels_last))
    assert p.grad.stride() == (60, 20, 5, 1)


def test_a_grad_the_user_set_keeps_its_layout_and_identity():
    p = _t_leaf()
    p.grad = E.zeros(4, 5)
    first = p.grad
    (p * 2).sum().backward()
    assert p.grad is first and p.grad.stride() == (5, 1)
    np.testing.assert_array_equal(first.numpy(), np.full((4, 5), 2, np.float32))


def test_a_gradient_already_laid_out_as_the_leaf_is_taken_without_a_copy():
    a, b = _cl_leaf(0), _cl_leaf(1)
    ops = _ops_run(lambda: (a * b).sum().backward())
    assert "clone" not in ops and "copy_" not in ops
    assert a.grad.stride() == _CL and b.grad.stride() == _CL
    np.testing.assert_array_equal(a.grad.numpy(), b.detach().numpy())


def test_a_gradient_laid_out_otherwise_is_copied_once():
    p = _t_leaf()
    g = E.from_numpy(_array((4, 5), 1))
    ops = _ops_run(lambda: p.backward(g))
    assert ops.count("clone") + ops.count("copy_") == 1
    assert p.grad.stride() == (1, 4) and p.grad.data_ptr() != g.data_ptr()


def test_create_graph_records_a_grad_laid_out_as_the_leaf():
    p = _t_leaf()
    (p * p).sum().backward(create_graph=True)
    assert p.grad.stride() == (1, 4) and p.grad.requires_grad
    (p * p).sum().backward(create_graph=True)
    assert p.grad.stride() == (1, 4)
    np.testing.assert_allclose(p.grad.detach().numpy(), 4 * p.detach().numpy(), rtol=1e-6)
    (g2,) = E.autograd.grad(p.grad.sum(), p)
    np.testing.assert_array_equal(g2.numpy(), np.full((4, 5), 4, np.float32))


def test_create_graph_never_makes_the_users_gradient_the_grad():
    p = E.ones(3, requires_grad=True)
    g = E.ones(3)
    p.backward(g, create_graph=True)
    p.backward(g)
    np.testing.assert_array_equal(g.numpy(), np.ones(3, np.float32))
    np.testing.assert_array_equal(p.grad.detach().numpy(), np.full(3, 2, np.float32))


def test_under_create_graph_a_later_grad_takes_the_sums_layout():
    p = E.from_numpy(_array(_SHAPE)).requires_grad_(True)
    p.backward(E.ones(*_SHAPE))
    p.backward(E.ones(*_SHAPE).contiguous(memory_format=channels_last), create_graph=True)
    assert p.grad.stride() == (60, 20, 5, 1)


def test_autograd_grad_returns_the_gradient_as_computed():
    p = E.from_numpy(_array(_SHAPE)).requires_grad_(True)
    g = E.ones(*_SHAPE).contiguous(memory_format=channels_last)
    (got,) = E.autograd.grad(p, p, g)
    assert got.stride() == _CL


def test_a_retained_or_inputs_gradient_of_a_non_leaf_is_row_major():
    x = E.ones(5, 4, requires_grad=True)
    y = x.t() * 1
    y.retain_grad()
    y.backward(E.ones(5, 4).t())
    assert y.grad.stride() == (5, 1)
    z = x.t() * 1
    z.backward(E.ones(5, 4).t(), inputs=[z])
    assert z.grad.stride() == (5, 1)


@pytest.mark.torch
def test_grad_layouts_match_pytorch():
    torch = pytest.importorskip("torch")
    cases = {
        "channels_last": lambda m: m.randn(*_SHAPE).contiguous(memory_format=m.channels_last),
        "transposed": lambda m: m.randn(5, 4).t(),
        "expanded": lambda m: m.randn(4, 1).expand(4, 5),
        "sliced": lambda m: m.randn(4, 10)[:, ::2],
    }
    for name, make in cases.items():
        got = []
        for m in (torch, E):
            p = make(m).detach().requires_grad_(True)
            (p * 3).sum().backward()
            got.append(p.grad.stride())
        assert got[0] == got[1], name
