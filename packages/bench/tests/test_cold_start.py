"""The cold-start probe records what Numba compiles, and only while it listens."""

import numpy as np

from ember.bench.cold_start import compile_events


def test_compile_events_records_each_compile_with_its_thread_cpu_time_and_stops_after():
    import numba

    def total(a):
        s = 0.0
        for v in a:
            s += v
        return s

    first, second = numba.njit(total), numba.njit(total)
    with compile_events() as events:
        assert first(np.arange(4.0)) == 6.0
    names = [(name, depth) for name, _, depth, _ in events]
    assert ("test_compile_events_records_each_compile_with_its_thread_cpu_time_and_stops_after.<locals>.total",
            0) in names
    assert all(seconds > 0 for *_, seconds in events)
    n = len(events)
    second(np.arange(3.0))  # compiled after the block: not recorded
    assert len(events) == n
