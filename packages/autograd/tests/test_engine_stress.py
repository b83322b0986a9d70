"""The engine under stress: very deep graphs, hooks that raise, misuse PyTorch reports, reentrancy.

Each test pins PyTorch's behaviour (exception types and messages as PyTorch words them) and
checks that the engine stays usable afterwards: no grad-mode state, buffer or graph is left
half-updated by an exception.
"""

import gc
import math
import sys
import weakref

import pytest

import ember.autograd as E
from ember.autograd import Function

FREED = "Trying to backward through the graph a second time"
INPLACE = ("one of the variables needed for gradient computation has been modified by an inplace "
           "operation")


def _low_recursion_limit(limit: int = 200):
    """A context that lowers the recursion limit, so any recursion over graph depth fails loudly."""
    class _Limit:
        def __enter__(self):
            self.prev = sys.getrecursionlimit()
            sys.setrecursionlimit(max(limit, len(_frames()) + 50))

        def __exit__(self, *exc):
            sys.setrecursionlimit(self.prev)
    return _Limit()


def _frames() -> list:
    f, out = sys._getframe(), []
    while f is not None:
        out.append(f)
        f = f.f_back
    return out


def test_backward_through_a_100k_op_chain_neither_recurses_nor_leaks():
    n = 100_000
    x = E.tensor([1.0, 2.0], requires_grad=True)
    with _low_recursion_limit():
        y = x
        for i in range(n):
            y = y * (2.0 if i % 2 else 0.5)  # exact in float32: a skipped or repeated node shows
        first = weakref.ref(y.grad_fn)
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0]
        del y  # frees 100k nodes by reference counting: must not recurse either
    assert first() is None


def test_an_unused_100k_op_graph_is_freed_without_recursion():
    x = E.ones(2, requires_grad=True)
    with _low_recursion_limit():
        y = x
        for _ in range(100_000):
            y = y.exp() * 0.5
        last = weakref.ref(y.grad_fn)
        del y
    assert last() is None


def test_a_hook_that_raises_propagates_its_exception_and_leaves_the_engine_usable():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: (_ for _ in ()).throw(KeyError("from the hook")))
    with pytest.raises(KeyError, match="from the hook"):
        y.sum().backward()
    assert E.is_grad_enabled()  # the engine's no-grad section was unwound
    assert x.grad is None
    z = (x * x).sum()
    z.backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_a_leaf_hook_and_a_node_prehook_that_raise_keep_their_exception_types():
    x = E.tensor([1.0], requires_grad=True)
    h = x.register_hook(lambda g: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        (x * 2).sum().backward()
    h.remove()
    y = x * 2
    y.grad_fn.register_prehook(lambda grads: (_ for _ in ()).throw(ValueError("prehook")))
    with pytest.raises(ValueError, match="prehook"):
        y.sum().backward()
    (x * 5).sum().backward()
    assert x.grad.tolist() == [5.0]


def test_backward_twice_without_retain_graph_raises_pytorchs_error():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()
    assert x.grad.tolist() == [2.0, 4.0]  # the failed second pass accumulated nothing


def test_backward_twice_with_retain_graph_accumulates():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()


def test_inplace_change_of_a_saved_tensor_raises_pytorchs_error():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    y = a.exp()  # exp saves its result
    y.add_(1)
    with pytest.raises(RuntimeError, match=INPLACE) as info:
        y.sum().backward()
    assert "is at version 1; expected version 0 instead" in str(info.value)
    b = x * 1
    z = b * b  # mul saves its inputs
    b.mul_(2)
    with pytest.raises(RuntimeError, match=INPLACE):
        z.sum().backward()


class _ReentrantSquare(Function):
    """y = x**2 whose backward computes d(x**2)/dx by running a second backward inside it."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        with E.enable_grad():
            inner = x.detach().requires_grad_(True)
            (inner * inner).sum().backward()  # reentrant: the engine runs inside its own node
        return grad * inner.grad


def test_reentrant_backward_from_a_custom_function():
    x = E.tensor([1.0, -3.0], requires_grad=True)
    y = _ReentrantSquare.apply(x) * 2
    y.sum().backward()
    assert x.grad.tolist() == [4.0, -12.0]
    assert E.is_grad_enabled()


class _ReentrantGrad(Function):
    """The same through autograd.grad, under a deep outer graph."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        with E.enable_grad():
            inner = x.detach().requires_grad_(True)
            (g,) = E.autograd.grad(inner.sin().sum(), inner)
        return grad * g


def test_reentrant_grad_inside_a_long_chain():
    x = E.tensor([0.5], requires_grad=True)
    y = _ReentrantGrad.apply(x)
    for _ in range(1000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.item() == pytest.approx(math.cos(0.5), rel=1e-6)


def test_a_hook_holding_a_tensor_outlives_the_graph():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    kept = []
    y = x * 3
    z = y.exp()
    node = weakref.ref(z.grad_fn)
    x.register_hook(lambda g, held=z: kept.append((g, held)))  # the hook holds z, z holds the graph
    z.sum().backward()
    del y, z
    gc.collect()
    g, held = kept[0]
    assert g.tolist() == pytest.approx([3 * math.exp(3.0), 3 * math.exp(6.0)], rel=1e-5)
    assert held.tolist() == pytest.approx([math.exp(3.0), math.exp(6.0)], rel=1e-5)  # values stay readable
    assert node() is not None  # still owned through the hook's tensor
    with pytest.raises(RuntimeError, match=FREED):
        held.sum().backward()  # its saved tensors were freed by the first backward
    kept.clear()
    x._ag.hooks.clear()
    del held, g
    gc.collect()
    assert node() is None


def test_a_hook_on_an_intermediate_that_references_its_own_tensor_is_collected():
    x = E.tensor([1.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g, y=y: g * 1)  # a cycle: y -> node -> hooks -> closure -> y
    node = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert node() is None
    (x * 4).sum().backward()
    assert x.grad.tolist() == [4.0]
