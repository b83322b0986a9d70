"""Tensor attributes the autograd layer attaches: `name` (a tracer's value name: always None, read-only,
as PyTorch's in eager mode)."""

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
