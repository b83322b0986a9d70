"""torch.func's transforms (grad, grad_and_value, vjp, jvp, jacrev/jacfwd, hessian, vmap) against
closed-form float64 derivatives; they nest, and an outer autograd pass differentiates through them."""

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd import func as tf

F64 = E.float64
X = np.array([0.5, -1.0, 2.0])
Y = np.array([1.5, 0.3, -0.2])


def T(a):
    return E.tensor(np.asarray(a), dtype=F64)


def close(t, ref):
    assert np.allclose(np.asarray(t.tolist()), ref, rtol=1e-10, atol=1e-12)


def test_grad_and_its_options():
    close(tf.grad(lambda x: (x.sin() * x).sum())(T(X)), np.sin(X) + X * np.cos(X))
    gx, gy = tf.grad(lambda x, y: (x * y.exp()).sum(), argnums=(0, 1))(T(X), T(Y))
    close(gx, np.exp(Y))
    close(gy, X * np.exp(Y))
    g, (v, aux) = tf.grad_and_value(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(T(X))
    close(g, 2 * X)
    close(v, (X ** 2).sum())
    assert aux.grad_fn is None and not g.requires_grad
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        tf.grad(lambda x: x * 2)(T(X))


def test_nested_and_outer_differentiation():
    close(tf.grad(lambda x: tf.grad(lambda z: (z ** 3).sum())(x).sum())(T(X)), 6 * X)
    x = T(X).requires_grad_(True)
    g = tf.grad(lambda x: (x ** 3).sum())(x)
    assert g.requires_grad
    close(E.autograd.grad(g.sum(), x)[0], 6 * X)


def test_jacobians_hessian_vjp_jvp():
    close(tf.jacrev(lambda x: x.sin() * x[0])(T(X)),
          np.diag(np.sin(X) * 0 + X[0] * np.cos(X)) + np.outer(np.sin(X), [1.0, 0.0, 0.0]))
    close(tf.jacfwd(lambda x, y: x * y, argnums=1)(T(X), T(Y)), np.diag(X))
    h = np.diag(6 * X)
    h[0, 1] += 1
    h[1, 0] += 1
    close(tf.hessian(lambda x: (x ** 3).sum() + x[0] * x[1])(T(X)), h)
    out, fn = tf.vjp(lambda x: x.exp(), T(X))
    close(out, np.exp(X))
    close(fn(E.ones(3, dtype=F64))[0], np.exp(X))
    out, t = tf.jvp(lambda x: x.exp() * 2, (T(X),), (T(Y),))
    close(out, 2 * np.exp(X))
    close(t, 2 * np.exp(X) * Y)


def test_vmap_maps_over_dims_and_stacks():
    B = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    close(tf.vmap(lambda r: r.sum() * 2)(T(B)), B.sum(1) * 2)
    close(tf.vmap(lambda r, s: r * s, in_dims=(1, None))(T(B), 3.0), (B * 3).T)
    a, s = tf.vmap(lambda r: (r * 2, r.sum()), out_dims=(1, 0))(T(B))
    close(a, (B * 2).T)
    close(s, B.sum(1))
    close(tf.vmap(tf.grad(lambda r: (r ** 2).sum()))(T(B)), 2 * B)
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        tf.vmap(lambda a, b: a + b)(T(B), E.ones(3, 3, dtype=F64))
    with pytest.raises(ValueError, match="at least one input must be a Tensor batched"):
        tf.vmap(lambda a: a, in_dims=None)(T(B))


@pytest.mark.torch
def test_against_torch_func():
    torch = pytest.importorskip("torch")
    x = torch.tensor(X)
    ref = torch.func.hessian(lambda x: (x.sin() * x).sum())(x).numpy()
    close(tf.hessian(lambda x: (x.sin() * x).sum())(T(X)), ref)
