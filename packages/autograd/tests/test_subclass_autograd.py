"""Tensor subclasses under autograd: gradients flow through them, and the plain op path costs no more calls."""

import numpy as np
import pytest

import ember.autograd as E
from call_budget import count_calls as _count
from ember.core import dispatch


class MyT(E.Tensor):
    pass


def _data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)


def _loss(x, w):
    y = E.relu(x @ w) * 2 + x.sum(1, keepdim=True)[:, :1]
    return (y.exp() / 10).mean()


def test_gradients_flow_through_subclass_instances_with_the_same_values():
    xd, wd = _data()
    plain = [E.from_numpy(xd.copy()).requires_grad_(), E.from_numpy(wd.copy()).requires_grad_()]
    sub = [E.from_numpy(xd.copy()).as_subclass(MyT).requires_grad_(), E.from_numpy(wd.copy()).requires_grad_()]
    lp, ls = _loss(*plain), _loss(*sub)
    assert type(ls) is MyT and type(lp) is E.Tensor and ls.grad_fn is not None
    lp.backward()
    ls.backward()
    assert type(sub[0].grad) is E.Tensor  # PyTorch's too: `.grad` is a property, not a torch function
    for p, s in zip(plain, sub):
        np.testing.assert_array_equal(s.grad.numpy(), p.grad.numpy())


def test_as_subclass_of_a_tensor_that_requires_grad_stays_on_the_graph():
    leaf = E.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = leaf.as_subclass(MyT)
    assert type(s) is MyT and s.requires_grad and not s.is_leaf and s.grad_fn.name() == "AliasBackward0"
    (s * s).sum().backward()
    assert leaf.grad.tolist() == [2.0, 4.0, 6.0]
    d = E.Tensor._make_subclass(MyT, leaf, True)  # detached, a leaf of its own
    assert d.is_leaf and d.requires_grad and d.data_ptr() == leaf.data_ptr()


def test_op_results_on_the_graph_are_aliased_as_pytorchs_convert_does():
    # Tensor.__torch_function__ turns each result into the subclass by as_subclass: AliasBackward0 over the op's
    # node when it needs a gradient, the op's node alone when it does not
    s = E.tensor([1.0, 2.0], requires_grad=True).as_subclass(MyT)
    y = (s * 2).sin()
    assert type(y) is MyT and y.grad_fn.name() == "AliasBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "SinBackward0" and repr(y).endswith("grad_fn=<AliasBackward0>)")
    y.sum().backward()
    assert type(E.ones(2).as_subclass(MyT) * 2) is MyT and (E.ones(2).as_subclass(MyT) * 2).grad_fn is None
    with E.no_grad():
        assert (s * 2).grad_fn is None


def test_detach_and_no_grad_keep_the_subclass():
    x = E.ones(2).as_subclass(MyT).requires_grad_()
    assert type(x.detach()) is MyT and not x.detach().requires_grad
    with E.no_grad():
        assert type(x * 2) is MyT and not (x * 2).requires_grad


OPS = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y, "relu": lambda x, y: x.relu(),
       "matmul": lambda x, y: x @ y, "sum": lambda x, y: x.sum(), "torch.add": lambda x, y: E.add(x, y, alpha=2),
       "sum_dims": lambda x, y: x.sum((0, 1)), "view": lambda x, y: x.view((100,)), "cat": lambda x, y: E.cat([x, y]),
       "index": lambda x, y: x[1:, 2], "out": lambda x, y: E.mul(y, 2, out=y) if not x.requires_grad else x * 2}


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("name", list(OPS))
def test_plain_tensors_cost_the_same_calls_once_subclasses_exist(name, grad, monkeypatch):
    """The op entry's check (set since MyT was defined) tests plain arguments' classes without a call: the
    Python and C calls of an op on exact Tensors are those of a process that never defined a subclass."""
    from ember.core import storage

    monkeypatch.setattr(storage, "only_cpu", True)
    assert dispatch._protocol is not None
    a, b = E.ones(10, 10), E.ones(10, 10)
    if grad:
        a.requires_grad_()
    run = lambda: OPS[name](a, b)  # noqa: E731
    with_check = _count(run)
    monkeypatch.setattr(dispatch, "_protocol", None)
    assert _count(run) == with_check
