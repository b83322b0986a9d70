"""Activation checkpointing: the same values and gradients as a plain call, dropout's mask
recomputed identically, gradients reaching parameters, and less memory held between forward
and backward."""

import tracemalloc
import warnings

import numpy as np
import pytest

import ember.autograd as ea
from ember.autograd.checkpoint import checkpoint, checkpoint_sequential
from ember.autograd.checkpoint_support import (CheckpointError, check_backward_validity, detach_variable,
                                               get_device_states, set_checkpoint_early_stop)


def _mlp_params(seed: int, width: int = 16, depth: int = 4, dtype=np.float64):
    g = np.random.default_rng(seed)
    return [ea.tensor((g.normal(size=(width, width)) / 4).astype(dtype), requires_grad=True) for _ in range(depth)]


def _block(x, weights):
    for w in weights:
        x = (x @ w).tanh()
    return x


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_values_and_gradients_equal_a_plain_call(use_reentrant):
    x = ea.tensor(np.random.default_rng(0).normal(size=(5, 16)), requires_grad=True)
    ws = _mlp_params(1)
    plain = _block(x, ws).square().sum()
    plain.backward()
    expected = [x.grad.numpy().copy()] + [w.grad.numpy().copy() for w in ws]
    x.grad = None
    for w in ws:
        w.grad = None
    out = checkpoint(_block, x, ws, use_reentrant=use_reentrant).square().sum()
    assert out.item() == pytest.approx(plain.item(), rel=1e-12)
    out.backward()
    got = [x.grad.numpy()] + [w.grad.numpy() for w in ws]
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_parameters_get_gradients_when_no_input_requires_grad():
    x = ea.tensor(np.random.default_rng(0).normal(size=(3, 16)))
    ws = _mlp_params(2)
    checkpoint(_block, x, ws, use_reentrant=False).sum().backward()
    ref = _mlp_params(2)
    _block(x, ref).sum().backward()
    for w, r in zip(ws, ref, strict=True):
        np.testing.assert_allclose(w.grad.numpy(), r.grad.numpy(), rtol=1e-12)


def test_reentrant_with_no_input_requiring_grad_warns_as_pytorch():
    x = ea.ones(2, 16, dtype=ea.float64)
    ws = _mlp_params(3)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        out = checkpoint(_block, x, ws, use_reentrant=True)
    assert not out.requires_grad


def test_dropout_recomputes_the_same_mask():
    x = ea.ones(200, requires_grad=True)
    ea.manual_seed(7)
    out = checkpoint(lambda t: ea.dropout(t * 2.0, p=0.5, training=True), x, use_reentrant=False)
    kept = out.detach().numpy() != 0
    out.sum().backward()
    # d/dx of dropout(2x) is 2/(1-p) where the forward kept the value and 0 elsewhere
    np.testing.assert_array_equal(x.grad.numpy(), np.where(kept, 4.0, 0.0))
    assert 0 < kept.sum() < 200


def test_rng_state_after_the_call_is_untouched_by_the_recomputation():
    x = ea.ones(10, requires_grad=True)
    ea.manual_seed(0)
    out = checkpoint(lambda t: t * ea.rand(10), x, use_reentrant=False)
    after_forward = ea.rand(3).numpy()
    ea.manual_seed(0)
    ea.rand(10)
    assert np.array_equal(after_forward, ea.rand(3).numpy())
    state = ea.get_rng_state()
    out.sum().backward()
    assert np.array_equal(ea.get_rng_state().numpy(), state.numpy())


def test_multiple_outputs_and_non_tensor_outputs():
    x = ea.tensor([1.0, 2.0], requires_grad=True)
    a, b, tag = checkpoint(lambda t: (t.sin(), t.exp(), "tag"), x, use_reentrant=False)
    assert tag == "tag"
    (a.sum() + 2 * b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.0, 2.0]) + 2 * np.exp([1.0, 2.0]))


def test_without_use_reentrant_warns_and_kwargs_need_non_reentrant():
    x = ea.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint(lambda t: t * 2, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda t, scale: t * scale, x, use_reentrant=True, scale=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = checkpoint(lambda t, scale: t * scale, x, use_reentrant=False, scale=3.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_non_reentrant_output_carries_the_segments_own_graph():
    # PyTorch's use_reentrant=False keeps the plain call's graph (grad_fn of the last op, requires_grad as a
    # plain call gives it); the reentrant form's one node is CheckpointFunctionBackward
    x = ea.ones(2, 3, requires_grad=True)
    y = checkpoint(lambda t: (t * 2).tanh(), x, use_reentrant=False)
    assert y.grad_fn.name() == "TanhBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    assert not checkpoint(lambda t: t.detach() * 2, x, use_reentrant=False).requires_grad
    assert checkpoint(lambda t: t * 2, x, use_reentrant=True).grad_fn.name() == "CheckpointFunctionBackward"


def test_non_reentrant_backward_twice_with_retain_graph_accumulates():
    x = ea.tensor([0.5, 1.0], requires_grad=True)
    out = checkpoint(lambda t: (t * 3).sin(), x, use_reentrant=False).sum()
    out.backward(retain_graph=True)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 3 * np.cos(3 * np.array([0.5, 1.0])), rtol=1e-6)


def test_a_recomputation_saving_other_tensors_raises():
    calls = []

    def unstable(t):
        calls.append(1)
        return (t * t).exp() if len(calls) == 1 else t * 2

    x = ea.ones(2, requires_grad=True)
    out = checkpoint(unstable, x, use_reentrant=False).sum()
    with pytest.raises(CheckpointError, match="A different number of tensors was saved during the original forward"):
        out.backward()


def test_a_recomputation_saving_tensors_of_other_shapes_raises_with_both_metadata():
    calls = []

    def unstable(t):
        calls.append(1)
        return (t * 2).sin() if len(calls) == 1 else (t.repeat(2) * 3).sin()

    x = ea.ones(2, requires_grad=True)
    with pytest.raises(CheckpointError) as err:
        checkpoint(unstable, x, use_reentrant=False).sum().backward()
    lines = str(err.value).replace("ember.", "torch.").splitlines()  # the reprs say torch. under ember.torch
    assert lines[:4] == [
        "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than during "
        "the forward pass.", "tensor at position 0:",
        "saved metadata: {'shape': torch.Size([2]), 'dtype': torch.float32, 'device': device(type='cpu')}",
        "recomputed metadata: {'shape': torch.Size([4]), 'dtype': torch.float32, 'device': device(type='cpu')}"]
    calls.clear()
    y = ea.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="must match the size"):  # unchecked, the backward meets the shapes
        checkpoint(unstable, y, use_reentrant=False, determinism_check="none").sum().backward()


def test_the_recomputation_stops_once_every_saved_tensor_is_back():
    def run(**kw):
        trace = []

        def f(t):
            trace.append("a")
            y = t.sin()
            trace.append("b")
            z = y.exp()
            trace.append("c")
            return z * 2

        checkpoint(f, ea.ones(2, requires_grad=True), use_reentrant=False, **kw).sum().backward()
        return trace

    assert run() == ["a", "b", "c", "a", "b"]
    assert run(early_stop=False) == ["a", "b", "c", "a", "b", "c"]
    with set_checkpoint_early_stop(False):
        assert run() == ["a", "b", "c", "a", "b", "c"]


def test_a_recomputation_saving_more_tensors_passes_with_early_stop_and_raises_without():
    def grows(calls):
        def f(t):
            calls.append(1)
            y = t.sin()
            return y.exp() if len(calls) > 1 else y * 2
        return f

    x = ea.ones(2, requires_grad=True)
    checkpoint(grows([]), x, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(np.ones(2)), rtol=1e-6)
    with pytest.raises(CheckpointError, match="^torch.utils.checkpoint: trying to save more tensors during "
                                              "recomputation than during the original forward pass.\n"):
        checkpoint(grows([]), x, use_reentrant=False, early_stop=False).sum().backward()


def test_checkpoint_sequential_matches_the_plain_sequence():
    ws = _mlp_params(6, depth=6)
    layers = [lambda h, w=w: (h @ w).tanh() for w in ws]
    x = ea.tensor(np.random.default_rng(6).normal(size=(4, 16)), requires_grad=True)
    _block(x, ws).sum().backward()
    expected = [w.grad.numpy().copy() for w in ws] + [x.grad.numpy().copy()]
    for t in [*ws, x]:
        t.grad = None
    checkpoint_sequential(layers, 3, x, use_reentrant=False).sum().backward()
    got = [w.grad.numpy() for w in ws] + [x.grad.numpy()]
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_backward_twice_without_retain_graph_raises():
    x = ea.ones(3, requires_grad=True)
    out = checkpoint(lambda t: (t * 3).sin(), x, use_reentrant=False).sum()
    out.backward()
    with pytest.raises(RuntimeError, match="backward through"):
        out.backward()


def _peak_between_forward_and_backward(use_checkpoint: bool) -> int:
    """Bytes still allocated after forward (what backward will need), over a deep stack."""
    ws = _mlp_params(4, width=256, depth=8, dtype=np.float32)
    x = ea.tensor(np.random.default_rng(5).normal(size=(256, 256)).astype(np.float32), requires_grad=True)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    segments = [ws[:4], ws[4:]]
    h = x
    for seg in segments:
        h = checkpoint(_block, h, seg, use_reentrant=False) if use_checkpoint else _block(h, seg)
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    h.sum().backward()
    assert x.grad is not None
    return held


def test_checkpointing_holds_less_memory_until_backward():
    activation = 256 * 256 * 4
    plain = _peak_between_forward_and_backward(False)
    ckpt = _peak_between_forward_and_backward(True)
    # plain keeps every layer's tanh output (the next matmul's input): 8 activations;
    # checkpointing keeps only the two segments' outputs
    assert plain >= 8 * activation
    assert ckpt <= 2 * activation + 64 * 1024


def test_checkpoint_sequential_without_use_reentrant_warns_its_own_message():
    seq = [lambda t: t * 2, lambda t: t + 1]
    with pytest.warns(UserWarning, match=r"^torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter "
                                         r"should be passed explicitly. In version 2.9 we will raise"):
        checkpoint_sequential(seq, 1, ea.ones(2, requires_grad=True))


def test_checkpoint_helpers_behave_as_pytorchs():
    """The helpers `torch.utils.checkpoint` exports: detach_variable keeps requires_grad and refuses a list,
    check_backward_validity warns without a grad input, CPU tensors have no device states to save."""
    a, b = ea.ones(2, requires_grad=True), ea.zeros(2)
    d = detach_variable((a, b, 3))
    assert d[0].requires_grad and d[0].grad_fn is None and d[0] is not a and not d[1].requires_grad and d[2] == 3
    with pytest.raises(RuntimeError, match="^Only tuple of tensors is supported. Got Unsupported input type: list$"):
        detach_variable([a])
    with pytest.warns(UserWarning, match="^None of the inputs have requires_grad=True. Gradients will be None$"):
        check_backward_validity((b, 1))
    assert get_device_states(a, b) == ([], [])
    with set_checkpoint_early_stop(False):
        y = checkpoint(lambda x: (x * 2).sin(), a, use_reentrant=False)
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.cos(np.full(2, 2.0)), rtol=1e-6)
    assert issubclass(CheckpointError, RuntimeError)


def test_checkpoint_sequential_segment_errors_are_pytorchs():
    seq = [lambda t: t * 2, lambda t: t + 1]
    x = ea.ones(2, requires_grad=True)
    with pytest.raises(ZeroDivisionError):
        checkpoint_sequential(seq, 0, x, use_reentrant=False)
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: determinism_check,debug$"):
        checkpoint_sequential(seq, 1, x, use_reentrant=False, determinism_check="none", debug=True)
    # a negative count checkpoints nothing and runs every function, as PyTorch's range arithmetic does
    np.testing.assert_array_equal(checkpoint_sequential(seq, -1, x, use_reentrant=False).detach().numpy(), [3.0, 3.0])
    out = checkpoint_sequential(seq, 2, x, use_reentrant=False, preserve_rng_state=False)
    np.testing.assert_array_equal(out.detach().numpy(), [3.0, 3.0])
