"""Activation ops and their backward ops on both devices (CUDA must match the CPU), with their
attributes; run in the CUDA simulator."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]
ATTRS = {"leaky_relu": (0.1,), "elu": (1.3, 1.1, 0.9), "gelu": ("none",), "hardtanh": (-0.5, 1.5),
         "hardsigmoid": (), "hardswish": (), "softplus": (2.0, 3.0), "mish": (), "log_sigmoid": (),
         "softsign": (), "tanhshrink": (), "threshold": (0.2, -1.0), "hardshrink": (0.5,), "softshrink": (0.5,)}
BACKWARD_ATTRS = {**ATTRS, "threshold": (0.2,)}


def _on(t, device):
    return t if device == "cpu" else t.to(device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(ATTRS) + ["gelu_tanh"])
def test_activation_and_backward_match_cpu(name, device):
    op_name, attrs, battrs = name, ATTRS.get(name), BACKWARD_ATTRS.get(name)
    if name == "gelu_tanh":
        op_name, attrs, battrs = "gelu", ("tanh",), ("tanh",)
    x = make_tensor(2, 5, low=-4, high=4, seed=3, noncontiguous=True)
    g = make_tensor(2, 5, seed=4)
    fwd = get_op(op_name)
    bwd = get_op("threshold_backward" if op_name == "threshold" else f"{op_name}_backward")
    assert_close(fwd(_on(x, device), *attrs), _on(fwd(x, *attrs), device), rtol=1e-5, atol=1e-5)
    assert_close(bwd(_on(g, device), _on(x, device), *battrs), _on(bwd(g, x, *battrs), device), rtol=1e-5,
                 atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["sigmoid_backward", "tanh_backward", "silu_backward"])
def test_fused_backward_ops(name, device):
    y = make_tensor(3, 2, dtype=E.float64, low=-1, high=1, seed=5)
    g = make_tensor(3, 2, dtype=E.float64, seed=6)
    op = get_op(name)
    assert_close(op(_on(g, device), _on(y, device)), _on(op(g, y), device))


@pytest.mark.parametrize("device", DEVICES)
def test_inplace_activation_and_integer_error(device):
    x = _on(E.tensor([-2.0, 3.0]), device)
    get_op("leaky_relu")(x, 0.5, out=x)
    assert x.tolist() == [-1.0, 3.0]
    with pytest.raises(TypeError, match="not implemented for 'Long'"):  # PyTorch's kernel refusal
        get_op("elu")(_on(E.tensor([1, 2]), device), 1.0, 1.0, 1.0)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):  # PyTorch's class, on both devices
        get_op("elu")(_on(E.tensor([1, 2]), device), 1.0, 1.0, 1.0)
