"""compile: a graph break splits the function into compiled segments with eager Python between them
(NOTE [ Compiled segments ] in ember.jit.segments; docs/compile.md, "Graph breaks")."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit


@pytest.fixture(autouse=True)
def _bitwise(monkeypatch):
    monkeypatch.setattr(jit.config, "fuse", False)  # every op its own kernel: replays are bitwise eager


class SGD:
    """The least an optimizer is to the capture: `param_groups`, `state`, `step()` and `zero_grad()`."""

    def __init__(self, params, lr: float) -> None:
        self.param_groups = [{"params": list(params), "lr": lr}]
        self.state: dict = {}

    def step(self) -> None:
        with ea.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.sub_(p.grad * group["lr"])

    def zero_grad(self) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None


def _params(seed=0):
    rng = np.random.default_rng(seed)
    return (ea.tensor(rng.standard_normal((4, 3)), requires_grad=True),
            ea.tensor(rng.standard_normal(3), requires_grad=True))


def _data(n, seed=1):
    rng = np.random.default_rng(seed)
    return [(ea.tensor(rng.standard_normal((5, 4))), ea.tensor(rng.standard_normal((5, 3)))) for _ in range(n)]


def _np(t):
    return None if t is None else t.detach().numpy().copy()


def _captures(c):
    return c.explain().captures


def _compiled_segments(ex):
    """The compiled segments of `ex` and of its segments' own splits, each with its plans' count."""
    out = []
    for kind, _lines, sub in ex.segments:
        if kind == "compiled":
            out += _compiled_segments(sub) if sub.segments else [sub.graph_count]
    return out


def make_item_step():
    w, b = _params()
    opt = SGD([w, b], 0.1)

    def step(x, y):
        running = 0.0
        loss = ((ea.tanh(x @ w + b) - y) ** 2).mean()
        running += loss.item()
        loss.backward()
        opt.step()
        opt.zero_grad()
        return running
    return step, (w, b)


def test_training_step_with_item_in_the_middle_replays_segments_bitwise_without_recapture():
    eager, (we, be) = make_item_step()
    step, (wc, bc) = make_item_step()
    c = jit.compile(step)
    counts = []
    for x, y in _data(12):
        assert c(x, y) == eager(x, y)
        np.testing.assert_array_equal(_np(wc), _np(we))
        np.testing.assert_array_equal(_np(bc), _np(be))
        counts.append(_captures(c))
    assert counts[-1] == counts[6]  # every later call replays its segments
    ex = c.explain()
    assert ex.graph_break_count == 2 and "line" in ex.break_reasons[0]  # .item(), and backward() in segment 2
    assert ex.graph_count == 2  # the forward and the optimizer's plans
    assert [k for k, _l, _e in ex.segments] == ["compiled", "eager", "compiled", "return"]
    assert _compiled_segments(ex) == [1, 1]  # the forward (with its captured backward) and the optimizer
    assert ex.segments[0][2].plans[0].backward is not None


def _grad_run(fn, calls):
    w, b = _params()
    out = []
    for x, _y in _data(calls):
        r = fn(x, w, b)
        loss, extra = r
        loss.backward()
        out.append((_np(loss), extra, _np(w.grad), _np(b.grad)))
        w.grad = b.grad = None
    return out


def _same(a, b):
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        for va, vb in zip(ra, rb):
            if isinstance(va, np.ndarray):
                np.testing.assert_array_equal(va, vb)
            else:
                assert va == vb


def with_tolist(x, w, b):
    h = ea.tanh(x @ w + b)
    rows = h.sum(1).tolist()
    loss = (h * h).sum()
    return loss, rows


def with_numpy(x, w, b):
    h = x @ w
    peak = float(h.detach().numpy().max())
    loss = (h + b).exp().mean()
    return loss, peak


def with_print(x, w, b):
    h = x @ w + b
    print(h.sum())
    loss = (h.sigmoid() * 3).sum()
    return loss, None


@pytest.mark.parametrize("fn", [with_tolist, with_numpy, with_print])
def test_value_and_gradient_equal_eager_over_calls(fn, capsys):
    want = _grad_run(fn, 6)
    printed = capsys.readouterr().out
    c = jit.compile(fn)
    got = _grad_run(c, 6)
    _same(got, want)
    assert capsys.readouterr().out == printed
    ex = c.explain()
    assert [k for k, _l, _e in ex.segments] == ["compiled", "eager", "compiled", "return"]
    assert _compiled_segments(ex) == [1, 1]
    before = _captures(c)
    _same(_grad_run(c, 3), want[:3])
    assert _captures(c) == before


def loop_break(x, w):
    h = x @ w
    total = 0.0
    for _ in range(3):
        h = ea.tanh(h) * 2
        total = total + h.sum().item()
    out = (h * total).sum()
    return out, total


def test_a_break_inside_a_loop_runs_the_whole_loop_eagerly():
    w, _b = _params()
    c = jit.compile(loop_break)
    for x, _y in _data(5):
        want = loop_break(x, w)
        got = c(x, w)
        np.testing.assert_array_equal(_np(got[0]), _np(want[0]))
        assert got[1] == want[1]
    ex = c.explain()
    kinds = [(k, lines) for k, lines, _e in ex.segments]
    first = loop_break.__code__.co_firstlineno
    assert kinds[1] == ("eager", (first + 3, first + 5))  # the whole `for`
    assert kinds[0][0] == "compiled"


def two_breaks(x, w):
    a = x @ w
    print(a.sum())
    b = a.exp()
    rows = b.tolist()
    c = (b * 3).sum(0)
    return c, rows


def test_two_breaks_split_into_three_compiled_segments(capsys):
    w, _b = _params()
    c = jit.compile(two_breaks)
    data = _data(8)
    want = [two_breaks(x, w) for x, _y in data]
    printed = capsys.readouterr().out
    got = [c(x, w) for x, _y in data]
    assert capsys.readouterr().out == printed
    for (gc, gr), (wc, wr) in zip(got, want):
        np.testing.assert_array_equal(_np(gc), _np(wc))
        assert gr == wr
    ex = c.explain()
    assert _compiled_segments(ex) == [1, 1, 1]
    assert "line" in str(ex) and f"{two_breaks.__code__.co_firstlineno + 2}" in str(ex)


def test_escaping_outputs_are_not_overwritten():
    w, _b = _params()
    c = jit.compile(two_breaks)
    data = _data(8)
    kept = [c(x, w)[0] for x, _y in data]
    for (x, _y), k in zip(data, kept):
        np.testing.assert_array_equal(_np(k), _np(two_breaks(x, w)[0]))


def make_closure():
    w, b = _params()
    scale = ea.tensor([2.0, 3.0, 4.0])
    shift = 1.5

    def f(x):
        h = (x @ w) * scale
        print(h.sum())
        return (h + b + shift).sum() * scale
    return f, (w, b)


def test_closure_variables_are_read_through_the_functions_cells(capsys):
    f, (w, b) = make_closure()
    c = jit.compile(f)
    for x, _y in _data(5):
        want = f(x)
        want.sum().backward()
        gw, gb = _np(w.grad), _np(b.grad)
        w.grad = b.grad = None
        got = c(x)
        got.sum().backward()
        np.testing.assert_array_equal(_np(got), _np(want))
        np.testing.assert_array_equal(_np(w.grad), gw)
        np.testing.assert_array_equal(_np(b.grad), gb)
        w.grad = b.grad = None
    assert [k for k, _l, _e in c.explain().segments] == ["compiled", "eager", "compiled"]


def test_a_closure_variable_rebound_is_read_anew():
    k = 1.0

    def f(x):
        h = x * k
        print(h.sum())
        return h + k

    c = jit.compile(f)
    x = ea.ones(2)
    for v in (1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.0):
        k = v
        assert c(x).tolist() == [2 * v, 2 * v]


class Block:
    """What `compile` takes for a module, without ember.nn: `_modules`, `modules()`, `training`, `forward`."""

    def __init__(self) -> None:
        self.w, self.b = _params()
        self._modules: dict = {}
        self._forward_hooks: dict = {}
        self.training = True
        self.seen: list = []

    def modules(self):
        yield self

    def _call_impl(self, x):  # ember.nn's name: a module whose call runs its forward alone
        return self.forward(x)

    __call__ = _call_impl

    def forward(self, x):
        h = ea.tanh(x @ self.w)
        peak = 1.0 + h.max().item()
        return (h + self.b) * 2, peak  # the float beside the tensor: no argument of the last compiled segment

    def scaled(self, x, factor=3.0):
        h = x @ self.w
        print(h.sum())
        return h * factor


def test_a_module_forward_splits_with_self_a_parameter():
    m, ref = Block(), Block()
    c = jit.compile(m)
    assert isinstance(c, jit.CompiledModule)
    for x, _y in _data(6):
        got, want = c(x), ref(x)
        np.testing.assert_array_equal(_np(got[0]), _np(want[0]))
        assert got[1] == want[1]
        got[0].sum().backward()
        want[0].sum().backward()
        np.testing.assert_array_equal(_np(m.w.grad), _np(ref.w.grad))
        np.testing.assert_array_equal(_np(m.b.grad), _np(ref.b.grad))
    ex = c.explain()
    assert [k for k, _l, _e in ex.segments] == ["compiled", "eager", "compiled", "return"]
    assert _compiled_segments(ex) == [1, 1]
    assert ex.captures == 3  # the call that broke and one capture of each compiled segment


def test_a_bound_method_splits(capsys):
    m = Block()
    c = jit.compile(m.scaled)
    for x, _y in _data(5):
        np.testing.assert_array_equal(_np(c(x)), _np(m.scaled(x)))
        np.testing.assert_array_equal(_np(c(x, factor=0.5)), _np(m.scaled(x, 0.5)))
    assert c.explain().segments


def conditional_name(x, flag):
    h = x * 2
    if flag:
        extra = h + 1
    print(h.sum())
    return extra * 2


def test_a_name_left_unbound_raises_eagers_error(capsys):
    c = jit.compile(conditional_name)
    x = ea.ones(2)
    for _ in range(4):
        assert c(x, True).tolist() == [6.0, 6.0]
    with pytest.raises(UnboundLocalError, match="extra"):
        conditional_name(x, False)
    for _ in range(3):
        with pytest.raises(UnboundLocalError, match="extra"):
            c(x, False)


def indexed(x, idx):
    h = x * 2
    print(h.sum())
    return h.index_select(0, idx)


def test_an_error_inside_a_replayed_segment_is_eagers(capsys):
    c = jit.compile(indexed)
    x = ea.arange(4.0)
    for _ in range(5):
        assert c(x, ea.tensor([0, 2])).tolist() == [0.0, 4.0]
    with pytest.raises(Exception) as want:
        indexed(x, ea.tensor([0, 9]))
    with pytest.raises(type(want.value)) as got:
        c(x, ea.tensor([0, 9]))
    assert str(got.value) == str(want.value)


def with_dropout(x):
    h = ea.dropout(x, 0.5, training=True)
    total = h.sum().item()
    return ea.dropout(h, 0.3, training=True) * total


def test_dropout_streams_equal_eager_across_segments():
    x = ea.ones(64)
    ea.manual_seed(3)
    want = [with_dropout(x).tolist() for _ in range(6)]
    c = jit.compile(with_dropout)
    ea.manual_seed(3)
    got = [c(x).tolist() for _ in range(6)]
    assert got == want
    assert c.explain().segments


def uses_global(x):
    global COUNTER
    h = x * 2
    v = h.sum().item() + COUNTER
    return h * v


COUNTER = 0.0


def early_return(x):
    h = x * 2
    if h.sum().item() > 100.5:
        return h
    return h + 1


def deletes(x):
    h = x * 2
    v = h.sum().item() + 1.0
    del h
    return x * v


def returns_in_the_break(x):
    h = x * 2
    if h.sum().item() + 0.5 > 100.0:
        return h
    return h + 1


def make_nonlocal():
    calls = 0

    def f(x):
        nonlocal calls
        h = x * 2
        return h * float(h.sum() + calls)
    return f


@pytest.mark.parametrize("fn, why", [
    (uses_global, "'global' statement"),
    (make_nonlocal(), "'nonlocal' statement"),
    (returns_in_the_break, "a 'return' before the last segment"),
    (deletes, "'del' of a local name"),
    (lambda x: x * float(x.sum()), "not a 'def'"),
])
def test_what_cannot_be_split_runs_eagerly_with_the_reason(fn, why):
    c = jit.compile(fn)
    x = ea.arange(3.0)
    for _ in range(4):
        np.testing.assert_array_equal(_np(c(x)), _np(fn(x)))
    ex = c.explain()
    assert not ex.segments
    assert any(why in r and "runs eagerly" in r for r in ex.break_reasons), ex.break_reasons


def test_a_function_without_source_runs_eagerly():
    ns: dict = {"ea": ea}
    exec("def f(x):\n    h = x * 2\n    return h * float(h.sum())\n", ns)
    c = jit.compile(ns["f"])
    x = ea.arange(3.0)
    for _ in range(3):
        assert c(x).tolist() == ns["f"](x).tolist()
    assert "source is not available" in c.explain().break_reasons[0]


def test_a_branch_on_a_float_item_returning_early_is_a_guard_not_a_split():
    c = jit.compile(early_return)
    for v in (1.0, 1.0, 1.0, 100.0, 100.0, 1.0):
        x = ea.full((2,), v)
        assert c(x).tolist() == early_return(x).tolist()
    assert not c.explain().segments


def test_fullgraph_raises_naming_the_line():
    c = jit.compile(with_tolist, fullgraph=True)
    w, b = _params()
    x, _y = _data(1)[0]
    with pytest.raises(jit.Unsupported, match=rf"test_segments.py:{with_tolist.__code__.co_firstlineno + 2}"):
        c(x, w, b)


def test_fullgraph_names_the_line_of_a_backward_reaching_outside():
    w, _b = _params()

    def f(t):
        t.backward()
        return w.grad

    c = jit.compile(f, fullgraph=True)
    with pytest.raises(jit.Unsupported, match=rf"test_segments.py:{f.__code__.co_firstlineno + 1}"):
        c((w * 2).sum())


def test_explain_lists_segments_plans_and_the_break_line(capsys):
    w, b = _params()
    x, _y = _data(1)[0]
    ex = jit.explain(with_print, x, w, b)
    text = str(ex)
    line = with_print.__code__.co_firstlineno + 2
    assert f"at line {line}" in text and f"Segment 1 (line {line}): eager, the break" in text
    c = jit.compile(with_print)
    for _ in range(4):
        c(x, w, b)
    text = str(c.explain())
    assert "Segment 0" in text and "Plan 0" in text and "Segment 2" in text


def test_segment_depth_limit_leaves_deeper_breaks_eager(monkeypatch, capsys):
    monkeypatch.setattr(jit.config, "segment_depth_limit", 1)
    w, _b = _params()
    c = jit.compile(two_breaks)
    for x, _y in _data(6):
        got, want = c(x, w), two_breaks(x, w)
        np.testing.assert_array_equal(_np(got[0]), _np(want[0]))
    ex = c.explain()
    inner = ex.segments[2][2]
    assert any("config.segment_depth_limit" in r for r in inner.break_reasons)


def test_a_module_with_hooks_runs_eagerly():
    m, ref = Block(), Block()
    m._forward_hooks = {0: lambda *a: None}
    c = jit.compile(m)
    for x, _y in _data(4):
        np.testing.assert_array_equal(_np(c(x)[0]), _np(ref(x)[0]))
    assert not c.explain().segments
    assert "the module has hooks" in c.explain().break_reasons[0]


def test_an_nn_training_step_with_item_equals_eager_and_stops_capturing():
    nn = pytest.importorskip("ember.nn")
    optim = pytest.importorskip("ember.optim")

    def run(compiled):
        ea.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
        opt = optim.Adam(model.parameters(), lr=0.01)
        loss_fn = nn.MSELoss()

        def step(x, y):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            total = 0.0
            total += loss.item()
            loss.backward()
            opt.step()
            return total
        fn = jit.compile(step) if compiled else step
        losses = [fn(x.float(), y.float()) for x, y in _data(12)]
        return losses, [_np(p) for p in model.parameters()], fn

    want, want_params, _ = run(False)
    got, got_params, c = run(True)
    assert got == want
    for a, b in zip(got_params, want_params):
        np.testing.assert_array_equal(a, b)
    ex = c.explain()
    assert _compiled_segments(ex) == [1, 1]


def value_dependent_shape(x):
    h = x * 2
    pos = h[h > 0]
    same = ea.equal(h, x)
    return (pos * 3).sum(), same


def test_ops_with_value_dependent_shapes_or_python_results_run_eagerly_between_segments():
    c = jit.compile(value_dependent_shape)
    for i in range(6):
        x = ea.tensor([1.0, -2.0, 3.0, -4.0]) * (1 if i % 2 else -1)
        got, want = c(x), value_dependent_shape(x)
        assert got[0].item() == want[0].item() and got[1] == want[1]
    kinds = [k for k, _l, _e in c.explain().segments]
    assert kinds[:2] == ["compiled", "eager"]


def counts_without_returning(x):
    hits = 0
    h = x * 2
    hits += int(h.sum().item() > 0) + len(h.tolist())
    return h + 1


def test_an_augmented_assignment_reads_its_name():
    c = jit.compile(counts_without_returning)
    for _ in range(5):
        assert c(ea.ones(2)).tolist() == [3.0, 3.0]
    assert c.explain().segments


def test_a_source_file_changed_since_it_was_loaded_is_not_split(tmp_path, monkeypatch):
    path = tmp_path / "stale_step.py"
    path.write_text("def f(x):\n    h = x * 2\n    return h * float(h.sum())\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    mod = importlib.import_module("stale_step")
    path.write_text("def f(x):\n    h = x * 3\n    y = h + 1\n    return y * float(h.sum())\n")
    c = jit.compile(mod.f)
    x = ea.arange(3.0)
    for _ in range(3):
        assert c(x).tolist() == [0.0, 12.0, 24.0]  # the code loaded, not the file as it is now
    assert "source does not compile to its code" in c.explain().break_reasons[0]


def metrics(x, w):
    h = ea.tanh(x @ w)
    acc = 0.0
    acc += (h > 0).float().mean().item()
    return {"out": (h * 2).sum(0), "acc": acc}


def test_a_returned_dict_keeps_its_python_value_out_of_the_compiled_segment():
    w, _b = _params()
    c = jit.compile(metrics)
    for x, _y in _data(8):
        got, want = c(x, w), metrics(x, w)
        assert got["acc"] == want["acc"]
        np.testing.assert_array_equal(_np(got["out"]), _np(want["out"]))
    ex = c.explain()
    assert [k for k, _l, _e in ex.segments] == ["compiled", "eager", "compiled", "return"]
    assert _compiled_segments(ex) == [1, 1] and ex.captures == 3


def signature(x, n=2, *rest, scale=1.0, **kw):
    h = x * n
    print(h, len(rest), sorted(kw))
    return x + h * scale, x


def test_the_first_segment_takes_the_original_signature(capsys):
    c = jit.compile(signature)
    x = ea.ones(2, requires_grad=True)
    for _ in range(5):
        a, same = c(x, 3, 7, 8, scale=2.0, k=1)
        assert a.tolist() == [7.0, 7.0] and same is x
        a.sum().backward()
        assert x.grad.tolist() == [7.0, 7.0]
        x.grad = None
        assert c(x)[0].tolist() == [3.0, 3.0]
    assert capsys.readouterr().out.count("2 ['k']") == 5
    assert c.explain().segments


def with_library_print(x, w, b):
    import dis
    import io

    h = x @ w + b
    dis.dis(lambda: None, file=io.StringIO())  # the standard library's own `print(..., file=...)` calls
    return (h.sigmoid() * 3).sum(), None


def test_a_print_inside_a_library_is_no_break():
    """Only the program's own `print` is a break: a library printing while the capture runs (the standard library
    here; Numba annotating a kernel it compiles on a cold cache) leaves the function captured whole."""
    want = _grad_run(with_library_print, 4)
    c = jit.compile(with_library_print)
    _same(_grad_run(c, 4), want)
    ex = c.explain()
    assert ex.graph_break_count == 0 and ex.graph_count == 1, ex
