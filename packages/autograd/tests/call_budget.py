"""Test helpers for the call budgets (test_*_budget.py): count the Python and C calls of one op call, not time,
so a slower path fails whatever the machine's load."""

from __future__ import annotations

import pytest

from ember.core.testing import count_calls  # noqa: F401 - the budget tests import it from here


@pytest.fixture
def cpu_only_process(monkeypatch):
    """The budgets are those of a process whose tensors are all on the CPU (the dispatcher skips its device scan
    there): an earlier test that made a meta or CUDA tensor turned that path off for the whole process, and the
    budget tests use CPU tensors only. A module takes it with `pytestmark = pytest.mark.usefixtures(...)`."""
    from ember.core import storage

    monkeypatch.setattr(storage, "only_cpu", True)
