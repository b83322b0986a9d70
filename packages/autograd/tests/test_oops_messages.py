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


def test_unique_records_a_node_whose_backward_is_not_implemented():
    """PyTorch's unique results carry Unique2Backward0 / UniqueDimBackward0 / UniqueConsecutiveBackward0; backward
    through one raises NotImplementedError naming the kernel."""
    x = E.tensor([1.0, 1.0, 2.0], requires_grad=True)
    cases = [(lambda: E.unique(x), "Unique2Backward0", "_unique2"),
             (lambda: E.unique(x, sorted=False, return_counts=True)[0], "Unique2Backward0", "_unique2"),
             (lambda: E.unique(x, dim=0), "UniqueDimBackward0", "unique_dim"),
             (lambda: E.unique_consecutive(x), "UniqueConsecutiveBackward0", "unique_consecutive")]
    for make, node, kernel in cases:
        u = make()
        assert u.requires_grad and type(u.grad_fn).__name__ == node
        with pytest.raises(NotImplementedError, match=f"^the derivative for '{kernel}' is not implemented.$"):
            u.sum().backward()
    vals, counts = E.unique(x, return_counts=True)
    assert not counts.requires_grad and counts.tolist() == [2, 1]
    with E.no_grad():
        assert not E.unique(x).requires_grad


def test_bincount_of_weights_requiring_grad_records_a_refusing_node():
    """PyTorch records bincount of weights requiring grad as a `NotImplemented` node whose backward raises."""
    w = E.ones(3, requires_grad=True)
    r = E.bincount(E.tensor([0, 1, 1]), weights=w)
    assert r.requires_grad and type(r.grad_fn).__name__ == "NotImplemented" and r.tolist() == [1.0, 2.0]
    assert r.grad_fn.next_functions[0][0].variable is w
    with pytest.raises(RuntimeError, match="^derivative for aten::bincount is not implemented$"):
        r.sum().backward()
    with E.no_grad():
        assert not E.bincount(E.tensor([0, 1, 1]), weights=w).requires_grad
    assert not E.bincount(E.tensor([0, 1, 1])).requires_grad


def test_a_tensor_hook_that_changes_the_gradients_size_type_or_kind_is_refused():
    """PyTorch's check of a hook's returned gradient, on leaves and non-leaves alike."""
    def named(g):
        return g.double()

    cases = [(lambda g: g.sum(), RuntimeError, "hook '<lambda>' has changed the size of value"),
             (named, RuntimeError, "hook 'named' has changed the type of value (was torch.FloatTensor got "
                                   "torch.DoubleTensor)"),
             (lambda g: 3, TypeError, "expected Variable, but hook returned 'int'")]
    for hook, exc, msg in cases:
        for leaf in (True, False):
            w = E.ones(2, requires_grad=True)
            t = w if leaf else w * 1
            t.register_hook(hook)
            with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
                (t * 2).sum().backward()
    w = E.ones(2, requires_grad=True)
    w.register_hook(lambda g: g * 3)
    (w * 2).sum().backward()
    assert w.grad.tolist() == [6.0, 6.0]


def test_masked_fill_with_a_tensor_value_records_pytorchs_tensor_overload_node():
    """masked_fill(mask, 0-dim tensor) is PyTorch's masked_fill.Tensor: MaskedFillBackward1, in place too."""
    w = E.ones(4, requires_grad=True)
    m = E.tensor([True, False, True, False])
    assert type(w.masked_fill(m, E.tensor(2.0)).grad_fn).__name__ == "MaskedFillBackward1"
    assert type(w.masked_fill(m, 2.0).grad_fn).__name__ == "MaskedFillBackward0"
    q = w * 1
    q.masked_fill_(m, E.tensor(5.0))
    assert type(q.grad_fn).__name__ == "MaskedFillBackward1"
    v = E.tensor(3.0, requires_grad=True)
    E.ones(4).masked_fill(m, v).sum().backward()
    assert v.grad.item() == 2.0
