"""A new `.grad` takes the incoming gradient itself when nothing else holds it (PyTorch's
AccumulateGrad steals its buffer), and copies it whenever another tensor, the user, a hook or a
second input could see a later in-place update of `.grad`."""

import numpy as np

import ember.autograd as E
from ember.core.dispatch import register_dispatch_hook, remove_dispatch_hook


def _leaves(seed: int = 0):
    rng = np.random.default_rng(seed)
    a = E.from_numpy(rng.standard_normal((4, 3)).astype(np.float32)).requires_grad_(True)
    b = E.from_numpy(rng.standard_normal((4, 3)).astype(np.float32)).requires_grad_(True)
    return a, b


def _ops_run(fn) -> list[str]:
    """The names of the ops `fn()` dispatches."""
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


def test_a_fresh_gradient_becomes_grad_without_a_copy():
    a, b = _leaves()
    ops = _ops_run(lambda: (a * b).sum().backward())
    assert "clone" not in ops
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy())
    assert a.grad.untyped_storage() is not b.grad.untyped_storage()


def test_a_stolen_grad_accumulates_in_place_on_the_next_backward():
    a, b = _leaves()
    (a * b).sum().backward()
    first = a.grad
    (a * b).sum().backward()
    assert a.grad is first
    np.testing.assert_allclose(a.grad.numpy(), 2 * b.detach().numpy())


def test_one_gradient_for_two_inputs_is_copied_for_each():
    a, b = _leaves()
    (a + b).sum().backward()
    assert a.grad.untyped_storage() is not b.grad.untyped_storage()
    a.grad.add_(1.0)
    np.testing.assert_allclose(b.grad.numpy(), np.ones((4, 3)))


def test_the_users_gradient_is_never_adopted():
    a, _ = _leaves()
    g = E.ones(4, 3)
    a.backward(g)
    assert a.grad is not g and a.grad.untyped_storage() is not g.untyped_storage()
    a.grad.mul_(3.0)
    np.testing.assert_allclose(g.numpy(), np.ones((4, 3)))


def test_a_gradient_a_hook_keeps_is_copied():
    a, b = _leaves()
    kept = []

    def hook(g):
        r = g * 1.0
        kept.append(r)
        return r

    a.register_hook(hook)
    (a * b).sum().backward()
    assert a.grad is not kept[0]
    a.grad.zero_()
    np.testing.assert_allclose(kept[0].numpy(), b.detach().numpy())


def test_a_view_of_another_gradient_is_copied():
    a = E.zeros(3, requires_grad=True)
    w = E.ones(2, 3, requires_grad=True)
    (a * 2.0 + 0.0).sum().backward()
    g = a.grad
    # the expanded gradient of a sum is a view (stride 0): `.grad` gets a dense copy
    w.sum().backward()
    assert w.grad.stride() == (3, 1)
    w.grad.add_(1.0)
    np.testing.assert_allclose(w.grad.numpy(), np.full((2, 3), 2.0))
    np.testing.assert_allclose(g.numpy(), np.full(3, 2.0))


def test_a_transposed_weights_gradient_is_taken_contiguous_without_a_copy():
    # `x @ w.t()` (linear): mm's rule computes w's gradient in mat2's column-major layout, so `t`'s
    # backward hands back a contiguous view of a buffer nothing else holds, and `.grad` takes it
    rng = np.random.default_rng(1)
    x64 = rng.standard_normal((5, 4))
    w64 = rng.standard_normal((3, 4))
    g64 = rng.standard_normal((5, 3))
    x = E.from_numpy(x64.astype(np.float32))
    w = E.from_numpy(w64.astype(np.float32)).requires_grad_(True)
    ops = _ops_run(lambda: x.mm(w.t()).backward(E.from_numpy(g64.astype(np.float32))))
    assert "clone" not in ops
    assert w.grad.stride() == (4, 1)
    np.testing.assert_allclose(w.grad.numpy(), g64.T @ x64, rtol=1e-5, atol=1e-5)
    (x.mm(w.t()) * 2.0).sum().backward()  # a stolen view accumulates in place like any `.grad`
    np.testing.assert_allclose(w.grad.numpy(), g64.T @ x64 + 2.0 * np.ones((5, 3)).T @ x64, rtol=1e-5, atol=1e-5)


def test_a_view_whose_base_a_hook_keeps_is_copied():
    w = E.ones(3, 2, requires_grad=True)
    kept = []

    def hook(g):
        base = (g * 1.0).reshape(6)
        kept.append(base)
        return base.view(3, 2)  # a contiguous view over all of a base the hook keeps

    w.register_hook(hook)
    (w * 2.0).sum().backward()
    w.grad.add_(1.0)
    np.testing.assert_allclose(kept[0].numpy(), np.full(6, 2.0))
    np.testing.assert_allclose(w.grad.numpy(), np.full((3, 2), 3.0))


def test_mm_gradients_with_a_transposed_mat2_match_finite_differences():
    from ember.autograd.gradcheck import gradcheck

    rng = np.random.default_rng(2)
    x = E.from_numpy(rng.standard_normal((4, 3))).requires_grad_(True)
    w = E.from_numpy(rng.standard_normal((5, 3))).requires_grad_(True)
    assert gradcheck(lambda a, b: a.mm(b.t()), (x, w))
    assert gradcheck(lambda a, b: a.t().mm(b.t()), (E.from_numpy(rng.standard_normal((3, 4))).requires_grad_(True), w))


def test_a_view_of_the_users_gradient_is_copied():
    w = E.zeros(2, 3, requires_grad=True)
    g = E.ones(6)
    w.reshape(6).backward(g)  # reshape's backward hands `w` a contiguous view of the user's `g`
    w.grad.add_(1.0)
    np.testing.assert_allclose(g.numpy(), np.ones(6))
    np.testing.assert_allclose(w.grad.numpy(), np.full((2, 3), 2.0))


def test_views_of_one_gradient_for_two_inputs_do_not_share_grad():
    a = E.zeros(2, 3, requires_grad=True)
    b = E.zeros(2, 3, requires_grad=True)
    ((a.reshape(6) + b.reshape(6)) * 2.0).sum().backward()
    assert a.grad.untyped_storage() is not b.grad.untyped_storage()
    a.grad.add_(1.0)
    np.testing.assert_allclose(b.grad.numpy(), np.full((2, 3), 2.0))
    np.testing.assert_allclose(a.grad.numpy(), np.full((2, 3), 3.0))
