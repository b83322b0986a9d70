"""compile: the wrong-answer traps of a frozen capture, each giving eager's answer (docs/compile.md, "Guards")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit


def _calls(fn, n, *args, **kwargs):
    return [fn(*args, **kwargs).tolist() for _ in range(n)]


@pytest.mark.parametrize("make", [lambda: ea.zeros(3), lambda: ea.tensor([0.0, 1.0, 2.0]), lambda: ea.arange(3.0),
                                  lambda: ea.full((3,), 2.0), lambda: ea.tensor([[5.0, 6.0, 7.0]])[0]])
def test_tensor_made_inside_and_written_in_place_starts_afresh_each_replay(make):
    def f(x):
        buf = make()
        buf += x
        buf.mul_(2)
        return buf

    want = (np.asarray(make().tolist()) + 1) * 2
    c = jit.compile(f)
    got = _calls(c, 4, ea.ones(3))
    assert c.captures == 1
    np.testing.assert_array_equal(np.asarray(got), np.stack([want] * 4))


def test_tensor_made_inside_and_only_read_stays_a_constant():
    c = jit.compile(lambda x: x + ea.tensor([1.0, 2.0]))
    assert _calls(c, 4, ea.ones(2)) == [[2.0, 3.0]] * 4
    assert c.explain().graph_count == 1


SCALE = 1.0
WEIGHT = ea.ones(2)


def scaled(x):
    return x * SCALE


def weighted(x):
    return x * WEIGHT


def test_a_global_number_is_guarded_by_value():
    global SCALE
    c = jit.compile(scaled)
    got = []
    for v in (1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3):
        SCALE = v
        got.append(c(ea.ones(1)).tolist()[0])
    SCALE = 1.0
    assert got == [1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0]
    assert c.captures == 3


def test_a_global_tensor_rebound_is_read_anew():
    global WEIGHT
    c = jit.compile(weighted)
    got = []
    for v in (1.0, 1.0, 1.0, 5.0, 5.0, -1.0):
        if got and v != got[-1]:
            WEIGHT = ea.full((2,), v)
        got.append(c(ea.ones(2)).tolist()[0])
    assert got == [1.0, 1.0, 1.0, 5.0, 5.0, -1.0]
    with ea.no_grad():
        WEIGHT.copy_(ea.full((2,), 7.0))  # an update in place is read by the same plan
    assert c(ea.ones(2)).tolist() == [7.0, 7.0]
    WEIGHT = ea.ones(2)


def test_a_closure_variable_is_guarded():
    k = 1.0

    def f(x):
        return x * k

    c = jit.compile(f)
    got = []
    for v in (1.0, 1.0, 1.0, 4.0, 4.0):
        k = v
        got.append(c(ea.ones(1)).tolist()[0])
    assert got == [1.0, 1.0, 1.0, 4.0, 4.0]


def test_a_value_that_changes_every_call_falls_back_to_eager_with_one_warning():
    k = 0.0

    def f(x):
        return x + k

    c = jit.compile(f)
    got = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for i in range(2 * jit.config.cache_size_limit + 4):
            k = float(i)
            got.append(c(ea.zeros(1)).tolist()[0])
    assert got == [float(i) for i in range(2 * jit.config.cache_size_limit + 4)]
    msgs = [str(x.message) for x in w if "run-time checks failed" in str(x.message)]
    assert len(msgs) == 1 and "calls run eagerly" in msgs[0]
    assert c.captures == jit.config.cache_size_limit


def test_keyword_arguments_are_bound_by_name():
    c = jit.compile(lambda x, y: x - y)
    one, zero = ea.ones(1), ea.zeros(1)
    got = [c(x=one, y=zero).tolist()[0] for _ in range(3)] + [c(y=one, x=zero).tolist()[0] for _ in range(3)]
    assert got == [1.0] * 3 + [-1.0] * 3


def test_defaults_and_keywords_pick_their_own_plans():
    def f(x, y=None, a=1.0):
        return x * a + (0 if y is None else y)

    c = jit.compile(f)
    x = ea.ones(1)
    got = [c(x, a=2.0).tolist()[0] for _ in range(3)] + [c(x, y=x).tolist()[0] for _ in range(3)]
    got += [c(a=3.0, x=x).tolist()[0] for _ in range(3)]
    assert got == [2.0] * 3 + [2.0] * 3 + [3.0] * 3


def test_in_place_update_of_an_input_is_seen_by_the_caller():
    def f(x):
        x.add_(1)
        return x * 2

    c = jit.compile(f)
    y = ea.zeros(2)
    assert [c(y).tolist()[0] for _ in range(4)] == [2.0, 4.0, 6.0, 8.0]
    assert y.tolist() == [4.0, 4.0]


def test_a_returned_view_of_an_input_shares_its_memory():
    c = jit.compile(lambda x: x[1:])
    ins = [ea.full((3,), float(i)) for i in range(4)]
    outs = [c(t) for t in ins]
    for t in ins:
        t.add_(10)
    assert [o.tolist() for o in outs] == [[10.0 + i] * 2 for i in range(4)]


def test_a_generator_argument_draws_as_eager():
    gen = ea.Generator().manual_seed(0)

    def f(x):
        return x + ea.randn(3, generator=gen)

    gen.manual_seed(3)
    want = [f(ea.ones(3)).tolist() for _ in range(5)]
    c = jit.compile(f)
    gen.manual_seed(3)
    assert [c(ea.ones(3)).tolist() for _ in range(5)] == want


def test_setting_an_item_of_a_list_or_dict_argument_runs_eagerly():
    def f(x, out):
        out[0] = x * 2
        return x

    def g(x, d):
        d["y"] = x + 1
        return x

    cf, cg = jit.compile(f), jit.compile(g)
    got_f, got_g = [], []
    for i in range(4):
        o, d = [None], {"y": None}
        cf(ea.full((1,), float(i)), o)
        cg(ea.full((1,), float(i)), d)
        got_f.append(o[0].tolist())
        got_g.append(d["y"].tolist())
    assert got_f == [[2.0 * i] for i in range(4)] and got_g == [[i + 1.0] for i in range(4)]
    assert "changes Python state a replay would not (argument 1)" in cf.explain().break_reasons[0]


COUNT = 0
LAST = None


def counted(x):
    global COUNT
    COUNT += 1
    return x * 2


def stored(x):
    global LAST
    LAST = x * 3
    return x


def test_rebinding_a_global_inside_runs_eagerly():
    global COUNT
    COUNT = 0
    c = jit.compile(counted)
    for _ in range(5):
        c(ea.ones(1))
    assert COUNT == 5
    assert "global COUNT" in c.explain().break_reasons[0]
    s = jit.compile(stored)
    got = []
    for i in range(4):
        s(ea.full((1,), float(i)))
        got.append(LAST.tolist()[0])
    assert got == [0.0, 3.0, 6.0, 9.0]


def test_a_nonlocal_counter_runs_eagerly():
    n = 0

    def f(x):
        nonlocal n
        n += 1
        return x

    c = jit.compile(f)
    for _ in range(5):
        c(ea.ones(1))
    assert n == 5


def test_with_fullgraph_a_python_side_effect_raises():
    c = jit.compile(counted, fullgraph=True)
    with pytest.raises(jit.Unsupported, match="changes Python state a replay would not"):
        c(ea.ones(1))


def test_reseeding_inside_is_replayed_in_its_place():
    gen = ea.Generator()

    def f(x):
        a = ea.rand(2, generator=gen)
        gen.manual_seed(1)
        ea.manual_seed(2)
        return x + a + ea.rand(2, generator=gen) + ea.randn(2)

    gen.manual_seed(0)
    want = [f(ea.zeros(2)).tolist() for _ in range(5)]
    gen.manual_seed(0)
    c = jit.compile(f)
    assert [c(ea.zeros(2)).tolist() for _ in range(5)] == want
    assert c.explain().graph_count == 1 and "Generator.manual_seed" in c.explain().ops_per_graph[0]


def test_assigning_data_inside_runs_eagerly():
    w = ea.ones(2)

    def f(x):
        w.data = w.data * 0.5
        return x + w

    c = jit.compile(f)
    assert [c(ea.zeros(2)).tolist()[0] for _ in range(4)] == [0.5, 0.25, 0.125, 0.0625]
    assert "assigning .data" in c.explain().break_reasons[0]


def _backward_inside(x):
    loss = (x * x).sum()
    loss.backward()
    return loss


def test_a_non_leaf_argument_after_leaf_calls_gets_its_gradient():
    c = jit.compile(_backward_inside)
    for _ in range(3):
        c(ea.ones(3, requires_grad=True))
    w = ea.ones(3, requires_grad=True)
    c(w * 3)  # not a leaf: new guards, and its gradient flows on into w
    assert w.grad.tolist() == [18.0] * 3


def test_backward_into_a_history_made_outside_runs_eagerly():
    c = jit.compile(_backward_inside)
    w, v = ea.ones(3, requires_grad=True), ea.ones(3, requires_grad=True)
    got = []
    for k in range(1, 6):
        w.grad = v.grad = None
        c((w if k % 2 else v) * k)
        got.append((w if k % 2 else v).grad.tolist()[0])
    assert got == [2.0 * k * k for k in range(1, 6)]
    assert "reaches the history of a tensor made outside it" in c.explain().break_reasons[0]


def test_the_default_dtype_is_guarded():
    c = jit.compile(lambda x: x + ea.tensor([1.5, 2.5]))
    for _ in range(3):
        assert c(ea.ones(2, dtype=ea.float64)).dtype == ea.float64
    old = ea.get_default_dtype()
    try:
        ea.set_default_dtype(ea.float64)
        assert [c(ea.ones(2, dtype=ea.float32)).dtype for _ in range(3)] == [ea.float64] * 3
    finally:
        ea.set_default_dtype(old)
    assert c(ea.ones(2, dtype=ea.float32)).dtype == ea.float32


def test_no_grad_around_a_compiled_call_picks_its_own_plan():
    w = ea.ones(3, requires_grad=True)
    c = jit.compile(lambda x: (x * 2).sum())
    for _ in range(3):
        assert c(w).requires_grad
    with ea.no_grad():
        assert [c(w).requires_grad for _ in range(3)] == [False] * 3
    out = c(w)
    out.backward()
    assert out.requires_grad and w.grad.tolist() == [2.0] * 3


step = 0


class _Opt:
    def step(self):
        return None


_OPT = _Opt()


def _calls_a_method_named_like_a_global(x):
    _OPT.step()
    return x * 2


def test_an_attribute_name_is_not_a_guarded_global():
    global step
    c = jit.compile(_calls_a_method_named_like_a_global)
    for step in range(12):  # a loop variable named like the method the function calls
        assert c(ea.ones(1)).tolist() == [2.0]
    assert c.captures == 1 and c.explain().graph_count == 1


def test_lazy_conjugate_views_break_the_graph_and_run_as_eager():
    """A replay's kernels and inlined views would skip the conjugate bit: conj() and ops of a conjugate view
    are a graph break (fullgraph raises), and the calls give eager's values and `is_conj()`."""
    a = np.arange(6).reshape(2, 3) + 1j * np.arange(6).reshape(2, 3)
    w = ea.from_numpy(a[::-1].copy())

    def f(x):
        y = x.conj()
        y[0].add_(1j)
        return y.t(), (x.mH @ x), y * w

    cf = jit.compile(f)
    for _ in range(3):
        x1, x2 = ea.from_numpy(a.copy()), ea.from_numpy(a.copy())
        for got, want in zip(cf(x1), f(x2)):
            assert got.is_conj() == want.is_conj()
            np.testing.assert_allclose(np.asarray(got.tolist()), np.asarray(want.tolist()))
        np.testing.assert_array_equal(x1.numpy(), x2.numpy())
    g = jit.compile(lambda x: x.t() * 2, fullgraph=True)
    with pytest.raises(jit.Unsupported, match="conjugate view"):
        for _ in range(3):
            g(ea.from_numpy(a.copy()).conj())


def test_lazy_negative_views_break_the_graph_and_run_as_eager():
    """`.imag` of a conjugate view is a negative view, which a replay would read as stored: ops of one are a
    graph break (fullgraph raises), and the calls give eager's values and writes."""
    a = np.arange(6).reshape(2, 3) + 1j * np.arange(6).reshape(2, 3)

    def f(x):
        y = x.conj().imag
        y[0].add_(1.0)
        return y.t() * 2, y.is_neg()

    cf = jit.compile(f)
    for _ in range(3):
        x1, x2 = ea.from_numpy(a.copy()), ea.from_numpy(a.copy())
        (got, got_neg), (want, want_neg) = cf(x1), f(x2)
        assert got_neg and want_neg
        np.testing.assert_array_equal(np.asarray(got.tolist()), np.asarray(want.tolist()))
        np.testing.assert_array_equal(x1.numpy(), x2.numpy())
    g = jit.compile(lambda y: y.t() * 2, fullgraph=True)
    with pytest.raises(jit.Unsupported, match="negative view"):
        for _ in range(3):
            g(ea.from_numpy(a.copy()).conj().imag)
