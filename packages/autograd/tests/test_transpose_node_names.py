"""`t()` is its own derivative and PyTorch names both nodes TBackward0: a gradient taken with create_graph through
`w.t()` (linear's weight) is recorded as TBackward0 at every order, while `transpose`'s stays TransposeBackward0;
`x.H` of a matrix is a transpose (TransposeBackward0 under the conjugation), of a 0-dim real tensor the tensor."""

import numpy as np

import ember.autograd as ea


def test_t_gradients_of_every_order_are_named_tbackward():
    rng = np.random.default_rng(0)
    w = ea.from_numpy(rng.standard_normal((3, 4))).requires_grad_(True)
    (g1,) = ea.autograd.grad(w.t().pow(3).sum(), w, create_graph=True)
    (g2,) = ea.autograd.grad(g1.sum(), w, create_graph=True)
    assert [type(g.grad_fn).__name__ for g in (g1, g2)] == ["TBackward0", "TBackward0"]
    wn = w.detach().numpy()
    np.testing.assert_allclose(g1.detach().numpy(), 3 * wn ** 2)
    np.testing.assert_allclose(g2.detach().numpy(), 6 * wn)


def test_t_of_a_weight_gradient_values_and_name():
    rng = np.random.default_rng(1)
    w = ea.from_numpy(rng.standard_normal((3, 4))).requires_grad_(True)
    y = ea.from_numpy(rng.standard_normal((4, 3))).requires_grad_(True)
    (g,) = ea.autograd.grad((w.t() * y).sum(), w, create_graph=True)
    assert type(g.grad_fn).__name__ == "TBackward0"
    np.testing.assert_array_equal(g.detach().numpy(), y.detach().numpy().T)
    (gy,) = ea.autograd.grad((g * g).sum(), y)
    np.testing.assert_allclose(gy.numpy(), 2 * y.detach().numpy())


def test_t_of_a_vector_gradient_is_named_tbackward():
    v = ea.ones(3, requires_grad=True)
    y = ea.arange(3.0, requires_grad=True)
    (g,) = ea.autograd.grad((v.t() * y).sum(), v, create_graph=True)
    assert type(g.grad_fn).__name__ == "TBackward0"


def test_transpose_gradient_keeps_its_own_name():
    w = ea.ones(3, 4, requires_grad=True)
    y = ea.ones(4, 3, requires_grad=True)
    (g,) = ea.autograd.grad((w.transpose(0, 1) * y).sum(), w, create_graph=True)
    assert type(g.grad_fn).__name__ == "TransposeBackward0"


def test_h_of_a_real_matrix_is_a_transpose_and_of_a_scalar_the_tensor():
    w = ea.ones(3, 4, requires_grad=True)
    assert type(w.H.grad_fn).__name__ == "TransposeBackward0"
    assert w.H.shape == (4, 3)
    s = ea.tensor(2.0, requires_grad=True)
    assert s.H is s or s.H.grad_fn is None
    c = ea.ones(2, 2, dtype=ea.complex64, requires_grad=True)
    (inner, _), = c.H.grad_fn.next_functions
    assert type(c.H.grad_fn).__name__ == "ConjBackward0" and type(inner).__name__ == "TransposeBackward0"


def test_legacy_constructor_of_a_tensor_that_requires_grad_is_a_recorded_alias():
    g = ea.tensor([1.0, 2.0], requires_grad=True)
    for r in (ea.Tensor(g), g.new(g)):
        assert type(r.grad_fn).__name__ == "AliasBackward0" and r._base is g
