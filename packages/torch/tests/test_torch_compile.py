"""torch.compile: ember.jit behind PyTorch's signature, OptimizedModule, torch._dynamo's small surface."""

from __future__ import annotations


import numpy as np
import pytest

import ember.jit as jit
import ember.torch as torch
from ember.torch import nn


def _data(seed=0):
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.standard_normal((40, 6)).astype(np.float32))
    y = torch.tensor(rng.integers(0, 3, 40))
    return x, y


def test_compiled_module_is_an_optimized_module_with_prefixed_state_dict():
    lin = nn.Linear(3, 2)
    m = torch.compile(lin)
    assert isinstance(m, torch._dynamo.eval_frame.OptimizedModule) and isinstance(m, nn.Module)
    assert m._orig_mod is lin and m.in_features == 3
    assert list(m.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert [p is q for p, q in zip(m.parameters(), lin.parameters())] == [True, True]
    m.eval()
    assert lin.training is False
    m.train()
    assert lin.training is True
    x = torch.ones(4, 3)
    for _ in range(4):
        np.testing.assert_array_equal(m(x).detach().numpy(), lin(x).detach().numpy())
    assert m.explain().graph_count == 1
    assert isinstance(torch.compile(m), torch._dynamo.OptimizedModule)  # compiling again wraps the module once
    assert torch.compile(m)._orig_mod is lin


def test_load_state_dict_round_trips_through_the_prefix():
    a, b = torch.compile(nn.Linear(2, 2)), torch.compile(nn.Linear(2, 2))
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(a._orig_mod.weight.detach().numpy(), b._orig_mod.weight.detach().numpy())


def test_disable_returns_the_model_and_functions_compile():
    lin = nn.Linear(2, 2)
    assert torch.compile(lin, disable=True) is lin

    @torch.compile(mode="max-autotune")
    def f(x):
        return (x * 2).exp()

    assert isinstance(f, jit.CompiledFunction)
    for _ in range(3):
        np.testing.assert_allclose(f(torch.zeros(2)).numpy(), [1.0, 1.0])
    assert f.captures == 1


def test_a_callable_backend_returns_the_model_with_one_warning():
    def my_backend(gm, example_inputs):
        return gm.forward

    def f(x):
        return x + 1

    with pytest.warns(UserWarning, match="my_backend' is a TorchDynamo FX-graph backend"):
        assert torch.compile(f, backend=my_backend) is f


@pytest.mark.parametrize("backend", ["inductor", "eager", "aot_eager", "cudagraphs"])
def test_named_backends_run_ember_jit(backend):
    assert isinstance(torch.compile(lambda x: x, backend=backend), jit.CompiledFunction)


def test_bad_arguments_raise_pytorchs_errors():
    with pytest.raises(torch._dynamo.exc.InvalidBackend, match="Invalid backend: 'nope'"):
        torch.compile(lambda x: x, backend="nope")
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        torch.compile(lambda x: x, mode="default", options={})
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast"):
        torch.compile(lambda x: x, mode="fast")
    with pytest.raises(AssertionError, match="A callable function is expected"):
        torch.compile(3)


def test_dynamo_config_reset_and_the_rest_of_dynamo():
    assert torch._dynamo.config.cache_size_limit == 8 == torch._dynamo.config.recompile_limit
    f = torch.compile(lambda x: x * 3)
    for _ in range(3):
        f(torch.ones(1))
    assert f.explain().graph_count == 1
    torch._dynamo.reset()
    assert f.explain().graph_count == 0
    assert f(torch.ones(1)).tolist() == [3.0]
    with pytest.raises(AttributeError, match="TorchDynamo's internals are not provided"):
        torch._dynamo.optimize  # noqa: B018


def test_dynamo_config_sets_jit_knobs_keeps_dynamo_ones_and_patches():
    cfg = torch._dynamo.config
    assert cfg.suppress_errors is False and cfg.accumulated_cache_size_limit == 256 and cfg.verbose is False
    with cfg.patch(cache_size_limit=3, suppress_errors=True):
        assert jit.config.cache_size_limit == 3 == cfg.recompile_limit and cfg.suppress_errors is True
    assert jit.config.cache_size_limit == 8 and cfg.suppress_errors is False

    @cfg.patch("recompile_limit", 2)
    def limit():
        return jit.config.cache_size_limit

    assert limit() == 2 and jit.config.cache_size_limit == 8
    assert type(cfg.patch({"verbose": True})).__name__ == "ConfigPatch"
    with pytest.raises(AttributeError):
        cfg.patch(no_such_knob=1)
    cfg.cache_size_limit = 5
    try:
        assert jit.config.cache_size_limit == 5
    finally:
        cfg.cache_size_limit = 8
    t = torch.ones(3, 2)
    assert torch._dynamo.mark_dynamic(t, 0) is None and torch._dynamo.mark_static(t) is None
    assert torch._dynamo.allow_in_graph(abs) is abs


def _train(compile_model: bool, compile_step: bool):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    m = torch.compile(model) if compile_model else model
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(m(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        return loss

    step = torch.compile(step) if compile_step else step
    x, y = _data()
    losses = []
    for _ in range(4):
        m.train()
        for i in range(0, 40, 16):  # the last batch is smaller
            losses.append(step(x[i:i + 16], y[i:i + 16]).item())
        m.eval()
        with torch.no_grad():
            losses.append(loss_fn(m(x), y).item())
    return losses, step


def test_a_compiled_training_loop_equals_eager():
    want, _ = _train(False, False)
    assert _train(True, False)[0] == want
    got, step = _train(False, True)
    assert got == want
    assert step.explain().graph_break_count == 0 and step.explain().graph_count == 2  # full batch, last batch


def test_an_optimized_module_copies_and_pickles_uncaptured():
    import copy
    import pickle

    m = torch.compile(nn.Linear(2, 2))
    x = torch.ones(1, 2)
    for _ in range(3):
        want = m(x).detach().numpy()
    for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert isinstance(c, torch._dynamo.OptimizedModule) and c._orig_mod is not m._orig_mod
        assert c._compiled._module is c._orig_mod and c._compiled.explain().graph_count == 0
        for _ in range(3):
            np.testing.assert_array_equal(c(x).detach().numpy(), want)
        assert c._compiled.explain().graph_count == 1


def test_optimized_module_sets_new_attributes_on_the_original():
    # PyTorch's OptimizedModule.__setattr__ forwards what is not its own to _orig_mod (a flag its forward reads)
    m = nn.Linear(2, 2)
    cm = torch.compile(m)
    cm.use_cache = True
    assert m.use_cache is True and cm.use_cache is True and "use_cache" not in cm.__dict__
    cm.extra = nn.ReLU()
    assert isinstance(m.extra, nn.ReLU) and list(cm.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    del cm.use_cache
    assert not hasattr(m, "use_cache")
    cm.eval()
    assert cm.training is False and m.training is False and cm._orig_mod is m
