"""PyTorch's reference-docstring examples and their typical misuse, as ember answers them."""

import math

import numpy as np

import pytest

import ember.core as E


def test_eye_refuses_negative_sizes():
    with pytest.raises(RuntimeError, match="^n must be greater or equal to 0, got -1$"):
        E.eye(-1)
    with pytest.raises(RuntimeError, match="^m must be greater or equal to 0, got -2$"):
        E.eye(2, -2)


def test_polar_refuses_mixed_and_integer_parts():
    a = E.tensor([1.0, 2.0], dtype=E.float64)
    with pytest.raises(
        RuntimeError, match="^Expected object of scalar type Double but got scalar type Float for second"
    ):
        E.polar(a, a.float())
    with pytest.raises(RuntimeError, match="^Expected both inputs to be Half, Float or Double tensors but got Long"):
        E.polar(a.long(), a.long())
    p = E.polar(a, E.tensor([math.pi / 2, 0.0], dtype=E.float64))
    assert p.dtype is E.complex128
    assert abs(p[0].imag.item() - 1.0) < 1e-12 and p[1].real.item() == 2.0


def test_new_full_refuses_int_size():
    with pytest.raises(
        TypeError, match=r"^new_full\(\): argument 'size' \(position 1\) must be tuple of ints, not int$"
    ):
        E.tensor([1, 2]).new_full(3, 2)
    assert E.tensor([1.0]).new_full([2], 4.0).tolist() == [4.0, 4.0]


def test_aminmax_of_a_0d_tensor_over_dim_0():
    r = E.aminmax(E.tensor(2.5), dim=0, keepdim=True)
    assert r.min.shape == () and r.max.item() == 2.5
    assert E.aminmax(E.tensor(-1), dim=-1).min.item() == -1


def test_sort_and_topk_of_complex_keep_pytorchs_leading_space():
    z = E.tensor([1 + 1j])
    for fn, text in [(E.sort, " Sort"), (E.argsort, " Sort"), (E.msort, " Sort"), (lambda t: E.topk(t, 1), " topk")]:
        with pytest.raises(RuntimeError) as info:
            fn(z)
        assert str(info.value) == f"{text} does not support complex dtypes on CPU"


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_rounds_as_pytorchs(edge_order):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    y = rng.standard_normal((5, 6)).astype(np.float32)
    xs = np.cumsum(rng.uniform(0.1, 2.0, 6)).astype(np.float32)
    for spacing in [2.5, [1.0, 0.3]]:
        got = E.gradient(E.tensor(y), spacing=spacing, edge_order=edge_order)
        want = torch.gradient(torch.tensor(y), spacing=spacing, edge_order=edge_order)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g.numpy(), w.numpy())
    got = E.gradient(E.tensor(y).double(), spacing=(E.tensor(xs),), dim=1, edge_order=edge_order)[0]
    want = torch.gradient(torch.tensor(y).double(), spacing=(torch.tensor(xs),), dim=1, edge_order=edge_order)[0]
    assert got.dtype is E.float64 and np.allclose(got.numpy(), want.numpy(), rtol=1e-15, atol=0)


def test_tensordot_and_renorm_messages_are_pytorchs_words():
    a = E.ones(3, 4, 5)
    with pytest.raises(RuntimeError) as info:
        E.tensordot(a, a, dims=([1], [0, 1]))
    assert str(info.value) == "both dimension lists should have same length"
    with pytest.raises(RuntimeError) as info:
        E.renorm(a, -1, 0, 5)
    assert str(info.value) == "renorm: non-positive-norm not supported"
