"""torch._foreach_*: each op applied per tensor of a list, against numpy; the operand forms (number, numbers,
tensors, one tensor), return conventions and PyTorch's errors."""

import math

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import foreach as F


def lists():
    a = [np.array([1.0, -2.0, 0.5]), np.array([[3.0, 0.25], [-1.5, 2.0]])]
    return a, [E.tensor(x) for x in a]


@pytest.mark.parametrize("name, ref", [("abs", np.abs), ("exp", np.exp), ("neg", np.negative), ("sign", np.sign),
                                       ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("trunc", np.trunc),
                                       ("reciprocal", lambda x: 1 / x), ("tanh", np.tanh)])
def test_unary_out_of_place_and_in_place(name, ref):
    a, t = lists()
    got = getattr(F, f"_foreach_{name}")(t)
    assert isinstance(got, tuple)
    for g, x in zip(got, a):
        np.testing.assert_allclose(g.numpy(), ref(x), rtol=1e-12)
    assert getattr(F, f"_foreach_{name}_")(t) is t
    for g, x in zip(t, a):
        np.testing.assert_allclose(g.numpy(), ref(x), rtol=1e-12)


@pytest.mark.parametrize("other, ref_other", [(2.0, [2.0, 2.0]), ([2.0, -3.0], [2.0, -3.0]),
                                              ("tensors", [np.array([1.0, 2.0, 3.0]), np.full((2, 2), 0.5)])])
def test_binary_operand_forms(other, ref_other):
    a, t = lists()
    if other == "tensors":
        other = [E.tensor(o) for o in ref_other]
    for name, ref in [("add", lambda x, o: x + o), ("mul", np.multiply), ("div", np.divide),
                      ("maximum", np.maximum), ("clamp_max", np.minimum)]:
        got = getattr(F, f"_foreach_{name}")(t, other)
        for g, x, o in zip(got, a, ref_other):
            np.testing.assert_allclose(g.numpy(), ref(x, o), rtol=1e-12)
    if isinstance(other, list) and isinstance(other[0], E.Tensor):
        got = F._foreach_sub(t, other, alpha=2)
        for g, x, o in zip(got, a, ref_other):
            np.testing.assert_allclose(g.numpy(), x - 2 * o, rtol=1e-12)
    assert F._foreach_mul_(t, other) is t
    for g, x, o in zip(t, a, ref_other):
        np.testing.assert_allclose(g.numpy(), x * o, rtol=1e-12)


def test_pointwise_triples_lerp_and_reductions():
    a, t = lists()
    b = [x * 2 + 1 for x in a]
    tb = [E.tensor(x) for x in b]
    for got, want in [(F._foreach_addcmul(t, t, tb, 0.5), [x + 0.5 * x * y for x, y in zip(a, b)]),
                      (F._foreach_addcmul(t, t, tb, [0.5, 2.0]), [a[0] + 0.5 * a[0] * b[0], a[1] + 2 * a[1] * b[1]]),
                      (F._foreach_addcmul(t, t, tb, E.tensor([0.5, 2.0])),
                       [a[0] + 0.5 * a[0] * b[0], a[1] + 2 * a[1] * b[1]]),
                      (F._foreach_addcdiv(t, t, tb, 0.3), [x + 0.3 * x / y for x, y in zip(a, b)]),
                      (F._foreach_lerp(t, tb, 0.25), [x + 0.25 * (y - x) for x, y in zip(a, b)]),
                      (F._foreach_pow(2.0, t), [2.0 ** x for x in a])]:
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-12)
    assert [n.item() for n in F._foreach_norm(t)] == pytest.approx([math.sqrt((x ** 2).sum()) for x in a])
    assert [n.item() for n in F._foreach_norm(t, math.inf)] == [2.0, 3.0]
    assert [n.item() for n in F._foreach_max(t)] == [1.0, 3.0]
    assert [n.item() for n in F._foreach_powsum(t, 3)] == pytest.approx([(abs(x) ** 3).sum() for x in a])
    F._foreach_lerp_(t, [E.zeros_like(x) for x in t], 0.1)
    np.testing.assert_allclose(t[1].numpy(), 0.9 * a[1], rtol=1e-12)
    F._foreach_copy_(t, tb)
    np.testing.assert_allclose(t[0].numpy(), b[0])
    assert F._foreach_zero_(t) is t and all(float(x.abs().sum()) == 0 for x in t)


def test_errors_as_pytorch():
    _, t = lists()
    with pytest.raises(RuntimeError, match="^Tensor list must have at least one tensor.$"):
        F._foreach_add([], 1)
    with pytest.raises(RuntimeError, match="^Tensor list must have same number of elements as scalar list.$"):
        F._foreach_add(t, [1.0])
    with pytest.raises(RuntimeError, match="^Tensor lists must have the same number of tensors, got 2 and 1$"):
        F._foreach_add(t, [E.ones(1)])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        F._foreach_add_([E.ones(2, dtype=E.int64)], 1.5)
    assert F._foreach_add([E.ones(2, dtype=E.int64)], 1.5)[0].dtype is E.float32


@pytest.mark.parametrize("call", [lambda t: F._foreach_lerp_(t, [], 0.5), lambda t: F._foreach_lerp(t, [], 0.5),
                                  lambda t: F._foreach_addcmul(t, [], t), lambda t: F._foreach_addcdiv_(t, t, [])])
def test_an_empty_list_for_a_tensor_list_parameter_is_a_tensor_list(call):
    # PyTorch types these parameters as tensor lists: an empty one is a tensor list of the wrong length
    with pytest.raises(RuntimeError, match="^Tensor lists must have the same number of tensors, got 1 and 0$"):
        call([E.zeros(2)])
    with pytest.raises(RuntimeError, match="^Tensor list must have same number of elements as scalar list.$"):
        F._foreach_add_([E.zeros(2)], [])


@pytest.mark.torch
def test_foreach_is_reachable_under_torch_and_matches_it():
    torch = pytest.importorskip("torch")
    import ember.torch as et

    x = np.array([0.5, -1.5, 2.0])
    w = et.tensor(x, requires_grad=True)
    out = et._foreach_mul([w, w], [2.0, 3.0])
    (out[0].sum() + out[1].sum()).backward()
    assert w.grad.tolist() == [5.0, 5.0, 5.0]  # d/dw (2w + 3w)
    tt = [torch.tensor(x)]
    et_ = [et.tensor(x)]
    torch._foreach_addcdiv_(tt, [torch.tensor(x) + 3], [torch.tensor(x) ** 2 + 1], 0.7)
    et._foreach_addcdiv_(et_, [et.tensor(x) + 3], [et.tensor(x) ** 2 + 1], 0.7)
    np.testing.assert_allclose(et_[0].numpy(), tt[0].numpy(), rtol=1e-12)
