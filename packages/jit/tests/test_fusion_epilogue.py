"""Fusion with broadcast operands and a closing `sum` (NOTE [ Broadcast operands and epilogue sums ]), against eager."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit
from ember.jit.fusion import FusedOp


@pytest.fixture(autouse=True)
def _fuse(monkeypatch):
    monkeypatch.setattr(jit.config, "fuse", True)


def _t(*shape, seed=0, dtype=np.float32, requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ea.tensor(a, requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


def _replays(c, *args):
    for _ in range(3):
        out = c(*args)
    return out


def _fused_nodes(c):
    return [n for n in c.explain().plans[0].nodes if isinstance(getattr(n, "op", None), FusedOp)]


@pytest.mark.parametrize("bshape", [(16,), (1, 16)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_vector_bias_then_relu_is_one_pass(bshape, dtype):
    def f(x, b):
        return (x + b).relu() * 2.0 - b

    c = jit.compile(f)
    x, b = _t(8, 16, dtype=dtype), _t(*bshape, seed=1, dtype=dtype)
    got = _replays(c, x, b)
    assert c.explain().ops_per_graph == [["fused[add, relu, mul, sub]"]]
    # only arithmetic: the same IEEE operations in the same order as eager's numpy calls, so the same bits
    np.testing.assert_array_equal(_np(got), _np(f(x, b)))
    ref = np.maximum(_np(x).astype(np.float64) + _np(b), 0) * 2.0 - _np(b)
    np.testing.assert_allclose(_np(got), ref, rtol=1e-6 if dtype == np.float32 else 1e-15)


def test_column_and_scalar_broadcast():
    def f(x, col, s, one):
        return ((x * col + s) / one).exp()

    c = jit.compile(f)
    x, col = _t(6, 5), _t(6, 1, seed=1)
    s, one = ea.tensor(np.float32(0.5)), ea.tensor(np.full((1, 1), 3.0, np.float32))
    got = _replays(c, x, col, s, one)
    assert c.explain().ops_per_graph == [["fused[mul, add, div, exp]"]]
    ref = np.exp((_np(x).astype(np.float64) * _np(col) + 0.5) / 3.0)
    np.testing.assert_allclose(_np(got), ref, rtol=1e-6)
    np.testing.assert_allclose(_np(got), _np(f(x, col, s, one)), rtol=1e-6)


def test_expanded_operands_and_three_dims():
    def f(x, pos, scale, col):
        # pos: (T, D) against (B, T, D); scale: (D,) made (B, T, D) by expand (stride-0 dims); col: (B, T, 1)
        y = x + pos
        return y * scale.expand(3, 4, 5) - col.expand(3, 4, 5)

    c = jit.compile(f)
    x, pos, scale, col = _t(3, 4, 5), _t(4, 5, seed=1), _t(5, seed=2), _t(3, 4, 1, seed=3)
    got = _replays(c, x, pos, scale, col)
    assert c.explain().ops_per_graph == [["add", "expand", "expand", "fused[mul, sub]"]]
    np.testing.assert_array_equal(_np(got), _np(f(x, pos, scale, col)))
    # pos alone fuses with its (B*T*D) split: one row of T*D values
    c2 = jit.compile(lambda x, pos: (x + pos).relu())
    np.testing.assert_array_equal(_np(_replays(c2, x, pos)), np.maximum(_np(x) + _np(pos), 0))
    assert c2.explain().ops_per_graph == [["fused[add, relu]"]]


def test_column_slices_fuse_with_a_leading_sum():
    # as in NCF's backward: a `narrow` of cat's gradient (rows 64 apart), then a bias gradient
    def g_(g, x):
        y = g.narrow(1, 32, 32) * 2.0 - x
        return y.relu()

    g, x = _t(50, 64), _t(50, 32, seed=1)
    c = jit.compile(g_)
    np.testing.assert_array_equal(_np(_replays(c, g, x)), np.maximum(_np(g)[:, 32:] * 2 - _np(x), 0))
    assert c.explain().ops_per_graph == [["narrow", "fused[mul, sub, relu]"]]
    c2 = jit.compile(lambda g, x: (g.narrow(1, 32, 32) + x).sum(0))
    np.testing.assert_array_equal(_np(_replays(c2, g, x)), (_np(g)[:, 32:] + _np(x)).sum(0))
    assert c2.explain().ops_per_graph == [["narrow", "fused[add, sum]"]]


def test_a_slice_reaches_the_kernel_in_place_with_its_row_stride():
    from ember.jit.fusion import _operands

    g = _t(50, 64)
    (a,), (rs,) = _operands((g.narrow(1, 32, 32),), ((None, (50, 32)),))
    assert rs == 64 and a.shape == (49 * 64 + 32,) and np.shares_memory(a, _np(g))
    np.testing.assert_array_equal(a[np.arange(50)[:, None] * 64 + np.arange(32)], _np(g)[:, 32:])
    t = _t(32, 50, seed=2).t()  # a view of another layout at a replay: copied, its rows cols apart
    (b,), (rs2,) = _operands((t,), ((None, (50, 32)),))
    assert rs2 == 32 and not np.shares_memory(b, _np(t))
    np.testing.assert_array_equal(b.reshape(50, 32), _np(t))


def test_operands_the_loop_cannot_read_stay_unfused():
    def f(x, y, b):
        return (x.t() + y).relu(), (y + b).relu()  # a transposed operand; b (5, 1) against (6, 5) is no broadcast

    c = jit.compile(f)
    x, y, b = _t(5, 6), _t(6, 5, seed=1), _t(6, 1, seed=2)
    p, q = _replays(c, x, y, b)
    ops = c.explain().ops_per_graph[0]
    assert "add" in ops and "fused[add, relu]" in ops
    np.testing.assert_array_equal(_np(p), np.maximum(_np(x).T + _np(y), 0))
    np.testing.assert_array_equal(_np(q), np.maximum(_np(y) + _np(b), 0))


def test_empty_group_stays_unfused():
    c = jit.compile(lambda x, b: (x + b).relu())
    x, b = ea.zeros(0, 4), _t(4)
    assert _replays(c, x, b).shape == (0, 4)
    assert c.explain().ops_per_graph == [["add", "relu"]]


@pytest.mark.parametrize("dims,keepdim", [((0,), True), ((0,), False), ((-2,), True)])
def test_leading_sum_is_eager_bitwise(dims, keepdim):
    def f(x, b):
        y = (x + b).relu()
        return y, y.sum(dims, keepdim=keepdim)

    c = jit.compile(f)
    x, b = _t(300, 70), _t(70, seed=1)
    y, s = _replays(c, x, b)
    assert c.explain().ops_per_graph == [["fused[add, relu, sum]"]]
    ey, es = f(x, b)
    assert s.shape == es.shape
    np.testing.assert_array_equal(_np(y), _np(ey))
    # numpy's order for a sum over the outer dim (from 0, row after row), in float32: eager's bits
    np.testing.assert_array_equal(_np(s), _np(es))


def test_summed_value_is_not_written_when_nothing_reads_it():
    c = jit.compile(lambda x, g: (x * g).sum((0, 1)))
    x, g = _t(4, 8, 16), _t(4, 8, 16, seed=1)
    s = _replays(c, x, g)
    assert c.explain().ops_per_graph == [["fused[mul, sum]"]]
    (node,) = _fused_nodes(c)
    assert len(node.outs) == 1  # the sum only: the product lives in registers
    np.testing.assert_array_equal(_np(s), (_np(x) * _np(g)).sum((0, 1)))


@pytest.mark.parametrize("dims", [None, (2,), (-1,), (1, 2)])
def test_whole_and_trailing_sums_accumulate_at_least_as_well_as_eager(dims):
    # many values around 1 with a few large ones: float32 rounding in the sum shows
    def f(x, b):
        y = x * 0.5 + b
        return y.sum() if dims is None else y.sum(dims)

    a = np.random.default_rng(3).standard_normal((40, 64, 96)).astype(np.float32) + 1
    a[::7, 3, ::5] = 3e4
    # b: a row for the splits (2,) and (-1,) allow, one value for (1, 2) and the whole sum
    x, b = ea.tensor(a), _t(96, seed=4) if dims in ((2,), (-1,)) else ea.tensor(np.float32(0.25))
    c = jit.compile(f)
    got = _np(_replays(c, x, b))
    assert c.explain().ops_per_graph == [["fused[mul, add, sum]"]]
    y64 = (np.float32(0.5) * a + _np(b)).astype(np.float64)  # the float32 terms, summed in float64
    ref = y64.sum() if dims is None else y64.sum(dims)
    want = _np(f(x, b))
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5)
    # float64 accumulators, rounded once: within an ulp of the float64 sum, never further than eager's
    err, eager_err = np.abs(got - ref), np.abs(want.astype(np.float64) - ref)
    assert np.all(err <= np.maximum(eager_err, np.spacing(np.abs(ref).astype(np.float32))))


def test_middle_dims_sum_stays_unfused():
    c = jit.compile(lambda x: (x * 2.0 + 1.0).sum(1))
    x = _t(3, 4, 5)
    got = _replays(c, x)
    assert c.explain().ops_per_graph == [["fused[mul, add]", "sum"]]
    np.testing.assert_array_equal(_np(got), (_np(x) * 2 + 1).sum(1))


def test_nan_and_inf_propagate_through_broadcast_and_sum():
    def f(x, b):
        y = (x + b).relu()
        return y, y.sum((0,)), (x * b).sum()

    x = _t(4, 6)
    xv = _np(x).copy()
    xv[1, 2] = np.nan
    xv[2, 4] = np.inf
    b = _t(6, seed=1)
    bv = _np(b).copy()
    bv[0] = -np.inf
    bv[5] = np.nan
    x, b = ea.tensor(xv), ea.tensor(bv)
    c = jit.compile(f)
    got = [_np(t) for t in _replays(c, x, b)]
    assert c.explain().ops_per_graph == [["fused[add, relu, sum]", "fused[mul, sum]"]]
    for g, e in zip(got, [_np(t) for t in f(x, b)]):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(e))
        np.testing.assert_array_equal(g[~np.isnan(g)], e[~np.isnan(e)])
    assert np.isnan(got[1][5]) and got[1][0] == 0.0 and np.isinf(got[1][4])


def test_gradients_of_a_bias_relu_chain_match_eager():
    w0, b0 = _t(12, 8, seed=1), _t(8, seed=2)

    def step(x, w, b):
        w.grad = b.grad = None
        loss = ((x @ w + b).relu() * 0.5 + b).sum()
        loss.backward()
        return loss, w.grad, b.grad

    c = jit.compile(step)
    we, be = ea.tensor(_np(w0), requires_grad=True), ea.tensor(_np(b0), requires_grad=True)
    wc, bc = ea.tensor(_np(w0), requires_grad=True), ea.tensor(_np(b0), requires_grad=True)
    for i in range(4):
        x = _t(32, 12, seed=10 + i)
        for got, want in zip(c(x, wc, bc), step(x, we, be)):
            np.testing.assert_allclose(_np(got), _np(want), rtol=1e-5, atol=1e-6)
    ops = c.explain().ops_per_graph[0]
    assert "fused[add, relu, mul, add, sum]" in ops, ops
    # the float64 reference of the last step
    x64, w64, b64 = _np(x).astype(np.float64), _np(w0).astype(np.float64), _np(b0).astype(np.float64)
    h = x64 @ w64 + b64
    np.testing.assert_allclose(_np(c(x, wc, bc)[0]), (np.maximum(h, 0) * 0.5 + b64).sum(), rtol=1e-5)
    np.testing.assert_allclose(_np(bc.grad), 0.5 * (h > 0).sum(0) + 32, rtol=1e-5)


def test_linear_relu_mlp_training_step_matches_eager():
    nn = pytest.importorskip("ember.nn")
    optim = pytest.importorskip("ember.optim")

    def make():
        ea.manual_seed(0)
        model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))
        opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

        def step(x, y):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss.detach()

        return model, step

    me, se = make()
    mc, sc = make()
    c = jit.compile(sc)
    rng = np.random.default_rng(7)
    for _ in range(8):
        x = ea.tensor(rng.standard_normal((64, 20)).astype(np.float32))
        y = ea.tensor(rng.integers(0, 4, 64))
        np.testing.assert_allclose(_np(c(x, y)), _np(se(x, y)), rtol=1e-5)
    for pc, pe in zip(mc.parameters(), me.parameters()):
        np.testing.assert_allclose(_np(pc), _np(pe), rtol=1e-5, atol=1e-6)
    ops = c.explain().ops_per_graph[0]
    assert ops.count("fused[add, relu]") == 2, ops  # each hidden linear: mm, then bias and ReLU in one pass


def test_a_constant_re_pointed_to_another_shape_captures_again():
    b = _t(16, seed=1)
    c = jit.compile(lambda x: (x + b).relu())
    x = _t(4, 16)
    _replays(c, x)
    assert c.explain().ops_per_graph == [["fused[add, relu]"]]
    # the loop read b as a row of 16: the replay tests b's geometry, so a (4, 16) b is a new plan, not a bad read
    new = np.arange(64, dtype=np.float32).reshape(4, 16)
    b.data = ea.tensor(new)
    for _ in range(3):
        np.testing.assert_array_equal(_np(c(x)), np.maximum(_np(x) + new, 0))
    assert c.captures == 2
    b.data = ea.tensor(np.arange(8, dtype=np.float32))
    with pytest.raises(RuntimeError, match="must match the size"):  # eager's broadcast error
        c(x)


def test_parallel_variant_of_a_loop_nest(monkeypatch):
    monkeypatch.setattr(jit.config, "fuse_parallel_min", 1)  # prange over the rows (a group with a sum stays serial)

    def f(x, b, col):
        y = (x + b).relu() * col
        return y, y.sum(0)

    c = jit.compile(f)
    x, b, col = _t(33, 17), _t(17, seed=1), _t(33, 1, seed=2)
    y, s = _replays(c, x, b, col)
    assert c.explain().ops_per_graph == [["fused[add, relu, mul, sum]"]]
    ey, es = f(x, b, col)
    np.testing.assert_array_equal(_np(y), _np(ey))
    np.testing.assert_array_equal(_np(s), _np(es))
    c2 = jit.compile(lambda x, b, col: (x + b).relu() * col)
    np.testing.assert_array_equal(_np(_replays(c2, x, b, col)), _np(ey))
    assert c2.explain().ops_per_graph == [["fused[add, relu, mul]"]]


def _lookup_cat(wa, wb, u, i):
    from ember.nn import functional as F

    return ea.cat((F.embedding(u, wa), F.embedding(i, wb)), 1) * 2.0


def test_a_cat_of_embedding_lookups_is_one_gather_with_eagers_values_and_errors():
    pytest.importorskip("ember.nn")
    wa, wb = _t(20, 3), _t(30, 5, seed=1)
    u, i = ea.tensor(np.array([3, 0, 19, 3])), ea.tensor(np.array([29, 1, 0, 7]))
    c = jit.compile(_lookup_cat)
    np.testing.assert_array_equal(_np(_replays(c, wa, wb, u, i)), _np(_lookup_cat(wa, wb, u, i)))
    assert c.explain().ops_per_graph == [["fused[embedding, embedding, cat]", "mul"]]
    bad = ea.tensor(np.array([29, 30, 0, 7]))  # a replay with an index past the second table: eager's error
    with pytest.raises(IndexError, match="index out of range in self"):
        c(wa, wb, u, bad)
    with ea.no_grad():  # a table re-pointed to another width: the lookups and the cat as eager
        wb.data = _t(30, 2, seed=2)
    np.testing.assert_array_equal(_np(_replays(c, wa, wb, u, i)), _np(_lookup_cat(wa, wb, u, i)))


def test_gathered_lookups_train_as_eager():
    nn = pytest.importorskip("ember.nn")

    def run(compiled):
        ea.manual_seed(0)
        eu, ei, lin = nn.Embedding(20, 4), nn.Embedding(30, 4), nn.Linear(8, 3)  # 3: no single-column sum
        ps = [*eu.parameters(), *ei.parameters(), *lin.parameters()]
        opt = pytest.importorskip("ember.optim").Adam(ps, lr=0.05)

        def step(u, i):
            opt.zero_grad()
            loss = lin(ea.cat((eu(u), ei(i)), 1)).square().mean()
            loss.backward()
            opt.step()
            return loss

        fn = jit.compile(step) if compiled else step
        rng = np.random.default_rng(3)
        u, i = ea.tensor(rng.integers(0, 20, 16)), ea.tensor(rng.integers(0, 30, 16))
        losses = [fn(u, i).item() for _ in range(6)]
        return losses, [_np(p).copy() for p in ps], fn

    (le, pe, _), (lc, pc, fn) = run(False), run(True)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    assert any("fused[embedding, embedding, cat]" in ops for ops in fn.explain().ops_per_graph)


def _gmf_cat(wa, wb, u, i, x):
    from ember.nn import functional as F

    return ea.cat((F.embedding(u, wa) * F.embedding(i, wb), (x * 1.5).relu()), 1) * 2.0


def test_a_cat_of_a_product_of_lookups_is_one_node_with_eagers_values_and_errors():
    # NCF's GMF product and the MLP's output: the lookups and their product go straight into the cat's first
    # block, the other operand is copied into the second (NOTE [ Gathers into a cat ])
    pytest.importorskip("ember.nn")
    wa, wb, x = _t(20, 3), _t(30, 3, seed=1), _t(4, 5, seed=2)
    u, i = ea.tensor(np.array([3, 0, 19, 3])), ea.tensor(np.array([29, 1, 0, 7]))
    c = jit.compile(_gmf_cat)
    np.testing.assert_array_equal(_np(_replays(c, wa, wb, u, i, x)), _np(_gmf_cat(wa, wb, u, i, x)))
    assert c.explain().ops_per_graph == [["fused[mul, relu]", "fused[embedding, embedding, mul, cat]", "mul"]]
    for bad in ([3, 0, 20, 3], [29, 1, -31, 7]):  # past the first table, or the second: eager's error
        args = (wa, wb, ea.tensor(np.array(bad)), i) if bad[0] == 3 else (wa, wb, u, ea.tensor(np.array(bad)))
        with pytest.raises(IndexError, match="index out of range in self"):
            c(*args, x)
    with ea.no_grad():  # a table re-pointed to another width: the lookups, the product and the cat as eager
        wa.data, wb.data = _t(20, 2, seed=3), _t(30, 2, seed=4)
    np.testing.assert_array_equal(_np(_replays(c, wa, wb, u, i, x)), _np(_gmf_cat(wa, wb, u, i, x)))


def test_a_product_of_lookups_into_a_cat_trains_as_eager():
    # the lookups the product's backward reads are made by the cat's node: 6 Adam steps bitwise eager's
    nn = pytest.importorskip("ember.nn")

    def run(compiled):
        ea.manual_seed(0)
        eu, ei, mu, lin = nn.Embedding(20, 4), nn.Embedding(30, 4), nn.Linear(3, 4), nn.Linear(8, 3)
        ps = [*eu.parameters(), *ei.parameters(), *mu.parameters(), *lin.parameters()]
        opt = pytest.importorskip("ember.optim").Adam(ps, lr=0.05)

        def step(u, i, x):
            opt.zero_grad()
            loss = lin(ea.cat((eu(u) * ei(i), mu(x).relu()), 1)).square().mean()
            loss.backward()
            opt.step()
            return loss

        fn = jit.compile(step) if compiled else step
        rng = np.random.default_rng(3)
        u, i = ea.tensor(rng.integers(0, 20, 16)), ea.tensor(rng.integers(0, 30, 16))
        x = ea.tensor(rng.standard_normal((16, 3)).astype(np.float32))
        losses = [fn(u, i, x).item() for _ in range(6)]
        return losses, [_np(p).copy() for p in ps], fn

    (le, pe, _), (lc, pc, fn) = run(False), run(True)
    assert le == lc
    for a, b in zip(pe, pc, strict=True):
        np.testing.assert_array_equal(a, b)
    ops = fn.explain().ops_per_graph[0]
    assert "fused[embedding, embedding, mul, cat]" in ops
    assert ops.count("fused[mul, embedding_backward]") == 2 and "mul" not in ops, ops  # the product's gradients


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_the_gradient_of_a_product_of_lookups_is_one_scatter_with_eagers_bits(padding_idx):
    # embedding_backward(g * v, u): the products rounded, then scattered in eager's order; padding_idx's row stays 0
    nn = pytest.importorskip("ember.nn")
    eu, ei = nn.Embedding(20, 5, padding_idx=padding_idx), nn.Embedding(30, 5)
    rng = np.random.default_rng(6)
    u, i = ea.tensor(rng.integers(0, 20, 64)), ea.tensor(rng.integers(0, 30, 64))
    w = ea.tensor(rng.standard_normal((64, 5)).astype(np.float32))

    def step(u, i):
        eu.weight.grad = ei.weight.grad = None
        ((eu(u) * ei(i)).tanh() * w).sum().backward()
        return eu.weight.grad, ei.weight.grad

    c = jit.compile(step)
    got = _replays(c, u, i)
    assert c.explain().ops_per_graph[0].count("fused[mul, embedding_backward]") == 2, c.explain().ops_per_graph
    for a, b in zip(got, step(u, i), strict=True):
        assert _np(a).tobytes() == _np(b).tobytes()
    if padding_idx is not None:
        assert not _np(got[0])[padding_idx].any()
