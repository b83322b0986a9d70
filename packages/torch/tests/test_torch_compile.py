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


class _Recorder:
    """A TorchDynamo backend that records the graphs and example inputs it is handed, and runs the graph."""

    def __init__(self) -> None:
        self.graphs, self.inputs = [], []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        self.inputs.append([tuple(t.shape) for t in example_inputs])
        return gm.forward


def test_a_callable_backend_gets_the_fx_graph_once_per_input_signature():
    backend = _Recorder()

    def f(x, y, n, *, scale=2.0):
        return (x * y).relu() * n + scale

    cf = torch.compile(f, backend=backend)
    assert cf.__name__ == "f" and cf.__wrapped__ is f
    x, y = torch.tensor([1.0, -2.0]), torch.tensor([3.0, 4.0])
    for _ in range(2):
        np.testing.assert_array_equal(cf(x, y, 3, scale=1.0).numpy(), [10.0, 1.0])
    assert backend.inputs == [[(2,), (2,)]]  # tensors only: `n` and `scale` are constants of the graph
    gm = backend.graphs[0]
    assert isinstance(gm, torch.fx.GraphModule) and type(gm).__name__ == "GraphModule"
    assert [n.op for n in gm.graph.nodes] == ["placeholder", "placeholder", "call_function", "call_method",
                                              "call_function", "call_function", "output"]
    np.testing.assert_array_equal(cf(x, y, 2, scale=1.0).numpy(), [7.0, 1.0])  # another constant: a new graph
    cf(torch.ones(3), torch.ones(3), 3, scale=1.0)  # another shape: a new graph
    assert backend.inputs == [[(2,), (2,)], [(2,), (2,)], [(3,), (3,)]]
    torch._dynamo.reset()
    cf(x, y, 3, scale=1.0)
    assert len(backend.graphs) == 4


def test_a_callable_backends_callable_runs_the_module_with_gradients():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    ran = []

    def backend(gm, example_inputs):
        def run(*args):
            ran.append(len(args))
            return gm(*args)
        return run

    cm = torch.compile(model, backend=backend)
    assert isinstance(cm, torch._dynamo.OptimizedModule) and list(cm.state_dict())[0] == "_orig_mod.0.weight"
    x = torch.randn(5, 3)
    cm(x).sum().backward()
    got = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for g, p in zip(got, model.parameters()):
        np.testing.assert_allclose(g.numpy(), p.grad.numpy(), rtol=1e-6)
    assert ran == [1]


def test_a_call_the_trace_cannot_follow_runs_eagerly_and_fullgraph_raises():
    backend = _Recorder()

    def g(x):
        if x.sum() > 0:  # data-dependent control flow: a graph break in PyTorch
            return x + 1
        return x - 1

    np.testing.assert_array_equal(torch.compile(g, backend=backend)(torch.ones(2)).numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(torch.compile(g, backend=backend)(-torch.ones(2)).numpy(), [-2.0, -2.0])
    assert backend.graphs == []
    with pytest.raises(torch._dynamo.exc.Unsupported, match="g cannot be traced into one FX graph"):
        torch.compile(g, backend=backend, fullgraph=True)(torch.ones(2))


def test_a_backend_that_fails_raises_backend_compiler_failed():
    with pytest.raises(torch._dynamo.exc.BackendCompilerFailed,
                       match="backend='<lambda>' raised:\nAssertionError: compiler_fn did not return callable"):
        torch.compile(lambda x: x + 1, backend=lambda gm, ex: None)(torch.ones(2))


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


def test_module_compile_with_a_callable_backend_feeds_it_the_modules_graph():
    backend = _Recorder()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    x = torch.randn(4, 3)
    expected = model(x)
    hooked = []
    model.register_forward_hook(lambda mod, args, out: hooked.append(tuple(out.shape)))
    model.compile(backend=backend)
    for _ in range(2):
        np.testing.assert_array_equal(model(x).detach().numpy(), expected.detach().numpy())
    assert backend.inputs == [[(4, 3)]] and hooked == [(4, 2), (4, 2)]

    class Branchy(nn.Module):
        def forward(self, x):
            return x + 1 if x.sum() > 0 else x - 1  # a graph break: eager, through the class's forward

    b = Branchy()
    b.compile(backend=backend)
    np.testing.assert_array_equal(b(-torch.ones(2)).numpy(), [-2.0, -2.0])
    assert len(backend.graphs) == 1
