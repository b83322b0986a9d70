"""Tensor attributes the autograd layer attaches: `name` (a tracer's value name: always None, read-only,
as PyTorch's in eager mode); `view(dtype)` has no derivative."""

import pytest

import ember.autograd as E


def test_name_is_none_and_read_only():
    x = E.ones(2, requires_grad=True)
    assert x.name is None and (x * 2).name is None
    with pytest.raises(AttributeError):
        x.name = "w"


@pytest.mark.torch
def test_name_matches_pytorch():
    torch = pytest.importorskip("torch")
    assert torch.ones(2).name is None
    with pytest.raises(AttributeError):
        torch.ones(2).name = "w"


def test_view_dtype_is_not_differentiable():
    """PyTorch's view(dtype) has no derivative, even to the same dtype: the result never requires grad."""
    x = E.randn(3, 4).requires_grad_()
    for d in (E.float32, E.int32, E.float64, E.float16, E.complex64):
        v = x.view(d)
        assert not v.requires_grad and v.grad_fn is None
