"""Test helpers for the call budgets (test_*_budget.py): count the Python and C calls of one op call, not time,
so a slower path fails whatever the machine's load."""

from __future__ import annotations

import gc
import sys

import pytest


@pytest.fixture
def cpu_only_process(monkeypatch):
    """The budgets are those of a process whose tensors are all on the CPU (the dispatcher skips its device scan
    there): an earlier test that made a meta or CUDA tensor turned that path off for the whole process, and the
    budget tests use CPU tensors only. A module takes it with `pytestmark = pytest.mark.usefixtures(...)`."""
    from ember.core import storage

    monkeypatch.setattr(storage, "only_cpu", True)


def count_calls(fn) -> tuple[int, int]:
    """(Python calls, C-function calls) of one `fn()`, after two warm-up calls fill every cache."""
    fn()
    fn()
    calls = [0, 0]

    def prof(frame, event, arg):
        if event == "call":
            calls[0] += 1
        elif event == "c_call":
            calls[1] += 1

    # a garbage collection inside the counted call could run other objects' __del__ or weakref
    # callbacks, whose frames would count: collect first, and keep the collector off meanwhile
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if was_enabled:
            gc.enable()
    return calls[0], calls[1] - 1  # the c_call of setprofile(None) itself
