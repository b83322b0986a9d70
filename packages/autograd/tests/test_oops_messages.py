"""Users' autograd mistakes (tests/api_programs/oops_autograd.py): what runs again and what PyTorch 2.13 refuses,
in its words (hard-coded)."""

from __future__ import annotations

import re

import pytest

import ember.autograd as E

FREED = "Trying to backward through the graph a second time"


@pytest.mark.parametrize("build", [lambda x: (x + 1).sum(), lambda x: x.sum(), lambda x: (-x).mean(),
                                   lambda x: x.view(3, 1).sum()], ids=["add", "sum", "neg_mean", "view"])
def test_a_graph_that_saved_no_tensor_runs_backward_again(build):
    x = E.ones(3, requires_grad=True)
    loss = build(x)
    loss.backward()
    first = x.grad.clone()
    loss.backward()
    assert x.grad.tolist() == (2 * first).tolist()


@pytest.mark.parametrize("build", [lambda x: (x * 2).sum(), lambda x: (x * x).sum(), lambda x: x.exp().sum()],
                         ids=["wrapped_number", "mul", "exp"])
def test_a_graph_that_saved_a_tensor_refuses_a_second_backward(build):
    x = E.ones(3, requires_grad=True)
    loss = build(x)
    loss.backward()
    with pytest.raises(RuntimeError, match=FREED):
        loss.backward()


def test_a_saved_wrapped_number_is_freed_as_pytorchs():
    x = E.ones(3, requires_grad=True)
    y = x * 2
    assert y.grad_fn._saved_other.item() == 2
    y.sum().backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.grad_fn._saved_other


def _msg(text):
    return "^" + re.escape(text) + "$"


def test_an_output_that_needs_no_grad_is_refused_before_its_shape_or_dtype():
    x = E.ones(3, requires_grad=True)
    no_grad = "element 0 of tensors does not require grad and does not have a grad_fn"
    with pytest.raises(RuntimeError, match=_msg(no_grad)):
        E.ones(3).backward()
    with pytest.raises(RuntimeError, match=_msg(no_grad)):
        E.grad(x.sum().long(), x)
    with pytest.raises(RuntimeError, match=_msg(no_grad)):
        E.grad(E.ones(3), x)


def test_backward_inputs_that_need_no_grad_or_none():
    x = E.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=_msg("can't retain_grad on Tensor that has requires_grad=False")):
        (x * 2).sum().backward(inputs=[x, E.ones(2)])
    with pytest.raises(RuntimeError, match=_msg("`inputs` argument to `backward()` cannot be empty.")):
        (x * 2).sum().backward(inputs=[])
