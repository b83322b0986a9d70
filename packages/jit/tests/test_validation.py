"""Host reads inside an op's meta step are validations: captured, and replayed before the kernel.

Embedding's index range and binary_cross_entropy's [0, 1] range are checked in their ops' meta
steps, so a step using them captures whole and a replay with bad values raises eager's error
(never reads out of bounds); a host read whose value Python goes on with still breaks."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit

nn = pytest.importorskip("ember.nn")
optim = pytest.importorskip("ember.optim")

USERS, ITEMS, DIM, BATCH = 30, 20, 4, 16


class NCF(nn.Module):
    """Two embeddings, concatenated, an MLP: one logit per (user, item)."""

    def __init__(self):
        super().__init__()
        self.users = nn.Embedding(USERS, DIM)
        self.items = nn.Embedding(ITEMS, DIM)
        self.mlp = nn.Sequential(nn.Linear(2 * DIM, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, u, i):
        return self.mlp(ea.cat([self.users(u), self.items(i)], dim=1)).squeeze(1)


def _batches(n, seed=0):
    rng = np.random.default_rng(seed)
    return [(ea.tensor(rng.integers(0, USERS, BATCH)), ea.tensor(rng.integers(0, ITEMS, BATCH)),
             ea.tensor(rng.integers(0, 2, BATCH).astype(np.float32))) for _ in range(n)]


def _ncf(compiled):
    ea.manual_seed(0)
    model = NCF()
    opt = optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCEWithLogitsLoss()

    def step(u, i, y):
        opt.zero_grad()
        loss = loss_fn(model(u, i), y)
        loss.backward()
        opt.step()
        return loss

    return (jit.compile(step) if compiled else step), model


def test_ncf_step_captures_whole_and_matches_eager():
    batches = _batches(10)
    eager, _ = _ncf(False)
    want = [eager(*b).item() for b in batches]
    fn, _ = _ncf(True)
    got = [fn(*b).item() for b in batches]
    e = fn.explain()
    assert e.graph_break_count == 0 and e.graph_count == 1 and fn.captures == 1
    assert "fused[embedding, embedding, cat]" in e.ops_per_graph[0]  # NOTE [ Gathers into a cat ]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)


@pytest.mark.parametrize("bad", [USERS, -USERS - 1, 10**6])
def test_ncf_replay_out_of_range_index_raises_eager_error(bad):
    batches = _batches(3)
    runs = []
    for compiled in (False, True):
        fn, model = _ncf(compiled)
        for b in batches:
            fn(*b)
        u, i, y = batches[0]
        u_bad = u.clone()
        u_bad[3] = bad  # same shape and dtype: the guards pass, the plan replays
        before = [p.detach().numpy().copy() for p in model.parameters()]
        with pytest.raises(IndexError, match=r"^index out of range in self$"):
            fn(u_bad, i, y)
        for p, q in zip(model.parameters(), before):  # raised before any kernel wrote
            np.testing.assert_array_equal(p.detach().numpy(), q)
        if compiled:
            assert fn.captures == 1  # it was a replay that raised
        runs.append(fn(*batches[1]).item())  # zero_grad ran before the error in both: the same state
    assert runs[0] == pytest.approx(runs[1], rel=1e-6)


def _bce_step(compiled):
    ea.manual_seed(0)
    lin = nn.Linear(3, 1)
    opt = optim.SGD(lin.parameters(), lr=0.1)
    loss_fn = nn.BCELoss()

    def step(x, y, scale):
        opt.zero_grad()
        loss = loss_fn(lin(x).sigmoid().squeeze(1) * scale, y)
        loss.backward()
        opt.step()
        return loss

    return jit.compile(step) if compiled else step


def test_bce_loss_step_captures_and_replays_the_range_check():
    rng = np.random.default_rng(1)
    xs = [ea.tensor(rng.standard_normal((5, 3)).astype(np.float32)) for _ in range(4)]
    y = ea.tensor([0.0, 1.0, 1.0, 0.0, 1.0])
    one = ea.tensor(1.0)
    eager, fn = _bce_step(False), _bce_step(True)
    want = [eager(x, y, one).item() for x in xs]
    got = [fn(x, y, one).item() for x in xs]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    assert fn.explain().graph_break_count == 0 and fn.captures == 1
    big = ea.tensor(3.0)  # a tensor argument of the same shape: the plan replays, its input leaves [0, 1]
    with pytest.raises(RuntimeError, match=r"^all elements of input should be between 0 and 1$"):
        eager(xs[0], y, big)
    with pytest.raises(RuntimeError, match=r"^all elements of input should be between 0 and 1$"):
        fn(xs[0], y, big)
    assert fn.captures == 1  # it was a replay that raised
    with pytest.raises(RuntimeError, match=r"^all elements of target should be between 0 and 1$"):
        fn(xs[0], ea.tensor([0.0, 1.0, 2.0, 0.0, 1.0]), one)


def test_item_used_in_arithmetic_still_breaks():
    def f(x):
        return x * (x.sum().item() * 2)

    e = jit.explain(f, ea.ones(3))
    assert e.graph_break_count == 1 and "the value of .item() is used in Python" in e.break_reasons[0]
    g = jit.compile(f, fullgraph=True)
    with pytest.raises(jit.Unsupported, match=r"the value of \.item\(\) is used in Python"):
        g(ea.ones(3))


@pytest.mark.torch
def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError) as te:
        torch.nn.functional.embedding(torch.tensor([5]), torch.zeros(3, 2))
    assert str(te.value) == "index out of range in self"
    with pytest.raises(RuntimeError) as tb:
        torch.nn.functional.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))
    assert "all elements of input should be between 0 and 1" in str(tb.value)


def test_nodes_whose_meta_step_reads_values_are_marked():
    fn, _ = _ncf(True)
    for b in _batches(3):
        fn(*b)
    from ember.jit.graph import OpNode

    nodes = [n for n in fn.explain().plans[0].nodes if isinstance(n, OpNode)]
    marked = sorted({n.op.name for n in nodes if n.needs_check})
    # the lookups, gathered into their cat (NOTE [ Gathers into a cat ]); embedding_backward's kernel checks its
    # indices itself; mm's meta reads none
    assert marked == ["fused[embedding, embedding, cat]"]


def test_an_unused_lookup_still_validates_at_replay():
    w = ea.tensor(np.arange(10.0, dtype=np.float32).reshape(5, 2))

    def f(x, i):
        nn.functional.embedding(i, w)  # its result is dead code, its check is not
        return x * 2

    fn = jit.compile(f)
    for _ in range(3):
        fn(ea.ones(2), ea.tensor([1, 2]))
    assert fn.explain().ops_per_graph == [["embedding", "mul"]] and fn.captures == 1
    with pytest.raises(IndexError, match=r"^index out of range in self$"):
        fn(ea.ones(2), ea.tensor([1, 7]))
    assert fn.captures == 1
