"""Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks),
GradientEdge and increment_version: gradients against closed forms, hook calls counted as PyTorch counts them."""

import math

import numpy as np
import pytest

import ember.autograd as ea
from ember.autograd import graph
from ember.autograd.function import Function
from ember.core.dispatch import get_op


def _grad_of_sin_x_exp_x(x):
    # d/dx sin(exp(x) * x) = cos(exp(x) * x) * exp(x) * (x + 1)
    return [math.cos(math.exp(v) * v) * math.exp(v) * (v + 1) for v in x]


def test_pack_and_unpack_see_every_saved_tensor_and_gradients_hold():
    calls = []

    def pack(t):
        calls.append(("pack", tuple(t.shape)))
        return t.clone()  # a copy: backward must read what unpack returns

    def unpack(t):
        calls.append(("unpack", tuple(t.shape)))
        return t

    x = ea.tensor([0.1, 0.5, -0.3], dtype=ea.float64, requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        y = x.exp()              # saves its output
        z = (y * x).sin().sum()  # mul saves both inputs, sin its input
    z.backward()
    np.testing.assert_allclose(x.grad.tolist(), _grad_of_sin_x_exp_x([0.1, 0.5, -0.3]), rtol=1e-12)
    # PyTorch 2.13 packs 4 and unpacks 4 here
    assert [c[0] for c in calls] == ["pack"] * 4 + ["unpack"] * 4


def test_hooks_in_force_at_save_time_are_used_and_nest():
    log = []
    x = ea.tensor([2.0], requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: ("outer", t), lambda p: log.append(p[0]) or p[1]):
        with graph.saved_tensors_hooks(lambda t: ("inner", t), lambda p: log.append(p[0]) or p[1]):
            a = x * x
        b = a * x
    (a + b).sum().backward()  # d/dx (x^2 + x^3) = 2x + 3x^2 = 16
    assert x.grad.tolist() == [16.0]
    assert sorted(log) == ["inner", "inner", "outer", "outer"]


def test_double_backward_through_hooks_keeps_the_graph():
    x = ea.tensor([1.0, 2.0, 3.0], dtype=ea.float64, requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        (g,) = ea.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.tolist() == [3.0, 12.0, 27.0] and g.requires_grad
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0, 18.0]


def test_custom_function_saved_tensors_are_packed():
    class Twice(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    n = []
    x = ea.tensor([1.5, -1.0], requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: n.append(1) or t, lambda t: t):
        out = Twice.apply(x)
    out.sum().backward()
    assert len(n) == 1 and x.grad.tolist() == [1.5, -1.0]


def test_unpack_hook_must_return_a_tensor():
    x = ea.tensor([1.0], requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: 1, lambda p: p):
        q = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type int"):
        q.backward()


def test_save_on_cpu_and_disable():
    w = ea.tensor([1.0, -2.0], dtype=ea.float64, requires_grad=True)
    with graph.save_on_cpu(pin_memory=False):
        (w.tanh() * w).sum().backward()
    # d/dw w tanh(w) = tanh(w) + w (1 - tanh(w)^2)
    want = [math.tanh(v) + v * (1 - math.tanh(v) ** 2) for v in (1.0, -2.0)]
    np.testing.assert_allclose(w.grad.tolist(), want, rtol=1e-12)
    with graph.disable_saved_tensors_hooks("saved tensors hooks are off here"):
        with pytest.raises(RuntimeError, match="saved tensors hooks are off here"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again after the block
        pass


def test_gradient_edge_and_increment_version():
    x = ea.tensor([1.0], requires_grad=True)
    e = graph.get_gradient_edge(x * 2)
    assert isinstance(e, graph.GradientEdge) and e.output_nr == 0 and e.node.name() == "MulBackward0"
    assert isinstance(graph.get_gradient_edge(x).node, graph.AccumulateGrad)
    with pytest.raises(RuntimeError, match="does not require gradients"):
        graph.get_gradient_edge(ea.tensor([1.0]))
    b = x * 1
    s = b * b
    graph.increment_version(b)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.backward()


@pytest.mark.torch
def test_hook_call_counts_match_pytorch():
    torch = pytest.importorskip("torch")

    def count(lib):
        n = [0, 0]
        x = lib.tensor([0.1, 0.5], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: n.__setitem__(0, n[0] + 1) or t,
                                                    lambda t: n.__setitem__(1, n[1] + 1) or t):
            z = (x.exp() * x).tanh().sum()
        z.backward()
        return n

    assert count(ea) == count(torch)


def test_raw_saved_tensor_register_hooks():
    """`grad_fn._raw_saved_<name>.register_hooks(pack, unpack)`: packed at once, unpacked on backward; refused a
    second time and after the graph is freed, with PyTorch's messages."""
    b = ea.ones(3, requires_grad=True)
    s = b.sin()
    raw = s.grad_fn._raw_saved_self
    assert type(raw).__name__ == "SavedTensor"
    calls = []
    raw.register_hooks(lambda t: calls.append("pack") or t, lambda t: calls.append("unpack") or t * 2)
    assert calls == ["pack"]
    with pytest.raises(RuntimeError, match="^Calling register_hooks on a saved tensor whose hooks have already been "
                                           "set. Hint: only one pair of hooks is allowed at a time.$"):
        raw.register_hooks(lambda t: t, lambda t: t)
    s.sum().backward()
    assert calls == ["pack", "unpack"]
    np.testing.assert_allclose(b.grad.numpy(), np.full(3, math.cos(2.0), np.float32), rtol=1e-6)  # cos(2 * b)
    with pytest.raises(RuntimeError, match="^Calling register_hooks on a saved tensor after it has been freed"):
        s.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(AttributeError, match="_raw_saved_foo"):
        b.exp().grad_fn._raw_saved_foo


def test_grad_refuses_empty_inputs():
    x = ea.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^`inputs` argument to `grad\(\)` cannot be empty.$"):
        ea.grad(x.sum(), [])


def test_allow_mutation_on_saved_tensors_uses_the_values_at_save_time():
    with graph.allow_mutation_on_saved_tensors() as ctx:
        w = ea.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = w.clone()
        z = (v * v).sum()
        v.mul_(10)  # would raise at backward outside the block
        z.backward()
        x = ea.tensor([0.5, 1.5], requires_grad=True)
        y = x.exp()
        y.mul_(2)  # the saved output of exp, written in place
        y.sum().backward()
    assert w.grad.tolist() == [2.0, 4.0, 6.0] and v.tolist() == [10.0, 20.0, 30.0]
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([0.5, 1.5]), rtol=1e-6)
    assert type(ctx).__name__ == "_AllowMutationOnSavedContext"


def test_allow_mutation_on_saved_tensors_refuses_nesting_and_backward_outside():
    with pytest.raises(RuntimeError, match="^allow_mutation_on_saved_tensors contexts cannot be nested$"):
        with graph.allow_mutation_on_saved_tensors(), graph.allow_mutation_on_saved_tensors():
            pass
    with graph.allow_mutation_on_saved_tensors():
        q = ea.tensor([0.5], requires_grad=True)
        r = q.sin() * 1
    with pytest.raises(AssertionError, match="^Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                                             "contextin which the graph was originally recorded.$"):
        r.backward()


# what PyTorch 2.13's pack hook sees, in order (its generated nodes save by ATen's argument names; addmm and
# the other one-node composites by argument order): "aI" the op's I-th argument, "out" its result
_PACK_ORDER = {
    "mul": (lambda x, y: x * y, [(3,), (3,)], ["a1", "a0"]),
    "div": (lambda x, y: x / y, [(3,), (3,)], ["a1", "a0"]),
    "matmul": (lambda x, y: x @ y, [(2, 3), (3, 4)], ["a1", "a0"]),
    "mm": (ea.mm, [(2, 3), (3, 4)], ["a1", "a0"]),
    "bmm": (ea.bmm, [(2, 2, 3), (2, 3, 4)], ["a1", "a0"]),
    "atan2": (ea.atan2, [(3,), (3,)], ["a1", "a0"]),
    "maximum": (ea.maximum, [(3,), (3,)], ["a1", "a0"]),
    "minimum": (ea.minimum, [(3,), (3,)], ["a1", "a0"]),
    "hypot": (ea.hypot, [(3,), (3,)], ["a1", "a0", "out"]),
    "fmod": (ea.fmod, [(3,), (3,)], ["a1", "a0"]),
    "clamp": (ea.clamp, [(3,), (3,), (3,)], ["a2", "a1", "a0"]),
    "lerp": (ea.lerp, [(3,), (3,), (3,)], ["a1", "a0", "a2"]),
    "pow": (lambda x, y: x ** y, [(3,), (3,)], ["a1", "a0", "out"]),
    "dot": (ea.dot, [(3,), (3,)], ["a0", "a1"]),
    "addmm": (ea.addmm, [(4,), (2, 3), (3, 4)], ["a1", "a2"]),
    "baddbmm": (ea.baddbmm, [(2, 2, 4), (2, 2, 3), (2, 3, 4)], ["a1", "a2"]),
    "addcmul": (ea.addcmul, [(3,), (3,), (3,)], ["a1", "a2"]),
    "addcdiv": (ea.addcdiv, [(3,), (3,), (3,)], ["a1", "a2"]),
    "mv": (ea.mv, [(2, 3), (3,)], ["a0", "a1"]),
    "mse_loss": (lambda x, t: get_op("mse_loss")(x, t, "mean"), [(3,), (3,)], ["a0", "a1"]),
    "exp": (ea.exp, [(3,)], ["out"]),
    "log": (ea.log, [(3,)], ["a0"]),
}


@pytest.mark.parametrize("name", sorted(_PACK_ORDER))
def test_pack_hooks_see_the_saved_tensors_in_pytorchs_order(name):
    fn, shapes, expected = _PACK_ORDER[name]
    ea.manual_seed(0)
    args = [(ea.rand(*s) + 0.5).requires_grad_() for s in shapes]
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.detach().clone())
        return len(packed) - 1

    def unpack(i):
        unpacked.append(i)
        return packed[i]

    with graph.saved_tensors_hooks(pack, unpack):
        out = fn(*args)
    known = {f"a{i}": a.detach() for i, a in enumerate(args)} | {"out": out.detach()}
    seen = [next(k for k, v in known.items() if v.shape == t.shape and ea.equal(v, t)) for t in packed]
    assert seen == expected
    out.sum().backward()
    assert unpacked == list(range(len(packed)))  # each unpacked once, in saved order


def test_layer_norm_packs_bias_input_weight_then_its_statistics():
    # PyTorch 2.13's NativeLayerNormBackward0 saves the bias too, first (whether or not it requires grad)
    x, w, b = ea.rand(4, 3).requires_grad_(), ea.rand(3), ea.rand(3)
    for weight_grad in (True, False):
        w.requires_grad_(weight_grad)
        packed = []
        with graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            y = ea.layer_norm(x, (3,), w, b)
        assert [t is b for t in packed[:1]] == [True] and packed[1] is x and packed[2] is w
        assert [tuple(t.shape) for t in packed[3:]] == [(4, 1), (4, 1)]
        y.sum().backward()
