"""An optimizer's one-pass step (NOTE [ An optimizer's step in a compiled plan ]) spread over two threads
(`ember.core.ops.workers.spread`): eager's bits, every parameter element updated once."""

import numpy as np
import pytest

import ember.autograd as ea
from ember import optim
from ember.core.ops import workers
from ember.core.parallel import get_num_threads, set_num_threads
from ember.optim.optimizer import SPREAD_MIN

SHAPES = [(1100, 1000), (1000,), (7,), (64, 33)]


def _params(seed):
    rng = np.random.default_rng(seed)
    ps = [ea.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True) for s in SHAPES]
    for p in ps:
        p.grad = ea.tensor(rng.standard_normal(p.shape).astype(np.float32))
    return ps


@pytest.mark.parametrize("make", [
    lambda ps: optim.Adam(ps, lr=1e-2),
    lambda ps: optim.AdamW(ps, lr=1e-2, weight_decay=0.1, amsgrad=True),
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: optim.SGD(ps, lr=0.1),
], ids=["adam", "adamw-amsgrad", "sgd-momentum", "sgd"])
def test_a_one_pass_step_over_two_threads_has_eagers_bits(monkeypatch, make):
    assert sum(int(np.prod(s)) for s in SHAPES) >= SPREAD_MIN
    threads = get_num_threads()
    set_num_threads(2)
    waves = []
    run_all = workers.run_all
    monkeypatch.setattr(workers, "run_all", lambda calls: waves.append(len(calls)) or run_all(calls))
    try:
        eager, replayed = _params(0), _params(0)
        a, b = make(eager), make(replayed)
        a.step()
        b.step()  # the state a replay reads
        run = b._replay_step()
        for _ in range(2):
            a.step()
            run()
    finally:
        set_num_threads(threads)
    assert waves == [2, 2]  # each replayed pass in two ranges
    for p, q in zip(eager, replayed):
        assert p.detach().numpy().tobytes() == q.detach().numpy().tobytes()
    for p, q in zip(eager, replayed):
        for k, v in a.state[p].items():
            assert np.asarray(v.numpy() if hasattr(v, "numpy") else v).tobytes() == \
                np.asarray(b.state[q][k].numpy() if hasattr(b.state[q][k], "numpy") else b.state[q][k]).tobytes()
