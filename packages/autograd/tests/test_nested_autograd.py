"""Nested tensors differentiate through autograd (NOTE [ Nested tensors ] in ember.core.nested): a leaf's gradient
is a nested tensor of its geometry, `as_nested_tensor` reaches each given tensor, and the gradients of ops over
the buffer and over the ragged dim match per-component autograd and float64 finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd.gradcheck import gradcheck
from ember.core.nested import as_nested_tensor, jagged, nested_tensor, nested_tensor_from_jagged

RNG = np.random.default_rng(3)
A, B = RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3))
W = E.tensor(RNG.standard_normal((3, 3)))


def _loss(nt):
    """An op over the regular dim, one over the ragged dim, and the padded result."""
    y = E.tanh(nt @ W) * 2 + 1
    return (y.softmax(1).to_padded_tensor(0.0) ** 2).sum() + y.sum(1).sum()


def _reference(parts):
    total = 0
    for p in parts:
        y = E.tanh(p @ W) * 2 + 1
        total = total + (y.softmax(0) ** 2).sum() + y.sum(0).sum()
    return total


def test_leaf_gradient_is_nested_and_matches_components():
    nt = nested_tensor([E.tensor(A), E.tensor(B)], layout=jagged, requires_grad=True)
    assert nt.is_leaf and nt.requires_grad and nt.grad is None
    _loss(nt).backward()
    parts = [E.tensor(A, requires_grad=True), E.tensor(B, requires_grad=True)]
    _reference(parts).backward()
    g = nt.grad
    assert g.is_nested and g.offsets() is nt.offsets()
    for got, p in zip(g.unbind(), parts):
        np.testing.assert_allclose(got.numpy(), p.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("layout", [None, jagged])
def test_as_nested_tensor_reaches_each_tensor(layout):
    a, b = E.tensor(A, requires_grad=True), E.tensor(B, requires_grad=True)
    nt = as_nested_tensor([a, b], layout=layout)
    assert not nt.is_leaf
    ((nt * nt).sum(-1, keepdim=True) * 3).to_padded_tensor(0.0).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 6 * A, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), 6 * B, rtol=1e-12)


def test_gradcheck_through_values_buffer():
    offsets = E.tensor([0, 2, 6])
    values = E.tensor(np.concatenate([A, B]), requires_grad=True)

    def fn(v):
        nt = nested_tensor_from_jagged(v, offsets)
        return E.log_softmax(E.relu(nt) + nt.exp(), 1).to_padded_tensor(-1.0)

    assert gradcheck(fn, (values,))


def test_grad_fn_names_and_backward_refusal():
    nt = nested_tensor([E.tensor(A), E.tensor(B)], layout=jagged, requires_grad=True)
    assert type((nt * 2).grad_fn).__name__ == "MulBackward0"
    assert type(nt.to_padded_tensor(0.0).grad_fn).__name__ == "ToPaddedTensorBackward0"
    assert type(nested_tensor([E.tensor(A), E.tensor(B)], requires_grad=True).relu().grad_fn).__name__ == \
        "ReluBackward0"
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn$"):
        nested_tensor([E.tensor(A)], layout=jagged).backward()


def test_values_is_a_new_view_of_the_buffer_each_call():
    v = E.arange(10.0).reshape(5, 2).requires_grad_()
    nt = nested_tensor_from_jagged(v, E.tensor([0, 2, 5]))
    a, b = nt.values(), nt.values()
    assert a is not b and a is not v and a._base is not None and a._storage is v._storage and nt._values is v
    assert type(a.grad_fn).__name__ == "NestedGetValuesBackward0" and a.shape == (5, 2)


def test_dropout_of_a_nested_tensor_is_a_new_tensor_even_in_eval():
    """PyTorch runs native_dropout on nested tensors: `training=False` or p=0 still returns a new one."""
    nt = nested_tensor([E.tensor(A), E.tensor(B)], layout=jagged, requires_grad=True)
    for out in (E.dropout(nt, 0.5, training=False), E.dropout(nt, 0.0)):
        assert out is not nt and out._values is not nt._values
        assert type(out.grad_fn).__name__ == "NativeDropoutBackward0"
        assert [c.tolist() for c in out.unbind()] == [A.tolist(), B.tolist()]
    s = nested_tensor([E.tensor(A), E.tensor(B)])
    assert E.dropout(s, 0.5, training=False) is not s
