"""The registry's device lookup: a device's own kernel first, the `"any"` kernel for every device
without one (NOTE [ Composite kernels ]), and the meta step before either."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.dispatch import Op, get_op


def _op_with(*devices: str) -> tuple[Op, list[str]]:
    """An undeclared op whose kernels record which one ran."""
    op, ran = Op("probe"), []
    for d in devices:
        op.register(d)(lambda x, _d=d: ran.append(_d) or x)
    return op, ran


def test_a_device_kernel_wins_over_any():
    op, ran = _op_with("cpu", "any")
    op(E.ones(2))
    assert ran == ["cpu"]


def test_any_serves_a_device_without_its_own_kernel():
    op, ran = _op_with("any")
    op(E.ones(2))
    assert ran == ["any"]


def test_no_kernel_for_the_device_raises():
    op, _ = _op_with("cuda")
    with pytest.raises(NotImplementedError, match="probe: no kernel for device type 'cpu'"):
        op(E.ones(2))


def test_the_meta_step_runs_before_any_kernel():
    op, ran = _op_with("any")
    op.meta(lambda x: ran.append("meta"))
    op(E.ones(2))
    assert ran == ["meta", "any"]


def test_a_second_meta_step_is_refused():
    """Two modules each giving an op a meta step would silently drop the first one's checks."""
    op, ran = _op_with("any")

    def first(x):
        ran.append("first")

    op.meta(first)
    with pytest.raises(RuntimeError, match="op 'probe' already has a meta step .*first.*; merge"):
        op.meta(lambda x: ran.append("second"))
    op(E.ones(2))
    assert ran == ["first", "any"]


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
def test_cuda_runs_the_any_kernel_where_the_cpu_has_its_own():
    op, ran = _op_with("cpu", "any")
    op(E.ones(2, device="cuda"))
    assert ran == ["any"]
    assert "cuda" not in get_op("median_dim").kernels and "any" in get_op("median_dim").kernels


def test_node_name_renames_only_the_node_a_function_made():
    """`node_name` gives the result's node PyTorch's name through a subclass (behaviour kept); a node of
    another name, or a result without one, is left alone."""
    from ember.core.dispatch import node_name

    class AddBackward0:
        def name(self):
            return type(self).__name__

    t = E.ones(2)
    node = t._grad_fn = AddBackward0()
    assert node_name(t, "MulBackward0", "AddmmBackward0") is t and type(node) is AddBackward0
    node_name(t, "AddBackward0", "AddmmBackward0")
    assert type(node).__name__ == "AddmmBackward0" and isinstance(node, AddBackward0)
    assert node.name() == "AddmmBackward0"
    u = E.ones(2)
    u._grad_fn = AddBackward0()
    node_name(u, "AddBackward0", "AddmmBackward0")
    assert type(u._grad_fn) is type(node)  # one subclass per (class, name)
    assert node_name(E.ones(1), "AddBackward0", "AddmmBackward0")._grad_fn is None
    t._grad_fn = None
