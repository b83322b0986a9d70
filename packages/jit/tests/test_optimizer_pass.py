"""The optimizer's one-pass step inside a compiled plan (NOTE [ Optimizer steps in a plan ] in ember.jit.graph):
bitwise eager's update, state and versions, reading hyper-parameters at each replay, and falling back to
`step()` where eager would decide otherwise. These need ember.nn and ember.optim."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit

nn = pytest.importorskip("ember.nn")
optim = pytest.importorskip("ember.optim")


def _setup(make_opt, seed=0):
    ea.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = make_opt(model.parameters())
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return model, opt, step


def _batches(n):
    rng = np.random.default_rng(1)
    return [(ea.tensor(rng.standard_normal((5, 8)).astype(np.float32)), ea.tensor(rng.integers(0, 4, 5)))
            for _ in range(n)]


def _state_arrays(opt):
    out = []
    for group in opt.param_groups:
        for p in group["params"]:
            for k, v in sorted(opt.state[p].items()):
                out.append((k, v.detach().numpy().copy()))
    return out


def _run_both(make_opt, steps=8, between=None):
    """Eager and compiled trainings from one seed; `between(i, model, opt)` runs after each step of both."""
    results = []
    for compiled in (False, True):
        model, opt, step = _setup(make_opt)
        fn = jit.compile(step) if compiled else step
        losses = []
        for i, (x, y) in enumerate(_batches(steps)):
            losses.append(fn(x, y).item())
            if between is not None:
                between(i, model, opt)
        results.append((losses, [p.detach().numpy().copy() for p in model.parameters()], _state_arrays(opt),
                        [p._version for p in model.parameters()], fn, opt))
    return results


OPTIMIZERS = {
    "sgd": lambda ps: optim.SGD(ps, lr=0.1),
    "sgd-momentum": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=1e-3),
    "sgd-nesterov": lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, maximize=True),
    "adam": lambda ps: optim.Adam(ps, lr=0.01),
    "adam-l2": lambda ps: optim.Adam(ps, lr=0.01, weight_decay=0.1, betas=(0.6, 0.9)),
    "adamw-amsgrad": lambda ps: optim.AdamW(ps, lr=0.01, amsgrad=True, maximize=True),
}


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_one_pass_step_is_eager_bitwise_with_its_state_and_versions(name):
    (le, pe, se, ve, _, _), (lc, pc, sc, vc, fn, _) = _run_both(OPTIMIZERS[name])
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    assert [k for k, _ in se] == [k for k, _ in sc]
    for (_, a), (_, b) in zip(se, sc):
        np.testing.assert_array_equal(a, b)
    assert ve == vc  # the dispatcher's version bumps, made by the one-pass step too
    assert fn.captures == 1
    assert any(op.endswith(".step (one pass)") for op in fn.explain().ops_per_graph[0])


def test_hyper_parameters_are_read_at_every_replay():
    def change(i, model, opt):
        opt.param_groups[0]["lr"] *= 0.7
        opt.param_groups[0]["betas"] = (0.8 - 0.05 * i, 0.99)
        opt.param_groups[0]["weight_decay"] = 0.01 * i

    (le, pe, *_), (lc, pc, _, _, fn, _) = _run_both(OPTIMIZERS["adam"], between=change)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    assert fn.captures == 1


def test_a_step_hook_added_after_the_capture_runs_at_every_replay():
    calls = []

    def add_hook(i, model, opt):
        if i == 3:
            opt.register_step_post_hook(lambda o, a, k: calls.append(i))

    (le, pe, *_), (lc, pc, _, _, fn, _) = _run_both(OPTIMIZERS["sgd-momentum"], between=add_hook)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    assert len(calls) == 2 * 4  # steps 4..7, eager's and the compiled run's
    assert fn.captures == 1


def test_a_reloaded_state_is_read_by_the_next_replay():
    saved = {}

    def reload(i, model, opt):
        if i == 2:
            saved[id(opt)] = opt.state_dict()
        if i == 5:  # back to step 3's moments and counters, as new tensors
            opt.load_state_dict(saved[id(opt)])

    (le, pe, se, *_), (lc, pc, sc, *_) = _run_both(OPTIMIZERS["adamw-amsgrad"], between=reload)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    for (_, a), (_, b) in zip(se, sc):
        np.testing.assert_array_equal(a, b)


def test_a_parameter_replaced_in_place_of_its_data_is_updated():
    def swap(i, model, opt):
        if i == 3:
            w = model[0].weight
            with ea.no_grad():
                w.data = w.data * 0.5  # new storage: the replay's flat view of it is made again

    (le, pe, *_), (lc, pc, *_) = _run_both(OPTIMIZERS["adam"], between=swap)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("change", ["new_tensor", "data", "new_dict"])
def test_a_state_tensor_replaced_between_replays_is_read(change):
    # the one-pass step keeps each parameter's flat views while its state holds the same tensors over the same
    # arrays: a moment replaced in its dict, re-pointed with `.data`, or a new state dict is read afresh
    def swap(i, model, opt):
        if i == 3:
            st = opt.state[model[0].weight]
            if change == "new_tensor":
                st["exp_avg"] = st["exp_avg"] * 0.5
            elif change == "data":
                st["exp_avg_sq"].data = st["exp_avg_sq"].data * 2.0
            else:
                opt.state[model[0].weight] = {k: v.clone() for k, v in st.items()}

    (le, pe, se, *_), (lc, pc, sc, *_) = _run_both(OPTIMIZERS["adam"], between=swap)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    for (_, a), (_, b) in zip(se, sc):
        np.testing.assert_array_equal(a, b)


def test_a_subclass_with_its_own_step_and_the_config_switch_call_step():
    class Halved(optim.SGD):
        def step(self, closure=None):
            for g in self.param_groups:
                g["lr"] *= 0.5
            return super().step(closure)

    (le, pe, *_), (lc, pc, _, _, fn, _) = _run_both(lambda ps: Halved(ps, lr=0.2, momentum=0.5))
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)
    assert "Halved.step" in fn.explain().ops_per_graph[0]

    jit.config.optimizer_pass = False
    try:
        (le, _, *_), (lc, _, _, _, fn, _) = _run_both(OPTIMIZERS["adam"])
    finally:
        jit.config.optimizer_pass = True
    assert le == lc and "Adam.step" in fn.explain().ops_per_graph[0]


@pytest.mark.parametrize("name, reciprocal", [("adam", True), ("adamw", True), ("adam-l2", False),
                                              ("adamw-amsgrad", False)])
def test_reciprocal_adam_stays_within_the_jits_tolerance_of_eager(monkeypatch, name, reciprocal):
    # config.optimizer_reciprocal (opt-in, with fusion): the one-pass Adam's common step multiplies by
    # 1 / sqrt(bc2) where eager divides: 100 steps' losses and parameters within 1e-5 relative of eager, not eager's
    # bits; the kernel's general loop (L2 decay, amsgrad, maximize) still divides: eager's bits
    monkeypatch.setattr(jit.config, "optimizer_reciprocal", True)
    monkeypatch.setattr(jit.config, "fuse", True)
    make = OPTIMIZERS.get(name, lambda ps: optim.AdamW(ps, lr=0.01))
    (le, pe, _, _, _, _), (lc, pc, _, _, fn, _) = _run_both(make, steps=100)
    np.testing.assert_allclose(lc, le, rtol=1e-5)
    for a, b in zip(pe, pc):
        assert np.max(np.abs(a - b)) <= 1e-5 * np.max(np.abs(a))
    assert any(not np.array_equal(a, b) for a, b in zip(pe, pc)) == reciprocal
    assert any("(one pass)" in op for ops in fn.explain().ops_per_graph for op in ops)


def test_default_one_pass_adam_keeps_eagers_bits_over_a_hundred_steps():
    # the default plan (fusion on, config.optimizer_reciprocal off): 100 Adam steps give eager's losses, parameters
    # and state bit for bit, the JIT's promise where no fusion reorders float work
    assert jit.config.fuse and not jit.config.optimizer_reciprocal
    (le, pe, se, *_), (lc, pc, sc, _, fn, _) = _run_both(OPTIMIZERS["adam"], steps=100)
    assert le == lc
    assert all(np.array_equal(a, b) for a, b in zip(pe, pc))
    assert all(ka == kb and np.array_equal(a, b) for (ka, a), (kb, b) in zip(se, sc))
    assert any("(one pass)" in op for ops in fn.explain().ops_per_graph for op in ops)
