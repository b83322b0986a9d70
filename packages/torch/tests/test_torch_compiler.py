"""`torch.compiler`: compile, disable, the tracer hints and the state queries, over ember.jit."""

from __future__ import annotations

import numpy as np
import pytest

import ember.torch as torch
from ember.torch import nn


def test_compiler_is_reachable_as_an_attribute_and_compiles_like_torch_compile():
    f = torch.compiler.compile(lambda x: (x * 2).exp())
    x = torch.arange(3.0)
    for _ in range(3):  # the second call captures, the third replays
        np.testing.assert_allclose(f(x).numpy(), np.exp(2 * np.arange(3.0)), rtol=1e-6)
    assert f.captures == 1


def test_disable_gives_back_what_was_compiled():
    m = nn.Linear(2, 2)
    assert torch.compiler.disable(torch.compile(m)) is m

    def g(x):
        return x + 1

    assert torch.compiler.disable(torch.compile(g)) is g
    assert torch.compiler.disable(g).__wrapped__ is g  # a wrapper, as PyTorch's
    assert torch.compiler.disable(reason="eager")(g).__wrapped__ is g


def test_tracer_hints_return_the_function_and_state_queries_answer():
    def g(x):
        return x

    assert torch.compiler.allow_in_graph(g) is g
    assert torch.compiler.assume_constant_result(g) is g
    assert torch.compiler.is_compiling() is False
    assert torch.compiler.is_dynamo_compiling() is False
    assert torch.compiler.is_exporting() is False
    assert torch.compiler.cudagraph_mark_step_begin() is None
    assert "inductor" in torch.compiler.list_backends()
    seen = []
    f = torch.compile(lambda x: seen.append(torch.compiler.is_compiling()) or x * 3)
    for _ in range(3):
        f(torch.ones(2))
    # the first call (traced in PyTorch) and the capture (the append is a side effect: later calls run eagerly)
    assert seen[:2] == [True, True]


def test_importing_ember_torch_installs_jit_as_module_compiles_compiler():
    from ember.jit import CompiledFunction

    m = nn.Linear(2, 2)
    m.compile()
    assert type(m.__dict__["forward"]) is CompiledFunction


def test_dynamo_disable_is_compiler_disable():
    m = nn.Linear(2, 2)

    def g(x):
        return x + 1

    assert torch._dynamo.disable(torch.compile(m)) is m
    assert torch._dynamo.disable(g).__wrapped__ is g and torch._dynamo.disable(recursive=False)(g).__wrapped__ is g


def _raises_at_first_call(fn, x):
    with pytest.raises(torch._dynamo.exc.Unsupported) as e:
        fn(x)
    assert isinstance(e.value, torch._dynamo.exc.TorchDynamoException) and isinstance(e.value, RuntimeError)
    return str(e.value)


def test_fullgraph_raises_at_the_first_call_for_disabled_calls_graph_break_and_print():
    # PyTorch's Dynamo raises torch._dynamo.exc.Unsupported on the first call of a fullgraph function
    @torch.compiler.disable
    def helper(t):
        return t + 1

    x = torch.ones(2)
    assert "disable()d function" in _raises_at_first_call(torch.compile(lambda t: helper(t) * 2, fullgraph=True), x)
    assert "graph_break()" in _raises_at_first_call(
        torch.compile(lambda t: (torch._dynamo.graph_break(), t * 2)[1], fullgraph=True), x)
    assert "print()" in _raises_at_first_call(torch.compile(lambda t: (print("hi"), t * 2)[1], fullgraph=True), x)
    f = torch.compile(lambda t: (t * 2).exp(), fullgraph=True)
    for _ in range(3):
        np.testing.assert_allclose(f(x).numpy(), np.exp(2 * np.ones(2)), rtol=1e-6)


def test_disabled_calls_and_prints_run_at_every_call(capsys):
    # a graph break in PyTorch: the disabled function and print run eagerly at each call, never skipped by a replay
    calls = []

    @torch.compiler.disable
    def log(t):
        calls.append(torch.compiler.is_compiling())
        return t

    @torch.compile
    def f(x):
        y = log(x * 2)
        print("step")
        return y + 1

    for _ in range(4):
        np.testing.assert_array_equal(f(torch.ones(2)).numpy(), [3.0, 3.0])
    assert len(calls) == 4 and calls[-1] is False
    assert capsys.readouterr().out == "step\n" * 4


def test_is_compiling_is_true_in_every_traced_call_and_false_in_disabled_functions():
    # PyTorch traces the first call, so a branch on is_compiling() takes the compiled side from the start
    seen = []

    @torch.compiler.disable
    def probe():
        seen.append(torch.compiler.is_compiling())

    @torch.compile
    def f(x):
        probe()
        return x * 2 if torch.compiler.is_compiling() else x * 3

    assert [f(torch.ones(1)).item() for _ in range(3)] == [2.0, 2.0, 2.0]
    assert seen == [False, False, False] and not torch.compiler.is_compiling()


def test_set_stance_force_eager_as_call_context_manager_and_decorator():
    # PyTorch: "force_eager" runs compiled functions eagerly (is_compiling() False), "default" compiles again
    @torch.compile
    def f(x):
        return x * 2 if torch.compiler.is_compiling() else x * 3

    one = torch.ones(1)
    assert [f(one).item() for _ in range(3)] == [2.0, 2.0, 2.0]
    with torch.compiler.set_stance("force_eager"):
        assert [f(one).item() for _ in range(3)] == [3.0, 3.0, 3.0]
    assert f(one).item() == 2.0

    @torch.compiler.set_stance("force_eager")
    def run():
        return f(one).item()

    assert f(one).item() == 2.0 and run() == 3.0 and f(one).item() == 2.0
    torch.compiler.set_stance("force_eager")
    try:
        assert f(one).item() == 3.0
    finally:
        torch.compiler.set_stance("default")
    assert f(one).item() == 2.0
    with pytest.raises(RuntimeError, match="invalid torch.compile stance 'DynamoStance\\(stance='bogus'"):
        torch.compiler.set_stance("bogus")
    with pytest.raises(RuntimeError, match="non-default stance cannot have force_backend set"):
        torch.compiler.set_stance("force_eager", force_backend="eager")
