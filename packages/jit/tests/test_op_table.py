"""Every op of the op table with samples, captured inside a function, replays to eager's values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit
from ember.core import dtypes
from ember.core.opinfo import ops_with_info
from ember.core.tensor import Tensor

_OPS = {name: op for name, op in ops_with_info(lambda i: i.kind == "elementwise" and i.samples is not None).items()
        if dtypes.float32 in op.info.dtypes_for("cpu")}


def _same(a, b) -> None:
    """Bitwise, fused or not: a fused group's transcendental functions are eager's own (NOTE [ Eager and fused
    transcendentals share one implementation ] in ember.core.ops.vector_math)."""
    if isinstance(a, Tensor):
        assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    else:
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)


@pytest.fixture(params=[False, True], ids=["unfused", "fused"])
def fuse(request, monkeypatch) -> bool:
    """Each test twice: every op its own kernel, and with `config.fuse` (the default); both bitwise eager."""
    monkeypatch.setattr(jit.config, "fuse", request.param)
    return request.param


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
def test_op_replays_to_eager_gradients(name, fuse):
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


_REDUCTIONS = sorted(ops_with_info(lambda i: i.kind == "reduction"))


@pytest.mark.parametrize("name", _REDUCTIONS)
@pytest.mark.parametrize("dim, keepdim", [(None, False), (1, True), ((0, 2), False)])
def test_reduction_replays_to_eager_values_and_gradients(name, dim, keepdim):
    import ember.core as ec

    if name == "prod" and isinstance(dim, tuple):
        pytest.skip("prod takes one dim, as PyTorch's")
    if name == "logsumexp" and dim is None:
        pytest.skip("logsumexp requires dim, as PyTorch's")
    fn = getattr(ec, name)
    base = ea.tensor(np.random.default_rng(0).uniform(0.5, 1.5, (3, 4, 5)))

    def f(x):
        x.grad = None
        out = fn(x, dim, keepdim) if dim is not None else fn(x)
        (out * 1.5).sum().backward()
        return out.detach(), x.grad

    eager = f(base.clone().requires_grad_(True))
    c = jit.compile(f)
    x = base.clone().requires_grad_(True)
    for _ in range(3):
        got = c(x)
    assert c.captures == 1 and c.explain().graph_break_count == 0
    _same(eager, got)


_CHAIN_OPS = sorted(n for n, op in _OPS.items() if op.info.n_inputs in (1, 2) and not op.info.attrs
                    and op.info.rule != "bool" and op.differentiable)


@pytest.mark.parametrize("seed", range(12))
def test_random_op_chains_replay_to_eager(seed, fuse):
    rng = np.random.default_rng(seed)
    picks = [_OPS[n] for n in rng.choice(_CHAIN_OPS, size=8)]

    def f(x, y):
        vals = [x, y]
        for i, op in enumerate(picks):
            a = vals[-1]
            out = op(a) if op.info.n_inputs == 1 else op(a, vals[i % len(vals)])
            vals.append(out.tanh())
        return vals[-1]

    shape = (3, 4)
    c = jit.compile(f)
    for k in range(3):
        x = ea.tensor(rng.uniform(-0.9, 0.9, shape).astype(np.float32))
        y = ea.tensor(rng.uniform(0.1, 0.9, shape).astype(np.float32))
        _same(f(x, y), c(x, y))
    assert c.captures == 1, [op.name for op in picks]
