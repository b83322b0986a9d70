"""torch.utils.benchmark's Timer: runs counted, per-run times, the namespace the statement sees."""

import pytest

import ember.torch as torch
from ember.torch.utils import benchmark


def test_timeit_runs_the_statement_number_times_after_a_warm_up():
    calls = []
    m = benchmark.Timer("f()", globals={"f": lambda: calls.append(1)}, label="L", sub_label="s").timeit(300)
    assert len(calls) == 3 + 300  # warm-up of number // 100, then the timed block
    assert m.number_per_run == 300 and len(m.raw_times) == 1
    assert m.times == [m.raw_times[0] / 300] and m.mean == m.median == m.times[0] and m.iqr == 0.0
    assert m.title == "L: s" and "1 measurement, 300 runs , 1 thread" in repr(m)


def test_setup_sees_torch_and_blocked_autorange_measures_blocks():
    m = benchmark.Timer("y = x + 1", setup="x = torch.ones(3)").blocked_autorange(min_run_time=0.01)
    assert len(m.times) >= 2 and all(t > 0 for t in m.times) and m.stmt == "y = x + 1"
    assert torch.utils.benchmark is benchmark and m.title == "y = x + 1"


def test_a_callable_statement_is_refused():
    with pytest.raises(ValueError, match="only a `str` stmt is supported"):
        benchmark.Timer(lambda: None)
