"""compile on ember.nn modules and whole training steps (forward, backward, optimizer step, zero_grad).

These need ember.nn (a layer above jit): they skip where only core, autograd and jit are installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit

nn = pytest.importorskip("ember.nn")
optim = pytest.importorskip("ember.optim")


def _data(n, shape, classes, seed=0):
    rng = np.random.default_rng(seed)
    xs = [ea.tensor(rng.standard_normal(shape).astype(np.float32)) for _ in range(n)]
    ys = [ea.tensor(rng.integers(0, classes, shape[0])) for _ in range(n)]
    return xs, ys


def _mlp(dropout=0.0):
    layers = [nn.Linear(8, 32), nn.ReLU()] + ([nn.Dropout(dropout)] if dropout else []) + [nn.Linear(32, 4)]
    return nn.Sequential(*layers)


def _cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 8, 3), nn.Tanh(),
                         nn.Flatten(), nn.Linear(8 * 2 * 2, 5))


def _train(compiled, make_model, make_opt, steps=20, data=None, sched=None, zero_first=True, set_to_none=True):
    ea.manual_seed(0)
    model = make_model()
    opt = make_opt(model.parameters())
    scheduler = sched(opt) if sched else None
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        if zero_first:
            opt.zero_grad(set_to_none=set_to_none)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if not zero_first:
            opt.zero_grad(set_to_none=set_to_none)
        return loss

    fn = jit.compile(step) if compiled else step
    xs, ys = data or _data(steps, (6, 8), 4)
    losses = []
    for x, y in zip(xs, ys):
        losses.append(fn(x, y).item())
        if scheduler is not None:
            scheduler.step()
    params = [p.detach().numpy().copy() for p in model.parameters()]
    return losses, params, fn


@pytest.mark.parametrize("make_opt", [
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
    lambda ps: optim.Adam(ps, lr=0.01),
    lambda ps: optim.AdamW(ps, lr=0.01, amsgrad=True),
], ids=["sgd-momentum", "sgd-nesterov", "adam", "adamw-amsgrad"])
@pytest.mark.parametrize("zero_first", [True, False], ids=["zero-first", "zero-last"])
def test_training_step_replays_to_eager_losses_bitwise(make_opt, zero_first):
    le, pe, _ = _train(False, _mlp, make_opt, zero_first=zero_first)
    lc, pc, fn = _train(True, _mlp, make_opt, zero_first=zero_first)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    assert fn.captures == 1
    ops = fn.explain().ops_per_graph[0]
    assert "mm" in ops and "cross_entropy_backward" in ops and ops[-1 if not zero_first else 0].endswith("zero_grad")


def test_zero_grad_to_zeros_accumulates_into_the_same_grad_tensors():
    def make_opt(ps):
        return optim.SGD(ps, lr=0.1, momentum=0.9)
    le, pe, _ = _train(False, _mlp, make_opt, set_to_none=False)
    lc, pc, fn = _train(True, _mlp, make_opt, set_to_none=False)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    assert fn.captures == 1


def test_lr_scheduler_changes_the_rate_without_a_new_capture():
    def make_opt(ps):
        return optim.SGD(ps, lr=0.2, momentum=0.5)

    def sched(o):
        return optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5)
    le, pe, _ = _train(False, _mlp, make_opt, steps=12, sched=sched)
    lc, pc, fn = _train(True, _mlp, make_opt, steps=12, sched=sched)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    assert fn.captures == 1


def test_cnn_training_step_matches_eager():
    data = _data(8, (3, 1, 8, 8), 5)
    le, pe, _ = _train(False, _cnn, lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9), data=data)
    lc, pc, fn = _train(True, _cnn, lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9), data=data)
    assert le == lc
    assert fn.captures == 1 and fn.explain().graph_break_count == 0


def test_training_with_dropout_draws_eager_streams():
    def make():
        return _mlp(dropout=0.3)
    le, _, _ = _train(False, make, lambda ps: optim.Adam(ps, lr=0.01), steps=10)
    lc, _, fn = _train(True, make, lambda ps: optim.Adam(ps, lr=0.01), steps=10)
    assert le == lc and fn.captures == 1


def _mlp_bn_dropout():
    return nn.Sequential(nn.Linear(8, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.25), nn.Linear(32, 4))


@pytest.mark.parametrize("make_model, shape", [(_mlp, (6, 8)), (_cnn, (3, 1, 8, 8)), (_mlp_bn_dropout, (6, 8))],
                         ids=["mlp", "cnn", "batchnorm-dropout"])
def test_compiled_module_forward_with_backward_outside_trains_like_eager(make_model, shape):
    def run(compiled):
        ea.manual_seed(4)
        model = make_model()
        fwd = jit.compile(model) if compiled else model
        opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        xs, ys = _data(8, shape, 4)
        losses = []
        for x, y in zip(xs, ys):
            opt.zero_grad()
            loss = loss_fn(fwd(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, fwd
    eager, _ = run(False)
    comp, fwd = run(True)
    assert eager == comp
    e = fwd.explain()
    assert e.graph_count == 1 and e.plans[0].backward is not None and fwd._compiled.captures == 1


@pytest.mark.parametrize("make_model, shape", [(_mlp, (5, 8)), (_cnn, (2, 1, 8, 8))], ids=["mlp", "cnn"])
def test_compiled_module_inference_matches_eager(make_model, shape):
    ea.manual_seed(1)
    model = make_model().eval()
    cm = jit.compile(model)
    assert cm._orig_mod is model and cm.__wrapped__ is model
    with ea.no_grad():
        for i in range(4):
            x = ea.tensor(np.random.default_rng(i).standard_normal(shape).astype(np.float32))
            np.testing.assert_array_equal(cm(x).numpy(), model(x).numpy())
    assert cm.explain().graph_count == 1 and cm._compiled.captures == 1
    assert cm.training is False and cm.parameters is not None and cm.state_dict().keys() == model.state_dict().keys()


def test_training_flag_of_a_module_is_guarded():
    ea.manual_seed(2)
    model = _mlp(dropout=0.5)
    cm = jit.compile(model)
    x = ea.tensor(np.ones((4, 8), np.float32))
    with ea.no_grad():
        model.eval()
        for _ in range(3):
            ev = cm(x)
        np.testing.assert_array_equal(ev.numpy(), model(x).numpy())
        model.train()
        ea.manual_seed(5)
        tr = [cm(x).numpy() for _ in range(3)]
        ea.manual_seed(5)
        eager = [model(x).numpy() for _ in range(3)]
    for a, b in zip(tr, eager):
        np.testing.assert_array_equal(a, b)
    assert cm._compiled.captures == 2


def test_training_flag_of_a_module_reached_from_a_function_is_checked_before_replay():
    ea.manual_seed(3)
    model = _mlp(dropout=0.5)
    f = jit.compile(lambda x: model(x) * 1)
    x = ea.tensor(np.ones((4, 8), np.float32))
    with ea.no_grad():
        for _ in range(3):
            f(x)
        model.eval()
        np.testing.assert_array_equal(f(x).numpy(), model(x).numpy())
    assert f.captures == 2


def test_hundred_compiled_steps_stay_bitwise_equal_to_eager():
    data = _data(100, (6, 8), 4, seed=9)
    le, pe, _ = _train(False, _mlp, lambda ps: optim.Adam(ps, lr=0.005), data=data)
    lc, pc, fn = _train(True, _mlp, lambda ps: optim.Adam(ps, lr=0.005), data=data)
    assert len(lc) == 100 and le == lc and fn.captures == 1
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)


class _Wavy(nn.Module):
    """An MLP whose activation is an elementwise chain with sin and sigmoid: with `config.fuse` (the default) the
    chain and its derivative replay as fused kernels over eager's own scalar sin, cos and sigmoid."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 32), nn.Linear(32, 4)

    def forward(self, x):
        h = self.fc1(x)
        return self.fc2(h * h.sigmoid() + (h * 1.5).sin() * 0.25)


def test_hundred_fused_steps_with_sin_and_sigmoid_are_eagers_bits(monkeypatch):
    # the fused groups' sin, cos and sigmoid are eager's scalar functions, in eager's order (NOTE [ Eager and fused
    # transcendentals share one implementation ]): 100 Adam steps give eager's losses and parameters bit for bit
    monkeypatch.setattr(jit.config, "fuse", True)
    data = _data(100, (6, 8), 4, seed=9)
    le, pe, _ = _train(False, _Wavy, lambda ps: optim.Adam(ps, lr=0.005), data=data)
    lc, pc, fn = _train(True, _Wavy, lambda ps: optim.Adam(ps, lr=0.005), data=data)
    ops = [o for o in fn.explain().ops_per_graph[0] if o.startswith("fused[")]
    assert any("sin" in o for o in ops) and any("cos" in o for o in ops), ops  # sin and its derivative fused
    assert len(lc) == 100 and fn.captures == 1
    assert lc == le
    for a, b in zip(pe, pc, strict=True):
        np.testing.assert_array_equal(b, a)


def test_hundred_fused_steps_with_bce_with_logits_are_eagers_bits(monkeypatch):
    # NCF's loss: log_sigmoid and its backward join the fused groups around them (one forward, one backward
    # group), over eager's own functions: 100 Adam steps give eager's losses and parameters bit for bit
    monkeypatch.setattr(jit.config, "fuse", True)
    rng = np.random.default_rng(4)
    xs = [ea.tensor(rng.standard_normal((16, 8)).astype(np.float32)) for _ in range(100)]
    ys = [ea.tensor(rng.integers(0, 2, 16).astype(np.float32)) for _ in range(100)]

    def run(compiled):
        ea.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
        opt = optim.Adam(model.parameters(), lr=0.01)

        def step(x, y):
            opt.zero_grad()
            loss = nn.functional.binary_cross_entropy_with_logits(model(x).squeeze(-1), y)
            loss.backward()
            opt.step()
            return loss

        fn = jit.compile(step) if compiled else step
        losses = [fn(x, y).item() for x, y in zip(xs, ys)]
        return losses, [p.detach().numpy().copy() for p in model.parameters()], fn

    le, pe, _ = run(False)
    lc, pc, fn = run(True)
    ops = fn.explain().ops_per_graph[0]
    assert "log_sigmoid" not in ops and "log_sigmoid_backward" not in ops, ops
    assert sum(o.startswith("fused[") and "log_sigmoid" in o for o in ops) == 2, ops
    assert fn.captures == 1 and lc == le
    for a, b in zip(pe, pc, strict=True):
        np.testing.assert_array_equal(b, a)


class _Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 1.0
        self.register_buffer("shift", ea.zeros(2))

    def forward(self, x):
        return x * self.scale + self.shift


def test_module_number_attribute_and_rebound_buffer_are_guarded():
    m = _Scaled()
    c = jit.compile(m)
    x = ea.ones(2)
    got = [c(x).tolist()[0] for _ in range(3)]
    m.scale = 3.0
    got += [c(x).tolist()[0] for _ in range(3)]
    m.shift = ea.full((2,), 10.0)  # a new tensor under the buffer's name
    got += [c(x).tolist()[0] for _ in range(3)]
    assert got == [1.0] * 3 + [3.0] * 3 + [13.0] * 3
    with ea.no_grad():
        m.shift.fill_(20.0)  # in place: the same plan reads it
    assert c(x).tolist() == [23.0, 23.0]


def test_parameter_replaced_is_read_anew():
    lin = nn.Linear(2, 1, bias=False)
    c = jit.compile(lin)
    x = ea.ones(1, 2)
    with ea.no_grad():
        for _ in range(3):
            c(x)
        lin.weight = nn.Parameter(ea.full((1, 2), 2.0))
        assert c(x).tolist() == [[4.0]]


def _loop(compiled, opt_name, clip):
    ea.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 2))
    opt = getattr(optim, opt_name)(model.parameters(), lr=0.1)
    m = jit.compile(model) if compiled else model
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    X = ea.tensor(rng.standard_normal((50, 4)).astype(np.float32))
    Y = ea.tensor(rng.integers(0, 2, 50))
    losses = []
    for _ in range(3):
        m.train()
        for i in range(0, 50, 16):  # the last batch is smaller
            opt.zero_grad()
            loss = loss_fn(m(X[i:i + 16]), Y[i:i + 16])
            loss.backward()
            if clip:
                nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            losses.append(loss.item())
        m.eval()
        with ea.no_grad():
            losses.append(float(loss_fn(m(X), Y)))
    return losses


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("clip", [False, True])
def test_compiled_model_in_an_ordinary_loop_with_eval_passes_equals_eager(opt_name, clip):
    assert _loop(True, opt_name, clip) == _loop(False, opt_name, clip)


def _clipped_steps(compiled, max_norm):
    ea.manual_seed(0)
    model = _mlp()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        opt.step()
        return loss

    s = jit.compile(step, fullgraph=True) if compiled else step
    xs, ys = _data(3, (16, 8), 4)
    return [s(xs[i % 3], ys[i % 3]).item() for i in range(12)], s


@pytest.mark.parametrize("max_norm", [0.05, 100.0])  # clipping at every step / never
def test_compiled_step_with_grad_clipping_captures_whole_and_equals_eager(max_norm):
    got, s = _clipped_steps(True, max_norm)
    assert got == _clipped_steps(False, max_norm)[0]
    e = s.explain()
    assert e.graph_break_count == 0 and e.graph_count == 1


class _Remembers(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.last = None

    def forward(self, x):
        self.calls += 1
        self.last = x * 2
        return x + 1


def test_a_forward_that_sets_its_own_attributes_runs_eagerly():
    m = _Remembers()
    c = jit.compile(m)
    got = []
    for i in range(5):
        c(ea.full((1,), float(i)))
        got.append(m.last.tolist()[0])
    assert m.calls == 5 and got == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert "_Remembers.calls" in c.explain().break_reasons[0]


def test_module_compile_in_place_replays_and_copies(monkeypatch):
    import copy
    import pickle
    import warnings

    from ember.nn.modules import module as module_mod

    monkeypatch.setattr(module_mod, "_compiler", jit.CompiledFunction)  # what importing ember.torch installs
    m = _mlp()
    x = _data(1, (4, 8), 4)[0][0]
    want = m(x).detach().numpy()
    assert m.compile() is None
    for _ in range(4):
        np.testing.assert_array_equal(m(x).detach().numpy(), want)
    assert isinstance(m.forward, jit.CompiledFunction) and m.forward.explain().graph_count == 1
    assert list(m.state_dict()) == list(_mlp().state_dict())  # no prefix: the module itself is compiled
    c = copy.deepcopy(m)  # as PyTorch's, a copy (or a pickle) of a module compiled in place is not compiled
    with ea.no_grad():
        c[0].bias.add_(1.0)
    assert "forward" not in c.__dict__ and not np.array_equal(c(x).detach().numpy(), want)
    assert "forward" not in pickle.loads(pickle.dumps(m)).__dict__
    o = jit.compile(m)
    oc = copy.deepcopy(o)
    assert oc._compiled._module is oc._orig_mod is not m
    np.testing.assert_array_equal(m(x).detach().numpy(), want)
    e = _mlp()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        e.compile(backend=lambda gm, inputs: gm)
    assert "FX-graph backend" in str(w[0].message) and "forward" not in e.__dict__
    e.compile(disable=True)
    assert "forward" not in e.__dict__


def test_python_hooks_run_at_every_call():
    feats, pre_calls, grads = [], [], []
    m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    m[0].register_forward_hook(lambda mod, i, o: feats.append(o))
    m[0].register_forward_pre_hook(lambda mod, args: pre_calls.append(1))
    m[0].weight.register_hook(lambda g: grads.append(g))
    c = jit.compile(m)
    for k in range(4):
        c(ea.full((1, 2), float(k))).sum().backward()
    assert len(feats) == len(pre_calls) == 4 and len(grads) == 4
    assert [f.shape for f in feats] == [(1, 2)] * 4
    assert "a hook" in c.explain().break_reasons[0]

    w = nn.Linear(2, 1)
    seen = []
    w.weight.register_hook(lambda g: seen.append(g))

    def step(x):
        loss = w(x).sum()
        loss.backward()
        return loss

    s = jit.compile(step)
    for _ in range(4):
        s(ea.ones(1, 2))
    assert len(seen) == 4


def test_replayed_step_outputs_keep_a_spent_history():
    # PyTorch's compiled step returns the loss with its (consumed) history: requires_grad True, a grad_fn,
    # and a second backward raises "Trying to backward through the graph a second time"
    model = _mlp()
    opt = optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    @jit.compile
    def step(x, y):
        opt.zero_grad()
        logits = model(x)
        loss = loss_fn(logits, y)
        loss.backward()
        opt.step()
        return loss, logits

    xs, ys = _data(4, (6, 8), 4)
    for x, y in zip(xs, ys):
        loss, logits = step(x, y)
        assert loss.requires_grad and logits.requires_grad and not loss.is_leaf
        assert loss.grad_fn is not None and logits.grad_fn is not None
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            loss.backward()
    assert step.captures == 1  # the last two calls replayed
