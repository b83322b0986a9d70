"""Every op of the op table with samples, captured inside a function, replays to eager's values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import ember.jit as jit
from ember.core import dtypes
from ember.core.opinfo import ops_with_info
from ember.core.tensor import Tensor

_OPS = {name: op for name, op in ops_with_info(lambda i: i.kind == "elementwise" and i.samples is not None).items()
        if dtypes.float32 in op.info.dtypes_for("cpu")}


def _same(a, b) -> None:
    if isinstance(a, Tensor):
        assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    else:
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)


def test_the_table_is_not_empty():
    assert len(_OPS) > 60


@pytest.mark.parametrize("name", sorted(_OPS))
def test_op_replays_to_eager_values(name):
    op = _OPS[name]
    samples = list(op.info.sample_inputs(dtypes.float32))
    assert samples
    for s in samples:
        def f(*args, _kw=s.kwargs):
            return op(*args, **_kw)
        c = jit.compile(f)
        for _ in range(3):
            got = c(*s.args)
        _same(f(*s.args), got)
        assert c.captures == 1 and c.explain().graph_break_count == 0


_GRAD = sorted(n for n, op in _OPS.items() if op.differentiable and dtypes.float64 in op.info.dtypes_for("cpu"))


@pytest.mark.parametrize("name", _GRAD)
def test_op_replays_to_eager_gradients(name):
    op = _OPS[name]
    s = next(iter(op.info.sample_inputs(dtypes.float64)))
    base = [a.detach().clone() if isinstance(a, Tensor) else a for a in s.args]

    def leaves():
        return [a.clone().requires_grad_(True) if isinstance(a, Tensor) and a.dtype.is_floating_point else a
                for a in base]

    def f(*args):
        for a in args:
            if isinstance(a, Tensor):
                a.grad = None
        out = op(*args, **s.kwargs)
        (out if isinstance(out, Tensor) else out[0]).sum().backward()
        return [a.grad for a in args if isinstance(a, Tensor) and a.requires_grad]

    eager = f(*leaves())
    c = jit.compile(f)
    args = leaves()
    for _ in range(3):
        got = c(*args)
    assert c.captures == 1 and c.explain().graph_break_count == 0
    _same(eager, got)
