"""compile: capture and replay of functions, guards, the plan cache, graph breaks and output safety."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit


@pytest.fixture(autouse=True)
def _unfused(monkeypatch):
    # capture, guards and replay, checked bitwise against eager and by the ops a plan lists: with every op its own
    # kernel, as eager runs it. Fused plans (a fused exp is an ulp from numpy's) are tested in test_fusion.py
    monkeypatch.setattr(jit.config, "fuse", False)


def _t(*shape, seed=0, requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ea.tensor(a, requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


def chain(x, y):
    return ((x * y).exp() - x).tanh().sum(1) + y.mean()


def test_replay_matches_eager_bitwise_and_captures_once():
    c = jit.compile(chain)
    for i in range(5):
        x, y = _t(3, 4, seed=i), _t(3, 4, seed=10 + i)
        np.testing.assert_array_equal(_np(c(x, y)), _np(chain(x, y)))
    assert c.captures == 1
    assert c.explain().ops_per_graph == [["mul", "exp", "sub", "tanh", "sum", "mean", "add"]]


def test_replay_reads_new_input_values_not_captured_ones():
    c = jit.compile(lambda x: x * 2 + 1)
    x = _t(4)
    for _ in range(3):
        c(x)
    x2 = _t(4, seed=5)
    np.testing.assert_array_equal(_np(c(x2)), _np(x2) * 2 + 1)


def test_new_shape_retraces_and_both_plans_stay():
    c = jit.compile(chain)
    for shape in ((3, 4), (2, 5), (3, 4), (2, 5)):
        for _ in range(3):
            x, y = _t(*shape), _t(*shape, seed=1)
            np.testing.assert_array_equal(_np(c(x, y)), _np(chain(x, y)))
    assert c.captures == 2
    assert c.explain().graph_count == 2


def test_guards_see_dtype_layout_requires_grad_and_scalars():
    def f(x, k):
        return x * k
    c = jit.compile(f)
    x = _t(3, 4)
    for args in ((x, 2.0), (x, 3.0), (x.t(), 2.0), (x.double(), 2.0), (x, 2)):
        for _ in range(3):
            r = c(*args)
        np.testing.assert_array_equal(_np(r), _np(f(*args)))
        assert r.dtype == f(*args).dtype
    assert c.captures == 5


def test_grad_mode_is_a_guard():
    w = _t(4, 3, requires_grad=True)
    c = jit.compile(lambda x: (x @ w).relu())
    x = _t(2, 4)
    with ea.no_grad():
        for _ in range(3):
            r = c(x)
    assert not r.requires_grad
    np.testing.assert_array_equal(_np(r), _np((x @ w).relu()))
    for _ in range(3):  # grad mode on: another plan, replayed through autograd (its output needs a history)
        r = c(x)
    assert r.requires_grad and r.grad_fn is not None
    r.sum().backward()
    np.testing.assert_allclose(_np(w.grad), _np(x).T @ (_np(r) > 0).astype(np.float32), rtol=1e-6)
    e = c.explain()
    assert e.graph_count == 2 and e.graph_break_count == 0
    assert [g.backward is not None for g in e.plans] == [False, True]
    assert "captured backward: threshold_backward" in str(e) and r.grad_fn.name() == "CompiledBackward"


def test_cache_limit_falls_back_with_one_warning_naming_the_guard(monkeypatch):
    monkeypatch.setattr(jit.config, "cache_size_limit", 3)
    c = jit.compile(lambda x: x + 1, dynamic=False)  # (the default keeps the last shapes: test_dynamic_shapes.py)
    for n in (1, 2, 3):
        c(_t(n))
        c(_t(n))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in (4, 5, 6):
            np.testing.assert_array_equal(_np(c(_t(n))), _np(_t(n)) + 1)
    assert len(w) == 1
    msg = str(w[0].message)
    assert "cache_size_limit (3)" in msg and "argument 0" in msg and "shape=(4,)" in msg and "shape=(3,)" in msg
    assert c.captures == 3


def test_bad_input_raises_the_eager_error():
    c = jit.compile(lambda x, y: x + y)
    x, y = _t(3), _t(3)
    for _ in range(3):
        c(x, y)
    with pytest.raises(RuntimeError) as eager:
        _t(3) + _t(4)
    with pytest.raises(RuntimeError) as comp:
        c(_t(3), _t(4))
    assert str(comp.value) == str(eager.value)
    np.testing.assert_array_equal(_np(c(x, y)), _np(x) + _np(y))


def test_outputs_of_a_replay_are_not_overwritten_by_the_next():
    c = jit.compile(lambda x: (x * 2, x.exp()))
    x1, x2 = _t(5), _t(5, seed=3)
    for _ in range(3):
        c(x1)
    a, b = c(x1)
    c(x2)
    np.testing.assert_array_equal(_np(a), _np(x1) * 2)
    np.testing.assert_array_equal(_np(b), _np(x1.exp()))


def test_a_constant_output_is_returned_as_a_copy():
    k = _t(3)
    c = jit.compile(lambda x: (x + 1, k))
    for _ in range(3):
        _, out = c(_t(3))
    assert out is not k
    np.testing.assert_array_equal(_np(out), _np(k))
    out.add_(1)
    np.testing.assert_array_equal(_np(c(_t(3))[1]), _np(k))


def test_item_of_a_returned_loss_is_read_after_each_replay():
    def f(x):
        return (x * x).sum().item()
    c = jit.compile(f)
    for i in range(4):
        x = _t(6, seed=i)
        v = c(x)
        assert v == f(x) and type(v) is float
    assert c.captures == 1 and c.explain().graph_break_count == 0


@pytest.mark.parametrize("read", ["item_used", "tolist", "numpy", "float"])
def test_host_reads_break_and_run_eagerly(read):
    def f(x):
        y = x.exp()
        if read == "item_used":
            return y * (y.sum().item() + 1.0)
        if read == "tolist":
            return y * len(y.tolist())
        if read == "numpy":
            return y * float(y.numpy().sum())
        return y * float(y.sum())
    c = jit.compile(f)
    for i in range(4):
        x = _t(3, seed=i)
        np.testing.assert_array_equal(_np(c(x)), _np(f(x)))
    e = c.explain()
    assert e.graph_count == 0 and e.graph_break_count == 1
    assert "test_compile.py" in e.break_reasons[0]


def test_fullgraph_raises_unsupported_naming_the_line():
    def f(x):
        y = x.exp()
        n = float(y.sum())  # the break
        return y * n
    c = jit.compile(f, fullgraph=True)
    x = _t(3)
    with pytest.raises(jit.Unsupported, match=r"float\(tensor\) reads a tensor's value.*test_compile.py:\d+") as e:
        c(x)
    line = int(str(e.value).rsplit(":", 1)[1])
    assert open(__file__).read().splitlines()[line - 1].strip().startswith("n = float(y.sum())")
    assert issubclass(jit.Unsupported, RuntimeError)


def test_data_dependent_shape_op_is_a_break():
    def f(x):
        return x[x > 0] * 2
    c = jit.compile(f)
    for i in range(4):
        x = _t(8, seed=i)
        np.testing.assert_array_equal(_np(c(x)), _np(f(x)))
    assert c.explain().graph_break_count == 1
    assert "nonzero" in c.explain().break_reasons[0] or "masked_select" in c.explain().break_reasons[0]


def test_forward_backward_fills_grad_like_eager():
    def f(x, w):
        x.grad = None
        loss = ((x @ w).tanh() ** 2).mean()
        loss.backward()
        return loss
    w = _t(4, 3, seed=1)
    xe, xc = _t(2, 4, requires_grad=True), _t(2, 4, requires_grad=True)
    c = jit.compile(f)
    for _ in range(4):
        le, lc = f(xe, w), c(xc, w)
        np.testing.assert_array_equal(_np(le), _np(lc))
        np.testing.assert_array_equal(_np(xe.grad), _np(xc.grad))
    assert c.captures == 1


def test_grads_accumulate_in_place_across_replays_like_eager():
    we, wc = _t(3, requires_grad=True), _t(3, requires_grad=True)

    def step(w, x):
        (w * x).sum().backward()
    c = jit.compile(lambda x: step(wc, x))
    for i in range(5):
        x = _t(3, seed=i)
        step(we, x)
        c(x)
        np.testing.assert_array_equal(_np(we.grad), _np(wc.grad))
    assert c.captures == 1


def test_dropout_replay_draws_the_same_stream_as_eager():
    def f(x):
        return ea.dropout(x, 0.5, training=True) * 3
    x = _t(50)
    ea.manual_seed(7)
    eager = [_np(f(x)) for _ in range(5)]
    ea.manual_seed(7)
    c = jit.compile(f)
    comp = [_np(c(x)) for _ in range(5)]
    for a, b in zip(eager, comp):
        np.testing.assert_array_equal(a, b)
    assert c.captures == 1
    assert not np.array_equal(comp[3], comp[4])


def test_random_creation_inside_the_function_draws_fresh_values():
    def f(x):
        return x + ea.randn(4)
    ea.manual_seed(3)
    eager = [_np(f(ea.zeros(4))) for _ in range(4)]
    ea.manual_seed(3)
    c = jit.compile(f)
    comp = [_np(c(ea.zeros(4))) for _ in range(4)]
    for a, b in zip(eager, comp):
        np.testing.assert_array_equal(a, b)


def test_compiled_function_called_inside_a_capture_is_recorded_by_the_outer_one():
    inner = jit.compile(lambda x: x.exp())
    outer = jit.compile(lambda x: inner(x) + 1)
    for i in range(4):
        x = _t(3, seed=i)
        np.testing.assert_array_equal(_np(outer(x)), _np(x.exp()) + 1)
    assert outer.explain().ops_per_graph == [["exp", "add"]]


def test_explain_lists_plans_and_breaks():
    e = jit.explain(lambda x: x.sin() + 1, _t(3))
    assert e.graph_count == 1 and e.ops_per_graph == [["sin", "add"]]
    assert "Plan 0: 2 nodes: sin, add" in str(e)
    e = jit.explain(lambda x: x.sin().tolist(), _t(3))
    assert e.graph_count == 0 and "tolist() reads a tensor's value" in e.break_reasons[0]


def test_compile_as_decorator_and_options():
    @jit.compile(fullgraph=True, dynamic=False, mode="reduce-overhead")
    def f(x):
        return x.cos()
    x = _t(3)
    for _ in range(3):
        np.testing.assert_array_equal(_np(f(x)), _np(x.cos()))
    assert f.__name__ == "f" and f.captures == 1
    with pytest.raises(TypeError, match="must be a callable"):
        jit.compile(3)


def test_autocast_state_is_a_guard():
    w = _t(4, 4, seed=2)
    c = jit.compile(lambda x: ea.mm(x, w))
    x = _t(3, 4)
    for _ in range(3):
        plain = c(x)
    with ea.autocast("cpu", dtype=ea.bfloat16):
        for _ in range(3):
            cast = c(x)
        ref = ea.mm(x, w)
    assert plain.dtype == ea.float32 and cast.dtype == ref.dtype == ea.bfloat16
    np.testing.assert_array_equal(_np(cast.float()), _np(ref.float()))
    assert c.captures == 2


def test_cache_limit_warning_names_a_guard_inside_a_container(monkeypatch):
    monkeypatch.setattr(jit.config, "cache_size_limit", 1)
    c = jit.compile(lambda xs, k: xs[0] * k + xs[1], dynamic=False)
    c([_t(2), _t(2)], 2.0)
    with pytest.warns(RuntimeWarning, match=r"argument 1: 3.0, the last plan has 2.0"):
        c([_t(2), _t(2)], 3.0)
    with pytest.warns(RuntimeWarning, match=r"argument 0\[0\]: Tensor\(shape=\(3,\)") as w:
        c._warned = False
        c([_t(3), _t(3)], 2.0)
    assert len(w) == 1


def test_ops_of_another_thread_during_a_capture_are_not_recorded():
    import threading

    started, stop = threading.Event(), threading.Event()

    def busy():
        y = _t(4)
        started.set()
        while not stop.is_set():
            y = (y * 1.0001).sin()
            float(y.sum())  # a host read in another thread is no break of this capture

    th = threading.Thread(target=busy)
    th.start()
    started.wait()
    try:
        def f(x):
            s = x
            for _ in range(50):
                s = s.cos()
            return s
        c = jit.compile(f)
        for _ in range(3):
            r = c(_t(4))
    finally:
        stop.set()
        th.join()
    assert c.explain().ops_per_graph == [["cos"] * 50]
    np.testing.assert_array_equal(_np(r), _np(f(_t(4))))


@pytest.mark.parametrize("fn", [lambda a: ea.equal(a, a * 1), lambda a: ea.allclose(a, a + 1e-9)],
                         ids=["equal", "allclose"])
def test_a_python_value_computed_from_tensors_is_a_break_not_a_frozen_constant(fn):
    c = jit.compile(fn)
    x = _t(3)
    for _ in range(3):
        assert c(x) is True
    e = c.explain()
    assert e.graph_count == 0 and e.graph_break_count == 1 and "reads" in e.break_reasons[0]


def test_forward_with_backward_outside_gets_one_captured_backward_node():
    w = _t(4, 3, seed=1, requires_grad=True)

    def f(x):
        h = (x @ w).tanh()
        return h * 2, h.sum(1)

    c = jit.compile(f)
    x = _t(2, 4, seed=2, requires_grad=True)
    for _ in range(3):
        a, b = c(x)
    assert a.grad_fn is b.grad_fn and a.grad_fn.name() == "CompiledBackward"
    (a.sum() + (b * b).sum()).backward(retain_graph=True)
    got_w, got_x = _np(w.grad).copy(), _np(x.grad).copy()
    w.grad = x.grad = None
    ea_, eb = f(x)
    (ea_.sum() + (eb * eb).sum()).backward()
    np.testing.assert_array_equal(got_w, _np(w.grad))
    np.testing.assert_array_equal(got_x, _np(x.grad))
    b.sum().backward()  # retained: a second backward through the node works
    a2, _ = c(x)
    a2.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        a2.sum().backward()


def test_arguments_whose_histories_meet_get_eagers_gradient_once():
    c = jit.compile(lambda x, h: x + h * 2)
    x = ea.ones(2, requires_grad=True)
    for _ in range(4):  # h = x * 3 made outside: x's gradient is 1 + 2 * 3, the path through h counted once
        c(x, x * 3).sum().backward()
        assert x.grad.tolist() == [7.0, 7.0]
        x.grad = None


def test_an_object_argument_is_guarded_by_identity():
    class Scale:
        def __init__(self, k):
            self.w = _t(3) * 0 + k

    c = jit.compile(lambda s, x: x * s.w)
    x = _t(3)
    for k in (2.0, 3.0):
        for _ in range(3):
            got = c(Scale(k), x) if k == 3.0 else None
        s = Scale(k)
        for _ in range(3):
            got = c(s, x)
        np.testing.assert_array_equal(_np(got), _np(x) * k)
    assert all(e.keep for e in c._cache.values())


def test_common_subexpressions_run_once_unless_a_write_comes_between():
    c = jit.compile(lambda x: x.exp() + x.exp() * 2)
    x = _t(4)
    for _ in range(3):
        r = c(x)
    np.testing.assert_array_equal(_np(r), _np(x.exp() + x.exp() * 2))
    assert c.explain().ops_per_graph == [["exp", "mul", "add"]]

    def g(x):
        y = x * 1
        a = y.exp()
        y.add_(1)
        return a + y.exp()
    c = jit.compile(g)
    for _ in range(3):
        r = c(x)
    np.testing.assert_array_equal(_np(r), _np(g(x)))
    assert c.explain().ops_per_graph[0].count("exp") == 2


def test_views_at_replay_follow_an_input_at_another_offset():
    # NOTE [ Views at replay ]: a view is made from the geometry seen at capture, relative to its operand's offset
    def f(x):
        y = x * 2.0
        return y.t().narrow(0, 1, 2) + x.transpose(0, 1)[1:3], x.view(12)[3:7]

    g = jit.compile(f)
    big = ea.tensor(np.arange(40, dtype=np.float32).reshape(10, 4))
    for start in (0, 0, 0, 3, 6, 1):
        x = big[start:start + 3]  # the same shape and strides at another storage offset
        for a, b in zip(g(x), f(x)):
            np.testing.assert_array_equal(_np(a), _np(b))
    assert g.captures == 1


def test_a_constant_repointed_to_another_shape_captures_again():
    w = ea.tensor(np.ones((3, 4), np.float32))

    def f(x):
        return x @ w.t()

    g = jit.compile(f)
    x = ea.tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
    for _ in range(3):
        np.testing.assert_array_equal(_np(g(x)), _np(f(x)))
    w.data = ea.tensor(np.full((5, 4), 2.0, np.float32))  # the transpose's geometry changes: the replay's test fails
    for _ in range(3):
        got = g(x)
        assert tuple(got.shape) == (2, 5)
        np.testing.assert_array_equal(_np(got), _np(f(x)))
    assert g.captures == 2


def test_a_constant_behind_a_viewed_result_repointed_captures_again():
    # the view is of mm's result, not of w: the replay still tests w's geometry, which the result's follows
    w = ea.tensor(np.ones((4, 3), np.float32))

    def f(x):
        return (x @ w).t() * 2.0

    g = jit.compile(f)
    x = ea.tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
    for _ in range(3):
        np.testing.assert_array_equal(_np(g(x)), _np(f(x)))
    w.data = ea.tensor(np.full((4, 1), 3.0, np.float32))  # a smaller result: a stale view would read past it
    for _ in range(3):
        got = g(x)
        assert tuple(got.shape) == (1, 2)
        np.testing.assert_array_equal(_np(got), _np(f(x)))


def test_a_slice_backward_gets_new_zeros_instead_of_a_copy_of_its_pristine_value():
    # slices each backpropagate through zeros with the slice written in: a replay makes those zeros as a new
    # tensor that fill_ then writes, not a copy of their value at capture
    w = _t(6, 4, requires_grad=True)

    def step(w):
        a, b, c = w.narrow(0, 0, 2), w.narrow(0, 2, 2), w.narrow(0, 4, 2)
        w.grad = None
        (a * 2.0 + b * 3.0 + c).sum().backward()
        return w.grad

    want = _np(step(w)).copy()
    c = jit.compile(step)
    for _ in range(3):
        np.testing.assert_array_equal(_np(c(w)), want)
    (graph, replay), = next(iter(c._cache.values())).plans
    assert replay.source.count("_blank(") == 3 and "_fresh(" not in replay.source


def test_compile_on_a_method_binds_like_the_function():
    # `@torch.compile` on a method: `obj.method(x)` passes obj as self, each instance with its own state
    class Scaler:
        def __init__(self, k):
            self.k = ea.tensor([k])

        @jit.compile
        def apply(self, x):
            return x * self.k

    a, b = Scaler(2.0), Scaler(3.0)
    x = _t(3)
    for _ in range(3):
        np.testing.assert_allclose(a.apply(x).numpy(), x.numpy() * 2.0, rtol=1e-6)
        np.testing.assert_allclose(b.apply(x).numpy(), x.numpy() * 3.0, rtol=1e-6)
    assert isinstance(Scaler.__dict__["apply"], jit.CompiledFunction) and Scaler.apply is Scaler.__dict__["apply"]


def test_a_step_writing_parameters_through_data_replays_as_eager():
    """A legacy manual-SGD step (`p.data.add_(...)`): `.data` has its own version counter but names its owner's
    memory, so the plan writes the parameters themselves and every replay matches eager bitwise."""
    x = _t(8, 4, seed=1)

    def make():
        return _t(4, 1, seed=2, requires_grad=True), _t(1, seed=3, requires_grad=True)

    def step(w, b):
        loss = ((x @ w + b) ** 2).mean()
        loss.backward()
        with ea.no_grad():
            for p in (w, b):
                p.data.add_(p.grad, alpha=-0.1)
                p.grad = None
        return loss.detach()

    we, be = make()
    wc, bc = make()
    c = jit.compile(step)
    for i in range(4):
        if i == 2:  # new memory for the weight: the plan names `w.data` by `w`, not by the captured alias
            wc.data, we.data = wc.data * 1.0, we.data * 1.0
        np.testing.assert_array_equal(_np(c(wc, bc)), _np(step(we, be)))
    np.testing.assert_array_equal(_np(wc), _np(we))
    np.testing.assert_array_equal(_np(bc), _np(be))
    assert c.captures == 1
