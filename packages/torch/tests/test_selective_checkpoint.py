"""Selective activation checkpointing (create_selective_checkpoint_contexts, CheckpointPolicy) and the
torch.ops.aten overloads its policies name: the policy's calls as PyTorch 2.13 makes them, the kernels the
recomputation skips, and gradients against a plain call."""

import functools

import numpy as np
import pytest

import ember.torch as torch
from ember.core.dispatch import get_op
from ember.torch.utils.checkpoint import (CheckpointPolicy, SelectiveCheckpointContext, checkpoint,
                                          create_selective_checkpoint_contexts)

aten = torch.ops.aten


def _block(x, w, w2):
    return (torch.mm(x, w).relu() @ w2).sigmoid().sum()


def _inputs():
    torch.manual_seed(0)
    return [torch.randn(*s, requires_grad=True) for s in ((4, 3), (3, 5), (5, 2))]


@pytest.fixture
def mm_kernel_calls(monkeypatch):
    """How many times mm's kernel ran (a list holding the count)."""
    op, calls = get_op("mm"), [0]
    kernel = op.kernels["cpu"]

    def counting(*args, **kwargs):
        calls[0] += 1
        return kernel(*args, **kwargs)

    monkeypatch.setitem(op.kernels, "cpu", counting)
    return calls


def test_aten_overloads_name_and_compare_as_pytorchs():
    mm = aten.mm.default
    assert mm is aten.mm.default and mm == aten.mm.default and mm != aten.bmm.default
    assert (str(mm), repr(mm), mm.name(), str(mm.overloadpacket)) == (
        "aten.mm.default", "<OpOverload(op='aten.mm', overload='default')>", "aten::mm", "aten.mm")
    assert aten.add.Tensor.name() == "aten::add.Tensor" and type(mm).__name__ == "OpOverload"
    np.testing.assert_array_equal(aten.mm(torch.ones(2, 3), torch.ones(3, 1)).numpy(), [[3.0], [3.0]])
    with pytest.raises(AttributeError, match="has no overload name 'nope'"):
        aten.mm.nope  # noqa: B018
    with pytest.raises(AttributeError, match="'aten' object has no attribute 'nope'"):
        aten.nope  # noqa: B018


def test_the_policy_is_asked_of_each_op_as_pytorch_asks_it():
    calls = []

    def policy(ctx, op, *args, **kwargs):
        assert isinstance(ctx, SelectiveCheckpointContext)
        calls.append((ctx.is_recompute, str(op)))
        return CheckpointPolicy.MUST_SAVE if op == aten.mm.default else CheckpointPolicy.PREFER_RECOMPUTE

    checkpoint(_block, *_inputs(), use_reentrant=False,
               context_fn=functools.partial(create_selective_checkpoint_contexts, policy)).backward()
    assert calls == [(False, "aten.mm.default"), (False, "aten.relu.default"), (False, "aten.mm.default"),
                     (False, "aten.sigmoid.default"), (False, "aten.sum.default")]  # PyTorch 2.13's


@pytest.mark.parametrize("policy, recomputed_mm", [
    ([aten.mm.default], 0), ([], 2), ([aten.relu.default, aten.sigmoid.default], 2),
    (lambda ctx, op, *a, **k: op == aten.mm.default, 0),
    (lambda ctx, op, *a, **k: CheckpointPolicy.PREFER_SAVE if op == aten.mm.default else
     CheckpointPolicy.MUST_RECOMPUTE, 0)])
def test_saved_ops_are_not_recomputed_and_gradients_hold(policy, recomputed_mm, mm_kernel_calls):
    args = _inputs()
    _block(*args).backward()
    expected = [a.grad.clone() for a in args]
    plain = mm_kernel_calls[0]  # forward 2, backward 4
    for a in args:
        a.grad = None
    mm_kernel_calls[0] = 0
    out = checkpoint(_block, *args, use_reentrant=False,
                     context_fn=functools.partial(create_selective_checkpoint_contexts, policy))
    out.backward()
    assert mm_kernel_calls[0] == plain + recomputed_mm
    for a, g in zip(args, expected):
        np.testing.assert_allclose(a.grad.numpy(), g.numpy(), rtol=1e-6)


def test_bad_policies_raise_pytorchs_errors():
    with pytest.raises(ValueError, match="Expected op in `op_list` to be an OpOverload but got: .* of type"):
        create_selective_checkpoint_contexts([torch.mm])
    with pytest.raises(TypeError, match="policy_fn_or_list must be either a function or a list of ops."):
        create_selective_checkpoint_contexts(3)
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported when use_reentrant=False"):
        checkpoint(_block, *_inputs(), use_reentrant=True,
                   context_fn=functools.partial(create_selective_checkpoint_contexts, []))
    assert [p.value for p in CheckpointPolicy] == [0, 1, 2, 3, 4, 5]
