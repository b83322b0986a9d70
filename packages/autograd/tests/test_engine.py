"""The engine and the graph: accumulation, retain_graph, hooks, create_graph, grad(), views and
in-place ops, version counters, and the errors PyTorch raises."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from ag_util import make

import ember.autograd as E
from ember.autograd.record import CopySlices


def test_backward_accumulates_into_leaves_across_calls():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]
    assert x.is_leaf and x.grad.is_leaf and not x.grad.requires_grad


def test_shared_gradient_is_not_aliased_between_leaves():
    a = E.tensor([1.0, 2.0], requires_grad=True)
    b = E.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()
    a.grad.mul_(10)
    assert b.grad.tolist() == [1.0, 1.0]


def test_each_node_runs_once_in_dependency_order():
    x = E.tensor(2.0, requires_grad=True)
    y = x * x
    z = y + y * y + y.exp()  # y feeds three consumers
    z.backward()
    expected = 2 * 2 + 2 * 4 * 2 * 2 + np.exp(4) * 2 * 2
    assert np.isclose(x.grad.item(), expected)


def test_second_backward_without_retain_graph_raises():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert np.allclose(x.grad.numpy(), 2 * (np.exp([1, 2]) * np.array([2, 3])))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_backward_on_non_scalar_needs_a_gradient():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    (x * 2).backward(E.tensor([1.0, -1.0]))
    assert x.grad.tolist() == [2.0, -2.0]


def test_an_output_without_grad_is_refused_before_its_implicit_gradient():
    # PyTorch's _make_grads creates (and checks) an implicit gradient only for an output that requires grad
    x = E.tensor([1.0, 2.0], requires_grad=True)
    for call in (lambda: E.ones(2).backward(), lambda: E.ones(2, dtype=E.int64).backward(),
                 lambda: E.autograd.grad(E.ones(2), x)):
        with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a "
                                               "grad_fn$"):
            call()
    with pytest.raises(RuntimeError, match="^element 1 of tensors does not require grad"):
        E.autograd.backward([x.sum(), E.ones(2)])


def test_backward_of_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        E.tensor([1.0]).sum().backward()


def test_grad_returns_gradients_without_touching_dot_grad():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = E.tensor([3.0, 4.0], requires_grad=True)
    gx, gy = E.grad((x * y).sum(), (x, y))
    assert gx.tolist() == [3.0, 4.0] and gy.tolist() == [1.0, 2.0]
    assert x.grad is None and y.grad is None


def test_grad_allow_unused_and_materialize():
    x = E.tensor([1.0], requires_grad=True)
    unused = E.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^The differentiated Tensor at index 1 appears to not have been used in "
                                           r"the graph"):
        E.grad((x * 2).sum(), (x, unused))
    gx, gu = E.grad((x * 2).sum(), (x, unused), allow_unused=True)
    assert gu is None and gx.tolist() == [2.0]
    _, gu = E.grad((x * 2).sum(), (x, unused), materialize_grads=True)
    assert gu.tolist() == [0.0]


def test_grad_with_respect_to_an_intermediate():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    (gh,) = E.grad(y, h)
    assert gh.tolist() == [6.0, 12.0]


def test_grad_of_inputs_not_requiring_grad_raises():
    x = E.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        E.grad((x * 2).sum(), E.tensor([1.0]))


def test_grad_outputs_shape_mismatch():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape("Mismatch in shape: grad_output[0] has a shape of "
                                                     "ember.Size([3]) and output[0] has a shape of ember.Size([2]).")):
        E.grad(x * 2, x, E.ones(3))


def test_create_graph_gives_higher_order_derivatives():
    x = E.tensor(1.5, dtype=E.float64, requires_grad=True)
    y = x ** 3
    (g,) = E.grad(y, x, create_graph=True)
    (gg,) = E.grad(g, x, create_graph=True)
    (ggg,) = E.grad(gg, x)
    assert np.isclose(g.item(), 3 * 1.5 ** 2) and np.isclose(gg.item(), 6 * 1.5) and np.isclose(ggg.item(), 6)


def test_backward_create_graph_keeps_grad_differentiable():
    x = E.tensor([1.0, 2.0], dtype=E.float64, requires_grad=True)
    (x ** 2).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    gnorm = (x.grad * x.grad).sum()
    x.grad = None
    gnorm.backward()
    assert x.grad.tolist() == [8.0, 16.0]


def test_backward_inputs_restricts_accumulation():
    a = E.tensor([1.0], requires_grad=True)
    b = E.tensor([2.0], requires_grad=True)
    (a * b).sum().backward(inputs=[a])
    assert a.grad.tolist() == [2.0] and b.grad is None


def test_ten_thousand_op_chain_does_not_recurse():
    x = E.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_tensor_hooks_see_and_replace_gradients():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()))
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert seen == [[20.0, 20.0]] and x.grad.tolist() == [20.0, 20.0]
    h.remove()
    x.grad = None
    (x * 1).sum().backward()
    assert len(seen) == 1


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        E.tensor([1.0]).register_hook(lambda g: g)


def test_retain_grad_populates_non_leaf_grad():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    assert y.retains_grad and not x.retains_grad
    (y * y).sum().backward()
    assert y.grad.tolist() == [6.0, 12.0]


def test_non_leaf_grad_access_warns():
    y = E.tensor([1.0], requires_grad=True) * 2
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed") as caught:
        assert y.grad is None
    assert str(caught[0].message).endswith("If you access the non-leaf Tensor by mistake, make sure you access the "
                                           "leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
                                           "information. (Triggered internally at /__w/pytorch/pytorch/build/aten/"
                                           "src/ATen/core/TensorBody.h:493.)")  # with PyTorch's C++ source location


def test_post_accumulate_grad_hook_runs_after_accumulation():
    x = E.tensor([1.0], requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.item()))
    (x * 4).sum().backward()
    assert seen == [4.0]


def test_grad_fn_names_and_next_functions():
    a = E.tensor([1.0], requires_grad=True)
    b = E.tensor([2.0], requires_grad=True)
    y = (a * b).exp()
    assert y.grad_fn.name() == "ExpBackward0" and type(y.grad_fn).__name__ == "ExpBackward0"
    (mul, nr), = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and nr == 0
    (acc_a, _), (acc_b, _) = mul.next_functions
    assert acc_a.name() == "torch::autograd::AccumulateGrad" and acc_a.variable is a and acc_b.variable is b
    assert (a * 2).grad_fn.next_functions[0][0] is acc_a  # one AccumulateGrad per leaf
    assert "grad_fn=<ExpBackward0>" in repr(y)
    assert "requires_grad=True" in repr(a)
    c = a * E.tensor([1.0])
    assert c.grad_fn.next_functions[1] == (None, 0)


def test_requires_grad_rules():
    x = E.tensor([1.0])
    assert not (x * 2).requires_grad
    x.requires_grad = True
    y = x * 2
    assert y.requires_grad and not y.is_leaf
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    # PyTorch's three wordings: requires_grad_(), the setter, the factories' requires_grad=True
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        E.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require gradients$"):
        E.tensor([1, 2]).requires_grad = True
    factories = (lambda: E.zeros(2, dtype=E.int64, requires_grad=True), lambda: E.tensor([1], requires_grad=True),
                 lambda: E.randint(3, (2,), requires_grad=True), lambda: E.arange(3, requires_grad=True),
                 lambda: E.full((2,), 1, requires_grad=True), lambda: E.ones_like(E.tensor([1]), requires_grad=True))
    for factory in factories:
        with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require "
                                               "gradients$"):
            factory()
    assert E.ones(2, requires_grad=True).requires_grad
    assert not E.tensor([1, 2.0]).int().requires_grad


def test_integer_and_bool_outputs_never_require_grad():
    x = E.tensor([1.0, -2.0], requires_grad=True)
    assert not (x > 0).requires_grad
    assert not x.argmax().requires_grad
    values, indices = x.max(0)
    assert values.requires_grad and not indices.requires_grad


def test_grad_setter_validates():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    x.grad = E.tensor([0.5, 0.5])
    x.grad = None
    with pytest.raises(RuntimeError) as e:  # PyTorch's words
        x.grad = E.tensor([1.0])
    assert str(e.value) == ("attempting to assign a gradient of size '[1]' to a tensor of size '[2]'. Please ensure "
                            "that the gradient and the tensor are the same size")
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient with dtype 'double' to a tensor with "
                                           "grad_dtype 'Float'. The gradient must match"):
        x.grad = E.tensor([1.0], dtype=E.float64)  # the dtype is checked before the size
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient with device type 'meta' to a tensor "
                                           "with device type 'cpu'"):
        x.grad = E.empty(1, device="meta")
    with pytest.raises(RuntimeError, match="with dtype 'long int' to a tensor with grad_dtype 'Float'"):
        x.grad = E.tensor([1, 2])
    with pytest.raises(TypeError, match="^assigned grad expected to be a Tensor or None but got grad of type "
                                        "numpy.ndarray$"):
        x.grad = np.ones(2)


def test_detach_inplace_refuses_every_view():
    """PyTorch refuses `detach_()` on any view, also of a base that does not require grad."""
    base = E.ones(2, 2)
    for v in (base[0], E.ones(2, 2, requires_grad=True)[0]):
        with pytest.raises(RuntimeError, match=r"^Can't detach views in-place. Use detach\(\) instead. If you are "
                                               "using DistributedDataParallel"):
            v.detach_()
    y = E.ones(2, requires_grad=True) * 2
    assert y.detach_() is y and not y.requires_grad and y.grad_fn is None


def test_detach_shares_memory_and_leaves_the_graph():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    d[0] = 7.0
    assert y[0].item() == 7.0 and y._version == d._version == 1
    y2 = x * 3
    y2.detach_()
    assert y2.is_leaf and not y2.requires_grad


def test_data_is_a_detached_alias_and_settable():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    with E.no_grad():
        pass
    x.data.mul_(2)
    assert x.tolist() == [2.0, 4.0] and x.requires_grad
    x.data = E.tensor([5.0, 6.0])
    assert x.tolist() == [5.0, 6.0] and x.requires_grad and x.is_leaf


def test_data_has_its_own_version_counter_so_autograd_does_not_see_its_writes():
    """PyTorch's documented difference between `.data` and `.detach()`: a write through `.data` is not seen by
    autograd's checks (the backward silently uses the new values), one through `.detach()` raises."""
    a = E.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.data
    c.zero_()
    assert (c._version, out._version) == (1, 0)
    out.sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0]  # sigmoid's derivative out * (1 - out) at the zeroed out
    out2 = a.sigmoid()
    out2.detach().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out2.sum().backward()
    w = E.ones(3, requires_grad=True)
    y = (w * w).sum()
    w.data.mul_(2)  # a legacy optimizer's step between forward and backward
    y.backward()
    assert w.grad.tolist() == [4.0, 4.0, 4.0] and w._version == 0


def test_data_counter_is_fresh_per_call_shared_by_its_views_and_memory_is_the_owners():
    w = E.zeros(4)
    d = w.data
    d.add_(1)
    d.add_(1)
    v = d[1:]
    v.add_(1)
    assert (d._version, v._version, w.data._version, w._version) == (3, 3, 0, 0)
    assert w.tolist() == [2.0, 3.0, 3.0, 3.0] and d.data_ptr() == w.data_ptr()
    d.resize_(6)  # resizing through `.data` resizes the owner's memory
    assert w._storage.nbytes == 24 and w.data.data._storage.root is w._storage


def test_data_of_a_sparse_tensor_is_its_detached_sparse_self():
    s = E.eye(3).to_sparse().requires_grad_()
    d = s.data
    assert d.layout == s.layout and not d.requires_grad and d.to_dense().tolist() == E.eye(3).tolist()


def test_numpy_of_tensor_requiring_grad_raises():
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        E.tensor([1.0], requires_grad=True).numpy()


def test_numpy_of_tensor_requiring_grad_under_no_grad_shares_memory():
    """PyTorch refuses only under grad mode: a custom Function's forward (run without grad) may call .numpy()."""
    x = E.tensor([1.0, 2.0], requires_grad=True)
    with E.no_grad():
        a = x.numpy()
    a[0] = 7.0
    assert x.tolist() == [7.0, 2.0]


# --- in-place ops ---------------------------------------------------------------------------
def test_inplace_on_an_output_of_split_or_unbind_is_refused_as_pytorch():
    """PyTorch refuses in-place writes into the views of a function returning several (split, chunk, unbind) while
    they require grad; unsafe_split's pieces, tensor_split's, and writes under no_grad are allowed."""
    x = E.ones(4, 2, requires_grad=True) * 1
    for pieces, name in ((x.split(2), "Split"), (x.chunk(2, 1), "Split"), (x.split([1, 3]), "SplitWithSizes"),
                         (x.unbind(), "Unbind")):
        with pytest.raises(RuntimeError, match=f"^Output 1 of {name} is a view and is being modified inplace. This "
                                               "view is the output of a function that returns multiple views."):
            pieces[1].mul_(2)
    with E.no_grad():
        x.split(2)[1].mul_(2)
    x.unsafe_split(2)[1].mul_(2)
    x.tensor_split(2)[1].mul_(2)
    E.ones(4).split(2)[0].mul_(2)  # no grad required
    assert type(x.unsafe_chunk(2)[0].grad_fn).__name__ == "UnsafeSplitBackward0"


def test_data_of_a_tensor_requiring_grad_must_stay_floating():
    p = E.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^data set to a tensor that requires gradients must be floating point or "
                                           "complex dtype$"):
        p.data = E.ones(2, dtype=E.int64)
    q = E.ones(2)
    q.data = E.ones(2, dtype=E.int64)
    assert q.dtype == E.int64


def test_inplace_on_leaf_requiring_grad_raises():
    x = E.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place "
                                           "operation."):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation."):
        x[0:1].mul_(2)
    v = E.zeros(3)[:2].requires_grad_()  # a view made a leaf: PyTorch still calls it a view
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation.$"):
        v.mul_(2)
    base = E.zeros(2, 2)
    stale = base[:, 0]
    base[:, 1] = E.ones(2, requires_grad=True)  # the base is no leaf now: PyTorch names the view a leaf
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place"):
        stale.mul_(2)
    with E.no_grad():
        x.add_(1)  # allowed without grad mode (optimizer steps)
    assert x.item() == 2.0


def test_inplace_on_non_leaf_rebases_history():
    x = E.tensor([1.0, 2.0], dtype=E.float64, requires_grad=True)
    y = x * 2
    y.mul_(y)  # needs y's old value for both inputs
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [8.0, 16.0]  # d/dx (2x)^2


def test_inplace_exp_uses_its_result():
    x = E.tensor([0.5], dtype=E.float64, requires_grad=True)
    y = x * 1.0
    y.exp_()
    y.backward(E.ones(1, dtype=E.float64))
    assert np.isclose(x.grad.item(), np.exp(0.5))


def test_zero_dim_inplace_arithmetic_is_recorded_and_refused_on_a_leaf():
    x = E.tensor(1.5, dtype=E.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    y = x * 1.0
    y.add_(2)
    y.mul_(3)  # y = 3 (x + 2)
    assert y.grad_fn.name() == "MulBackward0" and y.item() == 10.5
    y.backward()
    assert x.grad.item() == 3.0


def test_inplace_on_view_of_non_leaf_rebases_base_with_copyslices():
    a = make((2, 3))
    b = a * 2
    v = b[0]
    v.mul_(3)
    assert isinstance(b.grad_fn, CopySlices) and b.grad_fn.name() == "torch::autograd::CopySlices"
    assert repr(b).endswith("grad_fn=<CopySlices>)")  # the class name, as PyTorch's repr shows it
    assert v.grad_fn.name() == "AsStridedBackward0"  # PyTorch regenerates the view as one as_strided
    b.backward(E.ones(2, 3, dtype=E.float64))
    assert a.grad.tolist() == [[6.0] * 3, [2.0] * 3]
    assert E.gradcheck(lambda t: _mul_row(t), (make((2, 3)),))


def _mul_row(t):
    b = t * 1.0
    b[1:, ::2] *= b[:1, ::2] + 1.0
    return b


def test_setitem_into_a_buffer_makes_it_require_grad():
    w = E.tensor([1.5, -2.0], dtype=E.float64, requires_grad=True)
    buf = E.zeros(4, dtype=E.float64)
    buf[1:3] = w * w
    assert buf.requires_grad and buf.grad_fn.name() == "torch::autograd::CopySlices"
    (buf * E.arange(4, dtype=E.float64)).sum().backward()
    assert w.grad.tolist() == [2 * 1.5 * 1, 2 * -2.0 * 2]


def test_views_of_a_buffer_require_grad_once_an_inplace_writes_a_grad_into_it():
    """NOTE [ Waking views ]: views made in grad mode of a buffer that required no grad (a sibling slice, a transposed
    view, a view of a view) require grad after a write through another view or into the buffer itself, and carry the
    gradient back; PyTorch's values (they stayed leaves, gradient lost)."""
    w = E.arange(8.0, dtype=E.float64, requires_grad=True)
    buf = E.zeros(8, dtype=E.float64)
    v = buf.view(2, 4)
    vt = v.t()[1:]
    buf[:4] = w[:4] * 2
    assert (v.requires_grad, v.is_leaf, type(vt.grad_fn).__name__) == (True, False, "AsStridedBackward0")
    (vt * E.arange(6.0, dtype=E.float64).view(3, 2)).sum().backward()
    assert w.grad.tolist() == [0.0, 0.0, 4.0, 8.0, 0.0, 0.0, 0.0, 0.0]
    b = E.zeros(2, 4, dtype=E.float64)
    rows = [b[0], b[1]]
    b.copy_(w.view(2, 4))
    assert all(r.requires_grad and not r.is_leaf for r in rows)
    w.grad = None
    (rows[1] * 3).sum().backward()
    assert w.grad.tolist() == [0.0] * 4 + [3.0] * 4
    p = E.zeros(2, 4)
    t = p[:, 3]
    p[:, :3] = w[:6].view(2, 3) * 1.0
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        t.copy_(E.ones(2))  # as PyTorch's: its node is made on use, so to the in-place check it is a leaf until then
    assert not t.is_leaf and type(t.grad_fn).__name__ == "AsStridedBackward0"
    t.copy_(E.ones(2))


def test_waking_views_walks_weak_references_not_the_heap(monkeypatch):
    """NOTE [ Waking views ]: the views a no-grad buffer made are found through its weak references (the heap is
    never scanned: `gc.get_referrers` would walk every object at every such write, once a training step), dead ones
    are dropped as more are made, and none is kept alive."""
    import gc
    import weakref

    monkeypatch.setattr(gc, "get_referrers", lambda *a: pytest.fail("the heap was scanned"))
    w = E.ones(4, dtype=E.float64, requires_grad=True)
    buf = E.zeros(2, 4, dtype=E.float64)
    for _ in range(300):  # views made and dropped, as a loop's slices are
        buf[0].sum()
    assert len(buf._ag.grad_views) < 100
    kept = buf[1]
    gone = weakref.ref(buf[1])
    assert gone() is None
    buf[0] = w * 2
    assert kept.requires_grad and buf._ag.grad_views is None
    kept.sum().backward()
    assert w.grad.tolist() == [0.0] * 4


def test_views_created_before_an_inplace_see_the_new_history():
    x = E.tensor([1.0, 2.0], dtype=E.float64, requires_grad=True)
    b = x * 1.0
    v = b[:1]
    b.mul_(5)
    v.sum().backward()
    assert x.grad.tolist() == [5.0, 0.0]


def test_modified_saved_tensor_raises_with_versions():
    x = E.ones(3, 4, requires_grad=True)
    y = x.exp()
    z = y * 2
    y.add_(1)
    msg = ("one of the variables needed for gradient computation has been modified by an inplace operation: "
           "[torch.FloatTensor [3, 4]], which is output 0 of Exp, is at version 1; expected version 0 "
           "instead.")
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        z.sum().backward()


def test_modified_saved_input_names_its_producer():
    x = E.ones(2, requires_grad=True)
    h = x * 3
    y = h * h
    h.add_(1)
    # PyTorch names the saved input's grad_fn after the in-place op (h's is now add_'s)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[2\]\], which is output 0 of Add, is at "
                                           r"version 1; expected version 0 instead"):
        y.sum().backward()
    s = x.sigmoid()
    s.mul_(2)  # sigmoid saved its output: PyTorch names sigmoid's node
    with pytest.raises(RuntimeError, match=r"which is output 0 of Sigmoid, is at version 1"):
        s.sum().backward()


def test_out_argument_with_grad_raises():
    x = E.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape("functions with out=... arguments don't support automatic "
                                                     "differentiation, but one of the arguments requires grad.")):
        E.add(x, x, out=E.empty(1))


def test_fill_and_zero_on_non_leaf_cut_the_gradient():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.zero_()
    (y + x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_broadcast_gradients_reduce_to_input_shapes_and_dtypes():
    a = E.ones(2, 1, 3, requires_grad=True)
    b = E.ones(4, 1, dtype=E.float64, requires_grad=True)
    (a * b).sum().backward()
    assert tuple(a.grad.shape) == (2, 1, 3) and a.grad.dtype == E.float32 and a.grad[0, 0, 0].item() == 4.0
    assert tuple(b.grad.shape) == (4, 1) and b.grad.dtype == E.float64 and b.grad[0, 0].item() == 6.0


def test_non_contiguous_and_strided_views_get_gradients():
    base = make((4, 6))
    t = base.t()[::2, 1:]
    (t * t).sum().backward()
    expected = np.zeros((4, 6))
    expected[1:, ::2] = 2 * base.detach().numpy()[1:, ::2]
    assert np.allclose(base.grad.numpy(), expected)


def test_graph_is_freed_by_reference_counting():
    import weakref

    x = E.ones(3, requires_grad=True)
    y = (x * 2).exp()
    y.grad_fn.metadata["tag"] = 1
    node, mul = weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])
    del y
    assert node() is None and mul() is None


def test_node_hooks():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []
    y.grad_fn.register_prehook(lambda gout: seen.append(("pre", gout[0].tolist())))
    y.grad_fn.register_hook(lambda gin, gout: (gin[0] * 2,))
    y.sum().backward()
    assert seen == [("pre", [1.0, 1.0])] and x.grad.tolist() == [6.0, 6.0]


def test_grad_with_batched_grad_outputs_gives_the_jacobian_row_by_row():
    x = E.tensor([0.5, -1.0, 2.0], dtype=E.float64, requires_grad=True)
    w = E.tensor([1.0, 3.0], dtype=E.float64, requires_grad=True)
    y = E.stack([x.sin().sum() * w[0], (x * x).sum() * w[1]])  # (2,)
    jx, jw = E.autograd.grad(y, (x, w), E.eye(2, dtype=E.float64), is_grads_batched=True)
    xn = x.detach().numpy()
    np.testing.assert_allclose(jx.numpy(), np.stack([np.cos(xn) * 1.0, 2 * xn * 3.0]), rtol=1e-12)
    np.testing.assert_allclose(jw.numpy(), [[np.sin(xn).sum(), 0.0], [0.0, (xn * xn).sum()]], rtol=1e-12)
    z = E.tensor([1.0], requires_grad=True)
    (jz,) = E.autograd.grad((z * 2).sum(), z, E.ones(0), is_grads_batched=True)
    assert jz.shape == (0, 1)
    with pytest.raises(ValueError, match=r"^vmap: Expected all tensors to have the same size in the mapped "
                                         r"dimension, got sizes \[2, 3\] for the mapped dimension$"):
        E.autograd.grad([y, y.sum()], x, [E.eye(2), E.ones(3)], is_grads_batched=True)
    # PyTorch's message shows the grad_output's shape less its first two dims
    with pytest.raises(RuntimeError, match=r"^If `is_grads_batched=True`, we interpret the first dimension of each "
                                           r"grad_output as the batch dimension\. .* grad_output\[0\] has a shape of "
                                           r"\w+\.Size\(\[\]\) and output\[0\] has a shape of \w+\.Size\(\[2\]\)\. If "
                                           r"you only want some tensors in `grad_output` to be considered batched"):
        E.autograd.grad(y, x, E.ones(4, 3), is_grads_batched=True)


# --- a non-leaf's .grad under create_graph ------------------------------------------------------
def _square_chain():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    return x, y


def test_retained_grad_keeps_its_graph_under_create_graph():
    x, y = _square_chain()
    y.retain_grad()
    (y * y).sum().backward(create_graph=True)
    assert y.grad.tolist() == [2.0, 8.0]  # 2 y
    assert y.grad.requires_grad and type(y.grad.grad_fn).__name__ == "CloneBackward0"
    x.grad = None
    y.grad.sum().backward()  # d(sum 2 x^2)/dx = 4 x
    assert x.grad.tolist() == [4.0, 8.0]


def test_retained_grad_accumulates_with_its_graph():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y * y).sum().backward(create_graph=True, retain_graph=True)
    (y * y).sum().backward(create_graph=True)
    assert y.grad.tolist() == [12.0, 24.0] and type(y.grad.grad_fn).__name__ == "AddBackward0"


def test_backward_inputs_of_a_non_leaf_keeps_its_graph_under_create_graph():
    x, y = _square_chain()
    (y * y).sum().backward(create_graph=True, inputs=[y])
    assert y.grad.requires_grad and type(y.grad.grad_fn).__name__ == "CloneBackward0" and x.grad is None


def test_retained_grad_without_create_graph_is_detached():
    x, y = _square_chain()
    y.retain_grad()
    (y * y).sum().backward()
    assert not y.grad.requires_grad and y.grad.grad_fn is None


@pytest.mark.torch
def test_retained_grad_under_create_graph_matches_pytorch():
    torch = pytest.importorskip("torch")
    seen = []
    for M in (E, torch):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        y.retain_grad()
        (y * y).sum().backward(create_graph=True)
        seen.append((y.grad.requires_grad, type(y.grad.grad_fn).__name__, y.grad.tolist()))
    assert seen[0] == seen[1]


def test_saved_attributes_of_a_node_are_pytorchs():
    import ember.autograd as E

    a = E.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    other = b.grad_fn._saved_other
    assert other.dtype == E.int64 and other.dim() == 0 and other.item() == 2
    assert b.grad_fn._saved_self is None and (a * b).grad_fn._saved_other.tolist() == b.tolist()
    e = a.exp()
    assert e.grad_fn._saved_result.tolist() == e.tolist()
    assert (a * 2.5).grad_fn._saved_other.dtype == E.float64
    try:
        b.grad_fn._saved_nothing
    except AttributeError as err:
        assert str(err) == "'MulBackward0' object has no attribute '_saved_nothing'"
    else:
        raise AssertionError("no AttributeError")
    e.sum().backward()
    try:
        e.grad_fn._saved_result
    except RuntimeError as err:
        assert "backward through the graph a second time" in str(err)
    else:
        raise AssertionError("no RuntimeError")


def test_multi_grad_hooks_and_gradient_edges_as_pytorch():
    import ember.autograd as E
    from ember.autograd.graph import get_gradient_edge, register_multi_grad_hook

    p1, p2 = E.ones(2, requires_grad=True), E.ones(2, requires_grad=True)
    seen = []
    h = register_multi_grad_hook((p1, p2), lambda grads: seen.append([g is not None for g in grads]))
    (p1 * 3).sum().backward()
    (p1 * p2).sum().backward()
    h.remove()
    (p1 * p2).sum().backward()
    assert seen == [[True, False], [True, True]]
    first = []
    with register_multi_grad_hook((p1, p2), lambda g: first.append(g.tolist()), mode="any"):
        (p1 * 2 + p2 * 5).sum().backward()
    assert len(first) == 1
    try:
        register_multi_grad_hook((p1,), print, mode="some")
    except ValueError as err:
        assert str(err) == "Expects mode to be one of ('all', 'any') but got some"
    z = E.ones(3, requires_grad=True)
    mid = z.exp()
    (g,) = E.grad(mid.sum() * 2, get_gradient_edge(mid))
    assert g.tolist() == [2.0, 2.0, 2.0]


def test_a_view_regenerated_after_an_in_place_write_is_as_strided():
    import ember.autograd as E

    v = E.ones(4, requires_grad=True).clone()
    w = v[:2]
    v.mul_(2)
    assert w.grad_fn.name() == "AsStridedBackward0" and w.grad_fn.next_functions[0][0] is v.grad_fn


def test_modified_saved_view_names_asstrided_as_pytorch():
    a = E.ones(4, requires_grad=True)
    b = a * 2
    c = b[1:3]
    d = c.pow(2)  # saves the view c
    b.mul_(2)  # the base changes: c's grad_fn is regenerated, AsStridedBackward0 in PyTorch
    assert c.grad_fn.name() == "AsStridedBackward0"
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[\w+\.FloatTensor \[2\]\], which is "
                                           r"output 0 of AsStrided, is at version 1; expected version 0 instead"):
        d.sum().backward()


def test_modified_saved_view_names_asstrided_unread():
    """The message regenerates the view's node itself: nothing read `grad_fn` after the write."""
    a = E.rand(3, 16, requires_grad=True).clone()
    j = a[..., 15::16]
    y = j * j
    a[..., -1] = 1.0  # a write through another view of j's base
    with pytest.raises(RuntimeError, match=r"\[\w+\.FloatTensor \[3, 1\]\], which is output 0 of AsStrided, is at "
                                           r"version 1; expected version 0 instead"):
        y.sum().backward()


def test_reflected_operators_graph_as_pytorch():
    """`2 * x` and `1 + x` are PyTorch's `x.mul(2)` / `x.add(1)` (the number's (None, 0) edge last); `2 / x` is
    `x.reciprocal() * 2`."""
    x = E.ones(2, requires_grad=True)

    def names(t):
        return t.grad_fn.name(), [None if n is None else n.name() for n, _ in t.grad_fn.next_functions]

    acc = "torch::autograd::AccumulateGrad"
    assert names(2 * x) == ("MulBackward0", [acc, None])
    assert names(1 + x) == ("AddBackward0", [acc, None])
    assert names(2 / x) == ("MulBackward0", ["ReciprocalBackward0", None])
    (2 / x).sum().backward()
    assert x.grad.tolist() == [-2.0, -2.0]


def test_volatile_is_pytorchs_removed_flag():
    """`Variable(x, volatile=True)` and `x.volatile = True` warn that it has no effect; reading it warns, False."""
    import warnings

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        v = E.Variable(E.ones(2), volatile=True)
        E.Variable(E.ones(2), volatile=False)  # silent, as PyTorch
        v.volatile = True
        assert v.volatile is False and not v.requires_grad
    assert [(i.category, str(i.message)) for i in w] == [
        (UserWarning, "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."),
        (UserWarning, "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."),
        (UserWarning, "volatile was removed (Variable.volatile is always False)"),
    ]
    assert all(i.filename == __file__ for i in w)


def test_resize_of_a_tensor_that_requires_grad_is_refused_in_pytorchs_words():
    x = E.ones(2, requires_grad=True)
    for t in (x, x * 2):
        with pytest.raises(RuntimeError, match="^cannot resize variables that require grad$"):
            t.resize_(3)
    assert type(E.Variable).__name__ == "VariableMeta" and isinstance(x, E.Variable)


def test_node_classes_print_as_pytorchs_cpp_types():
    """PyTorch's graph nodes are C++ types (`<class 'MulBackward0'>`); a custom Function's node is a Python class
    of torch.autograd.function's module (ember.autograd.function's, here)."""
    x = E.ones(2, requires_grad=True)
    y = x * 2
    z = E.ones(3, requires_grad=True).clone()
    z[0] = x[0]

    class Sq(E.Function):
        @staticmethod
        def forward(ctx, a):
            return a * a

        @staticmethod
        def backward(ctx, g):
            return g

    assert [repr(type(n)) for n in (y.grad_fn, y.grad_fn.next_functions[0][0], z.grad_fn)] == [
        "<class 'MulBackward0'>", "<class 'AccumulateGrad'>", "<class 'CopySlices'>"]
    assert repr(type(Sq.apply(x).grad_fn)) == "<class 'ember.autograd.function.SqBackward'>"


def test_a_numpy_array_next_to_a_tensor_that_requires_grad_is_refused():
    """numpy computes `t * array` (PyTorch's operators refuse arrays), so it asks for t's values: PyTorch's error."""
    t = E.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        t * np.ones(2)
    assert (t.detach() * np.ones(2)).dtype is E.float64


def test_requires_grad_takes_a_bool_only_as_pytorch():
    t = E.ones(1)
    for bad, name in ((1, "int"), (np.bool_(True), "numpy.bool"), (E.tensor(True), "Tensor"), (None, "NoneType")):
        with pytest.raises(TypeError, match=re.escape(f"requires_grad_(): argument 'requires_grad' (position 1) must "
                                                      f"be bool, not {name}")):
            t.requires_grad_(bad)
        with pytest.raises(RuntimeError, match="^requires_grad must be a bool$"):
            t.requires_grad = bad
    assert t.requires_grad_(True).requires_grad and not t.requires_grad_(False).requires_grad


def test_grad_refuses_empty_inputs_before_looking_at_the_outputs():
    x = E.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty."):
        E.grad(x.sum().long(), [])


def test_rounding_division_has_a_zero_gradient_and_floor_divide_refuses_as_pytorch():
    """`div(rounding_mode="floor"/"trunc")` records DivBackward2 with zero gradients (zeros, not grad * 0), where
    `//` and `floor_divide` record PyTorch's `NotImplemented` node, whose backward raises."""
    x = E.tensor([1.5, -2.5, 3.0], requires_grad=True)
    other = E.tensor([2.0, 2.0, 2.0], requires_grad=True)
    for mode in ("floor", "trunc"):
        y = x.div(other, rounding_mode=mode)
        assert type(y.grad_fn).__name__ == "DivBackward2"
        x.grad = other.grad = None
        y.backward(E.tensor([float("nan"), 1.0, 1.0]))
        assert x.grad.tolist() == [0.0, 0.0, 0.0] and other.grad.tolist() == [0.0, 0.0, 0.0]
    assert x.div(2, rounding_mode="floor").tolist() == [0.0, -2.0, 1.0]
    for y in (x // 2, E.floor_divide(x, other)):
        assert type(y.grad_fn).__name__ == "NotImplemented" and y.requires_grad
        with pytest.raises(RuntimeError, match=r"^derivative for aten::floor_divide is not implemented$"):
            y.sum().backward()
    # the C++ node keeps its namespace in name(), as CopySlices; remainder(Scalar, Tensor) records it too
    assert (x // 2).grad_fn.name() == "torch::autograd::NotImplemented"
    y = E.remainder(5.0, x)
    assert y.grad_fn.name() == "torch::autograd::NotImplemented" and y.tolist() == [0.5, -0.0, 2.0]
    with pytest.raises(RuntimeError, match=r"^derivative for aten::remainder is not implemented$"):
        y.sum().backward()


def test_binary_overloads_name_their_nodes_as_pytorchs():
    x = E.tensor([1.5, -2.5], requires_grad=True)
    t = E.tensor(2.0)
    names = [r.grad_fn.name() for r in (E.copysign(x, t), E.copysign(x, -1.0), E.fmod(x, 2.0), E.fmod(x, t),
                                        x % 2, x % t, E.float_power(x, t), E.float_power(2.0, x))]
    assert names == ["CopysignBackward0", "CopysignBackward1", "FmodBackward0", "FmodBackward1",
                     "RemainderBackward0", "RemainderBackward1", "PowBackward1", "PowBackward2"]
    y = x * 1
    y.fmod_(t)
    assert y.grad_fn.name() == "FmodBackward1"


def test_circular_padding_hangs_from_pytorchs_copyslices_node():
    x = E.arange(6.0).reshape(1, 2, 3).requires_grad_()
    # (1, 2) wraps [x2 | x0 x1 x2 | x0 x1]; (-1, 1) crops x0 first, then wraps [x1 x2 | x1]
    for pad, counts in [((1, 2), [2.0, 2.0, 2.0]), ((-1, 1), [0.0, 2.0, 1.0])]:
        y = E.pad(x, pad, mode="circular")
        assert type(y.grad_fn).__name__ == "CopySlices" and y.grad_fn.name() == "torch::autograd::CopySlices"
        x.grad = None
        (y * y).sum().backward()  # each element's gradient: 2 x times the places it lands in the output
        assert x.grad.tolist() == (2 * x.detach() * E.tensor(counts)).tolist()


def test_calling_a_node_checks_its_arity_and_returns_like_pytorchs():
    x = E.tensor([1.0, -2.0], requires_grad=True)
    y = x.pow(3)
    assert y.grad_fn(E.ones(2)).tolist() == [3.0, 12.0]  # one gradient out: the tensor itself, no list
    with pytest.raises(TypeError, match=r"^expected 1 arguments, got 0 instead$"):
        y.grad_fn()
    with pytest.raises(TypeError, match=r"^expected 1 arguments, got 2 instead$"):
        y.grad_fn(E.ones(2), E.ones(2))
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert acc(E.ones(2)) == () and x.grad.tolist() == [1.0, 1.0]


def test_a_custom_functions_node_is_not_callable():
    class Triple(E.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

    z = Triple.apply(E.ones(2, requires_grad=True))
    with pytest.raises(TypeError, match="'TripleBackward' object is not callable"):
        z.grad_fn(E.ones(2))
    # PyTorch's Python-defined nodes have no __call__ at all; its C++ nodes (ember's others) do
    assert not callable(z.grad_fn) and not hasattr(z.grad_fn, "__call__")
    assert callable(z.grad_fn.next_functions[0][0]) and callable((z * 2).grad_fn)


def test_saved_shape_attributes_by_atens_names():
    """PyTorch's `_saved_self_sym_sizes`/`_sym_strides`/`_sym_numel` and `_saved_dim` (ember's `dims`)."""
    p = E.randn(2, 3, requires_grad=True)
    s = p.sum(1)
    assert s.grad_fn._saved_self_sym_sizes == (2, 3) and s.grad_fn._saved_dim == (1,)
    u, t = p.unsqueeze(-1), p.transpose(-1, 0)  # a negative dim as PyTorch's SymInt reads it: unsigned 64-bit
    assert u.grad_fn._saved_dim == (1 << 64) - 1
    assert (t.grad_fn._saved_dim0, t.grad_fn._saved_dim1) == ((1 << 64) - 1, 0)
    m = p.t().mm(p)  # mat2 saved with its geometry
    assert m.grad_fn._saved_mat2_sym_sizes == (2, 3) and m.grad_fn._saved_mat2_sym_strides == (3, 1)
    assert p[:, 1:].grad_fn._saved_start == 1 and p.view(6).grad_fn._saved_self_sym_sizes == (2, 3)
    assert p.expand(4, 2, 3).grad_fn._saved_self_sym_sizes == (2, 3)
    # slice's bounds as ATen saves them: open ends filled in, negative ones read as unsigned 64-bit
    q = E.randn(5, requires_grad=True)
    assert (q[:2].grad_fn._saved_start, q[1:].grad_fn._saved_end) == (0, 2 ** 63 - 1)
    assert (q[-3:-1].grad_fn._saved_start, q[-3:-1].grad_fn._saved_end) == (2 ** 64 - 3, 2 ** 64 - 1)
    assert (q.narrow(0, 1, 3).grad_fn._saved_end, q.narrow(0, 1, 3).grad_fn._saved_step) == (4, 1)
    with pytest.raises(AttributeError, match="_saved_self_sym_numel"):
        p.exp().grad_fn._saved_self_sym_numel


def test_fewer_grad_outputs_than_outputs_is_pytorchs_error_and_extra_ones_are_ignored():
    x = E.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^got 2 tensors and 1 gradients$"):
        E.autograd.grad([x * 2, x * 3], x, grad_outputs=[E.ones(3)])
    (g,) = E.autograd.grad([x * 2], x, grad_outputs=[E.ones(3), E.ones(3)])
    assert g.tolist() == [2.0, 2.0, 2.0]
    # the paired gradients are checked before the count, as PyTorch's _make_grads runs before its engine
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of \w+\.Size\(\[1\]\) "
                                           r"and output\[0\] has a shape of \w+\.Size\(\[\]\)\.$"):
        E.autograd.backward([x.sum(), x.sum()], [E.ones(1)])


def test_inplace_copy_into_an_integer_tensor_records_nothing():
    # PyTorch: an integer destination is not differentiable, so copying a float that requires grad into it (whole,
    # through a slice or one element) leaves it without history; a float destination takes the copy's node
    src = E.tensor([1.5, 2.5], requires_grad=True)
    whole = E.zeros(2, dtype=E.int64)
    whole.copy_(src)
    part = E.zeros(3, dtype=E.int64)
    part[:2] = src
    one = E.zeros(2, dtype=E.int32)
    one[0] = src[1]
    for t, want in ((whole, [1, 2]), (part, [1, 2, 0]), (one, [2, 0])):
        assert t.tolist() == want and not t.requires_grad and t.grad_fn is None
    floats = E.zeros(3)
    floats[:2] = src
    assert floats.requires_grad and floats.grad_fn.name() == "torch::autograd::CopySlices"


def test_resize_of_a_tensor_that_requires_grad_is_refused_under_no_grad_too():
    x = E.ones(2, requires_grad=True)
    with E.no_grad():
        with pytest.raises(RuntimeError, match="^cannot resize variables that require grad$"):
            x.resize_(3)
        with pytest.raises(RuntimeError, match="^cannot resize variables that require grad$"):
            x.resize_as_(E.ones(2))
    assert x.shape == (2,)


@pytest.mark.parametrize("build, names", [
    (lambda x: x * x, ["_saved_other", "_saved_self"]),  # PyTorch 2.13's dir(), recorded
    (lambda x: x.exp(), ["_saved_result"]),
    (lambda x: x.view(3, 2), ["_saved_self_sym_sizes"]),
    (lambda x: x.sum(1, keepdim=True), ["_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes"]),
    (lambda x: x.clamp(-0.5, 0.5), ["_saved_max", "_saved_min", "_saved_self"]),
    (lambda x: x.neg(), []),
    (lambda x: x ** 2, ["_saved_exponent", "_saved_self"]),  # a number exponent: no result saved
    (lambda x: x.abs() ** x, ["_saved_exponent", "_saved_result", "_saved_self"]),
    (lambda x: x.t(), []),  # PyTorch's TBackward0 saves nothing
    (lambda x: x.permute(1, 0), ["_saved_dims"]),
    (lambda x: x.expand(4, 2, 3), ["_saved_self_sym_sizes"]),
    (lambda x: x.narrow(0, 1, 1), ["_saved_dim", "_saved_end", "_saved_self_sym_sizes", "_saved_start",
                                   "_saved_step"]),  # ATen's slice: no length
])
def test_dir_of_a_node_lists_pytorchs_saved_attributes_and_each_resolves(build, names):
    """torchviz's show_attrs walks dir(fn) and reads every `_saved_*` it finds."""
    x = E.randn(2, 3, requires_grad=True)
    fn = build(x).grad_fn
    listed = [n for n in dir(fn) if n.startswith("_saved_")]
    assert listed == names
    for n in listed:
        getattr(fn, n)
    assert ("_raw_saved_self" in dir(fn)) == ("_saved_self" in names)


def test_pow_of_a_number_exponent_has_no_saved_result():
    x = E.randn(3, requires_grad=True)
    with pytest.raises(AttributeError, match="'PowBackward0' object has no attribute '_saved_result'"):
        (x ** 2).grad_fn._saved_result


def test_a_root_gradient_takes_its_outputs_dtype():
    """PyTorch's engine casts a root's gradient to the root's dtype (a float32 `grad_outputs` of a float64 output);
    between real and complex it refuses in its `_make_grads` words."""
    x = E.tensor([1.0, 2.0], dtype=E.float64, requires_grad=True)
    (g,) = E.autograd.grad(x * 3, x, E.ones(2))
    assert g.dtype == E.float64 and g.tolist() == [3.0, 3.0]
    w = E.ones(2, 2, dtype=E.float64, requires_grad=True)
    E.addmm(E.zeros(2, dtype=E.float64), E.ones(1, 2, dtype=E.float64), w.t()).backward(E.ones(1, 2))
    assert w.grad.dtype == E.float64 and w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    z = E.ones(2, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match=r"^For complex Tensors, both grad_output and output are required to have "
                                           r"the same dtype\. Mismatch in dtype: grad_output\[0\] has a dtype of "
                                           r"\S+complex64 and output\[0\] has a dtype of \S+float32\.$"):
        E.autograd.grad(z, z, E.ones(2, dtype=E.complex64))


@pytest.mark.parametrize("call, msg", [
    (lambda p: p.sub_(p.grad, alpha=0.1), "sub_(): argument 'other' (position 1) must be Tensor, not NoneType"),
    (lambda p: p.mul_("a"), "mul_(): argument 'other' (position 1) must be Tensor, not str"),
])
def test_a_non_tensor_operand_is_refused_before_the_leaf_in_place_check(call, msg):
    """PyTorch parses the arguments first: `p.sub_(p.grad)` before any backward is its TypeError, grad mode or not."""
    p = E.ones(2).requires_grad_()
    with pytest.raises(TypeError, match=f"^{re.escape(msg)}$"):
        call(p)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place"):
        p.sub_(E.ones(2))


def test_grad_with_dict_inputs_returns_gradients_under_their_keys():
    w = E.tensor([1.0, -2.0], requires_grad=True)
    b = E.tensor([0.5], requires_grad=True)
    unused = E.zeros(1, requires_grad=True)
    loss = ((w * E.tensor([3.0, 4.0])).sum() + b.sum()) ** 2  # 2 * (-5 + 0.5) = -9 times d(inner)
    g = E.autograd.grad(loss, {"w": w, "b": b, "z": unused}, allow_unused=True, retain_graph=True)
    assert type(g) is dict and list(g) == ["w", "b", "z"]
    np.testing.assert_allclose(g["w"].numpy(), [-27.0, -36.0])
    np.testing.assert_allclose(g["b"].numpy(), [-9.0])
    assert g["z"] is None
    g = E.autograd.grad(loss, {"z": unused}, materialize_grads=True)
    assert g["z"].tolist() == [0.0]


def test_grad_refuses_other_mappings_and_warns_on_only_inputs():
    import collections
    import warnings

    x = E.tensor([2.0], requires_grad=True)
    y = (x * x).sum()
    with pytest.raises(TypeError, match=re.escape("`inputs` argument to `grad()` must be a dict, not OrderedDict. "
                                                  "Other Mapping types are not supported.")):
        E.autograd.grad(y, collections.OrderedDict(x=x), retain_graph=True)
    with pytest.raises(RuntimeError, match=re.escape("`inputs` argument to `grad()` cannot be empty.")):
        E.autograd.grad(y, {}, retain_graph=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (g,) = E.autograd.grad(y, x, only_inputs=False)
    assert g.tolist() == [4.0]
    assert [w.category for w in caught] == [FutureWarning]
    assert str(caught[0].message).startswith("only_inputs argument is deprecated and is ignored now")
    assert caught[0].filename == __file__


def test_leaf_grad_under_create_graph_is_pytorchs_copy_into_the_leafs_strides():
    # clone_obey_contract: a dense leaf's new .grad is empty_strided(leaf).copy_(g), whose node is CopyBackwards
    x = E.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    xt = x.t().detach().requires_grad_()  # dense, not row-major
    for leaf in (x, xt):
        (leaf ** 3).sum().backward(create_graph=True)
        g = leaf.grad
        assert g.grad_fn.name() == "torch::autograd::CopyBackwards" and type(g.grad_fn).__name__ == "CopyBackwards"
        assert g.stride() == leaf.stride() and g.tolist() == (3 * leaf.detach() ** 2).tolist()
        assert g.grad_fn.next_functions[0][0] is None  # the empty tensor copied into needs no gradient
        leaf.grad = None
        g.sum().backward()  # d(sum 3 x^2)/dx = 6 x
        assert leaf.grad.tolist() == (6 * leaf.detach()).tolist()
    assert E.empty(2).copy_(x[0, :2] * 1).grad_fn.name() == "torch::autograd::CopyBackwards"


def test_backward_with_create_graph_warns_of_the_reference_cycle_once(monkeypatch):
    from ember.autograd import engine

    monkeypatch.setattr(engine, "_cycle_warned", False)
    x = E.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        (x * x).sum().backward(create_graph=True)
        E.autograd.backward([(x * x).sum()], create_graph=True, inputs=[x])
        E.autograd.grad((x * x).sum(), x, create_graph=True)
    assert [str(m.message)[:70] for m in w] == [
        "Using backward() with create_graph=True will create a reference cycle "]
    assert w[0].category is UserWarning and "reset the .grad fields of your parameters to None" in str(w[0].message)
    assert str(w[0].message).endswith("avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/"
                                      "autograd/engine.cpp:1307.)")  # PyTorch's C++ source location, as it prints


def test_heaviside_records_pytorchs_refusing_node():
    """heaviside of a tensor that requires grad (input or values) records PyTorch's `NotImplemented` node: the
    result requires grad, its values are the step, and backward raises (ember's result did not require grad)."""
    x = E.tensor([-1.0, 0.0, 2.0, float("inf"), float("nan")], requires_grad=True)
    y = E.heaviside(x, E.tensor(0.5))
    assert y.requires_grad and type(y.grad_fn).__name__ == "NotImplemented"
    assert y.detach()[:4].tolist() == [0.0, 0.5, 1.0, 1.0] and y.detach()[4].item() == 0.0
    with pytest.raises(RuntimeError, match=r"^derivative for aten::heaviside is not implemented$"):
        y.sum().backward()
    v = E.tensor(0.5, requires_grad=True)
    assert type(E.heaviside(E.ones(2), v).grad_fn).__name__ == "NotImplemented"
    z = x * 1
    z.heaviside_(E.tensor(0.5))
    with pytest.raises(RuntimeError, match=r"^derivative for aten::heaviside_ is not implemented$"):
        z.sum().backward()
    with E.no_grad():
        assert E.heaviside(x, E.tensor(0.5)).grad_fn is None
